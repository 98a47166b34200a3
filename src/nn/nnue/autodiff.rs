//! The evaluator's float form as a burn module, trained by burn's autodiff and Adam:
//! the reference the hand-derived step ([`super::step`]) is held to, and the
//! distillation's `burn` trainer ([`Trainer::Burn`]).
//!
//! Both trainers take the same [`SparseBatch`]es; this one spreads each into the dense
//! multi-hot rows a linear layer multiplies (a row a view: in the perspective form each
//! position's rows go through the accumulator together and are laid side by side).

use anyhow::Context;
use burn::module::{Module, Param};
use burn::nn::{Linear, LinearConfig};
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::activation::tanh;
use burn::tensor::{Device, Tensor, TensorData};

use super::net::{Activation, EvalShape, FloatNet};
use super::step::{BETA_1, BETA_2, EPSILON, SparseBatch, SparseTrainer};
use crate::nn::values;

/// How the evaluator's float form is trained; its name is `distill.trainer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Trainer {
    /// The hand-derived step over sparse features ([`SparseTrainer`]).
    #[default]
    Sparse,
    /// burn's autodiff over dense multi-hot rows ([`BurnTrainer`]): the reference.
    Burn,
}

impl Trainer {
    /// Every trainer, in [`Trainer::NAMES`]' order.
    pub const ALL: [Trainer; 2] = [Trainer::Sparse, Trainer::Burn];
    /// Every trainer's name, as configs write it.
    pub const NAMES: &'static [&'static str] = &["sparse", "burn"];

    /// The trainer's name.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// A trainer of this kind for `shape`, its weights drawn from `seed`.
    pub fn start(self, shape: &EvalShape, seed: u64) -> Box<dyn EvalTraining> {
        match self {
            Trainer::Sparse => Box::new(SparseTrainer::new(shape.clone(), seed)),
            Trainer::Burn => Box::new(BurnTrainer::new(shape, seed)),
        }
    }

    /// A trainer of this kind that starts from `net`'s weights.
    pub fn start_from(self, net: &FloatNet) -> Box<dyn EvalTraining> {
        match self {
            Trainer::Sparse => Box::new(SparseTrainer::from_net(net.clone())),
            Trainer::Burn => Box::new(BurnTrainer::from_net(net)),
        }
    }
}

impl TryFrom<String> for Trainer {
    type Error = String;
    fn try_from(name: String) -> Result<Trainer, String> {
        crate::limits::named("trainer", &Self::ALL, Self::NAMES, &name)
    }
}

impl From<Trainer> for String {
    fn from(t: Trainer) -> String {
        t.name().into()
    }
}

/// What a distillation needs of a trainer.
pub trait EvalTraining {
    /// One step on `batch` at learning rate `lr`; the batch's mean squared error
    /// before it.
    fn step(&mut self, batch: &SparseBatch, lr: f64) -> anyhow::Result<f64>;
    /// The sum of squared errors (every seat) on `batch`.
    fn squared_error(&self, batch: &SparseBatch) -> anyhow::Result<f64>;
    /// The weights now.
    fn float_net(&self) -> FloatNet;
}

impl EvalTraining for SparseTrainer {
    fn step(&mut self, batch: &SparseBatch, lr: f64) -> anyhow::Result<f64> {
        SparseTrainer::step(self, batch, lr)
    }
    fn squared_error(&self, batch: &SparseBatch) -> anyhow::Result<f64> {
        SparseTrainer::squared_error(self, batch)
    }
    fn float_net(&self) -> FloatNet {
        self.net().clone()
    }
}

/// The evaluator's float form as a burn module.
#[derive(Module, Debug)]
pub struct EvalModel {
    ft: Linear,
    /// The dense layer (none with 0 dense units).
    l1: Option<Linear>,
    out: Linear,
}

impl EvalModel {
    /// A module of `shape` holding `net`'s weights (burn keeps a linear layer's weight
    /// as `[in, out]`, the bundle the dense layers as `[out, in]`).
    pub fn from_net(net: &FloatNet, device: &Device) -> EvalModel {
        let s = &net.shape;
        let linear = |i: usize, o: usize, w: &[f32], b: &[f32], transposed: bool| {
            let w = Tensor::<2>::from_data(
                TensorData::new(w.to_vec(), if transposed { [o, i] } else { [i, o] }),
                device,
            );
            let w = if transposed { w.transpose() } else { w };
            let mut l = LinearConfig::new(i, o).init(device);
            l.weight = Param::from_tensor(w);
            l.bias = Some(Param::from_tensor(Tensor::from_data(
                TensorData::new(b.to_vec(), [o]),
                device,
            )));
            l
        };
        EvalModel {
            ft: linear(s.inputs, s.hidden, &net.ft_w, &net.ft_b, false),
            l1: (s.dense > 0).then(|| linear(s.units(), s.dense, &net.l1_w, &net.l1_b, true)),
            out: linear(s.top(), s.outputs, &net.out_w, &net.out_b, true),
        }
    }

    /// The values (tanh, a seat relative to the mover) of multi-hot rows `x`, `views`
    /// consecutive rows a position, through `activation` after the accumulator.
    pub fn forward(&self, x: Tensor<2>, activation: Activation, views: usize) -> Tensor<2> {
        let h = self.ft.forward(x).clamp(0.0, 1.0);
        let h = match activation {
            Activation::Crelu => h,
            Activation::Screlu => h.clone() * h,
        };
        let [rows, hidden] = h.dims();
        let h = h.reshape([rows / views, views * hidden]);
        let h = match &self.l1 {
            Some(l1) => l1.forward(h).clamp(0.0, 1.0),
            None => h,
        };
        tanh(self.out.forward(h))
    }

    /// The weights in the bundle's layout.
    pub fn float_net(&self, shape: &EvalShape) -> FloatNet {
        let t = |w: Tensor<2>| values(w.transpose());
        let bias = |l: &Linear| values(l.bias.as_ref().expect("bias").val());
        FloatNet {
            shape: shape.clone(),
            ft_w: values(self.ft.weight.val()),
            ft_b: bias(&self.ft),
            l1_w: (self.l1.as_ref()).map_or(Vec::new(), |l| t(l.weight.val())),
            l1_b: (self.l1.as_ref()).map_or(Vec::new(), bias),
            out_w: t(self.out.weight.val()),
            out_b: bias(&self.out),
        }
    }
}

/// `batch` as dense multi-hot rows (a row a view) and targets.
fn tensors(batch: &SparseBatch, shape: &EvalShape, device: &Device) -> (Tensor<2>, Tensor<2>) {
    let (n, inputs, views) = (batch.len(), shape.inputs, batch.views());
    let mut x = vec![0.0f32; n * views * inputs];
    let mut y = Vec::with_capacity(n * shape.outputs);
    for (i, row) in x.chunks_mut(views * inputs).enumerate() {
        for (k, row) in row.chunks_mut(inputs).enumerate() {
            batch.view(i, k).iter().for_each(|&f| row[f as usize] = 1.0);
        }
        y.extend_from_slice(batch.target(i));
    }
    (
        Tensor::from_data(TensorData::new(x, [n * views, inputs]), device),
        Tensor::from_data(TensorData::new(y, [n, shape.outputs]), device),
    )
}

/// The squared error of each position and seat of `batch` under `model`, on `device`.
fn squared_errors(
    model: &EvalModel,
    batch: &SparseBatch,
    shape: &EvalShape,
    device: &Device,
) -> Tensor<2> {
    let (x, y) = tensors(batch, shape, device);
    (model.forward(x, shape.activation, shape.views()) - y).powi_scalar(2)
}

/// burn's autodiff and Adam on the evaluator.
pub struct BurnTrainer {
    shape: EvalShape,
    model: Option<EvalModel>,
    optim: ModuleOptimizer,
    device: Device,
}

impl BurnTrainer {
    /// A trainer whose first weights are [`SparseTrainer::new`]'s for the same seed.
    pub fn new(shape: &EvalShape, seed: u64) -> BurnTrainer {
        BurnTrainer::from_net(SparseTrainer::new(shape.clone(), seed).net())
    }

    /// A trainer that starts from `net`'s weights.
    pub fn from_net(net: &FloatNet) -> BurnTrainer {
        let device = crate::nn::device().autodiff();
        BurnTrainer {
            shape: net.shape.clone(),
            model: Some(EvalModel::from_net(net, &device)),
            optim: AdamConfig::new()
                .with_beta_1(BETA_1)
                .with_beta_2(BETA_2)
                .with_epsilon(EPSILON)
                .init(),
            device,
        }
    }

    /// The gradients of the mean squared error on `batch`, in the bundle's layout
    /// (the shape of a [`FloatNet`]), and that error.
    pub fn gradients(&self, batch: &SparseBatch) -> anyhow::Result<(FloatNet, f64)> {
        let model = self.model.as_ref().context("no model")?;
        let loss = squared_errors(model, batch, &self.shape, &self.device).mean();
        let error = loss.clone().into_scalar::<f32>() as f64;
        let grads = GradientsParams::from_grads(loss.backward(), model);
        // A layer's weight and bias gradients, the weight's in the bundle's layout
        // (transposed but for the accumulator's).
        let grad = |l: &Linear, transposed: bool| -> (Vec<f32>, Vec<f32>) {
            let w = grads.get::<2>(l.weight.id).expect("weight gradient");
            let b = grads.get::<1>(l.bias.as_ref().expect("bias").id);
            let w = if transposed { w.transpose() } else { w };
            (values(w), values(b.expect("bias gradient")))
        };
        let (ft_w, ft_b) = grad(&model.ft, false);
        let (l1_w, l1_b) = (model.l1.as_ref()).map_or_else(Default::default, |l| grad(l, true));
        let (out_w, out_b) = grad(&model.out, true);
        let parts = [ft_w, ft_b, l1_w, l1_b, out_w, out_b];
        Ok((FloatNet::from_parts(self.shape.clone(), parts), error))
    }
}

impl EvalTraining for BurnTrainer {
    fn step(&mut self, batch: &SparseBatch, lr: f64) -> anyhow::Result<f64> {
        let model = self.model.take().context("no model")?;
        let loss = squared_errors(&model, batch, &self.shape, &self.device).mean();
        let error = loss.clone().into_scalar::<f32>() as f64;
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        self.model = Some(self.optim.step(lr, model, grads));
        Ok(error)
    }

    fn squared_error(&self, batch: &SparseBatch) -> anyhow::Result<f64> {
        let model = self.model.as_ref().context("no model")?.valid();
        let sum = squared_errors(&model, batch, &self.shape, &crate::nn::device()).sum();
        Ok(sum.into_scalar::<f32>() as f64)
    }

    fn float_net(&self) -> FloatNet {
        let model = self.model.as_ref().expect("a model between steps");
        model.valid().float_net(&self.shape)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::nnue::FeatureSet;
    use crate::rng::Rng;

    /// A batch of `n` positions of random distinct features and targets in [-1, 1].
    fn batch(shape: &EvalShape, n: usize, seed: u64) -> SparseBatch {
        let mut rng = Rng::new(seed);
        let mut b = SparseBatch::for_shape(shape);
        for _ in 0..n {
            let views: Vec<Vec<u32>> = (0..shape.views())
                .map(|_| {
                    let mut features: Vec<u32> = (0..5 + rng.below(8))
                        .map(|_| rng.below(shape.inputs) as u32)
                        .collect();
                    features.sort_unstable();
                    features.dedup();
                    features
                })
                .collect();
            let target: Vec<f32> = (0..shape.outputs)
                .map(|_| (rng.unit() * 2.0 - 1.0) as f32)
                .collect();
            b.push(views, &target);
        }
        b
    }

    fn shape() -> EvalShape {
        shape_with(Activation::Crelu, 8, false)
    }

    fn shape_with(activation: Activation, dense: usize, perspective: bool) -> EvalShape {
        EvalShape {
            activation,
            game: "test".into(),
            inputs: 300,
            hidden: 24,
            dense,
            outputs: 3,
            features: FeatureSet::Windows,
            perspective,
        }
    }

    /// The largest difference of two nets' tensors, against the largest value.
    fn gap(a: &FloatNet, b: &FloatNet) -> (f32, f32) {
        let (mut diff, mut size) = (0.0f32, 0.0f32);
        for (x, y) in a.parts().into_iter().zip(b.parts()) {
            assert_eq!(x.len(), y.len());
            for (x, y) in x.iter().zip(y) {
                diff = diff.max((x - y).abs());
                size = size.max(x.abs());
            }
        }
        (diff, size)
    }

    #[test]
    fn the_sparse_step_s_gradients_are_burn_s() {
        for activation in Activation::ALL {
            for dense in [8, 0] {
                for perspective in [false, true] {
                    gradients_are_burn_s(shape_with(activation, dense, perspective));
                }
            }
        }
    }

    fn gradients_are_burn_s(shape: EvalShape) {
        let net = FloatNet::random(shape, 3);
        let b = batch(&net.shape, 37, 5);
        let mut sparse = SparseTrainer::from_net(net.clone());
        let loss = sparse.gradients(&b).unwrap();
        let (burn_grads, burn_loss) = BurnTrainer::from_net(&net).gradients(&b).unwrap();
        assert!(
            (loss - burn_loss).abs() < 1e-5,
            "{loss} against {burn_loss}"
        );
        let parts = std::array::from_fn(|k| sparse.gradient(k).to_vec());
        let mine = FloatNet::from_parts(net.shape.clone(), parts);
        let (diff, size) = gap(&mine, &burn_grads);
        assert!(size > 1e-3, "the gradients are not all zero");
        assert!(diff <= 1e-5 * size.max(1.0), "{diff} of {size}");
    }

    #[test]
    fn sparse_and_burn_training_take_the_same_steps() {
        for activation in Activation::ALL {
            for dense in [8, 0] {
                for perspective in [false, true] {
                    same_steps(shape_with(activation, dense, perspective));
                }
            }
        }
    }

    fn same_steps(shape: EvalShape) {
        let start = FloatNet::random(shape, 7);
        let mut sparse = SparseTrainer::from_net(start.clone());
        let mut burn = BurnTrainer::from_net(&start);
        for k in 0..4 {
            let b = batch(&start.shape, 64, 100 + k);
            let a = EvalTraining::step(&mut sparse, &b, 0.01).unwrap();
            let c = burn.step(&b, 0.01).unwrap();
            assert!((a - c).abs() < 1e-5, "step {k}: {a} against {c}");
        }
        let (diff, _) = gap(&sparse.float_net(), &burn.float_net());
        let (moved, _) = gap(&sparse.float_net(), &start);
        assert!(moved > 0.01, "the weights moved");
        assert!(diff < 1e-4, "{diff} after four steps");
        let b = batch(&start.shape, 50, 9);
        let (x, y) = (
            sparse.squared_error(&b).unwrap(),
            burn.squared_error(&b).unwrap(),
        );
        assert!((x - y).abs() < 1e-3 * x.max(1.0), "{x} against {y}");
    }

    #[test]
    fn a_batch_that_does_not_fit_is_refused() {
        let mut sparse = SparseTrainer::new(shape(), 1);
        let mut b = SparseBatch::new(3, 1);
        b.push([[299, 300]], &[0.0; 3]);
        let e = sparse.step(&b, 0.01).unwrap_err().to_string();
        assert!(e.contains("feature 300"), "{e}");
        let e = (sparse.gradients(&SparseBatch::new(2, 1))).unwrap_err();
        assert!(e.to_string().contains("2 targets"), "{e}");
        let e = (sparse.gradients(&SparseBatch::new(3, 3))).unwrap_err();
        assert!(e.to_string().contains("3 views"), "{e}");
    }
}
