//! The property library: what recipes promise, as conditions on a world state.
//!
//! Each is a plain function of the model and a state, read from the state's
//! [`History`](crate::world::History) and the store, never from messages still
//! in flight. A recipe lists the ones it promises, each `always` with a
//! `sometimes` partner that proves the interesting part happened (a mutual
//! exclusion that holds because nobody ever acquired proves nothing).

use crate::recipe::Recipe;
use crate::world::{Status, World, WorldState};

/// Mutual exclusion: at most one client believes it holds the lock.
pub fn mutual_exclusion<R: Recipe>(_: &World<R>, state: &WorldState<R::State>) -> bool {
    state.history.holding.iter().flatten().count() <= 1
}

/// Writer exclusion (the shared lock): a client that holds exclusively (the
/// write lock) is the only holder; readers may hold together.
pub fn writer_exclusion<R: Recipe>(_: &World<R>, state: &WorldState<R::State>) -> bool {
    let holders = || state.history.holding.iter().flatten();
    !holders().any(|tenure| tenure.role.is_exclusive()) || holders().count() <= 1
}

/// Resource safety: the protected resource never accepted a write from a
/// holder older than one whose write it had already accepted.
pub fn resource_safety<R: Recipe>(_: &World<R>, state: &WorldState<R::State>) -> bool {
    !state.history.resource.interleaved
}

/// Herd avoidance: no znode deletion woke more than one waiting client.
pub fn herd_avoidance<R: Recipe>(_: &World<R>, state: &WorldState<R::State>) -> bool {
    !state.history.herd
}

/// No orphan, no deadlock: in a state where nothing but a fault can happen,
/// no client is still waiting, and no node in the recipe's directory belongs
/// to a live session whose client does not know of it or no longer wants it.
///
/// Why checking only such quiescent states is sound: every progress action
/// consumes a message, a command or a pending reconnect, or sends a request
/// with a fresh xid, so no sequence of states repeats and the state space is
/// finite and acyclic. Every fair run (one that takes progress actions while
/// any is enabled) therefore ends in a quiescent state, and "every waiting
/// client is eventually served" is exactly "no quiescent state has a waiting
/// client". stateright's `eventually`, which misses violations on cycles and
/// treats faults as forced, is not needed.
pub fn no_orphan_no_deadlock<R: Recipe>(world: &World<R>, state: &WorldState<R::State>) -> bool {
    if !world.is_quiescent(state) {
        return true;
    }
    let waiting = state.processes.iter().any(|process| {
        process.status != Status::Crashed && world.recipe.is_waiting(&process.recipe)
    });
    !waiting && orphans(world, state).is_empty()
}

/// Nodes in the recipe's directory owned by a live session whose client does
/// not claim them.
pub fn orphans<R: Recipe>(world: &World<R>, state: &WorldState<R::State>) -> Vec<String> {
    let store = &state.net.store;
    let dir = world.recipe.directory();
    store
        .children(dir)
        .into_iter()
        .filter(|name| {
            let Some(stat) = store.stat(&dir.child(name)) else {
                return false;
            };
            let owner = stat.ephemeral_owner;
            if owner == 0 || !store.is_alive(owner) {
                return false;
            }
            match world.client_of(state, owner) {
                Some(client) => !world.recipe.claims(&state.processes[client].recipe, name),
                // A crashed process's session: the server will expire it.
                None => false,
            }
        })
        .map(|name| name.to_string())
        .collect()
}

/// Someone acquired the lock (the partner of mutual exclusion).
pub fn someone_acquired<R: Recipe>(_: &World<R>, state: &WorldState<R::State>) -> bool {
    state.history.acquisitions > 0
}

/// Someone holds exclusively (the partner of writer exclusion).
pub fn writer_acquired<R: Recipe>(_: &World<R>, state: &WorldState<R::State>) -> bool {
    state
        .history
        .holding
        .iter()
        .flatten()
        .any(|tenure| tenure.role.is_exclusive())
}

/// Two readers hold at once: the shared lock does share.
pub fn readers_share<R: Recipe>(_: &World<R>, state: &WorldState<R::State>) -> bool {
    let readers = state.history.holding.iter().flatten();
    readers.filter(|tenure| !tenure.role.is_exclusive()).count() >= 2
}

/// A waiting client was woken by a notification (the partner of herd avoidance).
pub fn waiter_woken<R: Recipe>(_: &World<R>, state: &WorldState<R::State>) -> bool {
    state.history.woken
}
