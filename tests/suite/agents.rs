//! The baseline agents: determinism, the greedy rules, alpha-beta against minimax, and
//! the search limits.

use std::time::{Duration, Instant};

use contagion::agents::infexion::PowerRatio;
use contagion::agents::{Agent, AgentSpec, Limits};
use contagion::arena::{Clock, play_game};
use contagion::bench::sample_positions;
use contagion::games::Game;
use contagion::games::infexion::Board;
use contagion::search::alphabeta::{AlphaBeta, SearchLimits};

fn pos(notation: &str) -> Board {
    Board::from_notation(notation).unwrap()
}

fn agent(spec: &str, seed: u64) -> Box<dyn Agent<Board>> {
    spec.parse::<AgentSpec>()
        .unwrap()
        .build(&Board::new(), seed)
        .unwrap()
}

fn choose(spec: &str, board: &Board) -> String {
    let a = agent(spec, 7).select(board, &Limits::default()).unwrap();
    board.action_to_string(a)
}

fn game_moves(a: &str, b: &str, seed: u64) -> Vec<u16> {
    let mut agents = vec![agent(a, seed), agent(b, seed + 1)];
    play_game(
        &Board::new(),
        &[],
        &mut agents,
        Clock::default(),
        |_, _, _| {},
    )
    .moves
}

#[test]
fn agents_are_deterministic_given_a_seed() {
    for (a, b) in [
        ("greedy", "random"),
        ("alphabeta:depth=2", "greedy"),
        ("minimax:depth=1", "random"),
    ] {
        assert_eq!(game_moves(a, b, 11), game_moves(a, b, 11), "{a} vs {b}");
    }
    assert_ne!(
        game_moves("random", "random", 11),
        game_moves("random", "random", 12)
    );
}

#[test]
fn greedy_takes_the_spread_that_conquers_most() {
    // Red's 1-stack at (0,0) can take Blue's 1 at (0,1) or Blue's 4 at (1,0).
    let b = pos("r1b15/b46/7/7/7/7/6r1 r 10");
    assert_eq!(choose("greedy", &b), "SPREAD(0,0,1,0)");
}

#[test]
fn greedy_spawns_next_to_its_tokens_out_of_the_opponents_reach() {
    // Nothing to capture. Blue's 1-stack at (3,3) reaches its six neighbours; Red's token
    // at (3,5) has neighbours inside and outside that reach.
    let b = pos("7/7/7/3b11r11/7/7/7 r 2");
    for seed in 0..20 {
        let a = agent("greedy", seed)
            .select(&b, &Limits::default())
            .unwrap();
        let text = b.action_to_string(a);
        assert!(
            [
                "SPAWN(3,6)",
                "SPAWN(2,6)",
                "SPAWN(2,5)",
                "SPAWN(4,4)",
                "SPAWN(4,5)"
            ]
            .contains(&text.as_str()),
            "seed {seed}: {text} is not a safe cell next to (3,5)"
        );
    }
}

#[test]
fn greedy_spreads_when_spawning_is_not_allowed() {
    let b = pos("r6r6r6r6b6b6b6/b6r15/7/7/7/7/7 r 30");
    let text = choose("greedy", &b);
    assert!(text.starts_with("SPREAD"), "{text}");
}

#[test]
fn alphabeta_and_minimax_take_a_win_in_one() {
    // Red's 2-stack at (0,0) spreading right takes both of Blue's stacks.
    let b = pos("r2b1b14/7/7/7/7/7/7 r 8");
    for spec in [
        "alphabeta:depth=1",
        "alphabeta:depth=3",
        "minimax:depth=2",
        "alphabeta:ms=50",
    ] {
        assert_eq!(choose(spec, &b), "SPREAD(0,0,0,1)", "{spec}");
    }
}

#[test]
fn alphabeta_avoids_a_loss_in_two() {
    // Blue's 2-stack at (0,2) spreading left would capture Red's only token at (0,0).
    // Red cannot capture it; depth 2 sees that every move leaving (0,0) alone loses.
    let b = pos("r11b24/7/7/7/7/7/7 r 2");
    let chosen = b.parse_action(&choose("alphabeta:depth=2", &b)).unwrap();
    let mut after = b;
    after.apply(chosen).unwrap();
    let mut replies = Vec::new();
    after.legal_actions(&mut replies);
    for reply in replies {
        let mut end = after;
        end.apply(reply).unwrap();
        assert_ne!(
            end.outcome().and_then(|o| o.winner()),
            Some(1),
            "{} loses",
            b.action_to_string(chosen)
        );
    }
    // The threat is real: the plain spawn next to Blue loses at once.
    let mut blunder = b;
    blunder
        .apply(b.parse_action("SPAWN(0,1)").unwrap())
        .unwrap();
    blunder
        .apply(blunder.parse_action("SPREAD(0,2,0,-1)").unwrap())
        .unwrap();
    assert_eq!(blunder.outcome().and_then(|o| o.winner()), Some(1));
}

#[test]
fn alphabeta_agrees_with_minimax() {
    let heuristic = PowerRatio;
    let mut ab = AlphaBeta::new(&heuristic, true);
    let mut mm = AlphaBeta::new(&heuristic, false);
    for (depth, count) in [(1, 40), (2, 40), (3, 4)] {
        for p in sample_positions(&Board::new(), count, 10 + depth * 3, depth as u64) {
            let limits = SearchLimits::depth(depth);
            let (x, y) = (
                ab.search(&p, limits.clone()).unwrap(),
                mm.search(&p, limits).unwrap(),
            );
            assert_eq!(
                (x.best, x.score),
                (y.best, y.score),
                "depth {depth} at {}",
                p.to_notation()
            );
            assert!(x.nodes <= y.nodes, "pruning never visits more nodes");
        }
    }
}

#[test]
fn a_node_limit_stops_the_search_after_depth_one() {
    let heuristic = PowerRatio;
    let mut ab = AlphaBeta::new(&heuristic, true);
    let p = &sample_positions(&Board::new(), 1, 30, 3)[0];
    let r = ab.search(p, SearchLimits::nodes(5_000)).unwrap();
    assert!(r.depth >= 1 && r.nodes < 5_000 + 1_024 + 400, "{r:?}");
    assert!(p.is_legal(r.best));
}

#[test]
fn a_past_deadline_still_gives_a_depth_one_move() {
    let heuristic = PowerRatio;
    let mut ab = AlphaBeta::new(&heuristic, true);
    let p = &sample_positions(&Board::new(), 1, 30, 4)[0];
    let limits = SearchLimits::deadline(Instant::now());
    let r = ab.search(p, limits).unwrap();
    assert_eq!(r.depth, 1);
    let exact = ab.search(p, SearchLimits::depth(1)).unwrap();
    assert_eq!(r.best, exact.best, "the completed depth-1 result is kept");
}

#[test]
fn an_empty_clock_still_gives_a_legal_move() {
    let p = &sample_positions(&Board::new(), 1, 20, 5)[0];
    let limits = Limits {
        time_left: Some(Duration::ZERO),
        ..Limits::default()
    };
    let a = agent("alphabeta:ms=1000", 1).select(p, &limits).unwrap();
    assert!(p.is_legal(a));
}

#[test]
fn go_depth_replaces_the_specs_depth() {
    let p = &sample_positions(&Board::new(), 1, 20, 6)[0];
    let mut a = agent("alphabeta:depth=1", 1);
    a.select(
        p,
        &Limits {
            depth: Some(2),
            ..Limits::default()
        },
    )
    .unwrap();
    let info = a.last_search().unwrap();
    assert_eq!(info.depth, 2, "{info:?}");
    assert_eq!(info.pv.len(), 2, "a depth-2 line: {info:?}");
}
