//! The Infexion state and its rules: legal moves, apply, end of game.
//!
//! The state is `Copy` and 64 bytes: 49 cell bytes, two power totals, the ply count and
//! an incrementally kept Zobrist hash, so search copies it instead of undoing moves and
//! nothing here allocates.

use super::geometry::{CELLS, DIRS, MAX_POWER, MAX_TOTAL_POWER, NUM_ACTIONS, RAYS, SPAWN_ACTIONS};
use crate::games::{Action, GameError, Outcome};

/// The game ends after this many actions at the latest.
pub const MAX_TURNS: u32 = 343;
/// The power lead that wins when the game ends.
pub const WIN_POWER_DIFF: i32 = 2;

/// Red, who moves first.
pub const RED: usize = 0;
/// Blue.
pub const BLUE: usize = 1;

/// A decoded SPAWN or SPREAD.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    /// SPAWN a token on an empty cell (index `r*7+q`).
    /// A new token of power 1 on an empty cell.
    Spawn {
        /// The empty cell.
        cell: usize,
    },
    /// SPREAD the stack on `cell` in direction `dir` (index into [`DIRS`]).
    /// A stack spread along direction `dir`, infecting what it lands on.
    Spread {
        /// The stack's cell.
        cell: usize,
        /// The direction, 0-5.
        dir: usize,
    },
}

impl Move {
    /// Action index: SPAWN cells are `0..49`, SPREAD is `49 + cell*6 + dir`.
    pub fn index(self) -> Action {
        match self {
            Move::Spawn { cell } => cell as Action,
            Move::Spread { cell, dir } => (SPAWN_ACTIONS + cell * DIRS.len() + dir) as Action,
        }
    }

    /// The move an action index stands for, if it is inside the action space.
    pub fn from_index(action: Action) -> Option<Move> {
        let a = action as usize;
        if a < SPAWN_ACTIONS {
            Some(Move::Spawn { cell: a })
        } else if a < NUM_ACTIONS {
            let s = a - SPAWN_ACTIONS;
            Some(Move::Spread {
                cell: s / DIRS.len(),
                dir: s % DIRS.len(),
            })
        } else {
            None
        }
    }
}

/// A cell: 0 when empty, else `owner << 3 | power` with power in 1..=6.
#[inline]
pub fn cell_code(owner: usize, power: u8) -> u8 {
    ((owner as u8) << 3) | power
}
/// The owner of a cell's code (`RED` or `BLUE`).
#[inline]
pub fn cell_owner(code: u8) -> usize {
    (code >> 3) as usize
}
/// The power of a cell's code (0: empty).
#[inline]
pub fn cell_power(code: u8) -> u8 {
    code & 7
}

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

/// Zobrist keys: one per (cell, cell code) and one per ply count.
struct Keys {
    cell: [[u64; 16]; CELLS],
    ply: [u64; MAX_TURNS as usize + 1],
}

const KEYS: Keys = {
    let mut keys = Keys {
        cell: [[0; 16]; CELLS],
        ply: [0; MAX_TURNS as usize + 1],
    };
    let mut seed = 0x1AFE_C710_u64;
    let mut c = 0;
    while c < CELLS {
        let mut k = 0;
        while k < 16 {
            let (s, v) = splitmix(seed);
            seed = s;
            keys.cell[c][k] = v;
            k += 1;
        }
        c += 1;
    }
    let mut t = 0;
    while t <= MAX_TURNS as usize {
        let (s, v) = splitmix(seed);
        seed = s;
        keys.ply[t] = v;
        t += 1;
    }
    keys
};

#[inline]
fn cell_key(cell: usize, code: u8) -> u64 {
    if code == 0 {
        0
    } else {
        KEYS.cell[cell][code as usize]
    }
}

/// An Infexion position. Red (player 0) moves on even plies, Blue on odd ones.
///
/// # How the game ends (as the course referee decides it)
///
/// The game cannot end before 2 actions have been played. From then on it ends after
/// any action that leaves either player with zero total power, or once 343 actions have
/// been played. The result is decided by total power alone: the player ahead by 2 or
/// more wins, otherwise it is a draw. One example of each case (all tested):
/// - *Too early to end*: Red `SPAWN(0,0)` at ply 0 leaves Blue with 0 power, but only
///   one action has been played, so the game goes on.
/// - *Win by elimination*: Red `SPAWN(0,0)`, Blue `SPAWN(0,1)`, Red `SPREAD(0,0,0,1)`:
///   Red 2, Blue 0 after 3 actions — Red wins with a lead of 2.
/// - *Elimination that is a draw*: Red's only stack, power 2, SPREADs through Blue's only
///   stack, power 6 (removed, the token consumed) onto an empty cell: Red 1, Blue 0 — the
///   game ends, and a lead of 1 is a draw.
/// - *No tokens left*: Red's only token SPREADs onto Blue's only stack, power 6: the stack
///   is removed and the token consumed, nobody has power — a draw.
/// - *The mover removes their own last token*: Red's 1-stack SPREADs onto Red's own
///   6-stack, Red's only other stack: both vanish, Red has 0 — the game ends, and Blue,
///   ahead by 2 or more, wins.
/// - *343 actions*: the game ends after ply 343; Red 20, Blue 18 is a Red win, Red 20,
///   Blue 19 a draw.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Board {
    pub(crate) cells: [u8; CELLS],
    pub(crate) power: [u8; 2],
    pub(crate) ply: u16,
    pub(crate) hash: u64,
}

impl Default for Board {
    fn default() -> Self {
        Board::new()
    }
}

impl Board {
    /// The empty board, Red to move.
    pub fn new() -> Board {
        Board {
            cells: [0; CELLS],
            power: [0; 2],
            ply: 0,
            hash: KEYS.ply[0],
        }
    }

    /// A board from raw cells (codes as in [`cell_code`]) and a ply count.
    /// Callers validate: codes well formed, `ply <= MAX_TURNS`.
    pub(crate) fn from_cells(cells: [u8; CELLS], ply: u16) -> Board {
        let mut b = Board {
            cells,
            power: [0; 2],
            ply,
            hash: 0,
        };
        for code in cells.iter().copied().filter(|&c| c != 0) {
            b.power[cell_owner(code)] += cell_power(code);
        }
        b.hash = b.recompute_hash();
        b
    }

    /// The hash computed from scratch (the kept one must always equal it).
    pub fn recompute_hash(&self) -> u64 {
        let mut h = KEYS.ply[self.ply as usize];
        for (c, &code) in self.cells.iter().enumerate() {
            h ^= cell_key(c, code);
        }
        h
    }

    /// Cell `cell`'s code: owner and power.
    pub fn cell(&self, cell: usize) -> u8 {
        self.cells[cell]
    }

    /// The stacks of `player` as `(cell, power)`, by ascending cell.
    pub fn stacks(&self, player: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.cells.iter().enumerate().filter_map(move |(c, &code)| {
            (code != 0 && cell_owner(code) == player).then_some((c, cell_power(code) as usize))
        })
    }

    /// Total power of `player`.
    pub fn power(&self, player: usize) -> u32 {
        self.power[player] as u32
    }

    /// Total power on the board.
    pub fn total_power(&self) -> u32 {
        self.power[0] as u32 + self.power[1] as u32
    }

    /// Plies played.
    pub fn ply(&self) -> u32 {
        self.ply as u32
    }

    /// The position's Zobrist hash (cells and ply count).
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The player to move: Red on even plies.
    pub fn to_move(&self) -> usize {
        (self.ply & 1) as usize
    }

    /// Whether the game is over (see the type's documentation).
    pub fn is_over(&self) -> bool {
        self.ply >= 2 && (self.ply as u32 >= MAX_TURNS || self.power[0] == 0 || self.power[1] == 0)
    }

    /// The result once the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        if !self.is_over() {
            return None;
        }
        let diff = self.power[RED] as i32 - self.power[BLUE] as i32;
        Some(if diff >= WIN_POWER_DIFF {
            Outcome::win(RED, 2)
        } else if diff <= -WIN_POWER_DIFF {
            Outcome::win(BLUE, 2)
        } else {
            Outcome::draw()
        })
    }

    /// Whether SPAWN is allowed at all (total power below 49).
    #[inline]
    pub fn spawn_allowed(&self) -> bool {
        self.total_power() < MAX_TOTAL_POWER
    }

    /// Calls `f` with every legal action, ascending.
    #[inline]
    pub fn for_each_legal(&self, mut f: impl FnMut(Action)) {
        if self.is_over() {
            return;
        }
        if self.spawn_allowed() {
            for (c, &code) in self.cells.iter().enumerate() {
                if code == 0 {
                    f(c as Action);
                }
            }
        }
        let me = self.to_move();
        for (c, &code) in self.cells.iter().enumerate() {
            if code != 0 && cell_owner(code) == me {
                let base = (SPAWN_ACTIONS + c * DIRS.len()) as Action;
                for d in 0..DIRS.len() as Action {
                    f(base + d);
                }
            }
        }
    }

    /// Whether `action` is legal here.
    pub fn is_legal(&self, action: Action) -> bool {
        if self.is_over() {
            return false;
        }
        match Move::from_index(action) {
            Some(Move::Spawn { cell }) => self.spawn_allowed() && self.cells[cell] == 0,
            Some(Move::Spread { cell, .. }) => {
                let code = self.cells[cell];
                code != 0 && cell_owner(code) == self.to_move()
            }
            None => false,
        }
    }

    /// Each player's total power after the legal `action`, without playing it: a SPAWN
    /// adds one to the mover's; a SPREAD moves the stack's power onto the cells it lands
    /// on, one each, taking what stands there, and a stack pushed past 6 leaves the board.
    #[inline]
    pub fn power_after(&self, action: Action) -> [u32; 2] {
        let me = self.to_move();
        // The two sums in registers: an array indexed by owner stalls its reader.
        let (mut mine, mut theirs) = (self.power[me] as u32, self.power[1 - me] as u32);
        match Move::from_index(action) {
            Some(Move::Spawn { .. }) => mine += 1,
            Some(Move::Spread { cell, dir }) => {
                let k = cell_power(self.cells[cell]) as usize;
                mine -= k as u32;
                for &target in &RAYS[cell][dir][..k] {
                    let code = self.cells[target as usize];
                    let p = cell_power(code) as u32;
                    match code {
                        0 => {}
                        _ if cell_owner(code) == me => mine -= p,
                        _ => theirs -= p,
                    }
                    if p < MAX_POWER as u32 {
                        mine += p + 1;
                    }
                }
            }
            None => unreachable!("power_after given action {action} outside the action space"),
        }
        if me == RED {
            [mine, theirs]
        } else {
            [theirs, mine]
        }
    }

    /// Plays a legal action. The caller guarantees legality (see [`Board::apply`]).
    #[inline]
    pub fn apply_unchecked(&mut self, action: Action) {
        let me = self.to_move();
        match Move::from_index(action) {
            Some(Move::Spawn { cell }) => self.set(cell, cell_code(me, 1)),
            Some(Move::Spread { cell, dir }) => {
                let k = cell_power(self.cells[cell]) as usize;
                self.set(cell, 0);
                for &target in &RAYS[cell][dir][..k] {
                    let code = self.cells[target as usize];
                    let p = cell_power(code);
                    // Pushed above 6: the stack is removed and the token consumed.
                    let new = if p == MAX_POWER {
                        0
                    } else {
                        cell_code(me, p + 1)
                    };
                    self.set(target as usize, new);
                }
            }
            None => unreachable!("apply_unchecked given action {action} outside the action space"),
        }
        self.hash ^= KEYS.ply[self.ply as usize] ^ KEYS.ply[self.ply as usize + 1];
        self.ply += 1;
    }

    /// Plays `action` if it is legal; otherwise returns an error and changes nothing.
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

    /// Replaces a cell, keeping power totals and hash in step.
    #[inline]
    fn set(&mut self, cell: usize, new: u8) {
        let old = self.cells[cell];
        if old != 0 {
            self.power[cell_owner(old)] -= cell_power(old);
        }
        if new != 0 {
            self.power[cell_owner(new)] += cell_power(new);
        }
        self.hash ^= cell_key(cell, old) ^ cell_key(cell, new);
        self.cells[cell] = new;
    }
}
