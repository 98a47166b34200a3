//! Every `unsafe fn` in `src/`, public or private, says what its caller must hold: its
//! doc comment has a `# Safety` section (clippy's `missing_safety_doc` checks only the
//! public ones).

use std::path::Path;

use crate::docs::files_under;

/// The `unsafe fn` lines of `code` (1-based) whose doc comment, read upwards over the
/// attributes, has no `# Safety` heading.
fn undocumented(code: &str) -> Vec<usize> {
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        let declares = [
            "unsafe fn ",
            "pub unsafe fn ",
            "pub(super) unsafe fn ",
            "pub(crate) unsafe fn ",
        ]
        .iter()
        .any(|p| t.starts_with(p));
        if !declares {
            continue;
        }
        let above = lines[..i]
            .iter()
            .rev()
            .map(|l| l.trim_start())
            .take_while(|l| l.starts_with("///") || l.starts_with("#["));
        if !above.into_iter().any(|l| l.trim() == "/// # Safety") {
            out.push(i + 1);
        }
    }
    out
}

#[test]
fn every_unsafe_fn_has_a_safety_section() {
    let mut missing = Vec::new();
    let mut seen = 0;
    for path in files_under(Path::new("src")) {
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let code = std::fs::read_to_string(&path).unwrap();
        seen += code.matches("unsafe fn ").count();
        for line in undocumented(&code) {
            missing.push(format!("{}:{line}", path.display()));
        }
    }
    assert!(
        seen >= 10,
        "only {seen} unsafe fns found: is the scan reading src/?"
    );
    assert!(
        missing.is_empty(),
        "unsafe fns without a `# Safety` section: {missing:#?}"
    );
}

#[test]
fn the_scan_finds_a_missing_section() {
    let code = "/// Adds.\n#[inline]\nunsafe fn add() {}\n\n/// Subtracts.\n///\n/// # Safety\n/// None.\n#[inline]\npub unsafe fn sub() {}\n";
    assert_eq!(undocumented(code), vec![3]);
}
