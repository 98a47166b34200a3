//! The `contagion` command line: one file per subcommand, each with its `clap::Args`
//! struct and a `run` function. `main.rs` only parses and dispatches.

pub mod bench;
pub mod common;
pub mod config;
pub mod distill;
pub mod engine;
pub mod eval;
pub mod export;
pub mod games;
pub mod ladder;
pub mod play;
pub mod replay;
pub mod report;
pub mod selfplay;
#[cfg(feature = "serve")]
pub mod serve;
pub mod tournament;
pub mod train;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::nn::DeviceKind;

pub use games::{Games, Playable};

/// Contagion Zero: self-play training and tools for contagion board games.
#[derive(Debug, Parser)]
#[command(name = "contagion", version, about = about(&Games::builtin()), propagate_version = true)]
pub struct Cli {
    /// The subcommand to run.
    #[command(subcommand)]
    pub command: Command,
    /// Where the networks that play run (`wgpu`: a GPU, in a build with `--features
    /// wgpu`; docs/gpu.md). A run's trainer and self-play read `train.device` instead.
    #[arg(long, global = true, value_name = "DEVICE", value_parser = device_name())]
    pub device: Option<DeviceKind>,
}

/// `--device`'s parser: one of [`DeviceKind::NAMES`], which `--help` lists.
fn device_name() -> impl clap::builder::TypedValueParser<Value = DeviceKind> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(DeviceKind::NAMES)
        .try_map(|name: String| DeviceKind::parse(&name))
}

/// The one-line description `--help` starts with, naming the games the program plays.
fn about(games: &Games) -> String {
    let names: Vec<&str> = games.names().collect();
    format!(
        "Contagion Zero: an AlphaZero-style self-play trainer for contagion board games ({})",
        names.join(", ")
    )
}

/// A `contagion` program that plays `games`: parses the command line (its help naming
/// the games), runs it, prints an error and maps it to the exit code. The `contagion`
/// binary is `main(Games::builtin())`; a program with a game of its own adds it with
/// [`Games::with`].
pub fn main(games: Games) -> ExitCode {
    quiet_on_a_closed_pipe();
    let matches = Cli::command().about(about(&games)).get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    match run(cli, &games) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Output into a pipe whose reader has gone (`contagion … | head`) ends the program
/// quietly, as it ends a C tool: `println!` panics there, and this hook turns that panic
/// into the exit status of a process killed by `SIGPIPE` (128 + 13), without a message.
/// Every other panic keeps the default report.
fn quiet_on_a_closed_pipe() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info.payload_as_str().unwrap_or_default();
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(141);
        }
        report(info);
    }));
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Train a network by self-play from a config (resumes an existing run).
    Train(train::TrainArgs),
    /// The config reference (every field, default, range), or a config's resolved values.
    Config(config::ConfigArgs),
    /// Play self-play games for a run in a store and upload them for its trainer.
    Selfplay(selfplay::SelfplayArgs),
    /// Learning curves (SVG and PNG) and a summary table from a run's metrics.
    Report(report::ReportArgs),
    /// Play a match between two agents and report W/D/L, score and Elo.
    Eval(eval::EvalArgs),
    /// A round robin or gauntlet of several agents: crosstable, Elo, game records.
    Tournament(tournament::TournamentArgs),
    /// A model against alphabeta at several times per move: Elo against time (table, plot).
    Ladder(ladder::LadderArgs),
    /// Show a recorded game (PGN) move by move.
    Replay(replay::ReplayArgs),
    /// Write a checkpoint as a bundle for other front ends (safetensors + manifest.json).
    Export(export::ExportArgs),
    /// Play one game in the terminal (a human against an agent, or two agents).
    Play(play::PlayArgs),
    /// Speak the line protocol (position / go / perft …) on stdin/stdout.
    Engine(engine::EngineArgs),
    /// Train the fast evaluator from a network's self-play games (or play them: --generate).
    Distill(distill::DistillArgs),
    /// Print speed figures: rules, search, network forward, self-play, training.
    Bench(bench::BenchArgs),
    /// Serve a web page to play the models and watch runs learn (feature `serve`).
    #[cfg(feature = "serve")]
    Serve(serve::ServeArgs),
}

/// A per-game clock from a number of seconds: `None` for 0 (no clock); an error for a
/// negative, non-finite or absurdly large value, never a panic.
pub fn clock_from_secs(secs: f64) -> anyhow::Result<Option<std::time::Duration>> {
    if secs == 0.0 {
        return Ok(None);
    }
    match std::time::Duration::try_from_secs_f64(secs) {
        Ok(d) if secs <= 1e9 => Ok(Some(d)),
        _ => anyhow::bail!("--time-per-game must be a number of seconds from 0 to 1e9, got {secs}"),
    }
}

/// Runs the parsed command with `games`.
pub fn run(cli: Cli, games: &Games) -> anyhow::Result<()> {
    if let Some(kind) = cli.device {
        if matches!(cli.command, Command::Train(_) | Command::Selfplay(_)) {
            anyhow::bail!(
                "a run takes its device from its config's train.device (`contagion train --set train.device={kind}`)"
            );
        }
        crate::nn::device::set_playing(kind)?;
    }
    match cli.command {
        Command::Train(args) => train::run(args, games),
        Command::Config(args) => config::run(args),
        Command::Selfplay(args) => selfplay::run(args, games),
        Command::Report(args) => report::run(args, games),
        Command::Eval(args) => eval::run(args, games),
        Command::Tournament(args) => tournament::run(args, games),
        Command::Ladder(args) => ladder::run(args, games),
        Command::Replay(args) => replay::run(args, games),
        Command::Export(args) => export::run(args, games),
        Command::Play(args) => play::run(args, games),
        Command::Engine(args) => engine::run(args, games),
        Command::Distill(args) => distill::run(args, games),
        Command::Bench(args) => bench::run(args, games),
        #[cfg(feature = "serve")]
        Command::Serve(args) => serve::run(args, games),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Every flag of every subcommand (and sub-subcommand) has a help line.
    #[test]
    fn every_flag_has_a_help_line() {
        fn check(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if !matches!(id, "help" | "version") && arg.get_help().is_none() {
                    missing.push(format!("{path} --{id}"));
                }
            }
            for sub in cmd.get_subcommands() {
                check(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let mut missing = Vec::new();
        check(&super::Cli::command(), "contagion", &mut missing);
        assert!(missing.is_empty(), "flags without help: {missing:?}");
    }
}
