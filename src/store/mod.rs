//! Where a run lives: a *store* of whole objects under string keys, either a local
//! directory (the default, the layout of [`crate::train::rundir`]) or an S3 bucket
//! prefix (`s3://bucket/prefix`, any S3-compatible server, through `object_store`).
//!
//! Everything above this module (checkpoints, the replay buffer, metrics, self-play
//! workers) goes through [`Store`] and does not know which one it has:
//!
//! - [`Store::put`] writes an object whole: a reader sees the old object or the new one,
//!   never a part (a temp file renamed over the target locally; one PUT on S3).
//! - [`Store::get`] reads one (at most `limit` bytes), [`Store::tag`] says whether it
//!   changed (mtime and size locally, the ETag on S3) without reading it.
//! - [`Store::list`] names the keys under a prefix (recursively, sorted).
//! - [`Store::lock`] keeps a second trainer out: `flock` locally, a lease object with an
//!   expiry on S3 (see `s3`, feature `s3`, on by default).
//!
//! A *location* is the text a user writes for one object or run: a path, or an
//! `s3://bucket/key` URL; [`read_location`] and [`tag_location`] read either, so
//! `model:s3://bucket/runs/infexion` works wherever `model:checkpoints/infexion` does.

pub mod local;
#[cfg(feature = "s3")]
pub mod s3;

use std::any::Any;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::bail;

/// A store of whole objects; see the module documentation.
pub trait Store: Send + Sync {
    /// The store's root as the user would write it (a directory or `s3://bucket/prefix`).
    fn url(&self) -> String;
    /// Writes `bytes` as the object `key`, whole.
    fn put(&self, key: &str, bytes: &[u8]) -> anyhow::Result<()>;
    /// The object `key`, or `None` if there is none; an error past `limit` bytes.
    fn get(&self, key: &str, limit: u64) -> anyhow::Result<Option<Vec<u8>>>;
    /// A text that changes whenever the object `key` does; `None` if there is none.
    fn tag(&self, key: &str) -> anyhow::Result<Option<String>>;
    /// Every key under `prefix` (a folder such as `replay/`, or `""`), sorted; temporary
    /// and hidden files are not listed.
    fn list(&self, prefix: &str) -> anyhow::Result<Vec<String>>;
    /// Deletes the object `key`; one that is already gone is not an error.
    fn delete(&self, key: &str) -> anyhow::Result<()>;
    /// Takes the store's trainer lock (held until the guard is dropped), or says who
    /// holds it. `lease_seconds`: how long a lease outlives a holder that stopped
    /// renewing it (S3 only; a local lock dies with its process).
    fn lock(&self, lease_seconds: u64) -> anyhow::Result<Box<dyn Any + Send>>;
    /// The location of `key` for messages and `model:` agent specs.
    fn location(&self, key: &str) -> PathBuf {
        PathBuf::from(format!("{}/{key}", self.url().trim_end_matches('/')))
    }
    /// Whether this is a local directory (which `--fresh` can move aside).
    fn local_dir(&self) -> Option<&Path> {
        None
    }
}

/// The store at `url`: a local directory path or `s3://bucket[/prefix]`.
pub fn open(url: &str) -> anyhow::Result<Arc<dyn Store>> {
    match url.split_once("://") {
        None => Ok(Arc::new(local::LocalStore::new(Path::new(url)))),
        #[cfg(feature = "s3")]
        Some(("s3", rest)) => Ok(Arc::new(s3::S3Store::open(rest)?)),
        #[cfg(not(feature = "s3"))]
        Some(("s3", _)) => bail!(
            "store '{}': this contagion was built without S3 storage; rebuild with the \
             default features (`cargo build --release`) or `--features s3`",
            crate::limits::clip(url)
        ),
        Some((scheme, _)) => bail!(
            "store '{}': unknown scheme '{}://'; use a directory path or s3://bucket/prefix",
            crate::limits::clip(url),
            crate::limits::clip(scheme)
        ),
    }
}

/// `root` (a store URL or directory) with `name` appended as one more level.
pub fn join(root: &str, name: &str) -> String {
    if root.is_empty() {
        return name.to_string();
    }
    format!("{}/{name}", root.trim_end_matches('/'))
}

/// Whether `location` names an object in a remote store rather than a local path.
pub fn is_remote(location: &Path) -> bool {
    location.to_str().is_some_and(|s| s.contains("://"))
}

/// The store holding `location` and the object's key in it.
fn split(location: &Path) -> anyhow::Result<(Arc<dyn Store>, String)> {
    let text = location.to_str().unwrap_or_default();
    let (root, key) = text.rsplit_once('/').unwrap_or(("", text));
    if key.is_empty() || root.ends_with(':') || root.ends_with(":/") {
        bail!("'{}' names no object", crate::limits::clip(text));
    }
    Ok((cached(root)?, key.to_string()))
}

/// The store at `url`, opened once per process (an S3 client holds a connection pool).
fn cached(url: &str) -> anyhow::Result<Arc<dyn Store>> {
    type Stores = std::sync::Mutex<std::collections::HashMap<String, Arc<dyn Store>>>;
    static STORES: std::sync::OnceLock<Stores> = std::sync::OnceLock::new();
    let stores = STORES.get_or_init(Default::default);
    if let Some(s) = stores.lock().expect("store cache").get(url) {
        return Ok(s.clone());
    }
    let store = open(url)?;
    stores
        .lock()
        .expect("store cache")
        .insert(url.to_string(), store.clone());
    Ok(store)
}

/// Reads the object at `location` (a path, or a URL), at most `limit` bytes.
pub fn read_location(location: &Path, limit: u64) -> anyhow::Result<Vec<u8>> {
    if !is_remote(location) {
        return crate::limits::read_file(location, limit);
    }
    let (store, key) = split(location)?;
    store
        .get(&key, limit)?
        .ok_or_else(|| anyhow::anyhow!("{}: no such object", location.display()))
}

/// [`Store::tag`] of the object at `location` (a path, or a URL).
pub fn tag_location(location: &Path) -> anyhow::Result<Option<String>> {
    if !is_remote(location) {
        return local::file_tag(location);
    }
    let (store, key) = split(location)?;
    store.tag(&key)
}

/// Object names workers choose (worker ids) must be plain: letters, digits, `-`, `_`, `.`.
pub fn check_name(what: &str, name: &str) -> anyhow::Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if !ok {
        bail!(
            "{what} '{}': use 1-64 letters, digits, '-', '_' or '.' (not first)",
            crate::limits::clip(name)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_names_are_checked() {
        let err = |u: &str| open(u).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err("ftp://host/x").contains("unknown scheme 'ftp://'"));
        assert!(err("s3://").contains("bucket"), "{}", err("s3://"));
        assert!(check_name("worker id", "w-1.a_b").is_ok());
        for bad in ["", ".x", "a/b", "a b", "é"] {
            assert!(check_name("worker id", bad).is_err(), "{bad}");
        }
        assert_eq!(join("s3://b/p/", "run"), "s3://b/p/run");
        assert!(is_remote(Path::new("s3://b/k")) && !is_remote(Path::new("a/b")));
    }
}
