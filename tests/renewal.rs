//! What a recipe sees of its sessions when its client library renews them
//! (`[library] on_expiry = "renew"`): `Expired`, then `SyncConnected` on a
//! new session; `getSessionId()` (its handle's [`Effects::session`]); and the
//! Stat of its nodes, whose `ephemeral_owner` tells the sessions apart.

use stateright::Model;
use zoocheck::client::{Library, SessionEvent};
use zoocheck::faults::{Fault, FaultBudget, Kind};
use zoocheck::recipe::{Effects, Incarnation, Input, Recipe};
use zoocheck::store::{CreateMode, Op, Path, Response, SessionId};
use zoocheck::world::{Action, World, WorldState};

/// The one command: create an ephemeral node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Create;

impl std::fmt::Display for Create {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("create")
    }
}

/// What the recipe saw: the session its handle named at each create's
/// reply with the owner the reply's Stat gave, and the session events.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
struct Seen {
    creating: bool,
    created: Vec<(SessionId, SessionId)>,
    events: Vec<SessionEvent>,
}

/// Not renamed: its recipe does not say its clients are interchangeable ([`zoocheck::symmetry`]).
impl zoocheck::symmetry::Symmetric for Seen {}

impl std::fmt::Display for Seen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

/// Creates `/owners/c0-<n>` per command, and keeps what it saw.
#[derive(Clone, Debug)]
struct Owners {
    dir: Path,
}

impl Recipe for Owners {
    type State = Seen;
    type Command = Create;
    type Fact = std::convert::Infallible;
    type Log = ();

    fn init(&self, _me: Incarnation) -> Seen {
        Seen::default()
    }

    fn handle(&self, me: Incarnation, state: &mut Seen, input: Input<Create>, out: &mut Effects) {
        match input {
            Input::Command(Create) => {
                state.creating = true;
                out.send(Op::Create {
                    path: self
                        .dir
                        .child(&format!("c{}-{}", me.client, state.created.len())),
                    data: None,
                    mode: CreateMode::Ephemeral,
                });
            }
            Input::Reply {
                result: Ok(Response::Created { stat, .. }),
                ..
            } => {
                state.creating = false;
                state.created.push((out.session(), stat.ephemeral_owner));
            }
            Input::Reply { .. } => state.creating = false,
            Input::Session(event) => state.events.push(event),
            Input::Watch(_) => {}
        }
    }

    fn is_busy(&self, state: &Seen) -> bool {
        state.creating
    }

    fn is_waiting(&self, _state: &Seen) -> bool {
        false
    }

    fn directory(&self) -> &Path {
        &self.dir
    }

    fn claims(&self, _state: &Seen, _name: &str) -> bool {
        true
    }
}

fn walk(
    world: &World<Owners>,
    mut state: WorldState<Seen>,
    actions: &[Action],
) -> WorldState<Seen> {
    for action in actions {
        state = world
            .try_step(&state, action)
            .unwrap_or_else(|refusal| panic!("{action:?}: {refusal:?}"));
    }
    state
}

#[test]
fn a_renewed_session_has_a_new_id_which_the_recipe_reads_and_its_nodes_carry() {
    let recipe = Owners {
        dir: Path::new("/owners"),
    };
    let world = World::new(recipe, vec![vec![Create, Create]], Vec::new)
        .with_budget(FaultBudget::of(Kind::Disconnect, 1).with(Kind::Abandon, 1))
        .with_library(Library::CURATOR5);
    let init = world.init_states().remove(0);
    let first = init.net.session(0);
    let created = walk(
        &world,
        init,
        &[Action::Invoke(0), Action::Serve(0), Action::Deliver(0)],
    );
    // The handle names the session, and the node's Stat its owner: the same.
    assert_eq!(created.processes[0].recipe.created, [(first, first)]);
    let renewed = walk(
        &world,
        created,
        &[
            Action::Fault(Fault::new(Kind::Disconnect, 0)),
            Action::Deliver(0),
            Action::Fault(Fault::new(Kind::Abandon, 0)),
            Action::Renew(0),
        ],
    );
    let second = renewed.net.session(0);
    assert_ne!(second, first);
    assert_eq!(
        renewed.processes[0].recipe.events,
        [
            SessionEvent::Disconnected,
            SessionEvent::Expired,
            SessionEvent::SyncConnected
        ]
    );
    // The old session's node is still the server's until it times out.
    assert!(renewed.net.store.exists(&Path::new("/owners/c0-0")));
    let again = walk(
        &world,
        renewed,
        &[Action::Invoke(0), Action::Serve(0), Action::Deliver(0)],
    );
    assert_eq!(
        again.processes[0].recipe.created,
        [(first, first), (second, second)]
    );
    let stat = |state: &WorldState<Seen>, path: &str| {
        state
            .net
            .store
            .stat(&Path::new(path))
            .map(|stat| stat.ephemeral_owner)
    };
    assert_eq!(stat(&again, "/owners/c0-0"), Some(first));
    assert_eq!(stat(&again, "/owners/c0-1"), Some(second));
    let expired = walk(&world, again, &[Action::SessionTimeout(first)]);
    assert_eq!(stat(&expired, "/owners/c0-0"), None);
    assert_eq!(stat(&expired, "/owners/c0-1"), Some(second));
}

/// Every recipe of the catalogue says what its application does once its
/// library renewed a lost session ([`Catalogued::RENEWS`]), and some scenario
/// under `scenarios/` asks it of that recipe: a recipe added without one
/// fails here.
///
/// [`Catalogued::RENEWS`]: zoocheck::catalogued::Catalogued::RENEWS
#[test]
fn every_recipe_is_checked_under_renewal() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let scenarios = zoocheck::scenario::Scenario::load_all(&root).expect("the scenarios load");
    for recipe in zoocheck::catalogue::all() {
        let name = recipe.name();
        assert!(
            recipe.renews(),
            "{name} does not say what it does after a renewal"
        );
        let renewing = scenarios
            .iter()
            .filter(|scenario| {
                scenario.subject.recipe == name
                    && scenario
                        .libraries
                        .iter()
                        .any(|profiled| profiled.library.renews())
            })
            .count();
        assert!(renewing > 0, "no scenario checks {name} under renewal");
    }
}

/// A trace names a session no client holds for whose it was: the ephemeral
/// of a session c0's library gave up, in the last state before the server
/// times it out, and the step that does; and each step says what ended a
/// call and what a client was yet to read.
#[test]
fn a_trace_names_the_session_a_library_gave_up_and_what_each_loss_ended() {
    let world = World::new(
        Owners {
            dir: Path::new("/owners"),
        },
        vec![vec![Create, Create]],
        Vec::new,
    )
    .with_budget(FaultBudget::of(Kind::Disconnect, 1).with(Kind::Abandon, 1))
    .with_library(Library::CURATOR5);
    let given_up = [
        Action::Invoke(0),
        Action::Serve(0),
        Action::Deliver(0),
        Action::Invoke(0),
        Action::Fault(Fault::new(Kind::Disconnect, 0)),
        Action::Deliver(0),
        Action::Fault(Fault::new(Kind::Abandon, 0)),
        Action::Renew(0),
    ];
    let replayed = zoocheck::trace::replay(&world, &given_up);
    assert!(replayed.stop.is_none());
    // Each step without the recipe's state it ends with (`; now Seen {..}`).
    let steps: Vec<&str> = (replayed.steps.iter())
        .map(|step| step.text.split("; now ").next().unwrap_or_default())
        .collect();
    assert_eq!(
        steps[4..7],
        [
            "FAULT: c0's connection drops (the server received 0 of its requests in flight)",
            "c0 reads the connection is gone: CONNECTIONLOSS for create /owners/c0-1 \
             (ephemeral), then Disconnected",
            "FAULT: c0's client library gives up its session (the server still has it); \
             c0 hears Expired",
        ]
    );
    let last = zoocheck::trace::picture(&replayed.states);
    assert!(
        last.contains("c0-0 (ephemeral of session 0x1, which c0's library gave up)"),
        "{last}"
    );
    // Without the path, whose it was is not known, and not guessed.
    let alone = zoocheck::trace::picture(std::slice::from_ref(replayed.last()));
    assert!(
        alone.contains("c0-0 (ephemeral of session 0x1, which no client holds)"),
        "{alone}"
    );
    let first = replayed.states[0].net.session(0);
    let mut timed_out = given_up.to_vec();
    timed_out.push(Action::SessionTimeout(first));
    let replayed = zoocheck::trace::replay(&world, &timed_out);
    assert_eq!(
        replayed.steps.last().map(|step| step.text.as_str()),
        Some("server expires the session 0x1 that c0's library gave up; deleted /owners/c0-0")
    );
}
