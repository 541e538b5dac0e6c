//! The fact the barrier, the double barrier and group membership share: the
//! server created a process's node in the recipe's directory ([`Joined`]),
//! whether or not the process heard back, and the log of who did
//! ([`Joins`]). Their properties count what the server did, not what a
//! client was told: a reply may be lost.

use crate::recipe::{Incarnation, Log, Witness};

/// The server created this process's node in the recipe's directory (a
/// barrier participant's, a group member's). A server fact: only
/// [`Recipe::served`](crate::recipe::Recipe::served) reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Joined;

/// The processes whose node the server created, a bit each: four per
/// client, one for each of its first four processes (the fault budget
/// allows three restarts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Joins(u16);

/// Not renamed: its recipe does not say its clients are interchangeable ([`crate::symmetry`]).
impl crate::recipe::Symmetric for Joins {}

impl Joins {
    fn bit(process: Incarnation) -> u16 {
        1 << (process.client * 4 + usize::from(process.restarts.min(3)))
    }

    /// Whether the server created `process`'s node.
    pub fn has(self, process: Incarnation) -> bool {
        self.0 & Joins::bit(process) != 0
    }

    /// How many processes joined.
    pub fn count(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The processes that joined, in order.
    pub fn processes(self) -> impl Iterator<Item = Incarnation> {
        (0..16)
            .filter(move |bit| self.0 & (1 << bit) != 0)
            .map(|bit: usize| Incarnation {
                client: bit / 4,
                restarts: (bit % 4) as u8,
            })
    }
}

impl Log for Joins {
    type Fact = Joined;

    fn new(_clients: usize) -> Joins {
        Joins::default()
    }

    fn record(&mut self, _: &Joined, at: Witness<'_>) {
        self.0 |= Joins::bit(at.process);
    }

    fn tell_served(&self, before: &Joins) -> String {
        Joins(self.0 & !before.0)
            .processes()
            .map(|process| format!("; {} has joined", process.guid()))
            .collect()
    }
}
