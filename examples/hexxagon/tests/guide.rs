//! `docs/adding-a-game.md` runs as typed: every line of its `sh` blocks, in order, with
//! the `hexxagon` program this crate builds, in a scratch directory that sees the
//! repository's `examples/` (so `checkpoints/` and `exported/` are its own). The page is
//! then played through its API, and the exported bundle's network run from Python.
//! The lines run otherwise are named below with how.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

#[path = "../../../tests/support/markdown.rs"]
mod markdown;
#[path = "../../../tests/support/python.rs"]
mod python;

use markdown::sh_lines;

/// Lines checked another way: their start, and how.
const ELSEWHERE: &[(&str, &str)] = &[
    (
        "cargo new",
        "this crate is what it makes: `the_example_is_a_crate_on_the_library` checks its manifest",
    ),
    ("cargo add", "as `cargo new`"),
    ("cargo install", "`cargo test` builds the same program"),
];

/// Lines run shorter than typed, to keep the test to seconds: their start, and a flag
/// given a value (replacing the line's own; `--set` adds a field). The full run's figures
/// are in experiments/hexxagon.
const SHORTENED: &[(&str, &str, &str)] = &[
    (
        "hexxagon train --config examples/hexxagon/hexxagon.toml",
        "--set",
        "run.iterations=1",
    ),
    (
        "hexxagon train --config examples/hexxagon/hexxagon.toml",
        "--set",
        "selfplay.games_per_iteration=16",
    ),
    (
        "hexxagon eval --game hexxagon --a model:checkpoints/hexxagon,",
        "--games",
        "2",
    ),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn the_example_is_a_crate_on_the_library() {
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains("contagion = { path = \"../..\" }"),
        "{manifest}"
    );
    let main =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/main.rs")).unwrap();
    assert!(main.contains("cli::main(Games::builtin().with(Hexxagon::new()))"));
}

#[test]
fn the_guide_s_commands_run() {
    let guide = std::fs::read_to_string(root().join("docs/adding-a-game.md")).unwrap();
    let dir = std::env::temp_dir().join(format!("hexxagon-guide-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(root().join("examples"), dir.join("examples")).unwrap();
    let (mut ran, mut served) = (0, false);
    for line in sh_lines(&guide) {
        if ELSEWHERE.iter().any(|(start, _)| line.starts_with(start)) {
            continue;
        }
        let mut words = shlex::split(&line).unwrap_or_else(|| panic!("{line}: unbalanced quotes"));
        assert_eq!(
            words[0], "hexxagon",
            "a guide command this test does not know: {line}"
        );
        for &(start, flag, value) in SHORTENED {
            match words.iter().position(|w| w == flag) {
                _ if !line.starts_with(start) => {}
                Some(i) if flag != "--set" => words[i + 1] = value.into(),
                _ => words.extend([flag.into(), value.into()]),
            }
        }
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_hexxagon"));
        cmd.args(&words[1..]).current_dir(&dir);
        if words[1] == "serve" {
            play_on_the_page(cmd);
            served = true;
            continue;
        }
        let input = match words[1].as_str() {
            "engine" => "uci\nisready\nposition startpos\ngo movetime 50\nquit\n",
            _ => "",
        };
        let o = with_input(cmd, input);
        assert!(o.status.success(), "{line}:\n{}", text(&o));
        if words[1] == "engine" {
            assert!(
                String::from_utf8_lossy(&o.stdout).contains("bestmove "),
                "{}",
                text(&o)
            );
        }
        ran += 1;
    }
    assert!(ran >= 9 && served, "{ran} commands ran");
    assert!(dir.join("checkpoints/hexxagon/best.ckpt").is_file());
    python_runs_the_network_and_names_the_rules_it_knows(&dir.join("exported/hexxagon-tiny"));
}

fn with_input(mut cmd: Command, input: &str) -> Output {
    let mut child = (cmd.stdin(Stdio::piped()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the program");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// Kills the server when dropped.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `serve` on a free port: the page offers Hexxagon and the run's model, a game against
/// the model takes a move, and the run's self-play games replay.
fn play_on_the_page(mut cmd: Command) {
    let empty = std::env::temp_dir().join(format!("hexxagon-no-models-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    cmd.args(["--port", "0", "--models"]).arg(&empty);
    let mut server = Killed(cmd.stdout(Stdio::piped()).spawn().expect("start serve"));
    let mut line = String::new();
    BufReader::new(server.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = (line.split_whitespace())
        .find_map(|w| w.strip_prefix("http://"))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .trim_end_matches('/')
        .to_string();
    let call = |method: &str, path: &str, body: &str| -> serde_json::Value {
        let mut s = TcpStream::connect(&addr).unwrap();
        write!(
            s,
            "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut reply = String::new();
        s.read_to_string(&mut reply).unwrap();
        assert!(
            reply.starts_with("HTTP/1.1 200"),
            "{method} {path}: {reply}"
        );
        serde_json::from_str(reply.split_once("\r\n\r\n").unwrap().1).unwrap()
    };
    let info = call("GET", "/api/info", "");
    let game = (info["games"].as_array().unwrap().iter())
        .find(|g| g["name"] == "hexxagon")
        .unwrap_or_else(|| panic!("no hexxagon in {info}"));
    assert_eq!(game["players"], serde_json::json!(["Ruby", "Pearl"]));
    let model = (game["opponents"].as_array().unwrap().iter())
        .find(|o| o["label"] == "run hexxagon-tiny")
        .unwrap_or_else(|| panic!("the run's model is not offered: {game}"))["id"]
        .clone();
    let body =
        serde_json::json!({"game": "hexxagon", "opponent": model, "seat": 0, "movetime_ms": 50});
    let state = call("POST", "/api/games", &body.to_string());
    let id = state["id"].as_str().unwrap();
    let after = call(
        "POST",
        &format!("/api/games/{id}/move"),
        r#"{"notation": "f9"}"#,
    );
    assert!(
        after["history"].as_array().unwrap().len() >= 2,
        "the model replied: {after}"
    );
    let games = call("GET", "/api/runs/hexxagon-tiny/games", "");
    let first = &games.as_array().unwrap()[0];
    let replay = call(
        "GET",
        &format!(
            "/api/runs/hexxagon-tiny/games/{}/{}",
            first["shard"].as_str().unwrap(),
            first["index"]
        ),
        "",
    );
    assert_eq!(replay["game"], "hexxagon");
    assert_eq!(
        replay["boards"].as_array().unwrap().len(),
        replay["moves"].as_array().unwrap().len() + 1
    );
}

/// `czero.Model` runs any bundle's network; `czero.Game` says it knows the built-in
/// games' rules only.
fn python_runs_the_network_and_names_the_rules_it_knows(bundle: &Path) {
    let script = r#"
import sys, numpy, czero
model = czero.Model(sys.argv[1])
logits, values = model.forward(numpy.zeros((1, 5, 9, 9), dtype=numpy.float32))
assert logits.shape == (1, 13 * 81), logits.shape
try:
    czero.Game(model.manifest)
except czero.UnknownRules as e:
    print(e)
else:
    raise SystemExit("czero.Game took a game it has no rules for")
"#;
    let out = python::czero()
        .args(["-c", script])
        .arg(bundle)
        .output()
        .unwrap();
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("knows the rules of infexion, ataxx, virus, chexers only, not of 'hexxagon'"),
        "{said}"
    );
}
