//! The game-independent baseline agents: random, greedy and alpha-beta / minimax.

use std::time::{Duration, Instant};

use super::{Agent, AgentOption, Baselines, Limits, Score, SearchInfo};
use crate::games::{Action, Game};
use crate::limits::{MAX_MOVE_MS, MAX_NODES, MAX_SEARCH_DEPTH};
use crate::rng::Rng;
use crate::search::alphabeta::{AlphaBeta, SearchLimits, SearchResult, WIN_SCORE};
use crate::search::maxn::{MaxnResult, maxn};

/// A uniformly random legal move.
pub struct RandomAgent {
    rng: Rng,
    moves: Vec<Action>,
}

impl RandomAgent {
    /// A random agent whose choices follow `seed`.
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
    /// A greedy agent; `seed` breaks ties.
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
    best_reply: bool,
    depth: Option<u32>,
    ms: Option<u64>,
    nodes: Option<u64>,
    /// The last search, its time and the number of players.
    last: Option<(SearchResult, Duration, usize)>,
}

impl<G: Baselines> AlphaBetaAgent<G> {
    /// An alpha-beta agent named `name` for reports, searching to the given limits.
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
            best_reply: false,
            depth,
            ms,
            nodes,
            last: None,
        }
    }

    /// Searches as best-reply search ([`AlphaBeta::best_reply`]) rather than paranoid.
    pub fn set_best_reply(&mut self, on: bool) {
        self.best_reply = on;
    }

    /// The search limits for one move: the `go` command's limits replace the spec's of
    /// the same kind, and the whole-game clock caps the move at `time_left / turns_left`.
    fn search_limits(&self, state: &G, limits: &Limits, start: Instant) -> SearchLimits {
        // `go infinite` lifts the spec's own limits.
        let own = |limit| if limits.infinite { None } else { limit };
        let fallback = own(self.ms).map(Duration::from_millis);
        let budget = super::move_budget(state, limits, fallback);
        SearchLimits {
            depth: limits
                .depth
                .or(own(self.depth.map(u64::from)).map(|d| d as u32)),
            nodes: limits.nodes.or(own(self.nodes)),
            // A budget too large to add to the clock means no deadline at all.
            deadline: budget.and_then(|b| start.checked_add(b)),
            stop: limits.stop.clone(),
        }
    }
}

impl<G: Baselines> Agent<G> for AlphaBetaAgent<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn select(&mut self, state: &G, limits: &Limits) -> anyhow::Result<Action> {
        let start = limits.start();
        let search_limits = self.search_limits(state, limits, start);
        let mut search = AlphaBeta::new(&self.heuristic, self.pruning);
        if self.best_reply {
            search = search.best_reply();
        }
        let result = search
            .search(state, search_limits)
            .ok_or_else(|| anyhow::anyhow!("no legal move: the game is over"))?;
        let best = result.best;
        self.last = Some((result, start.elapsed(), state.num_players()));
        Ok(best)
    }

    fn last_search(&self) -> Option<SearchInfo> {
        let (r, time, players) = self.last.as_ref()?;
        Some(SearchInfo {
            depth: r.depth,
            nodes: r.nodes,
            time: *time,
            score: heuristic_score(r.score, *players),
            pv: r.pv.clone(),
            note: None,
        })
    }

    fn options(&self) -> Vec<AgentOption> {
        let option = |name, value: Option<u64>, max| AgentOption {
            name,
            default: value.unwrap_or(0),
            min: 0,
            max,
        };
        vec![
            option("Depth", self.depth.map(u64::from), MAX_SEARCH_DEPTH as u64),
            option("MoveTime", self.ms, MAX_MOVE_MS),
            option("Nodes", self.nodes, MAX_NODES),
        ]
    }

    /// `Depth`, `MoveTime` (ms) and `Nodes` replace the spec's limits; 0 removes one.
    fn set_option(&mut self, name: &str, value: u64) -> anyhow::Result<()> {
        let value = (value > 0).then_some(value);
        match name {
            "Depth" => self.depth = value.map(|d| d as u32),
            "MoveTime" => self.ms = value,
            "Nodes" => self.nodes = value,
            _ => anyhow::bail!("{}: no option '{name}'", self.name),
        }
        Ok(())
    }
}

/// Max^n to a fixed depth over the game's heuristic (each player maximises their own
/// evaluation): the three-player baseline beside paranoid alpha-beta.
pub struct MaxnAgent<G: Baselines> {
    name: String,
    heuristic: G::Heuristic,
    depth: u32,
    /// The last search, the mover, its time, its depth and the number of players.
    last: Option<(MaxnResult, usize, Duration, u32, usize)>,
}

impl<G: Baselines> MaxnAgent<G> {
    /// A max^n agent named `name` searching `depth` plies.
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
        self.last = Some((
            result,
            state.to_move(),
            start.elapsed(),
            depth,
            state.num_players(),
        ));
        Ok(result.best)
    }

    fn last_search(&self) -> Option<SearchInfo> {
        let (r, me, time, depth, players) = self.last.as_ref()?;
        Some(SearchInfo {
            depth: *depth,
            nodes: r.nodes,
            time: *time,
            score: heuristic_score(r.scores[*me], *players),
            pv: vec![r.best],
            note: None,
        })
    }
}

/// A heuristic or game-theoretic score as the engine reports it: a won or lost game as
/// `mate` in the mover's moves (`players` plies make one round), the rest rounded.
fn heuristic_score(score: f64, players: usize) -> Score {
    if score.abs() >= WIN_SCORE - 1e6 {
        let plies = (WIN_SCORE - score.abs()).round().max(1.0) as i64;
        let moves = (plies + players as i64 - 1) / players as i64;
        Score::Mate(if score > 0.0 { moves } else { -moves })
    } else {
        Score::Cp(score.round().clamp(-1e15, 1e15) as i64)
    }
}
