//! Two-phase commit (seed 000 and seed 002, "Two-phased Commit").
//!
//! The seeds' steps, and where each is done:
//!
//! 1. "a coordinator create[s] a transaction node, say `/app/Tx`, and one
//!    child node per participating site, say `/app/Tx/s_i`. When coordinator
//!    creates the child node, it leaves the content undefined."
//!    [`Command::Coordinate`]: one multi creates [`TX`] and every site's node
//!    (empty), so that no site ever sees part of the group. The transaction,
//!    which here is only the group (`s_1,s_2`), is written in the transaction
//!    node: "even propagating the transaction can be done through ZooKeeper
//!    by writing it in the transaction node".
//! 2. "Once each site involved in the transaction receives the transaction
//!    from the coordinator, the site reads each child node and sets a
//!    watch." [`Command::Vote`]: the site waits for [`TX`] to exist (`exists`
//!    with a watch), reads it for the group, then `getData` with a watch on
//!    every other site's node.
//! 3. "Each site then processes the query and votes "commit" or "abort" by
//!    writing to its respective node." `setData` on its own node, with the
//!    application's choice ([`Fact::Voted`]). A retry after
//!    CONNECTIONLOSS writes the same bytes again: idempotent, at the price of
//!    one more notification to the other sites, who read the same vote.
//! 4. "Once the write completes, the other sites are notified, and as soon as
//!    all sites have all votes, they can decide either "abort" or "commit".
//!    Note that a node can decide "abort" earlier if some site votes for
//!    "abort"." [`outcome`] on the votes known ([`Fact::Decided`]);
//!    each notification is answered by reading the node again, with a watch.
//!
//! Renewed sessions (`[library] on_expiry = "renew"`, as Curator's and
//! kazoo's libraries do): a participant that had not decided when its
//! session was lost takes its part up again once its library has opened a
//! new one, with the votes it knows ([`TwoPhaseCommit::renewed`]): the
//! coordinator creates the transaction again (NODEEXISTS saying it was
//! applied) or, when only it is notified, reads every site's node again; a
//! site that had not read the transaction waits for it again; a site that
//! had voted writes its vote again (the same bytes) and reads, with a watch,
//! the votes (or the outcome) it still lacks, its watches having died with
//! the old session. In `ephemeral_sites` a site does not create its node
//! again: the node of its old session, gone or going with that session, is
//! its vote as the other sites count it.
//!
//! The seeds name two drawbacks, each the variant of one knob ([`Knobs`]),
//! which a scenario may turn (`[knobs]`, per client in `[[client]]`):
//! - "the impossibility of detecting failures of sites through ephemeral
//!   nodes. To detect the failure of a site using ephemeral nodes, it is
//!   necessary that the site create the node." In the reference a site that
//!   dies before voting leaves its node undefined forever and every other
//!   site waits. `ephemeral_sites` (`site_nodes = "own_ephemeral"`) is the
//!   seeds' fix: the coordinator creates
//!   only [`TX`], each site creates its own ephemeral node on receiving the
//!   transaction, and a site's node that vanishes counts as an abort vote.
//! - "the message complexity, which is O(n²). [...] we can have only the
//!   coordinator being notified of changes to the transaction nodes, and
//!   then notifying the sites once it reaches a decision."
//!   `coordinator_notified` (`notified = "coordinator"`): the coordinator
//!   watches the sites' nodes, decides, and writes the outcome into [`TX`],
//!   which the sites watch.
//!
//! Both fixes together (no preset) is a coherent commit too: the coordinator
//! waits for each site's node to appear, and a vanished one is an abort.

use crate::catalogued::{Catalogued, Docs, NoParams};
use crate::client::SessionEvent;
use crate::properties::Promise;
use crate::recipe::{ClientId, Effects, Incarnation, Input, Log, Recipe, Witness};
use crate::store::{
    data, CreateMode, ErrorCode, EventType, MultiOp, Op, OpResult, Path, Response, ANY_VERSION,
};
use crate::world::{Run, World, WorldState};

/// What a participant tells the properties: its vote and its decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Fact {
    /// A site voted to commit or to abort.
    Voted { commit: bool },
    /// A participant decided the transaction's outcome.
    Decided { commit: bool },
}

/// Which clients chose each outcome (a bit per client): votes or decisions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Ballots {
    pub commit: u8,
    pub abort: u8,
}

impl Ballots {
    fn record(&mut self, client: ClientId, commit: bool) {
        let bit = 1 << client;
        if commit {
            self.commit |= bit;
        } else {
            self.abort |= bit;
        }
    }

    fn chose(self, client: ClientId, commit: bool) -> bool {
        let ballots = if commit { self.commit } else { self.abort };
        ballots & (1 << client) != 0
    }
}

/// The sites' votes and everyone's decisions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Ledger {
    pub votes: Ballots,
    pub decisions: Ballots,
}

/// Not renamed: its recipe does not say its clients are interchangeable ([`crate::symmetry`]).
impl crate::recipe::Symmetric for Ledger {}

impl Log for Ledger {
    type Fact = Fact;

    fn new(_clients: usize) -> Ledger {
        Ledger::default()
    }

    fn record(&mut self, fact: &Fact, at: Witness<'_>) {
        let client = at.process.client;
        match *fact {
            Fact::Voted { commit } => self.votes.record(client, commit),
            Fact::Decided { commit } => self.decisions.record(client, commit),
        }
    }

    fn tell(&self, before: &Ledger, client: ClientId, _facts: &[&Fact]) -> String {
        let outcome = |commit: bool| if commit { "commit" } else { "abort" };
        let mut out = String::new();
        for commit in [true, false] {
            if self.votes.chose(client, commit) && !before.votes.chose(client, commit) {
                out.push_str(&format!("; votes {}", outcome(commit)));
            }
            if self.decisions.chose(client, commit) && !before.decisions.chose(client, commit) {
                out.push_str(&format!("; DECIDES {}", outcome(commit).to_uppercase()));
            }
        }
        out
    }
}

/// The application's directory, which the world creates.
pub const APP: &str = "/app";
/// The transaction node.
pub const TX: &str = "/app/Tx";

/// What a site's node (or, for `coordinator_notified`, the transaction node)
/// says once written.
pub const COMMIT: &[u8] = b"commit";
pub const ABORT: &[u8] = b"abort";

crate::knob_value! {
    /// Who creates a site's node, and what kind.
    pub enum SiteNodes {
        /// the coordinator, persistent and empty, with the transaction node in one multi (the seeds' text; the reference)
        ByCoordinator = "by_coordinator",
        /// each site its own, ephemeral, on reading the transaction: a node that vanishes counts as an abort vote
        OwnEphemeral = "own_ephemeral",
    }
}

crate::knob_value! {
    /// Who is notified of the votes and decides.
    pub enum Notified {
        /// every site: each watches every other site's node and decides from the votes (O(n²) messages; the reference)
        EverySite = "every_site",
        /// the coordinator: it watches the sites' nodes, decides, and writes the outcome into the transaction node, which the sites watch
        Coordinator = "coordinator",
    }
}

crate::knobs! {
    /// The two-phase commit's knobs. A variant is a preset of them
    /// ([`Knobs::REFERENCE`] and the others).
    pub struct Knobs {
        /// Who creates a site's node, and what kind.
        site_nodes: SiteNodes,
        /// Who is notified of the votes and decides.
        notified: Notified,
    }
}

impl Knobs {
    /// The reference: see the module's documentation.
    pub const REFERENCE: Knobs = Knobs {
        site_nodes: SiteNodes::ByCoordinator,
        notified: Notified::EverySite,
    };
    pub const EPHEMERAL_SITES: Knobs = Knobs {
        site_nodes: SiteNodes::OwnEphemeral,
        ..Knobs::REFERENCE
    };
    pub const COORDINATOR_NOTIFIED: Knobs = Knobs {
        notified: Notified::Coordinator,
        ..Knobs::REFERENCE
    };
}

/// What the application asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Command {
    /// Start the transaction: create its nodes (and, when only the
    /// coordinator is notified, collect the votes and publish the outcome).
    Coordinate,
    /// Take part as a site and vote: commit (`true`) or abort. Blocks until
    /// the site decides.
    Vote(bool),
}

/// Where a participant is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    Idle,
    /// Coordinator: creating the transaction's nodes.
    Creating,
    /// Coordinator (`coordinator_notified`): collecting the votes.
    Collecting,
    /// Coordinator: done with its part (the nodes exist, or the outcome is
    /// published).
    Coordinated,
    /// Site: waiting for the transaction node to exist.
    AwaitingTx,
    /// Site: reading the transaction (the group).
    ReadingTx,
    /// Site: its vote sent; waiting for the votes (or the outcome).
    Voting,
    Decided,
    /// The session ended before a decision: the handle is dead.
    Dead,
}

/// One participant's state. Sets of sites are bit masks over client ids.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct State {
    pub phase: Phase,
    /// The application's vote (a site).
    pub vote: Option<bool>,
    /// The sites of the transaction, as read from it.
    pub group: u8,
    /// Sites whose commit (abort) vote this participant has read; its own
    /// once its write completed. In `ephemeral_sites` a vanished node is in
    /// `aborts`.
    pub commits: u8,
    pub aborts: u8,
    /// `ephemeral_sites`: sites whose node this site has seen exist, so that
    /// a later NONODE means it vanished rather than that it is not there yet.
    pub seen: u8,
    pub decision: Option<bool>,
    /// The session ended with its part under way (not before it began): a
    /// renewed session takes it up again.
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
        write!(f, "{:?}", self.phase)?;
        if self.group != 0 {
            let sites = |mask: u8| -> String {
                (0..8)
                    .filter(|c| mask & (1 << c) != 0)
                    .map(|c| format!("s_{c}"))
                    .collect::<Vec<_>>()
                    .join(",")
            };
            write!(
                f,
                " group [{}] commits [{}] aborts [{}]",
                sites(self.group),
                sites(self.commits),
                sites(self.aborts)
            )?;
        }
        Ok(())
    }
}

/// The decision rule (step 4): abort as soon as some site's vote is abort,
/// commit once every site of the group voted commit, else wait.
pub fn outcome(group: u8, commits: u8, aborts: u8) -> Option<bool> {
    if aborts & group != 0 {
        Some(false)
    } else if group != 0 && commits & group == group {
        Some(true)
    } else {
        None
    }
}

/// The vote a node's bytes hold; `None` while undefined.
pub fn parse_vote(bytes: Option<&[u8]>) -> Option<bool> {
    match bytes {
        Some(COMMIT) => Some(true),
        Some(ABORT) => Some(false),
        _ => None,
    }
}

/// The transaction's bytes: its group, `s_1,s_2`.
pub fn group_bytes(group: u8) -> Vec<u8> {
    site_names(group).join(",").into_bytes()
}

/// The group the transaction's bytes name; `None` if they name none (they
/// hold an outcome).
pub fn parse_group(bytes: &[u8]) -> Option<u8> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut group = 0u8;
    for name in text.split(',') {
        group |= 1 << site_of(name)?;
    }
    Some(group)
}

/// A site's node name: `s_` and its client id.
pub fn site_name(site: ClientId) -> String {
    format!("s_{site}")
}

/// The site a node name is for.
pub fn site_of(name: &str) -> Option<ClientId> {
    let site: ClientId = name.strip_prefix("s_")?.parse().ok()?;
    (site < 8).then_some(site)
}

fn site_names(group: u8) -> Vec<String> {
    (0..8)
        .filter(|site| group & (1 << site) != 0)
        .map(site_name)
        .collect()
}

/// Two-phase commit under one setting of its knobs, for a fixed group of
/// sites.
#[derive(Clone, Debug)]
pub struct TwoPhaseCommit {
    pub knobs: Knobs,
    /// The sites: the clients whose script votes.
    pub sites: u8,
    app: Path,
    tx: Path,
}

impl TwoPhaseCommit {
    pub fn new(knobs: Knobs, sites: u8) -> TwoPhaseCommit {
        TwoPhaseCommit {
            knobs,
            sites,
            app: Path::new(APP),
            tx: Path::new(TX),
        }
    }

    /// Each site creates its own ephemeral node.
    fn own_nodes(&self) -> bool {
        self.knobs.site_nodes == SiteNodes::OwnEphemeral
    }

    /// Only the coordinator is notified of the votes.
    fn coordinator_notified(&self) -> bool {
        self.knobs.notified == Notified::Coordinator
    }

    fn node(&self, site: ClientId) -> Path {
        self.tx.child(&site_name(site))
    }

    /// Step 1: the transaction node holding the group, and (unless each site
    /// creates its own) every site's node, empty, in one multi.
    fn create_tx(&self) -> Op {
        let tx = MultiOp::Create {
            path: self.tx.clone(),
            data: data(&group_bytes(self.sites)),
            mode: CreateMode::Persistent,
        };
        if self.own_nodes() {
            let MultiOp::Create { path, data, mode } = tx else {
                unreachable!()
            };
            return Op::Create { path, data, mode };
        }
        let nodes = site_names(self.sites)
            .into_iter()
            .map(|name| MultiOp::Create {
                path: self.tx.child(&name),
                data: None,
                mode: CreateMode::Persistent,
            });
        Op::Multi(std::iter::once(tx).chain(nodes).collect())
    }

    fn read(&self, site: ClientId) -> Op {
        Op::GetData {
            path: self.node(site),
            watch: true,
        }
    }

    fn write_vote(&self, me: ClientId, vote: bool) -> Op {
        Op::SetData {
            path: self.node(me),
            data: data(if vote { COMMIT } else { ABORT }),
            version: ANY_VERSION,
        }
    }

    fn decide(&self, state: &mut State, commit: bool, out: &mut Effects<Fact>) {
        state.decision = Some(commit);
        out.fact(Fact::Decided { commit });
        if state.phase == Phase::Collecting {
            // The coordinator publishes the outcome to the sites.
            state.phase = Phase::Coordinated;
            out.send(self.publish(commit));
        } else {
            state.phase = Phase::Decided;
        }
    }

    fn publish(&self, commit: bool) -> Op {
        Op::SetData {
            path: self.tx.clone(),
            data: data(if commit { COMMIT } else { ABORT }),
            version: ANY_VERSION,
        }
    }

    /// Step 4, after any new vote: decide if the votes known allow it.
    fn evaluate(&self, state: &mut State, out: &mut Effects<Fact>) {
        let deciding = match self.knobs.notified {
            Notified::Coordinator => state.phase == Phase::Collecting,
            Notified::EverySite => state.phase == Phase::Voting,
        };
        if deciding {
            if let Some(commit) = outcome(state.group, state.commits, state.aborts) {
                self.decide(state, commit, out);
            }
        }
    }

    /// A site read the transaction: steps 2 and 3.
    fn on_transaction(
        &self,
        me: ClientId,
        state: &mut State,
        bytes: &[u8],
        out: &mut Effects<Fact>,
    ) {
        if self.coordinator_notified() {
            if let Some(commit) = parse_vote(Some(bytes)) {
                // The coordinator has published the outcome (an early abort
                // may come before our vote).
                if state.phase != Phase::Decided {
                    self.decide(state, commit, out);
                }
                return;
            }
        }
        if state.phase != Phase::ReadingTx {
            return;
        }
        let Some(group) = parse_group(bytes) else {
            return;
        };
        let vote = state.vote.expect("a site has a vote");
        state.group = group;
        state.phase = Phase::Voting;
        if self.own_nodes() {
            out.send(Op::Create {
                path: self.node(me),
                data: None,
                mode: CreateMode::Ephemeral,
            });
        }
        if !self.coordinator_notified() {
            self.read_votes(group & !(1 << me), out);
        }
        out.send(self.write_vote(me, vote));
        out.fact(Fact::Voted { commit: vote });
    }

    /// A site's node read: record its vote.
    fn on_node(
        &self,
        state: &mut State,
        site: ClientId,
        result: OpResult,
        out: &mut Effects<Fact>,
    ) {
        let bit = 1 << site;
        match result {
            Ok(Response::Data { data, .. }) => {
                if self.own_nodes() {
                    state.seen |= bit;
                }
                match parse_vote(data.as_deref()) {
                    Some(true) => state.commits |= bit,
                    Some(false) => state.aborts |= bit,
                    None => {}
                }
            }
            // Its node is not there: not created yet, or (once seen) gone
            // with its session, which counts as an abort.
            Err(ErrorCode::NoNode) if self.own_nodes() => {
                if state.seen & bit != 0 {
                    state.aborts |= bit;
                } else {
                    out.send(Op::Exists {
                        path: self.node(site),
                        watch: true,
                    });
                }
            }
            _ => {}
        }
        self.evaluate(state, out);
    }

    fn on_reply(
        &self,
        me: ClientId,
        state: &mut State,
        op: Op,
        result: OpResult,
        out: &mut Effects<Fact>,
    ) {
        if matches!(result, Err(ErrorCode::SessionExpired)) {
            die(state);
            return;
        }
        if matches!(state.phase, Phase::Decided | Phase::Dead) {
            return;
        }
        // Lost: it may or may not have been applied. Every request here is
        // safe to repeat: a read, a setData of the same bytes, a create whose
        // NODEEXISTS says it was applied.
        if matches!(result, Err(ErrorCode::ConnectionLoss)) {
            out.send(op);
            return;
        }
        let path = op.path().cloned();
        match op {
            Op::Multi(_) | Op::Create { .. } if path.as_ref() != Some(&self.node(me)) => {
                // The coordinator's step 1: applied now, or by an earlier
                // try whose reply was lost (NODEEXISTS, nothing applied).
                let applied = match &result {
                    Ok(Response::Multi(outcome)) => {
                        matches!(outcome.error(), None | Some(ErrorCode::NodeExists))
                    }
                    Ok(_) | Err(ErrorCode::NodeExists) => true,
                    Err(_) => false,
                };
                if state.phase == Phase::Creating && applied {
                    if self.coordinator_notified() {
                        state.phase = Phase::Collecting;
                        state.group = self.sites;
                        self.read_votes(self.sites, out);
                    } else {
                        state.phase = Phase::Coordinated;
                    }
                }
            }
            // A site's own ephemeral node: created, or created by an earlier
            // try (NODEEXISTS). Nothing to do either way.
            Op::Create { .. } => {}
            // The transaction exists: read it. (An answer that it does not
            // leaves the site waiting for its watch.)
            Op::Exists { path, .. }
                if path == self.tx
                    && state.phase == Phase::AwaitingTx
                    && matches!(result, Ok(Response::Exists(Some(_)))) =>
            {
                self.read_tx(state, out);
            }
            Op::Exists { path, .. } => {
                // `ephemeral_sites`: the node we wait for is already there.
                if let (Some(site), Ok(Response::Exists(Some(_)))) = (site_of(path.name()), result)
                {
                    out.send(self.read(site));
                }
            }
            Op::GetData { path, .. } if path == self.tx => {
                if let Ok(Response::Data {
                    data: Some(bytes), ..
                }) = result
                {
                    self.on_transaction(me, state, &bytes, out);
                }
            }
            Op::GetData { path, .. } => {
                if let Some(site) = site_of(path.name()) {
                    self.on_node(state, site, result, out);
                }
            }
            // Our vote is written: it counts for us as for the others.
            Op::SetData { path, .. } if path == self.node(me) && result.is_ok() => {
                match state.vote {
                    Some(true) => state.commits |= 1 << me,
                    Some(false) => state.aborts |= 1 << me,
                    None => {}
                }
                self.evaluate(state, out);
            }
            _ => {}
        }
    }

    /// A session of its own again, before deciding: take the part up again
    /// where the lost session left it, known votes kept. Its watches died
    /// with the old session, and its last write may or may not have been
    /// applied; every request here is safe to repeat (see
    /// [`TwoPhaseCommit::on_reply`]).
    fn renewed(&self, me: ClientId, state: &mut State, out: &mut Effects<Fact>) {
        if !std::mem::take(&mut state.interrupted) {
            state.phase = Phase::Idle;
            return;
        }
        match (state.vote, state.group) {
            // The coordinator, creating the transaction.
            (None, 0) => {
                state.phase = Phase::Creating;
                out.send(self.create_tx());
            }
            // The coordinator, collecting the votes (`coordinator_notified`).
            (None, group) => {
                state.phase = Phase::Collecting;
                self.read_votes(group, out);
            }
            // A site that had not read the transaction yet.
            (Some(_), 0) => self.await_tx(state, out),
            // A site that had voted: its vote again, and the votes it lacks
            // (or, when only the coordinator is notified, the outcome).
            (Some(vote), group) => {
                state.phase = Phase::Voting;
                if self.coordinator_notified() {
                    out.send(self.read_outcome());
                } else {
                    let known = state.commits | state.aborts | 1 << me;
                    self.read_votes(group & !known, out);
                }
                out.send(self.write_vote(me, vote));
            }
        }
    }

    /// Step 2's wait for the transaction node to exist.
    fn await_tx(&self, state: &mut State, out: &mut Effects<Fact>) {
        state.phase = Phase::AwaitingTx;
        out.send(Op::Exists {
            path: self.tx.clone(),
            watch: true,
        });
    }

    /// Reads, with a watch, the node of every site in `sites` (a mask).
    fn read_votes(&self, sites: u8, out: &mut Effects<Fact>) {
        for site in (0..8).filter(|&site| sites & (1 << site) != 0) {
            out.send(self.read(site));
        }
    }

    /// `coordinator_notified`: the transaction node, for the outcome.
    fn read_outcome(&self) -> Op {
        Op::GetData {
            path: self.tx.clone(),
            watch: true,
        }
    }

    fn read_tx(&self, state: &mut State, out: &mut Effects<Fact>) {
        state.phase = Phase::ReadingTx;
        out.send(Op::GetData {
            path: self.tx.clone(),
            watch: self.coordinator_notified(),
        });
    }
}

/// The session ended: a participant that had not decided (or, the
/// coordinator, finished its part) is out, remembering whether its part had
/// begun.
fn die(state: &mut State) {
    if !matches!(
        state.phase,
        Phase::Decided | Phase::Coordinated | Phase::Dead
    ) {
        state.interrupted = state.phase != Phase::Idle;
        state.phase = Phase::Dead;
    }
}

impl Recipe for TwoPhaseCommit {
    type State = State;
    type Command = Command;
    type Fact = Fact;
    type Log = Ledger;

    const PHASES: &'static [&'static str] = &PHASES;

    fn phases(&self, state: &Self::State) -> u64 {
        // A unit variant's discriminant is its place in PHASES.
        1 << state.phase as u32
    }

    fn shape(&self, state: &Self::State) -> u64 {
        let vote = state.vote.map_or(0, |vote| 1 + u64::from(vote));
        let decision = state.decision.map_or(0, |decision| 1 + u64::from(decision));
        self.phases(state) | vote << 32 | decision << 34 | u64::from(state.interrupted) << 36
    }

    fn init(&self, _me: Incarnation) -> State {
        State {
            phase: Phase::Idle,
            vote: None,
            group: 0,
            commits: 0,
            aborts: 0,
            seen: 0,
            decision: None,
            interrupted: false,
        }
    }

    fn handle(
        &self,
        me: Incarnation,
        state: &mut State,
        input: Input<Command>,
        out: &mut Effects<Fact>,
    ) {
        let me = me.client;
        match input {
            Input::Command(Command::Coordinate) if state.phase == Phase::Idle => {
                state.phase = Phase::Creating;
                out.send(self.create_tx());
            }
            Input::Command(Command::Vote(vote)) if state.phase == Phase::Idle => {
                state.vote = Some(vote);
                self.await_tx(state, out);
            }
            Input::Command(_) => {}
            Input::Reply { op, result } => self.on_reply(me, state, op, result, out),
            // Done with the transaction: later votes change nothing.
            Input::Watch(_)
                if matches!(
                    state.phase,
                    Phase::Decided | Phase::Coordinated | Phase::Dead
                ) => {}
            Input::Watch(event) if event.path == self.tx => match event.kind {
                EventType::NodeCreated if state.phase == Phase::AwaitingTx => {
                    self.read_tx(state, out)
                }
                // `coordinator_notified`: the outcome is published.
                EventType::NodeDataChanged => out.send(self.read_outcome()),
                _ => {}
            },
            Input::Watch(event) => {
                let Some(site) = site_of(event.path.name()) else {
                    return;
                };
                match event.kind {
                    EventType::NodeCreated | EventType::NodeDataChanged => {
                        out.send(self.read(site))
                    }
                    // A site's node vanished with its session before we
                    // read its vote: an abort vote. (A vote already read
                    // stands.)
                    EventType::NodeDeleted => {
                        if state.commits & (1 << site) == 0 {
                            state.aborts |= 1 << site;
                        }
                        self.evaluate(state, out);
                    }
                    EventType::NodeChildrenChanged => {}
                    // It removes no watch.
                    EventType::DataWatchRemoved
                    | EventType::ChildWatchRemoved
                    | EventType::PersistentWatchRemoved => {}
                }
            }
            Input::Session(SessionEvent::Expired | SessionEvent::Closed) => die(state),
            Input::Session(SessionEvent::SyncConnected) if state.phase == Phase::Dead => {
                self.renewed(me, state, out)
            }
            // Requests in flight were answered CONNECTIONLOSS and are sent
            // again; the client library sets the watches again on reconnect.
            Input::Session(SessionEvent::Disconnected | SessionEvent::SyncConnected) => {}
        }
    }

    fn is_busy(&self, state: &State) -> bool {
        matches!(
            state.phase,
            Phase::Creating
                | Phase::Collecting
                | Phase::AwaitingTx
                | Phase::ReadingTx
                | Phase::Voting
        )
    }

    fn parts() -> &'static [crate::recipe::Part<TwoPhaseCommit>] {
        &[
            crate::recipe::Part {
                name: "coordinator",
                meaning: "the client coordinating the transaction, until its part is done",
                played: |_, state| matches!(state.phase, Phase::Creating | Phase::Collecting),
            },
            crate::recipe::Part {
                name: "voter",
                meaning: "a site that has voted and not yet decided",
                played: |_, state| state.phase == Phase::Voting,
            },
        ]
    }

    fn is_waiting(&self, state: &State) -> bool {
        matches!(
            state.phase,
            Phase::Collecting | Phase::AwaitingTx | Phase::Voting
        )
    }

    fn directory(&self) -> &Path {
        &self.app
    }

    fn claims(&self, _state: &State, _name: &str) -> bool {
        false
    }
}

/// A command in a trace: the name scenario scripts give it.
impl std::fmt::Display for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(crate::catalogued::command_name::<TwoPhaseCommit>(self))
    }
}

impl Catalogued for TwoPhaseCommit {
    /// Once its library opened a new session a participant that had not
    /// decided takes its part up again ([`TwoPhaseCommit::renewed`]).
    const RENEWS: bool = true;
    const NAME: &'static str = "two_phase_commit";
    const DOCS: Docs = Docs {
        summary: "two-phase commit: a coordinator creates /tx and a node per site, sites vote in their nodes and decide from all votes",
        variants: &[
            ("reference", "the seeds' commit, every site deciding from every vote"),
            ("ephemeral_sites", "sites' nodes are ephemeral: a vanished node is an abort vote"),
            ("coordinator_notified", "only the coordinator collects the votes and publishes the outcome"),
        ],
        commands: &[
            ("coordinate", "create the transaction's nodes (and, notified, collect and publish)"),
            ("vote_commit", "take part as a site and vote commit; block until decided"),
            ("vote_abort", "take part as a site and vote abort; block until decided"),
        ],
        group: &[
            &["coordinate"],
            &["vote_commit"],
            &["vote_commit"],
        ],
    };
    type Variant = Knobs;
    const VARIANTS: &'static [(&'static str, Knobs)] = &[
        ("reference", Knobs::REFERENCE),
        ("ephemeral_sites", Knobs::EPHEMERAL_SITES),
        ("coordinator_notified", Knobs::COORDINATOR_NOTIFIED),
    ];
    const COMMANDS: &'static [(&'static str, Command)] = &[
        ("coordinate", Command::Coordinate),
        ("vote_commit", Command::Vote(true)),
        ("vote_abort", Command::Vote(false)),
    ];

    /// The sites are the clients whose script votes.
    type Params = NoParams;

    fn build(knobs: Knobs, _params: &NoParams, scripts: &[Vec<Command>]) -> TwoPhaseCommit {
        let sites = scripts
            .iter()
            .enumerate()
            .filter(|(_, script)| script.iter().any(|c| matches!(c, Command::Vote(_))))
            .fold(0u8, |sites, (client, _)| sites | 1 << client);
        TwoPhaseCommit::new(knobs, sites)
    }

    /// One coordinator and at least one site; each client either coordinates
    /// or votes, once.
    fn check_scripts(scripts: &[Vec<Command>]) -> Result<(), String> {
        let expected =
            "expected exactly one client whose script is [\"coordinate\"] and at least one \
                        whose script is [\"vote_commit\"] or [\"vote_abort\"]";
        for (client, script) in scripts.iter().enumerate() {
            if script.len() != 1 {
                return Err(format!(
                    "client {client} has {} commands; {expected}",
                    script.len()
                ));
            }
        }
        let coordinators = scripts
            .iter()
            .filter(|script| script[0] == Command::Coordinate)
            .count();
        let sites = scripts.len() - coordinators;
        if coordinators != 1 {
            return Err(format!("{coordinators} coordinators; {expected}"));
        }
        if sites == 0 {
            return Err(format!("no site; {expected}"));
        }
        Ok(())
    }

    fn properties() -> Vec<Promise<TwoPhaseCommit>> {
        vec![
            Promise::always(
                "agreement",
                "no two participants decide differently",
                agreement,
                agreement_broken,
            ),
            Promise::always(
                "validity",
                "a participant decides commit only if every site voted commit",
                validity,
                validity_broken,
            ),
            Promise::always(
                "termination",
                "once nothing but a fault can happen and no site failed, every site has decided",
                termination,
                termination_broken,
            ),
            Promise::always(
                "live_sites_decide",
                "once nothing but a fault can happen, every site that has not failed has decided",
                live_sites_decide,
                live_sites_decide_broken,
            ),
            Promise::sometimes(
                "someone_committed",
                "someone decided commit (agreement is not vacuous)",
                someone_committed,
            ),
            Promise::sometimes(
                "someone_aborted",
                "someone decided abort (validity is not vacuous)",
                someone_aborted,
            ),
            Promise::sometimes(
                "all_sites_decided",
                "every site decided (termination is not vacuous)",
                all_sites_decided,
            ),
            Promise::sometimes(
                "failure_detected",
                "a site's failure was taken as its abort vote",
                failure_detected,
            ),
        ]
    }
}

type Check = WorldState<State, Ledger>;

/// A site that has not failed: its process runs (a quiescent state has no
/// paused process) and its session is alive on the server. A site whose
/// process crashed, or whose session the server expired, has failed.
pub fn site_alive(state: &Check, site: ClientId) -> bool {
    state.is_live(site)
}

fn sites(world: &World<TwoPhaseCommit>) -> impl Iterator<Item = ClientId> + '_ {
    (0..world.clients()).filter(|site| world.shared().sites & (1 << site) != 0)
}

/// Whether any process of `client` decided (a restarted site's predecessor
/// counts: what it decided was decided).
fn decided(state: &Check, client: ClientId) -> bool {
    let decisions = &state.history.log.decisions;
    (decisions.commit | decisions.abort) & (1 << client) != 0
}

/// Whether the process `client` runs now has decided: what a site that must
/// not block is judged on, since a restarted site's predecessor's decision
/// does not unblock it.
fn decided_now(state: &Check, client: ClientId) -> bool {
    state.processes[client].recipe.decision.is_some()
}

/// Agreement: no two participants decide differently.
pub fn agreement(_: &World<TwoPhaseCommit>, state: &Check) -> bool {
    let decisions = &state.history.log.decisions;
    decisions.commit == 0 || decisions.abort == 0
}

/// Validity: a participant decides commit only if every site voted commit
/// (the applications' choices, whatever reached the server).
pub fn validity(world: &World<TwoPhaseCommit>, state: &Check) -> bool {
    let history = &state.history;
    history.log.decisions.commit == 0 || world.shared().sites & !history.log.votes.commit == 0
}

/// Termination: where nothing but a fault can happen, once the transaction
/// exists (the coordinator created it) and no site failed ([`site_alive`]
/// for every site), every site has decided. The coordinator may fail.
/// Checked on quiescent states, soundly, for the reason
/// [`crate::properties::no_orphan_no_deadlock`] gives.
pub fn termination(world: &World<TwoPhaseCommit>, state: &Check) -> bool {
    if !world.is_quiescent(state) || !state.net.store.exists(&world.shared().tx) {
        return true;
    }
    let no_site_failed = sites(world).all(|site| site_alive(state, site));
    !no_site_failed || sites(world).all(|site| decided_now(state, site))
}

/// The blocking question: where nothing but a fault can happen, once the
/// transaction exists, every site that has not failed has decided, even if
/// another site failed.
pub fn live_sites_decide(world: &World<TwoPhaseCommit>, state: &Check) -> bool {
    if !world.is_quiescent(state) || !state.net.store.exists(&world.shared().tx) {
        return true;
    }
    sites(world)
        .filter(|&site| site_alive(state, site))
        .all(|site| decided_now(state, site))
}

/// Someone decided commit (the partner of agreement).
pub fn someone_committed(_: &World<TwoPhaseCommit>, state: &Check) -> bool {
    state.history.log.decisions.commit != 0
}

/// Someone decided abort (the partner of validity).
pub fn someone_aborted(_: &World<TwoPhaseCommit>, state: &Check) -> bool {
    state.history.log.decisions.abort != 0
}

/// Every site decided (the partner of termination).
pub fn all_sites_decided(world: &World<TwoPhaseCommit>, state: &Check) -> bool {
    sites(world).all(|site| decided(state, site))
}

/// A failure decided the transaction: someone decided abort although no site
/// voted abort (the partner of live sites deciding: a site's failure was
/// detected and taken as its abort vote).
pub fn failure_detected(_: &World<TwoPhaseCommit>, state: &Check) -> bool {
    state.history.log.decisions.abort != 0 && state.history.log.votes.abort == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule on every group of up to four sites and every split of the
    /// votes known: abort on any abort in the group, commit when the whole
    /// group voted commit, else wait.
    #[test]
    fn outcome_on_every_group_and_vote() {
        let mut cases = 0;
        for group in 1u8..16 {
            for commits in 0u8..16 {
                for aborts in (0u8..16).filter(|aborts| aborts & commits == 0) {
                    let expected = if aborts & group != 0 {
                        Some(false)
                    } else if commits & group == group {
                        Some(true)
                    } else {
                        None
                    };
                    assert_eq!(outcome(group, commits, aborts), expected);
                    cases += 1;
                }
            }
        }
        assert_eq!(cases, 15 * 81);
        assert_eq!(outcome(0, 0, 0), None, "no group, no decision");
        assert_eq!(
            outcome(0b010, 0b111, 0),
            Some(true),
            "votes outside count for nothing"
        );
        assert_eq!(outcome(0b010, 0b010, 0b100), Some(true));
    }

    #[test]
    fn votes_and_groups_read_back() {
        assert_eq!(parse_vote(Some(COMMIT)), Some(true));
        assert_eq!(parse_vote(Some(ABORT)), Some(false));
        assert_eq!(parse_vote(None), None);
        assert_eq!(parse_vote(Some(b"s_1")), None);
        assert_eq!(group_bytes(0b110), b"s_1,s_2");
        assert_eq!(parse_group(b"s_1,s_2"), Some(0b110));
        assert_eq!(parse_group(COMMIT), None);
        assert_eq!(parse_group(b"s_9"), None);
        assert_eq!(site_of("s_3"), Some(3));
        assert_eq!(site_of("Tx"), None);
    }
}

/// The clients of `mask`, in words: `c0 and c2`.
fn listed(world: &World<TwoPhaseCommit>, mask: u8) -> String {
    let clients: Vec<String> = (0..world.clients())
        .filter(|c| mask & (1 << c) != 0)
        .map(|c| format!("c{c}"))
        .collect();
    crate::properties::and_list(&clients)
}

/// The sites that have not decided (only the live ones if `alive_only`),
/// each with its phase.
fn undecided(
    world: &World<TwoPhaseCommit>,
    state: &WorldState<State, Ledger>,
    alive_only: bool,
) -> String {
    let sites: Vec<String> = sites(world)
        .filter(|&site| !decided_now(state, site) && (!alive_only || site_alive(state, site)))
        .map(|site| format!("c{site} ({})", state.processes[site].recipe))
        .collect();
    crate::properties::and_list(&sites)
}

/// Why `agreement` is broken: who decided what.
fn agreement_broken(world: &World<TwoPhaseCommit>, run: Run<'_, TwoPhaseCommit>) -> Option<String> {
    let decisions = &run.last().history.log.decisions;
    Some(format!(
        "{} decided commit and {} decided abort",
        listed(world, decisions.commit),
        listed(world, decisions.abort)
    ))
}

/// Why `validity` is broken: who decided commit, and who never voted it.
fn validity_broken(world: &World<TwoPhaseCommit>, run: Run<'_, TwoPhaseCommit>) -> Option<String> {
    let log = &run.last().history.log;
    Some(format!(
        "{} decided commit, but {} never voted commit",
        listed(world, log.decisions.commit),
        listed(world, world.shared().sites & !log.votes.commit)
    ))
}

/// Why `termination` is broken: who never decided.
fn termination_broken(
    world: &World<TwoPhaseCommit>,
    run: Run<'_, TwoPhaseCommit>,
) -> Option<String> {
    Some(format!(
        "nothing but a fault can happen, no site failed, and {} never decided",
        undecided(world, run.last(), false)
    ))
}

/// Why `live_sites_decide` is broken: which live sites are blocked.
fn live_sites_decide_broken(
    world: &World<TwoPhaseCommit>,
    run: Run<'_, TwoPhaseCommit>,
) -> Option<String> {
    Some(format!(
        "nothing but a fault can happen and {}, alive, never decided: blocked",
        undecided(world, run.last(), true)
    ))
}

/// The phases by name, in declaration order: what a check's coverage
/// reports ([`Recipe::PHASES`]).
const PHASES: [&str; 9] = [
    "Idle",
    "Creating",
    "Collecting",
    "Coordinated",
    "AwaitingTx",
    "ReadingTx",
    "Voting",
    "Decided",
    "Dead",
];
