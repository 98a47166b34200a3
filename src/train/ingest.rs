//! Taking in games that self-play workers (`contagion selfplay`) upload to the run's
//! store as `incoming/<worker>-<session>-<n>.bin`.
//!
//! Each upload is checked (header and checksum, game, every move replayed through the
//! rules, the worker's name) and written into the replay buffer as a shard of the
//! iteration being played, recording the upload's key as its origin; only then is the
//! upload deleted. A crash between the two leaves both, and the next ingest sees the
//! origin and only deletes the upload: no game is lost or counted twice. An upload that
//! fails its checks is moved to `rejected/` with a warning naming what is wrong.

use crate::games::Game;
use crate::selfplay::replay::{INCOMING, REJECTED, ReplayBuffer, Shard};
use crate::store::Store;

/// Takes waiting uploads, in key order, into `buffer` as shards of `iteration` until at
/// least `want` games came in (or none is left). Returns the games taken.
pub fn ingest<G: Game>(
    store: &dyn Store,
    buffer: &mut ReplayBuffer<G>,
    iteration: u32,
    want: usize,
) -> anyhow::Result<usize> {
    let mut got = 0;
    for key in store.list(INCOMING)? {
        if got >= want {
            break;
        }
        if buffer.has_origin(&key) {
            store.delete(&key)?; // taken in before a crash, not yet deleted
            continue;
        }
        let Some(bytes) = store.get(&key, crate::limits::MAX_MODEL_BYTES)? else {
            continue;
        };
        let what = store.location(&key).display().to_string();
        let checked = Shard::from_bytes(&bytes, buffer.game_name(), &what).and_then(|shard| {
            crate::store::check_name("worker id", &shard.worker)?;
            buffer.check(&shard)?;
            Ok(shard)
        });
        match checked {
            Ok(mut shard) => {
                let n = shard.games.len();
                shard.iteration = iteration;
                shard.origin = key.clone();
                buffer.add_shard(shard)?;
                store.delete(&key)?;
                got += n;
            }
            Err(e) => {
                let name = key.strip_prefix(INCOMING).unwrap_or(&key);
                eprintln!("warning: refused {what}: {e:#}; moved to {REJECTED}{name}");
                store.put(&format!("{REJECTED}{name}"), &bytes)?;
                store.delete(&key)?;
            }
        }
    }
    Ok(got)
}
