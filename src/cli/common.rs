//! The flags several commands share, each declared once with its default and flattened
//! into the commands that take it (`clap`'s `flatten`): the game, the seed, the threads,
//! how a match's games begin and are timed, and quiet. A command whose use differs says so with
//! `mut_arg` beside its own flags (`play` starts from the real start, with no clock).

use std::ops::Deref;

use clap::Args;

use crate::games::GameName;
use crate::limits::MAX_THREADS;

/// `--game`.
#[derive(Debug, Clone, Args)]
pub struct GameFlag {
    /// The game (one `contagion --help` lists).
    #[arg(long, default_value_t)]
    pub game: GameName,
}

/// `--seed`.
#[derive(Debug, Clone, Copy, Args)]
pub struct SeedFlag {
    /// Seed for the openings and the agents' random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// `--threads`.
#[derive(Debug, Clone, Copy, Args)]
pub struct ThreadsFlag {
    /// Threads to use (default: every core): the games played at once by `eval`,
    /// `tournament`, `report`, `selfplay` and `distill`; the model's search in `ladder`.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=MAX_THREADS as u64))]
    pub threads: Option<u64>,
}

impl ThreadsFlag {
    /// The threads asked for, or every core.
    pub fn count(&self) -> usize {
        self.threads
            .map_or_else(crate::limits::cores, |t| t as usize)
    }
}

/// `--opening-plies`.
#[derive(Debug, Clone, Copy, Args)]
pub struct OpeningFlag {
    /// Random plies played from the start before the agents take over.
    #[arg(long, default_value_t = 2)]
    pub opening_plies: u32,
}

/// `--time-per-game`.
#[derive(Debug, Clone, Copy, Args)]
pub struct ClockFlag {
    /// Each agent's clock per game, in seconds (0: unlimited; a human has none). The
    /// course referee gives 180.
    #[arg(long, default_value_t = 180.0)]
    pub time_per_game: f64,
}

/// `--quiet`, `-q`.
#[derive(Debug, Clone, Copy, Args)]
pub struct QuietFlag {
    /// No progress bars or progress lines (the command's results and summaries still
    /// print).
    #[arg(long, short)]
    pub quiet: bool,
}

/// How a series of games is played: `--threads`, `--seed` and `--opening-plies`.
#[derive(Debug, Clone, Copy, Args)]
pub struct SeriesFlags {
    /// `--threads`.
    #[command(flatten)]
    pub threads: ThreadsFlag,
    /// `--seed`.
    #[command(flatten)]
    pub seed: SeedFlag,
    /// `--opening-plies`.
    #[command(flatten)]
    pub opening_plies: OpeningFlag,
}

/// Each flag reads as its value.
macro_rules! reads_as {
    ($($flag:ident . $field:ident : $t:ty),*) => {$(
        impl Deref for $flag {
            type Target = $t;
            fn deref(&self) -> &$t {
                &self.$field
            }
        }
    )*};
}

reads_as!(
    GameFlag.game: GameName,
    SeedFlag.seed: u64,
    OpeningFlag.opening_plies: u32,
    ClockFlag.time_per_game: f64,
    QuietFlag.quiet: bool
);
