//! Tree-parallel search on a persistent pool: threads that live as long as the pool and
//! share one tree behind a lock, and a move that is read at its deadline.
//!
//! The calling thread searches too, with the pool's first evaluator, and decides when the
//! search ends: its budget, a proof, or its `stop`, asked before each of its batches (the
//! helpers search on until then, within the budget). A search may also have a
//! [`Deadline`]: should the calling thread be set aside past it, the first helper to find
//! it passed ends the search and answers (writes the move) itself. Each helper thread
//! takes a batch of leaves (their paths marked with a virtual loss, so the threads
//! spread over different lines), evaluates it outside the lock and puts the evaluations
//! back. When the search ends the calling thread takes the tree back at once: a helper
//! the scheduler set aside in the middle of a batch no longer holds the move up. Its
//! batch, when it comes back, belongs to a search that is over and is dropped, and the
//! virtual loss it left in the tree is cleared ([`Tree::forget_in_flight`]). The
//! simulation budget is exact when nothing stops the search: leaves in flight count
//! against it. Results depend on the threads' timing, unlike [`super::batch`]'s.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::batch::search_batched;
use super::mcts::{Evaluation, Evaluator, Leaf, MctsParams, Tree};
use crate::games::{Action, Game};

/// Chooses the move from the tree, writes it, and returns it ([`Deadline::answer`]).
pub type AnswerFn<G> = dyn Fn(&Tree<G>) -> Option<Action> + Send + Sync;

/// When a search must have answered, and how: whichever thread first finds `at` passed
/// (the calling thread normally ends the search a batch before) calls `answer` with the
/// tree, which writes the move it chose and returns it.
pub struct Deadline<G: Game> {
    /// When the move is due.
    pub at: Instant,
    /// Chooses the move from the tree, writes it, and returns it.
    pub answer: Arc<AnswerFn<G>>,
}

/// What the threads share.
struct Job<G: Game> {
    /// The tree while a search runs; `None` between searches.
    tree: Option<Tree<G>>,
    /// Counts searches, so that a batch from an earlier one is known when it comes back.
    generation: u64,
    /// Root visits at which the search ends.
    target: u32,
    /// Leaves selected and not yet expanded.
    in_flight: u32,
    params: MctsParams,
    /// The search's deadline, until it is answered or over.
    deadline: Option<Deadline<G>>,
    /// The move a thread answered at the deadline: the search is over.
    answered: Option<Action>,
    /// The pool is being dropped.
    quit: bool,
}

struct Shared<G: Game> {
    job: Mutex<Job<G>>,
    /// Signalled when a search starts, ends, or frees budget.
    changed: Condvar,
}

/// A search pool: the calling thread's evaluator and one helper thread per other.
pub struct SearchPool<G: Game, E> {
    shared: Arc<Shared<G>>,
    own: E,
    helpers: Vec<JoinHandle<()>>,
}

impl<G: Game> Job<G> {
    /// Up to a batch of leaves within the budget; none when no search runs.
    fn take(&mut self) -> Vec<Leaf<G>> {
        let Some(tree) = self.tree.as_mut() else {
            return Vec::new();
        };
        let budget = self
            .target
            .saturating_sub(tree.root_visits() + self.in_flight);
        let mut leaves = Vec::new();
        // At most a batch of simulations, however many end in a finished game (backed
        // up at once, no leaf): endgames keep to the clock too.
        for _ in 0..budget.min(self.params.leaves_per_tree.max(1)) {
            leaves.extend(tree.select_leaf(&self.params));
        }
        self.in_flight += leaves.len() as u32;
        leaves
    }

    /// Puts a batch's evaluations into the tree, if its search still runs.
    fn put(&mut self, generation: u64, leaves: Vec<Leaf<G>>, evals: &[Evaluation]) {
        let running = generation == self.generation && self.answered.is_none();
        let Some(tree) = self.tree.as_mut().filter(|_| running) else {
            return; // a batch of a search that is over (its virtual loss is cleared then)
        };
        self.in_flight -= leaves.len() as u32;
        for (leaf, eval) in leaves.into_iter().zip(evals) {
            tree.expand(leaf, eval);
        }
    }

    fn done(&self) -> bool {
        self.answered.is_some()
            || (self.tree.as_ref()).is_none_or(|t| t.root_visits() >= self.target || t.settled())
    }

    /// Answers for the search if its deadline has passed and nobody has; the deadline
    /// still ahead otherwise.
    fn answer_if_late(&mut self) -> Option<Instant> {
        let (Some(tree), Some(deadline)) = (&self.tree, &self.deadline) else {
            return None;
        };
        if Instant::now() < deadline.at {
            return Some(deadline.at);
        }
        self.answered = (deadline.answer)(tree);
        self.deadline = None;
        None
    }
}

/// Evaluates `leaves` outside the lock (released here, taken again before returning),
/// puts the evaluations back if their search still runs, and wakes the other threads.
fn evaluate<'s, G: Game, E: Evaluator<G>>(
    shared: &'s Shared<G>,
    job: MutexGuard<'s, Job<G>>,
    evaluator: &mut E,
    leaves: Vec<Leaf<G>>,
) -> MutexGuard<'s, Job<G>> {
    let generation = job.generation;
    drop(job);
    let requests: Vec<(&G, &[Action])> = (leaves.iter())
        .map(|l| (&l.state, l.legal.as_slice()))
        .collect();
    let evals = evaluator.evaluate(&requests);
    let mut job = lock(shared);
    job.put(generation, leaves, &evals);
    shared.changed.notify_all();
    job
}

fn lock<G: Game>(shared: &Shared<G>) -> MutexGuard<'_, Job<G>> {
    shared.job.lock().expect("search lock")
}

/// A helper thread: batches for whichever search runs, until the pool is dropped.
fn helper<G: Game, E: Evaluator<G>>(shared: Arc<Shared<G>>, mut evaluator: E) {
    let mut job = lock(&shared);
    loop {
        if job.quit {
            return;
        }
        let ahead = job.answer_if_late();
        let leaves = if job.done() { Vec::new() } else { job.take() };
        if leaves.is_empty() {
            if job.tree.is_some() && !job.done() && job.in_flight == 0 {
                continue; // simulations that ended in finished games: take more
            }
            job = match ahead {
                // Awake at the deadline, in case the calling thread is not.
                Some(at) => {
                    let wait = at.saturating_duration_since(Instant::now());
                    (shared.changed.wait_timeout(job, wait))
                        .expect("search lock")
                        .0
                }
                None => shared.changed.wait(job).expect("search lock"),
            };
            continue;
        }
        job = evaluate(&shared, job, &mut evaluator, leaves);
    }
}

impl<G: Game, E: Evaluator<G> + Send + 'static> SearchPool<G, E> {
    /// A pool searching with `evaluators`: the first on the calling thread, one helper
    /// thread for each of the others.
    pub fn new(mut evaluators: Vec<E>) -> SearchPool<G, E> {
        assert!(!evaluators.is_empty(), "a pool needs an evaluator");
        let own = evaluators.remove(0);
        let shared = Arc::new(Shared {
            job: Mutex::new(Job {
                tree: None,
                generation: 0,
                target: 0,
                in_flight: 0,
                params: MctsParams::default(),
                deadline: None,
                answered: None,
                quit: false,
            }),
            changed: Condvar::new(),
        });
        let helpers = (evaluators.into_iter())
            .map(|e| {
                let shared = Arc::clone(&shared);
                std::thread::spawn(move || helper(shared, e))
            })
            .collect();
        SearchPool {
            shared,
            own,
            helpers,
        }
    }

    /// The threads searching: the caller and the helpers.
    pub fn threads(&self) -> usize {
        1 + self.helpers.len()
    }

    /// The calling thread's evaluator.
    pub fn evaluator(&self) -> &E {
        &self.own
    }

    /// Runs `sims` more simulations on `tree`, each thread taking up to
    /// `params.leaves_per_tree` leaves at a time. `on_root_ready` is called once the
    /// root is expanded (at once for a reused tree), before the helpers join in;
    /// `stop(tree)` is asked before each of the calling thread's batches, and when it
    /// says stop the tree comes back without waiting for the helpers' batches. With a
    /// `deadline`, the move a helper answered there, if one did (the tree is as it
    /// answered from).
    pub fn search(
        &mut self,
        tree: &mut Tree<G>,
        sims: u32,
        params: &MctsParams,
        mut on_root_ready: impl FnMut(&mut Tree<G>),
        mut stop: impl FnMut(&Tree<G>) -> bool,
        deadline: Option<Deadline<G>>,
    ) -> Option<Action> {
        if tree.settled() || sims == 0 {
            return None;
        }
        let target = tree.root_visits().saturating_add(sims);
        if tree.root_expanded() {
            on_root_ready(tree);
        } else {
            let first = &mut self.own;
            search_batched(
                &mut [tree],
                1,
                params,
                first,
                |_, t| on_root_ready(t),
                |_| false,
            );
        }
        let placeholder = Tree::new(tree.root().clone());
        let mut job = lock(&self.shared);
        job.tree = Some(std::mem::replace(tree, placeholder));
        job.generation += 1;
        (job.target, job.in_flight, job.params) = (target, 0, params.clone());
        (job.deadline, job.answered) = (deadline, None);
        self.shared.changed.notify_all();
        loop {
            if job.done() || stop(job.tree.as_ref().expect("the search's tree")) {
                break;
            }
            let leaves = job.take();
            if leaves.is_empty() {
                if job.in_flight > 0 {
                    // The rest of the budget is in the helpers' hands: look again soon.
                    let wait = Duration::from_millis(1);
                    job = (self.shared.changed.wait_timeout(job, wait))
                        .expect("search lock")
                        .0;
                }
                continue;
            }
            job = evaluate(&self.shared, job, &mut self.own, leaves);
        }
        let mut searched = job.tree.take().expect("the search's tree");
        if job.in_flight > 0 {
            searched.forget_in_flight();
        }
        job.in_flight = 0;
        job.deadline = None;
        let answered = job.answered.take();
        self.shared.changed.notify_all();
        *tree = searched;
        answered
    }
}

impl<G: Game, E> Drop for SearchPool<G, E> {
    fn drop(&mut self) {
        lock(&self.shared).quit = true;
        self.shared.changed.notify_all();
        for h in self.helpers.drain(..) {
            let _ = h.join();
        }
    }
}
