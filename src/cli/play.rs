//! `contagion play`: a game in the terminal (see [`crate::arena::terminal`]): a human
//! against any agent, two humans, or two agents watched.

use clap::Args;

use super::Games;
use super::clock_from_secs;
use super::common::{ClockFlag, GameFlag, OpeningFlag, SeedFlag};
use crate::agents::AgentSpec;
use crate::arena::terminal::PlayOptions;

/// `contagion play`'s arguments.
#[derive(Debug, Args)]
#[command(
    after_help = crate::agents::spec::help(),
    mut_arg("opening_plies", |a| a.default_value("0")),
    mut_arg("time_per_game", |a| a.default_value("0"))
)]
pub struct PlayArgs {
    /// The first player (Red in Infexion and Chexers, x in Ataxx); `human` to type its moves.
    #[arg(long, value_name = "SPEC", default_value = "human")]
    pub a: AgentSpec,
    /// Every other player (Blue in Infexion; Green and Blue in Chexers).
    #[arg(long, value_name = "SPEC", default_value = "alphabeta:depth=3")]
    pub b: AgentSpec,
    /// `--game`.
    #[command(flatten)]
    pub game: GameFlag,
    /// `--seed`.
    #[command(flatten)]
    pub seed: SeedFlag,
    /// `--opening-plies`: none by default here (a person plays from the start).
    #[command(flatten)]
    pub opening_plies: OpeningFlag,
    /// `--time-per-game`: none by default here (a person has no clock).
    #[command(flatten)]
    pub time_per_game: ClockFlag,
    /// Plain text without colours.
    #[arg(long)]
    pub no_color: bool,
}

/// Runs `contagion play` on the terminal (or on pipes).
pub fn run(args: PlayArgs, games: &Games) -> anyhow::Result<()> {
    let options = PlayOptions {
        seed: *args.seed,
        opening_plies: *args.opening_plies,
        clock: clock_from_secs(*args.time_per_game)?,
        a: args.a,
        b: args.b,
    };
    games.get(args.game.as_str())?.play(&options, args.no_color)
}
