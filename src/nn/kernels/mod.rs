//! The hand-written CPU forward and its kernels: NHWC im2col into one GEMM per
//! convolution ([`conv`]), the folded network that runs them ([`fast`]), which precision a
//! forward runs in ([`forward`]: fp32, int8 with AVX-512 VNNI ([`quant`], [`direct`]),
//! bf16 ([`bf16`]), AMX tiles ([`amx`])), and global pooling's arithmetic ([`pool`]),
//! shared with the training step.

pub mod amx;
pub mod bf16;
pub mod conv;
pub mod direct;
pub mod fast;
pub mod forward;
pub mod pool;
pub mod quant;
