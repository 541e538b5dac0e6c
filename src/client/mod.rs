//! The client-library half of a session: what a ZooKeeper client library does
//! between the application and its one connection.
//!
//! A [`Client`] numbers requests (xids), remembers the ones in flight and the
//! ones issued while disconnected, keeps the watches it registered, and the
//! zxid of the last reply. It turns what arrives on the connection into what the
//! application sees ([`Delivery`]): replies, watch events and session events.
//!
//! The rules it keeps (`docs/zookeeper-semantics.md` section 3):
//! - on connection loss, every in-flight and queued request completes with
//!   `CONNECTIONLOSS`, then `Disconnected` is delivered; session events go to
//!   every watcher and consume no watch;
//! - requests issued while disconnected are queued and sent on reconnect;
//! - on reconnect it re-sends its watches with the last zxid it saw
//!   (`SetWatches`) and delivers `SyncConnected`, then the catch-up events;
//! - on reconnect after the server expired the session: `Expired` first, then
//!   `SESSIONEXPIRED` for every queued request; the handle is dead;
//! - a request the server received is applied even when its reply is lost: the
//!   client cannot tell, and reports `CONNECTIONLOSS` either way.
//!
//! Like the store it is a pure value: the connection itself (the two FIFO links)
//! belongs to whoever drives it, such as [`crate::net::Net`].

use std::collections::{BTreeSet, VecDeque};

pub mod library;

pub use library::Library;
use library::{ConnectZxid, WatchesOnReconnect};

use crate::store::{
    AddWatchMode, ErrorCode, EventType, MultiOutcome, Op, OpResult, Path, Response, SessionId,
    SetWatches, WatchEvent, WatcherType, Zxid,
};

/// A request id, unique within one client.
pub type Xid = u32;

/// The state of a session's connection, as the client library sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ConnState {
    Connected,
    /// The connection dropped; the session may still be alive on the server.
    Disconnected,
    /// The server expired the session (learnt on reconnect); the handle is dead.
    Expired,
    /// The application closed the session.
    Closed,
}

/// A session event (`KeeperState`), delivered to every watcher, consuming none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SessionEvent {
    SyncConnected,
    Disconnected,
    Expired,
    Closed,
}

/// A request on its way to the server.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Request {
    pub xid: Xid,
    pub op: Op,
}

/// What the server sends on a connection, in order.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ServerMessage {
    Reply {
        xid: Xid,
        zxid: Zxid,
        result: OpResult,
    },
    Notification(WatchEvent),
}

/// What the client library hands the application.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Delivery {
    /// The end of request `xid`, with the request itself so that the
    /// application can tell its replies apart without keeping a table.
    Reply {
        xid: Xid,
        op: Op,
        result: OpResult,
    },
    Watch(WatchEvent),
    Session(SessionEvent),
}

/// What became of a request the application issued.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Submitted {
    /// Connected: put this on the connection.
    Send(Request),
    /// Disconnected: held until the connection comes back (or fails).
    Queued(Xid),
    /// Answered at once, without contacting the server: `SESSIONEXPIRED` on an
    /// expired or closed session, `[]` for an empty multi.
    Answered(Delivery),
}

/// The watches a client registered, in the five tables the Java client
/// keeps (`ZKWatchManager`).
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Watches {
    /// getData, and exists on a node that existed.
    pub data: BTreeSet<Path>,
    /// exists on a node that did not exist.
    pub exist: BTreeSet<Path>,
    /// getChildren.
    pub child: BTreeSet<Path>,
    /// `addWatch` persistent: they stay after they fire.
    pub persistent: BTreeSet<Path>,
    /// `addWatch` persistent recursive.
    pub recursive: BTreeSet<Path>,
}

impl Watches {
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
            && self.exist.is_empty()
            && self.child.is_empty()
            && self.persistent.is_empty()
            && self.recursive.is_empty()
    }

    /// Removes the one-shot watches an event fires, as the client's
    /// `materialize` does, and says whether any watch, one-shot or
    /// persistent (on the path, or recursive on it or a node above it, but
    /// for `NodeChildrenChanged`), is there to hear it.
    fn fire(&mut self, event: &WatchEvent) -> bool {
        let path = &event.path;
        let one_shot = match event.kind {
            EventType::NodeCreated | EventType::NodeDataChanged => {
                let data = self.data.remove(path);
                self.exist.remove(path) | data
            }
            EventType::NodeChildrenChanged => self.child.remove(path),
            EventType::NodeDeleted => {
                let data = self.data.remove(path);
                let exist = self.exist.remove(path);
                self.child.remove(path) | data | exist
            }
            // The library's own: no server sends one.
            EventType::DataWatchRemoved
            | EventType::ChildWatchRemoved
            | EventType::PersistentWatchRemoved => return false,
        };
        let recursive = event.kind != EventType::NodeChildrenChanged
            && !self.recursive.is_empty()
            && std::iter::successors(Some(path.clone()), Path::parent)
                .any(|at| self.recursive.contains(&at));
        one_shot | self.persistent.contains(path) | recursive
    }

    /// What the library does when `removeWatches` or `checkWatches` of
    /// `kind` on `path` ends with `result`, as the Java client's
    /// `ZKWatchManager.removeWatcher` does for one of `removeAllWatches(path,
    /// kind, false)` (or `removeWatches` of the application's one watcher,
    /// which is the same here): NOWATCHER if it has no such watch of its
    /// own, whatever the server said; the server's error if there was one;
    /// otherwise it removes its registrations (for `children` the child
    /// table only, for `data` the data and exist tables, for `any` all
    /// five) and, if that removed nothing (a persistent watch asked for as
    /// `children` or `data`), NOWATCHER. Answers the events it delivers
    /// before the reply, one per kind of table emptied, and the result.
    fn deregister(
        &mut self,
        path: &Path,
        kind: WatcherType,
        result: OpResult,
    ) -> (Vec<WatchEvent>, OpResult) {
        let persistent = self.persistent.contains(path) || self.recursive.contains(path);
        let ours = persistent
            || (kind.children() && self.child.contains(path))
            || (kind.data() && (self.data.contains(path) || self.exist.contains(path)));
        if !ours {
            return (Vec::new(), Err(ErrorCode::NoWatcher));
        }
        if result.is_err() {
            return (Vec::new(), result);
        }
        let event = |kind| WatchEvent {
            kind,
            path: path.clone(),
        };
        let mut events = Vec::new();
        if kind.children() && self.child.remove(path) {
            events.push(event(EventType::ChildWatchRemoved));
        }
        if kind.data() {
            let data = self.data.remove(path);
            if self.exist.remove(path) | data {
                events.push(event(EventType::DataWatchRemoved));
            }
        }
        if kind == WatcherType::Any {
            let persistent = self.persistent.remove(path);
            if self.recursive.remove(path) | persistent {
                events.push(event(EventType::PersistentWatchRemoved));
            }
        }
        match events.is_empty() {
            true => (events, Err(ErrorCode::NoWatcher)),
            false => (events, result),
        }
    }

    /// What the library makes of `result` ending `op`: for a watch removal,
    /// [`Watches::deregister`]; otherwise `result` itself.
    fn ended(&mut self, op: &Op, result: OpResult) -> (Vec<WatchEvent>, OpResult) {
        match op {
            Op::RemoveWatches { path, kind } | Op::CheckWatches { path, kind } => {
                self.deregister(path, *kind, result)
            }
            _ => (Vec::new(), result),
        }
    }

    /// Registers the watch a successful read asked for.
    fn register(&mut self, op: &Op, result: &OpResult) {
        match (op, result) {
            (Op::Exists { path, watch: true }, Ok(Response::Exists(Some(_))))
            | (Op::GetData { path, watch: true }, Ok(Response::Data { .. })) => {
                self.data.insert(path.clone());
            }
            (Op::Exists { path, watch: true }, Ok(Response::Exists(None))) => {
                self.exist.insert(path.clone());
            }
            (Op::GetChildren { path, watch: true }, Ok(Response::Children { .. })) => {
                self.child.insert(path.clone());
            }
            (Op::AddWatch { path, mode }, Ok(Response::WatchAdded)) => {
                let table = match mode {
                    AddWatchMode::Persistent => &mut self.persistent,
                    AddWatchMode::PersistentRecursive => &mut self.recursive,
                };
                table.insert(path.clone());
            }
            _ => {}
        }
    }
}

/// One session's client library.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Client {
    session: SessionId,
    state: ConnState,
    next_xid: Xid,
    /// Sent on the current connection and not yet answered, oldest first.
    in_flight: VecDeque<Request>,
    /// Issued while disconnected, oldest first.
    queued: VecDeque<Request>,
    watches: Watches,
    /// The zxid of the last reply received (`SetWatches` sends it).
    last_zxid: Zxid,
    /// The rules it keeps where libraries differ.
    library: Library,
}

impl Client {
    /// The client of a session the server has just opened.
    pub fn new(session: SessionId) -> Client {
        Client {
            session,
            state: ConnState::Connected,
            next_xid: 1,
            in_flight: VecDeque::new(),
            queued: VecDeque::new(),
            watches: Watches::default(),
            last_zxid: 0,
            library: Library::JAVA,
        }
    }

    /// This client, keeping `library`'s rules.
    pub fn with_library(self, library: Library) -> Client {
        Client { library, ..self }
    }

    /// The rules it keeps where libraries differ.
    pub fn library(&self) -> Library {
        self.library
    }

    /// The zxid its connect request carries: a server that has applied
    /// less refuses it ([`crate::net::Net::can_reconnect`]).
    pub fn connect_zxid(&self) -> Zxid {
        match self.library.connect_zxid {
            ConnectZxid::LastSeen => self.last_zxid,
            ConnectZxid::Zero => 0,
        }
    }

    pub fn session(&self) -> SessionId {
        self.session
    }

    /// This library with its clients renamed ([`crate::symmetry`]): its
    /// session, the paths of its requests and watches.
    pub fn renamed(&self, renaming: &crate::store::rename::Renaming) -> Client {
        let requests = |requests: &VecDeque<Request>| {
            requests
                .iter()
                .map(|request| renaming.request(request))
                .collect()
        };
        Client {
            session: renaming.session(self.session),
            in_flight: requests(&self.in_flight),
            queued: requests(&self.queued),
            watches: Watches {
                data: renaming.paths(&self.watches.data),
                exist: renaming.paths(&self.watches.exist),
                child: renaming.paths(&self.watches.child),
                persistent: renaming.paths(&self.watches.persistent),
                recursive: renaming.paths(&self.watches.recursive),
            },
            last_zxid: renaming.zxid(self.last_zxid),
            ..*self
        }
    }

    /// This library with each xid it keeps as its distance below the next
    /// one, and the next one 0: the xids of a state whose loop is told
    /// modulo counters ([`crate::recount`]), where an xid is read only by
    /// equality, to match a reply to its request, and minted as the next.
    /// `None` if some xid is not below the next (a library that started
    /// over with its requests still kept).
    pub fn xids_counted_back(&self) -> Option<Client> {
        let back = |requests: &VecDeque<Request>| -> Option<VecDeque<Request>> {
            (requests.iter())
                .map(|request| {
                    let xid = self.next_xid.checked_sub(request.xid).filter(|&d| d > 0)?;
                    Some(Request {
                        xid,
                        op: request.op.clone(),
                    })
                })
                .collect()
        };
        Some(Client {
            in_flight: back(&self.in_flight)?,
            queued: back(&self.queued)?,
            next_xid: 0,
            watches: self.watches.clone(),
            ..*self
        })
    }

    pub fn state(&self) -> ConnState {
        self.state
    }

    pub fn last_zxid(&self) -> Zxid {
        self.last_zxid
    }

    pub fn watches(&self) -> &Watches {
        &self.watches
    }

    /// Requests sent on the current connection and not yet answered.
    pub fn in_flight(&self) -> impl ExactSizeIterator<Item = &Request> {
        self.in_flight.iter()
    }

    /// The xid the next request will take: it only grows, which is what
    /// [`crate::properties::termination::rank`] counts on.
    pub fn next_xid(&self) -> Xid {
        self.next_xid
    }

    /// Requests issued while disconnected.
    pub fn queued(&self) -> impl ExactSizeIterator<Item = &Request> {
        self.queued.iter()
    }

    /// The application issues a request.
    pub fn submit(&mut self, op: Op) -> Submitted {
        let xid = self.next_xid;
        self.next_xid += 1;
        let request = Request { xid, op };
        if matches!(&request.op, Op::Multi(ops) if ops.is_empty()) {
            return Submitted::Answered(Delivery::Reply {
                xid,
                op: request.op,
                result: Ok(Response::Multi(MultiOutcome::Committed(Vec::new()))),
            });
        }
        match self.state {
            ConnState::Connected => {
                self.in_flight.push_back(request.clone());
                Submitted::Send(request)
            }
            ConnState::Disconnected => {
                self.queued.push_back(request);
                Submitted::Queued(xid)
            }
            ConnState::Expired | ConnState::Closed => Submitted::Answered(Delivery::Reply {
                xid,
                op: request.op,
                result: Err(ErrorCode::SessionExpired),
            }),
        }
    }

    /// A message arrives on the connection.
    ///
    /// # Panics
    /// On a reply that answers no request in flight, or not the oldest one: the
    /// connection is FIFO, so that is a bug in whoever drives the client.
    pub fn receive(&mut self, message: ServerMessage) -> Vec<Delivery> {
        match message {
            ServerMessage::Notification(event) => {
                if self.watches.fire(&event) {
                    vec![Delivery::Watch(event)]
                } else {
                    Vec::new()
                }
            }
            ServerMessage::Reply { xid, zxid, result } => {
                let request = self
                    .in_flight
                    .pop_front()
                    .expect("a reply arrived with no request in flight");
                assert_eq!(request.xid, xid, "replies arrive in request order");
                self.last_zxid = self.last_zxid.max(zxid);
                self.watches.register(&request.op, &result);
                let closed = matches!(result, Ok(Response::Closed));
                let (removed, result) = self.watches.ended(&request.op, result);
                let mut deliveries: Vec<Delivery> =
                    removed.into_iter().map(Delivery::Watch).collect();
                deliveries.push(Delivery::Reply {
                    xid,
                    op: request.op,
                    result,
                });
                if closed {
                    self.state = ConnState::Closed;
                    self.watches = Watches::default();
                    deliveries.push(Delivery::Session(SessionEvent::Closed));
                }
                deliveries
            }
        }
    }

    /// The connection drops, or a reconnect attempt fails: every request in
    /// flight or queued ends with `CONNECTIONLOSS`, then (the first time only,
    /// since the client never repeats the state it last reported) `Disconnected`.
    /// Watches stay registered on the client, to be re-sent on reconnect;
    /// a library that drops them ([`WatchesOnReconnect::Dropped`]) forgets
    /// them here.
    pub fn connection_lost(&mut self) -> Vec<Delivery> {
        let was_connected = self.state == ConnState::Connected;
        if was_connected {
            self.state = ConnState::Disconnected;
        }
        if self.library.watches == WatchesOnReconnect::Dropped {
            self.watches = Watches::default();
        }
        let watches = &mut self.watches;
        let mut deliveries = fail_all(&mut self.in_flight, watches, ErrorCode::ConnectionLoss);
        deliveries.extend(fail_all(
            &mut self.queued,
            watches,
            ErrorCode::ConnectionLoss,
        ));
        if was_connected {
            deliveries.push(Delivery::Session(SessionEvent::Disconnected));
        }
        deliveries
    }

    /// What the client sends first on a new connection: its watches and the
    /// last zxid it saw.
    pub fn set_watches(&self) -> SetWatches {
        SetWatches {
            relative_zxid: self.last_zxid,
            data: self.watches.data.iter().cloned().collect(),
            exist: self.watches.exist.iter().cloned().collect(),
            child: self.watches.child.iter().cloned().collect(),
            persistent: self.watches.persistent.iter().cloned().collect(),
            recursive: self.watches.recursive.iter().cloned().collect(),
        }
    }

    /// The session is re-established. `catch_up` is what the server answered to
    /// [`Client::set_watches`]. Delivers `SyncConnected`, then the catch-up
    /// events; answers the queued requests, now sent, in order.
    pub fn reconnected(&mut self, catch_up: Vec<WatchEvent>) -> (Vec<Delivery>, Vec<Request>) {
        assert_eq!(
            self.state,
            ConnState::Disconnected,
            "only a disconnected client reconnects"
        );
        self.state = ConnState::Connected;
        let mut deliveries = vec![Delivery::Session(SessionEvent::SyncConnected)];
        for event in catch_up {
            deliveries.extend(self.receive(ServerMessage::Notification(event)));
        }
        let sent: Vec<Request> = self.queued.drain(..).collect();
        self.in_flight.extend(sent.iter().cloned());
        (deliveries, sent)
    }

    /// A reconnect finds the session expired: `Expired` first, then
    /// `SESSIONEXPIRED` for every queued request. The handle is dead.
    pub fn expired(&mut self) -> Vec<Delivery> {
        self.state = ConnState::Expired;
        let watches = &mut self.watches;
        let mut deliveries = vec![Delivery::Session(SessionEvent::Expired)];
        deliveries.extend(fail_all(
            &mut self.in_flight,
            watches,
            ErrorCode::SessionExpired,
        ));
        deliveries.extend(fail_all(
            &mut self.queued,
            watches,
            ErrorCode::SessionExpired,
        ));
        // The Java client keeps its tables on a dead handle; the model,
        // whose dead handle sends nothing more, forgets them, once the
        // requests it failed have asked them (a watch removal fails with
        // NOWATCHER where the library has no such watch).
        self.watches = Watches::default();
        deliveries
    }
}

/// Every request of `requests` ends with `code` (a watch removal, with
/// NOWATCHER where the library has no such watch: [`Watches::ended`]).
fn fail_all(
    requests: &mut VecDeque<Request>,
    watches: &mut Watches,
    code: ErrorCode,
) -> Vec<Delivery> {
    requests
        .drain(..)
        .map(|request| {
            let (_, result) = watches.ended(&request.op, Err(code));
            Delivery::Reply {
                xid: request.xid,
                op: request.op,
                result,
            }
        })
        .collect()
}

/// What a renaming makes of the client library's parts ([`Renaming`]).
impl crate::store::rename::Renaming {
    pub fn request(&self, request: &Request) -> Request {
        Request {
            xid: request.xid,
            op: self.op(&request.op),
        }
    }

    pub fn message(&self, message: &ServerMessage) -> ServerMessage {
        match message {
            ServerMessage::Reply { xid, zxid, result } => ServerMessage::Reply {
                xid: *xid,
                zxid: self.zxid(*zxid),
                result: self.result(result),
            },
            ServerMessage::Notification(event) => ServerMessage::Notification(self.event(event)),
        }
    }

    /// `client` renamed, shared if it carries nothing to rename.
    pub fn client_library(&self, client: &std::sync::Arc<Client>) -> std::sync::Arc<Client> {
        let bare = client.in_flight().len() == 0
            && client.queued().len() == 0
            && client.watches().is_empty();
        if bare
            && !self.copies
            && !self.counts()
            && self.session(client.session()) == client.session()
        {
            return client.clone();
        }
        std::sync::Arc::new(client.renamed(self))
    }
}
