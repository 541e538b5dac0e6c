//! The renaming of clients' names (the primitives symmetry is built on,
//! [`crate::symmetry`]): a permutation of the clients, and what it makes of
//! every name, datum, session, request and reply that carries a client's
//! identity. Here, below the server, so that the server, the client library
//! and the recipes can each rename what they keep without knowing of the
//! search that asks them to.
//!
//! A client's identity is in the GUIDs of node names: a path component that
//! begins `c<i>` followed by its end, `r` (a restart), `s` (a renewal) or
//! `-` ([`crate::recipe::Incarnation::guid`],
//! [`crate::recipe::session_scoped`] write them), and in its first session,
//! number `i + 1`.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::recount::{sequence_suffix, Counter, Recount};
use super::{
    ChildOrder, Data, MultiOp, MultiOutcome, MultiResult, Op, OpResult, Path, Response, SessionId,
    Stat, WatchEvent, Zxid,
};

/// A client's number in a world (client `i` is `c<i>`).
pub type ClientId = usize;

/// The most clients a renaming can move (a scenario's limit).
pub const CLIENTS: usize = 5;

/// Which clients are interchangeable: those with the same group number
/// above 0; a client whose number is 0 is interchangeable with none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Groups(pub [u8; CLIENTS]);

impl Groups {
    /// Whether some group has two clients: only then can renaming merge
    /// anything.
    pub fn any(&self) -> bool {
        let groups = &self.0;
        (0..CLIENTS).any(|i| groups[i] > 0 && groups[i + 1..].contains(&groups[i]))
    }

    /// The groups of `clients` clients in which client `i` is
    /// interchangeable with client `j` where `same(i, j)`, an equivalence,
    /// and `eligible(i)`: none if more than [`CLIENTS`].
    pub fn of(
        clients: usize,
        eligible: impl Fn(ClientId) -> bool,
        same: impl Fn(ClientId, ClientId) -> bool,
    ) -> Groups {
        let mut groups = Groups::default();
        if clients > CLIENTS {
            return groups;
        }
        let mut next = 1;
        for i in (0..clients).filter(|&i| eligible(i)) {
            let earlier = (0..i).find(|&j| groups.0[j] > 0 && same(i, j));
            groups.0[i] = match earlier {
                Some(j) => groups.0[j],
                None => {
                    next += 1;
                    next - 1
                }
            };
        }
        groups
    }
}

/// How many renamed names each thread keeps ([`Renaming::name`]).
const NAME_CACHE: usize = 4096;

/// A renamed name: the name, the renaming's table, what it became.
type Renamed = Option<(Arc<str>, u64, Arc<str>)>;

thread_local! {
    static NAMES: std::cell::RefCell<Vec<Renamed>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A permutation of the clients, and the renaming of names and sessions it
/// makes.
#[derive(Clone, Debug)]
pub struct Renaming {
    /// Client `i` becomes client `to[i]`.
    to: [u8; CLIENTS],
    clients: usize,
    /// The server's listing order, which a renamed listing is put in.
    order: ChildOrder,
    /// Every name, datum, client library and link is copied, never shared
    /// with the original ([`crate::symmetry::detached`]).
    pub(crate) copies: bool,
    /// The counters are renamed too, by this pass ([`super::recount`]).
    recount: Option<Arc<Recount>>,
}

impl Renaming {
    /// The renaming that makes client `i` client `to[i]`, for `to` a
    /// permutation of `0..to.len()`, on a server that lists children in
    /// `order`.
    pub fn new(to: &[ClientId], order: ChildOrder) -> Renaming {
        assert!(to.len() <= CLIENTS, "at most {CLIENTS} clients");
        let mut table = [0; CLIENTS];
        for (i, &j) in to.iter().enumerate() {
            table[i] = j as u8;
        }
        Renaming {
            to: table,
            clients: to.len(),
            order,
            copies: false,
            recount: None,
        }
    }

    /// The renaming that moves no client and renames every counter by
    /// `recount`'s pass.
    pub fn counting(clients: usize, order: ChildOrder, recount: Arc<Recount>) -> Renaming {
        let to: Vec<ClientId> = (0..clients.min(CLIENTS)).collect();
        Renaming {
            recount: Some(recount),
            ..Renaming::new(&to, order)
        }
    }

    /// Whether this renaming renames counters.
    pub fn counts(&self) -> bool {
        self.recount.is_some()
    }

    /// What zxid `zxid` becomes.
    pub fn zxid(&self, zxid: Zxid) -> Zxid {
        match &self.recount {
            Some(recount) => recount.count(Counter::Zxid, zxid),
            None => zxid,
        }
    }

    /// What value `value` of `node`'s create counter becomes (a child's
    /// sequence number or place in the create order, or the counter).
    pub fn creates(&self, node: &Path, value: i64) -> i64 {
        match &self.recount {
            Some(recount) => recount.count(Counter::Creates(node.clone()), value),
            None => value,
        }
    }

    /// What value `value` of the create counter of the directory whose
    /// children are named by it becomes: a recipe's token, a holder's grant.
    pub fn sequence(&self, value: i64) -> i64 {
        match self.recount.as_ref().and_then(|r| r.directory.as_ref()) {
            Some(directory) => self.creates(directory, value),
            None => value,
        }
    }

    /// The directory whose children's names carry its counter's numbers,
    /// on a pass that renames counters.
    pub fn counted_directory(&self) -> Option<&Path> {
        self.recount.as_ref()?.directory.as_ref()
    }

    /// Notes, on a pass that renames counters, that this state cannot be
    /// renamed by their order, and why.
    pub fn refuse(&self, why: &'static str) {
        if let Some(recount) = &self.recount {
            recount.refuse(why);
        }
    }

    /// The renaming that moves no client and copies everything it keeps.
    pub fn copying(clients: usize, order: ChildOrder) -> Renaming {
        let to: Vec<ClientId> = (0..clients.min(CLIENTS)).collect();
        Renaming {
            copies: true,
            ..Renaming::new(&to, order)
        }
    }

    /// What client `client` becomes.
    pub fn client(&self, client: ClientId) -> ClientId {
        usize::from(self.to[client])
    }

    /// What session `session` becomes: a client's first session moves
    /// with its client, every other keeps its number.
    pub fn session(&self, session: SessionId) -> SessionId {
        let session = match usize::try_from(session) {
            Ok(first @ 1..) if first <= self.clients => self.client(first - 1) as SessionId + 1,
            _ => session,
        };
        match &self.recount {
            Some(recount) => recount.count(Counter::Session, session),
            None => session,
        }
    }

    /// `text` with the GUID at the start of each `/`-separated part
    /// renamed, and on a pass that renames counters the sequence number at
    /// the end of each name in the counted directory (a name that is not a
    /// path is one of its), or `None` if no part changes.
    fn text(&self, text: &str) -> Option<String> {
        let counted = self.recount.as_ref().and_then(|r| r.directory.as_ref());
        if !text.contains('c') && counted.is_none() {
            return None;
        }
        let bare = counted.is_some() && !text.contains('/');
        let mut renamed: Option<String> = None;
        let mut start = 0;
        for part in text.split('/') {
            let guid = self.guid_in(part);
            let body = guid.map_or(0, |(digits, _)| 1 + digits);
            let number = counted.and_then(|directory| {
                let in_directory = if start == 0 {
                    bare
                } else {
                    text[..start - 1] == *directory.as_str()
                };
                let at = sequence_suffix(part).filter(|&at| in_directory && at >= body)?;
                let value: i64 = part[at..].parse().ok()?;
                Some((at, self.creates(directory, value)))
            });
            if guid.is_some() || number.is_some() {
                let out = renamed.get_or_insert_with(|| {
                    let mut out = String::with_capacity(text.len() + 2);
                    out.push_str(&text[..start]);
                    out
                });
                if let Some((_, client)) = guid {
                    out.push('c');
                    out.push_str(&client.to_string());
                }
                match number {
                    Some((at, value)) => {
                        out.push_str(&part[body..at]);
                        out.push_str(&format!("{value:010}"));
                    }
                    None => out.push_str(&part[body..]),
                }
            } else if let Some(out) = &mut renamed {
                out.push_str(part);
            }
            start += part.len() + 1;
            if start <= text.len() {
                if let Some(out) = &mut renamed {
                    out.push('/');
                }
            }
        }
        renamed
    }

    /// If `part` begins with a GUID `c<i>` (`i` written as
    /// [`crate::recipe::Incarnation::guid`] writes it, followed by the
    /// part's end, `r`, `s` or `-`) whose client moves: the number of
    /// digits and the client it becomes.
    fn guid_in(&self, part: &str) -> Option<(usize, ClientId)> {
        let rest = part.strip_prefix('c')?;
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let after = rest.as_bytes().get(digits);
        let leading_zero = digits > 1 && rest.starts_with('0');
        if digits == 0 || leading_zero || !matches!(after, None | Some(b'r' | b's' | b'-')) {
            return None;
        }
        let client: usize = rest[..digits].parse().ok()?;
        let to = (client < self.clients).then(|| self.client(client))?;
        (to != client).then_some((digits, to))
    }

    pub fn path(&self, path: &Path) -> Path {
        Path::from_text(self.name(path.text()))
    }

    /// `name` renamed. The same texts are renamed again and again (every
    /// state shares its names with its successors), so each thread keeps
    /// the last renamings of a few thousand of them, found by the text's
    /// address: an entry holds its text, which therefore cannot be freed
    /// and its address reused while the entry is there.
    pub fn name(&self, name: &Arc<str>) -> Arc<str> {
        if self.copies {
            return Arc::from(&**name);
        }
        if self.recount.is_some() {
            return self.text(name).map_or_else(|| name.clone(), Arc::from);
        }
        if !name.contains('c') {
            return name.clone();
        }
        let address = Arc::as_ptr(name) as *const u8 as usize;
        let to = std::array::from_fn(|i| self.to.get(i).map_or(self.clients as u8, |&t| t));
        let table = u64::from_le_bytes(to);
        let slot = (address >> 4 ^ (table as usize).wrapping_mul(0x9e37_79b9)) % NAME_CACHE;
        NAMES.with_borrow_mut(|cache| {
            if cache.is_empty() {
                cache.resize(NAME_CACHE, None);
            }
            if let Some((text, to, renamed)) = &cache[slot] {
                if Arc::ptr_eq(text, name) && *to == table {
                    return renamed.clone();
                }
            }
            let renamed = match self.text(name) {
                Some(renamed) => Arc::from(renamed),
                None => name.clone(),
            };
            cache[slot] = Some((name.clone(), table, renamed.clone()));
            renamed
        })
    }

    /// Node data, renamed as text by the rule for paths; data that is not
    /// text is kept.
    pub fn data(&self, data: &Data) -> Data {
        let bytes = data.as_ref()?;
        if self.copies {
            return Some(Arc::from(&**bytes));
        }
        let renamed = std::str::from_utf8(bytes)
            .ok()
            .and_then(|text| self.text(text));
        match renamed {
            Some(text) => Some(Arc::from(text.as_bytes())),
            None => data.clone(),
        }
    }

    pub fn stat(&self, stat: &Stat) -> Stat {
        let Some(recount) = &self.recount else {
            return Stat {
                ephemeral_owner: self.session(stat.ephemeral_owner),
                ..*stat
            };
        };
        // `cversion` is twice the node's create counter less its children
        // (`Store::stat`): the counter is renamed, the children kept. A
        // node no longer there keeps it as it was.
        let children = i64::from(stat.num_children);
        let cversion = match recount.node_created_at(stat.czxid) {
            Some(node) => {
                let creates = (i64::from(stat.cversion) + children) / 2;
                (2 * self.creates(node, creates) - children) as i32
            }
            None => stat.cversion,
        };
        Stat {
            czxid: self.zxid(stat.czxid),
            mzxid: self.zxid(stat.mzxid),
            pzxid: self.zxid(stat.pzxid),
            ctime: self.zxid(stat.ctime),
            mtime: self.zxid(stat.mtime),
            cversion,
            ephemeral_owner: self.session(stat.ephemeral_owner),
            ..*stat
        }
    }

    /// Names as the server would list them renamed: renamed, in its order.
    pub fn names(&self, names: &[Arc<str>]) -> Vec<Arc<str>> {
        let mut renamed: Vec<Arc<str>> = names.iter().map(|name| self.name(name)).collect();
        if !self.copies {
            self.order.arrange(&mut renamed);
        }
        renamed
    }

    pub fn paths(&self, paths: &BTreeSet<Path>) -> BTreeSet<Path> {
        paths.iter().map(|path| self.path(path)).collect()
    }

    pub fn op(&self, op: &Op) -> Op {
        match op {
            Op::Create { path, data, mode } => Op::Create {
                path: self.path(path),
                data: self.data(data),
                mode: *mode,
            },
            Op::Delete { path, version } => Op::Delete {
                path: self.path(path),
                version: *version,
            },
            Op::Exists { path, watch } => Op::Exists {
                path: self.path(path),
                watch: *watch,
            },
            Op::GetData { path, watch } => Op::GetData {
                path: self.path(path),
                watch: *watch,
            },
            Op::SetData {
                path,
                data,
                version,
            } => Op::SetData {
                path: self.path(path),
                data: self.data(data),
                version: *version,
            },
            Op::GetChildren { path, watch } => Op::GetChildren {
                path: self.path(path),
                watch: *watch,
            },
            Op::Sync { path } => Op::Sync {
                path: self.path(path),
            },
            Op::AddWatch { path, mode } => Op::AddWatch {
                path: self.path(path),
                mode: *mode,
            },
            Op::RemoveWatches { path, kind } => Op::RemoveWatches {
                path: self.path(path),
                kind: *kind,
            },
            Op::CheckWatches { path, kind } => Op::CheckWatches {
                path: self.path(path),
                kind: *kind,
            },
            Op::Multi(ops) => Op::Multi(ops.iter().map(|op| self.multi_op(op)).collect()),
            Op::Close => Op::Close,
        }
    }

    fn multi_op(&self, op: &MultiOp) -> MultiOp {
        let mut renamed = op.clone();
        match &mut renamed {
            MultiOp::Create { path, data, .. } | MultiOp::SetData { path, data, .. } => {
                *path = self.path(path);
                *data = self.data(data);
            }
            MultiOp::Delete { path, .. } | MultiOp::Check { path, .. } => *path = self.path(path),
        }
        renamed
    }

    pub fn result(&self, result: &OpResult) -> OpResult {
        let response = match result {
            Err(code) => return Err(*code),
            Ok(response) => response,
        };
        Ok(match response {
            Response::Created { path, stat } => Response::Created {
                path: self.path(path),
                stat: self.stat(stat),
            },
            Response::Exists(stat) => Response::Exists(stat.as_ref().map(|s| self.stat(s))),
            Response::Data { data, stat } => Response::Data {
                data: self.data(data),
                stat: self.stat(stat),
            },
            Response::SetData { stat } => Response::SetData {
                stat: self.stat(stat),
            },
            Response::Children { names, stat } => Response::Children {
                names: self.names(names),
                stat: self.stat(stat),
            },
            Response::Synced { path } => Response::Synced {
                path: self.path(path),
            },
            Response::Multi(MultiOutcome::Committed(results)) => {
                let results = results.iter().map(|result| match result {
                    MultiResult::Created { path } => MultiResult::Created {
                        path: self.path(path),
                    },
                    MultiResult::SetData { stat } => MultiResult::SetData {
                        stat: self.stat(stat),
                    },
                    other => other.clone(),
                });
                Response::Multi(MultiOutcome::Committed(results.collect()))
            }
            other @ (Response::Deleted
            | Response::Multi(_)
            | Response::Closed
            | Response::WatchAdded
            | Response::WatchesRemoved) => other.clone(),
        })
    }

    pub fn event(&self, event: &WatchEvent) -> WatchEvent {
        WatchEvent {
            kind: event.kind,
            path: self.path(&event.path),
        }
    }

    /// `items`, client `i`'s at place `π(i)`, each made by `each`.
    pub fn moved<T, U>(&self, items: &[T], each: impl Fn(&T) -> Option<U>) -> Option<Vec<U>> {
        let mut from = [0; CLIENTS];
        for client in 0..items.len() {
            from[self.client(client)] = client;
        }
        (from[..items.len()].iter())
            .map(|&client| each(&items[client]))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn swap01() -> Renaming {
        Renaming::new(&[1, 0, 2], ChildOrder::Reversed)
    }

    #[test]
    fn guids_at_the_start_of_a_part_are_renamed() {
        let renaming = swap01();
        let path = |text: &str| renaming.path(&Path::new(text)).as_str().to_string();
        assert_eq!(
            path("/_locknode_/c0-lock-0000000001"),
            "/_locknode_/c1-lock-0000000001"
        );
        assert_eq!(
            path("/_locknode_/c1r2s1-lock-0000000003"),
            "/_locknode_/c0r2s1-lock-0000000003"
        );
        assert_eq!(path("/dir/c0"), "/dir/c1");
        assert_eq!(path("/c1/c0s1"), "/c0/c1s1");
        // Not a GUID: a number that does not end the GUID, another letter,
        // a client that does not move or is not there.
        assert_eq!(path("/dir/c01-x"), "/dir/c01-x");
        assert_eq!(path("/dir/cx0"), "/dir/cx0");
        assert_eq!(path("/dir/c0x"), "/dir/c0x");
        assert_eq!(path("/dir/xc0-"), "/dir/xc0-");
        assert_eq!(path("/dir/c2-lock-"), "/dir/c2-lock-");
        assert_eq!(path("/dir/c7-lock-"), "/dir/c7-lock-");
        assert_eq!(path("/"), "/");
    }

    #[test]
    fn first_sessions_move_with_their_clients() {
        let renaming = swap01();
        assert_eq!(
            [0, 1, 2, 3, 4, 9].map(|s| renaming.session(s)),
            [0, 2, 1, 3, 4, 9]
        );
    }

    #[test]
    fn a_renamed_listing_is_in_the_servers_order() {
        let names: Vec<Arc<str>> = ["c0-a", "c1-b", "c2-c"].map(Arc::from).to_vec();
        let renamed = swap01().names(&names);
        let texts: Vec<&str> = renamed.iter().map(|name| &**name).collect();
        assert_eq!(texts, ["c2-c", "c1-a", "c0-b"]);
    }

    #[test]
    fn groups_gather_interchangeable_clients() {
        let groups = Groups::of(5, |c| c != 3, |i, j| i % 2 == j % 2);
        assert_eq!(groups.0, [1, 2, 1, 0, 1]);
        assert!(groups.any());
        assert!(!Groups::of(3, |c| c == 1, |_, _| true).any());
        assert!(!Groups::of(6, |_| true, |_, _| true).any());
    }
}
