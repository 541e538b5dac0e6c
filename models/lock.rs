//! The exclusive lock (seed 000 "Locks", seed 001 with its GUID and error
//! handling, seed 002 for try-acquire and the sequencer).
//!
//! Clients wishing to obtain the lock do the following (the numbers are the
//! seeds'; each names the code that does it):
//!
//! 1. Call `create()` with a pathname of `_locknode_/guid-lock-` and the
//!    sequence and ephemeral flags set. The GUID is needed in case the
//!    `create()` result is missed ([`Lock::create`]).
//! 2. Call `getChildren()` on the lock node *without* setting the watch flag
//!    (important, to avoid the herd effect) ([`Lock::list`]).
//! 3. If the pathname created in step 1 has the lowest sequence number suffix,
//!    the client has the lock and exits the protocol ([`decide`] answers
//!    [`Decision::Holds`]).
//! 4. The client calls `exists()` with the watch flag set on the path in the
//!    lock directory with the next lowest sequence number ([`decide`] answers
//!    [`Decision::Watch`], [`Lock::decided`] sends it).
//! 5. If `exists()` returns false, go to step 2. Otherwise wait for a
//!    notification for that pathname before going to step 2
//!    ([`Lock::handle`], the `Exists` reply and the watch event).
//!
//! Unlock: delete the node created in step 1 ([`Command::Release`]).
//!
//! Recoverable errors and the GUID (seed 001): if a recoverable error
//! (`CONNECTIONLOSS`) occurs calling `create()`, the client calls
//! `getChildren()` and checks for a node containing the GUID used in the path
//! name; it adopts that node if there is one ([`Phase::Recovering`]).
//!
//! Session handling of the reference: a careful client treats `Disconnected`
//! as "I may have lost the lock" (it stops acting as holder until it has
//! checked again on reconnect) and `Expired` as "I have lost it".
//!
//! Variants ([`Variant`]), each differing from the reference in one respect:
//! - `guid`: the reference above;
//! - `no_guid` (seed 000): plain `lock-` names; on `CONNECTIONLOSS` it simply
//!   creates again, so a lost create reply leaves a node nobody knows of;
//! - `herd`: waiters list the children *with* a watch and wake on every change
//!   of the lock node, instead of watching their predecessor;
//! - `fenced`: the holder hands its sequencer (seed 002: the lock node's
//!   path and version; here its sequence number) to the protected resource,
//!   which refuses a sequencer older than one it has seen;
//! - `try_acquire` (seed 002 `TryAcquire()`): step 4 becomes "failed to obtain
//!   the lock: delete the node created in step 1 and exit";
//! - `trusting`: a holder that ignores `Disconnected` and goes on believing it
//!   holds the lock until it hears `Expired` (which a 3.8 client hears only on
//!   reconnecting).

use std::sync::Arc;

use stateright::Property;

use crate::client::SessionEvent;
use crate::properties;
use crate::recipe::{Effects, Incarnation, Input, Observation, Recipe, Token};
use crate::store::{CreateMode, ErrorCode, EventType, Op, Path, Response, ANY_VERSION};
use crate::world::World;

/// The lock's variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    Guid,
    NoGuid,
    Herd,
    Fenced,
    TryAcquire,
    Trusting,
}

impl Variant {
    pub const ALL: [(&'static str, Variant); 6] = [
        ("guid", Variant::Guid),
        ("no_guid", Variant::NoGuid),
        ("herd", Variant::Herd),
        ("fenced", Variant::Fenced),
        ("try_acquire", Variant::TryAcquire),
        ("trusting", Variant::Trusting),
    ];

    fn uses_guid(self) -> bool {
        self != Variant::NoGuid
    }
}

/// What the application asks of the lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Command {
    /// Blocks until the lock is held (or, for try-acquire, refused).
    Acquire,
    /// Writes to the protected resource, if the client believes it holds the lock.
    Work,
    Release,
}

impl Command {
    pub const ALL: [(&'static str, Command); 3] = [
        ("acquire", Command::Acquire),
        ("work", Command::Work),
        ("release", Command::Release),
    ];
}

/// Where a client is in the protocol.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Not holding and not trying.
    Idle,
    /// Step 1 sent.
    Creating,
    /// The create's reply was lost: listing the children to find the node with
    /// our GUID.
    Recovering,
    /// Step 2 sent.
    Listing,
    /// Step 4: watching the predecessor named here.
    Watching(Arc<str>),
    /// The `herd` variant: waiting for any change of the lock node's children.
    WaitingForChildren,
    /// Step 3 said so: the client holds the lock.
    Held,
    /// Held, then disconnected: it may have lost the lock.
    Suspended,
    /// The unlock's delete sent.
    Releasing,
    /// Try-acquire failed: deleting our node.
    Abandoning,
    /// The session expired: this process is done.
    Dead,
}

/// One client's lock state: where it is, and the node it created (its name).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub phase: Phase,
    pub node: Option<Arc<str>>,
}

/// The lock recipe under one variant.
#[derive(Clone, Debug)]
pub struct Lock {
    pub variant: Variant,
    dir: Path,
}

impl Lock {
    pub fn new(variant: Variant) -> Lock {
        Lock {
            variant,
            dir: Path::new("/lock"),
        }
    }

    /// The prefix of our node names: `guid-lock-`, or `lock-` without a GUID.
    fn prefix(&self, me: Incarnation) -> String {
        if self.variant.uses_guid() {
            format!("{}-lock-", me.guid())
        } else {
            "lock-".to_string()
        }
    }

    /// Step 1.
    fn create(&self, me: Incarnation, state: &mut State, out: &mut Effects) {
        state.phase = Phase::Creating;
        state.node = None;
        out.send(Op::Create {
            path: self.dir.child(&self.prefix(me)),
            data: None,
            mode: CreateMode::EphemeralSequential,
        });
    }

    /// Step 2 (the `herd` variant sets a watch here).
    fn list(&self, state: &mut State, out: &mut Effects) {
        state.phase = Phase::Listing;
        out.send(Op::GetChildren {
            path: self.dir.clone(),
            watch: self.variant == Variant::Herd,
        });
    }

    /// Steps 3 and 4, given the children step 2 returned.
    fn decided(&self, me: Incarnation, state: &mut State, names: &[Arc<str>], out: &mut Effects) {
        let Some(mine) = state.node.clone() else {
            return self.create(me, state, out);
        };
        match decide(names, &mine) {
            Decision::Holds => {
                state.phase = Phase::Held;
                out.observe(Observation::Acquired {
                    token: sequence(&mine).expect("our node is sequential"),
                });
            }
            Decision::Watch(predecessor) => match self.variant {
                Variant::TryAcquire => {
                    state.phase = Phase::Abandoning;
                    out.observe(Observation::GaveUp);
                    out.send(self.delete(&mine));
                }
                Variant::Herd => state.phase = Phase::WaitingForChildren,
                _ => {
                    out.send(Op::Exists {
                        path: self.dir.child(&predecessor),
                        watch: true,
                    });
                    state.phase = Phase::Watching(predecessor);
                }
            },
            // Our node is gone while our session lives (someone deleted it):
            // start again from step 1.
            Decision::Missing => self.create(me, state, out),
        }
    }

    fn delete(&self, name: &str) -> Op {
        Op::Delete {
            path: self.dir.child(name),
            version: ANY_VERSION,
        }
    }

    fn on_command(&self, me: Incarnation, state: &mut State, command: Command, out: &mut Effects) {
        match (command, &state.phase) {
            (Command::Acquire, Phase::Idle) => self.create(me, state, out),
            (Command::Work, Phase::Held) => {
                let token = state.node.as_deref().and_then(sequence);
                out.observe(Observation::Used {
                    sequencer: token.filter(|_| self.variant == Variant::Fenced),
                });
            }
            (Command::Release, Phase::Held | Phase::Suspended) => {
                if state.phase == Phase::Held {
                    out.observe(Observation::Released);
                }
                let node = state.node.clone().expect("a holder has a node");
                state.phase = Phase::Releasing;
                out.send(self.delete(&node));
            }
            // Working or releasing without the lock, or acquiring twice: the
            // application knows it cannot, and goes on with its script.
            _ => {}
        }
    }

    fn on_session(&self, state: &mut State, event: SessionEvent, out: &mut Effects) {
        match event {
            SessionEvent::Disconnected
                if state.phase == Phase::Held && self.variant != Variant::Trusting =>
            {
                state.phase = Phase::Suspended;
                out.observe(Observation::Suspended);
            }
            // Back in touch with the same session: check again (step 2).
            SessionEvent::SyncConnected if state.phase == Phase::Suspended => self.list(state, out),
            SessionEvent::Expired | SessionEvent::Closed => {
                match state.phase {
                    Phase::Held | Phase::Suspended => out.observe(Observation::Lost),
                    _ if self.is_waiting(state) => out.observe(Observation::GaveUp),
                    _ => {}
                }
                state.phase = Phase::Dead;
                state.node = None;
            }
            _ => {}
        }
    }
}

impl Recipe for Lock {
    type State = State;
    type Command = Command;

    fn init(&self, _me: Incarnation) -> State {
        State {
            phase: Phase::Idle,
            node: None,
        }
    }

    fn handle(&self, me: Incarnation, state: &mut State, input: Input<Command>, out: &mut Effects) {
        match input {
            Input::Command(command) => self.on_command(me, state, command, out),
            Input::Session(event) => self.on_session(state, event, out),
            Input::Reply { op, result } => match (&state.phase, &op, result) {
                (Phase::Creating, Op::Create { .. }, Ok(Response::Created { path, .. })) => {
                    state.node = Some(Arc::from(path.name()));
                    self.list(state, out);
                }
                (Phase::Creating, Op::Create { .. }, Err(ErrorCode::ConnectionLoss)) => {
                    if self.variant.uses_guid() {
                        // Seed 001: look for a node with our GUID before creating
                        // again. This listing doubles as step 2, so the `herd`
                        // variant sets its watch here too, or it would wait for
                        // a change nobody will tell it of.
                        state.phase = Phase::Recovering;
                        out.send(Op::GetChildren {
                            path: self.dir.clone(),
                            watch: self.variant == Variant::Herd,
                        });
                    } else {
                        self.create(me, state, out);
                    }
                }
                (
                    Phase::Recovering,
                    Op::GetChildren { .. },
                    Ok(Response::Children { names, .. }),
                ) => {
                    let prefix = self.prefix(me);
                    match names.iter().find(|name| name.starts_with(&prefix)) {
                        Some(name) => {
                            state.node = Some(name.clone());
                            self.decided(me, state, &names, out);
                        }
                        None => self.create(me, state, out),
                    }
                }
                (Phase::Listing, Op::GetChildren { .. }, Ok(Response::Children { names, .. })) => {
                    self.decided(me, state, &names, out);
                }
                (
                    Phase::Recovering | Phase::Listing,
                    Op::GetChildren { .. },
                    Err(ErrorCode::ConnectionLoss),
                ) => out.send(op),
                (Phase::Watching(predecessor), Op::Exists { path, .. }, result)
                    if path.name() == &**predecessor =>
                {
                    match result {
                        // Still there: wait for the notification.
                        Ok(Response::Exists(Some(_))) => {}
                        // Gone already, or unknown: step 2 again.
                        _ => self.list(state, out),
                    }
                }
                (Phase::Releasing | Phase::Abandoning, Op::Delete { .. }, result) => match result {
                    Err(ErrorCode::ConnectionLoss) => out.send(op),
                    _ => {
                        state.phase = Phase::Idle;
                        state.node = None;
                    }
                },
                _ => {}
            },
            Input::Watch(event) => match &state.phase {
                Phase::Watching(predecessor) if event.path.name() == &**predecessor => {
                    self.list(state, out)
                }
                Phase::WaitingForChildren
                    if event.kind == EventType::NodeChildrenChanged && event.path == self.dir =>
                {
                    self.list(state, out)
                }
                _ => {}
            },
        }
    }

    fn is_busy(&self, state: &State) -> bool {
        self.is_waiting(state) || matches!(state.phase, Phase::Releasing | Phase::Abandoning)
    }

    fn is_waiting(&self, state: &State) -> bool {
        matches!(
            state.phase,
            Phase::Creating
                | Phase::Recovering
                | Phase::Listing
                | Phase::Watching(_)
                | Phase::WaitingForChildren
        )
    }

    fn directory(&self) -> &Path {
        &self.dir
    }

    fn claims(&self, state: &State, name: &str) -> bool {
        state.node.as_deref() == Some(name) && state.phase != Phase::Dead
    }
}

/// What the lock promises, each `always` with its `sometimes` partner.
pub fn properties() -> Vec<Property<World<Lock>>> {
    vec![
        Property::always("mutual_exclusion", properties::mutual_exclusion),
        Property::always("resource_safety", properties::resource_safety),
        Property::always("herd_avoidance", properties::herd_avoidance),
        Property::always("no_orphan_no_deadlock", properties::no_orphan_no_deadlock),
        Property::sometimes("someone_acquired", properties::someone_acquired),
        Property::sometimes("waiter_woken", properties::waiter_woken),
    ]
}

/// What step 3 decides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Our node has the lowest sequence number: we hold the lock.
    Holds,
    /// Watch this node: the one with the next lowest sequence number.
    Watch(Arc<str>),
    /// Our node is not among the children.
    Missing,
}

/// The sequence number of a lock node name: what follows its last `lock-`,
/// as the server formats it (ten digits, or a sign and more for a counter
/// that overflowed).
pub fn sequence(name: &str) -> Option<Token> {
    let (_, digits) = name.rsplit_once("lock-")?;
    digits.parse().ok()
}

/// Steps 3 and 4 as a pure function of the children (in any order) and our
/// node's name: order the lock nodes by sequence number, not by name (GUID
/// prefixes differ), and hold the lock or watch the next lowest node.
/// Children that are not lock nodes are ignored.
pub fn decide(children: &[Arc<str>], mine: &str) -> Decision {
    let my_sequence = match sequence(mine) {
        Some(sequence) => sequence,
        None => return Decision::Missing,
    };
    if !children.iter().any(|name| &**name == mine) {
        return Decision::Missing;
    }
    children
        .iter()
        .filter_map(|name| sequence(name).map(|sequence| (sequence, name)))
        .filter(|(sequence, _)| *sequence < my_sequence)
        .max_by_key(|(sequence, _)| *sequence)
        .map_or(Decision::Holds, |(_, name)| Decision::Watch(name.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<Arc<str>> {
        list.iter().map(|name| Arc::from(*name)).collect()
    }

    /// Every order of every subset of these nodes, with ours at each place:
    /// the answer depends only on the sequence numbers.
    #[test]
    fn decide_holds_exactly_when_ours_is_lowest_and_watches_the_next_lowest() {
        let all = [
            "c2-lock-0000000000",
            "c0-lock-0000000001",
            "c1-lock-0000000002",
            "lock-0000000003",
        ];
        for mask in 1u32..16 {
            let present: Vec<&str> = (0..4)
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| all[i])
                .collect();
            for permutation in permutations(&present) {
                let children = names(&permutation);
                for (rank, mine) in present.iter().enumerate() {
                    let expected = if rank == 0 {
                        Decision::Holds
                    } else {
                        Decision::Watch(Arc::from(present[rank - 1]))
                    };
                    assert_eq!(
                        decide(&children, mine),
                        expected,
                        "{children:?} mine {mine}"
                    );
                }
            }
        }
    }

    fn permutations<'a>(items: &[&'a str]) -> Vec<Vec<&'a str>> {
        if items.len() <= 1 {
            return vec![items.to_vec()];
        }
        let mut all = Vec::new();
        for i in 0..items.len() {
            let mut rest = items.to_vec();
            let first = rest.remove(i);
            for mut tail in permutations(&rest) {
                tail.insert(0, first);
                all.push(tail);
            }
        }
        all
    }

    #[test]
    fn decide_orders_by_sequence_not_by_name() {
        // By name, "c0-..." sorts before "c9-..."; by sequence it is the other way.
        let children = names(&["c0-lock-0000000007", "c9-lock-0000000003"]);
        assert_eq!(decide(&children, "c9-lock-0000000003"), Decision::Holds);
        assert_eq!(
            decide(&children, "c0-lock-0000000007"),
            Decision::Watch(Arc::from("c9-lock-0000000003"))
        );
    }

    #[test]
    fn decide_reports_our_node_missing() {
        let children = names(&["c1-lock-0000000001"]);
        assert_eq!(decide(&children, "c0-lock-0000000000"), Decision::Missing);
        assert_eq!(decide(&[], "c0-lock-0000000000"), Decision::Missing);
    }

    #[test]
    fn decide_ignores_children_that_are_not_lock_nodes() {
        let children = names(&["readme", "c0-lock-0000000004", "lock-junk"]);
        assert_eq!(decide(&children, "c0-lock-0000000004"), Decision::Holds);
    }

    #[test]
    fn decide_follows_the_signed_counter_after_overflow() {
        // After 2147483647 the server names the next node -2147483648: it sorts
        // lowest, so a newer node jumps the queue (the documented overflow).
        let children = names(&["c0-lock-2147483647", "c1-lock--2147483648"]);
        assert_eq!(decide(&children, "c1-lock--2147483648"), Decision::Holds);
    }

    #[test]
    fn sequence_reads_the_suffix_after_the_last_lock_prefix() {
        assert_eq!(sequence("c0-lock-0000000012"), Some(12));
        assert_eq!(sequence("lock-0000000000"), Some(0));
        assert_eq!(sequence("c1-lock--000000004"), Some(-4));
        assert_eq!(sequence("c0-lock-"), None);
        assert_eq!(sequence("plain"), None);
    }
}
