//! `contagion engine`: the line protocol on stdin/stdout (see [`crate::engine`]).

use clap::Args;

use super::Games;
use super::common::{GameFlag, SeedFlag};
use crate::agents::AgentSpec;

/// `contagion engine`'s arguments.
#[derive(Debug, Args)]
#[command(after_help = crate::agents::spec::help())]
pub struct EngineArgs {
    /// The agent that answers `go` (e.g. alphabeta:ms=100).
    #[arg(long, value_name = "SPEC", default_value = "alphabeta:depth=3")]
    pub agent: AgentSpec,
    /// `--game`.
    #[command(flatten)]
    pub game: GameFlag,
    /// `--seed`.
    #[command(flatten)]
    pub seed: SeedFlag,
}

/// Runs `contagion engine` on stdin and stdout until `quit` or the end of input.
pub fn run(args: EngineArgs, games: &Games) -> anyhow::Result<()> {
    games
        .get(args.game.as_str())?
        .engine(&args.agent, *args.seed)
}
