//! `contagion train`: train from a config; resumes an existing run.

use std::path::PathBuf;

use clap::Args;

use super::Games;
use super::common::QuietFlag;
use crate::config::Config;
use crate::train::TrainOptions;

/// `contagion train`'s arguments.
#[derive(Debug, Args)]
pub struct TrainArgs {
    /// The TOML config (`contagion config` prints every field).
    #[arg(long)]
    pub config: PathBuf,
    /// Override one config field, validated like the file: `--set mcts.simulations=64`
    /// (repeatable; values are TOML: numbers, true/false, "strings", arrays).
    #[arg(long = "set", value_name = "SECTION.KEY=VALUE")]
    pub overrides: Vec<String>,
    /// Start over: an existing run directory is moved aside (never overwritten).
    #[arg(long)]
    pub fresh: bool,
    /// Where runs live: a directory holding run directories.
    #[arg(long, default_value = "checkpoints", conflicts_with = "store")]
    pub checkpoints: PathBuf,
    /// Where runs live, as a store URL: a directory or s3://bucket/prefix (credentials
    /// and endpoint from AWS_* variables). The run is STORE/RUN_NAME.
    #[arg(long)]
    pub store: Option<String>,
    /// Seconds an S3 run's lease outlives a trainer that stopped renewing it (killed):
    /// a resume before then is refused.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub lease_seconds: u64,
    /// `--quiet`.
    #[command(flatten)]
    pub quiet: QuietFlag,
}

/// Runs `contagion train`.
pub fn run(args: TrainArgs, games: &Games) -> anyhow::Result<()> {
    let config = Config::load_with(&args.config, &args.overrides)?;
    let game = games.for_config(&config)?;
    let opts = TrainOptions {
        config,
        root: args
            .store
            .unwrap_or_else(|| args.checkpoints.display().to_string()),
        lease_seconds: args.lease_seconds,
        fresh: args.fresh,
        progress: !*args.quiet,
    };
    game.train(&opts)
}
