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
use zoocheck::scenario::pin::{pin, snapshot_file, snapshot_name};
use zoocheck::scenario::Scenario;
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
    // Checked with the reductions and without, as `zoocheck pin` does: the
    // same verdicts, and both state counts pinned.
    let pinned = pin(&scenario, None);
    let input_file = Path::new("scenarios").join(file.strip_prefix(root).unwrap_or(file));
    let snapshots = Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots");
    insta::with_settings!({
        snapshot_path => snapshots.clone(),
        prepend_module_to_snapshot => false,
        description => scenario.description.trim(),
        omit_expression => true,
        snapshot_suffix => "",
        input_file => input_file.clone(),
    }, {
        insta::assert_snapshot!(snapshot_name(&scenario), pinned.report);
    });
    // `zoocheck pin` writes the file insta reads, byte for byte.
    let path = snapshots
        .join(snapshot_name(&scenario))
        .with_extension("snap");
    if let Ok(written) = std::fs::read_to_string(&path) {
        let pinned_file = snapshot_file(&scenario, &input_file, &pinned.report);
        if written != pinned_file {
            return Err(format!(
                "{}: `zoocheck pin` would write it otherwise than it is:\n{pinned_file}",
                path.display()
            )
            .into());
        }
    }
    // Every verdict is as expected and proven where expected so, and every
    // counterexample replays and tells its verdict; and the search without
    // reductions agrees.
    if pinned.wrong.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{}: {}\n{}",
            scenario.name,
            pinned.wrong.join("; "),
            pinned.report
        )
        .into())
    }
}
