//! The network on a GPU through burn's wgpu backend (feature `wgpu`), held to the CPU:
//! the forward within 1e-4 and a training step's gradients within 1e-3 (relative to
//! each tensor's largest value) of burn's on the CPU, self-play through the inference
//! queue, and a two-iteration run trained there whose checkpoint and bundle play on the
//! CPU. CI runs these on Mesa's software Vulkan (lavapipe); a machine with no Vulkan,
//! Metal or DX12 driver fails them, it does not skip them.
//!
//! `cargo test --release --features wgpu --test wgpu`

#[path = "support/bundle.rs"]
#[allow(dead_code)]
mod bundle;
#[path = "support/process.rs"]
mod process;

use std::collections::BTreeMap;
use std::sync::Mutex;

use burn::module::Module;
use contagion::bench::sample_positions;
use contagion::config::{Config, Optimizer, TrainConfig};
use contagion::games::Game;
use contagion::games::infexion::Board;
use contagion::nn::formats::checkpoint::{Checkpoint, model_bytes};
use contagion::nn::step::train_step::{named_gradients, named_tensors};
use contagion::nn::{DeviceKind, Heads, Net, NetShape};
use contagion::rng::Rng;
use contagion::selfplay::{SelfPlaySettings, play};
use contagion::train::{Trainer, make_batch};

use bundle::{Seeded, samples};

/// Infexion's network with every auxiliary head.
fn shape() -> NetShape {
    NetShape::for_game(&Board::new(), 2, 16, 16).with_heads(Heads::ALL)
}

/// The largest difference between `a` and `b` over the largest magnitude in `b`.
fn relative(a: &[f32], b: &[f32]) -> f64 {
    assert_eq!(a.len(), b.len());
    let scale = b.iter().fold(1e-12f64, |m, &v| m.max(v.abs() as f64));
    let diff = (a.iter().zip(b)).fold(0.0f64, |m, (&x, &y)| m.max((x - y).abs() as f64));
    diff / scale
}

/// Seeded weights as checkpoint bytes.
fn seeded(shape: &NetShape) -> Vec<u8> {
    let fresh = Trainer::new(shape.clone(), &TrainConfig::default()).unwrap();
    model_bytes(&fresh.model().clone().map(&mut Seeded(Rng::new(1)))).unwrap()
}

#[test]
fn wgpu_forward_matches_the_cpu_reference() {
    let shape = shape();
    let cpu = Trainer::restore(
        shape.clone(),
        &TrainConfig::default(),
        &seeded(&shape),
        &[],
        0,
    )
    .unwrap()
    .net();
    let gpu = cpu.clone().on_device(DeviceKind::Wgpu).unwrap();
    assert_eq!(gpu.device_kind(), DeviceKind::Wgpu);
    assert_eq!(gpu.forward_kind(), "burn");
    let positions = sample_positions(&Board::new(), 24, 16, 5);
    let mut input = vec![0.0; positions.len() * shape.input_len()];
    for (p, out) in positions.iter().zip(input.chunks_mut(shape.input_len())) {
        p.encode(out);
    }
    let want = cpu.infer_burn(input.clone(), positions.len());
    let got = gpu.infer(input, positions.len());
    let (logits, values) = (
        relative(&got.logits, &want.logits),
        relative(&got.values, &want.values),
    );
    eprintln!("wgpu forward: logits {logits:.1e}, values {values:.1e} from the CPU's");
    assert!(logits <= 1e-4 && values <= 1e-4, "{logits} {values}");
}

#[test]
fn wgpu_gradients_match_the_cpu_reference() {
    let shape = shape();
    let weights = seeded(&shape);
    let on = |device| {
        let config = TrainConfig {
            device,
            ownership_weight: 1.5,
            margin_weight: 0.7,
            short_value_weight: 0.4,
            soft_policy_weight: 8.0,
            // SGD: a step is the gradient scaled, so the weights after it differ as
            // little as the gradients (Adam's first step is the gradient's sign, which
            // turns a rounding difference in a near-zero gradient into a whole step).
            optimizer: Optimizer::Sgd,
            ..TrainConfig::default()
        };
        Trainer::restore(shape.clone(), &config, &weights, &[], 0)
            .unwrap()
            .with_autodiff()
    };
    let (mut cpu, mut gpu) = (on(DeviceKind::Cpu), on(DeviceKind::Wgpu));
    let mut rng = Rng::new(3);
    let data = samples(sample_positions(&Board::new(), 32, 12, 7), &mut rng);
    let refs: Vec<_> = data.iter().collect();
    let batch = make_batch(&refs, &shape, &TrainConfig::default(), &mut rng);
    let (lc, gc) = cpu.gradients(&batch);
    let (lg, gg) = gpu.gradients(&batch);
    eprintln!("loss {:.6} (cpu) {:.6} (wgpu)", lc.total, lg.total);
    assert!((lc.total - lg.total).abs() <= 1e-4 * lc.total.abs().max(1.0));
    let compare = |what: &str, c: BTreeMap<String, Vec<f32>>, g: BTreeMap<String, Vec<f32>>| {
        assert_eq!(c.keys().collect::<Vec<_>>(), g.keys().collect::<Vec<_>>());
        let worst = (c.iter())
            .map(|(name, v)| (relative(&g[name], v), name))
            .fold(
                (0.0, ""),
                |m, (r, n)| if r > m.0 { (r, n.as_str()) } else { m },
            );
        eprintln!(
            "{what}: largest relative difference {:.1e} ({})",
            worst.0, worst.1
        );
        assert!(worst.0 <= 1e-3, "{what}: {worst:?}");
    };
    let (nc, ng) = (
        named_gradients(cpu.model(), &gc),
        named_gradients(gpu.model(), &gg),
    );
    assert!(
        nc.len() > 20,
        "every parameter has a gradient: {}",
        nc.len()
    );
    compare("gradients", nc, ng);
    // One optimizer step each (burn's SGD with momentum, there and here).
    let (sc, sg) = (cpu.step(&batch), gpu.step(&batch));
    assert!((sc.total - sg.total).abs() <= 1e-4 * sc.total.abs().max(1.0));
    compare(
        "weights after a step",
        named_tensors(cpu.model()),
        named_tensors(gpu.model()),
    );
}

#[test]
fn wgpu_self_play_gathers_the_workers_batches_in_one_queue() {
    let mut c = Config::default();
    c.mcts.simulations = 8;
    c.selfplay.concurrent_games = 3;
    c.selfplay.max_plies = 16;
    c.train.device = DeviceKind::Wgpu;
    c.selfplay.inference_batch = 64;
    let settings = SelfPlaySettings::from_config(&c, 2, false, 1);
    let net = Net::init(NetShape::for_game(&Board::new(), 1, 8, 16));
    let games = Mutex::new(Vec::new());
    let stats = play(&Board::new(), &net, &settings, 6, 1, |g| {
        games.lock().unwrap().push(g)
    })
    .unwrap();
    let games = games.into_inner().unwrap();
    assert_eq!(games.len(), 6);
    for g in &games {
        let mut state = Board::new();
        for &m in &g.moves {
            state.apply(m).unwrap();
        }
        assert!(g.plies() <= 16 && !g.targets.is_empty());
    }
    // Two workers of three games: a forward takes more than one worker's leaves.
    let mean = stats.eval.mean_batch();
    eprintln!(
        "wgpu self-play: {} forwards, mean batch {mean:.2}",
        stats.eval.batches
    );
    assert!(mean > 3.0, "{mean}");
}

#[test]
fn wgpu_trains_two_iterations_whose_model_plays_on_the_cpu() {
    let root = process::temp_dir("run");
    let out = process::train(
        &process::test_config(),
        &root,
        &[
            "--set",
            "run.iterations=2",
            "--set",
            "train.device=wgpu",
            "--set",
            "selfplay.inference_batch=8",
        ],
    );
    let text = process::text(&out);
    assert!(out.status.success(), "{text}");
    let run = root.join("test-run");
    let metrics = std::fs::read_to_string(run.join("metrics.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = (metrics.lines())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{metrics}");
    for m in &lines {
        assert_eq!(m["device"], "wgpu", "{m}");
        assert!(m["train_steps"].as_u64().unwrap() > 0, "{m}");
    }
    // The checkpoint loads on the CPU, with the CPU's fast forward.
    let ckpt = Checkpoint::load(&run.join("ckpt-000002.ckpt")).unwrap();
    let net = ckpt.net().unwrap();
    assert_eq!(net.device_kind(), DeviceKind::Cpu);
    assert_ne!(net.forward_kind(), "burn");
    let bundle = root.join("bundle");
    let export = process::contagion(&[
        "export",
        "--checkpoint",
        run.to_str().unwrap(),
        "--out",
        bundle.to_str().unwrap(),
    ]);
    assert!(export.status.success(), "{}", process::text(&export));
    let spec = format!("model:{},sims=8", bundle.display());
    let eval = process::contagion(&[
        "eval", "--a", &spec, "--b", "random", "--games", "2", "--quiet",
    ]);
    assert!(eval.status.success(), "{}", process::text(&eval));
    // And on the GPU again, with `--device`.
    let eval = process::contagion(&[
        "eval", "--device", "wgpu", "--a", &spec, "--b", "random", "--games", "2", "--quiet",
    ]);
    assert!(eval.status.success(), "{}", process::text(&eval));
    let _ = std::fs::remove_dir_all(&root);
}
