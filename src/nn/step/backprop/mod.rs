//! The fast training step's arithmetic: the network's train-mode forward (batch norm on
//! the batch's own statistics), the loss, and the hand-derived backward, on plain
//! `f32` buffers. [`super::train_step`] takes the weights from burn's module and hands
//! the gradients to burn's optimizer.
//!
//! - Layout NHWC, each 3×3 convolution one matrix product on im2col rows, as in the
//!   fast forward ([`crate::nn::kernels::conv`]). The backward of a convolution is two products:
//!   `dW = colsᵀ · dz` and `dcols = dz · Wᵀ`, then the im2col adjoint (a scatter-add).
//!   The im2col rows are rebuilt in the backward from the saved layer inputs rather
//!   than kept (9× the memory of an activation).
//! - Data-parallel over positions: the batch is cut into one shard per thread. Every
//!   pass over a shard runs on its own thread; batch norm's statistics (forward) and its
//!   `Σ dy`, `Σ dy·x̂` (backward) are summed over the shards between passes, in `f64`.
//!   Weight gradients are summed over the shards at the end.
//! - Batch norm and ReLU, forward and backward, are `norm.rs`. A block with a global
//!   pooling bias ([`crate::nn::kernels::pool`]) adds it to its first convolution's normalised output
//!   before the ReLU; the backward hands the bias's share of the gradient back to the
//!   block's input.
//! - The loss is burn's: policy cross-entropy of the masked log-softmax against the
//!   targets, plus `value_weight` × the mean squared value error, plus each auxiliary
//!   head's weight × its loss as its kind has it: a cross-entropy a cell, a mean squared
//!   error, a policy's cross-entropy (`heads.rs`; the heads are [`crate::nn::heads`]).

mod heads;
mod norm;

use rayon::prelude::*;

use super::super::NetShape;
use super::super::heads::{Heads, Kind, PerHead};
use super::super::kernels::conv::{Add, Op, Taps, matmul, sized};
use super::super::kernels::pool::Pooled;
use norm::{apply_norm_back, batch_stats, moments, norm_back, normalise, relu_back};

pub use norm::{Norm, Stats};

/// A layer's parameters in the step's layout: `w` is `[cin, cout]` for a dense layer or
/// 1×1 convolution, `[9 × cin, cout]` for a 3×3 convolution; `b` is the bias (empty
/// where the layer has none).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Layer {
    /// The weights.
    pub w: Vec<f32>,
    /// The bias (empty where the layer has none).
    pub b: Vec<f32>,
}

/// Every trainable parameter of the network, or the gradient of each.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Weights {
    /// The stem, then each residual block's two convolutions: 3×3, no bias, batch norm.
    pub trunk: Vec<(Layer, Norm)>,
    /// The policy head's 1×1 convolution.
    pub policy: Layer,
    /// The value head's 1×1 convolution (no bias) and its batch norm.
    pub value_conv: (Layer, Norm),
    /// The value head's hidden linear layer.
    pub hidden: Layer,
    /// The value head's output layer.
    pub out: Layer,
    /// Each auxiliary head's layer: a 1×1 convolution or a dense layer by its kind
    /// (empty without the head).
    pub aux: PerHead<Layer>,
    /// Each residual block's global pooling bias, a dense layer `[2 × channels,
    /// channels]` (empty where the block has none).
    pub pools: Vec<Layer>,
}

impl Weights {
    /// Zeros shaped like `self`.
    fn zeros_like(&self) -> Weights {
        let z = |v: &Vec<f32>| vec![0.0; v.len()];
        let layer = |l: &Layer| Layer {
            w: z(&l.w),
            b: z(&l.b),
        };
        let norm = |n: &Norm| Norm {
            gamma: z(&n.gamma),
            beta: z(&n.beta),
        };
        Weights {
            trunk: self
                .trunk
                .iter()
                .map(|(l, n)| (layer(l), norm(n)))
                .collect(),
            policy: layer(&self.policy),
            value_conv: (layer(&self.value_conv.0), norm(&self.value_conv.1)),
            hidden: layer(&self.hidden),
            out: layer(&self.out),
            aux: self.aux.map(|_, l| layer(l)),
            pools: self.pools.iter().map(layer).collect(),
        }
    }

    /// Every buffer, in one fixed order.
    fn buffers_mut(&mut self) -> Vec<&mut Vec<f32>> {
        let mut all = Vec::new();
        for (l, n) in &mut self.trunk {
            all.extend([&mut l.w, &mut l.b, &mut n.gamma, &mut n.beta]);
        }
        let (vl, vn) = &mut self.value_conv;
        all.extend([&mut vl.w, &mut vl.b, &mut vn.gamma, &mut vn.beta]);
        let heads = [&mut self.policy, &mut self.hidden, &mut self.out];
        for l in (heads.into_iter())
            .chain(&mut self.aux.0)
            .chain(&mut self.pools)
        {
            all.extend([&mut l.w, &mut l.b]);
        }
        all
    }
}

/// The loss's weights (`train.value_weight` and each auxiliary head's
/// [`crate::nn::heads::Head::weight`]): each term's against the policy cross-entropy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LossWeights {
    /// The value head's mean squared error.
    pub value: f64,
    /// Each auxiliary head's loss.
    pub aux: PerHead<f64>,
}

/// One training batch, row-major (see `crate::train::Batch`).
pub struct BatchRef<'a> {
    /// Positions in the batch.
    pub size: usize,
    /// `[size, planes, height, width]`.
    pub input: &'a [f32],
    /// `[size, actions]` target probabilities.
    pub policy: &'a [f32],
    /// `[size, actions]` 0 on legal actions, a large negative number on illegal ones.
    pub mask: &'a [f32],
    /// `[size, players]` value targets.
    pub value: &'a [f32],
    /// Each auxiliary head's targets: `[size, cells, classes]`, `[size, players]` or
    /// `[size, actions]` by its kind (empty without the head).
    pub aux: PerHead<&'a [f32]>,
}

/// What one step computed.
pub struct StepResult {
    /// The gradient of every parameter.
    pub grads: Weights,
    /// The trunk's batch norms' statistics, then the value head's.
    pub stats: Vec<Stats>,
    /// The policy loss's mean over the batch.
    pub policy_loss: f64,
    /// The value loss's mean over the batch.
    pub value_loss: f64,
    /// Each auxiliary head's loss: its mean over the batch's cells, positions and
    /// players, or positions, by its kind (0 without the head).
    pub aux_loss: PerHead<f64>,
}

/// im2col rows per slice of a shard's positions.
const CHUNK_ROWS: usize = 1024;

/// One thread's positions and everything the step keeps for them.
#[derive(Default)]
struct Shard {
    /// Positions in this shard, and the first one's index in the batch.
    n: usize,
    first: usize,
    x0: Vec<f32>,
    /// Each trunk layer's convolution output (before batch norm), its output (after
    /// ReLU) and the gradient of the loss by that output.
    z: Vec<Vec<f32>>,
    y: Vec<Vec<f32>>,
    dy: Vec<Vec<f32>>,
    cols: Vec<f32>,
    pol: Vec<f32>,
    vz: Vec<f32>,
    vy: Vec<f32>,
    /// The gradient by the value head's map (`vy`, then `vz`).
    dv: Vec<f32>,
    pooled: Vec<f32>,
    hid: Vec<f32>,
    v: Vec<f32>,
    /// Each auxiliary head's output (before `tanh` for a dense one), then its gradient.
    aux: PerHead<Vec<f32>>,
    /// Each block's global pooling, kept for the backward (unused where it has none).
    pools: Vec<Pooled>,
    /// Per-channel sums handed between passes.
    sums: Vec<f64>,
    grads: Weights,
    /// The policy and value losses' sums.
    loss: [f64; 2],
    /// Each auxiliary head's loss's sum.
    aux_loss: PerHead<f64>,
}

/// The training step for one network shape; keeps its buffers between steps.
pub struct Backprop {
    taps: Taps,
    in_planes: usize,
    channels: usize,
    policy_planes: usize,
    value_channels: usize,
    hidden: usize,
    players: usize,
    /// Which auxiliary heads the network has.
    heads: Heads,
    /// Whether each residual block has a global pooling bias.
    pools: Vec<bool>,
    /// `gather[a]`: action `a`'s logit in a position's `[cells, planes]` policy output.
    gather: Vec<u32>,
    weights: LossWeights,
    pool: Option<rayon::ThreadPool>,
    shards: Vec<Shard>,
}

/// Whether trunk layer `l` is a residual block's second convolution, whose output adds
/// the block's input (layer `l - 2`'s output). Layer 0 is the stem.
fn closes_block(l: usize) -> bool {
    l >= 2 && l.is_multiple_of(2)
}

/// The sum over shards of each one's `sums`.
fn total(shards: &[Shard]) -> Vec<f64> {
    let mut out = vec![0.0; shards[0].sums.len()];
    for s in shards {
        for (o, v) in out.iter_mut().zip(&s.sums) {
            *o += v;
        }
    }
    out
}

impl Backprop {
    /// The step for `shape`'s network with the loss's `weights`, splitting each batch
    /// over `threads` threads. (A pool that cannot be built leaves the step on the
    /// caller's thread.)
    pub fn new(shape: &NetShape, weights: LossWeights, threads: usize) -> Backprop {
        let pool = match threads {
            0 | 1 => None,
            n => rayon::ThreadPoolBuilder::new().num_threads(n).build().ok(),
        };
        Backprop {
            taps: Taps::new(shape),
            in_planes: shape.in_planes,
            channels: shape.channels,
            policy_planes: shape.policy_planes,
            value_channels: shape.value_channels,
            hidden: shape.value_hidden,
            players: shape.num_players,
            heads: shape.heads,
            pools: (0..shape.blocks).map(|i| shape.pools(i)).collect(),
            gather: shape.policy_gather(),
            weights,
            pool,
            shards: Vec::new(),
        }
    }

    /// Threads a step is split over.
    pub fn threads(&self) -> usize {
        self.pool.as_ref().map_or(1, |p| p.current_num_threads())
    }

    /// Runs `f` on every shard, each on its own thread.
    fn each(&mut self, f: impl Fn(&Backprop, &mut Shard) + Sync) {
        let mut shards = std::mem::take(&mut self.shards);
        match &self.pool {
            Some(pool) if shards.len() > 1 => {
                let me = &*self;
                pool.install(|| shards.par_iter_mut().for_each(|s| f(me, s)));
            }
            _ => shards.iter_mut().for_each(|s| f(self, s)),
        }
        self.shards = shards;
    }

    /// Cuts a batch of `size` positions into one shard per thread.
    fn cut(&mut self, size: usize, layers: usize) {
        let parts = self.threads().min(size).max(1);
        self.shards.resize_with(parts, Shard::default);
        let per = size.div_ceil(parts);
        let mut first = 0;
        for s in &mut self.shards {
            s.first = first;
            s.n = per.min(size - first);
            first += s.n;
            s.z.resize_with(layers, Vec::new);
            s.y.resize_with(layers, Vec::new);
            s.dy.resize_with(layers, Vec::new);
            s.pools.resize_with(self.pools.len(), Pooled::default);
        }
    }

    /// The block whose first convolution trunk layer `l` is, where that block has a
    /// global pooling bias.
    fn pooled_block(&self, l: usize) -> Option<usize> {
        let block = (l.checked_sub(1)?) / 2;
        (l % 2 == 1 && self.pools[block]).then_some(block)
    }

    /// One forward and backward pass over `batch` from `w`: the gradients of the loss,
    /// the batch norms' batch statistics and the losses.
    pub fn step(&mut self, w: &Weights, batch: &BatchRef) -> StepResult {
        let (cells, c) = (self.taps.cells, self.channels);
        let layers = w.trunk.len();
        let rows = batch.size * cells;
        self.cut(batch.size, layers);
        // The input, NCHW → NHWC; the gradients zeroed.
        self.each(|me, s| {
            let planes = me.in_planes;
            let x0 = sized(&mut s.x0, s.n * cells * planes);
            let input = &batch.input[s.first * planes * cells..];
            for p in 0..s.n {
                for q in 0..planes {
                    for cell in 0..cells {
                        x0[(p * cells + cell) * planes + q] =
                            input[(p * planes + q) * cells + cell];
                    }
                }
            }
            s.grads = w.zeros_like();
            s.loss = [0.0; 2];
            s.aux_loss = PerHead::default();
        });
        // The trunk: each convolution, its statistics summed, then batch norm and ReLU.
        let mut stats = Vec::with_capacity(layers + 1);
        for (l, (layer, norm)) in w.trunk.iter().enumerate() {
            let cin = if l == 0 { self.in_planes } else { c };
            self.each(|me, s| {
                let Shard {
                    x0,
                    z,
                    y,
                    cols,
                    sums,
                    ..
                } = s;
                let x = if l == 0 { &x0[..] } else { &y[l - 1][..] };
                let zl = sized(&mut z[l], s.n * cells * c);
                for (x, z) in me.chunks(x, cin).zip(me.chunks_mut(zl, c)) {
                    let r = z.len() / c;
                    let cols = sized(cols, r * 9 * cin);
                    me.taps.gather(x, cin, cols);
                    matmul(z, Op::N(cols), Op::N(&layer.w), r, 9 * cin, c, false);
                }
                moments(zl, c, sums);
            });
            let (st, scale, shift) = batch_stats(&total(&self.shards), rows, norm);
            self.each(|me, s| {
                let Shard { z, y, pools, .. } = s;
                let r = s.n * cells;
                let (before, rest) = y.split_at_mut(l);
                let add = match me.pooled_block(l) {
                    _ if closes_block(l) => Add::Residual(&before[l - 2]),
                    Some(block) => {
                        let (pool, p) = (&w.pools[block], &mut pools[block]);
                        p.forward(&before[l - 1], cells, &pool.w, &pool.b);
                        Add::PerPosition(&p.bias)
                    }
                    None => Add::Nothing,
                };
                normalise(
                    &z[l],
                    (&scale, &shift),
                    add,
                    cells,
                    sized(&mut rest[0], r * c),
                );
            });
            stats.push(st);
        }
        // The heads' forward, to the value head's batch norm.
        let vc = self.value_channels;
        self.each(|_, s| {
            let r = s.n * cells;
            let trunk = &s.y[layers - 1];
            heads::head_forward(trunk, &w.policy, &mut s.pol);
            let vz = sized(&mut s.vz, r * vc);
            matmul(vz, Op::N(trunk), Op::N(&w.value_conv.0.w), r, c, vc, false);
            moments(vz, vc, &mut s.sums);
        });
        let (vst, vscale, vshift) = batch_stats(&total(&self.shards), rows, &w.value_conv.1);
        // The rest of the forward, the loss, and the backward to the value batch norm.
        self.each(|me, s| me.heads(w, batch, &vscale, &vshift, s));
        let mut grads = w.zeros_like();
        let coef = norm_back(
            &total(&self.shards),
            rows,
            &w.value_conv.1,
            &vst,
            &mut grads.value_conv.1,
        );
        self.each(|_, s| {
            let r = s.n * cells;
            apply_norm_back(&mut s.dv, &s.vz, &coef);
            let g = &mut s.grads.value_conv.0.w;
            matmul(g, Op::T(&s.y[layers - 1]), Op::N(&s.dv), c, r, vc, true);
            let wv = &w.value_conv.0.w;
            matmul(
                &mut s.dy[layers - 1],
                Op::N(&s.dv),
                Op::T(wv),
                r,
                vc,
                c,
                true,
            );
        });
        stats.push(vst);
        // The trunk's backward, last layer first.
        for l in (0..layers).rev() {
            self.each(|me, s| {
                let Shard {
                    dy,
                    y,
                    z,
                    sums,
                    pools,
                    grads,
                    ..
                } = s;
                relu_back(&mut dy[l], &y[l], &z[l], c, sums);
                if let Some(block) = me.pooled_block(l) {
                    // The bias's share of the block input's gradient.
                    let (before, rest) = dy.split_at_mut(l);
                    let g = &mut grads.pools[block];
                    let w = &w.pools[block].w;
                    pools[block].backward(
                        &rest[0],
                        cells,
                        w,
                        &mut g.w,
                        &mut g.b,
                        &mut before[l - 1],
                    );
                }
            });
            let (layer, norm) = &w.trunk[l];
            let coef = norm_back(
                &total(&self.shards),
                rows,
                norm,
                &stats[l],
                &mut grads.trunk[l].1,
            );
            let cin = if l == 0 { self.in_planes } else { c };
            self.each(|me, s| me.conv_back(l, layer, cin, &coef, s));
        }
        let (mut loss, mut aux_loss) = ([0.0; 2], PerHead::<f64>::default());
        let mut all = grads.buffers_mut();
        for s in &mut self.shards {
            loss.iter_mut().zip(s.loss).for_each(|(l, s)| *l += s);
            (aux_loss.0.iter_mut())
                .zip(s.aux_loss.0)
                .for_each(|(l, s)| *l += s);
            for (g, part) in all.iter_mut().zip(s.grads.buffers_mut()) {
                g.iter_mut().zip(part.iter()).for_each(|(g, p)| *g += p);
            }
        }
        drop(all);
        StepResult {
            grads,
            stats,
            policy_loss: loss[0] / batch.size as f64,
            value_loss: loss[1] / (batch.size * self.players) as f64,
            aux_loss: aux_loss.map(|a, &l| {
                l / match a.head().kind {
                    Kind::Cells => rows,
                    Kind::Dense => batch.size * self.players,
                    Kind::Policy => batch.size,
                } as f64
            }),
        }
    }

    /// Trunk layer `l`'s backward on one shard, from the gradient at its batch norm's
    /// output (in `dy[l]`): the residual's share to the block's input, the batch norm,
    /// the weights' gradient and the gradient at the layer's input.
    fn conv_back(&self, l: usize, layer: &Layer, cin: usize, coef: &[Vec<f32>; 3], s: &mut Shard) {
        let (cells, c) = (self.taps.cells, self.channels);
        let r = s.n * cells;
        let Shard {
            x0,
            z,
            y,
            dy,
            cols,
            grads,
            ..
        } = s;
        let (before, rest) = dy.split_at_mut(l);
        let dz = &mut rest[0];
        if closes_block(l) {
            sized(&mut before[l - 2], r * c).copy_from_slice(dz);
        }
        apply_norm_back(dz, &z[l], coef);
        let x = if l == 0 { &x0[..] } else { &y[l - 1][..] };
        let dw = &mut grads.trunk[l].0.w;
        let mut dx = (l > 0).then(|| &mut before[l - 1]);
        if let Some(dx) = dx.as_deref_mut()
            && closes_block(l)
        {
            sized(dx, r * c).fill(0.0);
        }
        let mut dxs = dx.map(|d| self.chunks_mut(d, c)).into_iter().flatten();
        for (x, dz) in self.chunks(x, cin).zip(self.chunks(dz, c)) {
            let rows = dz.len() / c;
            let cols = sized(cols, rows * 9 * cin);
            self.taps.gather(x, cin, cols);
            matmul(dw, Op::T(cols), Op::N(dz), 9 * cin, rows, c, true);
            if let Some(dx) = dxs.next() {
                matmul(cols, Op::N(dz), Op::T(&layer.w), rows, c, 9 * cin, false);
                self.taps.scatter(cols, cin, dx);
            }
        }
    }

    /// `x` (`[positions × cells, width]`) in slices of whole positions whose im2col rows
    /// stay in the caches.
    fn chunks<'a>(&self, x: &'a [f32], width: usize) -> std::slice::Chunks<'a, f32> {
        x.chunks(self.chunk_positions() * self.taps.cells * width)
    }

    fn chunks_mut<'a>(&self, x: &'a mut [f32], width: usize) -> std::slice::ChunksMut<'a, f32> {
        x.chunks_mut(self.chunk_positions() * self.taps.cells * width)
    }

    /// Positions per slice: about [`CHUNK_ROWS`] im2col rows.
    fn chunk_positions(&self) -> usize {
        (CHUNK_ROWS / self.taps.cells).max(1)
    }
}
