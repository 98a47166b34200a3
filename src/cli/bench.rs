//! `contagion bench`: speed figures, medians of several rounds (one thread unless a
//! figure takes `--threads`).

use clap::Args;

use super::Games;
use super::common::GameFlag;
use crate::bench::run::BenchKind;

/// `contagion bench`'s arguments.
#[derive(Debug, Args)]
#[command(mut_arg("game", |a| a.global(true)))]
pub struct BenchArgs {
    /// What to measure.
    #[command(subcommand)]
    pub what: BenchKind,
    /// `--game`: whose rules, positions and network shapes are measured.
    #[command(flatten)]
    pub game: GameFlag,
    /// Timed rounds; the median is reported.
    #[arg(long, default_value_t = 5, global = true)]
    pub rounds: usize,
    /// Print the figures as JSON lines.
    #[arg(long, global = true)]
    pub json: bool,
}

/// Runs `contagion bench`.
pub fn run(args: BenchArgs, games: &Games) -> anyhow::Result<()> {
    let game = games.get(args.game.as_str())?;
    game.bench(&args.what, args.rounds, args.json)
}
