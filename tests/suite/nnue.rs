//! The fast evaluator: the incremental accumulator against a fresh one on every game,
//! distillation on real games and the bundle's refusals (its alpha-beta player is
//! `nnue_search`'s).

use std::path::PathBuf;
use std::sync::Arc;

use contagion::agents::nnue::NnueAgent;
use contagion::agents::{Agent, Limits};
use contagion::config::{Config, DistillConfig};
use contagion::games::ataxx::Ataxx;
use contagion::games::chexers::Chexers;
use contagion::games::infexion::Board;
use contagion::games::{Action, Game};
use contagion::nn::nnue::kernels::QA;
use contagion::nn::nnue::net::Scratch;
use contagion::nn::nnue::{
    EvalShape, Evaluator, FeatureSet, FloatNet, Incremental, bundle, features,
};
use contagion::rng::Rng;
use contagion::search::pvs::Evaluation;
use contagion::selfplay::SelfPlaySettings;
use contagion::train::distill::{DistillOptions, distill};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("contagion-nnue-{name}-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// An evaluator of random weights for `start`'s game.
pub(crate) fn random_net<G: Game>(start: &G, seed: u64) -> FloatNet {
    random_net_of(start, FeatureSet::Encoding, false, seed)
}

/// An evaluator of random weights for `start`'s game reading feature set `set`, with an
/// accumulator a seat where `perspective`.
pub(crate) fn random_net_of<G: Game>(
    start: &G,
    set: FeatureSet,
    perspective: bool,
    seed: u64,
) -> FloatNet {
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
