//! `zoocheck pin PATH...`: checks each scenario as `cargo test` does and
//! writes its snapshot, exactly the file the test reads
//! ([`zoocheck::scenario::pin`]), so that a new question is pinned without
//! building the test profile.

use std::path::PathBuf;
use std::process::ExitCode;

use zoocheck::scenario::pin::{pin, snapshot_file, snapshot_place};

use crate::cli::load::load;
use crate::cli::progress::{finish_progress, set_progress_name, show_progress};
use crate::UsageError;

/// Pins each scenario under `paths`. A scenario the test would fail on (an
/// expectation not met, the searches with and without reductions
/// disagreeing) is not pinned: exit 1, saying why. With `check_only`,
/// writes nothing and exits 1 if a snapshot is missing or would change.
pub(crate) fn pin_scenarios(paths: &[PathBuf], check_only: bool) -> Result<ExitCode, UsageError> {
    let (scenarios, refused) = load(paths)?;
    for error in &refused {
        eprintln!("zoocheck: {error}");
    }
    // Every file has its place before any snapshot is written.
    let mut places = Vec::new();
    for scenario in &scenarios {
        places.push(snapshot_place(scenario).ok_or_else(|| {
            UsageError(format!(
                "{}: not under a `scenarios` directory; a snapshot goes in the project's snapshots/, beside it",
                scenario.file.display()
            ))
        })?);
    }
    let mut failed = 0;
    for (scenario, (snapshot, input_file)) in scenarios.iter().zip(places) {
        set_progress_name(&scenario.name);
        let pinned = pin(scenario, Some(show_progress));
        finish_progress();
        if !pinned.wrong.is_empty() {
            failed += 1;
            outln!(
                "{}: NOT PINNED, the test would fail on it: {}",
                scenario.name,
                pinned.wrong.join("; ")
            );
            continue;
        }
        let file = snapshot_file(scenario, &input_file, &pinned.report);
        let before = std::fs::read_to_string(&snapshot).ok();
        let shown = shown_path(&snapshot);
        match (&before, check_only) {
            (Some(before), _) if *before == file => {
                outln!("{}: {shown} unchanged", scenario.name);
                if !check_only {
                    remove_stale(&snapshot)?;
                }
            }
            (_, true) => {
                failed += 1;
                match &before {
                    Some(before) => {
                        outln!("{}: {shown} would change:", scenario.name);
                        print_changes(before, &file);
                    }
                    None => outln!("{}: {shown} is missing", scenario.name),
                }
            }
            (_, false) => {
                if let Some(parent) = snapshot.parent() {
                    std::fs::create_dir_all(parent)
                        .map_err(|error| UsageError(format!("{}: {error}", parent.display())))?;
                }
                std::fs::write(&snapshot, &file)
                    .map_err(|error| UsageError(format!("{shown}: {error}")))?;
                match &before {
                    Some(before) => {
                        outln!("{}: {shown} updated:", scenario.name);
                        print_changes(before, &file);
                    }
                    None => outln!("{}: {shown} written", scenario.name),
                }
                remove_stale(&snapshot)?;
            }
        }
    }
    Ok(match (failed, refused.is_empty()) {
        (0, true) => ExitCode::SUCCESS,
        (0, false) => ExitCode::from(2),
        _ => ExitCode::from(1),
    })
}

/// `snapshots/lock__x.snap`: the path from the project's directory.
fn shown_path(snapshot: &std::path::Path) -> String {
    let name = snapshot.file_name().unwrap_or_default().to_string_lossy();
    format!("snapshots/{name}")
}

/// The lines that differ, as `-` (the pinned) and `+` (the new), so that
/// drift shows: in the order they come in, a rewritten line's old then new
/// ([`zoocheck::text::changed_lines`]).
fn print_changes(before: &str, after: &str) {
    for (added, line) in zoocheck::text::changed_lines(before, after) {
        let sign = if added { '+' } else { '-' };
        outln!("  {sign} {line}");
    }
}

/// Removes what a failed `cargo test` left beside `snapshot`: insta's
/// `.snap.new`, the run it would have pinned, now older than the snapshot
/// `pin` just wrote or found unchanged (`cargo insta review` would offer it
/// again). Says so.
fn remove_stale(snapshot: &std::path::Path) -> Result<(), UsageError> {
    let stale = snapshot.with_extension("snap.new");
    if !stale.exists() {
        return Ok(());
    }
    std::fs::remove_file(&stale)
        .map_err(|error| UsageError(format!("{}: {error}", shown_path(&stale))))?;
    outln!("  removed the stale {}", shown_path(&stale));
    Ok(())
}
