//! The performance anchor (`benches/spin/run`) asks Spin and zoocheck one
//! question: `benches/spin/lock_guid.pml` and `benches/spin/lock_guid_<N>.toml`
//! must keep asking the same one. The bench itself measures, so it is run by
//! hand, not here; this checks that its scenarios load and have the Promela
//! model's clients, scripts and faults (not that the two models agree step
//! for step: the bench compares their verdicts on mutual exclusion).

use std::path::Path;

use zoocheck::client::library::Profiled;
use zoocheck::faults::Kind;
use zoocheck::scenario::Scenario;

#[test]
fn the_anchors_scenarios_have_the_models_clients_scripts_and_faults() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/spin");
    let model = std::fs::read_to_string(root.join("lock_guid.pml")).unwrap();
    // The model's faults: one crash, one lost reply, nothing else.
    assert!(model.contains("bool lose_budget = 1;"));
    assert!(model.contains("bool crash_budget = 1;"));
    for clients in [3u8, 4] {
        let file = root.join(format!("lock_guid_{clients}.toml"));
        let scenario = Scenario::load(&file, &root).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(scenario.clients, clients);
        assert_eq!(scenario.subject.recipe, "lock");
        assert!(scenario.subject.variants.iter().all(|v| *v == "guid"));
        assert!(scenario
            .subject
            .scripts
            .iter()
            .all(|script| script == &["acquire", "release"]));
        for kind in Kind::ALL {
            let expected = u8::from(matches!(kind, Kind::Crash | Kind::LoseReply));
            assert_eq!(
                scenario.budget.total(kind),
                expected,
                "{kind:?} in {clients}"
            );
        }
        assert!(
            scenario
                .libraries
                .iter()
                .all(|profiled| *profiled == Profiled::DEFAULT)
                && !scenario.expire_anytime
        );
    }
}
