//! What the steps' words share: what a client's recipe did in a step, what a
//! server's step deleted and woke, how a trace names a message and a server.

use std::fmt::Write as _;

use crate::client::{Request, ServerMessage, Xid};
use crate::recipe::{ClientId, Log, Observation, Recipe};
use crate::store::words::{op, result};
use crate::store::SessionId;
use crate::world::Status;
use crate::world::WorldState;

pub(crate) fn message(message: &ServerMessage) -> String {
    match message {
        ServerMessage::Reply { result: r, .. } => format!("reply {}", result(r)),
        ServerMessage::Notification(event) => format!("event {} {}", event.kind.name(), event.path),
    }
}

/// The requests client `c` has pending in `state`: in flight, then queued.
fn pending<S, L>(state: &WorldState<S, L>, c: usize) -> Vec<Request> {
    let client = state.net.client(c);
    (client.in_flight().chain(client.queued()))
        .cloned()
        .collect()
}

/// The requests client `c` issued in this step (sent or queued).
pub(crate) fn sent<S, L>(
    before: &WorldState<S, L>,
    after: &WorldState<S, L>,
    c: usize,
) -> Vec<Request> {
    let known: Vec<Xid> = pending(before, c)
        .iter()
        .map(|request| request.xid)
        .collect();
    (pending(after, c).into_iter())
        .filter(|request| !known.contains(&request.xid))
        .collect()
}

/// The requests client `c` had pending before a step and not after it:
/// those the step ended.
pub(crate) fn ended<S, L>(
    before: &WorldState<S, L>,
    after: &WorldState<S, L>,
    c: usize,
) -> Vec<Request> {
    let left: Vec<Xid> = pending(after, c)
        .iter()
        .map(|request| request.xid)
        .collect();
    (pending(before, c).into_iter())
        .filter(|request| !left.contains(&request.xid))
        .collect()
}

/// Each of `requests` ending with the error `code`, in the order the client
/// library hands the recipe these replies: `CONNECTIONLOSS for create
/// /lock/c0-lock-, getChildren /lock`; `None` when none was pending.
pub(crate) fn failed(code: &str, requests: &[Request]) -> Option<String> {
    let ops: Vec<String> = requests.iter().map(|request| op(&request.op)).collect();
    (!ops.is_empty()).then(|| format!("{code} for {}", ops.join(", ")))
}

/// What the client library hands the recipe when its session is gone:
/// `Expired`, then `SESSIONEXPIRED` for each request it had pending
/// ([`crate::client::Client::expired`]).
pub(crate) fn expired<S, L>(
    before: &WorldState<S, L>,
    after: &WorldState<S, L>,
    c: usize,
) -> String {
    match failed("SESSIONEXPIRED", &ended(before, after, c)) {
        Some(failed) => format!("Expired, then {failed}"),
        None => "Expired".to_string(),
    }
}

/// What the application was told of what it held or waited for, as the
/// recipe observed it in this step: why it no longer believes it holds
/// what it held, or that its call returned unsuccessfully.
fn told<F>(observed: &[(ClientId, Observation<F>)], c: ClientId) -> Option<&'static str> {
    observed.iter().rev().find_map(|(client, seen)| match seen {
        _ if *client != c => None,
        Observation::Released => Some("released it"),
        Observation::Suspended => Some("suspended: disconnected, it may have lost it"),
        Observation::Lost => Some("lost it: its session is gone"),
        _ => None,
    })
}

/// What changed for client `c`'s recipe, and what it sent and believes.
pub(crate) fn reaction<R: Recipe>(
    before: &WorldState<R::State, R::Log>,
    after: &WorldState<R::State, R::Log>,
    c: usize,
    observed: &[(ClientId, Observation<R::Fact>)],
) -> String {
    let mut out = String::new();
    let requests: Vec<String> = sent(before, after, c)
        .iter()
        .map(|request| op(&request.op))
        .collect();
    if !requests.is_empty() {
        let _ = write!(out, "; sends {}", requests.join(", "));
    }
    if before.processes[c].recipe != after.processes[c].recipe {
        let _ = write!(out, "; now {}", after.processes[c].recipe);
    }
    let (was, is) = (before.history.holding[c], after.history.holding[c]);
    if was != is {
        match (was, is) {
            (_, Some(tenure)) => {
                let (verb, object) = tenure.role.words();
                let words = format!("{} {object}", verb.to_uppercase());
                let _ = write!(
                    out,
                    "; BELIEVES IT {} (token {})",
                    words.trim(),
                    tenure.token
                );
            }
            (Some(tenure), None) => {
                let (verb, object) = tenure.role.words();
                let words = format!("{verb} {object}");
                let _ = write!(out, "; no longer believes it {}", words.trim());
                if let Some(why) = told(observed, c) {
                    let _ = write!(out, " ({why})");
                }
            }
            (None, None) => {}
        }
    }
    if before.history.resource != after.history.resource {
        let resource = after.history.resource;
        let _ = write!(out, "; the resource accepts its write");
        if resource.interleaved && !before.history.resource.interleaved {
            out.push_str(" AFTER A NEWER HOLDER'S");
        }
    }
    let gave_up =
        (observed.iter()).any(|(client, seen)| *client == c && matches!(seen, Observation::GaveUp));
    if gave_up {
        out.push_str("; gives up: its waiting call returns unsuccessfully");
    }
    let facts: Vec<&R::Fact> = (observed.iter())
        .filter_map(|(client, seen)| match seen {
            Observation::Fact(fact) if *client == c => Some(fact),
            _ => None,
        })
        .collect();
    out.push_str(&after.history.log.tell(&before.history.log, c, &facts));
    out
}

/// What client `c` had not read when a step took its link away (a dropped
/// connection, a crash, a library giving up its session): `; lost unread:
/// event NodeDeleted /lock/c0-lock-0000000000`. A notification lost so is
/// gone for good unless the client still holds the watch and reconnects
/// (SetWatches fires it again, [`caught_up`]).
pub(crate) fn lost<S, L>(before: &WorldState<S, L>, after: &WorldState<S, L>, c: usize) -> String {
    let (was, is) = (&before.net.links[c].down, &after.net.links[c].down);
    if was.is_empty() || !is.is_empty() {
        return String::new();
    }
    let unread: Vec<String> = was.iter().map(message).collect();
    format!("; lost unread: {}", unread.join(", "))
}

/// The events the server fired for client `c` on answering its SetWatches
/// as it reconnected: changes to what it watched that it missed while it was
/// away (a notification lost with its connection among them). Read by
/// taking the reconnection again on a copy of the links before it.
pub(crate) fn caught_up<S, L>(before: &WorldState<S, L>, c: usize) -> Vec<String> {
    let mut net = before.net.clone();
    (net.reconnect(c).into_iter())
        .filter_map(|delivery| match delivery {
            crate::client::Delivery::Watch(event) => {
                Some(format!("event {} {}", event.kind.name(), event.path))
            }
            _ => None,
        })
        .collect()
}

/// Who a fault or a server action woke, and what it deleted.
pub(crate) fn fired<S, L: Log>(before: &WorldState<S, L>, after: &WorldState<S, L>) -> String {
    let mut out = String::new();
    let gone: Vec<String> = before
        .net
        .store
        .paths()
        .filter(|path| !after.net.store.exists(path))
        .map(|path| path.to_string())
        .collect();
    if !gone.is_empty() {
        let _ = write!(out, "; deleted {}", gone.join(", "));
    }
    out.push_str(&after.history.log.tell_served(&before.history.log));
    if after.history.herd && !before.history.herd {
        out.push_str("; ONE DELETION WOKE SEVERAL WAITERS");
    }
    if after.history.resource.unheld && !before.history.resource.unheld {
        out.push_str("; THE RESOURCE TAKES A WRITE UNDER A LOCK NODE THAT IS NOT THE FIRST");
    }
    out
}

/// The server client `c` is connected to, as a trace names it: `server`
/// on one server, `server 2` in an ensemble (`server 0` is the leader).
pub(crate) fn server_name(net: &crate::net::Net, c: ClientId) -> String {
    match net.ensemble.servers() {
        1 => "server".into(),
        _ => format!("server {}", net.server(c)),
    }
}

/// How a session came to be left with no client holding it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Left {
    /// Its process crashed (and may have restarted since, with a new one).
    Crashed,
    /// Its client library gave it up, while the server still had it, and
    /// may have opened a new one since.
    GaveUp,
}

/// Whose session `session` was, as far as `run` (the states of a path in
/// order) shows, and how it was left: `None` if no client held it in the
/// run, or one still does.
pub(crate) fn left_by<S, L>(
    run: &[WorldState<S, L>],
    session: SessionId,
) -> Option<(ClientId, Left)> {
    let last = run.last()?;
    (0..last.processes.len()).find_map(|c| {
        let held = run
            .iter()
            .rev()
            .find(|state| state.net.session(c) == session)?;
        if held.processes[c].status == Status::Crashed {
            Some((c, Left::Crashed))
        } else if held.net.client(c).state() == crate::client::ConnState::Expired
            && held.net.store.is_alive(session)
        {
            Some((c, Left::GaveUp))
        } else {
            None
        }
    })
}
