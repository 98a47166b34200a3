//! The training loop over a run's store (its layout: [`super::rundir`]).
//!
//! One iteration: the latest network (or, with `selfplay.network = "best"`, the gated
//! best) plays `games_per_iteration` self-play games (written to shards as they finish);
//! the trainer takes `positions × replay_ratio / batch_size` steps, counting every
//! position the iteration has on disk, and samples from the whole replay window; the
//! candidate is saved as a numbered checkpoint and plays the best (colour-balanced,
//! random openings): a score at or above `gating.threshold` makes it the new best.
//! Every `baseline.every` iterations the best plays the fixed baseline and greedy.
//!
//! Each step after training is saved into the iteration's checkpoint with the metrics
//! so far ([`Stage`]): a crash at any moment loses at most the games in flight. A resume
//! finishes an unfinished iteration (gate, promotion, baselines, metrics line) before
//! starting the next, and writes a metrics line at most once per iteration.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use super::metrics::{self, IterationMetrics, MatchResult};
use super::rundir::{self, checkpoint_key};
use super::{Losses, TrainOptions, Trainer, events, gating, ingest};
use crate::agents::{AgentSpec, Baselines};
use crate::config::Config;
use crate::nn::formats::checkpoint::{BEST, Checkpoint, Stage, TrainState};
use crate::progress::Progress;
use crate::rng::Rng;
use crate::selfplay::league::League;
use crate::selfplay::replay::{ReplayBuffer, SHARD_GAMES, Targets};
use crate::selfplay::worker::FINISHED;
use crate::selfplay::{self, SelfPlayGame, SelfPlaySettings, SelfPlayStats};
use crate::store::Store;

/// Trains the game `start` from the config; see the module documentation.
pub fn train<G: Baselines>(start: &G, opts: &TrainOptions) -> anyhow::Result<()> {
    let config = &opts.config;
    let c = config;
    // Refuse a baseline that cannot be built now, not at the first measurement.
    c.baseline
        .spec
        .parse::<AgentSpec>()
        .map_err(anyhow::Error::from)
        .and_then(|spec| spec.build(start, c.run.seed).map(drop))
        .with_context(|| format!("baseline.spec = {:?}", c.baseline.spec))?;
    // And a device this build or machine lacks.
    let device = c.train.device;
    (device.burn()).with_context(|| format!("train.device = \"{device}\""))?;
    let (store, _lock) = rundir::prepare(config, opts)?;
    let torn = metrics::repair(store.as_ref())?;
    if torn > 0 {
        println!(
            "{}: cut a torn last line ({torn} bytes) left by a crash",
            store.location(metrics::LOG).display()
        );
    }
    if c.run.tensorboard {
        events::sync(store.as_ref())?;
    }
    let shape = c.net_shape(start)?;
    let latest = rundir::latest(store.as_ref())?;
    let (mut trainer, mut state) = match &latest {
        Some(ckpt) => {
            if ckpt.shape != shape {
                bail!(
                    "{}: the network shape differs from the config's",
                    store
                        .location(&checkpoint_key(ckpt.state.iteration))
                        .display()
                );
            }
            let trainer = Trainer::restore(
                shape.clone(),
                &c.train,
                &ckpt.model,
                &ckpt.optimizer,
                ckpt.state.steps,
            )
            .with_context(|| {
                let key = checkpoint_key(ckpt.state.iteration);
                format!("restoring {}", store.location(&key).display())
            })?;
            println!(
                "resuming {} after iteration {}",
                store.url(),
                ckpt.state.iteration
            );
            (trainer, ckpt.state.clone())
        }
        None => {
            let trainer = match c.run.init.as_str() {
                "" => Trainer::new(shape.clone(), &c.train)?,
                init => Trainer::start_from(shape.clone(), &c.train, Path::new(init))
                    .with_context(|| format!("run.init = {init:?}"))?,
            };
            let state = TrainState::default();
            println!("starting run {}", store.url());
            (trainer, state)
        }
    };
    if c.train.device != crate::nn::DeviceKind::Cpu {
        println!(
            "the network trains and self-play's forward runs on {}",
            c.train.device.describe()?
        );
    }
    match rundir::load(store.as_ref(), BEST)? {
        // A damaged best is found now, not when the first game needs it.
        Some(best) => drop(
            best.net()
                .with_context(|| format!("loading {}", store.location(BEST).display()))?,
        ),
        None => save(&trainer, &state, store.as_ref(), BEST, None)?,
    }
    let session = Instant::now();
    let wall_before = state.wall_seconds;
    // The run's wall time in all: earlier sessions (resumes) plus this one.
    let run_seconds = || wall_before + session.elapsed().as_secs_f64();
    let run = Run {
        start,
        c,
        store: store.clone(),
        progress: opts.progress,
    };
    if let Some(ckpt) = latest {
        let m: Option<IterationMetrics> = match ckpt.metrics.as_str() {
            "" => None,
            json => Some(serde_json::from_str(json).with_context(|| {
                let key = checkpoint_key(ckpt.state.iteration);
                format!(
                    "{}: unreadable metrics record",
                    store.location(&key).display()
                )
            })?),
        };
        if let Some(m) = m {
            run.finish(&trainer, &mut state, ckpt.stage, m, 0.0)?;
        }
    }
    let targets = Targets {
        root_mix: c.train.value_target_mix as f32,
        horizon: c.train.value_horizon,
        policy_power: c.train.policy_target_power as f32,
    };
    let mut buffer = ReplayBuffer::open_with(start, store.clone(), c.replay.window, targets)?;
    if state.iteration < c.run.iterations {
        store.delete(FINISHED)?; // a run extended by a larger run.iterations
    }
    while state.iteration < c.run.iterations {
        // Minutes, like iterations, count the whole run: a resume spends what is left.
        let spent = run_seconds();
        if c.run.max_minutes > 0.0 && spent > c.run.max_minutes * 60.0 {
            println!(
                "stopping: run.max_minutes = {} reached ({:.1} minutes in all)",
                c.run.max_minutes,
                spent / 60.0
            );
            break;
        }
        let t0 = Instant::now();
        let m = run.iteration(&mut trainer, &mut state, &mut buffer)?;
        state.wall_seconds = run_seconds();
        run.finish(
            &trainer,
            &mut state,
            Stage::Trained,
            m,
            t0.elapsed().as_secs_f64(),
        )?;
    }
    if state.iteration >= c.run.iterations {
        store.put(FINISHED, b"")?; // tells self-play workers to stop
    }
    Ok(())
}

/// What every step of an iteration needs.
struct Run<'a, G> {
    start: &'a G,
    c: &'a Config,
    store: Arc<dyn Store>,
    progress: bool,
}

fn summary_line(m: &IterationMetrics) -> String {
    let res = |r: &Option<MatchResult>| {
        r.as_ref().map_or("-".to_string(), |r| {
            format!("{} ({:.0}%)", r.wdl(), 100.0 * r.stats.score)
        })
    };
    format!(
        "iter {:>4} | {:6.1} min | {} games, {:.0} plies | {:.0} pos/s | {} steps, {:.0} samples/s | loss {:.3} (p {:.3} v {:.3}{}) | gate {}{}{} | best {} | vs baseline {} | vs greedy {}",
        m.iteration,
        m.minutes,
        m.games,
        m.mean_game_plies,
        m.selfplay_positions_per_second,
        m.train_steps,
        m.train_samples_per_second,
        m.loss_total,
        m.loss_policy,
        m.loss_value,
        aux_losses(m),
        res(&m.gating),
        m.gating
            .as_ref()
            .map_or(String::new(), |g| format!(" Elo {}", g.stats.elo_text())),
        if m.promoted { " promoted" } else { "" },
        m.best_iteration,
        res(&m.vs_baseline),
        res(&m.vs_greedy),
    ) + &league_text(m)
        + &ingest_text(m)
}

/// ` | league: SPEC score (games), …`, when the network met the league.
fn league_text(m: &IterationMetrics) -> String {
    let members: Vec<String> = (m.league.iter())
        .map(|r| format!("{} {:.0}% ({})", r.opponent, 100.0 * r.score, r.games))
        .collect();
    match members.is_empty() {
        true => String::new(),
        false => format!(" | league: {}", members.join(", ")),
    }
}

/// ` o X m Y`: the auxiliary heads' losses, where the network has them.
fn aux_losses(m: &IterationMetrics) -> String {
    let mut out = String::new();
    for (aux, &loss) in m.loss_aux.0.iter() {
        if loss != 0.0 {
            out += &format!(" {} {loss:.3}", aux.head().abbrev);
        }
    }
    out
}

/// ` | took in G games from W workers in S s (R positions/s)`, when workers played.
fn ingest_text(m: &IterationMetrics) -> String {
    let games: u32 = m.worker_games.values().sum();
    if games == 0 {
        return String::new();
    }
    format!(
        " | took in {games} games from {} workers in {:.2} s ({:.0} positions/s)",
        m.worker_games.len(),
        m.ingest_seconds,
        m.positions as f64 * games as f64 / m.games.max(1) as f64 / m.ingest_seconds.max(1e-9)
    )
}

/// Saves the trainer's network as `key`: a numbered checkpoint (with the optimizer
/// state, the stage and the metrics so far) when `numbered` gives those, else `best.ckpt`.
fn save(
    trainer: &Trainer,
    state: &TrainState,
    store: &dyn Store,
    key: &str,
    numbered: Option<(Stage, &IterationMetrics)>,
) -> anyhow::Result<()> {
    let (model, optim) = trainer.save_bytes()?;
    let (stage, metrics) = match numbered {
        Some((stage, m)) => (stage, serde_json::to_string(m)?),
        None => (Stage::Done, String::new()),
    };
    Checkpoint {
        shape: trainer.shape.clone(),
        state: state.clone(),
        model,
        optimizer: if numbered.is_some() {
            optim
        } else {
            Vec::new()
        },
        stage,
        metrics,
    }
    .to_bytes()
    .and_then(|bytes| store.put(key, &bytes))
    .with_context(|| format!("saving checkpoint {}", store.location(key).display()))
}

impl<G: Baselines> Run<'_, G> {
    /// Self-play and training for the next iteration; saves its checkpoint at
    /// [`Stage::Trained`] and returns the metrics so far.
    fn iteration(
        &self,
        trainer: &mut Trainer,
        state: &mut TrainState,
        buffer: &mut ReplayBuffer<G>,
    ) -> anyhow::Result<IterationMetrics> {
        let c = self.c;
        let it = state.iteration + 1;
        // The training batches' generator: fixed by `run.seed` and the iteration, so a
        // resumed run draws what an uninterrupted one would.
        let mut rng = Rng::new(Rng::derive(
            c.run.seed ^ crate::rng::salt::TRAINING,
            it as u64,
        ));
        // 1. Games: uploads from self-play workers, then the trainer's own self-play.
        let t_games = Instant::now();
        let (sp, ingest_seconds) = self.gather(trainer, state, buffer, it)?;
        let selfplay_seconds = t_games.elapsed().as_secs_f64();
        if c.train.policy_surprise_weight > 0.0 {
            buffer.weigh(c.train.policy_surprise_weight as f32, &trainer.net());
        }
        // 2. Train on the whole window, as many steps as this iteration's positions ask
        // for: those of earlier sessions (before a crash) count too.
        let (games, positions) = buffer.stored(it);
        let (games, positions) = (games as u64, positions as u64);
        let steps = if buffer.len() >= c.replay.min_positions {
            ((positions as f64 * c.train.replay_ratio / c.train.batch_size as f64).ceil() as u64)
                .min(c.train.max_steps_per_iteration as u64)
        } else {
            0
        };
        let bar = Progress::new("training", steps, "steps", self.progress);
        let t_train = Instant::now();
        if steps > 0 && trainer.steps == 0 && !c.run.init.is_empty() {
            // A network from a model: its batch norms to this run's positions first.
            let mut rng = Rng::new(c.run.seed ^ crate::rng::salt::TRAINING);
            trainer.rebase_batch_norms(buffer, &mut rng)?;
        }
        let (losses, batch_seconds) = if steps > 0 {
            trainer.train(buffer, steps, &mut rng, || bar.inc())
        } else {
            (Losses::default(), 0.0)
        };
        bar.finish();
        let train_time = t_train.elapsed();
        state.iteration = it;
        state.games += games;
        state.positions += positions;
        state.steps = trainer.steps;
        state.config_digest = c.digest();
        let m = IterationMetrics {
            iteration: it,
            minutes: 0.0,
            iteration_seconds: 0.0,
            games: games as u32,
            positions,
            mean_game_plies: positions as f64 / games.max(1) as f64,
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
            loss_aux: super::metrics::AuxLosses(losses.aux),
            loss_total: losses.total,
            gating: None,
            gate_candidate_vs_baseline: None,
            gate_best_vs_baseline: None,
            promoted: false,
            best_iteration: state.best_iteration,
            vs_baseline: None,
            vs_greedy: None,
            worker_games: buffer.worker_games(it),
            resigned_games: sp.resigned,
            adjudicated_games: sp.adjudicated,
            opponent_games: sp.opponent_games,
            league: match sp.league.is_empty() {
                true => Vec::new(),
                false => League::of(c)?.results(&sp.league),
            },
            false_resign_rate: sp.false_resign_rate(),
            ingest_seconds,
            device: c.train.device,
            selfplay_seconds,
            train_seconds: train_time.as_secs_f64(),
            batch_seconds,
            gating_seconds: 0.0,
        };
        let store = self.store.as_ref();
        save(
            trainer,
            state,
            store,
            &checkpoint_key(it),
            Some((Stage::Trained, &m)),
        )?;
        rundir::prune_checkpoints(store, c.run.keep_checkpoints)?;
        Ok(m)
    }

    /// Brings iteration `it` to `games_per_iteration` games: first uploads from self-play
    /// workers, then, with `selfplay.workers > 0`, the trainer's own self-play with the
    /// latest or the best network (games go to shards as they finish); with
    /// `selfplay.workers = 0` it waits for the workers instead. Returns the self-play
    /// figures and the seconds spent taking uploads in.
    fn gather(
        &self,
        trainer: &Trainer,
        state: &TrainState,
        buffer: &mut ReplayBuffer<G>,
        it: u32,
    ) -> anyhow::Result<(SelfPlayStats, f64)> {
        let (start, c, store, progress) = (self.start, self.c, self.store.as_ref(), self.progress);
        let target = c.selfplay.games_per_iteration as usize;
        let t0 = Instant::now();
        let mut have = buffer.stored(it).0;
        let mut ingest_time = Duration::ZERO;
        let mut take_in = |buffer: &mut ReplayBuffer<G>, want: usize| {
            let t = Instant::now();
            let got = ingest::ingest(store, buffer, it, want);
            ingest_time += t.elapsed();
            got
        };
        have += take_in(buffer, target.saturating_sub(have))?;
        if c.selfplay.workers == 0 {
            let mut said = None;
            while have < target {
                if said.is_none_or(|t: Instant| t.elapsed() > Duration::from_secs(30)) {
                    println!(
                        "iteration {it}: {have} of {target} games; waiting for self-play \
                         workers to upload to {}",
                        store.location(crate::selfplay::replay::INCOMING).display()
                    );
                    said = Some(Instant::now());
                }
                std::thread::sleep(Duration::from_millis(500));
                have += take_in(buffer, target - have)?;
            }
            let sp = SelfPlayStats {
                games: have as u64,
                positions: buffer.stored(it).1 as u64,
                wall: t0.elapsed(),
                ..SelfPlayStats::default()
            };
            return Ok((sp, ingest_time.as_secs_f64()));
        }
        // Self-play searches on its forward (int8 where the CPU has it); the trainer's
        // network stays in floats.
        let generator = if c.selfplay.network == crate::config::Generator::Best {
            rundir::load(store, BEST)?
                .with_context(|| format!("{} is missing", store.location(BEST).display()))?
                .net()?
        } else {
            trainer.net()
        }
        .for_self_play();
        let done = have as u32;
        let todo = c.selfplay.games_per_iteration.saturating_sub(done);
        let mut settings = SelfPlaySettings::from_config(c, c.selfplay.workers, progress, it);
        if !settings.league.is_empty() {
            // The scores against the league: every finished iteration's, from the log.
            let done = metrics::records(store)?;
            let league = League::of(c)?.replay(done.iter().map(|m| &m.league[..]));
            league.publish(store)?;
            settings = settings.with_league(&league);
        }
        type Pending<'b, G> = (
            Vec<SelfPlayGame>,
            Option<anyhow::Error>,
            &'b mut ReplayBuffer<G>,
        );
        let pending: Mutex<Pending<G>> = Mutex::new((Vec::new(), None, buffer));
        let model = state.best_iteration;
        let flush = |p: &mut Pending<G>| {
            let games = std::mem::take(&mut p.0);
            if let Err(e) = p.2.add(&games, it, model)
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
        Ok((sp, ingest_time.as_secs_f64()))
    }

    /// The baseline gate's opponent where it is not `baseline.spec`: with
    /// `gating.baseline_league`, the league member the network scores worst against,
    /// by the iterations before `it` in the log and `m`'s own results.
    fn gate_baseline(&self, it: u32, m: &IterationMetrics) -> anyhow::Result<Option<String>> {
        let g = &self.c.gating;
        if !g.baseline_league || g.baseline_games == 0 {
            return Ok(None);
        }
        let done = metrics::records(self.store.as_ref())?;
        let before = done.iter().filter(|x| x.iteration < it);
        let league =
            League::of(self.c)?.replay(before.map(|x| &x.league[..]).chain([&m.league[..]]));
        Ok(league.hardest().map(ToString::to_string))
    }

    /// Takes iteration `state.iteration`, whose checkpoint is at `stage`, to the end:
    /// gate and promote, measure the baselines, and write its metrics line (once).
    /// Every step is saved before the next, so a crash anywhere resumes here.
    fn finish(
        &self,
        trainer: &Trainer,
        state: &mut TrainState,
        stage: Stage,
        mut m: IterationMetrics,
        seconds: f64,
    ) -> anyhow::Result<()> {
        let (start, c, store, progress) = (self.start, self.c, self.store.as_ref(), self.progress);
        let it = state.iteration;
        let key = checkpoint_key(it);
        // Matches load networks by location (a file, or an object URL).
        let (candidate, best_path) = (store.location(&key), store.location(BEST));
        m.minutes = state.wall_seconds / 60.0;
        m.iteration_seconds += seconds;
        let t_gating = Instant::now();
        if stage == Stage::Trained {
            let baseline = self.gate_baseline(it, &m)?;
            let gate = gating::gate(
                start,
                c,
                it,
                &candidate,
                &best_path,
                state.best_iteration,
                baseline.as_deref(),
                progress,
            )?;
            if gate.promote {
                state.best_iteration = it;
            }
            (m.gating, m.promoted, m.best_iteration) =
                (gate.vs_best, gate.promote, state.best_iteration);
            (m.gate_candidate_vs_baseline, m.gate_best_vs_baseline) = gate.baseline.unzip();
            save(trainer, state, store, &key, Some((Stage::Gated, &m)))?;
        }
        if stage != Stage::Done {
            // Promotion is redone from the checkpoint if a crash came before or during it.
            if m.promoted
                && rundir::load(store, BEST)
                    .ok()
                    .flatten()
                    .map(|b| b.state.best_iteration)
                    != Some(it)
            {
                save(trainer, state, store, BEST, None)?;
            }
            let bl = &c.baseline;
            if bl.every > 0 && bl.games > 0 && it.is_multiple_of(bl.every) {
                m.vs_baseline = Some(gating::measure(
                    start, c, it, &best_path, &bl.spec, progress,
                )?);
                m.vs_greedy = Some(gating::measure(
                    start, c, it, &best_path, "greedy", progress,
                )?);
            }
            m.gating_seconds += t_gating.elapsed().as_secs_f64();
            save(trainer, state, store, &key, Some((Stage::Done, &m)))?;
        }
        if metrics::last_iteration(store)? < it {
            metrics::append(store, &m)?;
            if c.run.tensorboard {
                events::write(store, &m)?;
            }
            println!("{}", summary_line(&m));
        }
        Ok(())
    }
}
