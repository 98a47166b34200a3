//! Tree reuse: re-rooting a tree at a position below its root, keeping that subtree.

use super::{NONE, Node, Tree};
use crate::games::{Action, Game};

impl<G: Game> Tree<G> {
    /// Re-roots the tree at the position after `action`, keeping that subtree.
    pub fn advance(&mut self, action: Action) {
        let mut next = self.root.clone();
        next.apply(action).expect("advance: a legal action");
        let child = self.root_child(action);
        self.keep(child, next);
    }

    /// Re-roots at `state` if it is the root, a position one move below it, or a position
    /// two moves below it through `played` (the move chosen here: ours, then the reply);
    /// otherwise starts a fresh tree. Two moves down only `played`'s replies are tried:
    /// every child's would apply each grandchild's move, hundreds of thousands of them in
    /// a tree grown over a game (up to 70 ms of a 100 ms Infexion move).
    pub fn reroot(&mut self, state: &G, played: Option<Action>) {
        if self.root == *state {
            self.plan = None; // a new search plans anew
            return;
        }
        let mut node = self.child_reaching(0, &self.root, state);
        if node.is_none()
            && let Some(a) = played
            && let Some(child) = self.root_child(a)
        {
            let mut ours = self.root.clone();
            ours.apply(a).expect("tree actions are legal");
            node = self.child_reaching(child, &ours, state);
        }
        self.keep(node, state.clone());
    }

    /// Clears the virtual loss of leaves that were selected and will never be expanded
    /// (a batch dropped when its search ended without it).
    pub fn forget_in_flight(&mut self) {
        for n in &mut self.nodes {
            n.pending = 0;
        }
    }

    /// The root child reached by `action`, if the tree has it.
    pub(super) fn root_child(&self, action: Action) -> Option<usize> {
        self.children(0).find(|&i| self.nodes[i].action == action)
    }

    /// The child of `node` (whose position is `from`) whose position is `target`.
    fn child_reaching(&self, node: usize, from: &G, target: &G) -> Option<usize> {
        self.children(node as u32).find(|&i| {
            let mut s = from.clone();
            s.apply(self.nodes[i].action)
                .expect("tree actions are legal");
            s == *target
        })
    }

    /// Makes `root` the root, keeping the subtree of `node` (the node holding `root`, if
    /// the tree has one; else the tree starts afresh). The subtree is copied into the
    /// spare buffer and the old nodes' buffer, emptied, becomes the spare: once a game's
    /// trees have grown, moves allocate nothing, so no move waits on fresh pages.
    fn keep(&mut self, node: Option<usize>, root: G) {
        let mut nodes = std::mem::take(&mut self.spare);
        // At most as many as the tree holds: the spare stays within the tree's bound.
        nodes.reserve_exact(self.nodes.len());
        match node {
            None => nodes.push(Node::new(0, 1.0)),
            Some(node) => {
                // Kept nodes have no leaves in flight: their virtual loss goes.
                nodes.push(Node {
                    first_child: NONE,
                    pending: 0,
                    ..self.nodes[node].clone()
                });
                // Copy the subtree depth-first (a stack), each node's children kept contiguous.
                let mut queue = vec![(node as u32, 0u32)];
                while let Some((old, new)) = queue.pop() {
                    let range = self.children(old);
                    if range.is_empty() {
                        continue;
                    }
                    let first = nodes.len() as u32;
                    nodes[new as usize].first_child = first;
                    for (k, i) in range.enumerate() {
                        nodes.push(Node {
                            first_child: NONE,
                            pending: 0,
                            ..self.nodes[i].clone()
                        });
                        queue.push((i as u32, first + k as u32));
                    }
                }
            }
        }
        // A proof the solver left on an unexpanded node names no move to play from it:
        // the root is searched (and proven) again.
        if !nodes[0].expanded {
            nodes[0].proof = None;
        }
        self.spare = std::mem::replace(&mut self.nodes, nodes);
        self.spare.clear();
        (self.root, self.noised, self.plan) = (root, false, None);
        self.full = false;
    }
}
