//! `contagion train` through the real binary: one full iteration of a small config,
//! resume with counters and buffer intact, refusal of incompatible configs and damaged
//! checkpoints, `--fresh`, and the trained network used as an agent.

use crate::process;
use process::{contagion, text, train};

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use contagion::nn::formats::checkpoint::Checkpoint;
use contagion::train::metrics;

/// The test config with some lines replaced, written into `dir`.
fn config_with(dir: &Path, name: &str, edits: &[(&str, &str)]) -> PathBuf {
    let mut text = std::fs::read_to_string("tests/data/test-run.toml").unwrap();
    for (from, to) in edits {
        assert!(text.contains(from), "{from}");
        text = text.replacen(from, to, 1);
    }
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn shards(run: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(run.join("replay"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn an_iteration_runs_resumes_and_refuses_bad_state() {
    let root = std::env::temp_dir().join(format!("contagion-train-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let one = Path::new("tests/data/test-run.toml");
    let run = root.join("test-run");

    // One full iteration: self-play, training, gating, baselines, metrics.
    let o = train(one, &root, &[]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("iter    1"), "{}", text(&o));
    let (m, bad) = metrics::read(&run.join("metrics.jsonl")).unwrap();
    assert_eq!((m.len(), bad), (1, 0));
    assert_eq!(m[0].iteration, 1);
    assert_eq!(m[0].games, 4);
    assert!(m[0].train_steps > 0, "trained: {:?}", m[0]);
    assert_eq!(m[0].gating.as_ref().unwrap().games, 2);
    assert_eq!(m[0].vs_baseline.as_ref().unwrap().games, 2);
    assert_eq!(m[0].vs_greedy.as_ref().unwrap().opponent, "greedy");
    let first = Checkpoint::load(&run.join("ckpt-000001.ckpt")).unwrap();
    assert_eq!((first.state.iteration, first.state.games), (1, 4));
    assert!(!first.optimizer.is_empty());
    assert!(run.join("best.ckpt").exists());
    assert!(shards(&run).iter().all(|s| s.starts_with("shard-000001-")));

    // Resume to two iterations: counters continue and the buffer keeps iteration 1.
    let two = config_with(&root, "two.toml", &[("iterations = 1 ", "iterations = 2 ")]);
    let o = train(&two, &root, &[]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("resuming"), "{}", text(&o));
    let (m, _) = metrics::read(&run.join("metrics.jsonl")).unwrap();
    assert_eq!(m.iter().map(|m| m.iteration).collect::<Vec<_>>(), [1, 2]);
    let second = Checkpoint::load(&run.join("ckpt-000002.ckpt")).unwrap();
    assert_eq!((second.state.iteration, second.state.games), (2, 8));
    assert!(second.state.steps > first.state.steps);
    assert!(second.state.positions > first.state.positions);
    assert_eq!(m[1].buffer_positions as u64, second.state.positions);
    let names = shards(&run);
    assert!(
        names.iter().any(|s| s.starts_with("shard-000001-")),
        "{names:?}"
    );
    assert!(
        names.iter().any(|s| s.starts_with("shard-000002-")),
        "{names:?}"
    );

    // An earlier checkpoint exports with its own measurements, not the run's last ones.
    let out = root.join("first-bundle");
    let o = contagion(&[
        "export",
        "--checkpoint",
        run.join("ckpt-000001.ckpt").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    let p = &manifest["provenance"];
    assert_eq!(p["iteration"], 1);
    for key in ["last_gating", "vs_baseline", "vs_greedy"] {
        assert_eq!(p[key]["iteration"], 1, "{key}: {p}");
    }

    // Minutes count the whole run, as iterations do: a resume under a budget the run
    // has already spent starts no iteration.
    let half = second.state.wall_seconds / 60.0 / 2.0;
    let spent = config_with(
        &root,
        "spent.toml",
        &[
            ("iterations = 1 ", "iterations = 3 "),
            ("max_minutes = 0.0 ", &format!("max_minutes = {half:.6} ")),
        ],
    );
    let o = train(&spent, &root, &[]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("run.max_minutes"), "{}", text(&o));
    let (m, _) = metrics::read(&run.join("metrics.jsonl")).unwrap();
    assert_eq!(m.len(), 2, "no third iteration");

    // A finished run does nothing more; an incompatible config is refused by name.
    let wider = config_with(&root, "wider.toml", &[("channels = 8 ", "channels = 12")]);
    let o = train(&wider, &root, &[]);
    assert!(!o.status.success());
    assert!(text(&o).contains("network.channels = 8"), "{}", text(&o));

    // The trained network plays through `eval` as an agent spec.
    let spec = format!("model:{},sims=4", run.display());
    let o = contagion(&[
        "eval", "--a", &spec, "--b", "random", "--games", "2", "--seed", "3",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("model:"), "{}", text(&o));

    // ... and through the engine protocol (`go nodes N` sets the simulations).
    let mut engine = Command::new(env!("CARGO_BIN_EXE_contagion"))
        .args(["engine", "--agent", &spec])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    engine
        .stdin
        .take()
        .unwrap()
        .write_all(b"position startpos moves SPAWN(3,3)\ngo nodes 12\nquit\n")
        .unwrap();
    let out = engine.wait_with_output().unwrap();
    let lines = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(lines.contains(" nodes 12 "), "{lines}");
    assert!(lines.contains("bestmove SPAWN("), "{lines}");

    // A damaged checkpoint stops the resume with a clear error, not a panic.
    let three = config_with(
        &root,
        "three.toml",
        &[("iterations = 1 ", "iterations = 3 ")],
    );
    let latest = run.join("ckpt-000002.ckpt");
    let mut bytes = std::fs::read(&latest).unwrap();
    let n = bytes.len();
    bytes[n - 10] ^= 0xFF;
    std::fs::write(&latest, &bytes).unwrap();
    let o = train(&three, &root, &[]);
    assert!(!o.status.success());
    let t = text(&o);
    assert!(
        t.contains("error:") && t.contains("checksum") && !t.contains("panicked"),
        "{t}"
    );
    let o = contagion(&[
        "eval",
        "--a",
        &format!("model:{}", latest.display()),
        "--b",
        "random",
        "--games",
        "2",
    ]);
    assert!(
        !o.status.success() && text(&o).contains("checksum"),
        "{}",
        text(&o)
    );

    // --fresh moves the old run aside and starts over.
    let o = train(one, &root, &["--fresh"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("moved to"), "{}", text(&o));
    let aside = std::fs::read_dir(&root)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("test-run-old-")
        })
        .count();
    assert_eq!(aside, 1);
    let (m, _) = metrics::read(&run.join("metrics.jsonl")).unwrap();
    assert_eq!(m.len(), 1);
    let _ = std::fs::remove_dir_all(&root);
}
