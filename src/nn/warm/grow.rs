//! A trained network made larger without changing what it computes: more residual
//! blocks, more channels, or both (`run.init` with a model smaller than the config's
//! network), so that a run can go on from a network that has stopped gaining at its size.
//!
//! - **More channels.** Every layer keeps its weights; a new channel of the trunk gets
//!   fresh weights from every input, and every weight from a new channel into an old one
//!   (or into a head) is zero. The old channels compute what they did, in inference and
//!   under a batch's own statistics alike (batch norm is per channel), and the heads read
//!   only them. The zero weights have gradients at once (the new channels carry values),
//!   so training brings the new channels in.
//! - **More blocks**, appended after the old ones: a fresh block whose second batch norm
//!   has scale and shift zero adds nothing to its input, which the ReLU before it left
//!   non-negative, so the block passes it on unchanged (the zero-initialised residual
//!   of Goyal et al., 2017). The scale's gradient is not zero, so the block starts to
//!   learn at the first step.
//!
//! A network with global pooling grows in blocks only (its pooling layers read the
//! channels in two halves, means then maxima).

use anyhow::{bail, ensure};
use burn::module::{Param, RunningState};
use burn::nn::BatchNorm;
use burn::nn::conv::Conv2d;
use burn::tensor::{Tensor, TensorData};

use super::super::network::{ConvBn, Slot};
use super::super::{Aux, NetShape, PolicyValueNet, values};

/// Whether `shape`'s body (blocks × channels) is `source`'s grown, and nothing else apart:
/// the heads may differ ([`super::super::warm::start_from`] settles them).
pub fn grows(source: &NetShape, shape: &NetShape) -> bool {
    let same = NetShape {
        blocks: source.blocks,
        channels: source.channels,
        ..shape.clone()
    }
    .with_heads(source.heads);
    same == *source
        && shape.blocks >= source.blocks
        && shape.channels >= source.channels
        && (shape.blocks, shape.channels) != (source.blocks, source.channels)
}

/// `model` (of shape `source`) as a network of `shape`'s blocks and channels (and
/// `source`'s heads) that computes what `model` does. `shape` must grow `source`
/// ([`grows`]).
pub fn grow(
    source: &NetShape,
    shape: &NetShape,
    mut model: PolicyValueNet,
) -> anyhow::Result<PolicyValueNet> {
    ensure!(
        grows(source, shape),
        "not a larger network of the same kind"
    );
    if source.global_pool && shape.channels != source.channels {
        bail!("a network with global pooling grows in blocks, not in channels");
    }
    let target = NetShape {
        blocks: shape.blocks,
        channels: shape.channels,
        ..source.clone()
    };
    let mut grown = PolicyValueNet::new(&target, &super::super::device());
    embed_conv_bn(&mut grown.stem, &model.stem);
    for (new, old) in grown.blocks.iter_mut().zip(&model.blocks) {
        embed_conv_bn(&mut new.a, &old.a);
        embed_conv_bn(&mut new.b, &old.b);
        if let (Some(new), Some(old)) = (&mut new.pool, &old.pool) {
            *new = old.clone(); // same channels: checked above
        }
    }
    for block in &mut grown.blocks[model.blocks.len()..] {
        let bn = &mut block.b.bn;
        let c = bn.gamma.dims()[0];
        bn.gamma = param(vec![0.0; c], [c]);
        bn.beta = param(vec![0.0; c], [c]);
    }
    embed_conv(&mut grown.policy, &model.policy);
    embed_conv(&mut grown.value_conv, &model.value_conv);
    for aux in Aux::ALL {
        match grown.slot(aux) {
            Slot::Conv(Some(new)) => embed_conv(new, model.conv(aux).expect("the source's head")),
            // From the value head's hidden layer, which does not grow.
            Slot::Dense(_) => grown.swap_head(aux, &mut model),
            Slot::Conv(None) => {}
        }
    }
    grown.value_bn = model.value_bn;
    grown.value_hidden = model.value_hidden;
    grown.value_out = model.value_out;
    Ok(grown)
}

fn param<const D: usize>(data: Vec<f32>, dims: [usize; D]) -> Param<Tensor<D>> {
    Param::from_tensor(Tensor::from_data(
        TensorData::new(data, dims),
        &super::super::device(),
    ))
}

/// `new`'s convolution and batch norm with `old`'s in the channels they share.
fn embed_conv_bn(new: &mut ConvBn, old: &ConvBn) {
    embed_conv(&mut new.conv, &old.conv);
    embed_bn(&mut new.bn, &old.bn);
}

/// `new`'s weights (`[out, in, kh, kw]`) with `old`'s where both have the output and the
/// input, zero from a new input into an old output, its own (fresh) into a new output;
/// the bias `old`'s for the old outputs.
fn embed_conv(new: &mut Conv2d, old: &Conv2d) {
    let [out, inp, kh, kw] = new.weight.dims();
    let [old_out, old_inp, _, _] = old.weight.dims();
    let k = kh * kw;
    let (mut w, from) = (values(new.weight.val()), values(old.weight.val()));
    for o in 0..old_out {
        for i in 0..inp {
            let at = (o * inp + i) * k;
            match i < old_inp {
                true => w[at..at + k].copy_from_slice(&from[(o * old_inp + i) * k..][..k]),
                false => w[at..at + k].fill(0.0),
            }
        }
    }
    new.weight = param(w, [out, inp, kh, kw]);
    if let (Some(bias), Some(old)) = (&mut new.bias, &old.bias) {
        let mut b = values(bias.val());
        b[..old_out].copy_from_slice(&values(old.val()));
        *bias = param(b, [out]);
    }
}

/// `new`'s scale, shift and statistics with `old`'s for the channels `old` has.
fn embed_bn(new: &mut BatchNorm, old: &BatchNorm) {
    let n = new.gamma.dims()[0];
    let merged = |fresh: Tensor<1>, kept: Tensor<1>| {
        let mut v = values(fresh);
        let kept = values(kept);
        v[..kept.len()].copy_from_slice(&kept);
        Tensor::from_data(TensorData::new(v, [n]), &super::super::device())
    };
    new.gamma = Param::from_tensor(merged(new.gamma.val(), old.gamma.val()));
    new.beta = Param::from_tensor(merged(new.beta.val(), old.beta.val()));
    new.running_mean =
        RunningState::new(merged(new.running_mean.value(), old.running_mean.value()));
    new.running_var = RunningState::new(merged(new.running_var.value(), old.running_var.value()));
}
