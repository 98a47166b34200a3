//! The newcomer's path runs as typed: every line of the `sh` blocks of the README, the
//! training guide and the configuration reference, in that order, in a scratch directory that sees
//! the repository's `configs/` and `models/` (so `checkpoints/` and `exported/` are its
//! own), and the README's Python block with the test environment's Python. The few lines
//! run elsewhere are named below with where; a `train` line runs at most
//! [`TRAIN_CAP_MINUTES`] (and the iteration it is in).

use std::path::Path;
use std::process::Command;

use crate::markdown::sh_lines;
use crate::process::{text, with_input};
use crate::python::venv_python;

/// Lines checked elsewhere: their start, and where.
const ELSEWHERE: &[(&str, &str)] = &[
    ("cargo build", ".ci/run builds the same binary"),
    ("cargo install", ".ci/run builds the same binary"),
    ("cargo test", ".ci/run runs the tests"),
    (
        "pip install tensorboard",
        "tests/suite/tensorboard.rs reads the event files with TensorBoard's reader",
    ),
    (
        "contagion serve",
        "tests/suite/browser.rs and tests/suite/serve.rs drive the page and its API",
    ),
    (
        "tensorboard --logdir",
        "tests/suite/tensorboard.rs reads the event files with TensorBoard's reader",
    ),
    (
        "contagion selfplay --config configs/infexion.toml --store s3://",
        "tests/s3_store.rs runs workers against a real S3 server",
    ),
];

/// The minutes a guide's `train` command may run here: the test appends
/// `--set run.max_minutes=` this to each (a run finishes the iteration it is in, so each
/// still trains and checkpoints), so that a recipe's own length (the Ataxx warm start's
/// ten minutes) is not spent inside a test.
const TRAIN_CAP_MINUTES: f64 = 0.5;

/// The README's one `python` block.
fn python_block(readme: &str) -> String {
    let start = readme.find("```python\n").expect("a python block") + "```python\n".len();
    readme[start..][..readme[start..].find("```").unwrap()].to_string()
}

#[test]
fn the_readme_s_commands_run() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let dir = crate::process::temp_dir("readme");
    for shared in ["configs", "models"] {
        std::os::unix::fs::symlink(root.join(shared), dir.join(shared)).unwrap();
    }
    let mut commands = sh_lines(&readme);
    assert!(commands.len() >= 10, "{commands:?}");
    for doc in ["docs/train.md", "docs/configuration.md"] {
        commands.extend(sh_lines(&std::fs::read_to_string(root.join(doc)).unwrap()));
    }
    let mut ran = 0;
    for line in &commands {
        if ELSEWHERE.iter().any(|(start, _)| line.starts_with(start)) {
            continue;
        }
        let line = line
            .strip_prefix("cargo run --release -- ")
            .map_or(line.clone(), |rest| format!("contagion {rest}"));
        let mut words = shlex::split(&line).unwrap_or_else(|| panic!("{line}: unbalanced quotes"));
        if words.get(1).is_some_and(|w| w == "train") && !line.contains("run.max_minutes") {
            words.extend([
                "--set".into(),
                format!("run.max_minutes={TRAIN_CAP_MINUTES}"),
            ]);
        }
        assert_eq!(
            words[0], "contagion",
            "a README command this test does not know: {line}"
        );
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_contagion"));
        cmd.args(&words[1..]).current_dir(&dir);
        // The interactive commands get what a person would type first, then leave.
        let input = match words[1].as_str() {
            "play" => "help\nquit\n",
            "engine" => "uai\nisready\ngo movetime 50\nquit\n",
            _ => "",
        };
        let o = with_input(cmd, input);
        assert!(o.status.success(), "{line}:\n{}", text(&o));
        ran += 1;
    }
    assert!(ran >= 16, "{ran} commands ran");
    assert!(dir.join("checkpoints/infexion-tiny/best.ckpt").is_file());
    assert!(dir.join("exported/tiny/model.onnx").is_file());

    let out = Command::new(venv_python())
        .args(["-c", &python_block(&readme)])
        .env("PYTHONPATH", root.join("frontends/python"))
        .current_dir(root)
        .output()
        .unwrap();
    assert!(out.status.success(), "the README's Python:\n{}", text(&out));
}
