//! The training step's heads: the policy head's loss, the value head from its batch
//! norm on, the ownership and margin heads, and the backward of each as far as the
//! trunk's output (the value and margin heads' as far as the value batch norm).

use super::{Backprop, BatchRef, Shard, Weights, add_column_sums, normalise, relu_back};
use crate::nn::conv::{Op, matmul, sized};

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
        let (cells, c, pp, vc) = (
            self.taps.cells,
            self.channels,
            self.policy_planes,
            self.value_channels,
        );
        let (n, r, hd, np) = (s.n, s.n * cells, self.hidden, self.players);
        let total = batch.size as f32;
        let last = s.y.len() - 1;
        // Value forward: batch norm, ReLU, the mean over cells, two dense layers.
        normalise(&s.vz, vscale, vshift, None, sized(&mut s.vy, r * vc));
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
        let na = self.gather.len();
        let mut logits = vec![0.0f32; na];
        for p in 0..n {
            let at = (s.first + p) * na;
            let (target, mask) = (&batch.policy[at..at + na], &batch.mask[at..at + na]);
            let out = &mut s.pol[p * cells * pp..(p + 1) * cells * pp];
            for ((l, &g), &m) in logits.iter_mut().zip(&self.gather).zip(mask) {
                *l = out[g as usize] + m;
            }
            s.loss.0 += cross_entropy(&mut logits, target, 1.0 / total);
            out.fill(0.0);
            for (&d, &g) in logits.iter().zip(&self.gather) {
                out[g as usize] = d;
            }
        }
        let trunk = &s.y[last];
        let g = &mut s.grads.policy;
        matmul(&mut g.w, Op::T(trunk), Op::N(&s.pol), c, r, pp, true);
        add_column_sums(&s.pol, &mut g.b);
        let dtrunk = sized(&mut s.dy[last], r * c);
        matmul(dtrunk, Op::N(&s.pol), Op::T(&w.policy.w), r, pp, c, false);
        if self.owner_classes > 0 {
            self.owner(w, batch, s);
        }
        // Value loss and its backward through tanh and the dense layers.
        let mut dzo = vec![0.0f32; n * np];
        let scale = 2.0 * self.value_weight as f32 / (total * np as f32);
        for ((d, &out), &t) in dzo
            .iter_mut()
            .zip(s.v.iter())
            .zip(&batch.value[s.first * np..])
        {
            s.loss.1 += ((out - t) as f64).powi(2);
            *d = scale * (out - t) * (1.0 - out * out);
        }
        let g = &mut s.grads;
        matmul(&mut g.out.w, Op::T(&s.hid), Op::N(&dzo), hd, n, np, true);
        add_column_sums(&dzo, &mut g.out.b);
        let mut dhid = vec![0.0f32; n * hd];
        matmul(&mut dhid, Op::N(&dzo), Op::T(&w.out.w), n, np, hd, false);
        if self.margin {
            self.margin(w, batch, s, &mut dhid);
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

    /// The ownership head on one shard: a 1×1 convolution of the trunk's output to
    /// `owner_classes` logits a cell, the cross-entropy of their softmax against the
    /// batch's one-hot owners (averaged over positions and cells, weighted), and its
    /// backward: the head's gradients, and its share of the trunk output's gradient added.
    fn owner(&self, w: &Weights, batch: &BatchRef, s: &mut Shard) {
        let (cells, c, k) = (self.taps.cells, self.channels, self.owner_classes);
        let r = s.n * cells;
        let trunk = &s.y[s.y.len() - 1];
        let out = sized(&mut s.own, r * k);
        matmul(out, Op::N(trunk), Op::N(&w.owner.w), r, c, k, false);
        let scale = (self.ownership_weight / (batch.size * cells) as f64) as f32;
        let targets = &batch.owner[s.first * cells * k..(s.first + s.n) * cells * k];
        for (row, target) in out.chunks_exact_mut(k).zip(targets.chunks_exact(k)) {
            row.iter_mut().zip(&w.owner.b).for_each(|(v, b)| *v += b);
            s.loss.2 += cross_entropy(row, target, scale);
        }
        let g = &mut s.grads.owner;
        matmul(&mut g.w, Op::T(trunk), Op::N(&s.own), c, r, k, true);
        add_column_sums(&s.own, &mut g.b);
        let dtrunk = &mut s.dy[s.y.len() - 1];
        matmul(dtrunk, Op::N(&s.own), Op::T(&w.owner.w), r, k, c, true);
    }

    /// The margin head on one shard: `tanh` of a dense layer on the value head's hidden
    /// layer, its squared error against the batch's final score vectors (averaged over
    /// positions and players, weighted), and its backward: the head's gradients, and its
    /// share of the hidden layer's gradient added to `dhid` (before the ReLU).
    fn margin(&self, w: &Weights, batch: &BatchRef, s: &mut Shard, dhid: &mut [f32]) {
        let (n, hd, np) = (s.n, self.hidden, self.players);
        let out = sized(&mut s.marg, n * np);
        matmul(out, Op::N(&s.hid), Op::N(&w.margin.w), n, hd, np, false);
        let scale = (2.0 * self.margin_weight / (batch.size * np) as f64) as f32;
        let targets = &batch.margin[s.first * np..(s.first + n) * np];
        for (k, (m, &t)) in out.iter_mut().zip(targets).enumerate() {
            let y = (*m + w.margin.b[k % np]).tanh();
            s.loss.3 += ((y - t) as f64).powi(2);
            *m = scale * (y - t) * (1.0 - y * y);
        }
        let g = &mut s.grads.margin;
        matmul(&mut g.w, Op::T(&s.hid), Op::N(&s.marg), hd, n, np, true);
        add_column_sums(&s.marg, &mut g.b);
        matmul(dhid, Op::N(&s.marg), Op::T(&w.margin.w), n, np, hd, true);
    }
}
