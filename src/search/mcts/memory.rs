//! The tree's memory bound: its node buffers stay within a size the engine's `Hash`
//! gives ([`Tree::limit_bytes`]); a full tree evaluates its leaves without expanding them.

use super::{Node, Tree};
use crate::games::Game;

impl<G: Game> Tree<G> {
    /// Bytes one node takes.
    pub const NODE_BYTES: usize = std::mem::size_of::<Node>();

    /// Keeps the tree's two node buffers (the tree and the one re-rooting copies into)
    /// within `bytes` in all: once the tree holds half of them in nodes, a leaf is
    /// evaluated and backed up but no longer expanded, so the search goes on answering
    /// in bounded memory ([`Tree::is_full`] says so). At least a few thousand nodes.
    pub fn limit_bytes(&mut self, bytes: usize) {
        self.max_nodes = (bytes / 2 / Self::NODE_BYTES).max(4096);
    }

    /// Whether a leaf went unexpanded for want of room since the tree was last re-rooted.
    pub fn is_full(&self) -> bool {
        self.full
    }

    /// Bytes the tree's node buffers hold.
    pub fn bytes(&self) -> usize {
        (self.nodes.capacity() + self.spare.capacity()) * Self::NODE_BYTES
    }
}
