//! One server, its clients, and the FIFO connection between each client and the
//! server: everything below the recipes, driven one explicit step at a time.
//!
//! Every step is a method, so a test (or the model checker) says exactly which
//! message moves when. Nothing moves on its own:
//!
//! - [`Net::submit`]: a client issues a request (sent, queued, or answered at once);
//! - [`Net::serve`]: the server takes a client's oldest request off the link,
//!   queues the notifications it fired on each watcher's link, then the reply
//!   (notifications first: "watch before data");
//! - [`Net::deliver`]: a client takes the next message off its link;
//! - [`Net::break_connection`]: a connection drops, after the server received
//!   (and applied) the first `applied` requests in flight, whose replies are
//!   lost; the client notices at its next [`Net::deliver`] ([`Net::disconnect`]
//!   is the two at once);
//! - [`Net::reconnect`]: a disconnected client reconnects (SetWatches), or
//!   learns that its session expired;
//! - [`Net::expire`]: the server expires a session;
//! - [`Net::open_session`]: a client starts over with a new session;
//! - [`Net::apply`]: a server of an ensemble applies the next committed
//!   transaction ([`crate::ensemble`]), firing its clients' watches and
//!   answering the write or `sync` its client waits on.
//!
//! In an ensemble a client is connected to one server at a time (the
//! `move` fault sends its next connection to another): it reads that
//! server's tree, keeps its watches there, and has its writes and `sync`
//! answered once that server has applied them.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::client::{Client, ConnState, Delivery, Request, ServerMessage, Submitted};
use crate::ensemble::{Ensemble, ServerId, Txn, Wait};
use crate::store::{Notification, Op, OpResult, Path, SessionId, Store, StoreConfig};

/// Index of a client in a [`Net`].
pub use crate::store::rename::ClientId;

/// The two directions of one client's connection.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Link {
    /// Requests sent and not yet received by the server, oldest first.
    pub up: VecDeque<Request>,
    /// Replies and notifications the server sent and the client has not read.
    pub down: VecDeque<ServerMessage>,
    /// The connection is gone but the client has not noticed yet: until it
    /// does (its next [`Net::deliver`]), it still believes it is connected.
    pub broken: bool,
}

/// One request the server applied for a client: the request, its result
/// (which the client may never read) and the notifications it fired.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Served {
    pub op: Op,
    pub result: OpResult,
    pub notifications: Vec<Notification>,
    /// The server's tree (the leader's order) right after this request,
    /// where the server applied more in the same step (a crash's requests
    /// in flight, [`Net::break_connection`]): what a judgment of this
    /// request's moment reads. `None` where the net's tree is that moment.
    pub tree: Option<Store>,
}

impl Served {
    /// The server's tree right after this request: its own, or `net`'s.
    pub fn tree<'a>(&'a self, net: &'a Net) -> &'a Store {
        self.tree.as_ref().unwrap_or(&net.store)
    }
}

/// The server, its clients and their connections. Each client and each link
/// is shared between states until a step changes it (most steps touch one
/// client), so cloning a `Net` copies no queue.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Net {
    /// The server's, or in an ensemble the leader's order: every committed
    /// transaction applied as it commits, which no client reads (each
    /// server serves its clients from its replica in `ensemble`).
    pub store: Store,
    pub clients: Vec<Arc<Client>>,
    pub links: Vec<Arc<Link>>,
    /// The servers' replicas and where each client stands among the
    /// servers; empty on one server.
    pub ensemble: Ensemble,
}

impl Net {
    /// A fresh server with `clients` connected clients, each with its own session.
    pub fn new(config: StoreConfig, clients: usize) -> Net {
        let mut net = Net {
            store: Store::new(config),
            clients: Vec::with_capacity(clients),
            links: Vec::with_capacity(clients),
            ensemble: Ensemble::default(),
        };
        for _ in 0..clients {
            let session = net.store.open_session();
            net.clients.push(Arc::new(Client::new(session)));
            net.links.push(Arc::default());
        }
        net
    }

    /// The server becomes the leader of `servers` servers, each of whose
    /// replicas (the leader's own too) holds its tree and sessions as they
    /// are now and may fall `lag` transactions behind; client `i` is
    /// connected to server `i` modulo `servers`.
    pub fn form_ensemble(&mut self, servers: usize, lag: u64) {
        self.ensemble = Ensemble::new(&self.store, servers, lag, self.clients.len());
    }

    /// The server client `id` is connected to.
    pub fn server(&self, id: ClientId) -> ServerId {
        self.ensemble.server_of(id)
    }

    /// Client `id`'s write or `sync` its server has yet to finish: its
    /// later requests wait behind it.
    pub fn wait(&self, id: ClientId) -> Option<&Wait> {
        self.ensemble.wait(id)
    }

    /// The store of client `id`'s server: the tree its reads see.
    pub fn server_store(&self, id: ClientId) -> &Store {
        self.ensemble.store(&self.store, self.server(id))
    }

    /// Whether client `id`'s server would take its oldest request now: one
    /// is there, its server does not hold it ([`Net::held`]), and a write
    /// finds no server too far behind.
    pub fn can_serve(&self, id: ClientId) -> bool {
        let link = &self.links[id];
        let Some(request) = link.up.front() else {
            return false;
        };
        !self.held(id) && (!request.op.is_write() || self.ensemble.may_commit())
    }

    /// Whether client `id`'s server holds its requests: behind its
    /// session's write or `sync` that server has not finished, until the
    /// server knows its session, and at the leader behind every write of
    /// its session the leader has not applied, wherever the client sent it
    /// (a follower passes every write on to the leader, whose
    /// `CommitProcessor` queues a session's later requests behind it like
    /// its own clients' ones). Never on one server.
    pub fn held(&self, id: ClientId) -> bool {
        self.wait(id).is_some()
            || !self.knows_session(id)
            || (self.server(id) == 0 && self.ensemble.owes(0, self.session(id)))
    }

    /// Whether client `id`, disconnected, may reconnect to its server: the
    /// server knows its session and has applied every transaction the
    /// client's connect request says it has seen (a server behind it
    /// refuses it, and the client tries again).
    pub fn can_reconnect(&self, id: ClientId) -> bool {
        self.knows_session(id) && self.server_store(id).zxid() >= self.clients[id].connect_zxid()
    }

    /// Client `id`'s library turns to the server `offset` on from its own
    /// (modulo the ensemble's size) for its next connection. A write or
    /// `sync` of its session that the server it left has not finished
    /// still holds the session's requests until it has (the model keeps
    /// one pending request a session: a real new server would not wait).
    pub fn move_client(&mut self, id: ClientId, offset: usize) {
        let servers = self.ensemble.servers();
        let server = ((self.server(id) + offset) % servers) as u8;
        if let Some(place) = self.ensemble.place_mut(id) {
            place.server = server;
        }
    }

    /// Whether client `id`'s server has applied its session's creation.
    pub fn knows_session(&self, id: ClientId) -> bool {
        self.ensemble.applied(self.server(id)) >= self.ensemble.joined(id)
    }

    pub fn client(&self, id: ClientId) -> &Client {
        &self.clients[id]
    }

    pub fn session(&self, id: ClientId) -> SessionId {
        self.clients[id].session()
    }

    /// Client `id` issues a request. One the client library answers itself (a
    /// dead session, an empty multi) comes back at once as a delivery.
    ///
    /// A request sent on a connection that broke before the client noticed
    /// never reaches the server: it stays in flight on the client, which
    /// fails it with `CONNECTIONLOSS` when it notices.
    pub fn submit(&mut self, id: ClientId, op: Op) -> Vec<Delivery> {
        match self.client_mut(id).submit(op) {
            Submitted::Send(request) => {
                if !self.links[id].broken {
                    self.link_mut(id).up.push_back(request);
                }
                Vec::new()
            }
            Submitted::Queued(_) => Vec::new(),
            Submitted::Answered(delivery) => vec![delivery],
        }
    }

    /// The server serves client `id`'s oldest request, if it can
    /// ([`Net::can_serve`]), and answers what it applied.
    pub fn serve(&mut self, id: ClientId) -> Option<Served> {
        if !self.can_serve(id) {
            return None;
        }
        let request = self.link_mut(id).up.pop_front()?;
        Some(self.handle(id, request))
    }

    /// Client `id`'s server handles `request`: the leader orders a write
    /// and commits it, and in an ensemble the client waits for its reply
    /// until its server has applied it; a read is answered from the
    /// client's server's tree; a `sync` on a follower waits until the
    /// follower has applied what the leader had committed, and on the
    /// leader is answered at once, from what the leader has applied (the
    /// leader's `CommitProcessor` is built with `matchSyncs` false: a sync
    /// waits for the session's own requests only, [`Net::held`]). Answers
    /// what was applied (for a read or a `sync`, as its server answers it).
    fn handle(&mut self, id: ClientId, request: Request) -> Served {
        let session = self.session(id);
        let server = self.server(id);
        let (applied, wait) = if request.op.is_write() {
            let applied = self.store.apply(session, &request.op);
            let index = self.ensemble.commit(Txn::Request {
                session,
                op: request.op.clone(),
            });
            (applied, index.map(|index| index + 1))
        } else {
            let ensemble = self.ensemble.is_ensemble();
            let store = self.ensemble.store_mut(&mut self.store, server);
            let applied = crate::store::journal::unrecorded_if(ensemble, || {
                store.apply(session, &request.op)
            });
            let until = self.ensemble.committed();
            let behind = matches!(request.op, Op::Sync { .. })
                && server > 0
                && self.ensemble.applied(server) < until;
            (applied, behind.then_some(until))
        };
        self.route(&applied.notifications);
        match wait {
            Some(until) => {
                let place = self.ensemble.place_mut(id).expect("an ensemble's client");
                place.wait = Some(Wait {
                    xid: request.xid,
                    until,
                    sync: (!request.op.is_write()).then(|| request.op.clone()),
                    answered: true,
                    server: server as u8,
                });
            }
            None => self.link_mut(id).down.push_back(ServerMessage::Reply {
                xid: request.xid,
                zxid: applied.zxid,
                result: applied.result.clone(),
            }),
        }
        Served {
            op: request.op,
            result: applied.result,
            notifications: applied.notifications,
            tree: None,
        }
    }

    /// Server `server` of an ensemble applies the next committed
    /// transaction, if it is behind: it fires the watches its clients keep
    /// there, then answers the write or `sync` of each of its clients that
    /// waited for it. Answers the notifications it fired.
    pub fn apply(&mut self, server: ServerId) -> Option<Vec<Notification>> {
        let applied = self.ensemble.apply(server)?;
        self.route(&applied.notifications);
        for id in 0..self.clients.len() {
            let Some(wait) = self.wait(id) else {
                continue;
            };
            if usize::from(wait.server) != server || wait.until > applied.index + 1 {
                continue;
            }
            let wait = wait.clone();
            let (zxid, result) = match &wait.sync {
                Some(op) => {
                    let session = self.session(id);
                    let store = self.ensemble.store_mut(&mut self.store, server);
                    let synced = crate::store::journal::unrecorded(|| store.apply(session, op));
                    (synced.zxid, synced.result)
                }
                None => {
                    let (session, result) = applied.request.clone().expect("a client's write");
                    debug_assert_eq!(session, self.session(id), "the write of the client waiting");
                    (applied.zxid, result)
                }
            };
            self.ensemble.place_mut(id).expect("it waited").wait = None;
            if wait.answered {
                self.link_mut(id).down.push_back(ServerMessage::Reply {
                    xid: wait.xid,
                    zxid,
                    result,
                });
            }
        }
        Some(applied.notifications)
    }

    /// Client `id` reads the next message on its connection; once it has read
    /// them all, it notices a broken connection: `CONNECTIONLOSS` for every
    /// request, then `Disconnected`.
    pub fn deliver(&mut self, id: ClientId) -> Vec<Delivery> {
        if !self.links[id].down.is_empty() {
            let message = self.link_mut(id).down.pop_front().expect("not empty");
            return self.client_mut(id).receive(message);
        }
        if self.links[id].broken {
            self.links[id] = Arc::default();
            return self.client_mut(id).connection_lost();
        }
        Vec::new()
    }

    /// Whether client `id` has something to read or a broken connection to notice.
    pub fn can_deliver(&self, id: ClientId) -> bool {
        let link = &self.links[id];
        !link.down.is_empty() || link.broken
    }

    /// Serves and delivers everything in flight until nothing moves, clients in
    /// index order. Returns each client's deliveries. An ensemble's
    /// servers apply nothing here ([`Net::apply`]).
    pub fn settle(&mut self) -> Vec<Vec<Delivery>> {
        let mut deliveries = vec![Vec::new(); self.clients.len()];
        loop {
            let mut moved = false;
            for id in 0..self.clients.len() {
                while self.serve(id).is_some() {
                    moved = true;
                }
            }
            for (id, out) in deliveries.iter_mut().enumerate() {
                while self.can_deliver(id) {
                    out.extend(self.deliver(id));
                    moved = true;
                }
            }
            if !moved {
                return deliveries;
            }
        }
    }

    /// Client `id`'s connection drops after the server received its first
    /// `applied` requests in flight: those are applied (and fire their watches
    /// for other sessions), their replies are lost, and the rest never arrive.
    /// Everything the client had not read is lost too. The client notices at
    /// its next [`Net::deliver`]. Answers what the server applied.
    pub fn break_connection(&mut self, id: ClientId, applied: usize) -> Vec<Served> {
        let session = self.session(id);
        let mut served: Vec<Served> = Vec::new();
        // The model holds a session's requests behind its write or `sync`
        // its server has not finished (one pending a session, where a real
        // server would pass later writes on at once): they are not applied
        // here.
        while served.len() < applied && self.can_serve_before_a_break(id) {
            let request = self.link_mut(id).up.pop_front().expect("a request");
            if let Some(earlier) = served.last_mut() {
                earlier.tree = Some(self.store.clone());
            }
            served.push(self.handle(id, request));
        }
        self.links[id] = Arc::new(Link {
            broken: true,
            ..Link::default()
        });
        if let Some(wait) = self
            .ensemble
            .place_mut(id)
            .and_then(|place| place.wait.as_mut())
        {
            wait.answered = false;
        }
        let server = self.server(id);
        self.ensemble
            .store_mut(&mut self.store, server)
            .disconnect(session);
        served
    }

    /// [`Net::can_serve`], but for a leader's lag: a request in flight when
    /// the connection breaks has reached the server already.
    fn can_serve_before_a_break(&self, id: ClientId) -> bool {
        !self.links[id].up.is_empty() && !self.held(id)
    }

    /// [`Net::break_connection`], noticed at once: the client sees
    /// `CONNECTIONLOSS` for every request, then `Disconnected`.
    ///
    /// On a client already disconnected this is a failed reconnect attempt: its
    /// queued requests end with `CONNECTIONLOSS`.
    pub fn disconnect(&mut self, id: ClientId, applied: usize) -> Vec<Delivery> {
        self.break_connection(id, applied);
        self.deliver(id)
    }

    /// Disconnected client `id` reaches the server again: SetWatches and the
    /// queued requests if its session lives, `Expired` if it does not.
    pub fn reconnect(&mut self, id: ClientId) -> Vec<Delivery> {
        let server = self.server(id);
        let client = Arc::make_mut(&mut self.clients[id]);
        assert_eq!(client.state(), ConnState::Disconnected);
        // The leader tells whether the session lives; the client's server
        // takes its watches.
        let alive = self.store.is_alive(client.session());
        let ensemble = self.ensemble.is_ensemble();
        let store = self.ensemble.store_mut(&mut self.store, server);
        let outcome = match alive {
            true => crate::store::journal::unrecorded_if(ensemble, || {
                store.reconnect(client.session(), &client.set_watches())
            }),
            false if ensemble => Err(crate::store::ErrorCode::SessionExpired),
            false => store.reconnect(client.session(), &client.set_watches()),
        };
        match outcome {
            Ok(catch_up) => {
                let (deliveries, sent) = client.reconnected(catch_up);
                Arc::make_mut(&mut self.links[id]).up.extend(sent);
                deliveries
            }
            Err(_) => client.expired(),
        }
    }

    /// The server expires client `id`'s session. The client hears of it only
    /// when it next reconnects.
    /// If the client was connected, the server closes its connection too.
    /// Answers the notifications the expiry fired.
    pub fn expire(&mut self, id: ClientId) -> Vec<Notification> {
        let session = self.session(id);
        if !self.store.is_alive(session) {
            return Vec::new();
        }
        if self.clients[id].state() == ConnState::Connected && !self.links[id].broken {
            self.break_connection(id, 0);
        }
        self.expire_session(session)
    }

    /// The server expires a session, whichever client had it (a crashed
    /// process's, say). Answers the notifications the expiry fired: none
    /// in an ensemble, whose servers fire them as each applies it.
    pub fn expire_session(&mut self, session: SessionId) -> Vec<Notification> {
        if !self.store.is_alive(session) {
            return Vec::new();
        }
        let notifications = self.store.expire(session);
        self.ensemble.commit(Txn::Expire(session));
        self.route(&notifications);
        notifications
    }

    /// The server deletes the empty container or TTL node `path`
    /// ([`Store::sweep`]),
    /// a transaction of its own; on an ensemble the leader orders it and
    /// each server applies it in its turn. `None` if it may not now.
    pub fn sweep(&mut self, path: &Path) -> Option<Vec<Notification>> {
        let notifications = self.store.sweep(path)?;
        self.ensemble.commit(Txn::Sweep(path.clone()));
        self.route(&notifications);
        Some(notifications)
    }

    /// Client `id`'s library keeps `library`'s rules, from now on and in
    /// every session it opens.
    pub fn set_library(&mut self, id: ClientId, library: crate::client::Library) {
        let client = self.client_mut(id);
        *client = client.clone().with_library(library);
    }

    /// Client `id`'s library gives up its session on its own, while the
    /// server still has it: `Expired`, then `SESSIONEXPIRED` for every
    /// queued request, as if the server had expired it. The server keeps
    /// the session until it expires it ([`Net::expire_session`]).
    pub fn abandon(&mut self, id: ClientId) -> Vec<Delivery> {
        self.links[id] = Arc::default();
        self.client_mut(id).expired()
    }

    /// Client `id`'s library, whose session is gone, opens a new one in the
    /// same process: `SyncConnected` on the new session, no watches, no
    /// requests; the old session's ephemerals are the server's business.
    pub fn renew(&mut self, id: ClientId) -> Vec<Delivery> {
        assert_eq!(
            self.clients[id].state(),
            ConnState::Expired,
            "only a lost session is renewed"
        );
        self.open_session(id);
        vec![Delivery::Session(
            crate::client::SessionEvent::SyncConnected,
        )]
    }

    /// Client `id` starts over (a restarted process) with a new session and no
    /// memory. Whatever was on its old connection is gone.
    pub fn open_session(&mut self, id: ClientId) {
        let session = self.store.open_session();
        let joined = self.ensemble.commit(Txn::Open).map(|index| index + 1);
        let library = self.clients[id].library();
        self.clients[id] = Arc::new(Client::new(session).with_library(library));
        self.links[id] = Arc::default();
        if let Some(place) = self.ensemble.place_mut(id) {
            place.joined = joined.unwrap_or(0);
            // The old session's request is still applied, for nobody.
            place.wait = None;
        }
    }

    fn client_mut(&mut self, id: ClientId) -> &mut Client {
        Arc::make_mut(&mut self.clients[id])
    }

    fn link_mut(&mut self, id: ClientId) -> &mut Link {
        Arc::make_mut(&mut self.links[id])
    }

    /// Client `id` forgets its connection without noticing the loss: a crashed
    /// process's link, whose messages nobody will read.
    pub fn forget_link(&mut self, id: ClientId) {
        self.links[id] = Arc::default();
    }

    /// Queues each notification on the link of the client whose session it is
    /// for. The server has watches only for connected sessions, so such a
    /// client is connected.
    fn route(&mut self, notifications: &[Notification]) {
        for notification in notifications {
            if let Some(id) = self
                .clients
                .iter()
                .position(|client| client.session() == notification.session)
            {
                self.link_mut(id)
                    .down
                    .push_back(ServerMessage::Notification(notification.event.clone()));
            }
        }
    }
}

/// What a renaming makes of a link ([`crate::store::rename::Renaming`]).
impl crate::store::rename::Renaming {
    /// `link` renamed, shared if it carries nothing to rename.
    pub fn link(&self, link: &Arc<Link>) -> Arc<Link> {
        if link.up.is_empty() && link.down.is_empty() && !self.copies {
            return link.clone();
        }
        Arc::new(Link {
            up: link
                .up
                .iter()
                .map(|request| self.request(request))
                .collect(),
            down: link
                .down
                .iter()
                .map(|message| self.message(message))
                .collect(),
            broken: link.broken,
        })
    }
}
