//! The policy-value network: its model, inference and training arithmetic, and files, each
//! trade in its own room.
//!
//! - [`network`]: the burn module and its shape ([`NetShape`]); [`Net`], here, a network
//!   ready for inference: on the CPU (burn's `flex` backend underneath, or CUDA with the
//!   `cuda` feature) or on a GPU through wgpu ([`mod@device`]), batch norm on its running
//!   statistics.
//! - [`kernels`]: the hand-written CPU forward [`Net::infer`] uses (im2col GEMMs, int8,
//!   bf16, AMX), which the training step and the fast evaluator share; burn's forward
//!   stays the reference and the path on a GPU.
//! - [`step`]: the fast training step (train-mode forward and a hand-derived backward),
//!   whose gradients burn's optimizer applies; burn's autodiff stays the reference and
//!   the path on a GPU.
//! - [`formats`]: the files a model lives in: checkpoints, exported bundles (manifest,
//!   safetensors), ONNX, and the index of the shipped models.
//! - [`warm`]: a run's first network taken from a trained model, grown where the run's
//!   network is larger.
//! - [`evaluator`]: [`NetEvaluator`], the MCTS evaluator that runs many positions as one
//!   batch and caches results by position hash; [`queue`] gathers many workers' batches
//!   into one forward.
//! - [`nnue`]: the fast evaluator an alpha-beta search runs, taught by the network.

pub mod device;
pub mod evaluator;
pub mod formats;
pub mod heads;
pub mod kernels;
pub mod network;
pub mod nnue;
pub mod queue;
pub mod step;
pub mod warm;

use formats::bundle;
use kernels::{fast, forward};

use burn::module::Module;
use burn::tensor::{Device, Tensor, TensorData};

pub use device::DeviceKind;
pub use evaluator::NetEvaluator;
pub use heads::{Aux, Heads, PerHead};
pub use network::{NetShape, PolicyValueNet};

/// The device every network runs on: CUDA with the `cuda` feature, else the CPU.
pub fn device() -> Device {
    #[cfg(feature = "cuda")]
    {
        Device::cuda(0)
    }
    #[cfg(not(feature = "cuda"))]
    {
        Device::flex()
    }
}

/// The auxiliary heads a model has: each pair whose head is there (`Some`), with what
/// goes with it (its name, its gradient).
pub(crate) fn present<L, T>(
    heads: impl IntoIterator<Item = (Option<L>, T)>,
) -> impl Iterator<Item = (L, T)> {
    (heads.into_iter()).filter_map(|(head, with)| head.map(|h| (h, with)))
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

/// A network for inference (no gradients; batch norm in evaluation mode).
#[derive(Debug, Clone)]
pub struct Net {
    /// The network's shape.
    pub shape: NetShape,
    model: PolicyValueNet,
    device: Device,
    kind: DeviceKind,
    /// The fast CPU forward over the same weights (`None` on CUDA).
    fast: Option<std::sync::Arc<fast::FastNet>>,
    /// Threads one forward may use (see [`Net::with_threads`]); `None`: the caller's.
    pool: Option<std::sync::Arc<rayon::ThreadPool>>,
    /// The shared forward this network's batches go to ([`queue::Queue::member`]).
    queue: Option<std::sync::Arc<queue::Member>>,
}

/// One batch's raw outputs, row-major.
pub struct Output {
    /// `[batch, actions]` policy logits in action order.
    pub logits: Vec<f32>,
    /// `[batch, players]` values relative to the mover.
    pub values: Vec<f32>,
}

impl Net {
    /// Wraps a (possibly training, possibly GPU) model for inference on the CPU.
    pub fn new(shape: NetShape, model: &PolicyValueNet) -> Net {
        let model = model.valid().to_device(&device());
        let fast = (!cfg!(feature = "cuda")).then(|| {
            let tensors = bundle::folded_tensors(&shape, &model);
            let f = fast::FastNet::new(&shape, &tensors);
            std::sync::Arc::new(f.on(forward::everywhere()))
        });
        Net {
            shape,
            model,
            device: device(),
            kind: DeviceKind::Cpu,
            fast,
            pool: None,
            queue: None,
        }
    }

    /// This network on `kind`: on the GPU burn's forward runs it there ([`mod@device`]); back
    /// on the CPU, the fast forward.
    pub fn on_device(mut self, kind: DeviceKind) -> anyhow::Result<Net> {
        if kind == self.kind {
            return Ok(self);
        }
        if kind == DeviceKind::Cpu {
            return Ok(Net::new(self.shape, &self.model));
        }
        self.device = kind.burn()?;
        self.model = self.model.to_device(&self.device);
        (self.fast, self.kind) = (None, kind);
        Ok(self)
    }

    /// Which device runs the forward.
    pub fn device_kind(&self) -> DeviceKind {
        self.kind
    }

    /// This network as a model agent's search runs it: on [`forward::for_search`], unless
    /// [`forward::FORWARD_ENV`] already put it on another (or on that one: it is not
    /// built twice).
    /// On the GPU where `--device` asked for it ([`device::playing`]).
    pub fn for_search(self) -> anyhow::Result<Net> {
        self.searching_on(forward::for_search())
            .on_device(device::playing())
    }

    /// This network as self-play runs it: on [`forward::for_self_play`], likewise.
    pub fn for_self_play(self) -> Net {
        self.searching_on(forward::for_self_play())
    }

    fn searching_on(mut self, search: forward::Forward) -> Net {
        if let Some(f) = &self.fast
            && f.precision() == forward::everywhere()
            && f.precision() != search
        {
            self.fast = Some(std::sync::Arc::new(f.on(search)));
        }
        self
    }

    /// This network running burn's forward only (the reference, for benchmarks).
    pub fn burn_only(mut self) -> Net {
        self.fast = None;
        self
    }

    /// This network on `forward` ([`forward`]); the CPU must run it
    /// ([`forward::Forward::available`]). burn's forward stays as it is.
    pub fn on(mut self, forward: forward::Forward) -> Net {
        self.fast = self.fast.map(|f| std::sync::Arc::new(f.on(forward)));
        self
    }

    /// Which forward runs: a [`forward::Forward`]'s name, or `"burn"`.
    pub fn forward_kind(&self) -> &'static str {
        self.fast.as_ref().map_or("burn", |f| f.precision().name())
    }

    /// This network with each forward split over `threads` threads (by positions). Self-
    /// play leaves this at one: its workers already fill the cores.
    pub fn with_threads(mut self, threads: usize) -> anyhow::Result<Net> {
        crate::limits::at_most("threads", threads, crate::limits::MAX_THREADS)?;
        self.pool = match threads {
            0 | 1 => None,
            // The caller runs one share itself.
            n => Some(std::sync::Arc::new(
                rayon::ThreadPoolBuilder::new().num_threads(n - 1).build()?,
            )),
        };
        Ok(self)
    }

    /// A freshly initialised network.
    pub fn init(shape: NetShape) -> Net {
        let model = PolicyValueNet::new(&shape, &device());
        Net::new(shape, &model)
    }

    /// The burn module (for export and the reference forward).
    pub fn model(&self) -> &PolicyValueNet {
        &self.model
    }

    /// Runs `batch` encoded positions (`batch * shape.input_len()` floats): on the CPU
    /// through the fast forward ([`fast`]), on a GPU through burn; a queue's member
    /// through its queue.
    pub fn infer(&self, input: Vec<f32>, batch: usize) -> Output {
        assert_eq!(
            input.len(),
            batch * self.shape.input_len(),
            "Net::infer: input length"
        );
        if let Some(q) = &self.queue {
            return q.infer(input, batch);
        }
        let Some(f) = &self.fast else {
            return self.infer_burn(input, batch);
        };
        let threads = self
            .pool
            .as_ref()
            .map_or(1, |p| p.current_num_threads() + 1);
        if threads < 2 || batch < 2 {
            let (logits, values) = f.forward(&input, batch);
            return Output { logits, values };
        }
        // The caller runs the first share and waits on a channel for the pool's: a
        // rayon wait (`install`, `scope`) from another pool's worker (a match's game)
        // would run that pool's other jobs meanwhile, whole games, stalling this move.
        let pool = self.pool.as_ref().expect("a pool");
        let (len, per) = (self.shape.input_len(), batch.div_ceil(threads));
        let mut chunks = input.chunks(per * len);
        let first = chunks.next().expect("a non-empty batch");
        let (tx, rx) = std::sync::mpsc::channel();
        let mut rest = 0;
        for (i, chunk) in chunks.enumerate() {
            let (f, chunk, tx) = (f.clone(), chunk.to_vec(), tx.clone());
            pool.spawn(move || {
                let _ = tx.send((i, f.forward(&chunk, chunk.len() / len)));
            });
            rest += 1;
        }
        drop(tx);
        let (mut logits, mut values) = f.forward(first, first.len() / len);
        let mut parts: Vec<Option<(Vec<f32>, Vec<f32>)>> = vec![None; rest];
        for _ in 0..rest {
            let (i, part) = rx.recv().expect("a forward thread panicked");
            parts[i] = Some(part);
        }
        for (l, v) in parts.into_iter().flatten() {
            logits.extend(l);
            values.extend(v);
        }
        Output { logits, values }
    }

    /// [`Net::infer`] through burn's forward: the reference the fast path is held to.
    pub fn infer_burn(&self, input: Vec<f32>, batch: usize) -> Output {
        let s = &self.shape;
        let x = Tensor::<4>::from_data(
            TensorData::new(input, [batch, s.in_planes, s.height, s.width]),
            &self.device,
        );
        let (logits, values) = self.model.forward(x);
        Output {
            logits: logits.into_data().try_to_vec::<f32>().expect("f32 logits"),
            values: values.into_data().try_to_vec::<f32>().expect("f32 values"),
        }
    }
}
