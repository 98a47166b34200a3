//! Forced playouts and policy target pruning (KataGo, "Accelerating Self-Play Learning
//! in Go", 2019, §3.1), for PUCT at the root.
//!
//! In a search with root noise each root child `c` gets at least
//! `sqrt(k · P(c) · N)` visits (`N`: the root children's visits so far), so that a move
//! the noise favoured is looked at enough to be judged. Those forced visits would teach
//! the network the noise, so the policy target takes them back: every child but the most
//! visited loses as many of its visits (up to its forced ones) as it can while its PUCT
//! value stays below the most visited child's, and a child left with one visit is
//! dropped.

use super::{Node, Tree};
use crate::games::{Action, Game};

/// A root child's forced visits: `sqrt(k · P · N)`.
fn forced(k: f32, prior: f32, total: u32) -> f32 {
    (k * prior * total as f32).sqrt()
}

impl<G: Game> Tree<G> {
    /// The root's moves with their priors as the search uses them (noise included).
    pub fn root_priors(&self) -> Vec<(Action, f32)> {
        (self.children(0))
            .map(|i| (self.nodes[i].action, self.nodes[i].prior))
            .collect()
    }

    /// The root children's visits (pending ones included) when this search forces
    /// playouts at the root, for [`Tree::owed`]; `None` when it does not.
    pub(super) fn forcing(&self) -> Option<u32> {
        (self.forced.0 > 0.0 && self.noised).then(|| {
            (self.children(0))
                .map(|i| self.nodes[i].visits + self.nodes[i].pending)
                .sum()
        })
    }

    /// Whether root child `c` is owed forced visits, `total` being [`Tree::forcing`]'s.
    pub(super) fn owed(&self, c: &Node, total: u32) -> bool {
        ((c.visits + c.pending) as f32) < forced(self.forced.0, c.prior, total)
    }

    /// The root's visits with forced playouts taken back (see the module), for the policy
    /// target: `(action, visits)` of the children that keep any.
    pub(super) fn pruned_target(&self, k: f32, c_puct: f32) -> Vec<(Action, u32)> {
        let me = self.root.to_move();
        let total: u32 = self.children(0).map(|i| self.nodes[i].visits).sum();
        let scale = c_puct * (total.max(1) as f32).sqrt();
        let q = |c: &Node| c.value_sum[me] / c.visits.max(1) as f32;
        let puct = |c: &Node, n: f32| q(c) + scale * c.prior / (1.0 + n);
        let best = self.children(0).max_by_key(|&i| self.nodes[i].visits);
        let Some(best) = best else {
            return Vec::new();
        };
        let bound = puct(&self.nodes[best], self.nodes[best].visits as f32);
        (self.children(0))
            .filter_map(|i| {
                let c = &self.nodes[i];
                if i == best || c.visits == 0 {
                    return (c.visits > 0).then_some((c.action, c.visits));
                }
                let floor = (c.visits as f32 - forced(k, c.prior, total)).max(0.0);
                // The fewest visits that keep PUCT(c) below the best child's.
                let least = match bound - q(c) {
                    gap if gap > 0.0 => (scale * c.prior / gap - 1.0).max(0.0),
                    _ => c.visits as f32,
                };
                let kept = floor.max(least.floor() + 1.0).min(c.visits as f32) as u32;
                (kept > 1).then_some((c.action, kept))
            })
            .collect()
    }
}
