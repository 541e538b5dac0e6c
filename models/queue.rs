//! The distributed queue (seed 000 "Queues", seed 002 "Queue", seed 004
//! "Queue").
//!
//! The seeds' steps, each with the code that does it:
//!
//! 1. Designate a znode to hold the queue, the queue node (`/queue`, which
//!    the world creates before any client starts).
//! 2. A producer puts something into the queue by calling `create()` with a
//!    pathname ending in `queue-`, with the sequence (and, in the seeds, the
//!    ephemeral) flags set, so that the new node is `/queue/queue-X` with X a
//!    monotonic increasing number ([`Command::Put`], [`Queue::put`]). The
//!    node's data is the item ([`Item::bytes`]: which producer, which of its
//!    puts).
//! 3. A consumer calls `getChildren()` with watch set on the queue node
//!    ([`Queue::list`]) and begins processing nodes with the lowest number
//!    ([`order`]): "It sorts the children list M, takes out the lowest
//!    numbered child znode from the list, starts processing on it by taking
//!    out the data from the znode, and then deletes it" (seed 004): a
//!    `getData()` ([`Take::Reading`]) then a `delete()`
//!    ([`Take::Deleting`]); the item is the consumer's once its delete
//!    succeeded ([`Fact::Consumed`]).
//! 4. "The deletion of a znode by a client will fail because some other
//!    client has gained access to the znode while this client was retrieving
//!    the item" (seed 004): a `NONODE` on the read or the delete means another
//!    consumer took it; try the next one of the list.
//! 5. The consumer does not need to issue another `getChildren()` until it
//!    exhausts the list obtained from the first one ([`State::batch`]). If
//!    there are no children, it waits for a watch notification to check the
//!    queue again ([`Take::Waiting`]).
//!
//! Item identity: the node's data names the item; a consumer reads it before
//! deleting and reports [`Fact::Consumed`] once its delete succeeded.
//! What the server enqueued is a server fact ([`Recipe::served`] reports
//! [`Fact::Enqueued`] for every create it applied, whether or not the
//! producer heard back), so the history knows of an item whose put reply was
//! lost. The serial counts this process's puts, so a restarted producer would
//! reuse its predecessor's items' names: queue scenarios allow no restart.
//!
//! Errors, as a careful client handles them: `CONNECTIONLOSS` means the
//! request may or may not have been applied; a read or a listing is simply
//! sent again, a write is what the variants differ on. `SESSIONEXPIRED` ends
//! the process's use of ZooKeeper ([`State::dead`]): its calls return, its
//! persistent items stay in the queue, its ephemeral ones go.
//!
//! "Processing" is the application's business after the take returns: the
//! model hands the item over at the moment the delete's success is read. A
//! consumer that crashes after the server applied its delete and before it
//! read the reply has taken the item off the queue without handing it to
//! anyone: every delete-to-take queue is at most once under consumer crashes.
//!
//! Variants are presets of five knobs ([`Knobs`]), which a scenario may turn
//! one by one (`[knobs]`, per client in `[[client]]`):
//! - `guid` (the reference): persistent sequential items (the item must
//!   outlive its producer's session), named `c0.1-queue-N` with the item as a
//!   GUID; a lost put reply is recovered as the lock's GUID recovery does
//!   (seed 001): list the queue and look for our node before creating again.
//!   Its takes are the seeds': a lost delete reply, retried, answers
//!   `NONODE`, which step 4 reads as "someone else took it": at most once.
//! - `ephemeral` (`ephemeral = true`): the seeds' flags, sequence and ephemeral: an item lives only
//!   as long as its producer's session.
//! - `blind` (`put_recovery = "blind"`): the seeds' producer, which creates again after a lost reply
//!   (no GUID in the name).
//! - `unsorted` (`sorted = false`): the consumer takes the children in the order `getChildren`
//!   gave them (as in real ZooKeeper, not sorted) rather than lowest first.
//! - `exactly_once` (`put_recovery = "marker"`, `take_by = "receipt"`): the
//!   reference with both writes made recoverable by a
//!   `multi`: a put also creates a marker `put-c0.1`, a take deletes the item
//!   and creates a receipt `taken-c1-0` in one transaction; after a lost
//!   reply the client asks whether its marker or receipt exists, which only
//!   the applied transaction can have made; the call returns once it has
//!   deleted the marker or receipt. Sound because nobody else touches them
//!   and each name is used once (the item's, and the consumer's take count).
//! - `forgets_expired` (`exactly_once` with `resumes = false`): `exactly_once`
//!   whose application takes a call that
//!   failed with SESSIONEXPIRED for not done (see renewed sessions below).
//!
//! Renewed sessions (`[library] on_expiry = "renew"`, as Curator's and
//! kazoo's libraries do): a call in flight when the session ended may or
//! may not have been applied: a request of it whose reply was lost with the
//! connection may have been, and the recovery that would have found out is
//! what the expiry fails with SESSIONEXPIRED. Items, markers and receipts are persistent and named by item or by
//! take, not by session, so once its library has opened a new session the
//! application makes the interrupted call again through the same recovery a
//! lost reply takes: a put looks for its item (by GUID, or by its marker),
//! or creates again (`blind`); a take whose transaction was sent asks
//! whether its receipt exists, a delete is sent again, and a take that had
//! not got that far lists again, its watch having died with the session.
//! `forgets_expired` gives the interrupted calls up instead: a take whose
//! transaction the server applied took the item off the queue for no one.
//!
//! Every combination of the knobs is a coherent queue: a marker's put and a
//! receipt's take are independent of each other and of the item's flags.
//!
//! The priority queue ([`super::priority_queue`]) is this actor with
//! priorities in the names and one more setting ([`OnChange`]).

use std::sync::Arc;

use crate::properties::Promise;

use super::contender::sequence_after;
use crate::catalogued::{refuse_restarts, Catalogued, Docs, NoParams};
use crate::client::SessionEvent;
use crate::recipe::{is_connection_loss, ClientId, Effects, Incarnation, Input, Recipe};
use crate::store::{
    data, CreateMode, ErrorCode, EventType, MultiOp, MultiOutcome, Op, OpResult, Path, Response,
    ANY_VERSION,
};
use crate::world::faults::FaultBudget;
use crate::world::{Run, World, WorldState};

mod facts;
pub use facts::{items, Fact, Item, Items, QueueLog};

/// The marker in an item node's name before its priority (if any) and its
/// sequence number.
pub const MARKER: &str = "queue-";

crate::knobs! {
    /// The queue's knobs. A variant is a preset of them ([`Knobs::GUID`]
    /// and the others).
    pub struct Knobs {
        /// Items are ephemeral (the seeds' flags): an item lives only as long as its producer's session; without it, persistent.
        ephemeral: bool,
        /// How a producer answers a lost put reply.
        put_recovery: PutRecovery,
        /// How a consumer takes the item it has read.
        take_by: TakeBy,
        /// A consumer takes the lowest-numbered item first (step 3); without it, in the order `getChildren` gave them (not sorted, in real ZooKeeper).
        sorted: bool,
        /// Once its library renewed its session the application makes the calls the lost session interrupted again; without it, it takes a call that failed with SESSIONEXPIRED for not done.
        resumes: bool,
    }
}

impl Knobs {
    /// The reference: see the module's documentation.
    pub const GUID: Knobs = Knobs {
        ephemeral: false,
        put_recovery: PutRecovery::Guid,
        take_by: TakeBy::Delete,
        sorted: true,
        resumes: true,
    };
    pub const EPHEMERAL: Knobs = Knobs {
        ephemeral: true,
        ..Knobs::GUID
    };
    pub const BLIND: Knobs = Knobs {
        put_recovery: PutRecovery::Blind,
        ..Knobs::GUID
    };
    pub const UNSORTED: Knobs = Knobs {
        sorted: false,
        ..Knobs::GUID
    };
    pub const EXACTLY_ONCE: Knobs = Knobs {
        put_recovery: PutRecovery::Marker,
        take_by: TakeBy::Receipt,
        ..Knobs::GUID
    };
    pub const FORGETS_EXPIRED: Knobs = Knobs {
        resumes: false,
        ..Knobs::EXACTLY_ONCE
    };
}

/// What the application asks of the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Command {
    /// Puts the producer's next item; returns when the server has it.
    Put,
    /// Takes one item; blocks while the queue is empty.
    Take,
    /// The process closes its session and exits (a producer whose work is
    /// done): its ephemeral nodes go with the session.
    Quit,
}

crate::knob_value! {
    /// How a producer answers a lost put reply.
    pub enum PutRecovery {
        /// it lists the queue and looks for the node whose name carries the item (seed 001's GUID, applied to items; the reference)
        Guid = "guid",
        /// it creates again (the seeds' producer, no GUID in the name): the item may be enqueued twice
        Blind = "blind",
        /// the put is a `multi` that also creates a marker `put-c0.1`; it asks whether the marker exists
        Marker = "marker",
    }
}

crate::knob_value! {
    /// How a consumer takes the item it has read.
    pub enum TakeBy {
        /// `delete()`; after a lost reply, delete again, whose NONODE reads "someone else took it" (the seeds'; the reference)
        Delete = "delete",
        /// `multi(delete item, create receipt)`; after a lost reply, ask whether the receipt exists
        Receipt = "receipt",
    }
}

crate::knob_value! {
    /// What a consumer does when the queue node's children change while it
    /// is not waiting for an item.
    pub enum OnChange {
        /// nothing: it serves its list until it is exhausted (the plain queue)
        Ignore = "ignore",
        /// drops its list, so that its next take lists afresh (the priority queue's "invalidate previously obtained children lists")
        Invalidate = "invalidate",
        /// lists again to keep its watch, but goes on serving the list it had until it is exhausted (Curator's batch processing)
        Relist = "relist",
    }
}

/// Where a producer is in its put.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Put {
    Idle,
    /// The create (or the put's `multi`) sent for this item.
    Creating(Putting),
    /// Its reply was lost: looking for the item's node or marker.
    Recovering(Putting),
    /// The put is applied: deleting its marker (`exactly_once`) before the
    /// call returns.
    CleaningUp(Putting),
}

/// `Creating c0.1 priority 2`.
impl std::fmt::Display for Put {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Put::Idle => write!(f, "Idle"),
            Put::Creating(putting) => write!(f, "Creating {putting}"),
            Put::Recovering(putting) => write!(f, "Recovering {putting}"),
            Put::CleaningUp(putting) => write!(f, "CleaningUp {putting}"),
        }
    }
}

/// The item being put, with its priority (the priority queue's).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Putting {
    pub item: Item,
    pub priority: Option<u8>,
}

impl std::fmt::Debug for Putting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl std::fmt::Display for Putting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.priority {
            Some(priority) => write!(f, "{} priority {priority}", self.item),
            None => write!(f, "{}", self.item),
        }
    }
}

/// Where a consumer is in its take.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum Take {
    Idle,
    /// The `getChildren()` with a watch sent (step 3).
    Listing,
    /// The queue was empty: waiting for the watch (step 5).
    Waiting,
    /// Reading this node's item (step 3's `getData()`).
    Reading(Arc<str>),
    /// Deleting this node, which carries this item.
    Deleting(Arc<str>, Item),
    /// The take's `multi` reply was lost: asking whether the receipt exists.
    Checking(Arc<str>, Item),
    /// The item is taken and handed over: deleting the receipt
    /// (`exactly_once`) before the call returns.
    CleaningUp,
}

/// `Reading queue-0000000002`, `Deleting queue-0000000002 (c0.1)`.
impl std::fmt::Debug for Take {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl std::fmt::Display for Take {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Take::Idle => write!(f, "Idle"),
            Take::Listing => write!(f, "Listing"),
            Take::Waiting => write!(f, "Waiting"),
            Take::Reading(node) => write!(f, "Reading {node}"),
            Take::Deleting(node, item) => write!(f, "Deleting {node} ({item})"),
            Take::Checking(node, item) => write!(f, "Checking {node} ({item})"),
            Take::CleaningUp => write!(f, "CleaningUp"),
        }
    }
}

/// One client's queue state: its put, its take, and the list it serves.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct State {
    /// The session expired (or was closed): this process's calls return at
    /// once and do nothing.
    pub dead: bool,
    /// Puts begun: the serial of the next item.
    pub puts: u8,
    pub put: Put,
    /// Takes that ended with an item: the number of the next receipt.
    pub takes: u8,
    pub take: Take,
    /// The names still to try from the last listing, in the order to try
    /// them (step 5).
    pub batch: Vec<Arc<str>>,
    /// The priority queue: the latest listing read, in order, whether or not
    /// it is the one served.
    pub listing: Vec<Arc<str>>,
    /// The put and the take the session's end interrupted, which the
    /// application makes again once its library renewed the session.
    pub interrupted: (Put, Take),
    /// The application closed its session (`quit`): it is done, whatever
    /// its library hears of that session afterwards.
    pub quit: bool,
}

/// Not renamed: its recipe does not say its clients are interchangeable ([`crate::symmetry`]).
impl crate::recipe::Symmetric for State {}

impl State {
    pub fn new() -> State {
        State {
            dead: false,
            puts: 0,
            put: Put::Idle,
            takes: 0,
            take: Take::Idle,
            batch: Vec::new(),
            listing: Vec::new(),
            interrupted: (Put::Idle, Take::Idle),
            quit: false,
        }
    }
}

impl Default for State {
    fn default() -> State {
        State::new()
    }
}

/// Traces print a state on every step, only what is not idle: `put
/// Creating(c0.1)`, `take Reading queue-0000000002, batch [queue-0000000003]`.
/// Debug as the trace words it: the explorer and test failures read the same.
impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl std::fmt::Display for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts = Vec::new();
        if self.dead {
            parts.push("dead".to_string());
        }
        if self.put != Put::Idle {
            parts.push(format!("put {}", self.put));
        }
        if self.take != Take::Idle {
            parts.push(format!("take {}", self.take));
        }
        let (put, take) = &self.interrupted;
        if *put != Put::Idle {
            parts.push(format!("interrupted put {put}"));
        }
        if *take != Take::Idle {
            parts.push(format!("interrupted take {take}"));
        }
        let list = |names: &[Arc<str>]| format!("[{}]", names.join(", "));
        if !self.batch.is_empty() {
            parts.push(format!("batch {}", list(&self.batch)));
        }
        if !self.listing.is_empty() && self.listing != self.batch {
            parts.push(format!("listed {}", list(&self.listing)));
        }
        if parts.is_empty() {
            parts.push("idle".to_string());
        }
        write!(f, "{}", parts.join(", "))
    }
}

/// The queue under one setting of its knobs.
#[derive(Clone, Debug)]
pub struct Queue {
    pub knobs: Knobs,
    pub dir: Path,
    /// What a consumer does when the children change: the priority
    /// queue's knob; the plain queue ignores it.
    pub on_change: OnChange,
    /// Keep the latest listing and tell the world each node chosen
    /// ([`Fact::Chose`], which the priority queue's properties judge).
    pub record_listing: bool,
}

impl Queue {
    pub fn new(knobs: Knobs) -> Queue {
        Queue {
            knobs,
            dir: Path::new("/queue"),
            on_change: OnChange::Ignore,
            record_listing: false,
        }
    }

    /// The name a put creates under: `c0.1-queue-`, or `queue-` without a
    /// GUID; with a priority, `queue-YY-` after it.
    pub fn prefix(&self, item: Item, priority: Option<u8>) -> String {
        let guid = match self.knobs.put_recovery {
            PutRecovery::Guid => format!("{item}-"),
            PutRecovery::Blind | PutRecovery::Marker => String::new(),
        };
        match priority {
            Some(priority) => format!("{guid}{MARKER}{priority:02}-"),
            None => format!("{guid}{MARKER}"),
        }
    }

    fn at(&self, name: &str) -> Path {
        self.dir.child(name)
    }

    /// The put's marker (`exactly_once`): `put-c0.1`.
    fn marker(&self, item: Item) -> Path {
        self.at(&format!("put-{item}"))
    }

    /// The take's receipt (`exactly_once`): `taken-c1-0` for client 1's
    /// first item.
    fn receipt(&self, me: Incarnation, takes: u8) -> Path {
        self.at(&format!("taken-{}-{takes}", me.guid()))
    }

    /// Step 2: puts the producer's next item, with `priority` for the
    /// priority queue.
    pub fn put(
        &self,
        me: Incarnation,
        state: &mut State,
        priority: Option<u8>,
        out: &mut Effects<Fact>,
    ) {
        if state.dead || state.put != Put::Idle {
            return;
        }
        let putting = Putting {
            item: Item::new(me.client, usize::from(state.puts)),
            priority,
        };
        state.puts += 1;
        state.put = Put::Creating(putting);
        out.send(self.create(putting));
    }

    /// The request that enqueues an item.
    fn create(&self, Putting { item, priority }: Putting) -> Op {
        let mode = if self.knobs.ephemeral {
            CreateMode::EphemeralSequential
        } else {
            CreateMode::PersistentSequential
        };
        let path = self.at(&self.prefix(item, priority));
        match self.knobs.put_recovery {
            PutRecovery::Blind | PutRecovery::Guid => Op::Create {
                path,
                data: data(&item.bytes()),
                mode,
            },
            PutRecovery::Marker => Op::Multi(vec![
                MultiOp::Create {
                    path,
                    data: data(&item.bytes()),
                    mode,
                },
                MultiOp::Create {
                    path: self.marker(item),
                    data: None,
                    mode: CreateMode::Persistent,
                },
            ]),
        }
    }

    /// Starts a take (step 3, or the next of the list, step 5).
    pub fn take(&self, state: &mut State, out: &mut Effects<Fact>) {
        if state.dead || state.take != Take::Idle {
            return;
        }
        self.next(state, out);
    }

    /// Tries the next node of the list, or lists when it is exhausted.
    fn next(&self, state: &mut State, out: &mut Effects<Fact>) {
        if state.batch.is_empty() {
            self.list(state, out);
            return;
        }
        let node = state.batch.remove(0);
        if self.record_listing {
            out.fact(Fact::Chose { node: node.clone() });
        }
        state.take = Take::Reading(node.clone());
        out.send(Op::GetData {
            path: self.at(&node),
            watch: false,
        });
    }

    fn list(&self, state: &mut State, out: &mut Effects<Fact>) {
        state.take = Take::Listing;
        out.send(self.list_op());
    }

    fn list_op(&self) -> Op {
        Op::GetChildren {
            path: self.dir.clone(),
            watch: true,
        }
    }

    /// The request that takes the node `node` carrying `item`.
    fn delete(&self, me: Incarnation, state: &State, node: &str) -> Op {
        match self.knobs.take_by {
            TakeBy::Delete => Op::Delete {
                path: self.at(node),
                version: ANY_VERSION,
            },
            TakeBy::Receipt => Op::Multi(vec![
                MultiOp::Delete {
                    path: self.at(node),
                    version: ANY_VERSION,
                },
                MultiOp::Create {
                    path: self.receipt(me, state.takes),
                    data: None,
                    mode: CreateMode::Persistent,
                },
            ]),
        }
    }

    /// The take took the node carrying `item`: hand it over.
    fn took(&self, state: &mut State, item: Item, out: &mut Effects<Fact>) {
        out.fact(Fact::Consumed { item });
        state.takes += 1;
        state.take = Take::Idle;
    }

    /// The take's `multi` was applied: hand the item over, then delete the
    /// receipt before the call returns.
    fn took_with_receipt(
        &self,
        me: Incarnation,
        state: &mut State,
        item: Item,
        out: &mut Effects<Fact>,
    ) {
        let receipt = self.receipt(me, state.takes);
        self.took(state, item, out);
        state.take = Take::CleaningUp;
        out.send(self.clean_up(receipt));
    }

    fn on_reply(
        &self,
        me: Incarnation,
        state: &mut State,
        op: Op,
        result: OpResult,
        out: &mut Effects<Fact>,
    ) {
        if result == Err(ErrorCode::SessionExpired) {
            self.die(state);
            return;
        }
        match &op {
            // A marker's or a receipt's clean-up: a lost one may not have
            // been applied, so delete again; any answer else (deleted, or
            // NONODE after a lost one that was) ends the call.
            Op::Delete { path, .. } if !item_name(path.name()) => {
                if is_connection_loss(&result) {
                    out.send(op);
                } else if path.name().starts_with("put-") {
                    state.put = Put::Idle;
                } else {
                    state.take = Take::Idle;
                }
            }
            Op::GetChildren { watch: false, .. } => {
                self.on_recovery_listing(state, op, result, out)
            }
            Op::GetChildren { watch: true, .. } => match result {
                Ok(Response::Children { names, .. }) => self.on_children(state, &names, out),
                Err(ErrorCode::ConnectionLoss)
                    if state.take == Take::Listing || self.on_change == OnChange::Relist =>
                {
                    out.send(op)
                }
                _ => {}
            },
            _ if is_put_reply(&op) => self.on_put_reply(state, op, result, out),
            _ => self.on_take_reply(me, state, op, result, out),
        }
    }

    /// A producer recovering its lost put by GUID (seed 001): the listing
    /// shows the item's node, or the create was not applied.
    fn on_recovery_listing(
        &self,
        state: &mut State,
        op: Op,
        result: OpResult,
        out: &mut Effects<Fact>,
    ) {
        let Put::Recovering(putting) = state.put else {
            return;
        };
        match result {
            Ok(Response::Children { names, .. }) => {
                let guid = format!("{}-", putting.item);
                if names.iter().any(|name| name.starts_with(&guid)) {
                    state.put = Put::Idle;
                } else {
                    state.put = Put::Creating(putting);
                    out.send(self.create(putting));
                }
            }
            Err(ErrorCode::ConnectionLoss) => out.send(op),
            _ => state.put = Put::Idle,
        }
    }

    fn on_children(&self, state: &mut State, names: &[Arc<str>], out: &mut Effects<Fact>) {
        let items = order(names, self.knobs.sorted);
        if self.record_listing {
            state.listing = items.clone();
        }
        if state.take != Take::Listing {
            // The `Relist` knob's listing, read beside the list it serves.
            return;
        }
        state.batch = items;
        if state.batch.is_empty() {
            state.take = Take::Waiting;
        } else {
            self.next(state, out);
        }
    }

    fn on_put_reply(&self, state: &mut State, op: Op, result: OpResult, out: &mut Effects<Fact>) {
        let (Put::Creating(putting) | Put::Recovering(putting) | Put::CleaningUp(putting)) =
            state.put
        else {
            return;
        };
        let item = putting.item;
        match (&op, result) {
            (Op::Create { .. } | Op::Multi(_), Err(ErrorCode::ConnectionLoss)) => {
                self.recover_put(state, putting, op, out)
            }
            (Op::Create { .. }, Ok(_)) => state.put = Put::Idle,
            (Op::Multi(_), Ok(Response::Multi(MultiOutcome::Committed(_))))
            | (Op::Exists { .. }, Ok(Response::Exists(Some(_)))) => {
                state.put = Put::CleaningUp(putting);
                out.send(self.clean_up(self.marker(item)));
            }
            (Op::Exists { .. }, Ok(Response::Exists(None))) => {
                state.put = Put::Creating(putting);
                out.send(self.create(putting));
            }
            (Op::Exists { .. }, Err(ErrorCode::ConnectionLoss)) => out.send(op),
            // Anything else (an aborted multi: the marker exists, so the put
            // was applied before) ends the put.
            _ => state.put = Put::Idle,
        }
    }

    fn clean_up(&self, path: Path) -> Op {
        Op::Delete {
            path,
            version: ANY_VERSION,
        }
    }

    fn on_take_reply(
        &self,
        me: Incarnation,
        state: &mut State,
        op: Op,
        result: OpResult,
        out: &mut Effects<Fact>,
    ) {
        match (state.take.clone(), &op, result) {
            (Take::Reading(node), Op::GetData { .. }, Ok(Response::Data { data, .. })) => {
                match data.as_deref().and_then(Item::parse) {
                    Some(item) => {
                        out.send(self.delete(me, state, &node));
                        state.take = Take::Deleting(node, item);
                    }
                    // Not an item: not ours to take.
                    None => self.next(state, out),
                }
            }
            // Step 4: someone else took it.
            (Take::Reading(_), Op::GetData { .. }, Err(ErrorCode::NoNode)) => self.next(state, out),
            (Take::Reading(_), Op::GetData { .. }, Err(ErrorCode::ConnectionLoss)) => out.send(op),
            (Take::Deleting(_, item), Op::Delete { .. }, Ok(_)) => self.took(state, item, out),
            // Step 4, and, after a lost reply, the seeds' reading of a NONODE
            // that our own first delete may have caused.
            (Take::Deleting(..), Op::Delete { .. }, Err(ErrorCode::NoNode)) => {
                self.next(state, out)
            }
            (Take::Deleting(..), Op::Delete { .. }, Err(ErrorCode::ConnectionLoss)) => out.send(op),
            (
                Take::Deleting(_, item),
                Op::Multi(_),
                Ok(Response::Multi(MultiOutcome::Committed(_))),
            ) => self.took_with_receipt(me, state, item, out),
            // The item was gone (step 4).
            (
                Take::Deleting(..),
                Op::Multi(_),
                Ok(Response::Multi(MultiOutcome::Aborted { .. })),
            ) => self.next(state, out),
            (Take::Deleting(node, item), Op::Multi(_), Err(ErrorCode::ConnectionLoss)) => {
                self.check_receipt(me, state, node, item, out)
            }
            (Take::Checking(_, item), Op::Exists { .. }, Ok(Response::Exists(Some(_)))) => {
                self.took_with_receipt(me, state, item, out)
            }
            // The take's transaction was not applied: try it again.
            (Take::Checking(node, item), Op::Exists { .. }, Ok(Response::Exists(None))) => {
                out.send(self.delete(me, state, &node));
                state.take = Take::Deleting(node, item);
            }
            (Take::Checking(..), Op::Exists { .. }, Err(ErrorCode::ConnectionLoss)) => out.send(op),
            _ => {}
        }
    }

    fn on_watch(&self, state: &mut State, kind: EventType, out: &mut Effects<Fact>) {
        if kind != EventType::NodeChildrenChanged || state.dead {
            return;
        }
        if state.take == Take::Waiting {
            self.list(state, out);
            return;
        }
        match self.on_change {
            OnChange::Ignore => {}
            OnChange::Invalidate => state.batch.clear(),
            OnChange::Relist => out.send(self.list_op()),
        }
    }

    /// Closes the session, unless a call is under way or it has ended.
    pub fn quit(&self, state: &mut State, out: &mut Effects<Fact>) {
        if !state.dead && !self.is_busy(state) {
            out.send(Op::Close);
            self.die(state);
            state.quit = true;
        }
    }

    fn die(&self, state: &mut State) {
        // A SESSIONEXPIRED reply and the `Expired` event both end it; the
        // first says what was interrupted.
        if state.dead {
            return;
        }
        state.dead = true;
        let put = std::mem::replace(&mut state.put, Put::Idle);
        let take = std::mem::replace(&mut state.take, Take::Idle);
        if self.knobs.resumes {
            state.interrupted = (put, take);
        }
        state.batch.clear();
    }

    /// A session of its own again: makes the interrupted calls again, each
    /// through the recovery a lost reply takes (the module doc says why).
    fn renewed(&self, me: Incarnation, state: &mut State, out: &mut Effects<Fact>) {
        state.dead = false;
        let (put, take) = std::mem::replace(&mut state.interrupted, (Put::Idle, Take::Idle));
        match put {
            Put::Idle => {}
            Put::Creating(putting) | Put::Recovering(putting) => {
                self.recover_put(state, putting, self.create(putting), out)
            }
            Put::CleaningUp(putting) => {
                state.put = Put::CleaningUp(putting);
                out.send(self.clean_up(self.marker(putting.item)));
            }
        }
        match take {
            Take::Idle => {}
            Take::Listing | Take::Waiting | Take::Reading(_) => self.list(state, out),
            Take::Deleting(node, item) | Take::Checking(node, item) => {
                if self.knobs.take_by == TakeBy::Receipt {
                    self.check_receipt(me, state, node, item, out);
                } else {
                    out.send(self.delete(me, state, &node));
                    state.take = Take::Deleting(node, item);
                }
            }
            Take::CleaningUp => {
                state.take = Take::CleaningUp;
                let taken = state.takes.saturating_sub(1);
                out.send(self.clean_up(self.receipt(me, taken)));
            }
        }
    }

    /// Whether the put of `putting` was applied, after its `create` was
    /// lost: as `put_recovery` says (module doc).
    fn recover_put(
        &self,
        state: &mut State,
        putting: Putting,
        create: Op,
        out: &mut Effects<Fact>,
    ) {
        match self.knobs.put_recovery {
            // The seeds' producer: create again.
            PutRecovery::Blind => {
                state.put = Put::Creating(putting);
                out.send(create);
            }
            PutRecovery::Guid => {
                state.put = Put::Recovering(putting);
                out.send(Op::GetChildren {
                    path: self.dir.clone(),
                    watch: false,
                });
            }
            PutRecovery::Marker => {
                state.put = Put::Recovering(putting);
                out.send(Op::Exists {
                    path: self.marker(putting.item),
                    watch: false,
                });
            }
        }
    }

    /// Whether the take's transaction was applied: does its receipt exist?
    fn check_receipt(
        &self,
        me: Incarnation,
        state: &mut State,
        node: Arc<str>,
        item: Item,
        out: &mut Effects<Fact>,
    ) {
        out.send(Op::Exists {
            path: self.receipt(me, state.takes),
            watch: false,
        });
        state.take = Take::Checking(node, item);
    }

    /// Reacts to one input other than a command.
    pub fn on_input(
        &self,
        me: Incarnation,
        state: &mut State,
        input: Input<Command>,
        out: &mut Effects<Fact>,
    ) {
        match input {
            Input::Command(Command::Put) => self.put(me, state, None, out),
            Input::Command(Command::Take) => self.take(state, out),
            Input::Command(Command::Quit) => self.quit(state, out),
            Input::Reply { op, result } => self.on_reply(me, state, op, result, out),
            Input::Watch(event) if event.path == self.dir => self.on_watch(state, event.kind, out),
            Input::Watch(_) => {}
            Input::Session(SessionEvent::Expired | SessionEvent::Closed) => self.die(state),
            // (A library does not renew a session its application closed:
            // a close whose reply was lost is heard of as `Expired`.)
            Input::Session(SessionEvent::SyncConnected) if state.dead && !state.quit => {
                self.renewed(me, state, out)
            }
            Input::Session(_) => {}
        }
    }

    pub fn is_busy(&self, state: &State) -> bool {
        state.put != Put::Idle || state.take != Take::Idle
    }

    /// Blocked in a take on an empty queue.
    pub fn is_waiting(&self, state: &State) -> bool {
        state.take == Take::Waiting
    }

    /// The enqueue the server applied, if `op` was a put.
    pub fn served(&self, op: &Op, result: &OpResult) -> Option<Fact> {
        let bytes = match (op, result) {
            (Op::Create { path, data, .. }, Ok(_)) if self.is_item_path(path) => data,
            (Op::Multi(ops), Ok(Response::Multi(MultiOutcome::Committed(_)))) => {
                ops.iter().find_map(|one| match one {
                    MultiOp::Create { path, data, .. } if self.is_item_path(path) => Some(data),
                    _ => None,
                })?
            }
            _ => return None,
        };
        let item = Item::parse(bytes.as_deref()?)?;
        Some(Fact::Enqueued { item })
    }

    /// Whether a create of `path` (a prefix the server completes) makes an
    /// item node.
    fn is_item_path(&self, path: &Path) -> bool {
        path.is_child_of(&self.dir) && path.name().contains(MARKER)
    }
}

/// Whether `op` is one a producer sends while putting (and a consumer never
/// sends): a create, a put's `multi`, or the `exists` on a put's marker.
fn is_put_reply(op: &Op) -> bool {
    match op {
        Op::Create { .. } => true,
        Op::Multi(ops) => matches!(ops.first(), Some(MultiOp::Create { .. })),
        Op::Exists { path, .. } => path.name().starts_with("put-"),
        _ => false,
    }
}

impl Recipe for Queue {
    type State = State;
    type Command = Command;
    type Fact = Fact;
    type Log = QueueLog;

    fn data_words(bytes: &[u8]) -> Option<String> {
        Item::parse(bytes).map(|item| format!("item {item}"))
    }

    const PHASES: &'static [&'static str] = &PHASES;

    fn phases(&self, state: &Self::State) -> u64 {
        state.phases()
    }

    fn shape(&self, state: &Self::State) -> u64 {
        state.phases()
            ^ ((state.batch.len() as u64) << 40
                | (state.listing.len() as u64) << 48
                | u64::from(state.dead) << 56
                | u64::from(state.quit) << 57)
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
        self.on_input(me, state, input, out)
    }

    fn is_busy(&self, state: &State) -> bool {
        Queue::is_busy(self, state)
    }

    fn is_waiting(&self, state: &State) -> bool {
        Queue::is_waiting(self, state)
    }

    fn directory(&self) -> &Path {
        &self.dir
    }

    /// A queue's nodes belong to the queue, not to whoever created them.
    fn claims(&self, _state: &State, _name: &str) -> bool {
        false
    }

    fn served(&self, op: &Op, result: &OpResult) -> Option<Fact> {
        Queue::served(self, op, result)
    }
}

/// A command in a trace: the name scenario scripts give it.
impl std::fmt::Display for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(crate::catalogued::command_name::<Queue>(self))
    }
}

impl Catalogued for Queue {
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

    const NAME: &'static str = "queue";
    const DOCS: Docs = Docs {
        summary: "the distributed queue: producers create sequential nodes under /queue, consumers take the lowest by deleting it",
        variants: &[
            ("guid", "the reference: persistent items named by their GUID, a lost put recovered by it"),
            ("ephemeral", "the seeds' flags: an item lives only as long as its producer's session"),
            ("blind", "the seeds' producer: creates again after a lost reply"),
            ("unsorted", "takes the children in getChildren's order rather than lowest first"),
            ("exactly_once", "both writes recoverable through a multi with a marker and a receipt"),
            ("forgets_expired", "exactly_once, but a call its lost session interrupted is given up, not made again in the renewed session"),
        ],
        commands: &[
            ("put", "put the producer's next item"),
            ("take", "take the lowest item; block while the queue is empty"),
            ("quit", "close the session"),
        ],
        group: &[
            &["put"],
            &["take"],
        ],
    };
    type Variant = Knobs;
    const VARIANTS: &'static [(&'static str, Knobs)] = &[
        ("guid", Knobs::GUID),
        ("ephemeral", Knobs::EPHEMERAL),
        ("blind", Knobs::BLIND),
        ("unsorted", Knobs::UNSORTED),
        ("exactly_once", Knobs::EXACTLY_ONCE),
        ("forgets_expired", Knobs::FORGETS_EXPIRED),
    ];
    const COMMANDS: &'static [(&'static str, Command)] = &[
        ("put", Command::Put),
        ("take", Command::Take),
        ("quit", Command::Quit),
    ];

    type Params = NoParams;

    fn build(knobs: Knobs, _params: &NoParams, _scripts: &[Vec<Command>]) -> Queue {
        Queue::new(knobs)
    }

    fn properties() -> Vec<Promise<Queue>> {
        vec![
            promise::consumed_once(),
            promise::no_item_lost(),
            Promise::always(
                "producer_order",
                "each consumer gets a producer's items in the order they were produced",
                producer_order,
                producer_order_broken,
            ),
            promise::item_consumed(),
            promise::all_consumed(),
            Promise::sometimes(
                "two_of_one_producer",
                "a consumer took two items of one producer (producer order is not vacuous)",
                two_of_one_producer,
            ),
        ]
    }
}

/// The promises the queue and the priority queue share, declared once.
pub mod promise {
    use super::{consumed_once_broken, no_item_lost_broken, Fact, QueueLog};
    use crate::properties::Promise;
    use crate::recipe::Recipe;

    pub fn consumed_once<R: Recipe<Fact = Fact, Log: AsRef<QueueLog>>>() -> Promise<R> {
        Promise::always(
            "consumed_once",
            "no item is handed to an application twice",
            super::consumed_once,
            consumed_once_broken,
        )
    }

    pub fn no_item_lost<R: Recipe<Fact = Fact, Log: AsRef<QueueLog>>>() -> Promise<R> {
        Promise::always(
            "no_item_lost",
            "once nothing but a fault can happen, every enqueued item was consumed or can \
             still be",
            super::no_item_lost,
            no_item_lost_broken,
        )
    }

    pub fn item_consumed<R: Recipe<Fact = Fact, Log: AsRef<QueueLog>>>() -> Promise<R> {
        Promise::sometimes(
            "item_consumed",
            "some consumer took an item (consumed once is not vacuous)",
            super::item_consumed,
        )
    }

    pub fn all_consumed<R: Recipe<Fact = Fact, Log: AsRef<QueueLog>>>() -> Promise<R> {
        Promise::sometimes(
            "all_consumed",
            "every item enqueued was consumed (no item lost is not vacuous)",
            super::all_consumed,
        )
    }
}

// ---------------------------------------------------------------------------
// The decision: which names of a listing to try, in which order.
// ---------------------------------------------------------------------------

/// Whether a child of the queue node is an item (not a marker or a receipt).
pub fn item_name(name: &str) -> bool {
    key(name).is_some()
}

/// An item node's place in the queue: its priority (0 without one) and its
/// sequence number. `c0.1-queue-0000000003` is (0, 3),
/// `queue-01-0000000004` is (1, 4).
pub fn key(name: &str) -> Option<(u8, i64)> {
    let (_, rest) = name.rsplit_once(MARKER)?;
    match rest.split_once('-') {
        // A negative sequence number (an overflowed counter) has its sign
        // first: no priority.
        Some((priority, sequence)) if !priority.is_empty() => {
            Some((priority.parse().ok()?, sequence.parse().ok()?))
        }
        _ => Some((0, sequence_after(name, MARKER)?)),
    }
}

/// The items of a listing in the order a consumer tries them: lowest
/// priority number, then lowest sequence number first (step 3), or, unsorted,
/// in the order the server listed them.
pub fn order(children: &[Arc<str>], sorted: bool) -> Vec<Arc<str>> {
    let mut items: Vec<Arc<str>> = children
        .iter()
        .filter(|name| item_name(name))
        .cloned()
        .collect();
    if sorted {
        items.sort_by_key(|name| key(name));
    }
    items
}

/// Whether the item node named `name` is to be taken before `than`: the
/// priority its producer gave it is higher (a lower number). Read from the
/// names, where the producer put the priorities; the server's numbers play
/// no part.
pub fn outranks(name: &str, than: &str) -> bool {
    match (key(name), key(than)) {
        (Some((theirs, _)), Some((ours, _))) => theirs < ours,
        _ => false,
    }
}

/// The names of `listing` with a higher priority (a lower number) than
/// `taken`: those a take of `taken` passes over.
pub fn passed_over(listing: &[Arc<str>], taken: &str) -> Vec<Arc<str>> {
    let Some((priority, _)) = key(taken) else {
        return Vec::new();
    };
    listing
        .iter()
        .filter(|name| key(name).is_some_and(|(theirs, _)| theirs < priority))
        .cloned()
        .collect()
}

// ---------------------------------------------------------------------------
// Properties, for any recipe built on this actor (the priority queue too).
// ---------------------------------------------------------------------------

/// The items the queue node's item nodes carry now.
pub fn items_in_queue<R: Recipe>(world: &World<R>, state: &WorldState<R::State, R::Log>) -> Items {
    let store = &state.net.store;
    let dir = world.directory();
    store
        .children(dir)
        .iter()
        .filter(|name| item_name(name))
        .filter_map(|name| {
            store
                .data(&dir.child(name))?
                .as_deref()
                .and_then(Item::parse)
        })
        .fold(0, |set, item| set | item.bit())
}

/// No item is handed to an application twice.
pub fn consumed_once<R: Recipe<Log: AsRef<QueueLog>>>(
    _: &World<R>,
    state: &WorldState<R::State, R::Log>,
) -> bool {
    !state.history.log.as_ref().consumed_twice
}

/// No item is lost: in a state where nothing but a fault can happen, every
/// item the server enqueued was consumed, or is still carried by an item
/// node of the queue while no live consumer waits for one (an item no one
/// can get is as lost as one that is gone).
///
/// An item whose node went without a consumer's successful take is lost: an
/// ephemeral item whose producer's session ended, an item whose taker's
/// delete was applied but whose reply it never read (a crash, or the seeds'
/// reading of the retried delete's `NONODE`). Checked on quiescent states,
/// soundly, for the reason [`crate::properties::no_orphan_no_deadlock`] gives.
pub fn no_item_lost<R: Recipe<Log: AsRef<QueueLog>>>(
    world: &World<R>,
    state: &WorldState<R::State, R::Log>,
) -> bool {
    if !world.is_quiescent(state) {
        return true;
    }
    let queue = &state.history.log.as_ref();
    let in_queue = items_in_queue(world, state);
    let waiting = state.processes.iter().enumerate().any(|(client, process)| {
        process.status != crate::world::Status::Crashed
            && world.recipe(client).is_waiting(&process.recipe)
    });
    let unconsumed = queue.enqueued & !queue.consumed;
    unconsumed & !in_queue == 0 && (in_queue & unconsumed == 0 || !waiting)
}

/// Each consumer gets a producer's items in the order produced.
pub fn producer_order<R: Recipe<Log: AsRef<QueueLog>>>(
    _: &World<R>,
    state: &WorldState<R::State, R::Log>,
) -> bool {
    !state.history.log.as_ref().reordered
}

/// Someone consumed an item (the partner of consumed once).
pub fn item_consumed<R: Recipe<Log: AsRef<QueueLog>>>(
    _: &World<R>,
    state: &WorldState<R::State, R::Log>,
) -> bool {
    state.history.log.as_ref().consumed != 0
}

/// Every item enqueued so far was consumed, and there was one (the partner
/// of no item lost).
pub fn all_consumed<R: Recipe<Log: AsRef<QueueLog>>>(
    _: &World<R>,
    state: &WorldState<R::State, R::Log>,
) -> bool {
    let queue = &state.history.log.as_ref();
    queue.enqueued != 0 && queue.enqueued & !queue.consumed == 0
}

/// A consumer consumed two items of one producer (the partner of producer
/// order: there was an order to keep).
pub fn two_of_one_producer<R: Recipe<Log: AsRef<QueueLog>>>(
    _: &World<R>,
    state: &WorldState<R::State, R::Log>,
) -> bool {
    let mask = (1u32 << Item::SERIALS) - 1;
    state.history.log.as_ref().consumed_by.iter().any(|mine| {
        (0..Item::PRODUCERS).any(|producer| {
            ((mine >> (u32::from(producer) * u32::from(Item::SERIALS))) & mask).count_ones() >= 2
        })
    })
}

#[cfg(test)]
mod tests {
    use super::super::contender::permutations;
    use super::*;

    fn names(list: &[&str]) -> Vec<Arc<str>> {
        list.iter().map(|name| Arc::from(*name)).collect()
    }

    #[test]
    fn keys_read_priority_and_sequence() {
        assert_eq!(key("queue-0000000003"), Some((0, 3)));
        assert_eq!(key("c0.1-queue-0000000003"), Some((0, 3)));
        assert_eq!(key("queue-01-0000000004"), Some((1, 4)));
        assert_eq!(key("c1.0-queue-00-0000000012"), Some((0, 12)));
        assert_eq!(key("queue--0000000001"), Some((0, -1)));
        assert_eq!(key("put-c0.1"), None);
        assert_eq!(key("taken-c1-0"), None);
    }

    /// Every order of every subset of five names, with a marker among them:
    /// sorted, the items come lowest priority number then lowest sequence
    /// first; unsorted, in the listing's order; the marker never.
    #[test]
    fn order_on_every_subset_and_order() {
        let all = [
            "queue-00-0000000004",
            "c0.0-queue-00-0000000005",
            "queue-01-0000000000",
            "c1.0-queue-01-0000000002",
            "put-c0.1",
        ];
        let mut cases = 0;
        for mask in 0u32..32 {
            let present: Vec<&str> = (0..5)
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| all[i])
                .collect();
            let expected: Vec<&str> = present
                .iter()
                .copied()
                .filter(|name| *name != "put-c0.1")
                .collect();
            for listing in permutations(&present) {
                let children = names(&listing);
                assert_eq!(order(&children, true), names(&expected), "{listing:?}");
                let unsorted: Vec<&str> = listing
                    .iter()
                    .copied()
                    .filter(|name| *name != "put-c0.1")
                    .collect();
                assert_eq!(order(&children, false), names(&unsorted));
                cases += 1;
            }
        }
        // The sum over subsets of size k of k! orders.
        assert_eq!(cases, 326);
    }

    #[test]
    fn passed_over_compares_priorities() {
        let listing = names(&[
            "queue-00-0000000004",
            "queue-01-0000000000",
            "queue-01-0000000002",
        ]);
        assert_eq!(
            passed_over(&listing, "queue-01-0000000002"),
            names(&["queue-00-0000000004"])
        );
        assert!(passed_over(&listing, "queue-00-0000000004").is_empty());
        let fifo = names(&["queue-0000000000", "queue-0000000001"]);
        assert!(passed_over(&fifo, "queue-0000000001").is_empty());
    }
}

/// Each item consumed in `run`: at which step, by which client.
fn consumed<'a, R: Recipe<Fact = Fact>>(
    run: Run<'a, R>,
) -> impl Iterator<Item = (usize, ClientId, Item)> + 'a {
    run.facts().filter_map(|(step, c, fact)| match fact {
        Fact::Consumed { item } => Some((step, c, *item)),
        _ => None,
    })
}

/// Why `consumed_once` is broken, in words.
fn consumed_once_broken<R: Recipe<Fact = Fact, Log: AsRef<QueueLog>>>(
    _: &World<R>,
    run: Run<'_, R>,
) -> Option<String> {
    let mut first: Vec<(usize, usize, Item)> = Vec::new();
    for (step, c, item) in consumed(run) {
        if let Some(&(then, by, _)) = first.iter().find(|(_, _, seen)| *seen == item) {
            return Some(format!(
                "item {item} was handed to an application twice: c{by} took it at step {then}, \
                 c{c} again at step {step}"
            ));
        }
        first.push((step, c, item));
    }
    None
}

/// Why `producer_order` is broken, in words.
fn producer_order_broken<R: Recipe<Fact = Fact, Log: AsRef<QueueLog>>>(
    _: &World<R>,
    run: Run<'_, R>,
) -> Option<String> {
    let mut taken: Vec<(usize, usize, Item)> = Vec::new();
    for (step, c, item) in consumed(run) {
        let later = taken.iter().find(|(_, by, seen)| {
            *by == c && seen.producer == item.producer && seen.serial > item.serial
        });
        if let Some(&(then, _, later)) = later {
            return Some(format!(
                "c{c} took item {item} at step {step} after {later} at step {then}, \
                 a later item of the same producer"
            ));
        }
        taken.push((step, c, item));
    }
    None
}

/// Why `no_item_lost` is broken, in words.
fn no_item_lost_broken<R: Recipe<Fact = Fact, Log: AsRef<QueueLog>>>(
    world: &World<R>,
    run: Run<'_, R>,
) -> Option<String> {
    let state = run.last();
    let queue = &state.history.log.as_ref();
    let in_queue = items_in_queue(world, state);
    let unconsumed = queue.enqueued & !queue.consumed;
    let names = |set: Items| -> Vec<String> { items(set).map(|item| item.to_string()).collect() };
    let mut parts = Vec::new();
    let gone = names(unconsumed & !in_queue);
    if !gone.is_empty() {
        let (item, was, is) = if gone.len() == 1 {
            ("item", "was", "is")
        } else {
            ("items", "were", "are")
        };
        parts.push(format!(
            "{item} {} {was} enqueued and {is} gone, never consumed",
            crate::properties::and_list(&gone)
        ));
    }
    let stranded = names(unconsumed & in_queue);
    let waiting = crate::properties::waiting(world, state);
    if !stranded.is_empty() && !waiting.is_empty() {
        parts.push(format!(
            "{} {} {} still queued in {}, yet {} {} for an item forever",
            if stranded.len() == 1 { "item" } else { "items" },
            crate::properties::and_list(&stranded),
            if stranded.len() == 1 { "is" } else { "are" },
            world.directory(),
            crate::properties::and_list(&waiting),
            if waiting.len() == 1 { "waits" } else { "wait" }
        ));
    }
    Some(format!(
        "nothing but a fault can happen and {}",
        parts.join("; and ")
    ))
}

/// The queue's phases by name: a producer's put, a consumer's take, and a
/// process whose session ended ([`State::phases`]).
pub const PHASES: [&str; 12] = [
    "put Idle",
    "put Creating",
    "put Recovering",
    "put CleaningUp",
    "take Idle",
    "take Listing",
    "take Waiting",
    "take Reading",
    "take Deleting",
    "take Checking",
    "take CleaningUp",
    "dead",
];

impl State {
    /// The phases of [`PHASES`] this state is in, as bits: its put's, its
    /// take's, and whether it is dead.
    pub fn phases(&self) -> u64 {
        let put = match self.put {
            Put::Idle => 0,
            Put::Creating(_) => 1,
            Put::Recovering(_) => 2,
            Put::CleaningUp(_) => 3,
        };
        let take = match self.take {
            Take::Idle => 4,
            Take::Listing => 5,
            Take::Waiting => 6,
            Take::Reading(_) => 7,
            Take::Deleting(..) => 8,
            Take::Checking(..) => 9,
            Take::CleaningUp => 10,
        };
        1 << put | 1 << take | u64::from(self.dead) << 11
    }
}
