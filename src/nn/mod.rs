//! The policy-value network and batched inference.
//!
//! - [`network`]: the burn module and its shape ([`NetShape`]).
//! - [`evaluator`]: [`NetEvaluator`], the MCTS evaluator that runs many positions as one
//!   batch and caches results by position hash.
//! - [`checkpoint`]: the checkpoint file (network + optimizer + training state),
//!   versioned and checksummed.
//! - [`bundle`], [`manifest`], [`safetensors`]: exported model bundles for other front
//!   ends (weights as safetensors, a JSON manifest that describes how to run them).
//!
//! [`Net`] is a network ready for inference on the CPU (burn's `flex` backend, or CUDA
//! with the `cuda` feature): batch norm uses its running statistics.

pub mod bundle;
pub mod checkpoint;
pub mod evaluator;
pub mod manifest;
pub mod network;
pub mod safetensors;

use burn::module::Module;
use burn::tensor::{Device, Tensor, TensorData};

pub use evaluator::NetEvaluator;
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

/// A network for inference (no gradients; batch norm in evaluation mode).
#[derive(Debug, Clone)]
pub struct Net {
    pub shape: NetShape,
    model: PolicyValueNet,
    device: Device,
}

/// One batch's raw outputs, row-major.
pub struct Output {
    /// `[batch, actions]` policy logits in action order.
    pub logits: Vec<f32>,
    /// `[batch, players]` values relative to the mover.
    pub values: Vec<f32>,
}

impl Net {
    /// Wraps a (possibly training) model for inference.
    pub fn new(shape: NetShape, model: &PolicyValueNet) -> Net {
        Net {
            shape,
            model: model.valid(),
            device: device(),
        }
    }

    /// A freshly initialised network.
    pub fn init(shape: NetShape) -> Net {
        let model = PolicyValueNet::new(&shape, &device());
        Net::new(shape, &model)
    }

    pub fn model(&self) -> &PolicyValueNet {
        &self.model
    }

    /// Runs `batch` encoded positions (`batch * shape.input_len()` floats).
    pub fn infer(&self, input: Vec<f32>, batch: usize) -> Output {
        let s = &self.shape;
        assert_eq!(
            input.len(),
            batch * s.input_len(),
            "Net::infer: input length"
        );
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
