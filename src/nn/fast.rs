//! The fast CPU forward: the same network as [`super::PolicyValueNet`] in evaluation mode,
//! computed by hand from its folded weights (batch norm folded into the convolutions,
//! as in a bundle), for inference at full batches.
//!
//! - Layout NHWC: a batch is `[positions × cells, channels]`, row-major, so a 3×3
//!   convolution is one matrix product: the im2col rows `[positions × cells, 9 × cin]`
//!   (a precomputed gather of each cell's nine neighbours: wrapping on a torus, zero
//!   past the edge otherwise) times the weights `[9 × cin, cout]`, by the `gemm` crate's
//!   AVX2 / AVX-512 kernels (chosen at run time).
//! - Bias, residual and ReLU are one pass over the product; the policy and value 1×1
//!   convolutions are matrix products on the trunk's output, with no copy.
//! - Scratch buffers live in a thread-local arena and are reused across calls.
//!
//! A test (`tests/fast_forward.rs`) holds it within 1e-4 of burn's forward for every
//! game's network.

use std::cell::RefCell;
use std::collections::BTreeMap;

use super::NetShape;
use super::safetensors::Tensor;

/// A 3×3 convolution: weights `[9 × cin, cout]` (tap-major, then input channel), bias.
#[derive(Debug, Clone)]
struct Conv3 {
    cin: usize,
    cout: usize,
    w: Vec<f32>,
    b: Vec<f32>,
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
    /// `taps[cell × 9 + t]`: the source cell of tap `t` (row-major 3×3), or `NONE`.
    taps: Vec<u32>,
    /// Stem, then each block's two convolutions.
    convs: Vec<Conv3>,
    policy: Dense,
    value_conv: Dense,
    hidden: Dense,
    out: Dense,
    /// `gather[a]`: the index of action `a`'s logit in a position's `[cells, planes]` output.
    gather: Vec<u32>,
}

const NONE: u32 = u32::MAX;

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

/// `dst[m × n] = lhs[m × k] · rhs[k × n]`, all row-major.
fn matmul(dst: &mut [f32], lhs: &[f32], rhs: &[f32], m: usize, k: usize, n: usize) {
    assert!(dst.len() >= m * n && lhs.len() >= m * k && rhs.len() >= k * n);
    // SAFETY: the asserts above keep every access inside the three slices; the strides
    // describe row-major matrices of exactly those sizes.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            1,
            n as isize,
            false,
            lhs.as_ptr(),
            1,
            k as isize,
            rhs.as_ptr(),
            1,
            n as isize,
            0.0,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

/// Makes `v` exactly `len` long (its contents are overwritten by the caller).
fn sized(v: &mut Vec<f32>, len: usize) -> &mut [f32] {
    v.resize(len, 0.0);
    &mut v[..len]
}

impl FastNet {
    /// Builds the fast network from the folded tensors of `shape`'s network (named and
    /// laid out as in a bundle: see [`super::bundle::folded_tensors`]).
    pub fn new(shape: &NetShape, tensors: &BTreeMap<String, Tensor>) -> FastNet {
        let (h, w) = (shape.height, shape.width);
        let cells = h * w;
        let mut taps = Vec::with_capacity(cells * 9);
        for r in 0..h as isize {
            for c in 0..w as isize {
                for dr in -1..=1 {
                    for dc in -1..=1 {
                        let (rr, cc) = (r + dr, c + dc);
                        let tap = if shape.wraps {
                            let rr = rr.rem_euclid(h as isize);
                            let cc = cc.rem_euclid(w as isize);
                            (rr * w as isize + cc) as u32
                        } else if (0..h as isize).contains(&rr) && (0..w as isize).contains(&cc) {
                            (rr * w as isize + cc) as u32
                        } else {
                            NONE
                        };
                        taps.push(tap);
                    }
                }
            }
        }
        let get = |name: &str| &tensors[name];
        let conv3 = |name: &str| {
            let t = get(&format!("{name}.weight")); // [cout, cin, 3, 3]
            let (cout, cin) = (t.shape[0], t.shape[1]);
            let mut wt = vec![0.0; 9 * cin * cout];
            for o in 0..cout {
                for i in 0..cin {
                    for k in 0..9 {
                        wt[(k * cin + i) * cout + o] = t.data[(o * cin + i) * 9 + k];
                    }
                }
            }
            Conv3 {
                cin,
                cout,
                w: wt,
                b: get(&format!("{name}.bias")).data.clone(),
            }
        };
        // 1×1 convolutions ([cout, cin, 1, 1]) and linear layers ([out, in]) alike.
        let dense = |name: &str| {
            let t = get(&format!("{name}.weight"));
            let (cout, cin) = (t.shape[0], t.shape[1]);
            let mut wt = vec![0.0; cin * cout];
            for o in 0..cout {
                for i in 0..cin {
                    wt[i * cout + o] = t.data[o * cin + i];
                }
            }
            Dense {
                cin,
                cout,
                w: wt,
                b: get(&format!("{name}.bias")).data.clone(),
            }
        };
        let mut convs = vec![conv3("stem")];
        for i in 0..shape.blocks {
            convs.push(conv3(&format!("blocks.{i}.a")));
            convs.push(conv3(&format!("blocks.{i}.b")));
        }
        let planes = shape.policy_planes;
        let gather = shape
            .action_order
            .iter()
            .map(|&flat| {
                let (plane, cell) = (flat / cells, flat % cells);
                (cell * planes + plane) as u32
            })
            .collect();
        FastNet {
            cells,
            in_planes: shape.in_planes,
            channels: shape.channels,
            taps,
            convs,
            policy: dense("policy"),
            value_conv: dense("value.conv"),
            hidden: dense("value.hidden"),
            out: dense("value"),
            gather,
        }
    }

    /// One 3×3 convolution of `x` (`[n × cells, cin]`) into `y` (`[n × cells, cout]`),
    /// then bias, the optional residual and ReLU.
    fn conv(
        &self,
        conv: &Conv3,
        n: usize,
        x: &[f32],
        cols: &mut Vec<f32>,
        y: &mut [f32],
        residual: Option<&[f32]>,
    ) {
        let (cells, cin, cout) = (self.cells, conv.cin, conv.cout);
        let k = 9 * cin;
        let cols = sized(cols, n * cells * k);
        for p in 0..n {
            let src = &x[p * cells * cin..(p + 1) * cells * cin];
            let dst = &mut cols[p * cells * k..(p + 1) * cells * k];
            for (row, taps) in dst.chunks_exact_mut(k).zip(self.taps.chunks_exact(9)) {
                for (slot, &tap) in row.chunks_exact_mut(cin).zip(taps) {
                    if tap == NONE {
                        slot.fill(0.0);
                    } else {
                        let at = tap as usize * cin;
                        slot.copy_from_slice(&src[at..at + cin]);
                    }
                }
            }
        }
        matmul(y, cols, &conv.w, n * cells, k, cout);
        match residual {
            Some(res) => {
                for (row, rrow) in y.chunks_exact_mut(cout).zip(res.chunks_exact(cout)) {
                    for ((v, &b), &r) in row.iter_mut().zip(&conv.b).zip(rrow) {
                        *v = (*v + b + r).max(0.0);
                    }
                }
            }
            None => {
                for row in y.chunks_exact_mut(cout) {
                    for (v, &b) in row.iter_mut().zip(&conv.b) {
                        *v = (*v + b).max(0.0);
                    }
                }
            }
        }
    }

    /// A dense layer on `n` rows of `x`, into `y`, with bias and then `act`.
    fn dense(layer: &Dense, n: usize, x: &[f32], y: &mut [f32], act: impl Fn(f32) -> f32) {
        matmul(y, x, &layer.w, n, layer.cin, layer.cout);
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
        self.conv(&self.convs[0], batch, xs, cols, cur, None);
        *head = x;
        // Each block: cur → mid → next (+ cur), then next is the new cur.
        for pair in self.convs[1..].chunks_exact(2) {
            self.conv(&pair[0], batch, cur, cols, mid, None);
            self.conv(&pair[1], batch, mid, cols, next, Some(cur));
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
        for p in 0..batch {
            for cell in 0..cells {
                let row = &vmap[(p * cells + cell) * vc..(p * cells + cell + 1) * vc];
                for (acc, &v) in pooled[p * vc..(p + 1) * vc].iter_mut().zip(row) {
                    *acc += v;
                }
            }
        }
        pooled.iter_mut().for_each(|v| *v /= cells as f32);
        let mut hidden = vec![0.0f32; batch * self.hidden.cout];
        Self::dense(&self.hidden, batch, &pooled, &mut hidden, |v| v.max(0.0));
        let mut values = vec![0.0f32; batch * self.out.cout];
        Self::dense(&self.out, batch, &hidden, &mut values, f32::tanh);
        (logits, values)
    }
}
