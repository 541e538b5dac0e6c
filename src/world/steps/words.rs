//! What the steps' words share: what a client's recipe did in a step, what a
//! server's step deleted and woke, how a trace names a message and a server.

use std::fmt::Write as _;

use crate::client::{Request, ServerMessage, Xid};
use crate::recipe::{ClientId, Log, Observation, Recipe};
use crate::store::words::{op, result};
use crate::world::WorldState;

pub(crate) fn message(message: &ServerMessage) -> String {
    match message {
        ServerMessage::Reply { result: r, .. } => format!("reply {}", result(r)),
        ServerMessage::Notification(event) => format!("event {} {}", event.kind.name(), event.path),
    }
}

/// The requests client `c` issued in this step (sent or queued).
pub(crate) fn sent<S, L>(
    before: &WorldState<S, L>,
    after: &WorldState<S, L>,
    c: usize,
) -> Vec<Request> {
    let pending = |state: &WorldState<S, L>| {
        let client = state.net.client(c);
        client
            .in_flight()
            .chain(client.queued())
            .cloned()
            .collect::<Vec<_>>()
    };
    let known: Vec<Xid> = pending(before).iter().map(|request| request.xid).collect();
    pending(after)
        .into_iter()
        .filter(|request| !known.contains(&request.xid))
        .collect()
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
    let facts: Vec<&R::Fact> = (observed.iter())
        .filter_map(|(client, seen)| match seen {
            Observation::Fact(fact) if *client == c => Some(fact),
            _ => None,
        })
        .collect();
    out.push_str(&after.history.log.tell(&before.history.log, c, &facts));
    out
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
