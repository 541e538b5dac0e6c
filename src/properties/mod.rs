//! The property library: what recipes promise, as conditions on a world state.
//!
//! A property is declared once, as a [`Promise`]: its name, what it means,
//! whether it must always hold or be reached, its condition, and for an
//! `always` the words of a violation. A condition is a plain function of the
//! model and a state, read from the state's
//! [`History`](crate::world::History) and the store, never from messages still
//! in flight. A recipe lists the promises it makes
//! ([`crate::catalogued::Catalogued::properties`]), each `always` with a
//! `sometimes` partner that proves the interesting part happened (a mutual
//! exclusion that holds because nobody ever acquired proves nothing). The
//! ones several recipes share are declared here ([`Promise::mutual_exclusion`]
//! and the others); a recipe's own are declared in its file.

pub use crate::world::promise::{Condition, Declared, Explain, Promise, When};

use crate::recipe::{Observation, Recipe};
use crate::world::{Run, Status, World, WorldState};

pub mod termination;
pub mod verdict;

/// Mutual exclusion: at most one client believes it holds the lock.
pub fn mutual_exclusion<R: Recipe>(_: &World<R>, state: &WorldState<R::State, R::Log>) -> bool {
    state.history.holding.iter().flatten().count() <= 1
}

/// Writer exclusion (the shared lock): a client that holds exclusively (the
/// write lock) is the only holder; readers may hold together.
pub fn writer_exclusion<R: Recipe>(_: &World<R>, state: &WorldState<R::State, R::Log>) -> bool {
    let holders = || state.history.holding.iter().flatten();
    !holders().any(|tenure| tenure.role.is_exclusive()) || holders().count() <= 1
}

/// Resource safety: the protected resource never accepted a write from a
/// holder older than one whose write it had already accepted; a resource
/// in ZooKeeper, none the server applied while its writer's node was not
/// the first in create order ([`crate::world::Resource::unheld`]).
pub fn resource_safety<R: Recipe>(_: &World<R>, state: &WorldState<R::State, R::Log>) -> bool {
    let resource = state.history.resource;
    !resource.interleaved && !resource.unheld
}

/// Herd avoidance: no znode deletion woke more than one waiting client.
pub fn herd_avoidance<R: Recipe>(_: &World<R>, state: &WorldState<R::State, R::Log>) -> bool {
    !state.history.herd
}

/// No orphan, no deadlock: in a state where nothing but a fault can happen,
/// no client is still waiting, and no node in the recipe's directory belongs
/// to a live session whose client does not know of it or no longer wants it.
///
/// Why checking only such quiescent states is sound: once a check has shown
/// that every fair run ends, it ends in a quiescent state, and "every
/// waiting client is eventually served" is exactly "no quiescent state has a
/// waiting client". That every fair run ends is not assumed: the check
/// proves it (the rank it checks on every step shows the graph has no cycle,
/// and the search saw every state within its depth bound) or refutes it,
/// and reports it as the `terminates` verdict; the argument is in
/// [`termination`]'s module doc. stateright's `eventually`, which misses
/// violations on cycles and treats faults as forced, is not needed.
pub fn no_orphan_no_deadlock<R: Recipe>(
    world: &World<R>,
    state: &WorldState<R::State, R::Log>,
) -> bool {
    if !world.is_quiescent(state) {
        return true;
    }
    let waiting = state.processes.iter().enumerate().any(|(client, process)| {
        process.status != Status::Crashed && world.recipe(client).is_waiting(&process.recipe)
    });
    !waiting && orphans(world, state).is_empty()
}

/// Nodes in the recipe's directory owned by a live session whose client does
/// not claim them.
pub fn orphans<R: Recipe>(world: &World<R>, state: &WorldState<R::State, R::Log>) -> Vec<String> {
    let store = &state.net.store;
    let dir = world.directory();
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
                Some(client) => !world
                    .recipe(client)
                    .claims(&state.processes[client].recipe, name),
                // A crashed process's session: the server will expire it.
                None => false,
            }
        })
        .map(|name| name.to_string())
        .collect()
}

/// Someone acquired the lock (the partner of mutual exclusion).
pub fn someone_acquired<R: Recipe>(_: &World<R>, state: &WorldState<R::State, R::Log>) -> bool {
    state.history.acquisitions > 0
}

/// Someone holds exclusively (the partner of writer exclusion).
pub fn writer_acquired<R: Recipe>(_: &World<R>, state: &WorldState<R::State, R::Log>) -> bool {
    state
        .history
        .holding
        .iter()
        .flatten()
        .any(|tenure| tenure.role.is_exclusive())
}

/// Two readers hold at once: the shared lock does share.
pub fn readers_share<R: Recipe>(_: &World<R>, state: &WorldState<R::State, R::Log>) -> bool {
    let readers = state.history.holding.iter().flatten();
    readers.filter(|tenure| !tenure.role.is_exclusive()).count() >= 2
}

/// A waiting client was woken by a notification (the partner of herd avoidance).
pub fn waiter_woken<R: Recipe>(_: &World<R>, state: &WorldState<R::State, R::Log>) -> bool {
    state.history.woken
}

/// The promises several recipes make.
impl<R: Recipe> Promise<R> {
    pub fn mutual_exclusion() -> Promise<R> {
        Promise::always(
            "mutual_exclusion",
            "at most one client believes it holds the lock",
            mutual_exclusion,
            mutual_exclusion_broken,
        )
    }

    pub fn writer_exclusion() -> Promise<R> {
        Promise::always(
            "writer_exclusion",
            "a client holding the write lock is the only holder (readers may share)",
            writer_exclusion,
            writer_exclusion_broken,
        )
    }

    pub fn resource_safety() -> Promise<R> {
        Promise::always(
            "resource_safety",
            "the protected resource never takes a write from a holder older than one whose \
             write it already took, nor (a resource in ZooKeeper) one the server applies under \
             a lock node that is not then the first",
            resource_safety,
            resource_safety_broken,
        )
    }

    pub fn herd_avoidance() -> Promise<R> {
        Promise::always(
            "herd_avoidance",
            "no znode deletion wakes more than one waiting client",
            herd_avoidance,
            herd_avoidance_broken,
        )
    }

    pub fn no_orphan_no_deadlock() -> Promise<R> {
        Promise::always(
            "no_orphan_no_deadlock",
            "once nothing but a fault can happen, no client still waits and no live session \
             owns a node its client does not want",
            no_orphan_no_deadlock,
            no_orphan_no_deadlock_broken,
        )
    }

    pub fn someone_acquired() -> Promise<R> {
        Promise::sometimes(
            "someone_acquired",
            "some client acquired the lock (mutual exclusion is not vacuous)",
            someone_acquired,
        )
    }

    pub fn writer_acquired() -> Promise<R> {
        Promise::sometimes(
            "writer_acquired",
            "some client held the write lock (writer exclusion is not vacuous)",
            writer_acquired,
        )
    }

    pub fn readers_share() -> Promise<R> {
        Promise::sometimes(
            "readers_share",
            "two readers held the lock at once (the shared lock does share)",
            readers_share,
        )
    }

    pub fn waiter_woken() -> Promise<R> {
        Promise::sometimes(
            "waiter_woken",
            "a waiting client was woken by a watch (herd avoidance is not vacuous)",
            waiter_woken,
        )
    }
}

/// Why the last state of `run` breaks `property`, in words: who believes
/// what ([`Promise::violation`]). `None` if the world makes no such promise,
/// the state does not break it, or its promise has no words for it.
pub fn violation<R: Recipe>(world: &World<R>, run: Run<'_, R>, property: &str) -> Option<String> {
    world.promise(property)?.violation(world, run)
}

/// The holders of `state`, each with its tenure.
fn holders<S, L>(
    state: &WorldState<S, L>,
) -> impl Iterator<Item = (usize, crate::world::Tenure)> + '_ {
    (state.history.holding.iter().enumerate())
        .filter_map(|(c, tenure)| tenure.map(|tenure| (c, tenure)))
}

fn mutual_exclusion_broken<R: Recipe>(_: &World<R>, run: Run<'_, R>) -> Option<String> {
    let state = run.last();
    let names: Vec<String> = holders(state)
        .map(|(c, tenure)| format!("c{c} (token {})", tenure.token))
        .collect();
    let role = holders(state).next()?.1.role;
    Some(format!(
        "{} {} believe they {}",
        and_list(&names),
        if names.len() == 2 { "both" } else { "all" },
        role.phrase(true)
    ))
}

fn writer_exclusion_broken<R: Recipe>(_: &World<R>, run: Run<'_, R>) -> Option<String> {
    let each: Vec<String> = holders(run.last())
        .map(|(c, tenure)| {
            format!(
                "c{c} {} (token {})",
                tenure.role.phrase(false),
                tenure.token
            )
        })
        .collect();
    Some(format!(
        "a writer is not the only holder: {}",
        each.join("; ")
    ))
}

fn resource_safety_broken<R: Recipe>(_: &World<R>, run: Run<'_, R>) -> Option<String> {
    if let Some(step) = run.first_step(|state| state.history.resource.unheld) {
        return Some(format!(
            "at step {step} the server applied a write to the resource under a lock node \
             (the node its data names) that was not then the first in the lock directory: \
             its writer wrote on a lock it did not hold"
        ));
    }
    // The step that broke it: the write that landed late.
    let step = run.first_step(|state| state.history.resource.interleaved)?;
    let late = run
        .observations()
        .find(|(at, _, seen)| *at == step && matches!(seen, Observation::Used { .. }));
    Some(match late {
        Some((step, c, _)) => format!(
            "at step {step} the resource took c{c}'s write after a write of a holder \
             granted the lock after c{c}: c{c} wrote on a lock it no longer held"
        ),
        None => format!(
            "at step {step} the resource took a write from a holder older than one \
             whose write it had already taken"
        ),
    })
}

fn herd_avoidance_broken<R: Recipe>(world: &World<R>, run: Run<'_, R>) -> Option<String> {
    let step = run.first_step(|state| state.history.herd)?;
    let woke = herd(world, &run.states[step - 1], &run.states[step]);
    Some(match run.last().net.ensemble.servers() {
        1 => format!(
            "the deletion at step {step} woke {} waiting clients at once: {}",
            woke.len(),
            and_list(&woke)
        ),
        servers => format!(
            "the deletion a server applied at step {step} has woken {} waiting clients \
             across the {servers} servers: {}",
            woke.len(),
            and_list(&woke)
        ),
    })
}

fn no_orphan_no_deadlock_broken<R: Recipe>(world: &World<R>, run: Run<'_, R>) -> Option<String> {
    let state = run.last();
    let mut parts = Vec::new();
    let waiting = waiting(world, state);
    if !waiting.is_empty() {
        parts.push(format!(
            "nothing but a fault can happen and {} still {} forever",
            and_list(&waiting),
            if waiting.len() == 1 { "waits" } else { "wait" }
        ));
    }
    let dir = world.directory();
    let orphans: Vec<String> = orphans(world, state)
        .into_iter()
        .map(|name| {
            let owner = state
                .net
                .store
                .stat(&dir.child(&name))
                .and_then(|stat| world.client_of(state, stat.ephemeral_owner))
                .map(|c| format!(" (c{c}'s live session, which c{c} does not know of or want)"))
                .unwrap_or_default();
            format!("{dir}/{name}{owner}")
        })
        .collect();
    if !orphans.is_empty() {
        parts.push(format!(
            "orphan nodes block the directory: {}",
            orphans.join(", ")
        ));
    }
    Some(parts.join("; and "))
}

/// The clients whose process has not crashed and who still wait, each with
/// its phase: `c1 (take Waiting)`.
pub fn waiting<R: Recipe>(world: &World<R>, state: &WorldState<R::State, R::Log>) -> Vec<String> {
    (0..world.clients())
        .filter(|&c| {
            state.processes[c].status != Status::Crashed
                && world.recipe(c).is_waiting(&state.processes[c].recipe)
        })
        .map(|c| format!("c{c} ({})", state.processes[c].recipe))
        .collect()
}

/// The waiting clients a step's watch events woke, by the rules
/// [`World::wake`](crate::world::World) judges a herd with: a client whose
/// process runs, that the recipe counts as waiting, and that was not merely
/// told its own node went. On an ensemble, with those the same deletion
/// woke at other servers before ([`crate::world::History::wakes`]).
fn herd<R: Recipe>(
    world: &World<R>,
    before: &WorldState<R::State, R::Log>,
    after: &WorldState<R::State, R::Log>,
) -> Vec<String> {
    let mut woke = woken_in_step(world, before, after);
    let kept = |wake: &crate::world::Wake| {
        (after.history.wakes.iter()).any(|now| now.path == wake.path && now.zxid == wake.zxid)
    };
    // The herd's deletion as recorded after the step: it grew in this step
    // to more than one woken, not all together; or, once every server had
    // applied it (and it was forgotten), as it was before, with this
    // step's.
    let grown = |wake: &crate::world::Wake| {
        !wake.together
            && wake.woken.len() > 1
            && !woke.is_empty()
            && wake.woken.is_superset(&woke)
            && !(before.history.wakes.iter()).any(|old| old == wake)
    };
    let deletion = (after.history.wakes.iter())
        .find(|wake| grown(wake))
        .map(|wake| wake.woken.clone())
        .or_else(|| {
            (before.history.wakes.iter())
                .filter(|wake| !kept(wake))
                .map(|wake| &wake.woken | &woke)
                .find(|woken| woken.len() > 1)
        });
    if let Some(all) = deletion {
        woke = all;
    }
    woke.iter().map(|c| format!("c{c}")).collect()
}

fn woken_in_step<R: Recipe>(
    world: &World<R>,
    before: &WorldState<R::State, R::Log>,
    after: &WorldState<R::State, R::Log>,
) -> std::collections::BTreeSet<crate::net::ClientId> {
    use crate::client::ServerMessage;
    use crate::store::EventType;
    let dir = world.directory();
    (0..world.clients())
        .filter(|&c| {
            let recipe = &after.processes[c].recipe;
            let new = after.net.links[c]
                .down
                .iter()
                .skip(before.net.links[c].down.len())
                .filter_map(|message| match message {
                    ServerMessage::Notification(event) => Some(event),
                    ServerMessage::Reply { .. } => None,
                });
            let mut woken = new.filter(|event| {
                let own = event.kind == EventType::NodeDeleted
                    && event.path.is_child_of(dir)
                    && world.recipe(c).claims(recipe, event.path.name());
                !own
            });
            after.processes[c].status != Status::Crashed
                && world.recipe(c).counts_in_herd(recipe)
                && woken.next().is_some()
        })
        .collect()
}

/// `c0`, `c0 and c1`, `c0, c1 and c2`.
pub fn and_list(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
