//! The Ataxx-family state and its rules: clones, jumps, captures, passes and the end.
//!
//! One implementation serves standard Ataxx and Generation5's Virus game through
//! [`Rules`]: the board size (4 to 15), what happens when the mover has no move (pass,
//! or the game ends) and the half-move limit. The start layout, blocked squares and the
//! first player come from the start position (see [`super::notation`]). Scoring is by
//! pieces: more pieces wins, equal is a draw; with Ataxx rules a game the half-move
//! limit stops while it could go on is a draw (libataxx, python-ataxx).
//!
//! - **Clone**: a piece copies itself to an empty square among its 8 neighbours; the
//!   action is named by its destination, so two pieces cloning to the same square are
//!   one action.
//! - **Jump**: a piece moves to an empty square at Chebyshev distance exactly 2.
//! - Either way, every enemy piece 8-adjacent to the destination is converted.
//! - **Pass**: only when the mover has no clone or jump and the game is not over (with
//!   `pass` rules); without them, a mover with no move ends the game.
//! - **End** (with `pass` rules, as libataxx): a side has no pieces; no empty square is
//!   within reach of any piece (so neither side can move; a full board included); or the
//!   half-move clock (reset by clones, advanced by jumps and passes) reaches the limit.
//!   Without `pass` rules (Virus): a side has no pieces, or the mover cannot move.

use super::squares::{Geometry, Squares};
pub use super::squares::{JUMPS, MAX_CELLS, MAX_SIZE, NEIGHBOURS};
use crate::games::{Action, GameError, Outcome};
use crate::rng::splitmix64;

/// The encoding's planes (`Game::plane_meanings` names them).
pub(crate) const PLANES: usize = 6;

/// A square's code: empty.
pub const EMPTY: u8 = 0;
/// A square's code: a blocker (no piece may stand there).
pub const BLOCKED: u8 = 3;
/// The square's code for player `p` (0: `x`, 1: `o`).
pub const fn piece(p: usize) -> u8 {
    p as u8 + 1
}

/// The rule settings a state carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// `true` for Ataxx, `false` for Generation5's Virus (a name for files and messages).
    pub ataxx: bool,
    /// Side length, 4 to 15.
    pub size: u8,
    /// A mover with no move passes (`true`) or the game ends (`false`).
    pub pass: bool,
    /// The game ends when the half-move clock reaches this; 0 for no limit.
    pub halfmove_limit: u16,
    /// Which of the 8 square symmetries map the start layout onto itself (bit `k` for
    /// symmetry `k`; bit 0, the identity, always set).
    pub symmetries: u8,
}

/// A decoded action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    /// A piece copied to an adjacent empty square.
    Clone {
        /// The square cloned to.
        to: usize,
    },
    /// A piece moved two squares away.
    Jump {
        /// The square left.
        from: usize,
        /// The square jumped to.
        jump: usize,
    },
    /// No move (only when the mover has none).
    Pass,
}

impl Move {
    /// Action index: clones `0..n²` by destination, jumps `n² + from·16 + k`, pass last.
    pub fn index(self, size: usize) -> Action {
        let cells = size * size;
        (match self {
            Move::Clone { to } => to,
            Move::Jump { from, jump } => cells + from * 16 + jump,
            Move::Pass => cells * 17,
        }) as Action
    }

    /// The move of action `action` on a board of side `size`, if there is one.
    pub fn from_index(action: Action, size: usize) -> Option<Move> {
        let (a, cells) = (action as usize, size * size);
        match a {
            _ if a < cells => Some(Move::Clone { to: a }),
            _ if a < cells * 17 => Some(Move::Jump {
                from: (a - cells) / 16,
                jump: (a - cells) % 16,
            }),
            _ if a == cells * 17 => Some(Move::Pass),
            _ => None,
        }
    }
}

/// What a move gains its mover's lead in pieces, for ordering: twice the pieces it takes
/// and one for a clone (which adds a piece).
#[inline(always)]
pub(super) fn move_gain(taken: u32, clone: bool) -> i32 {
    2 * taken as i32 + i32::from(clone)
}

/// The result by pieces: more wins, equal draws.
pub(super) fn by_pieces(x: u32, o: u32) -> Outcome {
    match x.cmp(&o) {
        std::cmp::Ordering::Greater => Outcome::win(0, 2),
        std::cmp::Ordering::Less => Outcome::win(1, 2),
        std::cmp::Ordering::Equal => Outcome::draw(),
    }
}

/// Zobrist key of square `cell` holding `code`.
fn key(cell: usize, code: u8) -> u64 {
    if code == EMPTY {
        0
    } else {
        splitmix64((cell as u64) << 2 | code as u64)
    }
}

/// An Ataxx-family position. `Copy`; cells are row-major from the top rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ataxx {
    pub(super) cells: [u8; MAX_CELLS],
    pub(super) rules: Rules,
    pub(super) to_move: u8,
    pub(super) halfmove: u16,
    pub(super) fullmove: u16,
    pub(super) count: [u16; 2],
    /// Zobrist hash of the squares alone.
    pub(super) squares_hash: u64,
    /// The squares of each code but a blocker's: empty, `x`'s, `o`'s.
    sets: [Squares; 3],
}

impl Ataxx {
    /// A position from its parts (validated by the caller).
    pub(super) fn from_parts(
        cells: [u8; MAX_CELLS],
        rules: Rules,
        to_move: usize,
        halfmove: u16,
        fullmove: u16,
    ) -> Ataxx {
        let mut s = Ataxx {
            cells,
            rules,
            to_move: to_move as u8,
            halfmove,
            fullmove,
            count: [0; 2],
            squares_hash: 0,
            sets: [Squares::default(); 3],
        };
        for c in 0..s.cells() {
            let code = s.cells[c];
            if code == piece(0) || code == piece(1) {
                s.count[code as usize - 1] += 1;
            }
            if let Some(set) = s.sets.get_mut(code as usize) {
                set.insert(c);
            }
            s.squares_hash ^= key(c, code);
        }
        s
    }

    /// The rules this board plays by (Ataxx or Virus and their settings).
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The board's side.
    pub fn size(&self) -> usize {
        self.rules.size as usize
    }

    /// The board's squares (side × side).
    pub fn cells(&self) -> usize {
        self.size() * self.size()
    }

    /// Square `cell`'s code: empty, a player's piece (1, 2) or a blocker.
    pub fn square(&self, cell: usize) -> u8 {
        self.cells[cell]
    }

    /// The empty squares.
    pub fn empties(&self) -> u32 {
        self.sets[EMPTY as usize].len()
    }

    /// The squares holding code `code` (empty or a player's piece; not a blocker).
    pub(super) fn holding(&self, code: u8) -> Squares {
        self.sets[code as usize]
    }

    /// The board's squares' neighbours and jumps.
    fn geometry(&self) -> &'static Geometry {
        Geometry::of(self.size())
    }

    /// The pieces `player` has on the board.
    pub fn pieces(&self, player: usize) -> u32 {
        self.count[player] as u32
    }

    /// The player to move (0: x, 1: o).
    pub fn to_move(&self) -> usize {
        self.to_move as usize
    }

    /// Half-moves since the last clone (the half-move clock).
    pub fn halfmove(&self) -> u16 {
        self.halfmove
    }

    /// The full-move number, starting at 1.
    pub fn fullmove(&self) -> u16 {
        self.fullmove
    }

    /// Actions played, counted from the full-move number (so a FEN round trip keeps it).
    pub fn ply(&self) -> u32 {
        2 * (self.fullmove as u32 - 1) + self.to_move as u32
    }

    /// The position's Zobrist hash.
    pub fn hash(&self) -> u64 {
        self.squares_hash ^ splitmix64(0xA7A8 ^ (self.halfmove as u64) << 8 ^ self.to_move as u64)
    }

    /// The square `(dr, dc)` from `cell`, if on the board.
    #[inline]
    pub fn offset(&self, cell: usize, (dr, dc): (i8, i8)) -> Option<usize> {
        let n = self.size() as isize;
        let (r, c) = self.row_col(cell);
        let (r, c) = (r as isize + dr as isize, c as isize + dc as isize);
        ((0..n).contains(&r) && (0..n).contains(&c)).then(|| (r * n + c) as usize)
    }

    /// The row and column of square `cell`.
    fn row_col(&self, cell: usize) -> (usize, usize) {
        (cell / self.size(), cell % self.size())
    }

    /// Whether `player` has a clone or a jump: some empty square lies within two squares
    /// of one of its pieces. Scanned from whichever is fewer, the player's pieces or the
    /// empty squares (an endgame has few of these); reach is symmetric, so either way
    /// finds the same.
    pub fn can_move(&self, player: usize) -> bool {
        let (mine, empty) = (self.holding(piece(player)), self.holding(EMPTY));
        let reach = &self.geometry().reach;
        let (from, to) = if mine.len() <= empty.len() {
            (mine, empty)
        } else {
            (empty, mine)
        };
        from.iter().any(|sq| reach[sq].meets(to))
    }

    /// Whether the half-move clock has reached its limit (never without one).
    fn at_limit(&self) -> bool {
        self.rules.halfmove_limit > 0 && self.halfmove >= self.rules.halfmove_limit
    }

    /// Whether the game has ended.
    pub fn is_over(&self) -> bool {
        if self.count[0] == 0 || self.count[1] == 0 || self.at_limit() {
            return true;
        }
        if self.rules.pass {
            !self.can_move(0) && !self.can_move(1)
        } else {
            !self.can_move(self.to_move())
        }
    }

    /// More pieces wins, equal draws. With Ataxx rules (passes) a game the half-move
    /// limit stops while it could go on (both sides have pieces, one can move) is a
    /// draw, as libataxx and python-ataxx score it. Virus rules score it by pieces: the
    /// seed has no limit (ours only makes every game end) and its goal is the larger
    /// share of the board at the end.
    pub fn outcome(&self) -> Option<Outcome> {
        if !self.is_over() {
            return None;
        }
        let could_go_on =
            self.count[0] > 0 && self.count[1] > 0 && (self.can_move(0) || self.can_move(1));
        if self.rules.pass && self.at_limit() && could_go_on {
            return Some(Outcome::draw());
        }
        Some(by_pieces(self.pieces(0), self.pieces(1)))
    }

    /// Calls `f` with every legal action, ascending.
    pub fn for_each_legal(&self, mut f: impl FnMut(Action)) {
        self.each_legal(|_| 0, |a, _| f(a));
    }

    /// Calls `f` with every legal action, ascending, and what it gains ([`Ataxx::gain`]):
    /// the pieces a move takes read from its target's neighbours as the move is made.
    pub fn for_each_legal_gain(&self, f: impl FnMut(Action, i32)) {
        let (g, theirs) = (self.geometry(), self.holding(piece(1 - self.to_move())));
        self.each_legal(|to| g.adjacent[to].and(theirs).len(), f);
    }

    /// Calls `f` with every legal action, ascending, and its gain given that a move to
    /// `to` takes `taken(to)` pieces.
    #[inline(always)]
    fn each_legal(&self, taken: impl Fn(usize) -> u32, mut f: impl FnMut(Action, i32)) {
        if self.is_over() {
            return;
        }
        let (n, g) = (self.size(), self.geometry());
        let (mine, empty) = (self.holding(piece(self.to_move())), self.holding(EMPTY));
        // The empty squares next to a piece: marked from the pieces where they are
        // fewer, else each empty square asks.
        let clones = if mine.len() < empty.len() {
            let near = mine
                .iter()
                .fold(Squares::default(), |near, sq| near.or(g.adjacent[sq]));
            near.and(empty)
        } else {
            let mut near = Squares::default();
            for sq in empty.iter().filter(|&sq| g.adjacent[sq].meets(mine)) {
                near.insert(sq);
            }
            near
        };
        let mut any = !clones.is_empty();
        for to in clones.iter() {
            f(Move::Clone { to }.index(n), move_gain(taken(to), true));
        }
        for from in mine.iter() {
            for to in g.ring[from].and(empty).iter() {
                any = true;
                let jump = g.jump(from, to);
                f(
                    Move::Jump { from, jump }.index(n),
                    move_gain(taken(to), false),
                );
            }
        }
        if !any && self.rules.pass {
            f(Move::Pass.index(n), 0);
        }
    }

    /// Whether `action` is legal here.
    pub fn is_legal(&self, action: Action) -> bool {
        if self.is_over() {
            return false;
        }
        let me = piece(self.to_move());
        match Move::from_index(action, self.size()) {
            Some(Move::Clone { to }) => {
                self.cells[to] == EMPTY && self.geometry().adjacent[to].meets(self.holding(me))
            }
            Some(Move::Jump { from, jump }) => {
                self.cells[from] == me
                    && self
                        .offset(from, JUMPS[jump])
                        .is_some_and(|t| self.cells[t] == EMPTY)
            }
            Some(Move::Pass) => self.rules.pass && !self.can_move(self.to_move()),
            None => false,
        }
    }

    fn set(&mut self, cell: usize, code: u8) {
        let old = self.cells[cell];
        if old == piece(0) || old == piece(1) {
            self.count[old as usize - 1] -= 1;
        }
        if code == piece(0) || code == piece(1) {
            self.count[code as usize - 1] += 1;
        }
        if let Some(set) = self.sets.get_mut(old as usize) {
            set.remove(cell);
        }
        if let Some(set) = self.sets.get_mut(code as usize) {
            set.insert(cell);
        }
        self.squares_hash ^= key(cell, old) ^ key(cell, code);
        self.cells[cell] = code;
    }

    /// Plays a legal action (the caller checked it).
    pub fn apply_unchecked(&mut self, action: Action) {
        let me = self.to_move();
        let mine = piece(me);
        let dest = match Move::from_index(action, self.size()) {
            Some(Move::Clone { to }) => {
                self.halfmove = 0;
                Some(to)
            }
            Some(Move::Jump { from, jump }) => {
                self.halfmove += 1;
                self.set(from, EMPTY);
                Some(self.geometry().target(from, jump))
            }
            Some(Move::Pass) => {
                self.halfmove += 1;
                None
            }
            None => unreachable!("apply_unchecked given action {action}"),
        };
        if let Some(to) = dest {
            self.set(to, mine);
            let taken = self.geometry().adjacent[to].and(self.holding(piece(1 - me)));
            for t in taken.iter() {
                self.set(t, mine);
            }
        }
        if me == 1 {
            self.fullmove += 1;
        }
        self.to_move ^= 1;
    }

    /// What the legal `action` adds to its mover's pieces (1 for a clone, 0 for a jump)
    /// and the pieces it takes; `None` for a pass.
    fn captures(&self, action: Action) -> Option<(u32, u32)> {
        let g = self.geometry();
        let (to, added) = match Move::from_index(action, self.size())? {
            Move::Clone { to } => (to, 1),
            Move::Jump { from, jump } => (g.target(from, jump), 0),
            Move::Pass => return None,
        };
        Some((
            added,
            g.adjacent[to]
                .and(self.holding(piece(1 - self.to_move())))
                .len(),
        ))
    }

    /// Each player's pieces after the legal `action`: a clone adds one, and the pieces
    /// it takes change sides.
    pub fn pieces_after(&self, action: Action) -> [u32; 2] {
        let me = self.to_move();
        let (added, taken) = self.captures(action).unwrap_or((0, 0));
        // Built whole from two sums: written a side at a time, the array stalls the
        // load that reads it back (two fifths of this function's samples).
        let mine = self.pieces(me) + added + taken;
        let others = self.pieces(1 - me) - taken;
        if me == 0 {
            [mine, others]
        } else {
            [others, mine]
        }
    }

    /// What a legal `action` gains its mover's lead in pieces, for ordering: twice the
    /// pieces it takes, plus one for a clone (0 for a pass).
    pub fn gain(&self, action: Action) -> i32 {
        self.captures(action)
            .map_or(0, |(added, taken)| move_gain(taken, added == 1))
    }

    /// Whether a legal `action` is quiet: a jump that takes no piece (a clone always
    /// gains one, so none is quiet; nor is a pass, the only move where it is legal).
    pub fn is_quiet(&self, action: Action) -> bool {
        self.captures(action) == Some((0, 0))
    }

    /// Plays `action`; an illegal one is refused and changes nothing.
    pub fn apply(&mut self, action: Action) -> Result<(), GameError> {
        if self.is_over() {
            return Err(GameError::GameOver);
        }
        if !self.is_legal(action) {
            return Err(GameError::IllegalAction(action));
        }
        self.apply_unchecked(action);
        Ok(())
    }
}
