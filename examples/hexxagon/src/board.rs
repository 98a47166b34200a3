//! The board: a hexagon of side 5 in axial coordinates `(q, r)` (`|q|, |r|, |q + r| ≤ 4`:
//! 61 cells, 3 of them blocked), stored on a 9×9 grid whose cell `(r + 4)·9 + (q + 4)`
//! the network sees; and the geometry every rule is built from.

use std::sync::LazyLock;

/// Columns and rows of the grid the board lies in.
pub const WIDTH: usize = 9;
/// Cells of the grid (61 on the board, 20 off it).
pub const GRID: usize = WIDTH * WIDTH;
/// The board's radius: the most steps from the centre to a cell.
const RADIUS: i32 = 4;

/// The six neighbours' offsets, counterclockwise from "east".
pub const DIRS: [(i32, i32); 6] = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)];

/// The twelve offsets two steps away: straight (`2·d`), then bent (`d + next d`).
pub const JUMPS: [(i32, i32); 12] = {
    let mut out = [(0, 0); 12];
    let mut k = 0;
    while k < 6 {
        let (a, b) = (DIRS[k], DIRS[(k + 1) % 6]);
        out[k] = (2 * a.0, 2 * a.1);
        out[6 + k] = (a.0 + b.0, a.1 + b.1);
        k += 1;
    }
    out
};

/// Whether `(q, r)` is on the hexagon.
pub fn on_hexagon(q: i32, r: i32) -> bool {
    q.abs() <= RADIUS && r.abs() <= RADIUS && (q + r).abs() <= RADIUS
}

/// The grid cell of `(q, r)`, if it is on the hexagon.
pub fn cell(q: i32, r: i32) -> Option<usize> {
    on_hexagon(q, r).then(|| ((r + RADIUS) as usize) * WIDTH + (q + RADIUS) as usize)
}

/// The axial coordinates of grid cell `c`.
pub fn coords(c: usize) -> (i32, i32) {
    ((c % WIDTH) as i32 - RADIUS, (c / WIDTH) as i32 - RADIUS)
}

/// The three blocked cells: the centre's neighbours in directions 1, 3 and 5.
pub fn is_blocked(c: usize) -> bool {
    [1, 3, 5]
        .iter()
        .any(|&d| cell(DIRS[d].0, DIRS[d].1) == Some(c))
}

/// Whether a piece may ever stand on grid cell `c`.
pub fn playable(c: usize) -> bool {
    let (q, r) = coords(c);
    on_hexagon(q, r) && !is_blocked(c)
}

/// Per playable cell: its neighbours, and the cell each jump lands on.
pub struct Tables {
    /// Neighbouring playable cells.
    pub near: Vec<Vec<usize>>,
    /// `jump[c][k]`: the playable cell `JUMPS[k]` away from `c`.
    pub jump: Vec<[Option<usize>; 12]>,
}

/// The tables, built once.
pub static TABLES: LazyLock<Tables> = LazyLock::new(|| {
    let step = |c: usize, (dq, dr): (i32, i32)| {
        let (q, r) = coords(c);
        cell(q + dq, r + dr).filter(|&d| playable(d))
    };
    Tables {
        near: (0..GRID)
            .map(|c| DIRS.iter().filter_map(|&d| step(c, d)).collect())
            .collect(),
        jump: (0..GRID).map(|c| JUMPS.map(|j| step(c, j))).collect(),
    }
});
