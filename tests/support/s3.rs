//! A real S3 server for tests: SeaweedFS (`weed mini`, from the test venv) on localhost,
//! and helpers to run `contagion` processes against it.
//!
//! SeaweedFS takes its ports as flags (none can be left to the system), so a port is
//! picked free and then handed on: another process may take it first. The server is
//! then seen to exit or never answer, and is started again on new ports.

#![allow(dead_code)] // each test binary uses its own part

use std::collections::BTreeSet;
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::python;

pub const KEY: &str = "contagion-test";
pub const SECRET: &str = "contagion-test-secret";

/// A SeaweedFS server with bucket `runs`, killed when dropped.
pub struct Server {
    child: Child,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port that is free now, with port + 10000 free too (SeaweedFS's gRPC offset).
fn free_port(taken: &mut BTreeSet<u16>) -> u16 {
    loop {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let p = l.local_addr().unwrap().port();
        if p < 50_000
            && !taken.contains(&p)
            && !taken.contains(&(p + 10_000))
            && TcpListener::bind(("127.0.0.1", p + 10_000)).is_ok()
        {
            taken.insert(p);
            taken.insert(p + 10_000);
            return p;
        }
    }
}

/// Sets the S3 client's environment and starts a server under `dir`; returns when the
/// bucket can be listed with the test's credentials. Call before any other thread of
/// the test binary runs (it sets environment variables).
pub fn start_server(dir: &Path) -> Server {
    // SAFETY: called first thing in a test binary's only test, before its children start
    // and before the S3 client (the only other reader) exists.
    unsafe {
        std::env::set_var("AWS_ACCESS_KEY_ID", KEY);
        std::env::set_var("AWS_SECRET_ACCESS_KEY", SECRET);
        std::env::set_var("AWS_REGION", "us-east-1");
        std::env::set_var("AWS_ALLOW_HTTP", "true");
    }
    let config = dir.join("s3.json");
    std::fs::write(
        &config,
        format!(
            r#"{{"identities":[{{"name":"test","credentials":[{{"accessKey":"{KEY}","secretKey":"{SECRET}"}}],"actions":["Admin","Read","Write","List","Tagging"]}}]}}"#
        ),
    )
    .unwrap();
    for attempt in 1..=5 {
        if let Some(server) = try_start(dir, &config, attempt) {
            return server;
        }
    }
    panic!(
        "SeaweedFS did not start in 5 attempts; see {}",
        dir.join("weed-5.log").display()
    );
}

/// One start on fresh ports: the server once it answers, `None` if it exited (a port
/// was taken meanwhile) or did not answer in 90 s.
fn try_start(dir: &Path, config: &Path, attempt: u32) -> Option<Server> {
    let mut taken = BTreeSet::new();
    let s3 = free_port(&mut taken);
    let mut cmd = Command::new(python::weed());
    cmd.arg("mini")
        .arg(format!(
            "-dir={}",
            dir.join(format!("data-{attempt}")).display()
        ))
        .args(["-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-admin.ui=false"])
        .arg(format!("-s3.port={s3}"))
        .arg(format!("-s3.config={}", config.display()))
        .arg("-bucket=runs");
    for flag in [
        "master.port",
        "volume.port",
        "filer.port",
        "webdav.port",
        "admin.port",
        "s3.port.iceberg",
        "s3.port.lance",
    ] {
        cmd.arg(format!("-{flag}={}", free_port(&mut taken)));
    }
    let log = std::fs::File::create(dir.join(format!("weed-{attempt}.log"))).unwrap();
    let child = cmd
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let mut server = Server { child };
    // SAFETY: as in `start_server`.
    unsafe { std::env::set_var("AWS_ENDPOINT", format!("http://127.0.0.1:{s3}")) };
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_secs(90) {
        if contagion::store::s3::S3Store::open("runs").is_ok() {
            return Some(server);
        }
        if server.child.try_wait().unwrap().is_some() {
            return None; // it could not bind a port
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    None
}

pub fn spawn_logged(args: &[&str], log: &Path) -> Child {
    let f = std::fs::File::create(log).unwrap();
    super::process::command(args)
        .stdout(f.try_clone().unwrap())
        .stderr(f)
        .spawn()
        .unwrap()
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Waits until `done` holds, checking it every 200 ms; panics after `secs`.
pub fn wait_for(what: &str, secs: u64, mut done: impl FnMut() -> bool) {
    let t0 = Instant::now();
    while !done() {
        assert!(
            t0.elapsed() < Duration::from_secs(secs),
            "timed out: {what}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The test-run config with `changes` (each `from` must be there), written to `path`.
pub fn config_with(path: &Path, changes: &[(&str, &str)]) -> String {
    let mut text = std::fs::read_to_string("tests/data/test-run.toml").unwrap();
    for (from, to) in changes {
        assert!(text.contains(from), "{from}");
        text = text.replacen(from, to, 1);
    }
    std::fs::write(path, &text).unwrap();
    path.to_str().unwrap().to_string()
}
