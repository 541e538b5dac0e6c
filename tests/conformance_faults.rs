//! Randomized fault conformance: zoocheck's client library and store against
//! the real Java client and a real ZooKeeper 3.8, under the faults of
//! `docs/zookeeper-semantics.md` section 3.
//!
//! Each sequence, drawn from a seed, has two or three clients. Every client
//! reaches the server through its own small TCP proxy on `127.0.0.1`, which the
//! test steers (pass, drop replies, blackhole, close every connection). The
//! clients are the real `org.apache.zookeeper.ZooKeeper`, driven by
//! `tests/java/FaultDriver.java` (compiled by this program with Debian's jars),
//! and, on the other side, zoocheck's [`Net`]. A step is one of:
//!
//! - a **call** (create, delete, setData, exists, getData, getChildren, sync,
//!   with or without a watch), waited for;
//! - a **lost reply**: the proxy throws the server's bytes away until the
//!   reply of the call has come and gone, then closes the connection; the
//!   server applied the call, the client gets `CONNECTIONLOSS`, `Disconnected`,
//!   and reconnects (SetWatches) with the same session;
//! - a **dropped connection**, with nothing in flight: `Disconnected`, then a
//!   reconnect;
//! - a **cut**: the connection is closed and the proxy holds every attempt the
//!   client makes to reconnect (accepted, never answered). While a client is
//!   cut it may issue a call, which the library queues: either its next
//!   attempt fails (the call gets `CONNECTIONLOSS`), or the path is restored
//!   during an attempt (the call is sent after the reconnect). The cut ends
//!   with a **restore**, or with the server **expiring** the session first
//!   (the client learns `Expired` when it reaches the server again, and every
//!   call on the dead handle ends `SESSIONEXPIRED`), or with the library
//!   **abandoning** the session on its own (what Curator does, through
//!   `ZooKeeperTestable.injectSessionExpiration`) while the server keeps it
//!   and its ephemerals until it times out;
//! - a **renewal**: a new handle, a new session, in the same process.
//!
//! The model is run first and says, for every step, how many things each
//! handle's application must have seen by its end; the real side waits for that
//! many (within a bound) before the next step, so both run the same schedule.
//! Then every reply (error code, created path, the Stat fields a client sees,
//! data, children), every watch event and every session event, each handle's in
//! order, must be equal, but for two things. Zxids are not compared: sequences
//! run concurrently on one server, so its zxids interleave theirs. And the
//! watch events that directly follow a reconnect's `SyncConnected` are compared
//! as a set: the server answers SetWatches in the order the client lists its
//! watches, which for the Java client is a `HashMap`'s order of the absolute
//! paths, so it depends on the root the sequence runs under (see
//! [`catch_up_sorted`]).
//!
//! A fault depends on time only where the server does: it expires a session it
//! has not heard from for its timeout T. The schedule keeps every step of a cut
//! well inside the 2T/3 after the cut before which the server cannot expire it
//! (the client pings every T/3), and an expiry step waits T plus a tick plus a
//! margin. A sequence in which real time still ran past that window is
//! *disturbed*: it is reported and not counted, since the real run did not
//! follow its schedule, and the next seed takes its place. More than a tenth
//! of the sequences disturbed fails the suite.
//!
//! One rule of the real client is a race and the model does not predict it:
//! after `Expired`, the Java client's send thread queues a `Closed` event
//! behind the event thread's end, and that event is delivered only if the event
//! thread has not finished yet. A `session Closed` line right after a handle's
//! `Expired` is therefore dropped from the real side before comparing, and
//! counted in the summary.
//!
//! Environment: `ZOOCHECK_ZK=127.0.0.1:PORT` (without it the program says it
//! was skipped, in one line); `ZOOCHECK_FAULT_SEQUENCES` (default 200),
//! `ZOOCHECK_FAULT_SEED` (the first seed, default 1), `ZOOCHECK_FAULT_PARALLEL`
//! (sequences at once, default 12), `ZOOCHECK_ZK_CLASSPATH` (the client's jars,
//! default Debian's), `ZOOCHECK_FAULTS_VERBOSE=1` (every sequence's steps).
//! The server must have scripts/zk-server's tickTime of 500 ms. It ends with
//!
//!     conformance-faults: <N> sequences, <F> faults, <K> mismatches
//!
//! and fails on any mismatch.

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::io::{self, BufRead, BufReader, Write};
use std::pin::pin;
use std::process::{Child, ChildStdin, Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::{Duration, Instant};

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use zoocheck::client::{ConnState, Delivery, SessionEvent, Xid};
use zoocheck::conformance::{under, Call, Normalizer};
use zoocheck::net::{ClientId, Net};
use zoocheck::store::Path;
use zoocheck::store::{
    self, AddWatchMode, CreateMode, ErrorCode, Op, OpResult, Response, SessionId, Stat, Store,
    StoreConfig, WatcherType, ANY_VERSION,
};

// Of the shared helpers this suite uses only the server lookup, the
// environment and the runtime.
#[allow(dead_code)]
mod common;

/// Every session's timeout T.
const SESSION: Duration = Duration::from_secs(6);
/// The server's tickTime (scripts/zk-server): it expires a session between T
/// and T + tick after it last heard from it.
const TICK: Duration = Duration::from_millis(500);
/// How long past T + tick an expiry step waits.
const EXPIRY_MARGIN: Duration = Duration::from_millis(700);
/// How long before the earliest expiry (2T/3 after a cut) the schedule of a
/// cut must be done.
const CUT_SAFETY: Duration = Duration::from_millis(600);
/// The proxy's address appears this many times in the connect string: the
/// Java client then tries a connection for T / HOSTS before it gives up on it,
/// and never sleeps a whole second for having tried every host.
const HOSTS: usize = 4;
/// Bound on one step's real side.
const STEP_LIMIT: Duration = Duration::from_secs(15);
/// How long the last step's real side may still add something.
const GRACE: Duration = Duration::from_millis(400);

// ---------------------------------------------------------------------------
// The fault-injecting proxy.
// ---------------------------------------------------------------------------

/// What a proxy does with the bytes of its connections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Pass = 0,
    DropReplies = 1,
    Blackhole = 2,
}

impl Mode {
    fn from_u8(value: u8) -> Mode {
        match value {
            0 => Mode::Pass,
            1 => Mode::DropReplies,
            _ => Mode::Blackhole,
        }
    }
}

struct ProxyShared {
    upstream: String,
    mode: AtomicU8,
    /// Connections accepted while blackholing (reconnect attempts held).
    held: AtomicU64,
    /// Replies to requests (xid > 0) the proxy threw away.
    dropped_replies: AtomicU64,
    relays: Mutex<Vec<JoinHandle<()>>>,
}

impl ProxyShared {
    fn mode(&self) -> Mode {
        Mode::from_u8(self.mode.load(Ordering::SeqCst))
    }
}

/// A TCP proxy on 127.0.0.1 in front of the server, for one client. Dropping
/// it closes every connection.
struct Proxy {
    shared: Arc<ProxyShared>,
    address: String,
    acceptor: JoinHandle<()>,
}

impl Proxy {
    async fn start(upstream: &str) -> Result<Proxy, String> {
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .map_err(|error| format!("proxy: cannot listen on 127.0.0.1: {error}"))?;
        let address = listener
            .local_addr()
            .map_err(|error| format!("proxy: no local address: {error}"))?
            .to_string();
        let shared = Arc::new(ProxyShared {
            upstream: upstream.into(),
            mode: AtomicU8::new(Mode::Pass as u8),
            held: AtomicU64::new(0),
            dropped_replies: AtomicU64::new(0),
            relays: Mutex::new(Vec::new()),
        });
        let acceptor = tokio::spawn(accept(listener, shared.clone()));
        Ok(Proxy {
            shared,
            address,
            acceptor,
        })
    }

    /// The connect string a client of this proxy is given.
    fn connect_string(&self) -> String {
        [self.address.as_str(); HOSTS].join(",")
    }

    fn set(&self, mode: Mode) {
        self.shared.mode.store(mode as u8, Ordering::SeqCst);
    }

    /// Closes every connection (both sockets of each); the mode stays.
    fn close_all(&self) {
        for relay in self.shared.relays.lock().expect("relays").drain(..) {
            relay.abort();
        }
    }

    fn held(&self) -> u64 {
        self.shared.held.load(Ordering::SeqCst)
    }

    fn dropped_replies(&self) -> u64 {
        self.shared.dropped_replies.load(Ordering::SeqCst)
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.acceptor.abort();
        self.close_all();
    }
}

async fn accept(listener: TcpListener, shared: Arc<ProxyShared>) {
    loop {
        match listener.accept().await {
            Ok((client, _)) => {
                let mut relays = shared.relays.lock().expect("relays");
                relays.retain(|relay| !relay.is_finished());
                relays.push(tokio::spawn(relay(client, shared.clone())));
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
        }
    }
}

/// The frames the server sends on one connection, read as they pass: the
/// first is the connect response, every later one starts with its reply
/// header's xid (-1 a notification, -2 a ping reply, > 0 a request's reply).
#[derive(Default)]
struct Frames {
    buffer: Vec<u8>,
    connected: bool,
}

impl Frames {
    /// Takes the next bytes; answers the xids of the frames they completed.
    fn feed(&mut self, bytes: &[u8]) -> Vec<i32> {
        self.buffer.extend_from_slice(bytes);
        let mut xids = Vec::new();
        loop {
            let Some(length) = self.buffer.get(..4) else {
                return xids;
            };
            let length = i32::from_be_bytes(length.try_into().expect("4 bytes")).max(0) as usize;
            if self.buffer.len() < 4 + length {
                return xids;
            }
            if self.connected && length >= 4 {
                xids.push(i32::from_be_bytes(
                    self.buffer[4..8].try_into().expect("4 bytes"),
                ));
            }
            self.connected = true;
            self.buffer.drain(..4 + length);
        }
    }
}

/// One client connection: held while the proxy blackholes and it has no server
/// side yet, then relayed according to the mode. Returning closes both sockets.
async fn relay(client: TcpStream, shared: Arc<ProxyShared>) {
    let _ = client.set_nodelay(true);
    if shared.mode() == Mode::Blackhole {
        shared.held.fetch_add(1, Ordering::SeqCst);
    }
    let mut server: Option<TcpStream> = None;
    let mut held = Vec::new();
    let mut frames = Frames::default();
    // Bytes were dropped, or a side closed while the proxy was not passing: the
    // stream can no longer carry the protocol and is closed once passing again.
    let mut broken = false;
    let mut client_open = true;
    let mut server_open = true;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let mode = shared.mode();
        if broken && mode == Mode::Pass {
            return;
        }
        if server.is_none() && mode != Mode::Blackhole {
            let Ok(Ok(stream)) = tokio::time::timeout(
                Duration::from_secs(2),
                TcpStream::connect(shared.upstream.as_str()),
            )
            .await
            else {
                return;
            };
            let _ = stream.set_nodelay(true);
            if !write_all(&stream, &held).await {
                return;
            }
            held.clear();
            server = Some(stream);
        }
        let server_side = server.as_ref().filter(|_| server_open);
        readable(client_open.then_some(&client), server_side).await;
        if client_open {
            match client.try_read(&mut buf) {
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => {}
                Ok(0) | Err(_) => {
                    if server.is_none() {
                        // Given up while held: nothing of it reaches the server.
                        return;
                    }
                    client_open = false;
                    broken = true;
                }
                Ok(n) => match (&server, mode) {
                    (None, _) => held.extend_from_slice(&buf[..n]),
                    (Some(_), Mode::Blackhole) => broken = true,
                    (Some(stream), _) => {
                        if !write_all(stream, &buf[..n]).await {
                            return;
                        }
                    }
                },
            }
        }
        if let Some(stream) = server.as_ref().filter(|_| server_open) {
            match stream.try_read(&mut buf) {
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => {}
                Ok(0) | Err(_) => {
                    server_open = false;
                    broken = true;
                }
                Ok(n) => {
                    let xids = frames.feed(&buf[..n]);
                    if mode == Mode::Pass && client_open && !broken {
                        if !write_all(&client, &buf[..n]).await {
                            return;
                        }
                    } else {
                        broken = true;
                        let replies = xids.iter().filter(|&&xid| xid > 0).count();
                        shared
                            .dropped_replies
                            .fetch_add(replies as u64, Ordering::SeqCst);
                    }
                }
            }
        }
        if !client_open && !server_open {
            return;
        }
    }
}

/// Waits until one of the sockets has something to read (or its end), or for a
/// short tick, so that a change of mode is noticed.
async fn readable(a: Option<&TcpStream>, b: Option<&TcpStream>) {
    let mut tick = pin!(tokio::time::sleep(Duration::from_millis(5)));
    std::future::poll_fn(|cx| {
        let a_ready = a.is_some_and(|stream| stream.poll_read_ready(cx).is_ready());
        let b_ready = b.is_some_and(|stream| stream.poll_read_ready(cx).is_ready());
        if a_ready || b_ready || tick.as_mut().poll(cx).is_ready() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await
}

async fn write_all(stream: &TcpStream, mut data: &[u8]) -> bool {
    let written = tokio::time::timeout(Duration::from_secs(2), async {
        while !data.is_empty() {
            if stream.writable().await.is_err() {
                return false;
            }
            match stream.try_write(data) {
                Ok(n) => data = &data[n..],
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => {}
                Err(_) => return false,
            }
        }
        true
    })
    .await;
    written == Ok(true)
}

// ---------------------------------------------------------------------------
// The real Java client.
// ---------------------------------------------------------------------------

/// `tests/java/FaultDriver.java` running in one JVM for every sequence. Its
/// stdout is read by a thread into one list of lines per handle.
struct Driver {
    child: Mutex<Child>,
    stdin: Mutex<ChildStdin>,
    lines: Arc<Mutex<BTreeMap<String, Vec<String>>>>,
    errors: Arc<Mutex<Vec<String>>>,
}

impl Driver {
    fn start() -> Result<Driver, String> {
        let classpath = std::env::var("ZOOCHECK_ZK_CLASSPATH").unwrap_or_else(|_| {
            ["zookeeper", "zookeeper-jute", "slf4j-api", "slf4j-nop"]
                .map(|jar| format!("/usr/share/java/{jar}.jar"))
                .join(":")
        });
        let source = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/java/FaultDriver.java");
        let classes =
            std::env::temp_dir().join(format!("zoocheck-fault-driver-{}", std::process::id()));
        std::fs::create_dir_all(&classes)
            .map_err(|error| format!("cannot create {}: {error}", classes.display()))?;
        let compiled = Command::new("javac")
            .arg("-nowarn")
            .arg("-cp")
            .arg(&classpath)
            .arg("-d")
            .arg(&classes)
            .arg(source)
            .output()
            .map_err(|error| format!("cannot run javac (a JDK is needed): {error}"))?;
        if !compiled.status.success() {
            return Err(format!(
                "javac failed on {source} with classpath {classpath}:\n{}",
                String::from_utf8_lossy(&compiled.stderr)
            ));
        }
        let mut child = Command::new("java")
            .arg("-Xmx256m")
            .arg("-cp")
            .arg(format!("{}:{classpath}", classes.display()))
            .arg("FaultDriver")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|error| format!("cannot run java: {error}"))?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let lines: Arc<Mutex<BTreeMap<String, Vec<String>>>> = Arc::default();
        let errors: Arc<Mutex<Vec<String>>> = Arc::default();
        let (sink, error_sink) = (lines.clone(), errors.clone());
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                match line.split_once(' ') {
                    Some(("error", text)) => error_sink.lock().expect("errors").push(text.into()),
                    Some((handle, rest)) => sink
                        .lock()
                        .expect("lines")
                        .entry(handle.to_string())
                        .or_default()
                        .push(rest.to_string()),
                    None => error_sink.lock().expect("errors").push(line),
                }
            }
        });
        Ok(Driver {
            child: Mutex::new(child),
            stdin: Mutex::new(stdin),
            lines,
            errors,
        })
    }

    fn send(&self, line: &str) -> Result<(), String> {
        let mut stdin = self.stdin.lock().expect("stdin");
        writeln!(stdin, "{line}")
            .and_then(|()| stdin.flush())
            .map_err(|error| format!("the Java driver is gone: {error}"))
    }

    /// What `handle`'s application has seen so far: every line but the
    /// driver's acknowledgements and the setup's reply.
    fn seen(&self, handle: &str) -> Vec<String> {
        self.lines
            .lock()
            .expect("lines")
            .get(handle)
            .map(|lines| {
                lines
                    .iter()
                    .filter(|line| {
                        !line.starts_with("issued ") && !line.starts_with("reply setup ")
                    })
                    .cloned()
                    .collect()
            })
            .unwrap_or_default()
    }

    fn acknowledged(&self, handle: &str, tag: usize) -> bool {
        let ack = format!("issued {tag}");
        self.lines
            .lock()
            .expect("lines")
            .get(handle)
            .is_some_and(|lines| lines.contains(&ack))
    }

    fn errors(&self) -> Vec<String> {
        self.errors.lock().expect("errors").clone()
    }

    fn stop(&self) {
        let _ = self.send("quit");
        let mut child = self.child.lock().expect("child");
        for _ in 0..50 {
            if matches!(child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

// ---------------------------------------------------------------------------
// Sequences.
// ---------------------------------------------------------------------------

/// One step of a sequence; the tag of its call is the step's index.
#[derive(Clone, Debug)]
enum Step {
    /// The client issues a call (queued if it is cut) and its reply comes.
    Call(ClientId, Call),
    /// The server applies the call, its reply is lost with the connection,
    /// and the client reconnects.
    Lose(ClientId, Call),
    /// The connection drops with nothing in flight; the client reconnects.
    Drop(ClientId),
    /// The connection drops and every reconnect attempt is held.
    Cut(ClientId),
    /// A cut client issues a call; its next attempt fails.
    QueueFail(ClientId, Call),
    /// A cut client issues a call during an attempt, and the path comes back.
    QueueRestore(ClientId, Call),
    /// A cut client's path comes back.
    Restore(ClientId),
    /// The server expires a cut client's session.
    Expire(ClientId),
    /// A cut client's library gives its session up; the server keeps it.
    Abandon(ClientId),
    /// The server expires the session a client abandoned.
    OldExpires(ClientId),
    /// A client whose session is gone opens a new one.
    Renew(ClientId),
}

impl Step {
    fn is_fault(&self) -> bool {
        matches!(
            self,
            Step::Lose(..) | Step::Drop(_) | Step::Cut(_) | Step::Expire(_) | Step::Abandon(_)
        )
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Call(c, call) => write!(f, "c{c} {}", words(call)),
            Step::Lose(c, call) => write!(f, "c{c} {}, reply lost", words(call)),
            Step::Drop(c) => write!(f, "c{c}'s connection drops"),
            Step::Cut(c) => write!(f, "c{c} is cut off"),
            Step::QueueFail(c, call) => {
                write!(f, "c{c} {} while cut off; the attempt fails", words(call))
            }
            Step::QueueRestore(c, call) => {
                write!(f, "c{c} {} while cut off; the path comes back", words(call))
            }
            Step::Restore(c) => write!(f, "c{c}'s path comes back"),
            Step::Expire(c) => write!(f, "the server expires c{c}'s session"),
            Step::Abandon(c) => write!(f, "c{c}'s library abandons its session"),
            Step::OldExpires(c) => write!(f, "the server expires c{c}'s abandoned session"),
            Step::Renew(c) => write!(f, "c{c} opens a new session"),
        }
    }
}

fn mode_word(mode: CreateMode) -> &'static str {
    match mode {
        CreateMode::Persistent => "P",
        CreateMode::Ephemeral => "E",
        CreateMode::PersistentSequential => "PS",
        CreateMode::EphemeralSequential => "ES",
        CreateMode::Container => "C",
        CreateMode::PersistentWithTtl => "T",
        CreateMode::PersistentSequentialWithTtl => "TS",
    }
}

fn data_word(data: &Option<Vec<u8>>) -> String {
    data.as_deref().map_or_else(
        || "-".into(),
        |data| String::from_utf8_lossy(data).into_owned(),
    )
}

/// A call as the driver reads it, under `root`.
fn command(call: &Call, root: &str) -> String {
    let at = |relative: &str| under(root, relative).to_string();
    match call {
        Call::Create(path, data, mode) => {
            format!(
                "create {} {} {}",
                at(path),
                data_word(data),
                mode_word(*mode)
            )
        }
        Call::Delete(path, version) => format!("delete {} {version}", at(path)),
        Call::SetData(path, data, version) => {
            format!("set {} {} {version}", at(path), data_word(data))
        }
        Call::Exists(path, watch) => format!("exists {} {}", at(path), u8::from(*watch)),
        Call::GetData(path, watch) => format!("get {} {}", at(path), u8::from(*watch)),
        Call::GetChildren(path, watch) => format!("children {} {}", at(path), u8::from(*watch)),
        Call::Sync(path) => format!("sync {}", at(path)),
        Call::Multi(_) => unreachable!("sequences have no multi"),
        Call::AddWatch(path, mode) => format!(
            "addwatch {} {}",
            at(path),
            match mode {
                AddWatchMode::Persistent => "P",
                AddWatchMode::PersistentRecursive => "R",
            }
        ),
        Call::RemoveWatches(path, kind) => format!("removeall {} {}", at(path), type_word(*kind)),
        Call::CheckWatches(path, kind) => {
            format!("removewatcher {} {}", at(path), type_word(*kind))
        }
    }
}

/// A watcher type as the driver reads it.
fn type_word(kind: WatcherType) -> &'static str {
    match kind {
        WatcherType::Children => "C",
        WatcherType::Data => "D",
        WatcherType::Any => "A",
    }
}

fn words(call: &Call) -> String {
    let shown = |path: &str| if path.is_empty() { "." } else { path }.to_string();
    match call {
        Call::Create(path, data, mode) => {
            format!(
                "create {} {} {}",
                shown(path),
                data_word(data),
                mode_word(*mode)
            )
        }
        Call::Delete(path, version) => format!("delete {} v{version}", shown(path)),
        Call::SetData(path, data, version) => {
            format!("setData {} {} v{version}", shown(path), data_word(data))
        }
        Call::Exists(path, watch) => format!("exists {}{}", shown(path), watched(*watch)),
        Call::GetData(path, watch) => format!("getData {}{}", shown(path), watched(*watch)),
        Call::GetChildren(path, watch) => {
            format!("getChildren {}{}", shown(path), watched(*watch))
        }
        Call::Sync(path) => format!("sync {}", shown(path)),
        Call::Multi(_) => "multi".into(),
        Call::AddWatch(path, mode) => format!("addWatch {} {}", shown(path), mode.name()),
        Call::RemoveWatches(path, kind) => {
            format!("removeAllWatches {} {}", shown(path), kind.name())
        }
        Call::CheckWatches(path, kind) => {
            format!(
                "removeWatches (its watcher) {} {}",
                shown(path),
                kind.name()
            )
        }
    }
}

fn watched(watch: bool) -> &'static str {
    if watch {
        " (watch)"
    } else {
        ""
    }
}

fn below(rng: &mut ChaCha8Rng, n: u64) -> u64 {
    rng.next_u64() % n
}

fn pick<'a, T>(rng: &mut ChaCha8Rng, items: &'a [T]) -> &'a T {
    &items[below(rng, items.len() as u64) as usize]
}

/// The paths a call names (sequential nodes aside).
const PATHS: [&str; 4] = ["a", "b", "a/c", "b/c"];
const PARENTS: [&str; 3] = ["", "a", "b"];

/// A call, mostly on nodes that exist (or, for a create, whose parent does),
/// so that few calls end in `NONODE`.
fn random_call(rng: &mut ChaCha8Rng, store: &Store) -> Call {
    let kind = below(rng, 24);
    call_of_kind(rng, store, kind)
}

/// A removal of one of the watches client `c` has, of a type drawn at
/// random (so that it sometimes names a table the watch is not in).
fn watched_removal(rng: &mut ChaCha8Rng, model: &Model, c: ClientId) -> Call {
    let watches = model.net.client(c).watches();
    let tables = [
        &watches.data,
        &watches.exist,
        &watches.child,
        &watches.persistent,
        &watches.recursive,
    ];
    let watched: Vec<&Path> = tables.into_iter().flatten().collect();
    let path = match model.norm.path(pick(rng, &watched).as_str()) {
        root if root == "." => String::new(),
        relative => relative,
    };
    let kind = *pick(rng, &WatcherType::ALL);
    match below(rng, 2) {
        0 => Call::RemoveWatches(path, kind),
        _ => Call::CheckWatches(path, kind),
    }
}

/// A call on a dead handle: any but a watch removal, which the Java client
/// answers there from the tables it keeps (SESSIONEXPIRED for a path it
/// watched, NOWATCHER otherwise) and the model, which forgets them at
/// expiry, cannot.
fn dead_handle_call(rng: &mut ChaCha8Rng, store: &Store) -> Call {
    let kind = below(rng, 22);
    call_of_kind(rng, store, kind)
}

/// A call that changes the tree (or tries to), for another client to miss.
fn random_change(rng: &mut ChaCha8Rng, store: &Store) -> Call {
    let kind = below(rng, 10);
    call_of_kind(rng, store, kind)
}

/// A read that leaves a watch, or now and then an `addWatch`.
fn watching_read(rng: &mut ChaCha8Rng, store: &Store) -> Call {
    if below(rng, 5) == 0 {
        return call_of_kind(rng, store, 20);
    }
    let kind = 10 + below(rng, 9);
    match call_of_kind(rng, store, kind) {
        Call::Exists(path, _) => Call::Exists(path, true),
        Call::GetData(path, _) => Call::GetData(path, true),
        Call::GetChildren(path, _) => Call::GetChildren(path, true),
        other => unreachable!("kinds 10 to 18 are reads, not {other:?}"),
    }
}

fn call_of_kind(rng: &mut ChaCha8Rng, store: &Store, kind: u64) -> Call {
    let data = Some(format!("d{}", below(rng, 10)).into_bytes());
    let watch = below(rng, 10) < 7;
    let version = if below(rng, 4) == 0 { 0 } else { ANY_VERSION };
    let exists = |path: &str| store.exists(&under(MODEL_ROOT, path));
    let likely = |rng: &mut ChaCha8Rng, wanted: &dyn Fn(&str) -> bool| {
        let fitting: Vec<&str> = PATHS.iter().copied().filter(|path| wanted(path)).collect();
        if fitting.is_empty() || below(rng, 4) == 0 {
            pick(rng, &PATHS).to_string()
        } else {
            pick(rng, &fitting).to_string()
        }
    };
    let parent_exists = |path: &str| {
        path.rsplit_once('/')
            .is_none_or(|(parent, _)| exists(parent))
    };
    match kind {
        0..=4 => {
            let mode = *pick(
                rng,
                &[
                    CreateMode::Persistent,
                    CreateMode::Ephemeral,
                    CreateMode::PersistentSequential,
                    CreateMode::EphemeralSequential,
                ],
            );
            let path = match mode {
                CreateMode::Persistent | CreateMode::Ephemeral => {
                    likely(rng, &|path| !exists(path) && parent_exists(path))
                }
                _ => format!("{}s-", pick(rng, &["", "a/", "b/"])),
            };
            Call::Create(path, data, mode)
        }
        5..=6 => Call::Delete(likely(rng, &exists), version),
        7..=9 => Call::SetData(likely(rng, &exists), data, version),
        10..=12 => Call::Exists(likely(rng, &exists), watch),
        13..=15 => Call::GetData(likely(rng, &exists), watch),
        16..=18 => Call::GetChildren(pick(rng, &PARENTS).to_string(), watch),
        19 => Call::Sync(pick(rng, &PARENTS).to_string()),
        // A watch that stays, on a parent or on a path.
        20..=21 => {
            let path = match below(rng, 2) {
                0 => pick(rng, &PARENTS).to_string(),
                _ => pick(rng, &PATHS).to_string(),
            };
            Call::AddWatch(path, *pick(rng, &AddWatchMode::ALL))
        }
        // A watch removal, of every watch of a kind on a path or of the
        // application's one watcher there.
        _ => {
            let path = match below(rng, 2) {
                0 => pick(rng, &PARENTS).to_string(),
                _ => pick(rng, &PATHS).to_string(),
            };
            let kind = *pick(rng, &WatcherType::ALL);
            match below(rng, 2) {
                0 => Call::RemoveWatches(path, kind),
                _ => Call::CheckWatches(path, kind),
            }
        }
    }
}

/// A call that touches what client `c` watches (so that a reconnect has
/// something to catch up), or that watches an ephemeral of `session` (so that
/// its expiry fires something); None if there is neither.
fn aimed_call(
    rng: &mut ChaCha8Rng,
    model: &Model,
    c: ClientId,
    session: SessionId,
) -> Option<Call> {
    let data = || Some(b"w".to_vec());
    let watches = model.net.client(c).watches();
    let mut calls = Vec::new();
    for path in &watches.data {
        let path = model.norm.path(path.as_str());
        calls.push(Call::SetData(path.clone(), data(), ANY_VERSION));
        calls.push(Call::Delete(path, ANY_VERSION));
    }
    for path in &watches.exist {
        let path = model.norm.path(path.as_str());
        calls.push(Call::Create(path, data(), CreateMode::Persistent));
    }
    for path in &watches.child {
        let child = match model.norm.path(path.as_str()).as_str() {
            "." => "s-".to_string(),
            parent => format!("{parent}/s-"),
        };
        calls.push(Call::Create(
            child,
            data(),
            CreateMode::PersistentSequential,
        ));
    }
    // A persistent watch misses what changes while it is cut off (no
    // catch-up): its node's data, a child below it.
    for path in watches.persistent.iter().chain(&watches.recursive) {
        let path = model.norm.path(path.as_str());
        let child = match path.as_str() {
            "." => "s-".to_string(),
            parent => format!("{parent}/s-"),
        };
        if path != "." {
            calls.push(Call::SetData(path, data(), ANY_VERSION));
        }
        calls.push(Call::Create(
            child,
            data(),
            CreateMode::PersistentSequential,
        ));
    }
    for path in model.net.store.ephemerals(session) {
        calls.push(Call::Exists(model.norm.path(path.as_str()), true));
    }
    (!calls.is_empty()).then(|| pick(rng, &calls).clone())
}

/// What the generator must remember beside the model: which client is cut
/// off, since which step, and whether it already waited on an attempt; which
/// abandoned session the server still has.
#[derive(Default)]
struct Plan {
    steps: usize,
    faults: usize,
    cut: Option<Cut>,
    abandoned: Option<(ClientId, usize)>,
}

struct Cut {
    client: ClientId,
    since: usize,
    waited: bool,
    /// The server expired the session during the cut.
    expired: bool,
}

const STEPS: usize = 20;
const FAULTS: usize = 4;

/// The next step for a sequence in `model`'s state, or None when it is over.
fn next_step(rng: &mut ChaCha8Rng, model: &Model, plan: &Plan) -> Option<Step> {
    let clients = model.net.clients.len();
    let connected: Vec<ClientId> = (0..clients)
        .filter(|&c| model.net.client(c).state() == ConnState::Connected)
        .collect();
    let call_by_connected = |rng: &mut ChaCha8Rng| {
        (!connected.is_empty())
            .then(|| Step::Call(*pick(rng, &connected), random_call(rng, &model.net.store)))
    };
    // A call by a connected client aimed at what `session` (of client `c`)
    // watches or owns, or else any change.
    let aimed_by_connected = |rng: &mut ChaCha8Rng, c: ClientId, session: SessionId| {
        let others: Vec<ClientId> = connected.iter().copied().filter(|&o| o != c).collect();
        (!others.is_empty()).then(|| {
            let call = aimed_call(rng, model, c, session)
                .unwrap_or_else(|| random_change(rng, &model.net.store));
            Step::Call(*pick(rng, &others), call)
        })
    };
    if let Some((client, since)) = plan.abandoned {
        // Quick steps only until the server expires the abandoned session.
        if plan.steps - since >= 4 || below(rng, 4) == 0 {
            return Some(Step::OldExpires(client));
        }
        if model.net.client(client).state() == ConnState::Expired && below(rng, 2) == 0 {
            return Some(Step::Renew(client));
        }
        let old = model.abandoned.expect("the abandoned session");
        let step = if below(rng, 2) == 0 {
            aimed_by_connected(rng, client, old)
        } else {
            call_by_connected(rng)
        };
        return step.or(Some(Step::OldExpires(client)));
    }
    if let Some(cut) = &plan.cut {
        let c = cut.client;
        let age = plan.steps - cut.since;
        let over = age >= 5 || plan.steps >= STEPS;
        let roll = below(rng, 10);
        if !over {
            if roll < 6 {
                // What the cut client misses, for SetWatches to tell it, or a
                // watch on its ephemerals, for its expiry to fire.
                if let Some(step) = aimed_by_connected(rng, c, model.net.session(c)) {
                    return Some(step);
                }
            }
            if roll < 8 && !cut.waited {
                let call = random_call(rng, &model.net.store);
                return Some(if below(rng, 2) == 0 {
                    Step::QueueFail(c, call)
                } else {
                    Step::QueueRestore(c, call)
                });
            }
            if roll < 9 && age == 1 && !cut.expired && plan.faults < FAULTS {
                return Some(Step::Abandon(c));
            }
        }
        if !cut.expired && !cut.waited && plan.faults < FAULTS && below(rng, 3) == 0 {
            return Some(Step::Expire(c));
        }
        return Some(Step::Restore(c));
    }
    if plan.steps >= STEPS {
        return None;
    }
    let c = below(rng, clients as u64) as ClientId;
    match model.net.client(c).state() {
        ConnState::Expired | ConnState::Closed => Some(if below(rng, 4) == 0 {
            Step::Call(c, dead_handle_call(rng, &model.net.store))
        } else {
            Step::Renew(c)
        }),
        ConnState::Disconnected => unreachable!("only a cut client stays disconnected"),
        ConnState::Connected => {
            // A client that watches something is cut off more often, and one
            // that watches nothing reads with a watch more often: a cut-off
            // client's watches are what SetWatches catches up.
            let watching = !model.net.client(c).watches().is_empty();
            let faulty = plan.faults < FAULTS;
            Some(match below(rng, 12) {
                0..=1 if faulty => Step::Lose(c, random_call(rng, &model.net.store)),
                2 if faulty => Step::Drop(c),
                3..=4 if faulty => Step::Cut(c),
                5..=6 if faulty && watching => Step::Cut(c),
                5..=7 if !watching => Step::Call(c, watching_read(rng, &model.net.store)),
                8 if watching => Step::Call(c, watched_removal(rng, model, c)),
                _ => Step::Call(c, random_call(rng, &model.net.store)),
            })
        }
    }
}

/// Keeps `plan` up with the step just taken.
fn account(plan: &mut Plan, step: &Step) {
    if step.is_fault() {
        plan.faults += 1;
    }
    match step {
        Step::Cut(c) => {
            plan.cut = Some(Cut {
                client: *c,
                since: plan.steps,
                waited: false,
                expired: false,
            });
        }
        Step::QueueFail(..) => {
            if let Some(cut) = &mut plan.cut {
                cut.waited = true;
            }
        }
        Step::Expire(_) => {
            if let Some(cut) = &mut plan.cut {
                cut.expired = true;
            }
        }
        Step::QueueRestore(..) | Step::Restore(_) => plan.cut = None,
        Step::Abandon(c) => {
            plan.cut = None;
            plan.abandoned = Some((*c, plan.steps));
        }
        Step::OldExpires(_) => plan.abandoned = None,
        _ => {}
    }
    plan.steps += 1;
}

// ---------------------------------------------------------------------------
// The model: zoocheck's client library and store.
// ---------------------------------------------------------------------------

const MODEL_ROOT: &str = "/zf";

/// A handle's name: the client and its session's generation, `c0.1`.
fn handle_name(client: ClientId, generation: usize) -> String {
    format!("c{client}.{generation}")
}

struct Model {
    net: Net,
    generation: Vec<usize>,
    /// Session id to handle name.
    norm: Normalizer,
    /// What each handle's application saw, normalised.
    seen: BTreeMap<String, Vec<String>>,
    /// The tag (step index) of each request, by session and xid.
    tags: BTreeMap<(SessionId, Xid), usize>,
    abandoned: Option<SessionId>,
    /// How often each client-library rule was exercised.
    coverage: Coverage,
}

/// How often a sequence exercised each rule of the client library, counted
/// on the model's side (both sides agree, or the sequence is a mismatch).
type Coverage = BTreeMap<&'static str, usize>;

impl Model {
    fn new(clients: usize) -> Model {
        let net = Net::new(StoreConfig::default(), clients);
        let mut model = Model {
            generation: vec![1; clients],
            norm: normalizer(MODEL_ROOT),
            seen: BTreeMap::new(),
            tags: BTreeMap::new(),
            abandoned: None,
            coverage: Coverage::new(),
            net,
        };
        for client in 0..clients {
            let name = handle_name(client, 1);
            (model.norm.owners).insert(model.net.session(client), name.clone());
            model
                .seen
                .insert(name.clone(), vec![format!("session SyncConnected {name}")]);
        }
        // The root, created by c0 before the sequence; not compared.
        let root = Op::Create {
            path: MODEL_ROOT.into(),
            data: store::data(b"r"),
            mode: CreateMode::Persistent,
        };
        let answered = model.net.submit(0, root);
        assert!(answered.is_empty(), "the root: {answered:?}");
        model.net.settle();
        model
    }

    fn handle(&self, client: ClientId) -> String {
        handle_name(client, self.generation[client])
    }

    /// How many things each handle has seen.
    fn counts(&self) -> BTreeMap<String, usize> {
        self.seen
            .iter()
            .map(|(handle, seen)| (handle.clone(), seen.len()))
            .collect()
    }

    fn submit(&mut self, client: ClientId, call: &Call, tag: usize) {
        let xid = self.net.client(client).next_xid();
        self.tags.insert((self.net.session(client), xid), tag);
        let answered = self.net.submit(client, call.to_op(MODEL_ROOT));
        self.absorb(client, answered);
    }

    fn count(&mut self, rule: &'static str, times: usize) {
        *self.coverage.entry(rule).or_default() += times;
    }

    /// A reconnect's deliveries, counted: catch-up events, and expiry learnt.
    fn reconnect(&mut self, client: ClientId) {
        let watches = self.net.client(client).watches();
        let persistent = watches.persistent.len() + watches.recursive.len();
        let back = self.net.reconnect(client);
        if self.net.client(client).state() == ConnState::Connected {
            self.count(
                "persistent watches set again on reconnect (SetWatches2, no catch-up)",
                persistent,
            );
        }
        let events = back
            .iter()
            .filter(|d| matches!(d, Delivery::Watch(_)))
            .count();
        self.count("watch events caught up on reconnect (SetWatches)", events);
        if back.contains(&Delivery::Session(SessionEvent::Expired)) {
            self.count("expiries learnt on reconnect", 1);
        }
        self.absorb(client, back);
    }

    fn absorb(&mut self, client: ClientId, deliveries: Vec<Delivery>) {
        for delivery in &deliveries {
            match delivery {
                Delivery::Reply {
                    result: Err(ErrorCode::ConnectionLoss),
                    ..
                } => self.count("CONNECTIONLOSS replies", 1),
                Delivery::Reply {
                    result: Err(ErrorCode::SessionExpired),
                    ..
                } => self.count("SESSIONEXPIRED replies", 1),
                Delivery::Reply {
                    op: Op::RemoveWatches { .. } | Op::CheckWatches { .. },
                    result,
                    ..
                } => match result {
                    Ok(_) => self.count("watch removals that removed a watch", 1),
                    Err(ErrorCode::NoWatcher) => self.count("watch removals answered NOWATCHER", 1),
                    Err(_) => {}
                },
                Delivery::Watch(event) if event.kind.is_removal() => {
                    self.count("watch removed events (DataWatchRemoved and the others)", 1)
                }
                _ => {}
            }
        }
        let handle = self.handle(client);
        let session = self.net.session(client);
        for delivery in deliveries {
            let line = match delivery {
                Delivery::Session(event) => format!("session {event:?} {handle}"),
                Delivery::Watch(event) => {
                    format!(
                        "watch {:?} {}",
                        event.kind,
                        self.norm.path(event.path.as_str())
                    )
                }
                Delivery::Reply { xid, result, .. } => {
                    let tag = self.tags[&(session, xid)];
                    format!("reply {tag} {}", self.outcome(&result))
                }
            };
            self.seen.get_mut(&handle).expect("a handle").push(line);
        }
    }

    fn settle(&mut self) {
        for (client, deliveries) in self.net.settle().into_iter().enumerate() {
            self.absorb(client, deliveries);
        }
    }

    fn stat(&self, stat: &Stat) -> String {
        format!(
            "stat {} {} {} {} {} {}",
            stat.version,
            stat.cversion,
            stat.aversion,
            self.norm.owner(stat.ephemeral_owner),
            stat.data_length,
            stat.num_children
        )
    }

    /// A reply as the comparison spells it: the code, then what came with it.
    fn outcome(&self, result: &OpResult) -> String {
        let text = |data: &store::Data| {
            data.as_deref().map_or_else(
                || "-".into(),
                |data| String::from_utf8_lossy(data).into_owned(),
            )
        };
        match result {
            Err(code) => code.code().to_string(),
            Ok(Response::Created { path, .. }) => {
                format!("0 path={}", self.norm.path(path.as_str()))
            }
            Ok(Response::Exists(None)) => ErrorCode::NoNode.code().to_string(),
            Ok(Response::Exists(Some(stat))) | Ok(Response::SetData { stat }) => {
                format!("0 {}", self.stat(stat))
            }
            Ok(Response::Data { data, stat }) => {
                format!("0 data={} {}", text(data), self.stat(stat))
            }
            Ok(Response::Children { names, stat }) => {
                let mut names: Vec<&str> = names.iter().map(|name| &**name).collect();
                names.sort_unstable();
                format!("0 children={} {}", names.join(","), self.stat(stat))
            }
            Ok(
                Response::Deleted
                | Response::Synced { .. }
                | Response::WatchAdded
                | Response::WatchesRemoved,
            ) => "0".into(),
            Ok(other) => format!("unexpected {other:?}"),
        }
    }

    fn count_step(&mut self, step: &Step) {
        let watching = |call: &Call| {
            matches!(
                call,
                Call::Exists(_, true)
                    | Call::GetData(_, true)
                    | Call::GetChildren(_, true)
                    | Call::AddWatch(..)
                    | Call::RemoveWatches(..)
                    | Call::CheckWatches(..)
            )
        };
        let rule = match step {
            Step::Call(c, _) if self.net.client(*c).state() == ConnState::Expired => {
                "calls on a dead handle"
            }
            Step::Call(..) => return,
            Step::Lose(_, call) if watching(call) => "lost replies of calls that set a watch",
            Step::Lose(..) => "lost replies of other calls",
            Step::Drop(_) => "dropped connections",
            Step::Cut(_) => "cut-offs",
            Step::QueueFail(..) => "calls queued while cut off, failed with the attempt",
            Step::QueueRestore(c, _) if self.net.store.is_alive(self.net.session(*c)) => {
                "calls queued while cut off, sent on reconnect"
            }
            Step::QueueRestore(..) => "calls queued while cut off, after the session expired",
            Step::Restore(_) => "paths restored",
            Step::Expire(_) => "sessions expired by the server while cut off",
            Step::Abandon(_) => "sessions abandoned by the library",
            Step::OldExpires(_) => "abandoned sessions expired by the server",
            Step::Renew(_) => "sessions renewed",
        };
        self.count(rule, 1);
    }

    fn apply(&mut self, tag: usize, step: &Step) {
        self.count_step(step);
        match step {
            Step::Call(c, call) | Step::QueueRestore(c, call) | Step::QueueFail(c, call) => {
                self.submit(*c, call, tag);
                match step {
                    Step::QueueFail(..) => {
                        // The attempt fails: a disconnect of a disconnected client.
                        let failed = self.net.disconnect(*c, 0);
                        self.absorb(*c, failed);
                    }
                    Step::QueueRestore(..) => self.reconnect(*c),
                    _ => {}
                }
            }
            Step::Lose(c, call) => {
                self.submit(*c, call, tag);
                self.net.break_connection(*c, 1);
                let lost = self.net.deliver(*c);
                self.absorb(*c, lost);
                self.settle();
                self.reconnect(*c);
            }
            Step::Drop(c) => {
                let lost = self.net.disconnect(*c, 0);
                self.absorb(*c, lost);
                self.reconnect(*c);
            }
            Step::Cut(c) => {
                let lost = self.net.disconnect(*c, 0);
                self.absorb(*c, lost);
            }
            Step::Restore(c) => self.reconnect(*c),
            Step::Expire(c) => {
                let fired = self.net.expire(*c).len();
                self.count("watch events fired by a session's expiry", fired);
            }
            Step::Abandon(c) => {
                self.abandoned = Some(self.net.session(*c));
                let gone = self.net.abandon(*c);
                self.absorb(*c, gone);
            }
            Step::OldExpires(_) => {
                let session = self.abandoned.take().expect("an abandoned session");
                let fired = self.net.expire_session(session).len();
                self.count("watch events fired by a session's expiry", fired);
            }
            Step::Renew(c) => {
                self.generation[*c] += 1;
                let name = self.handle(*c);
                self.seen.insert(name.clone(), Vec::new());
                let opened = self.net.renew(*c);
                self.norm.owners.insert(self.net.session(*c), name);
                self.absorb(*c, opened);
            }
        }
        self.settle();
    }
}

/// Waits until the server has expired, for certain, the session of a client
/// cut off at `cut_at`.
async fn expiry_of(cut_at: Option<Instant>) {
    let cut_at = cut_at.expect("a cut client");
    let at = cut_at + SESSION + TICK + EXPIRY_MARGIN;
    tokio::time::sleep_until(at.into()).await;
}

/// How both sides spell paths (relative to the sequence's root, `.` for the
/// root) and session owners (the handle, `c0.1`; `-` for none).
fn normalizer(root: &str) -> Normalizer {
    Normalizer {
        root: root.into(),
        base_zxid: 0,
        owners: BTreeMap::new(),
    }
}

// ---------------------------------------------------------------------------
// The real side.
// ---------------------------------------------------------------------------

struct Real<'a> {
    driver: &'a Driver,
    proxies: Vec<Proxy>,
    /// The driver's name for each client's current handle.
    handles: Vec<String>,
    prefix: String,
    generation: Vec<usize>,
    root: String,
    /// When each cut client was cut off.
    cut_at: Vec<Option<Instant>>,
    abandoned_at: Option<Instant>,
}

impl<'a> Real<'a> {
    async fn start(
        driver: &'a Driver,
        zk: &str,
        prefix: String,
        clients: usize,
    ) -> Result<Real<'a>, String> {
        let mut proxies = Vec::new();
        for _ in 0..clients {
            proxies.push(Proxy::start(zk).await?);
        }
        let mut real = Real {
            driver,
            proxies,
            handles: Vec::new(),
            generation: vec![1; clients],
            root: format!("/zoocheck-faults-{prefix}"),
            prefix,
            cut_at: vec![None; clients],
            abandoned_at: None,
        };
        for client in 0..clients {
            let handle = real.driver_name(client);
            real.open(client, &handle)?;
            real.handles.push(handle);
        }
        let first = (0..clients).map(|c| (handle_name(c, 1), 1)).collect();
        real.wait(&first, "the sessions to open").await?;
        let handle = &real.handles[0];
        driver.send(&format!("{handle} setup create {} r P", real.root))?;
        let deadline = Instant::now() + STEP_LIMIT;
        while !driver
            .lines
            .lock()
            .expect("lines")
            .get(handle)
            .is_some_and(|lines| lines.iter().any(|line| line.starts_with("reply setup 0")))
        {
            if Instant::now() > deadline {
                return Err(format!("the root {} was not created", real.root));
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        Ok(real)
    }

    fn driver_name(&self, client: ClientId) -> String {
        format!("{}c{client}g{}", self.prefix, self.generation[client])
    }

    fn open(&self, client: ClientId, handle: &str) -> Result<(), String> {
        self.driver.send(&format!(
            "{handle} open {} {}",
            self.proxies[client].connect_string(),
            SESSION.as_millis()
        ))
    }

    fn call(&self, client: ClientId, tag: usize, call: &Call) -> Result<(), String> {
        self.driver.send(&format!(
            "{} {tag} {}",
            self.handles[client],
            command(call, &self.root)
        ))
    }

    /// The driver's handle name for a model handle name (`c0.2`).
    fn driver_handle(&self, model_handle: &str) -> String {
        let (client, generation) = model_handle[1..].split_once('.').expect("c<k>.<g>");
        format!("{}c{client}g{generation}", self.prefix)
    }

    /// Waits until every handle has seen as many things as the model says.
    async fn wait(&self, counts: &BTreeMap<String, usize>, what: &str) -> Result<(), String> {
        let deadline = Instant::now() + STEP_LIMIT;
        loop {
            let short: Vec<String> = counts
                .iter()
                .filter_map(|(handle, &count)| {
                    let seen = self.driver.seen(&self.driver_handle(handle)).len();
                    (seen < count).then(|| format!("{handle} has {seen} of {count}"))
                })
                .collect();
            if short.is_empty() {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(format!("waiting for {what}: {}", short.join(", ")));
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    async fn until(&self, what: &str, done: impl Fn() -> bool) -> Result<(), String> {
        let deadline = Instant::now() + STEP_LIMIT;
        while !done() {
            if Instant::now() > deadline {
                return Err(format!("waiting for {what}"));
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        Ok(())
    }

    /// Runs one step; `counts` is what the model says each handle has seen
    /// after it.
    async fn apply(
        &mut self,
        tag: usize,
        step: &Step,
        counts: &BTreeMap<String, usize>,
    ) -> Result<(), String> {
        match step {
            Step::Call(c, call) | Step::QueueFail(c, call) => self.call(*c, tag, call)?,
            Step::QueueRestore(c, call) => {
                let proxy = &self.proxies[*c];
                let before = proxy.held();
                self.until("a fresh attempt to reconnect", || proxy.held() > before)
                    .await?;
                self.call(*c, tag, call)?;
                let handle = self.handles[*c].clone();
                self.until("the call to be queued", || {
                    self.driver.acknowledged(&handle, tag)
                })
                .await?;
                self.proxies[*c].set(Mode::Pass);
                self.cut_at[*c] = None;
            }
            Step::Lose(c, call) => {
                let proxy = &self.proxies[*c];
                proxy.set(Mode::DropReplies);
                let before = proxy.dropped_replies();
                self.call(*c, tag, call)?;
                self.until("the reply to be dropped", || {
                    proxy.dropped_replies() > before
                })
                .await?;
                proxy.close_all();
                proxy.set(Mode::Pass);
            }
            Step::Drop(c) => self.proxies[*c].close_all(),
            Step::Cut(c) => {
                self.proxies[*c].set(Mode::Blackhole);
                self.proxies[*c].close_all();
                self.cut_at[*c] = Some(Instant::now());
            }
            Step::Restore(c) => {
                self.proxies[*c].set(Mode::Pass);
                self.cut_at[*c] = None;
            }
            Step::Expire(c) => expiry_of(self.cut_at[*c]).await,
            Step::Abandon(c) => {
                self.driver.send(&format!("{} abandon", self.handles[*c]))?;
                self.abandoned_at = self.cut_at[*c].take();
            }
            Step::OldExpires(_) => expiry_of(self.abandoned_at.take()).await,
            Step::Renew(c) => {
                self.proxies[*c].set(Mode::Pass);
                self.cut_at[*c] = None;
                self.generation[*c] += 1;
                let handle = self.driver_name(*c);
                self.open(*c, &handle)?;
                self.handles[*c] = handle;
            }
        }
        self.wait(counts, &format!("step {tag}")).await
    }

    /// Closes every handle the sequence opened that may still be alive.
    fn close(&self) {
        for handle in &self.handles {
            let _ = self.driver.send(&format!("{handle} close"));
        }
    }

    /// Whether real time ran past the window in which the server cannot have
    /// expired a session the schedule still counts on.
    fn disturbed(&self, model: &Model) -> Option<String> {
        let window = SESSION * 2 / 3 - CUT_SAFETY;
        for (client, cut_at) in self.cut_at.iter().enumerate() {
            if let Some(cut_at) = cut_at {
                if model.net.store.is_alive(model.net.session(client)) && cut_at.elapsed() > window
                {
                    return Some(format!(
                        "c{client} was cut off {:.1} s ago and its session must still live",
                        cut_at.elapsed().as_secs_f64()
                    ));
                }
            }
        }
        match self.abandoned_at {
            Some(at) if at.elapsed() > window => Some(format!(
                "an abandoned session was cut off {:.1} s ago and must still live",
                at.elapsed().as_secs_f64()
            )),
            _ => None,
        }
    }

    /// What every handle saw, normalised as the model spells it, with the
    /// number of `Closed` events dropped after an `Expired`.
    fn observations(&self, model: &Model) -> (BTreeMap<String, Vec<String>>, usize) {
        let mut norm = normalizer(&self.root);
        let mut raw = BTreeMap::new();
        for handle in model.seen.keys() {
            let lines = self.driver.seen(&self.driver_handle(handle));
            for line in &lines {
                if let Some(session) = line
                    .strip_prefix("session SyncConnected ")
                    .and_then(session_id)
                {
                    norm.owners.entry(session).or_insert_with(|| handle.clone());
                }
            }
            raw.insert(handle.clone(), lines);
        }
        let mut closed_after_expiry = 0;
        let seen = raw
            .into_iter()
            .map(|(handle, lines)| {
                let mut out: Vec<String> = Vec::new();
                for line in lines {
                    let normal = normalise(&line, &norm);
                    if normal.starts_with("session Closed ")
                        && out
                            .last()
                            .is_some_and(|last| last.starts_with("session Expired "))
                    {
                        closed_after_expiry += 1;
                        continue;
                    }
                    out.push(normal);
                }
                (handle, out)
            })
            .collect();
        (seen, closed_after_expiry)
    }
}

/// A session id as the driver prints it, in hex.
fn session_id(hex: &str) -> Option<SessionId> {
    u64::from_str_radix(hex, 16).ok().map(|id| id as SessionId)
}

/// A line of the driver's in the model's words.
fn normalise(line: &str, norm: &Normalizer) -> String {
    let owner = |hex: &str| match session_id(hex) {
        Some(session) => norm.owner(session),
        None => format!("(unreadable session {hex})"),
    };
    let words: Vec<&str> = line.split(' ').collect();
    match words.as_slice() {
        ["session", state, hex] => format!("session {state} {}", owner(hex)),
        ["watch", kind, path] => format!("watch {kind} {}", norm.path(path)),
        ["reply", ..] => {
            let mut out = Vec::with_capacity(words.len());
            let mut index = 0;
            while index < words.len() {
                let word = words[index];
                if let Some(path) = word.strip_prefix("path=") {
                    out.push(format!("path={}", norm.path(path)));
                } else if word == "stat" && index + 6 < words.len() {
                    out.push("stat".into());
                    out.extend(words[index + 1..index + 4].iter().map(|w| w.to_string()));
                    out.push(owner(words[index + 4]));
                    out.extend(words[index + 5..index + 7].iter().map(|w| w.to_string()));
                    index += 6;
                } else {
                    out.push(word.to_string());
                }
                index += 1;
            }
            out.join(" ")
        }
        _ => format!("(unreadable) {line}"),
    }
}

// ---------------------------------------------------------------------------
// One sequence, both sides.
// ---------------------------------------------------------------------------

/// `seen` with each run of watch events that directly follows a
/// `SyncConnected` sorted. The server answers SetWatches in the order the
/// client lists its watches, and the Java client lists each of its three
/// tables in its `HashMap`'s order of the absolute paths: an order the model,
/// which uses path order, cannot know under another root. So is each run of
/// the events one watch removal delivers (`ChildWatchRemoved`,
/// `DataWatchRemoved`, `PersistentWatchRemoved`), which the Java client
/// queues in its `HashMap`'s order of the event types.
fn catch_up_sorted(mut seen: Vec<String>) -> Vec<String> {
    let removal = |line: &String| {
        line.starts_with("watch ")
            && line
                .split(' ')
                .nth(1)
                .is_some_and(|kind| kind.ends_with("WatchRemoved"))
    };
    let mut start = 0;
    while start < seen.len() {
        if seen[start].starts_with("session SyncConnected ") {
            let run = seen[start + 1..]
                .iter()
                .take_while(|line| line.starts_with("watch "))
                .count();
            seen[start + 1..start + 1 + run].sort();
            start += run;
        } else if removal(&seen[start]) {
            let run = seen[start..]
                .iter()
                .take_while(|line| removal(line))
                .count();
            seen[start..start + run].sort();
            start += run - 1;
        }
        start += 1;
    }
    seen
}

enum Verdict {
    Agree,
    Mismatch(String),
    Disturbed(String),
}

struct Outcome {
    seed: u64,
    steps: Vec<Step>,
    /// What each handle saw, as the model says and both sides agreed.
    seen: BTreeMap<String, Vec<String>>,
    coverage: Coverage,
    faults: usize,
    closed_after_expiry: usize,
    verdict: Verdict,
    took: Duration,
}

async fn sequence(seed: u64, run: &str, driver: &Driver, zk: &str) -> Outcome {
    let began = Instant::now();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let clients = 2 + below(&mut rng, 2) as usize;
    let mut model = Model::new(clients);
    let mut plan = Plan::default();
    let mut steps = Vec::new();
    let outcome = |steps: Vec<Step>, plan: &Plan, closed: usize, verdict: Verdict| Outcome {
        seed,
        steps,
        seen: BTreeMap::new(),
        coverage: Coverage::new(),
        faults: plan.faults,
        closed_after_expiry: closed,
        verdict,
        took: began.elapsed(),
    };
    let mut real = match Real::start(driver, zk, format!("{run}s{seed}"), clients).await {
        Ok(real) => real,
        Err(error) => return outcome(steps, &plan, 0, Verdict::Mismatch(error)),
    };
    let mut failure = None;
    while let Some(step) = next_step(&mut rng, &model, &plan) {
        let tag = steps.len();
        model.apply(tag, &step);
        account(&mut plan, &step);
        steps.push(step.clone());
        if let Err(error) = real.apply(tag, &step, &model.counts()).await {
            failure = Some(error);
            break;
        }
        if !matches!(step, Step::Expire(_) | Step::OldExpires(_)) {
            if let Some(why) = real.disturbed(&model) {
                real.close();
                return outcome(steps, &plan, 0, Verdict::Disturbed(why));
            }
        }
    }
    tokio::time::sleep(GRACE).await;
    let (seen, closed) = real.observations(&model);
    real.close();
    let mut report = String::new();
    for (handle, expected) in &model.seen {
        let expected = &catch_up_sorted(expected.clone());
        let got = catch_up_sorted(seen.get(handle).cloned().unwrap_or_default());
        if &got != expected {
            let first = expected
                .iter()
                .zip(&got)
                .position(|(e, g)| e != g)
                .unwrap_or(expected.len().min(got.len()));
            report.push_str(&format!(
                "  {handle}: they differ from its observation {first} on\n    zoocheck:         {}\n    the Java client:  {}\n",
                expected.get(first).map_or("(nothing)", String::as_str),
                got.get(first).map_or("(nothing)", String::as_str),
            ));
            report.push_str(&format!(
                "    zoocheck saw:        {expected:?}\n    the Java client saw: {got:?}\n"
            ));
        }
    }
    for error in driver.errors() {
        if error.contains(&real.prefix) {
            report.push_str(&format!("  driver: {error}\n"));
        }
    }
    if let Some(error) = failure {
        report.push_str(&format!("  the real side stopped: {error}\n"));
    }
    let verdict = if report.is_empty() {
        Verdict::Agree
    } else {
        Verdict::Mismatch(report)
    };
    Outcome {
        seen: model.seen,
        coverage: model.coverage,
        ..outcome(steps, &plan, closed, verdict)
    }
}

// ---------------------------------------------------------------------------
// The program.
// ---------------------------------------------------------------------------

struct Totals {
    sequences: usize,
    faults: usize,
    mismatches: usize,
    disturbed: usize,
    closed_after_expiry: usize,
    coverage: Coverage,
}

async fn suite(zk: &str) -> Result<Totals, String> {
    let wanted = common::env_number("ZOOCHECK_FAULT_SEQUENCES", 200)? as usize;
    let first_seed = common::env_number("ZOOCHECK_FAULT_SEED", 1)?;
    let parallel = common::env_number("ZOOCHECK_FAULT_PARALLEL", 12)?.max(1) as usize;
    let verbose = std::env::var_os("ZOOCHECK_FAULTS_VERBOSE").is_some();
    let driver = Arc::new(Driver::start()?);
    let run = format!(
        "{}-{}-",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_millis()),
        std::process::id()
    );
    // Seeds are drawn until `wanted` sequences have been compared: a disturbed
    // one is not counted, and the next seed takes its place (within a bound).
    let next = Arc::new(AtomicUsize::new(0));
    let disturbed = Arc::new(AtomicUsize::new(0));
    let outcomes: Arc<Mutex<Vec<Outcome>>> = Arc::default();
    let mut workers = Vec::new();
    for _ in 0..parallel.min(wanted) {
        let (driver, next, disturbed, outcomes, run, zk) = (
            driver.clone(),
            next.clone(),
            disturbed.clone(),
            outcomes.clone(),
            run.clone(),
            zk.to_string(),
        );
        workers.push(tokio::spawn(async move {
            loop {
                let index = next.fetch_add(1, Ordering::SeqCst);
                let replacing = disturbed.load(Ordering::SeqCst).min(wanted / 10 + 1);
                if index >= wanted + replacing {
                    return;
                }
                let outcome = sequence(first_seed + index as u64, &run, &driver, &zk).await;
                if matches!(outcome.verdict, Verdict::Disturbed(_)) {
                    disturbed.fetch_add(1, Ordering::SeqCst);
                }
                outcomes.lock().expect("outcomes").push(outcome);
            }
        }));
    }
    for worker in workers {
        worker
            .await
            .map_err(|error| format!("a sequence panicked: {error}"))?;
    }
    driver.stop();
    let mut outcomes = std::mem::take(&mut *outcomes.lock().expect("outcomes"));
    outcomes.sort_by_key(|outcome| outcome.seed);
    let mut totals = Totals {
        sequences: 0,
        faults: 0,
        mismatches: 0,
        disturbed: 0,
        closed_after_expiry: 0,
        coverage: Coverage::new(),
    };
    for outcome in &outcomes {
        if !matches!(outcome.verdict, Verdict::Disturbed(_)) {
            for (rule, times) in &outcome.coverage {
                *totals.coverage.entry(rule).or_default() += times;
            }
        }
        let steps = || {
            outcome
                .steps
                .iter()
                .enumerate()
                .map(|(tag, step)| format!("    {tag}: {step}\n"))
                .collect::<String>()
        };
        let took = outcome.took.as_secs_f64();
        match &outcome.verdict {
            Verdict::Agree => {
                totals.sequences += 1;
                totals.faults += outcome.faults;
                totals.closed_after_expiry += outcome.closed_after_expiry;
                if verbose {
                    println!(
                        "conformance-faults: seed {}: agree, {} steps, {} faults ({took:.1} s)\n{}",
                        outcome.seed,
                        outcome.steps.len(),
                        outcome.faults,
                        steps()
                    );
                    for (handle, seen) in &outcome.seen {
                        println!("  {handle}:");
                        for line in seen {
                            println!("    {line}");
                        }
                    }
                }
            }
            Verdict::Disturbed(why) => {
                totals.disturbed += 1;
                println!(
                    "conformance-faults: seed {}: disturbed, not counted: {why} ({took:.1} s)",
                    outcome.seed
                );
            }
            Verdict::Mismatch(report) => {
                totals.sequences += 1;
                totals.faults += outcome.faults;
                totals.mismatches += 1;
                println!(
                    "conformance-faults: seed {}: MISMATCH ({took:.1} s)\n  steps:\n{}{report}",
                    outcome.seed,
                    steps()
                );
            }
        }
    }
    Ok(totals)
}

fn main() -> ExitCode {
    let Some(address) = common::server_or_skip("conformance-faults") else {
        return ExitCode::SUCCESS;
    };
    let started = Instant::now();
    let totals = match common::runtime().block_on(suite(&address)) {
        Ok(totals) => totals,
        Err(error) => {
            println!("conformance-faults: error: {error}");
            return ExitCode::FAILURE;
        }
    };
    for (rule, times) in &totals.coverage {
        println!("conformance-faults: covered {times:>5} {rule}");
    }
    println!(
        "conformance-faults: {} disturbed sequences not counted; {} Closed events after Expired \
         dropped (the Java client's race); {:.1} s",
        totals.disturbed,
        totals.closed_after_expiry,
        started.elapsed().as_secs_f64()
    );
    println!(
        "conformance-faults: {} sequences, {} faults, {} mismatches",
        totals.sequences, totals.faults, totals.mismatches
    );
    let too_disturbed = totals.disturbed * 10 > totals.sequences + totals.disturbed;
    if too_disturbed {
        println!("conformance-faults: error: more than a tenth of the sequences were disturbed");
    }
    if totals.mismatches == 0 && !too_disturbed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
