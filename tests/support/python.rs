//! The Python the front-end tests run: `python3` itself when it has numpy, otherwise a
//! virtual environment under `target/` made on first use with numpy installed from PyPI
//! (so the README's test command needs nothing but Rust and Python 3). Test binaries
//! running at once share it: the first to arrive builds it under a file lock.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

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

/// A Python 3 interpreter with numpy; panics (failing the test) if none can be made.
pub fn python3() -> String {
    static PYTHON: OnceLock<String> = OnceLock::new();
    PYTHON
        .get_or_init(|| {
            if has_numpy("python3") {
                return "python3".into();
            }
            let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/test-python");
            std::fs::create_dir_all(&dir).expect("creating target/test-python");
            let lock = std::fs::File::create(dir.join(".lock")).expect("the venv lock");
            lock.lock().expect("locking the venv");
            let python = dir.join("venv/bin/python3").display().to_string();
            if !has_numpy(&python) {
                run(Command::new("python3")
                    .args(["-m", "venv"])
                    .arg(dir.join("venv")));
                run(Command::new(&python).args(["-m", "pip", "install", "--quiet", "numpy"]));
            }
            assert!(has_numpy(&python), "{python} still cannot import numpy");
            python
        })
        .clone()
}
