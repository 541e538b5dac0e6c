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

use std::collections::{BTreeMap, BTreeSet};
use std::process::ExitCode;
use std::time::Duration;

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use zoocheck::conformance::*;
use zoocheck::store::{CreateMode, Stat, ANY_VERSION};
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
        let roll = self.below(100);
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
            _ => Action::Op(Call::Sync(self.path(sim))),
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

/// A sequence running on the real server.
struct RealRun {
    address: String,
    clients: Vec<Option<zk::Client>>,
    watches: Vec<Vec<PendingWatch>>,
    norm: Normalizer,
    generation: [usize; SESSIONS],
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

fn mode(mode: CreateMode) -> zk::CreateMode {
    match mode {
        CreateMode::Persistent => zk::CreateMode::Persistent,
        CreateMode::Ephemeral => zk::CreateMode::Ephemeral,
        CreateMode::PersistentSequential => zk::CreateMode::PersistentSequential,
        CreateMode::EphemeralSequential => zk::CreateMode::EphemeralSequential,
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
    async fn new(address: &str, root: &str) -> Result<RealRun, String> {
        let mut clients = Vec::new();
        let mut owners = BTreeMap::new();
        for slot in 0..SESSIONS {
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
            address: address.into(),
            clients,
            watches: (0..SESSIONS).map(|_| Vec::new()).collect(),
            norm: Normalizer {
                root: root.into(),
                base_zxid: root_stat.czxid,
                owners,
            },
            generation: [0; SESSIONS],
        })
    }

    async fn run(&mut self, step: &Step) -> Result<Seen, String> {
        let slot = step.session;
        let reply = match &step.action {
            Action::Reopen => {
                let client = RealRun::connect(&self.address).await?;
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
        let open = zk::Acls::anyone_all();
        match call {
            Call::Create(path, bytes, create_mode) => {
                let path = full(path);
                match client
                    .create(&path, data(bytes), &mode(*create_mode).with_acls(open))
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
            Call::Multi(ops) => self.multi(client, ops).await,
        }
    }

    async fn multi(&self, client: &zk::Client, ops: &[MultiCall]) -> SeenReply {
        let norm = &self.norm;
        let full = |path: &str| under(&norm.root, path).as_str().to_string();
        let open = zk::Acls::anyone_all();
        let mut writer = client.new_multi_writer();
        for op in ops {
            let added = match op {
                MultiCall::Create(path, bytes, m) => {
                    writer.add_create(&full(path), data(bytes), &mode(*m).with_acls(open))
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

    /// One round trip per open session (the server queues a notification
    /// before any later reply on the same connection), then every watcher that
    /// fired. Session events (a closed session's watchers) are not watch events.
    async fn collect_events(&mut self) -> Result<Vec<BTreeSet<String>>, String> {
        let mut all = Vec::with_capacity(SESSIONS);
        for slot in 0..SESSIONS {
            if let Some(client) = &self.clients[slot] {
                client
                    .sync("/")
                    .await
                    .map_err(|error| format!("session {slot} lost its connection: {error}"))?;
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
    let mut real = RealRun::new(address, root).await?;
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

async fn suite(address: &str) -> Result<(u64, u64, Vec<Mismatch>), String> {
    let sequences = common::env_number("ZOOCHECK_CONFORMANCE_SEQUENCES", 500)?;
    let ops = common::env_number("ZOOCHECK_CONFORMANCE_OPS", 40)? as usize;
    let first_seed = common::env_number("ZOOCHECK_CONFORMANCE_SEED", 1)?;
    // Each sequence gets a fresh root, unique to this run, on the shared server.
    let run = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_millis());
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

fn main() -> ExitCode {
    let Some(address) = common::server_or_skip("conformance") else {
        return ExitCode::SUCCESS;
    };
    let runtime = common::runtime();
    match runtime.block_on(suite(&address)) {
        Err(error) => {
            println!("conformance: error: {error}");
            ExitCode::FAILURE
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
            if mismatches.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
    }
}
