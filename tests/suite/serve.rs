//! `contagion serve` under bad and heavy input, through real sockets: malformed JSON,
//! huge bodies, unknown games, moves and opponents, path traversal in run and shard
//! names, raw garbage, and 50 games played at once. Every bad request gets a 4xx with a
//! message; the server stays up and keeps the games apart.

use crate::process;
use process::{Serve, temp_dir, test_config, text, train};

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The server under test, with a raw HTTP/1.1 client.
struct Server(Serve);

impl Server {
    fn start(runs: &Path) -> Server {
        Server(Serve::start(runs))
    }

    /// Sends `raw` bytes (then ends the input when `end`); returns the status code and
    /// the body.
    fn raw(&self, raw: &[u8], end: bool) -> (u16, String) {
        let mut s = TcpStream::connect(&self.0.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let _ = s.write_all(raw);
        if end {
            // A broken request ends here: the server sees the end of its input.
            let _ = s.shutdown(std::net::Shutdown::Write);
        }
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        let text = String::from_utf8_lossy(&out).to_string();
        let status = text
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let body = text
            .split_once("\r\n\r\n")
            .map_or(String::new(), |(_, b)| b.to_string());
        (status, body)
    }

    fn request(&self, method: &str, path: &str, body: &str) -> (u16, String) {
        let req = format!(
            "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        self.raw(req.as_bytes(), false)
    }

    fn json(&self, method: &str, path: &str, body: &str) -> (u16, serde_json::Value) {
        let (status, text) = self.request(method, path, body);
        (
            status,
            serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text)),
        )
    }
}

fn run_dir(name: &str) -> PathBuf {
    let dir = temp_dir(name);
    let o = train(&test_config(), &dir, &[]);
    assert!(o.status.success(), "{}", text(&o));
    dir
}

fn assert_4xx(what: &str, (status, body): (u16, String)) {
    assert!(
        (400..500).contains(&status),
        "{what}: status {status}, body {body}"
    );
    assert!(!body.trim().is_empty(), "{what}: a 4xx needs a message");
}

#[test]
fn bad_requests_get_a_4xx_with_a_message_and_the_server_stays_up() {
    let server = Server::start(&run_dir("bad"));
    let post = |path: &str, body: &str| server.request("POST", path, body);
    assert_4xx("malformed JSON", post("/api/games", "{\"game\": "));
    assert_4xx("not an object", post("/api/games", "[1, 2, 3]"));
    assert_4xx(
        "an unknown field",
        post(
            "/api/games",
            r#"{"game":"ataxx","opponent":"greedy","x":1}"#,
        ),
    );
    assert_4xx(
        "a huge body",
        post(
            "/api/games",
            &format!("{{\"game\": \"{}\"}}", "a".repeat(2_000_000)),
        ),
    );
    assert_4xx(
        "an unknown game",
        post("/api/games", r#"{"game":"chess","opponent":"greedy"}"#),
    );
    assert_4xx(
        "a seat too many",
        post(
            "/api/games",
            r#"{"game":"ataxx","opponent":"greedy","seat":2}"#,
        ),
    );
    assert_4xx(
        "no time",
        post(
            "/api/games",
            r#"{"game":"ataxx","opponent":"greedy","movetime_ms":0}"#,
        ),
    );
    assert_4xx(
        "too much time",
        post(
            "/api/games",
            r#"{"game":"ataxx","opponent":"greedy","movetime_ms":99999999}"#,
        ),
    );
    for opponent in [
        "engine:ls",
        "model:/etc/passwd",
        "model:../../etc",
        "model:ataxx-4x32-15min",
        "human",
        "alphabeta:depth=40",
        "bogus",
    ] {
        let body = format!(r#"{{"game":"infexion","opponent":"{opponent}"}}"#);
        let (status, v) = server.json("POST", "/api/games", &body);
        assert_eq!(status, 400, "opponent {opponent}: {v}");
        assert!(
            v["error"].as_str().unwrap().contains("opponent")
                || v["error"].as_str().unwrap().contains("no model"),
            "{v}"
        );
    }
    // A game, then bad moves into it.
    let (status, game) = server.json(
        "POST",
        "/api/games",
        r#"{"game":"ataxx","opponent":"greedy","movetime_ms":50}"#,
    );
    assert_eq!(status, 200, "{game}");
    let id = game["id"].as_str().unwrap();
    let path = format!("/api/games/{id}/move");
    let (status, v) = server.json("POST", &path, r#"{"notation":"z9"}"#);
    assert_eq!(status, 422, "{v}");
    assert!(v["error"].as_str().unwrap().contains("z9"), "{v}");
    let (status, v) = server.json("POST", &path, r#"{"to":99999}"#);
    assert_eq!(status, 422, "{v}");
    let (status, v) = server.json("POST", &path, r#"{"from":0,"to":48}"#);
    assert_eq!(status, 422, "{v}");
    assert!(v["error"].as_str().unwrap().contains("no move goes"), "{v}");
    assert_4xx("a move of a bad type", post(&path, r#"{"to":"a1"}"#));
    assert_4xx(
        "an unknown game id",
        post("/api/games/0123/move", r#"{"to":1}"#),
    );
    assert_4xx(
        "undo before any move",
        post(&format!("/api/games/{id}/undo"), ""),
    );
    assert_4xx(
        "the PGN of a game going on",
        server.request("GET", &format!("/api/games/{id}/pgn"), ""),
    );
    // Path traversal in run and shard names reads nothing.
    for bad in [
        "/api/runs/..%2F..%2Fetc/metrics",
        "/api/runs/../../etc/passwd",
        "/api/runs/%2Fetc%2Fpasswd/metrics",
        "/api/runs/test-run/games/..%2Fconfig.toml/0",
        "/api/runs/test-run/games/..%2F..%2F..%2Fetc%2Fpasswd/0",
        "/api/runs/test-run/games/x/notanumber",
        "/api/nothing",
    ] {
        let (status, body) = server.request("GET", bad, "");
        assert!((400..500).contains(&status), "{bad}: {status} {body}");
        assert!(!body.contains("root:"), "{bad} leaked a file: {body}");
    }
    // Raw garbage, a bare newline, a half request.
    let _ = server.raw(b"\x00\xff\xfe garbage \r\n\r\n", true);
    let _ = server.raw(b"GET /api/info HTTP/1.1\r\nContent-Length: 99\r\n", true);
    let _ = server.raw(b"\r\n", true);
    // Still up, and the game is as it was.
    let (status, info) = server.json("GET", "/api/info", "");
    assert_eq!(status, 200, "{info}");
    assert_eq!(info["games"].as_array().unwrap().len(), 4);
    let (status, again) = server.json("GET", &format!("/api/games/{id}"), "");
    assert_eq!(status, 200);
    assert_eq!(again["history"], game["history"]);
    // The run's curves and a recorded game, by name.
    let (status, metrics) = server.json("GET", "/api/runs/test-run/metrics", "");
    assert_eq!(status, 200, "{metrics}");
    assert_eq!(metrics.as_array().unwrap().len(), 1);
    let (status, games) = server.json("GET", "/api/runs/test-run/games", "");
    assert_eq!(status, 200, "{games}");
    let first = &games[0];
    let url = format!(
        "/api/runs/test-run/games/{}/{}",
        first["shard"].as_str().unwrap(),
        first["index"]
    );
    let (status, replay) = server.json("GET", &url, "");
    assert_eq!(status, 200, "{replay}");
    let moves = replay["moves"].as_array().unwrap().len();
    assert_eq!(replay["boards"].as_array().unwrap().len(), moves + 1);
    assert_eq!(moves as u64, first["plies"].as_u64().unwrap());
}

#[test]
fn fifty_games_at_once_stay_apart() {
    let server = std::sync::Arc::new(Server::start(&run_dir("fifty")));
    let games = ["infexion", "ataxx", "virus", "chexers"];
    let handles: Vec<_> = (0..50)
        .map(|i| {
            let server = server.clone();
            std::thread::spawn(move || {
                let game = games[i % games.len()];
                let body = format!(r#"{{"game":"{game}","opponent":"greedy","movetime_ms":20}}"#);
                let (status, mut state) = server.json("POST", "/api/games", &body);
                assert_eq!(status, 200, "{state}");
                let id = state["id"].as_str().unwrap().to_string();
                let mut mine = Vec::new();
                for _ in 0..4 {
                    if state["over"].as_bool().unwrap() {
                        break;
                    }
                    let legal = state["legal"].as_array().unwrap();
                    let pick = legal[i % legal.len()]["notation"]
                        .as_str()
                        .unwrap()
                        .to_string();
                    let (status, next) = server.json(
                        "POST",
                        &format!("/api/games/{id}/move"),
                        &serde_json::json!({"notation": pick}).to_string(),
                    );
                    assert_eq!(status, 200, "{game} {pick}: {next}");
                    mine.push(pick);
                    state = next;
                }
                // The history holds this game's own moves, the agent's between them.
                let history: Vec<String> =
                    serde_json::from_value(state["history"].clone()).unwrap();
                let players = state["players"].as_array().unwrap().len();
                for (k, m) in mine.iter().enumerate() {
                    assert_eq!(&history[k * players], m, "{game} {id}: {history:?}");
                }
                id
            })
        })
        .collect();
    let ids: std::collections::BTreeSet<String> =
        handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(ids.len(), 50, "every game has its own id");
    let (status, _) = server.json("GET", "/api/info", "");
    assert_eq!(status, 200);
}

#[test]
fn the_shipped_evaluators_are_opponents_played_by_alpha_beta() {
    let server = Server::start(&run_dir("evaluators"));
    let (status, info) = server.json("GET", "/api/info", "");
    assert_eq!(status, 200, "{info}");
    let index = serde_json::from_str::<serde_json::Value>(
        &std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("models/index.json"))
            .unwrap(),
    )
    .unwrap();
    let evaluators: Vec<(String, String)> = (index["models"].as_array().unwrap().iter())
        .filter(|m| m["kind"] == "evaluator")
        .map(|m| {
            let text = |k: &str| m[k].as_str().unwrap().to_string();
            (text("game"), text("name"))
        })
        .collect();
    assert!(!evaluators.is_empty(), "the index lists no evaluator");
    for (game, name) in &evaluators {
        let entry = (info["games"].as_array().unwrap().iter())
            .find(|g| g["name"] == game.as_str())
            .unwrap_or_else(|| panic!("{game} is not served: {info}"));
        let id = format!("model:{name}");
        let listed = (entry["opponents"].as_array().unwrap().iter())
            .find(|o| o["id"] == id.as_str())
            .unwrap_or_else(|| panic!("{id} is not an opponent for {game}: {entry}"));
        assert!(
            listed["label"].as_str().unwrap().contains("alpha-beta"),
            "{listed}"
        );
    }
    // A game against one: the evaluator's player answers the visitor's move.
    let (game, name) = evaluators.iter().find(|(g, _)| g == "ataxx").unwrap();
    let body =
        format!(r#"{{"game":"{game}","opponent":"model:{name}","seat":0,"movetime_ms":50}}"#);
    let (status, state) = server.json("POST", "/api/games", &body);
    assert_eq!(status, 200, "{state}");
    let id = state["id"].as_str().unwrap().to_string();
    let pick = state["legal"][0]["notation"].as_str().unwrap().to_string();
    let (status, next) = server.json(
        "POST",
        &format!("/api/games/{id}/move"),
        &serde_json::json!({"notation": pick}).to_string(),
    );
    assert_eq!(status, 200, "{next}");
    let history = next["history"].as_array().unwrap();
    assert_eq!(
        history.len(),
        2,
        "the visitor's move and the evaluator's: {next}"
    );
}
