// The real Java client, driven line by line for tests/conformance_faults.rs.
//
// Each line on stdin is one command for one named client handle; each line on
// stdout is one thing a handle's application saw, in the order its event
// thread delivered it. Watch events and replies both come through that thread
// (every call is asynchronous, every watch is the default watcher), so a
// client's lines are in exactly the order its application would see them.
//
//   <client> open <connect string> <session timeout ms>
//                                      a new handle (a new session) for <client>
//   <client> <tag> create <path> <data> <mode>   mode: P, E, PS, ES
//   <client> <tag> delete <path> <version>
//   <client> <tag> set <path> <data> <version>
//   <client> <tag> exists <path> <watch>         watch: 0 or 1
//   <client> <tag> get <path> <watch>
//   <client> <tag> children <path> <watch>
//   <client> <tag> sync <path>
//   <client> <tag> addwatch <path> <mode>        mode: P (persistent), R (recursive)
//   <client> <tag> removeall <path> <type>       removeAllWatches, type: C, D, A
//   <client> <tag> removewatcher <path> <type>   removeWatches of the default watcher
//   <client> abandon                   the library gives the session up on its own
//                                      clock (what Curator does, through
//                                      ZooKeeperTestable.injectSessionExpiration)
//   <client> close                     close the handle (closeSession), on its own
//                                      thread
//   quit
//
// Output:
//   <client> session <KeeperState> <session id, hex>
//   <client> watch <EventType> <path>
//   <client> reply <tag> <rc> [<payload>]
//   <client> issued <tag>              the call is in the library's hands
//   error <text>                       a command this driver cannot read
//
// A payload is `path=<path>` for create, `stat <fields>` for exists (or
// `none`) and set, `data=<text|-> stat <fields>` for get, `children=<a,b>
// stat <fields>` for children. Stat fields are version, cversion, aversion,
// ephemeralOwner (hex), dataLength, numChildren.
//
// Written for zoocheck; compiled by the test with Debian's zookeeper.jar.

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

public final class FaultDriver {
    private static final Map<String, ZooKeeper> HANDLES = new HashMap<>();
    /// Each client's default watcher, the one every watch here is set with.
    private static final Map<String, Watcher> WATCHERS = new HashMap<>();

    private static synchronized void out(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static String stat(Stat stat) {
        if (stat == null) {
            return "none";
        }
        return "stat " + stat.getVersion() + " " + stat.getCversion() + " " + stat.getAversion()
                + " " + Long.toHexString(stat.getEphemeralOwner()) + " " + stat.getDataLength()
                + " " + stat.getNumChildren();
    }

    private static String text(byte[] data) {
        return data == null ? "-" : new String(data, StandardCharsets.UTF_8);
    }

    private static byte[] bytes(String data) {
        return data.equals("-") ? null : data.getBytes(StandardCharsets.UTF_8);
    }

    private static CreateMode mode(String mode) {
        switch (mode) {
            case "P": return CreateMode.PERSISTENT;
            case "E": return CreateMode.EPHEMERAL;
            case "PS": return CreateMode.PERSISTENT_SEQUENTIAL;
            case "ES": return CreateMode.EPHEMERAL_SEQUENTIAL;
            case "C": return CreateMode.CONTAINER;
            default: throw new IllegalArgumentException("mode " + mode);
        }
    }

    /// The application's one watcher: session events and watch events alike.
    private static final class Application implements Watcher {
        private final String client;
        private ZooKeeper handle;

        Application(String client) {
            this.client = client;
        }

        @Override
        public synchronized void process(WatchedEvent event) {
            if (event.getType() == Event.EventType.None) {
                out(client + " session " + event.getState() + " "
                        + Long.toHexString(handle == null ? 0 : handle.getSessionId()));
            } else {
                out(client + " watch " + event.getType() + " " + event.getPath());
            }
        }
    }

    private static void open(String client, String connect, int timeout) throws Exception {
        Application application = new Application(client);
        synchronized (application) {
            ZooKeeper handle = new ZooKeeper(connect, timeout, application);
            application.handle = handle;
            HANDLES.put(client, handle);
            WATCHERS.put(client, application);
        }
    }

    private static void call(String client, String tag, String[] words) {
        ZooKeeper zk = HANDLES.get(client);
        if (zk == null) {
            out("error " + client + " has no handle");
            return;
        }
        String prefix = client + " reply " + tag + " ";
        String path = words[3];
        switch (words[2]) {
            case "create":
                zk.create(path, bytes(words[4]), ZooDefs.Ids.OPEN_ACL_UNSAFE, mode(words[5]),
                        (rc, p, ctx, name) -> out(prefix + rc + (rc == 0 ? " path=" + name : "")),
                        null);
                break;
            case "delete":
                zk.delete(path, Integer.parseInt(words[4]), (rc, p, ctx) -> out(prefix + rc), null);
                break;
            case "set":
                zk.setData(path, bytes(words[4]), Integer.parseInt(words[5]),
                        (rc, p, ctx, stat) -> out(prefix + rc + (rc == 0 ? " " + stat(stat) : "")),
                        null);
                break;
            case "exists":
                zk.exists(path, words[4].equals("1"),
                        (rc, p, ctx, stat) -> out(prefix + rc + (rc == 0 ? " " + stat(stat) : "")),
                        null);
                break;
            case "get":
                zk.getData(path, words[4].equals("1"),
                        (rc, p, ctx, data, stat) -> out(prefix + rc
                                + (rc == 0 ? " data=" + text(data) + " " + stat(stat) : "")),
                        null);
                break;
            case "children":
                zk.getChildren(path, words[4].equals("1"), (rc, p, ctx, names, stat) -> {
                    String listed = "";
                    if (rc == 0) {
                        List<String> sorted = new ArrayList<>(names);
                        Collections.sort(sorted);
                        listed = " children=" + String.join(",", sorted) + " " + stat(stat);
                    }
                    out(prefix + rc + listed);
                }, null);
                break;
            case "sync":
                zk.sync(path, (rc, p, ctx) -> out(prefix + rc), null);
                break;
            case "addwatch":
                // With the default watcher, as every other watch here.
                zk.addWatch(path, words[4].equals("R") ? AddWatchMode.PERSISTENT_RECURSIVE
                        : AddWatchMode.PERSISTENT, (rc, p, ctx) -> out(prefix + rc), null);
                break;
            case "removeall":
                zk.removeAllWatches(path, watcherType(words[4]), false,
                        (rc, p, ctx) -> out(prefix + rc), null);
                break;
            case "removewatcher":
                zk.removeWatches(path, WATCHERS.get(client), watcherType(words[4]), false,
                        (rc, p, ctx) -> out(prefix + rc), null);
                break;
            default:
                out("error unknown call " + words[2]);
                return;
        }
        out(client + " issued " + tag);
    }

    private static Watcher.WatcherType watcherType(String word) {
        switch (word) {
            case "C":
                return Watcher.WatcherType.Children;
            case "D":
                return Watcher.WatcherType.Data;
            default:
                return Watcher.WatcherType.Any;
        }
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] words = line.trim().split(" ");
            try {
                if (words[0].equals("quit")) {
                    break;
                } else if (words.length >= 4 && words[1].equals("open")) {
                    open(words[0], words[2], Integer.parseInt(words[3]));
                } else if (words.length == 2 && words[1].equals("abandon")) {
                    HANDLES.get(words[0]).getTestable().injectSessionExpiration();
                } else if (words.length == 2 && words[1].equals("close")) {
                    // On its own thread: closing waits for the server's answer.
                    ZooKeeper zk = HANDLES.remove(words[0]);
                    new Thread(() -> {
                        try {
                            zk.close();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }).start();
                } else if (words.length >= 4) {
                    call(words[0], words[1], words);
                } else {
                    out("error cannot read: " + line);
                }
            } catch (Exception e) {
                out("error " + line + ": " + e);
            }
        }
        for (ZooKeeper zk : HANDLES.values()) {
            try {
                zk.close(100);
            } catch (Exception e) {
                // leaving anyway
            }
        }
        System.exit(0);
    }
}
