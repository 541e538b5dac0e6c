//! The revocable lock's actor (`models/revocable_lock.rs`), one test per
//! branch of `RevocableLock::handle` and its helpers (`on_data`, `on_watch`,
//! the revoker), named after the branch it reaches: each drives the actor
//! directly with a hand-built input and asserts the exact effects (requests
//! sent, observations) and the resulting state.
//!
//! Then the shared lock's own surface (`models/shared_lock.rs`), and a few
//! scripted interleavings through the whole world (`zoocheck::world::World`),
//! each walking one specific run action by action.

use std::sync::Arc;

use stateright::Model;

mod actor;
use actor::lock_dir::{at, create_op, created, delete_op, exists_op, list_op};
use actor::*;

use zoocheck::catalogued::Catalogued;
use zoocheck::client::SessionEvent;
use zoocheck::models::contender::{self, Phase};
use zoocheck::models::revocable_lock::{
    self, Asked, Command, Knobs, RevocableLock, Revoker, State,
};
use zoocheck::models::shared_lock::{self, SharedLock};
use zoocheck::properties;
use zoocheck::recipe::{Effects, Incarnation, Input, Observation, Recipe, Role};
use zoocheck::store::{
    data, CreateMode, Data, ErrorCode, EventType, Op, OpResult, Path, Response, Stat, Store,
    StoreConfig,
};
use zoocheck::world::{Action, World, WorldState};

// ---------------------------------------------------------------------------
// Helpers.
// ---------------------------------------------------------------------------

/// Client 0's first process: GUID `c0`.
const ME: Incarnation = Incarnation {
    client: 0,
    restarts: 0,
};

/// Our write node, as the server would name the fourth child of `/lock`.
const MINE: &str = "c0-write-0000000003";
/// The next lowest node: another client's writer.
const PRED: &str = "c1-write-0000000001";
/// The lowest node: a third client's reader.
const LOWEST: &str = "c2-read-0000000000";

const ALL_VARIANTS: [Knobs; 4] = [
    Knobs::GUID,
    Knobs::WATCH_ONLY,
    Knobs::IGNORE_WHILE_WAITING,
    Knobs::FENCED,
];

/// A lock user's state: the contender's phase and node, whether its first
/// `getData()` was answered, and whether it was asked; the revoker idle.
fn user(phase: Phase, node: Option<&str>, watching_data: bool, asked: Option<Asked>) -> State {
    State {
        lock: contender::State {
            phase,
            node: node.map(Arc::from),
            ..contender::State::new(Role::Write)
        },
        watching_data,
        asked,
        revoker: Revoker::Idle,
    }
}

/// A fresh process: what `init` gives.
fn fresh() -> State {
    RevocableLock::new(Knobs::GUID).init(ME)
}

fn revoker(revoker: Revoker) -> State {
    State { revoker, ..fresh() }
}

fn asked(nodes: &[&str], pending: u8) -> Revoker {
    Revoker::Asked {
        nodes: names(nodes).into(),
        pending,
    }
}

fn watching(name: &str) -> Phase {
    Phase::Watching(Arc::from(name))
}

/// Hands `input` to a revocable lock of `variant` as client 0's first process.
fn run(variant: Knobs, state: &mut State, input: Input<Command>) -> Effects {
    let mut out = Effects::default();
    RevocableLock::new(variant).handle(ME, state, input, &mut out);
    out
}

fn read_op(name: &str) -> Op {
    Op::GetData {
        path: at(name),
        watch: true,
    }
}

fn unlock_op(name: &str) -> Op {
    Op::SetData {
        path: at(name),
        data: data(b"unlock"),
        version: -1,
    }
}

fn read(contents: Data) -> OpResult {
    Ok(Response::Data {
        data: contents,
        stat: Stat::default(),
    })
}

fn unlock() -> OpResult {
    read(data(b"unlock"))
}

fn set_ok() -> OpResult {
    Ok(Response::SetData {
        stat: Stat::default(),
    })
}

fn nonode() -> OpResult {
    Err(ErrorCode::NoNode)
}

/// The waiting phases a client with a node can be in (the reference, unherded).
fn waiting_phases() -> Vec<Phase> {
    vec![Phase::Listing, watching(PRED)]
}

// ---------------------------------------------------------------------------
// Step 1: create, then getData with a watch immediately after.
// ---------------------------------------------------------------------------

#[test]
fn write_from_idle_creates_a_write_node() {
    for variant in ALL_VARIANTS {
        let mut s = fresh();
        let out = run(variant, &mut s, command(Command::Write));
        assert_eq!(
            out,
            effects(vec![create_op("c0-write-")], vec![]),
            "{variant:?}"
        );
        assert_eq!(s, user(Phase::Creating, None, false, None), "{variant:?}");
    }
}

#[test]
fn read_from_idle_creates_a_read_node() {
    let mut s = fresh();
    let out = run(Knobs::GUID, &mut s, command(Command::Read));
    assert_eq!(out, effects(vec![create_op("c0-read-")], vec![]));
    assert_eq!(s.lock.phase, Phase::Creating);
    assert_eq!(s.lock.role, Role::Read);
    assert_eq!(s.lock.node, None);
}

#[test]
fn acquire_from_idle_forgets_the_previous_attempts_request() {
    let mut s = user(Phase::Idle, None, true, Some(Asked::AfterWatch));
    let out = run(Knobs::GUID, &mut s, command(Command::Write));
    assert_eq!(out, effects(vec![create_op("c0-write-")], vec![]));
    assert_eq!(s, user(Phase::Creating, None, false, None));
}

#[test]
fn acquire_while_not_idle_does_nothing() {
    let mut s = user(Phase::Held, Some(MINE), true, Some(Asked::AfterWatch));
    let before = s.clone();
    let out = run(Knobs::GUID, &mut s, command(Command::Write));
    assert_eq!(out, nothing());
    assert_eq!(s, before);
}

#[test]
fn created_reply_reads_own_node_with_watch_before_listing() {
    for variant in ALL_VARIANTS {
        let mut s = user(Phase::Creating, None, false, None);
        let out = run(
            variant,
            &mut s,
            reply(create_op("c0-write-"), created(MINE)),
        );
        assert_eq!(
            out,
            effects(vec![read_op(MINE), list_op(false)], vec![]),
            "{variant:?}"
        );
        assert_eq!(
            s,
            user(Phase::Listing, Some(MINE), false, None),
            "{variant:?}"
        );
    }
}

#[test]
fn create_connection_loss_recovers_by_guid_without_reading() {
    let mut s = user(Phase::Creating, None, false, None);
    let out = run(Knobs::GUID, &mut s, reply(create_op("c0-write-"), lost()));
    assert_eq!(out, effects(vec![list_op(false)], vec![]));
    assert_eq!(s, user(Phase::Recovering, None, false, None));
}

#[test]
fn recovery_adopting_our_node_reads_it_before_the_decisions_request() {
    let mut s = user(Phase::Recovering, None, false, None);
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(list_op(false), children(&[MINE, LOWEST, PRED])),
    );
    assert_eq!(out, effects(vec![read_op(MINE), exists_op(PRED)], vec![]));
    assert_eq!(s, user(watching(PRED), Some(MINE), false, None));
}

#[test]
fn recovery_adopting_our_node_that_holds_reads_it_and_acquires() {
    let mut s = user(Phase::Recovering, None, false, None);
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(list_op(false), children(&["c1-read-0000000004", MINE])),
    );
    assert_eq!(
        out,
        effects(
            vec![read_op(MINE)],
            vec![Observation::Acquired {
                node: Arc::from(MINE),
                token: 3,
                role: Role::Write
            }]
        )
    );
    assert_eq!(s, user(Phase::Held, Some(MINE), false, None));
}

#[test]
fn recovery_without_our_node_creates_again_and_reads_nothing() {
    let mut s = user(Phase::Recovering, None, false, None);
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(list_op(false), children(&[PRED, "c0r1-write-0000000002"])),
    );
    assert_eq!(out, effects(vec![create_op("c0-write-")], vec![]));
    assert_eq!(s, user(Phase::Creating, None, false, None));
}

#[test]
fn listing_reply_with_a_known_node_does_not_read_it_again() {
    let mut s = user(Phase::Listing, Some(MINE), true, None);
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(list_op(false), children(&[PRED, MINE])),
    );
    assert_eq!(out, effects(vec![exists_op(PRED)], vec![]));
    assert_eq!(s, user(watching(PRED), Some(MINE), true, None));

    let mut s = user(Phase::Listing, Some(MINE), true, None);
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(list_op(false), children(&[MINE])),
    );
    assert_eq!(
        out,
        effects(
            vec![],
            vec![Observation::Acquired {
                node: Arc::from(MINE),
                token: 3,
                role: Role::Write
            }]
        )
    );
    assert_eq!(s, user(Phase::Held, Some(MINE), true, None));
}

// ---------------------------------------------------------------------------
// Step 3: what getData() on our node answered.
// ---------------------------------------------------------------------------

#[test]
fn first_data_unlock_while_held_releases_asked_before_watch() {
    for variant in [Knobs::GUID, Knobs::IGNORE_WHILE_WAITING, Knobs::FENCED] {
        let mut s = user(Phase::Held, Some(MINE), false, None);
        let out = run(variant, &mut s, reply(read_op(MINE), unlock()));
        assert_eq!(
            out,
            effects(vec![delete_op(MINE)], vec![Observation::Released]),
            "{variant:?}"
        );
        assert_eq!(
            s,
            user(Phase::Releasing, Some(MINE), true, Some(Asked::BeforeWatch)),
            "{variant:?}"
        );
    }
}

#[test]
fn first_data_unlock_while_waiting_abandons_asked_before_watch() {
    for phase in waiting_phases() {
        let mut s = user(phase.clone(), Some(MINE), false, None);
        let out = run(Knobs::GUID, &mut s, reply(read_op(MINE), unlock()));
        assert_eq!(
            out,
            effects(vec![delete_op(MINE)], vec![Observation::GaveUp]),
            "{phase:?}"
        );
        assert_eq!(
            s,
            user(
                Phase::Abandoning,
                Some(MINE),
                true,
                Some(Asked::BeforeWatch)
            ),
            "{phase:?}"
        );
    }
}

#[test]
fn first_data_unlock_while_suspended_releases_without_observing() {
    let mut s = user(Phase::Suspended, Some(MINE), false, None);
    let out = run(Knobs::GUID, &mut s, reply(read_op(MINE), unlock()));
    assert_eq!(out, effects(vec![delete_op(MINE)], vec![]));
    assert_eq!(
        s,
        user(Phase::Releasing, Some(MINE), true, Some(Asked::BeforeWatch))
    );
}

#[test]
fn reread_unlock_while_held_releases_asked_after_watch() {
    for variant in ALL_VARIANTS {
        let mut s = user(Phase::Held, Some(MINE), true, None);
        let out = run(variant, &mut s, reply(read_op(MINE), unlock()));
        assert_eq!(
            out,
            effects(vec![delete_op(MINE)], vec![Observation::Released]),
            "{variant:?}"
        );
        assert_eq!(
            s,
            user(Phase::Releasing, Some(MINE), true, Some(Asked::AfterWatch)),
            "{variant:?}"
        );
    }
}

#[test]
fn reread_unlock_while_waiting_abandons_asked_after_watch() {
    for phase in waiting_phases() {
        let mut s = user(phase.clone(), Some(MINE), true, None);
        let out = run(Knobs::GUID, &mut s, reply(read_op(MINE), unlock()));
        assert_eq!(
            out,
            effects(vec![delete_op(MINE)], vec![Observation::GaveUp]),
            "{phase:?}"
        );
        assert_eq!(
            s,
            user(Phase::Abandoning, Some(MINE), true, Some(Asked::AfterWatch)),
            "{phase:?}"
        );
    }
}

#[test]
fn data_without_unlock_does_nothing_but_mark_the_watch_set() {
    for contents in [None, data(b""), data(b"unlocked"), data(b"lock")] {
        for first in [true, false] {
            let mut s = user(Phase::Held, Some(MINE), !first, None);
            let out = run(
                Knobs::GUID,
                &mut s,
                reply(read_op(MINE), read(contents.clone())),
            );
            assert_eq!(out, nothing(), "{contents:?}");
            assert_eq!(s, user(Phase::Held, Some(MINE), true, None), "{contents:?}");
        }
    }
}

#[test]
fn data_other_error_does_nothing_but_mark_the_watch_set() {
    let mut s = user(Phase::Held, Some(MINE), false, None);
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(read_op(MINE), Err(ErrorCode::SessionExpired)),
    );
    assert_eq!(out, nothing());
    assert_eq!(s, user(Phase::Held, Some(MINE), true, None));
}

#[test]
fn watch_only_first_data_unlock_is_ignored() {
    for phase in [Phase::Held, Phase::Listing, watching(PRED)] {
        let mut s = user(phase.clone(), Some(MINE), false, None);
        let out = run(Knobs::WATCH_ONLY, &mut s, reply(read_op(MINE), unlock()));
        assert_eq!(out, nothing(), "{phase:?}");
        assert_eq!(s, user(phase.clone(), Some(MINE), true, None), "{phase:?}");
    }
}

#[test]
fn watch_only_acts_on_unlock_reread_after_node_data_changed() {
    let mut s = user(Phase::Held, Some(MINE), false, None);
    // The first reply says unlock: ignored.
    let out = run(Knobs::WATCH_ONLY, &mut s, reply(read_op(MINE), unlock()));
    assert_eq!(out, nothing());
    assert_eq!(s, user(Phase::Held, Some(MINE), true, None));
    // Its watch fires (someone wrote unlock again): it reads again.
    let out = run(
        Knobs::WATCH_ONLY,
        &mut s,
        event(EventType::NodeDataChanged, at(MINE)),
    );
    assert_eq!(out, effects(vec![read_op(MINE)], vec![]));
    assert_eq!(s, user(Phase::Held, Some(MINE), true, None));
    // This time it releases.
    let out = run(Knobs::WATCH_ONLY, &mut s, reply(read_op(MINE), unlock()));
    assert_eq!(
        out,
        effects(vec![delete_op(MINE)], vec![Observation::Released])
    );
    assert_eq!(
        s,
        user(Phase::Releasing, Some(MINE), true, Some(Asked::AfterWatch))
    );
}

#[test]
fn ignore_while_waiting_unlock_while_waiting_is_noted_but_not_acted_on() {
    for phase in waiting_phases() {
        for (first, when) in [(true, Asked::BeforeWatch), (false, Asked::AfterWatch)] {
            let mut s = user(phase.clone(), Some(MINE), !first, None);
            let out = run(
                Knobs::IGNORE_WHILE_WAITING,
                &mut s,
                reply(read_op(MINE), unlock()),
            );
            assert_eq!(out, nothing(), "{phase:?} {when:?}");
            assert_eq!(
                s,
                user(phase.clone(), Some(MINE), true, Some(when)),
                "{phase:?} {when:?}"
            );
        }
    }
}

#[test]
fn ignore_while_waiting_unlock_while_held_releases() {
    for (first, when) in [(true, Asked::BeforeWatch), (false, Asked::AfterWatch)] {
        let mut s = user(Phase::Held, Some(MINE), !first, None);
        let out = run(
            Knobs::IGNORE_WHILE_WAITING,
            &mut s,
            reply(read_op(MINE), unlock()),
        );
        assert_eq!(
            out,
            effects(vec![delete_op(MINE)], vec![Observation::Released]),
            "{when:?}"
        );
        assert_eq!(
            s,
            user(Phase::Releasing, Some(MINE), true, Some(when)),
            "{when:?}"
        );
    }
}

#[test]
fn data_nonode_while_held_is_lost() {
    for first in [true, false] {
        let mut s = user(Phase::Held, Some(MINE), !first, None);
        let out = run(Knobs::GUID, &mut s, reply(read_op(MINE), nonode()));
        assert_eq!(out, effects(vec![], vec![Observation::Lost]));
        assert_eq!(s.lock.phase, Phase::Idle);
        assert_eq!(s.lock.node, None);
        assert_eq!(s.asked, None);
    }
}

#[test]
fn data_nonode_while_waiting_gives_up() {
    for phase in waiting_phases() {
        let mut s = user(phase.clone(), Some(MINE), false, None);
        let out = run(Knobs::GUID, &mut s, reply(read_op(MINE), nonode()));
        assert_eq!(out, effects(vec![], vec![Observation::GaveUp]), "{phase:?}");
        assert_eq!(s.lock.phase, Phase::Idle, "{phase:?}");
        assert_eq!(s.lock.node, None, "{phase:?}");
    }
}

#[test]
fn data_nonode_while_releasing_changes_nothing() {
    for phase in [Phase::Releasing, Phase::Abandoning] {
        let mut s = user(phase.clone(), Some(MINE), true, Some(Asked::AfterWatch));
        let out = run(Knobs::GUID, &mut s, reply(read_op(MINE), nonode()));
        assert_eq!(out, nothing(), "{phase:?}");
        assert_eq!(
            s,
            user(phase.clone(), Some(MINE), true, Some(Asked::AfterWatch)),
            "{phase:?}"
        );
    }
}

#[test]
fn data_connection_loss_reads_again_keeping_first_read_pending() {
    // The first read lost: still the first, so a later unlock is BeforeWatch.
    let mut s = user(Phase::Held, Some(MINE), false, None);
    let out = run(Knobs::GUID, &mut s, reply(read_op(MINE), lost()));
    assert_eq!(out, effects(vec![read_op(MINE)], vec![]));
    assert_eq!(s, user(Phase::Held, Some(MINE), false, None));
    let out = run(Knobs::GUID, &mut s, reply(read_op(MINE), unlock()));
    assert_eq!(
        out,
        effects(vec![delete_op(MINE)], vec![Observation::Released])
    );
    assert_eq!(s.asked, Some(Asked::BeforeWatch));

    // A re-read lost: still a re-read.
    let mut s = user(watching(PRED), Some(MINE), true, None);
    let out = run(Knobs::GUID, &mut s, reply(read_op(MINE), lost()));
    assert_eq!(out, effects(vec![read_op(MINE)], vec![]));
    assert_eq!(s, user(watching(PRED), Some(MINE), true, None));
}

#[test]
fn data_reply_for_another_node_is_ignored() {
    let mut s = user(watching(PRED), Some(MINE), false, None);
    let out = run(Knobs::GUID, &mut s, reply(read_op(PRED), unlock()));
    assert_eq!(out, nothing());
    assert_eq!(s, user(watching(PRED), Some(MINE), false, None));
}

// ---------------------------------------------------------------------------
// Step 2: notifications on our node.
// ---------------------------------------------------------------------------

#[test]
fn node_data_changed_on_own_node_reads_it_again_with_watch() {
    for phase in [Phase::Held, Phase::Listing, watching(PRED)] {
        let mut s = user(phase.clone(), Some(MINE), true, None);
        let out = run(
            Knobs::GUID,
            &mut s,
            event(EventType::NodeDataChanged, at(MINE)),
        );
        assert_eq!(out, effects(vec![read_op(MINE)], vec![]), "{phase:?}");
        assert_eq!(s, user(phase.clone(), Some(MINE), true, None), "{phase:?}");
    }
}

#[test]
fn node_deleted_on_own_node_while_held_is_lost() {
    let mut s = user(Phase::Held, Some(MINE), true, None);
    let out = run(Knobs::GUID, &mut s, event(EventType::NodeDeleted, at(MINE)));
    assert_eq!(out, effects(vec![], vec![Observation::Lost]));
    assert_eq!(s, user(Phase::Idle, None, true, None));
}

#[test]
fn node_deleted_on_own_node_while_waiting_gives_up() {
    for phase in waiting_phases() {
        let mut s = user(phase.clone(), Some(MINE), true, None);
        let out = run(Knobs::GUID, &mut s, event(EventType::NodeDeleted, at(MINE)));
        assert_eq!(out, effects(vec![], vec![Observation::GaveUp]), "{phase:?}");
        assert_eq!(s, user(Phase::Idle, None, true, None), "{phase:?}");
    }
}

#[test]
fn node_deleted_on_own_node_while_releasing_observes_nothing() {
    for phase in [Phase::Releasing, Phase::Abandoning] {
        let mut s = user(phase.clone(), Some(MINE), true, Some(Asked::AfterWatch));
        let out = run(Knobs::GUID, &mut s, event(EventType::NodeDeleted, at(MINE)));
        assert_eq!(out, nothing(), "{phase:?}");
        assert_eq!(
            s,
            user(phase.clone(), Some(MINE), true, Some(Asked::AfterWatch)),
            "{phase:?}"
        );
    }
}

#[test]
fn predecessor_deleted_goes_back_to_step_2_as_the_contender_does() {
    let mut s = user(watching(PRED), Some(MINE), true, None);
    let out = run(Knobs::GUID, &mut s, event(EventType::NodeDeleted, at(PRED)));
    assert_eq!(out, effects(vec![list_op(false)], vec![]));
    assert_eq!(s, user(Phase::Listing, Some(MINE), true, None));
}

#[test]
fn other_events_on_own_node_are_ignored() {
    for kind in [EventType::NodeCreated, EventType::NodeChildrenChanged] {
        let mut s = user(Phase::Held, Some(MINE), true, None);
        let out = run(Knobs::GUID, &mut s, event(kind, at(MINE)));
        assert_eq!(out, nothing(), "{kind:?}");
        assert_eq!(s, user(Phase::Held, Some(MINE), true, None), "{kind:?}");
    }
}

// ---------------------------------------------------------------------------
// A listing that no longer shows our node: taken away, not recreated.
// ---------------------------------------------------------------------------

#[test]
fn listing_without_our_node_gives_up_instead_of_creating_again() {
    for variant in ALL_VARIANTS {
        let mut s = user(Phase::Listing, Some(MINE), true, None);
        let out = run(
            variant,
            &mut s,
            reply(list_op(false), children(&[LOWEST, PRED])),
        );
        assert_eq!(
            out,
            effects(vec![], vec![Observation::GaveUp]),
            "{variant:?}"
        );
        assert_eq!(s, user(Phase::Idle, None, true, None), "{variant:?}");
    }
}

#[test]
fn suspended_holder_that_finds_its_node_gone_gives_up() {
    let mut s = user(Phase::Suspended, Some(MINE), true, None);
    let out = run(
        Knobs::GUID,
        &mut s,
        Input::Session(SessionEvent::SyncConnected),
    );
    assert_eq!(out, effects(vec![list_op(false)], vec![]));
    assert_eq!(s, user(Phase::Listing, Some(MINE), true, None));
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(list_op(false), children(&[PRED])),
    );
    assert_eq!(out, effects(vec![], vec![Observation::GaveUp]));
    assert_eq!(s, user(Phase::Idle, None, true, None));
}

// ---------------------------------------------------------------------------
// Work and release, through the shared lock's machinery.
// ---------------------------------------------------------------------------

#[test]
fn work_by_a_writer_uses_the_resource_fenced_with_its_sequencer() {
    let mut s = user(Phase::Held, Some(MINE), true, None);
    let out = run(Knobs::GUID, &mut s, command(Command::Work));
    assert_eq!(
        out,
        effects(vec![], vec![Observation::Used { sequencer: None }])
    );
    let out = run(Knobs::FENCED, &mut s, command(Command::Work));
    assert_eq!(
        out,
        effects(vec![], vec![Observation::Used { sequencer: Some(3) }])
    );
    // A reader reads: nothing the properties follow.
    let mut s = user(Phase::Held, Some("c0-read-0000000003"), true, None);
    s.lock.role = Role::Read;
    let out = run(Knobs::FENCED, &mut s, command(Command::Work));
    assert_eq!(out, nothing());
}

#[test]
fn release_while_held_observes_released_and_deletes() {
    let mut s = user(Phase::Held, Some(MINE), true, None);
    let out = run(Knobs::GUID, &mut s, command(Command::Release));
    assert_eq!(
        out,
        effects(vec![delete_op(MINE)], vec![Observation::Released])
    );
    assert_eq!(s, user(Phase::Releasing, Some(MINE), true, None));
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(delete_op(MINE), Ok(Response::Deleted)),
    );
    assert_eq!(out, nothing());
    assert_eq!(s, user(Phase::Idle, None, true, None));
}

// ---------------------------------------------------------------------------
// Step 4: the revoker.
// ---------------------------------------------------------------------------

#[test]
fn revoke_lists_the_lock_node_with_a_watch() {
    let rl = RevocableLock::new(Knobs::GUID);
    let mut s = fresh();
    let out = run(Knobs::GUID, &mut s, command(Command::Revoke));
    assert_eq!(out, effects(vec![list_op(true)], vec![]));
    assert_eq!(s, revoker(Revoker::Listing));
    assert!(rl.is_busy(&s));
    assert!(rl.is_waiting(&s));
}

#[test]
fn revoker_empty_listing_waits_then_lists_again_on_children_changed() {
    let rl = RevocableLock::new(Knobs::GUID);
    for listing in [vec![], vec!["readme"]] {
        let mut s = revoker(Revoker::Listing);
        let out = run(
            Knobs::GUID,
            &mut s,
            reply(list_op(true), children(&listing)),
        );
        assert_eq!(out, nothing(), "{listing:?}");
        assert_eq!(s, revoker(Revoker::Waiting), "{listing:?}");
        assert!(rl.is_busy(&s));
        assert!(rl.is_waiting(&s));
        let out = run(
            Knobs::GUID,
            &mut s,
            event(EventType::NodeChildrenChanged, Path::new("/lock")),
        );
        assert_eq!(out, effects(vec![list_op(true)], vec![]), "{listing:?}");
        assert_eq!(s, revoker(Revoker::Listing), "{listing:?}");
    }
}

#[test]
fn children_changed_when_the_revoker_is_not_waiting_is_ignored() {
    for r in [Revoker::Idle, Revoker::Listing, asked(&[PRED], 1)] {
        let mut s = revoker(r.clone());
        let out = run(
            Knobs::GUID,
            &mut s,
            event(EventType::NodeChildrenChanged, Path::new("/lock")),
        );
        assert_eq!(out, nothing(), "{r:?}");
        assert_eq!(s, revoker(r.clone()), "{r:?}");
    }
}

#[test]
fn revoker_listing_asks_exactly_the_holders_by_the_shared_lock_rule() {
    let rl = RevocableLock::new(Knobs::GUID);
    // A writer lowest: it alone holds; readers behind it and the later writer
    // do not.
    let mut s = revoker(Revoker::Listing);
    let listing = [
        "c0-write-0000000000",
        "c1-read-0000000001",
        "c2-read-0000000002",
        "c3-write-0000000003",
    ];
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(list_op(true), children(&listing)),
    );
    assert_eq!(out, effects(vec![unlock_op("c0-write-0000000000")], vec![]));
    assert_eq!(s, revoker(asked(&["c0-write-0000000000"], 1)));
    assert!(rl.is_busy(&s));
    assert!(!rl.is_waiting(&s));

    // Readers lowest, in any order: both hold, the writer behind them not.
    let mut s = revoker(Revoker::Listing);
    let listing = [
        "c3-write-0000000003",
        "c2-read-0000000002",
        "c1-read-0000000001",
    ];
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(list_op(true), children(&listing)),
    );
    assert_eq!(
        out,
        effects(
            vec![
                unlock_op("c2-read-0000000002"),
                unlock_op("c1-read-0000000001")
            ],
            vec![]
        )
    );
    assert_eq!(
        s,
        revoker(asked(&["c2-read-0000000002", "c1-read-0000000001"], 2))
    );
}

#[test]
fn revoker_listing_connection_loss_lists_again() {
    let mut s = revoker(Revoker::Listing);
    let out = run(Knobs::GUID, &mut s, reply(list_op(true), lost()));
    assert_eq!(out, effects(vec![list_op(true)], vec![]));
    assert_eq!(s, revoker(Revoker::Listing));
}

#[test]
fn set_data_replies_count_down_and_the_revoker_is_busy_until_all_are_in() {
    let rl = RevocableLock::new(Knobs::GUID);
    let a = "c1-read-0000000001";
    let b = "c2-read-0000000002";
    let mut s = revoker(asked(&[a, b], 2));
    assert!(rl.is_busy(&s));
    let out = run(Knobs::GUID, &mut s, reply(unlock_op(a), set_ok()));
    assert_eq!(out, nothing());
    assert_eq!(s, revoker(asked(&[a, b], 1)));
    assert!(rl.is_busy(&s));
    // A node already gone counts too.
    let out = run(Knobs::GUID, &mut s, reply(unlock_op(b), nonode()));
    assert_eq!(out, nothing());
    assert_eq!(s, revoker(asked(&[a, b], 0)));
    assert!(!rl.is_busy(&s));
    assert!(!rl.is_waiting(&s));
}

#[test]
fn set_data_connection_loss_writes_again() {
    let a = "c1-read-0000000001";
    let mut s = revoker(asked(&[a], 1));
    let out = run(Knobs::GUID, &mut s, reply(unlock_op(a), lost()));
    assert_eq!(out, effects(vec![unlock_op(a)], vec![]));
    assert_eq!(s, revoker(asked(&[a], 1)));
}

#[test]
fn force_deletes_every_asked_node_and_counts_down_their_replies() {
    let rl = RevocableLock::new(Knobs::GUID);
    let a = "c1-read-0000000001";
    let b = "c2-read-0000000002";
    let mut s = revoker(asked(&[a, b], 0));
    let out = run(Knobs::GUID, &mut s, command(Command::Force));
    assert_eq!(out, effects(vec![delete_op(a), delete_op(b)], vec![]));
    assert_eq!(s, revoker(Revoker::Forcing { pending: 2 }));
    assert!(rl.is_busy(&s));
    let out = run(
        Knobs::GUID,
        &mut s,
        reply(delete_op(a), Ok(Response::Deleted)),
    );
    assert_eq!(out, nothing());
    assert_eq!(s, revoker(Revoker::Forcing { pending: 1 }));
    assert!(rl.is_busy(&s));
    // Released by its holder already: NONODE counts too.
    let out = run(Knobs::GUID, &mut s, reply(delete_op(b), nonode()));
    assert_eq!(out, nothing());
    assert_eq!(s, revoker(Revoker::Forcing { pending: 0 }));
    assert!(!rl.is_busy(&s));
}

#[test]
fn force_delete_connection_loss_deletes_again() {
    let a = "c1-read-0000000001";
    let mut s = revoker(Revoker::Forcing { pending: 1 });
    let out = run(Knobs::GUID, &mut s, reply(delete_op(a), lost()));
    assert_eq!(out, effects(vec![delete_op(a)], vec![]));
    assert_eq!(s, revoker(Revoker::Forcing { pending: 1 }));
}

#[test]
fn force_without_having_asked_does_nothing() {
    for r in [Revoker::Idle, Revoker::Listing, Revoker::Waiting] {
        let mut s = revoker(r.clone());
        let out = run(Knobs::GUID, &mut s, command(Command::Force));
        assert_eq!(out, nothing(), "{r:?}");
        assert_eq!(s, revoker(r.clone()), "{r:?}");
    }
}

#[test]
fn init_claims_and_directory() {
    let rl = RevocableLock::new(Knobs::GUID);
    let s = rl.init(ME);
    assert_eq!(s.lock.phase, Phase::Idle);
    assert_eq!(s.lock.node, None);
    assert!(!s.watching_data);
    assert_eq!(s.asked, None);
    assert_eq!(s.revoker, Revoker::Idle);
    assert!(!rl.is_busy(&s));
    assert!(!rl.is_waiting(&s));
    assert_eq!(rl.directory(), &Path::new("/lock"));
    let s = user(Phase::Held, Some(MINE), true, None);
    assert!(rl.claims(&s, MINE));
    assert!(!rl.claims(&s, PRED));
}

// ---------------------------------------------------------------------------
// The shared lock.
// ---------------------------------------------------------------------------

fn shared(phase: Phase, role: Role, node: Option<&str>) -> shared_lock::State {
    shared_lock::State {
        phase,
        node: node.map(Arc::from),
        ..shared_lock::State::new(role)
    }
}

fn run_shared(state: &mut shared_lock::State, input: Input<shared_lock::Command>) -> Effects {
    let mut out = Effects::default();
    SharedLock::new(shared_lock::Knobs::GUID).handle(ME, state, input, &mut out);
    out
}

#[test]
fn shared_read_and_write_create_their_kinds_of_node() {
    let lock = SharedLock::new(shared_lock::Knobs::GUID);
    for (cmd, prefix, role) in [
        (shared_lock::Command::Read, "c0-read-", Role::Read),
        (shared_lock::Command::Write, "c0-write-", Role::Write),
    ] {
        let mut s = lock.init(ME);
        let out = run_shared(&mut s, Input::Command(cmd));
        assert_eq!(out, effects(vec![create_op(prefix)], vec![]), "{cmd:?}");
        assert_eq!(s, shared(Phase::Creating, role, None), "{cmd:?}");
    }
}

#[test]
fn shared_created_node_lists_without_reading_it() {
    let mut s = shared(Phase::Creating, Role::Read, None);
    let out = run_shared(
        &mut s,
        Input::Reply {
            op: create_op("c0-read-"),
            result: created("c0-read-0000000003"),
        },
    );
    assert_eq!(out, effects(vec![list_op(false)], vec![]));
    assert_eq!(
        s,
        shared(Phase::Listing, Role::Read, Some("c0-read-0000000003"))
    );
}

#[test]
fn shared_work_by_a_reader_observes_nothing_by_a_writer_uses() {
    let mut s = shared(Phase::Held, Role::Read, Some("c0-read-0000000003"));
    let out = run_shared(&mut s, Input::Command(shared_lock::Command::Work));
    assert_eq!(out, nothing());
    let mut s = shared(Phase::Held, Role::Write, Some(MINE));
    let out = run_shared(&mut s, Input::Command(shared_lock::Command::Work));
    assert_eq!(
        out,
        effects(vec![], vec![Observation::Used { sequencer: None }])
    );
}

/// Creates `dir` and every parent it lacks.
fn mkdirs(store: &mut Store, session: i64, dir: &Path) {
    let mut paths = vec![dir.clone()];
    while let Some(parent) = paths.last().unwrap().parent().filter(|p| !p.is_root()) {
        paths.push(parent);
    }
    for path in paths.into_iter().rev() {
        store.apply(
            session,
            &Op::Create {
                path,
                data: None,
                mode: CreateMode::Persistent,
            },
        );
    }
}

/// The server's tree with `nodes` created sequential in `dir`, each from
/// its prefix with the counter at its number, in the order given.
fn tree(dir: &Path, nodes: &[(&str, i32)]) -> Store {
    let mut store = Store::default();
    let session = store.open_session();
    let create = |path: Path, mode| Op::Create {
        path,
        data: None,
        mode,
    };
    mkdirs(&mut store, session, dir);
    for (prefix, number) in nodes {
        assert!(store.start_sequence(dir, *number));
        let applied = store.apply(
            session,
            &create(dir.child(prefix), CreateMode::PersistentSequential),
        );
        assert!(applied.result.is_ok(), "{applied:?}");
    }
    store
}

#[test]
fn shared_released_together_only_for_a_reader_no_writer_precedes() {
    let lock = SharedLock::new(shared_lock::Knobs::GUID);
    let dir = lock.directory().clone();
    let kids = tree(
        &dir,
        &[
            ("c1-read-", 1),
            ("c2-read-", 2),
            ("c3-write-", 3),
            ("c4-read-", 4),
        ],
    );
    // A waiting reader with no write- node below: released.
    let r = shared(
        watching("c0-write-0000000000"),
        Role::Read,
        Some("c2-read-0000000002"),
    );
    assert!(lock.released_together(&r, &kids));
    // A writer, even lowest: never.
    let w = shared(
        watching("c2-read-0000000002"),
        Role::Write,
        Some("c3-write-0000000003"),
    );
    assert!(!lock.released_together(&w, &kids));
    let lowest_writer = shared(Phase::Listing, Role::Write, Some("c1-write-0000000001"));
    assert!(!lock.released_together(
        &lowest_writer,
        &tree(&dir, &[("c1-write-", 1), ("c2-read-", 2)])
    ));
    // A reader still behind a writer: no.
    let behind = shared(
        watching("c3-write-0000000003"),
        Role::Read,
        Some("c4-read-0000000004"),
    );
    assert!(!lock.released_together(&behind, &kids));
    // A reader without a node, or whose node is not among the children: no.
    assert!(!lock.released_together(&shared(Phase::Creating, Role::Read, None), &kids));
    let gone = shared(Phase::Listing, Role::Read, Some("c9-read-0000000009"));
    assert!(!lock.released_together(&gone, &kids));
    // The revocable lock says the same through its own state.
    let rl = RevocableLock::new(Knobs::GUID);
    let mut rs = fresh();
    rs.lock = r.clone();
    assert!(rl.released_together(&rs, &kids));
    rs.lock = behind.clone();
    assert!(!rl.released_together(&rs, &kids));
}

/// Past a wrap of a 3-bit counter, a writer created before a reader may
/// carry a larger number (3, then -4): by the reference rule, on the numbers
/// the server gave, no writer precedes the reader, so a deletion that wakes
/// it releases it with the other readers (that it then reads beside an older
/// writer is `mutual_exclusion`'s to judge). Not so with the writer's
/// number below the reader's.
#[test]
fn shared_released_together_reads_the_numbers_the_server_gave() {
    let lock = SharedLock::new(shared_lock::Knobs::GUID);
    let dir = lock.directory().clone();
    let mut store = Store::new(StoreConfig {
        sequence_bits: 3,
        ..StoreConfig::default()
    });
    let session = store.open_session();
    mkdirs(&mut store, session, &dir);
    assert!(store.start_sequence(&dir, 3));
    for prefix in ["c2-write-", "c0-read-"] {
        store.apply(
            session,
            &Op::Create {
                path: dir.child(prefix),
                data: None,
                mode: CreateMode::PersistentSequential,
            },
        );
    }
    let names: Vec<String> = store.children(&dir).iter().map(|n| n.to_string()).collect();
    assert!(
        names.contains(&"c0-read--000000004".to_string()),
        "{names:?}"
    );
    let reader = shared(
        watching("c2-write-0000000003"),
        Role::Read,
        Some("c0-read--000000004"),
    );
    assert!(lock.released_together(&reader, &store));
    let behind = shared(
        watching("c2-write-0000000003"),
        Role::Read,
        Some("c4-read-0000000004"),
    );
    assert!(!lock.released_together(&behind, &tree(&dir, &[("c2-write-", 3), ("c4-read-", 4)])));
}

// ---------------------------------------------------------------------------
// Scripted interleavings through the whole world.
// ---------------------------------------------------------------------------

fn revocable_world(variant: Knobs, scripts: Vec<Vec<Command>>) -> World<RevocableLock> {
    World::new(
        RevocableLock::new(variant),
        scripts,
        <RevocableLock as Catalogued>::properties,
    )
}

fn node_data(state: &WorldState<State>, name: &str) -> Option<Data> {
    state.net.store.data(&at(name)).cloned()
}

/// c1 revokes while the lock node is empty and waits; c0 creates its node,
/// which wakes the revoker; the revoker writes `unlock` to it before c0's
/// first `getData()` is served. Returns the world and the state just after
/// c0's create reply was delivered and its getData and listing served.
fn revoke_before_watch(variant: Knobs) -> (World<RevocableLock>, WorldState<State>) {
    let world = revocable_world(variant, vec![vec![Command::Write], vec![Command::Revoke]]);
    let init = world.init_states().remove(0);
    let state = walk(
        &world,
        init,
        &[
            // The revoker finds nobody and waits with a child watch.
            Action::Invoke(1),
            Action::Serve(1),
            Action::Deliver(1),
        ],
    );
    assert_eq!(state.processes[1].recipe.revoker, Revoker::Waiting);
    let state = walk(
        &world,
        state,
        &[
            // c0's create is applied; the revoker is told.
            Action::Invoke(0),
            Action::Serve(0),
            Action::Deliver(1),
            Action::Serve(1),
            Action::Deliver(1),
        ],
    );
    assert_eq!(
        state.processes[1].recipe.revoker,
        asked(&["c0-write-0000000000"], 1)
    );
    // The revoker's setData lands before c0 has read its node.
    let state = walk(&world, state, &[Action::Serve(1), Action::Deliver(1)]);
    assert_eq!(
        state.processes[1].recipe.revoker,
        asked(&["c0-write-0000000000"], 0)
    );
    assert_eq!(
        node_data(&state, "c0-write-0000000000"),
        Some(data(b"unlock"))
    );
    // Now c0 learns its node: getData first, then the listing.
    let state = act(&world, &state, Action::Deliver(0));
    assert_eq!(state.processes[0].recipe.lock.phase, Phase::Listing);
    assert_eq!(
        state.net.links[0]
            .up
            .iter()
            .map(|request| request.op.clone())
            .collect::<Vec<_>>(),
        vec![read_op("c0-write-0000000000"), list_op(false)]
    );
    let state = walk(&world, state, &[Action::Serve(0), Action::Serve(0)]);
    (world, state)
}

#[test]
fn world_watch_only_misses_a_revoke_written_before_its_watch() {
    let (world, state) = revoke_before_watch(Knobs::WATCH_ONLY);
    // The data reply (unlock, ignored), then the listing: c0 holds.
    let state = walk(&world, state, &[Action::Deliver(0), Action::Deliver(0)]);
    let c0 = &state.processes[0].recipe;
    assert_eq!(c0.lock.phase, Phase::Held);
    assert_eq!(c0.lock.node.as_deref(), Some("c0-write-0000000000"));
    assert_eq!(c0.asked, None);
    assert!(state.history.holding[0].is_some());
    assert!(world.is_quiescent(&state));
    assert_eq!(
        node_data(&state, "c0-write-0000000000"),
        Some(data(b"unlock"))
    );
    assert!(!revocable_lock::no_missed_revoke(&world, &state));
    // It never read the request, so by revoke_honoured it is not at fault.
    assert!(revocable_lock::revoke_honoured(&world, &state));
    assert!(!revocable_lock::revoke_before_watch(&world, &state));
}

#[test]
fn world_guid_honours_a_revoke_written_before_its_watch() {
    let (world, state) = revoke_before_watch(Knobs::GUID);
    // The data reply says unlock: c0 abandons before it holds.
    let state = act(&world, &state, Action::Deliver(0));
    let c0 = &state.processes[0].recipe;
    assert_eq!(c0.lock.phase, Phase::Abandoning);
    assert_eq!(c0.asked, Some(Asked::BeforeWatch));
    assert!(revocable_lock::revoke_before_watch(&world, &state));
    let state = settle(&world, state);
    let c0 = &state.processes[0].recipe;
    assert_eq!(c0.lock.phase, Phase::Idle);
    assert_eq!(c0.lock.node, None);
    assert_eq!(state.history.holding, vec![None, None]);
    assert_eq!(state.history.acquisitions, 0);
    assert!(state.net.store.children(&Path::new("/lock")).is_empty());
    assert!(world.is_quiescent(&state));
    assert!(revocable_lock::no_missed_revoke(&world, &state));
    assert!(revocable_lock::revoke_honoured(&world, &state));
    assert!(properties::no_orphan_no_deadlock(&world, &state));
}

fn shared_world(scripts: Vec<Vec<shared_lock::Command>>) -> World<SharedLock> {
    World::new(
        SharedLock::new(shared_lock::Knobs::GUID),
        scripts,
        <SharedLock as Catalogued>::properties,
    )
}

#[test]
fn world_readers_released_together_by_a_writer_are_no_herd_and_share() {
    use shared_lock::Command::{Read, Release, Write};
    let world = shared_world(vec![
        vec![Write, Release],
        vec![Read, Release],
        vec![Read, Release],
    ]);
    let init = world.init_states().remove(0);
    // c0 takes the write lock.
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
    assert_eq!(
        state.processes[0].recipe,
        shared(Phase::Held, Role::Write, Some("c0-write-0000000000"))
    );
    // Both readers queue behind it and watch it.
    let mut state = state;
    for (client, node) in [(1, "c1-read-0000000001"), (2, "c2-read-0000000002")] {
        state = walk(
            &world,
            state,
            &[
                Action::Invoke(client),
                Action::Serve(client),
                Action::Deliver(client),
                Action::Serve(client),
                Action::Deliver(client),
                Action::Serve(client),
                Action::Deliver(client),
            ],
        );
        assert_eq!(
            state.processes[client].recipe,
            shared(watching("c0-write-0000000000"), Role::Read, Some(node))
        );
    }
    assert!(!state.history.woken);
    // c0 releases: its delete wakes both readers at once.
    let state = walk(&world, state, &[Action::Invoke(0), Action::Serve(0)]);
    assert!(state.history.woken);
    assert!(!state.history.herd);
    assert!(properties::herd_avoidance(&world, &state));
    assert!(!properties::readers_share(&world, &state));
    // Both list again and hold together.
    let state = walk(
        &world,
        state,
        &[
            Action::Deliver(1),
            Action::Serve(1),
            Action::Deliver(1),
            Action::Deliver(2),
            Action::Serve(2),
            Action::Deliver(2),
        ],
    );
    assert_eq!(
        state.processes[1].recipe,
        shared(Phase::Held, Role::Read, Some("c1-read-0000000001"))
    );
    assert_eq!(
        state.processes[2].recipe,
        shared(Phase::Held, Role::Read, Some("c2-read-0000000002"))
    );
    assert!(properties::readers_share(&world, &state));
    assert!(properties::writer_exclusion(&world, &state));
}

/// REGRESSION: a revoker whose listing (with its child watch) was served but
/// not yet answered is `Listing`, which the revocable lock reports as waiting.
/// A holder's release then notifies both the next writer (its exists watch)
/// and the revoker (its child watch). Only the writer waits for the lock, so
/// the herd property must not count the revoker (`counts_in_herd`); it did.
#[test]
fn world_release_while_the_revoker_lists_is_no_herd() {
    let world = revocable_world(
        Knobs::GUID,
        vec![
            vec![Command::Write, Command::Release],
            vec![Command::Write],
            vec![Command::Revoke],
        ],
    );
    let init = world.init_states().remove(0);
    // c0 creates, reads its node, lists and holds.
    let state = walk(&world, init, &[Action::Invoke(0)]);
    let state = settle(&world, state);
    assert_eq!(state.processes[0].recipe.lock.phase, Phase::Held);
    // c1 queues behind it and watches it.
    let state = walk(&world, state, &[Action::Invoke(1)]);
    let state = settle(&world, state);
    assert_eq!(
        state.processes[1].recipe.lock.phase,
        watching("c0-write-0000000000")
    );
    // The revoker's listing is served (its child watch set); its reply waits.
    let state = walk(&world, state, &[Action::Invoke(2), Action::Serve(2)]);
    assert_eq!(state.processes[2].recipe.revoker, Revoker::Listing);
    assert!(!state.history.woken);
    // c0 releases on its own: the delete wakes c1 (and fires c2's watch).
    let state = walk(&world, state, &[Action::Invoke(0), Action::Serve(0)]);
    assert!(state.history.woken);
    assert!(!state.history.herd);
    assert!(properties::herd_avoidance(&world, &state));
}
