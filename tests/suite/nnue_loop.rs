//! The fast evaluator beyond the Rust player: its own self-play loop (`contagion
//! distill --loop`, from nothing, resumed; a candidate trained on from the best's
//! weights, or from a squares' evaluator grafted onto the 2×2 windows) and the Python
//! front end's reading of its bundles (the course agent's alpha-beta).

use std::path::Path;

use contagion::games::Game;
use contagion::games::ataxx::Ataxx;
use contagion::games::infexion::Board;
use contagion::nn::nnue::graft::carried;
use contagion::nn::nnue::net::Scratch;
use contagion::nn::nnue::{EvalShape, Evaluator, FeatureSet, bundle, features};
use contagion::rng::Rng;
use contagion::selfplay::records::Chunk;
use contagion::train::distill::{DistillOptions, DistillReport, distill};

use crate::process::{contagion, temp_dir, text};
use crate::python;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The log's lines as JSON.
fn log(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("loop.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn the_loop_from_nothing_plays_trains_gates_and_resumes() {
    let dir = temp_dir("scratch");
    let out = dir.join("loop");
    let config = root().join("configs/ataxx-nnue-loop.toml");
    let run = |generations: u32, more: &[&str]| {
        let generations = format!("distill.generations={generations}");
        let mut args = vec![
            "distill",
            "--config",
            config.to_str().unwrap(),
            "--loop",
            "--out",
            out.to_str().unwrap(),
            "--quiet",
            "--threads",
            "2",
            "--set",
            &generations,
            "--set",
            "distill.games=12",
            "--set",
            "distill.loop_nodes=300",
            "--set",
            "distill.epochs=2",
            "--set",
            "gating.games=8",
            "--set",
            "gating.baseline_games=2",
        ];
        args.extend(more);
        let o = contagion(&args);
        assert!(o.status.success(), "{}", text(&o));
        text(&o)
    };
    let first = run(1, &[]);
    assert!(
        first.contains("generation 1: 12 games by generation 0"),
        "{first}"
    );
    let lines = log(&out);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["generation"], 0);
    let g1 = &lines[1];
    assert_eq!(g1["games"], 12);
    assert!(g1["positions"].as_u64().unwrap() > 12 * 4, "{g1}");
    assert!(g1["train_positions"].as_u64().unwrap() > 0, "{g1}");
    assert_eq!(g1["vs_best"]["games"], 8, "{g1}");
    // Gated like a checkpoint: promoted exactly when the candidate passed both gates.
    let promoted = g1["promoted"].as_bool().unwrap();
    assert_eq!(g1["best"], if promoted { 1 } else { 0 }, "{g1}");
    // The best is a bundle that plays.
    bundle::load(
        &out.join("best"),
        &contagion::games::ataxx::Ataxx::standard(),
    )
    .unwrap();
    // Its lineage: learnt from generation 0's games, on its own positions (trained
    // afresh), one generation on, in the loop's minutes until then.
    let lineage = |g: u64| {
        let m = bundle::read_manifest(&out.join(format!("gen-{g:04}"))).unwrap();
        assert!(
            g == 0 || m.lineage.is_some(),
            "generation {g} names its lineage"
        );
        m.lineage()
    };
    let l1 = lineage(1);
    assert_eq!(l1.parent.as_deref(), Some("ataxx-nnue-loop-gen-0000"));
    assert_eq!(l1.generations, 1);
    assert_eq!(l1.positions, g1["train_positions"].as_u64().unwrap());
    assert!(
        l1.minutes <= g1["minutes"].as_f64().unwrap() + 0.1,
        "{l1:?}"
    );
    // Resumed: the next generation follows the last logged one, played by the best;
    // trained on from the best's weights, its line counts the best's positions too.
    let second = run(2, &["--set", "distill.loop_start=best"]);
    assert!(
        !second.contains("generation 1:"),
        "generation 1 was replayed: {second}"
    );
    let lines = log(&out);
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(lines[2]["generation"], 2);
    assert_eq!(lines[2]["played_by"], lines[1]["best"]);
    assert!(lines[2]["minutes"].as_f64() >= lines[1]["minutes"].as_f64());
    let best = lines[1]["best"].as_u64().unwrap();
    let (parent, l2) = (lineage(best), lineage(2));
    assert_eq!(l2.parent, Some(format!("ataxx-nnue-loop-gen-{best:04}")));
    assert_eq!(l2.generations, parent.generations + 1);
    let trained = lines[2]["train_positions"].as_u64().unwrap();
    assert_eq!(l2.positions, parent.positions + trained);
    let chunks: Vec<_> = (std::fs::read_dir(out.join("data/games")).unwrap())
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(chunks.len(), 2, "a chunk of game records a generation");
    let games: usize = (chunks.iter())
        .map(|p| {
            let bytes = std::fs::read(p).unwrap();
            let chunk = Chunk::from_bytes(&bytes, "ataxx", &p.display().to_string()).unwrap();
            chunk.records.len()
        })
        .sum();
    assert_eq!(games, 24, "two generations of 12 games");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_evaluator_trains_on_from_the_weights_it_is_given_and_refuses_another_shape() {
    let (dir, first) = crate::nnue::distilled("warm");
    let start = Ataxx::standard();
    let (first_manifest, best) = bundle::load(&dir.join("bundle"), &start).unwrap();
    let again_reading = |init, learning_rate, features| {
        let mut o: DistillOptions = crate::nnue::distill_options(&dir);
        o.out = dir.join("again");
        o.settings.epochs = 1;
        o.settings.learning_rate = learning_rate;
        o.settings.features = features;
        o.init = init;
        distill(&start, &o)
    };
    let again = |init, learning_rate| again_reading(init, learning_rate, FeatureSet::Encoding);
    // From the best's weights, the held-out loss starts where the best's training ended
    // (the same positions held out), and a near-zero rate leaves the weights near them.
    let ended = *first.validation_loss.last().unwrap();
    let starts_where_it_ended = |r: DistillReport| {
        assert!(
            (r.validation_loss[0] - ended).abs() < 1e-4 * ended.max(1e-3),
            "started at {:?}, the best ended at {ended}",
            r.validation_loss
        )
    };
    // Grafted onto the 2×2 windows, the squares' weights start where they ended too.
    starts_where_it_ended(again_reading(Some(best.clone()), 1e-6, FeatureSet::Tuples).unwrap());
    let err = again_reading(Some(best.clone()), 1e-6, FeatureSet::Windows).unwrap_err();
    assert!(err.to_string().contains("2×2 windows added"), "{err}");
    starts_where_it_ended(again(Some(best.clone()), 1e-6).unwrap());
    let (_, after) = bundle::load(&dir.join("again"), &start).unwrap();
    let moved = (after.ft_w.iter().zip(&best.ft_w)).fold(0f32, |m, (a, b)| m.max((a - b).abs()));
    assert!(moved < 1e-3, "the weights moved by {moved}");
    // Afresh, it starts from drawn weights, far from there.
    let fresh = again(None, 1e-6).unwrap();
    assert!(
        fresh.validation_loss[0] > 1.1 * ended,
        "a fresh start began at {:?}, the best ended at {ended}",
        fresh.validation_loss
    );
    // Weights of another shape are refused, naming both shapes.
    let mut other = best.clone();
    other.shape.hidden = 16;
    let err = again(Some(other), 1e-3).unwrap_err().to_string();
    assert!(
        err.contains("the weights to start from are ataxx:") && err.contains("→ 16 crelu → 16"),
        "{err}"
    );
    // The command's `--from`: trained on from the bundle, whose line it continues; a
    // config of another shape is refused, naming the bundle's.
    let from_cli = |hidden: &str| {
        let (data, from) = (dir.join("data"), dir.join("bundle"));
        let out = dir.join("cli");
        let o = contagion(&[
            "distill",
            "--config",
            root().join("configs/ataxx-nnue.toml").to_str().unwrap(),
            "--data",
            data.to_str().unwrap(),
            "--from",
            from.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
            "--set",
            hidden,
            "--set",
            "distill.dense=16",
            "--set",
            "distill.epochs=1",
            "--set",
            "distill.teacher_value=0",
        ]);
        (o, out)
    };
    let (o, out) = from_cli("distill.hidden=32");
    assert!(o.status.success(), "{}", text(&o));
    let (manifest, _) = bundle::load(&out, &start).unwrap();
    let (parent, line) = (first_manifest.lineage(), manifest.lineage());
    assert_eq!(line.parent.as_deref(), Some("bundle"));
    assert!(
        line.positions > parent.positions,
        "{line:?} after {parent:?}"
    );
    assert_eq!(line.generations, parent.generations);
    let (o, _) = from_cli("distill.hidden=64");
    assert!(!o.status.success());
    let err = text(&o);
    assert!(
        err.contains("the weights to start from are ataxx:"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_squares_evaluator_grafted_onto_the_windows_values_every_position_as_before() {
    let start = Ataxx::standard();
    let net_of = |set| crate::nnue::random_net_of(&start, set, false, 3);
    let (squares, tuples) = (
        net_of(FeatureSet::Encoding),
        net_of(FeatureSet::Tuples).shape,
    );
    let grafted = carried(&squares, &tuples).unwrap();
    assert_eq!(carried(&squares, &squares.shape).unwrap(), squares);
    let (a, b) = (Evaluator::new(&squares), Evaluator::new(&grafted));
    let (mut rng, mut moves, mut scratch) = (Rng::new(4), Vec::new(), Scratch::default());
    let mut checked = 0;
    for _ in 0..4 {
        let mut s = start;
        for _ in 0..60 {
            if s.outcome().is_some() {
                break;
            }
            let (sq, tu) = (
                FeatureSet::Encoding.views_of(&s, 1),
                FeatureSet::Tuples.views_of(&s, 1),
            );
            assert!(tu[0].len() == sq[0].len() + 36, "the windows read too");
            assert_eq!(squares.evaluate(&sq), grafted.evaluate(&tu));
            let (x, y) = (
                a.accumulators(&sq, &mut scratch),
                b.accumulators(&tu, &mut scratch),
            );
            assert_eq!(a.raw(&x, &mut scratch), b.raw(&y, &mut scratch));
            s.legal_actions(&mut moves);
            s.apply(moves[rng.below(moves.len())]).unwrap();
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked} positions");
    // Another width, the windows alone, or windows taken away: refused, both shapes named.
    let wider = |s: &EvalShape| EvalShape {
        hidden: 2 * s.hidden,
        ..s.clone()
    };
    for to in [
        wider(&tuples),
        net_of(FeatureSet::Windows).shape,
        wider(&squares.shape),
    ] {
        let err = carried(&squares, &to).unwrap_err().to_string();
        assert!(err.contains(&squares.shape.to_string()) && err.contains(&to.to_string()));
    }
    assert!(carried(&grafted, &squares.shape).is_err());
}

#[test]
fn a_loop_log_that_is_not_json_is_refused_with_its_path() {
    let dir = temp_dir("badlog");
    std::fs::write(
        dir.join("loop.jsonl"),
        "{\"generation\": 0, \"best\": 0}\nnot json\n",
    )
    .unwrap();
    let o = contagion(&[
        "distill",
        "--config",
        root()
            .join("configs/ataxx-nnue-loop.toml")
            .to_str()
            .unwrap(),
        "--loop",
        "--out",
        dir.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(!o.status.success());
    let err = text(&o);
    assert!(
        err.contains("loop.jsonl: the last line is not JSON"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `czero.nnue.Evaluator` computes the float form of the shipped Infexion evaluator as
/// the Rust one does, on positions of random games.
#[test]
fn the_python_evaluator_agrees_with_the_rust_float_form() {
    let path = root().join("models/infexion-nnue-128x32");
    let (_, net) = bundle::load(&path, &Board::new()).unwrap();
    let mut rng = Rng::new(7);
    let mut cases = Vec::new();
    let mut actions = Vec::new();
    for _ in 0..6 {
        let mut state = Board::new();
        while state.outcome().is_none() && cases.len() < 200 {
            let v = net.evaluate(&[features::of(&state)]);
            cases.push(serde_json::json!({
                "position": state.to_notation(),
                "values": [v[0], v[1]],
            }));
            state.legal_actions(&mut actions);
            state.apply(rng.choose(&actions).unwrap()).unwrap();
        }
    }
    let dir = temp_dir("python");
    std::fs::write(
        dir.join("cases.json"),
        serde_json::to_string(&cases).unwrap(),
    )
    .unwrap();
    let script = r#"
import json, sys
from czero.infexion import Board
from czero.nnue import Evaluator
e = Evaluator(sys.argv[1])
worst = 0.0
cases = json.load(open(sys.argv[2]))
for c in cases:
    v = e.values(Board.from_notation(c["position"]))
    worst = max(worst, max(abs(float(a) - b) for a, b in zip(v, c["values"])))
print(len(cases), worst)
"#;
    let o = python::czero()
        .args(["-c", script])
        .arg(&path)
        .arg(dir.join("cases.json"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let out = text(&o);
    let mut parts = out.split_whitespace();
    let n: usize = parts.next().unwrap().parse().unwrap();
    let worst: f64 = parts.next().unwrap().parse().unwrap();
    assert_eq!(n, cases.len());
    assert!(n >= 100, "{n} positions");
    assert!(worst < 1e-5, "the largest difference is {worst}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The Python evaluator refuses a bundle whose weights changed, and a network bundle.
#[test]
fn the_python_evaluator_refuses_damage_and_networks() {
    let dir = temp_dir("pydamage");
    let copy = dir.join("e");
    std::fs::create_dir_all(&copy).unwrap();
    let from = root().join("models/infexion-nnue-128x32");
    for f in ["manifest.json", "model.safetensors"] {
        std::fs::copy(from.join(f), copy.join(f)).unwrap();
    }
    let mut w = std::fs::read(copy.join("model.safetensors")).unwrap();
    let last = w.len() - 1;
    w[last] ^= 1;
    std::fs::write(copy.join("model.safetensors"), w).unwrap();
    let load = |p: &Path| {
        python::czero()
            .args([
                "-c",
                "import sys; from czero.nnue import Evaluator; Evaluator(sys.argv[1])",
            ])
            .arg(p)
            .output()
            .unwrap()
    };
    let o = load(&copy);
    assert!(!o.status.success());
    assert!(text(&o).contains("damaged or replaced"), "{}", text(&o));
    let o = load(&root().join("models/infexion-4x32-15min"));
    assert!(!o.status.success());
    assert!(text(&o).contains("not an evaluator bundle"), "{}", text(&o));
    std::fs::remove_dir_all(&dir).ok();
}
