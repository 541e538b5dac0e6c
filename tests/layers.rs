//! The crate's layers, kept: every top-level module (a file or directory
//! under `src/`, and `models/`) stands in one row of the table in
//! `src/lib.rs`'s docs, and each `crate::` path outside a test module points
//! to its own row or a row below, with no circle within a row.
//!
//! The edges are read from the source text as the compiler resolves them
//! for `crate::x` and `use crate::{x, ...}`: a module's use of another is a
//! path that starts at the crate's root. (`super::` never leaves a
//! top-level module, and the binary's modules reach the library as
//! `zoocheck::`.)

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The table: each row's modules, top row first.
fn layers() -> Vec<(String, Vec<String>)> {
    let lib = fs::read_to_string(Path::new(ROOT).join("src/lib.rs")).expect("src/lib.rs reads");
    let docs: Vec<&str> = lib
        .lines()
        .filter_map(|line| line.strip_prefix("//!"))
        .map(str::trim)
        .collect();
    let start = docs
        .iter()
        .position(|line| *line == "# Layers")
        .expect("src/lib.rs's docs have a `# Layers` section");
    let open = start
        + docs[start..]
            .iter()
            .position(|line| *line == "```text")
            .expect("the layers section draws its table in a ```text block");
    docs[open + 1..]
        .iter()
        .take_while(|line| **line != "```")
        .map(|line| {
            let mut words = line.split_whitespace().map(str::to_string);
            let name = words.next().expect("a row names its layer");
            (name, words.collect())
        })
        .collect()
}

/// Each top-level module and the files that make it.
fn modules() -> BTreeMap<String, Vec<PathBuf>> {
    let mut modules: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for entry in fs::read_dir(Path::new(ROOT).join("src")).expect("src/ lists") {
        let path = entry.expect("src/ lists").path();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            modules.insert(stem, rust_files(&path));
        } else if path.extension().is_some_and(|ext| ext == "rs") && stem != "lib" {
            modules.entry(stem).or_default().push(path);
        }
    }
    // The binary's root is the binary's module.
    let main = modules.remove("main").expect("src/main.rs");
    modules.entry("cli".into()).or_default().extend(main);
    modules.insert("models".into(), rust_files(&Path::new(ROOT).join("models")));
    modules
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).expect("a module directory lists") {
        let path = entry.expect("a module directory lists").path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// The code of a file that the compiler builds outside tests: up to its
/// first `#[cfg(test)]`, without comments.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules `code` names by a path from the crate's root.
fn uses(code: &str) -> BTreeSet<String> {
    let mut used = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // `use crate::{a::B, c, d::{e, f}}`: the names at depth one.
            let mut depth = 0;
            let mut word = String::new();
            let mut first = true;
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        if !word.is_empty() {
                            used.insert(std::mem::take(&mut word));
                        }
                        first = true;
                    }
                    c if c.is_alphanumeric() || c == '_' => {
                        if first && depth == 0 {
                            word.push(c);
                        }
                    }
                    _ => {
                        if !word.is_empty() {
                            used.insert(std::mem::take(&mut word));
                        }
                        if c == ':' {
                            first = false;
                        }
                    }
                }
            }
            if !word.is_empty() {
                used.insert(word);
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            used.insert(name);
        }
    }
    used
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let modules = modules();
    modules
        .iter()
        .map(|(name, files)| {
            let used: BTreeSet<String> = files
                .iter()
                .flat_map(|file| uses(&code(&fs::read_to_string(file).expect("source reads"))))
                .filter(|used| used != name && modules.contains_key(used))
                .collect();
            (name.clone(), used)
        })
        .collect()
}

#[test]
fn every_module_stands_in_one_row() {
    let drawn: Vec<String> = layers().into_iter().flat_map(|(_, row)| row).collect();
    let unique: BTreeSet<&String> = drawn.iter().collect();
    assert_eq!(
        unique.len(),
        drawn.len(),
        "a module stands in two rows: {drawn:?}"
    );
    let modules = modules();
    let real: BTreeSet<&String> = modules.keys().collect();
    let missing: Vec<_> = real.difference(&unique).collect();
    let extra: Vec<_> = unique.difference(&real).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "src/lib.rs's layers leave out {missing:?} and draw modules that do not exist: {extra:?}"
    );
}

#[test]
fn every_use_points_down_or_across_and_no_row_has_a_circle() {
    let layers = layers();
    let row_of: BTreeMap<&str, usize> = (layers.iter().enumerate())
        .flat_map(|(row, (_, modules))| modules.iter().map(move |m| (m.as_str(), row)))
        .collect();
    let graph = graph();
    // Rows are listed top first: a use may go to the same row or a later one.
    let mut upward = Vec::new();
    for (from, to) in graph
        .iter()
        .flat_map(|(from, tos)| tos.iter().map(move |to| (from, to)))
    {
        let (Some(&a), Some(&b)) = (row_of.get(from.as_str()), row_of.get(to.as_str())) else {
            continue; // every_module_stands_in_one_row says so
        };
        if b < a {
            upward.push(format!(
                "{from} ({}) uses {to} ({}), a row above",
                layers[a].0, layers[b].0
            ));
        }
    }
    assert!(
        upward.is_empty(),
        "uses that point up:\n{}",
        upward.join("\n")
    );
    assert_eq!(circle(&graph), None, "a circle of modules");
}

/// A circle in `graph`, if it has one, as the modules along it.
fn circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit<'a>(
        node: &'a str,
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        marks: &mut BTreeMap<&'a str, Mark>,
        path: &mut Vec<&'a str>,
    ) -> Option<Vec<String>> {
        match marks.get(node) {
            Some(Mark::Done) => return None,
            Some(Mark::Open) => {
                let from = path.iter().position(|n| *n == node).unwrap();
                let mut circle: Vec<String> = path[from..].iter().map(|n| n.to_string()).collect();
                circle.push(node.to_string());
                return Some(circle);
            }
            None => {}
        }
        marks.insert(node, Mark::Open);
        path.push(node);
        for next in graph.get(node).into_iter().flatten() {
            if let Some(circle) = visit(next, graph, marks, path) {
                return Some(circle);
            }
        }
        path.pop();
        marks.insert(node, Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut marks, &mut Vec::new()))
}

#[test]
fn the_reader_sees_uses_as_the_compiler_does() {
    let code = code(
        "use crate::{store::{Op, Path}, world};\n\
         use crate::{lasso,search::Repeat};\n\
         use crate::check::Verdict; // crate::report\n\
         fn f() { crate::text::quoted(); }\n\
         #[cfg(test)]\nmod tests { use crate::scenario; }",
    );
    let expected: BTreeSet<String> = ["store", "world", "lasso", "search", "check", "text"]
        .map(String::from)
        .into();
    assert_eq!(uses(&code), expected);
    let mut knot = BTreeMap::new();
    knot.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    knot.insert("b".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(
        circle(&knot),
        Some(vec!["a".into(), "b".into(), "a".into()])
    );
}
