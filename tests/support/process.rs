//! The `contagion` binary as a child process, for tests that run it as a user would.

#![allow(dead_code)] // each test binary uses its own part

use std::io::Write;
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

/// Runs `cmd` with `input` on its standard input; its output once it has ended.
pub fn with_input(mut cmd: Command, input: &str) -> Output {
    let mut child = (cmd.stdin(Stdio::piped()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the command");
    let mut stdin = child.stdin.take().expect("a piped stdin");
    stdin.write_all(input.as_bytes()).expect("write the input");
    drop(stdin);
    child.wait_with_output().expect("wait for the command")
}
