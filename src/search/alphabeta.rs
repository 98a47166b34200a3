//! Minimax and alpha-beta search with iterative deepening and depth, node and time limits.
//!
//! With more than two players the search is *paranoid*: the root player maximises and
//! every other player minimises the root player's score. Finished games score by their
//! true outcome (a win is worth [`WIN_SCORE`] less the plies it takes, so quicker wins
//! are preferred); leaves at the depth limit by the [`Heuristic`].
//!
//! *Best-reply search* ([`AlphaBeta::best_reply`]; Schadd and Winands, 2011) is the
//! third form for more than two players: between two moves of the root player, only the
//! single strongest reply of all the opponents is played, the others passing
//! ([`Game::skip_turn`]), so every other ply is the root player's and deeper lines are
//! within reach. A game that cannot skip a turn is searched paranoid.
//!
//! The search deepens iteratively from depth 1 and keeps the result of the last depth it
//! completed. The root moves keep the heuristic's order in every iteration and ties go
//! to the first of equally good moves, so whenever depth `D` completes the move is the
//! one a direct depth-`D` search picks: a depth-limited search is deterministic, and a
//! time- or node-limited one depends on the machine only through the depth it reaches.

use std::time::Instant;

use super::Heuristic;
use crate::games::{Action, Game};

/// The score of a won game at the root (less one per ply to reach it).
pub const WIN_SCORE: f64 = 1e12;

/// When to stop. At least one depth (all root moves, one ply) is always completed.
/// With no limit at all (`default()`) the search deepens to depth 64: give one.
#[derive(Debug, Clone, Default)]
pub struct SearchLimits {
    /// Deepest iteration; `None` deepens until time or nodes run out (or depth 64).
    pub depth: Option<u32>,
    /// Stop once this many nodes have been visited.
    pub nodes: Option<u64>,
    /// Stop at this instant.
    pub deadline: Option<Instant>,
    /// Stop when asked to.
    pub stop: super::Stop,
}

impl SearchLimits {
    /// Exactly `depth` plies.
    pub fn depth(depth: u32) -> Self {
        SearchLimits {
            depth: Some(depth),
            ..Self::default()
        }
    }

    /// Iterative deepening until `nodes` nodes.
    pub fn nodes(nodes: u64) -> Self {
        SearchLimits {
            nodes: Some(nodes),
            ..Self::default()
        }
    }

    /// Iterative deepening until `deadline`.
    pub fn deadline(deadline: Instant) -> Self {
        SearchLimits {
            deadline: Some(deadline),
            ..Self::default()
        }
    }
}

/// What a search found.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResult {
    /// The move chosen.
    pub best: Action,
    /// The principal variation of the last completed depth; it starts with `best`.
    pub pv: Vec<Action>,
    /// Score of `best` for the root player.
    pub score: f64,
    /// The deepest depth completed.
    pub depth: u32,
    /// Nodes visited in all iterations.
    pub nodes: u64,
}

/// A reusable searcher (its move buffers survive between searches).
pub struct AlphaBeta<'h, G: Game> {
    heuristic: &'h dyn Heuristic<G>,
    /// `false` gives plain minimax (no cut-offs): the same result, more nodes.
    pruning: bool,
    /// Best-reply search: the opponents' layers merged into one.
    best_reply: bool,
    buffers: Vec<Vec<Action>>,
    nodes: u64,
    limits: SearchLimits,
    aborted: bool,
    next_check: u64,
    root_player: usize,
    /// The triangular PV table: `pv[ply]` is the best line found from the node at `ply`.
    pv: Vec<Vec<Action>>,
}

const MAX_DEPTH: u32 = crate::limits::MAX_SEARCH_DEPTH;

impl<'h, G: Game> AlphaBeta<'h, G> {
    /// A search with `heuristic` at the leaves; `pruning` false gives plain minimax.
    pub fn new(heuristic: &'h dyn Heuristic<G>, pruning: bool) -> Self {
        AlphaBeta {
            heuristic,
            pruning,
            best_reply: false,
            buffers: Vec::new(),
            nodes: 0,
            limits: SearchLimits::default(),
            aborted: false,
            next_check: 0,
            root_player: 0,
            pv: Vec::new(),
        }
    }

    /// The same search as best-reply search: where an opponent of the root player is to
    /// move, every opponent's moves are tried (the ones before it in turn passing), and
    /// after the move the turn passes on to the root player; the principal variation
    /// then stops at the first reply. Two players search as before.
    pub fn best_reply(mut self) -> Self {
        self.best_reply = true;
        self
    }

    /// Searches `root` (which must not be finished) within `limits`.
    /// Returns `None` only when the root has no legal move.
    pub fn search(&mut self, root: &G, limits: SearchLimits) -> Option<SearchResult> {
        self.nodes = 0;
        self.limits = limits.clone();
        self.aborted = false;
        self.next_check = 0;
        self.root_player = root.to_move();
        let mut moves = Vec::new();
        root.legal_actions(&mut moves);
        if moves.is_empty() {
            return None;
        }
        self.heuristic.order(root, &mut moves);
        let max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        let mut result = None;
        for depth in 1..=max_depth {
            let Some((best_index, score, pv)) =
                self.search_root(root, &moves, depth, result.is_none())
            else {
                break;
            };
            result = Some(SearchResult {
                best: moves[best_index],
                pv,
                score,
                depth,
                nodes: self.nodes,
            });
            if score.abs() >= WIN_SCORE - 1e6 {
                break; // a forced result: deeper search cannot change it
            }
        }
        result.map(|r| SearchResult {
            nodes: self.nodes,
            ..r
        })
    }

    /// One iteration at the root: the best move's index, its score and the principal
    /// variation; `None` if it was aborted (never when `must_finish`).
    fn search_root(
        &mut self,
        root: &G,
        moves: &[Action],
        depth: u32,
        must_finish: bool,
    ) -> Option<(usize, f64, Vec<Action>)> {
        let mut best = (0, f64::NEG_INFINITY, Vec::new());
        for (i, &a) in moves.iter().enumerate() {
            let mut child = root.clone();
            child.apply(a).expect("legal root move");
            let v = self.node(&child, depth - 1, best.1, f64::INFINITY, 1, must_finish);
            if self.aborted {
                return None;
            }
            if v > best.1 || best.2.is_empty() {
                let mut pv = vec![a];
                pv.extend_from_slice(&self.pv[1]);
                best = (i, v, pv);
            }
        }
        Some(best)
    }

    /// Records `action` then the line below it as the best line from `ply`.
    fn update_pv(&mut self, ply: usize, action: Action) {
        super::update_pv(&mut self.pv, ply, action)
    }

    fn out_of_budget(&mut self) -> bool {
        if self.nodes >= self.next_check {
            self.next_check = self.nodes + 1024;
            let over_nodes = self.limits.nodes.is_some_and(|n| self.nodes >= n);
            let over_time = self.limits.deadline.is_some_and(|d| Instant::now() >= d);
            self.aborted = over_nodes || over_time || self.limits.stop.requested();
        }
        self.aborted
    }

    fn node(
        &mut self,
        state: &G,
        depth: u32,
        mut alpha: f64,
        mut beta: f64,
        ply: usize,
        must_finish: bool,
    ) -> f64 {
        self.nodes += 1;
        if self.pv.len() <= ply + 1 {
            self.pv.resize_with(ply + 2, Vec::new);
        }
        self.pv[ply].clear();
        if let Some(outcome) = state.outcome() {
            let v = outcome.value(self.root_player) as f64;
            return if v > 0.0 {
                WIN_SCORE - ply as f64
            } else if v < 0.0 {
                -(WIN_SCORE - ply as f64)
            } else {
                self.heuristic.draw_score()
            };
        }
        if depth == 0 {
            return self.heuristic.evaluate(state, self.root_player);
        }
        if !must_finish && self.out_of_budget() {
            return 0.0;
        }
        if self.buffers.len() <= ply {
            self.buffers
                .resize_with(ply + 1, || Vec::with_capacity(512));
        }
        let maximising = state.to_move() == self.root_player;
        if self.best_reply && !maximising && state.num_players() > 2 {
            return self.best_replies(state, depth, alpha, beta, ply, must_finish);
        }
        let mut moves = std::mem::take(&mut self.buffers[ply]);
        state.legal_actions(&mut moves);
        self.heuristic.order(state, &mut moves);
        let mut best = if maximising {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
        for &a in &moves {
            let mut child = state.clone();
            child.apply(a).expect("legal move");
            let v = self.node(&child, depth - 1, alpha, beta, ply + 1, must_finish);
            if self.aborted {
                break;
            }
            let improves = if maximising { v > best } else { v < best };
            if improves {
                best = v;
                self.update_pv(ply, a);
            }
            if maximising {
                alpha = alpha.max(v);
            } else {
                beta = beta.min(v);
            }
            if self.pruning && alpha >= beta {
                break;
            }
        }
        self.buffers[ply] = moves;
        best
    }

    /// A best-reply layer: the lowest score for the root player among every opponent's
    /// moves, each opponent in turn order from the mover (those before it having passed),
    /// each move followed by passes to the root player's turn.
    fn best_replies(
        &mut self,
        state: &G,
        depth: u32,
        alpha: f64,
        mut beta: f64,
        ply: usize,
        must_finish: bool,
    ) -> f64 {
        let mut moves = std::mem::take(&mut self.buffers[ply]);
        let mut best = f64::INFINITY;
        let mut replier = state.clone();
        'opponents: loop {
            replier.legal_actions(&mut moves);
            self.heuristic.order(&replier, &mut moves);
            for &a in &moves {
                let mut child = replier.clone();
                child.apply(a).expect("legal move");
                while child.outcome().is_none()
                    && child.to_move() != self.root_player
                    && child.skip_turn()
                {}
                let v = self.node(&child, depth - 1, alpha, beta, ply + 1, must_finish);
                if self.aborted {
                    break 'opponents;
                }
                best = best.min(v);
                beta = beta.min(v);
                if self.pruning && alpha >= beta {
                    break 'opponents;
                }
            }
            // The next opponent replies instead, this one passing.
            if !replier.skip_turn()
                || replier.outcome().is_some()
                || replier.to_move() == self.root_player
            {
                break;
            }
        }
        self.buffers[ply] = moves;
        best
    }
}
