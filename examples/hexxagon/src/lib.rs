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
//! Modules: [`board`] (geometry and symmetries), [`rules`] (the position and its moves),
//! [`notation`] (cells, moves, positions, the drawing). This file ties them to
//! [`contagion::games::Game`] and [`contagion::agents::Baselines`].

pub mod board;
pub mod notation;
pub mod rules;

use contagion::agents::{Baselines, best_scoring};
use contagion::games::view::{BoardView, CellView};
use contagion::games::{Action, EncodingShape, Game, GameError, Outcome};
use contagion::rng::Rng;
use contagion::search::Heuristic;

use board::{GRID, WIDTH, coords, map, playable};
pub use rules::Hexxagon;
use rules::{EMPTY, MAX_PLIES, Move, PLANES, piece};

/// Input planes: the mover's pieces, the opponent's, empty cells, playable cells, the ply.
const INPUT_PLANES: usize = 5;

impl Hexxagon {
    /// Grid cell `c` under symmetry `sym`.
    fn map_cell(c: usize, sym: usize) -> usize {
        let (q, r) = map(sym, coords(c));
        board::cell(q, r).expect("a symmetry keeps the hexagon")
    }
}

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

    fn is_legal(&self, action: Action) -> bool {
        !self.over() && Move::from_action(action as usize).is_some_and(|m| self.legal(m))
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

    fn adjudicate(&self) -> Outcome {
        let s = self.score_vector().expect("a score");
        match s.result(0) {
            1 => Outcome::win(0, 2),
            -1 => Outcome::win(1, 2),
            _ => Outcome::draw(),
        }
    }

    fn score_vector(&self) -> Option<Outcome> {
        let [a, b] = self.final_count();
        Some(Outcome::share(a, b))
    }

    fn ply(&self) -> u32 {
        self.ply
    }

    fn max_plies(&self) -> u32 {
        MAX_PLIES
    }

    fn hash(&self) -> u64 {
        self.hash
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

    fn plane_meanings(&self) -> Vec<String> {
        vec![
            "the mover's pieces".into(),
            "the opponent's pieces".into(),
            "empty cells".into(),
            "cells a piece may stand on (the hexagon less the blocked cells)".into(),
            "all cells: ply / 150".into(),
        ]
    }

    fn num_symmetries(&self) -> usize {
        6
    }

    fn transform(&self, sym: usize) -> Self {
        let mut cells = [rules::WALL; GRID];
        for c in (0..GRID).filter(|&c| playable(c)) {
            cells[Hexxagon::map_cell(c, sym)] = self.cells[c];
        }
        Hexxagon::from_parts(cells, self.to_move, self.ply)
    }

    fn transform_action(&self, action: Action, sym: usize) -> Action {
        let m = match Move::from_action(action as usize) {
            Some(Move::Clone { to }) => Move::Clone {
                to: Hexxagon::map_cell(to, sym),
            },
            Some(Move::Jump { from, jump }) => {
                let j = map(sym, board::JUMPS[jump]);
                Move::Jump {
                    from: Hexxagon::map_cell(from, sym),
                    jump: (0..12)
                        .find(|&k| board::JUMPS[k] == j)
                        .expect("jumps map to jumps"),
                }
            }
            None => return action,
        };
        m.action() as Action
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

    fn render_with(&self, paint: &dyn Fn(usize, &str) -> String) -> String {
        notation::render(self, paint)
    }

    fn view(&self) -> BoardView {
        let cells = (0..GRID)
            .filter_map(|c| {
                let (q, r) = coords(c);
                board::on_hexagon(q, r).then_some((c, q, r))
            })
            .map(|(c, q, r)| {
                let at = (q as f32 + 0.5 * r as f32, r as f32 * 0.866);
                let mut v = CellView::new(c, at, notation::cell_name(c));
                v.blocked = !playable(c);
                v.owner = (self.cells[c] == piece(0) || self.cells[c] == piece(1))
                    .then(|| self.cells[c] as usize - 1);
                v
            })
            .collect();
        BoardView {
            shape: "hex",
            cells,
        }
    }

    fn action_cells(&self, action: Action) -> (Option<usize>, Option<usize>) {
        match Move::from_action(action as usize) {
            Some(Move::Clone { to }) => (None, Some(to)),
            Some(m @ Move::Jump { from, .. }) => (Some(from), m.to()),
            None => (None, None),
        }
    }

    fn why_illegal(&self, action: Action) -> String {
        match Move::from_action(action as usize) {
            Some(Move::Clone { to }) if self.cells[to] != EMPTY => "the cell is not empty".into(),
            Some(Move::Clone { .. }) => "none of your pieces stands beside that cell".into(),
            Some(Move::Jump { from, .. }) if self.cells[from] != piece(self.to_move()) => {
                "none of your pieces stands on the first cell".into()
            }
            Some(_) => "the cell it lands on is not empty".into(),
            None => "no such move".into(),
        }
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

    fn greedy_action(&self, rng: &mut Rng) -> Action {
        let me = self.to_move();
        best_scoring(self, rng, |a| {
            let mut next = *self;
            next.play(Move::from_action(a as usize).expect("a legal action"));
            next.pieces(me) as f64
        })
    }
}
