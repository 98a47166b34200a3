//! The [`Agent`] trait every player implements, the [`Limits`] of one move, what a
//! search reports ([`SearchInfo`], [`Score`]), and [`Baselines`]: a game's own
//! evaluation and greedy policy.

use std::time::Duration;

use crate::games::{Action, Game};
use crate::rng::Rng;
use crate::search::Heuristic;

/// Limits for one move, from the match runner's clock or the engine's `go` command.
/// Each agent honours those that mean something to it, within its own spec's limits.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Limits {
    /// Time for this move.
    pub movetime: Option<Duration>,
    /// Time left on the mover's clock for the rest of the game.
    pub time_left: Option<Duration>,
    /// Time added to the mover's clock after each of its moves (`go winc/binc`).
    pub increment: Option<Duration>,
    /// Search nodes for this move.
    pub nodes: Option<u64>,
    /// Search depth for this move.
    pub depth: Option<u32>,
    /// Set from outside (the engine's `stop`) to end the search with its best move so far.
    pub stop: crate::search::Stop,
    /// Search until stopped (`go infinite`): the spec's own depth, node and time limits
    /// are lifted; a network search still ends at [`crate::limits::MAX_SIMULATIONS`].
    pub infinite: bool,
    /// When the move's time began (the engine stamps a `go` line as it arrives, so the
    /// hops between reading it and searching count against the move); now when unset.
    pub since: Option<std::time::Instant>,
    /// Where a search on several threads writes its move when one of them finds the
    /// move's deadline passed before the calling thread has ended the search (the
    /// engine's `info` and `bestmove` lines); `None`: the move is only returned.
    pub answer: Option<EarlyAnswer>,
}

/// Writes a move and what the search found ([`Limits::answer`]) from whichever search
/// thread sees the deadline first, so that a thread the scheduler set aside near the
/// deadline no longer holds the move up.
#[derive(Clone)]
pub struct EarlyAnswer(pub std::sync::Arc<WriteAnswer>);

/// Writes a move and its search's summary ([`EarlyAnswer`]).
pub type WriteAnswer = dyn Fn(Action, &SearchInfo) + Send + Sync;

impl std::fmt::Debug for EarlyAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EarlyAnswer")
    }
}

impl PartialEq for EarlyAnswer {
    fn eq(&self, other: &EarlyAnswer) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Limits {
    /// When the move's time began: [`Limits::since`], else now.
    pub fn start(&self) -> std::time::Instant {
        self.since.unwrap_or_else(std::time::Instant::now)
    }
}

/// The time for one move: the `go` command's `movetime`, else the agent's own `fallback`,
/// capped by the whole-game clock at `time_left / turns_left` (as the COMP30024 alpha-beta agent does) plus the
/// increment, and never more than nine tenths of what is left.
pub fn move_budget<G: Game>(
    state: &G,
    limits: &Limits,
    fallback: Option<Duration>,
) -> Option<Duration> {
    let mut budget = limits.movetime.or(fallback);
    if let Some(left) = limits.time_left {
        let plies_left = state.max_plies().saturating_sub(state.ply());
        let turns_left = plies_left.div_ceil(state.num_players() as u32).max(1);
        let increment = limits.increment.unwrap_or_default();
        let slice = (left / turns_left + increment).min(left * 9 / 10);
        budget = Some(budget.map_or(slice, |b| b.min(slice)));
    }
    budget
}

/// The legal action of `state` with the highest `score` (each scored once); ties go to
/// `rng`'s choice among them, in legal order. `state` must not be finished.
pub fn best_scoring<G: Game>(state: &G, rng: &mut Rng, score: impl Fn(Action) -> f64) -> Action {
    let mut legal = Vec::new();
    state.legal_actions(&mut legal);
    let scores: Vec<f64> = legal.iter().map(|&a| score(a)).collect();
    let top = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let best: Vec<Action> = legal
        .iter()
        .zip(&scores)
        .filter(|&(_, &s)| s == top)
        .map(|(&a, _)| a)
        .collect();
    rng.choose(&best).expect("a live position has a move")
}

/// Picks moves. One agent plays one game at a time; `Send` so matches run in parallel.
pub trait Agent<G: Game>: Send {
    /// The spec that built this agent, for reports.
    fn name(&self) -> String;

    /// Chooses a legal action in `state`, which is not finished. Blocks until decided.
    fn select(&mut self, state: &G, limits: &Limits) -> anyhow::Result<Action>;

    /// What the last search found (depth, nodes, score, principal variation), for the
    /// engine's `info` line; `None` for agents that do not search. Its `pv` starts with
    /// the move `select` returned: one rule decides both.
    fn last_search(&self) -> Option<SearchInfo> {
        None
    }

    /// When the last `select` had its answer, where that was before it returned: an
    /// external program's `bestmove` line is read a moment before the thread waiting
    /// for it runs. A match's clock stops there; `None`: when `select` returned.
    fn answered_at(&self) -> Option<std::time::Instant> {
        None
    }

    /// The last decision in a few lines for a human watching (`contagion play`): for a
    /// network search, the best moves with their share of the visits and their value.
    fn thinking(&self, state: &G) -> Vec<String> {
        self.last_search()
            .map(|i| {
                let pv: Vec<String> = i.pv.iter().map(|&a| state.action_to_string(a)).collect();
                format!(
                    "depth {} nodes {} score {} pv {}",
                    i.depth,
                    i.nodes,
                    i.score,
                    pv.join(" ")
                )
            })
            .into_iter()
            .collect()
    }

    /// The options `setoption` can change (the search budget, cache sizes), beyond the
    /// engine's own `Threads`.
    fn options(&self) -> Vec<AgentOption> {
        Vec::new()
    }

    /// Spreads each search over `threads` threads where the agent can (the engine's
    /// `Threads`): a network search splits each batch of leaves across them. Agents
    /// whose search runs on one thread keep doing so.
    fn set_threads(&mut self, threads: usize) -> anyhow::Result<()> {
        let _ = threads;
        Ok(())
    }

    /// Sets one of [`Agent::options`]; `value` is within its bounds (the engine checks).
    fn set_option(&mut self, name: &str, _value: u64) -> anyhow::Result<()> {
        anyhow::bail!("{}: no option '{name}'", self.name())
    }
}

/// A numeric engine option (`option name NAME type spin default D min LO max HI`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentOption {
    /// The option's name as the engine lists it (`Simulations`, `Hash`, `Depth` …).
    pub name: &'static str,
    /// Its value until the engine sets another.
    pub default: u64,
    /// The smallest value allowed.
    pub min: u64,
    /// The largest value allowed.
    pub max: u64,
}

/// What one search found, as the engine's `info` line reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchInfo {
    /// Plies searched: alpha-beta's completed depth, MCTS's principal-variation length.
    pub depth: u32,
    /// Nodes (alpha-beta) or simulations (MCTS).
    pub nodes: u64,
    /// Wall time the search took.
    pub time: Duration,
    /// The position's value for the mover, as the engine reports it.
    pub score: Score,
    /// The principal variation, starting with the move played.
    pub pv: Vec<Action>,
    /// A remark for the engine's `info string` line (a search that ran out of memory).
    pub note: Option<String>,
}

/// What a search reports of a position the exact endgame solver solved: its move and
/// depth, and a mate score for a win (0 for a draw).
pub(crate) fn solved_info<G: Game>(
    state: &G,
    solution: &crate::search::endgame::Solution,
    start: std::time::Instant,
) -> SearchInfo {
    let me = state.to_move();
    SearchInfo {
        depth: solution.depth,
        nodes: solution.nodes,
        time: start.elapsed(),
        score: (solution.proof(me).mate_in(me)).map_or(Score::Cp(0), Score::Mate),
        pv: vec![solution.best],
        note: None,
    }
}

/// A search score for the mover, as UCI writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Score {
    /// Centipawn-like units: the heuristic's own scale for alpha-beta; for a network
    /// search, the mover's value `v` in [-1, 1] mapped as Leela Chess Zero maps it,
    /// `111.71 · tan(1.5621 · v)` (`v` = 0.5 is about 100).
    Cp(i64),
    /// A forced win in this many of the mover's moves (negative: a forced loss).
    Mate(i64),
}

impl std::fmt::Display for Score {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Score::Cp(cp) => write!(f, "cp {cp}"),
            Score::Mate(m) => write!(f, "mate {m}"),
        }
    }
}

/// Leela Chess Zero's map from a value to centipawns: `CP_SCALE · tan(CP_ANGLE · v)`.
const CP_SCALE: f64 = 111.714_640_912;
/// See [`CP_SCALE`].
const CP_ANGLE: f64 = 1.562_068_842_1;

impl Score {
    /// The score of a value `v` in [-1, 1] for the mover (a network's estimate).
    pub fn from_value(v: f32) -> Score {
        let v = v.clamp(-1.0, 1.0) as f64;
        Score::Cp(
            (CP_SCALE * (CP_ANGLE * v).tan())
                .round()
                .clamp(-100_000.0, 100_000.0) as i64,
        )
    }

    /// The mover's value in [-1, 1] of this score: [`Score::from_value`]'s inverse
    /// (to the rounding of the centipawns), ±1 for a mate.
    pub fn value(&self) -> f32 {
        match *self {
            Score::Cp(cp) => ((cp as f64 / CP_SCALE).atan() / CP_ANGLE).clamp(-1.0, 1.0) as f32,
            Score::Mate(m) => m.signum() as f32,
        }
    }
}

/// What a game must provide for the baseline agents to play it.
pub trait Baselines: Game {
    /// The static evaluation and move ordering alpha-beta and minimax use.
    type Heuristic: Heuristic<Self> + Default + 'static;

    /// The greedy agent's move; `rng` breaks ties. The default takes a won game where
    /// a move ends one, else the move after which [`Baselines::Heuristic`] scores the
    /// mover best: one ply of the alpha-beta baselines' own judgement.
    fn greedy_action(&self, rng: &mut Rng) -> Action {
        let (me, heuristic) = (self.to_move(), Self::Heuristic::default());
        best_scoring(self, rng, |a| {
            let mut next = self.clone();
            next.apply(a).expect("a legal action");
            match next.outcome() {
                Some(outcome) => f64::from(outcome.0[me]) * 1e12,
                None => heuristic.evaluate(&next, me),
            }
        })
    }
}
