//! `contagion distill`'s run: the teacher loaded, then the evaluator trained on games,
//! the teacher's games played, or the evaluator's own loop run; what each did printed.

use std::path::{Path, PathBuf};

use super::distill::{DistillOptions, distill};
use super::distill_loop::{Generation, LoopOptions, run_loop};
use crate::agents::{AgentSpec, Baselines};
use crate::config::Config;
use crate::nn::Net;
use crate::nn::nnue::bundle::{self, Lineage};
use crate::selfplay::SelfPlaySettings;
use crate::selfplay::generate::{SearchedGames, generate_searched};

/// What `contagion distill` does.
#[derive(Debug, Clone)]
pub enum DistillMode {
    /// Train the evaluator on the games of `data` (data directories, runs or stores)
    /// and write it as a bundle named `name`.
    Train {
        /// Where the games are.
        data: Vec<String>,
        /// The name the bundle lists (default: the directory's name).
        name: Option<String>,
        /// The evaluator bundle whose weights are trained on (default: fresh weights).
        from: Option<PathBuf>,
    },
    /// Play games into the data directory: the teacher's, or `player`'s against itself
    /// (compact game records, `distill.games` of them from `distill.opening_plies`
    /// random plies, filtered and adjudicated as `[distill]` says).
    Generate {
        /// The agent whose games are played (the teacher's when `None`).
        player: Option<AgentSpec>,
    },
    /// Run the evaluator's own loop, a new one starting from the bundle `from`.
    Loop {
        /// The evaluator bundle a new loop starts from (default: random weights).
        from: Option<PathBuf>,
    },
}

/// A `contagion distill` run.
#[derive(Debug, Clone)]
pub struct DistillRun {
    /// What it does.
    pub mode: DistillMode,
    /// The teacher network (a bundle, checkpoint or run).
    pub teacher: Option<PathBuf>,
    /// The bundle directory; the data directory to add to; the loop's directory.
    pub out: PathBuf,
    /// Games played at once (and the teacher's forward split over as many threads).
    pub threads: usize,
    /// A progress bar.
    pub progress: bool,
}

/// `contagion distill` for `start`'s game under `config`: trains, generates or loops
/// as `run` says, and prints what it did.
pub fn distill_run<G: Baselines>(
    start: &G,
    config: &Config,
    run: &DistillRun,
) -> anyhow::Result<()> {
    let c = &config.distill;
    let threads = run.threads;
    let teacher = match &run.teacher {
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
    let (data, name, from) = match &run.mode {
        DistillMode::Loop { from } => {
            return run_generations(start, config, run, from, labelling(teacher)?);
        }
        DistillMode::Generate {
            player: Some(player),
        } => {
            return generate_searched_games(start, config, run, player);
        }
        DistillMode::Generate { player: None } => {
            return generate_games(start, config, run, teacher);
        }
        DistillMode::Train { data, name, from } => (data, name, from),
    };
    let data = match data.is_empty() {
        true => vec![crate::store::join("checkpoints", &config.run.name)],
        false => data.clone(),
    };
    // Trained on from a bundle, the evaluator descends from it; afresh, from the teacher.
    let (init, lineage) = match from {
        Some(path) => {
            let (manifest, weights) = bundle::load(path, start)?;
            let parent = manifest.lineage();
            let lineage = Lineage {
                parent: Some(manifest.name),
                ..parent
            };
            (Some(weights), lineage)
        }
        None => {
            let parent = run.teacher.as_deref().map(teacher_name);
            (
                None,
                Lineage {
                    parent,
                    ..Lineage::default()
                },
            )
        }
    };
    let opts = DistillOptions {
        data,
        out: run.out.clone(),
        name: name.clone(),
        settings: c.clone(),
        teacher: labelling(teacher)?,
        init,
        lineage,
        seed: config.run.seed,
        progress: run.progress,
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
    println!("wrote the evaluator bundle {}", run.out.display());
    Ok(())
}

/// The name of the teacher at `path` (a bundle, a checkpoint or a run; `models/<game>`
/// names the game's current network): its directory's.
fn teacher_name(path: &Path) -> String {
    let path = crate::nn::formats::models::resolve(path);
    (path.file_name()).map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into(),
    )
}

/// The evaluator's own loop in `run.out`.
fn run_generations<G: Baselines>(
    start: &G,
    config: &Config,
    run: &DistillRun,
    from: &Option<PathBuf>,
    teacher: Option<Net>,
) -> anyhow::Result<()> {
    let on_generation = |g: &Generation| println!("{}", generation_line(g));
    let opts = LoopOptions {
        dir: run.out.clone(),
        from: from.clone(),
        teacher,
        threads: run.threads,
        progress: run.progress,
        on_generation: &on_generation,
    };
    run_loop(start, config, &opts)?;
    println!(
        "the best evaluator plays as nnue:{}",
        run.out.join("best").display()
    );
    Ok(())
}

/// The teacher's games played into `run.out`.
fn generate_games<G: Baselines>(
    start: &G,
    config: &Config,
    run: &DistillRun,
    teacher: Option<Net>,
) -> anyhow::Result<()> {
    let threads = run.threads;
    let net = teacher.ok_or_else(|| anyhow::anyhow!("--generate needs --teacher MODEL"))?;
    let mut settings = SelfPlaySettings::from_config(config, threads, run.progress, 1);
    settings.sims = config.distill.teacher_simulations;
    let out = run.out.to_string_lossy();
    let stats = crate::selfplay::generate::generate(
        start,
        &net.for_self_play(),
        &settings,
        config.distill.games,
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
    Ok(())
}

/// `player`'s games against itself played into `run.out`.
fn generate_searched_games<G: Baselines>(
    start: &G,
    config: &Config,
    run: &DistillRun,
    player: &AgentSpec,
) -> anyhow::Result<()> {
    let games = SearchedGames {
        move_limit: config.ply_cap(1),
        threads: run.threads,
        progress: run.progress,
        ..SearchedGames::from_config(&config.distill, player.clone(), config.run.seed)
    };
    let out = run.out.to_string_lossy();
    let stats = generate_searched(start, &games, &out)?;
    println!(
        "{} games of {player}, {} positions in {:.1} s: {:.0} positions/s ({} threads) into {out}",
        stats.games,
        stats.positions,
        stats.wall.as_secs_f64(),
        stats.positions_per_second(),
        run.threads,
    );
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
