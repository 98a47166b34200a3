//! Self-play against a fixed opponent (`selfplay.opponent`, `selfplay.opponent_fraction`):
//! real games through `selfplay::play`, replayed move by move, with the opponent's moves
//! checked against the agent itself and the replay buffer's targets against the seats;
//! a league of them, drawn by its weights, its scores in a run's metrics and read back on
//! a resume.

use std::sync::Mutex;

use contagion::agents::AgentSpec;
use contagion::config::{Config, TrainConfig};
use contagion::games::Game;
use contagion::games::chexers::Chexers;
use contagion::nn::NetShape;
use contagion::selfplay::replay::{Targets, positions};
use contagion::selfplay::{SelfPlayGame, SelfPlaySettings, SelfPlayStats, play};
use contagion::train::Trainer;

/// Plays `games` capped Chexers games with `opponent` in `fraction` of them.
fn games_against(fraction: f64, games: u32) -> (Vec<SelfPlayGame>, u64) {
    let (found, stats) = league_games("alphabeta:depth=1", fraction, games, None);
    (found, stats.opponent_games)
}

/// Plays `games` capped Chexers games with the league `league` in `fraction` of them,
/// its members drawn by `weights` (the config's where `None`).
fn league_games(
    league: &str,
    fraction: f64,
    games: u32,
    weights: Option<Vec<f64>>,
) -> (Vec<SelfPlayGame>, SelfPlayStats) {
    let start = Chexers::new();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/chexers-tiny.toml");
    let mut c = Config::load(std::path::Path::new(path)).unwrap();
    c.selfplay.max_plies = 24;
    c.mcts.simulations = 4;
    c.selfplay.opponent = league.into();
    c.selfplay.opponent_fraction = fraction;
    c.validate().unwrap();
    let mut settings = SelfPlaySettings::from_config(&c, 2, false, 1);
    if let Some(w) = weights {
        settings.league_weights = w;
    }
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
    (found, stats)
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

#[test]
fn a_league_member_is_drawn_by_its_weight_and_its_games_are_counted() {
    let league = "greedy random alphabeta:depth=1";
    let (games, stats) = league_games(league, 1.0, 6, Some(vec![0.0, 1.0, 0.0]));
    assert_eq!(stats.opponent_games, 6);
    assert_eq!(
        stats.league.iter().map(|l| l.0).collect::<Vec<_>>(),
        [0, 6, 0]
    );
    // The network's summed score: a win 1, a loss 0, a cut game by its score.
    let sum: f64 = (games.iter())
        .map(|g| {
            let start = Chexers::new();
            let mut state = start.clone();
            let mut seat = None;
            for (&a, v) in g.moves.iter().zip(&g.targets) {
                seat = seat.or((!v.is_empty()).then(|| state.to_move()));
                state.apply(a).unwrap();
            }
            ((g.outcome[seat.unwrap()] as f64 + 1.0) / 2.0).clamp(0.0, 1.0)
        })
        .sum();
    assert!(
        (stats.league[1].1 - sum).abs() < 1e-4,
        "{:?} against {sum}",
        stats.league
    );
    let (_, even) = league_games(league, 1.0, 12, None);
    assert_eq!(even.league.iter().map(|l| l.0).sum::<u64>(), 12);
    assert!(
        even.league.iter().filter(|l| l.0 > 0).count() >= 2,
        "{:?}",
        even.league
    );
}

#[test]
fn a_run_logs_its_scores_against_the_league_and_a_resume_reads_them_back() {
    use crate::process::{text, train};
    use contagion::train::metrics;
    let root = std::env::temp_dir().join(format!("contagion-league-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let config = std::path::Path::new("tests/data/test-run.toml");
    let league = [
        "--set",
        "selfplay.opponent=greedy random",
        "--set",
        "selfplay.opponent_fraction=1",
        // Every candidate passes to the baseline gate, which plays the league's hardest.
        "--set",
        "gating.games=0",
        "--set",
        "gating.baseline_games=2",
        "--set",
        "gating.baseline_league=true",
    ];
    let o = train(config, &root, &league);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("| league: "), "{}", text(&o));
    let o = train(
        config,
        &root,
        &[&league[..], &["--set", "run.iterations=2"]].concat(),
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("resuming"), "{}", text(&o));
    let (m, _) = metrics::read(&root.join("test-run/metrics.jsonl")).unwrap();
    assert_eq!(m.len(), 2);
    for it in &m {
        let games: u64 = it.league.iter().map(|r| r.games).sum();
        assert_eq!((games, it.opponent_games), (4, 4), "{:?}", it.league);
        assert!(it.league.iter().all(|r| (0.0..=1.0).contains(&r.score)));
    }
    // Read back as the resumed run did: the scores after both iterations.
    use contagion::selfplay::league::League;
    let mut c = contagion::config::Config::load(config).unwrap();
    c.selfplay.opponent = "greedy random".into();
    let read = (League::of(&c).unwrap()).replay(m.iter().map(|it| &it.league[..]));
    let mut live = League::of(&c).unwrap();
    m.iter().for_each(|it| live.record(&it.league));
    assert_eq!(read.scores, live.scores);
    assert!(read.scores.iter().any(|&s| s != 0.5), "{:?}", read.scores);
    // The draw of the last iteration, published for workers: the first one's scores.
    let store = contagion::store::open(root.join("test-run").to_str().unwrap()).unwrap();
    let first = (League::of(&c).unwrap()).replay([&m[0].league[..]]);
    let published = League::published(&*store, &first.members).unwrap();
    assert_eq!(published, Some(first.weights()));
    // Each gate played the member the network scored worst against by then.
    for k in 0..m.len() {
        let by_then = (League::of(&c).unwrap()).replay(m[..=k].iter().map(|it| &it.league[..]));
        let gate = m[k]
            .gate_candidate_vs_baseline
            .as_ref()
            .expect("a baseline gate");
        assert_eq!(
            Some(&gate.opponent),
            by_then.hardest().map(ToString::to_string).as_ref(),
            "{:?}",
            by_then.scores
        );
    }
    // The league's gate without a league is refused, named.
    let alone = train(
        config,
        &root.join("alone"),
        &["--set", "gating.baseline_league=true"],
    );
    assert!(!alone.status.success());
    assert!(
        text(&alone).contains("gating.baseline_league"),
        "{}",
        text(&alone)
    );
    // A member that is no agent is refused, named.
    let bad = train(
        config,
        &root.join("bad"),
        &["--set", "selfplay.opponent=greedy nosuch"],
    );
    assert!(!bad.status.success());
    assert!(text(&bad).contains("nosuch"), "{}", text(&bad));
    std::fs::remove_dir_all(&root).ok();
}
