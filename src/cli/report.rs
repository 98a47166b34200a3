//! `contagion report`: learning curves (SVG and PNG) and a summary table from a run
//! directory; with `--anchors`, the run's Elo over training against fixed agents
//! ([`crate::report::history`]).

use std::path::PathBuf;

use clap::Args;

use super::Games;
use super::common::{QuietFlag, SeriesFlags};
use crate::agents::AgentSpec;
use crate::arena::MatchConfig;
use crate::config::Config;
use crate::report;
use crate::report::history::HistoryConfig;
use crate::train::rundir;

/// `contagion report`'s arguments.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The run directory (e.g. checkpoints/infexion).
    #[arg(long)]
    pub run: PathBuf,
    /// Where to write the SVG (a PNG is written beside it; a `.png` name gets the SVG
    /// beside it); default: RUN/curves.svg.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also measure the run's Elo over training against these agents (comma-separated
    /// specs, e.g. `alphabeta:depth=2,model:models/ataxx,sims=200`; the first is Elo 0),
    /// drawn to RUN/elo.svg.
    #[arg(long, value_name = "SPECS", value_parser = anchor_specs, default_value = "", hide_default_value = true)]
    pub anchors: Anchors,
    /// Games of each checkpoint against each anchor, and of each anchor against the next.
    #[arg(long, default_value_t = 20)]
    pub games: u32,
    /// The checkpoints' simulations per move.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub sims: u32,
    /// Checkpoints measured at most, spread over those the run kept (the newest always).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub points: u64,
    /// `--threads` (games played at once), `--seed`, `--opening-plies`.
    #[command(flatten)]
    pub series: SeriesFlags,
    /// `--quiet`.
    #[command(flatten)]
    pub quiet: QuietFlag,
}

/// Runs `contagion report`.
pub fn run(args: ReportArgs, games: &Games) -> anyhow::Result<()> {
    let (name, out) = report::curves(&args.run, args.out.as_deref())?;
    if args.anchors.0.is_empty() {
        return Ok(());
    }
    let config = Config::load(&args.run.join(rundir::CONFIG))?;
    let game = games.for_config(&config)?;
    let history = HistoryConfig {
        anchors: args.anchors.0.clone(),
        sims: args.sims,
        points: args.points as usize,
        matches: MatchConfig {
            games: args.games,
            seed: *args.series.seed,
            threads: args.series.threads.count(),
            opening_plies: *args.series.opening_plies,
            time_per_game: None,
            move_time: None,
            progress: !*args.quiet,
            partner: None,
        },
    };
    game.history(&args.run, &history, &name, &out.with_file_name("elo.svg"))
}

/// The agents of `--anchors`.
#[derive(Debug, Clone, Default)]
pub struct Anchors(pub Vec<AgentSpec>);

/// `--anchors`' specs: split at commas, where a `key=value` part continues the spec before
/// it (`model:PATH,sims=200`) and any other part starts a spec (`alphabeta:depth=3`).
fn anchor_specs(list: &str) -> Result<Anchors, String> {
    let mut specs: Vec<String> = Vec::new();
    for part in list.split(',').filter(|p| !p.is_empty()) {
        let option = part
            .split_once('=')
            .is_some_and(|(key, _)| !key.contains(':'));
        match specs.last_mut() {
            Some(spec) if option => {
                spec.push(',');
                spec.push_str(part);
            }
            _ => specs.push(part.to_string()),
        }
    }
    let parsed = specs.iter().map(|s| s.parse::<AgentSpec>());
    parsed
        .collect::<Result<_, _>>()
        .map(Anchors)
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::anchor_specs;

    #[test]
    fn anchors_keep_each_spec_s_options() {
        let list = "alphabeta:depth=3,model:models/ataxx,sims=200,threads=1,greedy";
        let anchors = anchor_specs(list).unwrap();
        let shown: Vec<String> = anchors.0.iter().map(|a| format!("{a:?}")).collect();
        assert_eq!(shown.len(), 3, "{shown:?}");
        assert!(shown[1].contains("200"), "{shown:?}");
        assert!(anchor_specs("").unwrap().0.is_empty());
        assert!(anchor_specs("sims=200").is_err());
        assert!(anchor_specs("model:models/ataxx,sims=lots").is_err());
    }
}
