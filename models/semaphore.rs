//! The counting semaphore: at most `max_leases` clients hold a lease at once,
//! the others wait, served in the order ZooKeeper saw them ask. The seeds have
//! no semaphore; this follows Apache Curator's `InterProcessSemaphoreV2` as it
//! stands after the fixes for CURATOR-315 and CURATOR-335 (the algorithm is
//! Ben Bangert's, which kazoo's `Semaphore` also follows).
//!
//! Acquiring a lease (Curator's `internalAcquire1Lease`), each step with the
//! code that does it:
//!
//! 1. Take the internal lock, an `InterProcessMutex` on `<path>/locks`: the
//!    exclusive lock recipe, GUID recovery included ([`Phase::Locking`]; the
//!    lock's own [`Contender`] with its rule [`lock::decide`]).
//! 2. Create `<path>/leases/<guid>-lease-`, ephemeral and sequential, in
//!    Curator's protected mode: after a lost reply, list the leases and adopt
//!    the node that carries our GUID, else create again ([`Phase::Creating`],
//!    [`Phase::Recovering`]).
//! 3. `getChildren(<path>/leases)` with a watch ([`Phase::Listing`]; the
//!    model sets the watch only on a listing it may wait on, for want of
//!    removeWatches: `Semaphore::list_to_wait`).
//! 4. If our node is not among the children, it was lost: create another
//!    ([`Grant::Missing`]).
//! 5. If there are at most `maxLeases` children, we hold a lease
//!    ([`decide`] answers [`Grant::Holds`]).
//! 6. Otherwise wait until the watch fires, then go to step 3 ([`Grant::Wait`],
//!    [`Phase::Waiting`]).
//! 7. Release the internal lock (delete our lock node); `acquire()` returns
//!    once that delete has returned (`Semaphore::hold`).
//!
//! Returning the lease: delete our lease node, retrying through connection
//! loss as Curator's `delete().guaranteed()` does ([`Command::Release`]).
//!
//! Why the internal lock: only its holder creates a lease node and counts,
//! so no lease node is created between our create and our count, and every
//! older one belongs to a holder (or to a session that has not ended yet).
//! Counting the children is then judging our node's place among them: at
//! most `maxLeases` children means ours is among the oldest `maxLeases`.
//! And only one client watches the leases at a time: a lease returned wakes
//! that one waiter, while the others wait for the internal lock, each
//! watching its predecessor there (no herd).
//!
//! A connection loss in step 3 (CURATOR-335, fixed in 2016): Curator retries
//! the listing as its `RetryPolicy` allows, then `acquire()` throws. Before
//! the fix it threw with the lease node still there, an orphan that kept a
//! lease from everyone for as long as the session lived; since the fix it
//! deletes the node first (`returnLease`). A model has no clock, so the
//! policy's patience may be any length: here a connection loss of the
//! listing ends the attempt ([`Observation::GaveUp`], [`Phase::Abandoning`]),
//! deleting the node (the reference) or not (`leaky`). The internal lock is
//! released either way (`finally { lock.release(); }`).
//!
//! Sessions: Curator's semaphore leaves the connection to the application
//! ("clients should set their own connection state listener"; its
//! documentation: after SUSPENDED you cannot be certain you still hold the
//! lease, after RECONNECTED you do, after LOST you do not). The reference is
//! the application that follows that advice: `Disconnected` suspends a holder
//! ([`Phase::Suspended`]); `SyncConnected` checks that its node still exists
//! ([`Phase::Checking`]), with `exists` rather than by counting (waiters'
//! nodes may have made the count exceed `maxLeases` although our lease
//! stands); `Expired` loses it. The internal lock, Curator's mutex, has no
//! listener: it keeps its node through a disconnect
//! ([`Contender::trusting`]), and what it believes is the semaphore's
//! business, not the application's, so its observations are dropped.
//!
//! Renewed sessions (`[library] on_expiry = "renew"`, as Curator and kazoo
//! do): when its session is lost a holder has lost its lease and a pending
//! `acquire` returns unacquired (`Lost`, `GaveUp`, as with `Expired` above);
//! once its library has opened a new session the application may `acquire`
//! again. The server keeps the old session, and its lease node, until that
//! session times out. The reference tells its own lease node from its
//! previous session's by its name, as the lock does: the GUID names the
//! session as well as the process (`c0s1-lease-` in the second session), and
//! recovering a lost create looks only for this session's GUID. (Curator
//! gets the same from a fresh UUID for every protected create.)
//!
//! Fault budgets: it refuses none ([`Catalogued::check_faults`]). A restarted
//! process has a GUID of its own, so it never adopts its predecessor's nodes,
//! which live until the server expires the old session; the world tells the
//! two processes apart as it does for the lock.
//!
//! Where the model departs from Curator, and why it does not matter here:
//! - step 4: Curator releases the internal lock and takes it again before
//!   creating; the model creates again while holding it. No run reaches this
//!   branch (nobody deletes another's lease node, and a client whose session
//!   ended hears `Expired` before any listing); `tests/semaphore.rs` does.
//! - Curator's watcher also wakes the waiter on session events, which lists
//!   again; the model lists again only on the children event, since on
//!   reconnect SetWatches fires any change the waiter missed.
//! - Curator names lease nodes `_c_<uuid>-lease-`; the model's GUID is the
//!   process's (`c0-lease-`).
//!
//! kazoo's `Semaphore` takes a lock at `<path>-__lock__`, lists the holders
//! under `<path>` with a watch, creates its (non-sequential) node only if
//! there are fewer than `max_leases`, and waits for a change otherwise: the
//! same protection by a lock, counting before creating.
//!
//! Variants are presets of five knobs ([`Knobs`]), which a scenario may turn
//! one by one (`[knobs]`, per client in `[[client]]`):
//! - `reference`: the above;
//! - `check_then_create` (`locked = false`, `order = "count_then_create"`):
//!   kazoo's order without kazoo's lock, the naive
//!   semaphore: list the leases, create a node only if there are fewer than
//!   `maxLeases` (else wait for a change), and hold once it is created. Two
//!   clients that count before either creates both find room;
//! - `create_then_check` (`locked = false`): Curator's steps 2 to 6 without its internal lock.
//!   Safe on beliefs (each holder counted its own node and every older one),
//!   but every waiter watches the leases (a herd), and clients that all
//!   create before any counts all wait, for ever;
//! - `leaky` (`on_give_up = "forgets_node"`): Curator before CURATOR-335: a connection loss in step 3 ends
//!   the attempt without deleting the lease node;
//! - `trusting` (`on_disconnect = "trust"`): the application without the connection state listener
//!   Curator's documentation asks for: a holder goes on believing through
//!   `Disconnected` until it hears `Expired`;
//! - `process_guid` (`guid_per_session = false`): kazoo's GUID, a uuid of the semaphore object, kept for
//!   the life of the process across renewed sessions (for its lease nodes
//!   and its internal lock's). Recovering a lost create in a new session can
//!   adopt the lease node of the session its library gave up, which goes
//!   when the server times that session out.
//!
//! `order = "count_then_create"` with the lock (no preset) is kazoo's
//! semaphore: it counts under the lock and waits holding it. Every
//! combination of the knobs is a coherent semaphore.
//!
//! What the semaphore promises (`Semaphore::properties`):
//! - `leases_within_limit`, on beliefs: at most `maxLeases` clients believe
//!   they hold a lease ([`leases_within_limit`]);
//! - `leases_granted`, on the server's nodes: every client that believes it
//!   holds a lease holds it by a lease node that exists and is among the
//!   `maxLeases` oldest live lease nodes, oldest by creation (czxid) order
//!   ([`leases_granted`]). Why this is the server's grant: ZooKeeper orders
//!   the lease nodes, and a node stands for one claim on a lease while its
//!   session lives, whoever owns it (a crashed process's, an orphan); the
//!   claims the semaphore can honour together are the oldest `maxLeases`,
//!   since a newer node waits until an older one goes (Curator: "each user
//!   will get a lease in the order requested (from ZK's point of view)").
//!   A believer whose node is gone (its session expired while it was paused)
//!   or that stands behind `maxLeases` older live nodes holds a lease the
//!   server's state does not grant. Believers hold by distinct nodes, so
//!   this implies `leases_within_limit`, and breaks sooner: one believer on
//!   an expired node breaks it while fewer than `maxLeases` believe;
//! - the shared herd avoidance and no orphan, no deadlock;
//! - partners: `leases_shared` (two clients hold at once: the semaphore is
//!   not merely a lock), `semaphore_full` (every lease is held while another
//!   client waits: the limit was reached), `waiter_woken`.

use std::fmt;
use std::sync::Arc;

use super::contender::{self, sequence_after, Contender};
use super::lock;
use crate::catalogued::{Catalogued, Docs};
use crate::client::SessionEvent;
use crate::properties::{self, Promise};
use crate::recipe::{ClientId, Effects, Incarnation, Input, Observation, Recipe, Role, Token};
use crate::store::{
    CreateMode, ErrorCode, EventType, Op, OpResult, Path, Response, WatchEvent, ANY_VERSION,
};
use crate::world::{Run, Status, Tenure, World, WorldState};

/// The semaphore's path; its internal lock and its leases are children.
pub const ROOT: &str = "/semaphore";
/// Where the internal lock's nodes go (Curator's `<path>/locks`).
pub const LOCKS: &str = "/semaphore/locks";
/// Where the lease nodes go (Curator's `<path>/leases`).
pub const LEASES: &str = "/semaphore/leases";

/// The number of leases when a scenario does not say (`[params]
/// max_leases`): two, so that three clients show both sharing and waiting.
pub const DEFAULT_MAX_LEASES: u8 = 2;

/// The semaphore's parameters (`[params]`).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// How many clients may hold a lease at once (Curator's `maxLeases`).
    pub max_leases: u8,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            max_leases: DEFAULT_MAX_LEASES,
        }
    }
}

impl crate::catalogued::Params for Params {
    const MEANINGS: &'static [(&'static str, &'static str)] = &[(
        "max_leases",
        "how many clients may hold a lease at once (1 to 5; Curator's maxLeases)",
    )];
}

crate::knob_value! {
    /// Whether a client creates its lease node before it counts the leases, or after.
    pub enum Order {
        /// it creates its node, then counts it and every older one (Curator's; the reference)
        CreateThenCount = "create_then_count",
        /// it counts the lease nodes, and creates one only if there is room (kazoo's, and the naive semaphore's)
        CountThenCreate = "count_then_create",
    }
}

crate::knob_value! {
    /// What an attempt that gives up (a lost listing) does with its lease node.
    pub enum OnGiveUp {
        /// deletes it before `acquire()` throws (CURATOR-335's fix; the reference)
        DeletesNode = "deletes_node",
        /// forgets it: the node stays as long as the session (Curator before CURATOR-335)
        ForgetsNode = "forgets_node",
    }
}

crate::knob_value! {
    /// What a holder makes of `Disconnected`.
    pub enum OnDisconnect {
        /// "I may have lost it": it stops acting as holder until its node is found again (the connection state listener Curator asks for; the reference)
        Suspend = "suspend",
        /// nothing: it believes it holds until it hears `Expired`
        Trust = "trust",
    }
}

crate::knobs! {
    /// The semaphore's knobs. A variant is a preset of them
    /// ([`Knobs::REFERENCE`] and the others).
    pub struct Knobs {
        /// Take the internal lock around counting and creating (Curator's `<path>/locks`, kazoo's `<path>-__lock__`); without it nothing keeps two clients from counting at once.
        locked: bool,
        /// Whether a client creates its lease node before it counts, or after.
        order: Order,
        /// What an attempt that gives up does with its lease node.
        on_give_up: OnGiveUp,
        /// What a holder makes of `Disconnected`.
        on_disconnect: OnDisconnect,
        /// The GUID in the lease and lock nodes' names names the session too (`c0s1-lease-`); without it one GUID serves every session of the process (kazoo's uuid of the semaphore object).
        guid_per_session: bool,
    }
}

impl Knobs {
    /// The reference: see the module's documentation.
    pub const REFERENCE: Knobs = Knobs {
        locked: true,
        order: Order::CreateThenCount,
        on_give_up: OnGiveUp::DeletesNode,
        on_disconnect: OnDisconnect::Suspend,
        guid_per_session: true,
    };
    pub const CHECK_THEN_CREATE: Knobs = Knobs {
        locked: false,
        order: Order::CountThenCreate,
        ..Knobs::REFERENCE
    };
    pub const CREATE_THEN_CHECK: Knobs = Knobs {
        locked: false,
        ..Knobs::REFERENCE
    };
    pub const LEAKY: Knobs = Knobs {
        on_give_up: OnGiveUp::ForgetsNode,
        ..Knobs::REFERENCE
    };
    pub const TRUSTING: Knobs = Knobs {
        on_disconnect: OnDisconnect::Trust,
        ..Knobs::REFERENCE
    };
    pub const PROCESS_GUID: Knobs = Knobs {
        guid_per_session: false,
        ..Knobs::REFERENCE
    };
}

/// What the application asks of the semaphore.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Command {
    /// Blocks until a lease is held, or until the attempt fails (a lost
    /// listing).
    Acquire,
    /// Returns the lease: deletes its node.
    Release,
}

/// What the rule decides, given the leases and our node (steps 4 to 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grant {
    /// We hold a lease.
    Holds,
    /// Watch the leases' children and decide again when they change.
    Wait,
    /// Our node is not among the leases.
    Missing,
}

/// Steps 4 to 6 as a pure function of the leases' children (in any order),
/// our node's name and the number of leases: Curator counts every child,
/// ours included, and holds when there are at most `max_leases`. A waiter
/// has one thing to watch, the leases' children, which its listing already
/// watches.
pub fn decide(children: &[Arc<str>], mine: &str, max_leases: u8) -> Grant {
    if !children.iter().any(|name| **name == *mine) {
        Grant::Missing
    } else if children.len() <= usize::from(max_leases) {
        Grant::Holds
    } else {
        Grant::Wait
    }
}

/// kazoo's test before it creates its node (`check_then_create`): whether
/// fewer than `max_leases` lease nodes exist.
pub fn has_room(children: &[Arc<str>], max_leases: u8) -> bool {
    children.len() < usize::from(max_leases)
}

/// The sequence number of a lease node name: what follows its last `lease-`.
pub fn sequence(name: &str) -> Option<Token> {
    sequence_after(name, contender::marker(Role::Lease))
}

/// Where a client is in acquiring and returning its lease.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Not holding and not trying.
    Idle,
    /// Step 1: acquiring the internal lock ([`State::lock`] says where).
    Locking,
    /// Step 2 sent.
    Creating,
    /// Step 2's reply was lost: listing the leases to find our GUID's node.
    Recovering,
    /// Step 3 sent.
    Listing,
    /// Step 6: waiting for the leases' children to change.
    Waiting,
    /// Step 5 said so: it holds a lease.
    Held,
    /// Held, then disconnected: it may have lost the lease.
    Suspended,
    /// Reconnected after a suspension: asking whether its node still exists.
    Checking,
    /// The lease's delete sent.
    Releasing,
    /// The attempt failed (a lost listing): deleting the lease node.
    Abandoning,
    /// The session expired: this process is done.
    Dead,
}

/// The phases by name, in declaration order: what a check's coverage
/// reports ([`Recipe::PHASES`]).
const PHASES: [&str; 12] = [
    "Idle",
    "Locking",
    "Creating",
    "Recovering",
    "Listing",
    "Waiting",
    "Held",
    "Suspended",
    "Checking",
    "Releasing",
    "Abandoning",
    "Dead",
];

impl Phase {
    /// This phase's place in [`PHASES`].
    fn index(&self) -> u32 {
        match self {
            Phase::Idle => 0,
            Phase::Locking => 1,
            Phase::Creating => 2,
            Phase::Recovering => 3,
            Phase::Listing => 4,
            Phase::Waiting => 5,
            Phase::Held => 6,
            Phase::Suspended => 7,
            Phase::Checking => 8,
            Phase::Releasing => 9,
            Phase::Abandoning => 10,
            Phase::Dead => 11,
        }
    }
}

/// One client's state: its lease and the internal lock it takes to get one.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct State {
    pub phase: Phase,
    /// Our lease node's name, once known.
    pub node: Option<Arc<str>>,
    /// The internal lock (idle without `locked`).
    pub lock: contender::State,
    /// How many times its client library renewed its session.
    pub renewals: u8,
}

/// Its lease node's name and its internal lock's names are renamed.
impl crate::recipe::Symmetric for State {
    fn renamed(&self, renaming: &crate::store::rename::Renaming) -> Option<State> {
        Some(State {
            phase: self.phase.clone(),
            node: self.node.as_ref().map(|node| renaming.name(node)),
            lock: self.lock.renamed(renaming)?,
            renewals: self.renewals,
        })
    }

    /// Its phase, renewals and lease's sequence number, and its lock's.
    fn anonymous(&self) -> u64 {
        let lease = (self.node.as_deref()).and_then(|node| sequence_after(node, "-"));
        let own = u64::from(self.phase.index()) << 8 | u64::from(self.renewals);
        let lease = lease.map_or(u64::MAX, |lease| lease as u64);
        self.lock.anonymous() ^ own << 48 ^ lease.rotate_left(24)
    }
}

impl State {
    pub fn new() -> State {
        State {
            phase: Phase::Idle,
            node: None,
            lock: contender::State::new(Role::Lock),
            renewals: 0,
        }
    }

    pub fn holds(&self) -> bool {
        self.phase == Phase::Held
    }
}

impl Default for State {
    fn default() -> State {
        State::new()
    }
}

/// Debug as the trace words it: the explorer and test failures read the same.
impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// `Locking (Watching c0-lock-0000000000 from c1-lock-0000000001)`,
/// `Waiting c2-lease-0000000002; internal lock Held c2-lock-0000000002`,
/// `Held c0-lease-0000000000; internal lock Releasing c0-lock-0000000000`.
impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.phase == Phase::Locking {
            return write!(f, "Locking ({})", self.lock);
        }
        fmt::Debug::fmt(&self.phase, f)?;
        match &self.node {
            Some(node) => write!(f, " {node}")?,
            None if matches!(self.phase, Phase::Creating | Phase::Recovering) => {
                write!(f, " {}", contender::marker(Role::Lease))?
            }
            None => {}
        }
        if !matches!(
            self.lock.phase,
            contender::Phase::Idle | contender::Phase::Dead
        ) {
            // The internal lock's words name the session already.
            write!(f, "; internal lock {}", self.lock)
        } else if self.renewals > 0 {
            write!(f, ", session {}", self.renewals + 1)
        } else {
            Ok(())
        }
    }
}

/// The semaphore under one setting of its knobs, with its number of leases.
#[derive(Clone, Debug)]
pub struct Semaphore {
    pub knobs: Knobs,
    pub max_leases: u8,
    root: Path,
    leases: Path,
    /// The internal lock: the exclusive lock's contender on [`LOCKS`].
    lock: Contender,
}

impl Semaphore {
    pub fn new(knobs: Knobs, max_leases: u8) -> Semaphore {
        let mut lock = Contender::new(LOCKS, lock::decide);
        // Curator's mutex keeps no connection state listener of its own.
        lock.trusting = true;
        // kazoo's lock inside its semaphore names its nodes after the same
        // object, whatever the session.
        lock.session_guid = knobs.guid_per_session;
        Semaphore {
            knobs,
            max_leases,
            root: Path::new(ROOT),
            leases: Path::new(LEASES),
            lock,
        }
    }

    /// The leases' directory.
    pub fn leases(&self) -> &Path {
        &self.leases
    }

    /// Whether it takes the internal lock (step 1).
    pub fn is_locked(&self) -> bool {
        self.knobs.locked
    }

    fn is_lock_path(&self, path: Option<&Path>) -> bool {
        path.is_some_and(|path| *path == self.lock.dir || path.is_child_of(&self.lock.dir))
    }

    /// Hands the internal lock `f`. Only its requests go out: whether the
    /// internal lock is held is no belief of the application's.
    fn with_lock(
        &self,
        state: &mut State,
        out: &mut Effects,
        f: impl FnOnce(&Contender, &mut contender::State, &mut Effects),
    ) {
        let mut inner = Effects::default();
        f(&self.lock, &mut state.lock, &mut inner);
        out.requests.extend(inner.requests);
    }

    fn acquire(&self, me: Incarnation, state: &mut State, out: &mut Effects) {
        if state.phase != Phase::Idle {
            return;
        }
        if self.is_locked() {
            state.phase = Phase::Locking;
            self.with_lock(state, out, |lock, s, e| lock.acquire(me, s, Role::Lock, e));
        } else {
            self.begin(me, state, out);
        }
    }

    /// The first step after the internal lock (or without one): count, or
    /// create, as `order` says.
    fn begin(&self, me: Incarnation, state: &mut State, out: &mut Effects) {
        match self.knobs.order {
            Order::CountThenCreate => self.list(state, out),
            Order::CreateThenCount => self.create(me, state, out),
        }
    }

    /// Step 2.
    fn create(&self, me: Incarnation, state: &mut State, out: &mut Effects) {
        state.phase = Phase::Creating;
        state.node = None;
        out.send(Op::Create {
            path: self.leases.child(&self.prefix(me, state)),
            data: None,
            mode: CreateMode::EphemeralSequential,
        });
    }

    /// Our lease nodes' names before the sequence number: `c0-lease-`, and
    /// once the library renewed the session `c0s1-lease-`, but without
    /// `guid_per_session`, whose GUID lives as long as the process.
    pub fn prefix(&self, me: Incarnation, state: &State) -> String {
        let guid = if self.knobs.guid_per_session {
            crate::recipe::session_scoped(me.guid(), state.renewals)
        } else {
            me.guid()
        };
        format!("{guid}-{}", contender::marker(Role::Lease))
    }

    /// Step 3, first without a watch (`Semaphore::list_to_wait` says why).
    fn list(&self, state: &mut State, out: &mut Effects) {
        state.phase = Phase::Listing;
        out.send(Op::GetChildren {
            path: self.leases.clone(),
            watch: false,
        });
    }

    /// Step 3 with its watch, for a client whose last listing said wait: it
    /// asks again, watching, and waits if this listing says so too. Curator
    /// sets the watch with every listing and removes it once it holds
    /// (`removeWatchers()`, ZooKeeper 3.5's removeWatches); the store has no
    /// removeWatches, and a watch left behind by every holder would send
    /// each of them a notification at every change of the leases, a message
    /// to deliver somewhere in every run for nothing (it doubled the states
    /// of three clients). Setting the watch only where it will be waited on
    /// leaves the same watches on the server whenever the client waits, at
    /// the cost of one more listing before it does.
    fn list_to_wait(&self, state: &mut State, out: &mut Effects) {
        state.phase = Phase::Listing;
        out.send(Op::GetChildren {
            path: self.leases.clone(),
            watch: true,
        });
    }

    fn delete(&self, name: &str) -> Op {
        Op::Delete {
            path: self.leases.child(name),
            version: ANY_VERSION,
        }
    }

    /// We know our node (created, or found by its GUID): count, or with
    /// `count_then_create`, which counted before creating, hold.
    fn known(&self, state: &mut State, name: Arc<str>, out: &mut Effects) {
        state.node = Some(name);
        if self.knobs.order == Order::CountThenCreate {
            self.hold(state, out);
        } else {
            self.list(state, out);
        }
    }

    /// Steps 4 to 6, given the children a listing returned: a listing that
    /// set its watch may be waited on, one that did not is asked again with
    /// it.
    fn decided(
        &self,
        me: Incarnation,
        state: &mut State,
        names: &[Arc<str>],
        watched: bool,
        out: &mut Effects,
    ) {
        let grant = match state.node.clone() {
            Some(mine) => decide(names, &mine, self.max_leases),
            // `check_then_create` counts before it has a node.
            None if has_room(names, self.max_leases) => return self.create(me, state, out),
            None => Grant::Wait,
        };
        match grant {
            Grant::Holds => self.hold(state, out),
            Grant::Wait if watched => state.phase = Phase::Waiting,
            Grant::Wait => self.list_to_wait(state, out),
            Grant::Missing => self.create(me, state, out),
        }
    }

    /// Step 5 said we hold: believe it, and step 7, release the internal lock.
    fn hold(&self, state: &mut State, out: &mut Effects) {
        state.phase = Phase::Held;
        out.observe(Observation::Acquired {
            token: self.token(state).expect("a lease node is sequential"),
            node: state.node.clone().expect("a holder has its lease node"),
            role: Role::Lease,
        });
        if self.is_locked() {
            self.with_lock(state, out, |lock, s, e| lock.release(s, e));
        }
    }

    fn token(&self, state: &State) -> Option<Token> {
        sequence(state.node.as_deref()?)
    }

    /// The listing was lost and the retry policy gave up: `acquire()` throws.
    /// The reference returns the lease node first (CURATOR-335's fix);
    /// `leaky` forgets it. The internal lock is released either way.
    fn give_up(&self, state: &mut State, out: &mut Effects) {
        out.observe(Observation::GaveUp);
        match state.node.clone() {
            Some(node) if self.knobs.on_give_up == OnGiveUp::DeletesNode => {
                state.phase = Phase::Abandoning;
                out.send(self.delete(&node));
            }
            _ => {
                state.phase = Phase::Idle;
                state.node = None;
            }
        }
        if self.is_locked() {
            self.with_lock(state, out, |lock, s, e| lock.release(s, e));
        }
    }

    /// Returns the lease. A suspended holder returns it too (it may still
    /// hold it).
    fn release(&self, state: &mut State, out: &mut Effects) {
        if !matches!(
            state.phase,
            Phase::Held | Phase::Suspended | Phase::Checking
        ) {
            return;
        }
        if state.phase == Phase::Held {
            out.observe(Observation::Released);
        }
        let node = state.node.clone().expect("a holder has a lease node");
        state.phase = Phase::Releasing;
        out.send(self.delete(&node));
    }

    /// A reply to one of the lease's requests.
    fn on_reply(
        &self,
        me: Incarnation,
        state: &mut State,
        op: Op,
        result: OpResult,
        out: &mut Effects,
    ) {
        match (&state.phase, &op, result) {
            (Phase::Creating, Op::Create { .. }, Ok(Response::Created { path, .. })) => {
                self.known(state, Arc::from(path.name()), out)
            }
            // Protected mode: look for our GUID before creating again.
            (Phase::Creating, Op::Create { .. }, Err(ErrorCode::ConnectionLoss)) => {
                state.phase = Phase::Recovering;
                out.send(Op::GetChildren {
                    path: self.leases.clone(),
                    watch: false,
                });
            }
            (Phase::Recovering, Op::GetChildren { .. }, Ok(Response::Children { names, .. })) => {
                let prefix = self.prefix(me, state);
                match names.iter().find(|name| name.starts_with(&prefix)) {
                    Some(name) => self.known(state, name.clone(), out),
                    // `count_then_create` counts again before creating.
                    None if self.knobs.order == Order::CountThenCreate => self.list(state, out),
                    None => self.create(me, state, out),
                }
            }
            (
                Phase::Listing,
                Op::GetChildren { watch, .. },
                Ok(Response::Children { names, .. }),
            ) => self.decided(me, state, &names, *watch, out),
            (Phase::Recovering, Op::GetChildren { .. }, Err(ErrorCode::ConnectionLoss)) => {
                out.send(op)
            }
            // A lost count with no node yet (`check_then_create`) leaves
            // nothing behind: count again.
            (Phase::Listing, Op::GetChildren { .. }, Err(ErrorCode::ConnectionLoss))
                if state.node.is_none() =>
            {
                out.send(op)
            }
            (Phase::Listing, Op::GetChildren { .. }, Err(ErrorCode::ConnectionLoss)) => {
                self.give_up(state, out)
            }
            (Phase::Checking, Op::Exists { .. }, result) => match result {
                Ok(Response::Exists(Some(_))) => self.hold(state, out),
                Err(ErrorCode::ConnectionLoss) => out.send(op),
                // Gone while our session lives: the lease is lost.
                Ok(Response::Exists(None)) => {
                    out.observe(Observation::Lost);
                    state.phase = Phase::Idle;
                    state.node = None;
                }
                // SESSIONEXPIRED follows the `Expired` that ended the process.
                _ => {}
            },
            (Phase::Releasing | Phase::Abandoning, Op::Delete { path, .. }, result)
                if state.node.as_deref() == Some(path.name()) =>
            {
                match result {
                    Err(ErrorCode::ConnectionLoss) => out.send(op),
                    _ => {
                        state.phase = Phase::Idle;
                        state.node = None;
                    }
                }
            }
            _ => {}
        }
    }

    /// A reply to one of the internal lock's requests: once it holds the
    /// lock, step 2.
    fn on_lock_reply(
        &self,
        me: Incarnation,
        state: &mut State,
        op: Op,
        result: OpResult,
        out: &mut Effects,
    ) {
        self.with_lock(state, out, |lock, s, e| lock.on_reply(me, s, op, result, e));
        if state.phase == Phase::Locking && state.lock.holds() {
            self.begin(me, state, out);
        }
    }

    /// The internal lock's predecessor went (its listing follows), or, in
    /// step 6, the leases changed: step 3 again.
    fn on_watch(&self, state: &mut State, event: WatchEvent, out: &mut Effects) {
        if self.is_lock_path(Some(&event.path)) {
            return self.with_lock(state, out, |lock, s, e| lock.on_watch(s, &event, e));
        }
        if state.phase == Phase::Waiting
            && event.kind == EventType::NodeChildrenChanged
            && event.path == self.leases
        {
            self.list(state, out);
        }
    }

    fn on_session(&self, state: &mut State, event: SessionEvent, out: &mut Effects) {
        match event {
            SessionEvent::Disconnected
                if state.phase == Phase::Held
                    && self.knobs.on_disconnect == OnDisconnect::Suspend =>
            {
                state.phase = Phase::Suspended;
                out.observe(Observation::Suspended);
            }
            // Back with the same session: does our lease node still exist?
            SessionEvent::SyncConnected if state.phase == Phase::Suspended => {
                state.phase = Phase::Checking;
                let node = state.node.clone().expect("a suspended holder has a node");
                out.send(Op::Exists {
                    path: self.leases.child(&node),
                    watch: false,
                });
            }
            SessionEvent::Expired | SessionEvent::Closed => {
                match state.phase {
                    Phase::Held | Phase::Suspended | Phase::Checking => {
                        out.observe(Observation::Lost)
                    }
                    _ if self.is_waiting(state) => out.observe(Observation::GaveUp),
                    _ => {}
                }
                state.phase = Phase::Dead;
                state.node = None;
            }
            // A new session after the last one was lost: its library renewed
            // it. Nothing is held or pending (the loss ended that); the
            // application may acquire again, under a GUID of this session.
            SessionEvent::SyncConnected if state.phase == Phase::Dead => {
                state.phase = Phase::Idle;
                state.node = None;
                state.renewals = state.renewals.saturating_add(1);
            }
            _ => {}
        }
        self.with_lock(state, out, |lock, s, e| lock.on_session(s, event, e));
    }
}

impl Recipe for Semaphore {
    type State = State;
    type Command = Command;
    type Fact = std::convert::Infallible;
    type Log = ();

    const PHASES: &'static [&'static str] = &PHASES;

    fn phases(&self, state: &State) -> u64 {
        1 << state.phase.index()
    }

    fn shape(&self, state: &State) -> u64 {
        (1 << state.phase.index() | u64::from(state.node.is_some()) << 16)
            ^ state.lock.shape().rotate_left(20)
    }

    fn init(&self, _me: Incarnation) -> State {
        State::new()
    }

    /// As the lock's ([`super::lock::Lock`]): leases and the internal lock
    /// are read through sequence numbers and GUIDs. Not where a give-up
    /// forgets its node (`leaky`), which leaves a lease node behind under
    /// its GUID, nor without `guid_per_session` (`process_guid`), whose GUID
    /// is its abandoned session's too.
    fn symmetric(&self) -> bool {
        self.knobs.on_give_up == OnGiveUp::DeletesNode && self.knobs.guid_per_session
    }

    fn handle(&self, me: Incarnation, state: &mut State, input: Input<Command>, out: &mut Effects) {
        let renewed = matches!(input, Input::Session(SessionEvent::SyncConnected));
        if state.phase == Phase::Dead && !renewed {
            return;
        }
        match input {
            Input::Command(Command::Acquire) => self.acquire(me, state, out),
            Input::Command(Command::Release) => self.release(state, out),
            Input::Reply { op, result } if self.is_lock_path(op.path()) => {
                self.on_lock_reply(me, state, op, result, out)
            }
            Input::Reply { op, result } => self.on_reply(me, state, op, result, out),
            Input::Watch(event) => self.on_watch(state, event, out),
            Input::Session(event) => self.on_session(state, event, out),
        }
    }

    /// Blocked in `acquire()` (which returns only once the internal lock is
    /// released) or in returning the lease.
    fn is_busy(&self, state: &State) -> bool {
        self.is_waiting(state)
            || matches!(state.phase, Phase::Releasing | Phase::Abandoning)
            || self.lock.is_busy(&state.lock)
    }

    /// Waiting for a lease (or for the internal lock, to ask for one).
    fn parts() -> &'static [crate::recipe::Part<Semaphore>] {
        &[crate::recipe::Part {
            name: "holder",
            meaning: "a client that believes it holds a lease",
            played: |_, state| state.holds(),
        }]
    }

    fn is_waiting(&self, state: &State) -> bool {
        matches!(
            state.phase,
            Phase::Locking | Phase::Creating | Phase::Recovering | Phase::Listing | Phase::Waiting
        )
    }

    fn directory(&self) -> &Path {
        &self.leases
    }

    /// The semaphore's node, then its leases' directory, and the internal
    /// lock's where it takes one.
    fn setup(&self) -> Vec<Path> {
        let mut paths = vec![self.root.clone(), self.leases.clone()];
        if self.is_locked() {
            paths.push(self.lock.dir.clone());
        }
        paths
    }

    fn claims(&self, state: &State, name: &str) -> bool {
        state.node.as_deref() == Some(name) && state.phase != Phase::Dead
    }
}

/// A command in a trace: the name scenario scripts give it.
impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(crate::catalogued::command_name::<Semaphore>(self))
    }
}

impl Catalogued for Semaphore {
    /// After `Expired` a holder has lost its lease and a pending `acquire`
    /// returns unacquired; once its library opened a new session the
    /// application may acquire again, under a GUID of that session.
    const RENEWS: bool = true;
    const NAME: &'static str = "semaphore";
    const DOCS: Docs = Docs {
        summary: "the counting semaphore (Curator's InterProcessSemaphoreV2): under an internal lock, a sequential ephemeral node under /semaphore/leases; at most max_leases (2) held at once",
        variants: &[
            ("reference", "Curator's: the internal lock, protected-mode create, count with a watch; a lost count returns the node; Disconnected means \"I may have lost it\""),
            ("check_then_create", "kazoo's order without its lock: count, then create if there is room (two counters both find room)"),
            ("create_then_check", "Curator's steps without the internal lock: every waiter watches the leases, and all may wait for ever"),
            ("leaky", "Curator before CURATOR-335: a lost count throws without deleting the lease node, which eats a lease"),
            ("trusting", "ignores Disconnected and believes it holds its lease until it hears Expired"),
            ("process_guid", "keeps one GUID across renewed sessions (kazoo's, a uuid of the semaphore object): recovering a lost create may adopt its previous session's lease node"),
        ],
        commands: &[
            ("acquire", "block until a lease is held (or the attempt fails on a lost count)"),
            ("release", "delete its lease node"),
        ],
        group: &[
            &["acquire", "release"],
            &["acquire", "release"],
            &["acquire", "release"],
        ],
    };
    type Variant = Knobs;
    const VARIANTS: &'static [(&'static str, Knobs)] = &[
        ("reference", Knobs::REFERENCE),
        ("check_then_create", Knobs::CHECK_THEN_CREATE),
        ("create_then_check", Knobs::CREATE_THEN_CHECK),
        ("leaky", Knobs::LEAKY),
        ("trusting", Knobs::TRUSTING),
        ("process_guid", Knobs::PROCESS_GUID),
    ];
    const COMMANDS: &'static [(&'static str, Command)] =
        &[("acquire", Command::Acquire), ("release", Command::Release)];

    type Params = Params;

    fn build(knobs: Knobs, params: &Params, _scripts: &[Vec<Command>]) -> Semaphore {
        Semaphore::new(knobs, params.max_leases)
    }

    fn check_params(
        params: &Params,
        _scripts: &[Vec<Command>],
    ) -> Result<(), (&'static str, String)> {
        crate::catalogued::one_to_clients_max(
            "params.max_leases",
            params.max_leases,
            " (a semaphore of no lease holds nobody)",
        )
    }

    fn properties() -> Vec<Promise<Semaphore>> {
        vec![
            Promise::always(
                "leases_within_limit",
                "at most max_leases clients believe they hold a lease",
                leases_within_limit,
                too_many_leases,
            ),
            Promise::always(
                "leases_granted",
                "every client that believes it holds a lease holds it by a live lease node among \
                 the max_leases oldest",
                leases_granted,
                lease_not_granted,
            ),
            Promise::herd_avoidance(),
            Promise::no_orphan_no_deadlock(),
            Promise::sometimes(
                "leases_shared",
                "two clients held leases at once (the semaphore is not merely a lock)",
                leases_shared,
            ),
            Promise::sometimes(
                "semaphore_full",
                "every lease was held while another client waited for one (the limit was reached)",
                semaphore_full,
            ),
            Promise::waiter_woken(),
        ]
    }
}

/// The clients that believe they hold a lease, with their tenures.
fn believers<S>(state: &WorldState<S>) -> impl Iterator<Item = (ClientId, Tenure)> + '_ {
    state
        .history
        .holding
        .iter()
        .enumerate()
        .filter_map(|(c, tenure)| tenure.map(|tenure| (c, tenure)))
}

/// At most `max_leases` clients believe they hold a lease.
pub fn leases_within_limit(world: &World<Semaphore>, state: &WorldState<State>) -> bool {
    believers(state).count() <= usize::from(world.shared().max_leases)
}

/// Every client that believes it holds a lease holds it by a lease node the
/// server grants: one that exists and is among the `max_leases` oldest live
/// lease nodes in creation order (the module doc says why).
pub fn leases_granted(world: &World<Semaphore>, state: &WorldState<State>) -> bool {
    ungranted(world, state).is_empty()
}

/// Why a believer's lease is not the server's to grant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotGranted {
    /// Its node does not exist.
    Gone(Path),
    /// Its node stands behind these older live lease nodes, `max_leases` or
    /// more of them (names, oldest first).
    Behind(Path, Vec<Arc<str>>),
}

/// Each believer whose lease [`leases_granted`] refuses, with why.
pub fn ungranted(
    world: &World<Semaphore>,
    state: &WorldState<State>,
) -> Vec<(ClientId, NotGranted)> {
    let store = &state.net.store;
    let dir = world.shared().leases();
    believers(state)
        .filter_map(|(c, _)| {
            let (node, _) = state.history.nodes[c]
                .clone()
                .expect("a believer holds by a node the server created for it");
            if !store.exists(&node) {
                return Some((c, NotGranted::Gone(node)));
            }
            let mine = store.creation_order(&node)?;
            let mut older: Vec<(u64, Arc<str>)> = store
                .children(dir)
                .into_iter()
                .filter_map(|name| {
                    let order = store.creation_order(&dir.child(&name))?;
                    (order < mine).then_some((order, name))
                })
                .collect();
            if older.len() < usize::from(world.shared().max_leases) {
                return None;
            }
            older.sort();
            let older = older.into_iter().map(|(_, name)| name).collect();
            Some((c, NotGranted::Behind(node, older)))
        })
        .collect()
}

/// Two clients hold leases at once (the partner of [`leases_within_limit`]:
/// the semaphore is not merely a lock).
pub fn leases_shared(_: &World<Semaphore>, state: &WorldState<State>) -> bool {
    believers(state).count() >= 2
}

/// Every lease is held while another live client waits for one in step 6
/// (the partner of [`leases_granted`]: a node stood behind the granted ones).
pub fn semaphore_full(world: &World<Semaphore>, state: &WorldState<State>) -> bool {
    believers(state).count() >= usize::from(world.shared().max_leases)
        && state.processes.iter().any(|process| {
            process.status != Status::Crashed && process.recipe.phase == Phase::Waiting
        })
}

/// Why `leases_within_limit` is broken: who believes they hold a lease.
fn too_many_leases(world: &World<Semaphore>, run: Run<'_, Semaphore>) -> Option<String> {
    let max = world.shared().max_leases;
    let names: Vec<String> = believers(run.last())
        .map(|(c, tenure)| format!("c{c} (token {})", tenure.token))
        .collect();
    Some(format!(
        "{} {} believe they hold a lease; the semaphore has {max} {}",
        properties::and_list(&names),
        if names.len() == 2 { "both" } else { "all" },
        if max == 1 { "lease" } else { "leases" }
    ))
}

/// Why `leases_granted` is broken: whose lease node is gone or behind.
fn lease_not_granted(world: &World<Semaphore>, run: Run<'_, Semaphore>) -> Option<String> {
    let state = run.last();
    let max = world.shared().max_leases;
    let (c, why) = ungranted(world, state).into_iter().next()?;
    Some(match why {
        NotGranted::Gone(node) => {
            let session = if state.net.store.is_alive(state.net.session(c)) {
                "its session lives"
            } else {
                "its session expired"
            };
            format!(
                "c{c} believes it holds a lease by {node}, which the server no longer has \
                 ({session})"
            )
        }
        NotGranted::Behind(node, older) => {
            let older: Vec<String> = older.iter().map(|name| name.to_string()).collect();
            format!(
                "c{c} believes it holds a lease by {node}, but {} older lease {} live \
                 ({}) and the server's order grants only the first {max}",
                older.len(),
                if older.len() == 1 {
                    "node is"
                } else {
                    "nodes are"
                },
                older.join(", ")
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::contender::permutations;
    use super::*;

    fn names(list: &[&str]) -> Vec<Arc<str>> {
        list.iter().map(|name| Arc::from(*name)).collect()
    }

    const ALL: [&str; 5] = [
        "c2-lease-0000000000",
        "c0-lease-0000000001",
        "c1-lease-0000000002",
        "c3-lease-0000000003",
        "c0r1-lease-0000000004",
    ];

    /// Every subset of five lease nodes, in every order, with ours each one
    /// of them or none, and every number of leases from 0 to 5: hold exactly
    /// when ours is there and fewer than `max_leases` others are; wait when
    /// more are.
    #[test]
    fn decide_holds_exactly_when_ours_and_fewer_than_max_others_are_there() {
        for mask in 0u32..32 {
            let present: Vec<&str> = (0..5)
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| ALL[i])
                .collect();
            for permutation in permutations(&present) {
                let children = names(&permutation);
                for mine in ALL {
                    for max in 0..=5u8 {
                        let others = present.iter().filter(|name| **name != mine).count();
                        let expected = if !present.contains(&mine) {
                            Grant::Missing
                        } else if others < usize::from(max) {
                            Grant::Holds
                        } else {
                            Grant::Wait
                        };
                        assert_eq!(
                            decide(&children, mine, max),
                            expected,
                            "{children:?} mine {mine} max {max}"
                        );
                    }
                }
            }
        }
    }

    /// Under the internal lock nobody creates a lease node after ours before
    /// we count, so ours is the newest: then counting is ranking, and we hold
    /// exactly when our node is among the `max_leases` oldest by sequence.
    #[test]
    fn decide_with_ours_newest_holds_exactly_when_ours_is_among_the_oldest_max() {
        for mask in 1u32..32 {
            let present: Vec<&str> = (0..5)
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| ALL[i])
                .collect();
            let mine = *present.last().expect("a non-empty subset");
            let mut by_sequence = present.clone();
            by_sequence.sort_by_key(|name| sequence(name));
            let rank = by_sequence.iter().position(|name| *name == mine).unwrap();
            for permutation in permutations(&present) {
                for max in 0..=5u8 {
                    let holds = decide(&names(&permutation), mine, max) == Grant::Holds;
                    assert_eq!(holds, rank < usize::from(max), "{permutation:?} max {max}");
                }
            }
        }
    }

    /// Curator counts every child of the leases' directory, whatever its name.
    #[test]
    fn decide_counts_every_child() {
        let children = names(&["c0-lease-0000000000", "readme"]);
        assert_eq!(decide(&children, "c0-lease-0000000000", 1), Grant::Wait);
        assert_eq!(decide(&children, "c0-lease-0000000000", 2), Grant::Holds);
    }

    #[test]
    fn has_room_exactly_when_fewer_than_max() {
        for count in 0..=5 {
            let children = names(&ALL[..count]);
            for max in 0..=5u8 {
                assert_eq!(has_room(&children, max), count < usize::from(max));
            }
        }
    }

    #[test]
    fn sequence_reads_the_suffix_after_the_last_lease_prefix() {
        assert_eq!(sequence("c0-lease-0000000012"), Some(12));
        assert_eq!(sequence("c1r2-lease-0000000000"), Some(0));
        assert_eq!(sequence("c0-lease-"), None);
        assert_eq!(sequence("c0-lock-0000000001"), None);
    }
}
