/*
 * The guid lock (seed 001) as a Promela model: zoocheck's performance
 * anchor. The question is benches/spin/lock_guid_3.toml's (and _4's), asked
 * of Spin: CLIENTS clients acquire the lock once each and release it; at most one
 * client crashes, and the server expires its session at some later step; at
 * most one reply is lost after the server applied its request, and the
 * connection with it.
 *
 * The recipe (models/contender.rs, the reference):
 *   1. create /lock/<guid>-lock- (ephemeral, sequential);
 *   2. list /lock without a watch; if ours is the lowest, hold;
 *   3. else exists() with a watch on the next lower node; if it is gone, go
 *      to 2, else wait for its event, then go to 2;
 *   4. release: delete our node.
 * A lost create reply is recovered by listing for our GUID and creating
 * again only if no node carries it; any other lost call is sent again (a
 * lost delete's retry answers NONODE: done). Disconnected suspends a holder
 * (it may have lost the lock) and SyncConnected makes it list again.
 *
 * The world, step for step as zoocheck's (src/world.rs): the application
 * gives a client its next command; the server serves one client's oldest
 * request, putting its watch events on the watchers' links before the
 * reply; a client library takes one message off its link (or notices that
 * its connection is gone: CONNECTIONLOSS for its call in flight, then
 * Disconnected) and the recipe reacts; a disconnected client reconnects,
 * sends what it queued, and hears of the watch events it missed
 * (SetWatches); the server expires a crashed client's session.
 *
 * Kept, since zoocheck's state has them: the zxid of every write (and of a
 * session's close), each node's czxid, and the last zxid each client saw.
 * Left out, each making Spin's job no harder than zoocheck's: the rest of
 * Stat; node names (a node is its sequence number and its owner); a
 * listing's answer is what the recipe takes from it (the next lower live
 * node, or our GUID's node), which the server computes.
 *
 * Properties: mutual exclusion (an assertion where a client starts to hold)
 * and no deadlock (Spin's invalid end states: every client ends, crashed or
 * released). benches/spin/run checks it beside zoocheck.
 */

#ifndef CLIENTS
#define CLIENTS 3
#endif

#define NONE 255
/* Sequence numbers: one create per client, and a second at most after a
 * lost create whose recovery found nothing (it cannot: a lost reply's
 * create was applied); one spare. */
#define NODES (CLIENTS + 1)

mtype = { CREATE, RECOVER, LIST, EXISTS, DELETE,   /* calls */
          CREATED, FOUND, PRED, YES, NO, DONE,       /* their answers */
          EVENT };                                    /* a watch fired */

/* The server's tree: node k (sequence number k) is alive and owned by a
 * client's session; watchers[k] is a bit per client watching it. */
bool alive[NODES];
byte owner[NODES];
byte watchers[NODES];
byte next_seq;
/* The server's last transaction, as in every reply, and each node's
 * creating one (its czxid); each client library keeps the last it saw. */
byte zxid;
byte czxid[NODES];
byte last_zxid[CLIENTS];

/* Links: a client has at most one call outstanding. */
chan up[CLIENTS] = [1] of { mtype, byte };
chan down[CLIENTS] = [CLIENTS + 2] of { mtype, byte, byte };

/* The client library: connected, or cut off (broken: the server has
 * dropped the connection and the client has not noticed yet); a call made
 * while cut off waits in queued; missed is a bit per node whose watch
 * fired while the client was cut off. */
bool connected[CLIENTS];
bool broken[CLIENTS];
mtype queued_op[CLIENTS];
byte queued_arg[CLIENTS];
bool queued[CLIENTS];
byte missed[CLIENTS];

/* Faults, each at most once. */
bool lose_budget = 1;
bool crash_budget = 1;
bool crashed[CLIENTS];
byte crashed_client = NONE;
bool expired;

/* Mutual exclusion, on beliefs. */
byte holding;

/* Node k is deleted: its watchers hear of it, on their link or, cut off,
 * at their reconnect (a crashed client hears nothing). */
inline delete_node(k) {
    alive[k] = 0;
    c = 0;
    do
    :: c < CLIENTS ->
        if
        :: (watchers[k] & (1 << c)) && !crashed[c] && connected[c] && !broken[c] ->
            down[c]!EVENT,k,zxid
        :: (watchers[k] & (1 << c)) && !crashed[c] && !(connected[c] && !broken[c]) ->
            missed[c] = missed[c] | (1 << k)
        :: else
        fi;
        c++
    :: else -> break
    od;
    watchers[k] = 0
}

/* The server serves client i's oldest request: it applies it, then sends
 * the reply, or (once) loses it and the connection with it. */
proctype server(byte i) {
    mtype m;
    byte a, k, found, c;
end:
    do
    :: atomic {
        up[i]?m,a ->
        if
        :: crashed[i] && expired -> goto served   /* a dead session's */
        :: else
        fi;
        found = NONE;
        if
        :: m == CREATE ->
            zxid++;
            czxid[next_seq] = zxid;
            alive[next_seq] = 1;
            owner[next_seq] = i;
            found = next_seq;
            next_seq++
        :: m == RECOVER ->
            k = 0;
            do
            :: k < next_seq && alive[k] && owner[k] == i -> found = k; break
            :: k < next_seq && !(alive[k] && owner[k] == i) -> k++
            :: k >= next_seq -> break
            od
        :: m == LIST ->
            /* the next lower live node, if any */
            k = a;
            do
            :: k > 0 && alive[k - 1] -> found = k - 1; break
            :: k > 0 && !alive[k - 1] -> k--
            :: k == 0 -> break
            od
        :: m == EXISTS ->
            if
            :: alive[a] -> watchers[a] = watchers[a] | (1 << i); found = a
            :: else
            fi
        :: m == DELETE ->
            if
            :: alive[a] -> zxid++; delete_node(a)
            :: else
            fi
        fi;
        if
        :: crashed[i] -> skip   /* nobody reads it */
        :: !crashed[i] && lose_budget -> lose_budget = 0; broken[i] = 1
        :: !crashed[i] ->
            if
            :: m == CREATE -> down[i]!CREATED,found,zxid
            :: m == RECOVER -> down[i]!FOUND,found,zxid
            :: m == LIST -> down[i]!PRED,found,zxid
            :: m == EXISTS && found != NONE -> down[i]!YES,a,zxid
            :: m == EXISTS && found == NONE -> down[i]!NO,a,zxid
            :: m == DELETE -> down[i]!DONE,a,zxid
            fi
        fi;
served: skip
       }
    od
}

/* The server expires a crashed client's session at some step after the
 * crash: its node goes. */
active proctype expiry() {
    byte k, c;
end:
    do
    :: atomic {
        crashed_client != NONE && !expired ->
        expired = 1;
        zxid++;   /* the session's close is a transaction */
        k = 0;
        do
        :: k < next_seq ->
            if
            :: alive[k] && owner[k] == crashed_client -> delete_node(k)
            :: else
            fi;
            k++
        :: else -> break
        od
       }
    od
}

/* A call: on the link, or queued while cut off. */
inline call(op, arg) {
    if
    :: connected[me] && !broken[me] -> up[me]!op,arg
    :: else -> queued[me] = 1; queued_op[me] = op; queued_arg[me] = arg
    fi;
    calling = op
}

proctype client(byte me) {
    mtype m, calling;
    byte mine = NONE, pred = NONE, a, k, z;
    bool held = 0, suspended = 0, waiting = 0, done = 0;
    {
        /* acquire */
        atomic { calling = CREATE; call(CREATE, 0) }

        do
        /* The library takes a message off the link, and the recipe reacts. */
        :: atomic {
            down[me]?m,a,z ->
            last_zxid[me] = z;
            if
            :: m == EVENT ->
                if
                :: waiting && a == pred -> waiting = 0; call(LIST, mine)
                :: else
                fi
            :: m == CREATED -> mine = a; call(LIST, mine)
            :: m == FOUND && a != NONE -> mine = a; call(LIST, mine)
            :: m == FOUND && a == NONE -> call(CREATE, 0)
            :: m == PRED && a == NONE ->
                held = 1; holding++; assert(holding <= 1); calling = 0
            :: m == PRED && a != NONE -> pred = a; call(EXISTS, pred)
            :: m == YES -> waiting = 1; calling = 0
            :: m == NO -> call(LIST, mine)
            :: m == DONE -> done = 1; calling = 0
            fi
           }
        /* The library notices its connection is gone: CONNECTIONLOSS for
         * the call in flight, which the recipe makes again (queued), then
         * Disconnected, which suspends a holder. */
        :: atomic {
            broken[me] && empty(down[me]) ->
            broken[me] = 0;
            connected[me] = 0;
            if
            :: calling == CREATE -> call(RECOVER, 0)
            :: calling == RECOVER -> call(RECOVER, 0)
            :: calling == LIST -> call(LIST, mine)
            :: calling == EXISTS -> call(EXISTS, pred)
            :: calling == DELETE -> call(DELETE, mine)
            :: else
            fi;
            if
            :: held -> held = 0; holding--; suspended = 1
            :: else
            fi
           }
        /* It reconnects: SetWatches fires the watches it missed, and what
         * it queued goes out; SyncConnected has a suspended holder list
         * again. */
        :: atomic {
            !connected[me] ->
            connected[me] = 1;
            k = 0;
            do
            :: k < NODES ->
                if
                :: missed[me] & (1 << k) -> down[me]!EVENT,k,zxid
                :: else
                fi;
                k++
            :: else -> break
            od;
            missed[me] = 0;
            if
            :: queued[me] -> queued[me] = 0; up[me]!queued_op[me],queued_arg[me]
            :: else
            fi;
            if
            :: suspended -> suspended = 0; call(LIST, mine)
            :: else
            fi
           }
        /* The application releases. */
        :: atomic { held -> held = 0; holding--; call(DELETE, mine) }
        :: done && connected[me] && empty(down[me]) -> break
        od
    } unless {
        atomic {
            crash_budget ->
            crash_budget = 0;
            crashed[me] = 1;
            crashed_client = me;
            if
            :: held -> held = 0; holding--
            :: else
            fi
        }
    }
}

init {
    byte i;
    atomic {
        i = 0;
        do
        :: i < CLIENTS -> connected[i] = 1; run server(i); run client(i); i++
        :: else -> break
        od
    }
}
