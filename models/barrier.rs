//! The barrier (seed 000 "Barriers", seed 002 "Event Handle", seed 004
//! "Barrier").
//!
//! "The barrier is in place if the barrier node exists." The world creates
//! the barrier node ([`Recipe::directory`], `/barrier`, persistent) before any
//! client starts. A waiter ([`Command::Wait`]) follows the seed's pseudo code:
//!
//! 1. "Client calls the ZooKeeper API's exists() function on the barrier node,
//!    with watch set to true" ([`Barrier::check`]).
//! 2. "if exists() returns false, the barrier is gone and the client proceeds"
//!    ([`Phase::Passed`]).
//! 3. "Else, if exists() returns true, the clients wait for a watch event from
//!    ZooKeeper for the barrier node" ([`Phase::Waiting`]).
//! 4. "When the watch event is triggered, the client reissues the exists()
//!    call, again waiting until the barrier node is removed": every callback
//!    the watcher receives re-checks ([`rechecks`]), a node event and the
//!    `SyncConnected` after a reconnect alike. `Disconnected` needs no
//!    request: one sent now would wait for the reconnect, whose
//!    `SyncConnected` re-checks, and whose SetWatches fires `NodeDeleted` if
//!    the node went while the client was away.
//!
//! The controller ([`Command::Lift`]) is seed 004's "client in charge of the
//! barrier [that] will delete /zk_barrier": it deletes the node; NONODE means
//! it is already gone (a delete whose reply was lost was applied), and
//! CONNECTIONLOSS sends the delete again.
//!
//! A lost reply on `exists` (CONNECTIONLOSS) says nothing about the node, and
//! the watch may not be set (the client library registers it only from a
//! reply): the reference asks again. SESSIONEXPIRED ends the client: its
//! handle is dead and it can never learn that the barrier went, so it gives
//! up ([`Phase::Dead`]).
//!
//! Renewed sessions (`[library] on_expiry = "renew"`, as Curator's and
//! kazoo's libraries do): the wait that the lost session interrupted
//! returned unsuccessfully (`GaveUp`); once its library has opened a new
//! session the application waits again, from step 1 (Curator's
//! `DistributedBarrier.waitOnBarrier` throws, and the application calls it
//! again), since its watch died with the old session. A controller whose
//! delete was in flight deletes again (NONODE meaning lifted).
//!
//! Variants are presets of three knobs ([`Knobs`]), which a scenario may
//! turn one by one (`[knobs]`, per client in `[[client]]`):
//! - `reference`: the above;
//! - `no_recheck` (`on_callback = "passes"`): proceeds on any callback of its watcher without asking
//!   again. A `Disconnected` reaches the watcher too (ZooKeeper delivers
//!   session events to every watcher): that is why the seed says re-check;
//! - `loss_is_gone` (`on_loss = "gone"`): reads a lost `exists` reply as "no node", as a client
//!   that tests only for a `Stat` does;
//! - `loss_waits` (`on_loss = "waits"`, `on_callback = "node_events"`):
//!   reads a lost `exists` reply as "the node is there, my watch
//!   is set" and waits, re-checking only on a node event (the seed's "watch
//!   event", taken to exclude session events). Its watch may never have been
//!   set: the client library registers a watch only from a reply, so
//!   SetWatches does not carry it. Either half alone is harmless (the
//!   reference's re-check on `SyncConnected` rescues the wait; asking again
//!   on a loss needs no such re-check); together they wait forever;
//! - `waits_on_old_watch` (`after_renewal = "waits_on_old_watch"`): after a renewal a client that was waiting goes
//!   on waiting for the event of the watch it set in its old session, which
//!   died with that session (one still checking checks again).
//!
//! Every combination of the knobs is a coherent barrier, and `loss_waits`
//! shows why two are needed: `on_loss = "waits"` alone or
//! `on_callback = "node_events"` alone is harmless.
//!
//! Properties: **no early pass** (no client has passed while the barrier node
//! exists) and **waiters proceed** (where nothing but a fault can happen and
//! the node is gone, no live client still waits); partners
//! **someone_passed**, **waiter_woken**.

use crate::catalogued::{Catalogued, Docs, NoParams};
use crate::client::SessionEvent;
use crate::properties::{self, Promise};
use crate::recipe::{is_connection_loss, Effects, Incarnation, Input, Observation, Recipe};
use crate::store::{ErrorCode, Op, OpResult, Path, Response, ANY_VERSION};
use crate::world::{Run, Status, World, WorldState};

/// The barrier node.
pub const BARRIER: &str = "/barrier";

crate::knob_value! {
    /// What a waiter makes of a lost `exists` reply (CONNECTIONLOSS).
    pub enum OnLoss {
        /// nothing: it asks again (the reference)
        AsksAgain = "asks_again",
        /// "no node": it passes, as a client that tests only for a `Stat` does
        Gone = "gone",
        /// "the node is there, my watch is set": it waits, though its watch may never have been set
        Waits = "waits",
    }
}

crate::knob_value! {
    /// What a waiting client does on a callback of its watcher.
    pub enum OnCallback {
        /// asks again on a node event and on `SyncConnected` after a reconnect (the reference)
        Rechecks = "rechecks",
        /// asks again on a node event only (the seed's "watch event", taken to exclude session events)
        NodeEvents = "node_events",
        /// passes on any callback without asking, `Disconnected` included
        Passes = "passes",
    }
}

crate::knob_value! {
    /// What a client that was waiting does once its library renewed its session.
    pub enum AfterRenewal {
        /// waits again from step 1: its watch died with the old session (the reference)
        ChecksAgain = "checks_again",
        /// goes on waiting for the event of the watch of its old session
        WaitsOnOldWatch = "waits_on_old_watch",
    }
}

crate::knobs! {
    /// The barrier's knobs. A variant is a preset of them
    /// ([`Knobs::REFERENCE`] and the others).
    pub struct Knobs {
        /// What a waiter makes of a lost `exists` reply.
        on_loss: OnLoss,
        /// What a waiting client does on a callback of its watcher.
        on_callback: OnCallback,
        /// What a client that was waiting does once its session is renewed.
        after_renewal: AfterRenewal,
    }
}

impl Knobs {
    /// The reference: see the module's documentation.
    pub const REFERENCE: Knobs = Knobs {
        on_loss: OnLoss::AsksAgain,
        on_callback: OnCallback::Rechecks,
        after_renewal: AfterRenewal::ChecksAgain,
    };
    pub const NO_RECHECK: Knobs = Knobs {
        on_callback: OnCallback::Passes,
        ..Knobs::REFERENCE
    };
    pub const LOSS_IS_GONE: Knobs = Knobs {
        on_loss: OnLoss::Gone,
        ..Knobs::REFERENCE
    };
    pub const LOSS_WAITS: Knobs = Knobs {
        on_loss: OnLoss::Waits,
        on_callback: OnCallback::NodeEvents,
        ..Knobs::REFERENCE
    };
    pub const WAITS_ON_OLD_WATCH: Knobs = Knobs {
        after_renewal: AfterRenewal::WaitsOnOldWatch,
        ..Knobs::REFERENCE
    };
}

/// What the application asks of the barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Command {
    /// Blocks until the barrier is gone.
    Wait,
    /// The controller lifts the barrier: deletes its node.
    Lift,
}

/// Where one client is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    Idle,
    /// Step 1: `exists` with a watch sent.
    Checking,
    /// Step 3: the node exists; waiting for the watch event.
    Waiting,
    /// Step 2: the barrier is gone; the client proceeds.
    Passed,
    /// The controller's delete sent.
    Lifting,
    /// The controller saw the node gone.
    Lifted,
    /// The session expired (or was closed): the handle is dead.
    Dead,
}

/// One client's barrier state: its phase, and what its session's end
/// interrupted.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct State {
    pub phase: Phase,
    /// The call that was in flight when the session ended, which the
    /// application makes again once its library renewed the session.
    pub interrupted: Option<Command>,
    /// `waits_on_old_watch`: the wait had set its watch (it was waiting, not
    /// checking) when the session ended.
    pub watched: bool,
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
        write!(f, "{:?}", self.phase)
    }
}

/// What a waiter makes of its `exists` reply, from step 2 or 3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The node is gone: proceed.
    Pass,
    /// The node is there and the watch is set: wait for its event.
    Wait,
    /// The answer says nothing: ask again.
    Ask,
    /// The session is gone: give up.
    GiveUp,
}

/// Steps 2 and 3 on an `exists` reply, as `on_loss` reads a lost one. Pure.
pub fn judge(on_loss: OnLoss, result: &OpResult) -> Verdict {
    match result {
        Ok(Response::Exists(None)) => Verdict::Pass,
        Ok(Response::Exists(Some(_))) => Verdict::Wait,
        Err(ErrorCode::ConnectionLoss) => match on_loss {
            OnLoss::AsksAgain => Verdict::Ask,
            OnLoss::Gone => Verdict::Pass,
            OnLoss::Waits => Verdict::Wait,
        },
        Err(ErrorCode::SessionExpired) => Verdict::GiveUp,
        // No other answer to exists on a valid path; asking again is safe.
        _ => Verdict::Ask,
    }
}

/// Step 4: whether a waiter asks again on this callback of its watcher
/// (`None`: a node event; else the session event) rather than proceeding
/// (`on_callback = "passes"`) or doing nothing. Pure.
pub fn rechecks(on_callback: OnCallback, session: Option<SessionEvent>) -> bool {
    match session {
        None => true,
        Some(SessionEvent::SyncConnected) => on_callback != OnCallback::NodeEvents,
        Some(_) => false,
    }
}

/// The barrier under one setting of its knobs.
#[derive(Clone, Debug)]
pub struct Barrier {
    pub knobs: Knobs,
    node: Path,
}

impl Barrier {
    pub fn new(knobs: Knobs) -> Barrier {
        Barrier {
            knobs,
            node: Path::new(BARRIER),
        }
    }

    /// Step 1.
    fn check(&self, state: &mut State, out: &mut Effects) {
        state.phase = Phase::Checking;
        out.send(Op::Exists {
            path: self.node.clone(),
            watch: true,
        });
    }

    fn lift(&self, state: &mut State, out: &mut Effects) {
        state.phase = Phase::Lifting;
        out.send(Op::Delete {
            path: self.node.clone(),
            version: ANY_VERSION,
        });
    }

    /// A session of its own again: make the interrupted call again, but
    /// under `after_renewal = "waits_on_old_watch"`, which waits on as if its watch had
    /// outlived the session.
    fn renewed(&self, state: &mut State, out: &mut Effects) {
        state.phase = Phase::Idle;
        match state.interrupted.take() {
            Some(Command::Wait) if std::mem::take(&mut state.watched) => {
                state.phase = Phase::Waiting
            }
            Some(Command::Wait) => self.check(state, out),
            Some(Command::Lift) => self.lift(state, out),
            None => {}
        }
    }

    /// A callback of the watcher while waiting (step 4).
    fn on_callback(&self, state: &mut State, session: Option<SessionEvent>, out: &mut Effects) {
        if state.phase != Phase::Waiting {
            return;
        }
        if self.knobs.on_callback == OnCallback::Passes {
            state.phase = Phase::Passed;
        } else if rechecks(self.knobs.on_callback, session) {
            self.check(state, out);
        }
    }
}

impl Recipe for Barrier {
    type State = State;
    type Command = Command;
    type Fact = std::convert::Infallible;
    type Log = ();

    const PHASES: &'static [&'static str] = &PHASES;

    fn phases(&self, state: &Self::State) -> u64 {
        // A unit variant's discriminant is its place in PHASES.
        1 << state.phase as u32
    }

    fn shape(&self, state: &Self::State) -> u64 {
        self.phases(state)
            | u64::from(state.interrupted.is_some()) << 32
            | u64::from(state.watched) << 33
    }

    fn init(&self, _me: Incarnation) -> State {
        State {
            phase: Phase::Idle,
            interrupted: None,
            watched: false,
        }
    }

    fn handle(
        &self,
        _me: Incarnation,
        state: &mut State,
        input: Input<Command>,
        out: &mut Effects,
    ) {
        match (state.phase, input) {
            (Phase::Dead, Input::Session(SessionEvent::SyncConnected)) => self.renewed(state, out),
            (Phase::Dead, _) => {}
            (Phase::Idle, Input::Command(Command::Wait)) => self.check(state, out),
            (Phase::Idle, Input::Command(Command::Lift)) => self.lift(state, out),
            (Phase::Checking, Input::Reply { op, result }) if op.path() == Some(&self.node) => {
                state.phase = match judge(self.knobs.on_loss, &result) {
                    Verdict::Pass => Phase::Passed,
                    Verdict::Wait => Phase::Waiting,
                    Verdict::Ask => {
                        out.send(op);
                        Phase::Checking
                    }
                    Verdict::GiveUp => {
                        out.observe(Observation::GaveUp);
                        state.interrupted = Some(Command::Wait);
                        Phase::Dead
                    }
                }
            }
            (Phase::Lifting, Input::Reply { op, result }) => {
                state.phase = match result {
                    Ok(_) | Err(ErrorCode::NoNode) => Phase::Lifted,
                    _ if is_connection_loss(&result) => {
                        out.send(op);
                        Phase::Lifting
                    }
                    _ => {
                        state.interrupted = Some(Command::Lift);
                        Phase::Dead
                    }
                }
            }
            (_, Input::Session(SessionEvent::Expired | SessionEvent::Closed)) => {
                if matches!(state.phase, Phase::Checking | Phase::Waiting) {
                    out.observe(Observation::GaveUp);
                    state.interrupted = Some(Command::Wait);
                    state.watched = self.knobs.after_renewal == AfterRenewal::WaitsOnOldWatch
                        && state.phase == Phase::Waiting;
                }
                if state.phase == Phase::Lifting {
                    state.interrupted = Some(Command::Lift);
                }
                if state.phase != Phase::Passed && state.phase != Phase::Lifted {
                    state.phase = Phase::Dead;
                }
            }
            (_, Input::Session(event)) => self.on_callback(state, Some(event), out),
            (_, Input::Watch(event)) if event.path == self.node => {
                self.on_callback(state, None, out)
            }
            _ => {}
        }
    }

    fn is_busy(&self, state: &State) -> bool {
        matches!(
            state.phase,
            Phase::Checking | Phase::Waiting | Phase::Lifting
        )
    }

    fn is_waiting(&self, state: &State) -> bool {
        matches!(state.phase, Phase::Checking | Phase::Waiting)
    }

    fn directory(&self) -> &Path {
        &self.node
    }

    fn claims(&self, _state: &State, _name: &str) -> bool {
        false
    }
}

/// A command in a trace: the name scenario scripts give it.
impl std::fmt::Display for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(crate::catalogued::command_name::<Barrier>(self))
    }
}

impl Catalogued for Barrier {
    /// Once its library opened a new session the application makes the call
    /// the lost session interrupted (a wait, a lift) again.
    const RENEWS: bool = true;
    const NAME: &'static str = "barrier";
    const DOCS: Docs = Docs {
        summary:
            "the barrier: waiters wait while /barrier exists; a controller lifts it by deleting it",
        variants: &[
            (
                "reference",
                "waits on exists with a watch and re-checks on every callback",
            ),
            (
                "no_recheck",
                "proceeds on any callback of its watcher, Disconnected included",
            ),
            ("loss_is_gone", "reads a lost exists reply as \"no node\""),
            (
                "loss_waits",
                "reads a lost exists reply as \"my watch is set\" and waits",
            ),
            (
                "waits_on_old_watch",
                "after a renewed session waits on for the watch of its old session",
            ),
        ],
        commands: &[
            ("wait", "block until the barrier is gone"),
            ("lift", "the controller deletes the barrier node"),
        ],
        group: &[&["lift"], &["wait"]],
    };
    type Variant = Knobs;
    const VARIANTS: &'static [(&'static str, Knobs)] = &[
        ("reference", Knobs::REFERENCE),
        ("no_recheck", Knobs::NO_RECHECK),
        ("loss_is_gone", Knobs::LOSS_IS_GONE),
        ("loss_waits", Knobs::LOSS_WAITS),
        ("waits_on_old_watch", Knobs::WAITS_ON_OLD_WATCH),
    ];
    const COMMANDS: &'static [(&'static str, Command)] =
        &[("wait", Command::Wait), ("lift", Command::Lift)];

    type Params = NoParams;

    fn build(knobs: Knobs, _params: &NoParams, _scripts: &[Vec<Command>]) -> Barrier {
        Barrier::new(knobs)
    }

    fn properties() -> Vec<Promise<Barrier>> {
        vec![
            Promise::always(
                "no_early_pass",
                "no client passes while the barrier node exists",
                no_early_pass,
                no_early_pass_broken,
            ),
            Promise::always(
                "waiters_proceed",
                "once nothing but a fault can happen and the barrier is gone, no live client \
                 still waits",
                waiters_proceed,
                waiters_proceed_broken,
            ),
            Promise::sometimes(
                "someone_passed",
                "some client passed the barrier (no early pass is not vacuous)",
                someone_passed,
            ),
            Promise::waiter_woken(),
        ]
    }

    fn check_scripts(scripts: &[Vec<Command>]) -> Result<(), String> {
        let lifts = scripts.iter().flatten().filter(|c| **c == Command::Lift);
        if lifts.count() > 1 {
            return Err("more than one `lift`; expected one controller at most".into());
        }
        if scripts.iter().any(|script| script.len() > 1) {
            return Err("a script of more than one command; expected [\"wait\"] or [\"lift\"] (the node is deleted once and never re-created)".into());
        }
        Ok(())
    }
}

/// No early pass: no client has passed while the barrier node exists.
///
/// Reading the current state is exact: the node is never re-created (only the
/// world creates it, before any client starts), so a client found passed
/// while the node exists passed while it existed; and one that passed early
/// is found so in the very state its pass made, before a crash could reset it.
pub fn no_early_pass(world: &World<Barrier>, state: &WorldState<State>) -> bool {
    !state.net.store.exists(world.directory()) || !someone_passed(world, state)
}

/// Waiters proceed: where nothing but a fault can happen and the barrier node
/// is gone, no live client still waits. A live client is one whose process
/// has not crashed and whose session has not ended: a waiter whose session
/// expired ([`Phase::Dead`]) can never learn that the node went (its handle
/// answers every request SESSIONEXPIRED), and is not a client the barrier can
/// release. Sound on quiescent states for the reason
/// [`properties::no_orphan_no_deadlock`] gives.
pub fn waiters_proceed(world: &World<Barrier>, state: &WorldState<State>) -> bool {
    if state.net.store.exists(world.directory()) || !world.is_quiescent(state) {
        return true;
    }
    !state.processes.iter().enumerate().any(|(client, process)| {
        process.status != Status::Crashed && world.recipe(client).is_waiting(&process.recipe)
    })
}

/// Some client passed (the partner of no early pass).
pub fn someone_passed(_: &World<Barrier>, state: &WorldState<State>) -> bool {
    state
        .processes
        .iter()
        .any(|process| process.recipe.phase == Phase::Passed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Stat;

    #[test]
    fn judge_on_every_answer() {
        let answers = [
            Ok(Response::Exists(None)),
            Ok(Response::Exists(Some(Stat::default()))),
            Err(ErrorCode::ConnectionLoss),
            Err(ErrorCode::SessionExpired),
            Err(ErrorCode::NoNode),
        ];
        let losses = [
            (OnLoss::AsksAgain, Verdict::Ask),
            (OnLoss::Gone, Verdict::Pass),
            (OnLoss::Waits, Verdict::Wait),
        ];
        for (on_loss, on_a_loss) in losses {
            let verdicts: Vec<Verdict> = answers.iter().map(|a| judge(on_loss, a)).collect();
            assert_eq!(
                verdicts,
                [
                    Verdict::Pass,
                    Verdict::Wait,
                    on_a_loss,
                    Verdict::GiveUp,
                    Verdict::Ask
                ],
                "{on_loss:?}"
            );
        }
    }

    #[test]
    fn rechecks_on_node_events_and_reconnects_only() {
        let every = [
            OnCallback::Rechecks,
            OnCallback::NodeEvents,
            OnCallback::Passes,
        ];
        for on_callback in every {
            assert!(rechecks(on_callback, None));
            assert_eq!(
                rechecks(on_callback, Some(SessionEvent::SyncConnected)),
                on_callback != OnCallback::NodeEvents
            );
            for event in [
                SessionEvent::Disconnected,
                SessionEvent::Expired,
                SessionEvent::Closed,
            ] {
                let rechecked = rechecks(on_callback, Some(event));
                assert!(!rechecked, "{on_callback:?} {event:?}");
            }
        }
    }
}

/// Why `no_early_pass` is broken, in words.
fn no_early_pass_broken(world: &World<Barrier>, run: Run<'_, Barrier>) -> Option<String> {
    let state = run.last();
    let barrier = world.directory();
    let in_phase = |phase: Phase| -> Vec<String> {
        (0..world.clients())
            .filter(|&c| state.processes[c].recipe.phase == phase)
            .map(|c| format!("c{c}"))
            .collect()
    };
    Some(format!(
        "{} passed while the barrier node {barrier} still exists",
        properties::and_list(&in_phase(Phase::Passed))
    ))
}

/// Why `waiters_proceed` is broken, in words.
fn waiters_proceed_broken(world: &World<Barrier>, run: Run<'_, Barrier>) -> Option<String> {
    let state = run.last();
    let barrier = world.directory();
    let waiting = properties::waiting(world, state);
    Some(format!(
        "the barrier node {barrier} is gone and nothing but a fault can happen, \
         yet {} still {} forever",
        properties::and_list(&waiting),
        if waiting.len() == 1 { "waits" } else { "wait" }
    ))
}

/// The phases by name, in declaration order: what a check's coverage
/// reports ([`Recipe::PHASES`]).
const PHASES: [&str; 7] = [
    "Idle", "Checking", "Waiting", "Passed", "Lifting", "Lifted", "Dead",
];
