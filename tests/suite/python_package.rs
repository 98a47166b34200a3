//! The Python front end as a package: `pip install ./frontends/python` into the test
//! environment, then its own tests (`frontends/python/tests/test_rules.py`: every
//! game's rules against the engine's perft counts) run against the installed copy.

use crate::python;

use crate::bundle;

use std::path::Path;
use std::process::Command;

use contagion::games::Game;
use contagion::games::ataxx::Ataxx;
use contagion::games::chexers::Chexers;

#[test]
fn the_installed_package_passes_its_own_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("contagion-pypkg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Manifests for the games without a shipped bundle: untrained networks, exported.
    fn manifest<G: Game>(start: &G, dir: &Path) -> std::path::PathBuf {
        let dir = dir.join(start.name());
        std::fs::create_dir_all(&dir).unwrap();
        bundle::export_trained(start, (1, 4), &[], 0, &dir)
            .1
            .join("manifest.json")
    }
    let virus = manifest(&Ataxx::virus(), &dir);
    let chexers = manifest(&Chexers::new(), &dir);
    let python = python::venv_python();
    let install = Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--force-reinstall",
        ])
        .arg(root.join("frontends/python"))
        .output()
        .unwrap();
    assert!(
        install.status.success(),
        "{}",
        String::from_utf8_lossy(&install.stderr)
    );
    // Run from elsewhere, without PYTHONPATH: only the installed package can be imported.
    let out = Command::new(&python)
        .args(["-m", "unittest", "discover", "-v", "-s"])
        .arg(root.join("frontends/python/tests"))
        .args(["-p", "test_*.py"])
        .current_dir(&dir)
        .env_remove("PYTHONPATH")
        .env("CZERO_VIRUS_MANIFEST", &virus)
        .env("CZERO_CHEXERS_MANIFEST", &chexers)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{report}");
    assert!(
        report.contains("Ran 6 tests") && report.contains("OK"),
        "{report}"
    );
    let shown = Command::new(&python)
        .args(["-c", "import czero, os; print(czero.__file__)"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let location = String::from_utf8_lossy(&shown.stdout);
    assert!(
        location.contains("site-packages"),
        "imported from {location}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
