//! How the search orders a node's moves and how much shallower it searches the late
//! ones: the table's move, the killers, the game's gain and the history of cut-offs (one
//! table, or one a side bounded by gravity with a malus), and late-move reductions.

use super::{HISTORY_BONUS_PLY, HISTORY_MAX, Pvs};
use crate::games::{Action, Searchable};

/// Where [`Pvs::order`] puts a move whose child it did not make: past `made`'s end.
const NOT_MADE: u32 = u32::MAX;

/// A move's ordering key but the table's move's (and but a prior's): the ply's killers,
/// then by the game's gain, then by the mover's `history` of the move.
fn ranked_key(action: Action, gain: i32, killers: [Action; 2], history: i64) -> i64 {
    if action == killers[0] {
        i64::MAX - 1
    } else if action == killers[1] {
        i64::MAX - 2
    } else {
        ((gain as i64) << 24) + history
    }
}

impl<G: Searchable> Pvs<G> {
    /// `mover`'s history of `action` (one table for every side with `hst=0`).
    pub(super) fn history_of(&self, mover: usize, action: Action) -> i32 {
        (self.history_table(mover).get(action as usize))
            .copied()
            .unwrap_or(0)
    }

    /// `mover`'s history table, an entry an action (one for every side with `hst=0`).
    fn history_table(&self, mover: usize) -> &[i32] {
        let (side, per) = self.history_side(mover);
        self.history
            .get(side * per..(side + 1) * per)
            .unwrap_or(&[])
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
    ///
    /// Where the table's move is legal it comes first and the others wait, with their
    /// history alone, for [`Pvs::rank_moves`] (the search calls it before their turn):
    /// a node the table's move cuts off ranks nothing, and the order is the one ranking
    /// them all at once gives. Where the game makes its moves' gains with the moves
    /// ([`Searchable::legal_gains`]) and no prior orders them, every move is ranked as
    /// it is made: cheaper than asking each move's gain even where the table's move
    /// cuts off. Returns whether they wait.
    pub(super) fn order(
        &mut self,
        state: &G,
        ply: usize,
        tt_move: Action,
        out: &mut Vec<(i64, Action, u32)>,
        made: &mut Vec<Option<G>>,
    ) -> bool {
        let mut moves = std::mem::take(&mut self.moves[ply]);
        out.clear();
        made.clear();
        // The history as it stands now: the table's move's search changes it.
        let history = self.history_table(Searchable::to_move(state));
        let history_of = |a: Action| history.get(a as usize).map_or(0, |&h| h as i64);
        // Where the game gives the gains with the moves, every move is ranked at once.
        let killers = self.killers[ply];
        let given = ply >= usize::from(self.pruning.prior)
            && state.legal_gains(|a, gain| {
                let key = if a == tt_move {
                    i64::MAX
                } else {
                    ranked_key(a, gain, killers, history_of(a))
                };
                out.push((key, a, NOT_MADE));
            });
        if given {
            self.moves[ply] = moves;
            return false;
        }
        Searchable::legal_actions(state, &mut moves);
        let key = |a: Action| {
            if a == tt_move {
                i64::MAX
            } else {
                history_of(a)
            }
        };
        out.extend(moves.iter().map(|&a| (key(a), a, NOT_MADE)));
        let wait = moves.contains(&tt_move);
        self.moves[ply] = moves;
        if !wait {
            self.rank_moves(state, ply, out, made);
        }
        wait
    }

    /// Gives each move in `out` but the table's its ordering key (see [`Pvs::order`]),
    /// its history there already, and its child into `made` where `rank` makes one.
    pub(super) fn rank_moves(
        &mut self,
        state: &G,
        ply: usize,
        out: &mut [(i64, Action, u32)],
        made: &mut Vec<Option<G>>,
    ) {
        let killers = self.killers[ply];
        let prior = (ply < usize::from(self.pruning.prior))
            .then(|| self.prior.get(&state.key()))
            .flatten();
        for (key, a, at) in out.iter_mut().filter(|m| m.0 != i64::MAX) {
            let (gain, child) = state.rank(*a);
            *key = if let Some(p) = prior {
                (p.get(*a as usize).copied().unwrap_or(f32::MIN) as f64 * 1e6) as i64
            } else {
                ranked_key(*a, gain, killers, *key)
            };
            if let Some(c) = child {
                made.push(Some(c));
                *at = made.len() as u32 - 1;
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::chexers::Chexers;
    use crate::games::infexion::Board;

    /// The moves in the order the search takes them, from the `from`-th.
    fn taken<G: Searchable>(pvs_moves: &mut [(i64, Action, u32)], from: usize) -> Vec<Action> {
        (from..pvs_moves.len())
            .map(|i| Pvs::<G>::next_best(pvs_moves, i).1)
            .collect()
    }

    /// `state` after each `plies`-th legal move in turn.
    fn after<G: Searchable>(mut state: G, plies: &[usize]) -> G {
        let mut legal = Vec::new();
        for &k in plies {
            state.legal_actions(&mut legal);
            state.play(legal[k % legal.len()]);
        }
        state
    }

    /// With the table's move first, the others come in the order ranking them all at once
    /// gives, with the history as it stood before the table's move's search: ranked
    /// after it (`waits`: a game without gains made with its moves) or as the list is
    /// made.
    fn ranks_as_at_once<G: Searchable>(state: &G, waits: bool) {
        let mut legal = Vec::new();
        state.legal_actions(&mut legal);
        let mut pvs = Pvs::<G>::new(1);
        pvs.history = (0..state.players() * state.actions())
            .map(|a| (a as i32 * 7919) % 1000)
            .collect();
        let tt_move = legal[legal.len() / 2];
        let (mut out, mut made) = (Vec::new(), Vec::new());
        // All at once: with no table's move every move is ranked when the list is made.
        assert!(!pvs.order(state, 0, Action::MAX, &mut out, &mut made));
        let mut at_once = taken::<G>(&mut out, 0);
        at_once.retain(|&a| a != tt_move);
        assert!(at_once.len() > 4, "{} moves", at_once.len());
        // With the table's move; its search changes the history.
        assert_eq!(pvs.order(state, 0, tt_move, &mut out, &mut made), waits);
        assert_eq!(Pvs::<G>::next_best(&mut out, 0).1, tt_move);
        pvs.history.iter_mut().for_each(|h| *h = -*h);
        if waits {
            pvs.rank_moves(state, 0, &mut out[1..], &mut made);
        }
        assert_eq!(taken::<G>(&mut out, 1), at_once);
    }

    #[test]
    fn moves_after_the_table_s_move_keep_the_order_of_ranking_them_at_once() {
        // Infexion makes its gains with its moves; Chexers has none, and waits.
        ranks_as_at_once(&after(Board::new(), &[24, 10, 30, 3]), false);
        ranks_as_at_once(&after(Chexers::new(), &[5, 11, 2, 7, 3, 9]), true);
    }
}
