//! Policy-surprise weighting (KataGo, "Accelerating Self-Play Learning in Go", 2019,
//! and its methods notes): positions whose search target the network's prior predicted
//! badly are drawn for training more often.
//!
//! A position's surprise is `KL(target ‖ prior)`, the prior being the trainer's network's
//! policy over the legal moves when the position entered the replay window (under
//! `selfplay.network = "latest"` the network that played it; on resume the resumed one).
//! With `train.policy_surprise_weight = f`, a position is drawn with probability
//! proportional to `(1 − f) + f · min(KL / mean KL, CAP)` (the mean over the window):
//! at `f = 0` uniformly, at KataGo's 0.5 half of the draws by surprise.

use std::collections::VecDeque;

use super::Sample;
use crate::games::{Action, Game};
use crate::nn::Net;
use crate::nn::evaluator::legal_softmax;
use crate::rng::Rng;

/// A position's surprise counts at most this many times the window's mean.
pub const CAP: f32 = 5.0;

/// Positions measured per forward.
const BATCH: usize = 256;

/// The window's surprises, in the replay buffer's order.
#[derive(Debug, Clone, Default)]
pub struct Surprise {
    /// `train.policy_surprise_weight`: 0 draws uniformly and measures nothing.
    weight: f32,
    /// One per position of the window: its KL, NaN until measured.
    kl: VecDeque<f32>,
    /// The sum of the measured KLs, and how many there are.
    sum: f64,
    measured: usize,
}

/// `KL(target ‖ softmax of logits over legal)`, in nats.
pub fn kl(target: &[(Action, f32)], logits: &[f32], legal: &[Action]) -> f32 {
    let prior = legal_softmax(logits, legal);
    let mut out = 0.0f64;
    for &(a, t) in target.iter().filter(|&&(_, t)| t > 0.0) {
        let p = legal.binary_search(&a).map_or(0.0, |i| prior[i]).max(1e-9);
        out += t as f64 * (t as f64 / p as f64).ln();
    }
    out.max(0.0) as f32
}

impl Surprise {
    /// Weights draws by `weight` (in `[0, 1]`) from now on.
    pub fn set_weight(&mut self, weight: f32) {
        self.weight = weight;
    }

    /// Whether draws are weighted (and positions measured).
    pub fn active(&self) -> bool {
        self.weight > 0.0
    }

    /// `n` positions joined the window's end, not yet measured.
    pub fn push(&mut self, n: usize) {
        self.kl.extend(std::iter::repeat_n(f32::NAN, n));
    }

    /// The window's first position left it.
    pub fn pop_front(&mut self) {
        if let Some(k) = self.kl.pop_front().filter(|k| !k.is_nan()) {
            self.sum -= k as f64;
            self.measured -= 1;
        }
    }

    /// Measures every position of `samples` (the window, in order) not measured yet,
    /// with `net`'s prior.
    pub fn measure<'a, G: Game>(
        &mut self,
        net: &Net,
        samples: impl Iterator<Item = &'a Sample<G>>,
    ) {
        if !self.active() {
            return;
        }
        let todo: Vec<(usize, &Sample<G>)> = samples
            .enumerate()
            .filter(|&(i, _)| self.kl[i].is_nan())
            .collect();
        let (len, actions) = (net.shape.input_len(), net.shape.actions());
        let mut legal = Vec::new();
        for chunk in todo.chunks(BATCH) {
            let mut input = vec![0.0; chunk.len() * len];
            for ((_, s), x) in chunk.iter().zip(input.chunks_mut(len)) {
                s.state.encode(x);
            }
            let out = net.infer(input, chunk.len());
            for (&(i, s), logits) in chunk.iter().zip(out.logits.chunks(actions)) {
                s.state.legal_actions(&mut legal);
                let k = kl(&s.policy, logits, &legal);
                self.kl[i] = k;
                self.sum += k as f64;
                self.measured += 1;
            }
        }
    }

    /// The index of a position of the window (`len` positions), drawn uniformly, or by
    /// surprise where weighting is on (by rejection: an unmeasured position counts as
    /// the mean).
    pub fn draw(&self, len: usize, rng: &mut Rng) -> usize {
        if !self.active() || self.measured == 0 || self.sum <= 0.0 {
            return rng.below(len);
        }
        let (f, mean) = (self.weight, (self.sum / self.measured as f64) as f32);
        let most = (1.0 - f) + f * CAP;
        loop {
            let i = rng.below(len);
            let k = self.kl.get(i).copied().unwrap_or(f32::NAN);
            let r = if k.is_nan() { 1.0 } else { (k / mean).min(CAP) };
            if (rng.unit() as f32) * most < (1.0 - f) + f * r {
                return i;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kl_is_zero_for_a_target_equal_to_the_prior_and_grows_with_the_gap() {
        let legal = [2, 5, 7];
        let logits = [0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0];
        let even = [(2, 1.0 / 3.0), (5, 1.0 / 3.0), (7, 1.0 / 3.0)];
        assert!(kl(&even, &logits, &legal).abs() < 1e-6);
        let one = [(5, 1.0)];
        assert!((kl(&one, &logits, &legal) - 3f32.ln()).abs() < 1e-5);
    }

    #[test]
    fn draws_follow_the_surprise() {
        let mut s = Surprise::default();
        s.set_weight(1.0);
        s.push(2);
        // Position 0 measured at KL 1, position 1 at KL 3: drawn 1 : 3.
        for (i, k) in [(0, 1.0), (1, 3.0)] {
            s.kl[i] = k;
            s.sum += k as f64;
            s.measured += 1;
        }
        let mut rng = Rng::new(1);
        let ones = (0..20_000).filter(|_| s.draw(2, &mut rng) == 1).count();
        assert!((ones as f64 / 20_000.0 - 0.75).abs() < 0.02, "{ones}");
        s.pop_front();
        assert_eq!((s.measured, s.sum), (1, 3.0));
        assert!(!Surprise::default().active());
    }
}
