//! `replay` a saved trace against the code as it stands, and `explore` a
//! scenario in stateright's explorer.

use std::path::Path;
use std::process::ExitCode;

use zoocheck::catalogue;
use zoocheck::properties::termination;
use zoocheck::scenario::Scenario;
use zoocheck::text::{quoted, shorten};
use zoocheck::trace::{self, Stop};
use zoocheck::trace_file::{self, TraceFile, TRACE_FORMAT};

use crate::cli::load::{load, load_file};
use crate::UsageError;

/// Replays a saved trace against its scenario as the code stands now, and,
/// with `zk`, on the real server at that address too.
pub(crate) fn replay(path: &Path, zk: Option<&str>) -> Result<ExitCode, UsageError> {
    let shown = || shorten(&path.display().to_string(), 200);
    let text = zoocheck::text::read_text(path)
        .map_err(|message| UsageError(format!("{}: {message}", shown())))?;
    let saved: TraceFile = serde_json::from_str(&text).map_err(|e| {
        UsageError(format!(
            "{}: not a zoocheck trace: {}",
            shown(),
            shorten(&e.to_string(), 300)
        ))
    })?;
    let field = |key: &str, message: String| UsageError(format!("{}: `{key}`: {message}", shown()));
    if saved.format != TRACE_FORMAT {
        return Err(field(
            "format",
            format!(
                "{:?}; expected {TRACE_FORMAT:?}",
                shorten(&saved.format, 60)
            ),
        ));
    }
    let scenario_file = trace_file::resolve_stored_path(&saved.file, path).ok_or_else(|| {
        field(
            "file",
            format!(
                "{} is found neither beside the trace, nor in the current directory, nor above them",
                quoted(&saved.file.display().to_string(), 200)
            ),
        )
    })?;
    let mut scenario = load_file(&scenario_file)?;
    if let Some(variant) = &saved.variant {
        let tunings =
            (scenario.variants_named(variant)).map_err(|message| field("variant", message))?;
        match &tunings[..] {
            [tuning] => scenario = scenario.under(tuning.clone()),
            _ => {
                return Err(field(
                    "variant",
                    format!("{}: expected one variant", quoted(variant, 100)),
                ))
            }
        }
    }
    if saved.scenario != scenario.name {
        return Err(field(
            "scenario",
            format!(
                "{}, but {} is the scenario {}",
                quoted(&saved.scenario, 100),
                scenario_file.display(),
                scenario.name
            ),
        ));
    }
    if !(saved.found_by.starts_with("check ") || saved.found_by.starts_with("simulate ")) {
        return Err(field(
            "found_by",
            format!(
                "{}; expected the command that found it (`check ...` or `simulate ...`)",
                quoted(&saved.found_by, 100)
            ),
        ));
    }
    if saved.steps.len() != saved.actions.len() {
        return Err(field(
            "steps",
            format!(
                "{} steps for {} actions; expected one per action",
                saved.steps.len(),
                saved.actions.len()
            ),
        ));
    }
    if saved.property == termination::TERMINATES {
        if !matches!(saved.verdict.as_str(), "violated" | "unproven") {
            return Err(field(
                "verdict",
                format!(
                    "{}; expected \"violated\" (a loop) or \"unproven\" (the path a holds? \
                     rests on)",
                    quoted(&saved.verdict, 60)
                ),
            ));
        }
        if zk.is_some() {
            return Err(UsageError(format!(
                "{}: --zk: a `terminates` counterexample is a loop, which a replay on a real \
                 server cannot show to go on forever",
                shown()
            )));
        }
        return Ok(replay_termination(&scenario, &saved));
    }
    let panicked = saved.property == trace::PANIC;
    let always = if panicked {
        None
    } else {
        let kind = catalogue::find(scenario.subject.recipe).and_then(|recipe| {
            recipe
                .properties()
                .into_iter()
                .find(|declared| declared.name == saved.property)
                .map(|declared| declared.always)
        });
        let Some(always) = kind else {
            return Err(field(
                "property",
                format!(
                    "{} is not a property of {}",
                    quoted(&saved.property, 100),
                    scenario.name
                ),
            ));
        };
        Some(always)
    };
    let expected_verdict = match always {
        None => "panicked",
        Some(true) => "violated",
        Some(false) => "reached",
    };
    if saved.verdict != expected_verdict {
        let what = match always {
            None => "a trace of a panic".to_string(),
            Some(true) => format!("{} is an `always` property", saved.property),
            Some(false) => format!("{} is a `sometimes` property", saved.property),
        };
        return Err(field(
            "verdict",
            format!(
                "{}; {what}, so expected {expected_verdict:?}",
                quoted(&saved.verdict, 60)
            ),
        ));
    }
    if let Some(address) = zk {
        return replay_on_server(&scenario, &saved, address);
    }
    let result = scenario.world().retell(&saved.property, &saved.actions);
    let changed =
        (result.steps.iter().zip(&saved.steps).enumerate()).filter(|(_, (now, then))| now != then);
    for (index, (now, then)) in changed {
        outln!(
            "note: step {} now reads: {now}\n      it was saved as:  {then}",
            index + 1
        );
    }
    let steps = saved.actions.len();
    match result.stop {
        None if panicked => {
            outln!(
                "replayed all {steps} steps of {}, but it no longer panics",
                saved.scenario
            );
            Ok(ExitCode::from(1))
        }
        None if result.reached => {
            outln!(
                "replayed {steps} steps of {}: {} is {} again",
                saved.scenario,
                saved.property,
                saved.verdict
            );
            Ok(ExitCode::SUCCESS)
        }
        None => {
            outln!(
                "replayed all {steps} steps of {}, but {} is no longer {}",
                saved.scenario,
                saved.property,
                saved.verdict
            );
            Ok(ExitCode::from(1))
        }
        Some(Stop::Panicked { step, message, .. }) if panicked && step == steps => {
            outln!(
                "replayed {steps} steps of {}: the model panics again: {}",
                saved.scenario,
                shorten(&message, 500)
            );
            Ok(ExitCode::SUCCESS)
        }
        Some(Stop::Panicked {
            step,
            action,
            message,
        }) => {
            let at = match action {
                Some(action) => format!("at step {step} ({action:?})"),
                None => format!("listing what can happen after step {step}"),
            };
            outln!("the model panicked {at}: {}", shorten(&message, 500));
            Ok(ExitCode::from(1))
        }
        Some(Stop::Diverged { step, action }) => {
            let saved_text = saved.steps.get(step - 1).cloned().unwrap_or_default();
            outln!(
                "diverged at step {step}: {} is not possible there any more (it was: {})",
                shorten(&format!("{action:?}"), 200),
                shorten(&saved_text, 500)
            );
            Ok(ExitCode::from(1))
        }
    }
}

/// `explore`: serves stateright's explorer of a scenario's world until the
/// process is stopped.
pub(crate) fn explore(path: &Path, port: u16) -> Result<ExitCode, UsageError> {
    let (scenarios, refused) = load(&[path.to_path_buf()])?;
    if let Some(error) = refused.into_iter().next() {
        return Err(UsageError(error.to_string()));
    }
    let scenario = scenarios
        .into_iter()
        .next()
        .expect("load answers at least one scenario");
    let address = format!("127.0.0.1:{port}");
    // stateright's explorer panics on a port it cannot bind: ask first.
    drop(std::net::TcpListener::bind(&address).map_err(|e| UsageError(format!("{address}: {e}")))?);
    eprintln!(
        "exploring {} at http://{address}/ (Ctrl-C to stop)",
        scenario.name
    );
    scenario.world().explore(&address);
    Ok(ExitCode::SUCCESS)
}

/// `replay` of a `terminates` counterexample: its loop must be there again;
/// of the path an unproven `holds?` rests on: it must replay, and be no
/// loop still.
fn replay_termination(scenario: &Scenario, saved: &TraceFile) -> ExitCode {
    let again = (scenario.world()).replay_loop(&saved.actions, scenario.termination.depth_bound);
    let steps = saved.actions.len();
    if saved.verdict == "unproven" {
        return match again {
            Err(words) if words.starts_with("UNPROVEN") => {
                outln!(
                    "replayed {steps} steps of {}: the path behind its unproven {} is there \
                     again, and still proves nothing\n  {words}",
                    saved.scenario,
                    saved.property
                );
                ExitCode::SUCCESS
            }
            Ok(words) => {
                outln!(
                    "replayed {steps} steps of {}: the path behind its unproven {} is now a \
                     loop\n  {words}",
                    saved.scenario,
                    saved.property
                );
                ExitCode::from(1)
            }
            Err(why) => {
                outln!(
                    "replayed {steps} steps of {}, but the path behind its unproven {} is not \
                     there any more: {why}",
                    saved.scenario,
                    saved.property
                );
                ExitCode::from(1)
            }
        };
    }
    match again {
        Ok(verdict) => {
            outln!(
                "replayed {steps} steps of {}: {} is {} again\n  {verdict}",
                saved.scenario,
                saved.property,
                saved.verdict
            );
            ExitCode::SUCCESS
        }
        Err(why) => {
            outln!(
                "replayed {steps} steps of {}, but {} is no longer {}: {why}",
                saved.scenario,
                saved.property,
                saved.verdict
            );
            ExitCode::from(1)
        }
    }
}

/// `replay --zk`: the trace on the model, each of its server transitions on
/// the real server at `address` too ([`zoocheck::real`]), step by step.
fn replay_on_server(
    scenario: &Scenario,
    saved: &TraceFile,
    address: &str,
) -> Result<ExitCode, UsageError> {
    if scenario.store.servers > 1 {
        outln!(
            "not confirmed: {} runs on an ensemble of {} servers (`store.servers`); `replay --zk` \
             drives one real server, which cannot read stale",
            saved.scenario,
            scenario.store.servers
        );
        return Ok(ExitCode::from(1));
    }
    let bits = scenario.store.sequence_bits;
    if bits != 32 {
        outln!(
            "not confirmed: {} counts sequential names in {bits} bits (`store.sequence_bits`); a \
             real server counts in 32",
            saved.scenario
        );
        return Ok(ExitCode::from(1));
    }
    let bits = scenario.store.version_bits;
    if bits != 32 {
        outln!(
            "not confirmed: {} counts data versions in {bits} bits (`store.version_bits`); a \
             real server counts in 32, and no replay can write 2^31 times",
            saved.scenario
        );
        return Ok(ExitCode::from(1));
    }
    let journaled = scenario.world().journal(&saved.property, &saved.actions);
    let mut server = zoocheck::real::RealServer::start(address)
        .map_err(|error| UsageError(format!("--zk {address}: {error}")))?;
    outln!(
        "replaying {} ({} steps) on the model and on the ZooKeeper at {address}, under {}",
        saved.scenario,
        saved.actions.len(),
        server.root()
    );
    let steps = &journaled.retold.steps;
    for (index, entries) in journaled.entries.iter().enumerate() {
        if index > 0 {
            outln!(
                "{index:>3}. {}",
                steps.get(index - 1).map_or("", String::as_str)
            );
        }
        for entry in entries {
            let done = match server.perform(entry) {
                Ok(done) => done,
                Err(error) => {
                    outln!(
                        "not confirmed: the real server cannot follow {}: {error}",
                        at_step(index)
                    );
                    return Ok(ExitCode::from(1));
                }
            };
            for done in done {
                if done.agrees() {
                    if !done.quiet() {
                        outln!("       {}: {}", done.what, done.model);
                    }
                } else {
                    outln!(
                        "diverged {}: {}\n       model: {}\n       real:  {}",
                        at_step(index),
                        done.what,
                        done.model,
                        done.real
                    );
                    return Ok(ExitCode::from(1));
                }
            }
        }
    }
    let retold = &journaled.retold;
    match &retold.stop {
        None if retold.reached => {
            let mut faults: Vec<&str> = (saved.actions.iter())
                .filter_map(|action| match action {
                    zoocheck::world::Action::Fault(fault) => Some(fault.kind.name()),
                    _ => None,
                })
                .collect();
            faults.sort_unstable();
            faults.dedup();
            let faults = if faults.is_empty() {
                "no fault".to_string()
            } else {
                format!("faults: {}", faults.join(", "))
            };
            outln!(
                "confirmed: the real server answered as the model did at every one of the {} \
                 steps, so {} is {} there too ({faults})",
                saved.actions.len(),
                saved.property,
                saved.verdict
            );
            Ok(ExitCode::SUCCESS)
        }
        _ => {
            outln!(
                "not confirmed: the trace no longer reaches its verdict on the model (`zoocheck \
                 replay` without --zk says why)"
            );
            Ok(ExitCode::from(1))
        }
    }
}

fn at_step(index: usize) -> String {
    if index == 0 {
        "before the first step".into()
    } else {
        format!("at step {index}")
    }
}
