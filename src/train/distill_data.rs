//! The distillation's positions, from the replay shards and game records of its data
//! (local directories or stores): read whole, each position once (the targets of its
//! repeats averaged), or streamed (`distill.stream`): the files in a new random order
//! each pass, their positions through a shuffling buffer of a bounded size, so that tens
//! of millions of positions train within the memory of a few hundred thousand.
//!
//! A position's target, for each seat relative to the mover, is the game's result and
//! the search's value mixed as [`Targets::root_mix`] says (the teacher's share is added
//! by the distillation). Held out for validation, either way: the positions whose hash,
//! mixed with the seed, falls below `distill.validation` of the range.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use anyhow::{Context, bail};

use crate::config::DistillConfig;
use crate::games::{Game, MAX_PLAYERS};
use crate::rng::Rng;
use crate::selfplay::SelfPlayGame;
use crate::selfplay::records;
use crate::selfplay::replay::{self, Shard, Targets};
use crate::store::Store;

/// A position and its targets relative to its mover.
#[derive(Clone)]
pub(super) struct Position<G> {
    pub state: G,
    pub target: [f32; MAX_PLAYERS],
    /// Made off a game's line (`distill.branches`), not played in one.
    pub branch: bool,
}

/// One file of the data: its store and key.
type File = (Arc<dyn Store>, String);

/// The files of `data`: each store's replay shards and game records, newest first (for
/// `distill.max_positions`).
fn files(data: &[String]) -> anyhow::Result<Vec<File>> {
    let mut keys = Vec::new();
    for root in data {
        let store = crate::store::open(root)?;
        let found = [store.list(replay::PREFIX)?, store.list(records::PREFIX)?].concat();
        if found.is_empty() {
            bail!(
                "{root}: no replay shards ({}*) and no game records ({}*)",
                replay::PREFIX,
                records::PREFIX
            );
        }
        keys.extend(found.into_iter().map(|k| (store.clone(), k)));
    }
    keys.reverse();
    Ok(keys)
}

/// How the positions' targets are made from `c`: the search value's share of what the
/// teacher leaves.
fn targets(c: &DistillConfig) -> Targets {
    let rest = 1.0 - c.teacher_value;
    let root_mix = match rest > 1e-9 {
        true => (1.0 - c.lambda - c.teacher_value).max(0.0) / rest,
        false => 0.0,
    };
    Targets {
        root_mix: root_mix as f32,
        ..Targets::default()
    }
}

/// The games of one file, checked (a damaged file is refused, named).
fn games_of<G: Game>(start: &G, (store, key): &File) -> anyhow::Result<Vec<SelfPlayGame>> {
    let location = store.location(key);
    let what = location.display().to_string();
    let bytes = store
        .get(key, crate::limits::MAX_MODEL_BYTES)?
        .with_context(|| format!("{what}: gone while reading"))?;
    Ok(match key.starts_with(records::PREFIX) {
        true => (records::Chunk::from_bytes(&bytes, start.name(), &what)?.records)
            .iter()
            .map(|r| r.to_game(start))
            .collect::<anyhow::Result<_>>()
            .with_context(|| format!("{what}: a game does not replay"))?,
        false => Shard::from_bytes(&bytes, start.name(), &what)?.games,
    })
}

/// Each position of the games of `file`, with its targets relative to its mover;
/// returns the games read.
fn each_position<G: Game>(
    start: &G,
    file: &File,
    targets: Targets,
    mut f: impl FnMut(G, [f32; MAX_PLAYERS]),
) -> anyhow::Result<usize> {
    let games = games_of(start, file)?;
    let players = start.num_players();
    for game in &games {
        let samples = replay::positions(start, game, targets).with_context(|| {
            format!(
                "{}: a game does not replay",
                file.0.location(&file.1).display()
            )
        })?;
        for s in samples {
            let mover = s.state.to_move();
            let mut target = [0.0; MAX_PLAYERS];
            for (k, t) in target.iter_mut().enumerate().take(players) {
                *t = s.outcome[(mover + k) % players];
            }
            f(s.state, target);
        }
    }
    Ok(games.len())
}

/// Whether `state` is held out for validation under `cut` and `seed`.
pub(super) fn held_out<G: Game>(state: &G, cut: u64, seed: u64) -> bool {
    crate::rng::splitmix64(state.hash() ^ seed) < cut
}

/// The share `validation` of the hash range, as a cut for [`held_out`].
pub(super) fn cut_of(validation: f64) -> u64 {
    (validation * u64::MAX as f64) as u64
}

/// Every position of the games in `data`, each taken once (its repeats' targets
/// averaged), in the order of their hashes; with the games read.
pub(super) fn read_positions<G: Game>(
    start: &G,
    data: &[String],
    c: &DistillConfig,
) -> anyhow::Result<(usize, Vec<Position<G>>)> {
    let players = start.num_players();
    let mut merged: HashMap<u64, (Position<G>, u32)> = HashMap::new();
    let mut games = 0;
    for file in files(data)? {
        if c.max_positions > 0 && merged.len() as u64 >= c.max_positions {
            break;
        }
        games += each_position(start, &file, targets(c), |state, target| {
            let entry = merged.entry(state.hash()).or_insert_with(|| {
                let p = Position {
                    state,
                    target: [0.0; MAX_PLAYERS],
                    branch: false,
                };
                (p, 0)
            });
            for (sum, t) in entry.0.target.iter_mut().zip(target).take(players) {
                *sum += t;
            }
            entry.1 += 1;
        })?;
    }
    let mut out: Vec<Position<G>> = (merged.into_values())
        .map(|(mut p, n)| {
            p.target.iter_mut().for_each(|t| *t /= n as f32);
            p
        })
        .collect();
    out.sort_by_key(|p| p.state.hash());
    Ok((games, out))
}

/// The positions of `data` streamed: a pass reads every file once, in a random order,
/// through a buffer of at most `capacity` positions.
pub(super) struct Stream<G> {
    start: G,
    files: Vec<File>,
    targets: Targets,
    cut: u64,
    seed: u64,
    capacity: usize,
    /// Games in the files.
    pub games: usize,
    /// Positions a pass trains on (the held-out ones left out).
    pub positions: usize,
}

impl<G: Game> Stream<G> {
    /// Opens the data for streaming through `capacity` positions: one pass over the files
    /// counts the training positions and keeps the held-out ones, distinct, up to
    /// `capacity` of them (the validation set, returned); `distill.max_positions` takes
    /// the newest files until they hold that many positions.
    pub fn open(
        start: &G,
        data: &[String],
        c: &DistillConfig,
        seed: u64,
        capacity: usize,
    ) -> anyhow::Result<(Stream<G>, Vec<Position<G>>)> {
        let mut stream = Stream {
            start: start.clone(),
            files: Vec::new(),
            targets: targets(c),
            cut: cut_of(c.validation),
            seed,
            capacity: capacity.max(1),
            games: 0,
            positions: 0,
        };
        let (mut held, mut seen) = (Vec::new(), HashSet::new());
        let mut total = 0u64;
        for file in files(data)? {
            if c.max_positions > 0 && total >= c.max_positions {
                break;
            }
            stream.games += each_position(start, &file, stream.targets, |state, target| {
                total += 1;
                match held_out(&state, stream.cut, seed) {
                    false => stream.positions += 1,
                    true if held.len() < stream.capacity && seen.insert(state.hash()) => {
                        held.push(Position {
                            state,
                            target,
                            branch: false,
                        })
                    }
                    true => {}
                }
            })?;
            stream.files.push(file);
        }
        Ok((stream, held))
    }

    /// One pass: the files in an order drawn from `rng`, their training positions
    /// gathered until the buffer holds `capacity`, shuffled, and given to `train` a batch
    /// of `batch` at a time (less than a batch left of a full buffer stays for the next
    /// fill; the last batch of the pass may be short). The buffer never holds more than
    /// `capacity` positions, or `batch` where that is more.
    pub fn pass(
        &self,
        rng: &mut Rng,
        batch: usize,
        mut train: impl FnMut(&mut [Position<G>]) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let mut order: Vec<&File> = self.files.iter().collect();
        rng.shuffle(&mut order);
        let capacity = self.capacity.max(batch);
        let mut buffer: Vec<Position<G>> = Vec::with_capacity(capacity.min(1 << 20));
        let mut drain = |buffer: &mut Vec<Position<G>>, rng: &mut Rng, all: bool| {
            rng.shuffle(buffer);
            let whole = match all {
                true => buffer.len(),
                false => buffer.len() / batch * batch,
            };
            for chunk in buffer[..whole].chunks_mut(batch) {
                train(chunk)?;
            }
            buffer.drain(..whole);
            anyhow::Ok(())
        };
        for file in order {
            let mut failed = None;
            each_position(&self.start, file, self.targets, |state, target| {
                if failed.is_some() || held_out(&state, self.cut, self.seed) {
                    return;
                }
                buffer.push(Position {
                    state,
                    target,
                    branch: false,
                });
                if buffer.len() >= capacity {
                    failed = drain(&mut buffer, rng, false).err();
                }
            })?;
            if let Some(e) = failed {
                return Err(e);
            }
        }
        drain(&mut buffer, rng, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::ataxx::Ataxx;
    use crate::selfplay::records::{Chunk, NO_SCORE, Record};

    /// A directory of `chunks` chunks of random Ataxx games, each game with scores.
    fn write_data(name: &str, chunks: usize) -> String {
        let dir = std::env::temp_dir().join(format!("cz-{name}-{}", std::process::id()));
        std::fs::remove_dir_all(&dir).ok();
        let store = crate::store::open(dir.to_str().unwrap()).unwrap();
        let mut rng = Rng::new(7);
        for c in 0..chunks {
            let mut records = Vec::new();
            for _ in 0..5 {
                let (mut state, mut moves, mut legal) = (Ataxx::standard(), Vec::new(), Vec::new());
                while state.outcome().is_none() && moves.len() < 80 {
                    legal.clear();
                    state.legal_actions(&mut legal);
                    let a = legal[rng.below(legal.len())];
                    state.apply(a).unwrap();
                    moves.push(a);
                }
                let scores = (0..moves.len())
                    .map(|i| match i < 2 {
                        true => NO_SCORE,
                        false => rng.below(10_001) as i16 - 5_000,
                    })
                    .collect();
                let result = match rng.below(2) {
                    0 => vec![100, -100],
                    _ => vec![-100, 100],
                };
                records.push(Record {
                    opening: 2,
                    moves,
                    scores,
                    result,
                });
            }
            let game = "ataxx".into();
            let bytes = Chunk { game, records }.to_bytes().unwrap();
            let key = format!("{}{c:03}.bin", records::PREFIX);
            store.put(&key, &bytes).unwrap();
        }
        dir.to_string_lossy().into_owned()
    }

    /// The hashes of every position of `data`'s files, sorted.
    fn every_hash(start: &Ataxx, data: &str, c: &DistillConfig) -> Vec<u64> {
        let mut out = Vec::new();
        for file in files(&[data.to_string()]).unwrap() {
            each_position(start, &file, targets(c), |s, _| out.push(s.hash())).unwrap();
        }
        out.sort_unstable();
        out
    }

    #[test]
    fn a_pass_trains_on_every_position_not_held_out_once_in_full_batches() {
        let start = Ataxx::standard();
        let data = [write_data("stream-pass", 6)];
        let c = DistillConfig {
            validation: 0.2,
            ..DistillConfig::default()
        };
        let (seed, capacity, batch) = (3, 100, 32);
        let (stream, held) = Stream::open(&start, &data, &c, seed, capacity).unwrap();
        assert_eq!(stream.games, 30);
        let every = every_hash(&start, &data[0], &c);
        let cut = cut_of(c.validation);
        let trained: Vec<u64> = (every.iter().copied())
            .filter(|&h| crate::rng::splitmix64(h ^ seed) >= cut)
            .collect();
        assert_eq!(stream.positions, trained.len());
        // The held-out positions: distinct, held out, at most the buffer's worth.
        let mut hashes: Vec<u64> = held.iter().map(|p| p.state.hash()).collect();
        assert!(!held.is_empty() && held.len() <= capacity);
        assert!(held.iter().all(|p| held_out(&p.state, cut, seed)));
        hashes.sort_unstable();
        hashes.dedup();
        assert_eq!(hashes.len(), held.len());
        // Two passes: each position once, in batches of 32 but the last, in new orders.
        let mut rng = Rng::new(1);
        let mut orders = Vec::new();
        for _ in 0..2 {
            let (mut seen, mut sizes) = (Vec::new(), Vec::new());
            (stream.pass(&mut rng, batch, |chunk| {
                sizes.push(chunk.len());
                seen.extend(chunk.iter().map(|p| p.state.hash()));
                Ok(())
            }))
            .unwrap();
            assert!(sizes[..sizes.len() - 1].iter().all(|&n| n == batch));
            assert_eq!(sizes.len(), trained.len().div_ceil(batch));
            orders.push(seen.clone());
            seen.sort_unstable();
            assert_eq!(seen, trained);
        }
        assert_ne!(orders[0], orders[1]);
        // A step's error ends the pass with it.
        let failed = stream.pass(&mut rng, batch, |_| anyhow::bail!("a step failed"));
        assert!(format!("{:#}", failed.unwrap_err()).contains("a step failed"));
        std::fs::remove_dir_all(&data[0]).ok();
    }

    #[test]
    fn max_positions_takes_the_newest_files_and_a_damaged_one_is_named() {
        let start = Ataxx::standard();
        let data = [write_data("stream-max", 3)];
        let c = DistillConfig {
            max_positions: 1,
            ..DistillConfig::default()
        };
        let (stream, _) = Stream::open(&start, &data, &c, 1, 1000).unwrap();
        assert_eq!((stream.files.len(), stream.games), (1, 5));
        assert!(
            stream.files[0].1.ends_with("002.bin"),
            "{:?}",
            stream.files[0].1
        );
        let path = std::path::Path::new(&data[0]).join(format!("{}001.bin", records::PREFIX));
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[20] ^= 0xff;
        std::fs::write(&path, bytes).unwrap();
        let c = DistillConfig::default();
        let Err(e) = Stream::open(&start, &data, &c, 1, 1000) else {
            panic!("a damaged chunk was read");
        };
        assert!(format!("{e:#}").contains("001.bin"), "{e:#}");
        std::fs::remove_dir_all(&data[0]).ok();
    }
}
