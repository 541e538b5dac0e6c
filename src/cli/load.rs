//! Which scenario files the command line names, and their names.

use std::path::{Path, PathBuf};

use zoocheck::scenario::{Scenario, ScenarioError};
use zoocheck::text::shorten;

use crate::UsageError;

/// The scenarios named by `paths` (files, or directories searched for
/// `*.toml`), each named after its path below the nearest `scenarios`
/// directory, and the files refused (a bad file in a directory does not stop
/// the others). A path that does not exist is an error at once.
pub(crate) fn load(paths: &[PathBuf]) -> Result<(Vec<Scenario>, Vec<ScenarioError>), UsageError> {
    let mut scenarios = Vec::new();
    let mut refused = Vec::new();
    for path in paths {
        if !path.exists() {
            return Err(UsageError(format!(
                "{}: no such file or directory",
                shorten(&path.display().to_string(), 200)
            )));
        }
        let found = if path.is_dir() {
            let root = scenarios_root(&canonical(path));
            Scenario::load_each(path)?
                .into_iter()
                .map(|loaded| {
                    loaded.map(|mut scenario| {
                        scenario.name = name_below(&canonical(&scenario.file), &root);
                        scenario
                    })
                })
                .collect()
        } else {
            vec![load_file(path)]
        };
        if found.is_empty() {
            return Err(UsageError(format!(
                "{}: no scenario files (*.toml) here",
                path.display()
            )));
        }
        for loaded in found {
            match loaded {
                Ok(scenario) => scenarios.push(scenario),
                Err(error) => refused.push(error),
            }
        }
    }
    Ok((scenarios, refused))
}

/// One scenario file, named after its path below the nearest `scenarios`
/// directory, found on its canonical path: the same name however the path
/// was written (from inside `scenarios/lock`, `x.toml` is `lock/x`).
pub(crate) fn load_file(path: &Path) -> Result<Scenario, ScenarioError> {
    let file = canonical(path);
    let root = scenarios_root(&file);
    let mut scenario = Scenario::load(path, &root)?;
    scenario.name = name_below(&file, &root);
    Ok(scenario)
}

/// `path` made absolute, links resolved, where the system can; else as given.
fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The `scenarios` directory a path is in (its name is the path below it),
/// else the directory itself, or a file's directory.
fn scenarios_root(path: &Path) -> PathBuf {
    zoocheck::scenario::scenarios_dir(path)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| {
            if path.is_dir() {
                path.to_path_buf()
            } else {
                path.parent().unwrap_or(Path::new("")).to_path_buf()
            }
        })
}

fn name_below(file: &Path, root: &Path) -> String {
    file.strip_prefix(root)
        .unwrap_or(file)
        .with_extension("")
        .to_string_lossy()
        .replace('\\', "/")
}
