//! The `contagion` binary: the command line over the built-in games.

use std::process::ExitCode;

use contagion::cli::{Games, main as cli_main};

fn main() -> ExitCode {
    cli_main(Games::builtin())
}
