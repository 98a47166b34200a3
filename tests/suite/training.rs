//! The network and trainer: learning a small fixed dataset, value targets under
//! symmetries that relabel the seats, bit-identical save/load, refusal of damaged
//! checkpoint and shard files, and config validation.

use std::path::PathBuf;

use contagion::bench::sample_positions;
use contagion::config::{Config, TrainConfig};
use contagion::games::Game;
use contagion::games::chexers::Chexers;
use contagion::games::infexion::Board;
use contagion::nn::formats::checkpoint::{Checkpoint, TrainState};
use contagion::nn::{Aux, Heads, NetShape};
use contagion::rng::Rng;
use contagion::selfplay::SelfPlayGame;
use contagion::selfplay::replay::ReplayBuffer;
use contagion::selfplay::{Sample, Trace};
use contagion::train::{Trainer, make_batch, make_plain_batch};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("contagion-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn shape(blocks: usize, channels: usize) -> NetShape {
    NetShape::for_game(&Board::new(), blocks, channels, 16)
}

/// 24 positions, each with a one-hot policy target on a legal move and a ±1 result.
fn dataset() -> Vec<Sample<Board>> {
    let mut rng = Rng::new(3);
    let mut legal = Vec::new();
    sample_positions(&Board::new(), 24, 12, 5)
        .into_iter()
        .map(|state| {
            state.legal_actions(&mut legal);
            let a = legal[rng.below(legal.len())];
            let winner = rng.below(2);
            let mut outcome = [-1.0; 3];
            outcome[winner] = 1.0;
            outcome[2] = 0.0;
            Sample {
                state,
                policy: vec![(a, 1.0)],
                outcome,
                game: None,
            }
        })
        .collect()
}

#[test]
fn training_overfits_a_small_fixed_dataset() {
    // burn's initialisation draws from the device's generator: seed it, so that the
    // rare start from which the value head does not fit in 250 steps is not drawn.
    contagion::nn::device().seed(1);
    let data = dataset();
    let refs: Vec<&Sample<Board>> = data.iter().collect();
    let config = TrainConfig {
        learning_rate: 3e-3,
        weight_decay: 0.0,
        ..TrainConfig::default()
    };
    let mut trainer = Trainer::new(shape(2, 16), &config).unwrap();
    let mut rng = Rng::new(1);
    // No augmentation for the measurement: symmetry 0 only (a fixed batch).
    let fixed: Vec<Sample<Board>> = data.clone();
    let fixed_refs: Vec<&Sample<Board>> = fixed.iter().collect();
    let eval_batch = make_plain_batch(&fixed_refs, &trainer.shape, &TrainConfig::default());
    let before = trainer.evaluate(&eval_batch);
    for _ in 0..250 {
        trainer.step(&make_batch(
            &refs,
            &trainer.shape,
            &TrainConfig::default(),
            &mut rng,
        ));
    }
    let after = trainer.evaluate(&eval_batch);
    eprintln!("overfit: {before:?} -> {after:?}");
    // Stated factor: the total loss falls at least 4x (policy from ~ln(legal moves)).
    assert!(
        after.total * 4.0 < before.total,
        "loss {:.3} -> {:.3}",
        before.total,
        after.total
    );
    assert!(
        after.value < before.value,
        "value loss {:.3} -> {:.3}",
        before.value,
        after.value
    );
}

/// A batch without augmentation (every sample under the identity symmetry).
fn save(trainer: &Trainer, path: &std::path::Path) {
    let (model, optimizer) = trainer.save_bytes().unwrap();
    Checkpoint {
        shape: trainer.shape.clone(),
        state: TrainState {
            iteration: 7,
            ..TrainState::default()
        },
        model,
        optimizer,
        stage: Default::default(),
        metrics: String::new(),
    }
    .save(path)
    .unwrap();
}

#[test]
fn save_then_load_gives_bit_identical_outputs() {
    let dir = temp_dir("saveload");
    let data = dataset();
    let refs: Vec<&Sample<Board>> = data.iter().collect();
    let mut trainer = Trainer::new(shape(1, 8), &TrainConfig::default()).unwrap();
    let mut rng = Rng::new(2);
    for _ in 0..3 {
        trainer.step(&make_batch(
            &refs,
            &trainer.shape,
            &TrainConfig::default(),
            &mut rng,
        ));
    }
    let path = dir.join("a.ckpt");
    save(&trainer, &path);
    let loaded = Checkpoint::load(&path).unwrap();
    assert_eq!(loaded.state.iteration, 7);
    let batch = make_batch(&refs, &trainer.shape, &TrainConfig::default(), &mut rng);
    let a = trainer.net().infer(batch.input.clone(), batch.size);
    let b = loaded.net().unwrap().infer(batch.input.clone(), batch.size);
    assert!(
        a.logits == b.logits && a.values == b.values,
        "outputs differ after save/load"
    );
    // The optimizer state comes back too: one more step from each gives the same net.
    let mut resumed = Trainer::restore(
        loaded.shape.clone(),
        &TrainConfig::default(),
        &loaded.model,
        &loaded.optimizer,
        3,
    )
    .unwrap();
    let next = make_batch(&refs, &trainer.shape, &TrainConfig::default(), &mut rng);
    trainer.step(&next);
    resumed.step(&next);
    let a = trainer.net().infer(batch.input.clone(), batch.size);
    let b = resumed.net().infer(batch.input, batch.size);
    let diff = a
        .logits
        .iter()
        .zip(&b.logits)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0f32, f32::max);
    assert!(diff == 0.0, "resumed training differs by {diff}");
}

#[test]
fn damaged_checkpoints_and_shards_are_refused() {
    let dir = temp_dir("damaged");
    let trainer = Trainer::new(shape(1, 8), &TrainConfig::default()).unwrap();
    let path = dir.join("c.ckpt");
    save(&trainer, &path);
    let bytes = std::fs::read(&path).unwrap();
    let err = |b: &[u8]| {
        std::fs::write(&path, b).unwrap();
        Checkpoint::load(&path).unwrap_err().to_string()
    };
    assert!(err(&bytes[..bytes.len() / 2]).contains("truncated"));
    let mut flipped = bytes.clone();
    flipped[bytes.len() - 100] ^= 0x40;
    assert!(err(&flipped).contains("checksum"));
    assert!(err(b"{\"not\": \"a checkpoint, but some JSON\"}").contains("wrong magic"));
    assert!(err(&[]).contains("truncated"));

    // A shard: written by the buffer, then damaged.
    let replay = dir.join("replay");
    let store = contagion::store::open(dir.to_str().unwrap()).unwrap();
    let start = Board::new();
    let mut buffer = ReplayBuffer::open(&start, store.clone(), 1000).unwrap();
    let mut state = start;
    let mut legal = Vec::new();
    let mut game = SelfPlayGame {
        moves: vec![],
        targets: vec![],
        outcome: [0.0; 3],
        sims: 1,
        seed: 0,
        values: vec![],
        proven: vec![],
    };
    for _ in 0..6 {
        state.legal_actions(&mut legal);
        game.targets.push(vec![(legal[0], 3), (legal[1], 1)]);
        game.moves.push(legal[0]);
        state.apply(legal[0]).unwrap();
    }
    buffer.add(&[game.clone()], 1, 0).unwrap();
    assert_eq!(buffer.len(), 6);
    assert_eq!(
        ReplayBuffer::open(&start, store.clone(), 1000)
            .unwrap()
            .len(),
        6
    );
    let shard = std::fs::read_dir(&replay)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let good = std::fs::read(&shard).unwrap();
    let mut bad = good.clone();
    bad[30] ^= 1;
    std::fs::write(&shard, &bad).unwrap();
    let e = ReplayBuffer::open(&start, store.clone(), 1000)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("checksum"), "{e}");
    std::fs::write(&shard, &good[..good.len() - 3]).unwrap();
    let e = ReplayBuffer::open(&start, store.clone(), 1000)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("truncated"), "{e}");
    // A checkpoint renamed as a shard is foreign.
    std::fs::write(&shard, &bytes).unwrap();
    let e = ReplayBuffer::open(&start, store.clone(), 1000)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("wrong magic"), "{e}");
}

#[test]
fn configs_name_the_bad_field_and_the_allowed_range() {
    let err = |text: &str| Config::parse(text, "x.toml").unwrap_err();
    let e = format!("{:#}", err("[mcts]\nsimulatons = 10\n"));
    assert!(e.contains("simulatons"), "{e}");
    let e = format!("{:#}", err("[mcts]\nsimulations = 0\n"));
    assert!(
        e.contains("mcts.simulations = 0") && e.contains("1 ..= 100000"),
        "{e}"
    );
    let e = format!("{:#}", err("[selfplay]\nmax_plies_iterations = 2000000\n"));
    assert!(e.contains("selfplay.max_plies_iterations = 2000000"), "{e}");
    let e = format!("{:#}", err("[selfplay]\ndraw_value = -2\n"));
    assert!(e.contains("selfplay.draw_value = -2"), "{e}");
    let e = format!("{:#}", err("[selfplay]\nopponent_fraction = 1.5\n"));
    assert!(e.contains("selfplay.opponent_fraction = 1.5"), "{e}");
    let e = format!("{:#}", err("[selfplay]\nopponent = \"alphabet\"\n"));
    assert!(
        e.contains("selfplay.opponent") && e.contains("alphabet"),
        "{e}"
    );
    let e = format!("{:#}", err("[selfplay]\nopponent = \"human\"\n"));
    assert!(e.contains("selfplay.opponent = \"human\""), "{e}");
    let e = format!("{:#}", err("[train]\nvalue_horizon = 100001\n"));
    assert!(e.contains("train.value_horizon = 100001"), "{e}");
    let e = format!("{:#}", err("[train]\noptimizer = \"rmsprop\"\n"));
    assert!(e.contains("train.optimizer"), "{e}");
    let e = format!("{:#}", err("[gating]\ngames = 3\n"));
    assert!(e.contains("gating.games = 3"), "{e}");
    let e = format!("{:#}", err("[baseline]\nspec = \"alphabeta:depth=99\"\n"));
    assert!(e.contains("baseline.spec"), "{e}");
    let e = format!("{:#}", err("[run]\nname = \"../x\"\n"));
    assert!(e.contains("run.name"), "{e}");
    // Every shipped config is valid.
    for entry in std::fs::read_dir("configs").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            Config::load(&path).unwrap();
        }
    }
    Config::load(std::path::Path::new("tests/data/test-run.toml")).unwrap();
}

#[test]
fn the_network_is_translation_equivariant_on_the_torus() {
    // Circular padding + per-cell policy head: translating the board translates the
    // policy logits and leaves the values unchanged. Symmetries 12k are translations.
    let net = contagion::nn::Net::init(shape(2, 8));
    let positions = sample_positions(&Board::new(), 4, 15, 9);
    let len = net.shape.input_len();
    let na = net.shape.actions();
    for t in [12, 12 * 8, 12 * 30] {
        let moved: Vec<Board> = positions.iter().map(|b| b.transform(t)).collect();
        let encode = |boards: &[Board]| {
            let mut x = vec![0.0; boards.len() * len];
            for (i, b) in boards.iter().enumerate() {
                b.encode(&mut x[i * len..(i + 1) * len]);
            }
            x
        };
        let a = net.infer(encode(&positions), positions.len());
        let b = net.infer(encode(&moved), moved.len());
        let mut worst = 0.0f32;
        for (i, board) in positions.iter().enumerate() {
            for action in 0..na as u16 {
                let j = board.transform_action(action, t) as usize;
                worst =
                    worst.max((a.logits[i * na + action as usize] - b.logits[i * na + j]).abs());
            }
        }
        for (x, y) in a.values.iter().zip(&b.values) {
            worst = worst.max((x - y).abs());
        }
        assert!(worst < 1e-4, "translation {t}: outputs differ by {worst}");
    }
    // A rotation is not built in (the network learns it from augmentation): sanity check
    // that the test above could fail.
    let r = positions[0].transform(1);
    let mut x = vec![0.0; len];
    let mut y = vec![0.0; len];
    positions[0].encode(&mut x);
    r.encode(&mut y);
    let (a, b) = (net.infer(x, 1), net.infer(y, 1));
    let differs = (0..na as u16).any(|act| {
        (a.logits[act as usize] - b.logits[positions[0].transform_action(act, 1) as usize]).abs()
            > 1e-4
    });
    assert!(
        differs,
        "a rotation gave identical outputs: the check has no power"
    );
}

#[test]
fn value_targets_follow_the_mover_under_seat_relabelling_symmetries() {
    // Red to move and Red the winner: relative to the mover the target is [1, -1, -1]
    // under every Chexers rotation, though a rotation passes the turn to another colour;
    // so are the short-term value targets.
    let state = Chexers::new();
    let sample = first_move_sample(&state, None);
    let samples = vec![&sample; 48];
    let short = Heads::only(&[Aux::ShortValue]);
    let shape = NetShape::for_game(&state, 1, 8, 16).with_heads(short);
    let batch = make_batch(&samples, &shape, &TrainConfig::default(), &mut Rng::new(5));
    let len = shape.input_len();
    let mut inputs: Vec<&[f32]> = batch.input.chunks(len).collect();
    inputs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    inputs.dedup();
    assert_eq!(inputs.len(), 3, "all three rotations were drawn");
    for v in batch.value.chunks(3) {
        assert_eq!(v, [1.0, -1.0, -1.0]);
    }
    for v in batch.aux[Aux::ShortValue].chunks(3) {
        assert_eq!(v, [0.5, -0.2, -0.3]);
    }
}

/// A sample at `state`: its first legal move the policy target, the first seat the
/// winner (and ahead in the short term: every position of its game scores
/// `[0.5, -0.2, -0.3]`), and `end` the game's last position (`state` itself unless given).
fn first_move_sample<G: Game>(state: &G, end: Option<G>) -> Sample<G> {
    let mut legal = Vec::new();
    state.legal_actions(&mut legal);
    let outcome = [1.0, -1.0, -1.0];
    let trace = Trace {
        end: end.unwrap_or_else(|| state.clone()),
        outcome,
        scores: vec![Some([0.5, -0.2, -0.3]); 64],
    };
    Sample {
        state: state.clone(),
        policy: vec![(legal[0], 1.0)],
        outcome,
        game: Some((std::sync::Arc::new(trace), 0)),
    }
}

/// Ownership targets of samples whose game ended where they stand: under every drawn
/// symmetry, a cell's class is the mover's (1), the next player's (2, …) or nobody's (0)
/// exactly where the input's first planes (each player's pieces from the mover's view)
/// say so.
fn check_ownership_follows_the_input<G: Game>(state: G) {
    let sample = first_move_sample(&state, Some(state.clone()));
    let samples = vec![&sample; 32];
    let ownership = Heads::only(&[Aux::Ownership]);
    let shape = NetShape::for_game(&state, 1, 8, 16).with_heads(ownership);
    let batch = make_batch(&samples, &shape, &TrainConfig::default(), &mut Rng::new(5));
    let (cells, k, np) = (
        shape.cells(),
        shape.head_width(Aux::Ownership),
        state.num_players(),
    );
    assert_eq!(k, np + 1);
    for (input, owner) in
        (batch.input.chunks(shape.input_len())).zip(batch.aux[Aux::Ownership].chunks(cells * k))
    {
        for cell in 0..cells {
            let expected = (0..np)
                .find(|&p| input[p * cells + cell] == 1.0)
                .map_or(0, |p| p + 1);
            let one_hot = &owner[cell * k..(cell + 1) * k];
            assert_eq!(one_hot.iter().sum::<f32>(), 1.0, "one class a cell");
            assert_eq!(one_hot[expected], 1.0, "{} cell {cell}", state.name());
        }
    }
}

#[test]
fn ownership_targets_follow_the_mover_and_the_symmetry() {
    check_ownership_follows_the_input(Chexers::new());
    let mut ataxx = contagion::games::ataxx::Ataxx::standard();
    for m in ["f2", "a2", "g2", "b1"] {
        let a = ataxx.parse_legal_action(m).unwrap();
        ataxx.apply(a).unwrap();
    }
    check_ownership_follows_the_input(ataxx);
}

/// The checkpoint `tests/data/NAME` loads, runs and resumes training.
fn old_checkpoint(name: &str) -> Checkpoint {
    let ckpt = Checkpoint::load(&std::path::Path::new("tests/data").join(name)).unwrap();
    assert_eq!(ckpt.state.iteration, 1);
    assert!(!ckpt.shape.global_pool);
    ckpt.net().unwrap();
    let config = TrainConfig::default();
    let (model, optim, steps) = (&ckpt.model, &ckpt.optimizer, ckpt.state.steps);
    let mut trainer = Trainer::restore(ckpt.shape.clone(), &config, model, optim, steps).unwrap();
    let samples = dataset();
    let refs: Vec<&Sample<Board>> = samples.iter().take(8).collect();
    assert!(
        trainer
            .step(&make_plain_batch(
                &refs,
                &trainer.shape,
                &TrainConfig::default()
            ))
            .total
            .is_finite()
    );
    ckpt
}

#[test]
fn checkpoints_of_format_2_still_load_and_resume() {
    // Written by commit 2a3ccc7's `contagion train --config tests/data/test-run.toml`.
    let ckpt = old_checkpoint("checkpoint-2a3ccc7.ckpt");
    assert!(!ckpt.shape.has(Aux::Ownership));
}

#[test]
fn checkpoints_of_format_5_still_load_and_resume() {
    // Written by commit 85f22c5's `contagion train --config tests/data/test-run.toml` with
    // `--set` train.ownership_weight=1, train.short_value_weight=0.5 and
    // train.soft_policy_weight=2: every head format 5 knew, before global pooling.
    let ckpt = old_checkpoint("checkpoint-85f22c5.ckpt");
    let s = &ckpt.shape;
    assert_eq!(
        s.heads,
        Heads::only(&[Aux::Ownership, Aux::ShortValue, Aux::SoftPolicy])
    );
}

#[test]
fn the_auxiliary_heads_are_saved_and_loaded_with_their_checkpoint() {
    let start = Board::new();
    let all = Heads::ALL;
    let shape = NetShape::for_game(&start, 1, 8, 16).with_heads(all);
    let config = TrainConfig {
        ownership_weight: 1.5,
        margin_weight: 1.0,
        short_value_weight: 0.5,
        soft_policy_weight: 8.0,
        ..TrainConfig::default()
    };
    let trainer = Trainer::new(shape.clone(), &config).unwrap();
    let (model, optim) = trainer.save_bytes().unwrap();
    let ckpt = Checkpoint {
        shape: shape.clone(),
        state: TrainState::default(),
        model,
        optimizer: optim,
        stage: Default::default(),
        metrics: String::new(),
    };
    let back = Checkpoint::from_bytes(&ckpt.to_bytes().unwrap(), "test").unwrap();
    assert_eq!(back.shape.heads, all);
    let resumed = Trainer::restore(back.shape, &config, &back.model, &back.optimizer, 0).unwrap();
    let names = contagion::nn::step::train_step::named_tensors(resumed.model());
    for head in ["owner.", "margin.", "short_value.", "soft_policy."] {
        assert!(
            names.keys().any(|k| k.starts_with(head)),
            "{:?}",
            names.keys()
        );
    }
    assert_eq!(
        names,
        contagion::nn::step::train_step::named_tensors(trainer.model())
    );
}
