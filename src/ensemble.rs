//! An ensemble: a leader that orders every write, and servers that apply
//! what it committed in zxid order, each at its own pace, the leader too.
//!
//! The [`crate::net::Net`]'s store is the leader's order: every write is
//! applied there when the leader orders and commits it, which decides its
//! result (the leader's `PrepRequestProcessor` checks a request against
//! every change before it), and no client reads it. Each server, the leader
//! included, serves its clients from a [`Replica`] of its own (tree,
//! sessions, and the watches of the clients connected to it) that has
//! applied a prefix of the committed transactions; [`Ensemble::apply`]
//! applies the next one. The leader's replica is one like the others
//! because a real leader applies a commit after it has sent it to the
//! followers (`Leader.tryToCommit`, then its own `CommitProcessor`), so a
//! follower may apply a transaction before the leader does. Applying the
//! same requests in the same order to the same tree gives the same tree
//! and the same results (the store is a pure value), so a replica that has
//! applied `n` transactions holds the order's tree as it was after `n`.
//!
//! What the rules come from is in `docs/zookeeper-semantics.md`
//! ("An ensemble"). On one server ([`Ensemble::default`]) nothing here
//! exists and nothing changes.

use std::collections::VecDeque;

use crate::client::Xid;
use crate::store::{Notification, Op, Path, SessionId, Store};

/// Which server: 0 is the leader, `1..` the followers.
pub type ServerId = usize;

/// A committed transaction, as a server applies it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Txn {
    /// A client's write (a failed one too: it is ordered and applied as
    /// an error, changing nothing a server keeps but its zxid).
    Request { session: SessionId, op: Op },
    /// `createSession`: a renewed or restarted client's new session.
    Open,
    /// `closeSession` for an expired session: its ephemerals go.
    Expire(SessionId),
    /// `deleteContainer`: the leader's `ContainerManager` deletes an empty
    /// container or a TTL node.
    Sweep(Path),
}

/// One server's copy of the tree, which its clients read, and how many of
/// the committed transactions it has applied.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Replica {
    pub store: Store,
    pub applied: u64,
}

/// A write or `sync` of a session that its server finishes once it has
/// applied `until` transactions: the session's later requests
/// wait behind it, on this connection or the next (the server queues
/// requests by session, `CommitProcessor`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Wait {
    pub xid: Xid,
    pub until: u64,
    /// The `sync` (a read: it changes nothing) waiting, whose reply is
    /// answered with its result when the server applies it.
    pub sync: Option<Op>,
    /// The connection that sent it is still there to take the reply.
    pub answered: bool,
    /// The server that has it.
    pub server: u8,
}

/// Where one client stands in an ensemble.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Place {
    /// The server it is connected to (0: the leader).
    pub server: u8,
    /// Its server serves it once it has applied this many transactions:
    /// its session's `createSession`.
    pub joined: u64,
    /// Its session's write or `sync` its server has yet to finish.
    pub wait: Option<Wait>,
}

/// The servers' replicas, the committed transactions one of them has
/// still to apply, and where each client stands. On one server every part
/// is empty, so a state of one server carries nothing of it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Ensemble {
    /// Server `k`'s at `k` (the leader's at 0).
    replicas: Vec<Replica>,
    /// Client `i`'s at `i`; none on one server.
    pub places: Vec<Place>,
    /// Transactions committed and not yet applied by every server,
    /// oldest first.
    log: VecDeque<Txn>,
    /// How many transactions were committed before `log`'s first.
    base: u64,
    /// The most transactions a server may be behind when the leader
    /// commits a client's write.
    lag: u64,
}

/// What a server did when it applied a transaction.
pub struct Applied {
    /// The transaction's number (the first committed is 0).
    pub index: u64,
    /// The session whose request it was, and the result its server answers.
    pub request: Option<(SessionId, crate::store::OpResult)>,
    /// The server's zxid after it.
    pub zxid: crate::store::Zxid,
    /// The server's watches it fired.
    pub notifications: Vec<Notification>,
}

impl Ensemble {
    /// `servers` servers, each with a replica of `order` (the tree and
    /// sessions before anything happens), that may fall `lag` transactions
    /// behind; client `i` of `clients` is connected to server `i` modulo
    /// `servers`. One server is [`Ensemble::default`].
    pub fn new(order: &Store, servers: usize, lag: u64, clients: usize) -> Ensemble {
        if servers < 2 {
            return Ensemble::default();
        }
        let replica = Replica {
            store: order.clone(),
            applied: 0,
        };
        Ensemble {
            replicas: vec![replica; servers],
            places: (0..clients)
                .map(|client| Place {
                    server: (client % servers.max(1)) as u8,
                    ..Place::default()
                })
                .collect(),
            log: VecDeque::new(),
            base: 0,
            lag,
        }
    }

    /// How many servers: the leader and the followers.
    pub fn servers(&self) -> usize {
        self.replicas.len().max(1)
    }

    /// Whether there are several servers, each with its replica.
    pub fn is_ensemble(&self) -> bool {
        !self.replicas.is_empty()
    }

    /// The server client `client` is connected to: the leader on one server.
    pub fn server_of(&self, client: usize) -> ServerId {
        self.places
            .get(client)
            .map_or(0, |place| usize::from(place.server))
    }

    /// How many transactions client `client`'s server must have applied
    /// to know its session.
    pub fn joined(&self, client: usize) -> u64 {
        self.places.get(client).map_or(0, |place| place.joined)
    }

    /// Client `client`'s write or `sync` its server has yet to finish.
    pub fn wait(&self, client: usize) -> Option<&Wait> {
        self.places.get(client)?.wait.as_ref()
    }

    /// The ensemble with `places` for its clients' (renamed ones).
    pub fn placed(self, places: Vec<Place>) -> Ensemble {
        Ensemble { places, ..self }
    }

    /// Client `client`'s place, which only an ensemble has.
    pub fn place_mut(&mut self, client: usize) -> Option<&mut Place> {
        self.places.get_mut(client)
    }

    /// How many transactions the leader has committed.
    pub fn committed(&self) -> u64 {
        self.base + self.log.len() as u64
    }

    /// How many transactions server `server` has applied (on one server,
    /// everything: it keeps no log).
    pub fn applied(&self, server: ServerId) -> u64 {
        debug_assert!(self.replicas.is_empty() || server < self.replicas.len());
        self.replicas
            .get(server)
            .map_or(self.committed(), |replica| replica.applied)
    }

    /// How many committed transactions server `server` has still to apply.
    pub fn behind(&self, server: ServerId) -> u64 {
        self.committed() - self.applied(server)
    }

    /// Whether the leader may commit a client's write: no server is `lag`
    /// transactions behind.
    pub fn may_commit(&self) -> bool {
        let committed = self.committed();
        (self.replicas.iter()).all(|replica| committed - replica.applied < self.lag)
    }

    /// The store server `server` serves its clients from: its replica, or
    /// `order` on one server.
    pub fn store<'a>(&'a self, order: &'a Store, server: ServerId) -> &'a Store {
        debug_assert!(self.replicas.is_empty() || server < self.replicas.len());
        self.replicas
            .get(server)
            .map_or(order, |replica| &replica.store)
    }

    /// Server `server`'s store, to serve a read or (re)connect a client.
    pub fn store_mut<'a>(&'a mut self, order: &'a mut Store, server: ServerId) -> &'a mut Store {
        debug_assert!(self.replicas.is_empty() || server < self.replicas.len());
        match self.replicas.get_mut(server) {
            Some(replica) => &mut replica.store,
            None => order,
        }
    }

    /// The leader committed `txn` (and applied it to its order): answers
    /// its number, none on one server, which keeps nothing.
    pub fn commit(&mut self, txn: Txn) -> Option<u64> {
        if self.replicas.is_empty() {
            return None;
        }
        self.log.push_back(txn);
        Some(self.committed() - 1)
    }

    /// Whether server `server` has still to apply a request of `session`
    /// that the leader has committed.
    pub fn owes(&self, server: ServerId, session: SessionId) -> bool {
        let unapplied = (self.applied(server) - self.base) as usize;
        (self.log.iter().skip(unapplied))
            .any(|txn| matches!(txn, Txn::Request { session: owner, .. } if *owner == session))
    }

    /// The next transaction server `server` applies, and its number.
    pub fn next(&self, server: ServerId) -> Option<(u64, &Txn)> {
        let applied = self.replicas.get(server)?.applied;
        let txn = self.log.get(usize::try_from(applied - self.base).ok()?)?;
        Some((applied, txn))
    }

    /// Server `server` applies the next transaction, if it is behind.
    pub fn apply(&mut self, server: ServerId) -> Option<Applied> {
        let replica = self.replicas.get_mut(server)?;
        let index = replica.applied;
        let txn = self.log.get(usize::try_from(index - self.base).ok()?)?;
        let store = &mut replica.store;
        let (request, notifications) = crate::store::journal::unrecorded(|| match txn {
            Txn::Request { session, op } => {
                let applied = store.apply(*session, op);
                (Some((*session, applied.result)), applied.notifications)
            }
            Txn::Open => {
                store.open_session();
                (None, Vec::new())
            }
            Txn::Expire(session) => (None, store.expire(*session)),
            Txn::Sweep(path) => (None, store.sweep(path).unwrap_or_default()),
        });
        replica.applied += 1;
        let zxid = replica.store.zxid();
        let oldest = self.replicas.iter().map(|replica| replica.applied).min();
        while oldest.is_some_and(|oldest| self.base < oldest) {
            self.log.pop_front();
            self.base += 1;
        }
        Some(Applied {
            index,
            request,
            zxid,
            notifications,
        })
    }
}
