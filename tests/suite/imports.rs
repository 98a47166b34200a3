//! The code's imports keep its shape:
//! - every module of `src/` uses only the layers below its own in `src/lib.rs` (its
//!   `pub mod` lines, grouped bottom up by blank lines);
//! - no import loop between files: no two files that are not a folder and its own files
//!   reach each other.
//!
//! Both read the same references: the `use` trees (groups expanded, over several lines
//! too) and the inline `crate::…` and `super::…` paths of every file, comments and unit
//! tests left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::docs::files_under;

/// Each `pub mod` of `src/lib.rs` with its layer: groups separated by blank lines, bottom
/// up.
fn layers() -> BTreeMap<String, usize> {
    let lib = std::fs::read_to_string("src/lib.rs").unwrap();
    let mut layer = 0;
    let mut out = BTreeMap::new();
    let mut in_group = false;
    for line in lib.lines() {
        if let Some(name) = line
            .strip_prefix("pub mod ")
            .and_then(|l| l.strip_suffix(';'))
        {
            out.insert(name.to_string(), layer);
            in_group = true;
        } else if line.trim().is_empty() && in_group {
            layer += 1;
            in_group = false;
        }
    }
    out
}

#[test]
fn every_module_uses_only_the_layers_below_it_in_lib_rs() {
    let layers = layers();
    assert!(layers.len() >= 15, "{layers:?}");
    let mut wrong = BTreeSet::new();
    for (me, code) in &modules() {
        let Some(&own) = me.first().and_then(|top| layers.get(top)) else {
            continue; // lib.rs, main.rs
        };
        for path in references(me, code) {
            let Some(used) = path.first().filter(|top| layers.get(*top) > Some(&own)) else {
                continue;
            };
            wrong.insert(format!("{} uses {used}", me.join("::")));
        }
    }
    assert!(
        wrong.is_empty(),
        "a module uses a layer above it (src/lib.rs lists them bottom up): {wrong:#?}"
    );
}

/// Every source file of `src/` by its module path (`games::ataxx::board`; a folder's
/// `mod.rs` by the folder's), with its code: comments and the unit tests left out.
fn modules() -> BTreeMap<Vec<String>, String> {
    let mut out = BTreeMap::new();
    for file in files_under(Path::new("src")) {
        if file.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let rel = file.strip_prefix("src").unwrap().with_extension("");
        let mut path: Vec<String> = rel.iter().map(|c| c.to_string_lossy().into()).collect();
        if path
            .last()
            .is_some_and(|l| l == "mod" || l == "lib" || l == "main")
        {
            path.pop();
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let code = text
            .split("#[cfg(test)]\nmod tests")
            .next()
            .unwrap_or_default();
        let code: Vec<&str> = code
            .lines()
            .map(|l| l.split("//").next().unwrap_or_default())
            .collect();
        out.insert(path, code.join("\n"));
    }
    out
}

/// The paths a `use` tree names, from `tree` (the text after `use`, up to its `;`).
fn use_paths(tree: &str) -> Vec<String> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = tree.find('{') else {
        return vec![tree];
    };
    let (prefix, rest) = (&tree[..open], &tree[open + 1..tree.len().saturating_sub(1)]);
    // Split the group at its top-level commas.
    let (mut parts, mut depth, mut from) = (Vec::new(), 0, 0);
    for (i, c) in rest.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&rest[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&rest[from..]);
    (parts.into_iter().filter(|p| !p.is_empty()))
        .flat_map(|p| use_paths(p).into_iter().map(|q| format!("{prefix}{q}")))
        .collect()
}

/// The module paths `code` (of the module at `me`) refers to: its `use` trees and inline
/// `crate::` and `super::` paths, `super::` and `self::` resolved, each as written (the file it
/// lands in is found later).
fn references(me: &[String], code: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("use ") {
        let before = rest[..i].chars().last();
        rest = &rest[i + 4..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let end = rest.find(';').unwrap_or(rest.len());
        paths.extend(use_paths(&rest[..end]));
    }
    let inline = ["crate::", "super::"]
        .iter()
        .flat_map(|k| code.match_indices(k));
    for (i, _) in inline {
        let before = code[..i].chars().last();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let tail: String = code[i..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        paths.push(tail);
    }
    let mut out = Vec::new();
    for p in paths {
        let segs: Vec<&str> = p.split("::").filter(|s| !s.is_empty()).collect();
        // `super` names the parent module (of a folder's `mod.rs`, too), `self` the
        // module itself.
        let mut base: Vec<String> = me.to_vec();
        let mut it = segs.iter().peekable();
        match it.peek() {
            Some(&&"crate") => {
                base.clear();
                it.next();
            }
            Some(&&"super") => {
                while it.peek() == Some(&&"super") {
                    it.next();
                    base.pop();
                }
            }
            Some(&&"self") => {
                it.next();
            }
            _ => continue, // another crate, or an item in scope
        }
        base.extend(it.map(|s| s.to_string()));
        out.push(base);
    }
    out
}

/// The files each file imports from, a folder and its own files aside.
fn import_graph() -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let modules = modules();
    let mut graph = BTreeMap::new();
    for (me, code) in &modules {
        let mut to = BTreeSet::new();
        for path in references(me, code) {
            // The longest prefix that is a file.
            let Some(file) = (0..=path.len())
                .rev()
                .map(|n| path[..n].to_vec())
                .find(|p| modules.contains_key(p))
            else {
                continue;
            };
            let related = file.starts_with(me) || me.starts_with(&file);
            if !related {
                to.insert(file);
            }
        }
        graph.insert(me.clone(), to);
    }
    graph
}

#[test]
fn no_two_files_import_each_other() {
    let graph = import_graph();
    assert!(graph.len() > 100, "{} files", graph.len());
    // The import graph is read right: known edges are there.
    let edge = |a: &str, b: &str| {
        let key = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
        graph[&key(a)].contains(&key(b))
    };
    assert!(
        edge("agents::nnue", "search::pvs"),
        "{:?}",
        graph[&vec!["agents".to_string(), "nnue".to_string()]]
    );
    assert!(edge("train::distill_loop", "train::gating"));
    assert!(edge("selfplay::generate", "selfplay::replay"));
    // Depth-first search for a cycle, reporting the first found.
    fn visit(
        node: &Vec<String>,
        graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        state: &mut BTreeMap<Vec<String>, u8>,
        stack: &mut Vec<Vec<String>>,
        loops: &mut Vec<String>,
    ) {
        state.insert(node.clone(), 1);
        stack.push(node.clone());
        for next in &graph[node] {
            match state.get(next).copied().unwrap_or(0) {
                0 => visit(next, graph, state, stack, loops),
                1 => {
                    let from = stack.iter().position(|n| n == next).unwrap();
                    let names: Vec<String> = stack[from..].iter().map(|n| n.join("::")).collect();
                    loops.push(format!("{} -> {}", names.join(" -> "), next.join("::")));
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(node.clone(), 2);
    }
    let (mut state, mut loops) = (BTreeMap::new(), Vec::new());
    for node in graph.keys() {
        if !state.contains_key(node) {
            visit(node, &graph, &mut state, &mut Vec::new(), &mut loops);
        }
    }
    assert!(loops.is_empty(), "import loops between files: {loops:#?}");
}
