//! Group membership (seed 000, "Out of the Box Applications: Name Service,
//! Configuration, Group Membership").
//!
//! The seed's words: "The group is represented by a node. Members of the
//! group create ephemeral nodes under the group node. Nodes of the members
//! that fail abnormally will be removed automatically when ZooKeeper detects
//! the failure." What a member does with that, and where:
//!
//! 1. Join ([`Command::Join`]): create the ephemeral node `/group/<guid>`
//!    ([`Incarnation::guid`]). After CONNECTIONLOSS it creates again; a
//!    NODEEXISTS is its own node (the name is its process's GUID). The
//!    server's applying the create is the fact [`Created`]
//!    ([`Recipe::served`]), whether or not the member hears back; the
//!    world keeps each node the server created, and by whom ([`Group`]).
//! 2. Once its node is confirmed, list the group with a watch
//!    (`getChildren`), and keep the names as its view.
//! 3. On every `NodeChildrenChanged`, list again with a watch: a watch is
//!    one-shot, so this is what keeps the view following the group. After a
//!    disconnection the client library sets the watch again (SetWatches) and
//!    fires it if the group changed meanwhile.
//! 4. When its session ends the member knows it is no longer in the group:
//!    its view is emptied.
//! 5. Renewed sessions (`[library] on_expiry = "renew"`, as Curator's and
//!    kazoo's libraries do): once its library has opened a new session the
//!    member joins again on its own, as Curator's `PersistentNode` does (with
//!    kazoo the application calls `join` from its connection listener). It names its node after the session as well as the process
//!    (`c0s1` in its second session), so the node of its old session, which
//!    the server keeps until it times that session out, is not taken for its
//!    own: a NODEEXISTS is always this session's node. This is what Curator's
//!    `PersistentNode` gets by checking a found node's `ephemeralOwner`.
//!
//! Variants are presets of four knobs ([`Knobs`]), which a scenario may turn
//! one by one (`[knobs]`, per client in `[[client]]`):
//! - `reference`: the above;
//! - `one_shot` (`watches = "first_listing"`): lists again on a notification but without a watch, so it
//!   hears of the first change only;
//! - `persistent` (`nodes = "persistent"`): members create persistent nodes, so a member that fails
//!   stays in the group forever;
//! - `optimistic` (`lists_itself = "as_it_creates"`): the member puts itself in its view as it sends its
//!   create, before the server has applied it;
//! - `process_guid` (`guid_per_session = false`): the node is named after the process alone, for the life
//!   of the process (kazoo's `Party`, whose name is a uuid of the party
//!   object, and which takes NODEEXISTS for "already joined"). Re-joining in a
//!   renewed session while the old session's node is still there, it believes
//!   it joined; the node goes when the server times the old session out, and
//!   the member, believing itself in the group, is in no one's view.
//!
//! The knobs are about separate things (what a listing watches, what node a
//! member leaves, when it counts itself in, what it names its node), so
//! every combination is a coherent member.

use std::sync::Arc;

use super::joined::{Joined, Joins};
use crate::catalogued::{Catalogued, Docs, NoParams};
use crate::client::SessionEvent;
use crate::properties::{self, Promise};
use crate::recipe::{ClientId, Log, Witness};
use crate::recipe::{Effects, Incarnation, Input, Recipe};
use crate::store::{CreateMode, ErrorCode, EventType, Op, OpResult, Path, Response};
use crate::world::{Run, World, WorldState};

/// The group node, which the world creates.
pub const GROUP: &str = "/group";

crate::knob_value! {
    /// Which listings of the group set a watch.
    pub enum Watches {
        /// every listing: it lists again with a watch on every change (the reference)
        EveryListing = "every_listing",
        /// the first only: it lists again on a change without a watch, so it hears of the first change only
        FirstListing = "first_listing",
    }
}

crate::knob_value! {
    /// The node a member creates.
    pub enum Nodes {
        /// ephemeral: it goes with the member's session (the reference)
        Ephemeral = "ephemeral",
        /// persistent: a member that fails stays in the group for ever
        Persistent = "persistent",
    }
}

crate::knob_value! {
    /// When a member puts itself in its own view.
    pub enum ListsItself {
        /// when a listing names it, after the server created its node (the reference)
        WhenListed = "when_listed",
        /// as it sends its create, before the server has applied it
        AsItCreates = "as_it_creates",
    }
}

crate::knobs! {
    /// The member's knobs. A variant is a preset of them
    /// ([`Knobs::REFERENCE`] and the others).
    pub struct Knobs {
        /// Which listings of the group set a watch.
        watches: Watches,
        /// The node a member creates.
        nodes: Nodes,
        /// When a member puts itself in its own view.
        lists_itself: ListsItself,
        /// The node's name names the session too, so a renewed session names its node anew (`c0s1`); without it the name is the process's alone (kazoo's `Party`), and NODEEXISTS is taken for "joined".
        guid_per_session: bool,
    }
}

impl Knobs {
    /// The reference: see the module's documentation.
    pub const REFERENCE: Knobs = Knobs {
        watches: Watches::EveryListing,
        nodes: Nodes::Ephemeral,
        lists_itself: ListsItself::WhenListed,
        guid_per_session: true,
    };
    pub const ONE_SHOT: Knobs = Knobs {
        watches: Watches::FirstListing,
        ..Knobs::REFERENCE
    };
    pub const PERSISTENT: Knobs = Knobs {
        nodes: Nodes::Persistent,
        ..Knobs::REFERENCE
    };
    pub const OPTIMISTIC: Knobs = Knobs {
        lists_itself: ListsItself::AsItCreates,
        ..Knobs::REFERENCE
    };
    pub const PROCESS_GUID: Knobs = Knobs {
        guid_per_session: false,
        ..Knobs::REFERENCE
    };
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Command {
    Join,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    Idle,
    /// The create of its node sent.
    Creating,
    /// Its node is there; listing the group.
    Member,
    /// Its session ended.
    Dead,
}

/// One member's state.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct State {
    pub phase: Phase,
    /// The names the member believes make the group, sorted.
    pub view: Vec<Arc<str>>,
    /// A listing removed a name the view had: the member saw someone leave.
    pub dropped: bool,
    /// How many times its library renewed its session.
    pub renewals: u8,
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
        let view: Vec<&str> = self.view.iter().map(|name| &**name).collect();
        write!(f, "{:?} view [{}]", self.phase, view.join(", "))?;
        if self.dropped {
            write!(f, ", saw a leave")?;
        }
        Ok(())
    }
}

/// The view a listing gives: the names, sorted (the server's order is not).
pub fn view_of(names: &[Arc<str>]) -> Vec<Arc<str>> {
    let mut view = names.to_vec();
    view.sort();
    view
}

/// The name of a member's node: its process's GUID, and after a renewal the
/// session's too (`c0s1`) where `guid_per_session` says so.
pub fn node_name(knobs: Knobs, me: Incarnation, state: &State) -> String {
    if knobs.guid_per_session {
        crate::recipe::session_scoped(me.guid(), state.renewals)
    } else {
        me.guid()
    }
}

/// A group member under one setting of its knobs.
#[derive(Clone, Debug)]
pub struct Membership {
    pub knobs: Knobs,
    group: Path,
}

impl Membership {
    pub fn new(knobs: Knobs) -> Membership {
        Membership {
            knobs,
            group: Path::new(GROUP),
        }
    }

    fn create(&self, me: Incarnation, state: &State) -> Op {
        let mode = match self.knobs.nodes {
            Nodes::Ephemeral => CreateMode::Ephemeral,
            Nodes::Persistent => CreateMode::Persistent,
        };
        Op::Create {
            path: self.group.child(&node_name(self.knobs, me, state)),
            data: None,
            mode,
        }
    }

    fn list(&self, watch: bool) -> Op {
        Op::GetChildren {
            path: self.group.clone(),
            watch,
        }
    }

    fn on_reply(&self, state: &mut State, op: Op, result: OpResult, out: &mut Effects<Created>) {
        match (&op, result) {
            (_, Err(ErrorCode::SessionExpired)) => self.end(state),
            (_, Err(ErrorCode::ConnectionLoss)) => out.send(op),
            // Step 1 done: ours now, or by an earlier try whose reply was lost.
            (Op::Create { .. }, Ok(_) | Err(ErrorCode::NodeExists))
                if state.phase == Phase::Creating =>
            {
                state.phase = Phase::Member;
                out.send(self.list(true));
            }
            (Op::GetChildren { .. }, Ok(Response::Children { names, .. }))
                if state.phase == Phase::Member =>
            {
                let view = view_of(&names);
                if state.view.iter().any(|name| !view.contains(name)) {
                    state.dropped = true;
                }
                state.view = view;
            }
            _ => {}
        }
    }

    /// Step 4: out of the group.
    fn end(&self, state: &mut State) {
        state.phase = Phase::Dead;
        state.view.clear();
    }
}

impl Recipe for Membership {
    type State = State;
    type Command = Command;
    type Fact = Created;
    type Log = Group;

    const PHASES: &'static [&'static str] = &PHASES;

    fn phases(&self, state: &Self::State) -> u64 {
        // A unit variant's discriminant is its place in PHASES.
        1 << state.phase as u32
    }

    fn shape(&self, state: &Self::State) -> u64 {
        self.phases(state) | (state.view.len() as u64) << 32 | u64::from(state.dropped) << 48
    }

    fn init(&self, _me: Incarnation) -> State {
        State {
            phase: Phase::Idle,
            view: Vec::new(),
            dropped: false,
            renewals: 0,
        }
    }

    fn handle(
        &self,
        me: Incarnation,
        state: &mut State,
        input: Input<Command>,
        out: &mut Effects<Created>,
    ) {
        match input {
            Input::Command(Command::Join) if state.phase == Phase::Idle => {
                state.phase = Phase::Creating;
                if self.knobs.lists_itself == ListsItself::AsItCreates {
                    state.view = vec![Arc::from(node_name(self.knobs, me, state))];
                }
                out.send(self.create(me, state));
            }
            Input::Command(Command::Join) => {}
            Input::Reply { op, result } => self.on_reply(state, op, result, out),
            Input::Watch(event)
                if event.kind == EventType::NodeChildrenChanged && state.phase == Phase::Member =>
            {
                out.send(self.list(self.knobs.watches == Watches::EveryListing));
            }
            Input::Watch(_) => {}
            Input::Session(SessionEvent::Expired | SessionEvent::Closed) => self.end(state),
            // Step 5: a session of its own again: join again.
            Input::Session(SessionEvent::SyncConnected) if state.phase == Phase::Dead => {
                state.renewals += 1;
                state.phase = Phase::Creating;
                if self.knobs.lists_itself == ListsItself::AsItCreates {
                    state.view = vec![Arc::from(node_name(self.knobs, me, state))];
                }
                out.send(self.create(me, state));
            }
            // The client library re-sends what was lost and sets the watch
            // again on reconnect.
            Input::Session(SessionEvent::Disconnected | SessionEvent::SyncConnected) => {}
        }
    }

    fn is_busy(&self, state: &State) -> bool {
        state.phase == Phase::Creating
    }

    fn parts() -> &'static [crate::recipe::Part<Membership>] {
        &[crate::recipe::Part {
            name: "member",
            meaning: "a client whose member node it knows the server created",
            played: |_, state| state.phase == Phase::Member,
        }]
    }

    fn is_waiting(&self, _state: &State) -> bool {
        false
    }

    fn directory(&self) -> &Path {
        &self.group
    }

    fn claims(&self, state: &State, _name: &str) -> bool {
        state.phase != Phase::Dead
    }

    /// The server created a member's node: it joined.
    fn served(&self, op: &Op, result: &OpResult) -> Option<Created> {
        match (op, result) {
            (Op::Create { path, .. }, Ok(_)) if path.is_child_of(&self.group) => Some(Created {
                name: Arc::from(path.name()),
            }),
            _ => None,
        }
    }
}

/// A command in a trace: the name scenario scripts give it.
impl std::fmt::Display for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(crate::catalogued::command_name::<Membership>(self))
    }
}

impl Catalogued for Membership {
    /// After `Expired` the member is out of the group; once its library opened
    /// a new session it joins again on its own, under a name of that session
    /// ([`node_name`]).
    const RENEWS: bool = true;
    const NAME: &'static str = "membership";
    const DOCS: Docs = Docs {
        summary: "group membership: members create ephemeral nodes under /group and watch the group's children",
        variants: &[
            ("reference", "lists the group with a watch, again on every change"),
            ("one_shot", "lists again on a change but without a watch: hears of the first change only"),
            ("persistent", "members create persistent nodes: a failed member stays forever"),
            ("optimistic", "puts itself in its view before the server applied its create"),
            ("process_guid", "names its node after the process alone and takes NODEEXISTS for joined (kazoo's Party): wrong after a renewal"),
        ],
        commands: &[
            ("join", "create its node and follow the group"),
        ],
        group: &[
            &["join"],
            &["join"],
        ],
    };
    type Variant = Knobs;
    const VARIANTS: &'static [(&'static str, Knobs)] = &[
        ("reference", Knobs::REFERENCE),
        ("one_shot", Knobs::ONE_SHOT),
        ("persistent", Knobs::PERSISTENT),
        ("optimistic", Knobs::OPTIMISTIC),
        ("process_guid", Knobs::PROCESS_GUID),
    ];
    const COMMANDS: &'static [(&'static str, Command)] = &[("join", Command::Join)];

    type Params = NoParams;

    fn build(knobs: Knobs, _params: &NoParams, _scripts: &[Vec<Command>]) -> Membership {
        Membership::new(knobs)
    }

    fn properties() -> Vec<Promise<Membership>> {
        vec![
            Promise::always(
                "views_list_only_joined",
                "no member's view lists a process that never joined",
                views_list_only_joined,
                views_list_only_joined_broken,
            ),
            Promise::always(
                "views_follow_the_group",
                "once nothing but a fault can happen, every live member's view is exactly the \
                 live members",
                views_follow_the_group,
                views_follow_the_group_broken,
            ),
            Promise::sometimes(
                "member_sees_another",
                "some member's view lists another member (views list only joined is not vacuous)",
                member_sees_another,
            ),
            Promise::sometimes(
                "view_dropped_a_member",
                "some member saw another leave (views follow the group is not vacuous)",
                view_dropped_a_member,
            ),
        ]
    }
}

type Check = WorldState<State, Group>;

/// The server created the member node `name` in the group, whether or not
/// its member heard back. A server fact: only [`Recipe::served`] reports it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Created {
    pub name: Arc<str>,
}

/// What the server did to the group: which processes had a node created
/// ([`Joins`]), and every member node it created, by name, with the client
/// whose process it created it for, sorted. The properties read who joined
/// from here, never from the names in a view.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Group {
    pub joins: Joins,
    pub created: Vec<(Arc<str>, ClientId)>,
}

/// Not renamed: its recipe does not say its clients are interchangeable ([`crate::symmetry`]).
impl crate::recipe::Symmetric for Group {}

impl Group {
    /// The client the server created the node `name` for, if it created one.
    pub fn creator(&self, name: &str) -> Option<ClientId> {
        let at = (self.created)
            .binary_search_by(|(known, _)| (**known).cmp(name))
            .ok()?;
        Some(self.created[at].1)
    }
}

impl Log for Group {
    type Fact = Created;

    fn new(clients: usize) -> Group {
        Group {
            joins: Joins::new(clients),
            created: Vec::new(),
        }
    }

    fn record(&mut self, fact: &Created, at: Witness<'_>) {
        self.joins.record(&Joined, at);
        if let Err(place) = (self.created).binary_search_by(|(known, _)| known.cmp(&fact.name)) {
            self.created
                .insert(place, (fact.name.clone(), at.process.client));
        }
    }

    fn tell_served(&self, before: &Group) -> String {
        self.joins.tell_served(&before.joins)
    }
}

/// A live member: its process runs, its session is alive, and the server
/// created its node (it joined).
pub fn live_member(world: &World<Membership>, state: &Check, client: usize) -> bool {
    let me = world.incarnation(state, client);
    state.is_live(client) && state.history.log.joins.has(me)
}

/// No member's view lists a node the server never created: a member that
/// never joined, or not under that name (a renewed session's, before its
/// create was applied).
pub fn views_list_only_joined(_: &World<Membership>, state: &Check) -> bool {
    (state.processes.iter()).all(|process| {
        (process.recipe.view.iter()).all(|name| state.history.log.creator(name).is_some())
    })
}

/// After faults stop the views follow the group: where nothing but a fault
/// can happen, every live member's view is exactly the live members (so it
/// holds no process whose session ended, and misses no one who joined).
/// Checked on quiescent states, soundly, for the reason
/// [`crate::properties::no_orphan_no_deadlock`] gives.
pub fn views_follow_the_group(world: &World<Membership>, state: &Check) -> bool {
    if !world.is_quiescent(state) {
        return true;
    }
    let (live, members) = live_members(world, state);
    live.iter()
        .all(|&client| state.processes[client].recipe.view == members)
}

/// The live members, and the names of their nodes as they name them now,
/// sorted: what every live member's view must be once faults stop.
fn live_members(world: &World<Membership>, state: &Check) -> (Vec<usize>, Vec<Arc<str>>) {
    let live: Vec<usize> = (0..world.clients())
        .filter(|&client| live_member(world, state, client))
        .collect();
    let mut members: Vec<Arc<str>> = live
        .iter()
        .map(|&client| Arc::from(own_name(world, state, client)))
        .collect();
    members.sort();
    (live, members)
}

/// The name `client`'s node has in its current session.
fn own_name(world: &World<Membership>, state: &Check, client: usize) -> String {
    let me = world.incarnation(state, client);
    node_name(
        world.recipe(client).knobs,
        me,
        &state.processes[client].recipe,
    )
}

/// Some member's view lists another member (the partner of listing only
/// those who joined).
pub fn member_sees_another(world: &World<Membership>, state: &Check) -> bool {
    (0..world.clients()).any(|client| {
        (state.processes[client].recipe.view.iter()).any(|name| {
            state
                .history
                .log
                .creator(name)
                .is_some_and(|creator| creator != client)
        })
    })
}

/// Some member's view dropped a name it had listed (the partner of views
/// following the group: someone's leaving was seen).
pub fn view_dropped_a_member(_: &World<Membership>, state: &Check) -> bool {
    state.processes.iter().any(|process| process.recipe.dropped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_view_is_sorted_whatever_the_servers_order() {
        let names: Vec<Arc<str>> = ["c2", "c0", "c1r1"].iter().map(|n| Arc::from(*n)).collect();
        let view = view_of(&names);
        let view: Vec<&str> = view.iter().map(|n| &**n).collect();
        assert_eq!(view, ["c0", "c1r1", "c2"]);
    }
}

/// Why `views_list_only_joined` is broken, in words.
fn views_list_only_joined_broken(
    world: &World<Membership>,
    run: Run<'_, Membership>,
) -> Option<String> {
    let state = run.last();
    let list = |names: &[Arc<str>]| format!("[{}]", names.join(", "));
    let (c, name) = (0..world.clients()).find_map(|c| {
        let never = (state.processes[c].recipe.view.iter())
            .find(|name| state.history.log.creator(name).is_none())?;
        Some((c, never.clone()))
    })?;
    Some(format!(
        "c{c}'s view {} lists {name}, a node the server never created",
        list(&state.processes[c].recipe.view)
    ))
}

/// Why `views_follow_the_group` is broken, in words.
fn views_follow_the_group_broken(
    world: &World<Membership>,
    run: Run<'_, Membership>,
) -> Option<String> {
    let state = run.last();
    let list = |names: &[Arc<str>]| format!("[{}]", names.join(", "));
    let (live, members) = live_members(world, state);
    let wrong: Vec<String> = live
        .iter()
        .filter(|&&c| state.processes[c].recipe.view != members)
        .map(|&c| format!("c{c}'s view is {}", list(&state.processes[c].recipe.view)))
        .collect();
    Some(format!(
        "nothing but a fault can happen and the live members are {}, but {}",
        list(&members),
        properties::and_list(&wrong)
    ))
}

/// The phases by name, in declaration order: what a check's coverage
/// reports ([`Recipe::PHASES`]).
const PHASES: [&str; 4] = ["Idle", "Creating", "Member", "Dead"];
