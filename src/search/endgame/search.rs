//! The solver's alpha-beta: null-window searches of a position's lower and upper bounds,
//! deepened until they meet, over any [`Searchable`] (see the module above).

use std::time::Instant;

use super::super::Stop;
use super::super::mcts::Proven;
use crate::games::{Action, Outcome, Searchable};
use crate::search::Bound;

/// Deepest iteration the solver tries (Ataxx's 100-half-move rule can take a game of
/// jumps that far).
pub const MAX_DEPTH: u32 = 250;

/// When to give up.
#[derive(Debug, Clone, Default)]
pub struct SolveLimits {
    /// Stop at this instant.
    pub deadline: Option<Instant>,
    /// Stop after this many nodes.
    pub nodes: Option<u64>,
    /// Stop when asked to.
    pub stop: Stop,
    /// Solve the margin too, once the result is proven (time and nodes allowing).
    pub margin: bool,
}

/// An exact result.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    /// A move that achieves the value.
    pub best: Action,
    /// The exact result for the player to move: +1 a win, 0 a draw, −1 a loss.
    pub result: i32,
    /// The exact margin for the player to move (thousandths of its score share), when
    /// the time allowed solving it too.
    pub margin: Option<i32>,
    /// The depth at which the result was proven (an upper bound on the plies to the end
    /// under best play, of the lines that decide it).
    pub depth: u32,
    /// Nodes searched in all.
    pub nodes: u64,
}

impl Solution {
    /// The result as the tree's proofs write it, for a root where `player` moves (the
    /// depth stands for the plies to the end: an upper bound).
    pub fn proof(&self, player: usize) -> Proven {
        let outcome = match self.result {
            1 => Outcome::win(player, 2),
            -1 => Outcome::win(1 - player, 2),
            _ => Outcome::draw(),
        };
        Proven {
            outcome: outcome.0,
            plies: self.depth,
        }
    }
}

/// A won position's value at the scale of margins (results dominate margins).
const RESULT: i32 = 10_000;
/// Beyond every exact value: a position at the depth limit, counted as won or lost.
const UNKNOWN: i32 = 100_000;

#[derive(Debug, Clone, Copy)]
struct Entry {
    key: u64,
    value: i32,
    depth: u8,
    bound: Bound,
    best: Action,
}

/// Which values the search computes and how it counts the depth limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Kind {
    /// Margins as well as results.
    margin: bool,
    /// Positions at the depth limit count as won by the root player (else lost).
    optimistic: bool,
}

impl Kind {
    /// The table key's salt for this kind of search by `root_player` (a position's
    /// bounds depend on both, never on where the search began, so entries stay good
    /// from one solve to the next).
    fn salt(self, root_player: usize) -> u64 {
        let k = 1 + self.margin as u64 * 2 + self.optimistic as u64 + 4 * root_player as u64;
        0x9E37_79B9_7F4A_7C15u64.wrapping_mul(k)
    }
}

/// The alpha-beta search over positions of one kind, with its transposition table.
pub(super) struct Search<P: Searchable> {
    table: Vec<Option<Entry>>,
    /// Cut-offs and the table; without them ([`Solver::reference`]): plain minimax over
    /// the same bounds, the reference the solver is measured against.
    pruning: bool,
    /// The best move of the last root search.
    root_best: Option<Action>,
    /// Per ply: the moves, their rank and the position after each where ranking made it.
    buffers: Vec<Vec<(i32, Action, Option<P>)>>,
    /// The legal moves of the node being ordered.
    legal: Vec<Action>,
    nodes: u64,
    limits: SolveLimits,
    next_check: u64,
    aborted: bool,
    root_player: usize,
}

impl<P: Searchable> Search<P> {
    /// A search with a table of `2^bits` entries (bits clamped to 10..=26), with
    /// cut-offs and the table (`pruning`) or without them: plain minimax over the same
    /// bounds, the reference the solver is measured against.
    pub(super) fn new(bits: u32, pruning: bool) -> Search<P> {
        Search {
            table: vec![None; if pruning { 1 << bits.clamp(10, 26) } else { 1 }],
            pruning,
            root_best: None,
            buffers: Vec::new(),
            legal: Vec::new(),
            nodes: 0,
            limits: SolveLimits::default(),
            next_check: 0,
            aborted: false,
            root_player: 0,
        }
    }

    /// Solves `root` (a two-player position that is not over) within `limits`; `order`
    /// lists root moves to try first. `None` if the limits ran out first.
    pub(super) fn solve(
        &mut self,
        root: &P,
        order: &[Action],
        limits: SolveLimits,
    ) -> Option<Solution> {
        self.nodes = 0;
        self.limits = limits;
        self.next_check = 0;
        self.aborted = false;
        self.root_player = root.to_move();
        let (result, best, depth) = self.prove_result(root, order)?;
        let mut solution = Solution {
            best,
            result,
            margin: None,
            depth,
            nodes: self.nodes,
        };
        if !self.limits.margin {
            return Some(solution);
        }
        let margins = Kind {
            margin: true,
            optimistic: false,
        };
        let (lo, hi) = (result * RESULT - RESULT / 2, result * RESULT + RESULT / 2);
        if let Some((value, best, _)) = self.deepen(root, order, margins, lo, hi) {
            solution.best = best;
            solution.margin = Some(value - result * RESULT);
        }
        solution.nodes = self.nodes;
        Some(solution)
    }

    /// Deepens until the result is proven, with null-window tests of the root player's
    /// lower bound (a win: it reaches +1; a draw: it reaches 0) and upper bound (a loss:
    /// it falls to −1; a draw: it falls to 0): the result, a move achieving it, the depth.
    fn prove_result(&mut self, root: &P, order: &[Action]) -> Option<(i32, Action, u32)> {
        let low = Kind {
            margin: false,
            optimistic: false,
        };
        let high = Kind {
            optimistic: true,
            ..low
        };
        for depth in 1..=MAX_DEPTH {
            let (v, win) = self.root(root, order, depth, low, 0, 1)?;
            if v >= 1 {
                return Some((1, win, depth));
            }
            let (v, any) = self.root(root, order, depth, high, -1, 0)?;
            if v <= -1 {
                return Some((-1, any, depth));
            }
            let (v, draw) = self.root(root, order, depth, low, -1, 0)?;
            if v >= 0 && self.root(root, order, depth, high, 0, 1)?.0 <= 0 {
                return Some((0, draw, depth));
            }
        }
        None
    }

    /// Deepens until the lower and upper bounds of the root's value (for the mover),
    /// searched in `[lo, hi]`, meet: the exact value, a move achieving it, the depth.
    fn deepen(
        &mut self,
        root: &P,
        order: &[Action],
        kind: Kind,
        lo: i32,
        hi: i32,
    ) -> Option<(i32, Action, u32)> {
        for depth in 1..=MAX_DEPTH {
            let pessimistic = Kind {
                optimistic: false,
                ..kind
            };
            let (low, best) = self.root(root, order, depth, pessimistic, lo - 1, hi + 1)?;
            let optimistic = Kind {
                optimistic: true,
                ..kind
            };
            let (high, _) = self.root(root, order, depth, optimistic, lo - 1, hi + 1)?;
            if low == high && (lo..=hi).contains(&low) {
                return Some((low, best, depth));
            }
        }
        None
    }

    /// One search of the root: its value for the mover and the best move; `None` when
    /// aborted.
    fn root(
        &mut self,
        root: &P,
        order: &[Action],
        depth: u32,
        kind: Kind,
        alpha: i32,
        beta: i32,
    ) -> Option<(i32, Action)> {
        self.root_best = None;
        let v = self.node(root, depth, alpha, beta, 0, kind, order);
        if self.aborted {
            return None;
        }
        Some((v, self.root_best?))
    }

    fn slot(&self, key: u64) -> usize {
        (key as usize) & (self.table.len() - 1)
    }

    fn out_of_budget(&mut self) -> bool {
        if self.nodes >= self.next_check {
            self.next_check = self.nodes + 1024;
            let over_nodes = self.limits.nodes.is_some_and(|n| self.nodes >= n);
            let over_time = self.limits.deadline.is_some_and(|d| Instant::now() >= d);
            self.aborted |= over_nodes || over_time || self.limits.stop.requested();
        }
        self.aborted
    }

    /// The value of a finished game for `player`.
    fn terminal(&self, state: &P, outcome: Outcome, player: usize, kind: Kind) -> i32 {
        let result = outcome.result(player);
        if !kind.margin {
            return result;
        }
        let share = state.share(player);
        result * RESULT + (share * 1000.0).round() as i32
    }

    /// Negamax: the value of `state` for its mover within `(alpha, beta)`.
    #[allow(clippy::too_many_arguments)]
    fn node(
        &mut self,
        state: &P,
        depth: u32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        kind: Kind,
        order: &[Action],
    ) -> i32 {
        self.nodes += 1;
        let mover = state.to_move();
        if let Some(outcome) = state.outcome() {
            return self.terminal(state, outcome, mover, kind);
        }
        let mine = mover == self.root_player;
        if depth == 0 {
            // Counted as won by the root player when optimistic, lost when pessimistic.
            return if mine == kind.optimistic {
                UNKNOWN
            } else {
                -UNKNOWN
            };
        }
        if self.out_of_budget() {
            return 0;
        }
        let key = state.key() ^ kind.salt(self.root_player);
        let slot = self.slot(key);
        let mut tt_move = None;
        let entry = self.table[slot].filter(|e| self.pruning && e.key == key);
        if let Some(e) = entry {
            tt_move = Some(e.best);
            if e.depth as u32 >= depth {
                match e.bound {
                    Bound::Exact => {}
                    Bound::Lower => alpha = alpha.max(e.value),
                    Bound::Upper => beta = beta.min(e.value),
                }
                if e.bound == Bound::Exact || alpha >= beta {
                    // A root settled by the table has its best move there.
                    if ply == 0 {
                        self.root_best = Some(e.best);
                    }
                    return e.value;
                }
            }
        }
        let mut moves = self.ordered(state, ply, tt_move, if ply == 0 { order } else { &[] });
        let (alpha0, mut best) = (alpha, (-UNKNOWN - 1, moves[0].1));
        for (_, a, made) in &mut moves {
            let a = *a;
            let child = made.take().unwrap_or_else(|| {
                let mut child = state.clone();
                child.play(a);
                child
            });
            let v = -self.node(&child, depth - 1, -beta, -alpha, ply + 1, kind, &[]);
            if self.aborted {
                break;
            }
            if v > best.0 {
                best = (v, a);
            }
            alpha = alpha.max(v);
            if alpha >= beta && self.pruning {
                break;
            }
        }
        moves.clear();
        self.buffers[ply] = moves;
        if self.aborted {
            return 0;
        }
        if ply == 0 {
            self.root_best = Some(best.1);
        }
        if !self.pruning {
            return best.0;
        }
        let bound = if best.0 <= alpha0 {
            Bound::Upper
        } else if best.0 >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.table[slot] = Some(Entry {
            key,
            value: best.0,
            depth: depth.min(255) as u8,
            bound,
            best: best.1,
        });
        best.0
    }

    /// The legal moves of `state`, best first: the table's move, then `first` (in its
    /// order), then by [`Searchable::rank`]; with the position after each that ranking
    /// made.
    fn ordered(
        &mut self,
        state: &P,
        ply: usize,
        tt_move: Option<Action>,
        first: &[Action],
    ) -> Vec<(i32, Action, Option<P>)> {
        if self.buffers.len() <= ply {
            self.buffers.resize_with(ply + 1, Vec::new);
        }
        let mut moves = std::mem::take(&mut self.buffers[ply]);
        let mut legal = std::mem::take(&mut self.legal);
        state.legal_actions(&mut legal);
        moves.extend(legal.iter().map(|&a| {
            if Some(a) == tt_move {
                (i32::MAX, a, None)
            } else if let Some(k) = first.iter().position(|&f| f == a) {
                (i32::MAX - 1 - k as i32, a, None)
            } else {
                let (rank, child) = state.rank(a);
                (rank, a, child)
            }
        }));
        self.legal = legal;
        moves.sort_by_key(|m| std::cmp::Reverse(m.0));
        moves
    }
}
