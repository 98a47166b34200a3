//! The fast evaluator's own loop: the alpha-beta player on the best evaluator plays
//! itself at a fixed node count from random openings, a new evaluator is trained on the
//! newest of those games (from fresh weights or the best's, `distill.loop_start`), and
//! it is gated like a checkpoint (against the best, then
//! against the fixed baseline, under the config's `[gating]`) before it plays the next
//! games. From nothing the first best has random weights; from a teacher it is an
//! evaluator distilled from the network's games.
//!
//! The loop's directory holds `data/` (every generation's games, compact game records),
//! `gen-NNNN/` (each generation's evaluator bundle), `best/` (a copy of the best, which
//! plays as `nnue:DIR/best`) and `loop.jsonl` (a line a generation: its games, training,
//! gate and time), rewritten whole at each line like a run's metrics, so a crash leaves
//! the log before or after it. A loop that stops resumes after its last line.
//!
//! Each generation's bundle names its [`Lineage`]: the best whose games it learnt, the
//! positions trained on in its line (the best's counted in where it trains on from the
//! best's weights), one generation more than the best's, and the minutes of the loop
//! until it was trained, with those of the evaluator the loop started from.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::distill::{DistillOptions, distill, shape_of};
use super::gating::gate_players;
use super::metrics::{MatchResult, append_line};
use crate::agents::{AgentSpec, Baselines};
use crate::config::{Config, LoopStart};
use crate::limits::MAX_TEXT_BYTES;
use crate::nn::nnue::FloatNet;
use crate::nn::nnue::bundle::{self, Lineage};
use crate::rng::{Rng, salt};
use crate::selfplay::generate::{SearchedGames, generate_searched};
use crate::store::Store;

/// The log of a loop directory, a JSON line a generation.
pub const LOG: &str = "loop.jsonl";

/// What one generation did: a line of [`LOG`].
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Generation {
    /// Its number (0: the evaluator the loop started from).
    pub generation: u32,
    /// The best generation that played its games.
    pub played_by: u32,
    /// Games played.
    pub games: u64,
    /// Positions recorded.
    pub positions: u64,
    /// Positions a second of its games.
    pub positions_per_second: f64,
    /// Positions trained on.
    pub train_positions: usize,
    /// The last epoch's validation loss.
    pub validation_loss: f64,
    /// The candidate against the best.
    pub vs_best: Option<MatchResult>,
    /// The candidate's and the best's results against the baseline (when the baseline
    /// gate ran).
    pub baseline: Option<(MatchResult, MatchResult)>,
    /// Whether it became the best.
    pub promoted: bool,
    /// The best generation after it.
    pub best: u32,
    /// Minutes since the loop began, all its runs together.
    pub minutes: f64,
}

/// The directory of generation `g`'s evaluator.
fn generation_dir(dir: &Path, g: u32) -> PathBuf {
    dir.join(format!("gen-{g:04}"))
}

/// The name generation `g`'s evaluator is written under: the run's and its number.
fn generation_name(c: &Config, g: u32) -> String {
    format!("{}-gen-{g:04}", c.run.name)
}

/// The alpha-beta player of the evaluator at `path` at the loop's node count.
fn player(path: &Path, nodes: u64) -> AgentSpec {
    AgentSpec::Nnue {
        path: path.to_path_buf(),
        ms: None,
        depth: None,
        nodes: Some(nodes),
        soft: None,
        pruning: Default::default(),
    }
}

/// The last generation the loop's log holds, if any.
fn last_logged(store: &dyn Store, dir: &Path) -> anyhow::Result<Option<Generation>> {
    let text = store.get(LOG, MAX_TEXT_BYTES)?.unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let Some(last) = text.lines().rfind(|l| !l.trim().is_empty()) else {
        return Ok(None);
    };
    let path = dir.join(LOG);
    let v: serde_json::Value = serde_json::from_str(last)
        .with_context(|| format!("{}: the last line is not JSON", path.display()))?;
    let g = serde_json::from_value(v).with_context(|| {
        format!(
            "{}: the last line is not a generation's record",
            path.display()
        )
    })?;
    Ok(Some(g))
}

/// Copies the bundle at `from` to `to`, replacing what was there.
fn copy_bundle(from: &Path, to: &Path) -> anyhow::Result<()> {
    let staging = to.with_extension("new");
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging)?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        std::fs::copy(entry.path(), staging.join(entry.file_name()))?;
    }
    let _ = std::fs::remove_dir_all(to);
    std::fs::rename(&staging, to).with_context(|| format!("replacing {}", to.display()))
}

/// What a loop is asked to do.
pub struct LoopOptions<'a> {
    /// The loop's directory.
    pub dir: PathBuf,
    /// The evaluator to start from (`None`: random weights); only read by a new loop.
    pub from: Option<PathBuf>,
    /// The teacher network for `distill.teacher_value` (labels every generation's positions).
    pub teacher: Option<crate::nn::Net>,
    /// Threads playing the games.
    pub threads: usize,
    /// Progress bars.
    pub progress: bool,
    /// Called with each generation as it is logged.
    pub on_generation: &'a dyn Fn(&Generation),
}

/// Runs the loop in `opts.dir` until `distill.generations` generations are logged.
pub fn run_loop<G: Baselines>(start: &G, c: &Config, opts: &LoopOptions) -> anyhow::Result<()> {
    let d = &c.distill;
    let dir = &opts.dir;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let store = crate::store::open(&dir.to_string_lossy())?;
    let log = |g: &Generation| -> anyhow::Result<()> {
        append_line(store.as_ref(), LOG, g)?;
        (opts.on_generation)(g);
        Ok(())
    };
    let t0 = Instant::now();
    let last = match last_logged(store.as_ref(), dir)? {
        Some(g) => g,
        None => {
            let first = generation_dir(dir, 0);
            match &opts.from {
                Some(from) => {
                    bundle::load(from, start)?;
                    copy_bundle(from, &first)?;
                }
                None => {
                    let net = FloatNet::random(shape_of(start, d)?, c.run.seed);
                    let how = serde_json::json!({ "random": c.run.seed });
                    let name = generation_name(c, 0);
                    bundle::write(&first, &name, &net, start.settings(), None, how, None)?;
                }
            }
            copy_bundle(&first, &dir.join("best"))?;
            let g = Generation {
                promoted: true,
                ..Generation::default()
            };
            log(&g)?;
            g
        }
    };
    let data = dir.join("data").to_string_lossy().into_owned();
    // What the evaluator the loop started from took, counted in every generation's.
    let first_minutes = bundle::read_manifest(&generation_dir(dir, 0))?
        .lineage()
        .minutes;
    let mut best = last.best;
    for number in last.generation + 1..=d.generations {
        let played_by = best;
        let best_dir = generation_dir(dir, played_by);
        let seed = Rng::derive(c.run.seed ^ salt::LOOP_GAMES, number as u64);
        let games = SearchedGames {
            move_limit: c.ply_cap(number),
            threads: opts.threads,
            progress: opts.progress,
            ..SearchedGames::from_config(d, player(&best_dir, d.loop_nodes), seed)
        };
        let played = generate_searched(start, &games, &data)?;
        let out = generation_dir(dir, number);
        let (manifest, weights) = bundle::load(&best_dir, start)?;
        let parent = manifest.lineage();
        let (init, positions) = match d.loop_start {
            LoopStart::Fresh => (None, 0),
            LoopStart::Best => (Some(weights), parent.positions),
        };
        let lineage = Lineage {
            parent: Some(manifest.name),
            positions,
            generations: parent.generations + 1,
            minutes: first_minutes + last.minutes + t0.elapsed().as_secs_f64() / 60.0,
        };
        let trained = distill(
            start,
            &DistillOptions {
                data: vec![data.clone()],
                out: out.clone(),
                name: Some(generation_name(c, number)),
                settings: d.clone(),
                teacher: opts.teacher.clone(),
                init,
                lineage,
                seed: Rng::derive(c.run.seed, number as u64),
                progress: opts.progress,
            },
        )?;
        let gate = gate_players(
            start,
            c,
            number,
            (player(&out, d.loop_nodes), player(&best_dir, d.loop_nodes)),
            played_by,
            None,
            opts.progress,
        )?;
        if gate.promote {
            best = number;
            copy_bundle(&out, &dir.join("best"))?;
        }
        log(&Generation {
            generation: number,
            played_by,
            games: played.games,
            positions: played.positions,
            positions_per_second: played.positions_per_second(),
            train_positions: trained.train_positions,
            validation_loss: trained.validation_loss.last().copied().unwrap_or(0.0),
            vs_best: gate.vs_best,
            baseline: gate.baseline,
            promoted: gate.promote,
            best,
            minutes: last.minutes + t0.elapsed().as_secs_f64() / 60.0,
        })?;
    }
    Ok(())
}
