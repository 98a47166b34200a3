//! TensorBoard event files, read back by TensorBoard's own reader (`EventAccumulator`,
//! from the `tensorboard` package installed into the test venv): every scalar of every
//! `metrics.jsonl` line, once per iteration, equal to the line's value; also after a
//! trainer killed with SIGKILL is resumed, after an event file lost in a crash, and when
//! the run is extended. With `run.tensorboard = false` no event file is written.

use crate::process;
use process::{command, contagion, temp_dir, test_config, text, train};

use crate::python;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// The test config trained into `root` to `iterations` in all, with `extra` arguments.
fn train_to(root: &Path, iterations: u32, extra: &[&str]) -> std::process::Output {
    let its = format!("run.iterations={iterations}");
    let mut args = vec!["--set", its.as_str()];
    args.extend_from_slice(extra);
    train(&test_config(), root, &args)
}

/// Every scalar of a JSON value by its path, as the event files promise: numbers, and
/// booleans as 1/0.
fn flatten(prefix: &str, v: &serde_json::Value, out: &mut BTreeMap<String, f64>) {
    let path = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}/{k}")
        }
    };
    match v {
        serde_json::Value::Number(n) => {
            out.insert(prefix.to_string(), n.as_f64().unwrap());
        }
        serde_json::Value::Bool(b) => {
            out.insert(prefix.to_string(), if *b { 1.0 } else { 0.0 });
        }
        serde_json::Value::Object(map) => map.iter().for_each(|(k, v)| flatten(&path(k), v, out)),
        serde_json::Value::Array(a) => {
            (a.iter().enumerate()).for_each(|(i, v)| flatten(&path(&i.to_string()), v, out))
        }
        _ => {}
    }
}

/// TensorBoard's reading of the run's event files: tag → `[step, value]` in order.
fn tensorboard(run: &Path) -> BTreeMap<String, Vec<(i64, f64)>> {
    let out = run.join("tb.json");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/tensorboard_read.py");
    let o = Command::new(python::venv_python())
        .arg(script)
        .arg(run.join("tensorboard"))
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let json: BTreeMap<String, Vec<(i64, f64)>> =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    json
}

/// TensorBoard shows exactly the scalars of `metrics.jsonl`: every tag, each iteration
/// once, in order, with the line's value (as float32). Returns the iterations.
fn check(run: &Path) -> Vec<i64> {
    let log = std::fs::read_to_string(run.join("metrics.jsonl")).unwrap();
    let mut want: BTreeMap<String, Vec<(i64, f64)>> = BTreeMap::new();
    let mut iterations = Vec::new();
    for line in log.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let step = v["iteration"].as_i64().unwrap();
        iterations.push(step);
        let mut flat = BTreeMap::new();
        flatten("", &v, &mut flat);
        for (tag, x) in flat {
            want.entry(tag).or_default().push((step, x));
        }
    }
    let got = tensorboard(run);
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "the tags"
    );
    for (tag, events) in &want {
        let seen = &got[tag];
        let steps: Vec<i64> = seen.iter().map(|e| e.0).collect();
        assert_eq!(
            steps,
            events.iter().map(|e| e.0).collect::<Vec<_>>(),
            "{tag}: each iteration once, in order"
        );
        for ((step, x), (_, y)) in events.iter().zip(seen) {
            assert_eq!(*y as f32, *x as f32, "{tag} at iteration {step}");
        }
    }
    assert!(
        want.contains_key("loss_total") && want.contains_key("vs_baseline/score"),
        "{:?}",
        want.keys()
    );
    iterations
}

#[test]
fn tensorboard_reads_every_scalar_once_after_kill_resume_and_extension() {
    let root = temp_dir("resume");
    let run = root.join("test-run");
    // A trainer killed with SIGKILL once its first iteration is recorded.
    let its = "run.iterations=4".to_string();
    let config = test_config();
    let mut child = command(&[
        "train",
        "--config",
        config.to_str().unwrap(),
        "--checkpoints",
        root.to_str().unwrap(),
        "--quiet",
        "--set",
        &its,
    ])
    .stdout(std::process::Stdio::null())
    .spawn()
    .unwrap();
    let start = Instant::now();
    while !run.join("metrics.jsonl").is_file()
        || std::fs::read_to_string(run.join("metrics.jsonl"))
            .unwrap()
            .lines()
            .count()
            < 1
    {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no iteration recorded in 2 minutes"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    // Resumed to 3 iterations; then an event file is lost (as if the crash had come
    // between the metrics line and the event file) and the run is extended to 4.
    let o = train_to(&root, 3, &[]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(check(&run), [1, 2, 3]);
    std::fs::remove_file(run.join("tensorboard/events.out.tfevents.0000000002.contagion")).unwrap();
    let o = train_to(&root, 4, &[]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(check(&run), [1, 2, 3, 4]);
    let files = std::fs::read_dir(run.join("tensorboard")).unwrap().count();
    assert_eq!(files, 4, "one event file per iteration");
    // `contagion report` still reads the run.
    let o = contagion(&[
        "report",
        "--run",
        run.to_str().unwrap(),
        "--out",
        root.join("c.svg").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn the_switch_turns_event_files_off() {
    let root = temp_dir("off");
    let o = train_to(&root, 1, &["--set", "run.tensorboard=false"]);
    assert!(o.status.success(), "{}", text(&o));
    let run = root.join("test-run");
    assert!(run.join("metrics.jsonl").is_file());
    assert!(
        !run.join("tensorboard").exists(),
        "no event files with run.tensorboard = false"
    );
}
