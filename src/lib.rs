//! Contagion Zero: an AlphaZero-style self-play trainer for contagion board games.
//!
//! The crate in dependency order, bottom up: a module uses only modules above it in this
//! list (`tests/suite/imports.rs` checks the imports against it; `docs/design.md` describes each
//! file).
//!
//! 1. [`limits`] (every bound on counts and sizes), [`rng`] (the seeded generator every
//!    random choice uses), [`timestamp`], [`progress`], [`framing`] (the checksummed,
//!    versioned files checkpoints and shards are), [`figure`] (SVG and PNG figures).
//! 2. [`games`]: rules engines behind one [`games::Game`] trait, and the registry of
//!    games ([`games::GameKind`]); perft.
//! 3. [`search`]: game-independent search: alpha-beta / minimax / max^n with iterative
//!    deepening and time control, batched PUCT / Gumbel MCTS with proven results, and an
//!    exact endgame solver.
//! 4. [`store`]: where a run lives (a directory or S3) behind one trait, with its lock.
//! 5. [`nn`]: the policy-value network (burn), its fast CPU forward and training step,
//!    the evaluator MCTS calls, checkpoints, exported bundles and the models index.
//! 6. [`agents`]: anything that picks a move, behind one [`agents::Agent`] trait: random,
//!    greedy, minimax, alpha-beta, a network with MCTS, an external engine, a human;
//!    built from text specs like `alphabeta:depth=3`.
//! 7. [`arena`]: matches and tournaments between agents: W/D/L, Elo, game records,
//!    ladders; [`engine`]: the UCI/UAI line protocol for other programs.
//! 8. [`config`]: training configs (TOML), every field declared once.
//! 9. [`selfplay`]: games of the network against itself, the replay buffer and its
//!    shards, and `contagion selfplay` workers.
//! 10. [`train`]: the training loop: self-play → replay → training steps → gating and
//!     baselines → checkpoints and metrics, resumable after a crash.
//! 11. [`report`]: learning curves and tables from a run's metrics.
//! 12. [`bench`](mod@bench): the speed figures printed by `contagion bench`; `serve`: the
//!     web page to play the models and watch runs (feature `serve`).
//! 13. [`cli`]: one file per subcommand; `main.rs` only wires them.
//!
//! Data flow of a run: `train` asks `selfplay` for games (MCTS from `search` guided by
//! `nn`'s evaluator), stores them through `store`, trains `nn`'s network on batches from
//! the replay window, gates the candidate with `arena` matches, and writes checkpoints
//! (`framing`) and metrics (`report` draws them).

#![warn(missing_docs)]

pub mod figure;
pub mod framing;
pub mod limits;
pub mod progress;
pub mod rng;
pub mod timestamp;

pub mod games;

pub mod search;

pub mod store;

pub mod nn;

pub mod agents;

pub mod arena;
pub mod engine;

pub mod config;

pub mod selfplay;

pub mod train;

pub mod report;

pub mod bench;
#[cfg(feature = "serve")]
pub mod serve;

pub mod cli;
