//! The training step's heads: the policy head's loss, the value head from its batch
//! norm on, the auxiliary heads by their kind (a cross-entropy a cell, a policy's
//! cross-entropy, a dense layer's squared error), and the backward of each as far as
//! the trunk's output (the value and dense heads' as far as the value batch norm).

use super::norm::{normalise, relu_back};
use super::{Backprop, BatchRef, Layer, Shard, Weights};
use crate::nn::heads::{Aux, Kind};
use crate::nn::kernels::conv::{Add, Op, add_column_sums, matmul, sized};

/// The cross-entropy of `softmax(logits)` against `target` (weights, not necessarily
/// summing to 1), returned; `logits` become its gradient by them, times `scale`.
fn cross_entropy(logits: &mut [f32], target: &[f32], scale: f32) -> f64 {
    let max = logits.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
    let lse = max + logits.iter().map(|&l| (l - max).exp()).sum::<f32>().ln();
    let tsum: f32 = target.iter().sum();
    let mut loss = 0.0;
    for (l, &t) in logits.iter_mut().zip(target) {
        if t != 0.0 {
            loss -= (t * (*l - lse)) as f64;
        }
        *l = ((*l - lse).exp() * tsum - t) * scale;
    }
    loss
}

impl Backprop {
    /// The heads on one shard: the value head from its batch norm on, the loss, and the
    /// backward of the heads as far as the value batch norm (its `[Σ dy, Σ dy·z]` left in
    /// `sums`); the policy and ownership heads' gradient at the trunk's output set.
    pub(super) fn heads(
        &self,
        w: &Weights,
        batch: &BatchRef,
        vscale: &[f32],
        vshift: &[f32],
        s: &mut Shard,
    ) {
        let (cells, c, vc) = (self.taps.cells, self.channels, self.value_channels);
        let (n, r, hd, np) = (s.n, s.n * cells, self.hidden, self.players);
        let total = batch.size as f32;
        let last = s.y.len() - 1;
        // Value forward: batch norm, ReLU, the mean over cells, two dense layers.
        normalise(
            &s.vz,
            (vscale, vshift),
            Add::Nothing,
            cells,
            sized(&mut s.vy, r * vc),
        );
        let pooled = sized(&mut s.pooled, n * vc);
        pooled.fill(0.0);
        for (p, out) in pooled.chunks_exact_mut(vc).enumerate() {
            add_column_sums(&s.vy[p * cells * vc..(p + 1) * cells * vc], out);
            out.iter_mut().for_each(|v| *v /= cells as f32);
        }
        let hid = sized(&mut s.hid, n * hd);
        matmul(hid, Op::N(pooled), Op::N(&w.hidden.w), n, vc, hd, false);
        for row in hid.chunks_exact_mut(hd) {
            row.iter_mut()
                .zip(&w.hidden.b)
                .for_each(|(v, b)| *v = (*v + b).max(0.0));
        }
        let v = sized(&mut s.v, n * np);
        matmul(v, Op::N(hid), Op::N(&w.out.w), n, hd, np, false);
        for row in v.chunks_exact_mut(np) {
            row.iter_mut()
                .zip(&w.out.b)
                .for_each(|(v, b)| *v = (*v + b).tanh());
        }
        // Policy loss; the policy output's buffer becomes its gradient.
        s.loss[0] += self.policy_loss(&mut s.pol, batch.policy, batch.mask, s.first, 1.0 / total);
        let dtrunk = sized(&mut s.dy[last], r * c);
        head_back(
            &s.y[last],
            &w.policy,
            &s.pol,
            &mut s.grads.policy,
            dtrunk,
            false,
        );
        for head in self.heads.present() {
            match head.kind {
                Kind::Cells => self.cells_head(head.aux, w, batch, s),
                Kind::Policy => self.policy_head(head.aux, w, batch, s),
                Kind::Dense => {} // from the hidden layer, below
            }
        }
        // Value loss and its backward through tanh and the dense layers.
        let mut dzo = vec![0.0f32; n * np];
        let scale = 2.0 * self.weights.value as f32 / (total * np as f32);
        for ((d, &out), &t) in dzo
            .iter_mut()
            .zip(s.v.iter())
            .zip(&batch.value[s.first * np..])
        {
            s.loss[1] += ((out - t) as f64).powi(2);
            *d = scale * (out - t) * (1.0 - out * out);
        }
        let g = &mut s.grads;
        matmul(&mut g.out.w, Op::T(&s.hid), Op::N(&dzo), hd, n, np, true);
        add_column_sums(&dzo, &mut g.out.b);
        let mut dhid = vec![0.0f32; n * hd];
        matmul(&mut dhid, Op::N(&dzo), Op::T(&w.out.w), n, np, hd, false);
        let span = s.first * np..(s.first + n) * np;
        let scale = |weight: f64| (2.0 * weight / (batch.size * np) as f64) as f32;
        for head in self.heads.present().filter(|h| h.kind == Kind::Dense) {
            let a = head.aux;
            let (targets, scale) = (&batch.aux[a][span.clone()], scale(self.weights.aux[a]));
            let (out, g) = (&mut s.aux[a], &mut s.grads.aux[a]);
            s.aux_loss[a] += dense_head(&s.hid, &w.aux[a], targets, scale, out, g, &mut dhid);
        }
        let g = &mut s.grads;
        for (d, &h) in dhid.iter_mut().zip(s.hid.iter()) {
            if h <= 0.0 {
                *d = 0.0;
            }
        }
        matmul(
            &mut g.hidden.w,
            Op::T(&s.pooled),
            Op::N(&dhid),
            vc,
            n,
            hd,
            true,
        );
        add_column_sums(&dhid, &mut g.hidden.b);
        let mut dpooled = vec![0.0f32; n * vc];
        matmul(
            &mut dpooled,
            Op::N(&dhid),
            Op::T(&w.hidden.w),
            n,
            hd,
            vc,
            false,
        );
        let dv = sized(&mut s.dv, r * vc);
        for (p, rows) in dv.chunks_exact_mut(cells * vc).enumerate() {
            for row in rows.chunks_exact_mut(vc) {
                for (d, &g) in row.iter_mut().zip(&dpooled[p * vc..(p + 1) * vc]) {
                    *d = g / cells as f32;
                }
            }
        }
        relu_back(dv, &s.vy, &s.vz, vc, &mut s.sums);
    }

    /// A policy head's cross-entropy on one shard, returned: `out` (`[n, cells,
    /// policy_planes]`, the head's 1×1 convolution) gathered into action order and masked,
    /// against `targets` (`[batch, actions]`, from the shard's first position `first`);
    /// `out` becomes the loss's gradient by it, times `scale`.
    fn policy_loss(
        &self,
        out: &mut [f32],
        targets: &[f32],
        mask: &[f32],
        first: usize,
        scale: f32,
    ) -> f64 {
        let (na, per) = (self.gather.len(), self.taps.cells * self.policy_planes);
        let mut logits = vec![0.0f32; na];
        let mut loss = 0.0;
        for (p, out) in out.chunks_exact_mut(per).enumerate() {
            let at = (first + p) * na;
            let (target, mask) = (&targets[at..at + na], &mask[at..at + na]);
            for ((l, &g), &m) in logits.iter_mut().zip(&self.gather).zip(mask) {
                *l = out[g as usize] + m;
            }
            loss += cross_entropy(&mut logits, target, scale);
            out.fill(0.0);
            for (&d, &g) in logits.iter().zip(&self.gather) {
                out[g as usize] = d;
            }
        }
        loss
    }

    /// A [`Kind::Policy`] head on one shard: a 1×1 convolution of the trunk's output to
    /// policy logits, the cross-entropy of their masked softmax against the head's
    /// targets (weighted), and its backward: the head's gradients, and its share of the
    /// trunk output's gradient added.
    fn policy_head(&self, a: Aux, w: &Weights, batch: &BatchRef, s: &mut Shard) {
        let last = s.y.len() - 1;
        let out = head_forward(&s.y[last], &w.aux[a], &mut s.aux[a]);
        let scale = (self.weights.aux[a] / batch.size as f64) as f32;
        s.aux_loss[a] += self.policy_loss(out, batch.aux[a], batch.mask, s.first, scale);
        let g = &mut s.grads.aux[a];
        head_back(&s.y[last], &w.aux[a], &s.aux[a], g, &mut s.dy[last], true);
    }

    /// A [`Kind::Cells`] head on one shard: a 1×1 convolution of the trunk's output to
    /// its classes' logits a cell (as many as the layer's biases), the cross-entropy of
    /// their softmax against the batch's one-hot targets (averaged over positions and
    /// cells, weighted), and its backward: the head's gradients, and its share of the
    /// trunk output's gradient added.
    fn cells_head(&self, a: Aux, w: &Weights, batch: &BatchRef, s: &mut Shard) {
        let (cells, k) = (self.taps.cells, w.aux[a].b.len());
        let last = s.y.len() - 1;
        let out = head_forward(&s.y[last], &w.aux[a], &mut s.aux[a]);
        let scale = (self.weights.aux[a] / (batch.size * cells) as f64) as f32;
        let targets = &batch.aux[a][s.first * cells * k..(s.first + s.n) * cells * k];
        for (row, target) in out.chunks_exact_mut(k).zip(targets.chunks_exact(k)) {
            s.aux_loss[a] += cross_entropy(row, target, scale);
        }
        let g = &mut s.grads.aux[a];
        head_back(&s.y[last], &w.aux[a], &s.aux[a], g, &mut s.dy[last], true);
    }
}

/// A 1×1 convolution head (`layer`, with its bias) on the trunk's output `trunk`
/// (`[rows, channels]`): its output `[rows, outputs]`, in the buffer `out`.
pub(super) fn head_forward<'a>(
    trunk: &[f32],
    layer: &Layer,
    out: &'a mut Vec<f32>,
) -> &'a mut [f32] {
    let k = layer.b.len();
    let c = layer.w.len() / k;
    let r = trunk.len() / c;
    let out = sized(out, r * k);
    matmul(out, Op::N(trunk), Op::N(&layer.w), r, c, k, false);
    for row in out.chunks_exact_mut(k) {
        row.iter_mut().zip(&layer.b).for_each(|(v, b)| *v += b);
    }
    out
}

/// The backward of [`head_forward`] from the gradient at its output `dout`: the layer's
/// gradient added to `g`, and the gradient at the trunk's output written to `dtrunk`
/// (added to it where `add`).
fn head_back(
    trunk: &[f32],
    layer: &Layer,
    dout: &[f32],
    g: &mut Layer,
    dtrunk: &mut [f32],
    add: bool,
) {
    let k = layer.b.len();
    let c = layer.w.len() / k;
    let r = trunk.len() / c;
    matmul(&mut g.w, Op::T(trunk), Op::N(dout), c, r, k, true);
    add_column_sums(dout, &mut g.b);
    matmul(dtrunk, Op::N(dout), Op::T(&layer.w), r, k, c, add);
}

/// A [`Kind::Dense`] auxiliary head on one shard's hidden layer `hid`
/// (`[n, hidden]`): `tanh` of the dense layer `w`, its squared error against `targets`
/// (`[n, players]`) summed and returned, and its backward with the loss scaled by
/// `scale`: the layer's gradient added to `g`, its share of the hidden layer's gradient
/// added to `dhid` (before the ReLU). `out` is the head's buffer.
fn dense_head(
    hid: &[f32],
    w: &Layer,
    targets: &[f32],
    scale: f32,
    out: &mut Vec<f32>,
    g: &mut Layer,
    dhid: &mut [f32],
) -> f64 {
    let np = w.b.len();
    let (n, hd) = (targets.len() / np, w.w.len() / np);
    let out = sized(out, n * np);
    matmul(out, Op::N(hid), Op::N(&w.w), n, hd, np, false);
    let mut loss = 0.0;
    for (k, (m, &t)) in out.iter_mut().zip(targets).enumerate() {
        let y = (*m + w.b[k % np]).tanh();
        loss += ((y - t) as f64).powi(2);
        *m = scale * (y - t) * (1.0 - y * y);
    }
    matmul(&mut g.w, Op::T(hid), Op::N(out), hd, n, np, true);
    add_column_sums(out, &mut g.b);
    matmul(dhid, Op::N(out), Op::T(&w.w), n, np, hd, true);
    loss
}
