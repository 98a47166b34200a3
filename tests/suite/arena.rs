//! Matches: seat balance, forfeits, and a golden seeded result between fixed baselines.

use std::time::Duration;

use contagion::agents::{Agent, AgentSpec, Limits};
use contagion::arena::{Clock, MatchConfig, play_game, random_opening, run_match};
use contagion::games::infexion::Board;
use contagion::games::{Action, Game, Outcome};

fn config(games: u32, threads: usize) -> MatchConfig {
    MatchConfig {
        games,
        seed: 2023,
        threads,
        opening_plies: 2,
        time_per_game: Some(Duration::from_secs(180)),
        move_time: None,
        progress: false,
        partner: None,
    }
}

fn spec(text: &str) -> AgentSpec {
    text.parse().unwrap()
}

#[test]
fn golden_alphabeta_against_greedy() {
    // A fixed seeded match between fixed baselines: if this changes, the baselines (or
    // the rules) changed, and every past result changes meaning with them.
    let r = run_match(
        &Board::new(),
        &spec("alphabeta:depth=2"),
        &spec("greedy"),
        &config(40, 2),
    )
    .unwrap();
    assert_eq!(
        (r.overall.wins, r.overall.draws, r.overall.losses),
        GOLDEN_WDL
    );
    assert_eq!(r.mean_plies, GOLDEN_MEAN_PLIES);
    assert_eq!(r.by_seat.iter().map(|s| s.games()).sum::<u32>(), 40);
    assert!(r.a_forfeits.is_empty() && r.b_forfeits.is_empty());
}

const GOLDEN_WDL: (u32, u32, u32) = (35, 0, 5);
const GOLDEN_MEAN_PLIES: f64 = 116.05;

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let (a, b) = (spec("alphabeta:depth=1"), spec("greedy"));
    let one = run_match(&Board::new(), &a, &b, &config(12, 1)).unwrap();
    let two = run_match(&Board::new(), &a, &b, &config(12, 2)).unwrap();
    assert_eq!(one.overall, two.overall);
    assert_eq!(one.mean_plies, two.mean_plies);
}

#[test]
fn each_opening_is_played_with_both_colours() {
    // A deterministic agent against itself: the two games of an opening are the same game
    // with the colours swapped, so every win of A as Red is a loss of A as Blue.
    let a = spec("alphabeta:depth=1");
    let r = run_match(&Board::new(), &a, &a, &config(20, 2)).unwrap();
    let (red, blue) = (r.by_seat[0], r.by_seat[1]);
    assert_eq!((red.games(), blue.games()), (10, 10));
    assert_eq!(
        (red.wins, red.draws, red.losses),
        (blue.losses, blue.draws, blue.wins)
    );
    assert_eq!(r.overall.score, 0.5);
}

#[test]
fn openings_are_seeded_and_leave_the_game_running() {
    let start = Board::new();
    let o = random_opening(&start, 4, 9).unwrap();
    assert_eq!(o, random_opening(&start, 4, 9).unwrap());
    assert_ne!(o, random_opening(&start, 4, 10).unwrap());
    assert_eq!(o.len(), 4);
    let e = random_opening(&start, 400, 9).unwrap_err();
    assert!(e.to_string().contains("use fewer opening plies"), "{e}");
}

#[test]
fn a_match_needs_a_whole_number_of_colour_pairs() {
    let e = run_match(
        &Board::new(),
        &spec("random"),
        &spec("random"),
        &config(3, 1),
    )
    .unwrap_err();
    assert!(e.to_string().contains("multiple of 2"), "{e}");
    let e = run_match(
        &Board::new(),
        &spec("human"),
        &spec("random"),
        &config(2, 1),
    )
    .unwrap_err();
    assert!(e.to_string().contains("contagion play"), "{e}");
}

/// Plays a fixed action, legal or not, after sleeping.
struct Scripted {
    action: Action,
    sleep: Duration,
}

impl Agent<Board> for Scripted {
    fn name(&self) -> String {
        "scripted".into()
    }

    fn select(&mut self, _: &Board, _: &Limits) -> anyhow::Result<Action> {
        std::thread::sleep(self.sleep);
        Ok(self.action)
    }
}

#[test]
fn an_illegal_move_forfeits_the_game() {
    let start = Board::new();
    let spawn_0_0 = start.parse_action("SPAWN(0,0)").unwrap();
    // Blue repeats SPAWN(0,0) on the now occupied cell.
    let mut agents: Vec<Box<dyn Agent<Board>>> = vec![
        Box::new(Scripted {
            action: spawn_0_0,
            sleep: Duration::ZERO,
        }),
        Box::new(Scripted {
            action: spawn_0_0,
            sleep: Duration::ZERO,
        }),
    ];
    let r = play_game(&start, &[], &mut agents, Clock::default(), |_, _, _| {});
    let f = r.forfeit.expect("a forfeit");
    assert_eq!(f.seat, 1);
    assert!(f.reason.contains("illegal move SPAWN(0,0)"), "{}", f.reason);
    assert_eq!(r.outcome, Outcome::win(0, 2));
    assert_eq!(r.moves, vec![spawn_0_0]);
}

#[test]
fn running_out_of_time_forfeits_the_game() {
    let start = Board::new();
    let mut agents: Vec<Box<dyn Agent<Board>>> = vec![
        Box::new(Scripted {
            action: start.parse_action("SPAWN(0,0)").unwrap(),
            sleep: Duration::from_millis(30),
        }),
        "random"
            .parse::<AgentSpec>()
            .unwrap()
            .build(&Board::new(), 1)
            .unwrap(),
    ];
    let r = play_game(
        &start,
        &[],
        &mut agents,
        Clock {
            per_game: Some(Duration::from_millis(10)),
            per_move: None,
        },
        |_, _, _| {},
    );
    let f = r.forfeit.expect("a forfeit");
    assert_eq!(f.seat, 0);
    assert!(f.reason.starts_with("out of time"), "{}", f.reason);
    assert_eq!(r.outcome, Outcome::win(1, 2));
    assert!(r.moves.is_empty(), "the late move is not played");
    let (took, ply) = r.slowest_move[0];
    assert!(
        took >= Duration::from_millis(30) && ply == 1,
        "{:?}",
        r.slowest_move
    );
}
