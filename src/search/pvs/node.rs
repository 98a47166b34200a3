//! What the search needs of a position ([`Node`]: a game's own state, or Ataxx's
//! bitboards) and of its leaf evaluation ([`Evaluation`]).

use super::Features;
use crate::games::ataxx::bits::Bits;
use crate::games::{Game, MAX_PLAYERS};
use crate::search::endgame::Position;

/// What the search needs of a position beyond [`Position`]: a game's own state, or a
/// faster form of its rules that names the same actions (Ataxx's [`Bits`]).
pub trait Node: Position + Send {
    /// The number of players.
    fn players(&self) -> usize;
    /// The size of the action space.
    fn actions(&self) -> usize;
    /// Clears `out` and fills it with the fast evaluator's features: the entries of the
    /// game's encoding that are at least one half ([`Game::hot_inputs`]; `scratch` holds
    /// the encoding where it is made).
    fn features(&self, scratch: &mut Vec<f32>, out: &mut Features);
    /// Adds the 2×2 tuple features to `out` ([`Game::tuple_inputs`]; none where the game
    /// has no owner map).
    fn tuples(&self, out: &mut Features);
    /// The position with the turn passed, for null-move pruning; `None` (the default)
    /// where the search should not try one.
    fn null_move(&self) -> Option<Self> {
        None
    }
    /// Whether a legal `action` is quiet ([`Game::is_quiet`]), for quiet-move pruning.
    fn quiet(&self, action: crate::games::Action) -> bool;
}

impl<G: Game> Node for G {
    fn players(&self) -> usize {
        self.num_players()
    }

    fn actions(&self) -> usize {
        self.action_space()
    }

    fn features(&self, scratch: &mut Vec<f32>, out: &mut Features) {
        out.clear();
        self.hot_inputs(scratch, &mut |i| out.insert(i));
    }

    fn tuples(&self, out: &mut Features) {
        self.tuple_inputs(&mut |i| out.insert(i));
    }

    fn quiet(&self, action: crate::games::Action) -> bool {
        self.is_quiet(action)
    }
}

impl Node for Bits {
    fn players(&self) -> usize {
        2
    }

    fn actions(&self) -> usize {
        self.action_space()
    }

    fn features(&self, _scratch: &mut Vec<f32>, out: &mut Features) {
        out.clear();
        let cells = (self.side() * self.side()) as u32;
        for (p, plane) in self.feature_planes().into_iter().enumerate() {
            out.insert_bits(p as u32 * cells, plane);
        }
    }

    fn tuples(&self, out: &mut Features) {
        let offset = (self.side() * self.side() * crate::games::ataxx::PLANES) as u32;
        let per = crate::games::tuples::patterns(2) as u32;
        self.tuple_patterns(|window, pattern| out.insert(offset + window * per + pattern));
    }

    fn null_move(&self) -> Option<Bits> {
        Some(self.passed())
    }

    /// A jump that takes nothing: the one kind of move but a pass (the last action) that
    /// gains nothing.
    fn quiet(&self, action: crate::games::Action) -> bool {
        self.gain(action) == 0 && (action as usize) + 1 < self.action_space()
    }
}

/// The leaf evaluation: entered at every node the search visits, in path order.
pub trait Evaluation<G>: Send {
    /// The search is at `ply` in `state` (ply 0 the root); every ply below it on the
    /// path was entered before it, and nothing deeper since.
    fn enter(&mut self, ply: usize, state: &G);
    /// The values of the position last entered at `ply`, relative to its mover (0 the
    /// mover, 1 the next seat …), each in [-1, 1].
    fn values(&mut self, ply: usize) -> [f32; MAX_PLAYERS];
}
