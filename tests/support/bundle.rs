//! Networks for tests: trained for a few real steps, saved as a checkpoint, exported as
//! a bundle through the real `contagion export`.

use std::path::{Path, PathBuf};
use std::process::Command;

use burn::module::{Module, ModuleMapper, Param};
use burn::tensor::{Tensor, TensorData};
use contagion::config::TrainConfig;
use contagion::games::Game;
use contagion::nn::formats::checkpoint::{Checkpoint, TrainState, model_bytes};
use contagion::nn::{Net, NetShape};
use contagion::rng::Rng;
use contagion::selfplay::Sample;
use contagion::train::{Trainer, make_batch};

/// Samples for `states`: a random legal move as the policy target, a random winner.
pub fn samples<G: Game>(states: Vec<G>, rng: &mut Rng) -> Vec<Sample<G>> {
    let mut legal = Vec::new();
    states
        .into_iter()
        .map(|state| {
            state.legal_actions(&mut legal);
            let policy = vec![(legal[rng.below(legal.len())], 1.0)];
            let first = if rng.below(2) == 0 { 1.0 } else { -1.0 };
            Sample {
                state,
                policy,
                outcome: [first, -first, 0.0],
                game: None,
            }
        })
        .collect()
}

/// A `blocks`×`channels` network trained for `steps` real steps on `data` (so its batch
/// norms hold real statistics), saved as checkpoint `dir/ckpt-000003.ckpt` of iteration
/// 3, and exported to `dir/bundle` through the binary.
pub fn export_trained<G: Game>(
    start: &G,
    (blocks, channels): (usize, usize),
    data: &[Sample<G>],
    steps: usize,
    dir: &Path,
) -> (Net, PathBuf) {
    let shape = NetShape::for_game(start, blocks, channels, 16);
    let config = TrainConfig::default();
    let fresh = Trainer::new(shape.clone(), &config)
        .unwrap()
        .model()
        .clone();
    let weights = model_bytes(&fresh.map(&mut Seeded(Rng::new(1)))).unwrap();
    let mut trainer = Trainer::restore(shape, &config, &weights, &[], 0).unwrap();
    let mut rng = Rng::new(5);
    let refs: Vec<&Sample<G>> = data.iter().collect();
    for _ in 0..steps {
        trainer.step(&make_batch(&refs, &trainer.shape, &config, &mut rng));
    }
    let (model, optimizer) = trainer.save_bytes().unwrap();
    let ckpt = dir.join("ckpt-000003.ckpt");
    Checkpoint {
        shape: trainer.shape.clone(),
        state: TrainState {
            iteration: 3,
            ..TrainState::default()
        },
        model,
        optimizer,
        stage: Default::default(),
        metrics: String::new(),
    }
    .save(&ckpt)
    .unwrap();
    let bundle = dir.join("bundle");
    let out = Command::new(env!("CARGO_BIN_EXE_contagion"))
        .args(["export", "--checkpoint"])
        .arg(&ckpt)
        .arg("--out")
        .arg(&bundle)
        .output()
        .expect("run contagion export");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (trainer.net(), bundle)
}

/// The shipped network bundles in `models/` (not the fast evaluators), sorted.
pub fn shipped() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut shipped: Vec<_> = std::fs::read_dir(root.join("models"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("manifest.json").is_file())
        .filter(|p| !contagion::nn::nnue::bundle::is_evaluator(p))
        .collect();
    shipped.sort();
    shipped
}

/// Replaces every parameter with values drawn from a seeded generator (burn's own
/// initialiser draws from one process-wide generator that tests share): uniform in
/// ±1/√fan-in for weights, around 1 for batch norm's scale.
pub struct Seeded(pub Rng);

impl ModuleMapper for Seeded {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        let (id, tensor, mapper) = param.consume();
        let dims = tensor.dims();
        let n: usize = dims.iter().product();
        let (centre, bound) = match D {
            1 if tensor.clone().into_data().try_to_vec::<f32>().unwrap()[0] == 1.0 => (1.0, 0.2),
            1 => (0.0, 0.2),
            _ => (0.0, 1.0 / ((n / dims[0]) as f32).sqrt()),
        };
        let values: Vec<f32> = (0..n)
            .map(|_| centre + bound * (self.0.below(2001) as f32 / 1000.0 - 1.0))
            .collect();
        let t = Tensor::<D>::from_data(TensorData::new(values, dims), &tensor.device());
        Param::from_mapped_value(id, t.require_grad(), mapper)
    }
}
