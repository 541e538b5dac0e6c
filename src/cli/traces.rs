//! Counterexamples written to files (`--trace-out`), never one over another.

use std::path::{Path, PathBuf};

use zoocheck::check::{Outcome, Shows, Verdict};
use zoocheck::scenario::Scenario;
use zoocheck::trace;
use zoocheck::trace_file::{self, TraceFile};

use crate::UsageError;

/// Writes traces, never one over another silently: two scenarios of the same
/// name from different roots, or a file left by another scenario, get a
/// numbered name instead.
pub(crate) struct TraceWriter<'a> {
    dir: Option<&'a Path>,
    written: Vec<PathBuf>,
}

impl<'a> TraceWriter<'a> {
    pub(crate) fn new(dir: Option<&'a Path>) -> Result<TraceWriter<'a>, UsageError> {
        if let Some(dir) = dir {
            std::fs::create_dir_all(dir)
                .map_err(|e| UsageError(format!("{}: {e}", dir.display())))?;
        }
        Ok(TraceWriter {
            dir,
            written: Vec::new(),
        })
    }

    pub(crate) fn write(
        &mut self,
        scenario: &Scenario,
        outcome: &Outcome,
        found_by: &str,
    ) -> Result<(), UsageError> {
        if let Some(panic) = &outcome.panic {
            // A panic's trace is written even unasked: it is how to reproduce it.
            if let Some(trace) = &panic.trace {
                let dir = self.dir.unwrap_or(Path::new("."));
                match self.write_json(dir, scenario, trace, "panicked", found_by, panic.seed) {
                    Ok(json_path) => eprintln!(
                        "wrote {}: it replays to the panic (`zoocheck replay {}`)",
                        json_path.display(),
                        json_path.display()
                    ),
                    // The panic is reported all the same; the other
                    // scenarios are still checked.
                    Err(UsageError(error)) => {
                        eprintln!("zoocheck: the panic's trace could not be written: {error}")
                    }
                }
            }
        }
        let Some(dir) = self.dir else {
            return Ok(());
        };
        for property in &outcome.properties {
            // A counterexample, or the path an unproven verdict rests on
            // (a `holds?` of `terminates`: the path to the depth bound).
            let Some((trace, shows)) = property.path() else {
                continue;
            };
            if shows == Shows::Witness {
                continue;
            }
            let (verdict, title) = if property.actual == Verdict::Violated {
                ("violated", "violated".to_string())
            } else {
                let shown = property.shown();
                (
                    "unproven",
                    format!("{shown}: the path it rests on, not a proof"),
                )
            };
            let json_path =
                self.write_json(dir, scenario, trace, verdict, found_by, property.seed)?;
            let stem = json_path.with_extension("");
            let diagram = scenario.world().diagram(&trace.actions).mermaid();
            let md_path = stem.with_extension("md");
            let shrunk = property
                .shrunk
                .map(|shrunk| {
                    format!(
                        " (its walk took {} steps, shrunk to these {})",
                        shrunk.from,
                        trace.steps.len()
                    )
                })
                .unwrap_or_default();
            let markdown = format!(
                "# {}: {} {title}\n\n{}\n\nFound by `zoocheck {}`{shrunk}; replay with `zoocheck replay {}`.\n\n```mermaid\n{diagram}```\n\n{}",
                scenario.name,
                property.name,
                scenario.description.trim(),
                found_by_seed(found_by, property.seed, property.name),
                json_path.display(),
                trace
            );
            std::fs::write(&md_path, markdown)
                .map_err(|e| UsageError(format!("{}: {e}", md_path.display())))?;
            eprintln!("wrote {} and {}", json_path.display(), md_path.display());
        }
        Ok(())
    }

    /// Writes `trace` of `scenario` as a trace file in `dir` (under a free
    /// name) and answers its path.
    fn write_json(
        &mut self,
        dir: &Path,
        scenario: &Scenario,
        trace: &trace::Trace,
        verdict: &str,
        found_by: &str,
        seed: Option<u64>,
    ) -> Result<PathBuf, UsageError> {
        let mut file = TraceFile::new(
            &scenario.name,
            trace_file::stored_path(&scenario.file),
            verdict,
            found_by_seed(found_by, seed, trace.property),
            trace,
        );
        let mut name = scenario.name.clone();
        if let Some(column) = &scenario.column {
            let variant = column.tuning.to_string();
            let slug: String = (variant.chars())
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect();
            name = format!("{name}__{slug}");
            file.variant = Some(variant);
        }
        let stem = self.free_stem(dir, &name, trace.property_file_name(), &file)?;
        let json_path = stem.with_extension("json");
        std::fs::write(&json_path, serde_json::to_string_pretty(&file)?)
            .map_err(|e| UsageError(format!("{}: {e}", json_path.display())))?;
        Ok(json_path)
    }

    /// `dir/<scenario>__<property>`, or with `-2`, `-3` ... where that name
    /// was written in this run or holds a trace of another scenario file.
    fn free_stem(
        &mut self,
        dir: &Path,
        scenario: &str,
        property: &str,
        file: &TraceFile,
    ) -> Result<PathBuf, UsageError> {
        let base = format!("{}__{}", scenario.replace('/', "__"), property);
        for n in 1..1000 {
            let name = if n == 1 {
                base.clone()
            } else {
                format!("{base}-{n}")
            };
            let stem = dir.join(name);
            let json_path = stem.with_extension("json");
            let taken = self.written.contains(&json_path)
                || (json_path.exists()
                    && zoocheck::text::read_text(&json_path)
                        .ok()
                        .and_then(|text| serde_json::from_str::<TraceFile>(&text).ok())
                        .is_none_or(|old| {
                            old.file != file.file
                                || old.property != file.property
                                || old.variant != file.variant
                        }));
            if !taken {
                if json_path.exists() {
                    // The same question's trace from an earlier run: say so.
                    eprintln!("note: replacing {}", json_path.display());
                }
                if n > 1 {
                    eprintln!(
                        "note: {} is taken by another scenario's trace; writing {} instead",
                        dir.join(&base).with_extension("json").display(),
                        json_path.display()
                    );
                }
                self.written.push(json_path);
                return Ok(stem);
            }
        }
        Err(UsageError(format!(
            "{}: a thousand traces named {base} already; clear it out",
            dir.display()
        )))
    }
}

/// The command that finds a trace again: for a simulation, its walk alone
/// by its seed, judged on the trace's property (a panic's walk needs none).
fn found_by_seed(found_by: &str, seed: Option<u64>, property: &str) -> String {
    match seed {
        Some(seed) if property == trace::PANIC => format!("{found_by} --seed {seed} --runs 1"),
        Some(seed) => format!("{found_by} --seed {seed} --runs 1 --reproduce {property}"),
        None => found_by.to_string(),
    }
}
