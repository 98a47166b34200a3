//! The engine protocol, driven through pipes against the real `contagion` binary.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use contagion::games::Game;
use contagion::games::infexion::Board;

/// A running `contagion engine` with line-at-a-time access.
struct Engine {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// Set once the engine has exited, so the watchdog never signals a reused pid.
    done: Arc<AtomicBool>,
}

impl Engine {
    fn start(agent: &str) -> Engine {
        Engine::start_game("infexion", agent)
    }

    fn start_game(game: &str, agent: &str) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_contagion"))
            .args(["engine", "--game", game, "--agent", agent])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the engine");
        // A watchdog: a hung engine fails the test (its output closes) instead of hanging it.
        let pid = child.id().to_string();
        let done = Arc::new(AtomicBool::new(false));
        let watched = Arc::clone(&done);
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_secs(60));
            if !watched.load(Ordering::SeqCst) {
                let _ = Command::new("kill").args(["-9", &pid]).status();
            }
        });
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Engine {
            child,
            stdin,
            stdout,
            done,
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn read(&mut self) -> String {
        let mut line = String::new();
        assert!(
            self.stdout.read_line(&mut line).unwrap() > 0,
            "engine closed its output"
        );
        line.trim_end().to_string()
    }

    /// Sends a command that must be answered by exactly one line.
    fn ask(&mut self, line: &str) -> String {
        self.send(line);
        self.read()
    }

    /// Sends a command with no reply, then proves nothing was printed by pinging.
    fn silent(&mut self, line: &str) {
        self.send(line);
        assert_eq!(
            self.ask("isready"),
            "readyok",
            "'{line}' should print nothing"
        );
    }

    /// Sends `go …`; returns the info lines and the move.
    fn go(&mut self, line: &str) -> (Vec<String>, String) {
        self.send(line);
        self.bestmove()
    }

    /// Reads up to the `bestmove` line; returns the info lines and the move.
    fn bestmove(&mut self) -> (Vec<String>, String) {
        let mut info = Vec::new();
        loop {
            let reply = self.read();
            if let Some(m) = reply.strip_prefix("bestmove ") {
                return (info, m.to_string());
            }
            assert!(reply.starts_with("info "), "unexpected reply '{reply}'");
            info.push(reply);
        }
    }

    fn position(&mut self) -> String {
        self.send("show");
        loop {
            let line = self.read();
            if let Some(p) = line.strip_prefix("position ") {
                return p.to_string();
            }
        }
    }

    /// Sends `uai`/`uci`; checks the identity and returns the option lines.
    fn handshake(&mut self, hello: &str) -> Vec<String> {
        self.send(hello);
        assert!(self.read().starts_with("id name Contagion Zero"));
        assert!(self.read().starts_with("id author"));
        let mut options = Vec::new();
        loop {
            let line = self.read();
            if line == format!("{hello}ok") {
                return options;
            }
            assert!(line.starts_with("option name "), "{line}");
            options.push(line);
        }
    }

    fn quit(mut self) {
        self.send("quit");
        let status = self.child.wait().unwrap();
        self.done.store(true, Ordering::SeqCst);
        assert!(status.success(), "engine exit status {status}");
    }
}

#[test]
fn handshake_perft_and_quit() {
    let mut e = Engine::start("alphabeta:depth=2");
    assert_eq!(e.ask("isready"), "readyok");
    assert_eq!(e.ask("perft 1"), "49");
    assert_eq!(e.ask("perft 2"), "2352");
    assert_eq!(e.ask("perft 3"), "124656");
    e.silent("position startpos moves SPAWN(3,3) SPAWN(2,2)");
    assert_eq!(e.ask("perft 1"), "53", "47 spawns and 6 spreads");
    e.quit();
}

#[test]
fn go_returns_a_legal_move_for_each_kind_of_limit() {
    let mut e = Engine::start("alphabeta:depth=2");
    e.silent("position startpos moves SPAWN(3,3) SPAWN(2,2)");
    let board = Board::from_notation(&e.position()).unwrap();
    for go in [
        "go",
        "go depth 3",
        "go nodes 2000",
        "go movetime 50",
        "go wtime 1000 btime 1000",
    ] {
        let (info, mv) = e.go(go);
        assert!(
            board.parse_legal_action(&mv).is_ok(),
            "{go}: '{mv}' is not legal"
        );
        assert_eq!(info.len(), 1, "{go}: one info line");
    }
    let (info, _) = e.go("go depth 3");
    assert!(
        info[0].starts_with("info depth 3 seldepth 3 nodes "),
        "{}",
        info[0]
    );
    e.quit();
}

#[test]
fn position_accepts_notation_with_and_without_fen() {
    let mut e = Engine::start("greedy");
    e.silent("position 7/1r25/7/3b33/7/7/7 r 4 moves SPAWN(5,4)");
    assert_eq!(e.position(), "7/1r25/7/3b33/7/4r12/7 b 5");
    e.silent("position fen r2b1b14/7/7/7/7/7/7 r 8");
    let (_, mv) = e.go("go");
    assert_eq!(mv, "SPREAD(0,0,0,1)", "greedy takes both Blue stacks");
    e.silent("position r2b1b14/7/7/7/7/7/7 r 8 moves SPREAD(0,0,0,1)");
    let (_, mv) = e.go("go");
    assert_eq!(mv, "none", "the game is over");
    assert_eq!(e.ask("moves"), "");
    e.silent("newgame");
    assert_eq!(e.position(), "7/7/7/7/7/7/7 r 0");
    e.quit();
}

#[test]
fn malformed_lines_get_one_error_and_change_nothing() {
    let mut e = Engine::start("alphabeta:depth=1");
    e.silent("position startpos moves SPAWN(1,1)");
    let before = e.position();
    for bad in [
        "hello",
        "go movetime",
        "go movetime -5",
        "go sideways 3",
        "perft",
        "perft x",
        "perft 99",
        "perft 7",
        "position",
        "position 7/7/7 r 0",
        "position startpos moves SPAWN(9,9)",
        "position startpos moves SPAWN(0,0) SPREAD(0,0,0,1)",
        "position startpos moves SPAWN(0,0) SPAWN(0,1) SPREAD(0,0,0,1) SPAWN(3,3)",
        "SPAWN(0,0)",
    ] {
        let reply = e.ask(bad);
        assert!(reply.starts_with("error "), "'{bad}' got '{reply}'");
        assert_eq!(
            e.ask("isready"),
            "readyok",
            "'{bad}' printed more than one line"
        );
    }
    assert_eq!(
        e.position(),
        before,
        "failed commands leave the position alone"
    );
    e.silent("");
    e.silent("   ");
    e.quit();
}

#[test]
fn illegal_moves_in_position_name_the_move_and_the_reason() {
    let mut e = Engine::start("random");
    let reply = e.ask("position startpos moves SPAWN(0,0) SPREAD(0,0,0,1)");
    assert_eq!(
        reply,
        "error position: move 2 'SPREAD(0,0,0,1)': illegal move SPREAD(0,0,0,1): SPREAD needs \
         a stack of yours, and that one is Red's"
    );
    let reply = e.ask("position startpos moves SPAWN(0,0) SPAWN(0,1) SPREAD(0,0,0,1) SPAWN(3,3)");
    assert_eq!(
        reply,
        "error position: move 4 'SPAWN(3,3)': the game is over"
    );
    e.quit();
}

#[test]
fn invalid_utf8_is_an_error_not_a_crash() {
    let mut e = Engine::start("random");
    e.stdin.write_all(b"isre\xffady\n").unwrap();
    e.stdin.flush().unwrap();
    assert_eq!(e.read(), "error input is not valid UTF-8");
    assert_eq!(e.ask("isready"), "readyok");
    e.quit();
}

#[test]
fn end_of_input_ends_the_engine_cleanly() {
    let mut e = Engine::start("random");
    assert_eq!(e.ask("isready"), "readyok");
    drop(e.stdin);
    let status = e.child.wait().unwrap();
    e.done.store(true, Ordering::SeqCst);
    assert!(status.success());
}

/// The UAI subset Ataxx tools use: handshake, new game, FEN positions, clocks by colour
/// (`btime` is `x`'s, who moves first as Black), and moves in Ataxx notation.
#[test]
fn ataxx_speaks_uai() {
    let mut e = Engine::start_game("ataxx", "alphabeta:ms=50");
    let options = e.handshake("uai");
    assert!(
        options.contains(&"option name Threads type spin default 1 min 1 max 256".to_string()),
        "{options:?}"
    );
    e.silent("setoption name Threads value 2");
    e.silent("uainewgame");
    assert_eq!(e.ask("perft 3"), "6460");
    e.silent("position startpos moves b6 g7e5");
    // x cloned a7→b6; o jumped g7→e5 (g7 empties).
    assert_eq!(e.position(), "x6/1x5/4o2/7/7/7/o5x x 1 2");
    let (info, m) = e.go("go btime 5000 wtime 5000 binc 100 winc 100");
    assert!(info[0].starts_with("info depth "), "{info:?}");
    let board = contagion::games::ataxx::Ataxx::standard()
        .parse_position("x6/1x5/4o2/7/7/7/o5x x 1 2")
        .unwrap();
    assert!(board.parse_legal_action(&m).is_ok(), "bestmove {m}");
    // o to move: its clock is wtime; a tiny one still gives a move at once.
    e.silent("position fen x5o/7/7/7/7/7/o5x o 0 1");
    let (_, m) = e.go("go wtime 1 btime 600000");
    assert!(board.parse_action(&m).is_ok(), "{m}");
    // A forced pass is written 0000.
    e.silent("position fen 7/7/7/7/ooooooo/ooooooo/xxxxxxx x 0 1");
    assert_eq!(e.go("go movetime 100").1, "0000");
    assert!(
        e.ask("position fen x5o/7/7 x 0 1")
            .starts_with("error position:")
    );
    e.quit();
}

#[test]
fn chexers_plays_through_the_engine() {
    let mut e = Engine::start_game("chexers", "maxn:depth=2");
    assert_eq!(e.ask("perft 3"), "512");
    e.silent("position startpos moves MOVE(-3,0,-2,0) MOVE(0,-3,0,-2)");
    assert_eq!(e.position(), "1ggg/1g3/6/1r4b/r4b/r3b/r2b b 0/0/0 2");
    let (info, m) = e.go("go");
    assert!(info[0].starts_with("info depth 2"), "{info:?}");
    assert!(m.starts_with("MOVE(") || m.starts_with("JUMP("), "{m}");
    e.quit();
}

#[test]
fn stop_ends_an_endless_search_at_once_with_a_legal_move() {
    for (game, agent, go) in [
        ("infexion", "alphabeta:depth=2", "go depth 1000"),
        ("ataxx", "alphabeta:depth=2", "go depth 1000"),
        (
            "infexion",
            "model:models/infexion-4x32-15min",
            "go nodes 10000000000",
        ),
        ("ataxx", "nnue:models/ataxx", "go depth 64"),
        ("infexion", "nnue:models/infexion", "go infinite"),
    ] {
        let mut e = Engine::start_game(game, agent);
        e.send(go);
        std::thread::sleep(std::time::Duration::from_millis(700));
        let t = std::time::Instant::now();
        e.send("stop");
        let (_, mv) = e.bestmove();
        // Generous for a loaded machine: the search would otherwise run for hours.
        assert!(
            t.elapsed() < std::time::Duration::from_secs(30),
            "{game} {agent}: stop took {:?}",
            t.elapsed()
        );
        let moves = e.ask("moves");
        assert!(moves.split(' ').any(|m| m == mv), "{mv} not in {moves}");
        // The stop was used up: the next search runs to its own limit.
        let (_, again) = e.go("go depth 1");
        assert!(moves.split(' ').any(|m| m == again));
        e.quit();
    }
}

#[test]
fn huge_lines_are_refused_and_echoes_are_capped() {
    let mut e = Engine::start("alphabeta:depth=1");
    let huge = "x".repeat(200_000);
    let reply = e.ask(&huge);
    assert!(
        reply.starts_with("error input line longer than 65536 bytes"),
        "{reply}"
    );
    let reply = e.ask(&"é".repeat(5_000));
    assert!(
        reply.starts_with("error unknown command") && reply.len() < 400,
        "{reply}"
    );
    let reply = e.ask(&format!("position startpos moves {}", "Q".repeat(10_000)));
    assert!(
        reply.contains("more characters") && reply.len() < 400,
        "{reply}"
    );
    assert_eq!(e.ask("isready"), "readyok");
    e.quit();
}

/// The value after `key` in an `info` line.
fn field<'a>(info: &'a str, key: &str) -> &'a str {
    let words: Vec<&str> = info.split(' ').collect();
    let i = words
        .iter()
        .position(|&w| w == key)
        .unwrap_or_else(|| panic!("no {key} in {info}"));
    words[i + 1]
}

/// The principal variation of an `info` line.
fn pv(info: &str) -> Vec<&str> {
    info.split(" pv ")
        .nth(1)
        .map_or(Vec::new(), |p| p.split(' ').collect())
}

/// The search's own `info` line among a `go`'s: a network search whose tree fills half
/// of Hash says so first (`info string the tree is full …`), on a fast machine within
/// a second of one tree.
fn search_line(info: &[String]) -> Option<&str> {
    (info.iter().map(String::as_str)).find(|l| !l.starts_with("info string"))
}

#[test]
fn bestmove_is_the_first_move_of_the_reported_pv() {
    for (game, agent) in [
        ("infexion", "alphabeta:depth=3"),
        ("infexion", "model:models/infexion-4x32-15min,sims=60"),
        (
            "infexion",
            "model:models/infexion-4x32-15min,sims=60,gumbel=8",
        ),
        ("ataxx", "model:models/ataxx-4x32-15min,sims=60"),
        ("ataxx", "alphabeta:depth=2"),
        ("chexers", "maxn:depth=2"),
        ("chexers", "alphabeta:depth=2"),
        ("ataxx", "nnue:models/ataxx,depth=3"),
        ("infexion", "nnue:models/infexion,ms=50"),
        ("chexers", "nnue:models/chexers,depth=2"),
        ("virus", "nnue:models/virus,depth=2"),
    ] {
        let mut e = Engine::start_game(game, agent);
        for moves in ["", " moves", ""] {
            e.silent(&format!("position startpos{moves}"));
            let (info, best) = e.go("go");
            let info = &info[0];
            assert_eq!(pv(info).first(), Some(&best.as_str()), "{agent}: {info}");
            for key in ["depth", "seldepth", "nodes", "nps", "time"] {
                assert!(
                    field(info, key).parse::<u64>().is_ok(),
                    "{agent}: {key} in {info}"
                );
            }
            let kind = info
                .split(" score ")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap();
            assert!(kind == "cp" || kind == "mate", "{agent}: {info}");
            // The pv is legal: position … moves PV is accepted.
            e.silent(&format!("position startpos moves {}", pv(info).join(" ")));
        }
        e.quit();
    }
}

#[test]
fn a_forced_win_is_reported_as_mate() {
    for agent in ["alphabeta:depth=3", "nnue:models/infexion"] {
        let mut e = Engine::start(agent);
        e.silent("position fen r2b1b14/7/7/7/7/7/7 r 8");
        let (info, best) = e.go("go");
        assert_eq!(best, "SPREAD(0,0,0,1)", "{agent}");
        assert_eq!(field(&info[0], "mate"), "1", "{agent}: {}", info[0]);
        e.quit();
    }
}

/// The engine's resident memory, from `/proc` (Linux), in KiB.
fn resident_kib(e: &Engine) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", e.child.id())).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// An endless search keeps within the `Hash` option: a network search's tree stops
/// growing (and says so), the alpha-beta player's table is its size from the start;
/// `stop` answers at once either way.
#[test]
fn an_endless_search_stays_within_its_memory_option() {
    for agent in ["model:models/infexion-4x32-15min", "nnue:models/ataxx"] {
        let game = if agent.starts_with("nnue") {
            "ataxx"
        } else {
            "infexion"
        };
        let mut e = Engine::start_game(game, agent);
        e.silent("setoption name Hash value 4");
        e.send("go infinite");
        std::thread::sleep(std::time::Duration::from_millis(1000));
        let early = resident_kib(&e);
        // Unbounded, a network search's tree grows about 40 MB a second here.
        std::thread::sleep(std::time::Duration::from_millis(3000));
        let late = resident_kib(&e);
        let t = std::time::Instant::now();
        e.send("stop");
        let (info, best) = e.bestmove();
        assert!(
            t.elapsed() < std::time::Duration::from_secs(5),
            "{agent}: stop took {:?}",
            t.elapsed()
        );
        assert!(
            late < early + 8 * 1024,
            "{agent}: {early} KiB after 1 s, {late} KiB after 4 s"
        );
        let moves = e.ask("moves");
        assert!(moves.split(' ').any(|m| m == best), "{agent}: {best}");
        if agent.starts_with("model") {
            assert!(
                info.iter()
                    .any(|l| l.starts_with("info string the tree is full")),
                "{agent}: {info:?}"
            );
        }
        e.quit();
    }
}

#[test]
fn a_model_reports_a_proven_endgame_as_mate() {
    // Two empty squares; o wins by taking a2 (the solver proves it in under a
    // millisecond, the tree within a few hundred simulations).
    let fen = "xxoooxo/xxxxxxo/oxxoooo/oxxxxoo/ooxxxxx/1oooxxx/1ooooxx o 0 50";
    for option in ["0", "1"] {
        let mut e = Engine::start_game("ataxx", "model:models/ataxx-4x32-166min,sims=5000");
        e.silent(&format!("setoption name Endgame value {option}"));
        e.silent(&format!("position fen {fen}"));
        let (info, best) = e.go("go nodes 5000");
        let last = info.last().unwrap();
        assert_eq!(field(last, "mate"), "2", "Endgame {option}: {last}");
        assert_eq!(best, "a2", "Endgame {option}");
        e.quit();
    }
}

#[test]
fn isready_is_answered_during_an_infinite_search_which_only_stop_ends() {
    for agent in [
        "alphabeta:depth=2",
        "model:models/infexion-4x32-15min,sims=10",
        "greedy",
        "nnue:models/infexion,depth=2",
    ] {
        let mut e = Engine::start(agent);
        e.send("go infinite");
        std::thread::sleep(std::time::Duration::from_millis(300));
        // The next line is readyok, not bestmove: it was answered while the search ran
        // (an infinite search ends only at `stop`), however loaded the machine is.
        assert_eq!(
            e.ask("isready"),
            "readyok",
            "{agent}: readyok comes before bestmove"
        );
        // Even an agent whose search ends by itself (greedy) waits for stop.
        std::thread::sleep(std::time::Duration::from_millis(300));
        e.send("stop");
        let (info, best) = e.bestmove();
        let moves = e.ask("moves");
        assert!(moves.split(' ').any(|m| m == best), "{agent}: {best}");
        if let Some(line) = search_line(&info) {
            assert_eq!(pv(line).first(), Some(&best.as_str()), "{agent}: {info:?}");
        }
        e.quit();
    }
}

#[test]
fn setoption_sets_the_budget_and_refuses_bad_values() {
    let mut e = Engine::start("model:models/infexion-4x32-15min,sims=100");
    let options = e.handshake("uci");
    for name in ["Threads", "Simulations", "Hash"] {
        assert!(
            options
                .iter()
                .any(|o| o.starts_with(&format!("option name {name} "))),
            "{options:?}"
        );
    }
    e.silent("setoption name Simulations value 20");
    e.silent("setoption name hash value 1");
    let (info, _) = e.go("go");
    assert_eq!(field(&info[0], "nodes"), "20", "{}", info[0]);
    for (bad, why) in [
        (
            "setoption name Simulations value 0",
            "must be an integer 1..=1000000",
        ),
        ("setoption name Simulations value x", "must be an integer"),
        ("setoption name Depth value 3", "no option 'Depth'"),
        ("setoption Threads 3", "usage"),
    ] {
        let reply = e.ask(bad);
        assert!(
            reply.starts_with("error setoption") && reply.contains(why),
            "{bad}: {reply}"
        );
    }
    e.quit();
    let mut e = Engine::start("alphabeta:depth=3");
    e.silent("setoption name Depth value 1");
    let (info, _) = e.go("go");
    assert_eq!(field(&info[0], "depth"), "1", "{}", info[0]);
    e.quit();
}

/// An endgame where every simulation ends the game at once (the mover's one move fills
/// the board): nothing reaches the network, and the search must still ask the clock
/// (before the fix, the model searched its whole simulation budget: 2.7 s of CPU for a
/// million simulations under `go movetime 200`).
#[test]
fn movetime_is_honoured_when_every_simulation_ends_the_game() {
    let mut e = Engine::start_game("ataxx", "model:models/ataxx-4x32-15min,sims=1000000");
    e.silent("position fen ooooox1/oooooxx/ooooooo/ooooooo/ooooooo/ooooooo/ooooooo x 0 1");
    let t = std::time::Instant::now();
    let (info, mv) = e.go("go movetime 200");
    assert_eq!(mv, "g7");
    // The clock ended it, not the budget (whatever the machine's load) ...
    let nodes: u64 = field(&info[0], "nodes").parse().unwrap();
    assert!(nodes < 1_000_000, "{}", info[0]);
    // ... and promptly (generous for a loaded machine).
    assert!(
        t.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        t.elapsed()
    );
    e.quit();
}

#[test]
fn a_move_s_time_runs_from_the_arrival_of_its_go() {
    let mut e = Engine::start_game("ataxx", "model:models/ataxx-4x32-15min,sims=1000000");
    e.silent("position startpos");
    // The second `go` waits behind the first: its 1.5 s began when it arrived, so it
    // answers soon after the first (not 1.5 s after) and reports that time.
    e.send("go movetime 1500");
    e.send("go movetime 1500");
    let _ = e.bestmove();
    let t = std::time::Instant::now();
    let (info, _) = e.bestmove();
    assert!(t.elapsed().as_millis() < 750, "{:?} {info:?}", t.elapsed());
    let search = search_line(&info).expect("the search's info line");
    let time: u64 = field(search, "time").parse().unwrap();
    assert!(time >= 1400, "{search}");
    e.quit();
}

#[test]
fn the_tree_is_kept_across_position_moves() {
    let mut e = Engine::start_game("ataxx", "model:models/ataxx-4x32-15min");
    e.silent("position startpos");
    let (info, _) = e.go("go nodes 400");
    assert_eq!(field(&info[0], "nodes"), "400", "{info:?}");
    let line: Vec<String> = pv(&info[0]).iter().map(|m| m.to_string()).collect();
    assert!(line.len() >= 2, "{info:?}");
    // Our move and the reply the search expected: the reply's subtree carries over, and
    // the budget is spent on top of it (the root's visits are reused + new).
    e.silent(&format!("position startpos moves {} {}", line[0], line[1]));
    let (info, _) = e.go("go nodes 400");
    let nodes: u64 = field(&info[0], "nodes").parse().unwrap();
    assert!(nodes > 400, "no visits carried over: {info:?}");
    // A position the tree does not hold starts a new one: exactly the budget.
    e.silent("position startpos moves g2 a2 f1");
    let (info, _) = e.go("go nodes 400");
    assert_eq!(field(&info[0], "nodes"), "400", "{info:?}");
    e.quit();
}

#[test]
fn a_search_on_two_threads_is_exact_legal_and_interruptible() {
    let mut e = Engine::start_game("ataxx", "model:models/ataxx-4x32-15min");
    e.silent("setoption name Threads value 2");
    for line in ["position startpos", "position startpos moves f2 a2 e3"] {
        e.silent(line);
        // The budget is spent exactly, and the best move leads the reported pv.
        let (info, best) = e.go("go nodes 500");
        assert_eq!(field(&info[0], "nodes"), "500", "{info:?}");
        assert_eq!(pv(&info[0]).first(), Some(&best.as_str()), "{info:?}");
        let moves = e.ask("moves");
        assert!(moves.split(' ').any(|m| m == best), "{best} in {moves}");
        // A tree left from that search must not count towards the next one's budget.
        e.silent("uainewgame");
    }
    // isready and stop are answered while the two-thread search runs.
    e.silent("position startpos");
    e.send("go infinite");
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(e.ask("isready"), "readyok", "readyok comes before bestmove");
    e.send("stop");
    let (info, best) = e.bestmove();
    assert_eq!(pv(&info[0])[0], best, "{info:?}");
    assert!(e.ask("moves").split(' ').any(|m| m == best), "{best}");
    e.quit();
}

#[test]
fn a_model_keeps_to_its_clock_and_plays_a_forced_move_at_once() {
    let mut e = Engine::start_game("ataxx", "model:models/ataxx-4x32-15min,sims=1000000");
    e.silent("setoption name Threads value 2");
    // x's only move is the jump a7b5: no reason to think for 10 s.
    e.silent("position fen x--4/---4/-1-4/7/7/7/6o x 0 1");
    let t0 = std::time::Instant::now();
    let (_, best) = e.go("go movetime 10000");
    assert_eq!(best, "a7b5");
    assert!(t0.elapsed().as_secs_f64() < 2.0, "{:?}", t0.elapsed());
    // A whole-game clock: 2 s left splits into a share of about 20 ms a move, which
    // may stretch while the move is unclear but never past a quarter of the clock.
    e.silent("position startpos moves f2 a2");
    for _ in 0..3 {
        let t0 = std::time::Instant::now();
        let (info, best) = e.go("go wtime 2000 btime 2000");
        let took = t0.elapsed().as_millis();
        assert!(took < 600, "{took} ms for {best}: {info:?}");
    }
    e.quit();
}
