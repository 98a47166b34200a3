//! The Ataxx family: standard 7×7 Ataxx and Generation5's Virus game, one configurable
//! implementation.
//!
//! - [`board`]: the state, the [`Rules`] and the rules themselves.
//! - [`bits`]: the same rules on bitboards (side 8 or less), for the endgame solver.
//! - [`notation`]: FEN, moves (`f1`, `a7c5`, `0000`), the board drawing.
//! - `squares`: sets of squares as words and each square's neighbours and jumps as
//!   sets, for boards of any side (Virus's 15×15 among them).
//!
//! Presets: [`Ataxx::standard`] (libataxx's rules from `x5o/7/7/7/7/7/o5x x 0 1`: pass when
//! only the opponent can move, the 50-move rule at 100 half-moves) and [`Ataxx::virus`]
//! (15×15, `x` on the top-left and bottom-right corners, `o` on the others, no pass: the
//! game stops when the mover cannot move or the board is full; and, unlike Generation5's rules,
//! after 100 half-moves without a clone, so that every game ends). [`Ataxx::custom`] takes
//! any start FEN (size 4–15, blocked squares `-`, either side first) with either rules.
//!
//! Action space for side `n`: `17·n² + 1`: clones by destination `0..n²`, jumps
//! `n² + from·16 + k` (`k` indexes [`board::JUMPS`]), pass last. Symmetries: those of the
//! 8 of the square that map the start layout onto itself (4 for both presets).

pub mod bits;
pub mod board;
pub mod notation;
mod squares;

pub(crate) use board::PLANES;
pub use board::{Ataxx, Move, Rules};

use crate::games::view::{BoardView, CellView};
use crate::games::{Action, EncodingShape, FEATURE_ON, FeatureSink, Game, GameError, Outcome};
use board::{BLOCKED, EMPTY, JUMPS, MAX_CELLS, piece};

/// Standard Ataxx's start position (FEN).
pub const ATAXX_START: &str = "x5o/7/7/7/7/7/o5x x 0 1";
/// Generation5's 15×15 Virus start position (FEN).
pub const VIRUS_START: &str = "x13o/15/15/15/15/15/15/15/15/15/15/15/15/15/o13x x 0 1";

/// The most empty squares at which the exact endgame solver takes a position over on a
/// board wider than [`bits::MAX_SIDE`] (Virus's 15×15), and on one it holds in bits
/// (standard Ataxx): measured by `contagion bench endgame` (docs/performance.md) as the
/// size of which it solves about half within 50 ms, half a 100 ms move.
pub const SOLVER_EMPTIES: u32 = 3;
/// See [`SOLVER_EMPTIES`].
pub const SOLVER_EMPTIES_IN_BITS: u32 = 4;

/// The 8 symmetries of the square on `(r, c)` in an `n`-board: identity, three
/// rotations, two mirrors, two diagonal reflections.
fn map_rc(sym: usize, n: i32, r: i32, c: i32) -> (i32, i32) {
    match sym {
        0 => (r, c),
        1 => (c, n - 1 - r),
        2 => (n - 1 - r, n - 1 - c),
        3 => (n - 1 - c, r),
        4 => (r, n - 1 - c),
        5 => (n - 1 - r, c),
        6 => (c, r),
        _ => (n - 1 - c, n - 1 - r),
    }
}

impl Ataxx {
    /// Standard Ataxx from its start position.
    pub fn standard() -> Ataxx {
        Ataxx::custom(ATAXX_START, true).expect("the Ataxx start parses")
    }

    /// Generation5's Virus game.
    pub fn virus() -> Ataxx {
        Ataxx::custom(VIRUS_START, false).expect("the Virus start parses")
    }

    /// A game from any start FEN: with `ataxx` rules (pass, 50-move rule) or Virus
    /// rules (no pass). Both end after 100 half-moves without a clone.
    pub fn custom(start: &str, ataxx: bool) -> Result<Ataxx, GameError> {
        let rules = Rules {
            ataxx,
            size: 7,
            pass: ataxx,
            // Generation5's Virus has no limit, but a game of jumps could then go on forever.
            halfmove_limit: 100,
            symmetries: 1,
        };
        Ataxx::with_rules(start, rules)
    }

    /// A game from any start FEN under any [`Rules`] (`halfmove_limit: 0` for no limit;
    /// the size comes from the FEN and the symmetries from the start layout).
    pub fn with_rules(start: &str, rules: Rules) -> Result<Ataxx, GameError> {
        let mut s = notation::from_fen(start, rules)?;
        s.rules.symmetries = (0..8).fold(0, |mask, sym| {
            if s.map_squares(sym) == s.cells {
                mask | 1 << sym
            } else {
                mask
            }
        });
        Ok(s)
    }

    /// The index in the encoding of each square's one-hot entry (planes 0–3: the mover's
    /// piece, the opponent's, empty, blocked).
    fn squares(&self) -> impl Iterator<Item = usize> + '_ {
        let (cells, mine) = (self.cells(), piece(self.to_move()));
        (0..cells).map(move |c| {
            let plane = match self.cells[c] {
                EMPTY => 2,
                BLOCKED => 3,
                code if code == mine => 0,
                _ => 1,
            };
            plane * cells + c
        })
    }

    /// Plane 5's value: the half-move clock's share of its limit (0 with none).
    fn clock(&self) -> f32 {
        match self.rules.halfmove_limit {
            0 => 0.0,
            limit => self.halfmove as f32 / limit as f32,
        }
    }

    /// The symmetry indices (into the 8 of the square) this game uses, identity first.
    fn allowed(&self) -> impl Iterator<Item = usize> + '_ {
        (0..8).filter(|k| self.rules.symmetries & (1 << k) != 0)
    }

    fn square_sym(&self, sym: usize) -> usize {
        self.allowed().nth(sym).unwrap_or(0)
    }

    fn map_cell(&self, k: usize, cell: usize) -> usize {
        let n = self.size() as i32;
        let (r, c) = map_rc(k, n, cell as i32 / n, cell as i32 % n);
        (r * n + c) as usize
    }

    fn map_squares(&self, k: usize) -> [u8; MAX_CELLS] {
        let mut out = [EMPTY; MAX_CELLS];
        for c in 0..self.cells() {
            out[self.map_cell(k, c)] = self.cells[c];
        }
        out
    }
}

impl Game for Ataxx {
    type Fast = bits::Bits;

    fn name(&self) -> &'static str {
        if self.rules.ataxx { "ataxx" } else { "virus" }
    }

    fn num_players(&self) -> usize {
        2
    }

    fn to_move(&self) -> usize {
        Ataxx::to_move(self)
    }

    fn player_name(&self, player: usize) -> &'static str {
        ["x", "o"][player]
    }

    fn action_space(&self) -> usize {
        17 * self.cells() + 1
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        self.for_each_legal(|a| out.push(a));
    }

    fn is_legal(&self, action: Action) -> bool {
        Ataxx::is_legal(self, action)
    }

    fn apply(&mut self, action: Action) -> Result<(), GameError> {
        Ataxx::apply(self, action).map_err(|e| e.in_notation(|a| notation::move_to_string(self, a)))
    }

    fn outcome(&self) -> Option<Outcome> {
        Ataxx::outcome(self)
    }

    /// More pieces wins, as at the end.
    fn adjudicate(&self) -> Outcome {
        board::by_pieces(self.pieces(0), self.pieces(1))
    }

    /// Each player's share of the pieces, as a lead: `(n₀ - n₁) / (n₀ + n₁)`.
    fn score_vector(&self) -> Option<Outcome> {
        Some(Outcome::share(self.pieces(0), self.pieces(1)))
    }

    /// The pieces after the move, counted from the squares it touches.
    fn score_after(&self, action: Action) -> Option<Outcome> {
        let [x, o] = self.pieces_after(action);
        Some(Outcome::share(x, o))
    }

    /// Twice the pieces the move takes, and one for a clone: the order of the pieces'
    /// share after it (a clone adds a piece, so of two moves taking as many it is ahead).
    fn gain_after(&self, action: Action) -> Option<i32> {
        Some(self.gain(action))
    }

    /// Each target's neighbours read as the moves are made.
    fn legal_gains(&self, f: impl FnMut(Action, i32)) -> bool {
        self.for_each_legal_gain(f);
        true
    }

    fn is_quiet(&self, action: Action) -> bool {
        Ataxx::is_quiet(self, action)
    }

    /// Its bitboards, on boards of side 8 or less.
    fn fast(&self) -> Option<bits::Bits> {
        bits::Bits::new(self)
    }

    /// The empty squares.
    fn endgame_size(&self) -> Option<u32> {
        Some(self.empties())
    }

    fn endgame_reach(&self) -> u32 {
        if self.size() <= bits::MAX_SIDE {
            SOLVER_EMPTIES_IN_BITS
        } else {
            SOLVER_EMPTIES
        }
    }

    fn ply(&self) -> u32 {
        Ataxx::ply(self)
    }

    fn max_plies(&self) -> u32 {
        // A rough length for splitting a clock over the moves left (games end sooner).
        self.ply() + 2 * self.cells() as u32 + 100
    }

    fn hash(&self) -> u64 {
        Ataxx::hash(self)
    }

    fn encoding_shape(&self) -> EncodingShape {
        EncodingShape {
            planes: PLANES,
            height: self.size(),
            width: self.size(),
        }
    }

    fn encode(&self, out: &mut [f32]) {
        let cells = self.cells();
        assert_eq!(out.len(), PLANES * cells, "encode: output length");
        out.fill(0.0);
        self.squares().for_each(|i| out[i] = 1.0);
        out[4 * cells..5 * cells].fill(1.0);
        out[5 * cells..6 * cells].fill(self.clock());
    }

    /// Planes 0–3 a word of 64 squares at a time (Virus's board is 225 squares), plane
    /// 4 whole, plane 5 whole once the clock turns it on.
    fn hot_inputs(&self, _scratch: &mut Vec<f32>, out: &mut dyn FeatureSink) {
        let cells = self.cells();
        let lit = if self.clock() >= FEATURE_ON { 6 } else { 5 };
        let [x, o, empty] = [piece(0), piece(1), EMPTY].map(|code| self.holding(code));
        let (mine, theirs) = if self.to_move() == 0 { (x, o) } else { (o, x) };
        for k in 0..cells.div_ceil(64) {
            let all = u64::MAX >> (64 - (cells - 64 * k).min(64));
            let (mine, theirs, empty) = (mine.word(k), theirs.word(k), empty.word(k));
            let planes = [
                mine,
                theirs,
                empty,
                all & !(mine | theirs | empty),
                all,
                all,
            ];
            for (p, &word) in planes[..lit].iter().enumerate() {
                if word != 0 {
                    out.insert_bits((p * cells + 64 * k) as u32, word);
                }
            }
        }
    }

    fn owners(&self) -> Option<Vec<u8>> {
        let code = |c: u8| if c == BLOCKED { EMPTY } else { c };
        Some(
            self.cells[..self.cells()]
                .iter()
                .map(|&c| code(c))
                .collect(),
        )
    }

    fn plane_meanings(&self) -> Vec<String> {
        vec![
            "the mover's pieces".into(),
            "the opponent's pieces".into(),
            "empty squares".into(),
            "blocked squares".into(),
            "all ones (the board; zero padding lies outside it)".into(),
            "all squares: half-move clock / limit (zeros with no limit)".into(),
        ]
    }

    fn settings(&self) -> serde_json::Value {
        serde_json::json!({
            "size": self.size(),
            "no_move": if self.rules.pass { "pass" } else { "the game ends" },
            "halfmove_limit": self.rules.halfmove_limit,
            "scoring": "more pieces wins; equal is a draw",
        })
    }

    fn policy_planes(&self) -> usize {
        18
    }

    fn policy_index(&self, action: Action) -> usize {
        let cells = self.cells();
        match Move::from_index(action, self.size()) {
            Some(Move::Clone { to }) => to,
            Some(Move::Jump { from, jump }) => (1 + jump) * cells + from,
            _ => 17 * cells,
        }
    }

    fn num_symmetries(&self) -> usize {
        self.rules.symmetries.count_ones() as usize
    }

    fn transform(&self, sym: usize) -> Self {
        let k = self.square_sym(sym);
        Ataxx::from_parts(
            self.map_squares(k),
            self.rules,
            self.to_move(),
            self.halfmove,
            self.fullmove,
        )
    }

    fn transform_action(&self, action: Action, sym: usize) -> Action {
        let (k, n) = (self.square_sym(sym), self.size());
        match Move::from_index(action, n) {
            Some(Move::Clone { to }) => Move::Clone {
                to: self.map_cell(k, to),
            }
            .index(n),
            Some(Move::Jump { from, jump }) => {
                let (dr, dc) = JUMPS[jump];
                let (r0, c0) = map_rc(k, 0, 0, 0);
                let (r1, c1) = map_rc(k, 0, dr as i32, dc as i32);
                let d = ((r1 - r0) as i8, (c1 - c0) as i8);
                let jump = JUMPS
                    .iter()
                    .position(|&j| j == d)
                    .expect("jumps map to jumps");
                Move::Jump {
                    from: self.map_cell(k, from),
                    jump,
                }
                .index(n)
            }
            _ => action,
        }
    }

    fn to_notation(&self) -> String {
        notation::to_fen(self)
    }

    fn parse_position(&self, text: &str) -> Result<Self, GameError> {
        let s = notation::from_fen(text, self.rules)?;
        if s.size() != self.size() {
            return Err(GameError::parse(
                text,
                format!(
                    "this game is played on {0}x{0}, the position is {1}x{1}",
                    self.size(),
                    s.size()
                ),
            ));
        }
        Ok(s)
    }

    fn action_to_string(&self, action: Action) -> String {
        notation::move_to_string(self, action)
    }

    fn parse_action(&self, text: &str) -> Result<Action, GameError> {
        notation::parse_move(self, text)
    }

    /// UAI: `x` moves first and is Black.
    fn clock_name(&self, player: usize) -> &'static str {
        ["btime", "wtime"][player]
    }

    fn protocol(&self) -> &'static str {
        "uai"
    }

    fn record_seat(&self, player: usize) -> String {
        ["Black", "White"][player].to_string()
    }

    fn view(&self) -> BoardView {
        let n = self.size();
        let cells = (0..self.cells())
            .map(|c| {
                let at = ((c % n) as f32, (c / n) as f32);
                let mut v = CellView::new(c, at, notation::square(n, c));
                match self.square(c) {
                    BLOCKED => v.blocked = true,
                    EMPTY => {}
                    code => v.owner = Some(code as usize - 1),
                }
                v
            })
            .collect();
        BoardView {
            shape: "square",
            cells,
        }
    }

    fn action_cells(&self, action: Action) -> (Option<usize>, Option<usize>) {
        match Move::from_index(action, self.size()) {
            Some(Move::Clone { to }) => (None, Some(to)),
            Some(Move::Jump { from, jump }) => (Some(from), self.offset(from, JUMPS[jump])),
            Some(Move::Pass) | None => (None, None),
        }
    }

    fn why_illegal(&self, action: Action) -> String {
        let me = piece(self.to_move());
        match Move::from_index(action, self.size()) {
            _ if self.is_over() => "the game is over".into(),
            None => "it is outside the action space".into(),
            Some(Move::Clone { to }) if self.cells[to] != EMPTY => "the square is not empty".into(),
            Some(Move::Clone { .. }) => "none of your pieces is next to that square".into(),
            Some(Move::Jump { from, .. }) if self.cells[from] != me => {
                "there is no piece of yours to jump from".into()
            }
            Some(Move::Jump { .. }) => "the destination is not an empty square".into(),
            Some(Move::Pass) => "you may pass only when you have no move".into(),
        }
    }

    fn render_with(&self, paint: &dyn Fn(usize, &str) -> String) -> String {
        notation::render(self, paint)
    }
}
