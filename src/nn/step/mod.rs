//! The fast training step: the network's train-mode forward and a hand-derived backward
//! on every core ([`backprop`]), read from and handed back to burn's module
//! ([`train_step`]: the parameters out, the gradients in as burn's `GradientsParams`, the
//! batch norms' running statistics moved as burn moves them).

pub mod backprop;
pub mod train_step;
