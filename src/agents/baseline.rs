//! The game-independent baseline agents: random, greedy and alpha-beta / minimax.

use std::time::{Duration, Instant};

use super::{Agent, Baselines, Limits};
use crate::games::{Action, Game};
use crate::rng::Rng;
use crate::search::alphabeta::{AlphaBeta, SearchLimits, SearchResult};
use crate::search::maxn::{MaxnResult, maxn};

/// A uniformly random legal move.
pub struct RandomAgent {
    rng: Rng,
    moves: Vec<Action>,
}

impl RandomAgent {
    pub fn new(seed: u64) -> Self {
        RandomAgent {
            rng: Rng::new(seed),
            moves: Vec::new(),
        }
    }
}

impl<G: Game> Agent<G> for RandomAgent {
    fn name(&self) -> String {
        "random".into()
    }

    fn select(&mut self, state: &G, _: &Limits) -> anyhow::Result<Action> {
        state.legal_actions(&mut self.moves);
        self.rng
            .choose(&self.moves)
            .ok_or_else(|| anyhow::anyhow!("no legal move: the game is over"))
    }
}

/// The game's greedy move ([`Baselines::greedy_action`]).
pub struct GreedyAgent {
    rng: Rng,
}

impl GreedyAgent {
    pub fn new(seed: u64) -> Self {
        GreedyAgent {
            rng: Rng::new(seed),
        }
    }
}

impl<G: Baselines> Agent<G> for GreedyAgent {
    fn name(&self) -> String {
        "greedy".into()
    }

    fn select(&mut self, state: &G, _: &Limits) -> anyhow::Result<Action> {
        anyhow::ensure!(state.outcome().is_none(), "no legal move: the game is over");
        Ok(state.greedy_action(&mut self.rng))
    }
}

/// Alpha-beta (or, without pruning, minimax) over the game's heuristic.
pub struct AlphaBetaAgent<G: Baselines> {
    name: String,
    heuristic: G::Heuristic,
    pruning: bool,
    depth: Option<u32>,
    ms: Option<u64>,
    nodes: Option<u64>,
    last: Option<(SearchResult, Duration)>,
}

impl<G: Baselines> AlphaBetaAgent<G> {
    pub fn new(
        name: String,
        pruning: bool,
        depth: Option<u32>,
        ms: Option<u64>,
        nodes: Option<u64>,
    ) -> Self {
        AlphaBetaAgent {
            name,
            heuristic: G::Heuristic::default(),
            pruning,
            depth,
            ms,
            nodes,
            last: None,
        }
    }

    /// The search limits for one move: the `go` command's limits replace the spec's of
    /// the same kind, and the whole-game clock caps the move at `time_left / turns_left`.
    fn search_limits(&self, state: &G, limits: &Limits, start: Instant) -> SearchLimits {
        let budget = super::move_budget(state, limits, self.ms.map(Duration::from_millis));
        SearchLimits {
            depth: limits.depth.or(self.depth),
            nodes: limits.nodes.or(self.nodes),
            // A budget too large to add to the clock means no deadline at all.
            deadline: budget.and_then(|b| start.checked_add(b)),
            stop: limits.stop,
        }
    }
}

impl<G: Baselines> Agent<G> for AlphaBetaAgent<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn select(&mut self, state: &G, limits: &Limits) -> anyhow::Result<Action> {
        let start = Instant::now();
        let search_limits = self.search_limits(state, limits, start);
        let mut search = AlphaBeta::new(&self.heuristic, self.pruning);
        let result = search
            .search(state, search_limits)
            .ok_or_else(|| anyhow::anyhow!("no legal move: the game is over"))?;
        self.last = Some((result, start.elapsed()));
        Ok(result.best)
    }

    fn last_info(&self) -> Option<String> {
        self.last.map(|(r, t)| {
            format!(
                "depth {} nodes {} score {:.0} time {}",
                r.depth,
                r.nodes,
                r.score,
                t.as_millis()
            )
        })
    }
}

/// Max^n to a fixed depth over the game's heuristic (each player maximises their own
/// evaluation): the three-player baseline beside paranoid alpha-beta.
pub struct MaxnAgent<G: Baselines> {
    name: String,
    heuristic: G::Heuristic,
    depth: u32,
    last: Option<(MaxnResult, usize, Duration)>,
}

impl<G: Baselines> MaxnAgent<G> {
    pub fn new(name: String, depth: u32) -> Self {
        MaxnAgent {
            name,
            heuristic: G::Heuristic::default(),
            depth,
            last: None,
        }
    }
}

impl<G: Baselines> Agent<G> for MaxnAgent<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn select(&mut self, state: &G, limits: &Limits) -> anyhow::Result<Action> {
        let start = Instant::now();
        let depth = limits.depth.unwrap_or(self.depth);
        let result = maxn(state, &self.heuristic, depth)
            .ok_or_else(|| anyhow::anyhow!("no legal move: the game is over"))?;
        self.last = Some((result, state.to_move(), start.elapsed()));
        Ok(result.best)
    }

    fn last_info(&self) -> Option<String> {
        self.last.map(|(r, me, t)| {
            format!(
                "depth {} nodes {} score {:.0} time {}",
                self.depth,
                r.nodes,
                r.scores[me],
                t.as_millis()
            )
        })
    }
}
