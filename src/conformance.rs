//! The vocabulary of differential conformance testing against a real server.
//!
//! A conformance sequence is a list of [`Step`]s over a few session slots, with
//! paths relative to a root that each run picks for itself. Running it yields one
//! [`Seen`] per step: the acting session's reply and every session's watch
//! events, normalised (zxids relative to the root's creation, owners as session
//! slots, paths relative to the root) so that a simulated run and a real one can
//! be compared with `==`.
//!
//! `tests/conformance.rs` generates sequences and runs them on both sides; this
//! module holds what a regression test needs to replay one on the simulated
//! store ([`SimRun`]) and to print a failing prefix as such a test
//! ([`unit_test`]).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::client::{ConnState, Delivery};
use crate::net::Net;
use crate::store::*;

/// Session slots per sequence.
pub const SESSIONS: usize = 3;

/// The root a sequence runs under in a regression test.
pub const ROOT: &str = "/zc";

/// One step of a sequence: a session does something.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub session: usize,
    pub action: Action,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// A request; its paths are relative to the sequence root (`""` is the root).
    Op(Call),
    /// The session closes (`closeSession`).
    Close,
    /// A closed session's slot gets a new session.
    Reopen,
}

/// A request with relative paths. Kept apart from [`Op`] so that the same
/// sequence runs under any root.
#[derive(Clone, Debug, PartialEq)]
pub enum Call {
    Create(String, Option<Vec<u8>>, CreateMode),
    Delete(String, i32),
    SetData(String, Option<Vec<u8>>, i32),
    Exists(String, bool),
    GetData(String, bool),
    GetChildren(String, bool),
    Sync(String),
    Multi(Vec<MultiCall>),
    AddWatch(String, AddWatchMode),
    /// `removeAllWatches` (opcode `removeWatches`).
    RemoveWatches(String, WatcherType),
    /// `removeWatches` of the application's one watcher (opcode
    /// `checkWatches`).
    CheckWatches(String, WatcherType),
}

#[derive(Clone, Debug, PartialEq)]
pub enum MultiCall {
    Create(String, Option<Vec<u8>>, CreateMode),
    Delete(String, i32),
    SetData(String, Option<Vec<u8>>, i32),
    Check(String, i32),
}

/// `root` joined with a relative path.
pub fn under(root: &str, relative: &str) -> Path {
    if relative.is_empty() {
        Path::new(root)
    } else {
        Path::new(&format!("{root}/{relative}"))
    }
}

fn bytes(data: &Option<Vec<u8>>) -> Data {
    data.as_deref().and_then(crate::store::data)
}

impl Call {
    pub fn to_op(&self, root: &str) -> Op {
        match self {
            Call::Create(path, data, mode) => Op::Create {
                path: under(root, path),
                data: bytes(data),
                mode: *mode,
            },
            Call::Delete(path, version) => Op::Delete {
                path: under(root, path),
                version: *version,
            },
            Call::SetData(path, data, version) => Op::SetData {
                path: under(root, path),
                data: bytes(data),
                version: *version,
            },
            Call::Exists(path, watch) => Op::Exists {
                path: under(root, path),
                watch: *watch,
            },
            Call::GetData(path, watch) => Op::GetData {
                path: under(root, path),
                watch: *watch,
            },
            Call::GetChildren(path, watch) => Op::GetChildren {
                path: under(root, path),
                watch: *watch,
            },
            Call::Sync(path) => Op::Sync {
                path: under(root, path),
            },
            Call::Multi(ops) => Op::Multi(ops.iter().map(|op| op.to_op(root)).collect()),
            Call::AddWatch(path, mode) => Op::AddWatch {
                path: under(root, path),
                mode: *mode,
            },
            Call::RemoveWatches(path, kind) => Op::RemoveWatches {
                path: under(root, path),
                kind: *kind,
            },
            Call::CheckWatches(path, kind) => Op::CheckWatches {
                path: under(root, path),
                kind: *kind,
            },
        }
    }
}

impl MultiCall {
    pub fn to_op(&self, root: &str) -> MultiOp {
        match self {
            MultiCall::Create(path, data, mode) => MultiOp::Create {
                path: under(root, path),
                data: bytes(data),
                mode: *mode,
            },
            MultiCall::Delete(path, version) => MultiOp::Delete {
                path: under(root, path),
                version: *version,
            },
            MultiCall::SetData(path, data, version) => MultiOp::SetData {
                path: under(root, path),
                data: bytes(data),
                version: *version,
            },
            MultiCall::Check(path, version) => MultiOp::Check {
                path: under(root, path),
                version: *version,
            },
        }
    }
}

// ---------------------------------------------------------------------------
// Observations: what a step showed, with everything run-specific normalised.
// ---------------------------------------------------------------------------

/// A Stat with zxids relative to the sequence's first zxid and the owner as a
/// session slot and generation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeenStat {
    pub czxid: i64,
    pub mzxid: i64,
    pub pzxid: i64,
    pub version: i32,
    pub cversion: i32,
    pub aversion: i32,
    pub ephemeral_owner: String,
    pub data_length: i32,
    pub num_children: i32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeenMulti {
    Created(String),
    Deleted,
    SetData(SeenStat),
    Checked,
}

/// What a step's acting session got back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeenReply {
    Error(&'static str),
    Created(String, SeenStat),
    Deleted,
    Exists(Option<SeenStat>),
    Data(Option<Vec<u8>>, SeenStat),
    SetData(SeenStat),
    Children(BTreeSet<String>, SeenStat),
    Synced,
    /// Per-op codes, and the results when it committed.
    Multi(Vec<i32>, Vec<SeenMulti>),
    Closed,
    Reopened,
    WatchAdded,
    WatchesRemoved,
}

/// One step's observations: the reply, and each session's watch events as a
/// set (several events of one step reach a session together).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen {
    pub reply: SeenReply,
    pub events: Vec<BTreeSet<String>>,
}

/// Turns run-specific values into comparable ones.
#[derive(Clone)]
pub struct Normalizer {
    pub root: String,
    pub base_zxid: i64,
    /// Session id to "slot.generation".
    pub owners: BTreeMap<i64, String>,
}

impl Normalizer {
    pub fn zxid(&self, zxid: i64) -> i64 {
        zxid - self.base_zxid
    }

    pub fn path(&self, path: &str) -> String {
        match path.strip_prefix(&self.root) {
            Some("") => ".".into(),
            // `/zoocheck-R-12/a` is outside the root `/zoocheck-R-1`.
            Some(rest) if rest.starts_with('/') => rest.trim_start_matches('/').into(),
            _ => format!("(outside) {path}"),
        }
    }

    pub fn owner(&self, session: i64) -> String {
        if session == 0 {
            "-".into()
        } else {
            self.owners
                .get(&session)
                .cloned()
                .unwrap_or_else(|| format!("unknown {session:#x}"))
        }
    }

    pub fn stat(&self, stat: &Stat) -> SeenStat {
        SeenStat {
            czxid: self.zxid(stat.czxid),
            mzxid: self.zxid(stat.mzxid),
            pzxid: self.zxid(stat.pzxid),
            version: stat.version,
            cversion: stat.cversion,
            aversion: stat.aversion,
            ephemeral_owner: self.owner(stat.ephemeral_owner),
            data_length: stat.data_length,
            num_children: stat.num_children,
        }
    }

    pub fn event(&self, kind: EventType, path: &str) -> String {
        format!("{kind:?} {}", self.path(path))
    }
}

// ---------------------------------------------------------------------------
// The simulated side.
// ---------------------------------------------------------------------------

/// `net`, its sessions open, after session 0 created `root`; and the
/// normaliser whose base is the root's zxid.
fn start(mut net: Net, root: &str) -> (Net, Normalizer) {
    let mut owners = BTreeMap::new();
    for slot in 0..SESSIONS {
        owners.insert(net.session(slot), format!("{slot}.0"));
    }
    net.submit(
        0,
        Op::Create {
            path: Path::new(root),
            data: data(b""),
            mode: CreateMode::Persistent,
        },
    );
    net.settle();
    // The reply waits until session 0's server applied it.
    while net.wait(0).is_some() {
        net.apply(net.server(0));
        net.settle();
    }
    let base_zxid = net.store.zxid();
    let norm = Normalizer {
        root: root.into(),
        base_zxid,
        owners,
    };
    (net, norm)
}

/// A sequence running on the simulated store.
pub struct SimRun {
    net: Net,
    norm: Normalizer,
    generation: [usize; SESSIONS],
}

impl SimRun {
    /// Runs `steps` under [`ROOT`] and answers what each step showed.
    pub fn replay(steps: &[Step]) -> Vec<Seen> {
        let mut run = SimRun::new(ROOT);
        steps.iter().map(|step| run.run(step)).collect()
    }

    /// Opens the sessions, then creates the root: the root's zxid is the base.
    pub fn new(root: &str) -> SimRun {
        let (net, norm) = start(Net::new(StoreConfig::default(), SESSIONS), root);
        SimRun {
            net,
            norm,
            generation: [0; SESSIONS],
        }
    }

    pub fn is_closed(&self, slot: usize) -> bool {
        self.net.client(slot).state() == ConnState::Closed
    }

    /// Every node under the root, relative.
    pub fn existing(&self) -> Vec<String> {
        let prefix = format!("{}/", self.norm.root);
        self.net
            .store
            .paths()
            .filter_map(|path| path.as_str().strip_prefix(&prefix).map(String::from))
            .collect()
    }

    pub fn version(&self, relative: &str) -> Option<i32> {
        self.net
            .store
            .stat(&under(&self.norm.root, relative))
            .map(|stat| stat.version)
    }

    /// The server deletes the empty container `relative`
    /// ([`Net::sweep`]): what each session then heard, or `None` if the
    /// model would not delete it now.
    pub fn sweep(&mut self, relative: &str) -> Option<Vec<BTreeSet<String>>> {
        self.net.sweep(&under(&self.norm.root, relative))?;
        let deliveries = self.net.settle();
        Some(
            (deliveries.iter())
                .map(|out| {
                    (out.iter())
                        .filter_map(|delivery| match delivery {
                            Delivery::Watch(event) => {
                                Some(self.norm.event(event.kind, event.path.as_str()))
                            }
                            _ => None,
                        })
                        .collect()
                })
                .collect(),
        )
    }

    pub fn run(&mut self, step: &Step) -> Seen {
        let slot = step.session;
        let mut deliveries = vec![Vec::new(); SESSIONS];
        let reply = match &step.action {
            Action::Reopen => {
                self.net.open_session(slot);
                self.generation[slot] += 1;
                let label = format!("{slot}.{}", self.generation[slot]);
                self.norm.owners.insert(self.net.session(slot), label);
                SeenReply::Reopened
            }
            Action::Close | Action::Op(_) => {
                let op = match &step.action {
                    Action::Op(op) => op.to_op(&self.norm.root),
                    _ => Op::Close,
                };
                deliveries[slot].extend(self.net.submit(slot, op));
                for (all, new) in deliveries.iter_mut().zip(self.net.settle()) {
                    all.extend(new);
                }
                let result = deliveries[slot]
                    .iter()
                    .find_map(|delivery| match delivery {
                        Delivery::Reply { result, .. } => Some(result.clone()),
                        _ => None,
                    })
                    .expect("a request ends with a reply");
                self.norm.reply(&result)
            }
        };
        let events = deliveries
            .iter()
            .map(|out| {
                out.iter()
                    .filter_map(|delivery| match delivery {
                        Delivery::Watch(event) => {
                            Some(self.norm.event(event.kind, event.path.as_str()))
                        }
                        _ => None,
                    })
                    .collect()
            })
            .collect();
        Seen { reply, events }
    }
}

impl Normalizer {
    /// A request's result as its session saw it.
    pub fn reply(&self, result: &OpResult) -> SeenReply {
        let norm = self;
        match result {
            Err(code) => SeenReply::Error(code.name()),
            Ok(Response::Created { path, stat }) => {
                SeenReply::Created(norm.path(path.as_str()), norm.stat(stat))
            }
            Ok(Response::Deleted) => SeenReply::Deleted,
            Ok(Response::Exists(stat)) => SeenReply::Exists(stat.as_ref().map(|s| norm.stat(s))),
            Ok(Response::Data { data, stat }) => {
                SeenReply::Data(data.as_ref().map(|d| d.to_vec()), norm.stat(stat))
            }
            Ok(Response::SetData { stat }) => SeenReply::SetData(norm.stat(stat)),
            Ok(Response::Children { names, stat }) => SeenReply::Children(
                names.iter().map(|name| name.to_string()).collect(),
                norm.stat(stat),
            ),
            Ok(Response::Synced { .. }) => SeenReply::Synced,
            Ok(Response::WatchAdded) => SeenReply::WatchAdded,
            Ok(Response::WatchesRemoved) => SeenReply::WatchesRemoved,
            Ok(Response::Multi(outcome)) => {
                let results = match outcome {
                    MultiOutcome::Committed(results) => results
                        .iter()
                        .map(|result| match result {
                            MultiResult::Created { path } => {
                                SeenMulti::Created(norm.path(path.as_str()))
                            }
                            MultiResult::Deleted => SeenMulti::Deleted,
                            MultiResult::SetData { stat } => SeenMulti::SetData(norm.stat(stat)),
                            MultiResult::Checked => SeenMulti::Checked,
                        })
                        .collect(),
                    MultiOutcome::Aborted { .. } => Vec::new(),
                };
                SeenReply::Multi(outcome.codes(), results)
            }
            Ok(Response::Closed) => SeenReply::Closed,
        }
    }
}

// ---------------------------------------------------------------------------
// The simulated ensemble: trace validation.
// ---------------------------------------------------------------------------

/// The fixed stale-read scenario: session 0 (on the leader) creates `x`,
/// session 1 (on a follower) syncs and reads it; session 0 changes it
/// (step 3), session 1 reads it (step 4: stale while its follower is held
/// behind), syncs (step 5) and reads it again (step 6: fresh).
pub fn stale_read_steps() -> Vec<Step> {
    let x = || "x".to_string();
    let step = |session, call| Step {
        session,
        action: Action::Op(call),
    };
    vec![
        step(
            0,
            Call::Create(x(), Some(b"a".to_vec()), CreateMode::Persistent),
        ),
        step(1, Call::Sync(x())),
        step(1, Call::GetData(x(), false)),
        step(0, Call::SetData(x(), Some(b"bb".to_vec()), ANY_VERSION)),
        step(1, Call::GetData(x(), false)),
        step(1, Call::Sync(x())),
        step(1, Call::GetData(x(), false)),
    ]
}

/// Where the random sequences' sessions are, by server (0 is the leader):
/// one on each server; two on one follower and one on the other; two on
/// the leader and one on a follower. Sequence `seed` takes
/// [`layout`]`(seed)`, so every run has each.
pub const LAYOUTS: [[usize; SESSIONS]; 3] = [[0, 1, 2], [1, 2, 1], [0, 0, 1]];

/// The layout of sequence `seed`'s sessions ([`LAYOUTS`]).
pub fn layout(seed: u64) -> [usize; SESSIONS] {
    LAYOUTS[(seed % LAYOUTS.len() as u64) as usize]
}

/// Servers of the simulated ensemble (0 is the leader); where each
/// session slot is connected is the sequence's [`layout`].
pub const ENSEMBLE_SERVERS: usize = SESSIONS;

/// How far behind the simulated servers may fall. A real server's lag
/// has no bound the model could know, so the bound is far above what a
/// sequence commits.
const ENSEMBLE_LAG: u64 = 1 << 20;

/// A sequence on a simulated ensemble, checked against what a real one
/// showed (trace validation). Each real server, the leader too, applies
/// the leader's commits at a pace nobody chooses, so the model keeps every
/// state it can be in after some schedule of applies that explains every
/// observation so far: [`EnsembleRun::explain`] narrows them step by step.
///
/// An observation is the acting session's reply, and the watch events each
/// open session had received when a read on its own connection came back
/// after that reply (a session with no watch set, which can receive none,
/// is not asked). The read's answer follows every event its server sent
/// before it on the same connection, so a session's events are exactly
/// those its server fired up to some moment after the reply; the model
/// chooses that moment by the applies it makes first.
#[derive(Clone)]
pub struct EnsembleRun {
    candidates: Vec<Net>,
    norm: Normalizer,
    generation: [usize; SESSIONS],
    /// The most candidates held after a step.
    pub widest: usize,
}

/// What the model allowed at the first observation it could not explain.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Unexplained {
    /// The replies the acting session could have had.
    pub replies: Vec<SeenReply>,
    /// The first session whose events matched in no candidate, with the
    /// event sets it could have had (empty when no reply matched).
    pub events: Option<(usize, BTreeSet<BTreeSet<String>>)>,
}

impl Unexplained {
    fn allow(&mut self, reply: SeenReply) {
        if !self.replies.contains(&reply) {
            self.replies.push(reply);
        }
    }
}

/// One state of a step's search: the simulated ensemble, how far the step
/// has come (0: the acting session awaits its reply; `1 + j`: sessions
/// before `j` have been read), and the events each session received in
/// this step.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Searching {
    net: Net,
    phase: usize,
    heard: Vec<BTreeSet<String>>,
}

impl EnsembleRun {
    /// Opens the sessions (known to every server), session slot `i` on
    /// server `i`, then has session 0, on the leader, create the root: the
    /// root's zxid is the base.
    pub fn new(root: &str) -> EnsembleRun {
        EnsembleRun::placed(root, [0, 1, 2])
    }

    /// [`EnsembleRun::new`] with session slot `i` on server `servers[i]`.
    pub fn placed(root: &str, servers: [usize; SESSIONS]) -> EnsembleRun {
        let mut net = Net::new(StoreConfig::default(), SESSIONS);
        net.form_ensemble(ENSEMBLE_SERVERS, ENSEMBLE_LAG);
        for (slot, server) in servers.into_iter().enumerate() {
            let offset = (server + ENSEMBLE_SERVERS - net.server(slot)) % ENSEMBLE_SERVERS;
            net.move_client(slot, offset);
        }
        let (net, norm) = start(net, root);
        EnsembleRun {
            candidates: vec![net],
            norm,
            generation: [0; SESSIONS],
            widest: 1,
        }
    }

    /// How many states of the ensemble explain everything seen so far.
    pub fn candidates(&self) -> usize {
        self.candidates.len()
    }

    /// Whether session slot `slot` is closed (the same in every candidate:
    /// the leader decides).
    pub fn is_closed(&self, slot: usize) -> bool {
        self.candidates[0].client(slot).state() == ConnState::Closed
    }

    /// Keeps the states that explain what `step` showed on the real
    /// ensemble; answers what the model allowed instead when none does (and
    /// keeps the states it had).
    pub fn explain(&mut self, step: &Step, real: &Seen) -> Result<(), Unexplained> {
        let slot = step.session;
        let mut unexplained = Unexplained::default();
        let mut start = Vec::with_capacity(self.candidates.len());
        for mut net in self.candidates.iter().cloned() {
            let mut phase = 0;
            match &step.action {
                Action::Reopen => {
                    net.open_session(slot);
                    phase = 1;
                }
                Action::Close | Action::Op(_) => {
                    let op = match &step.action {
                        Action::Op(call) => call.to_op(&self.norm.root),
                        _ => Op::Close,
                    };
                    for delivery in net.submit(slot, op) {
                        // The library answered at once (an empty multi).
                        if let Delivery::Reply { result, .. } = delivery {
                            let reply = self.norm.reply(&result);
                            phase = if reply == real.reply { 1 } else { usize::MAX };
                            unexplained.allow(reply);
                        }
                    }
                }
            }
            if phase != usize::MAX {
                let heard = vec![BTreeSet::new(); SESSIONS];
                start.push(Searching { net, phase, heard });
            }
        }
        if start.is_empty() {
            return Err(unexplained);
        }
        if let Action::Reopen = step.action {
            self.generation[slot] += 1;
            let label = format!("{slot}.{}", self.generation[slot]);
            let session = start[0].net.session(slot);
            self.norm.owners.insert(session, label);
        }
        let mut seen: std::collections::HashSet<Searching> = start.iter().cloned().collect();
        let mut queue: std::collections::VecDeque<Searching> = start.into();
        let mut explained: Vec<Net> = Vec::new();
        let mut kept: std::collections::HashSet<Net> = std::collections::HashSet::new();
        while let Some(state) = queue.pop_front() {
            let mut next = Vec::new();
            // A server applies the next committed transaction.
            for server in 0..state.net.ensemble.servers() {
                let mut moved = state.clone();
                if moved.net.apply(server).is_some() {
                    next.push(moved);
                }
            }
            if state.phase == 0 {
                if state.net.can_serve(slot) {
                    let mut moved = state.clone();
                    moved.net.serve(slot);
                    next.push(moved);
                }
                let replied = (state.net.links[slot].down.iter())
                    .any(|message| matches!(message, crate::client::ServerMessage::Reply { .. }));
                if replied {
                    let mut moved = state.clone();
                    let mut reply = None;
                    while moved.net.can_deliver(slot) {
                        for delivery in moved.net.deliver(slot) {
                            match delivery {
                                Delivery::Watch(event) => {
                                    let event = self.norm.event(event.kind, event.path.as_str());
                                    moved.heard[slot].insert(event);
                                }
                                Delivery::Reply { result, .. } => {
                                    reply = Some(self.norm.reply(&result))
                                }
                                Delivery::Session(_) => {}
                            }
                        }
                    }
                    let reply = reply.expect("the reply was on the link");
                    if reply == real.reply {
                        moved.phase = 1;
                        next.push(moved);
                    } else {
                        unexplained.allow(reply);
                    }
                }
            } else if state.phase <= SESSIONS {
                // The read on session `j`'s connection comes back: it has
                // every event its server sent before.
                let j = state.phase - 1;
                let mut moved = state.clone();
                while moved.net.can_deliver(j) {
                    for delivery in moved.net.deliver(j) {
                        if let Delivery::Watch(event) = delivery {
                            let event = self.norm.event(event.kind, event.path.as_str());
                            moved.heard[j].insert(event);
                        }
                    }
                }
                if moved.heard[j] == real.events[j] {
                    moved.phase += 1;
                    next.push(moved);
                } else {
                    let (first, sets) = unexplained
                        .events
                        .get_or_insert_with(|| (j, BTreeSet::new()));
                    if *first == j {
                        sets.insert(moved.heard[j].clone());
                    }
                }
            } else if kept.insert(state.net.clone()) {
                explained.push(state.net.clone());
            }
            for moved in next {
                if seen.insert(moved.clone()) {
                    queue.push_back(moved);
                }
            }
        }
        if explained.is_empty() {
            return Err(unexplained);
        }
        self.widest = self.widest.max(explained.len());
        self.candidates = explained;
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// Reporting a mismatch as a unit test to paste.
// ---------------------------------------------------------------------------

fn rust_data(data: &Option<Vec<u8>>) -> String {
    match data {
        None => "None".into(),
        Some(bytes) => format!("Some(b{:?}.to_vec())", String::from_utf8_lossy(bytes)),
    }
}

fn rust_call(call: &Call) -> String {
    let p = |path: &str| format!("{path:?}.into()");
    match call {
        Call::Create(path, data, mode) => format!(
            "Call::Create({}, {}, CreateMode::{mode:?})",
            p(path),
            rust_data(data)
        ),
        Call::Delete(path, version) => format!("Call::Delete({}, {version})", p(path)),
        Call::SetData(path, data, version) => {
            format!("Call::SetData({}, {}, {version})", p(path), rust_data(data))
        }
        Call::Exists(path, watch) => format!("Call::Exists({}, {watch})", p(path)),
        Call::GetData(path, watch) => format!("Call::GetData({}, {watch})", p(path)),
        Call::GetChildren(path, watch) => format!("Call::GetChildren({}, {watch})", p(path)),
        Call::Sync(path) => format!("Call::Sync({})", p(path)),
        Call::AddWatch(path, mode) => {
            format!("Call::AddWatch({}, AddWatchMode::{mode:?})", p(path))
        }
        Call::RemoveWatches(path, kind) => {
            format!("Call::RemoveWatches({}, WatcherType::{kind:?})", p(path))
        }
        Call::CheckWatches(path, kind) => {
            format!("Call::CheckWatches({}, WatcherType::{kind:?})", p(path))
        }
        Call::Multi(ops) => {
            let ops: Vec<String> = ops
                .iter()
                .map(|op| match op {
                    MultiCall::Create(path, data, mode) => format!(
                        "MultiCall::Create({}, {}, CreateMode::{mode:?})",
                        p(path),
                        rust_data(data)
                    ),
                    MultiCall::Delete(path, version) => {
                        format!("MultiCall::Delete({}, {version})", p(path))
                    }
                    MultiCall::SetData(path, data, version) => format!(
                        "MultiCall::SetData({}, {}, {version})",
                        p(path),
                        rust_data(data)
                    ),
                    MultiCall::Check(path, version) => {
                        format!("MultiCall::Check({}, {version})", p(path))
                    }
                })
                .collect();
            format!("Call::Multi(vec![{}])", ops.join(", "))
        }
    }
}

/// A failing prefix of a sequence as a regression test: it replays `steps` on
/// the simulated store and asserts that the last step shows what the real
/// server showed (`real`, compared in its `Debug` form).
pub fn unit_test(seed: u64, steps: &[Step], real: &Seen) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "#[test]");
    let _ = writeln!(out, "fn conformance_seed_{seed}() {{");
    let _ = writeln!(out, "    use zoocheck::conformance::*;");
    let _ = writeln!(out, "    use zoocheck::store::CreateMode;");
    let _ = writeln!(out, "    let steps = vec![");
    for step in steps {
        let action = match &step.action {
            Action::Reopen => "Action::Reopen".to_string(),
            Action::Close => "Action::Close".to_string(),
            Action::Op(call) => format!("Action::Op({})", rust_call(call)),
        };
        let _ = writeln!(
            out,
            "        Step {{ session: {}, action: {action} }},",
            step.session
        );
    }
    let _ = writeln!(out, "    ];");
    let _ = writeln!(out, "    let seen = SimRun::replay(&steps);");
    let _ = writeln!(
        out,
        "    // What the real ZooKeeper 3.8 showed at the last step:"
    );
    let _ = writeln!(
        out,
        "    assert_eq!(format!(\"{{:?}}\", seen.last().unwrap()), {:?});",
        format!("{real:?}")
    );
    let _ = writeln!(out, "}}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_under_the_root_only_past_a_slash() {
        let norm = Normalizer {
            root: "/zoocheck-R-1".into(),
            base_zxid: 0,
            owners: BTreeMap::new(),
        };
        assert_eq!(norm.path("/zoocheck-R-1"), ".");
        assert_eq!(norm.path("/zoocheck-R-1/a/b"), "a/b");
        // Another run's root that begins with this one's name is outside it.
        assert_eq!(norm.path("/zoocheck-R-12/a"), "(outside) /zoocheck-R-12/a");
        assert_eq!(norm.path("/other"), "(outside) /other");
    }
}
