//! `contagion serve`'s page in a real headless browser (Debian's `chromium` with its
//! `chromedriver`, installed through apt on first use when missing): a whole Ataxx game
//! and a whole Infexion game played by clicks against the shipped models, an illegal
//! click refused with its reason, undo, the PGN download, a run's curves and a recorded
//! game replayed, the Chexers board; screenshots land in `target/browser-screenshots/`.

use crate::process;
use process::{Serve, temp_dir, test_config, text, train};

use crate::python;

use std::path::Path;
use std::process::Command;

/// Whether `program` runs.
fn runs(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Debian's chromium and chromedriver, installed with apt when missing (as root, or
/// through sudo); a clear failure when they cannot be.
fn ensure_browser() {
    if runs("chromium") && runs("chromedriver") {
        return;
    }
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0"));
    let apt = |args: &[&str]| {
        let mut cmd = if root {
            Command::new("apt-get")
        } else {
            Command::new("sudo")
        };
        if !root {
            cmd.args(["-n", "apt-get"]);
        }
        cmd.args(args).env("DEBIAN_FRONTEND", "noninteractive");
        cmd.output().is_ok_and(|o| o.status.success())
    };
    let installed =
        apt(&["update", "-q"]) && apt(&["install", "-y", "-q", "chromium", "chromium-driver"]);
    assert!(
        installed && runs("chromium") && runs("chromedriver"),
        "the browser test needs Debian's chromium and chromium-driver; installing them with \
         apt-get failed (run `apt-get install chromium chromium-driver` as root)"
    );
}

#[test]
fn a_person_plays_and_watches_in_a_real_browser() {
    ensure_browser();
    let dir = temp_dir("page");
    let runs = dir.join("runs");
    let o = train(&test_config(), &runs, &["--set", "run.iterations=2"]);
    assert!(o.status.success(), "{}", text(&o));
    let server = Serve::start(&runs);
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/browser-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    for f in [
        "play-ataxx.png",
        "play-infexion.png",
        "watch.png",
        "play-chexers.png",
    ] {
        let _ = std::fs::remove_file(shots.join(f));
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/browser.py");
    let out = Command::new(python::venv_python())
        .arg(script)
        .arg(format!("http://{}/", server.addr))
        .arg(&shots)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    eprintln!("{report:#}");
    for game in ["ataxx", "infexion"] {
        let g = &report[game];
        assert!(
            g["result"].as_str().unwrap().starts_with("Game over"),
            "{g}"
        );
        assert!(
            g["refused"].as_str().unwrap().contains("not legal")
                || g["refused"].as_str().unwrap().contains("no move"),
            "{g}"
        );
        let undo = g["undo"].as_array().unwrap();
        assert!(undo[1].as_u64() < undo[0].as_u64(), "{g}");
        assert!(
            g["plies"].as_u64().unwrap() >= 4 && g["pgn_bytes"].as_u64().unwrap() > 100,
            "{g}"
        );
    }
    assert!(report["watch"]["charts"].as_u64().unwrap() >= 4, "{report}");
    assert!(report["watch"]["pieces"].as_u64().unwrap() >= 2, "{report}");
    assert_eq!(
        report["chexers_cells"], 37,
        "the Chexers board has 37 cells"
    );
    for f in [
        "play-ataxx.png",
        "play-infexion.png",
        "watch.png",
        "play-chexers.png",
    ] {
        let png = std::fs::read(shots.join(f)).unwrap();
        assert!(
            png.starts_with(b"\x89PNG") && png.len() > 10_000,
            "{f}: {} bytes",
            png.len()
        );
    }
}
