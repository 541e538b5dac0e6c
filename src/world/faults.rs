//! Faults: what the checker may make go wrong, each within the budget the
//! scenario sets.
//!
//! Timing is modelled by preconditions, not clocks. Every kind of fault is
//! declared once, in [`DECLARATIONS`]: its name in scenario files, what it
//! does in one line, when it may strike, which of the client's requests in
//! flight the server may have received when it does, its effect on the
//! server and the links, its effect on the process, and its words in traces.
//! The scenario parser, `list`, `new`, traces, coverage and the tests all
//! read that table; adding a kind is adding a [`Kind`] and its declaration
//! (the compiler counts them).
//!
//! A scenario gives budgets of two sorts: a number of faults of a kind at
//! any client (`[faults] pause = 1`), and faults aimed at one client or at
//! whoever plays a role when it strikes (`[[fault]] kind = "pause", target =
//! "holder"`). Each aimed fault has its own count; the precondition of an
//! aimed fault includes its target.

use std::ops::RangeInclusive;

use serde::{Deserialize, Serialize};

use crate::client::ConnState;
use crate::net::{Net, Served};
use crate::recipe::ClientId;
use crate::store::Notification;
use crate::world::{Status, WorldState};

/// The kinds of fault, in the order scenario files, `list` and traces give
/// them. Each has its [`Declaration`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Crash,
    Restart,
    Pause,
    Disconnect,
    Expire,
    LoseReply,
    Abandon,
    Move,
}

/// How many kinds there are.
pub const KINDS: usize = DECLARATIONS.len();

impl Kind {
    pub const ALL: [Kind; KINDS] = [
        Kind::Crash,
        Kind::Restart,
        Kind::Pause,
        Kind::Disconnect,
        Kind::Expire,
        Kind::LoseReply,
        Kind::Abandon,
        Kind::Move,
    ];

    pub fn declaration(self) -> &'static Declaration {
        &DECLARATIONS[self as usize]
    }

    /// Its name in scenario files: `lose_reply`.
    pub fn name(self) -> &'static str {
        self.declaration().name
    }

    /// The kind scenario files call `name`.
    pub fn named(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|kind| kind.name() == name)
    }

    /// Every kind's name, in order.
    pub fn names() -> [&'static str; KINDS] {
        Kind::ALL.map(Kind::name)
    }
}

/// What a fault's precondition sees of the client it would hit.
#[derive(Clone, Copy, Debug)]
pub struct Situation {
    pub status: Status,
    /// Connected, and the connection is not broken.
    pub connected: bool,
    /// Its client library has noticed that it is disconnected.
    pub knows_disconnected: bool,
    /// Its session is alive on the server.
    pub session_alive: bool,
    /// Requests sent and not yet received by the server.
    pub in_flight: u8,
    /// The scenario lets the server expire a session whatever its client
    /// does (clocks that disagree).
    pub expire_anytime: bool,
    /// Servers in the ensemble (1: a standalone server).
    pub servers: u8,
    /// Its server holds its requests in flight ([`crate::net::Net::held`]).
    /// Only on an ensemble.
    pub held: bool,
}

impl Situation {
    pub fn of<S, L>(state: &WorldState<S, L>, client: ClientId, expire_anytime: bool) -> Situation {
        let library = state.net.client(client).state();
        let link = &state.net.links[client];
        Situation {
            status: state.processes[client].status,
            connected: library == ConnState::Connected && !link.broken,
            knows_disconnected: library == ConnState::Disconnected,
            session_alive: state.net.store.is_alive(state.net.session(client)),
            in_flight: link.up.len() as u8,
            expire_anytime,
            servers: state.net.ensemble.servers() as u8,
            held: state.net.held(client),
        }
    }

    fn alive(&self) -> bool {
        self.status != Status::Crashed
    }

    /// How many of its requests in flight the server may take before the
    /// connection breaks: none while it holds them.
    fn receivable(&self) -> u8 {
        match self.held {
            true => 0,
            false => self.in_flight,
        }
    }
}

/// What a fault does to the client's process, besides the server and the
/// links ([`Declaration::strike`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Nothing: it goes on, and learns what happened from its connection.
    Lives,
    /// It stops taking steps until it resumes.
    Pauses,
    /// It dies and forgets everything; its session lives on until the
    /// server expires it.
    Dies,
    /// A new process with no memory and a new session takes its place, its
    /// script from the start.
    Restarts,
    /// Its client library gives up the session: the recipe hears `Expired`
    /// (each queued request `SESSIONEXPIRED`), while the server keeps the
    /// session and its ephemerals until it times out.
    LosesSession,
}

/// A fault's words in a trace, given what the state it hits adds.
#[derive(Clone, Debug, Default)]
pub struct Hit {
    pub client: ClientId,
    pub applied: u8,
    /// The client was paused when it struck.
    pub paused: bool,
    /// The request the server applies first, in words, if any.
    pub next_request: Option<String>,
    /// The server a moved connection goes to, if known.
    pub to_server: Option<usize>,
}

/// What a fault did at the server: the client's requests it applied, and
/// the notifications the fault itself fired (an expiry's).
pub type Struck = (Vec<Served>, Vec<Notification>);

/// Everything about one kind of fault.
pub struct Declaration {
    pub kind: Kind,
    /// Its key in a scenario's `[faults]` and its `kind` in a `[[fault]]`.
    pub name: &'static str,
    /// What it does, in one line (`list`, `new`).
    pub meaning: &'static str,
    /// Whether it may strike a client in this situation (besides its budget
    /// and its target).
    pub when: fn(&Situation) -> bool,
    /// How many of the client's requests in flight the server may have
    /// received (and applied) when it strikes: the checker explores each.
    pub received: fn(&Situation) -> RangeInclusive<u8>,
    /// Its effect on the server and the links: what the server applied of
    /// the client's requests, and the notifications the fault fired.
    pub strike: fn(&mut Net, ClientId, u8) -> Struck,
    pub fate: Fate,
    /// The fault in words (a trace's step, the explorer's list).
    pub words: fn(&Hit) -> String,
}

/// Every kind's declaration, in [`Kind`]'s order.
pub const DECLARATIONS: [Declaration; 8] = [
    // The process dies. Its connection drops after the server received the
    // first `applied` of its requests in flight (every count is explored),
    // and its session lives on until the server expires it (the world's
    // `SessionTimeout`).
    Declaration {
        kind: Kind::Crash,
        name: "crash",
        meaning: "the process dies; its session lives until the server expires it",
        when: |at| at.alive(),
        received: |at| 0..=at.receivable(),
        strike: |net, client, applied| {
            let served = net.break_connection(client, usize::from(applied));
            net.forget_link(client);
            (served, Vec::new())
        },
        fate: Fate::Dies,
        words: |hit| {
            format!(
                "c{} crashes (the server received {} of its requests in flight)",
                hit.client, hit.applied
            )
        },
    },
    // A new process for a crashed client: same client, no memory, a new
    // session.
    Declaration {
        kind: Kind::Restart,
        name: "restart",
        meaning: "a crashed client comes back: a new process with a new session",
        when: |at| at.status == Status::Crashed,
        received: |_| 0..=0,
        strike: |net, client, _| {
            net.open_session(client);
            (Vec::new(), Vec::new())
        },
        fate: Fate::Restarts,
        words: |hit| format!("c{} restarts with a new session", hit.client),
    },
    // A long garbage collection: the process takes no step until it
    // resumes; the server and the other clients go on.
    Declaration {
        kind: Kind::Pause,
        name: "pause",
        meaning: "a long pause (a GC): the process takes no step until it resumes",
        when: |at| at.status == Status::Running,
        received: |_| 0..=0,
        strike: |_, _, _| (Vec::new(), Vec::new()),
        fate: Fate::Pauses,
        words: |hit| format!("c{} pauses", hit.client),
    },
    // The connection drops: the server received the first `applied`
    // requests in flight (every count is explored) and applied them; their
    // replies and all else unread are lost. The client notices at its next
    // delivery (`CONNECTIONLOSS` for each request, then `Disconnected`),
    // then reconnects, or learns its session expired.
    Declaration {
        kind: Kind::Disconnect,
        name: "disconnect",
        meaning: "the connection drops, its requests in flight applied or not",
        when: |at| at.alive() && at.connected,
        received: |at| 0..=at.receivable(),
        strike: |net, client, applied| {
            (
                net.break_connection(client, usize::from(applied)),
                Vec::new(),
            )
        },
        fate: Fate::Lives,
        words: |hit| {
            format!(
                "c{}'s connection drops (the server received {} of its requests in flight)",
                hit.client, hit.applied
            )
        },
    },
    // The server expires the session: its ephemerals are deleted, its
    // watchers notified, its connection closed. Only while its client is
    // disconnected (and knows it) or paused, since a live connected client
    // keeps its session alive; with `expire_anytime`, at any time.
    Declaration {
        kind: Kind::Expire,
        name: "expire",
        meaning: "the server expires a disconnected or paused client's session",
        when: |at| {
            at.alive()
                && at.session_alive
                && (at.status == Status::Paused || at.knows_disconnected || at.expire_anytime)
        },
        received: |_| 0..=0,
        strike: |net, client, _| (Vec::new(), net.expire(client)),
        fate: Fate::Lives,
        words: |hit| {
            let paused = if hit.paused {
                " while it is paused"
            } else {
                ""
            };
            format!("the server expires c{}'s session{paused}", hit.client)
        },
    },
    // The server applies the client's oldest request in flight and the
    // reply is lost with the connection: the client sees `CONNECTIONLOSS`,
    // then `Disconnected` (the seeds' lost create reply).
    Declaration {
        kind: Kind::LoseReply,
        name: "lose_reply",
        meaning: "the server applies a request and its reply is lost with the connection",
        when: |at| at.alive() && at.connected && at.receivable() > 0,
        received: |_| 1..=1,
        strike: |net, client, _| (net.break_connection(client, 1), Vec::new()),
        fate: Fate::Lives,
        words: |hit| match &hit.next_request {
            Some(request) => format!(
                "the server applies c{}'s {request} and the reply is lost with the connection",
                hit.client
            ),
            None => format!(
                "the server applies c{}'s next request and the reply is lost",
                hit.client
            ),
        },
    },
    // The client library, cut off for longer than it trusts its session,
    // declares it lost on its own clock before the server has expired it
    // (Curator's session-expiration handling, a Java client from 3.9.3 on):
    // the recipe hears `Expired`; the server keeps the session and its
    // ephemerals until it times out (the world's `SessionTimeout`). With
    // `[session] on_expiry = "renew"` the library then opens a new session.
    Declaration {
        kind: Kind::Abandon,
        name: "abandon",
        meaning: "the client library gives up its session while disconnected, before the server expires it",
        // The library's threads run with the process: a paused one decides
        // nothing until it resumes.
        when: |at| at.status == Status::Running && at.knows_disconnected && at.session_alive,
        received: |_| 0..=0,
        strike: |_, _, _| (Vec::new(), Vec::new()),
        fate: Fate::LosesSession,
        words: |hit| {
            format!(
                "c{}'s client library gives up its session (the server still has it)",
                hit.client
            )
        },
    },
    // In an ensemble, a client library that knows it is cut off connects
    // next to another server of its list (every other server is explored,
    // `applied` counting servers on from its own). The server it left
    // finishes what it had of the session's for nobody; the new one takes
    // the client once it has applied everything the client has seen.
    Declaration {
        kind: Kind::Move,
        name: "move",
        meaning: "in an ensemble, a disconnected client's library connects next to another server",
        // The library's threads run with the process, as for `abandon`.
        when: |at| at.status == Status::Running && at.knows_disconnected && at.servers > 1,
        received: |at| 1..=at.servers.saturating_sub(1),
        strike: |net, client, offset| {
            net.move_client(client, usize::from(offset));
            (Vec::new(), Vec::new())
        },
        fate: Fate::Lives,
        words: |hit| match hit.to_server {
            Some(server) => format!(
                "c{}'s client library turns to server {server} to reconnect",
                hit.client
            ),
            None => format!(
                "c{}'s client library turns to the server {} on from its own to reconnect",
                hit.client, hit.applied
            ),
        },
    },
];

/// Whom an aimed fault may hit.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// One client, whatever it does.
    Client(ClientId),
    /// Whoever plays this role when the fault strikes: an index into the
    /// world's targets ([`crate::world::World::parts`]), with its name.
    Role { index: u8, name: &'static str },
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Client(client) => write!(f, "c{client}"),
            Target::Role { name, .. } => write!(f, "the {name}"),
        }
    }
}

/// A fault a scenario aims, and how many times it may strike.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Aimed {
    pub kind: Kind,
    pub target: Target,
    pub count: u8,
}

/// The most aimed faults a scenario may give.
pub const AIMED_MAX: usize = 4;

/// The faults a scenario allows: so many of each kind at any client, and
/// the aimed ones.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FaultBudget {
    /// By [`Kind`]: how many may strike any client.
    pub any: [u8; KINDS],
    pub aimed: Vec<Aimed>,
}

impl FaultBudget {
    /// A budget of `count` faults of `kind` at any client.
    pub fn of(kind: Kind, count: u8) -> FaultBudget {
        FaultBudget::default().with(kind, count)
    }

    /// This budget with `count` faults of `kind` at any client.
    pub fn with(mut self, kind: Kind, count: u8) -> FaultBudget {
        self.any[kind as usize] = count;
        self
    }

    /// This budget with `count` faults of `kind` aimed at `target`.
    pub fn aim(mut self, kind: Kind, target: Target, count: u8) -> FaultBudget {
        self.aimed.push(Aimed {
            kind,
            target,
            count,
        });
        self
    }

    /// How many faults of `kind` may strike in all, at any client or aimed.
    pub fn total(&self, kind: Kind) -> u8 {
        let aimed: u8 = self
            .aimed
            .iter()
            .filter(|aimed| aimed.kind == kind)
            .map(|aimed| aimed.count)
            .sum();
        self.any[kind as usize] + aimed
    }

    /// Each kind with faults allowed, in [`Kind`]'s order, with its total.
    pub fn kinds(&self) -> impl Iterator<Item = (Kind, u8)> + '_ {
        Kind::ALL
            .into_iter()
            .map(|kind| (kind, self.total(kind)))
            .filter(|(_, total)| *total > 0)
    }

    /// The budget in words, as a scenario's report gives it: `pause 1,
    /// expire 1 at the holder`.
    pub fn words(&self) -> Vec<String> {
        let any = Kind::ALL
            .into_iter()
            .filter(|kind| self.any[*kind as usize] > 0)
            .map(|kind| format!("{} {}", kind.name(), self.any[kind as usize]));
        let aimed = self
            .aimed
            .iter()
            .map(|aimed| format!("{} {} at {}", aimed.kind.name(), aimed.count, aimed.target));
        any.chain(aimed).collect()
    }
}

/// Which budget a fault is charged to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Charge {
    /// Its kind's budget at any client.
    Any,
    /// The aimed fault at this index of [`FaultBudget::aimed`].
    Aimed(u8),
}

/// The faults spent so far in a state, by budget.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Spent {
    pub any: [u8; KINDS],
    pub aimed: [u8; AIMED_MAX],
}

impl Spent {
    fn charge(&mut self, fault: &Fault) {
        match fault.charge {
            Charge::Any => self.any[fault.kind as usize] += 1,
            Charge::Aimed(index) => self.aimed[usize::from(index)] += 1,
        }
    }

    /// How many faults of `kind` struck, at any client or aimed.
    pub fn of(&self, kind: Kind, budget: &FaultBudget) -> u8 {
        let aimed: u8 = budget
            .aimed
            .iter()
            .zip(self.aimed)
            .filter(|(aimed, _)| aimed.kind == kind)
            .map(|(_, spent)| spent)
            .sum();
        self.any[kind as usize] + aimed
    }

    /// The kinds that struck, as bits by [`Kind`].
    pub fn kind_bits(&self, budget: &FaultBudget) -> u8 {
        Kind::ALL
            .into_iter()
            .filter(|kind| self.of(*kind, budget) > 0)
            .fold(0, |bits, kind| bits | 1 << kind as u8)
    }
}

/// A fault the checker may inject.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fault {
    pub kind: Kind,
    pub client: ClientId,
    /// How many of the client's requests in flight the server received
    /// ([`Declaration::received`]).
    pub applied: u8,
    pub charge: Charge,
}

impl Fault {
    /// A fault of `kind` at `client`, charged to the budget at any client,
    /// with the fewest requests received its kind allows (one for a lost
    /// reply, else none).
    pub fn new(kind: Kind, client: ClientId) -> Fault {
        let applied = u8::from(kind == Kind::LoseReply);
        Fault {
            kind,
            client,
            applied,
            charge: Charge::Any,
        }
    }

    /// This fault, the server having received `applied` requests in flight.
    pub fn applied(self, applied: u8) -> Fault {
        Fault { applied, ..self }
    }

    /// The fault in words, without the state it hits (the explorer's list
    /// of next steps); a trace says more ([`Fault::words_in`]).
    pub fn words(&self) -> String {
        (self.kind.declaration().words)(&Hit {
            client: self.client,
            applied: self.applied,
            ..Hit::default()
        })
    }

    /// The fault in words, with what `before`, the state it hits, adds
    /// (whether the expired client was paused, which request's reply is lost).
    pub fn words_in<S, L>(&self, before: &WorldState<S, L>) -> String {
        let next_request = before.net.links[self.client]
            .up
            .front()
            .map(|request| crate::store::words::op(&request.op));
        (self.kind.declaration().words)(&Hit {
            client: self.client,
            applied: self.applied,
            paused: before.processes[self.client].status == Status::Paused,
            next_request,
            to_server: (self.kind == Kind::Move).then(|| {
                let servers = before.net.ensemble.servers();
                (before.net.server(self.client) + usize::from(self.applied)) % servers
            }),
        })
    }

    /// Charges the fault to its budget and strikes: what the server applied
    /// of the client's requests and the notifications it fired, for the
    /// world to record. The process's [`Fate`] is the world's to apply.
    pub(crate) fn strike<S, L>(&self, state: &mut WorldState<S, L>) -> Struck {
        state.spent.charge(self);
        (self.kind.declaration().strike)(&mut state.net, self.client, self.applied)
    }
}

/// Appends every fault whose precondition holds, whose budget is not spent
/// and whose target (for an aimed one) the client is: `targeted(client,
/// index)` says whether `client` plays the role of that index now.
pub fn enabled<S, L>(
    budget: &FaultBudget,
    expire_anytime: bool,
    state: &WorldState<S, L>,
    targeted: impl Fn(ClientId, u8) -> bool,
    out: &mut Vec<crate::world::Action>,
) {
    for client in 0..state.processes.len() {
        let at = Situation::of(state, client, expire_anytime);
        for declaration in &DECLARATIONS {
            let kind = declaration.kind;
            if !(declaration.when)(&at) {
                continue;
            }
            // Each budget that can pay for it, at any client first: the
            // checker's order, with no allocation on its hot path.
            let any = state.spent.any[kind as usize] < budget.any[kind as usize];
            let aimed = budget.aimed.iter().enumerate().filter(|(index, aimed)| {
                let aimed_here = match aimed.target {
                    Target::Client(target) => target == client,
                    Target::Role { index, .. } => targeted(client, index),
                };
                aimed.kind == kind && aimed_here && state.spent.aimed[*index] < aimed.count
            });
            let charges = (any.then_some(Charge::Any).into_iter())
                .chain(aimed.map(|(index, _)| Charge::Aimed(index as u8)));
            for charge in charges {
                for applied in (declaration.received)(&at) {
                    out.push(crate::world::Action::Fault(Fault {
                        kind,
                        client,
                        applied,
                        charge,
                    }));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Kind, Situation, Status, DECLARATIONS};

    /// A kind's declaration is found by its position: the two lists agree.
    #[test]
    fn each_kind_is_declared_in_its_own_place() {
        for kind in Kind::ALL {
            assert_eq!(kind.declaration().kind, kind);
            assert_eq!(Kind::named(kind.name()), Some(kind));
        }
        assert_eq!(DECLARATIONS.len(), Kind::ALL.len());
    }

    /// A library gives its session up only while it knows it is cut off,
    /// runs, and the server still has the session.
    #[test]
    fn abandon_needs_a_running_library_that_knows_it_is_disconnected() {
        let cut_off = Situation {
            status: Status::Running,
            connected: false,
            knows_disconnected: true,
            session_alive: true,
            in_flight: 0,
            expire_anytime: false,
            servers: 1,
            held: false,
        };
        let when = Kind::Abandon.declaration().when;
        assert!(when(&cut_off));
        for other in [
            Situation {
                status: Status::Paused,
                ..cut_off
            },
            Situation {
                status: Status::Crashed,
                ..cut_off
            },
            Situation {
                connected: true,
                knows_disconnected: false,
                ..cut_off
            },
            Situation {
                session_alive: false,
                ..cut_off
            },
        ] {
            assert!(!when(&other), "{other:?}");
        }
    }
}
