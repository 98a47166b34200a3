//! A run whose first network is a trained model (`run.init`): the layers kept exactly,
//! batch norms rebased so that training starts from what the model computes, and shapes
//! that do not fit refused.

use crate::bundle;
use crate::process;
use process::{temp_dir, test_config, text, train};

use burn::tensor::{Tensor, TensorData};
use contagion::bench::sample_positions;
use contagion::config::TrainConfig;
use contagion::games::infexion::Board;
use contagion::nn::checkpoint::{Checkpoint, load_model, load_net, model_bytes};
use contagion::nn::{Net, warm};
use contagion::rng::Rng;
use contagion::selfplay::replay::Sample;
use contagion::train::{Trainer, make_plain_batch};

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
    let input = make_plain_batch(&refs, &a.shape).input;
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

#[test]
fn rebased_batch_norms_keep_the_network_and_train_from_it() {
    let dir = temp_dir("rebase");
    let data = samples(240, 7);
    let (trained, bundle) = bundle::export_trained(&Board::new(), (2, 16), &data, 40, &dir);
    let (shape, mut model) = load_model(&bundle).unwrap();
    let refs: Vec<&Sample<Board>> = data.iter().collect();
    let batch = make_plain_batch(&refs, &shape);
    let config = TrainConfig::default();
    let train_mode = |model: &contagion::nn::PolicyValueNet| {
        let bytes = model_bytes(model).unwrap();
        let mut t = Trainer::restore(shape.clone(), &config, &bytes, &[], 0).unwrap();
        let inference = t.evaluate(&batch);
        let (train, _) = t.gradients(&batch);
        (inference.policy, inference.value, train.policy, train.value)
    };
    // Folded into the convolutions, the norms compute the model at inference but not
    // under a batch's own statistics.
    let (p, v, tp, tv) = train_mode(&model);
    assert!(
        (p - tp).abs() > 1e-2 || (v - tv).abs() > 1e-2,
        "the unrebased norms already agree: {p} {v} / {tp} {tv}"
    );
    let x = Tensor::<4>::from_data(
        TensorData::new(
            batch.input.clone(),
            [batch.size, shape.in_planes, shape.height, shape.width],
        ),
        &contagion::nn::device(),
    );
    warm::rebase_batch_norms(&mut model, x);
    let rebased = Net::new(shape.clone(), &model);
    let unseen = samples(90, 11);
    let diff = max_difference(&rebased, &trained, &unseen);
    assert!(diff < 1e-3, "rebasing changed the network by {diff}");
    let (p, v, tp, tv) = train_mode(&model);
    assert!(
        (p - tp).abs() < 1e-3 && (v - tv).abs() < 1e-3,
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
    let mut args = sets.to_vec();
    args.extend([
        "--set",
        "replay.min_positions=100000",
        "--set",
        "gating.games=0",
    ]);
    let o = train(&test_config(), &dir, &args);
    assert!(o.status.success(), "{}", text(&o));
    let run = dir.join("test-run");
    let first = Checkpoint::load(&run.join("ckpt-000001.ckpt")).unwrap();
    assert!(first.shape.ownership && first.state.steps == 0);
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

    // A network of another size is refused.
    let o = train(
        &test_config(),
        &dir.join("other"),
        &["--set", &init, "--set", "network.channels=16"],
    );
    assert!(!o.status.success());
    let err = text(&o);
    assert!(
        err.contains("run.init") && err.contains("1x8") && err.contains("1x16"),
        "{err}"
    );
}
