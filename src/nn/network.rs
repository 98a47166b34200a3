//! The residual policy-value network (burn).
//!
//! Input: the game's planes `[batch, planes, height, width]`. A 3×3 convolution stem and
//! `blocks` residual blocks of `channels` channels (conv–BN–ReLU–conv–BN, skip, ReLU).
//! On a wrapping board (the Infexion torus) every 3×3 convolution pads circularly, so
//! the network is translation-equivariant by construction; otherwise it pads with zeros.
//!
//! - Global pooling (optional, `network.global_pool`; KataGo's global pooling bias): in
//!   every second block, from the second ([`NetShape::pools`]), the block's input is
//!   pooled over the board per channel, its mean and its maximum, and a dense layer
//!   turns the `2 × channels` pooled values into one bias a channel, added to the first
//!   convolution's batch-normed output before its ReLU. A block so sees the whole
//!   board at once: where the fights are, who leads, which region is settled.
//! - Policy head: a 1×1 convolution to `policy_planes` logits per cell, flattened and
//!   reordered into action order with the game's `policy_index` (so logit `a` belongs to
//!   action `a`).
//! - Value head: a 1×1 convolution to `value_channels`, global average pooling, a hidden
//!   layer and one `tanh` output per player, **relative to the player to move** (output
//!   0 is the mover, 1 the next player, …). Two-player games are the special case.
//! - Auxiliary heads (optional, for training only; [`super::heads::HEADS`] lists them):
//!   each of its kind's layer ([`super::heads::Kind`]): a 1×1 convolution of the trunk's
//!   output to logits a cell or a second policy, or a dense layer from the value head's
//!   hidden layer to one `tanh` a player relative to the mover.

use burn::module::Module;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig, PaddingConfig2d};
use burn::tensor::activation::{relu, tanh};
use burn::tensor::{Device, Int, Tensor, TensorData};

use super::heads::{Aux, Heads, Kind, PerHead};
use crate::games::Game;

/// The power the soft policy head's target raises the policy target to before
/// normalising it (KataGo's 1/4).
pub const SOFT_POLICY_POWER: f32 = 0.25;

/// Batch norm's epsilon: the network's, the fast training step's and the one folded
/// into exported convolutions.
pub const BN_EPSILON: f64 = 1e-5;

/// Everything that fixes the network's shape; saved with every checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, bincode::Encode, bincode::Decode)]
pub struct NetShape {
    /// The game's name.
    pub game: String,
    /// Input planes.
    pub in_planes: usize,
    /// Board rows.
    pub height: usize,
    /// Board columns.
    pub width: usize,
    /// Whether the board wraps (a torus: circular padding) or has edges (zero padding).
    pub wraps: bool,
    /// Planes of the per-cell policy head.
    pub policy_planes: usize,
    /// `action_order[a]` = flat policy-head index of action `a`.
    pub action_order: Vec<usize>,
    /// Players (one value each).
    pub num_players: usize,
    /// Residual blocks.
    pub blocks: usize,
    /// Channels of the trunk.
    pub channels: usize,
    /// Channels of the value head's 1×1 convolution.
    pub value_channels: usize,
    /// Units of the value head's hidden layer.
    pub value_hidden: usize,
    /// Which auxiliary heads the network has (each trained with its `train` weight;
    /// the search reads none of them).
    pub heads: Heads,
    /// Whether every second block, from the second, has a global pooling bias
    /// ([`NetShape::pools`]).
    pub global_pool: bool,
}

impl NetShape {
    /// The shape for game `G` with the given trunk and value-head sizes.
    pub fn for_game<G: Game>(
        start: &G,
        blocks: usize,
        channels: usize,
        value_hidden: usize,
    ) -> NetShape {
        let enc = start.encoding_shape();
        NetShape {
            game: start.name().to_string(),
            in_planes: enc.planes,
            height: enc.height,
            width: enc.width,
            wraps: start.wraps(),
            policy_planes: start.policy_planes(),
            action_order: (0..start.action_space())
                .map(|a| start.policy_index(a as u16))
                .collect(),
            num_players: start.num_players(),
            blocks,
            channels,
            value_channels: 4,
            value_hidden,
            heads: Heads::NONE,
            global_pool: false,
        }
    }

    /// Whether residual block `block` (from 0) has a global pooling bias: every second
    /// block from the second, when the network has global pooling.
    pub fn pools(&self, block: usize) -> bool {
        self.global_pool && block % 2 == 1
    }

    /// This shape with the auxiliary heads asked for.
    pub fn with_heads(self, heads: Heads) -> NetShape {
        NetShape { heads, ..self }
    }

    /// Whether the network has the auxiliary head `aux`.
    pub fn has(&self, aux: Aux) -> bool {
        self.heads[aux]
    }

    /// The outputs a position of the auxiliary head `aux`'s layer: classes a cell, one
    /// a player, or policy planes a cell, by its kind.
    pub fn head_width(&self, aux: Aux) -> usize {
        match aux.head().kind {
            Kind::Cells => self.num_players + 1,
            Kind::Dense => self.num_players,
            Kind::Policy => self.policy_planes,
        }
    }

    /// Cells of the encoding's board.
    pub fn cells(&self) -> usize {
        self.height * self.width
    }

    /// The number of actions (policy outputs).
    pub fn actions(&self) -> usize {
        self.action_order.len()
    }

    /// Values in one encoded position.
    pub fn input_len(&self) -> usize {
        self.in_planes * self.height * self.width
    }

    /// Whether a network of this shape plays `start`'s game: its name, its encoding's
    /// length and its action space.
    pub fn plays<G: Game>(&self, start: &G) -> bool {
        self.game == start.name()
            && self.input_len() == start.encoding_shape().len()
            && self.actions() == start.action_space()
    }

    /// For each action, the index of its logit in one position's policy output laid
    /// out NHWC, `[cells, policy_planes]` (as the fast forward and training step have it).
    pub fn policy_gather(&self) -> Vec<u32> {
        let cells = self.height * self.width;
        (self.action_order.iter())
            .map(|&flat| ((flat % cells) * self.policy_planes + flat / cells) as u32)
            .collect()
    }
}

/// Every head's output for a batch ([`PolicyValueNet::forward_all`]).
pub struct Outputs {
    /// `[batch, actions]` policy logits in action order.
    pub logits: Tensor<2>,
    /// `[batch, players]` values relative to the mover.
    pub values: Tensor<2>,
    /// Each auxiliary head's output, where the network has the head.
    pub aux: PerHead<Option<AuxOutput>>,
}

/// An auxiliary head's output, as its [`Kind`] has it.
pub enum AuxOutput {
    /// `[batch, cells, classes]` logits ([`Kind::Cells`]).
    Cells(Tensor<3>),
    /// `[batch, players]` `tanh` outputs relative to the mover ([`Kind::Dense`]) or
    /// `[batch, actions]` logits in action order ([`Kind::Policy`]).
    Flat(Tensor<2>),
}

/// Where an auxiliary head's layer lives in [`PolicyValueNet`], as its kind has it.
pub enum Slot<'a> {
    /// A 1×1 convolution of the trunk's output ([`Kind::Cells`], [`Kind::Policy`]).
    Conv(&'a mut Option<Conv2d>),
    /// A dense layer from the value head's hidden layer ([`Kind::Dense`]).
    Dense(&'a mut Option<Linear>),
}

/// A 3×3 convolution with batch norm, padded circularly or with zeros.
#[derive(Module, Debug)]
pub struct ConvBn {
    pub(super) conv: Conv2d,
    pub(super) bn: BatchNorm,
    #[module(skip)]
    wraps: bool,
}

impl ConvBn {
    fn new(cin: usize, cout: usize, wraps: bool, device: &Device) -> ConvBn {
        let padding = if wraps {
            PaddingConfig2d::Valid
        } else {
            PaddingConfig2d::Explicit(1, 1, 1, 1)
        };
        ConvBn {
            conv: Conv2dConfig::new([cin, cout], [3, 3])
                .with_padding(padding)
                .with_bias(false)
                .init(device),
            bn: BatchNormConfig::new(cout)
                .with_epsilon(BN_EPSILON)
                .init(device),
            wraps,
        }
    }

    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        self.bn.forward(self.convolve(x))
    }

    /// The padded convolution alone, before the batch norm.
    pub(super) fn convolve(&self, x: Tensor<4>) -> Tensor<4> {
        let x = if self.wraps { pad_circular(x) } else { x };
        self.conv.forward(x)
    }
}

/// Pads height and width by one cell on each side with the opposite edge (a torus).
/// (Slicing and concatenating measured twice as fast as one `select` gather on flex.)
pub fn pad_circular(x: Tensor<4>) -> Tensor<4> {
    let [_, _, h, w] = x.dims();
    let x = Tensor::cat(
        vec![x.clone().narrow(2, h - 1, 1), x.clone(), x.narrow(2, 0, 1)],
        2,
    );
    Tensor::cat(
        vec![x.clone().narrow(3, w - 1, 1), x.clone(), x.narrow(3, 0, 1)],
        3,
    )
}

/// A residual block: two 3×3 convolutions with batch norm and a skip connection, and
/// optionally a global pooling bias on the first.
#[derive(Module, Debug)]
pub struct ResBlock {
    pub(super) a: ConvBn,
    pub(super) b: ConvBn,
    /// The global pooling bias's dense layer: the input's per-channel means and maxima
    /// (`2 × channels`) to one bias a channel. It starts at zero, so that a new pooled
    /// network computes what a plain one would (measured better than burn's default
    /// draw: experiments/global-pooling).
    pub(super) pool: Option<Linear>,
}

impl ResBlock {
    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let h = self.a.forward(x.clone());
        let h = match &self.pool {
            Some(pool) => {
                let [b, c, _, _] = x.dims();
                h + pool.forward(global_pool(x.clone())).reshape([b, c, 1, 1])
            }
            None => h,
        };
        relu(self.b.forward(relu(h)) + x)
    }
}

/// `[batch, channels, height, width]` → `[batch, 2 × channels]`: each channel's mean
/// over the board, then each one's maximum.
pub fn global_pool(x: Tensor<4>) -> Tensor<2> {
    let [b, c, h, w] = x.dims();
    let flat = x.reshape([b, c, h * w]);
    let mean = flat.clone().mean_dim(2).reshape([b, c]);
    let max = flat.max_dim(2).reshape([b, c]);
    Tensor::cat(vec![mean, max], 1)
}

/// The policy-value network. Build with [`PolicyValueNet::new`].
#[derive(Module, Debug)]
pub struct PolicyValueNet {
    pub(super) stem: ConvBn,
    pub(super) blocks: Vec<ResBlock>,
    pub(super) policy: Conv2d,
    pub(super) value_conv: Conv2d,
    pub(super) value_bn: BatchNorm,
    pub(super) value_hidden: Linear,
    pub(super) value_out: Linear,
    // The auxiliary heads' layers, each named as checkpoints store it ([`PolicyValueNet::slot`]).
    owner: Option<Conv2d>,
    margin: Option<Linear>,
    short_value: Option<Linear>,
    soft_policy: Option<Conv2d>,
    #[module(skip)]
    action_order: Vec<i64>,
}

impl PolicyValueNet {
    /// A freshly initialised network (burn's default initialisers, seeded by the device).
    pub fn new(shape: &NetShape, device: &Device) -> PolicyValueNet {
        let c = shape.channels;
        let mut model = PolicyValueNet {
            stem: ConvBn::new(shape.in_planes, c, shape.wraps, device),
            blocks: (0..shape.blocks)
                .map(|i| ResBlock {
                    a: ConvBn::new(c, c, shape.wraps, device),
                    b: ConvBn::new(c, c, shape.wraps, device),
                    pool: (shape.pools(i)).then(|| {
                        LinearConfig::new(2 * c, c)
                            .with_initializer(burn::nn::Initializer::Zeros)
                            .init(device)
                    }),
                })
                .collect(),
            policy: Conv2dConfig::new([c, shape.policy_planes], [1, 1]).init(device),
            value_conv: Conv2dConfig::new([c, shape.value_channels], [1, 1])
                .with_bias(false)
                .init(device),
            value_bn: BatchNormConfig::new(shape.value_channels)
                .with_epsilon(BN_EPSILON)
                .init(device),
            value_hidden: LinearConfig::new(shape.value_channels, shape.value_hidden).init(device),
            value_out: LinearConfig::new(shape.value_hidden, shape.num_players).init(device),
            owner: None,
            margin: None,
            short_value: None,
            soft_policy: None,
            action_order: shape.action_order.iter().map(|&i| i as i64).collect(),
        };
        for head in shape.heads.present() {
            let width = shape.head_width(head.aux);
            match model.slot(head.aux) {
                Slot::Conv(conv) => {
                    *conv = Some(Conv2dConfig::new([c, width], [1, 1]).init(device))
                }
                Slot::Dense(dense) => {
                    *dense = Some(LinearConfig::new(shape.value_hidden, width).init(device))
                }
            }
        }
        model
    }

    /// Where the auxiliary head `aux`'s layer is, to read or replace.
    pub fn slot(&mut self, aux: Aux) -> Slot<'_> {
        match aux {
            Aux::Ownership => Slot::Conv(&mut self.owner),
            Aux::Margin => Slot::Dense(&mut self.margin),
            Aux::ShortValue => Slot::Dense(&mut self.short_value),
            Aux::SoftPolicy => Slot::Conv(&mut self.soft_policy),
        }
    }

    /// Swaps the auxiliary head `aux`'s layer (or its absence) with `other`'s.
    pub fn swap_head(&mut self, aux: Aux, other: &mut PolicyValueNet) {
        match (self.slot(aux), other.slot(aux)) {
            (Slot::Conv(a), Slot::Conv(b)) => std::mem::swap(a, b),
            (Slot::Dense(a), Slot::Dense(b)) => std::mem::swap(a, b),
            _ => unreachable!("a head's slot is of its kind in every model"),
        }
    }

    /// The auxiliary head `aux`'s 1×1 convolution, where it has one and the network has
    /// the head.
    pub fn conv(&self, aux: Aux) -> Option<&Conv2d> {
        match aux {
            Aux::Ownership => self.owner.as_ref(),
            Aux::SoftPolicy => self.soft_policy.as_ref(),
            Aux::Margin | Aux::ShortValue => None,
        }
    }

    /// The auxiliary head `aux`'s dense layer, where it has one and the network has the
    /// head.
    pub fn dense(&self, aux: Aux) -> Option<&Linear> {
        match aux {
            Aux::Margin => self.margin.as_ref(),
            Aux::ShortValue => self.short_value.as_ref(),
            Aux::Ownership | Aux::SoftPolicy => None,
        }
    }

    /// Every 3×3 convolution with its batch norm, in order: the stem, then each block's
    /// two (as [`super::formats::manifest::names::trunk`] names them).
    pub fn trunk(&self) -> Vec<&ConvBn> {
        let blocks = self.blocks.iter().flat_map(|b| [&b.a, &b.b]);
        std::iter::once(&self.stem).chain(blocks).collect()
    }

    /// [`PolicyValueNet::trunk`], to change.
    pub(super) fn trunk_mut(&mut self) -> Vec<&mut ConvBn> {
        let blocks = self.blocks.iter_mut().flat_map(|b| [&mut b.a, &mut b.b]);
        std::iter::once(&mut self.stem).chain(blocks).collect()
    }

    /// `x`: `[batch, planes, height, width]` → (policy logits `[batch, actions]` in action
    /// order, values `[batch, players]` in `(-1, 1)` relative to the mover).
    pub fn forward(&self, x: Tensor<4>) -> (Tensor<2>, Tensor<2>) {
        let (logits, values, _) = self.heads(self.body(x));
        (logits, values)
    }

    /// Every head's output, the auxiliary ones where the network has them.
    pub fn forward_all(&self, x: Tensor<4>) -> Outputs {
        let h = self.body(x);
        let mut aux = PerHead::<Option<AuxOutput>>::default();
        for (a, out) in aux.iter_mut() {
            let Some(conv) = self.conv(a) else { continue };
            *out = Some(match a.head().kind {
                Kind::Cells => {
                    let [b, _, height, width] = h.dims();
                    let o = conv.forward(h.clone());
                    let classes = o.dims()[1];
                    AuxOutput::Cells(o.reshape([b, classes, height * width]).swap_dims(1, 2))
                }
                Kind::Dense | Kind::Policy => AuxOutput::Flat(self.logits(conv, h.clone())),
            });
        }
        let (logits, values, hidden) = self.heads(h);
        for (a, out) in aux.iter_mut() {
            if let Some(dense) = self.dense(a) {
                *out = Some(AuxOutput::Flat(tanh(dense.forward(hidden.clone()))));
            }
        }
        Outputs {
            logits,
            values,
            aux,
        }
    }

    /// The trunk: the stem and the residual blocks.
    fn body(&self, x: Tensor<4>) -> Tensor<4> {
        let mut h = relu(self.stem.forward(x));
        for block in &self.blocks {
            h = block.forward(h);
        }
        h
    }

    /// A policy head's logits in action order: the 1×1 convolution `conv` on the trunk's
    /// output `h`, flattened and gathered.
    fn logits(&self, conv: &Conv2d, h: Tensor<4>) -> Tensor<2> {
        let [b, _, height, width] = h.dims();
        let p = conv.forward(h);
        let planes = p.dims()[1];
        let order = Tensor::<1, Int>::from_data(
            TensorData::new(self.action_order.clone(), [self.action_order.len()]),
            &p.device(),
        );
        p.reshape([b, planes * height * width]).select(1, order)
    }

    /// The policy and value heads on the trunk's output: the logits, the values and the
    /// value head's hidden layer.
    fn heads(&self, h: Tensor<4>) -> (Tensor<2>, Tensor<2>, Tensor<2>) {
        let logits = self.logits(&self.policy, h.clone());
        let v = relu(self.value_bn.forward(self.value_conv.forward(h)));
        let v = v.mean_dims(&[2, 3]).flatten::<2>(1, 3);
        let hidden = relu(self.value_hidden.forward(v));
        let values = tanh(self.value_out.forward(hidden.clone()));
        (logits, values, hidden)
    }
}

/// A float tensor's values as `f32`, row-major.
pub(crate) fn values<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    t.into_data()
        .convert::<f32>()
        .try_to_vec::<f32>()
        .expect("f32 tensor")
}

/// Multiply-adds × 2 of one forward pass (the convolutions, heads and dense layers).
pub fn flops_per_position(s: &NetShape) -> f64 {
    let cells = (s.height * s.width) as f64;
    let c = s.channels as f64;
    let trunk = 9.0 * s.in_planes as f64 * c + s.blocks as f64 * 2.0 * 9.0 * c * c;
    let heads = c * (s.policy_planes + s.value_channels) as f64;
    let pools = (0..s.blocks).filter(|&i| s.pools(i)).count() as f64;
    let dense = (s.value_channels * s.value_hidden + s.value_hidden * s.num_players) as f64
        + pools * 2.0 * c * c;
    2.0 * (cells * (trunk + heads) + dense)
}
