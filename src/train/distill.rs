//! Distillation: the fast evaluator ([`crate::nn::nnue`]) trained on the positions of
//! self-play games, the replay shards a run writes (local or S3) or
//! [`crate::selfplay::generate`] makes.
//!
//! Each position's target, for each seat relative to the mover, is
//! `λ · result + τ · teacher value + (1 − λ − τ) · search value` (the game's result, a
//! teacher network's own value of the position, and the root's value from the search
//! that played it; a position the search proved takes its proven result).
//! The positions are read whole, each once, or streamed through a bounded buffer
//! (`distill.stream`, `distill_data`); a share is held out by hash for the validation
//! loss, and every training step maps each position through a random symmetry. The model is the evaluator's float form (a linear layer
//! over the multi-hot features, clipped, a dense layer, clipped, one tanh a seat); its
//! mean squared error falls step by step, by the hand-derived sparse step or by burn's
//! autodiff (`distill.trainer`, [`crate::nn::nnue::autodiff::Trainer`]). At the end it
//! is quantised, the integer form is measured against the float one on the held-out
//! positions of the games, and the bundle is written ([`crate::nn::nnue::bundle`]).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::bail;

use super::distill_data::{Position, Stream, cut_of, held_out, read_positions};
use crate::agents::Baselines;
use crate::config::DistillConfig;
use crate::games::{Game, MAX_PLAYERS};
use crate::nn::nnue::autodiff::EvalTraining;
use crate::nn::nnue::bundle::{self, Agreement, Lineage};
use crate::nn::nnue::features::Features;
use crate::nn::nnue::graft;
use crate::nn::nnue::step::SparseBatch;
use crate::nn::nnue::{EvalShape, Evaluator, FeatureSet, FloatNet};
use crate::progress::Progress;
use crate::rng::Rng;

/// What a distillation is asked to do.
#[derive(Debug, Clone)]
pub struct DistillOptions {
    /// Where the games are: run directories or stores (their `replay/` shards and
    /// `games/` records).
    pub data: Vec<String>,
    /// The bundle directory to write.
    pub out: PathBuf,
    /// The name the bundle is listed under (default: the directory's name).
    pub name: Option<String>,
    /// The `[distill]` settings.
    pub settings: DistillConfig,
    /// The teacher network whose value of each position takes `teacher_value` of the
    /// target (needed when that share is above 0).
    pub teacher: Option<crate::nn::Net>,
    /// The weights to train on from (of the shape `settings` make, or the squares' where
    /// they add the 2×2 windows: [`graft`]); `None`: weights drawn from `seed`.
    pub init: Option<FloatNet>,
    /// The line it extends: its parent, and the positions, generations and minutes
    /// before this training (which adds its own positions and minutes).
    pub lineage: Lineage,
    /// Seeds the split, the order, the symmetries and the first weights.
    pub seed: u64,
    /// Show a progress bar.
    pub progress: bool,
}

/// Where the training positions come from.
enum Source<G> {
    /// Read whole, each once.
    Memory(Vec<Position<G>>),
    /// Streamed through a bounded buffer (`distill.stream`).
    Stream(Stream<G>),
}

/// What a distillation measured.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DistillReport {
    /// Games read.
    pub games: usize,
    /// Positions trained on (distinct unless streamed).
    pub train_positions: usize,
    /// Held out.
    pub validation_positions: usize,
    /// Of those (trained on and held out), the positions off the games' lines
    /// (`distill.branches`).
    pub branch_positions: usize,
    /// The validation loss (mean squared error a seat) before training and after each epoch.
    pub validation_loss: Vec<f64>,
    /// The training loss of each epoch (mean over its steps).
    pub train_loss: Vec<f64>,
    /// The integer form against the float one.
    pub agreement: Agreement,
    /// Training steps taken.
    pub steps: u64,
    /// Seconds spent.
    pub seconds: f64,
}

/// The most random plies a branch plays from a game's position (`distill.branches`).
pub const BRANCH_PLIES: usize = 4;

/// `per` positions from each of `positions`, each 1 to [`BRANCH_PLIES`] random plies
/// away from it (a game over before then is not taken), none already among them; their
/// targets are left at 0 for the teacher to fill.
fn branch<G: Game>(positions: &[Position<G>], per: u32, seed: u64) -> Vec<Position<G>> {
    let mut rng = Rng::new(seed ^ 0xb4a2_c7e1);
    let mut seen: std::collections::HashSet<u64> =
        positions.iter().map(|p| p.state.hash()).collect();
    let mut out = Vec::new();
    let mut moves = Vec::new();
    for p in positions {
        'walk: for _ in 0..per {
            let mut state = p.state.clone();
            for _ in 0..=rng.below(BRANCH_PLIES) {
                moves.clear();
                state.legal_actions(&mut moves);
                if state.outcome().is_some() || moves.is_empty() {
                    continue 'walk;
                }
                let m = moves[rng.below(moves.len())];
                if state.apply(m).is_err() {
                    continue 'walk;
                }
            }
            if state.outcome().is_none() && seen.insert(state.hash()) {
                out.push(Position {
                    state,
                    target: [0.0; MAX_PLAYERS],
                    branch: true,
                });
            }
        }
    }
    out
}

/// Mixes the teacher network's value of each position into its target with weight
/// `share`: `(1 − share) · target + share · teacher`, both relative to the mover.
fn teach<G: Game>(
    teacher: &crate::nn::Net,
    positions: &mut [Position<G>],
    share: f32,
    progress: bool,
) {
    let Some(first) = positions.first() else {
        return;
    };
    let (len, players) = (teacher.shape.input_len(), first.state.num_players());
    const BATCH: usize = 256;
    let bar = Progress::new(
        "teacher",
        positions.len().div_ceil(BATCH) as u64,
        "batches",
        progress,
    );
    for chunk in positions.chunks_mut(BATCH) {
        let mut input = vec![0.0f32; chunk.len() * len];
        for (p, row) in chunk.iter().zip(input.chunks_mut(len)) {
            p.state.encode(row);
        }
        let out = teacher.infer(input, chunk.len());
        for (p, v) in chunk.iter_mut().zip(out.values.chunks(players)) {
            for (t, &v) in p.target.iter_mut().zip(v) {
                *t = (1.0 - share) * *t + share * v;
            }
        }
        bar.inc();
    }
    bar.finish();
}

/// `batch` filled with the features of each `(state, symmetry, targets)` of
/// `positions` under `set` (in each of the batch's views), read on every core.
pub fn fill_batch<G: Game>(
    batch: &mut SparseBatch,
    set: FeatureSet,
    positions: &[(&G, usize, &[f32])],
) {
    use rayon::prelude::*;
    batch.clear();
    let views = batch.views();
    let parts: Vec<SparseBatch> = (positions.par_chunks(256))
        .map(|chunk| {
            let mut part = SparseBatch::new(batch.outputs(), views);
            let (mut scratch, mut active) = (Vec::new(), vec![Features::default(); views]);
            for &(state, sym, target) in chunk {
                let turned;
                let state = match sym {
                    0 => state,
                    s => {
                        turned = state.transform(s);
                        &turned
                    }
                };
                set.fill_views(state, &mut scratch, &mut active);
                part.push(active.iter().map(|a| a.iter()), target);
            }
            part
        })
        .collect();
    parts.iter().for_each(|p| batch.append(p));
}

/// `batch` filled with `positions`, position `i` through symmetry `sym(i)`.
fn fill<G: Game>(
    batch: &mut SparseBatch,
    positions: &[&Position<G>],
    shape: &EvalShape,
    sym: impl Fn(usize) -> usize,
) {
    let items: Vec<(&G, usize, &[f32])> = (positions.iter().enumerate())
        .map(|(i, p)| (&p.state, sym(i), &p.target[..]))
        .collect();
    fill_batch(batch, shape.features, &items);
}

/// The mean squared error a seat of `trainer`'s weights on `positions` (no symmetry).
fn loss_on<G: Game>(
    trainer: &dyn EvalTraining,
    positions: &[Position<G>],
    shape: &EvalShape,
) -> anyhow::Result<f64> {
    let (mut sum, mut count) = (0.0, 0usize);
    let mut batch = SparseBatch::for_shape(shape);
    for chunk in positions.chunks(4096) {
        let refs: Vec<&Position<G>> = chunk.iter().collect();
        fill(&mut batch, &refs, shape, |_| 0);
        sum += trainer.squared_error(&batch)?;
        count += chunk.len() * shape.outputs;
    }
    Ok(sum / count.max(1) as f64)
}

/// The integer form of `net` against the float one on up to 10,000 of `positions`.
pub fn agreement<G: Game>(net: &FloatNet, positions: impl Iterator<Item = G>) -> Agreement {
    let eval = Evaluator::new(net);
    let mut scratch = Default::default();
    let (mut n, mut diff, mut same) = (0usize, 0.0f64, 0usize);
    for state in positions.take(10_000) {
        let views = (net.shape.features).views_of(&state, net.shape.views());
        let accs = eval.accumulators(&views, &mut scratch);
        let int = eval.evaluate(&accs, &mut scratch)[0];
        let float = net.evaluate(&views)[0];
        diff += (int - float).abs() as f64;
        same += usize::from((int >= 0.0) == (float >= 0.0));
        n += 1;
    }
    Agreement {
        positions: n,
        mean_abs_diff: diff / n.max(1) as f64,
        sign_agreement: same as f64 / n.max(1) as f64,
    }
}

/// The evaluator's shape for `start`'s game under `c`.
pub fn shape_of<G: Game>(start: &G, c: &DistillConfig) -> anyhow::Result<EvalShape> {
    let shape = EvalShape {
        game: start.name().into(),
        inputs: c.features.inputs(start)?,
        hidden: c.hidden as usize,
        dense: c.dense as usize,
        outputs: start.num_players(),
        features: c.features,
        activation: c.activation,
        perspective: c.perspective,
    };
    shape.check()?;
    Ok(shape)
}

/// Trains an evaluator for `start`'s game on the games of `opts.data` and writes its
/// bundle to `opts.out`.
pub fn distill<G: Baselines>(start: &G, opts: &DistillOptions) -> anyhow::Result<DistillReport> {
    let t0 = Instant::now();
    let c = &opts.settings;
    let shape = shape_of(start, c)?;
    let init = (opts.init.as_ref())
        .map(|net| graft::carried(net, &shape))
        .transpose()?;
    // The teacher is checked before the data is read.
    let teacher = match &opts.teacher {
        _ if c.teacher_value <= 0.0 && c.branches == 0 => None,
        None if c.branches > 0 => bail!(
            "distill.branches = {}: needs a teacher network (--teacher) to label them",
            c.branches
        ),
        None => bail!(
            "distill.teacher_value = {}: needs a teacher network (--teacher)",
            c.teacher_value
        ),
        Some(t) if !t.shape.plays(start) => bail!(
            "the teacher plays '{}', the data's game is '{}'",
            t.shape.game,
            start.name()
        ),
        Some(t) => Some(t),
    };
    let teacher_share =
        (teacher.filter(|_| c.teacher_value > 0.0)).map(|t| (t, c.teacher_value as f32));
    let (games, mut held, source, branch_positions) = match c.stream {
        0 => {
            let (games, mut positions) = read_positions(start, &opts.data, c)?;
            if let Some((t, share)) = teacher_share {
                teach(t, &mut positions, share, opts.progress);
            }
            let mut branched = 0;
            if let Some(teacher) = teacher.filter(|_| c.branches > 0) {
                let mut branches = branch(&positions, c.branches, opts.seed);
                teach(teacher, &mut branches, 1.0, opts.progress);
                branched = branches.len();
                positions.extend(branches);
            }
            let cut = cut_of(c.validation);
            let (held, train): (Vec<_>, Vec<_>) =
                (positions.into_iter()).partition(|p| held_out(&p.state, cut, opts.seed));
            (games, held, Source::Memory(train), branched)
        }
        capacity => {
            if c.branches > 0 {
                bail!(
                    "distill.branches = {}: the branches need every position in memory (distill.stream = 0)",
                    c.branches
                );
            }
            if c.validation <= 0.0 {
                bail!(
                    "distill.stream = {capacity}: needs held-out positions (distill.validation > 0) to measure the integer form on"
                );
            }
            let (stream, held) = Stream::open(start, &opts.data, c, opts.seed, capacity as usize)?;
            (stream.games, held, Source::Stream(stream), 0)
        }
    };
    if let (Some((t, share)), Source::Stream(_)) = (teacher_share, &source) {
        teach(t, &mut held, share, opts.progress);
    }
    let train_positions = match &source {
        Source::Memory(train) => train.len(),
        Source::Stream(stream) => stream.positions,
    };
    anyhow::ensure!(
        train_positions > 0,
        "no positions to train on ({games} games read)"
    );
    let mut trainer = match &init {
        Some(net) => c.trainer.start_from(net),
        None => c.trainer.start(&shape, opts.seed),
    };
    let (mut order_rng, mut sym_rng) = (Rng::new(opts.seed), Rng::new(Rng::derive(opts.seed, 1)));
    let syms = start.augmentation_symmetries().max(1);
    let batch_size = c.batch_size as usize;
    let steps_per_epoch = train_positions.div_ceil(batch_size);
    let total = steps_per_epoch as u64 * c.epochs as u64;
    let progress = Progress::new("distill", total, "steps", opts.progress);
    let mut report = DistillReport {
        games,
        train_positions,
        validation_positions: held.len(),
        branch_positions,
        validation_loss: vec![loss_on(&*trainer, &held, &shape)?],
        train_loss: Vec::new(),
        agreement: Agreement {
            positions: 0,
            mean_abs_diff: 0.0,
            sign_agreement: 0.0,
        },
        steps: 0,
        seconds: 0.0,
    };
    let mut order: Vec<usize> = match &source {
        Source::Memory(train) => (0..train.len()).collect(),
        Source::Stream(_) => Vec::new(),
    };
    let mut batch = SparseBatch::for_shape(&shape);
    for _ in 0..c.epochs {
        let mut epoch_loss = 0.0;
        let mut step = |positions: &[&Position<G>]| -> anyhow::Result<()> {
            let s: Vec<usize> = (0..positions.len()).map(|_| sym_rng.below(syms)).collect();
            fill(&mut batch, positions, &shape, |i| s[i]);
            let progress_share = (report.steps as f64 / total.max(1) as f64).min(1.0);
            let cosine = 0.5 * (1.0 + (std::f64::consts::PI * progress_share).cos());
            let lr = c.learning_rate * (0.1 + 0.9 * cosine);
            epoch_loss += trainer.step(&batch, lr)?;
            report.steps += 1;
            progress.inc();
            Ok(())
        };
        match &source {
            Source::Memory(train) => {
                order_rng.shuffle(&mut order);
                for chunk in order.chunks(batch_size) {
                    step(&chunk.iter().map(|&i| &train[i]).collect::<Vec<_>>())?;
                }
            }
            Source::Stream(stream) => stream.pass(&mut order_rng, batch_size, |chunk| {
                if let Some((t, share)) = teacher_share {
                    teach(t, chunk, share, false);
                }
                step(&chunk.iter().collect::<Vec<_>>())
            })?,
        }
        report
            .train_loss
            .push(epoch_loss / steps_per_epoch.max(1) as f64);
        (report.validation_loss).push(loss_on(&*trainer, &held, &shape)?);
    }
    progress.finish();
    let net = trainer.float_net();
    // The integer form is measured on positions of the games (held out where any are).
    let played: Vec<G> = match (&source, held.iter().any(|p| !p.branch)) {
        (Source::Memory(train), false) => train
            .iter()
            .filter(|p| !p.branch)
            .map(|p| p.state.clone())
            .take(10_000)
            .collect(),
        _ => held
            .iter()
            .filter(|p| !p.branch)
            .map(|p| p.state.clone())
            .take(10_000)
            .collect(),
    };
    report.agreement = agreement(&net, played.into_iter());
    report.seconds = t0.elapsed().as_secs_f64();
    let name = opts.name.clone().unwrap_or_else(|| {
        (opts.out.file_name()).map_or("evaluator".into(), |n| n.to_string_lossy().into_owned())
    });
    let training = serde_json::json!({
        "data": opts.data,
        "settings": c,
        "seed": opts.seed,
        "games": report.games,
        "train_positions": report.train_positions,
        "validation_positions": report.validation_positions,
        "branch_positions": report.branch_positions,
        "validation_loss": report.validation_loss,
        "steps": report.steps,
        "seconds": report.seconds.round(),
    });
    bundle::write(
        &opts.out,
        &name,
        &net,
        start.settings(),
        Some(report.agreement.clone()),
        training,
        Some((opts.lineage).trained(report.train_positions as u64, report.seconds)),
    )?;
    Ok(report)
}
