//! Counters renamed by their order (the primitives a loop modulo counters
//! is told by, [`crate::recount`]): what each counter counts, and the two
//! passes of one traversal, one that records every value a state holds of
//! each, one that puts each value's rank among them in its place. Here,
//! beside the renaming of clients ([`super::rename`]), so that the server,
//! the client library and the recipes rename their counters where they
//! rename their names, without knowing of the search that asks them to.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

use super::{Path, Zxid};

/// What a counter counts. Each kind is minted one above the greatest value
/// of its kind (its *generator*, which the state holds) and read by no step
/// but by equality and order, within its kind.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Counter {
    /// Transaction ids: the server's last, every node's `czxid`, `mzxid`
    /// and `pzxid`, each client's last seen, each reply's. 0 is "none".
    Zxid,
    /// Session ids: the server's last, its open sessions, owners,
    /// watchers, each client's, the dead ones. 0 is "no owner".
    Session,
    /// A node's create counter: its children's sequence numbers and create
    /// order, and the counter itself (and a Stat's `cversion`, which is
    /// derived from it).
    Creates(Path),
}

impl Counter {
    /// Whether 0 is a value apart ("none"), which every renaming keeps.
    fn zero_is_none(&self) -> bool {
        matches!(self, Counter::Zxid | Counter::Session)
    }
}

/// What the recording pass saw: every value of each counter, and the first
/// reason the state cannot be renamed by its counters' order, if any.
#[derive(Debug, Default)]
pub struct Recorded {
    pub values: BTreeMap<Counter, BTreeSet<i64>>,
    pub refused: Option<&'static str>,
}

#[derive(Debug)]
enum Pass {
    Record(RefCell<Recorded>),
    /// Each value's rank among its counter's values (from 1; 0 stays 0
    /// where it means none).
    Rank(BTreeMap<Counter, BTreeMap<i64, i64>>),
}

/// One pass over a state's counters.
#[derive(Debug)]
pub struct Recount {
    /// The one directory whose children are named by its counter: a name
    /// that is not a path (a recipe's, a listing's) is one of its children.
    pub directory: Option<Path>,
    /// The node each creation zxid is of, for the `cversion` of a Stat.
    czxids: BTreeMap<Zxid, Path>,
    pass: Pass,
}

impl Recount {
    /// A pass that records every value and renames none.
    pub fn recording(directory: Option<Path>, czxids: BTreeMap<Zxid, Path>) -> Recount {
        Recount {
            directory,
            czxids,
            pass: Pass::Record(RefCell::default()),
        }
    }

    /// A pass that puts each value `recorded` holds in its rank's place.
    pub fn ranking(
        directory: Option<Path>,
        czxids: BTreeMap<Zxid, Path>,
        recorded: &Recorded,
    ) -> Recount {
        let ranks = (recorded.values.iter())
            .map(|(counter, values)| {
                let ranks = values.iter().zip(1..).map(|(&value, rank)| (value, rank));
                (counter.clone(), ranks.collect())
            })
            .collect();
        Recount {
            directory,
            czxids,
            pass: Pass::Rank(ranks),
        }
    }

    /// What the recording pass saw (nothing for a ranking one).
    pub fn recorded(self) -> Recorded {
        match self.pass {
            Pass::Record(recorded) => recorded.into_inner(),
            Pass::Rank(_) => Recorded::default(),
        }
    }

    /// `value` of `counter`, recorded or ranked.
    pub fn count(&self, counter: Counter, value: i64) -> i64 {
        if value == 0 && counter.zero_is_none() {
            return 0;
        }
        match &self.pass {
            Pass::Record(recorded) => {
                let mut recorded = recorded.borrow_mut();
                recorded.values.entry(counter).or_default().insert(value);
                value
            }
            Pass::Rank(ranks) => *ranks
                .get(&counter)
                .and_then(|ranks| ranks.get(&value))
                .expect("the ranking pass meets the values the recording pass met"),
        }
    }

    /// Notes that the state cannot be renamed by its counters' order.
    pub fn refuse(&self, why: &'static str) {
        if let Pass::Record(recorded) = &self.pass {
            recorded.borrow_mut().refused.get_or_insert(why);
        }
    }

    /// The node created at `czxid`, if it is in the state.
    pub fn node_created_at(&self, czxid: Zxid) -> Option<&Path> {
        self.czxids.get(&czxid)
    }
}

/// Where a name's last part ends in a sequence number (ten digits after a
/// character that is not one, as the server appends them): the byte at
/// which the number starts.
pub fn sequence_suffix(part: &str) -> Option<usize> {
    let bytes = part.as_bytes();
    let start = bytes.len().checked_sub(10)?;
    let digits = bytes[start..].iter().all(u8::is_ascii_digit);
    (digits && start > 0 && !bytes[start - 1].is_ascii_digit()).then_some(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sequence_suffix_is_ten_digits_after_a_name() {
        assert_eq!(sequence_suffix("c0-lock-0000000012"), Some(8));
        assert_eq!(sequence_suffix("0000000012"), None);
        assert_eq!(sequence_suffix("x10000000012"), None);
        assert_eq!(sequence_suffix("lock-000000012"), None);
        assert_eq!(sequence_suffix("lock--000000004"), None);
    }

    #[test]
    fn ranks_keep_the_order_and_zero_where_it_means_none() {
        let record = Recount::recording(None, BTreeMap::new());
        for zxid in [40, 7, 0, 12] {
            assert_eq!(record.count(Counter::Zxid, zxid), zxid);
        }
        record.count(Counter::Creates(Path::new("/lock")), 0);
        record.count(Counter::Creates(Path::new("/lock")), 9);
        let rank = Recount::ranking(None, BTreeMap::new(), &Recorded::default());
        assert!(matches!(rank.pass, Pass::Rank(ref ranks) if ranks.is_empty()));
        let recorded = record.recorded();
        let rank = Recount::ranking(None, BTreeMap::new(), &recorded);
        let zxids = [0, 7, 12, 40].map(|zxid| rank.count(Counter::Zxid, zxid));
        assert_eq!(zxids, [0, 1, 2, 3]);
        let lock = |value| rank.count(Counter::Creates(Path::new("/lock")), value);
        assert_eq!([lock(0), lock(9)], [1, 2]);
    }
}
