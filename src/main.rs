//! The `contagion` binary: parse the command line, run it, map errors to an exit code.

use std::process::ExitCode;

use clap::Parser;
use contagion::cli::{Cli, run};

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
