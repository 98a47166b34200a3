//! Hexxagon, trained with Contagion Zero as a library: a game the crate does not ship,
//! implemented here through its public API only (the worked example of
//! `docs/adding-a-game.md`).
//!
//! The rules (Ataxx on a hexagon, after Argo Games' Hexxagon, 1993):
//! - The board is a hexagon of side 5: 61 cells, of which the three around the centre in
//!   alternate directions are blocked. Ruby starts on three alternate corners, Pearl on
//!   the other three; Ruby moves first.
//! - A move either **clones**, putting a new piece on an empty cell beside one of the
//!   mover's, or **jumps**, moving one of the mover's pieces to an empty cell exactly two
//!   steps away. Then every opponent piece beside the cell it landed on becomes the mover's.
//! - When the player to move has no move, the game ends and the empty cells count for the
//!   other player. After 150 half-moves the game ends as it stands (the original has no
//!   limit; this one keeps games of endless jumps finite).
//! - More pieces wins; equal counts draw.
//!
//! Modules: [`board`] (geometry), [`rules`] (the position and its moves),
//! [`notation`] (cells, moves, positions). This file ties them to
//! [`contagion::games::Game`] and [`contagion::agents::Baselines`].

pub mod board;
pub mod notation;
pub mod rules;

use contagion::agents::Baselines;
use contagion::games::{Action, EncodingShape, Game, GameError, Outcome};
use contagion::search::Heuristic;

use board::{GRID, WIDTH, playable};
pub use rules::Hexxagon;
use rules::{EMPTY, MAX_PLIES, Move, PLANES, piece};

/// Input planes: the mover's pieces, the opponent's, empty cells, playable cells, the ply.
const INPUT_PLANES: usize = 5;

impl Game for Hexxagon {
    type Fast = Self;

    fn name(&self) -> &'static str {
        "hexxagon"
    }

    fn num_players(&self) -> usize {
        2
    }

    fn to_move(&self) -> usize {
        self.to_move as usize
    }

    fn player_name(&self, player: usize) -> &'static str {
        ["Ruby", "Pearl"][player]
    }

    fn action_space(&self) -> usize {
        PLANES * GRID
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        self.moves(out);
    }

    fn apply(&mut self, action: Action) -> Result<(), GameError> {
        if self.over() {
            return Err(GameError::GameOver);
        }
        match Move::from_action(action as usize).filter(|&m| self.legal(m)) {
            Some(m) => {
                self.play(m);
                Ok(())
            }
            None => Err(GameError::IllegalMove(format!("action {action}"))),
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        self.over().then(|| {
            let [a, b] = self.final_count();
            match a.cmp(&b) {
                std::cmp::Ordering::Greater => Outcome::win(0, 2),
                std::cmp::Ordering::Less => Outcome::win(1, 2),
                std::cmp::Ordering::Equal => Outcome::draw(),
            }
        })
    }

    fn ply(&self) -> u32 {
        self.ply
    }

    fn max_plies(&self) -> u32 {
        MAX_PLIES
    }

    fn encoding_shape(&self) -> EncodingShape {
        EncodingShape {
            planes: INPUT_PLANES,
            height: WIDTH,
            width: WIDTH,
        }
    }

    fn encode(&self, out: &mut [f32]) {
        out.fill(0.0);
        let me = piece(self.to_move());
        for c in (0..GRID).filter(|&c| playable(c)) {
            let plane = match self.cells[c] {
                EMPTY => 2,
                v if v == me => 0,
                _ => 1,
            };
            out[plane * GRID + c] = 1.0;
            out[3 * GRID + c] = 1.0;
        }
        out[4 * GRID..].fill(self.ply as f32 / MAX_PLIES as f32);
    }

    fn to_notation(&self) -> String {
        notation::to_text(self)
    }

    fn parse_position(&self, text: &str) -> Result<Self, GameError> {
        notation::from_text(text)
    }

    fn action_to_string(&self, action: Action) -> String {
        Move::from_action(action as usize).map_or_else(|| format!("#{action}"), notation::move_text)
    }

    fn parse_action(&self, text: &str) -> Result<Action, GameError> {
        notation::parse_move(text).map(|m| m.action() as Action)
    }
}

/// The baselines' evaluation: the mover's pieces minus the opponent's.
#[derive(Debug, Default, Clone, Copy)]
pub struct Material;

impl Heuristic<Hexxagon> for Material {
    fn evaluate(&self, state: &Hexxagon, player: usize) -> f64 {
        state.pieces(player) as f64 - state.pieces(1 - player) as f64
    }
}

impl Baselines for Hexxagon {
    type Heuristic = Material;
}
