//! The search's scores: an evaluator's value in `[-1, 1]` as an integer, on the value's
//! own scale or its logit's, and the scores of forced results.

/// A value of 1.0 in the search's integers.
pub const EVAL_SCALE: f32 = 1000.0;
/// The score of a game won at the root (less one a ply to reach it).
pub const WIN: i32 = 100_000;
/// Above every score.
pub(super) const INF: i32 = WIN + 1;
/// On the logit scale, values are kept within ±this (a score within ±4.95 · EVAL_SCALE).
const LOGIT_CLIP: f32 = 0.9999;
/// Scores this close to [`WIN`] are forced results.
pub(super) const WIN_BOUND: i32 = WIN - 1000;

/// The search's score of a value `v` in [-1, 1]: on a value's scale, or its logit's.
pub fn score_of(v: f32, logit: bool) -> i32 {
    let s = match logit {
        false => v.clamp(-1.0, 1.0),
        true => v.clamp(-LOGIT_CLIP, LOGIT_CLIP).atanh(),
    };
    (s * EVAL_SCALE).round() as i32
}

/// The value of a score that is not a forced result: [`score_of`]'s inverse.
pub fn value_of(score: i32, logit: bool) -> f32 {
    let s = score as f32 / EVAL_SCALE;
    match logit {
        false => s,
        true => s.tanh(),
    }
}
