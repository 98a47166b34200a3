//! The evaluator's network: its shape, its float weights (what training writes and the
//! bundle stores) and the integer form the search runs ([`Evaluator`]).
//!
//! `features → accumulator (hidden units) → clip to [0, 1] (or its square:
//! [`Activation`]) → dense (dense units) → clip to [0, 1] → one output a seat → tanh`,
//! the outputs relative to the mover as the policy-value network's value head is
//! (output 0 the mover, 1 the next seat, …). With no dense units (`dense = 0`, the
//! public engines' shape) the outputs read the accumulator's activations directly.
//! In the perspective form ([`EvalShape::perspective`]) each seat has an accumulator
//! of the board as it sees it, all through the same weights, and the layer after them
//! reads their activations side by side, the mover's first, then the next seat's, ….
//!
//! Integers, at the evaluator's scale `qa` (new evaluators [`QA`]; a bundle names its
//! own): the accumulator row of a feature and its bias are the float weights × `qa` in
//! `i16`; a clipped unit is `0..=qa`; the dense weights are × [`QB`] in `i16`, their
//! biases × `qa · QB` in `i32`; a dense sum is shifted down by `log2 QB` before clipping;
//! the outputs' weights and biases are scaled as the dense layer's.
//! [`Accumulator`]s are kept one a ply by the search and moved from an ancestor's by the
//! features that differ ([`super::features::diff`]), or refreshed when too many do.

use super::features::{self, FeatureSet, Features};
use super::kernels::{Kernel, QA, SCALES};
use crate::games::MAX_PLAYERS;

/// The dense weights' scale in integers.
pub const QB: i32 = 1024;
const QB_SHIFT: u32 = QB.trailing_zeros();

/// The accumulator's activation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Activation {
    /// Clipped to `[0, 1]`.
    #[default]
    Crelu,
    /// Clipped, then squared (SCReLU, the public Ataxx and chess evaluators').
    Screlu,
}

impl Activation {
    /// Every activation, in [`Activation::NAMES`]' order.
    pub const ALL: [Activation; 2] = [Activation::Crelu, Activation::Screlu];
    /// Their names, as configs and manifests write them.
    pub const NAMES: &'static [&'static str] = &["crelu", "screlu"];

    /// The name.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// Whether it is the default (which manifests leave out, as those written before
    /// there was a choice do).
    pub fn is_default(&self) -> bool {
        *self == Activation::default()
    }

    /// The unit's value for the sum `a`.
    #[inline(always)]
    pub fn apply(self, a: f32) -> f32 {
        let c = a.clamp(0.0, 1.0);
        match self {
            Activation::Crelu => c,
            Activation::Screlu => c * c,
        }
    }

    /// Its slope at `a` (0 where the clip holds it).
    #[inline(always)]
    pub fn slope(self, a: f32) -> f32 {
        match (a > 0.0 && a < 1.0, self) {
            (false, _) => 0.0,
            (true, Activation::Crelu) => 1.0,
            (true, Activation::Screlu) => 2.0 * a,
        }
    }
}

impl TryFrom<String> for Activation {
    type Error = String;
    fn try_from(name: String) -> Result<Activation, String> {
        crate::limits::named("activation", &Self::ALL, Self::NAMES, &name)
    }
}

impl From<Activation> for String {
    fn from(a: Activation) -> String {
        a.name().into()
    }
}

/// Everything that fixes the evaluator's shape.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EvalShape {
    /// The game's name.
    pub game: String,
    /// Input features (the length of the game's encoding, and the tuples' count where
    /// `features` has them).
    pub inputs: usize,
    /// Accumulator units.
    pub hidden: usize,
    /// Units of the dense layer after it (0: none).
    pub dense: usize,
    /// Outputs: one a seat.
    pub outputs: usize,
    /// The feature set (the manifest names it beside the shape).
    #[serde(skip)]
    pub features: FeatureSet,
    /// The accumulator's activation (absent from the manifests of the default).
    #[serde(default, skip_serializing_if = "Activation::is_default")]
    pub activation: Activation,
    /// The perspective form: an accumulator a seat, each of the board as that seat
    /// sees it (absent from the manifests of evaluators with one, the mover's).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub perspective: bool,
}

impl EvalShape {
    /// The tensors' names and shapes, in the bundle's order.
    pub fn tensors(&self) -> [(&'static str, Vec<usize>); 6] {
        [
            ("ft.weight", vec![self.inputs, self.hidden]),
            ("ft.bias", vec![self.hidden]),
            ("l1.weight", vec![self.dense, self.units()]),
            ("l1.bias", vec![self.dense]),
            ("out.weight", vec![self.outputs, self.top()]),
            ("out.bias", vec![self.outputs]),
        ]
    }

    /// The units the outputs read: the dense layer's, or the accumulators' where there
    /// is none.
    pub fn top(&self) -> usize {
        match self.dense {
            0 => self.units(),
            d => d,
        }
    }

    /// Accumulators a position: one a seat in the perspective form, else the mover's.
    pub fn views(&self) -> usize {
        if self.perspective { self.outputs } else { 1 }
    }

    /// The accumulators' units together: what the layer after them reads.
    pub fn units(&self) -> usize {
        self.hidden * self.views()
    }

    /// Whether the shape can run: inputs and accumulator units, outputs within the seats.
    pub fn check(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.inputs > 0 && self.hidden > 0,
            "an evaluator needs inputs and accumulator units (got {} and {})",
            self.inputs,
            self.hidden
        );
        anyhow::ensure!(
            (1..=MAX_PLAYERS).contains(&self.outputs),
            "an evaluator has 1 to {MAX_PLAYERS} outputs, not {}",
            self.outputs
        );
        anyhow::ensure!(
            !self.perspective || self.features.reads_every_seat(),
            "the perspective form reads the board as each seat sees it, which the feature \
             set '{}' cannot (its encoding is the mover's): use '{}'",
            self.features.name(),
            FeatureSet::Windows.name()
        );
        Ok(())
    }
}

impl std::fmt::Display for EvalShape {
    /// `ataxx: 3210 inputs (encoding-set+2x2) → 256 crelu → 32 → 2`, or with an
    /// accumulator a seat `ataxx: 2916 inputs (2x2) → 2 × 256 screlu → 2`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self;
        write!(
            f,
            "{}: {} inputs ({}) → {}{} {}",
            s.game,
            s.inputs,
            s.features.name(),
            if s.perspective {
                format!("{} × ", s.views())
            } else {
                String::new()
            },
            s.hidden,
            s.activation.name()
        )?;
        if s.dense > 0 {
            write!(f, " → {}", s.dense)?;
        }
        write!(f, " → {}", s.outputs)
    }
}

/// The float weights, row-major as [`EvalShape::tensors`] names them.
#[derive(Debug, Clone, PartialEq)]
pub struct FloatNet {
    /// The shape.
    pub shape: EvalShape,
    /// `[inputs, hidden]`: a row a feature.
    pub ft_w: Vec<f32>,
    /// `[hidden]`.
    pub ft_b: Vec<f32>,
    /// `[dense, units]` ([`EvalShape::units`]).
    pub l1_w: Vec<f32>,
    /// `[dense]`.
    pub l1_b: Vec<f32>,
    /// `[outputs, top]` ([`EvalShape::top`]).
    pub out_w: Vec<f32>,
    /// `[outputs]`.
    pub out_b: Vec<f32>,
}

impl FloatNet {
    /// The net of `shape` with `parts` in [`EvalShape::tensors`]' order.
    pub fn from_parts(shape: EvalShape, parts: [Vec<f32>; 6]) -> FloatNet {
        let [ft_w, ft_b, l1_w, l1_b, out_w, out_b] = parts;
        FloatNet {
            shape,
            ft_w,
            ft_b,
            l1_w,
            l1_b,
            out_w,
            out_b,
        }
    }

    /// The weights in [`EvalShape::tensors`]' order, to change.
    pub fn parts_mut(&mut self) -> [&mut Vec<f32>; 6] {
        let FloatNet {
            ft_w,
            ft_b,
            l1_w,
            l1_b,
            out_w,
            out_b,
            ..
        } = self;
        [ft_w, ft_b, l1_w, l1_b, out_w, out_b]
    }

    /// The weights in [`EvalShape::tensors`]' order.
    pub fn parts(&self) -> [&Vec<f32>; 6] {
        [
            &self.ft_w,
            &self.ft_b,
            &self.l1_w,
            &self.l1_b,
            &self.out_w,
            &self.out_b,
        ]
    }

    /// A network of `shape` with random weights (seeded normal values, small enough that
    /// the units spread over their clipping ranges): for tests and benchmarks.
    pub fn random(shape: EvalShape, seed: u64) -> FloatNet {
        let mut rng = crate::rng::Rng::new(seed);
        let mut v =
            |n: usize, s: f64| -> Vec<f32> { (0..n).map(|_| (rng.normal() * s) as f32).collect() };
        let (i, h, d, o) = (shape.inputs, shape.hidden, shape.dense, shape.outputs);
        let u = shape.units();
        FloatNet {
            ft_w: v(i * h, 0.1),
            ft_b: v(h, 0.2),
            l1_w: v(d * u, 0.3),
            l1_b: v(d, 0.1),
            // Read from the accumulator, the outputs sum many more units: smaller weights.
            out_w: v(
                o * shape.top(),
                if d > 0 { 0.5 } else { 2.0 / (u as f64).sqrt() },
            ),
            out_b: v(o, 0.1),
            shape,
        }
    }

    /// The values (tanh, relative to the mover) of a position whose accumulators
    /// ([`EvalShape::views`]: the mover's, then the next seat's, …) read `views`' features:
    /// the float reference the integer form is measured against.
    pub fn evaluate(&self, views: &[Vec<u32>]) -> [f32; MAX_PLAYERS] {
        let s = &self.shape;
        assert_eq!(views.len(), s.views(), "an evaluator's accumulators");
        let mut h1 = Vec::with_capacity(s.units());
        for features in views {
            let mut acc = self.ft_b.clone();
            for &f in features {
                let row = &self.ft_w[f as usize * s.hidden..(f as usize + 1) * s.hidden];
                acc.iter_mut().zip(row).for_each(|(a, w)| *a += w);
            }
            h1.extend(acc.iter().map(|&v| s.activation.apply(v)));
        }
        let u = s.units();
        let h2: Vec<f32> = (0..s.dense)
            .map(|j| {
                let row = &self.l1_w[j * u..(j + 1) * u];
                let z = self.l1_b[j] + row.iter().zip(&h1).map(|(w, x)| w * x).sum::<f32>();
                z.clamp(0.0, 1.0)
            })
            .collect();
        let (top, n) = match s.dense {
            0 => (&h1, u),
            d => (&h2, d),
        };
        let mut out = [0.0; MAX_PLAYERS];
        for (k, o) in out.iter_mut().enumerate().take(s.outputs) {
            let row = &self.out_w[k * n..(k + 1) * n];
            *o = (self.out_b[k] + row.iter().zip(top).map(|(w, x)| w * x).sum::<f32>()).tanh();
        }
        out
    }
}

/// A position's accumulator and the features it sums.
#[derive(Debug, Clone, Default)]
pub struct Accumulator {
    /// The accumulator units (bias plus the features' rows).
    pub values: Vec<i16>,
    /// The position's features.
    pub features: Features,
}

/// Scratch for an incremental update.
#[derive(Debug, Default, Clone)]
pub struct Scratch {
    added: Vec<u32>,
    removed: Vec<u32>,
    h1: Vec<i16>,
    z: Vec<i32>,
    h2: Vec<i16>,
}

/// The integer evaluator the search runs.
#[derive(Debug, Clone)]
pub struct Evaluator {
    /// The shape.
    pub shape: EvalShape,
    kernel: Kernel,
    /// A unit's value 1.0 in integers.
    qa: i16,
    ft_w: Vec<i16>,
    ft_b: Vec<i16>,
    l1_w: Vec<i16>,
    l1_b: Vec<i32>,
    out_w: Vec<i16>,
    out_b: Vec<i32>,
}

fn quantize(values: &[f32], scale: f32) -> Vec<i16> {
    (values.iter())
        .map(|v| (v * scale).round().clamp(i16::MIN as f32, i16::MAX as f32) as i16)
        .collect()
}

fn quantize_i32(values: &[f32], scale: f32) -> Vec<i32> {
    (values.iter())
        .map(|v| (v * scale).round().clamp(-1e9, 1e9) as i32)
        .collect()
}

impl Evaluator {
    /// The integer form of `net` at the scale [`QA`], on the widest kernel this CPU runs.
    pub fn new(net: &FloatNet) -> Evaluator {
        Evaluator::at_scale(net, QA, Kernel::detect())
    }

    /// The integer form of `net` at the scale [`QA`] on `kernel` (one
    /// [`Kernel::available`] lists).
    pub fn with_kernel(net: &FloatNet, kernel: Kernel) -> Evaluator {
        Evaluator::at_scale(net, QA, kernel)
    }

    /// The integer form of `net` with a unit's value 1.0 at `qa` (within [`SCALES`]), on
    /// `kernel`.
    pub fn at_scale(net: &FloatNet, qa: i16, kernel: Kernel) -> Evaluator {
        assert!(
            SCALES.contains(&qa),
            "an evaluator's scale is in {SCALES:?}"
        );
        let (a, b) = (qa as f32, QB as f32);
        Evaluator {
            shape: net.shape.clone(),
            kernel,
            qa,
            ft_w: quantize(&net.ft_w, a),
            ft_b: quantize(&net.ft_b, a),
            l1_w: kernel.dense_layout(&quantize(&net.l1_w, b), net.shape.units(), net.shape.dense),
            l1_b: quantize_i32(&net.l1_b, a * b),
            out_w: quantize(&net.out_w, b),
            out_b: quantize_i32(&net.out_b, a * b),
        }
    }

    /// The kernel it runs on.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// Its scale: a unit's value 1.0 in integers.
    pub fn scale(&self) -> i16 {
        self.qa
    }

    /// Sums `acc.features`' rows afresh (moved from the bias by every feature's row).
    pub fn refresh(&self, acc: &mut Accumulator, scratch: &mut Scratch) {
        scratch.added.clear();
        scratch.added.extend(acc.features.iter());
        acc.values.resize(self.shape.hidden, 0);
        (self.kernel).moved(&mut acc.values, &self.ft_b, &self.ft_w, &scratch.added, &[]);
    }

    /// Accumulators summed afresh, one for each of `views`' features (a position's
    /// views, as [`FeatureSet::views_of`] lists them).
    pub fn accumulators(&self, views: &[Vec<u32>], scratch: &mut Scratch) -> Vec<Accumulator> {
        (views.iter())
            .map(|f| {
                let mut acc = Accumulator {
                    features: f.iter().copied().collect(),
                    ..Accumulator::default()
                };
                self.refresh(&mut acc, scratch);
                acc
            })
            .collect()
    }

    /// Sets `acc`'s values for its features from `base`'s by the rows that differ, or
    /// afresh where more differ than a refresh costs.
    pub fn update(&self, base: &Accumulator, acc: &mut Accumulator, scratch: &mut Scratch) {
        features::diff(
            &base.features,
            &acc.features,
            &mut scratch.added,
            &mut scratch.removed,
        );
        if base.values.len() != self.shape.hidden
            || scratch.added.len() + scratch.removed.len() >= acc.features.len()
        {
            return self.refresh(acc, scratch);
        }
        acc.values.resize(self.shape.hidden, 0);
        let (added, removed) = (&scratch.added, &scratch.removed);
        (self.kernel).moved(&mut acc.values, &base.values, &self.ft_w, added, removed);
    }

    /// The outputs before tanh, in integers (× `qa · QB`), of the position whose
    /// accumulators are `accs` ([`EvalShape::views`] of them, the mover's first).
    pub fn raw(&self, accs: &[Accumulator], scratch: &mut Scratch) -> [i32; MAX_PLAYERS] {
        self.raw_outputs(accs, scratch, self.shape.outputs)
    }

    /// The first `outputs` outputs before tanh (the others 0).
    fn raw_outputs(
        &self,
        accs: &[Accumulator],
        scratch: &mut Scratch,
        outputs: usize,
    ) -> [i32; MAX_PLAYERS] {
        let s = &self.shape;
        assert_eq!(accs.len(), s.views(), "an evaluator's accumulators");
        scratch.h1.resize(s.units(), 0);
        scratch.z.resize(s.dense, 0);
        scratch.h2.resize(s.dense, 0);
        for (acc, h1) in accs.iter().zip(scratch.h1.chunks_mut(s.hidden)) {
            self.kernel.crelu(&acc.values, self.qa, h1);
        }
        if s.activation == Activation::Screlu {
            // x² / qa, rounded, by a multiply and a shift.
            let m = ((1 << 16) + self.qa as i32 / 2) / self.qa as i32;
            (scratch.h1.iter_mut())
                .for_each(|h| *h = ((*h as i32 * *h as i32 * m + (1 << 15)) >> 16) as i16);
        }
        let mut out = [0; MAX_PLAYERS];
        let top = match s.dense {
            0 => &scratch.h1,
            _ => {
                (self.kernel).dense(&scratch.h1, &self.l1_w, &self.l1_b, &mut scratch.z);
                for (h, z) in scratch.h2.iter_mut().zip(&scratch.z) {
                    *h = (z >> QB_SHIFT).clamp(0, self.qa as i32) as i16;
                }
                &scratch.h2
            }
        };
        // One or a few outputs: a dot product each (a vector form would pad them to a
        // register's width of outputs and cost the search an eighth of its speed).
        let n = top.len();
        for (k, o) in out.iter_mut().enumerate().take(outputs) {
            let row = &self.out_w[k * n..(k + 1) * n];
            *o = (row.iter().zip(top)).fold(self.out_b[k], |sum, (w, x)| {
                sum.wrapping_add(*w as i32 * *x as i32)
            });
        }
        out
    }

    /// The values (tanh, relative to the mover) of the position whose accumulators are
    /// `accs` ([`Evaluator::raw`]).
    pub fn evaluate(&self, accs: &[Accumulator], scratch: &mut Scratch) -> [f32; MAX_PLAYERS] {
        let raw = self.raw(accs, scratch);
        let mut out = [0.0; MAX_PLAYERS];
        for (o, &r) in out.iter_mut().zip(&raw).take(self.shape.outputs) {
            *o = self.squash(r);
        }
        out
    }

    /// The mover's value alone (output 0 of [`Evaluator::evaluate`]), without the
    /// other seats' outputs and their `tanh`.
    pub fn mover_value(&self, accs: &[Accumulator], scratch: &mut Scratch) -> f32 {
        self.squash(self.raw_outputs(accs, scratch, 1)[0])
    }

    /// An output's value: its integer before tanh back to the float scale, squashed.
    fn squash(&self, raw: i32) -> f32 {
        (raw as f32 / (self.qa as i32 * QB) as f32).tanh()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_integer_form_follows_the_float_one() {
        for activation in Activation::ALL {
            for dense in [16, 0] {
                for perspective in [false, true] {
                    follows(activation, dense, perspective);
                }
            }
        }
    }

    fn follows(activation: Activation, dense: usize, perspective: bool) {
        use crate::games::Game;
        let start = crate::games::ataxx::Ataxx::standard();
        let set = match perspective {
            false => FeatureSet::Tuples,
            true => FeatureSet::Windows,
        };
        let shape = EvalShape {
            game: "ataxx".into(),
            inputs: set.inputs(&start).unwrap(),
            hidden: 64,
            dense,
            outputs: 2,
            features: set,
            activation,
            perspective,
        };
        shape.check().unwrap();
        let net = FloatNet::random(shape, 3);
        let windows = if perspective { 0 } else { 4 + 45 + 49 };
        assert_eq!(set.set_of(&start).len(), windows + 36, "a feature a window");
        // Positions along a random game.
        let (mut state, mut rng, mut moves) = (start, crate::rng::Rng::new(5), Vec::new());
        let mut positions = Vec::new();
        while state.outcome().is_none() && positions.len() < 60 {
            positions.push(state);
            state.legal_actions(&mut moves);
            state.apply(moves[rng.below(moves.len())]).unwrap();
        }
        let mut errors = Vec::new();
        // The scale bundles written before `QA` name, and `QA`.
        for qa in [127, QA] {
            let eval = Evaluator::at_scale(&net, qa, Kernel::detect());
            let mut sum = 0.0;
            for p in &positions {
                let views = set.views_of(p, net.shape.views());
                let want = net.evaluate(&views);
                let mut scratch = Scratch::default();
                let accs = eval.accumulators(&views, &mut scratch);
                let got = eval.evaluate(&accs, &mut scratch);
                // Random weights spread wider than trained ones (which agree to 0.007
                // on real positions, experiments/nnue): a loose bound.
                for k in 0..2 {
                    assert!(
                        (got[k] - want[k]).abs() < 0.1,
                        "{activation:?}, {dense} dense, {perspective}, at {qa}: {got:?} vs {want:?}"
                    );
                    sum += (got[k] - want[k]).abs();
                }
            }
            errors.push(sum / positions.len() as f32);
        }
        assert!(
            errors[1] <= errors[0],
            "{activation:?}, {dense} dense: a finer scale, a smaller error: {errors:?}"
        );
    }
}
