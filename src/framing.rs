//! Framed files: atomic, checksummed binary files (checkpoints and replay shards).
//!
//! Layout (little-endian): 8-byte magic naming the kind of file, `u32` format version,
//! `u64` payload length, `u32` CRC-32 of the payload, then the payload. A file of
//! another kind, another version, a truncated file or one whose checksum does not match
//! is refused with a message saying which; nothing is returned from it.
//!
//! Writes go to a temporary file in the same directory, are fsynced and renamed over the
//! target, so a crash leaves either the old file or the new one, never half of one; a
//! failed write (a full disk) removes its temporary file and says why.

use std::fs;
use std::io::Write;
use std::path::Path;

use anyhow::{Context, bail};

const HEADER: usize = 8 + 4 + 8 + 4;

/// Writes `bytes` to `path` atomically (temp file, fsync, rename, fsync the directory).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
    let name = path
        .file_name()
        .with_context(|| format!("{}: not a file path", path.display()))?;
    let tmp = path.with_file_name(format!(".{}.tmp", name.to_string_lossy()));
    let written = fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(bytes).and_then(|_| f.sync_all()))
        .and_then(|_| fs::rename(&tmp, path));
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp); // never leave a partial temp file behind
        let why = if e.kind() == std::io::ErrorKind::StorageFull {
            "the disk is full; free some space and run again (nothing was replaced)".to_string()
        } else {
            e.to_string()
        };
        bail!("writing {}: {why}", path.display());
    }
    if let Some(dir) = dir
        && let Ok(d) = fs::File::open(dir)
    {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Frames `payload` with the header.
pub fn frame(magic: &[u8; 8], version: u32, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + payload.len());
    out.extend_from_slice(magic);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// Checks the header of `bytes` and returns the payload. `what` names the file in errors.
pub fn unframe<'a>(
    bytes: &'a [u8],
    magic: &[u8; 8],
    version: u32,
    what: &str,
) -> anyhow::Result<&'a [u8]> {
    unframe_any(bytes, magic, &[version], what).map(|(_, payload)| payload)
}

/// [`unframe`] accepting any of `versions`; returns the file's version with the payload.
pub fn unframe_any<'a>(
    bytes: &'a [u8],
    magic: &[u8; 8],
    versions: &[u32],
    what: &str,
) -> anyhow::Result<(u32, &'a [u8])> {
    if bytes.len() < HEADER {
        bail!(
            "{what}: truncated ({} bytes, shorter than the {HEADER}-byte header)",
            bytes.len()
        );
    }
    if &bytes[..8] != magic {
        bail!(
            "{what}: not a {} file (wrong magic bytes)",
            String::from_utf8_lossy(&magic[..]).trim_end_matches('\0')
        );
    }
    let v = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if !versions.contains(&v) {
        let known: Vec<String> = versions.iter().map(u32::to_string).collect();
        bail!(
            "{what}: format version {v}, this program reads version {}",
            known.join(" or ")
        );
    }
    let len = u64::from_le_bytes(bytes[12..20].try_into().expect("8 bytes"));
    let crc = u32::from_le_bytes(bytes[20..24].try_into().expect("4 bytes"));
    let payload = &bytes[HEADER..];
    if payload.len() as u64 != len {
        bail!(
            "{what}: truncated or padded (payload {} bytes, header says {len})",
            payload.len()
        );
    }
    if crc32fast::hash(payload) != crc {
        bail!("{what}: corrupted (checksum mismatch)");
    }
    Ok((v, payload))
}

/// Encodes `value` with bincode and writes it framed, atomically.
pub fn save<T: bincode::Encode>(
    path: &Path,
    magic: &[u8; 8],
    version: u32,
    value: &T,
) -> anyhow::Result<()> {
    let payload = bincode::encode_to_vec(value, bincode::config::standard())?;
    write_atomic(path, &frame(magic, version, &payload))
}

/// Reads a framed bincode file written by [`save`].
pub fn load<T: bincode::Decode<()>>(
    path: &Path,
    magic: &[u8; 8],
    version: u32,
) -> anyhow::Result<T> {
    let (_, bytes) = read_framed(path, magic, &[version])?;
    decode(&bytes, &path.display().to_string())
}

/// Reads a framed file of one of `versions` (at most [`crate::limits::MAX_MODEL_BYTES`]);
/// returns its version and payload.
pub fn read_framed(
    path: &Path,
    magic: &[u8; 8],
    versions: &[u32],
) -> anyhow::Result<(u32, Vec<u8>)> {
    let bytes = crate::limits::read_file(path, crate::limits::MAX_MODEL_BYTES)?;
    let (v, payload) = unframe_any(&bytes, magic, versions, &path.display().to_string())?;
    Ok((v, payload.to_vec()))
}

/// Decodes a whole bincode payload; `what` names the file in errors.
pub fn decode<T: bincode::Decode<()>>(payload: &[u8], what: &str) -> anyhow::Result<T> {
    let (value, used) = bincode::decode_from_slice(payload, bincode::config::standard())
        .map_err(|e| anyhow::anyhow!("{what}: undecodable contents: {e}"))?;
    if used != payload.len() {
        bail!("{what}: {} unexpected trailing bytes", payload.len() - used);
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAGIC: &[u8; 8] = b"CZTEST\0\0";

    #[test]
    fn frames_round_trip_and_damage_is_named() {
        let framed = frame(MAGIC, 3, b"hello world");
        assert_eq!(unframe(&framed, MAGIC, 3, "f").unwrap(), b"hello world");
        let err = |b: &[u8], v| unframe(b, MAGIC, v, "f").unwrap_err().to_string();
        assert!(err(&framed[..10], 3).contains("truncated"));
        assert!(err(&framed[..framed.len() - 1], 3).contains("truncated"));
        assert!(err(&framed, 4).contains("version 3"));
        assert!(err(&frame(b"OTHER\0\0\0", 3, b"x"), 3).contains("wrong magic"));
        let mut flipped = framed.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert!(err(&flipped, 3).contains("checksum"));
    }

    #[test]
    fn a_failed_write_leaves_no_temporary_file() {
        let dir = std::env::temp_dir().join(format!("czero-storage-{}", std::process::id()));
        let target = dir.join("target");
        fs::create_dir_all(target.join("occupied")).unwrap(); // rename over it fails
        let err = write_atomic(&target, b"data").unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("writing {}", target.display())),
            "{err}"
        );
        let left: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, vec![std::ffi::OsString::from("target")]);
        fs::remove_dir_all(&dir).unwrap();
    }
}
