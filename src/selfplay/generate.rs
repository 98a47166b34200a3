//! Positions by the million for the fast evaluator, written into a directory or store
//! that `contagion distill` reads:
//!
//! - [`generate`]: games of the teacher network against itself at few simulations (the
//!   trainer's self-play: batched across games, root noise, moves sampled by visits for
//!   the first plies), as replay shards (`replay/shard-…`, the record format runs write);
//! - [`generate_searched`]: games of any agent against itself from random openings (the
//!   alpha-beta player at a fixed node count), each move's reported value kept as its
//!   score, as compact game records ([`super::records`]): openings filtered, decided
//!   games adjudicated, every core busy.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::records::{self, CHUNK_GAMES, Chunk, Record};
use super::replay::{PREFIX, SHARD_GAMES, Shard};
use super::{SelfPlayGame, SelfPlaySettings, SelfPlayStats};
use crate::agents::{AgentSpec, Baselines, Limits, Score};
use crate::arena::random_opening;
use crate::config::DistillConfig;
use crate::games::{Action, Game, Outcome};
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

/// How [`generate_searched`] plays: `player` (an agent spec; the alpha-beta player at a
/// fixed node count) against itself.
#[derive(Debug, Clone)]
pub struct SearchedGames {
    /// The player.
    pub player: AgentSpec,
    /// Games to play.
    pub games: u32,
    /// Random plies before each game.
    pub opening_plies: u32,
    /// Keep an opening only if the player's first search values it within this of a
    /// draw (two players; 0: every opening); another is drawn in its place.
    pub opening_filter: f32,
    /// End a game as a win for the side ahead once a search values it at least this
    /// (two players; 0: play every game out).
    pub adjudicate: f32,
    /// A game still running after this many moves (0: none) takes
    /// [`Game::adjudicate`]'s result.
    pub move_limit: u32,
    /// Seeds the openings and the players.
    pub seed: u64,
    /// Games played at once.
    pub threads: usize,
    /// A progress bar.
    pub progress: bool,
}

impl SearchedGames {
    /// `player`'s games as `[distill]` sets them (`games`, `opening_plies`,
    /// `opening_filter`, `adjudicate`), seeded by `seed`: without a move limit, on one
    /// thread, without a progress bar.
    pub fn from_config(d: &DistillConfig, player: AgentSpec, seed: u64) -> SearchedGames {
        SearchedGames {
            player,
            games: d.games,
            opening_plies: d.opening_plies,
            opening_filter: d.opening_filter as f32,
            adjudicate: d.adjudicate as f32,
            move_limit: 0,
            seed,
            threads: 1,
            progress: false,
        }
    }
}

/// The openings tried for one game before the filter gives up and keeps the last.
const OPENING_TRIES: u64 = 16;

/// Games of `o.player` against itself from random openings, written to the store at
/// `out` as compact game records ([`super::records`]), each chunk rewritten as a game
/// ends. Every move after the opening is a position: the move played and the value the
/// search reported for it.
pub fn generate_searched<G: Baselines>(
    start: &G,
    o: &SearchedGames,
    out: &str,
) -> anyhow::Result<SelfPlayStats> {
    let t0 = Instant::now();
    let writer = ChunkWriter::open(start, out)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(o.threads.max(1))
        .build()?;
    let bar = Progress::new("games", o.games as u64, "games", o.progress);
    let [positions, nodes, nanos] = [0, 0, 0].map(AtomicU64::new);
    pool.install(|| {
        (0..o.games).into_par_iter().try_for_each(|i| {
            let (record, searched) = play_searched(start, o, Rng::derive(o.seed, i as u64))?;
            positions.fetch_add(record.positions() as u64, Relaxed);
            nodes.fetch_add(searched.0, Relaxed);
            nanos.fetch_add(searched.1.as_nanos() as u64, Relaxed);
            writer.add(record)?;
            bar.inc();
            anyhow::Ok(())
        })
    })?;
    bar.finish();
    Ok(SelfPlayStats {
        games: o.games as u64,
        positions: positions.into_inner(),
        wall: t0.elapsed(),
        searched: (nodes.into_inner(), Duration::from_nanos(nanos.into_inner())),
        ..SelfPlayStats::default()
    })
}

/// Game records gathered into chunks of [`CHUNK_GAMES`], the open chunk rewritten whole
/// at each game; named after the writer's start and process, so that writers never
/// share a chunk.
struct ChunkWriter {
    store: std::sync::Arc<dyn Store>,
    game: String,
    stem: String,
    /// The open chunk's number and its games.
    open: Mutex<(u32, Vec<Record>)>,
}

impl ChunkWriter {
    fn open<G: Game>(start: &G, out: &str) -> anyhow::Result<ChunkWriter> {
        let millis = (std::time::SystemTime::now())
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        Ok(ChunkWriter {
            store: crate::store::open(out)?,
            game: start.name().into(),
            stem: format!("{}{millis}-{}", records::PREFIX, std::process::id()),
            open: Mutex::new((0, Vec::new())),
        })
    }

    /// Keeps `record`: the open chunk written again with it, the next opened when full.
    fn add(&self, record: Record) -> anyhow::Result<()> {
        let mut open = self.open.lock().expect("chunk lock");
        open.1.push(record);
        let chunk = Chunk {
            game: self.game.clone(),
            records: std::mem::take(&mut open.1),
        };
        let key = format!("{}-{:05}.bin", self.stem, open.0);
        let written = self.store.put(&key, &chunk.to_bytes()?);
        open.1 = chunk.records;
        if open.1.len() >= CHUNK_GAMES {
            open.0 += 1;
            open.1.clear();
        }
        written
    }
}

/// One game of `o.player` against itself after a random opening from `seed` (another
/// drawn while the filter refuses it).
fn play_searched<G: Baselines>(
    start: &G,
    o: &SearchedGames,
    seed: u64,
) -> anyhow::Result<(Record, (u64, Duration))> {
    let n = start.num_players();
    let two = n == 2;
    let mut agent = o.player.build(start, seed)?;
    let _ = agent.set_option("Hash", SEARCHED_HASH_MIB);
    let limits = Limits::default();
    let mut searched = (0, Duration::ZERO);
    // The player's search of a position: its move, and its value for the mover.
    let mut search = |state: &G| -> anyhow::Result<(Action, i16)> {
        let action = agent.select(state, &limits)?;
        let info = agent.last_search();
        if let Some(info) = &info {
            searched.0 += info.nodes;
            searched.1 += info.time;
        }
        let score = match info {
            Some(info) if two => {
                let proven = matches!(info.score, Score::Mate(_));
                records::score_of(info.score.value(), proven)
            }
            _ => records::NO_SCORE,
        };
        Ok((action, score))
    };
    let mut tries = 0;
    let (mut state, opening, mut first) = loop {
        let opening = random_opening(start, o.opening_plies, Rng::derive(seed, tries))?;
        let mut state = start.clone();
        for &a in &opening {
            state.apply(a)?;
        }
        tries += 1;
        if state.outcome().is_some() {
            continue;
        }
        let first = search(&state)?;
        let even =
            first.1 == records::NO_SCORE || records::value_of(first.1).abs() <= o.opening_filter;
        if !two || o.opening_filter <= 0.0 || even || tries >= OPENING_TRIES {
            break (state, opening, Some(first));
        }
    };
    let mut record = Record {
        opening: opening.len() as u16,
        scores: vec![records::NO_SCORE; opening.len()],
        moves: opening,
        result: Vec::new(),
    };
    let outcome = loop {
        if let Some(o) = state.outcome() {
            break o;
        }
        if o.move_limit > 0 && record.moves.len() >= o.move_limit as usize {
            break state.adjudicate();
        }
        let (action, score) = match first.take() {
            Some(found) => found,
            None => search(&state)?,
        };
        let mover = state.to_move();
        state.apply(action)?;
        record.moves.push(action);
        record.scores.push(score);
        if two && o.adjudicate > 0.0 && score != records::NO_SCORE && state.outcome().is_none() {
            // Decided: the position searched, and its move, are the game's last.
            let value = records::value_of(score);
            if value.abs() >= o.adjudicate {
                let ahead = if value > 0.0 { mover } else { 1 - mover };
                break Outcome::win(ahead, 2);
            }
        }
    };
    record.result = (0..n)
        .map(|p| (outcome.0[p] * 100.0).round() as i8)
        .collect();
    Ok((record, searched))
}
