//! zoocheck: model checking and deterministic simulation of ZooKeeper
//! coordination recipes.
//!
//! # Layers
//!
//! Each module uses only modules of its own row or the rows below it, and no
//! two use each other; `tests/layers.rs` reads this table and fails on any
//! `crate::` path that points up, on a circle within a row, and on a module
//! the table leaves out. Top to bottom:
//!
//! ```text
//! binary       cli
//! files        report trace_file template
//! scenarios    scenario
//! catalogue    catalogue
//! verdicts     simulate check shrink
//! exploration  explore partial_order reduce symmetry recount
//! words        diagram trace
//! recipes      models catalogued
//! judgement    properties
//! world        world
//! interface    recipe
//! real         conformance real
//! zookeeper    net ensemble client store
//! search       lasso search shortest
//! base         memory text knobs
//! ```
//!
//! - **zookeeper**: the simulated ZooKeeper 3.8. [`store`], one server's
//!   znodes, Stat, zxids, sequence counters, sessions and watches, to the
//!   contract in `docs/zookeeper-semantics.md` (a pure value: the checker
//!   keeps millions), with the client renaming it is told in
//!   ([`store::rename`]); [`client`], the client library's half of a session;
//!   [`ensemble`], the servers' replicas and committed log; [`net`], servers,
//!   clients and the FIFO links between them, one explicit step at a time.
//! - **real**: the same operations against a real server ([`real`]), and
//!   their normalised observations to compare ([`conformance`]).
//! - **interface**: [`recipe`], the trait a recipe's client implements: a
//!   pure actor that reads messages and sends requests.
//! - **world**: [`world`], the stateright model of clients running a recipe
//!   against the server, with the faults ([`world::faults`]) as its steps. A
//!   plain model: its hash is the state's.
//! - **judgement**: [`properties`], what a run must keep or reach, the
//!   termination rank, and the verdicts' words.
//! - **recipes**: [`models`], the recipes, each with what a scenario may name
//!   of it ([`catalogued`]), its variants as presets of its knobs.
//! - **words**: [`trace`], a path as steps a person reads; [`diagram`], as a
//!   sequence diagram.
//! - **exploration**: [`explore`] wraps a world in the reductions
//!   ([`reduce`], [`symmetry`], [`partial_order`]) and the search's control;
//!   [`recount`] tells a state that is an earlier one with only its
//!   counters moved on, which the `terminates` verdict reads.
//! - **verdicts**: [`check`], the exhaustive search and its verdicts;
//!   [`simulate`], seeded random walks; [`shrink`], a counterexample cut down.
//! - **catalogue**: [`catalogue`], every recipe by name, and the type-erased
//!   world each builds.
//! - **scenarios**: [`scenario`], scenario files to a world and expectations.
//! - **files**: [`trace_file`], saved traces; [`report`], a check as an HTML
//!   page; [`template`], `zoocheck new`.
//! - **search** and **base**: a model's paths and lassos ([`search`],
//!   [`shortest`], [`lasso`]), and plain helpers ([`text`], [`memory`]);
//!   [`knobs`], named settings with their values and meanings, of which a
//!   recipe's variants and a client library's profiles are presets.
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
pub mod catalogued;
pub mod check;
pub mod client;
pub mod conformance;
pub mod diagram;
pub mod ensemble;
pub mod explore;
pub mod knobs;
pub mod lasso;
pub mod memory;
pub mod net;
pub mod partial_order;
pub mod properties;
pub mod real;
pub mod recipe;
pub mod recount;
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
pub mod trace_file;
pub mod world;

/// The model-checking library zoocheck's models are written in: a recipe of
/// one's own names its properties with [`stateright::Property`].
pub use stateright;

/// The fault kinds, a part of the world ([`world::faults`]).
pub use world::faults;

#[path = "../models/mod.rs"]
pub mod models;
