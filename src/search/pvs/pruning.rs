//! What the search may skip or search shallower ([`Pruning`]), and the depths and
//! counts its prunings keep to.

/// What the search may skip or search shallower.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pruning {
    /// Late-move reductions: 0 none; 1 a ply (two for the latest moves at depth 5 and
    /// more) from the fourth move at depth 3 and more; 2 growing with the logarithms of
    /// the depth and of the move's place, from the third move; 3 as Ataxx's strongest
    /// public engine, `round(0.8 + 0.4 · ln depth · ln (place + 1))` from the third move,
    /// a ply less on the principal variation and up to two less (or more) by the move's
    /// history.
    pub reductions: u8,
    /// Null-move pruning: where the position's own value is at least beta, the mover
    /// passes and a search [`NULL_REDUCTION`] plies shallower (and more with depth) that
    /// still reaches beta ends the node. Only in games with a null move
    /// ([`Searchable::null_move`](crate::games::Searchable::null_move)), with two players.
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
    /// Quiet-move pruning: at every node but the root, once this many moves are searched,
    /// the moves the game calls quiet ([`crate::games::Game::is_quiet`]: in Ataxx a jump
    /// that takes nothing) are skipped (0 off).
    pub quiet: u8,
    /// The history of cut-offs that orders moves alike in gain: 0 one table for every
    /// side, a cut-off's move gaining depth²; 1 a table a side, bounded by gravity, a
    /// cut-off's move gaining and every move tried before it losing as much.
    pub history: u8,
    /// Futility pruning's margin at the leaves, in the search's integers (0 off): off the
    /// principal variation, within [`FORWARD_FUTILITY_DEPTH`] plies of the leaves, where
    /// the position's own value plus this and half as much again a ply left is at most
    /// alpha, the moves after the first are not searched.
    pub forward: u16,
    /// The plies, from the root, whose moves the network's policy orders (after the
    /// table's move) where the player has a network: 0 none, 1 the root, 2 the root and
    /// the positions after each of its moves ([`super::Pvs::set_prior`]).
    pub prior: u8,
    /// Singular extensions' margin a ply, in the search's integers (0 off): at
    /// [`SINGULAR_DEPTH`] plies and more from the leaves, where the table's move was
    /// searched nearly as deep and was at least as good as the table says, every other
    /// move is searched half as deep against that score less this much a ply left; where
    /// none reaches it the table's move is searched a ply deeper. Only with two players
    /// (in Chexers' paranoid search they lost: `experiments/nnue`).
    pub singular: u16,
    /// Multi-cut, with singular extensions: where the other moves' search reaches its
    /// bound and that bound is at least beta, the node ends there.
    pub multicut: bool,
    /// Negative extensions, with singular extensions: where another move reaches the
    /// bound and the table's score is at least beta, the table's move is searched a ply
    /// shallower.
    pub negative: bool,
    /// The scale of every score and margin: false a value's (`v`, a win 1), true its
    /// logit's (`atanh v`, the public engines' scale: margins weigh alike in even and in
    /// decided positions).
    pub logit: bool,
    /// Quiescence search's plies (0 off): at the leaves, the mover may stand on the
    /// position's own value or play a move the game calls tactical
    /// ([`crate::games::Game::tactical_gains`]: Infexion's captures; none in Ataxx, Virus
    /// and Chexers), for at most this many plies more.
    pub quiesce: u8,
}

impl Pruning {
    /// Full width: nothing pruned.
    pub const NONE: Pruning = Pruning {
        reductions: 0,
        null_move: false,
        futility: 0,
        late_moves: false,
        iterative: 0,
        quiet: 0,
        history: 0,
        forward: 0,
        prior: 0,
        singular: 0,
        multicut: false,
        negative: false,
        logit: false,
        quiesce: 0,
    };
    /// The player's default, as `experiments/nnue` records: the public engine's
    /// reductions by history with a history a side (stronger than the mild reductions
    /// with one history at equal nodes and at 100 ms, which were stronger than none),
    /// reverse futility at 40 a ply and late-move pruning (together stronger than
    /// neither at equal nodes and at 100 ms), internal iterative reductions of two plies
    /// (stronger than none at equal nodes and at 100 ms), singular extensions at 20
    /// thousandths of a win a ply with multi-cut and negative extensions (stronger than
    /// none at equal nodes and at 100 ms), a quiescence search of two plies (in
    /// Infexion stronger than none at equal nodes and against the network at 100 ms;
    /// the other games call no move tactical); no null moves, quiet-move or futility
    /// pruning, the network's order or the logit scale (none measured a gain).
    pub const DEFAULT: Pruning = Pruning {
        reductions: 3,
        null_move: false,
        futility: 40,
        late_moves: true,
        iterative: 2,
        quiet: 0,
        history: 1,
        forward: 0,
        prior: 0,
        singular: 20,
        multicut: true,
        negative: true,
        logit: false,
        quiesce: 2,
    };
}

/// One setting of [`Pruning`] as an integer, for the `nnue:` spec (`nnue:PATH,lmr=2`).
#[derive(Debug, Clone, Copy)]
pub struct PruningKnob {
    /// The spec's key.
    pub key: &'static str,
    /// The letter the spec's form shows for its value.
    pub letter: &'static str,
    /// The largest value (the smallest is 0).
    pub max: u64,
    /// Its value in [`Pruning::DEFAULT`].
    pub default: u64,
    /// The setting's value in `pruning`.
    pub get: fn(&Pruning) -> u64,
    /// Sets it to `value` (at most `max`).
    pub set: fn(&mut Pruning, u64),
}

/// A [`PruningKnob`] for the field `$field` of [`Pruning`]: a number, or a flag (`bool`).
macro_rules! knob {
    ($key:literal, $letter:literal, $max:literal, $field:ident) => {
        PruningKnob {
            key: $key,
            letter: $letter,
            max: $max,
            default: Pruning::DEFAULT.$field as u64,
            get: |p| p.$field as u64,
            set: |p, v| p.$field = v as _,
        }
    };
    ($key:literal, $letter:literal, $field:ident, bool) => {
        PruningKnob {
            key: $key,
            letter: $letter,
            max: 1,
            default: Pruning::DEFAULT.$field as u64,
            get: |p| p.$field as u64,
            set: |p, v| p.$field = v != 0,
        }
    };
}

/// Every setting of [`Pruning`], in the order specs print them.
pub const PRUNING_KNOBS: [PruningKnob; 14] = [
    knob!("lmr", "R", 3, reductions),
    knob!("nmp", "P", null_move, bool),
    knob!("rfp", "F", 1000, futility),
    knob!("lmp", "L", late_moves, bool),
    knob!("iir", "I", 2, iterative),
    knob!("qmp", "Q", 255, quiet),
    knob!("hst", "H", 1, history),
    knob!("fp", "U", 1000, forward),
    knob!("pol", "O", 2, prior),
    knob!("se", "E", 1000, singular),
    knob!("mc", "C", multicut, bool),
    knob!("ne", "X", negative, bool),
    knob!("lgt", "G", logit, bool),
    knob!("qs", "K", 32, quiesce),
];

impl Default for Pruning {
    fn default() -> Pruning {
        Pruning::DEFAULT
    }
}

/// Plies a null move's search is shallower than the node's child, at least.
pub const NULL_REDUCTION: i32 = 2;
/// The deepest remaining depth at which reverse futility pruning ends a node.
pub const FUTILITY_DEPTH: i32 = 4;
/// The deepest remaining depth at which futility pruning skips a node's later moves.
pub const FORWARD_FUTILITY_DEPTH: i32 = 6;
/// The shallowest remaining depth at which a singular extension is tried.
pub const SINGULAR_DEPTH: i32 = 6;
/// A table's entry this many plies shallower than the node still starts a singular
/// extension's test.
pub const SINGULAR_TABLE_SLACK: i32 = 3;
/// The deepest remaining depth at which late moves are pruned.
pub const LATE_MOVE_DEPTH: i32 = 3;

/// The moves searched at `depth` (at most [`LATE_MOVE_DEPTH`]) before late-move pruning
/// skips the rest: 6, 12 and 22 from the leaves up.
pub const fn late_moves(depth: i32) -> usize {
    (4 + 2 * depth * depth) as usize
}
