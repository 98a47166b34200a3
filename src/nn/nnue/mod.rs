//! The fast evaluator: a small network over sparse features of a position, updated
//! incrementally as a search moves (the design of the NNUE evaluators of alpha-beta
//! engines), trained to follow the policy-value network's judgement
//! ([`crate::train::distill`]) and searched by [`crate::search::pvs`].
//!
//! - [`features`]: the sparse input, for any game through its encoding, and the diff
//!   of two positions' features.
//! - [`kernels`]: the integer arithmetic, scalar and AVX2 / AVX-512 (held to the scalar
//!   form bit for bit).
//! - [`net`]: the shape, the float weights, the integer [`Evaluator`] and its
//!   [`Accumulator`].
//! - [`bundle`]: the evaluator's bundle (safetensors, manifest, checksum).
//! - [`step`]: the hand-derived training step over sparse features, and Adam;
//!   [`autodiff`]: the float form as a burn module, the reference it is held to.
//!
//! [`Incremental`] is the evaluation the search enters at every node: one accumulator a
//! ply, each moved from the nearest ancestor with the same mover (features are from the
//! mover's point of view) by the features that differ. Entering a node only reads its
//! features; its accumulator is made when the search asks for its values or a
//! descendant's, so nodes the search leaves by the table or a cut-off cost no update.

pub mod autodiff;
pub mod bundle;
pub mod features;
pub mod kernels;
pub mod net;
pub mod step;

use std::sync::Arc;

pub use features::FeatureSet;
pub use net::{Accumulator, Activation, EvalShape, Evaluator, FloatNet};

use crate::games::MAX_PLAYERS;
use crate::games::Searchable;
use crate::search::pvs::Evaluation;

/// How far up the path an accumulator is looked for (plies), before a refresh.
const LOOK_BACK: usize = 4;

/// The evaluator as a search's leaf evaluation, with one accumulator a ply.
pub struct Incremental {
    eval: Arc<Evaluator>,
    scratch_encoding: Vec<f32>,
    stack: Vec<Slot>,
    /// The plies [`Incremental::make`] has to make, deepest first, with the ply each
    /// moves from.
    chain: Vec<(usize, Option<usize>)>,
    scratch: net::Scratch,
    /// Accumulators refreshed from nothing, and moved from an ancestor.
    pub counts: (u64, u64),
}

/// A ply's accumulator, its position's mover, and whether its values are made.
#[derive(Default)]
struct Slot {
    mover: usize,
    acc: Accumulator,
    ready: bool,
}

impl Incremental {
    /// An evaluation by `eval`.
    pub fn new(eval: Arc<Evaluator>) -> Incremental {
        Incremental {
            eval,
            scratch_encoding: Vec::new(),
            stack: Vec::new(),
            chain: Vec::new(),
            scratch: net::Scratch::default(),
            counts: (0, 0),
        }
    }

    /// The accumulator last entered at `ply`, made if it was not.
    pub fn accumulator(&mut self, ply: usize) -> &Accumulator {
        self.make(ply);
        &self.stack[ply].acc
    }

    /// The ply whose accumulator `ply`'s moves from: the nearest within [`LOOK_BACK`]
    /// with the same mover.
    fn base(&self, ply: usize) -> Option<usize> {
        let mover = self.stack[ply].mover;
        (ply.saturating_sub(LOOK_BACK)..ply)
            .rev()
            .find(|&b| self.stack[b].mover == mover)
    }

    /// Makes `ply`'s accumulator, and first those of the ancestors it moves from.
    fn make(&mut self, ply: usize) {
        let mut chain = std::mem::take(&mut self.chain);
        chain.clear();
        let mut at = Some(ply);
        while let Some(p) = at.filter(|&p| !self.stack[p].ready) {
            at = self.base(p);
            chain.push((p, at));
        }
        for &(p, base) in chain.iter().rev() {
            let (below, here) = self.stack.split_at_mut(p);
            match base {
                Some(b) => {
                    self.eval
                        .update(&below[b].acc, &mut here[0].acc, &mut self.scratch);
                    self.counts.1 += 1;
                }
                None => {
                    self.eval.refresh(&mut here[0].acc, &mut self.scratch);
                    self.counts.0 += 1;
                }
            }
            here[0].ready = true;
        }
        self.chain = chain;
    }
}

impl<P: Searchable> Evaluation<P> for Incremental {
    fn enter(&mut self, ply: usize, state: &P) {
        if self.stack.len() <= ply {
            self.stack.resize_with(ply + 1, Default::default);
        }
        let set = self.eval.shape.features;
        let slot = &mut self.stack[ply];
        slot.mover = Searchable::to_move(state);
        slot.ready = false;
        set.fill(state, &mut self.scratch_encoding, &mut slot.acc.features);
    }

    fn values(&mut self, ply: usize) -> [f32; MAX_PLAYERS] {
        self.make(ply);
        self.eval.evaluate(&self.stack[ply].acc, &mut self.scratch)
    }

    fn value(&mut self, ply: usize) -> f32 {
        self.make(ply);
        self.eval
            .mover_value(&self.stack[ply].acc, &mut self.scratch)
    }
}
