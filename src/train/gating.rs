//! Gating and baseline measurements: matches between networks (as `model:` agents) and
//! against fixed agents, turned into [`MatchResult`]s.
//!
//! The candidate plays the best in colour-balanced pairs from random openings; it is
//! promoted when its score reaches the threshold. With `gating.sprt` the games are
//! played in rounds and a sequential probability ratio test (H0: `sprt_elo0`, H1:
//! `sprt_elo1` or the Elo of the threshold score, error rates `sprt_alpha` and
//! `sprt_beta`) may stop early; if it never decides, the threshold rule applies to all
//! games played. With `gating.baseline_games`, a candidate that passed also plays the
//! fixed baseline, as does the best, on the same openings: it is refused if it scores
//! more than `baseline_margin` below the best (a regression against the baseline). The
//! baseline is `baseline.spec`, or the one the caller names (the league's hardest
//! member, with `gating.baseline_league`).

use std::path::Path;

use super::metrics::MatchResult;
use crate::agents::{AgentSpec, Baselines};
use crate::arena::elo::{Sprt, SprtDecision, Stats, elo_from_score};
use crate::arena::{MatchConfig, play_sprt_match, run_match};
use crate::config::Config;
use crate::rng::{Rng, salt};

/// What gating decided, with the matches behind it.
#[derive(Debug, Clone, Default)]
pub struct Gate {
    /// The candidate against the best (`None` with `gating.games = 0`).
    pub vs_best: Option<MatchResult>,
    /// The candidate's and the best's results against the baseline (baseline gate only).
    pub baseline: Option<(MatchResult, MatchResult)>,
    /// Whether the candidate becomes the best.
    pub promote: bool,
}

/// A training match: no clock, the config's threads.
fn match_config(
    c: &Config,
    games: u32,
    seed: u64,
    opening_plies: u32,
    progress: bool,
) -> MatchConfig {
    MatchConfig {
        games,
        seed,
        threads: c.match_threads(),
        opening_plies,
        time_per_game: None,
        move_time: None,
        progress,
        partner: None,
    }
}

/// Whether a candidate scoring `candidate` against the baseline may replace a best
/// that scored `best` on the same openings: not more than `margin` below it.
pub fn baseline_allows(candidate: f64, best: f64, margin: f64) -> bool {
    candidate >= best - margin
}

/// Plays the candidate against the best (stopping early when the SPRT decides), then,
/// if it passed and the baseline gate is on, the candidate and the best against the
/// baseline (`baseline`, `baseline.spec` where `None`) on the same openings; promotes
/// only a candidate that passes both. The players are the networks at `candidate` and
/// `best` at `gating.simulations`.
#[allow(clippy::too_many_arguments)]
pub fn gate<G: Baselines>(
    start: &G,
    c: &Config,
    iteration: u32,
    candidate: &Path,
    best: &Path,
    best_iteration: u32,
    baseline: Option<&str>,
    progress: bool,
) -> anyhow::Result<Gate> {
    let sims = c.gating.simulations;
    let players = (
        AgentSpec::model(candidate, sims),
        AgentSpec::model(best, sims),
    );
    gate_players(
        start,
        c,
        iteration,
        players,
        best_iteration,
        baseline,
        progress,
    )
}

/// [`gate`] for any two players: the candidate `a` and the best `b` (the fast
/// evaluator's loop gates its alpha-beta players so).
pub fn gate_players<G: Baselines>(
    start: &G,
    c: &Config,
    iteration: u32,
    (a, b): (AgentSpec, AgentSpec),
    best_iteration: u32,
    baseline: Option<&str>,
    progress: bool,
) -> anyhow::Result<Gate> {
    let g = &c.gating;
    let (vs_best, mut promote) = if g.games == 0 {
        (None, true)
    } else {
        let (stats, promote) = against_best(start, c, iteration, (&a, &b), progress)?;
        let name = format!("best (iteration {best_iteration})");
        (Some(MatchResult::new(&name, stats)), promote)
    };
    let name = baseline.unwrap_or(&c.baseline.spec);
    let mut baseline = None;
    if promote && g.baseline_games > 0 {
        let spec: AgentSpec = name.parse()?;
        let seed = Rng::derive(c.run.seed ^ salt::BASELINE_GATE, iteration as u64);
        let config = match_config(c, g.baseline_games, seed, g.opening_plies, progress);
        let cand = run_match(start, &a, &spec, &config)?.overall;
        let prev = run_match(start, &b, &spec, &config)?.overall;
        promote = baseline_allows(cand.score, prev.score, g.baseline_margin);
        baseline = Some((MatchResult::new(name, cand), MatchResult::new(name, prev)));
    }
    Ok(Gate {
        vs_best,
        baseline,
        promote,
    })
}

/// The candidate `a` against the best `b`: W/D/L and whether it passed.
fn against_best<G: Baselines>(
    start: &G,
    c: &Config,
    iteration: u32,
    (a, b): (&AgentSpec, &AgentSpec),
    progress: bool,
) -> anyhow::Result<(Stats, bool)> {
    let g = &c.gating;
    let round = if g.sprt {
        (start.num_players() as u32 * c.match_threads() as u32).min(g.games)
    } else {
        g.games
    };
    let elo1 = if g.sprt_elo1 != 0.0 {
        g.sprt_elo1
    } else {
        elo_from_score(g.threshold)
            .unwrap_or(35.0)
            .max(g.sprt_elo0 + 1.0)
    };
    let sprt = Sprt {
        elo0: g.sprt_elo0,
        elo1,
        alpha: g.sprt_alpha,
        beta: g.sprt_beta,
    };
    let seed = Rng::derive(c.run.seed ^ salt::GATING, iteration as u64);
    let config = match_config(c, g.games, seed, g.opening_plies, progress);
    let test = g.sprt.then_some((sprt, round));
    let (report, _, decision) = play_sprt_match(start, a, b, &config, test)?;
    let stats = report.overall;
    let promote = match decision {
        SprtDecision::AcceptH1 => true,
        SprtDecision::AcceptH0 => false,
        SprtDecision::Continue => stats.score >= g.threshold,
    };
    Ok((stats, promote))
}

/// The best network against `opponent` (an agent spec) under the baseline settings.
pub fn measure<G: Baselines>(
    start: &G,
    c: &Config,
    iteration: u32,
    best: &Path,
    opponent: &str,
    progress: bool,
) -> anyhow::Result<MatchResult> {
    let bl = &c.baseline;
    let spec: AgentSpec = opponent.parse()?;
    let seed = Rng::derive(c.run.seed ^ salt::BASELINE, iteration as u64);
    let config = match_config(c, bl.games, seed, bl.opening_plies, progress);
    let report = run_match(
        start,
        &AgentSpec::model(best, bl.simulations),
        &spec,
        &config,
    )?;
    Ok(MatchResult::new(opponent, report.overall))
}
