//! The replay buffer: a sliding window of the most recent self-play positions, backed
//! by shard files in the run directory.
//!
//! Every batch of finished games is written at once as a shard,
//! `replay/shard-IIIIII-SSSS.bin` (iteration, sequence number): a versioned, checksummed
//! bincode file ([`crate::storage`]). On resume the shards are read back in order and
//! their games replayed through the rules (a move that is not legal marks the shard as
//! corrupt or foreign: an error, never a half-loaded buffer). Shards whose positions have
//! all left the window are deleted.
//!
//! Sampling draws positions uniformly from the window; training maps each through a
//! random symmetry (see `train`).

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use super::SelfPlayGame;
use crate::games::{Action, Game, MAX_PLAYERS};
use crate::rng::Rng;
use crate::storage;

pub const MAGIC: &[u8; 8] = b"CZSHARD\0";
pub const VERSION: u32 = 1;

#[derive(Debug, Clone, bincode::Encode, bincode::Decode)]
struct Shard {
    game: String,
    iteration: u32,
    games: Vec<SelfPlayGame>,
}

/// A training position: the state, the visit distribution and the final result.
#[derive(Debug, Clone)]
pub struct Sample<G> {
    pub state: G,
    /// `(action, probability)`, summing to 1.
    pub policy: Vec<(Action, f32)>,
    /// Final result for each player (absolute seats).
    pub outcome: [f32; MAX_PLAYERS],
}

#[derive(Debug, Clone)]
struct ShardInfo {
    path: PathBuf,
    iteration: u32,
    games: usize,
    positions: usize,
}

pub struct ReplayBuffer<G> {
    start: G,
    dir: PathBuf,
    window: usize,
    samples: VecDeque<Sample<G>>,
    shards: Vec<ShardInfo>,
}

/// The positions of one game, each with its policy target.
pub fn positions<G: Game>(start: &G, game: &SelfPlayGame) -> anyhow::Result<Vec<Sample<G>>> {
    if game.visits.len() != game.moves.len() {
        bail!(
            "a game has {} moves but {} visit lists",
            game.moves.len(),
            game.visits.len()
        );
    }
    let mut state = start.clone();
    let mut out = Vec::with_capacity(game.moves.len());
    for (&action, visits) in game.moves.iter().zip(&game.visits) {
        let total: u64 = visits.iter().map(|&(_, n)| n as u64).sum();
        if total == 0 || visits.iter().any(|&(a, _)| !state.is_legal(a)) {
            bail!("a policy target names an illegal action or no visits");
        }
        let policy = visits
            .iter()
            .map(|&(a, n)| (a, (n as f64 / total as f64) as f32))
            .collect();
        out.push(Sample {
            state: state.clone(),
            policy,
            outcome: game.outcome,
        });
        state
            .apply(action)
            .map_err(|e| anyhow::anyhow!("a stored move does not replay: {e}"))?;
    }
    Ok(out)
}

impl<G: Game> ReplayBuffer<G> {
    /// Opens (or creates) the buffer in `dir`, loading every shard in order.
    pub fn open(start: &G, dir: &Path, window: usize) -> anyhow::Result<ReplayBuffer<G>> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("shard-") && n.ends_with(".bin"))
            })
            .collect();
        paths.sort();
        let mut buffer = ReplayBuffer {
            start: start.clone(),
            dir: dir.to_path_buf(),
            window,
            samples: VecDeque::new(),
            shards: Vec::new(),
        };
        for path in paths {
            let shard: Shard = storage::load(&path, MAGIC, VERSION)?;
            if shard.game != start.name() {
                bail!(
                    "{}: a shard of game '{}', not '{}'",
                    path.display(),
                    shard.game,
                    start.name()
                );
            }
            buffer
                .push(&shard.games, path.clone(), shard.iteration)
                .with_context(|| format!("{}: corrupt or foreign shard", path.display()))?;
        }
        buffer.trim()?;
        Ok(buffer)
    }

    fn push(
        &mut self,
        games: &[SelfPlayGame],
        path: PathBuf,
        iteration: u32,
    ) -> anyhow::Result<()> {
        let mut new = Vec::new();
        for g in games {
            new.extend(positions(&self.start, g)?);
        }
        self.shards.push(ShardInfo {
            path,
            iteration,
            games: games.len(),
            positions: new.len(),
        });
        self.samples.extend(new);
        Ok(())
    }

    /// Writes `games` as a new shard of `iteration` and adds their positions.
    pub fn add(&mut self, games: &[SelfPlayGame], iteration: u32) -> anyhow::Result<()> {
        if games.is_empty() {
            return Ok(());
        }
        let seq = self
            .shards
            .iter()
            .filter(|s| s.iteration == iteration)
            .count();
        let path = self.dir.join(format!("shard-{iteration:06}-{seq:04}.bin"));
        let shard = Shard {
            game: self.start.name().to_string(),
            iteration,
            games: games.to_vec(),
        };
        storage::save(&path, MAGIC, VERSION, &shard)?;
        self.push(games, path, iteration)?;
        self.trim()
    }

    /// Drops positions beyond the window and deletes shards wholly outside it.
    fn trim(&mut self) -> anyhow::Result<()> {
        while self.samples.len() > self.window {
            self.samples.pop_front();
        }
        let mut newer = 0;
        let mut keep_from = 0;
        for (i, s) in self.shards.iter().enumerate().rev() {
            if newer >= self.window {
                keep_from = i + 1;
                break;
            }
            newer += s.positions;
        }
        for s in self.shards.drain(..keep_from) {
            std::fs::remove_file(&s.path)
                .with_context(|| format!("deleting old shard {}", s.path.display()))?;
        }
        Ok(())
    }

    /// Games and positions stored for `iteration` (a resumed iteration plays only the
    /// rest of its games, and trains on all of them).
    pub fn stored(&self, iteration: u32) -> (usize, usize) {
        self.shards
            .iter()
            .filter(|s| s.iteration == iteration)
            .fold((0, 0), |(g, p), s| (g + s.games, p + s.positions))
    }

    /// Positions in the window.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// A uniformly drawn position.
    pub fn sample(&self, rng: &mut Rng) -> &Sample<G> {
        &self.samples[rng.below(self.samples.len())]
    }
}
