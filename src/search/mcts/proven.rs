//! [`Proven`]: an exact result in the search tree, and how results compare for a seat
//! (the tree's proofs are in [`super::proof`]).

use crate::games::{MAX_PLAYERS, Outcome};

/// A proven result: the exact outcome and the plies to the end of the game under best play.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Proven {
    /// The outcome for each seat.
    pub outcome: [f32; MAX_PLAYERS],
    /// Plies from this position to the finished game (0 for a finished game).
    pub plies: u32,
}

impl Proven {
    /// The proof of a finished game.
    pub fn terminal(outcome: Outcome) -> Proven {
        Proven {
            outcome: outcome.0,
            plies: 0,
        }
    }

    /// Whether `player` wins (value +1, the best any outcome gives).
    pub fn wins(&self, player: usize) -> bool {
        self.outcome[player] >= 1.0
    }

    /// Whether `player` loses (value −1, the worst any outcome gives).
    pub fn loses(&self, player: usize) -> bool {
        self.outcome[player] <= -1.0
    }

    /// The result in the engine's `mate` convention for `player`: `Some(n)`, a win in `n`
    /// of `player`'s own moves, `Some(-n)` a loss after `n` of them; `None` for neither.
    pub fn mate_in(&self, player: usize) -> Option<i64> {
        let plies = self.plies as i64;
        if self.wins(player) {
            Some((plies + 1) / 2)
        } else if self.loses(player) {
            Some(-(plies / 2))
        } else {
            None
        }
    }

    /// How `player` ranks two proofs of a move: more value first, then the quickest win,
    /// the slowest loss, the quickest draw. `Greater` means `self` is better.
    pub fn cmp_for(&self, other: &Proven, player: usize) -> std::cmp::Ordering {
        let (a, b) = (self.outcome[player], other.outcome[player]);
        a.total_cmp(&b).then_with(|| {
            if a < 0.0 {
                self.plies.cmp(&other.plies) // a slower loss is better
            } else {
                other.plies.cmp(&self.plies) // a quicker win or draw is better
            }
        })
    }
}

impl Proven {
    /// This proof seen one ply up.
    pub(super) fn deeper(self) -> Proven {
        Proven {
            plies: self.plies + 1,
            ..self
        }
    }
}
