//! `manifest.json`, the description of an exported model bundle (see `docs/bundle.md`).
//!
//! The manifest says everything a front end needs to run the network without this
//! code: the game, the input planes in order, the layers as an ordered list of
//! operations over named values (with the tensor names, shapes, padding and activation
//! of each), the action index ↔ move mapping, what the outputs mean, and where the
//! model came from. [`layers`] is the single definition of that list: export writes it
//! and loading checks a bundle's list against it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::super::NetShape;
use crate::nn::heads::{HEADS, Heads, Kind};

/// The `format` field of every bundle manifest.
pub const FORMAT: &str = "contagion-bundle";
/// The newest bundle format version this build reads and writes: version 2 added the
/// `global_pool` and `broadcast_add` layers. It reads every version from 1 on.
pub const VERSION: u32 = 2;

/// The version a bundle of `shape` is written at: the oldest whose layers describe it,
/// so that a network without global pooling stays readable by version-1 readers.
pub fn version(shape: &NetShape) -> u32 {
    if shape.global_pool { 2 } else { 1 }
}
pub use super::super::network::BN_EPSILON;

/// The network's layer names, which also name its tensors (`<layer>.weight`,
/// `<layer>.bias`) in a bundle: one place for every reader and writer.
pub mod names {
    /// The stem convolution.
    pub const STEM: &str = "stem";
    /// The policy head's 1×1 convolution.
    pub const POLICY: &str = "policy";
    /// The value head's 1×1 convolution.
    pub const VALUE_CONV: &str = "value.conv";
    /// The value head's hidden layer.
    pub const VALUE_HIDDEN: &str = "value.hidden";
    /// The value head's output layer (its output is the graph value `value`).
    pub const VALUE_OUT: &str = "value";
    // The auxiliary heads' layers are named by their entries in
    // [`crate::nn::heads::HEADS`].

    /// Residual block `i`'s first (`a`) or second (`b`) convolution.
    pub fn block(i: usize, second: bool) -> String {
        format!("blocks.{i}.{}", if second { "b" } else { "a" })
    }

    /// Residual block `i`'s global pooling bias (a dense layer).
    pub fn pool(i: usize) -> String {
        format!("blocks.{i}.pool")
    }

    /// Every 3×3 convolution in order: the stem, then each block's two.
    pub fn trunk(blocks: usize) -> Vec<String> {
        let mut all = vec![STEM.to_string()];
        for i in 0..blocks {
            all.extend([block(i, false), block(i, true)]);
        }
        all
    }

    /// The weight tensor's name of `layer`.
    pub fn weight(layer: &str) -> String {
        format!("{layer}.weight")
    }

    /// The bias tensor's name of `layer`.
    pub fn bias(layer: &str) -> String {
        format!("{layer}.bias")
    }
}

/// The manifest's `Manifest` part.
/// Its fields are the JSON format's, documented once, in `docs/bundle.md`.
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: String,
    pub version: u32,
    /// SHA-256 of `model.safetensors`, lowercase hex; every loader checks it. Absent
    /// from bundles exported before the checksum was added: those load with a warning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights_sha256: Option<String>,
    /// The same network as an ONNX model in the bundle (`model.onnx`), when exported
    /// with `--format onnx`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub onnx: Option<String>,
    pub game: GameInfo,
    pub input: Input,
    pub architecture: Architecture,
    pub outputs: Outputs,
    pub actions: Actions,
    pub provenance: Provenance,
}

/// The manifest's `GameInfo` part.
/// Its fields are the JSON format's, documented once, in `docs/bundle.md`.
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameInfo {
    pub name: String,
    pub players: Vec<String>,
    pub settings: serde_json::Value,
    /// The position notation of the start position.
    pub start: String,
}

/// The manifest's `Input` part.
/// Its fields are the JSON format's, documented once, in `docs/bundle.md`.
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Input {
    /// `[planes, height, width]`; a batch adds a leading dimension.
    pub shape: [usize; 3],
    pub layout: String,
    /// The meaning of each plane, in order.
    pub planes: Vec<String>,
}

/// The manifest's `Architecture` part.
/// Its fields are the JSON format's, documented once, in `docs/bundle.md`.
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Architecture {
    pub kind: String,
    pub blocks: usize,
    pub channels: usize,
    pub value_channels: usize,
    pub value_hidden: usize,
    /// `circular` (the board is a torus) or `zeros`, for every 3×3 convolution.
    pub padding: String,
    /// Whether every second block, from the second, has a global pooling bias (absent:
    /// none; format version 2).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub global_pool: bool,
    pub normalisation: String,
    pub conventions: String,
    pub layers: Vec<Layer>,
}

/// One operation: reads named values, writes one. The network's input is `input`.
/// Its fields are the JSON format's, documented once, in `docs/bundle.md`.
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Layer {
    /// `output = act(conv(pad(input), weight) + bias)`; weight `[out, in, k, k]`.
    Conv2d {
        input: String,
        output: String,
        weight: String,
        bias: String,
        in_channels: usize,
        out_channels: usize,
        kernel: usize,
        /// `circular`, `zeros` (one cell each side, for k = 3) or `none` (k = 1).
        padding: String,
        activation: String,
    },
    /// `output = act(inputs[0] + inputs[1])`.
    Add {
        inputs: [String; 2],
        output: String,
        activation: String,
    },
    /// `output = act(inputs[0] + inputs[1])`, `inputs[1]` (`[C]`) added at every cell of
    /// `inputs[0]` (`[C, H, W]`).
    BroadcastAdd {
        inputs: [String; 2],
        output: String,
        activation: String,
    },
    /// `[C, H, W]` → `[C·H·W]` in plane, row, column order.
    Flatten { input: String, output: String },
    /// `output[a] = input[index[a]]`, with `index` the manifest's `actions.policy_index`.
    Gather {
        input: String,
        output: String,
        index: String,
    },
    /// `[C, H, W]` → `[C]`, the mean over the board.
    GlobalAveragePool { input: String, output: String },
    /// `[C, H, W]` → `[2C]`: each channel's mean over the board, then each one's maximum.
    GlobalPool { input: String, output: String },
    /// `output = act(weight · input + bias)`; weight `[out, in]`.
    Linear {
        input: String,
        output: String,
        weight: String,
        bias: String,
        in_features: usize,
        out_features: usize,
        activation: String,
    },
}

/// The manifest's `Output` part.
/// Its fields are the JSON format's, documented once, in `docs/bundle.md`.
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Output {
    /// The named value that holds it.
    pub value: String,
    pub shape: Vec<usize>,
    pub meaning: String,
}

/// The manifest's `Outputs` part.
/// Its fields are the JSON format's, documented once, in `docs/bundle.md`.
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outputs {
    pub policy: Output,
    pub value: Output,
    /// The auxiliary heads' outputs, by each head's key
    /// ([`crate::nn::heads::Head::key`]).
    #[serde(flatten)]
    pub aux: BTreeMap<String, Output>,
}

impl Outputs {
    /// Every output the bundle has: the policy, the value, then the auxiliary heads' in
    /// the table's order.
    pub fn all(&self) -> Vec<&Output> {
        let aux = HEADS.iter().filter_map(|h| self.aux.get(h.key));
        [&self.policy, &self.value].into_iter().chain(aux).collect()
    }

    /// The auxiliary heads these outputs name (an error for a key no head has).
    pub fn heads(&self) -> anyhow::Result<Heads> {
        if let Some(key) = (self.aux.keys()).find(|k| !HEADS.iter().any(|h| h.key == *k)) {
            let known: Vec<&str> = HEADS.iter().map(|h| h.key).collect();
            anyhow::bail!(
                "the manifest's outputs name '{key}', which no head of this build is (it knows \
                 policy, value, {})",
                known.join(", ")
            );
        }
        Ok(Heads::from_fn(|aux| self.aux.contains_key(aux.head().key)))
    }
}

/// The manifest's `Actions` part.
/// Its fields are the JSON format's, documented once, in `docs/bundle.md`.
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Actions {
    pub count: usize,
    pub encoding: String,
    /// `policy_index[a]`: the flat `[plane, row, column]` index of action `a`'s logit in
    /// the policy head.
    pub policy_planes: usize,
    pub policy_index: Vec<usize>,
    /// `moves[a]`: action `a` in the game's move notation.
    pub moves: Vec<String>,
}

/// The manifest's `Provenance` part.
/// Its fields are the JSON format's, documented once, in `docs/bundle.md`.
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Provenance {
    pub exporter: String,
    pub exported_at: String,
    pub run: String,
    pub checkpoint: String,
    pub iteration: u32,
    pub best_iteration: u32,
    pub games: u64,
    pub positions: u64,
    pub steps: u64,
    pub training_minutes: f64,
    pub config_digest: String,
    /// The model the run's first network came from (`run.init`); absent for a run
    /// trained from nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_from: Option<String>,
    /// The last gating match and baseline measurements in the run's metrics, if any.
    pub last_gating: Option<serde_json::Value>,
    pub vs_baseline: Option<serde_json::Value>,
    pub vs_greedy: Option<serde_json::Value>,
}

/// Every tensor's name and shape, in layer order.
pub fn tensor_shapes(layers: &[Layer]) -> Vec<(String, Vec<usize>)> {
    let mut out = Vec::new();
    for layer in layers {
        match layer {
            Layer::Conv2d {
                weight,
                bias,
                in_channels,
                out_channels,
                kernel,
                ..
            } => {
                out.push((
                    weight.clone(),
                    vec![*out_channels, *in_channels, *kernel, *kernel],
                ));
                out.push((bias.clone(), vec![*out_channels]));
            }
            Layer::Linear {
                weight,
                bias,
                in_features,
                out_features,
                ..
            } => {
                out.push((weight.clone(), vec![*out_features, *in_features]));
                out.push((bias.clone(), vec![*out_features]));
            }
            _ => {}
        }
    }
    out
}

/// The layer list of a network of `shape`.
pub fn layers(shape: &NetShape) -> Vec<Layer> {
    let padding = if shape.wraps { "circular" } else { "zeros" };
    let conv = |name: &str, input: &str, output: &str, cin, cout, k, act: &str| Layer::Conv2d {
        input: input.into(),
        output: output.into(),
        weight: names::weight(name),
        bias: names::bias(name),
        in_channels: cin,
        out_channels: cout,
        kernel: k,
        padding: if k == 3 {
            padding.into()
        } else {
            "none".into()
        },
        activation: act.into(),
    };
    let c = shape.channels;
    let mut out = vec![conv(
        names::STEM,
        "input",
        "trunk.0",
        shape.in_planes,
        c,
        3,
        "relu",
    )];
    let linear = |name: &str, input: &str, cin, cout, act: &str| Layer::Linear {
        input: input.into(),
        output: name.into(),
        weight: names::weight(name),
        bias: names::bias(name),
        in_features: cin,
        out_features: cout,
        activation: act.into(),
    };
    for i in 0..shape.blocks {
        let (x, a, b) = (
            format!("trunk.{i}"),
            names::block(i, false),
            names::block(i, true),
        );
        if shape.pools(i) {
            let (pooled, pool, z) = (format!("{x}.pooled"), names::pool(i), format!("{a}.conv"));
            out.push(Layer::GlobalPool {
                input: x.clone(),
                output: pooled.clone(),
            });
            out.push(linear(&pool, &pooled, 2 * c, c, "none"));
            out.push(conv(&a, &x, &z, c, c, 3, "none"));
            out.push(Layer::BroadcastAdd {
                inputs: [z, pool],
                output: a.clone(),
                activation: "relu".into(),
            });
        } else {
            out.push(conv(&a, &x, &a, c, c, 3, "relu"));
        }
        out.push(conv(&b, &a, &b, c, c, 3, "none"));
        out.push(Layer::Add {
            inputs: [b, x],
            output: format!("trunk.{}", i + 1),
            activation: "relu".into(),
        });
    }
    let trunk = format!("trunk.{}", shape.blocks);
    let (pp, vc, vh) = (
        shape.policy_planes,
        shape.value_channels,
        shape.value_hidden,
    );
    // A policy head: a 1×1 convolution to planes, flattened, gathered into action order.
    let policy = |name: &str| {
        let (planes, flat) = (format!("{name}.planes"), format!("{name}.flat"));
        [
            conv(name, &trunk, &planes, c, pp, 1, "none"),
            Layer::Flatten {
                input: planes.clone(),
                output: flat.clone(),
            },
            Layer::Gather {
                input: flat,
                output: name.into(),
                index: "actions.policy_index".into(),
            },
        ]
    };
    out.extend(policy(names::POLICY));
    out.push(conv(
        names::VALUE_CONV,
        &trunk,
        "value.planes",
        c,
        vc,
        1,
        "relu",
    ));
    out.push(Layer::GlobalAveragePool {
        input: "value.planes".into(),
        output: "value.pooled".into(),
    });
    out.push(linear(names::VALUE_HIDDEN, "value.pooled", vc, vh, "relu"));
    out.push(linear(
        names::VALUE_OUT,
        names::VALUE_HIDDEN,
        vh,
        shape.num_players,
        "tanh",
    ));
    for head in shape.heads.present() {
        let (name, width) = (head.layer, shape.head_width(head.aux));
        match head.kind {
            Kind::Cells => out.push(conv(name, &trunk, name, c, width, 1, "none")),
            Kind::Dense => out.push(linear(name, names::VALUE_HIDDEN, vh, width, "tanh")),
            Kind::Policy => out.extend(policy(name)),
        }
    }
    out
}

/// The architecture section for `shape`.
pub fn architecture(shape: &NetShape) -> Architecture {
    Architecture {
        kind: "residual-cnn".into(),
        blocks: shape.blocks,
        channels: shape.channels,
        value_channels: shape.value_channels,
        value_hidden: shape.value_hidden,
        padding: if shape.wraps { "circular" } else { "zeros" }.into(),
        global_pool: shape.global_pool,
        normalisation: format!(
            "none at inference: each batch norm (epsilon {BN_EPSILON}) is folded into the \
             convolution before it (weight * gamma / sqrt(var + eps), bias beta - mean * gamma \
             / sqrt(var + eps))"
        ),
        conventions: "tensors are float32, row-major; convolutions are cross-correlations \
             (as in PyTorch) with stride 1; 'circular' pads one cell on each side with the \
             opposite edge (rows first, then columns), 'zeros' with zeros, 'none' is not \
             padded; activations are relu, tanh or none; values are named, the network \
             input is 'input' with shape [batch, planes, height, width]"
            .into(),
        layers: layers(shape),
    }
}
