//! Training batches: positions drawn from the replay buffer, each under one of its
//! game's augmentation symmetries, encoded from the mover's view, with every head's
//! target (the policy's and the value's, and each auxiliary head's the network has).

use crate::config::TrainConfig;
use crate::games::Game;
use crate::nn::NetShape;
use crate::nn::heads::{Aux, Kind, PerHead};
use crate::nn::network::SOFT_POLICY_POWER;
use crate::rng::Rng;
use crate::selfplay::Sample;

/// One training batch, row-major.
pub struct Batch {
    /// Positions in the batch.
    pub size: usize,
    /// `[size, planes, height, width]` encoded positions.
    pub input: Vec<f32>,
    /// `[size, actions]` target probabilities (zero on illegal actions).
    pub policy: Vec<f32>,
    /// `[size, actions]`: 0 on legal actions, a large negative number on illegal ones.
    pub mask: Vec<f32>,
    /// `[size, players]` results relative to the mover.
    pub value: Vec<f32>,
    /// Each auxiliary head's targets, [`target_len`] a position (empty for a network
    /// without the head; see [`aux_target`]).
    pub aux: PerHead<Vec<f32>>,
}

const ILLEGAL: f32 = -1.0e9;

/// A batch of the samples, each under a random one of its game's augmentation
/// symmetries, with the targets `train` asks for.
pub fn make_batch<G: Game>(
    samples: &[&Sample<G>],
    shape: &NetShape,
    train: &TrainConfig,
    rng: &mut Rng,
) -> Batch {
    batch_with(samples, shape, train, |s| {
        rng.below(s.state.augmentation_symmetries().max(1))
    })
}

/// The batch with every sample as it is (symmetry 0), for measuring on fixed data.
pub fn make_plain_batch<G: Game>(
    samples: &[&Sample<G>],
    shape: &NetShape,
    train: &TrainConfig,
) -> Batch {
    batch_with(samples, shape, train, |_| 0)
}

/// The length of one position's targets of the auxiliary head `aux`, by its kind:
/// `[cells, classes]`, `[players]` or `[actions]`.
pub fn target_len(shape: &NetShape, aux: Aux) -> usize {
    match aux.head().kind {
        Kind::Cells => shape.cells() * shape.head_width(aux),
        Kind::Dense => shape.num_players,
        Kind::Policy => shape.actions(),
    }
}

/// The batch with sample `s` under symmetry `sym_of(s)`.
fn batch_with<G: Game>(
    samples: &[&Sample<G>],
    shape: &NetShape,
    train: &TrainConfig,
    mut sym_of: impl FnMut(&Sample<G>) -> usize,
) -> Batch {
    let (len, na, np) = (shape.input_len(), shape.actions(), shape.num_players);
    let size = samples.len();
    let mut b = Batch {
        size,
        input: vec![0.0; size * len],
        policy: vec![0.0; size * na],
        mask: vec![ILLEGAL; size * na],
        value: vec![0.0; size * np],
        aux: PerHead::from_fn(|a| {
            vec![
                0.0;
                if shape.has(a) {
                    size * target_len(shape, a)
                } else {
                    0
                }
            ]
        }),
    };
    let mut legal = Vec::new();
    for (i, s) in samples.iter().enumerate() {
        let sym = sym_of(s);
        let state = s.state.transform(sym);
        state.encode(&mut b.input[i * len..(i + 1) * len]);
        state.legal_actions(&mut legal);
        for &a in &legal {
            b.mask[i * na + a as usize] = 0.0;
        }
        for &(a, p) in &s.policy {
            b.policy[i * na + s.state.transform_action(a, sym) as usize] = p;
        }
        // Relative to the mover of the stored position: a symmetry that relabels the
        // seats (the Chexers rotations) moves the mover and its result alike.
        let mover = s.state.to_move();
        for rel in 0..np {
            b.value[i * np + rel] = s.outcome[(mover + rel) % np];
        }
        let policy = &b.policy[i * na..(i + 1) * na];
        for head in shape.heads.present() {
            let n = target_len(shape, head.aux);
            let out = &mut b.aux[head.aux][i * n..(i + 1) * n];
            aux_target(head.aux, s, (&state, sym), (policy, train), out);
        }
    }
    b
}

/// Sample `s`'s target for the auxiliary head `aux` under symmetry `sym` (`state` is
/// its position under it), into `out` (zeros, [`target_len`] long), relative to the
/// mover; `policy` is its policy target under `sym`, `train` the head's settings. A
/// sample without its game behind it leaves the ownership and margin targets at zero.
pub fn aux_target<G: Game>(
    aux: Aux,
    s: &Sample<G>,
    (state, sym): (&G, usize),
    (policy, train): (&[f32], &TrainConfig),
    out: &mut [f32],
) {
    let np = s.state.num_players();
    let mover = s.state.to_move();
    match aux {
        // Who holds each cell at the end, one-hot over nobody and each player from the
        // mover on (the mover after the symmetry, which may relabel the seats).
        Aux::Ownership => {
            let Some(end) = s.end() else { return };
            let owners = end.transform(sym).owners().unwrap_or_default();
            let mover = state.to_move();
            // The class count is the target's own ([`target_len`]: the head's width).
            let classes = out.len() / owners.len().max(1);
            for (cell, &code) in owners.iter().enumerate() {
                let class = match code as usize {
                    0 => 0,
                    p => 1 + (p - 1 + np - mover) % np,
                };
                out[cell * classes + class] = 1.0;
            }
        }
        // The game's final score vector.
        Aux::Margin => {
            if let Some(score) = s.end().and_then(|end| end.score_vector()) {
                for (rel, t) in out.iter_mut().enumerate() {
                    *t = score.0[(mover + rel) % np];
                }
            }
        }
        // The score vector `train.short_value_plies` plies ahead, or the recorded
        // outcome where the game ends sooner.
        Aux::ShortValue => {
            let later = s.ahead(train.short_value_plies as usize);
            for (rel, t) in out.iter_mut().enumerate() {
                *t = later[(mover + rel) % np];
            }
        }
        // The policy target raised to a power below 1, normalised.
        Aux::SoftPolicy => {
            for (t, &p) in out.iter_mut().zip(policy) {
                *t = p.powf(SOFT_POLICY_POWER);
            }
            let sum: f32 = out.iter().sum();
            out.iter_mut().for_each(|t| *t /= sum);
        }
    }
}
