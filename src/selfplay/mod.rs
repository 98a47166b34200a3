//! Self-play: workers that play many games at once with MCTS guided by the network.
//!
//! `workers` threads (rayon) each keep `concurrent` games in flight. Each step of a
//! worker runs one batched search over all its games ([`crate::search::batch::search_batched_each`]): every tree
//! contributes a leaf, the leaves go through the network as one batch, and the results
//! are backed up. When the searches are done every game plays its move (sampled in
//! proportion to visits for the first `temperature_plies` plies, the most visited after
//! that), keeps the subtree below it, and a finished game is handed to `on_game` and
//! replaced by a new one. With `inference_batch`, the workers' batches meet in one
//! forward instead ([`crate::nn::queue`]), as a GPU wants them.
//!
//! A share of games (`opponent_fraction`) is played against a fixed agent (a baseline
//! or an older model), one drawn from a league of them ([`league`]): the network plays
//! one seat, drawn at random, and the agent the others. Only the network's moves are
//! recorded as targets; the game's result teaches the value of every position, so the
//! network meets play unlike its own.
//!
//! - `flight`: one thread's games in flight, move by move.
//! - [`league`]: the agents drawn to play beside the network, by its scores against them.
//! - [`generate`]: teacher games written as shards for the fast evaluator's training.
//! - [`replay`]: the replay buffer and its shards in the run's store.
//! - [`resign`]: resignation and its false-resignation check.
//! - [`surprise`]: drawing the window's positions by their policy surprise.
//! - [`worker`]: `contagion selfplay`, a worker uploading games for a run's trainer.

mod flight;
pub mod generate;
pub mod league;
pub mod records;
pub mod replay;
pub mod resign;
pub mod surprise;
pub mod worker;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::agents::{AgentSpec, Baselines};
use crate::config::Config;
use crate::games::{Action, Game, MAX_PLAYERS};
use crate::nn::evaluator::EvalStats;
use crate::nn::queue::Queue;
use crate::nn::{DeviceKind, Net};
use crate::progress::Progress;
use crate::search::mcts::MctsParams;
use resign::ResignRule;

/// One self-play game, stored compactly: the moves from the start position and, for
/// each position, the policy target.
#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode)]
pub struct SelfPlayGame {
    /// The moves from the start position.
    pub moves: Vec<Action>,
    /// `targets[i]`: the policy target before move `i` as `(action, weight)`: the root's
    /// visit counts under PUCT, the improved policy × 65536 under Gumbel search; empty
    /// where the move is no target (a fast search, the opponent's move).
    pub targets: Vec<Vec<(Action, u32)>>,
    /// Final result for each player.
    pub outcome: [f32; MAX_PLAYERS],
    /// Simulations per move of its full searches.
    pub sims: u32,
    /// The seed its random choices came from.
    pub seed: u64,
    /// `values[i]`: the root's mean value for each player before move `i` (for value
    /// targets mixed with the search's estimate); empty in games stored before shard
    /// format 3.
    pub values: Vec<[f32; MAX_PLAYERS]>,
    /// The moves whose position the search proved (ascending): there `values[i]` is the
    /// exact outcome, and it is the position's value target; empty in games stored
    /// before shard format 4.
    pub proven: Vec<u32>,
}

impl SelfPlayGame {
    /// The moves played.
    pub fn plies(&self) -> usize {
        self.moves.len()
    }
}

/// What a training position's targets read of its game beyond the position itself,
/// shared by the game's samples.
#[derive(Debug, Clone)]
pub struct Trace<G> {
    /// The game's last position (its [`Game::owners`] and [`Game::score_vector`] are
    /// the ownership and margin targets).
    pub end: G,
    /// The game's recorded outcome for each player (absolute seats).
    pub outcome: [f32; MAX_PLAYERS],
    /// `scores[i]`: the [`Game::score_vector`] of the position before move `i` (`None`
    /// where the game has no score).
    pub scores: Vec<Option<[f32; MAX_PLAYERS]>>,
}

impl<G> Trace<G> {
    /// The score vector of the position `plies` moves after move `i`'s, or the
    /// recorded outcome where the game ends within `plies`, has no score there, or
    /// `plies` is 0 (a truncated return).
    pub fn ahead(&self, i: usize, plies: usize) -> [f32; MAX_PLAYERS] {
        let later = (plies > 0).then(|| self.scores.get(i + plies)).flatten();
        later.copied().flatten().unwrap_or(self.outcome)
    }
}

/// A training position: the state, the visit distribution and the value target.
#[derive(Debug, Clone)]
pub struct Sample<G> {
    /// The position.
    pub state: G,
    /// `(action, probability)`, summing to 1.
    pub policy: Vec<(Action, f32)>,
    /// The value target for each player (absolute seats): see [`replay::Targets`].
    pub outcome: [f32; MAX_PLAYERS],
    /// The game behind it and the number of its move there; `None` where the sample
    /// has no game behind it (the auxiliary heads' targets read it).
    pub game: Option<(Arc<Trace<G>>, usize)>,
}

impl<G> Sample<G> {
    /// The game's last position, where the sample has a game behind it.
    pub fn end(&self) -> Option<&G> {
        self.game.as_ref().map(|(trace, _)| &trace.end)
    }

    /// [`Trace::ahead`] from this position; [`Sample::outcome`] without a game behind it.
    pub fn ahead(&self, plies: usize) -> [f32; MAX_PLAYERS] {
        match &self.game {
            Some((trace, i)) => trace.ahead(*i, plies),
            None => self.outcome,
        }
    }
}

/// How self-play games are played.
#[derive(Debug, Clone)]
pub struct SelfPlaySettings {
    /// Simulations per move.
    pub sims: u32,
    /// The search's settings.
    pub params: MctsParams,
    /// Plies whose move is sampled by visit count (later: the most visited).
    pub temperature_plies: u32,
    /// Threads playing games.
    pub workers: usize,
    /// Games in flight per thread (their leaves form one batch).
    pub concurrent: usize,
    /// Where the network's forward runs.
    pub device: DeviceKind,
    /// Positions one forward gathers across the threads ([`crate::nn::queue`]); 0: each
    /// thread runs its own games' batch.
    pub inference_batch: usize,
    /// Evaluation cache entries per thread.
    pub cache_size: usize,
    /// Report progress.
    pub progress: bool,
    /// Cut each game after this many moves and record it with [`Game::adjudicate`]'s
    /// result (0: play to the end).
    pub move_limit: u32,
    /// The weight of [`Game::score_vector`] in the recorded outcome (0: the result).
    pub score_weight: f32,
    /// When not 0: the recorded outcome of every seat in a game drawn by its rules
    /// (repetition, turn limit), the score vector aside; below 0 a draw costs every
    /// seat, so none learns to play for one. 0: a draw is recorded like any result.
    pub draw_value: f32,
    /// Playout-cap randomisation: the share of moves searched with `sims` and recorded
    /// as policy targets; the others get `fast_sims`, no noise, and no target.
    pub full_fraction: f64,
    /// Simulations of the moves not searched fully.
    pub fast_sims: u32,
    /// When a player resigns.
    pub resign: ResignRule,
    /// The league: the agents, one of which plays every seat but one in
    /// `opponent_fraction` of the games (none: pure self-play).
    pub league: Vec<AgentSpec>,
    /// Each member's share of those games ([`league::League::weights`]).
    pub league_weights: Vec<f64>,
    /// The share of games played against the league.
    pub opponent_fraction: f64,
}

impl SelfPlaySettings {
    /// The self-play settings of `c` on `workers` threads for games of `iteration`.
    pub fn from_config(
        c: &Config,
        workers: usize,
        progress: bool,
        iteration: u32,
    ) -> SelfPlaySettings {
        let league = (c.selfplay.opponent_fraction > 0.0)
            .then(|| league::League::of(c).ok())
            .flatten();
        SelfPlaySettings {
            sims: c.mcts.simulations,
            params: c.mcts_params(true),
            temperature_plies: c.mcts.temperature_plies,
            workers,
            concurrent: c.selfplay.concurrent_games,
            device: c.train.device,
            inference_batch: c.selfplay.inference_batch,
            cache_size: c.selfplay.cache_size,
            progress,
            move_limit: c.ply_cap(iteration),
            score_weight: c.selfplay.score_weight as f32,
            draw_value: c.selfplay.draw_value as f32,
            full_fraction: c.mcts.full_search_fraction,
            fast_sims: c.mcts.fast_simulations,
            resign: ResignRule {
                threshold: c.selfplay.resign_threshold,
                moves: c.selfplay.resign_moves,
                check_fraction: c.selfplay.resign_check_fraction,
            },
            // Validated with the config: a spec that does not parse is refused there.
            // None without a share of games, so pure self-play draws as it always did.
            league: league.as_ref().map_or(Vec::new(), |l| l.members.clone()),
            league_weights: league.as_ref().map_or(Vec::new(), |l| l.weights()),
            opponent_fraction: c.selfplay.opponent_fraction,
        }
    }

    /// The settings with `league`'s members and weights (its scores recorded so far).
    pub fn with_league(mut self, league: &league::League) -> SelfPlaySettings {
        if !self.league.is_empty() {
            self.league = league.members.clone();
            self.league_weights = league.weights();
        }
        self
    }
}

/// Throughput figures of one [`play`] call.
#[derive(Debug, Clone, Default)]
pub struct SelfPlayStats {
    /// Games finished.
    pub games: u64,
    /// Positions recorded as training targets.
    pub positions: u64,
    /// Games ended by a resignation.
    pub resigned: u64,
    /// Games cut at the ply cap and adjudicated by score.
    pub adjudicated: u64,
    /// Checked games (played out) in which someone would have resigned, and how many
    /// of those resignations would have been false.
    pub resign_checks: u64,
    /// Of those, the resignations that would have been false.
    pub false_resigns: u64,
    /// Games in which a member of the league played all seats but the network's.
    pub opponent_games: u64,
    /// Games against each member of the league and the network's summed score in them
    /// (0 a loss, 1 a win), in the league's order.
    pub league: Vec<(u64, f64)>,
    /// Wall time.
    pub wall: Duration,
    /// The evaluators' counters.
    pub eval: EvalStats,
    /// The nodes the searches of an agent's games visited, and the time they took,
    /// summed over the workers (games of a searching agent: `generate_searched`).
    pub searched: (u64, Duration),
}

impl SelfPlayStats {
    /// Adds another call's (or worker's) counts.
    fn add(&mut self, o: &SelfPlayStats) {
        self.games += o.games;
        self.positions += o.positions;
        self.resigned += o.resigned;
        self.adjudicated += o.adjudicated;
        self.resign_checks += o.resign_checks;
        self.false_resigns += o.false_resigns;
        self.opponent_games += o.opponent_games;
        (self.league).resize(self.league.len().max(o.league.len()), (0, 0.0));
        for (mine, theirs) in self.league.iter_mut().zip(&o.league) {
            mine.0 += theirs.0;
            mine.1 += theirs.1;
        }
        self.eval.add(&o.eval);
        self.searched.0 += o.searched.0;
        self.searched.1 += o.searched.1;
    }

    /// The share of would-be resignations in checked games that were false.
    pub fn false_resign_rate(&self) -> Option<f64> {
        (self.resign_checks > 0).then(|| self.false_resigns as f64 / self.resign_checks as f64)
    }

    /// Recorded positions per second of wall time.
    pub fn positions_per_second(&self) -> f64 {
        self.positions as f64 / self.wall.as_secs_f64().max(1e-9)
    }

    /// The searches' nodes a second, a worker (0 with none).
    pub fn searched_nodes_per_second(&self) -> f64 {
        self.searched.0 as f64 / self.searched.1.as_secs_f64().max(1e-9)
    }

    /// Share of the workers' time spent in the network forward pass.
    pub fn forward_share(&self, workers: usize) -> f64 {
        self.eval.forward_time.as_secs_f64() / (self.wall.as_secs_f64() * workers as f64).max(1e-9)
    }
}

/// Plays `games` games from `start` (game `i` seeded by `Rng::derive(seed, i)`),
/// calling `on_game` with each finished one (from worker threads).
pub fn play<G: Baselines>(
    start: &G,
    net: &Net,
    settings: &SelfPlaySettings,
    games: u32,
    seed: u64,
    on_game: impl Fn(SelfPlayGame) + Sync,
) -> anyhow::Result<SelfPlayStats> {
    let t0 = Instant::now();
    let workers = settings.workers.max(1).min(games.max(1) as usize);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()?;
    let net = net.clone().on_device(settings.device)?;
    // The queue's forward runs while every worker waits for it: on the CPU it takes
    // their cores.
    let queue = match settings.inference_batch {
        0 => None,
        batch => Some(Queue::start(net.clone().with_threads(workers)?, batch)?),
    };
    let progress = Progress::new("self-play", games as u64, "games", settings.progress);
    let total = Mutex::new(Ok(SelfPlayStats {
        league: vec![(0, 0.0); settings.league.len()],
        ..SelfPlayStats::default()
    }));
    pool.install(|| {
        (0..workers).into_par_iter().for_each(|w| {
            let ids: Vec<u64> = (w as u64..games as u64).step_by(workers).collect();
            let net = queue.as_ref().map_or_else(|| net.clone(), Queue::member);
            let stats = flight::run(start, &net, settings, &ids, seed, &|g| {
                progress.inc();
                on_game(g)
            });
            let mut t = total.lock().expect("stats lock");
            match (&mut *t, stats) {
                (Ok(t), Ok(stats)) => t.add(&stats),
                (Ok(_), Err(e)) => *t = Err(e),
                (Err(_), _) => {}
            }
        })
    });
    progress.finish();
    let mut stats = total.into_inner().expect("stats lock")?;
    if let Some(q) = &queue {
        // The forwards that ran: the queue's, not the workers' requests.
        (stats.eval.batches, stats.eval.evaluated) = q.counts();
    }
    stats.wall = t0.elapsed();
    Ok(stats)
}

/// `(1 - w) · outcome + w · score`, with the final position's score vector; the outcome
/// alone when `w` is 0 or the game has no score vector.
pub fn mix_score<G: Game>(outcome: [f32; MAX_PLAYERS], last: &G, w: f32) -> [f32; MAX_PLAYERS] {
    match last.score_vector() {
        Some(score) if w > 0.0 => blend(outcome, &score.0, w),
        _ => outcome,
    }
}

/// `(1 - w) · target + w · other`, per player: the one rule for mixed value targets.
pub fn blend(target: [f32; MAX_PLAYERS], other: &[f32; MAX_PLAYERS], w: f32) -> [f32; MAX_PLAYERS] {
    let mut mixed = target;
    for (m, o) in mixed.iter_mut().zip(other) {
        *m = (1.0 - w) * *m + w * o;
    }
    mixed
}
