//! Batched search over many trees: every tree hands out its leaves (with virtual loss),
//! one evaluator call scores them all, and the trees advance in step, so network
//! batches stay full however many games or moves are being searched at once.

use super::mcts::{Evaluator, Leaf, MctsParams, Tree};
use crate::games::{Action, Game};

/// Figures from one [`search_batched`] call.
#[derive(Debug, Clone, Copy, Default)]
pub struct BatchStats {
    /// Forward calls.
    pub batches: u64,
    /// Leaves evaluated.
    pub leaves: u64,
}

/// Runs `sims` more simulations on every tree (on top of what a reused tree already
/// holds), evaluating the leaves of all trees together (up to `params.leaves_per_tree`
/// per tree per batch), so the trees advance in step and batches stay full. `stop(trees)`
/// is asked between batches (time limits, a settled move). Trees whose root is finished
/// or proven ([`Tree::settled`]) are left alone.
/// `on_root_ready(t, tree)` is called once for each tree whose root is expanded: at
/// once for a reused tree, else as soon as its first simulation expands it (where
/// [`Tree::begin`] prepares a search).
pub fn search_batched<G: Game>(
    trees: &mut [&mut Tree<G>],
    sims: u32,
    params: &MctsParams,
    evaluator: &mut dyn Evaluator<G>,
    on_root_ready: impl FnMut(usize, &mut Tree<G>),
    stop: impl FnMut(&[&mut Tree<G>]) -> bool,
) -> BatchStats {
    let each = vec![sims; trees.len()];
    search_batched_each(trees, &each, params, evaluator, on_root_ready, stop)
}

/// [`search_batched`] with a budget per tree (`sims[t]` for tree `t`), for playout-cap
/// randomisation: some trees get a full search, others a fast one, in the same batches.
pub fn search_batched_each<G: Game>(
    trees: &mut [&mut Tree<G>],
    sims: &[u32],
    params: &MctsParams,
    evaluator: &mut dyn Evaluator<G>,
    mut on_root_ready: impl FnMut(usize, &mut Tree<G>),
    mut stop: impl FnMut(&[&mut Tree<G>]) -> bool,
) -> BatchStats {
    let mut stats = BatchStats::default();
    for (t, tree) in trees.iter_mut().enumerate() {
        if tree.root_expanded() {
            on_root_ready(t, tree);
        }
    }
    let targets: Vec<u32> = trees
        .iter()
        .zip(sims)
        .map(|(t, &n)| t.root_visits().saturating_add(n))
        .collect();
    loop {
        let mut leaves: Vec<(usize, Leaf<G>)> = Vec::new();
        for (t, tree) in trees.iter_mut().enumerate() {
            if tree.settled() {
                continue;
            }
            let mut budget = targets[t].saturating_sub(tree.root_visits());
            let per_tree = if tree.root_expanded() {
                params.leaves_per_tree.max(1)
            } else {
                1
            };
            for _ in 0..per_tree.min(budget) {
                if let Some(leaf) = tree.select_leaf(params) {
                    leaves.push((t, leaf));
                }
                budget -= 1;
            }
        }
        if leaves.is_empty() {
            // Every simulation ended in a finished game (backed up, nothing to evaluate):
            // the clock is still asked, or an endgame would search to its full budget.
            let done = (trees.iter().zip(&targets))
                .all(|(t, &target)| t.settled() || t.root_visits() >= target);
            if done || stop(trees) {
                return stats;
            }
            continue;
        }
        let requests: Vec<(&G, &[Action])> = leaves
            .iter()
            .map(|(_, l)| (&l.state, l.legal.as_slice()))
            .collect();
        let evals = evaluator.evaluate(&requests);
        stats.batches += 1;
        stats.leaves += leaves.len() as u64;
        for ((t, leaf), eval) in leaves.into_iter().zip(&evals) {
            let was_expanded = trees[t].root_expanded();
            trees[t].expand(leaf, eval);
            if !was_expanded && trees[t].root_expanded() {
                on_root_ready(t, trees[t]);
            }
        }
        if stop(trees) {
            return stats;
        }
    }
}
