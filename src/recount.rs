//! Loops modulo counters: a state that is an earlier one with only its
//! counters moved on, and how far the counters let the run between them
//! repeat. [`crate::check::termination`] reads a path that reached the
//! depth bound with it, and reports the loop it closes as `terminates
//! violated`, with that bound ([`crate::properties::termination`]).
//!
//! # The counters
//!
//! A world holds four kinds of counter ([`Counter`], and xids): zxids (the
//! server's last, each node's `czxid`, `mzxid` and `pzxid`, each client's
//! last seen, each reply's and Stat's), session ids (the server's last,
//! its open sessions, owners and watchers, each client's, the dead ones,
//! those a recipe keeps), each node's create counter (its children's
//! sequence numbers, in their names wherever a name is kept, and their
//! places in the create order: the history's grants and tokens), and each
//! client library's xids (its next, its requests', its replies'). Each is
//! minted one above its *generator*, a value the state holds (the last
//! zxid or session, a create counter, a next xid), and no step reads one
//! but to compare it with another of its kind, for equality or order:
//! - the server compares a watched node's `mzxid` or `pzxid` with a
//!   client's last zxid (`SetWatches`), a version with a version (not a
//!   counter here: it is kept as it is), a session with the owner of a
//!   node, and orders a parent's children by their names; it mints
//!   zxids, sessions and sequence numbers from its generators;
//! - the client library matches a reply to its request by xid and mints
//!   xids from its next one;
//! - a recipe that says so ([`Recipe::reads_counters_by_order`]) keeps
//!   counters only in names and sessions and compares the numbers it
//!   parses from names by their order; a recipe that may act on the order
//!   of a listing beyond those numbers ([`Recipe::symmetric`] says it does
//!   not) would see a renamed listing in another order on a server that
//!   lists by hash, so it must say that too, or the server list by name;
//! - 0 is "none" for a zxid and a session, and is kept.
//!
//! # What a loop modulo counters proves
//!
//! Let `σ` rename every value of each kind in a state `s` by an
//! order-preserving bijection onto the values of that kind in `s'`, and
//! suppose `σ(s) = s'` (the two states have the same [`canonical`] form,
//! each value put in its rank's place among its
//! kind's values in that state, xids as their distance below the next).
//! Then `σ` maps steps to steps: for every step `s → t` there is a step
//! `s' → σ̂(t)`, where `σ̂` extends `σ` to the values the step mints. The
//! step reads counters only by equality and order, which `σ` keeps; it
//! mints one above a generator, and as long as the generator is the
//! greatest value of its kind (checked in every state of the round: a
//! library that started over its xids, a directory deleted and created
//! again, break it) the minted value is above every other, in `s` as in
//! `s'`, so `σ̂` is order-preserving again. By induction the steps `a₁ …
//! aₖ` from `s` to `s'` are steps `σ(a₁) … σ(aₖ)` from `s'` to `σ²(s)`, and
//! so on: the round repeats, each time with its counters moved on by the
//! same amounts. The run is fair if the round starves no progress action
//! (the same argument as a lasso's, [`crate::properties::termination`]:
//! an action enabled from some round on is enabled in every state of that
//! round, so its preimage is in every state of the first, where it is
//! taken). It never reaches a quiescent state.
//!
//! It repeats *as far as the counters reach*: the model's server wraps a
//! sequence counter at `[store] sequence_bits` (after which names carry
//! negative numbers, and order is not what it was), and a real server runs
//! out of 32-bit zxid counter within an epoch and a real Java client of
//! 32-bit xids. [`Moves::rounds`] says how many more rounds each allows;
//! the verdict names the first that runs out. Past it the run is not
//! known, so the verdict is the loop up to it, which is what a recipe that
//! loops for two billion rounds means to its user.
//!
//! Not renamed, so a state that differs in them is not the same state:
//! data versions (a recipe may compare one with a number it computed),
//! anything of an ensemble (its servers' logs), and the counters of a
//! world whose sequential nodes are in more than one directory (a name
//! kept without its path could not say whose counter it carries). A
//! state with any of those that moved on is no loop this module sees.

use std::sync::Arc;

use crate::client::ServerMessage;
use crate::net::Link;
use crate::recipe::Recipe;
use crate::store::recount::{Counter, Recount};
use crate::store::rename::{Renaming, CLIENTS};
use crate::store::{ChildOrder, Path, SessionId, Zxid};
use crate::symmetry::renamed;
use crate::world::{World, WorldState};

/// Where each counter's generator stands in a state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standing {
    pub zxid: Zxid,
    pub session: SessionId,
    /// The counted directory's create counter.
    pub creates: Option<i64>,
    /// Each client library's next xid.
    pub xids: Vec<u32>,
}

impl Standing {
    fn of<S, L>(state: &WorldState<S, L>, directory: Option<&Path>) -> Standing {
        let store = &state.net.store;
        Standing {
            zxid: store.zxid(),
            session: store.last_session(),
            creates: directory.and_then(|directory| store.creates(directory)),
            xids: state.net.clients.iter().map(|c| c.next_xid()).collect(),
        }
    }
}

/// How far each counter moved in one round of a loop modulo counters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Moves {
    /// The directory whose create counter names its sequential children.
    pub directory: Option<Path>,
    /// Where the counters stand at the round's end.
    pub to: Standing,
    pub zxids: i64,
    pub sessions: i64,
    pub creates: i64,
    pub xids: Vec<i64>,
    /// The width of the server's sequence counter.
    pub sequence_bits: u32,
}

/// The largest value of a real server's zxid counter within an epoch (its
/// low 32 bits; the leader starts a new epoch when it runs out).
const ZXID_COUNTER_MAX: i64 = u32::MAX as i64;

/// The largest xid of the Java client (a Java `int`).
const XID_MAX: i64 = i32::MAX as i64;

impl Moves {
    /// How many more rounds each counter that moves allows before a value
    /// a round mints would pass its width, the fewest first: the rounds
    /// and the words for the counter (`the 32-bit sequence counter of
    /// /lock`). Empty if no counter moves.
    pub fn rounds(&self) -> Vec<(i64, String)> {
        let mut limits = Vec::new();
        if let (Some(directory), Some(rounds)) = (&self.directory, self.rounds_to_wrap()) {
            let bits = self.sequence_bits;
            limits.push((
                rounds,
                format!("the {bits}-bit sequence counter of {directory} wraps"),
            ));
        }
        let mut limit = |moved: i64, at: i64, max: i64, words: String| {
            if moved > 0 {
                limits.push(((max - at).max(0) / moved, words));
            }
        };
        limit(
            self.zxids,
            self.to.zxid,
            ZXID_COUNTER_MAX,
            "the server's 32-bit zxid counter runs out".to_string(),
        );
        for (client, (&moved, &next)) in self.xids.iter().zip(&self.to.xids).enumerate() {
            limit(
                moved,
                i64::from(next) - 1,
                XID_MAX,
                format!("c{client}'s 32-bit xids run out"),
            );
        }
        limit(
            self.sessions,
            self.to.session,
            i64::MAX,
            "the 64-bit session ids run out".to_string(),
        );
        limits.sort();
        limits
    }

    /// How many more rounds the model's own sequence counter allows before
    /// it wraps, if the round moves it: the one counter the model wraps
    /// (the others it counts on, where a real server or client would not).
    pub fn rounds_to_wrap(&self) -> Option<i64> {
        let at = self.to.creates?;
        let max = (1i64 << (self.sequence_bits - 1)) - 1;
        // A round mints the numbers from the counter up, one below its next
        // value: each must be at most `max`.
        (self.directory.is_some() && self.creates > 0).then(|| (max + 1 - at).max(0) / self.creates)
    }

    /// What moves in a round: `sequence numbers of /lock +1, zxids +2,
    /// c1's xids +3`.
    pub fn words(&self) -> String {
        let mut moved = Vec::new();
        if let (Some(directory), true) = (&self.directory, self.creates > 0) {
            moved.push(format!("sequence numbers of {directory} +{}", self.creates));
        }
        if self.zxids > 0 {
            moved.push(format!("zxids +{}", self.zxids));
        }
        if self.sessions > 0 {
            moved.push(format!("sessions +{}", self.sessions));
        }
        for (client, &xids) in self.xids.iter().enumerate() {
            if xids > 0 {
                moved.push(format!("c{client}'s xids +{xids}"));
            }
        }
        moved.join(", ")
    }
}

/// The directory whose children are named by its counter in every one of
/// `states` (a path from the initial state): `Ok(None)` if no state has a
/// sequential node, `Err` if two directories have.
pub fn counted_directory<'a, S: 'a, L: 'a>(
    states: impl IntoIterator<Item = &'a WorldState<S, L>>,
) -> Result<Option<Path>, &'static str> {
    let mut found: Option<Path> = None;
    for state in states {
        for directory in state.net.store.sequential_directories() {
            match &found {
                Some(other) if *other != directory => {
                    return Err("sequential nodes are in more than one directory");
                }
                _ => found = Some(directory),
            }
        }
    }
    Ok(found)
}

/// Whether `world` is one whose counters this module renames, and why not.
pub fn applies<R: Recipe>(world: &World<R>) -> Result<(), &'static str> {
    let clients = world.clients();
    let order = world.store.child_order;
    if world.store.servers > 1 {
        return Err("an ensemble's servers keep logs this does not rename");
    }
    if clients > CLIENTS {
        return Err("more clients than a renaming moves");
    }
    for client in 0..clients {
        let recipe = world.recipe(client);
        if !recipe.reads_counters_by_order() {
            return Err("the recipe does not say that it reads counters by their order alone");
        }
        if order == ChildOrder::Hashed && !recipe.symmetric() {
            return Err("the recipe may act on the order of a listing, which renumbering changes");
        }
    }
    Ok(())
}

/// `state` with each counter's values in their ranks' places and each xid
/// as its distance below its library's next: equal for two states exactly
/// when one is the other with its counters renamed in their order. `Err`
/// with why if `state` cannot be so renamed, or some generator is not the
/// greatest value of its kind.
pub fn canonical<S, L>(
    state: &WorldState<S, L>,
    directory: Option<&Path>,
) -> Result<WorldState<S, L>, &'static str>
where
    S: crate::recipe::Symmetric + Clone,
    L: crate::recipe::Symmetric + Clone,
{
    let store = &state.net.store;
    let clients = state.processes.len();
    if clients > CLIENTS || store.config().servers > 1 {
        return Err("an ensemble, or more clients than a renaming moves");
    }
    let order = store.config().child_order;
    let czxids = store.created_at();
    let recording = Arc::new(Recount::recording(directory.cloned(), czxids.clone()));
    let renaming = Renaming::counting(clients, order, recording.clone());
    renamed(state, &renaming).ok_or("the recipe's state cannot be renamed")?;
    drop(renaming);
    let recorded = Arc::try_unwrap(recording)
        .expect("the renaming is gone")
        .recorded();
    if let Some(why) = recorded.refused {
        return Err(why);
    }
    for (counter, values) in &recorded.values {
        let greatest = values.last().copied().unwrap_or(0);
        let generator = match counter {
            Counter::Zxid => Some(store.zxid()),
            Counter::Session => Some(store.last_session()),
            Counter::Creates(node) => store.creates(node),
        };
        match generator {
            None => return Err("a name carries the number of a directory that is gone"),
            Some(generator) if greatest > generator => {
                return Err("a counter's value is above the value it mints from")
            }
            Some(_) => {}
        }
    }
    let ranking = Recount::ranking(directory.cloned(), czxids, &recorded);
    let renaming = Renaming::counting(clients, order, Arc::new(ranking));
    let mut canonical = renamed(state, &renaming).ok_or("the recipe's state cannot be renamed")?;
    for client in 0..clients {
        let library = &canonical.net.clients[client];
        let next = library.next_xid();
        let back = |xid: u32| next.checked_sub(xid).filter(|&back| back > 0);
        let counted = library
            .xids_counted_back()
            .ok_or("a client library's xid is not below its next")?;
        let link = &canonical.net.links[client];
        let up = (link.up.iter())
            .map(|request| {
                let mut request = request.clone();
                request.xid = back(request.xid)?;
                Some(request)
            })
            .collect::<Option<_>>()
            .ok_or("a request's xid is not below its library's next")?;
        let down = (link.down.iter())
            .map(|message| match message {
                ServerMessage::Reply { xid, zxid, result } => Some(ServerMessage::Reply {
                    xid: back(*xid)?,
                    zxid: *zxid,
                    result: result.clone(),
                }),
                other => Some(other.clone()),
            })
            .collect::<Option<_>>()
            .ok_or("a reply's xid is not below its library's next")?;
        canonical.net.links[client] = Arc::new(Link {
            up,
            down,
            broken: link.broken,
        });
        canonical.net.clients[client] = Arc::new(counted);
    }
    Ok(canonical)
}

impl Moves {
    /// How far each generator moved from `from` to `to`, which the caller
    /// knows to be `from` with its counters moved on (their [`canonical`]
    /// forms are equal).
    pub fn between<S, L>(
        from: &WorldState<S, L>,
        to: &WorldState<S, L>,
        directory: Option<&Path>,
    ) -> Moves {
        let (before, after) = (Standing::of(from, directory), Standing::of(to, directory));
        Moves {
            directory: directory.cloned(),
            zxids: after.zxid - before.zxid,
            sessions: after.session - before.session,
            creates: after.creates.unwrap_or(0) - before.creates.unwrap_or(0),
            xids: (before.xids.iter().zip(&after.xids))
                .map(|(&before, &after)| i64::from(after) - i64::from(before))
                .collect(),
            sequence_bits: to.net.store.config().sequence_bits,
            to: after,
        }
    }
}
