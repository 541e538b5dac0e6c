//! The election recipe's actor (`models/election.rs`), one test per branch of
//! `Election::handle` (and of `Election::on_ack_reply`), named after the
//! branch it reaches: each drives the actor directly with a hand-built input
//! and asserts the exact effects (requests sent, observations) and the
//! resulting state (the contender's phase and node, and the acknowledgement).
//!
//! Then a few scripted interleavings through the whole world
//! (`zoocheck::world::World`), each walking one specific run action by action
//! and reading the election's properties on the states it reaches.

use std::sync::Arc;

use stateright::Model;

mod actor;
use actor::*;

use zoocheck::catalogued::Catalogued;
use zoocheck::client::SessionEvent;
use zoocheck::faults::{Fault, FaultBudget, Kind};
use zoocheck::models::contender;
use zoocheck::models::election::{
    self, acknowledged_leader_is_smallest, leader_acknowledged, leader_exists, Ack, Command,
    Election, Knobs, Phase, State, ACK,
};
use zoocheck::recipe::{Effects, Incarnation, Input, Observation, Recipe, Role};
use zoocheck::store::{data, CreateMode, ErrorCode, EventType, Op, OpResult, Path, Response, Stat};
use zoocheck::world::{Action, Tenure, World, WorldState};

// ---------------------------------------------------------------------------
// Helpers.
// ---------------------------------------------------------------------------

/// Client 0's first process: GUID `c0`.
const ME: Incarnation = Incarnation {
    client: 0,
    restarts: 0,
};

/// Our node, as the server would name the fourth child of `/election`.
const MINE: &str = "c0-n_0000000003";
/// The next node down: another client's.
const PRED: &str = "c1-n_0000000001";
/// The smallest node: a third client's.
const LOWEST: &str = "c2-n_0000000000";
/// A node above ours.
const HIGHER: &str = "c3-n_0000000004";

const ALL_VARIANTS: [Knobs; 5] = [
    Knobs::GUID,
    Knobs::WATCH_SMALLEST,
    Knobs::WATCH_ALL,
    Knobs::CARELESS_RESIGN,
    Knobs::CARELESS_CLOSE,
];

fn st(phase: Phase, node: Option<&str>, ack: Ack) -> State {
    State {
        contender: contender::State {
            phase,
            node: node.map(Arc::from),
            ..contender::State::new(Role::Leader)
        },
        ack,
    }
}

fn idle() -> State {
    st(Phase::Idle, None, Ack::None)
}

/// Leading with our node, the acknowledgement where `ack` says.
fn leading(ack: Ack) -> State {
    st(Phase::Held, Some(MINE), ack)
}

fn watching(name: &str) -> Phase {
    Phase::Watching(Arc::from(name))
}

/// Every phase of the contender, once each.
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

/// Every acknowledgement state, once each.
fn all_acks() -> Vec<Ack> {
    vec![
        Ack::None,
        Ack::Creating,
        Ack::Checking,
        Ack::Waiting,
        Ack::Done,
        Ack::Deleting,
    ]
}

/// Hands `input` to an election of `variant` as client 0's first process.
fn run(variant: Knobs, state: &mut State, input: Input<Command>) -> Effects {
    run_as(variant, ME, state, input)
}

fn run_as(variant: Knobs, me: Incarnation, state: &mut State, input: Input<Command>) -> Effects {
    let mut out = Effects::default();
    Election::new(variant).handle(me, state, input, &mut out);
    out
}

fn at(name: &str) -> Path {
    Path::new(&format!("/election/{name}"))
}

fn ack_path() -> Path {
    Path::new(ACK)
}

fn create_op(prefix: &str) -> Op {
    actor::create_op(at(prefix), CreateMode::EphemeralSequential)
}

fn list_op() -> Op {
    actor::list_op("/election", false)
}

fn exists_op(name: &str) -> Op {
    actor::exists_op(at(name))
}

fn delete_op(name: &str) -> Op {
    actor::delete_op(at(name))
}

/// The acknowledgement's create, holding `node`'s name.
fn ack_create(node: &str) -> Op {
    Op::Create {
        path: ack_path(),
        data: data(node.as_bytes()),
        mode: CreateMode::Ephemeral,
    }
}

fn ack_get_data() -> Op {
    Op::GetData {
        path: ack_path(),
        watch: true,
    }
}

fn ack_delete() -> Op {
    actor::delete_op(ack_path())
}

/// A getData answer holding `node`'s name.
fn data_of(node: &str) -> OpResult {
    Ok(Response::Data {
        data: data(node.as_bytes()),
        stat: Stat::default(),
    })
}

fn acquired(token: i64) -> Observation {
    Observation::Acquired {
        node: Arc::from(MINE),
        token,
        role: Role::Leader,
    }
}

// ---------------------------------------------------------------------------
// Volunteer: step 1, and the decision on the children.
// ---------------------------------------------------------------------------

#[test]
fn volunteer_from_idle_creates_an_ephemeral_sequential_node_with_the_guid_prefix() {
    for variant in ALL_VARIANTS {
        let mut s = idle();
        let out = run(variant, &mut s, command(Command::Volunteer));
        assert_eq!(
            out,
            effects(vec![create_op("c0-n_")], vec![]),
            "{variant:?}"
        );
        assert_eq!(s, st(Phase::Creating, None, Ack::None), "{variant:?}");
    }
    // A restarted process has a GUID of its own.
    let mut s = idle();
    let restarted = Incarnation {
        client: 1,
        restarts: 2,
    };
    let out = run_as(Knobs::GUID, restarted, &mut s, command(Command::Volunteer));
    assert_eq!(out, effects(vec![create_op("c1r2-n_")], vec![]));
    assert_eq!(s, st(Phase::Creating, None, Ack::None));
}

#[test]
fn volunteer_while_not_idle_does_nothing() {
    for phase in all_phases() {
        if phase == Phase::Idle {
            continue;
        }
        let mut s = st(phase.clone(), Some(MINE), Ack::None);
        let out = run(Knobs::GUID, &mut s, command(Command::Volunteer));
        assert_eq!(out, nothing(), "{phase:?}");
        assert_eq!(s, st(phase.clone(), Some(MINE), Ack::None), "{phase:?}");
    }
}

#[test]
fn created_node_is_remembered_and_children_are_listed_without_watch() {
    for variant in ALL_VARIANTS {
        let mut s = st(Phase::Creating, None, Ack::None);
        let out = run(
            variant,
            &mut s,
            reply(create_op("c0-n_"), created(at(MINE))),
        );
        assert_eq!(out, effects(vec![list_op()], vec![]), "{variant:?}");
        assert_eq!(s, st(Phase::Listing, Some(MINE), Ack::None), "{variant:?}");
    }
}

#[test]
fn smallest_node_leads_and_observes_acquired_with_its_sequence_as_token() {
    // Unsorted, with a child that is not an election node.
    for variant in ALL_VARIANTS {
        let mut s = st(Phase::Listing, Some(MINE), Ack::None);
        let out = run(
            variant,
            &mut s,
            reply(list_op(), children(&[HIGHER, "readme", MINE])),
        );
        assert_eq!(out, effects(vec![], vec![acquired(3)]), "{variant:?}");
        assert_eq!(s, leading(Ack::None), "{variant:?}");
    }
}

#[test]
fn guid_non_smallest_watches_the_largest_smaller_node() {
    for variant in [Knobs::GUID, Knobs::CARELESS_RESIGN] {
        let mut s = st(Phase::Listing, Some(MINE), Ack::None);
        let out = run(
            variant,
            &mut s,
            reply(list_op(), children(&[HIGHER, MINE, LOWEST, PRED])),
        );
        assert_eq!(out, effects(vec![exists_op(PRED)], vec![]), "{variant:?}");
        assert_eq!(s, st(watching(PRED), Some(MINE), Ack::None), "{variant:?}");
    }
}

#[test]
fn watch_smallest_and_watch_all_non_smallest_watch_the_smallest_node() {
    for variant in [Knobs::WATCH_SMALLEST, Knobs::WATCH_ALL] {
        let mut s = st(Phase::Listing, Some(MINE), Ack::None);
        let out = run(
            variant,
            &mut s,
            reply(list_op(), children(&[HIGHER, MINE, LOWEST, PRED])),
        );
        assert_eq!(out, effects(vec![exists_op(LOWEST)], vec![]), "{variant:?}");
        assert_eq!(
            s,
            st(watching(LOWEST), Some(MINE), Ack::None),
            "{variant:?}"
        );
    }
}

#[test]
fn watched_node_deleted_lists_again() {
    for variant in ALL_VARIANTS {
        let mut s = st(watching(PRED), Some(MINE), Ack::None);
        let out = run(variant, &mut s, event(EventType::NodeDeleted, at(PRED)));
        assert_eq!(out, effects(vec![list_op()], vec![]), "{variant:?}");
        assert_eq!(s, st(Phase::Listing, Some(MINE), Ack::None), "{variant:?}");
    }
}

// ---------------------------------------------------------------------------
// Acknowledge.
// ---------------------------------------------------------------------------

#[test]
fn acknowledge_when_leading_creates_the_ephemeral_ack_holding_our_node_name() {
    for variant in ALL_VARIANTS {
        let mut s = leading(Ack::None);
        let out = run(variant, &mut s, command(Command::Acknowledge));
        assert_eq!(out, effects(vec![ack_create(MINE)], vec![]), "{variant:?}");
        assert_eq!(s, leading(Ack::Creating), "{variant:?}");
    }
    // Exactly: `/leader`, ephemeral (not sequential), the name's bytes.
    assert_eq!(
        ack_create(MINE),
        Op::Create {
            path: Path::new("/leader"),
            data: Some(Arc::from(&b"c0-n_0000000003"[..])),
            mode: CreateMode::Ephemeral,
        }
    );
}

#[test]
fn acknowledge_when_not_leading_does_nothing() {
    for phase in all_phases() {
        if phase == Phase::Held {
            continue;
        }
        for node in [Some(MINE), None] {
            let mut s = st(phase.clone(), node, Ack::None);
            let out = run(Knobs::GUID, &mut s, command(Command::Acknowledge));
            assert_eq!(out, nothing(), "{phase:?} {node:?}");
            assert_eq!(s, st(phase.clone(), node, Ack::None), "{phase:?}");
        }
    }
}

#[test]
fn acknowledge_when_already_acknowledging_does_nothing() {
    for ack in all_acks() {
        if ack == Ack::None {
            continue;
        }
        let mut s = leading(ack.clone());
        let out = run(Knobs::GUID, &mut s, command(Command::Acknowledge));
        assert_eq!(out, nothing(), "{ack:?}");
        assert_eq!(s, leading(ack.clone()), "{ack:?}");
    }
}

// ---------------------------------------------------------------------------
// The acknowledgement's replies (`Election::on_ack_reply`).
// ---------------------------------------------------------------------------

#[test]
fn ack_create_ok_is_done() {
    for variant in ALL_VARIANTS {
        let mut s = leading(Ack::Creating);
        let out = run(
            variant,
            &mut s,
            reply(ack_create(MINE), created(ack_path())),
        );
        assert_eq!(out, nothing(), "{variant:?}");
        assert_eq!(s, leading(Ack::Done), "{variant:?}");
    }
}

#[test]
fn ack_create_connection_loss_sends_the_same_create_again() {
    let mut s = leading(Ack::Creating);
    let out = run(Knobs::GUID, &mut s, reply(ack_create(MINE), lost()));
    assert_eq!(out, effects(vec![ack_create(MINE)], vec![]));
    assert_eq!(s, leading(Ack::Creating));
    // Also while suspended (the Disconnected follows the CONNECTIONLOSS).
    let mut s = st(Phase::Suspended, Some(MINE), Ack::Creating);
    let out = run(Knobs::GUID, &mut s, reply(ack_create(MINE), lost()));
    assert_eq!(out, effects(vec![ack_create(MINE)], vec![]));
    assert_eq!(s, st(Phase::Suspended, Some(MINE), Ack::Creating));
}

#[test]
fn ack_get_data_connection_loss_sends_the_same_get_data_again() {
    let mut s = leading(Ack::Checking);
    let out = run(Knobs::GUID, &mut s, reply(ack_get_data(), lost()));
    assert_eq!(out, effects(vec![ack_get_data()], vec![]));
    assert_eq!(s, leading(Ack::Checking));
}

#[test]
fn ack_delete_connection_loss_sends_the_same_delete_again() {
    let mut s = st(Phase::Releasing, Some(MINE), Ack::Deleting);
    let out = run(Knobs::GUID, &mut s, reply(ack_delete(), lost()));
    assert_eq!(out, effects(vec![ack_delete()], vec![]));
    assert_eq!(s, st(Phase::Releasing, Some(MINE), Ack::Deleting));
}

#[test]
fn ack_create_node_exists_checks_whose_it_is_with_a_watched_get_data() {
    for variant in ALL_VARIANTS {
        let mut s = leading(Ack::Creating);
        let out = run(
            variant,
            &mut s,
            reply(ack_create(MINE), Err(ErrorCode::NodeExists)),
        );
        assert_eq!(out, effects(vec![ack_get_data()], vec![]), "{variant:?}");
        assert_eq!(s, leading(Ack::Checking), "{variant:?}");
    }
}

#[test]
fn ack_get_data_with_our_node_name_is_done() {
    let mut s = leading(Ack::Checking);
    let out = run(Knobs::GUID, &mut s, reply(ack_get_data(), data_of(MINE)));
    assert_eq!(out, nothing());
    assert_eq!(s, leading(Ack::Done));
}

#[test]
fn ack_get_data_with_another_name_waits() {
    // Another leader's (an earlier one's) acknowledgement, and a name that
    // merely starts like ours.
    for other in [LOWEST, PRED, "c0-n_00000000030", "c0-n_000000000"] {
        let mut s = leading(Ack::Checking);
        let out = run(Knobs::GUID, &mut s, reply(ack_get_data(), data_of(other)));
        assert_eq!(out, nothing(), "{other}");
        assert_eq!(s, leading(Ack::Waiting), "{other}");
    }
    // No data at all is not ours either.
    let mut s = leading(Ack::Checking);
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(
            ack_get_data(),
            Ok(Response::Data {
                data: None,
                stat: Stat::default(),
            }),
        ),
    );
    assert_eq!(out, nothing());
    assert_eq!(s, leading(Ack::Waiting));
}

#[test]
fn ack_get_data_no_node_creates_again() {
    let mut s = leading(Ack::Checking);
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(ack_get_data(), Err(ErrorCode::NoNode)),
    );
    assert_eq!(out, effects(vec![ack_create(MINE)], vec![]));
    assert_eq!(s, leading(Ack::Creating));
}

#[test]
fn ack_deleted_while_waiting_and_leading_creates_again() {
    for variant in ALL_VARIANTS {
        let mut s = leading(Ack::Waiting);
        let out = run(variant, &mut s, event(EventType::NodeDeleted, ack_path()));
        assert_eq!(out, effects(vec![ack_create(MINE)], vec![]), "{variant:?}");
        assert_eq!(s, leading(Ack::Creating), "{variant:?}");
    }
}

#[test]
fn ack_deleted_while_waiting_and_not_leading_gives_up_the_ack() {
    for phase in [Phase::Suspended, Phase::Listing] {
        let mut s = st(phase.clone(), Some(MINE), Ack::Waiting);
        let out = run(
            Knobs::GUID,
            &mut s,
            event(EventType::NodeDeleted, ack_path()),
        );
        assert_eq!(out, nothing(), "{phase:?}");
        assert_eq!(s, st(phase.clone(), Some(MINE), Ack::None), "{phase:?}");
    }
}

#[test]
fn other_ack_events_are_ignored() {
    // Any other kind while waiting.
    for kind in [
        EventType::NodeCreated,
        EventType::NodeDataChanged,
        EventType::NodeChildrenChanged,
    ] {
        let mut s = leading(Ack::Waiting);
        let out = run(Knobs::GUID, &mut s, event(kind, ack_path()));
        assert_eq!(out, nothing(), "{kind:?}");
        assert_eq!(s, leading(Ack::Waiting), "{kind:?}");
    }
    // A deletion while not waiting (our own delete's, or our ack going).
    for ack in all_acks() {
        if ack == Ack::Waiting {
            continue;
        }
        let mut s = leading(ack.clone());
        let out = run(
            Knobs::GUID,
            &mut s,
            event(EventType::NodeDeleted, ack_path()),
        );
        assert_eq!(out, nothing(), "{ack:?}");
        assert_eq!(s, leading(ack.clone()), "{ack:?}");
    }
    // An ack event never reaches the contender: watching a node named
    // `leader` in the directory is not watching `/leader`.
    let mut s = st(watching("leader"), Some(MINE), Ack::None);
    let out = run(
        Knobs::GUID,
        &mut s,
        event(EventType::NodeDeleted, ack_path()),
    );
    assert_eq!(out, nothing());
    assert_eq!(s, st(watching("leader"), Some(MINE), Ack::None));
}

#[test]
fn other_ack_replies_drop_a_pending_ack_and_keep_a_done_one() {
    // SESSIONEXPIRED on a create or a read in progress: not ours to pursue.
    for (ack, op) in [
        (Ack::Creating, ack_create(MINE)),
        (Ack::Checking, ack_get_data()),
    ] {
        let mut s = leading(ack.clone());
        let out = run(
            Knobs::GUID,
            &mut s,
            reply(op, Err(ErrorCode::SessionExpired)),
        );
        assert_eq!(out, nothing(), "{ack:?}");
        assert_eq!(s, leading(Ack::None), "{ack:?}");
    }
    // A stray reply while done leaves it done.
    let mut s = leading(Ack::Done);
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(ack_create(MINE), Err(ErrorCode::SessionExpired)),
    );
    assert_eq!(out, nothing());
    assert_eq!(s, leading(Ack::Done));
}

#[test]
fn ack_replies_never_reach_the_contender() {
    // Creating its node: the ack's create reply is not its node's.
    let mut s = st(Phase::Creating, None, Ack::None);
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(ack_create(MINE), created(ack_path())),
    );
    assert_eq!(out, nothing());
    assert_eq!(s, st(Phase::Creating, None, Ack::None));
}

// ---------------------------------------------------------------------------
// Resign.
// ---------------------------------------------------------------------------

#[test]
fn resign_after_acknowledging_deletes_the_ack_then_the_node() {
    for variant in [Knobs::GUID, Knobs::WATCH_SMALLEST, Knobs::WATCH_ALL] {
        let mut s = leading(Ack::Done);
        let out = run(variant, &mut s, command(Command::Resign));
        assert_eq!(
            out,
            effects(
                vec![ack_delete(), delete_op(MINE)],
                vec![Observation::Released]
            ),
            "{variant:?}"
        );
        assert_eq!(
            s,
            st(Phase::Releasing, Some(MINE), Ack::Deleting),
            "{variant:?}"
        );
    }
}

#[test]
fn careless_resign_deletes_the_node_then_the_ack() {
    let mut s = leading(Ack::Done);
    let out = run(Knobs::CARELESS_RESIGN, &mut s, command(Command::Resign));
    assert_eq!(
        out,
        effects(
            vec![delete_op(MINE), ack_delete()],
            vec![Observation::Released]
        )
    );
    assert_eq!(s, st(Phase::Releasing, Some(MINE), Ack::Deleting));
}

#[test]
fn resign_without_an_ack_deletes_only_the_node() {
    for variant in ALL_VARIANTS {
        let mut s = leading(Ack::None);
        let out = run(variant, &mut s, command(Command::Resign));
        assert_eq!(
            out,
            effects(vec![delete_op(MINE)], vec![Observation::Released]),
            "{variant:?}"
        );
        assert_eq!(
            s,
            st(Phase::Releasing, Some(MINE), Ack::None),
            "{variant:?}"
        );
    }
}

#[test]
fn resign_while_suspended_with_an_ack_deletes_both_without_observing() {
    let mut s = st(Phase::Suspended, Some(MINE), Ack::Done);
    let out = run(Knobs::GUID, &mut s, command(Command::Resign));
    assert_eq!(out, effects(vec![ack_delete(), delete_op(MINE)], vec![]));
    assert_eq!(s, st(Phase::Releasing, Some(MINE), Ack::Deleting));
}

#[test]
fn resign_when_not_leading_does_nothing() {
    for phase in all_phases() {
        if matches!(phase, Phase::Held | Phase::Suspended) {
            continue;
        }
        let mut s = st(phase.clone(), Some(MINE), Ack::None);
        let out = run(Knobs::GUID, &mut s, command(Command::Resign));
        assert_eq!(out, nothing(), "{phase:?}");
        assert_eq!(s, st(phase.clone(), Some(MINE), Ack::None), "{phase:?}");
    }
}

// ---------------------------------------------------------------------------
// Close: Curator's LeaderLatch.close(), while volunteering or leading.
// ---------------------------------------------------------------------------

#[test]
fn close_interrupts_a_pending_volunteer_but_not_an_acknowledgement() {
    let election = Election::new(Knobs::GUID);
    for phase in all_phases() {
        let s = st(phase.clone(), Some(MINE), Ack::None);
        let volunteering = !matches!(
            phase,
            Phase::Idle | Phase::Held | Phase::Suspended | Phase::Dead
        );
        assert_eq!(
            election.interrupts(&s, &Command::Close),
            volunteering,
            "{phase:?}"
        );
        assert!(!election.interrupts(&s, &Command::Resign), "{phase:?}");
    }
    for ack in [Ack::Creating, Ack::Checking, Ack::Waiting, Ack::Deleting] {
        let s = leading(ack.clone());
        assert!(election.is_busy(&s), "{ack:?}");
        assert!(!election.interrupts(&s, &Command::Close), "{ack:?}");
    }
}

#[test]
fn close_while_the_create_is_in_flight_deletes_the_node_its_reply_names() {
    for phase in [Phase::Creating, Phase::Recovering] {
        let mut s = st(phase.clone(), None, Ack::None);
        let out = run(Knobs::GUID, &mut s, command(Command::Close));
        assert_eq!(out, effects(vec![], vec![Observation::GaveUp]), "{phase:?}");
        assert!(s.contender.cancelled, "{phase:?}");
    }
    let mut s = st(Phase::Creating, None, Ack::None);
    run(Knobs::GUID, &mut s, command(Command::Close));
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(create_op("c0-n_"), created(at(MINE))),
    );
    assert_eq!(out, effects(vec![delete_op(MINE)], vec![]));
    assert_eq!(s, st(Phase::Abandoning, Some(MINE), Ack::None));
}

#[test]
fn careless_close_while_the_create_is_in_flight_forgets_the_node_to_come() {
    for phase in [Phase::Creating, Phase::Recovering] {
        let mut s = st(phase.clone(), None, Ack::None);
        let out = run(Knobs::CARELESS_CLOSE, &mut s, command(Command::Close));
        assert_eq!(out, effects(vec![], vec![Observation::GaveUp]), "{phase:?}");
        assert_eq!(s, idle(), "{phase:?}");
        // The reply that names the node finds nobody who wants it.
        let out = run(
            Knobs::CARELESS_CLOSE,
            &mut s,
            reply(create_op("c0-n_"), created(at(MINE))),
        );
        assert_eq!(out, nothing(), "{phase:?}");
        assert_eq!(s, idle(), "{phase:?}");
    }
}

#[test]
fn close_of_a_known_node_deletes_it_in_every_variant() {
    for variant in ALL_VARIANTS {
        let mut s = st(watching(PRED), Some(MINE), Ack::None);
        let out = run(variant, &mut s, command(Command::Close));
        assert_eq!(
            out,
            effects(vec![delete_op(MINE)], vec![Observation::GaveUp]),
            "{variant:?}"
        );
        assert_eq!(
            s,
            st(Phase::Abandoning, Some(MINE), Ack::None),
            "{variant:?}"
        );
    }
}

#[test]
fn close_of_a_leader_resigns() {
    for variant in [Knobs::GUID, Knobs::CARELESS_CLOSE] {
        let mut s = leading(Ack::Done);
        let out = run(variant, &mut s, command(Command::Close));
        assert_eq!(
            out,
            effects(
                vec![ack_delete(), delete_op(MINE)],
                vec![Observation::Released]
            ),
            "{variant:?}"
        );
    }
    let mut s = idle();
    assert_eq!(run(Knobs::GUID, &mut s, command(Command::Close)), nothing());
    assert_eq!(s, idle());
}

#[test]
fn ack_delete_reply_clears_the_ack() {
    for result in [
        Ok(Response::Deleted),
        Err(ErrorCode::NoNode),
        Err(ErrorCode::SessionExpired),
    ] {
        let mut s = st(Phase::Releasing, Some(MINE), Ack::Deleting);
        let out = run(Knobs::GUID, &mut s, reply(ack_delete(), result.clone()));
        assert_eq!(out, nothing(), "{result:?}");
        assert_eq!(s, st(Phase::Releasing, Some(MINE), Ack::None), "{result:?}");
    }
    // After the node's delete came back first (careless resign's order).
    let mut s = st(Phase::Idle, None, Ack::Deleting);
    let out = run(
        Knobs::CARELESS_RESIGN,
        &mut s,
        reply(ack_delete(), Ok(Response::Deleted)),
    );
    assert_eq!(out, nothing());
    assert_eq!(s, idle());
}

#[test]
fn node_delete_reply_ends_idle_and_leaves_the_ack_alone() {
    let mut s = st(Phase::Releasing, Some(MINE), Ack::Deleting);
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(delete_op(MINE), Ok(Response::Deleted)),
    );
    assert_eq!(out, nothing());
    assert_eq!(s, st(Phase::Idle, None, Ack::Deleting));
}

// ---------------------------------------------------------------------------
// Session events.
// ---------------------------------------------------------------------------

#[test]
fn expired_clears_the_ack_and_the_leader_observes_lost() {
    for ack in all_acks() {
        let mut s = leading(ack.clone());
        let out = run(Knobs::GUID, &mut s, session(SessionEvent::Expired));
        assert_eq!(out, effects(vec![], vec![Observation::Lost]), "{ack:?}");
        assert_eq!(s, st(Phase::Dead, None, Ack::None), "{ack:?}");
    }
    // Suspended (disconnected first) with its ack: lost too.
    let mut s = st(Phase::Suspended, Some(MINE), Ack::Done);
    let out = run(Knobs::GUID, &mut s, session(SessionEvent::Expired));
    assert_eq!(out, effects(vec![], vec![Observation::Lost]));
    assert_eq!(s, st(Phase::Dead, None, Ack::None));
}

#[test]
fn closed_clears_the_ack_and_the_leader_observes_lost() {
    let mut s = leading(Ack::Done);
    let out = run(Knobs::GUID, &mut s, session(SessionEvent::Closed));
    assert_eq!(out, effects(vec![], vec![Observation::Lost]));
    assert_eq!(s, st(Phase::Dead, None, Ack::None));
}

#[test]
fn expired_while_waiting_to_lead_gives_up() {
    let mut s = st(watching(PRED), Some(MINE), Ack::None);
    let out = run(Knobs::GUID, &mut s, session(SessionEvent::Expired));
    assert_eq!(out, effects(vec![], vec![Observation::GaveUp]));
    assert_eq!(s, st(Phase::Dead, None, Ack::None));
}

#[test]
fn disconnected_while_leading_suspends_and_keeps_the_ack() {
    for ack in all_acks() {
        let mut s = leading(ack.clone());
        let out = run(Knobs::GUID, &mut s, session(SessionEvent::Disconnected));
        assert_eq!(
            out,
            effects(vec![], vec![Observation::Suspended]),
            "{ack:?}"
        );
        assert_eq!(s, st(Phase::Suspended, Some(MINE), ack.clone()), "{ack:?}");
    }
}

#[test]
fn sync_connected_while_suspended_checks_again_and_leads_with_its_ack() {
    let mut s = st(Phase::Suspended, Some(MINE), Ack::Done);
    let out = run(Knobs::GUID, &mut s, session(SessionEvent::SyncConnected));
    assert_eq!(out, effects(vec![list_op()], vec![]));
    assert_eq!(s, st(Phase::Listing, Some(MINE), Ack::Done));
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(list_op(), children(&[MINE, HIGHER])),
    );
    assert_eq!(out, effects(vec![], vec![acquired(3)]));
    assert_eq!(s, leading(Ack::Done));
}

// ---------------------------------------------------------------------------
// What the world asks of the recipe.
// ---------------------------------------------------------------------------

#[test]
fn is_busy_and_is_waiting_per_ack() {
    let table = [
        // ack, busy, waiting
        (Ack::None, false, false),
        (Ack::Creating, true, false),
        (Ack::Checking, true, false),
        (Ack::Waiting, true, true),
        (Ack::Done, false, false),
        (Ack::Deleting, true, false),
    ];
    assert_eq!(table.len(), all_acks().len());
    for &(name, variant) in Election::VARIANTS {
        let election = Election::new(variant);
        // Leading or idle, the contender is neither busy nor waiting: the
        // ack alone decides.
        for phase in [Phase::Held, Phase::Idle, Phase::Suspended] {
            for (ack, busy, waiting) in &table {
                let s = st(phase.clone(), Some(MINE), ack.clone());
                assert_eq!(election.is_busy(&s), *busy, "{name} {phase:?} {ack:?}");
                assert_eq!(
                    election.is_waiting(&s),
                    *waiting,
                    "{name} {phase:?} {ack:?}"
                );
            }
        }
        // The contender's own waiting counts whatever the ack.
        let s = st(watching(PRED), Some(MINE), Ack::None);
        assert!(election.is_busy(&s), "{name}");
        assert!(election.is_waiting(&s), "{name}");
        let s = st(Phase::Releasing, Some(MINE), Ack::None);
        assert!(election.is_busy(&s), "{name}");
        assert!(!election.is_waiting(&s), "{name}");
    }
}

#[test]
fn claims_only_its_own_live_node_and_never_the_ack() {
    let election = Election::new(Knobs::GUID);
    for phase in all_phases() {
        let s = st(phase.clone(), Some(MINE), Ack::Done);
        assert_eq!(election.claims(&s, MINE), phase != Phase::Dead, "{phase:?}");
        assert!(!election.claims(&s, PRED), "{phase:?}");
        assert!(!election.claims(&s, "leader"), "{phase:?}");
    }
}

#[test]
fn init_is_idle_without_an_ack_and_the_directory_is_slash_election() {
    for variant in ALL_VARIANTS {
        let election = Election::new(variant);
        assert_eq!(election.init(ME), idle());
        assert_eq!(election.directory(), &Path::new("/election"));
        assert_eq!(election.knobs, variant);
    }
    assert_eq!(ACK, "/leader");
    assert_eq!(election::sequence(MINE), Some(3));
    assert_eq!(election::sequence("leader"), None);
}

#[test]
fn the_catalogue_names_variants_commands_and_properties() {
    assert_eq!(<Election as Catalogued>::NAME, "election");
    assert_eq!(
        Election::VARIANTS,
        &[
            ("guid", Knobs::GUID),
            ("watch_smallest", Knobs::WATCH_SMALLEST),
            ("watch_all", Knobs::WATCH_ALL),
            ("careless_resign", Knobs::CARELESS_RESIGN),
            ("careless_close", Knobs::CARELESS_CLOSE),
        ]
    );
    assert_eq!(
        Election::COMMANDS,
        &[
            ("volunteer", Command::Volunteer),
            ("acknowledge", Command::Acknowledge),
            ("resign", Command::Resign),
            ("close", Command::Close),
        ]
    );
    let properties: Vec<&str> = <Election as Catalogued>::properties()
        .iter()
        .map(|property| property.name)
        .collect();
    assert_eq!(
        properties,
        [
            "one_leader",
            "herd_avoidance",
            "leader_exists",
            "acknowledged_leader_is_smallest",
            "someone_elected",
            "waiter_woken",
            "leader_acknowledged",
        ]
    );
}

// ---------------------------------------------------------------------------
// Scripted interleavings through the whole world.
// ---------------------------------------------------------------------------

fn world(variant: Knobs, scripts: Vec<Vec<Command>>, budget: FaultBudget) -> World<Election> {
    World::new(
        Election::new(variant),
        scripts,
        <Election as Catalogued>::properties,
    )
    .with_budget(budget)
}

/// [`walk`], checking after every action that the acknowledgement tells the
/// truth.
fn walk_truthfully(
    world: &World<Election>,
    mut state: WorldState<State>,
    actions: &[Action],
) -> WorldState<State> {
    for action in actions {
        state = act(world, &state, action.clone());
        assert!(
            acknowledged_leader_is_smallest(world, &state),
            "after {action:?}"
        );
        assert!(leader_exists(world, &state), "after {action:?}");
    }
    state
}

fn sorted_children(state: &WorldState<State>, path: &str) -> Vec<String> {
    actor::sorted_children(state, path)
}

/// What `/leader` holds, as text, if it exists.
fn ack_data(state: &WorldState<State>) -> Option<String> {
    let bytes = state.net.store.data(&ack_path())?.clone()?;
    Some(String::from_utf8(bytes.to_vec()).expect("a node name"))
}

fn ack_owner(state: &WorldState<State>) -> Option<i64> {
    state
        .net
        .store
        .stat(&ack_path())
        .map(|stat| stat.ephemeral_owner)
}

fn tenure(index: u8, token: i64) -> Option<Tenure> {
    Some(Tenure {
        index,
        token,
        // Until the counter wraps, the grant is the sequence number.
        grant: token as u64,
        role: Role::Leader,
    })
}

/// Client `client` volunteers and is the smallest: create, list, lead.
fn leads(client: usize) -> Vec<Action> {
    vec![
        Action::Invoke(client),
        Action::Serve(client),
        Action::Deliver(client),
        Action::Serve(client),
        Action::Deliver(client),
    ]
}

/// Client `client` volunteers behind someone: create, list, exists (true).
fn waits(client: usize) -> Vec<Action> {
    vec![
        Action::Invoke(client),
        Action::Serve(client),
        Action::Deliver(client),
        Action::Serve(client),
        Action::Deliver(client),
        Action::Serve(client),
        Action::Deliver(client),
    ]
}

/// The leader `client` acknowledges and its create succeeds.
fn acknowledges(client: usize) -> Vec<Action> {
    vec![
        Action::Invoke(client),
        Action::Serve(client),
        Action::Deliver(client),
    ]
}

#[test]
fn world_guid_leader_acknowledges_resigns_and_the_next_takes_over() {
    use Command::*;
    let world = world(
        Knobs::GUID,
        vec![
            vec![Volunteer, Acknowledge, Resign],
            vec![Volunteer, Acknowledge],
        ],
        FaultBudget::default(),
    );
    let init = world.init_states().remove(0);
    assert!(!leader_acknowledged(&world, &init));
    assert!(acknowledged_leader_is_smallest(&world, &init));

    let state = walk_truthfully(&world, init, &leads(0));
    let state = walk_truthfully(&world, state, &waits(1));
    assert_eq!(
        state.processes[0].recipe,
        st(Phase::Held, Some("c0-n_0000000000"), Ack::None)
    );
    assert_eq!(
        state.processes[1].recipe,
        st(
            watching("c0-n_0000000000"),
            Some("c1-n_0000000001"),
            Ack::None
        )
    );
    assert_eq!(state.history.holding, vec![tenure(1, 0), None]);
    assert!(!leader_acknowledged(&world, &state));

    // c0 acknowledges: /leader holds its node's name, in its session.
    let state = walk_truthfully(&world, state, &[Action::Invoke(0)]);
    assert_eq!(
        state.processes[0].recipe,
        st(Phase::Held, Some("c0-n_0000000000"), Ack::Creating)
    );
    assert!(!leader_acknowledged(&world, &state));
    let state = walk_truthfully(&world, state, &[Action::Serve(0), Action::Deliver(0)]);
    assert_eq!(
        state.processes[0].recipe,
        st(Phase::Held, Some("c0-n_0000000000"), Ack::Done)
    );
    assert!(leader_acknowledged(&world, &state));
    assert!(acknowledged_leader_is_smallest(&world, &state));
    assert_eq!(ack_data(&state).as_deref(), Some("c0-n_0000000000"));
    assert_eq!(ack_owner(&state), Some(state.net.session(0)));
    assert_eq!(
        sorted_children(&state, "/"),
        ["election", "leader", "zookeeper"]
    );

    // c0 resigns: /leader goes first, then its node, which wakes c1.
    let state = walk_truthfully(&world, state, &[Action::Invoke(0)]);
    assert_eq!(
        state.processes[0].recipe,
        st(Phase::Releasing, Some("c0-n_0000000000"), Ack::Deleting)
    );
    assert_eq!(state.history.holding, vec![None, None]);
    let state = walk_truthfully(&world, state, &[Action::Serve(0)]);
    assert!(!leader_acknowledged(&world, &state));
    assert_eq!(
        sorted_children(&state, "/election"),
        ["c0-n_0000000000", "c1-n_0000000001"]
    );
    assert!(!state.history.woken);
    let state = walk_truthfully(
        &world,
        state,
        &[Action::Serve(0), Action::Deliver(0), Action::Deliver(0)],
    );
    assert!(state.history.woken);
    assert!(!state.history.herd);
    assert_eq!(state.processes[0].recipe, idle());
    assert_eq!(sorted_children(&state, "/election"), ["c1-n_0000000001"]);

    // c1 lists, leads with the next token and acknowledges.
    let state = walk_truthfully(
        &world,
        state,
        &[Action::Deliver(1), Action::Serve(1), Action::Deliver(1)],
    );
    assert_eq!(
        state.processes[1].recipe,
        st(Phase::Held, Some("c1-n_0000000001"), Ack::None)
    );
    assert_eq!(state.history.holding, vec![None, tenure(2, 1)]);
    let state = walk_truthfully(&world, state, &acknowledges(1));
    assert_eq!(
        state.processes[1].recipe,
        st(Phase::Held, Some("c1-n_0000000001"), Ack::Done)
    );
    assert!(leader_acknowledged(&world, &state));
    assert!(acknowledged_leader_is_smallest(&world, &state));
    assert_eq!(ack_data(&state).as_deref(), Some("c1-n_0000000001"));
    assert_eq!(ack_owner(&state), Some(state.net.session(1)));
    assert!(world.is_quiescent(&state));
    assert!(leader_exists(&world, &state));
}

#[test]
fn world_leader_exists_reads_the_smallest_live_nodes_owner_on_quiescent_states() {
    use Command::*;
    let world = world(
        Knobs::GUID,
        vec![vec![Volunteer, Acknowledge], vec![Volunteer]],
        FaultBudget::default(),
    );
    let init = world.init_states().remove(0);
    // Nothing is live at the start, but client 0 can still be invoked.
    assert!(!world.is_quiescent(&init));
    assert!(leader_exists(&world, &init));
    let state = walk(&world, init, &leads(0));
    let state = walk(&world, state, &waits(1));
    let state = walk(&world, state, &acknowledges(0));
    assert!(world.is_quiescent(&state));
    assert!(leader_exists(&world, &state));
    assert_eq!(violation_words(&world, &state, "leader_exists"), None);
    assert!(leader_acknowledged(&world, &state));
    assert!(acknowledged_leader_is_smallest(&world, &state));
    // The same state with the smallest node's owner not believing it leads
    // (not reachable: it checks what the property reads) breaks it; the
    // waiter's belief does not matter.
    let mut unaware = state.clone();
    unaware.history.holding[0] = None;
    assert!(!leader_exists(&world, &unaware));
    assert_eq!(
        violation_words(&world, &unaware, "leader_exists").as_deref(),
        Some(
            "nothing but a fault can happen and no one leads: the smallest live node \
             /election/c0-n_0000000000 is c0's, which does not believe it leads \
             (Held c0-n_0000000000, ack Done)"
        )
    );
    let mut both = state.clone();
    both.history.holding[1] = tenure(2, 1);
    assert!(leader_exists(&world, &both));
}

#[test]
fn world_careless_resign_leaves_an_ack_whose_owner_is_not_the_smallest() {
    use Command::*;
    let world = world(
        Knobs::CARELESS_RESIGN,
        vec![
            vec![Volunteer, Acknowledge, Resign],
            vec![Volunteer, Acknowledge],
        ],
        FaultBudget::default(),
    );
    let init = world.init_states().remove(0);
    let state = walk_truthfully(&world, init, &leads(0));
    let state = walk_truthfully(&world, state, &waits(1));
    let state = walk_truthfully(&world, state, &acknowledges(0));
    assert_eq!(
        state.processes[0].recipe,
        st(Phase::Held, Some("c0-n_0000000000"), Ack::Done)
    );
    assert!(leader_acknowledged(&world, &state));

    // c0 resigns: its node's delete is served before its ack's.
    let state = walk(&world, state, &[Action::Invoke(0)]);
    assert!(acknowledged_leader_is_smallest(&world, &state));
    let state = walk(&world, state, &[Action::Serve(0)]);
    assert_eq!(sorted_children(&state, "/election"), ["c1-n_0000000001"]);
    assert_eq!(ack_data(&state).as_deref(), Some("c0-n_0000000000"));
    assert_eq!(ack_owner(&state), Some(state.net.session(0)));
    // The acknowledgement names c0, but c1 owns the smallest live node.
    assert!(leader_acknowledged(&world, &state));
    assert!(!acknowledged_leader_is_smallest(&world, &state));

    // Meanwhile c1 is woken, leads, and its own acknowledgement meets c0's:
    // NODEEXISTS, a read that finds c0's name, and a wait.
    let state = walk(
        &world,
        state,
        &[Action::Deliver(1), Action::Serve(1), Action::Deliver(1)],
    );
    assert_eq!(state.history.holding, vec![None, tenure(2, 1)]);
    let state = walk(
        &world,
        state,
        &[Action::Invoke(1), Action::Serve(1), Action::Deliver(1)],
    );
    assert_eq!(
        state.processes[1].recipe,
        st(Phase::Held, Some("c1-n_0000000001"), Ack::Checking)
    );
    let state = walk(&world, state, &[Action::Serve(1), Action::Deliver(1)]);
    assert_eq!(
        state.processes[1].recipe,
        st(Phase::Held, Some("c1-n_0000000001"), Ack::Waiting)
    );
    assert!(world.recipe(1).is_waiting(&state.processes[1].recipe));
    assert!(!acknowledged_leader_is_smallest(&world, &state));

    // c0's ack delete is served: the truth again, and c1 is told.
    let state = walk(&world, state, &[Action::Serve(0)]);
    assert!(!leader_acknowledged(&world, &state));
    assert!(acknowledged_leader_is_smallest(&world, &state));
    let state = walk_truthfully(&world, state, &[Action::Deliver(0), Action::Deliver(0)]);
    assert_eq!(state.processes[0].recipe, idle());

    // c1 hears /leader go and creates its own.
    let state = walk_truthfully(&world, state, &[Action::Deliver(1)]);
    assert_eq!(
        state.processes[1].recipe,
        st(Phase::Held, Some("c1-n_0000000001"), Ack::Creating)
    );
    let state = walk_truthfully(&world, state, &[Action::Serve(1), Action::Deliver(1)]);
    assert_eq!(
        state.processes[1].recipe,
        st(Phase::Held, Some("c1-n_0000000001"), Ack::Done)
    );
    assert_eq!(ack_data(&state).as_deref(), Some("c1-n_0000000001"));
    assert_eq!(ack_owner(&state), Some(state.net.session(1)));
    assert!(acknowledged_leader_is_smallest(&world, &state));
    assert!(world.is_quiescent(&state));
    assert!(leader_exists(&world, &state));
}

#[test]
fn world_guid_resign_keeps_the_ack_truthful_in_the_same_interleaving() {
    // The same steps as the careless walk up to the first serve of the
    // resignation: the reference deletes /leader first, so it never lies.
    use Command::*;
    let world = world(
        Knobs::GUID,
        vec![
            vec![Volunteer, Acknowledge, Resign],
            vec![Volunteer, Acknowledge],
        ],
        FaultBudget::default(),
    );
    let init = world.init_states().remove(0);
    let state = walk_truthfully(&world, init, &leads(0));
    let state = walk_truthfully(&world, state, &waits(1));
    let state = walk_truthfully(&world, state, &acknowledges(0));
    let state = walk_truthfully(&world, state, &[Action::Invoke(0), Action::Serve(0)]);
    assert!(!leader_acknowledged(&world, &state));
    assert_eq!(
        sorted_children(&state, "/election"),
        ["c0-n_0000000000", "c1-n_0000000001"]
    );
    let state = walk_truthfully(&world, state, &[Action::Serve(0)]);
    assert_eq!(sorted_children(&state, "/election"), ["c1-n_0000000001"]);
    // c1 takes over and its create succeeds at once.
    let state = walk_truthfully(
        &world,
        state,
        &[
            Action::Deliver(1),
            Action::Serve(1),
            Action::Deliver(1),
            Action::Invoke(1),
            Action::Serve(1),
            Action::Deliver(1),
        ],
    );
    assert_eq!(
        state.processes[1].recipe,
        st(Phase::Held, Some("c1-n_0000000001"), Ack::Done)
    );
}

#[test]
fn world_watch_all_wakes_every_waiter_and_guid_only_the_next() {
    use Command::*;
    let scripts = vec![vec![Volunteer, Resign], vec![Volunteer], vec![Volunteer]];
    for (variant, herd, watched_by_c2) in [
        (Knobs::GUID, false, "c1-n_0000000001"),
        (Knobs::WATCH_SMALLEST, true, "c0-n_0000000000"),
        (Knobs::WATCH_ALL, true, "c0-n_0000000000"),
    ] {
        let world = world(variant, scripts.clone(), FaultBudget::default());
        let init = world.init_states().remove(0);
        let state = walk(&world, init, &leads(0));
        let state = walk(&world, state, &waits(1));
        let state = walk(&world, state, &waits(2));
        assert_eq!(
            state.processes[2].recipe,
            st(watching(watched_by_c2), Some("c2-n_0000000002"), Ack::None),
            "{variant:?}"
        );
        let state = walk(&world, state, &[Action::Invoke(0), Action::Serve(0)]);
        assert!(state.history.woken, "{variant:?}");
        assert_eq!(state.history.herd, herd, "{variant:?}");
    }
}

#[test]
fn world_lost_ack_create_reply_is_recognised_by_its_data() {
    use Command::*;
    let world = world(
        Knobs::GUID,
        vec![vec![Volunteer, Acknowledge]],
        FaultBudget::of(Kind::LoseReply, 1),
    );
    let init = world.init_states().remove(0);
    let state = walk(&world, init, &leads(0));
    assert_eq!(state.history.holding, vec![tenure(1, 0)]);

    // The ack's create is applied and its reply lost.
    let state = walk(
        &world,
        state,
        &[
            Action::Invoke(0),
            Action::Fault(Fault::new(Kind::LoseReply, 0)),
        ],
    );
    assert!(leader_acknowledged(&world, &state));
    assert_eq!(ack_data(&state).as_deref(), Some("c0-n_0000000000"));
    assert_eq!(
        state.processes[0].recipe,
        st(Phase::Held, Some("c0-n_0000000000"), Ack::Creating)
    );

    // CONNECTIONLOSS: the create again (queued), then Disconnected: suspended.
    let state = act(&world, &state, Action::Deliver(0));
    assert_eq!(
        state.processes[0].recipe,
        st(Phase::Suspended, Some("c0-n_0000000000"), Ack::Creating)
    );
    assert_eq!(state.history.holding, vec![None]);
    assert!(state.net.links[0].up.is_empty());
    assert_eq!(
        state
            .net
            .client(0)
            .queued()
            .map(|request| request.op.clone())
            .collect::<Vec<_>>(),
        [ack_create("c0-n_0000000000")]
    );

    // Reconnected: the queued create goes first, then the fresh listing.
    let state = act(&world, &state, Action::Reconnect(0));
    assert_eq!(
        state.net.links[0]
            .up
            .iter()
            .map(|request| request.op.clone())
            .collect::<Vec<_>>(),
        [ack_create("c0-n_0000000000"), list_op()]
    );
    // NODEEXISTS: checking whose it is.
    let state = walk(&world, state, &[Action::Serve(0), Action::Deliver(0)]);
    assert_eq!(
        state.processes[0].recipe,
        st(Phase::Listing, Some("c0-n_0000000000"), Ack::Checking)
    );
    // The listing: leading again.
    let state = walk(&world, state, &[Action::Serve(0), Action::Deliver(0)]);
    assert_eq!(
        state.processes[0].recipe,
        st(Phase::Held, Some("c0-n_0000000000"), Ack::Checking)
    );
    assert_eq!(state.history.holding, vec![tenure(2, 0)]);
    // Its own name: done.
    let state = walk(&world, state, &[Action::Serve(0), Action::Deliver(0)]);
    assert_eq!(
        state.processes[0].recipe,
        st(Phase::Held, Some("c0-n_0000000000"), Ack::Done)
    );
    assert_eq!(
        sorted_children(&state, "/"),
        ["election", "leader", "zookeeper"]
    );
    assert_eq!(ack_data(&state).as_deref(), Some("c0-n_0000000000"));
    assert_eq!(ack_owner(&state), Some(state.net.session(0)));
    assert!(acknowledged_leader_is_smallest(&world, &state));
    assert!(world.is_quiescent(&state));
    assert!(leader_exists(&world, &state));
}

#[test]
fn world_expired_leader_loses_its_ack_with_its_session() {
    use Command::*;
    let world = world(
        Knobs::GUID,
        vec![vec![Volunteer, Acknowledge], vec![Volunteer]],
        FaultBudget::default()
            .with(Kind::Disconnect, 1)
            .with(Kind::Expire, 1),
    );
    let init = world.init_states().remove(0);
    let state = walk_truthfully(&world, init, &leads(0));
    let state = walk_truthfully(&world, state, &waits(1));
    let state = walk_truthfully(&world, state, &acknowledges(0));
    // Disconnected, then expired by the server: /leader and c0's node go
    // together, and c1 is told.
    let state = walk_truthfully(
        &world,
        state,
        &[
            Action::Fault(Fault::new(Kind::Disconnect, 0).applied(0)),
            Action::Deliver(0),
            Action::Fault(Fault::new(Kind::Expire, 0)),
        ],
    );
    assert!(!leader_acknowledged(&world, &state));
    assert_eq!(sorted_children(&state, "/election"), ["c1-n_0000000001"]);
    // c0 learns it on reconnecting.
    let state = walk_truthfully(&world, state, &[Action::Reconnect(0)]);
    assert_eq!(state.processes[0].recipe, st(Phase::Dead, None, Ack::None));
    // c1 takes over.
    let state = walk_truthfully(
        &world,
        state,
        &[Action::Deliver(1), Action::Serve(1), Action::Deliver(1)],
    );
    assert_eq!(
        state.processes[1].recipe,
        st(Phase::Held, Some("c1-n_0000000001"), Ack::None)
    );
    assert_eq!(state.history.holding, vec![None, tenure(2, 1)]);
    assert!(world.is_quiescent(&state));
    assert!(leader_exists(&world, &state));
}
