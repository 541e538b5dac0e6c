//! Sequential creates across the counter's wrap, as a property: whatever the
//! counter's width, wherever it starts (near its top, already wrapped) and
//! whatever creates and deletes come, the store keeps for every sequential
//! node the number it gave it and its place in the create order, names it
//! after that number as the server does (`%010d`), and every recipe's reading
//! of a name (its token) and its sort of a listing agree with the numbers the
//! store assigned. Nothing here reads a number back out of a name to decide
//! what to expect: the expectations come from a counter of the test's own.

use std::sync::Arc;

use proptest::prelude::*;

use zoocheck::models::contender::Decision;
use zoocheck::models::{election, lock, queue, semaphore, shared_lock};
use zoocheck::recipe::Role;
use zoocheck::store::*;

/// The directory every node goes in.
const DIR: &str = "/d";

/// The prefixes the recipes create their nodes with, and the role each
/// recipe reads from the name.
const PREFIXES: [&str; 8] = [
    "c0-lock-",
    "c1-lock-",
    "c0-read-",
    "c1-write-",
    "c2-n_",
    "c0-lease-",
    "c1.0-queue-",
    "c0.1-queue-01-",
];

#[derive(Clone, Debug)]
enum Step {
    /// A sequential create with prefix `PREFIXES[.0]`.
    Sequential(usize),
    /// A create with a plain name: it moves the counter too.
    Plain,
    /// Delete the live sequential node at this place (modulo how many).
    Delete(usize),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        5 => (0..PREFIXES.len()).prop_map(Step::Sequential),
        1 => Just(Step::Plain),
        3 => any::<usize>().prop_map(Step::Delete),
    ]
}

/// A counter width and a start within its range, most of them near the
/// wrap from either side.
fn counter() -> impl Strategy<Value = (u32, i64)> {
    (2u32..=32).prop_flat_map(|bits| {
        let max = (1i64 << (bits - 1)) - 1;
        let min = -max - 1;
        let near_top = (max - 6).max(min)..=max;
        let near_bottom = min..=(min + 6).min(max);
        let start = prop_oneof![near_top, near_bottom, min..=max, Just(0)];
        (Just(bits), start)
    })
}

/// What the test expects of a sequential node it had created.
#[derive(Clone, Debug)]
struct Expected {
    name: Arc<str>,
    prefix: &'static str,
    number: i64,
    order: u64,
}

/// The value after `counter` at `bits` bits, as a Java `int` of that width.
fn next(counter: i64, bits: u32) -> i64 {
    let max = (1i64 << (bits - 1)) - 1;
    if counter == max {
        -max - 1
    } else {
        counter + 1
    }
}

/// Java's `String.format("%010d", n)`: ten digits, a sign and nine or more.
fn java_010d(n: i64) -> String {
    if n < 0 {
        format!("-{:09}", -n)
    } else {
        format!("{n:010}")
    }
}

/// A server whose counter is `bits` wide, with one session and the
/// directory [`DIR`].
fn with_dir(bits: u32) -> (Store, SessionId, Path) {
    let mut store = Store::new(StoreConfig {
        sequence_bits: bits,
        ..StoreConfig::default()
    });
    let session = store.open_session();
    let dir = Path::new(DIR);
    let applied = store.apply(
        session,
        &Op::Create {
            path: dir.clone(),
            data: None,
            mode: CreateMode::Persistent,
        },
    );
    assert!(applied.result.is_ok(), "{applied:?}");
    (store, session, dir)
}

fn run(bits: u32, start: i64, steps: &[Step]) -> Result<(), TestCaseError> {
    let (mut store, session, dir) = with_dir(bits);
    prop_assert!(store.start_sequence(&dir, start as i32));
    let period = 1i64 << bits;
    let mut counter = start;
    let mut order = start.rem_euclid(period) as u64;
    let mut live: Vec<Expected> = Vec::new();
    let mut last_czxid = 0;
    let mut plain = 0;
    for step in steps {
        match step {
            Step::Sequential(prefix) => {
                let prefix = PREFIXES[*prefix];
                let name: Arc<str> = format!("{prefix}{}", java_010d(counter)).into();
                let taken = live.iter().any(|node| node.name == name);
                let applied = store.apply(
                    session,
                    &Op::Create {
                        path: dir.child(prefix),
                        data: None,
                        mode: CreateMode::PersistentSequential,
                    },
                );
                if taken {
                    // The name the counter gives is a live node's: the
                    // server refuses, and the counter stays.
                    prop_assert_eq!(applied.result, Err(ErrorCode::NodeExists));
                    continue;
                }
                let Ok(Response::Created { path, stat }) = applied.result else {
                    return Err(TestCaseError::fail(format!("{applied:?}")));
                };
                prop_assert_eq!(path.name(), &*name);
                prop_assert!(stat.czxid > last_czxid);
                last_czxid = stat.czxid;
                let expected = Expected {
                    name,
                    prefix,
                    number: counter,
                    order,
                };
                prop_assert_eq!(
                    store.sequence(&path),
                    Some(Sequence {
                        number: counter as i32,
                        order
                    })
                );
                live.push(expected);
            }
            Step::Plain => {
                let applied = store.apply(
                    session,
                    &Op::Create {
                        path: dir.child(&format!("plain{plain}")),
                        data: None,
                        mode: CreateMode::Persistent,
                    },
                );
                prop_assert!(applied.result.is_ok());
                let path = dir.child(&format!("plain{plain}"));
                prop_assert_eq!(store.sequence(&path), None);
                prop_assert_eq!(store.creation_order(&path), None);
                plain += 1;
            }
            Step::Delete(at) => {
                if live.is_empty() {
                    continue;
                }
                let gone = live.remove(at % live.len());
                let applied = store.apply(
                    session,
                    &Op::Delete {
                        path: dir.child(&gone.name),
                        version: ANY_VERSION,
                    },
                );
                prop_assert!(applied.result.is_ok());
                prop_assert_eq!(store.sequence(&dir.child(&gone.name)), None);
                continue;
            }
        }
        counter = next(counter, bits);
        order += 1;
    }
    // Every live node still carries what the store gave it, and the create
    // order follows the czxids.
    for node in &live {
        let path = dir.child(&node.name);
        let sequence = store.sequence(&path).expect("a live sequential node");
        prop_assert_eq!(i64::from(sequence.number), node.number);
        prop_assert_eq!(sequence.order, node.order);
        prop_assert_eq!(store.creation_order(&path), Some(node.order));
    }
    let mut by_order = live.clone();
    by_order.sort_by_key(|node| node.order);
    let czxids: Vec<i64> = (by_order.iter())
        .map(|node| store.stat(&dir.child(&node.name)).unwrap().czxid)
        .collect();
    prop_assert!(
        czxids.windows(2).all(|pair| pair[0] < pair[1]),
        "{czxids:?}"
    );
    recipes_read_the_store_numbers(&store, &live)
}

/// Each recipe's token for each name is the number the store gave it, and
/// each recipe's choice from the listing is the one the store's numbers make.
fn recipes_read_the_store_numbers(store: &Store, live: &[Expected]) -> Result<(), TestCaseError> {
    let children = store.children(&Path::new(DIR));
    let number = |name: &str| {
        let node = live
            .iter()
            .find(|node| &*node.name == name)
            .expect("listed");
        node.number
    };
    for node in live {
        let name = &*node.name;
        let token = match node.prefix {
            "c0-lock-" | "c1-lock-" => lock::sequence(name),
            "c0-read-" | "c1-write-" => shared_lock::parse(name).map(|(_, token)| token),
            "c2-n_" => election::sequence(name),
            "c0-lease-" => semaphore::sequence(name),
            _ => queue::key(name).map(|(_, token)| token),
        };
        prop_assert_eq!(token, Some(node.number), "{}", name);
        if node.prefix.contains("queue") {
            let priority = if node.prefix.contains("-01-") { 1 } else { 0 };
            prop_assert_eq!(queue::key(name), Some((priority, node.number)));
        }
    }
    // The lock, the election and the shared lock: hold, or watch the node
    // with the largest number below ours among those that block us. Which
    // recipe a node is of the test knows from the prefix it created it with.
    let kind_of_prefix = |prefix: &str| match prefix {
        "c0-lock-" | "c1-lock-" => Some(Role::Lock),
        "c2-n_" => Some(Role::Leader),
        "c0-read-" => Some(Role::Read),
        "c1-write-" => Some(Role::Write),
        _ => None,
    };
    // A plain child is of no recipe.
    let kind = |name: &str| {
        let node = live.iter().find(|node| &*node.name == name)?;
        kind_of_prefix(node.prefix)
    };
    for node in live {
        let mine = &*node.name;
        let Some(role) = kind_of_prefix(node.prefix) else {
            continue;
        };
        let blocks = |theirs: &str| match (role, kind(theirs)) {
            (Role::Lock, Some(Role::Lock)) | (Role::Leader, Some(Role::Leader)) => true,
            (Role::Read, Some(Role::Write)) => true,
            (Role::Write, Some(Role::Read | Role::Write)) => true,
            _ => false,
        };
        let below = (children.iter())
            .filter(|name| blocks(name) && number(name) < node.number)
            .map(|name| number(name))
            .max();
        let decision = match role {
            Role::Lock => lock::decide(&children, mine),
            Role::Leader => election::decide(&children, mine),
            _ => shared_lock::decide(&children, mine),
        };
        match (below, decision) {
            (None, Decision::Holds) => {}
            (Some(expected), Decision::Watch(watched)) => {
                prop_assert_eq!(number(&watched), expected, "{} watches {}", mine, watched)
            }
            (below, decision) => {
                return Err(TestCaseError::fail(format!(
                    "{mine}: {decision:?}, but the store's numbers say {below:?} below it"
                )))
            }
        }
    }
    // The queue: lowest priority number, then lowest sequence number first.
    let items = queue::order(&children, true);
    let keys: Vec<(u8, i64)> = (items.iter())
        .map(|name| {
            let node = live.iter().find(|node| node.name == *name).expect("listed");
            (u8::from(node.prefix.contains("-01-")), node.number)
        })
        .collect();
    prop_assert!(keys.windows(2).all(|pair| pair[0] <= pair[1]), "{keys:?}");
    let queued = live
        .iter()
        .filter(|node| node.prefix.contains("queue"))
        .count();
    prop_assert_eq!(items.len(), queued);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn creates_across_the_wrap_keep_the_numbers_the_store_assigned(
        (bits, start) in counter(),
        steps in proptest::collection::vec(step(), 0..40),
    ) {
        run(bits, start, &steps)?;
    }
}

/// The case, spelled out: a 32-bit counter from 2147483647 names three
/// nodes 2147483647, -2147483648 and -2147483647, in that create order,
/// although the last ends with the first's ten characters.
#[test]
fn three_creates_past_the_32_bit_wrap() {
    let steps = [
        Step::Sequential(0),
        Step::Sequential(0),
        Step::Sequential(0),
    ];
    run(32, i64::from(i32::MAX), &steps).unwrap();
    let (mut store, session, dir) = with_dir(32);
    assert!(store.start_sequence(&dir, i32::MAX));
    let names: Vec<(String, Option<u64>)> = (0..3)
        .map(|_| {
            let applied = store.apply(
                session,
                &Op::Create {
                    path: dir.child("lock-"),
                    data: None,
                    mode: CreateMode::PersistentSequential,
                },
            );
            let Ok(Response::Created { path, .. }) = applied.result else {
                panic!("{applied:?}")
            };
            (path.name().to_string(), store.creation_order(&path))
        })
        .collect();
    assert_eq!(
        names,
        [
            ("lock-2147483647".to_string(), Some(2147483647)),
            ("lock--2147483648".to_string(), Some(2147483648)),
            ("lock--2147483647".to_string(), Some(2147483649)),
        ]
    );
}

/// A counter may start where it has already wrapped (negative), and at no
/// value outside its width.
#[test]
fn a_counter_starts_past_its_wrap_but_not_outside_its_width() {
    let (mut store, _, dir) = with_dir(3);
    assert!(!store.start_sequence(&dir, 4));
    assert!(!store.start_sequence(&dir, -5));
    assert!(store.start_sequence(&dir, -4));
    run(3, -4, &[Step::Sequential(0), Step::Sequential(1)]).unwrap();
}

/// A node of a starting tree that the scenario names itself has no number
/// the server gave, but it keeps its place in the create order once the
/// world says so (`Store::keep_order`, which `world::plant` calls): a recipe
/// that adopts it is placed before every node created after it.
#[test]
fn a_starting_node_named_by_the_scenario_keeps_its_place() {
    let (mut store, session, dir) = with_dir(32);
    let create = |path: Path, mode| Op::Create {
        path,
        data: None,
        mode,
    };
    let leftover = dir.child("c0-lock-0000000000");
    let applied = store.apply(session, &create(leftover.clone(), CreateMode::Persistent));
    assert!(applied.result.is_ok());
    assert_eq!(store.creation_order(&leftover), None);
    assert!(store.keep_order(&leftover));
    assert_eq!(store.creation_order(&leftover), Some(0));
    assert_eq!(store.sequence(&leftover), None);
    let applied = store.apply(
        session,
        &create(dir.child("c1-lock-"), CreateMode::PersistentSequential),
    );
    let Ok(Response::Created { path, .. }) = applied.result else {
        panic!("{applied:?}")
    };
    assert_eq!(store.creation_order(&path), Some(1));
    // Only the child created last can be placed so.
    assert!(!store.keep_order(&leftover));
    assert!(!store.keep_order(&dir.child("nowhere")));
}
