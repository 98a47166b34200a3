//! Proven results in the tree (an MCTS-solver).
//!
//! A finished game inside the tree carries its exact [`Outcome`](crate::games::Outcome). A node is *proven*
//! when its result no longer depends on any estimate:
//! - one of its children is a proven **win for the player to move** there (value +1, the
//!   most any outcome gives): the mover takes it, in any number of players; the node
//!   takes the quickest such win;
//! - **all** its children are proven: the mover takes the best of them for itself. With
//!   two players that is the exact minimax value. With more (max^n), it is exact only
//!   when every child that reaches the best value for the mover has the same outcome
//!   for all seats; otherwise which one the mover picks is a tie-break, and the node
//!   stays unproven.
//!
//! Among equal results a proven node prefers the quickest win, the slowest loss and the
//! quickest draw. Proofs are found as simulations reach finished games and are carried
//! up the path at once. A proven node is never expanded further: a simulation that
//! reaches it backs up its exact outcome.

use super::proven::Proven;
use super::{Node, Tree};
use crate::games::Game;

impl<G: Game> Tree<G> {
    /// The root's proven result, if it has one.
    pub fn root_proof(&self) -> Option<Proven> {
        self.nodes[0].proof
    }

    /// Whether the root needs no search: the game is over there or its result is proven.
    pub fn settled(&self) -> bool {
        self.nodes[0].proof.is_some() || self.root.outcome().is_some()
    }

    /// The proof of the root child reached by `action`, if that child is proven.
    pub fn child_proof(&self, action: crate::games::Action) -> Option<Proven> {
        self.root_child(action).and_then(|i| self.nodes[i].proof)
    }

    /// Records a result proven outside the tree (the endgame solver's): the root is
    /// `proof`, reached by playing `action` (which must be a root child to count).
    pub fn prove_root(&mut self, action: crate::games::Action, proof: Proven) {
        if let Some(i) = self.root_child(action) {
            let child = Proven {
                plies: proof.plies.saturating_sub(1),
                ..proof
            };
            self.nodes[i].proof = Some(child);
            self.nodes[0].proof = Some(proof);
        }
    }

    /// The root's moves by the evaluator's prior, most likely first (empty before the
    /// root is expanded).
    pub fn root_by_prior(&self) -> Vec<crate::games::Action> {
        let mut children: Vec<&Node> = self.children(0).map(|i| &self.nodes[i]).collect();
        children.sort_by(|a, b| b.prior.total_cmp(&a.prior));
        children.iter().map(|n| n.action).collect()
    }

    /// After `path`'s last node was proven, proves what it settles above it. `movers[k]`
    /// is the player to move at `path[k]`.
    pub(super) fn propagate_proof(&mut self, path: &[u32], movers: &[u8]) {
        let players = self.root.num_players();
        for k in (0..path.len().saturating_sub(1)).rev() {
            let node = path[k];
            if self.nodes[node as usize].proof.is_some() {
                return;
            }
            match self.settle(node, movers[k] as usize, players) {
                Some(p) => self.nodes[node as usize].proof = Some(p),
                None => return,
            }
        }
    }

    /// The proof of `node` from its children's, if they settle it (see the module notes).
    fn settle(&self, node: u32, mover: usize, players: usize) -> Option<Proven> {
        let children = self.children(node);
        if children.is_empty() {
            return None;
        }
        let proofs = children.map(|i| self.nodes[i].proof);
        let best_win = proofs
            .clone()
            .flatten()
            .filter(|p| p.wins(mover))
            .min_by_key(|p| p.plies);
        if let Some(win) = best_win {
            return Some(win.deeper());
        }
        if proofs.clone().any(|p| p.is_none()) {
            return None;
        }
        let all: Vec<Proven> = proofs.flatten().collect();
        let best = *all
            .iter()
            .max_by(|a, b| a.cmp_for(b, mover))
            .expect("a node with children");
        let value = best.outcome[mover];
        let ambiguous = players > 2
            && all
                .iter()
                .any(|p| p.outcome[mover] == value && p.outcome != best.outcome);
        (!ambiguous).then(|| best.deeper())
    }

    /// Whether a child should be passed over by selection at a node where `mover` is to
    /// move: it is a proven loss for the mover (its siblings are not all losses, or the
    /// node would be proven and never selected from).
    pub(super) fn avoided(node: &Node, mover: usize) -> bool {
        node.proof.is_some_and(|p| p.loses(mover))
    }
}
