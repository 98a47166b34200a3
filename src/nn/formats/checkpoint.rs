//! Checkpoint files: the network, the optimizer state and the training state in one
//! atomic, versioned, checksummed file (see [`crate::framing`]).
//!
//! The weights and the optimizer state are burn's burnpack bytes; around them a bincode
//! record holds the network shape (so a checkpoint is self-describing: `model:PATH`
//! needs nothing else) and the counters a resumed run continues from (its random
//! generators are derived from `run.seed`, [`crate::rng`]).

use std::path::Path;

use anyhow::{Context, bail};
use burn::module::{Module, ModuleVisitor, Param};
use burn::store::ModuleRecord;
use burn::tensor::{Bytes, Device, Tensor};

use super::super::{Aux, Heads, Net, NetShape, PolicyValueNet};
use crate::framing;

/// A checkpoint file's magic bytes.
pub const MAGIC: &[u8; 8] = b"CZCKPT\0\0";
/// Version 2 added [`Checkpoint::stage`] and [`Checkpoint::metrics`], versions 3 to 5
/// the auxiliary heads' flags (the first head of [`crate::nn::heads::Aux::ALL`]'s order,
/// then two, then four: a head added to the end of the table needs a new version),
/// version 6 [`NetShape::global_pool`]; versions 1 to 5 still load (version 1 as
/// finished iterations; each without the heads and layers that came later).
pub const VERSION: u32 = 6;

/// Where a training run stands; saved in every checkpoint.
#[derive(Debug, Clone, Default, PartialEq, bincode::Encode, bincode::Decode, serde::Serialize)]
pub struct TrainState {
    /// Iterations completed.
    pub iteration: u32,
    /// Self-play games recorded.
    pub games: u64,
    /// Positions recorded as training targets.
    pub positions: u64,
    /// Training steps taken.
    pub steps: u64,
    /// Unused since generators are derived per iteration from `run.seed` (see
    /// [`crate::rng`]); kept, written as zeros, so that older checkpoints still decode.
    pub rng: [u64; 4],
    /// The iteration whose network is `best` (0: the initial network).
    pub best_iteration: u32,
    /// Training wall time so far, over all sessions.
    pub wall_seconds: f64,
    /// The digest of the run's whole config ([`crate::config::Config::digest`]).
    pub config_digest: String,
}

/// A checkpoint file's contents: the network, its optimizer and the run's state.
#[derive(Debug, Clone, bincode::Encode, bincode::Decode)]
pub struct Checkpoint {
    /// The network's shape.
    pub shape: NetShape,
    /// Where the run stands.
    pub state: TrainState,
    /// Burnpack bytes of the network's parameters.
    pub model: Vec<u8>,
    /// Burnpack bytes of the optimizer state (empty in a network-only checkpoint).
    pub optimizer: Vec<u8>,
    /// How far this checkpoint's iteration got; a resume finishes the rest.
    pub stage: Stage,
    /// The iteration's metrics record (JSON) as far as `stage`; empty when not a
    /// numbered checkpoint. Kept here so a checkpoint never exists without its metrics.
    pub metrics: String,
}

/// A network shape as checkpoint formats 1 and 2 stored it (no ownership head).
#[derive(bincode::Decode)]
struct ShapeV2 {
    game: String,
    in_planes: usize,
    height: usize,
    width: usize,
    wraps: bool,
    policy_planes: usize,
    action_order: Vec<usize>,
    num_players: usize,
    blocks: usize,
    channels: usize,
    value_channels: usize,
    value_hidden: usize,
}

impl From<ShapeV2> for NetShape {
    fn from(s: ShapeV2) -> NetShape {
        NetShape {
            game: s.game,
            in_planes: s.in_planes,
            height: s.height,
            width: s.width,
            wraps: s.wraps,
            policy_planes: s.policy_planes,
            action_order: s.action_order,
            num_players: s.num_players,
            blocks: s.blocks,
            channels: s.channels,
            value_channels: s.value_channels,
            value_hidden: s.value_hidden,
            heads: Heads::NONE,
            global_pool: false,
        }
    }
}

/// A network shape as checkpoint formats 3 to 5 stored it: the flags of the first `N`
/// auxiliary heads, in [`Aux::ALL`]'s order (format 3 the first, format 4 two, format 5
/// four), and no global pooling.
#[derive(bincode::Decode)]
struct ShapeWith<const N: usize> {
    base: ShapeV2,
    heads: [bool; N],
}

impl<const N: usize> From<ShapeWith<N>> for NetShape {
    fn from(s: ShapeWith<N>) -> NetShape {
        let mut shape: NetShape = s.base.into();
        for (aux, on) in Aux::ALL.into_iter().zip(s.heads) {
            shape.heads[aux] = on;
        }
        shape
    }
}

/// A checkpoint as formats 2 to 5 stored it, with that format's shape.
#[derive(bincode::Decode)]
struct CheckpointOf<S> {
    shape: S,
    state: TrainState,
    model: Vec<u8>,
    optimizer: Vec<u8>,
    stage: Stage,
    metrics: String,
}

impl<S: Into<NetShape>> From<CheckpointOf<S>> for Checkpoint {
    fn from(c: CheckpointOf<S>) -> Checkpoint {
        Checkpoint {
            shape: c.shape.into(),
            state: c.state,
            model: c.model,
            optimizer: c.optimizer,
            stage: c.stage,
            metrics: c.metrics,
        }
    }
}

/// The steps of an iteration after its training, each saved into its checkpoint.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub enum Stage {
    /// Trained and saved; not yet gated.
    Trained,
    /// Gated (and promoted, if it won); the baselines not yet measured.
    Gated,
    /// Finished: the metrics are complete.
    #[default]
    Done,
}

/// The network's parameters as burnpack bytes. (Taken from `valid()`, which first syncs
/// batch norm's running statistics; a plain `into_record` could save stale ones.)
pub fn model_bytes(model: &PolicyValueNet) -> anyhow::Result<Vec<u8>> {
    let bytes = model
        .valid()
        .into_record()
        .into_bytes()
        .map_err(|e| anyhow::anyhow!("serialising the network: {e}"))?;
    Ok(bytes.to_vec())
}

/// A network of `shape` with the parameters from `bytes`, on `device`.
pub fn model_from_bytes(
    shape: &NetShape,
    bytes: &[u8],
    device: &Device,
) -> anyhow::Result<PolicyValueNet> {
    let record = ModuleRecord::from_bytes(Bytes::from_bytes_vec(bytes.to_vec()))
        .map_err(|e| anyhow::anyhow!("network parameters: {e}"))?;
    let model = PolicyValueNet::new(shape, device)
        .try_load_record(record)
        .map_err(|e| anyhow::anyhow!("network parameters do not fit the shape: {e}"))?;
    let mut check = NonFinite::default();
    model.visit(&mut check);
    match check.found {
        Some(name) => bail!("network tensor '{name}' holds NaN or infinite values"),
        None => Ok(model),
    }
}

/// Finds the first parameter (or batch-norm statistic) with a NaN or an infinity.
#[derive(Default)]
struct NonFinite {
    path: Vec<String>,
    found: Option<String>,
}

impl ModuleVisitor for NonFinite {
    fn enter_module(&mut self, name: &str, _: &str) {
        self.path.push(name.to_string());
    }

    fn exit_module(&mut self, _: &str, _: &str) {
        self.path.pop();
    }

    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        if self.found.is_some() {
            return;
        }
        let values = param
            .val()
            .into_data()
            .try_to_vec::<f32>()
            .unwrap_or_default();
        if values.iter().any(|x| !x.is_finite()) {
            self.found = Some(self.path.join("."));
        }
    }
}

impl Checkpoint {
    /// Writes the checkpoint to `path` atomically.
    pub fn save(&self, path: &Path) -> anyhow::Result<()> {
        framing::write_atomic(path, &self.to_bytes()?)
            .with_context(|| format!("saving checkpoint {}", path.display()))
    }

    /// The framed file contents.
    pub fn to_bytes(&self) -> anyhow::Result<Vec<u8>> {
        let payload = bincode::encode_to_vec(self, bincode::config::standard())?;
        Ok(framing::frame(MAGIC, VERSION, &payload))
    }

    /// Reads and checks the checkpoint at `location` (a file or an object URL).
    pub fn load(location: &Path) -> anyhow::Result<Checkpoint> {
        let bytes = crate::store::read_location(location, crate::limits::MAX_MODEL_BYTES)?;
        Checkpoint::from_bytes(&bytes, &location.display().to_string())
    }

    /// Checks and decodes a checkpoint: header, checksum, shape; `what` names it.
    pub fn from_bytes(bytes: &[u8], what: &str) -> anyhow::Result<Checkpoint> {
        let ckpt = match framing::unframe_any(bytes, MAGIC, &[1, 2, 3, 4, 5, VERSION], what)? {
            (1, payload) => {
                let (shape, state, model, optimizer): (ShapeV2, _, _, _) =
                    framing::decode(payload, what)?;
                Checkpoint {
                    shape: shape.into(),
                    state,
                    model,
                    optimizer,
                    stage: Stage::Done,
                    metrics: String::new(),
                }
            }
            (2, payload) => framing::decode::<CheckpointOf<ShapeV2>>(payload, what)?.into(),
            (3, payload) => framing::decode::<CheckpointOf<ShapeWith<1>>>(payload, what)?.into(),
            (4, payload) => framing::decode::<CheckpointOf<ShapeWith<2>>>(payload, what)?.into(),
            (5, payload) => framing::decode::<CheckpointOf<ShapeWith<4>>>(payload, what)?.into(),
            (_, payload) => framing::decode(payload, what)?,
        };
        if ckpt.shape.action_order.is_empty() || ckpt.shape.input_len() == 0 {
            bail!("{what}: the network shape is empty");
        }
        Ok(ckpt)
    }

    /// The network as a burn module on the inference device.
    pub fn module(&self) -> anyhow::Result<PolicyValueNet> {
        model_from_bytes(&self.shape, &self.model, &super::super::device())
    }

    /// The network ready for inference.
    pub fn net(&self) -> anyhow::Result<Net> {
        Ok(Net::new(self.shape.clone(), &self.module()?))
    }
}

/// Loads a network for inference from an exported bundle (its directory or manifest),
/// a checkpoint file, or a run directory (its `best` checkpoint); in an indexed models
/// directory also by a game's or a former name ([`super::models::resolve`]).
pub fn load_net(path: &Path) -> anyhow::Result<Net> {
    let (shape, model) = load_model(path)?;
    Ok(Net::new(shape, &model))
}

/// The network at `path` (as [`load_net`] finds it) as a burn module, with its shape. A
/// bundle's batch norms come folded into their convolutions: identity norms, exact at
/// inference ([`super::super::warm`] rebases them for training).
pub fn load_model(path: &Path) -> anyhow::Result<(NetShape, PolicyValueNet)> {
    let path = &super::models::resolve(path);
    if super::bundle::is_bundle(path) {
        return super::bundle::load_model(path);
    }
    let file = checkpoint_file(path)?;
    let ckpt = Checkpoint::load(&file)?;
    let model = ckpt
        .module()
        .with_context(|| format!("loading {}", file.display()))?;
    Ok((ckpt.shape, model))
}

/// `path` itself, or for a run directory its `best` checkpoint.
pub fn checkpoint_file(path: &Path) -> anyhow::Result<std::path::PathBuf> {
    if crate::store::is_remote(path) {
        // An object URL: a `.ckpt` object itself, anything else a run whose best to take.
        return Ok(match path.extension() {
            Some(e) if e == "ckpt" => path.to_path_buf(),
            _ => path.join(BEST),
        });
    }
    if !path.is_dir() {
        return Ok(path.to_path_buf());
    }
    let best = path.join(BEST);
    if !best.is_file() {
        bail!(
            "{} is neither a model bundle (no {}) nor a run directory (no {BEST})",
            path.display(),
            super::bundle::MANIFEST
        );
    }
    Ok(best)
}

/// The file name of a run's best network.
pub const BEST: &str = "best.ckpt";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::infexion::Board;

    #[test]
    fn non_finite_weights_are_refused_naming_the_tensor() {
        let shape = NetShape::for_game(&Board::new(), 1, 8, 16);
        let device = super::super::super::device();
        let mut model = PolicyValueNet::new(&shape, &device);
        let good = model_bytes(&model).unwrap();
        assert!(model_from_bytes(&shape, &good, &device).is_ok());
        let bias = model.value_out.bias.take().unwrap().val();
        model.value_out.bias = Some(Param::from_tensor(bias.mul_scalar(f32::NAN)));
        let bad = model_bytes(&model).unwrap();
        let err = model_from_bytes(&shape, &bad, &device)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("value_out") && err.contains("NaN or infinite"),
            "{err}"
        );
    }
}
