//! Chexers (COMP30024 2019): three players race their pieces across a 37-hex board.
//!
//! - [`board`]: the state and the rules as the 2019 referee enforces them.
//! - [`notation`]: `MOVE(q,r,q2,r2)`, `JUMP(…)`, `EXIT(q,r)`, `PASS`, positions, drawing.
//!
//! Action space: 638 = 49 grid cells × 13 (6 moves, 6 jumps, 1 exit) + PASS. The network
//! sees a 7×7 grid with the 12 off-board cells masked. Symmetries: the three rotations
//! by 120°, which map each player's seat to the next one's (with colours relabelled and
//! the turn passed on); reflections would reverse the turn order and are not symmetries.

pub mod board;
pub mod notation;

pub use board::{Chexers, Move};

use crate::games::view::{BoardView, CellView};
use crate::games::{Action, EncodingShape, Game, GameError, Outcome};
use board::{CELLS, DIRS, MAX_TURNS, NUM_ACTIONS, PASS, coords, exit_distance, is_exit};

const PLANES: usize = 12;

/// A race lead of this many moves scores `tanh(1)` of [`RACE_LEAD_CAP`] in
/// [`Game::score_vector`]: half the 28 moves every seat needs at the start.
const RACE_LEAD_SCALE: f32 = 14.0;

/// No lead scores as much as a win: a seat far ahead still gains by finishing the race.
const RACE_LEAD_CAP: f32 = 0.8;

/// Rotation by 120° `k` times: `(q, r) → (s, q)` with `s = −q − r` (Red's seat → Green's).
fn rotate(k: usize, q: i32, r: i32) -> (i32, i32) {
    (0..k % 3).fold((q, r), |(q, r), _| (-q - r, q))
}

fn rotate_cell(k: usize, cell: usize) -> usize {
    let (q, r) = coords(cell);
    let (q, r) = rotate(k, q, r);
    board::cell_of(q, r).expect("rotations keep the board")
}

fn rotate_dir(k: usize, dir: usize) -> usize {
    let (dq, dr) = DIRS[dir];
    let d = rotate(k, dq as i32, dr as i32);
    DIRS.iter()
        .position(|&(a, b)| (a as i32, b as i32) == d)
        .expect("rotations map directions to directions")
}

impl Game for Chexers {
    type Fast = Self;

    fn name(&self) -> &'static str {
        "chexers"
    }

    fn num_players(&self) -> usize {
        3
    }

    fn to_move(&self) -> usize {
        Chexers::to_move(self)
    }

    fn player_name(&self, player: usize) -> &'static str {
        ["Red", "Green", "Blue"][player]
    }

    fn action_space(&self) -> usize {
        NUM_ACTIONS
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        self.for_each_legal(|a| out.push(a));
    }

    fn is_legal(&self, action: Action) -> bool {
        Chexers::is_legal(self, action)
    }

    fn apply(&mut self, action: Action) -> Result<(), GameError> {
        Chexers::apply(self, action).map_err(|e| e.in_notation(notation::move_to_string))
    }

    /// A pass, which the rules allow only to a player with no other move.
    fn skip_turn(&mut self) -> bool {
        self.apply_unchecked(PASS as Action);
        true
    }

    fn outcome(&self) -> Option<Outcome> {
        Chexers::outcome(self)
    }

    fn repeats(&self) -> bool {
        self.repetitions() > 1
    }

    /// The seat fewest moves from winning ([`Chexers::moves_to_win`]) wins; a tie is a
    /// draw.
    fn adjudicate(&self) -> Outcome {
        let need: Vec<i32> = (0..3).map(|p| self.moves_to_win(p)).collect();
        let best = *need.iter().min().expect("three seats");
        match need.iter().filter(|&&n| n == best).count() {
            1 => Outcome::win(need.iter().position(|&n| n == best).expect("a min"), 3),
            _ => Outcome::draw(),
        }
    }

    /// Each seat's lead in the race: the other two's mean [`Chexers::moves_to_win`] minus
    /// its own, in units of `RACE_LEAD_SCALE` moves, squashed by `tanh` into
    /// `(-RACE_LEAD_CAP, RACE_LEAD_CAP)`, so that every move of lead still counts and no
    /// lead is worth a win. A game over by its rules scores its result: a win 1, a draw
    /// (a fourth repetition, the turn limit) 0 for all, so that a seat ahead learns to
    /// finish the race rather than to hold or repeat.
    fn score_vector(&self) -> Option<Outcome> {
        if let Some(result) = self.outcome() {
            return Some(result);
        }
        let need: Vec<f32> = (0..3).map(|p| self.moves_to_win(p) as f32).collect();
        let total: f32 = need.iter().sum();
        let mut v = [0.0; crate::games::MAX_PLAYERS];
        for (p, x) in v.iter_mut().enumerate().take(3) {
            let others = (total - need[p]) / 2.0;
            *x = RACE_LEAD_CAP * ((others - need[p]) / RACE_LEAD_SCALE).tanh();
        }
        Some(Outcome(v))
    }

    fn ply(&self) -> u32 {
        self.turns() as u32
    }

    fn max_plies(&self) -> u32 {
        MAX_TURNS as u32
    }

    fn hash(&self) -> u64 {
        Chexers::hash(self)
    }

    fn encoding_shape(&self) -> EncodingShape {
        EncodingShape {
            planes: PLANES,
            height: board::GRID,
            width: board::GRID,
        }
    }

    fn encode(&self, out: &mut [f32]) {
        assert_eq!(out.len(), PLANES * CELLS, "encode: output length");
        out.fill(0.0);
        let me = self.to_move();
        for rel in 0..3 {
            let p = (me + rel) % 3;
            for c in self.pieces(p) {
                out[rel * CELLS + c] = 1.0;
            }
            for c in (0..CELLS).filter(|&c| is_exit(p, c)) {
                out[(3 + rel) * CELLS + c] = 1.0;
            }
            let plane = 6 + rel;
            out[plane * CELLS..(plane + 1) * CELLS].fill(self.exits(p) as f32 / 4.0);
        }
        for c in 0..CELLS {
            let (q, r) = coords(c);
            if board::on_board(q, r) {
                out[9 * CELLS + c] = 1.0;
            }
        }
        out[10 * CELLS..11 * CELLS].fill(self.turns() as f32 / MAX_TURNS as f32);
        out[11 * CELLS..12 * CELLS].fill((self.repetitions() - 1) as f32 / 3.0);
    }

    fn owners(&self) -> Option<Vec<u8>> {
        let mut out = vec![0; CELLS];
        for p in 0..3 {
            self.pieces(p).for_each(|c| out[c] = 1 + p as u8);
        }
        Some(out)
    }

    fn plane_meanings(&self) -> Vec<String> {
        let who = ["the mover", "the next player", "the player after that"];
        let mut v: Vec<String> = who.iter().map(|w| format!("pieces of {w}")).collect();
        v.extend(who.iter().map(|w| format!("exit hexes of {w}")));
        v.extend(who.iter().map(|w| format!("all cells: exits of {w} / 4")));
        v.push("the 37 hexes of the board (the 12 other grid cells are zeros)".into());
        v.push("all cells: turns played / 768".into());
        v.push("all cells: (occurrences of this snapshot - 1) / 3".into());
        v
    }

    fn settings(&self) -> serde_json::Value {
        serde_json::json!({
            "board": "37 hexes, axial (q, r) with |q|, |r|, |q+r| <= 3, on a 7x7 grid at row r+3, column q+3",
            "exits_to_win": board::EXITS_TO_WIN,
            "max_turns": MAX_TURNS,
            "repetitions_for_a_draw": 4,
        })
    }

    fn policy_planes(&self) -> usize {
        14
    }

    fn policy_index(&self, action: Action) -> usize {
        let a = action as usize;
        if a >= PASS {
            13 * CELLS
        } else {
            (a % board::PER_CELL) * CELLS + a / board::PER_CELL
        }
    }

    fn num_symmetries(&self) -> usize {
        3
    }

    fn transform(&self, sym: usize) -> Self {
        let mut cells = [0u8; CELLS];
        for (c, &code) in self.cells.iter().enumerate() {
            if code != 0 {
                cells[rotate_cell(sym, c)] = (code - 1 + sym as u8) % 3 + 1;
            }
        }
        let mut exits = [0; 3];
        for p in 0..3 {
            exits[(p + sym) % 3] = self.exits(p);
        }
        let mut s = Chexers::from_parts(cells, (self.to_move() + sym) % 3, exits, self.turns());
        s.reps = self.reps;
        s.history = vec![s.snapshot; self.reps as usize];
        s
    }

    fn transform_action(&self, action: Action, sym: usize) -> Action {
        match Move::from_index(action) {
            Some(Move::Step { cell, dir }) => Move::Step {
                cell: rotate_cell(sym, cell),
                dir: rotate_dir(sym, dir),
            },
            Some(Move::Jump { cell, dir }) => Move::Jump {
                cell: rotate_cell(sym, cell),
                dir: rotate_dir(sym, dir),
            },
            Some(Move::Exit { cell }) => Move::Exit {
                cell: rotate_cell(sym, cell),
            },
            _ => return action,
        }
        .index()
    }

    fn to_notation(&self) -> String {
        notation::to_notation(self)
    }

    fn parse_position(&self, text: &str) -> Result<Self, GameError> {
        notation::from_notation(text)
    }

    fn action_to_string(&self, action: Action) -> String {
        notation::move_to_string(action)
    }

    fn parse_action(&self, text: &str) -> Result<Action, GameError> {
        notation::parse_move(text)
    }

    fn view(&self) -> BoardView {
        let cells = (0..CELLS)
            .filter_map(|c| {
                let (q, r) = coords(c);
                board::on_board(q, r).then(|| {
                    let at = (q as f32 + 0.5 * r as f32, r as f32 * 0.866);
                    let mut v = CellView::new(c, at, format!("({q},{r})"));
                    v.owner = (self.cell(c) > 0).then(|| self.cell(c) as usize - 1);
                    v
                })
            })
            .collect();
        BoardView {
            shape: "hex",
            cells,
        }
    }

    fn action_cells(&self, action: Action) -> (Option<usize>, Option<usize>) {
        match board::Move::from_index(action) {
            Some(board::Move::Step { cell, dir }) => (Some(cell), board::step(cell, dir, 1)),
            Some(board::Move::Jump { cell, dir }) => (Some(cell), board::step(cell, dir, 2)),
            Some(board::Move::Exit { cell }) => (Some(cell), None),
            Some(board::Move::Pass) | None => (None, None),
        }
    }

    fn why_illegal(&self, action: Action) -> String {
        let mine = self.to_move() as u8 + 1;
        let own = |cell: usize| self.cell(cell) == mine;
        match Move::from_index(action) {
            _ if self.outcome().is_some() => "the game is over".into(),
            None => "it is outside the action space".into(),
            Some(Move::Step { cell, .. } | Move::Jump { cell, .. } | Move::Exit { cell })
                if !own(cell) =>
            {
                "there is no piece of yours on that hex".into()
            }
            Some(Move::Step { .. }) => "the hex is not empty".into(),
            Some(Move::Jump { .. }) => {
                "a JUMP needs a piece to jump over and an empty hex beyond".into()
            }
            Some(Move::Exit { cell }) => format!(
                "that hex is {} steps from your exit edge",
                exit_distance(self.to_move(), cell)
            ),
            Some(Move::Pass) => "you may pass only when you have no other action".into(),
        }
    }

    fn render_with(&self, paint: &dyn Fn(usize, &str) -> String) -> String {
        notation::render(self, paint)
    }
}
