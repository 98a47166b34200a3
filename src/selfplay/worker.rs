//! `contagion selfplay`: a stateless self-play worker for a run in a store.
//!
//! The worker reads the run's `best.ckpt`, plays games with it (the config's search
//! settings, with exploration noise), and uploads every `shard_games` finished games as
//! `incoming/<worker>-<session>-<n>.bin` (a replay shard naming the worker and the
//! model), which the trainer takes in ([`crate::train::ingest`]). Between batches it
//! checks the best's tag (an ETag on S3) and loads a newly promoted network. It keeps
//! no state: any number may run, anywhere, started and killed at any time; a kill
//! loses only the games in flight and the finished games of an unfinished shard.
//!
//! A store that fails is retried with backoff (up to a minute between tries) for as
//! long as it takes: a finished shard is never dropped while the worker lives. The
//! worker stops when the run's `finished` marker appears, or after `--games`.

use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::bail;

use super::league::League;
use super::replay::{INCOMING, Shard};
use super::{SelfPlayGame, SelfPlaySettings};
use crate::agents::Baselines;
use crate::config::Config;
use crate::nn::formats::checkpoint::{BEST, Checkpoint};
use crate::nn::{Net, NetShape};
use crate::rng::Rng;
use crate::store::{self, Store};

/// Present in a run's store once the trainer has done all its iterations.
pub const FINISHED: &str = "finished";

/// How `contagion selfplay` was asked to run.
pub struct WorkerOptions {
    /// Where runs live: a directory or `s3://bucket/prefix` (the run is `<root>/<run.name>`).
    pub root: String,
    /// The worker's name in uploads and the trainer's metrics.
    pub id: String,
    /// Threads playing games.
    pub threads: usize,
    /// Stop after this many games (0: until the run is finished).
    pub games: u64,
    /// Finished games per upload.
    pub shard_games: usize,
    /// Report progress.
    pub progress: bool,
}

/// `f` until it succeeds, waiting longer after each failure (1 s doubling to 60 s).
fn retry<T>(what: &str, mut f: impl FnMut() -> anyhow::Result<T>) -> T {
    let mut delay = Duration::from_secs(1);
    loop {
        match f() {
            Ok(v) => return v,
            Err(e) => {
                eprintln!(
                    "warning: {what} failed: {e:#}; retrying in {} s",
                    delay.as_secs()
                );
                std::thread::sleep(delay);
                delay = (delay * 2).min(Duration::from_secs(60));
            }
        }
    }
}

/// The network currently published as best, with its tag and model id.
struct Model {
    tag: String,
    net: Net,
    iteration: u32,
}

/// Loads the best network if its tag is not `current`'s; refuses a network of another
/// game or shape than the config's.
fn refresh(
    store: &dyn Store,
    shape: &NetShape,
    current: Option<Model>,
) -> anyhow::Result<Option<Model>> {
    let Some(tag) = retry("reading the best network's tag", || store.tag(BEST)) else {
        return Ok(None);
    };
    if current.as_ref().is_some_and(|m| m.tag == tag) {
        return Ok(current);
    }
    let Some(bytes) = retry("reading the best network", || {
        store.get(BEST, crate::limits::MAX_MODEL_BYTES)
    }) else {
        return Ok(None); // replaced between the two requests: the next round reads it
    };
    let what = store.location(BEST).display().to_string();
    let ckpt = Checkpoint::from_bytes(&bytes, &what)?;
    if &ckpt.shape != shape {
        bail!(
            "{what}: a network for {} ({} blocks × {} channels), but the config trains {} \
             ({} × {}): another game or another config",
            ckpt.shape.game,
            ckpt.shape.blocks,
            ckpt.shape.channels,
            shape.game,
            shape.blocks,
            shape.channels
        );
    }
    Ok(Some(Model {
        tag,
        net: ckpt.net()?.for_self_play(),
        iteration: ckpt.state.best_iteration,
    }))
}

/// Plays and uploads games until the run is finished (or `opts.games` are played).
pub fn run<G: Baselines>(start: &G, config: &Config, opts: &WorkerOptions) -> anyhow::Result<()> {
    store::check_name("worker id", &opts.id)?;
    let c = config;
    let store = store::open(&store::join(&opts.root, &c.run.name))?;
    let shape = c.net_shape(start)?;
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    // A restarted worker with the same id never reuses a key of its previous life.
    let session = format!("{:012x}", nanos >> 16);
    println!(
        "worker {} on {}: {} threads, uploads of {} games",
        opts.id,
        store.url(),
        opts.threads,
        opts.shard_games
    );
    let t0 = Instant::now();
    let (mut games, mut positions, mut uploads) = (0u64, 0u64, 0u64);
    let mut model: Option<Model> = None;
    let mut waiting = false;
    loop {
        if retry("reading the run's state", || store.tag(FINISHED)).is_some() {
            println!("the run is finished; worker {} stops", opts.id);
            break;
        }
        if opts.games > 0 && games >= opts.games {
            break;
        }
        let before = model.as_ref().map(|m| m.iteration);
        model = refresh(store.as_ref(), &shape, model)?;
        let Some(m) = &model else {
            if !waiting {
                println!(
                    "waiting for the trainer to publish {}",
                    store.location(BEST).display()
                );
                waiting = true;
            }
            std::thread::sleep(Duration::from_secs(2));
            continue;
        };
        if before != Some(m.iteration) {
            println!("playing with the best network of iteration {}", m.iteration);
        }
        // The trainer is at least one iteration past its best network's.
        let mut settings =
            SelfPlaySettings::from_config(c, opts.threads, opts.progress, m.iteration + 1);
        // The league's draw as the trainer last published it (alike until then).
        if !settings.league.is_empty()
            && let Some(w) = League::published(store.as_ref(), &settings.league)?
        {
            settings.league_weights = w;
        }
        let mut batch = (opts.threads * c.selfplay.concurrent_games) as u64;
        if opts.games > 0 {
            batch = batch.min(opts.games - games);
        }
        let pending = Mutex::new((Vec::<SelfPlayGame>::new(), 0u64));
        let upload = |list: Vec<SelfPlayGame>, n: u64| {
            let shard = Shard {
                game: start.name().to_string(),
                iteration: 0,
                games: list,
                worker: opts.id.clone(),
                model: m.iteration,
                origin: String::new(),
            };
            let key = format!("{INCOMING}{}-{session}-{n:08}.bin", opts.id);
            let bytes = shard.to_bytes().expect("a shard encodes");
            retry(&format!("uploading {key}"), || store.put(&key, &bytes));
        };
        let take = |p: &mut (Vec<SelfPlayGame>, u64)| {
            let list = std::mem::take(&mut p.0);
            p.1 += 1;
            (list, uploads + p.1)
        };
        let seed = Rng::derive(nanos ^ crc32fast::hash(opts.id.as_bytes()) as u64, games);
        let stats = super::play(start, &m.net, &settings, batch as u32, seed, |g| {
            let mut p = pending.lock().expect("upload lock");
            p.0.push(g);
            if p.0.len() >= opts.shard_games {
                let (list, n) = take(&mut p);
                upload(list, n);
            }
        })?;
        let mut p = pending.into_inner().expect("upload lock");
        if !p.0.is_empty() {
            let (list, n) = take(&mut p);
            upload(list, n);
        }
        uploads += p.1;
        games += stats.games;
        positions += stats.positions;
    }
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "worker {}: {games} games, {positions} positions in {uploads} uploads, {secs:.1} s: {:.1} positions/s",
        opts.id,
        positions as f64 / secs.max(1e-9)
    );
    Ok(())
}
