//! The builds CI makes share their compiled crates: the lean build (no default features)
//! and the GPU one (feature `wgpu`) turn on no feature of a crate the default build
//! compiles that the default build does not, so each compiles only its own crates and
//! this one (the feature pins in `Cargo.toml` keep it so; without them a feature of a
//! shared crate, `serde`'s `rc` or `proc-macro2`'s span locations, recompiles most of
//! the tree). Read from `cargo tree` against `Cargo.lock` (which downloads what it lacks).

use std::collections::BTreeMap;
use std::process::Command;
use std::sync::LazyLock;

/// The default build's crates and features, read once for every comparison.
static DEFAULT: LazyLock<BTreeMap<String, String>> = LazyLock::new(|| features(&[]));

/// Every crate of a build and its features, by `cargo tree` with `args`.
fn features(args: &[&str]) -> BTreeMap<String, String> {
    let out = Command::new(env!("CARGO"))
        .args(["tree", "--locked", "--workspace"])
        .args(["--prefix", "none", "-e", "normal,build,dev"])
        .args(["-f", "{p}|{f}"])
        .args(args)
        .output()
        .expect("running cargo tree");
    assert!(
        out.status.success(),
        "cargo tree {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut crates = BTreeMap::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let line = line.trim_end_matches(" (*)");
        if let Some((package, features)) = line.split_once('|') {
            // A package's path (a workspace member's) is not part of its name.
            let name = package.split(" (").next().unwrap().to_string();
            crates.insert(name, features.to_string());
        }
    }
    crates
}

/// The crates of `other` that the default build compiles with other features, but
/// those `own` names (the build's own reason to differ).
fn differing(other: &[&str], own: &[&str]) -> Vec<String> {
    features(other)
        .iter()
        .filter(|(name, f)| DEFAULT.get(*name).is_some_and(|d| d != *f))
        .filter(|(name, _)| !own.iter().any(|o| name.starts_with(o)))
        .map(|(name, f)| format!("{name}: [{f}], the default build's [{}]", DEFAULT[name]))
        .collect()
}

#[test]
fn the_lean_build_compiles_only_this_crate_again() {
    let differ = differing(&["--no-default-features"], &["contagion ", "hexxagon "]);
    assert!(differ.is_empty(), "pin in Cargo.toml: {differ:#?}");
}

#[test]
fn the_gpu_build_compiles_only_the_gpu_stack_again() {
    let own = ["contagion ", "hexxagon ", "burn", "cubecl"];
    let differ = differing(&["--features", "wgpu"], &own);
    assert!(differ.is_empty(), "pin in Cargo.toml: {differ:#?}");
}
