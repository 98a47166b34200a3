//! The run directory, `checkpoints/<run>/`: preparing it, locking it against a second
//! trainer, and its numbered checkpoints.
//!
//! ```text
//! config.toml          the config this run uses (copied in; a resume compares against it)
//! run.lock             held (flock) by the trainer working in the directory; names it
//! ckpt-000012.ckpt     numbered checkpoints: network, optimizer, counters, random state
//! best.ckpt            the network that generates self-play games (gated)
//! replay/shard-*.bin   the replay buffer
//! metrics.jsonl        one line per iteration
//! ```
//!
//! The lock is an advisory `flock` on `run.lock`: the kernel drops it when its holder
//! dies, so a killed trainer never blocks a resume, while a live one makes a second
//! `train` on the same run refuse, naming the holder's pid and host.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use super::run::TrainOptions;
use crate::config::Config;
use crate::nn::checkpoint::Checkpoint;
use crate::storage;

pub const LOCK: &str = "run.lock";

/// The lock on a run directory, held until dropped.
#[derive(Debug)]
pub struct RunLock {
    _file: File,
}

impl RunLock {
    /// Takes the lock on `dir` (which must exist), or says who holds it.
    pub fn acquire(dir: &Path) -> anyhow::Result<RunLock> {
        let path = dir.join(LOCK);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .with_context(|| format!("opening the lock file {}", path.display()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let holder = std::fs::read_to_string(&path).unwrap_or_default();
                bail!(
                    "{} is in use by another trainer ({}); wait for it to finish or stop it",
                    dir.display(),
                    crate::limits::clip(holder.trim())
                );
            }
            Err(TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("locking {}", path.display()));
            }
        }
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .or_else(|| std::env::var("HOSTNAME").ok())
            .unwrap_or_else(|| "an unknown host".into());
        file.set_len(0)
            .and_then(|_| write!(file, "pid {} on {}", std::process::id(), host.trim()))
            .and_then(|_| file.sync_all())
            .with_context(|| format!("writing {}", path.display()))?;
        Ok(RunLock { _file: file })
    }
}

pub fn checkpoint_path(dir: &Path, iteration: u32) -> PathBuf {
    dir.join(format!("ckpt-{iteration:06}.ckpt"))
}

/// Numbered checkpoints in `dir`, ascending.
pub fn checkpoints(dir: &Path) -> anyhow::Result<Vec<(u32, PathBuf)>> {
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

/// The newest numbered checkpoint, after checking that it holds the iteration its name
/// says (a renamed or copied file would roll the run back).
pub fn latest(dir: &Path) -> anyhow::Result<Option<Checkpoint>> {
    let Some((n, path)) = checkpoints(dir)?.pop() else {
        return Ok(None);
    };
    let ckpt = Checkpoint::load(&path)?;
    if ckpt.state.iteration != n {
        bail!(
            "{} holds iteration {}, not {n}: renamed or copied? Move it out of the run \
             directory to resume from the checkpoint before it",
            path.display(),
            ckpt.state.iteration
        );
    }
    Ok(Some(ckpt))
}

/// Deletes all but the newest `keep` numbered checkpoints.
pub fn prune_checkpoints(dir: &Path, keep: u32) -> anyhow::Result<()> {
    let all = checkpoints(dir)?;
    let excess = all.len().saturating_sub(keep as usize);
    for (_, path) in &all[..excess] {
        std::fs::remove_file(path).with_context(|| format!("deleting {}", path.display()))?;
    }
    Ok(())
}

/// Prepares and locks the run directory; returns it with its lock.
pub fn prepare(config: &Config, opts: &TrainOptions) -> anyhow::Result<(PathBuf, RunLock)> {
    let dir = opts.root.join(&config.run.name);
    let copy = dir.join("config.toml");
    if dir.exists() && !copy.exists() && !opts.fresh {
        // Only a lock and temporary files: a trainer killed before its first config copy.
        let foreign = std::fs::read_dir(&dir)?.filter_map(|e| e.ok()).any(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name != LOCK && !(name.starts_with('.') && name.ends_with(".tmp"))
        });
        if foreign {
            bail!(
                "{} exists but holds no config.toml: not a run directory; refusing to write into it",
                dir.display()
            );
        }
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut lock = RunLock::acquire(&dir)?;
    if opts.fresh && std::fs::read_dir(&dir)?.any(|e| e.is_ok_and(|e| e.file_name() != LOCK)) {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)?
            .as_secs();
        let aside = opts.root.join(format!("{}-old-{secs}", config.run.name));
        std::fs::rename(&dir, &aside)
            .with_context(|| format!("moving the old run aside to {}", aside.display()))?;
        println!("--fresh: the previous run was moved to {}", aside.display());
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        lock = RunLock::acquire(&dir)?;
    } else if copy.exists() {
        let old = Config::load(&copy).context("the run's saved config")?;
        if let Some((field, a, b)) = old.incompatible_change(config) {
            bail!(
                "{} was trained with {field} = {a}, the config now says {b}; this cannot resume. \
                 Use --fresh to start over (the old run is moved aside) or another run.name",
                dir.display()
            );
        }
    }
    storage::write_atomic(&copy, config.to_toml().as_bytes())?;
    Ok((dir, lock))
}
