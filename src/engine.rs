//! The engine protocol: a UCI-like line protocol over stdin/stdout for other programs.
//!
//! | command | reply |
//! |---|---|
//! | `isready` | `readyok` |
//! | `uai` (or `uci`) | `id name …`, `id author …`, `uaiok` |
//! | `uainewgame`, `setoption …`, `stop` | nothing (`uainewgame` is `newgame`) |
//! | `position startpos [moves M…]` | nothing (or `error …`) |
//! | `position [fen] NOTATION [moves M…]` | nothing (or `error …`) |
//! | `go [movetime MS] [wtime MS] [btime MS] [winc MS] [binc MS] [nodes N] [depth D]` | `info …` (search agents) then `bestmove MOVE` (`bestmove none` when the game is over) |
//! | `perft N` | the number of leaf positions N actions ahead (N ≤ 6) |
//! | `moves` | the legal moves, space-separated |
//! | `show` | the board, then `position NOTATION` |
//! | `newgame` | nothing; back to the start position |
//! | `quit` | exits |
//!
//! The mover's clock is the `go` key [`Game::clock_name`] names: `wtime` for Infexion's
//! Red, but `btime` for Ataxx's `x`, which moves first as Black (UAI). Increments and
//! `movestogo` are accepted and ignored. With `uai`, standard Ataxx tools can drive it.
//!
//! A malformed or illegal command gets exactly one `error …` line and changes nothing;
//! the engine keeps running. `position` applies its moves all-or-nothing. Input is read
//! on its own thread, so `stop` ends a running `go` at once with the best move found so
//! far. Other lines, `quit` included, wait their turn: a script of `go nodes 12` then
//! `quit` gets its full search (send `stop` first to end one early). `go nodes` is capped at [`crate::limits::MAX_SIMULATIONS`] for a
//! network search, and error lines quote at most [`crate::limits::MAX_ECHO_CHARS`]
//! characters of the input.

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::agents::{Agent, Baselines, Limits};
use crate::games::Game;
use crate::games::perft::perft;
use crate::limits::clip;
use crate::search::Stop;

/// The deepest `perft` served: depth 5 from the start takes about a second, and each
/// level multiplies that by about 50, while the engine answers nothing else.
pub const MAX_PERFT: u32 = 6;

/// The engine's state: a position and the agent that answers `go`.
pub struct Engine<G: Game> {
    start: G,
    state: G,
    agent: Box<dyn Agent<G>>,
    /// `stop` lines read so far (by [`Engine::run`]'s reader thread).
    stops: &'static AtomicU64,
    /// How many of those had arrived before the line being handled.
    stops_before: u64,
}

/// What one command line produced.
#[derive(Debug, Default, PartialEq)]
pub struct Reply {
    pub lines: Vec<String>,
    pub quit: bool,
}

impl Reply {
    fn line(text: impl Into<String>) -> Reply {
        Reply {
            lines: vec![text.into()],
            quit: false,
        }
    }

    fn error(text: impl std::fmt::Display) -> Reply {
        Reply::line(format!("error {text}"))
    }
}

impl<G: Baselines> Engine<G> {
    pub fn new(start: G, agent: Box<dyn Agent<G>>) -> Self {
        Engine {
            state: start.clone(),
            start,
            agent,
            // One counter per engine, for the life of the process (an engine is made once).
            stops: Box::leak(Box::new(AtomicU64::new(0))),
            stops_before: 0,
        }
    }

    /// The current position.
    pub fn state(&self) -> &G {
        &self.state
    }

    /// Answers one command line.
    pub fn handle(&mut self, line: &str) -> Reply {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&command, args)) = words.split_first() else {
            return Reply::default();
        };
        match command {
            "isready" => Reply::line("readyok"),
            "uai" | "uci" => Reply {
                lines: vec![
                    format!("id name Contagion Zero {}", env!("CARGO_PKG_VERSION")),
                    "id author the Contagion Zero developers".into(),
                    format!("{command}ok"),
                ],
                quit: false,
            },
            // Options are not configurable and searches are synchronous.
            "setoption" | "stop" => Reply::default(),
            "quit" => Reply {
                lines: vec![],
                quit: true,
            },
            "newgame" | "ucinewgame" | "uainewgame" => {
                self.state = self.start.clone();
                Reply::default()
            }
            "position" => self.position(args),
            "go" => self.go(args),
            "perft" => match args {
                [n] => match n.parse::<u32>() {
                    Ok(depth) if depth <= MAX_PERFT => {
                        Reply::line(perft(&self.state, depth).to_string())
                    }
                    _ => Reply::error(format!(
                        "perft: depth must be an integer 0-{MAX_PERFT}, got '{}'",
                        clip(n)
                    )),
                },
                _ => Reply::error("perft: usage 'perft N'"),
            },
            "moves" => {
                let mut moves = Vec::new();
                self.state.legal_actions(&mut moves);
                let names: Vec<String> = moves
                    .iter()
                    .map(|&a| self.state.action_to_string(a))
                    .collect();
                Reply::line(names.join(" "))
            }
            "show" | "d" => {
                let mut lines: Vec<String> =
                    self.state.render().lines().map(String::from).collect();
                lines.push(format!("position {}", self.state.to_notation()));
                Reply { lines, quit: false }
            }
            other => Reply::error(format!(
                "unknown command '{}' (expected isready, position, go, perft, moves, show, newgame, uai, quit)",
                clip(other)
            )),
        }
    }

    fn position(&mut self, args: &[&str]) -> Reply {
        let split = args
            .iter()
            .position(|&w| w == "moves")
            .unwrap_or(args.len());
        let (setup, moves) = (&args[..split], args.get(split + 1..).unwrap_or(&[]));
        let base = match setup {
            ["startpos"] => self.start.clone(),
            [] => return Reply::error("position: expected 'startpos' or a position notation"),
            words => {
                let words = words.strip_prefix(&["fen"]).unwrap_or(words);
                match self.start.parse_position(&words.join(" ")) {
                    Ok(s) => s,
                    Err(e) => return Reply::error(format!("position: {e}")),
                }
            }
        };
        let mut state = base;
        for (i, text) in moves.iter().enumerate() {
            let applied = state.parse_legal_action(text).and_then(|a| state.apply(a));
            if let Err(e) = applied {
                return Reply::error(format!("position: move {} '{}': {e}", i + 1, clip(text)));
            }
        }
        self.state = state;
        Reply::default()
    }

    fn go(&mut self, args: &[&str]) -> Reply {
        let mut limits = Limits {
            stop: Stop(Some((self.stops, self.stops_before))),
            ..Limits::default()
        };
        let mut it = args.iter();
        while let Some(&key) = it.next() {
            let Some(value) = it.next().and_then(|v| v.parse::<u64>().ok()) else {
                return Reply::error(format!("go: '{}' needs a non-negative integer", clip(key)));
            };
            let ms = Duration::from_millis(value);
            let clock = self.state.clock_name(self.state.to_move());
            match key {
                "movetime" => limits.movetime = Some(ms),
                _ if key == clock => limits.time_left = Some(ms),
                "wtime" | "btime" | "ctime" | "winc" | "binc" | "cinc" | "movestogo" => {}
                "nodes" => limits.nodes = Some(value.max(1)),
                "depth" => limits.depth = Some(value.clamp(1, 64) as u32),
                _ => {
                    return Reply::error(format!(
                        "go: unknown limit '{}' (expected movetime, wtime, btime, nodes, depth)",
                        clip(key)
                    ));
                }
            }
        }
        if self.state.outcome().is_some() {
            return Reply::line("bestmove none");
        }
        match self.agent.select(&self.state, &limits) {
            Ok(action) => {
                let mut lines: Vec<String> = self
                    .agent
                    .last_info()
                    .map(|i| format!("info {i}"))
                    .into_iter()
                    .collect();
                lines.push(format!("bestmove {}", self.state.action_to_string(action)));
                Reply { lines, quit: false }
            }
            Err(e) => Reply::error(format!("go: {e:#}")),
        }
    }

    /// Runs the protocol until `quit` or end of input. Only I/O errors end it early.
    /// A thread reads `input` ahead, so that `stop` reaches a search in progress.
    pub fn run(
        &mut self,
        input: impl BufRead + Send + 'static,
        mut output: impl Write,
    ) -> std::io::Result<()> {
        let (tx, rx) = std::sync::mpsc::channel();
        let stops = self.stops;
        std::thread::spawn(move || {
            let mut input = input;
            loop {
                let line = read_line(&mut input);
                let before = stops.load(Ordering::Relaxed);
                if let Ok(Some(l)) = &line
                    && l.trim() == "stop"
                {
                    stops.fetch_add(1, Ordering::Relaxed);
                }
                let end = matches!(line, Ok(None) | Err(Line::Io(_)));
                if tx.send((line, before)).is_err() || end {
                    break;
                }
            }
        });
        for (line, before) in rx {
            self.stops_before = before;
            let line = match line {
                Ok(Some(l)) => l,
                Ok(None) => break,
                Err(Line::Io(e)) => return Err(e),
                Err(bad) => {
                    writeln!(output, "error {bad}")?;
                    output.flush()?;
                    continue;
                }
            };
            let reply = self.handle(&line);
            for l in &reply.lines {
                writeln!(output, "{l}")?;
            }
            output.flush()?;
            if reply.quit {
                break;
            }
        }
        Ok(())
    }
}

/// Why an input line was not read.
#[derive(Debug, thiserror::Error)]
enum Line {
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
fn read_line(input: &mut impl BufRead) -> Result<Option<String>, Line> {
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
