//! The local-directory store: one file per key under a root directory, written through
//! [`crate::framing::write_atomic`] (temp file, fsync, rename), locked with `flock`.
//!
//! The lock is an advisory `flock` on `run.lock` in the root: the kernel drops it when
//! its holder dies, so a killed trainer never blocks a resume, while a live one makes a
//! second `train` on the same run refuse, naming the holder's pid and host.

use std::any::Any;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use super::Store;

/// The lock file of a run directory.
pub const LOCK: &str = "run.lock";

/// A run in a local directory (see the module documentation).
#[derive(Debug, Clone)]
pub struct LocalStore {
    root: PathBuf,
}

impl LocalStore {
    /// The store rooted at the directory `root`.
    pub fn new(root: &Path) -> LocalStore {
        LocalStore {
            root: root.to_path_buf(),
        }
    }

    fn path(&self, key: &str) -> PathBuf {
        self.root.join(key)
    }
}

/// Modification time and size of the file at `path`; `None` if there is none.
pub fn file_tag(path: &Path) -> anyhow::Result<Option<String>> {
    match std::fs::metadata(path) {
        Ok(m) => Ok(Some(format!("{:?}/{}", m.modified().ok(), m.len()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

fn hidden(name: &str) -> bool {
    name.starts_with('.') || name == LOCK
}

fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) -> anyhow::Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).with_context(|| format!("listing {}", dir.display())),
    };
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if hidden(&name) {
            continue;
        }
        let key = format!("{prefix}{name}");
        if entry.file_type()?.is_dir() {
            walk(&entry.path(), &format!("{key}/"), out)?;
        } else {
            out.push(key);
        }
    }
    Ok(())
}

impl Store for LocalStore {
    fn url(&self) -> String {
        self.root.display().to_string()
    }

    fn put(&self, key: &str, bytes: &[u8]) -> anyhow::Result<()> {
        let path = self.path(key);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        crate::framing::write_atomic(&path, bytes)
    }

    fn get(&self, key: &str, limit: u64) -> anyhow::Result<Option<Vec<u8>>> {
        let path = self.path(key);
        if !path.is_file() {
            return Ok(None);
        }
        crate::limits::read_file(&path, limit).map(Some)
    }

    fn tag(&self, key: &str) -> anyhow::Result<Option<String>> {
        file_tag(&self.path(key))
    }

    fn list(&self, prefix: &str) -> anyhow::Result<Vec<String>> {
        let (dir, rest) = prefix.rsplit_once('/').unwrap_or(("", prefix));
        let folder = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        let mut out = Vec::new();
        walk(&self.root.join(dir), &folder, &mut out)?;
        out.retain(|k| k[folder.len()..].starts_with(rest));
        out.sort();
        Ok(out)
    }

    fn delete(&self, key: &str) -> anyhow::Result<()> {
        let path = self.path(key);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(e).with_context(|| format!("deleting {}", path.display()))
            }
            _ => Ok(()),
        }
    }

    fn lock(&self, _lease_seconds: u64) -> anyhow::Result<Box<dyn Any + Send>> {
        Ok(Box::new(lock_dir(&self.root)?))
    }

    fn location(&self, key: &str) -> PathBuf {
        self.path(key)
    }

    fn local_dir(&self) -> Option<&Path> {
        Some(&self.root)
    }
}

/// Takes the `flock` on `dir/run.lock` (the directory must exist), or says who holds it.
fn lock_dir(dir: &Path) -> anyhow::Result<File> {
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
    file.set_len(0)
        .and_then(|_| write!(file, "{}", holder()))
        .and_then(|_| file.sync_all())
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(file)
}

/// `pid N on HOST`: who holds a lock or lease.
pub fn holder() -> String {
    let host = hostname().unwrap_or_else(|| "an unknown host".into());
    format!("pid {} on {host}", std::process::id())
}

/// This machine's host name (a pod's name on Kubernetes), if it can be read.
pub fn hostname() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_round_trip_and_list_by_prefix() {
        let dir = std::env::temp_dir().join(format!("czero-local-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let s = LocalStore::new(&dir);
        assert_eq!(s.get("a", 10).unwrap(), None);
        assert_eq!(s.tag("a").unwrap(), None);
        s.put("a", b"1").unwrap();
        s.put("replay/shard-1.bin", b"22").unwrap();
        s.put("replay/shard-0.bin", b"22").unwrap();
        s.put("incoming/w1/x.bin", b"333").unwrap();
        assert_eq!(s.get("a", 10).unwrap().as_deref(), Some(&b"1"[..]));
        assert!(s.get("incoming/w1/x.bin", 2).is_err(), "over the limit");
        assert_eq!(
            s.list("replay/shard-").unwrap(),
            ["replay/shard-0.bin", "replay/shard-1.bin"]
        );
        assert_eq!(s.list("incoming/").unwrap(), ["incoming/w1/x.bin"]);
        assert_eq!(s.list("").unwrap().len(), 4);
        let _lock = s.lock(0).unwrap();
        assert_eq!(s.list("").unwrap().len(), 4, "the lock file is not listed");
        s.delete("a").unwrap();
        s.delete("a").unwrap();
        assert_eq!(s.get("a", 10).unwrap(), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
