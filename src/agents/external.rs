//! `engine:COMMAND`: any program that speaks the engine protocol (UAI/UCI), as an agent.
//!
//! The program is started once per agent (one per game in a match), greeted with `uai`
//! (Ataxx and Virus) or `uci` (the others) and `isready`, then asked each move with
//! `position fen NOTATION` and `go` carrying the move's limits: the mover's clock under
//! its own key (`btime` for Ataxx's `x`, `wtime` for Infexion's Red, …), `movetime`,
//! `nodes`, `depth`. A bare `go` lets the program use its own default budget.
//!
//! A program that cannot be started, exits, answers no `uaiok`/`readyok` within
//! [`HANDSHAKE`], sends no `bestmove` within its time (the move's budget plus
//! [`GRACE`], or [`DEFAULT_MOVE_WAIT`] with no time limit), or names an illegal move
//! fails the move with a reason that says which; the match scores that as a forfeit.
//! The program is killed then, and when the agent is dropped (after `quit`).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use super::{Agent, Limits, Score, SearchInfo, move_budget};
use crate::games::{Action, Game};

/// The longest wait for `uaiok`/`uciok` and `readyok`.
pub const HANDSHAKE: Duration = Duration::from_secs(10);
/// Extra time allowed past a move's budget for the program's I/O.
pub const GRACE: Duration = Duration::from_secs(5);
/// The longest wait for a `bestmove` when the move has no time limit.
pub const DEFAULT_MOVE_WAIT: Duration = Duration::from_secs(120);

/// A running engine program.
pub struct ExternalAgent {
    name: String,
    child: Child,
    stdin: ChildStdin,
    /// Its output lines, each with when it was read.
    lines: Receiver<(Instant, String)>,
    /// Why the program can no longer play, once it cannot.
    dead: Option<String>,
    last: Option<(Vec<String>, SearchInfo)>,
    /// When the last `bestmove` line was read.
    answered: Option<Instant>,
}

impl ExternalAgent {
    /// Starts `command` (program and arguments) and greets it with `protocol` (`uci` or
    /// `uai`: [`Game::protocol`]).
    pub fn start(
        name: String,
        command: &[String],
        protocol: &str,
    ) -> anyhow::Result<ExternalAgent> {
        let (program, args) = command
            .split_first()
            .ok_or_else(|| anyhow::anyhow!("{name}: no command given"))?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| anyhow::anyhow!("{name}: cannot start '{program}': {e}"))?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                if tx
                    .send((Instant::now(), line.trim_end().to_string()))
                    .is_err()
                {
                    break;
                }
            }
        });
        let mut agent = ExternalAgent {
            name,
            child,
            stdin,
            lines,
            dead: None,
            last: None,
            answered: None,
        };
        agent.send(protocol)?;
        agent.expect(&format!("{protocol}ok"), HANDSHAKE)?;
        agent.send("isready")?;
        agent.expect("readyok", HANDSHAKE)?;
        Ok(agent)
    }

    fn send(&mut self, line: &str) -> anyhow::Result<()> {
        if let Some(why) = &self.dead {
            anyhow::bail!("{}: {why}", self.name);
        }
        let sent = writeln!(self.stdin, "{line}").and_then(|_| self.stdin.flush());
        if sent.is_err() {
            let status = self.status();
            return Err(self.fail(format!("exited ({status})")));
        }
        Ok(())
    }

    /// Reads lines until one for which `done` returns a value (with when that line was
    /// read), or until `wait` passes.
    fn read_until<T>(
        &mut self,
        wait: Duration,
        what: &str,
        mut done: impl FnMut(&str) -> Option<T>,
    ) -> anyhow::Result<(T, Instant)> {
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok((at, line)) => {
                    if let Some(t) = done(&line) {
                        return Ok((t, at));
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(
                        self.fail(format!("sent no {what} within {:.1} s", wait.as_secs_f64()))
                    );
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let status = self.status();
                    return Err(self.fail(format!("exited ({status}) before sending {what}")));
                }
            }
        }
    }

    fn expect(&mut self, reply: &str, wait: Duration) -> anyhow::Result<()> {
        self.read_until(wait, &format!("'{reply}'"), |l| {
            (l.trim() == reply).then_some(())
        })
        .map(|_| ())
    }

    /// Marks the program dead (killing it) and returns the error to report.
    fn fail(&mut self, why: String) -> anyhow::Error {
        let _ = self.child.kill();
        self.dead = Some(why.clone());
        anyhow::anyhow!("{}: {why}", self.name)
    }

    fn status(&mut self) -> String {
        // Output closes a moment before the process is reaped.
        std::thread::sleep(Duration::from_millis(20));
        match self.child.try_wait() {
            Ok(Some(s)) => s.to_string(),
            _ => "output closed".into(),
        }
    }
}

impl Drop for ExternalAgent {
    fn drop(&mut self) {
        if self.dead.is_none() {
            let _ = writeln!(self.stdin, "quit").and_then(|_| self.stdin.flush());
            let t0 = Instant::now();
            while t0.elapsed() < Duration::from_millis(500) {
                if let Ok(Some(_)) = self.child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `go` line for a move with these limits, and how long to wait for its answer.
pub fn go_line<G: Game>(state: &G, limits: &Limits) -> (String, Duration) {
    let mut go = String::from("go");
    if let Some(left) = limits.time_left {
        let key = state.clock_name(state.to_move());
        go += &format!(" {key} {}", left.as_millis());
        if let Some(inc) = limits.increment {
            go += &format!(" {} {}", key.replace("time", "inc"), inc.as_millis());
        }
    }
    if let Some(t) = limits.movetime {
        go += &format!(" movetime {}", t.as_millis());
    }
    if let Some(n) = limits.nodes {
        go += &format!(" nodes {n}");
    }
    if let Some(d) = limits.depth {
        go += &format!(" depth {d}");
    }
    let wait = move_budget(state, limits, None)
        .map(|b| limits.time_left.map_or(b, |left| left.max(b)))
        .map_or(DEFAULT_MOVE_WAIT, |b| b.saturating_add(GRACE));
    (go, wait)
}

impl<G: Game> Agent<G> for ExternalAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn select(&mut self, state: &G, limits: &Limits) -> anyhow::Result<Action> {
        let start = Instant::now();
        self.send(&format!("position fen {}", state.to_notation()))?;
        let (go, wait) = go_line(state, limits);
        self.send(&go)?;
        let mut info = Vec::new();
        let (best, answered) = self.read_until(wait, "bestmove", |line| {
            let mut words = line.split_whitespace();
            match words.next() {
                Some("info") => {
                    info = words.map(String::from).collect();
                    None
                }
                Some("bestmove") => Some(words.next().unwrap_or("").to_string()),
                _ => None,
            }
        })?;
        let action = state
            .parse_legal_action(&best)
            .map_err(|e| self.fail(format!("bestmove '{}': {e}", crate::limits::clip(&best))))?;
        let searched = parse_info(&info, state, action, answered.duration_since(start));
        (self.last, self.answered) = (Some((info, searched)), Some(answered));
        Ok(action)
    }

    fn last_search(&self) -> Option<SearchInfo> {
        self.last.as_ref().map(|(_, i)| i.clone())
    }

    fn answered_at(&self) -> Option<Instant> {
        self.answered
    }
}

/// The program's last `info` line as a [`SearchInfo`]; fields it left out are zero, and
/// its `pv` is kept only while it starts with the move played and stays legal.
fn parse_info<G: Game>(words: &[String], state: &G, played: Action, time: Duration) -> SearchInfo {
    let value = |key: &str| {
        words
            .iter()
            .position(|w| w == key)
            .and_then(|i| words.get(i + 1))
            .and_then(|v| v.parse::<i64>().ok())
    };
    let score = match (value("cp"), value("mate")) {
        (_, Some(m)) => Score::Mate(m),
        (cp, None) => Score::Cp(cp.unwrap_or(0)),
    };
    let mut pv = vec![played];
    if let Some(i) = words.iter().position(|w| w == "pv") {
        let mut s = state.clone();
        for (k, text) in words[i + 1..].iter().enumerate() {
            let Ok(a) = s.parse_legal_action(text) else {
                break;
            };
            if k == 0 && a != played {
                break;
            }
            if k > 0 {
                pv.push(a);
            }
            s.apply(a).expect("legal");
        }
    }
    SearchInfo {
        depth: value("depth").unwrap_or(0).max(0) as u32,
        nodes: value("nodes").unwrap_or(0).max(0) as u64,
        time,
        score,
        pv,
        note: None,
    }
}
