//! Chexers baselines (three players).
//!
//! - **Evaluation**: each player's standing is `100·exits + 20·pieces on the board −
//!   the pieces' total distance to the player's exit edge`; a player's evaluation is
//!   their standing minus the mean of the other two's. Paranoid alpha-beta uses it for
//!   the root player, max^n for every player. A draw scores 0.
//! - **Move ordering**: exits, then jumps, then moves.
//! - **Greedy**: the action with the best evaluation for the mover one ply ahead;
//!   ties broken by the seeded generator.
//!
//! These define the fixed baseline: changing them changes the meaning of past results.

use super::{Baselines, best_scoring};
use crate::games::Action;
use crate::games::chexers::board::exit_distance;
use crate::games::chexers::{Chexers, Move};
use crate::rng::Rng;
use crate::search::Heuristic;

/// Exits, pieces and progress toward the exit edge, relative to the other two.
#[derive(Debug, Default, Clone, Copy)]
pub struct Race;

fn standing(state: &Chexers, p: usize) -> f64 {
    let (count, distance) = state
        .pieces(p)
        .fold((0, 0), |(n, d), c| (n + 1, d + exit_distance(p, c)));
    100.0 * state.exits(p) as f64 + 20.0 * count as f64 - distance as f64
}

impl Heuristic<Chexers> for Race {
    fn evaluate(&self, state: &Chexers, player: usize) -> f64 {
        let others: f64 = (1..3).map(|k| standing(state, (player + k) % 3)).sum();
        standing(state, player) - others / 2.0
    }

    fn order(&self, _: &Chexers, actions: &mut [Action]) {
        actions.sort_by_key(|&a| match Move::from_index(a) {
            Some(Move::Exit { .. }) => 0,
            Some(Move::Jump { .. }) => 1,
            _ => 2,
        });
    }
}

impl Baselines for Chexers {
    type Heuristic = Race;

    fn greedy_action(&self, rng: &mut Rng) -> Action {
        let me = self.to_move();
        best_scoring(self, rng, |a| {
            let mut next = self.clone();
            next.apply_unchecked(a);
            match next.outcome() {
                Some(o) => o.value(me) as f64 * 1e9,
                None => Race.evaluate(&next, me),
            }
        })
    }
}
