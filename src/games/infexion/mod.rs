//! Infexion (COMP30024 2023, rules v1.1): two players on a 7×7 hex torus, SPAWN and SPREAD.
//!
//! - [`board`]: the compact state and the rules, including how the game ends.
//! - [`geometry`]: cells, directions, SPREAD rays, the 588 symmetries.
//! - [`notation`]: `SPAWN(r,q)` / `SPREAD(r,q,dr,dq)` and the position notation.
//! - [`encode`]: the network input planes.
//!
//! Action space: 343 indices, `0..49` SPAWN on cell `r*7+q`, `49 + cell*6 + dir` SPREAD.

pub mod board;
pub mod encode;
pub mod geometry;
pub mod notation;

pub use board::{BLUE, Board, MAX_TURNS, Move, RED};

use std::sync::LazyLock;

use crate::games::view::{BoardView, CellView};
use crate::games::{Action, EncodingShape, FeatureSink, Game, GameError, Outcome, share_key};
use geometry::{CELLS, NUM_ACTIONS, NUM_SYMMETRIES, map_cell, map_dir};

/// The ordering key ([`share_key`]) of the share of a side with power `mine` against
/// `theirs`, at `mine · SIDES + theirs`: every pair a board holds (each at most its
/// total).
static SHARE_KEYS: LazyLock<Vec<i32>> = LazyLock::new(|| {
    let pairs = (0..SIDES as u32).flat_map(|mine| (0..SIDES as u32).map(move |t| (mine, t)));
    pairs
        .map(|(mine, theirs)| share_key(Outcome::share(mine, theirs).value(0)))
        .collect()
});
/// The powers [`SHARE_KEYS`] holds for each side: 0 to the board's total.
const SIDES: usize = geometry::MAX_TOTAL_POWER as usize + 1;

impl Board {
    /// Parses a position in the notation of [`notation`].
    pub fn from_notation(text: &str) -> Result<Board, GameError> {
        notation::from_notation(text)
    }

    /// The mover's ordering key ([`share_key`]) of the powers `[red, blue]` after a move,
    /// read from a table of every pair of powers a board holds instead of divided for.
    #[inline]
    fn gain_of(&self, [red, blue]: [u32; 2]) -> i32 {
        let (mine, theirs) = if self.to_move() == RED {
            (red, blue)
        } else {
            (blue, red)
        };
        let (m, t) = (mine as usize, theirs as usize);
        let key = (m < SIDES && t < SIDES).then(|| SHARE_KEYS[m * SIDES + t]);
        key.unwrap_or_else(|| share_key(Outcome::share(mine, theirs).value(0)))
    }

    /// Whether the powers `after` a move leave the opponent less than before: the move
    /// takes a stack.
    #[inline]
    fn takes(&self, after: [u32; 2]) -> bool {
        let theirs = 1 - self.to_move();
        after[theirs] < self.power(theirs)
    }
}

/// Infexion behind the [`Game`] trait.
pub type Infexion = Board;

impl Game for Board {
    type Fast = Self;

    fn name(&self) -> &'static str {
        "infexion"
    }

    fn num_players(&self) -> usize {
        2
    }

    fn to_move(&self) -> usize {
        Board::to_move(self)
    }

    fn player_name(&self, player: usize) -> &'static str {
        ["Red", "Blue"][player]
    }

    fn action_space(&self) -> usize {
        NUM_ACTIONS
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        self.for_each_legal(|a| out.push(a));
    }

    fn is_legal(&self, action: Action) -> bool {
        Board::is_legal(self, action)
    }

    fn apply(&mut self, action: Action) -> Result<(), GameError> {
        Board::apply(self, action).map_err(|e| {
            e.in_notation(|a| match Move::from_index(a) {
                Some(m) => notation::move_to_string(m),
                None => format!("#{a}"),
            })
        })
    }

    fn outcome(&self) -> Option<Outcome> {
        Board::outcome(self)
    }

    /// A power lead of 2 or more wins, as at the turn limit.
    fn adjudicate(&self) -> Outcome {
        let diff = self.power(0) as i32 - self.power(1) as i32;
        match diff {
            d if d >= 2 => Outcome::win(0, 2),
            d if d <= -2 => Outcome::win(1, 2),
            _ => Outcome::draw(),
        }
    }

    /// Each player's share of the total power, as a lead: `(p₀ - p₁) / (p₀ + p₁)`.
    fn score_vector(&self) -> Option<Outcome> {
        Some(Outcome::share(self.power(0), self.power(1)))
    }

    fn ply(&self) -> u32 {
        Board::ply(self)
    }

    fn max_plies(&self) -> u32 {
        MAX_TURNS
    }

    fn hash(&self) -> u64 {
        Board::hash(self)
    }

    fn encoding_shape(&self) -> EncodingShape {
        encode::SHAPE
    }

    fn encode(&self, out: &mut [f32]) {
        encode::encode(self, out)
    }

    #[inline]
    fn score_after(&self, action: Action) -> Option<Outcome> {
        let [red, blue] = self.power_after(action);
        Some(Outcome::share(red, blue))
    }

    /// `score_after`'s share as its ordering key, read from a table of every pair of
    /// powers a board holds instead of divided for: the same keys.
    #[inline]
    fn gain_after(&self, action: Action) -> Option<i32> {
        Some(self.gain_of(self.power_after(action)))
    }

    fn legal_gains(&self, mut f: impl FnMut(Action, i32)) -> bool {
        self.for_each_legal(|a| f(a, self.gain_after(a).unwrap_or(0)));
        true
    }

    /// A move that takes nothing: the opponent's power after it is what it was (a SPAWN,
    /// or a SPREAD landing on empty cells and the mover's own stacks).
    fn is_quiet(&self, action: Action) -> bool {
        !self.takes(self.power_after(action))
    }

    /// The moves that take a stack: a SPREAD's swing, read from the powers after it, is
    /// what a leaf before it cannot value as it stands. The powers after each move are
    /// found once, for the test and the gain.
    fn tactical_gains(&self, mut f: impl FnMut(Action, i32)) {
        self.for_each_legal(|a| {
            let after = self.power_after(a);
            if self.takes(after) {
                f(a, self.gain_of(after));
            }
        });
    }

    fn hot_inputs(&self, _scratch: &mut Vec<f32>, out: &mut dyn FeatureSink) {
        encode::hot_inputs(self, out)
    }

    /// Plane 0: SPAWN on the cell; plane `1 + d`: SPREAD from the cell in direction `d`.
    fn policy_planes(&self) -> usize {
        7
    }

    fn policy_index(&self, action: Action) -> usize {
        match Move::from_index(action) {
            Some(Move::Spawn { cell }) => cell,
            Some(Move::Spread { cell, dir }) => (1 + dir) * CELLS + cell,
            None => panic!("policy_index: action {action} out of range"),
        }
    }

    fn wraps(&self) -> bool {
        true
    }

    /// The 12 point symmetries; translations need no augmentation (circular padding).
    fn augmentation_symmetries(&self) -> usize {
        geometry::POINT_SYMMETRIES
    }

    fn owners(&self) -> Option<Vec<u8>> {
        let code = |c: u8| {
            if c == 0 {
                0
            } else {
                1 + board::cell_owner(c) as u8
            }
        };
        Some(self.cells.iter().map(|&c| code(c)).collect())
    }

    fn plane_meanings(&self) -> Vec<String> {
        encode::plane_meanings()
    }

    fn settings(&self) -> serde_json::Value {
        serde_json::json!({
            "board": "7x7 hex torus, axial (r, q), rows r and columns q 0..6 wrap around",
            "max_actions": MAX_TURNS,
            "max_total_power": 49,
            "max_stack_power": 6,
            "win_power_lead": board::WIN_POWER_DIFF,
        })
    }

    fn num_symmetries(&self) -> usize {
        NUM_SYMMETRIES
    }

    fn transform(&self, sym: usize) -> Self {
        let mut cells = [0u8; CELLS];
        for (c, &code) in self.cells.iter().enumerate() {
            cells[map_cell(sym, c)] = code;
        }
        Board::from_cells(cells, self.ply)
    }

    fn transform_action(&self, action: Action, sym: usize) -> Action {
        match Move::from_index(action) {
            Some(Move::Spawn { cell }) => Move::Spawn {
                cell: map_cell(sym, cell),
            }
            .index(),
            Some(Move::Spread { cell, dir }) => Move::Spread {
                cell: map_cell(sym, cell),
                dir: map_dir(sym, dir),
            }
            .index(),
            None => action,
        }
    }

    fn to_notation(&self) -> String {
        notation::to_notation(self)
    }

    fn parse_position(&self, text: &str) -> Result<Self, GameError> {
        notation::from_notation(text)
    }

    fn action_to_string(&self, action: Action) -> String {
        match Move::from_index(action) {
            Some(m) => notation::move_to_string(m),
            None => format!("#{action}"),
        }
    }

    fn parse_action(&self, text: &str) -> Result<Action, GameError> {
        notation::parse_move(text).map(Move::index)
    }

    fn view(&self) -> BoardView {
        let cells = (0..CELLS)
            .map(|c| {
                let (r, q) = geometry::coords(c);
                let at = (q as f32 + 0.5 * r as f32, r as f32 * 0.866);
                let mut v = CellView::new(c, at, format!("({r},{q})"));
                let code = self.cell(c);
                if board::cell_power(code) > 0 {
                    v.owner = Some(board::cell_owner(code));
                    v.text = board::cell_power(code).to_string();
                }
                v
            })
            .collect();
        BoardView {
            shape: "hex",
            cells,
        }
    }

    fn action_cells(&self, action: Action) -> (Option<usize>, Option<usize>) {
        match Move::from_index(action) {
            Some(Move::Spawn { cell }) => (None, Some(cell)),
            Some(Move::Spread { cell, dir }) => {
                let ((r, q), (dr, dq)) = (geometry::coords(cell), geometry::DIRS[dir]);
                (
                    Some(cell),
                    Some(geometry::wrap(r + dr as i32, q + dq as i32)),
                )
            }
            None => (None, None),
        }
    }

    fn why_illegal(&self, action: Action) -> String {
        let owner_of = |cell: usize| match self.cell(cell) {
            0 => None,
            code => Some(board::cell_owner(code)),
        };
        match Move::from_index(action) {
            _ if self.is_over() => "the game is over".into(),
            None => "it is outside the action space".into(),
            Some(Move::Spawn { cell }) if owner_of(cell).is_some() => {
                "SPAWN needs an empty cell".into()
            }
            Some(Move::Spawn { .. }) if !self.spawn_allowed() => {
                "no SPAWN once the board holds 49 power".into()
            }
            Some(Move::Spread { cell, .. }) => match owner_of(cell) {
                None => "SPREAD needs a stack of yours, and that cell is empty".into(),
                Some(p) if p != self.to_move() => format!(
                    "SPREAD needs a stack of yours, and that one is {}'s",
                    self.player_name(p)
                ),
                Some(_) => "it is legal".into(),
            },
            Some(Move::Spawn { .. }) => "it is legal".into(),
        }
    }

    fn render_with(&self, paint: &dyn Fn(usize, &str) -> String) -> String {
        notation::render(self, paint)
    }
}
