//! `contagion selfplay`: a self-play worker that uploads games to a run's store.

use std::path::PathBuf;

use clap::Args;

use super::Games;
use super::common::{QuietFlag, ThreadsFlag};
use crate::config::Config;
use crate::selfplay::worker::WorkerOptions;

/// `contagion selfplay`'s arguments.
#[derive(Debug, Args)]
pub struct SelfplayArgs {
    /// The run's TOML config (the same file the trainer uses).
    #[arg(long)]
    pub config: PathBuf,
    /// Where runs live: a directory or s3://bucket/prefix (credentials and endpoint from
    /// AWS_* variables); the worker plays for STORE/RUN_NAME.
    #[arg(long)]
    pub store: String,
    /// This worker's name in its uploads and in the trainer's metrics (letters, digits,
    /// '-', '_', '.'); default: the host name.
    #[arg(long)]
    pub worker_id: Option<String>,
    /// `--threads`: games played at once.
    #[command(flatten)]
    pub threads: ThreadsFlag,
    /// Stop after this many games (default 0: until the run is finished).
    #[arg(long, default_value_t = 0)]
    pub games: u64,
    /// Finished games per upload (fewer: more, smaller objects; a killed worker loses at
    /// most this many minus one finished games).
    #[arg(long, default_value_t = crate::selfplay::replay::SHARD_GAMES as u64, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub shard_games: u64,
    /// `--quiet`.
    #[command(flatten)]
    pub quiet: QuietFlag,
}

/// Runs `contagion selfplay`.
pub fn run(args: SelfplayArgs, games: &Games) -> anyhow::Result<()> {
    let config = Config::load(&args.config)?;
    let game = games.for_config(&config)?;
    let id = args
        .worker_id
        .or_else(crate::store::local::hostname)
        .unwrap_or_else(|| "worker".into());
    let threads = args.threads.count();
    let opts = WorkerOptions {
        root: args.store,
        id,
        threads,
        games: args.games,
        shard_games: args.shard_games as usize,
        progress: !*args.quiet,
    };
    game.selfplay(&config, &opts)
}
