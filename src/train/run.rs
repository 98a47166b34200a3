//! The training loop and its run directory, `checkpoints/<run>/`:
//!
//! ```text
//! config.toml          the config this run uses (copied in; a resume compares against it)
//! ckpt-000012.ckpt     numbered checkpoints: network, optimizer, counters, random state
//! best.ckpt            the network that generates self-play games (gated)
//! replay/shard-*.bin   the replay buffer
//! metrics.jsonl        one line per iteration
//! ```
//!
//! One iteration: the latest network (or, with `selfplay.network = "best"`, the gated
//! best) plays `games_per_iteration` self-play games (written to shards as they finish); the trainer takes `positions × replay_ratio / batch_size`
//! steps; the candidate is saved as a numbered checkpoint and plays the best (colour-
//! balanced, random openings): a score at or above `gating.threshold` makes it the new
//! best. Every `baseline.every` iterations the best plays the fixed baseline and greedy.
//!
//! Resuming reads the newest checkpoint and the shards: games already played for the
//! unfinished iteration count, so a crash or Ctrl-C loses at most the games in flight.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use super::metrics::{self, IterationMetrics, MatchResult};
use super::{Losses, Trainer, gating};
use crate::agents::Baselines;
use crate::config::Config;
use crate::nn::NetShape;
use crate::nn::checkpoint::{BEST, Checkpoint, TrainState};
use crate::progress::Progress;
use crate::rng::Rng;
use crate::selfplay::replay::ReplayBuffer;
use crate::selfplay::{self, SelfPlayGame, SelfPlaySettings};
use crate::storage;

/// How `contagion train` was asked to run.
pub struct TrainOptions {
    pub config: PathBuf,
    /// Where run directories live (`checkpoints`).
    pub root: PathBuf,
    /// Start over; an existing run directory is moved aside, never overwritten.
    pub fresh: bool,
    pub progress: bool,
}

/// Games are written to the replay buffer in shards of this many (or fewer at the end).
const SHARD_GAMES: usize = 4;

fn checkpoint_path(dir: &Path, iteration: u32) -> PathBuf {
    dir.join(format!("ckpt-{iteration:06}.ckpt"))
}

/// Numbered checkpoints in `dir`, ascending.
fn checkpoints(dir: &Path) -> anyhow::Result<Vec<(u32, PathBuf)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some(n) = name
            .strip_prefix("ckpt-")
            .and_then(|s| s.strip_suffix(".ckpt"))
            .and_then(|s| s.parse().ok())
        {
            out.push((n, path));
        }
    }
    out.sort();
    Ok(out)
}

/// Prepares the run directory; returns it.
fn prepare_dir(config: &Config, opts: &TrainOptions) -> anyhow::Result<PathBuf> {
    let dir = opts.root.join(&config.run.name);
    let copy = dir.join("config.toml");
    if dir.exists() && opts.fresh {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)?
            .as_secs();
        let aside = opts.root.join(format!("{}-old-{secs}", config.run.name));
        std::fs::rename(&dir, &aside)
            .with_context(|| format!("moving the old run aside to {}", aside.display()))?;
        println!("--fresh: the previous run was moved to {}", aside.display());
    } else if copy.exists() {
        let old = Config::load(&copy).context("the run's saved config")?;
        if let Some((field, a, b)) = old.incompatible_change(config) {
            bail!(
                "{} was trained with {field} = {a}, the config now says {b}; this cannot resume. \
                 Use --fresh to start over (the old run is moved aside) or another run.name",
                dir.display()
            );
        }
    } else if dir.exists() && std::fs::read_dir(&dir)?.next().is_some() {
        bail!(
            "{} exists but holds no config.toml: not a run directory; refusing to write into it",
            dir.display()
        );
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    storage::write_atomic(&copy, config.to_toml().as_bytes())?;
    Ok(dir)
}

/// Trains the game `start` from the config; see the module documentation.
pub fn train<G: Baselines>(start: &G, opts: &TrainOptions) -> anyhow::Result<()> {
    let config = Config::load(&opts.config)?;
    let dir = prepare_dir(&config, opts)?;
    let c = &config;
    let shape = NetShape::for_game(
        start,
        c.network.blocks,
        c.network.channels,
        c.network.value_hidden,
    );
    let (mut trainer, mut state) = match checkpoints(&dir)?.last() {
        Some((_, path)) => {
            let ckpt = Checkpoint::load(path)?;
            if ckpt.shape != shape {
                bail!(
                    "{}: the network shape differs from the config's",
                    path.display()
                );
            }
            let trainer = Trainer::restore(
                shape.clone(),
                &c.train,
                &ckpt.model,
                &ckpt.optimizer,
                ckpt.state.steps,
            )
            .with_context(|| format!("restoring {}", path.display()))?;
            println!(
                "resuming {} after iteration {}",
                dir.display(),
                ckpt.state.iteration
            );
            (trainer, ckpt.state)
        }
        None => {
            let trainer = Trainer::new(shape.clone(), &c.train);
            let state = TrainState {
                rng: Rng::new(c.run.seed).state(),
                ..TrainState::default()
            };
            println!("starting run {}", dir.display());
            (trainer, state)
        }
    };
    if !dir.join(BEST).exists() {
        save(&trainer, &state, &dir.join(BEST), false)?;
    }
    let mut buffer = ReplayBuffer::open(start, &dir.join("replay"), c.replay.window)?;
    let session = Instant::now();
    let wall_before = state.wall_seconds;
    while state.iteration < c.run.iterations {
        if c.run.max_minutes > 0.0 && session.elapsed().as_secs_f64() > c.run.max_minutes * 60.0 {
            println!("stopping: run.max_minutes = {} reached", c.run.max_minutes);
            break;
        }
        let t0 = Instant::now();
        let m = iteration(
            start,
            c,
            &dir,
            &mut trainer,
            &mut state,
            &mut buffer,
            opts.progress,
        )?;
        state.wall_seconds = wall_before + session.elapsed().as_secs_f64();
        let m = IterationMetrics {
            minutes: state.wall_seconds / 60.0,
            iteration_seconds: t0.elapsed().as_secs_f64(),
            ..m
        };
        // Save the final counters (wall time, best) and log the iteration.
        save(
            &trainer,
            &state,
            &checkpoint_path(&dir, state.iteration),
            true,
        )?;
        metrics::append(&dir.join("metrics.jsonl"), &m)?;
        println!("{}", summary_line(&m));
    }
    Ok(())
}

fn summary_line(m: &IterationMetrics) -> String {
    let res = |r: &Option<MatchResult>| {
        r.as_ref().map_or("-".to_string(), |r| {
            format!("{} ({:.0}%)", r.wdl(), 100.0 * r.stats.score)
        })
    };
    format!(
        "iter {:>4} | {:6.1} min | {} games, {:.0} plies | {:.0} pos/s | loss {:.3} (p {:.3} v {:.3}) | gate {}{}{} | best {} | vs baseline {} | vs greedy {}",
        m.iteration,
        m.minutes,
        m.games,
        m.mean_game_plies,
        m.selfplay_positions_per_second,
        m.loss_total,
        m.loss_policy,
        m.loss_value,
        res(&m.gating),
        m.gating
            .as_ref()
            .map_or(String::new(), |g| format!(" Elo {}", g.stats.elo_text())),
        if m.promoted { " promoted" } else { "" },
        m.best_iteration,
        res(&m.vs_baseline),
        res(&m.vs_greedy),
    )
}

/// Saves the trainer's network to `path`, with the optimizer state when `optimizer`
/// (a numbered checkpoint) or without it (`best.ckpt`).
fn save(trainer: &Trainer, state: &TrainState, path: &Path, optimizer: bool) -> anyhow::Result<()> {
    let (model, optim) = trainer.save_bytes()?;
    Checkpoint {
        shape: trainer.shape.clone(),
        state: state.clone(),
        model,
        optimizer: if optimizer { optim } else { Vec::new() },
    }
    .save(path)
}

#[allow(clippy::too_many_arguments)]
fn iteration<G: Baselines>(
    start: &G,
    c: &Config,
    dir: &Path,
    trainer: &mut Trainer,
    state: &mut TrainState,
    buffer: &mut ReplayBuffer<G>,
    progress: bool,
) -> anyhow::Result<IterationMetrics> {
    let it = state.iteration + 1;
    let mut rng = Rng::from_state(state.rng);
    // 1. Self-play with the latest or the best network; games go to shards as they finish.
    let generator = if c.selfplay.network == "best" {
        Checkpoint::load(&dir.join(BEST))?.net()?
    } else {
        trainer.net()
    };
    let done = buffer.games_of(it) as u32;
    let todo = c.selfplay.games_per_iteration.saturating_sub(done);
    let settings = SelfPlaySettings {
        sims: c.mcts.simulations,
        params: c.mcts_params(true),
        temperature_plies: c.mcts.temperature_plies,
        workers: c.selfplay.workers,
        concurrent: c.selfplay.concurrent_games,
        cache_size: c.selfplay.cache_size,
        progress,
        move_limit: 0,
    };
    let pending: Mutex<(
        Vec<SelfPlayGame>,
        Option<anyhow::Error>,
        &mut ReplayBuffer<G>,
    )> = Mutex::new((Vec::new(), None, buffer));
    let flush = |p: &mut (
        Vec<SelfPlayGame>,
        Option<anyhow::Error>,
        &mut ReplayBuffer<G>,
    )| {
        let games = std::mem::take(&mut p.0);
        if let Err(e) = p.2.add(&games, it)
            && p.1.is_none()
        {
            p.1 = Some(e);
        }
    };
    let seed = Rng::derive(c.run.seed, it as u64) ^ done as u64;
    let sp = selfplay::play(start, &generator, &settings, todo, seed, |g| {
        let mut p = pending.lock().expect("shard lock");
        p.0.push(g);
        if p.0.len() >= SHARD_GAMES {
            flush(&mut p);
        }
    })?;
    let mut p = pending.into_inner().expect("shard lock");
    flush(&mut p);
    if let Some(e) = p.1 {
        return Err(e.context("writing a replay shard"));
    }
    let buffer = p.2;
    // 2. Train.
    let new_positions = sp.positions;
    let steps = if buffer.len() >= c.replay.min_positions {
        ((new_positions as f64 * c.train.replay_ratio / c.train.batch_size as f64).ceil() as u64)
            .min(c.train.max_steps_per_iteration as u64)
    } else {
        0
    };
    let bar = Progress::new("training", steps, "steps", progress);
    let t_train = Instant::now();
    let losses = if steps > 0 {
        trainer.train(buffer, steps, &mut rng, || bar.inc())
    } else {
        Losses::default()
    };
    bar.finish();
    let train_time = t_train.elapsed();
    state.iteration = it;
    state.games += sp.games;
    state.positions += sp.positions;
    state.steps = trainer.steps;
    state.rng = rng.state();
    state.config_digest = c.digest();
    save(trainer, state, &checkpoint_path(dir, it), true)?;
    prune_checkpoints(dir, c.run.keep_checkpoints)?;
    // 3. Gate the candidate against the best.
    let best_path = dir.join(BEST);
    let candidate = checkpoint_path(dir, it);
    let (gating, promoted) = gating::gate(
        start,
        c,
        it,
        &candidate,
        &best_path,
        state.best_iteration,
        progress,
    )?;
    if promoted {
        state.best_iteration = it;
        save(trainer, state, &best_path, false)?;
    }
    // 4. Measure the best against the fixed baseline and greedy.
    let bl = &c.baseline;
    let (mut vs_baseline, mut vs_greedy) = (None, None);
    if bl.every > 0 && bl.games > 0 && it.is_multiple_of(bl.every) {
        vs_baseline = Some(gating::measure(
            start, c, it, &best_path, &bl.spec, progress,
        )?);
        vs_greedy = Some(gating::measure(
            start, c, it, &best_path, "greedy", progress,
        )?);
    }
    Ok(IterationMetrics {
        iteration: it,
        minutes: 0.0,
        iteration_seconds: 0.0,
        games: sp.games as u32,
        positions: sp.positions,
        mean_game_plies: sp.positions as f64 / sp.games.max(1) as f64,
        buffer_positions: buffer.len(),
        selfplay_positions_per_second: sp.positions_per_second(),
        selfplay_forward_share: sp.forward_share(c.selfplay.workers),
        mean_batch: sp.eval.mean_batch(),
        cache_hit_rate: sp.eval.hit_rate(),
        train_steps: steps,
        train_samples_per_second: (steps * c.train.batch_size as u64) as f64
            / train_time.max(Duration::from_micros(1)).as_secs_f64(),
        learning_rate: trainer.learning_rate(),
        loss_policy: losses.policy,
        loss_value: losses.value,
        loss_total: losses.total,
        gating,
        promoted,
        best_iteration: state.best_iteration,
        vs_baseline,
        vs_greedy,
    })
}

/// Deletes all but the newest `keep` numbered checkpoints.
fn prune_checkpoints(dir: &Path, keep: u32) -> anyhow::Result<()> {
    let all = checkpoints(dir)?;
    let excess = all.len().saturating_sub(keep as usize);
    for (_, path) in &all[..excess] {
        std::fs::remove_file(path).with_context(|| format!("deleting {}", path.display()))?;
    }
    Ok(())
}
