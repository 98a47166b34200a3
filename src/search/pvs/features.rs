//! The fast evaluator's input as the search keeps it: a position's features as a set of
//! input indices, a bit each.
//!
//! [`Searchable::features`](crate::games::Searchable::features) fills one; two
//! positions' sets are compared a word at a time ([`diff`]): what an incremental update of the evaluator's accumulator
//! (`crate::nn::nnue`) adds and takes away.

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

impl crate::games::FeatureSink for Features {
    fn clear(&mut self) {
        Features::clear(self)
    }

    fn insert(&mut self, i: u32) {
        Features::insert(self, i)
    }

    fn insert_bits(&mut self, offset: u32, bits: u64) {
        Features::insert_bits(self, offset, bits)
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

/// The features in `new` and not in `old` (into `added`) and those in `old` and not in
/// `new` (into `removed`), both ascending.
pub fn diff(old: &Features, new: &Features, added: &mut Vec<u32>, removed: &mut Vec<u32>) {
    added.clear();
    removed.clear();
    let (o, n) = (&old.words[..], &new.words[..]);
    let both = o.len().min(n.len());
    // The words both sets have, a pair at a time without a bounds check; then the
    // longer one's tail, whose bits the other has not.
    for (k, (&o, &n)) in o[..both].iter().zip(&n[..both]).enumerate() {
        let changed = o ^ n;
        if changed != 0 {
            let offset = 64 * k as u32;
            push_bits(added, n & changed, offset);
            push_bits(removed, o & changed, offset);
        }
    }
    for (k, &w) in o.iter().enumerate().skip(both) {
        push_bits(removed, w, 64 * k as u32);
    }
    for (k, &w) in n.iter().enumerate().skip(both) {
        push_bits(added, w, 64 * k as u32);
    }
}

/// Pushes `offset + k` for every bit `k` set in `w`, ascending: room made once for all
/// of them, then written without a check each.
fn push_bits(out: &mut Vec<u32>, w: u64, offset: u32) {
    let mut rest = w;
    out.extend((0..w.count_ones()).map(|_| {
        let k = rest.trailing_zeros();
        rest &= rest - 1;
        offset + k
    }));
}
