//! `contagion train`: train from a config; resumes an existing run.

use std::path::PathBuf;

use clap::Args;

use super::{GameKind, with_game};
use crate::config::Config;
use crate::train::run::{TrainOptions, train};

#[derive(Debug, Args)]
pub struct TrainArgs {
    /// The TOML config (see configs/infexion.toml for every field).
    #[arg(long)]
    pub config: PathBuf,
    /// Start over: an existing run directory is moved aside (never overwritten).
    #[arg(long)]
    pub fresh: bool,
    /// The directory holding run directories.
    #[arg(long, default_value = "checkpoints")]
    pub checkpoints: PathBuf,
    /// No progress bars or progress lines (the per-iteration summary still prints).
    #[arg(long)]
    pub quiet: bool,
}

pub fn run(args: TrainArgs) -> anyhow::Result<()> {
    let config = Config::load(&args.config)?;
    let opts = TrainOptions {
        config: args.config,
        root: args.checkpoints,
        fresh: args.fresh,
        progress: !args.quiet,
    };
    with_game!(GameKind::from_name(&config.run.game)?, start => train(start, &opts))
}
