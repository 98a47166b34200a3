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
//! - [`batch`]: training batches and every head's targets.
//! - [`run`]: the whole training loop (self-play → buffer → train → gate) and resume.
//! - [`rundir`]: the run's store, its lock and its numbered checkpoints.
//! - [`ingest`]: taking in games uploaded by self-play workers.
//! - [`gating`]: candidate-vs-best gating (with an optional SPRT) and baseline matches.
//! - [`metrics`]: the per-iteration metrics record.
//! - [`distill`]: the fast evaluator trained on self-play positions (`contagion distill`).
//! - `distill_data`: its positions, read whole or streamed.
//! - [`distill_loop`]: the fast evaluator's own loop (`contagion distill --loop`).

pub mod batch;
pub mod distill;
mod distill_data;
pub mod distill_loop;
pub mod distill_run;
pub mod events;
pub mod export;
pub mod gating;
pub mod ingest;
pub mod metrics;
pub mod run;
pub mod rundir;

use burn::module::Module;
use burn::optim::decay::WeightDecayConfig;
use burn::optim::momentum::MomentumConfig;
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer, SgdConfig};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Bytes, Device, Tensor, TensorData};

use crate::config::TrainConfig;
use crate::games::Game;
use crate::nn::formats::checkpoint::{model_bytes, model_from_bytes};
use crate::nn::heads::{Aux, Kind, PerHead};
use crate::nn::network::AuxOutput;
use crate::nn::step::backprop::{Backprop, BatchRef, LossWeights};
use crate::nn::step::train_step;
use crate::nn::{Net, NetShape, PolicyValueNet};
use crate::rng::Rng;
use crate::selfplay::Sample;
use crate::selfplay::replay::ReplayBuffer;
pub use batch::{Batch, make_batch, make_plain_batch};

/// How `contagion train` was asked to run.
pub struct TrainOptions {
    /// The run's config, its overrides applied (read once, by the caller).
    pub config: crate::config::Config,
    /// Where runs live: a directory (`checkpoints`) or an `s3://bucket/prefix` store.
    pub root: String,
    /// How long an S3 lease outlives a trainer that stopped renewing it.
    pub lease_seconds: u64,
    /// Start over; an existing run directory is moved aside, never overwritten.
    pub fresh: bool,
    /// Report progress.
    pub progress: bool,
}

/// Mean losses over some steps.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct Losses {
    /// Policy cross-entropy.
    pub policy: f64,
    /// Value mean squared error.
    pub value: f64,
    /// Each auxiliary head's loss (0 without the head): a cross-entropy averaged over
    /// cells, a mean squared error or a cross-entropy, by its kind.
    pub aux: PerHead<f64>,
    /// The weighted sum the optimizer minimises.
    pub total: f64,
}

impl Losses {
    /// Every loss, in [`Trainer::loss`]'s order: the policy's, the value's, the
    /// auxiliary heads' in the table's order, the total.
    fn parts_mut(&mut self) -> Vec<&mut f64> {
        let parts = [&mut self.policy, &mut self.value].into_iter();
        (parts.chain(&mut self.aux.0))
            .chain([&mut self.total])
            .collect()
    }

    /// Every loss of `self` plus `other`'s, times `scale`.
    fn add_scaled(&mut self, mut other: Losses, scale: f64) {
        for (m, t) in self.parts_mut().into_iter().zip(other.parts_mut()) {
            *m += *t * scale;
        }
    }
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
        aux: config.head_weights(),
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
        let b = make_batch(&samples, &self.shape, &self.config, rng);
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

    /// Burn's loss on `b`: each part in [`Losses::parts_mut`]'s order (zero for a head
    /// the network lacks), the total last.
    fn loss(&self, model: &PolicyValueNet, b: &Batch, device: &Device) -> Vec<Tensor<1>> {
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
        let aux = out.aux.0.into_iter().zip(Aux::ALL).map(|(o, a)| {
            let targets = &b.aux[a];
            o.map(|o| match o {
                AuxOutput::Cells(o) => {
                    let dims = [b.size, s.cells(), s.head_width(a)];
                    let target =
                        Tensor::<3>::from_data(TensorData::new(targets.clone(), dims), device);
                    (log_softmax(o, 2) * target).sum_dim(2).mean().neg()
                }
                AuxOutput::Flat(o) if a.head().kind == Kind::Dense => mse(o, targets),
                AuxOutput::Flat(logits) => cross_entropy(logits, targets),
            })
        });
        let parts = [
            Some(cross_entropy(logits, &b.policy)),
            Some(mse(values, &b.value)),
        ];
        let weights = self.loss_weights();
        let mut total = Tensor::<1>::zeros([1], device);
        let mut all: Vec<Tensor<1>> = (parts.into_iter().chain(aux))
            .zip(weights)
            .map(|(part, weight)| match part {
                Some(p) => {
                    total = total.clone() + p.clone().mul_scalar(weight);
                    p
                }
                None => Tensor::<1>::zeros([1], device),
            })
            .collect();
        all.push(total);
        all
    }

    /// Each loss's weight in the total, in [`Trainer::loss`]'s order (the policy's is 1).
    fn loss_weights(&self) -> Vec<f64> {
        let c = &self.config;
        [1.0, c.value_weight]
            .into_iter()
            .chain(c.head_weights().0)
            .collect()
    }

    /// The losses as numbers.
    fn losses(parts: Vec<Tensor<1>>) -> Losses {
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
            let total = parts.last().expect("the total").clone();
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
                aux: batch.aux.map(|_, t| &t[..]),
            },
        );
        train_step::update_running(&self.model, &r.stats);
        let mut losses = Losses {
            policy: r.policy_loss,
            value: r.value_loss,
            aux: r.aux_loss,
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
            let batch = make_batch(&samples, &self.shape, &self.config, rng);
            batch_time += t.elapsed();
            sum.add_scaled(self.step(&batch), 1.0 / steps as f64);
            tick();
        }
        (sum, batch_time.as_secs_f64())
    }
}
