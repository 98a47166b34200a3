//! The S3 lease is a lock, against a real S3 server (SeaweedFS on localhost): trainers
//! started at the same instant on one run, over several trials, and exactly one runs
//! each time, the others refused naming the holder; and a trainer whose lease another
//! takes stops at its next write with that reason (the process ends through `main`, not
//! `process::exit` from the renewing thread).

#[path = "support/process.rs"]
mod process;
#[path = "support/python.rs"]
mod python;
#[path = "support/s3.rs"]
mod s3;

use std::process::Child;

use s3::{config_with, read, spawn_logged, start_server, wait_for};

const TRAINERS: usize = 6;
const TRIALS: usize = 5;

#[test]
fn the_lease_admits_exactly_one_trainer_and_a_lost_lease_stops_its_holder() {
    let dir = std::env::temp_dir().join(format!("czero-lease-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("weed")).unwrap();
    let server = start_server(&dir.join("weed"));
    // A run that would go on for a long time: the winner is killed by the test.
    let config = config_with(
        &dir.join("lease.toml"),
        &[("iterations = 1", "iterations = 1000")],
    );
    let train = |url: &str, lease: &str, log: &std::path::Path| -> Child {
        let args = ["train", "--config", &config, "--store", url];
        spawn_logged(
            &[&args[..], &["--lease-seconds", lease, "--quiet"]].concat(),
            log,
        )
    };

    for trial in 0..TRIALS {
        let url = format!("s3://runs/race-{trial}");
        let logs: Vec<_> = (0..TRAINERS)
            .map(|i| dir.join(format!("race-{trial}-{i}.log")))
            .collect();
        // All started before any is waited on.
        let mut trainers: Vec<Child> = logs.iter().map(|log| train(&url, "600", log)).collect();
        // The losers end by themselves, refused; the winner holds the run until killed.
        wait_for("all but one trainer to be refused", 180, || {
            trainers
                .iter_mut()
                .map(|t| t.try_wait().unwrap().is_some())
                .filter(|&done| done)
                .count()
                >= TRAINERS - 1
        });
        let mut running = Vec::new();
        for (i, t) in trainers.iter_mut().enumerate() {
            match t.try_wait().unwrap() {
                None => running.push(i),
                Some(status) => {
                    let out = read(&logs[i]);
                    assert!(
                        !status.success(),
                        "trial {trial}: trainer {i} ran too:\n{out}"
                    );
                    assert!(
                        out.contains("in use by another trainer")
                            || out.contains("took the lease at the same moment"),
                        "trial {trial}: trainer {i}: {out}"
                    );
                }
            }
        }
        assert_eq!(running.len(), 1, "trial {trial}: exactly one trainer runs");
        let raced = (logs.iter())
            .filter(|l| read(l).contains("took the lease at the same moment"))
            .count();
        eprintln!("trial {trial}: {raced} refused by the conditional write, the rest as in use");
        let winner = running[0];
        wait_for("the winner starts its run", 120, || {
            read(&logs[winner]).contains("starting run")
        });
        trainers[winner].kill().unwrap();
        trainers[winner].wait().unwrap();
    }

    // A lease taken by another (as after a long pause past its expiry): the trainer stops
    // at its next write, saying why.
    let url = "s3://runs/taken";
    let log = dir.join("taken.log");
    let mut trainer = train(url, "3", &log);
    wait_for("the trainer starts", 120, || {
        read(&log).contains("starting run")
    });
    let run = contagion::store::open(&format!("{url}/test-run")).unwrap();
    let other = serde_json::json!({"holder": "pid 1 on elsewhere", "expires": u64::MAX / 2});
    run.put(contagion::store::s3::LEASE, other.to_string().as_bytes())
        .unwrap();
    wait_for("the trainer stops", 180, || {
        trainer.try_wait().unwrap().is_some()
    });
    let status = trainer.wait().unwrap();
    let out = read(&log);
    assert!(!status.success(), "{out}");
    assert!(
        out.contains("the lease was taken by pid 1 on elsewhere"),
        "{out}"
    );
    assert_ne!(
        status.code(),
        Some(3),
        "no process::exit from the renewer: {out}"
    );
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
