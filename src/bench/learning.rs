//! Speed figures for the learning side: network inference, self-play, training.

use super::{Rate, measure, sample_positions};
use crate::games::Game;
use crate::nn::kernels::forward::Forward;
use crate::nn::{Net, NetShape};

/// One batch size's forward speed: the fast path (what `Net::infer` runs) and, when
/// asked for, burn's forward on the same network and inputs, in the same run.
#[derive(Debug, Clone, serde::Serialize)]
pub struct NnFigure {
    /// Positions per forward call.
    pub batch: usize,
    /// Threads the batch is split over.
    pub threads: usize,
    /// The median over the rounds.
    pub positions_per_s: f64,
    /// The slowest round.
    pub min: f64,
    /// The fastest round.
    pub max: f64,
    /// Rounds timed.
    pub rounds: usize,
    /// burn's forward (`Net::infer_burn`), one thread.
    pub burn_positions_per_s: Option<f64>,
    /// Which forward [`NnFigure::positions_per_s`] timed (see [`Net::forward_kind`]).
    pub forward: &'static str,
    /// The other fast forwards this CPU runs ([`Forward::available`]), on the same
    /// inputs.
    pub other_positions_per_s: Vec<(&'static str, f64)>,
}

/// Network forward passes of `net`: positions per second for each batch size.
pub fn nn<G: Game>(
    start: &G,
    net: &Net,
    batches: &[usize],
    rounds: usize,
    threads: usize,
    reference: bool,
) -> Vec<NnFigure> {
    let len = net.shape.input_len();
    let positions = sample_positions(start, 64, 20, 7);
    let others: Vec<Net> = match net.forward_kind() {
        "burn" => Vec::new(),
        own => (Forward::ALL.into_iter())
            .filter(|f| f.available() && f.name() != own)
            .map(|f| net.clone().on(f))
            .collect(),
    };
    let time = |b: usize, input: &[f32], f: &dyn Fn(Vec<f32>)| -> Rate {
        // At least ~4096 positions per round so small batches are timed fairly.
        let reps = (4096 / b).max(1);
        f(input.to_vec()); // warm-up
        measure(&format!("forward, batch {b}"), "positions", rounds, |_| {
            for _ in 0..reps {
                f(input.to_vec());
            }
            (reps * b) as u64
        })
    };
    batches
        .iter()
        .map(|&b| {
            let mut input = vec![0.0; b * len];
            for (k, chunk) in input.chunks_mut(len).enumerate() {
                positions[k % positions.len()].encode(chunk);
            }
            let fast = time(b, &input, &|x| {
                std::hint::black_box(net.infer(x, b));
            });
            let burn = reference.then(|| {
                time(b, &input, &|x| {
                    std::hint::black_box(net.infer_burn(x, b));
                })
                .median
            });
            let other = (others.iter())
                .map(|f| {
                    let rate = time(b, &input, &|x| {
                        std::hint::black_box(f.infer(x, b));
                    });
                    (f.forward_kind(), rate.median)
                })
                .collect();
            NnFigure {
                batch: b,
                threads,
                positions_per_s: fast.median,
                min: fast.min,
                max: fast.max,
                rounds,
                burn_positions_per_s: burn,
                forward: net.forward_kind(),
                other_positions_per_s: other,
            }
        })
        .collect()
}

/// Self-play figures from one timed run: `games` games of `moves` moves each from the
/// start, `sims` simulations per move, with a freshly initialised network.
pub struct SelfPlayFigures {
    /// Which forward ran ([`Net::forward_kind`]: `fp32`, `int8`, … or `burn`).
    pub forward: &'static str,
    /// Recorded positions per second, all workers together.
    pub positions_per_second: f64,
    /// MCTS simulations per second, all workers together.
    pub simulations_per_second: f64,
    /// The share of worker time spent in the network's forward.
    pub forward_share: f64,
    /// Mean positions per forward call.
    pub mean_batch: f64,
    /// The share of evaluations answered from the cache.
    pub cache_hit_rate: f64,
}

/// Times self-play of `start`'s game with a freshly initialised network (see
/// [`SelfPlayFigures`]): on the forward self-play runs, or burn's with `burn`.
pub fn selfplay<G: crate::agents::Baselines>(
    start: &G,
    shape: &NetShape,
    settings: &crate::selfplay::SelfPlaySettings,
    games: u32,
    burn: bool,
) -> anyhow::Result<SelfPlayFigures> {
    let net = Net::init(shape.clone());
    let net = if burn {
        net.burn_only()
    } else {
        net.for_self_play().on_device(settings.device)?
    };
    let stats = crate::selfplay::play(start, &net, settings, games, 1, |_| {})?;
    Ok(SelfPlayFigures {
        forward: net.forward_kind(),
        positions_per_second: stats.positions_per_second(),
        simulations_per_second: stats.positions_per_second() * settings.sims as f64,
        forward_share: stats.forward_share(settings.workers.min(games as usize)),
        mean_batch: stats.eval.mean_batch(),
        cache_hit_rate: stats.eval.hit_rate(),
    })
}

/// One training-step figure: the fast step (what `Trainer::step` runs) on `threads`
/// threads and, when asked for, burn's autodiff step on the same weights and batches.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TrainFigure {
    /// `fast` (our step) or `autodiff` (burn's).
    pub what: &'static str,
    /// Residual blocks of the network.
    pub blocks: usize,
    /// Channels of the trunk.
    pub channels: usize,
    /// Samples per step.
    pub batch: usize,
    /// Threads the step is split over.
    pub threads: usize,
    /// The median over the rounds.
    pub samples_per_s: f64,
    /// The slowest round.
    pub min: f64,
    /// The fastest round.
    pub max: f64,
    /// Rounds timed.
    pub rounds: usize,
    /// burn's autodiff step (the reference), one thread.
    pub autodiff_samples_per_s: Option<f64>,
    /// The step on the GPU (`--device wgpu`: burn's autodiff there), the median.
    pub gpu_samples_per_s: Option<f64>,
}

/// `count` training samples from sampled positions: one random legal action each as the
/// policy target, a fixed result, each its own game's end in a long game whose every
/// position scores ½ against −½ (what a look-ahead target reads).
pub fn train_samples<G: Game>(start: &G, count: usize) -> Vec<crate::selfplay::Sample<G>> {
    let mut rng = crate::rng::Rng::new(9);
    let mut legal = Vec::new();
    sample_positions(start, count, 20, 11)
        .into_iter()
        .map(|state| {
            state.legal_actions(&mut legal);
            let a = legal[rng.below(legal.len())];
            let outcome = [1.0, -1.0, 0.0];
            let trace = crate::selfplay::Trace {
                end: state.clone(),
                outcome,
                scores: vec![Some([0.5, -0.5, 0.0]); 1024],
            };
            crate::selfplay::Sample {
                state,
                policy: vec![(a, 1.0)],
                outcome,
                game: Some((std::sync::Arc::new(trace), 0)),
            }
        })
        .collect()
}

/// `steps` batches of `batch` samples each, cycling through `data`, with the targets
/// `train` asks for.
pub fn train_batches<G: Game>(
    data: &[crate::selfplay::Sample<G>],
    shape: &NetShape,
    train: &crate::config::TrainConfig,
    (batch, steps): (usize, usize),
) -> Vec<crate::train::Batch> {
    let mut rng = crate::rng::Rng::new(9);
    (0..steps)
        .map(|i| {
            let refs: Vec<_> = (0..batch)
                .map(|k| &data[(i * batch + k) % data.len()])
                .collect();
            crate::train::make_batch(&refs, shape, train, &mut rng)
        })
        .collect()
}

/// Training steps: samples per second at `batch` samples per step, on `threads` threads;
/// with `device` a GPU, also there.
#[allow(clippy::too_many_arguments)]
pub fn train<G: Game>(
    start: &G,
    shape: &NetShape,
    batch: usize,
    steps: usize,
    rounds: usize,
    threads: usize,
    reference: bool,
    device: crate::nn::DeviceKind,
) -> anyhow::Result<TrainFigure> {
    let data = train_samples(start, 256);
    let config = crate::config::TrainConfig {
        threads,
        ..Default::default()
    };
    let batches = train_batches(&data, shape, &config, (batch, steps));
    let time = |trainer: &mut crate::train::Trainer| {
        trainer.step(&batches[0]); // warm-up
        measure("training", "samples", rounds, |_| {
            for b in &batches {
                trainer.step(b);
            }
            (steps * batch) as u64
        })
    };
    let fast = time(&mut crate::train::Trainer::new(shape.clone(), &config)?);
    let autodiff = match reference {
        true => Some(
            time(&mut crate::train::Trainer::new(shape.clone(), &config)?.with_autodiff()).median,
        ),
        false => None,
    };
    let gpu = match device {
        crate::nn::DeviceKind::Cpu => None,
        device => {
            let config = crate::config::TrainConfig { device, ..config };
            Some(time(&mut crate::train::Trainer::new(shape.clone(), &config)?).median)
        }
    };
    Ok(TrainFigure {
        what: "train",
        blocks: shape.blocks,
        channels: shape.channels,
        batch,
        threads,
        samples_per_s: fast.median,
        min: fast.min,
        max: fast.max,
        rounds,
        autodiff_samples_per_s: autodiff,
        gpu_samples_per_s: gpu,
    })
}
