//! Infexion's baselines, as the COMP30024 alpha-beta agent describes them.
//!
//! - **Evaluation** (alpha-beta and minimax): the ratio of MAX's total power to MIN's,
//!   with MAX's total power as the tie-breaker: `1e6 · P_max / max(P_min, 1) + P_max`.
//!   (MIN's power is floored at 1 because it is 0 after Red's first SPAWN.) A drawn
//!   finish scores as an even ratio, `1e6`.
//! - **Move ordering**: SPREAD moves before SPAWN moves (each group ascending).
//! - **Greedy**: the SPREAD that conquers the most opponent power, if any conquers some;
//!   otherwise, while SPAWN is allowed, a SPAWN next to its own tokens and out of reach
//!   of every opponent SPREAD (falling back to any safe empty cell, then any empty cell);
//!   with SPAWN not allowed, the best SPREAD even if it conquers nothing. Ties are broken
//!   by the agent's seeded generator.
//!
//! These define the fixed baseline: changing them changes the meaning of past results.

use super::Baselines;
use crate::games::Action;
use crate::games::infexion::geometry::{CELLS, DIRS, RAYS};
use crate::games::infexion::{Board, Move};
use crate::rng::Rng;
use crate::search::Heuristic;

/// The COMP30024 alpha-beta agent's power-ratio evaluation with SPREAD-first ordering.
#[derive(Debug, Default, Clone, Copy)]
pub struct PowerRatio;

impl Heuristic<Board> for PowerRatio {
    fn evaluate(&self, board: &Board, player: usize) -> f64 {
        let mine = board.power(player) as f64;
        let theirs = board.power(1 - player).max(1) as f64;
        1e6 * mine / theirs + mine
    }

    fn draw_score(&self) -> f64 {
        1e6
    }

    fn order(&self, board: &Board, actions: &mut [Action]) {
        let spawns = actions
            .iter()
            .take_while(|&&a| (a as usize) < CELLS)
            .count();
        debug_assert!(board.outcome().is_some() || !actions.is_empty());
        actions.rotate_left(spawns);
    }
}

/// Cells that some SPREAD of `player` would place a token on, as a 49-bit mask.
fn reach(board: &Board, player: usize) -> u64 {
    board
        .stacks(player)
        .flat_map(|(c, k)| RAYS[c].iter().flat_map(move |ray| &ray[..k]))
        .fold(0, |mask, &t| mask | 1 << t)
}

/// Cells next to a stack of `player`, as a mask.
fn neighbourhood(board: &Board, player: usize) -> u64 {
    board
        .stacks(player)
        .flat_map(|(c, _)| RAYS[c].iter().map(|ray| ray[0]))
        .fold(0, |mask, t| mask | 1 << t)
}

impl Baselines for Board {
    type Heuristic = PowerRatio;

    fn greedy_action(&self, rng: &mut Rng) -> Action {
        let me = self.to_move();
        let opp = 1 - me;
        let mut best = Vec::new();
        let mut best_gain = -1i64;
        for (c, _) in self.stacks(me) {
            for dir in 0..DIRS.len() {
                let a = Move::Spread { cell: c, dir }.index();
                let mut next = *self;
                next.apply_unchecked(a);
                let gain = self.power(opp) as i64 - next.power(opp) as i64;
                if gain > best_gain {
                    best_gain = gain;
                    best.clear();
                }
                if gain == best_gain {
                    best.push(a);
                }
            }
        }
        if best_gain > 0 || (!self.spawn_allowed() && !best.is_empty()) {
            return rng.choose(&best).expect("a best spread");
        }
        let empty = (0..CELLS)
            .filter(|&c| self.cell(c) == 0)
            .fold(0u64, |m, c| m | 1 << c);
        let safe = empty & !reach(self, opp);
        let near = safe & neighbourhood(self, me);
        let pool = [near, safe, empty]
            .into_iter()
            .find(|&m| m != 0)
            .unwrap_or(0);
        let cells: Vec<usize> = (0..CELLS).filter(|&c| pool & (1 << c) != 0).collect();
        match rng.choose(&cells) {
            Some(cell) => Move::Spawn { cell }.index(),
            // No empty cell while SPAWN is allowed cannot happen (49 cells, power < 49),
            // but fall back to the best spread rather than panic.
            None => rng.choose(&best).expect("a legal move"),
        }
    }
}
