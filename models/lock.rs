//! The exclusive lock (seed 000 "Locks", seed 001 with its GUID and error
//! handling, seed 002 for try-acquire and the sequencer).
//!
//! Clients wishing to obtain the lock do the following (the numbers are the
//! seeds'; each names the code that does it):
//!
//! 1. Call `create()` with a pathname of `_locknode_/guid-lock-` and the
//!    sequence and ephemeral flags set. The GUID is needed in case the
//!    `create()` result is missed ([`Contender::create`]).
//! 2. Call `getChildren()` on the lock node *without* setting the watch flag
//!    (important, to avoid the herd effect) ([`Contender::list`]).
//! 3. If the pathname created in step 1 has the lowest sequence number suffix,
//!    the client has the lock and exits the protocol ([`decide`] answers
//!    [`Decision::Holds`]).
//! 4. The client calls `exists()` with the watch flag set on the path in the
//!    lock directory with the next lowest sequence number ([`decide`] answers
//!    [`Decision::Watch`]).
//! 5. If `exists()` returns false, go to step 2. Otherwise wait for a
//!    notification for that pathname before going to step 2
//!    ([`Contender::on_reply`], [`Contender::on_watch`]).
//!
//! Unlock: delete the node created in step 1 ([`Command::Release`]).
//!
//! Recoverable errors and the GUID (seed 001): if a recoverable error
//! (`CONNECTIONLOSS`) occurs calling `create()`, the client calls
//! `getChildren()` and checks for a node containing the GUID used in the path
//! name; it adopts that node if there is one ([`Phase::Recovering`]).
//!
//! The machinery of these steps is shared with the shared lock and leader
//! election ([`super::contender`]); what is the lock's own is [`decide`] and
//! the mapping of its variants onto the contender's knobs ([`Lock::new`]).
//!
//! Session handling of the reference: a careful client treats `Disconnected`
//! as "I may have lost the lock" (it stops acting as holder until it has
//! checked again on reconnect) and `Expired` as "I have lost it".
//!
//! Variants, each differing from the reference in one respect, are presets
//! of the lock's [`Knobs`] (a scenario may turn any knob of a preset):
//! - `guid`: the reference above;
//! - `no_guid` (seed 000): plain `lock-` names; on `CONNECTIONLOSS` it simply
//!   creates again, so a lost create reply leaves a node nobody knows of;
//! - `herd`: waiters list the children *with* a watch and wake on every change
//!   of the lock node, instead of watching their predecessor;
//! - `fenced`: the holder hands its sequencer (seed 002: the lock node's
//!   path and version; here its sequence number) to the protected resource,
//!   which refuses a sequencer older than one it has seen;
//! - `try_acquire` (seed 002 `TryAcquire()`): step 4 becomes "failed to obtain
//!   the lock: delete the node created in step 1 and exit";
//! - `trusting`: a holder that ignores `Disconnected` and goes on believing it
//!   holds the lock until it hears `Expired` (which a 3.8 client hears only on
//!   reconnecting);
//! - `careless_cancel`: an application that gives up an acquire (`cancel`,
//!   or `acquire with timeout` timing out) by forgetting it: its node stays,
//!   owned by its live session, and every later client waits behind it;
//! - `spin`: `try_acquire` in a loop, the way an application spins on
//!   Curator's `InterProcessMutex.acquire(0, unit)` (`while
//!   (!mutex.acquire(0, MILLISECONDS)) {}`): Curator's
//!   `LockInternals.internalLockLoop`, finding no time left, deletes its node
//!   and returns false, and the application asks again at once. Here a
//!   refused attempt deletes its node and creates a new one as soon as the
//!   delete is answered, and `acquire` returns only once it holds. (Curator
//!   also reads the predecessor with a watch before it looks at the time
//!   left; that read changes nothing here and is left out.) While another
//!   client holds the lock it never stops: two writes a round, each with a
//!   fresh zxid and sequence number, so no state repeats and only
//!   `terminates` notices that this client never waits quietly.
//!
//! - `process_guid`: the reference with the GUID of seed 001 kept for the
//!   life of the process, across renewed sessions (see below).
//!
//! - `host_guid`: the reference with a GUID that names the host (the client:
//!   a hostname, a configured node id) and so outlives its process: a
//!   restarted process names its nodes `c0-lock-` as its dead predecessor
//!   did, whose session, and node, the server keeps until it times out. Its
//!   recovery of a lost create can adopt the predecessor's node, which
//!   vanishes with that session. The reference's GUID names the process
//!   (`c0r1-lock-` after a restart, [`Contender::process_guid`]).
//!
//! Renewed sessions (`[library] on_expiry = "renew"`, as Curator and kazoo
//! do): when its session is lost the reference gives up what it held or
//! waited for (`Lost`, `GaveUp`: a pending `acquire` returns unacquired),
//! and once its library has opened a new session the application may
//! `acquire` again. The server keeps the old session, and its node, until
//! that session times out, which may be long after the library gave it up
//! (the `abandon` fault). So the reference tells its own node from its
//! previous session's by its name: its GUID names the session as well as
//! the process (`c0s1-lock-` in the second session,
//! [`Contender::session_guid`]), and recovering a lost create looks only
//! for this session's GUID. `process_guid` keeps `c0-lock-` for every
//! session, so its recovery can adopt the old session's node, which
//! vanishes when the server times that session out. (Comparing the node's
//! `ephemeralOwner` with the current session id, `getSessionId()`
//! ([`crate::recipe::Effects::session`]), as Hadoop's `ActiveStandbyElector`
//! does, is the other cure; it costs a request per candidate node.)
//!
//! Libraries that drop watches (`[library] watches = "dropped"`, kazoo's):
//! the reference waiter trusts its watch on the next lower node to outlive
//! a dropped connection, as the Java client's `SetWatches` makes it, and
//! under kazoo's rules waits for ever once it came back without it. The
//! knob `on_reconnect = "lists"` lists again on `SyncConnected`, as kazoo's
//! `Lock` does on every connection state change
//! ([`Contender::relists`]).
//!
//! Container lock nodes (`directory = "container"`, Curator 5's): the
//! server deletes the lock node once it has had a child and has none; the
//! reference's create then answers NONODE, and it makes the lock node
//! again (a container) and creates again ([`Contender::remakes_dir`]).
//! `remakes_directory = false` is kazoo's `Lock`, which ensures its path
//! once per object: its acquire raises NONODE, and an application that
//! retries it creates again in a lock node that is gone.
//!
//! Spurious wakes (the `wake` fault): a waiter may wake with no event. The
//! reference lists again (step 2), as Curator's and kazoo's wait loops do
//! after every wake; `on_wake = "holds"` takes the wake for its
//! predecessor's deletion, a `wait()` outside a loop that checks its
//! condition ([`Contender::wake`]).
//!
//! Two threads (`wait = "unguarded"`, the variant `unguarded_wait`): an
//! `acquire` runs on the application's thread and the watch's handler on
//! the client library's event thread, one process sharing one session and
//! one state. The reference takes `exists()`'s reply (the node is there)
//! and waits in one step, which is what Curator's monitor makes of it
//! (`LockInternals.internalLockLoop` reads the predecessor with its watcher
//! and calls `wait()` inside one `synchronized (this)`, and the watcher's
//! `notifyFromWatcher()` takes the same monitor, so it notifies a thread
//! that waits) and what kazoo's `Lock` gets from an event it clears before
//! `exists()` sets the watch. Without either, the application thread takes
//! the reply and waits a step later ([`crate::recipe::Recipe::ready`]): a
//! notification the event thread hands over in between wakes nobody, the
//! watch is spent, and the waiter waits for ever.
//!
//! TTL lock nodes (`directory = "ttl"`): the server deletes the lock node
//! whenever it has no children and has not been written for its time to
//! live, which the model does not count, so even before the first client
//! creates under it; the reference makes it again (a TTL node) on NONODE,
//! as it does a container.
//!
//! Giving up (`cancel`, and what a timeout does): the reference deletes its
//! node, as Curator's `acquire(time, unit)` does when it times out and
//! kazoo's `acquire(timeout=)` does in its cleanup; if the create is still
//! in flight (or its lost reply is being recovered by the GUID), it deletes
//! the node as soon as it learns its name ([`Contender::cancel`]).

use std::sync::Arc;

use super::contender::{decide_by, sequence_after, Contender, Pick, Writes, RESOURCE};
pub use super::contender::{Decision, Phase, State};
use crate::catalogued::{Catalogued, Docs, NoParams};
use crate::knobs::KnobValue;
use crate::properties::Promise;
use crate::recipe::{Effects, Incarnation, Input, Recipe, Role, Token};
use crate::store::{CreateMode, Path};

crate::knob_value! {
    /// Which node a waiter waits on (step 4).
    pub enum WaitsOn {
        /// the next lowest node, with `exists()` and a watch: one deletion wakes one client (the reference)
        Next = "next",
        /// the lowest node: every waiter watches the holder, so its release wakes them all
        Lowest = "lowest",
        /// the lock node's children, listed with a watch: every change wakes every waiter (the herd effect)
        Children = "children",
    }
}

crate::knob_value! {
    /// What `acquire` does where step 4 would wait.
    pub enum WhenBlocked {
        /// wait for the watched node to go (the reference)
        Wait = "wait",
        /// give up: delete its node and return unacquired (seed 002's `TryAcquire()`)
        GiveUp = "give_up",
        /// give up and try again at once with a new node, until it holds (an application spinning on a try-acquire)
        Retry = "retry",
    }
}

crate::knob_value! {
    /// What a holder makes of `Disconnected`.
    pub enum OnDisconnect {
        /// "I may have lost it": it stops acting as holder until a fresh listing says it holds (the reference)
        Suspend = "suspend",
        /// nothing: it believes it holds until it hears `Expired`
        Trust = "trust",
    }
}

crate::knob_value! {
    /// What a waiter does when its connection comes back (`SyncConnected`).
    pub enum OnReconnect {
        /// waits on: its watch lives as long as its session, re-sent by its library on the new connection (the seed's, under the Java client's `SetWatches`)
        Waits = "waits",
        /// lists again (step 2) and watches anew: kazoo's `Lock` wakes its waiting `acquire` on every connection state change (`Lock._watch_session`), since kazoo drops its watches when a connection drops
        Lists = "lists",
    }
}

crate::knob_value! {
    /// What a waiter does when it wakes with no event (the `wake` fault).
    pub enum OnWake {
        /// lists again (step 2), as Curator's `LockInternals.internalLockLoop` does after every `wait()` and kazoo's `Lock` after every wake of its event: a wake is a reason to look, not news
        Lists = "lists",
        /// takes the wake for its predecessor's deletion and believes it holds: a `wait()` outside a loop that checks its condition
        Holds = "holds",
    }
}

crate::knob_value! {
    /// How the application thread's wait (step 5) is kept from the event thread's notification.
    pub enum WaitGuard {
        /// the check and the wait are one step: the notification reaches a thread that waits (Curator's `LockInternals.internalLockLoop` reads the predecessor with its watcher and waits inside one `synchronized (this)`, and the watcher's `notifyFromWatcher` takes the same monitor; kazoo's `Lock` clears its `wake_event` before `exists()` sets the watch, and the event stays set until it waits) (the reference)
        Monitor = "monitor",
        /// none: the application thread takes the reply of `exists()`, then waits in a step of its own, and a notification the event thread hands over in between (`notifyAll()` with nobody waiting) wakes nobody and is lost
        Unguarded = "unguarded",
    }
}

crate::knob_value! {
    /// How the lock node (the directory) is made.
    pub enum Directory {
        /// a persistent node made before any client starts, there for good (the seeds')
        Persistent = "persistent",
        /// a container, as Curator 5 makes a lock's parent (`creatingParentContainersIfNeeded`): the server deletes it once it has had a child and has none
        Container = "container",
        /// a TTL node (`PERSISTENT_WITH_TTL`, on a server with `zookeeper.extendedTypesEnabled`), as a deployment makes lock nodes it wants gone when idle: the server deletes it whenever it has no children and has not been written for its time to live, even before its first child
        Ttl = "ttl",
    }
}

crate::knob_value! {
    /// Where the protected resource is, and how a holder writes to it (`work`).
    pub enum ResourceIn {
        /// outside ZooKeeper: a write lands the moment the holder makes it (the seeds')
        Outside = "outside",
        /// the node /resource, written with setData through the holder's session: a write lands when the server applies it, and not at all once the session has expired
        Znode = "znode",
        /// /resource, written in a multi whose first op checks that the holder's lock node exists: the server applies the write only while the node does, in the same transaction (the fence Kafka's controller puts around its writes, KAFKA-6082)
        CheckedZnode = "checked_znode",
    }
}

impl ResourceIn {
    /// How the contender writes.
    pub fn writes(self) -> Writes {
        match self {
            ResourceIn::Outside => Writes::Outside,
            ResourceIn::Znode => Writes::Node,
            ResourceIn::CheckedZnode => Writes::CheckedNode,
        }
    }
}

impl Directory {
    /// How the lock node is created.
    pub fn mode(self) -> CreateMode {
        match self {
            Directory::Persistent => CreateMode::Persistent,
            Directory::Container => CreateMode::Container,
            Directory::Ttl => CreateMode::PersistentWithTtl,
        }
    }
}

crate::knob_value! {
    /// What giving up a pending acquire (`cancel`, a timeout) does with its node.
    pub enum OnCancel {
        /// deletes it, as soon as it knows its name (the reference)
        Delete = "delete",
        /// forgets it: the node stays as long as the session
        Forget = "forget",
    }
}

crate::knobs! {
    /// The lock's knobs: each a way its sources (and their bugs) differ.
    /// A variant is a preset of them ([`Knobs::GUID`] and the others).
    pub struct Knobs {
        /// Put a GUID in node names and recover a lost create reply by it (seed 001); without it, plain `lock-` names, and a lost create reply is answered by creating again.
        guid: bool,
        /// The GUID names the process, so a restarted process names its nodes anew (`c0r1-lock-`); without it the GUID names the host and outlives its process.
        guid_per_process: bool,
        /// The GUID names the session too, so a renewed session names its nodes anew (`c0s1-lock-`); without it one GUID serves every session of the process.
        guid_per_session: bool,
        /// Before the listing that recovers a lost create, `sync` the lock node (on an ensemble a follower may not yet have applied the create).
        sync_before_recovery: bool,
        /// Which node a waiter waits on.
        waits_on: WaitsOn,
        /// What `acquire` does where it would wait.
        when_blocked: WhenBlocked,
        /// What a holder makes of `Disconnected`.
        on_disconnect: OnDisconnect,
        /// What a waiter does when its connection comes back.
        on_reconnect: OnReconnect,
        /// What a waiter does when it wakes with no event.
        on_wake: OnWake,
        /// How the application thread's wait is kept from the event thread's notification.
        wait: WaitGuard,
        /// How the lock node is made.
        directory: Directory,
        /// On NONODE for its create, make the lock node again, as it was made (a container, a TTL node), and create again (Curator's `creatingParentContainersIfNeeded`); without it the acquire fails and the application, retrying it, creates again in a lock node that is gone (kazoo's `Lock`, which ensures its path once: `assured_path`).
        remakes_directory: bool,
        /// What giving up a pending acquire does with its node.
        on_cancel: OnCancel,
        /// The holder hands its sequence number to the protected resource with each write, which refuses one older than it has seen (seed 002's sequencer); only for a resource outside ZooKeeper.
        fenced: bool,
        /// Where the protected resource is, and how a holder writes to it.
        resource: ResourceIn,
    }
}

impl Knobs {
    /// The reference: see the module's documentation.
    pub const GUID: Knobs = Knobs {
        guid: true,
        guid_per_process: true,
        guid_per_session: true,
        sync_before_recovery: false,
        waits_on: WaitsOn::Next,
        when_blocked: WhenBlocked::Wait,
        on_disconnect: OnDisconnect::Suspend,
        on_reconnect: OnReconnect::Waits,
        on_wake: OnWake::Lists,
        wait: WaitGuard::Monitor,
        directory: Directory::Persistent,
        remakes_directory: true,
        on_cancel: OnCancel::Delete,
        fenced: false,
        resource: ResourceIn::Outside,
    };
    pub const NO_GUID: Knobs = Knobs {
        guid: false,
        ..Knobs::GUID
    };
    pub const HERD: Knobs = Knobs {
        waits_on: WaitsOn::Children,
        ..Knobs::GUID
    };
    pub const FENCED: Knobs = Knobs {
        fenced: true,
        ..Knobs::GUID
    };
    pub const TRY_ACQUIRE: Knobs = Knobs {
        when_blocked: WhenBlocked::GiveUp,
        ..Knobs::GUID
    };
    pub const TRUSTING: Knobs = Knobs {
        on_disconnect: OnDisconnect::Trust,
        ..Knobs::GUID
    };
    pub const CARELESS_CANCEL: Knobs = Knobs {
        on_cancel: OnCancel::Forget,
        ..Knobs::GUID
    };
    pub const SPIN: Knobs = Knobs {
        when_blocked: WhenBlocked::Retry,
        ..Knobs::GUID
    };
    pub const PROCESS_GUID: Knobs = Knobs {
        guid_per_session: false,
        ..Knobs::GUID
    };
    pub const HOST_GUID: Knobs = Knobs {
        guid_per_process: false,
        ..Knobs::GUID
    };
    pub const SYNCED_GUID: Knobs = Knobs {
        sync_before_recovery: true,
        ..Knobs::GUID
    };
    pub const ZNODE_RESOURCE: Knobs = Knobs {
        resource: ResourceIn::Znode,
        ..Knobs::GUID
    };
    pub const CHECKED_WRITE: Knobs = Knobs {
        resource: ResourceIn::CheckedZnode,
        ..Knobs::GUID
    };
    pub const UNGUARDED_WAIT: Knobs = Knobs {
        wait: WaitGuard::Unguarded,
        ..Knobs::GUID
    };
}

/// What the application asks of the lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Command {
    /// Blocks until the lock is held (or, for try-acquire, refused).
    Acquire,
    /// Writes to the protected resource, if the client believes it holds the lock.
    Work,
    Release,
    /// Gives up a pending acquire (from another thread, or when an acquire
    /// given with a timeout times out): the application may give it while
    /// `acquire` blocks.
    Cancel,
}

/// The lock recipe under one setting of its knobs.
#[derive(Clone, Debug)]
pub struct Lock {
    pub knobs: Knobs,
    contender: Contender,
    /// [`RESOURCE`], where the resource is in ZooKeeper.
    resource: Option<Path>,
}

impl Lock {
    /// The lock with these knobs, set on the contender's machinery.
    pub fn new(knobs: Knobs) -> Lock {
        let rule = match knobs.waits_on {
            WaitsOn::Lowest => decide_lowest,
            WaitsOn::Next | WaitsOn::Children => decide,
        };
        let mut contender = Contender::new("/lock", rule);
        contender.guid = knobs.guid;
        contender.process_guid = knobs.guid_per_process;
        contender.session_guid = knobs.guid_per_session;
        contender.sync_recovery = knobs.sync_before_recovery;
        contender.herd = knobs.waits_on == WaitsOn::Children;
        contender.try_once = knobs.when_blocked != WhenBlocked::Wait;
        contender.spin = knobs.when_blocked == WhenBlocked::Retry;
        contender.trusting = knobs.on_disconnect == OnDisconnect::Trust;
        contender.relists = knobs.on_reconnect == OnReconnect::Lists;
        contender.takes_wake = knobs.on_wake == OnWake::Holds;
        contender.unguarded_wait = knobs.wait == WaitGuard::Unguarded;
        contender.remakes_dir = knobs.remakes_directory.then(|| knobs.directory.mode());
        contender.careless_cancel = knobs.on_cancel == OnCancel::Forget;
        contender.fenced = knobs.fenced;
        contender.writes = knobs.resource.writes();
        let resource = (knobs.resource != ResourceIn::Outside).then(|| Path::new(RESOURCE));
        Lock {
            knobs,
            contender,
            resource,
        }
    }
}

impl Recipe for Lock {
    type State = State;
    type Command = Command;
    type Fact = std::convert::Infallible;
    type Log = ();

    const PHASES: &'static [&'static str] = &super::contender::PHASES;

    fn phases(&self, state: &Self::State) -> u64 {
        1 << state.phase.index()
    }

    fn shape(&self, state: &Self::State) -> u64 {
        state.shape()
    }

    fn init(&self, _me: Incarnation) -> State {
        State::new(Role::Lock)
    }

    /// Its properties read the history, the store, and (in quiescent states
    /// only) whether a client waits and which nodes it claims; it keeps no
    /// log: [`crate::partial_order`] applies.
    fn observed_through_history(&self) -> bool {
        true
    }

    /// A contender finds its node in a listing by its GUID and ranks nodes
    /// by sequence number, whatever their order. Not where two nodes may
    /// carry its GUID and it takes the first listed: a host's GUID is its
    /// dead predecessor's too, a process's GUID its abandoned session's
    /// (whose node the server keeps until it expires it), and a careless
    /// application leaves a node behind under its GUID while it creates
    /// another.
    fn symmetric(&self) -> bool {
        let knobs = &self.knobs;
        let one_guid_one_node = !knobs.guid || (knobs.guid_per_process && knobs.guid_per_session);
        one_guid_one_node && knobs.on_cancel == OnCancel::Delete
    }

    /// A contender keeps names and a count of renewals, and compares
    /// sequence numbers parsed from names by their order alone
    /// ([`super::contender::decide_by`]).
    fn reads_counters_by_order(&self) -> bool {
        true
    }

    fn handle(&self, me: Incarnation, state: &mut State, input: Input<Command>, out: &mut Effects) {
        let contender = &self.contender;
        match input {
            Input::Command(Command::Acquire) => contender.acquire(me, state, Role::Lock, out),
            // Working or releasing without the lock, or acquiring twice: the
            // application knows it cannot, and goes on with its script.
            Input::Command(Command::Work) => contender.work(state, out),
            Input::Command(Command::Release) => contender.release(state, out),
            Input::Command(Command::Cancel) => contender.cancel(state, out),
            Input::Reply { op, result } => contender.on_reply(me, state, op, result, out),
            Input::Watch(event) => contender.on_watch(state, &event, out),
            Input::Session(event) => contender.on_session(state, event, out),
        }
        contender.settle(state);
    }

    /// With `wait = "unguarded"`, the application thread that took the
    /// reply of `exists()` has its wait still to do.
    fn ready(&self, state: &State) -> Option<&'static str> {
        self.contender
            .ready(state)
            .then_some("application thread: waits for the notification")
    }

    fn go_on(&self, _: Incarnation, state: &mut State, _: &mut Effects) {
        self.contender.go_on(state)
    }

    fn is_busy(&self, state: &State) -> bool {
        self.contender.is_busy(state)
    }

    fn waits(&self, state: &State) -> bool {
        self.contender.waits(state)
    }

    fn wake(&self, _: Incarnation, state: &mut State, out: &mut Effects) {
        self.contender.wake(state, out)
    }

    fn interrupts(&self, _state: &State, command: &Command) -> bool {
        *command == Command::Cancel
    }

    fn timeout(&self) -> Option<Command> {
        Some(Command::Cancel)
    }

    fn parts() -> &'static [crate::recipe::Part<Lock>] {
        &[crate::recipe::Part {
            name: "holder",
            meaning: "a client that believes it holds the lock",
            played: |_, state| state.holds(),
        }]
    }

    fn is_waiting(&self, state: &State) -> bool {
        self.contender.is_waiting(state)
    }

    fn counts_in_herd(&self, state: &State) -> bool {
        self.contender.wakeable(state)
    }

    fn directory_mode(&self) -> CreateMode {
        self.knobs.directory.mode()
    }

    fn directory(&self) -> &Path {
        &self.contender.dir
    }

    fn resource_node(&self) -> Option<&Path> {
        self.resource.as_ref()
    }

    fn claims(&self, state: &State, name: &str) -> bool {
        self.contender.claims(state, name)
    }
}

/// A command in a trace: the name scenario scripts give it.
impl std::fmt::Display for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(crate::catalogued::command_name::<Lock>(self))
    }
}

impl Catalogued for Lock {
    /// On `Expired` it gives up what it held or waited for; once its library
    /// opened a new session the application may ask again, under a GUID of
    /// that session ([`super::contender::Contender::session_guid`]).
    const RENEWS: bool = true;
    const WAITS: bool = true;
    const NAME: &'static str = "lock";
    const DOCS: Docs = Docs {
        summary: "the exclusive lock: sequential ephemeral nodes under /lock, the lowest holds, each waiter watches its predecessor",
        variants: &[
            ("guid", "the reference: the GUID in node names recovers a lost create reply, Disconnected means \"I may have lost it\""),
            ("no_guid", "plain lock- names: after a lost create reply it creates again, orphaning the first node"),
            ("herd", "waiters list the children with a watch and wake on every change (the herd effect)"),
            ("fenced", "the holder hands its sequence number to the resource, which refuses older ones"),
            ("try_acquire", "gives up instead of waiting: deletes its node and returns"),
            ("trusting", "ignores Disconnected and believes it holds until it hears Expired"),
            ("careless_cancel", "gives up a cancelled or timed-out acquire without deleting its node"),
            ("spin", "try_acquire in a loop: a refused attempt deletes its node and creates another at once"),
            ("process_guid", "keeps one GUID across renewed sessions: recovering a lost create may adopt its previous session's node"),
            ("host_guid", "a GUID of the host, kept across restarts: recovering a lost create may adopt a dead predecessor's node"),
            ("synced_guid", "the reference, with a sync before the listing that recovers a lost create: on an ensemble it never misses its own node"),
            ("znode_resource", "the reference guarding a resource in ZooKeeper, /resource, written with setData through the holder's session"),
            ("checked_write", "the reference guarding /resource, each write a multi that first checks the holder's lock node exists"),
            ("unguarded_wait", "the application thread takes the reply of exists() and waits a step later, unguarded: a notification handed over in between is lost"),
        ],
        commands: &[
            ("acquire", "block until the lock is held (try_acquire: or refused)"),
            ("work", "write to the protected resource, if it believes it holds the lock"),
            ("release", "delete its node"),
            ("cancel", "give up a pending acquire, deleting its node (also what a timeout does: \"acquire with timeout\")"),
        ],
        group: &[
            &["acquire", "work", "release"],
            &["acquire", "work", "release"],
        ],
    };
    type Variant = Knobs;
    const VARIANTS: &'static [(&'static str, Knobs)] = &[
        ("guid", Knobs::GUID),
        ("no_guid", Knobs::NO_GUID),
        ("herd", Knobs::HERD),
        ("fenced", Knobs::FENCED),
        ("try_acquire", Knobs::TRY_ACQUIRE),
        ("trusting", Knobs::TRUSTING),
        ("careless_cancel", Knobs::CARELESS_CANCEL),
        ("spin", Knobs::SPIN),
        ("process_guid", Knobs::PROCESS_GUID),
        ("host_guid", Knobs::HOST_GUID),
        ("synced_guid", Knobs::SYNCED_GUID),
        ("znode_resource", Knobs::ZNODE_RESOURCE),
        ("checked_write", Knobs::CHECKED_WRITE),
        ("unguarded_wait", Knobs::UNGUARDED_WAIT),
    ];
    const COMMANDS: &'static [(&'static str, Command)] = &[
        ("acquire", Command::Acquire),
        ("work", Command::Work),
        ("release", Command::Release),
        ("cancel", Command::Cancel),
    ];

    type Params = NoParams;

    /// A sequencer is handed to a resource outside ZooKeeper, which refuses
    /// an older one; the server cannot read one, so a resource in it is
    /// fenced by a checked write instead.
    fn check_variant(knobs: &Knobs) -> Result<(), (&'static str, String)> {
        if knobs.fenced && knobs.resource != ResourceIn::Outside {
            return Err((
                "fenced",
                format!(
                    "true with resource = \"{}\", but only a resource outside ZooKeeper reads a \
                     sequencer; expected fenced = false, or resource = \"checked_znode\" to fence \
                     the writes in ZooKeeper",
                    knobs.resource.name()
                ),
            ));
        }
        Ok(())
    }

    fn build(knobs: Knobs, _params: &NoParams, _scripts: &[Vec<Self::Command>]) -> Lock {
        Lock::new(knobs)
    }

    fn properties() -> Vec<Promise<Lock>> {
        properties()
    }
}

/// What the lock promises, each `always` with its `sometimes` partner.
pub fn properties() -> Vec<Promise<Lock>> {
    vec![
        Promise::mutual_exclusion(),
        Promise::resource_safety(),
        Promise::herd_avoidance(),
        Promise::no_orphan_no_deadlock(),
        Promise::someone_acquired().by_default(true),
        Promise::waiter_woken(),
    ]
}

/// The sequence number of a lock node name: what follows its last `lock-`,
/// as the server formats it (ten digits, or a sign and more for a counter
/// that overflowed).
pub fn sequence(name: &str) -> Option<Token> {
    sequence_after(name, "lock-")
}

/// Steps 3 and 4 as a pure function of the children (in any order) and our
/// node's name: order the lock nodes by sequence number, not by name (GUID
/// prefixes differ), and hold the lock or watch the next lowest node.
/// Children that are not lock nodes are ignored.
pub fn decide(children: &[Arc<str>], mine: &str) -> Decision {
    let parse = |name: &str| sequence(name).map(|sequence| (Role::Lock, sequence));
    decide_by(children, mine, parse, |_, _| true, Pick::Next)
}

/// [`decide`] watching the lowest lock node below ours instead of the next
/// one down (the `waits_on = "lowest"` knob): every waiter watches the
/// holder, and its release wakes them all.
pub fn decide_lowest(children: &[Arc<str>], mine: &str) -> Decision {
    let parse = |name: &str| sequence(name).map(|sequence| (Role::Lock, sequence));
    decide_by(children, mine, parse, |_, _| true, Pick::Lowest)
}

#[cfg(test)]
mod tests {
    use super::super::contender::permutations;
    use super::*;

    fn names(list: &[&str]) -> Vec<Arc<str>> {
        list.iter().map(|name| Arc::from(*name)).collect()
    }

    /// Every order of every subset of these nodes, with ours at each place:
    /// the answer depends only on the sequence numbers.
    #[test]
    fn decide_holds_exactly_when_ours_is_lowest_and_watches_the_next_lowest() {
        let all = [
            "c2-lock-0000000000",
            "c0-lock-0000000001",
            "c1-lock-0000000002",
            "lock-0000000003",
        ];
        for mask in 1u32..16 {
            let present: Vec<&str> = (0..4)
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| all[i])
                .collect();
            for permutation in permutations(&present) {
                let children = names(&permutation);
                for (rank, mine) in present.iter().enumerate() {
                    let expected = if rank == 0 {
                        Decision::Holds
                    } else {
                        Decision::Watch(Arc::from(present[rank - 1]))
                    };
                    assert_eq!(
                        decide(&children, mine),
                        expected,
                        "{children:?} mine {mine}"
                    );
                }
            }
        }
    }

    #[test]
    fn decide_orders_by_sequence_not_by_name() {
        // By name, "c0-..." sorts before "c9-..."; by sequence it is the other way.
        let children = names(&["c0-lock-0000000007", "c9-lock-0000000003"]);
        assert_eq!(decide(&children, "c9-lock-0000000003"), Decision::Holds);
        assert_eq!(
            decide(&children, "c0-lock-0000000007"),
            Decision::Watch(Arc::from("c9-lock-0000000003"))
        );
    }

    #[test]
    fn decide_reports_our_node_missing() {
        let children = names(&["c1-lock-0000000001"]);
        assert_eq!(decide(&children, "c0-lock-0000000000"), Decision::Missing);
        assert_eq!(decide(&[], "c0-lock-0000000000"), Decision::Missing);
    }

    #[test]
    fn decide_ignores_children_that_are_not_lock_nodes() {
        let children = names(&["readme", "c0-lock-0000000004", "lock-junk"]);
        assert_eq!(decide(&children, "c0-lock-0000000004"), Decision::Holds);
    }

    #[test]
    fn decide_follows_the_signed_counter_after_overflow() {
        // After 2147483647 the server names the next node -2147483648: it sorts
        // lowest, so a newer node jumps the queue (the documented overflow).
        let children = names(&["c0-lock-2147483647", "c1-lock--2147483648"]);
        assert_eq!(decide(&children, "c1-lock--2147483648"), Decision::Holds);
    }

    #[test]
    fn sequence_reads_the_suffix_after_the_last_lock_prefix() {
        assert_eq!(sequence("c0-lock-0000000012"), Some(12));
        assert_eq!(sequence("lock-0000000000"), Some(0));
        assert_eq!(sequence("c1-lock--000000004"), Some(-4));
        assert_eq!(sequence("c0-lock-"), None);
        assert_eq!(sequence("plain"), None);
    }
}
