//! Every scenario under `scenarios/` is checked exhaustively: each property
//! must meet the verdict the file expects, every counterexample must replay
//! and say what went wrong, and the report (verdicts, state counts,
//! counterexamples) must match its snapshot under `tests/snapshots/`.

use std::path::Path;

use zoocheck::check::CheckOptions;
use zoocheck::scenario::{report, unmet, Recipes, Scenario};

#[test]
fn every_scenario_meets_its_expectations() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let scenarios = Scenario::load_all_among(&root, Recipes::These(&own_recipe::RECIPES))
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(scenarios.len(), 3, "the scenarios under scenarios/");
    let mut wrong = Vec::new();
    for scenario in &scenarios {
        let outcome = scenario.check(&CheckOptions::default());
        insta::assert_snapshot!(scenario.name.replace('/', "__"), report(scenario, &outcome));
        let unmet = unmet(&outcome);
        if !unmet.is_empty() {
            wrong.push(format!("{}: {}", scenario.name, unmet.join("; ")));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A scenario that names a recipe the project does not have is refused,
/// with the file, the key and the recipes it could name.
#[test]
fn a_recipe_the_project_does_not_have_is_named() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/once/claim_lose_reply.toml"),
    )
    .unwrap()
    .replace("recipe = \"once\"", "recipe = \"lock\"");
    let error = Scenario::parse_among(
        &text,
        Path::new("scenarios/once/x.toml"),
        "once/x",
        Recipes::These(&own_recipe::RECIPES),
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "scenarios/once/x.toml: `recipe`: unknown recipe \"lock\"; expected one of once"
    );
}
