//! The engine protocol: UCI as Ataxx tools speak it (UAI), over stdin/stdout.
//!
//! | command | reply |
//! |---|---|
//! | `uai` (or `uci`) | `id name …`, `id author …`, one `option …` line per option, `uaiok` |
//! | `isready` | `readyok`, at once even while a search runs |
//! | `setoption name NAME value V` | nothing (or `error …`); see the options below |
//! | `uainewgame` (`ucinewgame`, `newgame`) | nothing; back to the start position |
//! | `position startpos [moves M…]` | nothing (or `error …`) |
//! | `position [fen] NOTATION [moves M…]` | nothing (or `error …`) |
//! | `go [wtime W] [btime B] [winc I] [binc I] [movestogo N] [movetime MS] [depth D] [nodes N] [infinite]` | `info depth … seldepth … nodes … nps … time … score cp C\|mate M pv …` then `bestmove MOVE` (`bestmove 0000` for Ataxx's pass; `bestmove none` when the game is over) |
//! | `stop` | ends a running search at once; its `info` and `bestmove` follow |
//! | `perft N` | the number of leaf positions N actions ahead (N ≤ 6) |
//! | `moves` | the legal moves, space-separated |
//! | `show` (`d`) | the board, then `position NOTATION` |
//! | `quit` | exits (after a running search ends: send `stop` first to end it early) |
//!
//! Options: `Threads` (the search's thread pool; default 1) for every agent, and the
//! agent's own: `Simulations` and `Hash` (MiB: half for cached network evaluations,
//! half for the tree, which stops growing there and says so in an `info string` line)
//! for a model, `Hash` (MiB of transposition table) for `nnue`, `Depth`, `MoveTime`
//! (ms) and `Nodes` for alpha-beta (0 removes that limit).
//!
//! The search runs on its own thread: `isready` and `stop` are answered while it runs,
//! other commands wait for it (as UCI asks of clients, they should not be sent then).
//! `go infinite` searches until `stop` (to the agent's own cap, then waits). The
//! mover's clock is the `go` key [`Game::clock_name`] names: `wtime` for Infexion's
//! Red, but `btime` for Ataxx's `x`, which moves first as Black (UAI); Chexers' third
//! player's is `ctime`. Increments and `movestogo` are accepted and ignored;
//! `simulations N` (python-ataxx sends it beside `nodes`) means `nodes N`.
//!
//! One tie-break rule: `bestmove` is the move the agent chose, and the `pv` it reports
//! starts with that move. A malformed or illegal command gets exactly one `error …` line
//! and changes nothing; `position` applies its moves all-or-nothing. `go nodes` is
//! capped at [`crate::limits::MAX_SIMULATIONS`] for a network search, and error lines
//! quote at most [`crate::limits::MAX_ECHO_CHARS`] characters of the input.

mod input;

use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use crate::agents::{Agent, AgentOption, Baselines, EarlyAnswer, Limits, SearchInfo};
use crate::games::perft::perft;
use crate::games::{Action, Game};
use crate::limits::{MAX_PERFT, clip};
use crate::search::Stop;
use input::{Line, read_line};

/// The engine's state: a position and the agent that answers `go`.
pub struct Engine<G: Game> {
    start: G,
    state: G,
    /// `None` while a search holds it on its thread.
    agent: Option<Box<dyn Agent<G>>>,
    /// The pool searches run in (`setoption name Threads`); `None` if none could be made.
    pool: Option<Arc<rayon::ThreadPool>>,
    /// Set by `stop`; cleared when a search starts; shared with the running search.
    stop: Arc<AtomicBool>,
}

/// What one command line produced.
#[derive(Debug, Default, PartialEq)]
pub struct Reply {
    /// The lines to print, in order.
    pub lines: Vec<String>,
    /// Whether the engine should exit.
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

/// A `go` to run: the position, its limits, and whether to wait for `stop` at the end.
struct Search<G> {
    state: G,
    limits: Limits,
    infinite: bool,
}

/// What a command line asks for: a reply now, or a search to run.
enum Answer<G> {
    Reply(Reply),
    Search(Search<G>),
}

/// What the main loop hears: an input line, or a finished search handing its agent back.
enum Event<G: Game> {
    /// A line and when it arrived.
    Input(Instant, Result<Option<String>, Line>),
    /// A search's agent back, its lines written (or why they could not be).
    Done(Box<dyn Agent<G>>, std::io::Result<()>),
}

impl<G: Baselines> Engine<G> {
    /// An engine at `start` whose searches `agent` runs.
    pub fn new(start: G, agent: Box<dyn Agent<G>>) -> Self {
        Engine {
            state: start.clone(),
            start,
            agent: Some(agent),
            pool: thread_pool(1).ok(),
            stop: Arc::new(AtomicBool::new(false)),
        }
    }

    /// The current position.
    pub fn state(&self) -> &G {
        &self.state
    }

    /// Answers one command line, running a `go` to its end before returning (no `stop`
    /// can reach it, so `go infinite` ends at the agent's own cap).
    pub fn handle(&mut self, line: &str) -> Reply {
        match self.command(line) {
            Answer::Reply(reply) => reply,
            Answer::Search(search) => {
                let agent = self.agent.as_mut().expect("no search is running");
                Reply {
                    lines: run_search(agent.as_mut(), &search, self.pool.as_deref(), None),
                    quit: false,
                }
            }
        }
    }

    /// Answers a command, or returns the search a `go` asks for.
    fn command(&mut self, line: &str) -> Answer<G> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&command, args)) = words.split_first() else {
            return Answer::Reply(Reply::default());
        };
        Answer::Reply(match command {
            "isready" => Reply::line("readyok"),
            "uai" | "uci" => self.identify(command),
            "setoption" => self.set_option(args),
            "stop" => Reply::default(),
            "quit" => Reply {
                lines: vec![],
                quit: true,
            },
            "newgame" | "ucinewgame" | "uainewgame" => {
                self.state = self.start.clone();
                Reply::default()
            }
            "position" => self.position(args),
            "go" => match self.parse_go(args) {
                Ok(search) if self.state.outcome().is_none() => return Answer::Search(search),
                Ok(_) => Reply::line("bestmove none"),
                Err(reply) => reply,
            },
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
                "unknown command '{}' (expected uai, isready, setoption, uainewgame, position, go, stop, perft, moves, show, quit)",
                clip(other)
            )),
        })
    }

    /// The `uai`/`uci` reply: identity, options, `uaiok`/`uciok`.
    fn identify(&self, command: &str) -> Reply {
        let mut lines = vec![
            format!("id name Contagion Zero {}", env!("CARGO_PKG_VERSION")),
            "id author the Contagion Zero developers".into(),
        ];
        for o in self.options() {
            lines.push(format!(
                "option name {} type spin default {} min {} max {}",
                o.name, o.default, o.min, o.max
            ));
        }
        lines.push(format!("{command}ok"));
        Reply { lines, quit: false }
    }

    /// The engine's `Threads`, then the agent's own options.
    fn options(&self) -> Vec<AgentOption> {
        let threads = AgentOption {
            name: "Threads",
            default: 1,
            min: 1,
            max: crate::limits::MAX_THREADS as u64,
        };
        let agent = self.agent.as_ref().expect("no search is running");
        std::iter::once(threads).chain(agent.options()).collect()
    }

    /// `setoption name NAME value V`: names are case-insensitive, values integers.
    fn set_option(&mut self, args: &[&str]) -> Reply {
        let usage = "setoption: usage 'setoption name NAME value N'";
        let (Some(&"name"), Some(v)) = (args.first(), args.iter().position(|&w| w == "value"))
        else {
            return Reply::error(usage);
        };
        let (name, value) = (args[1..v].join(" "), args[v + 1..].join(" "));
        let options = self.options();
        let Some(option) = options.iter().find(|o| o.name.eq_ignore_ascii_case(&name)) else {
            let names: Vec<&str> = options.iter().map(|o| o.name).collect();
            return Reply::error(format!(
                "setoption: no option '{}' (this agent has: {})",
                clip(&name),
                names.join(", ")
            ));
        };
        let Some(n) = value
            .parse::<u64>()
            .ok()
            .filter(|n| (option.min..=option.max).contains(n))
        else {
            return Reply::error(format!(
                "setoption: {} must be an integer {}..={}, got '{}'",
                option.name,
                option.min,
                option.max,
                clip(&value)
            ));
        };
        if option.name == "Threads" {
            let agent = self.agent.as_mut().expect("no search is running");
            return match thread_pool(n as usize) {
                Ok(pool) => match agent.set_threads(n as usize) {
                    Ok(()) => {
                        self.pool = Some(pool);
                        Reply::default()
                    }
                    Err(e) => Reply::error(format!("setoption: Threads: {e:#}")),
                },
                Err(e) => Reply::error(format!("setoption: Threads: {e}")),
            };
        }
        let agent = self.agent.as_mut().expect("no search is running");
        match agent.set_option(option.name, n) {
            Ok(()) => Reply::default(),
            Err(e) => Reply::error(format!("setoption: {e:#}")),
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

    /// The limits of a `go` line, or the error reply.
    fn parse_go(&self, args: &[&str]) -> Result<Search<G>, Reply> {
        let mut limits = Limits {
            stop: Stop(Some(self.stop.clone())),
            ..Limits::default()
        };
        let mut infinite = false;
        let clock = self.state.clock_name(self.state.to_move());
        let increment = clock.replace("time", "inc");
        let mut it = args.iter();
        while let Some(&key) = it.next() {
            if key == "infinite" {
                infinite = true;
                continue;
            }
            let Some(value) = it.next().and_then(|v| v.parse::<u64>().ok()) else {
                return Err(Reply::error(format!(
                    "go: '{}' needs a non-negative integer",
                    clip(key)
                )));
            };
            let ms = Duration::from_millis(value);
            match key {
                "movetime" => limits.movetime = Some(ms),
                _ if key == clock => limits.time_left = Some(ms),
                _ if key == increment => limits.increment = Some(ms),
                "wtime" | "btime" | "ctime" | "winc" | "binc" | "cinc" | "movestogo" => {}
                "nodes" | "simulations" => limits.nodes = Some(value.max(1)),
                "depth" => limits.depth = Some(value.clamp(1, 64) as u32),
                _ => {
                    return Err(Reply::error(format!(
                        "go: unknown limit '{}' (expected wtime, btime, winc, binc, movestogo, movetime, depth, nodes, infinite)",
                        clip(key)
                    )));
                }
            }
        }
        limits.infinite = infinite;
        Ok(Search {
            state: self.state.clone(),
            limits,
            infinite,
        })
    }

    /// Runs the protocol until `quit` or end of input. Only I/O errors end it early.
    /// A thread reads `input` ahead and searches run on their own thread, so `isready`
    /// and `stop` are answered while a search runs; a search writes its own `info` and
    /// `bestmove` lines, with no hop through this thread.
    pub fn run(
        &mut self,
        input: impl BufRead + Send + 'static,
        output: impl Write + Send + 'static,
    ) -> std::io::Result<()> {
        let output = Arc::new(Mutex::new(output));
        let write = |lines: &[String]| write_lines(&output, lines);
        let (tx, rx) = mpsc::channel::<Event<G>>();
        let reader = tx.clone();
        std::thread::spawn(move || {
            let mut input = input;
            loop {
                let line = read_line(&mut input);
                let end = matches!(line, Ok(None) | Err(Line::Io(_)));
                if reader.send(Event::Input(Instant::now(), line)).is_err() || end {
                    break;
                }
            }
        });
        let mut waiting: VecDeque<(Instant, Result<Option<String>, Line>)> = VecDeque::new();
        let mut searching = false;
        for event in rx {
            match event {
                Event::Done(agent, written) => {
                    self.agent = Some(agent);
                    searching = false;
                    written?;
                }
                Event::Input(at, line) if searching => {
                    match line.as_ref().map(|l| l.as_deref().map(str::trim)) {
                        Ok(Some("stop")) => self.stop.store(true, Ordering::Relaxed),
                        Ok(Some("isready")) if waiting.is_empty() => {
                            write(&["readyok".to_string()])?;
                        }
                        _ => waiting.push_back((at, line)),
                    }
                    continue;
                }
                Event::Input(at, line) => waiting.push_back((at, line)),
            }
            while !searching && let Some((at, line)) = waiting.pop_front() {
                let line = match line {
                    Ok(Some(l)) => l,
                    Ok(None) => return Ok(()),
                    Err(Line::Io(e)) => return Err(e),
                    Err(bad) => {
                        write(&[format!("error {bad}")])?;
                        continue;
                    }
                };
                match self.command(&line) {
                    Answer::Reply(reply) => {
                        write(&reply.lines)?;
                        if reply.quit {
                            return Ok(());
                        }
                    }
                    Answer::Search(mut search) => {
                        // The move's time runs from the `go` line's arrival.
                        search.limits.since = Some(at);
                        searching = true;
                        self.stop.store(false, Ordering::Relaxed);
                        let mut agent = self.agent.take().expect("no search is running");
                        let (done, stop, out) = (tx.clone(), self.stop.clone(), output.clone());
                        let answered = Arc::new(AtomicBool::new(false));
                        search.limits.answer = Some(early_answer(&search.state, &out, &answered));
                        // Straight onto the pool's thread: no hop through a thread of
                        // its own, on the way in or out.
                        let job = move || {
                            let lines = run_search(agent.as_mut(), &search, None, Some(&stop));
                            let written = match answered.load(Ordering::Acquire) {
                                true => Ok(()), // a search thread wrote it at the deadline
                                false => write_lines(&out, &lines),
                            };
                            let _ = done.send(Event::Done(agent, written));
                        };
                        match &self.pool {
                            Some(pool) => pool.spawn(job),
                            None => drop(std::thread::spawn(job)),
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// Writes `lines` to the output the main loop and a search share, and flushes it.
fn write_lines(output: &Mutex<impl Write>, lines: &[String]) -> std::io::Result<()> {
    let mut output = output.lock().expect("output");
    for l in lines {
        writeln!(output, "{l}")?;
    }
    output.flush()
}

/// Where a search thread writes the move when it finds the deadline passed before the
/// search's own thread has answered ([`crate::agents::EarlyAnswer`]); `answered` tells
/// that thread the lines are out.
fn early_answer<G: Game>(
    state: &G,
    out: &Arc<Mutex<impl Write + Send + 'static>>,
    answered: &Arc<AtomicBool>,
) -> EarlyAnswer {
    let (state, out, answered) = (state.clone(), out.clone(), answered.clone());
    EarlyAnswer(Arc::new(move |action, info| {
        if write_lines(&out, &answer_lines(&state, Some(info), action)).is_ok() {
            answered.store(true, Ordering::Release);
        }
    }))
}

/// A search's `info` line (when it searched) and its `bestmove` line.
fn answer_lines<G: Game>(state: &G, info: Option<&SearchInfo>, action: Action) -> Vec<String> {
    let note = info
        .and_then(|i| i.note.as_ref())
        .map(|n| format!("info string {n}"));
    let mut lines: Vec<String> = note.into_iter().collect();
    lines.extend(info.map(|i| info_line(state, i)));
    lines.push(format!("bestmove {}", state.action_to_string(action)));
    lines
}

/// A pool of `threads` threads for searches.
fn thread_pool(threads: usize) -> Result<Arc<rayon::ThreadPool>, rayon::ThreadPoolBuildError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map(Arc::new)
}

/// Runs one search in `pool` (or on this thread without one); returns its `info` and
/// `bestmove` lines (or an `error` line). With `stop` given, an infinite search that
/// ends by itself waits for it before answering, as UCI asks.
fn run_search<G: Game>(
    agent: &mut dyn Agent<G>,
    search: &Search<G>,
    pool: Option<&rayon::ThreadPool>,
    stop: Option<&AtomicBool>,
) -> Vec<String> {
    let mut select = || agent.select(&search.state, &search.limits);
    let chosen = match pool {
        Some(pool) => pool.install(select),
        None => select(),
    };
    if let Some(stop) = stop.filter(|_| search.infinite) {
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    let action = match chosen {
        Ok(a) => a,
        Err(e) => return vec![format!("error go: {e:#}")],
    };
    answer_lines(&search.state, agent.last_search().as_ref(), action)
}

/// The UCI `info` line of a search.
pub fn info_line<G: Game>(state: &G, info: &SearchInfo) -> String {
    let ms = info.time.as_millis();
    let nps = (info.nodes as u128 * 1000) / ms.max(1);
    let pv: Vec<String> = info
        .pv
        .iter()
        .scan(state.clone(), |s, &a| {
            let text = s.action_to_string(a);
            s.apply(a).ok().map(|_| text)
        })
        .collect();
    format!(
        "info depth {} seldepth {} nodes {} nps {nps} time {ms} score {} pv {}",
        info.depth,
        info.pv.len().max(info.depth as usize),
        info.nodes,
        info.score,
        pv.join(" ")
    )
}

/// `contagion engine`: the protocol for `start`'s game on stdin and stdout, `agent`
/// (built with `seed`) answering `go`, until `quit` or the end of input.
pub fn stdio<G: Baselines>(
    start: &G,
    agent: &crate::agents::AgentSpec,
    seed: u64,
) -> anyhow::Result<()> {
    anyhow::ensure!(
        !agent.is_interactive(),
        "the engine's agent cannot be 'human'"
    );
    let (stdin, stdout) = (std::io::BufReader::new(std::io::stdin()), std::io::stdout());
    Engine::new(start.clone(), agent.build(start, seed)?).run(stdin, stdout)?;
    Ok(())
}
