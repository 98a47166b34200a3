//! `contagion eval`: a seat-balanced match between two agent specs.

use clap::Args;

use super::Games;
use super::clock_from_secs;
use super::common::{ClockFlag, GameFlag, QuietFlag, SeriesFlags};
use crate::agents::{AgentSpec, Baselines};
use crate::arena::record::{RecordFile, write_match_game};
use crate::arena::{MatchConfig, MatchReport, play_match};
use crate::games::Game;

/// `contagion eval`'s arguments.
#[derive(Debug, Args)]
#[command(after_help = crate::agents::spec::help())]
pub struct EvalArgs {
    /// The agent measured (e.g. alphabeta:depth=3).
    #[arg(long, value_name = "SPEC")]
    pub a: AgentSpec,
    /// Its opponent (e.g. greedy).
    #[arg(long, value_name = "SPEC")]
    pub b: AgentSpec,
    /// Number of games; a multiple of the number of players (each opening is played with A in every seat).
    #[arg(long, default_value_t = 100)]
    pub games: u32,
    /// How the games are played and reported.
    #[command(flatten)]
    pub play: MatchArgs,
}

/// How matches are played and reported: shared by `eval` and `tournament`.
#[derive(Debug, Args)]
pub struct MatchArgs {
    /// `--game`.
    #[command(flatten)]
    pub game: GameFlag,
    /// `--threads` (games played at once), `--seed`, `--opening-plies`.
    #[command(flatten)]
    pub series: SeriesFlags,
    /// `--time-per-game`.
    #[command(flatten)]
    pub time_per_game: ClockFlag,
    /// Each agent's time for every move, in milliseconds (`go movetime`; 0: each agent's own).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=crate::limits::MAX_MOVE_MS))]
    pub movetime: u64,
    /// Append every game to this file (PGN; python-ataxx reads the Ataxx ones).
    #[arg(long, value_name = "FILE")]
    pub pgn: Option<std::path::PathBuf>,
    /// Print the result as JSON on stdout instead of text.
    #[arg(long)]
    pub json: bool,
    /// `--quiet`.
    #[command(flatten)]
    pub quiet: QuietFlag,
}

impl MatchArgs {
    /// The match settings for `games` games.
    pub fn config(&self, games: u32) -> anyhow::Result<MatchConfig> {
        Ok(MatchConfig {
            games,
            seed: *self.series.seed,
            threads: self.series.threads.count(),
            opening_plies: *self.series.opening_plies,
            time_per_game: clock_from_secs(*self.time_per_game)?,
            move_time: (self.movetime > 0).then(|| std::time::Duration::from_millis(self.movetime)),
            progress: !*self.quiet && !self.json,
        })
    }

    /// The record file, if `--pgn` asks for one.
    pub fn records(&self) -> anyhow::Result<Option<RecordFile>> {
        self.pgn.as_deref().map(RecordFile::open).transpose()
    }
}

/// Runs `contagion eval`.
pub fn run(args: EvalArgs, games: &Games) -> anyhow::Result<()> {
    let config = args.play.config(args.games)?;
    games.get(args.play.game.as_str())?.eval(&args, &config)
}

pub(super) fn report<G: Baselines>(
    start: &G,
    args: &EvalArgs,
    config: &MatchConfig,
) -> anyhow::Result<()> {
    let mut records = args.play.records()?;
    let (r, games) = play_match(start, &args.a, &args.b, config)?;
    if let Some(file) = &mut records {
        let names = (args.a.to_string(), args.b.to_string());
        for (round, game) in games.iter().enumerate() {
            let names = (names.0.as_str(), names.1.as_str());
            file.append(&write_match_game(
                start,
                "contagion eval",
                round as u32 + 1,
                names,
                game,
            ))?;
        }
        eprintln!("{} games appended to {}", file.games, file.path().display());
    }
    if args.play.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        print!("{}", text(start, &r, config));
    }
    Ok(())
}

/// The human-readable report.
pub fn text<G: Game>(start: &G, r: &MatchReport, config: &MatchConfig) -> String {
    let mut clock = config.time_per_game.map_or("no clock".to_string(), |t| {
        format!("{:.0} s per agent per game", t.as_secs_f64())
    });
    if let Some(t) = config.move_time {
        clock += &format!(", {} ms a move", t.as_millis());
    }
    let mut out = format!(
        "{} vs {}: {} games of {} (seed {}, {} random opening plies, {clock})\n",
        r.a,
        r.b,
        r.games,
        start.name(),
        r.seed,
        r.opening_plies
    );
    let wdl = |s: &crate::arena::elo::Stats| {
        format!(
            "W {:>4}  D {:>4}  L {:>4}  score {:.3}",
            s.wins, s.draws, s.losses, s.score
        )
    };
    out += &format!("  A overall   {}\n", wdl(&r.overall));
    for (seat, s) in r.by_seat.iter().enumerate() {
        out += &format!("  A as {:<6} {}\n", start.player_name(seat), wdl(s));
    }
    out += &format!("  Elo of A vs B: {} (95%)\n", r.overall.elo_text());
    out += &format!(
        "  mean game length {:.1} plies; thinking {:.2} ms/move (A), {:.2} ms/move (B); wall {:.1} s\n",
        r.mean_plies, r.a_ms_per_move, r.b_ms_per_move, r.wall_seconds
    );
    out += &format!(
        "  slowest move {:.1} ms (A), {:.1} ms (B)\n",
        r.a_slowest_ms, r.b_slowest_ms
    );
    for (who, list) in [("A", &r.a_forfeits), ("B", &r.b_forfeits)] {
        if let Some(first) = list.first() {
            out += &format!("  {} forfeits by {who}, e.g. {first}\n", list.len());
        }
    }
    out
}
