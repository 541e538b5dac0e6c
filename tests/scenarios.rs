//! Every scenario file under `scenarios/` is a test of its own, named after
//! its path (`lock/guid_pause_expire`): it is checked exhaustively, each
//! property must meet its expected verdict, every counterexample must replay,
//! and the report (verdicts, state counts, counterexamples) must match its
//! snapshot under `snapshots/`. It is checked twice, with the search's
//! reductions ([`zoocheck::reduce`]) and without: the verdicts must be the
//! same, and the snapshot pins both state counts. Adding a file adds a test.
//!
//! `cargo test --test scenarios -- lock/guid_pause_expire` runs that one
//! scenario (the usual substring filter; `--exact` and `--list` work too). A
//! filter that names no scenario fails instead of passing with nothing run.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use libtest_mimic::{Arguments, Failed, Trial};
use zoocheck::check::{CheckOptions, Outcome, Verdict};
use zoocheck::reduce::Reductions;
use zoocheck::scenario::{report, unmet, Scenario};
use zoocheck::text::did_you_mean;

fn main() -> ExitCode {
    let arguments = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let files = match scenario_files(&root) {
        Ok(files) => files,
        Err(error) => {
            eprintln!("scenarios: cannot list {}: {error}", root.display());
            return ExitCode::FAILURE;
        }
    };
    let trials: Vec<Trial> = files
        .into_iter()
        .map(|file| {
            let name = name_of(&file, &root);
            let root = root.clone();
            Trial::test(name, move || check(&file, &root))
        })
        .collect();
    if let Some(filter) = unmatched_filter(&arguments, &trials) {
        return filter;
    }
    libtest_mimic::run(&arguments, trials).exit_code()
}

/// A filter that selects no scenario: say so, with the nearest name, and
/// fail, so that a typo never reads as a pass.
fn unmatched_filter(arguments: &Arguments, trials: &[Trial]) -> Option<ExitCode> {
    let filter = arguments.filter.as_deref()?;
    let selected = |name: &str| {
        if arguments.exact {
            name == filter
        } else {
            name.contains(filter)
        }
    };
    if trials.iter().any(|trial| selected(trial.name())) {
        return None;
    }
    let names: Vec<&str> = trials.iter().map(Trial::name).collect();
    eprintln!(
        "scenarios: no scenario {}{filter:?}; names are paths under scenarios/ \
         without .toml, like lock/guid_pause_expire{}",
        if arguments.exact {
            "is named "
        } else {
            "name contains "
        },
        did_you_mean(filter, &names)
            .map(|name| format!(" (did you mean {name}?)"))
            .unwrap_or_default()
    );
    eprintln!("scenarios: to filter another test binary alone, name it: cargo test --test NAME");
    Some(ExitCode::FAILURE)
}

/// Every `.toml` file under `dir`, in path order.
fn scenario_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path
                .extension()
                .is_some_and(|extension| extension == "toml")
            {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// `lock/guid_pause_expire` for `scenarios/lock/guid_pause_expire.toml`.
fn name_of(file: &Path, root: &Path) -> String {
    file.strip_prefix(root)
        .unwrap_or(file)
        .with_extension("")
        .to_string_lossy()
        .replace('\\', "/")
}

fn check(file: &Path, root: &Path) -> Result<(), Failed> {
    let scenario = Scenario::load(file, root).map_err(|error| error.to_string())?;
    let outcome = scenario.check(&Default::default());
    // The same question without the reductions: the same verdicts, and
    // both state counts pinned. An ensemble is searched without them
    // either way (`World::reductions`), so its one search answers both.
    let unreduced;
    let exact = match scenario.store.servers {
        1 => {
            unreduced = scenario.check(&CheckOptions {
                reductions: Reductions::NONE,
                ..Default::default()
            });
            &unreduced
        }
        _ => &outcome,
    };
    let report = with_exact_counts(&report(&scenario, &outcome), exact);
    let input_file = Path::new("scenarios").join(file.strip_prefix(root).unwrap_or(file));
    insta::with_settings!({
        snapshot_path => Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots"),
        prepend_module_to_snapshot => false,
        description => scenario.description.trim(),
        omit_expression => true,
        snapshot_suffix => "",
        input_file => input_file,
    }, {
        insta::assert_snapshot!(scenario.name.replace('/', "__"), report);
    });
    // Every verdict is as expected and proven where expected so, and every
    // counterexample replays and tells its verdict; and the search without
    // reductions agrees.
    let mut wrong = unmet(&outcome);
    wrong.extend(differences(&outcome, exact));
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(format!("{}: {}\n{report}", scenario.name, wrong.join("; ")).into())
    }
}

/// The report with the state counts of the search without reductions under
/// those of the search with them.
fn with_exact_counts(report: &str, exact: &Outcome) -> String {
    let line = format!(
        "states without reductions: {} unique, {} visited, deepest path {}",
        exact.unique_states, exact.states, exact.max_depth
    );
    let mut lines: Vec<&str> = report.lines().collect();
    let at = lines
        .iter()
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
    let names = |outcome: &Outcome| -> Vec<&str> {
        outcome
            .properties
            .iter()
            .map(|property| property.name)
            .collect()
    };
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
        let steps = |property: &zoocheck::check::PropertyOutcome| {
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
