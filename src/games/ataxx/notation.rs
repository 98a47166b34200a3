//! Ataxx notation: FEN positions, moves, and the board drawing.
//!
//! - **Position** (FEN as libataxx writes it): ranks from the top (rank `n`) down to
//!   rank 1, separated by `/`; in each, `x` and `o` are pieces, `-` a blocked square and
//!   a number that many empty squares; then the side to move (`x` or `o`), the half-move
//!   clock and the full-move number. The Ataxx start: `x5o/7/7/7/7/7/o5x x 0 1`.
//! - **Moves**: a clone by its destination (`f1`), a jump by origin and destination
//!   (`a7c5`), a pass as `0000`. Files `a`… from the left, ranks `1`… from the bottom.

use super::board::{Ataxx, BLOCKED, EMPTY, JUMPS, MAX_CELLS, MAX_SIZE, Move, Rules, piece};
use crate::games::{Action, GameError};

/// `x` or `o` for player 0 or 1.
pub fn side(player: usize) -> char {
    ['x', 'o'][player]
}

/// A square's name, e.g. `a7`.
pub fn square(size: usize, cell: usize) -> String {
    let file = (b'a' + (cell % size) as u8) as char;
    format!("{file}{}", size - cell / size)
}

/// The action in move notation.
pub fn move_to_string(state: &Ataxx, action: Action) -> String {
    let n = state.size();
    match Move::from_index(action, n) {
        Some(Move::Clone { to }) => square(n, to),
        Some(Move::Jump { from, jump }) => match state.offset(from, JUMPS[jump]) {
            Some(to) => format!("{}{}", square(n, from), square(n, to)),
            None => format!("{}(off the board)", square(n, from)),
        },
        Some(Move::Pass) => "0000".into(),
        None => format!("#{action}"),
    }
}

/// Parses a square name at the start of `text`; returns the cell and the rest.
fn parse_square(size: usize, text: &str) -> Option<(usize, &str)> {
    let mut chars = text.chars();
    let file = (chars.next()? as u32).checked_sub('a' as u32)? as usize;
    let rest = chars.as_str();
    let digits_end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let rank: usize = rest[..digits_end].parse().ok()?;
    (file < size && (1..=size).contains(&rank))
        .then(|| ((size - rank) * size + file, &rest[digits_end..]))
}

/// Parses `f1`, `a7c5` or `0000` (in this position's board size).
pub fn parse_move(state: &Ataxx, text: &str) -> Result<Action, GameError> {
    let n = state.size();
    let t = text.trim().to_ascii_lowercase();
    let err = |why: String| GameError::parse(text, why);
    if t == "0000" {
        return Ok(Move::Pass.index(n));
    }
    let last = (b'a' + n as u8 - 1) as char;
    let bad_square = || {
        err(format!(
            "expected a square a1..{last}{n}, a jump like a1c3, or 0000"
        ))
    };
    let (from, rest) = parse_square(n, &t).ok_or_else(bad_square)?;
    if rest.is_empty() {
        return Ok(Move::Clone { to: from }.index(n));
    }
    let (to, rest) = parse_square(n, rest).ok_or_else(bad_square)?;
    if !rest.is_empty() {
        return Err(bad_square());
    }
    let (fr, fc) = ((from / n) as i32, (from % n) as i32);
    let (tr, tc) = ((to / n) as i32, (to % n) as i32);
    let jump = JUMPS
        .iter()
        .position(|&(dr, dc)| fr + dr as i32 == tr && fc + dc as i32 == tc)
        .ok_or_else(|| {
            err(
                "a jump must land exactly 2 squares away (a clone is written by its destination)"
                    .into(),
            )
        })?;
    Ok(Move::Jump { from, jump }.index(n))
}

/// The position as FEN.
pub fn to_fen(state: &Ataxx) -> String {
    let n = state.size();
    let mut ranks = Vec::with_capacity(n);
    for r in 0..n {
        let mut row = String::new();
        let mut empty = 0;
        for c in 0..n {
            let code = state.square(r * n + c);
            if code == EMPTY {
                empty += 1;
                continue;
            }
            if empty > 0 {
                row.push_str(&empty.to_string());
                empty = 0;
            }
            row.push(match code {
                BLOCKED => '-',
                c => side(c as usize - 1),
            });
        }
        if empty > 0 {
            row.push_str(&empty.to_string());
        }
        ranks.push(row);
    }
    format!(
        "{} {} {} {}",
        ranks.join("/"),
        side(state.to_move()),
        state.halfmove(),
        state.fullmove()
    )
}

/// Parses a FEN under `rules` (its `size` is taken from the FEN). Every inconsistency is
/// reported.
pub fn from_fen(text: &str, rules: Rules) -> Result<Ataxx, GameError> {
    let err = |why: String| GameError::parse(text, why);
    let fields: Vec<&str> = text.split_whitespace().collect();
    if !(2..=4).contains(&fields.len()) {
        return Err(err(format!(
            "expected 4 fields (squares, side to move, half-move clock, full-move number), found {}",
            fields.len()
        )));
    }
    let ranks: Vec<&str> = fields[0].split('/').collect();
    let n = ranks.len();
    if !(4..=MAX_SIZE).contains(&n) {
        return Err(err(format!("{n} ranks: the board must have 4 to 15")));
    }
    let mut cells = [EMPTY; MAX_CELLS];
    for (r, rank) in ranks.iter().enumerate() {
        let mut c = 0;
        let mut chars = rank.chars().peekable();
        while let Some(ch) = chars.next() {
            let code = match ch {
                'x' | 'X' | 'b' | 'B' => piece(0),
                'o' | 'O' | 'w' | 'W' => piece(1),
                '-' => BLOCKED,
                '1'..='9' => {
                    let mut k = ch.to_digit(10).unwrap_or(0) as usize;
                    while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                        k = k * 10 + d as usize;
                        chars.next();
                    }
                    c += k;
                    if c > n {
                        return Err(err(format!("rank {} has more than {n} squares", n - r)));
                    }
                    continue;
                }
                _ => return Err(err(format!("rank {}: unexpected character '{ch}'", n - r))),
            };
            if c >= n {
                return Err(err(format!("rank {} has more than {n} squares", n - r)));
            }
            cells[r * n + c] = code;
            c += 1;
        }
        if c != n {
            return Err(err(format!("rank {} has {c} squares, expected {n}", n - r)));
        }
    }
    let to_move = match fields[1] {
        "x" | "X" | "b" | "B" => 0,
        "o" | "O" | "w" | "W" => 1,
        s => return Err(err(format!("side to move must be 'x' or 'o', found '{s}'"))),
    };
    let number = |i: usize, default: u16, what: &str| match fields.get(i) {
        None => Ok(default),
        Some(s) => s
            .parse::<u16>()
            .map_err(|_| err(format!("{what} must be a number, found '{s}'"))),
    };
    let halfmove = number(2, 0, "the half-move clock")?;
    let fullmove = number(3, 1, "the full-move number")?.max(1);
    let rules = Rules {
        size: n as u8,
        ..rules
    };
    Ok(Ataxx::from_parts(cells, rules, to_move, halfmove, fullmove))
}

/// The board drawn with files and ranks; `paint(player, text)` styles pieces.
pub fn render(state: &Ataxx, paint: &dyn Fn(usize, &str) -> String) -> String {
    let n = state.size();
    let files: String = (0..n)
        .map(|c| format!(" {}", (b'a' + c as u8) as char))
        .collect();
    let mut out = format!("    {files}\n");
    for r in 0..n {
        out.push_str(&format!("{:>3} ", n - r));
        for c in 0..n {
            let text = match state.square(r * n + c) {
                EMPTY => ".".to_string(),
                BLOCKED => "#".to_string(),
                code => paint(code as usize - 1, &side(code as usize - 1).to_string()),
            };
            out.push(' ');
            out.push_str(&text);
        }
        out.push_str(&format!("  {}\n", n - r));
    }
    out.push_str(&format!("    {files}\n"));
    out.push_str(&format!(
        "x {}  o {}  {} to move  half-move clock {}  move {}\n",
        paint(0, &state.pieces(0).to_string()),
        paint(1, &state.pieces(1).to_string()),
        side(state.to_move()),
        state.halfmove(),
        state.fullmove()
    ));
    out
}
