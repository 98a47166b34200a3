//! `contagion bench train --dump DIR`: one training step written out for other frameworks
//! to check themselves against (`bench/torch/compare.py`).
//!
//! `DIR/step.json` holds the network's shape, every tensor of the freshly initialised
//! network by its burn path and in burn's layout (3×3 and 1×1 convolutions
//! `[out, in, kh, kw]`, linear layers `[in, out]`, batch norms' running statistics),
//! one batch as the trainer builds it, and the losses and gradients of the fast step
//! on that batch. burn's initialiser is seeded, so a dump is the same every time.

use std::path::Path;

use crate::games::Game;
use crate::nn::NetShape;
use crate::nn::step::train_step::{named_gradients, named_tensors_with_dims};

/// Writes one seeded training step of `shape`'s network on a random batch of `batch` positions to `dir` (see the module documentation).
pub fn train_step<G: Game>(
    start: &G,
    shape: &NetShape,
    batch: usize,
    dir: &Path,
) -> anyhow::Result<()> {
    let data = super::learning::train_samples(start, 256);
    let config = crate::config::TrainConfig::default();
    let b = super::learning::train_batches(&data, shape, &config, (batch, 1)).remove(0);
    crate::nn::device().seed(1); // the same weights every time
    let mut trainer = crate::train::Trainer::new(shape.clone(), &config)?;
    let (tensors, dims) = named_tensors_with_dims(trainer.model());
    let (losses, grads) = trainer.gradients(&b);
    let grads = named_gradients(trainer.model(), &grads);
    let weights: serde_json::Map<String, serde_json::Value> = (tensors.into_iter())
        .map(|(name, data)| {
            let v = serde_json::json!({ "dims": dims[&name], "data": data });
            (name, v)
        })
        .collect();
    let json = serde_json::json!({
        "shape": shape,
        "value_weight": config.value_weight,
        "weights": weights,
        "batch": {
            "size": b.size, "input": b.input, "policy": b.policy, "mask": b.mask, "value": b.value,
        },
        "losses": losses,
        "gradients": grads,
    });
    std::fs::create_dir_all(dir)?;
    crate::framing::write_atomic(&dir.join("step.json"), json.to_string().as_bytes())?;
    println!("wrote {}", dir.join("step.json").display());
    Ok(())
}
