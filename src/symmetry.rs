//! Symmetry: clients that nothing but their names tells apart.
//!
//! Two clients of a world are *interchangeable* when they run the same
//! recipe variant with the same parameters, the same script with the same
//! timeouts, and no fault is aimed at either by its number ([`Groups`]).
//! Renaming interchangeable clients (a permutation `π` of their numbers,
//! [`Renaming`]) maps a state `s` to a state `π(s)`: client `i`'s process,
//! client library, link, belief and node move to place `π(i)`, and every
//! name that carries a client's identity is renamed with it:
//! - the GUIDs in node names, wherever a name is kept (the server's tree
//!   and watch tables, requests and replies on the wire, the recipes'
//!   states, the history's nodes): a path component that begins `c<i>`
//!   followed by its end, `r` (a restart), `s` (a renewal) or `-`
//!   ([`crate::recipe::Incarnation::guid`],
//!   [`crate::recipe::session_scoped`]) begins `c<π(i)>` instead, and node
//!   data is renamed by the same rule;
//! - client `i`'s first session (the server opens session `i + 1` for
//!   client `i` before anything happens, [`crate::net::Net::new`]) becomes
//!   `π(i) + 1`, in the server's session and watch tables, as the owner of
//!   ephemeral nodes, in the clients and in the dead sessions. Later
//!   sessions are numbered by one counter in the order they were opened,
//!   whoever opened them, and keep their numbers;
//! - a listing on its way (`getChildren`'s names) is put in the order the
//!   server lists the renamed names ([`ChildOrder::arrange`]).
//!
//! **Why a search may keep one state of each orbit.** The rules of the
//! world name no client by its number (the store, the client library, the
//! fault rules and the properties read clients only through their state;
//! per-client settings are the same within a group, and aimed faults by
//! number take their clients out of every group), so for every step `s →
//! t` there is the step `π(s) → π(t)`, and every property, observation and
//! the termination rank read the same on `s` and `π(s)` (they count and
//! compare, never ask "client 0"). That relation is a bisimulation, with
//! one proviso the server's name order brings: the server lists children
//! in an order that depends on their names, so the renamed listing comes
//! in another order, and it fires the watches of one transaction or one
//! reconnect in path order, so one link may carry the renamed events in
//! another order. A recipe must not act on either order beyond what the
//! names' sequence numbers already say: no two of its nodes that it tells
//! apart by GUID alone (two nodes under one GUID, of which it takes the
//! first listed), no two live nodes of one directory with one sequence
//! number (which a counter narrower than the server's, one a starting node
//! sets, or a starting node the scenario names itself in a recipe's
//! directory, allows: [`crate::world::World::interchangeable`] then makes
//! no group). A recipe declares that it is so
//! ([`crate::recipe::Recipe::symmetric`]), and `tests/reductions.rs` checks
//! the declaration on whole reachable graphs.
//!
//! **The representative.** [`representative`] sorts each group's clients
//! on what renaming keeps (their process status, commands given, belief,
//! node's place in the create order, connection state, queue lengths, and
//! their recipe's own [`Symmetric::anonymous`] summary) and renames the
//! state so that they come in that order. Whatever order it picks, the
//! fingerprint is that of a state in the same orbit, so two states with one
//! fingerprint are renamings of each other and bisimilar: the choice is
//! sound for any key. A key that orbit members share makes them meet: ties
//! are kept in number order, which leaves some orbits split in a few
//! classes; nothing is merged that should not be.

use crate::recipe::ClientId;
pub use crate::recipe::Symmetric;
pub use crate::store::rename::{Groups, Renaming, CLIENTS};
use crate::world::{History, Process, Resource, Tenure, WorldState};

/// A place in the counted directory's create order, renamed
/// ([`Renaming::sequence`]); `u64::MAX`, a grant after every other, is
/// no place and stays.
fn grant(renaming: &Renaming, place: u64) -> u64 {
    if place == u64::MAX {
        return place;
    }
    renaming.sequence(place as i64) as u64
}

/// What renaming keeps of client `client` in `state`, to order a group's
/// clients by.
fn key<S: Symmetric, L>(state: &WorldState<S, L>, client: ClientId) -> impl Ord {
    let process = &state.processes[client];
    let library = state.net.client(client);
    let link = &state.net.links[client];
    let first_session = state.net.session(client) as usize <= state.processes.len();
    (
        (process.status, process.commands_given, process.restarts),
        (process.timer, process.recipe.anonymous()),
        state.history.holding[client],
        state.history.nodes[client]
            .as_ref()
            .map(|(_, place)| *place),
        (library.state(), first_session, library.in_flight().len()),
        (
            library.queued().len(),
            link.up.len(),
            link.down.len(),
            link.broken,
        ),
    )
}

/// The state of `state`'s orbit whose interchangeable clients are sorted
/// by [`key`], or `None` if that is `state` itself (or its recipe cannot
/// be renamed).
pub fn representative<S, L>(state: &WorldState<S, L>, groups: &Groups) -> Option<WorldState<S, L>>
where
    S: Symmetric + Clone,
    L: Symmetric + Clone,
{
    let clients = state.processes.len();
    if clients > CLIENTS {
        return None;
    }
    let keys: [_; CLIENTS] = std::array::from_fn(|client| {
        (client < clients && groups.0[client] > 0).then(|| key(state, client))
    });
    let mut to: [ClientId; CLIENTS] = std::array::from_fn(|client| client);
    let mut moves = false;
    let mut done = [false; CLIENTS];
    for first in 0..clients {
        let group = groups.0[first];
        if group == 0 || done[first] {
            continue;
        }
        let mut places = [0; CLIENTS];
        let mut members = 0;
        for client in (first..clients).filter(|&client| groups.0[client] == group) {
            places[members] = client;
            members += 1;
        }
        let mut sorted = places;
        sorted[..members].sort_by(|&a, &b| keys[a].cmp(&keys[b]));
        for (&client, &place) in sorted[..members].iter().zip(&places[..members]) {
            to[client] = place;
            done[client] = true;
            moves |= client != place;
        }
    }
    if !moves {
        return None;
    }
    let renaming = Renaming::new(&to[..clients], state.net.store.config().child_order);
    renamed(state, &renaming)
}

/// `state` renamed by `renaming`, or `None` if its recipe cannot be.
pub fn renamed<S, L>(state: &WorldState<S, L>, renaming: &Renaming) -> Option<WorldState<S, L>>
where
    S: Symmetric + Clone,
    L: Symmetric + Clone,
{
    rebuilt(
        state,
        renaming,
        |recipe| recipe.renamed(renaming),
        |log| log.renamed(renaming),
    )
}

/// A copy of `state` that shares no allocation with it: no name, datum,
/// client library, link or table of the server. The recipes' states and
/// log are copied as renamed by the identity where they can be, and cloned
/// (sharing what they share) where they cannot. The search hands such
/// copies from one thread to another ([`crate::search::Detach`]).
pub fn detached<S, L>(state: &WorldState<S, L>) -> WorldState<S, L>
where
    S: Symmetric + Clone,
    L: Symmetric + Clone,
{
    if state.processes.len() > CLIENTS {
        return state.clone();
    }
    let order = state.net.store.config().child_order;
    let copying = Renaming::copying(state.processes.len(), order);
    let recipe = |recipe: &S| Some(recipe.renamed(&copying).unwrap_or_else(|| recipe.clone()));
    let log = |log: &L| Some(log.renamed(&copying).unwrap_or_else(|| log.clone()));
    rebuilt(state, &copying, recipe, log).expect("a copy whose parts all copy")
}

/// `state` with every name renamed by `renaming`, its recipes' states by
/// `recipe` and its log by `log`; `None` if either gives none.
fn rebuilt<S, L>(
    state: &WorldState<S, L>,
    renaming: &Renaming,
    recipe: impl Fn(&S) -> Option<S>,
    log: impl Fn(&L) -> Option<L>,
) -> Option<WorldState<S, L>>
where
    S: Clone,
    L: Clone,
{
    let net = &state.net;
    let processes = renaming.moved(&state.processes, |process| {
        Some(Process {
            recipe: recipe(&process.recipe)?,
            ..process.clone()
        })
    })?;
    let history = &state.history;
    let nodes = renaming.moved(&history.nodes, |node| {
        Some((node.as_ref()).map(|(path, place)| (renaming.path(path), grant(renaming, *place))))
    })?;
    if renaming.counts() && !history.wakes.is_empty() {
        renaming.refuse("an ensemble's deletions are still waking clients");
    }
    Some(WorldState {
        net: crate::net::Net {
            store: net.store.renamed(renaming),
            clients: renaming
                .moved(&net.clients, |client| Some(renaming.client_library(client)))?,
            links: renaming.moved(&net.links, |link| Some(renaming.link(link)))?,
            // Its replicas are one server's: none (an ensemble makes no
            // groups, World::classes); its places follow their clients.
            ensemble: net.ensemble.clone().placed(renaming.moved(
                &net.ensemble.places,
                |place| {
                    Some(crate::ensemble::Place {
                        wait: (place.wait.as_ref()).map(|wait| crate::ensemble::Wait {
                            sync: wait.sync.as_ref().map(|op| renaming.op(op)),
                            ..wait.clone()
                        }),
                        ..place.clone()
                    })
                },
            )?),
        },
        processes,
        dead_sessions: (state.dead_sessions.iter())
            .map(|&session| renaming.session(session))
            .collect(),
        spent: state.spent.clone(),
        history: History {
            holding: renaming.moved(&history.holding, |tenure| {
                Some(tenure.map(|tenure| Tenure {
                    token: renaming.sequence(tenure.token),
                    grant: grant(renaming, tenure.grant),
                    ..tenure
                }))
            })?,
            nodes,
            resource: Resource {
                newest: (history.resource.newest).map(|newest| grant(renaming, newest)),
                highest_sequencer: (history.resource.highest_sequencer)
                    .map(|token| renaming.sequence(token)),
                ..history.resource
            },
            log: log(&history.log)?,
            // Wakes are an ensemble's, which has no renamed states
            // (World::reductions), and the identity keeps them.
            ..history.clone()
        },
    })
}
