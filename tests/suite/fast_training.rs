//! The fast training step (`nn::step::backprop`, what `Trainer::step` runs on the CPU) against
//! burn's autodiff step, for every game's network: the gradient of every parameter and
//! the batch norms' running statistics after a step, then 100 steps of each from the
//! same weights and batches; and checkpoints written by either path load in the other.
//!
//! The weights are seeded, so every run checks the same numbers. ReLU has a kink at 0:
//! a unit whose input lies within float rounding of 0 can fall on either side in two
//! implementations (or in the fast step on 1 and on 2 threads), and then one position's
//! gradient takes another path, which moves a layer's gradient by up to ~1e-2. With
//! ~10⁵ units a step that happens in a few percent of random draws; these weights and
//! batches have none.

use std::collections::BTreeMap;
use std::sync::Arc;

use burn::module::Module;
use contagion::bench::sample_positions;
use contagion::config::TrainConfig;
use contagion::games::Game;
use contagion::games::ataxx::Ataxx;
use contagion::games::chexers::Chexers;
use contagion::games::infexion::Board;
use contagion::nn::step::train_step::{named_gradients, named_tensors};
use contagion::nn::{Aux, Heads, NetShape};
use contagion::rng::Rng;
use contagion::selfplay::{Sample, Trace};
use contagion::train::{Batch, Trainer, make_batch};

use crate::bundle::Seeded;

/// Training samples from real positions, with random legal policy targets (one or two
/// actions) and random results.
fn samples<G: Game>(start: &G, count: usize, seed: u64) -> Vec<Sample<G>> {
    let mut rng = Rng::new(seed);
    let mut legal = Vec::new();
    sample_positions(start, count, 12, seed)
        .into_iter()
        .filter(|s| s.outcome().is_none())
        .map(|state| {
            state.legal_actions(&mut legal);
            let mut policy = vec![(legal[rng.below(legal.len())], 0.7)];
            let other = legal[rng.below(legal.len())];
            match policy[0].0 == other {
                true => policy[0].1 = 1.0,
                false => policy.push((other, 0.3)),
            }
            let mut outcome = [-1.0; 3];
            outcome[rng.below(start.num_players())] = 1.0;
            // A later position of a random continuation, for the ownership target.
            let mut end = state.clone();
            for _ in 0..6 {
                end.legal_actions(&mut legal);
                if end.outcome().is_some() || legal.is_empty() {
                    break;
                }
                end.apply(legal[rng.below(legal.len())]).unwrap();
            }
            // The short-term target: a random lead for each player, inside (-1, 1), held
            // by every position of a long game.
            let short_value = [0, 1, 2].map(|_| rng.below(19) as f32 / 10.0 - 0.9);
            let trace = Trace {
                end,
                outcome,
                scores: vec![Some(short_value); 64],
            };
            Sample {
                state,
                policy,
                outcome,
                game: Some((Arc::new(trace), 0)),
            }
        })
        .collect()
}

fn batches<G: Game>(data: &[Sample<G>], shape: &NetShape, size: usize, n: usize) -> Vec<Batch> {
    let mut rng = Rng::new(3);
    (0..n)
        .map(|_| {
            let refs: Vec<&Sample<G>> = (0..size).map(|_| &data[rng.below(data.len())]).collect();
            make_batch(&refs, shape, &TrainConfig::default(), &mut rng)
        })
        .collect()
}

/// The largest difference between `a` and `b` over the largest magnitude in `b`.
fn relative(a: &[f32], b: &[f32]) -> f64 {
    assert_eq!(a.len(), b.len());
    let scale = b.iter().fold(1e-12f64, |m, &v| m.max(v.abs() as f64));
    let diff = (a.iter().zip(b)).fold(0.0f64, |m, (&x, &y)| m.max((x - y).abs() as f64));
    diff / scale
}

fn compare(what: &str, fast: &BTreeMap<String, Vec<f32>>, burn: &BTreeMap<String, Vec<f32>>) {
    assert_eq!(
        fast.keys().collect::<Vec<_>>(),
        burn.keys().collect::<Vec<_>>(),
        "{what}: the same tensors"
    );
    let max = (burn.iter()).fold(0.0f64, |m, (name, b)| m.max(relative(&fast[name], b)));
    eprintln!("{what}: largest relative difference {max:.1e}");
    let worst: Vec<String> = (burn.iter())
        .map(|(name, b)| (name, relative(&fast[name], b)))
        .filter(|&(_, r)| r > 1e-4)
        .map(|(name, r)| format!("{name} {r:.2e}"))
        .collect();
    assert!(worst.is_empty(), "{what}: relative differences {worst:?}");
}

/// A pair of trainers from the same seeded weights: the fast step on `threads` threads,
/// and burn's autodiff.
fn pair(shape: &NetShape, threads: usize, config: &TrainConfig) -> (Trainer, Trainer) {
    let config = TrainConfig {
        threads,
        ..config.clone()
    };
    let fresh = Trainer::new(shape.clone(), &config).unwrap();
    let model = fresh.model().clone().map(&mut Seeded(Rng::new(1)));
    let model = contagion::nn::formats::checkpoint::model_bytes(&model).unwrap();
    let fast = Trainer::restore(shape.clone(), &config, &model, &[], 0).unwrap();
    let burn = Trainer::restore(shape.clone(), &config, &model, &[], 0)
        .unwrap()
        .with_autodiff();
    (fast, burn)
}

/// Every auxiliary head.
const ALL: Heads = Heads::ALL;

/// The loss weights of a run with the auxiliary heads `shape` has.
fn weights(shape: &NetShape) -> TrainConfig {
    let on = |head: bool, weight: f64| if head { weight } else { 0.0 };
    TrainConfig {
        ownership_weight: on(shape.has(Aux::Ownership), 1.5),
        margin_weight: on(shape.has(Aux::Margin), 0.7),
        short_value_weight: on(shape.has(Aux::ShortValue), 0.4),
        soft_policy_weight: on(shape.has(Aux::SoftPolicy), 8.0),
        ..TrainConfig::default()
    }
}

/// The fast step against burn's on `start`'s network, with the auxiliary heads `heads`
/// and global pooling where `global_pool` says.
fn check<G: Game>(start: &G, (blocks, channels): (usize, usize), heads: Heads, global_pool: bool) {
    let shape = NetShape {
        global_pool,
        ..NetShape::for_game(start, blocks, channels, 16).with_heads(heads)
    };
    let pools = (0..blocks).filter(|&i| shape.pools(i)).count();
    assert_eq!(pools > 0, global_pool, "a block that pools");
    let data = samples(start, 48, 21);
    // Batch 9 on 2 threads: shards of unequal size.
    for (threads, size) in [(1, 8), (2, 9)] {
        let (mut fast, mut burn) = pair(&shape, threads, &weights(&shape));
        assert_eq!(fast.threads(), threads);
        for (i, b) in batches(&data, &shape, size, 3).iter().enumerate() {
            let (lf, gf) = fast.gradients(b);
            let (lb, gb) = burn.gradients(b);
            let what = format!(
                "{} {blocks}x{channels}, {threads} thread(s), batch {i}",
                start.name()
            );
            eprintln!("{what}: loss {:.6} (fast) {:.6} (burn)", lf.total, lb.total);
            assert!(
                (lf.total - lb.total).abs() <= 1e-5 * lb.total.abs().max(1.0),
                "{what}"
            );
            for (aux, &on) in heads.iter() {
                let (f, b) = (lf.aux[aux], lb.aux[aux]);
                let key = aux.head().key;
                assert_eq!(f > 0.0, on, "{what}: a {key} loss");
                assert!((f - b).abs() <= 1e-5 * b.max(1.0), "{what}: {key} {f} {b}");
            }
            let (named_f, named_b) = (
                named_gradients(fast.model(), &gf),
                named_gradients(burn.model(), &gb),
            );
            // Every parameter has a gradient (running statistics have none).
            let tensors = 9 + 2 * heads.present().count() + 2 * pools;
            assert_eq!(named_b.len(), 3 * (2 * blocks + 1) + tensors, "{what}");
            compare(&format!("{what}: gradient"), &named_f, &named_b);
            compare(
                &format!("{what}: tensors after the step"),
                &named_tensors(fast.model()),
                &named_tensors(burn.model()),
            );
        }
    }
    // 100 steps each from the same weights and batches.
    // (At lr 1e-4: Adam scales every gradient element to about the learning rate, so
    // rounding differences grow; at 1e-3 the fast step on 1 and on 2 threads, which
    // differ only in the order of sums, end 2e-3 apart after 100 steps, as it does
    // from burn.)
    let config = TrainConfig {
        learning_rate: 1e-4,
        ..weights(&shape)
    };
    let (mut fast, mut burn) = pair(&shape, 2, &config);
    let mut last = (0.0, 0.0);
    for b in batches(&data, &shape, 32, 100) {
        last = (fast.step(&b).total, burn.step(&b).total);
    }
    eprintln!(
        "{}: loss after 100 steps {:.6} (fast) {:.6} (burn)",
        start.name(),
        last.0,
        last.1
    );
    // (Relative: the soft policy head's weight of 8 makes the loss ten times larger.)
    let tolerance = 3e-4 * last.1.abs().max(1.0);
    assert!(
        (last.0 - last.1).abs() <= tolerance,
        "after 100 steps: {last:?}"
    );
}

#[test]
fn fast_step_equals_autodiff_for_infexion() {
    let heads = Heads::only(&[Aux::Margin, Aux::ShortValue]);
    check(&Board::new(), (2, 16), heads, true);
}

#[test]
fn fast_step_equals_autodiff_for_ataxx() {
    check(&Ataxx::standard(), (2, 16), ALL, true);
}

#[test]
fn fast_step_equals_autodiff_for_virus() {
    check(&Ataxx::virus(), (1, 8), Heads::NONE, false);
}

#[test]
fn fast_step_equals_autodiff_for_chexers() {
    check(&Chexers::new(), (2, 16), ALL, false);
}

#[test]
fn checkpoints_from_either_path_load_in_the_other() {
    let start = Board::new();
    // Two blocks, the second with a global pooling bias.
    let shape = NetShape {
        global_pool: true,
        ..NetShape::for_game(&start, 2, 8, 8).with_heads(ALL)
    };
    let data = samples(&start, 24, 5);
    let all = batches(&data, &shape, 8, 4);
    let config = weights(&shape);
    let (mut fast, mut burn) = pair(&shape, 2, &config);
    for b in &all[..2] {
        fast.step(b);
        burn.step(b);
    }
    // Each path's checkpoint, resumed by the other: the same tensors, and training goes on.
    for (from, autodiff) in [(&fast, true), (&burn, false)] {
        let (model, optim) = from.save_bytes().unwrap();
        let mut resumed = Trainer::restore(shape.clone(), &config, &model, &optim, 2).unwrap();
        if autodiff {
            resumed = resumed.with_autodiff();
        }
        let tensors = named_tensors(from.model());
        assert!(
            tensors.contains_key("blocks.1.pool.weight"),
            "{:?}",
            tensors.keys()
        );
        assert_eq!(named_tensors(resumed.model()), tensors);
        for b in &all[2..] {
            assert!(resumed.step(b).total.is_finite());
        }
    }
}
