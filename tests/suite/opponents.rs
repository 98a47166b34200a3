//! Self-play against a fixed opponent (`selfplay.opponent`, `selfplay.opponent_fraction`):
//! real games through `selfplay::play`, replayed move by move, with the opponent's moves
//! checked against the agent itself and the replay buffer's targets against the seats.

use std::sync::Mutex;

use contagion::agents::AgentSpec;
use contagion::config::{Config, TrainConfig};
use contagion::games::Game;
use contagion::games::chexers::Chexers;
use contagion::nn::NetShape;
use contagion::selfplay::replay::{Targets, positions};
use contagion::selfplay::{SelfPlayGame, SelfPlaySettings, play};
use contagion::train::Trainer;

/// Plays `games` capped Chexers games with `opponent` in `fraction` of them.
fn games_against(fraction: f64, games: u32) -> (Vec<SelfPlayGame>, u64) {
    let start = Chexers::new();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/chexers-tiny.toml");
    let mut c = Config::load(std::path::Path::new(path)).unwrap();
    c.selfplay.max_plies = 24;
    c.mcts.simulations = 4;
    c.selfplay.opponent = "alphabeta:depth=1".into();
    c.selfplay.opponent_fraction = fraction;
    c.validate().unwrap();
    let settings = SelfPlaySettings::from_config(&c, 2, false, 1);
    let net = Trainer::new(
        NetShape::for_game(&start, 1, 8, 16),
        &TrainConfig::default(),
    )
    .unwrap()
    .net();
    let found: Mutex<Vec<SelfPlayGame>> = Mutex::new(Vec::new());
    let stats = play(&start, &net, &settings, games, 5, |g| {
        found.lock().unwrap().push(g)
    })
    .unwrap();
    let found = found.into_inner().unwrap();
    assert_eq!(found.len() as u64, stats.games);
    (found, stats.opponent_games)
}

#[test]
fn the_opponent_plays_every_seat_but_the_networks_and_leaves_no_targets() {
    let (games, against) = games_against(1.0, 6);
    assert_eq!(
        (games.len(), against),
        (6, 6),
        "every game has the opponent"
    );
    let spec: AgentSpec = "alphabeta:depth=1".parse().unwrap();
    let start = Chexers::new();
    let mut seats = Vec::new();
    for g in &games {
        let mut state = start.clone();
        let mut network_seats = Vec::new();
        for (&action, visits) in g.moves.iter().zip(&g.targets) {
            let mover = state.to_move();
            if visits.is_empty() {
                // The opponent's move: what the agent itself picks here.
                let mut agent = spec.build(&start, 0).unwrap();
                let picked = agent.select(&state, &Default::default()).unwrap();
                assert_eq!(picked, action, "{}", state.to_notation());
            } else {
                assert!(visits.iter().all(|&(a, _)| state.is_legal(a)));
                network_seats.push(mover);
            }
            state.apply(action).unwrap();
        }
        network_seats.dedup();
        assert_eq!(network_seats.len(), 1, "the network plays one seat");
        seats.push(network_seats[0]);
        // The replay buffer trains on the network's positions only.
        let samples = positions(&start, g, Targets::default()).unwrap();
        assert_eq!(
            samples.len(),
            g.targets.iter().filter(|v| !v.is_empty()).count()
        );
        assert!(
            samples
                .iter()
                .all(|s| s.state.to_move() == seats[seats.len() - 1])
        );
        assert!(samples.iter().all(|s| s.outcome == g.outcome));
    }
    seats.sort();
    seats.dedup();
    assert!(seats.len() > 1, "the network's seat is drawn: {seats:?}");
}

#[test]
fn without_a_fraction_every_move_is_the_networks() {
    let (games, against) = games_against(0.0, 4);
    assert_eq!(against, 0);
    assert!(games.iter().flat_map(|g| &g.targets).all(|v| !v.is_empty()));
}
