//! The `contagion` command line, run as a real process.

use crate::process;
use process::contagion;

use std::process::Output;

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

    // A game's name: malformed is a usage error, unknown names the games there are.
    let o = contagion(&["play", "--game", "Chess!"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is not a game's name"),
        "{}",
        stderr(&o)
    );
    let o = contagion(&["engine", "--game", "chess"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o)
            .contains("unknown game 'chess': this build plays infexion, ataxx, virus, chexers"),
        "{}",
        stderr(&o)
    );
    let dir = process::temp_dir("unknown-game");
    let config = dir.join("chess.toml");
    std::fs::write(&config, "[run]\nname = \"chess\"\ngame = \"chess\"\n").unwrap();
    let o = process::train(&config, &dir, &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("unknown game 'chess'"),
        "{}",
        stderr(&o)
    );
    assert!(
        !dir.join("chess").exists(),
        "no run directory for a game it cannot play"
    );
}

/// The JSON objects a successful `--json` run printed, one a line.
fn json_lines(o: &std::process::Output) -> Vec<serde_json::Value> {
    assert!(o.status.success(), "{}", stderr(o));
    stdout(o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
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
    let rates = json_lines(&o);
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
fn bench_endgame_solves_ataxx_endgames_and_scores_an_agent() {
    let endgame = |more: &str| {
        let line = format!("bench --game ataxx endgame --size 2 --positions 3 --json {more}");
        contagion(&line.split_whitespace().collect::<Vec<_>>())
    };
    let figures = json_lines(&endgame("--ms 2000 --reference"));
    assert_eq!(figures.len(), 2);
    for f in &figures {
        assert_eq!(f["positions"], 3);
        assert!(f["solved"].as_u64().unwrap() >= 2, "{f}");
        assert_eq!(f["agree"], true, "the solver and plain minimax agree: {f}");
    }
    // An agent's moves, scored against the exact results.
    for f in json_lines(&endgame(
        "--ms 50 --agent alphabeta:depth=4 --exact-ms 2000",
    )) {
        let (solved, kept) = (f["solved"].as_u64().unwrap(), f["kept"].as_u64().unwrap());
        assert!(solved >= 2 && kept >= 1, "{f}");
        assert!(kept + f["unknown"].as_u64().unwrap() <= solved, "{f}");
    }
    // Games the solver takes no position of, and bad values, are refused clearly.
    let o = contagion(&["bench", "endgame"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("takes no position of infexion"),
        "{}",
        stderr(&o)
    );
    let o = contagion(&["bench", "--game", "ataxx", "endgame", "--size", "0"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--size"), "{}", stderr(&o));
}

#[test]
fn bench_agree_holds_the_low_precision_forwards_to_the_float_one() {
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/models/ataxx-4x32-15min");
    let agree = |more: &[&str]| {
        let args = [
            "bench", "--game", "ataxx", "agree", "--model", model, "--json",
        ];
        contagion(&[&args[..], more].concat())
    };
    // Every forward but the float one: a line of figures, or a note that the CPU lacks it.
    let check = |o: &Output, positions: u64| {
        assert!(o.status.success(), "{}", stderr(o));
        let lines = json_lines(o);
        let missing = stderr(o).matches("not available on this CPU").count();
        assert_eq!(lines.len() + missing, 3, "{}", stdout(o));
        for a in &lines {
            assert_eq!(a["positions"], positions, "{a}");
            let top1 = a["top1"].as_f64().unwrap();
            assert!((0.9..=1.0).contains(&top1), "{a}");
            let within: Vec<u64> = (a["misses_within"].as_array().unwrap().iter())
                .map(|n| n.as_u64().unwrap())
                .collect();
            assert!(within.windows(2).all(|w| w[0] <= w[1]), "{a}");
            assert!(a["value_p99"].as_f64().unwrap() <= a["value_max"].as_f64().unwrap());
        }
    };
    check(&agree(&["--positions", "300"]), 300);
    // Positions from a record: every one where a move is to be made.
    let pgn = process::temp_dir("bench-agree").join("game.pgn");
    let game = "[Game \"ataxx\"]\n\n1. g1e2 g7g5 2. d1 g6 3. d1b2 f4 *\n";
    std::fs::write(&pgn, game).unwrap();
    check(&agree(&["--pgn", pgn.to_str().unwrap()]), 7);
    // A model of another game and a bad count are refused clearly.
    let o = agree(&["--game", "infexion"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("pass --game ataxx"), "{}", stderr(&o));
    let o = agree(&["--positions", "0"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--positions must be"), "{}", stderr(&o));
}

#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    let mut cmd = process::command(&["config", "--config", "configs/ataxx.toml"]);
    // The pipe's reader is gone before the process starts, so its first line fails.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let child = (cmd.stdout(writer))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(141), "{}", stderr(&o));
    assert_eq!(stderr(&o), "", "no panic report");
}

#[test]
fn play_shows_the_moves_and_the_result() {
    let o = contagion(&["play", "--a", "greedy", "--b", "random", "--seed", "3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("  1. Red (greedy) plays SPAWN("), "{text}");
    assert!(text.contains("  2. Blue (random) plays "), "{text}");
    let last = text.lines().last().unwrap();
    assert!(["Red wins", "Blue wins", "draw"].contains(&last), "{last}");
    assert!(!text.contains('\x1b'), "no colour codes into a pipe");
}

/// Runs `contagion play` with `input` typed on a pipe.
fn play_typed(args: &[&str], input: &str) -> Output {
    process::with_input(process::command(&[&["play"], args].concat()), input)
}

#[test]
fn a_human_is_told_why_a_move_is_refused_and_may_undo() {
    let bundle = concat!(env!("CARGO_MANIFEST_DIR"), "/models/infexion-4x32-15min");
    let o = play_typed(
        &["--b", &format!("model:{bundle},sims=40"), "--no-color"],
        "nonsense\nSPAWN(3,3)\nSPAWN(3,3)\nSPREAD(0,0,1,0)\nmoves\nundo\nundo\nSPAWN(1,1)\nquit\n",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let expect = [
        // The board with coordinates, and the typed lines echoed back.
        "     q=0   1   2   3   4   5   6",
        "Red> nonsense",
        "cannot parse 'nonsense': expected SPAWN(r,q) or SPREAD(r,q,dr,dq); try again",
        "  2. Blue (model:",
        "40 simulations in",
        "% of visits   value ",
        "r=3          .   .   .  R1   .",
        "illegal move SPAWN(3,3): SPAWN needs an empty cell; try again",
        "illegal move SPREAD(0,0,1,0): SPREAD needs a stack of yours, and that cell is empty",
        "53 legal moves: SPAWN(0,0)",
        "taken back to ply 0",
        "nothing to undo",
        "r=1      .  R1   .",
        "game abandoned at ply 2",
    ];
    let mut from = 0;
    for line in expect {
        let at = text[from..]
            .find(line)
            .unwrap_or_else(|| panic!("'{line}' missing in order:\n{text}"));
        from += at;
    }
    assert!(!text.contains('\x1b'), "--no-color");
}

#[test]
fn a_human_cannot_play_outside_play() {
    let o = contagion(&["eval", "--a", "human", "--b", "random", "--games", "2"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("use `contagion play`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn counts_past_their_limits_are_refused_before_any_work() {
    for (args, why) in [
        (
            vec!["--games", "1000000000"],
            "--games = 1000000000 is over the limit of 100000",
        ),
        (
            vec!["--threads", "100000"],
            "invalid value '100000' for '--threads <N>': 100000 is not in 1..=256",
        ),
    ] {
        let t = std::time::Instant::now();
        let out = eval_greedy_random(&args);
        assert!(!out.status.success());
        assert!(stderr(&out).contains(why), "{}", stderr(&out));
        assert!(t.elapsed() < std::time::Duration::from_secs(5));
    }
    let out = contagion(&["bench", "selfplay", "--workers", "100000"]);
    assert!(stderr(&out).contains("--workers = 100000 is over the limit of 256"));
}

/// `report` draws the learning curves as SVG and PNG (text rendered with the embedded
/// font) from a real run's metrics.
#[test]
fn report_writes_svg_and_png_curves() {
    let dir = std::env::temp_dir().join(format!("contagion-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let root = env!("CARGO_MANIFEST_DIR");
    std::fs::copy(
        format!("{root}/experiments/first-campaign/infexion-gumbel32/metrics.jsonl"),
        dir.join("metrics.jsonl"),
    )
    .unwrap();
    // `report --run DIR`, and `--out OUT` where given.
    let report = |out: Option<&std::path::Path>| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_contagion"));
        cmd.args(["report", "--run"]).arg(&dir);
        if let Some(out) = out {
            cmd.arg("--out").arg(out);
        }
        cmd.output().unwrap()
    };
    let out = report(None);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("curves.svg and "), "{text}");
    let svg = std::fs::read_to_string(dir.join("curves.svg")).unwrap();
    for label in [
        "best vs alphabeta:depth=2",
        "candidate vs best",
        "mean plies per game",
        "learning rate",
        "policy",
    ] {
        assert!(svg.contains(label), "the SVG lacks '{label}'");
    }
    let png = std::fs::read(dir.join("curves.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    assert!(
        png.len() > 50_000,
        "a PNG of {} bytes has no curves or text",
        png.len()
    );
    // Asked for by the PNG's name, the SVG goes beside it, not into it.
    let named = dir.join("named.png");
    let out = report(Some(&named));
    assert!(out.status.success());
    assert!(std::fs::read(&named).unwrap().starts_with(b"\x89PNG"));
    let svg = std::fs::read_to_string(dir.join("named.svg")).unwrap();
    assert!(svg.contains("<svg"), "the SVG beside the PNG");
    // A folder that is not there: an error naming the file once, and no panic.
    let missing = dir.join("absent").join("curves.svg");
    let out = report(Some(&missing));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && !err.contains("panicked"), "{err}");
    assert_eq!(
        err.matches(&*missing.display().to_string()).count(),
        1,
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `train --set` overrides are validated like the file, and a bad one names itself.
#[test]
fn train_set_overrides_are_validated_like_the_file() {
    let dir = std::env::temp_dir().join(format!("contagion-set-{}", std::process::id()));
    let config = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/infexion-tiny.toml");
    for (set, why) in [
        ("mcts.simulation=3", "unknown field `simulation`"),
        ("gating.threshold=2", "gating.threshold = 2 is out of range"),
        ("mcts.simulations=-3", "invalid value"),
        ("foo", "expected SECTION.KEY=VALUE"),
        ("a.b.c=1", "the key must be SECTION.KEY"),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_contagion"))
            .args(["train", "--config", config, "--checkpoints"])
            .arg(&dir)
            .args(["--set", set])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{set} was accepted");
        assert!(err.contains(why) && err.contains("--set"), "{set}: {err}");
    }
    assert!(!dir.join("infexion-tiny").exists(), "nothing was started");
}

/// The device: an unknown one, a GPU in a build without it (the default build, here), and
/// `--device` given to a run are refused with a clear error before any work.
#[test]
fn a_device_that_is_missing_or_misplaced_is_refused_before_any_work() {
    let dir = process::temp_dir("device");
    let config = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/infexion-tiny.toml");
    let train = |extra: &[&str]| {
        let mut args = vec!["train", "--config", config, "--checkpoints"];
        args.push(dir.to_str().unwrap());
        args.extend_from_slice(extra);
        contagion(&args)
    };
    let mut cases: Vec<(Output, &str)> = vec![
        (train(&["--set", "train.device=tpu"]), "train.device"),
        (train(&["--device", "wgpu"]), "--set train.device=wgpu"),
        (
            contagion(&["eval", "--device", "tpu", "--a", "random", "--b", "random"]),
            "[possible values: cpu, wgpu]",
        ),
    ];
    if !cfg!(feature = "wgpu") {
        cases.push((train(&["--set", "train.device=wgpu"]), "--features wgpu"));
        cases.push((
            contagion(&["eval", "--device", "wgpu", "--a", "random", "--b", "random"]),
            "built without the GPU backend",
        ));
    }
    for (out, why) in cases {
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "accepted: {err}");
        assert!(err.contains(why), "{why}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    assert!(!dir.join("infexion-tiny").exists(), "nothing was started");
    std::fs::remove_dir_all(&dir).ok();
}

/// `contagion ladder` of the shipped Ataxx bundle at 5 and 20 ms a move, with more arguments.
fn ataxx_ladder(extra: &[&str]) -> Output {
    let mut args = vec![
        "ladder",
        "--game",
        "ataxx",
        "--model",
        "models/ataxx-4x32-15min",
        "--times",
        "5,20",
    ];
    args.extend_from_slice(extra);
    contagion(&args)
}

#[test]
fn a_ladder_writes_its_table_and_plot_and_models_keep_to_their_time() {
    let dir = process::temp_dir("ladder");
    let out = dir.join("ataxx");
    let o = ataxx_ladder(&[
        "--games",
        "2",
        "--factor-games",
        "2,0",
        "--threads",
        "2",
        "--quiet",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rungs: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let rungs = rungs.as_array().unwrap();
    let times: Vec<(u64, u64)> = (rungs.iter())
        .map(|r| {
            (
                r["ms"].as_u64().unwrap(),
                r["opponent_ms"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(times, [(5, 5), (5, 50), (20, 20)]);
    for r in rungs {
        let m = &r["report"];
        assert_eq!(m["games"], 2);
        // Generous (the machine is shared): a move overrunning its time by seconds,
        // as a search that ignored the clock did, fails.
        let ms = r["ms"].as_f64().unwrap();
        assert!(m["a_slowest_ms"].as_f64().unwrap() < 5.0 * ms + 50.0, "{m}");
        let (game, ply) = (&m["a_slowest_at"][0], &m["a_slowest_at"][1]);
        assert!(
            matches!(game.as_u64(), Some(1..=2)) && ply.as_u64() > Some(0),
            "{m}"
        );
        assert!(
            m["a_ms_per_move"].as_f64().unwrap() <= ms * 1.2 + 2.0,
            "{m}"
        );
    }
    let md = std::fs::read_to_string(dir.join("ataxx.md")).unwrap();
    assert_eq!(
        md.matches("\n| 5 |").count() + md.matches("\n| 20 |").count(),
        3,
        "{md}"
    );
    assert!(
        md.contains("Machine: ") && md.contains("contagion ladder --game ataxx"),
        "{md}"
    );
    assert!(md.contains("](ataxx.svg)"), "{md}");
    let svg = std::fs::read_to_string(dir.join("ataxx.svg")).unwrap();
    assert!(svg.contains("alphabeta at 10x the time"), "{svg}");
    assert!(dir.join("ataxx.png").exists() == cfg!(feature = "png"));
    // Counts that do not match the times are refused before any game.
    let o = ataxx_ladder(&["--games", "2,2,2"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("--games: give one count, or one per time"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(dir).unwrap();
}
