//! A scenario's snapshot: what `cargo test` pins of it (`tests/scenarios.rs`)
//! and what `zoocheck pin` writes, made in one place so that the release
//! binary pins a new question exactly as the test reads it.
//!
//! The snapshot is the scenario's [`report`], checked with the reductions,
//! with the state counts of the same search without them (the verdicts must
//! agree), in the file format of insta, the snapshot library the test
//! asserts with: a YAML header (`source`, `description`, `input_file`)
//! between `---` lines, then the report.

use std::path::{Path as FsPath, PathBuf};

use super::{report, scenarios_dir, unmet, Scenario};
use crate::check::{CheckOptions, Outcome, PropertyOutcome, Verdict};
use crate::reduce::Reductions;

/// The test whose snapshots these are: the header's `source`.
pub const SOURCE: &str = "tests/scenarios.rs";

/// A scenario checked as its snapshot pins it.
pub struct Pinned {
    /// What the snapshot holds below its header.
    pub report: String,
    /// Why the test fails on it, if it does: an expectation not met
    /// ([`unmet`]), or the searches with and without reductions disagreeing.
    pub wrong: Vec<String>,
}

/// Checks `scenario` twice, with its reductions and without, with the
/// options given (`progress` alone may differ from the default: a snapshot's
/// counts are those of the default search).
pub fn pin(scenario: &Scenario, progress: Option<fn(&crate::check::Progress)>) -> Pinned {
    let options = CheckOptions {
        progress,
        ..Default::default()
    };
    let outcome = scenario.check(&options);
    // A world no reduction applies to (an ensemble of a recipe that allows
    // no ample sets, `Explored::reductions`) is searched whole either way,
    // so that its one search answers both.
    let exact = scenario.world().may_reduce(options.reductions).then(|| {
        scenario.check(&CheckOptions {
            reductions: Reductions::NONE,
            ..options.clone()
        })
    });
    let counted = exact.as_ref().unwrap_or(&outcome);
    let report = with_exact_counts(&report(scenario, &outcome), counted);
    let mut wrong = unmet(&outcome);
    wrong.extend(differences(&outcome, counted));
    Pinned { report, wrong }
}

/// The snapshot's name: `lock__guid_pause_expire` for
/// `lock/guid_pause_expire`.
pub fn snapshot_name(scenario: &Scenario) -> String {
    scenario.name.replace('/', "__")
}

/// Where the project a scenario file is in keeps its snapshot: beside its
/// `scenarios` directory, `snapshots/NAME.snap`; and the file's path from
/// the project (`scenarios/lock/x.toml`), the header's `input_file`. `None`
/// for a file under no `scenarios` directory.
pub fn snapshot_place(scenario: &Scenario) -> Option<(PathBuf, PathBuf)> {
    let file = std::fs::canonicalize(&scenario.file).ok()?;
    let scenarios = scenarios_dir(&file)?;
    let project = scenarios.parent()?;
    let input_file = FsPath::new("scenarios").join(file.strip_prefix(scenarios).ok()?);
    let snapshot = (project.join("snapshots"))
        .join(snapshot_name(scenario))
        .with_extension("snap");
    Some((snapshot, input_file))
}

/// The whole snapshot file, byte for byte as insta writes it.
pub fn snapshot_file(scenario: &Scenario, input_file: &FsPath, report: &str) -> String {
    let input_file = input_file.to_string_lossy().replace('\\', "/");
    format!(
        "---\nsource: {}\ndescription: {}\ninput_file: {}\n---\n{}\n",
        yaml_scalar(SOURCE),
        yaml_scalar(scenario.description.trim()),
        yaml_scalar(&input_file),
        report.trim_end().replace("\r\n", "\n")
    )
}

/// The report with the state counts of the search without reductions under
/// those of the search with them.
fn with_exact_counts(report: &str, exact: &Outcome) -> String {
    let line = format!(
        "states without reductions: {} unique, {} visited, deepest path {}",
        exact.unique_states, exact.states, exact.max_depth
    );
    let mut lines: Vec<&str> = report.lines().collect();
    let at = (lines.iter())
        .position(|line| line.starts_with("states: "))
        .map_or(lines.len(), |at| at + 1);
    lines.insert(at, &line);
    lines.join("\n") + "\n"
}

/// Where the search with reductions and the one without disagree: the
/// properties judged, a verdict, whether it is proven, a counterexample's
/// length, where the search stopped, a panic and whether its trace
/// replays; and any trace of the search without them that does not replay.
fn differences(reduced: &Outcome, exact: &Outcome) -> Vec<String> {
    let mut wrong = Vec::new();
    let names =
        |outcome: &Outcome| -> Vec<&str> { outcome.properties.iter().map(|p| p.name).collect() };
    if names(reduced) != names(exact) {
        wrong.push(format!(
            "the properties judged differ: {:?} with reductions, {:?} without",
            names(reduced),
            names(exact)
        ));
    }
    let panic_traced = |outcome: &Outcome| {
        (outcome.panic.as_ref())
            .map(|panic| panic.trace.as_ref().is_some_and(|trace| trace.replays))
    };
    if panic_traced(reduced) != panic_traced(exact) {
        wrong.push(format!(
            "a panic with a trace that replays: {:?} with reductions, {:?} without",
            panic_traced(reduced),
            panic_traced(exact)
        ));
    }
    for property in &exact.properties {
        if property.trace.as_ref().is_some_and(|trace| !trace.replays) {
            wrong.push(format!(
                "without reductions, the trace for {} does not replay",
                property.name
            ));
        }
    }
    if reduced.stopped != exact.stopped || reduced.panic.is_some() != exact.panic.is_some() {
        wrong.push(format!(
            "the search stopped at {:?} (panic: {}) with reductions, at {:?} (panic: {}) without",
            reduced.stopped,
            reduced.panic.is_some(),
            exact.stopped,
            exact.panic.is_some()
        ));
    }
    for (with, without) in reduced.properties.iter().zip(&exact.properties) {
        // A counterexample is a shortest one, so its length is the
        // question's; an example of a `sometimes` is the path the search
        // happened to take.
        let steps = |property: &PropertyOutcome| {
            (property.actual == Verdict::Violated)
                .then(|| property.trace.as_ref().map(|trace| trace.steps.len()))
                .flatten()
        };
        if with.shown() != without.shown() || steps(with) != steps(without) {
            wrong.push(format!(
                "{} is {} ({:?} steps) with reductions but {} ({:?} steps) without",
                with.name,
                with.shown(),
                steps(with),
                without.shown(),
                steps(without)
            ));
        }
    }
    wrong
}

/// A string as insta's YAML writer gives it: plain where YAML reads it back
/// as the same string, else double-quoted with escapes.
fn yaml_scalar(text: &str) -> String {
    if !needs_quotes(text) {
        return text.to_string();
    }
    let mut out = String::from("\"");
    for character in text.chars() {
        match character {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            '\0'..='\u{1f}' | '\u{7f}' => out.push_str(&format!("\\u{:04x}", character as u32)),
            _ => out.push(character),
        }
    }
    out.push('"');
    out
}

/// Whether YAML would read `text` unquoted as something else (a number, a
/// boolean, null, a structure) or not at all.
fn needs_quotes(text: &str) -> bool {
    const WORDS: [&str; 22] = [
        "yes", "Yes", "YES", "no", "No", "NO", "True", "TRUE", "true", "False", "FALSE", "false",
        "on", "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL", "~",
    ];
    let special = |character: char| {
        matches!(
            character,
            ':' | '{'
                | '}'
                | '['
                | ']'
                | ','
                | '#'
                | '`'
                | '"'
                | '\''
                | '\\'
                | '\0'..='\u{6}'
                | '\t'
                | '\n'
                | '\r'
                | '\u{e}'..='\u{1a}'
                | '\u{1c}'..='\u{1f}'
        )
    };
    text.is_empty()
        || text.starts_with(' ')
        || text.ends_with(' ')
        || text.starts_with(['&', '*', '?', '|', '-', '<', '>', '=', '!', '%', '@'])
        || text.contains(special)
        || WORDS.contains(&text)
        || text.starts_with('.')
        || text.starts_with("0x")
        || text.parse::<i64>().is_ok()
        || text.parse::<f64>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::yaml_scalar;

    #[test]
    fn a_scalar_is_quoted_only_where_yaml_would_misread_it() {
        assert_eq!(yaml_scalar("tests/scenarios.rs"), "tests/scenarios.rs");
        assert_eq!(yaml_scalar("a: b"), "\"a: b\"");
        assert_eq!(
            yaml_scalar("two\nlines \"quoted\""),
            "\"two\\nlines \\\"quoted\\\"\""
        );
        assert_eq!(yaml_scalar("true"), "\"true\"");
        assert_eq!(yaml_scalar("12"), "\"12\"");
        assert_eq!(yaml_scalar("-x"), "\"-x\"");
        assert_eq!(yaml_scalar("\u{1}"), "\"\\u0001\"");
    }
}
