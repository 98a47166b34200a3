//! The shipped models' index, `models/index.json`: each bundle's game, size, training,
//! headline result, status and record, and the names it had before.
//!
//! The index is the one place that says which model of a game is current: a path
//! `models/<game>` loads it, `contagion serve` offers it first, and the Python agent
//! reads the same file. An entry is a network (`model:`) or a fast evaluator (`nnue:`,
//! [`Kind`]); each game has one current network and at most one current evaluator,
//! which `nnue:models/<game>` loads. A model's former name keeps loading ([`resolve`]).
//! An evaluator's entry repeats its manifest's [`Lineage`] (the tests hold the two
//! together). `models/README.md` is made from it ([`Index::markdown`]).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::nn::nnue::bundle::Lineage;

/// The index's file name inside a models directory.
pub const INDEX_FILE: &str = "index.json";

/// Whether a model is the one its game's defaults take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The game's strongest: what `models/<game>` names.
    Current,
    /// Kept as a yardstick and for its record.
    Superseded,
}

/// What a bundle holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A policy-value network (`model:PATH`).
    #[default]
    Network,
    /// A fast evaluator for the alpha-beta player (`nnue:PATH`).
    Evaluator,
}

/// One shipped bundle.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// Its directory in `models/`.
    pub name: String,
    /// The game it plays (its manifest's).
    pub game: String,
    /// Blocks × channels, e.g. `4x32` (its manifest's).
    pub size: String,
    /// How it was trained.
    pub training: String,
    /// Its headline result (Markdown).
    pub result: String,
    /// The command that re-measures that result.
    pub check: String,
    /// Current or superseded.
    pub status: Status,
    /// The record of its training, relative to the repository.
    pub record: String,
    /// Names it was shipped under before, which still load.
    #[serde(default)]
    pub formerly: Vec<String>,
    /// A network (the default) or an evaluator.
    #[serde(default)]
    pub kind: Kind,
    /// An evaluator's lineage, as its manifest says it (every current evaluator has one).
    #[serde(default)]
    pub lineage: Option<Lineage>,
}

/// `models/index.json`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Index {
    /// What the file is (for a reader of the JSON).
    pub about: String,
    /// Every shipped bundle, each game's current one first.
    pub models: Vec<Entry>,
}

impl Index {
    /// The index of the models directory `dir`, if it has one.
    pub fn load(dir: &Path) -> anyhow::Result<Option<Index>> {
        let path = dir.join(INDEX_FILE);
        if !path.is_file() {
            return Ok(None);
        }
        let text = crate::limits::read_text(&path, crate::limits::MAX_TEXT_BYTES)?;
        let index =
            serde_json::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        Ok(Some(index))
    }

    /// The current network of `game`.
    pub fn current(&self, game: &str) -> Option<&Entry> {
        self.current_of(game, Kind::Network)
    }

    /// The current bundle of `kind` for `game`.
    pub fn current_of(&self, game: &str, kind: Kind) -> Option<&Entry> {
        (self.models.iter())
            .find(|m| m.game == game && m.kind == kind && m.status == Status::Current)
    }

    /// The evaluator `name` stands for: its own name or a former one, or `game`'s name
    /// (the game's current evaluator).
    pub fn evaluator(&self, name: &str, game: &str) -> Option<&Entry> {
        (self.models.iter())
            .filter(|m| m.kind == Kind::Evaluator)
            .find(|m| m.name == name || m.formerly.iter().any(|f| f == name))
            .or_else(|| {
                (name == game)
                    .then(|| self.current_of(game, Kind::Evaluator))
                    .flatten()
            })
    }

    /// The model a name stands for: its own name, a former one, or a game's name (the
    /// game's current model).
    pub fn find(&self, name: &str) -> Option<&Entry> {
        (self.models.iter())
            .find(|m| m.name == name || m.formerly.iter().any(|f| f == name))
            .or_else(|| self.current(name))
    }

    /// Where `name` sorts in a list of models: current ones first, then in the index's
    /// order, names it does not list last.
    pub fn rank(&self, name: &str) -> (bool, usize) {
        match self.models.iter().position(|m| m.name == name) {
            Some(i) => (self.models[i].status != Status::Current, i),
            None => (true, usize::MAX),
        }
    }

    /// Each game's current model as a Markdown table: what the README shows.
    pub fn current_markdown(&self) -> String {
        self.current_table("model", |m| {
            let kind = match m.kind {
                Kind::Network => "",
                Kind::Evaluator => " (fast evaluator, `nnue:`)",
            };
            Some(format!("`{}`{kind}", m.name))
        })
    }

    /// Each game's current fast evaluator as a Markdown table: what `docs/nnue.md`
    /// shows of their strength.
    pub fn current_evaluators_markdown(&self) -> String {
        self.current_table("`nnue:models/<game>`", |m| {
            (m.kind == Kind::Evaluator).then(|| format!("`{}`", m.name))
        })
    }

    /// The current models `named` names (`None`: left out) as a Markdown table of game,
    /// name (under `heading`) and result.
    fn current_table(&self, heading: &str, named: impl Fn(&Entry) -> Option<String>) -> String {
        let mut out = format!("| game | {heading} | result |\n|---|---|---|\n");
        for m in self.models.iter().filter(|m| m.status == Status::Current) {
            if let Some(name) = named(m) {
                out.push_str(&format!("| {} | {name} | {} |\n", m.game, m.result));
            }
        }
        out
    }

    /// The index as a Markdown table: what `models/README.md` holds.
    pub fn markdown(&self) -> String {
        let mut out = String::from(
            "| model | game | training | result | status | record |\n|---|---|---|---|---|---|\n",
        );
        for m in &self.models {
            let status = match m.status {
                Status::Current => match m.kind {
                    Kind::Network => format!("**current** (`models/{}`)", m.game),
                    Kind::Evaluator => format!("**current** (`nnue:models/{}`)", m.game),
                },
                Status::Superseded => "superseded".into(),
            };
            let record = m.record.rsplit_once('/').map_or(&*m.record, |(dir, _)| dir);
            let lineage =
                (m.lineage.as_ref()).map_or(String::new(), |l| format!(" (lineage: {l})"));
            out.push_str(&format!(
                "| `{}` | {} | {}{lineage} | {} | {status} | [{}](../{}) |\n",
                m.name, m.game, m.training, m.result, record, m.record
            ));
        }
        out.push_str("\nEach result re-measured (1–2 minutes on 2 cores):\n\n```sh\n");
        for m in &self.models {
            out.push_str(&m.check);
            out.push('\n');
        }
        out.push_str("```\n");
        out
    }
}

/// `path` itself when it exists; otherwise, in a models directory with an index, the
/// model its last part names (a model, a former name, or a game: its current model).
pub fn resolve(path: &Path) -> PathBuf {
    if path.exists() || crate::store::is_remote(path) {
        return path.to_path_buf();
    }
    resolve_by(path, |index, name| index.find(name))
}

/// The evaluator bundle `path` names: the bundle itself, or in a models directory with
/// an index the evaluator its last part names (an evaluator, a former name, or `game`:
/// its current evaluator).
pub fn resolve_evaluator(path: &Path, game: &str) -> PathBuf {
    if super::super::nnue::bundle::is_evaluator(path) {
        return path.to_path_buf();
    }
    resolve_by(path, |index, name| index.evaluator(name, game))
}

/// The entry `find` picks by `path`'s last part in the index of `path`'s folder, as a
/// path in that folder; `path` itself where there is none.
fn resolve_by(path: &Path, find: impl for<'a> Fn(&'a Index, &str) -> Option<&'a Entry>) -> PathBuf {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return path.to_path_buf();
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    match Index::load(dir) {
        Ok(Some(index)) => match find(&index, &name.to_string_lossy()) {
            Some(m) => dir.join(&m.name),
            None => path.to_path_buf(),
        },
        _ => path.to_path_buf(),
    }
}
