//! What the alpha-beta searches (the endgame solver, the `nnue:` player) need of a
//! position: [`Searchable`]. Every game is searchable through its own rules; a game may
//! offer a faster form of them that names the same actions
//! ([`Game::fast`](super::Game::fast): Ataxx's bitboards), and the searches run on that
//! where it is given.

use super::terms::{Action, Outcome};

/// Where a position's features go: the fast evaluator's set of active inputs.
pub trait FeatureSink {
    /// Empties the set.
    fn clear(&mut self);
    /// Adds input `i`.
    fn insert(&mut self, i: u32);
    /// Adds input `offset + b` for each set bit `b` of `bits`.
    fn insert_bits(&mut self, offset: u32, mut bits: u64) {
        while bits != 0 {
            self.insert(offset + bits.trailing_zeros());
            bits &= bits - 1;
        }
    }
}

/// A list as a sink, in the order the inputs come (a check's view of them).
impl FeatureSink for Vec<u32> {
    fn clear(&mut self) {
        Vec::clear(self)
    }

    fn insert(&mut self, i: u32) {
        self.push(i)
    }
}

/// A position the searches run on: a game's own state ([`Game`](super::Game) implements
/// it from its rules), or the faster form of them its [`Game::fast`](super::Game::fast)
/// gives. The two name the same actions, players and features.
pub trait Searchable: Clone + Send + Sync + 'static {
    /// The player to move.
    fn to_move(&self) -> usize;
    /// `Some` once the game is over.
    fn outcome(&self) -> Option<Outcome>;
    /// Clears `out` and fills it with the legal actions of a position that is not over.
    fn legal_actions(&self, out: &mut Vec<Action>);
    /// Calls `f` with each legal action, in [`Searchable::legal_actions`]'s order, and
    /// the gain [`Searchable::rank`] gives it, and returns `true`, where the two are made
    /// together ([`Game::legal_gains`](super::Game::legal_gains)); `false` (the
    /// default), calling nothing.
    fn legal_gains(&self, _f: impl FnMut(Action, i32)) -> bool {
        false
    }
    /// Plays a legal action.
    fn play(&mut self, action: Action);
    /// A hash of the whole position.
    fn key(&self) -> u64;
    /// `player`'s share of the game's score, in `[-1, 1]` (0 without a score).
    fn share(&self, player: usize) -> f32;
    /// How good `action` looks to the mover, for ordering (higher first), and the
    /// position after it where ranking had to make it (the search then keeps it).
    fn rank(&self, action: Action) -> (i32, Option<Self>);
    /// The number of players.
    fn players(&self) -> usize;
    /// The size of the action space.
    fn actions(&self) -> usize;
    /// Clears `out` and fills it with the fast evaluator's features: the entries of the
    /// game's encoding that are at least one half
    /// ([`Game::hot_inputs`](super::Game::hot_inputs); `scratch` holds the encoding where
    /// it is made).
    fn features(&self, scratch: &mut Vec<f32>, out: &mut impl FeatureSink);
    /// The length of the game's encoding: where [`Searchable::features`] ends.
    fn encoding_len(&self) -> usize;
    /// Adds the 2×2 tuple features as seat `viewer` sees the board (the mover, or
    /// another seat for an evaluator's perspective form) to `out`, numbered from
    /// `offset` ([`Game::tuple_inputs`](super::Game::tuple_inputs); none where the game
    /// has no owner map).
    fn tuples(&self, viewer: usize, offset: u32, out: &mut impl FeatureSink);
    /// The position with the turn passed, for null-move pruning; `None` (the default)
    /// where the search should not try one.
    fn null_move(&self) -> Option<Self> {
        None
    }
    /// Whether a legal `action` is quiet ([`Game::is_quiet`](super::Game::is_quiet)), for
    /// quiet-move pruning.
    fn quiet(&self, action: Action) -> bool;
    /// Calls `f` with each legal action a quiescence search plays on with, and its gain
    /// ([`Game::tactical_gains`](super::Game::tactical_gains)); none (the default).
    fn tactical_gains(&self, _f: impl FnMut(Action, i32)) {}
}
