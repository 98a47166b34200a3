//! The runs `contagion serve` was given, for the page's Watch tab: their metrics (read
//! afresh on every request, so the curves follow a run as it trains) and the self-play
//! games in their replay window, move by move.
//!
//! A visitor names a run only by its name in [`Runs::list`]; nothing they send becomes
//! a path, so the page reads nothing but these runs' own objects.

use std::sync::Arc;

use anyhow::{Context, bail};
use serde_json::json;

use super::served::Catalog;
use crate::config::Config;
use crate::limits::{MAX_MODEL_BYTES, MAX_TEXT_BYTES};
use crate::selfplay::replay::Shard;
use crate::store::{self, Store};
use crate::train::metrics;

/// Replay shards listed per run, newest first.
const MAX_SHARDS: usize = 40;

/// One run: its name on the page and its store.
struct Run {
    name: String,
    store: Arc<dyn Store>,
}

/// The runs being watched.
pub struct Runs {
    runs: Vec<Run>,
}

impl Runs {
    /// The runs at `locations`: each a run (a directory or store location holding a
    /// `config.toml`) or a local directory of runs (each subdirectory with one).
    pub fn open(locations: &[String]) -> anyhow::Result<Runs> {
        let mut runs = Vec::new();
        for location in locations {
            let root = store::open(location)?;
            if root.get("config.toml", MAX_TEXT_BYTES)?.is_some() {
                runs.push(Run {
                    name: last_part(location),
                    store: root,
                });
                continue;
            }
            let Some(dir) = root.local_dir().map(|d| d.to_path_buf()) else {
                bail!("{location}: no config.toml: not a run");
            };
            let mut found: Vec<_> = std::fs::read_dir(&dir)
                .with_context(|| format!("reading {}", dir.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.join("config.toml").is_file())
                .collect();
            found.sort();
            for path in found {
                let text = path.to_string_lossy().to_string();
                runs.push(Run {
                    name: last_part(&text),
                    store: store::open(&text)?,
                });
            }
        }
        // Names must tell runs apart: a repeated one gets a number.
        let mut seen = std::collections::HashMap::<String, usize>::new();
        for run in &mut runs {
            let n = seen.entry(run.name.clone()).or_default();
            *n += 1;
            if *n > 1 {
                run.name = format!("{}-{n}", run.name);
            }
        }
        Ok(Runs { runs })
    }

    /// Every run's name and where it lives.
    pub fn list(&self) -> serde_json::Value {
        (self.runs.iter())
            .map(|r| json!({"name": r.name, "location": r.store.url()}))
            .collect()
    }

    /// The local runs that have a best network: name, game, directory. (A model's
    /// directory is a `model:` path; runs in other stores are watched, not played.)
    pub fn trained(&self) -> Vec<(String, String, std::path::PathBuf)> {
        (self.runs.iter())
            .filter_map(|r| {
                let dir = r.store.local_dir()?;
                let best = dir.join(crate::nn::formats::checkpoint::BEST).is_file();
                let game = game_of(r).ok()?;
                best.then(|| (r.name.clone(), game, dir.to_path_buf()))
            })
            .collect()
    }

    fn run(&self, name: &str) -> Option<&Run> {
        self.runs.iter().find(|r| r.name == name)
    }

    /// The run's metrics records (`None`: no such run).
    pub fn metrics(&self, name: &str) -> Option<anyhow::Result<serde_json::Value>> {
        let run = self.run(name)?;
        Some(metrics::records(run.store.as_ref()).map(|m| json!(m)))
    }

    /// The self-play games in the run's newest replay shards: shard key, index, plies,
    /// result (`None`: no such run).
    pub fn games(
        &self,
        name: &str,
        catalog: &Catalog,
    ) -> Option<anyhow::Result<serde_json::Value>> {
        let run = self.run(name)?;
        Some((|| {
            let game = game_of(run)?;
            let players = catalog.get(&game).map_or(2, |g| g.player_names().len());
            let mut keys = run.store.list("replay/")?;
            keys.reverse();
            keys.truncate(MAX_SHARDS);
            let mut out = Vec::new();
            for key in keys {
                let shard = read_shard(run, &key, &game)?;
                for (i, g) in shard.games.iter().enumerate() {
                    out.push(json!({
                        "shard": key.trim_start_matches("replay/"),
                        "index": i,
                        "iteration": shard.iteration,
                        "plies": g.plies(),
                        "outcome": g.outcome[..players],
                    }));
                }
            }
            Ok(json!(out))
        })())
    }

    /// Game `index` of replay shard `shard`: its moves and the board after each (`None`:
    /// no such run).
    pub fn game(
        &self,
        name: &str,
        shard: &str,
        index: usize,
        catalog: &Catalog,
    ) -> Option<anyhow::Result<serde_json::Value>> {
        let run = self.run(name)?;
        Some((|| {
            let game = game_of(run)?;
            let key = format!("replay/{shard}");
            let known = run.store.list("replay/")?;
            if !known.contains(&key) {
                bail!("no shard '{}' in run {name}", crate::limits::clip(shard));
            }
            let shard = read_shard(run, &key, &game)?;
            let Some(g) = shard.games.get(index) else {
                bail!(
                    "the shard has {} games; there is no game {index}",
                    shard.games.len()
                );
            };
            catalog.get(&game)?.replay(&g.moves)
        })())
    }
}

/// The run's game, from its config.
fn game_of(run: &Run) -> anyhow::Result<String> {
    let bytes =
        (run.store.get("config.toml", MAX_TEXT_BYTES)?).context("the run has no config.toml")?;
    let config = Config::parse(&String::from_utf8_lossy(&bytes), "config.toml")?;
    Ok(config.run.game.to_string())
}

fn read_shard(run: &Run, key: &str, game: &str) -> anyhow::Result<Shard> {
    let bytes = run
        .store
        .get(key, MAX_MODEL_BYTES)?
        .with_context(|| format!("{key} is gone"))?;
    Shard::from_bytes(&bytes, game, key)
}

/// The last part of a path or URL, as a run's name.
fn last_part(location: &str) -> String {
    let trimmed = location.trim_end_matches('/');
    trimmed.rsplit('/').next().unwrap_or(trimmed).to_string()
}
