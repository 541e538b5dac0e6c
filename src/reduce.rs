//! The reductions: how a search stores fewer states than the world has, and
//! why each leaves every verdict as it was.
//!
//! A search remembers the states it has seen by their fingerprints (a hash),
//! and goes on from a state only the first time it sees its fingerprint. A
//! reduction makes the fingerprint of a state the fingerprint of its
//! *class*: states that differ only in what no step from them can ever tell
//! apart (those differences the reduction can show to be so, not every
//! one) get one fingerprint, so the search goes on from one of them. The
//! search still walks real states (every path it reports replays step for
//! step), and a class is a bisimulation class: for each step one state takes,
//! every other state of its class takes the same step into the same class,
//! and every property, observation and coverage mark reads the same on both.
//! So every path from a state the search passed over is matched, step for
//! step and verdict for verdict, by a path from the one it went on from, and
//! a violation, a counterexample's length and the classes of the quiescent
//! states are what they were. Where a search must find a state itself, not
//! one of its class (the path to a panic, a loop that closes), it searches
//! without reductions.
//!
//! `terminates` needs one thing more ([`crate::properties::termination`]):
//! its rank must be the same on every state of a class, so that no cycle
//! can hide among merged states. Each reduction below keeps what the rank
//! reads (the faults spent, the commands given, the server's zxid, the
//! requests sent, the work pending).
//!
//! A third reduction, `partial-order` ([`crate::partial_order`]), stores
//! fewer states by other means: it leaves out steps, not distinctions, and
//! its argument is its own.
//!
//! `check --reduce none` turns them off; every scenario's test checks its
//! verdicts both ways and pins both state counts (`tests/scenarios.rs`).
//!
//! # `counters`: the zxids a client has seen, the numbers of its requests
//!
//! A client library keeps the zxid of the last reply it read, and each reply
//! on its way carries one. Nothing reads them but one comparison: when the
//! client reconnects, the server fires a watch the client re-sends
//! (`SetWatches`) if the watched node's `mzxid` (a data watch) or `pzxid` (a
//! child watch) is above the client's last zxid. No recipe sees them. So a
//! seen zxid `z` matters only through which of those node zxids lie at or
//! below it, and the class keeps, in its place, the highest of them at or
//! below `z` (0 if none): its *floor*.
//!
//! Which node zxids: for the last zxid, those of the nodes the client
//! watches now; for the `i`-th reply on its way, those and the nodes the
//! watching reads answered by replies 1 to `i` will watch once read. That
//! is enough, because
//! - a watch the client has not registered yet is registered only when a
//!   reply is read, which raises the last zxid to that reply's: a reply's
//!   zxid is the server's at the time it served it, and replies are read in
//!   the order served, so the last zxid is at or below every reply on its
//!   way, and a watch registered by reply `i` is compared with reply `i`'s
//!   zxid or a later one, never with the zxid the client holds now;
//! - a node written from now on takes a fresh zxid, above every zxid any
//!   client has seen, so it splits no class; a node deleted or a watch
//!   fired or forgotten only takes a zxid out, which merges classes on both
//!   sides alike;
//! - the floor commutes with `max`, which is how a read reply raises the
//!   last zxid.
//!
//! Request numbers (xids) are compared only within one client, for
//! equality, to match a reply to its request; no recipe sees them
//! ([`crate::recipe::Input::Reply`] has none). The class keeps each
//! request's distance below its client's next xid, and of the next xids
//! only their sum, which the rank reads. Only their sum while no client
//! library can start over ([`Classes::xid_sum`]): one that does (a renewed
//! session, a restarted process) sets its next xid back to 1, which moves
//! the sum by what its own was, and the class keeps each then.
//!
//! Measured on the 3-client guid lock question
//! (`benches/spin/lock_guid_3.toml`): 4,015,346 states without reductions,
//! 736,060 with `counters`; `docs/performance.md` has the times.
//!
//! # `symmetry`: which of interchangeable clients is which
//!
//! Clients with the same recipe variant, script and timeouts, and no fault
//! aimed at them by number, are interchangeable where their recipe says so;
//! a state and its renaming are one class. The renaming, the argument and
//! the choice of a representative are in [`crate::symmetry`]. It keeps the
//! rank: every part the rank reads is a count over all clients.

use std::hash::{Hash, Hasher};
use std::str::FromStr;

use crate::client::{Client, Request, ServerMessage, Watches};
use crate::net::{Link, Net};
use crate::store::{Op, Store, Zxid};
use crate::symmetry::Groups;

/// Which reductions a search makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reductions {
    /// States that differ only in the zxids their clients have seen and the
    /// numbers of their requests, as far as no step can tell, are one.
    pub counters: bool,
    /// States that differ only in which of interchangeable clients is
    /// which are one ([`crate::symmetry`]).
    pub symmetry: bool,
    /// Of interleavings that reach the same states through the same property
    /// values, the search takes one ([`crate::partial_order`]). Unlike the
    /// others it changes which steps a search takes, not how states hash.
    pub partial_order: bool,
}

impl Reductions {
    pub const ALL: Reductions = Reductions {
        counters: true,
        symmetry: true,
        partial_order: true,
    };
    pub const NONE: Reductions = Reductions {
        counters: false,
        symmetry: false,
        partial_order: false,
    };

    /// Each reduction's name, as `--reduce` takes it.
    pub const NAMES: [&'static str; 3] = ["counters", "symmetry", "partial-order"];

    /// Whether each reduction is made, in [`Reductions::NAMES`]' order.
    fn made(&self) -> [bool; 3] {
        [self.counters, self.symmetry, self.partial_order]
    }

    /// The reductions by name, for a report: `counters`, or `none`.
    pub fn words(&self) -> String {
        let on: Vec<&str> = (Reductions::NAMES.into_iter().zip(self.made()))
            .filter_map(|(name, made)| made.then_some(name))
            .collect();
        if on.is_empty() {
            "none".to_string()
        } else {
            on.join(",")
        }
    }
}

/// How the states of one world hash: the reductions a search makes, as far
/// as the world allows each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Classes {
    /// [`Reductions::counters`].
    pub counters: bool,
    /// Of the clients' next xids, only their sum: where no client library
    /// ever starts over with a new session (a renewal, a restart), which
    /// sets its next xid back to 1.
    pub xid_sum: bool,
    /// [`Reductions::symmetry`]: the clients each is interchangeable with
    /// (none without it).
    pub symmetry: Groups,
}

impl Classes {
    /// The classes of a world that makes `reductions`, where client
    /// libraries start over (`restarts`) or not, and whose clients are
    /// interchangeable within `groups`.
    pub fn of(reductions: Reductions, restarts: bool, groups: Groups) -> Classes {
        Classes {
            counters: reductions.counters,
            xid_sum: reductions.counters && !restarts,
            symmetry: if reductions.symmetry {
                groups
            } else {
                Groups::default()
            },
        }
    }
}

impl Default for Reductions {
    fn default() -> Reductions {
        Reductions::ALL
    }
}

/// `all`, `none`, or a comma-separated list of names ([`Reductions::NAMES`]).
impl FromStr for Reductions {
    type Err = String;

    fn from_str(text: &str) -> Result<Reductions, String> {
        match text.trim() {
            "all" => return Ok(Reductions::ALL),
            "none" => return Ok(Reductions::NONE),
            _ => {}
        }
        let mut reductions = Reductions::NONE;
        for name in text.split(',').map(str::trim) {
            match name {
                "counters" => reductions.counters = true,
                "symmetry" => reductions.symmetry = true,
                "partial-order" => reductions.partial_order = true,
                _ => {
                    let names = Reductions::NAMES.join(", ");
                    let expected = format!("all, none, or a comma-separated list of {names}");
                    return Err(format!("no reduction {name:?}: expected {expected}"));
                }
            }
        }
        Ok(reductions)
    }
}

/// Hashes `state` as its class under the reductions other than symmetry
/// (the counters, where `classes` makes them): what a search's fingerprint
/// of it is ([`crate::explore::Classed`]).
pub fn hash_class<S: Hash, L: Hash, H: Hasher>(
    state: &crate::world::WorldState<S, L>,
    classes: Classes,
    hasher: &mut H,
) {
    if classes.counters {
        hash_net_class(&state.net, classes, hasher);
    } else {
        state.net.hash(hasher);
    }
    state.processes.hash(hasher);
    state.dead_sessions.hash(hasher);
    state.spent.hash(hasher);
    state.history.hash(hasher);
}

/// Hashes `net` as its class under [`Reductions::counters`]: the server
/// exactly, each client's library and link with its seen zxids at their
/// floors and its xids below its next one, and the next xids, or with
/// [`Classes::xid_sum`] their sum.
pub fn hash_net_class<H: Hasher>(net: &Net, classes: Classes, state: &mut H) {
    net.store.hash(state);
    let mut requests_sent = 0u64;
    for (client, link) in net.clients.iter().zip(&net.links) {
        requests_sent += u64::from(client.next_xid());
        if !classes.xid_sum {
            client.next_xid().hash(state);
        }
        hash_client_class(&net.store, client, link, state);
    }
    requests_sent.hash(state);
}

fn hash_client_class<H: Hasher>(store: &Store, client: &Client, link: &Link, state: &mut H) {
    let next = client.next_xid();
    let hash_requests = |requests: &mut dyn ExactSizeIterator<Item = &Request>, state: &mut H| {
        requests.len().hash(state);
        for request in requests {
            next.wrapping_sub(request.xid).hash(state);
            request.op.hash(state);
        }
    };
    client.session().hash(state);
    client.state().hash(state);
    hash_requests(&mut client.in_flight(), state);
    hash_requests(&mut client.queued(), state);
    client.watches().hash(state);
    let mut seen = Floors::watched(store, client.watches());
    seen.floor(client.last_zxid()).hash(state);

    link.broken.hash(state);
    hash_requests(&mut link.up.iter(), state);
    // The replies on the link answer the oldest requests in flight, in order.
    let mut answered = client.in_flight();
    link.down.len().hash(state);
    for message in &link.down {
        match message {
            ServerMessage::Reply { xid, zxid, result } => {
                if let Some(request) = answered.next() {
                    seen.add_watched_by(store, &request.op);
                }
                0u8.hash(state);
                next.wrapping_sub(*xid).hash(state);
                seen.floor(*zxid).hash(state);
                result.hash(state);
            }
            ServerMessage::Notification(event) => {
                1u8.hash(state);
                event.hash(state);
            }
        }
    }
}

/// The node zxids a client's seen zxids are compared with, and the floor
/// of a zxid among them.
struct Floors(Vec<Zxid>);

impl Floors {
    /// The `mzxid` of each existing node `watches` has a data watch on,
    /// and the `pzxid` of each it has a child watch on.
    fn watched(store: &Store, watches: &Watches) -> Floors {
        let mut floors = Floors(Vec::new());
        for path in &watches.data {
            floors
                .0
                .extend(store.change_zxids(path).map(|(mzxid, _)| mzxid));
        }
        for path in &watches.child {
            floors
                .0
                .extend(store.change_zxids(path).map(|(_, pzxid)| pzxid));
        }
        floors
    }

    /// Adds the zxids of the node a read with a watch will watch once its
    /// reply is read (both, whichever table it lands in).
    fn add_watched_by(&mut self, store: &Store, op: &Op) {
        if let Op::Exists { path, watch: true }
        | Op::GetData { path, watch: true }
        | Op::GetChildren { path, watch: true } = op
        {
            if let Some((mzxid, pzxid)) = store.change_zxids(path) {
                self.0.extend([mzxid, pzxid]);
            }
        }
    }

    /// The highest of the zxids at or below `zxid`, 0 if none.
    fn floor(&self, zxid: Zxid) -> Zxid {
        (self.0.iter().copied())
            .filter(|&watched| watched <= zxid)
            .max()
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reductions_read_by_name() {
        assert_eq!("all".parse(), Ok(Reductions::ALL));
        assert_eq!("none".parse(), Ok(Reductions::NONE));
        assert_eq!(
            " counters , symmetry,partial-order".parse(),
            Ok(Reductions::ALL)
        );
        let counters = Reductions {
            counters: true,
            ..Reductions::NONE
        };
        assert_eq!("counters".parse(), Ok(counters));
        assert_eq!(counters.words(), "counters");
        assert_eq!(Reductions::ALL.words(), "counters,symmetry,partial-order");
        assert_eq!(Reductions::NONE.words(), "none");
        let error = "counters,symetry".parse::<Reductions>().unwrap_err();
        assert_eq!(
            error,
            "no reduction \"symetry\": expected all, none, or a comma-separated list of \
             counters, symmetry, partial-order"
        );
    }

    #[test]
    fn a_floor_is_the_highest_watched_zxid_at_or_below() {
        let floors = Floors(vec![7, 3, 12]);
        let floor = |zxid| floors.floor(zxid);
        assert_eq!(
            [0, 2, 3, 6, 7, 11, 12, 40].map(floor),
            [0, 0, 3, 3, 7, 7, 12, 12]
        );
        assert_eq!(Floors(Vec::new()).floor(9), 0);
    }
}
