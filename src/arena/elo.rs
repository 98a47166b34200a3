//! Match statistics: score, Elo difference and its 95% interval.
//!
//! The interval is a Wilson score interval on the match score, using the per-game score
//! variance of the trinomial (win 1, draw ½, loss 0) in place of `s(1 − s)`, mapped
//! through the logistic Elo curve. Unlike the plain normal approximation it stays
//! meaningful at the extremes: 8 wins out of 8 give a finite lower bound.

use serde::{Deserialize, Serialize};

/// The Elo difference for an expected score `s` in `(0, 1)`; `None` at 0 or 1 (infinite).
pub fn elo_from_score(s: f64) -> Option<f64> {
    (s > 0.0 && s < 1.0).then(|| -400.0 * (1.0 / s - 1.0).log10())
}

const Z95: f64 = 1.96;

/// The 95% Wilson interval for a mean score `s` with per-game variance `var` over `n` games.
fn wilson(s: f64, var: f64, n: f64) -> (f64, f64) {
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n;
    let centre = (s + z2 / (2.0 * n)) / denom;
    let half = Z95 * (var / n + z2 / (4.0 * n * n)).sqrt() / denom;
    // At a score of exactly 0 or 1 one end is exactly 0 or 1 in theory; snap the
    // rounding error so that it reads as unbounded, not as +6000 Elo.
    let snap = |x: f64| {
        if x < 1e-9 {
            0.0
        } else if x > 1.0 - 1e-9 {
            1.0
        } else {
            x
        }
    };
    (snap(centre - half), snap(centre + half))
}

/// W/D/L from one side's point of view, with derived figures.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
    /// (wins + draws / 2) / games.
    pub score: f64,
    /// Elo difference; `null` when the score is 0 or 1.
    pub elo: Option<f64>,
    /// 95% interval of the Elo difference; an end is `null` when it is infinite.
    pub elo_low: Option<f64>,
    /// The interval's upper end; `null` when it is infinite.
    pub elo_high: Option<f64>,
}

impl Stats {
    /// The figures of `wins`, `draws` and `losses`.
    pub fn new(wins: u32, draws: u32, losses: u32) -> Stats {
        let n = (wins + draws + losses) as f64;
        if n == 0.0 {
            return Stats {
                wins,
                draws,
                losses,
                score: 0.5,
                elo: Some(0.0),
                elo_low: None,
                elo_high: None,
            };
        }
        let s = (wins as f64 + 0.5 * draws as f64) / n;
        let var = (wins as f64 * (1.0 - s).powi(2)
            + draws as f64 * (0.5 - s).powi(2)
            + losses as f64 * s.powi(2))
            / n;
        let (low, high) = wilson(s, var, n);
        Stats {
            wins,
            draws,
            losses,
            score: s,
            elo: elo_from_score(s),
            elo_low: elo_from_score(low),
            elo_high: elo_from_score(high),
        }
    }

    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// `+35.2 [+10.1, +60.8]`, with `inf` where the figure is unbounded.
    pub fn elo_text(&self) -> String {
        let f = |v: Option<f64>, inf: &str| v.map_or(inf.to_string(), |x| format!("{x:+.1}"));
        let centre = f(self.elo, if self.score >= 1.0 { "+inf" } else { "-inf" });
        format!(
            "{centre} [{}, {}]",
            f(self.elo_low, "-inf"),
            f(self.elo_high, "+inf")
        )
    }
}

/// The expected score for an Elo difference.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// A sequential probability ratio test of H0: Elo = `elo0` against H1: Elo = `elo1`,
/// with error rates `alpha` (accepting H1 wrongly) and `beta` (accepting H0 wrongly).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sprt {
    /// The Elo difference under H0.
    pub elo0: f64,
    /// The Elo difference under H1.
    pub elo1: f64,
    /// The chance of accepting H1 when H0 holds.
    pub alpha: f64,
    /// The chance of accepting H0 when H1 holds.
    pub beta: f64,
}

/// What an SPRT says after some games.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SprtDecision {
    /// The log-likelihood ratio reached the upper bound: H1.
    AcceptH1,
    /// The log-likelihood ratio reached the lower bound: H0.
    AcceptH0,
    /// Neither bound yet: play on.
    Continue,
}

impl Sprt {
    /// The log-likelihood ratio of the games so far (the generalised SPRT's normal
    /// approximation on the trinomial score, as chess engine testing uses).
    pub fn llr(&self, s: &Stats) -> f64 {
        let n = s.games() as f64;
        if n == 0.0 {
            return 0.0;
        }
        let mean = s.score;
        let var = (s.wins as f64 * (1.0 - mean).powi(2)
            + s.draws as f64 * (0.5 - mean).powi(2)
            + s.losses as f64 * mean.powi(2))
            / n;
        // No spread yet (all results equal): use a small floor so one-sided runs decide.
        let var = var.max(1e-3);
        let (s0, s1) = (score_from_elo(self.elo0), score_from_elo(self.elo1));
        n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
    }

    /// The test's decision after the games in `s`.
    pub fn decide(&self, s: &Stats) -> SprtDecision {
        let llr = self.llr(s);
        if llr >= ((1.0 - self.beta) / self.alpha).ln() {
            SprtDecision::AcceptH1
        } else if llr <= (self.beta / (1.0 - self.alpha)).ln() {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sprt_decides_clear_results_and_waits_on_close_ones() {
        use super::{Sprt, SprtDecision, Stats};
        let t = Sprt {
            elo0: 0.0,
            elo1: 35.0,
            alpha: 0.05,
            beta: 0.05,
        };
        assert_eq!(t.decide(&Stats::new(30, 4, 6)), SprtDecision::AcceptH1);
        assert_eq!(t.decide(&Stats::new(6, 4, 30)), SprtDecision::AcceptH0);
        assert_eq!(t.decide(&Stats::new(5, 0, 5)), SprtDecision::Continue);
        assert_eq!(t.decide(&Stats::new(0, 0, 0)), SprtDecision::Continue);
    }

    use super::*;

    #[test]
    fn even_score_is_zero_elo() {
        let s = Stats::new(10, 0, 10);
        assert_eq!(s.score, 0.5);
        assert!(s.elo.unwrap().abs() < 1e-9);
        assert!(s.elo_low.unwrap() < 0.0 && s.elo_high.unwrap() > 0.0);
    }

    #[test]
    fn known_scores_give_known_elo() {
        // 75% is +190.8 Elo.
        let s = Stats::new(3, 0, 1);
        assert!((s.elo.unwrap() - 190.848).abs() < 0.01);
        // Wilson for 3-1 (var 0.1875): centre 0.62752, half 0.32689.
        let (lo, hi) = wilson(0.75, 0.1875, 4.0);
        assert!(
            (lo - 0.30063).abs() < 1e-4 && (hi - 0.95441).abs() < 1e-4,
            "{lo} {hi}"
        );
        assert_eq!(s.elo_low, elo_from_score(lo));
    }

    #[test]
    fn a_sweep_of_100_games_is_unbounded_above_not_6000_elo() {
        let s = Stats::new(100, 0, 0);
        assert_eq!(s.elo_high, None);
        assert!(s.elo_low.unwrap() > 500.0);
        let s = Stats::new(0, 0, 100);
        assert_eq!(s.elo_low, None);
        assert!(s.elo_high.unwrap() < -500.0);
    }

    #[test]
    fn a_clean_sweep_has_a_finite_lower_bound() {
        let s = Stats::new(8, 0, 0);
        assert_eq!(s.elo, None);
        assert_eq!(s.elo_high, None);
        // Lower end n / (n + z²) = 8 / 11.8416.
        let expected = elo_from_score(8.0 / (8.0 + 1.96 * 1.96)).unwrap();
        assert!((s.elo_low.unwrap() - expected).abs() < 1e-9);
        assert_eq!(s.elo_text(), format!("+inf [{expected:+.1}, +inf]"));
    }
}
