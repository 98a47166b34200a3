//! `nnue:PATH`: principal variation search ([`crate::search::pvs`]) over the fast
//! evaluator ([`crate::nn::nnue`]). The spec's keys are its kind's in
//! [`super::spec::KINDS`]: the limits `ms`, `depth` and `nodes`, and one for each of
//! [`crate::search::pvs::PRUNING_KNOBS`].
//!
//! `PATH` is an evaluator bundle, or `models/<game>` for the game's current evaluator
//! as `models/index.json` names it. Each move deepens iteratively until its time (from
//! `ms`, `go movetime`, the clock or the match) is half spent (no new iteration starts
//! past it) or spent (the iteration is dropped), or to depth `D`, or for `N` nodes;
//! with no limit at all, to [`DEFAULT_DEPTH`]. Positions within the exact endgame
//! solver's reach go to the solver first, for at most half the move's time: a proven
//! win is played at once, and a proven loss is not played into while another move is
//! not one. The transposition table keeps the engine's `Hash` MiB and lives with the
//! agent from move to move. Positions of a game with a faster form of its rules are
//! searched on it ([`Game::fast`]; Ataxx's bitboards: the same moves, several times the
//! nodes a second). With `pol`, the game's
//! current network beside the evaluator (or [`NnueAgent::set_network`]'s) orders the
//! moves of the root and its replies by its policy: one batch of forwards a move.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{Agent, AgentOption, Limits, Score, SearchInfo, move_budget};
use crate::games::{Action, Game, Searchable};
use crate::nn::Net;
use crate::nn::formats::models::{resolve, resolve_evaluator};
use crate::nn::nnue::{Evaluator, Incremental, bundle};
use crate::search::endgame::{SolveLimits, Solver};
use crate::search::pvs::{Pruning, Pvs, PvsLimits, value_of};

/// The search depth when the spec and the `go` line give no limit.
pub const DEFAULT_DEPTH: u32 = 4;
/// The transposition table's default size, MiB (the engine's `Hash`): a million
/// entries, more than a second's search at a million nodes a second stores.
pub const DEFAULT_HASH_MIB: u64 = 16;
/// Under a clock, the share of a move's time after which no new iteration starts (the
/// rest is banked); under a fixed time a move nothing is banked, and the search runs to
/// the deadline.
const SOFT_SHARE: f64 = 0.5;
/// The endgame solver's table, `2^bits` entries.
pub const SOLVER_TABLE_BITS: u32 = 18;
/// Without a time limit, the solver's nodes a move: this many, or the search's own node
/// budget where that is smaller (so a fixed-node player spends on an endgame what it
/// spends on any move).
pub const SOLVER_NODES: u64 = 200_000;

/// The alpha-beta player on the fast evaluator.
pub struct NnueAgent<G: Game> {
    name: String,
    eval: Incremental,
    /// The search on the game's states, made at the first search of a game that has no
    /// bitboards.
    search: Option<Pvs<G>>,
    /// The search on the game's faster form ([`Game::fast`]), made when a position that
    /// has one first comes.
    fast: Option<Pvs<G::Fast>>,
    hash_mib: u64,
    pruning: Pruning,
    /// The network whose policy orders the first plies' moves (`pol`), and where it is
    /// loaded from when first needed: the game's current model beside the evaluator.
    network: Option<Net>,
    network_path: Option<PathBuf>,
    solver: Option<Solver<G>>,
    ms: Option<u64>,
    depth: Option<u32>,
    nodes: Option<u64>,
    /// Nodes after which no new iteration starts (`soft=`).
    soft_nodes: Option<u64>,
    last: Option<SearchInfo>,
}

impl<G: Game> NnueAgent<G> {
    /// The player on the evaluator bundle at `path` (see [`resolve_evaluator`]) for `start`'s game.
    pub fn load(
        name: String,
        path: &Path,
        start: &G,
        ms: Option<u64>,
        depth: Option<u32>,
        nodes: Option<u64>,
    ) -> anyhow::Result<NnueAgent<G>> {
        let bundle_path = resolve_evaluator(path, start.name());
        let eval = bundle::load_evaluator(&bundle_path, start)?;
        let mut agent = NnueAgent::new(name, Arc::new(eval), ms, depth, nodes);
        agent.network_path = (bundle_path.parent()).map(|dir| resolve(&dir.join(start.name())));
        Ok(agent)
    }

    /// The player on `eval`.
    pub fn new(
        name: String,
        eval: Arc<Evaluator>,
        ms: Option<u64>,
        depth: Option<u32>,
        nodes: Option<u64>,
    ) -> NnueAgent<G> {
        NnueAgent {
            name,
            eval: Incremental::new(eval),
            search: None,
            fast: None,
            hash_mib: DEFAULT_HASH_MIB,
            pruning: Pruning::default(),
            network: None,
            network_path: None,
            solver: None,
            ms,
            depth,
            nodes,
            soft_nodes: None,
            last: None,
        }
    }

    /// Starts no new iteration once a search has spent `nodes` (the public engines' soft
    /// limit beside the hard `nodes`); `None`: none.
    pub fn set_soft_nodes(&mut self, nodes: Option<u64>) {
        self.soft_nodes = nodes;
    }

    /// What the search prunes ([`Pruning::DEFAULT`] unless set).
    pub fn set_pruning(&mut self, pruning: Pruning) {
        self.pruning = pruning;
        for pvs in self.search.iter_mut() {
            pvs.pruning = pruning;
        }
        for pvs in self.fast.iter_mut() {
            pvs.pruning = pruning;
        }
    }

    /// The network whose policy orders the moves of the first plies when the pruning's
    /// `prior` asks for it (instead of the game's current model beside the evaluator).
    pub fn set_network(&mut self, net: Net) {
        self.network = Some(net);
    }

    /// The network for `pol`, loaded when first asked for.
    fn network(&mut self, start: &G) -> anyhow::Result<&Net> {
        if self.network.is_none() {
            let path = (self.network_path.clone()).ok_or_else(|| {
                anyhow::anyhow!("{}: pol needs a network and has none", self.name)
            })?;
            let net = super::mcts::cached_net(&path).map_err(|e| {
                anyhow::anyhow!(
                    "{}: pol orders moves by the game's current network beside the evaluator, {}: {e:#}",
                    self.name,
                    path.display()
                )
            })?;
            anyhow::ensure!(
                net.shape.plays(start),
                "{}: the network at {} plays '{}', not '{}'",
                self.name,
                path.display(),
                net.shape.game,
                start.name()
            );
            self.network = Some(net);
        }
        Ok(self.network.as_ref().expect("loaded above"))
    }

    /// The exact solver's move where the position is in its reach and it proves a
    /// win or a draw in time.
    fn solve(
        &mut self,
        state: &G,
        limits: &Limits,
        hard: Option<Instant>,
        nodes: Option<u64>,
    ) -> Option<Action> {
        if !state.in_solver_reach() || state.num_players() != 2 {
            return None;
        }
        let start = limits.start();
        let solve_limits = SolveLimits {
            deadline: hard.map(|h| start + (h - start) / 2),
            nodes: hard
                .is_none()
                .then(|| nodes.map_or(SOLVER_NODES, |n| n.min(SOLVER_NODES))),
            stop: limits.stop.clone(),
            margin: true,
        };
        let solver = self
            .solver
            .get_or_insert_with(|| Solver::new(SOLVER_TABLE_BITS));
        let s = solver.solve(state, &[], solve_limits)?;
        if s.result < 0 {
            return None; // every move loses: the search picks the most stubborn
        }
        self.last = Some(super::solved_info(state, &s, start));
        Some(s.best)
    }
}

/// The network's policy logits (by action) of `state` and, with `plies` 2, of the
/// position after each of its moves, keyed as the search keys `node` (the same position
/// in the search's form) and the positions after its moves.
fn priors<G: Game, P: Searchable>(
    net: &Net,
    state: &G,
    node: &P,
    plies: u8,
) -> HashMap<u64, Vec<f32>> {
    let mut positions = vec![(state.clone(), node.key())];
    if plies >= 2 {
        let mut moves = Vec::new();
        Game::legal_actions(state, &mut moves);
        for a in moves {
            let (mut s, mut n) = (state.clone(), node.clone());
            if s.apply(a).is_err() || s.outcome().is_some() {
                continue;
            }
            n.play(a);
            positions.push((s, n.key()));
        }
    }
    let len = state.encoding_shape().len();
    let mut input = vec![0.0; positions.len() * len];
    for ((s, _), x) in positions.iter().zip(input.chunks_mut(len)) {
        s.encode(x);
    }
    let out = net.infer(input, positions.len());
    let actions = state.action_space();
    (positions.into_iter().zip(out.logits.chunks(actions)))
        .map(|((_, key), logits)| (key, logits.to_vec()))
        .collect()
}

/// A searcher with a table of `hash_mib` MiB that prunes as `pruning` says.
fn searcher<P: Searchable>(hash_mib: u64, pruning: Pruning) -> Pvs<P> {
    let mut pvs = Pvs::new(hash_mib);
    pvs.pruning = pruning;
    pvs
}

impl<G: Game> Agent<G> for NnueAgent<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn select(&mut self, state: &G, limits: &Limits) -> anyhow::Result<Action> {
        anyhow::ensure!(state.outcome().is_none(), "no legal move: the game is over");
        let start = limits.start();
        let (budget, depth, nodes) = if limits.infinite {
            (None, None, None)
        } else {
            (
                move_budget(state, limits, self.ms.map(Duration::from_millis)),
                limits.depth.or(self.depth),
                limits.nodes.or(self.nodes),
            )
        };
        let depth = match (budget, depth, nodes) {
            (None, None, None) if !limits.infinite => Some(DEFAULT_DEPTH),
            _ => depth,
        };
        let hard = budget.map(|b| start + b);
        if let Some(best) = self.solve(state, limits, hard, nodes) {
            return Ok(best);
        }
        let pvs_limits = PvsLimits {
            depth,
            nodes,
            soft_nodes: self.soft_nodes.filter(|_| !limits.infinite),
            soft: match limits.time_left {
                Some(_) => budget.map(|b| start + b.mul_f64(SOFT_SHARE)),
                None => hard,
            },
            hard,
            stop: limits.stop.clone(),
        };
        let fast = state.fast();
        let plies = self.pruning.prior;
        let net = match plies {
            0 => None,
            _ => Some(self.network(state)?.clone()),
        };
        let r = match fast {
            Some(fast) => {
                let pvs = (self.fast).get_or_insert_with(|| searcher(self.hash_mib, self.pruning));
                if let Some(net) = &net {
                    pvs.set_prior(priors(net, state, &fast, plies));
                }
                pvs.search(&fast, &mut self.eval, pvs_limits)
            }
            None => {
                let pvs =
                    (self.search).get_or_insert_with(|| searcher(self.hash_mib, self.pruning));
                if let Some(net) = &net {
                    pvs.set_prior(priors(net, state, state, plies));
                }
                pvs.search(state, &mut self.eval, pvs_limits)
            }
        }
        .ok_or_else(|| anyhow::anyhow!("no legal move"))?;
        let score = match r.mate_plies() {
            Some(plies) => {
                let moves =
                    (plies.abs() + state.num_players() as i32 - 1) / state.num_players() as i32;
                Score::Mate(i64::from(moves.max(1) * plies.signum()))
            }
            None => Score::from_value(value_of(r.score, self.pruning.logit)),
        };
        self.last = Some(SearchInfo {
            depth: r.depth,
            nodes: r.nodes,
            time: start.elapsed(),
            score,
            pv: r.pv.clone(),
            note: None,
        });
        Ok(r.best)
    }

    fn last_search(&self) -> Option<SearchInfo> {
        self.last.clone()
    }

    fn options(&self) -> Vec<AgentOption> {
        vec![AgentOption {
            name: "Hash",
            default: DEFAULT_HASH_MIB,
            min: 1,
            max: crate::limits::MAX_HASH_MIB,
        }]
    }

    fn set_option(&mut self, name: &str, value: u64) -> anyhow::Result<()> {
        match name {
            "Hash" => {
                self.hash_mib = value;
                if let Some(search) = &mut self.search {
                    search.resize(value);
                }
                if let Some(fast) = &mut self.fast {
                    fast.resize(value);
                }
                Ok(())
            }
            _ => anyhow::bail!("{}: no option '{name}'", self.name),
        }
    }
}
