//! Float32 tensors to and from the safetensors format, through the `safetensors` crate.
//!
//! Layout (the crate's): an 8-byte little-endian header length `n`, `n` bytes of JSON
//! mapping each tensor name to `{"dtype": "F32", "shape": [...], "data_offsets":
//! [begin, end]}` and an optional `"__metadata__"` object of strings, padded with spaces
//! to a multiple of 8 bytes; then each tensor's values as little-endian `f32`,
//! row-major, in name order. Reading lets the crate check the header, offsets and
//! sizes, refuses any dtype but F32, and reports each problem as an error.

use std::collections::{BTreeMap, HashMap};

use anyhow::ensure;
use safetensors::tensor::{Dtype, SafeTensors, TensorView};

/// A float32 tensor: its shape and row-major values.
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    /// The tensor's shape.
    pub shape: Vec<usize>,
    /// Its values, row-major.
    pub data: Vec<f32>,
}

impl Tensor {
    /// A tensor of `shape` holding `data`.
    pub fn new(shape: Vec<usize>, data: Vec<f32>) -> Tensor {
        assert_eq!(shape.iter().product::<usize>(), data.len(), "tensor shape");
        Tensor { shape, data }
    }
}

/// The file bytes for `tensors` (in name order) with `metadata` in `__metadata__`.
pub fn to_bytes(
    tensors: &BTreeMap<String, Tensor>,
    metadata: &BTreeMap<String, String>,
) -> Vec<u8> {
    let bytes: Vec<(&String, &Tensor, Vec<u8>)> = tensors
        .iter()
        .map(|(name, t)| {
            (
                name,
                t,
                t.data.iter().flat_map(|v| v.to_le_bytes()).collect(),
            )
        })
        .collect();
    let views = bytes.iter().map(|(name, t, data)| {
        let view = TensorView::new(Dtype::F32, t.shape.clone(), data).expect("shape matches data");
        (name.as_str(), view)
    });
    let metadata: Option<HashMap<String, String>> =
        (!metadata.is_empty()).then(|| metadata.clone().into_iter().collect());
    safetensors::serialize(views, metadata).expect("in-memory tensors serialise")
}

/// Parses a safetensors file of float32 tensors.
pub fn from_bytes(bytes: &[u8]) -> anyhow::Result<BTreeMap<String, Tensor>> {
    let file = SafeTensors::deserialize(bytes).map_err(|e| {
        use safetensors::SafeTensorError::*;
        let hint = match e {
            HeaderTooSmall | InvalidHeaderLength | MetadataIncompleteBuffer => {
                " (the file is truncated or damaged)"
            }
            _ => "",
        };
        anyhow::anyhow!("not a valid safetensors file: {e}{hint}")
    })?;
    let mut tensors = BTreeMap::new();
    for (name, view) in file.tensors() {
        ensure!(
            view.dtype() == Dtype::F32,
            "tensor '{name}': dtype {:?} (only F32 is supported)",
            view.dtype()
        );
        let values = view
            .data()
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        tensors.insert(name, Tensor::new(view.shape().to_vec(), values));
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
        let cases = [
            bytes[..5].to_vec(),
            bytes[..bytes.len() - 4].to_vec(),
            {
                let mut huge = bytes.clone();
                huge[..8].copy_from_slice(&u64::MAX.to_le_bytes());
                huge
            },
            {
                let mut not_json = bytes.clone();
                not_json[8] = b'#';
                not_json
            },
        ];
        for bad in &cases {
            let e = err(bad);
            assert!(e.starts_with("not a valid safetensors file: "), "{e}");
        }
        assert!(err(&cases[1]).contains("truncated"), "{}", err(&cases[1]));
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
        assert!(
            err(&patch("F32", "I32")).contains("dtype I32"),
            "{}",
            err(&patch("F32", "I32"))
        );
        for (from, to) in [("[2,3]", "[3,3]"), ("[4,28]", "[0,24]")] {
            let e = err(&patch(from, to));
            assert!(
                e.starts_with("not a valid safetensors file: "),
                "{from}: {e}"
            );
        }
    }
}
