//! A network's weights as the fast forward and a bundle hold them: each convolution's
//! batch norm folded into its weight and bias, the dense layers as they are, by the
//! bundle's tensor names.

use std::collections::BTreeMap;

use burn::nn::conv::Conv2d;
use burn::nn::{BatchNorm, Linear};

use super::super::heads::Aux;
use super::super::network::{NetShape, PolicyValueNet, values};
use super::manifest::{self, names};
use super::safetensors::Tensor;

/// A convolution's weight and bias with the batch norm after it (if any) folded in.
fn fold_conv(conv: &Conv2d, bn: Option<&BatchNorm>) -> (Vec<f32>, Vec<f32>) {
    let mut w = values(conv.weight.val());
    let cout = conv.weight.val().dims()[0];
    let mut b = conv
        .bias
        .as_ref()
        .map_or(vec![0.0; cout], |b| values(b.val()));
    if let Some(bn) = bn {
        let (gamma, beta) = (values(bn.gamma.val()), values(bn.beta.val()));
        let (mean, var) = (
            values(bn.running_mean.value()),
            values(bn.running_var.value()),
        );
        let per = w.len() / cout;
        for o in 0..cout {
            let scale = gamma[o] as f64 / (var[o] as f64 + bn.epsilon).sqrt();
            for x in &mut w[o * per..(o + 1) * per] {
                *x = (*x as f64 * scale) as f32;
            }
            b[o] = (beta[o] as f64 + (b[o] as f64 - mean[o] as f64) * scale) as f32;
        }
    }
    (w, b)
}

/// The bundle's tensors for `model`, by name.
pub fn folded_tensors(shape: &NetShape, model: &PolicyValueNet) -> BTreeMap<String, Tensor> {
    let trunk = model.trunk().into_iter().map(|cb| (&cb.conv, Some(&cb.bn)));
    let heads = [
        (&model.policy, None),
        (&model.value_conv, Some(&model.value_bn)),
    ];
    let aux: Vec<_> = (Aux::ALL.into_iter())
        .filter_map(|a| model.conv(a).map(|conv| (conv, a.head().layer)))
        .collect();
    let names = (names::trunk(model.blocks.len()).into_iter())
        .chain([names::POLICY, names::VALUE_CONV].map(String::from))
        .chain(aux.iter().map(|&(_, n)| n.to_string()));
    let layers = (trunk.chain(heads)).chain(aux.iter().map(|&(conv, _)| (conv, None)));
    let mut folded = BTreeMap::new();
    for (name, (conv, bn)) in names.zip(layers) {
        let (w, b) = fold_conv(conv, bn);
        folded.insert(names::weight(&name), w);
        folded.insert(names::bias(&name), b);
    }
    let dense = [
        (names::VALUE_HIDDEN, &model.value_hidden),
        (names::VALUE_OUT, &model.value_out),
    ];
    let aux = (Aux::ALL.into_iter()).filter_map(|a| {
        model
            .dense(a)
            .map(|linear| (a.head().layer.to_string(), linear))
    });
    let dense = dense.into_iter().map(|(name, l)| (name.to_string(), l));
    for (name, linear) in dense.chain(aux).chain(pools(model)) {
        // burn stores [in, out]; the bundle gives [out, in].
        let w = linear.weight.val();
        let [cin, cout] = w.dims();
        let w = values(w);
        let t: Vec<f32> = (0..cout * cin)
            .map(|k| w[(k % cin) * cout + k / cin])
            .collect();
        folded.insert(names::weight(&name), t);
        let b = linear.bias.as_ref().expect("linear bias").val();
        folded.insert(names::bias(&name), values(b));
    }
    manifest::tensor_shapes(&manifest::layers(shape))
        .into_iter()
        .map(|(name, dims)| {
            let data = folded.remove(&name).expect("every layer tensor is folded");
            (name, Tensor::new(dims, data))
        })
        .collect()
}

/// Each block's global pooling bias, with its layer name.
fn pools(model: &PolicyValueNet) -> impl Iterator<Item = (String, &Linear)> {
    let blocks = model.blocks.iter().enumerate();
    blocks.filter_map(|(i, b)| b.pool.as_ref().map(|l| (names::pool(i), l)))
}
