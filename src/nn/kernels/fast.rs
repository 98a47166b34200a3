//! The fast CPU forward: the same network as [`crate::nn::PolicyValueNet`] in evaluation mode,
//! computed by hand from its folded weights (batch norm folded into the convolutions,
//! as in a bundle), for inference at full batches.
//!
//! - Layout NHWC; each float 3×3 convolution read in place with AVX-512
//!   ([`super::direct`]), elsewhere (and bf16's) one matrix product on im2col rows
//!   ([`super::conv`]).
//! - Bias, residual (or a block's global pooling bias, [`super::pool`]) and ReLU are one
//!   pass over the product; the policy and value 1×1
//!   convolutions are matrix products on the trunk's output, with no copy.
//! - Scratch buffers live in a thread-local arena and are reused across calls.
//! - [`FastNet::on`] puts the residual blocks' convolutions in int8 or bf16, as a
//!   [`super::forward::Forward`] says ([`super::quant`], [`super::bf16`]); a new network
//!   computes every product in floats.
//!
//! Tests hold the float forward within 1e-4 of burn's for every game's network
//! (`tests/suite/fast_forward.rs`), and the others to the float one's moves and values
//! (`tests/suite/quantized_forward.rs`).

use std::cell::RefCell;
use std::collections::BTreeMap;

use super::super::NetShape;
use super::super::formats::manifest::names;
use super::super::formats::safetensors::Tensor;
use super::amx::AConv;
use super::bf16::BConv;
use super::conv::{Add, Op, Taps, add_column_sums, matmul, sized, to_gemm_layout};
use super::direct::DConv;
use super::forward::{Forward, Product};
use super::pool;
use super::quant::QConv;

/// A 3×3 convolution: weights `[9 × cin, cout]` (tap-major, then input channel), bias.
#[derive(Debug, Clone)]
struct Conv3 {
    cin: usize,
    cout: usize,
    w: Vec<f32>,
    b: Vec<f32>,
    /// The weights for the float product read in place, where the CPU runs it.
    direct: Option<DConv>,
    /// The weights in int8 or bf16, when this convolution runs in one of them.
    low: Option<Low>,
}

/// A convolution's weights for a product in fewer bits than a float's.
#[derive(Debug, Clone)]
enum Low {
    Int8(QConv),
    Bf16(BConv),
    /// Bf16 on AMX tiles, where the CPU has them.
    Amx(AConv),
}

/// A dense layer on row vectors: weights `[cin, cout]`, bias.
#[derive(Debug, Clone)]
struct Dense {
    cin: usize,
    cout: usize,
    w: Vec<f32>,
    b: Vec<f32>,
}

/// The network ready for the fast forward.
#[derive(Debug, Clone)]
pub struct FastNet {
    cells: usize,
    in_planes: usize,
    channels: usize,
    taps: Taps,
    /// Stem, then each block's two convolutions.
    convs: Vec<Conv3>,
    /// Each block's global pooling bias (`[2 × channels, channels]`), where it has one.
    pools: Vec<Option<Dense>>,
    policy: Dense,
    value_conv: Dense,
    hidden: Dense,
    out: Dense,
    /// `gather[a]`: the index of action `a`'s logit in a position's `[cells, planes]` output.
    gather: Vec<u32>,
    /// The products the convolutions run.
    forward: Forward,
}

/// Positions per slice of a large batch (measured on the 4×32 Infexion net: 8 and 16 run
/// alike, 32 or whole batches of 64-256 about 8% slower).
const CHUNK: usize = 8;

#[derive(Default)]
struct Scratch {
    cols: Vec<f32>,
    a: Vec<f32>,
    b: Vec<f32>,
    c: Vec<f32>,
    head: Vec<f32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

impl FastNet {
    /// Builds the fast network from the folded tensors of `shape`'s network (named and
    /// laid out as in a bundle: see [`super::super::formats::fold::folded_tensors`]).
    pub fn new(shape: &NetShape, tensors: &BTreeMap<String, Tensor>) -> FastNet {
        let cells = shape.height * shape.width;
        let get = |name: &str| &tensors[name];
        let conv3 = |name: &str| {
            let t = get(&names::weight(name)); // [cout, cin, 3, 3]
            let (cout, cin) = (t.shape[0], t.shape[1]);
            let w = to_gemm_layout(&t.data, cout, cin, 9);
            Conv3 {
                cin,
                cout,
                direct: super::direct::available().then(|| DConv::new(&w, 9 * cin, cout)),
                w,
                b: get(&names::bias(name)).data.clone(),
                low: None,
            }
        };
        // 1×1 convolutions ([cout, cin, 1, 1]) and linear layers ([out, in]) alike.
        let dense = |name: &str| {
            let t = get(&names::weight(name));
            let (cout, cin) = (t.shape[0], t.shape[1]);
            Dense {
                cin,
                cout,
                w: to_gemm_layout(&t.data, cout, cin, 1),
                b: get(&names::bias(name)).data.clone(),
            }
        };
        let convs = names::trunk(shape.blocks)
            .iter()
            .map(|n| conv3(n))
            .collect();
        let pools = (0..shape.blocks)
            .map(|i| shape.pools(i).then(|| dense(&names::pool(i))))
            .collect();
        FastNet {
            cells,
            in_planes: shape.in_planes,
            channels: shape.channels,
            taps: Taps::new(shape),
            convs,
            pools,
            policy: dense(names::POLICY),
            value_conv: dense(names::VALUE_CONV),
            hidden: dense(names::VALUE_HIDDEN),
            out: dense(names::VALUE_OUT),
            gather: shape.policy_gather(),
            forward: Forward::Fp32,
        }
    }

    /// This network on `forward` ([`super::forward`]): each 3×3 convolution's product
    /// as [`Forward::plan`] says. The CPU must run it ([`Forward::available`]).
    pub fn on(&self, forward: Forward) -> FastNet {
        let mut f = self.clone();
        let plan = forward.plan(f.convs.len());
        for (c, product) in f.convs.iter_mut().zip(plan) {
            let (k, cout) = (9 * c.cin, c.cout);
            c.low = match product {
                Product::Fp32 => None,
                Product::Int8 => Some(Low::Int8(QConv::new(&c.w, k, cout))),
                Product::Bf16 if super::amx::available() => {
                    Some(Low::Amx(AConv::new(&c.w, k, cout)))
                }
                Product::Bf16 => Some(Low::Bf16(BConv::new(&c.w, k, cout))),
            };
        }
        f.forward = forward;
        f
    }

    /// The forward this network runs.
    pub fn precision(&self) -> Forward {
        self.forward
    }

    /// One 3×3 convolution of `x` (`[n × cells, cin]`) into `y` (`[n × cells, cout]`),
    /// then bias, what `add` adds and ReLU.
    fn conv(
        &self,
        conv: &Conv3,
        n: usize,
        x: &[f32],
        cols: &mut Vec<f32>,
        y: &mut [f32],
        add: Add,
    ) {
        let (cells, cin, cout) = (self.cells, conv.cin, conv.cout);
        match (&conv.low, &conv.direct) {
            // Int8 and the float product on AVX-512 read the cells themselves.
            (Some(Low::Int8(q)), _) => q.product_cells(x, &self.taps, n * cells, y),
            (Some(Low::Amx(a)), _) => a.product_cells(x, &self.taps, n * cells, y),
            (None, Some(d)) => d.product_cells(x, &self.taps, n * cells, y),
            (low, _) => {
                let cols = sized(cols, n * cells * 9 * cin);
                self.taps.gather(&x[..n * cells * cin], cin, cols);
                match low {
                    Some(Low::Bf16(b)) => b.product(cols, n * cells, y),
                    _ => matmul(
                        y,
                        Op::N(cols),
                        Op::N(&conv.w),
                        n * cells,
                        9 * cin,
                        cout,
                        false,
                    ),
                }
            }
        }
        let y = &mut y[..n * cells * cout];
        for (i, row) in y.chunks_exact_mut(cout).enumerate() {
            match add.row(i, cells, cout) {
                Some(extra) => {
                    for ((v, &b), &e) in row.iter_mut().zip(&conv.b).zip(extra) {
                        *v = (*v + b + e).max(0.0);
                    }
                }
                None => {
                    for (v, &b) in row.iter_mut().zip(&conv.b) {
                        *v = (*v + b).max(0.0);
                    }
                }
            }
        }
    }

    /// The global pooling bias of `n` positions' maps `x` (`[n × cells, channels]`):
    /// `[n, channels]`.
    fn pool_bias(&self, layer: &Dense, n: usize, x: &[f32]) -> Vec<f32> {
        let mut pooled = vec![0.0f32; n * layer.cin];
        pool::global_pool(x, self.cells, self.channels, &mut pooled, None);
        let mut bias = vec![0.0f32; n * layer.cout];
        pool::bias(&pooled, &layer.w, &layer.b, n, &mut bias);
        bias
    }

    /// A dense layer on `n` rows of `x`, into `y`, with bias and then `act`.
    fn dense(layer: &Dense, n: usize, x: &[f32], y: &mut [f32], act: impl Fn(f32) -> f32) {
        matmul(
            y,
            Op::N(x),
            Op::N(&layer.w),
            n,
            layer.cin,
            layer.cout,
            false,
        );
        for row in y[..n * layer.cout].chunks_exact_mut(layer.cout) {
            for (v, &b) in row.iter_mut().zip(&layer.b) {
                *v = act(*v + b);
            }
        }
    }

    /// Runs `batch` positions encoded as the game encodes them (`[planes, height,
    /// width]` each); returns the logits `[batch, actions]` in action order and the values
    /// `[batch, players]`.
    pub fn forward(&self, input: &[f32], batch: usize) -> (Vec<f32>, Vec<f32>) {
        // Large batches go in slices that keep the im2col rows in the caches.
        let len = input.len() / batch.max(1);
        let (mut logits, mut values) = (Vec::new(), Vec::new());
        SCRATCH.with(|s| {
            let s = &mut s.borrow_mut();
            for chunk in input.chunks(CHUNK * len) {
                let (l, v) = self.forward_with(s, chunk, chunk.len() / len);
                logits.extend(l);
                values.extend(v);
            }
        });
        (logits, values)
    }

    fn forward_with(&self, s: &mut Scratch, input: &[f32], batch: usize) -> (Vec<f32>, Vec<f32>) {
        let (cells, planes, c) = (self.cells, self.in_planes, self.channels);
        let rows = batch * cells;
        let Scratch {
            cols,
            a,
            b,
            c: d,
            head,
        } = s;
        // NCHW → NHWC, into the im2col buffer's place for now.
        let mut x = std::mem::take(head);
        let xs = sized(&mut x, rows * planes);
        for p in 0..batch {
            for q in 0..planes {
                for cell in 0..cells {
                    xs[(p * cells + cell) * planes + q] = input[(p * planes + q) * cells + cell];
                }
            }
        }
        let (cur, mid, next) = (sized(a, rows * c), sized(b, rows * c), sized(d, rows * c));
        let (mut cur, mut next) = (cur, next);
        self.conv(&self.convs[0], batch, xs, cols, cur, Add::Nothing);
        *head = x;
        // Each block: cur → mid (+ its pooling bias) → next (+ cur), then next is the new cur.
        for (pair, pool) in self.convs[1..].chunks_exact(2).zip(&self.pools) {
            let bias = pool.as_ref().map(|p| self.pool_bias(p, batch, cur));
            let add = bias.as_deref().map_or(Add::Nothing, Add::PerPosition);
            self.conv(&pair[0], batch, cur, cols, mid, add);
            self.conv(&pair[1], batch, mid, cols, next, Add::Residual(cur));
            std::mem::swap(&mut cur, &mut next);
        }
        let trunk = &*cur;
        // Policy: a 1×1 convolution, then each action's logit gathered.
        let pp = self.policy.cout;
        let pol = sized(head, rows * pp);
        Self::dense(&self.policy, rows, trunk, pol, |v| v);
        let actions = self.gather.len();
        let mut logits = Vec::with_capacity(batch * actions);
        for p in 0..batch {
            let out = &pol[p * cells * pp..(p + 1) * cells * pp];
            logits.extend(self.gather.iter().map(|&g| out[g as usize]));
        }
        // Value: a 1×1 convolution with ReLU, the mean over cells, two dense layers.
        let vc = self.value_conv.cout;
        let vmap = sized(head, rows * vc);
        Self::dense(&self.value_conv, rows, trunk, vmap, |v| v.max(0.0));
        let mut pooled = vec![0.0f32; batch * vc];
        for (map, out) in vmap
            .chunks_exact(cells * vc)
            .zip(pooled.chunks_exact_mut(vc))
        {
            add_column_sums(map, out);
        }
        pooled.iter_mut().for_each(|v| *v /= cells as f32);
        let mut hidden = vec![0.0f32; batch * self.hidden.cout];
        Self::dense(&self.hidden, batch, &pooled, &mut hidden, |v| v.max(0.0));
        let mut values = vec![0.0f32; batch * self.out.cout];
        Self::dense(&self.out, batch, &hidden, &mut values, f32::tanh);
        (logits, values)
    }
}
