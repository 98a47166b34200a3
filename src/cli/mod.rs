//! The `contagion` command line: one file per subcommand, each with its `clap::Args`
//! struct and a `run` function. `main.rs` only parses and dispatches.

pub mod bench;
pub mod engine;
pub mod eval;
pub mod play;

use clap::{Parser, Subcommand, ValueEnum};

/// Contagion Zero: self-play training and tools for contagion board games.
#[derive(Debug, Parser)]
#[command(name = "contagion", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Play a match between two agents and report W/D/L, score and Elo.
    Eval(eval::EvalArgs),
    /// Play one game in the terminal (a human against an agent, or two agents).
    Play(play::PlayArgs),
    /// Speak the line protocol (position / go / perft …) on stdin/stdout.
    Engine(engine::EngineArgs),
    /// Print speed figures (rules engine, search).
    Bench(bench::BenchArgs),
}

/// The games this build knows. Registered here, dispatched with a `match`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum GameKind {
    /// Infexion (COMP30024 2023): 7×7 hex torus, SPAWN/SPREAD.
    #[default]
    Infexion,
}

/// Runs the parsed command.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Eval(args) => eval::run(args),
        Command::Play(args) => play::run(args),
        Command::Engine(args) => engine::run(args),
        Command::Bench(args) => bench::run(args),
    }
}
