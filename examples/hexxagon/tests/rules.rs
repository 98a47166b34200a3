//! Hexxagon's rules: the conformance kit every game runs, and the rules the kit cannot
//! know (the start, captures, the end and its count).

use contagion::games::Game;
use contagion::games::conformance::Conformance;
use hexxagon::Hexxagon;

#[test]
fn hexxagon_passes_the_conformance_kit() {
    let summary = Conformance::default()
        .check(&Hexxagon::new())
        .unwrap_or_else(|f| panic!("{f}"));
    assert!(summary.positions > 1000, "{summary:?}");
}

#[test]
fn the_start_has_alternate_corners_and_three_blocked_cells() {
    let start = Hexxagon::new();
    assert_eq!(start.to_notation(), "r3p/6/7/4-3/p2-4r/4-3/7/6/r3p r 0");
    assert_eq!(
        (start.pieces(0), start.pieces(1), start.empties()),
        (3, 3, 52)
    );
    let mut moves = Vec::new();
    start.legal_actions(&mut moves);
    // A corner has 3 neighbours and 5 cells two steps away on the board.
    assert_eq!(moves.len(), 3 * (3 + 5));
    assert!(
        start.parse_legal_action("f5").is_err(),
        "f5 is not beside a Ruby piece"
    );
    assert!(start.parse_action("d5").is_err(), "d5 is blocked");
}

/// Ruby on c5, Pearl on a5, Ruby to move.
fn duel() -> Hexxagon {
    Hexxagon::new()
        .parse_position("5/6/7/4-3/p1r-5/4-3/7/6/5 r 10")
        .expect("a position")
}

#[test]
fn a_clone_turns_the_neighbours_and_a_player_without_a_move_loses_the_empty_cells() {
    let mut s = duel();
    s.apply(s.parse_legal_action("b5").unwrap()).unwrap();
    assert_eq!((s.pieces(0), s.pieces(1)), (3, 0), "the clone took a5");
    let outcome = s.outcome().expect("Pearl has no move: the game is over");
    assert_eq!(outcome.winner(), Some(0));
    assert_eq!(s.final_count(), [3 + s.empties(), 0]);
}

#[test]
fn a_jump_leaves_its_cell_and_lands_two_steps_away() {
    let mut s = duel();
    assert!(s.parse_legal_action("c5a5").is_err(), "a5 is taken");
    assert!(
        s.parse_action("c5d5").is_err(),
        "one step is a clone, not a jump"
    );
    s.apply(s.parse_legal_action("c5e5").unwrap()).unwrap();
    assert_eq!(s.to_notation(), "5/6/7/4-3/p2-r4/4-3/7/6/5 p 11");
    assert_eq!(s.outcome(), None);
}

#[test]
fn the_game_ends_at_the_ply_limit_scored_as_it_stands() {
    let s = Hexxagon::new()
        .parse_position("r3p/6/7/4-3/p2-4r/4-3/7/6/r3r p 150")
        .expect("a position");
    assert_eq!(
        s.final_count(),
        [4, 2],
        "at the limit the empty cells count for nobody"
    );
    assert_eq!(s.outcome().expect("over").winner(), Some(0));
    assert!(
        s.parse_position("r3p/6/7/4-3/p2-4r/4-3/7/6/r3p r 151")
            .is_err()
    );
}
