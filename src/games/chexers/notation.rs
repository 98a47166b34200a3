//! Chexers notation: moves, positions and the board drawing.
//!
//! - **Moves**, with axial coordinates `(q, r)` as the 2019 referee prints them:
//!   `MOVE(q,r,q2,r2)`, `JUMP(q,r,q2,r2)` (from, to), `EXIT(q,r)`, `PASS`. Parsing
//!   ignores case and spaces.
//! - **Positions**: the seven rows `r = −3…3` separated by `/`, each listing its hexes
//!   by ascending `q` (`r`, `g`, `b` for a piece, a digit for that many empty hexes); then
//!   the player to move (`r`, `g`, `b`), the exits of Red/Green/Blue, and the turns
//!   played. The start: `gggg/5/6/r5b/r4b/r3b/r2b r 0/0/0 0`. Like a chess FEN it does
//!   not carry the repetition history.

use super::board::{CELLS, Chexers, DIRS, EXITS_TO_WIN, MAX_TURNS, Move, cell_of, coords, step};
use crate::games::{Action, GameError};

const LETTERS: [char; 3] = ['r', 'g', 'b'];

fn row_range(r: i32) -> std::ops::RangeInclusive<i32> {
    (-3).max(-3 - r)..=3.min(3 - r)
}

/// The action in move notation.
pub fn move_to_string(action: Action) -> String {
    let hex = |c: usize| {
        let (q, r) = coords(c);
        format!("{q},{r}")
    };
    let to = |c: usize, dir: usize, k: i32| {
        let (q, r) = coords(c);
        let (dq, dr) = DIRS[dir];
        format!("{},{}", q + k * dq as i32, r + k * dr as i32)
    };
    match Move::from_index(action) {
        Some(Move::Step { cell, dir }) => format!("MOVE({},{})", hex(cell), to(cell, dir, 1)),
        Some(Move::Jump { cell, dir }) => format!("JUMP({},{})", hex(cell), to(cell, dir, 2)),
        Some(Move::Exit { cell }) => format!("EXIT({})", hex(cell)),
        Some(Move::Pass) => "PASS".into(),
        None => format!("#{action}"),
    }
}

/// Parses a move (it may still be illegal).
pub fn parse_move(text: &str) -> Result<Action, GameError> {
    let err = |why: &str| GameError::parse(text, why);
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let upper = compact.to_ascii_uppercase();
    if upper == "PASS" {
        return Ok(Move::Pass.index());
    }
    let expected = "expected MOVE(q,r,q2,r2), JUMP(q,r,q2,r2), EXIT(q,r) or PASS";
    let (kind, rest) = upper.split_once('(').ok_or_else(|| err(expected))?;
    let args = rest
        .strip_suffix(')')
        .ok_or_else(|| err("missing closing ')'"))?;
    let nums: Vec<i32> = args
        .split(',')
        .map(|a| a.parse())
        .collect::<Result<_, _>>()
        .map_err(|_| err("coordinates must be integers"))?;
    let hex = |q: i32, r: i32| {
        cell_of(q, r).ok_or_else(|| err("a hex must have |q|, |r| and |q+r| at most 3"))
    };
    let toward = |cell: usize, q2: i32, r2: i32, k: i32, what: &str| {
        (0..6)
            .find(|&d| step(cell, d, k).is_some_and(|t| coords(t) == (q2, r2)))
            .ok_or_else(|| err(what))
    };
    match (kind, nums.as_slice()) {
        ("EXIT", &[q, r]) => Ok(Move::Exit { cell: hex(q, r)? }.index()),
        ("MOVE", &[q, r, q2, r2]) => {
            let cell = hex(q, r)?;
            let dir = toward(cell, q2, r2, 1, "a MOVE goes to an adjacent hex")?;
            Ok(Move::Step { cell, dir }.index())
        }
        ("JUMP", &[q, r, q2, r2]) => {
            let cell = hex(q, r)?;
            let dir = toward(
                cell,
                q2,
                r2,
                2,
                "a JUMP lands two hexes away in a straight line",
            )?;
            Ok(Move::Jump { cell, dir }.index())
        }
        ("EXIT", _) => Err(err("EXIT takes two numbers: EXIT(q,r)")),
        ("MOVE" | "JUMP", _) => Err(err("MOVE and JUMP take four numbers: from q,r then to q,r")),
        _ => Err(err(expected)),
    }
}

/// The position in the notation above.
pub fn to_notation(s: &Chexers) -> String {
    let mut rows = Vec::new();
    for r in -3..=3 {
        let (mut row, mut empty) = (String::new(), 0);
        for q in row_range(r) {
            match s.cell(cell_of(q, r).expect("on the board")) {
                0 => empty += 1,
                code => {
                    if empty > 0 {
                        row.push_str(&empty.to_string());
                        empty = 0;
                    }
                    row.push(LETTERS[code as usize - 1]);
                }
            }
        }
        if empty > 0 {
            row.push_str(&empty.to_string());
        }
        rows.push(row);
    }
    format!(
        "{} {} {}/{}/{} {}",
        rows.join("/"),
        LETTERS[s.to_move()],
        s.exits(0),
        s.exits(1),
        s.exits(2),
        s.turns()
    )
}

/// Parses a position; every inconsistency is reported.
pub fn from_notation(text: &str) -> Result<Chexers, GameError> {
    let err = |why: String| GameError::parse(text, why);
    let fields: Vec<&str> = text.split_whitespace().collect();
    let [board, side, exits, turns] = fields.as_slice() else {
        return Err(err(format!(
            "expected 4 fields (hexes, player to move, exits r/g/b, turns), found {}",
            fields.len()
        )));
    };
    let rows: Vec<&str> = board.split('/').collect();
    if rows.len() != 7 {
        return Err(err(format!("expected 7 rows, found {}", rows.len())));
    }
    let mut cells = [0u8; CELLS];
    for (row, r) in rows.iter().zip(-3..=3) {
        let hexes: Vec<i32> = row_range(r).collect();
        let mut i = 0;
        for ch in row.chars() {
            match ch {
                '1'..='7' => i += ch as usize - '0' as usize,
                'r' | 'g' | 'b' => {
                    if let Some(&q) = hexes.get(i) {
                        let p = LETTERS.iter().position(|&l| l == ch).expect("a letter");
                        cells[cell_of(q, r).expect("on the board")] = p as u8 + 1;
                    }
                    i += 1;
                }
                _ => return Err(err(format!("row r={r}: unexpected character '{ch}'"))),
            }
            if i > hexes.len() {
                break;
            }
        }
        if i != hexes.len() {
            return Err(err(format!(
                "row r={r} has {i} hexes, expected {}",
                hexes.len()
            )));
        }
    }
    let to_move = LETTERS
        .iter()
        .position(|&l| side.len() == 1 && side.starts_with(l))
        .ok_or_else(|| {
            err(format!(
                "the player to move must be r, g or b, found '{side}'"
            ))
        })?;
    let exits: Vec<u8> = exits
        .split('/')
        .map(|e| e.parse::<u8>().ok().filter(|&e| e <= EXITS_TO_WIN))
        .collect::<Option<_>>()
        .filter(|v: &Vec<u8>| v.len() == 3)
        .ok_or_else(|| {
            err(format!(
                "exits must be three numbers 0-4 like 0/1/0, found '{exits}'"
            ))
        })?;
    let turns: u16 = turns
        .parse()
        .ok()
        .filter(|&t| t <= MAX_TURNS)
        .ok_or_else(|| err(format!("turns must be a number 0-768, found '{turns}'")))?;
    let pieces = cells.iter().filter(|&&c| c != 0).count();
    let exited: usize = exits.iter().map(|&e| e as usize).sum();
    if pieces + exited > 12 {
        return Err(err(format!(
            "{pieces} pieces on the board and {exited} exited: more than 12"
        )));
    }
    Ok(Chexers::from_parts(
        cells,
        to_move,
        [exits[0], exits[1], exits[2]],
        turns,
    ))
}

/// The board as a hexagon, rows `r = −3…3`, with coordinates.
pub fn render(s: &Chexers, paint: &dyn Fn(usize, &str) -> String) -> String {
    let mut out = String::new();
    for r in -3..=3 {
        let range = row_range(r);
        out.push_str(&format!(
            "r={r:>2} {}",
            " ".repeat(2 * r.unsigned_abs() as usize)
        ));
        for q in range.clone() {
            let text = match s.cell(cell_of(q, r).expect("on the board")) {
                0 => " . ".to_string(),
                code => {
                    let p = code as usize - 1;
                    format!(
                        " {} ",
                        paint(p, &LETTERS[p].to_ascii_uppercase().to_string())
                    )
                }
            };
            out.push_str(&text);
            out.push(' ');
        }
        out.push_str(&format!("  q={}..{}\n", range.start(), range.end()));
    }
    out.push_str(&format!(
        "exits: Red {}  Green {}  Blue {}   turn {}  {} to move\n",
        paint(0, &s.exits(0).to_string()),
        paint(1, &s.exits(1).to_string()),
        paint(2, &s.exits(2).to_string()),
        s.turns(),
        ["Red", "Green", "Blue"][s.to_move()]
    ));
    out
}
