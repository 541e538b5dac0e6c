//! The queue and priority queue actors (`models/queue.rs`,
//! `models/priority_queue.rs`), one test per branch of the put and the take,
//! named after the branch it reaches: each drives the actor with a hand-built
//! input and asserts the exact effects (requests sent, observations) and the
//! resulting state.
//!
//! Then a few scripted interleavings through the whole world
//! (`zoocheck::world::World`), each walking one run action by action and
//! reading the properties on the states it reaches.

use std::sync::Arc;

use stateright::Model;

use zoocheck::catalogued::Catalogued;
use zoocheck::client::SessionEvent;
use zoocheck::faults::{Fault, FaultBudget, Kind};
use zoocheck::models::priority_queue::{
    self, highest_priority_first, Command as PqCommand, PriorityQueue,
};
use zoocheck::models::queue::{
    consumed_once, no_item_lost, Command, Fact, Item, Knobs, Put, Putting, Queue, State, Take,
};
use zoocheck::recipe::{Effects, Incarnation, Input, Observation, Recipe};
use zoocheck::store::{
    data, CreateMode, ErrorCode, EventType, MultiOp, MultiOutcome, MultiResult, Op, OpResult, Path,
    Response, Stat, WatchEvent, ANY_VERSION,
};
use zoocheck::world::{Action, World};

mod actor;
use actor::*;

// ---------------------------------------------------------------------------
// Helpers.
// ---------------------------------------------------------------------------

/// Client 1's first process: a consumer (and, in the put tests, a producer).
const ME: Incarnation = Incarnation {
    client: 1,
    restarts: 0,
};

const ALL_VARIANTS: [Knobs; 5] = [
    Knobs::GUID,
    Knobs::EPHEMERAL,
    Knobs::BLIND,
    Knobs::UNSORTED,
    Knobs::EXACTLY_ONCE,
];

/// Client 1's first item, and its second.
fn first() -> Item {
    Item::new(1, 0)
}

fn second() -> Item {
    Item::new(1, 1)
}

fn run(variant: Knobs, state: &mut State, input: Input<Command>) -> Effects<Fact> {
    let mut out = Effects::default();
    Queue::new(variant).handle(ME, state, input, &mut out);
    out
}

fn at(name: &str) -> Path {
    Path::new(&format!("/queue/{name}"))
}

fn item_data(item: Item) -> OpResult {
    Ok(Response::Data {
        data: data(&item.bytes()),
        stat: Stat::default(),
    })
}

fn exists(yes: bool) -> OpResult {
    Ok(Response::Exists(yes.then(Stat::default)))
}

fn create_op(prefix: &str, item: Item, mode: CreateMode) -> Op {
    Op::Create {
        path: at(prefix),
        data: data(&item.bytes()),
        mode,
    }
}

fn put_multi(prefix: &str, item: Item) -> Op {
    Op::Multi(vec![
        MultiOp::Create {
            path: at(prefix),
            data: data(&item.bytes()),
            mode: CreateMode::PersistentSequential,
        },
        MultiOp::Create {
            path: at(&format!("put-{item}")),
            data: None,
            mode: CreateMode::Persistent,
        },
    ])
}

fn take_multi(node: &str, receipt: &str) -> Op {
    Op::Multi(vec![
        MultiOp::Delete {
            path: at(node),
            version: ANY_VERSION,
        },
        MultiOp::Create {
            path: at(receipt),
            data: None,
            mode: CreateMode::Persistent,
        },
    ])
}

fn committed() -> OpResult {
    Ok(Response::Multi(MultiOutcome::Committed(vec![
        MultiResult::Deleted,
        MultiResult::Created {
            path: at("taken-c1-0"),
        },
    ])))
}

fn aborted() -> OpResult {
    Ok(Response::Multi(MultiOutcome::Aborted {
        ops: 2,
        failed_at: 0,
        code: ErrorCode::NoNode,
    }))
}

fn list_op(watch: bool) -> Op {
    Op::GetChildren {
        path: Path::new("/queue"),
        watch,
    }
}

fn read_op(name: &str) -> Op {
    Op::GetData {
        path: at(name),
        watch: false,
    }
}

fn delete_op(name: &str) -> Op {
    Op::Delete {
        path: at(name),
        version: ANY_VERSION,
    }
}

fn exists_op(name: &str) -> Op {
    Op::Exists {
        path: at(name),
        watch: false,
    }
}

fn children_changed<C>() -> Input<C> {
    Input::Watch(WatchEvent {
        kind: EventType::NodeChildrenChanged,
        path: Path::new("/queue"),
    })
}

fn consumed(item: Item) -> Observation<Fact> {
    Observation::Fact(Fact::Consumed { item })
}

fn putting(item: Item) -> Putting {
    Putting {
        item,
        priority: None,
    }
}

/// A producer whose first put is at `put`.
fn producer(put: Put) -> State {
    State {
        puts: 1,
        put,
        ..State::new()
    }
}

/// A consumer at `take` with `batch` still to try.
fn consumer(take: Take, batch: &[&str]) -> State {
    State {
        take,
        batch: names(batch),
        ..State::new()
    }
}

fn reading(name: &str) -> Take {
    Take::Reading(Arc::from(name))
}

fn deleting(name: &str, item: Item) -> Take {
    Take::Deleting(Arc::from(name), item)
}

const LOW: &str = "c0.0-queue-0000000000";
const HIGH: &str = "c0.1-queue-0000000001";

// ---------------------------------------------------------------------------
// Put (step 2) and a lost put reply.
// ---------------------------------------------------------------------------

#[test]
fn put_creates_the_item_node_each_variant_names_and_flags() {
    for (variant, expected) in [
        (
            Knobs::GUID,
            create_op("c1.0-queue-", first(), CreateMode::PersistentSequential),
        ),
        (
            Knobs::UNSORTED,
            create_op("c1.0-queue-", first(), CreateMode::PersistentSequential),
        ),
        (
            Knobs::EPHEMERAL,
            create_op("c1.0-queue-", first(), CreateMode::EphemeralSequential),
        ),
        (
            Knobs::BLIND,
            create_op("queue-", first(), CreateMode::PersistentSequential),
        ),
        (Knobs::EXACTLY_ONCE, put_multi("queue-", first())),
    ] {
        let mut state = State::new();
        let out = run(variant, &mut state, Input::Command(Command::Put));
        assert_eq!(out, effects(vec![expected], vec![]), "{variant:?}");
        assert_eq!(state, producer(Put::Creating(putting(first()))));
    }
}

#[test]
fn the_next_put_carries_the_next_serial() {
    let mut state = producer(Put::Idle);
    let out = run(Knobs::GUID, &mut state, Input::Command(Command::Put));
    assert_eq!(
        out.requests,
        [create_op(
            "c1.1-queue-",
            second(),
            CreateMode::PersistentSequential
        )]
    );
    assert_eq!(state.puts, 2);
}

#[test]
fn put_while_putting_or_dead_does_nothing() {
    for variant in ALL_VARIANTS {
        let mut busy = producer(Put::Creating(putting(first())));
        let before = busy.clone();
        assert_eq!(
            run(variant, &mut busy, Input::Command(Command::Put)),
            nothing()
        );
        assert_eq!(busy, before);
        let mut dead = State {
            dead: true,
            ..State::new()
        };
        assert_eq!(
            run(variant, &mut dead, Input::Command(Command::Put)),
            nothing()
        );
        assert_eq!(dead.puts, 0);
    }
}

#[test]
fn create_ok_ends_the_put() {
    let mut state = producer(Put::Creating(putting(first())));
    let op = create_op("c1.0-queue-", first(), CreateMode::PersistentSequential);
    let created = Ok(Response::Created {
        path: at("c1.0-queue-0000000004"),
        stat: Stat::default(),
    });
    assert_eq!(run(Knobs::GUID, &mut state, reply(op, created)), nothing());
    assert_eq!(state, producer(Put::Idle));
}

#[test]
fn guid_create_connection_loss_lists_without_watch_to_find_the_item() {
    let mut state = producer(Put::Creating(putting(first())));
    let op = create_op("c1.0-queue-", first(), CreateMode::PersistentSequential);
    let out = run(Knobs::GUID, &mut state, reply(op, lost()));
    assert_eq!(out, effects(vec![list_op(false)], vec![]));
    assert_eq!(state, producer(Put::Recovering(putting(first()))));
}

#[test]
fn guid_recovery_listing_showing_the_item_ends_the_put() {
    let mut state = producer(Put::Recovering(putting(first())));
    let listing = children(&["c0.0-queue-0000000000", "c1.0-queue-0000000001"]);
    let out = run(Knobs::GUID, &mut state, reply(list_op(false), listing));
    assert_eq!(out, nothing());
    assert_eq!(state, producer(Put::Idle));
}

#[test]
fn guid_recovery_listing_without_the_item_creates_it_again() {
    let mut state = producer(Put::Recovering(putting(first())));
    // `c1.00-` is not `c1.0-`: the GUID is matched with its dash.
    let listing = children(&["c0.0-queue-0000000000", "c1.1-queue-0000000001"]);
    let out = run(Knobs::GUID, &mut state, reply(list_op(false), listing));
    assert_eq!(
        out.requests,
        [create_op(
            "c1.0-queue-",
            first(),
            CreateMode::PersistentSequential
        )]
    );
    assert_eq!(state, producer(Put::Creating(putting(first()))));
}

#[test]
fn guid_recovery_listing_connection_loss_lists_again_and_other_errors_end_the_put() {
    let mut state = producer(Put::Recovering(putting(first())));
    let out = run(Knobs::GUID, &mut state, reply(list_op(false), lost()));
    assert_eq!(out.requests, [list_op(false)]);
    assert_eq!(state, producer(Put::Recovering(putting(first()))));
    let out = run(
        Knobs::GUID,
        &mut state,
        reply(list_op(false), Err(ErrorCode::NoNode)),
    );
    assert_eq!(out, nothing());
    assert_eq!(state, producer(Put::Idle));
}

#[test]
fn blind_create_connection_loss_creates_again() {
    let mut state = producer(Put::Creating(putting(first())));
    let op = create_op("queue-", first(), CreateMode::PersistentSequential);
    let out = run(Knobs::BLIND, &mut state, reply(op.clone(), lost()));
    assert_eq!(out, effects(vec![op], vec![]));
    assert_eq!(state, producer(Put::Creating(putting(first()))));
}

#[test]
fn exactly_once_put_committed_deletes_the_marker_before_returning() {
    let mut state = producer(Put::Creating(putting(first())));
    let ok = Ok(Response::Multi(MultiOutcome::Committed(vec![])));
    let out = run(
        Knobs::EXACTLY_ONCE,
        &mut state,
        reply(put_multi("queue-", first()), ok),
    );
    assert_eq!(out, effects(vec![delete_op("put-c1.0")], vec![]));
    assert_eq!(state, producer(Put::CleaningUp(putting(first()))));
    assert!(Queue::new(Knobs::EXACTLY_ONCE).is_busy(&state));
}

#[test]
fn exactly_once_put_connection_loss_asks_whether_the_marker_exists() {
    let mut state = producer(Put::Creating(putting(first())));
    let out = run(
        Knobs::EXACTLY_ONCE,
        &mut state,
        reply(put_multi("queue-", first()), lost()),
    );
    assert_eq!(out, effects(vec![exists_op("put-c1.0")], vec![]));
    assert_eq!(state, producer(Put::Recovering(putting(first()))));
    // The question itself lost: ask again.
    let out = run(
        Knobs::EXACTLY_ONCE,
        &mut state,
        reply(exists_op("put-c1.0"), lost()),
    );
    assert_eq!(out.requests, [exists_op("put-c1.0")]);
}

#[test]
fn exactly_once_marker_found_deletes_it_before_returning() {
    let mut state = producer(Put::Recovering(putting(first())));
    let out = run(
        Knobs::EXACTLY_ONCE,
        &mut state,
        reply(exists_op("put-c1.0"), exists(true)),
    );
    assert_eq!(out, effects(vec![delete_op("put-c1.0")], vec![]));
    assert_eq!(state, producer(Put::CleaningUp(putting(first()))));
}

#[test]
fn exactly_once_marker_missing_puts_again() {
    let mut state = producer(Put::Recovering(putting(first())));
    let out = run(
        Knobs::EXACTLY_ONCE,
        &mut state,
        reply(exists_op("put-c1.0"), exists(false)),
    );
    assert_eq!(out, effects(vec![put_multi("queue-", first())], vec![]));
    assert_eq!(state, producer(Put::Creating(putting(first()))));
}

#[test]
fn a_lost_clean_up_is_sent_again_and_any_other_answer_ends_the_call() {
    let marker = || producer(Put::CleaningUp(putting(first())));
    let receipt = || consumer(Take::CleaningUp, &[]);
    for (start, name, end) in [
        (marker(), "put-c1.0", producer(Put::Idle)),
        (receipt(), "taken-c1-0", consumer(Take::Idle, &[])),
    ] {
        let mut state = start.clone();
        let out = run(
            Knobs::EXACTLY_ONCE,
            &mut state,
            reply(delete_op(name), lost()),
        );
        assert_eq!(out, effects(vec![delete_op(name)], vec![]));
        assert_eq!(state, start);
        for result in [Ok(Response::Deleted), Err(ErrorCode::NoNode)] {
            let mut state = start.clone();
            let out = run(
                Knobs::EXACTLY_ONCE,
                &mut state,
                reply(delete_op(name), result),
            );
            assert_eq!(out, nothing());
            assert_eq!(state, end);
        }
    }
}

// ---------------------------------------------------------------------------
// Take (steps 3 to 5).
// ---------------------------------------------------------------------------

#[test]
fn take_with_an_empty_list_lists_with_a_watch() {
    for variant in ALL_VARIANTS {
        let mut state = State::new();
        let out = run(variant, &mut state, Input::Command(Command::Take));
        assert_eq!(out, effects(vec![list_op(true)], vec![]));
        assert_eq!(state, consumer(Take::Listing, &[]));
    }
}

#[test]
fn take_with_a_list_left_reads_its_next_node_without_listing() {
    let mut state = consumer(Take::Idle, &[HIGH]);
    let out = run(Knobs::GUID, &mut state, Input::Command(Command::Take));
    assert_eq!(out, effects(vec![read_op(HIGH)], vec![]));
    assert_eq!(state, consumer(reading(HIGH), &[]));
}

#[test]
fn take_while_taking_or_dead_does_nothing() {
    let mut busy = consumer(Take::Waiting, &[]);
    assert_eq!(
        run(Knobs::GUID, &mut busy, Input::Command(Command::Take)),
        nothing()
    );
    assert_eq!(busy, consumer(Take::Waiting, &[]));
    let mut dead = State {
        dead: true,
        ..State::new()
    };
    assert_eq!(
        run(Knobs::GUID, &mut dead, Input::Command(Command::Take)),
        nothing()
    );
}

#[test]
fn an_empty_listing_waits() {
    let mut state = consumer(Take::Listing, &[]);
    let out = run(Knobs::GUID, &mut state, reply(list_op(true), children(&[])));
    assert_eq!(out, nothing());
    assert_eq!(state, consumer(Take::Waiting, &[]));
    assert!(Queue::new(Knobs::GUID).is_waiting(&state));
}

#[test]
fn a_listing_is_sorted_lowest_first_and_the_lowest_read_markers_ignored() {
    let listing = children(&[HIGH, "put-c0.1", LOW, "taken-c2-0"]);
    let mut state = consumer(Take::Listing, &[]);
    let out = run(Knobs::GUID, &mut state, reply(list_op(true), listing));
    assert_eq!(out, effects(vec![read_op(LOW)], vec![]));
    assert_eq!(state, consumer(reading(LOW), &[HIGH]));
}

#[test]
fn unsorted_reads_the_first_listed() {
    let mut state = consumer(Take::Listing, &[]);
    let out = run(
        Knobs::UNSORTED,
        &mut state,
        reply(list_op(true), children(&[HIGH, LOW])),
    );
    assert_eq!(out, effects(vec![read_op(HIGH)], vec![]));
    assert_eq!(state, consumer(reading(HIGH), &[LOW]));
}

#[test]
fn a_lost_listing_lists_again() {
    let mut state = consumer(Take::Listing, &[]);
    let out = run(Knobs::GUID, &mut state, reply(list_op(true), lost()));
    assert_eq!(out, effects(vec![list_op(true)], vec![]));
    assert_eq!(state, consumer(Take::Listing, &[]));
}

#[test]
fn the_item_read_is_deleted_or_taken_by_multi() {
    let mut state = consumer(reading(LOW), &[HIGH]);
    let out = run(
        Knobs::GUID,
        &mut state,
        reply(read_op(LOW), item_data(Item::new(0, 0))),
    );
    assert_eq!(out, effects(vec![delete_op(LOW)], vec![]));
    assert_eq!(state, consumer(deleting(LOW, Item::new(0, 0)), &[HIGH]));

    let mut state = consumer(reading(LOW), &[]);
    let out = run(
        Knobs::EXACTLY_ONCE,
        &mut state,
        reply(read_op(LOW), item_data(Item::new(0, 0))),
    );
    assert_eq!(out, effects(vec![take_multi(LOW, "taken-c1-0")], vec![]));
    assert_eq!(state, consumer(deleting(LOW, Item::new(0, 0)), &[]));
}

#[test]
fn a_node_that_carries_no_item_is_skipped() {
    let mut state = consumer(reading(LOW), &[HIGH]);
    let junk = Ok(Response::Data {
        data: data(b"junk"),
        stat: Stat::default(),
    });
    let out = run(Knobs::GUID, &mut state, reply(read_op(LOW), junk));
    assert_eq!(out, effects(vec![read_op(HIGH)], vec![]));
    assert_eq!(state, consumer(reading(HIGH), &[]));
}

#[test]
fn read_no_node_tries_the_next_or_lists_when_the_list_is_exhausted() {
    let mut state = consumer(reading(LOW), &[HIGH]);
    let gone = Err(ErrorCode::NoNode);
    let out = run(Knobs::GUID, &mut state, reply(read_op(LOW), gone.clone()));
    assert_eq!(out.requests, [read_op(HIGH)]);
    let out = run(Knobs::GUID, &mut state, reply(read_op(HIGH), gone));
    assert_eq!(out.requests, [list_op(true)]);
    assert_eq!(state, consumer(Take::Listing, &[]));
}

#[test]
fn a_lost_read_reads_again() {
    let mut state = consumer(reading(LOW), &[]);
    let out = run(Knobs::GUID, &mut state, reply(read_op(LOW), lost()));
    assert_eq!(out.requests, [read_op(LOW)]);
    assert_eq!(state, consumer(reading(LOW), &[]));
}

#[test]
fn delete_ok_consumes_the_item_and_keeps_the_rest_of_the_list() {
    let mut state = consumer(deleting(LOW, Item::new(0, 0)), &[HIGH]);
    let out = run(
        Knobs::GUID,
        &mut state,
        reply(delete_op(LOW), Ok(Response::Deleted)),
    );
    assert_eq!(out, effects(vec![], vec![consumed(Item::new(0, 0))]));
    assert_eq!(
        state,
        State {
            takes: 1,
            ..consumer(Take::Idle, &[HIGH])
        }
    );
}

#[test]
fn delete_no_node_means_someone_else_took_it() {
    let mut state = consumer(deleting(LOW, Item::new(0, 0)), &[HIGH]);
    let out = run(
        Knobs::GUID,
        &mut state,
        reply(delete_op(LOW), Err(ErrorCode::NoNode)),
    );
    assert_eq!(out, effects(vec![read_op(HIGH)], vec![]));
    assert_eq!(state, consumer(reading(HIGH), &[]));
}

#[test]
fn a_lost_delete_deletes_again() {
    let mut state = consumer(deleting(LOW, Item::new(0, 0)), &[]);
    let out = run(Knobs::GUID, &mut state, reply(delete_op(LOW), lost()));
    assert_eq!(out, effects(vec![delete_op(LOW)], vec![]));
    assert_eq!(state, consumer(deleting(LOW, Item::new(0, 0)), &[]));
}

#[test]
fn exactly_once_take_committed_consumes_and_deletes_the_receipt_before_returning() {
    let mut state = consumer(deleting(LOW, Item::new(0, 0)), &[]);
    let out = run(
        Knobs::EXACTLY_ONCE,
        &mut state,
        reply(take_multi(LOW, "taken-c1-0"), committed()),
    );
    assert_eq!(
        out,
        effects(
            vec![delete_op("taken-c1-0")],
            vec![consumed(Item::new(0, 0))]
        )
    );
    assert_eq!(state.takes, 1);
    assert_eq!(state.take, Take::CleaningUp);
}

#[test]
fn exactly_once_take_aborted_tries_the_next() {
    let mut state = consumer(deleting(LOW, Item::new(0, 0)), &[HIGH]);
    let out = run(
        Knobs::EXACTLY_ONCE,
        &mut state,
        reply(take_multi(LOW, "taken-c1-0"), aborted()),
    );
    assert_eq!(out, effects(vec![read_op(HIGH)], vec![]));
    assert_eq!(state, consumer(reading(HIGH), &[]));
}

#[test]
fn exactly_once_lost_take_asks_whether_the_receipt_exists() {
    let checking = Take::Checking(Arc::from(LOW), Item::new(0, 0));
    let mut state = consumer(deleting(LOW, Item::new(0, 0)), &[]);
    let out = run(
        Knobs::EXACTLY_ONCE,
        &mut state,
        reply(take_multi(LOW, "taken-c1-0"), lost()),
    );
    assert_eq!(out, effects(vec![exists_op("taken-c1-0")], vec![]));
    assert_eq!(state, consumer(checking.clone(), &[]));

    // Lost again: ask again.
    let out = run(
        Knobs::EXACTLY_ONCE,
        &mut state,
        reply(exists_op("taken-c1-0"), lost()),
    );
    assert_eq!(out.requests, [exists_op("taken-c1-0")]);

    // Found: the take was applied.
    let mut found = state.clone();
    let out = run(
        Knobs::EXACTLY_ONCE,
        &mut found,
        reply(exists_op("taken-c1-0"), exists(true)),
    );
    assert_eq!(
        out,
        effects(
            vec![delete_op("taken-c1-0")],
            vec![consumed(Item::new(0, 0))]
        )
    );
    assert_eq!(found.take, Take::CleaningUp);

    // Missing: it was not; take again.
    let out = run(
        Knobs::EXACTLY_ONCE,
        &mut state,
        reply(exists_op("taken-c1-0"), exists(false)),
    );
    assert_eq!(out, effects(vec![take_multi(LOW, "taken-c1-0")], vec![]));
    assert_eq!(state, consumer(deleting(LOW, Item::new(0, 0)), &[]));
}

// ---------------------------------------------------------------------------
// Watches, sessions, quitting.
// ---------------------------------------------------------------------------

#[test]
fn children_changed_while_waiting_lists_again() {
    let mut state = consumer(Take::Waiting, &[]);
    let out = run(Knobs::GUID, &mut state, children_changed());
    assert_eq!(out, effects(vec![list_op(true)], vec![]));
    assert_eq!(state, consumer(Take::Listing, &[]));
}

#[test]
fn children_changed_while_not_waiting_follows_the_on_change_knob() {
    let pq = |variant| PriorityQueue::new(variant);
    let start = || consumer(reading(LOW), &[HIGH]);

    // The plain queue serves its list until it is exhausted.
    let mut state = start();
    assert_eq!(run(Knobs::GUID, &mut state, children_changed()), nothing());
    assert_eq!(state, start());

    // The priority queue's reference drops its list.
    let mut state = start();
    let mut out = Effects::default();
    pq(priority_queue::Knobs::FRESH).handle(ME, &mut state, children_changed(), &mut out);
    assert_eq!(out, nothing());
    assert_eq!(state, consumer(reading(LOW), &[]));

    // The stale batch lists again and keeps its list; the listing is
    // recorded beside it, not served.
    let stale = pq(priority_queue::Knobs::STALE_BATCH);
    let mut state = start();
    let mut out = Effects::default();
    stale.handle(ME, &mut state, children_changed(), &mut out);
    assert_eq!(out, effects(vec![list_op(true)], vec![]));
    assert_eq!(state, start());
    let mut out = Effects::default();
    let listing = children(&["queue-01-0000000000", "queue-00-0000000001"]);
    stale.handle(
        ME,
        &mut state,
        Input::Reply {
            op: list_op(true),
            result: listing,
        },
        &mut out,
    );
    assert_eq!(out, nothing());
    assert_eq!(state.batch, names(&[HIGH]));
    assert_eq!(
        state.listing,
        names(&["queue-00-0000000001", "queue-01-0000000000"])
    );
    // Its lost background listing is sent again; the plain queue's is not.
    let mut out = Effects::default();
    stale.handle(
        ME,
        &mut state,
        Input::Reply {
            op: list_op(true),
            result: lost(),
        },
        &mut out,
    );
    assert_eq!(out.requests, [list_op(true)]);
    let mut plain = start();
    assert_eq!(
        run(Knobs::GUID, &mut plain, reply(list_op(true), lost())),
        nothing()
    );
}

#[test]
fn other_watch_events_are_ignored() {
    let mut state = consumer(Take::Waiting, &[]);
    let deleted = Input::Watch(WatchEvent {
        kind: EventType::NodeDeleted,
        path: Path::new("/queue"),
    });
    assert_eq!(run(Knobs::GUID, &mut state, deleted), nothing());
    let elsewhere = Input::Watch(WatchEvent {
        kind: EventType::NodeChildrenChanged,
        path: Path::new("/other"),
    });
    assert_eq!(run(Knobs::GUID, &mut state, elsewhere), nothing());
    assert_eq!(state, consumer(Take::Waiting, &[]));
}

#[test]
fn expired_or_closed_ends_every_call_and_later_commands_do_nothing() {
    for event in [SessionEvent::Expired, SessionEvent::Closed] {
        let mut state = State {
            put: Put::Creating(putting(first())),
            ..consumer(Take::Waiting, &[HIGH])
        };
        assert_eq!(
            run(Knobs::GUID, &mut state, Input::Session(event)),
            nothing()
        );
        assert!(state.dead);
        assert_eq!(state.put, Put::Idle);
        assert_eq!(state.take, Take::Idle);
        assert!(state.batch.is_empty());
        let queue = Queue::new(Knobs::GUID);
        assert!(!queue.is_busy(&state) && !queue.is_waiting(&state));
        assert_eq!(
            run(Knobs::GUID, &mut state, Input::Command(Command::Take)),
            nothing()
        );
    }
}

#[test]
fn a_session_expired_reply_ends_the_process() {
    let mut state = consumer(deleting(LOW, Item::new(0, 0)), &[]);
    let out = run(
        Knobs::GUID,
        &mut state,
        reply(delete_op(LOW), Err(ErrorCode::SessionExpired)),
    );
    assert_eq!(out, nothing());
    assert!(state.dead);
    assert_eq!(state.take, Take::Idle);
}

#[test]
fn disconnected_and_sync_connected_change_nothing() {
    for event in [SessionEvent::Disconnected, SessionEvent::SyncConnected] {
        let mut state = consumer(Take::Waiting, &[]);
        assert_eq!(
            run(Knobs::GUID, &mut state, Input::Session(event)),
            nothing()
        );
        assert_eq!(state, consumer(Take::Waiting, &[]));
    }
}

#[test]
fn quit_closes_the_session_unless_a_call_is_under_way() {
    let mut state = producer(Put::Idle);
    let out = run(Knobs::GUID, &mut state, Input::Command(Command::Quit));
    assert_eq!(out, effects(vec![Op::Close], vec![]));
    assert!(state.dead);
    let mut busy = consumer(Take::Waiting, &[]);
    assert_eq!(
        run(Knobs::GUID, &mut busy, Input::Command(Command::Quit)),
        nothing()
    );
    assert!(!busy.dead);
}

#[test]
fn is_busy_while_putting_or_taking_and_waiting_only_on_an_empty_queue() {
    let queue = Queue::new(Knobs::GUID);
    assert!(!queue.is_busy(&State::new()));
    assert!(queue.is_busy(&producer(Put::Recovering(putting(first())))));
    assert!(queue.is_busy(&producer(Put::CleaningUp(putting(first())))));
    for take in [
        Take::Listing,
        Take::Waiting,
        reading(LOW),
        deleting(LOW, first()),
        Take::Checking(Arc::from(LOW), first()),
        Take::CleaningUp,
    ] {
        let state = consumer(take.clone(), &[]);
        assert!(queue.is_busy(&state));
        assert_eq!(queue.is_waiting(&state), take == Take::Waiting);
    }
    assert!(!queue.claims(&consumer(reading(LOW), &[]), LOW));
}

// ---------------------------------------------------------------------------
// Server facts.
// ---------------------------------------------------------------------------

#[test]
fn served_reports_an_applied_put_as_enqueued_and_nothing_else() {
    let queue = Queue::new(Knobs::GUID);
    let enqueued = Some(Fact::Enqueued { item: first() });
    let create = create_op("c1.0-queue-", first(), CreateMode::PersistentSequential);
    let created = Ok(Response::Created {
        path: at("c1.0-queue-0000000000"),
        stat: Stat::default(),
    });
    assert_eq!(queue.served(&create, &created), enqueued);
    assert_eq!(queue.served(&create, &Err(ErrorCode::NoNode)), None);
    let multi = put_multi("queue-", first());
    let ok = Ok(Response::Multi(MultiOutcome::Committed(vec![])));
    assert_eq!(queue.served(&multi, &ok), enqueued);
    assert_eq!(queue.served(&multi, &aborted()), None);
    // A take's multi creates a receipt, not an item.
    assert_eq!(
        queue.served(&take_multi(LOW, "taken-c1-0"), &committed()),
        None
    );
    assert_eq!(queue.served(&delete_op(LOW), &Ok(Response::Deleted)), None);
}

#[test]
fn the_catalogues_name_variants_commands_and_properties() {
    assert_eq!(<Queue as Catalogued>::NAME, "queue");
    let variants: Vec<&str> = Queue::VARIANTS.iter().map(|(name, _)| *name).collect();
    assert_eq!(
        variants,
        [
            "guid",
            "ephemeral",
            "blind",
            "unsorted",
            "exactly_once",
            "forgets_expired"
        ]
    );
    let commands: Vec<&str> = Queue::COMMANDS.iter().map(|(name, _)| *name).collect();
    assert_eq!(commands, ["put", "take", "quit"]);
    let properties: Vec<&str> = <Queue as Catalogued>::properties()
        .iter()
        .map(|property| property.name)
        .collect();
    assert_eq!(
        properties,
        [
            "consumed_once",
            "no_item_lost",
            "producer_order",
            "item_consumed",
            "all_consumed",
            "two_of_one_producer"
        ]
    );
    assert_eq!(<PriorityQueue as Catalogued>::NAME, "priority_queue");
    let commands: Vec<&str> = PriorityQueue::COMMANDS
        .iter()
        .map(|(name, _)| *name)
        .collect();
    assert_eq!(commands, ["put_high", "put_low", "take"]);
}

// ---------------------------------------------------------------------------
// The priority queue's own steps.
// ---------------------------------------------------------------------------

fn pq_run(
    variant: priority_queue::Knobs,
    state: &mut State,
    input: Input<priority_queue::Command>,
) -> Effects<Fact> {
    let mut out = Effects::default();
    PriorityQueue::new(variant).handle(ME, state, input, &mut out);
    out
}

#[test]
fn priority_puts_name_the_priority_before_the_sequence() {
    use priority_queue::Command::*;
    for (command, prefix) in [(PutHigh, "c1.0-queue-00-"), (PutLow, "c1.0-queue-01-")] {
        let mut state = State::new();
        let out = pq_run(
            priority_queue::Knobs::FRESH,
            &mut state,
            Input::Command(command),
        );
        assert_eq!(
            out.requests,
            [create_op(prefix, first(), CreateMode::PersistentSequential)]
        );
        // A lost reply's recovery creates with the same priority.
        let out = pq_run(
            priority_queue::Knobs::FRESH,
            &mut state,
            Input::Reply {
                op: out.requests[0].clone(),
                result: lost(),
            },
        );
        assert_eq!(out.requests, [list_op(false)]);
        let out = pq_run(
            priority_queue::Knobs::FRESH,
            &mut state,
            Input::Reply {
                op: list_op(false),
                result: children(&[]),
            },
        );
        assert_eq!(
            out.requests,
            [create_op(prefix, first(), CreateMode::PersistentSequential)]
        );
    }
}

#[test]
fn a_priority_consumer_reports_its_choice() {
    let low_old = "c0.0-queue-01-0000000000";
    let high = "c0.2-queue-00-0000000002";
    let low_new = "c0.1-queue-01-0000000001";
    // A stale batch chooses the next name of its batch, whatever its
    // listing shows; what it was told is the world's to judge.
    let mut state = State {
        listing: names(&[high, low_old, low_new]),
        ..consumer(Take::Idle, &[low_new])
    };
    let out = pq_run(
        priority_queue::Knobs::STALE_BATCH,
        &mut state,
        Input::Command(priority_queue::Command::Take),
    );
    assert_eq!(out.requests, [read_op(low_new)]);
    assert_eq!(
        out.observations,
        [Observation::Fact(Fact::Chose {
            node: Arc::from(low_new)
        })]
    );
    // The plain queue never reports a choice.
    let mut state = consumer(Take::Idle, &[low_new]);
    let mut out = Effects::default();
    Queue::new(Knobs::GUID).handle(ME, &mut state, Input::Command(Command::Take), &mut out);
    assert!(out.observations.is_empty());
}

// ---------------------------------------------------------------------------
// Scripted interleavings through the whole world.
// ---------------------------------------------------------------------------

fn world<R: Catalogued>(recipe: R, scripts: Vec<Vec<R::Command>>, budget: FaultBudget) -> World<R> {
    World::new(recipe, scripts, <R as Catalogued>::properties).with_budget(budget)
}

/// Client `client` is invoked, its request served and the reply read.
fn round(client: usize) -> Vec<Action> {
    vec![
        Action::Invoke(client),
        Action::Serve(client),
        Action::Deliver(client),
    ]
}

/// A consumer's delete served, then its own watch's notification and the
/// reply read.
fn deleted(client: usize) -> Vec<Action> {
    vec![
        Action::Serve(client),
        Action::Deliver(client),
        Action::Deliver(client),
    ]
}

/// One request of `client` served and its reply read.
fn served(client: usize) -> Vec<Action> {
    vec![Action::Serve(client), Action::Deliver(client)]
}

#[test]
fn world_guid_recovery_races_a_consumer_and_the_item_is_consumed_twice() {
    let world = world(
        Queue::new(Knobs::GUID),
        vec![vec![Command::Put], vec![Command::Take, Command::Take]],
        FaultBudget::of(Kind::LoseReply, 1),
    );
    let init = world.init_states().remove(0);
    // c0's create is applied, its reply lost: the item is enqueued.
    let state = walk(
        &world,
        init,
        &[
            Action::Invoke(0),
            Action::Fault(Fault::new(Kind::LoseReply, 0)),
        ],
    );
    let item = Item::new(0, 0);
    assert_eq!(state.history.log.enqueued, item.bit());
    // c1 takes it: list, read, delete.
    let state = walk(&world, state, &round(1));
    let state = walk(&world, state, &served(1));
    let state = walk(&world, state, &deleted(1));
    assert_eq!(state.history.log.consumed, item.bit());
    assert!(consumed_once(&world, &state));
    // c0 notices, lists for its GUID, finds nothing, creates again.
    let state = walk(
        &world,
        state,
        &[
            Action::Deliver(0),
            Action::Reconnect(0),
            Action::Serve(0),
            Action::Deliver(0),
        ],
    );
    assert_eq!(state.processes[0].recipe.put, Put::Creating(putting(item)));
    let state = walk(&world, state, &served(0));
    assert_eq!(state.processes[0].recipe.put, Put::Idle);
    // c1's second take gets the same item again.
    let state = walk(&world, state, &round(1));
    let state = walk(&world, state, &served(1));
    assert!(consumed_once(&world, &state));
    let state = walk(&world, state, &deleted(1));
    assert!(!consumed_once(&world, &state));
}

#[test]
fn world_an_ephemeral_item_goes_with_its_producers_session_and_is_lost() {
    for (variant, lost) in [(Knobs::EPHEMERAL, true), (Knobs::GUID, false)] {
        let world = world(
            Queue::new(variant),
            vec![vec![Command::Put, Command::Quit], vec![Command::Take]],
            FaultBudget::default(),
        );
        let init = world.init_states().remove(0);
        let state = walk(&world, init, &round(0));
        let state = walk(&world, state, &round(0));
        assert_eq!(state.history.log.enqueued, Item::new(0, 0).bit());
        // The consumer lists after the session closed.
        let state = walk(&world, state, &round(1));
        let waiting = state.processes[1].recipe.take == Take::Waiting;
        assert_eq!(waiting, lost, "{variant:?}");
        if lost {
            assert!(world.is_quiescent(&state));
            assert!(!no_item_lost(&world, &state));
        } else {
            let state = walk(&world, state, &served(1));
            let state = walk(&world, state, &deleted(1));
            assert!(world.is_quiescent(&state));
            assert!(no_item_lost(&world, &state));
        }
    }
}

#[test]
fn world_no_item_lost_counts_an_item_left_beside_a_waiting_consumer() {
    let world = world(
        Queue::new(Knobs::GUID),
        vec![vec![Command::Put], vec![Command::Take]],
        FaultBudget::default(),
    );
    let init = world.init_states().remove(0);
    let state = walk(&world, init, &round(0));
    let state = walk(&world, state, &round(1));
    let state = walk(&world, state, &served(1));
    let state = walk(&world, state, &deleted(1));
    assert!(world.is_quiescent(&state));
    assert!(no_item_lost(&world, &state));
    // The same state with the item still in the queue while the consumer
    // waits (not reachable: it checks what the property reads) is a loss,
    // and so is the item gone unconsumed.
    let mut stranded = state.clone();
    stranded.history.log.consumed = 0;
    assert!(!no_item_lost(&world, &stranded));
    stranded.processes[1].recipe.take = Take::Idle;
    assert!(!no_item_lost(&world, &stranded));
}

#[test]
fn world_a_take_chosen_before_the_high_item_was_known_is_no_inversion() {
    // REGRESSION: the property once judged a take against the listing read
    // when the take completed: here c1 chose the low item from a listing of
    // it alone, and only then heard of the high one.
    let world = world(
        PriorityQueue::new(priority_queue::Knobs::STALE_BATCH),
        vec![
            vec![PqCommand::PutLow, PqCommand::PutHigh],
            vec![PqCommand::Take, PqCommand::Take],
        ],
        FaultBudget::default(),
    );
    let init = world.init_states().remove(0);
    let state = walk(&world, init, &round(0));
    // c1 lists the low item alone and asks for its data.
    let state = walk(&world, state, &round(1));
    // The high item arrives; its notification reaches c1 before the data.
    let state = walk(&world, state, &round(0));
    let state = walk(&world, state, &[Action::Serve(1), Action::Deliver(1)]);
    assert!(state.history.log.knowledge[1].told_of_change);
    // c1 lists again to keep its watch, reads the data, deletes, and takes
    // the low item: chosen before it knew of the high one.
    let state = walk(&world, state, &[Action::Deliver(1)]);
    let state = walk(&world, state, &[Action::Serve(1), Action::Serve(1)]);
    let state = walk(
        &world,
        state,
        &[Action::Deliver(1), Action::Deliver(1), Action::Deliver(1)],
    );
    assert_eq!(state.history.log.queue.consumed, Item::new(0, 0).bit());
    assert!(highest_priority_first(&world, &state));
}

/// `priority_jumped` is judged at the choice, on the server's own record:
/// choosing the high item ahead of a low one the server created before it,
/// and still queues, is a jump; ahead of a younger low one it is not.
#[test]
fn world_a_choice_ahead_of_an_older_less_urgent_item_is_a_jump() {
    for (puts, jumps) in [
        (vec![PqCommand::PutLow, PqCommand::PutHigh], true),
        (vec![PqCommand::PutHigh, PqCommand::PutLow], false),
    ] {
        let world = world(
            PriorityQueue::new(priority_queue::Knobs::FRESH),
            vec![puts, vec![PqCommand::Take]],
            FaultBudget::default(),
        );
        let init = world.init_states().remove(0);
        let state = walk(&world, init, &round(0));
        let state = walk(&world, state, &round(0));
        assert!(!state.history.log.jumped);
        // c1 lists both items and chooses the high one.
        let state = walk(&world, state, &round(1));
        assert_eq!(state.history.log.knowledge[1].listing.len(), 2);
        assert!(
            matches!(&state.processes[1].recipe.take, Take::Reading(node) if node.contains("-00-"))
        );
        assert_eq!(state.history.log.jumped, jumps);
        assert!(highest_priority_first(&world, &state));
    }
}

#[test]
fn world_stale_batch_chooses_from_its_old_list_after_being_told_of_a_change() {
    let world = world(
        PriorityQueue::new(priority_queue::Knobs::STALE_BATCH),
        vec![
            vec![PqCommand::PutLow, PqCommand::PutLow, PqCommand::PutHigh],
            vec![PqCommand::Take, PqCommand::Take, PqCommand::Take],
        ],
        FaultBudget::default(),
    );
    let init = world.init_states().remove(0);
    // Two low items, and the high one asked for.
    let state = walk(&world, init, &round(0));
    let state = walk(&world, state, &round(0));
    let state = walk(&world, state, &[Action::Invoke(0)]);
    // c1 lists both low items and reads the first; the high one is created
    // and its notification follows the data reply.
    let state = walk(&world, state, &round(1));
    let state = walk(&world, state, &[Action::Serve(1), Action::Serve(0)]);
    // c1 reads the data (deletes), reads the event (lists again), and its
    // delete is served and read: it took the first low item.
    let state = walk(
        &world,
        state,
        &[
            Action::Deliver(1),
            Action::Deliver(1),
            Action::Serve(1),
            Action::Deliver(1),
        ],
    );
    assert_eq!(state.history.log.queue.consumed, Item::new(0, 0).bit());
    // The world, not the recipe, knows what c1 was told: the two low items,
    // then a change it has not listed again for.
    let knew = &state.history.log.knowledge[1];
    assert_eq!(knew.listing.len(), 2);
    assert!(knew.told_of_change);
    assert!(highest_priority_first(&world, &state));
    // Its next take serves the old list while the high item is queued.
    let state = walk(&world, state, &[Action::Invoke(1)]);
    assert!(!highest_priority_first(&world, &state));
}

/// A call in flight when the session ended may have been applied. Once its
/// library opened a new session, `exactly_once` asks whether its take's
/// receipt (or its put's marker) exists, as after a lost reply, and a take
/// that had not sent its transaction lists again; `forgets_expired` gives
/// the calls up.
#[test]
fn a_renewed_session_makes_the_interrupted_calls_again() {
    let expired = || Input::Session(SessionEvent::Expired);
    let renewed = || Input::Session(SessionEvent::SyncConnected);
    let taking = || consumer(deleting(LOW, first()), &[]);
    let mut s = taking();
    run(Knobs::EXACTLY_ONCE, &mut s, expired());
    assert!(s.dead && s.take == Take::Idle);
    let out = run(Knobs::EXACTLY_ONCE, &mut s, renewed());
    assert_eq!(out.requests, vec![exists_op("taken-c1-0")]);
    assert_eq!(s, consumer(Take::Checking(Arc::from(LOW), first()), &[]));

    let mut s = producer(Put::Creating(putting(first())));
    run(Knobs::EXACTLY_ONCE, &mut s, expired());
    let out = run(Knobs::EXACTLY_ONCE, &mut s, renewed());
    assert_eq!(out.requests, vec![exists_op("put-c1.0")]);
    assert_eq!(s, producer(Put::Recovering(putting(first()))));

    let mut s = consumer(reading(LOW), &[HIGH]);
    run(Knobs::EXACTLY_ONCE, &mut s, expired());
    let out = run(Knobs::EXACTLY_ONCE, &mut s, renewed());
    assert_eq!(out.requests, vec![list_op(true)]);
    assert_eq!(s, consumer(Take::Listing, &[]));

    let mut s = taking();
    run(Knobs::FORGETS_EXPIRED, &mut s, expired());
    let out = run(Knobs::FORGETS_EXPIRED, &mut s, renewed());
    assert!(out.requests.is_empty());
    assert_eq!(s, consumer(Take::Idle, &[]));
}
