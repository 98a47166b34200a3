//! Gumbel root search (Danihelka et al., "Policy improvement by planning with Gumbel",
//! ICLR 2022), as a choice of the MCTS in [`super::mcts`] (`mcts.root = "gumbel"`).
//!
//! - **Root**: `k` actions are drawn without replacement by Gumbel-top-k over the prior
//!   logits (`g(a) + logit(a)`, `g ~ Gumbel(0, 1)`; `g = 0` in the deterministic variant
//!   for evaluation and play). The simulation budget `n` is spent by **sequential
//!   halving**: in each of `⌈log₂ k⌉` phases every remaining action gets
//!   `max(1, ⌊n / (⌈log₂ k⌉ · remaining)⌋)` more visits, then the better half (by
//!   `g + logit + σ(q̂)`) stays, down to two. [`visit_schedule`] writes the sequence out:
//!   simulation `i` goes to the best-scoring remaining action whose visit count (this
//!   search) equals `schedule[i]`.
//! - **Move**: among the actions with the most visits, the best `g + logit + σ(q̂)`.
//! - **Policy target**: `softmax(logit + σ(completed Q))` over every legal action, where
//!   completed Q is the action's value if visited, else the mixed value `v_mix`.
//! - **Below the root**: the deterministic selection `argmax π'(a) − N(a) / (1 + ΣN)`
//!   with `π' = softmax(logit + σ(completed Q))`.
//!
//! `σ(q) = (c_visit + max_b N(b)) · c_scale · q`, on Q rescaled to `[0, 1]` by the
//! node's smallest and largest completed Q. Values are per player (the mover's), so
//! this works for three players as for two.

/// The visit level each simulation of a sequential-halving search over `k` actions with
/// a budget of `n` should bring its action to (see the module documentation).
pub fn visit_schedule(k: usize, n: usize) -> Vec<u32> {
    if k <= 1 {
        return (0..n as u32).collect();
    }
    let phases = (k as f64).log2().ceil() as usize;
    let mut out = Vec::with_capacity(n);
    let mut visits = vec![0u32; k];
    let mut remaining = k;
    while out.len() < n {
        let extra = (n / (phases * remaining)).max(1);
        for _ in 0..extra {
            out.extend_from_slice(&visits[..remaining]);
            for v in &mut visits[..remaining] {
                *v += 1;
            }
        }
        remaining = (remaining / 2).max(2);
    }
    out.truncate(n);
    out
}

/// A Gumbel(0, 1) sample from a uniform `u` in `[0, 1)`.
pub fn gumbel(u: f64) -> f32 {
    let u = u.clamp(1e-12, 1.0 - 1e-12);
    -(-u.ln()).ln() as f32
}

/// What one node's children look like to the Gumbel rules, for the mover at the node.
pub struct ChildView {
    /// The child's prior logit.
    pub logit: f32,
    /// Visits (with pending ones).
    pub visits: u32,
    /// Mean value for the mover at the parent (with virtual loss), if visited.
    pub q: Option<f32>,
    /// The child's prior probability.
    pub prior: f32,
}

/// Settings of the Gumbel rules.
#[derive(Debug, Clone, Copy)]
pub struct Sigma {
    /// `c_visit` in `σ(q) = (c_visit + max N) · c_scale · q`.
    pub c_visit: f32,
    /// `c_scale` in the same.
    pub c_scale: f32,
}

/// `σ(completed Q)` of each child; `value` is the network's value at the node for its
/// mover. Q is in `[-1, 1]`; it is rescaled to `[0, 1]` over the node's completed Qs.
pub fn sigma_completed(children: &[ChildView], value: f32, s: Sigma) -> Vec<f32> {
    let total: u32 = children.iter().map(|c| c.visits).sum();
    let max_n = children.iter().map(|c| c.visits).max().unwrap_or(0);
    // v_mix: the value, mixed with the prior-weighted mean Q of the visited children.
    let (mut pq, mut p) = (0.0f32, 0.0f32);
    for c in children {
        if let Some(q) = c.q {
            pq += c.prior * q;
            p += c.prior;
        }
    }
    let v_mix = if p > 0.0 {
        (value + total as f32 * pq / p) / (1.0 + total as f32)
    } else {
        value
    };
    let completed: Vec<f32> = children.iter().map(|c| c.q.unwrap_or(v_mix)).collect();
    let lo = completed.iter().copied().fold(f32::INFINITY, f32::min);
    let hi = completed.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let scale = (s.c_visit + max_n as f32) * s.c_scale / (hi - lo).max(1e-6);
    completed.iter().map(|q| (q - lo) * scale).collect()
}

/// `softmax(logit + σ(completed Q))`: the improved policy.
pub fn improved_policy(children: &[ChildView], value: f32, s: Sigma) -> Vec<f32> {
    let sig = sigma_completed(children, value, s);
    let z: Vec<f32> = children
        .iter()
        .zip(&sig)
        .map(|(c, x)| c.logit + x)
        .collect();
    let m = z.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let e: Vec<f32> = z.iter().map(|x| (x - m).exp()).collect();
    let sum: f32 = e.iter().sum();
    e.iter().map(|x| x / sum.max(1e-30)).collect()
}

/// The child to descend to below the root: `argmax π'(a) − N(a) / (1 + ΣN)`.
pub fn select_interior(children: &[ChildView], value: f32, s: Sigma) -> usize {
    let pi = improved_policy(children, value, s);
    let total: u32 = children.iter().map(|c| c.visits).sum();
    let mut best = (f32::NEG_INFINITY, 0);
    for (i, (c, p)) in children.iter().zip(&pi).enumerate() {
        let score = p - c.visits as f32 / (1.0 + total as f32);
        if score > best.0 {
            best = (score, i);
        }
    }
    best.1
}

/// The root's Gumbel state for one search.
#[derive(Debug, Clone)]
pub struct RootPlan {
    /// `g(a)` of each root child (zeros in the deterministic variant).
    pub g: Vec<f32>,
    /// Whether each root child is among the `k` considered.
    pub considered: Vec<bool>,
    /// Each root child's visits when the search began (a reused tree has some).
    pub base: Vec<u32>,
    /// [`visit_schedule`] for this search.
    pub schedule: Vec<u32>,
}

impl RootPlan {
    /// Draws `g` (when `noise` gives uniforms), keeps the top `k` by `g + logit`.
    pub fn new(
        logits: &[f32],
        base: Vec<u32>,
        k: usize,
        sims: usize,
        noise: Option<Vec<f64>>,
    ) -> RootPlan {
        let g: Vec<f32> = match noise {
            Some(u) => u.into_iter().map(gumbel).collect(),
            None => vec![0.0; logits.len()],
        };
        let k = k.clamp(1, logits.len().max(1));
        let mut order: Vec<usize> = (0..logits.len()).collect();
        order.sort_by(|&a, &b| (g[b] + logits[b]).total_cmp(&(g[a] + logits[a])));
        let mut considered = vec![false; logits.len()];
        for &i in order.iter().take(k) {
            considered[i] = true;
        }
        RootPlan {
            g,
            considered,
            base,
            schedule: visit_schedule(k, sims),
        }
    }

    /// `g + logit + σ(q̂)` of each root child.
    pub fn scores(&self, children: &[ChildView], value: f32, s: Sigma) -> Vec<f32> {
        let sig = sigma_completed(children, value, s);
        children
            .iter()
            .enumerate()
            .map(|(i, c)| self.g[i] + c.logit + sig[i])
            .collect()
    }

    /// The root child for simulation number `sim` of this search (0-based): the best
    /// score among considered children at the scheduled visit level; if none is at
    /// that level (virtual loss, revisited terminals), the best among the least visited.
    pub fn select(&self, children: &[ChildView], value: f32, s: Sigma, sim: usize) -> usize {
        let scores = self.scores(children, value, s);
        let own = |i: usize| children[i].visits.saturating_sub(self.base[i]);
        let level = self.schedule.get(sim).copied();
        let pick = |eligible: &dyn Fn(usize) -> bool| {
            (0..children.len())
                .filter(|&i| self.considered[i] && eligible(i))
                .max_by(|&a, &b| scores[a].total_cmp(&scores[b]))
        };
        if let Some(i) = level.and_then(|l| pick(&|i| own(i) == l)) {
            return i;
        }
        let least = (0..children.len())
            .filter(|&i| self.considered[i])
            .map(own)
            .min()
            .unwrap_or(0);
        pick(&|i| own(i) == least).unwrap_or(0)
    }

    /// The move: among considered children with the most visits this search, the best
    /// score.
    pub fn best(&self, children: &[ChildView], value: f32, s: Sigma) -> usize {
        let scores = self.scores(children, value, s);
        let own = |i: usize| children[i].visits.saturating_sub(self.base[i]);
        let most = (0..children.len())
            .filter(|&i| self.considered[i])
            .map(own)
            .max()
            .unwrap_or(0);
        (0..children.len())
            .filter(|&i| self.considered[i] && own(i) == most)
            .max_by(|&a, &b| scores[a].total_cmp(&scores[b]))
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schedule_halves_and_spends_the_budget() {
        // k = 4, n = 16: two phases; 2 visits each to 4 actions, then 4 each to 2.
        let s = visit_schedule(4, 16);
        assert_eq!(s.len(), 16);
        assert_eq!(&s[..8], &[0, 0, 0, 0, 1, 1, 1, 1]);
        assert_eq!(&s[8..], &[2, 2, 3, 3, 4, 4, 5, 5]);
        assert_eq!(visit_schedule(1, 5), vec![0, 1, 2, 3, 4]);
        assert_eq!(visit_schedule(16, 200).len(), 200);
    }

    #[test]
    fn completed_q_fills_unvisited_children_with_the_mixed_value() {
        let s = Sigma {
            c_visit: 50.0,
            c_scale: 1.0,
        };
        let c = |q: Option<f32>, visits| ChildView {
            logit: 0.0,
            visits,
            q,
            prior: 0.5,
        };
        // One child visited (q = 1), one not: v_mix = (0 + 1 · 1) / 2 = 0.5 sits between.
        let sig = sigma_completed(&[c(Some(1.0), 1), c(None, 0)], 0.0, s);
        assert_eq!(sig[1], 0.0);
        assert!((sig[0] - 51.0).abs() < 1e-3, "{sig:?}");
        let pi = improved_policy(&[c(Some(1.0), 1), c(None, 0)], 0.0, s);
        assert!(pi[0] > 0.99 && (pi.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }
}
