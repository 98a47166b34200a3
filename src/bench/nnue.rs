//! The fast evaluator's figures: its cost a position (reading the features and moving
//! the accumulator, and the update and output alone) along random games, and the
//! alpha-beta player's nodes a second from the start beside the network search's
//! simulations a second in the same run.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use super::{Rate, measure, random_playout};
use crate::agents::nnue::NnueAgent;
use crate::agents::{Agent, Baselines, Limits, mcts::MctsAgent};
use crate::games::{Action, Game};
use crate::nn::nnue::net::Scratch;
use crate::nn::nnue::{Accumulator, Evaluator, Incremental};
use crate::rng::Rng;
use crate::search::pvs::Evaluation;
use crate::selfplay::generate::{SearchedGames, generate_searched};

/// Random games' positions from `start`, at least `count`.
pub(super) fn positions<G: Game>(start: &G, count: usize) -> Vec<G> {
    let mut rng = Rng::new(1);
    let mut buf = Vec::new();
    let mut out = Vec::new();
    while out.len() < count {
        let mut s = start.clone();
        // Games of random length, so that every stage of a game is in.
        let plies = random_playout(start, &mut rng.clone(), &mut buf);
        rng.next_u64();
        for _ in 0..plies.saturating_sub(1) {
            out.push(s.clone());
            s.legal_actions(&mut buf);
            let a: Action = buf[rng.below(buf.len())];
            s.apply(a).expect("legal");
            if s.outcome().is_some() {
                break;
            }
        }
    }
    out
}

/// The figures, with `rounds` rounds each and `ms` a search; `model` adds the network
/// search's simulations a second.
pub fn nnue<G: Baselines>(
    start: &G,
    eval: Arc<Evaluator>,
    model: Option<&Path>,
    ms: u64,
    rounds: usize,
) -> anyhow::Result<Vec<Rate>> {
    let states = positions(start, 20_000);
    let kernel = eval.kernel().name();
    let mut out = Vec::new();
    out.push(measure(
        &format!("evaluator: encoding, features, update, output ({kernel})"),
        "positions",
        rounds,
        |_| {
            let mut inc = Incremental::new(eval.clone());
            let mut sink = 0.0f32;
            // Each position entered two plies below the one before it with that mover.
            for (i, s) in states.iter().enumerate() {
                inc.enter(i % 3, s);
                sink += Evaluation::<G>::values(&mut inc, i % 3)[0];
            }
            std::hint::black_box(sink);
            states.len() as u64
        },
    ));
    // The update and output alone, each view from the position two plies before (the
    // same mover, so the same seats' views).
    let (set, views) = (eval.shape.features, eval.shape.views());
    let mut scratch = Scratch::default();
    let mut accs: Vec<Vec<Accumulator>> = (states.iter())
        .map(|s| eval.accumulators(&set.views_of(s, views), &mut scratch))
        .collect();
    out.push(measure(
        &format!("evaluator: update and output ({kernel})"),
        "positions",
        rounds,
        |_| {
            let mut sink = 0;
            for k in 2..accs.len() {
                let (below, here) = accs.split_at_mut(k);
                for (base, acc) in below[k - 2].iter().zip(here[0].iter_mut()) {
                    eval.update(base, acc, &mut scratch);
                }
                sink += eval.raw(&here[0], &mut scratch)[0];
            }
            std::hint::black_box(sink);
            accs.len() as u64 - 2
        },
    ));
    let budget = Duration::from_millis(ms);
    let nnue = || -> Box<dyn Agent<G>> {
        Box::new(NnueAgent::new(
            "nnue".into(),
            eval.clone(),
            None,
            None,
            None,
        ))
    };
    out.push(searches(
        start,
        budget,
        rounds,
        "nnue alpha-beta",
        "nodes",
        nnue,
    )?);
    if let Some(path) = model {
        let net = crate::agents::mcts::cached_net(path)?;
        let sims = crate::limits::MAX_SIMULATIONS as u32;
        let mcts = || -> Box<dyn Agent<G>> {
            Box::new(MctsAgent::new("model".into(), net.clone(), sims, 0, 1))
        };
        out.push(searches(
            start,
            budget,
            rounds,
            "MCTS",
            "simulations",
            mcts,
        )?);
    }
    Ok(out)
}

/// The player's own data as `distill --generate --player` makes it, measured.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DataRate {
    /// Games played.
    pub games: u64,
    /// Positions written (the moves after the openings).
    pub positions: u64,
    /// The player's nodes a move.
    pub nodes: u64,
    /// Games played at once (every core).
    pub threads: usize,
    /// Positions a second.
    pub positions_per_second: f64,
    /// What the search's nodes a second from the start allow: nodes a second × threads /
    /// nodes a move.
    pub bound: f64,
    /// The games' searches' own nodes a second, a thread's (their nodes over their time:
    /// a move costs more where the board is full than at the start).
    pub games_nodes_per_second: f64,
    /// The share of the threads' time in those searches (the rest: openings, records).
    pub search_share: f64,
    /// Bytes of the records a position.
    pub bytes_per_position: f64,
}

impl std::fmt::Display for DataRate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "nnue self-play data, {} nodes a move, {} threads  {:>9.0} positions/s  ({:.0}% of {:.0}: nodes/s × threads / nodes a move; the games' searches {} nodes/s, {:.0}% of the threads' time; {} games, {} positions, {:.1} bytes a position)",
            self.nodes,
            self.threads,
            self.positions_per_second,
            100.0 * self.positions_per_second / self.bound,
            self.bound,
            crate::limits::grouped(self.games_nodes_per_second as u64),
            100.0 * self.search_share,
            self.games,
            self.positions,
            self.bytes_per_position,
        )
    }
}

/// `games` games of the `nnue:` player on `evaluator` at `nodes` a move, on every core,
/// written to a temporary directory (removed after), against the bound that
/// `nodes_per_second` (one search's, from the start) sets.
pub fn data<G: Baselines>(
    start: &G,
    evaluator: &Path,
    games: u32,
    nodes: u64,
    nodes_per_second: f64,
) -> anyhow::Result<DataRate> {
    let dir = std::env::temp_dir().join(format!("contagion-bench-data-{}", std::process::id()));
    let spec = format!("nnue:{},nodes={nodes}", evaluator.display());
    let threads = crate::limits::cores();
    // The data's defaults (their openings; no filter, no adjudication), these games.
    let defaults = crate::config::DistillConfig::default();
    let o = SearchedGames {
        games,
        threads,
        ..SearchedGames::from_config(&defaults, spec.parse()?, 1)
    };
    let store = crate::store::open(&dir.to_string_lossy())?;
    let played = generate_searched(start, &o, &dir.to_string_lossy());
    let chunks = store
        .list(crate::selfplay::records::PREFIX)
        .unwrap_or_default();
    let bytes: u64 = (chunks.iter())
        .filter_map(|k| std::fs::metadata(store.location(k)).ok())
        .map(|m| m.len())
        .sum();
    let _ = std::fs::remove_dir_all(&dir);
    let played = played?;
    Ok(DataRate {
        games: played.games,
        positions: played.positions,
        nodes,
        threads,
        positions_per_second: played.positions_per_second(),
        bound: nodes_per_second * threads as f64 / nodes as f64,
        games_nodes_per_second: played.searched_nodes_per_second(),
        search_share: played.searched.1.as_secs_f64()
            / (played.wall.as_secs_f64() * threads as f64).max(1e-9),
        bytes_per_position: bytes as f64 / played.positions.max(1) as f64,
    })
}

/// The nodes a second of `rounds` searches from `start` of `budget` each, by a fresh
/// agent each round.
fn searches<G: Baselines>(
    start: &G,
    budget: Duration,
    rounds: usize,
    what: &str,
    unit: &str,
    agent: impl Fn() -> Box<dyn Agent<G>>,
) -> anyhow::Result<Rate> {
    let limits = Limits {
        movetime: Some(budget),
        ..Limits::default()
    };
    let mut rates = Vec::new();
    for _ in 0..rounds {
        let mut agent = agent();
        agent.select(start, &limits)?;
        let info = agent.last_search().expect("a search");
        rates.push(info.nodes as f64 / info.time.as_secs_f64());
    }
    let what = format!("{what} from the start, {} ms", budget.as_millis());
    Ok(super::summarise(&what, unit, rates))
}
