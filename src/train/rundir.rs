//! A run's store (`checkpoints/<run>/` by default, or `s3://bucket/prefix/<run>`):
//! preparing it, keeping a second trainer out, and its numbered checkpoints.
//!
//! ```text
//! config.toml          the config this run uses (copied in; a resume compares against it)
//! run.lock / run.lease held by the trainer working on the run (local flock / S3 lease)
//! ckpt-000012.ckpt     numbered checkpoints: network, optimizer, counters
//! best.ckpt            the gated best network (self-play plays it with
//!                      `selfplay.network = "best"`; by default the newest plays)
//! replay/shard-*.bin   the replay buffer
//! incoming/*.bin       games uploaded by self-play workers, not yet taken in
//! rejected/*.bin       uploads that failed their checks (kept for inspection)
//! metrics.jsonl        one line per iteration
//! finished             present once the run has done all its iterations
//! ```

use std::any::Any;
use std::sync::Arc;

use anyhow::{Context, bail};

use super::TrainOptions;
use crate::config::Config;
use crate::nn::formats::checkpoint::Checkpoint;
use crate::selfplay::replay::INCOMING;
use crate::store::{self, Store};

/// The trainer's lock on a run, held until dropped.
pub type RunLock = Box<dyn Any + Send>;

/// The config copy's key.
pub const CONFIG: &str = "config.toml";

/// The key of iteration `iteration`'s checkpoint.
pub fn checkpoint_key(iteration: u32) -> String {
    format!("ckpt-{iteration:06}.ckpt")
}

/// The iteration of the checkpoint named `key` (the inverse of [`checkpoint_key`]).
fn checkpoint_iteration(key: &str) -> Option<u32> {
    key.strip_prefix("ckpt-")?
        .strip_suffix(".ckpt")?
        .parse()
        .ok()
}

/// Whether the run's key `key` is a network it saved: a numbered checkpoint or the best.
fn holds_a_network(key: &str) -> bool {
    key == crate::nn::formats::checkpoint::BEST || checkpoint_iteration(key).is_some()
}

/// Numbered checkpoints in the run, ascending.
pub fn checkpoints(store: &dyn Store) -> anyhow::Result<Vec<(u32, String)>> {
    let mut out: Vec<(u32, String)> = store
        .list("ckpt-")?
        .into_iter()
        .filter_map(|key| Some((checkpoint_iteration(&key)?, key)))
        .collect();
    out.sort();
    Ok(out)
}

/// Reads and checks the checkpoint `key` of the run.
pub fn load(store: &dyn Store, key: &str) -> anyhow::Result<Option<Checkpoint>> {
    let what = store.location(key).display().to_string();
    store
        .get(key, crate::limits::MAX_MODEL_BYTES)?
        .map(|bytes| Checkpoint::from_bytes(&bytes, &what))
        .transpose()
}

/// The newest numbered checkpoint, after checking that it holds the iteration its name
/// says (a renamed or copied file would roll the run back).
pub fn latest(store: &dyn Store) -> anyhow::Result<Option<Checkpoint>> {
    let Some((n, key)) = checkpoints(store)?.pop() else {
        return Ok(None);
    };
    let Some(ckpt) = load(store, &key)? else {
        bail!(
            "{}: deleted while the run was read",
            store.location(&key).display()
        );
    };
    if ckpt.state.iteration != n {
        bail!(
            "{} holds iteration {}, not {n}: renamed or copied? Move it out of the run \
             to resume from the checkpoint before it",
            store.location(&key).display(),
            ckpt.state.iteration
        );
    }
    Ok(Some(ckpt))
}

/// Deletes all but the newest `keep` numbered checkpoints.
pub fn prune_checkpoints(store: &dyn Store, keep: u32) -> anyhow::Result<()> {
    let all = checkpoints(store)?;
    let excess = all.len().saturating_sub(keep as usize);
    for (_, key) in &all[..excess] {
        store.delete(key)?;
    }
    Ok(())
}

/// Opens, locks and prepares the run's store; returns it with its lock.
pub fn prepare(config: &Config, opts: &TrainOptions) -> anyhow::Result<(Arc<dyn Store>, RunLock)> {
    let url = store::join(&opts.root, &config.run.name);
    let mut run = store::open(&url)?;
    // What it holds besides workers' uploads (they may come before the trainer's first
    // start). One listing decides whether that is a run: a trainer starting beside
    // another must not see the other's objects without its config.
    let contents = |run: &dyn Store| -> anyhow::Result<Vec<String>> {
        let keys = run.list("")?.into_iter();
        Ok(keys.filter(|k| !k.starts_with(INCOMING)).collect())
    };
    let present = contents(run.as_ref())?;
    if !opts.fresh && !present.is_empty() && !present.iter().any(|k| k == CONFIG) {
        bail!(
            "{} exists but holds no {CONFIG}: not a run; refusing to write into it",
            run.url()
        );
    }
    if let Some(dir) = run.local_dir() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut lock = run.lock(opts.lease_seconds)?;
    // Read again under the lock: another trainer may have started the run meanwhile.
    let saved = run.get(CONFIG, crate::limits::MAX_CONFIG_BYTES)?;
    if opts.fresh && !contents(run.as_ref())?.is_empty() {
        let Some(dir) = run.local_dir().map(|d| d.to_path_buf()) else {
            bail!(
                "--fresh moves a local run aside; {} is in an object store: delete its objects \
                 or choose another run.name",
                run.url()
            );
        };
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)?
            .as_secs();
        let aside = store::join(&opts.root, &format!("{}-old-{secs}", config.run.name));
        std::fs::rename(&dir, &aside)
            .with_context(|| format!("moving the old run aside to {aside}"))?;
        println!("--fresh: the previous run was moved to {aside}");
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        drop(lock);
        run = store::open(&url)?;
        lock = run.lock(opts.lease_seconds)?;
    } else if let Some(bytes) = saved {
        let text = String::from_utf8(bytes).context("the run's saved config is not UTF-8")?;
        let old = Config::parse(&text, &run.location(CONFIG).display().to_string())
            .context("the run's saved config")?;
        // A run that never saved a network (its `run.init` was refused, say) has nothing
        // a new shape could break: the config is simply replaced.
        if let Some((field, a, b)) = old.incompatible_change(config)
            && contents(run.as_ref())?.iter().any(|k| holds_a_network(k))
        {
            bail!(
                "{} was trained with {field} = {a}, the config now says {b}; this cannot resume. \
                 Use --fresh to start over (the old run is moved aside) or another run.name",
                run.url()
            );
        }
    }
    run.put(CONFIG, config.to_toml().as_bytes())?;
    Ok((run, lock))
}
