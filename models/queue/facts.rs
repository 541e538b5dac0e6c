//! The queue's own facts ([`Fact`]) and what the world keeps of them
//! ([`QueueLog`]): the items the server enqueued and the items consumers
//! took, with the two ways taking can go wrong, and how they read in
//! traces. The priority queue's log keeps one ([`super::super::priority_queue`]).

use std::sync::Arc;

use crate::recipe::{ClientId, Log, Witness};

/// A queue item: which client produced it and which of that producer's puts
/// it is (0 for its first). Its bytes, the znode's data, read `c0.1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Item {
    pub producer: u8,
    pub serial: u8,
}

impl Item {
    /// The most items the history can tell apart: four producers (the
    /// scenario's client limit) with eight puts each (its script limit).
    pub const PRODUCERS: u8 = 4;
    pub const SERIALS: u8 = 8;

    pub fn new(producer: ClientId, serial: usize) -> Item {
        assert!(producer < usize::from(Item::PRODUCERS) && serial < usize::from(Item::SERIALS));
        Item {
            producer: producer as u8,
            serial: serial as u8,
        }
    }

    /// The znode data that carries the item.
    pub fn bytes(self) -> Vec<u8> {
        self.to_string().into_bytes()
    }

    /// The item a znode's data carries, if it carries one.
    pub fn parse(bytes: &[u8]) -> Option<Item> {
        let text = std::str::from_utf8(bytes).ok()?;
        let (producer, serial) = text.strip_prefix('c')?.split_once('.')?;
        let (producer, serial) = (producer.parse().ok()?, serial.parse().ok()?);
        (producer < usize::from(Item::PRODUCERS) && serial < usize::from(Item::SERIALS))
            .then(|| Item::new(producer, serial))
    }

    /// Its bit in a set of items ([`Items`]).
    pub fn bit(self) -> u32 {
        1 << (self.producer * Item::SERIALS + self.serial)
    }
}

impl std::fmt::Display for Item {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "c{}.{}", self.producer, self.serial)
    }
}

/// A set of queue items, one bit each ([`Item::bit`]).
pub type Items = u32;

/// The items of a set, in order.
pub fn items(set: Items) -> impl Iterator<Item = Item> {
    (0..Item::PRODUCERS).flat_map(move |producer| {
        (0..Item::SERIALS)
            .map(move |serial| Item { producer, serial })
            .filter(move |item| set & item.bit() != 0)
    })
}

/// What a queue's client or its server tells the queue's properties.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Fact {
    /// The server put `item` on the queue (a producer's create), whether or
    /// not the producer heard back. A server fact: only
    /// [`Recipe::served`](crate::recipe::Recipe::served) reports it.
    Enqueued { item: Item },
    /// The client took `item` off the queue (its delete succeeded) and hands
    /// it to the application.
    Consumed { item: Item },
    /// A consumer chose the node `node` of the queue to take (it sent the
    /// first request of taking it). What it knew then, the priority queue's
    /// log knows from what the world delivered to it.
    Chose { node: Arc<str> },
}

/// What happened to a queue's items: what the server enqueued and what
/// consumers took, with the two ways taking can go wrong.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct QueueLog {
    /// Items the server put on the queue (a producer may not know).
    pub enqueued: Items,
    /// Items some consumer took and handed to its application.
    pub consumed: Items,
    /// What each consumer took, by client (a world has at most as many
    /// clients as an item has producers).
    pub consumed_by: [Items; Item::PRODUCERS as usize],
    /// Some item was handed to an application twice.
    pub consumed_twice: bool,
    /// Some consumer took a producer's item after a later one of the same
    /// producer: it did not get that producer's items in the order produced.
    pub reordered: bool,
}

/// Not renamed: its recipe does not say its clients are interchangeable ([`crate::symmetry`]).
impl crate::recipe::Symmetric for QueueLog {}

impl QueueLog {
    fn consume(&mut self, consumer: ClientId, item: Item) {
        if self.consumed & item.bit() != 0 {
            self.consumed_twice = true;
        }
        self.consumed |= item.bit();
        let mine = &mut self.consumed_by[consumer];
        let later_of_producer = (item.serial + 1..Item::SERIALS)
            .any(|serial| *mine & Item { serial, ..item }.bit() != 0);
        if later_of_producer {
            self.reordered = true;
        }
        *mine |= item.bit();
    }

    /// What a consumer did in one step, in words, with what `chose` says of
    /// each node it chose (the priority queue judges those; the queue says
    /// nothing). An item taken a second time changes no set of items, so it
    /// is told from the facts, not from the sets.
    pub fn words(
        &self,
        before: &QueueLog,
        facts: &[&Fact],
        mut chose: impl FnMut(&Arc<str>) -> Option<String>,
    ) -> String {
        let mut out = String::new();
        let mut consumed = before.consumed;
        for fact in facts {
            match fact {
                Fact::Consumed { item } => {
                    out.push_str(&format!("; TAKES ITEM {item}"));
                    if consumed & item.bit() != 0 {
                        out.push_str(" A SECOND TIME");
                    }
                    consumed |= item.bit();
                }
                Fact::Chose { node } => out.extend(chose(node)),
                Fact::Enqueued { .. } => {}
            }
        }
        if self.reordered && !before.reordered {
            out.push_str(" AFTER A LATER ITEM OF ITS PRODUCER");
        }
        out
    }
}

impl AsRef<QueueLog> for QueueLog {
    fn as_ref(&self) -> &QueueLog {
        self
    }
}

impl Log for QueueLog {
    type Fact = Fact;

    fn new(_clients: usize) -> QueueLog {
        QueueLog::default()
    }

    fn record(&mut self, fact: &Fact, at: Witness<'_>) {
        match fact {
            Fact::Enqueued { item } => self.enqueued |= item.bit(),
            Fact::Consumed { item } => self.consume(at.process.client, *item),
            Fact::Chose { .. } => {}
        }
    }

    fn tell(&self, before: &QueueLog, _client: ClientId, facts: &[&Fact]) -> String {
        self.words(before, facts, |_| None)
    }

    fn tell_served(&self, before: &QueueLog) -> String {
        items(self.enqueued & !before.enqueued)
            .map(|item| format!("; enqueues item {item}"))
            .collect()
    }
}
