//! Exact endgame solving for two-player games: alpha-beta over the game's own result.
//!
//! The value of a finished game for a player is its result first (win > draw > loss, by
//! the game's rules: Ataxx's 100-half-move rule included, since the position carries its
//! clock) and its margin second (the player's share of the game's score,
//! [`Game::score_vector`], in thousandths). A position is *solved* when its value is
//! known exactly.
//!
//! Games here need not end within a fixed number of plies (an Ataxx jump fills no
//! square), so the solver deepens iteratively and, at each depth, runs two alpha-beta
//! searches that differ only in how they score a position at the depth limit: as lost
//! for the root player (a lower bound on the true value) and as won (an upper bound).
//! When the two meet, the value is exact and the lower-bound search's move achieves it.
//! The result is solved first (a narrow window of three values), then, time allowing,
//! the margin within it.
//!
//! Moves are ordered by the transposition table's best move, then by the caller's order
//! at the root (the network's policy), then by what the move gains the mover
//! ([`Searchable::rank`](crate::games::Searchable::rank): its score after the move; on bitboards the pieces it adds and
//! takes). The
//! table holds bounds keyed by the position's hash, the search's kind and the root
//! player, with the depth they hold to; it is kept from one solve to the next.
//!
//! The search runs over any [`Searchable`](crate::games::Searchable) position: a game's
//! own state, or the faster form of its rules its [`Game::fast`] gives (Ataxx-family
//! boards of side 8 or less: bitboards, 3–4 times the nodes a second of the game's own
//! state); [`Solver::on_game_rules`] keeps to the game's state, for measuring the two.

mod search;

use crate::games::{Action, Game};
use search::Search;

pub use search::{MAX_DEPTH, Solution, SolveLimits};

/// A reusable solver with its transposition tables.
pub struct Solver<G: Game> {
    /// The search over the game's own states.
    game: Search<G>,
    /// The search over the game's faster form ([`Game::fast`]), made when a position
    /// that has one first comes.
    fast: Option<Search<G::Fast>>,
    /// Table size of the faster form's search; `None` to keep to the game's states.
    fast_table: Option<u32>,
}

impl<G: Game> Solver<G> {
    /// A solver with tables of `2^bits` entries (bits clamped to 10..=26).
    pub fn new(bits: u32) -> Solver<G> {
        Solver {
            fast_table: Some(bits),
            ..Solver::on_game_rules(bits)
        }
    }

    /// The same solver over the game's own states only (not its faster form): the
    /// reference for [`Game::fast`], and what it is measured against.
    pub fn on_game_rules(bits: u32) -> Solver<G> {
        Solver {
            game: Search::new(bits, true),
            fast: None,
            fast_table: None,
        }
    }

    /// The reference: the same deepening and bounds by plain minimax over the game's own
    /// states (no cut-offs, no table), far slower, for measuring the solver and checking
    /// it.
    pub fn reference() -> Solver<G> {
        Solver {
            game: Search::new(0, false),
            fast: None,
            fast_table: None,
        }
    }

    /// Solves `root` (a two-player position that is not over) within `limits`; `order`
    /// lists root moves to try first (the network's preference). `None` if the limits
    /// ran out first or the game is not a two-player one.
    pub fn solve(&mut self, root: &G, order: &[Action], limits: SolveLimits) -> Option<Solution> {
        if root.num_players() != 2 || Game::outcome(root).is_some() {
            return None;
        }
        match self.fast_table.and_then(|t| Some((t, root.fast()?))) {
            Some((table, fast)) => self
                .fast
                .get_or_insert_with(|| Search::new(table, true))
                .solve(&fast, order, limits),
            _ => self.game.solve(root, order, limits),
        }
    }
}
