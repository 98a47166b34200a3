//! Every game's notation parsers and the engine protocol, fed many random and mutated
//! lines (ASCII and not, very long, valid moves in the wrong places): each gets an
//! error or a correct result, never a panic, and error lines stay short.

use contagion::agents::{AgentSpec, Baselines};
use contagion::bench::sample_positions;
use contagion::engine::Engine;
use contagion::games::Game;
use contagion::games::ataxx::Ataxx;
use contagion::games::chexers::Chexers;
use contagion::games::infexion::Board;
use contagion::rng::Rng;

use crate::common;
use common::{junk, mutate};

/// Pieces every game's fuzzing draws from, beside its own moves and positions.
const HOSTILE: &[&str] = &[
    "é",
    "ä3",
    "a1é",
    "日本",
    "🙂",
    "\u{0}",
    "\u{202e}",
    "３",
    "ß",
    " ",
    "\t",
    "/",
    "-",
    "0",
    "1",
    "9",
    "99999999999999999999",
    "(",
    ")",
    ",",
    "x",
    "o",
    "-",
    "fen",
    "moves",
    "startpos",
    "position",
    "go",
    "nodes",
    "depth",
    "movetime",
    "isready",
    "show",
    "moves",
    "newgame",
    "uai",
    "setoption",
    "stop",
    "SPAWN",
    "SPREAD",
    "MOVE",
    "JUMP",
    "EXIT",
    "PASS",
    "0000",
];

fn fuzz<G: Baselines>(start: &G, seed: u64, rounds: usize) {
    let mut rng = Rng::new(seed);
    let mut positions = sample_positions(start, 20, 6, seed);
    positions.extend(sample_positions(start, 20, 60, seed + 1));
    positions.retain(|p| p.outcome().is_none());
    assert!(!positions.is_empty());
    let agent = "random"
        .parse::<AgentSpec>()
        .unwrap()
        .build(start, 1)
        .unwrap();
    let mut engine = Engine::new(start.clone(), agent);
    let mut legal = Vec::new();
    let (mut accepted, mut refused) = (0, 0);
    for i in 0..rounds {
        let pos = &positions[i % positions.len()];
        pos.legal_actions(&mut legal);
        let mv = pos.action_to_string(legal[rng.below(legal.len())]);
        let notation = pos.to_notation();
        let mut vocabulary: Vec<&str> = HOSTILE.to_vec();
        vocabulary.push(&mv);
        let len = 1 + rng.below(12);
        let texts = [
            junk(&mut rng, &vocabulary, len),
            mutate(&mut rng, &mv, &vocabulary),
            mutate(&mut rng, &notation, &vocabulary),
            format!("{}{}", mv, "é".repeat(rng.below(3))),
            "é".repeat(rng.below(5_000)),
        ];
        for text in &texts {
            match start.parse_position(text) {
                Ok(p) => {
                    accepted += 1;
                    assert_eq!(start.parse_position(&p.to_notation()).as_ref(), Ok(&p));
                }
                Err(_) => refused += 1,
            }
            match pos.parse_legal_action(text) {
                Ok(a) => {
                    accepted += 1;
                    assert!(pos.is_legal(a), "{text}");
                }
                Err(_) => refused += 1,
            }
            for line in [
                text.clone(),
                format!("position fen {text}"),
                format!("position startpos moves {text}"),
                format!("position fen {notation} moves {mv} {text}"),
                format!("go {text}"),
            ] {
                let reply = engine.handle(&line);
                assert!(!reply.quit || line.trim() == "quit", "{line}");
                for l in &reply.lines {
                    assert!(
                        l.len() < 4_000 || line.starts_with("show"),
                        "an error line echoes too much: {} bytes",
                        l.len()
                    );
                }
            }
        }
    }
    assert!(refused > rounds, "{accepted} accepted, {refused} refused");
}

#[test]
fn infexion_text_never_panics() {
    fuzz(&Board::new(), 11, 1_500);
}

#[test]
fn ataxx_text_never_panics() {
    fuzz(&Ataxx::standard(), 12, 1_500);
}

#[test]
fn virus_text_never_panics() {
    fuzz(&Ataxx::virus(), 13, 600);
}

#[test]
fn chexers_text_never_panics() {
    fuzz(&Chexers::new(), 14, 1_500);
}

#[test]
fn non_ascii_ataxx_moves_are_errors() {
    let s = Ataxx::standard();
    for text in ["a1é", "ä3", "é", "a1a3é", "日本", "🙂1"] {
        let err = s.parse_legal_action(text).unwrap_err().to_string();
        assert!(err.contains(text), "{err}");
    }
}
