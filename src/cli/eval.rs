//! `contagion eval`: a seat-balanced match between two agent specs.

use clap::Args;

use super::Games;
use super::clock_from_secs;
use super::common::{ClockFlag, GameFlag, QuietFlag, SeriesFlags};
use crate::agents::AgentSpec;
use crate::arena::MatchConfig;
use crate::arena::eval::{EvalOptions, Reporting};

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
    /// In a game of three, B's partner: it takes one of the two seats that are not A's,
    /// B the other, and they change seats from one opening to the next (default: B in both).
    #[arg(long, value_name = "SPEC")]
    pub c: Option<AgentSpec>,
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
            partner: None,
        })
    }

    /// Where the games and the result go.
    pub fn reporting(&self) -> Reporting {
        Reporting {
            pgn: self.pgn.clone(),
            json: self.json,
        }
    }
}

/// Runs `contagion eval`.
pub fn run(args: EvalArgs, games: &Games) -> anyhow::Result<()> {
    let options = EvalOptions {
        config: MatchConfig {
            partner: args.c,
            ..args.play.config(args.games)?
        },
        reporting: args.play.reporting(),
        a: args.a,
        b: args.b,
    };
    games.get(args.play.game.as_str())?.eval(&options)
}
