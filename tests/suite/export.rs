//! Exported bundles: a bundle reproduces its checkpoint, the Python front end
//! (`frontends/python`, numpy alone) computes the same outputs and legal moves from the
//! manifest alone, `model:BUNDLE` plays, and damaged or foreign bundles are refused.

use crate::process;
use process::{contagion, temp_dir};

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::python;

use crate::bundle;

use contagion::agents::{AgentSpec, Limits};
use contagion::bench::sample_positions;
use contagion::games::Game;
use contagion::games::ataxx::Ataxx;
use contagion::games::chexers::Chexers;
use contagion::games::infexion::Board;
use contagion::nn::Net;
use contagion::nn::formats::checkpoint::load_net;
use contagion::nn::heads::{HEADS, Head};
use contagion::nn::network::AuxOutput;
use contagion::rng::Rng;

/// 200 positions from random play, 2 to 200 actions in.
fn positions() -> Vec<Board> {
    [2, 9, 30, 80, 200]
        .iter()
        .flat_map(|&ply| sample_positions(&Board::new(), 40, ply, ply as u64))
        .collect()
}

/// An Infexion 2×16 network trained for 40 steps on [`positions`], exported.
fn trained_bundle(dir: &Path) -> (Net, PathBuf) {
    let data = bundle::samples(positions(), &mut Rng::new(5));
    bundle::export_trained(&Board::new(), (2, 16), &data, 40, dir)
}

fn outputs<G: Game>(net: &Net, boards: &[G]) -> (Vec<f32>, Vec<f32>) {
    let len = net.shape.input_len();
    let mut input = vec![0.0; boards.len() * len];
    for (b, chunk) in boards.iter().zip(input.chunks_mut(len)) {
        b.encode(chunk);
    }
    let out = net.infer(input, boards.len());
    (out.logits, out.values)
}

/// Each auxiliary head's output on `boards` by burn's forward, where `net` has the head:
/// its entry and its values flattened a position (the ownership head's laid out
/// `[classes, height, width]`, as a bundle has it).
pub fn aux_outputs<G: Game>(net: &Net, boards: &[G]) -> Vec<(&'static Head, Vec<f32>)> {
    use burn::tensor::{Tensor, TensorData};
    let s = &net.shape;
    let len = s.input_len();
    let mut input = vec![0.0; boards.len() * len];
    for (b, chunk) in boards.iter().zip(input.chunks_mut(len)) {
        b.encode(chunk);
    }
    let dims = [boards.len(), s.in_planes, s.height, s.width];
    let x = Tensor::<4>::from_data(TensorData::new(input, dims), &contagion::nn::device());
    let out = net.model().forward_all(x);
    let values = |data: TensorData| data.try_to_vec::<f32>().unwrap();
    (out.aux.0.into_iter().zip(&HEADS))
        .filter_map(|(o, head)| {
            let flat = match o? {
                AuxOutput::Cells(t) => values(t.swap_dims(1, 2).into_data()),
                AuxOutput::Flat(t) => values(t.into_data()),
            };
            Some((head, flat))
        })
        .collect()
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

#[test]
fn a_bundle_reproduces_its_checkpoint_and_describes_itself() {
    let dir = temp_dir("roundtrip");
    let (net, bundle) = trained_bundle(&dir);
    let loaded = load_net(&bundle).unwrap();
    assert_eq!(loaded.shape, net.shape);
    let boards = positions();
    let (l1, v1) = outputs(&net, &boards);
    let (l2, v2) = outputs(&loaded, &boards);
    let (dl, dv) = (max_diff(&l1, &l2), max_diff(&v1, &v2));
    eprintln!("bundle vs checkpoint over 200 positions: logits {dl:.2e}, values {dv:.2e}");
    assert!(dl <= 1e-4 && dv <= 1e-4, "logits {dl}, values {dv}");
    // The outputs are not trivially equal: the network distinguishes positions.
    assert!(max_diff(&l1[..343], &l1[343..686]) > 1e-3);

    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(bundle.join("manifest.json")).unwrap())
            .unwrap();
    assert_eq!(m["format"], "contagion-bundle");
    assert_eq!(m["version"], 1);
    assert_eq!(m["game"]["name"], "infexion");
    assert_eq!(m["input"]["shape"], serde_json::json!([14, 7, 7]));
    assert_eq!(m["input"]["planes"].as_array().unwrap().len(), 14);
    assert_eq!(m["architecture"]["padding"], "circular");
    // stem + 2 blocks × (conv, conv, add) + policy (conv, flatten, gather) + value (conv,
    // pool, linear, linear).
    assert_eq!(
        m["architecture"]["layers"].as_array().unwrap().len(),
        1 + 6 + 3 + 4
    );
    assert_eq!(m["actions"]["moves"][0], "SPAWN(0,0)");
    assert_eq!(m["actions"]["moves"][342], "SPREAD(6,6,1,0)");
    // SPREAD from (0,0) in direction 0 is action 49, logit plane 1, cell 0.
    assert_eq!(m["actions"]["policy_index"][49], 49);
    assert_eq!(m["provenance"]["iteration"], 3);
    assert_eq!(m["provenance"]["checkpoint"], "ckpt-000003.ckpt");
}

#[test]
fn model_specs_play_from_a_bundle() {
    let dir = temp_dir("spec");
    let (_, bundle) = trained_bundle(&dir);
    let spec: AgentSpec = format!("model:{},sims=16", bundle.display())
        .parse()
        .unwrap();
    let mut agent = spec.build(&Board::new(), 1).unwrap();
    let state = Board::from_notation("7/7/2r14/7/4b12/7/7 r 2").unwrap();
    let action = agent.select(&state, &Limits::default()).unwrap();
    assert!(state.is_legal(action));
    let out = contagion(&[
        "eval",
        "--a",
        &format!("model:{},sims=8", bundle.display()),
        "--b",
        "random",
        "--games",
        "2",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["games"], 2);
}

/// Copies a bundle so each damage is made to a fresh copy.
fn copy_bundle(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for f in ["manifest.json", "model.safetensors"] {
        std::fs::copy(from.join(f), to.join(f)).unwrap();
    }
}

/// Writes `bytes` as bundle `dir`'s weights and records their checksum in its manifest,
/// so that the damage reaches the loader's later checks.
fn replace_weights(dir: &Path, bytes: &[u8]) {
    std::fs::write(dir.join("model.safetensors"), bytes).unwrap();
    let digest = contagion::nn::formats::bundle::sha256_hex(bytes);
    let path = dir.join("manifest.json");
    let mut m: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    m["weights_sha256"] = digest.into();
    std::fs::write(&path, serde_json::to_string_pretty(&m).unwrap()).unwrap();
}

fn load_error(path: &Path) -> String {
    format!("{:#}", load_net(path).unwrap_err())
}

#[test]
fn bad_bundles_are_refused_with_a_clear_error() {
    let dir = temp_dir("bad");
    let (_, good) = trained_bundle(&dir);
    let edit = |name: &str, from: &str, to: &str| {
        let b = dir.join(name);
        copy_bundle(&good, &b);
        let text = std::fs::read_to_string(b.join("manifest.json")).unwrap();
        assert!(text.contains(from), "{from}");
        std::fs::write(b.join("manifest.json"), text.replacen(from, to, 1)).unwrap();
        b
    };

    let missing = dir.join("missing");
    copy_bundle(&good, &missing);
    std::fs::remove_file(missing.join("model.safetensors")).unwrap();
    assert!(load_error(&missing).contains("model.safetensors"));

    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    assert!(load_error(&empty).contains("neither a model bundle"));

    let v9 = edit("v9", "\"version\": 1", "\"version\": 9");
    let err = load_error(&v9);
    assert!(
        err.contains("bundle format version 9; this build reads versions 1 to 2"),
        "{err}"
    );

    // Global pooling came with version 2: a version-1 manifest that claims it is refused.
    let pooled = edit(
        "pooled",
        "\"padding\": \"circular\"",
        "\"padding\": \"circular\", \"global_pool\": true",
    );
    let err = load_error(&pooled);
    assert!(
        err.contains("a version-1 bundle cannot have global pooling"),
        "{err}"
    );

    // An output no head of this build has.
    let unknown = edit(
        "unknown",
        "\"outputs\": {",
        "\"outputs\": {\"hunch\": {\"value\": \"hunch\", \"shape\": [1], \"meaning\": \"\"}, ",
    );
    let err = load_error(&unknown);
    assert!(
        err.contains("the manifest's outputs name 'hunch', which no head of this build is"),
        "{err}"
    );

    let wide = edit("wide", "\"channels\": 16", "\"channels\": 24");
    assert!(load_error(&wide).contains("layers do not describe"));

    let truncated = dir.join("truncated");
    copy_bundle(&good, &truncated);
    let bytes = std::fs::read(truncated.join("model.safetensors")).unwrap();
    replace_weights(&truncated, &bytes[..bytes.len() / 2]);
    let err = load_error(&truncated);
    assert!(err.contains("truncated or damaged"), "{err}");

    // One flipped bit in the weights: the manifest's checksum no longer matches.
    let damaged = dir.join("damaged");
    copy_bundle(&good, &damaged);
    let mut bytes = std::fs::read(damaged.join("model.safetensors")).unwrap();
    *bytes.last_mut().unwrap() ^= 1;
    std::fs::write(damaged.join("model.safetensors"), &bytes).unwrap();
    let err = load_error(&damaged);
    assert!(err.contains("damaged or replaced (its SHA-256 is"), "{err}");

    // A NaN in the last tensor (the value head's bias), checksum updated: refused by name.
    let nan = dir.join("nan");
    copy_bundle(&good, &nan);
    let mut bytes = std::fs::read(nan.join("model.safetensors")).unwrap();
    let end = bytes.len();
    bytes[end - 4..].copy_from_slice(&f32::NAN.to_le_bytes());
    replace_weights(&nan, &bytes);
    let err = load_error(&nan);
    assert!(err.contains("holds NaN or infinite values"), "{err}");

    // Swap two tensors' names in the weights: shapes no longer fit the manifest.
    let swapped = dir.join("swapped");
    copy_bundle(&good, &swapped);
    let mut bytes = std::fs::read(swapped.join("model.safetensors")).unwrap();
    let header_len = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let header = String::from_utf8(bytes[8..8 + header_len].to_vec()).unwrap();
    let header = header
        .replace("\"stem.bias\"", "\"TEMP.bias\"")
        .replace("\"value.bias\"", "\"stem.bias\"")
        .replace("\"TEMP.bias\"", "\"value.bias\"");
    bytes[8..8 + header_len].copy_from_slice(header.as_bytes());
    replace_weights(&swapped, &bytes);
    let err = load_error(&swapped);
    assert!(
        err.contains("has shape") && err.contains("the manifest needs"),
        "{err}"
    );

    let foreign = edit("foreign", "\"name\": \"infexion\"", "\"name\": \"chexers\"");
    let spec: AgentSpec = format!("model:{}", foreign.display()).parse().unwrap();
    let err = format!("{:#}", spec.build(&Board::new(), 1).err().unwrap());
    assert!(
        err.contains("trained for 'chexers' and cannot play 'infexion'"),
        "{err}"
    );

    // The Python front end refuses them too, saying why.
    for (bundle, why) in [
        (&v9, "bundle version 9, this reads versions 1 to 2"),
        (&missing, "cannot read the weights"),
        (&truncated, "bad data offsets"),
        (&swapped, "the manifest needs"),
        (&damaged, "damaged or replaced"),
        (&nan, "holds NaN or infinite values"),
    ] {
        let out = python::czero()
            .args(["-m", "czero.check"])
            .arg(bundle)
            .args(["/dev/null", "/dev/null"])
            .output()
            .expect("python3");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && stderr.contains(why),
            "{why}: {stderr}"
        );
    }

    // The binary reports it as an error line and a failure exit, not a panic.
    let out = contagion(&[
        "eval",
        "--a",
        &format!("model:{}", v9.display()),
        "--b",
        "random",
        "--games",
        "2",
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error:") && stderr.contains("version 9"),
        "{stderr}"
    );
}

/// Positions from seeded random games of `start`, each with the engine-protocol line
/// that reaches it (`startpos moves …`), 0 to about 200 actions in.
fn random_lines<G: Game>(start: &G, count: usize, seed: u64) -> Vec<(String, G)> {
    let mut rng = Rng::new(seed);
    let mut legal = Vec::new();
    (0..count)
        .map(|i| {
            let target = [0, 2, 9, 30, 80, 200][i % 6];
            let (mut state, mut moves) = (start.clone(), Vec::new());
            while moves.len() < target && state.outcome().is_none() {
                state.legal_actions(&mut legal);
                let a = legal[rng.below(legal.len())];
                moves.push(state.action_to_string(a));
                state.apply(a).unwrap();
            }
            (format!("startpos moves {}", moves.join(" ")), state)
        })
        .collect()
}

/// The Python front end, given only the bundle, must reach the same positions (by
/// replaying the moves), and compute the same notation, legal moves, logits and values
/// as Rust, to 1e-4.
pub fn python_agrees<G: Game>(start: &G, bundle: &Path, net: &Net, dir: &Path) {
    let lines = random_lines(start, 120, 7);
    let list = dir.join("positions.txt");
    let text: Vec<&str> = lines.iter().map(|(l, _)| l.as_str()).collect();
    std::fs::write(&list, text.join("\n") + "\n").unwrap();
    let out_file = dir.join("python.json");
    let out = python::czero()
        .args(["-m", "czero.check"])
        .arg(bundle)
        .arg(&list)
        .arg(&out_file)
        .output()
        .expect("python3 must be installed (with numpy) to run the front-end tests");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let py: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out_file).unwrap()).unwrap();
    assert_eq!(py["game"], start.name());
    let states: Vec<G> = lines.iter().map(|(_, s)| s.clone()).collect();
    let (logits, values) = outputs(net, &states);
    let (a, p) = (net.shape.actions(), net.shape.num_players);
    let (mut dl, mut dv) = (0.0f32, 0.0f32);
    let mut legal = Vec::new();
    for (i, (s, row)) in states
        .iter()
        .zip(py["positions"].as_array().unwrap())
        .enumerate()
    {
        assert_eq!(row["notation"], s.to_notation(), "{}", lines[i].0);
        s.legal_actions(&mut legal);
        let py_legal: Vec<u16> = serde_json::from_value(row["legal"].clone()).unwrap();
        assert_eq!(py_legal, legal, "legal moves of {}", s.to_notation());
        let pl: Vec<f32> = serde_json::from_value(row["logits"].clone()).unwrap();
        let pv: Vec<f32> = serde_json::from_value(row["values"].clone()).unwrap();
        dl = dl.max(max_diff(&pl, &logits[i * a..(i + 1) * a]));
        dv = dv.max(max_diff(&pv, &values[i * p..(i + 1) * p]));
    }
    // Each auxiliary head, under its entry's key, computes what burn's forward does.
    let aux = aux_outputs(net, &states);
    let rows = py["positions"].as_array().unwrap();
    let keys: Vec<&str> = rows[0]["aux"]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    let ours: Vec<&str> = aux.iter().map(|(h, _)| h.key).collect();
    assert_eq!(
        keys.iter().collect::<std::collections::BTreeSet<_>>(),
        ours.iter().collect(),
        "the Python front end's auxiliary outputs are the network's heads"
    );
    for (head, flat) in &aux {
        let n = flat.len() / states.len();
        for (i, row) in rows.iter().enumerate() {
            let py: Vec<f32> = serde_json::from_value(row["aux"][head.key].clone()).unwrap();
            let d = max_diff(&py, &flat[i * n..(i + 1) * n]);
            assert!(d <= 1e-4, "{}: position {i} differs by {d}", head.key);
        }
    }
    eprintln!(
        "{}: Python vs Rust over {} positions: max |logit diff| {dl:.2e}, max |value diff| {dv:.2e}; \
         Python forward {:.2} ms per position alone, {:.1} ms for the batch",
        bundle.display(),
        states.len(),
        py["single_forward_ms"].as_f64().unwrap(),
        py["batch_seconds"].as_f64().unwrap() * 1000.0
    );
    assert!(dl <= 1e-4 && dv <= 1e-4, "logits {dl}, values {dv}");
}

#[test]
fn the_python_front_end_agrees_with_rust() {
    let dir = temp_dir("python");
    let (net, bundle) = trained_bundle(&dir);
    python_agrees(&Board::new(), &bundle, &net, &dir);
    // And every shipped model, of the game its manifest names.
    let shipped = crate::bundle::shipped();
    let mut games = std::collections::BTreeSet::new();
    for bundle in &shipped {
        let net = load_net(bundle).unwrap();
        let game = contagion::nn::formats::bundle::read_manifest(bundle)
            .unwrap()
            .game
            .name;
        let name = bundle.display();
        match game.as_str() {
            "infexion" => python_agrees(&Board::new(), bundle, &net, &dir),
            "ataxx" => python_agrees(&Ataxx::standard(), bundle, &net, &dir),
            "virus" => python_agrees(&Ataxx::virus(), bundle, &net, &dir),
            "chexers" => python_agrees(&Chexers::new(), bundle, &net, &dir),
            other => panic!("{name}: a shipped bundle of an unknown game {other:?}"),
        }
        games.insert(game);
    }
    assert_eq!(games.len(), 4, "a shipped bundle for each game: {games:?}");
}

/// The Python package knows the rules of exactly the crate's built-in games (a bundle of
/// a game a program adds runs its network only: `examples/hexxagon/tests/guide.rs`).
#[test]
fn the_python_front_end_knows_the_rules_of_the_built_in_games() {
    let out = python::czero()
        .args(["-c", "import czero; print(','.join(czero.RULES))"])
        .output()
        .expect("python3");
    let names: Vec<&str> = (contagion::games::GameKind::all().iter())
        .map(|k| k.name())
        .collect();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), names.join(","));
}

/// The course-referee agent (`frontends/python/agent`) on the bundle `bundle` (under
/// `models/`) plays two whole games against the engine's alpha-beta depth 2 through
/// `contagion engine`, on a 20-second clock, with the legal moves and final positions of
/// both rule engines checked at every step; returns its wins.
fn course_agent_games(bundle: &str) -> u32 {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("frontends/python");
    let out = Command::new(python::python3())
        .arg(root.join("tests/play_engine.py"))
        .args(["--engine", env!("CARGO_BIN_EXE_contagion")])
        .args([
            "--opponent",
            "alphabeta:depth=2",
            "--games",
            "2",
            "--clock",
            "20",
        ])
        .env("CZERO_BUNDLE", root.join("../../models").join(bundle))
        .output()
        .expect("python3 must be installed (with numpy) to run the front-end tests");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{stdout}");
    let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let games = summary["games"].as_array().unwrap();
    assert_eq!(games.len(), 2);
    let mut wins = 0;
    for (g, colour) in games.iter().zip(["RED", "BLUE"]) {
        assert_eq!(g["agent"], colour);
        assert!(g["plies"].as_u64().unwrap() >= 2);
        assert!(g["agent_cpu_seconds"].as_f64().unwrap() < 20.0);
        wins += (g["result"] == "win") as u32;
    }
    // The referee's memory limit is 250 MB (this counts the driver too).
    assert!(summary["peak_mb"].as_f64().unwrap() < 250.0, "{stdout}");
    wins
}

#[test]
fn the_course_agent_plays_whole_games_against_the_engine() {
    // The shipped model beat alpha-beta depth 2 in 95 of 100 games; this agent searches
    // with the same network.
    assert!(course_agent_games("infexion-4x32-15min") >= 1);
}

/// The same agent on the shipped Infexion evaluator searches alpha-beta in Python
/// (`czero.nnue`) and keeps the referee's clock and memory limits.
#[test]
fn the_course_agent_plays_whole_games_with_the_fast_evaluator() {
    course_agent_games("infexion-nnue-128x32");
}

/// Chexers (zero padding, three value outputs), Ataxx and Virus networks survive the
/// bundle too: export through the binary, load, same outputs on random positions; and
/// the Python front end reproduces their rules, encodings and outputs.
#[test]
fn bundles_of_the_other_games_reproduce_their_checkpoints() {
    fn check<G: Game>(start: &G, dir: &Path) {
        let states = sample_positions(start, 24, 6, 1);
        let data = bundle::samples(states.clone(), &mut Rng::new(2));
        let dir = dir.join(start.name());
        std::fs::create_dir_all(&dir).unwrap();
        let (net, bundle) = bundle::export_trained(start, (1, 8), &data, 10, &dir);
        let loaded = load_net(&bundle).unwrap();
        let len = net.shape.input_len();
        let mut input = vec![0.0; states.len() * len];
        for (s, chunk) in states.iter().zip(input.chunks_mut(len)) {
            s.encode(chunk);
        }
        let (a, b) = (
            net.infer(input.clone(), states.len()),
            loaded.infer(input, states.len()),
        );
        assert!(max_diff(&a.logits, &b.logits) <= 1e-4, "{}", start.name());
        assert!(max_diff(&a.values, &b.values) <= 1e-4, "{}", start.name());
        let m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(bundle.join("manifest.json")).unwrap())
                .unwrap();
        assert_eq!(m["game"]["name"], start.name());
        assert_eq!(m["architecture"]["padding"], "zeros");
        assert_eq!(m["outputs"]["value"]["shape"][0], start.num_players());
        assert_eq!(m["game"]["start"], start.to_notation());
        // The Python front end plays this game from the manifest too.
        python_agrees(start, &bundle, &net, &dir);
    }
    let dir = temp_dir("games");
    check(&Chexers::new(), &dir);
    check(&Ataxx::standard(), &dir);
    check(&Ataxx::virus(), &dir);
}
