//! ONNX export: `contagion export --format onnx` writes a `model.onnx` that ONNX Runtime
//! (installed into the test venv from PyPI) runs to the same outputs as our forward,
//! within 1e-4, for every shipped bundle (all four games), on 100 positions from seeded
//! games; the manifest names the file; a fresh export from a checkpoint writes it too,
//! with the auxiliary heads as outputs (which the Python front end also runs); and a
//! bundle without `--format onnx` is still refused.

use crate::process;
use process::{contagion, temp_dir, test_config, text, train};

use crate::python;

use std::path::Path;
use std::process::Command;

use contagion::games::Game;
use contagion::games::ataxx::Ataxx;
use contagion::games::chexers::Chexers;
use contagion::games::infexion::Board;
use contagion::nn::formats::bundle::read_manifest;
use contagion::nn::formats::checkpoint::load_net;
use contagion::nn::heads::HEADS;
use contagion::rng::Rng;

/// `count` positions from seeded random games of `start`, 0 to about 150 plies in.
fn positions<G: Game>(start: &G, count: usize, seed: u64) -> Vec<G> {
    let mut rng = Rng::new(seed);
    let mut legal = Vec::new();
    (0..count)
        .map(|i| {
            let mut state = start.clone();
            for _ in 0..[0, 3, 10, 40, 150][i % 5] {
                if state.outcome().is_some() {
                    break;
                }
                state.legal_actions(&mut legal);
                state.apply(legal[rng.below(legal.len())]).unwrap();
            }
            state
        })
        .collect()
}

/// ONNX Runtime's outputs for `bundle`'s `model.onnx` against ours on 100 positions.
fn onnx_agrees<G: Game>(start: &G, bundle: &Path, dir: &Path) {
    let states = positions(start, 100, 11);
    let net = load_net(bundle).unwrap();
    let len = net.shape.input_len();
    let mut input = vec![0.0f32; states.len() * len];
    for (s, chunk) in states.iter().zip(input.chunks_mut(len)) {
        s.encode(chunk);
    }
    let ours = net.infer(input.clone(), states.len());
    let bytes: Vec<u8> = input.iter().flat_map(|x| x.to_le_bytes()).collect();
    let (inputs, out) = (dir.join("input.f32"), dir.join("onnx.json"));
    std::fs::write(&inputs, bytes).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/onnx_run.py");
    let run = Command::new(python::venv_python())
        .arg(script)
        .arg(bundle.join("model.onnx"))
        .arg(&inputs)
        .arg(states.len().to_string())
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let ort: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let m = read_manifest(bundle).unwrap();
    assert_eq!(ort["input"]["name"], "input");
    let shape = &m.input.shape;
    let want = [
        "batch".to_string(),
        shape[0].to_string(),
        shape[1].to_string(),
        shape[2].to_string(),
    ];
    assert_eq!(ort["input"]["shape"], serde_json::json!(want));
    let outputs = ort["outputs"].as_array().unwrap();
    assert_eq!(outputs[0]["name"], m.outputs.policy.value.as_str());
    assert_eq!(outputs[1]["name"], m.outputs.value.value.as_str());
    let diff = |ort: &serde_json::Value, ours: &[f32]| {
        let theirs: Vec<f32> = serde_json::from_value(ort["values"].clone()).unwrap();
        assert_eq!(theirs.len(), ours.len(), "{}", bundle.display());
        theirs
            .iter()
            .zip(ours)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max)
    };
    let (dl, dv) = (
        diff(&outputs[0], &ours.logits),
        diff(&outputs[1], &ours.values),
    );
    eprintln!(
        "{}: ONNX Runtime {} vs ours over {} positions: max |logit diff| {dl:.2e}, max |value diff| {dv:.2e}",
        bundle.display(),
        ort["onnxruntime"],
        states.len()
    );
    assert!(
        dl <= 1e-4 && dv <= 1e-4,
        "{}: logits {dl}, values {dv}",
        bundle.display()
    );
    // The auxiliary heads' outputs, where the bundle has them, against burn's forward:
    // one ONNX output a head, named by its entry.
    let aux = crate::export::aux_outputs(&net, &states);
    assert_eq!(
        outputs.len(),
        2 + aux.len(),
        "one ONNX output per manifest output"
    );
    for ((head, ours), ort) in aux.iter().zip(&outputs[2..]) {
        let name = head.layer;
        assert_eq!(ort["name"], name);
        assert_eq!(m.outputs.aux[head.key].value, name, "the manifest's name");
        let d = diff(ort, ours);
        eprintln!("{}: {name} max |diff| {d:.2e}", bundle.display());
        assert!(d <= 1e-4, "{}: {name} {d}", bundle.display());
    }
}

#[test]
fn every_shipped_bundle_runs_in_onnx_runtime_as_it_runs_here() {
    let dir = temp_dir("shipped");
    let shipped = crate::bundle::shipped();
    let mut games = std::collections::BTreeSet::new();
    for bundle in &shipped {
        let out = dir.join(bundle.file_name().unwrap());
        let o = contagion(&[
            "export",
            "--checkpoint",
            bundle.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--format",
            "onnx",
        ]);
        assert!(o.status.success(), "{}", text(&o));
        let m = read_manifest(&out).unwrap();
        assert_eq!(
            m.onnx.as_deref(),
            Some("model.onnx"),
            "the manifest names the ONNX file"
        );
        let original = read_manifest(bundle).unwrap();
        assert_eq!(
            m.weights_sha256, original.weights_sha256,
            "the weights are copied as they are"
        );
        match m.game.name.as_str() {
            "infexion" => onnx_agrees(&Board::new(), &out, &dir),
            "ataxx" => onnx_agrees(&Ataxx::standard(), &out, &dir),
            "virus" => onnx_agrees(&Ataxx::virus(), &out, &dir),
            "chexers" => onnx_agrees(&Chexers::new(), &out, &dir),
            other => panic!(
                "{}: a bundle of an unknown game {other:?}",
                bundle.display()
            ),
        }
        games.insert(m.game.name);
    }
    assert_eq!(games.len(), 4, "a shipped bundle of every game: {games:?}");
}

#[test]
fn a_trained_checkpoint_exports_with_its_onnx_model_and_bundles_need_the_flag() {
    let dir = temp_dir("fresh");
    let runs = dir.join("runs");
    // With the auxiliary heads, which the bundle and its ONNX model carry as outputs,
    // and two blocks, the second with a global pooling bias.
    let mut heads = vec![
        "network.blocks=2".to_string(),
        "network.global_pool=true".into(),
    ];
    heads.extend(HEADS.iter().map(|h| format!("{}=0.5", h.weight)));
    let sets: Vec<&str> = heads.iter().flat_map(|h| ["--set", h.as_str()]).collect();
    let o = train(&test_config(), &runs, &sets);
    assert!(o.status.success(), "{}", text(&o));
    let run = std::fs::read_dir(&runs)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let out = dir.join("bundle");
    let o = contagion(&[
        "export",
        "--checkpoint",
        run.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--format",
        "onnx",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("and model.onnx"), "{}", text(&o));
    let manifest = contagion::nn::formats::bundle::read_manifest(&out).unwrap();
    assert_eq!(manifest.version, 2, "global pooling came with version 2");
    assert!(manifest.architecture.global_pool);
    let keys: Vec<&str> = manifest.outputs.aux.keys().map(String::as_str).collect();
    let mut every: Vec<&str> = HEADS.iter().map(|h| h.key).collect();
    every.sort();
    assert_eq!(keys, every, "every head, by its key");
    onnx_agrees(&Board::new(), &out, &dir);
    // The Python front end runs the bundle's layers, the heads' too, to the same outputs.
    crate::export::python_agrees(&Board::new(), &out, &load_net(&out).unwrap(), &dir);
    // A plain export of a bundle is refused, naming the way to add the ONNX model.
    let again = dir.join("again");
    let o = contagion(&[
        "export",
        "--checkpoint",
        out.to_str().unwrap(),
        "--out",
        again.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(
        text(&o).contains("is a bundle, already exported") && text(&o).contains("--format onnx"),
        "{}",
        text(&o)
    );
    assert!(!again.exists(), "nothing written");
    // A bundle whose weights were damaged is refused before anything is written.
    let damaged = dir.join("damaged");
    std::fs::create_dir_all(&damaged).unwrap();
    for f in ["manifest.json", "model.safetensors"] {
        std::fs::copy(out.join(f), damaged.join(f)).unwrap();
    }
    let mut bytes = std::fs::read(damaged.join("model.safetensors")).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55;
    std::fs::write(damaged.join("model.safetensors"), bytes).unwrap();
    let target = dir.join("from-damaged");
    let o = contagion(&[
        "export",
        "--checkpoint",
        damaged.to_str().unwrap(),
        "--out",
        target.to_str().unwrap(),
        "--format",
        "onnx",
    ]);
    assert!(!o.status.success());
    assert!(text(&o).contains("damaged or replaced"), "{}", text(&o));
    assert!(!target.exists(), "nothing written");
}
