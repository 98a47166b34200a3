//! `contagion report`: learning curves from a run's `metrics.jsonl`.
//!
//! Draws three panels against training wall time (minutes) into an SVG: the losses
//! (policy, value, total), the gating score of each candidate against the best, and
//! the best network's win rates against the fixed baseline and greedy. Also formats a
//! summary table, one row per iteration.

use std::path::Path;

use plotters::prelude::*;

use crate::train::metrics::{IterationMetrics, MatchResult};

type Series = (String, Vec<(f64, f64)>, RGBColor);

fn series(
    name: &str,
    m: &[IterationMetrics],
    color: RGBColor,
    f: impl Fn(&IterationMetrics) -> Option<f64>,
) -> Series {
    let points = m
        .iter()
        .filter_map(|x| f(x).map(|y| (x.minutes, y)))
        .collect();
    (name.to_string(), points, color)
}

fn panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    y_range: std::ops::Range<f64>,
    all: &[Series],
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let x_max = all
        .iter()
        .flat_map(|s| s.1.iter().map(|p| p.0))
        .fold(1e-3, f64::max);
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(45)
        .build_cartesian_2d(0.0..x_max * 1.02, y_range)
        .map_err(|e| anyhow::anyhow!("plotting: {e}"))?;
    chart
        .configure_mesh()
        .x_desc("minutes")
        .draw()
        .map_err(|e| anyhow::anyhow!("plotting: {e}"))?;
    for (name, points, color) in all {
        let color = *color;
        chart
            .draw_series(LineSeries::new(
                points.iter().copied(),
                color.stroke_width(2),
            ))
            .map_err(|e| anyhow::anyhow!("plotting: {e}"))?
            .label(name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(|e| anyhow::anyhow!("plotting: {e}"))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| anyhow::anyhow!("plotting: {e}"))?;
    Ok(())
}

/// Draws the learning curves of `m` into the SVG file `out`.
pub fn plot(m: &[IterationMetrics], title: &str, out: &Path) -> anyhow::Result<()> {
    let root = SVGBackend::new(out, (900, 1000)).into_drawing_area();
    root.fill(&WHITE)
        .map_err(|e| anyhow::anyhow!("plotting: {e}"))?;
    let root = root
        .titled(title, ("sans-serif", 22))
        .map_err(|e| anyhow::anyhow!("plotting: {e}"))?;
    let panels = root.split_evenly((3, 1));
    let trained = || m.iter().filter(|x| x.train_steps > 0);
    let loss_max = trained()
        .map(|x| x.loss_total)
        .fold(0.5, f64::max)
        .min(20.0);
    panel(
        &panels[0],
        "training loss",
        0.0..loss_max * 1.05,
        &[
            series("policy", m, BLUE, |x| {
                (x.train_steps > 0).then_some(x.loss_policy)
            }),
            series("value", m, RED, |x| {
                (x.train_steps > 0).then_some(x.loss_value)
            }),
            series("total", m, BLACK, |x| {
                (x.train_steps > 0).then_some(x.loss_total)
            }),
        ],
    )?;
    panel(
        &panels[1],
        "gating: candidate's score against the best",
        0.0..1.0,
        &[series("score", m, BLUE, |x| {
            x.gating.as_ref().map(|g| g.stats.score)
        })],
    )?;
    let baseline = m
        .iter()
        .find_map(|x| x.vs_baseline.as_ref().map(|r| r.opponent.clone()))
        .unwrap_or_else(|| "baseline".into());
    panel(
        &panels[2],
        "best network's win rate",
        0.0..1.0,
        &[
            series(&format!("vs {baseline}"), m, RED, |x| {
                x.vs_baseline.as_ref().map(MatchResult::win_rate)
            }),
            series("vs greedy", m, GREEN, |x| {
                x.vs_greedy.as_ref().map(MatchResult::win_rate)
            }),
        ],
    )?;
    root.present()
        .map_err(|e| anyhow::anyhow!("writing {}: {e}", out.display()))?;
    Ok(())
}

fn wdl(r: &Option<MatchResult>) -> String {
    r.as_ref().map_or("-".into(), MatchResult::wdl)
}

/// A summary table, one row per iteration.
pub fn table(m: &[IterationMetrics]) -> String {
    let mut out = format!(
        "{:>5} {:>7} {:>6} {:>6} {:>7} {:>7} {:>7} {:>9} {:>5} {:>9} {:>9}\n",
        "iter",
        "minutes",
        "games",
        "plies",
        "pos/s",
        "loss_p",
        "loss_v",
        "gate",
        "best",
        "baseline",
        "greedy"
    );
    for x in m {
        out += &format!(
            "{:>5} {:>7.1} {:>6} {:>6.0} {:>7.0} {:>7.3} {:>7.3} {:>9} {:>5} {:>9} {:>9}\n",
            x.iteration,
            x.minutes,
            x.games,
            x.mean_game_plies,
            x.selfplay_positions_per_second,
            x.loss_policy,
            x.loss_value,
            wdl(&x.gating) + if x.promoted { "*" } else { "" },
            x.best_iteration,
            wdl(&x.vs_baseline),
            wdl(&x.vs_greedy),
        );
    }
    out
}
