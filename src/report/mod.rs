//! `contagion report`: learning curves from a run's `metrics.jsonl`.
//!
//! Four panels against training wall time (minutes): scores (the best network against
//! the fixed baseline and greedy, each candidate against the best and, at the gate,
//! against the baseline, and the network's recent score in its own self-play against
//! each member of its league), mean self-play game length, the training losses, and the
//! learning rate. Each panel's legend stands to the right of its plot, never over the
//! data. Written as SVG, then rasterised to PNG beside it with `resvg`, using the
//! DejaVu Sans font embedded in the binary (no system fonts needed). Also formats a
//! summary table, one row per iteration.
//!
//! - [`history`]: a run's Elo over training against fixed anchors (`report --anchors`).

pub mod history;

use std::path::{Path, PathBuf};

use plotters::prelude::*;

use crate::nn::heads::HEADS;
use crate::selfplay::league::League;
use crate::train::metrics::{IterationMetrics, MatchResult};

type Series = (String, Vec<(f64, f64)>, RGBColor);

const WIDTH: u32 = 1100;
const PANEL_HEIGHT: u32 = 300;
/// The width of each panel's legend column, right of the plot.
const LEGEND_WIDTH: u32 = 300;
const ORANGE: RGBColor = RGBColor(230, 120, 0);
const PURPLE: RGBColor = RGBColor(130, 60, 170);

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

fn err(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow::anyhow!("plotting: {e}")
}

/// A y tick's label with the digits that tell ticks apart: up to three decimals without
/// trailing zeros, and below 0.01 (a learning rate) in scientific notation, where
/// plotters' default would print 0.00009 as 0.0001.
fn tick(v: &f64) -> String {
    if *v != 0.0 && v.abs() < 0.01 {
        let text = format!("{v:.1e}");
        return text.replace(".0e", "e");
    }
    let text = format!("{v:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// One panel: the plot on the left, its legend in a column on the right; its x axis
/// runs to `x_max`, the run's last minute, in every panel alike.
fn panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    x_max: f64,
    title: &str,
    y_desc: &str,
    y_range: std::ops::Range<f64>,
    all: &[Series],
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let (plot, legend) = area.split_horizontally(WIDTH - LEGEND_WIDTH);
    let mut chart = ChartBuilder::on(&plot)
        .caption(title, ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..x_max * 1.02, y_range)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("minutes of training")
        .y_desc(y_desc)
        .y_label_formatter(&tick)
        .draw()
        .map_err(err)?;
    for (_, points, color) in all {
        let color = *color;
        chart
            .draw_series(LineSeries::new(
                points.iter().copied(),
                color.stroke_width(2),
            ))
            .map_err(err)?;
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(err)?;
    }
    for (k, (name, points, color)) in all.iter().enumerate() {
        let y = 50 + 24 * k as i32;
        let style = color.stroke_width(3);
        legend
            .draw(&PathElement::new(vec![(10, y), (40, y)], style))
            .map_err(err)?;
        let label = if points.is_empty() {
            format!("{name}: none")
        } else {
            name.clone()
        };
        legend
            .draw(&Text::new(label, (48, y - 8), ("sans-serif", 15)))
            .map_err(err)?;
    }
    Ok(())
}

/// Draws the learning curves of `m` as an SVG at `out` and a PNG beside it (same name,
/// `.png`; feature `png`, on by default); returns the PNG's path if one was written.
pub fn plot(m: &[IterationMetrics], title: &str, out: &Path) -> anyhow::Result<Option<PathBuf>> {
    let mut svg = String::new();
    {
        let root =
            SVGBackend::with_string(&mut svg, (WIDTH, 4 * PANEL_HEIGHT + 40)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let root = root.titled(title, ("sans-serif", 22)).map_err(err)?;
        let panels = root.split_evenly((4, 1));
        let x_max = m.iter().map(|x| x.minutes).fold(1e-3, f64::max);
        let score = |r: &Option<MatchResult>| r.as_ref().map(|r| r.stats.score);
        let baseline = m
            .iter()
            .find_map(|x| x.vs_baseline.as_ref().map(|r| r.opponent.clone()))
            .unwrap_or_else(|| "baseline".into());
        let mut scores = vec![
            series(&format!("best vs {baseline}"), m, RED, |x| {
                score(&x.vs_baseline)
            }),
            series("best vs greedy", m, GREEN, |x| score(&x.vs_greedy)),
            series("candidate vs best", m, BLUE, |x| score(&x.gating)),
            series("candidate vs baseline", m, ORANGE, |x| {
                score(&x.gate_candidate_vs_baseline)
            }),
        ];
        scores.extend(league_series(m));
        panel(
            &panels[0],
            x_max,
            "scores (1 = every game won)",
            "score",
            0.0..1.0,
            &scores,
        )?;
        let plies_max = m.iter().map(|x| x.mean_game_plies).fold(1.0, f64::max);
        panel(
            &panels[1],
            x_max,
            "self-play game length",
            "plies",
            0.0..plies_max * 1.1,
            &[series("mean plies per game", m, PURPLE, |x| {
                (x.games > 0).then_some(x.mean_game_plies)
            })],
        )?;
        let trained = || m.iter().filter(|x| x.train_steps > 0);
        let loss_max = trained()
            .map(|x| x.loss_total)
            .fold(0.5, f64::max)
            .min(20.0);
        let loss = |f: fn(&IterationMetrics) -> f64| {
            move |x: &IterationMetrics| (x.train_steps > 0).then_some(f(x))
        };
        let mut losses = vec![
            series("policy", m, BLUE, loss(|x| x.loss_policy)),
            series("value", m, RED, loss(|x| x.loss_value)),
            series("total", m, BLACK, loss(|x| x.loss_total)),
        ];
        // The auxiliary heads' losses, where the network has them, each in its colour.
        let colours = [GREEN, ORANGE, MAGENTA, CYAN, YELLOW];
        for (head, &colour) in HEADS.iter().zip(colours.iter().cycle()) {
            let f = |x: &IterationMetrics| x.loss_aux.0[head.aux];
            if m.iter().any(|x| f(x) != 0.0) {
                losses.push(series(head.label, m, colour, move |x| {
                    (x.train_steps > 0).then_some(f(x))
                }));
            }
        }
        panel(
            &panels[2],
            x_max,
            "training loss",
            "loss",
            0.0..loss_max * 1.05,
            &losses,
        )?;
        let lr_max = trained().map(|x| x.learning_rate).fold(1e-6, f64::max);
        panel(
            &panels[3],
            x_max,
            "learning rate",
            "rate",
            0.0..lr_max * 1.1,
            &[series("learning rate", m, BLACK, loss(|x| x.learning_rate))],
        )?;
        root.present().map_err(err)?;
    }
    crate::figure::save_svg(&svg, out)
}

/// The network's recent score in its own self-play against each member of its league
/// (in the order the log first names them): the score its draw weighs by, moved toward
/// each iteration's results ([`League::record`]), where it met the member.
fn league_series(m: &[IterationMetrics]) -> Vec<Series> {
    let mut members: Vec<String> = Vec::new();
    for r in m.iter().flat_map(|x| &x.league) {
        if !members.contains(&r.opponent) {
            members.push(r.opponent.clone());
        }
    }
    // A log naming agents this build does not know draws no league lines.
    let Ok(mut league) = League::parse(&members.join(" "), 1.0) else {
        return Vec::new();
    };
    let mut points = vec![Vec::new(); members.len()];
    for x in m {
        league.record(&x.league);
        for r in x.league.iter().filter(|r| r.games > 0) {
            if let Some(k) = members.iter().position(|n| *n == r.opponent) {
                points[k].push((x.minutes, league.scores[k]));
            }
        }
    }
    let colours = [PURPLE, MAGENTA, CYAN, BLACK, RGBColor(120, 90, 40)];
    (members.iter().zip(points).zip(colours.iter().cycle()))
        .map(|((member, points), &colour)| (format!("self-play vs {member}"), points, colour))
        .collect()
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
    out + &time_shares(m)
}

/// Where the iterations' time went, summed over those that record it (metrics written
/// before the phase timings have none): a line, or nothing.
pub fn time_shares(m: &[IterationMetrics]) -> String {
    let timed: Vec<_> = m.iter().filter(|x| x.train_seconds > 0.0).collect();
    let sum = |f: fn(&IterationMetrics) -> f64| timed.iter().map(|x| f(x)).sum::<f64>();
    let (games, train, batches, gating) = (
        sum(|x| x.selfplay_seconds),
        sum(|x| x.train_seconds),
        sum(|x| x.batch_seconds),
        sum(|x| x.gating_seconds),
    );
    let all = games + train + gating;
    if timed.is_empty() || all <= 0.0 {
        return String::new();
    }
    let pct = |v: f64| 100.0 * v / all;
    format!(
        "time over {} iterations ({:.1} min): games {:.0}%, training {:.0}% (building batches {:.1}%), gating and baselines {:.0}%\n",
        timed.len(),
        all / 60.0,
        pct(games),
        pct(train),
        pct(batches),
        pct(gating)
    )
}

/// `contagion report`: the metrics of the run in `run` printed as a table and drawn as
/// learning curves at `out` (default: the run's `curves.svg`; a PNG path puts the SVG
/// beside it). Returns the run's name and where the curves went.
pub fn curves(run: &Path, out: Option<&Path>) -> anyhow::Result<(String, PathBuf)> {
    let (m, bad) = crate::train::metrics::read(&run.join("metrics.jsonl"))?;
    anyhow::ensure!(
        !m.is_empty(),
        "{}: no iterations recorded yet",
        run.display()
    );
    if bad > 0 {
        eprintln!("note: skipped {bad} unreadable line(s) in metrics.jsonl");
    }
    print!("{}", table(&m));
    let out = out.map_or_else(|| run.join("curves.svg"), Path::to_path_buf);
    // Asked for the PNG by name: the SVG goes beside it rather than into it.
    let out = match out.extension() {
        Some(e) if e.eq_ignore_ascii_case("png") => out.with_extension("svg"),
        _ => out,
    };
    let name = run_name(run);
    let title = format!("{name} — learning curves");
    let drawn = plot(&m, &title, &out)?;
    say_written("curves", &out, drawn);
    Ok((name, out))
}

/// The run's name, not the path it was given by (`/tmp/…/ataxx` is `ataxx`).
pub fn run_name(run: &Path) -> String {
    (run.canonicalize().ok())
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| run.display().to_string())
}

/// Says which files were written: the SVG, and the PNG beside it where this build makes
/// one.
pub fn say_written(what: &str, svg: &Path, png: Option<PathBuf>) {
    match png {
        Some(png) => println!("{what} written to {} and {}", svg.display(), png.display()),
        None => println!(
            "{what} written to {} (this build has no PNG output: feature `png`)",
            svg.display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::tick;

    #[test]
    fn tick_labels_tell_small_values_apart() {
        let labels: Vec<String> = [0.00009, 0.0001, 0.000015, 0.0, 0.05, 1.5, 100.0]
            .iter()
            .map(tick)
            .collect();
        assert_eq!(
            labels,
            ["9e-5", "1e-4", "1.5e-5", "0", "0.05", "1.5", "100"]
        );
    }
}
