//! A bad scenario file is refused with a message that names the file, the key
//! and what was expected, and never panics. Each case starts from a valid
//! scenario and breaks one thing.

use std::path::Path;

use zoocheck::check::{Expected, Verdict};
use zoocheck::client::Library;
use zoocheck::faults::{FaultBudget, Kind};
use zoocheck::properties::termination::Termination;
use zoocheck::scenario::Scenario;

const VALID: &str = r#"description = "two clients"
recipe = "lock"
variant = "guid"
clients = 2
script = ["acquire", "work", "release"]

[faults]
crash = 1

[expect]
mutual_exclusion = "holds"
resource_safety = "holds"
herd_avoidance = "holds"
no_orphan_no_deadlock = "holds"
someone_acquired = "reached"
waiter_woken = "reached"
"#;

/// The lock's variants as the messages list them, from the catalogue.
fn lock_variants() -> String {
    let lock = zoocheck::catalogue::find("lock").unwrap();
    lock.variants().join(", ")
}

fn error_of(text: &str) -> String {
    let file = Path::new("scenarios/lock/broken.toml");
    match Scenario::parse(text, file, "lock/broken") {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(error) => error.to_string(),
    }
}

fn replaced(from: &str, to: &str) -> String {
    assert!(
        VALID.contains(from),
        "{from:?} is not in the valid scenario"
    );
    VALID.replacen(from, to, 1)
}

#[test]
fn the_valid_scenario_is_accepted() {
    let scenario = Scenario::parse(VALID, Path::new("x.toml"), "lock/x").unwrap();
    assert_eq!(scenario.clients, 2);
    assert_eq!(scenario.budget, FaultBudget::of(Kind::Crash, 1));
    assert_eq!(scenario.expect.len(), 6);
}

#[test]
fn a_misspelt_key_is_named_with_the_keys_expected() {
    assert_eq!(
        error_of(&replaced("crash = 1", "crashh = 1")),
        format!(
            "scenarios/lock/broken.toml: `faults.crashh`: unknown field `crashh`, expected one of \
             {}, `expire_anytime` (line 8)",
            Kind::names().map(|name| format!("`{name}`")).join(", ")
        )
    );
}

#[test]
fn an_unknown_table_is_named() {
    assert_eq!(
        error_of(&replaced("[faults]", "[faultz]")),
        "scenarios/lock/broken.toml: `faultz`: unknown field `faultz`, expected one of \
         `description`, `recipe`, `variant`, `knobs`, `clients`, `script`, `scripts`, `client`, `params`, \
         `faults`, `fault`, `store`, `library`, `check`, `expect` (line 7)"
    );
}

#[test]
fn a_missing_key_is_named() {
    assert_eq!(
        error_of(&replaced("variant = \"guid\"\n", "")),
        format!(
            "scenarios/lock/broken.toml: `variant`: missing; expected `variant` (every client's) or a \
             `variant` in each [[client]], one of {}",
            lock_variants()
        )
    );
}

#[test]
fn a_value_of_the_wrong_type_names_its_key() {
    assert_eq!(
        error_of(&replaced("clients = 2", "clients = \"two\"")),
        "scenarios/lock/broken.toml: `clients`: invalid type: string \"two\", expected a whole \
         number from 1 to 5 (line 4)"
    );
}

#[test]
fn a_negative_budget_names_its_key() {
    assert_eq!(
        error_of(&replaced("crash = 1", "crash = -1")),
        "scenarios/lock/broken.toml: `faults.crash`: invalid value: integer `-1`, expected a \
         whole number from 0 to 3 (line 8)"
    );
}

#[test]
fn broken_toml_names_the_line() {
    assert_eq!(
        error_of(&replaced("\"two clients\"", "\"two clients")),
        "scenarios/lock/broken.toml: `description`: invalid basic string (line 1)"
    );
}

#[test]
fn an_unknown_recipe_lists_the_known_ones() {
    assert_eq!(
        error_of(&replaced("recipe = \"lock\"", "recipe = \"mutex\"")),
        format!(
            "scenarios/lock/broken.toml: `recipe`: unknown recipe \"mutex\"; expected one of {}",
            zoocheck::catalogue::names().join(", ")
        )
    );
}

#[test]
fn an_unknown_variant_lists_the_recipes_variants() {
    assert_eq!(
        error_of(&replaced("variant = \"guid\"", "variant = \"uuid\"")),
        format!(
            "scenarios/lock/broken.toml: `variant`: \"uuid\"; did you mean \"guid\"? expected one of {}",
            lock_variants()
        )
    );
}

#[test]
fn an_unknown_command_lists_the_recipes_commands() {
    assert_eq!(
        error_of(&replaced("\"work\"", "\"wrok\"")),
        "scenarios/lock/broken.toml: `script`: \"wrok\"; expected one of acquire, work, release, cancel"
    );
}

#[test]
fn five_clients_are_the_most_a_scenario_takes() {
    let five = replaced("clients = 2", "clients = 5");
    let scenario = Scenario::parse(&five, Path::new("x.toml"), "lock/x").unwrap();
    assert_eq!(scenario.clients, 5);
    assert_eq!(
        error_of(&replaced("clients = 2", "clients = 6")),
        "scenarios/lock/broken.toml: `clients`: 6 clients; expected 1 to 5"
    );
}

#[test]
fn client_counts_outside_the_limits_are_refused() {
    assert_eq!(
        error_of(&replaced("clients = 2", "clients = 0")),
        "scenarios/lock/broken.toml: `clients`: 0 clients; expected 1 to 5"
    );
    assert_eq!(
        error_of(&replaced("clients = 2", "clients = 9")),
        "scenarios/lock/broken.toml: `clients`: 9 clients; expected 1 to 5"
    );
}

#[test]
fn an_empty_script_is_refused() {
    assert_eq!(
        error_of(&replaced("[\"acquire\", \"work\", \"release\"]", "[]")),
        "scenarios/lock/broken.toml: `script`: 0 commands; expected 1 to 8 of acquire, work, release, cancel"
    );
}

#[test]
fn a_budget_over_the_limit_is_refused() {
    assert_eq!(
        error_of(&replaced("crash = 1", "crash = 9")),
        "scenarios/lock/broken.toml: `faults.crash`: 9; expected at most 3 (every fault \
         multiplies the states)"
    );
}

#[test]
fn more_restarts_than_crashes_make_no_sense() {
    assert_eq!(
        error_of(&replaced("crash = 1", "crash = 1\nrestart = 2")),
        "scenarios/lock/broken.toml: `faults.restart`: 2 restarts but only 1 crashes; a restart \
         needs a crashed client"
    );
}

#[test]
fn expire_anytime_without_an_expiry_budget_makes_no_sense() {
    assert_eq!(
        error_of(&replaced("crash = 1", "crash = 1\nexpire_anytime = true")),
        "scenarios/lock/broken.toml: `faults.expire_anytime`: true but no expiry is budgeted; set \
         `faults.expire` or aim an expiry for it to mean anything"
    );
}

#[test]
fn store_settings_outside_their_range_are_refused() {
    assert_eq!(
        error_of(&replaced(
            "[expect]",
            "[store]\nsequence_bits = 64\n\n[expect]"
        )),
        "scenarios/lock/broken.toml: `store.sequence_bits`: 64; expected 2 to 32"
    );
    assert_eq!(
        error_of(&replaced(
            "[expect]",
            "[store]\nversion_bits = 1\n\n[expect]"
        )),
        "scenarios/lock/broken.toml: `store.version_bits`: 1; expected 2 to 32"
    );
    assert_eq!(
        error_of(&replaced("[expect]", "[store]\nversion_bits = -3\n\n[expect]")),
        "scenarios/lock/broken.toml: `store.version_bits`: invalid value: integer `-3`, expected a whole number from 2 to 32 (line 11)"
    );
    assert_eq!(
        error_of(&replaced("[expect]", "[store]\nchild_order = \"sorted\"\n\n[expect]")),
        "scenarios/lock/broken.toml: `store.child_order`: \"sorted\"; expected one of hashed, reversed"
    );
    assert_eq!(
        error_of(&replaced(
            "[expect]",
            "[store]\nttl_expiries = 9\n\n[expect]"
        )),
        "scenarios/lock/broken.toml: `store.ttl_expiries`: 9; expected 0 to 8"
    );
    assert_eq!(
        error_of(&replaced("[expect]", "[knobs]\ndirectory = \"ttl_node\"\n\n[expect]")),
        "scenarios/lock/broken.toml: `knobs.directory`: knob `directory` has no value \"ttl_node\"; expected one of persistent, container, ttl"
    );
}

/// Two knobs that cannot go together are refused, named where the scenario
/// turned the one refused: in `[knobs]`, in a client's `knobs`, or at the
/// variant whose preset did.
#[test]
fn a_sequencer_for_a_resource_in_zookeeper_is_refused_naming_the_knob() {
    let why = "true with resource = \"znode\", but only a resource outside ZooKeeper reads a \
               sequencer; expected fenced = false, or resource = \"checked_znode\" to fence the \
               writes in ZooKeeper";
    assert_eq!(
        error_of(&replaced(
            "[faults]",
            "[knobs]\nfenced = true\nresource = \"znode\"\n\n[faults]"
        )),
        format!("scenarios/lock/broken.toml: `knobs.fenced`: {why}")
    );
    assert_eq!(
        error_of(&format!(
            "{}\n[[client]]\nknobs = {{ resource = \"znode\" }}\n[[client]]\n",
            replaced("variant = \"guid\"", "variant = \"fenced\"")
        )),
        format!("scenarios/lock/broken.toml: `variant`: {why}")
    );
    assert_eq!(
        error_of(&format!(
            "{}\n[[client]]\n[[client]]\nknobs = {{ fenced = true }}\n",
            replaced("variant = \"guid\"", "variant = \"znode_resource\"")
        )),
        format!("scenarios/lock/broken.toml: `client[1].knobs.fenced`: {why}")
    );
}

#[test]
fn an_ensemble_needs_servers_in_range_and_a_lag_or_move_needs_an_ensemble() {
    assert_eq!(
        error_of(&replaced("[expect]", "[store]\nservers = 9\n\n[expect]")),
        "scenarios/lock/broken.toml: `store.servers`: 9; expected 1 (one server) to 5 (an ensemble)"
    );
    assert_eq!(
        error_of(&replaced(
            "[expect]",
            "[store]\nservers = 3\nlag = 0\n\n[expect]"
        )),
        "scenarios/lock/broken.toml: `store.lag`: 0; expected 1 to 8"
    );
    assert_eq!(
        error_of(&replaced("[expect]", "[store]\nlag = 2\n\n[expect]")),
        "scenarios/lock/broken.toml: `store.lag`: 2, on one server; a lag is how far an ensemble's servers fall behind the leader's commits, so it needs servers of 2 or more"
    );
    assert_eq!(
        error_of(&replaced("[faults]\n", "[faults]\nmove = 1\n")),
        "scenarios/lock/broken.toml: `faults.move`: a move, on one server; a connection moves between the servers of an ensemble, so it needs [store] servers of 2 or more"
    );
    let aimed = "[[fault]]\nkind = \"move\"\nclient = 0\n\n[expect]";
    assert_eq!(
        error_of(&replaced("[expect]", aimed)),
        "scenarios/lock/broken.toml: `fault[0].kind`: a move, on one server; a connection moves between the servers of an ensemble, so it needs [store] servers of 2 or more"
    );
    let ensemble = "[store]\nservers = 3\nlag = 2\n\n[faults]\nmove = 1\n";
    let file = Path::new("scenarios/lock/ensemble.toml");
    Scenario::parse(&replaced("[faults]\n", ensemble), file, "lock/ensemble")
        .expect("an ensemble with a lag and a move");
}

/// Every property without a default ([`zoocheck::properties::Promise::by_default`]).
#[test]
fn every_property_needs_an_expectation() {
    assert_eq!(
        error_of(&replaced("waiter_woken = \"reached\"\n", "")),
        "scenarios/lock/broken.toml: `expect.waiter_woken`: missing; expected reached or \
         unreached (`waiter_woken` has no default in `lock`: every scenario states it)"
    );
}

#[test]
fn an_expectation_must_fit_the_kind_of_property() {
    assert_eq!(
        error_of(&replaced("mutual_exclusion = \"holds\"", "mutual_exclusion = \"reached\"")),
        "scenarios/lock/broken.toml: `expect.mutual_exclusion`: \"reached\"; expected one of holds, violated"
    );
    assert_eq!(
        error_of(&replaced("waiter_woken = \"reached\"", "waiter_woken = \"holds\"")),
        "scenarios/lock/broken.toml: `expect.waiter_woken`: \"holds\"; expected one of reached, unreached"
    );
}

#[test]
fn an_expectation_for_an_unknown_property_is_refused() {
    assert_eq!(
        error_of(&replaced("[expect]\n", "[expect]\nliveness = \"holds\"\n")),
        "scenarios/lock/broken.toml: `expect.liveness`: no such property of `lock`; expected one \
         of mutual_exclusion, resource_safety, herd_avoidance, no_orphan_no_deadlock, \
         someone_acquired, waiter_woken, terminates"
    );
}

#[test]
fn terminates_is_every_recipes_and_holds_unless_the_file_says_otherwise() {
    let scenario = Scenario::parse(VALID, Path::new("x.toml"), "lock/x").unwrap();
    assert_eq!(scenario.termination, Termination::default());
    assert_eq!(
        Termination::default(),
        Termination {
            depth_bound: 200,
            expected: Expected::proven(Verdict::Holds)
        }
    );
    let text = replaced("[expect]\n", "[check]\ndepth_bound = 60\n\n[expect]\n").replacen(
        "waiter_woken = \"reached\"\n",
        "waiter_woken = \"reached\"\nterminates = \"violated\"\n",
        1,
    );
    let scenario = Scenario::parse(&text, Path::new("x.toml"), "lock/x").unwrap();
    assert_eq!(
        scenario.termination,
        Termination {
            depth_bound: 60,
            expected: Expected::proven(Verdict::Violated)
        }
    );
    // It is not one of the recipe's own properties.
    assert_eq!(scenario.expect.len(), 6);
    // A likely loop is expected unproven, and so may any verdict be.
    let text = text
        .replacen("terminates = \"violated\"", "terminates = \"violated?\"", 1)
        .replacen(
            "waiter_woken = \"reached\"",
            "waiter_woken = \"reached?\"",
            1,
        );
    let scenario = Scenario::parse(&text, Path::new("x.toml"), "lock/x").unwrap();
    assert_eq!(
        scenario.termination.expected,
        Expected {
            verdict: Verdict::Violated,
            proven: false,
            by_default: false,
        }
    );
    assert!(scenario.expect.contains(&(
        "waiter_woken",
        Expected {
            verdict: Verdict::Reached,
            proven: false,
            by_default: false,
        }
    )));
}

#[test]
fn a_depth_bound_out_of_range_or_not_a_number_is_refused() {
    let with_bound = |value: &str| {
        error_of(&replaced(
            "[expect]\n",
            &format!("[check]\ndepth_bound = {value}\n\n[expect]\n"),
        ))
    };
    let expected = |shown: &str| {
        format!(
            "scenarios/lock/broken.toml: `check.depth_bound`: {shown}; expected a whole number \
             of steps from 1 to 1000 (how long a path may grow before the search calls it still \
             going)"
        )
    };
    assert_eq!(with_bound("0"), expected("0"));
    assert_eq!(with_bound("1001"), expected("1001"));
    assert_eq!(with_bound("-5"), expected("-5"));
    assert_eq!(with_bound("2.5"), expected("2.5"));
    assert_eq!(with_bound("\"deep\""), expected("\"deep\""));
    // The bounds themselves are accepted.
    for value in ["1", "1000"] {
        let text = replaced(
            "[expect]\n",
            &format!("[check]\ndepth_bound = {value}\n\n[expect]\n"),
        );
        let scenario = Scenario::parse(&text, Path::new("x.toml"), "lock/x").unwrap();
        assert_eq!(scenario.termination.depth_bound.to_string(), value);
    }
    assert_eq!(
        error_of(&replaced("[expect]\n", "[check]\ndepth = 60\n\n[expect]\n")),
        "scenarios/lock/broken.toml: `check.depth`: unknown field `depth`, expected \
         `depth_bound` (line 11)"
    );
}

#[test]
fn an_expectation_of_terminates_is_holds_or_violated_proven_or_not() {
    assert_eq!(
        error_of(&replaced(
            "[expect]\n",
            "[expect]\nterminates = \"reached\"\n"
        )),
        "scenarios/lock/broken.toml: `expect.terminates`: \"reached\"; expected holds or violated, \
         or violated? for a likely loop a search can show but not prove (terminates is every \
         recipe's always-property; holds if not given)"
    );
    assert_eq!(
        error_of(&replaced("[expect]\n", "[expect]\nterminates = \"hold\"\n")),
        "scenarios/lock/broken.toml: `expect.terminates`: \"hold\"; did you mean \"holds\"? \
         expected holds or violated, or violated? for a likely loop a search can show but not \
         prove (terminates is every recipe's always-property; holds if not given)"
    );
}

#[test]
fn an_unreadable_file_is_named() {
    let error = Scenario::load(
        Path::new("scenarios/lock/absent.toml"),
        Path::new("scenarios"),
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.starts_with("scenarios/lock/absent.toml: cannot read: "),
        "{error}"
    );
}

#[test]
fn every_scenario_in_the_repository_loads() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let scenarios = Scenario::load_all(&root).unwrap_or_else(|error| panic!("{error}"));
    assert!(scenarios.iter().any(|s| s.name == "lock/guid_2_clients"));
    assert!(scenarios.windows(2).all(|pair| pair[0].name < pair[1].name));
}

#[test]
fn per_client_scripts_are_accepted_one_per_client() {
    let text = replaced(
        "script = [\"acquire\", \"work\", \"release\"]",
        "scripts = [[\"acquire\", \"release\"], [\"acquire\"]]",
    );
    let scenario = Scenario::parse(&text, Path::new("x.toml"), "lock/x").unwrap();
    assert_eq!(
        scenario.subject.scripts,
        [vec!["acquire", "release"], vec!["acquire"]]
    );
}

#[test]
fn scripts_for_the_wrong_number_of_clients_are_refused() {
    assert_eq!(
        error_of(&replaced(
            "script = [\"acquire\", \"work\", \"release\"]",
            "scripts = [[\"acquire\"]]",
        )),
        "scenarios/lock/broken.toml: `scripts`: 1 scripts for 2 clients; expected one per client"
    );
}

#[test]
fn an_unknown_command_in_one_clients_script_names_that_script() {
    assert_eq!(
        error_of(&replaced(
            "script = [\"acquire\", \"work\", \"release\"]",
            "scripts = [[\"acquire\"], [\"acquire\", \"lead\"]]",
        )),
        "scenarios/lock/broken.toml: `scripts[1]`: \"lead\"; expected one of acquire, work, release, cancel"
    );
}

#[test]
fn script_and_scripts_together_are_refused() {
    assert_eq!(
        error_of(&replaced(
            "script = [\"acquire\", \"work\", \"release\"]",
            "script = [\"acquire\"]\nscripts = [[\"acquire\"], [\"acquire\"]]",
        )),
        "scenarios/lock/broken.toml: `scripts`: given beside `script`; expected one of them \
         (`script` for every client alike, `scripts` for one each)"
    );
}

#[test]
fn a_scenario_without_a_script_is_refused() {
    assert_eq!(
        error_of(&replaced(
            "script = [\"acquire\", \"work\", \"release\"]\n",
            ""
        )),
        "scenarios/lock/broken.toml: `script`: missing; expected `script` (every client alike), \
         `scripts` (one per client) or a `script` in each [[client]], with commands of acquire, \
         work, release, cancel"
    );
}

#[test]
fn a_command_of_another_recipe_is_refused() {
    assert_eq!(
        error_of(&replaced(
            "script = [\"acquire\", \"work\", \"release\"]",
            "script = [\"volunteer\"]",
        )),
        "scenarios/lock/broken.toml: `script`: \"volunteer\"; expected one of acquire, work, release, cancel"
    );
}

/// A two-phase commit over `scripts` (a TOML array of arrays), every
/// property expected as it would be for a valid group.
fn two_phase_commit(scripts: &str) -> String {
    format!(
        r#"description = "a transaction"
recipe = "two_phase_commit"
variant = "reference"
clients = 3
scripts = {scripts}

[expect]
agreement = "holds"
validity = "holds"
termination = "holds"
live_sites_decide = "holds"
someone_committed = "reached"
someone_aborted = "unreached"
all_sites_decided = "reached"
failure_detected = "unreached"
"#
    )
}

#[test]
fn a_two_phase_commit_with_one_coordinator_and_sites_is_accepted() {
    let text = two_phase_commit(r#"[["coordinate"], ["vote_commit"], ["vote_abort"]]"#);
    let scenario = Scenario::parse(&text, Path::new("x.toml"), "two_phase_commit/x").unwrap();
    assert_eq!(scenario.subject.scripts[0], ["coordinate"]);
}

#[test]
fn a_two_phase_commit_without_exactly_one_coordinator_is_refused() {
    let expected = "expected exactly one client whose script is [\"coordinate\"] and at least \
                    one whose script is [\"vote_commit\"] or [\"vote_abort\"]";
    assert_eq!(
        error_of(&two_phase_commit(
            r#"[["vote_commit"], ["vote_commit"], ["vote_abort"]]"#
        )),
        format!("scenarios/lock/broken.toml: `scripts`: 0 coordinators; {expected}")
    );
    assert_eq!(
        error_of(&two_phase_commit(
            r#"[["coordinate"], ["coordinate"], ["vote_abort"]]"#
        )),
        format!("scenarios/lock/broken.toml: `scripts`: 2 coordinators; {expected}")
    );
}

#[test]
fn a_two_phase_commit_without_sites_is_refused() {
    let text = two_phase_commit(r#"[["coordinate"]]"#).replace("clients = 3", "clients = 1");
    assert_eq!(
        error_of(&text),
        "scenarios/lock/broken.toml: `scripts`: no site; expected exactly one client whose \
         script is [\"coordinate\"] and at least one whose script is [\"vote_commit\"] or \
         [\"vote_abort\"]"
    );
}

#[test]
fn a_two_phase_commit_client_with_two_commands_is_refused() {
    assert_eq!(
        error_of(&two_phase_commit(
            r#"[["coordinate"], ["vote_commit", "vote_abort"], ["vote_abort"]]"#
        )),
        "scenarios/lock/broken.toml: `scripts`: client 1 has 2 commands; expected exactly one \
         client whose script is [\"coordinate\"] and at least one whose script is \
         [\"vote_commit\"] or [\"vote_abort\"]"
    );
}

/// A barrier scenario: a controller and two waiters.
fn barrier(scripts: &str) -> String {
    format!(
        r#"description = "barrier"
recipe = "barrier"
variant = "reference"
clients = 3
scripts = {scripts}

[expect]
no_early_pass = "holds"
waiters_proceed = "holds"
someone_passed = "reached"
waiter_woken = "reached"
"#
    )
}

fn error_at(text: &str, file: &str) -> String {
    match Scenario::parse(text, Path::new(file), "x") {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn a_barrier_with_two_controllers_is_refused() {
    assert_eq!(
        error_at(
            &barrier(r#"[["lift"], ["lift"], ["wait"]]"#),
            "scenarios/barrier/broken.toml"
        ),
        "scenarios/barrier/broken.toml: `scripts`: more than one `lift`; expected one \
         controller at most"
    );
}

#[test]
fn a_barrier_script_of_two_commands_is_refused() {
    assert_eq!(
        error_at(
            &barrier(r#"[["lift"], ["wait", "wait"], ["wait"]]"#),
            "scenarios/barrier/broken.toml"
        ),
        "scenarios/barrier/broken.toml: `scripts`: a script of more than one command; expected \
         [\"wait\"] or [\"lift\"] (the node is deleted once and never re-created)"
    );
}

/// A double barrier scenario with these scripts.
fn double_barrier(scripts: &str) -> String {
    format!(
        r#"description = "double barrier"
recipe = "double_barrier"
variant = "seed"
clients = 2
scripts = {scripts}

[expect]
enter_safety = "holds"
leave_safety = "holds"
herd_avoidance = "holds"
no_deadlock = "holds"
someone_computes = "reached"
someone_left = "reached"
waiter_woken = "reached"
"#
    )
}

#[test]
fn a_double_barrier_accepts_entering_clients_that_may_stay() {
    let text = double_barrier(r#"[["enter", "leave"], ["enter"]]"#);
    let scenario = Scenario::parse(&text, Path::new("x.toml"), "x").unwrap();
    assert_eq!(
        scenario.subject.scripts,
        [vec!["enter", "leave"], vec!["enter"]]
    );
}

#[test]
fn a_double_barrier_leave_before_enter_is_refused() {
    assert_eq!(
        error_at(
            &double_barrier(r#"[["enter", "leave"], ["leave", "enter"]]"#),
            "scenarios/double_barrier/broken.toml"
        ),
        "scenarios/double_barrier/broken.toml: `scripts`: client 1 leaves before it enters; \
         expected [\"enter\"] or [\"enter\", \"leave\"]"
    );
}

#[test]
fn a_double_barrier_client_that_never_enters_is_refused() {
    // Nobody entering is this error for client 0.
    assert_eq!(
        error_at(
            &double_barrier(r#"[["leave"], ["leave"]]"#),
            "scenarios/double_barrier/broken.toml"
        ),
        "scenarios/double_barrier/broken.toml: `scripts`: client 0 leaves before it enters; \
         expected [\"enter\"] or [\"enter\", \"leave\"]"
    );
}

#[test]
fn a_double_barrier_client_entering_twice_is_refused() {
    assert_eq!(
        error_at(
            &double_barrier(r#"[["enter", "enter"], ["enter"]]"#),
            "scenarios/double_barrier/broken.toml"
        ),
        "scenarios/double_barrier/broken.toml: `scripts`: client 0 enters or leaves more than \
         once; expected [\"enter\"] or [\"enter\", \"leave\"]"
    );
    // The same error for `script`, every client alike, names that key.
    let text = double_barrier(r#"[["enter"], ["enter"]]"#).replace(
        r#"scripts = [["enter"], ["enter"]]"#,
        r#"script = ["enter", "leave", "leave"]"#,
    );
    assert_eq!(
        error_at(&text, "scenarios/double_barrier/broken.toml"),
        "scenarios/double_barrier/broken.toml: `script`: client 0 enters or leaves more than \
         once; expected [\"enter\"] or [\"enter\", \"leave\"]"
    );
}

#[test]
fn a_budget_given_as_a_string_says_the_budget_limit() {
    // REGRESSION: it said "a whole number from 0 to 255" where the limit is 3.
    assert_eq!(
        error_of(&replaced("crash = 1", "crash = \"1\"")),
        "scenarios/lock/broken.toml: `faults.crash`: invalid type: string \"1\", expected a \
         whole number from 0 to 3 (line 8)"
    );
}

#[test]
fn a_misspelt_property_is_named_with_a_guess() {
    // REGRESSION: a misspelt expectation was reported only as the real one
    // missing, never naming the key the file has.
    assert_eq!(
        error_of(&replaced("waiter_woken = ", "waiter_wokn = ")),
        "scenarios/lock/broken.toml: `expect.waiter_wokn`: no such property of `lock`; did you \
         mean `waiter_woken`? expected one of mutual_exclusion, resource_safety, herd_avoidance, \
         no_orphan_no_deadlock, someone_acquired, waiter_woken, terminates"
    );
}

#[test]
fn a_huge_key_is_shortened_and_escapes_are_escaped() {
    // REGRESSION: a 1 MiB key gave 2 MiB of error, and escape codes reached
    // the terminal as they were.
    let key = "k".repeat(1 << 20);
    let error = error_of(&replaced("crash = 1", &format!("{key} = 1")));
    assert!(error.len() < 3000, "{} bytes of error", error.len());
    assert!(error.contains("more bytes)"), "{}", &error[..200]);
    let error = error_of(&replaced(
        "variant = \"guid\"",
        "variant = \"\\u001b[31mred\\u001b[0m\"",
    ));
    assert!(!error.contains('\u{1b}'), "{error:?}");
    assert!(error.contains("\\u{1b}[31mred"), "{error}");
}

/// A scratch directory under the target directory, removed when dropped.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!(
            "zoocheck-scenario-errors-{tag}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn invalid_utf8_is_located() {
    // REGRESSION: invalid UTF-8 was refused with no position.
    let scratch = Scratch::new("utf8");
    let file = scratch.0.join("bad.toml");
    let mut bytes = VALID.as_bytes().to_vec();
    let offset = VALID.find("guid").unwrap();
    bytes[offset] = 0xff;
    std::fs::write(&file, bytes).unwrap();
    let error = Scenario::load(&file, &scratch.0).unwrap_err().to_string();
    assert!(
        error.ends_with(&format!(
            "bad.toml: not UTF-8: an invalid byte at line 3 (byte offset {offset})"
        )),
        "{error}"
    );
}

#[test]
fn only_regular_files_of_bounded_size_are_read() {
    // REGRESSION: a FIFO given as a scenario hung forever, and /dev/zero read
    // until memory ran out.
    let error = Scenario::load(Path::new("/dev/zero"), Path::new("/dev"))
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "/dev/zero: not a regular file; expected a file of text"
    );
    let scratch = Scratch::new("large");
    let file = scratch.0.join("large.toml");
    std::fs::write(&file, "#".repeat(2 << 20)).unwrap();
    let error = Scenario::load(&file, &scratch.0).unwrap_err().to_string();
    assert!(
        error.ends_with("large.toml: 2097152 bytes; expected at most 1048576"),
        "{error}"
    );
    #[cfg(unix)]
    {
        let fifo = scratch.0.join("fifo.toml");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|status| status.success()) {
            let error = Scenario::load(&fifo, &scratch.0).unwrap_err().to_string();
            assert!(error.ends_with("fifo.toml: not a regular file; expected a file of text"));
        }
    }
}

/// A scenario of `recipe` with `clients` clients each running `script`,
/// crashing and restarting once, expecting `expect`.
fn with_restart(recipe: &str, variant: &str, script: &str, expect: &str) -> String {
    format!(
        "description = \"x\"\nrecipe = \"{recipe}\"\nvariant = \"{variant}\"\nclients = 2\n\
         scripts = {script}\n[faults]\ncrash = 1\nrestart = 1\n[expect]\n{expect}\n"
    )
}

#[test]
fn restarts_are_refused_where_the_world_cannot_judge_them() {
    // REGRESSION: a queue scenario with a crash and a restart was accepted and
    // reported `consumed_once` violated: the restarted producer's new item
    // reused its predecessor's name, a fault of the harness, not the recipe.
    let queue_expect = "consumed_once = \"holds\"\nno_item_lost = \"holds\"\n\
        producer_order = \"holds\"\nitem_consumed = \"reached\"\nall_consumed = \"reached\"\n\
        two_of_one_producer = \"unreached\"";
    let error = error_at(
        &with_restart("queue", "guid", r#"[["put"], ["take"]]"#, queue_expect),
        "scenarios/queue/restart.toml",
    );
    assert_eq!(
        error,
        "scenarios/queue/restart.toml: `faults.restart`: 1 restarts, but a restarted producer \
         numbers its items from 0 again (items are named by client and serial, not by process), \
         so its items could not be told from its predecessor's; expected 0"
    );
    let pq_expect = queue_expect.replace("producer_order", "highest_priority_first");
    for (recipe, variant, script, expect) in [
        (
            "priority_queue",
            "fresh",
            r#"[["put_high"], ["take"]]"#,
            pq_expect.as_str(),
        ),
        (
            "double_barrier",
            "seed",
            r#"[["enter", "leave"], ["enter", "leave"]]"#,
            "enter_safety = \"holds\"",
        ),
    ] {
        let error = error_at(
            &with_restart(recipe, variant, script, expect),
            "scenarios/x/restart.toml",
        );
        assert!(
            error.starts_with("scenarios/x/restart.toml: `faults.restart`: 1 restarts, but "),
            "{recipe}: {error}"
        );
    }
    // The lock restarts soundly (its GUID names the process): accepted.
    let lock = replaced("crash = 1", "crash = 1\nrestart = 1");
    Scenario::parse(&lock, Path::new("x.toml"), "lock/x").unwrap();
}

// ------------------------------------------------- per-client settings

/// The valid scenario with its `script` line replaced by `clients`.
fn with_clients(tables: &str) -> String {
    replaced(
        "variant = \"guid\"\nclients = 2\nscript = [\"acquire\", \"work\", \"release\"]\n",
        tables,
    )
}

#[test]
fn client_tables_give_each_client_its_variant_and_script() {
    let text = with_clients(
        "script = [\"acquire\", \"release\"]\n\
         [[client]]\nvariant = \"guid\"\n\
         [[client]]\nvariant = \"no_guid\"\nscript = [\"acquire\", \"work\", \"release\"]\n",
    );
    let scenario = Scenario::parse(&text, Path::new("x.toml"), "lock/x").unwrap();
    assert_eq!(scenario.clients, 2);
    assert_eq!(scenario.subject.variants, ["guid", "no_guid"]);
    assert_eq!(
        scenario.subject.scripts,
        [
            vec!["acquire", "release"],
            vec!["acquire", "work", "release"]
        ]
    );
    assert_eq!(scenario.subject.variant_words(), "guid, no_guid");
}

#[test]
fn client_tables_must_match_the_clients_and_name_known_variants() {
    let script = "script = [\"acquire\"]\nvariant = \"guid\"\n";
    assert_eq!(
        error_of(&with_clients(&format!(
            "{script}clients = 3\n[[client]]\n[[client]]\n"
        ))),
        "scenarios/lock/broken.toml: `client`: 2 [[client]] tables for 3 clients; expected one \
         per client"
    );
    assert_eq!(
        error_of(&with_clients(&format!(
            "{script}[[client]]\n[[client]]\nvariant = \"guidd\"\n"
        ))),
        format!(
            "scenarios/lock/broken.toml: `client[1].variant`: \"guidd\"; did you mean \"guid\"? \
             expected one of {}",
            lock_variants()
        )
    );
    assert_eq!(
        error_of(&with_clients(
            "variant = \"guid\"\nscripts = [[\"acquire\"], [\"acquire\"]]\n\
             [[client]]\nscript = [\"acquire\"]\n[[client]]\n"
        )),
        "scenarios/lock/broken.toml: `client[0].script`: given beside `scripts`; expected a \
         client's script in one place"
    );
    assert_eq!(
        error_of(&with_clients(&format!(
            "{script}[[client]]\ncolour = \"red\"\n"
        ))),
        "scenarios/lock/broken.toml: `client.colour`: unknown field `colour`, expected one of \
         `variant`, `knobs`, `library`, `script` (line 6)"
    );
}

// ---------------------------------------------------------- parameters

const BARRIER: &str = r#"description = "d"
recipe = "double_barrier"
variant = "seed"
clients = 2
script = ["enter", "leave"]

[params]
threshold = 1

[expect]
enter_safety = "holds"
leave_safety = "violated"
herd_avoidance = "holds"
no_deadlock = "holds"
someone_computes = "reached"
someone_left = "reached"
waiter_woken = "reached"
"#;

#[test]
fn parameters_are_typed_and_unknown_ones_name_the_recipes() {
    let scenario = Scenario::parse(BARRIER, Path::new("x.toml"), "double_barrier/x").unwrap();
    assert_eq!(scenario.params["threshold"].as_integer(), Some(1));
    let broken = |from: &str, to: &str| {
        let file = Path::new("scenarios/double_barrier/broken.toml");
        Scenario::parse(
            &BARRIER.replacen(from, to, 1),
            file,
            "double_barrier/broken",
        )
        .unwrap_err()
        .to_string()
    };
    assert_eq!(
        broken("threshold = 1", "treshold = 1"),
        "scenarios/double_barrier/broken.toml: `params.treshold`: unknown field `treshold`, \
         expected `threshold` (the parameters of `double_barrier`: threshold)"
    );
    assert_eq!(
        broken("threshold = 1", "threshold = 9"),
        "scenarios/double_barrier/broken.toml: `params.threshold`: 9; expected 1 to 5"
    );
    assert_eq!(
        broken("threshold = 1", "threshold = \"one\""),
        "scenarios/double_barrier/broken.toml: `params.threshold`: invalid type: string \"one\", \
         expected a whole number (the parameters of `double_barrier`: threshold)"
    );
    assert_eq!(
        error_of(&replaced("[faults]", "[params]\nthreshold = 2\n[faults]")),
        "scenarios/lock/broken.toml: `params.threshold`: `lock` has no parameters; expected no \
         `[params]` table"
    );
}

// --------------------------------------------------------- aimed faults

#[test]
fn an_aimed_fault_names_its_kind_and_its_target() {
    let aimed = replaced("[faults]\ncrash = 1\n", "[[fault]]\nkind = \"pause\"\ntarget = \"holder\"\n[[fault]]\nkind = \"expire\"\nclient = 1\ncount = 2\n");
    let scenario = Scenario::parse(&aimed, Path::new("x.toml"), "lock/x").unwrap();
    assert_eq!(
        scenario.budget.words(),
        ["pause 1 at the holder", "expire 2 at c1"]
    );
    let fault = |body: &str| {
        error_of(&replaced(
            "[faults]\ncrash = 1\n",
            &format!("[[fault]]\n{body}\n"),
        ))
    };
    assert_eq!(
        fault("kind = \"paus\"\nclient = 0"),
        format!(
            "scenarios/lock/broken.toml: `fault[0].kind`: \"paus\"; did you mean \"pause\"? expected \
             one of {}",
            Kind::names().join(", ")
        )
    );
    assert_eq!(
        fault("kind = \"pause\"\ntarget = \"leader\""),
        "scenarios/lock/broken.toml: `fault[0].target`: no part of `lock` is called that: \
         \"leader\"; expected one of waiter, holder"
    );
    assert_eq!(
        fault("kind = \"pause\"\nclient = 2"),
        "scenarios/lock/broken.toml: `fault[0].client`: c2, but there are 2 clients; expected 0 \
         to 1"
    );
    assert_eq!(
        fault("kind = \"pause\"\nclient = 0\ntarget = \"holder\""),
        "scenarios/lock/broken.toml: `fault[0].target`: given beside `client`; expected one of \
         them (a client by number, a part it plays, or a phase it is in)"
    );
    assert_eq!(
        fault("kind = \"pause\"\ntarget = \"holder\"\nphase = \"Held\""),
        "scenarios/lock/broken.toml: `fault[0].phase`: given beside `target`; expected one of \
         them (a client by number, a part it plays, or a phase it is in)"
    );
    assert_eq!(
        fault("kind = \"restart\"\nphase = \"Held\""),
        "scenarios/lock/broken.toml: `fault[0].phase`: a restart aimed at a phase; a restart \
         strikes only a crashed client, whose recipe has started over, so it is in no phase it \
         reached; expected `client` or `target`, or a budget under [faults]"
    );
    assert_eq!(
        fault("kind = \"pause\"\nphase = \"Holding\""),
        "scenarios/lock/broken.toml: `fault[0].phase`: no phase of `lock` is called that: \
         \"Holding\"; expected one of Idle, Creating, Recovering, Listing, Watching, \
         WaitingForChildren, Held, Suspended, Releasing, Abandoning, Dead"
    );
    assert_eq!(
        fault("kind = \"pause\""),
        "scenarios/lock/broken.toml: `fault[0]`: aims at nobody; expected `client = N`, \
         `target` = one of waiter, holder or `phase` = one of Idle, Creating, Recovering, \
         Listing, Watching, WaitingForChildren, Held, Suspended, Releasing, Abandoning, Dead"
    );
    assert_eq!(
        fault("kind = \"pause\"\nclient = 0\ncount = 0"),
        "scenarios/lock/broken.toml: `fault[0].count`: 0; expected 1 to 3"
    );
    let five = "[[fault]]\nkind = \"pause\"\nclient = 0\n".repeat(5);
    assert_eq!(
        error_of(&replaced("[faults]\ncrash = 1\n", &five)),
        "scenarios/lock/broken.toml: `fault`: 5 aimed faults; expected at most 4"
    );
    // A restart needs a crash, aimed or not; an aimed one is named where
    // the file has it (it has no `faults.restart`).
    assert_eq!(
        fault("kind = \"restart\"\nclient = 0"),
        "scenarios/lock/broken.toml: `fault[0].kind`: 1 restarts but only 0 crashes; a restart \
         needs a crashed client"
    );
    assert_eq!(
        error_of(&replaced("crash = 1", "restart = 1")),
        "scenarios/lock/broken.toml: `faults.restart`: 1 restarts but only 0 crashes; a restart \
         needs a crashed client"
    );
}

// ------------------------------------------------------- starting tree

#[test]
fn a_starting_tree_is_planted_in_order_under_nodes_that_can_have_children() {
    let tree = replaced(
        "[expect]",
        "[store]\nsequence_bits = 8\n\
         [[store.node]]\npath = \"/lock\"\nnext_sequence = 120\n\
         [[store.node]]\npath = \"/lock/old\"\ndata = \"x\"\nephemeral = true\n\
         [[store.node]]\npath = \"/config\"\n\
         [[store.node]]\npath = \"/config/a\"\n\
         [expect]",
    );
    let scenario = Scenario::parse(&tree, Path::new("x.toml"), "lock/x").unwrap();
    let planted: Vec<(&str, bool, Option<i32>)> = (scenario.tree.iter())
        .map(|node| (node.path.as_str(), node.ephemeral, node.next_sequence))
        .collect();
    assert_eq!(
        planted,
        [
            ("/lock", false, Some(120)),
            ("/lock/old", true, None),
            ("/config", false, None),
            ("/config/a", false, None),
        ]
    );
    let node = |body: &str| error_of(&replaced("[expect]", &format!("{body}\n[expect]")));
    assert_eq!(
        node("[[store.node]]\npath = \"/a/b\""),
        "scenarios/lock/broken.toml: `store.node[0].path`: \"/a/b\": its parent /a is not there; \
         expected the root, the recipe's directory or an earlier node"
    );
    assert_eq!(
        node("[[store.node]]\npath = \"/e\"\nephemeral = true\n[[store.node]]\npath = \"/e/f\""),
        "scenarios/lock/broken.toml: `store.node[1].path`: \"/e/f\": its parent /e is ephemeral, \
         and ephemerals have no children"
    );
    assert_eq!(
        node("[[store.node]]\npath = \"/lock\"\ndata = \"x\""),
        "scenarios/lock/broken.toml: `store.node[0].path`: \"/lock\" exists already (the recipe's \
         directory or an earlier node); expected only its `next_sequence`"
    );
    assert_eq!(
        node("[[store.node]]\npath = \"/lock\"\nnext_sequence = 2147483648"),
        "scenarios/lock/broken.toml: `store.node[0].next_sequence`: 2147483648; expected \
         -2147483648 to 2147483647 (the counter is 32 bits wide, and negative once it has wrapped)"
    );
    assert_eq!(
        node("[store]\nsequence_bits = 3\n[[store.node]]\npath = \"/lock\"\nnext_sequence = -5"),
        "scenarios/lock/broken.toml: `store.node[0].next_sequence`: -5; expected -4 to 3 (the \
         counter is 3 bits wide, and negative once it has wrapped)"
    );
    assert_eq!(
        node("[[store.node]]\npath = \"/lock/x-\"\nsequential = true\nnext_sequence = 1"),
        "scenarios/lock/broken.toml: `store.node[0].next_sequence`: on a sequential node, whose \
         name the server gives; expected it on the node's parent"
    );
    assert_eq!(
        node("[[store.node]]\npath = \"/lock/x-\"\nsequential = true\n[[store.node]]\npath = \"/lock/x-/y\""),
        "scenarios/lock/broken.toml: `store.node[1].path`: \"/lock/x-/y\": its parent /lock/x- is \
         not there; expected the root, the recipe's directory or an earlier node"
    );
    // The server plants the tree: a name its counter gives may be taken.
    let planted_before = |index: usize| {
        format!(
            "scenarios/lock/broken.toml: `store.node[{index}].path`: \"/lock/a-\": the server \
             would name it after its parent's counter, and a node of that name is planted before \
             it (code NODEEXISTS); expected a tree the server can create in this order"
        )
    };
    let sequential = "[[store.node]]\npath = \"/lock/a-\"\nsequential = true\n";
    assert_eq!(
        node(&format!(
            "[[store.node]]\npath = \"/lock/a-0000000001\"\n{sequential}"
        )),
        planted_before(1)
    );
    assert_eq!(
        node(&format!(
            "[store]\nsequence_bits = 2\n{}",
            sequential.repeat(5)
        )),
        planted_before(4)
    );
    assert_eq!(
        node(&format!(
            "{sequential}[[store.node]]\npath = \"/lock/a-0000000000\"\ndata = \"x\""
        )),
        "scenarios/lock/broken.toml: `store.node[1].path`: \"/lock/a-0000000000\": a node of that \
         name is there already (named so by the server's counter, or one the recipe makes), and \
         only a new node takes `data` or `ephemeral` (code NODEEXISTS); expected a tree the \
         server can create in this order"
    );
    // Its counter moves on only: started back at 0 after a child, it names
    // the next sequential node after the first.
    assert_eq!(
        node(&format!(
            "{sequential}[[store.node]]\npath = \"/lock\"\nnext_sequence = 0\n{sequential}"
        )),
        planted_before(2)
    );
    assert_eq!(
        node("[[store.node]]\npath = \"/e\"\nephemeral = true\nnext_sequence = 1"),
        "scenarios/lock/broken.toml: `store.node[0].next_sequence`: 1 on an ephemeral node, which \
         has no children; expected none"
    );
    assert_eq!(
        node("[[store.node]]\npath = \"lock/x\""),
        "scenarios/lock/broken.toml: `store.node[0].path`: \"lock/x\": path must start with / \
         character; expected an absolute path like \"/lock/leftover\""
    );
    assert_eq!(
        node(&"[[store.node]]\npath = \"/lock\"\n".repeat(9)),
        "scenarios/lock/broken.toml: `store.node`: 9 nodes; expected at most 8"
    );
}

#[test]
fn a_command_with_a_timeout_is_one_whose_recipe_can_time_out() {
    let timed = replaced(
        "[\"acquire\", \"work\"",
        "[\"acquire with timeout\", \"work\"",
    );
    let scenario = Scenario::parse(&timed, Path::new("x.toml"), "lock/x").unwrap();
    assert_eq!(scenario.subject.timed, [0b1, 0b1]);
    assert_eq!(
        scenario.subject.script_words(0),
        "acquire with timeout, work, release"
    );
    let barrier = BARRIER.replacen(
        "\"enter\", \"leave\"",
        "\"enter with timeout\", \"leave\"",
        1,
    );
    assert_eq!(
        Scenario::parse(
            &barrier,
            Path::new("scenarios/double_barrier/broken.toml"),
            "x"
        )
        .unwrap_err()
        .to_string(),
        "scenarios/double_barrier/broken.toml: `script`: \"enter with timeout\": the calls of \
         `double_barrier` cannot time out; expected a command without \"with timeout\""
    );
    assert_eq!(
        error_of(&replaced(
            "[\"acquire\", \"work\"",
            "[\"acquire with timeot\", \"work\""
        )),
        "scenarios/lock/broken.toml: `script`: \"acquire with timeot\"; expected one of acquire, \
         work, release, cancel"
    );
}

#[test]
fn a_semaphore_of_no_lease_is_refused() {
    let text =
        "description = \"d\"\nrecipe = \"semaphore\"\nvariant = \"reference\"\nclients = 2\n\
                script = [\"acquire\", \"release\"]\n[params]\nmax_leases = 0\n[expect]\n\
                leases_within_limit = \"holds\"\nleases_granted = \"holds\"\n\
                herd_avoidance = \"holds\"\nno_orphan_no_deadlock = \"holds\"\n\
                leases_shared = \"reached\"\nsemaphore_full = \"unreached\"\n\
                waiter_woken = \"reached\"\n";
    let file = Path::new("scenarios/semaphore/broken.toml");
    assert_eq!(
        Scenario::parse(text, file, "semaphore/broken")
            .unwrap_err()
            .to_string(),
        "scenarios/semaphore/broken.toml: `params.max_leases`: 0; expected 1 to 5 (a semaphore \
         of no lease holds nobody)"
    );
    let one = text.replace("max_leases = 0", "max_leases = 1");
    assert!(Scenario::parse(&one, file, "semaphore/one").is_ok());
}

#[test]
fn a_library_table_names_a_profile_and_turns_its_settings_per_client() {
    let with = |body: &str| replaced("[faults]\n", &format!("{body}\n\n[faults]\n"));
    let parse = |text: &str| Scenario::parse(text, Path::new("x.toml"), "lock/x").unwrap();
    let libraries = |text: &str| -> Vec<String> {
        (parse(text).libraries.iter())
            .map(|profiled| profiled.to_string())
            .collect()
    };
    assert_eq!(libraries(VALID), ["java", "java"]);
    assert_eq!(parse(VALID).libraries[0].library, Library::JAVA);
    assert_eq!(
        libraries(&with("[library]\non_expiry = \"renew\"")),
        ["java on_expiry=renew", "java on_expiry=renew"]
    );
    assert_eq!(
        parse(&with("[library]\nprofile = \"kazoo2\"")).libraries[1].library,
        Library::KAZOO2
    );
    // A client's table names its own profile, and the scenario's settings
    // are turned over it, then the client's own.
    let mixed = with(
        "[library]\nconnect_zxid = \"zero\"\n\n[[client]]\nlibrary = { profile = \"curator5\", gives_up = false }\n\n[[client]]",
    );
    assert_eq!(
        libraries(&mixed),
        [
            "curator5 connect_zxid=zero gives_up=false",
            "java connect_zxid=zero"
        ]
    );
    assert_eq!(
        error_of(&with("[library]\non_expiry = \"reconnect\"")),
        "scenarios/lock/broken.toml: `library.on_expiry`: setting `on_expiry` has no value \"reconnect\"; expected one of stop, renew"
    );
    assert!(
        error_of(&with("[library]\nrenew = true"))
            .starts_with("scenarios/lock/broken.toml: `library.renew`: unknown setting \"renew\""),
        "{}",
        error_of(&with("[library]\nrenew = true"))
    );
    assert_eq!(
        error_of(&with("[[client]]\nlibrary = { profile = \"kazoo\" }\n\n[[client]]")),
        "scenarios/lock/broken.toml: `client[0].library.profile`: unknown profile \"kazoo\"; did you mean \"kazoo2\"? expected one of java, curator5, kazoo2"
    );
    assert_eq!(
        error_of(&with("[library]\nprofile = 2")),
        "scenarios/lock/broken.toml: `library.profile`: integer `2`; expected a profile's name in quotes"
    );
    // The table on_expiry was in before.
    let session = error_of(&with("[session]\non_expiry = \"renew\""));
    assert!(
        session.starts_with("scenarios/lock/broken.toml: `session`: unknown field `session`")
            && session.contains("`[session] on_expiry` is `[library] on_expiry` now"),
        "{session}"
    );
    // A library that never gives its session up cannot be made to.
    let abandon = replaced("crash = 1", "crash = 1\ndisconnect = 1\nabandon = 1");
    assert_eq!(
        error_of(&abandon),
        "scenarios/lock/broken.toml: `faults.abandon`: no client's library gives its session up on its own (java and kazoo2 learn of an expiry from a server only); expected a library that does: `profile = \"curator5\"` or `gives_up = true` under [library]"
    );
    let curator = abandon.replacen(
        "[faults]",
        "[library]\nprofile = \"curator5\"\n\n[faults]",
        1,
    );
    assert_eq!(libraries(&curator), ["curator5", "curator5"]);
    let aimed = with("[[client]]\nlibrary = { gives_up = true }\n\n[[client]]")
        + "\n[[fault]]\nkind = \"abandon\"\nclient = 1\n";
    assert!(
        error_of(&aimed).starts_with(
            "scenarios/lock/broken.toml: `fault[0].client`: client 1's library (`java`) never gives its session up"
        ),
        "{}",
        error_of(&aimed)
    );
    assert_eq!(
        libraries(&aimed.replace("client = 1", "client = 0")),
        ["java gives_up=true", "java"]
    );
}

/// A spurious wake needs a thread that waits: a recipe that declares none
/// (the barrier's waiters are not modelled as waiting threads) is told
/// which recipes do.
#[test]
fn a_wake_for_a_recipe_with_no_waiting_thread_is_refused() {
    let text = barrier(r#"[["lift"], ["wait"], ["wait"]]"#)
        .replace("[expect]", "[faults]\nwake = 1\n\n[expect]");
    assert_eq!(
        error_at(&text, "scenarios/barrier/broken.toml"),
        "scenarios/barrier/broken.toml: `faults.wake`: a wake, for a recipe none of whose \
         threads waits for an event (Recipe::waits); the recipes that do: lock, shared_lock, \
         election"
    );
    // The lock's waiter does.
    assert!(Scenario::parse(
        &replaced("crash = 1", "wake = 1"),
        Path::new("scenarios/lock/ok.toml"),
        "x"
    )
    .is_ok());
}
