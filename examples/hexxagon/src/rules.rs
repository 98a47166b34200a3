//! The position and its rules: moves, captures, the end and the score.

use crate::board::{GRID, TABLES, playable};

/// What stands on a grid cell.
pub const EMPTY: u8 = 0;
/// A cell no piece may stand on: blocked, or off the hexagon.
pub const WALL: u8 = 3;

/// The piece code of `player` (0: Ruby, 1: Pearl).
pub fn piece(player: usize) -> u8 {
    player as u8 + 1
}

/// Half-moves after which the game ends and is scored as it stands.
pub const MAX_PLIES: u32 = 150;

/// Action planes: clones by destination, then a plane per jump offset by origin.
pub const PLANES: usize = 13;

/// A move, decoded from its action `plane · 81 + cell`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    /// A new piece on `to`, beside one of the mover's.
    Clone {
        /// Where the piece appears.
        to: usize,
    },
    /// The piece on `from` jumps [`crate::board::JUMPS`]`[jump]` away.
    Jump {
        /// Where it leaves.
        from: usize,
        /// Which of the twelve jumps.
        jump: usize,
    },
}

impl Move {
    /// The move of action `a`, if it names one.
    pub fn from_action(a: usize) -> Option<Move> {
        let (plane, cell) = (a / GRID, a % GRID);
        match plane {
            0 => Some(Move::Clone { to: cell }),
            1..PLANES => Some(Move::Jump {
                from: cell,
                jump: plane - 1,
            }),
            _ => None,
        }
    }

    /// Its action.
    pub fn action(self) -> usize {
        match self {
            Move::Clone { to } => to,
            Move::Jump { from, jump } => (1 + jump) * GRID + from,
        }
    }

    /// Where the moving piece ends.
    pub fn to(self) -> Option<usize> {
        match self {
            Move::Clone { to } => Some(to),
            Move::Jump { from, jump } => TABLES.jump[from][jump],
        }
    }
}

/// A Hexxagon position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hexxagon {
    pub(crate) cells: [u8; GRID],
    pub(crate) to_move: u8,
    pub(crate) ply: u32,
    /// The mover has no move (the game is over).
    pub(crate) stuck: bool,
}

impl Default for Hexxagon {
    fn default() -> Self {
        Hexxagon::new()
    }
}

impl Hexxagon {
    /// The start: Ruby on the corners of directions 0, 2 and 4, Pearl on the others;
    /// Ruby moves first.
    pub fn new() -> Hexxagon {
        let mut cells = [WALL; GRID];
        for (c, v) in cells.iter_mut().enumerate() {
            if playable(c) {
                *v = EMPTY;
            }
        }
        for (k, &(dq, dr)) in crate::board::DIRS.iter().enumerate() {
            let corner = crate::board::cell(4 * dq, 4 * dr).expect("a corner");
            cells[corner] = piece(k % 2);
        }
        Hexxagon::from_parts(cells, 0, 0)
    }

    /// A position from its cells, mover and ply (the rest is worked out).
    pub(crate) fn from_parts(cells: [u8; GRID], to_move: u8, ply: u32) -> Hexxagon {
        let mut s = Hexxagon {
            cells,
            to_move,
            ply,
            stuck: false,
        };
        s.stuck = !s.can_move();
        s
    }

    /// `player`'s pieces on the board.
    pub fn pieces(&self, player: usize) -> u32 {
        self.cells.iter().filter(|&&v| v == piece(player)).count() as u32
    }

    /// The empty cells.
    pub fn empties(&self) -> u32 {
        self.cells.iter().filter(|&&v| v == EMPTY).count() as u32
    }

    /// Whether the game is over: the mover cannot move, or the ply limit is reached.
    pub fn over(&self) -> bool {
        self.stuck || self.ply >= MAX_PLIES
    }

    /// The final count: the pieces, and, when the mover could not move, the empty cells
    /// go to the other player.
    pub fn final_count(&self) -> [u32; 2] {
        let mut count = [self.pieces(0), self.pieces(1)];
        if self.stuck && self.ply < MAX_PLIES {
            count[1 - self.to_move as usize] += self.empties();
        }
        count
    }

    fn mine(&self, c: usize) -> bool {
        self.cells[c] == piece(self.to_move as usize)
    }

    /// Whether move `m` is legal (ignoring whether the game is over).
    pub fn legal(&self, m: Move) -> bool {
        match m {
            Move::Clone { to } => {
                self.cells[to] == EMPTY && TABLES.near[to].iter().any(|&n| self.mine(n))
            }
            Move::Jump { from, .. } => {
                self.mine(from) && m.to().is_some_and(|to| self.cells[to] == EMPTY)
            }
        }
    }

    /// Fills `out` with the legal moves' actions, ascending.
    pub fn moves(&self, out: &mut Vec<u16>) {
        out.clear();
        if self.over() {
            return;
        }
        for to in 0..GRID {
            if self.legal(Move::Clone { to }) {
                out.push(to as u16);
            }
        }
        for jump in 0..12 {
            for from in 0..GRID {
                let m = Move::Jump { from, jump };
                if self.legal(m) {
                    out.push(m.action() as u16);
                }
            }
        }
    }

    fn can_move(&self) -> bool {
        (0..GRID).any(|c| {
            self.cells[c] == EMPTY
                && (TABLES.near[c].iter())
                    .chain(TABLES.jump[c].iter().flatten())
                    .any(|&n| self.mine(n))
        })
    }

    /// Plays a legal move: the piece lands, the opponent's neighbours of its cell turn.
    pub(crate) fn play(&mut self, m: Move) {
        let (me, them) = (
            piece(self.to_move as usize),
            piece(1 - self.to_move as usize),
        );
        let to = m.to().expect("a legal move lands");
        if let Move::Jump { from, .. } = m {
            self.cells[from] = EMPTY;
        }
        self.cells[to] = me;
        for &n in &TABLES.near[to] {
            if self.cells[n] == them {
                self.cells[n] = me;
            }
        }
        self.to_move ^= 1;
        self.ply += 1;
        self.stuck = !self.can_move();
    }
}
