//! Leader election (seed 001 "Leader Election", the reference; seed 000 for
//! the variant its text describes).
//!
//! To volunteer to be a leader ([`Command::Volunteer`]):
//!
//! 1. Create znode z with path `ELECTION/guid-n_` with both SEQUENCE and
//!    EPHEMERAL flags (the contender's step 1, with the lock's GUID recovery).
//! 2. Let C be the children of ELECTION, and i be the sequence number of z.
//! 3. Watch for changes on `ELECTION/guid-n_j`, where j is the largest
//!    sequence number such that j < i and n_j is a znode in C ([`decide`]).
//!
//! Upon receiving a notification of znode deletion:
//!
//! 1. Let C be the new set of children of ELECTION.
//! 2. If z is the smallest node in C, then execute the leader procedure
//!    ([`Decision::Holds`]: the client believes it leads).
//! 3. Otherwise, watch for changes on `ELECTION/guid-n_j`, where j is the
//!    largest sequence number such that j < i and n_j is a znode in C.
//!
//! These are the contender's steps ([`super::contender`]) with the lock's rule
//! on `n_` names; what is the election's own is its rules, the
//! acknowledgement, and its properties.
//!
//! The seeds' note: "the znode having no preceding znode on the list of
//! children does not imply that the creator of this znode is aware that it is
//! the current leader. Applications may consider creating a separate znode to
//! acknowledge that the leader has executed the leader procedure."
//! [`Command::Acknowledge`] does that: the leader creates the ephemeral
//! [`ACK`] znode holding its node's name (after a lost reply, a NODEEXISTS
//! whose data is its own name is its own acknowledgement; another leader's
//! is waited out). [`Command::Resign`] deletes the acknowledgement, then the
//! node.
//!
//! Variants are presets of three knobs ([`Knobs`]), which a scenario may
//! turn one by one (`[knobs]`, per client in `[[client]]`):
//! - `guid`: the reference above;
//! - `watch_smallest` (`watches = "smallest_below"`): seed 000's text, "j is
//!   the smallest sequence number such that j < i" ([`decide_smallest`]);
//! - `watch_all` (`watches = "leader"`): the seeds' "trivial solution":
//!   every process watches the current smallest znode, the leader's
//!   ([`decide_leader`]). The two rules are the same function (the smallest
//!   j < i *is* the smallest node), which the tests prove and the scenarios'
//!   equal state counts show;
//! - `careless_resign` (`resigns = "node_first"`): the reference, but
//!   resigning deletes the node before the acknowledgement;
//! - `careless_close` (`on_close = "forget"`): the reference, but a latch
//!   closed while its create is in flight (or its GUID recovery) forgets the
//!   attempt, and the node the server creates stays: Curator's callback
//!   without its check of `CLOSED` (see below). A node it knows it deletes.
//!
//! Every setting is a coherent election: the three knobs are about separate
//! moments (waiting, resigning, closing) and none reads another.
//!
//! Closing ([`Command::Close`], Curator's `LeaderLatch.close()`, kazoo's
//! `Election.cancel()`): the application may close the latch at any moment,
//! from another thread, while its `volunteer` is pending. A leader resigns;
//! a pending volunteer gives up its node: deleted at once if the client
//! knows its name, else as soon as the create's reply (or the GUID recovery
//! of a lost one) names it. Curator's `LeaderLatch.reset()` does the same in
//! its create callback: `setNode(event.getName())`, then `if ( state.get()
//! == State.CLOSED ) setNode(null)`, which deletes the node. An
//! acknowledgement in progress is the application's own call: `close` waits
//! for it to return.

use std::sync::Arc;

use super::contender::{decide_by, sequence_after, Contender, Pick};
pub use super::contender::{Decision, Phase};
use crate::catalogued::{Catalogued, Docs, NoParams};
use crate::client::SessionEvent;
use crate::properties::Promise;
use crate::recipe::{Effects, Incarnation, Input, Recipe, Role, Token};
use crate::store::{
    data, CreateMode, ErrorCode, EventType, Op, OpResult, Path, Response, ANY_VERSION,
};
use crate::world::{Run, World, WorldState};

/// The acknowledgement znode a leader creates once it has executed the leader
/// procedure.
pub const ACK: &str = "/leader";

crate::knob_value! {
    /// Which node a volunteer watches while it waits.
    pub enum WatchesFor {
        /// the next lower node, `j` the largest sequence number below its own: one deletion wakes one volunteer (the reference)
        Next = "next",
        /// seed 000's text: the node of the smallest sequence number below its own
        SmallestBelow = "smallest_below",
        /// the seeds' "trivial solution": the current leader's node, the smallest: the same rule as `smallest_below`, told otherwise
        Leader = "leader",
    }
}

crate::knob_value! {
    /// What a leader that acknowledged deletes first when it resigns.
    pub enum ResignsBy {
        /// the acknowledgement, then its node: no other leader can acknowledge while its own acknowledgement stands (the reference)
        AckFirst = "ack_first",
        /// its node, then the acknowledgement: the next leader may find the old acknowledgement still there
        NodeFirst = "node_first",
    }
}

crate::knob_value! {
    /// What closing the latch does while its create (or the recovery of a lost one) is in flight.
    pub enum OnClose {
        /// deletes the node as soon as the reply (or the recovery) names it (the reference; Curator's check of `CLOSED` in its create callback)
        Delete = "delete",
        /// forgets the attempt: the node the server creates stays as long as the session (Curator's callback without that check)
        Forget = "forget",
    }
}

crate::knobs! {
    /// The election's knobs: each a way its seeds and libraries differ.
    /// A variant is a preset of them ([`Knobs::GUID`] and the others).
    pub struct Knobs {
        /// Which node a volunteer watches while it waits.
        watches: WatchesFor,
        /// What a leader that acknowledged deletes first when it resigns.
        resigns: ResignsBy,
        /// What closing the latch does while its create is in flight.
        on_close: OnClose,
    }
}

impl Knobs {
    /// The reference: see the module's documentation.
    pub const GUID: Knobs = Knobs {
        watches: WatchesFor::Next,
        resigns: ResignsBy::AckFirst,
        on_close: OnClose::Delete,
    };
    pub const WATCH_SMALLEST: Knobs = Knobs {
        watches: WatchesFor::SmallestBelow,
        ..Knobs::GUID
    };
    pub const WATCH_ALL: Knobs = Knobs {
        watches: WatchesFor::Leader,
        ..Knobs::GUID
    };
    pub const CARELESS_RESIGN: Knobs = Knobs {
        resigns: ResignsBy::NodeFirst,
        ..Knobs::GUID
    };
    pub const CARELESS_CLOSE: Knobs = Knobs {
        on_close: OnClose::Forget,
        ..Knobs::GUID
    };
}

/// What the application asks of the election.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Command {
    /// Blocks until the client leads.
    Volunteer,
    /// The leader acknowledges, through the [`ACK`] znode, that it leads.
    Acknowledge,
    /// The leader steps down.
    Resign,
    /// The application closes the latch, even while `volunteer` is pending:
    /// a leader resigns, a volunteer gives up its node.
    Close,
}

/// Where the leader is with its acknowledgement.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ack {
    None,
    /// The create of [`ACK`] sent.
    Creating,
    /// It answered NODEEXISTS: reading whose it is (with a watch).
    Checking,
    /// Another leader's acknowledgement is still there: waiting for it to go.
    Waiting,
    /// Ours is there.
    Done,
    /// Resigning: its delete sent.
    Deleting,
}

/// One client's election state.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct State {
    pub contender: super::contender::State,
    pub ack: Ack,
}

/// The contender's names are renamed; the acknowledgement's stage names
/// nobody.
impl crate::recipe::Symmetric for State {
    fn renamed(&self, renaming: &crate::store::rename::Renaming) -> Option<State> {
        Some(State {
            contender: self.contender.renamed(renaming)?,
            ack: self.ack.clone(),
        })
    }

    fn anonymous(&self) -> u64 {
        self.contender.anonymous() ^ u64::from(self.ack.index()) << 60
    }
}

/// Debug as the trace words it: the explorer and test failures read the same.
impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl std::fmt::Display for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.contender)?;
        if self.ack != Ack::None {
            write!(f, ", ack {:?}", self.ack)?;
        }
        Ok(())
    }
}

/// Leader election under one setting of its knobs.
#[derive(Clone, Debug)]
pub struct Election {
    pub knobs: Knobs,
    contender: Contender,
    ack: Path,
}

impl Election {
    pub fn new(knobs: Knobs) -> Election {
        let rule = match knobs.watches {
            WatchesFor::Next => decide,
            WatchesFor::SmallestBelow => decide_smallest,
            WatchesFor::Leader => decide_leader,
        };
        Election {
            knobs,
            contender: Contender::new("/election", rule),
            ack: Path::new(ACK),
        }
    }

    fn create_ack(&self, state: &mut State, out: &mut Effects) {
        let node = state
            .contender
            .node
            .as_deref()
            .expect("a leader has a node");
        state.ack = Ack::Creating;
        out.send(Op::Create {
            path: self.ack.clone(),
            data: data(node.as_bytes()),
            mode: CreateMode::Ephemeral,
        });
    }

    fn delete_ack(&self, state: &mut State, out: &mut Effects) {
        state.ack = Ack::Deleting;
        out.send(Op::Delete {
            path: self.ack.clone(),
            version: ANY_VERSION,
        });
    }

    fn on_command(&self, me: Incarnation, state: &mut State, command: Command, out: &mut Effects) {
        let contender = &self.contender;
        match command {
            Command::Volunteer => contender.acquire(me, &mut state.contender, Role::Leader, out),
            Command::Acknowledge if state.contender.holds() && state.ack == Ack::None => {
                self.create_ack(state, out)
            }
            Command::Acknowledge => {}
            Command::Resign => self.resign(state, out),
            Command::Close if contender.is_waiting(&state.contender) => {
                let in_flight =
                    matches!(state.contender.phase, Phase::Creating | Phase::Recovering);
                if in_flight && self.knobs.on_close == OnClose::Forget {
                    contender.forget(&mut state.contender, out)
                } else {
                    contender.cancel(&mut state.contender, out)
                }
            }
            Command::Close => self.resign(state, out),
        }
    }

    /// Steps down, if it leads (or led when it was disconnected): deletes
    /// the acknowledgement, then the node.
    fn resign(&self, state: &mut State, out: &mut Effects) {
        let contender = &self.contender;
        if state.ack != Ack::Done {
            return contender.release(&mut state.contender, out);
        }
        if self.knobs.resigns == ResignsBy::NodeFirst {
            contender.release(&mut state.contender, out);
            self.delete_ack(state, out);
        } else {
            self.delete_ack(state, out);
            contender.release(&mut state.contender, out);
        }
    }

    /// A reply about [`ACK`].
    fn on_ack_reply(&self, state: &mut State, op: Op, result: OpResult, out: &mut Effects) {
        let mine = state.contender.node.clone();
        match (&state.ack, &op, result) {
            (Ack::Creating, Op::Create { .. }, Ok(_)) => state.ack = Ack::Done,
            // Lost: it may have been applied. Create again; a NODEEXISTS will
            // say whose it is.
            (Ack::Creating | Ack::Checking | Ack::Deleting, _, Err(ErrorCode::ConnectionLoss)) => {
                out.send(op)
            }
            (Ack::Creating, Op::Create { .. }, Err(ErrorCode::NodeExists)) => {
                state.ack = Ack::Checking;
                out.send(Op::GetData {
                    path: self.ack.clone(),
                    watch: true,
                });
            }
            (Ack::Checking, Op::GetData { .. }, Ok(Response::Data { data, .. })) => {
                let ours = data.as_deref() == mine.as_deref().map(str::as_bytes);
                state.ack = if ours { Ack::Done } else { Ack::Waiting };
            }
            // Gone between the create and the read: try again, if we lead.
            (Ack::Checking, Op::GetData { .. }, Err(ErrorCode::NoNode)) => {
                if state.contender.holds() {
                    self.create_ack(state, out)
                } else {
                    state.ack = Ack::None;
                }
            }
            (Ack::Deleting, Op::Delete { .. }, _) => state.ack = Ack::None,
            // Anything else (the session ended, the leadership was lost on
            // the way): the acknowledgement is not ours to pursue.
            _ => {
                if state.ack != Ack::Done {
                    state.ack = Ack::None;
                }
            }
        }
    }
}

impl Recipe for Election {
    type State = State;
    type Command = Command;
    type Fact = std::convert::Infallible;
    type Log = ();

    const PHASES: &'static [&'static str] = &PHASES;

    fn phases(&self, state: &Self::State) -> u64 {
        1 << state.contender.phase.index()
            | 1 << (super::contender::PHASES.len() as u32 + state.ack.index())
    }

    fn shape(&self, state: &Self::State) -> u64 {
        state.contender.shape() | 1 << (super::contender::PHASES.len() as u32 + state.ack.index())
    }

    /// Its properties read the history, the store, and (in quiescent states
    /// only) whether a client waits and which nodes it claims; it keeps no
    /// log: [`crate::partial_order`] applies.
    fn observed_through_history(&self) -> bool {
        true
    }

    /// As the lock's ([`super::lock::Lock`]): the contender's decisions
    /// read a listing through sequence numbers and GUIDs, and the
    /// acknowledgement's data (a node's name) is renamed with it. Not the
    /// careless settings (`resigns = "node_first"`, `on_close = "forget"`),
    /// which leave a node behind under their GUID.
    fn symmetric(&self) -> bool {
        self.knobs.resigns == ResignsBy::AckFirst && self.knobs.on_close == OnClose::Delete
    }

    /// As the lock's: a contender's names, and an acknowledgement whose
    /// data, a node's name, is compared with the leader's own for
    /// equality.
    fn reads_counters_by_order(&self) -> bool {
        true
    }

    fn init(&self, _me: Incarnation) -> State {
        State {
            contender: super::contender::State::new(Role::Leader),
            ack: Ack::None,
        }
    }

    fn handle(&self, me: Incarnation, state: &mut State, input: Input<Command>, out: &mut Effects) {
        let contender = &self.contender;
        match input {
            Input::Command(command) => self.on_command(me, state, command, out),
            Input::Reply { op, result } if op.path() == Some(&self.ack) => {
                self.on_ack_reply(state, op, result, out)
            }
            Input::Reply { op, result } => {
                contender.on_reply(me, &mut state.contender, op, result, out)
            }
            Input::Watch(event) if event.path == self.ack => {
                // Another leader's acknowledgement went: ours can go up, if we
                // still lead.
                if state.ack == Ack::Waiting && event.kind == EventType::NodeDeleted {
                    if state.contender.holds() {
                        self.create_ack(state, out);
                    } else {
                        state.ack = Ack::None;
                    }
                }
            }
            Input::Watch(event) => contender.on_watch(&mut state.contender, &event, out),
            Input::Session(event) => {
                if matches!(event, SessionEvent::Expired | SessionEvent::Closed) {
                    state.ack = Ack::None;
                }
                contender.on_session(&mut state.contender, event, out);
            }
        }
    }

    fn waits(&self, state: &State) -> bool {
        self.contender.waits(&state.contender)
    }

    fn wake(&self, _: Incarnation, state: &mut State, out: &mut Effects) {
        self.contender.wake(&mut state.contender, out)
    }

    fn is_busy(&self, state: &State) -> bool {
        self.contender.is_busy(&state.contender)
            || matches!(
                state.ack,
                Ack::Creating | Ack::Checking | Ack::Waiting | Ack::Deleting
            )
    }

    /// `close` interrupts a pending `volunteer`, not an acknowledgement.
    fn interrupts(&self, state: &State, command: &Command) -> bool {
        *command == Command::Close && self.contender.is_busy(&state.contender)
    }

    fn parts() -> &'static [crate::recipe::Part<Election>] {
        &[
            crate::recipe::Part {
                name: "leader",
                meaning: "a client that believes it leads",
                played: |_, state| state.contender.holds(),
            },
            crate::recipe::Part {
                name: "acknowledged",
                meaning: "a leader whose acknowledgement node is in place",
                played: |_, state| state.contender.holds() && state.ack == Ack::Done,
            },
        ]
    }

    fn is_waiting(&self, state: &State) -> bool {
        self.contender.is_waiting(&state.contender) || state.ack == Ack::Waiting
    }

    fn directory(&self) -> &Path {
        &self.contender.dir
    }

    fn claims(&self, state: &State, name: &str) -> bool {
        self.contender.claims(&state.contender, name)
    }
}

/// A command in a trace: the name scenario scripts give it.
impl std::fmt::Display for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(crate::catalogued::command_name::<Election>(self))
    }
}

impl Catalogued for Election {
    /// On `Expired` it gives up what it held or waited for; once its library
    /// opened a new session the application may ask again, under a GUID of
    /// that session ([`super::contender::Contender::session_guid`]).
    const RENEWS: bool = true;
    const WAITS: bool = true;
    const NAME: &'static str = "election";
    const DOCS: Docs = Docs {
        summary: "leader election: sequential ephemeral nodes under /election, the smallest leads, the leader may acknowledge in /leader",
        variants: &[
            ("guid", "the reference: each watches the next lower node, with GUID recovery"),
            ("watch_smallest", "seed 000's text: watch the smallest node below"),
            ("watch_all", "every process watches the current leader's node"),
            ("careless_resign", "resigning deletes the node before the acknowledgement"),
            ("careless_close", "closing while the create is in flight forgets the attempt and leaves the node"),
        ],
        commands: &[
            ("volunteer", "block until the client leads"),
            ("acknowledge", "the leader acknowledges, through the /leader znode, that it leads"),
            ("resign", "the leader steps down"),
            ("close", "close the latch, even while volunteer is pending: a leader resigns, a volunteer gives up its node"),
        ],
        group: &[
            &["volunteer", "acknowledge", "resign"],
            &["volunteer", "acknowledge", "resign"],
        ],
    };
    type Variant = Knobs;
    const VARIANTS: &'static [(&'static str, Knobs)] = &[
        ("guid", Knobs::GUID),
        ("watch_smallest", Knobs::WATCH_SMALLEST),
        ("watch_all", Knobs::WATCH_ALL),
        ("careless_resign", Knobs::CARELESS_RESIGN),
        ("careless_close", Knobs::CARELESS_CLOSE),
    ];
    const COMMANDS: &'static [(&'static str, Command)] = &[
        ("volunteer", Command::Volunteer),
        ("acknowledge", Command::Acknowledge),
        ("resign", Command::Resign),
        ("close", Command::Close),
    ];

    type Params = NoParams;

    fn build(knobs: Knobs, _params: &NoParams, _scripts: &[Vec<Self::Command>]) -> Election {
        Election::new(knobs)
    }

    fn properties() -> Vec<Promise<Election>> {
        vec![
            Promise::mutual_exclusion().named("one_leader", "at most one client believes it leads"),
            Promise::herd_avoidance(),
            Promise::always(
                "leader_exists",
                "once nothing but a fault can happen, the owner of the smallest live node \
                 believes it leads",
                leader_exists,
                no_leader,
            ),
            Promise::always(
                "acknowledged_leader_is_smallest",
                "while the acknowledgement exists, its creator owns the smallest live election \
                 node",
                acknowledged_leader_is_smallest,
                acknowledged_not_smallest,
            ),
            Promise::someone_acquired().named(
                "someone_elected",
                "some client was elected (one leader is not vacuous)",
            ),
            Promise::waiter_woken(),
            Promise::sometimes(
                "leader_acknowledged",
                "a leader acknowledged its leadership (the acknowledgement's truth is not \
                 vacuous)",
                leader_acknowledged,
            ),
        ]
    }
}

/// The live election nodes (owned by a session the server has not ended),
/// smallest sequence number first, with their owners: the nodes the recipe
/// reads as election nodes (named with `n_`), each by the number the server
/// gave it ([`crate::store::Store::sequence`]), never by the number in its
/// name. A node of the starting tree named by the scenario has no number
/// the server gave, and is left out (plant it `sequential`).
fn live_nodes(world: &World<Election>, state: &WorldState<State>) -> Vec<(Token, Arc<str>, i64)> {
    let store = &state.net.store;
    let dir = world.directory();
    let mut nodes: Vec<(Token, Arc<str>, i64)> = store
        .children(dir)
        .into_iter()
        .filter(|name| name.contains(super::contender::marker(crate::recipe::Role::Leader)))
        .filter_map(|name| {
            let node = dir.child(&name);
            let number = store.sequence(&node)?.number;
            let owner = store.stat(&node)?.ephemeral_owner;
            store
                .is_alive(owner)
                .then_some((Token::from(number), name, owner))
        })
        .collect();
    nodes.sort();
    nodes
}

/// After faults stop, a leader exists: in a state where nothing but a fault
/// can happen, the owner of the smallest live node believes it leads (or no
/// live node is left). Checked on quiescent states, soundly, for the reason
/// [`properties::no_orphan_no_deadlock`] gives.
pub fn leader_exists(world: &World<Election>, state: &WorldState<State>) -> bool {
    if !world.is_quiescent(state) {
        return true;
    }
    let Some((_, _, owner)) = live_nodes(world, state).into_iter().next() else {
        return true;
    };
    world
        .client_of(state, owner)
        .is_some_and(|client| state.history.holding[client].is_some())
}

/// Whoever reads the acknowledgement learns the truth: while [`ACK`] exists,
/// the session that created it owns the smallest live election node.
pub fn acknowledged_leader_is_smallest(world: &World<Election>, state: &WorldState<State>) -> bool {
    let Some(stat) = state.net.store.stat(&world.shared().ack) else {
        return true;
    };
    live_nodes(world, state)
        .first()
        .is_some_and(|(_, _, owner)| *owner == stat.ephemeral_owner)
}

/// A leader acknowledged (the partner of the acknowledgement's truth).
pub fn leader_acknowledged(world: &World<Election>, state: &WorldState<State>) -> bool {
    state.net.store.exists(&world.shared().ack)
}

/// The sequence number of an election node name: what follows its last `n_`.
pub fn sequence(name: &str) -> Option<Token> {
    sequence_after(name, "n_")
}

/// The reference's steps 2 and 3 (seed 001): lead if our node is the
/// smallest, else watch the largest j < i. The lock's rule on `n_` names.
pub fn decide(children: &[Arc<str>], mine: &str) -> Decision {
    decide_by(children, mine, parse, |_, _| true, Pick::Next)
}

/// Seed 000's text: watch the *smallest* j < i.
pub fn decide_smallest(children: &[Arc<str>], mine: &str) -> Decision {
    decide_by(children, mine, parse, |_, _| true, Pick::Lowest)
}

/// The "trivial solution": everyone watches the current smallest znode (the
/// leader's), whatever its own place. Written from the seed's words, not
/// through [`decide_by`], so that the tests compare two formulations.
pub fn decide_leader(children: &[Arc<str>], mine: &str) -> Decision {
    if sequence(mine).is_none() || !children.iter().any(|name| &**name == mine) {
        return Decision::Missing;
    }
    let smallest = children
        .iter()
        .filter_map(|name| sequence(name).map(|sequence| (sequence, name)))
        .min_by_key(|(sequence, _)| *sequence)
        .map(|(_, name)| name.clone())
        .expect("our node is among them");
    if &*smallest == mine {
        Decision::Holds
    } else {
        Decision::Watch(smallest)
    }
}

fn parse(name: &str) -> Option<(Role, Token)> {
    sequence(name).map(|sequence| (Role::Leader, sequence))
}

#[cfg(test)]
mod tests {
    use super::super::contender::permutations;
    use super::*;

    fn names(list: &[&str]) -> Vec<Arc<str>> {
        list.iter().map(|name| Arc::from(*name)).collect()
    }

    /// Every order of every subset of five nodes, each present node ours: the
    /// reference watches the next node down, seed 000's rule and the trivial
    /// solution both watch the smallest, and those two never differ.
    #[test]
    fn the_rules_on_every_subset_and_order() {
        let all = [
            "c3-n_0000000000",
            "c0-n_0000000001",
            "c4-n_0000000002",
            "c1-n_0000000003",
            "c2-n_0000000004",
        ];
        let mut cases = 0;
        for mask in 1u32..32 {
            let present: Vec<&str> = (0..5)
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| all[i])
                .collect();
            for order in permutations(&present) {
                let children = names(&order);
                for (rank, mine) in present.iter().enumerate() {
                    let (next, smallest) = if rank == 0 {
                        (Decision::Holds, Decision::Holds)
                    } else {
                        (
                            Decision::Watch(Arc::from(present[rank - 1])),
                            Decision::Watch(Arc::from(present[0])),
                        )
                    };
                    assert_eq!(decide(&children, mine), next, "{order:?} {mine}");
                    assert_eq!(decide_smallest(&children, mine), smallest);
                    assert_eq!(decide_leader(&children, mine), smallest);
                    cases += 1;
                }
            }
        }
        // The sum over subsets of size k of k! orders times k choices of ours.
        assert_eq!(cases, 1305);
    }

    #[test]
    fn the_rules_report_our_node_missing_and_ignore_strangers() {
        let children = names(&["c1-n_0000000001", "leader"]);
        for rule in [decide, decide_smallest, decide_leader] {
            assert_eq!(rule(&children, "c0-n_0000000000"), Decision::Missing);
            assert_eq!(rule(&children, "c1-n_0000000001"), Decision::Holds);
        }
    }
}

/// Who owns `session`, in a violation's words.
fn owner(world: &World<Election>, state: &WorldState<State>, session: i64) -> String {
    match world.client_of(state, session) {
        Some(c) => format!("c{c}"),
        None => format!("a crashed process's session {session:#x}"),
    }
}

/// Why `leader_exists` is broken: whose is the smallest live node.
fn no_leader(world: &World<Election>, run: Run<'_, Election>) -> Option<String> {
    let state = run.last();
    let (_, name, session) = live_nodes(world, state).into_iter().next()?;
    let believes = match world.client_of(state, session) {
        Some(c) => format!(
            ", which does not believe it leads ({})",
            state.processes[c].recipe
        ),
        None => ", which will never act on it".into(),
    };
    Some(format!(
        "nothing but a fault can happen and no one leads: the smallest live node \
         {}/{name} is {}'s{believes}",
        world.directory(),
        owner(world, state, session)
    ))
}

/// Why `acknowledged_leader_is_smallest` is broken: whom the acknowledgement
/// names, and whose is the smallest live node.
fn acknowledged_not_smallest(world: &World<Election>, run: Run<'_, Election>) -> Option<String> {
    let state = run.last();
    let ack = state.net.store.stat(&world.shared().ack)?.ephemeral_owner;
    let smallest = match live_nodes(world, state).into_iter().next() {
        Some((_, name, session)) => format!(
            "{}/{name} is {}'s",
            world.directory(),
            owner(world, state, session)
        ),
        None => "no live election node is left".into(),
    };
    Some(format!(
        "the acknowledgement {} says {} leads, but {smallest}",
        world.shared().ack,
        owner(world, state, ack)
    ))
}

/// The election's phases: the contender's, then the acknowledgement's.
const PHASES: [&str; 17] = super::contender::phases_and([
    "ack None",
    "ack Creating",
    "ack Checking",
    "ack Waiting",
    "ack Done",
    "ack Deleting",
]);

impl Ack {
    /// This phase's place among the acknowledgement's in [`PHASES`].
    fn index(&self) -> u32 {
        match self {
            Ack::None => 0,
            Ack::Creating => 1,
            Ack::Checking => 2,
            Ack::Waiting => 3,
            Ack::Done => 4,
            Ack::Deleting => 5,
        }
    }
}
