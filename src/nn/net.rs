//! [`Net`]: a network ready for inference, on the CPU through the hand-written forward
//! or on a GPU through burn, and the [`Output`] of one batch.

use burn::module::Module;
use burn::tensor::{Device, Tensor, TensorData};

use super::device::{self, DeviceKind};
use super::formats::fold;
use super::kernels::{fast, forward};
use super::network::{NetShape, PolicyValueNet};

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
    /// Where this network's batches go when another thread runs its forward
    /// ([`Queue::member`](super::queue::Queue::member)).
    queue: Option<std::sync::Arc<dyn Batches>>,
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
        let model = model.valid().to_device(&device::device());
        let fast = (!cfg!(feature = "cuda")).then(|| {
            let tensors = fold::folded_tensors(&shape, &model);
            let f = fast::FastNet::new(&shape, &tensors);
            std::sync::Arc::new(f.on(forward::everywhere()))
        });
        Net {
            shape,
            model,
            device: device::device(),
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
        let model = PolicyValueNet::new(&shape, &device::device());
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

/// Where a network's batches go when another thread runs its forward (the inference
/// [`Queue`](super::queue::Queue)'s members).
pub(crate) trait Batches: Send + Sync + std::fmt::Debug {
    /// Runs `batch` positions: waits for the forward that takes them.
    fn infer(&self, input: Vec<f32>, batch: usize) -> Output;
}

impl Net {
    /// This network with its batches sent to `to` instead of run here.
    pub(crate) fn sending_to(mut self, to: std::sync::Arc<dyn Batches>) -> Net {
        self.queue = Some(to);
        self
    }
}
