//! One test per rule of `docs/zookeeper-semantics.md` section 8 (an
//! ensemble), through the client library and the net
//! (`zoocheck::net::Net`, `zoocheck::ensemble`): a server, the leader too,
//! reads from what it has applied, answers its client's writes and `sync`
//! once it has applied them, holds a session's requests behind its write,
//! fires its own clients' watches when it applies the change, removes an
//! expired session's ephemerals when it applies the expiry, and refuses a
//! client that has seen more than it has applied; the leader may apply a
//! commit after a follower has, answers its own client's `sync` at once,
//! and holds a session's requests behind its writes sent anywhere.

use zoocheck::client::*;
use zoocheck::net::Net;
use zoocheck::store::*;

use CreateMode::{Ephemeral, Persistent};

/// On the leader.
const A: usize = 0;
/// On follower 1.
const B: usize = 1;

fn p(path: &str) -> Path {
    Path::new(path)
}

/// Two clients of a 3-server ensemble whose servers (the leader too) may
/// fall `lag` transactions behind: A on the leader, B on follower 1.
fn ensemble(lag: u64) -> Net {
    let mut net = Net::new(StoreConfig::default(), 2);
    net.form_ensemble(3, lag);
    assert_eq!((net.server(A), net.server(B)), (0, 1));
    net
}

fn create(path: &str, mode: CreateMode) -> Op {
    Op::Create {
        path: p(path),
        data: None,
        mode,
    }
}

fn exists(path: &str, watch: bool) -> Op {
    Op::Exists {
        path: p(path),
        watch,
    }
}

/// Client `id` sends `op` and its server serves it.
fn serve(net: &mut Net, id: usize, op: Op) {
    net.submit(id, op);
    assert!(net.serve(id).is_some(), "c{id}'s request is served");
}

/// Everything on client `id`'s link, read: `W:<kind>:<path>`, `S:<event>`,
/// `exists`, `none`, `OK` or an error's name.
fn read(net: &mut Net, id: usize) -> Vec<String> {
    let mut out = Vec::new();
    while net.can_deliver(id) {
        for delivery in net.deliver(id) {
            out.push(match delivery {
                Delivery::Watch(event) => format!("W:{:?}:{}", event.kind, event.path.as_str()),
                Delivery::Session(event) => format!("S:{event:?}"),
                Delivery::Reply { result, .. } => match result {
                    Ok(Response::Exists(Some(_))) => "exists".into(),
                    Ok(Response::Exists(None)) => "none".into(),
                    Ok(Response::Synced { .. }) => "synced".into(),
                    Ok(_) => "OK".into(),
                    Err(code) => code.name().into(),
                },
            });
        }
    }
    out
}

/// Client `id` sends `op`, its server serves it and applies it: a write
/// is answered then.
fn write(net: &mut Net, id: usize, op: Op) {
    serve(net, id, op);
    assert!(
        net.apply(net.server(id)).is_some(),
        "c{id}'s server applies"
    );
}

#[test]
fn a_follower_answers_reads_from_what_it_has_applied() {
    let mut net = ensemble(2);
    serve(&mut net, A, create("/x", Persistent));
    assert_eq!(read(&mut net, A), Vec::<String>::new(), "not at commit");
    net.apply(0);
    assert_eq!(read(&mut net, A), ["OK"], "once the leader applied it");
    // Committed and applied at the leader; follower 1 has not applied it.
    serve(&mut net, B, exists("/x", false));
    assert_eq!(read(&mut net, B), ["none"], "a stale read");
    assert_eq!(net.ensemble.behind(1), 1);
    assert!(net.apply(1).is_some());
    serve(&mut net, B, exists("/x", false));
    assert_eq!(read(&mut net, B), ["exists"]);
    assert!(net.apply(1).is_none(), "nothing left to apply");
}

#[test]
fn a_write_is_answered_once_the_clients_server_applied_it_and_its_next_request_waits() {
    let mut net = ensemble(2);
    net.submit(B, create("/y", Persistent));
    net.submit(B, exists("/y", false));
    assert!(net.serve(B).is_some());
    // The leader has ordered it; B's follower has not applied it, so B
    // hears nothing yet and its read waits behind its write, as the server
    // queues a session's requests.
    assert!(net.store.exists(&p("/y")));
    assert_eq!(read(&mut net, B), Vec::<String>::new());
    assert!(!net.can_serve(B));
    assert!(net.serve(B).is_none());
    net.apply(1);
    assert!(net.can_serve(B));
    serve(&mut net, B, exists("/y", false));
    assert_eq!(read(&mut net, B), ["OK", "exists"]);
}

#[test]
fn the_leader_may_apply_a_commit_after_a_follower_has_answered_it() {
    let mut net = ensemble(2);
    serve(&mut net, A, exists("/y", true));
    assert_eq!(read(&mut net, A), ["none"]);
    write(&mut net, B, create("/y", Persistent));
    assert_eq!(read(&mut net, B), ["OK"]);
    // The real leader sends COMMIT to the followers before its own
    // CommitProcessor applies it (`Leader.tryToCommit`): after B heard its
    // create answered, A on the leader still reads the old tree and has
    // had no event.
    serve(&mut net, A, exists("/y", false));
    assert_eq!(read(&mut net, A), ["none"], "the leader has not applied it");
    let fired = net.apply(0).expect("the leader applies the create");
    assert_eq!(fired.len(), 1);
    serve(&mut net, A, exists("/y", false));
    assert_eq!(read(&mut net, A), ["W:NodeCreated:/y", "exists"]);
}

/// B, on follower 1, has its create of `path` applied there and its reply
/// lost with its connection; B never saw the create's zxid, so the leader,
/// which has not applied it, takes B's next connection.
fn lose_a_create_and_move_to_the_leader(net: &mut Net, path: &str) {
    assert_eq!(net.server(B), 1);
    net.submit(B, create(path, Persistent));
    net.break_connection(B, 1);
    net.apply(1);
    read(net, B);
    net.move_client(B, 2);
    assert_eq!(net.server(B), 0);
    assert!(net.can_reconnect(B));
    net.reconnect(B);
}

#[test]
fn the_leader_answers_a_sync_at_once_and_holds_a_session_behind_its_unapplied_writes() {
    let mut net = ensemble(3);
    write(&mut net, B, create("/b", Persistent));
    assert_eq!(read(&mut net, B), ["OK"]);
    // The leader has not applied B's create. A's sync on the leader waits
    // for nothing of another session's (its CommitProcessor does not match
    // syncs with commits), so A's read after it is still stale.
    serve(&mut net, A, Op::Sync { path: p("/") });
    serve(&mut net, A, exists("/b", false));
    assert_eq!(read(&mut net, A), ["synced", "none"]);
    net.apply(0);
    serve(&mut net, A, exists("/b", false));
    assert_eq!(read(&mut net, A), ["exists"]);

    lose_a_create_and_move_to_the_leader(&mut net, "/c");
    // Every write reaches the leader's CommitProcessor, which holds B's
    // session's requests there until the leader has applied the create.
    net.submit(B, exists("/c", false));
    assert!(net.held(B));
    assert!(!net.can_serve(B));
    net.apply(0);
    assert!(!net.held(B));
    assert!(net.serve(B).is_some());
    assert_eq!(read(&mut net, B), ["exists"]);
}

#[test]
fn the_leader_takes_nothing_of_a_held_session_when_its_connection_breaks() {
    let mut net = ensemble(3);
    // Every server applies A's create, so the log forgets it: what the
    // leader owes is counted past the forgotten part.
    write(&mut net, A, create("/a", Persistent));
    net.apply(1);
    net.apply(2);
    assert_eq!(
        (0..3)
            .map(|server| net.ensemble.behind(server))
            .sum::<u64>(),
        0
    );
    lose_a_create_and_move_to_the_leader(&mut net, "/c");
    assert!(net.held(B), "the leader has not applied B's create");
    // The requests in flight when this connection breaks never reach the
    // leader's replica: the leader holds them behind the create.
    net.submit(B, create("/d", Persistent));
    net.break_connection(B, 1);
    assert!(!net.store.exists(&p("/d")), "not ordered");
    net.apply(0);
    assert!(!net.held(B));
}

#[test]
fn sync_waits_until_the_follower_applied_what_the_leader_had_committed() {
    let mut net = ensemble(3);
    write(&mut net, A, create("/a", Persistent));
    write(&mut net, A, create("/b", Persistent));
    serve(&mut net, B, Op::Sync { path: p("/") });
    assert_eq!(read(&mut net, B), Vec::<String>::new());
    // Committed after the sync reached the leader: not waited for.
    write(&mut net, A, create("/c", Persistent));
    net.apply(1);
    assert_eq!(read(&mut net, B), Vec::<String>::new());
    net.apply(1);
    assert_eq!(read(&mut net, B), ["synced"]);
    serve(&mut net, B, exists("/b", false));
    serve(&mut net, B, exists("/c", false));
    assert_eq!(read(&mut net, B), ["exists", "none"]);
    // A follower that has applied everything answers a sync at once.
    net.apply(1);
    serve(&mut net, B, Op::Sync { path: p("/") });
    assert_eq!(read(&mut net, B), ["synced"]);
}

#[test]
fn a_followers_watch_fires_when_that_follower_applies_the_change() {
    let mut net = ensemble(2);
    serve(&mut net, B, exists("/w", true));
    assert_eq!(read(&mut net, B), ["none"]);
    serve(&mut net, A, create("/w", Persistent));
    assert_eq!(read(&mut net, B), Vec::<String>::new(), "not at commit");
    net.apply(0);
    net.apply(2);
    assert_eq!(
        read(&mut net, B),
        Vec::<String>::new(),
        "not at the leader or another follower"
    );
    let fired = net.apply(1).expect("follower 1 applies the create");
    assert_eq!(fired.len(), 1);
    assert_eq!(read(&mut net, B), ["W:NodeCreated:/w"]);
}

#[test]
fn an_expiry_removes_the_ephemerals_at_each_follower_when_it_applies_it() {
    let mut net = ensemble(2);
    write(&mut net, A, create("/e", Ephemeral));
    net.apply(1);
    net.apply(2);
    serve(&mut net, B, exists("/e", true));
    assert_eq!(read(&mut net, B), ["exists"]);
    net.expire_session(net.session(A));
    assert!(!net.store.exists(&p("/e")));
    assert!(net.server_store(B).exists(&p("/e")));
    assert_eq!(read(&mut net, B), Vec::<String>::new());
    net.apply(1);
    assert!(!net.server_store(B).exists(&p("/e")));
    assert_eq!(read(&mut net, B), ["W:NodeDeleted:/e"]);
}

#[test]
fn a_server_behind_what_the_client_has_seen_refuses_it_until_it_catches_up() {
    let mut net = ensemble(2);
    write(&mut net, A, create("/z", Persistent));
    assert_eq!(read(&mut net, A), ["OK"]);
    net.disconnect(A, 0);
    assert!(net.can_reconnect(A), "the leader has seen all A has");
    net.move_client(A, 2);
    assert_eq!(net.server(A), 2);
    assert!(!net.can_reconnect(A), "follower 2 has not applied /z");
    net.apply(2);
    assert!(net.can_reconnect(A));
    assert_eq!(read(&mut net, A), Vec::<String>::new());
    let reconnected: Vec<String> = net
        .reconnect(A)
        .iter()
        .map(|delivery| format!("{delivery:?}"))
        .collect();
    assert_eq!(reconnected.len(), 1, "{reconnected:?}");
    assert!(reconnected[0].contains("SyncConnected"), "{reconnected:?}");
    serve(&mut net, A, exists("/z", false));
    assert_eq!(read(&mut net, A), ["exists"]);
}

#[test]
fn the_leader_commits_no_write_while_a_server_is_as_far_behind_as_the_lag() {
    let mut net = ensemble(1);
    serve(&mut net, A, create("/1", Persistent));
    net.submit(B, create("/2", Persistent));
    assert!(!net.can_serve(B), "every server is 1 behind");
    net.apply(1);
    assert!(!net.can_serve(B), "the leader and follower 2 still are");
    net.apply(2);
    assert!(!net.can_serve(B), "the leader still is");
    net.apply(0);
    assert!(net.can_serve(B));
    // A read is never held by the lag.
    let mut net = ensemble(1);
    serve(&mut net, A, create("/1", Persistent));
    serve(&mut net, B, exists("/1", false));
    assert_eq!(read(&mut net, B), ["none"]);
}

#[test]
fn a_lost_reply_keeps_the_sessions_next_requests_behind_its_write_on_the_same_server() {
    let mut net = ensemble(2);
    net.submit(B, create("/mine", Ephemeral));
    // The server takes the create, and the connection breaks before the
    // reply: B reconnects to the same follower, whose queue for B's
    // session still holds the create.
    net.break_connection(B, 1);
    assert_eq!(
        read(&mut net, B),
        ["CONNECTIONLOSS", "S:Disconnected"].map(String::from)
    );
    net.reconnect(B);
    serve_waits(&mut net, B, exists("/mine", false));
    net.apply(1);
    assert_eq!(
        read(&mut net, B),
        Vec::<String>::new(),
        "the create's reply is lost"
    );
    assert!(net.serve(B).is_some());
    assert_eq!(read(&mut net, B), ["exists"]);
}

/// Client `id` sends `op`, which its server holds behind the session's write.
fn serve_waits(net: &mut Net, id: usize, op: Op) {
    net.submit(id, op);
    assert!(!net.can_serve(id));
    assert!(net.serve(id).is_none());
}

#[test]
fn a_client_that_moves_away_from_its_pending_write_waits_for_it_at_the_new_server() {
    let mut net = ensemble(2);
    net.submit(B, create("/p", Persistent));
    net.break_connection(B, 1);
    read(&mut net, B);
    net.move_client(B, 1);
    assert_eq!(net.server(B), 2);
    // Follower 2 has not applied the create either: it does not refuse B,
    // which never saw the create's zxid.
    assert!(net.can_reconnect(B));
    net.reconnect(B);
    net.submit(B, exists("/p", false));
    assert!(
        !net.can_serve(B),
        "the session's write at follower 1 is unfinished"
    );
    net.apply(2);
    assert!(!net.can_serve(B));
    net.apply(1);
    assert_eq!(
        read(&mut net, B),
        Vec::<String>::new(),
        "its reply went with the connection"
    );
    assert!(net.serve(B).is_some());
    assert_eq!(read(&mut net, B), ["exists"]);
}

#[test]
fn a_new_session_is_served_once_its_follower_applied_its_creation() {
    let mut net = ensemble(2);
    net.open_session(B);
    net.submit(B, exists("/", false));
    assert!(!net.knows_session(B));
    assert!(!net.can_serve(B));
    net.apply(1);
    assert!(net.can_serve(B));
    assert!(net.serve(B).is_some());
    assert_eq!(read(&mut net, B), ["exists"]);
}

#[test]
fn a_client_reconnecting_to_a_follower_behind_its_expiry_hears_expired() {
    let mut net = ensemble(2);
    net.disconnect(B, 0);
    net.expire_session(net.session(B));
    assert!(
        net.server_store(B).is_alive(net.session(B)),
        "follower 1 has not applied it"
    );
    let heard: Vec<String> = (net.reconnect(B).iter())
        .map(|delivery| format!("{delivery:?}"))
        .collect();
    assert!(
        heard.iter().any(|event| event.contains("Expired")),
        "{heard:?}"
    );
}

#[test]
fn one_server_serves_whatever_is_in_flight_and_keeps_no_log() {
    let mut net = Net::new(StoreConfig::default(), 2);
    net.submit(A, create("/one", Persistent));
    net.submit(A, exists("/one", false));
    assert!(net.can_serve(A));
    assert!(net.serve(A).is_some());
    assert!(net.can_serve(A), "nothing waits on one server");
    assert!(net.serve(A).is_some());
    assert_eq!(read(&mut net, A), ["OK", "exists"]);
    assert_eq!(net.ensemble.servers(), 1);
    assert_eq!(net.ensemble.committed(), 0, "one server logs nothing");
    assert!(net.ensemble.places.is_empty());
}

/// The trace validator behind the real-ensemble conformance suite
/// (`zoocheck::conformance::EnsembleRun`): it explains a stale read by a
/// follower that has not applied a write, and a fresh one, and after a
/// `sync` on that follower it refuses the stale one. The observations are a
/// single server's (fresh) ones and, for the stale read, the same session's
/// read before the write.
#[test]
fn trace_validation_allows_a_stale_read_until_a_sync() {
    use zoocheck::conformance::{stale_read_steps, EnsembleRun, SimRun, ROOT};
    let steps = stale_read_steps();
    let fresh = SimRun::replay(&steps);
    let stale = fresh[2].clone();
    assert_ne!(fresh[4], stale, "the write changed what a fresh read shows");

    let mut model = EnsembleRun::new(ROOT);
    for index in 0..4 {
        model
            .explain(&steps[index], &fresh[index])
            .expect("a fresh run");
    }
    assert!(
        model.clone().explain(&steps[4], &fresh[4]).is_ok(),
        "a follower that applied the write answers it"
    );
    model
        .explain(&steps[4], &stale)
        .expect("a follower behind the write answers the old value");
    model.explain(&steps[5], &fresh[5]).expect("the sync");
    let refused = model.clone().explain(&steps[6], &stale);
    let allowed = refused.expect_err("after the sync the old value is not an answer");
    assert_eq!(allowed.replies, vec![fresh[6].reply.clone()]);
    model
        .explain(&steps[6], &fresh[6])
        .expect("the fresh value");
}

/// The trace validator explains what a real leader showed in CI (seed 103
/// of one run): session 1, on a follower, has its `setData` answered, and
/// then session 0's read on the leader still returns the old value, since
/// the leader applies a commit after it has sent it to the followers. A
/// `sync` on the leader does not wait for that apply, so the old value may
/// follow it too; a leader that has shown the new value never shows the
/// old one again.
#[test]
fn trace_validation_allows_the_leader_to_apply_after_a_follower_even_past_a_sync() {
    use zoocheck::conformance::{Action, Call, EnsembleRun, SimRun, Step, ROOT};
    let x = || "x".to_string();
    let step = |session, call| Step {
        session,
        action: Action::Op(call),
    };
    let read = || Call::GetData(x(), false);
    let steps = [
        step(0, Call::Create(x(), Some(b"a".to_vec()), Persistent)),
        step(0, read()),
        step(1, Call::SetData(x(), Some(b"bb".to_vec()), -1)),
        step(0, read()),
        step(0, Call::Sync(x())),
        step(0, read()),
    ];
    let fresh = SimRun::replay(&steps);
    let stale = fresh[1].clone();
    assert_ne!(fresh[3], stale, "the write changed what a fresh read shows");

    let mut model = EnsembleRun::new(ROOT);
    for index in 0..3 {
        model
            .explain(&steps[index], &fresh[index])
            .expect("a fresh run");
    }
    let mut applied = model.clone();
    applied
        .explain(&steps[3], &fresh[3])
        .expect("a leader that applied the write answers it");
    applied.explain(&steps[4], &fresh[4]).expect("the sync");
    let refused = applied.explain(&steps[5], &stale);
    let allowed = refused.expect_err("a leader that showed the write does not go back");
    assert_eq!(allowed.replies, vec![fresh[5].reply.clone()]);

    model
        .explain(&steps[3], &stale)
        .expect("a leader behind a write a follower answered reads the old value");
    model.explain(&steps[4], &fresh[4]).expect("the sync");
    assert!(
        model.clone().explain(&steps[5], &stale).is_ok(),
        "the leader answers its client's sync without applying the write first"
    );
    model
        .explain(&steps[5], &fresh[5])
        .expect("or after applying it");
}

/// A library whose connect request carries zxid zero (`connect_zxid =
/// "zero"`) is taken by a follower that has not applied the client's own
/// write, and reads behind it; one that sends the last zxid it saw (every
/// profile) is refused there until the follower catches up.
#[test]
fn a_library_that_connects_with_zxid_zero_reads_behind_its_own_write_on_a_lagging_follower() {
    use zoocheck::client::library::ConnectZxid;
    for (connect_zxid, taken, seen) in [
        (ConnectZxid::LastSeen, false, None),
        (ConnectZxid::Zero, true, Some("none")),
    ] {
        let mut net = ensemble(2);
        net.set_library(
            A,
            Library {
                connect_zxid,
                ..Library::JAVA
            },
        );
        write(&mut net, A, create("/z", Persistent));
        assert_eq!(read(&mut net, A), ["OK"]);
        net.disconnect(A, 0);
        net.move_client(A, 2);
        assert_eq!(net.can_reconnect(A), taken, "{connect_zxid:?}");
        if taken {
            net.reconnect(A);
            serve(&mut net, A, exists("/z", false));
            assert_eq!(read(&mut net, A).first().map(String::as_str), seen);
        }
    }
}
