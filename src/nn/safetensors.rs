//! The safetensors file format, float32 only, read and written without a dependency.
//!
//! Layout: an 8-byte little-endian header length `n`, `n` bytes of JSON mapping each
//! tensor name to `{"dtype": "F32", "shape": [...], "data_offsets": [begin, end]}`
//! (offsets relative to the data section; an optional `"__metadata__"` object of
//! strings), then the data: each tensor's values as little-endian `f32`, row-major.
//! Tensors are written in name order, contiguous, with the header padded with spaces to
//! a multiple of 8 bytes, as the reference implementation does.
//!
//! Reading checks everything a damaged or foreign file could get wrong (header length,
//! JSON, dtype, shape against byte count, offsets inside the data, overlaps) and
//! reports it as an error.

use std::collections::BTreeMap;

use anyhow::{Context, bail, ensure};
use serde::{Deserialize, Serialize};

/// A float32 tensor: its shape and row-major values.
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    pub shape: Vec<usize>,
    pub data: Vec<f32>,
}

impl Tensor {
    pub fn new(shape: Vec<usize>, data: Vec<f32>) -> Tensor {
        assert_eq!(shape.iter().product::<usize>(), data.len(), "tensor shape");
        Tensor { shape, data }
    }
}

#[derive(Serialize, Deserialize)]
struct Entry {
    dtype: String,
    shape: Vec<usize>,
    data_offsets: [usize; 2],
}

/// The file bytes for `tensors` (in name order) with `metadata` in `__metadata__`.
pub fn to_bytes(
    tensors: &BTreeMap<String, Tensor>,
    metadata: &BTreeMap<String, String>,
) -> Vec<u8> {
    let mut header = serde_json::Map::new();
    if !metadata.is_empty() {
        header.insert("__metadata__".into(), serde_json::json!(metadata));
    }
    let mut offset = 0;
    for (name, t) in tensors {
        let end = offset + 4 * t.data.len();
        let entry = Entry {
            dtype: "F32".into(),
            shape: t.shape.clone(),
            data_offsets: [offset, end],
        };
        header.insert(name.clone(), serde_json::to_value(entry).expect("entry"));
        offset = end;
    }
    let mut json = serde_json::to_vec(&header).expect("header");
    json.resize(json.len().div_ceil(8) * 8, b' ');
    let mut out = Vec::with_capacity(8 + json.len() + offset);
    out.extend_from_slice(&(json.len() as u64).to_le_bytes());
    out.extend_from_slice(&json);
    for t in tensors.values() {
        for v in &t.data {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out
}

/// Parses a safetensors file of float32 tensors.
pub fn from_bytes(bytes: &[u8]) -> anyhow::Result<BTreeMap<String, Tensor>> {
    ensure!(
        bytes.len() >= 8,
        "truncated: {} bytes, no header",
        bytes.len()
    );
    let n = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
    ensure!(
        n <= (bytes.len() - 8) as u64,
        "truncated: the header claims {n} bytes, the file has {}",
        bytes.len() - 8
    );
    let (json, data) = bytes[8..].split_at(n as usize);
    let header: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(json).context("the header is not a JSON object")?;
    let mut tensors = BTreeMap::new();
    let mut spans = Vec::new();
    for (name, value) in header {
        if name == "__metadata__" {
            continue;
        }
        let e: Entry = serde_json::from_value(value)
            .with_context(|| format!("tensor '{name}': malformed header entry"))?;
        ensure!(
            e.dtype == "F32",
            "tensor '{name}': dtype {} (only F32 is supported)",
            e.dtype
        );
        let [begin, end] = e.data_offsets;
        let count = e
            .shape
            .iter()
            .try_fold(1usize, |a, &d| a.checked_mul(d))
            .with_context(|| format!("tensor '{name}': shape {:?} overflows", e.shape))?;
        ensure!(
            begin <= end && end <= data.len(),
            "tensor '{name}': bytes {begin}..{end} lie outside the data ({} bytes); truncated?",
            data.len()
        );
        ensure!(
            end - begin == 4 * count,
            "tensor '{name}': shape {:?} needs {} bytes, the file gives {}",
            e.shape,
            4 * count,
            end - begin
        );
        let values = data[begin..end]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        spans.push((begin, end, name.clone()));
        tensors.insert(name, Tensor::new(e.shape, values));
    }
    spans.sort();
    for pair in spans.windows(2) {
        if pair[1].0 < pair[0].1 {
            bail!("tensors '{}' and '{}' overlap", pair[0].2, pair[1].2);
        }
    }
    Ok(tensors)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> BTreeMap<String, Tensor> {
        let mut t = BTreeMap::new();
        t.insert(
            "b".into(),
            Tensor::new(vec![2, 3], vec![1., 2., 3., 4., 5., -6.5]),
        );
        t.insert("a".into(), Tensor::new(vec![1], vec![f32::MIN_POSITIVE]));
        t.insert("scalar".into(), Tensor::new(vec![], vec![7.0]));
        t
    }

    #[test]
    fn round_trips_with_the_reference_layout() {
        let mut meta = BTreeMap::new();
        meta.insert("format".into(), "test".into());
        let bytes = to_bytes(&sample(), &meta);
        let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
        assert_eq!(n % 8, 0);
        let header: serde_json::Value = serde_json::from_slice(&bytes[8..8 + n]).unwrap();
        assert_eq!(header["a"]["data_offsets"], serde_json::json!([0, 4]));
        assert_eq!(header["b"]["data_offsets"], serde_json::json!([4, 28]));
        assert_eq!(header["b"]["shape"], serde_json::json!([2, 3]));
        assert_eq!(header["__metadata__"]["format"], "test");
        assert_eq!(bytes.len(), 8 + n + 32);
        assert_eq!(from_bytes(&bytes).unwrap(), sample());
    }

    #[test]
    fn damaged_files_are_refused_with_the_reason() {
        let bytes = to_bytes(&sample(), &BTreeMap::new());
        let err = |b: &[u8]| from_bytes(b).unwrap_err().to_string();
        assert!(err(&bytes[..5]).contains("truncated"));
        assert!(err(&bytes[..bytes.len() - 4]).contains("outside the data"));
        let mut huge = bytes.clone();
        huge[..8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(err(&huge).contains("header claims"));
        let mut not_json = bytes.clone();
        not_json[8] = b'#';
        assert!(err(&not_json).contains("not a JSON object"));
        // Same-length edits inside the header.
        let patch = |from: &str, to: &str| {
            let mut b = bytes.clone();
            let at = b
                .windows(from.len())
                .position(|w| w == from.as_bytes())
                .unwrap();
            b[at..at + to.len()].copy_from_slice(to.as_bytes());
            b
        };
        assert!(err(&patch("F32", "F16")).contains("dtype F16"));
        assert!(err(&patch("[2,3]", "[3,3]")).contains("needs 36 bytes"));
        assert!(err(&patch("[4,28]", "[0,24]")).contains("overlap"));
    }
}
