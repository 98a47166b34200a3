//! One game in the browser: a person in one seat, an agent in the others.
//!
//! [`Session`] hides the game's type behind an object, so the server keeps games of all
//! four kinds in one table. A move arrives as the cells a person clicked (or as text);
//! it is played only if some legal move joins those cells, else refused with the rule's
//! reason. The agent's replies are searched by [`Session::reply`], which the server runs
//! off its request threads, within the game's time per move.

use std::time::Duration;

use serde::Serialize;
use serde_json::json;

use crate::agents::{Agent, Baselines, Limits};
use crate::arena::GameRecord;
use crate::arena::record::write_game;
use crate::games::{Action, Game};

/// A game between a person and an agent, of any game.
pub trait Session: Send {
    /// Everything the page draws: board, legal moves, history, the agent's thinking.
    fn state(&self) -> serde_json::Value;
    /// Plays the person's move: the legal move from cell `from` (or from none) to cell
    /// `to` (or to none), or the move written `text`; the reason when there is none.
    fn play(&mut self, click: &Click) -> Result<(), String>;
    /// Whether it is the agent's turn in an unfinished game.
    fn agent_to_move(&self) -> bool;
    /// The agent's move, searched within the time per move; an error if it fails.
    fn reply(&mut self) -> anyhow::Result<()>;
    /// Takes back moves to the person's previous turn; false when there is none.
    fn undo(&mut self) -> bool;
    /// The finished game as a PGN record; `None` while it goes on.
    fn pgn(&self) -> Option<String>;
}

/// What a person did: clicked one or two cells, or typed a move.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Click {
    /// The cell a moving piece starts on, if the move has one.
    #[serde(default)]
    pub from: Option<usize>,
    /// The cell the move ends on, if it has one.
    #[serde(default)]
    pub to: Option<usize>,
    /// The move in the game's notation, instead of cells.
    #[serde(default)]
    pub notation: Option<String>,
}

/// A legal move as the page offers it.
#[derive(Serialize)]
struct LegalMove {
    notation: String,
    from: Option<usize>,
    to: Option<usize>,
}

/// A [`Session`] of game `G`.
pub struct GameSession<G: Baselines> {
    start: G,
    state: G,
    moves: Vec<Action>,
    human: usize,
    agent: Box<dyn Agent<G>>,
    agent_name: String,
    movetime: Duration,
    thinking: Vec<String>,
    pv: Vec<String>,
}

impl<G: Baselines> GameSession<G> {
    /// A new game from `start`, the person in seat `human`, `agent` in the others with
    /// `movetime` for each move.
    pub fn new(start: G, human: usize, agent: Box<dyn Agent<G>>, movetime: Duration) -> Self {
        GameSession {
            state: start.clone(),
            start,
            moves: Vec::new(),
            human,
            agent_name: agent.name(),
            agent,
            movetime,
            thinking: Vec::new(),
            pv: Vec::new(),
        }
    }

    fn replay(&mut self) {
        self.state = self.start.clone();
        for &a in &self.moves {
            self.state.apply(a).expect("recorded moves are legal");
        }
    }
}

impl<G: Baselines> Session for GameSession<G> {
    fn state(&self) -> serde_json::Value {
        let s = &self.state;
        let mut legal = Vec::new();
        if s.outcome().is_none() && s.to_move() == self.human {
            s.legal_actions(&mut legal);
        }
        let legal: Vec<LegalMove> = legal
            .iter()
            .map(|&a| {
                let (from, to) = s.action_cells(a);
                LegalMove {
                    notation: s.action_to_string(a),
                    from,
                    to,
                }
            })
            .collect();
        let mut replay = self.start.clone();
        let history: Vec<String> = (self.moves.iter())
            .map(|&a| {
                let text = replay.action_to_string(a);
                replay.apply(a).expect("recorded moves are legal");
                text
            })
            .collect();
        let players: Vec<&str> = (0..s.num_players()).map(|p| s.player_name(p)).collect();
        let result = s.outcome().map(|o| match o.winner() {
            Some(w) if w == self.human => "you won".to_string(),
            Some(w) => format!("{} won", s.player_name(w)),
            None => "a draw".to_string(),
        });
        json!({
            "game": s.name(),
            "players": players,
            "human": self.human,
            "agent": self.agent_name,
            "to_move": s.to_move(),
            "over": s.outcome().is_some(),
            "result": result,
            "board": s.view(),
            "notation": s.to_notation(),
            "legal": legal,
            "history": history,
            "thinking": self.thinking,
            "pv": self.pv,
            "movetime_ms": self.movetime.as_millis() as u64,
        })
    }

    fn play(&mut self, click: &Click) -> Result<(), String> {
        let s = &self.state;
        if s.outcome().is_some() {
            return Err("the game is over".into());
        }
        if s.to_move() != self.human {
            return Err("it is not your turn".into());
        }
        let action = match &click.notation {
            Some(text) => s.parse_legal_action(text).map_err(|e| e.to_string())?,
            None => pick(s, click.from, click.to)?,
        };
        self.state.apply(action).map_err(|e| e.to_string())?;
        self.moves.push(action);
        Ok(())
    }

    fn agent_to_move(&self) -> bool {
        self.state.outcome().is_none() && self.state.to_move() != self.human
    }

    fn reply(&mut self) -> anyhow::Result<()> {
        let limits = Limits {
            movetime: Some(self.movetime),
            ..Limits::default()
        };
        let action = self.agent.select(&self.state, &limits)?;
        anyhow::ensure!(
            self.state.is_legal(action),
            "{} chose an illegal move",
            self.agent_name
        );
        self.thinking = self.agent.thinking(&self.state);
        self.pv = self.agent.last_search().map_or(Vec::new(), |info| {
            let mut line = self.state.clone();
            (info.pv.iter())
                .map_while(|&a| {
                    let text = line.action_to_string(a);
                    line.apply(a).ok().map(|_| text)
                })
                .collect()
        });
        self.state.apply(action)?;
        self.moves.push(action);
        Ok(())
    }

    fn undo(&mut self) -> bool {
        // Back past the agent's replies to the person's previous move, then before it.
        let mut state = self.start.clone();
        let mut last_own = None;
        for (i, &a) in self.moves.iter().enumerate() {
            if state.to_move() == self.human {
                last_own = Some(i);
            }
            state.apply(a).expect("recorded moves are legal");
        }
        let Some(cut) = last_own else {
            return false;
        };
        self.moves.truncate(cut);
        self.replay();
        self.thinking.clear();
        self.pv.clear();
        true
    }

    fn pgn(&self) -> Option<String> {
        let outcome = self.state.outcome()?;
        let names: Vec<String> = (0..self.start.num_players())
            .map(|p| {
                if p == self.human {
                    "human".to_string()
                } else {
                    self.agent_name.clone()
                }
            })
            .collect();
        let record = GameRecord {
            outcome,
            moves: self.moves.clone(),
            forfeit: None,
            time_used: Vec::new(),
            slowest_move: Vec::new(),
            moves_by_seat: Vec::new(),
        };
        let tags = [
            ("Event", "contagion serve".to_string()),
            ("Site", "?".to_string()),
        ];
        Some(write_game(&self.start, &tags, &names, &record))
    }
}

/// The legal move of `state` from `from` to `to`, or why clicking there plays none.
fn pick<G: Game>(state: &G, from: Option<usize>, to: Option<usize>) -> Result<Action, String> {
    let mut legal = Vec::new();
    state.legal_actions(&mut legal);
    if let Some(&a) = legal.iter().find(|&&a| state.action_cells(a) == (from, to)) {
        return Ok(a);
    }
    // Not legal: the rule that forbids the move those cells name, if any names one.
    let named = (0..state.action_space() as Action).find(|&a| state.action_cells(a) == (from, to));
    Err(match named {
        Some(a) => format!(
            "{} is not legal: {}",
            state.action_to_string(a),
            state.why_illegal(a)
        ),
        None if from.is_some() && to.is_some() => {
            "no move goes from the first cell to the second".into()
        }
        None => "no move of yours starts or ends there".into(),
    })
}
