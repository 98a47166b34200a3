//! Ataxx and Virus baselines.
//!
//! - **Evaluation** (alpha-beta, minimax, max^n): material, the mover's pieces minus the
//!   opponent's. A draw scores 0.
//! - **Move ordering**: the legal order, clones (which add a piece) before jumps.
//! - **Greedy**: the move after which the mover has the most pieces (a clone beats a
//!   jump with the same captures); ties broken by the seeded generator.
//!
//! These define the fixed baseline: changing them changes the meaning of past results.

use super::{Baselines, best_scoring};
use crate::games::Action;
use crate::games::ataxx::Ataxx;
use crate::rng::Rng;
use crate::search::Heuristic;

/// Ataxx's and Virus's evaluation for the baselines: the mover's pieces minus the opponent's.
#[derive(Debug, Default, Clone, Copy)]
pub struct Material;

impl Heuristic<Ataxx> for Material {
    fn evaluate(&self, state: &Ataxx, player: usize) -> f64 {
        state.pieces(player) as f64 - state.pieces(1 - player) as f64
    }
}

impl Baselines for Ataxx {
    type Heuristic = Material;

    fn greedy_action(&self, rng: &mut Rng) -> Action {
        let me = self.to_move();
        best_scoring(self, rng, |a| {
            let mut next = *self;
            next.apply_unchecked(a);
            next.pieces(me) as f64
        })
    }
}
