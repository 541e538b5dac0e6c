//! The double barrier (seed 000 "Double Barriers", its plain-text copy seed
//! 003; seed 004 "double barrier" for the count-based variant).
//!
//! "Double barriers enable clients to synchronize the beginning and the end of
//! a computation." `b` is the barrier node ([`BARRIER`], created by the world
//! before any client starts); `p` is a process and `n = b + "/" + p` its
//! process node, named by its GUID ([`Incarnation::guid`]: `/b/c0`).
//!
//! Enter ([`Command::Enter`], blocks until the computation may start):
//!
//! 1. "Create a name n = b + "/" + p".
//! 2. "Set watch: exists(b + "/ready", true)" ([`Phase::Arming`]).
//! 3. "Create child: create(n, EPHEMERAL)" ([`Phase::Joining`]).
//! 4. "L = getChildren(b, false)" ([`Phase::Counting`]).
//! 5. "if fewer children in L than x, wait for watch event"
//!    ([`Phase::AwaitingReady`]).
//! 6. "else create(b + "/ready", REGULAR)" ([`Phase::CreatingReady`]).
//!
//! Leave ([`Command::Leave`], blocks until every process has left):
//!
//! 1. "L = getChildren(b, false)" ([`Phase::Listing`]).
//! 2. "if no children, exit".
//! 3. "if p is only process node on L, delete(n) and exit"
//!    ([`Phase::Deleting`]).
//! 4. "if p is the lowest process node in L, wait on highest process node in L".
//! 5. "else delete(n) if still exists and wait on lowest process node in L"
//!    ([`Phase::Watching`]: `exists` with a watch on that node; gone already
//!    or an event on it: step 6).
//! 6. "goto 1".
//!
//! Steps 2 to 5 are the pure [`leave_step`]. "The highest process node in P"
//! in the seed is read as "in L".
//!
//! **Ready.** `b/ready` is a child of `b` too, but it is no process node: L
//! counts process nodes only, in Enter and in Leave ([`is_process_node`]), so
//! that "no children" in step 2 means no process node (ready stays, a regular
//! node). Counting it is seed 004's literal text, the `count_all` variant.
//!
//! **The threshold x** is the seed's "up to you to determine for your
//! system": by default the number of clients whose script enters
//! ([`Catalogued::build`] counts it), or `[params] threshold`, which asks of
//! a barrier set for fewer processes than enter it (oversubscribed: a late
//! process may enter after the others left) or for more (it never fills).
//! [`Catalogued::check_scripts`] refuses a group where nobody enters or
//! someone leaves before entering.
//!
//! **Errors**, as a careful client handles them: CONNECTIONLOSS repeats the
//! request (a create of our fixed name then answers NODEEXISTS if the lost one
//! was applied: that node is ours, since no other process has our GUID; a
//! NODEEXISTS on `ready` means another process opened the barrier); in Leave
//! a lost reply goes back to step 1, whose listing says what happened.
//! SESSIONEXPIRED ends the process ([`Phase::Dead`]): its node went with its
//! session. A process that finds `ready` already there in step 2 (only a late
//! process can), or gets its event before step 4's listing returns, starts
//! computing once its listing is back.
//!
//! Variants are presets of four knobs ([`Knobs`]), which a scenario may turn
//! one by one (`[knobs]`, per client in `[[client]]`):
//! - `seed`: the above;
//! - `count` (`leave = "count_processes"`): seed 004's Leave: "deletes the znode it created", then
//!   "M = getChildren(/barrier, watch=True)"; "If M is not equal to 0, this
//!   client waits for notifications"; "If M is equal to 0, then the client
//!   exits" ([`Phase::Draining`]), with M the process nodes. Everyone watches
//!   the barrier node's children: the herd seed 004 itself warns of;
//! - `count_all` (`leave = "count_children"`): the same with M every child of `/barrier`, as seed 004
//!   writes it; its ready znode is one of them;
//! - `watch_after_listing` (`ready_watch = "after_listing"`): Enter's step 2 moved after step 4 (create, list,
//!   and only if fewer than x set the watch on ready, then wait for it). The
//!   seed's step 2 ignores exists' answer, which is safe only because the
//!   watch is set before our node can complete the count;
//! - `forget_early_ready` (`early_ready = "forgets"`): takes ready's event only while it waits in step 5.
//!   The event comes while step 4's listing is still out when the other
//!   process lists, creates ready, computes and deletes its node in Leave
//!   before our listing is served: that listing then shows fewer than x
//!   process nodes (and ready), and the event is never repeated. An
//!   asynchronous client must remember the event (the reference's
//!   `ready_seen`); the seed's synchronous pseudo code hides the question.
//!
//! Renewed sessions (`[library] on_expiry = "renew"`, as Curator's and
//! kazoo's libraries do): a process whose session was lost before it left
//! has failed this round of the barrier, and stays out of it once its
//! library has opened a new session. Its node went with its session (or
//! goes when the server times an abandoned session out), and the others
//! count it as left; entering again could not undo what they decided while
//! it was away (they may be computing, or gone). Curator's
//! `DistributedDoubleBarrier` throws from `enter` and `leave` on a lost
//! session and leaves the round to the application; this is the application
//! that gives the round up. The variant `rejoins` shows why:
//! - `rejoins` (`after_expiry = "rejoins"`): once its library has opened a new session a process that was
//!   entering or computing enters again, under the same name (its process's
//!   GUID) and taking NODEEXISTS for its own node, as after a lost create
//!   reply. The node of its old session, which the server keeps until that
//!   session times out, passes for the new one's, and goes when the server
//!   times that session out: the count falls short and everyone waits for
//!   ever. Or the others have passed meanwhile, and it enters after someone
//!   left.
//!
//! The knobs are about separate steps (how Leave waits, when Enter sets its
//! watch on ready, whether an early event is kept, what a lost session
//! does), so every combination is a coherent double barrier; a process that
//! rejoins enters again in the order `ready_watch` gives.
//!
//! Properties: **enter safety**, **leave safety**, **herd avoidance** (each
//! deletion wakes one process, except the last process node's, which
//! releases everyone), **no deadlock**; partners **someone_computes**,
//! **someone_left**, **waiter_woken**.

use std::sync::Arc;

use super::joined::{Joined, Joins};
use crate::catalogued::{refuse_restarts, Catalogued, Docs};
use crate::client::SessionEvent;
use crate::properties::{self, Promise};
use crate::recipe::{Effects, Incarnation, Input, Observation, Recipe};
use crate::store::{
    CreateMode, ErrorCode, EventType, Op, OpResult, Path, Response, Store, ANY_VERSION,
};
use crate::world::faults::FaultBudget;
use crate::world::{Run, Status, World, WorldState};

/// The barrier node, `b`.
pub const BARRIER: &str = "/b";
/// The ready node's name under `b`.
pub const READY: &str = "ready";

crate::knob_value! {
    /// How a process leaves.
    pub enum Leave {
        /// the seeds' Leave: list the process nodes, watch one (the highest, or the lowest once ours is deleted) and list again on its event (the reference)
        WatchOne = "watch_one",
        /// seed 004's: delete its own node, then list with a watch until no process node is left: every deletion wakes everyone
        CountProcesses = "count_processes",
        /// seed 004's as written: the same, counting every child of the barrier node, ready too
        CountChildren = "count_children",
    }
}

crate::knob_value! {
    /// When Enter sets its watch on the ready node.
    pub enum ReadyWatch {
        /// first, with `exists` (step 2), before it creates its node (the reference)
        BeforeCreating = "before_creating",
        /// after it created its node and listed, only if fewer than x have entered
        AfterListing = "after_listing",
    }
}

crate::knob_value! {
    /// What a process makes of ready's event that comes while step 4's listing is out.
    pub enum EarlyReady {
        /// remembers it, and computes once its listing is back (the reference)
        Remembers = "remembers",
        /// forgets it: it takes ready's event only while it waits in step 5
        Forgets = "forgets",
    }
}

crate::knob_value! {
    /// What a process whose session was lost before it left does once its library renewed the session.
    pub enum AfterExpiry {
        /// it has failed this round, and stays out of it (the reference)
        GivesUp = "gives_up",
        /// it enters again under its process's name, taking NODEEXISTS for its own node
        Rejoins = "rejoins",
    }
}

crate::knobs! {
    /// The double barrier's knobs. A variant is a preset of them
    /// ([`Knobs::SEED`] and the others).
    pub struct Knobs {
        /// How a process leaves.
        leave: Leave,
        /// When Enter sets its watch on the ready node.
        ready_watch: ReadyWatch,
        /// What a process makes of ready's event while step 4's listing is out.
        early_ready: EarlyReady,
        /// What a process whose session was lost before it left does in its renewed session.
        after_expiry: AfterExpiry,
    }
}

impl Knobs {
    /// The reference: see the module's documentation.
    pub const SEED: Knobs = Knobs {
        leave: Leave::WatchOne,
        ready_watch: ReadyWatch::BeforeCreating,
        early_ready: EarlyReady::Remembers,
        after_expiry: AfterExpiry::GivesUp,
    };
    pub const COUNT: Knobs = Knobs {
        leave: Leave::CountProcesses,
        ..Knobs::SEED
    };
    pub const COUNT_ALL: Knobs = Knobs {
        leave: Leave::CountChildren,
        ..Knobs::SEED
    };
    pub const WATCH_AFTER_LISTING: Knobs = Knobs {
        ready_watch: ReadyWatch::AfterListing,
        ..Knobs::SEED
    };
    pub const FORGET_EARLY_READY: Knobs = Knobs {
        early_ready: EarlyReady::Forgets,
        ..Knobs::SEED
    };
    pub const REJOINS: Knobs = Knobs {
        after_expiry: AfterExpiry::Rejoins,
        ..Knobs::SEED
    };
}

/// What the application asks of the double barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Command {
    /// Blocks until x processes have entered; then the process computes.
    Enter,
    /// Blocks until no process node is left.
    Leave,
}

/// Where one process is, named after the seed's steps.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum Phase {
    Idle,
    /// Enter step 2: `exists(b/ready, true)` sent.
    Arming,
    /// Enter step 3: the create of our node sent.
    Joining,
    /// Enter step 4: the listing sent.
    Counting,
    /// Enter step 5: waiting for ready's watch event.
    AwaitingReady,
    /// Enter step 6: the create of ready sent.
    CreatingReady,
    /// Entered: the computation runs.
    Computing,
    /// Leave step 1: the listing sent.
    Listing,
    /// Leave steps 4 and 5: waiting for this process node to go.
    Watching(Arc<str>),
    /// Leave step 3: the last process's delete sent.
    Deleting,
    /// Seed 004's Leave: our node deleted, listing with a watch until no
    /// process node is left.
    Draining,
    /// Left the barrier.
    Left,
    /// The session expired (or was closed).
    Dead,
}

impl std::fmt::Debug for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Phase::Watching(node) => write!(f, "Watching {node}"),
            Phase::Idle => write!(f, "Idle"),
            Phase::Arming => write!(f, "Arming"),
            Phase::Joining => write!(f, "Joining"),
            Phase::Counting => write!(f, "Counting"),
            Phase::AwaitingReady => write!(f, "AwaitingReady"),
            Phase::CreatingReady => write!(f, "CreatingReady"),
            Phase::Computing => write!(f, "Computing"),
            Phase::Listing => write!(f, "Listing"),
            Phase::Deleting => write!(f, "Deleting"),
            Phase::Draining => write!(f, "Draining"),
            Phase::Left => write!(f, "Left"),
            Phase::Dead => write!(f, "Dead"),
        }
    }
}

impl Phase {
    /// Whether the process has sent its node's create and not yet begun to
    /// leave: in Enter from step 3, or computing.
    pub fn has_joined(&self) -> bool {
        matches!(
            self,
            Phase::Joining
                | Phase::Counting
                | Phase::AwaitingReady
                | Phase::CreatingReady
                | Phase::Computing
        )
    }

    /// Whether the process has started its computation (and maybe finished
    /// it, or left).
    pub fn has_started(&self) -> bool {
        matches!(
            self,
            Phase::Computing
                | Phase::Listing
                | Phase::Watching(_)
                | Phase::Deleting
                | Phase::Draining
                | Phase::Left
        )
    }
}

/// One process's state.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct State {
    pub phase: Phase,
    /// Our process node's name, once its create was sent.
    pub node: Option<Arc<str>>,
    /// Ready is known to exist: step 2 found it, or its event came before
    /// step 4's listing did.
    pub ready_seen: bool,
    /// `rejoins`: the session ended inside the barrier (entering or
    /// computing), so a renewed session enters again.
    pub interrupted: bool,
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
        write!(f, "{}", self.phase)?;
        if self.ready_seen {
            write!(f, ", ready seen")?;
        }
        Ok(())
    }
}

/// Whether a child of `b` is a process node (not `ready`).
pub fn is_process_node(name: &str) -> bool {
    name != READY
}

/// What Leave's steps 2 to 5 decide from a listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LeaveStep {
    /// Step 2: no process node: exit.
    Exit,
    /// Step 3: ours is the only one: delete it and exit.
    DeleteAndExit,
    /// Steps 4 and 5: wait for `on` to go, deleting ours first if `delete`.
    Wait { on: Arc<str>, delete: bool },
}

/// Leave's steps 2 to 5 (seed 000): the children of `b` in any order, our
/// node's name in. Pure.
pub fn leave_step(children: &[Arc<str>], mine: &str) -> LeaveStep {
    let mut nodes: Vec<&Arc<str>> = children
        .iter()
        .filter(|name| is_process_node(name))
        .collect();
    nodes.sort();
    let (Some(lowest), Some(highest)) = (nodes.first(), nodes.last()) else {
        return LeaveStep::Exit;
    };
    let present = nodes.iter().any(|name| &***name == mine);
    if present && nodes.len() == 1 {
        LeaveStep::DeleteAndExit
    } else if &***lowest == mine {
        LeaveStep::Wait {
            on: Arc::clone(highest),
            delete: false,
        }
    } else {
        LeaveStep::Wait {
            on: Arc::clone(lowest),
            delete: present,
        }
    }
}

/// Seed 004's M: how many children count, as `leave` counts them. Pure.
pub fn count(leave: Leave, children: &[Arc<str>]) -> usize {
    match leave {
        Leave::CountChildren => children.len(),
        Leave::WatchOne | Leave::CountProcesses => {
            children.iter().filter(|name| is_process_node(name)).count()
        }
    }
}

/// The double barrier under one setting of its knobs, for x processes.
#[derive(Clone, Debug)]
pub struct DoubleBarrier {
    pub knobs: Knobs,
    /// x: how many processes must enter before any computes.
    pub threshold: usize,
    dir: Path,
    ready: Path,
}

impl DoubleBarrier {
    pub fn new(knobs: Knobs, threshold: usize) -> DoubleBarrier {
        let dir = Path::new(BARRIER);
        DoubleBarrier {
            knobs,
            threshold,
            ready: dir.child(READY),
            dir,
        }
    }

    fn node(&self, state: &State) -> Path {
        self.dir
            .child(state.node.as_deref().expect("a process with a node"))
    }

    fn arm(&self, state: &mut State, out: &mut Effects<Joined>) {
        out.send(Op::Exists {
            path: self.ready.clone(),
            watch: true,
        });
        state.phase = if self.knobs.ready_watch == ReadyWatch::AfterListing {
            Phase::AwaitingReady
        } else {
            Phase::Arming
        };
    }

    /// Enter's first step: the watch on ready, or the node, as
    /// `ready_watch` orders them.
    fn enter(&self, me: Incarnation, state: &mut State, out: &mut Effects<Joined>) {
        match self.knobs.ready_watch {
            ReadyWatch::BeforeCreating => self.arm(state, out),
            ReadyWatch::AfterListing => self.join(me, state, out),
        }
    }

    fn join(&self, me: Incarnation, state: &mut State, out: &mut Effects<Joined>) {
        let name: Arc<str> = Arc::from(me.guid());
        out.send(Op::Create {
            path: self.dir.child(&name),
            data: None,
            mode: CreateMode::Ephemeral,
        });
        state.node = Some(name);
        state.phase = Phase::Joining;
    }

    fn list(&self, watch: bool, out: &mut Effects<Joined>) {
        out.send(Op::GetChildren {
            path: self.dir.clone(),
            watch,
        });
    }

    fn delete_mine(&self, state: &State, out: &mut Effects<Joined>) {
        out.send(Op::Delete {
            path: self.node(state),
            version: ANY_VERSION,
        });
    }

    /// Enter step 5 or 6, on the listing of step 4.
    fn on_count(&self, state: &mut State, names: &[Arc<str>], out: &mut Effects<Joined>) {
        let nodes = names.iter().filter(|name| is_process_node(name)).count();
        if state.ready_seen {
            state.phase = Phase::Computing;
        } else if nodes >= self.threshold {
            state.phase = Phase::CreatingReady;
            out.send(Op::Create {
                path: self.ready.clone(),
                data: None,
                mode: CreateMode::Persistent,
            });
        } else if self.knobs.ready_watch == ReadyWatch::AfterListing {
            self.arm(state, out);
        } else {
            state.phase = Phase::AwaitingReady;
        }
    }

    /// Leave step 1, or seed 004's delete and watched listing.
    fn leave(&self, state: &mut State, out: &mut Effects<Joined>) {
        if self.knobs.leave != Leave::WatchOne {
            self.delete_mine(state, out);
            self.list(true, out);
            state.phase = Phase::Draining;
        } else {
            self.list(false, out);
            state.phase = Phase::Listing;
        }
    }

    /// Leave steps 2 to 5, on the listing of step 1.
    fn on_leave_listing(&self, state: &mut State, names: &[Arc<str>], out: &mut Effects<Joined>) {
        let mine = state.node.clone().expect("a process with a node");
        match leave_step(names, &mine) {
            LeaveStep::Exit => state.phase = Phase::Left,
            LeaveStep::DeleteAndExit => {
                self.delete_mine(state, out);
                state.phase = Phase::Deleting;
            }
            LeaveStep::Wait { on, delete } => {
                if delete {
                    self.delete_mine(state, out);
                }
                out.send(Op::Exists {
                    path: self.dir.child(&on),
                    watch: true,
                });
                state.phase = Phase::Watching(on);
            }
        }
    }

    /// Seed 004: M = 0 exits; otherwise wait for the watch set by this
    /// listing. Our node still listed means its delete was lost: again.
    fn on_drain_listing(&self, state: &mut State, names: &[Arc<str>], out: &mut Effects<Joined>) {
        let mine = state.node.as_deref().expect("a process with a node");
        if count(self.knobs.leave, names) == 0 {
            state.phase = Phase::Left;
        } else if names.iter().any(|name| &**name == mine) {
            self.delete_mine(state, out);
            self.list(true, out);
        }
    }

    fn on_reply(
        &self,
        me: Incarnation,
        state: &mut State,
        op: Op,
        result: OpResult,
        out: &mut Effects<Joined>,
    ) {
        let lost = matches!(result, Err(ErrorCode::ConnectionLoss));
        let is_ready = op.path() == Some(&self.ready);
        match (&state.phase, &op, result) {
            // Enter.
            (Phase::Arming, Op::Exists { .. }, Ok(Response::Exists(stat))) => {
                state.ready_seen = stat.is_some();
                self.join(me, state, out);
            }
            (Phase::Joining, Op::Create { .. }, Ok(_) | Err(ErrorCode::NodeExists)) => {
                state.phase = Phase::Counting;
                self.list(false, out);
            }
            (Phase::Counting, Op::GetChildren { .. }, Ok(Response::Children { names, .. })) => {
                self.on_count(state, &names, out)
            }
            (Phase::CreatingReady, Op::Create { .. }, Ok(_) | Err(ErrorCode::NodeExists)) => {
                state.phase = Phase::Computing;
            }
            // Enter, any request lost: ask again (Counting and the rest
            // resend the very request; AwaitingReady's is the late watch).
            (Phase::Arming | Phase::Joining | Phase::Counting | Phase::CreatingReady, _, _)
                if lost =>
            {
                out.send(op)
            }
            (Phase::AwaitingReady, Op::Exists { .. }, _) if lost && is_ready => out.send(op),
            // The late watch's answer is ignored (`watch_after_listing`).
            (Phase::AwaitingReady, _, _) => {}
            // Leave, seed 000.
            (Phase::Listing, Op::GetChildren { .. }, Ok(Response::Children { names, .. })) => {
                self.on_leave_listing(state, &names, out)
            }
            (Phase::Listing, _, _) if lost => out.send(op),
            (Phase::Deleting, Op::Delete { .. }, Ok(_) | Err(ErrorCode::NoNode)) => {
                state.phase = Phase::Left
            }
            (Phase::Deleting, _, _) if lost => out.send(op),
            // Steps 4 and 5: the node is there, wait; gone already or the
            // answer lost, step 6.
            (Phase::Watching(on), Op::Exists { path, .. }, Ok(Response::Exists(Some(_))))
                if path.name() == &**on => {}
            (Phase::Watching(on), Op::Exists { path, .. }, _) if path.name() == &**on => {
                self.list(false, out);
                state.phase = Phase::Listing;
            }
            // Leave, seed 004. A lost delete shows in the next listing.
            (Phase::Draining, Op::GetChildren { .. }, Ok(Response::Children { names, .. })) => {
                self.on_drain_listing(state, &names, out)
            }
            (Phase::Draining, Op::GetChildren { .. }, _) if lost => out.send(op),
            _ => {}
        }
    }

    fn on_watch(&self, state: &mut State, kind: EventType, path: &Path, out: &mut Effects<Joined>) {
        match &state.phase {
            // Step 5's event. The process that creates ready gets it too (its
            // own watch fires) but waits for its create's answer instead, so
            // that nothing is in flight once it computes.
            Phase::AwaitingReady if *path == self.ready => state.phase = Phase::Computing,
            // Ready's event before step 4's listing came back: the last
            // process was quicker. Step 5 must not wait for it again.
            Phase::Joining | Phase::Counting
                if *path == self.ready && self.knobs.early_ready == EarlyReady::Remembers =>
            {
                state.ready_seen = true
            }
            Phase::Watching(on) if path.name() == &**on && path.is_child_of(&self.dir) => {
                self.list(false, out);
                state.phase = Phase::Listing;
            }
            Phase::Draining if *path == self.dir && kind == EventType::NodeChildrenChanged => {
                self.list(true, out)
            }
            _ => {}
        }
    }
}

impl Recipe for DoubleBarrier {
    type State = State;
    type Command = Command;
    type Fact = Joined;
    type Log = Joins;

    const PHASES: &'static [&'static str] = &PHASES;

    fn phases(&self, state: &Self::State) -> u64 {
        1 << state.phase.index()
    }

    fn shape(&self, state: &Self::State) -> u64 {
        self.phases(state)
            | u64::from(state.node.is_some()) << 32
            | u64::from(state.ready_seen) << 33
            | u64::from(state.interrupted) << 34
    }

    fn init(&self, _me: Incarnation) -> State {
        State {
            phase: Phase::Idle,
            node: None,
            ready_seen: false,
            interrupted: false,
        }
    }

    fn handle(
        &self,
        me: Incarnation,
        state: &mut State,
        input: Input<Command>,
        out: &mut Effects<Joined>,
    ) {
        if state.phase == Phase::Dead {
            // `rejoins`: a session of its own again; enter again.
            if input == Input::Session(SessionEvent::SyncConnected)
                && std::mem::take(&mut state.interrupted)
            {
                state.node = None;
                state.ready_seen = false;
                self.enter(me, state, out);
            }
            return;
        }
        match input {
            Input::Command(Command::Enter) if state.phase == Phase::Idle => {
                self.enter(me, state, out)
            }
            Input::Command(Command::Leave) if state.phase == Phase::Computing => {
                self.leave(state, out)
            }
            Input::Command(_) => {}
            Input::Reply { op, result } => self.on_reply(me, state, op, result, out),
            Input::Watch(event) => self.on_watch(state, event.kind, &event.path, out),
            Input::Session(SessionEvent::Expired | SessionEvent::Closed) => {
                if state.phase != Phase::Left {
                    if self.is_waiting(state) {
                        out.observe(Observation::GaveUp);
                    }
                    state.interrupted = self.knobs.after_expiry == AfterExpiry::Rejoins
                        && !matches!(state.phase, Phase::Idle | Phase::Dead)
                        && !matches!(
                            state.phase,
                            Phase::Listing | Phase::Watching(_) | Phase::Deleting | Phase::Draining
                        );
                    state.phase = Phase::Dead;
                }
            }
            // The watches survive a reconnect (SetWatches fires what was
            // missed) and every request in flight answers for itself.
            Input::Session(_) => {}
        }
    }

    fn is_busy(&self, state: &State) -> bool {
        !matches!(
            state.phase,
            Phase::Idle | Phase::Computing | Phase::Left | Phase::Dead
        )
    }

    fn parts() -> &'static [crate::recipe::Part<DoubleBarrier>] {
        &[
            crate::recipe::Part {
                name: "inside",
                meaning: "a process that entered the barrier and has not begun to leave",
                played: |_, state| state.phase == Phase::Computing,
            },
            crate::recipe::Part {
                name: "leaving",
                meaning: "a process between its first leave step and having left",
                played: |_, state| {
                    matches!(
                        state.phase,
                        Phase::Listing | Phase::Watching(_) | Phase::Deleting | Phase::Draining
                    )
                },
            },
        ]
    }

    fn is_waiting(&self, state: &State) -> bool {
        matches!(
            state.phase,
            Phase::AwaitingReady | Phase::Watching(_) | Phase::Draining
        )
    }

    fn directory(&self) -> &Path {
        &self.dir
    }

    fn claims(&self, state: &State, name: &str) -> bool {
        state.node.as_deref() == Some(name)
            && !matches!(state.phase, Phase::Left | Phase::Dead | Phase::Idle)
    }

    /// The last process node's deletion releases every waiter at once: the
    /// seed's "except for the last node, which wakes up everyone".
    fn released_together(&self, _state: &State, tree: &Store) -> bool {
        !(tree.children(&self.dir).iter()).any(|name| is_process_node(name))
    }

    /// A process node created is a process entered, whether or not its
    /// creator heard back.
    fn served(&self, op: &Op, result: &OpResult) -> Option<Joined> {
        match (op, result) {
            (Op::Create { path, .. }, Ok(_))
                if path.is_child_of(&self.dir) && is_process_node(path.name()) =>
            {
                Some(Joined)
            }
            _ => None,
        }
    }
}

/// A command in a trace: the name scenario scripts give it.
impl std::fmt::Display for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(crate::catalogued::command_name::<DoubleBarrier>(self))
    }
}

impl Catalogued for DoubleBarrier {
    /// A process whose session was lost stays out of the round (the module
    /// doc says why); `rejoins` enters again.
    const RENEWS: bool = true;
    /// A restarted process runs its script again: with `ready` still there it
    /// enters at once, possibly after the others left (which `leave_safety`,
    /// judged on the state, would call leaving early), and its predecessor's
    /// node still counts toward the threshold. The double barrier is entered
    /// once per process, so restarts are refused.
    fn check_faults(budget: &FaultBudget) -> Result<(), (&'static str, String)> {
        refuse_restarts(
            budget,
            "the double barrier is entered once: a restarted process would enter again, after the others may have left (`ready` stays), and its predecessor's node still counts toward the threshold",
        )
    }

    const NAME: &'static str = "double_barrier";
    const DOCS: Docs = Docs {
        summary: "the double barrier: processes enter /barrier and start once enough have; they leave once all have",
        variants: &[
            ("seed", "the seeds' enter and leave with a ready node"),
            ("count", "seed 004's leave: delete its own node, then wait until no process node is left"),
            ("count_all", "the same, counting every child of /barrier (ready too)"),
            ("watch_after_listing", "sets the watch on ready only after creating and listing, if fewer have entered"),
            ("forget_early_ready", "takes ready's event only while it waits, forgetting one that came during its listing"),
            ("rejoins", "enters again after a renewed session, under its process's name, taking NODEEXISTS for its own node"),
        ],
        commands: &[
            ("enter", "block until the threshold of processes has entered; then compute"),
            ("leave", "block until no process node is left"),
        ],
        group: &[
            &["enter", "leave"],
            &["enter", "leave"],
        ],
    };
    type Variant = Knobs;
    const VARIANTS: &'static [(&'static str, Knobs)] = &[
        ("seed", Knobs::SEED),
        ("count", Knobs::COUNT),
        ("count_all", Knobs::COUNT_ALL),
        ("watch_after_listing", Knobs::WATCH_AFTER_LISTING),
        ("forget_early_ready", Knobs::FORGET_EARLY_READY),
        ("rejoins", Knobs::REJOINS),
    ];
    const COMMANDS: &'static [(&'static str, Command)] =
        &[("enter", Command::Enter), ("leave", Command::Leave)];

    /// x, by default the number of clients whose script enters.
    type Params = Params;

    fn build(knobs: Knobs, params: &Params, scripts: &[Vec<Command>]) -> DoubleBarrier {
        let entering = scripts
            .iter()
            .filter(|script| script.contains(&Command::Enter))
            .count();
        let threshold = params.threshold.map_or(entering, usize::from);
        DoubleBarrier::new(knobs, threshold)
    }

    fn check_params(
        params: &Params,
        _scripts: &[Vec<Command>],
    ) -> Result<(), (&'static str, String)> {
        match params.threshold {
            Some(threshold) => {
                crate::catalogued::one_to_clients_max("params.threshold", threshold, "")
            }
            None => Ok(()),
        }
    }

    fn properties() -> Vec<Promise<DoubleBarrier>> {
        vec![
            Promise::always(
                "enter_safety",
                "no process computes before the threshold of processes has entered",
                enter_safety,
                enter_safety_broken,
            ),
            Promise::always(
                "leave_safety",
                "no process finishes leaving while another is still in the barrier",
                leave_safety,
                leave_safety_broken,
            ),
            Promise::herd_avoidance(),
            Promise::always(
                "no_deadlock",
                "once nothing but a fault can happen, no live process still waits (unless the \
                 barrier can no longer fill)",
                no_deadlock,
                no_deadlock_broken,
            ),
            Promise::sometimes(
                "someone_computes",
                "some process started computing (enter safety is not vacuous)",
                someone_computes,
            ),
            Promise::sometimes(
                "someone_left",
                "some process left (leave safety is not vacuous)",
                someone_left,
            ),
            Promise::waiter_woken(),
        ]
    }

    fn check_scripts(scripts: &[Vec<Command>]) -> Result<(), String> {
        for (client, script) in scripts.iter().enumerate() {
            let expected = "expected [\"enter\"] or [\"enter\", \"leave\"]";
            if script.first() != Some(&Command::Enter) {
                return Err(format!(
                    "client {client} leaves before it enters; {expected}"
                ));
            }
            if script.len() > 2 || script.get(1) == Some(&Command::Enter) {
                return Err(format!(
                    "client {client} enters or leaves more than once; {expected}"
                ));
            }
        }
        Ok(())
    }
}

/// The double barrier's parameters (`[params]`).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// How many processes must enter before any computes; by default as
    /// many as the scripts enter.
    pub threshold: Option<u8>,
}

impl crate::catalogued::Params for Params {
    const MEANINGS: &'static [(&'static str, &'static str)] = &[(
        "threshold",
        "how many processes must enter before any computes (1 to 5); by default as many as the scripts enter",
    )];
}

/// Enter safety: no process starts computing before x processes have entered,
/// counted from the server's creates of process nodes (`history.log`, a
/// lost create reply still entered). Exact on the current state: the count
/// only grows, and a process that started too early is found so in the
/// state its start made.
pub fn enter_safety(world: &World<DoubleBarrier>, state: &WorldState<State, Joins>) -> bool {
    let started = state
        .processes
        .iter()
        .any(|process| process.recipe.phase.has_started());
    !started || state.history.log.count() >= world.shared().threshold
}

/// Leave safety: no process has finished Leave while another is still in the
/// barrier: a process in [`Phase::Left`] beside another whose process has not
/// crashed, that has not begun to leave (it is computing, or still in Enter
/// after its create: [`Phase::has_joined`]) and whose node exists. A process
/// whose session ended has left the barrier as far as the others can tell:
/// that is the seeds' promise that failures do not block the correct.
pub fn leave_safety(world: &World<DoubleBarrier>, state: &WorldState<State, Joins>) -> bool {
    let store = &state.net.store;
    let left = |i: usize| state.processes[i].recipe.phase == Phase::Left;
    let inside = |j: usize| {
        let process = &state.processes[j];
        process.status != Status::Crashed
            && process.recipe.phase.has_joined()
            && store.exists(&world.shared().node(&process.recipe))
    };
    let clients = state.processes.len();
    !(0..clients).any(|i| left(i) && (0..clients).any(|j| j != i && inside(j)))
}

/// No deadlock: where nothing but a fault can happen, no live process still
/// waits, except in Enter when the barrier can no longer fill: ready does not
/// exist and fewer than x processes are alive (a process that crashed or
/// whose session ended before ready existed leaves the others short, as the
/// seeds' fixed x implies). Sound on quiescent states for the reason
/// [`properties::no_orphan_no_deadlock`] gives.
pub fn no_deadlock(world: &World<DoubleBarrier>, state: &WorldState<State, Joins>) -> bool {
    if !world.is_quiescent(state) {
        return true;
    }
    let recipe = world.shared();
    let live = |process: &&crate::world::Process<State>| {
        process.status != Status::Crashed && process.recipe.phase != Phase::Dead
    };
    let alive = state.processes.iter().filter(live).count();
    let short = alive < recipe.threshold && !state.net.store.exists(&recipe.ready);
    !state.processes.iter().filter(live).any(|process| {
        recipe.is_waiting(&process.recipe)
            && !(short && process.recipe.phase == Phase::AwaitingReady)
    })
}

/// Some process started computing (the partner of enter safety).
pub fn someone_computes(_: &World<DoubleBarrier>, state: &WorldState<State, Joins>) -> bool {
    state
        .processes
        .iter()
        .any(|process| process.recipe.phase.has_started())
}

/// Some process left (the partner of leave safety).
pub fn someone_left(_: &World<DoubleBarrier>, state: &WorldState<State, Joins>) -> bool {
    state
        .processes
        .iter()
        .any(|process| process.recipe.phase == Phase::Left)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<Arc<str>> {
        list.iter().map(|name| Arc::from(*name)).collect()
    }

    fn permutations(items: &[&'static str]) -> Vec<Vec<&'static str>> {
        if items.is_empty() {
            return vec![vec![]];
        }
        let mut all = Vec::new();
        for i in 0..items.len() {
            let mut rest = items.to_vec();
            let first = rest.remove(i);
            for mut tail in permutations(&rest) {
                tail.insert(0, first);
                all.push(tail);
            }
        }
        all
    }

    /// Every order of every subset of three process nodes, with and without
    /// ready, for each of the three as ours (present or not).
    #[test]
    fn leave_step_on_every_subset_and_order() {
        let all = ["c0", "c1", "c2"];
        let mut cases = 0;
        for mask in 0u32..16 {
            let present: Vec<&str> = (0..3)
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| all[i])
                .collect();
            let mut listed = present.clone();
            if mask & 8 != 0 {
                listed.push(READY);
            }
            for order in permutations(&listed) {
                let children = names(&order);
                for mine in all {
                    let ours = present.contains(&mine);
                    let expected = match present.as_slice() {
                        [] => LeaveStep::Exit,
                        [only] if *only == mine => LeaveStep::DeleteAndExit,
                        [lowest, .., highest] if *lowest == mine => LeaveStep::Wait {
                            on: Arc::from(*highest),
                            delete: false,
                        },
                        [lowest, ..] => LeaveStep::Wait {
                            on: Arc::from(*lowest),
                            delete: ours,
                        },
                    };
                    assert_eq!(leave_step(&children, mine), expected, "{order:?} {mine}");
                    cases += 1;
                }
            }
        }
        // Subsets of k nodes (+ ready): k! and (k+1)! orders, times 3 owners.
        assert_eq!(cases, 3 * (1 + 3 + 6 + 6) + 3 * (1 + 3 * 2 + 3 * 6 + 24));
    }

    #[test]
    fn a_restarted_process_sorts_after_its_first_and_before_the_next_client() {
        let children = names(&["c1", "c0r1", READY]);
        assert_eq!(
            leave_step(&children, "c0r1"),
            LeaveStep::Wait {
                on: Arc::from("c1"),
                delete: false
            }
        );
    }

    #[test]
    fn count_leaves_ready_out_except_count_all() {
        let children = names(&["c1", READY, "c0"]);
        assert_eq!(count(Leave::CountProcesses, &children), 2);
        assert_eq!(count(Leave::WatchOne, &children), 2);
        assert_eq!(count(Leave::CountChildren, &children), 3);
        assert_eq!(count(Leave::CountProcesses, &names(&[READY])), 0);
        assert_eq!(count(Leave::CountChildren, &names(&[READY])), 1);
    }
}

/// Client `c` with its phase, in a violation's words: `c1 (Entering)`.
fn phase_of(state: &WorldState<State, Joins>, c: usize) -> String {
    format!("c{c} ({})", state.processes[c].recipe)
}

/// Why `enter_safety` is broken, in words.
fn enter_safety_broken(
    world: &World<DoubleBarrier>,
    run: Run<'_, DoubleBarrier>,
) -> Option<String> {
    let state = run.last();
    let recipe = world.shared();
    let started: Vec<String> = (0..world.clients())
        .filter(|&c| state.processes[c].recipe.phase.has_started())
        .map(|c| phase_of(state, c))
        .collect();
    Some(format!(
        "{} started computing when only {} of the {} processes the barrier waits for had entered",
        properties::and_list(&started),
        state.history.log.count(),
        recipe.threshold
    ))
}

/// Why `leave_safety` is broken, in words.
fn leave_safety_broken(
    world: &World<DoubleBarrier>,
    run: Run<'_, DoubleBarrier>,
) -> Option<String> {
    let state = run.last();
    let recipe = world.shared();
    let store = &state.net.store;
    let left: Vec<String> = (0..world.clients())
        .filter(|&c| state.processes[c].recipe.phase == Phase::Left)
        .map(|c| format!("c{c}"))
        .collect();
    let inside: Vec<String> = (0..world.clients())
        .filter(|&c| {
            let process = &state.processes[c];
            process.status != Status::Crashed
                && process.recipe.phase.has_joined()
                && store.exists(&recipe.node(&process.recipe))
        })
        .map(|c| {
            format!(
                "{} with its node {}",
                phase_of(state, c),
                recipe.node(&state.processes[c].recipe)
            )
        })
        .collect();
    Some(format!(
        "{} left the barrier while {} {} still in it",
        properties::and_list(&left),
        properties::and_list(&inside),
        if inside.len() == 1 { "is" } else { "are" }
    ))
}

/// Why `no_deadlock` is broken, in words.
fn no_deadlock_broken(world: &World<DoubleBarrier>, run: Run<'_, DoubleBarrier>) -> Option<String> {
    let state = run.last();
    let recipe = world.shared();
    // Those no_deadlock blames: a live process that waits, unless it
    // awaits ready in a barrier that can no longer fill.
    let live = |c: &usize| {
        let process = &state.processes[*c];
        process.status != Status::Crashed && process.recipe.phase != Phase::Dead
    };
    let short = (0..world.clients()).filter(live).count() < recipe.threshold
        && !state.net.store.exists(&recipe.ready);
    let waiting: Vec<String> = (0..world.clients())
        .filter(live)
        .filter(|&c| {
            let phase = &state.processes[c].recipe.phase;
            recipe.is_waiting(&state.processes[c].recipe)
                && !(short && *phase == Phase::AwaitingReady)
        })
        .map(|c| phase_of(state, c))
        .collect();
    Some(format!(
        "nothing but a fault can happen and {} still {} forever",
        properties::and_list(&waiting),
        if waiting.len() == 1 { "waits" } else { "wait" }
    ))
}

/// The phases by name, in [`Phase::index`] order: what a check's coverage
/// reports ([`Recipe::PHASES`]).
const PHASES: [&str; 13] = [
    "Idle",
    "Arming",
    "Joining",
    "Counting",
    "AwaitingReady",
    "CreatingReady",
    "Computing",
    "Listing",
    "Watching",
    "Deleting",
    "Draining",
    "Left",
    "Dead",
];

impl Phase {
    /// This phase's place in [`PHASES`].
    fn index(&self) -> u32 {
        match self {
            Phase::Idle => 0,
            Phase::Arming => 1,
            Phase::Joining => 2,
            Phase::Counting => 3,
            Phase::AwaitingReady => 4,
            Phase::CreatingReady => 5,
            Phase::Computing => 6,
            Phase::Listing => 7,
            Phase::Watching(_) => 8,
            Phase::Deleting => 9,
            Phase::Draining => 10,
            Phase::Left => 11,
            Phase::Dead => 12,
        }
    }
}
