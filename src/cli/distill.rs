//! `contagion distill`: the fast evaluator taught by a network, from a config's
//! `[distill]` section: `--generate` plays the teacher's games into a data directory;
//! `--loop` runs the evaluator's own self-play loop in a directory; with neither the
//! evaluator is trained on the games of one or more data directories or runs and
//! written as a bundle.

use std::path::PathBuf;

use clap::Args;

use super::Games;
use super::common::{QuietFlag, ThreadsFlag};
use crate::agents::Baselines;
use crate::config::Config;
use crate::selfplay::SelfPlaySettings;
use crate::train::distill::{DistillOptions, distill};
use crate::train::distill_loop::{Generation, LoopOptions, run_loop};

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
    /// Play the teacher's games into `--out` instead of training.
    #[arg(long)]
    pub generate: bool,
    /// The teacher network (a bundle, checkpoint or run; `models/<game>`): with
    /// `--generate` it plays the games; in training (and each generation of `--loop`)
    /// its value of every position takes `distill.teacher_value` of the target.
    #[arg(long)]
    pub teacher: Option<PathBuf>,
    /// Run the evaluator's own loop in `--out` (resumed where it stopped): its
    /// alpha-beta player's games train the next evaluator, gated against the best.
    #[arg(long, conflicts_with = "generate")]
    pub r#loop: bool,
    /// With `--loop`, for a new loop: the evaluator bundle to start from (default:
    /// random weights, the loop from nothing).
    #[arg(long, requires = "loop")]
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
    let game = games.for_config(&config)?;
    game.distill(&args, &config)
}

/// `contagion distill` for `start`'s game.
pub fn distill_game<G: Baselines>(
    start: &G,
    args: &DistillArgs,
    config: &Config,
) -> anyhow::Result<()> {
    let c = &config.distill;
    let threads = args.threads.count();
    let teacher = match &args.teacher {
        Some(path) => {
            let net = crate::agents::mcts::cached_net(path)?;
            anyhow::ensure!(
                net.shape.plays(start),
                "{}: the teacher plays '{}', the config's game is '{}'",
                path.display(),
                net.shape.game,
                start.name()
            );
            Some(net)
        }
        None => None,
    };
    // Labelling positions, the teacher's forward is split over the threads; playing, the
    // games fill them.
    let labelling = |t: Option<crate::nn::Net>| t.map(|n| n.with_threads(threads)).transpose();
    if args.r#loop {
        let on_generation = |g: &Generation| println!("{}", generation_line(g));
        let opts = LoopOptions {
            dir: args.out.clone(),
            from: args.from.clone(),
            teacher: labelling(teacher)?,
            threads,
            progress: !*args.quiet,
            on_generation: &on_generation,
        };
        run_loop(start, config, &opts)?;
        println!(
            "the best evaluator plays as nnue:{}",
            args.out.join("best").display()
        );
        return Ok(());
    }
    if args.generate {
        let net = teacher.ok_or_else(|| anyhow::anyhow!("--generate needs --teacher MODEL"))?;
        let mut settings = SelfPlaySettings::from_config(config, threads, !*args.quiet, 1);
        settings.sims = c.teacher_simulations;
        let out = args.out.to_string_lossy();
        let stats = crate::selfplay::generate::generate(
            start,
            &net.for_self_play(),
            &settings,
            c.games,
            config.run.seed,
            &out,
        )?;
        println!(
            "{} games, {} positions in {:.1} s: {:.0} positions/s ({} simulations a move, {threads} threads) into {out}",
            stats.games,
            stats.positions,
            stats.wall.as_secs_f64(),
            stats.positions_per_second(),
            settings.sims,
        );
        return Ok(());
    }
    let data = if args.data.is_empty() {
        vec![crate::store::join("checkpoints", &config.run.name)]
    } else {
        args.data.clone()
    };
    let opts = DistillOptions {
        data,
        out: args.out.clone(),
        name: args.name.clone(),
        settings: c.clone(),
        teacher: labelling(teacher)?,
        seed: config.run.seed,
        progress: !*args.quiet,
    };
    let r = distill(start, &opts)?;
    let loss: Vec<String> = r
        .validation_loss
        .iter()
        .map(|l| format!("{l:.4}"))
        .collect();
    println!(
        "{} games: {} positions trained on, {} held out ({} of them off the games' lines); {} steps in {:.0} s",
        r.games, r.train_positions, r.validation_positions, r.branch_positions, r.steps, r.seconds
    );
    println!(
        "validation loss by epoch (mean squared error a seat): {}",
        loss.join(" → ")
    );
    println!(
        "integer against float on {} held-out positions of the games: mean |difference| {:.4}, same sign {:.2}%",
        r.agreement.positions,
        r.agreement.mean_abs_diff,
        100.0 * r.agreement.sign_agreement
    );
    println!("wrote the evaluator bundle {}", args.out.display());
    Ok(())
}

/// A generation of the loop in a line.
fn generation_line(g: &Generation) -> String {
    if g.generation == 0 {
        return "generation 0: the evaluator the loop starts from".into();
    }
    let result =
        |m: &crate::train::metrics::MatchResult| format!("{} ({:.3})", m.wdl(), m.stats.score);
    let baseline = match &g.baseline {
        Some((cand, best)) => format!(
            "; against {}: {} (the best {})",
            cand.opponent,
            result(cand),
            result(best)
        ),
        None => String::new(),
    };
    format!(
        "generation {}: {} games by generation {} ({:.0} positions/s), trained on {} positions (validation loss {:.4}); against the best {}{baseline}: {}; {:.1} min",
        g.generation,
        g.games,
        g.played_by,
        g.positions_per_second,
        g.train_positions,
        g.validation_loss,
        g.vs_best.as_ref().map_or("-".into(), result),
        if g.promoted {
            "promoted"
        } else {
            "kept the best"
        },
        g.minutes
    )
}
