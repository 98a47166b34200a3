//! Ataxx and Virus: perft against the published libataxx figures, worked rule cases,
//! the end of the game, notation, and the shared conformance suite.

use crate::common;

use contagion::games::ataxx::{Ataxx, Move};
use contagion::games::perft::perft;
use contagion::games::{Game, GameError};

fn ataxx(fen: &str) -> Ataxx {
    Ataxx::standard()
        .parse_position(fen)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn play(state: &mut Ataxx, moves: &str) {
    for m in moves.split_whitespace() {
        let a = state
            .parse_legal_action(m)
            .unwrap_or_else(|e| panic!("{m}: {e}"));
        state.apply(a).unwrap();
    }
}

#[test]
fn perft_matches_libataxx() {
    let cases: [(&str, &[u64]); 3] = [
        ("x5o/7/7/7/7/7/o5x x 0 1", &[16, 256, 6460, 155888, 4752668]),
        ("x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1", &[14, 196, 4184, 86528]),
        (
            "7/7/7/7/ooooooo/ooooooo/xxxxxxx x 0 1",
            &[1, 75, 249, 14270],
        ),
    ];
    for (fen, expected) in cases {
        let s = ataxx(fen);
        for (depth, &n) in expected.iter().enumerate() {
            assert_eq!(perft(&s, depth as u32 + 1), n, "{fen} depth {}", depth + 1);
        }
    }
}

#[test]
fn clones_keep_the_origin_jumps_leave_it_and_both_convert_neighbours() {
    let mut s = ataxx("7/7/2oo3/2x4/7/7/7 x 0 1");
    play(&mut s, "d4");
    assert_eq!(s.to_notation(), "7/7/2xx3/2xx3/7/7/7 o 0 1");
    let mut s = ataxx("7/7/3oo2/7/2x4/7/7 x 3 1");
    play(&mut s, "c3c5");
    // The jumper left c3 and converted d5, its neighbour; e5 is not adjacent to c5.
    assert_eq!(s.to_notation(), "7/7/2xxo2/7/7/7/7 o 4 1");
    assert_eq!((s.pieces(0), s.pieces(1)), (2, 1));
    let mut t = ataxx("7/7/3o3/7/2x4/7/7 x 3 1");
    play(&mut t, "c3c5");
    assert_eq!(
        t.outcome().unwrap().winner(),
        Some(0),
        "o has no pieces left"
    );
}

#[test]
fn the_half_move_clock_resets_on_clones_and_ends_the_game_at_100() {
    let mut s = ataxx("x5o/7/7/7/7/7/o5x x 0 1");
    play(&mut s, "a7a5 g7g5");
    assert_eq!((s.halfmove(), s.fullmove()), (2, 2));
    play(&mut s, "b5");
    assert_eq!(s.halfmove(), 0);
    let s = ataxx("x5o/7/7/7/7/7/o5x x 99 60");
    assert!(s.outcome().is_none());
    let mut t = s;
    play(&mut t, "a7a5");
    assert_eq!(t.halfmove(), 100);
    assert_eq!(t.outcome().unwrap().winner(), None, "2 pieces each: a draw");
    // Settings: without the limit the same position plays on.
    let rules = contagion::games::ataxx::Rules {
        halfmove_limit: 0,
        ..Ataxx::standard().rules()
    };
    let unlimited = Ataxx::with_rules("x5o/7/7/7/7/7/o5x x 100 60", rules).unwrap();
    assert!(unlimited.outcome().is_none());
    // At the limit with more pieces on one side: a draw under Ataxx rules (libataxx),
    // a win by pieces under Virus rules (the seed's goal; it has no limit of its own).
    let uneven = "x5o/7/7/7/7/7/x5x x 100 60";
    let ataxx_end = Ataxx::custom(uneven, true).unwrap().outcome().unwrap();
    assert_eq!(ataxx_end.winner(), None);
    let virus_end = Ataxx::custom(uneven, false).unwrap().outcome().unwrap();
    assert_eq!(virus_end.winner(), Some(0));
}

#[test]
fn a_side_without_moves_passes_and_the_game_ends_when_neither_can_move() {
    let s = ataxx("7/7/7/7/ooooooo/ooooooo/xxxxxxx x 0 1");
    let mut moves = Vec::new();
    s.legal_actions(&mut moves);
    assert_eq!(moves, vec![Move::Pass.index(7)]);
    assert_eq!(s.action_to_string(moves[0]), "0000");
    let mut t = s;
    play(&mut t, "0000");
    assert_eq!(t.halfmove(), 1);
    assert!(
        !t.is_legal(Move::Pass.index(7)),
        "o has moves, so o may not pass"
    );
    // A full board: nobody can move; more pieces wins.
    let full = ataxx("xxxxxxx/xxxxxxx/xxxxxxx/xxxxooo/ooooooo/ooooooo/ooooooo o 0 30");
    assert_eq!(full.outcome().unwrap().winner(), Some(0));
    // Empty squares out of everyone's reach also end it.
    let stuck = ataxx("xxx4/xxx4/xxx4/7/4ooo/4ooo/4oo- x 0 9");
    assert!(
        stuck.outcome().is_none(),
        "x can still jump into the middle"
    );
    let walled = ataxx("x--4/---4/---4/7/4---/4---/4--o x 0 9");
    assert_eq!(walled.outcome().unwrap().winner(), None);
}

#[test]
fn virus_ends_when_the_mover_cannot_move_and_never_passes() {
    let v = Ataxx::virus();
    assert_eq!(v.name(), "virus");
    assert_eq!(v.action_space(), 17 * 225 + 1);
    assert_eq!(perft(&v, 1), 16);
    // x's only piece on a15 has o on every square within reach.
    let fen = format!("xoo12/ooo12/ooo12/{}15 x 0 9", "15/".repeat(11));
    let boxed = v.parse_position(&fen).unwrap();
    assert_eq!(
        boxed.outcome().unwrap().winner(),
        Some(1),
        "x cannot move: the game ends"
    );
    // Under Ataxx rules the same position is a pass.
    let ataxx_rules = Ataxx::custom(&fen, true).unwrap();
    assert!(ataxx_rules.outcome().is_none());
    let mut moves = Vec::new();
    ataxx_rules.legal_actions(&mut moves);
    assert_eq!(moves, vec![Move::Pass.index(15)]);
    assert!(Ataxx::standard().rules().pass && !v.rules().pass);
}

#[test]
fn notation_round_trips_and_bad_input_is_explained() {
    let s = ataxx("x5o/7/2-1-2/7/2-1-2/7/o5x o 12 7");
    assert_eq!(s.to_notation(), "x5o/7/2-1-2/7/2-1-2/7/o5x o 12 7");
    let e = |fen: &str| {
        Ataxx::standard()
            .parse_position(fen)
            .unwrap_err()
            .to_string()
    };
    assert!(e("x5o/7/7 x 0 1").contains("3 ranks"));
    assert!(e("x5o/7/7/7/7/7/o6x x 0 1").contains("more than 7 squares"));
    assert!(e("x5o/7/7/7/7/7/o5x z 0 1").contains("'x' or 'o'"));
    assert!(e("x5o/7/7/7/7/7/o5q x 0 1").contains("unexpected character 'q'"));
    assert!(e("x7o/9/9/9/9/9/9/9/o7x x 0 1").contains("played on 7x7"));
    let s = Ataxx::standard();
    for (text, why) in [
        ("h1", "expected a square"),
        ("a8", "expected a square"),
        ("a7b7", "exactly 2 squares away"),
        ("a7a4", "exactly 2 squares away"),
    ] {
        let err = s.parse_action(text).unwrap_err().to_string();
        assert!(err.contains(why), "{text}: {err}");
    }
    assert_eq!(
        s.parse_legal_action("d4"),
        Err(GameError::IllegalMove(
            "d4: none of your pieces is next to that square".into()
        ))
    );
    assert_eq!(s.action_to_string(s.parse_action("a7c5").unwrap()), "a7c5");
    assert_eq!(s.action_to_string(s.parse_action("B6").unwrap()), "b6");
}

#[test]
fn symmetries_follow_the_start_layout() {
    assert_eq!(Ataxx::standard().num_symmetries(), 4);
    assert_eq!(Ataxx::virus().num_symmetries(), 4);
    let open = Ataxx::custom("7/7/7/3x3/7/7/7 x 0 1", true).unwrap();
    assert_eq!(open.num_symmetries(), 8);
    let lopsided = Ataxx::custom("x6/7/7/7/7/7/6o x 0 1", true).unwrap();
    assert_eq!(
        lopsided.num_symmetries(),
        2,
        "identity and the main diagonal"
    );
}

#[test]
fn ataxx_and_virus_keep_the_game_contract() {
    common::conformance(&Ataxx::standard(), 60, 3, |before, _, after| {
        let total = |s: &Ataxx| s.pieces(0) + s.pieces(1);
        assert!(
            total(after) >= total(before),
            "pieces are converted, never removed"
        );
        assert_eq!(after.transform(0).hash(), after.hash(), "incremental hash");
    });
    let small_virus = Ataxx::custom("x5o/7/7/7/7/7/o5x x 0 1", false).unwrap();
    common::conformance(&small_virus, 30, 4, |_, _, _| {});
    common::conformance(&Ataxx::virus(), 2, 5, |_, _, _| {});
}
