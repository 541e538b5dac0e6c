//! The lock recipe's actor (`models/lock.rs`), one test per branch of
//! `Lock::handle`, named after the branch it reaches: each drives the actor
//! directly with a hand-built input and asserts the exact effects (requests
//! sent, observations) and the resulting `state.phase` and `state.node`.
//!
//! Then a few scripted interleavings through the whole world
//! (`zoocheck::world::World`), each walking one specific run action by action.
//!
//! Tests marked `// REGRESSION:` pin a bug these tests found (and that was
//! fixed): the `herd` variant's recovery listing set no watch.

use std::sync::Arc;

use stateright::Model;

mod actor;
use actor::lock_dir::{at, create_op, created, delete_op, exists_op, list_op};
use actor::*;

use zoocheck::catalogued::Catalogued;
use zoocheck::client::library::OnExpiry;
use zoocheck::client::{Library, SessionEvent};
use zoocheck::faults::{Fault, FaultBudget, Kind};
use zoocheck::models::lock::{self, Command, Knobs, Lock, Phase, State};
use zoocheck::properties;
use zoocheck::recipe::{Effects, Incarnation, Input, Observation, Recipe, Role};
use zoocheck::store::{ErrorCode, EventType, Path, Response, Stat};
use zoocheck::world::{Action, Status, Tenure, World, WorldState};

// ---------------------------------------------------------------------------
// Helpers.
// ---------------------------------------------------------------------------

/// Client 0's first process: GUID `c0`.
const ME: Incarnation = Incarnation {
    client: 0,
    restarts: 0,
};

/// Our node, as the server would name the fourth child of `/lock`.
const MINE: &str = "c0-lock-0000000003";
/// The next lowest node: another client's.
const PRED: &str = "c1-lock-0000000001";
/// The lowest node: a third client's.
const LOWEST: &str = "c2-lock-0000000000";

fn state(phase: Phase, node: Option<&str>) -> State {
    State {
        phase,
        node: node.map(Arc::from),
        ..State::new(Role::Lock)
    }
}

/// `state`, its attempt cancelled while its node was not known.
fn cancelled(phase: Phase) -> State {
    State {
        cancelled: true,
        ..state(phase, None)
    }
}

fn idle() -> State {
    state(Phase::Idle, None)
}

fn watching(name: &str) -> Phase {
    Phase::Watching(Arc::from(name))
}

/// Hands `input` to a lock of `variant` as client 0's first process.
fn run(variant: Knobs, state: &mut State, input: Input<Command>) -> Effects {
    run_as(variant, ME, state, input)
}

fn run_as(variant: Knobs, me: Incarnation, state: &mut State, input: Input<Command>) -> Effects {
    let mut out = Effects::default();
    Lock::new(variant).handle(me, state, input, &mut out);
    out
}

/// Every phase, once each.
fn all_phases() -> Vec<Phase> {
    vec![
        Phase::Idle,
        Phase::Creating,
        Phase::Recovering,
        Phase::Listing,
        watching(PRED),
        Phase::WaitingForChildren,
        Phase::Held,
        Phase::Suspended,
        Phase::Releasing,
        Phase::Abandoning,
        Phase::Dead,
    ]
}

// ---------------------------------------------------------------------------
// Step 1: acquire creates the node.
// ---------------------------------------------------------------------------

#[test]
fn acquire_creates_an_ephemeral_sequential_node_with_the_guid_prefix() {
    for variant in [Knobs::GUID, Knobs::HERD, Knobs::FENCED, Knobs::TRY_ACQUIRE] {
        let mut s = idle();
        let out = run(variant, &mut s, command(Command::Acquire));
        assert_eq!(
            out,
            effects(vec![create_op("c0-lock-")], vec![]),
            "{variant:?}"
        );
        assert_eq!(s, state(Phase::Creating, None), "{variant:?}");
    }
    // A restarted process has a GUID of its own.
    let mut s = idle();
    let restarted = Incarnation {
        client: 1,
        restarts: 2,
    };
    let out = run_as(Knobs::GUID, restarted, &mut s, command(Command::Acquire));
    assert_eq!(out, effects(vec![create_op("c1r2-lock-")], vec![]));
    assert_eq!(s, state(Phase::Creating, None));
}

#[test]
fn no_guid_acquire_creates_a_plain_lock_node() {
    let mut s = idle();
    let out = run(Knobs::NO_GUID, &mut s, command(Command::Acquire));
    assert_eq!(out, effects(vec![create_op("lock-")], vec![]));
    assert_eq!(s, state(Phase::Creating, None));
}

#[test]
fn acquire_while_not_idle_does_nothing() {
    for phase in all_phases() {
        if phase == Phase::Idle {
            continue;
        }
        let mut s = state(phase.clone(), Some(MINE));
        let out = run(Knobs::GUID, &mut s, command(Command::Acquire));
        assert_eq!(out, nothing(), "{phase:?}");
        assert_eq!(s, state(phase.clone(), Some(MINE)), "{phase:?}");
    }
}

// ---------------------------------------------------------------------------
// Step 2: the create's reply, and listing.
// ---------------------------------------------------------------------------

#[test]
fn created_node_is_remembered_and_children_are_listed_without_watch() {
    for variant in [
        Knobs::GUID,
        Knobs::NO_GUID,
        Knobs::FENCED,
        Knobs::TRY_ACQUIRE,
    ] {
        let mut s = state(Phase::Creating, None);
        let out = run(variant, &mut s, reply(create_op("c0-lock-"), created(MINE)));
        assert_eq!(out, effects(vec![list_op(false)], vec![]), "{variant:?}");
        assert_eq!(s, state(Phase::Listing, Some(MINE)), "{variant:?}");
    }
}

#[test]
fn herd_created_node_is_remembered_and_children_are_listed_with_watch() {
    let mut s = state(Phase::Creating, None);
    let out = run(
        Knobs::HERD,
        &mut s,
        reply(create_op("c0-lock-"), created(MINE)),
    );
    assert_eq!(out, effects(vec![list_op(true)], vec![]));
    assert_eq!(s, state(Phase::Listing, Some(MINE)));
}

#[test]
fn create_reply_when_not_creating_is_ignored() {
    let mut s = state(Phase::Dead, None);
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(create_op("c0-lock-"), created(MINE)),
    );
    assert_eq!(out, nothing());
    assert_eq!(s, state(Phase::Dead, None));
}

#[test]
fn create_other_error_is_ignored() {
    // SESSIONEXPIRED follows the `Expired` event that already ended the
    // process; a create refused otherwise is not something the recipe meets.
    let mut s = state(Phase::Creating, None);
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(create_op("c0-lock-"), Err(ErrorCode::SessionExpired)),
    );
    assert_eq!(out, nothing());
    assert_eq!(s, state(Phase::Creating, None));
}

// ---------------------------------------------------------------------------
// Steps 3 and 4: deciding on the children.
// ---------------------------------------------------------------------------

#[test]
fn lowest_node_holds_and_observes_acquired_with_its_sequence_as_token() {
    // Unsorted, with a child that is not a lock node: the order is by sequence.
    for variant in [Knobs::GUID, Knobs::HERD, Knobs::FENCED, Knobs::TRY_ACQUIRE] {
        let mut s = state(Phase::Listing, Some(MINE));
        let out = run(
            variant,
            &mut s,
            reply(
                list_op(false),
                children(&["c5-lock-0000000009", "readme", MINE]),
            ),
        );
        assert_eq!(
            out,
            effects(
                vec![],
                vec![Observation::Acquired {
                    node: Arc::from(MINE),
                    token: 3,
                    role: Role::Lock
                }]
            ),
            "{variant:?}"
        );
        assert_eq!(s, state(Phase::Held, Some(MINE)), "{variant:?}");
    }
    let mut s = state(Phase::Listing, Some("lock-0000000007"));
    let out = run(
        Knobs::NO_GUID,
        &mut s,
        reply(
            list_op(false),
            children(&["lock-0000000008", "lock-0000000007"]),
        ),
    );
    assert_eq!(
        out,
        effects(
            vec![],
            vec![Observation::Acquired {
                node: Arc::from("lock-0000000007"),
                token: 7,
                role: Role::Lock
            }]
        )
    );
    assert_eq!(s, state(Phase::Held, Some("lock-0000000007")));
}

#[test]
fn otherwise_watches_the_next_lowest_with_exists() {
    for variant in [Knobs::GUID, Knobs::NO_GUID, Knobs::FENCED] {
        let mut s = state(Phase::Listing, Some(MINE));
        // The next lowest, not the lowest; by sequence, not by name.
        let out = run(
            variant,
            &mut s,
            reply(
                list_op(false),
                children(&[MINE, LOWEST, "c9-lock-0000000004", PRED]),
            ),
        );
        assert_eq!(out, effects(vec![exists_op(PRED)], vec![]), "{variant:?}");
        assert_eq!(s, state(watching(PRED), Some(MINE)), "{variant:?}");
    }
}

#[test]
fn our_node_missing_from_the_children_creates_again() {
    let mut s = state(Phase::Listing, Some(MINE));
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(list_op(false), children(&[LOWEST, PRED])),
    );
    assert_eq!(out, effects(vec![create_op("c0-lock-")], vec![]));
    assert_eq!(s, state(Phase::Creating, None));
}

#[test]
fn listing_connection_loss_lists_again() {
    for (variant, watch) in [(Knobs::GUID, false), (Knobs::HERD, true)] {
        let mut s = state(Phase::Listing, Some(MINE));
        let out = run(variant, &mut s, reply(list_op(watch), lost()));
        assert_eq!(out, effects(vec![list_op(watch)], vec![]), "{variant:?}");
        assert_eq!(s, state(Phase::Listing, Some(MINE)), "{variant:?}");
    }
}

#[test]
fn listing_other_error_is_ignored() {
    let mut s = state(Phase::Listing, Some(MINE));
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(list_op(false), Err(ErrorCode::SessionExpired)),
    );
    assert_eq!(out, nothing());
    assert_eq!(s, state(Phase::Listing, Some(MINE)));
}

// ---------------------------------------------------------------------------
// Step 5: the exists reply and the watch event.
// ---------------------------------------------------------------------------

#[test]
fn exists_false_goes_back_to_step_2() {
    let mut s = state(watching(PRED), Some(MINE));
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(exists_op(PRED), Ok(Response::Exists(None))),
    );
    assert_eq!(out, effects(vec![list_op(false)], vec![]));
    assert_eq!(s, state(Phase::Listing, Some(MINE)));
}

#[test]
fn exists_true_waits() {
    let mut s = state(watching(PRED), Some(MINE));
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(exists_op(PRED), Ok(Response::Exists(Some(Stat::default())))),
    );
    assert_eq!(out, nothing());
    assert_eq!(s, state(watching(PRED), Some(MINE)));
}

#[test]
fn exists_connection_loss_goes_back_to_step_2() {
    let mut s = state(watching(PRED), Some(MINE));
    let out = run(Knobs::GUID, &mut s, reply(exists_op(PRED), lost()));
    assert_eq!(out, effects(vec![list_op(false)], vec![]));
    assert_eq!(s, state(Phase::Listing, Some(MINE)));
}

#[test]
fn exists_reply_for_another_node_is_ignored() {
    let mut s = state(watching(PRED), Some(MINE));
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(exists_op(LOWEST), Ok(Response::Exists(None))),
    );
    assert_eq!(out, nothing());
    assert_eq!(s, state(watching(PRED), Some(MINE)));
}

#[test]
fn predecessor_deleted_event_goes_back_to_step_2() {
    let mut s = state(watching(PRED), Some(MINE));
    let out = run(Knobs::GUID, &mut s, event(EventType::NodeDeleted, at(PRED)));
    assert_eq!(out, effects(vec![list_op(false)], vec![]));
    assert_eq!(s, state(Phase::Listing, Some(MINE)));
}

#[test]
fn events_for_other_nodes_are_ignored() {
    for input in [
        event(EventType::NodeDeleted, at(LOWEST)),
        event(EventType::NodeDeleted, at(MINE)),
        event(EventType::NodeChildrenChanged, Path::new("/lock")),
    ] {
        let mut s = state(watching(PRED), Some(MINE));
        let out = run(Knobs::GUID, &mut s, input.clone());
        assert_eq!(out, nothing(), "{input:?}");
        assert_eq!(s, state(watching(PRED), Some(MINE)), "{input:?}");
    }
}

#[test]
fn events_when_not_waiting_are_ignored() {
    for phase in [
        Phase::Idle,
        Phase::Listing,
        Phase::Held,
        Phase::Suspended,
        Phase::Dead,
    ] {
        let mut s = state(phase.clone(), Some(MINE));
        let out = run(
            Knobs::HERD,
            &mut s,
            event(EventType::NodeChildrenChanged, Path::new("/lock")),
        );
        assert_eq!(out, nothing(), "{phase:?}");
        assert_eq!(s, state(phase.clone(), Some(MINE)), "{phase:?}");
        let out = run(Knobs::GUID, &mut s, event(EventType::NodeDeleted, at(PRED)));
        assert_eq!(out, nothing(), "{phase:?}");
        assert_eq!(s, state(phase.clone(), Some(MINE)), "{phase:?}");
    }
}

// ---------------------------------------------------------------------------
// Seed 001: a lost create reply, with and without the GUID.
// ---------------------------------------------------------------------------

#[test]
fn create_connection_loss_with_guid_lists_children_to_recover() {
    for variant in [Knobs::GUID, Knobs::FENCED, Knobs::TRY_ACQUIRE] {
        let mut s = state(Phase::Creating, None);
        let out = run(variant, &mut s, reply(create_op("c0-lock-"), lost()));
        assert_eq!(out, effects(vec![list_op(false)], vec![]), "{variant:?}");
        assert_eq!(s, state(Phase::Recovering, None), "{variant:?}");
    }
}

#[test]
fn recovery_adopts_the_node_with_our_guid() {
    // Ours is the lowest: held at once, from the recovery listing itself.
    let mut s = state(Phase::Recovering, None);
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(list_op(false), children(&["c1-lock-0000000004", MINE])),
    );
    assert_eq!(
        out,
        effects(
            vec![],
            vec![Observation::Acquired {
                node: Arc::from(MINE),
                token: 3,
                role: Role::Lock
            }]
        )
    );
    assert_eq!(s, state(Phase::Held, Some(MINE)));

    // Ours is not the lowest: adopted, and its predecessor watched.
    let mut s = state(Phase::Recovering, None);
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(list_op(false), children(&[MINE, PRED, LOWEST])),
    );
    assert_eq!(out, effects(vec![exists_op(PRED)], vec![]));
    assert_eq!(s, state(watching(PRED), Some(MINE)));
}

#[test]
fn recovery_ignores_the_nodes_of_other_processes_of_the_same_client() {
    // `c0r1-` is a later process of client 0, `c10-` another client: neither
    // starts with `c0-lock-`.
    let mut s = state(Phase::Recovering, None);
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(
            list_op(false),
            children(&["c0r1-lock-0000000001", "c10-lock-0000000002"]),
        ),
    );
    assert_eq!(out, effects(vec![create_op("c0-lock-")], vec![]));
    assert_eq!(s, state(Phase::Creating, None));

    // And the restarted process does not adopt its predecessor's `c0-` node.
    let restarted = Incarnation {
        client: 0,
        restarts: 1,
    };
    let mut s = state(Phase::Recovering, None);
    let out = run_as(
        Knobs::GUID,
        restarted,
        &mut s,
        reply(list_op(false), children(&["c0-lock-0000000001"])),
    );
    assert_eq!(out, effects(vec![create_op("c0r1-lock-")], vec![]));
    assert_eq!(s, state(Phase::Creating, None));
}

#[test]
fn a_renewed_session_names_its_nodes_by_session_unless_process_guid() {
    // `Expired`, then `SyncConnected` on the new session its library opened.
    for variant in [Knobs::GUID, Knobs::PROCESS_GUID] {
        let mut s = state(Phase::Watching(Arc::from(PRED)), Some(MINE));
        let out = run(variant, &mut s, session(SessionEvent::Expired));
        assert_eq!(
            out,
            effects(vec![], vec![Observation::GaveUp]),
            "{variant:?}"
        );
        assert_eq!(s, state(Phase::Dead, None), "{variant:?}");
        let out = run(variant, &mut s, session(SessionEvent::SyncConnected));
        assert_eq!(out, nothing(), "{variant:?}");
        assert_eq!(
            s,
            State {
                renewals: 1,
                ..state(Phase::Idle, None)
            },
            "{variant:?}"
        );
        let prefix = match variant {
            Knobs::GUID => "c0s1-lock-",
            _ => "c0-lock-",
        };
        let out = run(variant, &mut s, command(Command::Acquire));
        assert_eq!(out, effects(vec![create_op(prefix)], vec![]), "{variant:?}");
    }
}

#[test]
fn recovery_in_a_renewed_session_adopts_only_that_sessions_node() {
    // The server still has the first session's node (its library gave the
    // session up before the server expired it) and this session's.
    let renewed = |phase| State {
        renewals: 1,
        ..state(phase, None)
    };
    let listing = children(&[
        "c0-lock-0000000000",
        "c1-lock-0000000001",
        "c0s1-lock-0000000002",
    ]);
    let mut s = renewed(Phase::Recovering);
    let out = run(Knobs::GUID, &mut s, reply(list_op(false), listing.clone()));
    assert_eq!(out, effects(vec![exists_op(PRED)], vec![]));
    assert_eq!(
        s,
        State {
            node: Some(Arc::from("c0s1-lock-0000000002")),
            ..renewed(watching(PRED))
        }
    );
    // `process_guid` takes the old session's node for its own: the lowest.
    let mut s = renewed(Phase::Recovering);
    let out = run(Knobs::PROCESS_GUID, &mut s, reply(list_op(false), listing));
    assert_eq!(
        out,
        effects(
            vec![],
            vec![Observation::Acquired {
                node: Arc::from("c0-lock-0000000000"),
                token: 0,
                role: Role::Lock
            }]
        )
    );
}

#[test]
fn recovery_without_our_node_creates_again() {
    let mut s = state(Phase::Recovering, None);
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(list_op(false), children(&[PRED, LOWEST])),
    );
    assert_eq!(out, effects(vec![create_op("c0-lock-")], vec![]));
    assert_eq!(s, state(Phase::Creating, None));

    let mut s = state(Phase::Recovering, None);
    let out = run(Knobs::GUID, &mut s, reply(list_op(false), children(&[])));
    assert_eq!(out, effects(vec![create_op("c0-lock-")], vec![]));
    assert_eq!(s, state(Phase::Creating, None));
}

#[test]
fn recovery_listing_connection_loss_lists_again() {
    let mut s = state(Phase::Recovering, None);
    let out = run(Knobs::GUID, &mut s, reply(list_op(false), lost()));
    assert_eq!(out, effects(vec![list_op(false)], vec![]));
    assert_eq!(s, state(Phase::Recovering, None));
}

#[test]
fn try_acquire_recovery_adopts_and_gives_up_when_not_lowest() {
    let mut s = state(Phase::Recovering, None);
    let out = run(
        Knobs::TRY_ACQUIRE,
        &mut s,
        reply(list_op(false), children(&[MINE, PRED])),
    );
    assert_eq!(
        out,
        effects(vec![delete_op(MINE)], vec![Observation::GaveUp])
    );
    assert_eq!(s, state(Phase::Abandoning, Some(MINE)));
}

// REGRESSION: the herd variant's waiters "list the children *with* a watch
// and wake on every change of the lock node" (module doc). The recovery
// listing after a lost create reply doubles as step 2 (its children decide at
// once), so it must carry the watch; it once did not, and a herd waiter that
// adopted a node that was not the lowest waited forever.
#[test]
fn herd_create_connection_loss_recovers_with_a_listing_that_watches() {
    let mut s = state(Phase::Creating, None);
    let out = run(Knobs::HERD, &mut s, reply(create_op("c0-lock-"), lost()));
    assert_eq!(out, effects(vec![list_op(true)], vec![]));
    assert_eq!(s, state(Phase::Recovering, None));
}

#[test]
fn create_connection_loss_without_guid_creates_again() {
    let mut s = state(Phase::Creating, None);
    let out = run(Knobs::NO_GUID, &mut s, reply(create_op("lock-"), lost()));
    assert_eq!(out, effects(vec![create_op("lock-")], vec![]));
    assert_eq!(s, state(Phase::Creating, None));
}

// ---------------------------------------------------------------------------
// Session events.
// ---------------------------------------------------------------------------

#[test]
fn disconnected_while_held_suspends() {
    let mut s = state(Phase::Held, Some(MINE));
    let out = run(Knobs::GUID, &mut s, session(SessionEvent::Disconnected));
    assert_eq!(out, effects(vec![], vec![Observation::Suspended]));
    assert_eq!(s, state(Phase::Suspended, Some(MINE)));
}

#[test]
fn trusting_holder_ignores_disconnected_and_keeps_believing() {
    let mut s = state(Phase::Held, Some(MINE));
    let out = run(Knobs::TRUSTING, &mut s, session(SessionEvent::Disconnected));
    assert_eq!(out, nothing());
    assert_eq!(s, state(Phase::Held, Some(MINE)));
    // Only Expired, heard on reconnecting, tells it the lock is lost.
    let out = run(Knobs::TRUSTING, &mut s, session(SessionEvent::Expired));
    assert_eq!(out, effects(vec![], vec![Observation::Lost]));
    assert_eq!(s, state(Phase::Dead, None));
}

#[test]
fn disconnected_while_waiting_keeps_waiting() {
    for (phase, node) in [
        (Phase::Creating, None),
        (Phase::Recovering, None),
        (Phase::Listing, Some(MINE)),
        (watching(PRED), Some(MINE)),
        (Phase::WaitingForChildren, Some(MINE)),
        // Nor does any other phase but `Held` react to it.
        (Phase::Idle, None),
        (Phase::Suspended, Some(MINE)),
        (Phase::Releasing, Some(MINE)),
        (Phase::Abandoning, Some(MINE)),
        (Phase::Dead, None),
    ] {
        let mut s = state(phase.clone(), node);
        let out = run(Knobs::GUID, &mut s, session(SessionEvent::Disconnected));
        assert_eq!(out, nothing(), "{phase:?}");
        assert_eq!(s, state(phase.clone(), node), "{phase:?}");
    }
}

#[test]
fn sync_connected_while_suspended_checks_again_and_reacquires() {
    let mut s = state(Phase::Suspended, Some(MINE));
    let out = run(Knobs::GUID, &mut s, session(SessionEvent::SyncConnected));
    assert_eq!(out, effects(vec![list_op(false)], vec![]));
    assert_eq!(s, state(Phase::Listing, Some(MINE)));

    let out = run(
        Knobs::GUID,
        &mut s,
        reply(list_op(false), children(&["c1-lock-0000000005", MINE])),
    );
    assert_eq!(
        out,
        effects(
            vec![],
            vec![Observation::Acquired {
                node: Arc::from(MINE),
                token: 3,
                role: Role::Lock
            }]
        )
    );
    assert_eq!(s, state(Phase::Held, Some(MINE)));
}

#[test]
fn herd_sync_connected_while_suspended_checks_again_with_watch() {
    let mut s = state(Phase::Suspended, Some(MINE));
    let out = run(Knobs::HERD, &mut s, session(SessionEvent::SyncConnected));
    assert_eq!(out, effects(vec![list_op(true)], vec![]));
    assert_eq!(s, state(Phase::Listing, Some(MINE)));
}

#[test]
fn sync_connected_while_suspended_finds_its_node_gone_and_creates_again() {
    let mut s = state(Phase::Suspended, Some(MINE));
    run(Knobs::GUID, &mut s, session(SessionEvent::SyncConnected));
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(list_op(false), children(&["c1-lock-0000000005"])),
    );
    assert_eq!(out, effects(vec![create_op("c0-lock-")], vec![]));
    assert_eq!(s, state(Phase::Creating, None));
}

#[test]
fn sync_connected_while_not_suspended_does_nothing() {
    for phase in all_phases() {
        // Suspended checks again; Dead starts a renewed session (below).
        if matches!(phase, Phase::Suspended | Phase::Dead) {
            continue;
        }
        let mut s = state(phase.clone(), Some(MINE));
        let out = run(Knobs::GUID, &mut s, session(SessionEvent::SyncConnected));
        assert_eq!(out, nothing(), "{phase:?}");
        assert_eq!(s, state(phase.clone(), Some(MINE)), "{phase:?}");
    }
}

#[test]
fn expired_while_held_observes_lost_and_dies() {
    for phase in [Phase::Held, Phase::Suspended] {
        let mut s = state(phase.clone(), Some(MINE));
        let out = run(Knobs::GUID, &mut s, session(SessionEvent::Expired));
        assert_eq!(out, effects(vec![], vec![Observation::Lost]), "{phase:?}");
        assert_eq!(s, state(Phase::Dead, None), "{phase:?}");
    }
}

#[test]
fn expired_while_waiting_gives_up() {
    for (phase, node) in [
        (Phase::Creating, None),
        (Phase::Recovering, None),
        (Phase::Listing, Some(MINE)),
        (watching(PRED), Some(MINE)),
        (Phase::WaitingForChildren, Some(MINE)),
    ] {
        let mut s = state(phase.clone(), node);
        let out = run(Knobs::GUID, &mut s, session(SessionEvent::Expired));
        assert_eq!(out, effects(vec![], vec![Observation::GaveUp]), "{phase:?}");
        assert_eq!(s, state(Phase::Dead, None), "{phase:?}");
    }
}

#[test]
fn expired_otherwise_just_dies() {
    for (phase, node) in [
        (Phase::Idle, None),
        (Phase::Releasing, Some(MINE)),
        (Phase::Abandoning, Some(MINE)),
        (Phase::Dead, None),
    ] {
        let mut s = state(phase.clone(), node);
        let out = run(Knobs::GUID, &mut s, session(SessionEvent::Expired));
        assert_eq!(out, nothing(), "{phase:?}");
        assert_eq!(s, state(Phase::Dead, None), "{phase:?}");
    }
}

#[test]
fn closed_ends_the_process() {
    let cases = [
        (Phase::Held, Some(MINE), vec![Observation::Lost]),
        (Phase::Suspended, Some(MINE), vec![Observation::Lost]),
        (watching(PRED), Some(MINE), vec![Observation::GaveUp]),
        (Phase::Creating, None, vec![Observation::GaveUp]),
        (Phase::Idle, None, vec![]),
        (Phase::Releasing, Some(MINE), vec![]),
    ];
    for (phase, node, observations) in cases {
        let mut s = state(phase.clone(), node);
        let out = run(Knobs::GUID, &mut s, session(SessionEvent::Closed));
        assert_eq!(out, effects(vec![], observations), "{phase:?}");
        assert_eq!(s, state(Phase::Dead, None), "{phase:?}");
    }
}

#[test]
fn replies_after_death_are_ignored() {
    let inputs = [
        reply(create_op("c0-lock-"), Err(ErrorCode::SessionExpired)),
        reply(list_op(false), Err(ErrorCode::SessionExpired)),
        reply(exists_op(PRED), Err(ErrorCode::SessionExpired)),
        reply(delete_op(MINE), Err(ErrorCode::SessionExpired)),
        reply(list_op(false), children(&[MINE])),
    ];
    for input in inputs {
        let mut s = state(Phase::Dead, None);
        let out = run(Knobs::GUID, &mut s, input.clone());
        assert_eq!(out, nothing(), "{input:?}");
        assert_eq!(s, state(Phase::Dead, None), "{input:?}");
    }
}

// ---------------------------------------------------------------------------
// Work.
// ---------------------------------------------------------------------------

#[test]
fn work_while_held_uses_the_resource() {
    let mut s = state(Phase::Held, Some(MINE));
    let out = run(Knobs::FENCED, &mut s, command(Command::Work));
    assert_eq!(
        out,
        effects(vec![], vec![Observation::Used { sequencer: Some(3) }])
    );
    assert_eq!(s, state(Phase::Held, Some(MINE)));

    for variant in [Knobs::GUID, Knobs::NO_GUID, Knobs::HERD, Knobs::TRY_ACQUIRE] {
        let mut s = state(Phase::Held, Some(MINE));
        let out = run(variant, &mut s, command(Command::Work));
        assert_eq!(
            out,
            effects(vec![], vec![Observation::Used { sequencer: None }]),
            "{variant:?}"
        );
        assert_eq!(s, state(Phase::Held, Some(MINE)), "{variant:?}");
    }
}

#[test]
fn work_without_the_lock_does_nothing() {
    for phase in all_phases() {
        if phase == Phase::Held {
            continue;
        }
        let mut s = state(phase.clone(), Some(MINE));
        let out = run(Knobs::FENCED, &mut s, command(Command::Work));
        assert_eq!(out, nothing(), "{phase:?}");
        assert_eq!(s, state(phase.clone(), Some(MINE)), "{phase:?}");
    }
}

// ---------------------------------------------------------------------------
// Unlock.
// ---------------------------------------------------------------------------

#[test]
fn release_while_held_observes_released_and_deletes() {
    let mut s = state(Phase::Held, Some(MINE));
    let out = run(Knobs::GUID, &mut s, command(Command::Release));
    assert_eq!(
        out,
        effects(vec![delete_op(MINE)], vec![Observation::Released])
    );
    assert_eq!(s, state(Phase::Releasing, Some(MINE)));
}

#[test]
fn release_while_suspended_deletes_without_observing() {
    let mut s = state(Phase::Suspended, Some(MINE));
    let out = run(Knobs::GUID, &mut s, command(Command::Release));
    assert_eq!(out, effects(vec![delete_op(MINE)], vec![]));
    assert_eq!(s, state(Phase::Releasing, Some(MINE)));
}

#[test]
fn release_without_the_lock_does_nothing() {
    for phase in all_phases() {
        if matches!(phase, Phase::Held | Phase::Suspended) {
            continue;
        }
        let mut s = state(phase.clone(), Some(MINE));
        let out = run(Knobs::GUID, &mut s, command(Command::Release));
        assert_eq!(out, nothing(), "{phase:?}");
        assert_eq!(s, state(phase.clone(), Some(MINE)), "{phase:?}");
    }
}

#[test]
fn release_delete_connection_loss_retries() {
    for phase in [Phase::Releasing, Phase::Abandoning] {
        let mut s = state(phase.clone(), Some(MINE));
        let out = run(Knobs::GUID, &mut s, reply(delete_op(MINE), lost()));
        assert_eq!(out, effects(vec![delete_op(MINE)], vec![]), "{phase:?}");
        assert_eq!(s, state(phase.clone(), Some(MINE)), "{phase:?}");
    }
}

#[test]
fn release_delete_succeeds_and_ends_idle() {
    for phase in [Phase::Releasing, Phase::Abandoning] {
        let mut s = state(phase.clone(), Some(MINE));
        let out = run(
            Knobs::GUID,
            &mut s,
            reply(delete_op(MINE), Ok(Response::Deleted)),
        );
        assert_eq!(out, nothing(), "{phase:?}");
        assert_eq!(s, state(Phase::Idle, None), "{phase:?}");
    }
}

#[test]
fn release_delete_nonode_or_sessionexpired_ends_idle() {
    for phase in [Phase::Releasing, Phase::Abandoning] {
        for code in [ErrorCode::NoNode, ErrorCode::SessionExpired] {
            let mut s = state(phase.clone(), Some(MINE));
            let out = run(Knobs::GUID, &mut s, reply(delete_op(MINE), Err(code)));
            assert_eq!(out, nothing(), "{phase:?} {code:?}");
            assert_eq!(s, state(Phase::Idle, None), "{phase:?} {code:?}");
        }
    }
}

#[test]
fn delete_reply_when_not_releasing_is_ignored() {
    let mut s = state(Phase::Held, Some(MINE));
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(delete_op(MINE), Ok(Response::Deleted)),
    );
    assert_eq!(out, nothing());
    assert_eq!(s, state(Phase::Held, Some(MINE)));
}

// ---------------------------------------------------------------------------
// The try-acquire and herd variants.
// ---------------------------------------------------------------------------

#[test]
fn try_acquire_gives_up_and_deletes_its_node_when_not_lowest() {
    let mut s = state(Phase::Listing, Some(MINE));
    let out = run(
        Knobs::TRY_ACQUIRE,
        &mut s,
        reply(list_op(false), children(&[PRED, MINE, LOWEST])),
    );
    assert_eq!(
        out,
        effects(vec![delete_op(MINE)], vec![Observation::GaveUp])
    );
    assert_eq!(s, state(Phase::Abandoning, Some(MINE)));

    // The delete ends it.
    let out = run(
        Knobs::TRY_ACQUIRE,
        &mut s,
        reply(delete_op(MINE), Ok(Response::Deleted)),
    );
    assert_eq!(out, nothing());
    assert_eq!(s, state(Phase::Idle, None));
}

#[test]
fn spin_deletes_its_node_when_not_lowest_and_creates_another_once_it_is_gone() {
    let mut s = state(Phase::Listing, Some(MINE));
    let out = run(
        Knobs::SPIN,
        &mut s,
        reply(list_op(false), children(&[PRED, MINE, LOWEST])),
    );
    // Refused, but the application's acquire goes on: nothing gave up.
    assert_eq!(out, effects(vec![delete_op(MINE)], vec![]));
    assert_eq!(s, state(Phase::Abandoning, Some(MINE)));

    // A lost delete reply is sent again, as for try_acquire.
    let out = run(Knobs::SPIN, &mut s, reply(delete_op(MINE), lost()));
    assert_eq!(out, effects(vec![delete_op(MINE)], vec![]));
    assert_eq!(s, state(Phase::Abandoning, Some(MINE)));

    // Once the node is gone, step 1 again at once.
    let out = run(
        Knobs::SPIN,
        &mut s,
        reply(delete_op(MINE), Ok(Response::Deleted)),
    );
    assert_eq!(out, effects(vec![create_op("c0-lock-")], vec![]));
    assert_eq!(s, state(Phase::Creating, None));
    assert!(Lock::new(Knobs::SPIN).is_busy(&s));
}

#[test]
fn herd_waits_for_children_changed_and_lists_again() {
    let mut s = state(Phase::Listing, Some(MINE));
    let out = run(
        Knobs::HERD,
        &mut s,
        reply(list_op(true), children(&[PRED, MINE, LOWEST])),
    );
    assert_eq!(out, nothing());
    assert_eq!(s, state(Phase::WaitingForChildren, Some(MINE)));

    // A deletion of a node it does not follow, or an event on another path:
    // nothing. (The lock node's children changing is all it waits for.)
    for input in [
        event(EventType::NodeDeleted, at(PRED)),
        event(EventType::NodeChildrenChanged, Path::new("/other")),
        event(EventType::NodeDataChanged, Path::new("/lock")),
    ] {
        let out = run(Knobs::HERD, &mut s, input.clone());
        assert_eq!(out, nothing(), "{input:?}");
        assert_eq!(s, state(Phase::WaitingForChildren, Some(MINE)), "{input:?}");
    }

    let out = run(
        Knobs::HERD,
        &mut s,
        event(EventType::NodeChildrenChanged, Path::new("/lock")),
    );
    assert_eq!(out, effects(vec![list_op(true)], vec![]));
    assert_eq!(s, state(Phase::Listing, Some(MINE)));

    let out = run(Knobs::HERD, &mut s, reply(list_op(true), children(&[MINE])));
    assert_eq!(
        out,
        effects(
            vec![],
            vec![Observation::Acquired {
                node: Arc::from(MINE),
                token: 3,
                role: Role::Lock
            }]
        )
    );
    assert_eq!(s, state(Phase::Held, Some(MINE)));
}

// ---------------------------------------------------------------------------
// What the world asks of the recipe.
// ---------------------------------------------------------------------------

#[test]
fn is_busy_and_is_waiting_per_phase() {
    let table = [
        // phase, busy, waiting
        (Phase::Idle, false, false),
        (Phase::Creating, true, true),
        (Phase::Recovering, true, true),
        (Phase::Listing, true, true),
        (watching(PRED), true, true),
        (Phase::WaitingForChildren, true, true),
        (Phase::Held, false, false),
        (Phase::Suspended, false, false),
        (Phase::Releasing, true, false),
        (Phase::Abandoning, true, false),
        (Phase::Dead, false, false),
    ];
    assert_eq!(table.len(), all_phases().len());
    for &(variant_name, variant) in Lock::VARIANTS {
        let lock = Lock::new(variant);
        for (phase, busy, waiting) in &table {
            let s = state(phase.clone(), Some(MINE));
            assert_eq!(lock.is_busy(&s), *busy, "{variant_name} {phase:?} busy");
            assert_eq!(
                lock.is_waiting(&s),
                *waiting,
                "{variant_name} {phase:?} waiting"
            );
        }
    }
}

#[test]
fn claims_only_its_own_live_node() {
    let lock = Lock::new(Knobs::GUID);
    for phase in all_phases() {
        let s = state(phase.clone(), Some(MINE));
        assert_eq!(lock.claims(&s, MINE), phase != Phase::Dead, "{phase:?}");
        assert!(!lock.claims(&s, PRED), "{phase:?}");
        assert!(!lock.claims(&s, "c0-lock-0000000004"), "{phase:?}");
    }
    assert!(!lock.claims(&idle(), MINE));
    assert!(!lock.claims(&state(Phase::Recovering, None), MINE));
}

#[test]
fn init_is_idle_without_a_node_and_the_directory_is_slash_lock() {
    let lock = Lock::new(Knobs::GUID);
    assert_eq!(lock.init(ME), idle());
    assert_eq!(lock.directory(), &Path::new("/lock"));
}

// ---------------------------------------------------------------------------
// Scripted interleavings through the whole world.
// ---------------------------------------------------------------------------

fn world(variant: Knobs, clients: usize, budget: FaultBudget) -> World<Lock> {
    World::new(
        Lock::new(variant),
        vec![vec![Command::Acquire, Command::Work, Command::Release]; clients],
        lock::properties,
    )
    .with_budget(budget)
}

fn sorted_children(state: &WorldState<State>) -> Vec<String> {
    actor::sorted_children(state, "/lock")
}

fn tenure(index: u8, token: i64) -> Option<Tenure> {
    Some(Tenure {
        index,
        token,
        // Until the counter wraps, the grant is the sequence number.
        grant: token as u64,
        role: Role::Lock,
    })
}

#[test]
fn world_lost_create_reply_with_guid_recovers_its_node_and_acquires() {
    let world = world(Knobs::GUID, 1, FaultBudget::of(Kind::LoseReply, 1));
    let init = world.init_states().remove(0);
    let state = walk(
        &world,
        init,
        &[
            // Step 1 is sent; the server applies it and the reply is lost.
            Action::Invoke(0),
            Action::Fault(Fault::new(Kind::LoseReply, 0)),
        ],
    );
    assert_eq!(sorted_children(&state), ["c0-lock-0000000000"]);
    assert_eq!(state.processes[0].recipe, state_of(Phase::Creating, None));

    // CONNECTIONLOSS for the create, then Disconnected: recovering, with the
    // listing queued until the reconnect.
    let state = act(&world, &state, Action::Deliver(0));
    assert_eq!(state.processes[0].recipe, state_of(Phase::Recovering, None));
    assert!(state.net.links[0].up.is_empty());
    assert_eq!(state.net.client(0).queued().count(), 1);

    let state = walk(
        &world,
        state,
        &[Action::Reconnect(0), Action::Serve(0), Action::Deliver(0)],
    );
    assert_eq!(
        state.processes[0].recipe,
        state_of(Phase::Held, Some("c0-lock-0000000000"))
    );
    assert_eq!(state.history.holding, vec![tenure(1, 0)]);
    assert_eq!(state.history.acquisitions, 1);
    // One node, ours, and no second create.
    assert_eq!(sorted_children(&state), ["c0-lock-0000000000"]);
    assert!(properties::orphans(&world, &state).is_empty());

    // Work, release: the node goes and the client is idle.
    let state = walk(
        &world,
        state,
        &[
            Action::Invoke(0),
            Action::Invoke(0),
            Action::Serve(0),
            Action::Deliver(0),
        ],
    );
    assert_eq!(state.processes[0].recipe, state_of(Phase::Idle, None));
    assert_eq!(state.history.holding, vec![None]);
    // The resource took the write of the holder granted token 0.
    assert_eq!(state.history.resource.newest, Some(0));
    assert!(sorted_children(&state).is_empty());
    assert!(world.is_quiescent(&state));
    assert!(properties::no_orphan_no_deadlock(&world, &state));
}

fn state_of(phase: Phase, node: Option<&str>) -> State {
    state(phase, node)
}

#[test]
fn world_lost_create_reply_without_guid_leaves_an_orphan_it_waits_behind() {
    let world = world(Knobs::NO_GUID, 1, FaultBudget::of(Kind::LoseReply, 1));
    let init = world.init_states().remove(0);
    let state = walk(
        &world,
        init,
        &[
            Action::Invoke(0),
            Action::Fault(Fault::new(Kind::LoseReply, 0)),
            // CONNECTIONLOSS: create again (queued), then Disconnected.
            Action::Deliver(0),
            Action::Reconnect(0),
        ],
    );
    assert_eq!(state.processes[0].recipe, state_of(Phase::Creating, None));
    let state = settle(&world, state);
    // Its second node waits behind its first, which nobody knows of.
    assert_eq!(
        sorted_children(&state),
        ["lock-0000000000", "lock-0000000001"]
    );
    assert_eq!(
        state.processes[0].recipe,
        state_of(watching("lock-0000000000"), Some("lock-0000000001"))
    );
    assert_eq!(state.history.holding, vec![None]);
    assert_eq!(state.history.acquisitions, 0);
    assert_eq!(properties::orphans(&world, &state), ["lock-0000000000"]);
    assert!(world.is_quiescent(&state));
    assert!(!properties::no_orphan_no_deadlock(&world, &state));
}

#[test]
fn world_waiter_is_woken_by_its_predecessors_release_and_acquires() {
    let world = world(Knobs::GUID, 2, FaultBudget::default());
    let init = world.init_states().remove(0);
    let state = walk(
        &world,
        init,
        &[
            Action::Invoke(0),
            Action::Serve(0),
            Action::Deliver(0),
            Action::Serve(0),
            Action::Deliver(0),
        ],
    );
    assert_eq!(state.history.holding, vec![tenure(1, 0), None]);

    let state = walk(
        &world,
        state,
        &[
            Action::Invoke(1),
            Action::Serve(1),
            Action::Deliver(1),
            Action::Serve(1),
            Action::Deliver(1),
            Action::Serve(1),
            Action::Deliver(1),
        ],
    );
    assert_eq!(
        state.processes[1].recipe,
        state_of(watching("c0-lock-0000000000"), Some("c1-lock-0000000001"))
    );
    assert!(!state.history.woken);

    // Client 0 works and releases: its delete wakes client 1, which lists
    // and acquires with the next token.
    let state = walk(
        &world,
        state,
        &[
            Action::Invoke(0),
            Action::Invoke(0),
            Action::Serve(0),
            Action::Deliver(0),
        ],
    );
    assert_eq!(state.processes[0].recipe, state_of(Phase::Idle, None));
    assert!(state.history.woken);
    assert!(!state.history.herd);
    let state = walk(
        &world,
        state,
        &[Action::Deliver(1), Action::Serve(1), Action::Deliver(1)],
    );
    assert_eq!(
        state.processes[1].recipe,
        state_of(Phase::Held, Some("c1-lock-0000000001"))
    );
    assert_eq!(state.history.holding, vec![None, tenure(2, 1)]);
    assert_eq!(sorted_children(&state), ["c1-lock-0000000001"]);
}

#[test]
fn world_holder_disconnected_suspends_then_checks_again_and_reacquires() {
    let world = world(Knobs::GUID, 1, FaultBudget::of(Kind::Disconnect, 1));
    let init = world.init_states().remove(0);
    let state = walk(
        &world,
        init,
        &[
            Action::Invoke(0),
            Action::Serve(0),
            Action::Deliver(0),
            Action::Serve(0),
            Action::Deliver(0),
            Action::Fault(Fault::new(Kind::Disconnect, 0).applied(0)),
            Action::Deliver(0),
        ],
    );
    assert_eq!(
        state.processes[0].recipe,
        state_of(Phase::Suspended, Some("c0-lock-0000000000"))
    );
    assert_eq!(state.history.holding, vec![None]);

    let state = walk(
        &world,
        state,
        &[Action::Reconnect(0), Action::Serve(0), Action::Deliver(0)],
    );
    assert_eq!(
        state.processes[0].recipe,
        state_of(Phase::Held, Some("c0-lock-0000000000"))
    );
    assert_eq!(state.history.holding, vec![tenure(2, 0)]);
    assert_eq!(state.processes[0].status, Status::Running);
}

// REGRESSION: see `herd_create_connection_loss_recovers_with_a_listing_that_watches`.
// A herd waiter whose create reply was lost must still be woken by the
// holder's release (scenarios/lock/herd_lose_reply.toml checks every run).
#[test]
fn herd_recovered_waiter_is_woken_when_the_holder_releases() {
    let world = world(Knobs::HERD, 2, FaultBudget::of(Kind::LoseReply, 1));
    let init = world.init_states().remove(0);
    // Client 0 holds.
    let state = walk(
        &world,
        init,
        &[
            Action::Invoke(0),
            Action::Serve(0),
            Action::Deliver(0),
            Action::Serve(0),
            Action::Deliver(0),
        ],
    );
    assert_eq!(state.history.holding, vec![tenure(1, 0), None]);
    // Client 1's create reply is lost; it recovers its node and waits.
    let state = walk(
        &world,
        state,
        &[
            Action::Invoke(1),
            Action::Fault(Fault::new(Kind::LoseReply, 1)),
            Action::Deliver(1),
            Action::Reconnect(1),
            Action::Serve(1),
            Action::Deliver(1),
        ],
    );
    assert_eq!(
        state.processes[1].recipe,
        state_of(Phase::WaitingForChildren, Some("c1-lock-0000000001"))
    );
    // Client 0 works and releases; everything in flight settles.
    let state = walk(&world, state, &[Action::Invoke(0), Action::Invoke(0)]);
    let state = settle(&world, state);
    assert_eq!(state.processes[0].recipe, state_of(Phase::Idle, None));
    assert_eq!(sorted_children(&state), ["c1-lock-0000000001"]);
    // Client 1 was woken and holds the lock.
    assert_eq!(
        state.processes[1].recipe,
        state_of(Phase::Held, Some("c1-lock-0000000001"))
    );
    assert_eq!(state.history.holding, vec![None, tenure(2, 1)]);
}

/// The faults enabled in `state`, in the checker's order.
fn faults_enabled(world: &World<Lock>, state: &WorldState<State>) -> Vec<Fault> {
    let mut actions = Vec::new();
    world.enabled(state, &mut actions);
    actions
        .into_iter()
        .filter_map(|action| match action {
            Action::Fault(fault) => Some(fault),
            _ => None,
        })
        .collect()
}

#[test]
fn world_an_aimed_fault_strikes_only_its_target_and_spends_its_own_budget() {
    use zoocheck::faults::{Charge, Target};
    // A pause aimed at the holder, one at c1, and one at any client.
    let holder = Target::Role {
        index: 1,
        name: "holder",
    };
    assert_eq!(World::<Lock>::parts()[1].0, "holder");
    let budget = FaultBudget::of(Kind::Pause, 1)
        .aim(Kind::Pause, holder, 1)
        .aim(Kind::Pause, Target::Client(1), 1);
    let world = world(Knobs::GUID, 2, budget);
    let paused = |client, charge| Fault {
        charge,
        ..Fault::new(Kind::Pause, client)
    };
    // Nobody holds yet: the aimed-at-the-holder pause cannot strike.
    let init = world.init_states().remove(0);
    assert_eq!(
        faults_enabled(&world, &init),
        [
            paused(0, Charge::Any),
            paused(1, Charge::Any),
            paused(1, Charge::Aimed(1)),
        ]
    );
    // c0 holds: it is the holder's target now, and only it.
    let held = walk(
        &world,
        init,
        &[
            Action::Invoke(0),
            Action::Serve(0),
            Action::Deliver(0),
            Action::Serve(0),
            Action::Deliver(0),
        ],
    );
    assert!(held.processes[0].recipe.holds());
    assert_eq!(
        faults_enabled(&world, &held),
        [
            paused(0, Charge::Any),
            paused(0, Charge::Aimed(0)),
            paused(1, Charge::Any),
            paused(1, Charge::Aimed(1)),
        ]
    );
    // Pausing the holder spends the aimed budget, not the one at any client.
    let after = walk(&world, held, &[Action::Fault(paused(0, Charge::Aimed(0)))]);
    assert_eq!(after.spent.aimed, [1, 0, 0, 0]);
    assert_eq!(after.spent.any, [0; zoocheck::faults::KINDS]);
    assert_eq!(after.processes[0].status, Status::Paused);
    assert_eq!(
        faults_enabled(&world, &after),
        [paused(1, Charge::Any), paused(1, Charge::Aimed(1))]
    );
}

// ------------------------------------------------------------- cancel

#[test]
fn cancel_while_waiting_with_a_node_deletes_it() {
    for phase in [Phase::Listing, watching(PRED)] {
        let mut s = state(phase.clone(), Some(MINE));
        let out = run(Knobs::GUID, &mut s, command(Command::Cancel));
        assert_eq!(
            out,
            effects(vec![delete_op(MINE)], vec![Observation::GaveUp]),
            "{phase:?}"
        );
        assert_eq!(s, state(Phase::Abandoning, Some(MINE)), "{phase:?}");
    }
}

#[test]
fn cancel_with_the_create_in_flight_deletes_the_node_its_reply_names() {
    let mut s = state(Phase::Creating, None);
    let out = run(Knobs::GUID, &mut s, command(Command::Cancel));
    assert_eq!(out, effects(vec![], vec![Observation::GaveUp]));
    assert_eq!(s, cancelled(Phase::Creating));
    // Still busy: the application waits for the cancel to finish.
    assert!(Lock::new(Knobs::GUID).is_busy(&s));
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(create_op("c0-lock-"), created(MINE)),
    );
    assert_eq!(out, effects(vec![delete_op(MINE)], vec![]));
    assert_eq!(s, state(Phase::Abandoning, Some(MINE)));
    // A second cancel changes nothing.
    let mut again = cancelled(Phase::Creating);
    assert_eq!(
        run(Knobs::GUID, &mut again, command(Command::Cancel)),
        nothing()
    );
}

#[test]
fn cancel_with_a_lost_create_reply_recovers_the_node_by_its_guid_and_deletes_it() {
    let mut s = cancelled(Phase::Creating);
    let out = run(Knobs::GUID, &mut s, reply(create_op("c0-lock-"), lost()));
    assert_eq!(out, effects(vec![list_op(false)], vec![]));
    assert_eq!(s, cancelled(Phase::Recovering));
    // The lost create was applied: its node is deleted.
    let mut found = s.clone();
    let out = run(
        Knobs::GUID,
        &mut found,
        reply(list_op(false), children(&[PRED, MINE])),
    );
    assert_eq!(out, effects(vec![delete_op(MINE)], vec![]));
    assert_eq!(found, state(Phase::Abandoning, Some(MINE)));
    // It was not: the attempt is over.
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(list_op(false), children(&[PRED])),
    );
    assert_eq!(out, nothing());
    assert_eq!(s, idle());
    // Without a GUID the node cannot be found: given up on.
    let mut plain = cancelled(Phase::Creating);
    let out = run(
        Knobs::NO_GUID,
        &mut plain,
        reply(create_op("lock-"), lost()),
    );
    assert_eq!(out, nothing());
    assert_eq!(plain, idle());
}

#[test]
fn careless_cancel_forgets_its_node() {
    let mut s = state(watching(PRED), Some(MINE));
    let out = run(Knobs::CARELESS_CANCEL, &mut s, command(Command::Cancel));
    assert_eq!(out, effects(vec![], vec![Observation::GaveUp]));
    assert_eq!(s, idle());
    // Its create's reply, arriving later, finds it idle: ignored.
    let mut creating = state(Phase::Creating, None);
    run(
        Knobs::CARELESS_CANCEL,
        &mut creating,
        command(Command::Cancel),
    );
    let out = run(
        Knobs::CARELESS_CANCEL,
        &mut creating,
        reply(create_op("c0-lock-"), created(MINE)),
    );
    assert_eq!(out, nothing());
    assert_eq!(creating, idle());
}

#[test]
fn cancel_after_the_call_returned_does_nothing() {
    for phase in [Phase::Idle, Phase::Held, Phase::Releasing, Phase::Dead] {
        let node = (phase != Phase::Idle && phase != Phase::Dead).then_some(MINE);
        let mut s = state(phase.clone(), node);
        assert_eq!(
            run(Knobs::GUID, &mut s, command(Command::Cancel)),
            nothing(),
            "{phase:?}"
        );
        assert_eq!(s, state(phase.clone(), node), "{phase:?}");
    }
}

#[test]
fn world_a_timed_acquire_may_time_out_only_while_it_is_pending() {
    let world = World {
        timed: vec![0, 0b1],
        ..world(Knobs::GUID, 2, FaultBudget::default())
    };
    let timeouts = |state: &WorldState<State>| {
        let mut actions = Vec::new();
        world.enabled(state, &mut actions);
        actions
            .into_iter()
            .filter(|a| matches!(a, Action::Timeout(_)))
            .collect::<Vec<_>>()
    };
    let init = world.init_states().remove(0);
    assert!(timeouts(&init).is_empty());
    // c0 holds; c1's timed acquire waits: its timeout may fire.
    let state = walk(
        &world,
        init,
        &[
            Action::Invoke(0),
            Action::Serve(0),
            Action::Deliver(0),
            Action::Serve(0),
            Action::Deliver(0),
            Action::Invoke(1),
        ],
    );
    assert!(state.processes[1].timer);
    assert_eq!(timeouts(&state), [Action::Timeout(1)]);
    let fired = walk(&world, state.clone(), &[Action::Timeout(1)]);
    assert_eq!(fired.processes[1].recipe, cancelled(Phase::Creating));
    assert!(!fired.processes[1].timer);
    assert!(timeouts(&fired).is_empty());
    // Had it acquired first, the timer would be gone with the call.
    let state = walk(
        &world,
        state,
        &[
            Action::Invoke(0),
            Action::Invoke(0),
            Action::Serve(0),
            Action::Deliver(0),
            Action::Serve(1),
            Action::Deliver(1),
            Action::Serve(1),
            Action::Deliver(1),
        ],
    );
    assert!(state.processes[1].recipe.holds());
    assert!(!state.processes[1].timer);
    assert!(timeouts(&state).is_empty());
}

#[test]
fn world_a_library_that_gives_up_its_session_renews_it_and_the_server_times_the_old_one_out() {
    let world = world(
        Knobs::GUID,
        1,
        FaultBudget::of(Kind::Disconnect, 1).with(Kind::Abandon, 1),
    )
    .with_library(Library::CURATOR5);
    let abandons = |state: &WorldState<State>| {
        (faults_enabled(&world, state).into_iter())
            .filter(|fault| fault.kind == Kind::Abandon)
            .count()
    };
    // c0 holds, then its connection drops: only a library that knows it is
    // cut off may give its session up.
    let init = world.init_states().remove(0);
    let held = actor::settle(&world, walk(&world, init, &[Action::Invoke(0)]));
    assert_eq!(
        held.processes[0].recipe,
        state(Phase::Held, Some("c0-lock-0000000000"))
    );
    assert_eq!(abandons(&held), 0);
    let cut = walk(
        &world,
        held,
        &[
            Action::Fault(Fault::new(Kind::Disconnect, 0)),
            Action::Deliver(0),
        ],
    );
    assert_eq!(abandons(&cut), 1);
    let old = cut.net.session(0);
    let gone = walk(&world, cut, &[Action::Fault(Fault::new(Kind::Abandon, 0))]);
    // The recipe heard Expired: it knows it lost the lock. The server still
    // has the session and the node, until it times the session out.
    assert_eq!(gone.processes[0].recipe, state(Phase::Dead, None));
    assert_eq!(gone.history.holding[0], None);
    assert!(gone.net.store.is_alive(old));
    assert!(!gone.is_live(0));
    assert_eq!(sorted_children(&gone), ["c0-lock-0000000000"]);
    let mut actions = Vec::new();
    world.enabled(&gone, &mut actions);
    assert!(actions.contains(&Action::Renew(0)), "{actions:?}");
    assert!(
        actions.contains(&Action::SessionTimeout(old)),
        "{actions:?}"
    );
    // The application's next command waits for the new session.
    assert!(!actions.contains(&Action::Invoke(0)), "{actions:?}");
    // Without renewal the process is done with ZooKeeper.
    let stops = world.clone().with_library(Library {
        on_expiry: OnExpiry::Stop,
        ..Library::CURATOR5
    });
    let mut actions = Vec::new();
    stops.enabled(&gone, &mut actions);
    assert!(!actions.contains(&Action::Renew(0)), "{actions:?}");
    assert!(actions.contains(&Action::Invoke(0)), "{actions:?}");
    // Renewed: a new session, SyncConnected, and a GUID of its own.
    let renewed = walk(&world, gone, &[Action::Renew(0)]);
    let mut actions = Vec::new();
    world.enabled(&renewed, &mut actions);
    assert!(actions.contains(&Action::Invoke(0)), "{actions:?}");
    assert_ne!(renewed.net.session(0), old);
    assert!(renewed.is_live(0));
    assert_eq!(
        renewed.processes[0].recipe,
        State {
            renewals: 1,
            ..state(Phase::Idle, None)
        }
    );
    let timed_out = walk(&world, renewed, &[Action::SessionTimeout(old)]);
    assert!(!timed_out.net.store.is_alive(old));
    assert!(sorted_children(&timed_out).is_empty());
}
