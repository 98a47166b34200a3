//! The evaluator's sparse input: the entries of a position's network encoding
//! ([`Game::encode`], from the mover's point of view) that are set, by index.
//!
//! An entry is a feature when its value is at least [`ON`]: the one-hot planes every
//! game's encoding has (a square's owner, a stack's power, an empty or blocked square)
//! give one feature a square and piece, through the [`Game`] API alone, for any game.
//! Planes that are constant give features that never change (a bias); a plane such as
//! Ataxx's half-move clock turns on all at once, which the accumulator meets with a
//! refresh. A [`FeatureSet`] may add pattern features after them, or read those alone:
//! every 2×2 window's pattern of owners ([`crate::games::tuples`]). The windows alone
//! read the board as any seat sees it, which an evaluator's perspective form needs
//! ([`FeatureSet::fill_seen`]); the encoding is the mover's. A position's features are
//! a [`Features`] set, a bit an input, so two positions' sets are compared a word at a
//! time ([`diff`]): what an incremental update adds and takes away.

use crate::games::Searchable;
use crate::games::{Game, tuples};
pub use crate::search::pvs::features::{Features, diff};

/// Which features an evaluator reads: the encoding's entries, those and the 2×2 tuples
/// after them ([`tuples`]), or the tuples alone (the pattern inputs of the public
/// Ataxx engines: every window's pattern, so exactly one feature a window). Its name is
/// the bundle manifest's `features`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum FeatureSet {
    /// The encoding's entries that are on.
    #[default]
    Encoding,
    /// Those and every 2×2 window's pattern.
    Tuples,
    /// Every 2×2 window's pattern alone.
    Windows,
}

impl FeatureSet {
    /// Every set, in [`FeatureSet::NAMES`]' order.
    pub const ALL: [FeatureSet; 3] = [
        FeatureSet::Encoding,
        FeatureSet::Tuples,
        FeatureSet::Windows,
    ];
    /// Every set's name, as configs and manifests write it.
    pub const NAMES: &'static [&'static str] = &["encoding-set", "encoding-set+2x2", "2x2"];

    /// The set's name.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// Reads a set's name.
    pub fn parse(name: &str) -> anyhow::Result<FeatureSet> {
        crate::limits::named("feature set", &Self::ALL, Self::NAMES, name)
            .map_err(anyhow::Error::msg)
    }

    /// The inputs this set gives `start`'s game, or why the game has not got it.
    pub fn inputs<G: Game>(self, start: &G) -> anyhow::Result<usize> {
        let s = start.encoding_shape();
        match self {
            FeatureSet::Encoding => Ok(s.len()),
            FeatureSet::Tuples | FeatureSet::Windows => {
                anyhow::ensure!(
                    start.owners().is_some(),
                    "{} has no owner map, so no 2×2 tuple features (feature set '{}')",
                    start.name(),
                    self.name()
                );
                let windows = tuples::count(start.num_players(), s.height, s.width);
                let encoding = if self == FeatureSet::Tuples {
                    s.len()
                } else {
                    0
                };
                Ok(encoding + windows)
            }
        }
    }

    /// Whether the set reads the board as any seat sees it (the windows alone), as an
    /// evaluator's perspective form needs; the sets with the encoding read the mover's
    /// view alone.
    pub fn reads_every_seat(self) -> bool {
        self == FeatureSet::Windows
    }

    /// Clears `out` and fills it with `state`'s features (`scratch` holds the encoding
    /// where it is made).
    pub fn fill<N: Searchable>(self, state: &N, scratch: &mut Vec<f32>, out: &mut Features) {
        self.fill_seen(state, state.to_move(), scratch, out);
    }

    /// Clears `out` and fills it with `state`'s features as seat `viewer` sees the
    /// board; a set that reads the mover's view alone
    /// ([`FeatureSet::reads_every_seat`]) gives the mover's.
    pub fn fill_seen<N: Searchable>(
        self,
        state: &N,
        viewer: usize,
        scratch: &mut Vec<f32>,
        out: &mut Features,
    ) {
        match self {
            FeatureSet::Encoding => state.features(scratch, out),
            FeatureSet::Tuples => {
                state.features(scratch, out);
                state.tuples(state.to_move(), state.encoding_len() as u32, out);
            }
            FeatureSet::Windows => {
                out.clear();
                state.tuples(viewer, 0, out);
            }
        }
    }

    /// `state`'s features in this set (allocating).
    pub fn set_of<N: Searchable>(self, state: &N) -> Features {
        let mut out = Features::default();
        self.fill(state, &mut Vec::new(), &mut out);
        out
    }

    /// Clears each of `out` and fills it with `state`'s features as the evaluator's
    /// accumulator of its place reads them ([`viewer`]'s order).
    pub fn fill_views<N: Searchable>(
        self,
        state: &N,
        scratch: &mut Vec<f32>,
        out: &mut [Features],
    ) {
        for (k, out) in out.iter_mut().enumerate() {
            self.fill_seen(state, viewer(state, k), scratch, out);
        }
    }

    /// `state`'s features for each of an evaluator's `views` accumulators
    /// ([`viewer`]'s order), ascending (allocating).
    pub fn views_of<N: Searchable>(self, state: &N, views: usize) -> Vec<Vec<u32>> {
        let mut out = vec![Features::default(); views];
        self.fill_views(state, &mut Vec::new(), &mut out);
        out.iter().map(|f| f.iter().collect()).collect()
    }
}

impl TryFrom<String> for FeatureSet {
    type Error = anyhow::Error;

    fn try_from(name: String) -> anyhow::Result<FeatureSet> {
        FeatureSet::parse(&name)
    }
}

impl From<FeatureSet> for String {
    fn from(set: FeatureSet) -> String {
        set.name().into()
    }
}

/// The seat whose view an evaluator's accumulator `k` reads in `state`: the mover's
/// first, then the next seat's, ….
pub fn viewer<N: Searchable>(state: &N, k: usize) -> usize {
    (state.to_move() + k) % state.players()
}

/// An input entry at least this large is a feature.
pub use crate::search::pvs::FEATURE_ON as ON;

/// The features of `state`, ascending (allocating; the search reads them through
/// [`Searchable::features`], which reuses its buffers and, on Ataxx's bitboards, reads them
/// from the masks).
pub fn of<G: Game>(state: &G) -> Vec<u32> {
    set_of(state).iter().collect()
}

/// The features of `state` as a set (allocating).
pub fn set_of<G: Game>(state: &G) -> Features {
    FeatureSet::Encoding.set_of(state)
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

    /// On random sets of any sizes the diff is the two set differences, ascending.
    #[test]
    fn diff_is_the_set_differences() {
        use std::collections::BTreeSet;
        let mut rng = crate::rng::Rng::new(3);
        let random_set = |rng: &mut crate::rng::Rng| {
            let bound = 1 + rng.below(300);
            (0..rng.below(80))
                .map(|_| rng.below(bound) as u32)
                .collect::<BTreeSet<u32>>()
        };
        let set = |s: &BTreeSet<u32>| s.iter().copied().collect::<Features>();
        let (mut added, mut removed) = (Vec::new(), Vec::new());
        for _ in 0..500 {
            let (old, new) = (random_set(&mut rng), random_set(&mut rng));
            diff(&set(&old), &set(&new), &mut added, &mut removed);
            assert_eq!(added, new.difference(&old).copied().collect::<Vec<_>>());
            assert_eq!(removed, old.difference(&new).copied().collect::<Vec<_>>());
        }
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
