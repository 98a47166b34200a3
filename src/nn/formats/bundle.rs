//! Exported model bundles: a directory with `model.safetensors` (every weight as plain
//! float32, batch norm folded into the convolutions) and `manifest.json` (see
//! [`super::manifest`] and `docs/bundle.md`).
//!
//! [`write`](fn@write) exports a network (and, asked to, its ONNX model); [`load`] reads a bundle back into a [`Net`] that runs
//! under MCTS like any checkpoint, refusing a missing file, another format version, a
//! manifest that does not describe this architecture, or a tensor of the wrong shape.
//! Loading rebuilds the burn network with identity batch norms carrying the folded
//! biases, so a bundle's outputs match its checkpoint's to float rounding.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, bail, ensure};
use burn::module::{Param, ParamId, RunningState};
use burn::nn::conv::Conv2d;
use burn::nn::{BatchNorm, Linear};
use burn::tensor::{Device, Tensor as BurnTensor, TensorData};

use super::super::heads::{Head, Kind};
use super::super::network::Slot;
use super::super::{Net, NetShape, PolicyValueNet};
use super::manifest::{
    self, Actions, GameInfo, Input, Manifest, Output, Outputs, Provenance, names,
};
use super::safetensors::{self, Tensor};
use crate::framing::write_atomic;
use crate::games::Game;

/// The manifest's file name in a bundle.
pub const MANIFEST: &str = "manifest.json";
/// The weights' file name in a bundle.
pub const WEIGHTS: &str = "model.safetensors";

/// Whether `path` is a bundle directory (or its manifest file).
pub fn is_bundle(path: &Path) -> bool {
    path.join(MANIFEST).is_file() || path.file_name().is_some_and(|n| n == MANIFEST)
}

/// The manifest for `shape`, with `start` describing the game.
pub fn manifest<G: Game>(shape: &NetShape, start: &G, provenance: Provenance) -> Manifest {
    let players: Vec<String> = (0..start.num_players())
        .map(|p| start.player_name(p).to_string())
        .collect();
    let value_meaning = format!(
        "tanh outputs, one per player, relative to the player to move: value[i] is the \
         expected result (+1 win, 0 draw, -1 loss) for the player i turns after the mover \
         (value[0] is the mover); players move in the order {}",
        players.join(", ")
    );
    Manifest {
        format: manifest::FORMAT.into(),
        version: manifest::version(shape),
        weights_sha256: None, // filled in by `write`
        onnx: None,
        game: GameInfo {
            name: shape.game.clone(),
            players,
            settings: start.settings(),
            start: start.to_notation(),
        },
        input: Input {
            shape: [shape.in_planes, shape.height, shape.width],
            layout: "planes x rows x columns, from the point of view of the player to move".into(),
            planes: start.plane_meanings(),
        },
        architecture: manifest::architecture(shape),
        outputs: Outputs {
            policy: Output {
                value: names::POLICY.into(),
                shape: vec![shape.actions()],
                meaning: "logits over the whole action space in action order; mask the \
                          illegal actions, then softmax"
                    .into(),
            },
            value: Output {
                value: names::VALUE_OUT.into(),
                shape: vec![shape.num_players],
                meaning: value_meaning,
            },
            aux: (shape.heads.present())
                .map(|head| (head.key.to_string(), aux_output(shape, head)))
                .collect(),
        },
        actions: Actions {
            count: shape.actions(),
            encoding: "action a is the a-th entry of 'moves'; its logit comes from flat \
                       index policy_index[a] of the policy planes [plane, row, column]"
                .into(),
            policy_planes: shape.policy_planes,
            policy_index: shape.action_order.clone(),
            moves: (0..shape.actions())
                .map(|a| start.action_to_string(a as u16))
                .collect(),
        },
        provenance,
    }
}

/// The manifest's description of the auxiliary head `head`'s output.
fn aux_output(shape: &NetShape, head: &Head) -> Output {
    let width = shape.head_width(head.aux);
    let (dims, what) = match head.kind {
        Kind::Cells => (
            vec![width, shape.height, shape.width],
            "logits, per cell, of {}: class 0 nobody, class 1 + i the player i turns after \
             the mover; softmax over the classes",
        ),
        Kind::Dense => (
            vec![width],
            "tanh outputs, one per player relative to the mover as for 'value': {}",
        ),
        Kind::Policy => (
            vec![shape.actions()],
            "logits over the whole action space in action order, as for 'policy', {}",
        ),
    };
    Output {
        value: head.layer.into(),
        shape: dims,
        meaning: format!(
            "{} (an auxiliary head: the search does not read it)",
            what.replace("{}", head.meaning)
        ),
    }
}

/// Writes a bundle into directory `out`: `manifest` and the folded weights `tensors`
/// (see [`folded_tensors`](super::fold::folded_tensors)) and, with `onnx`, the same network as `model.onnx`
/// ([`super::onnx`]), which the manifest then names.
pub fn write(
    out: &Path,
    manifest: &Manifest,
    tensors: &BTreeMap<String, Tensor>,
    onnx: bool,
) -> anyhow::Result<()> {
    shape_of(manifest)?;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let mut meta = BTreeMap::new();
    meta.insert("format".to_string(), manifest::FORMAT.to_string());
    meta.insert("manifest".to_string(), MANIFEST.to_string());
    let bytes = safetensors::to_bytes(tensors, &meta);
    write_atomic(&out.join(WEIGHTS), &bytes)?;
    let onnx_file = if onnx {
        let model = super::onnx::to_bytes(manifest, tensors)?;
        write_atomic(&out.join(super::onnx::FILE), &model)?;
        Some(super::onnx::FILE.to_string())
    } else {
        // An ONNX model left by an earlier export would no longer match the weights.
        let stale = out.join(super::onnx::FILE);
        if stale.exists() {
            std::fs::remove_file(&stale)
                .with_context(|| format!("removing the stale {}", stale.display()))?;
        }
        None
    };
    let manifest = Manifest {
        weights_sha256: Some(sha256_hex(&bytes)),
        onnx: onnx_file,
        ..manifest.clone()
    };
    write_manifest(out, &manifest)
}

/// Adds the ONNX model to the bundle at `from`, writing the result to `out` (the same
/// directory or a new one): the weights, checked as any load checks them, are copied
/// byte for byte, `model.onnx` is written beside them, and the manifest names it.
pub fn add_onnx(from: &Path, out: &Path) -> anyhow::Result<()> {
    let m = read_manifest(from)?;
    shape_of(&m).with_context(|| format!("bundle {}", from.display()))?;
    let tensors = read_weights(from, &m)?;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let same = out.canonicalize().ok() == from.canonicalize().ok();
    if !same {
        let bytes = crate::limits::read_file(&from.join(WEIGHTS), crate::limits::MAX_MODEL_BYTES)?;
        write_atomic(&out.join(WEIGHTS), &bytes)?;
    }
    write_atomic(
        &out.join(super::onnx::FILE),
        &super::onnx::to_bytes(&m, &tensors)?,
    )?;
    let m = Manifest {
        onnx: Some(super::onnx::FILE.to_string()),
        ..m
    };
    write_manifest(out, &m)
}

/// The network shape a manifest describes, after checking its format and version.
pub fn shape_of(m: &Manifest) -> anyhow::Result<NetShape> {
    ensure!(
        m.format == manifest::FORMAT,
        "not a model bundle: format '{}' (expected '{}')",
        m.format,
        manifest::FORMAT
    );
    ensure!(
        (1..=manifest::VERSION).contains(&m.version),
        "bundle format version {}; this build reads versions 1 to {}",
        m.version,
        manifest::VERSION
    );
    let a = &m.architecture;
    let [in_planes, height, width] = m.input.shape;
    let shape = NetShape {
        game: m.game.name.clone(),
        in_planes,
        height,
        width,
        wraps: a.padding == "circular",
        policy_planes: m.actions.policy_planes,
        action_order: m.actions.policy_index.clone(),
        num_players: m.game.players.len(),
        blocks: a.blocks,
        channels: a.channels,
        value_channels: a.value_channels,
        value_hidden: a.value_hidden,
        heads: m.outputs.heads()?,
        global_pool: a.global_pool,
    };
    ensure!(
        m.version >= manifest::version(&shape),
        "a version-{} bundle cannot have global pooling (version {} added it)",
        m.version,
        manifest::version(&shape)
    );
    let flat = shape.policy_planes * height * width;
    ensure!(
        m.actions.count == shape.actions() && m.actions.moves.len() == shape.actions(),
        "the manifest's action count, policy index and move list disagree"
    );
    ensure!(
        shape.action_order.iter().all(|&i| i < flat),
        "a policy index lies outside the {flat} policy-head outputs"
    );
    ensure!(
        a.layers == manifest::layers(&shape),
        "the manifest's layers do not describe a {}-block, {}-channel residual network with \
         {} padding as this build runs it",
        a.blocks,
        a.channels,
        a.padding
    );
    Ok(shape)
}

/// The directory of the bundle named by `path`: the directory itself, or the one
/// holding its manifest; a path that is neither is refused, named.
pub fn dir_of(path: &Path) -> anyhow::Result<&Path> {
    if path.is_dir() {
        Ok(path)
    } else if path.is_file() {
        Ok(path.parent().unwrap_or(Path::new(".")))
    } else {
        bail!(
            "{}: no such bundle (neither a directory nor a file)",
            path.display()
        )
    }
}

/// Writes `manifest` into bundle directory `out` (pretty JSON, atomically).
fn write_manifest(out: &Path, manifest: &Manifest) -> anyhow::Result<()> {
    let json = serde_json::to_string_pretty(manifest)? + "\n";
    write_atomic(&out.join(MANIFEST), json.as_bytes())
}

/// Reads the manifest of bundle `dir`.
pub fn read_manifest(dir: &Path) -> anyhow::Result<Manifest> {
    let path = dir.join(MANIFEST);
    let text = crate::limits::read_text(&path, crate::limits::MAX_TEXT_BYTES)
        .with_context(|| format!("reading the bundle manifest {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{}: not a valid manifest", path.display()))
}

/// Loads bundle `path` (its directory or its manifest) for inference.
pub fn load(path: &Path) -> anyhow::Result<Net> {
    let (shape, model) = load_model(path)?;
    Ok(Net::new(shape, &model))
}

/// Bundle `path` as a burn module with identity batch norms (its convolutions carry them
/// folded), and its shape.
pub fn load_model(path: &Path) -> anyhow::Result<(NetShape, PolicyValueNet)> {
    let dir = dir_of(path)?;
    let m = read_manifest(dir)?;
    let shape = shape_of(&m).with_context(|| format!("bundle {}", dir.display()))?;
    let mut tensors = read_weights(dir, &m)?;
    let model = unfold(&shape, &mut tensors, &super::super::device());
    if let Some(extra) = tensors.keys().next() {
        bail!(
            "{}: tensor '{extra}' is not in the manifest's layers",
            dir.join(WEIGHTS).display()
        );
    }
    Ok((shape, model))
}

/// The weights of bundle `dir` whose manifest is `m`, checked: the SHA-256 the manifest
/// names, every tensor the layers need at its shape, and only finite values.
pub fn read_weights(dir: &Path, m: &Manifest) -> anyhow::Result<BTreeMap<String, Tensor>> {
    let weights = dir.join(WEIGHTS);
    let bytes = crate::limits::read_file(&weights, crate::limits::MAX_MODEL_BYTES)?;
    let digest = sha256_hex(&bytes);
    match &m.weights_sha256 {
        Some(want) if *want != digest => bail!(
            "{}: damaged or replaced (its SHA-256 is {digest}, the manifest says {})",
            weights.display(),
            crate::limits::clip(want)
        ),
        Some(_) => {}
        None => eprintln!(
            "warning: {}: no weights_sha256 in the manifest (exported before checksums); the weights are not verified",
            dir.display()
        ),
    }
    let tensors = safetensors::from_bytes(&bytes)
        .with_context(|| format!("{}: not a valid safetensors file", weights.display()))?;
    for (name, dims) in manifest::tensor_shapes(&m.architecture.layers) {
        match tensors.get(&name) {
            None => bail!("{}: tensor '{name}' is missing", weights.display()),
            Some(t) if t.shape != dims => bail!(
                "{}: tensor '{name}' has shape {:?}, the manifest needs {dims:?}",
                weights.display(),
                t.shape
            ),
            Some(_) => {}
        }
    }
    if let Some((name, _)) = tensors
        .iter()
        .find(|(_, t)| t.data.iter().any(|x| !x.is_finite()))
    {
        bail!(
            "{}: tensor '{name}' holds NaN or infinite values",
            weights.display()
        );
    }
    Ok(tensors)
}

/// The SHA-256 of `bytes` as lowercase hex (a manifest's `weights_sha256`).
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn param<const D: usize>(t: Tensor, device: &Device) -> Param<BurnTensor<D>> {
    let dims: [usize; D] = t.shape.try_into().expect("checked shape");
    Param::initialized(
        ParamId::new(),
        BurnTensor::from_data(TensorData::new(t.data, dims), device),
    )
}

/// The network whose convolutions carry the folded weights, with identity batch norms
/// (gamma 1, mean 0, variance 1 - eps) adding the folded biases. Takes the tensors it
/// uses out of `tensors`; their names and shapes were checked against the manifest.
fn unfold(
    shape: &NetShape,
    tensors: &mut BTreeMap<String, Tensor>,
    device: &Device,
) -> PolicyValueNet {
    let mut take = |name: &str| tensors.remove(name).expect("checked tensor");
    let mut model = PolicyValueNet::new(shape, device);
    let identity = |bn: &mut BatchNorm, bias: Tensor| {
        let n = bias.data.len();
        let var = vec![(1.0 - bn.epsilon) as f32; n];
        bn.gamma = param(Tensor::new(vec![n], vec![1.0; n]), device);
        bn.beta = param(bias, device);
        bn.running_mean = RunningState::new(BurnTensor::zeros([n], device));
        bn.running_var =
            RunningState::new(BurnTensor::from_data(TensorData::new(var, [n]), device));
    };
    let trunk = names::trunk(model.blocks.len());
    for (cb, name) in model.trunk_mut().into_iter().zip(&trunk) {
        cb.conv.weight = param(take(&names::weight(name)), device);
        identity(&mut cb.bn, take(&names::bias(name)));
    }
    model.value_conv.weight = param(take(&names::weight(names::VALUE_CONV)), device);
    identity(&mut model.value_bn, take(&names::bias(names::VALUE_CONV)));
    // A 1×1 convolution with its bias: the policy head's and the auxiliary heads'.
    let mut conv = |conv: &mut Conv2d, name: &str| {
        conv.weight = param(take(&names::weight(name)), device);
        conv.bias = Some(param(take(&names::bias(name)), device));
    };
    conv(&mut model.policy, names::POLICY);
    for head in shape.heads.present() {
        if let Slot::Conv(Some(c)) = model.slot(head.aux) {
            conv(c, head.layer);
        }
    }
    // A dense layer's weight, `[out, in]` in the bundle, is `[in, out]` in burn.
    let mut dense = |linear: &mut Linear, name: &str| {
        let w = take(&names::weight(name));
        let (cout, cin) = (w.shape[0], w.shape[1]);
        let t: Vec<f32> = (0..cin * cout)
            .map(|k| w.data[(k % cout) * cin + k / cout])
            .collect();
        linear.weight = param(Tensor::new(vec![cin, cout], t), device);
        linear.bias = Some(param(take(&names::bias(name)), device));
    };
    dense(&mut model.value_hidden, names::VALUE_HIDDEN);
    dense(&mut model.value_out, names::VALUE_OUT);
    for head in shape.heads.present() {
        if let Slot::Dense(Some(linear)) = model.slot(head.aux) {
            dense(linear, head.layer);
        }
    }
    for (i, block) in model.blocks.iter_mut().enumerate() {
        if let Some(pool) = &mut block.pool {
            dense(pool, &names::pool(i));
        }
    }
    model
}
