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
//! - [`Net::open_session`]: a client starts over with a new session.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::client::{Client, ConnState, Delivery, Request, ServerMessage, Submitted};
use crate::store::{Notification, Op, OpResult, SessionId, Store, StoreConfig};

/// Index of a client in a [`Net`].
pub type ClientId = usize;

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
}

/// The server, its clients and their connections. Each client and each link
/// is shared between states until a step changes it (most steps touch one
/// client), so cloning a `Net` copies no queue.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Net {
    pub store: Store,
    pub clients: Vec<Arc<Client>>,
    pub links: Vec<Arc<Link>>,
}

impl Net {
    /// A fresh server with `clients` connected clients, each with its own session.
    pub fn new(config: StoreConfig, clients: usize) -> Net {
        let mut net = Net {
            store: Store::new(config),
            clients: Vec::with_capacity(clients),
            links: Vec::with_capacity(clients),
        };
        for _ in 0..clients {
            let session = net.store.open_session();
            net.clients.push(Arc::new(Client::new(session)));
            net.links.push(Arc::default());
        }
        net
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

    /// The server serves client `id`'s oldest request, if there is one, and
    /// answers what it applied.
    pub fn serve(&mut self, id: ClientId) -> Option<Served> {
        if self.links[id].up.is_empty() {
            return None;
        }
        let request = self.link_mut(id).up.pop_front()?;
        let applied = self.store.apply(self.session(id), &request.op);
        self.route(&applied.notifications);
        self.link_mut(id).down.push_back(ServerMessage::Reply {
            xid: request.xid,
            zxid: applied.zxid,
            result: applied.result.clone(),
        });
        Some(Served {
            op: request.op,
            result: applied.result,
            notifications: applied.notifications,
        })
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
    /// index order. Returns each client's deliveries.
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
        let received = applied.min(self.links[id].up.len());
        let requests: Vec<Request> = self.link_mut(id).up.drain(..received).collect();
        let mut served = Vec::with_capacity(requests.len());
        for request in requests {
            let applied = self.store.apply(session, &request.op);
            self.route(&applied.notifications);
            served.push(Served {
                op: request.op,
                result: applied.result,
                notifications: applied.notifications,
            });
        }
        self.links[id] = Arc::new(Link {
            broken: true,
            ..Link::default()
        });
        self.store.disconnect(session);
        served
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
        let client = Arc::make_mut(&mut self.clients[id]);
        assert_eq!(client.state(), ConnState::Disconnected);
        match self
            .store
            .reconnect(client.session(), &client.set_watches())
        {
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
    /// process's, say). Answers the notifications the expiry fired.
    pub fn expire_session(&mut self, session: SessionId) -> Vec<Notification> {
        let notifications = self.store.expire(session);
        self.route(&notifications);
        notifications
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
        self.clients[id] = Arc::new(Client::new(session));
        self.links[id] = Arc::default();
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
