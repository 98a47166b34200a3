//! The 7×7 axial hex torus: cells, the six directions, SPREAD rays and the 588 symmetries.
//!
//! A cell `(r, q)` has index `r * 7 + q`. All tables are computed at compile time.
//!
//! Symmetries: the 12 point symmetries of the hex grid (rotation `(r,q) → (−q, r+q)` and
//! reflection `(r,q) → (q,r)`, mod 7) combined with the 49 translations. Symmetry `s`
//! applies point symmetry `s % 12` and then the translation by `s / 12` (as a cell
//! index), so `0..12` are the point symmetries about `(0,0)` and 0 is the identity.

/// The board's side.
pub const SIZE: usize = 7;
/// The board's cells.
pub const CELLS: usize = SIZE * SIZE;
/// A stack's largest power.
pub const MAX_POWER: u8 = 6;
/// The most power on the board at once; past it no SPAWN is legal.
pub const MAX_TOTAL_POWER: u32 = 49;
/// SPAWN actions, one per cell (actions `0..SPAWN_ACTIONS`).
pub const SPAWN_ACTIONS: usize = CELLS;
/// All actions: a SPAWN per cell, then a SPREAD per cell and direction.
pub const NUM_ACTIONS: usize = CELLS + CELLS * 6;
/// The torus's point symmetries (rotations and reflections about a cell).
pub const POINT_SYMMETRIES: usize = 12;
/// All the torus's symmetries: point symmetries times translations.
pub const NUM_SYMMETRIES: usize = POINT_SYMMETRIES * CELLS;

/// The six hex directions `(dr, dq)`, in the order the rules list them.
pub const DIRS: [(i8, i8); 6] = [(0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), (1, 0)];

/// Cell index of `(r, q)` taken mod 7.
pub const fn wrap(r: i32, q: i32) -> usize {
    let s = SIZE as i32;
    (r.rem_euclid(s) * s + q.rem_euclid(s)) as usize
}

/// `(r, q)` of a cell index.
pub const fn coords(cell: usize) -> (i32, i32) {
    ((cell / SIZE) as i32, (cell % SIZE) as i32)
}

/// `RAYS[cell][dir][i]`: the cell `i + 1` steps from `cell` in direction `dir`.
pub const RAYS: [[[u8; 6]; 6]; CELLS] = {
    let mut rays = [[[0u8; 6]; 6]; CELLS];
    let mut c = 0;
    while c < CELLS {
        let (r, q) = coords(c);
        let mut d = 0;
        while d < 6 {
            let (dr, dq) = DIRS[d];
            let mut i = 0;
            while i < 6 {
                let k = i as i32 + 1;
                rays[c][d][i] = wrap(r + k * dr as i32, q + k * dq as i32) as u8;
                i += 1;
            }
            d += 1;
        }
        c += 1;
    }
    rays
};

/// Applies point symmetry `p` (0..12) to the vector `(r, q)`: `p % 6` rotations after an
/// optional reflection (`p >= 6`).
pub const fn point_map(p: usize, r: i32, q: i32) -> (i32, i32) {
    let (mut r, mut q) = if p >= 6 { (q, r) } else { (r, q) };
    let mut k = 0;
    while k < p % 6 {
        let nr = -q;
        let nq = r + q;
        r = nr;
        q = nq;
        k += 1;
    }
    (r, q)
}

/// `DIR_MAP[p][d]`: the direction that direction `d` becomes under point symmetry `p`.
pub const DIR_MAP: [[u8; 6]; POINT_SYMMETRIES] = {
    let mut map = [[0u8; 6]; POINT_SYMMETRIES];
    let mut p = 0;
    while p < POINT_SYMMETRIES {
        let mut d = 0;
        while d < 6 {
            let (r, q) = point_map(p, DIRS[d].0 as i32, DIRS[d].1 as i32);
            let mut e = 0;
            while e < 6 {
                if DIRS[e].0 as i32 == r && DIRS[e].1 as i32 == q {
                    map[p][d] = e as u8;
                }
                e += 1;
            }
            d += 1;
        }
        p += 1;
    }
    map
};

/// The cell that `cell` becomes under symmetry `sym` (0..588).
#[inline]
pub const fn map_cell(sym: usize, cell: usize) -> usize {
    let (r, q) = coords(cell);
    let (r, q) = point_map(sym % POINT_SYMMETRIES, r, q);
    let (tr, tq) = coords(sym / POINT_SYMMETRIES);
    wrap(r + tr, q + tq)
}

/// The direction that `dir` becomes under symmetry `sym` (translations keep directions).
#[inline]
pub const fn map_dir(sym: usize, dir: usize) -> usize {
    DIR_MAP[sym % POINT_SYMMETRIES][dir] as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_point_symmetry_permutes_the_directions() {
        for p in 0..POINT_SYMMETRIES {
            let mut seen = [false; 6];
            for d in 0..6 {
                seen[DIR_MAP[p][d] as usize] = true;
            }
            assert!(
                seen.iter().all(|&s| s),
                "point symmetry {p} is not a permutation"
            );
        }
        assert_eq!(DIR_MAP[0], [0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn the_twelve_point_symmetries_are_distinct() {
        let images: Vec<[u8; 6]> = DIR_MAP.to_vec();
        for i in 0..12 {
            for j in 0..i {
                assert_ne!(
                    images[i], images[j],
                    "point symmetries {i} and {j} coincide"
                );
            }
        }
    }

    #[test]
    fn symmetries_preserve_adjacency() {
        for sym in 0..NUM_SYMMETRIES {
            for (c, rays) in RAYS.iter().enumerate() {
                for (d, ray) in rays.iter().enumerate() {
                    let n = ray[0] as usize;
                    let (mc, mn) = (map_cell(sym, c), map_cell(sym, n));
                    assert_eq!(RAYS[mc][map_dir(sym, d)][0] as usize, mn);
                }
            }
        }
    }

    #[test]
    fn wrap_around_neighbours_of_6_1() {
        // Figure 2 of the rules: (6,1) touches (0,1) and (0,0) across the edge.
        let c = wrap(6, 1);
        let neighbours: Vec<usize> = (0..6).map(|d| RAYS[c][d][0] as usize).collect();
        assert!(neighbours.contains(&wrap(0, 1)));
        assert!(neighbours.contains(&wrap(0, 0)));
    }
}
