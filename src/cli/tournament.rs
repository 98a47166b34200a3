//! `contagion tournament`: a round robin or gauntlet of several agents (see
//! [`crate::arena::tournament`]), with a crosstable, Elo ratings and game records.

use clap::Args;

use super::Games;
use super::eval::MatchArgs;
use crate::agents::{AgentSpec, Baselines};
use crate::arena::MatchConfig;
use crate::arena::elo::Sprt;
use crate::arena::record::write_match_game;
use crate::arena::tournament::{Format, run_tournament, text};

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
    let config = args.play.config(args.games)?;
    games
        .get(args.play.game.as_str())?
        .tournament(&args, &config)
}

pub(super) fn play<G: Baselines>(
    start: &G,
    args: &TournamentArgs,
    config: &MatchConfig,
) -> anyhow::Result<()> {
    let format = if args.gauntlet {
        Format::Gauntlet
    } else {
        Format::RoundRobin
    };
    let sprt = args.sprt.then_some((
        Sprt {
            elo0: args.sprt_elo0,
            elo1: args.sprt_elo1,
            alpha: args.sprt_alpha,
            beta: args.sprt_beta,
        },
        (start.num_players() * config.threads.max(1)) as u32,
    ));
    let mut records = args.play.records()?;
    let mut round = 0;
    let report = run_tournament(start, &args.agents, format, config, sprt, |a, b, game| {
        round += 1;
        match &mut records {
            Some(file) => {
                let names = (a.to_string(), b.to_string());
                let text = write_match_game(
                    start,
                    "contagion tournament",
                    round,
                    (&names.0, &names.1),
                    game,
                );
                file.append(&text)
            }
            None => Ok(()),
        }
    })?;
    if args.play.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", text(&report));
    }
    if let Some(file) = &records {
        eprintln!("{} games appended to {}", file.games, file.path().display());
    }
    Ok(())
}
