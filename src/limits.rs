//! Every bound the program puts on what it is asked to do, in one place: counts from the
//! command line and the engine protocol, and the size of every file it reads. Past a
//! bound the request is refused with an error that names it; nothing is allocated or
//! read first. `docs/limits.md` lists the same numbers.

use std::io::Read;
use std::path::Path;

use anyhow::{Context, bail};

/// Threads for matches, self-play workers and benchmarks.
pub const MAX_THREADS: usize = 256;

/// The machine's cores (1 if it cannot tell): what a thread count of "every core" means.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
/// Games in one match (`eval --games`, gating, baseline measurements): their openings
/// are drawn before the first game.
pub const MAX_MATCH_GAMES: u32 = 100_000;
/// Simulations in one MCTS search (`sims=`, `go nodes`): the tree grows with each, about
/// 100 bytes a node, so this caps one search's tree near a gigabyte.
pub const MAX_SIMULATIONS: u64 = 1_000_000;
/// A config file.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;
/// A checkpoint, a replay shard or a bundle's weights.
pub const MAX_MODEL_BYTES: u64 = 1 << 31;
/// A bundle's manifest, `metrics.jsonl`, and a game record file.
pub const MAX_TEXT_BYTES: u64 = 64 << 20;
/// One line of the engine protocol.
pub const MAX_LINE_BYTES: u64 = 64 << 10;
/// How much of a user's input an error message quotes.
pub const MAX_ECHO_CHARS: usize = 80;

/// `value` if it is at most `max`, else an error naming `what` and the limit.
pub fn at_most<T: PartialOrd + std::fmt::Display>(
    what: &str,
    value: T,
    max: T,
) -> anyhow::Result<T> {
    if value > max {
        bail!("{what} = {value} is over the limit of {max}");
    }
    Ok(value)
}

/// Reads the file at `path` whole, refusing one longer than `max` bytes (or a device
/// such as `/dev/zero` that never ends) after reading at most `max + 1` bytes.
pub fn read_file(path: &Path, max: u64) -> anyhow::Result<Vec<u8>> {
    let file = std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading {}", path.display()))?;
    if bytes.len() as u64 > max {
        bail!(
            "{} is larger than the limit of {} bytes for this kind of file",
            path.display(),
            max
        );
    }
    Ok(bytes)
}

/// [`read_file`] as UTF-8 text.
pub fn read_text(path: &Path, max: u64) -> anyhow::Result<String> {
    String::from_utf8(read_file(path, max)?)
        .map_err(|_| anyhow::anyhow!("{} is not UTF-8 text", path.display()))
}

/// `text` for quoting in a message: at most [`MAX_ECHO_CHARS`] characters, with the
/// length of the rest when it is cut.
pub fn clip(text: &str) -> String {
    clip_to(text, MAX_ECHO_CHARS)
}

/// [`clip`] to `chars` characters.
pub fn clip_to(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        None => text.to_string(),
        Some((cut, _)) => format!(
            "{}… ({} more characters)",
            &text[..cut],
            text[cut..].chars().count()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_keeps_short_text_and_cuts_long_text_on_a_character() {
        assert_eq!(clip("abc"), "abc");
        let long = "é".repeat(200);
        let c = clip(&long);
        assert!(c.starts_with(&"é".repeat(MAX_ECHO_CHARS)));
        assert!(c.ends_with("(120 more characters)"), "{c}");
    }

    #[test]
    fn read_file_stops_at_the_limit_on_an_endless_device() {
        let err = read_file(Path::new("/dev/zero"), 1000).unwrap_err();
        assert!(err.to_string().contains("limit of 1000 bytes"), "{err}");
        assert!(at_most("x", 5, 4).is_err() && at_most("x", 4, 4).is_ok());
    }
}
