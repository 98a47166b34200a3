//! Monte Carlo tree search with PUCT, for any number of players.
//!
//! - **Values**: every node keeps the sum of backed-up outcome vectors (one value per
//!   player, in `[-1, 1]`). A parent picks among its children by the value *for the
//!   player to move at the parent*, i.e. the player who moves into the child. There is
//!   no two-player negation trick: three-player games back up the same way (max^n).
//! - **Selection**: `Q + c_puct · P · √N_parent / (1 + N)`. Unvisited children get the
//!   first-play urgency `Q_parent − fpu_reduction`.
//! - **Noise**: Dirichlet(`alpha`) mixed into the root priors with weight `fraction`,
//!   once per search (on [`Tree::add_noise`]), at the root only.
//! - **Batching**: [`Tree::select_leaf`] hands out a leaf to evaluate and marks its path
//!   with a virtual loss, so several leaves of one tree (and leaves of many trees) can
//!   be evaluated as one network batch; [`Tree::expand`] puts the evaluation in and
//!   backs it up. Terminal leaves are scored by the true outcome straight away.
//! - **Proven results**: finished games in the tree carry their exact outcome and settle
//!   their ancestors where they can ([`proof`]); selection passes over proven losses and
//!   stops at proven nodes, and [`Tree::choose`] plays a proven win at once.
//! - **Tree reuse**: [`Tree::advance`] and [`Tree::reroot`] keep the subtree under the
//!   moves played (`mcts/reroot.rs`).
//! - **Memory**: the tree's nodes stay within a bound; a full tree evaluates its leaves
//!   without expanding them (`mcts/memory.rs`).
//! - **Settings**: [`MctsParams`] and their defaults (`mcts/params.rs`).
//!
//! [`super::batch::search_batched`] drives many trees to a simulation count with one
//! evaluator.

mod forced;
mod memory;
mod params;
pub mod proof;
pub mod proven;
mod reroot;

pub use params::{C_PUCT, FPU_REDUCTION, GumbelParams, MctsParams};
pub use proven::Proven;

use super::gumbel::{ChildView, RootPlan, Sigma, improved_policy, select_interior};
use crate::games::{Action, Game, MAX_PLAYERS, Outcome};
use crate::rng::Rng;

/// The network's (or any evaluator's) judgement of a position.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// Prior probabilities of the legal actions, in the order given.
    pub priors: Vec<f32>,
    /// Expected outcome for each player (absolute seats).
    pub values: [f32; MAX_PLAYERS],
}

/// Evaluates positions in batches. `batch[i]` is a position and its legal actions.
pub trait Evaluator<G: Game> {
    /// The priors over each position's legal actions and its values, one per position.
    fn evaluate(&mut self, batch: &[(&G, &[Action])]) -> Vec<Evaluation>;
}

/// Uniform priors and a draw value everywhere: MCTS with it is pure tree search.
pub struct UniformEvaluator;

impl<G: Game> Evaluator<G> for UniformEvaluator {
    fn evaluate(&mut self, batch: &[(&G, &[Action])]) -> Vec<Evaluation> {
        batch
            .iter()
            .map(|(_, legal)| Evaluation {
                priors: vec![1.0 / legal.len().max(1) as f32; legal.len()],
                values: [0.0; MAX_PLAYERS],
            })
            .collect()
    }
}

const NONE: u32 = u32::MAX;

#[derive(Debug, Clone)]
struct Node {
    action: Action,
    prior: f32,
    visits: u32,
    /// Leaves below this node being evaluated (virtual loss).
    pending: u32,
    value_sum: [f32; MAX_PLAYERS],
    /// The evaluator's value of this node for the player to move here (Gumbel's `v̂`).
    net_value: f32,
    first_child: u32,
    num_children: u16,
    expanded: bool,
    /// The exact result, once proven ([`proof`]).
    proof: Option<Proven>,
}

impl Node {
    fn new(action: Action, prior: f32) -> Node {
        Node {
            action,
            prior,
            visits: 0,
            pending: 0,
            value_sum: [0.0; MAX_PLAYERS],
            net_value: 0.0,
            first_child: NONE,
            num_children: 0,
            expanded: false,
            proof: None,
        }
    }
}

/// A Gumbel search's root plan, where the search began, and its `σ` settings.
#[derive(Debug, Clone)]
struct Plan {
    root: RootPlan,
    start: u32,
    sigma: Sigma,
}

/// A leaf handed out by [`Tree::select_leaf`] for evaluation.
#[derive(Debug, Clone)]
pub struct Leaf<G> {
    /// The leaf's position.
    pub state: G,
    /// Its legal actions, in the order the priors come back.
    pub legal: Vec<Action>,
    path: Vec<u32>,
}

/// One search tree, rooted at a position.
#[derive(Debug, Clone)]
pub struct Tree<G: Game> {
    root: G,
    nodes: Vec<Node>,
    noised: bool,
    /// The Gumbel root plan of the current search (Gumbel search only).
    plan: Option<Plan>,
    /// Forced playouts' `k` and `c_puct` of the current search (0: none).
    forced: (f32, f32),
    scratch: Vec<Action>,
    /// The movers along a selection's path (kept to save allocations).
    movers: Vec<u8>,
    /// An empty buffer for the next re-rooting's nodes (see `Tree::keep`).
    spare: Vec<Node>,
    /// The most nodes the tree holds (see [`Tree::limit_bytes`]).
    max_nodes: usize,
    /// Whether a leaf went unexpanded for want of room since the last re-rooting.
    full: bool,
}

impl<G: Game> Tree<G> {
    /// A tree holding only `root`.
    pub fn new(root: G) -> Tree<G> {
        Tree {
            root,
            nodes: vec![Node::new(0, 1.0)],
            noised: false,
            forced: (0.0, 0.0),
            plan: None,
            scratch: Vec::new(),
            movers: Vec::new(),
            spare: Vec::new(),
            max_nodes: usize::MAX,
            full: false,
        }
    }

    /// The root position.
    pub fn root(&self) -> &G {
        &self.root
    }

    /// Completed simulations through the root (reused ones included).
    pub fn root_visits(&self) -> u32 {
        self.nodes[0].visits
    }

    /// Whether the root has been evaluated (its children exist).
    pub fn root_expanded(&self) -> bool {
        self.nodes[0].expanded
    }

    /// Nodes in the tree.
    pub fn size(&self) -> usize {
        self.nodes.len()
    }

    /// The root's mean value for each player (zeros before the first simulation; the
    /// exact outcome once the root is proven).
    pub fn root_values(&self) -> [f32; MAX_PLAYERS] {
        mean(&self.nodes[0])
    }

    fn children(&self, node: u32) -> std::ops::Range<usize> {
        let n = &self.nodes[node as usize];
        if n.first_child == NONE {
            return 0..0;
        }
        n.first_child as usize..n.first_child as usize + n.num_children as usize
    }

    /// `(action, visits, mean value for the player to move)` of each root child (a
    /// proven child's value is its exact one).
    pub fn root_children(&self) -> Vec<(Action, u32, f32)> {
        let me = self.root.to_move();
        self.children(0)
            .map(|i| {
                let n = &self.nodes[i];
                (n.action, n.visits, mean(n)[me])
            })
            .collect()
    }

    /// Mixes Dirichlet noise into the root priors, once per search; a no-op until the
    /// root is expanded or when it was already noised.
    pub fn add_noise(&mut self, rng: &mut Rng, alpha: f32, fraction: f32) {
        let range = self.children(0);
        if self.noised || fraction <= 0.0 || range.is_empty() {
            return;
        }
        let noise = rng.dirichlet(alpha as f64, range.len());
        for (i, eta) in range.zip(noise) {
            let p = &mut self.nodes[i].prior;
            *p = (1.0 - fraction) * *p + fraction * eta;
        }
        self.noised = true;
    }

    /// Prepares the root for a search of `sims` simulations, once per search and only
    /// once the root is expanded: Dirichlet noise for PUCT (when `noise`), the Gumbel
    /// draw and top-k for Gumbel search (`g = 0` without `noise`).
    pub fn begin(&mut self, params: &MctsParams, sims: u32, rng: &mut Rng, noise: bool) {
        self.forced = (params.forced_playouts, params.c_puct);
        let Some(gumbel) = params.gumbel else {
            if noise {
                self.add_noise(rng, params.dirichlet_alpha, params.dirichlet_fraction);
            }
            return;
        };
        let range = self.children(0);
        if self.plan.is_some() || range.is_empty() {
            return;
        }
        let logits: Vec<f32> = range.clone().map(|i| logit(&self.nodes[i])).collect();
        let base: Vec<u32> = range.clone().map(|i| self.nodes[i].visits).collect();
        // A root expanded by this search's first simulation has `sims - 1` left.
        let just_expanded = self.nodes[0].visits == 1 && base.iter().all(|&v| v == 0);
        let sims = sims - u32::from(just_expanded && sims > 0);
        let uniforms = noise.then(|| range.map(|_| rng.unit()).collect());
        let plan = RootPlan::new(
            &logits,
            base,
            gumbel.actions as usize,
            sims as usize,
            uniforms,
        );
        self.plan = Some(Plan {
            root: plan,
            start: self.nodes[0].visits,
            sigma: gumbel.sigma(),
        });
    }

    /// The children of `node` as the Gumbel rules see them, for player `me`.
    fn views(&self, node: u32, me: usize) -> Vec<ChildView> {
        self.children(node)
            .map(|i| {
                let c = &self.nodes[i];
                let n = c.visits + c.pending;
                ChildView {
                    logit: logit(c),
                    visits: n,
                    q: match c.proof {
                        Some(p) => Some(p.outcome[me]),
                        None => (n > 0).then(|| (c.value_sum[me] - c.pending as f32) / n as f32),
                    },
                    prior: c.prior,
                }
            })
            .collect()
    }

    /// Walks down by PUCT to a leaf. Returns `None` when the leaf was terminal or proven
    /// (its exact outcome is already backed up); otherwise the leaf to evaluate, its path
    /// marked with a virtual loss until [`Tree::expand`].
    pub fn select_leaf(&mut self, params: &MctsParams) -> Option<Leaf<G>> {
        let mut state = self.root.clone();
        let mut path = vec![0u32];
        let mut movers = std::mem::take(&mut self.movers);
        movers.clear();
        let mut node = 0u32;
        loop {
            if let Some(p) = self.nodes[node as usize].proof {
                self.backup(&path, &p.outcome, false);
                self.movers = movers;
                return None;
            }
            if let Some(outcome) = state.outcome() {
                let outcome = params.terminal(outcome, state.num_players());
                self.nodes[node as usize].proof = Some(Proven::terminal(outcome));
                self.propagate_proof(&path, &movers);
                self.backup(&path, &outcome.0, false);
                self.movers = movers;
                return None;
            }
            if params.repeat_value != 0.0 && node != 0 && state.repeats() {
                let outcome = Outcome::draw_at(state.num_players(), params.repeat_value);
                self.backup(&path, &outcome.0, false);
                self.movers = movers;
                return None;
            }
            if !self.nodes[node as usize].expanded {
                break;
            }
            movers.push(state.to_move() as u8);
            let child = self.select_child(node, state.to_move(), params);
            state
                .apply(self.nodes[child as usize].action)
                .expect("tree actions are legal");
            path.push(child);
            node = child;
        }
        self.movers = movers;
        for &i in &path {
            self.nodes[i as usize].pending += 1;
        }
        state.legal_actions(&mut self.scratch);
        Some(Leaf {
            legal: self.scratch.clone(),
            state,
            path,
        })
    }

    /// The child to descend to: the Gumbel root plan at the root of a Gumbel search,
    /// Gumbel's deterministic rule below it, PUCT otherwise.
    fn select_child(&self, node: u32, me: usize, params: &MctsParams) -> u32 {
        let Some(gumbel) = params.gumbel else {
            return self.puct_child(node, me, params);
        };
        let first = self.nodes[node as usize].first_child;
        let views = self.views(node, me);
        let value = self.nodes[node as usize].net_value;
        let sigma = gumbel.sigma();
        let i = match (&self.plan, node) {
            (Some(plan), 0) => {
                let root = &self.nodes[0];
                let sim = (root.visits + root.pending).saturating_sub(plan.start);
                plan.root.select(&views, value, sigma, sim as usize)
            }
            _ => select_interior(&views, value, sigma),
        };
        first + i as u32
    }

    fn puct_child(&self, node: u32, me: usize, params: &MctsParams) -> u32 {
        let parent = &self.nodes[node as usize];
        let parent_n = (parent.visits + parent.pending) as f32;
        let parent_q = if parent.visits > 0 {
            parent.value_sum[me] / parent.visits as f32
        } else {
            0.0
        };
        let fpu = parent_q - params.fpu_reduction;
        let scale = params.c_puct * parent_n.max(1.0).sqrt();
        let forcing = if node == 0 { self.forcing() } else { None };
        // Proven losses for the mover are passed over while any move is not one.
        let (mut best, mut best_lost) = ((f32::NEG_INFINITY, NONE), (f32::NEG_INFINITY, NONE));
        for i in self.children(node) {
            let c = &self.nodes[i];
            let n = c.visits + c.pending;
            // A pending visit counts as a loss for the mover (virtual loss).
            let q = match c.proof {
                Some(p) => p.outcome[me],
                None if n == 0 => fpu,
                None => (c.value_sum[me] - c.pending as f32) / n as f32,
            };
            let u = match forcing.is_some_and(|total| self.owed(c, total)) {
                true => f32::INFINITY,
                false => q + scale * c.prior / (1.0 + n as f32),
            };
            let slot = if Self::avoided(c, me) {
                &mut best_lost
            } else {
                &mut best
            };
            if u > slot.0 {
                *slot = (u, i as u32);
            }
        }
        if best.1 == NONE { best_lost.1 } else { best.1 }
    }

    /// Puts the evaluation of `leaf` in (children with their priors) and backs up its
    /// values. A leaf expanded meanwhile (selected twice in one batch) is only backed up.
    pub fn expand(&mut self, leaf: Leaf<G>, eval: &Evaluation) {
        let node = *leaf.path.last().expect("a path has the root");
        if !self.nodes[node as usize].expanded {
            let (len, k) = (self.nodes.len(), leaf.legal.len());
            if len + k > self.max_nodes {
                self.full = true;
                return self.backup(&leaf.path, &eval.values, true);
            }
            if self.nodes.capacity() < len + k {
                let want = (2 * self.nodes.capacity()).max(len + k).min(self.max_nodes);
                self.nodes.reserve_exact(want - len);
            }
            let first = self.nodes.len() as u32;
            self.nodes.extend(
                leaf.legal
                    .iter()
                    .zip(&eval.priors)
                    .map(|(&a, &p)| Node::new(a, p)),
            );
            let n = &mut self.nodes[node as usize];
            n.first_child = first;
            n.num_children = leaf.legal.len() as u16;
            n.expanded = true;
            n.net_value = eval.values[leaf.state.to_move()];
        }
        self.backup(&leaf.path, &eval.values, true);
    }

    fn backup(&mut self, path: &[u32], values: &[f32; MAX_PLAYERS], pending: bool) {
        for &i in path {
            let n = &mut self.nodes[i as usize];
            n.visits += 1;
            if pending {
                n.pending -= 1;
            }
            for (sum, v) in n.value_sum.iter_mut().zip(values) {
                *sum += v;
            }
        }
    }

    /// The root's improved policy under Gumbel search, `None` otherwise.
    fn gumbel_policy(&self) -> Option<Vec<f32>> {
        let plan = self.plan.as_ref()?;
        let views = self.views(0, self.root.to_move());
        Some(improved_policy(&views, self.nodes[0].net_value, plan.sigma))
    }

    /// The training target at the root as `(action, weight)`: visit counts under PUCT;
    /// under Gumbel search the improved policy `softmax(logit + σ(completed Q))` in
    /// units of 1/65536. Zero weights are left out.
    pub fn policy_target(&self) -> Vec<(Action, u32)> {
        let actions = self.children(0).map(|i| self.nodes[i].action);
        match self.gumbel_policy() {
            Some(pi) => actions
                .zip(pi)
                .map(|(a, p)| (a, (p * 65536.0).round() as u32))
                .filter(|&(_, w)| w > 0)
                .collect(),
            None if self.forced.0 > 0.0 && self.noised => {
                self.pruned_target(self.forced.0, self.forced.1)
            }
            None => actions
                .zip(self.children(0).map(|i| self.nodes[i].visits))
                .filter(|&(_, n)| n > 0)
                .collect(),
        }
    }

    /// The root's visit distribution as `(action, probability)` pairs.
    pub fn policy(&self) -> Vec<(Action, f32)> {
        let total: u32 = self.children(0).map(|i| self.nodes[i].visits).sum();
        self.children(0)
            .map(|i| {
                let n = &self.nodes[i];
                (n.action, n.visits as f32 / total.max(1) as f32)
            })
            .collect()
    }

    /// The move to play, the one rule for every caller: a proven win for the mover at
    /// once (the quickest); at a root proven otherwise, its best proven move; else under
    /// Gumbel search the plan's choice (the best `g + logit + σ(q̂)` among the most
    /// visited; `sample` is ignored, the Gumbel draw already explores), under PUCT
    /// sampled in proportion to visits when `sample`, else the most visited (ties to the
    /// higher prior); never a proven loss while another move is not one. `None` before
    /// the root is expanded.
    pub fn choose(&self, sample: bool, rng: &mut Rng) -> Option<Action> {
        let me = self.root.to_move();
        let best_proven = (self.children(0))
            .filter_map(|i| self.nodes[i].proof.map(|p| (i, p)))
            .max_by(|(_, a), (_, b)| a.cmp_for(b, me));
        if let Some((i, p)) = best_proven
            && (p.wins(me) || self.nodes[0].proof.is_some())
        {
            return Some(self.nodes[i].action);
        }
        let pick = self.unproven_choice(sample, rng)?;
        if !Self::avoided(&self.nodes[pick], me) {
            return Some(self.nodes[pick].action);
        }
        // The usual choice is a proven loss: the most visited move that is not one.
        let open = (self.children(0)).filter(|&i| !Self::avoided(&self.nodes[i], me));
        Some(self.nodes[self.most_visited_of(open).unwrap_or(pick)].action)
    }

    /// [`Tree::choose`]'s rule before proofs: the node index of the root child chosen.
    fn unproven_choice(&self, sample: bool, rng: &mut Rng) -> Option<usize> {
        if let Some(plan) = &self.plan {
            let views = self.views(0, self.root.to_move());
            let i = plan.root.best(&views, self.nodes[0].net_value, plan.sigma);
            return self.children(0).nth(i);
        }
        let me = self.root.to_move();
        let children = self
            .children(0)
            .filter(|&i| !Self::avoided(&self.nodes[i], me));
        let total: u64 = children.clone().map(|i| self.nodes[i].visits as u64).sum();
        if sample && total > 0 {
            let mut pick = (rng.unit() * total as f64) as u64;
            for i in children {
                let n = self.nodes[i].visits as u64;
                if pick < n {
                    return Some(i);
                }
                pick -= n;
            }
        }
        self.most_visited(0)
    }

    /// The child of `node` with the most visits (ties to the higher prior).
    fn most_visited(&self, node: u32) -> Option<usize> {
        self.most_visited_of(self.children(node))
    }

    /// The node of `nodes` with the most visits (ties to the higher prior).
    fn most_visited_of(&self, nodes: impl Iterator<Item = usize>) -> Option<usize> {
        nodes.max_by(|&a, &b| {
            let (a, b) = (&self.nodes[a], &self.nodes[b]);
            a.visits.cmp(&b.visits).then(a.prior.total_cmp(&b.prior))
        })
    }

    /// The principal variation from the root: `first` (the move [`Tree::choose`] picked),
    /// then the most visited child at each node below, while it has visits.
    pub fn principal_variation(&self, first: Action) -> Vec<Action> {
        let mut pv = vec![first];
        let mut node = self.root_child(first);
        while let Some(i) = node {
            node = self
                .most_visited(i as u32)
                .filter(|&c| self.nodes[c].visits > 0);
            if let Some(c) = node {
                pv.push(self.nodes[c].action);
            }
        }
        pv
    }
}

/// A child's prior as a logit (log-probability; the softmax's shift does not matter).
fn logit(n: &Node) -> f32 {
    n.prior.max(1e-12).ln()
}

fn mean(n: &Node) -> [f32; MAX_PLAYERS] {
    if let Some(p) = n.proof {
        return p.outcome;
    }
    let mut v = [0.0; MAX_PLAYERS];
    if n.visits > 0 {
        for (x, s) in v.iter_mut().zip(n.value_sum) {
            *x = s / n.visits as f32;
        }
    }
    v
}
