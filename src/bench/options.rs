//! `contagion bench`'s options, one struct a kind: each flag, its default and its range
//! declared here once, for the command's parser, its help and the measurements of
//! [`command`](super::command) that read them.

use clap::Args;

use crate::nn::nnue::{Activation, FeatureSet};

/// Random playouts per second and perft nodes per second.
#[derive(Debug, Clone, Args)]
pub struct RulesOptions {
    /// Random games per round.
    #[arg(long, default_value_t = 20_000)]
    pub playouts: usize,
    /// Perft depth from the start position.
    #[arg(long, default_value_t = 4)]
    pub perft_depth: u32,
}

/// Alpha-beta nodes per second at a fixed depth over sampled mid-game positions.
#[derive(Debug, Clone, Args)]
pub struct SearchOptions {
    /// Alpha-beta depth in plies.
    #[arg(long, default_value_t = 3)]
    pub depth: u32,
    /// Positions searched per round.
    #[arg(long, default_value_t = 20)]
    pub positions: usize,
}

/// The exact endgame solver against plain minimax (its reference) and against itself
/// on the game's own states (Ataxx's bitboards off) on the last positions of
/// alpha-beta games: solved and median time by endgame size (Ataxx, Virus: empty
/// squares).
#[derive(Debug, Clone, Args)]
pub struct EndgameOptions {
    /// The largest endgame size measured (from 1).
    #[arg(long, default_value_t = 6)]
    pub size: u32,
    /// Positions per size.
    #[arg(long, default_value_t = 20)]
    pub positions: usize,
    /// Time per position, in milliseconds.
    #[arg(long, default_value_t = 100)]
    pub ms: u64,
    /// Also run the reference on every position.
    #[arg(long)]
    pub reference: bool,
    /// Also run the solver on the game's own states (without bitboards) on every
    /// position.
    #[arg(long)]
    pub game_rules: bool,
    /// Take the positions from the games in this record (PGN) instead.
    #[arg(long, value_name = "FILE")]
    pub pgn: Option<std::path::PathBuf>,
    /// Instead of timing the solver: how often this agent's move (at `--ms` a move)
    /// keeps the exact result of positions the solver proves within `--exact-ms`.
    #[arg(long, value_name = "SPEC")]
    pub agent: Option<String>,
    /// The solver's time per position for the exact results `--agent` is held to.
    #[arg(long, default_value_t = 10_000)]
    pub exact_ms: u64,
}

/// Network inference: positions per second by batch size.
#[derive(Debug, Clone, Args)]
pub struct NnOptions {
    /// Residual blocks of the network measured.
    #[arg(long, default_value_t = 4)]
    pub blocks: usize,
    /// Channels per block.
    #[arg(long, default_value_t = 32)]
    pub channels: usize,
    /// Batch sizes, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,8,64,256")]
    pub batch: Vec<usize>,
    /// Time this model (a bundle, checkpoint or run directory) instead of a fresh
    /// `--blocks` x `--channels` network.
    #[arg(long, value_name = "PATH")]
    pub model: Option<std::path::PathBuf>,
    /// Threads one forward is split over (by positions).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Also time burn's forward (the previous inference path) on the same inputs.
    #[arg(long)]
    pub reference: bool,
    /// Write 16 encoded sample positions with this forward's outputs as JSON
    /// (`{batch, input, logits, values}`) to PATH, for comparing other runtimes.
    #[arg(long, value_name = "PATH")]
    pub dump: Option<std::path::PathBuf>,
}

/// How closely the low-precision forwards follow the float one, their reference, on
/// the same positions: the best legal move kept, the values' differences, and how far
/// below the best move's float logit each move they pick instead lies.
#[derive(Debug, Clone, Args)]
pub struct AgreeOptions {
    /// The model compared (a bundle, checkpoint or run directory).
    #[arg(long, value_name = "PATH")]
    pub model: std::path::PathBuf,
    /// Positions compared.
    #[arg(long, default_value_t = 10_000)]
    pub positions: usize,
    /// Take the positions from the games in this record (PGN) instead of games of
    /// greedy moves (a fifth of them random).
    #[arg(long, value_name = "FILE")]
    pub pgn: Option<std::path::PathBuf>,
}

/// Self-play: positions per second, network share of the time, batch size, cache hits.
#[derive(Debug, Clone, Args)]
pub struct SelfplayOptions {
    /// Residual blocks of the network measured.
    #[arg(long, default_value_t = 4)]
    pub blocks: usize,
    /// Channels per block.
    #[arg(long, default_value_t = 32)]
    pub channels: usize,
    /// MCTS simulations per move.
    #[arg(long, default_value_t = 64)]
    pub sims: u32,
    /// Worker threads.
    #[arg(long, default_value_t = 2)]
    pub workers: usize,
    /// Games in flight per worker.
    #[arg(long, default_value_t = 16)]
    pub concurrent: usize,
    /// Moves played per game (from the start).
    #[arg(long, default_value_t = 24)]
    pub moves: u32,
    /// Leaves each tree adds to a batch (virtual loss).
    #[arg(long, default_value_t = 1)]
    pub leaves: u32,
    /// Run it twice, the second time with burn's forward (the previous inference
    /// path), and print both.
    #[arg(long)]
    pub reference: bool,
    /// Run it again with the workers' batches gathered into forwards of this many
    /// positions (the inference queue, `selfplay.inference_batch`), and print both.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub inference_batch: usize,
    /// Take the network size, simulations, workers, games in flight and leaves per tree
    /// from this training config instead.
    #[arg(long, value_name = "PATH")]
    pub config: Option<std::path::PathBuf>,
}

/// The fast evaluator's cost a position, and its alpha-beta player's nodes a second
/// from the start beside the network search's simulations a second.
#[derive(Debug, Clone, Args)]
pub struct NnueOptions {
    /// The evaluator bundle (`models/<game>`: the game's current one).
    #[arg(long, value_name = "PATH")]
    pub evaluator: std::path::PathBuf,
    /// A network to measure MCTS beside it.
    #[arg(long, value_name = "PATH")]
    pub model: Option<std::path::PathBuf>,
    /// Milliseconds a search.
    #[arg(long, default_value_t = 1000)]
    pub ms: u64,
    /// Also play this many games of the player against itself at `--data-nodes` a move
    /// on every core, as `distill --generate --player` writes them (to a temporary
    /// directory), and print the positions a second against what the nodes a second
    /// allow (0: none).
    #[arg(long, default_value_t = 0)]
    pub data_games: u32,
    /// The player's nodes a move in those games.
    #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub data_nodes: u64,
}

/// Training steps: samples per second.
#[derive(Debug, Clone, Args)]
pub struct TrainOptions {
    /// Residual blocks of the network measured.
    #[arg(long, default_value_t = 4)]
    pub blocks: usize,
    /// Channels per block.
    #[arg(long, default_value_t = 32)]
    pub channels: usize,
    /// Training batch size (positions per step).
    #[arg(long, default_value_t = 128)]
    pub batch: usize,
    /// Steps per round.
    #[arg(long, default_value_t = 10)]
    pub steps: usize,
    /// Threads one step is split over.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Also time burn's autodiff step (the reference) on the same batches.
    #[arg(long)]
    pub reference: bool,
    /// Write the network's weights (safetensors, burn's layout and names) and the
    /// first batch with this step's losses and gradients (JSON) under this directory,
    /// for checking other frameworks against it.
    #[arg(long, value_name = "DIR")]
    pub dump: Option<std::path::PathBuf>,
}

/// The evaluator's training step: positions a second.
#[derive(Debug, Clone, Args)]
pub struct DistillBenchOptions {
    /// The feature set (`distill.features`).
    #[arg(long, default_value = "2x2", value_parser = |s: &str| FeatureSet::parse(s).map_err(|e| e.to_string()))]
    pub features: FeatureSet,
    /// The accumulator's activation (`distill.activation`).
    #[arg(long, default_value = "crelu", value_parser = |s: &str| Activation::try_from(s.to_string()))]
    pub activation: Activation,
    /// Accumulator units.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub hidden: u32,
    /// Dense units after them (0: none).
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(0..=1024))]
    pub dense: u32,
    /// Positions a step.
    #[arg(long, default_value_t = 16_384, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub batch: u32,
    /// Steps a round.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub steps: u32,
    /// The perspective form: an accumulator a seat (`distill.perspective`).
    #[arg(long)]
    pub perspective: bool,
    /// Also time burn's autodiff step (the reference) on the same batches, one round.
    #[arg(long)]
    pub reference: bool,
}
