//! The priority queue (seed 000 "Priority Queues", seed 002 "Priority
//! Queue"): the queue ([`super::queue`]) with "two simple changes":
//!
//! 1. "To add to a queue, the pathname ends with `queue-YY` where YY is the
//!    priority of the element with lower numbers representing higher
//!    priority (just like UNIX)": a put creates `queue-YY-` sequentially, so
//!    that a node's name orders it by priority, then by sequence number
//!    ([`Command::PutHigh`] puts with priority 00, [`Command::PutLow`] with
//!    01; [`super::queue::key`] reads them back).
//! 2. "When removing from the queue, a client uses an up-to-date children
//!    list meaning that the client will invalidate previously obtained
//!    children lists if a watch notification triggers for the queue node"
//!    ([`OnChange::Invalidate`]: a notification drops the list, so the next
//!    take lists afresh).
//!
//! Everything else is the queue's reference (`guid`): persistent items named
//! by their GUID, lowest first, a `NONODE` means someone else took it.
//! Under renewed sessions it does what the queue does: once its library has
//! opened a new session the application makes the interrupted calls again,
//! a take from a fresh listing, since its list and its watch ended with the
//! old session.
//!
//! Variants are presets of its one knob, `on_change` ([`Knobs`]), which a
//! scenario may turn (`[knobs]`, per client in `[[client]]`):
//! - `fresh` (`invalidate`, the reference): the seed's invalidation;
//! - `stale_batch` (`relist`): a consumer lists again on every notification (to keep
//!   its one-shot watch) but goes on serving the list it read before until
//!   that list is exhausted, as Curator's batch processing does
//!   ([`OnChange::Relist`]);
//! - no preset turns it to `ignore`, the plain queue's: a consumer serves
//!   its list until it is exhausted and lists again only then.
//!
//! The property ([`highest_priority_first`]) is judged on what a consumer
//! was told, at the moment it chose an item (sent the first request of
//! taking it, [`queue::Fact::Chose`]): it fails if, then, an item that
//! outranks the chosen one was queued and the consumer knew of it, because
//! it was in the latest listing the consumer had read, or because a watch
//! event had told the consumer the queue changed since that listing (the
//! seed's "invalidate previously obtained children lists if a watch
//! notification triggers"): a listing then would show every item queued.
//! What the consumer was told its log keeps from what the world delivered
//! to it ([`Knowledge`], [`PriorityLog::learn`](Log::learn)), not from the
//! recipe's own account. The
//! property is no stronger: an item put after the consumer's listing, of
//! which no event has reached it yet, is one it cannot know of, whatever it
//! does; and an event that arrives after the choice cannot undo it.

use crate::properties::Promise;

use std::sync::Arc;

use super::queue::{self, Fact, OnChange, Queue, QueueLog};
pub use super::queue::{Put, State, Take};
use crate::catalogued::{refuse_restarts, Catalogued, Docs, NoParams};
use crate::recipe::{ClientId, Effects, Incarnation, Input, Log, Recipe, Witness};
use crate::store::{EventType, Op, OpResult, Path, Response};
use crate::world::faults::FaultBudget;
use crate::world::{Run, World, WorldState};

/// The priority of a [`Command::PutHigh`] item (`queue-00-`).
pub const HIGH: u8 = 0;
/// The priority of a [`Command::PutLow`] item (`queue-01-`).
pub const LOW: u8 = 1;

crate::knobs! {
    /// The priority queue's knobs. A variant is a preset of them
    /// ([`Knobs::FRESH`] and the other).
    pub struct Knobs {
        /// What a consumer does when told the queue changed while it is not waiting for an item.
        on_change: OnChange,
    }
}

impl Knobs {
    /// The reference: see the module's documentation.
    pub const FRESH: Knobs = Knobs {
        on_change: OnChange::Invalidate,
    };
    pub const STALE_BATCH: Knobs = Knobs {
        on_change: OnChange::Relist,
    };
}

/// What the application asks of the priority queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Command {
    /// Puts the producer's next item with the high priority.
    PutHigh,
    /// Puts the producer's next item with the low priority.
    PutLow,
    /// Takes the item of highest priority; blocks while the queue is empty.
    Take,
}

/// The priority queue under one setting of its knobs: the queue's actor,
/// its reference, with priorities.
#[derive(Clone, Debug)]
pub struct PriorityQueue {
    pub knobs: Knobs,
    pub queue: Queue,
}

impl PriorityQueue {
    pub fn new(knobs: Knobs) -> PriorityQueue {
        let mut queue = Queue::new(queue::Knobs::GUID);
        queue.record_listing = true;
        queue.on_change = knobs.on_change;
        PriorityQueue { knobs, queue }
    }
}

impl Recipe for PriorityQueue {
    type State = State;
    type Command = Command;
    type Fact = Fact;
    type Log = PriorityLog;

    fn data_words(bytes: &[u8]) -> Option<String> {
        Queue::data_words(bytes)
    }

    const PHASES: &'static [&'static str] = &queue::PHASES;

    fn phases(&self, state: &Self::State) -> u64 {
        state.phases()
    }

    fn shape(&self, state: &Self::State) -> u64 {
        self.queue.shape(state)
    }

    fn init(&self, _me: Incarnation) -> State {
        State::new()
    }

    fn handle(
        &self,
        me: Incarnation,
        state: &mut State,
        input: Input<Command>,
        out: &mut Effects<Fact>,
    ) {
        let queue = &self.queue;
        let input = match input {
            Input::Command(Command::PutHigh) => return queue.put(me, state, Some(HIGH), out),
            Input::Command(Command::PutLow) => return queue.put(me, state, Some(LOW), out),
            Input::Command(Command::Take) => Input::Command(queue::Command::Take),
            Input::Reply { op, result } => Input::Reply { op, result },
            Input::Watch(event) => Input::Watch(event),
            Input::Session(event) => Input::Session(event),
        };
        queue.on_input(me, state, input, out)
    }

    fn is_busy(&self, state: &State) -> bool {
        self.queue.is_busy(state)
    }

    fn is_waiting(&self, state: &State) -> bool {
        self.queue.is_waiting(state)
    }

    fn directory(&self) -> &Path {
        &self.queue.dir
    }

    fn claims(&self, _state: &State, _name: &str) -> bool {
        false
    }

    fn served(&self, op: &Op, result: &OpResult) -> Option<Fact> {
        self.queue.served(op, result)
    }
}

/// What a consumer was told of the queue, as the world delivered it: the
/// latest listing it read, and whether a watch event told it the queue
/// changed since. Kept by the log, not the recipe, so that a consumer's
/// choices are judged on what it was told, not on what it says it knew.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Knowledge {
    pub listing: Vec<Arc<str>>,
    pub told_of_change: bool,
}

/// The queue's log, with what each consumer was told and whether one chose
/// against its priority.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PriorityLog {
    pub queue: QueueLog,
    /// What each client was told of the queue, by client.
    pub knowledge: Vec<Knowledge>,
    /// A consumer chose an item while one that outranks it was queued and
    /// the consumer knew of it: in its latest listing, or after a watch
    /// event had told it the queue changed since that listing
    /// ([`Fact::Chose`]).
    pub inverted: bool,
    /// A consumer chose an item ahead of an item of lower priority in its
    /// latest listing that the server created before it and still queues:
    /// the priority mattered. Judged by the server's create order
    /// ([`crate::store::Store::creation_order`]), never by the numbers in
    /// the names, which wrap.
    pub jumped: bool,
}

/// Not renamed: its recipe does not say its clients are interchangeable ([`crate::symmetry`]).
impl crate::recipe::Symmetric for PriorityLog {}

impl AsRef<QueueLog> for PriorityLog {
    fn as_ref(&self) -> &QueueLog {
        &self.queue
    }
}

impl Log for PriorityLog {
    type Fact = Fact;

    fn new(clients: usize) -> PriorityLog {
        PriorityLog {
            queue: QueueLog::default(),
            knowledge: vec![Knowledge::default(); clients],
            inverted: false,
            jumped: false,
        }
    }

    fn record(&mut self, fact: &Fact, at: Witness<'_>) {
        let Fact::Chose { node } = fact else {
            return self.queue.record(fact, at);
        };
        let knew = &self.knowledge[at.process.client];
        let (store, dir) = (at.store, at.directory);
        let outranks = |name: &Arc<str>| queue::outranks(name, node);
        self.inverted |= knew
            .listing
            .iter()
            .any(|name| outranks(name) && store.exists(&dir.child(name)))
            || (knew.told_of_change && store.children(dir).iter().any(outranks));
        let created = |name: &str| store.creation_order(&dir.child(name));
        if let Some(mine) = created(node) {
            self.jumped |= (knew.listing.iter()).any(|name| {
                queue::outranks(node, name) && created(name).is_some_and(|theirs| theirs < mine)
            });
        }
    }

    fn learn<C>(&mut self, client: ClientId, input: &Input<C>, directory: &Path) {
        let knew = &mut self.knowledge[client];
        match input {
            Input::Reply {
                op: Op::GetChildren { path, .. },
                result: Ok(Response::Children { names, .. }),
            } if path == directory => {
                knew.listing = names.clone();
                knew.told_of_change = false;
            }
            Input::Watch(event)
                if event.kind == EventType::NodeChildrenChanged && event.path == *directory =>
            {
                knew.told_of_change = true;
            }
            _ => {}
        }
    }

    /// What it was told, then what it took and chose: a choice against the
    /// priority says why the consumer knew better (no later input of the
    /// step is a listing or an event).
    fn tell(&self, before: &PriorityLog, client: ClientId, facts: &[&Fact]) -> String {
        let told = self.knowledge[client].told_of_change;
        let mut out = String::new();
        if told && !before.knowledge[client].told_of_change {
            out.push_str("; told of a change since its listing");
        }
        let mut inverted = before.inverted;
        out + &self.queue.words(&before.queue, facts, |node| {
            if inverted || !self.inverted {
                return None;
            }
            inverted = true;
            let why = if told {
                "it was told the queue changed since its listing"
            } else {
                "its listing shows it"
            };
            Some(format!(
                "; CHOOSES {node} WHILE AN ITEM OF HIGHER PRIORITY IS QUEUED ({why})"
            ))
        })
    }

    fn tell_served(&self, before: &PriorityLog) -> String {
        self.queue.tell_served(&before.queue)
    }
}

/// A command in a trace: the name scenario scripts give it.
impl std::fmt::Display for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(crate::catalogued::command_name::<PriorityQueue>(self))
    }
}

impl Catalogued for PriorityQueue {
    /// Once its library opened a new session the application makes the
    /// calls the lost session interrupted again (the queue's module doc).
    const RENEWS: bool = true;
    /// A restarted producer numbers its puts from 0 again, and an item is
    /// named by its producer's client and serial, not by its process: its
    /// new items could not be told from its predecessor's, and the checker
    /// would find items "consumed twice" that were two items.
    fn check_faults(budget: &FaultBudget) -> Result<(), (&'static str, String)> {
        refuse_restarts(
            budget,
            "a restarted producer numbers its items from 0 again (items are named by client and serial, not by process), so its items could not be told from its predecessor's",
        )
    }

    const NAME: &'static str = "priority_queue";
    const DOCS: Docs = Docs {
        summary: "the priority queue: the queue with the priority in the node names, highest first",
        variants: &[
            (
                "fresh",
                "the reference: lists again whenever told the queue changed",
            ),
            (
                "stale_batch",
                "serves the list it read before until it is exhausted, as Curator's batches do",
            ),
        ],
        commands: &[
            (
                "put_high",
                "put the producer's next item with the high priority",
            ),
            (
                "put_low",
                "put the producer's next item with the low priority",
            ),
            (
                "take",
                "take the item of highest priority; block while the queue is empty",
            ),
        ],
        group: &[&["put_low", "put_high"], &["take", "take"]],
    };
    type Variant = Knobs;
    const VARIANTS: &'static [(&'static str, Knobs)] =
        &[("fresh", Knobs::FRESH), ("stale_batch", Knobs::STALE_BATCH)];
    const COMMANDS: &'static [(&'static str, Command)] = &[
        ("put_high", Command::PutHigh),
        ("put_low", Command::PutLow),
        ("take", Command::Take),
    ];

    type Params = NoParams;

    fn build(knobs: Knobs, _params: &NoParams, _scripts: &[Vec<Command>]) -> PriorityQueue {
        PriorityQueue::new(knobs)
    }

    fn properties() -> Vec<Promise<PriorityQueue>> {
        vec![
            Promise::always(
                "highest_priority_first",
                "no consumer chooses an item while it knows of a queued one of higher priority",
                highest_priority_first,
                priority_passed_over,
            ),
            queue::promise::consumed_once(),
            queue::promise::no_item_lost(),
            Promise::sometimes(
                "priority_jumped",
                "a take went ahead of an older item of lower priority (the priority mattered)",
                priority_jumped,
            ),
            queue::promise::item_consumed(),
            queue::promise::all_consumed(),
        ]
    }
}

/// No consumer chose an item while it knew of a queued one of higher
/// priority (see the module doc).
pub fn highest_priority_first(
    _: &World<PriorityQueue>,
    state: &WorldState<State, PriorityLog>,
) -> bool {
    !state.history.log.inverted
}

/// A consumer chose an item ahead of an older item of lower priority in its
/// listing, still queued: the priority mattered (the partner of highest
/// priority first, judged at the same moment, [`PriorityLog::jumped`]).
pub fn priority_jumped(_: &World<PriorityQueue>, state: &WorldState<State, PriorityLog>) -> bool {
    state.history.log.jumped
}

/// Why `highest_priority_first` is broken: which take passed over which
/// item.
fn priority_passed_over(
    world: &World<PriorityQueue>,
    run: Run<'_, PriorityQueue>,
) -> Option<String> {
    let step = run.first_step(|state| state.history.log.inverted)?;
    let (_, c, node) = run.facts().find_map(|(at, c, fact)| match fact {
        Fact::Chose { node } if at == step => Some((at, c, node.clone())),
        _ => None,
    })?;
    Some(format!(
        "at step {step} c{c} chose {}/{node} while it knew an item of higher priority was queued",
        world.directory()
    ))
}
