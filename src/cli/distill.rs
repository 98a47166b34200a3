//! `contagion distill`: the fast evaluator taught by a network, from a config's
//! `[distill]` section: `--generate` plays the teacher's games into a data directory;
//! `--loop` runs the evaluator's own self-play loop in a directory; with neither the
//! evaluator is trained on the games of one or more data directories or runs and
//! written as a bundle.

use std::path::PathBuf;

use clap::Args;

use super::Games;
use super::common::{QuietFlag, ThreadsFlag};
use crate::config::Config;
use crate::train::distill_run::{DistillMode, DistillRun};

/// `contagion distill`'s arguments.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  contagion distill --config configs/ataxx-nnue.toml --generate --teacher models/ataxx --out data/ataxx\n  contagion distill --config configs/ataxx-nnue.toml --data data/ataxx --teacher models/ataxx --out models/ataxx-nnue\n  contagion distill --config configs/ataxx-nnue-loop.toml --loop --out experiments/ataxx-loop\nThe evaluator plays as nnue:PATH (docs/nnue.md)."
)]
pub struct DistillArgs {
    /// The TOML config: `run.game`, the `[distill]` section, and `[mcts]`/`[selfplay]`
    /// for the teacher's games.
    #[arg(long)]
    pub config: PathBuf,
    /// Overrides a config field, `SECTION.KEY=VALUE` (repeatable), as `train --set`.
    #[arg(long = "set", value_name = "SECTION.KEY=VALUE")]
    pub set: Vec<String>,
    /// Play games into `--out` (the teacher's, or `--player`'s) instead of training.
    #[arg(long)]
    pub generate: bool,
    /// The teacher network (a bundle, checkpoint or run; `models/<game>`): with
    /// `--generate` it plays the games; in training (and each generation of `--loop`)
    /// its value of every position takes `distill.teacher_value` of the target.
    #[arg(long)]
    pub teacher: Option<PathBuf>,
    /// With `--generate`: play this agent's games against itself (`nnue:PATH,nodes=N`:
    /// the alpha-beta player's own data) instead of the teacher's, as compact game
    /// records.
    #[arg(long, value_name = "SPEC", requires = "generate")]
    pub player: Option<crate::agents::AgentSpec>,
    /// Run the evaluator's own loop in `--out` (resumed where it stopped): its
    /// alpha-beta player's games train the next evaluator, gated against the best.
    #[arg(long, conflicts_with = "generate")]
    pub r#loop: bool,
    /// The evaluator bundle to start from: in training, its weights trained on (its
    /// shape the config's); with `--loop`, a new loop's generation 0 (default: random
    /// weights, the loop from nothing).
    #[arg(long, conflicts_with = "generate")]
    pub from: Option<PathBuf>,
    /// Where the games are (repeatable): data directories, run directories or stores;
    /// default: the config's run, `checkpoints/<run.name>`.
    #[arg(long)]
    pub data: Vec<String>,
    /// The bundle directory to write; with `--generate` the data directory to add to;
    /// with `--loop` the loop's directory.
    #[arg(long)]
    pub out: PathBuf,
    /// The name the bundle lists (default: the directory's name).
    #[arg(long)]
    pub name: Option<String>,
    /// `--threads`: games played at once.
    #[command(flatten)]
    pub threads: ThreadsFlag,
    /// `--quiet`.
    #[command(flatten)]
    pub quiet: QuietFlag,
}

/// Runs `contagion distill`.
pub fn run(args: DistillArgs, games: &Games) -> anyhow::Result<()> {
    let config = Config::load_with(&args.config, &args.set)?;
    let mode = match (args.r#loop, args.generate) {
        (true, _) => DistillMode::Loop { from: args.from },
        (false, true) => DistillMode::Generate {
            player: args.player,
        },
        (false, false) => DistillMode::Train {
            data: args.data,
            name: args.name,
            from: args.from,
        },
    };
    let run = DistillRun {
        mode,
        teacher: args.teacher,
        out: args.out,
        threads: args.threads.count(),
        progress: !*args.quiet,
    };
    games.for_config(&config)?.distill(&config, &run)
}
