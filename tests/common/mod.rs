//! What both conformance suites need to talk to a real server through the
//! `zookeeper-client` crate: its one-shot watchers, kept until they fire, and
//! its events and errors in ZooKeeper's words.

use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use zoocheck::conformance::Normalizer;
use zoocheck::store::EventType;
use zookeeper_client as zk;

type EventFuture = Pin<Box<dyn Future<Output = zk::WatchedEvent> + Send>>;

/// A watcher that has not fired yet, or a persistent one (`addWatch`),
/// which never goes. It is kept until it fires: dropping an unfired watcher
/// makes the crate remove the watch on the server.
pub enum PendingWatch {
    Oneshot(EventFuture),
    Persistent(zk::PersistentWatcher),
}

impl PendingWatch {
    pub fn new(watcher: zk::OneshotWatcher) -> PendingWatch {
        PendingWatch::Oneshot(Box::pin(watcher.changed()))
    }

    /// Every event that has come (without waiting), and whether the
    /// watcher stays: a one-shot watcher goes with its event.
    pub fn fired(&mut self) -> (Vec<zk::WatchedEvent>, bool) {
        let mut context = Context::from_waker(Waker::noop());
        match self {
            PendingWatch::Oneshot(future) => match future.as_mut().poll(&mut context) {
                Poll::Ready(event) => (vec![event], false),
                Poll::Pending => (Vec::new(), true),
            },
            PendingWatch::Persistent(watcher) => {
                let mut events = Vec::new();
                // A receive that is not ready yet is dropped: the crate's
                // channel keeps what comes later for the next one.
                while let Poll::Ready(event) =
                    Box::pin(watcher.changed()).as_mut().poll(&mut context)
                {
                    // Its session is over: it hears nothing more (and may
                    // not be asked again).
                    let over = event_kind(event.event_type).is_none()
                        && event.session_state.is_terminated();
                    events.push(event);
                    if over {
                        return (events, false);
                    }
                }
                (events, true)
            }
        }
    }
}

/// A node event's kind; `None` for a session event (a closed or expired
/// session's watchers fire with one).
pub fn event_kind(kind: zk::EventType) -> Option<EventType> {
    match kind {
        zk::EventType::NodeCreated => Some(EventType::NodeCreated),
        zk::EventType::NodeDeleted => Some(EventType::NodeDeleted),
        zk::EventType::NodeDataChanged => Some(EventType::NodeDataChanged),
        zk::EventType::NodeChildrenChanged => Some(EventType::NodeChildrenChanged),
        _ => None,
    }
}

/// Every watcher in `watches` that has fired, as normalised node events; the
/// fired ones are removed, the rest kept.
pub fn take_fired(norm: &Normalizer, watches: &mut Vec<PendingWatch>) -> BTreeSet<String> {
    let mut events = BTreeSet::new();
    watches.retain_mut(|watch| {
        let (fired, stays) = watch.fired();
        for event in fired {
            if let Some(kind) = event_kind(event.event_type) {
                events.insert(norm.event(kind, &event.path));
            }
        }
        stays
    });
    events
}

/// The server's name and number for an error it sent; `None` for the crate's
/// own errors (a closed client, an io error).
pub fn code(error: &zk::Error) -> Option<(&'static str, i32)> {
    Some(match error {
        zk::Error::NoNode => ("NONODE", -101),
        zk::Error::NodeExists => ("NODEEXISTS", -110),
        zk::Error::BadVersion => ("BADVERSION", -103),
        zk::Error::NotEmpty => ("NOTEMPTY", -111),
        zk::Error::NoChildrenForEphemerals => ("NOCHILDRENFOREPHEMERALS", -108),
        zk::Error::BadArguments(_) => ("BADARGUMENTS", -8),
        zk::Error::SessionExpired => ("SESSIONEXPIRED", -112),
        zk::Error::ConnectionLoss => ("CONNECTIONLOSS", -4),
        zk::Error::RuntimeInconsistent => ("RUNTIMEINCONSISTENCY", -2),
        _ => return None,
    })
}

/// The server to compare with, from `ZOOCHECK_ZK`. Without one, says in one
/// line that `suite` was skipped (it never passes silently).
pub fn server_or_skip(suite: &str) -> Option<String> {
    let address = std::env::var("ZOOCHECK_ZK").ok();
    if address.is_none() {
        println!(
            "{suite}: skipped: no ZooKeeper to compare with (set ZOOCHECK_ZK=127.0.0.1:PORT; \
             scripts/zk-server starts one)"
        );
    }
    address
}

/// A whole number from the environment variable `name`, or `default` when it
/// is not set.
pub fn env_number(name: &str, default: u64) -> Result<u64, String> {
    match std::env::var(name) {
        Err(_) => Ok(default),
        Ok(text) => text
            .parse()
            .map_err(|_| format!("{name}={text:?}: expected a whole number")),
    }
}

/// The single-threaded runtime both suites drive the crate with.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}
