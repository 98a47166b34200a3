//! The code's imports keep its shape:
//! - every module of `src/` uses only the layers below its own in `src/lib.rs` (its
//!   `pub mod` lines, grouped bottom up by blank lines);
//! - no import loop between files: no two files reach each other, a folder's `mod.rs`
//!   and its own files included (a planted loop of that kind is found).
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
    let modules = modules();
    for (me, code) in &modules {
        let Some(&own) = me.first().and_then(|top| layers.get(top)) else {
            continue; // lib.rs, main.rs
        };
        for path in references(me, code, &modules) {
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

/// The paths a `use` tree names, from `tree` (the text after `use`, up to its `;`); a
/// renamed one as `path@alias`.
fn use_paths(tree: &str) -> Vec<String> {
    let tree: String = (tree.split_whitespace())
        .map(|t| if t == "as" { "@" } else { t })
        .collect();
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

/// The `use` trees of `code` whose keyword follows `lead` (`"use "`, `"pub use "`), as
/// paths.
fn use_trees(code: &str, lead: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find(lead) {
        let before = rest[..i].chars().last();
        rest = &rest[i + lead.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let end = rest.find(';').unwrap_or(rest.len());
        paths.extend(use_paths(&rest[..end]));
    }
    paths
}

/// `path` (as written in the module at `me`, alias dropped) as a module path from the
/// crate's root: `crate::`, `super::` and `self::` resolved, and a path from one of the
/// module's own children (`use games::Games;` in a `mod.rs`); `None` for another crate's
/// or an item in scope.
fn resolve(
    me: &[String],
    path: &str,
    modules: &BTreeMap<Vec<String>, String>,
) -> Option<Vec<String>> {
    let path = path.split('@').next().unwrap_or_default();
    let segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    // `super` names the parent module (of a folder's `mod.rs`, too), `self` the module
    // itself.
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
        Some(first) if modules.contains_key(&[me, &[first.to_string()]].concat()) => {}
        _ => return None,
    }
    base.extend(it.map(|s| s.to_string()));
    Some(base)
}

/// The module paths `code` (of the module at `me`) refers to: its `use` trees and inline
/// `crate::` and `super::` paths, resolved, each as written (the file it lands in is
/// found later).
fn references(
    me: &[String],
    code: &str,
    modules: &BTreeMap<Vec<String>, String>,
) -> Vec<Vec<String>> {
    let mut paths = use_trees(code, "use ");
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
        // A `use` group's prefix (`crate::games::{…}`) was read with its tree.
        if !tail.ends_with("::") {
            paths.push(tail);
        }
    }
    (paths.iter())
        .filter_map(|p| resolve(me, p, modules))
        .collect()
}

/// What each module re-exports (`pub use`), by the name it is re-exported as.
fn reexports(
    modules: &BTreeMap<Vec<String>, String>,
) -> BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>> {
    let mut out = BTreeMap::new();
    for (me, code) in modules {
        let mut names = BTreeMap::new();
        let trees = [
            use_trees(code, "pub use "),
            use_trees(code, "pub(crate) use "),
        ];
        for path in trees.concat() {
            let name = match path.split_once('@') {
                Some((_, alias)) => alias,
                None => path.rsplit("::").next().unwrap_or_default(),
            };
            if let Some(target) = resolve(me, &path, modules).filter(|_| name != "*") {
                names.insert(name.to_string(), target);
            }
        }
        out.insert(me.clone(), names);
    }
    out
}

/// The file `path` lands in: the longest prefix that is a file, through its re-exports
/// to the file that declares the item.
fn file_of(
    path: &[String],
    modules: &BTreeMap<Vec<String>, String>,
    reexports: &BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>>,
    hops: usize,
) -> Option<Vec<String>> {
    let n = (0..=path.len())
        .rev()
        .find(|&n| modules.contains_key(&path[..n]))?;
    let file = path[..n].to_vec();
    let moved = (path.get(n)).and_then(|name| reexports[&file].get(name));
    match moved {
        Some(target) if hops < 8 && target.as_slice() != path => {
            let through = [target.as_slice(), &path[n + 1..]].concat();
            file_of(&through, modules, reexports, hops + 1)
        }
        _ => Some(file),
    }
}

/// The files each file of `modules` imports from, a folder's `mod.rs` and its own files
/// included, each reference followed through re-exports to the file that declares its
/// item (a `mod.rs`'s `pub use` of its own file is an edge to that file).
fn import_graph(
    modules: &BTreeMap<Vec<String>, String>,
) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let reexports = reexports(modules);
    let mut graph = BTreeMap::new();
    for (me, code) in modules {
        let mut to = BTreeSet::new();
        for path in references(me, code, modules) {
            match file_of(&path, modules, &reexports, 0) {
                Some(file) if &file != me => to.insert(file),
                _ => continue,
            };
        }
        graph.insert(me.clone(), to);
    }
    graph
}

/// The import loops of `graph`, each as the files around it (the first found through
/// each file, by a depth-first search).
fn loops(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<String> {
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
            visit(node, graph, &mut state, &mut Vec::new(), &mut loops);
        }
    }
    loops
}

#[test]
fn no_two_files_import_each_other() {
    let graph = import_graph(&modules());
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
    let loops = loops(&graph);
    assert!(loops.is_empty(), "import loops between files: {loops:#?}");
}

#[test]
fn a_loop_through_a_folder_s_mod_rs_is_found() {
    let module = |path: &str, code: &str| {
        let path = path.split("::").map(String::from).collect::<Vec<_>>();
        (path, code.to_string())
    };
    // A `mod.rs` re-exporting its file's type while the file uses the `mod.rs`'s.
    let planted = BTreeMap::from([
        module(
            "nn",
            "pub mod queue;\npub use queue::Queue;\npub struct Net;",
        ),
        module("nn::queue", "use super::Net;\npub struct Queue(Net);"),
    ]);
    let found = loops(&import_graph(&planted));
    assert_eq!(found, ["nn -> nn::queue -> nn"]);
    // Without the re-export there is none.
    let fixed = BTreeMap::from([
        module("nn", "pub mod queue;\npub struct Net;"),
        module("nn::queue", "use super::Net;\npub struct Queue(Net);"),
    ]);
    assert!(loops(&import_graph(&fixed)).is_empty());
}
