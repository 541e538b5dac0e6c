//! What a store did, written down while a replay asks for it: the one way the
//! store tells the outside world anything beyond its return values.
//!
//! `zoocheck replay TRACE --zk` replays a trace on the model and does each
//! thing the model's server did, in the same order, on a real ZooKeeper
//! ([`crate::real`]). The store writes an [`Entry`] for each of its
//! transitions while [`record`] runs on the same thread, and nothing
//! otherwise. It never reads what it wrote, so a journal cannot change what the
//! store does: the store stays a pure value, and the model checker, which
//! never records, pays one thread-local check per transition.

use std::cell::RefCell;

use super::{Applied, ErrorCode, Notification, Op, Path, SessionId, SetWatches, WatchEvent, Zxid};

/// One transition of the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// `createSession`.
    Opened { session: SessionId },
    /// A request served for `session`.
    Applied {
        session: SessionId,
        op: Op,
        applied: Applied,
    },
    /// The session's connection closed; the session lives on.
    Disconnected { session: SessionId },
    /// The session's client connected again and re-sent its watches.
    Reconnected {
        session: SessionId,
        watches: SetWatches,
        outcome: Result<Vec<WatchEvent>, ErrorCode>,
    },
    /// The server expired the session, in transaction `zxid`.
    Expired {
        session: SessionId,
        zxid: Zxid,
        notifications: Vec<Notification>,
    },
    /// The server deleted the empty container or TTL node `path`, in
    /// transaction `zxid`.
    Swept {
        path: Path,
        zxid: Zxid,
        notifications: Vec<Notification>,
    },
    /// The sequence counter under `path` was set to start at `next`.
    SequenceStarted { path: Path, next: i32 },
}

thread_local! {
    static JOURNAL: RefCell<Option<Vec<Entry>>> = const { RefCell::new(None) };
}

/// Runs `run`, answering what it returned and every entry the stores on this
/// thread wrote meanwhile, in order.
pub fn record<T>(run: impl FnOnce() -> T) -> (T, Vec<Entry>) {
    let outer = JOURNAL.with(|journal| journal.borrow_mut().replace(Vec::new()));
    let value = run();
    let entries = JOURNAL.with(|journal| {
        let mut journal = journal.borrow_mut();
        let entries = journal.take().unwrap_or_default();
        *journal = outer;
        entries
    });
    (value, entries)
}

/// Writes the entry `entry` makes, if a [`record`] is running.
pub(super) fn note(entry: impl FnOnce() -> Entry) {
    JOURNAL.with(|journal| {
        if let Some(entries) = journal.borrow_mut().as_mut() {
            entries.push(entry());
        }
    });
}

/// Runs `run` with no [`record`] running: a server's replica of a
/// transaction the leader's order already wrote down ([`crate::ensemble`]).
pub(crate) fn unrecorded<T>(run: impl FnOnce() -> T) -> T {
    let outer = JOURNAL.with(|journal| journal.borrow_mut().take());
    let value = run();
    JOURNAL.with(|journal| *journal.borrow_mut() = outer);
    value
}

/// [`unrecorded`] if `quiet`, else `run` as it is.
pub(crate) fn unrecorded_if<T>(quiet: bool, run: impl FnOnce() -> T) -> T {
    match quiet {
        true => unrecorded(run),
        false => run(),
    }
}
