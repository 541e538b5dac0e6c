//! The contender: the machinery the lock, the shared lock and leader election
//! share. Each of them has a client create a sequential ephemeral node in a
//! directory, list the directory, and either hold (the lock, a read or write
//! lock, the leadership) or watch one node and list again when it goes. They
//! differ only in the name of the node and in the rule that decides, from the
//! children, whether the client holds and whom it watches; Curator's locks are
//! built the same way (`LockInternals` with a swappable driver).
//!
//! The steps, as the seeds give them for the lock (000 "Locks"; 001 adds the
//! GUID), each with the code that does it:
//!
//! 1. `create()` `dir/guid-<kind>` with the sequence and ephemeral flags
//!    ([`Contender::create`]);
//! 2. `getChildren()` on the directory *without* a watch ([`Contender::list`]);
//! 3. ask the rule whether our node holds ([`Decision::Holds`]);
//! 4. otherwise `exists()` with a watch on the node the rule names
//!    ([`Decision::Watch`]);
//! 5. if it is gone already, go to step 2; otherwise wait for its notification,
//!    then go to step 2 ([`Contender::on_reply`], [`Contender::on_watch`]).
//!
//! Release: delete the node from step 1 ([`Contender::release`]).
//!
//! A lost create reply (seed 001): list the children and adopt the node that
//! carries our GUID, if there is one, before creating again
//! ([`Phase::Recovering`]). Session handling of the reference: `Disconnected`
//! means "I may have lost it" (stop acting as holder until a fresh listing
//! says otherwise), `Expired` means "I have lost it".
//!
//! The knobs ([`Contender`]'s fields) are the variants the seeds describe or
//! imply; each recipe maps its variants onto them.

use std::fmt;
use std::sync::Arc;

use crate::client::SessionEvent;
use crate::recipe::Symmetric;
use crate::recipe::{session_scoped, Effects, Incarnation, Observation, Role, Token};
use crate::store::rename::Renaming;
use crate::store::{
    CreateMode, ErrorCode, EventType, MultiOp, Op, OpResult, Path, Response, WatchEvent,
    ANY_VERSION,
};

/// What a rule decides, given the children and our node (steps 3 and 4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// We hold it.
    Holds,
    /// Watch this node, and decide again when it goes.
    Watch(Arc<str>),
    /// Our node is not among the children.
    Missing,
}

/// A recipe's decision rule: the children (in any order) and our node's name
/// in, the decision out. Pure, and tested exhaustively in each recipe's file.
pub type Rule = fn(&[Arc<str>], &str) -> Decision;

/// Which of the lower nodes that block us a rule watches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// The next one down (the largest sequence number below ours): one
    /// deletion wakes one client.
    Next,
    /// The lowest one.
    Lowest,
}

/// The frame every rule shares: our node must be among the children; among
/// the nodes with a lower sequence number, those that `blocks(ours, theirs)`
/// (by kind) keep us waiting; we hold if there is none, else watch the one
/// `pick` names. `parse` reads a node's kind and sequence number and ignores
/// other children.
pub fn decide_by(
    children: &[Arc<str>],
    mine: &str,
    parse: fn(&str) -> Option<(Role, Token)>,
    blocks: fn(Role, Role) -> bool,
    pick: Pick,
) -> Decision {
    let Some((role, my_sequence)) = parse(mine) else {
        return Decision::Missing;
    };
    if !children.iter().any(|name| &**name == mine) {
        return Decision::Missing;
    }
    let blockers = children.iter().filter_map(|name| {
        let (kind, sequence) = parse(name)?;
        (sequence < my_sequence && blocks(role, kind)).then_some((sequence, name))
    });
    let watched = match pick {
        Pick::Next => blockers.max_by_key(|(sequence, _)| *sequence),
        Pick::Lowest => blockers.min_by_key(|(sequence, _)| *sequence),
    };
    watched.map_or(Decision::Holds, |(_, name)| Decision::Watch(name.clone()))
}

/// The marker between the GUID and the sequence number in a node's name.
pub fn marker(role: Role) -> &'static str {
    match role {
        Role::Lock => "lock-",
        Role::Read => "read-",
        Role::Write => "write-",
        Role::Leader => "n_",
        Role::Lease => "lease-",
    }
}

/// The sequence number the server appended after `marker`: ten digits, or a
/// sign and more for a counter that overflowed.
pub fn sequence_after(name: &str, marker: &str) -> Option<Token> {
    let (_, digits) = name.rsplit_once(marker)?;
    digits.parse().ok()
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
    /// Step 4: watching the node named here.
    Watching(Arc<str>),
    /// The `herd` knob: waiting for any change of the directory's children.
    WaitingForChildren,
    /// Step 3 said so: the client holds.
    Held,
    /// Held, then disconnected: it may have lost it.
    Suspended,
    /// The release's delete sent.
    Releasing,
    /// Giving up an attempt (try-acquire refused, or asked to let go before
    /// holding): deleting our node.
    Abandoning,
    /// The session expired: this process is done.
    Dead,
}

/// A phase in a trace's words: its name, and the node watched.
impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Phase::Watching(node) => write!(f, "Watching {node}"),
            // The other variants carry nothing: their name is their word.
            other => fmt::Debug::fmt(other, f),
        }
    }
}

/// One client's contender state: where it is, what it is after, and the node
/// it created (its name).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct State {
    pub phase: Phase,
    pub role: Role,
    pub node: Option<Arc<str>>,
    /// The application gave up the attempt while its create was in flight
    /// or being recovered: its node is to be deleted once known.
    pub cancelled: bool,
    /// How many sessions this process had before its current one: its
    /// client library renewed the session that many times (`Expired`, then
    /// `SyncConnected` on a new session).
    pub renewals: u8,
    /// Watching, with the `unguarded_wait` knob: the application thread
    /// has the reply of step 5's `exists()` (the node is there) and has yet
    /// to wait ([`Contender::go_on`]). Never set in another phase.
    pub to_wait: bool,
}

impl State {
    /// Its phase, role, cancellation and whether it has a node: what a
    /// round of a loop brings back ([`crate::recipe::Recipe::shape`]).
    pub fn shape(&self) -> u64 {
        1 << self.phase.index()
            | (self.role as u64) << 40
            | u64::from(self.cancelled) << 48
            | u64::from(self.node.is_some()) << 49
            | u64::from(self.to_wait) << 50
    }

    pub fn new(role: Role) -> State {
        State {
            phase: Phase::Idle,
            role,
            node: None,
            cancelled: false,
            renewals: 0,
            to_wait: false,
        }
    }

    pub fn holds(&self) -> bool {
        self.phase == Phase::Held
    }
}

/// A contender keeps node names, its own and the one it watches: they are
/// renamed; the rest carries no client's identity.
impl Symmetric for State {
    fn renamed(&self, renaming: &Renaming) -> Option<State> {
        let phase = match &self.phase {
            Phase::Watching(name) => Phase::Watching(renaming.name(name)),
            other => other.clone(),
        };
        Some(State {
            phase,
            node: self.node.as_ref().map(|name| renaming.name(name)),
            ..self.clone()
        })
    }

    /// Its phase, role, cancellation and renewals, and its node's sequence
    /// number.
    fn anonymous(&self) -> u64 {
        let token = (self.node.as_deref()).and_then(|node| sequence_after(node, marker(self.role)));
        let words = [
            u64::from(self.phase.index()),
            self.role as u64,
            u64::from(self.cancelled),
            u64::from(self.renewals),
            u64::from(self.to_wait),
        ];
        let fields = words.iter().fold(0, |all, word| all << 8 | word);
        fields << 32 ^ token.map_or(u64::MAX, |token| token as u64)
    }
}

/// Debug as the trace words it: the explorer and test failures read the same.
impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Traces print a state on every step: `Listing c0-lock-0000000000`,
/// `Watching c0-lock-0000000000 from c1-lock-0000000001`, or the kind of node
/// being created while it has none yet (`Creating write-`).
impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.phase)?;
        if matches!(self.phase, Phase::Watching(_)) {
            f.write_str(" from")?;
        }
        match &self.node {
            Some(node) => write!(f, " {node}"),
            None if !matches!(self.phase, Phase::Idle | Phase::Dead) => {
                write!(f, " {}", marker(self.role))
            }
            None => Ok(()),
        }?;
        if self.cancelled {
            f.write_str(", cancelled")?;
        }
        if self.to_wait {
            f.write_str(", about to wait")?;
        }
        if self.renewals > 0 {
            write!(f, ", session {}", self.renewals + 1)?;
        }
        Ok(())
    }
}

/// The shared machinery with its knobs.
#[derive(Clone, Debug)]
pub struct Contender {
    /// The directory the nodes go in (the lock node, the election node).
    pub dir: Path,
    /// Steps 3 and 4.
    pub rule: Rule,
    /// Put the GUID in node names and recover a lost create by it (seed 001);
    /// without it a lost create reply is answered by creating again.
    pub guid: bool,
    /// List the children *with* a watch and wait for any change, instead of
    /// watching one node (the herd effect the seeds warn of).
    pub herd: bool,
    /// Chubby's `TryAcquire()` (seed 002): where step 4 would watch, give up.
    pub try_once: bool,
    /// With `try_once`: the application tries again at once after a refusal
    /// (once its node is deleted), and goes on until it holds: the attempt
    /// never returns refused, so nothing observes that it gave up.
    pub spin: bool,
    /// Ignore `Disconnected`: go on believing until `Expired`.
    pub trusting: bool,
    /// A waiter lists again when its connection comes back, rather than
    /// trusting its watch to have survived (kazoo's `Lock`: a library that
    /// drops its watches with the connection leaves it nothing to wait on).
    pub relists: bool,
    /// A waiter that wakes with no event (a spurious wake) takes it for the
    /// deletion it waited for and believes it holds, instead of listing
    /// again ([`Contender::wake`]).
    pub takes_wake: bool,
    /// On NONODE for its create, or for the listing that recovers a lost
    /// one, make the directory again, in this mode, and create again:
    /// Curator's `creatingParentContainersIfNeeded`, for a directory the
    /// server deletes once empty.
    pub remakes_dir: Option<CreateMode>,
    /// Hand the node's sequence number to the protected resource with each
    /// write (seed 002's sequencer).
    pub fenced: bool,
    /// Where the protected resource is, and how the holder writes to it.
    pub writes: Writes,
    /// When a listing no longer shows our node (someone else deleted it while
    /// our session lives), queue again with a new node; otherwise take it as
    /// taken away ([`Contender::node_lost`]), as a revocable lock must.
    pub recreate_missing: bool,
    /// Give up a cancelled or timed-out attempt without deleting its node:
    /// the application forgets it, and the node stays as long as the session.
    pub careless_cancel: bool,
    /// Scope the GUID to the session, not only to the process: after its
    /// library renewed the session the process names its nodes anew
    /// (`c0s1-lock-`), so that recovering a lost create never adopts a node
    /// of its previous session, which the server keeps until that session
    /// times out.
    pub session_guid: bool,
    /// Scope the GUID to the process, not only to the host (the client): a
    /// restarted process names its nodes anew (`c0r1-lock-`), so that
    /// recovering a lost create never adopts a node of its dead predecessor,
    /// whose session the server keeps until it times out.
    pub process_guid: bool,
    /// Before the listing that recovers a lost create, `sync` the
    /// directory: on an ensemble, a client whose connection moved to a
    /// follower that has not applied its create would otherwise list
    /// without its node and create a second one.
    pub sync_recovery: bool,
    /// Step 5 without a monitor: the application thread takes the reply of
    /// `exists()`, then waits in a step of its own, and a notification the
    /// event thread hands over in between wakes nobody and is lost
    /// ([`Contender::go_on`]). Without it the check and the wait are one
    /// step, as under Curator's monitor.
    pub unguarded_wait: bool,
}

/// The node a lock's resource in ZooKeeper is ([`Writes::Node`]).
pub const RESOURCE: &str = "/resource";

/// Where the protected resource is, and how a holder writes to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writes {
    /// Outside ZooKeeper: a write lands the moment the holder makes it
    /// ([`Observation::Used`]).
    Outside,
    /// The node [`RESOURCE`], written with `setData` through the holder's
    /// session: the write lands when the server applies it.
    Node,
    /// [`RESOURCE`], written in a multi whose first op checks that the
    /// holder's node exists: the server applies the write only while it
    /// does, in the same transaction.
    CheckedNode,
}

impl Contender {
    /// The reference: GUIDs, one watched node, careful about sessions, unfenced.
    pub fn new(dir: &str, rule: Rule) -> Contender {
        Contender {
            dir: Path::new(dir),
            rule,
            guid: true,
            herd: false,
            try_once: false,
            spin: false,
            trusting: false,
            relists: false,
            takes_wake: false,
            remakes_dir: None,
            fenced: false,
            writes: Writes::Outside,
            recreate_missing: true,
            careless_cancel: false,
            session_guid: true,
            process_guid: true,
            sync_recovery: false,
            unguarded_wait: false,
        }
    }

    /// The prefix of our node names: `guid-<marker>`, or the marker alone.
    /// The GUID names the process (`c0`, `c0r1` after a restart) and, once
    /// its library renewed the session, which session (`c0s1`).
    pub fn prefix(&self, me: Incarnation, state: &State) -> String {
        let marker = marker(state.role);
        if !self.guid {
            return marker.to_string();
        }
        let mut guid = if self.process_guid {
            me.guid()
        } else {
            format!("c{}", me.client)
        };
        if self.session_guid {
            guid = session_scoped(guid, state.renewals);
        }
        format!("{guid}-{marker}")
    }

    fn token(&self, state: &State) -> Option<Token> {
        sequence_after(state.node.as_deref()?, marker(state.role))
    }

    /// Starts an attempt at `role`, if the client is not in one already.
    pub fn acquire(&self, me: Incarnation, state: &mut State, role: Role, out: &mut Effects) {
        if state.phase == Phase::Idle {
            state.role = role;
            self.create(me, state, out);
        }
    }

    /// The application writes to the protected resource, if it holds. A
    /// resource in ZooKeeper is written with its node's name as the data
    /// (whose write it is, for [`crate::world::Resource`]); the write's
    /// reply tells the application nothing it acts on.
    pub fn work(&self, state: &State, out: &mut Effects) {
        if !state.holds() {
            return;
        }
        let node = state.node.as_deref().expect("a holder has a node");
        let data = || Some(Arc::from(node.as_bytes()));
        match self.writes {
            Writes::Outside => out.observe(Observation::Used {
                sequencer: self.token(state).filter(|_| self.fenced),
            }),
            Writes::Node => out.send(Op::SetData {
                path: Path::new(RESOURCE),
                data: data(),
                version: ANY_VERSION,
            }),
            Writes::CheckedNode => out.send(Op::Multi(vec![
                MultiOp::Check {
                    path: self.dir.child(node),
                    version: ANY_VERSION,
                },
                MultiOp::SetData {
                    path: Path::new(RESOURCE),
                    data: data(),
                    version: ANY_VERSION,
                },
            ])),
        }
    }

    /// Unlock: delete our node. A suspended holder releases too (it may
    /// still hold).
    pub fn release(&self, state: &mut State, out: &mut Effects) {
        if !matches!(state.phase, Phase::Held | Phase::Suspended) {
            return;
        }
        if state.phase == Phase::Held {
            out.observe(Observation::Released);
        }
        let node = state.node.clone().expect("a holder has a node");
        state.phase = Phase::Releasing;
        out.send(self.delete(&node));
    }

    /// Gives up: releases if holding, abandons the attempt if waiting with a
    /// node (deleting it). Nothing otherwise: a client asked to give up knows
    /// its node, since it was asked through it.
    pub fn give_up(&self, state: &mut State, out: &mut Effects) {
        if matches!(state.phase, Phase::Held | Phase::Suspended) {
            return self.release(state, out);
        }
        let Some(node) = state.node.clone() else {
            return;
        };
        if self.is_waiting(state) {
            out.observe(Observation::GaveUp);
            state.phase = Phase::Abandoning;
            out.send(self.delete(&node));
        }
    }

    /// The application gives up a pending attempt (`cancel`, or the timeout
    /// of `acquire`): the reference deletes its node, at once if it knows
    /// it, else as soon as its create's reply (or the recovery of a lost
    /// one) names it, as Curator's `acquire(time, unit)` deletes its node
    /// when it times out. With `careless_cancel` it forgets the attempt and
    /// leaves the node. Nothing if no attempt is pending: a call that
    /// returned cannot be cancelled.
    pub fn cancel(&self, state: &mut State, out: &mut Effects) {
        if !self.is_waiting(state) || state.cancelled {
            return;
        }
        if self.careless_cancel {
            return self.forget(state, out);
        }
        out.observe(Observation::GaveUp);
        match (&state.phase, state.node.clone()) {
            (Phase::Creating | Phase::Recovering, _) => state.cancelled = true,
            (_, Some(node)) => {
                state.phase = Phase::Abandoning;
                out.send(self.delete(&node));
            }
            (_, None) => state.phase = Phase::Idle,
        }
    }

    /// Gives up a pending attempt by forgetting it: a node it has, or the
    /// one its create in flight will make, stays on the server.
    pub fn forget(&self, state: &mut State, out: &mut Effects) {
        out.observe(Observation::GaveUp);
        state.phase = Phase::Idle;
        state.node = None;
    }

    /// A cancelled attempt's node is known: delete it.
    fn abandon(&self, state: &mut State, node: Arc<str>, out: &mut Effects) {
        state.cancelled = false;
        state.phase = Phase::Abandoning;
        out.send(self.delete(&node));
        state.node = Some(node);
    }

    /// A cancelled attempt turned out to have no node: it is over.
    fn forget_cancelled(&self, state: &mut State) {
        state.cancelled = false;
        state.phase = Phase::Idle;
        state.node = None;
    }

    /// Our node was deleted by someone else: whatever we held or waited for
    /// is gone.
    pub fn node_lost(&self, state: &mut State, out: &mut Effects) {
        match state.phase {
            Phase::Held | Phase::Suspended => out.observe(Observation::Lost),
            _ if self.is_waiting(state) => out.observe(Observation::GaveUp),
            _ => {}
        }
        state.phase = Phase::Idle;
        state.node = None;
    }

    /// Step 1.
    pub fn create(&self, me: Incarnation, state: &mut State, out: &mut Effects) {
        state.phase = Phase::Creating;
        state.node = None;
        out.send(Op::Create {
            path: self.dir.child(&self.prefix(me, state)),
            data: None,
            mode: CreateMode::EphemeralSequential,
        });
    }

    /// Step 1's recovery: list the directory for a node with our GUID.
    /// This listing doubles as step 2, so the `herd` knob sets its watch
    /// here too, or it would wait for a change nobody will tell it of.
    fn recover(&self, out: &mut Effects) {
        out.send(Op::GetChildren {
            path: self.dir.clone(),
            watch: self.herd,
        });
    }

    /// Step 2 (the `herd` knob sets a watch here).
    pub fn list(&self, state: &mut State, out: &mut Effects) {
        state.phase = Phase::Listing;
        out.send(Op::GetChildren {
            path: self.dir.clone(),
            watch: self.herd,
        });
    }

    /// Steps 3 and 4, given the children step 2 returned.
    fn decided(&self, me: Incarnation, state: &mut State, names: &[Arc<str>], out: &mut Effects) {
        let Some(mine) = state.node.clone() else {
            return self.create(me, state, out);
        };
        match (self.rule)(names, &mine) {
            Decision::Holds => {
                state.phase = Phase::Held;
                out.observe(Observation::Acquired {
                    token: self.token(state).expect("our node is sequential"),
                    node: mine,
                    role: state.role,
                });
            }
            Decision::Watch(_) if self.try_once => {
                state.phase = Phase::Abandoning;
                if !self.spin {
                    out.observe(Observation::GaveUp);
                }
                out.send(self.delete(&mine));
            }
            Decision::Watch(_) if self.herd => state.phase = Phase::WaitingForChildren,
            Decision::Watch(node) => {
                out.send(Op::Exists {
                    path: self.dir.child(&node),
                    watch: true,
                });
                state.phase = Phase::Watching(node);
            }
            // Our node is gone while our session lives (someone deleted it):
            // start again from step 1, or accept that it was taken away.
            Decision::Missing if self.recreate_missing => self.create(me, state, out),
            Decision::Missing => self.node_lost(state, out),
        }
    }

    pub fn delete(&self, name: &str) -> Op {
        Op::Delete {
            path: self.dir.child(name),
            version: ANY_VERSION,
        }
    }

    /// A reply to one of the contender's requests.
    pub fn on_reply(
        &self,
        me: Incarnation,
        state: &mut State,
        op: Op,
        result: OpResult,
        out: &mut Effects,
    ) {
        match (&state.phase, &op, result) {
            // The directory, made again: create our node in it (or give
            // up, cancelled: there is no node of ours to delete).
            (
                Phase::Creating,
                Op::Create { path, .. },
                Ok(Response::Created { .. }) | Err(ErrorCode::NodeExists),
            ) if *path == self.dir => match state.cancelled {
                true => self.forget_cancelled(state),
                false => self.create(me, state, out),
            },
            (Phase::Creating, Op::Create { path, .. }, Err(ErrorCode::ConnectionLoss))
                if *path == self.dir =>
            {
                out.send(op)
            }
            // The directory is gone (a container the server deleted): make
            // it again, or (kazoo's Lock, which ensures its path once) fail,
            // and the application, retrying its acquire, creates again.
            (Phase::Creating, Op::Create { .. }, Err(ErrorCode::NoNode)) => {
                match self.remakes_dir {
                    Some(mode) => out.send(Op::Create {
                        path: self.dir.clone(),
                        data: None,
                        mode,
                    }),
                    None if state.cancelled => self.forget_cancelled(state),
                    None => self.create(me, state, out),
                }
            }
            (Phase::Recovering, Op::GetChildren { .. }, Err(ErrorCode::NoNode)) => {
                match state.cancelled {
                    true => self.forget_cancelled(state),
                    false => self.create(me, state, out),
                }
            }
            (Phase::Creating, Op::Create { .. }, Ok(Response::Created { path, .. }))
                if state.cancelled =>
            {
                self.abandon(state, Arc::from(path.name()), out);
            }
            (Phase::Creating, Op::Create { .. }, Ok(Response::Created { path, .. })) => {
                state.node = Some(Arc::from(path.name()));
                self.list(state, out);
            }
            // Without a GUID a cancelled attempt cannot find a node whose
            // create reply was lost: it gives up on it.
            (Phase::Creating, Op::Create { .. }, Err(ErrorCode::ConnectionLoss))
                if state.cancelled && !self.guid =>
            {
                self.forget_cancelled(state);
            }
            (Phase::Creating, Op::Create { .. }, Err(ErrorCode::ConnectionLoss)) => {
                if self.guid {
                    // Seed 001: look for a node with our GUID before creating
                    // again ([`Contender::recover`]), after a `sync` if the
                    // variant asks for one.
                    state.phase = Phase::Recovering;
                    match self.sync_recovery {
                        true => out.send(Op::Sync {
                            path: self.dir.clone(),
                        }),
                        false => self.recover(out),
                    }
                } else {
                    self.create(me, state, out);
                }
            }
            (Phase::Recovering, Op::Sync { .. }, Ok(_)) => self.recover(out),
            (Phase::Recovering, Op::Sync { .. }, Err(ErrorCode::ConnectionLoss)) => out.send(op),
            (Phase::Recovering, Op::GetChildren { .. }, Ok(Response::Children { names, .. })) => {
                let prefix = self.prefix(me, state);
                let found = names.iter().find(|name| name.starts_with(&prefix));
                match found {
                    Some(name) if state.cancelled => self.abandon(state, name.clone(), out),
                    None if state.cancelled => self.forget_cancelled(state),
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
            // The directory went with our node in it: a listing of nothing.
            (Phase::Listing, Op::GetChildren { .. }, Err(ErrorCode::NoNode)) => {
                self.decided(me, state, &[], out);
            }
            (
                Phase::Recovering | Phase::Listing,
                Op::GetChildren { .. },
                Err(ErrorCode::ConnectionLoss),
            ) => out.send(op),
            (Phase::Watching(watched), Op::Exists { path, .. }, result)
                if path.name() == &**watched =>
            {
                match result {
                    // Still there: wait for the notification, at once
                    // under a monitor, or in a step of its own.
                    Ok(Response::Exists(Some(_))) => state.to_wait = self.unguarded_wait,
                    // Gone already, or unknown: step 2 again.
                    _ => self.list(state, out),
                }
            }
            (Phase::Releasing | Phase::Abandoning, Op::Delete { path, .. }, result)
                if state.node.as_deref() == Some(path.name()) =>
            {
                match result {
                    Err(ErrorCode::ConnectionLoss) => out.send(op),
                    // A refused attempt's node is gone: try again at once.
                    _ if self.spin && state.phase == Phase::Abandoning => {
                        self.create(me, state, out)
                    }
                    _ => {
                        state.phase = Phase::Idle;
                        state.node = None;
                        state.cancelled = false;
                    }
                }
            }
            _ => {}
        }
    }

    /// A watch event: the watched node went (step 5), or, with the `herd`
    /// knob, the children changed.
    pub fn on_watch(&self, state: &mut State, event: &WatchEvent, out: &mut Effects) {
        match &state.phase {
            // The event thread's `notifyAll()` wakes nobody while the
            // application thread has yet to wait: the notification is lost.
            Phase::Watching(_) if state.to_wait => {}
            Phase::Watching(watched) if event.path.name() == &**watched => self.list(state, out),
            Phase::WaitingForChildren
                if event.kind == EventType::NodeChildrenChanged && event.path == self.dir =>
            {
                self.list(state, out)
            }
            _ => {}
        }
    }

    /// Whether the client's `acquire` waits for a watch to fire (step 5).
    pub fn waits(&self, state: &State) -> bool {
        matches!(state.phase, Phase::Watching(_) | Phase::WaitingForChildren) && !state.to_wait
    }

    /// Whether the application thread has yet to wait, having taken the
    /// reply of `exists()` (the `unguarded_wait` knob): a step of its own.
    pub fn ready(&self, state: &State) -> bool {
        state.to_wait
    }

    /// The application thread waits ([`Contender::ready`]).
    pub fn go_on(&self, state: &mut State) {
        state.to_wait = false;
    }

    /// Clears what only a waiter keeps once it no longer waits: called
    /// after every input a recipe with the `unguarded_wait` knob hands the
    /// contender, so that no state keeps a flag its phase does not use.
    pub fn settle(&self, state: &mut State) {
        if !matches!(state.phase, Phase::Watching(_)) {
            state.to_wait = false;
        }
    }

    /// A waiter wakes with no event: it lists again (step 2), or, taking
    /// the wake for the deletion it waited for, believes it holds.
    pub fn wake(&self, state: &mut State, out: &mut Effects) {
        if !self.waits(state) {
            return;
        }
        match self.takes_wake {
            false => self.list(state, out),
            true => {
                let node = state.node.clone().expect("a waiter has a node");
                state.phase = Phase::Held;
                out.observe(Observation::Acquired {
                    token: self.token(state).expect("our node is sequential"),
                    node,
                    role: state.role,
                });
            }
        }
    }

    pub fn on_session(&self, state: &mut State, event: SessionEvent, out: &mut Effects) {
        match event {
            SessionEvent::Disconnected if state.phase == Phase::Held && !self.trusting => {
                state.phase = Phase::Suspended;
                out.observe(Observation::Suspended);
            }
            // Back in touch with the same session: check again (step 2).
            SessionEvent::SyncConnected if state.phase == Phase::Suspended => self.list(state, out),
            // A waiter that does not trust its watch to have survived.
            SessionEvent::SyncConnected
                if self.relists
                    && matches!(state.phase, Phase::Watching(_) | Phase::WaitingForChildren) =>
            {
                self.list(state, out)
            }
            // A new session after the last one was lost: its library renewed
            // it. Nothing is held or pending (the loss ended that); the
            // application may acquire again, under a GUID of this session.
            SessionEvent::SyncConnected if state.phase == Phase::Dead => {
                state.phase = Phase::Idle;
                state.node = None;
                state.renewals = state.renewals.saturating_add(1);
            }
            SessionEvent::Expired | SessionEvent::Closed => {
                match state.phase {
                    Phase::Held | Phase::Suspended => out.observe(Observation::Lost),
                    _ if self.is_waiting(state) => out.observe(Observation::GaveUp),
                    _ => {}
                }
                state.phase = Phase::Dead;
                state.node = None;
                state.cancelled = false;
            }
            _ => {}
        }
    }

    /// Blocked in a call: acquiring, releasing or abandoning.
    pub fn is_busy(&self, state: &State) -> bool {
        self.is_waiting(state) || matches!(state.phase, Phase::Releasing | Phase::Abandoning)
    }

    /// Whether a notification can wake this waiter: it waits to hold, and
    /// its application thread is waiting (with the `unguarded_wait` knob, a
    /// thread that has yet to wait misses the `notifyAll()`, so the
    /// notification wakes nobody and is no wake for herd avoidance).
    pub fn wakeable(&self, state: &State) -> bool {
        self.is_waiting(state) && !state.to_wait
    }

    /// Waiting to hold.
    pub fn is_waiting(&self, state: &State) -> bool {
        matches!(
            state.phase,
            Phase::Creating
                | Phase::Recovering
                | Phase::Listing
                | Phase::Watching(_)
                | Phase::WaitingForChildren
        )
    }

    pub fn claims(&self, state: &State, name: &str) -> bool {
        state.node.as_deref() == Some(name) && state.phase != Phase::Dead
    }
}

/// Every order of `items`: the decision rules are tested on all of them.
#[cfg(test)]
pub(crate) fn permutations<T: Clone>(items: &[T]) -> Vec<Vec<T>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut all = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(i);
        for mut tail in permutations(&rest) {
            tail.insert(0, first.clone());
            all.push(tail);
        }
    }
    all
}

/// The contender's phases by name, in [`Phase::index`] order: what a
/// check's coverage reports ([`crate::recipe::Recipe::PHASES`]).
pub const PHASES: [&str; 11] = [
    "Idle",
    "Creating",
    "Recovering",
    "Listing",
    "Watching",
    "WaitingForChildren",
    "Held",
    "Suspended",
    "Releasing",
    "Abandoning",
    "Dead",
];

/// [`PHASES`] followed by `more`: the phases of a recipe that runs a second
/// machine beside its contender (an election's acknowledgement, a revoker).
pub const fn phases_and<const MORE: usize, const ALL: usize>(
    more: [&'static str; MORE],
) -> [&'static str; ALL] {
    assert!(
        ALL == PHASES.len() + MORE,
        "ALL is the contender's phases and MORE"
    );
    let mut all = [""; ALL];
    let mut i = 0;
    while i < PHASES.len() {
        all[i] = PHASES[i];
        i += 1;
    }
    let mut j = 0;
    while j < MORE {
        all[PHASES.len() + j] = more[j];
        j += 1;
    }
    all
}

impl Phase {
    /// This phase's place in [`PHASES`].
    pub fn index(&self) -> u32 {
        match self {
            Phase::Idle => 0,
            Phase::Creating => 1,
            Phase::Recovering => 2,
            Phase::Listing => 3,
            Phase::Watching(_) => 4,
            Phase::WaitingForChildren => 5,
            Phase::Held => 6,
            Phase::Suspended => 7,
            Phase::Releasing => 8,
            Phase::Abandoning => 9,
            Phase::Dead => 10,
        }
    }
}
