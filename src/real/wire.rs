//! ZooKeeper's client protocol on one TCP connection, spoken by hand: jute
//! encoding of the requests the model's store serves, and decoding of what a
//! 3.8 server answers (`zookeeper.jute`, `ClientCnxn`).
//!
//! Blocking and one request at a time: [`Conn::call`] writes a request and
//! reads until its reply, keeping the notifications that arrived before it.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use crate::store::{AddWatchMode, CreateMode, EventType, MultiOp, Op, Stat, REAL_TTL_MS};

/// How long a reply may take before the server is taken for gone.
const READ_LIMIT: Duration = Duration::from_secs(10);

/// The request types (`ZooDefs.OpCode`).
mod code {
    pub const CREATE: i32 = 1;
    pub const DELETE: i32 = 2;
    pub const EXISTS: i32 = 3;
    pub const GET_DATA: i32 = 4;
    pub const SET_DATA: i32 = 5;
    pub const SYNC: i32 = 9;
    pub const PING: i32 = 11;
    pub const GET_CHILDREN2: i32 = 12;
    pub const CHECK: i32 = 13;
    pub const MULTI: i32 = 14;
    pub const CREATE2: i32 = 15;
    pub const CREATE_CONTAINER: i32 = 19;
    pub const CREATE_TTL: i32 = 21;
    pub const CLOSE_SESSION: i32 = -11;
    pub const SET_WATCHES: i32 = 101;
    pub const SET_WATCHES2: i32 = 105;
    pub const ADD_WATCH: i32 = 106;
    pub const CHECK_WATCHES: i32 = 17;
    pub const REMOVE_WATCHES: i32 = 18;
    pub const ERROR: i32 = -1;
}

const PING_XID: i32 = -2;
const NOTIFICATION_XID: i32 = -1;
const SET_WATCHES_XID: i32 = -8;

/// A jute record being written.
#[derive(Default)]
pub struct Writer(Vec<u8>);

impl Writer {
    fn int(&mut self, value: i32) -> &mut Writer {
        self.0.extend_from_slice(&value.to_be_bytes());
        self
    }

    fn long(&mut self, value: i64) -> &mut Writer {
        self.0.extend_from_slice(&value.to_be_bytes());
        self
    }

    fn boolean(&mut self, value: bool) -> &mut Writer {
        self.0.push(u8::from(value));
        self
    }

    fn buffer(&mut self, value: Option<&[u8]>) -> &mut Writer {
        match value {
            None => self.int(-1),
            Some(bytes) => {
                self.int(bytes.len() as i32);
                self.0.extend_from_slice(bytes);
                self
            }
        }
    }

    fn string(&mut self, value: &str) -> &mut Writer {
        self.buffer(Some(value.as_bytes()))
    }

    fn strings(&mut self, values: &[String]) -> &mut Writer {
        self.int(values.len() as i32);
        for value in values {
            self.string(value);
        }
        self
    }

    /// The one ACL every node of the model has: world:anyone, all permissions.
    fn open_acl(&mut self) -> &mut Writer {
        self.int(1).int(31).string("world").string("anyone")
    }
}

/// A jute record being read.
pub struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take(&mut self, n: usize) -> io::Result<&[u8]> {
        if self.0.len() < n {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "a reply shorter than its record",
            ));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    pub fn int(&mut self) -> io::Result<i32> {
        Ok(i32::from_be_bytes(self.take(4)?.try_into().expect("4")))
    }

    pub fn long(&mut self) -> io::Result<i64> {
        Ok(i64::from_be_bytes(self.take(8)?.try_into().expect("8")))
    }

    pub fn boolean(&mut self) -> io::Result<bool> {
        Ok(self.take(1)?[0] != 0)
    }

    pub fn buffer(&mut self) -> io::Result<Option<Vec<u8>>> {
        let length = self.int()?;
        if length < 0 {
            return Ok(None);
        }
        Ok(Some(self.take(length as usize)?.to_vec()))
    }

    pub fn string(&mut self) -> io::Result<String> {
        let bytes = self.buffer()?.unwrap_or_default();
        String::from_utf8(bytes)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "a string not in UTF-8"))
    }

    pub fn strings(&mut self) -> io::Result<Vec<String>> {
        let count = self.int()?.max(0);
        (0..count).map(|_| self.string()).collect()
    }

    pub fn stat(&mut self) -> io::Result<Stat> {
        Ok(Stat {
            czxid: self.long()?,
            mzxid: self.long()?,
            ctime: self.long()?,
            mtime: self.long()?,
            version: self.int()?,
            cversion: self.int()?,
            aversion: self.int()?,
            ephemeral_owner: self.long()?,
            data_length: self.int()?,
            num_children: self.int()?,
            pzxid: self.long()?,
        })
    }
}

/// What the server sent on a connection.
#[derive(Debug)]
pub enum Frame {
    Reply {
        xid: i32,
        zxid: i64,
        err: i32,
        body: Vec<u8>,
    },
    Notification {
        kind: EventType,
        path: String,
    },
}

/// An open session's connection.
pub struct Conn {
    stream: TcpStream,
    next_xid: i32,
}

/// What the server answered a connect request: the session and its
/// password, or that the session it was asked for has expired.
pub enum Connected {
    Session {
        id: i64,
        password: Vec<u8>,
        conn: Conn,
    },
    Expired,
}

fn create_flags(mode: CreateMode) -> i32 {
    match mode {
        CreateMode::Persistent => 0,
        CreateMode::Ephemeral => 1,
        CreateMode::PersistentSequential => 2,
        CreateMode::EphemeralSequential => 3,
        CreateMode::Container => 4,
        CreateMode::PersistentWithTtl => 5,
        CreateMode::PersistentSequentialWithTtl => 6,
    }
}

/// The request type of a create: a container's and a TTL node's are their
/// own (`ZooKeeper.create` and `Op.Create` send `createContainer` and
/// `createTTL`).
fn create_code(mode: CreateMode, plain: i32) -> i32 {
    match mode {
        CreateMode::Container => code::CREATE_CONTAINER,
        mode if mode.is_ttl() => code::CREATE_TTL,
        _ => plain,
    }
}

/// A create's body: `CreateRequest`, or `CreateTTLRequest` with the time to
/// live after the flags.
fn create_body(w: &mut Writer, path: &str, data: Option<&[u8]>, mode: CreateMode) {
    w.string(path)
        .buffer(data)
        .open_acl()
        .int(create_flags(mode));
    if mode.is_ttl() {
        w.long(REAL_TTL_MS);
    }
}

/// A request's type and body, its paths under `root`.
pub fn request(op: &Op, root: &dyn Fn(&str) -> String) -> (i32, Vec<u8>) {
    let mut w = Writer::default();
    let kind = match op {
        Op::Create { path, data, mode } => {
            create_body(&mut w, &root(path.as_str()), data.as_deref(), *mode);
            create_code(*mode, code::CREATE2)
        }
        Op::Delete { path, version } => {
            w.string(&root(path.as_str())).int(*version);
            code::DELETE
        }
        Op::Exists { path, watch } => {
            w.string(&root(path.as_str())).boolean(*watch);
            code::EXISTS
        }
        Op::GetData { path, watch } => {
            w.string(&root(path.as_str())).boolean(*watch);
            code::GET_DATA
        }
        Op::SetData {
            path,
            data,
            version,
        } => {
            w.string(&root(path.as_str()))
                .buffer(data.as_deref())
                .int(*version);
            code::SET_DATA
        }
        Op::GetChildren { path, watch } => {
            w.string(&root(path.as_str())).boolean(*watch);
            code::GET_CHILDREN2
        }
        Op::AddWatch { path, mode } => {
            w.string(&root(path.as_str())).int(match mode {
                AddWatchMode::Persistent => 0,
                AddWatchMode::PersistentRecursive => 1,
            });
            code::ADD_WATCH
        }
        Op::RemoveWatches { path, kind } => {
            w.string(&root(path.as_str())).int(kind.code());
            code::REMOVE_WATCHES
        }
        Op::CheckWatches { path, kind } => {
            w.string(&root(path.as_str())).int(kind.code());
            code::CHECK_WATCHES
        }
        Op::Sync { path } => {
            w.string(&root(path.as_str()));
            code::SYNC
        }
        Op::Multi(ops) => {
            for op in ops {
                match op {
                    MultiOp::Create { path, data, mode } => {
                        w.int(create_code(*mode, code::CREATE))
                            .boolean(false)
                            .int(-1);
                        create_body(&mut w, &root(path.as_str()), data.as_deref(), *mode);
                    }
                    MultiOp::Delete { path, version } => {
                        w.int(code::DELETE).boolean(false).int(-1);
                        w.string(&root(path.as_str())).int(*version);
                    }
                    MultiOp::SetData {
                        path,
                        data,
                        version,
                    } => {
                        w.int(code::SET_DATA).boolean(false).int(-1);
                        w.string(&root(path.as_str()))
                            .buffer(data.as_deref())
                            .int(*version);
                    }
                    MultiOp::Check { path, version } => {
                        w.int(code::CHECK).boolean(false).int(-1);
                        w.string(&root(path.as_str())).int(*version);
                    }
                }
            }
            w.int(-1).boolean(true).int(-1);
            code::MULTI
        }
        Op::Close => code::CLOSE_SESSION,
    };
    (kind, w.0)
}

/// One result of a multi's reply: its type, its code, and what came with it.
pub enum MultiPart {
    Created(String),
    Deleted,
    SetData(Stat),
    Checked,
    Error(i32),
}

/// The results of a multi's reply body.
pub fn multi_results(body: &[u8]) -> io::Result<Vec<MultiPart>> {
    let mut r = Reader(body);
    let mut parts = Vec::new();
    loop {
        let kind = r.int()?;
        let done = r.boolean()?;
        let err = r.int()?;
        if done {
            return Ok(parts);
        }
        parts.push(match kind {
            code::CREATE => MultiPart::Created(r.string()?),
            code::CREATE2 | code::CREATE_CONTAINER | code::CREATE_TTL => {
                let path = r.string()?;
                r.stat()?;
                MultiPart::Created(path)
            }
            code::DELETE => MultiPart::Deleted,
            code::SET_DATA => MultiPart::SetData(r.stat()?),
            code::CHECK => MultiPart::Checked,
            code::ERROR => MultiPart::Error(r.int()?),
            other => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("a multi result of type {other} (err {err})"),
                ))
            }
        });
    }
}

pub fn reader(body: &[u8]) -> Reader<'_> {
    Reader(body)
}

fn event_type(code: i32) -> io::Result<EventType> {
    Ok(match code {
        1 => EventType::NodeCreated,
        2 => EventType::NodeDeleted,
        3 => EventType::NodeDataChanged,
        4 => EventType::NodeChildrenChanged,
        other => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("a watch event of type {other}"),
            ))
        }
    })
}

impl Conn {
    /// Opens a connection and asks for a session: a new one (`session` 0) or
    /// an existing one, with its password.
    pub fn connect(
        address: &str,
        session: i64,
        password: &[u8],
        timeout_ms: i32,
        last_zxid: i64,
    ) -> io::Result<Connected> {
        let stream = TcpStream::connect(address)?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(READ_LIMIT))?;
        let mut conn = Conn {
            stream,
            next_xid: 1,
        };
        let mut w = Writer::default();
        w.int(0)
            .long(last_zxid)
            .int(timeout_ms)
            .long(session)
            .buffer(Some(password))
            .boolean(false);
        conn.send(&w.0)?;
        let frame = conn.receive()?;
        let mut r = Reader(&frame);
        let _protocol = r.int()?;
        let timeout = r.int()?;
        let id = r.long()?;
        let password = r.buffer()?.unwrap_or_default();
        if timeout <= 0 {
            return Ok(Connected::Expired);
        }
        Ok(Connected::Session { id, password, conn })
    }

    fn send(&mut self, payload: &[u8]) -> io::Result<()> {
        let mut framed = Vec::with_capacity(4 + payload.len());
        framed.extend_from_slice(&(payload.len() as i32).to_be_bytes());
        framed.extend_from_slice(payload);
        self.stream.write_all(&framed)
    }

    fn receive(&mut self) -> io::Result<Vec<u8>> {
        let mut length = [0u8; 4];
        self.stream.read_exact(&mut length)?;
        let length = i32::from_be_bytes(length);
        if !(0..=64 << 20).contains(&length) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("a frame of {length} bytes"),
            ));
        }
        let mut payload = vec![0u8; length as usize];
        self.stream.read_exact(&mut payload)?;
        Ok(payload)
    }

    fn frame(&mut self) -> io::Result<Frame> {
        let payload = self.receive()?;
        let mut r = Reader(&payload);
        let xid = r.int()?;
        let zxid = r.long()?;
        let err = r.int()?;
        if xid == NOTIFICATION_XID {
            let kind = event_type(r.int()?)?;
            let _state = r.int()?;
            let path = r.string()?;
            return Ok(Frame::Notification { kind, path });
        }
        Ok(Frame::Reply {
            xid,
            zxid,
            err,
            body: r.0.to_vec(),
        })
    }

    /// Sends a request with header `(xid, kind)` and reads until the reply
    /// with that xid: answers it and the notifications that came first.
    fn exchange(
        &mut self,
        xid: i32,
        kind: i32,
        body: &[u8],
    ) -> io::Result<((i64, i32, Vec<u8>), Vec<(EventType, String)>)> {
        let mut w = Writer::default();
        w.int(xid).int(kind);
        w.0.extend_from_slice(body);
        self.send(&w.0)?;
        let mut events = Vec::new();
        loop {
            match self.frame()? {
                Frame::Notification { kind, path } => events.push((kind, path)),
                Frame::Reply {
                    xid: got,
                    zxid,
                    err,
                    body,
                } if got == xid => return Ok(((zxid, err, body), events)),
                Frame::Reply { xid: got, .. } if got == PING_XID => {}
                Frame::Reply { xid: got, .. } => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("a reply to xid {got} while waiting for {xid}"),
                    ))
                }
            }
        }
    }

    /// A request: answers (reply zxid, error code, body) and the
    /// notifications that arrived before the reply.
    pub fn call(
        &mut self,
        kind: i32,
        body: &[u8],
    ) -> io::Result<((i64, i32, Vec<u8>), Vec<(EventType, String)>)> {
        let xid = self.next_xid;
        self.next_xid += 1;
        self.exchange(xid, kind, body)
    }

    /// A ping: everything the server queued on this connection before its
    /// answer (notifications) arrives first, so this also drains them.
    pub fn ping(&mut self) -> io::Result<Vec<(EventType, String)>> {
        Ok(self.exchange(PING_XID, code::PING, &[])?.1)
    }

    /// SetWatches, as a client sends it first on a new connection, or
    /// SetWatches2 when it has persistent watches (`ClientCnxn`'s
    /// `primeConnection`); answers the catch-up events, read up to a ping
    /// behind it.
    pub fn set_watches(
        &mut self,
        relative_zxid: i64,
        [data, exist, child, persistent, recursive]: [&[String]; 5],
    ) -> io::Result<Vec<(EventType, String)>> {
        let mut w = Writer::default();
        w.long(relative_zxid)
            .strings(data)
            .strings(exist)
            .strings(child);
        let kind = match persistent.is_empty() && recursive.is_empty() {
            true => code::SET_WATCHES,
            false => {
                w.strings(persistent).strings(recursive);
                code::SET_WATCHES2
            }
        };
        let (_, mut events) = self.exchange(SET_WATCHES_XID, kind, &w.0)?;
        events.extend(self.ping()?);
        Ok(events)
    }
}
