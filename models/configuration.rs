//! Configuration (seed 000, "Out of the Box Applications: Name Service,
//! Configuration, Group Membership": "Name service and configuration are two
//! of the primary applications of ZooKeeper. These two functions are
//! provided directly by the ZooKeeper API.")
//!
//! What "directly by the API" means for a reader that must follow the
//! configuration, and where it is done:
//!
//! 1. A writer ([`Command::Write`]) sets the data of [`CONFIG`] (a znode the
//!    world creates) to the next value, `1`, `2`, ...; after CONNECTIONLOSS
//!    it writes the same bytes again (idempotent).
//! 2. A reader ([`Command::Read`]) reads [`CONFIG`] with `getData` and a
//!    watch, in one request, so that no write can fall between the read and
//!    the watch.
//! 3. On `NodeDataChanged` it reads again, with a watch: a watch is
//!    one-shot. After a disconnection the client library sets the watch
//!    again and fires it if the data changed meanwhile. A reader whose
//!    session expired can no longer read: it knows it, and is out.
//! 4. Renewed sessions (`[library] on_expiry = "renew"`, as Curator's and
//!    kazoo's libraries do): watches die with their session, so once its
//!    library has opened a new session a reader reads again, with a watch,
//!    as Curator's `NodeCache` and kazoo's `DataWatch` do on reconnecting
//!    after a lost session; a writer whose write was in flight when the
//!    session ended writes the same value again (the write may or may not
//!    have been applied; writing it twice is harmless).
//!
//! Step 3's "the library sets the watch again" is the Java client's (and
//! Curator's) `SetWatches`. kazoo's library drops its watches with the
//! connection (`[library] watches = "dropped"`); its `DataWatch` reads
//! again on every `CONNECTED`, which the knob `on_reconnect =
//! "reads_again"` is. The reference, which waits on, is stale for ever
//! under kazoo's rules.
//!
//! Variants are presets of four knobs ([`Knobs`]), which a scenario may turn
//! one by one (`[knobs]`, per client in `[[client]]`):
//! - `reference`: the above;
//! - `read_then_watch` (`watches = "after_each_read"`): reads without a watch, then sets the watch with
//!   `exists`: a write between the two is missed;
//! - `one_shot` (`watches = "first_read"`): reads again on a notification, without a watch, so it
//!   hears of the first change only;
//! - `keeps_old_watch` (`after_renewal = "keeps_value"`): after a renewal
//!   the reader carries on with the value it held, as if its watch had
//!   outlived its session; the next write goes unheard;
//! - `persistent` (`watches = "persistent"`, `on_reconnect = "reads_again"`):
//!   Curator's `CuratorCache`. One `addWatch` persistent before the first
//!   read, which stays after it fires, and reads without a watch. A
//!   persistent watch comes back on a reconnect (`SetWatches2`) with no
//!   event for what changed meanwhile (ZOOKEEPER-4698), so it reads again,
//!   and sets the watch again, on every reconnect, as `CuratorCacheImpl`
//!   and its `PersistentWatcher` do; with `on_reconnect = "waits"` it is
//!   stale for ever after a write it missed while cut off. With
//!   `watches = "persistent_with_watched_read"` its first read sets a
//!   one-shot watch too, which the server, keeping one mode per path and
//!   session, puts in the persistent watch's place (ZOOKEEPER-4466, fixed in
//!   3.9): it hears of the first change only.
//!
//! Stopping (`stop`, a cache's `close()`): the reader removes its watch
//! and follows no more. The reference removes every watch of its session
//! on [`CONFIG`] (`removeAllWatches`, the server's `removeWatches`), and
//! sends it again after CONNECTIONLOSS, as Curator's `guaranteed()` does (a
//! removal whose reply was lost leaves the library its watch, which the
//! reconnect set again at the server). `on_stop = "removes_its_watcher"`
//! removes its own watcher (`removeWatches(path, watcher, ...)`), as
//! Curator's `PersistentWatcher.close()` does, and so the `persistent`
//! preset: the Java client then sends `checkWatches`, which removes nothing
//! at the server, and forgets the watch itself, so the server goes on
//! firing it at the connection until the connection drops
//! (ZOOKEEPER-4472).

use crate::properties::Promise;

use crate::catalogued::{Catalogued, Docs, NoParams};
use crate::client::SessionEvent;
use crate::recipe::{Effects, Incarnation, Input, Recipe};
use crate::store::{
    data, AddWatchMode, ErrorCode, EventType, Op, OpResult, Path, Response, WatcherType,
    ANY_VERSION,
};
use crate::world::{Run, World, WorldState};

/// The configuration znode, which the world creates (without data: value 0).
pub const CONFIG: &str = "/config";

crate::knob_value! {
    /// How a reader sets the watch that tells it of the next change.
    pub enum Watches {
        /// with each read: `getData` and a watch in one request (the reference)
        EachRead = "each_read",
        /// with each read, but in a second request: `getData` without a watch, then `exists` with one, so a write between the two is missed
        AfterEachRead = "after_each_read",
        /// with its first read only: it reads again on a change without a watch, so it hears of the first change only
        FirstRead = "first_read",
        /// once, with `addWatch` persistent before its first read, which stays after it fires; every read is without a watch (Curator's `CuratorCache`)
        Persistent = "persistent",
        /// as `persistent`, but its first read sets a watch too: the server keeps one mode per path and session, so that one-shot watch makes the persistent one one-shot, and it goes with the first change (ZOOKEEPER-4466, fixed in 3.9)
        PersistentWithWatchedRead = "persistent_with_watched_read",
    }
}

impl Watches {
    /// Whether the reader watches with `addWatch`.
    fn persistent(self) -> bool {
        matches!(self, Watches::Persistent | Watches::PersistentWithWatchedRead)
    }
}

crate::knob_value! {
    /// How a reader that stops removes its watch.
    pub enum OnStop {
        /// every watch of its session on the node, `removeAllWatches` (the server's `removeWatches`): the server drops them (the reference)
        RemovesAll = "removes_all",
        /// its own watcher, `removeWatches(path, watcher, ...)` as Curator's `PersistentWatcher.close()` does: the Java client sends `checkWatches`, which removes nothing at the server, and forgets the watch itself, so the server fires it at the connection until that drops (ZOOKEEPER-4472)
        RemovesItsWatcher = "removes_its_watcher",
    }
}

crate::knob_value! {
    /// What a reader does once its library renewed its session.
    pub enum AfterRenewal {
        /// reads again, with a watch: its watch died with the old session (the reference)
        ReadsAgain = "reads_again",
        /// carries on with the value it held, as if its watch had outlived the session
        KeepsValue = "keeps_value",
    }
}

crate::knob_value! {
    /// What a reader holding a value does when its connection comes back
    /// (`SyncConnected` on the same session).
    pub enum OnReconnect {
        /// goes on holding: its watch lives as long as its session, re-sent by its library on the new connection (the Java client's `SetWatches`; Curator's `NodeCache` alike)
        Waits = "waits",
        /// reads again, with a watch: kazoo's `DataWatch` does on every `CONNECTED` (`DataWatch._session_watcher`), since kazoo drops its watches when a connection drops
        ReadsAgain = "reads_again",
    }
}

crate::knobs! {
    /// The configuration reader's knobs. A variant is a preset of them
    /// ([`Knobs::REFERENCE`] and the others).
    pub struct Knobs {
        /// How a reader sets the watch that tells it of the next change.
        watches: Watches,
        /// What a reader does once its session is renewed.
        after_renewal: AfterRenewal,
        /// What a reader holding a value does when its connection comes back.
        on_reconnect: OnReconnect,
        /// How a reader that stops removes its watch.
        on_stop: OnStop,
    }
}

impl Knobs {
    /// The reference: see the module's documentation.
    pub const REFERENCE: Knobs = Knobs {
        watches: Watches::EachRead,
        after_renewal: AfterRenewal::ReadsAgain,
        on_reconnect: OnReconnect::Waits,
        on_stop: OnStop::RemovesAll,
    };
    pub const READ_THEN_WATCH: Knobs = Knobs {
        watches: Watches::AfterEachRead,
        ..Knobs::REFERENCE
    };
    pub const ONE_SHOT: Knobs = Knobs {
        watches: Watches::FirstRead,
        ..Knobs::REFERENCE
    };
    pub const KEEPS_OLD_WATCH: Knobs = Knobs {
        after_renewal: AfterRenewal::KeepsValue,
        ..Knobs::REFERENCE
    };
    /// Curator's `CuratorCache`: a persistent watch, and a read again on
    /// every reconnect (`CuratorCacheImpl` rebuilds on `RECONNECTED`, and
    /// its `PersistentWatcher` sets the watch again): the server sets a
    /// persistent watch again on reconnect with no event for a change
    /// made meanwhile (ZOOKEEPER-4698). Its `close()` removes its own
    /// watcher (`PersistentWatcher.close()`), which the server keeps
    /// (ZOOKEEPER-4472).
    pub const PERSISTENT: Knobs = Knobs {
        watches: Watches::Persistent,
        on_reconnect: OnReconnect::ReadsAgain,
        on_stop: OnStop::RemovesItsWatcher,
        ..Knobs::REFERENCE
    };
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Command {
    /// Read the configuration and follow it.
    Read,
    /// Write the next value.
    Write,
    /// Stop following: remove the watch (a cache's `close()`).
    Stop,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    Idle,
    /// A writer's setData in flight.
    Writing,
    /// A reader's read in flight.
    Reading,
    /// A reader holding a value (and, unless flawed, a watch).
    Holding,
    /// A reader whose session ended.
    Dead,
    /// A reader that stopped, its watch removal in flight.
    Stopping,
}

/// One client's state: a writer's count of values written, a reader's value.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct State {
    pub phase: Phase,
    pub written: u8,
    /// The value a reader holds; `None` before its first read.
    pub value: Option<u8>,
    /// A read after the first brought a new value.
    pub updated: bool,
    /// The session ended with the application's call (a write, a read) in
    /// flight: a renewed session makes it again.
    pub interrupted: bool,
    /// The reader stopped following: it reads no more.
    pub stopped: bool,
}

/// Not renamed: its recipe does not say its clients are interchangeable ([`crate::symmetry`]).
impl crate::recipe::Symmetric for State {}

/// Debug as the trace words it: the explorer and test failures read the same.
impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl std::fmt::Display for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.phase)?;
        if self.written > 0 {
            write!(f, " wrote {}", self.written)?;
        }
        if let Some(value) = self.value {
            write!(f, " holds {value}")?;
        }
        if self.stopped {
            f.write_str(" stopped")?;
        }
        Ok(())
    }
}

/// The value a configuration's bytes hold: no data is 0.
pub fn parse_value(bytes: Option<&[u8]>) -> Option<u8> {
    match bytes {
        None => Some(0),
        Some(bytes) => std::str::from_utf8(bytes).ok()?.parse().ok(),
    }
}

/// The configuration reader and writer under one setting of its knobs.
#[derive(Clone, Debug)]
pub struct Configuration {
    pub knobs: Knobs,
    config: Path,
}

impl Configuration {
    pub fn new(knobs: Knobs) -> Configuration {
        Configuration {
            knobs,
            config: Path::new(CONFIG),
        }
    }

    /// Step 2 (and 3): read, and set the watch as `watches` says. `first`:
    /// the first read of a session, or one after a reconnect, before which
    /// a persistent reader sets its watch (again).
    fn read(&self, state: &mut State, first: bool, out: &mut Effects) {
        state.phase = Phase::Reading;
        if first && self.knobs.watches.persistent() {
            out.send(Op::AddWatch {
                path: self.config.clone(),
                mode: AddWatchMode::Persistent,
            });
        }
        let watch = match self.knobs.watches {
            Watches::EachRead => true,
            Watches::AfterEachRead | Watches::Persistent => false,
            Watches::FirstRead | Watches::PersistentWithWatchedRead => first,
        };
        out.send(Op::GetData {
            path: self.config.clone(),
            watch,
        });
        if self.knobs.watches == Watches::AfterEachRead {
            out.send(Op::Exists {
                path: self.config.clone(),
                watch: true,
            });
        }
    }

    /// Step 4: a session of its own again. A writer makes its interrupted
    /// write again; a reader reads again with a watch, but under
    /// `after_renewal = "keeps_value"`, which goes on holding its value. (A client is one
    /// or the other: [`Catalogued::check_scripts`].)
    fn renewed(&self, state: &mut State, out: &mut Effects) {
        let interrupted = std::mem::take(&mut state.interrupted);
        state.phase = Phase::Idle;
        if state.stopped {
            // Its watches died with the old session; it follows no more.
        } else if state.written > 0 {
            if interrupted {
                state.phase = Phase::Writing;
                out.send(self.write(state.written));
            }
        } else if state.value.is_some() && self.knobs.after_renewal == AfterRenewal::KeepsValue {
            state.phase = Phase::Holding;
        } else if state.value.is_some() || interrupted {
            self.read(state, true, out);
        }
    }

    /// The request that removes a stopping reader's watch.
    fn remove_watch(&self) -> Op {
        let (path, kind) = (self.config.clone(), WatcherType::Any);
        match self.knobs.on_stop {
            OnStop::RemovesAll => Op::RemoveWatches { path, kind },
            OnStop::RemovesItsWatcher => Op::CheckWatches { path, kind },
        }
    }

    fn write(&self, written: u8) -> Op {
        Op::SetData {
            path: self.config.clone(),
            data: data(written.to_string().as_bytes()),
            version: ANY_VERSION,
        }
    }

    fn on_reply(&self, state: &mut State, op: Op, result: OpResult, out: &mut Effects) {
        match (&op, result) {
            (_, Err(ErrorCode::SessionExpired)) => die(state),
            (_, Err(ErrorCode::ConnectionLoss)) => out.send(op),
            (Op::SetData { .. }, Ok(_)) => state.phase = Phase::Idle,
            // The removal ended (NOWATCHER too: nothing was left to remove).
            (Op::RemoveWatches { .. } | Op::CheckWatches { .. }, _) => state.phase = Phase::Idle,
            (Op::GetData { .. }, Ok(Response::Data { data, .. }))
                if state.phase == Phase::Reading =>
            {
                let value = parse_value(data.as_deref());
                if state.value.is_some() && value != state.value {
                    state.updated = true;
                }
                state.value = value;
                state.phase = Phase::Holding;
            }
            _ => {}
        }
    }
}

/// The session ended: out, remembering whether a call was in flight.
fn die(state: &mut State) {
    if state.phase != Phase::Dead {
        state.interrupted = matches!(state.phase, Phase::Writing | Phase::Reading);
    }
    state.phase = Phase::Dead;
}

impl Recipe for Configuration {
    type State = State;
    type Command = Command;
    type Fact = std::convert::Infallible;
    type Log = ();

    const PHASES: &'static [&'static str] = &PHASES;

    fn phases(&self, state: &Self::State) -> u64 {
        // A unit variant's discriminant is its place in PHASES.
        1 << state.phase as u32
    }

    fn shape(&self, state: &Self::State) -> u64 {
        self.phases(state)
            | u64::from(state.value.is_some()) << 32
            | u64::from(state.updated) << 33
            | u64::from(state.interrupted) << 34
            | u64::from(state.stopped) << 35
    }

    fn init(&self, _me: Incarnation) -> State {
        State {
            phase: Phase::Idle,
            written: 0,
            value: None,
            updated: false,
            interrupted: false,
            stopped: false,
        }
    }

    fn handle(
        &self,
        _me: Incarnation,
        state: &mut State,
        input: Input<Command>,
        out: &mut Effects,
    ) {
        match input {
            Input::Command(Command::Write) if state.phase == Phase::Idle => {
                state.written += 1;
                state.phase = Phase::Writing;
                out.send(self.write(state.written));
            }
            Input::Command(Command::Read) if state.phase == Phase::Idle && !state.stopped => {
                self.read(state, true, out)
            }
            Input::Command(Command::Stop)
                if matches!(state.phase, Phase::Reading | Phase::Holding) =>
            {
                state.stopped = true;
                state.phase = Phase::Stopping;
                out.send(self.remove_watch());
            }
            Input::Command(_) => {}
            Input::Reply { op, result } => self.on_reply(state, op, result, out),
            Input::Watch(event)
                if event.kind == EventType::NodeDataChanged && state.phase == Phase::Holding =>
            {
                self.read(state, false, out)
            }
            Input::Watch(_) => {}
            Input::Session(SessionEvent::Expired | SessionEvent::Closed) => die(state),
            Input::Session(SessionEvent::SyncConnected) if state.phase == Phase::Dead => {
                self.renewed(state, out)
            }
            Input::Session(SessionEvent::SyncConnected)
                if state.phase == Phase::Holding
                    && self.knobs.on_reconnect == OnReconnect::ReadsAgain =>
            {
                self.read(state, self.knobs.watches.persistent(), out)
            }
            Input::Session(SessionEvent::Disconnected | SessionEvent::SyncConnected) => {}
        }
    }

    fn is_busy(&self, state: &State) -> bool {
        matches!(state.phase, Phase::Writing | Phase::Reading)
    }

    fn is_waiting(&self, _state: &State) -> bool {
        false
    }

    fn directory(&self) -> &Path {
        &self.config
    }

    fn claims(&self, _state: &State, _name: &str) -> bool {
        false
    }
}

/// A command in a trace: the name scenario scripts give it.
impl std::fmt::Display for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(crate::catalogued::command_name::<Configuration>(self))
    }
}

impl Catalogued for Configuration {
    /// Once its library opened a new session a reader reads again with a
    /// watch, and a writer makes its interrupted write again.
    const RENEWS: bool = true;
    const NAME: &'static str = "configuration";
    const DOCS: Docs = Docs {
        summary: "a configuration reader: a writer sets /config, readers read it with a watch and follow it",
        variants: &[
            ("reference", "reads with getData and a watch in one request, again on every change"),
            ("read_then_watch", "reads without a watch, then sets one with exists: misses a write between"),
            ("one_shot", "reads again on a change without a watch: hears of the first change only"),
            ("keeps_old_watch", "after a renewed session goes on with the value it held, as if its watch had outlived the session"),
            ("persistent", "watches with addWatch persistent once, reads without a watch, and reads again (setting the watch again) on every reconnect (Curator's CuratorCache)"),
        ],
        commands: &[
            ("read", "read the configuration and follow it"),
            ("write", "write the next value"),
            ("stop", "stop following: remove the watch (a cache's close())"),
        ],
        group: &[
            &["write"],
            &["read"],
        ],
    };
    type Variant = Knobs;
    const VARIANTS: &'static [(&'static str, Knobs)] = &[
        ("reference", Knobs::REFERENCE),
        ("read_then_watch", Knobs::READ_THEN_WATCH),
        ("one_shot", Knobs::ONE_SHOT),
        ("keeps_old_watch", Knobs::KEEPS_OLD_WATCH),
        ("persistent", Knobs::PERSISTENT),
    ];
    const COMMANDS: &'static [(&'static str, Command)] = &[
        ("read", Command::Read),
        ("write", Command::Write),
        ("stop", Command::Stop),
    ];

    type Params = NoParams;

    fn build(knobs: Knobs, _params: &NoParams, _scripts: &[Vec<Command>]) -> Configuration {
        Configuration::new(knobs)
    }

    /// A client is a writer or a reader: what it makes again after a
    /// renewal (its write, or its read and watch) follows from which.
    fn check_scripts(scripts: &[Vec<Command>]) -> Result<(), String> {
        let both = |script: &Vec<Command>| {
            script.contains(&Command::Write) && script.contains(&Command::Read)
        };
        if scripts.iter().any(both) {
            return Err(
                "a script that both writes and reads; expected a writer ([\"write\", ...]) or a reader ([\"read\"])"
                    .into(),
            );
        }
        Ok(())
    }

    fn properties() -> Vec<Promise<Configuration>> {
        vec![
            Promise::always(
                "readers_hold_the_last_value",
                "once nothing but a fault can happen, every live reader holds the \
                 configuration's value",
                readers_hold_the_last_value,
                stale_readers,
            ),
            Promise::sometimes(
                "reader_saw_an_update",
                "a reader read a value other than the one it held (a write reached a reader)",
                reader_saw_an_update,
            ),
            Promise::always(
                "stopped_readers_unwatched",
                "once nothing but a fault can happen, no reader that stopped has a watch left \
                 at its server",
                stopped_readers_unwatched,
                watched_stopped_readers,
            )
            .by_default(true),
            Promise::sometimes(
                "a_reader_stopped",
                "a reader stopped following and its watch removal ended",
                a_reader_stopped,
            )
            .by_default(false),
        ]
    }
}

/// A live reader: it has read and not stopped, its process runs, and its
/// session is alive (a reader whose session expired can no longer read and
/// knows it).
pub fn live_reader(state: &WorldState<State>, client: usize) -> bool {
    let reader = &state.processes[client].recipe;
    reader.value.is_some() && !reader.stopped && state.is_live(client)
}

/// The stopped readers whose live session still has a watch at the server
/// it is connected to.
fn still_watched(state: &WorldState<State>) -> Vec<usize> {
    let net = &state.net;
    (0..state.processes.len())
        .filter(|&client| state.processes[client].recipe.stopped && state.is_live(client))
        .filter(|&client| {
            let store = net.ensemble.store(&net.store, net.server(client));
            store.watches_of(net.session(client))
        })
        .collect()
}

/// Once nothing but a fault can happen, no stopped reader's session has a
/// watch left at its server. Checked on quiescent states, soundly, for the
/// reason [`crate::properties::no_orphan_no_deadlock`] gives.
pub fn stopped_readers_unwatched(
    world: &World<Configuration>,
    state: &WorldState<State>,
) -> bool {
    !world.is_quiescent(state) || still_watched(state).is_empty()
}

/// Why `stopped_readers_unwatched` is broken: whose watches stay.
fn watched_stopped_readers(
    _: &World<Configuration>,
    run: Run<'_, Configuration>,
) -> Option<String> {
    let left: Vec<String> = still_watched(run.last())
        .into_iter()
        .map(|c| format!("c{c}"))
        .collect();
    Some(format!(
        "nothing but a fault can happen, and the server still keeps a watch of {}, which stopped",
        crate::properties::and_list(&left)
    ))
}

/// A reader stopped and its removal ended (the partner).
pub fn a_reader_stopped(_: &World<Configuration>, state: &WorldState<State>) -> bool {
    (state.processes.iter()).any(|process| process.recipe.stopped && process.recipe.phase != Phase::Stopping)
}

/// After the last write, once nothing but a fault can happen, every live
/// reader holds the value the configuration znode holds. Checked on
/// quiescent states, soundly, for the reason
/// [`crate::properties::no_orphan_no_deadlock`] gives.
pub fn readers_hold_the_last_value(
    world: &World<Configuration>,
    state: &WorldState<State>,
) -> bool {
    if !world.is_quiescent(state) {
        return true;
    }
    let store = &state.net.store;
    let last = store
        .data(&world.shared().config)
        .and_then(|bytes| parse_value(bytes.as_deref()));
    (0..world.clients())
        .filter(|&client| live_reader(state, client))
        .all(|client| state.processes[client].recipe.value == last)
}

/// A reader read a value different from the one it held (the partner: a
/// write reached a reader that had already read).
pub fn reader_saw_an_update(_: &World<Configuration>, state: &WorldState<State>) -> bool {
    state.processes.iter().any(|process| process.recipe.updated)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_back() {
        assert_eq!(parse_value(None), Some(0));
        assert_eq!(parse_value(Some(b"2")), Some(2));
        assert_eq!(parse_value(Some(b"x")), None);
    }
}

/// Why `readers_hold_the_last_value` is broken: who holds what.
fn stale_readers(world: &World<Configuration>, run: Run<'_, Configuration>) -> Option<String> {
    let state = run.last();
    let last = state
        .net
        .store
        .data(&world.shared().config)
        .and_then(|bytes| parse_value(bytes.as_deref()));
    let value = |value: Option<u8>| value.map_or("nothing".to_string(), |value| value.to_string());
    let stale: Vec<String> = (0..world.clients())
        .filter(|&c| live_reader(state, c) && state.processes[c].recipe.value != last)
        .map(|c| format!("c{c} holds {}", value(state.processes[c].recipe.value)))
        .collect();
    Some(format!(
        "nothing but a fault can happen and {} holds {}, but {}",
        world.shared().config,
        value(last),
        crate::properties::and_list(&stale)
    ))
}

/// The phases by name, in declaration order: what a check's coverage
/// reports ([`Recipe::PHASES`]).
const PHASES: [&str; 6] = ["Idle", "Writing", "Reading", "Holding", "Dead", "Stopping"];
