//! A run's Elo over training: some of its numbered checkpoints, each matched against a
//! fixed set of anchors (baselines, earlier bundles), each anchor against the next, and
//! one Bradley–Terry fit over every match ([`crate::arena::tournament::ratings`]) with the first
//! anchor at 0. `contagion report --anchors` prints it and draws it against the run's
//! minutes, so that a long run shows whether its later hours still help.

use std::path::{Path, PathBuf};

use plotters::prelude::*;
use serde::Serialize;

use crate::agents::{AgentSpec, Baselines};
use crate::arena::tournament::{Pairing, ratings};
use crate::arena::{MatchConfig, MatchReport, run_match};
use crate::train::{metrics, rundir};

/// How the checkpoints are measured.
#[derive(Debug, Clone)]
pub struct HistoryConfig {
    /// The anchors: fixed agents every checkpoint meets (at least one).
    pub anchors: Vec<AgentSpec>,
    /// Simulations per move of every checkpoint.
    pub sims: u32,
    /// Checkpoints measured at most, spread evenly over those the run kept (the newest
    /// always among them).
    pub points: usize,
    /// Each match: games, openings, threads.
    pub matches: MatchConfig,
}

/// One checkpoint's rating.
#[derive(Debug, Clone, Serialize)]
pub struct Point {
    /// Its iteration.
    pub iteration: u32,
    /// The run's minutes when it was saved.
    pub minutes: f64,
    /// Its Elo, the first anchor at 0.
    pub elo: f64,
    /// The standard error of [`Point::elo`].
    pub se: f64,
}

/// The run's Elo over training.
#[derive(Debug, Clone, Serialize)]
pub struct History {
    /// Each anchor's name and Elo (the first at 0).
    pub anchors: Vec<(String, f64)>,
    /// The checkpoints, in order.
    pub points: Vec<Point>,
    /// Every match played (agents: the anchors, then the checkpoints).
    pub pairings: Vec<Pairing>,
}

/// Up to `n` of `all`, evenly spread, the last always among them.
fn spread<T: Clone>(all: &[T], n: usize) -> Vec<T> {
    let len = all.len();
    if n == 0 || len <= n {
        return all.to_vec();
    }
    let mut picks: Vec<usize> = (1..=n).map(|k| k * len / n - 1).collect();
    picks.dedup();
    picks.into_iter().map(|i| all[i].clone()).collect()
}

/// Measures the run in directory `run` (of game `start`).
pub fn run_history<G: Baselines>(
    start: &G,
    run: &Path,
    config: &HistoryConfig,
) -> anyhow::Result<History> {
    anyhow::ensure!(!config.anchors.is_empty(), "--anchors names no agent");
    let store = crate::store::open(&run.display().to_string())?;
    let kept = rundir::checkpoints(store.as_ref())?;
    anyhow::ensure!(
        !kept.is_empty(),
        "{}: no numbered checkpoints (run.keep_checkpoints keeps them)",
        run.display()
    );
    let (m, _) = metrics::read(&store.location(metrics::LOG))?;
    let lines: Vec<(u32, f64)> = m.iter().map(|x| (x.iteration, x.minutes)).collect();
    let minutes = |it: u32| minutes_at(&lines, it);
    let chosen = spread(&kept, config.points);
    let a = config.anchors.len();
    let mut pairings = Vec::new();
    for i in 1..a {
        let (x, y) = (&config.anchors[i - 1], &config.anchors[i]);
        let report = run_match(start, x, y, &config.matches)?;
        pairings.push(pair(i - 1, i, report));
    }
    for (k, (_, key)) in chosen.iter().enumerate() {
        let model = AgentSpec::model(store.location(key), config.sims);
        for (j, anchor) in config.anchors.iter().enumerate() {
            let report = run_match(start, &model, anchor, &config.matches)?;
            pairings.push(pair(a + k, j, report));
        }
    }
    let r = ratings(a + chosen.len(), &pairings);
    let zero = r[0].0;
    Ok(History {
        anchors: (config.anchors.iter().zip(&r))
            .map(|(spec, &(elo, _))| (spec.to_string(), elo - zero))
            .collect(),
        points: (chosen.iter().zip(&r[a..]))
            .map(|(&(iteration, _), &(elo, se))| Point {
                iteration,
                minutes: minutes(iteration),
                elo: elo - zero,
                se,
            })
            .collect(),
        pairings,
    })
}

/// The minutes a run had trained by the end of iteration `it`, from its metrics lines
/// (`(iteration, minutes)`): that iteration's, or for a checkpoint whose line was never
/// written (a run stopped between the two) the last one's before it; 0 with none.
fn minutes_at(lines: &[(u32, f64)], it: u32) -> f64 {
    (lines.iter().filter(|&&(i, _)| i <= it))
        .max_by_key(|&&(i, _)| i)
        .map_or(0.0, |&(_, minutes)| minutes)
}

fn pair(a: usize, b: usize, report: MatchReport) -> Pairing {
    Pairing {
        a,
        b,
        report,
        sprt: None,
    }
}

/// The history as a Markdown table: the anchors, then one row per checkpoint.
pub fn table(h: &History) -> String {
    let mut out = String::from("| agent | minutes | Elo (± 95%) |\n|---|---:|---|\n");
    for (name, elo) in &h.anchors {
        out += &format!("| anchor `{name}` | | {elo:+.0} |\n");
    }
    for p in &h.points {
        out += &format!(
            "| iteration {} | {:.1} | {:+.0} ± {:.0} |\n",
            p.iteration,
            p.minutes,
            p.elo,
            1.96 * p.se
        );
    }
    out
}

fn err(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow::anyhow!("plotting: {e}")
}

/// Draws the checkpoints' Elo against the run's minutes, with 95% intervals, and each
/// anchor as a level line, as an SVG at `out` and a PNG beside it.
pub fn plot(h: &History, title: &str, out: &Path) -> anyhow::Result<Option<PathBuf>> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 520)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let x_hi = h.points.iter().map(|p| p.minutes).fold(1.0, f64::max) * 1.05;
        let ys = (h.points.iter())
            .flat_map(|p| {
                [
                    p.elo - 1.96 * p.se.min(400.0),
                    p.elo + 1.96 * p.se.min(400.0),
                ]
            })
            .chain(h.anchors.iter().map(|a| a.1));
        let (lo, hi) = ys.fold((0.0f64, 0.0f64), |(l, u), y| (l.min(y), u.max(y)));
        let pad = ((hi - lo) * 0.08).max(20.0);
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(15)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..x_hi, lo - pad..hi + pad)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("training minutes")
            .y_desc(format!("Elo ({} = 0)", h.anchors[0].0))
            .draw()
            .map_err(err)?;
        let colors = [RGBColor(230, 120, 0), RGBColor(130, 60, 170), RED, GREEN];
        for (k, (name, elo)) in h.anchors.iter().enumerate() {
            let color = colors[k % colors.len()];
            chart
                .draw_series([PathElement::new(vec![(0.0, *elo), (x_hi, *elo)], color)])
                .map_err(err)?
                .label(format!("anchor {name}"))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 25, y)], color));
        }
        let centre = |p: &Point| (p.minutes, p.elo);
        chart
            .draw_series(LineSeries::new(
                h.points.iter().map(centre),
                BLUE.stroke_width(2),
            ))
            .map_err(err)?
            .label("the run's checkpoints")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 25, y)], BLUE.stroke_width(3)));
        for p in &h.points {
            let half = 1.96 * p.se.min(400.0);
            chart
                .draw_series([PathElement::new(
                    vec![(p.minutes, p.elo - half), (p.minutes, p.elo + half)],
                    BLUE,
                )])
                .map_err(err)?;
            chart
                .draw_series([Circle::new(centre(p), 4, BLUE.filled())])
                .map_err(err)?;
        }
        crate::figure::finish(chart, &root)?;
    }
    crate::figure::save_svg(&svg, out)
}

/// `contagion report --anchors`: the checkpoints of the run in `run` measured
/// ([`run_history`]), printed as a table, drawn at `out` under the run's `name`, and
/// written as JSON beside it.
pub fn elo_over_training<G: Baselines>(
    start: &G,
    run: &Path,
    config: &HistoryConfig,
    name: &str,
    out: &Path,
) -> anyhow::Result<()> {
    let h = run_history(start, run, config)?;
    print!("\n{}", table(&h));
    let title = format!("{name} — Elo over training");
    let drawn = plot(&h, &title, out)?;
    super::say_written("Elo over training", out, drawn);
    crate::framing::write_atomic(
        &out.with_extension("json"),
        serde_json::to_string_pretty(&h)?.as_bytes(),
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoints_are_spread_evenly_and_the_newest_is_kept() {
        let all: Vec<u32> = (1..=30).collect();
        assert_eq!(spread(&all, 3), [10, 20, 30]);
        assert_eq!(spread(&all, 4), [7, 15, 22, 30]);
        assert_eq!(spread(&all[..2], 5), [1, 2]);
        assert_eq!(spread(&all, 1), [30]);
    }

    #[test]
    fn a_checkpoint_without_its_metrics_line_takes_the_last_minutes_before_it() {
        let lines = [(1, 0.5), (2, 1.0), (3, 1.5)];
        assert_eq!(minutes_at(&lines, 2), 1.0);
        assert_eq!(minutes_at(&lines, 4), 1.5);
        assert_eq!(minutes_at(&lines[1..], 1), 0.0);
    }
}
