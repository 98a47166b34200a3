//! Gating and baseline measurements: matches between networks (as `model:` agents) and
//! against fixed agents, turned into [`MatchResult`]s.
//!
//! The candidate plays the best in colour-balanced pairs from random openings; it is
//! promoted when its score reaches the threshold. With `gating.sprt` the games are
//! played in rounds and a sequential probability ratio test (H0: Elo 0, H1: the Elo of
//! the threshold score, 5% error each way) may stop early; if it never decides, the
//! threshold rule applies to all games played.

use std::path::Path;

use super::metrics::MatchResult;
use crate::agents::{AgentSpec, Baselines};
use crate::arena::elo::{Sprt, SprtDecision, Stats, elo_from_score};
use crate::arena::{MatchConfig, run_match};
use crate::config::Config;
use crate::rng::Rng;

/// The `model:` agent for a checkpoint.
pub fn model(path: &Path, sims: u32) -> AgentSpec {
    AgentSpec::Model {
        path: path.to_path_buf(),
        sims,
    }
}

/// Plays the candidate against the best; returns the result and whether to promote.
pub fn gate<G: Baselines>(
    start: &G,
    c: &Config,
    iteration: u32,
    candidate: &Path,
    best: &Path,
    best_iteration: u32,
    progress: bool,
) -> anyhow::Result<(Option<MatchResult>, bool)> {
    let g = &c.gating;
    if g.games == 0 {
        return Ok((None, true));
    }
    let (a, b) = (model(candidate, g.simulations), model(best, g.simulations));
    let round = if g.sprt {
        (start.num_players() as u32 * c.match_threads() as u32).min(g.games)
    } else {
        g.games
    };
    let sprt = Sprt {
        elo0: 0.0,
        elo1: elo_from_score(g.threshold).unwrap_or(35.0).max(1.0),
        alpha: 0.05,
        beta: 0.05,
    };
    let (mut w, mut d, mut l) = (0, 0, 0);
    let mut decision = SprtDecision::Continue;
    let mut played = 0;
    while played < g.games && decision == SprtDecision::Continue {
        let games = round.min(g.games - played);
        let config = MatchConfig {
            games,
            seed: Rng::derive(
                c.run.seed ^ 0x6A7E,
                ((iteration as u64) << 20) + played as u64,
            ),
            threads: c.match_threads(),
            opening_plies: g.opening_plies,
            time_per_game: None,
            progress,
        };
        let s = run_match(start, &a, &b, &config)?.overall;
        (w, d, l) = (w + s.wins, d + s.draws, l + s.losses);
        played += games;
        if g.sprt {
            decision = sprt.decide(&Stats::new(w, d, l));
        }
    }
    let stats = Stats::new(w, d, l);
    let promote = match decision {
        SprtDecision::AcceptH1 => true,
        SprtDecision::AcceptH0 => false,
        SprtDecision::Continue => stats.score >= g.threshold,
    };
    Ok((
        Some(MatchResult::new(
            &format!("best (iteration {best_iteration})"),
            stats,
        )),
        promote,
    ))
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
    let config = MatchConfig {
        games: bl.games,
        seed: Rng::derive(c.run.seed ^ 0xBA5E, iteration as u64),
        threads: c.match_threads(),
        opening_plies: bl.opening_plies,
        time_per_game: None,
        progress,
    };
    let report = run_match(start, &model(best, bl.simulations), &spec, &config)?;
    Ok(MatchResult::new(opponent, report.overall))
}
