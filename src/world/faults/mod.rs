//! Faults: what the checker may make go wrong, each within the budget the
//! scenario sets.
//!
//! Timing is modelled by preconditions, not clocks. Every kind of fault is
//! one file of this directory, a type implementing [`FaultKind`]: its name
//! in scenario files, what it does in one line, when it may strike, which of
//! the client's requests in flight the server may have received when it
//! does, its effect on the server and the links, its effect on the process,
//! its words in traces, the budgets a scenario may give it, and what the
//! reductions must know of it. Every answer is required: a kind that leaves
//! one out does not compile. One line of [`kinds!`] registers it; [`Kind`],
//! [`Kind::ALL`] and [`DECLARATIONS`] are made from that list, which the
//! scenario parser, `list`, `new`, traces, coverage, partial-order
//! reduction and the tests read.
//!
//! A scenario gives budgets of two sorts: a number of faults of a kind at
//! any client (`[faults] pause = 1`), and faults aimed at one client or at
//! whoever plays a role when it strikes (`[[fault]] kind = "pause", target =
//! "holder"`). Each aimed fault has its own count; the precondition of an
//! aimed fault includes its target.

use std::ops::{ControlFlow, RangeInclusive};

use serde::{Deserialize, Serialize};

use crate::client::ConnState;
use crate::net::{Net, Served};
use crate::recipe::ClientId;
use crate::store::Notification;
use crate::world::{Status, WorldState};

/// Registers each kind of fault, in the order scenario files, `list` and
/// traces give them: its variant of [`Kind`] and its file.
macro_rules! kinds {
    ($($kind:ident in $file:ident),* $(,)?) => {
        $(mod $file;)*

        /// The kinds of fault. Each has its [`Declaration`], made from its
        /// [`FaultKind`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum Kind {
            $($kind),*
        }

        /// How many kinds there are.
        pub const KINDS: usize = [$(Kind::$kind),*].len();

        impl Kind {
            pub const ALL: [Kind; KINDS] = [$(Kind::$kind),*];
        }

        /// Every kind's declaration, in [`Kind`]'s order.
        pub const DECLARATIONS: [Declaration; KINDS] =
            [$(Declaration::of::<$file::$kind>(Kind::$kind)),*];
    };
}

kinds! {
    Crash in crash,
    Restart in restart,
    Pause in pause,
    Disconnect in disconnect,
    Expire in expire,
    LoseReply in lose_reply,
    Abandon in abandon,
    Move in r#move,
    Wake in wake,
}

impl Kind {
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
    /// Its library gives its session up on its own clock
    /// ([`crate::client::Library::gives_up`]).
    pub gives_up: bool,
    /// A thread of it waits for an event ([`crate::recipe::Recipe::waits`]).
    pub waiting: bool,
}

impl Situation {
    pub fn of<S, L>(
        state: &WorldState<S, L>,
        client: ClientId,
        expire_anytime: bool,
        waiting: bool,
    ) -> Situation {
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
            gives_up: state.net.client(client).library().gives_up,
            waiting,
        }
    }

    pub fn alive(&self) -> bool {
        self.status != Status::Crashed
    }

    /// How many of its requests in flight the server may take before the
    /// connection breaks: none while it holds them.
    pub fn receivable(&self) -> u8 {
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
    /// Its waiting thread wakes with nothing to read
    /// ([`crate::recipe::Recipe::wake`]).
    Wakes,
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
    /// The server the client is connected to, and how many the ensemble
    /// has, if known.
    pub server: Option<(usize, usize)>,
}

/// What a fault did at the server: the client's requests it applied, and
/// the notifications the fault itself fired (an expiry's).
pub type Struck = (Vec<Served>, Vec<Notification>);

/// One kind of fault: a type of its own file, whose answers the compiler
/// makes complete.
pub trait FaultKind {
    /// Its key in a scenario's `[faults]` and its `kind` in a `[[fault]]`.
    const NAME: &'static str;
    /// What it does, in one line (`list`, `new`).
    const MEANING: &'static str;
    /// What becomes of the process it strikes.
    const FATE: Fate;
    /// Whether it can strike a client that runs and is connected, with its
    /// connection up: whether [`FaultKind::when`] holds in some such
    /// [`Situation`]. Partial-order reduction takes such a client's steps
    /// alone only where no fault that can strike it has budget left; a
    /// unit test checks the answer against `when` in every such situation.
    const STRIKES_THE_CONNECTED: bool;
    /// Whether it changes another client's process, link or session than the
    /// one it strikes (a server's crash would; an expiry's watch events are
    /// the store's). Partial-order reduction treats such a kind as striking
    /// every client.
    const REACHES_OTHERS: bool;
    /// Whether it may strike a client in this situation (besides its budget
    /// and its target).
    fn when(at: &Situation) -> bool;
    /// How many of the client's requests in flight the server may have
    /// received (and applied) when it strikes: the checker explores each.
    fn received(at: &Situation) -> RangeInclusive<u8>;
    /// Its effect on the server and the links: what the server applied of
    /// the client's requests, and the notifications the fault fired.
    fn strike(net: &mut Net, client: ClientId, applied: u8) -> Struck;
    /// The fault in words (a trace's step, the explorer's list).
    fn words(hit: &Hit) -> String;
    /// Whether a scenario may budget it (some of it, at any client or
    /// aimed) in the world `at` describes; if not, what is wrong.
    fn bounds(at: &Bounds) -> Result<(), String>;
}

/// What a kind's [`FaultKind::bounds`] sees of a scenario that budgets it.
#[derive(Clone, Copy, Debug)]
pub struct Bounds<'a> {
    pub budget: &'a FaultBudget,
    /// Servers in the ensemble (1: a standalone server).
    pub servers: u8,
    /// The recipe has a thread that waits for an event
    /// ([`crate::catalogued::Catalogued::WAITS`]).
    pub waits: bool,
    /// The recipes that have one, for the words of a refusal.
    pub waiting_recipes: &'a str,
}

/// Everything about one kind of fault, whatever its type: its
/// [`FaultKind`]'s answers, as the table [`DECLARATIONS`] holds them.
pub struct Declaration {
    pub kind: Kind,
    pub name: &'static str,
    pub meaning: &'static str,
    pub fate: Fate,
    pub strikes_the_connected: bool,
    pub reaches_others: bool,
    pub when: fn(&Situation) -> bool,
    pub received: fn(&Situation) -> RangeInclusive<u8>,
    pub strike: fn(&mut Net, ClientId, u8) -> Struck,
    pub words: fn(&Hit) -> String,
    pub bounds: fn(&Bounds) -> Result<(), String>,
}

impl Declaration {
    const fn of<F: FaultKind>(kind: Kind) -> Declaration {
        Declaration {
            kind,
            name: F::NAME,
            meaning: F::MEANING,
            fate: F::FATE,
            strikes_the_connected: F::STRIKES_THE_CONNECTED,
            reaches_others: F::REACHES_OTHERS,
            when: F::when,
            received: F::received,
            strike: F::strike,
            words: F::words,
            bounds: F::bounds,
        }
    }
}

/// What a kind's file needs.
mod prelude {
    pub use std::ops::RangeInclusive;

    pub use super::{Bounds, Fate, FaultKind, Hit, Kind, Situation, Struck};
    pub use crate::net::Net;
    pub use crate::recipe::ClientId;
    pub use crate::world::Status;
}

/// Whom an aimed fault may hit.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// One client, whatever it does.
    Client(ClientId),
    /// Whoever plays this role when the fault strikes: an index into the
    /// world's targets ([`crate::world::World::parts`]), with its name.
    Role { index: u8, name: &'static str },
    /// Whoever is in this phase of the recipe when the fault strikes
    /// ("while it holds", "while it lists"): a bit of
    /// [`crate::recipe::Recipe::phases`], with its name.
    Phase { bit: u8, name: &'static str },
}

impl Target {
    /// Its name as a scenario gives it: `c1` (`client = 1`), a part's
    /// (`target = "holder"`) or a phase's (`phase = "Held"`).
    pub fn key(&self) -> String {
        match self {
            Target::Client(client) => format!("c{client}"),
            Target::Role { name, .. } | Target::Phase { name, .. } => (*name).to_string(),
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Client(client) => write!(f, "c{client}"),
            Target::Role { name, .. } => write!(f, "the {name}"),
            Target::Phase { name, .. } => write!(f, "a client in phase {name}"),
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
    pub fn kind_bits(&self, budget: &FaultBudget) -> u16 {
        const _: () = assert!(KINDS <= 16, "a kind's bit must fit in kind_bits");
        Kind::ALL
            .into_iter()
            .filter(|kind| self.of(*kind, budget) > 0)
            .fold(0, |bits, kind| bits | 1 << kind as u16)
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
    /// with the fewest requests received its kind allows of one in flight on
    /// two servers (one for a lost reply or a move, else none).
    pub fn new(kind: Kind, client: ClientId) -> Fault {
        let one_in_flight = Situation {
            status: Status::Running,
            connected: true,
            knows_disconnected: false,
            session_alive: true,
            in_flight: 1,
            expire_anytime: false,
            servers: 2,
            held: false,
            gives_up: true,
            waiting: false,
        };
        let applied = *(kind.declaration().received)(&one_in_flight).start();
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
            server: Some((
                before.net.server(self.client),
                before.net.ensemble.servers(),
            )),
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

/// Hands `emit` every fault whose precondition holds, whose budget is not spent
/// and whose target (for an aimed one) the client is: `targeted(client,
/// target)` says whether `client` is that target now (that client, one
/// playing that part, one in that phase).
pub fn enabled<S, L>(
    budget: &FaultBudget,
    expire_anytime: bool,
    state: &WorldState<S, L>,
    targeted: impl Fn(ClientId, &Target) -> bool,
    waiting: impl Fn(ClientId) -> bool,
    mut emit: impl FnMut(Fault) -> ControlFlow<()>,
) -> ControlFlow<()> {
    for client in 0..state.processes.len() {
        let at = Situation::of(state, client, expire_anytime, waiting(client));
        for declaration in &DECLARATIONS {
            let kind = declaration.kind;
            if !(declaration.when)(&at) {
                continue;
            }
            // Each budget that can pay for it, at any client first: the
            // checker's order, with no allocation on its hot path.
            let any = state.spent.any[kind as usize] < budget.any[kind as usize];
            let aimed = budget.aimed.iter().enumerate().filter(|(index, aimed)| {
                // The target last: a part or a phase asks the recipe.
                aimed.kind == kind
                    && state.spent.aimed[*index] < aimed.count
                    && targeted(client, &aimed.target)
            });
            let charges = (any.then_some(Charge::Any).into_iter())
                .chain(aimed.map(|(index, _)| Charge::Aimed(index as u8)));
            for charge in charges {
                for applied in (declaration.received)(&at) {
                    emit(Fault {
                        kind,
                        client,
                        applied,
                        charge,
                    })?;
                }
            }
        }
    }
    ControlFlow::Continue(())
}

#[cfg(test)]
mod tests {
    use super::{Kind, Situation, Status, DECLARATIONS};

    /// A kind's declaration is found by its position, and by its name.
    #[test]
    fn each_kind_is_declared_in_its_own_place() {
        for kind in Kind::ALL {
            assert_eq!(kind.declaration().kind, kind);
            assert_eq!(Kind::named(kind.name()), Some(kind));
        }
    }

    /// Each kind says whether it can strike a client that runs with its
    /// connection up, and says it truly: its precondition, in every such
    /// situation there is (each count of requests in flight and of servers,
    /// with or without a live session, `expire_anytime`, a holding server).
    #[test]
    fn each_kind_says_truly_whether_it_strikes_the_connected() {
        let flags = [false, true];
        for declaration in &DECLARATIONS {
            let strikes = (0..=u8::MAX).any(|in_flight| {
                (1..=u8::MAX).any(|servers| {
                    flags.into_iter().any(|session_alive| {
                        flags.into_iter().any(|expire_anytime| {
                            flags.into_iter().any(|held| {
                                flags.into_iter().any(|waiting| {
                                    (declaration.when)(&Situation {
                                        status: Status::Running,
                                        connected: true,
                                        knows_disconnected: false,
                                        session_alive,
                                        in_flight,
                                        expire_anytime,
                                        servers,
                                        held,
                                        gives_up: true,
                                        waiting,
                                    })
                                })
                            })
                        })
                    })
                })
            });
            assert_eq!(
                strikes, declaration.strikes_the_connected,
                "{}: STRIKES_THE_CONNECTED",
                declaration.name
            );
        }
    }

    /// A library gives its session up only if it is one that does, while
    /// it knows it is cut off, runs, and the server still has the session.
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
            gives_up: true,
            waiting: false,
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
            Situation {
                gives_up: false,
                ..cut_off
            },
        ] {
            assert!(!when(&other), "{other:?}");
        }
    }
}
