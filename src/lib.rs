//! Contagion Zero: an AlphaZero-style self-play trainer for contagion board games.
//!
//! The crate in dependency order (data flows one way, top to bottom):
//!
//! - [`games`]: rules engines behind one [`games::Game`] trait, and the registry of
//!   games ([`games::GameKind`]); perft.
//! - [`search`]: game-independent search: alpha-beta / minimax / max^n with iterative
//!   deepening and time control, and batched PUCT / Gumbel MCTS.
//! - [`nn`]: the policy-value network (burn), its fast CPU forward and training step,
//!   the evaluator MCTS calls, checkpoints and exported bundles.
//! - [`agents`]: anything that picks a move, behind one [`agents::Agent`] trait: random,
//!   greedy, minimax, alpha-beta, a network with MCTS, an external engine, a human;
//!   built from text specs like `alphabeta:depth=3`.
//! - [`arena`]: matches and tournaments between agents: W/D/L, Elo, game records.
//! - [`engine`]: the UCI/UAI line protocol for other programs.
//! - [`config`]: training configs (TOML), validated field by field.
//! - [`selfplay`]: games of the network against itself, the replay buffer and its
//!   shards, and `contagion selfplay` workers.
//! - [`train`]: the training loop: self-play → replay → training steps → gating and
//!   baselines → checkpoints and metrics, resumable after a crash.
//! - [`store`]: where a run lives (a directory or S3) behind one trait, with its lock;
//!   [`framing`]: the checksummed, versioned files checkpoints and shards are.
//! - [`report`]: learning curves and tables from a run's metrics.
//! - [`bench`](mod@bench): the speed figures printed by `contagion bench`.
//! - `serve`: the web page to play the models and watch runs (feature `serve`).
//! - [`cli`]: one file per subcommand; `main.rs` only wires them.
//! - [`progress`], [`limits`] (every bound on counts and sizes), [`rng`] (the seeded
//!   generator every random choice uses), [`timestamp`].
//!
//! Data flow of a run: `train` asks `selfplay` for games (MCTS from `search` guided by
//! `nn`'s evaluator), stores them through `store`, trains `nn`'s network on batches from
//! the replay window, gates the candidate with `arena` matches, and writes checkpoints
//! (`framing`) and metrics (`report` draws them).

#![warn(missing_docs)]

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
#[cfg(feature = "serve")]
pub mod serve;
pub mod store;
pub mod timestamp;
pub mod train;
