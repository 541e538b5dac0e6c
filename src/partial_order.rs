//! Partial-order reduction: one order for steps that commute.
//!
//! Many interleavings end where their reorderings end. While the server
//! serves `c1`, `c0` may read a reply that only makes it send its next
//! request: whichever happens first, the same state follows, and no
//! property can tell the two paths apart on the way. A search needs only
//! one of them. From some states it therefore takes the steps of one client
//! only, its *ample set*, and leaves the others' for the states after it:
//! they are still enabled there, and taken there.
//!
//! # When a client's steps are an ample set
//!
//! [`reduce`] takes the first client `c` (in number order) for which all of
//! this holds in the state `s`:
//!
//! 1. **Local steps only.** Every enabled action that names `c` is its
//!    application's next command (`Invoke`), its pending call's timeout
//!    (`Timeout`), the reading of its next message (`Deliver`) or its other
//!    thread's step that waits for no input (`GoOn`), and other clients or
//!    the server have something enabled too. Each of these four changes
//!    `c`'s process, `c`'s client library and `c`'s link (it reads the head
//!    of the link's inbound queue and appends to its outbound one), and
//!    nothing else but the history's record of `c`'s node
//!    ([`History::nodes`]). What it does is fixed by those and by the
//!    message it reads.
//! 2. **No fault can reach `c`.** `c` runs, is connected, and no budget is
//!    left of a fault that can strike a running connected client (crash,
//!    pause, disconnect, expire, lose a reply), neither at any client, nor
//!    aimed at `c`, nor aimed at a role or a phase. (A restart needs a crash
//!    first, an abandoned session a disconnection first, and a dead
//!    session's expiry a crash.)
//! 3. **No notification can reach `c`.** No server holds a watch of `c`'s
//!    session (on an ensemble, in no server's replica) and no request on
//!    `c`'s link sets one. A notification would
//!    make the server's step read `c`'s recipe (whether it is waiting, for
//!    herd avoidance: [`World::wake`](crate::world::World)), which `c`'s
//!    steps change.
//! 4. **Nothing of `c`'s can become enabled by others.** `c` can read a
//!    message now, or has no request on its way (so no reply can come): none
//!    on its link, and on an ensemble no write or `sync` its server has yet
//!    to finish, whose reply that server's `Apply` would send. Its other
//!    actions depend on its own state only.
//! 5. **Invisible, and rising.** Each of `c`'s enabled steps, taken in `s`,
//!    observes nothing that writes the shared history (no acquisition, no
//!    write to the resource, no fact of the recipe: only a release, a loss
//!    or a giving up, which clear `c`'s own slot), leaves the history as it
//!    was (but for `c`'s node record), and raises the termination rank
//!    ([`crate::properties::termination::rank`]).
//!
//! A world reduces only where every client's recipe says that its
//! properties, outside quiescent states, read the history, the store and
//! the processes' statuses alone, and that its log learns nothing from
//! inputs ([`Recipe::observed_through_history`]: the lock, the shared lock
//! and leader election), and where `--reduce` names `partial-order` (the
//! default, `all`, does).
//!
//! # Why every verdict stays what it was
//!
//! The classical conditions (Peled; Clarke, Grumberg and Peled, *Model
//! Checking*, ch. 10) for an ample set `A` of `s`:
//!
//! - **C1, persistence.** On every path from `s` that takes no action of
//!   `A`, every action is independent of every action of `A`: neither
//!   disables the other, and taken in either order they reach the same
//!   state. The other clients' steps and the servers' touch `c`'s link only
//!   by appending to its inbound queue (a reply to a request `c` already
//!   sent; on an ensemble also the waiting write's record an `Apply` clears,
//!   which none of `c`'s own steps read), which commutes with reading its
//!   head, and touch `c`'s process
//!   and library not at all: by 2 no fault reaches `c`, by 3 no
//!   notification does (the one server step that reads another client's
//!   recipe), and by 5 `c`'s step writes no part of the history another
//!   step writes (`Released` only clears `c`'s own slot). By 4, no action
//!   of `c`'s outside `A` becomes enabled on such a path: `Deliver(c)` is in
//!   `A` or no reply can arrive, and `Invoke(c)` and `Timeout(c)` depend on
//!   `c`'s process alone. The record of `c`'s node may be forgotten in
//!   either order at different steps; it is kept exactly as long as `c` can
//!   still hold by it, so the two states it splits are bisimilar, which is
//!   all the argument below needs (as for the other reductions).
//! - **C2, invisibility.** What a property reads of a state (outside
//!   quiescent states) is the history, the store and the processes'
//!   statuses. A step of `A` changes none of them in `s`, by 5. Taken
//!   later, after steps independent of it, it reads the same process,
//!   library and message, so it makes the same change to `c`, and observes
//!   the same: it changes none of them there either.
//! - **C3, no step put off forever.** Every step of an ample set raises the
//!   rank, so a cycle of the reduced graph has a step that does not, taken
//!   from a state that was fully expanded.
//!
//! Under them, for every path of the whole graph from `s` there is a path
//! of the reduced graph that goes through the same property values in the
//! same order, give or take repetitions, and reaches a state of the same
//! class (the search's fingerprints merge bisimilar states, which keeps
//! this true: the induction runs over every state the search went on
//! from). So:
//! - an `always` property violated somewhere is violated in the reduced
//!   graph, and a `sometimes` property met somewhere is met there; so is
//!   every fault kind some path injects;
//! - every state a client's process is in somewhere, it is in somewhere in
//!   the reduced graph (so the coverage of phases is the same): the
//!   reordered path takes each client's own steps in their order, and the
//!   steps put before others change no other process;
//! - every quiescent state (where no progress action is enabled) is reached
//!   itself: from `s`, a path to a quiescent state must take a step of `A`
//!   (each stays enabled until it is taken), which moves to the front. The
//!   properties that read more than the above read it only there
//!   ([`World::is_quiescent`]);
//! - `terminates`: a fair infinite path from `s` takes a step of `A` (a
//!   progress step enabled until taken), so the reduced graph has an
//!   infinite path, hence a cycle, whose step that does not raise the rank
//!   sends the check to its cycle search, which searches without
//!   reductions. The termination rank is checked on every step the reduced
//!   search takes, as before.
//!
//! A counterexample is a path of real steps: it replays. The shortest
//! counterexample is searched without reductions, so it is the shortest of
//! the whole graph.
//!
//! **Depth.** The reduced path that matches a path of the whole graph takes
//! the same steps in another order, and sometimes a few more of `c`'s: it
//! can be longer. A search that a depth limit cut could then miss, within
//! the limit, what the whole graph has within it. So a check that a depth
//! limit cut (`--max-depth`, or its scenario's depth bound) searches again
//! without this reduction ([`crate::check::check_bounded`]). A search that finishes needs no such
//! care: every reduced path is a path of the whole graph, no longer than
//! its longest.
//!
//! `tests/reductions.rs` checks the consequences on whole graphs: the same
//! quiescent states, the same property values reached, and the same
//! verdicts as without.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::recipe::{Observation, Recipe};
use crate::store::Op;
use crate::world::faults::{Target, DECLARATIONS};
use crate::world::steps::Ample;
use crate::world::{Action, History, Status, World, WorldState};

/// Narrows `actions` (every action enabled in `state`, in the checker's
/// order) to an ample set, if some client's steps make one; otherwise
/// leaves them.
pub fn reduce<R: Recipe>(
    world: &World<R>,
    state: &WorldState<R::State, R::Log>,
    actions: &mut Vec<Action>,
) {
    for client in 0..world.clients() {
        if is_ample(world, state, actions, client) {
            actions.retain(|action| action.actor() == Some(client));
            return;
        }
    }
}

/// Whether `client`'s enabled actions are an ample set of `state`, whose
/// enabled actions are `actions` (the module doc's conditions 1 to 5).
pub fn is_ample<R: Recipe>(
    world: &World<R>,
    state: &WorldState<R::State, R::Log>,
    actions: &[Action],
    client: usize,
) -> bool {
    let mut own = 0;
    let mut reads = false;
    for action in actions
        .iter()
        .filter(|action| action.actor() == Some(client))
    {
        match action.ample() {
            Ample::Alone => {}
            Ample::Reads => reads = true,
            Ample::Never => return false,
        }
        own += 1;
    }
    if own == 0 || own == actions.len() {
        return false;
    }
    let link = &state.net.links[client];
    let connected = state.net.client(client).state() == crate::client::ConnState::Connected;
    if state.processes[client].status != Status::Running || !connected || link.broken {
        return false;
    }
    if !(reads || (link.up.is_empty() && state.net.wait(client).is_none())) {
        return false;
    }
    if fault_may_strike(world, state, client) {
        return false;
    }
    let session = state.net.session(client);
    let ensemble = &state.net.ensemble;
    // On an ensemble every watch is a replica's: the order's store serves
    // no read, so it never holds one, and the replicas are all there is.
    debug_assert!(!ensemble.is_ensemble() || !state.net.store.watches_of(session));
    let watched = (0..ensemble.servers())
        .any(|server| ensemble.store(&state.net.store, server).watches_of(session));
    if watched || link.up.iter().any(|request| sets_watch(&request.op)) {
        return false;
    }
    actions
        .iter()
        .filter(|action| action.actor() == Some(client))
        .all(|action| {
            // A step that panics is not taken here: the search takes it
            // itself, and reports the panic with the step that caused it.
            let tried = catch_unwind(AssertUnwindSafe(|| world.step_observed(state, action)));
            let Ok(Some((next, observed))) = tried else {
                return false;
            };
            observed.iter().all(|(_, observation)| {
                matches!(
                    observation,
                    Observation::Released
                        | Observation::Suspended
                        | Observation::Lost
                        | Observation::GaveUp
                )
            }) && same_but_nodes(&state.history, &next.history)
                && crate::properties::termination::raises_rank(state, &next)
        })
}

/// Whether some budget is left of a fault that can strike `client` while it
/// runs and is connected ([`FaultKind::STRIKES_THE_CONNECTED`]): at any
/// client, aimed at it, or aimed at a role it may come to play or a phase it
/// may enter; or of a fault that reaches beyond the client it strikes
/// ([`FaultKind::REACHES_OTHERS`]), wherever it is aimed.
///
/// [`FaultKind::STRIKES_THE_CONNECTED`]: crate::world::faults::FaultKind::STRIKES_THE_CONNECTED
/// [`FaultKind::REACHES_OTHERS`]: crate::world::faults::FaultKind::REACHES_OTHERS
fn fault_may_strike<R: Recipe>(
    world: &World<R>,
    state: &WorldState<R::State, R::Log>,
    client: usize,
) -> bool {
    let budget = &world.budget;
    DECLARATIONS.iter().any(|declaration| {
        let kind = declaration.kind;
        let reaches = |target: &Target| match target {
            _ if declaration.reaches_others => true,
            Target::Client(target) => *target == client,
            Target::Role { .. } | Target::Phase { .. } => true,
        };
        (declaration.strikes_the_connected || declaration.reaches_others)
            && (state.spent.any[kind as usize] < budget.any[kind as usize]
                || budget.aimed.iter().enumerate().any(|(index, aimed)| {
                    aimed.kind == kind
                        && state.spent.aimed[index] < aimed.count
                        && reaches(&aimed.target)
                }))
    })
}

/// Whether the server registers a watch when it serves `op`, or removes
/// one, or reads every session's watches (`checkWatches`).
fn sets_watch(op: &Op) -> bool {
    match op {
        Op::Exists { watch, .. } | Op::GetData { watch, .. } | Op::GetChildren { watch, .. } => {
            *watch
        }
        Op::AddWatch { .. } | Op::RemoveWatches { .. } | Op::CheckWatches { .. } => true,
        _ => false,
    }
}

/// Whether two histories agree on everything a property reads: all but the
/// record of each client's node, which no property reads.
fn same_but_nodes<L: PartialEq>(before: &History<L>, after: &History<L>) -> bool {
    let History {
        holding,
        nodes: _,
        acquisitions,
        resource,
        herd,
        wakes,
        woken,
        log,
    } = before;
    *holding == after.holding
        && *acquisitions == after.acquisitions
        && *resource == after.resource
        && *herd == after.herd
        && *wakes == after.wakes
        && *woken == after.woken
        && *log == after.log
}
