//! Infexion text notation for moves and positions.
//!
//! Moves are written as the course writes them, without spaces: `SPAWN(r,q)` and
//! `SPREAD(r,q,dr,dq)`. Parsing is case-insensitive and tolerates spaces.
//!
//! A position is written like a chess FEN: seven rows `r = 0..6` separated by `/`, each
//! listing cells `q = 0..6`, where a digit `n` stands for `n` empty cells and `r3` / `b5`
//! for a Red / Blue stack of that power; then the side to move (`r` or `b`) and the number
//! of actions played. The empty board is `7/7/7/7/7/7/7 r 0`; after `SPAWN(5,4)` it is
//! `7/7/7/7/7/4r12/7 b 1`.

use super::board::{Board, Move, cell_code, cell_owner, cell_power};
use super::geometry::{CELLS, DIRS, MAX_POWER, MAX_TOTAL_POWER, SIZE, wrap};
use crate::games::GameError;

/// `SPAWN(r,q)` or `SPREAD(r,q,dr,dq)`.
pub fn move_to_string(m: Move) -> String {
    match m {
        Move::Spawn { cell } => format!("SPAWN({},{})", cell / SIZE, cell % SIZE),
        Move::Spread { cell, dir } => {
            let (dr, dq) = DIRS[dir];
            format!("SPREAD({},{},{},{})", cell / SIZE, cell % SIZE, dr, dq)
        }
    }
}

/// Parses `SPAWN(r,q)` or `SPREAD(r,q,dr,dq)`.
pub fn parse_move(text: &str) -> Result<Move, GameError> {
    let err = |why: &str| GameError::parse(text, why);
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let upper = compact.to_ascii_uppercase();
    let (kind, rest) = upper
        .split_once('(')
        .ok_or_else(|| err("expected SPAWN(r,q) or SPREAD(r,q,dr,dq)"))?;
    let args = rest
        .strip_suffix(')')
        .ok_or_else(|| err("missing closing ')'"))?;
    let nums: Vec<i32> = args
        .split(',')
        .map(|a| a.parse::<i32>())
        .collect::<Result<_, _>>()
        .map_err(|_| err("arguments must be integers"))?;
    let coord = |v: i32| (0..SIZE as i32).contains(&v);
    match (kind, nums.as_slice()) {
        ("SPAWN", &[r, q]) | ("SPREAD", &[r, q, _, _]) if !coord(r) || !coord(q) => {
            Err(err("coordinates must be between 0 and 6"))
        }
        ("SPAWN", &[r, q]) => Ok(Move::Spawn { cell: wrap(r, q) }),
        ("SPREAD", &[r, q, dr, dq]) => {
            let dir = DIRS
                .iter()
                .position(|&(a, b)| a as i32 == dr && b as i32 == dq)
                .ok_or_else(|| {
                    err("direction must be one of (0,1) (-1,1) (-1,0) (0,-1) (1,-1) (1,0)")
                })?;
            Ok(Move::Spread {
                cell: wrap(r, q),
                dir,
            })
        }
        ("SPAWN", _) => Err(err("SPAWN takes two arguments: SPAWN(r,q)")),
        ("SPREAD", _) => Err(err("SPREAD takes four arguments: SPREAD(r,q,dr,dq)")),
        _ => Err(err("expected SPAWN(r,q) or SPREAD(r,q,dr,dq)")),
    }
}

/// The position in the notation described above.
pub fn to_notation(board: &Board) -> String {
    let mut out = String::with_capacity(48);
    for r in 0..SIZE {
        if r > 0 {
            out.push('/');
        }
        let mut empty = 0;
        for q in 0..SIZE {
            let code = board.cell(r * SIZE + q);
            if code == 0 {
                empty += 1;
                continue;
            }
            if empty > 0 {
                out.push(char::from(b'0' + empty));
                empty = 0;
            }
            out.push(if cell_owner(code) == 0 { 'r' } else { 'b' });
            out.push(char::from(b'0' + cell_power(code)));
        }
        if empty > 0 {
            out.push(char::from(b'0' + empty));
        }
    }
    let side = if board.to_move() == 0 { 'r' } else { 'b' };
    format!("{out} {side} {}", board.ply())
}

/// Parses a position; every inconsistency is reported, never half-accepted.
pub fn from_notation(text: &str) -> Result<Board, GameError> {
    let err = |why: String| GameError::parse(text, why);
    let fields: Vec<&str> = text.split_whitespace().collect();
    let [cells_text, side, ply] = fields.as_slice() else {
        return Err(err(format!(
            "expected 3 fields (cells, side to move, actions played), found {}",
            fields.len()
        )));
    };
    let rows: Vec<&str> = cells_text.split('/').collect();
    if rows.len() != SIZE {
        return Err(err(format!(
            "expected 7 rows separated by '/', found {}",
            rows.len()
        )));
    }
    let mut cells = [0u8; CELLS];
    for (r, row) in rows.iter().enumerate() {
        let mut q = 0;
        let mut chars = row.chars();
        while let Some(ch) = chars.next() {
            match ch {
                '1'..='7' => q += ch as usize - '0' as usize,
                'r' | 'b' => {
                    let power = chars
                        .next()
                        .and_then(|p| p.to_digit(10))
                        .filter(|&p| (1..=MAX_POWER as u32).contains(&p))
                        .ok_or_else(|| {
                            err(format!("row {r}: '{ch}' must be followed by a power 1-6"))
                        })?;
                    if q < SIZE {
                        cells[r * SIZE + q] = cell_code(usize::from(ch == 'b'), power as u8);
                    }
                    q += 1;
                }
                _ => return Err(err(format!("row {r}: unexpected character '{ch}'"))),
            }
            if q > SIZE {
                return Err(err(format!("row {r} has more than 7 cells")));
            }
        }
        if q != SIZE {
            return Err(err(format!("row {r} has {q} cells, expected 7")));
        }
    }
    let ply: u16 = ply
        .parse()
        .ok()
        .filter(|&p| p as u32 <= super::board::MAX_TURNS)
        .ok_or_else(|| {
            err(format!(
                "actions played must be a number 0-343, found '{ply}'"
            ))
        })?;
    let board = Board::from_cells(cells, ply);
    let expected = if ply.is_multiple_of(2) { "r" } else { "b" };
    if *side != expected {
        return Err(err(format!(
            "side to move must be '{expected}' after {ply} actions (Red moves first), found '{side}'"
        )));
    }
    if board.total_power() > MAX_TOTAL_POWER {
        return Err(err(format!(
            "total power {} exceeds {MAX_TOTAL_POWER}",
            board.total_power()
        )));
    }
    Ok(board)
}

/// The board drawn as a hex grid: row `r` is shifted right by half a cell per row, so
/// the six neighbours of a cell sit around it; column numbers run along the top (for
/// row 0) and the bottom (for row 6). Stacks show owner and power (`R3`, `B5`);
/// `paint(player, text)` may colour them.
pub fn render(board: &Board, paint: &dyn Fn(usize, &str) -> String) -> String {
    let columns = |indent: usize| {
        let mut line = format!("{}q=", " ".repeat(indent));
        for q in 0..SIZE {
            line.push_str(&format!("{q:<4}"));
        }
        line.trim_end().to_string() + "\n"
    };
    let mut out = columns(5);
    for r in 0..SIZE {
        out.push_str(&format!("r={r} {}", " ".repeat(2 * r + 2)));
        for q in 0..SIZE {
            let code = board.cell(r * SIZE + q);
            if code == 0 {
                out.push_str(" .  ");
            } else {
                let owner = cell_owner(code);
                let text = format!("{}{}", if owner == 0 { 'R' } else { 'B' }, cell_power(code));
                out.push_str(&format!("{}  ", paint(owner, &text)));
            }
        }
        out.truncate(out.trim_end().len());
        out.push_str(&format!("   r={r}\n"));
    }
    out.push_str(&columns(5 + 2 * (SIZE - 1)));
    out.push_str(&format!(
        "ply {}  Red {}  Blue {}  {} to move   (the board wraps around: row 6 touches row 0, \
         column 6 touches column 0)\n",
        board.ply(),
        paint(0, &board.power(0).to_string()),
        paint(1, &board.power(1).to_string()),
        if board.to_move() == 0 { "Red" } else { "Blue" }
    ));
    out
}
