//! `contagion ladder`: a model against alpha-beta at several times per move (see
//! [`crate::arena::ladder`]); Elo against time as a Markdown table and a plot.

use std::path::{Path, PathBuf};

use clap::Args;

use super::Games;
use super::common::{GameFlag, QuietFlag, SeriesFlags};
use crate::agents::Baselines;
use crate::arena::ladder::{LadderConfig, Rung, plot, run_ladder, table};

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
    games.get(args.game.as_str())?.ladder(&args, &config)
}

pub(super) fn ladder<G: Baselines>(
    start: &G,
    args: &LadderArgs,
    config: &LadderConfig,
) -> anyhow::Result<()> {
    let rungs = run_ladder(start, &args.model, config)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&rungs)?);
    } else {
        print!("{}", table(&rungs));
    }
    if let Some(out) = &args.out {
        write(start.name(), args, config, &rungs, out)?;
    }
    Ok(())
}

/// OUT.md (what was played, where, the table and the plot) and OUT.svg / OUT.png.
fn write(
    game: &str,
    args: &LadderArgs,
    config: &LadderConfig,
    rungs: &[Rung],
    out: &Path,
) -> anyhow::Result<()> {
    let name = out
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| anyhow::anyhow!("--out {}: needs a file name", out.display()))?;
    let svg = out.with_file_name(format!("{name}.svg"));
    let title = format!("{game}: {} against alphabeta", args.model.display());
    plot(rungs, &title, &svg)?;
    let command: Vec<String> = std::env::args().collect();
    let text = format!(
        "# Ladder: {title}\n\n\
         The model searches on {} thread(s), alphabeta on one; games one at a time, \
         colours balanced, {} random opening plies (seed {}).\n\n\
         Machine: {}, {} cores.\n\n```sh\n{}\n```\n\n{}\n![Elo against time per move]({name}.svg)\n",
        config.threads,
        config.opening_plies,
        config.seed,
        cpu_name(),
        crate::limits::cores(),
        shlex::try_join(command.iter().map(String::as_str)).unwrap_or_default(),
        table(rungs),
    );
    let md = out.with_file_name(format!("{name}.md"));
    crate::framing::write_atomic(&md, text.as_bytes())
        .map_err(|e| anyhow::anyhow!("writing {}: {e}", md.display()))?;
    eprintln!("wrote {} and {}", md.display(), svg.display());
    Ok(())
}

/// The CPU's model name (Linux's /proc/cpuinfo), or "an unknown CPU".
fn cpu_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find_map(|l| l.strip_prefix("model name"))
                .map(|l| l.trim_start_matches([' ', '\t', ':']).to_string())
        })
        .unwrap_or_else(|| "an unknown CPU".to_string())
}
