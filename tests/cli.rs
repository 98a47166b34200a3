//! The `contagion` command line, run as a real process.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn contagion(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_contagion"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run contagion")
}

/// `contagion eval --a greedy --b random` with more arguments.
fn eval_greedy_random(extra: &[&str]) -> Output {
    let mut args = vec!["eval", "--a", "greedy", "--b", "random"];
    args.extend_from_slice(extra);
    contagion(&args)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn eval_json_reports_a_consistent_match() {
    let o = eval_greedy_random(&["--games", "10", "--json", "--threads", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON on stdout");
    assert_eq!(v["games"], 10);
    assert_eq!(v["a"], "greedy");
    let o = &v["overall"];
    let total =
        o["wins"].as_u64().unwrap() + o["draws"].as_u64().unwrap() + o["losses"].as_u64().unwrap();
    assert_eq!(total, 10);
    assert_eq!(v["by_seat"].as_array().unwrap().len(), 2);
    assert!(v["mean_plies"].as_f64().unwrap() >= 3.0);
}

#[test]
fn eval_text_names_the_figures() {
    let o = contagion(&[
        "eval",
        "--a",
        "alphabeta:depth=1",
        "--b",
        "greedy",
        "--games",
        "4",
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for needle in [
        "A overall",
        "A as Red",
        "A as Blue",
        "Elo of A vs B",
        "mean game length",
    ] {
        assert!(text.contains(needle), "missing '{needle}' in:\n{text}");
    }
}

#[test]
fn bad_arguments_are_clear_errors() {
    let o = contagion(&["eval", "--a", "alphabeta:dept=3", "--b", "random"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no parameter 'dept'"), "{}", stderr(&o));

    let o = eval_greedy_random(&["--games", "3"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("multiple of 2"), "{}", stderr(&o));

    let o = eval_greedy_random(&["--time-per-game=-1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--time-per-game"), "{}", stderr(&o));

    // Too large for a clock: refused, not a panic.
    let o = eval_greedy_random(&["--time-per-game", "1e30"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("from 0 to 1e9"), "{}", stderr(&o));

    let o = eval_greedy_random(&["--opening-plies", "400"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("fewer opening plies"), "{}", stderr(&o));

    let o = contagion(&["engine", "--agent", "human"]);
    assert_eq!(o.status.code(), Some(1));

    let o = contagion(&["bench", "rules", "--rounds", "0"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--rounds"));

    let o = contagion(&["frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn bench_prints_positive_rates() {
    let o = contagion(&[
        "bench",
        "rules",
        "--rounds",
        "1",
        "--playouts",
        "20",
        "--perft-depth",
        "2",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rates: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rates.len(), 3);
    assert!(rates.iter().all(|r| r["median"].as_f64().unwrap() > 0.0));
    let o = contagion(&[
        "bench",
        "search",
        "--rounds",
        "1",
        "--depth",
        "2",
        "--positions",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("alpha-beta depth 2 nodes"));
}

#[test]
fn play_shows_the_moves_and_the_result() {
    let o = contagion(&["play", "--a", "greedy", "--b", "random", "--seed", "3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("  1. Red   SPAWN("), "{text}");
    let last = text.lines().last().unwrap();
    assert!(["Red wins", "Blue wins", "draw"].contains(&last), "{last}");
}

#[test]
fn a_human_types_moves_and_may_quit() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_contagion"))
        .args(["play", "--a", "human", "--b", "greedy"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"nonsense\nSPAWN(3,3)\nquit\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("cannot parse 'nonsense'"),
        "{}",
        stderr(&o)
    );
    let text = stdout(&o);
    assert!(text.contains("  1. Red   SPAWN(3,3)"), "{text}");
    assert!(
        text.contains("Red forfeits: agent failed: game abandoned"),
        "{text}"
    );
    assert!(text.trim_end().ends_with("Blue wins"), "{text}");
}
