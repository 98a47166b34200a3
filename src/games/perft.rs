//! Perft: the number of leaf positions `depth` actions ahead, for any [`Game`].
//!
//! A finished game has no moves, so a terminal position reached before `depth` counts
//! nothing. Copy-make: each child is a clone, which is cheap for the compact states here.

use super::{Action, Game};

/// Counts leaves at `depth`. Allocates one action buffer per level, not per node.
pub fn perft<G: Game>(state: &G, depth: u32) -> u64 {
    let mut buffers: Vec<Vec<Action>> = (0..depth).map(|_| Vec::with_capacity(512)).collect();
    perft_with(state, depth, &mut buffers)
}

fn perft_with<G: Game>(state: &G, depth: u32, buffers: &mut [Vec<Action>]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (buf, rest) = buffers.split_first_mut().expect("one buffer per level");
    state.legal_actions(buf);
    if depth == 1 {
        return buf.len() as u64;
    }
    let mut total = 0;
    for &a in buf.iter() {
        let mut child = state.clone();
        child
            .apply(a)
            .expect("legal_actions returned an action that apply refused");
        total += perft_with(&child, depth - 1, rest);
    }
    total
}
