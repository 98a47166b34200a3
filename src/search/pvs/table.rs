//! The principal variation search's transposition table: a power of two of slots of
//! two words each, one position a slot, in memory the system hands over zeroed; a
//! forced result's score kept relative to its node.

use super::score::WIN_BOUND;
use crate::games::Action;
use crate::search::Bound;

/// A stored search result.
#[derive(Debug, Clone, Copy)]
pub(super) struct Entry {
    pub key: u64,
    pub score: i32,
    pub action: Action,
    pub depth: u8,
    pub bound: Bound,
}

impl Entry {
    /// The entry in two words (the key, then score · action · depth · bound), so that a
    /// table starts as zeroed memory the system hands over untouched.
    fn pack(&self) -> [u64; 2] {
        let bound = match self.bound {
            Bound::Exact => 1u64,
            Bound::Lower => 2,
            Bound::Upper => 3,
        };
        let data = (self.score as u32 as u64) << 32
            | (self.action as u64) << 16
            | (self.depth as u64) << 8
            | bound;
        [self.key, data]
    }

    fn unpack([key, data]: [u64; 2]) -> Option<Entry> {
        let bound = match data & 0xff {
            1 => Bound::Exact,
            2 => Bound::Lower,
            3 => Bound::Upper,
            _ => return None, // an empty slot
        };
        Some(Entry {
            key,
            score: (data >> 32) as u32 as i32,
            action: (data >> 16) as u16,
            depth: (data >> 8) as u8,
            bound,
        })
    }
}

/// The transposition table: one entry a slot, replaced by a deeper or exact result, or
/// by another position.
pub struct Table {
    entries: Vec<[u64; 2]>,
    mask: usize,
}

impl Table {
    /// Bytes one entry takes.
    pub const ENTRY_BYTES: usize = 16;

    /// A table within `mib` MiB (a power of two of entries, at least 1024).
    pub fn new(mib: u64) -> Table {
        let want = (mib as usize * (1 << 20) / Self::ENTRY_BYTES).max(1024);
        let n = 1usize << (usize::BITS - 1 - want.leading_zeros());
        let entries = vec![[0; 2]; n];
        huge_pages(&entries);
        Table {
            entries,
            mask: n - 1,
        }
    }

    /// Asks the memory for `key`'s slot ahead of its [`Table::probe`], so that work
    /// between them hides the wait (a slot is rarely in the cache).
    pub(super) fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let slot = &self.entries[key as usize & self.mask];
            // SAFETY: a prefetch of a valid address only hints the cache; SSE is part
            // of x86-64.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(slot.as_ptr().cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    pub(super) fn probe(&self, key: u64) -> Option<Entry> {
        Entry::unpack(self.entries[key as usize & self.mask]).filter(|e| e.key == key)
    }

    pub(super) fn store(&mut self, key: u64, e: Entry) {
        let slot = &mut self.entries[key as usize & self.mask];
        let keep = Entry::unpack(*slot)
            .is_some_and(|old| old.key == key && old.depth > e.depth && e.bound != Bound::Exact);
        if !keep {
            *slot = Entry { key, ..e }.pack();
        }
    }
}

/// Asks Linux to back the table with 2 MiB pages where it can (transparent huge pages
/// in `madvise` mode): a probe lands anywhere in the table, and with 4 KiB pages most
/// probes of a table of megabytes miss the address cache as well as the data cache. A
/// hint only: where it is refused the table works the same.
fn huge_pages(entries: &[[u64; 2]]) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let (start, bytes) = (entries.as_ptr() as usize, std::mem::size_of_val(entries));
        let first = start.next_multiple_of(PAGE);
        let len = (start + bytes).saturating_sub(first) / PAGE * PAGE;
        if len > 0 {
            // SAFETY: the range lies within the table's own allocation, whole pages of
            // it; MADV_HUGEPAGE changes how the pages are backed, never their contents.
            unsafe { libc::madvise(first as *mut libc::c_void, len, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = entries;
}

/// A forced result's score as the table keeps it: relative to the node, not the root.
pub(super) fn to_table(score: i32, ply: usize) -> i32 {
    if score >= WIN_BOUND {
        score + ply as i32
    } else if score <= -WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// [`to_table`]'s inverse: a forced result's score from the table, relative to the root.
pub(super) fn from_table(score: i32, ply: usize) -> i32 {
    if score >= WIN_BOUND {
        score - ply as i32
    } else if score <= -WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}
