//! The alpha-beta player's own data (`contagion distill --generate --player`): compact
//! game records that replay, filtered openings, adjudicated games, kept through a
//! `kill -9`, refused by name when damaged, and read by the evaluator's trainer.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use contagion::games::ataxx::Ataxx;
use contagion::selfplay::records::{self, Chunk};

use crate::process::{contagion, temp_dir, text};

/// A config for Ataxx's data with `distill` settings `extra` (TOML lines).
fn config(dir: &Path, extra: &str) -> PathBuf {
    let path = dir.join("data.toml");
    let text = format!(
        "[run]\nname = \"ataxx-data\"\ngame = \"ataxx\"\n\n[distill]\nhidden = 16\ndense = 8\nepochs = 1\nopening_plies = 4\n{extra}\n"
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// Every chunk under the data directory `out`, read, as the store lists them (a write a
/// kill cut short leaves a hidden temporary file, which no reader sees).
fn chunks(out: &Path) -> Vec<(PathBuf, Chunk)> {
    let store = contagion::store::open(out.to_str().unwrap()).unwrap();
    let found = store.list(records::PREFIX).unwrap();
    let found = found.iter().map(|key| out.join(key));
    let read = |p: PathBuf| {
        let bytes = std::fs::read(&p).unwrap();
        let chunk = Chunk::from_bytes(&bytes, "ataxx", &p.display().to_string()).unwrap();
        (p, chunk)
    };
    found.into_iter().map(read).collect()
}

fn generate(config: &Path, out: &Path, player: &str) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_contagion"));
    cmd.args([
        "distill",
        "--generate",
        "--quiet",
        "--threads",
        "2",
        "--config",
    ])
    .arg(config)
    .args(["--player", player, "--out"])
    .arg(out);
    cmd
}

#[test]
fn the_player_s_games_are_compact_records_that_replay_and_train_the_evaluator() {
    let dir = temp_dir("searched-data");
    let cfg = config(&dir, "games = 6\nopening_filter = 0.3\nadjudicate = 0.9");
    let out = dir.join("data");
    let o = generate(&cfg, &out, "nnue:models/ataxx,nodes=400")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("6 games of nnue:models/ataxx"),
        "{}",
        text(&o)
    );
    let found = chunks(&out);
    assert_eq!(found.len(), 1, "six games fill one chunk");
    let (path, chunk) = &found[0];
    assert_eq!(chunk.records.len(), 6);
    let positions: usize = chunk.records.iter().map(|r| r.positions()).sum();
    let bytes = std::fs::metadata(path).unwrap().len() as usize;
    assert!(
        bytes <= 20 * positions,
        "{bytes} bytes for {positions} positions"
    );
    for r in &chunk.records {
        assert_eq!(r.opening, 4);
        assert!(r.scores[..4].iter().all(|&s| s == records::NO_SCORE));
        assert!(r.scores[4..].iter().all(|&s| s != records::NO_SCORE));
        // The opening the filter kept: the first search values it within 0.3 of a draw
        // (or the filter gave up after its tries).
        let mut state = Ataxx::standard();
        for &a in &r.moves {
            state.apply(a).expect("a legal move");
        }
        let decided = (r.scores.last()).is_some_and(|&s| records::value_of(s).abs() >= 0.9);
        assert!(
            state.outcome().is_some() || decided,
            "a game ends or is adjudicated"
        );
        assert_eq!(r.result.len(), 2);
        assert_eq!(r.result[0], -r.result[1], "{:?}", r.result);
    }
    let filtered = (chunk.records.iter())
        .filter(|r| records::value_of(r.scores[4]).abs() <= 0.3)
        .count();
    assert!(filtered >= 5, "{filtered} of 6 openings within the filter");
    // The evaluator's trainer reads them.
    let bundle = dir.join("bundle");
    let train_with = |extra: &[&str]| {
        let (cfg, out, bundle) = (cfg.to_str(), out.to_str(), bundle.to_str());
        let args = [
            "distill",
            "--quiet",
            "--config",
            cfg.unwrap(),
            "--data",
            out.unwrap(),
        ];
        contagion(&[&args[..], &["--out", bundle.unwrap()], extra].concat())
    };
    let train = || train_with(&[]);
    let trained = train();
    assert!(trained.status.success(), "{}", text(&trained));
    assert!(text(&trained).contains("6 games:"), "{}", text(&trained));
    // Streamed through a buffer of 64 positions, every position trains, repeats and all.
    let streamed = train_with(&["--set", "distill.stream=64"]);
    assert!(streamed.status.success(), "{}", text(&streamed));
    let trained_on = |o: &std::process::Output| -> usize {
        let line = text(o)
            .lines()
            .find(|l| l.contains("6 games:"))
            .unwrap()
            .to_string();
        line.split_whitespace().nth(2).unwrap().parse().unwrap()
    };
    assert!(
        trained_on(&streamed) >= trained_on(&trained),
        "{}",
        text(&streamed)
    );
    let refused = train_with(&[
        "--set",
        "distill.stream=64",
        "--set",
        "distill.branches=2",
        "--teacher",
        "models/ataxx",
    ]);
    assert!(!refused.status.success());
    assert!(
        text(&refused).contains("distill.stream = 0"),
        "{}",
        text(&refused)
    );
    // A damaged chunk is refused, named.
    let mut bytes = std::fs::read(path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(path, bytes).unwrap();
    let refused = train();
    assert!(!refused.status.success());
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    assert!(text(&refused).contains(&name), "{}", text(&refused));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn killed_mid_way_the_data_keeps_every_finished_game_and_a_second_run_adds_to_it() {
    let dir = temp_dir("searched-kill");
    let cfg = config(&dir, "games = 100000");
    let out = dir.join("data");
    let mut child = generate(&cfg, &out, "nnue:models/ataxx,nodes=200")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Killed once some games are written, while others are in flight.
    let t0 = Instant::now();
    while chunks(&out)
        .first()
        .is_none_or(|(_, c)| c.records.len() < 3)
    {
        assert!(t0.elapsed() < Duration::from_secs(120), "no games written");
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let kept = chunks(&out);
    assert_eq!(kept.len(), 1);
    let before = kept[0].1.records.len();
    assert!(before >= 3);
    // Every kept game replays to its end.
    for r in &kept[0].1.records {
        let mut state = Ataxx::standard();
        for &a in &r.moves {
            state.apply(a).expect("a legal move");
        }
    }
    // A second run writes chunks of its own beside the first.
    let cfg = config(&dir, "games = 2");
    let o = generate(&cfg, &out, "nnue:models/ataxx,nodes=200")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let after = chunks(&out);
    assert_eq!(after.len(), 2, "a chunk a run");
    assert_eq!(
        after.iter().find(|(p, _)| *p == kept[0].0).unwrap().1,
        kept[0].1
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_soft_node_limit_starts_no_iteration_past_it_and_reads_back() {
    use contagion::agents::{AgentSpec, Limits};
    let start = Ataxx::standard();
    let search = |text: &str| {
        let spec: AgentSpec = text.parse().unwrap();
        assert_eq!(spec.to_string(), text);
        let mut agent = spec.build(&start, 1).unwrap();
        agent.select(&start, &Limits::default()).unwrap();
        agent.last_search().unwrap()
    };
    let hard = search("nnue:models/ataxx,nodes=40000");
    let soft = search("nnue:models/ataxx,nodes=40000,soft=2000");
    assert!(soft.nodes >= 2000, "{soft:?}");
    assert!(soft.nodes < hard.nodes, "{soft:?} against {hard:?}");
    assert!(soft.depth < hard.depth, "{soft:?} against {hard:?}");
}

#[test]
fn the_games_count_their_searches_nodes_and_time() {
    use contagion::selfplay::generate::{SearchedGames, generate_searched};
    let dir = temp_dir("searched-count");
    let nodes = 400;
    let o = SearchedGames {
        games: 2,
        opening_plies: 4,
        opening_filter: 0.0,
        adjudicate: 0.0,
        move_limit: 30,
        seed: 3,
        threads: 2,
        progress: false,
        player: format!("nnue:models/ataxx,nodes={nodes}").parse().unwrap(),
    };
    let out = dir.join("data");
    let stats = generate_searched(&Ataxx::standard(), &o, out.to_str().unwrap()).unwrap();
    let (searched, time) = stats.searched;
    // Every position is one search of at least one node and at most the limit and the
    // iteration it finishes.
    assert!(stats.positions > 0);
    assert!(
        (stats.positions..=2 * nodes * stats.positions).contains(&searched),
        "{searched} nodes for {} positions",
        stats.positions
    );
    assert!(
        time > Duration::ZERO && time <= 2 * stats.wall,
        "{time:?} of {:?}",
        stats.wall
    );
    assert!(stats.searched_nodes_per_second() > 0.0);
}
