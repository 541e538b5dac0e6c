//! The vocabulary between a client and the server: requests, their results, error
//! codes, Stat and watch events, named as ZooKeeper names them.

use std::fmt;
use std::sync::Arc;

use super::path::Path;

/// A transaction id. Standalone servers count them up by one per transaction.
pub type Zxid = i64;

/// A session, as the server numbers them. `0` is "no session" in `ephemeralOwner`.
pub type SessionId = i64;

/// Bytes of a znode, or null (null stays null: `getData` answers null).
pub type Data = Option<Arc<[u8]>>;

/// Makes znode data from bytes.
pub fn data(bytes: &[u8]) -> Data {
    Some(Arc::from(bytes))
}

/// The error codes a request can end with (`KeeperException.Code`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ErrorCode {
    /// `-2`: a multi op after the failing one.
    RuntimeInconsistency,
    /// `-4`: the connection dropped before the reply arrived; the request may or
    /// may not have been applied.
    ConnectionLoss,
    /// `-8`: a bad path, or a delete of one of the special paths.
    BadArguments,
    /// `-101`
    NoNode,
    /// `-103`
    BadVersion,
    /// `-108`
    NoChildrenForEphemerals,
    /// `-110`
    NodeExists,
    /// `-111`
    NotEmpty,
    /// `-112`
    SessionExpired,
    /// `-121`: `removeWatches` or `checkWatches` found no watch to remove
    /// (at the server, or in the client library's own tables).
    NoWatcher,
}

impl ErrorCode {
    /// Every code the model knows.
    pub const ALL: [ErrorCode; 10] = [
        ErrorCode::RuntimeInconsistency,
        ErrorCode::ConnectionLoss,
        ErrorCode::BadArguments,
        ErrorCode::NoNode,
        ErrorCode::BadVersion,
        ErrorCode::NoChildrenForEphemerals,
        ErrorCode::NodeExists,
        ErrorCode::NotEmpty,
        ErrorCode::SessionExpired,
        ErrorCode::NoWatcher,
    ];

    /// The code the server sent as `code`, if the model knows it.
    pub fn from_code(code: i32) -> Option<ErrorCode> {
        ErrorCode::ALL
            .into_iter()
            .find(|known| known.code() == code)
    }

    /// The number the server sends.
    pub fn code(self) -> i32 {
        match self {
            ErrorCode::RuntimeInconsistency => -2,
            ErrorCode::ConnectionLoss => -4,
            ErrorCode::BadArguments => -8,
            ErrorCode::NoNode => -101,
            ErrorCode::BadVersion => -103,
            ErrorCode::NoChildrenForEphemerals => -108,
            ErrorCode::NodeExists => -110,
            ErrorCode::NotEmpty => -111,
            ErrorCode::SessionExpired => -112,
            ErrorCode::NoWatcher => -121,
        }
    }

    /// The server's name for the code.
    pub fn name(self) -> &'static str {
        match self {
            ErrorCode::RuntimeInconsistency => "RUNTIMEINCONSISTENCY",
            ErrorCode::ConnectionLoss => "CONNECTIONLOSS",
            ErrorCode::BadArguments => "BADARGUMENTS",
            ErrorCode::NoNode => "NONODE",
            ErrorCode::BadVersion => "BADVERSION",
            ErrorCode::NoChildrenForEphemerals => "NOCHILDRENFOREPHEMERALS",
            ErrorCode::NodeExists => "NODEEXISTS",
            ErrorCode::NotEmpty => "NOTEMPTY",
            ErrorCode::SessionExpired => "SESSIONEXPIRED",
            ErrorCode::NoWatcher => "NOWATCHER",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.name(), self.code())
    }
}

/// How a znode is created.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CreateMode {
    Persistent,
    Ephemeral,
    PersistentSequential,
    EphemeralSequential,
    /// A persistent node that the server deletes at some later moment once
    /// it has had a child and has none (`CreateMode.CONTAINER`, 3.5+; its
    /// `ContainerManager`): [`Store::sweep`](super::Store::sweep). Its Stat
    /// is a persistent node's: a 3.8 server shows ephemeral owner 0 (the
    /// conformance suite's finding; the owner it keeps inside is
    /// `EphemeralType.CONTAINER_EPHEMERAL_OWNER`, but no Stat carries it).
    Container,
    /// A persistent node that the server deletes once it has no children
    /// and has not been written for its time to live
    /// (`CreateMode.PERSISTENT_WITH_TTL`, 3.5.3+, on a server started with
    /// `zookeeper.extendedTypesEnabled=true`; its `ContainerManager` looks
    /// at TTL nodes as it looks at containers). The model has no clock: the
    /// time to live may have passed at any step, so a TTL node with no
    /// children may go at any later step ([`Store::sweep`](super::Store::sweep)),
    /// whether or not it ever had one. Its Stat shows ephemeral owner 0, as
    /// a container's (`DataNode.getClientEphemeralOwner`); on the wire it
    /// is `createTTL` with [`REAL_TTL_MS`].
    PersistentWithTtl,
    /// [`CreateMode::PersistentWithTtl`], sequential
    /// (`PERSISTENT_SEQUENTIAL_WITH_TTL`).
    PersistentSequentialWithTtl,
}

/// The time to live zoocheck gives a TTL node on a real server
/// (`zoocheck replay --zk`, the conformance suites): an hour, so that none
/// goes by itself while a sequence runs. The model, which has no clock,
/// lets it go at any step; the conformance suite's sweep test gives its own.
pub const REAL_TTL_MS: i64 = 3_600_000;

impl CreateMode {
    pub const ALL: [CreateMode; 7] = [
        CreateMode::Persistent,
        CreateMode::Ephemeral,
        CreateMode::PersistentSequential,
        CreateMode::EphemeralSequential,
        CreateMode::Container,
        CreateMode::PersistentWithTtl,
        CreateMode::PersistentSequentialWithTtl,
    ];

    pub fn is_ephemeral(self) -> bool {
        matches!(
            self,
            CreateMode::Ephemeral | CreateMode::EphemeralSequential
        )
    }

    pub fn is_sequential(self) -> bool {
        matches!(
            self,
            CreateMode::PersistentSequential
                | CreateMode::EphemeralSequential
                | CreateMode::PersistentSequentialWithTtl
        )
    }

    /// Whether the node has a time to live.
    pub fn is_ttl(self) -> bool {
        matches!(
            self,
            CreateMode::PersistentWithTtl | CreateMode::PersistentSequentialWithTtl
        )
    }
}

/// What `addWatch` (3.6+) sets: a watch that stays after it fires
/// (`AddWatchMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AddWatchMode {
    /// On the node itself: every event of the node (`NodeCreated`,
    /// `NodeDeleted`, `NodeDataChanged`) and of its children
    /// (`NodeChildrenChanged`).
    Persistent,
    /// On the node and every node below it, now or later: `NodeCreated`,
    /// `NodeDeleted` and `NodeDataChanged` of each, never
    /// `NodeChildrenChanged`.
    PersistentRecursive,
}

impl AddWatchMode {
    pub const ALL: [AddWatchMode; 2] =
        [AddWatchMode::Persistent, AddWatchMode::PersistentRecursive];

    /// Its name in the client library's API and in traces.
    pub fn name(self) -> &'static str {
        match self {
            AddWatchMode::Persistent => "persistent",
            AddWatchMode::PersistentRecursive => "persistent recursive",
        }
    }
}

/// Which of a path's watches `removeWatches` and `checkWatches` mean
/// (`Watcher.WatcherType`): the server's child table, its data table
/// (`getData` and `exists`), or both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WatcherType {
    Children,
    Data,
    Any,
}

impl WatcherType {
    pub const ALL: [WatcherType; 3] = [WatcherType::Children, WatcherType::Data, WatcherType::Any];

    /// Its number on the wire.
    pub fn code(self) -> i32 {
        match self {
            WatcherType::Children => 1,
            WatcherType::Data => 2,
            WatcherType::Any => 3,
        }
    }

    /// Its name in the client library's API and in traces.
    pub fn name(self) -> &'static str {
        match self {
            WatcherType::Children => "children",
            WatcherType::Data => "data",
            WatcherType::Any => "any",
        }
    }

    /// Whether it means the server's child table.
    pub fn children(self) -> bool {
        self != WatcherType::Data
    }

    /// Whether it means the server's data table.
    pub fn data(self) -> bool {
        self != WatcherType::Children
    }
}

/// `-1`: the version that matches any version in delete, setData and check.
pub const ANY_VERSION: i32 = -1;

/// A znode's Stat as clients see it. Times are logical: a node's `ctime` is its
/// `czxid` and its `mtime` its `mzxid`, so they order exactly as the real ones do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Stat {
    pub czxid: Zxid,
    pub mzxid: Zxid,
    pub pzxid: Zxid,
    pub ctime: i64,
    pub mtime: i64,
    pub version: i32,
    /// Child creates plus child deletes, as `DataNode.copyStat` reports it.
    pub cversion: i32,
    pub aversion: i32,
    pub ephemeral_owner: SessionId,
    pub data_length: i32,
    pub num_children: i32,
}

/// One operation inside a multi.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MultiOp {
    Create {
        path: Path,
        data: Data,
        mode: CreateMode,
    },
    Delete {
        path: Path,
        version: i32,
    },
    SetData {
        path: Path,
        data: Data,
        version: i32,
    },
    Check {
        path: Path,
        version: i32,
    },
}

/// A request a session sends.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Op {
    /// `create2`: answers the actual path and the new node's Stat.
    Create {
        path: Path,
        data: Data,
        mode: CreateMode,
    },
    Delete {
        path: Path,
        version: i32,
    },
    Exists {
        path: Path,
        watch: bool,
    },
    GetData {
        path: Path,
        watch: bool,
    },
    SetData {
        path: Path,
        data: Data,
        version: i32,
    },
    /// `getChildren2`: answers the names and the parent's Stat.
    GetChildren {
        path: Path,
        watch: bool,
    },
    Sync {
        path: Path,
    },
    Multi(Vec<MultiOp>),
    /// `addWatch` (3.6+): a watch on `path` that stays after it fires,
    /// whether or not the node exists. Not a transaction.
    AddWatch {
        path: Path,
        mode: AddWatchMode,
    },
    /// `removeWatches` (3.5+, the Java client's `removeAllWatches`): the
    /// server removes this session's watches on `path` in the tables `kind`
    /// means, whatever their mode, or answers NOWATCHER if it had none.
    /// Not a transaction: it is the connected server's.
    RemoveWatches {
        path: Path,
        kind: WatcherType,
    },
    /// `checkWatches` (3.5+), what the Java client's `removeWatches` for
    /// one watcher sends: the server removes nothing (it cannot tell one
    /// connection's watchers apart) and answers NOWATCHER only if no
    /// session at all watches `path` in those tables; the client removes
    /// its own registration, so a persistent watch goes on firing at the
    /// connection until it drops (ZOOKEEPER-4472).
    CheckWatches {
        path: Path,
        kind: WatcherType,
    },
    /// `closeSession`: deletes the session's ephemerals and ends it.
    Close,
}

impl Op {
    /// Whether the server turns this request into a transaction (and so uses a zxid,
    /// successful or not).
    pub fn is_write(&self) -> bool {
        matches!(
            self,
            Op::Create { .. } | Op::Delete { .. } | Op::SetData { .. } | Op::Multi(_) | Op::Close
        )
    }

    /// The path a request is about, for traces and for a watch it sets.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Op::Create { path, .. }
            | Op::Delete { path, .. }
            | Op::Exists { path, .. }
            | Op::GetData { path, .. }
            | Op::SetData { path, .. }
            | Op::GetChildren { path, .. }
            | Op::AddWatch { path, .. }
            | Op::RemoveWatches { path, .. }
            | Op::CheckWatches { path, .. }
            | Op::Sync { path } => Some(path),
            Op::Multi(_) | Op::Close => None,
        }
    }
}

/// The result of one successful sub-operation of a committed multi.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MultiResult {
    Created { path: Path },
    Deleted,
    SetData { stat: Stat },
    Checked,
}

/// What a multi did: all of it, or none of it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MultiOutcome {
    Committed(Vec<MultiResult>),
    /// Op `failed_at` failed with `code`; nothing was applied.
    Aborted {
        ops: usize,
        failed_at: usize,
        code: ErrorCode,
    },
}

impl MultiOutcome {
    /// The per-op codes the server sends: `0` for each op before the failing one,
    /// its code, then `-2` (RUNTIMEINCONSISTENCY) for each op after it.
    pub fn codes(&self) -> Vec<i32> {
        match *self {
            MultiOutcome::Committed(ref results) => vec![0; results.len()],
            MultiOutcome::Aborted {
                ops,
                failed_at,
                code,
            } => (0..ops)
                .map(|i| match i.cmp(&failed_at) {
                    std::cmp::Ordering::Less => 0,
                    std::cmp::Ordering::Equal => code.code(),
                    std::cmp::Ordering::Greater => ErrorCode::RuntimeInconsistency.code(),
                })
                .collect(),
        }
    }

    /// The error the whole multi reports, as `KeeperException` would.
    pub fn error(&self) -> Option<ErrorCode> {
        match *self {
            MultiOutcome::Committed(_) => None,
            MultiOutcome::Aborted { code, .. } => Some(code),
        }
    }
}

/// A successful answer.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Response {
    Created {
        path: Path,
        stat: Stat,
    },
    Deleted,
    /// `None`: the node does not exist (the sync API's `null`).
    Exists(Option<Stat>),
    Data {
        data: Data,
        stat: Stat,
    },
    SetData {
        stat: Stat,
    },
    /// Names, not paths, in the server's fixed but unsorted order.
    Children {
        names: Vec<Arc<str>>,
        stat: Stat,
    },
    Synced {
        path: Path,
    },
    /// A multi's outcome; an aborted multi is still a `Response`, since it carries
    /// per-op results. [`MultiOutcome::error`] gives its code.
    Multi(MultiOutcome),
    /// `addWatch` set its watch.
    WatchAdded,
    /// `removeWatches` removed, or `checkWatches` found, a watch.
    WatchesRemoved,
    Closed,
}

/// What a request ended with.
pub type OpResult = Result<Response, ErrorCode>;

/// The kinds of watch event (`Watcher.Event.EventType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EventType {
    NodeCreated,
    NodeDeleted,
    NodeDataChanged,
    NodeChildrenChanged,
    /// The client library's own, never the server's: a successful
    /// `removeWatches` or `checkWatches` removed the application's one-shot
    /// `getData` or `exists` watch on the path.
    DataWatchRemoved,
    /// The same for a `getChildren` watch.
    ChildWatchRemoved,
    /// The same for a persistent or persistent recursive watch.
    PersistentWatchRemoved,
}

impl EventType {
    /// The client library's name for the kind.
    pub fn name(self) -> &'static str {
        match self {
            EventType::NodeCreated => "NodeCreated",
            EventType::NodeDeleted => "NodeDeleted",
            EventType::NodeDataChanged => "NodeDataChanged",
            EventType::NodeChildrenChanged => "NodeChildrenChanged",
            EventType::DataWatchRemoved => "DataWatchRemoved",
            EventType::ChildWatchRemoved => "ChildWatchRemoved",
            EventType::PersistentWatchRemoved => "PersistentWatchRemoved",
        }
    }

    /// Whether the client library made it, on removing a watch, rather than
    /// a server's notification.
    pub fn is_removal(self) -> bool {
        matches!(
            self,
            EventType::DataWatchRemoved
                | EventType::ChildWatchRemoved
                | EventType::PersistentWatchRemoved
        )
    }
}

/// A watch notification: only the type and the path, never data, a Stat or a
/// child's name (`NodeChildrenChanged` names the parent).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WatchEvent {
    pub kind: EventType,
    pub path: Path,
}

impl fmt::Display for WatchEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.kind.name(), self.path)
    }
}

/// A watch event addressed to the session whose watch fired.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Notification {
    pub session: SessionId,
    pub event: WatchEvent,
    /// The node whose deletion fired it, when a deletion did (its NodeDeleted
    /// and its parent's NodeChildrenChanged), and the zxid of the
    /// transaction that deleted it, the same at every server of an
    /// ensemble. (Not part of what the client receives: it lets a checker
    /// count how many clients one deletion woke.)
    pub deleted: Option<(Path, Zxid)>,
}
