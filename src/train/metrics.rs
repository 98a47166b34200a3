//! `metrics.jsonl`: one JSON object per iteration, appended and fsynced.
//!
//! A line cut short by a crash is skipped when reading (and reported), so the log
//! never stops a run from resuming; before appending, the trainer [`repair`]s the file,
//! cutting a torn last line so that it cannot swallow the next record.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::arena::elo::Stats;

/// A match result from the trained side's point of view: W/D/L, score and Elo
/// ([`Stats`], flattened into the same JSON object).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchResult {
    pub opponent: String,
    pub games: u32,
    #[serde(flatten)]
    pub stats: Stats,
}

impl MatchResult {
    pub fn new(opponent: &str, stats: Stats) -> MatchResult {
        MatchResult {
            opponent: opponent.to_string(),
            games: stats.games(),
            stats,
        }
    }

    /// `W-D-L`.
    pub fn wdl(&self) -> String {
        let s = &self.stats;
        format!("{}-{}-{}", s.wins, s.draws, s.losses)
    }

    pub fn win_rate(&self) -> f64 {
        self.stats.wins as f64 / self.games.max(1) as f64
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IterationMetrics {
    pub iteration: u32,
    /// Training wall time so far, all sessions, in minutes.
    pub minutes: f64,
    pub iteration_seconds: f64,
    pub games: u32,
    pub positions: u64,
    pub mean_game_plies: f64,
    pub buffer_positions: usize,
    pub selfplay_positions_per_second: f64,
    pub selfplay_forward_share: f64,
    pub mean_batch: f64,
    pub cache_hit_rate: f64,
    pub train_steps: u64,
    pub train_samples_per_second: f64,
    pub learning_rate: f64,
    pub loss_policy: f64,
    pub loss_value: f64,
    pub loss_total: f64,
    /// Candidate (this iteration) against the best so far.
    pub gating: Option<MatchResult>,
    pub promoted: bool,
    pub best_iteration: u32,
    /// The best network against the fixed baseline and against greedy.
    pub vs_baseline: Option<MatchResult>,
    pub vs_greedy: Option<MatchResult>,
}

/// Appends one record as a line, fsynced.
pub fn append(path: &Path, m: &IterationMetrics) -> anyhow::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("opening {}", path.display()))?;
    let line = serde_json::to_string(m)? + "\n";
    f.write_all(line.as_bytes())
        .and_then(|_| f.sync_all())
        .with_context(|| format!("appending to {}", path.display()))
}

/// Cuts a torn (unterminated) last line off `path`; returns how many bytes were cut.
pub fn repair(path: &Path) -> anyhow::Result<usize> {
    if !path.exists() {
        return Ok(0);
    }
    let bytes = crate::limits::read_file(path, crate::limits::MAX_TEXT_BYTES)?;
    let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    if keep < bytes.len() {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .with_context(|| format!("opening {}", path.display()))?;
        f.set_len(keep as u64)
            .and_then(|_| f.sync_all())
            .with_context(|| format!("repairing {}", path.display()))?;
    }
    Ok(bytes.len() - keep)
}

/// The highest iteration with a record in `path` (0 when none or no file).
pub fn last_iteration(path: &Path) -> anyhow::Result<u32> {
    if !path.exists() {
        return Ok(0);
    }
    Ok(read(path)?.0.iter().map(|m| m.iteration).max().unwrap_or(0))
}

/// Reads every complete record; returns them and the number of unreadable lines.
pub fn read(path: &Path) -> anyhow::Result<(Vec<IterationMetrics>, usize)> {
    let text = crate::limits::read_text(path, crate::limits::MAX_TEXT_BYTES)?;
    let mut out = Vec::new();
    let mut bad = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str(line) {
            Ok(m) => out.push(m),
            Err(_) => bad += 1,
        }
    }
    Ok((out, bad))
}
