//! The recipe actor: how a ZooKeeper recipe is written for zoocheck.
//!
//! A recipe is a pure, message-driven state machine, one per client. It reacts
//! to one [`Input`] at a time (the application's command, a reply, a watch
//! event, a session event) and answers [`Effects`]: ZooKeeper requests for its
//! client library to send, and [`Observation`]s, the facts about the recipe's
//! promise that the properties read (`Acquired`, `Released`, ...).
//!
//! A recipe never sees the store, the other clients or the checker: only what a
//! real client would see through its ZooKeeper handle. It reads no clock and
//! draws no random number; what a real client would randomise (a GUID in a node
//! name) comes from [`Incarnation`], which is unique per client process.

use std::fmt::Debug;
use std::hash::Hash;
use std::sync::Arc;

use crate::client::{Delivery, SessionEvent};
use crate::store::{ErrorCode, Op, OpResult, Path, WatchEvent};

/// Index of a client in a world: `0`, `1`, ...
pub type ClientId = usize;

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
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Observation {
    /// The client now believes it holds `role` (the lock, a read or write
    /// lock, the leadership).
    Acquired { token: Token, role: Role },
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
    /// The server created the client's node in the recipe's directory (a
    /// barrier participant's, a group member's), whether or not the client
    /// heard back. A server fact: only [`Recipe::served`] reports it.
    Joined,
    /// The server put `item` on the queue (a producer's create), whether or
    /// not the producer heard back. A server fact: only [`Recipe::served`]
    /// reports it.
    Enqueued { item: Item },
    /// The client took `item` off the queue (its delete succeeded) and hands
    /// it to the application.
    Consumed { item: Item },
    /// A consumer chose the node `node` of [`Recipe::directory`] to take (it
    /// sent the first request of taking it). What it knew then the world
    /// knows from what it delivered ([`crate::world::Knowledge`]).
    Chose { node: Arc<str> },
    /// A two-phase-commit site voted to commit or to abort.
    Voted { commit: bool },
    /// A two-phase-commit participant decided the transaction's outcome.
    Decided { commit: bool },
}

/// A queue item: which client produced it and which of that producer's puts
/// it is (0 for its first). Its bytes, the znode's data, read `c0.1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Item {
    pub producer: u8,
    pub serial: u8,
}

impl Item {
    /// The most items the history can tell apart: four producers (the
    /// scenario's client limit) with eight puts each (its script limit).
    pub const PRODUCERS: u8 = 4;
    pub const SERIALS: u8 = 8;

    pub fn new(producer: ClientId, serial: usize) -> Item {
        assert!(producer < usize::from(Item::PRODUCERS) && serial < usize::from(Item::SERIALS));
        Item {
            producer: producer as u8,
            serial: serial as u8,
        }
    }

    /// The znode data that carries the item.
    pub fn bytes(self) -> Vec<u8> {
        self.to_string().into_bytes()
    }

    /// The item a znode's data carries, if it carries one.
    pub fn parse(bytes: &[u8]) -> Option<Item> {
        let text = std::str::from_utf8(bytes).ok()?;
        let (producer, serial) = text.strip_prefix('c')?.split_once('.')?;
        let (producer, serial) = (producer.parse().ok()?, serial.parse().ok()?);
        (producer < usize::from(Item::PRODUCERS) && serial < usize::from(Item::SERIALS))
            .then(|| Item::new(producer, serial))
    }

    /// Its bit in a set of items ([`crate::world::Items`]).
    pub fn bit(self) -> u32 {
        1 << (self.producer * Item::SERIALS + self.serial)
    }
}

impl std::fmt::Display for Item {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "c{}.{}", self.producer, self.serial)
    }
}

/// What a recipe does in answer to one input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Effects {
    pub requests: Vec<Op>,
    pub observations: Vec<Observation>,
}

impl Effects {
    pub fn send(&mut self, op: Op) {
        self.requests.push(op);
    }

    pub fn observe(&mut self, observation: Observation) {
        self.observations.push(observation);
    }
}

/// A ZooKeeper recipe as a pure actor.
pub trait Recipe: Clone + Debug + Send + Sync + 'static {
    /// One client's recipe state; traces print it with Display, in words
    /// (`Watching c0-lock-0000000000 from c1-lock-0000000001`), never as Rust.
    type State: Clone + Debug + std::fmt::Display + PartialEq + Eq + Hash + Send + Sync;
    /// What the application can ask of the recipe; traces print it with
    /// Display, as scenario scripts name it (`vote_commit`).
    type Command: Clone + Copy + Debug + std::fmt::Display + PartialEq + Eq + Hash + Send + Sync;

    /// The state of a freshly started process.
    fn init(&self, me: Incarnation) -> Self::State;

    /// Reacts to one input.
    fn handle(
        &self,
        me: Incarnation,
        state: &mut Self::State,
        input: Input<Self::Command>,
        out: &mut Effects,
    );

    /// Whether the application is blocked in a call (for example in `acquire`)
    /// and so cannot give the next command yet.
    fn is_busy(&self, state: &Self::State) -> bool;

    /// Whether the application may give `command` while the recipe is busy
    /// in a call (`cancel`, from another thread of the application): an
    /// interrupt. Every other command waits for the call to return.
    fn interrupts(&self, _command: &Self::Command) -> bool {
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

    /// Why the last state of `run` (a counterexample) breaks this recipe's
    /// own `property`, in words: who believes what, which item went twice,
    /// who waits forever on which node. The properties [`crate::properties`]
    /// shares are told there. `None` if the state does not break it.
    fn violation(
        _world: &crate::world::World<Self>,
        _run: crate::world::Run<'_, Self::State>,
        _property: &str,
    ) -> Option<String>
    where
        Self: Sized,
    {
        None
    }

    /// The phases a client of this recipe can be in, by name: a check
    /// reports which were never entered (its coverage), which tells why a
    /// `sometimes` property went unreached. At most 64.
    fn phase_names(&self) -> &'static [&'static str] {
        &[]
    }

    /// The phases of [`Recipe::phase_names`] `state` is in, as bits (a
    /// recipe with two machines, as a queue's put and take, is in two).
    fn phases(&self, _state: &Self::State) -> u64 {
        0
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

    /// The directory whose children the recipe creates (the lock node).
    fn directory(&self) -> &Path;

    /// The persistent znodes that exist before any client starts, each
    /// parent before its children: by default [`Recipe::directory`] alone.
    /// A recipe whose directory is not at the root, or that keeps a second
    /// directory (the semaphore's internal lock), lists them all.
    fn setup(&self) -> Vec<Path> {
        vec![self.directory().clone()]
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

    /// Whether this waiting client, woken by a deletion that leaves
    /// `children` in [`Recipe::directory`], is one of a group the recipe means
    /// to wake together, so that waking it with others is no herd. The shared
    /// lock says yes for a reader the deletion released (seed 000: "all those
    /// waiting reader clients should be released since they have the lock");
    /// every other recipe wakes one client per deletion.
    fn released_together(&self, _state: &Self::State, _children: &[Arc<str>]) -> bool {
        false
    }

    /// What the server's applying `op` for this client (with `result`) means
    /// for the recipe's promise, whether or not the client ever hears of it:
    /// [`Observation::Joined`] for a participant's node created,
    /// [`Observation::Enqueued`] for an item put on a queue. A property that
    /// counts what happened must count what the server did, not what a client
    /// was told: a reply may be lost. By default nothing.
    fn served(&self, _op: &Op, _result: &OpResult) -> Option<Observation> {
        None
    }

    /// Whether the node named `name` in [`Recipe::directory`] is to be taken
    /// before `than` (a priority queue's higher priority). A recipe whose
    /// nodes can outrank one another has the world keep what each client
    /// was told of the directory ([`crate::world::Knowledge`]) to judge its
    /// choices ([`Observation::Chose`]); by default nothing outranks anything.
    fn outranks(&self, _name: &str, _than: &str) -> bool {
        false
    }

    /// Whether the recipe's nodes can outrank one another ([`Recipe::outranks`]).
    fn ranks(&self) -> bool {
        false
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
