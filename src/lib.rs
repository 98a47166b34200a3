//! Contagion Zero: an AlphaZero-style self-play trainer for contagion board games.
//!
//! The crate in dependency order (data flows one way, top to bottom):
//!
//! - [`games`]: rules engines behind one [`games::Game`] trait (Infexion first); perft.
//! - [`search`]: game-independent search — alpha-beta / minimax with iterative deepening
//!   and time control, over a [`search::Heuristic`].
//! - [`agents`]: anything that picks a move, behind one [`agents::Agent`] trait: random,
//!   greedy, minimax, alpha-beta, human; built from text specs like `alphabeta:depth=3`.
//! - [`arena`]: matches between agents: colour-balanced games in parallel, W/D/L, Elo.
//! - [`engine`]: the line protocol (`position`, `go`, `perft`, …) for other programs.
//! - [`bench`]: the speed figures printed by `contagion bench`.
//! - [`cli`]: one file per subcommand; `main.rs` only wires them.
//! - [`progress`]: progress bars on a terminal, plain lines otherwise.
//! - [`limits`]: every bound on counts and file sizes, in one place.
//! - [`rng`]: the seeded generator every random choice uses (stable across versions).
//! - [`timestamp`]: UTC timestamps for provenance and game records.

pub mod agents;
pub mod arena;
pub mod bench;
pub mod cli;
pub mod config;
pub mod engine;
pub mod framing;
pub mod games;
pub mod limits;
pub mod nn;
pub mod progress;
pub mod report;
pub mod rng;
pub mod search;
pub mod selfplay;
pub mod store;
pub mod timestamp;
pub mod train;
