//! TensorBoard event files beside `metrics.jsonl`, so `tensorboard --logdir checkpoints/`
//! shows every run's curves (config `run.tensorboard`, on by default).
//!
//! Every scalar of an iteration's metrics record becomes one TensorBoard scalar at step
//! `iteration`: its numbers by their JSON path (`loss_total`, `vs_baseline/score`,
//! `worker_games/w1`), `true`/`false` as 1/0; `null`s and text are left out.
//!
//! Each iteration has its own event file, `tensorboard/events.out.tfevents.<iteration>.contagion`,
//! written whole through the run's [`Store`] like every other object (so S3 runs have
//! them too), and named so that TensorBoard reads the files in iteration order. A file
//! per iteration is what makes a resumed run exact: writing an iteration again replaces
//! its file, so no step is ever recorded twice, and [`sync`] writes the file of any
//! record whose file a crash cut off. An event file is TensorBoard's TFRecord
//! framing (a length, a masked CRC-32C of it, the record, a masked CRC-32C of that)
//! around `Event` protobufs, which `prost` encodes from the few fields declared here.

use std::time::{SystemTime, UNIX_EPOCH};

use prost::Message;

use super::metrics::{self, IterationMetrics};
use crate::store::Store;

/// The folder of a run's event files.
pub const DIR: &str = "tensorboard/";

/// The key of iteration `iteration`'s event file.
pub fn key(iteration: u32) -> String {
    format!("{DIR}events.out.tfevents.{iteration:010}.contagion")
}

/// Writes the event file of record `m`.
pub fn write(store: &dyn Store, m: &IterationMetrics) -> anyhow::Result<()> {
    store.put(&key(m.iteration), &file_bytes(m)?)
}

/// Writes the event file of every record in the run's metrics log that has none (a
/// crash between the two writes, or a run from before event files); returns how many.
pub fn sync(store: &dyn Store) -> anyhow::Result<usize> {
    let present: std::collections::BTreeSet<String> = store.list(DIR)?.into_iter().collect();
    let records = metrics::records(store)?;
    let missing: Vec<&IterationMetrics> = (records.iter())
        .filter(|m| !present.contains(&key(m.iteration)))
        .collect();
    for m in &missing {
        write(store, m)?;
    }
    Ok(missing.len())
}

/// Every scalar of `m`: its JSON path (parts joined by `/`) and value.
pub fn scalars(m: &IterationMetrics) -> anyhow::Result<Vec<(String, f32)>> {
    fn walk(prefix: &str, v: &serde_json::Value, out: &mut Vec<(String, f32)>) {
        let join = |k: &str| {
            if prefix.is_empty() {
                k.to_string()
            } else {
                format!("{prefix}/{k}")
            }
        };
        match v {
            serde_json::Value::Number(n) => {
                out.extend(n.as_f64().map(|x| (prefix.into(), x as f32)))
            }
            serde_json::Value::Bool(b) => out.push((prefix.into(), f32::from(u8::from(*b)))),
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    walk(&join(k), v, out);
                }
            }
            serde_json::Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    walk(&join(&i.to_string()), v, out);
                }
            }
            serde_json::Value::Null | serde_json::Value::String(_) => {}
        }
    }
    let mut out = Vec::new();
    walk("", &serde_json::to_value(m)?, &mut out);
    Ok(out)
}

/// The whole event file of record `m`: the file-version event, then its scalars.
fn file_bytes(m: &IterationMetrics) -> anyhow::Result<Vec<u8>> {
    let wall_time = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    let version = Event {
        wall_time,
        step: 0,
        file_version: "brain.Event:2".into(),
        summary: None,
    };
    let value = scalars(m)?
        .into_iter()
        .map(|(tag, x)| Value {
            tag,
            value: Some(Kind::SimpleValue(x)),
        })
        .collect();
    let scalars = Event {
        wall_time,
        step: i64::from(m.iteration),
        file_version: String::new(),
        summary: Some(Summary { value }),
    };
    let mut out = Vec::new();
    for event in [version, scalars] {
        record(&mut out, &event.encode_to_vec());
    }
    Ok(out)
}

/// Appends `data` to `out` as one TFRecord.
fn record(out: &mut Vec<u8>, data: &[u8]) {
    let len = (data.len() as u64).to_le_bytes();
    out.extend_from_slice(&len);
    out.extend_from_slice(&masked_crc(&len).to_le_bytes());
    out.extend_from_slice(data);
    out.extend_from_slice(&masked_crc(data).to_le_bytes());
}

/// TFRecord's masked CRC-32C.
fn masked_crc(bytes: &[u8]) -> u32 {
    let crc = crc32c::crc32c(bytes);
    crc.rotate_right(15).wrapping_add(0xa282_ead8)
}

/// `tensorflow.Event`, the fields written here.
#[derive(Clone, PartialEq, Message)]
struct Event {
    #[prost(double, tag = "1")]
    wall_time: f64,
    #[prost(int64, tag = "2")]
    step: i64,
    #[prost(string, tag = "3")]
    file_version: String,
    #[prost(message, optional, tag = "5")]
    summary: Option<Summary>,
}

/// `tensorflow.Summary`.
#[derive(Clone, PartialEq, Message)]
struct Summary {
    #[prost(message, repeated, tag = "1")]
    value: Vec<Value>,
}

/// `tensorflow.Summary.Value`, a scalar.
#[derive(Clone, PartialEq, Message)]
struct Value {
    #[prost(string, tag = "1")]
    tag: String,
    /// A member of the `value` oneof, so a zero is written too (a plain proto3 field
    /// at its default is left out, and TensorBoard would see no value at all).
    #[prost(oneof = "Kind", tags = "2")]
    value: Option<Kind>,
}

/// `tensorflow.Summary.Value.value`, the scalar case.
#[derive(Clone, PartialEq, prost::Oneof)]
enum Kind {
    #[prost(float, tag = "2")]
    SimpleValue(f32),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_framed_as_tfrecord_with_masked_crc32c() {
        // CRC-32C of "123456789" is 0xE3069283 (the standard check value).
        assert_eq!(crc32c::crc32c(b"123456789"), 0xE306_9283);
        let mut out = Vec::new();
        record(&mut out, b"abc");
        assert_eq!(out.len(), 8 + 4 + 3 + 4);
        assert_eq!(&out[..8], &3u64.to_le_bytes());
        assert_eq!(&out[12..15], b"abc");
        let masked = u32::from_le_bytes(out[15..19].try_into().unwrap());
        let crc = masked.wrapping_sub(0xa282_ead8).rotate_left(15);
        assert_eq!(crc, crc32c::crc32c(b"abc"));
    }
}
