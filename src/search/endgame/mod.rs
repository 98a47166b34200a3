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
//! ([`Position::rank`]: its score after the move; on bitboards the pieces it adds and
//! takes). The
//! table holds bounds keyed by the position's hash, the search's kind and the root
//! player, with the depth they hold to; it is kept from one solve to the next.
//!
//! The search runs over any [`Position`]: a game's own state, or a faster form of its
//! rules that names the same actions. Ataxx-family boards of side 8 or less are solved
//! on [`Bits`] (the rules on bitboards), 3–4 times the nodes a second of the game's own
//! state; [`Solver::on_game_rules`] keeps to the game's state, for measuring the two.

mod search;

use std::any::Any;
use std::time::Instant;

use super::Stop;
use super::mcts::Proven;
use crate::games::ataxx::Ataxx;
use crate::games::ataxx::bits::Bits;
use crate::games::{Action, Game, Outcome};
use search::Search;

/// Deepest iteration the solver tries (Ataxx's 100-half-move rule can take a game of
/// jumps that far).
pub const MAX_DEPTH: u32 = 250;

/// When to give up.
#[derive(Debug, Clone, Default)]
pub struct SolveLimits {
    /// Stop at this instant.
    pub deadline: Option<Instant>,
    /// Stop after this many nodes.
    pub nodes: Option<u64>,
    /// Stop when asked to.
    pub stop: Stop,
    /// Solve the margin too, once the result is proven (time and nodes allowing).
    pub margin: bool,
}

/// An exact result.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    /// A move that achieves the value.
    pub best: Action,
    /// The exact result for the player to move: +1 a win, 0 a draw, −1 a loss.
    pub result: i32,
    /// The exact margin for the player to move (thousandths of its score share), when
    /// the time allowed solving it too.
    pub margin: Option<i32>,
    /// The depth at which the result was proven (an upper bound on the plies to the end
    /// under best play, of the lines that decide it).
    pub depth: u32,
    /// Nodes searched in all.
    pub nodes: u64,
}

impl Solution {
    /// The result as the tree's proofs write it, for a root where `player` moves (the
    /// depth stands for the plies to the end: an upper bound).
    pub fn proof(&self, player: usize) -> Proven {
        let outcome = match self.result {
            1 => Outcome::win(player, 2),
            -1 => Outcome::win(1 - player, 2),
            _ => Outcome::draw(),
        };
        Proven {
            outcome: outcome.0,
            plies: self.depth,
        }
    }
}

/// What the search needs of a position: the game's own state, or a faster form of its
/// rules that names the same actions.
pub trait Position: Clone {
    /// The player to move.
    fn to_move(&self) -> usize;
    /// `Some` once the game is over.
    fn outcome(&self) -> Option<Outcome>;
    /// Clears `out` and fills it with the legal actions of a position that is not over.
    fn legal_actions(&self, out: &mut Vec<Action>);
    /// Plays a legal action.
    fn play(&mut self, action: Action);
    /// A hash of the whole position.
    fn key(&self) -> u64;
    /// `player`'s share of the game's score, in `[-1, 1]` (0 without a score).
    fn share(&self, player: usize) -> f32;
    /// How good `action` looks to the mover, for ordering (higher first), and the
    /// position after it where ranking had to make it (the search then keeps it).
    fn rank(&self, action: Action) -> (i32, Option<Self>);
}

impl<G: Game> Position for G {
    fn to_move(&self) -> usize {
        Game::to_move(self)
    }

    fn outcome(&self) -> Option<Outcome> {
        Game::outcome(self)
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        Game::legal_actions(self, out)
    }

    fn play(&mut self, action: Action) {
        self.apply(action).expect("a legal move")
    }

    fn key(&self) -> u64 {
        self.hash()
    }

    fn share(&self, player: usize) -> f32 {
        self.score_vector().map_or(0.0, |s| s.value(player))
    }

    /// The mover's score share after the move.
    fn rank(&self, action: Action) -> (i32, Option<Self>) {
        let mut child = self.clone();
        child.play(action);
        (
            (child.share(Position::to_move(self)) * 1e6) as i32,
            Some(child),
        )
    }
}

impl Position for Bits {
    fn to_move(&self) -> usize {
        Bits::to_move(self)
    }

    fn outcome(&self) -> Option<Outcome> {
        Bits::outcome(self)
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        self.moves(out)
    }

    fn play(&mut self, action: Action) {
        self.apply_unchecked(action)
    }

    fn key(&self) -> u64 {
        self.hash()
    }

    fn share(&self, player: usize) -> f32 {
        Outcome::share(self.pieces(0), self.pieces(1)).value(player)
    }

    /// The pieces the move gains, read from the masks: the children are made only when
    /// searched, so a cut-off spares the rest.
    fn rank(&self, action: Action) -> (i32, Option<Self>) {
        (self.gain(action), None)
    }
}

/// A reusable solver with its transposition tables.
pub struct Solver<G: Game> {
    /// The search over the game's own states.
    game: Search<G>,
    /// The search over bitboards, made when an Ataxx-family board first comes.
    bits: Option<Search<Bits>>,
    /// Table size of the bitboard search; `None` to keep to the game's states.
    bits_table: Option<u32>,
}

impl<G: Game> Solver<G> {
    /// A solver with tables of `2^bits` entries (bits clamped to 10..=26).
    pub fn new(bits: u32) -> Solver<G> {
        Solver {
            bits_table: Some(bits),
            ..Solver::on_game_rules(bits)
        }
    }

    /// The same solver over the game's own states only (no bitboards): the reference
    /// for [`Bits`], and what it is measured against.
    pub fn on_game_rules(bits: u32) -> Solver<G> {
        Solver {
            game: Search::new(bits, true),
            bits: None,
            bits_table: None,
        }
    }

    /// The reference: the same deepening and bounds by plain minimax over the game's own
    /// states (no cut-offs, no table), far slower, for measuring the solver and checking
    /// it.
    pub fn reference() -> Solver<G> {
        Solver {
            game: Search::new(0, false),
            bits: None,
            bits_table: None,
        }
    }

    /// Solves `root` (a two-player position that is not over) within `limits`; `order`
    /// lists root moves to try first (the network's preference). `None` if the limits
    /// ran out first or the game is not a two-player one.
    pub fn solve(&mut self, root: &G, order: &[Action], limits: SolveLimits) -> Option<Solution> {
        if root.num_players() != 2 || Game::outcome(root).is_some() {
            return None;
        }
        let board = (root as &dyn Any)
            .downcast_ref::<Ataxx>()
            .and_then(Bits::new);
        match (board, self.bits_table) {
            (Some(board), Some(table)) => self
                .bits
                .get_or_insert_with(|| Search::new(table, true))
                .solve(&board, order, limits),
            _ => self.game.solve(root, order, limits),
        }
    }
}
