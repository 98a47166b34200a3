//! `contagion play`'s game in the terminal: a human against any agent, two humans, or
//! two agents watched.
//!
//! The board is drawn before each human move, pieces coloured by owner (plain text with
//! `--no-color`, when the output is not a terminal, or when `NO_COLOR` is set). A human
//! types moves in the game's notation (Infexion: the course's `SPAWN(r,q)` and
//! `SPREAD(r,q,dr,dq)`); a malformed or illegal move is explained and asked again.
//! Commands: `moves`, `undo` (back to the human's previous turn), `help`, `quit`. After
//! each agent move its thinking is shown: for a network search, the most visited moves
//! with their share of the visits and their value. On a terminal, input has line
//! editing and history (rustyline, feature `line-editing`); otherwise it is read line by line and output
//! written as plain lines, so the game can be driven over pipes.

use std::io::{BufRead, IsTerminal, Write};
use std::time::{Duration, Instant};

use anyhow::Context;

use super::random_opening;
use crate::agents::{Agent, AgentSpec, Baselines, Limits};

/// A game as `contagion play` plays it.
#[derive(Debug, Clone)]
pub struct PlayOptions {
    /// The first player (`human` to type its moves).
    pub a: AgentSpec,
    /// Every other player.
    pub b: AgentSpec,
    /// The seed of the opening and the agents.
    pub seed: u64,
    /// Random plies before the game starts.
    pub opening_plies: u32,
    /// Each agent's clock for the game; `None`: none.
    pub clock: Option<Duration>,
}

/// One game of `start`'s as `o` says on the program's terminal (or pipes), in colour
/// unless `no_color`, the output is not a terminal, or `NO_COLOR` is set.
pub fn on_stdio<G: Baselines>(start: &G, o: &PlayOptions, no_color: bool) -> anyhow::Result<()> {
    let colour =
        !no_color && std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let (stdin, stdout) = (std::io::stdin(), std::io::stdout());
    // Typed lines that came through a pipe are echoed, so the transcript reads whole.
    let echo = !stdin.is_terminal();
    let (mut input, mut out) = (stdin.lock(), stdout.lock());
    // Line editing only when both input and output are a terminal.
    let editor = (!echo && std::io::stdout().is_terminal())
        .then(editor::Editor::new)
        .flatten();
    let mut io = Terminal {
        input: &mut input,
        out: &mut out,
        echo,
        editor,
    };
    play(start, o, colour, &mut io)
}

/// Red, blue, green, bold, for players 0, 1, 2.
fn painter(colour: bool) -> impl Fn(usize, &str) -> String {
    move |player, text| {
        if colour {
            let code = [31, 34, 32].get(player).copied().unwrap_or(1);
            format!("\x1b[1;{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}

/// A seat: a human (no agent) or an agent and what is left of its clock.
struct Seat<G> {
    agent: Option<Box<dyn Agent<G>>>,
    clock: Option<Duration>,
}

/// Where the game is read from and written to.
pub struct Terminal<'a> {
    /// Where typed lines come from.
    pub input: &'a mut dyn BufRead,
    /// Where the game is written.
    pub out: &'a mut dyn Write,
    /// Write each line read back out (when the input is not a terminal).
    pub echo: bool,
    /// Line editing and history (arrow keys, Ctrl-R) when the input is a terminal.
    pub editor: Option<editor::Editor>,
}

impl Terminal<'_> {
    /// The next typed line after `prompt`; `None` at the end of input (or Ctrl-C/D).
    fn read(&mut self, prompt: &str) -> anyhow::Result<Option<String>> {
        if let Some(editor) = &mut self.editor {
            self.out.flush()?;
            return editor.read(prompt);
        }
        write!(self.out, "{prompt}")?;
        self.out.flush()?;
        let mut line = String::new();
        if self.input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        if self.echo {
            writeln!(self.out, "{}", line.trim_end())?;
        }
        Ok(Some(line))
    }
}

/// Line editing and history on a terminal (rustyline, feature `line-editing`).
#[cfg(feature = "line-editing")]
mod editor {
    use rustyline::error::ReadlineError;

    pub struct Editor(rustyline::DefaultEditor);

    impl Editor {
        pub fn new() -> Option<Self> {
            rustyline::DefaultEditor::new().ok().map(Editor)
        }

        /// The next line after `prompt`; `None` at the end of input (or Ctrl-C/D).
        pub fn read(&mut self, prompt: &str) -> anyhow::Result<Option<String>> {
            match self.0.readline(prompt) {
                Ok(line) => {
                    if !line.trim().is_empty() {
                        let _ = self.0.add_history_entry(line.trim());
                    }
                    Ok(Some(line))
                }
                Err(ReadlineError::Eof | ReadlineError::Interrupted) => Ok(None),
                Err(e) => Err(e.into()),
            }
        }
    }
}

/// Without the `line-editing` feature there is no editor: input is read line by line.
#[cfg(not(feature = "line-editing"))]
mod editor {
    pub enum Editor {}

    impl Editor {
        pub fn new() -> Option<Self> {
            None
        }

        pub fn read(&mut self, _prompt: &str) -> anyhow::Result<Option<String>> {
            match *self {}
        }
    }
}

/// What a human typed.
enum Typed {
    Move(crate::games::Action),
    Undo,
    Quit,
}

/// One game of `start`'s as `o` says, on `io`; pieces coloured with `colour`.
pub fn play<G: Baselines>(
    start: &G,
    o: &PlayOptions,
    colour: bool,
    io: &mut Terminal,
) -> anyhow::Result<()> {
    let clock = o.clock;
    let mut seats: Vec<Seat<G>> = (0..start.num_players())
        .map(|seat| {
            let spec = if seat == 0 { &o.a } else { &o.b };
            let agent = if spec.is_interactive() {
                None
            } else {
                Some(spec.build(start, o.seed.wrapping_add(seat as u64))?)
            };
            Ok(Seat { agent, clock })
        })
        .collect::<anyhow::Result<_>>()?;
    let paint = painter(colour);
    let mut state = start.clone();
    for a in random_opening(start, o.opening_plies, o.seed)? {
        state.apply(a)?;
    }
    let humans = seats.iter().filter(|s| s.agent.is_none()).count();
    if humans > 0 {
        writeln!(io.out, "{}", help(&state))?;
    }
    // Every position of the game so far; `undo` truncates it.
    let mut history = vec![state];
    loop {
        let state = history.last().expect("history").clone();
        if let Some(outcome) = state.outcome() {
            writeln!(io.out, "\n{}", state.render_with(&paint))?;
            match outcome.winner() {
                Some(p) => writeln!(io.out, "{} wins", paint(p, state.player_name(p)))?,
                None => writeln!(io.out, "draw")?,
            }
            return Ok(());
        }
        let mover = state.to_move();
        let name = paint(mover, state.player_name(mover));
        let seat = &mut seats[mover];
        let Some(agent) = seat.agent.as_mut() else {
            writeln!(io.out, "\n{}", state.render_with(&paint))?;
            match ask(&state, &name, io)? {
                Typed::Move(a) => {
                    let mut next = state.clone();
                    next.apply(a)?;
                    history.push(next);
                }
                Typed::Undo => match previous_human_turn(&history, &seats) {
                    Some(k) => {
                        history.truncate(k + 1);
                        writeln!(io.out, "taken back to ply {}", history[k].ply())?;
                    }
                    None => writeln!(io.out, "nothing to undo")?,
                },
                Typed::Quit => {
                    writeln!(io.out, "game abandoned at ply {}", state.ply())?;
                    return Ok(());
                }
            }
            continue;
        };
        let limits = Limits {
            time_left: seat.clock,
            ..Limits::default()
        };
        let t0 = Instant::now();
        let action = agent
            .select(&state, &limits)
            .with_context(|| format!("{} ({})", state.player_name(mover), agent.name()))?;
        if let Some(left) = seat.clock.as_mut() {
            *left = left.saturating_sub(t0.elapsed());
            if left.is_zero() {
                writeln!(io.out, "{name} ({}) ran out of time", agent.name())?;
                return Ok(());
            }
        }
        writeln!(
            io.out,
            "{:>3}. {name} ({}) plays {}",
            state.ply() + 1,
            agent.name(),
            state.action_to_string(action)
        )?;
        for line in agent.thinking(&state) {
            writeln!(io.out, "       {line}")?;
        }
        let mut next = state;
        next.apply(action)?;
        history.push(next);
    }
}

/// The index in `history` of the latest earlier position where a human was to move.
fn previous_human_turn<G: Baselines>(history: &[G], seats: &[Seat<G>]) -> Option<usize> {
    let current = history.len().checked_sub(1)?;
    (0..current)
        .rev()
        .find(|&k| seats[history[k].to_move()].agent.is_none())
}

fn help<G: Baselines>(state: &G) -> String {
    let mut legal = Vec::new();
    state.legal_actions(&mut legal);
    let examples: Vec<String> = [legal.first(), legal.last()]
        .into_iter()
        .flatten()
        .map(|&a| state.action_to_string(a))
        .collect();
    format!(
        "Type a move (e.g. {}), or: moves (list the legal moves), undo (take back your \
         last move), help, quit.",
        examples.join(" or ")
    )
}

/// Reads lines until the human gives a legal move or a command.
fn ask<G: Baselines>(state: &G, name: &str, io: &mut Terminal) -> anyhow::Result<Typed> {
    loop {
        let Some(line) = io.read(&format!("{name}> "))? else {
            writeln!(io.out)?;
            return Ok(Typed::Quit);
        };
        let out = &mut *io.out;
        match line.trim() {
            "" => {}
            "quit" | "exit" => return Ok(Typed::Quit),
            "undo" => return Ok(Typed::Undo),
            "help" => writeln!(out, "{}", help(state))?,
            "moves" => {
                let mut legal = Vec::new();
                state.legal_actions(&mut legal);
                let names: Vec<String> = legal.iter().map(|&a| state.action_to_string(a)).collect();
                writeln!(out, "{} legal moves: {}", names.len(), names.join(" "))?;
            }
            text => match state.parse_legal_action(text) {
                Ok(a) => return Ok(Typed::Move(a)),
                Err(e) => writeln!(out, "{e}; try again (or 'help')")?,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Game;
    use crate::games::infexion::Board;

    #[test]
    fn pieces_are_coloured_by_owner_only_when_asked() {
        let b = Board::from_notation("7/7/7/3r13/7/5b11/7 r 2").unwrap();
        let coloured = b.render_with(&painter(true));
        assert!(coloured.contains("\x1b[1;31mR1\x1b[0m"), "{coloured}");
        assert!(coloured.contains("\x1b[1;34mB1\x1b[0m"), "{coloured}");
        let plain = b.render_with(&painter(false));
        assert!(!plain.contains('\x1b'));
        assert_eq!(plain, b.render());
    }
}
