//! What a verdict rests on: a panic inside the model is reported with a trace
//! that replays to it (never as a verdict, never as a bare "a thread
//! panicked"), and a replayed action is taken only where it is enabled.

use stateright::Model;
use zoocheck::check::{check_world, CheckOptions, Expected, Judgement, Limit, Verdict};
use zoocheck::faults::{Fault, FaultBudget, Kind};
use zoocheck::properties::Promise;
use zoocheck::recipe::{Effects, Incarnation, Input, Recipe};
use zoocheck::simulate::{simulate_world, SimulateOptions};
use zoocheck::store::{CreateMode, Op, Path};
use zoocheck::trace::{self, Stop};
use zoocheck::world::{Action, Refusal, World, WorldState};

/// The one command of these test recipes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Go;

impl std::fmt::Display for Go {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("go")
    }
}

/// A recipe with a bug: each client creates a node and reads its reply;
/// client 1 panics on reading it.
#[derive(Clone, Debug)]
struct Brittle {
    dir: Path,
}

impl Recipe for Brittle {
    type State = u8;
    type Command = Go;
    type Fact = std::convert::Infallible;
    type Log = ();

    fn init(&self, _me: Incarnation) -> u8 {
        0
    }

    fn handle(&self, me: Incarnation, state: &mut u8, input: Input<Go>, out: &mut Effects) {
        match input {
            Input::Command(Go) => {
                *state = 1;
                out.send(Op::Create {
                    path: self.dir.child(&format!("c{}-", me.client)),
                    data: None,
                    mode: CreateMode::EphemeralSequential,
                });
            }
            Input::Reply { .. } if me.client == 1 => panic!("c1 cannot read its reply"),
            Input::Reply { .. } => *state = 2,
            _ => {}
        }
    }

    fn is_busy(&self, state: &u8) -> bool {
        *state == 1
    }

    fn is_waiting(&self, _state: &u8) -> bool {
        false
    }

    fn directory(&self) -> &Path {
        &self.dir
    }

    fn claims(&self, _state: &u8, _name: &str) -> bool {
        true
    }
}

fn someone_done(_: &World<Brittle>, state: &WorldState<u8>) -> bool {
    state.processes.iter().any(|process| process.recipe == 2)
}

fn properties() -> Vec<Promise<Brittle>> {
    vec![Promise::sometimes(
        "someone_done",
        "some client finished",
        someone_done,
    )]
}

fn brittle(budget: FaultBudget) -> World<Brittle> {
    let recipe = Brittle {
        dir: Path::new("/brittle"),
    };
    World::new(recipe, vec![vec![Go]; 2], properties).with_budget(budget)
}

#[test]
fn a_panic_in_a_recipe_is_reported_with_a_trace_that_replays_to_it() {
    // REGRESSION: a panic in a recipe printed "a checker thread panicked: Any"
    // and nothing else.
    let world = brittle(FaultBudget::default());
    let outcome = check_world(
        world.clone(),
        &CheckOptions::default(),
        &[("someone_done", Expected::proven(Verdict::Reached))],
    );
    let panic = outcome.panic.as_ref().expect("the panic is reported");
    assert_eq!(panic.message, "c1 cannot read its reply");
    assert_eq!(outcome.judgement(), Judgement::NotMet);
    assert!(
        !outcome.complete(),
        "a search that met a panic proves nothing"
    );
    let trace = panic.trace.as_ref().expect("a path to the panic");
    assert!(trace.replays, "{trace}");
    assert_eq!(
        trace.actions,
        [Action::Invoke(1), Action::Serve(1), Action::Deliver(1)],
        "the shortest path to the panic"
    );
    let replayed = trace::replay(&world, &trace.actions);
    assert_eq!(
        replayed.stop,
        Some(Stop::Panicked {
            step: 3,
            action: Some(Action::Deliver(1)),
            message: "c1 cannot read its reply".into()
        })
    );
}

#[test]
fn a_panic_in_a_simulation_names_its_seed() {
    let world = brittle(FaultBudget::default());
    let outcome = simulate_world(
        &world,
        SimulateOptions {
            runs: 20,
            seed: 0,
            max_depth: 50,
            ..SimulateOptions::default()
        },
        &[("someone_done", Expected::proven(Verdict::Reached))],
        None,
    );
    let panic = outcome.panic.expect("some walk reaches the panic");
    assert_eq!(panic.message, "c1 cannot read its reply");
    assert!(panic.seed.is_some());
    assert!(panic.trace.expect("its walk").replays);
}

#[test]
fn a_replay_takes_only_enabled_actions_and_never_panics() {
    // REGRESSION: `World::step` applied a fault without its precondition and
    // `Net::reconnect` asserted; a trace could make the command panic.
    let world = brittle(FaultBudget::of(Kind::Expire, 1));
    let init = world.init_states().remove(0);
    for action in [
        // A connected, running client's session cannot expire.
        Action::Fault(Fault::new(Kind::Expire, 0)),
        // A connected client cannot reconnect.
        Action::Reconnect(0),
        Action::Serve(7),
        Action::SessionTimeout(12345),
        Action::Fault(Fault::new(Kind::Crash, 0).applied(9)),
    ] {
        assert_eq!(
            world.try_step(&init, &action).err(),
            Some(Refusal::NotEnabled),
            "{action:?}"
        );
    }
    let replayed = trace::replay(&world, &[Action::Invoke(0), Action::Reconnect(0)]);
    assert_eq!(
        replayed.stop,
        Some(Stop::Diverged {
            step: 2,
            action: Action::Reconnect(0)
        })
    );
    assert_eq!(replayed.steps.len(), 1);
}

/// Each client creates a node per command, in turn: a space that grows fast
/// with the scripts, whose properties are all found early.
#[derive(Clone, Debug)]
struct Scribbler {
    dir: Path,
}

/// Nodes written, and whether a create is on its way.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Scribbled(u8, bool);

/// Not renamed: its recipe does not say its clients are interchangeable ([`zoocheck::symmetry`]).
impl zoocheck::symmetry::Symmetric for Scribbled {}

impl std::fmt::Display for Scribbled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "wrote {}{}",
            self.0,
            if self.1 { ", writing" } else { "" }
        )
    }
}

impl Recipe for Scribbler {
    type State = Scribbled;
    type Command = Go;
    type Fact = std::convert::Infallible;
    type Log = ();

    fn init(&self, _me: Incarnation) -> Scribbled {
        Scribbled(0, false)
    }

    fn handle(&self, me: Incarnation, state: &mut Scribbled, input: Input<Go>, out: &mut Effects) {
        match input {
            Input::Command(Go) => {
                state.1 = true;
                out.send(Op::Create {
                    path: self.dir.child(&format!("c{}-", me.client)),
                    data: None,
                    mode: CreateMode::PersistentSequential,
                });
            }
            Input::Reply { .. } => *state = Scribbled(state.0 + 1, false),
            _ => {}
        }
    }

    fn is_busy(&self, state: &Scribbled) -> bool {
        state.1
    }

    fn is_waiting(&self, _state: &Scribbled) -> bool {
        false
    }

    fn directory(&self) -> &Path {
        &self.dir
    }

    fn claims(&self, _state: &Scribbled, _name: &str) -> bool {
        true
    }
}

fn someone_wrote(_: &World<Scribbler>, state: &WorldState<Scribbled>) -> bool {
    state.processes.iter().any(|process| process.recipe.0 > 0)
}

/// Violated early, and from then on in every state below: stateright's
/// checker went on from none of those (it had nothing left to find there),
/// and saw 692,504 of the 31,049,348 states of three clients writing five
/// times each.
fn c1_writes_at_most_once(_: &World<Scribbler>, state: &WorldState<Scribbled>) -> bool {
    state.processes[1].recipe.0 <= 1
}

#[test]
fn limits_hold_after_every_property_is_found() {
    // REGRESSION: the search was watched only until stateright called it
    // done, which it does once every property has a discovery; the workers
    // went on exploring every state with no time or memory limit kept.
    // zoocheck's own search (`crate::search`) has no such notion of done,
    // and the limits must still hold once every property is found.
    let recipe = Scribbler {
        dir: Path::new("/scribbles"),
    };
    let world = World::new(recipe, vec![vec![Go; 3]; 3], || {
        vec![
            Promise::always(
                "c1_writes_at_most_once",
                "c1 writes at most once",
                c1_writes_at_most_once,
                |_, _| None,
            ),
            Promise::sometimes("someone_wrote", "some client wrote", someone_wrote),
        ]
    });
    let expect = [
        (
            "c1_writes_at_most_once",
            Expected::proven(Verdict::Violated),
        ),
        ("someone_wrote", Expected::proven(Verdict::Reached)),
    ];
    let whole = check_world(world.clone(), &CheckOptions::default(), &expect);
    assert!(whole.complete());
    assert_eq!(whole.unique_states, 65_882, "pin the space");
    let cut = check_world(
        world,
        &CheckOptions {
            timeout: Some(std::time::Duration::from_millis(50)),
            ..CheckOptions::default()
        },
        &expect,
    );
    assert_eq!(cut.stopped, Some(Limit::Time));
    assert!(
        cut.unique_states < whole.unique_states,
        "{} of {}",
        cut.unique_states,
        whole.unique_states
    );
    // What was found is proven; that every fair run ends is not, since the
    // search did not see every state.
    for property in &cut.properties {
        let proven = property.name != "terminates";
        assert_eq!(property.proven, proven, "{}", property.name);
        assert!(property.as_expected(), "{}", property.name);
    }
    assert_eq!(cut.judgement(), Judgement::Unproven);
    assert_eq!(whole.judgement(), Judgement::Met);
}

#[test]
fn a_panic_in_a_propertys_condition_is_reported_on_any_number_of_threads() {
    // REGRESSION: the search's thread handles were taken by the watcher and
    // dropped, so the panic of a worker went unheard and a search that had
    // stopped short was reported complete.
    fn reads_too_far(_: &World<Scribbler>, state: &WorldState<Scribbled>) -> bool {
        assert!(state.processes[0].recipe.0 < 2, "the condition gave up");
        true
    }
    for threads in [1, 2] {
        let world = World::new(
            Scribbler {
                dir: Path::new("/scribbles"),
            },
            vec![vec![Go; 3]; 3],
            || {
                vec![Promise::always(
                    "reads_too_far",
                    "a condition that reads past the clients",
                    reads_too_far,
                    |_, _| None,
                )]
            },
        );
        let options = CheckOptions {
            threads,
            ..CheckOptions::default()
        };
        let outcome = check_world(
            world,
            &options,
            &[("reads_too_far", Expected::proven(Verdict::Holds))],
        );
        let panic = outcome.panic.as_ref().expect("the panic is reported");
        assert!(
            panic.message.contains("the condition gave up"),
            "{}",
            panic.message
        );
        assert!(!outcome.complete());
        assert_eq!(outcome.judgement(), Judgement::NotMet);
        assert!(outcome.unique_states < 65_882, "{}", outcome.unique_states);
    }
}

/// Creates a node and, whatever the answer, asks again at once: on a dead
/// session its client library fails each request at once, so the recipe
/// would loop within one step.
#[derive(Clone, Debug)]
struct Insistent {
    dir: Path,
}

impl Recipe for Insistent {
    type State = u8;
    type Command = Go;
    type Fact = std::convert::Infallible;
    type Log = ();

    fn init(&self, _me: Incarnation) -> u8 {
        0
    }

    fn handle(&self, me: Incarnation, state: &mut u8, input: Input<Go>, out: &mut Effects) {
        let create = Op::Create {
            path: self.dir.child(&format!("c{}", me.client)),
            data: None,
            mode: CreateMode::Ephemeral,
        };
        match input {
            Input::Command(Go) => {
                *state = 1;
                out.send(create);
            }
            Input::Reply { result: Ok(_), .. } => *state = 2,
            Input::Reply { .. } => out.send(create),
            _ => {}
        }
    }

    fn is_busy(&self, state: &u8) -> bool {
        *state == 1
    }

    fn is_waiting(&self, _state: &u8) -> bool {
        false
    }

    fn directory(&self) -> &Path {
        &self.dir
    }

    fn claims(&self, _state: &u8, _name: &str) -> bool {
        true
    }
}

#[test]
fn a_recipe_that_loops_within_one_step_is_reported_as_a_panic_not_a_hang() {
    // REGRESSION: `World::feed` handed the recipe the failures of its own
    // requests for as long as it made them: the check never returned.
    let world = World::new(
        Insistent {
            dir: Path::new("/insistent"),
        },
        vec![vec![Go]],
        || {
            vec![Promise::sometimes(
                "done",
                "the recipe reached its last state",
                |_: &World<Insistent>, state: &WorldState<u8>| state.processes[0].recipe == 2,
            )]
        },
    )
    .with_budget(FaultBudget::of(Kind::Disconnect, 1).with(Kind::Expire, 1));
    let outcome = check_world(
        world.clone(),
        &CheckOptions::default(),
        &[("done", Expected::proven(Verdict::Reached))],
    );
    let panic = outcome.panic.as_ref().expect("the loop is reported");
    assert!(
        panic
            .message
            .starts_with("c0's recipe loops within one step: it was handed 1000 inputs"),
        "{}",
        panic.message
    );
    assert!(!outcome.complete());
    let trace = panic.trace.as_ref().expect("a path to the loop");
    assert!(trace.replays, "{trace}");
    let replayed = trace::replay(&world, &trace.actions);
    assert!(
        matches!(replayed.stop, Some(Stop::Panicked { .. })),
        "{:?}",
        replayed.stop
    );
}
