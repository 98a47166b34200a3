//! Sets of squares of a board of any side the rules accept (up to 15×15) as four 64-bit
//! words, bit `k` for square `k` (row-major), and each square's neighbours and jump ring
//! as such sets, made once a board side. With them the state counts a move's captures,
//! names its clones and finds its jumps a word at a time where scanning squares checks
//! each offset against the board's edges (most of Virus's search before).

use std::sync::OnceLock;

/// The largest board side the rules accept.
pub const MAX_SIZE: usize = 15;
/// The cells of the largest board.
pub const MAX_CELLS: usize = MAX_SIZE * MAX_SIZE;

/// The 8 neighbours, `(dr, dc)`.
pub const NEIGHBOURS: [(i8, i8); 8] = [
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
];

/// The 16 jump offsets (Chebyshev distance exactly 2), row-major.
pub const JUMPS: [(i8, i8); 16] = {
    let mut out = [(0i8, 0i8); 16];
    let mut n = 0;
    let mut dr = -2i8;
    while dr <= 2 {
        let mut dc = -2i8;
        while dc <= 2 {
            if dr == -2 || dr == 2 || dc == -2 || dc == 2 {
                out[n] = (dr, dc);
                n += 1;
            }
            dc += 1;
        }
        dr += 1;
    }
    out
};

/// The words of a set.
const WORDS: usize = MAX_CELLS.div_ceil(64);

/// A set of squares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Squares([u64; WORDS]);

impl Squares {
    /// Adds `sq`.
    #[inline]
    pub fn insert(&mut self, sq: usize) {
        self.0[sq / 64] |= 1 << (sq % 64);
    }

    /// Removes `sq`.
    #[inline]
    pub fn remove(&mut self, sq: usize) {
        self.0[sq / 64] &= !(1 << (sq % 64));
    }

    /// The squares in both.
    #[inline]
    pub fn and(self, other: Squares) -> Squares {
        Squares(std::array::from_fn(|k| self.0[k] & other.0[k]))
    }

    /// The squares in either.
    #[inline]
    pub fn or(self, other: Squares) -> Squares {
        Squares(std::array::from_fn(|k| self.0[k] | other.0[k]))
    }

    /// Whether the two share a square.
    #[inline]
    pub fn meets(self, other: Squares) -> bool {
        self.and(other).0.iter().any(|&w| w != 0)
    }

    /// How many squares.
    #[inline]
    pub fn len(self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    /// Whether there are none.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// Word `k` (squares `64k..64k + 64`).
    #[inline]
    pub fn word(self, k: usize) -> u64 {
        self.0[k]
    }

    /// The squares, ascending.
    #[inline]
    pub fn iter(self) -> impl Iterator<Item = usize> {
        (0..WORDS).flat_map(move |k| {
            let mut bits = self.0[k];
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let sq = 64 * k + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    sq
                })
            })
        })
    }
}

/// A board side's squares' neighbours and jumps.
#[derive(Debug)]
pub struct Geometry {
    /// Each square's 8 neighbours on the board.
    pub adjacent: Vec<Squares>,
    /// Each square's squares exactly two away (its jumps' targets) on the board.
    pub ring: Vec<Squares>,
    /// Each square's squares within two (the two above together).
    pub reach: Vec<Squares>,
    /// The target of jump `k` from square `s` is `s + step[k]` (where on the board).
    pub step: [isize; 16],
    /// Each square's row.
    row: Vec<u8>,
    /// The index in [`JUMPS`] of the jump `(dr, dc)` at `5·(dr + 2) + dc + 2`.
    jump_of: [u8; 25],
    side: isize,
}

impl Geometry {
    /// The board of side `size`'s (4 to [`MAX_SIZE`]), made on first use.
    pub fn of(size: usize) -> &'static Geometry {
        static MADE: [OnceLock<Geometry>; MAX_SIZE + 1] = [const { OnceLock::new() }; MAX_SIZE + 1];
        MADE[size].get_or_init(|| Geometry::new(size))
    }

    fn new(n: usize) -> Geometry {
        let within = |sq: usize, offsets: &[(i8, i8)]| {
            let (r, c) = ((sq / n) as isize, (sq % n) as isize);
            let mut set = Squares::default();
            for &(dr, dc) in offsets {
                let (r, c) = (r + dr as isize, c + dc as isize);
                if (0..n as isize).contains(&r) && (0..n as isize).contains(&c) {
                    set.insert((r * n as isize + c) as usize);
                }
            }
            set
        };
        let adjacent: Vec<_> = (0..n * n).map(|sq| within(sq, &NEIGHBOURS)).collect();
        let ring: Vec<_> = (0..n * n).map(|sq| within(sq, &JUMPS)).collect();
        let reach = adjacent.iter().zip(&ring).map(|(a, r)| a.or(*r)).collect();
        let step = JUMPS.map(|(dr, dc)| dr as isize * n as isize + dc as isize);
        let mut jump_of = [0; 25];
        for (k, &(dr, dc)) in JUMPS.iter().enumerate() {
            jump_of[(5 * (dr + 2) + dc + 2) as usize] = k as u8;
        }
        Geometry {
            adjacent,
            ring,
            reach,
            step,
            row: (0..n * n).map(|sq| (sq / n) as u8).collect(),
            jump_of,
            side: n as isize,
        }
    }

    /// The index in [`JUMPS`] of the jump from `from` to `to` (two apart).
    #[inline]
    pub fn jump(&self, from: usize, to: usize) -> usize {
        let dr = self.row[to] as isize - self.row[from] as isize;
        let dc = to as isize - from as isize - dr * self.side;
        self.jump_of[(5 * (dr + 2) + dc + 2) as usize] as usize
    }

    /// The target of jump `k` from `from` (which the caller knows is on the board).
    #[inline]
    pub fn target(&self, from: usize, k: usize) -> usize {
        (from as isize + self.step[k]) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_lists_its_squares_in_order_across_words() {
        let mut s = Squares::default();
        for sq in [224, 0, 63, 64, 130] {
            s.insert(sq);
        }
        s.remove(130);
        assert_eq!(s.iter().collect::<Vec<_>>(), [0, 63, 64, 224]);
        assert_eq!(s.len(), 4);
    }

    #[test]
    fn jumps_are_named_by_their_targets_on_every_side() {
        for n in 4..=MAX_SIZE {
            let g = Geometry::of(n);
            for from in 0..n * n {
                assert_eq!(
                    g.adjacent[from].len() + g.ring[from].len(),
                    g.reach[from].len()
                );
                let targets: Vec<usize> = g.ring[from].iter().collect();
                let ks: Vec<usize> = targets.iter().map(|&t| g.jump(from, t)).collect();
                assert!(
                    ks.windows(2).all(|w| w[0] < w[1]),
                    "side {n}, square {from}"
                );
                for (&t, &k) in targets.iter().zip(&ks) {
                    assert_eq!(g.target(from, k), t);
                }
            }
        }
    }
}
