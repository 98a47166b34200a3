//! Evaluator bundles: a directory with `model.safetensors` (the float weights, named as
//! [`EvalShape::tensors`] lists them) and `manifest.json` (the game, the feature set, the
//! shape, the weights' SHA-256, the quantisation, how the integer form agreed with the
//! float one, how it was trained, and its [`Lineage`]), the layout of the network
//! bundles.
//!
//! [`load`] refuses, with a message naming the file and the fault, a missing file, a
//! manifest of another format or version, a feature set this build does not make, an
//! evaluator for another game (or another board), weights whose checksum differs
//! (damaged or replaced), a truncated file, a missing tensor, a wrong shape and values
//! that are not finite.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, bail, ensure};
use serde::{Deserialize, Serialize};

use super::features::FeatureSet;
use super::kernels::{Kernel, QA, SCALES};
use super::net::{EvalShape, Evaluator, FloatNet, QB};
use crate::framing::write_atomic;
use crate::games::Game;
use crate::nn::formats::bundle::{MANIFEST, WEIGHTS, dir_of, sha256_hex};
use crate::nn::formats::safetensors::{self, Tensor};

/// The manifest's `format`.
pub const FORMAT: &str = "contagion-evaluator";
/// The manifest's `version`.
pub const VERSION: u32 = 1;

/// How the integer form agreed with the float one on real positions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Agreement {
    /// Positions compared.
    pub positions: usize,
    /// The mean absolute difference of the mover's value.
    pub mean_abs_diff: f64,
    /// The share of positions whose value has the same sign in both.
    pub sign_agreement: f64,
}

/// The integers' scales.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Quantisation {
    /// A clipped unit's 1.0, and the accumulator weights' scale.
    pub qa: i32,
    /// The dense weights' scale.
    pub qb: i32,
}

/// Where an evaluator comes from: what it learnt from, and what it took to make it and
/// the evaluators before it in its line.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lineage {
    /// What it learnt from: the evaluator whose games it trained on (a loop's best, whose
    /// weights it also started from where the loop trains on), the evaluator whose
    /// weights it trained on (`distill --from`), or the teacher network its distillation
    /// was given (`--teacher`); `None`: its data alone.
    pub parent: Option<String>,
    /// Positions trained on by it and by the weights it started from (repeats across
    /// generations counted).
    pub positions: u64,
    /// Loop generations in its line: 0 for an evaluator distilled from a network's games,
    /// its parent's and one more for a loop's.
    pub generations: u32,
    /// Minutes of training, and of the loop's games and gates where a loop made it, its
    /// line's counted in (not the teacher's games a distilled evaluator's data came from).
    pub minutes: f64,
}

impl Lineage {
    /// This lineage extended by a training of `positions` in `seconds`.
    pub fn trained(&self, positions: u64, seconds: f64) -> Lineage {
        let minutes = self.minutes + seconds / 60.0;
        Lineage {
            parent: self.parent.clone(),
            positions: self.positions + positions,
            generations: self.generations,
            minutes: (minutes * 10.0).round() / 10.0,
        }
    }
}

impl std::fmt::Display for Lineage {
    /// `from ataxx-4x32-226min: 3.94 million positions, 0 generations, 18.8 minutes`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(parent) = &self.parent {
            write!(f, "from `{parent}`: ")?;
        }
        match self.positions {
            p if p >= 1_000_000 => write!(f, "{:.2} million positions", p as f64 / 1e6)?,
            p => write!(f, "{} positions", crate::limits::grouped(p))?,
        }
        write!(
            f,
            ", {} generations, {:.1} minutes",
            self.generations, self.minutes
        )
    }
}

/// `manifest.json` of an evaluator bundle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalManifest {
    /// Always [`FORMAT`].
    pub format: String,
    /// Always [`VERSION`].
    pub version: u32,
    /// The name the bundle is listed under.
    pub name: String,
    /// The game's rule settings ([`Game::settings`]).
    pub settings: serde_json::Value,
    /// The feature set's name ([`FeatureSet::NAMES`]).
    pub features: String,
    /// The network's shape (its game among it).
    pub shape: EvalShape,
    /// The integers' scales.
    pub quantisation: Quantisation,
    /// The SHA-256 of `model.safetensors`.
    pub weights_sha256: String,
    /// The integer form against the float one, where measured.
    pub agreement: Option<Agreement>,
    /// How it was trained (free-form facts: data, targets, steps, losses).
    pub training: serde_json::Value,
    /// Where it comes from (absent from the manifests written before lineages were).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lineage: Option<Lineage>,
}

impl EvalManifest {
    /// Its lineage, or for a bundle written before lineages one made of its training's
    /// own facts (its positions and seconds; no parent, no generations).
    pub fn lineage(&self) -> Lineage {
        let fact = |key: &str| self.training.get(key).and_then(|v| v.as_f64());
        self.lineage.clone().unwrap_or_else(|| {
            Lineage::default().trained(
                fact("train_positions").unwrap_or(0.0) as u64,
                fact("seconds").unwrap_or(0.0),
            )
        })
    }
}

/// Whether `path` is an evaluator bundle (a directory whose manifest has [`FORMAT`]).
pub fn is_evaluator(path: &Path) -> bool {
    dir_of(path).and_then(read_manifest).is_ok()
}

/// Writes `net` as a bundle in directory `out` (made if missing), atomically file by file.
pub fn write(
    out: &Path,
    name: &str,
    net: &FloatNet,
    settings: serde_json::Value,
    agreement: Option<Agreement>,
    training: serde_json::Value,
    lineage: Option<Lineage>,
) -> anyhow::Result<EvalManifest> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let tensors: BTreeMap<String, Tensor> = (net.shape.tensors().into_iter())
        .zip(net.parts())
        .map(|((name, shape), data)| (name.to_string(), Tensor::new(shape, data.clone())))
        .collect();
    let bytes = safetensors::to_bytes(&tensors, &BTreeMap::new());
    let manifest = EvalManifest {
        format: FORMAT.into(),
        version: VERSION,
        name: name.into(),
        settings,
        features: net.shape.features.name().into(),
        shape: net.shape.clone(),
        quantisation: Quantisation {
            qa: QA as i32,
            qb: QB,
        },
        weights_sha256: sha256_hex(&bytes),
        agreement,
        training,
        lineage,
    };
    write_atomic(&out.join(WEIGHTS), &bytes)?;
    let json = serde_json::to_string_pretty(&manifest)? + "\n";
    write_atomic(&out.join(MANIFEST), json.as_bytes())?;
    Ok(manifest)
}

/// The manifest of evaluator bundle `dir`, its shape reading the feature set it names.
pub fn read_manifest(dir: &Path) -> anyhow::Result<EvalManifest> {
    let path = dir.join(MANIFEST);
    let text = crate::limits::read_text(&path, crate::limits::MAX_TEXT_BYTES)
        .with_context(|| format!("reading the evaluator manifest {}", path.display()))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{}: not valid JSON", path.display()))?;
    if value.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
        bail!(
            "{}: not an evaluator bundle (its format is not '{FORMAT}'; a network bundle plays as model:PATH)",
            path.display()
        );
    }
    let mut m: EvalManifest = serde_json::from_value(value)
        .with_context(|| format!("{}: not a valid evaluator manifest", path.display()))?;
    m.shape.features =
        FeatureSet::parse(&m.features).with_context(|| format!("{}", path.display()))?;
    ensure!(
        m.version == VERSION,
        "{}: evaluator format version {}, this build reads {VERSION}",
        path.display(),
        m.version
    );
    Ok(m)
}

/// The integer evaluator of the bundle at `path` (its directory or manifest) for `start`'s
/// game, at the scale its manifest names, on the widest kernel this CPU runs.
pub fn load_evaluator<G: Game>(path: &Path, start: &G) -> anyhow::Result<Evaluator> {
    let (m, net) = load(path, start)?;
    let qa = m.quantisation.qa as i16; // within SCALES: `load` checked it
    Ok(Evaluator::at_scale(&net, qa, Kernel::detect()))
}

/// Loads the evaluator bundle at `path` (its directory or manifest) to play `start`'s game.
pub fn load<G: Game>(path: &Path, start: &G) -> anyhow::Result<(EvalManifest, FloatNet)> {
    let dir = dir_of(path)?;
    let m = read_manifest(dir)?;
    let shape = &m.shape;
    shape
        .check()
        .with_context(|| format!("{}", dir.display()))?;
    let inputs = (shape.features.inputs(start)).with_context(|| format!("{}", dir.display()))?;
    ensure!(
        shape.game == start.name() && shape.inputs == inputs,
        "{}: the evaluator was trained for '{}' ({} inputs) and cannot play '{}' ({inputs} inputs)",
        dir.display(),
        crate::limits::clip(&shape.game),
        shape.inputs,
        start.name(),
    );
    ensure!(
        shape.outputs == start.num_players(),
        "{}: {} outputs for a game of {} players",
        dir.display(),
        shape.outputs,
        start.num_players()
    );
    ensure!(
        i16::try_from(m.quantisation.qa).is_ok_and(|qa| SCALES.contains(&qa))
            && m.quantisation.qb == QB,
        "{}: quantised at {}/{}, this build runs {} to {} over {QB}",
        dir.display(),
        m.quantisation.qa,
        m.quantisation.qb,
        SCALES.start(),
        SCALES.end()
    );
    ensure!(
        shape.inputs * shape.hidden <= crate::limits::MAX_MODEL_BYTES as usize / 4,
        "{}: the shape is larger than any evaluator this build loads",
        dir.display()
    );
    let weights = dir.join(WEIGHTS);
    let bytes = crate::limits::read_file(&weights, crate::limits::MAX_MODEL_BYTES)?;
    let digest = sha256_hex(&bytes);
    ensure!(
        digest == m.weights_sha256,
        "{}: damaged or replaced (its SHA-256 is {digest}, the manifest says {})",
        weights.display(),
        crate::limits::clip(&m.weights_sha256)
    );
    let mut tensors = safetensors::from_bytes(&bytes)
        .with_context(|| format!("{}: not a valid safetensors file", weights.display()))?;
    let mut parts = Vec::new();
    for (name, dims) in shape.tensors() {
        let t = tensors
            .remove(name)
            .with_context(|| format!("{}: tensor '{name}' is missing", weights.display()))?;
        ensure!(
            t.shape == dims,
            "{}: tensor '{name}' has shape {:?}, the manifest needs {dims:?}",
            weights.display(),
            t.shape
        );
        ensure!(
            t.data.iter().all(|x| x.is_finite()),
            "{}: tensor '{name}' holds NaN or infinite values",
            weights.display()
        );
        parts.push(t.data);
    }
    let parts: [Vec<f32>; 6] = parts.try_into().expect("six tensors");
    let net = FloatNet::from_parts(shape.clone(), parts);
    Ok((m, net))
}
