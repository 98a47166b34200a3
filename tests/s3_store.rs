//! Scale-out against a real S3 server: SeaweedFS (`weed mini`, installed into the test
//! venv from PyPI) on localhost, one trainer and two self-play workers as separate
//! processes on a tiny config. One worker is SIGKILLed mid-game, the trainer once;
//! a second trainer is refused while the killed one's lease lives, and once it has
//! expired the resumed trainer continues from its last checkpoint. Then: games of both workers were trained
//! on, no upload was lost or taken twice, the best model was never seen half-written,
//! a damaged upload was refused into `rejected/`, and a worker whose config trains
//! another network shape is refused.

#[path = "support/process.rs"]
mod process;
#[path = "support/python.rs"]
mod python;
#[path = "support/s3.rs"]
mod s3;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::{Duration, Instant};

use contagion::nn::formats::checkpoint::Checkpoint;
use contagion::selfplay::replay::Shard;
use contagion::store::Store;
use contagion::train::metrics::IterationMetrics;
use process::{command as contagion, text};
use s3::{config_with, read, spawn_logged, start_server, wait_for};

fn shards(store: &dyn Store, prefix: &str) -> Vec<(String, Shard)> {
    store
        .list(prefix)
        .unwrap()
        .into_iter()
        .filter_map(|k| {
            let bytes = store.get(&k, 1 << 30).unwrap()?;
            Some((
                k.clone(),
                Shard::from_bytes(&bytes, "infexion", &k).unwrap(),
            ))
        })
        .collect()
}

#[test]
fn trainer_and_two_workers_over_a_real_s3_server_survive_kills() {
    let dir = std::env::temp_dir().join(format!("czero-s3-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let weed_dir = dir.join("weed");
    std::fs::create_dir_all(&weed_dir).unwrap();
    let server = start_server(&weed_dir);
    let store_url = "s3://runs/it";
    let run = contagion::store::open("s3://runs/it/test-run").unwrap();

    let config = config_with(
        &dir.join("s3.toml"),
        &[
            ("iterations = 1", "iterations = 3"),
            ("games_per_iteration = 4", "games_per_iteration = 12"),
            ("workers = 2  ", "workers = 0  "),
            ("sprt = true", "sprt = false"),
        ],
    );
    let config = config.as_str();

    // A damaged upload waiting before anyone starts: it must end in rejected/.
    let mut damaged = Shard {
        game: "infexion".into(),
        iteration: 0,
        games: vec![],
        worker: "w9".into(),
        model: 0,
        origin: String::new(),
    }
    .to_bytes()
    .unwrap();
    *damaged.last_mut().unwrap() ^= 0x01;
    run.put("incoming/w9-bad-00000001.bin", &damaged).unwrap();

    let trainer_args = [
        "train",
        "--config",
        config,
        "--store",
        store_url,
        "--lease-seconds",
        "600",
        "--quiet",
    ];
    let worker = |id: &'static str| {
        [
            "selfplay",
            "--config",
            config,
            "--store",
            store_url,
            "--worker-id",
            id,
            "--threads",
            "1",
            "--shard-games",
            "2",
            "--quiet",
        ]
    };
    let mut trainer = spawn_logged(&trainer_args, &dir.join("trainer-1.log"));
    let mut w1 = spawn_logged(&worker("w1"), &dir.join("w1.log"));
    let mut w2 = spawn_logged(&worker("w2"), &dir.join("w2.log"));

    // Every time best.ckpt is read during the run it must decode whole.
    let mut best_reads = 0;
    let mut check_best = || {
        if let Some(bytes) = run.get("best.ckpt", 1 << 30).unwrap() {
            Checkpoint::from_bytes(&bytes, "best.ckpt").expect("best.ckpt half-written");
            best_reads += 1;
        }
    };

    // Kill w1 mid-game, after it has uploaded something.
    let uploaded_by = |id: &str| {
        run.list("incoming/")
            .unwrap()
            .iter()
            .chain(run.list("replay/").unwrap().iter())
            .any(|k| k.contains(&format!("/{id}-")))
            || shards(run.as_ref(), "replay/")
                .iter()
                .any(|(_, s)| s.worker == id)
    };
    wait_for("w1 uploads a shard", 120, || {
        check_best();
        assert!(
            trainer.try_wait().unwrap().is_none(),
            "{}",
            read(&dir.join("trainer-1.log"))
        );
        uploaded_by("w1")
    });
    std::thread::sleep(Duration::from_millis(150));
    w1.kill().unwrap(); // SIGKILL, mid-game
    w1.wait().unwrap();

    // Kill the trainer once its first iteration is checkpointed.
    wait_for("the trainer checkpoints iteration 1", 180, || {
        check_best();
        assert!(
            trainer.try_wait().unwrap().is_none(),
            "{}",
            read(&dir.join("trainer-1.log"))
        );
        !run.list("ckpt-").unwrap().is_empty()
    });
    trainer.kill().unwrap();
    trainer.wait().unwrap();
    let last = contagion::train::rundir::checkpoints(run.as_ref())
        .unwrap()
        .last()
        .unwrap()
        .0;

    // Its lease is still live: a second trainer is refused, naming the holder.
    let refused = contagion(&trainer_args).output().unwrap();
    assert!(!refused.status.success());
    assert!(
        text(&refused).contains("in use by another trainer"),
        "{}",
        text(&refused)
    );
    // The lease expires (written as expired, as the killed trainer's would be after
    // 600 s): the trainer resumes from its last checkpoint.
    let lease = run
        .get(contagion::store::s3::LEASE, 1 << 16)
        .unwrap()
        .unwrap();
    let mut record: serde_json::Value = serde_json::from_slice(&lease).unwrap();
    record["expires"] = serde_json::json!(0);
    run.put(contagion::store::s3::LEASE, record.to_string().as_bytes())
        .unwrap();
    let resumed = contagion(&trainer_args).output().unwrap();
    let out = text(&resumed);
    assert!(resumed.status.success(), "{out}");
    assert!(
        out.contains(&format!(
            "resuming s3://runs/it/test-run after iteration {last}"
        )),
        "{out}"
    );
    check_best();
    // w2 sees the finished marker and stops by itself.
    let t0 = Instant::now();
    while w2.try_wait().unwrap().is_none() {
        assert!(t0.elapsed() < Duration::from_secs(120), "w2 did not stop");
        std::thread::sleep(Duration::from_millis(200));
    }
    let w2_log = read(&dir.join("w2.log"));
    assert!(w2_log.contains("the run is finished"), "{w2_log}");

    // The metrics: three iterations, once each; games of both workers were trained on.
    let (records, bad) =
        contagion::train::metrics::read(Path::new("s3://runs/it/test-run/metrics.jsonl")).unwrap();
    assert_eq!(bad, 0);
    let its: Vec<u32> = records.iter().map(|m| m.iteration).collect();
    assert_eq!(its, [1, 2, 3], "each iteration's record once");
    let replay = shards(run.as_ref(), "replay/");
    let mut by_worker: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, s) in &replay {
        *by_worker.entry(s.worker.as_str()).or_default() += s.games.len();
    }
    assert_eq!(
        by_worker.keys().copied().collect::<Vec<_>>(),
        ["w1", "w2"],
        "{by_worker:?}"
    );
    let last_record: &IterationMetrics = &records[2];
    let metric_games: u32 = last_record.worker_games.values().sum();
    assert_eq!(
        metric_games, last_record.games,
        "the metrics name the workers"
    );

    // No upload lost or taken twice: replay origins are distinct and disjoint from what
    // still waits; every upload w2 reported is in one of the two.
    let origins: Vec<&str> = replay.iter().map(|(_, s)| s.origin.as_str()).collect();
    let distinct: BTreeSet<&str> = origins.iter().copied().collect();
    assert_eq!(distinct.len(), origins.len(), "an upload taken twice");
    let waiting: BTreeSet<String> = run.list("incoming/").unwrap().into_iter().collect();
    assert!(distinct.iter().all(|o| !waiting.contains(*o)));
    let w2_uploads = distinct.iter().filter(|o| o.contains("/w2-")).count()
        + waiting.iter().filter(|o| o.contains("/w2-")).count();
    let reported: usize = w2_log
        .lines()
        .find_map(|l| {
            l.split(" positions in ")
                .nth(1)?
                .split(' ')
                .next()?
                .parse()
                .ok()
        })
        .expect("w2's final line");
    assert_eq!(w2_uploads, reported, "w2's uploads, all accounted for");
    // Games per iteration in the buffer match the metrics (12 each, possibly a few more).
    for m in &records {
        let games: usize = replay
            .iter()
            .filter(|(_, s)| s.iteration == m.iteration)
            .map(|(_, s)| s.games.len())
            .sum();
        assert_eq!(games as u32, m.games, "iteration {}", m.iteration);
        assert!(m.games >= 12);
    }

    // The damaged upload was refused, not trained on, and kept for inspection.
    assert!(run.list("rejected/").unwrap() == ["rejected/w9-bad-00000001.bin"]);
    let log = read(&dir.join("trainer-1.log"));
    assert!(log.contains("refused") && log.contains("checksum"), "{log}");

    // The best model is whole and the last iteration's record names it.
    check_best();
    assert!(best_reads > 3);
    let best = Checkpoint::load(Path::new("s3://runs/it/test-run/best.ckpt")).unwrap();
    assert_eq!(best.state.best_iteration, records[2].best_iteration);

    // A worker whose config trains another shape is refused with a clear message.
    let text_cfg = std::fs::read_to_string(config).unwrap();
    let other = dir.join("other.toml");
    std::fs::write(
        &other,
        text_cfg.replacen("channels = 8", "channels = 16", 1),
    )
    .unwrap();
    run.delete("finished").unwrap();
    let out = contagion(&[
        "selfplay",
        "--config",
        other.to_str().unwrap(),
        "--store",
        store_url,
        "--games",
        "1",
    ])
    .output()
    .unwrap();
    assert!(!out.status.success());
    assert!(
        text(&out).contains("another game or another config"),
        "{}",
        text(&out)
    );
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
