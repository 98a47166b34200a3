//! Tournaments with an external engine, game records and their replay, through the
//! real `contagion` binary.

use crate::process;
use process::{contagion, text};

use std::path::PathBuf;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_contagion");

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("contagion-tournament-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::remove_file(&path).ok();
    path
}

#[test]
fn an_external_engine_plays_a_round_robin_against_built_in_agents() {
    let pgn = temp("rr.pgn");
    let engine = format!("engine:{BIN} engine --game infexion --agent alphabeta:depth=2");
    let out = contagion(&[
        "tournament",
        "--game",
        "infexion",
        "--agent",
        &engine,
        "--agent",
        "greedy",
        "--agent",
        "random",
        "--games",
        "4",
        "--quiet",
        "--pgn",
        pgn.to_str().unwrap(),
    ]);
    let report = text(&out);
    assert!(out.status.success(), "{report}");
    assert!(report.contains("Standings, best first"), "{report}");
    assert!(report.contains("Crosstable"), "{report}");
    assert_eq!(
        report.matches(" vs ").count(),
        3,
        "three pairings: {report}"
    );
    assert!(report.contains("12 games appended"), "{report}");
    // The engine (depth-2 alpha-beta) beats random in every game.
    assert!(report.contains("1 vs 3: 4 games, W 4 D 0 L 0"), "{report}");
    let records = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(
        records.matches("[Event \"contagion tournament\"]").count(),
        12
    );
    assert!(
        records.contains("[Red \"engine:"),
        "the engine's name is recorded"
    );
    let list = contagion(&["replay", pgn.to_str().unwrap(), "--list"]);
    assert_eq!(
        String::from_utf8_lossy(&list.stdout).lines().count(),
        12,
        "{}",
        text(&list)
    );
    let replay = contagion(&["replay", pgn.to_str().unwrap(), "--index", "12"]);
    let shown = text(&replay);
    assert!(replay.status.success(), "{shown}");
    assert!(shown.contains("game over: "), "{shown}");
    assert!(shown.contains(" plays SP"), "{shown}");
}

#[test]
fn a_gauntlet_with_an_sprt_stops_clear_pairings_early() {
    let out = contagion(&[
        "tournament",
        "--game",
        "ataxx",
        "--gauntlet",
        "--agent",
        "alphabeta:depth=2",
        "--agent",
        "random",
        "--agent",
        "greedy",
        "--games",
        "40",
        "--threads",
        "2",
        "--sprt",
        "--sprt-elo1",
        "200",
        "--quiet",
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let pairings = r["pairings"].as_array().unwrap();
    assert_eq!(
        pairings.len(),
        2,
        "a gauntlet pairs the first agent with each other"
    );
    let vs_random = &pairings[0];
    assert_eq!(vs_random["sprt"], "H1", "{vs_random}");
    assert!(
        vs_random["report"]["games"].as_u64().unwrap() < 40,
        "{vs_random}"
    );
    assert_eq!(r["standings"][0]["agent"], "alphabeta:depth=2", "{r}");
}

#[test]
fn a_crashed_or_silent_engine_forfeits_with_a_reason_and_never_hangs() {
    // Greets properly, then dies (crash) or goes quiet (hang) when asked to move.
    let script = |after_go: &str| {
        format!(
            "engine:sh -c 'read l; echo uciok; read l; echo readyok; read l; read l; {after_go}'"
        )
    };
    for (after_go, why) in [
        ("exit 3", "exited"),
        ("sleep 600", "sent no bestmove within"),
    ] {
        let t = Instant::now();
        let out = contagion(&[
            "eval",
            "--a",
            &script(after_go),
            "--b",
            "random",
            "--games",
            "2",
            "--time-per-game",
            "2",
            "--quiet",
        ]);
        let report = text(&out);
        assert!(out.status.success(), "{report}");
        assert!(report.contains("W    0  D    0  L    2"), "{report}");
        assert!(
            report.contains("2 forfeits by A") && report.contains(why),
            "{report}"
        );
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "{after_go}: {:?}",
            t.elapsed()
        );
    }
    let out = contagion(&[
        "eval",
        "--a",
        "engine:/nonexistent/engine",
        "--b",
        "random",
        "--games",
        "2",
    ]);
    assert!(!out.status.success());
    assert!(
        text(&out).contains("cannot start '/nonexistent/engine'"),
        "{}",
        text(&out)
    );
}

#[test]
fn a_partner_takes_one_of_b_s_seats_and_changes_seats_each_opening() {
    let pgn = temp("partner.pgn");
    let eval = |game: &str, pgn: &str| {
        contagion(&[
            "eval",
            "--game",
            game,
            "--a",
            "greedy",
            "--b",
            "random",
            "--c",
            "maxn:depth=1",
            "--games",
            "6",
            "--quiet",
            "--pgn",
            pgn,
        ])
    };
    let out = eval("chexers", pgn.to_str().unwrap());
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("random + maxn:depth=1"),
        "{}",
        text(&out)
    );
    let records = std::fs::read_to_string(&pgn).unwrap();
    let games: Vec<&str> = records.split("[Event ").skip(1).collect();
    assert_eq!(games.len(), 6);
    for (g, record) in games.iter().enumerate() {
        let seats: Vec<&str> = ["Red", "Green", "Blue"]
            .iter()
            .map(|c| {
                let tag = format!("[{c} \"");
                let at = record.find(&tag).unwrap() + tag.len();
                &record[at..at + record[at..].find('"').unwrap()]
            })
            .collect();
        // A in seat g % 3; its partner right after it in the first opening, after that
        // in the second.
        let a = g % 3;
        let partner = (a + 1 + g / 3) % 3;
        for (seat, name) in seats.iter().enumerate() {
            let want = match seat {
                _ if seat == a => "greedy",
                _ if seat == partner => "maxn:depth=1",
                _ => "random",
            };
            assert_eq!(*name, want, "game {g}: {seats:?}");
        }
    }
    // Two players have no seat to share.
    let two = eval("ataxx", temp("partner-ataxx.pgn").to_str().unwrap());
    assert!(!two.status.success());
    assert!(text(&two).contains("game of three"), "{}", text(&two));
}

#[test]
fn three_player_records_replay_to_their_recorded_result() {
    let pgn = temp("chexers.pgn");
    let out = contagion(&[
        "eval",
        "--game",
        "chexers",
        "--a",
        "greedy",
        "--b",
        "random",
        "--games",
        "3",
        "--quiet",
        "--pgn",
        pgn.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let records = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(records.matches("[Game \"chexers\"]").count(), 3);
    for tag in ["[Red ", "[Green ", "[Blue "] {
        assert_eq!(records.matches(tag).count(), 3, "{tag}");
    }
    for index in ["1", "2", "3"] {
        let replay = contagion(&[
            "replay",
            pgn.to_str().unwrap(),
            "--index",
            index,
            "--moves-only",
        ]);
        let shown = text(&replay);
        assert!(replay.status.success(), "{shown}");
        let result = shown
            .lines()
            .find(|l| l.starts_with("[Result "))
            .unwrap()
            .to_string();
        let over = shown
            .lines()
            .find_map(|l| l.strip_prefix("game over: "))
            .unwrap();
        assert_eq!(result, format!("[Result \"{over}\"]"), "game {index}");
    }
    let bad = temp("bad.pgn");
    std::fs::write(&bad, "[Game \"chexers\"]\n\n1. MOVE(9,9,9,9) *\n").unwrap();
    let out = contagion(&["replay", bad.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(
        text(&out).contains("move 1 'MOVE(9,9,9,9)'"),
        "{}",
        text(&out)
    );
}
