//! Bundles from earlier versions load: the shipped Infexion bundle as it was at commit
//! `23b7b6d`, before manifests carried `weights_sha256` (its manifest is kept in
//! `tests/data/bundle-23b7b6d/`; its weights are today's `models/infexion-4x32-77min`
//! byte for byte). It loads with a one-line warning, in Rust and in Python, and runs
//! exactly as the same weights with today's manifest.

use crate::python;

use std::path::{Path, PathBuf};
use std::process::Command;

use contagion::bench::sample_positions;
use contagion::games::Game;
use contagion::games::infexion::Board;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The bundle of `23b7b6d` in a fresh directory.
fn old_bundle(tag: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("contagion-old-bundle-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        root().join("tests/data/bundle-23b7b6d/manifest.json"),
        dir.join("manifest.json"),
    )
    .unwrap();
    std::fs::copy(
        root().join("models/infexion-4x32-77min/model.safetensors"),
        dir.join("model.safetensors"),
    )
    .unwrap();
    dir
}

#[test]
fn a_bundle_without_a_checksum_loads_and_runs_as_its_weights() {
    let dir = old_bundle("rust");
    let old = contagion::nn::formats::bundle::load(&dir).expect("the old bundle loads");
    let new =
        contagion::nn::formats::bundle::load(&root().join("models/infexion-4x32-77min")).unwrap();
    let n = old.shape.input_len();
    let mut input = Vec::new();
    for p in sample_positions(&Board::new(), 8, 20, 3) {
        let mut planes = vec![0.0; n];
        p.encode(&mut planes);
        input.extend(planes);
    }
    let (a, b) = (old.infer(input.clone(), 8), new.infer(input, 8));
    assert_eq!(a.logits, b.logits);
    assert_eq!(a.values, b.values);
    // A damaged file is still refused when the manifest has a checksum.
    let manifest = std::fs::read_to_string(dir.join("manifest.json")).unwrap();
    let with_sum = manifest.replacen("{", "{\n  \"weights_sha256\": \"00\",", 1);
    std::fs::write(dir.join("manifest.json"), with_sum).unwrap();
    let err = contagion::nn::formats::bundle::load(&dir).expect_err("a wrong checksum is refused");
    assert!(
        format!("{err:#}").contains("damaged or replaced"),
        "{err:#}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_cli_plays_an_old_bundle_with_a_one_line_warning() {
    let dir = old_bundle("cli");
    let out = Command::new(env!("CARGO_BIN_EXE_contagion"))
        .args(["eval", "--b", "random", "--games", "2", "--quiet", "--a"])
        .arg(format!("model:{},sims=4", dir.display()))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let warnings: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("no weights_sha256"))
        .collect();
    assert!(!warnings.is_empty(), "no warning: {err}");
    assert!(warnings.iter().all(|l| l.starts_with("warning: ")), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn python_loads_an_old_bundle_with_a_warning() {
    let dir = old_bundle("python");
    let script = "import sys, warnings\n\
                  from czero.model import Model\n\
                  with warnings.catch_warnings(record=True) as w:\n\
                  \x20   warnings.simplefilter('always')\n\
                  \x20   m = Model(sys.argv[1])\n\
                  print(len(w), str(w[0].message) if w else '')\n";
    let out = python::czero()
        .args(["-c", script])
        .arg(&dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.starts_with("1 ") && stdout.contains("no weights_sha256"),
        "{stdout}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
