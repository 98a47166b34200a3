//! `model:PATH[,sims=N][,ms=M][,threads=T]`: MCTS guided by a trained network.
//!
//! `PATH` is a checkpoint file or a run directory (its `best.ckpt`), local or in an S3
//! store (`s3://bucket/prefix/run`). Each move runs `N`
//! simulations (fewer if a time limit from `ms`, `go movetime`, `go wtime/btime` or the
//! match clock runs out first, or once more search could not change the move: see
//! [`super::timing`]), collecting 8 leaves per network batch with virtual loss, with no
//! noise and no sampling: the most visited move is played, a proven win at once, never
//! a proven loss while another move is not one ([`crate::search::mcts::proof`]); a
//! proven root ends the search and reports `score mate N`. With `T` threads, the
//! calling thread and `T - 1` threads of a pool that lives with the agent search the one
//! tree, each evaluating its own batches, and the move is read at its deadline without
//! waiting for a thread the scheduler set aside ([`crate::search::pool`]); with
//! [`Limits::answer`] (the engine's) a helper that finds the deadline passed writes the
//! move itself when the calling thread is the one set aside. The tree is
//! kept between moves when the new position lies below it.
//!
//! Loaded networks are cached by path and modification (a file's mtime and size, an
//! object's ETag), so a match that builds an agent per game reads each file once.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use super::timing::TimePlan;
use super::{Agent, AgentOption, Limits, Score, SearchInfo, move_budget};
use crate::games::{Action, Game};
use crate::nn::formats::checkpoint::load_net;
use crate::nn::{Net, NetEvaluator};
use crate::rng::Rng;
use crate::search::batch::search_batched;
use crate::search::endgame::{Solution, SolveLimits, Solver};
use crate::search::mcts::{GumbelParams, MctsParams, Tree};
use crate::search::pool::{Deadline, SearchPool};

/// Leaves evaluated together per batch within one search.
const LEAVES_PER_BATCH: u32 = 8;

/// Cached evaluations per MiB of the cache's half of the `Hash` option (an entry holds
/// the priors of a position's legal moves: about a kilobyte).
const CACHE_ENTRIES_PER_MIB: u64 = 1024;

/// The `Hash` option's default, in MiB: half for cached evaluations, half for the tree
/// (about two million nodes; [`Tree::limit_bytes`]).
const DEFAULT_HASH_MIB: u64 = 256;

/// The cached evaluations `Hash` MiB hold.
const fn cache_entries(hash_mib: u64) -> usize {
    (hash_mib / 2 * CACHE_ENTRIES_PER_MIB) as usize
}

/// The bytes of tree `Hash` MiB hold.
const fn tree_bytes(hash_mib: u64) -> usize {
    (hash_mib as usize) << 19
}

/// The share of a move's time the endgame solver may take (the search has the rest
/// when it does not finish).
const SOLVER_SHARE: u32 = 2;

/// Without a time limit, the endgame solver's nodes per simulation of the budget: a
/// solver node costs about a hundredth of a simulation's network evaluation, so this
/// gives it about half the time the simulations take.
pub const SOLVER_NODES_PER_SIM: u64 = 50;

/// Whether the model agent hands positions in reach to the endgame solver unless told
/// otherwise (the engine's `Endgame` option). Off: at 100 ms a move the agent with it
/// scored 43-4-53 against the agent without it (experiments/endgame), where the search's
/// own proofs already settle most such positions and a failed solve costs half a move.
const ENDGAME: bool = false;

/// The endgame solver's transposition table: `2^bits` entries.
const SOLVER_TABLE_BITS: u32 = 18;

type NetCache = Mutex<HashMap<PathBuf, (Option<String>, Net)>>;

/// The network at `path` (a file, directory or object URL), read once per modification.
pub fn cached_net(path: &Path) -> anyhow::Result<Net> {
    static CACHE: OnceLock<NetCache> = OnceLock::new();
    let modified = crate::nn::formats::checkpoint::checkpoint_file(path)
        .ok()
        .filter(|_| !crate::nn::formats::bundle::is_bundle(path))
        .map_or_else(
            || crate::store::local::file_tag(path),
            |f| crate::store::tag_location(&f),
        )
        .ok()
        .flatten();
    let cache = CACHE.get_or_init(Default::default);
    if let Some((m, net)) = cache.lock().expect("net cache").get(path)
        && *m == modified
    {
        return Ok(net.clone());
    }
    let net = load_net(path)?.for_search()?;
    cache
        .lock()
        .expect("net cache")
        .insert(path.to_path_buf(), (modified, net.clone()));
    Ok(net)
}

/// The `model:PATH` agent: MCTS guided by a network, with an evaluation cache.
pub struct MctsAgent<G: Game> {
    name: String,
    /// The evaluators: one on the calling thread, or a pool of threads.
    searchers: Searchers<G>,
    /// Cached evaluations in all.
    cache_entries: usize,
    /// The tree's share of `Hash`, in bytes.
    tree_bytes: usize,
    sims: u32,
    /// The spec's time per move (`ms`), when the limits give none.
    move_time: Option<Duration>,
    params: MctsParams,
    tree: Option<Tree<G>>,
    /// The exact endgame solver, made on first use; `None` with `endgame` off.
    solver: Option<Solver<G>>,
    /// Whether positions in the solver's reach ([`Game::in_solver_reach`]) go to it
    /// ([`ENDGAME`] by default).
    endgame: bool,
    rng: Rng,
    last: Option<Summary>,
}

/// Who evaluates the leaves, each with its share of the cache.
enum Searchers<G: Game> {
    /// The calling thread alone (the search is then deterministic).
    One(NetEvaluator<G>),
    /// The calling thread and a pool of helpers.
    Pool(SearchPool<G, NetEvaluator<G>>),
}

impl<G: Game> Searchers<G> {
    fn new(net: &Net, threads: usize, cache_entries: usize) -> Searchers<G> {
        let each = cache_entries / threads;
        match threads {
            1 => Searchers::One(NetEvaluator::new(net.clone(), each)),
            n => Searchers::Pool(SearchPool::new(
                (0..n)
                    .map(|_| NetEvaluator::new(net.clone(), each))
                    .collect(),
            )),
        }
    }

    fn net(&self) -> &Net {
        match self {
            Searchers::One(e) => e.net(),
            Searchers::Pool(p) => p.evaluator().net(),
        }
    }

    fn threads(&self) -> usize {
        match self {
            Searchers::One(_) => 1,
            Searchers::Pool(p) => p.threads(),
        }
    }
}

/// What the last search found.
struct Summary {
    info: SearchInfo,
    player: &'static str,
    /// The mover's mean value at the root.
    value: f32,
    /// The most visited moves: (move, visits, value for the mover).
    best: Vec<(Action, u32, f32)>,
    /// Whether the endgame solver found the move (the nodes are its own).
    solved: bool,
}

impl<G: Game> MctsAgent<G> {
    /// `gumbel`: Gumbel root search over that many actions, deterministic; 0: PUCT.
    pub fn new(name: String, net: Net, sims: u32, gumbel: u32, seed: u64) -> MctsAgent<G> {
        MctsAgent {
            name,
            searchers: Searchers::new(&net, 1, cache_entries(DEFAULT_HASH_MIB)),
            cache_entries: cache_entries(DEFAULT_HASH_MIB),
            tree_bytes: tree_bytes(DEFAULT_HASH_MIB),
            sims,
            move_time: None,
            params: MctsParams {
                leaves_per_tree: LEAVES_PER_BATCH,
                gumbel: (gumbel > 0).then(|| GumbelParams {
                    actions: gumbel,
                    ..GumbelParams::default()
                }),
                ..MctsParams::default()
            },
            tree: None,
            solver: None,
            endgame: ENDGAME,
            rng: Rng::new(seed),
            last: None,
        }
    }

    /// The time per move when the limits give none (a spec's `ms`); `None`: no limit.
    pub fn set_move_time(&mut self, time: Option<Duration>) {
        self.move_time = time;
    }

    /// The exact endgame solver's move, when the position is in its reach and it solves
    /// it as a win or a draw within half the move's time (or [`SOLVER_NODES_PER_SIM`]
    /// nodes per simulation). A lost position goes to the search.
    fn solve(&mut self, state: &G, limits: &Limits, start: Instant) -> Option<Action> {
        let tree = self.tree.as_mut()?;
        if !self.endgame || !state.in_solver_reach() || tree.root_proof().is_some() {
            return None;
        }
        let time = (!limits.infinite).then(|| move_budget(state, limits, self.move_time));
        let budget = time.flatten();
        let solve_limits = SolveLimits {
            deadline: budget.map(|b| start + b / SOLVER_SHARE),
            nodes: budget
                .is_none()
                .then(|| simulations(limits, self.sims) as u64 * SOLVER_NODES_PER_SIM),
            stop: limits.stop.clone(),
            margin: true,
        };
        let solver = self
            .solver
            .get_or_insert_with(|| Solver::new(SOLVER_TABLE_BITS));
        let solution = solver.solve(state, &tree.root_by_prior(), solve_limits)?;
        if solution.result < 0 {
            // Lost against perfect play: every move loses, and the search's choice
            // leaves a fallible opponent the most chances to go wrong.
            return None;
        }
        let me = state.to_move();
        tree.prove_root(solution.best, solution.proof(me));
        self.last = Some(solved_summary(state, &solution, start));
        Some(solution.best)
    }

    /// `threads` evaluators sharing the cache's capacity (their caches start empty).
    fn rebuild_evaluators(&mut self, threads: usize) {
        let net = self.searchers.net().clone();
        self.searchers = Searchers::new(&net, threads, self.cache_entries);
    }
}

/// What [`MctsAgent::last_search`] reports of a position the endgame solver solved.
fn solved_summary<G: Game>(state: &G, solution: &Solution, start: Instant) -> Summary {
    let me = state.to_move();
    Summary {
        info: super::solved_info(state, solution, start),
        player: state.player_name(me),
        value: solution.result as f32,
        best: Vec::new(),
        solved: true,
    }
}

/// What [`MctsAgent::last_search`] reports of a search that chose `action`.
fn summary<G: Game>(tree: &Tree<G>, state: &G, action: Action, start: Instant) -> Summary {
    let mut best = tree.root_children();
    best.sort_by_key(|c| std::cmp::Reverse(c.1));
    best.truncate(5);
    let me = state.to_move();
    let value = tree.root_values()[me];
    let pv = tree.principal_variation(action);
    Summary {
        info: SearchInfo {
            depth: pv.len() as u32,
            nodes: tree.root_visits() as u64,
            time: start.elapsed(),
            score: match tree.root_proof().and_then(|p| p.mate_in(me)) {
                Some(moves) => Score::Mate(moves),
                None => Score::from_value(value),
            },
            pv,
            note: tree.is_full().then(|| {
                format!(
                    "the tree is full ({} nodes in {} MiB, half of Hash): its leaves are evaluated but no longer expanded",
                    tree.size(),
                    tree.bytes() >> 20
                )
            }),
        },
        player: state.player_name(me),
        value,
        best,
        solved: false,
    }
}

/// The simulations for one move: `go nodes` if given, else the spec's (the cap for
/// `go infinite`), never more than
/// [`crate::limits::MAX_SIMULATIONS`] (the tree grows with every simulation).
pub fn simulations(limits: &Limits, spec: u32) -> u32 {
    let own = if limits.infinite {
        crate::limits::MAX_SIMULATIONS
    } else {
        spec as u64
    };
    limits
        .nodes
        .map_or(own, |n| n)
        .clamp(1, crate::limits::MAX_SIMULATIONS) as u32
}

impl<G: Game> Agent<G> for MctsAgent<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn select(&mut self, state: &G, limits: &Limits) -> anyhow::Result<Action> {
        let start = limits.start();
        let shape = &self.searchers.net().shape;
        anyhow::ensure!(
            shape.plays(state),
            "{}: a network for '{}' cannot play '{}'",
            self.name,
            shape.game,
            state.name()
        );
        anyhow::ensure!(state.outcome().is_none(), "no legal move: the game is over");
        let tree = self.tree.get_or_insert_with(|| Tree::new(state.clone()));
        // The move this agent chose last leads its previous search's principal variation.
        let played = self.last.as_ref().and_then(|s| s.info.pv.first().copied());
        tree.reroot(state, played);
        if let Some(solution) = self.solve(state, limits, start) {
            return Ok(solution);
        }
        let tree = self.tree.as_mut().expect("made above");
        tree.limit_bytes(self.tree_bytes);
        // Gumbel's sequential halving plans its whole budget: it stops only at deadlines.
        let settle = self.params.gumbel.is_none();
        let mut plan = match limits.infinite {
            true => TimePlan::new(state, &Limits::default(), None, start, settle),
            false => TimePlan::new(state, limits, self.move_time, start, settle),
        };
        let sims = simulations(limits, self.sims);
        // At the deadline a helper thread answers if the calling thread has not.
        let deadline = (limits.answer.clone())
            .zip(plan.hard_deadline())
            .map(|(answer, at)| {
                let state = state.clone();
                let answer = move |tree: &Tree<G>| {
                    let action = tree.choose(false, &mut Rng::new(0))?;
                    (answer.0)(action, &summary(tree, &state, action, start).info);
                    Some(action)
                };
                Deadline {
                    at,
                    answer: Arc::new(answer),
                }
            });
        let (params, rng) = (&self.params, &mut self.rng);
        let (before, target) = (tree.root_visits(), tree.root_visits().saturating_add(sims));
        let mut stop = |tree: &Tree<G>| {
            if !plan.has_deadline() {
                return limits.stop.requested(); // no root scan on the hot path
            }
            let children: Vec<(u32, f32)> =
                (tree.root_children().iter()).map(|c| (c.1, c.2)).collect();
            let visits = tree.root_visits();
            let (searched, left) = (visits.saturating_sub(before), target.saturating_sub(visits));
            limits.stop.requested() || plan.stop(&children, searched, left)
        };
        let mut begin = |tree: &mut Tree<G>| tree.begin(params, sims, rng, false);
        let answered = match &mut self.searchers {
            Searchers::One(one) => {
                let trees = &mut [&mut *tree];
                search_batched(trees, sims, params, one, |_, t| begin(t), |t| stop(t[0]));
                None
            }
            Searchers::Pool(pool) => pool.search(tree, sims, params, begin, stop, deadline),
        };
        let action = match answered {
            Some(action) => action,
            None => (tree.choose(false, &mut self.rng))
                .ok_or_else(|| anyhow::anyhow!("the search produced no move"))?,
        };
        self.last = Some(summary(tree, state, action, start));
        Ok(action)
    }

    fn last_search(&self) -> Option<SearchInfo> {
        self.last.as_ref().map(|s| s.info.clone())
    }

    fn thinking(&self, state: &G) -> Vec<String> {
        let Some(s) = &self.last else {
            return Vec::new();
        };
        let pv: Vec<String> = s
            .info
            .pv
            .iter()
            .map(|&a| state.action_to_string(a))
            .collect();
        let what = if s.solved {
            "endgame solver nodes"
        } else {
            "simulations"
        };
        let mut lines = vec![format!(
            "{} {what} in {} ms; {} expects {:+.2} (+1 a win, -1 a loss); line {}",
            s.info.nodes,
            s.info.time.as_millis(),
            s.player,
            s.value,
            pv.join(" ")
        )];
        for &(a, n, q) in &s.best {
            let share = 100.0 * n as f64 / s.info.nodes.max(1) as f64;
            let m = state.action_to_string(a);
            lines.push(format!("  {m:<18} {share:5.1}% of visits   value {q:+.2}"));
        }
        lines
    }

    fn options(&self) -> Vec<AgentOption> {
        let knobs = super::knobs::KNOBS.iter().map(|k| AgentOption {
            name: k.option,
            default: k.default,
            min: 0,
            max: k.max,
        });
        let mut options = vec![
            AgentOption {
                name: "Simulations",
                default: self.sims as u64,
                min: 1,
                max: crate::limits::MAX_SIMULATIONS,
            },
            AgentOption {
                name: "Hash",
                default: DEFAULT_HASH_MIB,
                min: 0,
                max: crate::limits::MAX_HASH_MIB,
            },
            AgentOption {
                name: "Endgame",
                default: u64::from(ENDGAME),
                min: 0,
                max: 1,
            },
        ];
        options.extend(knobs);
        options
    }

    fn set_threads(&mut self, threads: usize) -> anyhow::Result<()> {
        crate::limits::at_most("threads", threads, crate::limits::MAX_THREADS)?;
        self.rebuild_evaluators(threads.max(1));
        Ok(())
    }

    fn set_option(&mut self, name: &str, value: u64) -> anyhow::Result<()> {
        match name {
            "Simulations" => self.sims = value as u32,
            "Endgame" => self.endgame = value != 0,
            "Hash" => {
                self.cache_entries = cache_entries(value);
                self.tree_bytes = tree_bytes(value);
                self.rebuild_evaluators(self.searchers.threads());
            }
            _ => match super::knobs::by_option(name) {
                Some(k) => (k.apply)(&mut self.params, value as f32 / 100.0),
                None => anyhow::bail!("{}: no option '{name}'", self.name),
            },
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_nodes_is_capped_at_the_simulation_limit() {
        let nodes = |n| Limits {
            nodes: Some(n),
            ..Limits::default()
        };
        assert_eq!(simulations(&Limits::default(), 200), 200);
        assert_eq!(simulations(&nodes(50), 200), 50);
        assert_eq!(simulations(&nodes(0), 200), 1);
        assert_eq!(simulations(&nodes(10_000_000_000), 200), 1_000_000);
    }
}
