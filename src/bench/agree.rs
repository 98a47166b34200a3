//! How closely a low-precision forward follows the float one, its reference: on the same
//! positions, how often it keeps the float forward's best legal move, how far its values
//! stray, and, where it picks another move, how far that move's float logit is below the
//! best one (a miss between two near-equal moves costs a search nothing).

use serde::Serialize;

use crate::agents::Baselines;
use crate::arena::record::RecordedGame;
use crate::games::Game;
use crate::nn::Net;
use crate::nn::kernels::forward::Forward;
use crate::rng::Rng;

/// The float logit gaps [`Agreement::misses_within`] counts misses under.
pub const GAPS: [f32; 4] = [0.01, 0.02, 0.05, 0.1];

/// One forward against the float forward on a set of positions.
#[derive(Debug, Clone, Serialize)]
pub struct Agreement {
    /// The forward that ran ([`Forward::name`]).
    pub forward: &'static str,
    /// Positions compared.
    pub positions: usize,
    /// The share of positions where it keeps the float forward's best legal move.
    pub top1: f64,
    /// Positions where it picks another move than the float forward.
    #[serde(skip)]
    pub misses: usize,
    /// The 99th percentile of the differences of a player's value.
    pub value_p99: f32,
    /// The largest such difference.
    pub value_max: f32,
    /// Misses whose move's float logit is within each of [`GAPS`] of the best one.
    pub misses_within: Vec<usize>,
    /// The largest such gap (0 without a miss).
    pub largest_gap: f32,
}

/// `forward` against `float` (a network on the float forward) on `states`.
pub fn agreement<G: Game>(float: &Net, states: &[G], forward: Forward) -> Agreement {
    let net = float.clone().on(forward);
    let len = net.shape.input_len();
    let (mut same, mut diffs, mut gaps, mut legal) = (0usize, Vec::new(), Vec::new(), Vec::new());
    for chunk in states.chunks(64) {
        let mut input = vec![0.0; chunk.len() * len];
        for (s, x) in chunk.iter().zip(input.chunks_mut(len)) {
            s.encode(x);
        }
        let (a, b) = (
            net.infer(input.clone(), chunk.len()),
            float.infer(input, chunk.len()),
        );
        let actions = a.logits.len() / chunk.len();
        let players = a.values.len() / chunk.len();
        for (i, s) in chunk.iter().enumerate() {
            s.legal_actions(&mut legal);
            let row = i * actions..(i + 1) * actions;
            let (la, lb) = (&a.logits[row.clone()], &b.logits[row]);
            let best = |l: &[f32]| {
                *(legal.iter())
                    .max_by(|&&x, &&y| l[x as usize].total_cmp(&l[y as usize]))
                    .expect("a running game has a legal move")
            };
            let (mine, theirs) = (best(la), best(lb));
            if mine == theirs {
                same += 1;
            } else {
                gaps.push(lb[theirs as usize] - lb[mine as usize]);
            }
            let values = i * players..(i + 1) * players;
            diffs.extend(
                (a.values[values.clone()].iter())
                    .zip(&b.values[values])
                    .map(|(x, y)| (x - y).abs()),
            );
        }
    }
    diffs.sort_by(f32::total_cmp);
    Agreement {
        forward: net.forward_kind(),
        positions: states.len(),
        top1: same as f64 / states.len().max(1) as f64,
        misses: gaps.len(),
        value_p99: diffs.get(diffs.len() * 99 / 100).copied().unwrap_or(0.0),
        value_max: diffs.last().copied().unwrap_or(0.0),
        misses_within: GAPS
            .iter()
            .map(|&g| gaps.iter().filter(|&&x| x <= g).count())
            .collect(),
        largest_gap: gaps.iter().copied().fold(0.0, f32::max),
    }
}

/// `count` positions from games where each side plays its greedy move, or a random one a
/// fifth of the time (so that the games differ), whole games until the count is reached.
pub fn greedy_positions<G: Baselines>(start: &G, count: usize, seed: u64) -> Vec<G> {
    let mut rng = Rng::new(seed);
    let (mut out, mut legal) = (Vec::new(), Vec::new());
    while out.len() < count {
        let mut s = start.clone();
        while s.outcome().is_none() && out.len() < count && s.ply() < 300 {
            out.push(s.clone());
            s.legal_actions(&mut legal);
            let a = match rng.unit() < 0.2 {
                true => rng.choose(&legal).expect("a running game has a legal move"),
                false => s.greedy_action(&mut rng),
            };
            s.apply(a).expect("a legal move");
        }
    }
    out
}

/// Every position of the recorded `games` where a move is to be made, at most `count`.
pub fn recorded_positions<G: Game>(
    start: &G,
    games: &[RecordedGame],
    count: usize,
) -> anyhow::Result<Vec<G>> {
    let mut out = Vec::new();
    for game in games {
        let line = game.replay(start)?.into_iter().map(|(_, s)| s);
        out.extend(line.filter(|s| s.outcome().is_none()));
        if out.len() >= count {
            break;
        }
    }
    out.truncate(count);
    Ok(out)
}
