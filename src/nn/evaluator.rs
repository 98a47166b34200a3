//! [`NetEvaluator`]: the network as an MCTS evaluator, with an evaluation cache.
//!
//! Positions missing from the cache are encoded into one input buffer and run as one
//! batch. Priors are the softmax of the legal actions' logits; values come back from
//! the mover's point of view and are rotated to absolute seats. Results are cached by
//! the position's hash (a transposition, or a position revisited after tree reuse, is
//! not evaluated twice); the cache is cleared when it reaches its capacity.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::Net;
use crate::games::{Action, Game, MAX_PLAYERS};
use crate::search::mcts::{Evaluation, Evaluator};

/// Counters for throughput and cache figures.
#[derive(Debug, Clone, Copy, Default)]
pub struct EvalStats {
    pub requests: u64,
    pub cache_hits: u64,
    pub batches: u64,
    pub evaluated: u64,
    pub forward_time: Duration,
}

impl EvalStats {
    pub fn hit_rate(&self) -> f64 {
        self.cache_hits as f64 / self.requests.max(1) as f64
    }

    pub fn mean_batch(&self) -> f64 {
        self.evaluated as f64 / self.batches.max(1) as f64
    }

    pub fn add(&mut self, o: &EvalStats) {
        self.requests += o.requests;
        self.cache_hits += o.cache_hits;
        self.batches += o.batches;
        self.evaluated += o.evaluated;
        self.forward_time += o.forward_time;
    }
}

pub struct NetEvaluator {
    net: Net,
    cache: HashMap<u64, Evaluation>,
    capacity: usize,
    pub stats: EvalStats,
}

impl NetEvaluator {
    /// `cache_capacity` positions (0 disables the cache).
    pub fn new(net: Net, cache_capacity: usize) -> NetEvaluator {
        NetEvaluator {
            net,
            cache: HashMap::new(),
            capacity: cache_capacity,
            stats: EvalStats::default(),
        }
    }

    pub fn net(&self) -> &Net {
        &self.net
    }
}

/// Softmax of `logits` restricted to `legal`.
pub fn legal_softmax(logits: &[f32], legal: &[Action]) -> Vec<f32> {
    let max = legal
        .iter()
        .map(|&a| logits[a as usize])
        .fold(f32::NEG_INFINITY, f32::max);
    let mut p: Vec<f32> = legal
        .iter()
        .map(|&a| (logits[a as usize] - max).exp())
        .collect();
    let sum: f32 = p.iter().sum();
    p.iter_mut().for_each(|x| *x /= sum);
    p
}

impl<G: Game> Evaluator<G> for NetEvaluator {
    fn evaluate(&mut self, batch: &[(&G, &[Action])]) -> Vec<Evaluation> {
        self.stats.requests += batch.len() as u64;
        let mut out: Vec<Option<Evaluation>> = vec![None; batch.len()];
        let mut missing = Vec::new();
        for (i, (state, _)) in batch.iter().enumerate() {
            match self.cache.get(&state.hash()) {
                Some(e) => {
                    out[i] = Some(e.clone());
                    self.stats.cache_hits += 1;
                }
                None => missing.push(i),
            }
        }
        if !missing.is_empty() {
            let len = self.net.shape.input_len();
            let mut input = vec![0.0; missing.len() * len];
            for (k, &i) in missing.iter().enumerate() {
                batch[i].0.encode(&mut input[k * len..(k + 1) * len]);
            }
            let t0 = Instant::now();
            let o = self.net.infer(input, missing.len());
            self.stats.forward_time += t0.elapsed();
            self.stats.batches += 1;
            self.stats.evaluated += missing.len() as u64;
            let (na, np) = (self.net.shape.actions(), self.net.shape.num_players);
            if self.capacity > 0 && self.cache.len() + missing.len() > self.capacity {
                self.cache.clear();
            }
            for (k, &i) in missing.iter().enumerate() {
                let (state, legal) = batch[i];
                let mover = state.to_move();
                let mut values = [0.0; MAX_PLAYERS];
                for (rel, v) in o.values[k * np..(k + 1) * np].iter().enumerate() {
                    values[(mover + rel) % np] = *v;
                }
                let e = Evaluation {
                    priors: legal_softmax(&o.logits[k * na..(k + 1) * na], legal),
                    values,
                };
                if self.capacity > 0 {
                    self.cache.insert(state.hash(), e.clone());
                }
                out[i] = Some(e);
            }
        }
        out.into_iter()
            .map(|e| e.expect("every position evaluated"))
            .collect()
    }
}
