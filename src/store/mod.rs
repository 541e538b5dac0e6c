//! The simulated ZooKeeper server: one standalone server, as `docs/zookeeper-semantics.md`
//! describes it.
//!
//! A [`Store`] is a value. Requests go in through [`Store::apply`], which answers
//! the reply and the watch notifications the request fired, in the order the
//! server queues them. Session lifecycle is [`Store::open_session`],
//! [`Store::expire`], and the `closeSession` request ([`Op::Close`]); a connection
//! comes and goes with [`Store::disconnect`] and [`Store::reconnect`] (SetWatches).
//!
//! It is pure: no clock, no randomness, no IO, no hash-map order. Everything the
//! checker stores is in ordered collections behind an `Arc`, so a clone is a few
//! reference-count increments and two equal stores hash equally.
//!
//! Container and TTL nodes are ([`CreateMode::Container`],
//! [`CreateMode::PersistentWithTtl`], [`Store::sweep`]).
//! Not modelled: ACLs and setACL (every node is open, `aversion` stays 0),
//! quotas, persistent and recursive watches (3.6+),
//! the 1 MiB request limit, and an ensemble (followers, stale reads, leader
//! change). One server totally orders every request, so `sync` is a no-op.

pub mod journal;
pub mod path;
pub mod proto;
pub mod recount;
pub mod rename;
pub mod words;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rename::Renaming;

pub use path::{Path, PathError};
pub use proto::*;

/// Settings of the simulated server: the few places where a model wants to
/// differ from the real defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StoreConfig {
    /// Width in bits of each parent's create counter, whose value names
    /// sequential children. The server's is a Java `int` (32): after
    /// 2147483647 comes `-2147483648`. A model with a width of 3 reaches the
    /// same signed overflow after 3 creates (`0000000003` then `-000000004`).
    pub sequence_bits: u32,
    /// Width in bits of each node's data version, which every `setData`
    /// moves on by one and a version-checked `setData`, `delete` or
    /// `check` compares. The server's is a Java `int` (32:
    /// `PrepRequestProcessor.checkAndIncVersion` answers `currentVersion +
    /// 1`), so after 2147483647 comes `-2147483648`, and after `-2` comes
    /// `-1`, the version that matches any version: a client that read
    /// version -1 and writes with it overwrites whatever came between. A
    /// model with a width of 2 reaches that after 3 writes.
    pub version_bits: u32,
    /// The order `getChildren` answers in.
    pub child_order: ChildOrder,
    /// Servers in the ensemble: 1, a standalone server, or a leader and
    /// `servers - 1` followers ([`crate::ensemble`]).
    pub servers: u8,
    /// The most transactions a server (the leader too) may be behind when
    /// the leader commits a client's write.
    pub lag: u8,
    /// How many times in one run the server may find that a TTL node's
    /// time to live has passed ([`CreateMode::PersistentWithTtl`]). The
    /// model has no clock, so each is a moment the checker chooses, and
    /// like a fault it is budgeted: unbounded, a TTL node made again could
    /// go again before its maker's next request every time, which a real
    /// time to live (longer than a round trip) never lets happen for ever.
    pub ttl_expiries: u8,
}

impl Default for StoreConfig {
    fn default() -> StoreConfig {
        StoreConfig {
            sequence_bits: 32,
            version_bits: 32,
            child_order: ChildOrder::Hashed,
            servers: 1,
            lag: 1,
            ttl_expiries: 1,
        }
    }
}

/// The order of `getChildren` names. The server's is a hash set's order, fixed
/// for a given set of names but not sorted; a recipe must sort.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChildOrder {
    /// By a fixed, well-mixed hash of the name, as a hash set would:
    /// deterministic, independent of history, and unsorted for most sets of
    /// names (not for all: two names come out sorted half the time, which is
    /// why [`ChildOrder::Reversed`] exists).
    Hashed,
    /// Descending by name: never sorted once there are two children, so a
    /// recipe that forgets to sort is caught at once.
    Reversed,
}

impl ChildOrder {
    /// Puts `names` in this order.
    pub fn arrange(self, names: &mut [Arc<str>]) {
        match self {
            ChildOrder::Hashed => {
                names.sort_by_key(|name| (name_hash(name.as_bytes()), name.clone()))
            }
            ChildOrder::Reversed => names.sort_by(|a, b| b.cmp(a)),
        }
    }
}

/// A znode's stored state. Its Stat is derived by [`Store::stat`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Znode {
    data: Data,
    czxid: Zxid,
    mzxid: Zxid,
    pzxid: Zxid,
    version: i32,
    /// The counter the server stores as `cversion`: one per child create, never
    /// moved by deletes, reset when the node is recreated. Sequential children
    /// are named after it; clients see `2 * child_creates - numChildren`.
    child_creates: i32,
    /// The same count without the wrap at [`StoreConfig::sequence_bits`]:
    /// equal to `child_creates` until it wraps, so it tells states apart only
    /// past a wrap. No client sees it; each child keeps its value as its
    /// place in the create order ([`Store::creation_order`]).
    child_creates_unwrapped: u64,
    ephemeral_owner: SessionId,
    /// Its place in its parent's create order: kept for a sequential node,
    /// and for a node of a scenario's starting tree ([`Store::keep_order`]).
    /// A node a client creates with a plain name keeps none: nothing reads
    /// it, and it would tell apart states that nothing else does (a barrier's
    /// `ready`, created and deleted round after round).
    order: Option<u64>,
    /// The number the counter gave it, if it was created sequential.
    number: Option<i32>,
    /// Whether the server deletes it by itself, and when.
    reaped: Reaped,
}

/// Whether the server's `ContainerManager` deletes a node by itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Reaped {
    Never,
    /// A container ([`CreateMode::Container`]): once it has had a child and
    /// has none.
    Container,
    /// A TTL node ([`CreateMode::PersistentWithTtl`]): once it has no
    /// children and its time to live, which the model does not count, has
    /// passed since it was last written.
    Ttl,
}

impl Reaped {
    fn of(mode: CreateMode) -> Reaped {
        match mode {
            CreateMode::Container => Reaped::Container,
            mode if mode.is_ttl() => Reaped::Ttl,
            _ => Reaped::Never,
        }
    }
}

/// What the server gave a sequential node when it created it: the value of
/// its parent's create counter that it appended to the name, and its place
/// in the parent's create order. Kept with the node, so that nothing needs to
/// read either back out of a name: past the wrap of a 32-bit counter the
/// name's suffix has eleven characters (`-2147483648`), and past the wrap of
/// a narrower one two live nodes can carry the same number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sequence {
    /// The number in the name: the counter's value, signed and wrapping at
    /// [`StoreConfig::sequence_bits`].
    pub number: i32,
    /// How many children the parent had had created before this one, as if
    /// the counter never wrapped: orders the parent's children as their
    /// czxids do ([`Store::creation_order`], which every created node has).
    pub order: u64,
}

impl Znode {
    fn new(data: Data, zxid: Zxid, ephemeral_owner: SessionId) -> Znode {
        Znode {
            data,
            czxid: zxid,
            mzxid: zxid,
            pzxid: zxid,
            version: 0,
            child_creates: 0,
            child_creates_unwrapped: 0,
            ephemeral_owner,
            order: None,
            number: None,
            reaped: Reaped::Never,
        }
    }
}

/// What the server sends back for one request: the reply (with the zxid its
/// header carries) and the notifications the request fired, which are queued to
/// their connections before the reply ("watch before data").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    /// The zxid in the reply header: the request's own for a write, the last
    /// processed one for a read.
    pub zxid: Zxid,
    pub result: OpResult,
    pub notifications: Vec<Notification>,
}

/// The watches a client re-registers when it reconnects (`SetWatches`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct SetWatches {
    /// The zxid of the last reply the client received.
    pub relative_zxid: Zxid,
    /// getData watches and exists watches on nodes that existed.
    pub data: Vec<Path>,
    /// exists watches on nodes that did not exist.
    pub exist: Vec<Path>,
    pub child: Vec<Path>,
    /// `addWatch` persistent watches, and persistent recursive ones: a
    /// client that has any sends `SetWatches2`, and the server sets them
    /// again with no catch-up (an event missed while disconnected is lost:
    /// ZOOKEEPER-4698).
    pub persistent: Vec<Path>,
    pub recursive: Vec<Path>,
}

/// How a watch in a server's table fires (`WatcherMode`). The server keeps
/// one mode per (connection, path, table), so the last watch set there
/// decides it: a `getData` watch on a path with a persistent watch makes it
/// a one-shot watch in the data table, and it goes with the next event
/// (ZOOKEEPER-4466, fixed in 3.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Mode {
    /// getData, exists, getChildren: fires once, then goes.
    Standard,
    /// `addWatch` persistent: fires for the path itself, and stays.
    Persistent,
    /// `addWatch` persistent recursive: fires for the path and every path
    /// below it, never with `NodeChildrenChanged`, and stays.
    Recursive,
}

impl Mode {
    fn of(mode: AddWatchMode) -> Mode {
        match mode {
            AddWatchMode::Persistent => Mode::Persistent,
            AddWatchMode::PersistentRecursive => Mode::Recursive,
        }
    }
}

/// A server's watch table: each watch's path and session, and its mode.
type WatchTable = Arc<BTreeMap<(Path, SessionId), Mode>>;

/// The paths whose delete the server refuses with `BADARGUMENTS`.
const SPECIAL_PATHS: [&str; 4] = ["/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config"];

/// The simulated server.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Store {
    config: StoreConfig,
    /// The last zxid used.
    zxid: Zxid,
    last_session: SessionId,
    sessions: BTreeSet<SessionId>,
    nodes: Arc<BTreeMap<Path, Znode>>,
    /// Watches from getData and exists (the server keeps both in one
    /// table), and `addWatch`'s.
    data_watches: WatchTable,
    /// Watches from getChildren, and `addWatch`'s (both modes: 3.8's
    /// `DataTree.addWatch` adds to both tables).
    child_watches: WatchTable,
    /// Each container or TTL node the server deleted and nobody has made
    /// again, with how many children it had had created: a node made again
    /// at that path goes on from there in the create order (its `cversion`
    /// starts again, as the server's does), so that the order of its
    /// children is the order of their czxids across both
    /// ([`Store::creation_order`]). Empty unless nodes are swept.
    swept: Arc<BTreeMap<Path, u64>>,
    /// TTL nodes deleted so far, at most [`StoreConfig::ttl_expiries`].
    ttl_swept: u8,
}

impl Default for Store {
    fn default() -> Store {
        Store::new(StoreConfig::default())
    }
}

impl Store {
    /// A fresh server: zxid 0 and the tree `/`, `/zookeeper`,
    /// `/zookeeper/quota`, `/zookeeper/config`.
    pub fn new(config: StoreConfig) -> Store {
        assert!(
            (2..=32).contains(&config.sequence_bits),
            "sequence_bits must be 2 to 32"
        );
        assert!(
            (2..=32).contains(&config.version_bits),
            "version_bits must be 2 to 32"
        );
        let nodes = SPECIAL_PATHS
            .iter()
            .map(|&path| (Path::new(path), Znode::new(None, 0, 0)))
            .collect();
        Store {
            config,
            zxid: 0,
            last_session: 0,
            sessions: BTreeSet::new(),
            nodes: Arc::new(nodes),
            data_watches: Arc::default(),
            child_watches: Arc::default(),
            swept: Arc::default(),
            ttl_swept: 0,
        }
    }

    /// This server with its clients renamed ([`rename`]): node
    /// names and data, owners, sessions and watches; and, by a renaming
    /// that counts ([`recount`]), its zxids, sessions and create counters.
    pub fn renamed(&self, renaming: &Renaming) -> Store {
        let counts = renaming.counts();
        let nodes = (self.nodes.iter())
            .map(|(path, node)| {
                let mut node = Znode {
                    data: renaming.data(&node.data),
                    ephemeral_owner: renaming.session(node.ephemeral_owner),
                    ..node.clone()
                };
                if counts {
                    self.count_node(path, &mut node, renaming);
                }
                (renaming.path(path), node)
            })
            .collect();
        let watches = |table: &BTreeMap<(Path, SessionId), Mode>| {
            (table.iter())
                .map(|((path, session), &mode)| {
                    ((renaming.path(path), renaming.session(*session)), mode)
                })
                .collect()
        };
        Store {
            config: self.config,
            zxid: renaming.zxid(self.zxid),
            // A client's first session moves with it; the last one opened
            // is a counter's value.
            last_session: if counts {
                renaming.session(self.last_session)
            } else {
                self.last_session
            },
            sessions: (self.sessions.iter())
                .map(|&session| renaming.session(session))
                .collect(),
            nodes: Arc::new(nodes),
            data_watches: Arc::new(watches(&self.data_watches)),
            child_watches: Arc::new(watches(&self.child_watches)),
            swept: {
                if counts && !self.swept.is_empty() {
                    renaming.refuse(
                        "a container or TTL node was deleted: its create order goes on apart",
                    );
                }
                Arc::new(
                    (self.swept.iter())
                        .map(|(path, &creates)| (renaming.path(path), creates))
                        .collect(),
                )
            },
            ttl_swept: self.ttl_swept,
        }
    }

    /// `node`'s zxids and create counters renamed by a renaming that counts,
    /// which is told where they cannot be renamed by their order: a counter
    /// that wrapped or was started ahead shows another number than its
    /// place in the create order, and a node of the counted directory named
    /// like a sequential node without being one carries a number no
    /// counter gave.
    fn count_node(&self, path: &Path, node: &mut Znode, renaming: &Renaming) {
        node.czxid = renaming.zxid(node.czxid);
        node.mzxid = renaming.zxid(node.mzxid);
        node.pzxid = renaming.zxid(node.pzxid);
        if i64::from(node.child_creates) != node.child_creates_unwrapped as i64 {
            renaming.refuse("a create counter wrapped or was started ahead");
        }
        // Its `cversion`, twice the counter, wraps past 2^30.
        if node.child_creates >= 1 << 30 {
            renaming.refuse("a create counter is past 2^30, where its cversion wraps");
        }
        let creates = renaming.creates(path, i64::from(node.child_creates));
        node.child_creates = creates as i32;
        node.child_creates_unwrapped = creates as u64;
        let Some((parent, name)) = path.split() else {
            return;
        };
        if let (Some(number), Some(order)) = (node.number, node.order) {
            if i64::from(number) != order as i64 {
                renaming.refuse("a sequence number differs from its place in the create order");
            }
        }
        // A recipe may read a number out of any name in its directory (a
        // leftover node a scenario planted, `old-lock-7`), which no counter
        // gave and no renaming moves.
        let counted = renaming.counted_directory() == Some(&parent);
        if counted && node.number.is_none() && name.bytes().any(|b| b.is_ascii_digit()) {
            renaming.refuse("a plain node of the counted directory has digits in its name");
        }
        if let Some(order) = node.order {
            let order = renaming.creates(&parent, order as i64);
            node.order = Some(order as u64);
            node.number = node.number.map(|_| order as i32);
        }
    }

    /// The node each creation zxid is of, where one node has it (the
    /// server's own nodes, created at zxid 0, and the creates of one multi,
    /// which share theirs, are left out).
    pub fn created_at(&self) -> BTreeMap<Zxid, Path> {
        let mut created: BTreeMap<Zxid, Option<Path>> = BTreeMap::new();
        for (path, node) in self.nodes.iter().filter(|(_, node)| node.czxid != 0) {
            created
                .entry(node.czxid)
                .and_modify(|shared| *shared = None)
                .or_insert_with(|| Some(path.clone()));
        }
        (created.into_iter())
            .filter_map(|(czxid, path)| Some((czxid, path?)))
            .collect()
    }

    /// The directories that have sequential children.
    pub fn sequential_directories(&self) -> BTreeSet<Path> {
        (self.nodes.iter())
            .filter(|(_, node)| node.number.is_some())
            .filter_map(|(path, _)| path.parent())
            .collect()
    }

    pub fn config(&self) -> StoreConfig {
        self.config
    }

    /// The last zxid the server used.
    pub fn zxid(&self) -> Zxid {
        self.zxid
    }

    /// The last session the server opened.
    pub fn last_session(&self) -> SessionId {
        self.last_session
    }

    /// The create counter of the node `path` (the value its next child
    /// created sequential is named after), if it exists.
    pub fn creates(&self, path: &Path) -> Option<i64> {
        self.nodes
            .get(path)
            .map(|node| i64::from(node.child_creates))
    }

    /// Whether the session is open (not closed, not expired).
    pub fn is_alive(&self, session: SessionId) -> bool {
        self.sessions.contains(&session)
    }

    pub fn exists(&self, path: &Path) -> bool {
        self.nodes.contains_key(path)
    }

    /// The Stat a client would read for `path`.
    pub fn stat(&self, path: &Path) -> Option<Stat> {
        let node = self.nodes.get(path)?;
        let num_children = self.children_of(path).count() as i32;
        Some(Stat {
            czxid: node.czxid,
            mzxid: node.mzxid,
            pzxid: node.pzxid,
            ctime: node.czxid,
            mtime: node.mzxid,
            version: node.version,
            cversion: node
                .child_creates
                .wrapping_mul(2)
                .wrapping_sub(num_children),
            aversion: 0,
            ephemeral_owner: node.ephemeral_owner,
            data_length: node.data.as_ref().map_or(0, |d| d.len() as i32),
            num_children,
        })
    }

    /// The zxids of the last change to `path`'s data and to its children
    /// (`mzxid`, `pzxid`), if it exists: what a reconnect's `SetWatches`
    /// compares with the client's last zxid.
    pub fn change_zxids(&self, path: &Path) -> Option<(Zxid, Zxid)> {
        let node = self.nodes.get(path)?;
        Some((node.mzxid, node.pzxid))
    }

    /// The data of `path`, if it exists.
    pub fn data(&self, path: &Path) -> Option<&Data> {
        self.nodes.get(path).map(|node| &node.data)
    }

    /// Every znode path, sorted.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.nodes.keys()
    }

    /// The names of a node's children in the order `getChildren` answers.
    pub fn children(&self, path: &Path) -> Vec<Arc<str>> {
        let mut names: Vec<Arc<str>> = self
            .children_of(path)
            .map(|child| Arc::from(child.name()))
            .collect();
        self.config.child_order.arrange(&mut names);
        names
    }

    /// The ephemerals a session owns, sorted by path.
    pub fn ephemerals(&self, session: SessionId) -> Vec<Path> {
        self.nodes
            .iter()
            .filter(|(_, node)| node.ephemeral_owner == session)
            .map(|(path, _)| path.clone())
            .collect()
    }

    /// Whether `session` has a watch on any node, in either table.
    pub fn watches_of(&self, session: SessionId) -> bool {
        (self.data_watches.keys())
            .chain(self.child_watches.keys())
            .any(|(_, owner)| *owner == session)
    }

    /// The paths `session` has one-shot watches on, in the data table
    /// (getData, exists) and in the child table (getChildren), in path
    /// order.
    pub fn watched_by(&self, session: SessionId) -> (Vec<&Path>, Vec<&Path>) {
        fn of(table: &BTreeMap<(Path, SessionId), Mode>, session: SessionId) -> Vec<&Path> {
            (table.iter())
                .filter(|((_, owner), mode)| *owner == session && **mode == Mode::Standard)
                .map(|((path, _), _)| path)
                .collect()
        }
        (
            of(&self.data_watches, session),
            of(&self.child_watches, session),
        )
    }

    /// The watches `session` has that stay after they fire (`addWatch`), in
    /// path order, each once: a persistent watch is in both tables, and a
    /// one-shot watch set on its path since makes it one-shot in that table
    /// alone; `child` says it is left in the child table only.
    pub fn persistent_watches_of(&self, session: SessionId) -> Vec<(&Path, AddWatchMode, bool)> {
        let mut watches: Vec<(&Path, AddWatchMode, bool)> = Vec::new();
        for (table, child) in [(&self.data_watches, false), (&self.child_watches, true)] {
            for ((path, owner), mode) in table.iter() {
                let mode = match mode {
                    Mode::Standard => continue,
                    Mode::Persistent => AddWatchMode::Persistent,
                    Mode::Recursive => AddWatchMode::PersistentRecursive,
                };
                if *owner != session || watches.iter().any(|(p, m, _)| *p == path && *m == mode) {
                    continue;
                }
                watches.push((path, mode, child));
            }
        }
        watches.sort();
        watches
    }

    /// Whether `session` has a watch (of any mode) on `path` in the data
    /// table (getData, exists, addWatch) or, with `child`, in the child
    /// table.
    pub fn has_watch(&self, session: SessionId, path: &Path, child: bool) -> bool {
        let table = if child {
            &self.child_watches
        } else {
            &self.data_watches
        };
        table.contains_key(&(path.clone(), session))
    }

    /// Opens a session; `createSession` is a transaction and uses a zxid.
    pub fn open_session(&mut self) -> SessionId {
        self.zxid += 1;
        self.last_session += 1;
        self.sessions.insert(self.last_session);
        let session = self.last_session;
        journal::note(|| journal::Entry::Opened { session });
        session
    }

    /// The server expires a session: one transaction deletes all its ephemerals,
    /// each deletion firing exactly as a delete does, and its connection (with
    /// its watches) is gone. Expiring a session that is not open does nothing.
    pub fn expire(&mut self, session: SessionId) -> Vec<Notification> {
        if !self.is_alive(session) {
            return Vec::new();
        }
        self.zxid += 1;
        let mut fired = Vec::new();
        self.end_session(session, self.zxid, &mut fired);
        journal::note(|| journal::Entry::Expired {
            session,
            zxid: self.zxid,
            notifications: fired.clone(),
        });
        fired
    }

    /// The nodes the server may delete now (`ContainerManager.getCandidates`,
    /// which 3.8 runs every `znode.container.checkIntervalMs`), sorted: each
    /// container that has had a child (its `cversion` moved) and has none,
    /// and each TTL node with no children (its time to live, which the model
    /// does not count, may have passed) while [`StoreConfig::ttl_expiries`]
    /// allows one more.
    pub fn sweepable(&self) -> impl Iterator<Item = &Path> {
        (self.nodes.iter())
            .filter(|(path, node)| {
                let reapable = match node.reaped {
                    Reaped::Never => false,
                    // The server's test is `cversion > 0` (it restarts with
                    // a container made again), which with no child is the
                    // counter's.
                    Reaped::Container => node.child_creates.wrapping_mul(2) > 0,
                    Reaped::Ttl => self.ttl_swept < self.config.ttl_expiries,
                };
                reapable && self.children_of(path).next().is_none()
            })
            .map(|(path, _)| path)
    }

    /// Whether `path` is a TTL node.
    pub fn has_ttl(&self, path: &Path) -> bool {
        self.nodes
            .get(path)
            .is_some_and(|node| node.reaped == Reaped::Ttl)
    }

    /// The server deletes the empty container or TTL node `path` in a
    /// transaction of its own (`deleteContainer`, for both), firing what a delete fires; `None`, and
    /// nothing done, if `path` is not one it may delete now
    /// ([`Store::sweepable`]).
    pub fn sweep(&mut self, path: &Path) -> Option<Vec<Notification>> {
        if !self.sweepable().any(|candidate| candidate == path) {
            return None;
        }
        self.zxid += 1;
        if self.nodes[path].reaped == Reaped::Ttl {
            self.ttl_swept += 1;
        }
        let creates = self.nodes[path].child_creates_unwrapped;
        Arc::make_mut(&mut self.swept).insert(path.clone(), creates);
        let mut fired = Vec::new();
        self.remove(path, self.zxid, &mut fired);
        journal::note(|| journal::Entry::Swept {
            path: path.clone(),
            zxid: self.zxid,
            notifications: fired.clone(),
        });
        Some(fired)
    }

    /// The connection of a live session drops: the server forgets the watches
    /// registered over it. The session itself lives on until it expires.
    pub fn disconnect(&mut self, session: SessionId) {
        self.forget_watches(session);
        journal::note(|| journal::Entry::Disconnected { session });
    }

    fn forget_watches(&mut self, session: SessionId) {
        remove_session_watches(&mut self.data_watches, session);
        remove_session_watches(&mut self.child_watches, session);
    }

    /// A client reconnects and re-sends its watches. For each, the server either
    /// answers an event at once (the change the client missed) or re-arms it:
    ///
    /// | watch | node absent   | changed since `relative_zxid`     | otherwise |
    /// |-------|---------------|-----------------------------------|-----------|
    /// | data  | NodeDeleted   | NodeDataChanged (mzxid)           | re-armed  |
    /// | exist | re-armed      | NodeCreated (node present at all) |           |
    /// | child | NodeDeleted   | NodeChildrenChanged (pzxid)       | re-armed  |
    ///
    /// `SESSIONEXPIRED` when the session has expired meanwhile.
    pub fn reconnect(
        &mut self,
        session: SessionId,
        watches: &SetWatches,
    ) -> Result<Vec<WatchEvent>, ErrorCode> {
        let outcome = self.set_watches(session, watches);
        journal::note(|| journal::Entry::Reconnected {
            session,
            watches: watches.clone(),
            outcome: outcome.clone(),
        });
        outcome
    }

    fn set_watches(
        &mut self,
        session: SessionId,
        watches: &SetWatches,
    ) -> Result<Vec<WatchEvent>, ErrorCode> {
        if !self.is_alive(session) {
            return Err(ErrorCode::SessionExpired);
        }
        let relative = watches.relative_zxid;
        let mut events = Vec::new();
        for path in &watches.data {
            match self.nodes.get(path) {
                None => events.push(event(EventType::NodeDeleted, path)),
                Some(node) if node.mzxid > relative => {
                    events.push(event(EventType::NodeDataChanged, path))
                }
                Some(_) => add_watch(&mut self.data_watches, path, session, Mode::Standard),
            }
        }
        for path in &watches.exist {
            if self.exists(path) {
                events.push(event(EventType::NodeCreated, path));
            } else {
                add_watch(&mut self.data_watches, path, session, Mode::Standard);
            }
        }
        for path in &watches.child {
            match self.nodes.get(path) {
                None => events.push(event(EventType::NodeDeleted, path)),
                Some(node) if node.pzxid > relative => {
                    events.push(event(EventType::NodeChildrenChanged, path))
                }
                Some(_) => add_watch(&mut self.child_watches, path, session, Mode::Standard),
            }
        }
        // `SetWatches2`: the watches `addWatch` set, set again in both
        // tables, with no event for what changed meanwhile.
        for (paths, mode) in [
            (&watches.persistent, Mode::Persistent),
            (&watches.recursive, Mode::Recursive),
        ] {
            for path in paths {
                add_watch(&mut self.child_watches, path, session, mode);
                add_watch(&mut self.data_watches, path, session, mode);
            }
        }
        Ok(events)
    }

    /// Serves one request of `session`, in the server's total order.
    pub fn apply(&mut self, session: SessionId, op: &Op) -> Applied {
        let mut notifications = Vec::new();
        // Every write takes its zxid before any check, so a failed write (even
        // one refused for its session) uses one too.
        if op.is_write() {
            self.zxid += 1;
        }
        let result = if self.is_alive(session) {
            self.serve(session, op, &mut notifications)
        } else {
            Err(ErrorCode::SessionExpired)
        };
        let applied = Applied {
            zxid: self.zxid,
            result,
            notifications,
        };
        journal::note(|| journal::Entry::Applied {
            session,
            op: op.clone(),
            applied: applied.clone(),
        });
        applied
    }

    fn serve(&mut self, session: SessionId, op: &Op, fired: &mut Vec<Notification>) -> OpResult {
        let zxid = self.zxid;
        match op {
            Op::Create { path, data, mode } => {
                let path = self.create(session, path, data, *mode, zxid, fired)?;
                let stat = self.stat(&path).expect("the node was just created");
                Ok(Response::Created { path, stat })
            }
            Op::Delete { path, version } => {
                self.delete(path, *version, zxid, fired)?;
                Ok(Response::Deleted)
            }
            Op::SetData {
                path,
                data,
                version,
            } => {
                let stat = self.set_data(path, data, *version, zxid, fired)?;
                Ok(Response::SetData { stat })
            }
            Op::Multi(ops) => Ok(Response::Multi(self.multi(session, ops, zxid, fired))),
            Op::Close => {
                self.end_session(session, zxid, fired);
                Ok(Response::Closed)
            }
            Op::Exists { path, watch } => {
                valid(path)?;
                // The server registers the watch before it looks the node up, so
                // an exists on a missing node leaves a watch for its creation.
                if *watch {
                    add_watch(&mut self.data_watches, path, session, Mode::Standard);
                }
                Ok(Response::Exists(self.stat(path)))
            }
            Op::GetData { path, watch } => {
                valid(path)?;
                let node = self.nodes.get(path).ok_or(ErrorCode::NoNode)?;
                let data = node.data.clone();
                if *watch {
                    add_watch(&mut self.data_watches, path, session, Mode::Standard);
                }
                let stat = self.stat(path).expect("the node exists");
                Ok(Response::Data { data, stat })
            }
            Op::GetChildren { path, watch } => {
                valid(path)?;
                let stat = self.stat(path).ok_or(ErrorCode::NoNode)?;
                if *watch {
                    add_watch(&mut self.child_watches, path, session, Mode::Standard);
                }
                Ok(Response::Children {
                    names: self.children(path),
                    stat,
                })
            }
            Op::Sync { path } => {
                valid(path)?;
                Ok(Response::Synced { path: path.clone() })
            }
            // `DataTree.addWatch`: in both tables, in the mode asked for,
            // whether or not the node exists.
            Op::AddWatch { path, mode } => {
                valid(path)?;
                add_watch(&mut self.data_watches, path, session, Mode::of(*mode));
                add_watch(&mut self.child_watches, path, session, Mode::of(*mode));
                Ok(Response::WatchAdded)
            }
            // `DataTree.removeWatch`: this session's watch on the path in
            // each table meant, whatever its mode.
            Op::RemoveWatches { path, kind } => {
                valid(path)?;
                let key = (path.clone(), session);
                let mut removed = false;
                for (meant, table) in [
                    (kind.children(), &mut self.child_watches),
                    (kind.data(), &mut self.data_watches),
                ] {
                    if meant && table.contains_key(&key) {
                        Arc::make_mut(table).remove(&key);
                        removed = true;
                    }
                }
                removed
                    .then_some(Response::WatchesRemoved)
                    .ok_or(ErrorCode::NoWatcher)
            }
            // `DataTree.containsWatcher`: 3.8's `WatchManager.containsWatcher`
            // answers for the path's watchers, not this connection's: any
            // session's watch there will do.
            Op::CheckWatches { path, kind } => {
                valid(path)?;
                let watched = |table: &WatchTable| {
                    let on = (path.clone(), SessionId::MIN)..=(path.clone(), SessionId::MAX);
                    table.range(on).next().is_some()
                };
                let found = (kind.children() && watched(&self.child_watches))
                    || (kind.data() && watched(&self.data_watches));
                found
                    .then_some(Response::WatchesRemoved)
                    .ok_or(ErrorCode::NoWatcher)
            }
        }
    }

    /// `create`, in the server's check order: path, parent, name (with the
    /// sequence suffix), NODEEXISTS, then NOCHILDRENFOREPHEMERALS.
    fn create(
        &mut self,
        session: SessionId,
        path: &Path,
        data: &Data,
        mode: CreateMode,
        zxid: Zxid,
        fired: &mut Vec<Notification>,
    ) -> Result<Path, ErrorCode> {
        path::validate(path.as_str(), mode.is_sequential()).map_err(|_| ErrorCode::BadArguments)?;
        // The server splits at the last slash; for `/` the parent is the root itself.
        let (parent_path, prefix) = path.split().unwrap_or((Path::root(), ""));
        let parent = self.nodes.get(&parent_path).ok_or(ErrorCode::NoNode)?;
        let number = mode.is_sequential().then_some(parent.child_creates);
        let order = parent.child_creates_unwrapped;
        let created = match number {
            // Java's `%010d`: ten digits, or a sign and nine or more.
            Some(number) => parent_path.child(&format!("{prefix}{number:010}")),
            None => path.clone(),
        };
        if self.nodes.contains_key(&created) {
            return Err(ErrorCode::NodeExists);
        }
        if parent.ephemeral_owner != 0 {
            return Err(ErrorCode::NoChildrenForEphemerals);
        }
        let next = self.next_child_create(parent.child_creates);
        let owner = if mode.is_ephemeral() { session } else { 0 };
        let nodes = Arc::make_mut(&mut self.nodes);
        let parent = nodes.get_mut(&parent_path).expect("checked above");
        parent.child_creates = next;
        parent.child_creates_unwrapped += 1;
        parent.pzxid = zxid;
        let mut node = Znode {
            order: number.map(|_| order),
            number,
            reaped: Reaped::of(mode),
            ..Znode::new(data.clone(), zxid, owner)
        };
        if self.swept.contains_key(&created) {
            node.child_creates_unwrapped = Arc::make_mut(&mut self.swept)
                .remove(&created)
                .expect("just found");
        }
        let nodes = Arc::make_mut(&mut self.nodes);
        nodes.insert(created.clone(), node);
        self.fire(Table::Data, &created, EventType::NodeCreated, None, fired);
        self.fire(
            Table::Child,
            &parent_path,
            EventType::NodeChildrenChanged,
            None,
            fired,
        );
        Ok(created)
    }

    /// `delete`: special path, parent, node, BADVERSION, then NOTEMPTY.
    fn delete(
        &mut self,
        path: &Path,
        version: i32,
        zxid: Zxid,
        fired: &mut Vec<Notification>,
    ) -> Result<(), ErrorCode> {
        valid(path)?;
        if SPECIAL_PATHS.contains(&path.as_str()) {
            return Err(ErrorCode::BadArguments);
        }
        let parent_path = path
            .parent()
            .expect("a valid path other than / has a parent");
        if !self.exists(&parent_path) {
            return Err(ErrorCode::NoNode);
        }
        let node = self.nodes.get(path).ok_or(ErrorCode::NoNode)?;
        check_version(node.version, version)?;
        if self.children_of(path).next().is_some() {
            return Err(ErrorCode::NotEmpty);
        }
        self.remove(path, zxid, fired);
        Ok(())
    }

    /// Removes a node that may be removed, and fires what a delete fires:
    /// NodeDeleted once per session to the node's data and child watchers, then
    /// NodeChildrenChanged to the parent's child watchers.
    fn remove(&mut self, path: &Path, zxid: Zxid, fired: &mut Vec<Notification>) {
        let parent_path = path.parent().expect("only the root has no parent");
        let nodes = Arc::make_mut(&mut self.nodes);
        nodes.remove(path);
        nodes
            .get_mut(&parent_path)
            .expect("a node's parent exists")
            .pzxid = zxid;
        let first = fired.len();
        let deletion = Some((path, zxid));
        self.fire(Table::Data, path, EventType::NodeDeleted, deletion, fired);
        // The child table's NodeDeleted goes to whom the data table's did
        // not reach (`DataTree.deleteNode`'s `supress`).
        let notified: Vec<SessionId> = fired[first..].iter().map(|n| n.session).collect();
        for session in trigger(&mut self.child_watches, path, EventType::NodeDeleted) {
            if !notified.contains(&session) {
                fired.push(Notification {
                    session,
                    event: event(EventType::NodeDeleted, path),
                    deleted: Some((path.clone(), zxid)),
                });
            }
        }
        let kind = EventType::NodeChildrenChanged;
        self.fire(Table::Child, &parent_path, kind, deletion, fired);
    }

    fn set_data(
        &mut self,
        path: &Path,
        data: &Data,
        version: i32,
        zxid: Zxid,
        fired: &mut Vec<Notification>,
    ) -> Result<Stat, ErrorCode> {
        valid(path)?;
        let node = self.nodes.get(path).ok_or(ErrorCode::NoNode)?;
        check_version(node.version, version)?;
        let node = Arc::make_mut(&mut self.nodes)
            .get_mut(path)
            .expect("checked above");
        node.data = data.clone();
        node.version = wrapping_next(node.version, self.config.version_bits);
        node.mzxid = zxid;
        self.fire(Table::Data, path, EventType::NodeDataChanged, None, fired);
        Ok(self.stat(path).expect("the node exists"))
    }

    fn check(&self, path: &Path, version: i32) -> Result<(), ErrorCode> {
        valid(path)?;
        let node = self.nodes.get(path).ok_or(ErrorCode::NoNode)?;
        check_version(node.version, version)
    }

    /// A multi: every op checked against the state as changed by the ops before
    /// it, all sharing one zxid. On success each op fires as if alone (a watch
    /// fired by one op is gone for the next); on failure nothing is applied and
    /// nothing fires.
    fn multi(
        &mut self,
        session: SessionId,
        ops: &[MultiOp],
        zxid: Zxid,
        fired: &mut Vec<Notification>,
    ) -> MultiOutcome {
        let mut draft = self.clone();
        let mut draft_fired = Vec::new();
        let mut results = Vec::with_capacity(ops.len());
        for (index, op) in ops.iter().enumerate() {
            let result = match op {
                MultiOp::Create { path, data, mode } => draft
                    .create(session, path, data, *mode, zxid, &mut draft_fired)
                    .map(|path| MultiResult::Created { path }),
                MultiOp::Delete { path, version } => draft
                    .delete(path, *version, zxid, &mut draft_fired)
                    .map(|()| MultiResult::Deleted),
                MultiOp::SetData {
                    path,
                    data,
                    version,
                } => draft
                    .set_data(path, data, *version, zxid, &mut draft_fired)
                    .map(|stat| MultiResult::SetData { stat }),
                MultiOp::Check { path, version } => {
                    draft.check(path, *version).map(|()| MultiResult::Checked)
                }
            };
            match result {
                Ok(result) => results.push(result),
                Err(code) => {
                    return MultiOutcome::Aborted {
                        ops: ops.len(),
                        failed_at: index,
                        code,
                    }
                }
            }
        }
        *self = draft;
        fired.extend(draft_fired);
        MultiOutcome::Committed(results)
    }

    /// Ends a session (close or expiry) at `zxid`: deletes its ephemerals in path
    /// order, each firing as a delete, then forgets the session and its watches.
    fn end_session(&mut self, session: SessionId, zxid: Zxid, fired: &mut Vec<Notification>) {
        for path in self.ephemerals(session) {
            self.remove(&path, zxid, fired);
        }
        self.sessions.remove(&session);
        self.forget_watches(session);
    }

    /// How the server named the sequential node `path` when it created it
    /// ([`Sequence`]); `None` for a node created with a plain name, or no node.
    pub fn sequence(&self, path: &Path) -> Option<Sequence> {
        let node = self.nodes.get(path)?;
        Some(Sequence {
            number: node.number?,
            order: node.order?,
        })
    }

    /// Where the node `path` stands in its parent's create order: how many
    /// children the parent had had created before it, counted without the
    /// wrap, the order of their czxids. A sequential node has one, and so
    /// does a node of the starting tree ([`Store::keep_order`]); `None`
    /// otherwise.
    pub fn creation_order(&self, path: &Path) -> Option<u64> {
        self.nodes.get(path)?.order
    }

    /// Keeps the create order of `path`, the child its parent had created
    /// last, created with a plain name: for a scenario's starting tree,
    /// whose nodes no client made and whose places are the same in every
    /// state, so that a recipe adopting one (a leftover lock node named by
    /// the scenario) is placed before every node created after it. `false`
    /// if `path` is no node or not its parent's last child created.
    pub fn keep_order(&mut self, path: &Path) -> bool {
        let Some((parent, _)) = path.split() else {
            return false;
        };
        let Some(creates) = self
            .nodes
            .get(&parent)
            .map(|node| node.child_creates_unwrapped)
        else {
            return false;
        };
        let Some(czxid) = self.nodes.get(path).map(|node| node.czxid) else {
            return false;
        };
        if self.nodes.get(&parent).map(|node| node.pzxid) != Some(czxid) || creates == 0 {
            return false;
        }
        let node = Arc::make_mut(&mut self.nodes)
            .get_mut(path)
            .expect("checked above");
        node.order = Some(creates - 1);
        true
    }

    /// Starts the sequence counter of `path`'s children at `next`, as on a
    /// server that had seen that many child creates there, modulo the
    /// counter's width: the next sequential child is named after `next`. A
    /// negative `next` is a counter that has already wrapped, as a real
    /// parent's can have. The create order only moves on: the creates seen
    /// become the fewest, no fewer than before, that the counter shows as
    /// `next`. For a scenario's starting tree, before any client acts;
    /// `false` if there is no such node or `next` is outside the counter's
    /// range.
    pub fn start_sequence(&mut self, path: &Path, next: i32) -> bool {
        let period = 1i64 << self.config.sequence_bits;
        if !(-period / 2..period / 2).contains(&i64::from(next)) {
            return false;
        }
        let Some(node) = Arc::make_mut(&mut self.nodes).get_mut(path) else {
            return false;
        };
        node.child_creates = next;
        let seen = node.child_creates_unwrapped;
        let period = period as u64;
        let ahead =
            (i64::from(next).rem_euclid(period as i64) as u64 + period - seen % period) % period;
        node.child_creates_unwrapped = seen + ahead;
        journal::note(|| journal::Entry::SequenceStarted {
            path: path.clone(),
            next,
        });
        true
    }

    /// The next value of a create counter, wrapping at the configured width the
    /// way a Java `int` wraps at 32 bits.
    fn next_child_create(&self, counter: i32) -> i32 {
        wrapping_next(counter, self.config.sequence_bits)
    }

    /// The paths of a node's direct children, sorted.
    fn children_of<'a>(&'a self, path: &Path) -> impl Iterator<Item = &'a Path> + 'a {
        let prefix = if path.is_root() {
            String::from("/")
        } else {
            format!("{}/", path.as_str())
        };
        let start = Path::new(&prefix);
        // Descendants sort right after `prefix`; keep the direct children.
        self.nodes
            .range(start..)
            .map_while(move |(child, _)| {
                let rest = child.as_str().strip_prefix(prefix.as_str())?;
                Some((child, !rest.is_empty() && !rest.contains('/')))
            })
            .filter_map(|(child, direct)| direct.then_some(child))
    }

    /// Fires every watch an event of `path` fires in one table, removing the
    /// one-shot ones ([`trigger`]). `deleted` is the node whose deletion
    /// fires it, if a deletion does.
    fn fire(
        &mut self,
        table: Table,
        path: &Path,
        kind: EventType,
        deleted: Option<(&Path, Zxid)>,
        fired: &mut Vec<Notification>,
    ) {
        let watches = match table {
            Table::Data => &mut self.data_watches,
            Table::Child => &mut self.child_watches,
        };
        for session in trigger(watches, path, kind) {
            fired.push(Notification {
                session,
                event: event(kind, path),
                deleted: deleted.map(|(path, zxid)| (path.clone(), zxid)),
            });
        }
    }
}

#[derive(Clone, Copy)]
enum Table {
    Data,
    Child,
}

fn event(kind: EventType, path: &Path) -> WatchEvent {
    WatchEvent {
        kind,
        path: path.clone(),
    }
}

fn valid(path: &Path) -> Result<(), ErrorCode> {
    path::validate(path.as_str(), false).map_err(|_| ErrorCode::BadArguments)
}

/// `value + 1` in a signed integer `bits` wide (2 to 32): past the largest
/// comes the smallest, as a Java `int` goes at 32.
pub fn wrapping_next(value: i32, bits: u32) -> i32 {
    let max = ((1i64 << (bits - 1)) - 1) as i32;
    let min = (-(1i64 << (bits - 1))) as i32;
    if value >= max {
        min
    } else {
        value + 1
    }
}

fn check_version(current: i32, expected: i32) -> Result<(), ErrorCode> {
    if expected != ANY_VERSION && expected != current {
        Err(ErrorCode::BadVersion)
    } else {
        Ok(())
    }
}

/// The server keeps one watch per (connection, path, table), in the mode last
/// set (`WatcherModeManager.setWatcherMode`): adding one twice is the same as
/// adding it once, and a one-shot watch replaces a persistent one there.
fn add_watch(table: &mut WatchTable, path: &Path, session: SessionId, mode: Mode) {
    let key = (path.clone(), session);
    if table.get(&key) != Some(&mode) {
        Arc::make_mut(table).insert(key, mode);
    }
}

/// The sessions an event of `kind` at `path` fires in `table`, each once
/// (`WatchManager.triggerWatch`): every watch on `path` but a recursive one
/// for `NodeChildrenChanged`, and every recursive one on a node above it
/// but for `NodeChildrenChanged`. The one-shot watches on `path` go.
fn trigger(table: &mut WatchTable, path: &Path, kind: EventType) -> BTreeSet<SessionId> {
    let mut sessions = BTreeSet::new();
    if table.is_empty() {
        return sessions;
    }
    let children = kind == EventType::NodeChildrenChanged;
    let on = |at: &Path| (at.clone(), SessionId::MIN)..=(at.clone(), SessionId::MAX);
    let mut spent = Vec::new();
    for ((_, session), mode) in table.range(on(path)) {
        match mode {
            Mode::Recursive if children => {}
            Mode::Recursive | Mode::Persistent => {
                sessions.insert(*session);
            }
            Mode::Standard => {
                sessions.insert(*session);
                spent.push(*session);
            }
        }
    }
    // As the server's `recursiveQty`: no parent to look at (and no path to
    // allocate for each) unless some watch of the table is recursive.
    if !children && table.values().any(|mode| *mode == Mode::Recursive) {
        let mut above = path.parent();
        while let Some(at) = above {
            for ((_, session), mode) in table.range(on(&at)) {
                if *mode == Mode::Recursive {
                    sessions.insert(*session);
                }
            }
            above = at.parent();
        }
    }
    if !spent.is_empty() {
        let table = Arc::make_mut(table);
        for session in spent {
            table.remove(&(path.clone(), session));
        }
    }
    sessions
}

fn remove_session_watches(table: &mut WatchTable, session: SessionId) {
    if table.keys().any(|(_, s)| *s == session) {
        Arc::make_mut(table).retain(|(_, s), _| *s != session);
    }
}

/// A fixed hash of a name, so the child order is the same on every machine:
/// 64-bit FNV-1a, then MurmurHash3's finaliser. FNV-1a alone mixes the last
/// byte poorly, so names that differ only in their last digit (every lock node
/// of one prefix) would come out in a structured order (exactly reversed);
/// the finaliser makes the order of such names as arbitrary as a hash set's.
fn name_hash(bytes: &[u8]) -> u64 {
    let fnv = bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |hash: u64, &byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
        });
    let mut hash = fnv ^ (fnv >> 33);
    hash = hash.wrapping_mul(0xff51_afd7_ed55_8ccd);
    hash ^= hash >> 33;
    hash = hash.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    hash ^ (hash >> 33)
}
