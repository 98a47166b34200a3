//! What the search needs of its leaf evaluation ([`Evaluation`]); of a position it needs
//! what [`Searchable`](crate::games::Searchable) says.

use crate::games::MAX_PLAYERS;

/// The leaf evaluation: entered at every node the search visits, in path order.
pub trait Evaluation<G>: Send {
    /// The search is at `ply` in `state` (ply 0 the root); every ply below it on the
    /// path was entered before it, and nothing deeper since.
    fn enter(&mut self, ply: usize, state: &G);
    /// The values of the position last entered at `ply`, relative to its mover (0 the
    /// mover, 1 the next seat …), each in [-1, 1].
    fn values(&mut self, ply: usize) -> [f32; MAX_PLAYERS];
    /// The value of that position for its mover alone (all a search of two players
    /// reads): `values(ply)[0]`, which an evaluation may make without the other seats'.
    fn value(&mut self, ply: usize) -> f32 {
        self.values(ply)[0]
    }
}
