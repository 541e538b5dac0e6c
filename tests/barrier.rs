//! The barrier (`models/barrier.rs`) and the double barrier
//! (`models/double_barrier.rs`): one test per branch of each actor's
//! `handle`, driven with hand-built inputs and asserting the exact effects and
//! the resulting state; then walks through the whole world that pin what each
//! property sees.

use stateright::Model;

use zoocheck::catalogued::Catalogued;
use zoocheck::client::SessionEvent;
use zoocheck::faults::{Fault, FaultBudget, Kind};
use zoocheck::recipe::{Effects, Incarnation, Input, Observation, Recipe};
use zoocheck::store::{
    ErrorCode, EventType, Op, OpResult, Path, Response, Stat, WatchEvent, ANY_VERSION,
};
use zoocheck::world::{Action, World, WorldState};

mod actor;
use actor::{effects, expire_and_renew, lost, nothing, walk};

const ME: Incarnation = Incarnation {
    client: 0,
    restarts: 0,
};

fn expired() -> OpResult {
    Err(ErrorCode::SessionExpired)
}

fn stat() -> Stat {
    Stat::default()
}

/// Serve client `c`'s oldest request and deliver what comes back.
fn round_trip(c: usize) -> [Action; 2] {
    [Action::Serve(c), Action::Deliver(c)]
}

mod barrier {
    use super::*;
    use zoocheck::models::barrier::{
        no_early_pass, someone_passed, waiters_proceed, Barrier, Command, Knobs, Phase, State,
        BARRIER,
    };

    const ALL: [Knobs; 5] = [
        Knobs::REFERENCE,
        Knobs::NO_RECHECK,
        Knobs::LOSS_IS_GONE,
        Knobs::LOSS_WAITS,
        Knobs::WAITS_ON_OLD_WATCH,
    ];

    fn st(phase: Phase) -> State {
        State {
            phase,
            interrupted: None,
            watched: false,
        }
    }

    /// Dead, with the call its session's end interrupted.
    fn dead(interrupted: Option<Command>) -> State {
        State {
            phase: Phase::Dead,
            interrupted,
            watched: false,
        }
    }

    fn run(variant: Knobs, state: &mut State, input: Input<Command>) -> Effects {
        let mut out = Effects::default();
        Barrier::new(variant).handle(ME, state, input, &mut out);
        out
    }

    fn node() -> Path {
        Path::new(BARRIER)
    }

    /// Once its library opened a new session the application waits again
    /// from step 1 (its watch died with the old session), but for
    /// `waits_on_old_watch`; a client with nothing under way stays idle.
    #[test]
    fn a_renewed_wait_is_made_again() {
        let dead = |s: &State| s.phase == Phase::Dead;
        for variant in ALL {
            for phase in [Phase::Checking, Phase::Waiting] {
                let mut s = st(phase);
                let out = expire_and_renew(&Barrier::new(variant), ME, &mut s, dead);
                // Only a wait that had its watch can wait on it.
                if variant == Knobs::WAITS_ON_OLD_WATCH && phase == Phase::Waiting {
                    assert_eq!(out, nothing(), "{variant:?}");
                    assert_eq!(s, st(Phase::Waiting), "{variant:?}");
                } else {
                    assert_eq!(out, effects(vec![exists_op()], vec![]), "{variant:?}");
                    assert_eq!(s, st(Phase::Checking), "{variant:?} {phase:?}");
                }
            }
        }
        let reference = Barrier::new(Knobs::REFERENCE);
        let mut s = st(Phase::Lifting);
        let out = expire_and_renew(&reference, ME, &mut s, dead);
        assert_eq!(out, effects(vec![delete_op()], vec![]));
        assert_eq!(s, st(Phase::Lifting));
        let mut s = st(Phase::Idle);
        let out = expire_and_renew(&reference, ME, &mut s, dead);
        assert_eq!(out, nothing());
        assert_eq!(s, st(Phase::Idle));
    }

    fn exists_op() -> Op {
        Op::Exists {
            path: node(),
            watch: true,
        }
    }

    fn delete_op() -> Op {
        Op::Delete {
            path: node(),
            version: ANY_VERSION,
        }
    }

    fn reply(op: Op, result: OpResult) -> Input<Command> {
        Input::Reply { op, result }
    }

    fn event(kind: EventType) -> Input<Command> {
        Input::Watch(WatchEvent { kind, path: node() })
    }

    #[test]
    fn wait_sends_exists_with_a_watch_and_lift_deletes() {
        for variant in ALL {
            let mut s = st(Phase::Idle);
            let out = run(variant, &mut s, Input::Command(Command::Wait));
            assert_eq!(out, effects(vec![exists_op()], vec![]));
            assert_eq!(s, st(Phase::Checking));
            let mut s = st(Phase::Idle);
            let out = run(variant, &mut s, Input::Command(Command::Lift));
            assert_eq!(out, effects(vec![delete_op()], vec![]));
            assert_eq!(s, st(Phase::Lifting));
        }
    }

    #[test]
    fn exists_false_passes_and_true_waits() {
        for variant in ALL {
            let mut s = st(Phase::Checking);
            let out = run(
                variant,
                &mut s,
                reply(exists_op(), Ok(Response::Exists(None))),
            );
            assert_eq!((out, s), (nothing(), st(Phase::Passed)), "{variant:?}");
            let mut s = st(Phase::Checking);
            let out = run(
                variant,
                &mut s,
                reply(exists_op(), Ok(Response::Exists(Some(stat())))),
            );
            assert_eq!((out, s), (nothing(), st(Phase::Waiting)), "{variant:?}");
        }
    }

    #[test]
    fn a_lost_exists_reply_asks_again_in_the_reference() {
        for variant in [Knobs::REFERENCE, Knobs::NO_RECHECK] {
            let mut s = st(Phase::Checking);
            let out = run(variant, &mut s, reply(exists_op(), lost()));
            assert_eq!(out, effects(vec![exists_op()], vec![]));
            assert_eq!(s, st(Phase::Checking));
        }
    }

    #[test]
    fn loss_is_gone_passes_on_a_lost_exists_reply() {
        let mut s = st(Phase::Checking);
        let out = run(Knobs::LOSS_IS_GONE, &mut s, reply(exists_op(), lost()));
        assert_eq!((out, s), (nothing(), st(Phase::Passed)));
    }

    #[test]
    fn loss_waits_waits_on_a_lost_exists_reply_and_ignores_sync_connected() {
        let mut s = st(Phase::Checking);
        let out = run(Knobs::LOSS_WAITS, &mut s, reply(exists_op(), lost()));
        assert_eq!((out, s), (nothing(), st(Phase::Waiting)));
        let out = run(
            Knobs::LOSS_WAITS,
            &mut s,
            Input::Session(SessionEvent::SyncConnected),
        );
        assert_eq!((out, s), (nothing(), st(Phase::Waiting)));
    }

    #[test]
    fn session_expired_on_exists_gives_up() {
        for variant in ALL {
            let mut s = st(Phase::Checking);
            let out = run(variant, &mut s, reply(exists_op(), expired()));
            assert_eq!(out, effects(vec![], vec![Observation::GaveUp]));
            assert_eq!(s, dead(Some(Command::Wait)));
        }
    }

    #[test]
    fn every_node_event_while_waiting_rechecks_except_in_no_recheck() {
        for kind in [
            EventType::NodeDeleted,
            EventType::NodeDataChanged,
            EventType::NodeCreated,
        ] {
            for variant in [Knobs::REFERENCE, Knobs::LOSS_IS_GONE, Knobs::LOSS_WAITS] {
                let mut s = st(Phase::Waiting);
                let out = run(variant, &mut s, event(kind));
                assert_eq!(out, effects(vec![exists_op()], vec![]), "{kind:?}");
                assert_eq!(s, st(Phase::Checking));
            }
            let mut s = st(Phase::Waiting);
            let out = run(Knobs::NO_RECHECK, &mut s, event(kind));
            assert_eq!((out, s), (nothing(), st(Phase::Passed)), "{kind:?}");
        }
    }

    #[test]
    fn sync_connected_while_waiting_rechecks_and_disconnected_does_nothing() {
        let mut s = st(Phase::Waiting);
        let out = run(
            Knobs::REFERENCE,
            &mut s,
            Input::Session(SessionEvent::SyncConnected),
        );
        assert_eq!(
            (out, s),
            (effects(vec![exists_op()], vec![]), st(Phase::Checking))
        );
        let mut s = st(Phase::Waiting);
        let out = run(
            Knobs::REFERENCE,
            &mut s,
            Input::Session(SessionEvent::Disconnected),
        );
        assert_eq!((out, s), (nothing(), st(Phase::Waiting)));
    }

    #[test]
    fn no_recheck_passes_on_disconnected() {
        let mut s = st(Phase::Waiting);
        let out = run(
            Knobs::NO_RECHECK,
            &mut s,
            Input::Session(SessionEvent::Disconnected),
        );
        assert_eq!((out, s), (nothing(), st(Phase::Passed)));
    }

    #[test]
    fn events_outside_waiting_are_ignored() {
        for phase in [Phase::Idle, Phase::Checking, Phase::Passed, Phase::Lifted] {
            for variant in ALL {
                let mut s = st(phase);
                let out = run(variant, &mut s, event(EventType::NodeDeleted));
                assert_eq!((out, s), (nothing(), st(phase)), "{phase:?} {variant:?}");
                let out = run(variant, &mut s, Input::Session(SessionEvent::Disconnected));
                assert_eq!((out, s), (nothing(), st(phase)), "{phase:?} {variant:?}");
            }
        }
        // An event on another path, while waiting.
        let mut s = st(Phase::Waiting);
        let out = run(
            Knobs::NO_RECHECK,
            &mut s,
            Input::Watch(WatchEvent {
                kind: EventType::NodeDeleted,
                path: Path::new("/other"),
            }),
        );
        assert_eq!((out, s), (nothing(), st(Phase::Waiting)));
    }

    #[test]
    fn expired_or_closed_ends_a_waiter_with_gave_up_and_keeps_a_pass() {
        for event in [SessionEvent::Expired, SessionEvent::Closed] {
            for phase in [Phase::Checking, Phase::Waiting] {
                let mut s = st(phase);
                let out = run(Knobs::REFERENCE, &mut s, Input::Session(event));
                assert_eq!(out, effects(vec![], vec![Observation::GaveUp]));
                assert_eq!(s, dead(Some(Command::Wait)));
            }
            for (phase, interrupted) in [(Phase::Idle, None), (Phase::Lifting, Some(Command::Lift))]
            {
                let mut s = st(phase);
                let out = run(Knobs::REFERENCE, &mut s, Input::Session(event));
                assert_eq!((out, s), (nothing(), dead(interrupted)), "{phase:?}");
            }
            for phase in [Phase::Passed, Phase::Lifted] {
                let mut s = st(phase);
                let out = run(Knobs::REFERENCE, &mut s, Input::Session(event));
                assert_eq!((out, s), (nothing(), st(phase)), "{phase:?}");
            }
        }
    }

    #[test]
    fn a_dead_client_does_nothing() {
        let mut s = st(Phase::Dead);
        for input in [
            Input::Command(Command::Wait),
            event(EventType::NodeDeleted),
            reply(exists_op(), Ok(Response::Exists(None))),
        ] {
            // (`SyncConnected` after `Expired` is a renewed session:
            // `a_renewed_wait_is_made_again`.)
            let out = run(Knobs::NO_RECHECK, &mut s, input);
            assert_eq!((out, s), (nothing(), st(Phase::Dead)));
        }
    }

    #[test]
    fn lift_is_done_on_deleted_or_no_node_and_repeats_a_lost_delete() {
        for result in [Ok(Response::Deleted), Err(ErrorCode::NoNode)] {
            let mut s = st(Phase::Lifting);
            let out = run(Knobs::REFERENCE, &mut s, reply(delete_op(), result));
            assert_eq!((out, s), (nothing(), st(Phase::Lifted)));
        }
        let mut s = st(Phase::Lifting);
        let out = run(Knobs::REFERENCE, &mut s, reply(delete_op(), lost()));
        assert_eq!(
            (out, s),
            (effects(vec![delete_op()], vec![]), st(Phase::Lifting))
        );
        let mut s = st(Phase::Lifting);
        let out = run(Knobs::REFERENCE, &mut s, reply(delete_op(), expired()));
        assert_eq!((out, s), (nothing(), dead(Some(Command::Lift))));
    }

    #[test]
    fn busy_and_waiting_per_phase() {
        let barrier = Barrier::new(Knobs::REFERENCE);
        for (phase, busy, waiting) in [
            (Phase::Idle, false, false),
            (Phase::Checking, true, true),
            (Phase::Waiting, true, true),
            (Phase::Passed, false, false),
            (Phase::Lifting, true, false),
            (Phase::Lifted, false, false),
            (Phase::Dead, false, false),
        ] {
            assert_eq!(barrier.is_busy(&st(phase)), busy, "{phase:?}");
            assert_eq!(barrier.is_waiting(&st(phase)), waiting, "{phase:?}");
        }
        assert_eq!(barrier.directory(), &node());
        assert!(!barrier.claims(&st(Phase::Waiting), "barrier"));
    }

    fn world(variant: Knobs, budget: FaultBudget) -> World<Barrier> {
        let scripts = vec![
            vec![Command::Lift],
            vec![Command::Wait],
            vec![Command::Wait],
        ];
        World::new(
            Barrier::build(variant, &Default::default(), &scripts),
            scripts,
            <Barrier as Catalogued>::properties,
        )
        .with_budget(budget)
    }

    #[test]
    fn world_the_waiters_pass_after_the_lift_and_not_before() {
        let world = world(Knobs::REFERENCE, FaultBudget::default());
        let init = world.init_states().remove(0);
        assert!(init.net.store.exists(&node()));
        // Both waiters find the node and wait.
        let mut state = walk(&world, init, &[Action::Invoke(1), Action::Invoke(2)]);
        state = walk(&world, state, &round_trip(1));
        state = walk(&world, state, &round_trip(2));
        assert_eq!(state.processes[1].recipe, st(Phase::Waiting));
        assert!(no_early_pass(&world, &state) && !someone_passed(&world, &state));
        // The lift wakes both; each asks again and passes.
        state = walk(&world, state, &[Action::Invoke(0), Action::Serve(0)]);
        assert!(!state.net.store.exists(&node()));
        assert!(state.history.woken);
        assert!(waiters_proceed(&world, &state), "not quiescent yet");
        state = walk(
            &world,
            state,
            &[Action::Deliver(0), Action::Deliver(1), Action::Deliver(2)],
        );
        assert_eq!(state.processes[1].recipe, st(Phase::Checking));
        state = walk(&world, state, &round_trip(1));
        state = walk(&world, state, &round_trip(2));
        assert_eq!(state.processes[2].recipe, st(Phase::Passed));
        assert!(world.is_quiescent(&state));
        assert!(no_early_pass(&world, &state));
        assert!(waiters_proceed(&world, &state));
    }

    #[test]
    fn world_no_recheck_passes_on_a_disconnect_while_the_barrier_stands() {
        let budget = FaultBudget::of(Kind::Disconnect, 1);
        let world = world(Knobs::NO_RECHECK, budget);
        let init = world.init_states().remove(0);
        let mut state = walk(&world, init, &[Action::Invoke(1)]);
        state = walk(&world, state, &round_trip(1));
        assert!(no_early_pass(&world, &state));
        state = walk(
            &world,
            state,
            &[
                Action::Fault(Fault::new(Kind::Disconnect, 1).applied(0)),
                Action::Deliver(1),
            ],
        );
        assert_eq!(state.processes[1].recipe, st(Phase::Passed));
        assert!(state.net.store.exists(&node()));
        assert!(!no_early_pass(&world, &state));
    }

    #[test]
    fn world_an_expired_waiter_is_not_live_and_does_not_count_as_stuck() {
        let budget = FaultBudget::default()
            .with(Kind::Disconnect, 1)
            .with(Kind::Expire, 1);
        let world = world(Knobs::REFERENCE, budget);
        let init = world.init_states().remove(0);
        let mut state = walk(&world, init, &[Action::Invoke(1), Action::Invoke(2)]);
        state = walk(&world, state, &round_trip(1));
        state = walk(&world, state, &round_trip(2));
        state = walk(
            &world,
            state,
            &[
                Action::Fault(Fault::new(Kind::Disconnect, 2).applied(0)),
                Action::Deliver(2),
                Action::Fault(Fault::new(Kind::Expire, 2)),
                Action::Reconnect(2),
            ],
        );
        assert_eq!(state.processes[2].recipe, dead(Some(Command::Wait)));
        state = walk(
            &world,
            state,
            &[Action::Invoke(0), Action::Serve(0), Action::Deliver(0)],
        );
        state = walk(&world, state, &[Action::Deliver(1)]);
        state = walk(&world, state, &round_trip(1));
        assert_eq!(state.processes[1].recipe, st(Phase::Passed));
        assert!(world.is_quiescent(&state));
        assert!(waiters_proceed(&world, &state));
    }

    #[test]
    fn world_loss_waits_waits_forever_after_a_lost_exists_reply() {
        let budget = FaultBudget::of(Kind::LoseReply, 1);
        let world = world(Knobs::LOSS_WAITS, budget.clone());
        let init = world.init_states().remove(0);
        let mut state = walk(
            &world,
            init,
            &[
                Action::Invoke(1),
                Action::Fault(Fault::new(Kind::LoseReply, 1)),
                Action::Deliver(1),
                Action::Reconnect(1),
            ],
        );
        assert_eq!(state.processes[1].recipe, st(Phase::Waiting));
        state = walk(
            &world,
            state,
            &[Action::Invoke(0), Action::Serve(0), Action::Deliver(0)],
        );
        state = walk(&world, state, &[Action::Invoke(2)]);
        state = walk(&world, state, &round_trip(2));
        assert!(world.is_quiescent(&state));
        assert!(!waiters_proceed(&world, &state));
        // The reference, the same run: asks again and passes.
        let world = super::barrier::world(Knobs::REFERENCE, budget);
        let init = world.init_states().remove(0);
        let mut state = walk(
            &world,
            init,
            &[
                Action::Invoke(1),
                Action::Fault(Fault::new(Kind::LoseReply, 1)),
                Action::Deliver(1),
                Action::Reconnect(1),
            ],
        );
        assert_eq!(state.processes[1].recipe, st(Phase::Checking));
        state = walk(
            &world,
            state,
            &[Action::Invoke(0), Action::Serve(0), Action::Deliver(0)],
        );
        state = walk(&world, state, &round_trip(1));
        assert_eq!(state.processes[1].recipe, st(Phase::Passed));
    }

    #[test]
    fn the_catalogue() {
        assert_eq!(<Barrier as Catalogued>::NAME, "barrier");
        let names: Vec<&str> = Barrier::VARIANTS.iter().map(|(name, _)| *name).collect();
        assert_eq!(
            names,
            [
                "reference",
                "no_recheck",
                "loss_is_gone",
                "loss_waits",
                "waits_on_old_watch"
            ]
        );
        let properties: Vec<&str> = <Barrier as Catalogued>::properties()
            .iter()
            .map(|p| p.name)
            .collect();
        assert_eq!(
            properties,
            [
                "no_early_pass",
                "waiters_proceed",
                "someone_passed",
                "waiter_woken"
            ]
        );
    }
}

mod double_barrier {
    use super::*;
    use std::sync::Arc;
    use zoocheck::models::double_barrier::{
        enter_safety, leave_safety, no_deadlock, someone_computes, someone_left, Command,
        DoubleBarrier, Knobs, Phase, State, BARRIER, READY,
    };
    use zoocheck::models::joined::{Joined, Joins};
    use zoocheck::store::{CreateMode, Store};

    const X: usize = 2;

    fn st(phase: Phase, node: Option<&str>) -> State {
        State {
            phase,
            node: node.map(Arc::from),
            ready_seen: false,
            interrupted: false,
        }
    }

    fn mine(phase: Phase) -> State {
        st(phase, Some("c0"))
    }

    fn watching(name: &str) -> Phase {
        Phase::Watching(Arc::from(name))
    }

    fn run(variant: Knobs, state: &mut State, input: Input<Command>) -> Effects<Joined> {
        let mut out = Effects::default();
        DoubleBarrier::new(variant, X).handle(ME, state, input, &mut out);
        out
    }

    fn at(name: &str) -> Path {
        Path::new(BARRIER).child(name)
    }

    fn ready_exists() -> Op {
        Op::Exists {
            path: at(READY),
            watch: true,
        }
    }

    fn create_mine() -> Op {
        Op::Create {
            path: at("c0"),
            data: None,
            mode: CreateMode::Ephemeral,
        }
    }

    fn create_ready() -> Op {
        Op::Create {
            path: at(READY),
            data: None,
            mode: CreateMode::Persistent,
        }
    }

    fn list(watch: bool) -> Op {
        Op::GetChildren {
            path: Path::new(BARRIER),
            watch,
        }
    }

    fn exists_on(name: &str) -> Op {
        Op::Exists {
            path: at(name),
            watch: true,
        }
    }

    fn delete_mine() -> Op {
        Op::Delete {
            path: at("c0"),
            version: ANY_VERSION,
        }
    }

    fn children(list: &[&str]) -> OpResult {
        Ok(Response::Children {
            names: list.iter().map(|name| Arc::from(*name)).collect(),
            stat: stat(),
        })
    }

    fn created(name: &str) -> OpResult {
        Ok(Response::Created {
            path: at(name),
            stat: stat(),
        })
    }

    fn reply(op: Op, result: OpResult) -> Input<Command> {
        Input::Reply { op, result }
    }

    fn event(kind: EventType, path: Path) -> Input<Command> {
        Input::Watch(WatchEvent { kind, path })
    }

    // Enter.

    #[test]
    fn enter_sets_the_ready_watch_first_except_watch_after_listing() {
        for variant in [Knobs::SEED, Knobs::COUNT, Knobs::COUNT_ALL] {
            let mut s = st(Phase::Idle, None);
            let out = run(variant, &mut s, Input::Command(Command::Enter));
            assert_eq!(out, effects(vec![ready_exists()], vec![]));
            assert_eq!(s, st(Phase::Arming, None));
        }
        let mut s = st(Phase::Idle, None);
        let out = run(
            Knobs::WATCH_AFTER_LISTING,
            &mut s,
            Input::Command(Command::Enter),
        );
        assert_eq!(out, effects(vec![create_mine()], vec![]));
        assert_eq!(s, mine(Phase::Joining));
    }

    #[test]
    fn the_ready_watch_answered_creates_our_ephemeral_node_named_by_guid() {
        let mut s = st(Phase::Arming, None);
        let out = run(
            Knobs::SEED,
            &mut s,
            reply(ready_exists(), Ok(Response::Exists(None))),
        );
        assert_eq!(out, effects(vec![create_mine()], vec![]));
        assert_eq!(s, mine(Phase::Joining));
        // Ready already there: remembered.
        let mut s = st(Phase::Arming, None);
        run(
            Knobs::SEED,
            &mut s,
            reply(ready_exists(), Ok(Response::Exists(Some(stat())))),
        );
        assert!(s.ready_seen);
        // A restarted process has its own name.
        let mut s = st(Phase::Arming, None);
        let mut out = Effects::default();
        DoubleBarrier::new(Knobs::SEED, X).handle(
            Incarnation {
                client: 2,
                restarts: 1,
            },
            &mut s,
            reply(ready_exists(), Ok(Response::Exists(None))),
            &mut out,
        );
        assert_eq!(s.node.as_deref(), Some("c2r1"));
    }

    #[test]
    fn every_enter_request_lost_is_sent_again() {
        for (phase, op) in [
            (Phase::Arming, ready_exists()),
            (Phase::Joining, create_mine()),
            (Phase::Counting, list(false)),
            (Phase::CreatingReady, create_ready()),
        ] {
            let mut s = mine(phase.clone());
            let out = run(Knobs::SEED, &mut s, reply(op.clone(), lost()));
            assert_eq!(out, effects(vec![op], vec![]), "{phase:?}");
            assert_eq!(s, mine(phase));
        }
        // The late watch of watch_after_listing too.
        let mut s = mine(Phase::AwaitingReady);
        let out = run(
            Knobs::WATCH_AFTER_LISTING,
            &mut s,
            reply(ready_exists(), lost()),
        );
        assert_eq!(out, effects(vec![ready_exists()], vec![]));
    }

    #[test]
    fn our_create_created_or_node_exists_lists_without_a_watch() {
        for result in [created("c0"), Err(ErrorCode::NodeExists)] {
            let mut s = mine(Phase::Joining);
            let out = run(Knobs::SEED, &mut s, reply(create_mine(), result));
            assert_eq!(out, effects(vec![list(false)], vec![]));
            assert_eq!(s, mine(Phase::Counting));
        }
    }

    #[test]
    fn fewer_than_x_process_nodes_wait_and_x_create_ready() {
        // Ready does not count as a process node.
        let mut s = mine(Phase::Counting);
        let out = run(
            Knobs::SEED,
            &mut s,
            reply(list(false), children(&[READY, "c0"])),
        );
        assert_eq!((out, s), (nothing(), mine(Phase::AwaitingReady)));
        let mut s = mine(Phase::Counting);
        let out = run(
            Knobs::SEED,
            &mut s,
            reply(list(false), children(&["c1", "c0"])),
        );
        assert_eq!(out, effects(vec![create_ready()], vec![]));
        assert_eq!(s, mine(Phase::CreatingReady));
    }

    #[test]
    fn watch_after_listing_sets_the_watch_only_when_short_and_ignores_its_answer() {
        let mut s = mine(Phase::Counting);
        let out = run(
            Knobs::WATCH_AFTER_LISTING,
            &mut s,
            reply(list(false), children(&["c0"])),
        );
        assert_eq!(out, effects(vec![ready_exists()], vec![]));
        assert_eq!(s, mine(Phase::AwaitingReady));
        let out = run(
            Knobs::WATCH_AFTER_LISTING,
            &mut s,
            reply(ready_exists(), Ok(Response::Exists(Some(stat())))),
        );
        assert_eq!((out, s), (nothing(), mine(Phase::AwaitingReady)));
    }

    #[test]
    fn ready_created_or_existing_computes() {
        for result in [created(READY), Err(ErrorCode::NodeExists)] {
            let mut s = mine(Phase::CreatingReady);
            let out = run(Knobs::SEED, &mut s, reply(create_ready(), result));
            assert_eq!((out, s), (nothing(), mine(Phase::Computing)));
        }
    }

    #[test]
    fn ready_event_while_awaiting_computes_and_the_creator_waits_for_its_reply() {
        let mut s = mine(Phase::AwaitingReady);
        let out = run(
            Knobs::SEED,
            &mut s,
            event(EventType::NodeCreated, at(READY)),
        );
        assert_eq!((out, s), (nothing(), mine(Phase::Computing)));
        let mut s = mine(Phase::CreatingReady);
        let out = run(
            Knobs::SEED,
            &mut s,
            event(EventType::NodeCreated, at(READY)),
        );
        assert_eq!((out, s), (nothing(), mine(Phase::CreatingReady)));
    }

    #[test]
    fn an_early_ready_event_is_remembered_except_by_forget_early_ready() {
        for phase in [Phase::Joining, Phase::Counting] {
            let mut s = mine(phase.clone());
            let out = run(
                Knobs::SEED,
                &mut s,
                event(EventType::NodeCreated, at(READY)),
            );
            assert_eq!(out, nothing());
            assert!(s.ready_seen, "{phase:?}");
            // Then a short listing computes at once.
            s.phase = Phase::Counting;
            let out = run(
                Knobs::SEED,
                &mut s,
                reply(list(false), children(&[READY, "c0"])),
            );
            assert_eq!(out, nothing());
            assert_eq!(s.phase, Phase::Computing);
            let mut s = mine(phase.clone());
            run(
                Knobs::FORGET_EARLY_READY,
                &mut s,
                event(EventType::NodeCreated, at(READY)),
            );
            assert!(!s.ready_seen, "{phase:?}");
        }
    }

    // Leave, seed 000.

    #[test]
    fn leave_lists_without_a_watch_and_only_when_computing() {
        let mut s = mine(Phase::Computing);
        let out = run(Knobs::SEED, &mut s, Input::Command(Command::Leave));
        assert_eq!(
            (out, s),
            (effects(vec![list(false)], vec![]), mine(Phase::Listing))
        );
        let mut s = mine(Phase::AwaitingReady);
        let out = run(Knobs::SEED, &mut s, Input::Command(Command::Leave));
        assert_eq!((out, s), (nothing(), mine(Phase::AwaitingReady)));
    }

    #[test]
    fn leave_listing_follows_the_seeds_steps() {
        // No process node: exit.
        let mut s = mine(Phase::Listing);
        let out = run(Knobs::SEED, &mut s, reply(list(false), children(&[READY])));
        assert_eq!((out, s), (nothing(), mine(Phase::Left)));
        // Only ours: delete and exit once deleted.
        let mut s = mine(Phase::Listing);
        let out = run(
            Knobs::SEED,
            &mut s,
            reply(list(false), children(&[READY, "c0"])),
        );
        assert_eq!(
            (out, s),
            (effects(vec![delete_mine()], vec![]), mine(Phase::Deleting))
        );
        // Lowest: wait on the highest.
        let mut s = mine(Phase::Listing);
        let out = run(
            Knobs::SEED,
            &mut s,
            reply(list(false), children(&["c2", "c0", "c1"])),
        );
        assert_eq!(
            (out, s),
            (effects(vec![exists_on("c2")], vec![]), mine(watching("c2")))
        );
        // Not lowest: delete ours, wait on the lowest.
        let mut s = st(Phase::Listing, Some("c1"));
        let mut out = Effects::default();
        DoubleBarrier::new(Knobs::SEED, X).handle(
            Incarnation {
                client: 1,
                restarts: 0,
            },
            &mut s,
            reply(list(false), children(&["c2", "c0", "c1"])),
            &mut out,
        );
        let delete_c1 = Op::Delete {
            path: at("c1"),
            version: ANY_VERSION,
        };
        assert_eq!(out, effects(vec![delete_c1, exists_on("c0")], vec![]));
        assert_eq!(s, st(watching("c0"), Some("c1")));
    }

    #[test]
    fn leave_deleting_exits_on_deleted_or_no_node_and_repeats_a_lost_delete() {
        for result in [Ok(Response::Deleted), Err(ErrorCode::NoNode)] {
            let mut s = mine(Phase::Deleting);
            let out = run(Knobs::SEED, &mut s, reply(delete_mine(), result));
            assert_eq!((out, s), (nothing(), mine(Phase::Left)));
        }
        let mut s = mine(Phase::Deleting);
        let out = run(Knobs::SEED, &mut s, reply(delete_mine(), lost()));
        assert_eq!(
            (out, s),
            (effects(vec![delete_mine()], vec![]), mine(Phase::Deleting))
        );
    }

    #[test]
    fn watching_waits_on_exists_and_lists_again_when_gone_lost_or_notified() {
        let mut s = mine(watching("c2"));
        let out = run(
            Knobs::SEED,
            &mut s,
            reply(exists_on("c2"), Ok(Response::Exists(Some(stat())))),
        );
        assert_eq!((out, s), (nothing(), mine(watching("c2"))));
        for result in [Ok(Response::Exists(None)), lost()] {
            let mut s = mine(watching("c2"));
            let out = run(Knobs::SEED, &mut s, reply(exists_on("c2"), result));
            assert_eq!(
                (out, s),
                (effects(vec![list(false)], vec![]), mine(Phase::Listing))
            );
        }
        let mut s = mine(watching("c2"));
        let out = run(Knobs::SEED, &mut s, event(EventType::NodeDeleted, at("c2")));
        assert_eq!(
            (out, s),
            (effects(vec![list(false)], vec![]), mine(Phase::Listing))
        );
        // Another node's event, or our pipelined delete's reply: nothing.
        let mut s = mine(watching("c2"));
        let out = run(Knobs::SEED, &mut s, event(EventType::NodeDeleted, at("c1")));
        assert_eq!(out, nothing());
        let out = run(Knobs::SEED, &mut s, reply(delete_mine(), lost()));
        assert_eq!((out, s), (nothing(), mine(watching("c2"))));
    }

    #[test]
    fn a_lost_leave_listing_is_sent_again() {
        let mut s = mine(Phase::Listing);
        let out = run(Knobs::SEED, &mut s, reply(list(false), lost()));
        assert_eq!(
            (out, s),
            (effects(vec![list(false)], vec![]), mine(Phase::Listing))
        );
    }

    // Leave, seed 004.

    #[test]
    fn count_leave_deletes_then_lists_with_a_watch() {
        for variant in [Knobs::COUNT, Knobs::COUNT_ALL] {
            let mut s = mine(Phase::Computing);
            let out = run(variant, &mut s, Input::Command(Command::Leave));
            assert_eq!(out, effects(vec![delete_mine(), list(true)], vec![]));
            assert_eq!(s, mine(Phase::Draining));
        }
    }

    #[test]
    fn count_exits_at_zero_process_nodes_and_count_all_never_with_ready() {
        let mut s = mine(Phase::Draining);
        let out = run(Knobs::COUNT, &mut s, reply(list(true), children(&[READY])));
        assert_eq!((out, s), (nothing(), mine(Phase::Left)));
        let mut s = mine(Phase::Draining);
        let out = run(
            Knobs::COUNT_ALL,
            &mut s,
            reply(list(true), children(&[READY])),
        );
        assert_eq!((out, s), (nothing(), mine(Phase::Draining)));
        let mut s = mine(Phase::Draining);
        let out = run(Knobs::COUNT_ALL, &mut s, reply(list(true), children(&[])));
        assert_eq!((out, s), (nothing(), mine(Phase::Left)));
    }

    #[test]
    fn count_waits_while_others_remain_deletes_again_if_ours_remains_and_relists_on_event() {
        let mut s = mine(Phase::Draining);
        let out = run(
            Knobs::COUNT,
            &mut s,
            reply(list(true), children(&[READY, "c1"])),
        );
        assert_eq!((out, s), (nothing(), mine(Phase::Draining)));
        let mut s = mine(Phase::Draining);
        let out = run(
            Knobs::COUNT,
            &mut s,
            reply(list(true), children(&["c0", "c1"])),
        );
        assert_eq!(out, effects(vec![delete_mine(), list(true)], vec![]));
        let out = run(
            Knobs::COUNT,
            &mut s,
            event(EventType::NodeChildrenChanged, Path::new(BARRIER)),
        );
        assert_eq!(out, effects(vec![list(true)], vec![]));
        let out = run(Knobs::COUNT, &mut s, reply(list(true), lost()));
        assert_eq!(out, effects(vec![list(true)], vec![]));
        assert_eq!(s, mine(Phase::Draining));
    }

    // Sessions, and what the world asks.

    #[test]
    fn expired_ends_every_phase_but_left_and_a_waiter_gives_up() {
        for phase in [
            Phase::Idle,
            Phase::Arming,
            Phase::Joining,
            Phase::Counting,
            Phase::AwaitingReady,
            Phase::CreatingReady,
            Phase::Computing,
            Phase::Listing,
            watching("c1"),
            Phase::Deleting,
            Phase::Draining,
        ] {
            let mut s = mine(phase.clone());
            let out = run(Knobs::SEED, &mut s, Input::Session(SessionEvent::Expired));
            let waiting = matches!(
                phase,
                Phase::AwaitingReady | Phase::Watching(_) | Phase::Draining
            );
            let observed = if waiting {
                vec![Observation::GaveUp]
            } else {
                vec![]
            };
            assert_eq!(out, effects(vec![], observed), "{phase:?}");
            assert_eq!(s.phase, Phase::Dead, "{phase:?}");
        }
        let mut s = mine(Phase::Left);
        let out = run(Knobs::SEED, &mut s, Input::Session(SessionEvent::Closed));
        assert_eq!((out, s), (nothing(), mine(Phase::Left)));
        // Dead stays dead.
        let mut s = mine(Phase::Dead);
        let out = run(
            Knobs::SEED,
            &mut s,
            event(EventType::NodeCreated, at(READY)),
        );
        assert_eq!((out, s), (nothing(), mine(Phase::Dead)));
    }

    #[test]
    fn disconnected_and_sync_connected_change_nothing() {
        for event in [SessionEvent::Disconnected, SessionEvent::SyncConnected] {
            let mut s = mine(Phase::AwaitingReady);
            let out = run(Knobs::SEED, &mut s, Input::Session(event));
            assert_eq!((out, s), (nothing(), mine(Phase::AwaitingReady)));
        }
    }

    #[test]
    fn the_server_fact_joined_is_a_process_node_created_not_ready() {
        let recipe = DoubleBarrier::new(Knobs::SEED, X);
        assert_eq!(recipe.served(&create_mine(), &created("c0")), Some(Joined));
        assert_eq!(
            recipe.served(&create_mine(), &Err(ErrorCode::NodeExists)),
            None
        );
        assert_eq!(recipe.served(&create_ready(), &created(READY)), None);
        assert_eq!(recipe.served(&list(false), &children(&["c0"])), None);
    }

    #[test]
    fn released_together_only_when_no_process_node_remains() {
        let recipe = DoubleBarrier::new(Knobs::SEED, X);
        let s = mine(watching("c1"));
        let tree = |names: &[&str]| {
            let mut store = Store::default();
            let session = store.open_session();
            let dir = recipe.directory().clone();
            let paths =
                std::iter::once(dir.clone()).chain(names.iter().map(|name| dir.child(name)));
            for path in paths {
                let create = Op::Create {
                    path,
                    data: None,
                    mode: CreateMode::Persistent,
                };
                assert!(store.apply(session, &create).result.is_ok());
            }
            store
        };
        assert!(recipe.released_together(&s, &tree(&[READY])));
        assert!(recipe.released_together(&s, &tree(&[])));
        assert!(!recipe.released_together(&s, &tree(&[READY, "c2"])));
    }

    #[test]
    fn threshold_is_the_number_of_clients_that_enter() {
        use Command::*;
        let recipe = DoubleBarrier::build(
            Knobs::SEED,
            &Default::default(),
            &[vec![Enter, Leave], vec![Enter], vec![Enter, Leave]],
        );
        assert_eq!(recipe.threshold, 3);
        assert!(DoubleBarrier::check_scripts(&[vec![Enter, Leave], vec![Enter]]).is_ok());
        assert!(DoubleBarrier::check_scripts(&[vec![Leave]]).is_err());
    }

    // Through the world.

    fn world(variant: Knobs, budget: FaultBudget) -> World<DoubleBarrier> {
        let scripts = vec![vec![Command::Enter, Command::Leave]; 2];
        World::new(
            DoubleBarrier::build(variant, &Default::default(), &scripts),
            scripts,
            <DoubleBarrier as Catalogued>::properties,
        )
        .with_budget(budget)
    }

    fn holds_all(world: &World<DoubleBarrier>, state: &WorldState<State, Joins>) -> bool {
        enter_safety(world, state) && leave_safety(world, state) && no_deadlock(world, state)
    }

    /// Client `c` enters up to its listing's reply: exists, create, list.
    fn joins(c: usize) -> Vec<Action> {
        let mut actions = vec![Action::Invoke(c)];
        actions.extend(round_trip(c));
        actions.extend(round_trip(c));
        actions.push(Action::Serve(c));
        actions
    }

    #[test]
    fn world_both_enter_compute_and_leave_and_the_joined_count_is_a_server_fact() {
        let world = world(Knobs::SEED, FaultBudget::default());
        let init = world.init_states().remove(0);
        // c0 joins and its listing shows one node: it waits.
        let mut state = walk(&world, init, &joins(0));
        state = walk(&world, state, &[Action::Deliver(0)]);
        assert_eq!(state.processes[0].recipe.phase, Phase::AwaitingReady);
        assert_eq!(state.history.log.count(), 1);
        // c1 joins, counts two and creates ready: both compute.
        state = walk(&world, state, &joins(1));
        state = walk(&world, state, &[Action::Deliver(1)]);
        assert_eq!(state.processes[1].recipe.phase, Phase::CreatingReady);
        state = walk(&world, state, &[Action::Serve(1), Action::Deliver(0)]);
        assert_eq!(state.processes[0].recipe.phase, Phase::Computing);
        assert!(state.history.woken);
        assert!(someone_computes(&world, &state) && holds_all(&world, &state));
        state = walk(&world, state, &[Action::Deliver(1), Action::Deliver(1)]);
        assert_eq!(state.processes[1].recipe.phase, Phase::Computing);
        // c1 leaves first: not the lowest, it deletes c1 and waits on c0.
        state = walk(&world, state, &[Action::Invoke(1)]);
        state = walk(&world, state, &round_trip(1));
        assert_eq!(state.processes[1].recipe.phase, watching("c0"));
        state = walk(
            &world,
            state,
            &[
                Action::Serve(1),
                Action::Serve(1),
                Action::Deliver(1),
                Action::Deliver(1),
            ],
        );
        // c0 leaves: the only one, it deletes and exits; that wakes c1.
        state = walk(&world, state, &[Action::Invoke(0)]);
        state = walk(&world, state, &round_trip(0));
        assert_eq!(state.processes[0].recipe.phase, Phase::Deleting);
        state = walk(&world, state, &round_trip(0));
        assert_eq!(state.processes[0].recipe.phase, Phase::Left);
        assert!(someone_left(&world, &state) && holds_all(&world, &state));
        state = walk(&world, state, &[Action::Deliver(1)]);
        state = walk(&world, state, &round_trip(1));
        assert_eq!(state.processes[1].recipe.phase, Phase::Left);
        assert!(world.is_quiescent(&state));
        assert!(holds_all(&world, &state));
        assert!(!state.history.herd);
    }

    #[test]
    fn world_a_crash_before_ready_leaves_the_other_short_and_excused() {
        let budget = FaultBudget::of(Kind::Crash, 1);
        let world = world(Knobs::SEED, budget);
        let init = world.init_states().remove(0);
        let mut state = walk(&world, init, &joins(0));
        state = walk(
            &world,
            state,
            &[
                Action::Deliver(0),
                Action::Fault(Fault::new(Kind::Crash, 1).applied(0)),
            ],
        );
        assert_eq!(state.processes[0].recipe.phase, Phase::AwaitingReady);
        assert!(!world.is_quiescent(&state), "c1's session still to expire");
        let session = state.net.session(1);
        state = walk(&world, state, &[Action::SessionTimeout(session)]);
        assert!(world.is_quiescent(&state));
        assert!(no_deadlock(&world, &state), "fewer than x alive: excused");
        // Not excused once ready exists (here made by hand).
        let mut forged = state.clone();
        forged
            .net
            .store
            .apply(forged.net.session(0), &create_ready());
        assert!(!no_deadlock(&world, &forged));
    }

    #[test]
    fn world_a_lost_create_reply_still_joined_and_the_retry_finds_our_node() {
        let budget = FaultBudget::of(Kind::LoseReply, 1);
        let world = world(Knobs::SEED, budget);
        let init = world.init_states().remove(0);
        let mut state = walk(&world, init, &[Action::Invoke(0)]);
        state = walk(&world, state, &round_trip(0));
        assert_eq!(state.processes[0].recipe.phase, Phase::Joining);
        state = walk(
            &world,
            state,
            &[Action::Fault(Fault::new(Kind::LoseReply, 0))],
        );
        // The server created it: a server fact, though c0 never heard.
        assert_eq!(state.history.log.count(), 1);
        assert!(state.net.store.exists(&at("c0")));
        state = walk(&world, state, &[Action::Deliver(0), Action::Reconnect(0)]);
        assert_eq!(state.processes[0].recipe.phase, Phase::Joining);
        state = walk(&world, state, &[Action::Serve(0)]);
        assert_eq!(state.history.log.count(), 1, "NODEEXISTS joins nobody");
        state = walk(&world, state, &[Action::Deliver(0)]);
        assert_eq!(state.processes[0].recipe.phase, Phase::Counting);
    }

    #[test]
    fn leave_safety_and_enter_safety_read_states_and_the_joined_count() {
        let world = world(Knobs::SEED, FaultBudget::default());
        let init = world.init_states().remove(0);
        let mut state = walk(&world, init, &joins(0));
        state = walk(&world, state, &joins(1));
        assert!(leave_safety(&world, &state));
        // c1 claiming to have left while c0 is inside (its node exists).
        let mut forged = state.clone();
        forged.processes[1].recipe.phase = Phase::Left;
        assert!(!leave_safety(&world, &forged));
        assert_eq!(
            actor::violation_words(&world, &forged, "leave_safety").as_deref(),
            Some("c1 left the barrier while c0 (Counting) with its node /b/c0 is still in it")
        );
        // ... but not once c0's node is gone with its session.
        forged.net.store.expire(forged.net.session(0));
        assert!(leave_safety(&world, &forged));
        // Computing with one of two joined breaks enter safety.
        let mut forged = walk(&world, world.init_states().remove(0), &joins(0));
        forged.processes[0].recipe.phase = Phase::Computing;
        assert!(!enter_safety(&world, &forged));
        assert_eq!(
            actor::violation_words(&world, &forged, "enter_safety").as_deref(),
            Some(
                "c0 (Computing) started computing when only 1 of the 2 processes \
                 the barrier waits for had entered"
            )
        );
    }

    #[test]
    fn the_catalogue() {
        assert_eq!(<DoubleBarrier as Catalogued>::NAME, "double_barrier");
        let names: Vec<&str> = DoubleBarrier::VARIANTS
            .iter()
            .map(|(name, _)| *name)
            .collect();
        assert_eq!(
            names,
            [
                "seed",
                "count",
                "count_all",
                "watch_after_listing",
                "forget_early_ready",
                "rejoins"
            ]
        );
        let properties: Vec<&str> = <DoubleBarrier as Catalogued>::properties()
            .iter()
            .map(|p| p.name)
            .collect();
        assert_eq!(
            properties,
            [
                "enter_safety",
                "leave_safety",
                "herd_avoidance",
                "no_deadlock",
                "someone_computes",
                "someone_left",
                "waiter_woken"
            ]
        );
    }

    // Beyond exhaustive reach: herds need four processes (two million states
    // with three and no fault), so seeded walks look for them.

    /// The first walk that finds seed 004's herd, and its length.
    const HERD_SEED: u64 = 5;
    const HERD_STEPS: usize = 49;

    /// Four processes that enter and leave, with the faults of `budget`.
    fn four(variant: Knobs, budget: FaultBudget) -> World<DoubleBarrier> {
        let scripts = vec![vec![Command::Enter, Command::Leave]; 4];
        let recipe = DoubleBarrier::build(variant, &Default::default(), &scripts);
        World {
            recipes: vec![recipe; scripts.len()],
            scripts,
            ..world(variant, budget)
        }
    }

    /// The first of the walks seeded 0 to `walks - 1` that breaks herd
    /// avoidance, and after how many steps.
    fn first_herd(world: &World<DoubleBarrier>, walks: u64) -> Option<(u64, usize)> {
        (0..walks).find_map(|seed| {
            let walk = zoocheck::simulate::walk(world, seed, 200);
            walk.found("herd_avoidance").map(|steps| (seed, steps))
        })
    }

    #[test]
    fn seeded_walks_find_the_herd_of_seed_004s_leave_with_four_processes() {
        // Everyone watches the barrier's children: one deletion wakes every
        // process still waiting to leave.
        let world = four(Knobs::COUNT, FaultBudget::default());
        assert_eq!(first_herd(&world, 2_000), Some((HERD_SEED, HERD_STEPS)));
    }

    #[test]
    fn seeded_walks_find_no_herd_in_the_seeds_leave_with_four_processes() {
        let world = four(Knobs::SEED, FaultBudget::default());
        assert_eq!(first_herd(&world, 2_000), None);
    }

    #[test]
    fn seeded_walks_find_a_herd_in_the_seeds_leave_when_the_lowest_process_fails() {
        // The lowest process crashes while two processes that already deleted
        // their nodes wait on it and a fourth node remains: its expiry wakes
        // both, and neither is released.
        let budget = FaultBudget::default()
            .with(Kind::Crash, 1)
            .with(Kind::Disconnect, 1)
            .with(Kind::Expire, 1);
        let world = four(Knobs::SEED, budget);
        assert_eq!(first_herd(&world, 2_000), Some((156, 50)));
    }
}
