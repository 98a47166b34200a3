//! Positions by the million for the fast evaluator: games of the teacher network
//! against itself at few simulations (the trainer's self-play: batched across games,
//! root noise, moves sampled by visits for the first plies), written as replay shards
//! (`replay/shard-…`, the record format runs write) into a directory or store that
//! `contagion distill` reads.

use std::sync::Mutex;

use super::replay::{PREFIX, SHARD_GAMES, Shard};
use super::{SelfPlayGame, SelfPlaySettings, SelfPlayStats};
use crate::agents::Baselines;
use crate::nn::Net;

/// Plays `games` teacher games from `start` under `settings` (seeded by `seed`) and
/// writes them to the store at `out`, [`SHARD_GAMES`] games a shard, numbered after the
/// shards already there (so a second call adds to the first).
pub fn generate<G: Baselines>(
    start: &G,
    teacher: &Net,
    settings: &SelfPlaySettings,
    games: u32,
    seed: u64,
    out: &str,
) -> anyhow::Result<SelfPlayStats> {
    let store = crate::store::open(out)?;
    let first = store.list(PREFIX)?.len() as u32;
    let next = Mutex::new((first, Vec::<SelfPlayGame>::new(), None::<anyhow::Error>));
    let write = |batch: Vec<SelfPlayGame>, seq: u32| -> anyhow::Result<()> {
        let shard = Shard {
            game: start.name().into(),
            iteration: 0,
            games: batch,
            worker: "generate".into(),
            model: 0,
            origin: String::new(),
        };
        store.put(&format!("{PREFIX}000000-{seq:06}.bin"), &shard.to_bytes()?)
    };
    let stats = super::play(start, teacher, settings, games, seed, |game| {
        let mut n = next.lock().expect("shard lock");
        n.1.push(game);
        if n.1.len() >= SHARD_GAMES {
            let batch = std::mem::take(&mut n.1);
            let seq = n.0;
            n.0 += 1;
            if let Err(e) = write(batch, seq) {
                n.2.get_or_insert(e);
            }
        }
    })?;
    let (seq, rest, error) = next.into_inner().expect("shard lock");
    if let Some(e) = error {
        return Err(e);
    }
    if !rest.is_empty() {
        write(rest, seq)?;
    }
    Ok(stats)
}
