//! [`Config::validate`]: every numeric range of [`FIELDS`] and the rules that tie fields
//! together, each error naming the field, the value and what is allowed.

use anyhow::bail;

use super::Config;
use super::fields::{Allowed, FIELDS, number, show, values};
use crate::agents::AgentSpec;
use crate::games::Game;
use crate::nn::NetShape;
use crate::nn::heads::Needs;

/// Games that every seat plays equally often: `v` a multiple of the players (`why` says more).
fn multiple(field: &str, v: u32, players: u32, why: &str) -> anyhow::Result<()> {
    if !v.is_multiple_of(players) {
        bail!("{field} = {v}: must be a multiple of {players}{why}");
    }
    Ok(())
}

/// Refuses an agent that does not play by itself.
fn by_itself(field: &str, spec: &AgentSpec) -> anyhow::Result<()> {
    if spec.is_interactive() {
        let text = spec.to_string();
        bail!("{field} = {text:?}: a training run needs an agent that plays by itself")
    }
    Ok(())
}

impl Config {
    /// Checks every field against [`FIELDS`] and the rules between fields.
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
        let values = values(self);
        for f in FIELDS.iter() {
            let Allowed::Range(lo, hi) = f.allowed else {
                continue;
            };
            // Playout caps' fast searches exist only when some moves are not full.
            if f.key == "mcts.fast_simulations" && self.mcts.full_search_fraction >= 1.0 {
                continue;
            }
            let v = values.get(f.key).and_then(number).expect("a numeric field");
            let (lo, hi) = (lo.value(&values), hi.value(&values));
            if !(lo..=hi).contains(&v) {
                let (v, lo, hi) = (show(v), show(lo), show(hi));
                bail!("{} = {v} is out of range: allowed {lo} ..= {hi}", f.key);
            }
        }
        if let Some(kind) = r.game.builtin() {
            self.check_seats(kind.players())?;
        }
        let g = &self.gating;
        if g.sprt && !(g.threshold > 0.5 && g.threshold < 1.0) {
            bail!(
                "gating.threshold = {}: with gating.sprt it must lie strictly between 0.5 and 1",
                g.threshold
            );
        }
        if g.sprt_elo1 != 0.0 && g.sprt_elo1 <= g.sprt_elo0 {
            bail!(
                "gating.sprt_elo1 = {}: must be above gating.sprt_elo0 = {} (or 0 for the threshold's Elo)",
                g.sprt_elo1,
                g.sprt_elo0
            );
        }
        let d = &self.distill;
        if d.lambda + d.teacher_value > 1.0 + 1e-9 {
            bail!(
                "distill.lambda + distill.teacher_value = {} + {}: the target's shares must sum to at most 1",
                d.lambda,
                d.teacher_value
            );
        }
        let league = AgentSpec::list(&self.selfplay.opponent)
            .map_err(|e| anyhow::anyhow!("selfplay.opponent: {e:#}"))?;
        league
            .iter()
            .try_for_each(|m| by_itself("selfplay.opponent", m))?;
        if self.gating.baseline_league
            && (league.is_empty() || self.selfplay.opponent_fraction <= 0.0)
        {
            bail!(
                "gating.baseline_league = true: the gate's baseline is the league member the network scores worst against in self-play, and it meets none (selfplay.opponent = {:?}, selfplay.opponent_fraction = {})",
                self.selfplay.opponent,
                self.selfplay.opponent_fraction
            );
        }
        let baseline = (self.baseline.spec.parse::<AgentSpec>())
            .map_err(|e| anyhow::anyhow!("baseline.spec: {e}"))?;
        by_itself("baseline.spec", &baseline)?;
        Ok(())
    }

    /// The network shape a run of this config trains for `start`: the `[network]`
    /// section's sizes, with each auxiliary head whose weight is above 0 (an error for a
    /// game without what the head needs: [`Game::owners`] or [`Game::score_vector`]).
    pub fn net_shape<G: Game>(&self, start: &G) -> anyhow::Result<NetShape> {
        let (n, t) = (&self.network, &self.train);
        let heads = t.head_weights().map(|_, &w| w > 0.0);
        for head in heads.present() {
            let lacks = match head.needs {
                Needs::Nothing => None,
                Needs::Owners => start
                    .owners()
                    .is_none()
                    .then_some("no map of who holds each cell"),
                Needs::Score => {
                    (start.score_vector().is_none()).then_some("no score beyond its result")
                }
            };
            if let Some(lacks) = lacks {
                anyhow::bail!("{}: the game '{}' has {lacks}", head.weight, start.name());
            }
        }
        let shape = NetShape::for_game(start, n.blocks, n.channels, n.value_hidden);
        let global_pool = n.global_pool;
        Ok(NetShape {
            global_pool,
            ..shape.with_heads(heads)
        })
    }

    /// The rules that depend on the game's number of players: match games come in
    /// multiples of it, so that every seat plays each opening. [`Config::validate`] checks
    /// them for a built-in game; whoever resolves a game a program adds checks them then.
    pub fn check_seats(&self, players: usize) -> anyhow::Result<()> {
        let players = players as u32;
        let g = &self.gating;
        let every_seat = " (each opening is played with the candidate in every seat)";
        multiple("gating.games", g.games, players, every_seat)?;
        multiple(
            "gating.baseline_games",
            g.baseline_games,
            players,
            " (every seat per opening)",
        )?;
        multiple("baseline.games", self.baseline.games, players, "")
    }
}
