//! Reading the engine's input: one line at a time, bounded in length, UTF-8 checked.

use std::io::BufRead;

/// Why an input line was not read.
#[derive(Debug, thiserror::Error)]
pub enum Line {
    #[error("input is not valid UTF-8")]
    NotUtf8,
    #[error(
        "input line longer than {} bytes: ignored",
        crate::limits::MAX_LINE_BYTES
    )]
    TooLong,
    #[error("reading input: {0}")]
    Io(std::io::Error),
}

/// The next line of `input` without its line ending (`None` at the end). A line over
/// [`crate::limits::MAX_LINE_BYTES`] is skipped to its end without being kept.
pub fn read_line(input: &mut impl BufRead) -> Result<Option<String>, Line> {
    let max = crate::limits::MAX_LINE_BYTES;
    let mut buf = Vec::new();
    let n = std::io::Read::take(&mut *input, max + 1)
        .read_until(b'\n', &mut buf)
        .map_err(Line::Io)?;
    if n == 0 {
        return Ok(None);
    }
    if buf.len() as u64 > max && buf.last() != Some(&b'\n') {
        loop {
            buf.clear();
            let n = std::io::Read::take(&mut *input, max)
                .read_until(b'\n', &mut buf)
                .map_err(Line::Io)?;
            if n == 0 || buf.last() == Some(&b'\n') {
                return Err(Line::TooLong);
            }
        }
    }
    while matches!(buf.last(), Some(b'\n' | b'\r')) {
        buf.pop();
    }
    String::from_utf8(buf).map(Some).map_err(|_| Line::NotUtf8)
}
