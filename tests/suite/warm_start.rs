//! A run whose first network is a trained model (`run.init`): the layers kept exactly,
//! batch norms rebased so that training starts from what the model computes, a model grown
//! to a larger network without changing what it computes, and shapes that do not fit
//! refused.

use crate::bundle;
use crate::process;
use process::{temp_dir, test_config, text, train};

use burn::tensor::{Tensor, TensorData};
use contagion::bench::sample_positions;
use contagion::config::TrainConfig;
use contagion::games::infexion::Board;
use contagion::nn::formats::checkpoint::{Checkpoint, load_model, load_net, model_bytes};
use contagion::nn::step::train_step::named_gradients;
use contagion::nn::{Aux, Heads, Net, NetShape, PolicyValueNet, warm};
use contagion::rng::Rng;
use contagion::selfplay::Sample;
use contagion::train::{Batch, Trainer, make_plain_batch};

/// Infexion positions from random play (3, 12 and 40 plies in, none finished), each with
/// a random legal move and winner.
fn samples(count: usize, seed: u64) -> Vec<Sample<Board>> {
    let states = [3, 12, 40]
        .iter()
        .flat_map(|&ply| sample_positions(&Board::new(), count / 3, ply, seed + ply as u64))
        .filter(|s| s.outcome().is_none())
        .collect();
    bundle::samples(states, &mut Rng::new(seed))
}

/// The largest difference between two nets' outputs on `data`.
fn max_difference(a: &Net, b: &Net, data: &[Sample<Board>]) -> f32 {
    let refs: Vec<&Sample<Board>> = data.iter().collect();
    let input = make_plain_batch(&refs, &a.shape, &TrainConfig::default()).input;
    let (x, y) = (
        a.infer(input.clone(), data.len()),
        b.infer(input, data.len()),
    );
    let pairs = x.logits.iter().zip(&y.logits);
    pairs
        .chain(x.values.iter().zip(&y.values))
        .map(|(p, q)| (p - q).abs())
        .fold(0.0, f32::max)
}

/// `model`'s batch norms rebased to the statistics of `batch`.
fn rebase_on(model: &mut PolicyValueNet, shape: &NetShape, batch: &Batch) {
    let dims = [batch.size, shape.in_planes, shape.height, shape.width];
    let x = Tensor::<4>::from_data(
        TensorData::new(batch.input.clone(), dims),
        &contagion::nn::device(),
    );
    warm::rebase_batch_norms(model, x);
}

#[test]
fn rebased_batch_norms_keep_the_network_and_train_from_it() {
    let dir = temp_dir("rebase");
    let data = samples(240, 7);
    let (trained, bundle) = bundle::export_trained(&Board::new(), (2, 16), &data, 40, &dir);
    let (shape, mut model) = load_model(&bundle).unwrap();
    let refs: Vec<&Sample<Board>> = data.iter().collect();
    let batch = make_plain_batch(&refs, &shape, &TrainConfig::default());
    let config = TrainConfig::default();
    let train_mode = |model: &contagion::nn::PolicyValueNet| {
        let bytes = model_bytes(model).unwrap();
        let mut t = Trainer::restore(shape.clone(), &config, &bytes, &[], 0).unwrap();
        let inference = t.evaluate(&batch);
        let (train, _) = t.gradients(&batch);
        (inference.policy, inference.value, train.policy, train.value)
    };
    // Folded into the convolutions, the norms compute the model at inference but not
    // under a batch's own statistics (the losses, means over the batch, differ in the
    // third decimal for these seeded weights; rebased, in the fifth at most).
    let (p, v, tp, tv) = train_mode(&model);
    assert!(
        (p - tp).abs() > 2e-3 || (v - tv).abs() > 2e-3,
        "the unrebased norms already agree: {p} {v} / {tp} {tv}"
    );
    rebase_on(&mut model, &shape, &batch);
    let rebased = Net::new(shape.clone(), &model);
    let unseen = samples(90, 11);
    let diff = max_difference(&rebased, &trained, &unseen);
    assert!(diff < 1e-3, "rebasing changed the network by {diff}");
    let (p, v, tp, tv) = train_mode(&model);
    assert!(
        (p - tp).abs() < 1e-4 && (v - tv).abs() < 1e-4,
        "train mode on the rebasing batch: {p} {v} / {tp} {tv}"
    );
}

#[test]
fn a_run_starts_from_a_bundle_and_refuses_one_that_does_not_fit() {
    let dir = temp_dir("init");
    let data = samples(240, 7);
    // The test config's network: 1 block of 8 channels (value head 16 here).
    let (source, bundle) = bundle::export_trained(&Board::new(), (1, 8), &data, 20, &dir);
    let init = format!("run.init={}", bundle.display());
    let sets = [
        "--set",
        &init,
        "--set",
        "network.value_hidden=16",
        "--set",
        "train.ownership_weight=1.5",
    ];
    // No training in the first iteration: its checkpoint holds the first network.
    let untrained = [
        "--set",
        "replay.min_positions=100000",
        "--set",
        "gating.games=0",
    ];
    let o = train(&test_config(), &dir, &[&sets[..], &untrained].concat());
    assert!(o.status.success(), "{}", text(&o));
    let run = dir.join("test-run");
    let first = Checkpoint::load(&run.join("ckpt-000001.ckpt")).unwrap();
    assert!(first.shape.has(Aux::Ownership) && first.state.steps == 0);
    let net = first.net().unwrap();
    let diff = max_difference(&net, &source, &samples(90, 11));
    assert!(
        diff < 1e-4,
        "the first network differs from the bundle by {diff}"
    );

    // A run that trains from it: the norms rebased, then real steps.
    let o = train(&test_config(), &dir, &[&sets[..], &["--fresh"]].concat());
    assert!(o.status.success(), "{}", text(&o));
    let last = Checkpoint::load(&run.join("ckpt-000001.ckpt")).unwrap();
    assert!(last.state.steps > 0, "{:?}", last.state);
    assert!(load_net(&run).is_ok());
    // Its bundle names the model it started from.
    let exported = dir.join("exported");
    let o = process::contagion(&[
        "export",
        "--checkpoint",
        run.to_str().unwrap(),
        "--out",
        exported.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let manifest = std::fs::read_to_string(exported.join("manifest.json")).unwrap();
    let manifest: serde_json::Value = serde_json::from_str(&manifest).unwrap();
    let from = &manifest["provenance"]["started_from"];
    assert_eq!(from.as_str(), Some(bundle.to_str().unwrap()), "{from}");

    // A larger network starts as the model, grown.
    let grown = dir.join("grown");
    let larger = ["--set", "network.blocks=2", "--set", "network.channels=12"];
    let o = train(
        &test_config(),
        &grown,
        &[&sets[..], &larger, &untrained].concat(),
    );
    assert!(o.status.success(), "{}", text(&o));
    let first = Checkpoint::load(&grown.join("test-run/ckpt-000001.ckpt")).unwrap();
    assert_eq!((first.shape.blocks, first.shape.channels), (2, 12));
    let diff = max_difference(&first.net().unwrap(), &source, &samples(90, 11));
    assert!(diff < 1e-4, "the grown network differs by {diff}");

    // A smaller network, or one of another kind, is refused.
    for (set, shown) in [
        ("network.channels=4", "1x4"),
        ("network.value_hidden=32", "x32)"),
    ] {
        let other = dir.join(set);
        let o = train(&test_config(), &other, &["--set", &init, "--set", set]);
        assert!(!o.status.success(), "{set}");
        let err = text(&o);
        assert!(
            err.contains("run.init") && err.contains("1x8") && err.contains(shown),
            "{set}: {err}"
        );
        // The refused run saved no network: the config that fits starts it.
        let o = train(&test_config(), &other, &[&sets[..], &untrained].concat());
        assert!(
            o.status.success(),
            "{set} then the fitting network: {}",
            text(&o)
        );
    }
}

#[test]
fn a_grown_network_computes_what_it_did_and_its_new_parts_learn_at_once() {
    let dir = temp_dir("grow");
    let data = samples(240, 7);
    let (trained, _) = bundle::export_trained(&Board::new(), (1, 8), &data, 40, &dir);
    // The checkpoint: batch norms with the statistics training gave them.
    let (source, model) = load_model(&dir.join("ckpt-000003.ckpt")).unwrap();
    let refs: Vec<&Sample<Board>> = data.iter().collect();
    let unseen = samples(90, 11);
    let config = TrainConfig {
        ownership_weight: 1.0,
        ..TrainConfig::default()
    };
    for (blocks, channels) in [(3, 8), (1, 16), (2, 12)] {
        let shape = NetShape {
            blocks,
            channels,
            ..source.clone()
        }
        .with_heads(Heads::only(&[Aux::Ownership]));
        let size = format!("{blocks}x{channels}");
        let mut grown = warm::start_from(&shape, &source, model.clone()).unwrap();
        let diff = max_difference(&Net::new(shape.clone(), &grown), &trained, &unseen);
        assert!(diff < 1e-4, "{size}: grown, the network differs by {diff}");

        // Under a batch's own statistics too, once the norms are rebased.
        let batch = make_plain_batch(&refs, &shape, &TrainConfig::default());
        rebase_on(&mut grown, &shape, &batch);
        let bytes = model_bytes(&grown).unwrap();
        let mut t = Trainer::restore(shape.clone(), &config, &bytes, &[], 0).unwrap();
        let inference = t.evaluate(&batch);
        let (train, grads) = t.gradients(&batch);
        assert!(
            (inference.policy - train.policy).abs() < 1e-3
                && (inference.value - train.value).abs() < 1e-3,
            "{size}: train mode {train:?}, inference {inference:?}"
        );

        // The weights that start at zero have gradients at the first step.
        let grads = named_gradients(t.model(), &grads);
        let moves = |name: &str, pick: &dyn Fn(usize) -> bool| {
            let g = (grads.get(name)).unwrap_or_else(|| panic!("{size}: no {name} in {grads:?}"));
            g.iter().enumerate().any(|(i, v)| pick(i) && v.abs() > 1e-7)
        };
        if blocks > source.blocks {
            let last = format!("blocks.{}.b.bn.gamma", blocks - 1);
            assert!(moves(&last, &|_| true), "{size}: {last} has no gradient");
        }
        if channels > source.channels {
            // The policy head's weights from the new channels: [planes, channels, 1, 1].
            let new_input = |i: usize| i % channels >= source.channels;
            assert!(
                moves("policy.weight", &new_input),
                "{size}: the policy head's new inputs have no gradient"
            );
        }
    }
}
