//! The configuration reader and writer (`models/configuration.rs`): one test
//! per branch of `Configuration::handle`, then a walk through the world that
//! pins the property's reading.

use stateright::Model;

use zoocheck::catalogued::Catalogued;
use zoocheck::client::SessionEvent;
use zoocheck::models::configuration::{
    readers_hold_the_last_value, Command, Configuration, Knobs, Phase, State,
};
use zoocheck::recipe::{Effects, Incarnation, Input, Recipe};
use zoocheck::store::{
    data, ErrorCode, EventType, Op, OpResult, Path, Response, Stat, WatchEvent, WatcherType,
    ANY_VERSION,
};
use zoocheck::world::{Action, World, WorldState};

mod actor;
use actor::*;

const ME: Incarnation = Incarnation {
    client: 1,
    restarts: 0,
};

fn run(variant: Knobs, state: &mut State, input: Input<Command>) -> Effects {
    let mut out = Effects::default();
    Configuration::new(variant).handle(ME, state, input, &mut out);
    out
}

fn st(phase: Phase, written: u8, value: Option<u8>, updated: bool) -> State {
    State {
        phase,
        written,
        value,
        updated,
        interrupted: false,
        stopped: false,
    }
}

fn get(watch: bool) -> Op {
    Op::GetData {
        path: Path::new("/config"),
        watch,
    }
}

fn exists() -> Op {
    Op::Exists {
        path: Path::new("/config"),
        watch: true,
    }
}

fn set(value: &str) -> Op {
    Op::SetData {
        path: Path::new("/config"),
        data: data(value.as_bytes()),
        version: ANY_VERSION,
    }
}

fn value(bytes: Option<&str>) -> OpResult {
    Ok(Response::Data {
        data: bytes.and_then(|b| data(b.as_bytes())),
        stat: Stat::default(),
    })
}

fn changed() -> Input<Command> {
    Input::Watch(WatchEvent {
        kind: EventType::NodeDataChanged,
        path: Path::new("/config"),
    })
}

fn sends(requests: Vec<Op>) -> Effects {
    actor::effects(requests, vec![])
}

#[test]
fn a_writer_writes_the_next_value_and_again_after_a_lost_reply() {
    let mut s = st(Phase::Idle, 0, None, false);
    let out = run(Knobs::REFERENCE, &mut s, Input::Command(Command::Write));
    assert_eq!(
        (out, &s),
        (sends(vec![set("1")]), &st(Phase::Writing, 1, None, false))
    );
    let out = run(
        Knobs::REFERENCE,
        &mut s,
        reply(set("1"), Err(ErrorCode::ConnectionLoss)),
    );
    assert_eq!(out, sends(vec![set("1")]));
    let ok = Ok(Response::SetData {
        stat: Stat::default(),
    });
    run(Knobs::REFERENCE, &mut s, reply(set("1"), ok));
    assert_eq!(s, st(Phase::Idle, 1, None, false));
    let out = run(Knobs::REFERENCE, &mut s, Input::Command(Command::Write));
    assert_eq!(out, sends(vec![set("2")]));
}

#[test]
fn a_reader_reads_with_a_watch_as_its_variant_does() {
    for (variant, requests) in [
        (Knobs::REFERENCE, vec![get(true)]),
        (Knobs::ONE_SHOT, vec![get(true)]),
        (Knobs::READ_THEN_WATCH, vec![get(false), exists()]),
    ] {
        let mut s = st(Phase::Idle, 0, None, false);
        let out = run(variant, &mut s, Input::Command(Command::Read));
        assert_eq!(out, sends(requests), "{variant:?}");
        assert_eq!(s.phase, Phase::Reading);
    }
}

#[test]
fn a_notification_reads_again_with_a_watch_unless_one_shot() {
    for (variant, requests) in [
        (Knobs::REFERENCE, vec![get(true)]),
        (Knobs::ONE_SHOT, vec![get(false)]),
        (Knobs::READ_THEN_WATCH, vec![get(false), exists()]),
    ] {
        let mut s = st(Phase::Holding, 0, Some(0), false);
        assert_eq!(
            run(variant, &mut s, changed()),
            sends(requests),
            "{variant:?}"
        );
    }
    // A reader still reading waits for its answer.
    let mut s = st(Phase::Reading, 0, None, false);
    assert_eq!(run(Knobs::REFERENCE, &mut s, changed()), sends(vec![]));
}

#[test]
fn a_read_holds_its_value_and_a_new_one_is_an_update() {
    let mut s = st(Phase::Reading, 0, None, false);
    run(Knobs::REFERENCE, &mut s, reply(get(true), value(None)));
    assert_eq!(s, st(Phase::Holding, 0, Some(0), false));
    s.phase = Phase::Reading;
    run(Knobs::REFERENCE, &mut s, reply(get(true), value(Some("0"))));
    assert_eq!(s, st(Phase::Holding, 0, Some(0), false), "the same value");
    s.phase = Phase::Reading;
    run(Knobs::REFERENCE, &mut s, reply(get(true), value(Some("2"))));
    assert_eq!(s, st(Phase::Holding, 0, Some(2), true));
    let out = run(
        Knobs::REFERENCE,
        &mut s,
        reply(get(true), Err(ErrorCode::ConnectionLoss)),
    );
    assert_eq!(out, sends(vec![get(true)]));
}

#[test]
fn a_reader_whose_session_ends_is_out() {
    let mut s = st(Phase::Holding, 0, Some(1), false);
    run(
        Knobs::REFERENCE,
        &mut s,
        Input::Session(SessionEvent::Expired),
    );
    assert_eq!(s.phase, Phase::Dead);
    let mut s = st(Phase::Reading, 0, Some(1), false);
    run(
        Knobs::REFERENCE,
        &mut s,
        reply(get(true), Err(ErrorCode::SessionExpired)),
    );
    assert_eq!(s.phase, Phase::Dead);
    let mut s = st(Phase::Holding, 0, Some(1), false);
    run(
        Knobs::REFERENCE,
        &mut s,
        Input::Session(SessionEvent::Disconnected),
    );
    assert_eq!(s, st(Phase::Holding, 0, Some(1), false));
}

fn world(variant: Knobs) -> World<Configuration> {
    World::new(
        Configuration::new(variant),
        vec![vec![Command::Write], vec![Command::Read]],
        <Configuration as Catalogued>::properties,
    )
}

fn walk(world: &World<Configuration>, actions: &[Action]) -> WorldState<State> {
    let mut state = world.init_states().remove(0);
    for action in actions {
        let mut enabled = Vec::new();
        world.actions(&state, &mut enabled);
        assert!(enabled.contains(action), "{action:?} is not enabled");
        state = world.step(&state, action).unwrap();
    }
    state
}

#[test]
fn world_a_write_between_the_read_and_the_watch_is_missed_only_when_they_are_apart() {
    use Action::*;
    // The reader's read is served, then the write, then (read_then_watch)
    // its exists: the watch comes too late.
    let flawed = world(Knobs::READ_THEN_WATCH);
    let state = walk(
        &flawed,
        &[
            Invoke(0),
            Invoke(1),
            Serve(1),
            Serve(0),
            Deliver(0),
            Deliver(1),
            Serve(1),
            Deliver(1),
        ],
    );
    assert!(flawed.is_quiescent(&state));
    assert_eq!(state.processes[1].recipe.value, Some(0));
    assert!(!readers_hold_the_last_value(&flawed, &state));
    // The same order with the watch set by the read: notified, reads again.
    let reference = world(Knobs::REFERENCE);
    let state = walk(
        &reference,
        &[
            Invoke(0),
            Invoke(1),
            Serve(1),
            Serve(0),
            Deliver(0),
            Deliver(1),
            Deliver(1),
            Serve(1),
            Deliver(1),
        ],
    );
    assert!(reference.is_quiescent(&state));
    assert_eq!(state.processes[1].recipe.value, Some(1));
    assert!(readers_hold_the_last_value(&reference, &state));
}

/// Watches die with their session: once its library opened a new session a
/// reader reads again with a watch, and `keeps_old_watch` goes on holding
/// its value; a writer makes its interrupted write again.
#[test]
fn a_renewed_session_reads_again_and_writes_again() {
    let dead = |s: &State| s.phase == Phase::Dead;
    let renew = |variant: Knobs, s: &mut State| {
        expire_and_renew(&Configuration::new(variant), ME, s, dead).requests
    };
    for (variant, again, phase) in [
        (Knobs::REFERENCE, vec![get(true)], Phase::Reading),
        (Knobs::KEEPS_OLD_WATCH, vec![], Phase::Holding),
    ] {
        let mut s = st(Phase::Holding, 0, Some(1), false);
        assert_eq!(renew(variant, &mut s), again, "{variant:?}");
        assert_eq!(s, st(phase, 0, Some(1), false), "{variant:?}");
    }
    let mut s = st(Phase::Writing, 2, None, false);
    assert_eq!(renew(Knobs::REFERENCE, &mut s), vec![set("2")]);
    assert_eq!(s, st(Phase::Writing, 2, None, false));
    // A first read cut off is made again.
    let mut s = st(Phase::Reading, 0, None, false);
    assert_eq!(renew(Knobs::KEEPS_OLD_WATCH, &mut s), vec![get(true)]);
    assert_eq!(s, st(Phase::Reading, 0, None, false));
    // A writer whose last write had returned has nothing to make again.
    let mut s = st(Phase::Idle, 2, None, false);
    assert!(renew(Knobs::REFERENCE, &mut s).is_empty());
    assert_eq!(s, st(Phase::Idle, 2, None, false));
}

#[test]
fn a_reader_that_stops_removes_its_watch_as_its_variant_does_and_follows_no_more() {
    let config = || Path::new("/config");
    for (variant, removal) in [
        (
            Knobs::REFERENCE,
            Op::RemoveWatches {
                path: config(),
                kind: WatcherType::Any,
            },
        ),
        (
            Knobs::PERSISTENT,
            Op::CheckWatches {
                path: config(),
                kind: WatcherType::Any,
            },
        ),
    ] {
        let mut s = st(Phase::Holding, 0, Some(1), false);
        let stop = run(variant, &mut s, Input::Command(Command::Stop));
        assert_eq!(stop, sends(vec![removal.clone()]), "{variant:?}");
        assert_eq!((s.phase, s.stopped), (Phase::Stopping, true));
        // Sent again after CONNECTIONLOSS (Curator's guaranteed()).
        let reply = |result| Input::Reply {
            op: removal.clone(),
            result,
        };
        let again = run(variant, &mut s, reply(Err(ErrorCode::ConnectionLoss)));
        assert_eq!(again, sends(vec![removal.clone()]));
        // A change heard before the removal ended is not followed.
        assert_eq!(run(variant, &mut s, changed()), sends(vec![]));
        assert_eq!(
            run(variant, &mut s, reply(Err(ErrorCode::NoWatcher))),
            sends(vec![])
        );
        assert_eq!(s.phase, Phase::Idle);
        assert_eq!(
            run(variant, &mut s, Input::Command(Command::Read)),
            sends(vec![]),
            "stopped"
        );
    }
    // A renewed session of a stopped reader reads no more.
    let dead = |s: &State| s.phase == Phase::Dead;
    let mut s = State {
        stopped: true,
        ..st(Phase::Idle, 0, Some(1), false)
    };
    let renewed = expire_and_renew(&Configuration::new(Knobs::REFERENCE), ME, &mut s, dead);
    assert!(renewed.requests.is_empty());
    assert_eq!(s.phase, Phase::Idle);
    // A writer, or a reader that has not read yet, has nothing to stop.
    let mut s = st(Phase::Idle, 1, None, false);
    assert_eq!(
        run(Knobs::REFERENCE, &mut s, Input::Command(Command::Stop)),
        sends(vec![])
    );
    assert!(!s.stopped);
}

/// A client is a writer or a reader, so that a renewal knows what to make
/// again.
#[test]
fn a_script_that_both_writes_and_reads_is_refused() {
    let scripts = [vec![Command::Write, Command::Read]];
    let error = <Configuration as Catalogued>::check_scripts(&scripts).unwrap_err();
    assert!(
        error.starts_with("a script that both writes and reads"),
        "{error}"
    );
    let roles = [vec![Command::Write, Command::Write], vec![Command::Read]];
    assert_eq!(<Configuration as Catalogued>::check_scripts(&roles), Ok(()));
}
