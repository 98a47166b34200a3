//! The `contagion` binary as a child process, for tests that run it as a user would.

#![allow(dead_code)] // each test binary uses its own part

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Output, Stdio};

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

/// An empty scratch directory named `name` for the test file that asks (two files may
/// use the same name: the suite is one binary).
#[track_caller]
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let caller = std::path::Path::new(std::panic::Location::caller().file());
    let file = caller.file_stem().unwrap_or_default().to_string_lossy();
    let dir = std::env::temp_dir().join(format!("contagion-{file}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("creating a scratch directory");
    dir
}

/// The integration tests' seconds-long training config.
pub fn test_config() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/test-run.toml")
}

/// Runs `contagion train --config CONFIG --checkpoints ROOT --quiet EXTRA…` to its end.
pub fn train(config: &std::path::Path, root: &std::path::Path, extra: &[&str]) -> Output {
    let mut args = vec!["train", "--config", config.to_str().unwrap()];
    args.extend(["--checkpoints", root.to_str().unwrap(), "--quiet"]);
    args.extend_from_slice(extra);
    contagion(&args)
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

/// `contagion serve` on a free port, offering the shipped models and watching `runs`;
/// killed when dropped.
pub struct Serve {
    child: Child,
    /// `host:port`, as the server printed it.
    pub addr: String,
}

impl Serve {
    /// Starts the server and waits for the address it prints.
    pub fn start(runs: &std::path::Path) -> Serve {
        let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
        let (runs, models) = (runs.to_str().unwrap(), models.to_str().unwrap());
        let mut child = command(&["serve", "--port", "0", "--runs", runs, "--models", models])
            .stdout(Stdio::piped())
            .spawn()
            .expect("start contagion serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("a piped stdout"))
            .read_line(&mut line)
            .expect("the server's first line");
        let url = (line.split_whitespace())
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        let addr = url
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_string();
        Serve { child, addr }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
