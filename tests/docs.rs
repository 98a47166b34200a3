//! The documents hold together:
//! - the configuration reference cannot drift from the code: `docs/configuration.md`'s
//!   table and `configs/infexion.toml` (which documents every field) list exactly the
//!   fields of [`Config`], section by section (ranges are declared once, in
//!   `config/validate.rs`, and quoted by the errors; no document repeats them);
//! - every relative link and image in every Markdown file of the repository names a file
//!   that exists, and every `#anchor` a heading of the file it points into;
//! - the README stays a front door (at most 500 lines) and `docs/` holds documents only
//!   (run artefacts live in `experiments/`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use contagion::config::Config;

type Fields = BTreeMap<String, BTreeSet<String>>;

/// Section → field names of a TOML table of tables.
fn fields_of(table: &toml::Table) -> Fields {
    (table.iter())
        .map(|(section, v)| {
            let keys = v.as_table().expect("a section").keys().cloned().collect();
            (section.clone(), keys)
        })
        .collect()
}

/// `text` without its parenthesised parts (nested ones too).
fn without_parentheses(text: &str) -> String {
    let mut depth = 0;
    let mut out = String::new();
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            c if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// The reference's table: `` | `[section]` | `field` (…), … | ``.
fn reference_fields() -> Fields {
    let readme = std::fs::read_to_string("docs/configuration.md").unwrap();
    let mut out = Fields::new();
    for line in readme.lines() {
        let Some(rest) = line.strip_prefix("| `[") else {
            continue;
        };
        let (section, fields) = rest.split_once("]` |").expect("a section row");
        let names = without_parentheses(fields)
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect();
        out.insert(section.to_string(), names);
    }
    out
}

#[test]
fn the_reference_and_the_reference_config_list_every_field_of_the_code() {
    let code = fields_of(&toml::from_str(&Config::default().to_toml()).unwrap());
    assert_eq!(code.len(), 8, "{code:?}");
    assert_eq!(reference_fields(), code, "docs/configuration.md's table");
    let reference = std::fs::read_to_string("configs/infexion.toml").unwrap();
    assert_eq!(
        fields_of(&toml::from_str(&reference).unwrap()),
        code,
        "configs/infexion.toml"
    );
}

/// Every Markdown file of the repository (not under `target/`, builds or hidden folders).
fn markdown_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if name.starts_with('.') || ["target", "build"].contains(&name.as_str()) {
                continue;
            }
            if path.is_dir() {
                walk(&path, out);
            } else if name.ends_with(".md") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(Path::new("."), &mut out);
    out.sort();
    out
}

/// The lines of `text` outside fenced code blocks, with inline code removed.
fn prose(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            let parts: Vec<&str> = line.split('`').collect();
            out.push(parts.iter().step_by(2).copied().collect::<String>());
        }
    }
    out
}

/// The targets of the inline links and images in `text`: `[label](target)`.
fn link_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose(text) {
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            if let Some(end) = rest.find(')') {
                out.push(rest[..end].trim().to_string());
                rest = &rest[end..];
            }
        }
    }
    out
}

/// GitHub's anchors for the headings of `text` (lowercased; punctuation dropped but `-`
/// and `_`; spaces to `-`; a repeated anchor gets `-1`, `-2`, …).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeMap::<String, usize>::new();
    let mut out = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        let Some(title) = (!fenced)
            .then(|| line.trim_start_matches('#'))
            .filter(|t| t.len() < line.len() && t.starts_with(' '))
        else {
            continue;
        };
        let slug: String = title
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let n = seen.entry(slug.clone()).or_default();
        out.insert(if *n == 0 {
            slug.clone()
        } else {
            format!("{slug}-{n}")
        });
        *n += 1;
    }
    out
}

#[test]
fn every_link_in_the_documents_resolves() {
    let files = markdown_files();
    assert!(files.len() >= 15, "{files:?}");
    let mut broken = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for target in link_targets(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let resolved = if path.is_empty() {
                file.clone()
            } else {
                file.parent().unwrap().join(path)
            };
            if !resolved.exists() {
                broken.push(format!("{}: {target}: no such file", file.display()));
                continue;
            }
            if !anchor.is_empty() && resolved.extension().is_some_and(|e| e == "md") {
                let heads = anchors(&std::fs::read_to_string(&resolved).unwrap());
                if !heads.contains(anchor) {
                    broken.push(format!("{}: {target}: no such heading", file.display()));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn anchors_follow_github() {
    let heads = anchors("# A b\n## `contagion train` — from a config\n## A b\n```\n# not\n```\n");
    let want = ["a-b", "contagion-train--from-a-config", "a-b-1"];
    assert_eq!(heads, want.iter().map(|s| s.to_string()).collect());
    assert_eq!(
        link_targets("see [x](a.md#b) and `[y](c.md)` and ![i](p.png)"),
        ["a.md#b", "p.png"]
    );
}

#[test]
fn the_readme_is_a_front_door_and_docs_hold_documents() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 500,
        "README.md has {lines} lines; the limit is 500"
    );
    for entry in std::fs::read_dir("docs").unwrap() {
        let path = entry.unwrap().path();
        let ok = path
            .extension()
            .is_some_and(|e| e == "md" || e == "png" || e == "svg");
        assert!(
            ok,
            "{}: docs/ holds documents and their figures; run artefacts go to experiments/",
            path.display()
        );
    }
}
