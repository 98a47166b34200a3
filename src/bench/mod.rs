//! Speed figures for `contagion bench` ([`command`]: what each kind's flags, declared in
//! [`options`], ask for, as lines to print): rules engine and alpha-beta search; the endgame
//! solver in [`endgame`], the network in [`learning`], the low-precision forwards'
//! agreement with the float one in [`agree`], the fast evaluator and its player in
//! [`nnue`](mod@nnue), its training step in [`distill`](mod@distill).
//!
//! Every figure is the median of several timed rounds on one thread, so a noisy shared
//! machine moves it less; the spread (min–max) is printed beside it.

pub mod agree;
pub mod command;
pub mod distill;
pub mod dump;
pub mod endgame;
pub mod learning;
pub mod nnue;
pub mod options;
pub mod run;

use std::time::Instant;

use serde::Serialize;

use crate::agents::Baselines;
use crate::arena::random_opening;
use crate::games::perft::perft;
use crate::games::{Action, Game};
use crate::rng::Rng;
use crate::search::alphabeta::{AlphaBeta, SearchLimits};

/// A rate measured over several rounds.
#[derive(Debug, Clone, Serialize)]
pub struct Rate {
    /// What was measured.
    pub what: String,
    /// Its unit, per second.
    pub unit: String,
    /// The median over the rounds.
    pub median: f64,
    /// The slowest round.
    pub min: f64,
    /// The fastest round.
    pub max: f64,
    /// Rounds timed.
    pub rounds: usize,
}

impl std::fmt::Display for Rate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:<40} {:>14} {}/s  (median of {}, range {}–{})",
            self.what,
            group(self.median),
            self.unit,
            self.rounds,
            group(self.min),
            group(self.max)
        )
    }
}

/// 1234567.8 → "1,234,568".
fn group(x: f64) -> String {
    let digits = format!("{:.0}", x);
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// Runs `round` (which returns a count of work items) `rounds` times; rates per second.
fn measure(what: &str, unit: &str, rounds: usize, mut round: impl FnMut(usize) -> u64) -> Rate {
    let rates = (0..rounds)
        .map(|i| {
            let t0 = Instant::now();
            let count = round(i);
            count as f64 / t0.elapsed().as_secs_f64()
        })
        .collect();
    summarise(what, unit, rates)
}

/// The median and range of per-round rates.
fn summarise(what: &str, unit: &str, mut rates: Vec<f64>) -> Rate {
    let rounds = rates.len();
    rates.sort_by(f64::total_cmp);
    Rate {
        what: what.into(),
        unit: unit.into(),
        median: rates[rounds / 2],
        min: rates[0],
        max: rates[rounds - 1],
        rounds,
    }
}

/// Plays one random game to the end; returns the number of actions played.
pub fn random_playout<G: Game>(start: &G, rng: &mut Rng, buf: &mut Vec<Action>) -> u64 {
    let mut state = start.clone();
    let mut plies = 0;
    while state.outcome().is_none() {
        state.legal_actions(buf);
        let a = buf[rng.below(buf.len())];
        state.apply(a).expect("legal");
        plies += 1;
    }
    plies
}

/// Rules-engine figures: random playouts (and their plies) per second, perft nodes per second.
pub fn rules<G: Game>(start: &G, playouts: usize, perft_depth: u32, rounds: usize) -> Vec<Rate> {
    let mut buf = Vec::with_capacity(512);
    let (mut games, mut plies) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let mut rng = Rng::new(round as u64);
        let t0 = Instant::now();
        let n: u64 = (0..playouts)
            .map(|_| random_playout(start, &mut rng, &mut buf))
            .sum();
        let secs = t0.elapsed().as_secs_f64();
        games.push(playouts as f64 / secs);
        plies.push(n as f64 / secs);
    }
    vec![
        summarise("random playouts", "games", games),
        summarise("random playout plies (generate + apply)", "plies", plies),
        measure(
            &format!("perft({perft_depth}) leaf nodes"),
            "nodes",
            rounds,
            |_| perft(start, perft_depth),
        ),
    ]
}

/// Mid-game positions for search benchmarks and tests: `count` seeded random openings of
/// `ply` actions ([`random_opening`]) that leave the game running.
///
/// # Panics
/// When `ply` is too long for a random game to survive (see [`random_opening`]).
pub fn sample_positions<G: Game>(start: &G, count: usize, ply: u32, seed: u64) -> Vec<G> {
    (0..count as u64)
        .map(|i| {
            let line =
                random_opening(start, ply, Rng::derive(seed, i)).expect("a live random line");
            let mut s = start.clone();
            for a in line {
                s.apply(a).expect("legal");
            }
            s
        })
        .collect()
}

/// Alpha-beta nodes per second at a fixed depth over sampled positions.
pub fn search<G: Baselines>(start: &G, depth: u32, positions: usize, rounds: usize) -> Vec<Rate> {
    let heuristic = G::Heuristic::default();
    let positions = sample_positions(start, positions, 12, 2023);
    let mut ab = AlphaBeta::new(&heuristic, true);
    let limits = SearchLimits::depth(depth);
    vec![measure(
        &format!("alpha-beta depth {depth} nodes"),
        "nodes",
        rounds,
        |_| {
            positions
                .iter()
                .map(|p| ab.search(p, limits.clone()).map_or(0, |r| r.nodes))
                .sum()
        },
    )]
}
