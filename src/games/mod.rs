//! The rules engines, behind one [`Game`] trait, and the [`conformance`] kit that holds
//! any implementation to it.
//!
//! Everything above this module (agents, search, arena, the engine protocol) sees a game
//! only through [`Game`]: a state with a player to move, legal actions as indices into a
//! fixed action space, `apply`, a terminal [`Outcome`] with one value per player, a tensor
//! encoding, symmetries and a text notation. Nothing here assumes two players or a hex
//! board: Infexion ([`infexion`]), Ataxx and Virus ([`ataxx`]) and Chexers ([`chexers`]) implement it.
//!
//! ```
//! use contagion::games::Game;
//! use contagion::games::infexion::Board;
//!
//! let mut game = Board::new();
//! let mut moves = Vec::new();
//! game.legal_actions(&mut moves);
//! assert_eq!(moves.len(), 49); // SPAWN anywhere on the empty board
//! for text in ["SPAWN(0,0)", "SPAWN(0,1)", "SPREAD(0,0,0,1)"] {
//!     let action = game.parse_legal_action(text).unwrap();
//!     game.apply(action).unwrap();
//! }
//! assert_eq!(game.outcome().unwrap().winner(), Some(0)); // Red took Blue's only token
//! assert_eq!(game.to_notation(), "1r25/7/7/7/7/7/7 b 3"); // a 2-stack at (0,1)
//! ```

pub mod ataxx;
pub mod chexers;
pub mod conformance;
mod contract;
pub mod infexion;
mod kind;
pub mod perft;
pub mod searchable;
mod terms;
pub mod tuples;
pub mod view;

pub use contract::{EncodingShape, Game, share_key};
pub(crate) use kind::with_game;
pub use kind::{GameKind, GameName, find_game};
pub use searchable::{FeatureSink, Searchable};
pub use terms::{Action, FEATURE_ON, GameError, MAX_PLAYERS, Outcome, hot_entries};
