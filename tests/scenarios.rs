//! Every scenario file under `scenarios/` is a test: it is checked
//! exhaustively, each property must meet its expected verdict, every
//! counterexample must replay, and the report (verdicts, state counts,
//! counterexamples) must match its snapshot under `snapshots/`.
//! Adding a file adds a case.

use std::path::Path;

use zoocheck::scenario::{report, Scenario};

#[test]
fn every_scenario_meets_its_expectation() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    insta::glob!("../scenarios", "**/*.toml", |file| {
        let scenario = Scenario::load(file, &root).unwrap_or_else(|error| panic!("{error}"));
        let outcome = scenario.check(&Default::default());
        let report = report(&scenario, &outcome);
        insta::with_settings!({
            snapshot_path => "../snapshots",
            prepend_module_to_snapshot => false,
            description => scenario.description.trim(),
            omit_expression => true,
            snapshot_suffix => "",
        }, {
            insta::assert_snapshot!(scenario.name.replace('/', "__"), report);
        });
        for property in &outcome.properties {
            assert!(
                property.as_expected(),
                "{}: {} expected {} but is {}\n{report}",
                scenario.name,
                property.name,
                property.expected.name(),
                property.actual.name()
            );
            if let Some(trace) = &property.trace {
                assert!(
                    trace.replays,
                    "{}: the trace for {} does not replay",
                    scenario.name, property.name
                );
            }
        }
    });
}
