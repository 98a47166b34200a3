//! The evaluator's training speed (`contagion bench distill`): positions a second through
//! the hand-derived sparse step, their features read as the distillation reads them
//! (each through a random symmetry, on every core), beside burn's autodiff step on the
//! same batches.

use std::time::Instant;

use super::command::Line;
use super::nnue::positions;
use super::options::DistillBenchOptions;
use crate::games::Game;
use crate::nn::nnue::autodiff::{BurnTrainer, EvalTraining};
use crate::nn::nnue::step::{SparseBatch, SparseTrainer};
use crate::rng::Rng;
use crate::train::distill::{fill_batch, shape_of};

/// What the training bench measured.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DistillRate {
    /// The shape: inputs, hidden, dense, outputs.
    pub shape: [usize; 4],
    /// The feature set's name.
    pub features: String,
    /// The activation's name.
    pub activation: String,
    /// Whether each seat has an accumulator (the perspective form).
    pub perspective: bool,
    /// Positions a step.
    pub batch: usize,
    /// Threads.
    pub threads: usize,
    /// Positions a second through the step alone (median of the rounds).
    pub step: f64,
    /// Positions a second whose features are read (every core).
    pub features_rate: f64,
    /// Positions a second, both (reading then stepping, as a distillation does).
    pub both: f64,
    /// burn's autodiff step on the same batches, where asked.
    pub burn: Option<f64>,
    /// Rounds timed.
    pub rounds: usize,
}

impl std::fmt::Display for DistillRate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [i, h, d, o] = self.shape;
        let dense = match d {
            0 => String::new(),
            d => format!("→{d}"),
        };
        write!(
            f,
            "evaluator training {i}→{h}{dense}→{o} ({}, {}{}), batch {}, {} threads: step {:.0} positions/s, features {:.0}/s, both {:.0}/s",
            self.features,
            self.activation,
            if self.perspective {
                ", perspective"
            } else {
                ""
            },
            self.batch,
            self.threads,
            self.step,
            self.features_rate,
            self.both
        )?;
        if let Some(b) = self.burn {
            write!(
                f,
                "; burn's autodiff step {b:.0}/s ({:.1}x slower)",
                self.step / b
            )?;
        }
        write!(f, " (median of {} rounds)", self.rounds)
    }
}

/// The median of `v`.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The training bench on random games' positions of `start`'s game.
pub fn distill<G: Game>(
    start: &G,
    o: &DistillBenchOptions,
    rounds: usize,
) -> anyhow::Result<Vec<Line>> {
    let settings = crate::config::DistillConfig {
        features: o.features,
        activation: o.activation,
        perspective: o.perspective,
        hidden: o.hidden,
        dense: o.dense,
        ..Default::default()
    };
    let shape = shape_of(start, &settings)?;
    let batch = o.batch as usize;
    let states = positions(start, batch.min(50_000));
    let mut rng = Rng::new(7);
    let syms = start.augmentation_symmetries().max(1);
    let target: Vec<f32> = (0..shape.outputs).map(|k| 0.3 - 0.2 * k as f32).collect();
    let make = |rng: &mut Rng, out: &mut SparseBatch| {
        let items: Vec<(&G, usize, &[f32])> = (0..batch)
            .map(|_| {
                (
                    &states[rng.below(states.len())],
                    rng.below(syms),
                    &target[..],
                )
            })
            .collect();
        fill_batch(out, o.features, &items);
    };
    let mut trainer = SparseTrainer::new(shape.clone(), 1);
    let mut batches = vec![SparseBatch::for_shape(&shape); o.steps as usize];
    let (mut steps, mut reads) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = Instant::now();
        batches.iter_mut().for_each(|b| make(&mut rng, b));
        reads.push((batch * batches.len()) as f64 / t.elapsed().as_secs_f64());
        let t = Instant::now();
        for b in &batches {
            trainer.step(b, 1e-3)?;
        }
        steps.push((batch * batches.len()) as f64 / t.elapsed().as_secs_f64());
    }
    let burn = match o.reference {
        false => None,
        true => {
            let mut burn = BurnTrainer::from_net(trainer.net());
            let t = Instant::now();
            for b in &batches {
                burn.step(b, 1e-3)?;
            }
            Some((batch * batches.len()) as f64 / t.elapsed().as_secs_f64())
        }
    };
    let (step, read) = (median(steps), median(reads));
    let rate = DistillRate {
        shape: [shape.inputs, shape.hidden, shape.dense, shape.outputs],
        features: o.features.name().into(),
        activation: o.activation.name().into(),
        perspective: o.perspective,
        batch,
        threads: rayon::current_num_threads(),
        step,
        features_rate: read,
        both: 1.0 / (1.0 / step + 1.0 / read),
        burn,
        rounds,
    };
    Ok(vec![Line::of(&rate)?])
}
