//! [`Config::validate`]: every numeric range and every enumerated value of a
//! [`Config`], each error naming the field, the value and what is allowed.

use anyhow::bail;

use super::Config;
use crate::agents::AgentSpec;

fn range<T: PartialOrd + Copy + std::fmt::Display>(
    field: &str,
    v: T,
    lo: T,
    hi: T,
) -> anyhow::Result<()> {
    if !(lo..=hi).contains(&v) {
        bail!("{field} = {v} is out of range: allowed {lo} ..= {hi}");
    }
    Ok(())
}

/// Games that every seat plays equally often: `v` a multiple of the players (`why` says more).
fn multiple(field: &str, v: u32, players: u32, why: &str) -> anyhow::Result<()> {
    if !v.is_multiple_of(players) {
        bail!("{field} = {v}: must be a multiple of {players}{why}");
    }
    Ok(())
}

impl Config {
    /// Checks every numeric range and every enumerated value.
    pub fn validate(&self) -> anyhow::Result<()> {
        let r = &self.run;
        if r.name.is_empty()
            || !r
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            || r.name.starts_with('.')
        {
            bail!(
                "run.name = {:?}: use letters, digits, '-', '_' or '.' (it names the run directory)",
                r.name
            );
        }
        let players = r.game.players() as u32;
        range("run.iterations", r.iterations, 1, 1_000_000)?;
        range("run.max_minutes", r.max_minutes, 0.0, 1e6)?;
        range("run.keep_checkpoints", r.keep_checkpoints, 1, 1000)?;
        let n = &self.network;
        range("network.blocks", n.blocks, 0, 40)?;
        range("network.channels", n.channels, 4, 512)?;
        range("network.value_hidden", n.value_hidden, 4, 1024)?;
        let m = &self.mcts;
        range("mcts.simulations", m.simulations, 1, 100_000)?;
        range("mcts.c_puct", m.c_puct, 0.0, 100.0)?;
        range("mcts.fpu_reduction", m.fpu_reduction, 0.0, 2.0)?;
        range("mcts.dirichlet_alpha", m.dirichlet_alpha, 0.001, 100.0)?;
        range("mcts.dirichlet_fraction", m.dirichlet_fraction, 0.0, 1.0)?;
        range("mcts.temperature_plies", m.temperature_plies, 0, 10_000)?;
        range("mcts.leaves_per_tree", m.leaves_per_tree, 1, 64)?;
        range("mcts.gumbel_actions", m.gumbel_actions, 1, 4096)?;
        range("mcts.gumbel_c_visit", m.gumbel_c_visit, 0.0, 10_000.0)?;
        range("mcts.gumbel_c_scale", m.gumbel_c_scale, 0.001, 1000.0)?;
        range(
            "mcts.full_search_fraction",
            m.full_search_fraction,
            0.01,
            1.0,
        )?;
        if m.full_search_fraction < 1.0 {
            range(
                "mcts.fast_simulations",
                m.fast_simulations,
                1,
                m.simulations,
            )?;
        }
        let s = &self.selfplay;
        range(
            "selfplay.games_per_iteration",
            s.games_per_iteration,
            1,
            1_000_000,
        )?;
        range("selfplay.workers", s.workers, 0, 256)?;
        range("selfplay.concurrent_games", s.concurrent_games, 1, 4096)?;
        range("selfplay.cache_size", s.cache_size, 0, 100_000_000)?;
        range("selfplay.resign_threshold", s.resign_threshold, -1.0, 0.0)?;
        range("selfplay.resign_moves", s.resign_moves, 0, 1000)?;
        range(
            "selfplay.resign_check_fraction",
            s.resign_check_fraction,
            0.0,
            1.0,
        )?;
        range("selfplay.max_plies", s.max_plies, 0, 1_000_000)?;
        range(
            "selfplay.max_plies_iterations",
            s.max_plies_iterations,
            0,
            1_000_000,
        )?;
        range("selfplay.score_weight", s.score_weight, 0.0, 1.0)?;
        match s.opponent.parse::<AgentSpec>() {
            Err(e) => bail!("selfplay.opponent: {e}"),
            Ok(spec) if spec.is_interactive() => bail!(
                "selfplay.opponent = {:?}: self-play needs an agent that plays by itself",
                s.opponent
            ),
            Ok(_) => {}
        }
        range("selfplay.opponent_fraction", s.opponent_fraction, 0.0, 1.0)?;
        range("selfplay.draw_value", s.draw_value, -1.0, 1.0)?;
        let b = &self.replay;
        range("replay.window", b.window, 1, 100_000_000)?;
        range("replay.min_positions", b.min_positions, 1, b.window.max(1))?;
        let t = &self.train;
        range("train.batch_size", t.batch_size, 1, 65_536)?;
        range("train.replay_ratio", t.replay_ratio, 0.0, 1000.0)?;
        range(
            "train.max_steps_per_iteration",
            t.max_steps_per_iteration,
            0,
            10_000_000,
        )?;
        range("train.learning_rate", t.learning_rate, 1e-7, 10.0)?;
        range("train.lr_min", t.lr_min, 0.0, t.learning_rate)?;
        range("train.lr_decay_steps", t.lr_decay_steps, 0, u64::MAX / 2)?;
        range("train.momentum", t.momentum, 0.0, 0.999)?;
        range("train.weight_decay", t.weight_decay, 0.0, 1.0)?;
        range("train.value_weight", t.value_weight, 0.0, 100.0)?;
        range("train.value_target_mix", t.value_target_mix, 0.0, 1.0)?;
        range("train.value_horizon", t.value_horizon, 0, 100_000)?;
        range("train.threads", t.threads, 0, crate::limits::MAX_THREADS)?;
        let g = &self.gating;
        range("gating.games", g.games, 0, 100_000)?;
        multiple(
            "gating.games",
            g.games,
            players,
            " (each opening is played with the candidate in every seat)",
        )?;
        range("gating.threshold", g.threshold, 0.0, 1.0)?;
        if g.sprt && !(g.threshold > 0.5 && g.threshold < 1.0) {
            bail!(
                "gating.threshold = {}: with gating.sprt it must lie strictly between 0.5 and 1",
                g.threshold
            );
        }
        range("gating.simulations", g.simulations, 1, 100_000)?;
        range("gating.opening_plies", g.opening_plies, 0, 40)?;
        range("gating.sprt_elo0", g.sprt_elo0, -1000.0, 1000.0)?;
        range("gating.sprt_elo1", g.sprt_elo1, -1000.0, 1000.0)?;
        if g.sprt_elo1 != 0.0 && g.sprt_elo1 <= g.sprt_elo0 {
            bail!(
                "gating.sprt_elo1 = {}: must be above gating.sprt_elo0 = {} (or 0 for the threshold's Elo)",
                g.sprt_elo1,
                g.sprt_elo0
            );
        }
        range("gating.sprt_alpha", g.sprt_alpha, 0.001, 0.5)?;
        range("gating.sprt_beta", g.sprt_beta, 0.001, 0.5)?;
        range("gating.baseline_games", g.baseline_games, 0, 100_000)?;
        multiple(
            "gating.baseline_games",
            g.baseline_games,
            players,
            " (every seat per opening)",
        )?;
        range("gating.baseline_margin", g.baseline_margin, 0.0, 1.0)?;
        let bl = &self.baseline;
        range("baseline.every", bl.every, 0, 1_000_000)?;
        bl.spec
            .parse::<AgentSpec>()
            .map_err(|e| anyhow::anyhow!("baseline.spec: {e}"))?;
        range("baseline.games", bl.games, 0, 100_000)?;
        multiple("baseline.games", bl.games, players, "")?;
        range("baseline.simulations", bl.simulations, 1, 100_000)?;
        range("baseline.opening_plies", bl.opening_plies, 0, 40)?;
        Ok(())
    }
}
