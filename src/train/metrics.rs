//! `metrics.jsonl`: one JSON object per iteration, in the run's store.
//!
//! Each record is appended by rewriting the log whole (atomically, like every object),
//! so no reader sees half a line. A line cut short in a log written by an older version
//! is skipped when reading (and reported); the trainer [`repair`]s such a log on start.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::arena::elo::Stats;
use crate::limits::MAX_TEXT_BYTES;
use crate::nn::heads::{Aux, PerHead};
use crate::store::Store;

/// A match result from the trained side's point of view: W/D/L, score and Elo
/// ([`Stats`], flattened into the same JSON object).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchResult {
    /// The opponent's agent spec.
    pub opponent: String,
    /// Games played.
    pub games: u32,
    /// The results.
    #[serde(flatten)]
    pub stats: Stats,
}

impl MatchResult {
    /// The result of `stats` against `opponent`.
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

    /// Wins over games played.
    pub fn win_rate(&self) -> f64 {
        self.stats.wins as f64 / self.games.max(1) as f64
    }
}

/// The auxiliary heads' losses in a metrics record: each under its head's
/// [`crate::nn::heads::Head::metric`] key, where it is not zero.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AuxLosses(pub PerHead<f64>);

impl Serialize for AuxLosses {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let present = self.0.iter().filter(|&(_, v)| !is_zero(v));
        s.collect_map(present.map(|(aux, v)| (aux.head().metric, v)))
    }
}

impl<'de> Deserialize<'de> for AuxLosses {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // The record's other fields come too (flattened): only the heads' keys are read.
        let rest = BTreeMap::<String, serde_json::Value>::deserialize(d)?;
        let loss = |aux: Aux| rest.get(aux.head().metric).and_then(|v| v.as_f64());
        Ok(AuxLosses(PerHead::from_fn(|aux| loss(aux).unwrap_or(0.0))))
    }
}

/// Its fields are `metrics.jsonl`'s, documented once, in `docs/formats.md`.
#[allow(missing_docs)]
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
    /// The auxiliary heads' losses, each under its head's `metric` key (absent without
    /// the head).
    #[serde(flatten)]
    pub loss_aux: AuxLosses,
    pub loss_total: f64,
    /// Candidate (this iteration) against the best so far.
    pub gating: Option<MatchResult>,
    /// The baseline gate (`gating.baseline_games`): the candidate's and the best's
    /// results against the baseline on the same openings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate_candidate_vs_baseline: Option<MatchResult>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate_best_vs_baseline: Option<MatchResult>,
    pub promoted: bool,
    pub best_iteration: u32,
    /// The best network against the fixed baseline and against greedy.
    pub vs_baseline: Option<MatchResult>,
    pub vs_greedy: Option<MatchResult>,
    /// Games this iteration took from self-play workers (`contagion selfplay`), by
    /// worker id; empty when the trainer played them all.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub worker_games: BTreeMap<String, u32>,
    /// Self-play games ended by resignation, and the false-resignation rate measured
    /// on the games played out anyway (`null` when none would have resigned).
    #[serde(default)]
    pub resigned_games: u64,
    /// Self-play games cut at `selfplay.max_plies` and adjudicated by score.
    #[serde(default)]
    pub adjudicated_games: u64,
    /// Self-play games played against `selfplay.opponent` (one seat the network's).
    #[serde(default)]
    pub opponent_games: u64,
    /// The network's results against each member of the league it met in its own
    /// self-play this iteration (what the league's draw weighs by).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub league: Vec<crate::selfplay::league::MemberResult>,
    #[serde(default)]
    pub false_resign_rate: Option<f64>,
    /// Seconds the trainer spent taking worker uploads in (read, check, write, delete).
    #[serde(default)]
    pub ingest_seconds: f64,
    /// Where the iteration's time went, in seconds: its games (the trainer's self-play
    /// and uploads taken in), training (of which building the batches: sampling,
    /// augmenting, encoding), and gating with the baseline matches. `iteration_seconds`
    /// counts games, training and saving, not gating.
    #[serde(default)]
    pub selfplay_seconds: f64,
    #[serde(default)]
    pub train_seconds: f64,
    #[serde(default)]
    pub batch_seconds: f64,
    #[serde(default)]
    pub gating_seconds: f64,
    /// Where the network trained and self-play's forward ran (`train.device`).
    #[serde(default)]
    pub device: crate::nn::DeviceKind,
}

/// The metrics log's key in a run's store.
pub const LOG: &str = "metrics.jsonl";

/// Appends one record as a line: the log is rewritten whole (atomically), so a crash
/// leaves the old log or the new one.
pub fn append(store: &dyn Store, m: &IterationMetrics) -> anyhow::Result<()> {
    append_line(store, LOG, m)
}

/// Appends `record` as a JSON line to the log `key` of `store` as [`append`] does:
/// rewritten whole (atomically), a torn last line dropped.
pub fn append_line<T: Serialize>(store: &dyn Store, key: &str, record: &T) -> anyhow::Result<()> {
    let mut text = store.get(key, MAX_TEXT_BYTES)?.unwrap_or_default();
    text.truncate(complete_len(&text));
    text.extend_from_slice((serde_json::to_string(record)? + "\n").as_bytes());
    store.put(key, &text)
}

/// The length of `bytes` up to and including its last newline.
fn complete_len(bytes: &[u8]) -> usize {
    bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)
}

/// Cuts a torn (unterminated) last line off the log (older versions appended in place);
/// returns how many bytes were cut.
pub fn repair(store: &dyn Store) -> anyhow::Result<usize> {
    let Some(bytes) = store.get(LOG, MAX_TEXT_BYTES)? else {
        return Ok(0);
    };
    let keep = complete_len(&bytes);
    if keep < bytes.len() {
        store.put(LOG, &bytes[..keep])?;
    }
    Ok(bytes.len() - keep)
}

/// Every complete record in the run's log (none when there is no log).
pub fn records(store: &dyn Store) -> anyhow::Result<Vec<IterationMetrics>> {
    let text = store.get(LOG, MAX_TEXT_BYTES)?.unwrap_or_default();
    Ok(parse(&String::from_utf8_lossy(&text)).0)
}

/// The highest iteration with a record in the log (0 when none or no log).
pub fn last_iteration(store: &dyn Store) -> anyhow::Result<u32> {
    Ok(records(store)?
        .iter()
        .map(|m| m.iteration)
        .max()
        .unwrap_or(0))
}

/// Reads every complete record of the log at `location` (a file or an object URL);
/// returns them and the number of unreadable lines.
pub fn read(location: &Path) -> anyhow::Result<(Vec<IterationMetrics>, usize)> {
    let bytes = crate::store::read_location(location, MAX_TEXT_BYTES)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("{}: not UTF-8 text", location.display()))?;
    Ok(parse(&text))
}

fn parse(text: &str) -> (Vec<IterationMetrics>, usize) {
    let mut out = Vec::new();
    let mut bad = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str(line) {
            Ok(m) => out.push(m),
            Err(_) => bad += 1,
        }
    }
    (out, bad)
}

/// For serde: leaves a loss out where it is 0 (a head the network lacks).
pub(crate) fn is_zero(x: &f64) -> bool {
    *x == 0.0
}
