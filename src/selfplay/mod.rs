//! Self-play: workers that play many games at once with MCTS guided by the network.
//!
//! `workers` threads (rayon) each keep `concurrent` games in flight. Each step of a
//! worker runs one batched search over all its games ([`search_batched_each`]): every tree
//! contributes a leaf, the leaves go through the network as one batch, and the results
//! are backed up. When the searches are done every game plays its move (sampled in
//! proportion to visits for the first `temperature_plies` plies, the most visited after
//! that), keeps the subtree below it, and a finished game is handed to `on_game` and
//! replaced by a new one.
//!
//! A share of games (`opponent_fraction`) is played against a fixed agent (a baseline
//! or an older model): the network plays one seat, drawn at random, and the agent the
//! others. Only the network's moves are recorded as targets; the game's result teaches
//! the value of every position, so the network meets play unlike its own.
//!
//! - [`replay`]: the replay buffer and its shards in the run's store.
//! - [`resign`]: resignation and its false-resignation check.
//! - [`worker`]: `contagion selfplay`, a worker uploading games for a run's trainer.

pub mod replay;
pub mod resign;
pub mod worker;

use std::sync::Mutex;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::agents::{Agent, AgentSpec, Baselines, Limits};
use crate::config::Config;
use crate::games::{Action, Game, MAX_PLAYERS};
use crate::nn::evaluator::EvalStats;
use crate::nn::{Net, NetEvaluator};
use crate::progress::Progress;
use crate::rng::Rng;
use crate::search::batch::search_batched_each;
use crate::search::mcts::{MctsParams, Tree};
use resign::{ResignRule, ResignWatch, Verdict, resigned_outcome};

/// One self-play game, stored compactly: the moves from the start position and, for
/// each position, the root's visit counts (the policy target).
#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode)]
pub struct SelfPlayGame {
    pub moves: Vec<Action>,
    /// `visits[i]`: `(action, visits)` of the root's children before move `i`.
    pub visits: Vec<Vec<(Action, u32)>>,
    /// Final result for each player.
    pub outcome: [f32; MAX_PLAYERS],
    pub sims: u32,
    pub seed: u64,
    /// `values[i]`: the root's mean value for each player before move `i` (for value
    /// targets mixed with the search's estimate); empty in games stored before shard
    /// format 3.
    pub values: Vec<[f32; MAX_PLAYERS]>,
}

impl SelfPlayGame {
    pub fn plies(&self) -> usize {
        self.moves.len()
    }
}

/// How self-play games are played.
#[derive(Debug, Clone)]
pub struct SelfPlaySettings {
    pub sims: u32,
    pub params: MctsParams,
    pub temperature_plies: u32,
    pub workers: usize,
    pub concurrent: usize,
    pub cache_size: usize,
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
    pub fast_sims: u32,
    pub resign: ResignRule,
    /// The agent that plays every seat but one in `opponent_fraction` of the games.
    pub opponent: Option<AgentSpec>,
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
        SelfPlaySettings {
            sims: c.mcts.simulations,
            params: c.mcts_params(true),
            temperature_plies: c.mcts.temperature_plies,
            workers,
            concurrent: c.selfplay.concurrent_games,
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
            opponent: (c.selfplay.opponent_fraction > 0.0)
                .then(|| c.selfplay.opponent.parse().ok())
                .flatten(),
            opponent_fraction: c.selfplay.opponent_fraction,
        }
    }
}

/// Throughput figures of one [`play`] call.
#[derive(Debug, Clone, Default)]
pub struct SelfPlayStats {
    pub games: u64,
    pub positions: u64,
    /// Games ended by a resignation.
    pub resigned: u64,
    /// Games cut at the ply cap and adjudicated by score.
    pub adjudicated: u64,
    /// Checked games (played out) in which someone would have resigned, and how many
    /// of those resignations would have been false.
    pub resign_checks: u64,
    pub false_resigns: u64,
    /// Games in which `opponent` played all seats but the network's.
    pub opponent_games: u64,
    pub wall: Duration,
    pub eval: EvalStats,
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
        self.eval.add(&o.eval);
    }

    /// The share of would-be resignations in checked games that were false.
    pub fn false_resign_rate(&self) -> Option<f64> {
        (self.resign_checks > 0).then(|| self.false_resigns as f64 / self.resign_checks as f64)
    }

    pub fn positions_per_second(&self) -> f64 {
        self.positions as f64 / self.wall.as_secs_f64().max(1e-9)
    }

    /// Share of the workers' time spent in the network forward pass.
    pub fn forward_share(&self, workers: usize) -> f64 {
        self.eval.forward_time.as_secs_f64() / (self.wall.as_secs_f64() * workers as f64).max(1e-9)
    }
}

/// A game in flight: what it has recorded so far and its random stream.
struct Slot<G: Game> {
    /// In a game against the opponent: the network's seat and the agent.
    opponent: Option<(usize, Box<dyn Agent<G>>)>,
    moves: Vec<Action>,
    visits: Vec<Vec<(Action, u32)>>,
    values: Vec<[f32; MAX_PLAYERS]>,
    seed: u64,
    rng: Rng,
    watch: ResignWatch,
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
    let progress = Progress::new("self-play", games as u64, "games", settings.progress);
    let total = Mutex::new(Ok(SelfPlayStats::default()));
    pool.install(|| {
        (0..workers).into_par_iter().for_each(|w| {
            let ids: Vec<u64> = (w as u64..games as u64).step_by(workers).collect();
            let stats = worker(start, net, settings, &ids, seed, &|g| {
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
    stats.wall = t0.elapsed();
    Ok(stats)
}

fn worker<G: Baselines>(
    start: &G,
    net: &Net,
    settings: &SelfPlaySettings,
    ids: &[u64],
    seed: u64,
    on_game: &dyn Fn(SelfPlayGame),
) -> anyhow::Result<SelfPlayStats> {
    let mut eval = NetEvaluator::new(net.clone(), settings.cache_size);
    let mut stats = SelfPlayStats::default();
    let mut next = ids.iter();
    let new_slot = |id: u64| -> anyhow::Result<Slot<G>> {
        let seed = Rng::derive(seed, id);
        let mut rng = Rng::new(seed);
        let r = &settings.resign;
        let checking = r.moves > 0 && r.check_fraction > 0.0 && rng.unit() < r.check_fraction;
        let opponent = match &settings.opponent {
            Some(spec) if rng.unit() < settings.opponent_fraction => {
                let seat = rng.below(start.num_players());
                Some((seat, spec.build(start, rng.next_u64())?))
            }
            _ => None,
        };
        Ok(Slot {
            opponent,
            moves: Vec::new(),
            visits: Vec::new(),
            values: Vec::new(),
            seed,
            rng,
            watch: ResignWatch::new(checking),
        })
    };
    let mut trees: Vec<Tree<G>> = Vec::new();
    let mut slots: Vec<Slot<G>> = Vec::new();
    for &id in next.by_ref().take(settings.concurrent.max(1)) {
        trees.push(Tree::new(start.clone()));
        slots.push(new_slot(id)?);
    }
    let p = &settings.params;
    while !trees.is_empty() {
        // Playout-cap randomisation: a full search (recorded as a policy target) with
        // probability `full_fraction`, else a fast one without noise (not recorded).
        // The opponent's turns are not searched (no simulations, no target).
        let mut agent: Vec<bool> = trees
            .iter()
            .zip(&slots)
            .map(|(t, s)| matches!(s.opponent, Some((seat, _)) if seat != t.root().to_move()))
            .collect();
        let mut full: Vec<bool> = slots
            .iter_mut()
            .map(|s| settings.full_fraction >= 1.0 || s.rng.unit() < settings.full_fraction)
            .zip(&agent)
            .map(|(f, &a)| f && !a)
            .collect();
        let sims: Vec<u32> = (0..trees.len())
            .map(|t| match (agent[t], full[t]) {
                (true, _) => 0,
                (false, true) => settings.sims,
                (false, false) => settings.fast_sims,
            })
            .collect();
        for (t, (tree, slot)) in trees.iter_mut().zip(&mut slots).enumerate() {
            if !agent[t] {
                tree.begin(p, sims[t], &mut slot.rng, full[t]);
            }
        }
        {
            let mut refs: Vec<&mut Tree<G>> = trees.iter_mut().collect();
            let mut noise_rngs: Vec<Rng> = slots.iter().map(|s| s.rng.clone()).collect();
            search_batched_each(
                &mut refs,
                &sims,
                p,
                &mut eval,
                |t, tree| tree.begin(p, sims[t], &mut noise_rngs[t], full[t]),
                || false,
            );
            for (slot, rng) in slots.iter_mut().zip(noise_rngs) {
                slot.rng = rng;
            }
        }
        let mut finished = 0;
        let mut k = 0;
        while k < trees.len() {
            let (tree, slot) = (&mut trees[k], &mut slots[k]);
            let (players, mover) = (tree.root().num_players(), tree.root().to_move());
            let values = tree.root_values();
            let mut outcome = None;
            let played = if let Some((_, opponent)) = slot.opponent.as_mut().filter(|_| agent[k]) {
                let action = opponent.select(tree.root(), &Limits::default())?;
                anyhow::ensure!(
                    tree.root().is_legal(action),
                    "self-play opponent {} chose an illegal move",
                    opponent.name()
                );
                // Not searched: no training target and no root value.
                Some((action, Vec::new(), [0.0; MAX_PLAYERS]))
            } else if let Verdict::Resign(p) =
                slot.watch
                    .observe(&settings.resign, players, mover, values[mover])
            {
                outcome = Some(resigned_outcome(p));
                stats.resigned += 1;
                None
            } else {
                let sample = full[k] && tree.root().ply() < settings.temperature_plies;
                let action = tree.choose(sample, &mut slot.rng).expect("a searched root");
                // A fast search's move is kept (the game replays) but is no training target.
                let target = if full[k] {
                    tree.policy_target()
                } else {
                    Vec::new()
                };
                Some((action, target, values))
            };
            if let Some((action, target, root)) = played {
                slot.visits.push(target);
                slot.moves.push(action);
                slot.values.push(root);
                tree.advance(action);
                if let Some(o) = tree.root().outcome() {
                    outcome = Some(o.0);
                    if let Some(false_resign) = slot.watch.false_resignation(&o.0) {
                        stats.resign_checks += 1;
                        stats.false_resigns += u64::from(false_resign);
                    }
                }
            }
            let cut = settings.move_limit > 0 && slot.moves.len() >= settings.move_limit as usize;
            if outcome.is_none() && cut {
                outcome = Some(tree.root().adjudicate().0);
                stats.adjudicated += 1;
            }
            if let Some(result) = outcome {
                // Drawn by the rules: the root is over with no winner (the root of a
                // resigned or cut game is not over).
                let drawn = tree.root().outcome().is_some_and(|o| o.winner().is_none());
                let outcome = if drawn && settings.draw_value != 0.0 {
                    draw_outcome(players, settings.draw_value)
                } else {
                    mix_score(result, tree.root(), settings.score_weight)
                };
                let slot = slots.swap_remove(k);
                trees.swap_remove(k);
                full.swap_remove(k);
                agent.swap_remove(k);
                stats.games += 1;
                stats.opponent_games += u64::from(slot.opponent.is_some());
                stats.positions += slot.moves.len() as u64;
                on_game(SelfPlayGame {
                    moves: slot.moves,
                    visits: slot.visits,
                    outcome,
                    sims: settings.sims,
                    seed: slot.seed,
                    values: slot.values,
                });
                finished += 1;
                continue;
            }
            k += 1;
        }
        for &id in next.by_ref().take(finished) {
            trees.push(Tree::new(start.clone()));
            slots.push(new_slot(id)?);
        }
    }
    stats.eval = eval.stats;
    Ok(stats)
}

/// The recorded outcome of a game drawn by its rules: `value` for each of the `players`.
pub fn draw_outcome(players: usize, value: f32) -> [f32; MAX_PLAYERS] {
    let mut o = [0.0; MAX_PLAYERS];
    o[..players].fill(value);
    o
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
