//! Faults: what the checker may make go wrong, each within the budget the
//! scenario sets.
//!
//! Timing is modelled by preconditions, not clocks. Each fault is one variant
//! of [`Fault`]; its precondition is in [`enabled`] and its effect in
//! [`Fault::apply`], and both are documented on the variant. Adding a fault
//! means adding a variant, a budget field, and those two arms.

use serde::{Deserialize, Serialize};

use crate::client::ConnState;
use crate::recipe::{ClientId, Incarnation, Recipe};
use crate::world::{Status, World, WorldState};

/// How many faults of each kind a scenario allows (and, in a state, how many
/// were spent).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FaultBudget {
    pub crash: u8,
    pub restart: u8,
    pub pause: u8,
    pub disconnect: u8,
    pub expire: u8,
    pub lose_reply: u8,
}

impl FaultBudget {
    /// What each kind of fault does, by the name scenario files use, in the
    /// order of [`FaultBudget::fields`].
    pub const MEANINGS: [(&'static str, &'static str); 6] = [
        (
            "crash",
            "the process dies; its session lives until the server expires it",
        ),
        (
            "restart",
            "a crashed client comes back: a new process with a new session",
        ),
        (
            "pause",
            "a long pause (a GC): the process takes no step until it resumes",
        ),
        (
            "disconnect",
            "the connection drops, its requests in flight applied or not",
        ),
        (
            "expire",
            "the server expires a disconnected or paused client's session",
        ),
        (
            "lose_reply",
            "the server applies a request and its reply is lost with the connection",
        ),
    ];

    /// The budget field of each kind, by the name scenario files use.
    pub fn fields(&self) -> [(&'static str, u8); 6] {
        let name = |kind: usize| FaultBudget::MEANINGS[kind].0;
        [
            (name(0), self.crash),
            (name(1), self.restart),
            (name(2), self.pause),
            (name(3), self.disconnect),
            (name(4), self.expire),
            (name(5), self.lose_reply),
        ]
    }

    fn count(&mut self, fault: &Fault) -> &mut u8 {
        match fault {
            Fault::Crash { .. } => &mut self.crash,
            Fault::Restart { .. } => &mut self.restart,
            Fault::Pause { .. } => &mut self.pause,
            Fault::Disconnect { .. } => &mut self.disconnect,
            Fault::Expire { .. } => &mut self.expire,
            Fault::LoseReply { .. } => &mut self.lose_reply,
        }
    }
}

/// A fault the checker may inject.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Fault {
    /// The process dies. Precondition: it is running or paused. Effect: its
    /// connection drops after the server received the first `applied` of its
    /// requests in flight (every count is explored), it forgets everything,
    /// and its session lives on until the server expires it
    /// (`SessionTimeout`).
    Crash { client: ClientId, applied: u8 },
    /// A new process for a crashed client: same client, no memory, a new
    /// session, its script from the start. Precondition: the client crashed.
    Restart { client: ClientId },
    /// The process stops taking steps (a long garbage collection) until it
    /// resumes; the server and the other clients go on. Precondition: it runs.
    Pause { client: ClientId },
    /// The connection drops. Precondition: the client is connected (and alive).
    /// Effect: the server received the first `applied` requests in flight
    /// (every count is explored) and applied them; their replies and all else
    /// unread are lost. The client notices at its next delivery
    /// (`CONNECTIONLOSS` for each request, then `Disconnected`), then
    /// reconnects, or learns its session expired.
    Disconnect { client: ClientId, applied: u8 },
    /// The server expires the session: its ephemerals are deleted, its watchers
    /// notified, its connection closed. Precondition: the session is alive and
    /// its client is disconnected (and knows it) or paused, since a live
    /// connected client keeps its session alive; with the scenario's
    /// `expire_anytime`, at any time (clocks that disagree).
    Expire { client: ClientId },
    /// The server applies the client's oldest request in flight and the reply
    /// is lost with the connection: the client sees `CONNECTIONLOSS`, then
    /// `Disconnected` (the seeds' lost create reply). Precondition: connected,
    /// with a request in flight.
    LoseReply { client: ClientId },
}

impl Fault {
    /// The fault in words, without the state it hits (the explorer's list of
    /// next steps); a trace says more ([`crate::trace::describe`]).
    pub fn words(&self) -> String {
        match *self {
            Fault::Crash { client, applied } => {
                format!("c{client} crashes (the server received {applied} of its requests in flight)")
            }
            Fault::Restart { client } => format!("c{client} restarts with a new session"),
            Fault::Pause { client } => format!("c{client} pauses"),
            Fault::Disconnect { client, applied } => format!(
                "c{client}'s connection drops (the server received {applied} of its requests in flight)"
            ),
            Fault::Expire { client } => format!("the server expires c{client}'s session"),
            Fault::LoseReply { client } => {
                format!("the server applies c{client}'s next request and the reply is lost")
            }
        }
    }

    pub fn client(&self) -> ClientId {
        match *self {
            Fault::Crash { client, .. }
            | Fault::Restart { client }
            | Fault::Pause { client }
            | Fault::Disconnect { client, .. }
            | Fault::Expire { client }
            | Fault::LoseReply { client } => client,
        }
    }

    /// Applies the fault and charges it to the budget.
    pub(crate) fn apply<R: Recipe>(&self, world: &World<R>, state: &mut WorldState<R::State>) {
        *state.spent.count(self) += 1;
        match *self {
            Fault::Crash { client, applied } => {
                let served = state.net.break_connection(client, usize::from(applied));
                world.applied(state, client, &served);
                state.net.forget_link(client);
                state.dead_sessions.insert(state.net.session(client));
                let process = &mut state.processes[client];
                process.status = Status::Crashed;
                process.recipe = world.recipe.init(Incarnation {
                    client,
                    restarts: process.restarts,
                });
                state.history.holding[client] = None;
            }
            Fault::Restart { client } => {
                state.net.open_session(client);
                let process = &mut state.processes[client];
                process.restarts += 1;
                process.status = Status::Running;
                process.commands_given = 0;
                process.recipe = world.recipe.init(Incarnation {
                    client,
                    restarts: process.restarts,
                });
            }
            Fault::Pause { client } => state.processes[client].status = Status::Paused,
            Fault::Disconnect { client, applied } => {
                let served = state.net.break_connection(client, usize::from(applied));
                world.applied(state, client, &served);
            }
            Fault::Expire { client } => {
                let fired = state.net.expire(client);
                world.wake(state, &fired);
            }
            Fault::LoseReply { client } => {
                let served = state.net.break_connection(client, 1);
                world.applied(state, client, &served);
            }
        }
    }
}

/// Appends every fault whose precondition holds and whose budget is not spent.
pub fn enabled<R: Recipe>(
    world: &World<R>,
    state: &WorldState<R::State>,
    out: &mut Vec<crate::world::Action>,
) {
    let budget = &world.budget;
    let spent = &state.spent;
    let mut push = |fault: Fault| out.push(crate::world::Action::Fault(fault));
    for client in 0..world.clients() {
        let status = state.processes[client].status;
        let alive = status != Status::Crashed;
        let link = &state.net.links[client];
        let connected = state.net.client(client).state() == ConnState::Connected && !link.broken;
        let in_flight = link.up.len() as u8;
        if alive && spent.crash < budget.crash {
            for applied in 0..=in_flight {
                push(Fault::Crash { client, applied });
            }
        }
        if status == Status::Crashed && spent.restart < budget.restart {
            push(Fault::Restart { client });
        }
        if status == Status::Running && spent.pause < budget.pause {
            push(Fault::Pause { client });
        }
        if alive && connected && spent.disconnect < budget.disconnect {
            for applied in 0..=in_flight {
                push(Fault::Disconnect { client, applied });
            }
        }
        let knows_disconnected = state.net.client(client).state() == ConnState::Disconnected;
        if alive
            && state.net.store.is_alive(state.net.session(client))
            && (status == Status::Paused || knows_disconnected || world.expire_anytime)
            && spent.expire < budget.expire
        {
            push(Fault::Expire { client });
        }
        if alive && connected && in_flight > 0 && spent.lose_reply < budget.lose_reply {
            push(Fault::LoseReply { client });
        }
    }
}
