//! Differential conformance: the simulated store against a real ZooKeeper 3.8.
//!
//! A seeded ChaCha stream generates sequences of operations over three
//! sessions: every create mode, sequential creates under shared parents with
//! mixed prefixes, delete and setData with right, wrong and -1 versions, exists,
//! getData and getChildren with and without watches, multis (failing ones
//! included), sync, and sessions closing and reopening. Each sequence runs on the
//! simulated store ([`SimRun`]) and on a real server through the
//! `zookeeper-client` crate, and every observation is compared: the reply (error
//! code, path, data, Stat with zxids relative to the sequence's first, children
//! as a set) and, after each step, the watch events each session received.
//!
//! Run against a server with `ZOOCHECK_ZK=127.0.0.1:PORT` (`scripts/zk-server`
//! starts one); without it the suite says it was skipped, in one line. Knobs:
//! `ZOOCHECK_CONFORMANCE_SEQUENCES` (default 500), `ZOOCHECK_CONFORMANCE_OPS`
//! (default 40), `ZOOCHECK_CONFORMANCE_SEED` (default 1; sequence `i` uses seed
//! `SEED + i`).
//!
//! A mismatch prints its seed and the shortest failing prefix (the steps up to
//! and including the first that differs) as a unit test to paste into
//! `tests/store.rs`.
//!
//! What the crate cannot express is left to the unit tests: null data (it always
//! sends bytes), connection loss, lost replies and expiry.
//!
//! With `ZOOCHECK_ENSEMBLE=HOST:PORT,HOST:PORT,HOST:PORT` (`scripts/zk-server
//! ensemble` starts three servers) the same sequences run on a real ensemble,
//! their sessions spread over the servers by a layout the seed picks
//! ([`layout`]: the leader's sessions too), and are validated against the
//! simulated ensemble ([`EnsembleRun`]): a real server's pace cannot be
//! chosen, so the model must have some schedule of applies that explains
//! every observation. It ends with
//! `conformance-ensemble: <N> sequences, <M> operations, <K> unexplained`.
//! Knobs: `ZOOCHECK_ENSEMBLE_SEQUENCES` (default 200), `ZOOCHECK_ENSEMBLE_OPS`
//! (default 40), `ZOOCHECK_ENSEMBLE_SEED` (default 1).

use std::collections::{BTreeMap, BTreeSet};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use zoocheck::conformance::*;
use zoocheck::store::{AddWatchMode, CreateMode, Stat, ANY_VERSION, REAL_TTL_MS};
use zookeeper_client as zk;

mod common;
use common::PendingWatch;

// ---------------------------------------------------------------------------
// Generating sequences.
// ---------------------------------------------------------------------------

/// Names a generated op may touch, relative to the root. `e` is often
/// ephemeral, so creates under it meet NOCHILDRENFOREPHEMERALS.
const NAMES: [&str; 10] = [
    "a", "b", "e", "q", "a/b", "a/c", "q/x", "e/z", "a/b/c", "zz/y",
];
/// Prefixes of sequential creates: several share the parent `q`, including the
/// empty prefix (`q/` gives `q/0000000004`).
const PREFIXES: [&str; 6] = ["q/lock-", "q/read-", "q/", "q/x-", "s-", "a/n-"];

/// The sequence generator: a ChaCha stream plus a simulated store to pick
/// versions that are right, wrong or -1 and paths that exist or not.
struct Generator {
    rng: ChaCha8Rng,
}

impl Generator {
    fn new(seed: u64) -> Generator {
        Generator {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    fn below(&mut self, n: usize) -> usize {
        (self.rng.next_u64() % n as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.rng.next_u64() % 100 < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// A sequence of `len` steps. `sim` is the simulated run so far, consulted
    /// for the nodes that exist and their versions.
    fn sequence(&mut self, len: usize) -> Vec<Step> {
        let mut sim = SimRun::new(ROOT);
        let mut steps = Vec::with_capacity(len);
        while steps.len() < len {
            let step = self.step(&sim);
            sim.run(&step);
            steps.push(step);
        }
        steps
    }

    fn step(&mut self, sim: &SimRun) -> Step {
        let session = self.below(SESSIONS);
        if sim.is_closed(session) {
            return Step {
                session,
                action: Action::Reopen,
            };
        }
        let roll = self.below(106);
        let action = match roll {
            0..=2 => Action::Close,
            3..=30 => Action::Op(self.create(sim)),
            31..=41 => {
                let path = self.path(sim);
                let version = self.version_of(sim, &path);
                Action::Op(Call::Delete(path, version))
            }
            42..=52 => {
                let path = self.path(sim);
                let version = self.version_of(sim, &path);
                Action::Op(Call::SetData(path, self.data(), version))
            }
            53..=62 => Action::Op(Call::Exists(self.path(sim), self.chance(60))),
            63..=72 => Action::Op(Call::GetData(self.path(sim), self.chance(60))),
            73..=84 => Action::Op(Call::GetChildren(self.parent(sim), self.chance(60))),
            85..=97 => Action::Op(self.multi(sim)),
            98..=99 => Action::Op(Call::Sync(self.path(sim))),
            // A persistent or recursive watch, on a path or its parent.
            _ => {
                let path = match self.chance(50) {
                    true => self.path(sim),
                    false => self.parent(sim),
                };
                Action::Op(Call::AddWatch(path, *self.pick(&AddWatchMode::ALL)))
            }
        };
        Step { session, action }
    }

    fn create(&mut self, sim: &SimRun) -> Call {
        let mode = *self.pick(&CreateMode::ALL);
        let path = if mode.is_sequential() {
            self.pick(&PREFIXES).to_string()
        } else {
            self.path(sim)
        };
        Call::Create(path, self.data(), mode)
    }

    fn multi(&mut self, sim: &SimRun) -> Call {
        let len = 1 + self.below(3);
        let ops = (0..len)
            .map(|_| {
                let path = self.path(sim);
                match self.below(4) {
                    0 => {
                        let mode = *self.pick(&CreateMode::ALL);
                        let path = if mode.is_sequential() {
                            self.pick(&PREFIXES).to_string()
                        } else {
                            path
                        };
                        MultiCall::Create(path, self.data(), mode)
                    }
                    1 => {
                        let version = self.version_of(sim, &path);
                        MultiCall::Delete(path, version)
                    }
                    2 => {
                        let version = self.version_of(sim, &path);
                        MultiCall::SetData(path, self.data(), version)
                    }
                    _ => {
                        let version = self.version_of(sim, &path);
                        MultiCall::Check(path, version)
                    }
                }
            })
            .collect();
        Call::Multi(ops)
    }

    /// An existing node most of the time (sequential names included), else a
    /// name that may or may not exist.
    fn path(&mut self, sim: &SimRun) -> String {
        let existing = sim.existing();
        if !existing.is_empty() && self.chance(65) {
            self.pick(&existing).clone()
        } else {
            self.pick(&NAMES).to_string()
        }
    }

    /// A node that may have children.
    fn parent(&mut self, sim: &SimRun) -> String {
        if self.chance(30) {
            String::new()
        } else {
            self.path(sim)
        }
    }

    /// Right (50%), wrong (20%) or -1 (30%) for `path`'s current version.
    fn version_of(&mut self, sim: &SimRun, path: &str) -> i32 {
        let current = sim.version(path).unwrap_or(0);
        match self.below(10) {
            0..=4 => current,
            5 | 6 => current + 1,
            _ => ANY_VERSION,
        }
    }

    /// Empty or a few bytes, never null: the `zookeeper-client` crate always
    /// sends bytes (null data is covered by `tests/store.rs`).
    fn data(&mut self) -> Option<Vec<u8>> {
        match self.below(5) {
            0 => Some(Vec::new()),
            n => Some(vec![b'a' + n as u8; n]),
        }
    }
}

// ---------------------------------------------------------------------------
// The real side.
// ---------------------------------------------------------------------------

/// How a step makes sure each session has received the events its server
/// sent before: a round trip on the session's connection.
#[derive(Clone, Copy, PartialEq)]
enum RoundTrip {
    /// `sync`: on one server, nothing is in flight after it.
    Sync,
    /// A read, which leaves a server as far behind as it was (a `sync`
    /// would bring a follower up to date), and only on a session with a
    /// watch set: one with none has no event to wait for, and the time a
    /// round trip takes would let its server catch up before the next step.
    Read,
}

/// A sequence running on the real server, or on a real ensemble with
/// session slot `i` connected to `addresses[i]`.
struct RealRun {
    addresses: Vec<String>,
    round_trip: RoundTrip,
    clients: Vec<Option<zk::Client>>,
    watches: Vec<Vec<PendingWatch>>,
    norm: Normalizer,
    generation: [usize; SESSIONS],
    /// The time to live of the TTL nodes it creates.
    ttl: Duration,
}

fn code_name(error: &zk::Error) -> &'static str {
    common::code(error).map_or("OTHER", |(name, _)| name)
}

fn code_number(error: &zk::Error) -> i32 {
    common::code(error).map_or(i32::MIN, |(_, number)| number)
}

fn stat(stat: &zk::Stat) -> Stat {
    Stat {
        czxid: stat.czxid,
        mzxid: stat.mzxid,
        pzxid: stat.pzxid,
        ctime: stat.ctime,
        mtime: stat.mtime,
        version: stat.version,
        cversion: stat.cversion,
        aversion: stat.aversion,
        ephemeral_owner: stat.ephemeral_owner,
        data_length: stat.data_length,
        num_children: stat.num_children,
    }
}

/// How the real client creates a node in `mode`: a TTL node lives `ttl`.
fn options(mode: CreateMode, ttl: Duration) -> zk::CreateOptions<'static> {
    let open = zk::Acls::anyone_all();
    match mode {
        CreateMode::Persistent => zk::CreateMode::Persistent.with_acls(open),
        CreateMode::Ephemeral => zk::CreateMode::Ephemeral.with_acls(open),
        CreateMode::PersistentSequential => zk::CreateMode::PersistentSequential.with_acls(open),
        CreateMode::EphemeralSequential => zk::CreateMode::EphemeralSequential.with_acls(open),
        CreateMode::Container => zk::CreateMode::Container.with_acls(open),
        CreateMode::PersistentWithTtl => zk::CreateMode::Persistent.with_acls(open).with_ttl(ttl),
        CreateMode::PersistentSequentialWithTtl => zk::CreateMode::PersistentSequential
            .with_acls(open)
            .with_ttl(ttl),
    }
}

fn version(version: i32) -> Option<i32> {
    (version != ANY_VERSION).then_some(version)
}

fn data(data: &Option<Vec<u8>>) -> &[u8] {
    data.as_deref().unwrap_or_default()
}

impl RealRun {
    async fn connect(address: &str) -> Result<zk::Client, String> {
        zk::Client::connector()
            .with_session_timeout(Duration::from_secs(10))
            .connect(address)
            .await
            .map_err(|error| format!("cannot connect to ZooKeeper at {address}: {error}"))
    }

    /// Opens the sessions, then creates the root: the root's zxid is the base.
    async fn new(
        addresses: &[String],
        round_trip: RoundTrip,
        root: &str,
    ) -> Result<RealRun, String> {
        let mut clients = Vec::new();
        let mut owners = BTreeMap::new();
        for address in &addresses[..SESSIONS] {
            let slot = clients.len();
            let client = RealRun::connect(address).await?;
            owners.insert(client.session_id().0, format!("{slot}.0"));
            clients.push(Some(client));
        }
        let options = zk::CreateMode::Persistent.with_acls(zk::Acls::anyone_all());
        let (root_stat, _) = clients[0]
            .as_ref()
            .expect("just connected")
            .create(root, b"", &options)
            .await
            .map_err(|error| format!("cannot create {root}: {error}"))?;
        Ok(RealRun {
            addresses: addresses.to_vec(),
            round_trip,
            clients,
            watches: (0..SESSIONS).map(|_| Vec::new()).collect(),
            norm: Normalizer {
                root: root.into(),
                base_zxid: root_stat.czxid,
                owners,
            },
            generation: [0; SESSIONS],
            ttl: Duration::from_millis(REAL_TTL_MS as u64),
        })
    }

    async fn run(&mut self, step: &Step) -> Result<Seen, String> {
        let slot = step.session;
        let reply = match &step.action {
            Action::Reopen => {
                let client = RealRun::connect(&self.addresses[slot]).await?;
                self.generation[slot] += 1;
                let label = format!("{slot}.{}", self.generation[slot]);
                self.norm.owners.insert(client.session_id().0, label);
                self.clients[slot] = Some(client);
                SeenReply::Reopened
            }
            Action::Close => {
                self.close(slot).await;
                SeenReply::Closed
            }
            Action::Op(call) => {
                let client = self.clients[slot]
                    .clone()
                    .expect("a generated op has an open session");
                self.call(&client, slot, call).await
            }
        };
        let events = self.collect_events().await?;
        Ok(Seen { reply, events })
    }

    /// Closes a session and waits until the server has processed the close (its
    /// ephemerals deleted and their watchers notified).
    async fn close(&mut self, slot: usize) {
        if let Some(client) = self.clients[slot].take() {
            let mut state = client.state_watcher();
            drop(client);
            while !state.changed().await.is_terminated() {}
        }
    }

    async fn call(&mut self, client: &zk::Client, slot: usize, call: &Call) -> SeenReply {
        let norm = &self.norm;
        let full = |path: &str| under(&norm.root, path).as_str().to_string();
        match call {
            Call::Create(path, bytes, create_mode) => {
                let path = full(path);
                match client
                    .create(&path, data(bytes), &options(*create_mode, self.ttl))
                    .await
                {
                    Ok((created, sequence)) => {
                        let name = if create_mode.is_sequential() {
                            format!("{path}{sequence}")
                        } else {
                            path
                        };
                        SeenReply::Created(norm.path(&name), norm.stat(&stat(&created)))
                    }
                    Err(error) => SeenReply::Error(code_name(&error)),
                }
            }
            Call::Delete(path, v) => match client.delete(&full(path), version(*v)).await {
                Ok(()) => SeenReply::Deleted,
                Err(error) => SeenReply::Error(code_name(&error)),
            },
            Call::SetData(path, bytes, v) => {
                match client.set_data(&full(path), data(bytes), version(*v)).await {
                    Ok(s) => SeenReply::SetData(norm.stat(&stat(&s))),
                    Err(error) => SeenReply::Error(code_name(&error)),
                }
            }
            Call::Exists(path, false) => match client.check_stat(&full(path)).await {
                Ok(s) => SeenReply::Exists(s.map(|s| norm.stat(&stat(&s)))),
                Err(error) => SeenReply::Error(code_name(&error)),
            },
            Call::Exists(path, true) => match client.check_and_watch_stat(&full(path)).await {
                Ok((s, watcher)) => {
                    self.watches[slot].push(PendingWatch::new(watcher));
                    SeenReply::Exists(s.map(|s| self.norm.stat(&stat(&s))))
                }
                Err(error) => SeenReply::Error(code_name(&error)),
            },
            Call::GetData(path, false) => match client.get_data(&full(path)).await {
                Ok((bytes, s)) => SeenReply::Data(Some(bytes), norm.stat(&stat(&s))),
                Err(error) => SeenReply::Error(code_name(&error)),
            },
            Call::GetData(path, true) => match client.get_and_watch_data(&full(path)).await {
                Ok((bytes, s, watcher)) => {
                    self.watches[slot].push(PendingWatch::new(watcher));
                    SeenReply::Data(Some(bytes), self.norm.stat(&stat(&s)))
                }
                Err(error) => SeenReply::Error(code_name(&error)),
            },
            Call::GetChildren(path, false) => match client.get_children(&full(path)).await {
                Ok((names, s)) => {
                    SeenReply::Children(names.into_iter().collect(), norm.stat(&stat(&s)))
                }
                Err(error) => SeenReply::Error(code_name(&error)),
            },
            Call::GetChildren(path, true) => {
                match client.get_and_watch_children(&full(path)).await {
                    Ok((names, s, watcher)) => {
                        self.watches[slot].push(PendingWatch::new(watcher));
                        SeenReply::Children(names.into_iter().collect(), self.norm.stat(&stat(&s)))
                    }
                    Err(error) => SeenReply::Error(code_name(&error)),
                }
            }
            Call::Sync(path) => match client.sync(&full(path)).await {
                Ok(()) => SeenReply::Synced,
                Err(error) => SeenReply::Error(code_name(&error)),
            },
            Call::AddWatch(path, mode) => {
                let mode = match mode {
                    AddWatchMode::Persistent => zk::AddWatchMode::Persistent,
                    AddWatchMode::PersistentRecursive => zk::AddWatchMode::PersistentRecursive,
                };
                match client.watch(&full(path), mode).await {
                    Ok(watcher) => {
                        self.watches[slot].push(PendingWatch::Persistent(watcher));
                        SeenReply::WatchAdded
                    }
                    Err(error) => SeenReply::Error(code_name(&error)),
                }
            }
            Call::Multi(ops) => self.multi(client, ops).await,
            // The Rust client removes a watch by its watcher object only;
            // the fault suite checks removals through the Java client.
            Call::RemoveWatches(..) | Call::CheckWatches(..) => {
                unreachable!("the generator makes no watch removal")
            }
        }
    }

    async fn multi(&self, client: &zk::Client, ops: &[MultiCall]) -> SeenReply {
        let norm = &self.norm;
        let full = |path: &str| under(&norm.root, path).as_str().to_string();
        let mut writer = client.new_multi_writer();
        for op in ops {
            let added = match op {
                MultiCall::Create(path, bytes, m) => {
                    writer.add_create(&full(path), data(bytes), &options(*m, self.ttl))
                }
                MultiCall::Delete(path, v) => writer.add_delete(&full(path), version(*v)),
                MultiCall::SetData(path, bytes, v) => {
                    writer.add_set_data(&full(path), data(bytes), version(*v))
                }
                MultiCall::Check(path, v) => writer.add_check_version(&full(path), *v),
            };
            if let Err(error) = added {
                return SeenReply::Error(code_name(&error));
            }
        }
        match writer.commit().await {
            Ok(results) => {
                let mut seen = Vec::with_capacity(results.len());
                for result in &results {
                    seen.push(match result {
                        zk::MultiWriteResult::Create { path, .. } => {
                            SeenMulti::Created(norm.path(path))
                        }
                        zk::MultiWriteResult::Delete => SeenMulti::Deleted,
                        zk::MultiWriteResult::SetData { stat: s } => {
                            SeenMulti::SetData(norm.stat(&stat(s)))
                        }
                        zk::MultiWriteResult::Check => SeenMulti::Checked,
                        _ => return SeenReply::Error("OTHER"),
                    });
                }
                let results = seen;
                SeenReply::Multi(vec![0; ops.len()], results)
            }
            // The crate reports only the failing op; the server sends 0 for each
            // op before it and -2 for each after it (checked with the Java client).
            Err(zk::MultiWriteError::OperationFailed { index, source }) => {
                let codes = (0..ops.len())
                    .map(|i| match i.cmp(&index) {
                        std::cmp::Ordering::Less => 0,
                        std::cmp::Ordering::Equal => code_number(&source),
                        std::cmp::Ordering::Greater => -2,
                    })
                    .collect();
                SeenReply::Multi(codes, Vec::new())
            }
            Err(zk::MultiWriteError::RequestFailed { source }) => {
                SeenReply::Error(code_name(&source))
            }
        }
    }

    /// Runs `steps` here and on `model`, which must see the same at each.
    async fn runs_as(&mut self, model: &mut SimRun, steps: &[Step]) -> Result<(), String> {
        for (index, step) in steps.iter().enumerate() {
            let (seen, expected) = (self.run(step).await?, model.run(step));
            if seen != expected {
                return Err(format!(
                    "step {index} ({step:?}): real {seen:?}, model {expected:?}"
                ));
            }
        }
        Ok(())
    }

    /// Waits (up to 5 s) for a real server's sweep: what each session
    /// heard by the time session 1 heard something.
    async fn heard_by_session_1(&mut self) -> Result<Vec<BTreeSet<String>>, String> {
        let mut heard = vec![BTreeSet::new(); SESSIONS];
        for _ in 0..50 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            for (all, new) in heard.iter_mut().zip(self.collect_events().await?) {
                all.extend(new);
            }
            if !heard[1].is_empty() {
                break;
            }
        }
        Ok(heard)
    }

    /// A last look, long after a sweep: the root lists the same children
    /// on the real server as in the model; then the run ends.
    async fn lists_as(mut self, model: &mut SimRun) -> Result<(), String> {
        tokio::time::sleep(Duration::from_millis(600)).await;
        let list = Step {
            session: 0,
            action: Action::Op(Call::GetChildren("".into(), false)),
        };
        let (seen, expected) = (self.run(&list).await?, model.run(&list));
        if seen != expected {
            return Err(format!(
                "after the sweep: real {seen:?}, model {expected:?}"
            ));
        }
        self.finish().await;
        Ok(())
    }

    /// One round trip per open session (the server queues a notification
    /// before any later reply on the same connection), then every watcher that
    /// fired. Session events (a closed session's watchers) are not watch events.
    async fn collect_events(&mut self) -> Result<Vec<BTreeSet<String>>, String> {
        let mut all = Vec::with_capacity(SESSIONS);
        for slot in 0..SESSIONS {
            if let Some(client) = &self.clients[slot] {
                let answered = match self.round_trip {
                    RoundTrip::Sync => client.sync("/").await,
                    RoundTrip::Read if self.watches[slot].is_empty() => Ok(()),
                    RoundTrip::Read => client.check_stat("/").await.map(|_| ()),
                };
                answered.map_err(|error| format!("session {slot} lost its connection: {error}"))?;
            }
            let events = common::take_fired(&self.norm, &mut self.watches[slot]);
            all.push(events);
        }
        Ok(all)
    }

    async fn finish(mut self) {
        for slot in 0..SESSIONS {
            self.close(slot).await;
        }
    }
}

// ---------------------------------------------------------------------------
// The suite.
// ---------------------------------------------------------------------------

/// What one sequence found: its steps and, at the first difference, both sides.
struct Mismatch {
    seed: u64,
    prefix: Vec<Step>,
    real: Seen,
    sim: Seen,
}

async fn check_sequence(
    address: &str,
    root: &str,
    seed: u64,
    ops: usize,
) -> Result<Option<Mismatch>, String> {
    let steps = Generator::new(seed).sequence(ops);
    let mut sim = SimRun::new(ROOT);
    let addresses = vec![address.to_string(); SESSIONS];
    let mut real = RealRun::new(&addresses, RoundTrip::Sync, root).await?;
    let mut found = None;
    for (index, step) in steps.iter().enumerate() {
        let expected = real.run(step).await?;
        let got = sim.run(step);
        if got != expected {
            found = Some(Mismatch {
                seed,
                prefix: steps[..=index].to_vec(),
                real: expected,
                sim: got,
            });
            break;
        }
    }
    real.finish().await;
    Ok(found)
}

/// This run's number (its start in milliseconds), so that each sequence's
/// root on a shared server is its own.
fn run_id() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_millis())
}

async fn suite(address: &str) -> Result<(u64, u64, Vec<Mismatch>), String> {
    let sequences = common::env_number("ZOOCHECK_CONFORMANCE_SEQUENCES", 500)?;
    let ops = common::env_number("ZOOCHECK_CONFORMANCE_OPS", 40)? as usize;
    let first_seed = common::env_number("ZOOCHECK_CONFORMANCE_SEED", 1)?;
    // Each sequence gets a fresh root, unique to this run, on the shared server.
    let run = run_id();
    let mut mismatches = Vec::new();
    let mut operations = 0;
    for i in 0..sequences {
        let seed = first_seed + i;
        let root = format!("/zoocheck-{run}-{seed}");
        if let Some(mismatch) = check_sequence(address, &root, seed, ops).await? {
            operations += mismatch.prefix.len() as u64;
            mismatches.push(mismatch);
        } else {
            operations += ops as u64;
        }
    }
    Ok((sequences, operations, mismatches))
}

// ---------------------------------------------------------------------------
// The ensemble: trace validation.
// ---------------------------------------------------------------------------

/// The server at `address`'s `Mode:` (`leader`, `follower`), from the
/// `srvr` four-letter word.
fn server_mode(address: &str) -> Result<String, String> {
    use std::io::{Read, Write};
    let failed = |error: std::io::Error| format!("cannot ask {address} for srvr: {error}");
    let mut stream = std::net::TcpStream::connect(address).map_err(failed)?;
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .map_err(failed)?;
    stream.write_all(b"srvr").map_err(failed)?;
    let mut text = String::new();
    stream.read_to_string(&mut text).map_err(failed)?;
    text.lines()
        .find_map(|line| line.strip_prefix("Mode: "))
        .map(str::to_string)
        .ok_or_else(|| format!("{address} answered srvr without a Mode: {text:?}"))
}

/// The ensemble's addresses from `ZOOCHECK_ENSEMBLE`'s `list`, the
/// leader's first: the model's server 0 is the leader, and session slot `i`
/// connects to the `i`th.
fn leader_first(list: &str) -> Result<Vec<String>, String> {
    let addresses: Vec<String> = (list.split(','))
        .map(|address| address.trim().to_string())
        .filter(|address| !address.is_empty())
        .collect();
    if addresses.len() != ENSEMBLE_SERVERS {
        return Err(format!(
            "ZOOCHECK_ENSEMBLE={list:?}: expected {ENSEMBLE_SERVERS} addresses, comma-separated"
        ));
    }
    let modes = (addresses.iter())
        .map(|address| server_mode(address))
        .collect::<Result<Vec<_>, _>>()?;
    let followers = modes.iter().filter(|mode| *mode == "follower").count();
    let Some(leader) = modes.iter().position(|mode| mode == "leader") else {
        return Err(format!(
            "ZOOCHECK_ENSEMBLE={list:?}: no leader (modes {modes:?})"
        ));
    };
    if followers != ENSEMBLE_SERVERS - 1 {
        return Err(format!(
            "ZOOCHECK_ENSEMBLE={list:?}: expected one leader and followers (modes {modes:?})"
        ));
    }
    let mut ordered = vec![addresses[leader].clone()];
    ordered.extend(
        (addresses.iter().enumerate()).filter_map(|(i, a)| (i != leader).then(|| a.clone())),
    );
    Ok(ordered)
}

/// A sequence whose real observations the model could not explain.
struct Unexplained {
    seed: u64,
    /// The steps up to the first unexplained one, with what the real
    /// ensemble showed at each.
    prefix: Vec<(Step, Seen)>,
    allowed: zoocheck::conformance::Unexplained,
}

/// What the ensemble suite counted.
#[derive(Default)]
struct Tally {
    sequences: u64,
    operations: u64,
    unexplained: Vec<Unexplained>,
    /// Steps whose observation one server would not have given (a stale
    /// read, an event not yet fired): the ensemble's own behaviour seen.
    beyond_one_server: u64,
    /// The most model states that explained a sequence at once.
    widest: usize,
}

/// Runs sequence `seed` on the real ensemble whose addresses are
/// `servers` (the leader's first), its sessions where [`layout`] puts
/// them, and validates each step against the model.
async fn validate_sequence(
    servers: &[String],
    root: &str,
    seed: u64,
    ops: usize,
    tally: &mut Tally,
) -> Result<(), String> {
    let steps = Generator::new(seed).sequence(ops);
    let layout = layout(seed);
    let addresses: Vec<String> = (layout.iter())
        .map(|&server| servers[server].clone())
        .collect();
    let mut model = EnsembleRun::placed(ROOT, layout);
    let mut one_server = SimRun::new(ROOT);
    let mut real = RealRun::new(&addresses, RoundTrip::Read, root).await?;
    let mut prefix = Vec::new();
    for step in &steps {
        let seen = real.run(step).await?;
        prefix.push((step.clone(), seen.clone()));
        tally.operations += 1;
        if one_server.run(step) != seen {
            tally.beyond_one_server += 1;
        }
        if let Err(allowed) = model.explain(step, &seen) {
            tally.unexplained.push(Unexplained {
                seed,
                prefix,
                allowed,
            });
            break;
        }
    }
    tally.widest = tally.widest.max(model.widest);
    tally.sequences += 1;
    real.finish().await;
    Ok(())
}

async fn ensemble_suite(list: &str) -> Result<Tally, String> {
    let servers = leader_first(list)?;
    let sequences = common::env_number("ZOOCHECK_ENSEMBLE_SEQUENCES", 200)?;
    let ops = common::env_number("ZOOCHECK_ENSEMBLE_OPS", 40)? as usize;
    let first_seed = common::env_number("ZOOCHECK_ENSEMBLE_SEED", 1)?;
    let run = run_id();
    let mut tally = Tally::default();
    for i in 0..sequences {
        let seed = first_seed + i;
        let root = format!("/zoocheck-ensemble-{run}-{seed}");
        validate_sequence(&servers, &root, seed, ops, &mut tally).await?;
    }
    Ok(tally)
}

/// Runs the ensemble suite if `ZOOCHECK_ENSEMBLE` names one; answers
/// whether it passed.
fn ensemble(runtime: &tokio::runtime::Runtime) -> bool {
    let Ok(list) = std::env::var("ZOOCHECK_ENSEMBLE") else {
        println!(
            "conformance-ensemble: skipped: no ensemble to validate against (set \
             ZOOCHECK_ENSEMBLE=HOST:PORT,HOST:PORT,HOST:PORT; scripts/zk-server ensemble starts one)"
        );
        return true;
    };
    let tally = match runtime.block_on(ensemble_suite(&list)) {
        Ok(tally) => tally,
        Err(error) => {
            println!("conformance-ensemble: error: {error}");
            return false;
        }
    };
    for unexplained in &tally.unexplained {
        let (step, seen) = unexplained.prefix.last().expect("a prefix has a step");
        println!(
            "\nconformance-ensemble: UNEXPLAINED seed {} at step {} ({step:?})",
            unexplained.seed,
            unexplained.prefix.len() - 1
        );
        println!("  real ensemble:  {seen:?}");
        println!(
            "  replies the model allows: {:?}",
            unexplained.allowed.replies
        );
        if let Some((session, sets)) = &unexplained.allowed.events {
            println!("  events the model allows session {session}: {sets:?}");
        }
        println!(
            "  replay with ZOOCHECK_ENSEMBLE_SEED={} ZOOCHECK_ENSEMBLE_SEQUENCES=1",
            unexplained.seed
        );
        println!("  the steps and what the real ensemble showed at each:");
        for (index, (step, seen)) in unexplained.prefix.iter().enumerate() {
            println!("    {index:>3} {step:?}\n        {seen:?}");
        }
    }
    println!(
        "conformance-ensemble: {} sequences, {} operations, {} unexplained",
        tally.sequences,
        tally.operations,
        tally.unexplained.len()
    );
    println!(
        "conformance-ensemble: {} observations one server would not give; at most {} model states \
         explained a sequence at once",
        tally.beyond_one_server, tally.widest
    );
    tally.unexplained.is_empty()
}

fn one_server(runtime: &tokio::runtime::Runtime, address: &str) -> bool {
    match runtime.block_on(suite(address)) {
        Err(error) => {
            println!("conformance: error: {error}");
            false
        }
        Ok((sequences, operations, mismatches)) => {
            for mismatch in &mismatches {
                let step = mismatch.prefix.last().expect("a prefix has a step");
                println!(
                    "\nconformance: MISMATCH seed {} at step {} ({step:?})",
                    mismatch.seed,
                    mismatch.prefix.len() - 1
                );
                println!("  real ZooKeeper: {:?}", mismatch.real);
                println!("  simulated:      {:?}", mismatch.sim);
                println!(
                    "  replay with ZOOCHECK_CONFORMANCE_SEED={} ZOOCHECK_CONFORMANCE_SEQUENCES=1",
                    mismatch.seed
                );
                println!("  shortest failing prefix, as a unit test:\n");
                println!(
                    "{}",
                    unit_test(mismatch.seed, &mismatch.prefix, &mismatch.real)
                );
            }
            println!(
                "conformance: {sequences} sequences, {operations} operations, {} mismatches",
                mismatches.len()
            );
            mismatches.is_empty()
        }
    }
}

fn main() -> ExitCode {
    let runtime = common::runtime();
    let mut passed = true;
    if let Some(address) = common::server_or_skip("conformance") {
        passed &= one_server(&runtime, &address);
    }
    passed &= ensemble(&runtime);
    passed &= held(&runtime);
    passed &= sweeping(&runtime);
    if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

// ---------------------------------------------------------------------------
// A follower held behind: a stale read, and `sync` curing it.
// ---------------------------------------------------------------------------

/// Forwards what `from` reads to `to`; while `held` is set, what it read
/// waits (the hold is looked at after each read, so nothing read once the
/// hold began gets through before the release).
async fn forward(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    held: Option<Arc<AtomicBool>>,
) {
    let mut buffer = vec![0; 64 * 1024];
    loop {
        let n = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        while held
            .as_ref()
            .is_some_and(|held| held.load(Ordering::SeqCst))
        {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        if to.write_all(&buffer[..n]).await.is_err() {
            return;
        }
    }
}

/// A proxy from `listen` to `target` on loopback, for server 1's quorum
/// connection to a peer: server 1's traffic goes through at once, the
/// peer's (proposals, commits, sync answers) unless `held`.
async fn quorum_proxy(listen: u16, target: u16, held: Arc<AtomicBool>) -> Result<(), String> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", listen))
        .await
        .map_err(|error| format!("cannot listen on 127.0.0.1:{listen}: {error}"))?;
    tokio::spawn(async move {
        while let Ok((inbound, _)) = listener.accept().await {
            let Ok(outbound) = tokio::net::TcpStream::connect(("127.0.0.1", target)).await else {
                continue;
            };
            let (from_follower, to_follower) = inbound.into_split();
            let (from_peer, to_peer) = outbound.into_split();
            tokio::spawn(forward(from_follower, to_peer, None));
            tokio::spawn(forward(from_peer, to_follower, Some(held.clone())));
        }
    });
    Ok(())
}

/// Starts `scripts/zk-server ensemble DIR BASE --proxied` and waits for it
/// without blocking the runtime, whose proxies server 1 needs to follow.
async fn start_proxied_ensemble(dir: &std::path::Path, base: u16) -> Result<(), String> {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/zk-server");
    let mut child = std::process::Command::new(&script)
        .arg("ensemble")
        .arg(dir)
        .arg(base.to_string())
        .arg("--proxied")
        .stdout(std::process::Stdio::null())
        .spawn()
        .map_err(|error| format!("cannot run {}: {error}", script.display()))?;
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => return Err(format!("scripts/zk-server ensemble failed: {status}")),
            Ok(None) => tokio::time::sleep(Duration::from_millis(50)).await,
            Err(error) => return Err(format!("waiting for scripts/zk-server: {error}")),
        }
    }
}

fn stop_ensemble(dir: &std::path::Path) {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/zk-server");
    let _ = std::process::Command::new(script)
        .arg("stop")
        .arg(dir)
        .stderr(std::process::Stdio::null())
        .status();
}

/// The fixed scenario: session 1's follower is held behind the leader
/// while session 0 changes `x`; session 1 reads the old value, then `sync`
/// waits until the hold is released and the read after it is fresh. Each
/// step is validated against the simulated ensemble, which must allow the
/// stale read (one server would not give it) and, after the `sync`, refuse
/// it.
async fn held_follower(base: u16, dir: &std::path::Path) -> Result<(), String> {
    let held = Arc::new(AtomicBool::new(false));
    for peer in [2, 3] {
        quorum_proxy(base + 30 + peer, base + 10 + peer, held.clone()).await?;
    }
    start_proxied_ensemble(dir, base).await?;
    let server = |i: u16| format!("127.0.0.1:{}", base + i);
    let modes = [server(1), server(2), server(3)]
        .iter()
        .map(|address| server_mode(address))
        .collect::<Result<Vec<_>, _>>()?;
    if modes[0] != "follower" {
        return Err(format!(
            "server 1 must follow through the proxy (modes {modes:?})"
        ));
    }
    let leader = if modes[1] == "leader" { 2 } else { 3 };
    let addresses = vec![server(leader), server(1), server(5 - leader)];

    // Held from step 3 (the leader commits with server 2 or 3 alone),
    // released while the sync of step 5 waits.
    let steps = stale_read_steps();
    let run = run_id();
    let root = format!("/zoocheck-held-{run}");
    let mut real = RealRun::new(&addresses, RoundTrip::Read, &root).await?;
    let mut model = EnsembleRun::new(ROOT);
    let mut one_server = SimRun::new(ROOT);
    let mut stale = None;
    for (index, step) in steps.iter().enumerate() {
        match index {
            3 => held.store(true, Ordering::SeqCst),
            5 => {
                let held = held.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    held.store(false, Ordering::SeqCst);
                });
            }
            _ => {}
        }
        let seen = real.run(step).await?;
        let fresh = one_server.run(step);
        let data = |seen: &Seen| match &seen.reply {
            SeenReply::Data(Some(bytes), _) => Some(String::from_utf8_lossy(bytes).into_owned()),
            _ => None,
        };
        match index {
            4 if data(&seen).as_deref() != Some("a") => {
                return Err(format!(
                    "the held follower did not answer the old value: {seen:?}"
                ))
            }
            4 if seen == fresh => return Err("one server gives the stale read too".into()),
            4 => stale = Some(seen.clone()),
            5 if held.load(Ordering::SeqCst) => {
                return Err("the sync returned while its follower was held".into())
            }
            6 => {
                let stale = stale.clone().expect("step 4 read the old value");
                if model.clone().explain(step, &stale).is_ok() {
                    return Err("after the sync the model still allows the stale read".into());
                }
                if data(&seen).as_deref() != Some("bb") {
                    return Err(format!("the read after the sync is not fresh: {seen:?}"));
                }
            }
            _ => {}
        }
        if let Err(allowed) = model.explain(step, &seen) {
            return Err(format!(
                "step {index} ({step:?}) unexplained: real {seen:?}, the model allows {:?}",
                allowed.replies
            ));
        }
    }
    real.finish().await;
    Ok(())
}

/// Runs the held-follower scenario if `ZOOCHECK_HELD_ENSEMBLE_BASE` gives
/// the ports of an ensemble it may start; answers whether it passed.
fn held(runtime: &tokio::runtime::Runtime) -> bool {
    let Ok(base) = std::env::var("ZOOCHECK_HELD_ENSEMBLE_BASE") else {
        println!(
            "conformance-ensemble-held: skipped: set ZOOCHECK_HELD_ENSEMBLE_BASE=PORT (it starts \
             3 servers on PORT+1..PORT+33 with scripts/zk-server ensemble --proxied)"
        );
        return true;
    };
    let Some(base) = base.parse().ok().filter(|base| *base < 65500) else {
        println!("conformance-ensemble-held: error: ZOOCHECK_HELD_ENSEMBLE_BASE={base:?}: expected a port below 65500");
        return false;
    };
    let dir = std::env::temp_dir().join(format!("zoocheck-held-{}", std::process::id()));
    let outcome = runtime.block_on(held_follower(base, &dir));
    stop_ensemble(&dir);
    match outcome {
        Ok(()) => {
            println!(
                "conformance-ensemble-held: a follower held behind answered a stale read, which \
                 the model allows and one server would not give; sync waited for the release and \
                 cured it, and after it the model refuses the stale read"
            );
            true
        }
        Err(error) => {
            println!("conformance-ensemble-held: FAILED: {error}");
            false
        }
    }
}

// ---------------------------------------------------------------------------
// Containers: the server deletes an empty one that has had a child.
// ---------------------------------------------------------------------------

/// On a server whose `ContainerManager` looks often: a container that has
/// had a child and has none goes, firing what the model's sweep fires; one
/// that never had a child, and one with a child, stay.
async fn containers_swept(address: &str) -> Result<(), String> {
    let root = format!("/zoocheck-sweep-{}", run_id());
    let mut real =
        RealRun::new(&vec![address.to_string(); SESSIONS], RoundTrip::Sync, &root).await?;
    let mut model = SimRun::new(ROOT);
    let op = |session, call| Step {
        session,
        action: Action::Op(call),
    };
    let steps = [
        op(0, Call::Create("c".into(), None, CreateMode::Container)),
        op(0, Call::Create("c/x".into(), None, CreateMode::Persistent)),
        op(0, Call::Create("n".into(), None, CreateMode::Container)),
        op(0, Call::Create("k".into(), None, CreateMode::Container)),
        op(0, Call::Create("k/y".into(), None, CreateMode::Persistent)),
        op(1, Call::Exists("c".into(), true)),
        op(1, Call::GetChildren("".into(), true)),
        op(0, Call::Delete("c/x".into(), -1)),
    ];
    real.runs_as(&mut model, &steps).await?;
    // Wait for the real server's sweep: what session 1 hears.
    let heard = real.heard_by_session_1().await?;
    let expected = model
        .sweep("c")
        .ok_or("the model would not delete the emptied container")?;
    if model.sweep("n").is_some() || model.sweep("k").is_some() {
        return Err("the model would delete a container that never had a child, or has one".into());
    }
    if heard != expected {
        return Err(format!(
            "the sweep: real heard {heard:?}, the model {expected:?}"
        ));
    }
    // A second look, long after: the others are still there.
    real.lists_as(&mut model).await
}

/// On the same server: TTL nodes of 300 ms. One that never had a child goes
/// (a container would stay), one with a child stays, and the sweep fires
/// what the model's does.
async fn ttl_swept(address: &str) -> Result<(), String> {
    let root = format!("/zoocheck-ttl-{}", run_id());
    let mut real =
        RealRun::new(&vec![address.to_string(); SESSIONS], RoundTrip::Sync, &root).await?;
    real.ttl = Duration::from_millis(300);
    let mut model = SimRun::new(ROOT);
    let op = |session, call| Step {
        session,
        action: Action::Op(call),
    };
    let steps = [
        op(1, Call::Exists("t".into(), true)),
        op(
            0,
            Call::Create("t".into(), data_bytes("x"), CreateMode::PersistentWithTtl),
        ),
        op(
            0,
            Call::Create("u".into(), None, CreateMode::PersistentWithTtl),
        ),
        op(0, Call::Create("u/z".into(), None, CreateMode::Persistent)),
        op(1, Call::GetData("t".into(), true)),
        op(1, Call::GetChildren("".into(), true)),
    ];
    real.runs_as(&mut model, &steps).await?;
    let heard = real.heard_by_session_1().await?;
    if model.sweep("u").is_some() {
        return Err("the model would delete a TTL node that has a child".into());
    }
    let expected = model
        .sweep("t")
        .ok_or("the model would not delete the TTL node that never had a child")?;
    if heard != expected {
        return Err(format!(
            "the sweep: real heard {heard:?}, the model {expected:?}"
        ));
    }
    real.lists_as(&mut model).await
}

fn data_bytes(text: &str) -> Option<Vec<u8>> {
    Some(text.as_bytes().to_vec())
}

/// Runs [`containers_swept`] if `ZOOCHECK_ZK_SWEEPING` names a server
/// started with a short container interval (`ZK_CONTAINER_CHECK_MS=200
/// scripts/zk-server start`); answers whether it passed.
fn sweeping(runtime: &tokio::runtime::Runtime) -> bool {
    let Ok(address) = std::env::var("ZOOCHECK_ZK_SWEEPING") else {
        println!(
            "conformance-containers: skipped: set ZOOCHECK_ZK_SWEEPING=HOST:PORT, a server \
             started with ZK_CONTAINER_CHECK_MS=200 scripts/zk-server start"
        );
        return true;
    };
    match runtime.block_on(containers_swept(&address)) {
        Ok(()) => println!(
            "conformance-containers: the server deleted the emptied container as the \
             model's sweep does (the same events, the same tree), and kept one that never \
             had a child and one with a child"
        ),
        Err(error) => {
            println!("conformance-containers: MISMATCH: {error}");
            return false;
        }
    }
    match runtime.block_on(ttl_swept(&address)) {
        Ok(()) => {
            println!(
                "conformance-ttl: the server deleted a TTL node with no children once its time \
                 to live had passed, as the model's sweep does (the same events, the same tree), \
                 and kept one with a child"
            );
            true
        }
        Err(error) => {
            println!("conformance-ttl: MISMATCH: {error}");
            false
        }
    }
}
