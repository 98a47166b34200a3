//! A human at the terminal: the board is shown on stderr, moves are read from stdin.

use std::io::{BufRead, Write};

use super::{Agent, Limits};
use crate::games::{Action, Game};

/// Reads moves typed in the game's notation; `moves` lists the legal ones, `quit` stops.
pub struct HumanAgent {
    input: Box<dyn BufRead + Send>,
}

impl HumanAgent {
    pub fn stdin() -> Self {
        HumanAgent {
            input: Box::new(std::io::BufReader::new(std::io::stdin())),
        }
    }
}

impl<G: Game> Agent<G> for HumanAgent {
    fn name(&self) -> String {
        "human".into()
    }

    fn select(&mut self, state: &G, _: &Limits) -> anyhow::Result<Action> {
        let mut err = std::io::stderr();
        writeln!(err, "\n{}", state.render())?;
        loop {
            write!(
                err,
                "{} to move (a move, 'moves' or 'quit')> ",
                state.player_name(state.to_move())
            )?;
            err.flush()?;
            let mut line = String::new();
            if self.input.read_line(&mut line)? == 0 {
                anyhow::bail!("input closed: game abandoned");
            }
            match line.trim() {
                "" => continue,
                "quit" | "exit" => anyhow::bail!("game abandoned"),
                "moves" => {
                    let mut moves = Vec::new();
                    state.legal_actions(&mut moves);
                    let names: Vec<String> =
                        moves.iter().map(|&a| state.action_to_string(a)).collect();
                    writeln!(err, "{}", names.join(" "))?;
                }
                text => match state.parse_legal_action(text) {
                    Ok(a) => return Ok(a),
                    Err(e) => writeln!(err, "{e}")?,
                },
            }
        }
    }
}
