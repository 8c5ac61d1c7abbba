//! The crate's shape, checked: every `crate::` and `super::` path in `src/` is resolved to the file
//! it names, and the test fails on a file that uses a module of a higher layer than its own, or on
//! a cycle between files. The layers, top to bottom, are `LAYERS`; a module may use its own
//! layer's files (without cycles) and anything below. Unit tests inside a file are not counted.
// Tests sort with the standard library: the one-sort rule (clippy.toml) is for the module.
#![allow(clippy::disallowed_methods)]
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Top-level modules by layer, highest first. Modules in one entry may not use each other.
const LAYERS: &[&[&str]] = &[
    &["lib"],
    &["bindings"],
    &["vectors"],
    &["hierarchy"],
    &["array"],
    &["codecs"],
    &["indexing", "store"],
    &["compression"],
    &["metadata"],
    &["data_type"],
    &["host", "limits"],
    &["collections", "error"],
    &["json_text"],
];

fn layer_of(top: &str) -> usize {
    LAYERS
        .iter()
        .position(|l| l.contains(&top))
        .unwrap_or_else(|| panic!("src/{top} is in no layer of tests/layers.rs"))
}

/// Every `.rs` file under `dir`, as its module path (`["codecs", "blosc"]` for
/// `codecs/blosc/mod.rs`; `[]` for `lib.rs`).
fn modules(root: &Path, dir: &Path, out: &mut BTreeMap<Vec<String>, PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            modules(root, &path, out);
            continue;
        }
        if path.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        let rel = path.strip_prefix(root).unwrap();
        let mut parts: Vec<String> = rel
            .iter()
            .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
            .collect();
        if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
            parts.pop();
        }
        out.insert(parts, path);
    }
}

/// The source without its unit tests (`#[cfg(test)]` and everything after it in the file is, in
/// this crate, test code) and without comments.
fn code_of(source: &str) -> String {
    let source = match source.find("#[cfg(test)]\nmod tests") {
        Some(at) => &source[..at],
        None => source,
    };
    source
        .lines()
        .map(|l| match l.find("//") {
            Some(at) => &l[..at],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths of a use tree at `s` (after `crate::` or `super::`): `a::b`, `a::{b, c::d}`, ...
fn tree(s: &str) -> (Vec<Vec<String>>, usize) {
    let mut path = Vec::new();
    let mut at = 0;
    let bytes: Vec<char> = s.chars().collect();
    loop {
        while at < bytes.len() && bytes[at].is_whitespace() {
            at += 1;
        }
        if at < bytes.len() && bytes[at] == '{' {
            at += 1;
            let mut all = Vec::new();
            loop {
                let rest: String = bytes[at..].iter().collect();
                let (subs, used) = tree(&rest);
                at += used;
                for sub in subs {
                    let mut p = path.clone();
                    p.extend(sub);
                    all.push(p);
                }
                while at < bytes.len() && (bytes[at].is_whitespace() || bytes[at] == ',') {
                    at += 1;
                }
                if at >= bytes.len() || bytes[at] == '}' {
                    return (all, at + 1);
                }
            }
        }
        let start = at;
        while at < bytes.len() && is_ident(bytes[at]) {
            at += 1;
        }
        if at > start {
            path.push(bytes[start..at].iter().collect::<String>());
        }
        if bytes[at..].starts_with(&[':', ':']) {
            at += 2;
            continue;
        }
        return (vec![path], at);
    }
}

/// The modules a file declares: `mod name;`, and the codec files `codecs!(a, b, ...)` declares.
fn children(code: &str) -> Vec<String> {
    let mut names: Vec<String> = code
        .lines()
        .filter_map(|l| {
            let l = l
                .trim()
                .trim_start_matches("pub ")
                .trim_start_matches("pub(crate) ");
            let name = l.strip_prefix("mod ")?.strip_suffix(';')?;
            Some(name.to_string())
        })
        .collect();
    names.extend(listed_codecs(code));
    names
}

/// The codec files a `codecs!(a, b, ...)` invocation names.
fn listed_codecs(code: &str) -> Vec<String> {
    let Some(at) = code.find("\ncodecs!(") else {
        return Vec::new();
    };
    let list = &code[at + "\ncodecs!(".len()..];
    let list = &list[..list.find(')').unwrap_or(0)];
    list.split(',')
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty())
        .collect()
}

/// The module paths one file's code names: through `crate::`, `super::` and its own children.
fn references(module: &[String], code: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    // `codecs!` both declares its codec files and lists their entries: a use of each.
    if code.contains("\ncodecs!(") {
        for child in listed_codecs(code) {
            let mut full = module.to_vec();
            full.push(child);
            found.push(full);
        }
    }
    for child in children(code) {
        let prefix = format!("{child}::");
        let mut from = 0;
        while let Some(pos) = code[from..].find(&prefix) {
            let at = from + pos;
            from = at + prefix.len();
            if code[..at].ends_with(|c: char| is_ident(c) || c == ':') {
                continue;
            }
            for path in tree(&code[from..]).0 {
                let mut full = module.to_vec();
                full.push(child.clone());
                full.extend(path);
                found.push(full);
            }
        }
    }
    for prefix in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(pos) = code[from..].find(prefix) {
            let at = from + pos;
            from = at + prefix.len();
            if code[..at].chars().last().is_some_and(is_ident) {
                continue;
            }
            let (paths, _) = tree(&code[from..]);
            for path in paths {
                let full = if prefix == "crate::" {
                    path
                } else {
                    // `super` of `a/b.rs` is `a`; of `a/b/mod.rs`, also `a`.
                    let mut base = module.to_vec();
                    base.pop();
                    let mut rest = path;
                    while rest.first().is_some_and(|s| s == "super") {
                        base.pop();
                        rest.remove(0);
                    }
                    base.extend(rest);
                    base
                };
                found.push(full);
            }
        }
    }
    found
}

#[test]
fn dependencies_point_down_and_files_have_no_cycles() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = BTreeMap::new();
    modules(&root, &root, &mut files);
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    let mut wrong = Vec::new();
    for (module, path) in &files {
        let code = code_of(&std::fs::read_to_string(path).unwrap());
        for reference in references(module, &code) {
            // The file that defines what the path names: its longest prefix that is a file.
            let Some(target) = (1..=reference.len())
                .rev()
                .map(|n| reference[..n].to_vec())
                .find(|m| files.contains_key(m))
            else {
                continue;
            };
            if &target == module || module.starts_with(&target) && target.is_empty() {
                continue;
            }
            let top = |m: &[String]| m.first().cloned().unwrap_or_else(|| "lib".into());
            let (from, to) = (layer_of(&top(module)), layer_of(&top(&target)));
            if to < from || (to == from && top(module) != top(&target)) {
                wrong.push(format!(
                    "src/{} uses {} (a higher or sideways layer)",
                    module.join("/"),
                    reference.join("::")
                ));
            }
            edges.entry(module.clone()).or_default().insert(target);
        }
    }
    assert!(wrong.is_empty(), "layer rule broken:\n{}", wrong.join("\n"));
    let cycles = find_cycles(&edges);
    assert!(
        cycles.is_empty(),
        "files that depend on each other:\n{}",
        cycles.join("\n")
    );
}

/// A cycle through each file that is on one, as "a -> b -> a".
fn find_cycles(edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<String> {
    let name = |m: &Vec<String>| {
        if m.is_empty() {
            "lib".to_string()
        } else {
            m.join("/")
        }
    };
    let mut cycles = BTreeMap::new();
    for start in edges.keys() {
        // Breadth-first from `start`'s targets back to `start`, keeping the way.
        let mut came_from: BTreeMap<&Vec<String>, &Vec<String>> = BTreeMap::new();
        let mut queue: Vec<&Vec<String>> = vec![start];
        let mut i = 0;
        let mut closed = None;
        while i < queue.len() && closed.is_none() {
            let at = queue[i];
            i += 1;
            for next in edges.get(at).into_iter().flatten() {
                if next == start {
                    closed = Some(at);
                    break;
                }
                if !came_from.contains_key(next) && next != start {
                    came_from.insert(next, at);
                    queue.push(next);
                }
            }
        }
        if let Some(mut at) = closed {
            let mut way = vec![name(start)];
            while at != start {
                way.push(name(at));
                at = came_from[at];
            }
            way.push(name(start));
            way.reverse();
            // One entry per cycle, whichever file it is found from.
            let mut key = way[..way.len() - 1].to_vec();
            key.sort();
            cycles.entry(key).or_insert_with(|| way.join(" -> "));
        }
    }
    cycles.into_values().collect()
}
