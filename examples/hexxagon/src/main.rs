//! `hexxagon`: the `contagion` command line with Hexxagon beside the built-in games.

use std::process::ExitCode;

use contagion::cli::{self, Games};
use hexxagon::Hexxagon;

fn main() -> ExitCode {
    cli::main(Games::builtin().with(Hexxagon::new()))
}
