//! The evaluator's training step derived by hand: the float form's forward and backward
//! over sparse features, and Adam, without a tensor library.
//!
//! The model is [`FloatNet`]'s: `features → accumulator → activation → dense → clip →
//! tanh` (or no dense layer), its loss the mean squared error over a batch's positions
//! and seats. A position's accumulator (each of them, in the perspective form) is its
//! bias and the rows of its few features (never a multiplication by the inputs' zeros,
//! which a dense `inputs × hidden` product spends nearly all its time on); the backward
//! adds each accumulator's gradient to the same rows.
//! Positions are shared among the threads, each summing every gradient into its own
//! buffers (the feature rows' included: a position's accumulator gradient is added to
//! its features' rows at once, never stored), which are then summed band by band on
//! every core; the dense layer's backward takes four positions at a time, so that its
//! weights and their gradients are read once for the four. Adam then updates every
//! weight, the rows the batch left alone included, exactly as burn's does ([`BETA_1`],
//! [`BETA_2`], [`EPSILON`], its bias corrections), so that burn's autodiff is the
//! reference this step is held to (the tests of [`super::autodiff`]).
//!
//! The inner loops are additions of one row to another, which the compiler turns into
//! vector instructions; on x86-64 they are also compiled for AVX2 and for AVX-512 and
//! the widest is chosen at run time ([`Kernel::detect`]; the same results: no sum is
//! reordered and no multiplication fused with its addition).

use std::ops::Range;

use rayon::prelude::*;

use super::kernels::Kernel;
use super::net::{EvalShape, FloatNet};

/// Adam's first-moment decay (burn's default).
pub const BETA_1: f32 = 0.9;
/// Adam's second-moment decay (burn's default).
pub const BETA_2: f32 = 0.999;
/// Adam's denominator floor (burn's default).
pub const EPSILON: f32 = 1e-5;

/// Positions for a step: each one's active features, a list a view (one, or one a seat
/// in the perspective form: [`EvalShape::views`]), and its targets (one a seat,
/// relative to the mover).
#[derive(Debug, Clone)]
pub struct SparseBatch {
    features: Vec<u32>,
    /// View `k` of position `i` is `features[offsets[j]..offsets[j + 1]]`, `j` being
    /// `i · views + k`.
    offsets: Vec<usize>,
    targets: Vec<f32>,
    outputs: usize,
    views: usize,
}

impl SparseBatch {
    /// An empty batch of positions with `outputs` targets and `views` lists of
    /// features each.
    pub fn new(outputs: usize, views: usize) -> SparseBatch {
        SparseBatch {
            features: Vec::new(),
            offsets: vec![0],
            targets: Vec::new(),
            outputs,
            views: views.max(1),
        }
    }

    /// An empty batch for an evaluator of `shape`.
    pub fn for_shape(shape: &EvalShape) -> SparseBatch {
        SparseBatch::new(shape.outputs, shape.views())
    }

    /// Empties the batch, keeping its memory.
    pub fn clear(&mut self) {
        self.features.clear();
        self.offsets.truncate(1);
        self.targets.clear();
    }

    /// Adds a position with `views`' features (the batch's number of lists) and the
    /// first `outputs` of `target`.
    pub fn push<V: IntoIterator<Item = u32>>(
        &mut self,
        views: impl IntoIterator<Item = V>,
        target: &[f32],
    ) {
        let before = self.offsets.len();
        for features in views {
            self.features.extend(features);
            self.offsets.push(self.features.len());
        }
        assert_eq!(
            self.offsets.len() - before,
            self.views,
            "a position's views"
        );
        self.targets.extend_from_slice(&target[..self.outputs]);
    }

    /// Adds `other`'s positions after this batch's.
    pub fn append(&mut self, other: &SparseBatch) {
        let base = self.features.len();
        self.features.extend_from_slice(&other.features);
        (self.offsets).extend(other.offsets[1..].iter().map(|o| base + o));
        self.targets.extend_from_slice(&other.targets);
    }

    /// Targets a position.
    pub fn outputs(&self) -> usize {
        self.outputs
    }

    /// Lists of features a position.
    pub fn views(&self) -> usize {
        self.views
    }

    /// Positions in the batch.
    pub fn len(&self) -> usize {
        (self.offsets.len() - 1) / self.views
    }

    /// Whether the batch has no positions.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Position `i`'s features in view `k`.
    pub fn view(&self, i: usize, k: usize) -> &[u32] {
        let j = i * self.views + k;
        &self.features[self.offsets[j]..self.offsets[j + 1]]
    }

    /// Position `i`'s targets.
    pub fn target(&self, i: usize) -> &[f32] {
        &self.targets[i * self.outputs..(i + 1) * self.outputs]
    }

    /// The largest feature index, for a check against the shape.
    fn largest_feature(&self) -> Option<u32> {
        self.features.iter().copied().max()
    }
}

/// The evaluator's weights in training, their gradients and Adam's moments.
pub struct SparseTrainer {
    net: FloatNet,
    /// The dense layer transposed (`[units, dense]`), for the forward's row additions.
    l1_t: Vec<f32>,
    /// The last batch's gradients, in [`EvalShape::tensors`]' order.
    grads: [Vec<f32>; 6],
    /// Adam's first and second moments, the same order.
    moments: [(Vec<f32>, Vec<f32>); 6],
    /// Adam's steps taken.
    time: i32,
    /// Each thread's gradients, kept from step to step.
    locals: Vec<Local>,
    kernel: Kernel,
}

/// One thread's share of a batch: its gradients (in [`EvalShape::tensors`]' order;
/// none where only the errors are asked for) and its squared errors.
struct Local {
    grads: [Vec<f32>; 6],
    loss: f64,
}

impl Local {
    fn new(s: &EvalShape, gradients: bool) -> Local {
        let size = |dims: Vec<usize>| dims.iter().product::<usize>() * usize::from(gradients);
        Local {
            grads: s.tensors().map(|(_, dims)| vec![0.0; size(dims)]),
            loss: 0.0,
        }
    }
}

/// `y += a · x`, element by element.
#[inline(always)]
fn axpy(y: &mut [f32], a: f32, x: &[f32]) {
    y.iter_mut().zip(x).for_each(|(y, x)| *y += a * x);
}

/// `y += x`, element by element.
#[inline(always)]
fn add(y: &mut [f32], x: &[f32]) {
    y.iter_mut().zip(x).for_each(|(y, x)| *y += x);
}

impl SparseTrainer {
    /// A trainer for `shape` with weights drawn as burn's linear layers draw theirs
    /// (uniform within `±1/√fan-in`, biases too), from `seed`.
    pub fn new(shape: EvalShape, seed: u64) -> SparseTrainer {
        let mut rng = crate::rng::Rng::new(seed);
        let mut uniform = |n: usize, fan_in: usize| -> Vec<f32> {
            let bound = 1.0 / (fan_in as f64).sqrt();
            (0..n)
                .map(|_| ((rng.unit() * 2.0 - 1.0) * bound) as f32)
                .collect()
        };
        let (i, h, d, o) = (shape.inputs, shape.hidden, shape.dense, shape.outputs);
        let u = shape.units();
        let net = FloatNet {
            ft_w: uniform(i * h, i),
            ft_b: uniform(h, i),
            l1_w: uniform(d * u, u),
            l1_b: uniform(d, u),
            out_w: uniform(o * shape.top(), shape.top()),
            out_b: uniform(o, shape.top()),
            shape,
        };
        SparseTrainer::from_net(net)
    }

    /// A trainer that starts from `net`'s weights, Adam's moments at zero.
    pub fn from_net(net: FloatNet) -> SparseTrainer {
        let zeros = |v: &Vec<f32>| vec![0.0f32; v.len()];
        let parts = net.parts();
        SparseTrainer {
            l1_t: transpose(&net.l1_w, net.shape.dense, net.shape.units()),
            grads: parts.map(zeros),
            moments: parts.map(|v| (zeros(v), zeros(v))),
            time: 0,
            locals: Vec::new(),
            kernel: Kernel::detect(),
            net,
        }
    }

    /// The weights now.
    pub fn net(&self) -> &FloatNet {
        &self.net
    }

    /// The last [`SparseTrainer::gradients`]' gradient of tensor `k` (in
    /// [`EvalShape::tensors`]' order).
    pub fn gradient(&self, k: usize) -> &[f32] {
        &self.grads[k]
    }

    /// Computes the gradients of the mean squared error on `batch` and returns that
    /// error.
    pub fn gradients(&mut self, batch: &SparseBatch) -> anyhow::Result<f64> {
        let s = self.net.shape.clone();
        self.check(batch)?;
        let n = batch.len();
        let scale = 2.0 / (n * s.outputs).max(1) as f32;
        let parts = rayon::current_num_threads().clamp(1, n.max(1));
        let per = n.div_ceil(parts).max(1);
        while self.locals.len() < parts {
            self.locals.push(Local::new(&s, true));
        }
        let (net, l1_t, kernel) = (&self.net, &self.l1_t, self.kernel);
        let locals = &mut self.locals[..parts];
        (locals.par_iter_mut().enumerate()).for_each(|(k, local)| {
            local.grads.iter_mut().for_each(|g| g.fill(0.0));
            local.loss = 0.0;
            let range = (k * per).min(n)..(k * per + per).min(n);
            let job = Job {
                net,
                l1_t,
                batch,
                range,
                scale,
            };
            run_part(kernel, job, local);
        });
        let locals = &self.locals[..parts];
        for (k, g) in self.grads.iter_mut().enumerate() {
            const BAND: usize = 16_384;
            (g.par_chunks_mut(BAND).enumerate()).for_each(|(b, band)| {
                band.fill(0.0);
                let at = b * BAND;
                locals
                    .iter()
                    .for_each(|l| add(band, &l.grads[k][at..at + band.len()]));
            });
        }
        let loss: f64 = locals.iter().map(|l| l.loss).sum();
        Ok(loss / (n * s.outputs).max(1) as f64)
    }

    /// One step: the gradients on `batch`, then Adam at learning rate `lr`. Returns the
    /// batch's mean squared error before the step.
    pub fn step(&mut self, batch: &SparseBatch, lr: f64) -> anyhow::Result<f64> {
        let loss = self.gradients(batch)?;
        self.time += 1;
        let t = self.time;
        let bc2 = (1.0 - BETA_2.powi(t)).sqrt();
        let factor = bc2 / (1.0 - BETA_1.powi(t));
        let (eps, lr) = (EPSILON * bc2, lr as f32);
        let SparseTrainer {
            net,
            grads,
            moments,
            ..
        } = self;
        let params = net.parts_mut();
        for ((p, g), (m, v)) in params.into_iter().zip(grads.iter()).zip(moments.iter_mut()) {
            const CHUNK: usize = 4096;
            (p.par_chunks_mut(CHUNK).zip(g.par_chunks(CHUNK)))
                .zip(m.par_chunks_mut(CHUNK).zip(v.par_chunks_mut(CHUNK)))
                .for_each(|((p, g), (m, v))| {
                    for i in 0..p.len() {
                        m[i] = BETA_1 * m[i] + (1.0 - BETA_1) * g[i];
                        v[i] = BETA_2 * v[i] + (1.0 - BETA_2) * (g[i] * g[i]);
                        p[i] -= lr * (m[i] * factor / (v[i].sqrt() + eps));
                    }
                });
        }
        let s = &self.net.shape;
        self.l1_t = transpose(&self.net.l1_w, s.dense, s.units());
        Ok(loss)
    }

    /// The sum of squared errors (every seat) on `batch`, no gradients.
    pub fn squared_error(&self, batch: &SparseBatch) -> anyhow::Result<f64> {
        self.check(batch)?;
        let n = batch.len();
        let per = n.div_ceil(4 * rayon::current_num_threads()).max(1);
        let s = &self.net.shape;
        let sums = (0..n.div_ceil(per)).into_par_iter().map(|k| {
            let mut local = Local::new(s, false);
            let range = k * per..(k * per + per).min(n);
            let (net, l1_t) = (&self.net, &self.l1_t);
            let job = Job {
                net,
                l1_t,
                batch,
                range,
                scale: 0.0,
            };
            run_part(self.kernel, job, &mut local);
            local.loss
        });
        Ok(sums.sum())
    }

    fn check(&self, batch: &SparseBatch) -> anyhow::Result<()> {
        let s = &self.net.shape;
        anyhow::ensure!(
            batch.outputs == s.outputs,
            "a batch of {} targets a position for an evaluator of {} outputs",
            batch.outputs,
            s.outputs
        );
        anyhow::ensure!(
            batch.views == s.views(),
            "a batch of {} views a position for an evaluator of {} accumulators",
            batch.views,
            s.views()
        );
        if let Some(f) = batch.largest_feature() {
            anyhow::ensure!(
                (f as usize) < s.inputs,
                "feature {f} in a batch for an evaluator of {} inputs",
                s.inputs
            );
        }
        Ok(())
    }
}

fn transpose(w: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut t = vec![0.0; w.len()];
    for r in 0..rows {
        for c in 0..cols {
            t[c * rows + r] = w[r * cols + c];
        }
    }
    t
}

/// What [`part`] works on: the weights, the batch, its positions and the loss's
/// gradient a unit error (0: the errors alone).
struct Job<'a> {
    net: &'a FloatNet,
    l1_t: &'a [f32],
    batch: &'a SparseBatch,
    range: Range<usize>,
    scale: f32,
}

/// [`part`] in `kernel`'s form.
fn run_part(kernel: Kernel, job: Job, local: &mut Local) {
    match kernel {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: [`Kernel::detect`] names a form only where the CPU runs it.
        Kernel::Avx2 => unsafe { x86::part_avx2(job, local) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Kernel::Avx512 => unsafe { x86::part_avx512(job, local) },
        _ => part(job, local),
    }
}

/// [`part`] compiled for wider vectors.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::*;

    macro_rules! wide {
        ($name:ident, $feature:literal) => {
            /// [`part`] compiled with these target features.
            ///
            /// # Safety
            /// The CPU must have them.
            #[target_feature(enable = $feature)]
            pub(super) unsafe fn $name(job: Job, local: &mut Local) {
                part(job, local);
            }
        };
    }
    wide!(part_avx2, "avx2");
    wide!(part_avx512, "avx512f,avx512bw");
}

/// Positions whose dense layer's backward is taken together: its weights and their
/// gradients read and written once for all of them.
const QUAD: usize = 4;

/// The forward and backward of the positions `range` of `batch`: their squared errors
/// and their gradients summed into `local` (the loss's gradient a unit error is
/// `scale`; 0 computes the errors alone). Positions go [`QUAD`] at a time through the
/// dense layer's backward (a short group padded with zero gradients).
#[inline(always)]
fn part(job: Job, local: &mut Local) {
    let Job {
        net,
        l1_t,
        batch,
        range,
        scale,
    } = job;
    let s = &net.shape;
    let (hn, un, dn, tn, act) = (s.hidden, s.units(), s.dense, s.top(), s.activation);
    let [g_ft_w, g_ft_b, g_l1_w, g_l1_b, g_out_w, g_out_b] = &mut local.grads;
    // A position's accumulators side by side (`units`), as the layer after reads them.
    let (mut accs, mut hs) = (vec![0.0f32; QUAD * un], vec![0.0f32; QUAD * un]);
    let (mut dhs, mut dzs) = (vec![0.0f32; QUAD * un], vec![0.0f32; QUAD * dn]);
    let (mut z, mut g, mut dg) = (vec![0.0f32; dn], vec![0.0f32; dn], vec![0.0f32; tn]);
    let mut da = vec![0.0f32; hn];
    for first in range.clone().step_by(QUAD) {
        let quad = first..(first + QUAD).min(range.end);
        dzs.fill(0.0);
        dhs.fill(0.0);
        for (i, p) in quad.clone().enumerate() {
            let target = batch.target(p);
            let (acc, h) = (
                &mut accs[i * un..(i + 1) * un],
                &mut hs[i * un..(i + 1) * un],
            );
            for (k, acc) in acc.chunks_mut(hn).enumerate() {
                acc.copy_from_slice(&net.ft_b);
                for &f in batch.view(p, k) {
                    add(acc, &net.ft_w[f as usize * hn..(f as usize + 1) * hn]);
                }
            }
            h.iter_mut()
                .zip(&*acc)
                .for_each(|(h, &a)| *h = act.apply(a));
            // The units the outputs read: the dense layer's, or the accumulator's.
            let top: &[f32] = match dn {
                0 => h,
                _ => {
                    z.copy_from_slice(&net.l1_b);
                    for (j, &x) in h.iter().enumerate() {
                        if x != 0.0 {
                            axpy(&mut z, x, &l1_t[j * dn..(j + 1) * dn]);
                        }
                    }
                    g.iter_mut()
                        .zip(&z)
                        .for_each(|(g, z)| *g = z.clamp(0.0, 1.0));
                    &g
                }
            };
            dg.fill(0.0);
            for (k, &t) in target.iter().enumerate() {
                let w = &net.out_w[k * tn..(k + 1) * tn];
                let o = net.out_b[k] + w.iter().zip(top).map(|(w, g)| w * g).sum::<f32>();
                let y = o.tanh();
                let e = y - t;
                local.loss += (e * e) as f64;
                if scale == 0.0 {
                    continue;
                }
                let d_o = scale * e * (1.0 - y * y);
                g_out_b[k] += d_o;
                axpy(&mut g_out_w[k * tn..(k + 1) * tn], d_o, top);
                axpy(&mut dg, d_o, w);
            }
            if dn == 0 {
                dhs[i * un..(i + 1) * un].copy_from_slice(&dg);
                continue;
            }
            let dz = &mut dzs[i * dn..(i + 1) * dn];
            for ((dz, &z), &dg) in dz.iter_mut().zip(&z).zip(&dg) {
                *dz = if z > 0.0 && z < 1.0 { dg } else { 0.0 };
            }
            add(g_l1_b, dz);
        }
        if scale == 0.0 {
            continue;
        }
        // The dense layer's backward for the quad: each weight row and its gradient
        // read once.
        for d in 0..dn {
            let dz: [f32; QUAD] = std::array::from_fn(|i| dzs[i * dn + d]);
            if dz == [0.0; QUAD] {
                continue;
            }
            let (w, gw) = (
                &net.l1_w[d * un..(d + 1) * un],
                &mut g_l1_w[d * un..(d + 1) * un],
            );
            for j in 0..un {
                let mut sum = gw[j];
                (0..QUAD).for_each(|i| sum += dz[i] * hs[i * un + j]);
                gw[j] = sum;
                (0..QUAD).for_each(|i| dhs[i * un + j] += dz[i] * w[j]);
            }
        }
        for (i, p) in quad.enumerate() {
            let (acc, dh) = (&accs[i * un..(i + 1) * un], &dhs[i * un..(i + 1) * un]);
            for (k, (acc, dh)) in acc.chunks(hn).zip(dh.chunks(hn)).enumerate() {
                for ((da, &a), &dh) in da.iter_mut().zip(acc).zip(dh) {
                    *da = dh * act.slope(a);
                }
                add(g_ft_b, &da);
                for &f in batch.view(p, k) {
                    add(&mut g_ft_w[f as usize * hn..(f as usize + 1) * hn], &da);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_gives_the_scalar_form_s_gradients_bit_for_bit() {
        for dense in [12, 0] {
            for perspective in [false, true] {
                forms_agree(dense, perspective);
            }
        }
    }

    fn forms_agree(dense: usize, perspective: bool) {
        let shape = EvalShape {
            game: "test".into(),
            inputs: 200,
            hidden: 40,
            dense,
            outputs: 2,
            features: super::super::FeatureSet::Windows,
            activation: super::super::Activation::Screlu,
            perspective,
        };
        let net = FloatNet::random(shape, 11);
        let mut rng = crate::rng::Rng::new(2);
        let mut batch = SparseBatch::for_shape(&net.shape);
        for _ in 0..29 {
            let views: Vec<Vec<u32>> = (0..net.shape.views())
                .map(|_| (0..9).map(|k| 20 * k + rng.below(20) as u32).collect())
                .collect();
            batch.push(views, &[rng.unit() as f32, -0.5]);
        }
        let mut scalar = SparseTrainer::from_net(net.clone());
        scalar.kernel = Kernel::Scalar;
        let loss = scalar.gradients(&batch).unwrap();
        for kernel in Kernel::available() {
            let mut wide = SparseTrainer::from_net(net.clone());
            wide.kernel = kernel;
            assert_eq!(wide.gradients(&batch).unwrap(), loss, "{kernel:?}");
            for k in 0..6 {
                assert_eq!(
                    wide.gradient(k),
                    scalar.gradient(k),
                    "{kernel:?}, tensor {k}"
                );
            }
        }
    }
}
