//! The evaluator's sparse input: the entries of a position's network encoding
//! ([`Game::encode`], from the mover's point of view) that are set, by index.
//!
//! An entry is a feature when its value is at least [`ON`]: the one-hot planes every
//! game's encoding has (a square's owner, a stack's power, an empty or blocked square)
//! give one feature a square and piece, through the [`Game`] API alone, for any game.
//! Planes that are constant give features that never change (a bias); a plane such as
//! Ataxx's half-move clock turns on all at once, which the accumulator meets with a
//! refresh. A position's features are a [`Features`] set, a bit an input, so two
//! positions' sets are compared a word at a time ([`diff`]): what an incremental update
//! adds and takes away.

use crate::games::Game;
use crate::search::pvs::Node;
pub use crate::search::pvs::features::{Features, diff};

/// An input entry at least this large is a feature.
pub use crate::search::pvs::FEATURE_ON as ON;

/// The features of `state`, ascending (allocating; the search reads them through
/// [`Node::features`], which reuses its buffers and, on Ataxx's bitboards, reads them
/// from the masks).
pub fn of<G: Game>(state: &G) -> Vec<u32> {
    set_of(state).iter().collect()
}

/// The features of `state` as a set (allocating).
pub fn set_of<G: Game>(state: &G) -> Features {
    let mut out = Features::default();
    state.features(&mut Vec::new(), &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_finds_what_changed() {
        let (mut added, mut removed) = (Vec::new(), Vec::new());
        let set = |l: &[u32]| l.iter().copied().collect::<Features>();
        let (old, new) = (set(&[1, 3, 5, 9, 70]), set(&[1, 2, 5, 10, 11, 64, 200]));
        diff(&old, &new, &mut added, &mut removed);
        assert_eq!(added, [2, 10, 11, 64, 200]);
        assert_eq!(removed, [3, 9, 70]);
        assert_eq!((old.len(), new.len()), (5, 7));
        diff(&set(&[]), &set(&[4]), &mut added, &mut removed);
        assert_eq!((added.as_slice(), removed.as_slice()), (&[4][..], &[][..]));
    }

    #[test]
    fn bits_go_in_at_any_offset() {
        let mut set = Features::default();
        set.insert_bits(60, 0b1_0000_0011);
        set.insert_bits(0, 1);
        assert_eq!(set.iter().collect::<Vec<_>>(), [0, 60, 61, 68]);
        set.clear();
        assert!(set.is_empty());
        assert_eq!(set, Features::default());
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
