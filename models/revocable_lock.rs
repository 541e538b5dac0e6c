//! The revocable shared lock (seed 000 "Recoverable Shared Locks"; seed 001
//! names it "Revocable Shared Locks"): the shared lock with these "minor
//! modifications", each mapped to the code that does it:
//!
//! 1. In step 1 of both the reader and the writer protocol, call `getData()`
//!    with watch set, immediately after the call to `create()`
//!    ([`RevocableLock::handle`] sends it before step 2's listing as soon as
//!    the client knows its node).
//! 2. If the client subsequently receives notification for the node it
//!    created in step 1, it does another `getData()` on that node, with watch
//!    set ([`RevocableLock::on_watch`]),
//! 3. and looks for the string `unlock`, which signals to the client that it
//!    must release the lock ([`RevocableLock::on_data`]: a holder releases, a
//!    waiter abandons its attempt).
//! 4. The revoker asks by calling `setData()` on the lock node, writing
//!    `unlock` ([`Command::Revoke`]: it lists the lock node, waiting with a
//!    watch while it is empty, and writes `unlock` to every node the shared
//!    lock's rule says holds).
//!
//! "Note that this protocol requires the lock holder to consent to releasing
//! the lock. [...] Of course you can always implement Revocable Shared Locks
//! with Freaking Laser Beams by stipulating in your protocol that the revoker
//! is allowed to delete the lock node if after some length of time the lock
//! isn't deleted by the lock holder." [`Command::Force`] is the laser: the
//! revoker deletes every node it asked that is still there. "After some
//! length of time" is any time at all: zoocheck has no clocks, and a holder
//! may be paused or slow for any length of time. A holder learns its node is
//! gone from its data watch.
//!
//! Renewed sessions (`[library] on_expiry = "renew"`): a lock user does what
//! the shared lock's does (its attempt or its tenure ends with the session;
//! once its library has opened a new session it may ask again, under a GUID
//! of that session), and its data watch, set on a node of the old session,
//! is set again on its new node as step 1 says. A revoker waiting for a
//! holder lists the lock node again in the new session, its watch having
//! died with the old one; `unlock` writes in flight when the session ended
//! are answered SESSIONEXPIRED, and the revoker is done with them.
//!
//! Variants are presets of three knobs ([`Knobs`]), which a scenario may
//! turn one by one (`[knobs]`, per client in `[[client]]`):
//! - `guid`: the reference above, on the reference shared lock;
//! - `watch_only` (`reads = "events_only"`): the holder reacts to the
//!   notification only, not to the data its own `getData()` returns, so it
//!   misses a revoke written before its watch was set;
//! - `ignore_while_waiting` (`while_waiting = "ignores"`): a client that
//!   reads `unlock` before it holds ignores it (it holds nothing yet) and
//!   never reads it again;
//! - `fenced` (`fenced = true`): the reference, with the holder handing its
//!   sequencer to the protected resource (what makes the laser beams safe).
//!
//! The knobs are about separate things (what a client reads, what it does
//! with a request while it waits, what the resource is told), so every
//! combination is a coherent revocable lock.

use std::sync::Arc;

use super::contender::{Contender, Decision, Phase};
use super::shared_lock::{self, SharedLock};
use crate::catalogued::{Catalogued, Docs, NoParams};
use crate::client::SessionEvent;
use crate::properties::Promise;
use crate::recipe::{is_connection_loss, Effects, Incarnation, Input, Recipe, Role};
use crate::store::{
    data, ErrorCode, EventType, Op, OpResult, Path, Response, Store, WatchEvent, ANY_VERSION,
};
use crate::world::{Run, Status, World, WorldState};

/// What the revoker writes.
pub const UNLOCK: &[u8] = b"unlock";

crate::knob_value! {
    /// Where a client learns that it is asked to release.
    pub enum Reads {
        /// in the data its own `getData()` of its node returns and in each notification of a change to it (the reference)
        DataAndEvents = "data_and_events",
        /// in the notification only: a revoke written before its watch was set goes unseen
        EventsOnly = "events_only",
    }
}

crate::knob_value! {
    /// What a client that is asked to release before it holds does.
    pub enum WhileWaiting {
        /// gives up its attempt: deletes its node and returns without the lock (the reference)
        GivesUp = "gives_up",
        /// ignores it, since it holds nothing yet, and never reads it again
        Ignores = "ignores",
    }
}

crate::knobs! {
    /// The revocable lock's knobs. A variant is a preset of them
    /// ([`Knobs::GUID`] and the others).
    pub struct Knobs {
        /// Where a client learns that it is asked to release.
        reads: Reads,
        /// What a client asked to release before it holds does.
        while_waiting: WhileWaiting,
        /// The holder hands its sequence number to the protected resource with each write, which refuses one older than it has seen (what makes the laser beams safe).
        fenced: bool,
    }
}

impl Knobs {
    /// The reference: see the module's documentation.
    pub const GUID: Knobs = Knobs {
        reads: Reads::DataAndEvents,
        while_waiting: WhileWaiting::GivesUp,
        fenced: false,
    };
    pub const WATCH_ONLY: Knobs = Knobs {
        reads: Reads::EventsOnly,
        ..Knobs::GUID
    };
    pub const IGNORE_WHILE_WAITING: Knobs = Knobs {
        while_waiting: WhileWaiting::Ignores,
        ..Knobs::GUID
    };
    pub const FENCED: Knobs = Knobs {
        fenced: true,
        ..Knobs::GUID
    };
}

/// What the application asks: the shared lock's commands, and the revoker's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Command {
    Read,
    Write,
    Work,
    Release,
    /// Ask whoever holds the lock now to release it (blocks until someone
    /// holds by the lock's rule, then writes `unlock` to their nodes).
    Revoke,
    /// The laser beams: delete the nodes asked to release that are still there.
    Force,
}

/// When a client learned it was asked to release.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Asked {
    /// The revoke was written before its watch was set: it read `unlock` in
    /// the reply to its first `getData()`.
    BeforeWatch,
    /// The revoke came after: its watch fired and it read `unlock` again.
    AfterWatch,
}

/// The revoker's side.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Revoker {
    Idle,
    /// Listing the lock node (with a watch, in case it is empty).
    Listing,
    /// The lock node was empty: waiting for a child.
    Waiting,
    /// `unlock` written to these nodes (their replies awaited while busy).
    Asked {
        nodes: Arc<[Arc<str>]>,
        pending: u8,
    },
    /// Deleting them: replies awaited.
    Forcing {
        pending: u8,
    },
}

/// `Asked c0-write-0000000000 (1 reply pending)`.
impl std::fmt::Display for Revoker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pending = |f: &mut std::fmt::Formatter<'_>, pending: u8| match pending {
            0 => Ok(()),
            1 => write!(f, " (1 reply pending)"),
            n => write!(f, " ({n} replies pending)"),
        };
        match self {
            Revoker::Idle => write!(f, "Idle"),
            Revoker::Listing => write!(f, "Listing"),
            Revoker::Waiting => write!(f, "Waiting"),
            Revoker::Asked { nodes, pending: n } => {
                write!(f, "Asked {}", nodes.join(", "))?;
                pending(f, *n)
            }
            Revoker::Forcing { pending: n } => {
                write!(f, "Forcing")?;
                pending(f, *n)
            }
        }
    }
}

/// One client's state: a lock user, a revoker, or both.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct State {
    pub lock: super::contender::State,
    /// Whether the current attempt's first `getData()` has been answered.
    pub watching_data: bool,
    pub asked: Option<Asked>,
    pub revoker: Revoker,
}

/// Not renamed: its recipe does not say its clients are interchangeable ([`crate::symmetry`]).
impl crate::recipe::Symmetric for State {}

/// Debug as the trace words it: the explorer and test failures read the same.
impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl std::fmt::Display for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.lock)?;
        if let Some(asked) = self.asked {
            write!(f, ", asked {asked:?}")?;
        }
        if self.revoker != Revoker::Idle {
            write!(f, ", revoker {}", self.revoker)?;
        }
        Ok(())
    }
}

/// The revocable lock under one setting of its knobs.
#[derive(Clone, Debug)]
pub struct RevocableLock {
    pub knobs: Knobs,
    lock: SharedLock,
}

impl RevocableLock {
    pub fn new(knobs: Knobs) -> RevocableLock {
        let mut lock = SharedLock::new(shared_lock::Knobs::GUID);
        lock.contender.fenced = knobs.fenced;
        // A node that vanished was revoked (the laser): give up, do not queue
        // again behind the holder it was revoked for.
        lock.contender.recreate_missing = false;
        RevocableLock { knobs, lock }
    }

    fn contender(&self) -> &Contender {
        &self.lock.contender
    }

    fn dir(&self) -> &Path {
        &self.contender().dir
    }

    fn read_own(&self, node: &str) -> Op {
        Op::GetData {
            path: self.dir().child(node),
            watch: true,
        }
    }

    fn is_own(&self, state: &State, path: &Path) -> bool {
        path.is_child_of(self.dir()) && state.lock.node.as_deref() == Some(path.name())
    }

    /// A new attempt starts with no request seen.
    fn acquire(&self, me: Incarnation, state: &mut State, role: Role, out: &mut Effects) {
        if state.lock.phase == Phase::Idle {
            state.asked = None;
            state.watching_data = false;
        }
        self.contender().acquire(me, &mut state.lock, role, out);
    }

    /// Step 3: what `getData()` on our node answered.
    fn on_data(&self, state: &mut State, result: OpResult, out: &mut Effects) {
        let first = !state.watching_data;
        state.watching_data = true;
        let unlock = match result {
            Ok(Response::Data { data, .. }) => data.as_deref() == Some(UNLOCK),
            // Gone before we read it: someone deleted it (the laser).
            Err(ErrorCode::NoNode) => return self.node_lost(state, out),
            Err(ErrorCode::ConnectionLoss) => {
                state.watching_data = !first;
                let node = state.lock.node.clone().expect("read through our node");
                return out.send(self.read_own(&node));
            }
            _ => false,
        };
        if !unlock || (first && self.knobs.reads == Reads::EventsOnly) {
            return;
        }
        state.asked = Some(if first {
            Asked::BeforeWatch
        } else {
            Asked::AfterWatch
        });
        if self.knobs.while_waiting == WhileWaiting::Ignores && !state.lock.holds() {
            return;
        }
        self.contender().give_up(&mut state.lock, out);
    }

    /// Our node was deleted by someone else, while we held or waited.
    fn node_lost(&self, state: &mut State, out: &mut Effects) {
        let phase = &state.lock.phase;
        let contender = self.contender();
        if matches!(phase, Phase::Held | Phase::Suspended) || contender.is_waiting(&state.lock) {
            contender.node_lost(&mut state.lock, out);
        }
    }

    /// Step 2, and the laser's effect seen from the holder.
    fn on_watch(&self, state: &mut State, event: WatchEvent, out: &mut Effects) {
        if self.is_own(state, &event.path) {
            match event.kind {
                EventType::NodeDataChanged => {
                    let node = state.lock.node.clone().expect("our node");
                    out.send(self.read_own(&node));
                }
                EventType::NodeDeleted => self.node_lost(state, out),
                _ => {}
            }
            return;
        }
        if event.path == *self.dir() && state.revoker == Revoker::Waiting {
            return self.list(state, out);
        }
        self.contender().on_watch(&mut state.lock, &event, out);
    }

    fn list(&self, state: &mut State, out: &mut Effects) {
        state.revoker = Revoker::Listing;
        out.send(Op::GetChildren {
            path: self.dir().clone(),
            watch: true,
        });
    }

    /// Step 4: the revoker, given the lock node's children.
    fn revoke(&self, state: &mut State, names: &[Arc<str>], out: &mut Effects) {
        let holders: Arc<[Arc<str>]> = names
            .iter()
            .filter(|name| shared_lock::decide(names, name) == Decision::Holds)
            .cloned()
            .collect();
        if holders.is_empty() {
            state.revoker = Revoker::Waiting;
            return;
        }
        for node in holders.iter() {
            out.send(Op::SetData {
                path: self.dir().child(node),
                data: data(UNLOCK),
                version: ANY_VERSION,
            });
        }
        state.revoker = Revoker::Asked {
            pending: holders.len() as u8,
            nodes: holders,
        };
    }

    fn on_revoker_reply(&self, state: &mut State, op: Op, result: OpResult, out: &mut Effects) {
        if is_connection_loss(&result) {
            return out.send(op);
        }
        match (&mut state.revoker, &op, result) {
            (Revoker::Listing, Op::GetChildren { .. }, Ok(Response::Children { names, .. })) => {
                self.revoke(state, &names, out)
            }
            (Revoker::Asked { pending, .. }, Op::SetData { .. }, _)
            | (Revoker::Forcing { pending }, Op::Delete { .. }, _) => {
                *pending = pending.saturating_sub(1)
            }
            _ => {}
        }
    }
}

impl Recipe for RevocableLock {
    type State = State;
    type Command = Command;
    type Fact = std::convert::Infallible;
    type Log = ();

    const PHASES: &'static [&'static str] = &PHASES;

    fn phases(&self, state: &Self::State) -> u64 {
        1 << state.lock.phase.index()
            | 1 << (super::contender::PHASES.len() as u32 + state.revoker.index())
    }

    fn shape(&self, state: &Self::State) -> u64 {
        let asked = match state.asked {
            None => 0,
            Some(Asked::BeforeWatch) => 1,
            Some(Asked::AfterWatch) => 2,
        };
        state.lock.shape() | self.phases(state) | u64::from(state.watching_data) << 50 | asked << 51
    }

    fn init(&self, me: Incarnation) -> State {
        State {
            lock: self.lock.init(me),
            watching_data: false,
            asked: None,
            revoker: Revoker::Idle,
        }
    }

    fn handle(&self, me: Incarnation, state: &mut State, input: Input<Command>, out: &mut Effects) {
        let contender = self.contender();
        let knew_node = state.lock.node.is_some();
        let sent_before = out.requests.len();
        match input {
            Input::Command(Command::Read) => self.acquire(me, state, Role::Read, out),
            Input::Command(Command::Write) => self.acquire(me, state, Role::Write, out),
            Input::Command(Command::Work) if state.lock.role == Role::Write => {
                contender.work(&state.lock, out)
            }
            Input::Command(Command::Work) => {}
            Input::Command(Command::Release) => contender.release(&mut state.lock, out),
            Input::Command(Command::Revoke) => self.list(state, out),
            Input::Command(Command::Force) => {
                if let Revoker::Asked { nodes, .. } = &state.revoker {
                    let nodes = nodes.clone();
                    for node in nodes.iter() {
                        out.send(contender.delete(node));
                    }
                    state.revoker = Revoker::Forcing {
                        pending: nodes.len() as u8,
                    };
                }
            }
            Input::Reply { op, result } => match &op {
                Op::GetData { path, .. } if self.is_own(state, path) => {
                    self.on_data(state, result, out)
                }
                Op::SetData { .. } => self.on_revoker_reply(state, op, result, out),
                Op::GetChildren { watch: true, .. } if state.revoker == Revoker::Listing => {
                    self.on_revoker_reply(state, op, result, out)
                }
                Op::Delete { .. } if matches!(state.revoker, Revoker::Forcing { .. }) => {
                    self.on_revoker_reply(state, op, result, out)
                }
                _ => contender.on_reply(me, &mut state.lock, op, result, out),
            },
            Input::Watch(event) => self.on_watch(state, event, out),
            Input::Session(event) => {
                let renewed =
                    event == SessionEvent::SyncConnected && state.lock.phase == Phase::Dead;
                contender.on_session(&mut state.lock, event, out);
                // A revoker's watch on the lock node died with its session.
                if renewed && matches!(state.revoker, Revoker::Listing | Revoker::Waiting) {
                    self.list(state, out);
                }
            }
        }
        // Step 1: as soon as the client knows its node (created, or found by
        // its GUID after a lost reply), it reads it with a watch, before
        // anything else it sends.
        if !knew_node {
            if let Some(node) = state.lock.node.clone() {
                state.watching_data = false;
                out.requests.insert(sent_before, self.read_own(&node));
            }
        }
    }

    fn is_busy(&self, state: &State) -> bool {
        self.contender().is_busy(&state.lock)
            || match &state.revoker {
                Revoker::Idle => false,
                Revoker::Listing | Revoker::Waiting => true,
                Revoker::Asked { pending, .. } | Revoker::Forcing { pending } => *pending > 0,
            }
    }

    fn parts() -> &'static [crate::recipe::Part<RevocableLock>] {
        &[crate::recipe::Part {
            name: "holder",
            meaning: "a client that believes it holds the lock",
            played: |_, state| state.lock.holds(),
        }]
    }

    fn is_waiting(&self, state: &State) -> bool {
        self.contender().is_waiting(&state.lock)
            || matches!(state.revoker, Revoker::Listing | Revoker::Waiting)
    }

    /// A revoker waiting for a holder to appear is not in the lock's queue: a
    /// deletion that also reaches its watch wakes no second contender.
    fn counts_in_herd(&self, state: &State) -> bool {
        self.contender().wakeable(&state.lock)
    }

    fn directory(&self) -> &Path {
        self.dir()
    }

    fn claims(&self, state: &State, name: &str) -> bool {
        self.contender().claims(&state.lock, name)
    }

    fn released_together(&self, state: &State, tree: &Store) -> bool {
        self.lock.released_together(&state.lock, tree)
    }
}

/// A command in a trace: the name scenario scripts give it.
impl std::fmt::Display for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(crate::catalogued::command_name::<RevocableLock>(self))
    }
}

impl Catalogued for RevocableLock {
    /// As the shared lock, and a waiting revoker lists again.
    const RENEWS: bool = true;
    const NAME: &'static str = "revocable_lock";
    const DOCS: Docs = Docs {
        summary: "the shared lock with revocation: a revoker writes `unlock` into a holder's node, and the holder consents by releasing",
        variants: &[
            ("guid", "the reference, on the reference shared lock"),
            ("watch_only", "reacts to the notification only, missing a revoke written before its watch was set"),
            ("ignore_while_waiting", "a waiter that reads `unlock` ignores it and never reads it again"),
            ("fenced", "the reference, the holder handing its sequencer to the resource"),
        ],
        commands: &[
            ("read", "block until a read lock is held"),
            ("write", "block until the write lock is held"),
            ("work", "write to (or read) the protected resource"),
            ("release", "delete its node"),
            ("revoke", "ask whoever holds now to release: write `unlock` to their nodes"),
            ("force", "delete the nodes asked to release that are still there"),
        ],
        group: &[
            &["write", "work", "release"],
            &["revoke"],
        ],
    };
    type Variant = Knobs;
    const VARIANTS: &'static [(&'static str, Knobs)] = &[
        ("guid", Knobs::GUID),
        ("watch_only", Knobs::WATCH_ONLY),
        ("ignore_while_waiting", Knobs::IGNORE_WHILE_WAITING),
        ("fenced", Knobs::FENCED),
    ];
    const COMMANDS: &'static [(&'static str, Command)] = &[
        ("read", Command::Read),
        ("write", Command::Write),
        ("work", Command::Work),
        ("release", Command::Release),
        ("revoke", Command::Revoke),
        ("force", Command::Force),
    ];

    type Params = NoParams;

    fn build(knobs: Knobs, _params: &NoParams, _scripts: &[Vec<Self::Command>]) -> RevocableLock {
        RevocableLock::new(knobs)
    }

    fn properties() -> Vec<Promise<RevocableLock>> {
        vec![
            Promise::writer_exclusion(),
            Promise::resource_safety(),
            Promise::herd_avoidance(),
            Promise::no_orphan_no_deadlock(),
            Promise::always(
                "revoke_honoured",
                "once nothing but a fault can happen, no holder that read `unlock` on its node \
                 still holds",
                revoke_honoured,
                revoke_honoured_broken,
            ),
            Promise::always(
                "no_missed_revoke",
                "once nothing but a fault can happen, no holder's node says `unlock` unread",
                no_missed_revoke,
                no_missed_revoke_broken,
            ),
            Promise::writer_acquired(),
            Promise::waiter_woken(),
            Promise::sometimes(
                "revoke_seen",
                "some holder read a revoke on its node (revoke honoured is not vacuous)",
                revoke_seen,
            ),
            Promise::sometimes(
                "revoke_before_watch",
                "some client read a revoke written before its watch was set (the race happened)",
                revoke_before_watch,
            ),
        ]
    }
}

/// The live clients that believe they hold, with their states.
fn holders<'a>(state: &'a WorldState<State>) -> impl Iterator<Item = &'a State> + 'a {
    state
        .processes
        .iter()
        .zip(&state.history.holding)
        .filter(|(process, holding)| process.status != Status::Crashed && holding.is_some())
        .map(|(process, _)| &process.recipe)
}

/// A holder asked to release does release: no state where nothing but a
/// fault can happen has a client that read `unlock` on its node and still
/// believes it holds (it would keep the lock forever). Quiescent states only,
/// soundly, as for [`properties::no_orphan_no_deadlock`].
pub fn revoke_honoured(world: &World<RevocableLock>, state: &WorldState<State>) -> bool {
    !world.is_quiescent(state) || holders(state).all(|holder| holder.asked.is_none())
}

/// No holder misses a revoke: no state where nothing but a fault can happen
/// has a client that believes it holds while its node says `unlock` and it
/// never read so (a revoke written before its watch was set, and missed).
pub fn no_missed_revoke(world: &World<RevocableLock>, state: &WorldState<State>) -> bool {
    if !world.is_quiescent(state) {
        return true;
    }
    let store = &state.net.store;
    holders(state).all(|holder| {
        let Some(node) = &holder.lock.node else {
            return true;
        };
        let says_unlock = store
            .data(&world.shared().dir().child(node))
            .is_some_and(|data| data.as_deref() == Some(UNLOCK));
        !says_unlock || holder.asked.is_some()
    })
}

/// Some client read a revoke on its node (the partner of [`revoke_honoured`]).
pub fn revoke_seen(_: &World<RevocableLock>, state: &WorldState<State>) -> bool {
    state
        .processes
        .iter()
        .any(|process| process.recipe.asked.is_some())
}

/// Some client read a revoke that was written before its watch was set (the
/// partner of [`no_missed_revoke`]: the race it is about happened).
pub fn revoke_before_watch(_: &World<RevocableLock>, state: &WorldState<State>) -> bool {
    state
        .processes
        .iter()
        .any(|process| process.recipe.asked == Some(Asked::BeforeWatch))
}

/// The clients whose process lives and believes it holds.
fn live_holders(world: &World<RevocableLock>, state: &WorldState<State>) -> Vec<usize> {
    (0..world.clients())
        .filter(|&c| {
            state.processes[c].status != Status::Crashed && state.history.holding[c].is_some()
        })
        .collect()
}

/// Client `c`'s lock node, in a violation's words.
fn node_of(world: &World<RevocableLock>, state: &WorldState<State>, c: usize) -> String {
    (state.processes[c].recipe.lock.node.as_ref())
        .map(|node| world.shared().dir().child(node).to_string())
        .unwrap_or_else(|| "its node".into())
}

/// Why `revoke_honoured` is broken, in words.
fn revoke_honoured_broken(
    world: &World<RevocableLock>,
    run: Run<'_, RevocableLock>,
) -> Option<String> {
    let state = run.last();
    let holding = live_holders(world, state);
    let c = *holding
        .iter()
        .find(|&&c| state.processes[c].recipe.asked.is_some())?;
    Some(format!(
        "nothing but a fault can happen and c{c} read `unlock` on {} but still believes it holds: \
         it keeps the lock forever",
        node_of(world, state, c)
    ))
}

/// Why `no_missed_revoke` is broken, in words.
fn no_missed_revoke_broken(
    world: &World<RevocableLock>,
    run: Run<'_, RevocableLock>,
) -> Option<String> {
    let state = run.last();
    let holding = live_holders(world, state);
    let c = *holding.iter().find(|&&c| {
        let recipe = &state.processes[c].recipe;
        recipe.asked.is_none()
            && recipe.lock.node.as_ref().is_some_and(|node| {
                state
                    .net
                    .store
                    .data(&world.shared().dir().child(node))
                    .is_some_and(|data| data.as_deref() == Some(UNLOCK))
            })
    })?;
    Some(format!(
        "nothing but a fault can happen and {} says `unlock`, but its holder c{c} never read it \
         (the revoke was written before its watch was set) and holds on",
        node_of(world, state, c)
    ))
}

/// The revocable lock's phases: the contender's, then the revoker's.
const PHASES: [&str; 16] = super::contender::phases_and([
    "revoker Idle",
    "revoker Listing",
    "revoker Waiting",
    "revoker Asked",
    "revoker Forcing",
]);

impl Revoker {
    /// This phase's place among the revoker's in [`PHASES`].
    fn index(&self) -> u32 {
        match self {
            Revoker::Idle => 0,
            Revoker::Listing => 1,
            Revoker::Waiting => 2,
            Revoker::Asked { .. } => 3,
            Revoker::Forcing { .. } => 4,
        }
    }
}
