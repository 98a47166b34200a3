//! Text: cell names (`a5` … `i5`: the column's letter `a + q + 4`, the row's number
//! `5 − r`, 1 at the bottom), moves (a clone by its cell, `e3`; a jump by both, `e1e3`)
//! and positions (rows top to bottom, `r` Ruby, `p` Pearl, `-` blocked, a digit for a
//! run of empty cells, then the mover and the ply: `r3p/…/p3r r 0`).

use contagion::games::GameError;

use crate::board::{GRID, TABLES, cell, coords, on_hexagon, playable};
use crate::rules::{EMPTY, Hexxagon, MAX_PLIES, Move, WALL, piece};

/// A cell's name.
pub fn cell_name(c: usize) -> String {
    let (q, r) = coords(c);
    format!("{}{}", (b'a' + (q + 4) as u8) as char, 5 - r)
}

/// The playable cell named `text`.
fn parse_cell(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    if b.len() != 2 || !(b'a'..=b'i').contains(&b[0]) || !(b'1'..=b'9').contains(&b[1]) {
        return None;
    }
    let (q, r) = ((b[0] - b'a') as i32 - 4, 5 - (b[1] - b'0') as i32);
    cell(q, r).filter(|&c| playable(c))
}

/// A move's text.
pub fn move_text(m: Move) -> String {
    match m {
        Move::Clone { to } => cell_name(to),
        Move::Jump { from, .. } => {
            let to = m.to().map_or_else(|| "??".into(), cell_name);
            format!("{}{to}", cell_name(from))
        }
    }
}

/// The move `text` names (it may still be illegal here).
pub fn parse_move(text: &str) -> Result<Move, GameError> {
    let t = text.trim();
    let bad = |why: &str| GameError::parse(text, why);
    if !t.is_ascii() {
        return Err(bad("a move is a cell (e3) or two (e1e3)"));
    }
    match t.len() {
        2 => parse_cell(t)
            .map(|to| Move::Clone { to })
            .ok_or_else(|| bad("not a cell of the board (a1 to i9, on the hexagon, not blocked)")),
        4 => {
            let (from, to) = (parse_cell(&t[..2]), parse_cell(&t[2..]));
            let (Some(from), Some(to)) = (from, to) else {
                return Err(bad("not two cells of the board"));
            };
            (0..12)
                .find(|&k| TABLES.jump[from][k] == Some(to))
                .map(|jump| Move::Jump { from, jump })
                .ok_or_else(|| bad("a jump goes exactly two cells away"))
        }
        _ => Err(bad("a move is a cell (e3) or two (e1e3)")),
    }
}

/// The position's text.
pub fn to_text(s: &Hexxagon) -> String {
    let mut rows = Vec::new();
    for r in -4..=4 {
        let (mut row, mut run) = (String::new(), 0);
        for q in (-4..=4).filter(|&q| on_hexagon(q, r)) {
            let c = cell(q, r).expect("on the hexagon");
            let ch = match s.cells[c] {
                EMPTY => {
                    run += 1;
                    continue;
                }
                WALL => '-',
                v if v == piece(0) => 'r',
                _ => 'p',
            };
            if run > 0 {
                row.push_str(&run.to_string());
                run = 0;
            }
            row.push(ch);
        }
        if run > 0 {
            row.push_str(&run.to_string());
        }
        rows.push(row);
    }
    let side = if s.to_move == 0 { 'r' } else { 'p' };
    format!("{} {side} {}", rows.join("/"), s.ply)
}

/// The position `text` gives.
pub fn from_text(text: &str) -> Result<Hexxagon, GameError> {
    let bad = |why: String| GameError::parse(text, why);
    let fields: Vec<&str> = text.split_whitespace().collect();
    let [board, side, ply] = fields[..] else {
        return Err(bad(
            "expected three fields: rows, mover (r or p), ply".into()
        ));
    };
    let rows: Vec<&str> = board.split('/').collect();
    if rows.len() != 9 {
        return Err(bad(format!("expected 9 rows, got {}", rows.len())));
    }
    let mut cells = [WALL; GRID];
    for (row, r) in rows.iter().zip(-4..=4) {
        let row_cells: Vec<usize> = (-4..=4).filter_map(|q| cell(q, r)).collect();
        let mut at = 0;
        for ch in row.chars() {
            let (value, n) = match ch {
                '1'..='9' => (EMPTY, ch as usize - '0' as usize),
                'r' => (piece(0), 1),
                'p' => (piece(1), 1),
                '-' => (WALL, 1),
                _ => return Err(bad(format!("unexpected '{ch}' in a row"))),
            };
            for _ in 0..n {
                let Some(&c) = row_cells.get(at) else {
                    return Err(bad(format!(
                        "row {} is longer than {}",
                        5 - r,
                        row_cells.len()
                    )));
                };
                if (value == WALL) == playable(c) {
                    return Err(bad(format!(
                        "'-' stands exactly on the blocked cells, not at {}",
                        cell_name(c)
                    )));
                }
                cells[c] = value;
                at += 1;
            }
        }
        if at != row_cells.len() {
            return Err(bad(format!(
                "row {} has {at} cells, not {}",
                5 - r,
                row_cells.len()
            )));
        }
    }
    let to_move = match side {
        "r" => 0,
        "p" => 1,
        _ => {
            return Err(bad(format!(
                "the mover is r or p, not '{}'",
                contagion::limits::clip(side)
            )));
        }
    };
    let ply = (ply.parse::<u32>().ok())
        .filter(|&p| p <= MAX_PLIES)
        .ok_or_else(|| bad(format!("the ply is a number from 0 to {MAX_PLIES}")))?;
    Ok(Hexxagon::from_parts(cells, to_move, ply))
}
