//! Max^n search for any number of players: every player maximises their own score.
//!
//! A node's value is a vector with one score per player; the mover picks the child whose
//! vector is best *for the mover* (the first such child on ties, in the heuristic's
//! order). Leaves at the depth limit score `Heuristic::evaluate` for each player;
//! finished games score by their outcome (`±WIN_SCORE` less the plies to reach it). No
//! pruning: max^n's shallow pruning needs bounded, constant-sum scores.

use super::Heuristic;
use super::alphabeta::WIN_SCORE;
use crate::games::{Action, Game, MAX_PLAYERS};

/// The move and score vector a max^n search found, and its node count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaxnResult {
    /// The move chosen.
    pub best: Action,
    /// The position's value for each player.
    pub scores: [f64; MAX_PLAYERS],
    /// Nodes searched.
    pub nodes: u64,
}

/// Searches `depth` plies (at least 1); `None` when the game is over.
pub fn maxn<G: Game>(state: &G, heuristic: &dyn Heuristic<G>, depth: u32) -> Option<MaxnResult> {
    let mut buffers: Vec<Vec<Action>> = (0..=depth.max(1)).map(|_| Vec::new()).collect();
    let mut nodes = 0;
    let (scores, best) = node(state, heuristic, depth.max(1), 0, &mut buffers, &mut nodes);
    best.map(|best| MaxnResult {
        best,
        scores,
        nodes,
    })
}

fn node<G: Game>(
    state: &G,
    h: &dyn Heuristic<G>,
    depth: u32,
    ply: u32,
    buffers: &mut [Vec<Action>],
    nodes: &mut u64,
) -> ([f64; MAX_PLAYERS], Option<Action>) {
    *nodes += 1;
    let n = state.num_players();
    let mut scores = [0.0; MAX_PLAYERS];
    if let Some(outcome) = state.outcome() {
        for (p, s) in scores.iter_mut().enumerate().take(n) {
            let v = outcome.value(p) as f64;
            *s = if v == 0.0 {
                h.draw_score()
            } else {
                v * (WIN_SCORE - ply as f64)
            };
        }
        return (scores, None);
    }
    if depth == 0 {
        for (p, s) in scores.iter_mut().enumerate().take(n) {
            *s = h.evaluate(state, p);
        }
        return (scores, None);
    }
    let (buf, rest) = buffers.split_first_mut().expect("a buffer per level");
    state.legal_actions(buf);
    h.order(state, buf);
    let me = state.to_move();
    let mut best: Option<(Action, [f64; MAX_PLAYERS])> = None;
    for &a in buf.iter() {
        let mut child = state.clone();
        child.apply(a).expect("legal");
        let (v, _) = node(&child, h, depth - 1, ply + 1, rest, nodes);
        if best.is_none_or(|(_, b)| v[me] > b[me]) {
            best = Some((a, v));
        }
    }
    let (a, v) = best.expect("a live position has a move");
    (v, Some(a))
}
