//! What the tests need from outside Rust, installed without touching the system: a
//! virtual environment under `target/test-python` made on first use from
//! `tests/requirements.txt` (numpy for the export consumer, SeaweedFS's `weed` binary
//! for the S3 test), so the README's test command needs nothing but Rust and Python 3.
//! Test binaries running at once share it: the first to arrive builds it under a lock.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

#[allow(dead_code)] // each test binary uses some of these helpers
fn has_numpy(python: &str) -> bool {
    Command::new(python)
        .args(["-c", "import numpy"])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The repository's root: this crate's directory, or the workspace's above it.
fn repo_root() -> PathBuf {
    (std::path::Path::new(env!("CARGO_MANIFEST_DIR")).ancestors())
        .find(|d| d.join("tests/requirements.txt").is_file())
        .expect("tests/requirements.txt above the crate")
        .to_path_buf()
}

/// The test venv's `bin/` directory, made (and filled from the requirements) on first use.
fn venv_bin() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let root = repo_root();
        let dir = root.join("target/test-python");
        std::fs::create_dir_all(&dir).expect("creating target/test-python");
        let lock = std::fs::File::create(dir.join(".lock")).expect("the venv lock");
        lock.lock().expect("locking the venv");
        let bin = dir.join("venv/bin");
        let requirements = root.join("tests/requirements.txt");
        let done = dir.join("venv/.installed");
        let wanted = std::fs::read(&requirements).expect("tests/requirements.txt");
        if std::fs::read(&done).ok() != Some(wanted.clone()) {
            run(Command::new("python3")
                .args(["-m", "venv"])
                .arg(dir.join("venv")));
            run(Command::new(bin.join("python3"))
                .args(["-m", "pip", "install", "--quiet", "-r"])
                .arg(&requirements));
            std::fs::write(&done, wanted).expect("marking the venv complete");
        }
        bin
    })
    .clone()
}

/// A Python 3 interpreter with numpy: `python3` itself when it has numpy, else the
/// test venv's; panics (failing the test) if none can be made.
#[allow(dead_code)]
pub fn python3() -> String {
    if has_numpy("python3") {
        return "python3".into();
    }
    let python = venv_bin().join("python3").display().to_string();
    assert!(has_numpy(&python), "{python} still cannot import numpy");
    python
}

/// [`python3`] importing the `czero` package from `frontends/python`, not yet started.
#[allow(dead_code)]
pub fn czero() -> Command {
    let mut cmd = Command::new(python3());
    cmd.env("PYTHONPATH", repo_root().join("frontends/python"));
    cmd
}

/// SeaweedFS's `weed` binary from the test venv.
#[allow(dead_code)]
pub fn weed() -> PathBuf {
    let weed = venv_bin().join("weed");
    assert!(weed.is_file(), "{} is missing", weed.display());
    weed
}

/// The test venv's Python, which has every package in `tests/requirements.txt`
/// (python-ataxx included).
#[allow(dead_code)]
pub fn venv_python() -> PathBuf {
    venv_bin().join("python3")
}
