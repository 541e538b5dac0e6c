//! One test per rule of `docs/zookeeper-semantics.md` sections 1, 2, 4 and 5: the simulated
//! server (`zoocheck::store`), named after the rule it pins. Numbers marked
//! [seen] come from observations of a real ZooKeeper 3.8.0 server, labelled as in `docs/zookeeper-semantics.md`.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use zoocheck::client::{Delivery, ServerMessage};
use zoocheck::net::Net;
use zoocheck::store::*;

// ---------------------------------------------------------------------------
// Helpers.
// ---------------------------------------------------------------------------

use CreateMode::{Ephemeral, EphemeralSequential, Persistent, PersistentSequential};
use EventType::{NodeChildrenChanged, NodeCreated, NodeDataChanged, NodeDeleted};

fn p(path: &str) -> Path {
    Path::new(path)
}

/// A fresh default store with one open session.
fn fresh() -> (Store, SessionId) {
    let mut store = Store::default();
    let session = store.open_session();
    (store, session)
}

fn create_op(path: &str, mode: CreateMode) -> Op {
    Op::Create {
        path: p(path),
        data: None,
        mode,
    }
}

/// A create; the actual path or the error.
fn create(
    store: &mut Store,
    s: SessionId,
    path: &str,
    mode: CreateMode,
) -> Result<String, ErrorCode> {
    match store.apply(s, &create_op(path, mode)).result {
        Ok(Response::Created { path, .. }) => Ok(path.as_str().to_string()),
        Ok(other) => panic!("create answered {other:?}"),
        Err(code) => Err(code),
    }
}

fn mk(store: &mut Store, s: SessionId, path: &str) -> String {
    create(store, s, path, Persistent).expect("create")
}

fn mk_data(store: &mut Store, s: SessionId, path: &str, bytes: &[u8]) -> Applied {
    let applied = store.apply(
        s,
        &Op::Create {
            path: p(path),
            data: data(bytes),
            mode: Persistent,
        },
    );
    assert!(
        applied.result.is_ok(),
        "create {path}: {:?}",
        applied.result
    );
    applied
}

fn delete(store: &mut Store, s: SessionId, path: &str, version: i32) -> Applied {
    store.apply(
        s,
        &Op::Delete {
            path: p(path),
            version,
        },
    )
}

fn set(store: &mut Store, s: SessionId, path: &str, bytes: &[u8], version: i32) -> Applied {
    store.apply(
        s,
        &Op::SetData {
            path: p(path),
            data: data(bytes),
            version,
        },
    )
}

fn exists(store: &mut Store, s: SessionId, path: &str, watch: bool) -> Applied {
    store.apply(
        s,
        &Op::Exists {
            path: p(path),
            watch,
        },
    )
}

fn get_data(store: &mut Store, s: SessionId, path: &str, watch: bool) -> Applied {
    store.apply(
        s,
        &Op::GetData {
            path: p(path),
            watch,
        },
    )
}

fn get_children(store: &mut Store, s: SessionId, path: &str, watch: bool) -> Applied {
    store.apply(
        s,
        &Op::GetChildren {
            path: p(path),
            watch,
        },
    )
}

fn err(applied: &Applied) -> Option<ErrorCode> {
    applied.result.as_ref().err().copied()
}

/// Notifications as `(session, kind, path)`, in the order the server queued them.
fn fired(applied: &Applied) -> Vec<(SessionId, EventType, String)> {
    notes(&applied.notifications)
}

fn notes(notifications: &[Notification]) -> Vec<(SessionId, EventType, String)> {
    notifications
        .iter()
        .map(|n| (n.session, n.event.kind, n.event.path.as_str().to_string()))
        .collect()
}

/// Creates a persistent node and answers its czxid.
fn created_at(store: &mut Store, s: SessionId, path: &str) -> Zxid {
    mk(store, s, path);
    stat(store, path).czxid
}

fn stat(store: &Store, path: &str) -> Stat {
    store
        .stat(&p(path))
        .unwrap_or_else(|| panic!("{path} exists"))
}

fn names(store: &Store, path: &str) -> Vec<String> {
    store
        .children(&p(path))
        .iter()
        .map(|n| n.to_string())
        .collect()
}

fn mcreate(path: &str, mode: CreateMode) -> MultiOp {
    MultiOp::Create {
        path: p(path),
        data: None,
        mode,
    }
}

fn multi(store: &mut Store, s: SessionId, ops: Vec<MultiOp>) -> (Applied, MultiOutcome) {
    let applied = store.apply(s, &Op::Multi(ops));
    let outcome = match &applied.result {
        Ok(Response::Multi(outcome)) => outcome.clone(),
        other => panic!("multi answered {other:?}"),
    };
    (applied, outcome)
}

/// The Stat fields that the observed log prints, zxids relative to `base`:
/// `(czxid, mzxid, pzxid, version, cversion, ephemeralOwner, dataLength, numChildren)`.
fn rel(stat: Stat, base: Zxid) -> (i64, i64, i64, i32, i32, i64, i32, i32) {
    (
        stat.czxid - base,
        stat.mzxid - base,
        stat.pzxid - base,
        stat.version,
        stat.cversion,
        stat.ephemeral_owner,
        stat.data_length,
        stat.num_children,
    )
}

// ---------------------------------------------------------------------------
// Section 1. Data model: paths.
// ---------------------------------------------------------------------------

#[test]
fn paths_are_absolute_without_trailing_slash_empty_dot_or_control_components() {
    let (mut store, s) = fresh();
    for bad in [
        "", "a", "a/b", "/a/", "/a//b", "//a", "/a/.", "/a/./b", "/a/..", "/a/../b", "/a\u{0}b",
        "/a\u{1f}",
    ] {
        assert_eq!(
            create(&mut store, s, bad, Persistent),
            Err(ErrorCode::BadArguments),
            "create {bad:?}"
        );
        assert_eq!(
            err(&exists(&mut store, s, bad, false)),
            Some(ErrorCode::BadArguments),
            "exists {bad:?}"
        );
    }
    // `...` is a fine name [seen: E5 create '...' ok?: OK:/t/e/...].
    mk(&mut store, s, "/e");
    assert_eq!(
        create(&mut store, s, "/e/...", Persistent),
        Ok("/e/...".to_string())
    );
}

#[test]
fn server_answers_badarguments_for_a_bad_path_on_every_op() {
    let (mut store, s) = fresh();
    let bad = p("/a/");
    for op in [
        Op::Create {
            path: bad.clone(),
            data: None,
            mode: Persistent,
        },
        Op::Delete {
            path: bad.clone(),
            version: -1,
        },
        Op::Exists {
            path: bad.clone(),
            watch: true,
        },
        Op::GetData {
            path: bad.clone(),
            watch: true,
        },
        Op::SetData {
            path: bad.clone(),
            data: None,
            version: -1,
        },
        Op::GetChildren {
            path: bad.clone(),
            watch: true,
        },
        Op::Sync { path: bad.clone() },
    ] {
        assert_eq!(
            store.apply(s, &op).result,
            Err(ErrorCode::BadArguments),
            "{op:?}"
        );
    }
    assert!(!store.has_watch(s, &bad, false));
    assert!(!store.has_watch(s, &bad, true));
}

#[test]
fn sequential_create_validates_path_plus_1_so_trailing_slash_prefix_is_valid() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/q");
    // A non-sequential create of the same path is refused.
    assert_eq!(
        create(&mut store, s, "/q/", Persistent),
        Err(ErrorCode::BadArguments)
    );
    for name in ["a", "b", "c", "d"] {
        mk(&mut store, s, &format!("/q/{name}"));
    }
    // [seen] create("/q/", SEQUENTIAL) gives /q/0000000004.
    assert_eq!(
        create(&mut store, s, "/q/", PersistentSequential),
        Ok("/q/0000000004".to_string())
    );
    assert_eq!(
        create(&mut store, s, "/q/x-", PersistentSequential),
        Ok("/q/x-0000000005".to_string())
    );
    // But `path + "1"` must still be valid: `//` or `/.` prefixes are not.
    assert_eq!(
        create(&mut store, s, "/q//", PersistentSequential),
        Err(ErrorCode::BadArguments)
    );
    assert_eq!(
        create(&mut store, s, "/q/.", PersistentSequential),
        Ok("/q/.0000000006".to_string())
    );
}

#[test]
fn initial_tree_is_zookeeper_with_quota_and_config() {
    let store = Store::default();
    let paths: Vec<&str> = store.paths().map(|path| path.as_str()).collect();
    assert_eq!(
        paths,
        vec!["/", "/zookeeper", "/zookeeper/config", "/zookeeper/quota"]
    );
    assert_eq!(names(&store, "/"), vec!["zookeeper"]);
    let mut zk = names(&store, "/zookeeper");
    zk.sort();
    assert_eq!(zk, vec!["config", "quota"]);
    assert_eq!(store.zxid(), 0);
}

#[test]
fn deleting_special_paths_gives_badarguments_and_create_root_gives_nodeexists() {
    let (mut store, s) = fresh();
    for special in ["/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config"] {
        assert_eq!(
            err(&delete(&mut store, s, special, -1)),
            Some(ErrorCode::BadArguments),
            "{special}"
        );
        assert!(store.exists(&p(special)));
    }
    assert_eq!(
        create(&mut store, s, "/", Persistent),
        Err(ErrorCode::NodeExists)
    );
    // [seen] /zookeeper/foo is an ordinary node.
    assert_eq!(
        create(&mut store, s, "/zookeeper/foo", Persistent),
        Ok("/zookeeper/foo".to_string())
    );
    assert_eq!(
        delete(&mut store, s, "/zookeeper/foo", -1).result,
        Ok(Response::Deleted)
    );
}

#[test]
fn get_children_returns_names_not_paths_in_a_fixed_unsorted_order() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/l");
    for _ in 0..10 {
        create(&mut store, s, "/l/lock-", EphemeralSequential).unwrap();
    }
    let got = names(&store, "/l");
    // Pinned hash order of ten lock names: neither sorted nor reversed.
    let want: Vec<String> = [9, 4, 1, 2, 0, 8, 5, 3, 7, 6]
        .iter()
        .map(|i| format!("lock-{i:010}"))
        .collect();
    assert_eq!(got, want);
    let mut reversed = got.clone();
    reversed.sort_by(|a, b| b.cmp(a));
    assert_ne!(got, reversed);
    let mut sorted = got.clone();
    sorted.sort();
    assert_ne!(got, sorted);
    // The reply carries the same names, and no name is a path.
    match get_children(&mut store, s, "/l", false).result {
        Ok(Response::Children { names: reply, .. }) => {
            let reply: Vec<String> = reply.iter().map(|n| n.to_string()).collect();
            assert_eq!(reply, got);
            assert!(reply.iter().all(|n| !n.contains('/')));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn data_is_bytes_or_null_and_null_stays_null() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/null");
    mk_data(&mut store, s, "/empty", b"");
    match get_data(&mut store, s, "/null", false).result {
        Ok(Response::Data { data, stat }) => {
            assert_eq!(data, None);
            assert_eq!(stat.data_length, 0);
        }
        other => panic!("{other:?}"),
    }
    match get_data(&mut store, s, "/empty", false).result {
        Ok(Response::Data { data: d, stat }) => {
            assert_eq!(d, data(b""));
            assert_eq!(stat.data_length, 0);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn child_order_is_fixed_for_a_set_of_names_whatever_the_history() {
    // Hashed order depends only on the set of names, not on the creation order.
    let (mut a, s) = fresh();
    let (mut b, t) = fresh();
    mk(&mut a, s, "/d");
    mk(&mut b, t, "/d");
    for name in ["kc", "ka", "ttl", "kb", "ctr"] {
        mk(&mut a, s, &format!("/d/{name}"));
    }
    for name in ["ctr", "kb", "ttl", "ka", "kc"] {
        mk(&mut b, t, &format!("/d/{name}"));
    }
    assert_eq!(names(&a, "/d"), names(&b, "/d"));
    assert_eq!(names(&a, "/d"), names(&a, "/d"));
}

#[test]
fn get_children_order_is_not_sorted_with_reversed_child_order() {
    let mut store = Store::new(StoreConfig {
        sequence_bits: 32,
        child_order: ChildOrder::Reversed,
        ..StoreConfig::default()
    });
    let s = store.open_session();
    mk(&mut store, s, "/l");
    for _ in 0..3 {
        create(&mut store, s, "/l/lock-", EphemeralSequential).unwrap();
    }
    mk(&mut store, s, "/l/a");
    assert_eq!(
        names(&store, "/l"),
        vec!["lock-0000000002", "lock-0000000001", "lock-0000000000", "a"]
    );
}

// The 1 MiB request limit is not modelled (store module doc), so "an oversized
// request drops the connection" has no test.

// ---------------------------------------------------------------------------
// Section 1. Node kinds.
// ---------------------------------------------------------------------------

#[test]
fn persistent_lives_until_deleted() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/p");
    store.apply(s, &Op::Close);
    assert!(store.exists(&p("/p")));
    assert_eq!(stat(&store, "/p").ephemeral_owner, 0);
    let t = store.open_session();
    assert_eq!(
        delete(&mut store, t, "/p", -1).result,
        Ok(Response::Deleted)
    );
    assert!(!store.exists(&p("/p")));
}

#[test]
fn ephemeral_owner_is_the_creating_session() {
    let (mut store, s) = fresh();
    let t = store.open_session();
    create(&mut store, t, "/e", Ephemeral).unwrap();
    let seq = create(&mut store, s, "/s-", EphemeralSequential).unwrap();
    assert_eq!(stat(&store, "/e").ephemeral_owner, t);
    assert_eq!(stat(&store, &seq).ephemeral_owner, s);
    assert_eq!(store.ephemerals(t), vec![p("/e")]);
}

#[test]
fn ephemeral_is_deleted_when_its_session_closes_or_expires() {
    let (mut store, s) = fresh();
    let t = store.open_session();
    create(&mut store, s, "/closed", Ephemeral).unwrap();
    create(&mut store, t, "/expired", Ephemeral).unwrap();
    assert_eq!(store.apply(s, &Op::Close).result, Ok(Response::Closed));
    assert!(!store.exists(&p("/closed")));
    assert!(store.exists(&p("/expired")));
    store.expire(t);
    assert!(!store.exists(&p("/expired")));
    assert!(!store.is_alive(s));
    assert!(!store.is_alive(t));
}

#[test]
fn ephemeral_cannot_have_children_for_any_session() {
    let (mut store, s) = fresh();
    let t = store.open_session();
    create(&mut store, s, "/e", Ephemeral).unwrap();
    for session in [s, t] {
        for mode in CreateMode::ALL {
            assert_eq!(
                create(&mut store, session, "/e/c", mode),
                Err(ErrorCode::NoChildrenForEphemerals),
                "{session} {mode:?}"
            );
        }
    }
    assert_eq!(stat(&store, "/e").num_children, 0);
    // [seen X1] getChildren on an ephemeral: OK:[]
    match get_children(&mut store, t, "/e", false).result {
        Ok(Response::Children { names, .. }) => assert!(names.is_empty()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn ephemeral_is_not_protected_by_owner_any_session_may_set_data_or_delete_it() {
    let (mut store, a) = fresh();
    let b = store.open_session();
    create(&mut store, a, "/e", Ephemeral).unwrap();
    // [seen X1] B setData on A's ephemeral: OK ver=1 eph=A.
    match set(&mut store, b, "/e", b"x", -1).result {
        Ok(Response::SetData { stat }) => {
            assert_eq!(
                (stat.version, stat.ephemeral_owner, stat.data_length),
                (1, a, 1)
            );
        }
        other => panic!("{other:?}"),
    }
    // [seen X1] B delete A's ephemeral: OK.
    assert_eq!(delete(&mut store, b, "/e", 1).result, Ok(Response::Deleted));
    assert!(store.ephemerals(a).is_empty());
}

#[test]
fn parent_of_an_ephemeral_cannot_be_deleted_while_it_exists() {
    let (mut store, a) = fresh();
    let b = store.open_session();
    mk(&mut store, b, "/t");
    create(&mut store, a, "/t/e", Ephemeral).unwrap();
    assert_eq!(
        err(&delete(&mut store, b, "/t", -1)),
        Some(ErrorCode::NotEmpty)
    );
    store.expire(a);
    assert_eq!(
        delete(&mut store, b, "/t", -1).result,
        Ok(Response::Deleted)
    );
}

#[test]
fn sequential_modes_behave_as_their_base_mode_plus_a_suffix() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/q");
    let ps = create(&mut store, s, "/q/p-", PersistentSequential).unwrap();
    let es = create(&mut store, s, "/q/e-", EphemeralSequential).unwrap();
    assert_eq!(
        (ps.as_str(), es.as_str()),
        ("/q/p-0000000000", "/q/e-0000000001")
    );
    assert_eq!(stat(&store, &ps).ephemeral_owner, 0);
    assert_eq!(stat(&store, &es).ephemeral_owner, s);
    assert_eq!(
        create(&mut store, s, &format!("{es}/c"), Persistent),
        Err(ErrorCode::NoChildrenForEphemerals)
    );
    store.apply(s, &Op::Close);
    assert!(store.exists(&p(&ps)));
    assert!(!store.exists(&p(&es)));
}

// Containers and TTL nodes are not modelled (store module doc, `CreateMode`
// has no such variant), so the CONTAINER and TTL rows have no test.

// ---------------------------------------------------------------------------
// Section 1. Stat fields.
// ---------------------------------------------------------------------------

#[test]
fn stat_on_create_is_zxid_version_zero_and_no_children() {
    let (mut store, s) = fresh();
    let applied = mk_data(&mut store, s, "/n", b"abc");
    let z = applied.zxid;
    let want = Stat {
        czxid: z,
        mzxid: z,
        pzxid: z,
        ctime: z,
        mtime: z,
        version: 0,
        cversion: 0,
        aversion: 0,
        ephemeral_owner: 0,
        data_length: 3,
        num_children: 0,
    };
    assert_eq!(stat(&store, "/n"), want);
    match applied.result {
        Ok(Response::Created { path, stat }) => {
            assert_eq!(path, p("/n"));
            assert_eq!(stat, want);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn stat_evolution_matches_e2() {
    // [seen E2], zxids relative to p's czxid (0xab).
    let (mut store, s) = fresh();
    let base = mk_data(&mut store, s, "/p", b"p").zxid;
    assert_eq!(rel(stat(&store, "/p"), base), (0, 0, 0, 0, 0, 0, 1, 0));
    mk(&mut store, s, "/p/a");
    assert_eq!(rel(stat(&store, "/p"), base), (0, 0, 1, 0, 1, 0, 1, 1));
    mk(&mut store, s, "/p/b"); // null data
    assert_eq!(rel(stat(&store, "/p"), base), (0, 0, 2, 0, 2, 0, 1, 2));
    delete(&mut store, s, "/p/a", -1);
    assert_eq!(rel(stat(&store, "/p"), base), (0, 0, 3, 0, 3, 0, 1, 1));
    set(&mut store, s, "/p/b", b"b", -1);
    assert_eq!(rel(stat(&store, "/p"), base), (0, 0, 3, 0, 3, 0, 1, 1));
    set(&mut store, s, "/p", b"p", -1); // same bytes
    assert_eq!(rel(stat(&store, "/p"), base), (0, 5, 3, 1, 3, 0, 1, 1));
    // b: null-data create then set: czxid=0xad mzxid=0xaf pzxid=0xad ver=1 dlen=1.
    assert_eq!(rel(stat(&store, "/p/b"), base), (2, 4, 2, 1, 0, 0, 1, 0));
}

#[test]
fn mzxid_and_mtime_change_on_every_set_data_even_with_identical_bytes() {
    let (mut store, s) = fresh();
    mk_data(&mut store, s, "/n", b"same");
    let before = stat(&store, "/n");
    let z = set(&mut store, s, "/n", b"same", -1).zxid;
    let after = stat(&store, "/n");
    assert_eq!((after.mzxid, after.mtime, after.version), (z, z, 1));
    assert!(after.mtime > before.mtime);
    assert_eq!((after.czxid, after.ctime), (before.czxid, before.ctime));
}

#[test]
fn pzxid_changes_when_a_child_is_created_or_deleted_including_ephemeral_cleanup() {
    let (mut store, s) = fresh();
    let t = store.open_session();
    mk(&mut store, s, "/p");
    let z1 = store.apply(s, &create_op("/p/c", Persistent)).zxid;
    assert_eq!(stat(&store, "/p").pzxid, z1);
    let z2 = delete(&mut store, s, "/p/c", -1).zxid;
    assert_eq!(stat(&store, "/p").pzxid, z2);
    create(&mut store, t, "/p/e", Ephemeral).unwrap();
    store.expire(t);
    assert_eq!(stat(&store, "/p").pzxid, store.zxid());
    // Not on the child's data, nor on a grandchild.
    mk(&mut store, s, "/p/k");
    let before = stat(&store, "/p").pzxid;
    set(&mut store, s, "/p/k", b"x", -1);
    mk(&mut store, s, "/p/k/g");
    assert_eq!(stat(&store, "/p").pzxid, before);
}

#[test]
fn version_is_incremented_once_per_successful_set_data() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/n");
    for expected in 1..=3 {
        match set(&mut store, s, "/n", b"v", expected - 1).result {
            Ok(Response::SetData { stat }) => assert_eq!(stat.version, expected),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(
        err(&set(&mut store, s, "/n", b"v", 0)),
        Some(ErrorCode::BadVersion)
    );
    assert_eq!(stat(&store, "/n").version, 3);
}

#[test]
fn cversion_counts_child_creates_plus_child_deletes() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/p");
    mk(&mut store, s, "/p/a");
    mk(&mut store, s, "/p/b");
    mk(&mut store, s, "/p/c");
    delete(&mut store, s, "/p/a", -1);
    delete(&mut store, s, "/p/b", -1);
    // 3 creates + 2 deletes; a failed create and a child's setData do not count.
    create(&mut store, s, "/p/c", Persistent).unwrap_err();
    set(&mut store, s, "/p/c", b"x", -1);
    assert_eq!(stat(&store, "/p").cversion, 5);
    assert_eq!(stat(&store, "/p").num_children, 1);
}

#[test]
fn fresh_server_cversion_of_root_is_minus_1_and_zookeeper_minus_2() {
    // [seen] fresh server: / cver=-1 (before /t*), /zookeeper cver=-2 nchild=2.
    let store = Store::default();
    let root = stat(&store, "/");
    let zk = stat(&store, "/zookeeper");
    assert_eq!((root.cversion, root.num_children), (-1, 1));
    assert_eq!(
        (
            zk.czxid,
            zk.mzxid,
            zk.pzxid,
            zk.version,
            zk.cversion,
            zk.num_children
        ),
        (0, 0, 0, 0, -2, 2)
    );
    // [seen] first run on a fresh server, after the first create under /:
    // stat(/) czxid=0x0 mzxid=0x0 pzxid=0x2 cver=0 nchild=2 (createSession was 0x1).
    let mut store = store;
    let s = store.open_session();
    mk(&mut store, s, "/t");
    let root = stat(&store, "/");
    assert_eq!(
        (
            root.czxid,
            root.mzxid,
            root.pzxid,
            root.cversion,
            root.num_children
        ),
        (0, 0, 2, 0, 2)
    );
}

#[test]
fn aversion_is_zero_on_create() {
    // setACL is not modelled, so aversion stays 0; its "+1 per setACL" has no test.
    let (mut store, s) = fresh();
    mk(&mut store, s, "/n");
    set(&mut store, s, "/n", b"x", -1);
    assert_eq!(stat(&store, "/n").aversion, 0);
}

#[test]
fn ephemeral_owner_is_session_id_for_ephemerals_and_zero_otherwise_and_never_changes() {
    let (mut store, s) = fresh();
    let t = store.open_session();
    create(&mut store, s, "/e", Ephemeral).unwrap();
    mk(&mut store, s, "/n");
    set(&mut store, t, "/e", b"x", -1);
    assert_eq!(stat(&store, "/e").ephemeral_owner, s);
    assert_eq!(stat(&store, "/n").ephemeral_owner, 0);
}

#[test]
fn num_children_and_data_length_are_the_obvious_counts() {
    let (mut store, s) = fresh();
    mk_data(&mut store, s, "/n", b"12345");
    mk(&mut store, s, "/n/a");
    mk(&mut store, s, "/n/b");
    mk(&mut store, s, "/n/a/g");
    let st = stat(&store, "/n");
    assert_eq!((st.num_children, st.data_length), (2, 5));
}

// ---------------------------------------------------------------------------
// Section 1. zxids.
// ---------------------------------------------------------------------------

#[test]
fn zxids_go_up_by_one_per_transaction() {
    let (mut store, s) = fresh();
    assert_eq!(store.zxid(), 1);
    let z1 = store.apply(s, &create_op("/a", Persistent)).zxid;
    let z2 = set(&mut store, s, "/a", b"x", -1).zxid;
    let z3 = delete(&mut store, s, "/a", -1).zxid;
    assert_eq!((z1, z2, z3), (2, 3, 4));
    assert_eq!(store.zxid(), 4);
}

#[test]
fn failed_write_uses_a_zxid() {
    // [seen E4] z1=0xbc, failed create, z2=0xbe (diff 2).
    let (mut store, s) = fresh();
    let z1 = created_at(&mut store, s, "/z1");
    let failed = store.apply(s, &create_op("/z1", Persistent));
    assert_eq!(failed.result, Err(ErrorCode::NodeExists));
    assert_eq!(failed.zxid, z1 + 1);
    let z2 = created_at(&mut store, s, "/z2");
    assert_eq!(z2 - z1, 2);
    // Every kind of failed write.
    let before = store.zxid();
    delete(&mut store, s, "/missing", -1);
    set(&mut store, s, "/missing", b"x", -1);
    set(&mut store, s, "/z1", b"x", 42);
    create(&mut store, s, "/no/parent", Persistent).unwrap_err();
    create(&mut store, s, "/bad/", Persistent).unwrap_err();
    assert_eq!(store.zxid(), before + 5);
}

#[test]
fn failed_multi_uses_exactly_one_zxid() {
    // [seen E4] failed multi, z4=0xc0 (diff from z2 2).
    let (mut store, s) = fresh();
    let z2 = created_at(&mut store, s, "/z2");
    let (applied, outcome) = multi(
        &mut store,
        s,
        vec![
            mcreate("/m1", Persistent),
            mcreate("/m2", Persistent),
            mcreate("/nope/x", Persistent),
        ],
    );
    assert_eq!(outcome.error(), Some(ErrorCode::NoNode));
    assert_eq!(applied.zxid, z2 + 1);
    let z4 = created_at(&mut store, s, "/z4");
    assert_eq!(z4 - z2, 2);
}

#[test]
fn create_session_and_close_session_use_a_zxid() {
    let (mut store, s) = fresh();
    let before = store.zxid();
    let t = store.open_session();
    assert_eq!(store.zxid(), before + 1);
    let closed = store.apply(t, &Op::Close);
    assert_eq!(closed.zxid, before + 2);
    store.expire(s);
    assert_eq!(store.zxid(), before + 3);
}

#[test]
fn reads_sync_and_set_watches_use_no_zxid() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/n");
    let z = store.zxid();
    for op in [
        Op::Exists {
            path: p("/n"),
            watch: true,
        },
        Op::Exists {
            path: p("/missing"),
            watch: true,
        },
        Op::GetData {
            path: p("/n"),
            watch: true,
        },
        Op::GetData {
            path: p("/missing"),
            watch: true,
        },
        Op::GetChildren {
            path: p("/n"),
            watch: true,
        },
        Op::Sync { path: p("/n") },
    ] {
        // A read's reply header carries the last processed zxid.
        assert_eq!(store.apply(s, &op).zxid, z, "{op:?}");
    }
    store.disconnect(s);
    let watches = SetWatches {
        relative_zxid: z,
        data: vec![p("/n")],
        exist: vec![p("/x")],
        child: vec![p("/n")],
        persistent: vec![],
        recursive: vec![],
    };
    assert_eq!(store.reconnect(s, &watches), Ok(vec![]));
    assert_eq!(store.zxid(), z);
}

#[test]
fn all_ops_of_one_multi_share_one_zxid_and_one_time() {
    // [seen E4] ok multi: z5 created, setData z5, create z5/c, all at 0xc1;
    // z5 ver=1 cver=1; [seen V3] multi ctimes equal.
    let (mut store, s) = fresh();
    let (applied, outcome) = multi(
        &mut store,
        s,
        vec![
            mcreate("/z5", Persistent),
            MultiOp::SetData {
                path: p("/z5"),
                data: data(b"x"),
                version: 0,
            },
            MultiOp::Create {
                path: p("/z5/c"),
                data: data(b""),
                mode: Persistent,
            },
            MultiOp::Check {
                path: p("/z5"),
                version: 1,
            },
        ],
    );
    assert_eq!(outcome.codes(), vec![0, 0, 0, 0]);
    let z = applied.zxid;
    assert_eq!(rel(stat(&store, "/z5"), z), (0, 0, 0, 1, 1, 0, 1, 1));
    assert_eq!(rel(stat(&store, "/z5/c"), z), (0, 0, 0, 0, 0, 0, 0, 0));
    assert_eq!(stat(&store, "/z5").ctime, stat(&store, "/z5/c").ctime);
    assert_eq!(store.zxid(), z);
}

#[test]
fn all_ephemerals_deleted_by_one_session_close_or_expiry_share_one_zxid() {
    let (mut store, s) = fresh();
    let t = store.open_session();
    mk(&mut store, s, "/a");
    mk(&mut store, s, "/b");
    create(&mut store, t, "/a/e1", Ephemeral).unwrap();
    create(&mut store, t, "/b/e2", EphemeralSequential).unwrap();
    create(&mut store, t, "/e3", Ephemeral).unwrap();
    let before = store.zxid();
    store.expire(t);
    assert_eq!(store.zxid(), before + 1);
    for parent in ["/a", "/b", "/"] {
        assert_eq!(stat(&store, parent).pzxid, before + 1, "{parent}");
    }
    let u = store.open_session();
    create(&mut store, u, "/a/f1", Ephemeral).unwrap();
    create(&mut store, u, "/b/f2", Ephemeral).unwrap();
    let closed = store.apply(u, &Op::Close).zxid;
    assert_eq!(store.zxid(), closed);
    assert_eq!(
        (stat(&store, "/a").pzxid, stat(&store, "/b").pzxid),
        (closed, closed)
    );
}

// ---------------------------------------------------------------------------
// Section 1. Sequential suffix.
// ---------------------------------------------------------------------------

#[test]
fn suffix_is_ten_digit_parent_counter_before_this_create() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/l");
    let got: Vec<String> = (0..3)
        .map(|_| create(&mut store, s, "/l/lock-", PersistentSequential).unwrap())
        .collect();
    assert_eq!(
        got,
        vec![
            "/l/lock-0000000000",
            "/l/lock-0000000001",
            "/l/lock-0000000002"
        ]
    );
    // [seen X2] a prefix without a dash: /t/c20000000001.
    assert_eq!(
        create(&mut store, s, "/l/c2", PersistentSequential),
        Ok("/l/c20000000003".to_string())
    );
}

#[test]
fn sequential_counter_is_shared_by_every_prefix() {
    // [seen E3] x-0000000000, plain, x-0000000002, y-0000000003, ...
    let (mut store, s) = fresh();
    mk(&mut store, s, "/q");
    let base = store.zxid();
    let mut got = vec![
        create(&mut store, s, "/q/x-", PersistentSequential),
        create(&mut store, s, "/q/plain", Persistent),
        create(&mut store, s, "/q/x-", PersistentSequential),
        create(&mut store, s, "/q/y-", PersistentSequential),
        create(&mut store, s, "/q/plain", Persistent),
        create(&mut store, s, "/q/plain", Persistent),
        create(&mut store, s, "/q/", PersistentSequential),
    ]
    .into_iter()
    .map(|r| r.unwrap_or_else(|code| format!("KE:{}", code.name())))
    .collect::<Vec<_>>();
    let (_, outcome) = multi(
        &mut store,
        s,
        vec![
            mcreate("/q/m-", PersistentSequential),
            mcreate("/q/m-", PersistentSequential),
        ],
    );
    match outcome {
        MultiOutcome::Committed(results) => {
            for r in results {
                match r {
                    MultiResult::Created { path } => got.push(format!("multi:{}", path.as_str())),
                    other => panic!("{other:?}"),
                }
            }
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        got,
        vec![
            "/q/x-0000000000",
            "/q/plain",
            "/q/x-0000000002",
            "/q/y-0000000003",
            "KE:NODEEXISTS",
            "KE:NODEEXISTS",
            "/q/0000000004",
            "multi:/q/m-0000000005",
            "multi:/q/m-0000000006",
        ]
    );
    // [seen E3] then one delete: q pzxid=0xbb (base+9) cver=8 nchild=6.
    delete(&mut store, s, "/q/plain", -1);
    assert_eq!(rel(stat(&store, "/q"), base), (0, 0, 9, 0, 8, 0, 0, 6));
}

#[test]
fn every_child_create_advances_the_counter_sequential_or_not() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/q");
    mk(&mut store, s, "/q/a");
    create(&mut store, s, "/q/e", Ephemeral).unwrap();
    assert_eq!(
        create(&mut store, s, "/q/s-", EphemeralSequential),
        Ok("/q/s-0000000002".to_string())
    );
}

#[test]
fn deletes_never_move_the_counter_back_and_numbers_are_never_reused() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/l");
    let a = create(&mut store, s, "/l/n-", PersistentSequential).unwrap();
    let b = create(&mut store, s, "/l/n-", PersistentSequential).unwrap();
    delete(&mut store, s, &b, -1);
    delete(&mut store, s, &a, -1);
    assert_eq!(
        create(&mut store, s, "/l/n-", PersistentSequential),
        Ok("/l/n-0000000002".to_string())
    );
}

#[test]
fn failed_create_does_not_advance_the_counter() {
    let (mut store, s) = fresh();
    let t = store.open_session();
    mk(&mut store, s, "/q");
    mk(&mut store, s, "/q/a");
    create(&mut store, t, "/q/e", Ephemeral).unwrap();
    assert_eq!(
        create(&mut store, s, "/q/a", Persistent),
        Err(ErrorCode::NodeExists)
    );
    assert_eq!(
        create(&mut store, s, "/q/e/c-", PersistentSequential),
        Err(ErrorCode::NoChildrenForEphemerals)
    );
    assert_eq!(
        create(&mut store, s, "/q/a/", Persistent),
        Err(ErrorCode::BadArguments)
    );
    store.expire(t);
    assert_eq!(
        create(&mut store, s, "/q/e/c-", PersistentSequential),
        Err(ErrorCode::NoNode)
    );
    assert_eq!(
        create(&mut store, s, "/q/x-", PersistentSequential),
        Ok("/q/x-0000000002".to_string())
    );
}

#[test]
fn failed_multi_does_not_advance_the_counter() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/q");
    let (_, outcome) = multi(
        &mut store,
        s,
        vec![
            mcreate("/q/m-", PersistentSequential),
            mcreate("/q/m-", PersistentSequential),
            mcreate("/nope/c", Persistent),
        ],
    );
    assert_eq!(outcome.codes(), vec![0, 0, ErrorCode::NoNode.code()]);
    assert_eq!(stat(&store, "/q").cversion, 0);
    assert_eq!(
        create(&mut store, s, "/q/m-", PersistentSequential),
        Ok("/q/m-0000000000".to_string())
    );
}

#[test]
fn two_sequential_creates_in_one_multi_get_consecutive_numbers() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/q");
    mk(&mut store, s, "/q/a");
    let (_, outcome) = multi(
        &mut store,
        s,
        vec![
            mcreate("/q/m-", PersistentSequential),
            mcreate("/q/n-", EphemeralSequential),
        ],
    );
    assert_eq!(
        outcome,
        MultiOutcome::Committed(vec![
            MultiResult::Created {
                path: p("/q/m-0000000001")
            },
            MultiResult::Created {
                path: p("/q/n-0000000002")
            },
        ])
    );
}

#[test]
fn counter_resets_when_the_parent_is_recreated() {
    // [seen Q2] before recreate /t/p/s-0000000000 after recreate /t/p/s-0000000000
    let (mut store, s) = fresh();
    mk(&mut store, s, "/p");
    let first = create(&mut store, s, "/p/s-", PersistentSequential).unwrap();
    assert_eq!(first, "/p/s-0000000000");
    mk(&mut store, s, "/p/other");
    delete(&mut store, s, &first, -1);
    delete(&mut store, s, "/p/other", -1);
    delete(&mut store, s, "/p", -1);
    mk(&mut store, s, "/p");
    assert_eq!(stat(&store, "/p").cversion, 0);
    assert_eq!(
        create(&mut store, s, "/p/s-", PersistentSequential),
        Ok("/p/s-0000000000".to_string())
    );
}

#[test]
fn sequence_counter_overflows_signed_at_the_configured_width_and_name_order_breaks() {
    let mut store = Store::new(StoreConfig {
        sequence_bits: 3,
        child_order: ChildOrder::Hashed,
        ..StoreConfig::default()
    });
    let s = store.open_session();
    mk(&mut store, s, "/l");
    let got: Vec<String> = (0..6)
        .map(|_| create(&mut store, s, "/l/lock-", EphemeralSequential).unwrap())
        .collect();
    assert_eq!(
        got,
        vec![
            "/l/lock-0000000000",
            "/l/lock-0000000001",
            "/l/lock-0000000002",
            "/l/lock-0000000003",
            "/l/lock--000000004",
            "/l/lock--000000003",
        ]
    );
    // The wrapped names sort before the first one: name order != create order.
    let mut sorted = got.clone();
    sorted.sort();
    assert_eq!(sorted[0], "/l/lock--000000003");
    assert_ne!(sorted, got);
    // The counter is also what cversion reports: 2 * (-2) - 6.
    assert_eq!(stat(&store, "/l").cversion, -10);
}

#[test]
fn sequence_counter_default_width_is_signed_32_bits() {
    assert_eq!(StoreConfig::default().sequence_bits, 32);
    assert_eq!(StoreConfig::default().child_order, ChildOrder::Hashed);
    // After 2147483647 comes -2147483648 (11 chars): the same format as a width-3 wrap.
    assert_eq!(format!("{:010}", i32::MIN), "-2147483648");
}

#[test]
fn counter_stuck_on_a_name_collision() {
    // [seen Q1] [/t/x-0000000000, /t/x-0000000003, /t/x-0000000002, KE:NODEEXISTS,
    // KE:NODEEXISTS, /t/y-0000000003, /t/x-0000000004]
    let (mut store, s) = fresh();
    mk(&mut store, s, "/t");
    let got: Vec<String> = [
        ("/t/x-", PersistentSequential),
        ("/t/x-0000000003", Persistent),
        ("/t/x-", PersistentSequential),
        ("/t/x-", PersistentSequential),
        ("/t/x-", PersistentSequential),
        ("/t/y-", PersistentSequential),
        ("/t/x-", PersistentSequential),
    ]
    .into_iter()
    .map(|(path, mode)| {
        create(&mut store, s, path, mode).unwrap_or_else(|code| format!("KE:{}", code.name()))
    })
    .collect();
    assert_eq!(
        got,
        vec![
            "/t/x-0000000000",
            "/t/x-0000000003",
            "/t/x-0000000002",
            "KE:NODEEXISTS",
            "KE:NODEEXISTS",
            "/t/y-0000000003",
            "/t/x-0000000004",
        ]
    );
}

#[test]
fn creation_order_unwraps_the_counter_and_follows_czxid() {
    // Width 2: the names go 0, 1, -2, -1, 0, 1 ... (each deleted before the
    // name comes round again); their places in the create order go on
    // counting, as their czxids do, and a failed create takes none.
    let mut store = Store::new(StoreConfig {
        sequence_bits: 2,
        child_order: ChildOrder::Hashed,
        ..StoreConfig::default()
    });
    let s = store.open_session();
    mk(&mut store, s, "/l");
    let mut place = 0u64;
    let mut last_czxid = 0;
    let mut names = Vec::new();
    for round in 0..9 {
        let name = create(&mut store, s, "/l/lock-", PersistentSequential).unwrap();
        let path = Path::new(&name);
        assert_eq!(store.creation_order(&path), Some(place), "{name}");
        let czxid = store.stat(&path).unwrap().czxid;
        assert!(czxid > last_czxid, "{name}");
        last_czxid = czxid;
        place += 1;
        names.push(name.clone());
        delete(&mut store, s, &name, -1);
        // Any child create advances the counter, a failed one does not.
        if round == 4 {
            assert_eq!(create(&mut store, s, "/l/x", Persistent), Ok("/l/x".into()));
            assert!(create(&mut store, s, "/l/x", Persistent).is_err());
            delete(&mut store, s, "/l/x", -1);
            place += 1;
        }
    }
    assert_eq!(
        names[..5],
        [
            "/l/lock-0000000000",
            "/l/lock-0000000001",
            "/l/lock--000000002",
            "/l/lock--000000001",
            "/l/lock-0000000000"
        ]
    );
    assert_eq!(store.creation_order(&Path::new("/l/plain")), None);
}

#[test]
fn wrapped_counter_gets_stuck_on_the_first_name_again() {
    // Width 2: 0, 1, -2, -1, then 0 collides with the live lock-0000000000.
    let mut store = Store::new(StoreConfig {
        sequence_bits: 2,
        child_order: ChildOrder::Hashed,
        ..StoreConfig::default()
    });
    let s = store.open_session();
    mk(&mut store, s, "/l");
    for _ in 0..4 {
        create(&mut store, s, "/l/lock-", PersistentSequential).unwrap();
    }
    assert_eq!(
        create(&mut store, s, "/l/lock-", PersistentSequential),
        Err(ErrorCode::NodeExists)
    );
    assert_eq!(
        create(&mut store, s, "/l/lock-", PersistentSequential),
        Err(ErrorCode::NodeExists)
    );
    delete(&mut store, s, "/l/lock-0000000000", -1);
    assert_eq!(
        create(&mut store, s, "/l/lock-", PersistentSequential),
        Ok("/l/lock-0000000000".to_string())
    );
}

// ---------------------------------------------------------------------------
// Section 2. Operations: general rules.
// ---------------------------------------------------------------------------

#[test]
fn all_operations_reads_included_are_totally_ordered_and_a_read_registers_its_watch_at_its_point() {
    let (mut store, a) = fresh();
    let b = store.open_session();
    mk_data(&mut store, a, "/n", b"0");
    // Read (with watch) before the write: it sees the old data and its watch fires.
    match get_data(&mut store, b, "/n", true).result {
        Ok(Response::Data { data: d, .. }) => assert_eq!(d, data(b"0")),
        other => panic!("{other:?}"),
    }
    let w = set(&mut store, a, "/n", b"1", -1);
    assert_eq!(fired(&w), vec![(b, NodeDataChanged, "/n".to_string())]);
    // Read after the write: it sees the new data and its watch waits for the next write.
    match get_data(&mut store, b, "/n", true).result {
        Ok(Response::Data { data: d, stat }) => assert_eq!((d, stat.version), (data(b"1"), 1)),
        other => panic!("{other:?}"),
    }
    assert!(store.has_watch(b, &p("/n"), false));
}

#[test]
fn error_codes_have_the_server_numbers() {
    let codes: Vec<(i32, &str)> = ErrorCode::ALL
        .iter()
        .map(|c| (c.code(), c.name()))
        .collect();
    assert_eq!(
        codes,
        vec![
            (-2, "RUNTIMEINCONSISTENCY"),
            (-4, "CONNECTIONLOSS"),
            (-8, "BADARGUMENTS"),
            (-101, "NONODE"),
            (-103, "BADVERSION"),
            (-108, "NOCHILDRENFOREPHEMERALS"),
            (-110, "NODEEXISTS"),
            (-111, "NOTEMPTY"),
            (-112, "SESSIONEXPIRED"),
            (-121, "NOWATCHER"),
        ]
    );
    for code in ErrorCode::ALL {
        assert_eq!(ErrorCode::from_code(code.code()), Some(code));
    }
    assert_eq!(
        ErrorCode::from_code(-102),
        None,
        "NOAUTH is not the model's"
    );
}

#[test]
fn every_request_first_checks_the_session() {
    let (mut store, s) = fresh();
    let t = store.open_session();
    mk(&mut store, s, "/n");
    store.expire(t);
    let closed = store.open_session();
    store.apply(closed, &Op::Close);
    for dead in [t, closed, 999] {
        for op in [
            // Even a request that would fail otherwise (bad path, missing node).
            Op::Create {
                path: p("/bad/"),
                data: None,
                mode: Persistent,
            },
            Op::Delete {
                path: p("/missing"),
                version: -1,
            },
            Op::Exists {
                path: p("/n"),
                watch: true,
            },
            Op::GetData {
                path: p("/n"),
                watch: true,
            },
            Op::SetData {
                path: p("/n"),
                data: None,
                version: 7,
            },
            Op::GetChildren {
                path: p("/n"),
                watch: true,
            },
            Op::Sync { path: p("/n") },
            Op::Multi(vec![mcreate("/m", Persistent)]),
            Op::Close,
        ] {
            assert_eq!(
                store.apply(dead, &op).result,
                Err(ErrorCode::SessionExpired),
                "{dead} {op:?}"
            );
        }
        assert!(!store.has_watch(dead, &p("/n"), false));
    }
    assert!(!store.exists(&p("/m")));
    assert_eq!(
        store.reconnect(t, &SetWatches::default()),
        Err(ErrorCode::SessionExpired)
    );
}

// ---------------------------------------------------------------------------
// Section 2. create.
// ---------------------------------------------------------------------------

#[test]
fn create_checks_bad_path_then_parent_then_nodeexists_then_nochildrenforephemerals() {
    let (mut store, s) = fresh();
    create(&mut store, s, "/e", Ephemeral).unwrap();
    // Bad path before missing parent.
    assert_eq!(
        create(&mut store, s, "/missing/x/", Persistent),
        Err(ErrorCode::BadArguments)
    );
    // Missing parent: no recursive create.
    assert_eq!(
        create(&mut store, s, "/missing/x", Persistent),
        Err(ErrorCode::NoNode)
    );
    assert_eq!(
        create(&mut store, s, "/missing/x-", PersistentSequential),
        Err(ErrorCode::NoNode)
    );
    assert!(!store.exists(&p("/missing")));
    // NODEEXISTS before NOCHILDRENFOREPHEMERALS: create `/e` itself again.
    assert_eq!(
        create(&mut store, s, "/e", Persistent),
        Err(ErrorCode::NodeExists)
    );
    assert_eq!(
        create(&mut store, s, "/e/c", Persistent),
        Err(ErrorCode::NoChildrenForEphemerals)
    );
}

#[test]
fn create_returns_the_actual_path_and_stat_and_updates_the_parent() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/q");
    let before = stat(&store, "/q");
    let applied = store.apply(
        s,
        &Op::Create {
            path: p("/q/x-"),
            data: data(b"hi"),
            mode: EphemeralSequential,
        },
    );
    let z = applied.zxid;
    match applied.result {
        Ok(Response::Created { path, stat }) => {
            assert_eq!(path, p("/q/x-0000000000"));
            assert_eq!(
                (stat.czxid, stat.ephemeral_owner, stat.data_length),
                (z, s, 2)
            );
        }
        other => panic!("{other:?}"),
    }
    let after = stat(&store, "/q");
    assert_eq!((after.pzxid, after.cversion, after.num_children), (z, 1, 1));
    assert_eq!((after.mzxid, after.version), (before.mzxid, before.version));
    assert!(applied.notifications.is_empty());
    // create sets no watch.
    assert!(!store.has_watch(s, &p("/q/x-0000000000"), false));
}

#[test]
fn create_fires_node_created_to_exists_watchers_then_children_changed_to_parent() {
    // [seen W1] after create N: [existsW:NodeCreated /t/n, parentChildW:NodeChildrenChanged /t]
    let (mut store, a) = fresh();
    let b = store.open_session();
    mk(&mut store, a, "/t");
    // W1: getData and getChildren of the missing node fail and set no watch.
    assert_eq!(
        err(&get_data(&mut store, a, "/t/n", true)),
        Some(ErrorCode::NoNode)
    );
    assert_eq!(
        err(&get_children(&mut store, a, "/t/n", true)),
        Some(ErrorCode::NoNode)
    );
    assert_eq!(
        exists(&mut store, a, "/t/n", true).result,
        Ok(Response::Exists(None))
    );
    get_children(&mut store, a, "/t", true);
    exists(&mut store, b, "/t/n", true);
    let applied = store.apply(b, &create_op("/t/n", Persistent));
    assert_eq!(
        fired(&applied),
        vec![
            (a, NodeCreated, "/t/n".to_string()),
            (b, NodeCreated, "/t/n".to_string()),
            (a, NodeChildrenChanged, "/t".to_string()),
        ]
    );
}

// ---------------------------------------------------------------------------
// Section 2. delete.
// ---------------------------------------------------------------------------

#[test]
fn delete_checks_special_path_then_parent_then_node_then_version_then_children() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/p");
    mk(&mut store, s, "/p/c");
    assert_eq!(
        err(&delete(&mut store, s, "/zookeeper", 5)),
        Some(ErrorCode::BadArguments)
    );
    assert_eq!(
        err(&delete(&mut store, s, "/nope/x", 5)),
        Some(ErrorCode::NoNode)
    );
    // [seen E5] delete missing with version: NONODE.
    assert_eq!(
        err(&delete(&mut store, s, "/p/missing", 5)),
        Some(ErrorCode::NoNode)
    );
    assert_eq!(
        err(&delete(&mut store, s, "/p", 5)),
        Some(ErrorCode::BadVersion)
    );
    assert_eq!(
        err(&delete(&mut store, s, "/p", 0)),
        Some(ErrorCode::NotEmpty)
    );
    assert_eq!(
        err(&delete(&mut store, s, "/p", -1)),
        Some(ErrorCode::NotEmpty)
    );
}

#[test]
fn badversion_is_checked_before_notempty() {
    // [seen E5] delete wrong version + has children: BADVERSION;
    // right version + has children: NOTEMPTY.
    let (mut store, s) = fresh();
    mk(&mut store, s, "/p");
    mk(&mut store, s, "/p/c");
    set(&mut store, s, "/p", b"x", -1);
    assert_eq!(
        err(&delete(&mut store, s, "/p", 0)),
        Some(ErrorCode::BadVersion)
    );
    assert_eq!(
        err(&delete(&mut store, s, "/p", 1)),
        Some(ErrorCode::NotEmpty)
    );
}

#[test]
fn delete_removes_the_node_and_updates_parent_pzxid_and_num_children() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/p");
    mk(&mut store, s, "/p/a");
    mk(&mut store, s, "/p/b");
    let applied = delete(&mut store, s, "/p/a", 0);
    assert_eq!(applied.result, Ok(Response::Deleted));
    assert!(!store.exists(&p("/p/a")));
    let st = stat(&store, "/p");
    assert_eq!(
        (st.pzxid, st.num_children, st.cversion),
        (applied.zxid, 1, 3)
    );
    assert_eq!(names(&store, "/p"), vec!["b"]);
}

#[test]
fn delete_fires_node_deleted_once_per_session_then_children_changed_to_parent() {
    // [seen W4] after delete N: [ch4:NodeDeleted, nDataW:NodeDeleted, ex4:NodeDeleted,
    // parentChildW2:NodeChildrenChanged /t, par4:NodeChildrenChanged /t]: one
    // server notification per connection, fanned out by the client.
    let (mut store, a) = fresh();
    let b = store.open_session();
    let c = store.open_session();
    mk(&mut store, a, "/t");
    mk(&mut store, a, "/t/n");
    get_children(&mut store, a, "/t/n", true);
    get_data(&mut store, a, "/t/n", true);
    exists(&mut store, a, "/t/n", true);
    get_children(&mut store, a, "/t", true);
    get_children(&mut store, b, "/t/n", true); // b: child watch only
    exists(&mut store, c, "/t/n", true); // c: data watch only
    let applied = delete(&mut store, a, "/t/n", -1);
    let mut deleted: Vec<_> = fired(&applied)
        .into_iter()
        .filter(|(_, k, _)| *k == NodeDeleted)
        .collect();
    deleted.sort();
    assert_eq!(
        deleted,
        vec![
            (a, NodeDeleted, "/t/n".to_string()),
            (b, NodeDeleted, "/t/n".to_string()),
            (c, NodeDeleted, "/t/n".to_string())
        ]
    );
    let all = fired(&applied);
    assert_eq!(all.len(), 4);
    assert_eq!(all[3], (a, NodeChildrenChanged, "/t".to_string()));
    assert!(!store.has_watch(a, &p("/t/n"), true));
    assert!(!store.has_watch(b, &p("/t/n"), true));
}

// ---------------------------------------------------------------------------
// Section 2. exists, getData, getChildren.
// ---------------------------------------------------------------------------

#[test]
fn exists_answers_stat_or_none() {
    let (mut store, s) = fresh();
    mk_data(&mut store, s, "/n", b"ab");
    assert_eq!(
        exists(&mut store, s, "/n", false).result,
        Ok(Response::Exists(Some(stat(&store, "/n"))))
    );
    // [seen E5] exists missing: OK:null (not NONODE).
    assert_eq!(
        exists(&mut store, s, "/missing", false).result,
        Ok(Response::Exists(None))
    );
    assert_eq!(
        exists(&mut store, s, "/nope/deeper", false).result,
        Ok(Response::Exists(None))
    );
}

#[test]
fn exists_on_missing_node_sets_a_watch() {
    let (mut store, s) = fresh();
    exists(&mut store, s, "/later", true);
    assert!(store.has_watch(s, &p("/later"), false));
    let applied = store.apply(s, &create_op("/later", Persistent));
    assert_eq!(
        fired(&applied),
        vec![(s, NodeCreated, "/later".to_string())]
    );
}

#[test]
fn exists_on_existing_node_sets_a_watch() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/n");
    exists(&mut store, s, "/n", true);
    assert!(store.has_watch(s, &p("/n"), false));
    assert!(!store.has_watch(s, &p("/n"), true));
}

#[test]
fn get_data_answers_data_and_stat_or_nonode() {
    let (mut store, s) = fresh();
    mk_data(&mut store, s, "/n", b"xyz");
    assert_eq!(
        get_data(&mut store, s, "/n", false).result,
        Ok(Response::Data {
            data: data(b"xyz"),
            stat: stat(&store, "/n")
        })
    );
    assert_eq!(
        err(&get_data(&mut store, s, "/missing", false)),
        Some(ErrorCode::NoNode)
    );
}

#[test]
fn get_data_on_missing_node_sets_no_watch() {
    // [seen W1] getData missing: NONODE, and the later create fires nothing for it.
    let (mut store, s) = fresh();
    assert_eq!(
        err(&get_data(&mut store, s, "/later", true)),
        Some(ErrorCode::NoNode)
    );
    assert!(!store.has_watch(s, &p("/later"), false));
    let applied = store.apply(s, &create_op("/later", Persistent));
    assert_eq!(fired(&applied), vec![]);
}

#[test]
fn get_data_on_existing_node_sets_a_data_watch() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/n");
    get_data(&mut store, s, "/n", true);
    assert!(store.has_watch(s, &p("/n"), false));
    get_data(&mut store, s, "/m", false);
    assert!(!store.has_watch(s, &p("/m"), false));
}

#[test]
fn get_children_answers_names_and_stat_or_nonode() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/p");
    mk(&mut store, s, "/p/a");
    match get_children(&mut store, s, "/p", false).result {
        Ok(Response::Children { names, stat: st }) => {
            assert_eq!(
                names.iter().map(|n| n.to_string()).collect::<Vec<_>>(),
                vec!["a"]
            );
            assert_eq!(st, stat(&store, "/p"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        err(&get_children(&mut store, s, "/missing", false)),
        Some(ErrorCode::NoNode)
    );
}

#[test]
fn get_children_on_missing_node_sets_no_watch() {
    let (mut store, s) = fresh();
    assert_eq!(
        err(&get_children(&mut store, s, "/later", true)),
        Some(ErrorCode::NoNode)
    );
    assert!(!store.has_watch(s, &p("/later"), true));
    store.apply(s, &create_op("/later", Persistent));
    let applied = store.apply(s, &create_op("/later/c", Persistent));
    assert_eq!(fired(&applied), vec![]);
}

#[test]
fn get_children_on_existing_node_sets_a_child_watch() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/p");
    get_children(&mut store, s, "/p", true);
    assert!(store.has_watch(s, &p("/p"), true));
    assert!(!store.has_watch(s, &p("/p"), false));
}

// ---------------------------------------------------------------------------
// Section 2. setData, setACL, sync.
// ---------------------------------------------------------------------------

#[test]
fn set_data_checks_nonode_then_badversion() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/n");
    // [seen E5] setData missing: NONODE; wrong version: BADVERSION.
    assert_eq!(
        err(&set(&mut store, s, "/missing", b"x", 3)),
        Some(ErrorCode::NoNode)
    );
    assert_eq!(
        err(&set(&mut store, s, "/n", b"x", 3)),
        Some(ErrorCode::BadVersion)
    );
    assert_eq!(store.data(&p("/n")), Some(&None));
}

#[test]
fn set_data_replaces_data_increments_version_and_sets_mzxid() {
    let (mut store, s) = fresh();
    mk_data(&mut store, s, "/n", b"old");
    let applied = set(&mut store, s, "/n", b"new!", 0);
    let z = applied.zxid;
    let want = Stat {
        mzxid: z,
        mtime: z,
        version: 1,
        data_length: 4,
        ..stat(&store, "/n")
    };
    assert_eq!(applied.result, Ok(Response::SetData { stat: want }));
    assert_eq!(stat(&store, "/n"), want);
    assert_eq!(store.data(&p("/n")), Some(&data(b"new!")));
    // [seen E5] setData version -1 always ok.
    assert_eq!(
        set(&mut store, s, "/n", b"x", -1).result.map(|_| ()),
        Ok(())
    );
    assert_eq!(stat(&store, "/n").version, 2);
}

#[test]
fn set_data_fires_node_data_changed_to_data_watchers_only() {
    // [seen W2] after setData N: NodeDataChanged; a 2nd setData: [] (one-shot).
    let (mut store, a) = fresh();
    let b = store.open_session();
    mk(&mut store, a, "/t");
    mk(&mut store, a, "/t/n");
    get_data(&mut store, a, "/t/n", true);
    exists(&mut store, b, "/t/n", true);
    get_children(&mut store, a, "/t/n", true);
    get_children(&mut store, a, "/t", true);
    get_data(&mut store, a, "/t", true);
    let first = set(&mut store, a, "/t/n", b"1", -1);
    assert_eq!(
        fired(&first),
        vec![
            (a, NodeDataChanged, "/t/n".to_string()),
            (b, NodeDataChanged, "/t/n".to_string())
        ]
    );
    assert_eq!(fired(&set(&mut store, a, "/t/n", b"2", -1)), vec![]);
    // The child and parent watches are still armed.
    assert!(store.has_watch(a, &p("/t/n"), true));
    assert!(store.has_watch(a, &p("/t"), true));
    assert!(store.has_watch(a, &p("/t"), false));
}

#[test]
fn sync_is_ok_even_for_a_missing_path_and_changes_nothing() {
    // [seen X4] sync on missing path rc=OK path=/t/nope
    let (mut store, s) = fresh();
    get_data(&mut store, s, "/", true);
    let before = store.clone();
    let applied = store.apply(s, &Op::Sync { path: p("/t/nope") });
    assert_eq!(applied.result, Ok(Response::Synced { path: p("/t/nope") }));
    assert!(applied.notifications.is_empty());
    assert_eq!(store, before);
}

// setACL is not modelled (no Op): "setACL: aversion+1, fires none [seen W5]"
// has no test.

// ---------------------------------------------------------------------------
// Section 2. multi.
// ---------------------------------------------------------------------------

#[test]
fn multi_ops_are_checked_against_the_state_changed_by_earlier_ops() {
    let (mut store, s) = fresh();
    mk_data(&mut store, s, "/d", b"old");
    // [seen E5] multi delete-then-create same path: OK, new node at the multi's zxid, dlen=3.
    let (applied, outcome) = multi(
        &mut store,
        s,
        vec![
            MultiOp::Delete {
                path: p("/d"),
                version: 0,
            },
            MultiOp::Create {
                path: p("/d"),
                data: data(b"new"),
                mode: Persistent,
            },
        ],
    );
    assert_eq!(
        outcome,
        MultiOutcome::Committed(vec![
            MultiResult::Deleted,
            MultiResult::Created { path: p("/d") }
        ])
    );
    assert_eq!(
        rel(stat(&store, "/d"), applied.zxid),
        (0, 0, 0, 0, 0, 0, 3, 0)
    );
    // [seen E5] multi create under just-deleted parent: NONODE.
    mk(&mut store, s, "/par");
    let (_, outcome) = multi(
        &mut store,
        s,
        vec![
            MultiOp::Delete {
                path: p("/par"),
                version: -1,
            },
            mcreate("/par/c", Persistent),
        ],
    );
    assert_eq!(outcome.error(), Some(ErrorCode::NoNode));
    assert_eq!(outcome.codes(), vec![0, -101]);
    assert!(store.exists(&p("/par")));
    // A check sees the version a setData earlier in the same multi produced.
    let (_, outcome) = multi(
        &mut store,
        s,
        vec![
            MultiOp::SetData {
                path: p("/d"),
                data: None,
                version: 0,
            },
            MultiOp::Check {
                path: p("/d"),
                version: 1,
            },
        ],
    );
    assert_eq!(outcome.codes(), vec![0, 0]);
}

#[test]
fn multi_is_all_or_nothing() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/a");
    let before = store.clone();
    let (applied, outcome) = multi(
        &mut store,
        s,
        vec![
            mcreate("/b", Persistent),
            MultiOp::SetData {
                path: p("/a"),
                data: data(b"x"),
                version: -1,
            },
            MultiOp::Delete {
                path: p("/a"),
                version: 99,
            },
        ],
    );
    assert_eq!(outcome.error(), Some(ErrorCode::BadVersion));
    assert!(!store.exists(&p("/b")));
    assert_eq!(stat(&store, "/a"), before.stat(&p("/a")).unwrap());
    assert_eq!(store.zxid(), before.zxid() + 1);
    assert_eq!(applied.zxid, store.zxid());
}

#[test]
fn failed_multi_results_are_zero_then_code_then_runtime_inconsistency() {
    // [seen E5] multi failure results [0, -103, -2], m1 exists? false.
    let (mut store, s) = fresh();
    mk(&mut store, s, "/v");
    let (_, outcome) = multi(
        &mut store,
        s,
        vec![
            mcreate("/m1", Persistent),
            MultiOp::SetData {
                path: p("/v"),
                data: data(b"x"),
                version: 5,
            },
            mcreate("/m2", Persistent),
        ],
    );
    assert_eq!(outcome.codes(), vec![0, -103, -2]);
    assert_eq!(outcome.error(), Some(ErrorCode::BadVersion));
    assert_eq!(
        outcome,
        MultiOutcome::Aborted {
            ops: 3,
            failed_at: 1,
            code: ErrorCode::BadVersion
        }
    );
    assert!(!store.exists(&p("/m1")));
    // [seen E5] check on missing: NONODE.
    let (_, outcome) = multi(
        &mut store,
        s,
        vec![MultiOp::Check {
            path: p("/missing"),
            version: -1,
        }],
    );
    assert_eq!(outcome.codes(), vec![-101]);
}

#[test]
fn failed_multi_fires_nothing() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/a");
    exists(&mut store, s, "/b", true);
    get_data(&mut store, s, "/a", true);
    get_children(&mut store, s, "/", true);
    let (applied, _) = multi(
        &mut store,
        s,
        vec![
            mcreate("/b", Persistent),
            MultiOp::SetData {
                path: p("/a"),
                data: None,
                version: -1,
            },
            MultiOp::Check {
                path: p("/a"),
                version: 0,
            },
        ],
    );
    assert_eq!(fired(&applied), vec![]);
    assert!(store.has_watch(s, &p("/b"), false));
    assert!(store.has_watch(s, &p("/a"), false));
    assert!(store.has_watch(s, &p("/"), true));
}

#[test]
fn multi_sub_ops_fire_as_if_alone_with_one_shot_applying_across_sub_ops() {
    // [seen W7] multi(create mm, setData n, delete mm) with exists watches on n and
    // mm, a data watch on n and child watches on /t: one NodeCreated mm, one
    // NodeChildrenChanged /t (the delete of mm finds the watch gone), one
    // NodeDataChanged n; no NodeDeleted mm (its exists watch fired on create).
    let (mut store, s) = fresh();
    mk(&mut store, s, "/t");
    mk(&mut store, s, "/t/n");
    exists(&mut store, s, "/t/n", true);
    exists(&mut store, s, "/t/mm", true);
    get_children(&mut store, s, "/t", true);
    get_data(&mut store, s, "/t/n", true);
    let (applied, outcome) = multi(
        &mut store,
        s,
        vec![
            mcreate("/t/mm", Persistent),
            MultiOp::SetData {
                path: p("/t/n"),
                data: data(b"x"),
                version: -1,
            },
            MultiOp::Delete {
                path: p("/t/mm"),
                version: -1,
            },
        ],
    );
    assert_eq!(outcome.codes(), vec![0, 0, 0]);
    assert_eq!(
        fired(&applied),
        vec![
            (s, NodeCreated, "/t/mm".to_string()),
            (s, NodeChildrenChanged, "/t".to_string()),
            (s, NodeDataChanged, "/t/n".to_string()),
        ]
    );
}

#[test]
fn empty_multi_returns_empty_without_contacting_the_server() {
    // [seen E5] empty multi: OK:[]. Through the client library and the net.
    let mut net = Net::new(StoreConfig::default(), 1);
    let z = net.store.zxid();
    let mut out = net.submit(0, Op::Multi(vec![]));
    out.extend(net.settle().remove(0));
    assert_eq!(out.len(), 1);
    match &out[0] {
        Delivery::Reply { result, .. } => assert_eq!(
            result,
            &Ok(Response::Multi(MultiOutcome::Committed(vec![])))
        ),
        other => panic!("{other:?}"),
    }
    // The client library answers it itself: the server never sees it.
    assert!(net.links[0].up.is_empty());
    assert_eq!(
        net.store.zxid(),
        z,
        "an empty multi must not reach the server"
    );
}

// ---------------------------------------------------------------------------
// Section 2. Which events a watch can receive; events; one-shot.
// ---------------------------------------------------------------------------

#[test]
fn exists_watch_receives_node_created_node_deleted_and_node_data_changed() {
    let (mut store, s) = fresh();
    exists(&mut store, s, "/n", true);
    let mut got = fired(&store.apply(s, &create_op("/n", Persistent)));
    exists(&mut store, s, "/n", true);
    got.extend(fired(&set(&mut store, s, "/n", b"x", -1)));
    exists(&mut store, s, "/n", true);
    got.extend(fired(&delete(&mut store, s, "/n", -1)));
    let kinds: Vec<EventType> = got.iter().map(|(_, k, _)| *k).collect();
    assert_eq!(kinds, vec![NodeCreated, NodeDataChanged, NodeDeleted]);
}

#[test]
fn get_data_watch_receives_node_deleted_and_node_data_changed() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/n");
    get_data(&mut store, s, "/n", true);
    let mut got = fired(&set(&mut store, s, "/n", b"x", -1));
    get_data(&mut store, s, "/n", true);
    // A child create under it is not its business.
    got.extend(fired(&store.apply(s, &create_op("/n/c", Persistent))));
    got.extend(fired(&delete(&mut store, s, "/n/c", -1)));
    got.extend(fired(&delete(&mut store, s, "/n", -1)));
    let kinds: Vec<EventType> = got.iter().map(|(_, k, _)| *k).collect();
    assert_eq!(kinds, vec![NodeDataChanged, NodeDeleted]);
}

#[test]
fn get_children_watch_receives_node_deleted_and_children_changed_not_child_data_or_grandchildren() {
    // [seen W3] create child: NodeChildrenChanged /t/n; delete child: NodeChildrenChanged /t/n.
    // [seen W11] grandchild create: [].
    let (mut store, s) = fresh();
    mk(&mut store, s, "/t");
    mk(&mut store, s, "/t/n");
    get_children(&mut store, s, "/t/n", true);
    assert_eq!(
        fired(&store.apply(s, &create_op("/t/n/c", Persistent))),
        vec![(s, NodeChildrenChanged, "/t/n".to_string())]
    );
    get_children(&mut store, s, "/t/n", true);
    assert_eq!(fired(&set(&mut store, s, "/t/n/c", b"x", -1)), vec![]);
    assert_eq!(
        fired(&store.apply(s, &create_op("/t/n/c/g", Persistent))),
        vec![]
    );
    assert_eq!(fired(&delete(&mut store, s, "/t/n/c/g", -1)), vec![]);
    assert_eq!(fired(&set(&mut store, s, "/t/n", b"x", -1)), vec![]);
    assert_eq!(
        fired(&delete(&mut store, s, "/t/n/c", -1)),
        vec![(s, NodeChildrenChanged, "/t/n".to_string())]
    );
    get_children(&mut store, s, "/t/n", true);
    assert_eq!(
        fired(&delete(&mut store, s, "/t/n", -1)),
        vec![(s, NodeDeleted, "/t/n".to_string())]
    );
}

#[test]
fn events_carry_only_type_and_path_and_children_changed_names_the_parent() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/t");
    get_children(&mut store, s, "/t", true);
    let applied = store.apply(
        s,
        &Op::Create {
            path: p("/t/lock-"),
            data: data(b"payload"),
            mode: EphemeralSequential,
        },
    );
    let events: Vec<(SessionId, WatchEvent)> = applied
        .notifications
        .iter()
        .map(|n| (n.session, n.event.clone()))
        .collect();
    assert_eq!(
        events,
        vec![(
            s,
            WatchEvent {
                kind: NodeChildrenChanged,
                path: p("/t")
            }
        )]
    );
    // The event is exactly a kind and a path: destructuring names every field.
    let WatchEvent { kind, path } = applied.notifications[0].event.clone();
    assert_eq!((kind, path.as_str()), (NodeChildrenChanged, "/t"));
}

#[test]
fn standard_watches_are_one_shot() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/n");
    get_data(&mut store, s, "/n", true);
    get_children(&mut store, s, "/n", true);
    assert_eq!(fired(&set(&mut store, s, "/n", b"1", -1)).len(), 1);
    assert_eq!(fired(&set(&mut store, s, "/n", b"2", -1)).len(), 0);
    assert_eq!(
        fired(&store.apply(s, &create_op("/n/a", Persistent))).len(),
        1
    );
    assert_eq!(
        fired(&store.apply(s, &create_op("/n/b", Persistent))).len(),
        0
    );
    assert!(!store.has_watch(s, &p("/n"), false));
    assert!(!store.has_watch(s, &p("/n"), true));
}

#[test]
fn re_registering_a_watch_is_idempotent() {
    // [seen X7] duplicate registration: one NodeDataChanged.
    let (mut store, s) = fresh();
    mk(&mut store, s, "/ke");
    get_data(&mut store, s, "/ke", true);
    get_data(&mut store, s, "/ke", true);
    exists(&mut store, s, "/ke", true); // same table as getData
    assert_eq!(
        fired(&set(&mut store, s, "/ke", b"x", -1)),
        vec![(s, NodeDataChanged, "/ke".to_string())]
    );
}

#[test]
fn the_writers_own_watches_fire_too() {
    // [seen W6] own write: [watch:NodeDataChanged, ownSetDataCallback:ver=2].
    let (mut store, s) = fresh();
    mk(&mut store, s, "/n");
    get_data(&mut store, s, "/n", true);
    let applied = set(&mut store, s, "/n", b"x", -1);
    assert_eq!(
        fired(&applied),
        vec![(s, NodeDataChanged, "/n".to_string())]
    );
}

#[test]
fn delete_then_recreate_with_one_exists_watch_fires_only_node_deleted() {
    // [seen W9] delete+recreate with one exists watch (and a child watch):
    // [ex9:NodeDeleted /t/n, ch5:NodeDeleted /t/n]: one notification, no NodeCreated.
    let (mut store, s) = fresh();
    mk(&mut store, s, "/t");
    mk(&mut store, s, "/t/n");
    exists(&mut store, s, "/t/n", true);
    get_children(&mut store, s, "/t/n", true);
    assert_eq!(
        fired(&delete(&mut store, s, "/t/n", -1)),
        vec![(s, NodeDeleted, "/t/n".to_string())]
    );
    assert_eq!(
        fired(&store.apply(s, &create_op("/t/n", Persistent))),
        vec![]
    );
}

#[test]
fn each_watching_session_gets_its_own_notification() {
    // [seen W10] two clients: [c1:NodeDataChanged, c2:NodeDataChanged].
    let (mut store, a) = fresh();
    let b = store.open_session();
    mk(&mut store, a, "/t");
    mk(&mut store, a, "/t/n");
    get_data(&mut store, a, "/t/n", true);
    get_data(&mut store, b, "/t/n", true);
    assert_eq!(
        fired(&set(&mut store, b, "/t/n", b"x", -1)),
        vec![
            (a, NodeDataChanged, "/t/n".to_string()),
            (b, NodeDataChanged, "/t/n".to_string())
        ]
    );
}

#[test]
fn sequential_create_fires_children_changed_on_the_parent() {
    // [seen W12] seq create: [par12:NodeChildrenChanged /t].
    let (mut store, s) = fresh();
    mk(&mut store, s, "/t");
    get_children(&mut store, s, "/t", true);
    let applied = store.apply(s, &create_op("/t/s-", PersistentSequential));
    assert_eq!(
        fired(&applied),
        vec![(s, NodeChildrenChanged, "/t".to_string())]
    );
}

#[test]
fn failed_ops_fire_nothing() {
    // [seen W5] after failed ops: [].
    let (mut store, s) = fresh();
    mk(&mut store, s, "/t");
    mk(&mut store, s, "/t/n");
    mk(&mut store, s, "/t/n/c");
    get_data(&mut store, s, "/t/n", true);
    get_children(&mut store, s, "/t/n", true);
    get_children(&mut store, s, "/t", true);
    exists(&mut store, s, "/t/x", true);
    let mut got = Vec::new();
    got.extend(fired(&set(&mut store, s, "/t/n", b"x", 9))); // BADVERSION
    got.extend(fired(&delete(&mut store, s, "/t/n", 9))); // BADVERSION
    got.extend(fired(&delete(&mut store, s, "/t/n", -1))); // NOTEMPTY
    got.extend(fired(&store.apply(s, &create_op("/t/n", Persistent)))); // NODEEXISTS
    got.extend(fired(&store.apply(s, &create_op("/t/x/y", Persistent)))); // NONODE
    assert_eq!(got, vec![]);
    assert!(store.has_watch(s, &p("/t/n"), false));
    assert!(store.has_watch(s, &p("/t/n"), true));
    assert!(store.has_watch(s, &p("/t"), true));
    assert!(store.has_watch(s, &p("/t/x"), false));
}

// ---------------------------------------------------------------------------
// Section 4. Ordering guarantees (through the FIFO net).
// ---------------------------------------------------------------------------

fn replies(deliveries: &[Delivery]) -> Vec<OpResult> {
    deliveries
        .iter()
        .filter_map(|d| match d {
            Delivery::Reply { result, .. } => Some(result.clone()),
            _ => None,
        })
        .collect()
}

fn cz(result: &OpResult) -> Zxid {
    match result {
        Ok(Response::Created { stat, .. }) => stat.czxid,
        other => panic!("{other:?}"),
    }
}

#[test]
fn total_order_of_all_writes_by_zxid() {
    let mut net = Net::new(StoreConfig::default(), 2);
    net.submit(0, create_op("/a", Persistent));
    net.submit(1, create_op("/b", Persistent));
    net.submit(0, create_op("/c", Persistent));
    // The server interleaves the two connections: 1 first, then 0 twice.
    net.serve(1);
    net.serve(0);
    net.serve(0);
    let out = net.settle();
    let a = replies(&out[0]);
    let b = replies(&out[1]);
    let (za, zc, zb) = (cz(&a[0]), cz(&a[1]), cz(&b[0]));
    assert_eq!((zb + 1, zb + 2), (za, zc));
    assert_eq!(net.store.zxid(), zc);
}

#[test]
fn per_session_fifo_requests_are_applied_in_order_and_replies_arrive_in_order() {
    let mut net = Net::new(StoreConfig::default(), 1);
    net.submit(0, create_op("/q", Persistent));
    net.submit(0, create_op("/q/x-", PersistentSequential));
    net.submit(
        0,
        Op::GetChildren {
            path: p("/q"),
            watch: false,
        },
    );
    net.submit(0, create_op("/q/x-", PersistentSequential));
    let out = net.settle().remove(0);
    let xids: Vec<u32> = out
        .iter()
        .map(|d| match d {
            Delivery::Reply { xid, .. } => *xid,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(xids, vec![1, 2, 3, 4]);
    let r = replies(&out);
    assert_eq!(r[1].as_ref().map(|_| ()), Ok(()));
    match &r[2] {
        Ok(Response::Children { names, .. }) => assert_eq!(names.len(), 1),
        other => panic!("{other:?}"),
    }
    match &r[3] {
        Ok(Response::Created { path, .. }) => assert_eq!(path, &p("/q/x-0000000001")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_connectionloss_op_may_still_have_been_applied_before_later_ops_of_the_same_client() {
    let mut net = Net::new(StoreConfig::default(), 1);
    net.submit(0, create_op("/first", Persistent));
    net.submit(0, create_op("/second", Persistent));
    let lost = net.disconnect(0, 1);
    assert_eq!(
        replies(&lost),
        vec![
            Err(ErrorCode::ConnectionLoss),
            Err(ErrorCode::ConnectionLoss)
        ]
    );
    assert!(net.store.exists(&p("/first")));
    assert!(!net.store.exists(&p("/second")));
    net.reconnect(0);
    net.submit(0, create_op("/third", Persistent));
    net.settle();
    assert!(
        net.store.stat(&p("/first")).unwrap().czxid < net.store.stat(&p("/third")).unwrap().czxid
    );
}

#[test]
fn watch_before_data_notification_is_queued_before_any_reply_reflecting_the_write() {
    // [seen W6] other client's write: [watch:NodeDataChanged, getDataCallback:ver=1];
    // own write: [watch:NodeDataChanged, ownSetDataCallback:ver=2].
    let mut net = Net::new(StoreConfig::default(), 2);
    net.submit(
        0,
        Op::Create {
            path: p("/n"),
            data: data(b"0"),
            mode: Persistent,
        },
    );
    net.submit(
        1,
        Op::Exists {
            path: p("/n"),
            watch: false,
        },
    );
    net.settle();
    net.submit(
        1,
        Op::GetData {
            path: p("/n"),
            watch: true,
        },
    );
    net.settle();
    // A writes, then B reads: B's link carries the event before the reply.
    net.submit(
        0,
        Op::SetData {
            path: p("/n"),
            data: data(b"1"),
            version: -1,
        },
    );
    net.serve(0);
    net.submit(
        1,
        Op::GetData {
            path: p("/n"),
            watch: true,
        },
    );
    net.serve(1);
    let b: Vec<Delivery> = (0..2).flat_map(|_| net.deliver(1)).collect();
    assert_eq!(
        b[0],
        Delivery::Watch(WatchEvent {
            kind: NodeDataChanged,
            path: p("/n")
        })
    );
    match &b[1] {
        Delivery::Reply {
            result: Ok(Response::Data { stat, .. }),
            ..
        } => assert_eq!(stat.version, 1),
        other => panic!("{other:?}"),
    }
    net.settle();
    // Own write: B's own setData fires B's watch before B's reply.
    net.submit(
        1,
        Op::SetData {
            path: p("/n"),
            data: data(b"2"),
            version: -1,
        },
    );
    let own = net.settle().remove(1);
    assert_eq!(
        own[0],
        Delivery::Watch(WatchEvent {
            kind: NodeDataChanged,
            path: p("/n")
        })
    );
    match &own[1] {
        Delivery::Reply {
            result: Ok(Response::SetData { stat }),
            ..
        } => assert_eq!(stat.version, 2),
        other => panic!("{other:?}"),
    }
    assert_eq!(own.len(), 2);
}

#[test]
fn no_simultaneous_view_the_writer_may_see_its_reply_before_others_see_the_event() {
    let mut net = Net::new(StoreConfig::default(), 2);
    net.submit(
        1,
        Op::Exists {
            path: p("/n"),
            watch: true,
        },
    );
    net.settle();
    net.submit(0, create_op("/n", Persistent));
    net.serve(0);
    let writer = net.deliver(0);
    assert_eq!(replies(&writer).len(), 1);
    // The event is still on B's link, undelivered.
    assert_eq!(
        net.links[1].down.iter().cloned().collect::<Vec<_>>(),
        vec![ServerMessage::Notification(WatchEvent {
            kind: NodeCreated,
            path: p("/n")
        })]
    );
    assert_eq!(
        net.deliver(1),
        vec![Delivery::Watch(WatchEvent {
            kind: NodeCreated,
            path: p("/n")
        })]
    );
}

#[test]
fn reads_are_never_stale_on_one_server() {
    let mut net = Net::new(StoreConfig::default(), 2);
    net.submit(
        0,
        Op::Create {
            path: p("/n"),
            data: data(b"new"),
            mode: Persistent,
        },
    );
    net.serve(0);
    // B has not seen anything, yet its read, served after the write, reflects it.
    net.submit(
        1,
        Op::GetData {
            path: p("/n"),
            watch: false,
        },
    );
    net.serve(1);
    match replies(&net.deliver(1)).remove(0) {
        Ok(Response::Data { data: d, .. }) => assert_eq!(d, data(b"new")),
        other => panic!("{other:?}"),
    }
    // sync needs no round of its own: it is a no-op barrier.
    net.submit(1, Op::Sync { path: p("/n") });
    assert_eq!(
        replies(&net.settle()[1]),
        vec![Ok(Response::Synced { path: p("/n") })]
    );
}

// ---------------------------------------------------------------------------
// Section 5. What simulators commonly get wrong: the store does not.
// ---------------------------------------------------------------------------

#[test]
fn sequence_is_not_max_suffix_plus_one_nor_child_count_nor_cversion_nor_per_prefix() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/q");
    let a = create(&mut store, s, "/q/a-", PersistentSequential).unwrap(); // 0
    let b = create(&mut store, s, "/q/a-", PersistentSequential).unwrap(); // 1
    mk(&mut store, s, "/q/plain"); // 2
    delete(&mut store, s, &b, -1);
    delete(&mut store, s, "/q/plain", -1);
    // max suffix + 1 = 1, child count = 1, reported cversion = 2*3-1 = 5,
    // per-prefix counter for b- = 0. The real answer is the create counter: 3.
    assert_eq!(a, "/q/a-0000000000");
    assert_eq!(stat(&store, "/q").cversion, 5);
    assert_eq!(
        create(&mut store, s, "/q/b-", PersistentSequential),
        Ok("/q/b-0000000003".to_string())
    );
}

#[test]
fn not_forgetting_that_plain_creates_advance_the_counter_and_failed_creates_do_not() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/q");
    mk(&mut store, s, "/q/plain");
    create(&mut store, s, "/q/plain", Persistent).unwrap_err();
    create(&mut store, s, "/q/plain", Persistent).unwrap_err();
    assert_eq!(
        create(&mut store, s, "/q/s-", PersistentSequential),
        Ok("/q/s-0000000001".to_string())
    );
}

#[test]
fn not_an_empty_root_zookeeper_is_there() {
    let store = Store::default();
    assert!(store.exists(&p("/zookeeper")));
    assert_eq!(stat(&store, "/").num_children, 1);
    assert_eq!(names(&store, "/"), vec!["zookeeper"]);
}

#[test]
fn not_missing_the_exists_watch_on_a_missing_node_nor_adding_one_on_failed_reads() {
    let (mut store, s) = fresh();
    exists(&mut store, s, "/n", true);
    get_data(&mut store, s, "/m", true);
    get_children(&mut store, s, "/m", true);
    assert!(store.has_watch(s, &p("/n"), false));
    assert!(!store.has_watch(s, &p("/m"), false));
    assert!(!store.has_watch(s, &p("/m"), true));
    let mut got = fired(&store.apply(s, &create_op("/n", Persistent)));
    got.extend(fired(&store.apply(s, &create_op("/m", Persistent))));
    assert_eq!(got, vec![(s, NodeCreated, "/n".to_string())]);
}

#[test]
fn not_firing_for_a_childs_data_grandchildren_or_the_parents_data_watch() {
    // setACL is not modelled; the other three cases:
    let (mut store, s) = fresh();
    mk(&mut store, s, "/p");
    mk(&mut store, s, "/p/c");
    get_children(&mut store, s, "/p", true);
    get_data(&mut store, s, "/p", true);
    let mut got = fired(&set(&mut store, s, "/p/c", b"x", -1));
    got.extend(fired(&store.apply(s, &create_op("/p/c/g", Persistent))));
    got.extend(fired(&delete(&mut store, s, "/p/c/g", -1)));
    assert_eq!(got, vec![]);
    // A child create fires the child watch, not the parent's data watch.
    assert_eq!(
        fired(&store.apply(s, &create_op("/p/d", Persistent))),
        vec![(s, NodeChildrenChanged, "/p".to_string())]
    );
    assert!(store.has_watch(s, &p("/p"), false));
}

#[test]
fn not_sending_children_changed_to_a_deleted_nodes_own_child_watchers() {
    let (mut store, a) = fresh();
    let b = store.open_session();
    mk(&mut store, a, "/n");
    get_children(&mut store, a, "/n", true);
    get_data(&mut store, a, "/n", true);
    get_children(&mut store, b, "/n", true);
    let got = fired(&delete(&mut store, a, "/n", -1));
    assert_eq!(
        got.iter()
            .filter(|(_, k, _)| *k == NodeChildrenChanged)
            .count(),
        0
    );
    let mut got = got;
    got.sort();
    assert_eq!(
        got,
        vec![
            (a, NodeDeleted, "/n".to_string()),
            (b, NodeDeleted, "/n".to_string())
        ]
    );
}

#[test]
fn not_consuming_watches_on_session_events() {
    // The store's side: a connection loss drops the server's copy, but the
    // client's SetWatches re-arms it and the next change still fires.
    let (mut store, s) = fresh();
    mk(&mut store, s, "/n");
    get_data(&mut store, s, "/n", true);
    let z = store.zxid();
    store.disconnect(s);
    assert_eq!(
        store.reconnect(
            s,
            &SetWatches {
                relative_zxid: z,
                data: vec![p("/n")],
                exist: vec![],
                child: vec![],
                persistent: vec![],
                recursive: vec![],
            }
        ),
        Ok(vec![])
    );
    assert_eq!(
        fired(&set(&mut store, s, "/n", b"x", -1)),
        vec![(s, NodeDataChanged, "/n".to_string())]
    );
}

#[test]
fn not_putting_data_a_stat_or_the_child_name_in_an_event() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/p");
    get_children(&mut store, s, "/p", true);
    get_data(&mut store, s, "/p", true);
    let mut got = store
        .apply(
            s,
            &Op::Create {
                path: p("/p/child"),
                data: data(b"secret"),
                mode: Persistent,
            },
        )
        .notifications;
    got.extend(set(&mut store, s, "/p", b"secret", -1).notifications);
    let events: Vec<WatchEvent> = got.iter().map(|n| n.event.clone()).collect();
    assert_eq!(
        events,
        vec![
            WatchEvent {
                kind: NodeChildrenChanged,
                path: p("/p")
            },
            WatchEvent {
                kind: NodeDataChanged,
                path: p("/p")
            },
        ]
    );
    assert!(got.iter().all(|n| n.session == s));
    assert!(!format!("{events:?}").contains("child") && !format!("{events:?}").contains("secret"));
}

#[test]
fn not_getting_zxid_bookkeeping_wrong_for_failed_writes_multi_sessions_and_cleanup() {
    let mut store = Store::default();
    let s = store.open_session(); // 1
    let t = store.open_session(); // 2
    assert_eq!(store.apply(s, &create_op("/a", Persistent)).zxid, 3);
    assert_eq!(store.apply(s, &create_op("/a", Persistent)).zxid, 4); // failed
    let (ok, _) = multi(
        &mut store,
        s,
        vec![mcreate("/b", Persistent), mcreate("/c", Persistent)],
    );
    assert_eq!(ok.zxid, 5);
    let (failed, _) = multi(
        &mut store,
        s,
        vec![mcreate("/d", Persistent), mcreate("/a", Persistent)],
    );
    assert_eq!(failed.zxid, 6);
    assert_eq!(get_data(&mut store, s, "/a", true).zxid, 6); // read: none
    create(&mut store, t, "/e1", Ephemeral).unwrap(); // 7
    create(&mut store, t, "/e2", Ephemeral).unwrap(); // 8
    store.expire(t); // 9, both ephemerals
    assert_eq!(store.zxid(), 9);
    assert_eq!(stat(&store, "/").pzxid, 9);
    assert_eq!(store.apply(s, &Op::Close).zxid, 10);
}

#[test]
fn not_checking_notempty_before_badversion_nor_nochildrenforephemerals_before_nodeexists() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/p");
    mk(&mut store, s, "/p/c");
    create(&mut store, s, "/e", Ephemeral).unwrap();
    assert_eq!(
        err(&delete(&mut store, s, "/p", 3)),
        Some(ErrorCode::BadVersion)
    );
    // `/e/x-0000000000` does not exist, so a sequential create reaches the
    // ephemeral check; a plain create of `/e` itself stops at NODEEXISTS.
    assert_eq!(
        create(&mut store, s, "/e", Ephemeral),
        Err(ErrorCode::NodeExists)
    );
    assert_eq!(
        create(&mut store, s, "/e/x-", EphemeralSequential),
        Err(ErrorCode::NoChildrenForEphemerals)
    );
}

#[test]
fn not_treating_connectionloss_as_not_applied() {
    let mut net = Net::new(StoreConfig::default(), 2);
    net.submit(0, create_op("/lock", Ephemeral));
    let out = net.disconnect(0, 1);
    assert_eq!(replies(&out), vec![Err(ErrorCode::ConnectionLoss)]);
    assert_eq!(
        net.store.stat(&p("/lock")).unwrap().ephemeral_owner,
        net.session(0)
    );
}

#[test]
fn not_delivering_expired_at_the_moment_the_server_expires_the_session() {
    let mut net = Net::new(StoreConfig::default(), 1);
    net.disconnect(0, 0);
    net.expire(0);
    assert!(!net.store.is_alive(net.session(0)));
    assert_eq!(
        net.client(0).state(),
        zoocheck::client::ConnState::Disconnected
    );
    assert!(net.links[0].down.is_empty());
    assert_eq!(
        net.reconnect(0),
        vec![Delivery::Session(zoocheck::client::SessionEvent::Expired)]
    );
}

#[test]
fn not_getting_set_watches_catch_up_wrong_deleted_and_recreated_is_node_data_changed() {
    let (mut store, a) = fresh();
    let b = store.open_session();
    mk(&mut store, b, "/n");
    let z = store.zxid();
    store.disconnect(a);
    delete(&mut store, b, "/n", -1);
    mk(&mut store, b, "/n");
    let watches = SetWatches {
        relative_zxid: z,
        data: vec![p("/n")],
        exist: vec![],
        child: vec![],
        persistent: vec![],
        recursive: vec![],
    };
    assert_eq!(
        store.reconnect(a, &watches),
        Ok(vec![WatchEvent {
            kind: NodeDataChanged,
            path: p("/n")
        }])
    );
}

#[test]
fn not_protecting_ephemerals_by_owner() {
    let (mut store, a) = fresh();
    let b = store.open_session();
    create(&mut store, a, "/e", Ephemeral).unwrap();
    assert_eq!(err(&set(&mut store, b, "/e", b"x", 0)), None);
    assert_eq!(delete(&mut store, b, "/e", 1).result, Ok(Response::Deleted));
}

#[test]
fn not_returning_children_sorted_or_as_full_paths() {
    for order in [ChildOrder::Hashed, ChildOrder::Reversed] {
        let mut store = Store::new(StoreConfig {
            sequence_bits: 32,
            child_order: order,
            ..StoreConfig::default()
        });
        let s = store.open_session();
        mk(&mut store, s, "/l");
        for _ in 0..10 {
            create(&mut store, s, "/l/lock-", EphemeralSequential).unwrap();
        }
        let got = names(&store, "/l");
        let mut sorted = got.clone();
        sorted.sort();
        assert_ne!(got, sorted, "{order:?}");
        assert!(
            got.iter()
                .all(|n| n.starts_with("lock-") && !n.contains('/')),
            "{order:?}"
        );
    }
}

// ---------------------------------------------------------------------------
// The store as a value: Clone + Eq + Hash.
// ---------------------------------------------------------------------------

fn hash_of<T: Hash>(value: &T) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

fn build() -> Store {
    let mut store = Store::default();
    let s = store.open_session();
    let t = store.open_session();
    mk(&mut store, s, "/l");
    create(&mut store, t, "/l/lock-", EphemeralSequential).unwrap();
    create(&mut store, s, "/l/lock-", EphemeralSequential).unwrap();
    get_children(&mut store, s, "/l", true);
    exists(&mut store, t, "/missing", true);
    store
}

#[test]
fn stores_built_by_the_same_steps_are_equal_and_hash_equal() {
    let a = build();
    let b = build();
    assert_eq!(a, b);
    assert_eq!(hash_of(&a), hash_of(&b));
    let c = a.clone();
    assert_eq!(c, a);
    assert_eq!(hash_of(&c), hash_of(&a));
}

#[test]
fn a_clone_is_independent_and_different_steps_give_unequal_stores() {
    let a = build();
    let mut b = a.clone();
    // Only a watch differs.
    let s = 1;
    get_data(&mut b, s, "/l", true);
    assert_ne!(a, b);
    assert!(!a.has_watch(s, &p("/l"), false));
    // Taking the same step on another clone gives an equal, hash-equal store.
    let mut c = a.clone();
    get_data(&mut c, s, "/l", true);
    assert_eq!(b, c);
    assert_eq!(hash_of(&b), hash_of(&c));
}

#[test]
fn a_counter_started_near_its_wrap_names_the_next_children_after_it() {
    let (mut store, s) = fresh();
    mk(&mut store, s, "/d");
    assert!(store.start_sequence(&p("/d"), i32::MAX));
    assert_eq!(
        create(&mut store, s, "/d/x-", PersistentSequential),
        Ok("/d/x-2147483647".to_string())
    );
    // `%010d` of the wrapped counter: eleven characters.
    assert_eq!(
        create(&mut store, s, "/d/x-", PersistentSequential),
        Ok("/d/x--2147483648".to_string())
    );
    // Only of a node, and only within the counter's range, which holds the
    // negative values of a counter that has already wrapped.
    assert!(!store.start_sequence(&p("/nowhere"), 1));
    assert!(store.start_sequence(&p("/d"), -1));
    assert_eq!(
        create(&mut store, s, "/d/x-", PersistentSequential),
        Ok("/d/x--000000001".to_string())
    );
    let mut narrow = Store::new(StoreConfig {
        sequence_bits: 4,
        ..StoreConfig::default()
    });
    let s = narrow.open_session();
    mk(&mut narrow, s, "/d");
    assert!(narrow.start_sequence(&p("/d"), 7));
    assert!(!narrow.start_sequence(&p("/d"), 8));
    assert!(narrow.start_sequence(&p("/d"), -8));
    assert!(!narrow.start_sequence(&p("/d"), -9));
}

/// What `zoocheck replay --zk` does on a real server is what the store writes
/// in its journal while a replay records: every transition, in order, with
/// what it answered, and nothing from before the record began.
#[test]
fn the_journal_writes_every_transition_in_order_only_while_recording() {
    use zoocheck::store::journal::{self, Entry};
    let mut store = Store::new(StoreConfig::default());
    let unrecorded = store.open_session();
    let (session, entries) = journal::record(|| {
        let session = store.open_session();
        store.apply(
            session,
            &Op::Create {
                path: "/e".into(),
                data: None,
                mode: CreateMode::Ephemeral,
            },
        );
        store.apply(
            unrecorded,
            &Op::Exists {
                path: "/e".into(),
                watch: true,
            },
        );
        store.disconnect(unrecorded);
        let watches = SetWatches {
            relative_zxid: 0,
            data: vec!["/e".into()],
            ..SetWatches::default()
        };
        store.reconnect(unrecorded, &watches).expect("alive");
        store.expire(session);
        store.expire(session);
        session
    });
    let kinds: Vec<String> = entries
        .iter()
        .map(|entry| match entry {
            Entry::Opened { session } => format!("opened {session}"),
            Entry::Applied { session, op, .. } => format!("{session} applied {op:?}"),
            Entry::Disconnected { session } => format!("{session} disconnected"),
            Entry::Reconnected {
                session, outcome, ..
            } => format!("{session} reconnected {outcome:?}"),
            Entry::Expired {
                session,
                notifications,
                ..
            } => format!("{session} expired, {} fired", notifications.len()),
            Entry::SequenceStarted { path, next } => format!("{path} starts at {next}"),
            Entry::Swept { path, .. } => format!("{path} swept"),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            format!("opened {session}"),
            format!(
                "{session} applied Create {{ path: \"/e\", data: None, mode: Ephemeral }}"
            ),
            format!("{unrecorded} applied Exists {{ path: \"/e\", watch: true }}"),
            format!("{unrecorded} disconnected"),
            // The node was created after zxid 0: the data watch is answered at once.
            format!(
                "{unrecorded} reconnected Ok([WatchEvent {{ kind: NodeDataChanged, path: \"/e\" }}])"
            ),
            // The second expiry of a dead session does nothing, and says
            // nothing; the session opened before the record is not written.
            format!("{session} expired, 0 fired"),
        ]
    );
}

// ---------------------------------------------------------------------------
// Containers (`CreateMode::Container`): the server deletes an empty one that
// has had a child. Checked against a real server by `tests/conformance.rs`
// (`conformance-containers`, and container creates in every generated
// sequence).
// ---------------------------------------------------------------------------

#[test]
fn a_container_goes_only_once_it_has_had_a_child_and_has_none() {
    let (mut store, s) = fresh();
    create(&mut store, s, "/c", CreateMode::Container).unwrap();
    create(&mut store, s, "/n", CreateMode::Container).unwrap();
    // A Stat like a persistent node's: owner 0.
    assert_eq!(stat(&store, "/c").ephemeral_owner, 0);
    let sweepable =
        |store: &Store| -> Vec<String> { store.sweepable().map(|path| path.to_string()).collect() };
    assert!(sweepable(&store).is_empty(), "never had a child");
    create(&mut store, s, "/c/x", Ephemeral).unwrap();
    assert!(sweepable(&store).is_empty(), "has a child");
    assert_eq!(store.sweep(&p("/c")), None);
    let watcher = store.open_session();
    exists(&mut store, watcher, "/c", true);
    get_children(&mut store, watcher, "/", true);
    delete(&mut store, s, "/c/x", ANY_VERSION);
    assert_eq!(sweepable(&store), ["/c"]);
    let before = store.zxid();
    let fired = store.sweep(&p("/c")).expect("swept");
    assert_eq!(store.zxid(), before + 1, "a transaction of its own");
    assert!(!store.exists(&p("/c")) && store.exists(&p("/n")));
    let events: Vec<String> = fired
        .iter()
        .map(|n| format!("{:?} {}", n.event.kind, n.event.path))
        .collect();
    assert_eq!(events, ["NodeDeleted /c", "NodeChildrenChanged /"]);
    assert_eq!(store.sweep(&p("/c")), None, "gone");
}

/// A container made again at a swept one's path starts its `cversion` and
/// sequence numbers again, as the server does, and is no candidate until
/// it has had a child; its children still come after the old ones in the
/// create order (the order of their czxids), which a holder's grant reads.
#[test]
fn a_container_made_again_numbers_anew_but_orders_after_the_old_children() {
    let (mut store, s) = fresh();
    create(&mut store, s, "/c", CreateMode::Container).unwrap();
    let first = create(&mut store, s, "/c/n-", PersistentSequential).unwrap();
    let old = store.creation_order(&p(&first)).unwrap();
    delete(&mut store, s, &first, ANY_VERSION);
    store.sweep(&p("/c")).expect("swept");
    create(&mut store, s, "/c", CreateMode::Container).unwrap();
    assert_eq!(stat(&store, "/c").cversion, 0);
    assert_eq!(store.sweepable().count(), 0);
    let second = create(&mut store, s, "/c/n-", PersistentSequential).unwrap();
    assert_eq!(second, first, "numbered from 0 again");
    assert!(store.creation_order(&p(&second)).unwrap() > old);
}

// ---------------------------------------------------------------------------
// TTL nodes (`CreateMode::PersistentWithTtl`): the server deletes one with no
// children once its time to live has passed, which the model does not count.
// Checked against a real server by `tests/conformance.rs` (`conformance-ttl`,
// and TTL creates in every generated sequence).
// ---------------------------------------------------------------------------

#[test]
fn a_ttl_node_may_go_whenever_it_has_no_children_even_one_never_used() {
    let mut store = Store::new(StoreConfig {
        ttl_expiries: 2,
        ..StoreConfig::default()
    });
    let s = store.open_session();
    create(&mut store, s, "/t", CreateMode::PersistentWithTtl).unwrap();
    let named = create(
        &mut store,
        s,
        "/t/n-",
        CreateMode::PersistentSequentialWithTtl,
    )
    .unwrap();
    assert_eq!(named, "/t/n-0000000000", "named as a sequential node");
    // A Stat like a persistent node's: owner 0 (the TTL it keeps inside
    // shows in no Stat).
    assert_eq!(stat(&store, "/t").ephemeral_owner, 0);
    assert!(store.has_ttl(&p("/t")) && !store.has_ttl(&p("/")));
    let sweepable =
        |store: &Store| -> Vec<String> { store.sweepable().map(|path| path.to_string()).collect() };
    // The child never had a child, and may go (a container could not);
    // its parent has a child, and stays.
    assert_eq!(sweepable(&store), [named.as_str()]);
    assert_eq!(store.sweep(&p("/t")), None, "has a child");
    let watcher = store.open_session();
    get_children(&mut store, watcher, "/t", true);
    let fired = store.sweep(&p(&named)).expect("swept");
    let events: Vec<String> = fired
        .iter()
        .map(|n| format!("{:?} {}", n.event.kind, n.event.path))
        .collect();
    assert_eq!(events, ["NodeChildrenChanged /t"]);
    assert_eq!(sweepable(&store), ["/t"]);
    // A write does not keep it: the model cannot tell how long ago it was.
    set(&mut store, s, "/t", b"x", ANY_VERSION);
    assert_eq!(sweepable(&store), ["/t"]);
    // The second and last expiry the budget allows.
    store.sweep(&p("/t")).expect("swept");
    create(&mut store, s, "/t", CreateMode::PersistentWithTtl).unwrap();
    assert!(sweepable(&store).is_empty(), "no expiry left");
    // A container is no TTL node, and goes whatever the TTL budget.
    create(&mut store, s, "/c", CreateMode::Container).unwrap();
    create(&mut store, s, "/c/x", Persistent).unwrap();
    delete(&mut store, s, "/c/x", ANY_VERSION);
    assert_eq!(sweepable(&store), ["/c"]);
}

#[test]
fn a_ttl_node_takes_children_of_any_kind_and_is_no_ephemeral() {
    let (mut store, s) = fresh();
    create(&mut store, s, "/t", CreateMode::PersistentWithTtl).unwrap();
    for (index, mode) in CreateMode::ALL.into_iter().enumerate() {
        let path = format!("/t/c{index}");
        assert!(create(&mut store, s, &path, mode).is_ok(), "{mode:?}");
    }
    store.expire(s);
    assert!(store.exists(&p("/t")), "no session owns it");
}

// ---------------------------------------------------------------------------
// The data version's width (`StoreConfig::version_bits`): a Java `int` on
// the server (`PrepRequestProcessor.checkAndIncVersion`), narrower in a
// model that wants to reach its wrap.
// ---------------------------------------------------------------------------

/// At 2 bits the version goes 0, 1, -2, -1, 0: at -1 a version-checked
/// write cannot tell "the version I read" from "any version", so a write
/// made between a read and the write it checks goes unseen.
#[test]
fn a_data_version_wraps_at_its_width_through_minus_one_which_matches_any() {
    let mut store = Store::new(StoreConfig {
        version_bits: 2,
        ..StoreConfig::default()
    });
    let s = store.open_session();
    let t = store.open_session();
    mk(&mut store, s, "/v");
    let mut seen = vec![stat(&store, "/v").version];
    for _ in 0..4 {
        let before = *seen.last().unwrap();
        assert!(set(&mut store, s, "/v", b"w", before).result.is_ok());
        seen.push(stat(&store, "/v").version);
    }
    assert_eq!(seen, [0, 1, -2, -1, 0]);
    // A compare-and-set: read at version 1, another session writes, the
    // write checked against 1 is refused.
    set(&mut store, s, "/v", b"a", ANY_VERSION);
    assert_eq!(stat(&store, "/v").version, 1);
    set(&mut store, t, "/v", b"b", 1);
    assert_eq!(
        set(&mut store, s, "/v", b"c", 1).result,
        Err(ErrorCode::BadVersion)
    );
    // Read at -1, another session writes (to 0), the write checked against
    // -1 goes through over it.
    set(&mut store, t, "/v", b"d", ANY_VERSION);
    assert_eq!(stat(&store, "/v").version, -1);
    set(&mut store, t, "/v", b"e", -1);
    assert_eq!(stat(&store, "/v").version, 0);
    assert!(
        set(&mut store, s, "/v", b"f", -1).result.is_ok(),
        "-1 matches any version"
    );
    // delete and check compare the same way.
    let d = store.apply(
        s,
        &Op::Delete {
            path: p("/v"),
            version: 0,
        },
    );
    assert_eq!(d.result, Err(ErrorCode::BadVersion), "the version is 1 now");
    assert_eq!(wrapping_next(i32::MAX, 32), i32::MIN, "the server's width");
    assert_eq!(wrapping_next(-2, 32), -1);
}

// ---------------------------------------------------------------------------
// Persistent and persistent recursive watches (`addWatch`, 3.6+): the
// server's `WatchManager` keeps one mode per (connection, path, table).
// Checked against a real server by `tests/conformance.rs` (`addWatch` in
// every generated sequence).
// ---------------------------------------------------------------------------

fn add_watch(store: &mut Store, s: SessionId, path: &str, mode: AddWatchMode) {
    let applied = store.apply(
        s,
        &Op::AddWatch {
            path: p(path),
            mode,
        },
    );
    assert_eq!(applied.result, Ok(Response::WatchAdded));
    assert!(applied.notifications.is_empty());
}

/// What an applied request fired for `session`: `Kind path` each.
fn heard(applied: &Applied, session: SessionId) -> Vec<String> {
    (applied.notifications.iter())
        .filter(|n| n.session == session)
        .map(|n| format!("{:?} {}", n.event.kind, n.event.path))
        .collect()
}

#[test]
fn a_persistent_watch_fires_for_every_event_of_its_node_and_stays() {
    let (mut store, s) = fresh();
    let w = store.open_session();
    // Set before the node exists, and not a transaction.
    let zxid = store.zxid();
    add_watch(&mut store, w, "/a", AddWatchMode::Persistent);
    assert_eq!(store.zxid(), zxid);
    let mk_op = |path: &str| create_op(path, Persistent);
    assert_eq!(heard(&store.apply(s, &mk_op("/a")), w), ["NodeCreated /a"]);
    for _ in 0..2 {
        assert_eq!(
            heard(&set(&mut store, s, "/a", b"x", ANY_VERSION), w),
            ["NodeDataChanged /a"]
        );
    }
    assert_eq!(
        heard(&store.apply(s, &mk_op("/a/b")), w),
        ["NodeChildrenChanged /a"]
    );
    assert!(
        heard(&set(&mut store, s, "/a/b", b"x", ANY_VERSION), w).is_empty(),
        "not below"
    );
    assert_eq!(
        heard(&delete(&mut store, s, "/a/b", ANY_VERSION), w),
        ["NodeChildrenChanged /a"]
    );
    // In both tables, but one NodeDeleted.
    assert_eq!(
        heard(&delete(&mut store, s, "/a", ANY_VERSION), w),
        ["NodeDeleted /a"]
    );
    assert_eq!(
        heard(&store.apply(s, &mk_op("/a")), w),
        ["NodeCreated /a"],
        "it stays"
    );
    assert_eq!(
        store.persistent_watches_of(w),
        [(&p("/a"), AddWatchMode::Persistent, false)]
    );
}

#[test]
fn a_recursive_watch_fires_for_every_node_below_it_but_never_children_changed() {
    let (mut store, s) = fresh();
    let w = store.open_session();
    add_watch(&mut store, w, "/r", AddWatchMode::PersistentRecursive);
    let mk_op = |path: &str| create_op(path, Persistent);
    assert_eq!(heard(&store.apply(s, &mk_op("/r")), w), ["NodeCreated /r"]);
    assert_eq!(
        heard(&store.apply(s, &mk_op("/r/x")), w),
        ["NodeCreated /r/x"]
    );
    assert_eq!(
        heard(&store.apply(s, &mk_op("/r/x/y")), w),
        ["NodeCreated /r/x/y"]
    );
    assert_eq!(
        heard(&set(&mut store, s, "/r/x", b"x", ANY_VERSION), w),
        ["NodeDataChanged /r/x"]
    );
    assert_eq!(
        heard(&delete(&mut store, s, "/r/x/y", ANY_VERSION), w),
        ["NodeDeleted /r/x/y"]
    );
    assert!(
        heard(&store.apply(s, &mk_op("/rx")), w).is_empty(),
        "a sibling, not below"
    );
}

/// ZOOKEEPER-4466 (fixed in 3.9): the server keeps one mode per path and
/// session in each table, the last one set, so a `getData` watch on a path
/// with a persistent watch makes it one-shot in the data table (the child
/// table keeps it persistent), and it goes with the next change.
#[test]
fn a_one_shot_watch_on_the_same_path_takes_the_persistent_watchs_place() {
    let (mut store, s) = fresh();
    let w = store.open_session();
    mk(&mut store, s, "/p");
    add_watch(&mut store, w, "/p", AddWatchMode::Persistent);
    get_data(&mut store, w, "/p", true);
    assert_eq!(
        heard(&set(&mut store, s, "/p", b"1", ANY_VERSION), w),
        ["NodeDataChanged /p"]
    );
    assert!(
        heard(&set(&mut store, s, "/p", b"2", ANY_VERSION), w).is_empty(),
        "gone"
    );
    assert_eq!(
        heard(&store.apply(s, &create_op("/p/c", Persistent)), w),
        ["NodeChildrenChanged /p"],
        "still persistent in the child table"
    );
    assert_eq!(
        store.persistent_watches_of(w),
        [(&p("/p"), AddWatchMode::Persistent, true)]
    );
    // addWatch again puts it back in both.
    add_watch(&mut store, w, "/p", AddWatchMode::Persistent);
    assert_eq!(
        heard(&set(&mut store, s, "/p", b"3", ANY_VERSION), w),
        ["NodeDataChanged /p"]
    );
    assert_eq!(
        heard(&set(&mut store, s, "/p", b"4", ANY_VERSION), w),
        ["NodeDataChanged /p"]
    );
}

/// `SetWatches2`: a reconnect sets persistent watches again with no event
/// for a change made while the connection was down (ZOOKEEPER-4698), where
/// a one-shot watch gets its catch-up event.
#[test]
fn a_reconnect_sets_persistent_watches_again_with_no_catch_up() {
    let (mut store, s) = fresh();
    let w = store.open_session();
    mk(&mut store, s, "/p");
    mk(&mut store, s, "/q");
    add_watch(&mut store, w, "/p", AddWatchMode::Persistent);
    get_data(&mut store, w, "/q", true);
    let relative_zxid = store.zxid();
    store.disconnect(w);
    set(&mut store, s, "/p", b"missed", ANY_VERSION);
    set(&mut store, s, "/q", b"caught up", ANY_VERSION);
    let watches = SetWatches {
        relative_zxid,
        data: vec![p("/q")],
        persistent: vec![p("/p")],
        ..SetWatches::default()
    };
    let events: Vec<String> = (store.reconnect(w, &watches).unwrap().iter())
        .map(|event| event.to_string())
        .collect();
    assert_eq!(events, ["NodeDataChanged /q"]);
    assert_eq!(
        heard(&set(&mut store, s, "/p", b"heard", ANY_VERSION), w),
        ["NodeDataChanged /p"]
    );
}

// ---------------------------------------------------------------------------
// Removing watches (`removeWatches`, `checkWatches`, 3.5+): the server's
// `DataTree.removeWatch` and `containsWatcher`. Checked against the Java
// client and a real server by `tests/conformance_faults.rs`.
// ---------------------------------------------------------------------------

fn remove_watches(store: &mut Store, s: SessionId, path: &str, kind: WatcherType) -> OpResult {
    let applied = store.apply(
        s,
        &Op::RemoveWatches {
            path: p(path),
            kind,
        },
    );
    assert!(applied.notifications.is_empty(), "the server fires nothing");
    applied.result
}

fn check_watches(store: &mut Store, s: SessionId, path: &str, kind: WatcherType) -> OpResult {
    store
        .apply(
            s,
            &Op::CheckWatches {
                path: p(path),
                kind,
            },
        )
        .result
}

#[test]
fn remove_watches_removes_the_sessions_watches_in_the_tables_its_type_means() {
    let (mut store, s) = fresh();
    let w = store.open_session();
    mk(&mut store, s, "/a");
    let zxid = store.zxid();
    get_data(&mut store, w, "/a", true);
    get_children(&mut store, w, "/a", true);
    // Another session's watch on the path is not this one's to remove.
    get_data(&mut store, s, "/a", true);
    assert_eq!(
        remove_watches(&mut store, w, "/a", WatcherType::Children),
        Ok(Response::WatchesRemoved)
    );
    assert_eq!(store.zxid(), zxid, "not a transaction");
    assert_eq!(
        remove_watches(&mut store, w, "/a", WatcherType::Children),
        Err(ErrorCode::NoWatcher),
        "gone already"
    );
    assert_eq!(
        heard(&mk_data(&mut store, s, "/a/b", b""), w),
        Vec::<String>::new(),
        "the child watch went"
    );
    assert_eq!(
        heard(&set(&mut store, s, "/a", b"x", ANY_VERSION), w),
        ["NodeDataChanged /a"],
        "the data watch stayed"
    );
    get_data(&mut store, w, "/a", true);
    get_data(&mut store, s, "/a", true);
    assert_eq!(
        remove_watches(&mut store, w, "/a", WatcherType::Any),
        Ok(Response::WatchesRemoved)
    );
    let fired = set(&mut store, s, "/a", b"y", ANY_VERSION);
    assert!(heard(&fired, w).is_empty());
    assert_eq!(
        heard(&fired, s),
        ["NodeDataChanged /a"],
        "the other's stayed"
    );
    // An exists watch on a node that does not exist is in the data table.
    exists(&mut store, w, "/none", true);
    assert_eq!(
        remove_watches(&mut store, w, "/none", WatcherType::Children),
        Err(ErrorCode::NoWatcher)
    );
    assert_eq!(
        remove_watches(&mut store, w, "/none", WatcherType::Data),
        Ok(Response::WatchesRemoved)
    );
}

#[test]
fn remove_watches_of_one_table_leaves_a_persistent_watch_in_the_other() {
    let (mut store, s) = fresh();
    let w = store.open_session();
    add_watch(&mut store, w, "/a", AddWatchMode::Persistent);
    // Whatever its mode, a table's watch goes with that table's removal.
    assert_eq!(
        remove_watches(&mut store, w, "/a", WatcherType::Children),
        Ok(Response::WatchesRemoved)
    );
    mk(&mut store, s, "/a");
    assert_eq!(
        heard(&mk_data(&mut store, s, "/a/b", b""), w),
        Vec::<String>::new(),
        "no NodeChildrenChanged: the child table's watch went"
    );
    assert_eq!(
        heard(&set(&mut store, s, "/a", b"x", ANY_VERSION), w),
        ["NodeDataChanged /a"],
        "the data table's stays, and stays persistent"
    );
    assert_eq!(
        heard(&set(&mut store, s, "/a", b"y", ANY_VERSION), w),
        ["NodeDataChanged /a"]
    );
    assert_eq!(
        remove_watches(&mut store, w, "/a", WatcherType::Any),
        Ok(Response::WatchesRemoved)
    );
    assert!(store.persistent_watches_of(w).is_empty());
}

#[test]
fn check_watches_removes_nothing_and_answers_for_any_sessions_watch_on_the_path() {
    let (mut store, s) = fresh();
    let w = store.open_session();
    mk(&mut store, s, "/a");
    assert_eq!(
        check_watches(&mut store, w, "/a", WatcherType::Any),
        Err(ErrorCode::NoWatcher)
    );
    // Only another session watches /a: 3.8's WatchManager.containsWatcher
    // answers for the path's watchers, not the asking connection's.
    get_children(&mut store, s, "/a", true);
    assert_eq!(
        check_watches(&mut store, w, "/a", WatcherType::Children),
        Ok(Response::WatchesRemoved)
    );
    assert_eq!(
        check_watches(&mut store, w, "/a", WatcherType::Data),
        Err(ErrorCode::NoWatcher)
    );
    add_watch(&mut store, w, "/a", AddWatchMode::Persistent);
    assert_eq!(
        check_watches(&mut store, w, "/a", WatcherType::Data),
        Ok(Response::WatchesRemoved)
    );
    assert_eq!(
        heard(&set(&mut store, s, "/a", b"x", ANY_VERSION), w),
        ["NodeDataChanged /a"],
        "the persistent watch stays at the server (ZOOKEEPER-4472)"
    );
}
