//! Chexers: perft from the start, each action kind, exits and the win, passes, both
//! draws (the 4th repetition and the 768-turn limit), notation, and the conformance
//! suite.

use crate::common;

use contagion::games::chexers::Chexers;
use contagion::games::perft::perft;
use contagion::games::{Game, GameError};

fn pos(text: &str) -> Chexers {
    Chexers::new()
        .parse_position(text)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn play(state: &mut Chexers, moves: &str) {
    for m in moves.split(';').map(str::trim).filter(|m| !m.is_empty()) {
        let a = state
            .parse_legal_action(m)
            .unwrap_or_else(|e| panic!("{m}: {e}"));
        state.apply(a).unwrap();
    }
}

#[test]
fn perft_from_the_start() {
    let start = Chexers::new();
    assert_eq!(start.to_notation(), "gggg/5/6/r5b/r4b/r3b/r2b r 0/0/0 0");
    let expected = [8, 64, 512, 6784, 89752];
    for (depth, &n) in expected.iter().enumerate() {
        assert_eq!(perft(&start, depth as u32 + 1), n, "depth {}", depth + 1);
    }
}

#[test]
fn jumps_convert_opponents_but_not_friends() {
    // Red (0,0), Green (1,0), Red (-1,0).
    let mut s = pos("4/5/6/2rrg2/6/5/4 r 0/0/0 0");
    play(&mut s, "JUMP(0,0,2,0)");
    assert_eq!(s.to_notation(), "4/5/6/2r1rr1/6/5/4 g 0/0/0 1");
    let mut t = pos("4/5/6/2rr3/6/5/4 r 0/0/0 0");
    play(&mut t, "JUMP(-1,0,1,0)");
    assert_eq!(
        t.to_notation(),
        "4/5/6/3rr2/6/5/4 g 0/0/0 1",
        "jumped over a friend: no change"
    );
    let err = pos("4/5/6/2rrg2/6/5/4 r 0/0/0 0")
        .parse_legal_action("JUMP(0,0,0,2)")
        .unwrap_err();
    assert_eq!(
        err,
        GameError::IllegalMove(
            "JUMP(0,0,0,2): a JUMP needs a piece to jump over and an empty hex beyond".into()
        )
    );
}

#[test]
fn exits_count_and_the_fourth_wins_unless_it_is_the_last_turn() {
    let mut s = pos("4/5/5r/7/6/5/4 r 3/0/0 10");
    play(&mut s, "EXIT(3,-1)");
    assert_eq!(s.exits(0), 4);
    assert_eq!(s.outcome().unwrap().winner(), Some(0));
    let mut last = pos("4/5/5r/7/6/5/4 r 3/0/0 767");
    play(&mut last, "EXIT(3,-1)");
    assert_eq!(last.turns(), 768);
    assert_eq!(
        last.outcome().unwrap().winner(),
        None,
        "a 4th exit on turn 768 is a draw"
    );
    let err = pos("4/5/5r/7/6/5/4 r 3/0/0 10").parse_legal_action("EXIT(2,-1)");
    assert!(err.is_err());
    let green = pos("4/5/5g/7/6/5/4 g 0/0/0 1");
    assert!(
        green.parse_legal_action("EXIT(3,-1)").is_err(),
        "not Green's edge"
    );
}

#[test]
fn a_player_with_no_action_passes_and_only_then() {
    // Green has no pieces.
    let mut s = pos("4/5/6/3r3/6/2b2/4 r 0/0/0 0");
    play(&mut s, "MOVE(0,0,1,0)");
    let mut moves = Vec::new();
    s.legal_actions(&mut moves);
    assert_eq!(moves.len(), 1);
    assert_eq!(s.action_to_string(moves[0]), "PASS");
    play(&mut s, "PASS");
    assert!(
        s.parse_legal_action("PASS").is_err(),
        "Blue can move, so Blue may not pass"
    );
}

#[test]
fn the_fourth_occurrence_of_a_snapshot_is_a_draw() {
    // Each player shuffles one piece back and forth: every 6 turns the start recurs.
    let mut s = pos("4/1g3/6/3r3/6/2b2/4 r 0/0/0 0");
    let cycle = "MOVE(0,0,1,0); MOVE(0,-2,1,-2); MOVE(-1,2,-1,3); \
                 MOVE(1,0,0,0); MOVE(1,-2,0,-2); MOVE(-1,3,-1,2)";
    for round in 1..=3 {
        assert!(s.outcome().is_none(), "round {round}");
        play(&mut s, cycle);
        assert_eq!(s.repetitions(), round + 1);
    }
    assert_eq!(s.turns(), 18);
    assert_eq!(s.outcome().unwrap().winner(), None);
    assert!(s.outcome().is_some());
}

#[test]
fn the_game_is_drawn_after_768_turns() {
    let mut s = pos("4/5/6/3r3/6/2b2/4 b 0/0/0 767");
    assert!(s.outcome().is_none());
    play(&mut s, "MOVE(-1,2,-1,3)");
    assert_eq!(s.outcome().unwrap().winner(), None);
}

#[test]
fn notation_round_trips_and_bad_input_is_explained() {
    let s = pos("ggg1/5/6/r5b/r4b/r3b/3b g 1/0/1 40");
    assert_eq!(s.to_notation(), "ggg1/5/6/r5b/r4b/r3b/3b g 1/0/1 40");
    let e = |t: &str| Chexers::new().parse_position(t).unwrap_err().to_string();
    assert!(e("gggg/5/6 r 0/0/0 0").contains("expected 7 rows"));
    assert!(e("ggggg/5/6/7/6/5/4 r 0/0/0 0").contains("has 5 hexes, expected 4"));
    assert!(e("gggg/5/6/7/6/5/4 x 0/0/0 0").contains("r, g or b"));
    assert!(e("gggg/5/6/7/6/5/4 r 0/0/5 0").contains("three numbers 0-4"));
    assert!(e("gggg/5/6/7/6/5/4 r 0/0/0 900").contains("0-768"));
    assert!(e("gggg/ggggg/6/7/6/5/4 r 4/0/0 0").contains("more than 12"));
    let p = |t: &str| Chexers::new().parse_action(t).unwrap_err().to_string();
    assert!(p("MOVE(0,0,2,0)").contains("adjacent"));
    assert!(p("EXIT(4,0)").contains("at most 3"));
    assert!(p("HOP(0,0)").contains("expected MOVE"));
    let start = Chexers::new();
    for text in ["MOVE(-3,0,-2,0)", "JUMP(-3,1,-1,-1)", "EXIT(3,-3)", "PASS"] {
        let a = start.parse_action(text).unwrap();
        assert_eq!(start.action_to_string(a), text);
    }
}

#[test]
fn chexers_keeps_the_game_contract() {
    common::conformance(&Chexers::new(), 40, 7, |before, _, after| {
        let pieces = |s: &Chexers| {
            (0..3)
                .map(|p| s.pieces(p).count() + s.exits(p) as usize)
                .sum::<usize>()
        };
        assert_eq!(
            pieces(before),
            pieces(after),
            "pieces are converted or exit, never lost"
        );
        assert_eq!(after.num_players(), 3);
    });
}
