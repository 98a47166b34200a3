//! The fast CPU forward (`nn::kernels::fast`, what `Net::infer` runs) against burn's forward on
//! random inputs and on real positions, for every game's network, after a few training
//! steps so that batch norm carries real statistics to fold.

use contagion::bench::sample_positions;
use contagion::config::TrainConfig;
use contagion::games::Game;
use contagion::games::ataxx::Ataxx;
use contagion::games::chexers::Chexers;
use contagion::games::infexion::Board;
use contagion::nn::NetShape;
use contagion::rng::Rng;
use contagion::selfplay::Sample;
use contagion::train::{Trainer, make_batch};

fn check<G: Game>(start: &G, blocks: usize, channels: usize, global_pool: bool) {
    let shape = NetShape {
        global_pool,
        ..NetShape::for_game(start, blocks, channels, 16)
    };
    let mut trainer = Trainer::new(shape.clone(), &TrainConfig::default()).unwrap();
    let mut rng = Rng::new(5);
    let mut legal = Vec::new();
    let positions = sample_positions(start, 24, 10, 9);
    let samples: Vec<Sample<G>> = positions
        .iter()
        .filter(|s| s.outcome().is_none())
        .map(|s| {
            s.legal_actions(&mut legal);
            let mut outcome = [0.0; 3];
            outcome[rng.below(start.num_players())] = 1.0;
            Sample {
                state: s.clone(),
                policy: vec![(legal[rng.below(legal.len())], 1.0)],
                outcome,
                game: None,
            }
        })
        .collect();
    let refs: Vec<&Sample<G>> = samples.iter().collect();
    for _ in 0..3 {
        trainer.step(&make_batch(
            &refs,
            &shape,
            &TrainConfig::default(),
            &mut rng,
        ));
    }
    let net = trainer.net();
    let n = shape.input_len();
    for batch in [1, 3, 17] {
        // Random planes in [-1, 2), and the real encodings of positions.
        let mut input: Vec<f32> = (0..batch * n)
            .map(|_| rng.below(3000) as f32 / 1000.0 - 1.0)
            .collect();
        if batch == 17 {
            input.clear();
            for s in positions.iter().take(17) {
                let mut planes = vec![0.0; n];
                s.encode(&mut planes);
                input.extend(planes);
            }
        }
        let fast = net.infer(input.clone(), batch);
        let slow = net.infer_burn(input, batch);
        assert_eq!(fast.logits.len(), slow.logits.len());
        assert_eq!(fast.values.len(), slow.values.len());
        let diff = |a: &[f32], b: &[f32]| {
            a.iter()
                .zip(b)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0f32, f32::max)
        };
        let (dl, dv) = (
            diff(&fast.logits, &slow.logits),
            diff(&fast.values, &slow.values),
        );
        eprintln!(
            "{} {blocks}x{channels} batch {batch}: logits {dl:.2e}, values {dv:.2e}",
            start.name()
        );
        assert!(dl <= 1e-4 && dv <= 1e-4, "{}: {dl} {dv}", start.name());
    }
}

#[test]
fn fast_forward_equals_burn_for_infexion() {
    check(&Board::new(), 2, 16, false);
    check(&Board::new(), 0, 8, false);
    check(&Board::new(), 4, 16, true);
}

#[test]
fn fast_forward_equals_burn_for_ataxx_and_virus() {
    check(&Ataxx::standard(), 2, 16, false);
    check(&Ataxx::virus(), 1, 8, false);
    check(&Ataxx::standard(), 2, 16, true);
}

#[test]
fn fast_forward_equals_burn_for_chexers() {
    check(&Chexers::new(), 2, 16, true);
}
