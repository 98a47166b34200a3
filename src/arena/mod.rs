//! Matches between agents: seat-balanced games in parallel, W/D/L, score and Elo.
//!
//! Games come in groups, one per opening: every opening (a few random plies from the
//! start, seeded) is played once with agent A in each seat, so for two players each
//! opening is played with both colours. Each agent has a whole-game clock, as the course
//! referee gives each player 180 s: an agent that overruns it, returns an illegal move
//! or fails loses the game (a forfeit).
//!
//! - [`elo`]: score, Elo difference and its interval; the SPRT.
//! - [`ladder`]: a model against alpha-beta at several times per move (Elo against time).
//! - [`record`]: games as PGN (Ataxx, as python-ataxx reads it) or PGN-style text.
//! - [`tournament`]: round robins and gauntlets of several agents, with a crosstable.

pub mod elo;
pub mod eval;
pub mod ladder;
pub mod record;
pub mod replay;
pub mod terminal;
pub mod tournament;

use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::Serialize;

use crate::agents::{AgentSpec, Baselines, Limits};
use crate::games::{Action, Game, Outcome};
use crate::progress::Progress;
use crate::rng::Rng;
use elo::{Sprt, SprtDecision, Stats};

/// How a match is played.
#[derive(Debug, Clone)]
pub struct MatchConfig {
    /// Total games; a multiple of the number of players.
    pub games: u32,
    /// Seeds the openings and the agents' random choices.
    pub seed: u64,
    /// Worker threads (games in parallel).
    pub threads: usize,
    /// Random plies played from the start before the agents take over.
    pub opening_plies: u32,
    /// Each agent's clock for a whole game; `None` for no limit.
    pub time_per_game: Option<Duration>,
    /// Each agent's time for every move (`go movetime`); `None`: the agent's own.
    pub move_time: Option<Duration>,
    /// Report progress: a bar on a terminal, plain lines otherwise.
    pub progress: bool,
    /// In a game of three, the agent beside B: it takes one of the two seats that are
    /// not A's, B the other, and they change seats from one opening to the next (`None`:
    /// B in both).
    pub partner: Option<AgentSpec>,
}

impl MatchConfig {
    /// The agent in each seat of game `g` (of `n` players, A in `seat_a`): the partner
    /// ([`MatchConfig::partner`], in a game of three) in the seat right after A's in even
    /// openings and the one after that in odd ones, B in the rest.
    pub fn seats<'a>(
        &'a self,
        n: usize,
        g: u32,
        seat_a: usize,
        (a, b): (&'a AgentSpec, &'a AgentSpec),
    ) -> Vec<&'a AgentSpec> {
        let partner_seat = (seat_a + 1 + (g as usize / n) % 2) % n;
        (0..n)
            .map(|seat| match &self.partner {
                _ if seat == seat_a => a,
                Some(p) if n == 3 && seat == partner_seat => p,
                _ => b,
            })
            .collect()
    }

    /// B's side as reports name it: B, or B and its partner.
    pub fn b_name(&self, b: &AgentSpec) -> String {
        match &self.partner {
            Some(p) => format!("{b} + {p}"),
            None => b.to_string(),
        }
    }

    /// The clock every game is played under.
    pub fn clock(&self) -> Clock {
        Clock {
            per_game: self.time_per_game,
            per_move: self.move_time,
        }
    }
}

/// The time limits of one game, the same for every seat.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Clock {
    /// Each seat's thinking time for the whole game: overrunning it forfeits the game.
    pub per_game: Option<Duration>,
    /// Each seat's time for every move, passed on as `go movetime` (an agent's own time
    /// per move otherwise); measured, not enforced.
    pub per_move: Option<Duration>,
}

/// Why a game ended early.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Forfeit {
    /// The seat that forfeited.
    pub seat: usize,
    /// Why: an illegal move, an overrun clock, an agent that failed.
    pub reason: String,
}

/// One finished game.
#[derive(Debug, Clone)]
pub struct GameRecord {
    /// The result for every seat.
    pub outcome: Outcome,
    /// Every move from the start, the opening plies included.
    pub moves: Vec<Action>,
    /// Set when a seat forfeited.
    pub forfeit: Option<Forfeit>,
    /// Thinking time used by each seat.
    pub time_used: Vec<Duration>,
    /// Each seat's longest time for one move, and that move's ply (from 1, the opening
    /// plies counted).
    pub slowest_move: Vec<(Duration, u32)>,
    /// Moves chosen by each seat (opening plies excluded).
    pub moves_by_seat: Vec<u32>,
}

/// Plays one game from `start` after `opening`, `agents[seat]` moving for each seat,
/// under `clock`. `observe(state_after, seat, action)` is called after every agent move. The opening
/// must be legal from `start` (as [`random_opening`] makes them); the agents' moves are
/// checked, and a bad one forfeits the game.
pub fn play_game<G: Game>(
    start: &G,
    opening: &[Action],
    agents: &mut [Box<dyn crate::agents::Agent<G>>],
    clock: Clock,
    mut observe: impl FnMut(&G, usize, Action),
) -> GameRecord {
    let time_per_game = clock.per_game;
    let n = start.num_players();
    let mut state = start.clone();
    let mut moves = opening.to_vec();
    for &a in opening {
        state.apply(a).expect("opening moves are legal");
    }
    let mut time_used = vec![Duration::ZERO; n];
    let mut slowest_move = vec![(Duration::ZERO, 0); n];
    let mut moves_by_seat = vec![0; n];
    let mut forfeit = None;
    while state.outcome().is_none() {
        let seat = state.to_move();
        let limits = Limits {
            time_left: time_per_game.map(|t| t.saturating_sub(time_used[seat])),
            movetime: clock.per_move,
            ..Limits::default()
        };
        let t0 = Instant::now();
        let choice = agents[seat].select(&state, &limits);
        let end =
            (agents[seat].answered_at().filter(|_| choice.is_ok())).unwrap_or_else(Instant::now);
        let took = end.saturating_duration_since(t0);
        time_used[seat] += took;
        if took > slowest_move[seat].0 {
            slowest_move[seat] = (took, moves.len() as u32 + 1);
        }
        let played = choice
            .map_err(|e| format!("agent failed: {e:#}"))
            .and_then(|a| match time_per_game {
                Some(t) if time_used[seat] > t => Err(format!(
                    "out of time ({:.1} s used of {:.1} s)",
                    time_used[seat].as_secs_f64(),
                    t.as_secs_f64()
                )),
                _ => state.apply(a).map(|_| a).map_err(|e| e.to_string()),
            });
        match played {
            Ok(a) => {
                observe(&state, seat, a);
                moves.push(a);
                moves_by_seat[seat] += 1;
            }
            Err(reason) => {
                forfeit = Some(Forfeit { seat, reason });
                break;
            }
        }
    }
    let outcome = match &forfeit {
        Some(f) => forfeit_outcome(f.seat, n),
        None => state.outcome().expect("finished"),
    };
    GameRecord {
        outcome,
        moves,
        forfeit,
        time_used,
        slowest_move,
        moves_by_seat,
    }
}

/// A game `seat` forfeited before its first move (its agent could not be built).
fn forfeited_before_start<G: Game>(
    start: &G,
    opening: &[Action],
    seat: usize,
    reason: String,
) -> GameRecord {
    let n = start.num_players();
    GameRecord {
        outcome: forfeit_outcome(seat, n),
        moves: opening.to_vec(),
        forfeit: Some(Forfeit { seat, reason }),
        time_used: vec![Duration::ZERO; n],
        slowest_move: vec![(Duration::ZERO, 0); n],
        moves_by_seat: vec![0; n],
    }
}

/// The outcome when `seat` forfeits: it loses, the others share the win.
fn forfeit_outcome(seat: usize, n: usize) -> Outcome {
    let mut v = [0.0; crate::games::MAX_PLAYERS];
    for (p, x) in v.iter_mut().enumerate().take(n) {
        *x = if p == seat {
            -1.0
        } else {
            1.0 / (n - 1) as f32
        };
    }
    Outcome(v)
}

/// A seeded random opening of `plies` actions that does not finish the game; an error
/// when 1000 tries all finish it (the opening is too long for the game).
pub fn random_opening<G: Game>(start: &G, plies: u32, seed: u64) -> anyhow::Result<Vec<Action>> {
    let mut buf = Vec::new();
    for attempt in 0..1000u64 {
        let mut rng = Rng::new(Rng::derive(seed, attempt));
        let mut state = start.clone();
        let mut line = Vec::new();
        while line.len() < plies as usize && state.outcome().is_none() {
            state.legal_actions(&mut buf);
            let a = rng.choose(&buf).expect("a legal move");
            state.apply(a).expect("legal");
            line.push(a);
        }
        if state.outcome().is_none() {
            return Ok(line);
        }
    }
    anyhow::bail!(
        "no random opening of {plies} plies leaves the game running (1000 tries); use fewer opening plies"
    )
}

/// Results from one side's point of view (A's, or A's in one seat).
#[derive(Debug, Clone, Serialize)]
pub struct MatchReport {
    /// Agent A's spec.
    pub a: String,
    /// Agent B's spec.
    pub b: String,
    /// Games played.
    pub games: u32,
    /// A's results over all games.
    pub overall: Stats,
    /// A's results with A in each seat (seat 0 moves first).
    pub by_seat: Vec<Stats>,
    /// Mean game length in plies, opening plies included.
    pub mean_plies: f64,
    /// Mean thinking time per move, A then B, in milliseconds.
    pub a_ms_per_move: f64,
    /// B's mean thinking time per move, in milliseconds.
    pub b_ms_per_move: f64,
    /// A's longest time for one move, in milliseconds.
    pub a_slowest_ms: f64,
    /// B's longest time for one move, in milliseconds.
    pub b_slowest_ms: f64,
    /// Where A's longest move was: the game (from 1, in playing order) and the ply.
    pub a_slowest_at: [u32; 2],
    /// Where B's longest move was.
    pub b_slowest_at: [u32; 2],
    /// Why A forfeited, one entry per forfeited game.
    pub a_forfeits: Vec<String>,
    /// Why B forfeited, one entry per forfeited game.
    pub b_forfeits: Vec<String>,
    /// The match's seed.
    pub seed: u64,
    /// Random plies at the start of each game.
    pub opening_plies: u32,
    /// Wall time of the whole match.
    pub wall_seconds: f64,
}

/// Tallies W/D/L from one side's outcome values.
fn tally(values: impl Iterator<Item = f32>) -> Stats {
    let (mut w, mut d, mut l) = (0, 0, 0);
    for v in values {
        match v {
            v if v > 0.0 => w += 1,
            v if v < 0.0 => l += 1,
            _ => d += 1,
        }
    }
    Stats::new(w, d, l)
}

/// Plays A against B from `start`. Blocks until every game is done.
pub fn run_match<G: Baselines>(
    start: &G,
    a: &AgentSpec,
    b: &AgentSpec,
    config: &MatchConfig,
) -> anyhow::Result<MatchReport> {
    play_match(start, a, b, config).map(|(report, _)| report)
}

/// A finished game and the seat agent A played in it.
pub type SeatedRecord = (usize, GameRecord);

/// [`run_match`], also returning every game (in order: opening by opening, A's seat
/// 0, 1, …). An agent that cannot be built for a game forfeits that game.
pub fn play_match<G: Baselines>(
    start: &G,
    a: &AgentSpec,
    b: &AgentSpec,
    config: &MatchConfig,
) -> anyhow::Result<(MatchReport, Vec<SeatedRecord>)> {
    let t0 = Instant::now();
    let label = format!("{a} vs {}", config.b_name(b));
    let (pa, pb, pc) = pinned(start, a, b, config);
    let records = play_games(start, &label, &pa, &pb, &pc)?;
    let report = summarise(a, b, config, &records, t0.elapsed());
    Ok((report, records))
}

/// The games of a match whose agents and partner are pinned ([`pinned`]), its progress
/// shown under `label`.
fn play_games<G: Baselines>(
    start: &G,
    label: &str,
    a: &AgentSpec,
    b: &AgentSpec,
    config: &MatchConfig,
) -> anyhow::Result<Vec<SeatedRecord>> {
    let n = start.num_players() as u32;
    anyhow::ensure!(
        config.games > 0 && config.games.is_multiple_of(n),
        "--games {} must be a positive multiple of {n}: each opening is played with A in every seat",
        config.games
    );
    crate::limits::at_most("--games", config.games, crate::limits::MAX_MATCH_GAMES)?;
    crate::limits::at_most("--threads", config.threads, crate::limits::MAX_THREADS)?;
    anyhow::ensure!(
        !a.is_interactive()
            && !b.is_interactive()
            && !config
                .partner
                .as_ref()
                .is_some_and(AgentSpec::is_interactive),
        "a human cannot play in a parallel match; use `contagion play`"
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.threads.max(1))
        .build()?;
    let openings = (0..config.games / n)
        .map(|group| {
            random_opening(
                start,
                config.opening_plies,
                Rng::derive(config.seed, group as u64),
            )
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    anyhow::ensure!(
        config.partner.is_none() || n == 3,
        "a partner for B plays in a game of three, not of {n}"
    );
    let progress = Progress::new(label, config.games as u64, "games", config.progress);
    // Build once up front so a model that cannot be loaded fails before any game.
    a.build(start, 0)?;
    b.build(start, 0)?;
    if let Some(p) = &config.partner {
        p.build(start, 0)?;
    }
    let records: Vec<SeatedRecord> = pool.install(|| {
        (0..config.games)
            .into_par_iter()
            .map(|g| {
                let opening = &openings[(g / n) as usize];
                let seat_a = (g % n) as usize;
                let seats = config.seats(n as usize, g, seat_a, (a, b));
                let agents: Result<Vec<Box<dyn crate::agents::Agent<G>>>, _> = (seats.iter())
                    .enumerate()
                    .map(|(seat, spec)| {
                        let seed = Rng::derive(
                            config.seed ^ crate::rng::salt::MATCH_AGENTS,
                            g as u64 * 8 + seat as u64,
                        );
                        spec.build(start, seed)
                            .map_err(|e| (seat, format!("agent failed to start: {e:#}")))
                    })
                    .collect();
                let record = match agents {
                    Ok(mut agents) => {
                        play_game(start, opening, &mut agents, config.clock(), |_, _, _| {})
                    }
                    Err((seat, reason)) => forfeited_before_start(start, opening, seat, reason),
                };
                progress.inc();
                (seat_a, record)
            })
            .collect()
    });
    progress.finish();
    Ok(records)
}

/// A match's agents and partner with their aliases resolved once
/// ([`AgentSpec::pinned`]), so that every game plays the same bundles; the report names
/// them as they were given.
fn pinned<G: Game>(
    start: &G,
    a: &AgentSpec,
    b: &AgentSpec,
    config: &MatchConfig,
) -> (AgentSpec, AgentSpec, MatchConfig) {
    let pin = |spec: &AgentSpec| spec.pinned(start.name());
    let partner = config.partner.as_ref().map(pin);
    let config = MatchConfig {
        partner,
        ..config.clone()
    };
    (pin(a), pin(b), config)
}

/// A match played in rounds of `round` games (a multiple of the number of players),
/// stopping as soon as `sprt` decides, at most `config.games` games. Round `k` takes
/// its openings from seed `derive(config.seed, k)`. Returns A's results, every game
/// and the decision (`Continue` when the SPRT never decided or there was none).
pub fn play_sprt_match<G: Baselines>(
    start: &G,
    a: &AgentSpec,
    b: &AgentSpec,
    config: &MatchConfig,
    sprt: Option<(Sprt, u32)>,
) -> anyhow::Result<(MatchReport, Vec<SeatedRecord>, SprtDecision)> {
    let round = sprt.map_or(config.games, |(_, r)| r.clamp(1, config.games));
    let t0 = Instant::now();
    let label = format!("{a} vs {}", config.b_name(b));
    let (names, as_named, pinned) = ((a, b), config, pinned(start, a, b, config));
    let (a, b, config) = (&pinned.0, &pinned.1, &pinned.2);
    let mut records = Vec::new();
    let mut decision = SprtDecision::Continue;
    let mut k = 0;
    while (records.len() as u32) < config.games && decision == SprtDecision::Continue {
        let games = round.min(config.games - records.len() as u32);
        let part = MatchConfig {
            games,
            seed: Rng::derive(config.seed, k),
            ..config.clone()
        };
        records.extend(play_games(start, &label, a, b, &part)?);
        k += 1;
        if let Some((test, _)) = sprt {
            let a_value = |(seat, r): &SeatedRecord| r.outcome.value(*seat);
            decision = test.decide(&tally(records.iter().map(a_value)));
        }
    }
    let report = summarise(names.0, names.1, as_named, &records, t0.elapsed());
    Ok((report, records, decision))
}

fn summarise(
    a: &AgentSpec,
    b: &AgentSpec,
    config: &MatchConfig,
    records: &[SeatedRecord],
    wall: Duration,
) -> MatchReport {
    let n = records.first().map_or(2, |(_, r)| r.time_used.len());
    let a_value = |(seat, r): &SeatedRecord| r.outcome.value(*seat);
    let by_seat = (0..n)
        .map(|seat| tally(records.iter().filter(|(s, _)| *s == seat).map(a_value)))
        .collect();
    let (mut a_time, mut a_moves, mut b_time, mut b_moves) = (0.0, 0u32, 0.0, 0u32);
    // Each side's slowest move: its time, the game (from 1) and the ply.
    let (mut a_slowest, mut b_slowest) = ((Duration::ZERO, [0; 2]), (Duration::ZERO, [0; 2]));
    let (mut a_forfeits, mut b_forfeits) = (Vec::new(), Vec::new());
    for (g, (seat_a, r)) in (1..).zip(records) {
        for (seat, (t, &m)) in r.time_used.iter().zip(&r.moves_by_seat).enumerate() {
            let (took, ply) = r.slowest_move.get(seat).copied().unwrap_or_default();
            let (time, moves, slowest) = if seat == *seat_a {
                (&mut a_time, &mut a_moves, &mut a_slowest)
            } else {
                (&mut b_time, &mut b_moves, &mut b_slowest)
            };
            (*time, *moves) = (*time + t.as_secs_f64(), *moves + m);
            if took > slowest.0 {
                *slowest = (took, [g, ply]);
            }
        }
        if let Some(f) = &r.forfeit {
            let list = if f.seat == *seat_a {
                &mut a_forfeits
            } else {
                &mut b_forfeits
            };
            list.push(f.reason.clone());
        }
    }
    MatchReport {
        a: a.to_string(),
        b: config.b_name(b),
        games: records.len() as u32,
        overall: tally(records.iter().map(a_value)),
        by_seat,
        mean_plies: records
            .iter()
            .map(|(_, r)| r.moves.len() as f64)
            .sum::<f64>()
            / records.len().max(1) as f64,
        a_ms_per_move: 1000.0 * a_time / a_moves.max(1) as f64,
        b_ms_per_move: 1000.0 * b_time / b_moves.max(1) as f64,
        a_slowest_ms: 1000.0 * a_slowest.0.as_secs_f64(),
        b_slowest_ms: 1000.0 * b_slowest.0.as_secs_f64(),
        a_slowest_at: a_slowest.1,
        b_slowest_at: b_slowest.1,
        a_forfeits,
        b_forfeits,
        seed: config.seed,
        opening_plies: config.opening_plies,
        wall_seconds: wall.as_secs_f64(),
    }
}
