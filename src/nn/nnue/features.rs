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

/// An input entry at least this large is a feature.
pub const ON: f32 = 0.5;

/// Reusable scratch for reading a position's features.
#[derive(Debug, Default, Clone)]
pub struct Reader {
    encoded: Vec<f32>,
}

impl Reader {
    /// Clears `out` and fills it with `state`'s features, ascending.
    pub fn read<G: Game>(&mut self, state: &G, out: &mut Vec<u32>) {
        let len = state.encoding_shape().len();
        self.encoded.resize(len, 0.0);
        state.encode(&mut self.encoded);
        out.clear();
        for (i, &v) in self.encoded.iter().enumerate() {
            if v >= ON {
                out.push(i as u32);
            }
        }
    }
}

/// The features of `state`, ascending (allocating; [`Reader`] reuses its buffers).
pub fn of<G: Game>(state: &G) -> Vec<u32> {
    let mut out = Vec::new();
    Reader::default().read(state, &mut out);
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
