//! The shared (read/write) lock (seed 000 "Shared Locks"; seed 001 adds the
//! GUID to the names and the lost-reply handling of the lock).
//!
//! Obtaining a read lock:
//!
//! 1. Call `create()` to create a node with pathname `_locknode_/guid-read-`,
//!    with the sequence and ephemeral flags ([`Command::Read`]).
//! 2. Call `getChildren()` on the lock node without setting the watch flag.
//! 3. If there are no children with a pathname starting with `write-` and a
//!    lower sequence number than the node created in step 1, the client has
//!    the lock ([`decide`]: [`Decision::Holds`]).
//! 4. Otherwise call `exists()`, with the watch flag, on the node in the lock
//!    directory with pathname starting with `write-` having the next lowest
//!    sequence number ([`decide`]: [`Decision::Watch`]).
//! 5. If `exists()` returns false, go to step 2. Otherwise wait for a
//!    notification for the pathname from the previous step before going to
//!    step 2.
//!
//! Obtaining a write lock ([`Command::Write`]) is the exclusive lock with
//! `write-` names: step 3 holds if there is no child with a lower sequence
//! number at all, step 4 watches the next lowest node of either kind.
//!
//! The seed's note: "It might appear that this recipe creates a herd effect:
//! when there is a large group of clients waiting for a read lock, and all
//! getting notified more or less simultaneously when the `write-` node with
//! the lowest sequence number is deleted. In fact, that's valid behavior: as
//! all those waiting reader clients should be released since they have the
//! lock." [`SharedLock::released_together`] tells the herd property exactly
//! that, and nothing more.
//!
//! The steps themselves are the contender's ([`super::contender`]); what is the
//! shared lock's own is the rule [`decide`], its knobs, and its properties.
//!
//! Variants are presets of its one knob, `waits_on` ([`Knobs`]), which a
//! scenario may turn (`[knobs]`, per client in `[[client]]`):
//! - `guid` (`next`): the reference above, with the lock's GUID recovery and
//!   careful session handling;
//! - `lowest_write`: a reader watches the *lowest* `write-` node below it
//!   rather than the next lower one (a misreading of step 4);
//! - `herd` (`children`): waiters list the children *with* a watch and wake
//!   on every change.

use std::sync::Arc;

use super::contender::{decide_by, sequence_after, Contender, Pick};
pub use super::contender::{Decision, Phase, State};
use crate::catalogued::{Catalogued, Docs, NoParams};
use crate::properties::Promise;
use crate::recipe::{Effects, Incarnation, Input, Recipe, Role, Token};
use crate::store::{Path, Store};

crate::knob_value! {
    /// Which node a waiter waits on.
    pub enum WaitsOn {
        /// the next lower node that blocks it, with `exists()` and a watch: a reader the next lower `write-` node, a writer the next lower node (the reference)
        Next = "next",
        /// a reader watches the lowest `write-` node below it instead of the next lower one (a misreading of step 4); a writer as the reference
        LowestWrite = "lowest_write",
        /// the lock node's children, listed with a watch: every change wakes every waiter (the herd effect)
        Children = "children",
    }
}

crate::knobs! {
    /// The shared lock's knobs. A variant is a preset of them
    /// ([`Knobs::GUID`] and the others).
    pub struct Knobs {
        /// Which node a waiter waits on.
        waits_on: WaitsOn,
    }
}

impl Knobs {
    /// The reference: see the module's documentation.
    pub const GUID: Knobs = Knobs {
        waits_on: WaitsOn::Next,
    };
    pub const LOWEST_WRITE: Knobs = Knobs {
        waits_on: WaitsOn::LowestWrite,
    };
    pub const HERD: Knobs = Knobs {
        waits_on: WaitsOn::Children,
    };
}

/// What the application asks of the shared lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Command {
    /// Blocks until a read lock is held.
    Read,
    /// Blocks until the write lock is held.
    Write,
    /// A writer writes to the protected resource; a reader reads it.
    Work,
    Release,
}

/// The shared lock under one setting of its knobs.
#[derive(Clone, Debug)]
pub struct SharedLock {
    pub knobs: Knobs,
    pub(crate) contender: Contender,
}

impl SharedLock {
    pub fn new(knobs: Knobs) -> SharedLock {
        let rule = match knobs.waits_on {
            WaitsOn::LowestWrite => decide_lowest_write,
            WaitsOn::Next | WaitsOn::Children => decide,
        };
        let mut contender = Contender::new("/lock", rule);
        contender.herd = knobs.waits_on == WaitsOn::Children;
        SharedLock { knobs, contender }
    }
}

impl Recipe for SharedLock {
    type State = State;
    type Command = Command;
    type Fact = std::convert::Infallible;
    type Log = ();

    const PHASES: &'static [&'static str] = &super::contender::PHASES;

    fn phases(&self, state: &Self::State) -> u64 {
        1 << state.phase.index()
    }

    fn shape(&self, state: &Self::State) -> u64 {
        state.shape()
    }

    fn init(&self, _me: Incarnation) -> State {
        State::new(Role::Read)
    }

    /// Its properties read the history, the store, and (in quiescent states
    /// only) whether a client waits and which nodes it claims; it keeps no
    /// log: [`crate::partial_order`] applies.
    fn observed_through_history(&self) -> bool {
        true
    }

    /// As the lock's ([`super::lock::Lock`]): every variant reads a listing
    /// through sequence numbers and GUIDs.
    fn symmetric(&self) -> bool {
        true
    }

    /// A contender keeps names and a count of renewals, and compares
    /// sequence numbers parsed from names by their order alone
    /// ([`super::contender::decide_by`]).
    fn reads_counters_by_order(&self) -> bool {
        true
    }

    fn handle(&self, me: Incarnation, state: &mut State, input: Input<Command>, out: &mut Effects) {
        let contender = &self.contender;
        match input {
            Input::Command(Command::Read) => contender.acquire(me, state, Role::Read, out),
            Input::Command(Command::Write) => contender.acquire(me, state, Role::Write, out),
            // Reading changes nothing the properties follow.
            Input::Command(Command::Work) if state.role == Role::Write => {
                contender.work(state, out)
            }
            Input::Command(Command::Work) => {}
            Input::Command(Command::Release) => contender.release(state, out),
            Input::Reply { op, result } => contender.on_reply(me, state, op, result, out),
            Input::Watch(event) => contender.on_watch(state, &event, out),
            Input::Session(event) => contender.on_session(state, event, out),
        }
    }

    fn is_busy(&self, state: &State) -> bool {
        self.contender.is_busy(state)
    }

    fn waits(&self, state: &State) -> bool {
        self.contender.waits(state)
    }

    fn wake(&self, _: Incarnation, state: &mut State, out: &mut Effects) {
        self.contender.wake(state, out)
    }

    fn parts() -> &'static [crate::recipe::Part<SharedLock>] {
        &[
            crate::recipe::Part {
                name: "holder",
                meaning: "a client that believes it holds a read or the write lock",
                played: |_, state| state.holds(),
            },
            crate::recipe::Part {
                name: "reader",
                meaning: "a client that believes it holds a read lock",
                played: |_, state| state.holds() && state.role == Role::Read,
            },
            crate::recipe::Part {
                name: "writer",
                meaning: "a client that believes it holds the write lock",
                played: |_, state| state.holds() && state.role == Role::Write,
            },
        ]
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

    /// A waiting reader whose node no `write-` node precedes any more: the
    /// deletion released it, with every other such reader. Judged by the
    /// reference rule whatever the variant, since the question is whether it
    /// may go, not whether it knows: no `write-` node with a smaller number,
    /// each node's number the one the server gave it
    /// ([`Store::sequence`]), not the one read from its name. Past a wrap
    /// that is not the create order, and a reader it releases may go beside
    /// an older writer: `mutual_exclusion` judges that, not the herd.
    fn released_together(&self, state: &State, tree: &Store) -> bool {
        let dir = self.directory();
        let Some(mine) = state.node.as_deref().filter(|_| state.role == Role::Read) else {
            return false;
        };
        let Some(mine) = tree.sequence(&dir.child(mine)) else {
            return false;
        };
        !(tree.children(dir).iter()).any(|name| {
            matches!(parse(name), Some((Role::Write, _)))
                && (tree.sequence(&dir.child(name)))
                    .is_some_and(|theirs| theirs.number < mine.number)
        })
    }
}

/// A command in a trace: the name scenario scripts give it.
impl std::fmt::Display for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(crate::catalogued::command_name::<SharedLock>(self))
    }
}

impl Catalogued for SharedLock {
    /// On `Expired` it gives up what it held or waited for; once its library
    /// opened a new session the application may ask again, under a GUID of
    /// that session ([`super::contender::Contender::session_guid`]).
    const RENEWS: bool = true;
    const WAITS: bool = true;
    const NAME: &'static str = "shared_lock";
    const DOCS: Docs = Docs {
        summary: "the read/write lock: read- and write- nodes under /lock; a reader waits for the writer below it, a writer for anyone below",
        variants: &[
            ("guid", "the reference, with the lock's GUID recovery and careful session handling"),
            ("lowest_write", "a reader watches the lowest write- node below it instead of the next lower one"),
            ("herd", "waiters list the children with a watch and wake on every change"),
        ],
        commands: &[
            ("read", "block until a read lock is held"),
            ("write", "block until the write lock is held"),
            ("work", "a writer writes to the protected resource; a reader reads it"),
            ("release", "delete its node"),
        ],
        group: &[
            &["read", "release"],
            &["write", "release"],
        ],
    };
    type Variant = Knobs;
    const VARIANTS: &'static [(&'static str, Knobs)] = &[
        ("guid", Knobs::GUID),
        ("lowest_write", Knobs::LOWEST_WRITE),
        ("herd", Knobs::HERD),
    ];
    const COMMANDS: &'static [(&'static str, Command)] = &[
        ("read", Command::Read),
        ("write", Command::Write),
        ("work", Command::Work),
        ("release", Command::Release),
    ];

    type Params = NoParams;

    fn build(knobs: Knobs, _params: &NoParams, _scripts: &[Vec<Self::Command>]) -> SharedLock {
        SharedLock::new(knobs)
    }

    fn properties() -> Vec<Promise<SharedLock>> {
        properties()
    }
}

/// What the shared lock promises, each `always` with its `sometimes` partner.
pub fn properties<R: Recipe>() -> Vec<Promise<R>> {
    vec![
        Promise::writer_exclusion(),
        Promise::herd_avoidance(),
        Promise::no_orphan_no_deadlock(),
        Promise::writer_acquired(),
        Promise::readers_share(),
        Promise::waiter_woken(),
    ]
}

/// A lock node's kind and sequence number, or `None` for another child.
pub fn parse(name: &str) -> Option<(Role, Token)> {
    if let Some(sequence) = sequence_after(name, "write-") {
        return Some((Role::Write, sequence));
    }
    sequence_after(name, "read-").map(|sequence| (Role::Read, sequence))
}

/// Steps 3 and 4 for both kinds, as a pure function of the children (in any
/// order) and our node's name, whose kind says which rule applies: a reader
/// waits for the next lower `write-` node, a writer for the next lower node of
/// either kind. Children that are not lock nodes are ignored.
pub fn decide(children: &[Arc<str>], mine: &str) -> Decision {
    decide_by(children, mine, parse, blocks, Pick::Next)
}

/// The `lowest_write` variant: a reader waits for the lowest `write-` node
/// below it; a writer as in [`decide`].
pub fn decide_lowest_write(children: &[Arc<str>], mine: &str) -> Decision {
    match parse(mine) {
        Some((Role::Read, _)) => decide_by(children, mine, parse, blocks, Pick::Lowest),
        _ => decide(children, mine),
    }
}

/// Whom a lower node blocks: a writer waits for everyone, a reader only for
/// writers.
fn blocks(ours: Role, theirs: Role) -> bool {
    ours == Role::Write || theirs == Role::Write
}

#[cfg(test)]
mod tests {
    use super::super::contender::permutations;
    use super::*;

    fn names(list: &[&str]) -> Vec<Arc<str>> {
        list.iter().map(|name| Arc::from(*name)).collect()
    }

    /// Every order of every subset of six nodes (three of each kind,
    /// interleaved), with each present node as ours: the rules against a
    /// definition written the other way round (scanning the sequence numbers
    /// downwards from ours).
    #[test]
    fn decide_matches_the_seed_for_every_subset_and_order() {
        let all = [
            "c0-write-0000000000",
            "c1-read-0000000001",
            "c2-read-0000000002",
            "c3-write-0000000003",
            "c4-read-0000000004",
            "c5-write-0000000005",
        ];
        let mut cases = 0;
        for mask in 1u32..64 {
            let present: Vec<&str> = (0..6)
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| all[i])
                .collect();
            for order in permutations(&present) {
                let children = names(&order);
                for (rank, mine) in present.iter().enumerate() {
                    // `present` is sorted by sequence: scan downwards.
                    let below = &present[..rank];
                    let writer = mine.contains("write-");
                    let next = below
                        .iter()
                        .rev()
                        .find(|name| writer || name.contains("write-"));
                    let lowest_write = below.iter().find(|name| name.contains("write-"));
                    let expect = |found: Option<&&str>| match found {
                        None => Decision::Holds,
                        Some(name) => Decision::Watch(Arc::from(*name)),
                    };
                    assert_eq!(decide(&children, mine), expect(next), "{order:?} {mine}");
                    let lowest = if writer { next } else { lowest_write };
                    assert_eq!(
                        decide_lowest_write(&children, mine),
                        expect(lowest),
                        "{order:?} {mine}"
                    );
                    cases += 1;
                }
            }
        }
        // The sum over subsets of size k of k! orders times k choices of ours.
        assert_eq!(cases, 9786);
    }

    #[test]
    fn readers_share_and_writers_wait_for_everyone_below() {
        let children = names(&[
            "c0-read-0000000000",
            "c1-read-0000000001",
            "c2-write-0000000002",
            "c3-read-0000000003",
        ]);
        assert_eq!(decide(&children, "c1-read-0000000001"), Decision::Holds);
        assert_eq!(
            decide(&children, "c2-write-0000000002"),
            Decision::Watch(Arc::from("c1-read-0000000001"))
        );
        assert_eq!(
            decide(&children, "c3-read-0000000003"),
            Decision::Watch(Arc::from("c2-write-0000000002"))
        );
    }

    #[test]
    fn lowest_write_watches_the_first_writer_not_the_nearest() {
        let children = names(&[
            "c0-write-0000000000",
            "c1-write-0000000001",
            "c2-read-0000000002",
        ]);
        assert_eq!(
            decide(&children, "c2-read-0000000002"),
            Decision::Watch(Arc::from("c1-write-0000000001"))
        );
        assert_eq!(
            decide_lowest_write(&children, "c2-read-0000000002"),
            Decision::Watch(Arc::from("c0-write-0000000000"))
        );
    }

    #[test]
    fn decide_reports_our_node_missing_and_ignores_strangers() {
        let children = names(&["c1-write-0000000001", "readme"]);
        assert_eq!(decide(&children, "c0-read-0000000000"), Decision::Missing);
        assert_eq!(decide(&children, "c0-lock-0000000000"), Decision::Missing);
        let children = names(&["readme", "c0-write-0000000004"]);
        assert_eq!(decide(&children, "c0-write-0000000004"), Decision::Holds);
    }

    #[test]
    fn parse_reads_kind_and_sequence() {
        assert_eq!(parse("c0-read-0000000012"), Some((Role::Read, 12)));
        assert_eq!(parse("c1r1-write--000000004"), Some((Role::Write, -4)));
        assert_eq!(parse("c0-lock-0000000001"), None);
        assert_eq!(parse("c0-read-"), None);
    }
}
