//! [`NetEvaluator`]: the network as an MCTS evaluator, with an evaluation cache.
//!
//! Positions missing from the cache are encoded into one input buffer and run as one
//! batch; a position that appears twice in a batch is run once. Priors are the softmax
//! of the legal actions' logits; values come back from the mover's point of view and
//! are rotated to absolute seats. Results are cached by the position's hash with the
//! position itself, which a hit must equal (so a hash collision is a miss, never
//! another position's priors); a transposition, or a position revisited after tree
//! reuse, is not evaluated twice. The cache is a table of fixed size, like a chess
//! engine's transposition table: a position's hash picks its slot and a newer
//! evaluation replaces the one there. It never has to be emptied, so no search pauses
//! to free a full cache at once (that pause broke a move's time limit).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::Net;
use crate::games::{Action, Game, MAX_PLAYERS};
use crate::search::mcts::{Evaluation, Evaluator};

/// Counters for throughput and cache figures.
#[derive(Debug, Clone, Copy, Default)]
pub struct EvalStats {
    /// Evaluations asked for.
    pub requests: u64,
    /// Of those, answered from the cache.
    pub cache_hits: u64,
    /// Forward calls.
    pub batches: u64,
    /// Positions through the network.
    pub evaluated: u64,
    /// Time spent in the forward.
    pub forward_time: Duration,
}

impl EvalStats {
    /// The share of requests answered from the cache.
    pub fn hit_rate(&self) -> f64 {
        self.cache_hits as f64 / self.requests.max(1) as f64
    }

    /// Mean positions per forward call.
    pub fn mean_batch(&self) -> f64 {
        self.evaluated as f64 / self.batches.max(1) as f64
    }

    /// Adds another evaluator's counts.
    pub fn add(&mut self, o: &EvalStats) {
        self.requests += o.requests;
        self.cache_hits += o.cache_hits;
        self.batches += o.batches;
        self.evaluated += o.evaluated;
        self.forward_time += o.forward_time;
    }
}

/// MCTS's evaluator: a network, batched, with a cache by position.
pub struct NetEvaluator<G> {
    net: Net,
    /// Slot `hash % len`: the last position evaluated there and its evaluation (boxed:
    /// an empty slot costs a pointer).
    cache: Vec<Option<Box<(G, Evaluation)>>>,
    /// Its counters so far.
    pub stats: EvalStats,
}

impl<G: Game> NetEvaluator<G> {
    /// `cache_capacity` slots (0 disables the cache), allocated now rather than during
    /// a search.
    pub fn new(net: Net, cache_capacity: usize) -> NetEvaluator<G> {
        NetEvaluator {
            net,
            cache: (0..cache_capacity).map(|_| None).collect(),
            stats: EvalStats::default(),
        }
    }

    /// The cache slot of a position's hash (`None` without a cache).
    fn slot(&self, hash: u64) -> Option<usize> {
        let len = self.cache.len() as u64;
        (len > 0).then(|| (hash % len) as usize)
    }

    /// The network.
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

impl<G: Game> Evaluator<G> for NetEvaluator<G> {
    fn evaluate(&mut self, batch: &[(&G, &[Action])]) -> Vec<Evaluation> {
        self.stats.requests += batch.len() as u64;
        let mut out: Vec<Option<Evaluation>> = vec![None; batch.len()];
        // Positions to run (their first index in `batch`), and for each request its
        // row among them.
        let mut missing: Vec<usize> = Vec::new();
        let mut row: Vec<Option<usize>> = vec![None; batch.len()];
        let mut rows_by_hash: HashMap<u64, Vec<usize>> = HashMap::new();
        for (i, (state, _)) in batch.iter().enumerate() {
            let hash = state.hash();
            if let Some(Some(entry)) = self.slot(hash).map(|s| &self.cache[s])
                && let (cached, e) = &**entry
                && cached == *state
            {
                out[i] = Some(e.clone());
                self.stats.cache_hits += 1;
                continue;
            }
            let same = rows_by_hash.entry(hash).or_default();
            match same.iter().find(|&&r| batch[missing[r]].0 == *state) {
                Some(&r) => row[i] = Some(r), // a duplicate within the batch
                None => {
                    same.push(missing.len());
                    row[i] = Some(missing.len());
                    missing.push(i);
                }
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
            let evals: Vec<Evaluation> = (missing.iter().enumerate())
                .map(|(k, &i)| {
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
                    if let Some(s) = self.slot(state.hash()) {
                        self.cache[s] = Some(Box::new((state.clone(), e.clone())));
                    }
                    e
                })
                .collect();
            for (o, r) in out.iter_mut().zip(&row) {
                if let (None, Some(r)) = (&o, r) {
                    *o = Some(evals[*r].clone());
                }
            }
        }
        out.into_iter()
            .map(|e| e.expect("every position evaluated"))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::infexion::Board;
    use crate::nn::NetShape;

    #[test]
    fn evaluations_are_rotated_to_seats_and_cached() {
        let start = Board::new();
        let net = Net::init(NetShape::for_game(&start, 1, 8, 8));
        let mut blue = start;
        blue.apply(0).unwrap(); // Blue to move
        let mut ev = NetEvaluator::<Board>::new(net.clone(), 100);
        let (mut la, mut lb) = (Vec::new(), Vec::new());
        start.legal_actions(&mut la);
        blue.legal_actions(&mut lb);
        let batch = [(&start, la.as_slice()), (&blue, lb.as_slice())];
        let first = ev.evaluate(&batch);
        let len = net.shape.input_len();
        let mut input = vec![0.0; 2 * len];
        start.encode(&mut input[..len]);
        blue.encode(&mut input[len..]);
        let raw = net.infer(input, 2);
        // Red to move: seat values in output order; Blue to move: rotated.
        assert_eq!(first[0].values[..2], raw.values[0..2]);
        assert_eq!(first[1].values[..2], [raw.values[3], raw.values[2]]);
        for (e, legal) in first.iter().zip([&la, &lb]) {
            assert_eq!(e.priors.len(), legal.len());
            assert!((e.priors.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        }
        // The same positions again come from the cache, unchanged.
        let again = ev.evaluate(&batch);
        assert_eq!(again, first);
        assert_eq!(ev.stats.requests, 4);
        assert_eq!(ev.stats.cache_hits, 2);
        assert_eq!(ev.stats.evaluated, 2);
        assert!((ev.stats.hit_rate() - 0.5).abs() < 1e-12);
    }

    #[test]
    fn a_hash_collision_is_a_miss_and_duplicates_run_once() {
        let (net, start, other, la, lb) = two_positions();
        assert_ne!(la.len(), lb.len());
        let mut ev = NetEvaluator::<Board>::new(net.clone(), 100);
        // The start position, then `other` cached under the start's hash by force.
        let first = ev.evaluate(&[(&start, la.as_slice())]);
        let slot = ev.slot(start.hash()).unwrap();
        let fake = ev.cache[slot].take().unwrap().1;
        ev.cache[slot] = Some(Box::new((other, fake)));
        let again = ev.evaluate(&[(&start, la.as_slice())]);
        assert_eq!(again, first, "a colliding entry is not used");
        assert_eq!(ev.stats.cache_hits, 0);
        // Three requests, two of them the same position: two positions run.
        let batch = [
            (&other, lb.as_slice()),
            (&start, la.as_slice()),
            (&other, lb.as_slice()),
        ];
        let mut fresh = NetEvaluator::<Board>::new(net, 0);
        let out = fresh.evaluate(&batch);
        assert_eq!(fresh.stats.evaluated, 2);
        assert_eq!(out[0], out[2]);
        assert_eq!(out[1], first[0]);
        assert_eq!(out[0].priors.len(), lb.len());
    }

    #[test]
    fn a_full_cache_replaces_its_slot_and_answers_the_same() {
        let (net, start, other, la, lb) = two_positions();
        // One slot: each position replaces the other, and is run again when it returns.
        let mut ev = NetEvaluator::<Board>::new(net, 1);
        let first = ev.evaluate(&[(&start, la.as_slice())]);
        ev.evaluate(&[(&other, lb.as_slice())]);
        let again = ev.evaluate(&[(&start, la.as_slice())]);
        assert_eq!(again, first);
        assert_eq!((ev.stats.evaluated, ev.stats.cache_hits), (3, 0));
        assert_eq!(ev.evaluate(&[(&start, la.as_slice())]), first);
        assert_eq!(ev.stats.cache_hits, 1);
    }

    /// A small network, the start, the position after its first move, and their moves.
    fn two_positions() -> (Net, Board, Board, Vec<Action>, Vec<Action>) {
        let start = Board::new();
        let net = Net::init(NetShape::for_game(&start, 1, 8, 8));
        let mut other = start;
        other.apply(0).unwrap();
        let (mut la, mut lb) = (Vec::new(), Vec::new());
        start.legal_actions(&mut la);
        other.legal_actions(&mut lb);
        (net, start, other, la, lb)
    }
}
