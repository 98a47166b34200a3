//! The baseline gate: a candidate that beat the best (here: `gating.games = 0`, so it
//! always does) is still refused when it scores more than `baseline_margin` below the
//! best against the fixed baseline on the same openings; an equal candidate passes.

use contagion::config::Config;
use contagion::games::infexion::Board;
use contagion::nn::NetShape;
use contagion::nn::formats::checkpoint::{Checkpoint, Stage, TrainState};
use contagion::train::Trainer;
use contagion::train::gating::{baseline_allows, gate};

fn config() -> Config {
    let mut text = std::fs::read_to_string("tests/data/test-run.toml").unwrap();
    for (from, to) in [
        (
            "games = 2                    # candidate",
            "games = 0                    # candidate",
        ),
        ("baseline_games = 0 ", "baseline_games = 4 "),
        (
            "simulations = 4              # simulations per move in gating",
            "simulations = 32             # simulations per move in gating",
        ),
        ("spec = \"alphabeta:depth=2\"", "spec = \"greedy\""),
    ] {
        assert!(text.contains(from), "{from}");
        text = text.replacen(from, to, 1);
    }
    Config::parse(&text, "gating-test.toml").unwrap()
}

#[test]
fn a_candidate_that_regresses_against_the_baseline_is_refused() {
    let c = config();
    let dir = std::env::temp_dir().join(format!("czero-gating-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // The candidate: an untrained network. The best: the shipped Infexion network.
    let shape = NetShape::for_game(&Board::new(), 1, 8, 32);
    let (model, _) = Trainer::new(shape.clone(), &c.train)
        .unwrap()
        .save_bytes()
        .unwrap();
    let candidate = dir.join("candidate.ckpt");
    Checkpoint {
        shape,
        state: TrainState::default(),
        model,
        optimizer: Vec::new(),
        stage: Stage::Done,
        metrics: String::new(),
    }
    .save(&candidate)
    .unwrap();
    let best = std::path::Path::new("models/infexion-4x32-15min");
    let start = Board::new();

    let refused = gate(&start, &c, 1, &candidate, best, 0, None, false).unwrap();
    assert!(
        refused.vs_best.is_none(),
        "gating.games = 0: no match against the best"
    );
    let (cand, prev) = refused.baseline.clone().expect("the baseline gate ran");
    assert_eq!((cand.games, prev.games), (4, 4));
    assert!(
        cand.stats.score + 0.1 < prev.stats.score,
        "the untrained net does worse: {cand:?} vs {prev:?}"
    );
    assert!(
        !refused.promote,
        "a regression against the baseline is refused"
    );

    // The best against itself: the same score on the same openings, so it passes.
    let same = gate(&start, &c, 1, best, best, 0, None, false).unwrap();
    let (a, b) = same.baseline.unwrap();
    assert_eq!(a.stats.score, b.stats.score);
    assert!(same.promote);
    assert!(baseline_allows(0.45, 0.5, 0.1) && !baseline_allows(0.35, 0.5, 0.1));
    let _ = std::fs::remove_dir_all(&dir);
}
