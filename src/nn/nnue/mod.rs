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
//! - [`graft`]: an evaluator's weights carried into a shape that reads the 2×2 windows
//!   too.
//! - [`step`]: the hand-derived training step over sparse features, and Adam;
//!   [`autodiff`]: the float form as a burn module, the reference it is held to.
//!
//! [`Incremental`] is the evaluation the search enters at every node: one accumulator a
//! ply and view, each moved by the features that differ from the nearest ancestor's of
//! the same seat's view (the mover's, so two plies up in a game of two; in the
//! perspective form every seat's, so the parent's). Near the root, where no ancestor
//! has the view, it moves from the accumulator the same ply held last (a sibling's, or
//! the last search's root), not from nothing: a position of a large board has hundreds
//! of features where a move changes a few dozen. Entering a node only reads its
//! features; its accumulator is made when the search asks for its values or a
//! descendant's, so nodes the search leaves by the table or a cut-off cost no update.

pub mod autodiff;
pub mod bundle;
pub mod features;
pub mod graft;
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

/// The evaluator as a search's leaf evaluation, with one accumulator a ply and view.
pub struct Incremental {
    eval: Arc<Evaluator>,
    scratch_encoding: Vec<f32>,
    stack: Vec<Slot>,
    /// The accumulators [`Incremental::make`] has to make, deepest first, each as
    /// (ply, view), with the one it moves from.
    chain: Vec<(View, Option<View>)>,
    scratch: net::Scratch,
    /// Accumulators refreshed from nothing, and moved from an ancestor.
    pub counts: (u64, u64),
}

/// An accumulator on the path: its ply and its place among the ply's views.
type View = (usize, usize);

/// A ply's accumulators (the mover's view, or in the perspective form one a seat: the
/// mover's first), the seat whose view each reads, and whether each is made; and where
/// no ancestor has a view, the accumulator of it the ply made last and whose view that
/// is (`None`: none kept).
#[derive(Default)]
struct Slot {
    accs: Vec<Accumulator>,
    seats: [usize; MAX_PLAYERS],
    ready: [bool; MAX_PLAYERS],
    last: Vec<Accumulator>,
    last_seats: [Option<usize>; MAX_PLAYERS],
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

    /// The accumulators last entered at `ply` (the mover's view first), made if they
    /// were not.
    pub fn accumulators(&mut self, ply: usize) -> &[Accumulator] {
        self.make(ply);
        &self.stack[ply].accs
    }

    /// The accumulator `view`'s moves from: the nearest ply within [`LOOK_BACK`] with
    /// one of the same seat's view.
    fn base(&self, (ply, k): View) -> Option<View> {
        let seat = self.stack[ply].seats[k];
        (ply.saturating_sub(LOOK_BACK)..ply).rev().find_map(|b| {
            let slot = &self.stack[b];
            let j = slot.seats[..slot.accs.len()]
                .iter()
                .position(|&s| s == seat)?;
            Some((b, j))
        })
    }

    /// Makes `ply`'s accumulators, and first those of the ancestors they move from.
    fn make(&mut self, ply: usize) {
        for k in 0..self.stack[ply].accs.len() {
            self.make_view((ply, k));
        }
    }

    /// Makes `view`'s accumulator, and first those it moves from.
    fn make_view(&mut self, view: View) {
        let mut chain = std::mem::take(&mut self.chain);
        chain.clear();
        let mut at = Some(view);
        while let Some(v) = at.filter(|&(p, k)| !self.stack[p].ready[k]) {
            at = self.base(v);
            chain.push((v, at));
        }
        for &((p, k), base) in chain.iter().rev() {
            let (below, here) = self.stack.split_at_mut(p);
            let Slot {
                accs,
                seats,
                ready,
                last,
                last_seats,
            } = &mut here[0];
            let acc = &mut accs[k];
            match base {
                Some((b, j)) => {
                    (self.eval).update(&below[b].accs[j], acc, &mut self.scratch);
                    self.counts.1 += 1;
                }
                None if last_seats[k] == Some(seats[k]) => {
                    (self.eval).update(&last[k], acc, &mut self.scratch);
                    self.counts.1 += 1;
                }
                None => {
                    self.eval.refresh(acc, &mut self.scratch);
                    self.counts.0 += 1;
                }
            }
            ready[k] = true;
        }
        self.chain = chain;
    }
}

impl<P: Searchable> Evaluation<P> for Incremental {
    fn enter(&mut self, ply: usize, state: &P) {
        if self.stack.len() <= ply {
            self.stack.resize_with(ply + 1, Default::default);
        }
        let (set, views) = (self.eval.shape.features, self.eval.shape.views());
        let slot = &mut self.stack[ply];
        if slot.accs.len() != views {
            slot.accs.resize_with(views, Default::default);
            slot.last.resize_with(views, Default::default);
        }
        let ready = std::mem::replace(&mut slot.ready, [false; MAX_PLAYERS]);
        for (k, &made) in ready.iter().enumerate().take(views) {
            let slot = &mut self.stack[ply];
            let was = slot.seats[k];
            slot.seats[k] = features::viewer(state, k);
            // Where no ancestor has the view, the one made here last is kept to move from.
            if made && self.base((ply, k)).is_none() {
                let slot = &mut self.stack[ply];
                std::mem::swap(&mut slot.accs[k], &mut slot.last[k]);
                slot.last_seats[k] = Some(was);
            }
            let slot = &mut self.stack[ply];
            let acc = &mut slot.accs[k];
            set.fill_seen(
                state,
                slot.seats[k],
                &mut self.scratch_encoding,
                &mut acc.features,
            );
        }
    }

    fn values(&mut self, ply: usize) -> [f32; MAX_PLAYERS] {
        self.make(ply);
        self.eval.evaluate(&self.stack[ply].accs, &mut self.scratch)
    }

    fn value(&mut self, ply: usize) -> f32 {
        self.make(ply);
        self.eval
            .mover_value(&self.stack[ply].accs, &mut self.scratch)
    }
}
