//! Infexion rules: perft, the worked examples of rules v1.1, every end-of-game case as
//! the course referee decides it, and the notation.

use contagion::games::infexion::geometry::{CELLS, wrap};
use contagion::games::infexion::{Board, MAX_TURNS};
use contagion::games::perft::perft;
use contagion::games::{Game, GameError, Outcome};

fn pos(notation: &str) -> Board {
    Board::from_notation(notation).unwrap_or_else(|e| panic!("{e}"))
}

fn play(board: &mut Board, mv: &str) {
    let a = board
        .parse_legal_action(mv)
        .unwrap_or_else(|e| panic!("{mv}: {e}"));
    board.apply(a).unwrap();
}

/// (owner, power) at (r, q): owner 0 Red, 1 Blue; None when empty.
fn at(board: &Board, r: i32, q: i32) -> Option<(usize, u8)> {
    match board.cell(wrap(r, q)) {
        0 => None,
        c => Some(((c >> 3) as usize, c & 7)),
    }
}

#[test]
fn perft_from_the_empty_board() {
    let b = Board::new();
    assert_eq!(perft(&b, 0), 1);
    assert_eq!(perft(&b, 1), 49);
    assert_eq!(perft(&b, 2), 2352);
    assert_eq!(perft(&b, 3), 124_656);
}

#[test]
fn figure_3_spawn_at_5_4() {
    // Total power 5 before the move (< 49), so SPAWN is allowed.
    let mut b = pos("7/1r25/7/3b33/7/7/7 r 4");
    assert_eq!(b.total_power(), 5);
    play(&mut b, "SPAWN(5,4)");
    assert_eq!(at(&b, 5, 4), Some((0, 1)));
    assert_eq!((b.power(0), b.power(1), b.ply()), (3, 3, 5));
    assert_eq!(b.to_notation(), "7/1r25/7/3b33/7/4r12/7 b 5");
}

#[test]
fn figure_4a_spread_of_power_5_at_6_3_up() {
    let start = pos("7/7/7/7/3r13/7/3b51r21 b 7");
    let mut b = start;
    play(&mut b, "SPREAD(6,3,-1,0)");
    assert_eq!(at(&b, 6, 3), None, "the origin is emptied");
    for r in [5, 3, 2, 1] {
        assert_eq!(at(&b, r, 3), Some((1, 1)), "({r},3)");
    }
    assert_eq!(
        at(&b, 4, 3),
        Some((1, 2)),
        "Red's 1-stack is captured and grows"
    );
    assert_eq!((b.power(0), b.power(1)), (2, 6));
}

#[test]
fn figure_4b_spread_wraps_around_to_6_0_and_6_1() {
    let mut b = pos("7/7/7/7/3r13/7/3b51r21 b 7");
    play(&mut b, "SPREAD(6,3,0,1)");
    assert_eq!(at(&b, 6, 4), Some((1, 1)));
    assert_eq!(at(&b, 6, 5), Some((1, 3)), "Red's 2-stack is captured");
    assert_eq!(at(&b, 6, 6), Some((1, 1)));
    assert_eq!(at(&b, 6, 0), Some((1, 1)), "wraps from (6,7) to (6,0)");
    assert_eq!(at(&b, 6, 1), Some((1, 1)), "and on to (6,1)");
    assert_eq!((b.power(0), b.power(1)), (1, 7));
}

#[test]
fn a_stack_pushed_above_6_is_removed_and_the_token_consumed() {
    // Red's 3-stack spreads right over Blue's 6 (removed), its own 6 (removed) and an empty cell.
    let mut b = pos("r3b6r64/7/7/7/7/7/3b13 r 20");
    play(&mut b, "SPREAD(0,0,0,1)");
    assert_eq!(at(&b, 0, 1), None);
    assert_eq!(at(&b, 0, 2), None);
    assert_eq!(at(&b, 0, 3), Some((0, 1)));
    assert_eq!((b.power(0), b.power(1)), (1, 1));
    assert_eq!(b.outcome(), None, "both still have power");
}

#[test]
fn the_game_cannot_end_before_two_actions() {
    let mut b = Board::new();
    play(&mut b, "SPAWN(0,0)");
    assert_eq!(b.power(1), 0);
    assert_eq!(b.outcome(), None);
    let mut moves = Vec::new();
    b.legal_actions(&mut moves);
    assert_eq!(moves.len(), 48, "Blue may SPAWN on any empty cell");
}

#[test]
fn a_win_by_elimination() {
    let mut b = Board::new();
    for mv in ["SPAWN(0,0)", "SPAWN(0,1)", "SPREAD(0,0,0,1)"] {
        play(&mut b, mv);
    }
    assert_eq!((b.power(0), b.power(1)), (2, 0));
    assert_eq!(b.outcome(), Some(Outcome::win(0, 2)));
    let mut moves = vec![1, 2, 3];
    b.legal_actions(&mut moves);
    assert!(moves.is_empty(), "a finished game has no moves");
    assert_eq!(b.apply(0), Err(GameError::GameOver));
}

#[test]
fn an_elimination_that_leaves_the_survivor_with_1_power_is_a_draw() {
    let mut b = pos("r2b65/7/7/7/7/7/7 r 10");
    play(&mut b, "SPREAD(0,0,0,1)");
    assert_eq!((b.power(0), b.power(1)), (1, 0));
    assert_eq!(b.outcome(), Some(Outcome::draw()));
}

#[test]
fn no_tokens_left_is_a_draw() {
    let mut b = pos("r1b65/7/7/7/7/7/7 r 10");
    play(&mut b, "SPREAD(0,0,0,1)");
    assert_eq!(b.total_power(), 0);
    assert_eq!(b.outcome(), Some(Outcome::draw()));
}

#[test]
fn removing_your_own_last_token_ends_the_game() {
    let mut b = pos("r1r65/7/7/3b33/7/7/7 r 10");
    play(&mut b, "SPREAD(0,0,0,1)");
    assert_eq!((b.power(0), b.power(1)), (0, 3));
    assert_eq!(b.outcome(), Some(Outcome::win(1, 2)));
}

#[test]
fn after_343_actions_a_lead_of_2_wins() {
    let mut b = pos("r6r6r6r13/b6b6b64/7/7/7/7/7 r 342");
    assert_eq!((b.power(0), b.power(1)), (19, 18));
    assert_eq!(b.outcome(), None, "342 actions: not over yet");
    play(&mut b, "SPAWN(3,3)");
    assert_eq!(b.ply(), MAX_TURNS);
    assert_eq!(b.outcome(), Some(Outcome::win(0, 2)), "20 against 18");
}

#[test]
fn after_343_actions_a_lead_of_1_is_a_draw() {
    let mut b = pos("r6r6r64/b6b6b64/7/7/7/7/7 r 342");
    play(&mut b, "SPAWN(3,3)");
    assert_eq!((b.power(0), b.power(1)), (19, 18));
    assert_eq!(b.outcome(), Some(Outcome::draw()));
}

#[test]
fn after_343_actions_blue_can_win_on_power() {
    let mut b = pos("r6r6r64/b6b6b6b23/7/7/7/7/7 r 342");
    play(&mut b, "SPAWN(3,3)");
    assert_eq!((b.power(0), b.power(1)), (19, 20));
    assert_eq!(
        b.outcome(),
        Some(Outcome::draw()),
        "a lead of 1 either way is a draw"
    );
    let mut b = pos("r6r6r64/b6b6b6b33/7/7/7/7/7 r 342");
    play(&mut b, "SPAWN(3,3)");
    assert_eq!(b.outcome(), Some(Outcome::win(1, 2)), "19 against 21");
}

#[test]
fn spawn_is_not_allowed_at_49_total_power() {
    let b = pos("r6r6r6r6b6b6b6/b6r15/7/7/7/7/7 r 30");
    assert_eq!(b.total_power(), 49);
    let mut moves = Vec::new();
    b.legal_actions(&mut moves);
    assert_eq!(moves.len(), 5 * 6, "only the SPREADs of Red's five stacks");
    assert_eq!(
        b.parse_legal_action("SPAWN(3,3)"),
        Err(GameError::IllegalMove(
            "SPAWN(3,3): no SPAWN once the board holds 49 power".into()
        ))
    );
}

#[test]
fn illegal_moves_typed_by_a_human_are_explained() {
    let b = pos("7/1r25/7/3b33/7/7/7 r 4");
    let why = |mv: &str| b.parse_legal_action(mv).unwrap_err().to_string();
    assert_eq!(
        why("SPAWN(1,1)"),
        "illegal move SPAWN(1,1): SPAWN needs an empty cell"
    );
    assert_eq!(
        why("SPREAD(3,3,0,1)"),
        "illegal move SPREAD(3,3,0,1): SPREAD needs a stack of yours, and that one is Blue's"
    );
    assert_eq!(
        why("SPREAD(0,0,1,0)"),
        "illegal move SPREAD(0,0,1,0): SPREAD needs a stack of yours, and that cell is empty"
    );
}

#[test]
fn illegal_moves_are_refused_and_change_nothing() {
    let mut b = pos("7/1r25/7/3b33/7/7/7 r 4");
    let before = b;
    for mv in ["SPAWN(1,1)", "SPREAD(3,3,0,1)", "SPREAD(0,0,1,0)"] {
        let a = b.parse_action(mv).unwrap();
        assert!(
            matches!(b.apply(a), Err(GameError::IllegalAction(_))),
            "{mv}"
        );
        assert_eq!(b, before);
    }
    assert!(b.apply(343).is_err(), "outside the action space");
    assert_eq!(b, before);
}

#[test]
fn moves_are_written_as_the_course_writes_them() {
    let b = Board::new();
    for (text, canonical) in [
        ("SPAWN(5,4)", "SPAWN(5,4)"),
        ("spread( 6, 3, -1, 0 )", "SPREAD(6,3,-1,0)"),
        ("SPREAD(0,0,1,-1)", "SPREAD(0,0,1,-1)"),
    ] {
        let a = b.parse_action(text).unwrap();
        assert_eq!(b.action_to_string(a), canonical);
    }
    for a in 0..b.action_space() as u16 {
        assert_eq!(b.parse_action(&b.action_to_string(a)), Ok(a));
    }
}

#[test]
fn malformed_moves_get_clear_errors() {
    let b = Board::new();
    for (text, why) in [
        ("SPAWN(7,0)", "between 0 and 6"),
        ("SPAWN(1)", "two arguments"),
        ("SPREAD(1,1,1,1)", "direction must be one of"),
        ("SPREAD(1,1,0,1", "closing"),
        ("JUMP(1,1)", "expected SPAWN"),
        ("SPAWN(a,b)", "integers"),
        ("", "expected SPAWN"),
    ] {
        let e = b.parse_action(text).unwrap_err().to_string();
        assert!(e.contains(why), "{text:?}: {e}");
    }
}

#[test]
fn position_notation_round_trips() {
    for text in [
        "7/7/7/7/7/7/7 r 0",
        "7/7/7/7/7/4r12/7 b 1",
        "r6r6r6r6b6b6b6/b6r15/7/7/7/7/7 r 30",
        "3b51r21/7/7/7/7/7/1r1b2r3b4r51 b 343",
    ] {
        assert_eq!(pos(text).to_notation(), text);
    }
}

#[test]
fn bad_position_notation_is_refused_with_the_reason() {
    for (text, why) in [
        ("7/7/7/7/7/7 r 0", "expected 7 rows"),
        ("7/7/7/7/7/7/7 r", "expected 3 fields"),
        ("8/7/7/7/7/7/7 r 0", "unexpected character '8'"),
        ("6/7/7/7/7/7/7 r 0", "row 0 has 6 cells"),
        ("r7/7/7/7/7/7/7 r 0", "power 1-6"),
        ("r16/7/7/7/7/7/7 b 0", "side to move must be 'r'"),
        ("7/7/7/7/7/7/7 r 344", "0-343"),
        ("7/7/7/7/7/7/7 r -1", "0-343"),
        ("r6r6r6r6r6r6r6/r6r65/7/7/7/7/7 r 0", "exceeds 49"),
        ("x6/7/7/7/7/7/7 r 0", "unexpected character 'x'"),
        ("6r1r1/7/7/7/7/7/7 r 0", "more than 7 cells"),
    ] {
        let e = Board::from_notation(text).unwrap_err().to_string();
        assert!(e.contains(why), "{text:?}: {e}");
    }
}

#[test]
fn a_notation_at_343_actions_is_a_finished_game() {
    let b = pos("3b51r21/7/7/7/7/7/1r1b2r3b4r51 b 343");
    assert!(b.outcome().is_some());
    assert_eq!(b.cell(CELLS - 1), 0);
}
