//! `contagion ladder`: a model against alpha-beta at several times per move (see
//! [`crate::arena::ladder`]); Elo against time as a Markdown table and a plot.

use std::path::PathBuf;

use clap::Args;

use super::Games;
use super::common::{GameFlag, QuietFlag, SeriesFlags};
use crate::arena::ladder::LadderConfig;

/// `contagion ladder`'s arguments.
#[derive(Debug, Args)]
pub struct LadderArgs {
    /// The model: a bundle, a checkpoint or a run directory's best.
    #[arg(long, value_name = "PATH")]
    pub model: PathBuf,
    /// `--game`.
    #[command(flatten)]
    pub game: GameFlag,
    /// The model's times per move, in milliseconds, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "10,100,1000",
          value_parser = clap::value_parser!(u64).range(1..=60_000))]
    pub times: Vec<u64>,
    /// Games at each time against alphabeta at the same time: one count for every time,
    /// or one per time.
    #[arg(long, value_delimiter = ',', default_value = "20")]
    pub games: Vec<u32>,
    /// Games at each time against alphabeta at --factor times it (0: none), likewise.
    #[arg(long, value_delimiter = ',', default_value = "20")]
    pub factor_games: Vec<u32>,
    /// How many times the model's time the stronger alphabeta gets.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(2..=100))]
    pub factor: u32,
    /// `--threads` (the model's search: games are played one at a time), `--seed`,
    /// `--opening-plies` (before each pair of games).
    #[command(flatten)]
    pub series: SeriesFlags,
    /// Write the table to OUT.md and the plot to OUT.svg (and OUT.png).
    #[arg(long, value_name = "OUT")]
    pub out: Option<PathBuf>,
    /// Print the matches as JSON on stdout instead of the table.
    #[arg(long)]
    pub json: bool,
    /// `--quiet`.
    #[command(flatten)]
    pub quiet: QuietFlag,
}

/// One count per time: a single count stands for every time.
fn per_time(counts: &[u32], times: usize, flag: &str) -> anyhow::Result<Vec<u32>> {
    match counts {
        [one] => Ok(vec![*one; times]),
        _ if counts.len() == times => Ok(counts.to_vec()),
        _ => anyhow::bail!("{flag}: give one count, or one per time in --times ({times})"),
    }
}

/// Runs `contagion ladder`.
pub fn run(args: LadderArgs, games: &Games) -> anyhow::Result<()> {
    let n = args.times.len();
    let threads = args.series.threads.count() as u32;
    let config = LadderConfig {
        times_ms: args.times.clone(),
        games: per_time(&args.games, n, "--games")?,
        factor_games: per_time(&args.factor_games, n, "--factor-games")?,
        factor: args.factor,
        threads,
        seed: *args.series.seed,
        opening_plies: *args.series.opening_plies,
        progress: !*args.quiet && !args.json,
    };
    let game = games.get(args.game.as_str())?;
    game.ladder(&args.model, &config, args.json, args.out.as_deref())
}
