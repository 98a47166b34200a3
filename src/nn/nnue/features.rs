//! The evaluator's sparse input: the entries of a position's network encoding
//! ([`Game::encode`], from the mover's point of view) that are set, by index.
//!
//! An entry is a feature when its value is at least [`ON`]: the one-hot planes every
//! game's encoding has (a square's owner, a stack's power, an empty or blocked square)
//! give one feature a square and piece, through the [`Game`] API alone, for any game.
//! Planes that are constant give features that never change (a bias); a plane such as
//! Ataxx's half-move clock turns on all at once, which the accumulator meets with a
//! refresh. The list is ascending, so two positions' lists are compared in one merge
//! ([`diff`]): what an incremental update adds and takes away.

use crate::games::Game;
use crate::search::pvs::Node;

/// An input entry at least this large is a feature.
pub use crate::search::pvs::FEATURE_ON as ON;

/// The features of `state`, ascending (allocating; the search reads them through
/// [`Node::features`], which reuses its buffers and, on Ataxx's bitboards, reads them
/// from the masks).
pub fn of<G: Game>(state: &G) -> Vec<u32> {
    let mut out = Vec::new();
    state.features(&mut Vec::new(), &mut out);
    out
}

/// The features in `new` and not in `old` (into `added`) and those in `old` and not in
/// `new` (into `removed`); both lists ascending.
pub fn diff(old: &[u32], new: &[u32], added: &mut Vec<u32>, removed: &mut Vec<u32>) {
    added.clear();
    removed.clear();
    let (mut i, mut j) = (0, 0);
    while i < old.len() && j < new.len() {
        match old[i].cmp(&new[j]) {
            std::cmp::Ordering::Less => {
                removed.push(old[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                added.push(new[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                i += 1;
                j += 1;
            }
        }
    }
    removed.extend_from_slice(&old[i..]);
    added.extend_from_slice(&new[j..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_finds_what_changed() {
        let (mut added, mut removed) = (Vec::new(), Vec::new());
        diff(&[1, 3, 5, 9], &[1, 2, 5, 10, 11], &mut added, &mut removed);
        assert_eq!(added, [2, 10, 11]);
        assert_eq!(removed, [3, 9]);
        diff(&[], &[4], &mut added, &mut removed);
        assert_eq!((added.as_slice(), removed.as_slice()), (&[4][..], &[][..]));
    }

    #[test]
    fn ataxx_start_has_one_feature_a_square_and_plane() {
        let start = crate::games::ataxx::Ataxx::standard();
        let f = of(&start);
        // 4 pieces, 45 empty squares, 49 board-plane ones; no blocked squares, clock 0.
        assert_eq!(f.len(), 4 + 45 + 49);
        assert!(f.windows(2).all(|w| w[0] < w[1]));
    }
}
