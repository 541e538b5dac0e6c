//! The exclusive lock (seed 000 "Locks", seed 001 with its GUID and error
//! handling, seed 002 for try-acquire and the sequencer).
//!
//! Clients wishing to obtain the lock do the following (the numbers are the
//! seeds'; each names the code that does it):
//!
//! 1. Call `create()` with a pathname of `_locknode_/guid-lock-` and the
//!    sequence and ephemeral flags set. The GUID is needed in case the
//!    `create()` result is missed ([`Contender::create`]).
//! 2. Call `getChildren()` on the lock node *without* setting the watch flag
//!    (important, to avoid the herd effect) ([`Contender::list`]).
//! 3. If the pathname created in step 1 has the lowest sequence number suffix,
//!    the client has the lock and exits the protocol ([`decide`] answers
//!    [`Decision::Holds`]).
//! 4. The client calls `exists()` with the watch flag set on the path in the
//!    lock directory with the next lowest sequence number ([`decide`] answers
//!    [`Decision::Watch`]).
//! 5. If `exists()` returns false, go to step 2. Otherwise wait for a
//!    notification for that pathname before going to step 2
//!    ([`Contender::on_reply`], [`Contender::on_watch`]).
//!
//! Unlock: delete the node created in step 1 ([`Command::Release`]).
//!
//! Recoverable errors and the GUID (seed 001): if a recoverable error
//! (`CONNECTIONLOSS`) occurs calling `create()`, the client calls
//! `getChildren()` and checks for a node containing the GUID used in the path
//! name; it adopts that node if there is one ([`Phase::Recovering`]).
//!
//! The machinery of these steps is shared with the shared lock and leader
//! election ([`super::contender`]); what is the lock's own is [`decide`] and
//! the mapping of its variants onto the contender's knobs ([`Lock::new`]).
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
//!   reconnecting);
//! - `careless_cancel`: an application that gives up an acquire (`cancel`,
//!   or `acquire with timeout` timing out) by forgetting it: its node stays,
//!   owned by its live session, and every later client waits behind it;
//! - `spin`: `try_acquire` in a loop, the way an application spins on
//!   Curator's `InterProcessMutex.acquire(0, unit)` (`while
//!   (!mutex.acquire(0, MILLISECONDS)) {}`): Curator's
//!   `LockInternals.internalLockLoop`, finding no time left, deletes its node
//!   and returns false, and the application asks again at once. Here a
//!   refused attempt deletes its node and creates a new one as soon as the
//!   delete is answered, and `acquire` returns only once it holds. (Curator
//!   also reads the predecessor with a watch before it looks at the time
//!   left; that read changes nothing here and is left out.) While another
//!   client holds the lock it never stops: two writes a round, each with a
//!   fresh zxid and sequence number, so no state repeats and only
//!   `terminates` notices that this client never waits quietly.
//!
//! - `process_guid`: the reference with the GUID of seed 001 kept for the
//!   life of the process, across renewed sessions (see below).
//!
//! - `host_guid`: the reference with a GUID that names the host (the client:
//!   a hostname, a configured node id) and so outlives its process: a
//!   restarted process names its nodes `c0-lock-` as its dead predecessor
//!   did, whose session, and node, the server keeps until it times out. Its
//!   recovery of a lost create can adopt the predecessor's node, which
//!   vanishes with that session. The reference's GUID names the process
//!   (`c0r1-lock-` after a restart, [`Contender::process_guid`]).
//!
//! Renewed sessions (`[session] on_expiry = "renew"`, as Curator and kazoo
//! do): when its session is lost the reference gives up what it held or
//! waited for (`Lost`, `GaveUp`: a pending `acquire` returns unacquired),
//! and once its library has opened a new session the application may
//! `acquire` again. The server keeps the old session, and its node, until
//! that session times out, which may be long after the library gave it up
//! (the `abandon` fault). So the reference tells its own node from its
//! previous session's by its name: its GUID names the session as well as
//! the process (`c0s1-lock-` in the second session,
//! [`Contender::session_guid`]), and recovering a lost create looks only
//! for this session's GUID. `process_guid` keeps `c0-lock-` for every
//! session, so its recovery can adopt the old session's node, which
//! vanishes when the server times that session out. (Comparing the node's
//! `ephemeralOwner` with the current session id, `getSessionId()`
//! ([`crate::recipe::Effects::session`]), as Hadoop's `ActiveStandbyElector`
//! does, is the other cure; it costs a request per candidate node.)
//!
//! Giving up (`cancel`, and what a timeout does): the reference deletes its
//! node, as Curator's `acquire(time, unit)` does when it times out and
//! kazoo's `acquire(timeout=)` does in its cleanup; if the create is still
//! in flight (or its lost reply is being recovered by the GUID), it deletes
//! the node as soon as it learns its name ([`Contender::cancel`]).

use std::sync::Arc;

use super::contender::{decide_by, sequence_after, Contender, Pick};
pub use super::contender::{Decision, Phase, State};
use crate::catalogued::{Catalogued, Docs, NoParams};
use crate::properties::Promise;
use crate::recipe::{Effects, Incarnation, Input, Recipe, Role, Token};
use crate::store::Path;

/// The lock's variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    Guid,
    NoGuid,
    Herd,
    Fenced,
    TryAcquire,
    Trusting,
    CarelessCancel,
    Spin,
    ProcessGuid,
    HostGuid,
    SyncedGuid,
}

/// What the application asks of the lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Command {
    /// Blocks until the lock is held (or, for try-acquire, refused).
    Acquire,
    /// Writes to the protected resource, if the client believes it holds the lock.
    Work,
    Release,
    /// Gives up a pending acquire (from another thread, or when an acquire
    /// given with a timeout times out): the application may give it while
    /// `acquire` blocks.
    Cancel,
}

/// The lock recipe under one variant.
#[derive(Clone, Debug)]
pub struct Lock {
    pub variant: Variant,
    contender: Contender,
}

impl Lock {
    pub fn new(variant: Variant) -> Lock {
        let mut contender = Contender::new("/lock", decide);
        match variant {
            Variant::Guid => {}
            Variant::NoGuid => contender.guid = false,
            Variant::Herd => contender.herd = true,
            Variant::Fenced => contender.fenced = true,
            Variant::TryAcquire => contender.try_once = true,
            Variant::Trusting => contender.trusting = true,
            Variant::CarelessCancel => contender.careless_cancel = true,
            Variant::Spin => {
                contender.try_once = true;
                contender.spin = true;
            }
            Variant::ProcessGuid => contender.session_guid = false,
            Variant::HostGuid => contender.process_guid = false,
            Variant::SyncedGuid => contender.sync_recovery = true,
        }
        Lock { variant, contender }
    }
}

impl Recipe for Lock {
    type State = State;
    type Command = Command;
    type Fact = std::convert::Infallible;
    type Log = ();

    fn phase_names(&self) -> &'static [&'static str] {
        &super::contender::PHASES
    }

    fn phases(&self, state: &Self::State) -> u64 {
        1 << state.phase.index()
    }

    fn shape(&self, state: &Self::State) -> u64 {
        state.shape()
    }

    fn init(&self, _me: Incarnation) -> State {
        State::new(Role::Lock)
    }

    /// Its properties read the history, the store, and (in quiescent states
    /// only) whether a client waits and which nodes it claims; it keeps no
    /// log: [`crate::partial_order`] applies.
    fn observed_through_history(&self) -> bool {
        true
    }

    /// A contender finds its node in a listing by its GUID and ranks nodes
    /// by sequence number, whatever their order. Not where two nodes may
    /// carry its GUID and it takes the first listed: a host's GUID is its
    /// dead predecessor's too, a process's GUID its abandoned session's
    /// (whose node the server keeps until it expires it), and a careless
    /// application leaves a node behind under its GUID while it creates
    /// another.
    fn symmetric(&self) -> bool {
        !matches!(
            self.variant,
            Variant::HostGuid | Variant::ProcessGuid | Variant::CarelessCancel
        )
    }

    fn handle(&self, me: Incarnation, state: &mut State, input: Input<Command>, out: &mut Effects) {
        let contender = &self.contender;
        match input {
            Input::Command(Command::Acquire) => contender.acquire(me, state, Role::Lock, out),
            // Working or releasing without the lock, or acquiring twice: the
            // application knows it cannot, and goes on with its script.
            Input::Command(Command::Work) => contender.work(state, out),
            Input::Command(Command::Release) => contender.release(state, out),
            Input::Command(Command::Cancel) => contender.cancel(state, out),
            Input::Reply { op, result } => contender.on_reply(me, state, op, result, out),
            Input::Watch(event) => contender.on_watch(state, &event, out),
            Input::Session(event) => contender.on_session(state, event, out),
        }
    }

    fn is_busy(&self, state: &State) -> bool {
        self.contender.is_busy(state)
    }

    fn interrupts(&self, _state: &State, command: &Command) -> bool {
        *command == Command::Cancel
    }

    fn timeout(&self) -> Option<Command> {
        Some(Command::Cancel)
    }

    fn parts() -> &'static [crate::recipe::Part<Lock>] {
        &[crate::recipe::Part {
            name: "holder",
            meaning: "a client that believes it holds the lock",
            played: |_, state| state.holds(),
        }]
    }

    fn is_waiting(&self, state: &State) -> bool {
        self.contender.is_waiting(state)
    }

    fn directory(&self) -> &Path {
        &self.contender.dir
    }

    fn claims(&self, state: &State, name: &str) -> bool {
        self.contender.claims(state, name)
    }
}

/// A command in a trace: the name scenario scripts give it.
impl std::fmt::Display for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(crate::catalogued::command_name::<Lock>(self))
    }
}

impl Catalogued for Lock {
    /// On `Expired` it gives up what it held or waited for; once its library
    /// opened a new session the application may ask again, under a GUID of
    /// that session ([`super::contender::Contender::session_guid`]).
    const RENEWS: bool = true;
    const NAME: &'static str = "lock";
    const DOCS: Docs = Docs {
        summary: "the exclusive lock: sequential ephemeral nodes under /lock, the lowest holds, each waiter watches its predecessor",
        variants: &[
            ("guid", "the reference: the GUID in node names recovers a lost create reply, Disconnected means \"I may have lost it\""),
            ("no_guid", "plain lock- names: after a lost create reply it creates again, orphaning the first node"),
            ("herd", "waiters list the children with a watch and wake on every change (the herd effect)"),
            ("fenced", "the holder hands its sequence number to the resource, which refuses older ones"),
            ("try_acquire", "gives up instead of waiting: deletes its node and returns"),
            ("trusting", "ignores Disconnected and believes it holds until it hears Expired"),
            ("careless_cancel", "gives up a cancelled or timed-out acquire without deleting its node"),
            ("spin", "try_acquire in a loop: a refused attempt deletes its node and creates another at once"),
            ("process_guid", "keeps one GUID across renewed sessions: recovering a lost create may adopt its previous session's node"),
            ("host_guid", "a GUID of the host, kept across restarts: recovering a lost create may adopt a dead predecessor's node"),
            ("synced_guid", "the reference, with a sync before the listing that recovers a lost create: on an ensemble it never misses its own node"),
        ],
        commands: &[
            ("acquire", "block until the lock is held (try_acquire: or refused)"),
            ("work", "write to the protected resource, if it believes it holds the lock"),
            ("release", "delete its node"),
            ("cancel", "give up a pending acquire, deleting its node (also what a timeout does: \"acquire with timeout\")"),
        ],
        group: &[
            &["acquire", "work", "release"],
            &["acquire", "work", "release"],
        ],
    };
    type Variant = Variant;
    const VARIANTS: &'static [(&'static str, Variant)] = &[
        ("guid", Variant::Guid),
        ("no_guid", Variant::NoGuid),
        ("herd", Variant::Herd),
        ("fenced", Variant::Fenced),
        ("try_acquire", Variant::TryAcquire),
        ("trusting", Variant::Trusting),
        ("careless_cancel", Variant::CarelessCancel),
        ("spin", Variant::Spin),
        ("process_guid", Variant::ProcessGuid),
        ("host_guid", Variant::HostGuid),
        ("synced_guid", Variant::SyncedGuid),
    ];
    const COMMANDS: &'static [(&'static str, Command)] = &[
        ("acquire", Command::Acquire),
        ("work", Command::Work),
        ("release", Command::Release),
        ("cancel", Command::Cancel),
    ];

    type Params = NoParams;

    fn build(variant: Variant, _params: &NoParams, _scripts: &[Vec<Self::Command>]) -> Lock {
        Lock::new(variant)
    }

    fn properties() -> Vec<Promise<Lock>> {
        properties()
    }
}

/// What the lock promises, each `always` with its `sometimes` partner.
pub fn properties() -> Vec<Promise<Lock>> {
    vec![
        Promise::mutual_exclusion(),
        Promise::resource_safety(),
        Promise::herd_avoidance(),
        Promise::no_orphan_no_deadlock(),
        Promise::someone_acquired(),
        Promise::waiter_woken(),
    ]
}

/// The sequence number of a lock node name: what follows its last `lock-`,
/// as the server formats it (ten digits, or a sign and more for a counter
/// that overflowed).
pub fn sequence(name: &str) -> Option<Token> {
    sequence_after(name, "lock-")
}

/// Steps 3 and 4 as a pure function of the children (in any order) and our
/// node's name: order the lock nodes by sequence number, not by name (GUID
/// prefixes differ), and hold the lock or watch the next lowest node.
/// Children that are not lock nodes are ignored.
pub fn decide(children: &[Arc<str>], mine: &str) -> Decision {
    let parse = |name: &str| sequence(name).map(|sequence| (Role::Lock, sequence));
    decide_by(children, mine, parse, |_, _| true, Pick::Next)
}

#[cfg(test)]
mod tests {
    use super::super::contender::permutations;
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
