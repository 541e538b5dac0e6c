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

/// A knob turned in a scenario file makes the variant it is a preset of:
/// `claim` with `claim_with_id = true` is `claim_with_id`, on the same
/// question with the same states, and the lost reply no longer strands the
/// job. An unknown knob is refused with the key and the knobs there are.
#[test]
fn a_knob_turned_in_a_scenario_is_the_preset_it_makes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/once");
    let parse = |text: &str, name: &str| {
        Scenario::parse_among(
            text,
            &dir.join(format!("{name}.toml")),
            &format!("once/{name}"),
            Recipes::These(&own_recipe::RECIPES),
        )
    };
    let claim = std::fs::read_to_string(dir.join("claim_lose_reply.toml")).unwrap();
    let with_id = std::fs::read_to_string(dir.join("claim_with_id_lose_reply.toml")).unwrap();
    let turned = claim
        .replace("\n[faults]", "\n[knobs]\nclaim_with_id = true\n\n[faults]")
        .replace(
            "a_claimed_job_runs = \"violated\"",
            "a_claimed_job_runs = \"holds\"",
        );
    let options = CheckOptions::default();
    let turned = parse(&turned, "turned").unwrap().check(&options);
    let preset = parse(&with_id, "claim_with_id_lose_reply")
        .unwrap()
        .check(&options);
    assert!(unmet(&turned).is_empty(), "{:?}", unmet(&turned));
    assert_eq!(turned.unique_states, preset.unique_states);

    let misspelt = claim.replace("\n[faults]", "\n[knobs]\nclaim_with_ids = true\n\n[faults]");
    let error = parse(&misspelt, "misspelt").unwrap_err().to_string();
    assert!(
        error.contains("knobs.claim_with_ids") && error.contains("claim_with_id"),
        "{error}"
    );
}
