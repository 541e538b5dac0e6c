//! One test per rule of `docs/zookeeper-semantics.md` section 3 (sessions and faults, what
//! the client sees, watches across a disconnect), through the client library
//! (`zoocheck::client`) and the FIFO net (`zoocheck::net::Net`). Numbers marked
//! [seen] come from observations of a real ZooKeeper 3.8.0 server, labelled as in `docs/zookeeper-semantics.md`.

use zoocheck::client::*;
use zoocheck::net::Net;
use zoocheck::store::*;

// ---------------------------------------------------------------------------
// Helpers.
// ---------------------------------------------------------------------------

use CreateMode::{Ephemeral, EphemeralSequential, Persistent};

const A: usize = 0;
const B: usize = 1;

fn p(path: &str) -> Path {
    Path::new(path)
}

fn net(clients: usize) -> Net {
    Net::new(StoreConfig::default(), clients)
}

fn create(path: &str, mode: CreateMode) -> Op {
    Op::Create {
        path: p(path),
        data: None,
        mode,
    }
}

fn set(path: &str, bytes: &[u8]) -> Op {
    Op::SetData {
        path: p(path),
        data: data(bytes),
        version: ANY_VERSION,
    }
}

fn delete(path: &str) -> Op {
    Op::Delete {
        path: p(path),
        version: ANY_VERSION,
    }
}

fn exists(path: &str) -> Op {
    Op::Exists {
        path: p(path),
        watch: true,
    }
}

fn get_data(path: &str) -> Op {
    Op::GetData {
        path: p(path),
        watch: true,
    }
}

fn get_children(path: &str) -> Op {
    Op::GetChildren {
        path: p(path),
        watch: true,
    }
}

/// Client `id` issues `ops` and everything settles; answers `id`'s deliveries.
fn run(net: &mut Net, id: usize, ops: Vec<Op>) -> Vec<Delivery> {
    let mut out = Vec::new();
    for op in ops {
        out.extend(net.submit(id, op));
    }
    out.extend(net.settle().swap_remove(id));
    out
}

fn session(event: SessionEvent) -> Delivery {
    Delivery::Session(event)
}

/// A delivery in a short comparable form: `W:<kind>:<path>`, `S:<event>`, or
/// `R<xid>:<OK|code>`.
fn short(delivery: &Delivery) -> String {
    match delivery {
        Delivery::Watch(e) => format!("W:{:?}:{}", e.kind, e.path.as_str()),
        Delivery::Session(s) => format!("S:{s:?}"),
        Delivery::Reply { xid, result, .. } => match result {
            Ok(_) => format!("R{xid}:OK"),
            Err(code) => format!("R{xid}:{}", code.name()),
        },
    }
}

fn shorts(deliveries: &[Delivery]) -> Vec<String> {
    deliveries.iter().map(short).collect()
}

/// The events only (watch and session), without replies.
fn events(deliveries: &[Delivery]) -> Vec<String> {
    deliveries
        .iter()
        .filter(|d| !matches!(d, Delivery::Reply { .. }))
        .map(short)
        .collect()
}

fn result_of(deliveries: &[Delivery], xid: Xid) -> OpResult {
    deliveries
        .iter()
        .find_map(|d| match d {
            Delivery::Reply { xid: x, result, .. } if *x == xid => Some(result.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no reply for xid {xid} in {deliveries:?}"))
}

fn paths(set: &std::collections::BTreeSet<Path>) -> Vec<&str> {
    set.iter().map(|path| path.as_str()).collect()
}

// ---------------------------------------------------------------------------
// Section 3. Timeout: not modelled (no clock in the store, client or net), so
// "negotiated timeout clamped to [2*tickTime, 20*tickTime]", "every packet
// pushes expiry", "client drops after 2T/3" have no test; expiry is the
// explicit step `Net::expire`.
// ---------------------------------------------------------------------------

// ---------------------------------------------------------------------------
// Section 3. Server-side expiry, in order.
// ---------------------------------------------------------------------------

#[test]
fn expired_session_is_closing_and_later_requests_get_sessionexpired() {
    let mut net = net(1);
    let s = net.session(A);
    net.disconnect(A, 0);
    net.expire(A);
    assert!(!net.store.is_alive(s));
    // A request of that session reaching the server now is refused.
    assert_eq!(
        net.store.apply(s, &create("/x", Persistent)).result,
        Err(ErrorCode::SessionExpired)
    );
    assert_eq!(
        net.store
            .apply(
                s,
                &Op::Exists {
                    path: p("/"),
                    watch: false
                }
            )
            .result,
        Err(ErrorCode::SessionExpired)
    );
    assert!(!net.store.exists(&p("/x")));
}

#[test]
fn requests_the_server_received_run_before_the_expiry_and_later_ones_do_not() {
    let mut net = net(1);
    let s = net.session(A);
    net.submit(A, create("/served", Ephemeral));
    net.submit(A, create("/received", Persistent));
    net.submit(A, create("/late", Persistent));
    net.serve(A);
    net.serve(A);
    // `/late` is still on the wire when the server expires the session.
    net.expire(A);
    assert!(
        !net.store.exists(&p("/served")),
        "the expiry deleted the ephemeral created before it"
    );
    assert!(net.store.exists(&p("/received")));
    assert!(!net.store.exists(&p("/late")));
    assert!(!net.store.is_alive(s));
}

#[test]
fn expiry_deletes_all_ephemerals_in_one_transaction_each_firing_like_delete() {
    let mut net = net(2);
    run(
        &mut net,
        B,
        vec![create("/t", Persistent), create("/u", Persistent)],
    );
    run(
        &mut net,
        A,
        vec![
            create("/t/e1", Ephemeral),
            create("/t/e2", Ephemeral),
            create("/u/e3", Ephemeral),
        ],
    );
    run(
        &mut net,
        B,
        vec![
            exists("/t/e1"),
            get_data("/t/e2"),
            get_children("/t"),
            get_children("/u"),
            get_children("/u/e3"),
        ],
    );
    net.disconnect(A, 0);
    let before = net.store.zxid();
    net.expire(A);
    assert_eq!(net.store.zxid(), before + 1);
    assert_eq!(net.store.stat(&p("/t")).unwrap().pzxid, before + 1);
    assert_eq!(net.store.stat(&p("/u")).unwrap().pzxid, before + 1);
    let got = events(&net.settle()[B]);
    assert_eq!(
        got,
        vec![
            "W:NodeDeleted:/t/e1",
            "W:NodeChildrenChanged:/t",
            "W:NodeDeleted:/t/e2",
            "W:NodeDeleted:/u/e3",
            "W:NodeChildrenChanged:/u"
        ]
    );
}

#[test]
fn session_close_fires_like_delete_w8() {
    // [seen W8] after close of ephemeral owner: [exE1:NodeDeleted /t/eph-0000000003,
    // parE:NodeChildrenChanged /t, exE2:NodeDeleted /t/eph-0000000004];
    // parent pzxid before=0xef after=0xf0, cver=9 nchild=1.
    let mut net = net(2);
    run(
        &mut net,
        B,
        vec![
            create("/t", Persistent),
            create("/t/a", Persistent),
            create("/t/b", Persistent),
            create("/t/c", Persistent),
        ],
    );
    run(&mut net, B, vec![delete("/t/a"), delete("/t/b")]);
    run(
        &mut net,
        A,
        vec![
            create("/t/eph-", EphemeralSequential),
            create("/t/eph-", EphemeralSequential),
        ],
    );
    assert_eq!(
        net.store.ephemerals(net.session(A)),
        vec![p("/t/eph-0000000003"), p("/t/eph-0000000004")]
    );
    run(
        &mut net,
        B,
        vec![
            exists("/t/eph-0000000003"),
            get_children("/t"),
            exists("/t/eph-0000000004"),
        ],
    );
    let before = net.store.stat(&p("/t")).unwrap().pzxid;
    net.submit(A, Op::Close);
    let out = net.settle();
    assert_eq!(shorts(&out[A]), vec!["R3:OK", "S:Closed"]);
    let got = events(&out[B]);
    assert_eq!(
        got,
        vec![
            "W:NodeDeleted:/t/eph-0000000003",
            "W:NodeChildrenChanged:/t",
            "W:NodeDeleted:/t/eph-0000000004"
        ]
    );
    let st = net.store.stat(&p("/t")).unwrap();
    assert_eq!((st.pzxid - before, st.cversion, st.num_children), (1, 9, 1));
}

#[test]
fn expiry_closes_the_connection_of_a_connected_client() {
    let mut net = net(1);
    run(&mut net, A, vec![create("/e", Ephemeral)]);
    net.submit(
        A,
        Op::Exists {
            path: p("/e"),
            watch: false,
        },
    );
    net.expire(A);
    // The client notices the closed connection: CONNECTIONLOSS, then Disconnected,
    // and learns of the expiry only on reconnect.
    let out = net.settle().swap_remove(A);
    assert_eq!(shorts(&out), vec!["R2:CONNECTIONLOSS", "S:Disconnected"]);
    assert_eq!(net.client(A).state(), ConnState::Disconnected);
    assert_eq!(shorts(&net.reconnect(A)), vec!["S:Expired"]);
}

#[test]
fn own_close_delivers_own_node_deleted_before_closed() {
    // [seen Exp6] events on own close: [C-own-exists:NodeDeleted /t/e,
    // C-own-parent:NodeChildrenChanged /t, O-exists:NodeDeleted /t/e, C-default:Closed];
    // parent after close czxid=0x130 pzxid=0x132 cver=2 nchild=0.
    let mut net = net(2);
    let (c, o) = (A, B);
    run(
        &mut net,
        c,
        vec![create("/t", Persistent), create("/t/e", Ephemeral)],
    );
    run(&mut net, c, vec![exists("/t/e"), get_children("/t")]);
    run(&mut net, o, vec![exists("/t/e")]);
    net.submit(c, Op::Close);
    let out = net.settle();
    assert_eq!(
        events(&out[c]),
        vec!["W:NodeDeleted:/t/e", "W:NodeChildrenChanged:/t", "S:Closed"]
    );
    assert_eq!(
        shorts(&out[c]),
        vec![
            "W:NodeDeleted:/t/e",
            "W:NodeChildrenChanged:/t",
            "R5:OK",
            "S:Closed"
        ]
    );
    assert_eq!(events(&out[o]), vec!["W:NodeDeleted:/t/e"]);
    let st = net.store.stat(&p("/t")).unwrap();
    assert_eq!(
        (st.pzxid - st.czxid, st.cversion, st.num_children),
        (2, 2, 0)
    );
    assert_eq!(net.client(c).state(), ConnState::Closed);
}

#[test]
fn op_after_close_gets_sessionexpired() {
    // [seen Exp3 S4] C: SyncConnected, Closed, op after close -> SESSIONEXPIRED.
    let mut net = net(1);
    run(&mut net, A, vec![create("/u", Persistent), get_data("/u")]);
    let out = run(&mut net, A, vec![Op::Close]);
    assert_eq!(events(&out), vec!["S:Closed"]);
    assert!(net.client(A).watches().is_empty());
    let refused = net.submit(A, get_data("/u"));
    assert_eq!(shorts(&refused), vec!["R4:SESSIONEXPIRED"]);
    assert!(net.links[A].up.is_empty());
}

// ---------------------------------------------------------------------------
// Section 3. What the client sees.
// ---------------------------------------------------------------------------

#[test]
fn session_events_do_not_consume_watches() {
    let mut net = net(2);
    run(
        &mut net,
        B,
        vec![create("/d", Persistent), create("/c", Persistent)],
    );
    run(
        &mut net,
        A,
        vec![get_data("/d"), exists("/x"), get_children("/c")],
    );
    let before = net.client(A).watches().clone();
    assert_eq!(
        (
            paths(&before.data),
            paths(&before.exist),
            paths(&before.child)
        ),
        (vec!["/d"], vec!["/x"], vec!["/c"])
    );
    assert_eq!(shorts(&net.disconnect(A, 0)), vec!["S:Disconnected"]);
    assert_eq!(net.client(A).watches(), &before);
    assert_eq!(shorts(&net.reconnect(A)), vec!["S:SyncConnected"]);
    assert_eq!(net.client(A).watches(), &before);
    // The watches still fire afterwards.
    for op in [
        set("/d", b"1"),
        create("/x", Persistent),
        create("/c/k", Persistent),
    ] {
        net.submit(B, op);
    }
    let got = events(&net.settle()[A]);
    assert_eq!(
        got,
        vec![
            "W:NodeDataChanged:/d",
            "W:NodeCreated:/x",
            "W:NodeChildrenChanged:/c"
        ]
    );
}

#[test]
fn session_events_reach_the_application_and_watches_still_fire_after_them() {
    let mut net = net(2);
    run(&mut net, B, vec![create("/d", Persistent)]);
    run(&mut net, A, vec![get_data("/d")]);
    net.disconnect(A, 0);
    net.reconnect(A);
    net.submit(B, set("/d", b"1"));
    let out = net.settle();
    assert_eq!(events(&out[A]), vec!["W:NodeDataChanged:/d"]);
    // Session events are delivered once each, as `Delivery::Session`, never as a watch.
    net.disconnect(A, 0);
    assert_eq!(net.reconnect(A), vec![session(SessionEvent::SyncConnected)]);
}

#[test]
fn disconnected_fails_in_flight_then_delivers_disconnected() {
    // [seen Exp3 S3] setData issued at blackhole start -> CONNECTIONLOSS, then Disconnected.
    let mut net = net(1);
    run(&mut net, A, vec![create("/n", Persistent)]);
    net.submit(A, set("/n", b"1"));
    net.submit(A, get_data("/n"));
    net.submit(A, create("/m", Persistent));
    let out = net.disconnect(A, 0);
    assert_eq!(
        shorts(&out),
        vec![
            "R2:CONNECTIONLOSS",
            "R3:CONNECTIONLOSS",
            "R4:CONNECTIONLOSS",
            "S:Disconnected"
        ]
    );
    assert_eq!(net.client(A).in_flight().len(), 0);
    assert_eq!(net.store.stat(&p("/n")).unwrap().version, 0);
}

#[test]
fn failed_reconnect_attempt_fails_queued_with_connectionloss_without_a_second_disconnected() {
    // [seen Exp3 S3] setData issued while disconnected -> CONNECTIONLOSS; no new Disconnected.
    let mut net = net(1);
    net.disconnect(A, 0);
    assert!(net.submit(A, set("/n", b"1")).is_empty());
    assert!(net.submit(A, set("/n", b"2")).is_empty());
    assert_eq!(net.client(A).queued().len(), 2);
    let out = net.disconnect(A, 0);
    assert_eq!(shorts(&out), vec!["R1:CONNECTIONLOSS", "R2:CONNECTIONLOSS"]);
    assert_eq!(net.client(A).queued().len(), 0);
}

#[test]
fn disconnected_session_may_still_be_alive_and_its_ephemerals_still_exist() {
    let mut net = net(2);
    run(&mut net, A, vec![create("/e", Ephemeral)]);
    net.disconnect(A, 0);
    assert!(net.store.is_alive(net.session(A)));
    let out = run(
        &mut net,
        B,
        vec![Op::Exists {
            path: p("/e"),
            watch: false,
        }],
    );
    match result_of(&out, 1) {
        Ok(Response::Exists(Some(stat))) => assert_eq!(stat.ephemeral_owner, net.session(A)),
        other => panic!("{other:?}"),
    }
    // And it reconnects to the same session.
    assert_eq!(shorts(&net.reconnect(A)), vec!["S:SyncConnected"]);
    assert_eq!(net.store.ephemerals(net.session(A)), vec![p("/e")]);
}

#[test]
fn requests_issued_while_disconnected_are_queued_and_may_succeed_after_reconnect() {
    // [seen Exp3 S1] A async setData(u) issued while disconnected -> rc=OK.
    let mut net = net(1);
    run(&mut net, A, vec![create("/u", Persistent)]);
    net.disconnect(A, 0);
    assert_eq!(net.submit(A, set("/u", b"fromA")), vec![]);
    assert!(net.links[A].up.is_empty());
    assert_eq!(
        net.client(A).queued().map(|r| r.xid).collect::<Vec<_>>(),
        vec![2]
    );
    net.reconnect(A);
    let out = net.settle().swap_remove(A);
    assert_eq!(shorts(&out), vec!["R2:OK"]);
    assert_eq!(net.store.data(&p("/u")), Some(&data(b"fromA")));
}

#[test]
fn lost_create_reply_is_applied_and_retry_gets_nodeexists() {
    // [seen Exp3 S2] A's ephemeral create applied (B sees it, owned by A), A gets
    // CONNECTIONLOSS then Disconnected; after reconnect exists=true, retry NODEEXISTS.
    let mut net = net(2);
    run(&mut net, B, vec![create("/t", Persistent)]);
    net.submit(A, create("/t/lost", Ephemeral));
    let out = net.disconnect(A, 1);
    assert_eq!(shorts(&out), vec!["R1:CONNECTIONLOSS", "S:Disconnected"]);
    let b = run(
        &mut net,
        B,
        vec![Op::Exists {
            path: p("/t/lost"),
            watch: false,
        }],
    );
    match result_of(&b, 2) {
        Ok(Response::Exists(Some(stat))) => assert_eq!(stat.ephemeral_owner, net.session(A)),
        other => panic!("{other:?}"),
    }
    assert_eq!(shorts(&net.reconnect(A)), vec!["S:SyncConnected"]);
    let a = run(
        &mut net,
        A,
        vec![
            Op::Exists {
                path: p("/t/lost"),
                watch: false,
            },
            create("/t/lost", Ephemeral),
        ],
    );
    assert!(matches!(result_of(&a, 2), Ok(Response::Exists(Some(_)))));
    assert_eq!(result_of(&a, 3), Err(ErrorCode::NodeExists));
}

#[test]
fn lost_sequential_create_reply_leaves_the_name_unknown_to_the_client() {
    let mut net = net(1);
    run(&mut net, A, vec![create("/q", Persistent)]);
    net.submit(A, create("/q/lock-", EphemeralSequential));
    let out = net.disconnect(A, 1);
    // The client learns nothing but CONNECTIONLOSS, yet the node exists.
    assert_eq!(result_of(&out, 2), Err(ErrorCode::ConnectionLoss));
    assert_eq!(
        net.store.ephemerals(net.session(A)),
        vec![p("/q/lock-0000000000")]
    );
    // A retry makes a second one.
    net.reconnect(A);
    let again = run(&mut net, A, vec![create("/q/lock-", EphemeralSequential)]);
    match result_of(&again, 3) {
        Ok(Response::Created { path, .. }) => assert_eq!(path, p("/q/lock-0000000001")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn connectionloss_is_ambiguous_applied_or_not() {
    let mut applied = net(1);
    let mut not_applied = net(1);
    for n in [&mut applied, &mut not_applied] {
        n.submit(A, create("/x", Persistent));
    }
    let a = applied.disconnect(A, 1);
    let b = not_applied.disconnect(A, 0);
    // Same view for the client, different server states.
    assert_eq!(a, b);
    assert_eq!(applied.client(A), not_applied.client(A));
    assert!(applied.store.exists(&p("/x")));
    assert!(!not_applied.store.exists(&p("/x")));
}

#[test]
fn expired_is_delivered_first_then_sessionexpired_for_queued() {
    // [seen Exp7] Disconnected; Expired; queued op 0, 1, 2 rc=SESSIONEXPIRED.
    let mut net = net(1);
    assert_eq!(shorts(&net.disconnect(A, 0)), vec!["S:Disconnected"]);
    for i in 0..3 {
        assert_eq!(net.submit(A, create(&format!("/q{i}"), Persistent)), vec![]);
    }
    net.expire(A);
    let out = net.reconnect(A);
    assert_eq!(
        shorts(&out),
        vec![
            "S:Expired",
            "R1:SESSIONEXPIRED",
            "R2:SESSIONEXPIRED",
            "R3:SESSIONEXPIRED"
        ]
    );
    assert_eq!(net.client(A).state(), ConnState::Expired);
    assert!(!net.store.exists(&p("/q0")));
}

#[test]
fn expiry_deletes_ephemerals_long_before_the_client_hears_of_it() {
    let mut net = net(2);
    run(&mut net, A, vec![create("/lock", Ephemeral)]);
    run(&mut net, B, vec![exists("/lock")]);
    net.disconnect(A, 0);
    net.expire(A);
    // B already sees the lock gone and can take it; A still believes it is merely disconnected.
    let b = run(&mut net, B, vec![create("/lock", Ephemeral)]);
    assert_eq!(shorts(&b), vec!["W:NodeDeleted:/lock", "R2:OK"]);
    assert_eq!(net.client(A).state(), ConnState::Disconnected);
    assert!(net.links[A].down.is_empty());
    assert_eq!(
        net.store.stat(&p("/lock")).unwrap().ephemeral_owner,
        net.session(B)
    );
    assert_eq!(shorts(&net.reconnect(A)), vec!["S:Expired"]);
}

#[test]
fn expired_handle_is_dead_and_a_new_session_is_needed() {
    // [seen Exp3 S3] A op after expiry -> SESSIONEXPIRED; state=CLOSED.
    let mut net = net(1);
    let old = net.session(A);
    run(&mut net, A, vec![create("/u", Persistent), get_data("/u")]);
    net.disconnect(A, 0);
    net.expire(A);
    net.reconnect(A);
    assert!(net.client(A).watches().is_empty());
    assert_eq!(
        shorts(&net.submit(A, get_data("/u"))),
        vec!["R3:SESSIONEXPIRED"]
    );
    net.open_session(A);
    assert_ne!(net.session(A), old);
    let out = run(&mut net, A, vec![create("/v", Ephemeral)]);
    assert_eq!(shorts(&out), vec!["R1:OK"]);
}

// ---------------------------------------------------------------------------
// Section 3. Watches across a disconnect.
// ---------------------------------------------------------------------------

#[test]
fn server_side_watches_vanish_with_the_connection_and_no_events_are_delivered_while_disconnected() {
    let mut net = net(2);
    run(&mut net, B, vec![create("/d", Persistent)]);
    run(
        &mut net,
        A,
        vec![get_data("/d"), exists("/x"), get_children("/d")],
    );
    let s = net.session(A);
    assert!(net.store.has_watch(s, &p("/d"), false));
    net.disconnect(A, 0);
    assert!(!net.store.has_watch(s, &p("/d"), false));
    assert!(!net.store.has_watch(s, &p("/x"), false));
    assert!(!net.store.has_watch(s, &p("/d"), true));
    for op in [
        set("/d", b"1"),
        create("/x", Persistent),
        create("/d/k", Persistent),
    ] {
        net.submit(B, op);
    }
    let out = net.settle();
    assert_eq!(out[A], vec![]);
    assert!(net.links[A].down.is_empty());
    // The client still holds them, to re-send.
    assert_eq!(paths(&net.client(A).watches().data), vec!["/d"]);
}

#[test]
fn set_watches_carries_the_zxid_of_the_last_reply_and_goes_before_queued_requests() {
    let mut net = net(2);
    run(
        &mut net,
        A,
        vec![
            create("/d", Persistent),
            get_data("/d"),
            exists("/x"),
            get_children("/d"),
        ],
    );
    // The last reply A received: a read, whose header carries the last zxid.
    let last = net.store.zxid();
    run(&mut net, B, vec![create("/other", Persistent)]);
    assert_eq!(net.client(A).last_zxid(), last);
    net.disconnect(A, 0);
    let sw = net.client(A).set_watches();
    assert_eq!(
        sw,
        SetWatches {
            relative_zxid: last,
            data: vec![p("/d")],
            exist: vec![p("/x")],
            child: vec![p("/d")],
            persistent: vec![],
            recursive: vec![],
        }
    );
    // B changes /d while A is away; A queues a request that would change it again.
    run(&mut net, B, vec![set("/d", b"b")]);
    net.submit(A, set("/d", b"a"));
    let reconnect = net.reconnect(A);
    // The catch-up event comes with the reconnect, before the queued request is served.
    assert_eq!(
        shorts(&reconnect),
        vec!["S:SyncConnected", "W:NodeDataChanged:/d"]
    );
    let after = net.settle().swap_remove(A);
    assert_eq!(shorts(&after), vec!["R5:OK"]);
}

#[test]
fn set_watches_uses_no_zxid() {
    let mut net = net(1);
    run(&mut net, A, vec![create("/d", Persistent), get_data("/d")]);
    net.disconnect(A, 0);
    let z = net.store.zxid();
    net.reconnect(A);
    assert_eq!(net.store.zxid(), z);
}

/// A with one watch of the given kind on `/n`, disconnected; B then runs
/// `while_away`; A reconnects. Answers A's reconnect deliveries and then
/// whether a later change by B (`after`) still reaches A.
fn away(
    setup: Vec<Op>,
    watch_op: Op,
    while_away: Vec<Op>,
    after: Vec<Op>,
) -> (Vec<String>, Vec<String>) {
    let mut net = net(2);
    run(&mut net, B, setup);
    run(&mut net, A, vec![watch_op]);
    net.disconnect(A, 0);
    run(&mut net, B, while_away);
    let back = shorts(&net.reconnect(A));
    for op in after {
        net.submit(B, op);
    }
    let later = events(&net.settle()[A]);
    (back, later)
}

#[test]
fn data_watch_on_a_node_now_absent_gets_node_deleted_on_reconnect() {
    let (back, _) = away(
        vec![create("/n", Persistent)],
        get_data("/n"),
        vec![delete("/n")],
        vec![],
    );
    assert_eq!(back, vec!["S:SyncConnected", "W:NodeDeleted:/n"]);
    // exists on an existing node is a data watch too.
    let (back, _) = away(
        vec![create("/n", Persistent)],
        exists("/n"),
        vec![delete("/n")],
        vec![],
    );
    assert_eq!(back, vec!["S:SyncConnected", "W:NodeDeleted:/n"]);
}

#[test]
fn data_watch_on_a_node_changed_since_relative_zxid_gets_node_data_changed_on_reconnect() {
    let (back, later) = away(
        vec![create("/n", Persistent)],
        get_data("/n"),
        vec![set("/n", b"x")],
        vec![set("/n", b"y")],
    );
    assert_eq!(back, vec!["S:SyncConnected", "W:NodeDataChanged:/n"]);
    // One-shot: it fired, so the later change is not seen.
    assert_eq!(later, Vec::<String>::new());
}

#[test]
fn data_watch_on_an_unchanged_node_is_re_armed_on_reconnect() {
    let (back, later) = away(
        vec![create("/n", Persistent)],
        get_data("/n"),
        vec![create("/other", Persistent)],
        vec![set("/n", b"y")],
    );
    assert_eq!(back, vec!["S:SyncConnected"]);
    assert_eq!(later, vec!["W:NodeDataChanged:/n"]);
}

#[test]
fn exist_watch_on_a_node_still_absent_is_re_armed_on_reconnect() {
    let (back, later) = away(
        vec![],
        exists("/n"),
        vec![create("/other", Persistent)],
        vec![create("/n", Persistent)],
    );
    assert_eq!(back, vec!["S:SyncConnected"]);
    assert_eq!(later, vec!["W:NodeCreated:/n"]);
}

#[test]
fn exist_watch_on_a_node_now_present_gets_node_created_on_reconnect() {
    let (back, later) = away(
        vec![],
        exists("/n"),
        vec![create("/n", Persistent)],
        vec![set("/n", b"x")],
    );
    assert_eq!(back, vec!["S:SyncConnected", "W:NodeCreated:/n"]);
    assert_eq!(later, Vec::<String>::new());
}

#[test]
fn child_watch_on_a_node_now_absent_gets_node_deleted_on_reconnect() {
    let (back, _) = away(
        vec![create("/n", Persistent)],
        get_children("/n"),
        vec![delete("/n")],
        vec![],
    );
    assert_eq!(back, vec!["S:SyncConnected", "W:NodeDeleted:/n"]);
}

#[test]
fn child_watch_on_a_node_whose_children_changed_gets_node_children_changed_on_reconnect() {
    let (back, _) = away(
        vec![create("/n", Persistent), create("/n/a", Persistent)],
        get_children("/n"),
        vec![delete("/n/a")],
        vec![],
    );
    assert_eq!(back, vec!["S:SyncConnected", "W:NodeChildrenChanged:/n"]);
}

#[test]
fn child_watch_on_an_unchanged_node_is_re_armed_on_reconnect() {
    // A change to the node's own data does not count (pzxid, not mzxid).
    let (back, later) = away(
        vec![create("/n", Persistent)],
        get_children("/n"),
        vec![set("/n", b"x")],
        vec![create("/n/k", Persistent)],
    );
    assert_eq!(back, vec!["S:SyncConnected"]);
    assert_eq!(later, vec!["W:NodeChildrenChanged:/n"]);
}

#[test]
fn deleted_and_recreated_while_away_arrives_as_node_data_changed() {
    let (back, _) = away(
        vec![create("/n", Persistent)],
        get_data("/n"),
        vec![delete("/n"), create("/n", Persistent)],
        vec![],
    );
    assert_eq!(back, vec!["S:SyncConnected", "W:NodeDataChanged:/n"]);
}

#[test]
fn created_and_deleted_while_away_is_missed() {
    let (back, later) = away(
        vec![],
        exists("/n"),
        vec![create("/n", Persistent), delete("/n")],
        vec![create("/n", Persistent)],
    );
    assert_eq!(back, vec!["S:SyncConnected"]);
    // Missed entirely; the watch is simply re-armed.
    assert_eq!(later, vec!["W:NodeCreated:/n"]);
}

#[test]
fn exp3_s1_disconnect_reconnect_catch_up() {
    // [seen Exp3 S1] A watches exists x (missing), getData dd, getData d, getData u,
    // exists y (missing), getChildren c; proxy refuses; B changes things; A issues
    // setData(u) while disconnected; on reconnect: SyncConnected, then
    // NodeDataChanged d, NodeDataChanged dd, NodeCreated x, NodeChildrenChanged c,
    // then NodeDataChanged u (A's own queued write) and its rc=OK.
    let mut net = net(2);
    run(
        &mut net,
        B,
        vec![
            create("/t", Persistent),
            create("/t/d", Persistent),
            create("/t/dd", Persistent),
            create("/t/u", Persistent),
            create("/t/c", Persistent),
        ],
    );
    run(&mut net, A, vec![create("/t/a-eph", Ephemeral)]);
    run(
        &mut net,
        A,
        vec![
            exists("/t/x"),
            get_data("/t/dd"),
            get_data("/t/d"),
            get_data("/t/u"),
            exists("/t/y"),
            get_children("/t/c"),
        ],
    );
    assert_eq!(shorts(&net.disconnect(A, 0)), vec!["S:Disconnected"]);
    run(
        &mut net,
        B,
        vec![
            set("/t/d", b"b"),
            delete("/t/dd"),
            create("/t/dd", Persistent),
            create("/t/x", Persistent),
            create("/t/c/k", Persistent),
        ],
    );
    // "B made changes while A disconnected; A state=CONNECTED" (not yet noticed).
    assert_eq!(net.submit(A, set("/t/u", b"fromA")), vec![]);
    let back = net.reconnect(A);
    assert_eq!(
        shorts(&back),
        vec![
            "S:SyncConnected",
            "W:NodeDataChanged:/t/d",
            "W:NodeDataChanged:/t/dd",
            "W:NodeCreated:/t/x",
            "W:NodeChildrenChanged:/t/c",
        ]
    );
    let rest = net.settle().swap_remove(A);
    assert_eq!(shorts(&rest), vec!["W:NodeDataChanged:/t/u", "R8:OK"]);
    // "A state=CONNECTED a-eph exists? true u data=fromA"; only the exists y watch is left.
    assert!(net.store.exists(&p("/t/a-eph")));
    assert_eq!(net.store.data(&p("/t/u")), Some(&data(b"fromA")));
    let w = net.client(A).watches();
    assert_eq!(
        (paths(&w.data), paths(&w.exist), paths(&w.child)),
        (vec![], vec!["/t/y"], vec![])
    );
}

#[test]
fn exp3_s2_and_s3_lost_reply_then_expiry_while_away() {
    let mut net = net(2);
    run(
        &mut net,
        B,
        vec![create("/t", Persistent), create("/t/u", Persistent)],
    );
    run(
        &mut net,
        A,
        vec![create("/t/a-eph", Ephemeral), exists("/t/y")],
    );
    // S2: the server applies A's create, the reply is dropped.
    net.submit(A, create("/t/lost", Ephemeral));
    assert_eq!(
        shorts(&net.disconnect(A, 1)),
        vec!["R3:CONNECTIONLOSS", "S:Disconnected"]
    );
    assert_eq!(
        net.store.stat(&p("/t/lost")).unwrap().ephemeral_owner,
        net.session(A)
    );
    assert_eq!(shorts(&net.reconnect(A)), vec!["S:SyncConnected"]);
    let retry = run(
        &mut net,
        A,
        vec![
            Op::Exists {
                path: p("/t/lost"),
                watch: false,
            },
            create("/t/lost", Ephemeral),
        ],
    );
    assert!(matches!(
        result_of(&retry, 4),
        Ok(Response::Exists(Some(_)))
    ));
    assert_eq!(result_of(&retry, 5), Err(ErrorCode::NodeExists));
    // S3: A watches u; B watches lost, /t's children and a-eph; blackhole.
    run(&mut net, A, vec![get_data("/t/u")]);
    run(
        &mut net,
        B,
        vec![exists("/t/lost"), get_children("/t"), exists("/t/a-eph")],
    );
    net.submit(A, set("/t/u", b"x"));
    assert_eq!(
        shorts(&net.disconnect(A, 0)),
        vec!["R7:CONNECTIONLOSS", "S:Disconnected"]
    );
    net.expire(A);
    let b = events(&net.settle()[B]);
    let mut sorted = b.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        vec![
            "W:NodeChildrenChanged:/t",
            "W:NodeDeleted:/t/a-eph",
            "W:NodeDeleted:/t/lost"
        ]
    );
    // Still no word to A; a request issued now fails at the next failed attempt.
    assert_eq!(net.submit(A, set("/t/u", b"y")), vec![]);
    assert_eq!(shorts(&net.disconnect(A, 0)), vec!["R8:CONNECTIONLOSS"]);
    assert_eq!(shorts(&net.reconnect(A)), vec!["S:Expired"]);
    assert_eq!(
        shorts(&net.submit(A, get_data("/t/u"))),
        vec!["R9:SESSIONEXPIRED"]
    );
}

// Exp3 S3 saw B receive NodeDeleted /t/lost, NodeChildrenChanged /t, then
// NodeDeleted /t/a-eph: the real server deletes an ending session's ephemerals
// in its hash-set order, which docs/zookeeper-semantics.md does not pin. The store deletes
// them in path order (documented in docs/model.md as a difference); what both
// share, and what this pins, is one firing per deletion with the parent's
// one-shot child watch spent on the first.
#[test]
fn expiry_deletes_ephemerals_in_path_order_each_firing_like_a_delete() {
    let mut net = net(2);
    run(&mut net, B, vec![create("/t", Persistent)]);
    run(&mut net, A, vec![create("/t/a-eph", Ephemeral)]);
    run(&mut net, A, vec![create("/t/lost", Ephemeral)]);
    run(
        &mut net,
        B,
        vec![exists("/t/lost"), get_children("/t"), exists("/t/a-eph")],
    );
    net.disconnect(A, 0);
    net.expire(A);
    assert_eq!(
        events(&net.settle()[B]),
        vec![
            "W:NodeDeleted:/t/a-eph",
            "W:NodeChildrenChanged:/t",
            "W:NodeDeleted:/t/lost"
        ]
    );
}

// Server restart (optional fault) is not modelled: no test.

#[test]
fn a_request_sent_on_a_broken_connection_never_reaches_the_server() {
    let mut net = net(1);
    // The connection drops; the client has not noticed yet and sends on.
    net.break_connection(A, 0);
    assert!(net.submit(A, create("/late", Persistent)).is_empty());
    assert!(
        net.serve(A).is_none(),
        "nothing of it is on the wire for the server to serve"
    );
    // It notices at its next read: CONNECTIONLOSS for that request, then
    // Disconnected; the node was never created.
    assert_eq!(
        shorts(&net.deliver(A)),
        vec!["R1:CONNECTIONLOSS", "S:Disconnected"]
    );
    assert!(!net.store.exists(&p("/late")));
}

// ---------------------------------------------------------------------------
// Library profiles (`zoocheck::client::library`): where libraries differ.
// ---------------------------------------------------------------------------

/// A library that drops its watches with its connection (kazoo 2, the
/// Java client with `disableAutoWatchReset`) sends none on reconnect: a
/// change made while it was away, and one made after, reach it no more,
/// where the Java client's `SetWatches` fires the first and re-arms for
/// the second.
#[test]
fn a_library_that_drops_its_watches_hears_of_no_change_after_a_reconnect() {
    for (library, back, later) in [
        (
            Library::JAVA,
            vec!["S:SyncConnected"],
            vec!["W:NodeDataChanged:/n"],
        ),
        (Library::KAZOO2, vec!["S:SyncConnected"], vec![]),
    ] {
        let mut net = net(2);
        net.set_library(A, library);
        run(&mut net, B, vec![create("/n", Persistent)]);
        run(&mut net, A, vec![get_data("/n"), exists("/x")]);
        let lost = shorts(&net.disconnect(A, 0));
        assert_eq!(lost, vec!["S:Disconnected"], "{library:?}");
        let kept = net.client(A).watches().is_empty();
        assert_eq!(kept, library == Library::KAZOO2, "{library:?}");
        let sent = net.client(A).set_watches();
        assert_eq!(sent.data.is_empty(), library == Library::KAZOO2);
        run(&mut net, B, vec![create("/other", Persistent)]);
        assert_eq!(shorts(&net.reconnect(A)), back, "{library:?}");
        for op in [set("/n", b"y"), create("/x", Persistent)] {
            net.submit(B, op);
        }
        let mut heard = events(&net.settle()[A]);
        heard.truncate(1);
        assert_eq!(heard, later, "{library:?}");
    }
}

/// Renewed sessions and restarts keep the process's library.
#[test]
fn a_new_session_keeps_its_librarys_rules() {
    let mut net = net(1);
    net.set_library(A, Library::KAZOO2);
    net.open_session(A);
    assert_eq!(net.client(A).library(), Library::KAZOO2);
}

// ---------------------------------------------------------------------------
// Removing watches: `removeAllWatches` (opcode removeWatches) and
// `removeWatches` of the application's one watcher (opcode checkWatches),
// as the Java client's `ZKWatchManager.removeWatcher` ends them.
// ---------------------------------------------------------------------------

fn remove_all(path: &str, kind: WatcherType) -> Op {
    Op::RemoveWatches {
        path: p(path),
        kind,
    }
}

fn remove_watcher(path: &str, kind: WatcherType) -> Op {
    Op::CheckWatches {
        path: p(path),
        kind,
    }
}

fn add_watch(path: &str) -> Op {
    Op::AddWatch {
        path: p(path),
        mode: AddWatchMode::Persistent,
    }
}

#[test]
fn a_removal_delivers_one_event_per_table_it_emptied_before_its_reply() {
    let mut net = net(2);
    run(&mut net, B, vec![create("/a", Persistent)]);
    run(
        &mut net,
        A,
        vec![get_data("/a"), get_children("/a"), add_watch("/a")],
    );
    let xid = net.client(A).next_xid();
    let out = run(&mut net, A, vec![remove_all("/a", WatcherType::Data)]);
    assert_eq!(
        shorts(&out),
        [format!("W:DataWatchRemoved:/a"), format!("R{xid}:OK")]
    );
    let watches = net.client(A).watches();
    assert!(watches.data.is_empty());
    assert_eq!(
        (paths(&watches.child), paths(&watches.persistent)),
        (vec!["/a"], vec!["/a"])
    );
    let out = run(&mut net, A, vec![remove_all("/a", WatcherType::Any)]);
    assert_eq!(
        events(&out),
        ["W:ChildWatchRemoved:/a", "W:PersistentWatchRemoved:/a"]
    );
    assert!(net.client(A).watches().is_empty());
    // Nothing left, at the library or the server.
    let xid = net.client(A).next_xid();
    let out = run(&mut net, A, vec![remove_all("/a", WatcherType::Any)]);
    assert_eq!(result_of(&out, xid), Err(ErrorCode::NoWatcher));
    net.submit(B, set("/a", b"1"));
    assert!(events(&net.settle()[A]).is_empty());
}

#[test]
fn a_persistent_watch_removed_as_children_goes_at_the_server_but_not_at_the_library() {
    let mut net = net(2);
    run(&mut net, B, vec![create("/a", Persistent)]);
    run(&mut net, A, vec![add_watch("/a")]);
    // The server takes it out of its child table; the library's child table
    // had none, so it removes nothing of its own and says NOWATCHER.
    let xid = net.client(A).next_xid();
    let out = run(&mut net, A, vec![remove_all("/a", WatcherType::Children)]);
    assert_eq!(shorts(&out), [format!("R{xid}:NOWATCHER")]);
    assert_eq!(paths(&net.client(A).watches().persistent), ["/a"]);
    net.submit(B, create("/a/b", Persistent));
    assert!(
        events(&net.settle()[A]).is_empty(),
        "no NodeChildrenChanged"
    );
    // A reconnect sets it again in both tables (SetWatches2).
    net.disconnect(A, 0);
    net.reconnect(A);
    net.submit(B, create("/a/c", Persistent));
    assert_eq!(events(&net.settle()[A]), ["W:NodeChildrenChanged:/a"]);
}

#[test]
fn a_removal_whose_reply_is_lost_leaves_the_library_its_watch_and_a_reconnect_sets_it_again() {
    let mut net = net(2);
    run(&mut net, B, vec![create("/a", Persistent)]);
    run(&mut net, A, vec![get_data("/a")]);
    let xid = net.client(A).next_xid();
    net.submit(A, remove_all("/a", WatcherType::Data));
    // The server removes it, and the reply is lost with the connection.
    let out = net.disconnect(A, 1);
    assert_eq!(result_of(&out, xid), Err(ErrorCode::ConnectionLoss));
    assert_eq!(paths(&net.client(A).watches().data), ["/a"]);
    net.reconnect(A);
    net.submit(B, set("/a", b"1"));
    assert_eq!(
        events(&net.settle()[A]),
        ["W:NodeDataChanged:/a"],
        "removed, then set again"
    );
}

#[test]
fn a_lost_removal_of_a_watch_the_library_never_had_is_nowatcher() {
    let mut net = net(1);
    let xid = net.client(A).next_xid();
    net.submit(A, remove_all("/a", WatcherType::Any));
    let out = net.disconnect(A, 0);
    assert_eq!(result_of(&out, xid), Err(ErrorCode::NoWatcher));
}

#[test]
fn removing_its_watcher_leaves_a_persistent_watch_firing_at_the_connection_until_it_drops() {
    let mut net = net(2);
    run(&mut net, B, vec![create("/a", Persistent)]);
    run(&mut net, A, vec![add_watch("/a")]);
    let out = run(&mut net, A, vec![remove_watcher("/a", WatcherType::Any)]);
    assert_eq!(events(&out), ["W:PersistentWatchRemoved:/a"]);
    assert!(net.client(A).watches().is_empty());
    // The server still fires it (ZOOKEEPER-4472); the library, which has
    // no watcher for it, delivers nothing.
    net.submit(B, set("/a", b"1"));
    assert!(events(&net.settle()[A]).is_empty());
    assert!(net.store.watches_of(net.session(A)), "still at the server");
    // A new connection does not set it again.
    net.disconnect(A, 0);
    net.reconnect(A);
    assert!(!net.store.watches_of(net.session(A)));
}
