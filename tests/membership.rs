//! The group membership's actor (`models/membership.rs`): one test per branch
//! of `Membership::handle`, with hand-built inputs and the exact requests and
//! state; `Recipe::served`'s join fact; then walks through the world that pin
//! the properties' readings.

use std::sync::Arc;

use stateright::Model;

use zoocheck::catalogued::Catalogued;
use zoocheck::client::{Library, SessionEvent};
use zoocheck::faults::{Fault, FaultBudget, Kind};
use zoocheck::models::membership::{
    member_sees_another, views_follow_the_group, views_list_only_joined, Command, Created, Group,
    Knobs, Membership, Phase, State,
};
use zoocheck::recipe::{Effects, Incarnation, Input, Recipe};
use zoocheck::store::{
    CreateMode, ErrorCode, EventType, Op, OpResult, Path, Response, Stat, WatchEvent,
};
use zoocheck::world::{Action, World, WorldState};

mod actor;
use actor::*;

const ME: Incarnation = Incarnation {
    client: 1,
    restarts: 0,
};

fn run(variant: Knobs, state: &mut State, input: Input<Command>) -> Effects<Created> {
    let mut out = Effects::default();
    Membership::new(variant).handle(ME, state, input, &mut out);
    out
}

fn st(phase: Phase, view: &[&str], dropped: bool) -> State {
    State {
        phase,
        view: view.iter().map(|name| Arc::from(*name)).collect(),
        dropped,
        renewals: 0,
    }
}

fn create(mode: CreateMode) -> Op {
    Op::Create {
        path: Path::new("/group/c1"),
        data: None,
        mode,
    }
}

fn list(watch: bool) -> Op {
    Op::GetChildren {
        path: Path::new("/group"),
        watch,
    }
}

fn created() -> OpResult {
    Ok(Response::Created {
        path: Path::new("/group/c1"),
        stat: Stat::default(),
    })
}

fn changed() -> Input<Command> {
    Input::Watch(WatchEvent {
        kind: EventType::NodeChildrenChanged,
        path: Path::new("/group"),
    })
}

fn sends(requests: Vec<Op>) -> Effects<Created> {
    actor::effects(requests, vec![])
}

#[test]
fn a_renewed_session_joins_again_under_a_name_of_that_session() {
    let renewed = |name: &str| Op::Create {
        path: Path::new(&format!("/group/{name}")),
        data: None,
        mode: CreateMode::Ephemeral,
    };
    // The reference names its node after the session too: c1s1, then c1s2.
    let mut s = st(Phase::Dead, &[], true);
    let out = run(
        Knobs::REFERENCE,
        &mut s,
        Input::Session(SessionEvent::SyncConnected),
    );
    assert_eq!(out, sends(vec![renewed("c1s1")]));
    assert_eq!(
        s,
        State {
            renewals: 1,
            ..st(Phase::Creating, &[], true)
        }
    );
    s.phase = Phase::Dead;
    let out = run(
        Knobs::REFERENCE,
        &mut s,
        Input::Session(SessionEvent::SyncConnected),
    );
    assert_eq!(out, sends(vec![renewed("c1s2")]));
    assert_eq!(s.renewals, 2);
    // kazoo's Party keeps its process's name, which the old session's node
    // may still bear.
    let mut s = st(Phase::Dead, &[], false);
    let out = run(
        Knobs::PROCESS_GUID,
        &mut s,
        Input::Session(SessionEvent::SyncConnected),
    );
    assert_eq!(out, sends(vec![renewed("c1")]));
    // A reconnect of a live session is no renewal.
    let mut s = st(Phase::Member, &["c1"], false);
    let out = run(
        Knobs::REFERENCE,
        &mut s,
        Input::Session(SessionEvent::SyncConnected),
    );
    assert_eq!(out, sends(vec![]));
    assert_eq!(s, st(Phase::Member, &["c1"], false));
}

#[test]
fn join_creates_an_ephemeral_node_named_by_the_guid() {
    let mut s = st(Phase::Idle, &[], false);
    let out = run(Knobs::REFERENCE, &mut s, Input::Command(Command::Join));
    assert_eq!(out, sends(vec![create(CreateMode::Ephemeral)]));
    assert_eq!(s, st(Phase::Creating, &[], false));
    // Joining again changes nothing.
    let out = run(Knobs::REFERENCE, &mut s, Input::Command(Command::Join));
    assert_eq!(out, sends(vec![]));
    // The persistent variant's node outlives its session.
    let mut s = st(Phase::Idle, &[], false);
    let out = run(Knobs::PERSISTENT, &mut s, Input::Command(Command::Join));
    assert_eq!(out, sends(vec![create(CreateMode::Persistent)]));
}

#[test]
fn an_optimistic_member_lists_itself_before_its_create_is_confirmed() {
    let mut s = st(Phase::Idle, &[], false);
    run(Knobs::OPTIMISTIC, &mut s, Input::Command(Command::Join));
    assert_eq!(s, st(Phase::Creating, &["c1"], false));
}

#[test]
fn a_confirmed_create_or_nodeexists_lists_the_group_with_a_watch() {
    for result in [created(), Err(ErrorCode::NodeExists)] {
        let mut s = st(Phase::Creating, &[], false);
        let out = run(
            Knobs::REFERENCE,
            &mut s,
            reply(create(CreateMode::Ephemeral), result),
        );
        assert_eq!(out, sends(vec![list(true)]));
        assert_eq!(s, st(Phase::Member, &[], false));
    }
}

#[test]
fn a_lost_request_is_sent_again() {
    let lost = Err(ErrorCode::ConnectionLoss);
    let mut s = st(Phase::Creating, &[], false);
    let out = run(
        Knobs::REFERENCE,
        &mut s,
        reply(create(CreateMode::Ephemeral), lost.clone()),
    );
    assert_eq!(out, sends(vec![create(CreateMode::Ephemeral)]));
    let mut s = st(Phase::Member, &[], false);
    let out = run(Knobs::REFERENCE, &mut s, reply(list(true), lost));
    assert_eq!(out, sends(vec![list(true)]));
}

#[test]
fn a_listing_becomes_the_sorted_view_and_a_removed_name_is_a_leave_seen() {
    let mut s = st(Phase::Member, &[], false);
    run(
        Knobs::REFERENCE,
        &mut s,
        reply(list(true), children(&["c2", "c1", "c0"])),
    );
    assert_eq!(s, st(Phase::Member, &["c0", "c1", "c2"], false));
    run(
        Knobs::REFERENCE,
        &mut s,
        reply(list(true), children(&["c1", "c0"])),
    );
    assert_eq!(s, st(Phase::Member, &["c0", "c1"], true));
}

#[test]
fn a_notification_lists_again_with_a_watch_unless_one_shot() {
    let mut s = st(Phase::Member, &["c1"], false);
    assert_eq!(
        run(Knobs::REFERENCE, &mut s, changed()),
        sends(vec![list(true)])
    );
    assert_eq!(
        run(Knobs::ONE_SHOT, &mut s, changed()),
        sends(vec![list(false)])
    );
    // Before it is a member, or after, a notification is nothing to it.
    let mut s = st(Phase::Creating, &[], false);
    assert_eq!(run(Knobs::REFERENCE, &mut s, changed()), sends(vec![]));
}

#[test]
fn a_member_whose_session_ends_is_out_and_forgets_its_view() {
    let mut s = st(Phase::Member, &["c0", "c1"], false);
    run(
        Knobs::REFERENCE,
        &mut s,
        Input::Session(SessionEvent::Expired),
    );
    assert_eq!(s, st(Phase::Dead, &[], false));
    let mut s = st(Phase::Member, &["c0", "c1"], false);
    run(
        Knobs::REFERENCE,
        &mut s,
        reply(list(true), Err(ErrorCode::SessionExpired)),
    );
    assert_eq!(s, st(Phase::Dead, &[], false));
    // A disconnection changes nothing: the library sets the watch again.
    let mut s = st(Phase::Member, &["c0", "c1"], false);
    let out = run(
        Knobs::REFERENCE,
        &mut s,
        Input::Session(SessionEvent::Disconnected),
    );
    assert_eq!(
        (out, s),
        (sends(vec![]), st(Phase::Member, &["c0", "c1"], false))
    );
}

#[test]
fn the_server_creating_a_member_node_is_a_join() {
    let recipe = Membership::new(Knobs::REFERENCE);
    let op = create(CreateMode::Ephemeral);
    assert_eq!(
        recipe.served(&op, &created()),
        Some(Created {
            name: Arc::from("c1")
        })
    );
    assert_eq!(recipe.served(&op, &Err(ErrorCode::NodeExists)), None);
    assert_eq!(recipe.served(&list(true), &children(&["c1"])), None);
}

fn world(variant: Knobs, clients: usize, budget: FaultBudget) -> World<Membership> {
    World::new(
        Membership::new(variant),
        vec![vec![Command::Join]; clients],
        <Membership as Catalogued>::properties,
    )
    .with_budget(budget)
}

/// Takes progress actions, the lowest first, until the world is quiescent.
fn settle(
    world: &World<Membership>,
    mut state: WorldState<State, Group>,
) -> WorldState<State, Group> {
    loop {
        let mut enabled = Vec::new();
        world.actions(&state, &mut enabled);
        let Some(action) = enabled.into_iter().find(Action::is_progress) else {
            return state;
        };
        state = world.step(&state, &action).unwrap();
    }
}

#[test]
fn world_a_crashed_member_is_dropped_from_the_views_unless_its_node_is_persistent() {
    let crash = FaultBudget::of(Kind::Crash, 1);
    for (variant, follows) in [(Knobs::REFERENCE, true), (Knobs::PERSISTENT, false)] {
        let world = world(variant, 2, crash.clone());
        let state = settle(&world, world.init_states().remove(0));
        assert_eq!(state.processes[0].recipe.view.len(), 2);
        assert!(views_follow_the_group(&world, &state));
        let state = act(
            &world,
            &state,
            Action::Fault(Fault::new(Kind::Crash, 1).applied(0)),
        );
        let state = settle(&world, state);
        assert!(world.is_quiescent(&state));
        assert_eq!(
            views_follow_the_group(&world, &state),
            follows,
            "{variant:?}"
        );
        assert!(views_list_only_joined(&world, &state));
    }
}

#[test]
fn world_an_optimistic_view_lists_a_process_before_it_joined() {
    let world = world(Knobs::OPTIMISTIC, 1, FaultBudget::default());
    let state = act(&world, &world.init_states().remove(0), Action::Invoke(0));
    assert!(!views_list_only_joined(&world, &state));
    let state = act(&world, &state, Action::Serve(0));
    assert!(views_list_only_joined(&world, &state));
    let first = Incarnation {
        client: 0,
        restarts: 0,
    };
    assert_eq!(
        state.history.log.joins.processes().collect::<Vec<_>>(),
        [first]
    );
    assert_eq!(state.history.log.creator("c0"), Some(0));
    assert_eq!(state.history.log.creator("c1"), None);
}

/// A renewed member's view read by who the server created each node for,
/// not by the names: `optimistic` lists `c0s1` as it sends that session's
/// create, before the server has created it (the process `c0` joined in its
/// first session, so reading the name back as its process once missed this).
#[test]
fn world_a_renewed_member_is_judged_by_the_nodes_the_server_created() {
    for variant in [Knobs::OPTIMISTIC, Knobs::REFERENCE] {
        let world = world(
            variant,
            1,
            FaultBudget::of(Kind::Disconnect, 1).with(Kind::Abandon, 1),
        )
        .with_library(Library::CURATOR5);
        let joined = settle(&world, world.init_states().remove(0));
        assert_eq!(joined.processes[0].recipe.view, [Arc::from("c0")]);
        let mut state = joined;
        for action in [
            Action::Fault(Fault::new(Kind::Disconnect, 0)),
            Action::Deliver(0),
            Action::Fault(Fault::new(Kind::Abandon, 0)),
            Action::Renew(0),
        ] {
            state = act(&world, &state, action);
        }
        let optimistic = variant == Knobs::OPTIMISTIC;
        if optimistic {
            assert_eq!(state.processes[0].recipe.view, [Arc::from("c0s1")]);
        }
        assert_eq!(
            views_list_only_joined(&world, &state),
            !optimistic,
            "{variant:?}"
        );
        let state = settle(&world, state);
        assert!(views_list_only_joined(&world, &state), "{variant:?}");
        assert_eq!(state.history.log.creator("c0s1"), Some(0));
    }
}

/// Another member is a node the server created for another client: one
/// member alone sees none, two see each other.
#[test]
fn world_a_member_sees_another_by_who_the_server_created_it_for() {
    for (clients, sees) in [(1, false), (2, true)] {
        let world = world(Knobs::REFERENCE, clients, FaultBudget::default());
        let state = settle(&world, world.init_states().remove(0));
        assert_eq!(member_sees_another(&world, &state), sees, "{clients}");
    }
}
