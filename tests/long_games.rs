//! Long games: adjudication at a ply cap by the game's score, and value targets that
//! mix the result with the score vector (Chexers exits), through real self-play.

use std::sync::Mutex;

use contagion::config::{Config, TrainConfig};
use contagion::games::ataxx::Ataxx;
use contagion::games::chexers::Chexers;
use contagion::games::infexion::Board;
use contagion::games::{Game, Outcome};
use contagion::nn::NetShape;
use contagion::selfplay::{SelfPlayGame, SelfPlaySettings, mix_score, play};
use contagion::train::Trainer;

#[test]
fn adjudication_follows_each_games_score() {
    let infexion = |n: &str| Board::from_notation(n).unwrap().adjudicate();
    assert_eq!(
        infexion("7/7/7/3r33/7/5b11/7 r 2").winner(),
        Some(0),
        "Red leads by 2"
    );
    assert_eq!(
        infexion("7/7/7/3r23/7/5b11/7 r 2"),
        Outcome::draw(),
        "a lead of 1 is a draw"
    );
    assert_eq!(infexion("7/7/7/3r13/7/5b31/7 r 2").winner(), Some(1));
    let ataxx = |n: &str| Ataxx::standard().parse_position(n).unwrap().adjudicate();
    assert_eq!(
        ataxx("xx4o/7/7/7/7/7/o5x o 0 2").winner(),
        Some(0),
        "3 pieces to 2"
    );
    assert_eq!(ataxx("x5o/7/7/7/7/7/o5x x 0 1"), Outcome::draw());
    let chexers = |n: &str| Chexers::new().parse_position(n).unwrap();
    // Green has exited twice, the others once: Green wins on exits.
    let c = chexers("ggg1/5/6/r6/r5/r4/r2b r 1/2/1 40");
    assert_eq!(c.adjudicate().winner(), Some(1), "{}", c.to_notation());
    let v = c.score_vector().unwrap();
    assert!(v.0[1] > 0.0 && v.0[0] < 0.0 && v.0[2] < 0.0, "{v:?}");
    // Equal exits: the pieces' progress toward the exit edge decides (one Red piece
    // stands on Red's exit edge).
    let advanced = chexers("gggg/5/6/6r/r4b/r3b/r2b g 0/0/0 1");
    assert_eq!(
        advanced.adjudicate().winner(),
        Some(0),
        "{}",
        advanced.to_notation()
    );
    let start = Chexers::new();
    assert_eq!(
        start.adjudicate(),
        Outcome::draw(),
        "a symmetric start is a draw"
    );
}

#[test]
fn capped_self_play_games_are_recorded_with_the_adjudicated_mixed_result() {
    let start = Chexers::new();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/chexers-tiny.toml");
    let mut c = Config::load(std::path::Path::new(path)).unwrap();
    c.selfplay.max_plies = 12;
    c.selfplay.score_weight = 0.5;
    c.mcts.simulations = 4;
    let settings = SelfPlaySettings::from_config(&c, 1, false);
    let net = Trainer::new(
        NetShape::for_game(&start, 1, 8, 16),
        &TrainConfig::default(),
    )
    .net();
    let games: Mutex<Vec<SelfPlayGame>> = Mutex::new(Vec::new());
    let stats = play(&start, &net, &settings, 6, 3, |g| {
        games.lock().unwrap().push(g)
    })
    .unwrap();
    let games = games.into_inner().unwrap();
    assert_eq!(games.len(), 6, "capped games are recorded, not dropped");
    assert_eq!(stats.adjudicated, 6);
    for g in &games {
        assert_eq!(g.moves.len(), 12);
        let mut s = start.clone();
        for &a in &g.moves {
            s.apply(a).unwrap();
        }
        assert!(s.outcome().is_none(), "12 plies cannot finish Chexers");
        let expected = mix_score(s.adjudicate().0, &s, 0.5);
        assert_eq!(g.outcome, expected, "{}", s.to_notation());
        let result = s.adjudicate().0;
        let score = s.score_vector().unwrap().0;
        for p in 0..3 {
            assert!((g.outcome[p] - (0.5 * result[p] + 0.5 * score[p])).abs() < 1e-6);
        }
    }
}
