//! `contagion tournament`: a round robin or gauntlet of several agents (see
//! [`crate::arena::tournament`]), with a crosstable, Elo ratings and game records.

use clap::Args;

use super::Games;
use super::eval::MatchArgs;
use crate::agents::AgentSpec;
use crate::arena::elo::Sprt;
use crate::arena::tournament::{Format, TournamentOptions};

/// `contagion tournament`'s arguments.
#[derive(Debug, Args)]
#[command(after_help = crate::agents::spec::help())]
pub struct TournamentArgs {
    /// An agent; give two or more (`--agent A --agent B …`).
    #[arg(long = "agent", value_name = "SPEC", required = true)]
    pub agents: Vec<AgentSpec>,
    /// The first agent plays each of the others (default: every pair plays).
    #[arg(long)]
    pub gauntlet: bool,
    /// Games per pairing; a multiple of the number of players.
    #[arg(long, default_value_t = 20)]
    pub games: u32,
    /// How the games are played and reported.
    #[command(flatten)]
    pub play: MatchArgs,
    /// Stop each pairing early once an SPRT decides (H0: Elo = --sprt-elo0, H1: --sprt-elo1).
    #[arg(long)]
    pub sprt: bool,
    /// The SPRT's null hypothesis, in Elo.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    pub sprt_elo0: f64,
    /// The SPRT's alternative hypothesis, in Elo.
    #[arg(long, default_value_t = 50.0, allow_negative_numbers = true)]
    pub sprt_elo1: f64,
    /// The SPRT's false-positive rate.
    #[arg(long, default_value_t = 0.05)]
    pub sprt_alpha: f64,
    /// The SPRT's false-negative rate.
    #[arg(long, default_value_t = 0.05)]
    pub sprt_beta: f64,
}

/// Runs `contagion tournament`.
pub fn run(args: TournamentArgs, games: &Games) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.agents.len() >= 2,
        "a tournament needs at least two agents (--agent A --agent B …)"
    );
    let sprt_ok = |p: f64| p > 0.0 && p < 0.5;
    anyhow::ensure!(
        sprt_ok(args.sprt_alpha) && sprt_ok(args.sprt_beta) && args.sprt_elo1 > args.sprt_elo0,
        "--sprt-alpha and --sprt-beta must lie in (0, 0.5) and --sprt-elo1 must exceed --sprt-elo0"
    );
    let options = TournamentOptions {
        format: match args.gauntlet {
            true => Format::Gauntlet,
            false => Format::RoundRobin,
        },
        config: args.play.config(args.games)?,
        sprt: args.sprt.then_some(Sprt {
            elo0: args.sprt_elo0,
            elo1: args.sprt_elo1,
            alpha: args.sprt_alpha,
            beta: args.sprt_beta,
        }),
        reporting: args.play.reporting(),
        agents: args.agents,
    };
    games.get(args.play.game.as_str())?.tournament(&options)
}
