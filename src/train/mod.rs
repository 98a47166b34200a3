//! The trainer: batches from the replay buffer, the loss, the optimizer and its schedule.
//!
//! - **Batch**: positions drawn uniformly from the window, each mapped through a random
//!   augmentation symmetry (for Infexion one of the 12 point symmetries), encoded from
//!   the mover's view. The policy target is the visit distribution, mapped by the same
//!   symmetry; the value target is the final result rotated to the mover's view.
//! - **Loss**: policy cross-entropy over the legal actions (illegal logits masked out),
//!   plus `value_weight` × value MSE (averaged over players), plus `ownership_weight` ×
//!   the ownership head's cross-entropy (averaged over cells), plus `margin_weight` ×
//!   the margin head's MSE; weight decay is applied by the optimizer (L2 on every
//!   parameter).
//! - **Optimizer**: Adam or SGD with momentum; the learning rate follows a cosine decay
//!   from `learning_rate` to `lr_min` over `lr_decay_steps` (constant when 0).
//!
//! - [`run`]: the whole training loop (self-play → buffer → train → gate) and resume.
//! - [`rundir`]: the run's store, its lock and its numbered checkpoints.
//! - [`ingest`]: taking in games uploaded by self-play workers.
//! - [`gating`]: candidate-vs-best gating (with an optional SPRT) and baseline matches.
//! - [`metrics`]: the per-iteration metrics record.
//! - [`distill`]: the fast evaluator trained on self-play positions (`contagion distill`).
//! - [`distill_loop`]: the fast evaluator's own loop (`contagion distill --loop`).

pub mod distill;
pub mod distill_loop;
pub mod events;
pub mod gating;
pub mod ingest;
pub mod metrics;
pub mod run;
pub mod rundir;

use std::path::PathBuf;

use burn::module::Module;
use burn::optim::decay::WeightDecayConfig;
use burn::optim::momentum::MomentumConfig;
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer, SgdConfig};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Bytes, Device, Tensor, TensorData};

use crate::config::TrainConfig;
use crate::games::Game;
use crate::nn::formats::checkpoint::{model_bytes, model_from_bytes};
use crate::nn::network::SOFT_POLICY_POWER;
use crate::nn::step::backprop::{Backprop, BatchRef, LossWeights};
use crate::nn::step::train_step;
use crate::nn::{Net, NetShape, PolicyValueNet};
use crate::rng::Rng;
use crate::selfplay::Sample;
use crate::selfplay::replay::ReplayBuffer;

/// How `contagion train` was asked to run.
pub struct TrainOptions {
    /// The config file.
    pub config: PathBuf,
    /// `SECTION.KEY=VALUE` overrides applied on top of the config file.
    pub overrides: Vec<String>,
    /// Where runs live: a directory (`checkpoints`) or an `s3://bucket/prefix` store.
    pub root: String,
    /// How long an S3 lease outlives a trainer that stopped renewing it.
    pub lease_seconds: u64,
    /// Start over; an existing run directory is moved aside, never overwritten.
    pub fresh: bool,
    /// Report progress.
    pub progress: bool,
}

/// One training batch, row-major.
pub struct Batch {
    /// Positions in the batch.
    pub size: usize,
    /// `[size, planes, height, width]` encoded positions.
    pub input: Vec<f32>,
    /// `[size, actions]` target probabilities (zero on illegal actions).
    pub policy: Vec<f32>,
    /// `[size, actions]`: 0 on legal actions, a large negative number on illegal ones.
    pub mask: Vec<f32>,
    /// `[size, players]` results relative to the mover.
    pub value: Vec<f32>,
    /// `[size, cells, classes]` who holds each cell at the game's end, one-hot over
    /// [`NetShape::owner_classes`] (all zeros for a sample without its game's end);
    /// empty for a network without the ownership head.
    pub owner: Vec<f32>,
    /// `[size, players]` the game's final score vector relative to the mover (zeros for a
    /// sample without its game's end); empty for a network without the margin head.
    pub margin: Vec<f32>,
    /// `[size, players]` the score vector a few plies ahead relative to the mover (see
    /// [`crate::selfplay::replay::Targets::short_plies`]); empty for a network without
    /// the short-term value head.
    pub short_value: Vec<f32>,
    /// `[size, actions]` the policy target raised to [`SOFT_POLICY_POWER`] and
    /// normalised; empty for a network without the soft policy head.
    pub soft_policy: Vec<f32>,
}

/// Mean losses over some steps.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct Losses {
    /// Policy cross-entropy.
    pub policy: f64,
    /// Value mean squared error.
    pub value: f64,
    /// The ownership head's cross-entropy, averaged over cells (0 without the head).
    #[serde(skip_serializing_if = "metrics::is_zero")]
    pub owner: f64,
    /// The margin head's mean squared error (0 without the head).
    #[serde(skip_serializing_if = "metrics::is_zero")]
    pub margin: f64,
    /// The short-term value head's mean squared error (0 without the head).
    #[serde(skip_serializing_if = "metrics::is_zero")]
    pub short_value: f64,
    /// The soft policy head's cross-entropy (0 without the head).
    #[serde(skip_serializing_if = "metrics::is_zero")]
    pub soft_policy: f64,
    /// The weighted sum the optimizer minimises.
    pub total: f64,
}

impl Losses {
    /// Every loss, in [`Trainer::loss`]'s order: the policy's, the value's, the
    /// auxiliary heads' (ownership, margin, short-term value, soft policy), the total.
    fn parts_mut(&mut self) -> [&mut f64; 7] {
        [
            &mut self.policy,
            &mut self.value,
            &mut self.owner,
            &mut self.margin,
            &mut self.short_value,
            &mut self.soft_policy,
            &mut self.total,
        ]
    }

    /// Every loss of `self` plus `other`'s, times `scale`.
    fn add_scaled(&mut self, mut other: Losses, scale: f64) {
        for (m, t) in self.parts_mut().into_iter().zip(other.parts_mut()) {
            *m += *t * scale;
        }
    }
}

const ILLEGAL: f32 = -1.0e9;

/// A batch of the samples, each under a random one of its game's augmentation symmetries.
pub fn make_batch<G: Game>(samples: &[&Sample<G>], shape: &NetShape, rng: &mut Rng) -> Batch {
    batch_with(samples, shape, |s| {
        rng.below(s.state.augmentation_symmetries().max(1))
    })
}

/// The batch with every sample as it is (symmetry 0), for measuring on fixed data.
pub fn make_plain_batch<G: Game>(samples: &[&Sample<G>], shape: &NetShape) -> Batch {
    batch_with(samples, shape, |_| 0)
}

/// The batch with sample `s` under symmetry `sym_of(s)`.
fn batch_with<G: Game>(
    samples: &[&Sample<G>],
    shape: &NetShape,
    mut sym_of: impl FnMut(&Sample<G>) -> usize,
) -> Batch {
    let (len, na, np) = (shape.input_len(), shape.actions(), shape.num_players);
    let (size, classes, cells) = (samples.len(), shape.owner_classes(), shape.cells());
    let mut b = Batch {
        size,
        input: vec![0.0; size * len],
        policy: vec![0.0; size * na],
        mask: vec![ILLEGAL; size * na],
        value: vec![0.0; size * np],
        owner: vec![0.0; size * cells * classes],
        margin: vec![0.0; if shape.margin { size * np } else { 0 }],
        short_value: vec![0.0; if shape.short_value { size * np } else { 0 }],
        soft_policy: vec![0.0; if shape.soft_policy { size * na } else { 0 }],
    };
    let mut legal = Vec::new();
    for (i, s) in samples.iter().enumerate() {
        let sym = sym_of(s);
        let state = s.state.transform(sym);
        state.encode(&mut b.input[i * len..(i + 1) * len]);
        state.legal_actions(&mut legal);
        for &a in &legal {
            b.mask[i * na + a as usize] = 0.0;
        }
        for &(a, p) in &s.policy {
            b.policy[i * na + s.state.transform_action(a, sym) as usize] = p;
        }
        if shape.soft_policy {
            let soft = &mut b.soft_policy[i * na..(i + 1) * na];
            for (t, &p) in soft.iter_mut().zip(&b.policy[i * na..(i + 1) * na]) {
                *t = p.powf(SOFT_POLICY_POWER);
            }
            let sum: f32 = soft.iter().sum();
            soft.iter_mut().for_each(|t| *t /= sum);
        }
        // Relative to the mover of the stored position: a symmetry that relabels the
        // seats (the Chexers rotations) moves the mover and its result alike.
        let mover = s.state.to_move();
        for rel in 0..np {
            b.value[i * np + rel] = s.outcome[(mover + rel) % np];
            if shape.short_value {
                b.short_value[i * np + rel] = s.short_value[(mover + rel) % np];
            }
        }
        if let Some(score) = (s.end.as_ref())
            .filter(|_| shape.margin)
            .and_then(|end| end.score_vector())
        {
            for rel in 0..np {
                b.margin[i * np + rel] = score.0[(mover + rel) % np];
            }
        }
        if let Some(end) = s.end.as_ref().filter(|_| classes > 0) {
            let owners = end.transform(sym).owners().unwrap_or_default();
            let out = &mut b.owner[i * cells * classes..(i + 1) * cells * classes];
            let mover = state.to_move();
            for (cell, &code) in owners.iter().enumerate().take(cells) {
                let class = match code as usize {
                    0 => 0,
                    p => 1 + (p - 1 + np - mover) % np,
                };
                out[cell * classes + class] = 1.0;
            }
        }
    }
    b
}

/// Positions whose statistics a warm start's batch norms take ([`Trainer::rebase_batch_norms`]).
pub const REBASE_POSITIONS: usize = 1024;

/// The network being trained, its optimizer and the training step.
pub struct Trainer {
    /// The network's shape.
    pub shape: NetShape,
    model: PolicyValueNet,
    optim: ModuleOptimizer,
    config: TrainConfig,
    /// Where the network trains, with autodiff ([`TrainConfig::device`]).
    device: Device,
    /// The same device without autodiff (evaluation-mode forwards).
    plain: Device,
    /// The fast step's arithmetic; `None`: burn's autodiff computes the gradients (the
    /// reference, and the path on a GPU).
    fast: Option<Backprop>,
    /// Optimizer steps taken (drives the schedule).
    pub steps: u64,
}

/// The fast step for `shape` under `config` (`threads = 0`: every core); none on a GPU.
fn fast_step(shape: &NetShape, config: &TrainConfig) -> Option<Backprop> {
    let threads = match config.threads {
        0 => crate::limits::cores(),
        n => n,
    };
    let weights = LossWeights {
        value: config.value_weight,
        ownership: config.ownership_weight,
        margin: config.margin_weight,
        short_value: config.short_value_weight,
        soft_policy: config.soft_policy_weight,
    };
    let cpu = !cfg!(feature = "cuda") && config.device == crate::nn::DeviceKind::Cpu;
    cpu.then(|| Backprop::new(shape, weights, threads))
}

/// `config.device` without and with autodiff (an error where that device is missing).
fn devices(config: &TrainConfig) -> anyhow::Result<(Device, Device)> {
    let plain = config.device.burn()?;
    Ok((plain.clone(), plain.autodiff()))
}

fn optimizer(config: &TrainConfig) -> ModuleOptimizer {
    let decay =
        (config.weight_decay > 0.0).then(|| WeightDecayConfig::new(config.weight_decay as f32));
    if config.optimizer == crate::config::Optimizer::Sgd {
        SgdConfig::new()
            .with_weight_decay(decay)
            .with_momentum(Some(
                MomentumConfig::new()
                    .with_momentum(config.momentum)
                    .with_dampening(0.0),
            ))
            .init()
    } else {
        AdamConfig::new().with_weight_decay(decay).init()
    }
}

impl Trainer {
    /// A trainer over a fresh network, on `config.device` (an error where that device
    /// is missing).
    pub fn new(shape: NetShape, config: &TrainConfig) -> anyhow::Result<Trainer> {
        let (plain, device) = devices(config)?;
        let model = PolicyValueNet::new(&shape, &device);
        Ok(Trainer {
            fast: fast_step(&shape, config),
            shape,
            model,
            optim: optimizer(config),
            config: config.clone(),
            device,
            plain,
            steps: 0,
        })
    }

    /// A trainer resumed from saved parameters and optimizer state.
    pub fn restore(
        shape: NetShape,
        config: &TrainConfig,
        model: &[u8],
        optim: &[u8],
        steps: u64,
    ) -> anyhow::Result<Trainer> {
        let (plain, device) = devices(config)?;
        let model = model_from_bytes(&shape, model, &device)?;
        let mut opt = optimizer(config);
        if !optim.is_empty() {
            opt = opt
                .from_bytes(Bytes::from_bytes_vec(optim.to_vec()))
                .map_err(|e| anyhow::anyhow!("optimizer state: {e}"))?;
        }
        Ok(Trainer {
            fast: fast_step(&shape, config),
            shape,
            model,
            optim: opt,
            config: config.clone(),
            device,
            plain,
            steps,
        })
    }

    /// A trainer whose network starts from the model at `path` (`run.init`): the layers
    /// `shape` shares with it ([`crate::nn::warm`]), fresh optimizer state. Rebase its
    /// batch norms ([`Trainer::rebase_batch_norms`]) before its first step.
    pub fn start_from(
        shape: NetShape,
        config: &TrainConfig,
        path: &std::path::Path,
    ) -> anyhow::Result<Trainer> {
        let (source, model) = crate::nn::formats::checkpoint::load_model(path)?;
        let model = crate::nn::warm::start_from(&shape, &source, model)?;
        Trainer::restore(shape, config, &model_bytes(&model)?, &[], 0)
    }

    /// Sets the batch norms' statistics to those of `REBASE_POSITIONS` positions drawn
    /// from `buffer`, without changing what the network computes at inference
    /// ([`crate::nn::warm::rebase_batch_norms`]).
    pub fn rebase_batch_norms<G: Game>(
        &mut self,
        buffer: &ReplayBuffer<G>,
        rng: &mut Rng,
    ) -> anyhow::Result<()> {
        let samples: Vec<&Sample<G>> = (0..REBASE_POSITIONS).map(|_| buffer.sample(rng)).collect();
        let b = make_batch(&samples, &self.shape, rng);
        let s = &self.shape;
        let x = Tensor::<4>::from_data(
            TensorData::new(b.input, [b.size, s.in_planes, s.height, s.width]),
            &self.plain,
        );
        let mut model = self.model.valid();
        crate::nn::warm::rebase_batch_norms(&mut model, x);
        self.model = model_from_bytes(&self.shape, &model_bytes(&model)?, &self.device)?;
        Ok(())
    }

    /// This trainer with burn's autodiff computing every step's gradients (the reference
    /// the fast step is held to; the path on a GPU).
    pub fn with_autodiff(mut self) -> Trainer {
        self.fast = None;
        self
    }

    /// Threads a step is split over (1 under autodiff).
    pub fn threads(&self) -> usize {
        self.fast.as_ref().map_or(1, Backprop::threads)
    }

    /// The network being trained.
    pub fn model(&self) -> &PolicyValueNet {
        &self.model
    }

    /// The current learning rate.
    pub fn learning_rate(&self) -> f64 {
        let c = &self.config;
        if c.lr_decay_steps == 0 {
            return c.learning_rate;
        }
        let t = (self.steps as f64 / c.lr_decay_steps as f64).min(1.0);
        c.lr_min + 0.5 * (c.learning_rate - c.lr_min) * (1.0 + (std::f64::consts::PI * t).cos())
    }

    /// The network's parameters and the optimizer state, as burnpack bytes.
    pub fn save_bytes(&self) -> anyhow::Result<(Vec<u8>, Vec<u8>)> {
        let optim = self
            .optim
            .into_bytes()
            .map_err(|e| anyhow::anyhow!("serialising the optimizer: {e}"))?;
        Ok((model_bytes(&self.model)?, optim.to_vec()))
    }

    /// The current network for inference.
    pub fn net(&self) -> Net {
        Net::new(self.shape.clone(), &self.model)
    }

    /// The losses on `batch` without training (evaluation mode).
    pub fn evaluate(&self, batch: &Batch) -> Losses {
        let model = self.model.valid();
        Trainer::losses(self.loss(&model, batch, &self.plain))
    }

    fn loss(&self, model: &PolicyValueNet, b: &Batch, device: &Device) -> [Tensor<1>; 7] {
        let s = &self.shape;
        let tensor2 = |data: &[f32], cols: usize| {
            Tensor::<2>::from_data(TensorData::new(data.to_vec(), [b.size, cols]), device)
        };
        let x = Tensor::<4>::from_data(
            TensorData::new(b.input.clone(), [b.size, s.in_planes, s.height, s.width]),
            device,
        );
        let out = model.forward_all(x);
        let (logits, values) = (out.logits, out.values);
        let cross_entropy = |logits: Tensor<2>, targets: &[f32]| {
            let logp = log_softmax(logits + tensor2(&b.mask, s.actions()), 1);
            let ce = logp * tensor2(targets, s.actions());
            ce.sum_dim(1).mean().neg()
        };
        let mse = |out: Tensor<2>, targets: &[f32]| {
            (out - tensor2(targets, s.num_players)).square().mean()
        };
        let owner = out.owner.map(|o| {
            let dims = [b.size, s.cells(), s.owner_classes()];
            let target = Tensor::<3>::from_data(TensorData::new(b.owner.clone(), dims), device);
            (log_softmax(o, 2) * target).sum_dim(2).mean().neg()
        });
        let mut parts = [
            Some(cross_entropy(logits, &b.policy)),
            Some(mse(values, &b.value)),
            owner,
            out.margin.map(|m| mse(m, &b.margin)),
            out.short_value.map(|m| mse(m, &b.short_value)),
            out.soft_logits.map(|l| cross_entropy(l, &b.soft_policy)),
        ];
        let weights = self.loss_weights();
        let mut total = Tensor::<1>::zeros([1], device);
        let [policy, value, owner, margin, short, soft] =
            std::array::from_fn(|i| match parts[i].take() {
                Some(p) => {
                    total = total.clone() + p.clone().mul_scalar(weights[i]);
                    p
                }
                None => Tensor::<1>::zeros([1], device),
            });
        [policy, value, owner, margin, short, soft, total]
    }

    /// Each loss's weight in the total, in [`Trainer::loss`]'s order (the policy's is 1).
    fn loss_weights(&self) -> [f64; 6] {
        let c = &self.config;
        [
            1.0,
            c.value_weight,
            c.ownership_weight,
            c.margin_weight,
            c.short_value_weight,
            c.soft_policy_weight,
        ]
    }

    /// The losses as numbers.
    fn losses(parts: [Tensor<1>; 7]) -> Losses {
        let mut losses = Losses::default();
        for (slot, part) in losses.parts_mut().into_iter().zip(parts) {
            *slot = part.into_scalar::<f32>() as f64;
        }
        losses
    }

    /// The gradients of the loss on `batch` and its losses, by the fast step or burn's
    /// autodiff; batch norm's running statistics move as in a train-mode forward.
    pub fn gradients(&mut self, batch: &Batch) -> (Losses, GradientsParams) {
        let Some(fast) = &mut self.fast else {
            let parts = self.loss(&self.model, batch, &self.device);
            let total = parts[6].clone();
            return (
                Trainer::losses(parts),
                GradientsParams::from_grads(total.backward(), &self.model),
            );
        };
        let weights = train_step::weights(&self.model);
        let r = fast.step(
            &weights,
            &BatchRef {
                size: batch.size,
                input: &batch.input,
                policy: &batch.policy,
                mask: &batch.mask,
                value: &batch.value,
                owner: &batch.owner,
                margin: &batch.margin,
                short_value: &batch.short_value,
                soft_policy: &batch.soft_policy,
            },
        );
        train_step::update_running(&self.model, &r.stats);
        let mut losses = Losses {
            policy: r.policy_loss,
            value: r.value_loss,
            owner: r.owner_loss,
            margin: r.margin_loss,
            short_value: r.short_value_loss,
            soft_policy: r.soft_policy_loss,
            total: 0.0,
        };
        losses.total = (losses.parts_mut().into_iter())
            .zip(self.loss_weights())
            .map(|(part, weight)| *part * weight)
            .sum();
        let grads = train_step::gradients(&r.grads, &self.model, &self.plain);
        (losses, grads)
    }

    /// One optimizer step on `batch`; returns its losses (before the step).
    pub fn step(&mut self, batch: &Batch) -> Losses {
        let (losses, grads) = self.gradients(batch);
        let lr = self.learning_rate();
        self.model = self.optim.step(lr, self.model.clone(), grads);
        self.steps += 1;
        losses
    }

    /// `steps` steps on batches drawn from `buffer`; mean losses, and the seconds spent
    /// building the batches. `tick` after each.
    pub fn train<G: Game>(
        &mut self,
        buffer: &ReplayBuffer<G>,
        steps: u64,
        rng: &mut Rng,
        tick: impl Fn(),
    ) -> (Losses, f64) {
        let mut sum = Losses::default();
        let mut batch_time = std::time::Duration::ZERO;
        for _ in 0..steps {
            let t = std::time::Instant::now();
            let samples: Vec<&Sample<G>> = (0..self.config.batch_size)
                .map(|_| buffer.sample(rng))
                .collect();
            let batch = make_batch(&samples, &self.shape, rng);
            batch_time += t.elapsed();
            sum.add_scaled(self.step(&batch), 1.0 / steps as f64);
            tick();
        }
        (sum, batch_time.as_secs_f64())
    }
}
