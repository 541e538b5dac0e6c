//! A real ZooKeeper doing what the model's server did: the other half of
//! `zoocheck replay TRACE --zk HOST:PORT`.
//!
//! A replay writes down every transition of the model's server
//! ([`crate::store::journal`]); [`RealServer::perform`] does the same thing on
//! a real server, under a root of its own, and compares what the real one
//! answered with what the model's did:
//!
//! - a session opens: a new session (10 s timeout, so that nothing expires
//!   unless the trace says so);
//! - a request is served: the same request on that session's connection; its
//!   reply and the watch events it fired, on every connection, are compared
//!   (each other connection is drained with a ping, which the server answers
//!   after everything it queued there before);
//! - a connection drops: its socket is closed; the session lives on;
//! - a client reconnects: a new connection for the same session, then
//!   SetWatches with the last zxid it saw; `Expired` or the catch-up events are
//!   compared;
//! - the server expires a session: a connection is attached to the session and
//!   sends `closeSession`, which is the very transaction the server's session
//!   tracker submits on expiry (`ZooKeeperServer.expire`), so the expiry
//!   happens at that step and not on a clock; its deletions and events are
//!   compared.
//!
//! Zxids are compared through a map built as the writes happen (each model
//! write's zxid to the real one's); session ids through the sessions each side
//! opened; creation and modification times are not compared. Children are
//! compared as sets, and so are the catch-up events of one reconnect (the real
//! order is the Java client's `HashMap` order, `docs/zookeeper-semantics.md`
//! §3.4). The client library stays zoocheck's own, the one
//! `tests/conformance_faults.rs` compares with the Java client; what is real
//! here is the server.

pub mod wire;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::store::journal::Entry;
use crate::store::{
    ErrorCode, EventType, MultiOutcome, MultiResult, Notification, Op, OpResult, Path, Response,
    SessionId, SetWatches, Stat, WatchEvent, Zxid,
};
use wire::{Conn, Connected, MultiPart};

/// Each session's timeout: the largest a default server grants (20 ticks of
/// 500 ms), so that no session expires on the real server's clock while the
/// replay runs.
const SESSION_TIMEOUT_MS: i32 = 10_000;
/// A connection not used for this long is pinged before the next entry.
const KEEPALIVE: Duration = Duration::from_secs(2);

/// One transition done on both servers, in words, and whether the two
/// answers are the same: a reply compared as a value (an [`OpResult`] in
/// the model's terms); watch events, a reconnect's and an expiry's outcome
/// by canonical words (events of each session sorted, one sentence a case),
/// which tell apart exactly what the values do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Done {
    /// The transition, as the model's server did it.
    pub what: String,
    /// What the model's server answered, in words ("" if nothing to compare).
    pub model: String,
    /// What the real one answered.
    pub real: String,
    same: bool,
}

impl Done {
    /// Two answers that are the same exactly when their words are: each side
    /// a canonical rendering (events sorted, one sentence per case).
    fn worded(what: String, model: String, real: String) -> Done {
        let same = model == real;
        Done {
            what,
            model,
            real,
            same,
        }
    }

    pub fn agrees(&self) -> bool {
        self.same
    }

    /// Whether it is only that no watch fired, on either side.
    pub fn quiet(&self) -> bool {
        self.agrees() && self.model == NO_WATCH_FIRED
    }
}

const NO_WATCH_FIRED: &str = "no watch fired";

struct Session {
    id: i64,
    password: Vec<u8>,
    conn: Option<Conn>,
    used: Instant,
}

/// A real server under a root of the replay's own.
pub struct RealServer {
    address: String,
    root: String,
    sessions: BTreeMap<SessionId, Session>,
    /// Model zxid to real zxid, for each transaction both did.
    zxids: BTreeMap<Zxid, i64>,
    /// Real zxid to model zxid.
    model_zxids: BTreeMap<i64, Zxid>,
    /// The session that created the root; kept open for the replay's length.
    admin: Conn,
}

fn io(what: &str, error: std::io::Error) -> String {
    format!("{what}: {error}")
}

impl RealServer {
    /// Connects to the server at `address` and creates the root the replay
    /// runs under, `/zoocheck-replay-<ms>-<pid>`.
    pub fn start(address: &str) -> Result<RealServer, String> {
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_millis());
        let root = format!("/zoocheck-replay-{stamp}-{}", std::process::id());
        let connected = Conn::connect(address, 0, &[0; 16], SESSION_TIMEOUT_MS, 0)
            .map_err(|error| io(&format!("cannot reach a ZooKeeper at {address}"), error))?;
        let Connected::Session {
            conn: mut admin, ..
        } = connected
        else {
            return Err(format!("{address} refused a new session"));
        };
        let create = Op::Create {
            path: Path::new("/"),
            data: None,
            mode: crate::store::CreateMode::Persistent,
        };
        let (kind, body) = wire::request(&create, &|_| root.clone());
        let ((zxid, err, _), _) = admin
            .call(kind, &body)
            .map_err(|error| io(&format!("creating {root}"), error))?;
        if err != 0 {
            return Err(format!("{address} refused to create {root}: error {err}"));
        }
        // The model's root is as old as the model's server.
        let mut model_zxids = BTreeMap::new();
        model_zxids.insert(zxid, 0);
        Ok(RealServer {
            address: address.into(),
            root,
            sessions: BTreeMap::new(),
            zxids: BTreeMap::from([(0, 0)]),
            model_zxids,
            admin,
        })
    }

    /// The root the replay runs under on the real server.
    pub fn root(&self) -> &str {
        &self.root
    }

    fn rooted(&self, path: &str) -> String {
        if path == "/" {
            self.root.clone()
        } else {
            format!("{}{path}", self.root)
        }
    }

    fn unrooted(&self, path: &str) -> String {
        unrooted(&self.root, path)
    }

    /// The real zxid of the last transaction both servers did at or before
    /// model zxid `zxid`: what a client that saw `zxid` has seen on the real one.
    fn real_zxid(&self, zxid: Zxid) -> i64 {
        self.zxids
            .range(..=zxid)
            .next_back()
            .map_or(0, |(_, &real)| real)
    }

    /// The model's zxid of real zxid `real`; one the model never made (a
    /// transaction of the real server's alone) reads as its negation, which
    /// no model zxid is, so a Stat that names it differs visibly.
    fn model_zxid(&self, real: i64) -> Zxid {
        self.model_zxids.get(&real).copied().unwrap_or(-real)
    }

    fn model_session(&self, real: i64) -> SessionId {
        if real == 0 {
            return 0;
        }
        self.sessions
            .iter()
            .find(|(_, session)| session.id == real)
            .map_or(-1, |(&model, _)| model)
    }

    /// A real Stat in the model's terms; the times are taken from `model`,
    /// since they are not compared.
    fn stat(&self, real: &Stat, model: Option<&Stat>) -> Stat {
        Stat {
            czxid: self.model_zxid(real.czxid),
            mzxid: self.model_zxid(real.mzxid),
            pzxid: self.model_zxid(real.pzxid),
            ctime: model.map_or(0, |stat| stat.ctime),
            mtime: model.map_or(0, |stat| stat.mtime),
            ephemeral_owner: self.model_session(real.ephemeral_owner),
            ..*real
        }
    }

    /// Pings every connection idle for a while, so that its session does not
    /// expire; nothing may arrive on it meanwhile.
    fn keep_alive(&mut self) -> Result<Vec<Done>, String> {
        let mut differences = Vec::new();
        let idle: Vec<SessionId> = (self.sessions.iter())
            .filter(|(_, session)| session.conn.is_some() && session.used.elapsed() > KEEPALIVE)
            .map(|(&model, _)| model)
            .collect();
        for model in idle {
            let events = self.drain(model)?;
            if !events.is_empty() {
                differences.push(Done::worded(
                    format!("session {model:#x} while idle"),
                    "nothing".into(),
                    events.join(", "),
                ));
            }
        }
        let _ = self.admin.ping();
        Ok(differences)
    }

    /// The events queued on `model`'s connection, in the model's words.
    fn drain(&mut self, model: SessionId) -> Result<Vec<String>, String> {
        let session = self.sessions.get_mut(&model).expect("a session");
        let Some(conn) = session.conn.as_mut() else {
            return Ok(Vec::new());
        };
        session.used = Instant::now();
        let events = conn
            .ping()
            .map_err(|error| io(&format!("pinging session {model:#x}"), error))?;
        Ok(events
            .into_iter()
            .map(|(kind, path)| event_words(kind, &self.unrooted(&path)))
            .collect())
    }

    /// Every other connection's queued events, by model session.
    fn drain_others(
        &mut self,
        except: SessionId,
    ) -> Result<BTreeMap<SessionId, Vec<String>>, String> {
        let mut fired = BTreeMap::new();
        let open: Vec<SessionId> = (self.sessions.iter())
            .filter(|(&model, session)| model != except && session.conn.is_some())
            .map(|(&model, _)| model)
            .collect();
        for model in open {
            let events = self.drain(model)?;
            if !events.is_empty() {
                fired.insert(model, events);
            }
        }
        Ok(fired)
    }

    /// Does `entry` on the real server: what both answered, if there is
    /// something to compare. An error means the replay cannot go on (the
    /// server is gone, or the entry is something a real server cannot do).
    pub fn perform(&mut self, entry: &Entry) -> Result<Vec<Done>, String> {
        let mut done = self.keep_alive()?;
        match entry {
            Entry::Opened { session } => {
                let connected = Conn::connect(&self.address, 0, &[0; 16], SESSION_TIMEOUT_MS, 0)
                    .map_err(|error| io("opening a session", error))?;
                let Connected::Session { id, password, conn } = connected else {
                    return Err("the real server refused a new session".into());
                };
                self.sessions.insert(
                    *session,
                    Session {
                        id,
                        password,
                        conn: Some(conn),
                        used: Instant::now(),
                    },
                );
            }
            Entry::Applied {
                session,
                op,
                applied,
            } => done.extend(self.apply(
                *session,
                op,
                &applied.result,
                applied.zxid,
                &applied.notifications,
            )?),
            Entry::Disconnected { session } => {
                if let Some(session) = self.sessions.get_mut(session) {
                    session.conn = None;
                }
            }
            Entry::Reconnected {
                session,
                watches,
                outcome,
            } => done.push(self.reconnect(*session, watches, outcome)?),
            Entry::Expired {
                session,
                zxid,
                notifications,
            } => done.extend(self.expire(*session, *zxid, notifications)?),
            Entry::Swept { path, .. } => {
                return Err(format!(
                "the server deletes the empty container or TTL node {path} here; a real server's \
                     ContainerManager deletes it on its own timer, which a replay cannot choose"
            ))
            }
            Entry::SequenceStarted { path, next } => {
                return Err(format!(
                    "the scenario starts the sequence counter under {path} at {next}; a real \
                     server's counter starts at 0 and only creates move it"
                ))
            }
        }
        Ok(done)
    }

    fn apply(
        &mut self,
        model: SessionId,
        op: &Op,
        result: &OpResult,
        zxid: Zxid,
        notifications: &[Notification],
    ) -> Result<Vec<Done>, String> {
        let what = format!("session {model:#x}: {}", op_words(op));
        let (kind, body) = wire::request(op, &|path| self.rooted(path));
        let session = self
            .sessions
            .get_mut(&model)
            .ok_or_else(|| format!("{what}: the replay never opened session {model:#x}"))?;
        let Some(conn) = session.conn.as_mut() else {
            return Err(format!(
                "{what}: the model served a request of a session without a connection"
            ));
        };
        session.used = Instant::now();
        let ((real_zxid, err, reply), own) =
            conn.call(kind, &body).map_err(|error| io(&what, error))?;
        if matches!(op, Op::Close) {
            // The server closes the connection of a session it has closed.
            session.conn = None;
        }
        if op.is_write() {
            self.zxids.insert(zxid, real_zxid);
            self.model_zxids.insert(real_zxid, zxid);
        }
        let real = self
            .result(op, err, &reply, result)
            .map_err(|error| io(&format!("{what}: reading the reply"), error))?;
        let mut done = vec![Done {
            what: what.clone(),
            model: result_words(result),
            real: result_words(&real),
            same: *result == real,
        }];
        let mut fired = self.drain_others(model)?;
        let own: Vec<String> = (own.into_iter())
            .map(|(kind, path)| event_words(kind, &self.unrooted(&path)))
            .collect();
        if !own.is_empty() {
            fired.insert(model, own);
        }
        done.push(compare_fired(&what, notifications, fired));
        Ok(done)
    }

    /// The real reply in the model's terms.
    fn result(
        &self,
        op: &Op,
        err: i32,
        body: &[u8],
        model: &OpResult,
    ) -> std::io::Result<OpResult> {
        let model_stat = match model {
            Ok(Response::Created { stat, .. })
            | Ok(Response::Exists(Some(stat)))
            | Ok(Response::Data { stat, .. })
            | Ok(Response::SetData { stat })
            | Ok(Response::Children { stat, .. }) => Some(stat),
            _ => None,
        };
        if err != 0 {
            if matches!(op, Op::Exists { .. }) && err == ErrorCode::NoNode.code() {
                return Ok(Ok(Response::Exists(None)));
            }
            return Ok(Err(error_code(err)?));
        }
        let mut r = wire::reader(body);
        Ok(Ok(match op {
            Op::Create { .. } => {
                let path = self.unrooted(&r.string()?);
                let stat = self.stat(&r.stat()?, model_stat);
                Response::Created {
                    path: Path::new(&path),
                    stat,
                }
            }
            Op::Delete { .. } => Response::Deleted,
            Op::Exists { .. } => Response::Exists(Some(self.stat(&r.stat()?, model_stat))),
            Op::GetData { .. } => {
                let data = r.buffer()?.map(Arc::from);
                Response::Data {
                    data,
                    stat: self.stat(&r.stat()?, model_stat),
                }
            }
            Op::SetData { .. } => Response::SetData {
                stat: self.stat(&r.stat()?, model_stat),
            },
            Op::GetChildren { .. } => {
                let names = r.strings()?.into_iter().map(Arc::from).collect();
                Response::Children {
                    names,
                    stat: self.stat(&r.stat()?, model_stat),
                }
            }
            Op::Sync { .. } => Response::Synced {
                path: Path::new(&self.unrooted(&r.string()?)),
            },
            Op::Multi(ops) => {
                let parts = wire::multi_results(body)?;
                let failed = parts
                    .iter()
                    .position(|part| matches!(part, MultiPart::Error(code) if *code != 0 && *code != ErrorCode::RuntimeInconsistency.code()));
                match failed {
                    Some(failed_at) => {
                        let MultiPart::Error(code) = parts[failed_at] else {
                            unreachable!("an error part")
                        };
                        Response::Multi(MultiOutcome::Aborted {
                            ops: ops.len(),
                            failed_at,
                            code: error_code(code)?,
                        })
                    }
                    None => Response::Multi(MultiOutcome::Committed(
                        (parts.into_iter().enumerate())
                            .map(|(at, part)| match part {
                                MultiPart::Created(path) => MultiResult::Created {
                                    path: Path::new(&self.unrooted(&path)),
                                },
                                MultiPart::Deleted => MultiResult::Deleted,
                                MultiPart::SetData(stat) => MultiResult::SetData {
                                    stat: self.stat(&stat, model_part_stat(model, at)),
                                },
                                MultiPart::Checked | MultiPart::Error(_) => MultiResult::Checked,
                            })
                            .collect(),
                    )),
                }
            }
            Op::AddWatch { .. } => Response::WatchAdded,
            Op::RemoveWatches { .. } | Op::CheckWatches { .. } => Response::WatchesRemoved,
            Op::Close => Response::Closed,
        }))
    }

    fn reconnect(
        &mut self,
        model: SessionId,
        watches: &SetWatches,
        outcome: &Result<Vec<WatchEvent>, ErrorCode>,
    ) -> Result<Done, String> {
        let what = format!("session {model:#x} reconnects (SetWatches)");
        let relative = self.real_zxid(watches.relative_zxid);
        let session = self
            .sessions
            .get(&model)
            .ok_or_else(|| format!("{what}: the replay never opened session {model:#x}"))?;
        let connected = Conn::connect(
            &self.address,
            session.id,
            &session.password,
            SESSION_TIMEOUT_MS,
            relative,
        )
        .map_err(|error| io(&what, error))?;
        let paths = |paths: &[Path]| -> Vec<String> {
            paths
                .iter()
                .map(|path| self.rooted(path.as_str()))
                .collect()
        };
        let real = match connected {
            Connected::Expired => "Expired".to_string(),
            Connected::Session { mut conn, .. } => {
                let events = conn
                    .set_watches(
                        relative,
                        [
                            &paths(&watches.data),
                            &paths(&watches.exist),
                            &paths(&watches.child),
                            &paths(&watches.persistent),
                            &paths(&watches.recursive),
                        ],
                    )
                    .map_err(|error| io(&what, error))?;
                let mut words: Vec<String> = (events.into_iter())
                    .map(|(kind, path)| event_words(kind, &self.unrooted(&path)))
                    .collect();
                words.sort();
                let session = self.sessions.get_mut(&model).expect("a session");
                session.conn = Some(conn);
                session.used = Instant::now();
                format!("connected; caught up: [{}]", words.join(", "))
            }
        };
        let model_words = match outcome {
            Err(_) => "Expired".to_string(),
            Ok(events) => {
                let mut words: Vec<String> = (events.iter())
                    .map(|event| event_words(event.kind, event.path.as_str()))
                    .collect();
                words.sort();
                format!("connected; caught up: [{}]", words.join(", "))
            }
        };
        Ok(Done::worded(what, model_words, real))
    }

    fn expire(
        &mut self,
        model: SessionId,
        zxid: Zxid,
        notifications: &[Notification],
    ) -> Result<Vec<Done>, String> {
        let what = format!("the server expires session {model:#x}");
        let session = self
            .sessions
            .get_mut(&model)
            .ok_or_else(|| format!("{what}: the replay never opened session {model:#x}"))?;
        session.conn = None;
        let connected = Conn::connect(
            &self.address,
            session.id,
            &session.password,
            SESSION_TIMEOUT_MS,
            0,
        )
        .map_err(|error| io(&what, error))?;
        let Connected::Session { mut conn, .. } = connected else {
            return Ok(vec![Done::worded(
                what,
                "expired now".into(),
                "expired already, on the server's own clock".into(),
            )]);
        };
        let (kind, body) = wire::request(&Op::Close, &|path| path.to_string());
        let ((real_zxid, err, _), _) = conn.call(kind, &body).map_err(|error| io(&what, error))?;
        if err != 0 {
            return Err(format!("{what}: closeSession failed with error {err}"));
        }
        self.zxids.insert(zxid, real_zxid);
        self.model_zxids.insert(real_zxid, zxid);
        drop(conn);
        let fired = self.drain_others(model)?;
        Ok(vec![compare_fired(&what, notifications, fired)])
    }
}

/// The watch events one transition fired, on both servers, by session.
fn compare_fired(
    what: &str,
    notifications: &[Notification],
    real: BTreeMap<SessionId, Vec<String>>,
) -> Done {
    let mut model: BTreeMap<SessionId, Vec<String>> = BTreeMap::new();
    for notification in notifications {
        model
            .entry(notification.session)
            .or_default()
            .push(event_words(
                notification.event.kind,
                notification.event.path.as_str(),
            ));
    }
    let words = |fired: BTreeMap<SessionId, Vec<String>>| {
        let mut out = String::new();
        for (session, mut events) in fired {
            events.sort();
            let _ = write!(
                out,
                "{}{session:#x}: {}",
                if out.is_empty() { "" } else { "; " },
                events.join(", ")
            );
        }
        if out.is_empty() {
            NO_WATCH_FIRED.into()
        } else {
            out
        }
    };
    Done::worded(format!("{what}: watch events"), words(model), words(real))
}

fn event_words(kind: EventType, path: &str) -> String {
    format!("{} {path}", kind.name())
}

/// A real path in the model's terms: `path` with the replay's `root` taken
/// off, where it is under the root.
fn unrooted(root: &str, path: &str) -> String {
    match path.strip_prefix(root) {
        Some("") => "/".into(),
        // `/zoocheck-12/a` is outside the root `/zoocheck-1`.
        Some(rest) if rest.starts_with('/') => rest.into(),
        _ => format!("(outside the replay's root) {path}"),
    }
}

/// The Stat of part `at` of the model's committed `multi`, if that part is
/// a setData: a real multi's Stat carries times of the real server's clock,
/// which the model's stand in for, as for a single request's.
fn model_part_stat(model: &OpResult, at: usize) -> Option<&Stat> {
    match model {
        Ok(Response::Multi(MultiOutcome::Committed(results))) => match results.get(at)? {
            MultiResult::SetData { stat } => Some(stat),
            _ => None,
        },
        _ => None,
    }
}

/// The model's code for an error the real server sent.
fn error_code(code: i32) -> std::io::Result<ErrorCode> {
    ErrorCode::from_code(code).ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("the server answered error {code}, which the model has no code for"),
        )
    })
}

fn op_words(op: &Op) -> String {
    match op.path() {
        Some(path) => format!("{} {path}", op_name(op)),
        None => op_name(op).into(),
    }
}

fn op_name(op: &Op) -> &'static str {
    match op {
        Op::Create { .. } => "create",
        Op::Delete { .. } => "delete",
        Op::Exists { .. } => "exists",
        Op::GetData { .. } => "getData",
        Op::SetData { .. } => "setData",
        Op::GetChildren { .. } => "getChildren",
        Op::Sync { .. } => "sync",
        Op::AddWatch { .. } => "addWatch",
        Op::RemoveWatches { .. } => "removeWatches",
        Op::CheckWatches { .. } => "checkWatches",
        Op::Multi(_) => "multi",
        Op::Close => "closeSession",
    }
}

/// A reply in words, the way both sides are compared: times left out, and
/// children in the order the server listed them.
pub fn result_words(result: &OpResult) -> String {
    let stat = |stat: &Stat| {
        format!(
            "czxid {} mzxid {} pzxid {} version {} cversion {} owner {:#x} length {} children {}",
            stat.czxid,
            stat.mzxid,
            stat.pzxid,
            stat.version,
            stat.cversion,
            stat.ephemeral_owner,
            stat.data_length,
            stat.num_children
        )
    };
    match result {
        Err(code) => code.name().into(),
        Ok(Response::Created { path, stat: s }) => format!("created {path} ({})", stat(s)),
        Ok(Response::Deleted) => "deleted".into(),
        Ok(Response::Exists(None)) => "no node".into(),
        Ok(Response::Exists(Some(s))) => format!("exists ({})", stat(s)),
        Ok(Response::Data { data, stat: s }) => format!(
            "data {:?} ({})",
            data.as_deref().map(String::from_utf8_lossy),
            stat(s)
        ),
        Ok(Response::SetData { stat: s }) => format!("set ({})", stat(s)),
        Ok(Response::Children { names, stat: s }) => {
            let names: Vec<&str> = names.iter().map(|name| &**name).collect();
            format!("children [{}] ({})", names.join(", "), stat(s))
        }
        Ok(Response::Synced { path }) => format!("synced {path}"),
        Ok(Response::Multi(outcome)) => format!("multi {outcome:?}"),
        Ok(Response::Closed) => "closed".into(),
        Ok(Response::WatchAdded) => "watch added".into(),
        Ok(Response::WatchesRemoved) => "watches removed".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_under_the_root_only_past_a_slash() {
        assert_eq!(unrooted("/zoocheck-1", "/zoocheck-1"), "/");
        assert_eq!(unrooted("/zoocheck-1", "/zoocheck-1/lock/x"), "/lock/x");
        assert_eq!(
            unrooted("/zoocheck-1", "/zoocheck-12/lock"),
            "(outside the replay's root) /zoocheck-12/lock"
        );
    }
}
