//! How the search orders a node's moves and how much shallower it searches the late
//! ones: the table's move, the killers, the game's gain and the history of cut-offs (one
//! table, or one a side bounded by gravity with a malus), and late-move reductions.

use super::{HISTORY_BONUS_PLY, HISTORY_MAX, Pvs};
use crate::games::{Action, Searchable};

/// Where [`Pvs::order`] puts a move whose child it did not make: past `made`'s end.
const NOT_MADE: u32 = u32::MAX;

impl<G: Searchable> Pvs<G> {
    /// `mover`'s history of `action` (one table for every side with `hst=0`).
    pub(super) fn history_of(&self, mover: usize, action: Action) -> i32 {
        let (side, per) = self.history_side(mover);
        self.history
            .get(side * per + action as usize)
            .copied()
            .unwrap_or(0)
    }

    /// The history's tables: one a side with `hst=1`, else one for all.
    pub(super) fn history_sides(&self) -> usize {
        if self.pruning.history > 0 {
            self.players
        } else {
            1
        }
    }

    /// Where `mover`'s history starts, in tables of `per` entries.
    fn history_side(&self, mover: usize) -> (usize, usize) {
        let sides = self.history_sides();
        (
            if sides > 1 { mover } else { 0 },
            self.history.len() / sides,
        )
    }

    /// A cut-off at `depth` by `best`, after `tried` (which ends with it): the history
    /// rewards the move; with `hst=1`, bounded by gravity, and the moves tried before it
    /// lose as much.
    pub(super) fn reward(&mut self, mover: usize, depth: i32, best: Action, tried: &[Action]) {
        let (side, per) = self.history_side(mover);
        let gravity = self.pruning.history > 0;
        let bonus = if gravity {
            (HISTORY_BONUS_PLY * depth).min(HISTORY_MAX / 8)
        } else {
            depth * depth
        };
        let mut update = |a: Action, b: i32| {
            if let Some(h) = self.history.get_mut(side * per + a as usize) {
                *h = if gravity {
                    *h + b - *h * b.abs() / HISTORY_MAX
                } else {
                    h.saturating_add(b)
                };
            }
        };
        update(best, bonus);
        if gravity {
            for &a in tried.iter().filter(|&&a| a != best) {
                update(a, -bonus);
            }
        }
    }

    /// The plies a late move's first search is reduced by: the `i`-th move (from 0) at
    /// `depth`, none for the first moves (the table's, the killers, the best gains);
    /// with `lmr=3`, fewer on the principal variation and for a move of good history.
    pub(super) fn reduction(&self, depth: i32, i: usize, pv_node: bool, history: i32) -> i32 {
        match self.pruning.reductions {
            _ if depth < 3 => 0,
            3 if i >= 2 => {
                let r = 0.8 + 0.4 * (depth as f64).ln() * ((i + 1) as f64).ln();
                let r = r.round() as i32 - i32::from(pv_node) - history * 2 / HISTORY_MAX;
                r.clamp(0, depth - 2)
            }
            1 if i >= 3 && depth >= 5 && i >= 8 => 2,
            1 if i >= 3 => 1,
            2 if i >= 2 => {
                let r = 0.5 + (depth as f64).ln() * (i as f64).ln() / 2.0;
                (r as i32).clamp(1, depth - 2)
            }
            _ => 0,
        }
    }

    /// Fills `out` with `state`'s moves and their ordering keys (higher first): the
    /// table's move, the killers, then by the game's gain and the history. The search
    /// takes them best first by [`next_best`], as far as it gets before a cut-off. A
    /// move's third field is where `made` holds its child ([`NOT_MADE`], past its end,
    /// where `rank` made none): the list the search reorders stays 16 bytes a move
    /// whatever a position's size (a 15×15 board's state copied at every step was a
    /// fifth of Virus's search).
    pub(super) fn order(
        &mut self,
        state: &G,
        ply: usize,
        tt_move: Action,
        out: &mut Vec<(i64, Action, u32)>,
        made: &mut Vec<Option<G>>,
    ) {
        let mut moves = std::mem::take(&mut self.moves[ply]);
        Searchable::legal_actions(state, &mut moves);
        out.clear();
        made.clear();
        let killers = self.killers[ply];
        let mover = Searchable::to_move(state);
        let prior = (ply < usize::from(self.pruning.prior))
            .then(|| self.prior.get(&state.key()))
            .flatten();
        for &a in &moves {
            let (gain, child) = state.rank(a);
            let key = if a == tt_move {
                i64::MAX
            } else if let Some(p) = prior {
                (p.get(a as usize).copied().unwrap_or(f32::MIN) as f64 * 1e6) as i64
            } else if a == killers[0] {
                i64::MAX - 1
            } else if a == killers[1] {
                i64::MAX - 2
            } else {
                ((gain as i64) << 24) + self.history_of(mover, a) as i64
            };
            let at = match child {
                Some(c) => {
                    made.push(Some(c));
                    made.len() as u32 - 1
                }
                None => NOT_MADE,
            };
            out.push((key, a, at));
        }
        self.moves[ply] = moves;
    }

    /// Moves the move with the highest key among `moves[i..]` (the first of equals) to `i`,
    /// keeping the others in their order, and returns it: taken for `i = 0, 1, …`, the
    /// moves in the order a stable sort by key, highest first, gives.
    pub(super) fn next_best<T>(moves: &mut [(i64, Action, T)], i: usize) -> &mut (i64, Action, T) {
        let mut at = i;
        for (j, m) in moves.iter().enumerate().skip(i + 1) {
            if m.0 > moves[at].0 {
                at = j;
            }
        }
        moves[i..=at].rotate_right(1);
        &mut moves[i]
    }
}
