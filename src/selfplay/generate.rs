//! Positions by the million for the fast evaluator, written as replay shards
//! (`replay/shard-…`, the record format runs write) into a directory or store that
//! `contagion distill` reads:
//!
//! - [`generate`]: games of the teacher network against itself at few simulations (the
//!   trainer's self-play: batched across games, root noise, moves sampled by visits for
//!   the first plies);
//! - [`generate_searched`]: games of any agent against itself from random openings (the
//!   alpha-beta player at a fixed node count, in the evaluator's own loop), each move's
//!   reported value kept as its root value.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use rayon::prelude::*;

use super::replay::{PREFIX, SHARD_GAMES, Shard};
use super::{SelfPlayGame, SelfPlaySettings, SelfPlayStats};
use crate::agents::{AgentSpec, Baselines, Limits, Score};
use crate::games::{Game, MAX_PLAYERS};
use crate::nn::Net;
use crate::progress::Progress;
use crate::rng::Rng;
use crate::store::Store;

/// The transposition table of each searched game's player, MiB: ample for a few
/// thousand nodes a move, small enough for many games at once.
const SEARCHED_HASH_MIB: u64 = 4;

/// Finished games gathered into shards of [`SHARD_GAMES`], numbered after the shards
/// already in the store (so a second call adds to the first).
struct ShardWriter {
    store: std::sync::Arc<dyn Store>,
    game: String,
    /// The next shard's number, the games not written yet.
    next: Mutex<(u32, Vec<SelfPlayGame>)>,
}

impl ShardWriter {
    fn open<G: Game>(start: &G, out: &str) -> anyhow::Result<ShardWriter> {
        let store = crate::store::open(out)?;
        let first = store.list(PREFIX)?.len() as u32;
        Ok(ShardWriter {
            store,
            game: start.name().into(),
            next: Mutex::new((first, Vec::new())),
        })
    }

    /// Keeps `game`, writing a shard when one is full.
    fn add(&self, game: SelfPlayGame) -> anyhow::Result<()> {
        let (batch, seq) = {
            let mut n = self.next.lock().expect("shard lock");
            n.1.push(game);
            if n.1.len() < SHARD_GAMES {
                return Ok(());
            }
            n.0 += 1;
            (std::mem::take(&mut n.1), n.0 - 1)
        };
        self.write(batch, seq)
    }

    /// Writes the games left.
    fn finish(&self) -> anyhow::Result<()> {
        let (seq, rest) = {
            let mut n = self.next.lock().expect("shard lock");
            (n.0, std::mem::take(&mut n.1))
        };
        if rest.is_empty() {
            return Ok(());
        }
        self.write(rest, seq)
    }

    fn write(&self, games: Vec<SelfPlayGame>, seq: u32) -> anyhow::Result<()> {
        let shard = Shard {
            game: self.game.clone(),
            iteration: 0,
            games,
            worker: "generate".into(),
            model: 0,
            origin: String::new(),
        };
        (self.store).put(&format!("{PREFIX}000000-{seq:06}.bin"), &shard.to_bytes()?)
    }
}

/// Plays `games` teacher games from `start` under `settings` (seeded by `seed`) and
/// writes them to the store at `out`.
pub fn generate<G: Baselines>(
    start: &G,
    teacher: &Net,
    settings: &SelfPlaySettings,
    games: u32,
    seed: u64,
    out: &str,
) -> anyhow::Result<SelfPlayStats> {
    let writer = ShardWriter::open(start, out)?;
    let error = Mutex::new(None::<anyhow::Error>);
    let stats = super::play(start, teacher, settings, games, seed, |game| {
        if let Err(e) = writer.add(game) {
            error.lock().expect("error lock").get_or_insert(e);
        }
    })?;
    if let Some(e) = error.into_inner().expect("error lock") {
        return Err(e);
    }
    writer.finish()?;
    Ok(stats)
}

/// Games of `player` (an agent spec; the alpha-beta player at a fixed node count in the
/// evaluator's own loop) against itself from random openings of `opening_plies`
/// plies: `games` games on `threads` threads, seeded by `seed`, written to the store at
/// `out` like [`generate`]'s. Every move after the opening is a target (the move
/// played, and with two players the value the search reported for it); a game still
/// running after `move_limit` moves (0: none) takes [`Game::adjudicate`]'s result.
#[allow(clippy::too_many_arguments)]
pub fn generate_searched<G: Baselines>(
    start: &G,
    player: &AgentSpec,
    games: u32,
    opening_plies: u32,
    move_limit: u32,
    seed: u64,
    threads: usize,
    progress: bool,
    out: &str,
) -> anyhow::Result<SelfPlayStats> {
    let t0 = Instant::now();
    let writer = ShardWriter::open(start, out)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()?;
    let bar = Progress::new("games", games as u64, "games", progress);
    let positions = AtomicU64::new(0);
    pool.install(|| {
        (0..games).into_par_iter().try_for_each(|i| {
            let game_seed = Rng::derive(seed, i as u64);
            let game = play_searched(start, player, opening_plies, move_limit, game_seed)?;
            positions.fetch_add(game.moves.len() as u64 - opening_plies as u64, Relaxed);
            writer.add(game)?;
            bar.inc();
            anyhow::Ok(())
        })
    })?;
    writer.finish()?;
    bar.finish();
    Ok(SelfPlayStats {
        games: games as u64,
        positions: positions.into_inner(),
        wall: t0.elapsed(),
        ..SelfPlayStats::default()
    })
}

/// One game of `player` against itself after a random opening seeded by `seed`.
fn play_searched<G: Baselines>(
    start: &G,
    player: &AgentSpec,
    opening_plies: u32,
    move_limit: u32,
    seed: u64,
) -> anyhow::Result<SelfPlayGame> {
    let opening = crate::arena::random_opening(start, opening_plies, seed)?;
    let mut agent = player.build(start, seed)?;
    let _ = agent.set_option("Hash", SEARCHED_HASH_MIB);
    let mut state = start.clone();
    let n = start.num_players();
    let mut game = SelfPlayGame {
        moves: Vec::new(),
        targets: Vec::new(),
        outcome: [0.0; MAX_PLAYERS],
        sims: 0,
        seed,
        values: Vec::new(),
        proven: Vec::new(),
    };
    for &a in &opening {
        state.apply(a)?;
        game.moves.push(a);
        game.targets.push(Vec::new());
        game.values.push([0.0; MAX_PLAYERS]);
    }
    let limits = Limits::default();
    let outcome = loop {
        if let Some(o) = state.outcome() {
            break o;
        }
        if move_limit > 0 && game.moves.len() >= move_limit as usize {
            break state.adjudicate();
        }
        let action = agent.select(&state, &limits)?;
        let info = agent.last_search();
        let mover = state.to_move();
        let mut values = [0.0; MAX_PLAYERS];
        if let (2, Some(info)) = (n, &info) {
            let v = info.score.value();
            values[mover] = v;
            values[1 - mover] = -v;
            if matches!(info.score, Score::Mate(_)) {
                game.proven.push(game.moves.len() as u32);
            }
        }
        game.sims = game
            .sims
            .max(info.map_or(0, |i| i.nodes.min(u32::MAX as u64) as u32));
        state.apply(action)?;
        game.moves.push(action);
        game.targets.push(vec![(action, 1)]);
        game.values.push(values);
    };
    game.outcome = outcome.0;
    if n != 2 {
        game.values.clear();
    }
    Ok(game)
}
