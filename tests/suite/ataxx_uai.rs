//! python-ataxx, a real UAI client, plays full games against `contagion engine` and
//! reads the PGN that `contagion eval --pgn` wrote (tests/python/ataxx_client.py).

use crate::python;

use std::process::Command;

#[test]
fn python_ataxx_plays_over_uai_and_reads_our_pgn() {
    let dir = tempfile_dir("ataxx-uai");
    let pgn = dir.join("games.pgn");
    let bin = env!("CARGO_BIN_EXE_contagion");
    let root = env!("CARGO_MANIFEST_DIR");
    let bundle = format!("{root}/models/ataxx-4x32-15min");
    let eval = Command::new(bin)
        .args([
            "eval",
            "--game",
            "ataxx",
            "--games",
            "4",
            "--quiet",
            "--threads",
            "2",
        ])
        .args([
            "--a",
            &format!("model:{bundle},sims=16"),
            "--b",
            "alphabeta:depth=1",
        ])
        .arg("--pgn")
        .arg(&pgn)
        .output()
        .unwrap();
    assert!(
        eval.status.success(),
        "{}",
        String::from_utf8_lossy(&eval.stderr)
    );
    let out = Command::new(python::venv_python())
        .arg(format!("{root}/tests/python/ataxx_client.py"))
        .args([bin, &bundle])
        .arg(&pgn)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("uai game 2:"), "{stdout}");
    assert!(stdout.contains("pgn: 4 games read"), "{stdout}");
    std::fs::remove_dir_all(&dir).ok();
}

fn tempfile_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("contagion-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
