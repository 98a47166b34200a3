//! The `contagion` binary as a child process, for tests that run it as a user would.

#![allow(dead_code)] // each test binary uses its own part

use std::process::{Command, Output, Stdio};

/// `contagion ARGS`, with no standard input, not yet started.
pub fn command(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_contagion"));
    cmd.args(args).stdin(Stdio::null());
    cmd
}

/// Runs `contagion ARGS` to its end.
pub fn contagion(args: &[&str]) -> Output {
    command(args).output().expect("run contagion")
}

/// Standard output then standard error, as text.
pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}
