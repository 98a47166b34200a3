//! Best-reply search (`brs`): a win in one taken, legal whole games against the other
//! three-player searches, and the same play as alpha-beta with two players.

use contagion::agents::{Agent, AgentSpec, Limits};
use contagion::arena::{Clock, play_game};
use contagion::games::chexers::Chexers;
use contagion::games::infexion::Board;
use contagion::games::{Action, Game};

fn agent<G: Game + contagion::agents::Baselines>(
    spec: &str,
    start: &G,
    seed: u64,
) -> Box<dyn Agent<G>> {
    spec.parse::<AgentSpec>()
        .unwrap()
        .build(start, seed)
        .unwrap()
}

fn game<G: Game + contagion::agents::Baselines>(
    start: &G,
    specs: &[&str],
    seed: u64,
) -> Vec<Action> {
    let mut agents: Vec<_> = (specs.iter().enumerate())
        .map(|(i, s)| agent(s, start, seed + i as u64))
        .collect();
    let record = play_game(start, &[], &mut agents, Clock::default(), |_, _, _| {});
    assert!(record.forfeit.is_none(), "{specs:?}: {:?}", record.forfeit);
    record.moves
}

#[test]
fn brs_takes_a_win_in_one() {
    // Red has three exits and a piece on its exit edge: EXIT(3,-1) wins at once, while
    // Green and Blue each have pieces to reply with.
    let s = Chexers::new()
        .parse_position("gg2/5/5r/7/6/b4/4 r 3/0/0 10")
        .unwrap();
    for spec in [
        "brs:depth=1",
        "brs:depth=3",
        "brs:depth=4",
        "brs:ms=50",
        "brs:nodes=2000",
    ] {
        let a = agent(spec, &s, 1).select(&s, &Limits::default()).unwrap();
        assert_eq!(s.action_to_string(a), "EXIT(3,-1)", "{spec}");
    }
}

#[test]
fn brs_plays_legal_games_against_the_other_searches() {
    // play_game checks every move and forfeits a bad one; each game ends by the rules.
    let start = Chexers::new();
    for specs in [
        ["brs:depth=2", "alphabeta:depth=2", "maxn:depth=2"],
        ["greedy", "brs:depth=3", "brs:depth=1"],
    ] {
        let moves = game(&start, &specs, 5);
        let mut s = start.clone();
        moves.iter().for_each(|&a| s.apply(a).unwrap());
        assert!(s.outcome().is_some(), "{specs:?}");
    }
}

#[test]
fn with_two_players_brs_is_alpha_beta() {
    let start = Board::new();
    for seed in [3, 4] {
        assert_eq!(
            game(&start, &["brs:depth=2", "greedy"], seed),
            game(&start, &["alphabeta:depth=2", "greedy"], seed),
        );
    }
}
