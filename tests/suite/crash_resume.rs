//! A trainer killed with SIGKILL at random moments and resumed loses nothing: every
//! finished iteration has exactly one metrics line with its gate, the replay window
//! loads, and the game counter equals the games on disk. Also the run lock, a torn
//! metrics line, a renamed checkpoint, a damaged best and a bad baseline, each through
//! the real binary.

use crate::process;
use process::text;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use contagion::games::infexion::Board;
use contagion::nn::formats::checkpoint::Checkpoint;
use contagion::rng::Rng;
use contagion::selfplay::replay::ReplayBuffer;
use contagion::train::metrics;

fn train_cmd(config: &Path, root: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_contagion"));
    cmd.args(["train", "--quiet", "--config"])
        .arg(config)
        .arg("--checkpoints")
        .arg(root)
        .stdin(Stdio::null());
    cmd
}

/// A fresh directory holding the test config with `edits`, as `<name>.toml`.
fn setup(name: &str, edits: &[(&str, &str)]) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("czero-crash-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut text = std::fs::read_to_string("tests/data/test-run.toml").unwrap();
    for (from, to) in edits {
        assert!(text.contains(from), "{from}");
        text = text.replacen(from, to, 1);
    }
    let config = dir.join(format!("{name}.toml"));
    std::fs::write(&config, text).unwrap();
    (dir, config)
}

/// Checks what a finished run of `iterations` must hold after any number of crashes.
fn check_run(run: &Path, iterations: u32) {
    let (records, bad) = metrics::read(&run.join("metrics.jsonl")).unwrap();
    assert_eq!(bad, 0, "no unreadable metrics line");
    let its: Vec<u32> = records.iter().map(|m| m.iteration).collect();
    assert_eq!(
        its,
        (1..=iterations).collect::<Vec<_>>(),
        "one line per iteration"
    );
    for m in &records {
        assert!(m.gating.is_some(), "iteration {} has its gate", m.iteration);
        assert!(
            m.vs_baseline.is_some(),
            "iteration {} has its baseline",
            m.iteration
        );
        assert!(
            m.games == 4 && m.train_steps > 0,
            "iteration {}: {m:?}",
            m.iteration
        );
    }
    let last = Checkpoint::load(&run.join(format!("ckpt-{iterations:06}.ckpt"))).unwrap();
    assert_eq!(last.state.iteration, iterations);
    let buffer = ReplayBuffer::open(
        &Board::new(),
        contagion::store::open(run.to_str().unwrap()).unwrap(),
        100_000,
    )
    .unwrap();
    let on_disk: usize = (1..=iterations).map(|i| buffer.stored(i).0).sum();
    assert_eq!(
        on_disk,
        4 * iterations as usize,
        "every iteration's games, once"
    );
    assert_eq!(last.state.games, on_disk as u64, "the game counter");
    let positions: usize = (1..=iterations).map(|i| buffer.stored(i).1).sum();
    assert_eq!(last.state.positions, positions as u64);
    assert_eq!(positions, buffer.len());
    let best = Checkpoint::load(&run.join("best.ckpt")).unwrap();
    let promoted = records
        .iter()
        .filter(|m| m.promoted)
        .map(|m| m.iteration)
        .max();
    assert_eq!(best.state.best_iteration, promoted.unwrap_or(0));
    let leftovers: Vec<_> = walk(run)
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn sigkill_at_random_moments_then_resume_loses_nothing() {
    const ITERATIONS: u32 = 5;
    let (dir, config) = setup(
        "kill",
        &[
            ("iterations = 1", "iterations = 5"),
            ("sprt = true", "sprt = false"),
        ],
    );
    let run = dir.join("test-run");
    // How long an uninterrupted run takes here sets the range of kill times.
    let t0 = Instant::now();
    let first = train_cmd(&config, &dir).output().unwrap();
    assert!(first.status.success(), "{}", text(&first));
    let whole = t0.elapsed().as_secs_f64();
    std::fs::remove_dir_all(&run).unwrap();

    // Sessions killed at random moments until one finishes the run; if fewer than five
    // kills landed (the machine ran faster than when `whole` was measured), the run is
    // checked and started over, so the count never depends on the machine's speed.
    let mut rng = Rng::new(7);
    let (mut kills, mut sessions) = (0, 0);
    loop {
        let mut child = train_cmd(&config, &dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        sessions += 1;
        assert!(sessions <= 200, "{kills} kills in {sessions} sessions");
        // Each session gets a random share of a whole run: most die mid-iteration.
        let wait = Duration::from_secs_f64(whole * (0.02 + 0.16 * rng.below(1000) as f64 / 1000.0));
        std::thread::sleep(wait);
        let Some(status) = child.try_wait().unwrap() else {
            child.kill().unwrap(); // SIGKILL
            child.wait().unwrap();
            kills += 1;
            continue;
        };
        assert!(status.success(), "a resumed session failed: {status}");
        if kills >= 5 {
            break;
        }
        check_run(&run, ITERATIONS);
        std::fs::remove_dir_all(&run).unwrap();
    }
    check_run(&run, ITERATIONS);
    // Once more: a finished run resumes to nothing and writes nothing twice.
    let again = train_cmd(&config, &dir).output().unwrap();
    assert!(again.status.success(), "{}", text(&again));
    check_run(&run, ITERATIONS);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_second_trainer_is_refused_and_a_dead_ones_lock_is_not_in_the_way() {
    let (dir, config) = setup("lock", &[("iterations = 1", "iterations = 50")]);
    let mut first = train_cmd(&config, &dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lock = dir.join("test-run/run.lock");
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::fs::read_to_string(&lock).map_or(true, |t| t.is_empty()) {
        assert!(
            Instant::now() < deadline,
            "the first trainer never took the lock"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let second = train_cmd(&config, &dir).output().unwrap();
    let msg = text(&second);
    assert!(!second.status.success());
    assert!(
        msg.contains("in use by another trainer") && msg.contains(&format!("pid {}", first.id())),
        "{msg}"
    );
    first.kill().unwrap();
    first.wait().unwrap();
    // The dead trainer's lock file is still there, but nobody holds it.
    assert!(lock.exists());
    let edited = std::fs::read_to_string(&config)
        .unwrap()
        .replace("iterations = 50", "iterations = 1");
    std::fs::write(&config, edited).unwrap();
    let resumed = train_cmd(&config, &dir).output().unwrap();
    assert!(resumed.status.success(), "{}", text(&resumed));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn torn_metrics_renamed_checkpoints_damaged_best_and_bad_baselines_are_handled() {
    let (dir, config) = setup("files", &[]);
    let run = dir.join("test-run");
    let ok = train_cmd(&config, &dir).output().unwrap();
    assert!(ok.status.success(), "{}", text(&ok));

    // A torn last line is cut on the next start, and the next record stays readable.
    let log = run.join("metrics.jsonl");
    let mut bytes = std::fs::read(&log).unwrap();
    bytes.extend_from_slice(b"{\"iteration\": 2, \"minu");
    std::fs::write(&log, &bytes).unwrap();
    let two = config.with_file_name("two.toml");
    let text2 = std::fs::read_to_string(&config)
        .unwrap()
        .replace("iterations = 1", "iterations = 2");
    std::fs::write(&two, text2).unwrap();
    let out = train_cmd(&two, &dir).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("cut a torn last line (22 bytes)"),
        "{}",
        text(&out)
    );
    let (records, bad) = metrics::read(&log).unwrap();
    assert_eq!((records.len(), bad), (2, 0));

    // A checkpoint copied under a later name is refused, not resumed from.
    std::fs::copy(run.join("ckpt-000001.ckpt"), run.join("ckpt-000009.ckpt")).unwrap();
    let out = train_cmd(&two, &dir).output().unwrap();
    assert!(!out.status.success());
    assert!(
        text(&out).contains("holds iteration 1, not 9"),
        "{}",
        text(&out)
    );
    std::fs::remove_file(run.join("ckpt-000009.ckpt")).unwrap();

    // A damaged best is found at start.
    let best = run.join("best.ckpt");
    let good_best = std::fs::read(&best).unwrap();
    let mut bad_best = good_best.clone();
    let mid = bad_best.len() / 2;
    bad_best[mid] ^= 0xff;
    std::fs::write(&best, &bad_best).unwrap();
    let out = train_cmd(&two, &dir).output().unwrap();
    assert!(!out.status.success());
    assert!(
        text(&out).contains("best.ckpt: corrupted"),
        "{}",
        text(&out)
    );
    std::fs::write(&best, &good_best).unwrap();

    // A baseline that cannot be built is refused before anything runs.
    let bad = config.with_file_name("bad-baseline.toml");
    let text3 = std::fs::read_to_string(&two).unwrap().replace(
        "spec = \"alphabeta:depth=2\"",
        "spec = \"model:/nonexistent\"",
    );
    std::fs::write(&bad, text3).unwrap();
    let out = train_cmd(&bad, &dir).output().unwrap();
    assert!(!out.status.success());
    let msg = text(&out);
    assert!(
        msg.contains("baseline.spec") && msg.contains("/nonexistent"),
        "{msg}"
    );

    // A config that never ends is refused after its limit, not read into memory.
    let out = train_cmd(Path::new("/dev/zero"), &dir).output().unwrap();
    assert!(!out.status.success());
    assert!(
        text(&out).contains("larger than the limit"),
        "{}",
        text(&out)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
