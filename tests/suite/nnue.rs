//! The fast evaluator and its alpha-beta player: the incremental accumulator against a
//! fresh one on every game, distillation on real games, the bundle's refusals, and the
//! player against the exact solver.

use std::path::PathBuf;
use std::sync::Arc;

use contagion::agents::nnue::{NnueAgent, SOLVER_NODES, SOLVER_TABLE_BITS};
use contagion::agents::{Agent, Limits};
use contagion::config::{Config, DistillConfig};
use contagion::games::ataxx::Ataxx;
use contagion::games::chexers::Chexers;
use contagion::games::infexion::Board;
use contagion::games::{Action, Game};
use contagion::nn::NetShape;
use contagion::nn::nnue::kernels::QA;
use contagion::nn::nnue::net::Scratch;
use contagion::nn::nnue::{
    EvalShape, Evaluator, FeatureSet, FloatNet, Incremental, bundle, features,
};
use contagion::rng::Rng;
use contagion::search::endgame::{SolveLimits, Solver};
use contagion::search::pvs::{Evaluation, Pruning, Pvs, PvsLimits, WIN, score_of, value_of};
use contagion::selfplay::SelfPlaySettings;
use contagion::train::distill::{DistillOptions, distill};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("contagion-nnue-{name}-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// An evaluator of random weights for `start`'s game.
fn random_net<G: Game>(start: &G, seed: u64) -> FloatNet {
    random_net_of(start, FeatureSet::Encoding, false, seed)
}

/// An evaluator of random weights for `start`'s game reading feature set `set`, with an
/// accumulator a seat where `perspective`.
fn random_net_of<G: Game>(start: &G, set: FeatureSet, perspective: bool, seed: u64) -> FloatNet {
    let shape = EvalShape {
        game: start.name().into(),
        inputs: set.inputs(start).unwrap(),
        hidden: 64,
        dense: 16,
        outputs: start.num_players(),
        features: set,
        activation: Default::default(),
        perspective,
    };
    FloatNet::random(shape, seed)
}

/// Along random games, the accumulators entered at each ply (moved from an ancestor's)
/// equal ones summed afresh; and after going back up (the search's undo) and down
/// another move, they still do.
fn incremental_equals_fresh<G: Game>(start: &G, set: FeatureSet, perspective: bool) {
    let net = random_net_of(start, set, perspective, 5);
    let views = net.shape.views();
    let eval = Arc::new(Evaluator::new(&net));
    let mut rng = Rng::new(9);
    let mut moves = Vec::new();
    let (mut checked, mut moved) = (0, 0);
    for _ in 0..6 {
        let mut inc = Incremental::new(eval.clone());
        let mut path = vec![start.clone()];
        inc.enter(0, &path[0]);
        while path.last().unwrap().outcome().is_none() && path.len() < 120 {
            // Now and then go back up a few plies and take another move.
            if path.len() > 4 && rng.below(5) == 0 {
                let back = 1 + rng.below(3);
                path.truncate(path.len() - back);
            }
            let s = path.last().unwrap();
            s.legal_actions(&mut moves);
            let a: Action = moves[rng.below(moves.len())];
            let mut next = s.clone();
            next.apply(a).unwrap();
            let ply = path.len();
            inc.enter(ply, &next);
            path.push(next);
            let mut scratch = Scratch::default();
            let fresh = eval.accumulators(&set.views_of(path.last().unwrap(), views), &mut scratch);
            let got = inc.accumulators(ply);
            let at = format!("{} ({set:?}, {perspective}) ply {ply}", start.name());
            assert_eq!(got.len(), views, "{at}");
            for (got, fresh) in got.iter().zip(&fresh) {
                assert_eq!(got.features, fresh.features, "{at}");
                assert_eq!(got.values, fresh.values, "{at}");
            }
            let got = got.to_vec();
            assert_eq!(
                eval.raw(&got, &mut scratch),
                eval.raw(&fresh, &mut scratch),
                "{at}"
            );
            checked += 1;
        }
        moved += inc.counts.1;
    }
    assert!(
        checked > 50 && moved > checked as u64 / 2,
        "{}: {checked} checked, {moved} moved",
        start.name()
    );
}

/// Near the root, where no ancestor has the view, each child's accumulator is moved from
/// the sibling's entered before it, and the root's from the last root's: all equal to
/// ones summed afresh, and only the first of each view summed from nothing.
fn siblings_equal_fresh<G: Game>(start: &G, set: FeatureSet, perspective: bool) {
    let net = random_net_of(start, set, perspective, 6);
    let views = net.shape.views();
    let eval = Arc::new(Evaluator::new(&net));
    let mut inc = Incremental::new(eval.clone());
    let (mut rng, mut moves, mut scratch) = (Rng::new(3), Vec::new(), Scratch::default());
    let mut root = start.clone();
    let mut checked = 0;
    let at = |ply: usize| format!("{} ({set:?}, {perspective}) ply {ply}", start.name());
    for _ in 0..4 {
        inc.enter(0, &root);
        root.legal_actions(&mut moves);
        for &a in moves.iter().take(12) {
            let mut child = root.clone();
            child.apply(a).unwrap();
            inc.enter(1, &child);
            let fresh = eval.accumulators(&set.views_of(&child, views), &mut scratch);
            for (got, fresh) in inc.accumulators(1).iter().zip(&fresh) {
                assert_eq!(got.values, fresh.values, "{}", at(1));
            }
            checked += 1;
        }
        let fresh = eval.accumulators(&set.views_of(&root, views), &mut scratch);
        for (got, fresh) in inc.accumulators(0).iter().zip(&fresh) {
            assert_eq!(got.values, fresh.values, "{}", at(0));
        }
        // The next search's root: a round of moves on, the same seat to move.
        for _ in 0..start.num_players() {
            if root.outcome().is_none() {
                root.legal_actions(&mut moves);
                root.apply(moves[rng.below(moves.len())]).unwrap();
            }
        }
    }
    assert!(
        checked > 12 && inc.counts.0 <= 2 * views as u64,
        "{}: {checked} checked, {:?} refreshed and moved",
        at(1),
        inc.counts
    );
}

#[test]
fn the_incremental_accumulator_equals_a_fresh_one_in_every_game() {
    for set in FeatureSet::ALL {
        for perspective in [false, true]
            .into_iter()
            .filter(|&p| !p || set.reads_every_seat())
        {
            incremental_equals_fresh(&Board::new(), set, perspective);
            incremental_equals_fresh(&Ataxx::standard(), set, perspective);
            incremental_equals_fresh(&Ataxx::virus(), set, perspective);
            incremental_equals_fresh(&Chexers::new(), set, perspective);
            siblings_equal_fresh(&Board::new(), set, perspective);
            siblings_equal_fresh(&Ataxx::standard(), set, perspective);
            siblings_equal_fresh(&Ataxx::virus(), set, perspective);
            siblings_equal_fresh(&Chexers::new(), set, perspective);
        }
    }
}

/// The entries of `state`'s encoding at least one half, by a scan of the planes.
fn scanned<G: Game>(state: &G) -> Vec<u32> {
    let mut planes = vec![0.0; state.encoding_shape().len()];
    state.encode(&mut planes);
    contagion::games::hot_entries(&planes).collect()
}

#[test]
fn features_named_directly_are_the_encodings_where_a_clock_plane_turns_on() {
    fn check<G: Game>(start: &G, notations: &[&str]) -> Vec<usize> {
        let mut counts = Vec::new();
        for text in notations {
            let state = start.parse_position(text).unwrap();
            let mut named = Vec::new();
            state.hot_inputs(&mut Vec::new(), &mut named);
            named.sort_unstable();
            assert_eq!(named, scanned(&state), "{text}");
            assert_eq!(features::of(&state), named, "{text}");
            counts.push(named.len());
        }
        counts
    }
    // Ataxx's half-move clock at 49 and 50 of its 100; Infexion's actions played at 171
    // and 172 of its 343; Virus's larger board.
    let ataxx = ["x5o/7/7/7/7/7/o5x x 49 30", "x5o/7/7/7/7/7/o5x o 50 30"];
    assert_eq!(check(&Ataxx::standard(), &ataxx), [2 * 49, 3 * 49]);
    let virus = Ataxx::virus();
    check(&virus, &[&virus.to_notation()]);
    let infexion = [
        "r3b1r24/7/7/3b63/7/7/6r1 b 171",
        "r3b1r24/7/7/3b63/7/7/6r1 r 172",
    ];
    assert_eq!(check(&Board::new(), &infexion), [5 + 49, 5 + 2 * 49]);
}

/// A few real games of the shipped Ataxx network at few simulations, as shards in `dir`.
fn teacher_games(dir: &std::path::Path, games: u32) {
    let net = contagion::agents::mcts::cached_net(std::path::Path::new("models/ataxx")).unwrap();
    let mut config = Config::default();
    config.mcts.temperature_plies = 12;
    let mut settings = SelfPlaySettings::from_config(&config, 2, false, 1);
    settings.sims = 8;
    let stats = contagion::selfplay::generate::generate(
        &Ataxx::standard(),
        &net.for_self_play(),
        &settings,
        games,
        3,
        &dir.to_string_lossy(),
    )
    .unwrap();
    assert_eq!(stats.games, games as u64);
}

/// The options of a distillation of the games in `dir/data` into `dir/bundle`.
pub(crate) fn distill_options(dir: &std::path::Path) -> DistillOptions {
    DistillOptions {
        data: vec![dir.join("data").to_string_lossy().into_owned()],
        out: dir.join("bundle"),
        name: None,
        settings: DistillConfig {
            hidden: 32,
            dense: 16,
            epochs: 20,
            batch_size: 128,
            validation: 0.1,
            ..DistillConfig::default()
        },
        teacher: None,
        init: None,
        lineage: Default::default(),
        seed: 1,
        progress: false,
    }
}

/// An evaluator distilled from a few real games, with its report.
pub(crate) fn distilled(name: &str) -> (PathBuf, contagion::train::distill::DistillReport) {
    let dir = temp(name);
    teacher_games(&dir.join("data"), 24);
    let report = distill(&Ataxx::standard(), &distill_options(&dir)).unwrap();
    (dir, report)
}

#[test]
fn tuple_features_are_learnt_named_and_held_to_their_bundle() {
    let dir = temp("distill-tuples");
    teacher_games(&dir.join("data"), 24);
    let mut opts = distill_options(&dir);
    opts.settings.features = FeatureSet::Tuples;
    let r = distill(&Ataxx::standard(), &opts).unwrap();
    let loss = &r.validation_loss;
    assert!(loss.last().unwrap() < &(loss[0] * 0.9), "{loss:?}");
    let bundle_dir = dir.join("bundle");
    let start = Ataxx::standard();
    let (m, net) = bundle::load(&bundle_dir, &start).unwrap();
    assert_eq!(m.features, "encoding-set+2x2");
    assert_eq!(net.shape.features, FeatureSet::Tuples);
    // The encoding's 6 planes of 49 squares, then 36 windows of 81 patterns.
    assert_eq!(net.shape.inputs, 6 * 49 + 36 * 81);
    let mut agent =
        NnueAgent::load("nnue".into(), &bundle_dir, &start, None, Some(3), None).unwrap();
    assert!(start.is_legal(agent.select(&start, &Limits::default()).unwrap()));
    // The manifest naming another set, or one this build does not make, is refused.
    let manifest = bundle_dir.join("manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let named = |set: &str| text.replace("\"encoding-set+2x2\"", &format!("\"{set}\""));
    std::fs::write(&manifest, named("encoding-set")).unwrap();
    let msg = format!("{:#}", bundle::load(&bundle_dir, &start).unwrap_err());
    assert!(
        msg.contains("(3210 inputs) and cannot play 'ataxx' (294 inputs)"),
        "{msg}"
    );
    std::fs::write(&manifest, named("encoding-set+3x3")).unwrap();
    let msg = format!("{:#}", bundle::load(&bundle_dir, &start).unwrap_err());
    assert!(
        msg.contains("feature set 'encoding-set+3x3'") && msg.contains("encoding-set+2x2"),
        "{msg}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// An evaluator of the public engines' shape (the windows alone, the squared
/// activation, no dense layer; an accumulator a seat where `perspective`) distilled from
/// a few real games, held to have learnt and to agree with its integer form: its
/// directory and its settings.
fn distilled_public(name: &str, perspective: bool) -> (PathBuf, DistillOptions) {
    let dir = temp(name);
    teacher_games(&dir.join("data"), 24);
    let mut opts = distill_options(&dir);
    opts.settings.features = FeatureSet::Windows;
    opts.settings.activation = contagion::nn::nnue::Activation::Screlu;
    opts.settings.dense = 0;
    opts.settings.perspective = perspective;
    let r = distill(&Ataxx::standard(), &opts).unwrap();
    let loss = &r.validation_loss;
    assert!(loss.last().unwrap() < &(loss[0] * 0.9), "{loss:?}");
    assert!(r.agreement.mean_abs_diff < 0.03, "{:?}", r.agreement);
    (dir, opts)
}

#[test]
fn the_public_engines_shape_is_learnt_and_held_to_its_bundle() {
    use contagion::nn::nnue::Activation;
    let (dir, _) = distilled_public("distill-screlu", false);
    let bundle_dir = dir.join("bundle");
    let start = Ataxx::standard();
    let (m, net) = bundle::load(&bundle_dir, &start).unwrap();
    assert_eq!(m.features, "2x2");
    assert_eq!(net.shape.inputs, 36 * 81);
    assert_eq!(net.shape.activation, Activation::Screlu);
    assert_eq!(
        (net.shape.dense, net.out_w.len(), m.shape.dense),
        (0, 2 * 32, 0)
    );
    let mut agent =
        NnueAgent::load("nnue".into(), &bundle_dir, &start, None, Some(3), None).unwrap();
    assert!(start.is_legal(agent.select(&start, &Limits::default()).unwrap()));
    // An activation this build does not have is refused, named.
    let manifest = bundle_dir.join("manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    assert!(text.contains("\"screlu\""), "{text}");
    std::fs::write(&manifest, text.replace("\"screlu\"", "\"gelu\"")).unwrap();
    let msg = format!("{:#}", bundle::load(&bundle_dir, &start).unwrap_err());
    assert!(
        msg.contains("activation 'gelu'") && msg.contains("screlu"),
        "{msg}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_perspective_form_is_learnt_held_to_its_bundle_and_reads_the_windows_alone() {
    let (dir, mut opts) = distilled_public("distill-perspective", true);
    let bundle_dir = dir.join("bundle");
    let start = Ataxx::standard();
    let (m, net) = bundle::load(&bundle_dir, &start).unwrap();
    let hidden = net.shape.hidden;
    assert!(m.shape.perspective && net.shape.perspective);
    // The outputs read both seats' accumulators, the mover's first.
    assert_eq!((net.shape.views(), net.out_w.len()), (2, 2 * 2 * hidden));
    assert!(
        net.shape
            .to_string()
            .contains(&format!("→ 2 × {hidden} screlu")),
        "{}",
        net.shape
    );
    let mut agent =
        NnueAgent::load("nnue".into(), &bundle_dir, &start, None, Some(3), None).unwrap();
    assert!(start.is_legal(agent.select(&start, &Limits::default()).unwrap()));
    // A manifest that leaves the form out names weights of the wrong shape.
    let manifest = bundle_dir.join("manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    assert!(text.contains("\"perspective\": true"), "{text}");
    std::fs::write(
        &manifest,
        text.replace("\"perspective\": true", "\"perspective\": false"),
    )
    .unwrap();
    let msg = format!("{:#}", bundle::load(&bundle_dir, &start).unwrap_err());
    assert!(
        msg.contains("has shape") && msg.contains("the manifest needs"),
        "{msg}"
    );
    // One that names it with the encoding's features (the mover's view alone) is refused.
    let both = text.replace("\"2x2\"", "\"encoding-set+2x2\"");
    std::fs::write(&manifest, both).unwrap();
    let msg = format!("{:#}", bundle::load(&bundle_dir, &start).unwrap_err());
    assert!(
        msg.contains("perspective form") && msg.contains("'2x2'"),
        "{msg}"
    );
    // As are settings that ask for it so.
    opts.settings.features = FeatureSet::Encoding;
    let msg = format!("{:#}", distill(&start, &opts).unwrap_err());
    assert!(msg.contains("'encoding-set' cannot"), "{msg}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_teachers_value_as_the_target_is_learnt_and_needs_a_teacher() {
    let dir = temp("distill-teacher");
    teacher_games(&dir.join("data"), 24);
    let mut opts = distill_options(&dir);
    (opts.settings.lambda, opts.settings.teacher_value) = (0.0, 1.0);
    let msg = format!("{:#}", distill(&Ataxx::standard(), &opts).unwrap_err());
    assert!(
        msg.contains("distill.teacher_value = 1") && msg.contains("--teacher"),
        "{msg}"
    );
    let teacher =
        contagion::agents::mcts::cached_net(std::path::Path::new("models/ataxx")).unwrap();
    opts.teacher = Some(teacher.clone());
    let r = distill(&Ataxx::standard(), &opts).unwrap();
    // The held-out targets are now the teacher's own values: smooth, and learnt far
    // better than the games' noisy results (the other test's loss stays above a tenth).
    let loss = &r.validation_loss;
    assert!(
        loss.last().unwrap() < &(loss[0] * 0.5),
        "the validation loss did not fall: {loss:?}"
    );
    // The evaluator follows the teacher on positions of the games.
    let (_, net) = bundle::load(&dir.join("bundle"), &Ataxx::standard()).unwrap();
    let mut state = Ataxx::standard();
    let mut rng = Rng::new(5);
    let (mut diff, mut n, mut legal) = (0.0, 0, Vec::new());
    while state.outcome().is_none() && n < 30 {
        let mut input = vec![0.0; teacher.shape.input_len()];
        state.encode(&mut input);
        let want = teacher.infer(input, 1).values[0];
        diff += (net.evaluate(&[features::of(&state)])[0] - want).abs();
        n += 1;
        state.legal_actions(&mut legal);
        state.apply(legal[rng.below(legal.len())]).unwrap();
    }
    assert!(
        diff / (n as f32) < 0.35,
        "mean |evaluator - teacher| {}",
        diff / n as f32
    );
}

#[test]
fn branches_off_the_games_are_labelled_by_the_teacher_and_need_one() {
    let dir = temp("distill-branches");
    teacher_games(&dir.join("data"), 8);
    let mut opts = distill_options(&dir);
    opts.settings.epochs = 2;
    let plain = distill(&Ataxx::standard(), &opts).unwrap();
    assert_eq!(plain.branch_positions, 0);
    opts.settings.branches = 3;
    let msg = format!("{:#}", distill(&Ataxx::standard(), &opts).unwrap_err());
    assert!(
        msg.contains("distill.branches = 3") && msg.contains("--teacher"),
        "{msg}"
    );
    opts.teacher =
        Some(contagion::agents::mcts::cached_net(std::path::Path::new("models/ataxx")).unwrap());
    let r = distill(&Ataxx::standard(), &opts).unwrap();
    let games = plain.train_positions + plain.validation_positions;
    let all = r.train_positions + r.validation_positions;
    // Nearly every walk from a game's position ends somewhere new (a few repeat, or
    // end the game).
    assert_eq!(all, games + r.branch_positions);
    assert!(
        r.branch_positions > 2 * games && r.branch_positions <= 3 * games,
        "{} branches from {games} positions",
        r.branch_positions
    );
}

#[test]
fn distillation_lowers_the_loss_and_writes_a_bundle_that_refuses_damage() {
    let (dir, r) = distilled("distill");
    let loss = &r.validation_loss;
    assert!(
        r.validation_positions > 50 && r.train_positions > 500,
        "{r:?}"
    );
    assert!(
        loss.last().unwrap() < &(loss[0] * 0.9),
        "the validation loss did not fall: {loss:?}"
    );
    assert!(
        r.train_loss.last().unwrap() < &r.train_loss[0],
        "{:?}",
        r.train_loss
    );
    assert!(
        r.agreement.mean_abs_diff < 0.05 && r.agreement.sign_agreement > 0.9,
        "{:?}",
        r.agreement
    );
    let bundle_dir = dir.join("bundle");
    let start = Ataxx::standard();
    let (m, net) = bundle::load(&bundle_dir, &start).unwrap();
    assert_eq!((m.shape.hidden, net.shape.dense), (32, 16));
    // The bundle plays.
    let mut agent =
        NnueAgent::load("nnue".into(), &bundle_dir, &start, None, Some(2), None).unwrap();
    let a = agent.select(&start, &Limits::default()).unwrap();
    assert!(start.is_legal(a));
    // The manifest names the integers' scale and the evaluator runs at it: new bundles
    // at `QA`, those written at 127 at 127; a scale beyond `QA` is refused.
    assert_eq!(m.quantisation.qa, QA as i32);
    let scale = || bundle::load_evaluator(&bundle_dir, &start).map(|e| e.scale());
    assert_eq!(scale().unwrap(), QA);
    let named = bundle_dir.join("manifest.json");
    let original = std::fs::read_to_string(&named).unwrap();
    let at = |qa: i32| original.replace(&format!("\"qa\": {QA}"), &format!("\"qa\": {qa}"));
    std::fs::write(&named, at(127)).unwrap();
    assert_eq!(scale().unwrap(), 127);
    std::fs::write(&named, at(4096)).unwrap();
    let msg = format!("{:#}", scale().unwrap_err());
    assert!(msg.contains("quantised at 4096/1024"), "{msg}");
    std::fs::write(&named, &original).unwrap();

    let weights = bundle_dir.join("model.safetensors");
    let good = std::fs::read(&weights).unwrap();
    let err = |path: &std::path::Path| format!("{:#}", bundle::load(path, &start).unwrap_err());
    // Another game.
    let msg = format!(
        "{:#}",
        bundle::load(&bundle_dir, &Ataxx::virus()).unwrap_err()
    );
    assert!(
        msg.contains("trained for 'ataxx'") && msg.contains("cannot play 'virus'"),
        "{msg}"
    );
    let msg = format!(
        "{:#}",
        bundle::load(&bundle_dir, &Board::new()).unwrap_err()
    );
    assert!(msg.contains("cannot play 'infexion'"), "{msg}");
    // A flipped byte.
    let mut bad = good.clone();
    let n = bad.len();
    bad[n - 3] ^= 0x40;
    std::fs::write(&weights, &bad).unwrap();
    assert!(
        err(&bundle_dir).contains("damaged or replaced"),
        "{}",
        err(&bundle_dir)
    );
    // Truncated, with a checksum that matches the truncated file.
    let cut = &good[..good.len() / 2];
    std::fs::write(&weights, cut).unwrap();
    let manifest = bundle_dir.join("manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let fixed = text.replace(
        &m.weights_sha256,
        &contagion::nn::formats::bundle::sha256_hex(cut),
    );
    std::fs::write(&manifest, &fixed).unwrap();
    assert!(
        err(&bundle_dir).contains("not a valid safetensors file"),
        "{}",
        err(&bundle_dir)
    );
    // A missing file, a network bundle, a manifest that is not JSON.
    std::fs::remove_file(&weights).unwrap();
    assert!(
        err(&bundle_dir).contains("model.safetensors"),
        "{}",
        err(&bundle_dir)
    );
    let msg = err(std::path::Path::new("models/ataxx-4x32-226min"));
    assert!(msg.contains("not an evaluator bundle"), "{msg}");
    // A bundle that is not there, refused by its own name, not its parent's manifest.
    let nope = dir.join("nope");
    let msg = err(&nope);
    assert!(
        msg.contains(&format!("{}: no such bundle", nope.display())),
        "{msg}"
    );
    std::fs::write(&manifest, "{ not json").unwrap();
    assert!(
        err(&bundle_dir).contains("not valid JSON"),
        "{}",
        err(&bundle_dir)
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Ataxx positions a few empty squares from the end, from seeded random games.
fn endgames(count: usize) -> Vec<Ataxx> {
    let mut rng = Rng::new(77);
    let mut out = Vec::new();
    let mut moves = Vec::new();
    while out.len() < count {
        let mut s = Ataxx::standard();
        while s.outcome().is_none() && s.empties() > 3 {
            s.legal_actions(&mut moves);
            // Mostly clones, so that the board fills.
            let clones: Vec<Action> = moves
                .iter()
                .copied()
                .filter(|&a| (a as usize) < 49)
                .collect();
            let pool = if clones.is_empty() || rng.below(8) == 0 {
                &moves
            } else {
                &clones
            };
            s.apply(pool[rng.below(pool.len())]).unwrap();
        }
        if s.outcome().is_none() {
            out.push(s);
        }
    }
    out
}

#[test]
fn the_player_finds_proven_wins_and_never_plays_into_a_proven_loss() {
    let start = Ataxx::standard();
    let net = random_net(&start, 11);
    let eval = Arc::new(Evaluator::new(&net));
    // The solver's result for the mover, where it proves one with the player's own
    // solver and budget without a clock (a node count, so the same on every machine):
    // what the player must then play by.
    let solve = |s: &Ataxx| {
        let limits = SolveLimits {
            nodes: Some(SOLVER_NODES),
            ..SolveLimits::default()
        };
        let mut solver: Solver<Ataxx> = Solver::new(SOLVER_TABLE_BITS);
        solver.solve(s, &[], limits).map(|r| r.result)
    };
    let mut moves = Vec::new();
    let (mut wins, mut saved) = (0, 0);
    for s in endgames(40) {
        let Some(root) = solve(&s) else { continue };
        let mut agent: NnueAgent<Ataxx> =
            NnueAgent::new("nnue".into(), eval.clone(), None, Some(6), None);
        let a = agent.select(&s, &Limits::default()).unwrap();
        let mut after = s;
        after.apply(a).unwrap();
        // The result for the mover after its move, by the solver.
        let got = match after.outcome() {
            Some(o) => Some(o.result(s.to_move())),
            None if after.to_move() == s.to_move() => solve(&after),
            None => solve(&after).map(|r| -r),
        };
        let Some(got) = got else { continue };
        assert_eq!(
            got,
            root,
            "{}: played {}",
            s.to_notation(),
            s.action_to_string(a)
        );
        if root > 0 {
            wins += 1;
        }
        // A move into a proven loss existed where the root is not lost.
        s.legal_actions(&mut moves);
        if root >= 0 && moves.len() > 1 {
            saved += 1;
        }
    }
    assert!(
        wins > 5 && saved > 5,
        "{wins} wins, {saved} positions with a choice"
    );
}

/// The player on a random evaluator of `start`'s game, to `depth`, pruning as `pruning` says.
fn player<G: Game>(start: &G, depth: u32, pruning: Pruning) -> NnueAgent<G> {
    let net = random_net(start, 3);
    let eval = Arc::new(Evaluator::new(&net));
    let mut agent = NnueAgent::new("nnue".into(), eval, None, Some(depth), None);
    agent.set_pruning(pruning);
    if pruning.prior > 0 {
        agent.set_network(contagion::nn::Net::init(NetShape::for_game(
            start, 1, 8, 16,
        )));
    }
    agent
}

/// Every way the search can prune: reductions none, mild, growing or by history, null
/// moves or not, reverse futility and late-move pruning or not, internal iterative
/// reductions or not, quiet moves skipped (with the history a side, futility pruning,
/// a network's policy ordering two plies, singular extensions with multi-cut and
/// negative extensions, and the margins on the logit scale) or not.
fn prunings() -> Vec<Pruning> {
    let mut all = Vec::new();
    for reductions in 0..=3 {
        for null_move in [false, true] {
            for (futility, late_moves) in [(0, false), (100, false), (0, true), (100, true)] {
                for iterative in [0, 2] {
                    for (quiet, history, forward, prior, singular) in
                        [(0, 0, 0, 0, 0), (2, 1, 200, 2, 30)]
                    {
                        all.push(Pruning {
                            reductions,
                            null_move,
                            futility,
                            late_moves,
                            iterative,
                            quiet,
                            history,
                            forward,
                            prior,
                            singular,
                            multicut: singular > 0,
                            negative: singular > 0,
                            logit: singular > 0,
                        });
                    }
                }
            }
        }
    }
    all
}

#[test]
fn quiet_moves_are_the_jumps_that_take_nothing_on_boards_and_bitboards() {
    // Over random games of Ataxx and a small Virus board, every legal move: the game
    // calls it quiet exactly when it is a jump after which the opponent has as many
    // pieces as before, and the bitboards' search agrees.
    let mut rng = Rng::new(83);
    let starts = [
        Ataxx::standard(),
        Ataxx::custom("x3o/5/2-2/5/o3x o 0 1", false).unwrap(),
    ];
    let (mut quiet, mut loud) = (0, 0);
    for start in starts {
        for _ in 0..10 {
            let mut s = start;
            let mut moves = Vec::new();
            while s.outcome().is_none() {
                s.legal_actions(&mut moves);
                let bits = contagion::games::ataxx::bits::Bits::new(&s).unwrap();
                for &a in &moves {
                    let mut after = s;
                    after.apply(a).unwrap();
                    let jump = matches!(
                        contagion::games::ataxx::Move::from_index(a, s.size()),
                        Some(contagion::games::ataxx::Move::Jump { .. })
                    );
                    let expected =
                        jump && after.pieces(1 - s.to_move()) == s.pieces(1 - s.to_move());
                    assert_eq!(
                        s.is_quiet(a),
                        expected,
                        "{} {}",
                        s.to_notation(),
                        s.action_to_string(a)
                    );
                    assert_eq!(contagion::games::Searchable::quiet(&bits, a), expected);
                    if expected { quiet += 1 } else { loud += 1 }
                }
                s.apply(moves[rng.below(moves.len())]).unwrap();
            }
        }
    }
    assert!(quiet > 100 && loud > 100, "{quiet} quiet, {loud} not");
}

#[test]
fn quiet_move_pruning_skips_nothing_at_the_root() {
    // x's one piece is walled in by blocked squares: its only moves are jumps that take
    // nothing. Every one is searched at the root (the scores differ, so the best is
    // found), and the depth completes.
    let s = Ataxx::standard()
        .parse_position("x-5/--5/7/7/7/7/6o x 0 1")
        .unwrap();
    let mut moves = Vec::new();
    s.legal_actions(&mut moves);
    assert!(moves.len() > 2 && moves.iter().all(|&a| s.is_quiet(a)));
    let pick = |quiet| {
        let mut agent = player(
            &s,
            4,
            Pruning {
                quiet,
                ..Pruning::DEFAULT
            },
        );
        let a = agent.select(&s, &Limits::default()).unwrap();
        assert!(s.is_legal(a));
        assert_eq!(agent.last_search().unwrap().depth, 4);
        a
    };
    // Below the root the walled piece's side still has clones after its first jump, so
    // the choice at the root is over every jump with or without the pruning.
    assert!(moves.contains(&pick(1)));
    assert!(moves.contains(&pick(0)));
}

#[test]
fn the_search_alone_finds_a_forced_win_at_depth_however_it_prunes() {
    // Without the solver (too many empty squares for it): o takes the last x pieces.
    let s = Ataxx::standard()
        .parse_position("7/7/7/3x3/3o3/7/o6 o 0 1")
        .unwrap();
    assert!(!s.in_solver_reach());
    for pruning in prunings() {
        let mut agent = player(&s, 3, pruning);
        let a = agent.select(&s, &Limits::default()).unwrap();
        let mut after = s;
        after.apply(a).unwrap();
        assert_eq!(
            after.outcome().map(|o| o.result(1)),
            Some(1),
            "{pruning:?} played {}",
            s.action_to_string(a)
        );
        let info = agent.last_search().unwrap();
        assert_eq!(info.score, contagion::agents::Score::Mate(1), "{pruning:?}");
    }
}

#[test]
fn singular_extensions_change_the_search_and_keep_its_depth() {
    // Deep enough for the test of a table move (6 plies from the leaves, below the
    // root): along a game the search plays, the search with singular extensions (alone,
    // with multi-cut, with negative extensions too) completes the depth with a legal
    // move (or proves the result), and somewhere visits other nodes than without them.
    let mut s = Ataxx::standard();
    let mut differ = [false; 3];
    for _ in 0..6 {
        let run = |pruning: Pruning| {
            let mut agent = player(&s, 7, pruning);
            let a = agent.select(&s, &Limits::default()).unwrap();
            assert!(s.is_legal(a), "{pruning:?}");
            let info = agent.last_search().unwrap();
            let proven = matches!(info.score, contagion::agents::Score::Mate(_));
            assert!(info.depth == 7 || proven, "{pruning:?} {info:?}");
            (a, info.nodes)
        };
        let (best, plain) = run(Pruning {
            singular: 0,
            multicut: false,
            negative: false,
            ..Pruning::DEFAULT
        });
        for (k, (multicut, negative)) in [(false, false), (true, false), (true, true)]
            .into_iter()
            .enumerate()
        {
            let (_, n) = run(Pruning {
                singular: 20,
                multicut,
                negative,
                ..Pruning::DEFAULT
            });
            differ[k] |= n != plain;
        }
        s.apply(best).unwrap();
        if s.outcome().is_some() {
            break;
        }
    }
    assert_eq!(differ, [true; 3]);
}

#[test]
fn the_logit_scale_keeps_the_order_of_values_and_reads_back() {
    // Scores on the logit scale rise with the value, read back within a thousandth,
    // stay far below a won game's however sure the value, and are the value's own near
    // an even position; a search on that scale reports the same value as on a value's
    // scale for the same line, within the rounding.
    let mut last = i32::MIN;
    for k in -100..=100 {
        let v = k as f32 / 100.0;
        let s = score_of(v, true);
        assert!(s > last || (v.abs() > 0.999 && s == last), "{v} {s} {last}");
        last = s;
        assert!(s.abs() < WIN / 10, "{v} {s}");
        if v.abs() < 0.999 {
            assert!((value_of(s, true) - v).abs() < 1e-3, "{v} {s}");
        }
        assert_eq!(
            value_of(score_of(v, false), false),
            (v * 1000.0).round() / 1000.0
        );
    }
    assert_eq!(score_of(0.01, true), score_of(0.01, false));
    let s = Ataxx::standard();
    let value = |logit| {
        let mut agent = player(
            &s,
            3,
            Pruning {
                logit,
                ..Pruning::NONE
            },
        );
        let a = agent.select(&s, &Limits::default()).unwrap();
        match agent.last_search().unwrap().score {
            contagion::agents::Score::Cp(cp) => (a, cp),
            other => panic!("{other:?}"),
        }
    };
    let ((a, v), (b, w)) = (value(false), value(true));
    assert_eq!(a, b);
    assert!((v - w).abs() <= 2, "{v} {w}");
}

#[test]
fn singular_extensions_are_for_games_of_two() {
    // In Chexers' paranoid search (three players) they lost heavily, so there the
    // search with them is the search without them: the same move and the same nodes.
    let s = Chexers::new();
    let run = |singular| {
        let mut agent = player(
            &s,
            7,
            Pruning {
                singular,
                ..Pruning::DEFAULT
            },
        );
        let a = agent.select(&s, &Limits::default()).unwrap();
        (a, agent.last_search().unwrap().nodes)
    };
    assert_eq!(run(20), run(0));
}

#[test]
fn each_pruning_searches_fewer_nodes_to_the_same_depth() {
    // From the start, to depth 6: every pruning visits fewer nodes than the full-width
    // search, and each still completes the depth with a legal move. Internal iterative
    // reductions alone are held to the depth only: they move depth between iterations
    // (a node the table knows nothing of is searched shallower, then deeper in the next
    // iteration) rather than cut it.
    let s = Ataxx::standard();
    let nodes = |pruning| {
        let mut agent = player(&s, 6, pruning);
        let a = agent.select(&s, &Limits::default()).unwrap();
        assert!(s.is_legal(a), "{pruning:?}");
        let info = agent.last_search().unwrap();
        assert_eq!(info.depth, 6, "{pruning:?}");
        info.nodes
    };
    let full = nodes(Pruning::NONE);
    for pruning in prunings().into_iter().filter(|&p| p != Pruning::NONE) {
        let n = nodes(pruning);
        let cuts = Pruning {
            iterative: 0,
            ..pruning
        } != Pruning::NONE;
        assert!(
            !cuts || n < full,
            "{pruning:?}: {n} nodes, full width {full}"
        );
    }
}

#[test]
fn bitboard_features_equal_the_encoding_s() {
    let mut rng = Rng::new(21);
    let mut moves = Vec::new();
    let starts = [
        Ataxx::standard(),
        Ataxx::custom("x4o/1-2-1/6/6/1-2-1/o4x x 0 1", true).unwrap(),
        Ataxx::custom("x3o/5/2-2/5/o3x o 0 1", false).unwrap(),
    ];
    let mut checked = 0;
    for start in starts {
        for _ in 0..20 {
            let mut s = start;
            while s.outcome().is_none() {
                let bits = contagion::games::ataxx::bits::Bits::new(&s).unwrap();
                let mut got = features::Features::default();
                contagion::games::Searchable::features(&bits, &mut Vec::new(), &mut got);
                assert_eq!(got, features::set_of(&s), "{}", s.to_notation());
                for set in [FeatureSet::Tuples, FeatureSet::Windows] {
                    assert_eq!(set.set_of(&bits), set.set_of(&s), "{}", s.to_notation());
                }
                // Each seat's view, as the perspective form reads them.
                let views = FeatureSet::Windows.views_of(&bits, 2);
                assert_eq!(views, FeatureSet::Windows.views_of(&s, 2));
                assert_eq!(views[0], FeatureSet::Windows.views_of(&s, 1)[0]);
                if let Some(passed) = contagion::games::Searchable::null_move(&bits) {
                    let theirs = FeatureSet::Windows.views_of(&passed, 1);
                    assert_eq!(
                        views[1], theirs[0],
                        "the other seat's view: its own to move"
                    );
                }
                // The windows alone: one pattern a window, each within its window's.
                let windows: Vec<u32> = FeatureSet::Windows.set_of(&s).iter().collect();
                let side = s.encoding_shape().width;
                assert_eq!(
                    windows.len(),
                    (side - 1) * (side - 1),
                    "{}",
                    s.to_notation()
                );
                assert!(windows.iter().enumerate().all(|(w, &f)| f / 81 == w as u32));
                checked += 1;
                s.legal_actions(&mut moves);
                s.apply(moves[rng.below(moves.len())]).unwrap();
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}

/// An evaluation that finds every position even.
struct Even;

impl<G> Evaluation<G> for Even {
    fn enter(&mut self, _ply: usize, _state: &G) {}

    fn values(&mut self, _ply: usize) -> [f32; contagion::games::MAX_PLAYERS] {
        [0.0; contagion::games::MAX_PLAYERS]
    }
}

#[test]
fn a_prior_orders_the_root_s_moves() {
    // Every move scores the same, so the search keeps the first it searched: a prior
    // that ranks a jump highest makes it the move, where the search's own order (pieces
    // gained) puts a clone first; the prior only orders the plies `pol` names.
    let s = Ataxx::standard();
    let mut moves = Vec::new();
    s.legal_actions(&mut moves);
    let jump = *moves.iter().find(|&&a| s.is_quiet(a)).unwrap();
    let mut logits = vec![0.0; s.action_space()];
    logits[jump as usize] = 5.0;
    let best = |plies: u8| {
        let mut pvs: Pvs<Ataxx> = Pvs::new(1);
        pvs.pruning = Pruning {
            prior: plies,
            ..Pruning::DEFAULT
        };
        pvs.set_prior([(s.hash(), logits.clone())].into());
        let limits = PvsLimits {
            depth: Some(1),
            ..Default::default()
        };
        pvs.search(&s, &mut Even, limits).unwrap().best
    };
    assert_eq!(best(1), jump);
    assert!(!s.is_quiet(best(0)), "{}", s.action_to_string(best(0)));
}
