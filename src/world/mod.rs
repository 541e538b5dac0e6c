//! The world the checker explores: one simulated server, a few clients each
//! running a recipe, their FIFO links, and the faults a scenario allows.
//!
//! A state ([`WorldState`]) is the server, each client's client library and
//! links ([`Net`]), each client's process ([`Process`]: its recipe state, whether
//! it runs, is paused or crashed, and how far its script has got), the faults
//! spent, and the [`History`] the properties read.
//!
//! The checker's choices are [`Action`]s: the steps that make progress
//! (the application's next command, a server serving a request, a client
//! reading its next message, reconnecting, renewing its session, resuming, a
//! call's timeout, an ensemble's server applying a transaction, a dead
//! session's expiry) and the faults ([`faults`], budgeted by the scenario).
//! Each kind of step is one file of [`steps`].
//!
//! Everything is deterministic: the same actions from the same state give the
//! same state.

pub mod faults;
pub mod promise;
pub mod steps;

pub use steps::{Action, StepKind};

use std::any::Any;
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::hash::Hash;
use std::ops::ControlFlow;
use std::panic::{catch_unwind, AssertUnwindSafe};

use stateright::{Model, Property};

use crate::world::promise::Promise;

use crate::client::{ConnState, Delivery, ServerMessage, Xid};
use crate::net::{Net, Served};
use crate::recipe::{
    ClientId, Effects, Incarnation, Input, Log, Observation, Recipe, Role, Token, Witness,
};
use crate::store::rename::Groups;
use crate::store::{
    CreateMode, MultiOp, MultiOutcome, Notification, Op, Path, Response, SessionId, Store,
    StoreConfig, Zxid,
};
use crate::world::faults::{Fate, FaultBudget, Spent};

/// A node of the tree the server holds before any client starts (a
/// scenario's `[[store.node]]`): a foreign child in the recipe's directory,
/// a leftover node of an earlier run, a directory whose sequence counter
/// starts near its wrap.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StartingNode {
    pub path: Path,
    pub data: crate::store::Data,
    /// Owned by the session of a process that died before the clients
    /// started: the server keeps the node until it expires that session,
    /// which it may do at any moment (a [`Action::SessionTimeout`]).
    /// Otherwise persistent.
    pub ephemeral: bool,
    /// Created sequential: `path` is the prefix, the server names it after
    /// its parent's counter and keeps the number it gave
    /// ([`crate::store::Sequence`]), as for a recipe's node. A leftover lock
    /// node of an earlier run is one.
    pub sequential: bool,
    /// Where the sequence counter of its children starts, if not at 0.
    pub next_sequence: Option<i32>,
}

/// A starting node the server refused ([`plant`]): its place in the tree
/// and the server's error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    pub index: usize,
    pub code: crate::store::ErrorCode,
}

/// Creates a starting tree on `store` as the server would have: each node
/// in order, persistent ones as `owner`'s, ephemerals as a dead process's
/// session (opened here, and answered), sequential ones named by the
/// server; a node that exists already (the recipe's directory) only starts
/// its counter. The scenario parser plants on a scratch server to refuse a
/// tree the server would refuse (a name the counter gives that is taken).
pub fn plant(
    tree: &[StartingNode],
    store: &mut crate::store::Store,
    owner: SessionId,
) -> Result<Option<SessionId>, Refused> {
    let dead = tree
        .iter()
        .any(|node| node.ephemeral)
        .then(|| store.open_session());
    for (index, node) in tree.iter().enumerate() {
        let exists = !node.sequential && store.exists(&node.path);
        if exists && (node.data.is_some() || node.ephemeral) {
            // Only a new node carries what the scenario gives it.
            return Err(Refused {
                index,
                code: crate::store::ErrorCode::NodeExists,
            });
        }
        if !exists {
            let mode = match (node.ephemeral, node.sequential) {
                (false, false) => CreateMode::Persistent,
                (true, false) => CreateMode::Ephemeral,
                (false, true) => CreateMode::PersistentSequential,
                (true, true) => CreateMode::EphemeralSequential,
            };
            let create = Op::Create {
                path: node.path.clone(),
                data: node.data.clone(),
                mode,
            };
            let session = if node.ephemeral { dead } else { None };
            let applied = store.apply(session.unwrap_or(owner), &create);
            match applied.result {
                Ok(Response::Created { path, .. }) if !node.sequential => {
                    assert!(
                        store.keep_order(&path),
                        "{path} was its parent's last child created"
                    );
                }
                Ok(_) => {}
                Err(code) => return Err(Refused { index, code }),
            }
        }
        if let Some(next) = node.next_sequence {
            if !store.start_sequence(&node.path, next) {
                return Err(Refused {
                    index,
                    code: crate::store::ErrorCode::BadArguments,
                });
            }
        }
    }
    Ok(dead)
}

/// The part every recipe's clients can play: waiting for their turn
/// ([`Recipe::is_waiting`]).
pub const WAITER: (&str, &str) = (
    "waiter",
    "a client waiting for something only another client or the server can bring (the lock, the barrier)",
);

/// Whether a client's process runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    Running,
    /// A long pause (a garbage collection): it takes no step until it resumes,
    /// while the rest of the world goes on.
    Paused,
    /// Dead; its session lives on until the server expires it.
    Crashed,
}

/// One client's process.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Process<S> {
    pub recipe: S,
    pub status: Status,
    /// How many commands of the script the application has given.
    pub commands_given: u8,
    pub restarts: u8,
    /// The pending call was given with a timeout that has not fired
    /// ([`World::timed`]).
    pub timer: bool,
    /// A thread of the recipe has a step of its own to take
    /// ([`Recipe::ready`]), kept beside the state it is read from so that
    /// the termination rank counts it as work pending.
    pub ready: bool,
}

/// One holder's time with what it holds, numbered in the order they began.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Tenure {
    pub index: u8,
    /// What the recipe calls its token: its node's sequence number.
    pub token: Token,
    pub role: Role,
    /// When ZooKeeper granted it: its node's place in the directory's create
    /// order ([`Store::creation_order`](crate::store::Store::creation_order)),
    /// the order of the nodes' czxids. Nodes are granted in the order they
    /// were created; unlike the sequence number, signed and wrapping at
    /// `[store] sequence_bits`, this order never wraps.
    pub grant: u64,
}

/// The protected resource the lock guards. It accepts writes; a fenced one
/// refuses a sequencer older than the highest it has seen.
///
/// Holders are ordered by when ZooKeeper granted them ([`Tenure::grant`], the
/// czxid of their nodes), not by when each came to believe it holds (a client
/// acting on a stale listing may believe later than a holder granted after
/// it), nor by their sequence numbers, which wrap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Resource {
    /// The grant of the newest holder whose write it accepted.
    pub newest: Option<u64>,
    /// The highest sequencer it was handed.
    pub highest_sequencer: Option<Token>,
    /// It accepted a write from a holder granted before one whose write it
    /// had already accepted: a stale holder's write landed on a newer one's.
    pub interleaved: bool,
    /// A resource in ZooKeeper ([`Recipe::resource_node`]) took a write
    /// whose writer's node (the node its data names) was not, when the
    /// server applied it, the first of the directory's nodes in create
    /// order: a write from a client that did not hold the lock then. (The
    /// first node's writes land in grant order, so this is the one way
    /// such a resource's writes go wrong.)
    pub unheld: bool,
}

impl Resource {
    fn write(&mut self, tenure: Tenure, sequencer: Option<Token>) {
        if let Some(sequencer) = sequencer {
            if self
                .highest_sequencer
                .is_some_and(|highest| sequencer < highest)
            {
                return;
            }
            self.highest_sequencer = Some(sequencer);
        }
        if self.newest.is_some_and(|newest| tenure.grant < newest) {
            self.interleaved = true;
        }
        self.newest = self.newest.max(Some(tenure.grant));
    }
}

/// The writer's node a write to `resource` names, if `one` is one the
/// server applied: a `setData` of it, or a committed multi with one.
fn resource_write<'a>(one: &'a Served, resource: &Path) -> Option<&'a [u8]> {
    let data = match (&one.op, &one.result) {
        (Op::SetData { path, data, .. }, Ok(Response::SetData { .. })) if path == resource => data,
        (Op::Multi(ops), Ok(Response::Multi(MultiOutcome::Committed(_)))) => {
            ops.iter().find_map(|op| match op {
                MultiOp::SetData { path, data, .. } if path == resource => Some(data),
                _ => None,
            })?
        }
        _ => return None,
    };
    Some(data.as_deref().unwrap_or_default())
}

/// Whether the child of `directory` that `name` names is, in `tree`, the
/// first of its children in create order (the holder, for a lock).
fn holds_first(tree: &Store, directory: &Path, name: &[u8]) -> bool {
    let Some(name) = std::str::from_utf8(name)
        .ok()
        .filter(|name| !name.is_empty())
    else {
        return false;
    };
    let Some(order) = tree.creation_order(&directory.child(name)) else {
        return false;
    };
    tree.children(directory).iter().all(|child| {
        tree.creation_order(&directory.child(child))
            .is_none_or(|other| other >= order)
    })
}

/// What the properties read: beliefs and the facts that happened, updated from
/// observations and from what the server fired. Never messages in flight.
///
/// The world keeps what the recipes share: the tenures clients believe in
/// (six recipes hold something, and the properties every one of them must
/// keep are written once, over these), the protected resource, and who the
/// server's notifications woke. A recipe's own facts are in its `log`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct History<L = ()> {
    /// The tenure each client believes it holds (the lock, a read or write
    /// lock, the leadership).
    pub holding: Vec<Option<Tenure>>,
    /// The sequential node each client's process last had the server create
    /// in the recipe's directory, with its place in the create order
    /// ([`Tenure::grant`]): the grant of the tenure the process may come to
    /// believe in by that node, kept here because the node may be gone
    /// (expired) by the time it does. It is kept exactly as long as the
    /// process can still act on that node ([`World::forget_nodes`]), and
    /// until the counter wraps the place is the name's sequence number: it
    /// tells no two states apart that the rest of the state does not.
    pub nodes: Vec<Option<(Path, u64)>>,
    /// Tenures begun so far.
    pub acquisitions: u8,
    pub resource: Resource,
    /// Some deletion woke more than one waiting client.
    pub herd: bool,
    /// On an ensemble, whom each deletion has woken so far: each server
    /// fires its own clients' watches when it applies the deletion, in
    /// steps of their own. A deletion is kept until every server has
    /// applied it, in zxid order (none is kept on one server, where one
    /// step fires every watch).
    pub wakes: Vec<Wake>,
    /// Some waiting client was sent a watch notification.
    pub woken: bool,
    /// What the recipe keeps of its own facts ([`Recipe::Log`]).
    pub log: L,
}

impl<L: Log> History<L> {
    fn new(clients: usize) -> History<L> {
        History {
            holding: vec![None; clients],
            nodes: vec![None; clients],
            acquisitions: 0,
            resource: Resource::default(),
            herd: false,
            wakes: Vec::new(),
            woken: false,
            log: L::new(clients),
        }
    }
}

/// Whom one deletion on an ensemble has woken so far ([`History::wakes`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Wake {
    /// The deleted node and the zxid of the transaction that deleted it,
    /// the same at every server.
    pub path: Path,
    pub zxid: Zxid,
    /// The waiting clients its notifications woke, at any server.
    pub woken: BTreeSet<ClientId>,
    /// Whether each was one the recipe means to go with the others
    /// ([`Recipe::released_together`]), judged when and where it was woken.
    pub together: bool,
}

/// A state of the world, of a recipe whose client state is `S` and whose
/// log ([`Recipe::Log`]) is `L`. It hashes as what it is; a search hashes
/// it as its class under the reductions it makes ([`crate::explore`]).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct WorldState<S, L = ()> {
    pub net: Net,
    pub processes: Vec<Process<S>>,
    /// Sessions of crashed processes that the server has not expired yet.
    pub dead_sessions: BTreeSet<SessionId>,
    pub spent: Spent,
    pub history: History<L>,
}

impl<S, L> WorldState<S, L> {
    /// Whether client `client`'s process has not crashed and its session is
    /// alive, on the server and in its client library: it can still act on
    /// what it learns. A paused process is live (it resumes); one whose
    /// session expired, or whose library gave it up, is not.
    pub fn is_live(&self, client: ClientId) -> bool {
        let library = self.net.client(client).state();
        self.processes[client].status != Status::Crashed
            && !matches!(library, ConnState::Expired | ConnState::Closed)
            && self.net.store.is_alive(self.net.session(client))
    }
}

/// A path through the world as a replay took it: the initial state and the
/// state after each step, and what the recipes observed in each step
/// ([`World::try_step_observed`]). Counterexamples are told from it.
pub struct Run<'a, R: Recipe> {
    pub states: &'a [WorldState<R::State, R::Log>],
    /// `observed[i]`: what step `i + 1` made the recipes observe.
    pub observed: &'a [Observed<R::Fact>],
}

/// What one step made the recipes observe, by client, in order.
pub type Observed<F> = Vec<(ClientId, Observation<F>)>;

impl<R: Recipe> Clone for Run<'_, R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R: Recipe> Copy for Run<'_, R> {}

impl<'a, R: Recipe> Run<'a, R> {
    /// The state the run ends in.
    pub fn last(&self) -> &'a WorldState<R::State, R::Log> {
        self.states.last().expect("a run has its initial state")
    }

    /// Each observation with its step's number (from 1), in order.
    pub fn observations(
        &self,
    ) -> impl Iterator<Item = (usize, ClientId, &'a Observation<R::Fact>)> + 'a {
        self.observed
            .iter()
            .enumerate()
            .flat_map(|(index, step)| step.iter().map(move |(c, seen)| (index + 1, *c, seen)))
    }

    /// Each fact of the recipe's own ([`Recipe::Fact`]) with its step's
    /// number (from 1) and its client, in order.
    pub fn facts(&self) -> impl Iterator<Item = (usize, ClientId, &'a R::Fact)> + 'a {
        self.observations()
            .filter_map(|(step, c, seen)| match seen {
                Observation::Fact(fact) => Some((step, c, fact)),
                _ => None,
            })
    }

    /// The first step (from 1) after which `flag` holds of the state.
    pub fn first_step(
        &self,
        flag: impl Fn(&WorldState<R::State, R::Log>) -> bool,
    ) -> Option<usize> {
        self.states.iter().position(flag).filter(|&step| step > 0)
    }
}

/// A panic inside the world: the state it happened in, the action being
/// taken (none if listing the enabled actions panicked) and its message.
#[derive(Clone)]
pub struct Panic<R: Recipe> {
    pub state: WorldState<R::State, R::Log>,
    pub action: Option<Action>,
    pub message: String,
}

impl<R: Recipe> std::fmt::Debug for Panic<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Panic")
            .field("action", &self.action)
            .field("message", &self.message)
            .finish_non_exhaustive()
    }
}

/// Why an action could not be taken from a state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// It is not among the actions enabled there.
    NotEnabled,
    /// The recipe, the store or the client library panicked.
    Panicked(String),
}

/// The most inputs one step may hand a recipe (`World::feed`): far more
/// than any recipe's reaction to one message (a handful of requests a dead
/// session fails at once), so that only a loop reaches it.
pub const INPUTS_PER_STEP_MAX: usize = 1_000;

thread_local! {
    /// The observations of the step [`World::try_step_observed`] is taking on
    /// this thread; `None` the rest of the time, when nobody listens.
    /// An [`Observed`] of the recipe's facts, type-erased: a thread-local
    /// cannot be generic.
    static OBSERVED: RefCell<Option<Box<dyn Any>>> = const { RefCell::new(None) };
}

/// Runs `f`, turning a panic into its message.
pub(crate) fn caught<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| panic_message(payload.as_ref()))
}

/// A panic's message, from its payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|text| text.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with no message".to_string())
}

/// The model: each client's recipe, what each client's application does,
/// and the faults allowed.
#[derive(Clone, Debug)]
pub struct World<R: Recipe> {
    /// Each client's recipe (its variant, with the scenario's parameters).
    /// Variants of one recipe share its directory, its phases and whether
    /// its nodes rank: those are read from the first.
    pub recipes: Vec<R>,
    /// Each client's script of commands.
    pub scripts: Vec<Vec<R::Command>>,
    /// Which of each client's commands are given with a timeout, a bit per
    /// step of its script (empty: none).
    pub timed: Vec<u8>,
    pub budget: FaultBudget,
    /// Whether the server may expire a session whose client is connected and
    /// running (clocks that disagree); otherwise only one whose client is
    /// disconnected, paused or crashed.
    pub expire_anytime: bool,
    /// Each client's library: the rules it keeps where libraries differ
    /// (`[library]`, [`crate::client::library`]), such as whether it opens
    /// a new session in the same process once its session is gone.
    pub libraries: Vec<crate::client::Library>,
    pub store: StoreConfig,
    /// The nodes the server holds before the clients start, after the
    /// recipe's directory, in order.
    pub tree: Vec<StartingNode>,
    /// The properties judged ([`Promise`]).
    pub properties: fn() -> Vec<Promise<R>>,
}

impl<R: Recipe> World<R> {
    /// A world of `recipe` for every client, each with its script, no
    /// fault, the default server, and `properties` judged.
    pub fn new(
        recipe: R,
        scripts: Vec<Vec<R::Command>>,
        properties: fn() -> Vec<Promise<R>>,
    ) -> World<R> {
        World {
            recipes: vec![recipe; scripts.len()],
            libraries: vec![crate::client::Library::JAVA; scripts.len()],
            scripts,
            timed: Vec::new(),
            budget: FaultBudget::default(),
            expire_anytime: false,
            store: StoreConfig::default(),
            tree: Vec::new(),
            properties,
        }
    }

    /// This world with these fault budgets.
    pub fn with_budget(self, budget: FaultBudget) -> World<R> {
        World { budget, ..self }
    }

    /// This world with a server configured so.
    pub fn with_store(self, store: StoreConfig) -> World<R> {
        World { store, ..self }
    }

    pub fn clients(&self) -> usize {
        self.scripts.len()
    }

    /// Which clients are interchangeable ([`crate::symmetry`]): those whose
    /// recipe says it renames, with the same variant and parameters, the
    /// same script and timeouts, the same library, and no fault aimed at
    /// them by number.
    ///
    /// None where two live nodes of one directory may share a sequence
    /// number (a counter narrower than the server's, one a starting node
    /// sets, or a starting node in a recipe's directory with a name of the
    /// scenario's own, which may carry any number): recipes break such ties
    /// by listing order or by name, which a renaming changes. A starting
    /// node the server created sequential has a number no later create
    /// repeats before the counter wraps.
    pub fn interchangeable(&self) -> Groups {
        // Every node the recipes make before they start is a directory of
        // theirs (a semaphore's leases and its internal lock's too).
        let directories: Vec<Path> = (self.recipes.iter()).flat_map(Recipe::setup).collect();
        let named_in_a_directory = |node: &StartingNode| {
            !node.sequential
                && (node.path.split()).is_some_and(|(parent, _)| directories.contains(&parent))
        };
        let ties = self.store.sequence_bits < 32
            || (self.tree.iter())
                .any(|node| node.next_sequence.is_some() || named_in_a_directory(node));
        if ties {
            return Groups::default();
        }
        let aimed_at = |client| {
            (self.budget.aimed.iter())
                .any(|aimed| aimed.target == crate::world::faults::Target::Client(client))
        };
        let variant = |client| format!("{:?}", self.recipe(client));
        Groups::of(
            self.clients(),
            |client| self.recipe(client).symmetric() && !aimed_at(client),
            |i, j| {
                self.scripts[i] == self.scripts[j]
                    && self.timed.get(i) == self.timed.get(j)
                    && variant(i) == variant(j)
                    && self.library(i) == self.library(j)
            },
        )
    }

    /// Whether step `step` of `client`'s script is given with a timeout.
    pub fn is_timed(&self, client: ClientId, step: u8) -> bool {
        self.timed
            .get(client)
            .is_some_and(|bits| bits >> step & 1 == 1)
    }

    /// The promise called `name`, if the world judges one.
    pub fn promise(&self, name: &str) -> Option<Promise<R>> {
        (self.properties)()
            .into_iter()
            .find(|promise| promise.name == name)
    }

    /// The property called `name` as the checker judges it, if the world
    /// judges one.
    pub fn find_property(&self, name: &str) -> Option<Property<World<R>>> {
        self.promise(name).map(|promise| promise.property())
    }

    /// Client `client`'s library ([`World::libraries`]; the Java
    /// client's for one the world does not name).
    pub fn library(&self, client: ClientId) -> crate::client::Library {
        self.libraries.get(client).copied().unwrap_or_default()
    }

    /// This world with every client's library keeping `library`'s rules.
    pub fn with_library(self, library: crate::client::Library) -> World<R> {
        World {
            libraries: vec![library; self.clients()],
            ..self
        }
    }

    /// Client `client`'s recipe.
    pub fn recipe(&self, client: ClientId) -> &R {
        &self.recipes[client]
    }

    /// What every client's recipe shares, whatever its variant: its
    /// directory, and what it knows of its whole group (a double barrier's
    /// threshold, a two-phase commit's sites), built from the scenario's
    /// parameters and scripts alike for each. Read from the first client's.
    pub fn shared(&self) -> &R {
        &self.recipes[0]
    }

    /// The directory the recipe's clients create their nodes in.
    pub fn directory(&self) -> &Path {
        self.recipes[0].directory()
    }

    /// The parts a client can play that a fault can aim at
    /// ([`crate::world::faults::Target::Role`]), by name and meaning: a waiter,
    /// then the recipe's own ([`Recipe::parts`]).
    pub fn parts() -> Vec<(&'static str, &'static str)> {
        std::iter::once(WAITER)
            .chain(R::parts().iter().map(|part| (part.name, part.meaning)))
            .collect()
    }

    /// Whether `client` plays part `index` of [`World::parts`] in `state`.
    pub fn plays(&self, state: &WorldState<R::State, R::Log>, client: ClientId, index: u8) -> bool {
        let recipe = self.recipe(client);
        let own = &state.processes[client].recipe;
        match index.checked_sub(1) {
            None => recipe.is_waiting(own),
            Some(index) => (R::parts()[usize::from(index)].played)(recipe, own),
        }
    }

    /// Whether an aimed fault's `target` is `client` in `state`: it is that
    /// client, plays that part, or is in that phase.
    pub fn aimed_at(
        &self,
        state: &WorldState<R::State, R::Log>,
        client: ClientId,
        target: &crate::world::faults::Target,
    ) -> bool {
        use crate::world::faults::Target;
        match *target {
            Target::Client(aimed) => aimed == client,
            Target::Role { index, .. } => self.plays(state, client, index),
            Target::Phase { bit, .. } => {
                let own = &state.processes[client].recipe;
                self.recipe(client).phases(own) >> bit & 1 == 1
            }
        }
    }

    /// Whether a thread of `client` waits for an event ([`Recipe::waits`])
    /// with none of its requests unanswered: a thread blocked in a call
    /// waits for its reply in a loop that checks for it (the Java client's
    /// `ClientCnxn.submitRequest`), so it wakes early from no spurious wake.
    pub fn waiting(&self, state: &WorldState<R::State, R::Log>, client: ClientId) -> bool {
        let library = state.net.client(client);
        library.in_flight().len() == 0
            && library.queued().len() == 0
            && self.recipe(client).waits(&state.processes[client].recipe)
    }

    /// Creates the starting tree ([`World::tree`]) on the server; answers
    /// the session of the dead process its ephemerals belong to, if any,
    /// for the server to expire.
    fn plant(&self, net: &mut Net) -> BTreeSet<SessionId> {
        let owner = net.session(0);
        match plant(&self.tree, &mut net.store, owner) {
            Ok(dead) => dead.into_iter().collect(),
            Err(refused) => panic!("a validated starting tree plants: {refused:?}"),
        }
    }

    /// What a fault does to `client`'s process ([`Fate`]).
    pub(crate) fn befall(
        &self,
        state: &mut WorldState<R::State, R::Log>,
        client: ClientId,
        fate: Fate,
    ) {
        let process = &mut state.processes[client];
        match fate {
            Fate::Lives => {}
            Fate::Pauses => process.status = Status::Paused,
            Fate::Dies => {
                process.status = Status::Crashed;
                process.timer = false;
                process.ready = false;
                process.recipe = self.recipes[client].init(Incarnation {
                    client,
                    restarts: process.restarts,
                });
                state.dead_sessions.insert(state.net.session(client));
                state.history.holding[client] = None;
            }
            Fate::LosesSession => {
                state.dead_sessions.insert(state.net.session(client));
                let deliveries = state.net.abandon(client);
                self.deliver(state, client, deliveries);
            }
            Fate::Wakes => {
                let me = self.incarnation(state, client);
                let mut effects = Effects::on(state.net.session(client));
                self.recipes[client].wake(me, &mut state.processes[client].recipe, &mut effects);
                self.effect(state, client, effects);
            }
            Fate::Restarts => {
                process.restarts += 1;
                process.status = Status::Running;
                process.commands_given = 0;
                process.timer = false;
                process.ready = false;
                process.recipe = self.recipes[client].init(Incarnation {
                    client,
                    restarts: process.restarts,
                });
            }
        }
    }

    pub fn incarnation(
        &self,
        state: &WorldState<R::State, R::Log>,
        client: ClientId,
    ) -> Incarnation {
        Incarnation {
            client,
            restarts: state.processes[client].restarts,
        }
    }

    /// The client whose current session this is.
    pub fn client_of(
        &self,
        state: &WorldState<R::State, R::Log>,
        session: SessionId,
    ) -> Option<ClientId> {
        (0..self.clients()).find(|&client| state.net.session(client) == session)
    }

    /// Hands client `client`'s recipe its inputs in order, then every input
    /// its effects cause at once (a request the client library answers itself,
    /// such as one on a dead session), after the inputs already queued.
    ///
    /// A recipe that answers each such input with another request loops
    /// within the step: past [`INPUTS_PER_STEP_MAX`] inputs this panics,
    /// which a search reports as a panic with a trace that replays to it,
    /// instead of never returning.
    pub(crate) fn feed(
        &self,
        state: &mut WorldState<R::State, R::Log>,
        client: ClientId,
        inputs: impl IntoIterator<Item = Input<R::Command>>,
    ) {
        let me = self.incarnation(state, client);
        let mut pending: Vec<Input<R::Command>> = inputs.into_iter().collect();
        pending.reverse();
        let mut handed = 0;
        while let Some(input) = pending.pop() {
            handed += 1;
            assert!(
                handed <= INPUTS_PER_STEP_MAX,
                "c{client}'s recipe loops within one step: it was handed {INPUTS_PER_STEP_MAX} \
                 inputs its own requests caused at once (its client library answering each \
                 itself, as it does on a dead session), and asked again"
            );
            state.history.log.learn(client, &input, self.directory());
            let mut effects = Effects::on(state.net.session(client));
            self.recipes[client].handle(
                me,
                &mut state.processes[client].recipe,
                input,
                &mut effects,
            );
            let answered = self.effects(state, client, effects);
            // `pending` is reversed (the next input is last): queue at the front.
            pending.splice(0..0, answered.into_iter().rev().map(Input::from));
        }
        // A timeout belongs to a pending call: none once it returned.
        let process = &mut state.processes[client];
        if process.timer && !self.recipes[client].is_busy(&process.recipe) {
            process.timer = false;
        }
        process.ready = self.recipes[client].ready(&process.recipe).is_some();
    }

    /// Does what the recipe of `client` said, in order: what it observed,
    /// then the requests it sent; answers what its client library answered
    /// at once (a request on a dead session).
    fn effects(
        &self,
        state: &mut WorldState<R::State, R::Log>,
        client: ClientId,
        effects: Effects<R::Fact>,
    ) -> Vec<Delivery> {
        for observation in effects.observations {
            self.observe(state, client, observation);
        }
        let mut answered = Vec::new();
        for op in effects.requests {
            answered.extend(state.net.submit(client, op));
        }
        answered
    }

    /// [`World::effects`], then hands the recipe what its library answered.
    fn effect(
        &self,
        state: &mut WorldState<R::State, R::Log>,
        client: ClientId,
        effects: Effects<R::Fact>,
    ) {
        let answered = self.effects(state, client, effects);
        self.deliver(state, client, answered);
    }

    /// Hands the recipe what its client library delivered.
    pub(crate) fn deliver(
        &self,
        state: &mut WorldState<R::State, R::Log>,
        client: ClientId,
        deliveries: Vec<Delivery>,
    ) {
        self.feed(state, client, deliveries.into_iter().map(Input::from));
    }

    fn observe(
        &self,
        state: &mut WorldState<R::State, R::Log>,
        client: ClientId,
        observation: Observation<R::Fact>,
    ) {
        OBSERVED.with(|observed| {
            let mut observed = observed.borrow_mut();
            if let Some(observed) = observed.as_mut().and_then(|any| any.downcast_mut()) {
                let observed: &mut Observed<R::Fact> = observed;
                observed.push((client, observation.clone()));
            }
        });
        let history = &mut state.history;
        match observation {
            Observation::Acquired { node, token, role } => {
                let node = self.directory().child(&node);
                let grant = match &history.nodes[client] {
                    // The last node it created: the usual case.
                    Some((last, grant)) if *last == node => *grant,
                    // A node it did not create in this process's last
                    // create: an earlier session's, which its recovery
                    // adopted after its library renewed the session, or a
                    // dead predecessor's with the same name (a GUID that
                    // outlives the process). Placed by the server's creation
                    // order while the server has the node; if it has already
                    // gone, no grant ever came, and it ranks after every grant.
                    _ => (state.net.store.creation_order(&node)).unwrap_or(u64::MAX),
                };
                history.acquisitions += 1;
                history.holding[client] = Some(Tenure {
                    index: history.acquisitions,
                    token,
                    role,
                    grant,
                });
            }
            Observation::Released | Observation::Suspended | Observation::Lost => {
                history.holding[client] = None;
            }
            Observation::GaveUp => {}
            Observation::Used { sequencer } => {
                if let Some(tenure) = history.holding[client] {
                    history.resource.write(tenure, sequencer);
                }
            }
            Observation::Fact(fact) => {
                let at = Witness {
                    process: self.incarnation(state, client),
                    store: &state.net.store,
                    directory: self.directory(),
                };
                state.history.log.record(&fact, at);
            }
        }
    }

    /// Records what the server applied for `client`, and whom it woke.
    pub(crate) fn applied(
        &self,
        state: &mut WorldState<R::State, R::Log>,
        client: ClientId,
        served: &[Served],
    ) {
        for one in served {
            if let Some(fact) = self.recipe(client).served(&one.op, &one.result) {
                self.observe(state, client, Observation::Fact(fact));
            }
            if let Some(resource) = self.recipe(client).resource_node() {
                if let Some(writer) = resource_write(one, resource) {
                    let held = holds_first(one.tree(&state.net), self.directory(), writer);
                    state.history.resource.unheld |= !held;
                }
            }
            if let Ok(Response::Created { path, .. }) = &one.result {
                if path.is_child_of(self.directory()) {
                    if let Some(order) = state.net.store.creation_order(path) {
                        state.history.nodes[client] = Some((path.clone(), order));
                    }
                }
            }
        }
        self.wake(state, served.iter().flat_map(|one| &one.notifications), 0);
    }

    /// Records whom server `server`'s notifications wake: a waiting client
    /// that gets one is woken; more than one waiting client woken by one
    /// deletion is a herd, unless the recipe means every one of them to go
    /// together ([`Recipe::released_together`]: readers a writer's deletion
    /// releases, judged on that server's tree). On an ensemble the clients
    /// one deletion woke at other servers before count too.
    pub(crate) fn wake<'a>(
        &self,
        state: &mut WorldState<R::State, R::Log>,
        fired: impl IntoIterator<Item = &'a Notification>,
        server: crate::ensemble::ServerId,
    ) {
        let waiting = |client: ClientId| {
            state.processes[client].status != Status::Crashed
                && self
                    .recipe(client)
                    .counts_in_herd(&state.processes[client].recipe)
        };
        let mut by_deletion: Vec<(&(Path, Zxid), BTreeSet<ClientId>)> = Vec::new();
        for notification in fired {
            let Some(client) = self.client_of(state, notification.session) else {
                continue;
            };
            if !waiting(client) {
                continue;
            }
            // Told that its own node went (someone else deleted it): it is
            // not waiting for that, so it is neither woken nor in a herd.
            let dir = self.directory();
            if notification.deleted.as_ref().is_some_and(|(deleted, _)| {
                deleted.is_child_of(dir)
                    && self
                        .recipe(client)
                        .claims(&state.processes[client].recipe, deleted.name())
            }) {
                continue;
            }
            state.history.woken = true;
            if let Some(deleted) = &notification.deleted {
                match by_deletion.iter_mut().find(|(path, _)| *path == deleted) {
                    Some((_, woken)) => {
                        woken.insert(client);
                    }
                    None => by_deletion.push((deleted, BTreeSet::from([client]))),
                }
            }
        }
        let ensemble = state.net.ensemble.servers() > 1;
        // On one server only a deletion that woke several needs judging.
        if by_deletion
            .iter()
            .all(|(_, woken)| woken.len() < 2 && !ensemble)
        {
            return;
        }
        let tree = state.net.ensemble.store(&state.net.store, server);
        let together = |client: &ClientId| {
            self.recipe(*client)
                .released_together(&state.processes[*client].recipe, tree)
        };
        let judged: Vec<_> = (by_deletion.into_iter())
            .map(|(deletion, woken)| {
                let together = woken.iter().all(together);
                (deletion, woken, together)
            })
            .collect();
        for ((path, zxid), mut woken, mut together) in judged {
            if ensemble {
                // Add whom the other servers woke before.
                let wakes = &mut state.history.wakes;
                match (wakes.iter_mut()).find(|wake| wake.path == *path && wake.zxid == *zxid) {
                    Some(wake) => {
                        wake.woken.extend(woken.iter().copied());
                        wake.together &= together;
                        woken.clone_from(&wake.woken);
                        together = wake.together;
                    }
                    None => {
                        wakes.push(Wake {
                            path: path.clone(),
                            zxid: *zxid,
                            woken: woken.clone(),
                            together,
                        });
                        wakes.sort_by(|a, b| (a.zxid, &a.path).cmp(&(b.zxid, &b.path)));
                    }
                }
            }
            if woken.len() > 1 && !together {
                state.history.herd = true;
            }
        }
    }

    /// Forgets each client's node ([`History::nodes`]) once the process can
    /// no longer come to hold by it: the node is gone from the server, the
    /// recipe does not claim it, and no reply on its way to the client names
    /// it (a create's, or a listing of the directory).
    fn forget_nodes(&self, state: &mut WorldState<R::State, R::Log>) {
        for client in 0..self.clients() {
            let Some((node, _)) = &state.history.nodes[client] else {
                continue;
            };
            let library = state.net.client(client);
            // The listing a reply answers: the path of the request of its xid.
            let listed = |xid: Xid| {
                (library.in_flight())
                    .find(|request| request.xid == xid)
                    .and_then(|request| match &request.op {
                        Op::GetChildren { path, .. } => Some(path),
                        _ => None,
                    })
            };
            let named = |message: &ServerMessage| match message {
                ServerMessage::Reply {
                    result: Ok(Response::Created { path, .. }),
                    ..
                } => path == node,
                ServerMessage::Reply {
                    xid,
                    result: Ok(Response::Children { names, .. }),
                    ..
                } => {
                    node.split()
                        .is_some_and(|(parent, _)| listed(*xid) == Some(&parent))
                        && names.iter().any(|name| **name == *node.name())
                }
                _ => false,
            };
            let reachable = state.net.store.exists(node)
                || self
                    .recipe(client)
                    .claims(&state.processes[client].recipe, node.name())
                || state.net.links[client].down.iter().any(named);
            if !reachable {
                state.history.nodes[client] = None;
            }
        }
    }

    /// Whether nothing but a fault can happen any more.
    pub fn is_quiescent(&self, state: &WorldState<R::State, R::Log>) -> bool {
        self.each_enabled(state, true, |_| ControlFlow::Break(()))
            .is_continue()
    }

    /// Every action enabled in `state`, in the checker's order.
    pub fn enabled(&self, state: &WorldState<R::State, R::Log>, actions: &mut Vec<Action>) {
        let _ = self.each_enabled(state, false, |action| {
            actions.push(action);
            ControlFlow::Continue(())
        });
    }

    /// Takes `action` from `state` if it is enabled there: the one checked
    /// step that replays (of traces, of the command line, of simulations)
    /// use, so that nothing an action list says can make the world panic or
    /// take a step the checker could not.
    pub fn try_step(
        &self,
        state: &WorldState<R::State, R::Log>,
        action: &Action,
    ) -> Result<WorldState<R::State, R::Log>, Refusal> {
        let mut enabled = Vec::new();
        caught(|| self.enabled(state, &mut enabled)).map_err(Refusal::Panicked)?;
        if !enabled.contains(action) {
            return Err(Refusal::NotEnabled);
        }
        self.step_caught(state, action)
    }

    /// [`World::try_step`], with what the recipes observed in the step, in
    /// order: what a trace says of a step that the states alone do not tell
    /// (which item a consumer took a second time).
    pub fn try_step_observed(
        &self,
        state: &WorldState<R::State, R::Log>,
        action: &Action,
    ) -> Result<(WorldState<R::State, R::Log>, Observed<R::Fact>), Refusal> {
        let (next, observed) = self.observing(|| self.try_step(state, action));
        next.map(|next| (next, observed))
    }

    /// [`World::step`], with what the recipes observed in the step.
    pub fn step_observed(
        &self,
        state: &WorldState<R::State, R::Log>,
        action: &Action,
    ) -> Option<(WorldState<R::State, R::Log>, Observed<R::Fact>)> {
        let (next, observed) = self.observing(|| self.step(state, action));
        next.map(|next| (next, observed))
    }

    /// Runs `f`, answering with what the recipes observed meanwhile.
    fn observing<T>(&self, f: impl FnOnce() -> T) -> (T, Observed<R::Fact>) {
        /// Puts back the listener it replaced, even when `f` panics.
        struct Restore(Option<Option<Box<dyn Any>>>);
        impl Drop for Restore {
            fn drop(&mut self) {
                let outer = self.0.take().flatten();
                OBSERVED.with(|observed| *observed.borrow_mut() = outer);
            }
        }
        let listening: Observed<R::Fact> = Vec::new();
        let outer = OBSERVED.with(|observed| observed.replace(Some(Box::new(listening))));
        let restore = Restore(Some(outer));
        let result = f();
        let observed = OBSERVED.with(|observed| observed.borrow_mut().take());
        drop(restore);
        let observed = observed
            .and_then(|any| any.downcast().ok())
            .map_or_else(Vec::new, |observed: Box<Observed<R::Fact>>| *observed);
        (result, observed)
    }

    /// [`World::enabled`], or the message of the panic listing them caused.
    pub fn enabled_caught(
        &self,
        state: &WorldState<R::State, R::Log>,
        actions: &mut Vec<Action>,
    ) -> Result<(), String> {
        caught(|| self.enabled(state, actions))
    }

    /// [`World::step`] with a panic turned into [`Refusal::Panicked`], for a
    /// caller that took `action` from [`World::enabled`] itself.
    pub fn step_caught(
        &self,
        state: &WorldState<R::State, R::Log>,
        action: &Action,
    ) -> Result<WorldState<R::State, R::Log>, Refusal> {
        caught(|| self.step(state, action))
            .map_err(Refusal::Panicked)?
            .ok_or(Refusal::NotEnabled)
    }

    /// Applies one action, trusting the caller that it is enabled (the
    /// checker takes only enabled actions; a replay uses [`World::try_step`]).
    /// `None` if it cannot apply.
    pub fn step(
        &self,
        state: &WorldState<R::State, R::Log>,
        action: &Action,
    ) -> Option<WorldState<R::State, R::Log>> {
        let mut next = state.clone();
        self.take(&mut next, action)?;
        self.forget_nodes(&mut next);
        Self::forget_wakes(&mut next);
        Some(next)
    }

    /// Forgets each deletion every server has applied: it wakes nobody more.
    fn forget_wakes(state: &mut WorldState<R::State, R::Log>) {
        if state.history.wakes.is_empty() {
            return;
        }
        let ensemble = &state.net.ensemble;
        let everywhere = (0..ensemble.servers())
            .map(|server| ensemble.store(&state.net.store, server).zxid())
            .min()
            .unwrap_or(Zxid::MAX);
        (state.history.wakes).retain(|wake| wake.zxid > everywhere);
    }
}

impl<R: Recipe> Model for World<R> {
    type State = WorldState<R::State, R::Log>;
    type Action = Action;

    fn init_states(&self) -> Vec<Self::State> {
        let clients = self.clients();
        let mut net = Net::new(self.store, clients);
        for client in 0..clients {
            net.set_library(client, self.library(client));
        }
        // The recipe's directories exist before any client starts, made by
        // none of them: no client library has sent a request or read a
        // zxid, so none differs from another but by its session.
        for path in self.shared().setup() {
            let mode = match &path == self.shared().directory() {
                true => self.shared().directory_mode(),
                false => CreateMode::Persistent,
            };
            let create = Op::Create {
                path,
                data: None,
                mode,
            };
            net.store.apply(net.session(0), &create);
        }
        let dead_sessions = self.plant(&mut net);
        // A resource in ZooKeeper, if any client's recipe guards one and the
        // starting tree does not hold it already.
        let resources: BTreeSet<&Path> = self.recipes.iter().filter_map(R::resource_node).collect();
        for path in resources {
            if net.store.exists(path) {
                continue;
            }
            let create = Op::Create {
                path: path.clone(),
                data: None,
                mode: CreateMode::Persistent,
            };
            net.store.apply(net.session(0), &create);
        }
        if self.store.servers > 1 {
            net.form_ensemble(usize::from(self.store.servers), u64::from(self.store.lag));
        }
        let processes = (0..clients)
            .map(|client| Process {
                recipe: self.recipe(client).init(Incarnation {
                    client,
                    restarts: 0,
                }),
                status: Status::Running,
                commands_given: 0,
                restarts: 0,
                timer: false,
                ready: false,
            })
            .collect();
        vec![WorldState {
            net,
            processes,
            dead_sessions,
            spent: Spent::default(),
            history: History::new(clients),
        }]
    }

    fn actions(&self, state: &Self::State, actions: &mut Vec<Self::Action>) {
        self.enabled(state, actions);
    }

    fn next_state(&self, state: &Self::State, action: Self::Action) -> Option<Self::State> {
        self.step(state, &action)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        (self.properties)().iter().map(Promise::property).collect()
    }

    /// The explorer lists each next step as a trace names it.
    fn format_action(&self, action: &Action) -> String {
        action.label()
    }
}
