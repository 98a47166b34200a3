//! The fast training step on burn's module: the parameters read out of
//! [`PolicyValueNet`] into [`super::backprop`]'s layouts, the gradients handed back as burn's
//! [`GradientsParams`] (for burn's optimizer to apply), and the batch norms' running
//! statistics updated as burn's train-mode forward updates them.

use std::collections::BTreeMap;

use burn::module::{Module, ModuleVisitor, Param};
use burn::nn::BatchNorm;
use burn::nn::conv::Conv2d;
use burn::optim::GradientsParams;
use burn::tensor::{Device, Tensor, TensorData};

use super::super::kernels::conv::{from_gemm_layout, to_gemm_layout};
use super::super::{Aux, PerHead, PolicyValueNet, present, values};
use super::backprop::{Layer, Norm, Stats, Weights};

fn param_values<const D: usize>(p: &Param<Tensor<D>>) -> Vec<f32> {
    values(p.val())
}

/// A convolution's weights `[cout, cin, k, k]` in the step's `[k² × cin, cout]`.
fn conv_weights(conv: &Conv2d) -> Layer {
    let [cout, cin, kh, kw] = conv.weight.val().dims();
    Layer {
        w: to_gemm_layout(&param_values(&conv.weight), cout, cin, kh * kw),
        b: conv.bias.as_ref().map_or(Vec::new(), param_values),
    }
}

fn norm(bn: &BatchNorm) -> Norm {
    Norm {
        gamma: param_values(&bn.gamma),
        beta: param_values(&bn.beta),
    }
}

fn linear(l: &burn::nn::Linear) -> Layer {
    // burn stores [in, out], the step's layout.
    Layer {
        w: param_values(&l.weight),
        b: l.bias.as_ref().map_or(Vec::new(), param_values),
    }
}

/// Every convolution with the batch norm after it, in [`Weights::trunk`] order.
fn trunk(model: &PolicyValueNet) -> Vec<(&Conv2d, &BatchNorm)> {
    model
        .trunk()
        .into_iter()
        .map(|cb| (&cb.conv, &cb.bn))
        .collect()
}

/// The model's parameters in the step's layouts.
pub fn weights(model: &PolicyValueNet) -> Weights {
    Weights {
        trunk: (trunk(model).into_iter())
            .map(|(c, bn)| (conv_weights(c), norm(bn)))
            .collect(),
        policy: conv_weights(&model.policy),
        value_conv: (conv_weights(&model.value_conv), norm(&model.value_bn)),
        hidden: linear(&model.value_hidden),
        out: linear(&model.value_out),
        aux: PerHead::from_fn(|a| {
            let conv = model.conv(a).map(conv_weights);
            (conv.or_else(|| model.dense(a).map(linear))).unwrap_or_default()
        }),
        pools: (model.blocks.iter())
            .map(|b| b.pool.as_ref().map(linear).unwrap_or_default())
            .collect(),
    }
}

/// The gradients `g` as burn's [`GradientsParams`], keyed by `model`'s parameters, on
/// `device` (the inner device of the model's autodiff device).
pub fn gradients(g: &Weights, model: &PolicyValueNet, device: &Device) -> GradientsParams {
    let mut out = GradientsParams::new();
    let mut put1 = |p: &Param<Tensor<1>>, v: &[f32]| {
        let t = Tensor::<1>::from_data(TensorData::new(v.to_vec(), [v.len()]), device);
        out.register(p.id, t);
    };
    let mut put_norm = |bn: &BatchNorm, n: &Norm| {
        put1(&bn.gamma, &n.gamma);
        put1(&bn.beta, &n.beta);
    };
    for ((_, bn), (_, n)) in trunk(model).into_iter().zip(&g.trunk) {
        put_norm(bn, n);
    }
    put_norm(&model.value_bn, &g.value_conv.1);
    let dense = [(&model.value_hidden, &g.hidden), (&model.value_out, &g.out)];
    let aux = Aux::ALL.into_iter().map(|a| (model.dense(a), &g.aux[a]));
    let pools =
        (model.blocks.iter().zip(&g.pools)).filter_map(|(b, gl)| Some((b.pool.as_ref()?, gl)));
    let dense: Vec<_> = dense.into_iter().chain(present(aux)).chain(pools).collect();
    for &(l, gl) in &dense {
        put1(l.bias.as_ref().expect("linear bias"), &gl.b);
    }
    let heads = std::iter::once((&model.policy, &g.policy));
    let aux = Aux::ALL.into_iter().map(|a| (model.conv(a), &g.aux[a]));
    let heads: Vec<_> = heads.chain(present(aux)).collect();
    for &(conv, gl) in &heads {
        put1(conv.bias.as_ref().expect("head bias"), &gl.b);
    }
    let mut put4 = |conv: &Conv2d, w: &[f32]| {
        let dims = conv.weight.val().dims();
        let [cout, cin, kh, kw] = dims;
        let t = TensorData::new(from_gemm_layout(w, cout, cin, kh * kw), dims);
        out.register(conv.weight.id, Tensor::<4>::from_data(t, device));
    };
    for ((conv, _), (gl, _)) in trunk(model).into_iter().zip(&g.trunk) {
        put4(conv, &gl.w);
    }
    for (conv, gl) in heads {
        put4(conv, &gl.w);
    }
    put4(&model.value_conv, &g.value_conv.0.w);
    for (l, gl) in dense {
        let dims = l.weight.val().dims();
        let t = TensorData::new(gl.w.clone(), dims);
        out.register(l.weight.id, Tensor::<2>::from_data(t, device));
    }
    out
}

/// Moves every batch norm's running statistics toward the batch's `stats` (the trunk's,
/// then the value head's), as burn's train-mode forward does:
/// `running ← (1 − momentum) · running + momentum · batch`.
pub fn update_running(model: &PolicyValueNet, stats: &[Stats]) {
    let mut norms: Vec<&BatchNorm> = trunk(model).into_iter().map(|(_, bn)| bn).collect();
    norms.push(&model.value_bn);
    assert_eq!(
        norms.len(),
        stats.len(),
        "one batch's statistics per batch norm"
    );
    for (bn, st) in norms.into_iter().zip(stats) {
        let m = bn.momentum as f32;
        for (state, batch) in [(&bn.running_mean, &st.mean), (&bn.running_var, &st.var)] {
            let old = state.value_sync();
            let device = old.device();
            let old = values(old);
            let new: Vec<f32> = (old.iter().zip(batch))
                .map(|(&r, &b)| (1.0 - m) * r + m * b)
                .collect();
            let n = new.len();
            state.update(Tensor::<1>::from_data(TensorData::new(new, [n]), &device));
        }
    }
}

/// Collects float tensors by their path in the module.
struct Named<'a> {
    path: Vec<String>,
    grads: Option<&'a GradientsParams>,
    out: BTreeMap<String, Vec<f32>>,
    dims: BTreeMap<String, Vec<usize>>,
}

impl ModuleVisitor for Named<'_> {
    fn enter_module(&mut self, name: &str, _: &str) {
        self.path.push(name.to_string());
    }

    fn exit_module(&mut self, _: &str, _: &str) {
        self.path.pop();
    }

    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let value = match self.grads {
            Some(g) => g.get::<D>(param.id),
            None => Some(param.val()),
        };
        if let Some(t) = value {
            let name = self.path.join(".");
            self.dims.insert(name.clone(), t.dims().to_vec());
            self.out.insert(name, values(t));
        }
    }
}

/// Every float tensor of `model` by its path: the parameters and the batch norms'
/// running statistics (for comparing two models).
pub fn named_tensors(model: &PolicyValueNet) -> BTreeMap<String, Vec<f32>> {
    named_tensors_with_dims(model).0
}

/// [`named_tensors`], and each one's dimensions (burn's layout).
#[allow(clippy::type_complexity)]
pub fn named_tensors_with_dims(
    model: &PolicyValueNet,
) -> (BTreeMap<String, Vec<f32>>, BTreeMap<String, Vec<usize>>) {
    let mut v = Named {
        path: Vec::new(),
        grads: None,
        out: BTreeMap::new(),
        dims: BTreeMap::new(),
    };
    model.valid().visit(&mut v);
    (v.out, v.dims)
}

/// The gradients in `grads` by the path of `model`'s parameter each belongs to.
pub fn named_gradients(
    model: &PolicyValueNet,
    grads: &GradientsParams,
) -> BTreeMap<String, Vec<f32>> {
    let mut v = Named {
        path: Vec::new(),
        grads: Some(grads),
        out: BTreeMap::new(),
        dims: BTreeMap::new(),
    };
    model.visit(&mut v);
    v.out
}
