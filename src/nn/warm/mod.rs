//! A run's first network taken from a trained model (`run.init`) instead of burn's
//! initialisers.
//!
//! [`start_from`] keeps every layer the two shapes share: the trunk, the policy and value
//! heads, and an auxiliary head both have; a head only the new shape has starts fresh.
//! The new shape may have more blocks or channels than the model's: the model is then
//! grown first without changing what it computes ([`grow`]). The shapes must agree
//! on everything else (the game, the value head's sizes, global pooling).
//!
//! A bundle's batch norms come folded into their convolutions: identity norms, exact at
//! inference. Training normalises by each batch's own statistics instead, so before the
//! first step [`rebase_batch_norms`] sets every norm's statistics to those of a batch of
//! the run's positions, and its scale and shift so that the inference function does not
//! change: the first train-mode forward computes what the model computed. (On a
//! checkpoint's network it changes nothing the model computes either.)

pub mod grow;

use anyhow::bail;
use burn::module::{Param, RunningState};
use burn::nn::BatchNorm;
use burn::tensor::Tensor;
use burn::tensor::activation::relu;

use super::{Aux, Heads, NetShape, PolicyValueNet};

/// `model` (of shape `source`) as a network of `shape`: its shared layers kept, a head
/// that `source` lacks fresh, a head `shape` lacks dropped.
pub fn start_from(
    shape: &NetShape,
    source: &NetShape,
    mut model: PolicyValueNet,
) -> anyhow::Result<PolicyValueNet> {
    let body = |s: &NetShape| s.clone().with_heads(Heads::NONE);
    if grow::grows(source, shape) {
        model = grow::grow(source, shape, model)?;
    } else if body(source) != body(shape) {
        let describe = |s: &NetShape| {
            format!(
                "{} {}x{}{} (value head {}x{})",
                s.game,
                s.blocks,
                s.channels,
                if s.global_pool {
                    " with global pooling"
                } else {
                    ""
                },
                s.value_channels,
                s.value_hidden
            )
        };
        bail!(
            "the model's network is {}, the config's {}: only the auxiliary heads may differ, \
             and the config's network may have more blocks or channels",
            describe(source),
            describe(shape)
        );
    }
    let mut fresh = PolicyValueNet::new(shape, &super::device());
    for aux in Aux::ALL {
        if !(shape.has(aux) && source.has(aux)) {
            model.swap_head(aux, &mut fresh);
        }
    }
    Ok(model)
}

/// Sets every batch norm's running statistics to those of its input on `x` (`[batch,
/// planes, height, width]`, positions of the game) and its scale and shift so that what
/// the network computes at inference does not change.
pub fn rebase_batch_norms(model: &mut PolicyValueNet, x: Tensor<4>) {
    let mut h = relu(rebased(&mut model.stem, x));
    for block in &mut model.blocks {
        let y = relu(rebased(&mut block.a, h.clone()));
        h = relu(rebased(&mut block.b, y) + h);
    }
    let z = model.value_conv.forward(h);
    rebase(&mut model.value_bn, &z);
}

/// The convolution and batch norm `cb` on `x`, the norm rebased to the convolution's
/// output first.
fn rebased(cb: &mut super::network::ConvBn, x: Tensor<4>) -> Tensor<4> {
    let z = cb.convolve(x);
    rebase(&mut cb.bn, &z);
    cb.bn.forward(z)
}

/// `bn` rebased to the per-channel mean `m` and (biased) variance `v` of `z`: with `s`
/// the scale `gamma / sqrt(var + eps)` it had, gamma becomes `s · sqrt(v + eps)` and beta
/// `beta + s · (m - mean)`, so `(z - m) · gamma' / sqrt(v + eps) + beta'` is what it
/// computed before.
fn rebase(bn: &mut BatchNorm, z: &Tensor<4>) {
    let c = z.dims()[1];
    let mean4 = z.clone().mean_dims(&[0, 2, 3]);
    let var = (z.clone() - mean4.clone())
        .square()
        .mean_dims(&[0, 2, 3])
        .reshape([c]);
    let mean = mean4.reshape([c]);
    let eps = bn.epsilon;
    let scale = bn.gamma.val() / (bn.running_var.value() + eps).sqrt();
    let gamma = scale.clone() * (var.clone() + eps).sqrt();
    let beta = bn.beta.val() + scale * (mean.clone() - bn.running_mean.value());
    bn.gamma = Param::from_tensor(gamma);
    bn.beta = Param::from_tensor(beta);
    bn.running_mean = RunningState::new(mean);
    bn.running_var = RunningState::new(var);
}
