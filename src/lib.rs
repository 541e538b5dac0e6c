//! zoocheck: model checking and deterministic simulation of ZooKeeper
//! coordination recipes.
//!
//! A tour, from the bottom up:
//!
//! - [`store`]: the simulated ZooKeeper server. Znodes, Stat, zxids, the
//!   per-parent sequence counter, sessions and one-shot watches, to the contract
//!   in `docs/zookeeper-semantics.md` and proven against a real server by
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
//! - [`recipe`]: the recipe actor trait; [`models`]: the recipes themselves.
//! - [`world`]: the stateright model (store, clients, links, processes,
//!   faults from [`faults`]), whose states [`properties`] judge.
//! - [`scenario`]: scenario files to a world and its expected verdicts;
//!   [`catalogue`]: every recipe by name, and the type-erased world
//!   ([`catalogue::AnyWorld`]) each builds; [`check`]: the exhaustive search
//!   and its verdicts; [`reduce`]: the reductions that let it store one
//!   state per class of states no later step tells apart ([`symmetry`]
//!   among them); [`partial_order`]: the steps it may leave for later;
//!   [`trace`]: counterexamples as readable, replayable steps;
//!   [`diagram`]: a trace as a sequence diagram, in Mermaid or SVG;
//!   [`report`]: a check's verdicts and counterexamples as one HTML page.
//! - [`simulate`]: seeded random walks, for worlds too large to exhaust;
//!   [`shrink`]: a walk's counterexample cut down to the actions it needs.
//!
//! The store on its own:
//!
//! ```
//! use zoocheck::store::{CreateMode, Op, Path, Response, Store};
//!
//! let mut store = Store::default();
//! let session = store.open_session();
//! let create = Op::Create {
//!     path: Path::new("/lock-"),
//!     data: None,
//!     mode: CreateMode::EphemeralSequential,
//! };
//! let applied = store.apply(session, &create);
//! match applied.result {
//!     Ok(Response::Created { path, stat }) => {
//!         assert_eq!(path.as_str(), "/lock-0000000000");
//!         assert_eq!(stat.ephemeral_owner, session);
//!     }
//!     other => panic!("{other:?}"),
//! }
//! ```
//!
//! Nothing here reads a clock, draws a random number, does IO or iterates a
//! hash map: the same steps give the same trace, every time.

pub mod catalogue;
pub mod check;
pub mod client;
pub mod conformance;
pub mod diagram;
pub mod ensemble;
pub mod explore;
pub mod lasso;
pub mod memory;
pub mod net;
pub mod partial_order;
pub mod properties;
pub mod real;
pub mod recipe;
pub mod reduce;
pub mod report;
pub mod scenario;
pub mod search;
pub mod shortest;
pub mod shrink;
pub mod simulate;
pub mod store;
pub mod symmetry;
pub mod template;
pub mod text;
pub mod trace;
pub mod world;

/// The fault kinds, a part of the world ([`world::faults`]).
pub use world::faults;

#[path = "../models/mod.rs"]
pub mod models;
