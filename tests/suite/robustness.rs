//! Bad input never panics: thousands of random strings built from the notation's and
//! the protocol's own vocabulary go into every parser and into the engine.

use contagion::agents::AgentSpec;
use contagion::engine::Engine;
use contagion::games::Game;
use contagion::games::infexion::Board;
use contagion::rng::Rng;

use crate::common;
use common::{junk, mutate};

const NOTATION_BITS: &[&str] = &[
    "r", "b", "1", "2", "6", "7", "8", "0", "/", " ", "-", "x", "r6", "b1", "7/", " r ", " b ",
    "343", "é",
];
const MOVE_BITS: &[&str] = &[
    "SPAWN",
    "SPREAD",
    "(",
    ")",
    ",",
    "-",
    "1",
    "0",
    "6",
    "7",
    " ",
    "99999999999",
    "x",
];

#[test]
fn random_and_mutated_text_never_panics_the_parsers() {
    let mut rng = Rng::new(1);
    let mut positions = contagion::bench::sample_positions(&Board::new(), 50, 40, 3);
    positions.extend(contagion::bench::sample_positions(
        &Board::new(),
        50,
        300,
        4,
    ));
    let (mut accepted, mut refused) = (0, 0);
    let mut legal = Vec::new();
    for i in 0..20_000 {
        let board = &positions[i % positions.len()];
        let len = 1 + rng.below(30);
        board.legal_actions(&mut legal);
        let valid_move = board.action_to_string(legal[rng.below(legal.len())]);
        let inputs = [
            (junk(&mut rng, NOTATION_BITS, len), true),
            (mutate(&mut rng, &board.to_notation(), NOTATION_BITS), true),
            (junk(&mut rng, MOVE_BITS, len), false),
            (mutate(&mut rng, &valid_move, MOVE_BITS), false),
        ];
        for (text, is_position) in inputs {
            let ok = if is_position {
                Board::from_notation(&text).map(|b| {
                    assert_eq!(Board::from_notation(&b.to_notation()), Ok(b), "{text}");
                })
            } else {
                board
                    .parse_legal_action(&text)
                    .map(|a| assert!(board.is_legal(a)))
            };
            if ok.is_ok() {
                accepted += 1
            } else {
                refused += 1
            }
            let _ = text.parse::<AgentSpec>();
        }
    }
    // Near-misses are both accepted (a mutation that kept the text valid) and refused.
    assert!(
        accepted > 1_000 && refused > 50_000,
        "{accepted} accepted, {refused} refused"
    );
}

#[test]
fn random_protocol_lines_get_at_most_one_reply_line() {
    const WORDS: &[&str] = &[
        "isready",
        "position",
        "startpos",
        "fen",
        "moves",
        "go",
        "movetime",
        "wtime",
        "btime",
        "nodes",
        "depth",
        "perft",
        "quit2",
        "SPAWN(3,3)",
        "SPAWN(9,9)",
        "SPREAD(3,3,0,1)",
        "7/7/7/7/7/7/7",
        "r",
        "0",
        "1",
        "3",
        "-1",
        "18446744073709551616",
        "newgame",
        "moves",
        "",
        "\t",
    ];
    let mut rng = Rng::new(2);
    let agent = "alphabeta:nodes=300"
        .parse::<AgentSpec>()
        .unwrap()
        .build(&Board::new(), 1)
        .unwrap();
    let mut engine = Engine::new(Board::new(), agent);
    for _ in 0..5_000 {
        let len = rng.below(8);
        let line: Vec<&str> = (0..len).map(|_| WORDS[rng.below(WORDS.len())]).collect();
        let line = line.join(" ");
        let reply = engine.handle(&line);
        let go = line.split_whitespace().next() == Some("go");
        let limit = if go { 2 } else { 1 };
        assert!(reply.lines.len() <= limit, "'{line}' got {:?}", reply.lines);
        if go && reply.lines.len() == 2 {
            assert!(reply.lines[0].starts_with("info ") && reply.lines[1].starts_with("bestmove "));
        }
        assert!(!reply.quit, "'{line}' is not quit");
        assert_eq!(engine.state().hash(), engine.state().recompute_hash());
    }
}

#[test]
fn agent_spec_errors_quote_at_most_a_clipped_input() {
    let long = "z".repeat(100_000);
    for text in [
        long.clone(),
        format!("alphabeta:{long}"),
        format!("alphabeta:depth={long}"),
        format!("alphabeta:{long}=1"),
    ] {
        let err = text.parse::<AgentSpec>().unwrap_err().to_string();
        assert!(err.len() < 800, "{} bytes", err.len());
    }
}
