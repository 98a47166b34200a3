//! The replay buffer: a sliding window of the most recent self-play positions, backed
//! by shard objects in the run's store.
//!
//! Every batch of finished games is written at once as a shard,
//! `replay/shard-IIIIII-SSSS.bin` (iteration, sequence number): a versioned, checksummed
//! bincode object ([`crate::framing`]) naming the worker and the model that played it,
//! and for games uploaded by a worker the upload they came from (so that none is taken
//! twice). On resume the shards are read back in order and
//! their games replayed through the rules (a move that is not legal marks the shard as
//! corrupt or foreign: an error, never a half-loaded buffer). Shards whose positions have
//! all left the window are deleted.
//!
//! Sampling draws positions uniformly from the window; training maps each through a
//! random symmetry (see `train`).

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::sync::Arc;

use anyhow::{Context, bail};

use super::SelfPlayGame;
use super::surprise::Surprise;
use super::{Sample, Trace};
use crate::framing;
use crate::games::{Action, Game, MAX_PLAYERS};
use crate::nn::Net;
use crate::rng::Rng;
use crate::store::Store;

/// A shard file's magic bytes.
pub const MAGIC: &[u8; 8] = b"CZSHARD\0";
/// Version 2 added the worker, model and origin fields, version 3 each game's root
/// values, version 4 its proven positions; versions 1 to 3 still load (their games
/// without what came later).
pub const VERSION: u32 = 4;
/// Where replay shards live in a run's store.
pub const PREFIX: &str = "replay/shard-";
/// Where self-play workers upload shards for the trainer to take in.
pub const INCOMING: &str = "incoming/";
/// Where the trainer keeps uploads that failed their checks.
pub const REJECTED: &str = "rejected/";

/// Games per replay shard, the trainer's own and (by default) a worker's upload: small
/// enough that a crash loses few finished games, large enough to keep objects few.
pub const SHARD_GAMES: usize = 4;

/// A batch of finished games: a replay shard, or one uploaded by a self-play worker.
#[derive(Debug, Clone, bincode::Encode, bincode::Decode)]
pub struct Shard {
    /// The game's name.
    pub game: String,
    /// The iteration that trains on it (0 in a worker's upload, set on ingest).
    pub iteration: u32,
    /// The games.
    pub games: Vec<SelfPlayGame>,
    /// The worker that played the games (empty: the trainer's own self-play).
    pub worker: String,
    /// The best iteration of the network that played them.
    pub model: u32,
    /// The uploaded object the games came from (empty: the trainer's own self-play).
    pub origin: String,
}

/// A game as shard formats 1 and 2 stored it (no root values).
#[derive(bincode::Decode)]
struct GameV2 {
    moves: Vec<Action>,
    visits: Vec<Vec<(Action, u32)>>,
    outcome: [f32; MAX_PLAYERS],
    sims: u32,
    seed: u64,
}

impl From<GameV2> for SelfPlayGame {
    fn from(g: GameV2) -> SelfPlayGame {
        GameV3 {
            moves: g.moves,
            targets: g.visits,
            outcome: g.outcome,
            sims: g.sims,
            seed: g.seed,
            values: Vec::new(),
        }
        .into()
    }
}

/// A game as shard format 3 stored it (no proven positions).
#[derive(bincode::Decode)]
struct GameV3 {
    moves: Vec<Action>,
    targets: Vec<Vec<(Action, u32)>>,
    outcome: [f32; MAX_PLAYERS],
    sims: u32,
    seed: u64,
    values: Vec<[f32; MAX_PLAYERS]>,
}

impl From<GameV3> for SelfPlayGame {
    fn from(g: GameV3) -> SelfPlayGame {
        SelfPlayGame {
            moves: g.moves,
            targets: g.targets,
            outcome: g.outcome,
            sims: g.sims,
            seed: g.seed,
            values: g.values,
            proven: Vec::new(),
        }
    }
}

#[derive(bincode::Decode)]
struct ShardV1 {
    game: String,
    iteration: u32,
    games: Vec<GameV2>,
}

/// A shard as formats 2 and 3 stored it, with that format's games.
#[derive(bincode::Decode)]
struct ShardOf<G> {
    game: String,
    iteration: u32,
    games: Vec<G>,
    worker: String,
    model: u32,
    origin: String,
}

impl<G: Into<SelfPlayGame>> From<ShardOf<G>> for Shard {
    fn from(s: ShardOf<G>) -> Shard {
        Shard {
            game: s.game,
            iteration: s.iteration,
            games: s.games.into_iter().map(Into::into).collect(),
            worker: s.worker,
            model: s.model,
            origin: s.origin,
        }
    }
}

impl Shard {
    /// The framed bytes of the shard.
    pub fn to_bytes(&self) -> anyhow::Result<Vec<u8>> {
        let payload = bincode::encode_to_vec(self, bincode::config::standard())?;
        Ok(framing::frame(MAGIC, VERSION, &payload))
    }

    /// Checks (header, checksum, game) and decodes a shard; `what` names it.
    pub fn from_bytes(bytes: &[u8], game: &str, what: &str) -> anyhow::Result<Shard> {
        let shard = match framing::unframe_any(bytes, MAGIC, &[1, 2, 3, VERSION], what)? {
            (1, payload) => {
                let v1: ShardV1 = framing::decode(payload, what)?;
                Shard {
                    game: v1.game,
                    iteration: v1.iteration,
                    games: v1.games.into_iter().map(Into::into).collect(),
                    worker: String::new(),
                    model: 0,
                    origin: String::new(),
                }
            }
            (2, payload) => framing::decode::<ShardOf<GameV2>>(payload, what)?.into(),
            (3, payload) => framing::decode::<ShardOf<GameV3>>(payload, what)?.into(),
            (_, payload) => framing::decode(payload, what)?,
        };
        if shard.game != game {
            bail!(
                "{what}: a shard of game '{}', not '{game}'",
                crate::limits::clip(&shard.game)
            );
        }
        Ok(shard)
    }
}

#[derive(Debug, Clone)]
struct ShardInfo {
    key: String,
    iteration: u32,
    worker: String,
    seq: u32,
    games: usize,
    positions: usize,
}

/// The replay window: the games of the newest `window` positions, kept on disk and sampled for training.
pub struct ReplayBuffer<G> {
    start: G,
    /// How value targets are made (see [`positions`]).
    targets: Targets,
    store: Arc<dyn Store>,
    window: usize,
    samples: VecDeque<Sample<G>>,
    /// Each position's surprise, for drawing by it (`train.policy_surprise_weight`).
    surprise: Surprise,
    shards: Vec<ShardInfo>,
    /// The uploads already taken into the buffer (so none is ingested twice).
    origins: HashSet<String>,
}

/// How training targets are made from a stored game (`train.value_target_mix`,
/// `train.value_horizon`, `train.policy_target_power`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Targets {
    /// The weight of the search's root value: `(1 - m) · target + m · root value`.
    pub root_mix: f32,
    /// 0: every position's target is the game's recorded outcome. `N > 0`: the
    /// [`Game::score_vector`] of the position `N` plies later, and the recorded outcome
    /// only where the game ends within `N` plies (a truncated return: progress soon is
    /// credited to the moves that made it, not blurred over a whole long game).
    pub horizon: u32,
    /// The policy target is the visit distribution raised to this power and normalised:
    /// 1 takes it as it is, less than 1 softens it (KataGo's soft policy target, 1/4).
    pub policy_power: f32,
}

impl Default for Targets {
    fn default() -> Targets {
        Targets {
            root_mix: 0.0,
            horizon: 0,
            policy_power: 1.0,
        }
    }
}

/// The policy target of `visits` (counts or weights, not all zero) under `power`.
fn policy_target(visits: &[(Action, u32)], power: f32) -> Vec<(Action, f32)> {
    let weight = |n: u32| match power {
        1.0 => n as f64,
        p => (n as f64).powf(p as f64),
    };
    let total: f64 = visits.iter().map(|&(_, n)| weight(n)).sum();
    (visits.iter())
        .map(|&(a, n)| (a, (weight(n) / total) as f32))
        .collect()
}

/// The positions of one game, each with its policy target and its value target (see
/// [`Targets`]; the result alone for games stored without root values; the exact
/// outcome where the search proved the position).
pub fn positions<G: Game>(
    start: &G,
    game: &SelfPlayGame,
    targets: Targets,
) -> anyhow::Result<Vec<Sample<G>>> {
    if game.targets.len() != game.moves.len()
        || !(game.values.is_empty() || game.values.len() == game.moves.len())
    {
        bail!(
            "a game has {} moves but {} visit lists and {} root values",
            game.moves.len(),
            game.targets.len(),
            game.values.len()
        );
    }
    if game
        .values
        .iter()
        .flatten()
        .any(|v| !v.is_finite() || v.abs() > 1.0)
    {
        bail!("a root value lies outside [-1, 1]");
    }
    if game.proven.iter().any(|&i| i as usize >= game.values.len()) {
        bail!("a proven position has no root value");
    }
    // Every position of the game, replayed once: `states[i]` is the one before move `i`.
    let mut states = Vec::with_capacity(game.moves.len() + 1);
    states.push(start.clone());
    for &action in &game.moves {
        let mut next = states[states.len() - 1].clone();
        next.apply(action)
            .map_err(|e| anyhow::anyhow!("a stored move does not replay: {e}"))?;
        states.push(next);
    }
    let n = game.moves.len();
    let trace = Arc::new(Trace {
        end: states[n].clone(),
        outcome: game.outcome,
        scores: states[..n]
            .iter()
            .map(|s| s.score_vector().map(|v| v.0))
            .collect(),
    });
    let mut out = Vec::with_capacity(n);
    for (i, (state, visits)) in states.iter().zip(&game.targets).enumerate() {
        if visits.is_empty() {
            continue; // a fast search's move (playout-cap randomisation): no target
        }
        let total: u64 = visits.iter().map(|&(_, n)| n as u64).sum();
        if total == 0 || visits.iter().any(|&(a, _)| !state.is_legal(a)) {
            bail!("a policy target names an illegal action or no visits");
        }
        let policy = policy_target(visits, targets.policy_power);
        let target = trace.ahead(i, targets.horizon as usize);
        let proven = game.proven.binary_search(&(i as u32)).is_ok();
        let outcome = match game.values.get(i) {
            Some(&exact) if proven => exact,
            Some(root) if targets.root_mix > 0.0 => super::blend(target, root, targets.root_mix),
            _ => target,
        };
        out.push(Sample {
            state: state.clone(),
            policy,
            outcome,
            game: Some((trace.clone(), i)),
        });
    }
    Ok(out)
}

/// `(iteration, sequence)` from a shard key `replay/shard-IIIIII-SSSS.bin`.
fn shard_numbers(key: &str) -> Option<(u32, u32)> {
    let (it, seq) = key
        .strip_prefix(PREFIX)?
        .strip_suffix(".bin")?
        .split_once('-')?;
    Some((it.parse().ok()?, seq.parse().ok()?))
}

impl<G: Game> ReplayBuffer<G> {
    /// Opens (or creates) the buffer in the run's `store`, loading every shard in order.
    pub fn open(
        start: &G,
        store: Arc<dyn Store>,
        window: usize,
    ) -> anyhow::Result<ReplayBuffer<G>> {
        ReplayBuffer::open_with(start, store, window, Targets::default())
    }

    /// [`ReplayBuffer::open`] with value targets made by `targets`.
    pub fn open_with(
        start: &G,
        store: Arc<dyn Store>,
        window: usize,
        targets: Targets,
    ) -> anyhow::Result<ReplayBuffer<G>> {
        let keys = store.list(PREFIX)?;
        let mut buffer = ReplayBuffer {
            start: start.clone(),
            targets,
            store,
            window,
            samples: VecDeque::new(),
            surprise: Surprise::default(),
            shards: Vec::new(),
            origins: HashSet::new(),
        };
        for key in keys {
            let what = buffer.store.location(&key).display().to_string();
            let Some((_, seq)) = shard_numbers(&key) else {
                continue; // not a shard this program wrote
            };
            let Some(bytes) = buffer.store.get(&key, crate::limits::MAX_MODEL_BYTES)? else {
                continue; // deleted since the listing
            };
            let shard = Shard::from_bytes(&bytes, start.name(), &what)?;
            let new = buffer
                .positions_of(&shard)
                .with_context(|| format!("{what}: corrupt or foreign shard"))?;
            buffer.push(&shard, key, seq, new);
        }
        buffer.trim()?;
        Ok(buffer)
    }

    /// Every position of `shard`'s games (an error if one does not replay).
    fn positions_of(&self, shard: &Shard) -> anyhow::Result<Vec<Sample<G>>> {
        let mut out = Vec::new();
        for g in &shard.games {
            out.extend(positions(&self.start, g, self.targets)?);
        }
        Ok(out)
    }

    fn push(&mut self, shard: &Shard, key: String, seq: u32, new: Vec<Sample<G>>) {
        self.shards.push(ShardInfo {
            key,
            iteration: shard.iteration,
            worker: shard.worker.clone(),
            seq,
            games: shard.games.len(),
            positions: new.len(),
        });
        if !shard.origin.is_empty() {
            self.origins.insert(shard.origin.clone());
        }
        self.surprise.push(new.len());
        self.samples.extend(new);
    }

    /// Writes `games` (played by the trainer) as a new shard of `iteration`.
    pub fn add(
        &mut self,
        games: &[SelfPlayGame],
        iteration: u32,
        model: u32,
    ) -> anyhow::Result<()> {
        if games.is_empty() {
            return Ok(());
        }
        self.add_shard(Shard {
            game: self.start.name().to_string(),
            iteration,
            games: games.to_vec(),
            worker: String::new(),
            model,
            origin: String::new(),
        })
    }

    /// Writes `shard` (its games checked against the rules first) as the next shard of
    /// its iteration and adds its positions.
    pub fn add_shard(&mut self, shard: Shard) -> anyhow::Result<()> {
        let new = self.positions_of(&shard)?;
        let seq = self
            .shards
            .iter()
            .filter(|s| s.iteration == shard.iteration)
            .map(|s| s.seq + 1)
            .max()
            .unwrap_or(0);
        let key = format!("{PREFIX}{:06}-{seq:04}.bin", shard.iteration);
        self.store.put(&key, &shard.to_bytes()?)?;
        self.push(&shard, key, seq, new);
        self.trim()
    }

    /// Checks that every game of `shard` replays through the rules.
    pub fn check(&self, shard: &Shard) -> anyhow::Result<()> {
        self.positions_of(shard).map(drop)
    }

    /// The game the buffer holds (as shards name it).
    pub fn game_name(&self) -> &'static str {
        self.start.name()
    }

    /// Whether the upload `origin` is already in the buffer.
    pub fn has_origin(&self, origin: &str) -> bool {
        self.origins.contains(origin)
    }

    /// Drops positions beyond the window and deletes shards wholly outside it.
    fn trim(&mut self) -> anyhow::Result<()> {
        while self.samples.len() > self.window {
            self.samples.pop_front();
            self.surprise.pop_front();
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
            self.store.delete(&s.key)?;
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

    /// Games stored for `iteration` that self-play workers played, by worker id.
    pub fn worker_games(&self, iteration: u32) -> BTreeMap<String, u32> {
        let mut out = BTreeMap::new();
        for s in self.shards.iter().filter(|s| s.iteration == iteration) {
            if !s.worker.is_empty() {
                *out.entry(s.worker.clone()).or_default() += s.games as u32;
            }
        }
        out
    }

    /// Positions in the window.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// Whether the window holds no positions.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// A position drawn uniformly, or by its surprise once [`ReplayBuffer::weigh`] turned
    /// that on.
    pub fn sample(&self, rng: &mut Rng) -> &Sample<G> {
        &self.samples[self.surprise.draw(self.samples.len(), rng)]
    }

    /// Draws positions by their surprise at `weight` (`train.policy_surprise_weight`;
    /// 0: uniformly), each measured with `net` where it was not yet.
    pub fn weigh(&mut self, weight: f32, net: &Net) {
        self.surprise.set_weight(weight);
        self.surprise.measure(net, self.samples.iter());
    }
}
