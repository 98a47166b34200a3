//! Every bound the program puts on what it is asked to do, in one place: counts from the
//! command line, agent specs, the engine protocol and the web server, and the size of
//! every file it reads. Past a bound the request is refused with an error that names it;
//! nothing is allocated or read first. [`TABLE`] describes each, and `docs/limits.md`'s
//! table is made from it ([`markdown_table`]; `tests/suite/docs.rs` holds the file to it).
//! Config fields have their own ranges, in `config::fields`.

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
/// Plies of a depth-limited search (`depth=`, `go depth`, the engine's `Depth`).
pub const MAX_SEARCH_DEPTH: u32 = 64;
/// Milliseconds a move may be given (`ms=`, `--movetime`, the engine's `MoveTime`).
pub const MAX_MOVE_MS: u64 = 3_600_000;
/// Nodes a move may be given (`nodes=`, the engine's `Nodes`).
pub const MAX_NODES: u64 = 1_000_000_000_000;
/// Root actions a Gumbel search samples (`gumbel=`, `mcts.gumbel_actions`).
pub const MAX_GUMBEL_ACTIONS: u64 = 4096;
/// The deepest `perft` the engine serves: depth 5 from the start takes about a second,
/// and each level multiplies that by about 50, while the engine answers nothing else.
pub const MAX_PERFT: u32 = 6;
/// The engine's `Hash` option, in MiB: the network search's evaluation cache, the
/// alpha-beta player's transposition table.
pub const MAX_HASH_MIB: u64 = 65_536;
/// Games `contagion serve` keeps at once (the longest idle is dropped).
pub const MAX_SERVED_GAMES: usize = 200;
/// The longest time per move a served game may ask for.
pub const MAX_SERVED_MOVE_MS: u64 = 10_000;
/// The deepest fixed-depth baseline a served game may ask for.
pub const MAX_SERVED_DEPTH: u32 = 8;
/// A request body to `contagion serve`.
pub const MAX_REQUEST_BYTES: usize = 64 << 10;

/// How a bound's number reads.
#[derive(Debug, Clone, Copy)]
pub enum Unit {
    /// A count.
    Count,
    /// Bytes, shown in KiB, MiB or GiB.
    Bytes,
    /// Milliseconds.
    Ms,
    /// Characters.
    Chars,
}

/// A bound as `docs/limits.md` lists it.
#[derive(Debug, Clone, Copy)]
pub struct Limit {
    /// What is bounded, and where it is asked for.
    pub what: &'static str,
    /// The bound.
    pub value: u64,
    /// How the number reads.
    pub unit: Unit,
    /// What happens past it.
    pub past: &'static str,
}

/// Every bound above, described.
#[rustfmt::skip]
pub const TABLE: &[Limit] = &[
    Limit { what: "a config file", value: MAX_CONFIG_BYTES, unit: Unit::Bytes, past: "`… is larger than the limit of N bytes` (so `--config /dev/zero` stops at once)" },
    Limit { what: "a checkpoint, shard or bundle weights", value: MAX_MODEL_BYTES, unit: Unit::Bytes, past: "the same error" },
    Limit { what: "a bundle manifest, `metrics.jsonl`, a game record file", value: MAX_TEXT_BYTES, unit: Unit::Bytes, past: "the same error" },
    Limit { what: "games in one match (`eval --games`, gating, baselines)", value: MAX_MATCH_GAMES as u64, unit: Unit::Count, past: "`--games = G is over the limit of N`, before any opening is drawn" },
    Limit { what: "threads (`eval --threads`, `bench selfplay --workers`, `selfplay.workers`, `threads=`, the engine's `Threads`)", value: MAX_THREADS as u64, unit: Unit::Count, past: "`--threads = T is over the limit of N`" },
    Limit { what: "simulations in one MCTS search (`sims=`, `go nodes`)", value: MAX_SIMULATIONS, unit: Unit::Count, past: "`sims=` is refused; `go nodes` is capped (the tree grows ~100 bytes a node)" },
    Limit { what: "search depth (`depth=`, `go depth`, the engine's `Depth`)", value: MAX_SEARCH_DEPTH as u64, unit: Unit::Count, past: "`depth=` and `Depth` are refused; `go depth` is capped" },
    Limit { what: "time per move (`ms=`, `--movetime`, the engine's `MoveTime`)", value: MAX_MOVE_MS, unit: Unit::Ms, past: "refused, naming the range" },
    Limit { what: "nodes per move (`nodes=`, the engine's `Nodes`)", value: MAX_NODES, unit: Unit::Count, past: "refused, naming the range" },
    Limit { what: "Gumbel root actions (`gumbel=`, `mcts.gumbel_actions`)", value: MAX_GUMBEL_ACTIONS, unit: Unit::Count, past: "refused, naming the range" },
    Limit { what: "the engine's `Hash` option (MiB)", value: MAX_HASH_MIB, unit: Unit::Count, past: "`setoption` is refused, naming the range" },
    Limit { what: "`perft` depth in the engine", value: MAX_PERFT as u64, unit: Unit::Count, past: "`error perft: depth must be an integer 0-N`" },
    Limit { what: "one engine protocol line", value: MAX_LINE_BYTES, unit: Unit::Bytes, past: "`error input line longer than N bytes: ignored` (the line is skipped, not stored)" },
    Limit { what: "quoted input in an error", value: MAX_ECHO_CHARS as u64, unit: Unit::Chars, past: "the rest is counted: `… (9920 more characters)`" },
    Limit { what: "games `serve` keeps at once", value: MAX_SERVED_GAMES as u64, unit: Unit::Count, past: "the longest idle game is dropped" },
    Limit { what: "time per move in a served game", value: MAX_SERVED_MOVE_MS, unit: Unit::Ms, past: "`movetime_ms must be 1 to N` (400)" },
    Limit { what: "a served baseline's depth", value: MAX_SERVED_DEPTH as u64, unit: Unit::Count, past: "the opponent is refused (400)" },
    Limit { what: "a request body to `serve`", value: MAX_REQUEST_BYTES as u64, unit: Unit::Bytes, past: "413" },
];

/// [`TABLE`] as a Markdown table: what `docs/limits.md` holds.
pub fn markdown_table() -> String {
    let mut out = String::from("| what | limit | past it |\n|---|---|---|\n");
    for l in TABLE {
        let value = match l.unit {
            Unit::Bytes if l.value >= 1 << 30 => format!("{} GiB", l.value >> 30),
            Unit::Bytes if l.value >= 1 << 20 => format!("{} MiB", l.value >> 20),
            Unit::Bytes => format!("{} KiB", l.value >> 10),
            Unit::Count => grouped(l.value),
            Unit::Ms => format!("{} ms", grouped(l.value)),
            Unit::Chars => format!("{} characters", l.value),
        };
        out.push_str(&format!("| {} | {value} | {} |\n", l.what, l.past));
    }
    out
}

/// `n` with thousands separated by commas.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

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

/// The one of `all` whose name (`names`, in `all`'s order) is `name`, or a message
/// naming it as a `what` and listing the names: for the small enums configs and
/// manifests name.
pub fn named<T: Copy>(what: &str, all: &[T], names: &[&str], name: &str) -> Result<T, String> {
    let found = names.iter().position(|n| *n == name).map(|i| all[i]);
    found.ok_or_else(|| {
        format!(
            "{what} '{}': this build has {}",
            clip(name),
            names.join(", ")
        )
    })
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
