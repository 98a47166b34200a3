//! What the search may skip or search shallower ([`Pruning`]), and the depths and
//! counts its prunings keep to.

/// What the search may skip or search shallower.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pruning {
    /// Late-move reductions: 0 none; 1 a ply (two for the latest moves at depth 5 and
    /// more) from the fourth move at depth 3 and more; 2 growing with the logarithms of
    /// the depth and of the move's place, from the third move.
    pub reductions: u8,
    /// Null-move pruning: where the position's own value is at least beta, the mover
    /// passes and a search [`NULL_REDUCTION`] plies shallower (and more with depth) that
    /// still reaches beta ends the node. Only in games with a null move
    /// ([`super::Node::null_move`]), with two players.
    pub null_move: bool,
    /// Reverse futility pruning's margin a ply, in the search's integers (0 off): off the
    /// principal variation, within [`FUTILITY_DEPTH`] plies of the leaves, a position
    /// whose own value beats beta by this much for each ply left ends its node.
    pub futility: u16,
    /// Late-move pruning: off the principal variation, within [`LATE_MOVE_DEPTH`] plies of
    /// the leaves, the moves after the first [`late_moves`]`(depth)` are not searched.
    pub late_moves: bool,
    /// Internal iterative reductions: where the table holds nothing for a position at
    /// depth 4 and more (no move to search first), it is searched shallower: 0 not; 1 a
    /// ply; 2 two plies (three from depth 7).
    pub iterative: u8,
}

impl Pruning {
    /// Full width: nothing pruned.
    pub const NONE: Pruning = Pruning {
        reductions: 0,
        null_move: false,
        futility: 0,
        late_moves: false,
        iterative: 0,
    };
    /// The player's default, as `experiments/nnue` records: the mild reductions (stronger
    /// than none at equal nodes and at 100 ms), reverse futility at 40 a ply and late-move
    /// pruning (together stronger than neither at equal nodes and at 100 ms), internal
    /// iterative reductions of two plies (stronger than none at equal nodes and at
    /// 100 ms), and no null moves (no gain measured).
    pub const DEFAULT: Pruning = Pruning {
        reductions: 1,
        null_move: false,
        futility: 40,
        late_moves: true,
        iterative: 2,
    };
}

impl Default for Pruning {
    fn default() -> Pruning {
        Pruning::DEFAULT
    }
}

/// Plies a null move's search is shallower than the node's child, at least.
pub const NULL_REDUCTION: i32 = 2;
/// The deepest remaining depth at which reverse futility pruning ends a node.
pub const FUTILITY_DEPTH: i32 = 4;
/// The deepest remaining depth at which late moves are pruned.
pub const LATE_MOVE_DEPTH: i32 = 3;

/// The moves searched at `depth` (at most [`LATE_MOVE_DEPTH`]) before late-move pruning
/// skips the rest: 6, 12 and 22 from the leaves up.
pub const fn late_moves(depth: i32) -> usize {
    (4 + 2 * depth * depth) as usize
}
