//! Anything that picks a move, behind one [`Agent`] trait, so `eval`, `play` and `engine`
//! treat them alike.
//!
//! - [`spec`]: agent specs such as `random`, `greedy`, `minimax:depth=2`,
//!   `alphabeta:depth=3`, `alphabeta:ms=100`, `human`, and building agents from them.
//! - [`baseline`]: the game-independent baseline agents (random, greedy, alpha-beta).
//! - [`infexion`], [`ataxx`], [`chexers`]: each game's greedy policy and evaluation.
//! - [`mcts`]: MCTS guided by a trained network (`model:PATH`).
//! - [`nnue`]: alpha-beta over the fast evaluator the network taught (`nnue:PATH`).
//! - [`external`]: another program speaking the engine protocol (`engine:COMMAND`).
//!
//! The baselines are the fixed yardstick the trainer gates against: deterministic given
//! a seed (time-limited search excepted, which depends on the machine's speed) and meant
//! to stay the same across versions. Changing them changes the meaning of past results.

pub mod agent;
pub mod ataxx;
pub mod baseline;
pub mod chexers;
pub mod external;
pub mod infexion;
pub mod knobs;
pub mod mcts;
pub mod nnue;
pub mod spec;
pub mod timing;

pub(crate) use agent::solved_info;
pub use agent::{
    Agent, AgentOption, Baselines, EarlyAnswer, Limits, Score, SearchInfo, WriteAnswer,
    best_scoring, move_budget,
};
pub use spec::AgentSpec;
