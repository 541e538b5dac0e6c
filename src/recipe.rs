//! The recipe actor: how a ZooKeeper recipe is written for zoocheck.
//!
//! A recipe is a pure, message-driven state machine, one per client. It reacts
//! to one [`Input`] at a time (the application's command, a reply, a watch
//! event, a session event) and answers [`Effects`]: ZooKeeper requests for its
//! client library to send, and [`Observation`]s, the facts about the recipe's
//! promise that the properties read: the tenure facts every holder shares
//! (`Acquired`, `Released`, ...) and the recipe's own ([`Recipe::Fact`]),
//! which its [`Log`] keeps and tells in traces.
//!
//! A recipe never sees the store, the other clients or the checker: only what a
//! real client would see through its ZooKeeper handle. It reads no clock and
//! draws no random number; what a real client would randomise (a GUID in a node
//! name) comes from [`Incarnation`], which is unique per client process.

use std::convert::Infallible;
use std::fmt::Debug;
use std::hash::Hash;
use std::sync::Arc;

use crate::client::{Delivery, SessionEvent};
use crate::store::rename::Renaming;
use crate::store::{CreateMode, ErrorCode, Op, OpResult, Path, SessionId, Store, WatchEvent};

/// Index of a client in a world: `0`, `1`, ...
pub use crate::store::rename::ClientId;

/// Which process of a client this is: a restart brings a new incarnation (new
/// session, no memory). Together they make a GUID unique in the world.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Incarnation {
    pub client: ClientId,
    pub restarts: u8,
}

impl Incarnation {
    /// A short GUID for node names, unique per process: `c0`, `c1r1`, ...
    pub fn guid(self) -> String {
        if self.restarts == 0 {
            format!("c{}", self.client)
        } else {
            format!("c{}r{}", self.client, self.restarts)
        }
    }
}

/// A GUID scoped to a session too: `guid` itself in a process's first
/// session, `c0s1` once its library renewed it once, and so on. The recipes
/// that tell their own nodes from an earlier session's by name use it.
pub fn session_scoped(guid: String, renewals: u8) -> String {
    if renewals == 0 {
        guid
    } else {
        format!("{guid}s{renewals}")
    }
}

/// What a recipe reacts to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Input<C> {
    /// The application asks the recipe to act (acquire, release, enter, ...).
    Command(C),
    /// A request ended, with the request itself.
    Reply { op: Op, result: OpResult },
    /// A watch fired.
    Watch(WatchEvent),
    /// The connection or the session changed state.
    Session(SessionEvent),
}

impl<C> From<Delivery> for Input<C> {
    fn from(delivery: Delivery) -> Input<C> {
        match delivery {
            Delivery::Reply { op, result, .. } => Input::Reply { op, result },
            Delivery::Watch(event) => Input::Watch(event),
            Delivery::Session(event) => Input::Session(event),
        }
    }
}

/// A lock holder's fencing token: the sequence number of its lock node. The
/// seeds' sequencer is the node's path and version; for one lock directory the
/// sequence number orders them.
pub type Token = i64;

/// What a client can believe it holds: the exclusive lock, one of the shared
/// lock's two modes, an election's leadership, or one of a semaphore's
/// leases. A read lock and a lease are shared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    Lock,
    Read,
    Write,
    Leader,
    Lease,
}

impl Role {
    /// Whether its holder must be the only holder. A lease is shared, up to
    /// the semaphore's own limit, which its own properties judge.
    pub fn is_exclusive(self) -> bool {
        matches!(self, Role::Lock | Role::Write | Role::Leader)
    }

    /// The verb and its object, for traces: ("holds", "the lock"), ("leads", "").
    /// What a client holding this does: `holds the lock`, `leads`; said of
    /// several clients, `hold the lock`, `lead`.
    pub fn phrase(self, several: bool) -> String {
        let (verb, object) = self.words();
        let verb = if several {
            verb.trim_end_matches('s')
        } else {
            verb
        };
        [verb, object].join(" ").trim().to_string()
    }

    pub fn words(self) -> (&'static str, &'static str) {
        match self {
            Role::Lock => ("holds", "the lock"),
            Role::Read => ("holds", "a read lock"),
            Role::Write => ("holds", "the write lock"),
            Role::Leader => ("leads", ""),
            Role::Lease => ("holds", "a lease"),
        }
    }
}

/// What a recipe tells the world about its promise. Properties are evaluated
/// on these (through the world's history), never on messages in flight.
///
/// The tenure facts every recipe that holds something shares (the lock, a
/// read or write lock, the leadership, a lease) are variants here, and the
/// world keeps them ([`crate::world::History`]); a recipe's own facts (an
/// item taken off a queue, a vote) are its [`Recipe::Fact`], kept by its
/// [`Log`].
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Observation<F = Infallible> {
    /// The client now believes it holds `role` (the lock, a read or write
    /// lock, the leadership) by its node `node` in the recipe's directory,
    /// whose sequence number it reads as `token`. The world places the
    /// tenure by the node itself ([`crate::store::Store::creation_order`]),
    /// never by the token: a recipe's reading of a name is what is checked.
    Acquired {
        node: Arc<str>,
        token: Token,
        role: Role,
    },
    /// The client no longer believes it holds what it held: it released it
    /// (or resigned).
    Released,
    /// The client no longer believes it holds the lock: it was disconnected and
    /// may have lost it (it may believe again once it has checked).
    Suspended,
    /// The client knows it lost the lock (its session expired).
    Lost,
    /// The client gave up acquiring (try-acquire found the lock taken, or its
    /// session expired while it waited).
    GaveUp,
    /// The application wrote to the protected resource, handing it its
    /// sequencer when the recipe is fenced.
    Used { sequencer: Option<Token> },
    /// A fact of the recipe's own ([`Recipe::Fact`]).
    Fact(F),
}

/// What the world keeps of a recipe's own facts ([`Recipe::Fact`]) for its
/// properties, and how they read in traces: the part of the history that
/// belongs to one recipe (stateright's `ActorModel` history is the model),
/// so that a recipe bringing new facts touches nothing the world shares.
/// `()` keeps nothing, for a recipe whose facts are all shared tenure facts.
pub trait Log: Clone + Debug + PartialEq + Eq + Hash + Send + Sync + Symmetric + 'static {
    /// The facts it records.
    type Fact: Clone + Debug + PartialEq + Eq + Hash + Send + Sync + 'static;

    /// The log of a world of `clients` clients before anything happened.
    fn new(clients: usize) -> Self;

    /// Records `fact`, which the recipe of `at.process` observed, or which
    /// the server's applying one of its requests meant ([`Recipe::served`]).
    fn record(&mut self, fact: &Self::Fact, at: Witness<'_>);

    /// Keeps what `input`, delivered to client `client`'s recipe, told it
    /// (a listing of the recipe's `directory`, a watch event), for a log that
    /// judges the recipe's choices on what it was told rather than on what
    /// it says it knew. By default nothing.
    fn learn<C>(&mut self, _client: ClientId, _input: &Input<C>, _directory: &Path) {}

    /// What client `client` did in one step, in words for its trace line
    /// (`; TAKES ITEM c0.0`), given the log before the step and the facts
    /// the client observed in it, in order. By default nothing.
    fn tell(&self, _before: &Self, _client: ClientId, _facts: &[&Self::Fact]) -> String {
        String::new()
    }

    /// What the server's applying a request meant in one step, in words for
    /// its trace line (`; enqueues item c0.0`), given the log before it. By
    /// default nothing.
    fn tell_served(&self, _before: &Self) -> String {
        String::new()
    }
}

/// Where a fact was observed: which process, and the server's tree and the
/// recipe's directory as they were when it was recorded, so that a log can
/// judge a choice against what the server held then.
#[derive(Clone, Copy)]
pub struct Witness<'a> {
    pub process: Incarnation,
    pub store: &'a crate::store::Store,
    pub directory: &'a Path,
}

/// The log of a recipe with no facts of its own.
impl Log for () {
    type Fact = Infallible;

    fn new(_clients: usize) {}

    fn record(&mut self, fact: &Infallible, _at: Witness<'_>) {
        match *fact {}
    }
}

/// What a recipe does in answer to one input, through its ZooKeeper handle:
/// the requests it sends and what it observes. The handle also answers
/// what a real one does at once, without the server: its session id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Effects<F = Infallible> {
    pub requests: Vec<Op>,
    pub observations: Vec<Observation<F>>,
    session: SessionId,
}

impl<F> Default for Effects<F> {
    fn default() -> Self {
        Effects::on(0)
    }
}

impl<F> Effects<F> {
    /// The effects of an input handed to a client whose library holds
    /// `session` now.
    pub fn on(session: SessionId) -> Self {
        Effects {
            requests: Vec::new(),
            observations: Vec::new(),
            session,
        }
    }

    /// The session the client library holds now, as ZooKeeper's
    /// `getSessionId()`: a renewed session has a new one. A node whose
    /// Stat's `ephemeral_owner` is another session is not this session's,
    /// whatever its name says. `0` outside a world (a test's bare handle).
    pub fn session(&self) -> SessionId {
        self.session
    }

    pub fn send(&mut self, op: Op) {
        self.requests.push(op);
    }

    pub fn observe(&mut self, observation: Observation<F>) {
        self.observations.push(observation);
    }

    /// Observes a fact of the recipe's own ([`Recipe::Fact`]).
    pub fn fact(&mut self, fact: F) {
        self.observations.push(Observation::Fact(fact));
    }
}

/// A ZooKeeper recipe as a pure actor.
pub trait Recipe: Clone + Debug + Send + Sync + 'static {
    /// One client's recipe state; traces print it with Display, in words
    /// (`Watching c0-lock-0000000000 from c1-lock-0000000001`), never as Rust.
    type State: Clone + Debug + std::fmt::Display + PartialEq + Eq + Hash + Send + Sync + Symmetric;
    /// What the application can ask of the recipe; traces print it with
    /// Display, as scenario scripts name it (`vote_commit`).
    type Command: Clone + Copy + Debug + std::fmt::Display + PartialEq + Eq + Hash + Send + Sync;
    /// The recipe's own facts, beyond the shared tenure facts of
    /// [`Observation`]: [`Infallible`] for a recipe that has none.
    type Fact: Clone + Debug + PartialEq + Eq + Hash + Send + Sync + 'static;
    /// What the world keeps of those facts, and how they read in traces:
    /// `()` for a recipe that has none.
    type Log: Log<Fact = Self::Fact>;

    /// The state of a freshly started process.
    fn init(&self, me: Incarnation) -> Self::State;

    /// Whether clients of this variant that differ only in their names are
    /// interchangeable ([`crate::symmetry`]): its state and log rename
    /// ([`Symmetric`]), and it acts on a listing of children through the
    /// names' sequence numbers and GUIDs only, never through their order.
    /// `tests/reductions.rs` checks a recipe that says so. By default not.
    fn symmetric(&self) -> bool {
        false
    }

    /// Whether this variant's state and log keep counters (sequence
    /// numbers, sessions) only in node names and sessions, which
    /// [`Symmetric::renamed`] renames, and read them only by equality and
    /// order, never by their value or a sum, and keeps a name without its
    /// path only for a child of the one directory whose children are
    /// named sequential (its own): then a state whose counters
    /// all moved on in their order is, to the recipe, the state it was
    /// ([`crate::recount`]), and a run that comes back to it loops as far
    /// as the counters reach. `tests/reductions.rs` checks a recipe that
    /// says so. By default not.
    fn reads_counters_by_order(&self) -> bool {
        false
    }

    /// Whether this variant's properties, outside quiescent states, read a
    /// client only through the world's [`History`](crate::world::History)
    /// of shared facts (not its node record) and its process's status, and
    /// its log learns nothing from inputs: then the partial-order reduction
    /// may leave out interleavings of a client's steps that change none of
    /// those ([`crate::partial_order`]). `tests/reductions.rs` checks a
    /// recipe that says so. By default not.
    fn observed_through_history(&self) -> bool {
        false
    }

    /// Reacts to one input.
    fn handle(
        &self,
        me: Incarnation,
        state: &mut Self::State,
        input: Input<Self::Command>,
        out: &mut Effects<Self::Fact>,
    );

    /// Whether the application is blocked in a call (for example in `acquire`)
    /// and so cannot give the next command yet.
    fn is_busy(&self, state: &Self::State) -> bool;

    /// Whether a thread of the client waits for an event to wake it (a lock
    /// waiter for its predecessor's deletion), so that a spurious wake (the
    /// `wake` fault: Java's `Object.wait` returns with no `notify`;
    /// Curator's and kazoo's wait loops wake on connection-state changes and
    /// on notifications queued earlier) can wake it with nothing to read
    /// ([`Recipe::wake`]). By default no thread of the recipe waits so; a
    /// recipe whose threads do says so in
    /// [`crate::catalogued::Catalogued::WAITS`], and a scenario that budgets
    /// `wake` for any other is refused.
    fn waits(&self, _state: &Self::State) -> bool {
        false
    }

    /// The waiting thread woke with no event ([`Recipe::waits`]): a recipe
    /// that checks again on every wake asks the server again here.
    fn wake(&self, _me: Incarnation, _state: &mut Self::State, _out: &mut Effects<Self::Fact>) {}

    /// A second thread of the client with a step of its own to take, one
    /// that waits for no input, in words for its trace line (`application
    /// thread: waits`); `None` if none has. Library recipes run an
    /// application thread and the library's event thread (watch handlers,
    /// async callbacks) in one process, sharing its session and its state:
    /// where a real thread does two things with no lock held between them
    /// (takes a reply, then waits), the recipe takes the first on its input
    /// and leaves the second for this step, which the checker interleaves
    /// with every other step ([`crate::world::steps`]' `go_on`): what the
    /// other thread does in between (hands over a notification, closes) it
    /// does to the state the first left. By default no thread of the recipe
    /// is ever preempted so.
    fn ready(&self, _state: &Self::State) -> Option<&'static str> {
        None
    }

    /// The thread [`Recipe::ready`] named takes its step.
    fn go_on(&self, _me: Incarnation, _state: &mut Self::State, _out: &mut Effects<Self::Fact>) {}

    /// Whether the application may give `command` while the recipe is busy
    /// in the call `state` is in (`cancel` or `close`, from another thread
    /// of the application): an interrupt. Every other command waits for the
    /// call to return.
    fn interrupts(&self, _state: &Self::State, _command: &Self::Command) -> bool {
        false
    }

    /// What a call with a timeout hands the recipe when the timeout fires
    /// while the call is still pending (Curator's `acquire(time, unit)`,
    /// kazoo's `timeout=`): the command its application gives then, if the
    /// recipe's calls can time out. The checker may fire it at any moment
    /// while the call is pending: timing is a choice, never a clock.
    fn timeout(&self) -> Option<Self::Command> {
        None
    }

    /// Whether the client is waiting for something only another client's
    /// action or the server can bring (the lock, the barrier). A client still
    /// waiting when nothing more can happen waits forever.
    fn is_waiting(&self, state: &Self::State) -> bool;

    /// The phases a client of this recipe can be in, by name: a check
    /// reports which were never entered (its coverage), which tells why a
    /// `sometimes` property went unreached; a fault may be aimed at
    /// whoever is in one (`[[fault]] phase`). At most 64.
    const PHASES: &'static [&'static str] = &[];

    /// The phases of [`Recipe::PHASES`] `state` is in, as bits (a
    /// recipe with two machines, as a queue's put and take, is in two).
    fn phases(&self, _state: &Self::State) -> u64 {
        0
    }

    /// What of `state` a round of a loop brings back when the round only
    /// takes fresh numbers: its phases and the flags and sizes that steer
    /// what it does next, but no counter, sequence number or name. The
    /// termination search compares these to say a path that never ends
    /// likely loops (an unproven verdict). By default the phases alone.
    fn shape(&self, state: &Self::State) -> u64 {
        self.phases(state)
    }

    /// The parts a client of this recipe can play at a moment, which a fault
    /// can aim at (`target = "holder"`), besides being a waiter
    /// ([`crate::world::WAITER`]).
    fn parts() -> &'static [Part<Self>]
    where
        Self: Sized,
    {
        &[]
    }

    /// A node's data in this recipe's own words, where the recipe gives its
    /// data a meaning (a queue's item as `item c0.1`): how diagrams label
    /// it. `None` shows printable text quoted, anything else by its length.
    fn data_words(_bytes: &[u8]) -> Option<String> {
        None
    }

    /// The directory whose children the recipe creates (the lock node).
    fn directory(&self) -> &Path;

    /// The persistent znodes that exist before any client starts, each
    /// parent before its children: by default [`Recipe::directory`] alone.
    /// A recipe whose directory is not at the root, or that keeps a second
    /// directory (the semaphore's internal lock), lists them all.
    fn setup(&self) -> Vec<Path> {
        vec![self.directory().clone()]
    }

    /// How [`Recipe::directory`] is made: by default a persistent node,
    /// there for good; a container ([`CreateMode::Container`], as Curator 5
    /// makes a recipe's parent), which the server deletes once it has had a
    /// child and has none; or a TTL node
    /// ([`CreateMode::PersistentWithTtl`]), which it deletes whenever it has
    /// no children and its time to live has passed.
    fn directory_mode(&self) -> CreateMode {
        CreateMode::Persistent
    }

    /// The node that is the protected resource, for a recipe that guards one
    /// in ZooKeeper: the world makes it (persistent, empty) before any client
    /// starts, and judges each write the server applies to it by whose it
    /// is, the node its data names ([`crate::world::Resource`]). By default
    /// none: a resource, if any, is outside ZooKeeper ([`Observation::Used`]).
    fn resource_node(&self) -> Option<&Path> {
        None
    }

    /// Whether the client knows of `name` in [`Recipe::directory`] as its own
    /// and still wants it. A node there owned by a live session whose client
    /// does not claim it is an orphan.
    fn claims(&self, state: &Self::State, name: &str) -> bool;

    /// Whether a notification to this client counts as waking a waiter, for
    /// herd avoidance and its partner: by default, whether it is waiting. A
    /// recipe whose clients also wait for other things (a revoker waiting for
    /// a holder to appear) counts only those waiting for their turn.
    fn counts_in_herd(&self, state: &Self::State) -> bool {
        self.is_waiting(state)
    }

    /// Whether this waiting client, woken by a deletion that leaves `tree`
    /// (the server's tree that applied it), is one of a group the recipe
    /// means to wake together, so that waking it with others is no herd. The
    /// shared lock says yes for a reader the deletion released (seed 000: "all
    /// those waiting reader clients should be released since they have the
    /// lock"), judged by the order the server created the nodes in
    /// ([`Store::creation_order`]); every other recipe wakes one client per
    /// deletion.
    fn released_together(&self, _state: &Self::State, _tree: &Store) -> bool {
        false
    }

    /// What the server's applying `op` for this client (with `result`) means
    /// for the recipe's promise, whether or not the client ever hears of it:
    /// a participant's node created (a barrier's), an item put on a queue. A
    /// property that counts what happened must count what the server did,
    /// not what a client was told: a reply may be lost. By default nothing.
    fn served(&self, _op: &Op, _result: &OpResult) -> Option<Self::Fact> {
        None
    }
}

/// A part a client can play at a moment (the holder, the leader), by the
/// name scenario files aim faults at, and who plays it: a client plays it
/// in the states `played` says, judged on what the client itself believes.
pub struct Part<R: Recipe> {
    pub name: &'static str,
    pub meaning: &'static str,
    pub played: fn(&R, &R::State) -> bool,
}

/// Whether an error means the request may or may not have been applied.
pub fn is_connection_loss(result: &OpResult) -> bool {
    matches!(result, Err(ErrorCode::ConnectionLoss))
}

/// What a recipe's state or log must say for its clients to be renamed.
///
/// The defaults say it cannot be renamed: a recipe whose
/// [`crate::recipe::Recipe::symmetric`] is false never is.
pub trait Symmetric: Sized {
    /// This, with every client's name renamed by `renaming`; `None` if it
    /// cannot be.
    fn renamed(&self, _renaming: &Renaming) -> Option<Self> {
        None
    }

    /// What of this no renaming changes, as a number (a phase, a sequence
    /// number): [`representative`] orders interchangeable clients by it.
    /// Any value is sound; one that tells apart what renaming cannot makes
    /// more states meet.
    fn anonymous(&self) -> u64 {
        0
    }
}

/// A log that keeps nothing.
impl Symmetric for () {
    fn renamed(&self, _: &Renaming) -> Option<()> {
        Some(())
    }
}

/// A state that is a number carries no name.
impl Symmetric for u8 {
    fn renamed(&self, _: &Renaming) -> Option<u8> {
        Some(*self)
    }

    fn anonymous(&self) -> u64 {
        u64::from(*self)
    }
}
