//! The barrier (`models/barrier.rs`) and the double barrier
//! (`models/double_barrier.rs`): one test per branch of each actor's
//! `handle`, driven with hand-built inputs and asserting the exact effects and
//! the resulting state; then walks through the whole world that pin what each
//! property sees.

use stateright::Model;

use zoocheck::client::SessionEvent;
use zoocheck::faults::{Fault, FaultBudget};
use zoocheck::recipe::{Effects, Incarnation, Input, Observation, Recipe};
use zoocheck::scenario::Catalogued;
use zoocheck::store::{
    ErrorCode, EventType, Op, OpResult, Path, Response, Stat, StoreConfig, WatchEvent, ANY_VERSION,
};
use zoocheck::world::{Action, World, WorldState};

const ME: Incarnation = Incarnation {
    client: 0,
    restarts: 0,
};

fn effects(requests: Vec<Op>, observations: Vec<Observation>) -> Effects {
    Effects {
        requests,
        observations,
    }
}

fn nothing() -> Effects {
    Effects::default()
}

fn lost() -> OpResult {
    Err(ErrorCode::ConnectionLoss)
}

fn expired() -> OpResult {
    Err(ErrorCode::SessionExpired)
}

fn stat() -> Stat {
    Stat::default()
}

/// Takes `action`, which must be one the checker could choose.
fn act<R: Recipe>(
    world: &World<R>,
    state: &WorldState<R::State>,
    action: Action,
) -> WorldState<R::State> {
    let mut enabled = Vec::new();
    world.actions(state, &mut enabled);
    assert!(
        enabled.contains(&action),
        "{action:?} is not enabled; enabled: {enabled:?}"
    );
    world
        .step(state, &action)
        .unwrap_or_else(|| panic!("{action:?} did nothing"))
}

fn walk<R: Recipe>(
    world: &World<R>,
    mut state: WorldState<R::State>,
    actions: &[Action],
) -> WorldState<R::State> {
    for action in actions {
        state = act(world, &state, action.clone());
    }
    state
}

/// Serve client `c`'s oldest request and deliver what comes back.
fn round_trip(c: usize) -> [Action; 2] {
    [Action::Serve(c), Action::Deliver(c)]
}

mod barrier {
    use super::*;
    use zoocheck::models::barrier::{
        no_early_pass, someone_passed, waiters_proceed, Barrier, Command, Phase, State, Variant,
        BARRIER,
    };

    const ALL: [Variant; 4] = [
        Variant::Reference,
        Variant::NoRecheck,
        Variant::LossIsGone,
        Variant::LossWaits,
    ];

    fn st(phase: Phase) -> State {
        State { phase }
    }

    fn run(variant: Variant, state: &mut State, input: Input<Command>) -> Effects {
        let mut out = Effects::default();
        Barrier::new(variant).handle(ME, state, input, &mut out);
        out
    }

    fn node() -> Path {
        Path::new(BARRIER)
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
        for variant in [Variant::Reference, Variant::NoRecheck] {
            let mut s = st(Phase::Checking);
            let out = run(variant, &mut s, reply(exists_op(), lost()));
            assert_eq!(out, effects(vec![exists_op()], vec![]));
            assert_eq!(s, st(Phase::Checking));
        }
    }

    #[test]
    fn loss_is_gone_passes_on_a_lost_exists_reply() {
        let mut s = st(Phase::Checking);
        let out = run(Variant::LossIsGone, &mut s, reply(exists_op(), lost()));
        assert_eq!((out, s), (nothing(), st(Phase::Passed)));
    }

    #[test]
    fn loss_waits_waits_on_a_lost_exists_reply_and_ignores_sync_connected() {
        let mut s = st(Phase::Checking);
        let out = run(Variant::LossWaits, &mut s, reply(exists_op(), lost()));
        assert_eq!((out, s), (nothing(), st(Phase::Waiting)));
        let out = run(
            Variant::LossWaits,
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
            assert_eq!(s, st(Phase::Dead));
        }
    }

    #[test]
    fn every_node_event_while_waiting_rechecks_except_in_no_recheck() {
        for kind in [
            EventType::NodeDeleted,
            EventType::NodeDataChanged,
            EventType::NodeCreated,
        ] {
            for variant in [Variant::Reference, Variant::LossIsGone, Variant::LossWaits] {
                let mut s = st(Phase::Waiting);
                let out = run(variant, &mut s, event(kind));
                assert_eq!(out, effects(vec![exists_op()], vec![]), "{kind:?}");
                assert_eq!(s, st(Phase::Checking));
            }
            let mut s = st(Phase::Waiting);
            let out = run(Variant::NoRecheck, &mut s, event(kind));
            assert_eq!((out, s), (nothing(), st(Phase::Passed)), "{kind:?}");
        }
    }

    #[test]
    fn sync_connected_while_waiting_rechecks_and_disconnected_does_nothing() {
        let mut s = st(Phase::Waiting);
        let out = run(
            Variant::Reference,
            &mut s,
            Input::Session(SessionEvent::SyncConnected),
        );
        assert_eq!(
            (out, s),
            (effects(vec![exists_op()], vec![]), st(Phase::Checking))
        );
        let mut s = st(Phase::Waiting);
        let out = run(
            Variant::Reference,
            &mut s,
            Input::Session(SessionEvent::Disconnected),
        );
        assert_eq!((out, s), (nothing(), st(Phase::Waiting)));
    }

    #[test]
    fn no_recheck_passes_on_disconnected() {
        let mut s = st(Phase::Waiting);
        let out = run(
            Variant::NoRecheck,
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
            Variant::NoRecheck,
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
                let out = run(Variant::Reference, &mut s, Input::Session(event));
                assert_eq!(out, effects(vec![], vec![Observation::GaveUp]));
                assert_eq!(s, st(Phase::Dead));
            }
            for phase in [Phase::Idle, Phase::Lifting] {
                let mut s = st(phase);
                let out = run(Variant::Reference, &mut s, Input::Session(event));
                assert_eq!((out, s), (nothing(), st(Phase::Dead)), "{phase:?}");
            }
            for phase in [Phase::Passed, Phase::Lifted] {
                let mut s = st(phase);
                let out = run(Variant::Reference, &mut s, Input::Session(event));
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
            Input::Session(SessionEvent::SyncConnected),
        ] {
            let out = run(Variant::NoRecheck, &mut s, input);
            assert_eq!((out, s), (nothing(), st(Phase::Dead)));
        }
    }

    #[test]
    fn lift_is_done_on_deleted_or_no_node_and_repeats_a_lost_delete() {
        for result in [Ok(Response::Deleted), Err(ErrorCode::NoNode)] {
            let mut s = st(Phase::Lifting);
            let out = run(Variant::Reference, &mut s, reply(delete_op(), result));
            assert_eq!((out, s), (nothing(), st(Phase::Lifted)));
        }
        let mut s = st(Phase::Lifting);
        let out = run(Variant::Reference, &mut s, reply(delete_op(), lost()));
        assert_eq!(
            (out, s),
            (effects(vec![delete_op()], vec![]), st(Phase::Lifting))
        );
        let mut s = st(Phase::Lifting);
        let out = run(Variant::Reference, &mut s, reply(delete_op(), expired()));
        assert_eq!((out, s), (nothing(), st(Phase::Dead)));
    }

    #[test]
    fn busy_and_waiting_per_phase() {
        let barrier = Barrier::new(Variant::Reference);
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

    fn world(variant: Variant, budget: FaultBudget) -> World<Barrier> {
        let scripts = vec![
            vec![Command::Lift],
            vec![Command::Wait],
            vec![Command::Wait],
        ];
        World {
            recipe: Barrier::build(variant, &scripts),
            scripts,
            budget,
            expire_anytime: false,
            store: StoreConfig::default(),
            properties: <Barrier as Catalogued>::properties,
            halt: None,
        }
    }

    #[test]
    fn world_the_waiters_pass_after_the_lift_and_not_before() {
        let world = world(Variant::Reference, FaultBudget::default());
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
        let budget = FaultBudget {
            disconnect: 1,
            ..FaultBudget::default()
        };
        let world = world(Variant::NoRecheck, budget);
        let init = world.init_states().remove(0);
        let mut state = walk(&world, init, &[Action::Invoke(1)]);
        state = walk(&world, state, &round_trip(1));
        assert!(no_early_pass(&world, &state));
        state = walk(
            &world,
            state,
            &[
                Action::Fault(Fault::Disconnect {
                    client: 1,
                    applied: 0,
                }),
                Action::Deliver(1),
            ],
        );
        assert_eq!(state.processes[1].recipe, st(Phase::Passed));
        assert!(state.net.store.exists(&node()));
        assert!(!no_early_pass(&world, &state));
    }

    #[test]
    fn world_an_expired_waiter_is_not_live_and_does_not_count_as_stuck() {
        let budget = FaultBudget {
            disconnect: 1,
            expire: 1,
            ..FaultBudget::default()
        };
        let world = world(Variant::Reference, budget);
        let init = world.init_states().remove(0);
        let mut state = walk(&world, init, &[Action::Invoke(1), Action::Invoke(2)]);
        state = walk(&world, state, &round_trip(1));
        state = walk(&world, state, &round_trip(2));
        state = walk(
            &world,
            state,
            &[
                Action::Fault(Fault::Disconnect {
                    client: 2,
                    applied: 0,
                }),
                Action::Deliver(2),
                Action::Fault(Fault::Expire { client: 2 }),
                Action::Reconnect(2),
            ],
        );
        assert_eq!(state.processes[2].recipe, st(Phase::Dead));
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
        let budget = FaultBudget {
            lose_reply: 1,
            ..FaultBudget::default()
        };
        let world = world(Variant::LossWaits, budget);
        let init = world.init_states().remove(0);
        let mut state = walk(
            &world,
            init,
            &[
                Action::Invoke(1),
                Action::Fault(Fault::LoseReply { client: 1 }),
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
        let world = super::barrier::world(Variant::Reference, budget);
        let init = world.init_states().remove(0);
        let mut state = walk(
            &world,
            init,
            &[
                Action::Invoke(1),
                Action::Fault(Fault::LoseReply { client: 1 }),
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
            ["reference", "no_recheck", "loss_is_gone", "loss_waits"]
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
