//! Baselines for Ataxx and Chexers: greedy, paranoid alpha-beta and max^n choose what
//! their definitions say, and three-player matches rotate every agent through every seat.

use contagion::agents::{Agent, AgentSpec, Baselines, Limits};
use contagion::arena::{MatchConfig, run_match};
use contagion::games::Game;
use contagion::games::ataxx::Ataxx;
use contagion::games::chexers::Chexers;
use contagion::search::maxn::maxn;

fn choose<G: Baselines>(spec: &str, state: &G) -> String {
    let mut agent: Box<dyn Agent<G>> = spec.parse::<AgentSpec>().unwrap().build(state, 3).unwrap();
    state.action_to_string(agent.select(state, &Limits::default()).unwrap())
}

#[test]
fn ataxx_greedy_and_alphabeta_take_the_most_pieces() {
    // Cloning to d4 converts c5, d5 and e5 (+4); jumping there converts the same (+3).
    let s = Ataxx::standard()
        .parse_position("7/7/2ooo2/7/3x3/7/7 x 0 1")
        .unwrap();
    assert_eq!(choose("greedy", &s), "d4");
    assert_eq!(choose("alphabeta:depth=1", &s), "d4");
    // A deeper search, with replies, still plays a legal move.
    let m = choose("alphabeta:depth=3", &s);
    assert!(s.parse_legal_action(&m).is_ok());
}

#[test]
fn chexers_baselines_exit_to_win() {
    // Red has 3 exits and a piece on its exit edge: exiting wins now.
    let s = Chexers::new()
        .parse_position("gg2/5/5r/7/6/3b1/4 r 3/0/0 30")
        .unwrap();
    for spec in [
        "greedy",
        "maxn:depth=1",
        "maxn:depth=3",
        "alphabeta:depth=2",
    ] {
        assert_eq!(choose(spec, &s), "EXIT(3,-1)", "{spec}");
    }
}

#[test]
fn maxn_scores_every_player_and_the_mover_takes_its_best() {
    // Green (3 exits) at (0,1) can jump over Red's (-1,2) onto its exit edge at (-2,3),
    // converting that piece: better for Green than stepping toward the edge.
    let s = Chexers::new()
        .parse_position("4/5/6/7/3g2/2r2/r3 g 0/3/0 40")
        .unwrap();
    let r = maxn(&s, &contagion::agents::chexers::Race, 2).unwrap();
    assert_eq!(s.action_to_string(r.best), "JUMP(0,1,-2,3)");
    assert!(
        r.scores[1] > r.scores[0] && r.scores[1] > r.scores[2],
        "{:?}",
        r.scores
    );
    assert_eq!(choose("maxn:depth=1", &s), "JUMP(0,1,-2,3)");
}

#[test]
fn three_player_matches_put_each_agent_in_every_seat() {
    let config = MatchConfig {
        games: 6,
        seed: 2,
        threads: 2,
        opening_plies: 2,
        time_per_game: None,
        move_time: None,
        progress: false,
        partner: None,
    };
    let a: AgentSpec = "greedy".parse().unwrap();
    let b: AgentSpec = "random".parse().unwrap();
    let r = run_match(&Chexers::new(), &a, &b, &config).unwrap();
    let json = serde_json::to_value(&r).unwrap();
    let seats = json["by_seat"].as_array().unwrap();
    assert_eq!(seats.len(), 3);
    for seat in seats {
        let games = ["wins", "draws", "losses"]
            .iter()
            .map(|k| seat[k].as_u64().unwrap())
            .sum::<u64>();
        assert_eq!(games, 2, "each seat: one game per opening");
    }
    let err = run_match(&Chexers::new(), &a, &b, &MatchConfig { games: 4, ..config }).unwrap_err();
    assert!(err.to_string().contains("multiple of 3"), "{err}");
}
