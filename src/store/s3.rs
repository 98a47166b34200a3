//! The S3 store, `s3://bucket/prefix`, through the `object_store` crate: AWS S3 or any
//! S3-compatible server (MinIO, SeaweedFS, Ceph, R2 …).
//!
//! Settings come from the standard AWS environment variables, read by
//! `AmazonS3Builder::from_env`: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
//! `AWS_REGION` (default `us-east-1`), `AWS_ENDPOINT` for a server other than AWS, and
//! `AWS_ALLOW_HTTP=true` for a plain-http endpoint. Opening the store lists the top
//! level of its prefix once, so a missing bucket, wrong credentials or an unreachable endpoint are reported
//! at once, by name. Failed requests are retried with exponential backoff (object_store's
//! retry layer, up to 30 s) before an error is returned.
//!
//! **Lease.** S3 has no locks, so a trainer holds `run.lease`, a small JSON object naming
//! the holder and an expiry time, taken and renewed by conditional writes: created only
//! if absent (`If-None-Match: *`), replaced only if unchanged since it was read
//! (`If-Match` on its ETag). Of trainers that race for a free or expired lease, exactly
//! one write succeeds. A thread renews it every third of its lifetime; a second trainer
//! refuses while it is live; a killed trainer's lease simply expires, so it never blocks
//! a resume for longer than `--lease-seconds`. A trainer whose renewal finds the lease
//! taken (it was paused past the expiry and another took over) marks its store lost:
//! every later write fails with that reason, so the trainer stops at its next write
//! instead of training beside the other.

use std::any::Any;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, bail};
use futures::TryStreamExt;
use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::path::Path as ObjectPath;
use object_store::{
    BackoffConfig, ClientOptions, ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload,
    RetryConfig, UpdateVersion,
};
use serde::{Deserialize, Serialize};

use super::Store;

/// The lease object of a run.
pub const LEASE: &str = "run.lease";

/// A run under an S3 bucket prefix (see the module documentation).
#[derive(Clone)]
pub struct S3Store {
    bucket: String,
    prefix: String,
    client: Arc<AmazonS3>,
    runtime: Arc<tokio::runtime::Runtime>,
    /// Set when this store's lease was taken by another trainer: why writes now fail.
    lost: Arc<Mutex<Option<String>>>,
}

fn credentials_present() -> bool {
    [
        "AWS_ACCESS_KEY_ID",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    ]
    .iter()
    .any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()))
}

impl S3Store {
    /// Opens `bucket[/prefix]` (the URL after `s3://`) and checks that it can be listed.
    pub fn open(rest: &str) -> anyhow::Result<S3Store> {
        let url = format!("s3://{rest}");
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        let prefix = prefix.trim_matches('/').to_string();
        if bucket.is_empty() {
            bail!(
                "store '{}': no bucket; write s3://bucket/prefix",
                crate::limits::clip(&url)
            );
        }
        if !credentials_present() {
            bail!(
                "{}: no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY \
                 (and AWS_ENDPOINT, AWS_ALLOW_HTTP=true for a local http server)",
                crate::limits::clip(&url)
            );
        }
        let retry = RetryConfig {
            backoff: BackoffConfig {
                init_backoff: Duration::from_millis(200),
                max_backoff: Duration::from_secs(5),
                base: 2.0,
            },
            max_retries: 6,
            retry_timeout: Duration::from_secs(30),
        };
        // Client options given here replace those from the environment: keep AWS_ALLOW_HTTP.
        let allow_http = std::env::var("AWS_ALLOW_HTTP")
            .is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1");
        let client = AmazonS3Builder::from_env()
            .with_bucket_name(bucket)
            .with_retry(retry)
            .with_client_options(
                ClientOptions::new()
                    .with_allow_http(allow_http)
                    .with_connect_timeout(Duration::from_secs(5))
                    .with_timeout(Duration::from_secs(120)),
            )
            .build()
            .with_context(|| format!("{url}: the S3 settings"))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("s3")
            .enable_all()
            .build()
            .context("starting the S3 client's runtime")?;
        let store = S3Store {
            bucket: bucket.to_string(),
            prefix,
            client: Arc::new(client),
            runtime: Arc::new(runtime),
            lost: Arc::new(Mutex::new(None)),
        };
        // One page of the top level only: a run with thousands of shards is not listed.
        let top = (!store.prefix.is_empty()).then(|| ObjectPath::from(store.prefix.as_str()));
        if let Err(e) = store
            .block(store.client.list_with_delimiter(top.as_ref()))
            .map_err(|e| brief(&e, "listing", &store.what("")))
        {
            let endpoint = std::env::var("AWS_ENDPOINT").unwrap_or_else(|_| "AWS S3".into());
            bail!("{e} (endpoint {endpoint})");
        }
        Ok(store)
    }

    fn path(&self, key: &str) -> ObjectPath {
        ObjectPath::from(if self.prefix.is_empty() {
            key.to_string()
        } else {
            format!("{}/{key}", self.prefix)
        })
    }

    fn what(&self, key: &str) -> String {
        format!("{}/{key}", self.url())
    }

    fn block<T>(&self, f: impl std::future::Future<Output = T>) -> T {
        self.runtime.block_on(f)
    }

    /// Object `key` (at most `limit` bytes) with its ETag; `None` if there is none.
    fn get_tagged(&self, key: &str, limit: u64) -> anyhow::Result<Option<(Vec<u8>, String)>> {
        let what = self.what(key);
        self.block(async {
            let result = match self.client.get(&self.path(key)).await {
                Ok(r) => r,
                Err(object_store::Error::NotFound { .. }) => return Ok(None),
                Err(e) => return Err(brief(&e, "reading", &what)),
            };
            if result.meta.size > limit {
                bail!(
                    "{what}: {} bytes, more than the {limit} allowed",
                    result.meta.size
                );
            }
            let e_tag = result.meta.e_tag.clone().unwrap_or_default();
            let bytes = result
                .bytes()
                .await
                .map_err(|e| brief(&e, "reading", &what))?;
            Ok(Some((bytes.to_vec(), e_tag)))
        })
    }

    /// Fails once the lease was lost, naming the trainer that took it.
    fn writable(&self) -> anyhow::Result<()> {
        match &*self.lost.lock().expect("lease flag") {
            Some(why) => bail!("{why}"),
            None => Ok(()),
        }
    }
}

impl Store for S3Store {
    fn url(&self) -> String {
        match self.prefix.as_str() {
            "" => format!("s3://{}", self.bucket),
            p => format!("s3://{}/{p}", self.bucket),
        }
    }

    fn put(&self, key: &str, bytes: &[u8]) -> anyhow::Result<()> {
        self.writable()?;
        let payload = PutPayload::from(bytes.to_vec());
        self.block(self.client.put(&self.path(key), payload))
            .map_err(|e| brief(&e, "writing", &self.what(key)))?;
        Ok(())
    }

    fn get(&self, key: &str, limit: u64) -> anyhow::Result<Option<Vec<u8>>> {
        Ok(self.get_tagged(key, limit)?.map(|(bytes, _)| bytes))
    }

    fn tag(&self, key: &str) -> anyhow::Result<Option<String>> {
        match self.block(self.client.head(&self.path(key))) {
            Ok(meta) => Ok(Some(format!(
                "{}/{}/{}",
                meta.e_tag.unwrap_or_default(),
                meta.last_modified,
                meta.size
            ))),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(brief(&e, "reading", &self.what(key))),
        }
    }

    fn list(&self, prefix: &str) -> anyhow::Result<Vec<String>> {
        let (dir, rest) = prefix.rsplit_once('/').unwrap_or(("", prefix));
        let root = match (self.prefix.as_str(), dir) {
            ("", "") => None,
            ("", d) => Some(ObjectPath::from(d)),
            (p, "") => Some(ObjectPath::from(p)),
            (p, d) => Some(ObjectPath::from(format!("{p}/{d}"))),
        };
        let skip = match self.prefix.as_str() {
            "" => 0,
            p => p.len() + 1,
        };
        let folder = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        let metas: Vec<_> = self
            .block(self.client.list(root.as_ref()).try_collect())
            .map_err(|e| brief(&e, "listing", &self.what(prefix)))?;
        let mut keys: Vec<String> = metas
            .into_iter()
            .filter_map(|m| m.location.as_ref().get(skip..).map(str::to_string))
            .filter(|k| k.starts_with(&folder) && k[folder.len()..].starts_with(rest))
            .filter(|k| k != LEASE)
            .collect();
        keys.sort();
        Ok(keys)
    }

    fn delete(&self, key: &str) -> anyhow::Result<()> {
        self.writable()?;
        match self.block(self.client.delete(&self.path(key))) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(brief(&e, "deleting", &self.what(key))),
        }
    }

    fn lock(&self, lease_seconds: u64) -> anyhow::Result<Box<dyn Any + Send>> {
        Ok(Box::new(Lease::acquire(self.clone(), lease_seconds)?))
    }
}

/// A short error for `doing` `what`: the S3 error code and message, or the network
/// failure, instead of object_store's whole chain (which repeats the request thrice).
fn brief(e: &object_store::Error, doing: &str, what: &str) -> anyhow::Error {
    let text = e.to_string();
    let between = |a: &str, b: &str| {
        let start = text.find(a)? + a.len();
        Some(text[start..start + text[start..].find(b)?].to_string())
    };
    let why = match (
        between("<Code>", "</Code>"),
        between("<Message>", "</Message>"),
    ) {
        (Some(code), _) if code == "NoSuchBucket" => {
            "the bucket does not exist (create it first)".to_string()
        }
        (Some(code), _)
            if [
                "SignatureDoesNotMatch",
                "InvalidAccessKeyId",
                "AccessDenied",
            ]
            .contains(&code.as_str()) =>
        {
            format!("{code}: access denied; check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
        }
        (Some(code), Some(message)) => format!("{code}: {message}"),
        _ => {
            let mut source: &dyn std::error::Error = e;
            while let Some(inner) = source.source() {
                source = inner;
            }
            let last = source.to_string();
            if text.contains("after") && text.contains("retries") {
                format!("{last} (after retrying)")
            } else {
                last
            }
        }
    };
    anyhow::anyhow!("{doing} {what}: {}", crate::limits::clip_to(&why, 300))
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct LeaseRecord {
    holder: String,
    /// Milliseconds since the Unix epoch.
    expires: u64,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The lease as stored: its record (`None` if unreadable: it cannot name a live
/// holder) and the ETag a conditional write must match; `None` if there is none.
fn read_lease(store: &S3Store) -> anyhow::Result<Option<(Option<LeaseRecord>, String)>> {
    let lease = store.get_tagged(LEASE, 1 << 16)?;
    Ok(lease.map(|(bytes, e_tag)| (serde_json::from_slice(&bytes).ok(), e_tag)))
}

/// Writes the lease for `holder` if it is still as last seen: absent (`seen = None`) or
/// with ETag `seen`. `Ok(Some(etag))`: written; `Ok(None)`: another writer got there
/// first.
fn write_lease(
    store: &S3Store,
    holder: &str,
    seconds: u64,
    seen: Option<&str>,
) -> anyhow::Result<Option<String>> {
    let record = LeaseRecord {
        holder: holder.to_string(),
        expires: now_ms() + seconds * 1000,
    };
    let mode = match seen {
        None => PutMode::Create,
        Some(e_tag) => PutMode::Update(UpdateVersion {
            e_tag: Some(e_tag.to_string()),
            version: None,
        }),
    };
    let payload = PutPayload::from(serde_json::to_vec(&record)?);
    let path = store.path(LEASE);
    match store.block(
        store
            .client
            .put_opts(&path, payload, PutOptions::from(mode)),
    ) {
        Ok(r) => Ok(Some(r.e_tag.unwrap_or_default())),
        Err(
            object_store::Error::AlreadyExists { .. } | object_store::Error::Precondition { .. },
        ) => Ok(None),
        Err(e) => Err(brief(&e, "writing", &store.what(LEASE))),
    }
}

/// Who holds the lease now, for messages.
fn holder_now(store: &S3Store) -> String {
    match read_lease(store) {
        Ok(Some((Some(r), _))) => crate::limits::clip(&r.holder).to_string(),
        _ => "another trainer".into(),
    }
}

/// A trainer's lease on an S3 run, renewed by a thread until dropped.
pub struct Lease {
    stop: Arc<AtomicBool>,
    renewer: Option<std::thread::JoinHandle<()>>,
}

impl Lease {
    fn acquire(store: S3Store, seconds: u64) -> anyhow::Result<Lease> {
        let seconds = seconds.max(1);
        let me = super::local::holder();
        let seen = match read_lease(&store)? {
            None => None,
            Some((Some(old), _)) if old.holder != me && old.expires > now_ms() => bail!(
                "{} is in use by another trainer ({}); its lease expires in {:.0} s unless renewed",
                store.url(),
                crate::limits::clip(&old.holder),
                (old.expires - now_ms()) as f64 / 1000.0
            ),
            Some((_, e_tag)) => Some(e_tag),
        };
        let Some(mut e_tag) = write_lease(&store, &me, seconds, seen.as_deref())? else {
            bail!(
                "{}: {} took the lease at the same moment",
                store.url(),
                holder_now(&store)
            );
        };
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let renewer = std::thread::spawn(move || {
            let period = Duration::from_millis(seconds * 1000 / 3);
            let mut waited = Duration::ZERO;
            while !flag.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                waited += Duration::from_millis(100);
                if waited < period {
                    continue;
                }
                waited = Duration::ZERO;
                match write_lease(&store, &me, seconds, Some(&e_tag)) {
                    Ok(Some(next)) => e_tag = next,
                    Ok(None) => {
                        let why = format!(
                            "{}: the lease was taken by {}; stopping so that two trainers never write one run",
                            store.url(),
                            holder_now(&store)
                        );
                        eprintln!("error: {why}");
                        *store.lost.lock().expect("lease flag") = Some(why);
                        return;
                    }
                    Err(e) => eprintln!("warning: renewing the lease: {e:#}"),
                }
            }
            // Let go only of our own lease (a plain delete: S3 has no conditional one).
            if read_lease(&store).is_ok_and(|r| r.is_some_and(|(_, t)| t == e_tag)) {
                let _ = store.delete(LEASE);
            }
        });
        Ok(Lease {
            stop,
            renewer: Some(renewer),
        })
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.renewer.take() {
            let _ = t.join();
        }
    }
}
