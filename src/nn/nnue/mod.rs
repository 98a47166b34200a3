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
//!
//! [`Incremental`] is the evaluation the search enters at every node: one accumulator a
//! ply, each moved from the nearest ancestor with the same mover (features are from the
//! mover's point of view) by the features that differ.

pub mod bundle;
pub mod features;
pub mod kernels;
pub mod net;

use std::sync::Arc;

pub use net::{Accumulator, EvalShape, Evaluator, FloatNet};

use crate::games::MAX_PLAYERS;
use crate::search::endgame::Position;
use crate::search::pvs::{Evaluation, Node};

/// How far up the path an accumulator is looked for (plies), before a refresh.
const LOOK_BACK: usize = 4;

/// The evaluator as a search's leaf evaluation, with one accumulator a ply.
pub struct Incremental {
    eval: Arc<Evaluator>,
    scratch_encoding: Vec<f32>,
    stack: Vec<(usize, Accumulator)>,
    scratch: net::Scratch,
    /// Accumulators refreshed from nothing, and moved from an ancestor.
    pub counts: (u64, u64),
}

impl Incremental {
    /// An evaluation by `eval`.
    pub fn new(eval: Arc<Evaluator>) -> Incremental {
        Incremental {
            eval,
            scratch_encoding: Vec::new(),
            stack: Vec::new(),
            scratch: net::Scratch::default(),
            counts: (0, 0),
        }
    }

    /// The accumulator last entered at `ply`.
    pub fn accumulator(&self, ply: usize) -> &Accumulator {
        &self.stack[ply].1
    }
}

impl<P: Node> Evaluation<P> for Incremental {
    fn enter(&mut self, ply: usize, state: &P) {
        if self.stack.len() <= ply {
            self.stack.resize_with(ply + 1, Default::default);
        }
        let mover = Position::to_move(state);
        let (below, here) = self.stack.split_at_mut(ply);
        let (m, acc) = &mut here[0];
        *m = mover;
        state.features(&mut self.scratch_encoding, &mut acc.features);
        let base = (below.iter().rev().take(LOOK_BACK)).find(|(m, _)| *m == mover);
        match base {
            Some((_, base)) => {
                self.eval.update(base, acc, &mut self.scratch);
                self.counts.1 += 1;
            }
            None => {
                self.eval.refresh(acc);
                self.counts.0 += 1;
            }
        }
    }

    fn values(&mut self, ply: usize) -> [f32; MAX_PLAYERS] {
        self.eval.evaluate(&self.stack[ply].1, &mut self.scratch)
    }
}
