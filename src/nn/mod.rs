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
mod net;
pub mod network;
pub mod nnue;
pub mod queue;
pub mod step;
pub mod warm;

pub use device::{DeviceKind, device};
pub use evaluator::NetEvaluator;
pub(crate) use heads::present;
pub use heads::{Aux, Heads, PerHead};
pub use net::{Net, Output};
pub(crate) use network::values;
pub use network::{NetShape, PolicyValueNet, flops_per_position};
