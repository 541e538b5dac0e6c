//! Traces as files: a counterexample saved to replay later, from anywhere
//! in the project (`replay`, `report`), and to read without zoocheck (its
//! steps in words). What a trace says is [`crate::trace`]'s; where its
//! scenario file is, is this module's.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::trace::Trace;
use crate::world::Action;

/// A trace as saved to a file: enough to replay it (the scenario file and the
/// actions) and to read it without zoocheck (the steps in words).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceFile {
    /// `zoocheck-trace/1`.
    pub format: String,
    /// The scenario's name and its file, as given to zoocheck.
    pub scenario: String,
    pub file: PathBuf,
    /// The variant it ran under, where the command line named one in place
    /// of the file's (`check FILE --variants no_guid`): every client's, as
    /// `--variants` takes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    pub property: String,
    /// `violated` or `reached`.
    pub verdict: String,
    /// The zoocheck command that found it (`check FILE`, `simulate FILE --seed N ...`).
    pub found_by: String,
    pub actions: Vec<Action>,
    pub steps: Vec<String>,
}

pub const TRACE_FORMAT: &str = "zoocheck-trace/1";

/// How a trace names its scenario file so that it replays from anywhere in
/// the project: from the project's directory (the one holding `scenarios/`),
/// as `scenarios/lock/guid_2_clients.toml`. A file outside any `scenarios`
/// directory is named by its absolute path.
pub fn stored_path(file: &std::path::Path) -> PathBuf {
    let absolute = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    crate::scenario::scenarios_dir(&absolute)
        .and_then(|scenarios| scenarios.parent())
        .and_then(|project| absolute.strip_prefix(project).ok())
        .map(std::path::Path::to_path_buf)
        .unwrap_or(absolute)
}

/// The scenario file a trace at `trace` names ([`stored_path`]): looked for
/// from the trace's directory and each above it, then from the current
/// directory and each above it.
pub fn resolve_stored_path(stored: &std::path::Path, trace: &std::path::Path) -> Option<PathBuf> {
    if stored.is_absolute() {
        return stored.is_file().then(|| stored.to_path_buf());
    }
    let trace_dir = std::fs::canonicalize(trace)
        .ok()
        .and_then(|trace| trace.parent().map(std::path::Path::to_path_buf));
    let current = std::env::current_dir().ok();
    [trace_dir, current]
        .into_iter()
        .flatten()
        .flat_map(|start| {
            start
                .ancestors()
                .map(|ancestor| ancestor.join(stored))
                .collect::<Vec<_>>()
        })
        .find(|candidate| candidate.is_file())
}

impl TraceFile {
    pub fn new(
        scenario: &str,
        file: PathBuf,
        verdict: &str,
        found_by: String,
        trace: &Trace,
    ) -> TraceFile {
        TraceFile {
            format: TRACE_FORMAT.to_string(),
            scenario: scenario.to_string(),
            variant: None,
            file,
            property: trace.property.to_string(),
            verdict: verdict.to_string(),
            found_by,
            actions: trace.actions.clone(),
            steps: trace.steps.iter().map(|step| step.text.clone()).collect(),
        }
    }
}
