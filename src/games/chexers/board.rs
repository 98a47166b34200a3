//! The Chexers state and rules, as the 2019 course referee enforces them.
//!
//! 37 hexes in axial `(q, r)` with `|q|, |r|, |q + r| ≤ 3`, kept on a 7×7 grid (cell
//! `(r + 3)·7 + (q + 3)`; 12 grid cells are off the board). Red starts on `q = −3`,
//! Green on `r = −3`, Blue on `s = −q − r = −3`, and each exits from the opposite edge
//! (`q = 3`, `r = 3`, `s = 3`). Turns go Red, Green, Blue.
//!
//! - **MOVE** to an empty adjacent hex; **JUMP** over an adjacent piece of any colour to
//!   the empty hex beyond, converting it if it is an opponent's; **EXIT** from a hex of
//!   the player's exit edge; **PASS** only when nothing else is possible (a player with
//!   no pieces passes).
//! - The first to 4 exits wins. A draw when the same snapshot (the board's colours and
//!   whose turn it is; exits not counted; the start position counted once) occurs for
//!   the 4th time, or after 768 turns in all (passes included); a 4th exit made on that
//!   last turn still scores a draw.
//!
//! Snapshots before an exit can never recur (pieces never come back), so the repetition
//! history is kept only since the last exit.

use crate::games::{Action, GameError, Outcome};
use crate::rng::splitmix64;

/// The side of the grid the hexagonal board is stored in.
pub const GRID: usize = 7;
/// The grid's cells (37 of them are on the board).
pub const CELLS: usize = GRID * GRID;
/// Turns after which the game is a draw.
pub const MAX_TURNS: u16 = 768;
/// What [`Chexers::moves_to_win`] charges for a piece that must be captured back before
/// it can exit: more than the longest run (6 steps and the exit).
pub const LOST_PIECE_MOVES: i32 = 12;
/// Pieces a player must exit to win.
pub const EXITS_TO_WIN: u8 = 4;
/// Axial directions `(dq, dr)`.
pub const DIRS: [(i8, i8); 6] = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)];
/// Actions per grid cell: 6 moves, 6 jumps, 1 exit.
pub const PER_CELL: usize = 13;
/// The pass action's index.
pub const PASS: usize = CELLS * PER_CELL;
/// The number of actions.
pub const NUM_ACTIONS: usize = PASS + 1;

/// The axial coordinates `(q, r)` of grid cell `cell`.
pub fn coords(cell: usize) -> (i32, i32) {
    ((cell % GRID) as i32 - 3, (cell / GRID) as i32 - 3)
}

/// Whether `(q, r)` is on the board.
pub fn on_board(q: i32, r: i32) -> bool {
    q.abs() <= 3 && r.abs() <= 3 && (q + r).abs() <= 3
}

/// The grid cell of `(q, r)`, if it is on the board.
pub fn cell_of(q: i32, r: i32) -> Option<usize> {
    on_board(q, r).then(|| ((r + 3) * GRID as i32 + q + 3) as usize)
}

/// The hex `k` steps from `cell` in direction `dir`, if on the board.
pub fn step(cell: usize, dir: usize, k: i32) -> Option<usize> {
    let (q, r) = coords(cell);
    let (dq, dr) = DIRS[dir];
    cell_of(q + k * dq as i32, r + k * dr as i32)
}

/// Whether `cell` is on `player`'s exit edge.
pub fn is_exit(player: usize, cell: usize) -> bool {
    let (q, r) = coords(cell);
    on_board(q, r) && [q, r, -q - r][player] == 3
}

/// How many steps `cell` is from `player`'s exit edge (0 on it).
pub fn exit_distance(player: usize, cell: usize) -> i32 {
    let (q, r) = coords(cell);
    3 - [q, r, -q - r][player]
}

/// A Chexers move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    /// A piece steps to the adjacent cell in direction `dir`.
    Step {
        /// The piece's cell.
        cell: usize,
        /// The direction, 0-5.
        dir: usize,
    },
    /// A piece jumps over the adjacent piece in direction `dir`.
    Jump {
        /// The piece's cell.
        cell: usize,
        /// The direction, 0-5.
        dir: usize,
    },
    /// A piece on its exit edge leaves the board.
    Exit {
        /// The piece's cell.
        cell: usize,
    },
    /// No move (only when the mover has none).
    Pass,
}

impl Move {
    /// The move's action index.
    pub fn index(self) -> Action {
        (match self {
            Move::Step { cell, dir } => cell * PER_CELL + dir,
            Move::Jump { cell, dir } => cell * PER_CELL + 6 + dir,
            Move::Exit { cell } => cell * PER_CELL + 12,
            Move::Pass => PASS,
        }) as Action
    }

    /// The move of action `action`, if there is one.
    pub fn from_index(action: Action) -> Option<Move> {
        let a = action as usize;
        let (cell, k) = (a / PER_CELL, a % PER_CELL);
        match a {
            PASS => Some(Move::Pass),
            _ if a > PASS => None,
            _ if k < 6 => Some(Move::Step { cell, dir: k }),
            _ if k < 12 => Some(Move::Jump { cell, dir: k - 6 }),
            _ => Some(Move::Exit { cell }),
        }
    }
}

fn key(cell: usize, code: u8) -> u64 {
    if code == 0 {
        0
    } else {
        splitmix64(0xC4E7 << 16 | (cell as u64) << 2 | code as u64)
    }
}

fn turn_key(player: u8) -> u64 {
    splitmix64(0x7A11 + player as u64)
}

/// A Chexers position. Equality and the hash cover the board, the mover, the exits and
/// the turn count; the repetition history is carried along but, like a chess FEN, is
/// not part of the notation.
#[derive(Debug, Clone)]
pub struct Chexers {
    /// 0 empty (or off the board), `1 + p` a piece of player `p`.
    pub(super) cells: [u8; CELLS],
    pub(super) to_move: u8,
    pub(super) exits: [u8; 3],
    pub(super) turns: u16,
    /// Hash of the snapshot: the board's colours and the mover.
    pub(super) snapshot: u64,
    /// Snapshots since the last exit, the current one included.
    pub(super) history: Vec<u64>,
    /// How often the current snapshot has occurred.
    pub(super) reps: u8,
}

impl PartialEq for Chexers {
    fn eq(&self, o: &Self) -> bool {
        self.cells == o.cells
            && self.to_move == o.to_move
            && self.exits == o.exits
            && self.turns == o.turns
    }
}

impl Default for Chexers {
    fn default() -> Self {
        Self::new()
    }
}

impl Chexers {
    /// The start position, Red to move.
    pub fn new() -> Chexers {
        let mut cells = [0u8; CELLS];
        for i in 0..4 {
            let place = |q: i32, r: i32| cell_of(q, r).expect("start hexes are on the board");
            cells[place(-3, i)] = 1;
            cells[place(i, -3)] = 2;
            cells[place(3 - i, i)] = 3;
        }
        Chexers::from_parts(cells, 0, [0; 3], 0)
    }

    pub(super) fn from_parts(
        cells: [u8; CELLS],
        to_move: usize,
        exits: [u8; 3],
        turns: u16,
    ) -> Chexers {
        let mut s = Chexers {
            cells,
            to_move: to_move as u8,
            exits,
            turns,
            snapshot: turn_key(to_move as u8),
            history: Vec::new(),
            reps: 1,
        };
        for (c, &code) in cells.iter().enumerate() {
            s.snapshot ^= key(c, code);
        }
        s.history.push(s.snapshot);
        s
    }

    /// Cell `cell`'s code: empty or a player's piece.
    pub fn cell(&self, cell: usize) -> u8 {
        self.cells[cell]
    }

    /// The seat to move (0: Red, 1: Green, 2: Blue).
    pub fn to_move(&self) -> usize {
        self.to_move as usize
    }

    /// The pieces `player` has exited.
    pub fn exits(&self, player: usize) -> u8 {
        self.exits[player]
    }

    /// Turns played.
    pub fn turns(&self) -> u16 {
        self.turns
    }

    /// How often the current position has occurred since the last exit.
    pub fn repetitions(&self) -> u8 {
        self.reps
    }

    /// The position's Zobrist hash.
    pub fn hash(&self) -> u64 {
        self.snapshot
            ^ splitmix64(
                0xE817
                    ^ (self.turns as u64) << 24
                    ^ (self.exits[0] as u64) << 16
                    ^ (self.exits[1] as u64) << 8
                    ^ self.exits[2] as u64,
            )
    }

    /// The pieces of `player` as cells, ascending.
    pub fn pieces(&self, player: usize) -> impl Iterator<Item = usize> + '_ {
        let code = player as u8 + 1;
        (0..CELLS).filter(move |&c| self.cells[c] == code)
    }

    /// How many of its own moves `player` is from winning, racing alone: for each exit
    /// still missing, its closest piece's steps to the exit edge plus the EXIT itself, and
    /// [`LOST_PIECE_MOVES`] for each piece it would have to win back by a capture first.
    /// 0 once it has won; 28 for every seat at the start.
    pub fn moves_to_win(&self, player: usize) -> i32 {
        let missing = (EXITS_TO_WIN - self.exits[player].min(EXITS_TO_WIN)) as usize;
        let mut runs: Vec<i32> = self
            .pieces(player)
            .map(|c| exit_distance(player, c) + 1)
            .collect();
        runs.sort_unstable();
        let short = missing.saturating_sub(runs.len()) as i32;
        runs.iter().take(missing).sum::<i32>() + short * LOST_PIECE_MOVES
    }

    /// The result, once the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        if let Some(p) = (0..3).find(|&p| self.exits[p] >= EXITS_TO_WIN) {
            return Some(if self.turns >= MAX_TURNS {
                Outcome::draw()
            } else {
                Outcome::win(p, 3)
            });
        }
        (self.turns >= MAX_TURNS || self.reps >= 4).then(Outcome::draw)
    }

    /// Calls `f` with every legal action, ascending.
    pub fn for_each_legal(&self, mut f: impl FnMut(Action)) {
        if self.outcome().is_some() {
            return;
        }
        let me = self.to_move();
        let mut any = false;
        for cell in self.pieces(me) {
            for dir in 0..6 {
                if let Some(t) = step(cell, dir, 1)
                    && self.cells[t] == 0
                {
                    any = true;
                    f(Move::Step { cell, dir }.index());
                }
            }
            for dir in 0..6 {
                if let (Some(over), Some(t)) = (step(cell, dir, 1), step(cell, dir, 2))
                    && self.cells[over] != 0
                    && self.cells[t] == 0
                {
                    any = true;
                    f(Move::Jump { cell, dir }.index());
                }
            }
            if is_exit(me, cell) {
                any = true;
                f(Move::Exit { cell }.index());
            }
        }
        if !any {
            f(Move::Pass.index());
        }
    }

    /// Whether `action` is legal here.
    pub fn is_legal(&self, action: Action) -> bool {
        if self.outcome().is_some() {
            return false;
        }
        let mine = self.to_move + 1;
        match Move::from_index(action) {
            Some(Move::Step { cell, dir }) => {
                self.cells[cell] == mine && step(cell, dir, 1).is_some_and(|t| self.cells[t] == 0)
            }
            Some(Move::Jump { cell, dir }) => {
                self.cells[cell] == mine
                    && step(cell, dir, 1).is_some_and(|o| self.cells[o] != 0)
                    && step(cell, dir, 2).is_some_and(|t| self.cells[t] == 0)
            }
            Some(Move::Exit { cell }) => self.cells[cell] == mine && is_exit(self.to_move(), cell),
            Some(Move::Pass) => {
                let mut any = false;
                self.for_each_legal(|a| any |= a as usize != PASS);
                !any
            }
            None => false,
        }
    }

    fn set(&mut self, cell: usize, code: u8) {
        self.snapshot ^= key(cell, self.cells[cell]) ^ key(cell, code);
        self.cells[cell] = code;
    }

    /// Plays `action`, which must be legal (search calls it after generating the moves).
    pub fn apply_unchecked(&mut self, action: Action) {
        let mine = self.to_move + 1;
        match Move::from_index(action) {
            Some(Move::Step { cell, dir }) => {
                self.set(cell, 0);
                self.set(step(cell, dir, 1).expect("legal step"), mine);
            }
            Some(Move::Jump { cell, dir }) => {
                let over = step(cell, dir, 1).expect("legal jump");
                self.set(cell, 0);
                self.set(step(cell, dir, 2).expect("legal jump"), mine);
                if self.cells[over] != mine {
                    self.set(over, mine);
                }
            }
            Some(Move::Exit { cell }) => {
                self.set(cell, 0);
                self.exits[self.to_move()] += 1;
                self.history.clear();
            }
            Some(Move::Pass) => {}
            None => unreachable!("apply_unchecked given action {action}"),
        }
        self.snapshot ^= turn_key(self.to_move);
        self.to_move = (self.to_move + 1) % 3;
        self.snapshot ^= turn_key(self.to_move);
        self.turns += 1;
        let snap = self.snapshot;
        self.reps = 1 + self.history.iter().filter(|&&h| h == snap).count() as u8;
        self.history.push(snap);
    }

    /// Plays `action`; an illegal one is refused and changes nothing.
    pub fn apply(&mut self, action: Action) -> Result<(), GameError> {
        if self.outcome().is_some() {
            return Err(GameError::GameOver);
        }
        if !self.is_legal(action) {
            return Err(GameError::IllegalAction(action));
        }
        self.apply_unchecked(action);
        Ok(())
    }
}
