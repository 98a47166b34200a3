//! Network input planes for Infexion, from the point of view of the player to move.
//!
//! 14 planes of 7×7, cell `(r, q)` at row `r`, column `q`:
//! - planes 0–5: the mover's stacks of power 1–6 (one-hot by power);
//! - planes 6–11: the opponent's stacks of power 1–6;
//! - plane 12: all ones when SPAWN is allowed (total power below 49);
//! - plane 13: the fraction of the 343-action limit already played.
//!
//! Because the board is a torus and every plane is indexed by cell, a symmetry of the
//! board permutes the cells of every plane the same way (tested below).

use super::board::{Board, cell_owner, cell_power};
use super::geometry::{CELLS, SIZE};
use crate::games::{EncodingShape, FEATURE_ON, FeatureSink};

/// The shape of Infexion's input: 14 planes of 7×7.
pub const SHAPE: EncodingShape = EncodingShape {
    planes: 14,
    height: SIZE,
    width: SIZE,
};

/// The meaning of each plane, for exported model manifests.
pub fn plane_meanings() -> Vec<String> {
    let side = |who: &str, p: usize| format!("{who} stacks of power {p} (1 where present)");
    (1..=6)
        .map(|p| side("the mover's", p))
        .chain((1..=6).map(|p| side("the opponent's", p)))
        .chain([
            "all ones when SPAWN is allowed (total power on the board below 49), else zeros".into(),
            "all cells: actions played so far / 343".into(),
        ])
        .collect()
}

/// The plane of a stack of cell code `code` (not empty) when `me` is to move.
fn stack_plane(code: u8, me: usize) -> usize {
    let base = if cell_owner(code) == me { 0 } else { 6 };
    base + cell_power(code) as usize - 1
}

/// The index of each stack's entry in the planes, from the mover's view.
fn stacks(board: &Board) -> impl Iterator<Item = usize> + '_ {
    let me = board.to_move();
    (board.cells.iter().enumerate())
        .filter(|&(_, &code)| code != 0)
        .map(move |(c, &code)| stack_plane(code, me) * CELLS + c)
}

/// Plane 13's value: the share of the action limit played.
fn played(board: &Board) -> f32 {
    board.ply() as f32 / super::MAX_TURNS as f32
}

/// Writes the planes into `out` (length `SHAPE.len()`), overwriting all of it.
pub fn encode(board: &Board, out: &mut [f32]) {
    assert_eq!(out.len(), SHAPE.len(), "encode: output length");
    out.fill(0.0);
    stacks(board).for_each(|i| out[i] = 1.0);
    if board.spawn_allowed() {
        out[12 * CELLS..13 * CELLS].fill(1.0);
    }
    out[13 * CELLS..14 * CELLS].fill(played(board));
}

/// Adds to `out` each entry [`encode`] sets to at least [`FEATURE_ON`], without making
/// the planes: a plane's 49 cells are one word of bits, gathered by cell code.
pub fn hot_inputs(board: &Board, out: &mut dyn FeatureSink) {
    let mut by_code = [0u64; 16];
    for (c, &code) in board.cells.iter().enumerate() {
        by_code[code as usize & 15] |= 1 << c;
    }
    let me = board.to_move();
    for code in (1..16).filter(|&code| by_code[code] != 0) {
        out.insert_bits((stack_plane(code as u8, me) * CELLS) as u32, by_code[code]);
    }
    let all = (1u64 << CELLS) - 1;
    if board.spawn_allowed() {
        out.insert_bits((12 * CELLS) as u32, all);
    }
    if played(board) >= FEATURE_ON {
        out.insert_bits((13 * CELLS) as u32, all);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Game;
    use crate::games::infexion::geometry::map_cell;

    fn sample() -> Board {
        super::super::notation::from_notation("r3b1r24/7/7/3b63/7/7/6r1 b 9").unwrap()
    }

    #[test]
    fn planes_hold_the_stacks_from_the_movers_view() {
        let b = sample();
        let mut x = vec![0.0; SHAPE.len()];
        encode(&b, &mut x);
        // Blue to move: Blue's 1-stack at (0,1) is plane 0, Red's 3-stack at (0,0) plane 6+2.
        assert_eq!(x[1], 1.0);
        assert_eq!(x[8 * CELLS], 1.0);
        assert_eq!(x[(5) * CELLS + 3 * SIZE + 3], 1.0);
        let stacks: f32 = x[..12 * CELLS].iter().sum();
        assert_eq!(stacks, 5.0);
        assert!(x[12 * CELLS..13 * CELLS].iter().all(|&v| v == 1.0));
        assert!((x[13 * CELLS] - 9.0 / 343.0).abs() < 1e-6);
    }

    #[test]
    fn symmetries_permute_the_planes() {
        let b = sample();
        let mut x = vec![0.0; SHAPE.len()];
        let mut y = vec![0.0; SHAPE.len()];
        encode(&b, &mut x);
        for sym in (0..b.num_symmetries()).step_by(7) {
            encode(&b.transform(sym), &mut y);
            for plane in 0..SHAPE.planes {
                for c in 0..CELLS {
                    assert_eq!(x[plane * CELLS + c], y[plane * CELLS + map_cell(sym, c)]);
                }
            }
        }
    }
}
