//! Speed figures for the learning side: network inference, self-play, training.

use super::{Rate, measure, sample_positions};
use crate::games::Game;
use crate::nn::{Net, NetShape};

/// Network forward passes: positions per second for each batch size.
pub fn nn<G: Game>(start: &G, shape: &NetShape, batches: &[usize], rounds: usize) -> Vec<Rate> {
    let net = Net::init(shape.clone());
    let len = shape.input_len();
    let positions = sample_positions(start, 64, 20, 7);
    batches
        .iter()
        .map(|&b| {
            let mut input = vec![0.0; b * len];
            for (k, chunk) in input.chunks_mut(len).enumerate() {
                positions[k % positions.len()].encode(chunk);
            }
            // At least ~2048 positions per round so small batches are timed fairly.
            let reps = (2048 / b).max(1);
            net.infer(input.clone(), b); // warm-up
            measure(&format!("forward, batch {b}"), "positions", rounds, |_| {
                for _ in 0..reps {
                    std::hint::black_box(net.infer(input.clone(), b));
                }
                (reps * b) as u64
            })
        })
        .collect()
}
