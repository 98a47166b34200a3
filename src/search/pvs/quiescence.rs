//! Quiescence search: at the leaves, the mover may stand on the position's own value or
//! play on with the moves the game calls tactical ([`Searchable::tactical_gains`]:
//! Infexion's captures), for at most [`Pruning::quiesce`](super::Pruning::quiesce) plies
//! more, so that a leaf in the middle of an exchange is not valued as it stands.

use super::evaluation::Evaluation;
use super::{MAX_PLY, Pvs};
use crate::games::Searchable;

impl<G: Searchable> Pvs<G> {
    /// The score of `state`, a leaf entered at `ply` with `depth` at most 0 (the plies
    /// past the search's depth, negated), for its mover's side: its own value where it
    /// reaches beta or no quiescence ply is left, else the best of that value and of its
    /// tactical moves' scores, best gain first.
    pub(super) fn quiesce(
        &mut self,
        state: &G,
        eval: &mut dyn Evaluation<G>,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        let stand = self.static_score(state, eval, ply);
        if i32::from(self.pruning.quiesce) + depth <= 0 || ply >= MAX_PLY || stand >= beta {
            return stand;
        }
        let mover = Searchable::to_move(state);
        let mut best = stand;
        alpha = alpha.max(stand);
        let mut tactical = std::mem::take(&mut self.tactical[ply]);
        tactical.clear();
        state.tactical_gains(|a, gain| tactical.push((gain, a)));
        tactical.sort_by_key(|m| std::cmp::Reverse(m.0));
        for &(_, action) in &tactical {
            let mut child = state.clone();
            child.play(action);
            let v = self.child(&child, mover, eval, depth - 1, alpha, beta, ply + 1, false);
            best = best.max(v);
            alpha = alpha.max(v);
            if self.aborted || alpha >= beta {
                break;
            }
        }
        self.tactical[ply] = tactical;
        best
    }
}
