//! A strength ladder: a model against a fixed opponent at several times per move.
//!
//! Each rung is a match at a time per move `T`: the model (`ms=T`, searching on the
//! threads given) against the opponent at `T` (its `ms=T`), and, where asked, against
//! the opponent at `factor × T`. Games are played one at a time, so each side has the
//! machine to itself on its move. The result is a Markdown table (W/D/L, score, Elo with
//! its 95% interval, each side's mean and slowest move) and a plot of Elo against time.

use std::path::{Path, PathBuf};

use plotters::prelude::*;
use serde::Serialize;

use super::{MatchConfig, MatchReport, run_match};
use crate::agents::{AgentSpec, Baselines};

/// Elo shown on the plot for a score of 0 or 1 (and the plot's range).
const ELO_CAP: f64 = 800.0;

/// How a ladder is played.
#[derive(Debug, Clone)]
pub struct LadderConfig {
    /// Times per move of the model, in milliseconds.
    pub times_ms: Vec<u64>,
    /// Games at each time against the opponent at the same time.
    pub games: Vec<u32>,
    /// Games at each time against the opponent at `factor` times it (0: none).
    pub factor_games: Vec<u32>,
    /// How many times the model's time the stronger opponent gets.
    pub factor: u32,
    /// Threads the model searches on.
    pub threads: u32,
    /// Seeds the openings; random plies before each pair of games.
    pub seed: u64,
    /// Random plies before each pair of games.
    pub opening_plies: u32,
    /// Report progress.
    pub progress: bool,
}

/// One match of the ladder.
#[derive(Debug, Clone, Serialize)]
pub struct Rung {
    /// The model's time per move, in milliseconds.
    pub ms: u64,
    /// The opponent's time per move, in milliseconds.
    pub opponent_ms: u64,
    /// The match, from the model's side.
    pub report: MatchReport,
}

/// The opponent spec at `ms` per move: `alphabeta` (iterative deepening within `ms`).
fn opponent(ms: u64) -> AgentSpec {
    AgentSpec::AlphaBeta {
        depth: None,
        ms: Some(ms),
        nodes: None,
        best_reply: false,
    }
}

/// Plays the ladder of the model at `model` in games like `start`.
pub fn run_ladder<G: Baselines>(
    start: &G,
    model: &Path,
    config: &LadderConfig,
) -> anyhow::Result<Vec<Rung>> {
    let n = config.times_ms.len();
    anyhow::ensure!(n > 0, "--times needs at least one time per move");
    anyhow::ensure!(
        config.games.len() == n && config.factor_games.len() == n,
        "--games and --factor-games need one count per time in --times ({n})"
    );
    let mut rungs = Vec::new();
    for (k, &ms) in config.times_ms.iter().enumerate() {
        let model = AgentSpec::Model {
            path: model.to_path_buf(),
            sims: crate::limits::MAX_SIMULATIONS as u32,
            gumbel: 0,
            ms: Some(ms),
            threads: config.threads,
            knobs: crate::agents::knobs::defaults(),
        };
        for (games, factor) in [
            (config.games[k], 1),
            (config.factor_games[k], config.factor),
        ] {
            if games == 0 {
                continue;
            }
            let opponent_ms = ms * factor as u64;
            let match_config = MatchConfig {
                games,
                seed: config.seed,
                threads: 1,
                opening_plies: config.opening_plies,
                time_per_game: None,
                move_time: None,
                progress: config.progress,
                partner: None,
            };
            let report = run_match(start, &model, &opponent(opponent_ms), &match_config)?;
            rungs.push(Rung {
                ms,
                opponent_ms,
                report,
            });
        }
    }
    Ok(rungs)
}

/// The ladder as a Markdown table, one row per match.
pub fn table(rungs: &[Rung]) -> String {
    let mut out = String::from(
        "| model ms/move | alphabeta ms/move | games | W-D-L | score | Elo of the model (95%) | mean ms/move (model, alphabeta) | slowest move ms (model, alphabeta) |\n|---:|---:|---:|---|---:|---|---|---|\n",
    );
    for r in rungs {
        let s = &r.report.overall;
        out += &format!(
            "| {} | {} | {} | {}-{}-{} | {:.3} | {} | {:.1}, {:.1} | {:.1}, {:.1} |\n",
            r.ms,
            r.opponent_ms,
            r.report.games,
            s.wins,
            s.draws,
            s.losses,
            s.score,
            s.elo_text(),
            r.report.a_ms_per_move,
            r.report.b_ms_per_move,
            r.report.a_slowest_ms,
            r.report.b_slowest_ms
        );
    }
    out
}

fn err(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow::anyhow!("plotting: {e}")
}

/// A finite Elo for the plot: unbounded ends at ±[`ELO_CAP`].
fn capped(elo: Option<f64>, unbounded: f64) -> f64 {
    elo.unwrap_or(unbounded).clamp(-ELO_CAP, ELO_CAP)
}

/// Draws Elo against time per move (log scale), one line per opponent factor, with
/// 95% intervals, as an SVG at `out` and a PNG beside it; returns the PNG's path.
pub fn plot(rungs: &[Rung], title: &str, out: &Path) -> anyhow::Result<Option<PathBuf>> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 520)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let lo = rungs.iter().map(|r| r.ms).min().unwrap_or(1) as f64;
        let hi = rungs.iter().map(|r| r.ms).max().unwrap_or(1) as f64;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(15)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d((lo / 1.5..hi * 1.5).log_scale(), -ELO_CAP..ELO_CAP)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("the model's time per move, ms (log scale)")
            .y_desc("Elo of the model against alphabeta")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .draw()
            .map_err(err)?;
        chart
            .draw_series([PathElement::new(
                vec![(lo / 1.5, 0.0), (hi * 1.5, 0.0)],
                BLACK,
            )])
            .map_err(err)?;
        let mut factors: Vec<u64> = rungs.iter().map(|r| r.opponent_ms / r.ms).collect();
        factors.sort_unstable();
        factors.dedup();
        let colors = [BLUE, RGBColor(230, 120, 0), RGBColor(130, 60, 170), RED];
        for (k, factor) in factors.iter().enumerate() {
            let color = colors[k % colors.len()];
            let mine: Vec<&Rung> = rungs
                .iter()
                .filter(|r| r.opponent_ms / r.ms == *factor)
                .collect();
            let centre = |r: &Rung| {
                let s = &r.report.overall;
                (
                    r.ms as f64,
                    capped(s.elo, if s.score >= 1.0 { ELO_CAP } else { -ELO_CAP }),
                )
            };
            let label = match factor {
                1 => "alphabeta at the same time".to_string(),
                f => format!("alphabeta at {f}x the time"),
            };
            chart
                .draw_series(LineSeries::new(
                    mine.iter().map(|r| centre(r)),
                    color.stroke_width(2),
                ))
                .map_err(err)?
                .label(label)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 25, y)], color.stroke_width(3))
                });
            for r in &mine {
                let s = &r.report.overall;
                let x = r.ms as f64;
                let (low, high) = (capped(s.elo_low, -ELO_CAP), capped(s.elo_high, ELO_CAP));
                chart
                    .draw_series([PathElement::new(
                        vec![(x, low), (x, high)],
                        color.stroke_width(1),
                    )])
                    .map_err(err)?;
                chart
                    .draw_series([Circle::new(centre(r), 4, color.filled())])
                    .map_err(err)?;
            }
        }
        crate::figure::finish(chart, &root)?;
    }
    crate::figure::save_svg(&svg, out)
}

/// Plays `model`'s ladder from `start` as `contagion ladder` does: prints the matches
/// (as JSON with `json`, else the table) and, with `out`, writes OUT.md (what was
/// played, where, the table and the plot) and the plot beside it.
pub fn ladder<G: Baselines>(
    start: &G,
    model: &Path,
    config: &LadderConfig,
    json: bool,
    out: Option<&Path>,
) -> anyhow::Result<()> {
    let rungs = run_ladder(start, model, config)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&rungs)?);
    } else {
        print!("{}", table(&rungs));
    }
    if let Some(out) = out {
        write(start.name(), model, config, &rungs, out)?;
    }
    Ok(())
}

/// OUT.md (what was played, where, the table and the plot) and OUT.svg / OUT.png.
fn write(
    game: &str,
    model: &Path,
    config: &LadderConfig,
    rungs: &[Rung],
    out: &Path,
) -> anyhow::Result<()> {
    let name = out
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| anyhow::anyhow!("--out {}: needs a file name", out.display()))?;
    let svg = out.with_file_name(format!("{name}.svg"));
    let title = format!("{game}: {} against alphabeta", model.display());
    plot(rungs, &title, &svg)?;
    let command: Vec<String> = std::env::args().collect();
    let text = format!(
        "# Ladder: {title}\n\n\
         The model searches on {} thread(s), alphabeta on one; games one at a time, \
         colours balanced, {} random opening plies (seed {}).\n\n\
         Machine: {}, {} cores.\n\n```sh\n{}\n```\n\n{}\n![Elo against time per move]({name}.svg)\n",
        config.threads,
        config.opening_plies,
        config.seed,
        cpu_name(),
        crate::limits::cores(),
        shlex::try_join(command.iter().map(String::as_str)).unwrap_or_default(),
        table(rungs),
    );
    let md = out.with_file_name(format!("{name}.md"));
    crate::framing::write_atomic(&md, text.as_bytes())?;
    eprintln!("wrote {} and {}", md.display(), svg.display());
    Ok(())
}

/// The CPU's model name (Linux's /proc/cpuinfo), or "an unknown CPU".
fn cpu_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find_map(|l| l.strip_prefix("model name"))
                .map(|l| l.trim_start_matches([' ', '\t', ':']).to_string())
        })
        .unwrap_or_else(|| "an unknown CPU".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::elo::Stats;

    fn rung(ms: u64, opponent_ms: u64, w: u32, d: u32, l: u32) -> Rung {
        Rung {
            ms,
            opponent_ms,
            report: MatchReport {
                a: "model".into(),
                b: "alphabeta".into(),
                games: w + d + l,
                overall: Stats::new(w, d, l),
                by_seat: Vec::new(),
                mean_plies: 80.0,
                a_ms_per_move: ms as f64 * 0.9,
                b_ms_per_move: opponent_ms as f64,
                a_slowest_ms: ms as f64,
                b_slowest_ms: opponent_ms as f64 * 1.01,
                a_slowest_at: [1, 3],
                b_slowest_at: [1, 4],
                a_forfeits: Vec::new(),
                b_forfeits: Vec::new(),
                seed: 1,
                opening_plies: 2,
                wall_seconds: 1.0,
            },
        }
    }

    #[test]
    fn the_table_has_a_row_per_match_and_the_plot_draws_every_point() {
        let rungs = [
            rung(10, 10, 15, 0, 5),
            rung(10, 100, 5, 0, 15),
            rung(100, 100, 20, 0, 0),
        ];
        let t = table(&rungs);
        assert_eq!(t.lines().count(), 5);
        assert!(
            t.contains("| 10 | 100 | 20 | 5-0-15 | 0.250 | -190.8"),
            "{t}"
        );
        assert!(
            t.contains("| 100 | 100 | 20 | 20-0-0 | 1.000 | +inf"),
            "{t}"
        );
        let dir = std::env::temp_dir().join(format!("ladder-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("ladder.svg");
        plot(&rungs, "test", &out).unwrap();
        let svg = std::fs::read_to_string(&out).unwrap();
        assert!(svg.contains("alphabeta at 10x the time") && svg.contains("at the same time"));
        assert_eq!(svg.matches("<circle").count(), 3, "one point per match");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
