//! Long and drawn games: adjudication at a ply cap by the game's score, value targets
//! that mix the result with the score vector (power, pieces, the Chexers race) or with the
//! search's root value, or value targets from the score a few plies later (a truncated
//! return), through real self-play and the replay format.

use std::sync::Mutex;

use contagion::config::{Config, TrainConfig};
use contagion::games::ataxx::Ataxx;
use contagion::games::chexers::Chexers;
use contagion::games::infexion::Board;
use contagion::games::{Game, Outcome};
use contagion::nn::NetShape;
use contagion::selfplay::replay::{MAGIC, Shard, Targets, positions};
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
    // Green has exited twice, the others once: Green is fewest moves from winning.
    let c = chexers("ggg1/5/6/r6/r5/r4/r2b r 1/2/1 40");
    assert_eq!(c.adjudicate().winner(), Some(1), "{}", c.to_notation());
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
fn the_chexers_score_is_the_lead_in_the_race() {
    let start = Chexers::new();
    for p in 0..3 {
        assert_eq!(
            start.moves_to_win(p),
            28,
            "4 pieces, 6 steps and an exit each"
        );
    }
    assert_eq!(start.score_vector().unwrap(), Outcome::draw());
    // Red (1 exit) needs 3 runs of 7; Green (2 exits) 2 runs of 7; Blue (1 exit, one
    // piece left) one run of 7 and two pieces to capture back at 12 each.
    let c = Chexers::new()
        .parse_position("ggg1/5/6/r6/r5/r4/r2b r 1/2/1 40")
        .unwrap();
    let need: Vec<i32> = (0..3).map(|p| c.moves_to_win(p)).collect();
    assert_eq!(need, [21, 14, 31], "{}", c.to_notation());
    // Leads: 22.5 - 21, 26 - 14, 17.5 - 31 moves, scored 0.8 * tanh(lead / 14).
    let v = c.score_vector().unwrap().0;
    for (p, lead) in [1.5f32, 12.0, -13.5].into_iter().enumerate() {
        let want = 0.8 * (lead / 14.0).tanh();
        assert!((v[p] - want).abs() < 1e-6, "seat {p}: {v:?}");
    }
    assert!(v[1] > 0.5 && v[1] < 0.8, "a lead scores below a win: {v:?}");
    assert_eq!(c.adjudicate().winner(), Some(1));
    let won = Chexers::new()
        .parse_position("4/5/6/r6/r5/r4/r2b r 1/4/1 40")
        .unwrap();
    assert_eq!(won.moves_to_win(1), 0, "four exits: nothing left to run");
    assert_eq!(won.outcome(), Some(Outcome::win(1, 3)));
    assert_eq!(
        won.score_vector(),
        won.outcome(),
        "a won race scores the win itself: 1 for Green, -1 for the others"
    );
    // The same position at the turn limit is a draw: nobody leads a finished race.
    let drawn = Chexers::new()
        .parse_position("ggg1/5/6/r6/r5/r4/r2b r 1/2/1 768")
        .unwrap();
    assert_eq!(drawn.outcome(), Some(Outcome::draw()));
    assert_eq!(drawn.score_vector().unwrap(), Outcome::draw());
}

#[test]
fn two_player_score_vectors_are_shares_of_power_and_pieces() {
    // Red has power 3, Blue 1: Red's lead is (3 - 1) / (3 + 1).
    let infexion = Board::from_notation("7/7/7/3r33/7/5b11/7 r 2").unwrap();
    let v = infexion.score_vector().unwrap().0;
    assert_eq!((v[0], v[1]), (0.5, -0.5));
    // x has 3 pieces, o 2 (as in the adjudication above): x leads by 1/5.
    let ataxx = Ataxx::standard()
        .parse_position("xx4o/7/7/7/7/7/o5x o 0 2")
        .unwrap();
    let v = ataxx.score_vector().unwrap().0;
    assert!(
        (v[0] - 0.2).abs() < 1e-6 && (v[1] + 0.2).abs() < 1e-6,
        "{v:?}"
    );
    // Even material scores 0, and a mixed target moves the result toward the score.
    assert_eq!(Ataxx::standard().score_vector().unwrap(), Outcome::draw());
    let mixed = mix_score(Outcome::win(1, 2).0, &infexion, 0.5);
    assert_eq!((mixed[0], mixed[1]), (-0.25, 0.25));
}

#[test]
fn capped_self_play_games_are_recorded_with_the_adjudicated_mixed_result() {
    let start = Chexers::new();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/chexers-tiny.toml");
    let mut c = Config::load(std::path::Path::new(path)).unwrap();
    c.selfplay.max_plies = 12;
    c.selfplay.max_plies_iterations = 2;
    c.selfplay.score_weight = 0.5;
    c.mcts.simulations = 4;
    // The cap holds for iterations 1 and 2, then games end by their rules.
    let caps: Vec<u32> = (1..=4).map(|it| c.ply_cap(it)).collect();
    assert_eq!(caps, [12, 12, 0, 0]);
    assert_eq!(SelfPlaySettings::from_config(&c, 1, false, 3).move_limit, 0);
    c.selfplay.max_plies_iterations = 0;
    assert_eq!(c.ply_cap(1000), 12, "0: the cap holds for every iteration");
    let settings = SelfPlaySettings::from_config(&c, 1, false, 2);
    let net = Trainer::new(
        NetShape::for_game(&start, 1, 8, 16),
        &TrainConfig::default(),
    )
    .unwrap()
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
        assert_eq!(g.values.len(), g.moves.len(), "a root value per move");
        assert!(g.values.iter().flatten().all(|v| v.abs() <= 1.0));
        let result = s.adjudicate().0;
        let score = s.score_vector().unwrap().0;
        for p in 0..3 {
            assert!((g.outcome[p] - (0.5 * result[p] + 0.5 * score[p])).abs() < 1e-6);
        }
    }
}

#[test]
fn the_self_play_search_scores_a_draw_at_the_config_s_value() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/chexers-tiny.toml");
    let mut c = Config::load(std::path::Path::new(path)).unwrap();
    let settings = SelfPlaySettings::from_config(&c, 1, false, 1);
    assert_eq!(
        settings.params.draw_value, 0.0,
        "the rules' draw by default"
    );
    c.mcts.draw_value = -0.5;
    c.selfplay.draw_value = -0.25;
    let settings = SelfPlaySettings::from_config(&c, 1, false, 1);
    assert_eq!(settings.params.draw_value, -0.5, "the tree's value");
    assert_eq!(settings.draw_value, -0.25, "the targets' value, apart");
    let drawn = Outcome::draw();
    assert_eq!(settings.params.terminal(drawn, 3).0, [-0.5; 3]);
}

#[test]
fn games_drawn_by_the_rules_are_recorded_with_the_draw_value() {
    // An untrained network playing its most visited move (after a few sampled plies,
    // so that the games differ) mostly shuffles until the fourth repetition draws. A
    // network that happens to race instead is replaced by a fresh one (up to five).
    let start = Chexers::new();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/chexers-tiny.toml");
    let mut c = Config::load(std::path::Path::new(path)).unwrap();
    c.mcts.simulations = 2;
    c.mcts.temperature_plies = 6;
    c.mcts.dirichlet_fraction = 0.0;
    c.selfplay.max_plies = 300;
    c.selfplay.score_weight = 1.0;
    c.selfplay.draw_value = -0.5;
    let settings = SelfPlaySettings::from_config(&c, 1, false, 1);
    let mut drawn = 0;
    for _ in 0..5 {
        let shape = NetShape::for_game(&start, 1, 8, 16);
        let net = Trainer::new(shape, &TrainConfig::default()).unwrap().net();
        let games: Mutex<Vec<SelfPlayGame>> = Mutex::new(Vec::new());
        play(&start, &net, &settings, 16, 9, |g| {
            games.lock().unwrap().push(g)
        })
        .unwrap();
        for g in games.into_inner().unwrap() {
            let mut s = start.clone();
            for &a in &g.moves {
                s.apply(a).unwrap();
            }
            match s.outcome() {
                Some(o) if o.winner().is_none() => {
                    drawn += 1;
                    assert_eq!(g.outcome, [-0.5; 3], "{}", s.to_notation());
                }
                Some(o) => assert_eq!(g.outcome, o.0, "a finished game keeps its result"),
                None => assert_eq!(g.outcome, mix_score(s.adjudicate().0, &s, 1.0)),
            }
        }
        if drawn > 0 {
            return;
        }
    }
    panic!("five networks drew no game");
}

/// A game of `n` first-legal moves with the given root values.
fn game(n: usize, values: Vec<[f32; 3]>) -> SelfPlayGame {
    let (mut state, mut legal) = (Board::new(), Vec::new());
    let mut g = SelfPlayGame {
        moves: vec![],
        targets: vec![],
        outcome: [1.0, -1.0, 0.0],
        sims: 1,
        seed: 0,
        values,
        proven: vec![],
    };
    for _ in 0..n {
        state.legal_actions(&mut legal);
        g.targets.push(vec![(legal[0], 1)]);
        g.moves.push(legal[0]);
        state.apply(legal[0]).unwrap();
    }
    g
}

#[test]
fn value_targets_mix_the_result_with_the_root_value() {
    let values = vec![[0.2, -0.2, 0.0], [-0.6, 0.6, 0.0], [0.0, 0.0, 0.0]];
    let g = game(3, values.clone());
    let start = Board::new();
    let plain = positions(&start, &g, mix(0.0)).unwrap();
    assert!(
        plain.iter().all(|s| s.outcome == g.outcome),
        "m = 0: the result"
    );
    let mixed = positions(&start, &g, mix(0.25)).unwrap();
    for (s, v) in mixed.iter().zip(&values) {
        for ((got, result), root) in s.outcome.iter().zip(g.outcome).zip(v) {
            let want = 0.75 * result + 0.25 * root;
            assert!((got - want).abs() < 1e-6, "{:?} vs {want}", s.outcome);
        }
    }
    // Games stored without root values (older shards) keep the result.
    let old = positions(&start, &game(3, vec![]), mix(0.25)).unwrap();
    assert!(old.iter().all(|s| s.outcome == g.outcome));
    // Damaged root values are refused, not trained on.
    let err = |g: &SelfPlayGame| {
        positions::<Board>(&start, g, mix(0.5))
            .unwrap_err()
            .to_string()
    };
    assert!(err(&game(3, vec![[0.0; 3]])).contains("3 moves but 3 visit lists and 1 root values"));
    assert!(err(&game(1, vec![[f32::NAN, 0.0, 0.0]])).contains("outside [-1, 1]"));
    assert!(err(&game(1, vec![[2.0, 0.0, 0.0]])).contains("outside [-1, 1]"));
}

#[test]
fn proven_positions_take_their_exact_value_as_the_target() {
    let start = Board::new();
    let mut g = game(
        3,
        vec![[0.2, -0.2, 0.0], [-1.0, 1.0, 0.0], [0.4, -0.4, 0.0]],
    );
    g.proven = vec![1];
    for targets in [mix(0.0), mix(0.5)] {
        let samples = positions(&start, &g, targets).unwrap();
        assert_eq!(
            samples[1].outcome,
            [-1.0, 1.0, 0.0],
            "the proof, whatever the mix"
        );
        assert_ne!(samples[0].outcome, [0.2, -0.2, 0.0]);
    }
    g.proven = vec![3];
    let err = positions(&start, &g, mix(0.0)).unwrap_err().to_string();
    assert!(err.contains("proven position has no root value"), "{err}");
}

fn mix(root_mix: f32) -> Targets {
    Targets {
        root_mix,
        ..Targets::default()
    }
}

/// `train.value_horizon = N`: a position's value target is the score vector `N` plies
/// later, and the game's outcome where the game ends within `N` plies.
#[test]
fn value_targets_look_a_horizon_ahead() {
    let (n, h) = (7, 3);
    let g = game(n, vec![[0.5, -0.5, 0.0]; n]);
    let start = Board::new();
    let mut states = vec![start];
    for &a in &g.moves {
        let mut next = *states.last().unwrap();
        next.apply(a).unwrap();
        states.push(next);
    }
    let targets = |horizon, root_mix| Targets {
        root_mix,
        horizon,
        ..Targets::default()
    };
    let ahead = positions(&start, &g, targets(h as u32, 0.0)).unwrap();
    assert_eq!(ahead.len(), n);
    for (i, s) in ahead.iter().enumerate() {
        assert_eq!(s.state.hash(), states[i].hash(), "position {i}");
        let want = if i + h < n {
            states[i + h].score_vector().unwrap().0
        } else {
            g.outcome
        };
        assert_eq!(s.outcome, want, "position {i}");
    }
    // The scores differ from the result: the test would notice them missing.
    assert_ne!(ahead[0].outcome, g.outcome);
    // The root value mixes into the horizon target as into the result.
    let both = positions(&start, &g, targets(h as u32, 0.5)).unwrap();
    for (s, a) in both.iter().zip(&ahead) {
        for p in 0..2 {
            let want = 0.5 * a.outcome[p] + 0.5 * [0.5, -0.5][p];
            assert!((s.outcome[p] - want).abs() < 1e-6);
        }
    }
    // A horizon at least as long as the game leaves every target the outcome.
    let long = positions(&start, &g, targets(n as u32, 0.0)).unwrap();
    assert!(long.iter().all(|s| s.outcome == g.outcome));
    // What the short-term value head's target reads (`train.short_value_plies`): the
    // same look ahead, while the value target stays the game's outcome.
    let plain = positions(&start, &g, Targets::default()).unwrap();
    for (s, a) in plain.iter().zip(&ahead) {
        assert_eq!((s.ahead(h), s.outcome), (a.outcome, g.outcome));
    }
}

/// `train.policy_target_power = p`: each policy target is the visits raised to `p`,
/// normalised; at 1 the visit distribution as it is; and every sample knows its game's end.
#[test]
fn policy_targets_are_softened_by_the_power() {
    let mut g = game(2, vec![]);
    let (mut start, mut legal) = (Board::new(), Vec::new());
    start.legal_actions(&mut legal);
    g.targets[0] = vec![(legal[0], 9), (legal[1], 1)];
    let at = |power| {
        let targets = Targets {
            policy_power: power,
            ..Targets::default()
        };
        positions(&start, &g, targets).unwrap()[0].policy.clone()
    };
    let close = |a: &[(u16, f32)], want: [f32; 2]| {
        a.iter().zip(want).all(|(&(_, p), w)| (p - w).abs() < 1e-6)
    };
    assert!(close(&at(1.0), [0.9, 0.1]), "{:?}", at(1.0));
    assert!(close(&at(0.5), [0.75, 0.25]), "{:?}", at(0.5));
    let samples = positions(&start, &g, Targets::default()).unwrap();
    start.apply(g.moves[0]).unwrap();
    start.apply(g.moves[1]).unwrap();
    assert!(samples.iter().all(|s| s.end() == Some(&start)));
}

/// Shards of formats 2 (before root values) and 3 (before proven positions) still load,
/// their games without what came later. The old structs are declared here again on purpose: the test writes the old
/// layout with its own encoder, independent of the reader it checks.
#[test]
fn format_2_and_3_shards_still_load() {
    #[derive(bincode::Encode)]
    struct GameV2 {
        moves: Vec<u16>,
        visits: Vec<Vec<(u16, u32)>>,
        outcome: [f32; 3],
        sims: u32,
        seed: u64,
    }
    #[derive(bincode::Encode)]
    struct ShardV2 {
        game: String,
        iteration: u32,
        games: Vec<GameV2>,
        worker: String,
        model: u32,
        origin: String,
    }
    let g = game(4, vec![]);
    let v2 = ShardV2 {
        game: "infexion".into(),
        iteration: 7,
        games: vec![GameV2 {
            moves: g.moves.clone(),
            visits: g.targets.clone(),
            outcome: [1.0, -1.0, 0.0],
            sims: 1,
            seed: 0,
        }],
        worker: "w1".into(),
        model: 3,
        origin: "incoming/w1-x-1.bin".into(),
    };
    let payload = bincode::encode_to_vec(&v2, bincode::config::standard()).unwrap();
    let bytes = contagion::framing::frame(MAGIC, 2, &payload);
    let shard = Shard::from_bytes(&bytes, "infexion", "test shard").unwrap();
    assert_eq!(
        (shard.iteration, shard.worker.as_str(), shard.model),
        (7, "w1", 3)
    );
    assert_eq!(shard.games, vec![g]);
    // Format 3 (root values, no proven positions) loads with its values.
    #[derive(bincode::Encode)]
    struct GameV3 {
        moves: Vec<u16>,
        targets: Vec<Vec<(u16, u32)>>,
        outcome: [f32; 3],
        sims: u32,
        seed: u64,
        values: Vec<[f32; 3]>,
    }
    #[derive(bincode::Encode)]
    struct ShardV3 {
        game: String,
        iteration: u32,
        games: Vec<GameV3>,
        worker: String,
        model: u32,
        origin: String,
    }
    let g3 = game(4, vec![[0.5, -0.5, 0.0]; 4]);
    let v3 = ShardV3 {
        game: "infexion".into(),
        iteration: 8,
        games: vec![GameV3 {
            moves: g3.moves.clone(),
            targets: g3.targets.clone(),
            outcome: g3.outcome,
            sims: g3.sims,
            seed: g3.seed,
            values: g3.values.clone(),
        }],
        worker: "w2".into(),
        model: 4,
        origin: String::new(),
    };
    let payload = bincode::encode_to_vec(&v3, bincode::config::standard()).unwrap();
    let bytes = contagion::framing::frame(MAGIC, 3, &payload);
    let shard3 = Shard::from_bytes(&bytes, "infexion", "test shard").unwrap();
    assert_eq!((shard3.iteration, shard3.model), (8, 4));
    assert_eq!(shard3.games, vec![g3]);
    // And the current format round-trips root values and proven positions.
    let mut now = shard.clone();
    now.games[0].values = vec![[0.5, -0.5, 0.0]; 4];
    now.games[0].proven = vec![2, 3];
    let back = Shard::from_bytes(&now.to_bytes().unwrap(), "infexion", "test").unwrap();
    assert_eq!(back.games, now.games);
}
