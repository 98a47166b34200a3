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

/// An input entry at least this large is a feature.
pub use crate::search::pvs::FEATURE_ON as ON;

/// A set of input indices, a bit each: a position's features.
#[derive(Debug, Clone, Default)]
pub struct Features {
    words: Vec<u64>,
}

impl Features {
    /// Empties the set (keeping its room).
    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }

    fn room(&mut self, words: usize) {
        if self.words.len() < words {
            self.words.resize(words, 0);
        }
    }

    /// Adds input `i`.
    pub fn insert(&mut self, i: u32) {
        let w = i as usize / 64;
        self.room(w + 1);
        self.words[w] |= 1 << (i % 64);
    }

    /// Adds the inputs `offset + k` for every bit `k` set in `bits`.
    pub fn insert_bits(&mut self, offset: u32, bits: u64) {
        let (w, shift) = (offset as usize / 64, offset % 64);
        self.room(w + 2);
        self.words[w] |= bits << shift;
        if shift > 0 {
            self.words[w + 1] |= bits >> (64 - shift);
        }
    }

    /// How many inputs are in the set.
    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// The inputs, ascending.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (self.words.iter().enumerate()).flat_map(|(k, &w)| bits(w, 64 * k as u32))
    }
}

/// The indices `offset + k` of the bits `k` set in `w`, ascending.
fn bits(mut w: u64, offset: u32) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        (w != 0).then(|| {
            let k = w.trailing_zeros();
            w &= w - 1;
            offset + k
        })
    })
}

impl PartialEq for Features {
    fn eq(&self, other: &Features) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for Features {}

impl FromIterator<u32> for Features {
    fn from_iter<I: IntoIterator<Item = u32>>(inputs: I) -> Features {
        let mut set = Features::default();
        inputs.into_iter().for_each(|i| set.insert(i));
        set
    }
}

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

/// The features in `new` and not in `old` (into `added`) and those in `old` and not in
/// `new` (into `removed`), both ascending.
pub fn diff(old: &Features, new: &Features, added: &mut Vec<u32>, removed: &mut Vec<u32>) {
    added.clear();
    removed.clear();
    let words = old.words.len().max(new.words.len());
    for k in 0..words {
        let o = old.words.get(k).copied().unwrap_or(0);
        let n = new.words.get(k).copied().unwrap_or(0);
        let offset = 64 * k as u32;
        added.extend(bits(n & !o, offset));
        removed.extend(bits(o & !n, offset));
    }
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
