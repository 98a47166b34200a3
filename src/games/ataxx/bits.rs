//! The Ataxx-family rules on bitboards, for boards of side 8 or less: the exact endgame
//! solver's positions ([`crate::search::endgame`]).
//!
//! [`Bits`] holds the same position as an [`Ataxx`] (the pieces of each side, the empty
//! squares, the mover, the half-move clock and the rules) in three `u64`s, one bit a
//! square at `8 · row + column`; squares off a smaller board count as blocked. A move is
//! a few masks and shifts where [`Ataxx`] scans its cells, so the solver searches many
//! times the nodes a second. Its actions are [`Ataxx`]'s (the same indices for the same
//! board side), and `tests/suite/ataxx_bits.rs` holds every legal move, position and
//! result to [`Ataxx`]'s over random games, which stay the one definition of the rules.

use super::board::{Ataxx, Move, PLANES};
use super::board::{JUMPS, by_pieces, move_gain, piece};
use crate::games::tuples;
use crate::games::{Action, FeatureSink, Outcome, Searchable};
use crate::rng::splitmix64;

/// The largest board side held in bits.
pub const MAX_SIDE: usize = 8;

/// Per square of the 8×8 grid: its 8 neighbours and the 16 squares two away.
struct Masks {
    adjacent: [u64; 64],
    ring: [u64; 64],
}

const fn masks() -> Masks {
    let mut m = Masks {
        adjacent: [0; 64],
        ring: [0; 64],
    };
    let mut sq = 0;
    while sq < 64 {
        let (r, c) = ((sq / 8) as i32, (sq % 8) as i32);
        let mut dr = -2;
        while dr <= 2 {
            let mut dc = -2;
            while dc <= 2 {
                let (rr, cc) = (r + dr, c + dc);
                if (dr != 0 || dc != 0) && rr >= 0 && rr < 8 && cc >= 0 && cc < 8 {
                    let bit = 1u64 << (rr * 8 + cc);
                    if dr >= -1 && dr <= 1 && dc >= -1 && dc <= 1 {
                        m.adjacent[sq] |= bit;
                    } else {
                        m.ring[sq] |= bit;
                    }
                }
                dc += 1;
            }
            dr += 1;
        }
        sq += 1;
    }
    m
}

static MASKS: Masks = masks();

/// `bits` and every square a king step from one of them, on the 8×8 grid.
fn dilate(bits: u64) -> u64 {
    const NOT_A: u64 = !0x0101_0101_0101_0101;
    const NOT_H: u64 = !0x8080_8080_8080_8080;
    let row = bits | (bits << 1) & NOT_A | (bits >> 1) & NOT_H;
    row | row << 8 | row >> 8
}

/// [`JUMPS`]' index of the offset `(dr, dc)`, at `(dr + 2) · 5 + dc + 2` (24 for none).
const JUMP_INDEX: [u8; 25] = {
    let mut out = [24u8; 25];
    let mut k = 0;
    while k < 16 {
        let (dr, dc) = JUMPS[k];
        out[((dr + 2) * 5 + dc + 2) as usize] = k as u8;
        k += 1;
    }
    out
};

/// An Ataxx-family position of side at most [`MAX_SIDE`] in bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bits {
    /// Each side's pieces.
    pieces: [u64; 2],
    /// The empty squares.
    empty: u64,
    to_move: u8,
    halfmove: u16,
    halfmove_limit: u16,
    pass: bool,
    /// The board's side, for action indices.
    side: u8,
}

/// A 2×2 window's pattern number from its cells as bits (the mover's four in the low
/// nibble, the opponent's in the high; top-left, top-right, bottom-left, bottom-right):
/// each cell's state (0, 1 the mover's, 2 the opponent's) a base-3 digit.
const PATTERN: [u32; 256] = {
    let mut table = [0; 256];
    let mut i = 0;
    while i < 256 {
        let (mut k, mut digit, mut n) = (0, 1, 0);
        while k < 4 {
            n += digit * ((i >> k & 1) + 2 * (i >> (k + 4) & 1)) as u32;
            digit *= 3;
            k += 1;
        }
        table[i] = n;
        i += 1;
    }
    table
};

impl Bits {
    /// The position of `board`; `None` for a board wider than [`MAX_SIDE`].
    pub fn new(board: &Ataxx) -> Option<Bits> {
        let n = board.size();
        if n > MAX_SIDE {
            return None;
        }
        let mut b = Bits {
            pieces: [0; 2],
            empty: 0,
            to_move: board.to_move() as u8,
            halfmove: board.halfmove(),
            halfmove_limit: board.rules().halfmove_limit,
            pass: board.rules().pass,
            side: n as u8,
        };
        for cell in 0..n * n {
            let bit = 1u64 << Self::square(n, cell);
            match board.square(cell) {
                0 => b.empty |= bit,
                code if code == piece(0) => b.pieces[0] |= bit,
                code if code == piece(1) => b.pieces[1] |= bit,
                _ => {}
            }
        }
        Some(b)
    }

    /// The bit of board cell `cell` (row-major on side `n`).
    fn square(n: usize, cell: usize) -> u32 {
        (cell / n * 8 + cell % n) as u32
    }

    /// The board cell of bit `sq`.
    fn cell(&self, sq: u32) -> usize {
        (sq / 8) as usize * self.side as usize + (sq % 8) as usize
    }

    /// The size of the action space: the pass is its last action.
    pub fn action_space(&self) -> usize {
        Move::Pass.index(self.side as usize) as usize + 1
    }

    /// The board's side.
    pub fn side(&self) -> usize {
        self.side as usize
    }

    /// The player to move (0: x, 1: o).
    pub fn to_move(&self) -> usize {
        self.to_move as usize
    }

    /// `player`'s pieces.
    pub fn pieces(&self, player: usize) -> u32 {
        self.pieces[player].count_ones()
    }

    /// The empty squares.
    pub fn empties(&self) -> u32 {
        self.empty.count_ones()
    }

    /// A hash of the whole position (not [`Ataxx::hash`]).
    pub fn hash(&self) -> u64 {
        let state = (self.halfmove as u64) << 1 | self.to_move as u64;
        splitmix64(self.pieces[0] ^ splitmix64(self.pieces[1] ^ splitmix64(self.empty ^ state)))
    }

    /// Whether `player` has a clone or a jump: an empty square within two steps (king
    /// steps, the clone's and the jump's reach) of one of its pieces.
    fn can_move(&self, player: usize) -> bool {
        dilate(dilate(self.pieces[player])) & self.empty != 0
    }

    /// As [`Ataxx::outcome`].
    pub fn outcome(&self) -> Option<Outcome> {
        let [x, o] = [self.pieces(0), self.pieces(1)];
        let limited = self.halfmove_limit > 0 && self.halfmove >= self.halfmove_limit;
        let over = x == 0
            || o == 0
            || limited
            || if self.pass {
                !self.can_move(0) && !self.can_move(1)
            } else {
                !self.can_move(self.to_move())
            };
        if !over {
            return None;
        }
        if self.pass && limited && x > 0 && o > 0 && (self.can_move(0) || self.can_move(1)) {
            return Some(Outcome::draw());
        }
        Some(by_pieces(x, o))
    }

    /// Clears `out` and fills it with the legal actions (as [`Ataxx`]'s, not sorted);
    /// empty once the game is over.
    pub fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.outcome().is_none() {
            self.moves(out);
        }
    }

    /// Fills `out` with the legal actions of a position whose game is not over (the
    /// caller has checked [`Bits::outcome`]).
    pub fn moves(&self, out: &mut Vec<Action>) {
        out.clear();
        self.each_move(|_| 0, |a, _| out.push(a));
    }

    /// Calls `f` with each legal action of a position whose game is not over, in
    /// [`Bits::moves`]'s order, and what it gains ([`Bits::gain`]): a target's
    /// captures counted once for all the moves to it.
    pub fn moves_gains(&self, f: impl FnMut(Action, i32)) {
        let theirs = self.pieces[1 - self.to_move()];
        self.each_move(|e| (MASKS.adjacent[e as usize] & theirs).count_ones(), f);
    }

    /// Calls `f` with each legal action, target by target, and its gain given that a
    /// move to square `e` takes `taken(e)` pieces.
    #[inline(always)]
    fn each_move(&self, taken: impl Fn(u32) -> u32, mut f: impl FnMut(Action, i32)) {
        let (n, mine) = (self.side as usize, self.pieces[self.to_move()]);
        let mut empty = self.empty;
        let mut any = false;
        while empty != 0 {
            let e = empty.trailing_zeros();
            empty &= empty - 1;
            let adjacent = MASKS.adjacent[e as usize] & mine != 0;
            let mut from = MASKS.ring[e as usize] & mine;
            if !adjacent && from == 0 {
                continue;
            }
            any = true;
            let taken = taken(e);
            if adjacent {
                f(
                    Move::Clone { to: self.cell(e) }.index(n),
                    move_gain(taken, true),
                );
            }
            while from != 0 {
                let f_sq = from.trailing_zeros();
                from &= from - 1;
                let (dr, dc) = (
                    (e / 8) as i32 - (f_sq / 8) as i32,
                    (e % 8) as i32 - (f_sq % 8) as i32,
                );
                let jump = JUMP_INDEX[((dr + 2) * 5 + dc + 2) as usize] as usize;
                let from = self.cell(f_sq);
                f(Move::Jump { from, jump }.index(n), move_gain(taken, false));
            }
        }
        if !any && self.pass {
            f(Move::Pass.index(n), 0);
        }
    }

    /// The squares of an action: the one a jump leaves (none for a clone) and the one
    /// its piece lands on; `None` for a pass.
    fn squares(&self, action: Action) -> Option<(Option<u32>, u32)> {
        let n = self.side as usize;
        match Move::from_index(action, n)? {
            Move::Clone { to } => Some((None, Self::square(n, to))),
            Move::Jump { from, jump } => {
                let (dr, dc) = JUMPS[jump];
                let f = Self::square(n, from);
                Some((Some(f), (f as i32 + 8 * dr as i32 + dc as i32) as u32))
            }
            Move::Pass => None,
        }
    }

    /// What a legal action gains its mover's lead in pieces, for ordering: twice the
    /// pieces it takes, plus one for a clone (the order of the mover's piece share after
    /// the move).
    pub fn gain(&self, action: Action) -> i32 {
        let Some((from, to)) = self.squares(action) else {
            return 0;
        };
        let taken = MASKS.adjacent[to as usize] & self.pieces[1 - self.to_move()];
        move_gain(taken.count_ones(), from.is_none())
    }

    /// The fast evaluator's features of this position, a mask a plane of [`Ataxx`]'s
    /// encoding (`n²` bits, board cell `c` at bit `c`; plane `p`'s features are the
    /// encoding's entries `p · n² + c` that are at least one half).
    /// `tests/suite/nnue.rs` holds them to the encoding's.
    pub fn feature_planes(&self) -> [u64; PLANES] {
        let n = self.side as u32;
        let board = board_mask(n);
        let me = self.to_move();
        let all = (1u64 << (n * n)) - 1;
        let late = self.halfmove_limit > 0 && 2 * self.halfmove >= self.halfmove_limit;
        let [mine, theirs, empty, blocked] = compact(
            [
                self.pieces[me],
                self.pieces[1 - me],
                self.empty,
                board & !(self.pieces[0] | self.pieces[1] | self.empty),
            ],
            n,
            board,
        );
        [
            mine,
            theirs,
            empty,
            blocked,
            all,
            if late { all } else { 0 },
        ]
    }

    /// Calls `on(window, pattern)` for every 2×2 window, row-major, its pattern the
    /// four cells' states (0 empty or blocked, 1 `viewer`'s, 2 the other side's) read
    /// in base 3, the top-left cell the lowest digit: [`crate::games::tuples`]' numbers.
    pub fn tuple_patterns(&self, viewer: usize, mut on: impl FnMut(u32, u32)) {
        let n = self.side as u32;
        let me = viewer;
        let (mine, theirs) = (self.pieces[me], self.pieces[1 - me]);
        // A window's four cells as four bits: bits 0, 1, 8, 9 from its top-left cell.
        let four = |m: u64, b: u32| ((m >> b) & 3 | (m >> (b + 6)) & 12) as usize;
        for r in 0..n - 1 {
            for c in 0..n - 1 {
                let b = 8 * r + c;
                on(
                    r * (n - 1) + c,
                    PATTERN[four(mine, b) | four(theirs, b) << 4],
                );
            }
        }
    }

    /// The same position with the other side to move (a null move, for the search;
    /// not a move of the game where the mover has one).
    pub fn passed(&self) -> Bits {
        Bits {
            to_move: self.to_move ^ 1,
            ..*self
        }
    }

    /// Plays a legal action (as [`Ataxx::apply_unchecked`]: the caller checked it).
    pub fn apply_unchecked(&mut self, action: Action) {
        let me = self.to_move();
        match self.squares(action) {
            Some((from, to)) => {
                if let Some(f) = from {
                    self.halfmove += 1;
                    self.pieces[me] &= !(1u64 << f);
                    self.empty |= 1u64 << f;
                } else {
                    self.halfmove = 0;
                }
                let flips = MASKS.adjacent[to as usize] & self.pieces[1 - me];
                self.pieces[me] |= flips | 1u64 << to;
                self.pieces[1 - me] ^= flips;
                self.empty &= !(1u64 << to);
            }
            None => self.halfmove += 1,
        }
        self.to_move ^= 1;
    }
}

/// The searches' view of the bitboards: the same actions, features and scores as the
/// [`Ataxx`] they were made from.
impl Searchable for Bits {
    fn to_move(&self) -> usize {
        Bits::to_move(self)
    }

    fn outcome(&self) -> Option<Outcome> {
        Bits::outcome(self)
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        self.moves(out)
    }

    /// A target's captures counted once for the moves to it.
    fn legal_gains(&self, f: impl FnMut(Action, i32)) -> bool {
        self.moves_gains(f);
        true
    }

    fn play(&mut self, action: Action) {
        self.apply_unchecked(action)
    }

    fn key(&self) -> u64 {
        self.hash()
    }

    fn share(&self, player: usize) -> f32 {
        Outcome::share(self.pieces(0), self.pieces(1)).value(player)
    }

    /// The pieces the move gains, read from the masks: the children are made only when
    /// searched, so a cut-off spares the rest.
    fn rank(&self, action: Action) -> (i32, Option<Self>) {
        (self.gain(action), None)
    }

    fn players(&self) -> usize {
        2
    }

    fn actions(&self) -> usize {
        self.action_space()
    }

    fn features(&self, _scratch: &mut Vec<f32>, out: &mut impl FeatureSink) {
        out.clear();
        let cells = (self.side() * self.side()) as u32;
        for (p, plane) in self.feature_planes().into_iter().enumerate() {
            out.insert_bits(p as u32 * cells, plane);
        }
    }

    fn encoding_len(&self) -> usize {
        self.side() * self.side() * PLANES
    }

    /// As [`Game::tuple_inputs`](crate::games::Game::tuple_inputs) numbers them.
    fn tuples(&self, viewer: usize, offset: u32, out: &mut impl FeatureSink) {
        let per = tuples::patterns(2) as u32;
        self.tuple_patterns(viewer, |window, pattern| {
            out.insert(offset + window * per + pattern)
        });
    }

    fn null_move(&self) -> Option<Bits> {
        Some(self.passed())
    }

    /// A jump that takes nothing: the one kind of move but a pass (the last action) that
    /// gains nothing.
    fn quiet(&self, action: Action) -> bool {
        self.gain(action) == 0 && (action as usize) + 1 < self.action_space()
    }
}

/// The squares of a board of side `n` on the 8×8 grid: `n` bits in each of `n` rows.
fn board_mask(n: u32) -> u64 {
    let row = (1u64 << n) - 1;
    (0..n).fold(0u64, |b, r| b | row << (8 * r))
}

/// Each mask's squares from rows of 8 bits to rows of `n` (`board` is
/// [`board_mask`]`(n)`): one parallel bit extract a mask where the CPU has one (BMI2,
/// asked once for all of them), a shift a row otherwise.
fn compact<const K: usize>(masks: [u64; K], n: u32, board: u64) -> [u64; K] {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("bmi2") {
        // SAFETY: the CPU has BMI2, checked just above.
        return masks.map(|mask| unsafe { extract_bmi2(mask, board) });
    }
    masks.map(|mask| compact_rows(mask, n))
}

/// [`compact`] a row at a time.
fn compact_rows(mask: u64, n: u32) -> u64 {
    let row = (1u64 << n) - 1;
    (0..n).fold(0, |c, r| c | ((mask >> (8 * r)) & row) << (n * r))
}

/// The bits of `x` where `m` has one, packed at the bottom in order (`pext`).
///
/// # Safety
///
/// The CPU must have BMI2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
unsafe fn extract_bmi2(x: u64, m: u64) -> u64 {
    std::arch::x86_64::_pext_u64(x, m)
}

#[cfg(test)]
mod tests {
    use super::super::board::NEIGHBOURS;
    use super::*;

    /// The compaction the CPU runs is the one a row at a time, on every board side.
    #[test]
    fn compacting_rows_is_one_rule_on_every_cpu() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for n in 1..=8 {
            for _ in 0..200 {
                x = splitmix64(x);
                let board = board_mask(n);
                assert_eq!(
                    compact([x & board], n, board),
                    [compact_rows(x, n)],
                    "side {n}"
                );
            }
        }
    }

    /// Each square's masks are the neighbour and jump offsets that stay on the grid.
    #[test]
    fn the_masks_are_the_offsets() {
        for sq in 0..64i32 {
            let (r, c) = (sq / 8, sq % 8);
            let on = |(dr, dc): (i8, i8)| {
                let (rr, cc) = (r + dr as i32, c + dc as i32);
                ((0..8).contains(&rr) && (0..8).contains(&cc)).then(|| 1u64 << (rr * 8 + cc))
            };
            let adjacent = NEIGHBOURS
                .iter()
                .filter_map(|&d| on(d))
                .fold(0, |a, b| a | b);
            let ring = JUMPS.iter().filter_map(|&d| on(d)).fold(0, |a, b| a | b);
            assert_eq!(MASKS.adjacent[sq as usize], adjacent, "square {sq}");
            assert_eq!(MASKS.ring[sq as usize], ring, "square {sq}");
        }
        for sq in 0..64 {
            let one = 1u64 << sq;
            let two = dilate(dilate(one)) & !one;
            assert_eq!(two, MASKS.adjacent[sq] | MASKS.ring[sq], "square {sq}");
        }
        assert!((0..16).all(|k| {
            let (dr, dc) = JUMPS[k];
            JUMP_INDEX[((dr + 2) * 5 + dc + 2) as usize] as usize == k
        }));
    }
}
