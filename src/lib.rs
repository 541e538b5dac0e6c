//! zoocheck: model checking and deterministic simulation of ZooKeeper
//! coordination recipes.
//!
//! A tour, from the bottom up:
//!
//! - [`store`]: the simulated ZooKeeper server. Znodes, Stat, zxids, the
//!   per-parent sequence counter, sessions and one-shot watches, to the contract
//!   in `ZK_SEMANTICS.md` and proven against a real server by
//!   `tests/conformance.rs`. A pure value: the checker keeps millions.
//! - [`client`]: the client-library half of each session: in-flight requests,
//!   `CONNECTIONLOSS` then `Disconnected`, SetWatches on reconnect, `Expired`
//!   on reconnect after expiry.
//! - [`net`]: the server, its clients and the FIFO link between each client and
//!   the server, moved one explicit step at a time; faults (a dropped
//!   connection, a lost reply, an expiry) are steps too.
//!
//! - [`conformance`]: sequences of operations and their normalised
//!   observations, to compare the store with a real server and to replay a
//!   difference as a regression test.
//!
//! Nothing here reads a clock, draws a random number, does IO or iterates a
//! hash map: the same steps give the same trace, every time.

pub mod client;
pub mod conformance;
pub mod faults;
pub mod net;
pub mod properties;
pub mod recipe;
pub mod scenario;
pub mod store;
pub mod trace;
pub mod world;

#[path = "../models/mod.rs"]
pub mod models;
