//! The rules a client library keeps where real libraries differ, each a
//! setting ([`Library`]) that a profile fixes and a scenario may turn per
//! client (`[library]`, `[[client]] library`).
//!
//! What every library does alike is [`super::Client`]'s: a request in
//! flight or queued ends with `CONNECTIONLOSS` when the connection drops,
//! its last zxid advances from replies only (a ZooKeeper 3.8 server sends
//! every notification with zxid -1, `NIOServerCnxn.process`, so no library
//! could advance it from one), and `Expired` ends the handle. Where they
//! differ, each setting says what each profile does and where its code
//! does it:
//!
//! | setting | `java` (3.8) | `curator5` | `kazoo2` (2.8, 2.11) |
//! |---|---|---|---|
//! | `watches` | `restored` | `restored` | `dropped` |
//! | `connect_zxid` | `last_seen` | `last_seen` | `last_seen` |
//! | `gives_up` | `false` | `true` | `false` |
//! | `on_expiry` | `stop` | `renew` | `renew` |
//!
//! How a library tells the recipe about trouble needs no setting: the
//! Java client's `Disconnected`, `SyncConnected` and `Expired`, Curator's
//! `SUSPENDED`, `RECONNECTED` and `LOST`, kazoo's `SUSPENDED`, `CONNECTED`
//! and `LOST` are the same three moments ([`super::SessionEvent`]); they
//! differ in when `LOST` comes (`gives_up`) and in what follows it
//! (`on_expiry`).

crate::knob_value! {
    /// What the library does with its watches when its connection drops.
    pub enum WatchesOnReconnect {
        /// keeps them and sends them on the next connection with the last zxid it saw (`SetWatches`); the server fires at once those whose node changed meanwhile (Java client `ClientCnxn.SendThread.primeConnection`; Curator runs on it)
        Restored = "restored",
        /// forgets them when the connection drops and sends none on the next (kazoo 2: `KazooClient._session_callback` calls `_reset_watchers` on every connection loss, each watcher called once with a state event, and its connection has no `SetWatches`; the Java client with `zookeeper.disableAutoWatchReset=true`, `ZKWatchManager.materialize`)
        Dropped = "dropped",
    }
}

crate::knob_value! {
    /// The zxid the library's connect request carries when it reconnects.
    pub enum ConnectZxid {
        /// the last it saw in a reply: a server that has applied less refuses the connection and the library tries again (`ZooKeeperServer.processConnectRequest`), so no read goes behind what the client has seen (Java `ClientCnxn`, kazoo `ConnectionHandler._connect`)
        LastSeen = "last_seen",
        /// none (zero): any server takes it, however far behind, and a client that moved may read behind its own writes (a library that keeps no zxid; none of the three profiles)
        Zero = "zero",
    }
}

crate::knob_value! {
    /// What the library does once its session is gone (`Expired`).
    pub enum OnExpiry {
        /// nothing more: the handle is dead and the process is done with ZooKeeper (the Java client: a new session is a new `ZooKeeper` object the application makes)
        Stop = "stop",
        /// opens a new session in the same process, and the recipe carries on with what it remembers (Curator `ConnectionState.handleExpiredSession`; kazoo `KazooClient._session_callback` resets the session and its connection loop opens a new one)
        Renew = "renew",
    }
}

crate::knobs! {
    /// A client library's rules where the libraries differ: a profile
    /// ([`PROFILES`]) fixes them all, a scenario may turn any.
    pub struct Library {
        /// What the library does with its watches when its connection drops.
        watches: WatchesOnReconnect,
        /// The zxid its connect request carries when it reconnects.
        connect_zxid: ConnectZxid,
        /// It gives its session up on its own clock while it cannot reach a server, before the server has expired it: the `abandon` fault strikes only such a library (Curator 5 `ConnectionStateManager.processEvents`, which injects an expiry once the session timeout has passed while `SUSPENDED`; the Java client from 3.9.3 on); otherwise it learns of expiry from a server only.
        gives_up: bool,
        /// What it does once its session is gone.
        on_expiry: OnExpiry,
    }
}

impl Library {
    /// The ZooKeeper 3.8 Java client: the default, and what the
    /// conformance suites check against a real server.
    pub const JAVA: Library = Library {
        watches: WatchesOnReconnect::Restored,
        connect_zxid: ConnectZxid::LastSeen,
        gives_up: false,
        on_expiry: OnExpiry::Stop,
    };

    /// Apache Curator 5 over the Java client.
    pub const CURATOR5: Library = Library {
        gives_up: true,
        on_expiry: OnExpiry::Renew,
        ..Library::JAVA
    };

    /// kazoo 2 (2.8.0 as Debian ships it, 2.11.0 alike).
    pub const KAZOO2: Library = Library {
        watches: WatchesOnReconnect::Dropped,
        on_expiry: OnExpiry::Renew,
        ..Library::JAVA
    };

    /// Whether it opens a new session once its session is gone.
    pub fn renews(&self) -> bool {
        self.on_expiry == OnExpiry::Renew
    }
}

impl Default for Library {
    fn default() -> Library {
        Library::JAVA
    }
}

/// Each profile: its name, what it is, and its settings. The first is
/// the default.
pub const PROFILES: &[(&str, &str, Library)] = &[
    ("java", "the ZooKeeper 3.8 Java client alone", Library::JAVA),
    (
        "curator5",
        "Apache Curator 5 (5.4.0 as Debian ships it) over the Java client",
        Library::CURATOR5,
    ),
    (
        "kazoo2",
        "kazoo 2 (2.8.0 as Debian ships it, 2.11.0 alike), Python",
        Library::KAZOO2,
    ),
];

/// A client's library as a scenario names it: a profile, with the
/// settings it turns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Profiled {
    pub profile: &'static str,
    pub library: Library,
}

impl Profiled {
    /// The default: the Java client, nothing turned.
    pub const DEFAULT: Profiled = Profiled {
        profile: PROFILES[0].0,
        library: PROFILES[0].2,
    };

    /// The profile called `name`, or what was expected.
    pub fn named(name: &str) -> Result<Profiled, String> {
        (PROFILES.iter())
            .find(|(profile, _, _)| *profile == name)
            .map(|&(profile, _, library)| Profiled { profile, library })
            .ok_or_else(|| {
                let names: Vec<&str> = PROFILES.iter().map(|(name, _, _)| *name).collect();
                format!(
                    "unknown profile {}",
                    crate::text::expected_one_of(name, &names)
                )
            })
    }

    /// The settings turned away from the profile's, as `key=value` words.
    pub fn turned(&self) -> Vec<(&'static str, &'static str)> {
        let base = Profiled::named(self.profile).map_or(Library::JAVA, |named| named.library);
        crate::knobs::differences(&self.library, &base)
    }
}

impl Default for Profiled {
    fn default() -> Profiled {
        Profiled::DEFAULT
    }
}

/// `kazoo2`, or `java on_expiry=renew`: the profile, then what is turned.
impl std::fmt::Display for Profiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.profile)?;
        for (key, value) in self.turned() {
            write!(f, " {key}={value}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knobs::Knobs;

    #[test]
    fn each_profile_is_named_and_a_setting_turned_over_it_shows() {
        assert_eq!(Profiled::named("java").unwrap(), Profiled::DEFAULT);
        assert_eq!(Profiled::named("kazoo2").unwrap().library, Library::KAZOO2);
        let mut curator = Profiled::named("curator5").unwrap();
        assert_eq!(curator.to_string(), "curator5");
        curator.library.set("gives_up", "false").unwrap();
        assert_eq!(curator.to_string(), "curator5 gives_up=false");
        assert_eq!(
            Profiled::named("kazoo").unwrap_err(),
            "unknown profile \"kazoo\"; did you mean \"kazoo2\"? expected one of java, curator5, kazoo2"
        );
        assert!(Library::CURATOR5.renews() && Library::KAZOO2.renews());
        assert!(!Library::JAVA.renews());
    }
}
