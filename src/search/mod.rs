//! Game-independent search. Knows games only through [`crate::games::Game`].
//!
//! - [`alphabeta`]: minimax and alpha-beta (paranoid for more than two players) with
//!   iterative deepening, node and time limits, over a [`Heuristic`].
//! - [`endgame`]: exact solving of two-player endgames (result, then margin).
//! - [`maxn`]: max^n search (each player maximises their own score), for N players.
//! - [`mcts`]: PUCT Monte Carlo tree search for N players, with proven results;
//!   [`gumbel`] its Gumbel root search; [`batch`] drives many trees at once through one
//!   evaluator; [`pool`] drives one tree on a persistent pool of threads.
//! - [`pvs`]: principal variation search over a learned leaf evaluation (the fast
//!   evaluator's player).

pub mod alphabeta;
pub mod batch;
pub mod endgame;
pub mod gumbel;
pub mod maxn;
pub mod mcts;
pub mod pool;
pub mod pvs;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::games::{Action, Game};

/// An outside request to stop a search early (the engine's `stop`): the search returns
/// the best move it has so far once the flag is set. `Stop::default()` never fires.
#[derive(Debug, Clone, Default)]
pub struct Stop(pub Option<Arc<AtomicBool>>);

impl Stop {
    /// Whether a stop was asked for.
    pub fn requested(&self) -> bool {
        self.0
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
    }
}

impl PartialEq for Stop {
    fn eq(&self, other: &Stop) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        }
    }
}

/// What a value a search table keeps says of the true one: it is it, at least it, at most it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bound {
    Exact,
    Lower,
    Upper,
}

/// Records `action` then the line below it as the best line from `ply`, in a
/// triangular principal-variation table (`pv[ply]`: the best line from the node there).
pub(crate) fn update_pv(pv: &mut [Vec<Action>], ply: usize, action: Action) {
    let (head, tail) = pv.split_at_mut(ply + 1);
    let line = &mut head[ply];
    line.clear();
    line.push(action);
    line.extend_from_slice(&tail[0]);
}

/// A static evaluation and move ordering for a game, used by alpha-beta.
pub trait Heuristic<G: Game>: Send + Sync {
    /// How good the (non-terminal) `state` is for `player`; higher is better. Must stay
    /// well below [`alphabeta::WIN_SCORE`] in magnitude.
    fn evaluate(&self, state: &G, player: usize) -> f64;

    /// The score of a drawn finished game for `player`, on the same scale as `evaluate`.
    fn draw_score(&self) -> f64 {
        0.0
    }

    /// Reorders the legal `actions` (given ascending), most promising first.
    fn order(&self, _state: &G, _actions: &mut [Action]) {}
}
