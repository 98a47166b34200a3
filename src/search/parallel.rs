//! Tree-parallel search: several threads share one tree behind a lock.
//!
//! Each thread takes a batch of leaves from the tree (their paths marked with a virtual
//! loss, so the threads spread over different lines), evaluates it with its own
//! evaluator outside the lock, and puts the evaluations back in. Tree work is short
//! beside a network forward, so the threads spend nearly all their time evaluating and
//! the lock is rarely contended. The simulation budget is exact: leaves in flight count
//! against it. Results depend on the threads' timing, unlike [`super::batch`]'s.

use std::sync::Mutex;

use super::batch::search_batched;
use super::mcts::{Evaluator, Leaf, MctsParams, Tree};
use crate::games::{Action, Game};

/// What the threads share: the tree, the leaves being evaluated, and whether to stop.
struct Shared<'t, G: Game, S> {
    tree: &'t mut Tree<G>,
    in_flight: u32,
    stopped: bool,
    stop: S,
}

/// Runs `sims` more simulations on `tree` with one thread per evaluator, each taking up
/// to `params.leaves_per_tree` leaves at a time. `on_root_ready` is called once the root
/// is expanded (at once for a reused tree), before the threads start; `stop(tree)` is
/// asked before each batch is taken, under the lock.
pub fn search_parallel<G: Game, E: Evaluator<G> + Send>(
    tree: &mut Tree<G>,
    sims: u32,
    params: &MctsParams,
    evaluators: &mut [E],
    mut on_root_ready: impl FnMut(&mut Tree<G>),
    stop: impl FnMut(&Tree<G>) -> bool + Send,
) {
    if tree.settled() || sims == 0 || evaluators.is_empty() {
        return;
    }
    let target = tree.root_visits().saturating_add(sims);
    if tree.root_expanded() {
        on_root_ready(tree);
    } else {
        let first = &mut evaluators[0];
        search_batched(
            &mut [tree],
            1,
            params,
            first,
            |_, t| on_root_ready(t),
            |_| false,
        );
    }
    let shared = Mutex::new(Shared {
        tree,
        in_flight: 0,
        stopped: false,
        stop,
    });
    let per_batch = params.leaves_per_tree.max(1);
    std::thread::scope(|scope| {
        for evaluator in evaluators.iter_mut() {
            let shared = &shared;
            scope.spawn(move || {
                while let Some(leaves) = take(shared, target, per_batch, params) {
                    if leaves.is_empty() {
                        // Finished games only, or the rest of the budget is in flight.
                        std::thread::yield_now();
                        continue;
                    }
                    let requests: Vec<(&G, &[Action])> = (leaves.iter())
                        .map(|l| (&l.state, l.legal.as_slice()))
                        .collect();
                    let evals = evaluator.evaluate(&requests);
                    let mut s = shared.lock().expect("search lock");
                    s.in_flight -= leaves.len() as u32;
                    for (leaf, eval) in leaves.into_iter().zip(&evals) {
                        s.tree.expand(leaf, eval);
                    }
                }
            });
        }
    });
}

/// The next batch of leaves for a thread; `None` when the search is over.
fn take<G: Game, S: FnMut(&Tree<G>) -> bool>(
    shared: &Mutex<Shared<'_, G, S>>,
    target: u32,
    per_batch: u32,
    params: &MctsParams,
) -> Option<Vec<Leaf<G>>> {
    let mut guard = shared.lock().expect("search lock");
    let s = &mut *guard;
    if s.stopped || s.tree.root_visits() >= target || s.tree.settled() || (s.stop)(s.tree) {
        s.stopped = true;
        return None;
    }
    let budget = target.saturating_sub(s.tree.root_visits() + s.in_flight);
    let mut leaves = Vec::new();
    // At most a batch of simulations between two stop checks, however many of them end
    // in a finished game (backed up at once, no leaf): endgames keep to the clock too.
    for _ in 0..budget.min(per_batch) {
        leaves.extend(s.tree.select_leaf(params));
    }
    s.in_flight += leaves.len() as u32;
    Some(leaves)
}
