//! `terminates`: every fair run ends; no client's recipe loops forever.
//!
//! Every recipe has this property, and it is what makes the others' words
//! true. The properties about "eventually" (no deadlock, a leader exists, a
//! revoke is honoured, every site decides, ...) are checked only on the
//! states where nothing but a fault can happen, the *quiescent* states
//! ([`World::is_quiescent`]). That is a liveness check only if every fair run
//! reaches one, and this module is where that is established, or refuted
//! with a run that never ends.
//!
//! # Fairness
//!
//! A run is *fair* if every progress action (every kind of step but a
//! fault, as each says in [`StepKind::PROGRESS`](crate::world::StepKind::PROGRESS):
//! an application's next command or a call's timeout, the server serving a
//! request, a client reading a message, a reconnect, a renewal, a resume, a
//! server applying a transaction, the expiry of a dead process's session)
//! that stays enabled from some point on is eventually taken: weak
//! fairness (TLC's `WF`, Spin's `-f`) for each progress action on its own.
//! Faults need never happen. Fairness per action rather than per client is
//! what the quiescent checks already assume (a state is quiescent only when
//! no progress action at all is enabled), and it is the stronger assumption,
//! so fewer runs are fair: a loop in which c0 keeps reading notifications
//! while the server never serves its request is starvation of `Serve(c0)`,
//! not a loop of the recipe, and is not reported.
//!
//! # Why checking quiescent states is sound, when it is
//!
//! 1. The rank ([`rank`]) is a function of the state, and the search checks
//!    on every step it takes ([`check_step`], from `World::next_state`)
//!    that the rank of the state after the step is strictly greater than
//!    the rank of the state before. If no step fails that check, no path the
//!    search took comes back to a state it left: the explored graph has no
//!    cycle. This holds whatever the rank's definition: a badly chosen rank
//!    fails the check more often, which costs a cycle search, never a
//!    wrong verdict.
//! 2. If moreover the search never reached the depth bound, it cut no path
//!    short: it took every step from every reachable state, so the graph is
//!    finite and point 1 covers all of it. A finite graph without a cycle
//!    has no infinite path, so every run is finite, and a fair finite run
//!    can only end where no progress action is enabled (otherwise that
//!    action stays enabled and is never taken): in a quiescent state.
//!    "Eventually P on every fair run" is then exactly "P in every
//!    quiescent state", which is what those properties check.
//! 3. If some step did not raise the rank, a cycle search runs
//!    ([`fair_lasso`], Tarjan's strongly connected components over the
//!    states within the depth bound, successors recomputed). A component
//!    admits a fair cycle exactly when no progress action is enabled in
//!    every one of its states without labelling one of its inner edges:
//!    then the cycle that walks through every state and every inner edge of
//!    the component takes, or passes a state that disables, every action.
//!    If an action is enabled in every state of the component and never
//!    taken inside it, every cycle of the component starves it, and no
//!    cycle there is fair (weak fairness needs no finer decomposition,
//!    unlike strong fairness). With no fair cycle, every fair run still ends
//!    in a quiescent state, and point 2 applies.
//!
//! Today no step of any world fails point 1: each part of the rank is the
//! world's (faults, commands, zxid, xids, links, processes), not a
//! recipe's, and the unit tests and the scenarios without a loop check
//! it on every step. The cycle search is there for what would break it
//! (sessions renewed in one process, say) and is tested on graphs of its
//! own; an ensemble's servers add to the zxid part (3 below) what they
//! have applied. The check's search tells states apart
//! by the 64-bit fingerprints of their classes ([`crate::reduce`]), on
//! which the rank is constant, so no cycle hides among merged states; this
//! module's own searches tell the states themselves apart. A recipe that loops
//! within one step, resending at once a request its client library fails
//! at once (`SESSIONEXPIRED` on a dead handle), reaches no state for this
//! search to see: `World::feed` stops it after
//! [`INPUTS_PER_STEP_MAX`](crate::world::INPUTS_PER_STEP_MAX) inputs with
//! a panic, which the check reports with a trace that replays to it.
//!
//! # What a fair lasso proves
//!
//! A lasso is a path from the initial state to a state `s` and a cycle from
//! `s` back to `s` along which every progress action enabled in all of the
//! cycle's states is taken. Repeating the cycle forever is a run: each step
//! is enabled where it is taken (the trace replays it with
//! `World::try_step`), and the run is fair, because an action enabled from
//! some point on is enabled in every state of the cycle and so is taken once
//! in each round. It never reaches a quiescent state (a cycle's states all
//! have an enabled step). So `terminates` is violated, proven, and the other
//! "eventually" verdicts say nothing about that run. No lasso contains a
//! fault: a fault raises the faults spent, which no step lowers.
//!
//! # What a growing path does and does not prove
//!
//! A recipe that loops by sending a request each round never repeats a
//! state: each round takes fresh xids, zxids and sequence numbers, so the
//! graph is infinite and no cycle search can close the loop. The search then
//! stops at the depth bound ([`Termination::depth_bound`]; `[check]
//! depth_bound` in a scenario, [`DEPTH_BOUND_DEFAULT`] if not given), which
//! the search can only reach on a path that long: so a path of that many
//! steps exists, and the check shows one ([`growing_path`]). Preferably a
//! fair one: a schedule that always takes the enabled progress action that
//! waited longest, which starves nothing. Its tail is then read for the
//! steps that repeat with a period *modulo counters* (the same action and
//! the same shape of state, read from its fields: phases, flags,
//! connections and queue lengths repeat; xids, zxids and sequence numbers
//! grow).
//!
//! It proves that a run of that length exists, nothing more: a longer
//! search might see the run end, and counters can change what a recipe
//! does (a sequence number that wraps). A growing path whose repeating part
//! is fair is shown as `violated?`, a likely loop, not a proven one; one
//! whose repeating part starves some action (another client could act all
//! along and never did) is no evidence of a loop at all, and `terminates`
//! stays `holds?`. Either way the search did not see every state, so every
//! other verdict it did not prove is unproven (`holds?`, `unreached?`).
//!
//! # A loop modulo counters
//!
//! A fair repeating part is more than a likely loop when one of its rounds
//! comes back to the state it began in with only its counters moved on in
//! their order: zxids, sessions, sequence numbers and xids renamed by an
//! order-preserving map, which [`crate::recount`] decides and argues. Such
//! a round repeats, each time with its counters moved on alike, for as long
//! as they reach, and starves nothing: `terminates` is violated, proven,
//! and the verdict says how many more rounds the counters allow and which
//! runs out first (a 32-bit sequence counter, a real client's 32-bit xids,
//! a real server's 32-bit zxid counter). A round that moves a sequence
//! counter narrower than the server's (`[store] sequence_bits`) is not
//! claimed: the model wraps it, what the recipe does past the wrap is the
//! model's to show, and a search that deep shows it. The other verdicts
//! stay as the search left them, unproven.

use std::sync::atomic::{AtomicU64, Ordering};

use serde::Deserialize;

use crate::client::ConnState;
use crate::properties::verdict::{Expected, Verdict};
use crate::text::{did_you_mean, quoted, shorten};
use crate::world::{Status, WorldState};

/// The property's name, in verdict tables and in a scenario's `[expect]`.
pub const TERMINATES: &str = "terminates";

/// What [`TERMINATES`] promises, as `list` and `new` say it.
pub const DECLARED: crate::properties::Declared = crate::properties::Declared {
    name: TERMINATES,
    meaning: "every fair run ends: no client's recipe loops forever",
    always: true,
    default: Some(true),
};

/// The steps a path may take before the search stops and calls it still
/// going, unless a scenario says otherwise (`[check] depth_bound`).
///
/// The deepest path of every scenario under `scenarios/` is at most 51
/// steps (`revocable_lock/guid_lose_reply`); a command costs 6 to
/// 12 steps (request, serve, read, for each of its requests, and the
/// waits), so 200 is four times today's deepest, room for about 20 commands
/// of the heaviest kind. A finite question deeper than that, which would be
/// beyond exhaustive reach for other reasons first, raises it in its file.
pub const DEPTH_BOUND_DEFAULT: usize = 200;

/// The largest `[check] depth_bound`: stateright's depth-first search keeps
/// the whole path with every state it has yet to visit, so its memory grows
/// with the square of the depth (at 1,000 steps, tens of megabytes).
pub const DEPTH_BOUND_MAX: usize = 1000;

/// A scenario file's `[check]` table: how deep the search goes.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct CheckSection {
    /// Any TOML value, so that a wrong one is refused with this module's
    /// words ([`Termination::parse`]) rather than serde's type names.
    depth_bound: Option<toml::Value>,
}

/// What a scenario asks of `terminates`: the depth bound of its search and
/// the verdict it expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Termination {
    pub depth_bound: usize,
    pub expected: Expected,
}

impl Default for Termination {
    fn default() -> Self {
        Termination {
            depth_bound: DEPTH_BOUND_DEFAULT,
            expected: Expected::proven(Verdict::Holds),
        }
    }
}

impl Termination {
    /// The `[check]` table and the `terminates` key of `[expect]` (taken out
    /// of the table, since it is every recipe's), validated; the key and
    /// what was expected if not.
    pub fn parse(
        check: &CheckSection,
        expected: Option<&str>,
    ) -> Result<Termination, (&'static str, String)> {
        let depth_bound = match &check.depth_bound {
            None => DEPTH_BOUND_DEFAULT,
            Some(toml::Value::Integer(steps)) if (1..=DEPTH_BOUND_MAX as i64).contains(steps) => {
                *steps as usize
            }
            Some(other) => {
                let shown = match other {
                    toml::Value::String(text) => quoted(text, 60),
                    other => shorten(&other.to_string(), 60),
                };
                return Err((
                    "check.depth_bound",
                    format!(
                        "{shown}; expected a whole number of steps from 1 to {DEPTH_BOUND_MAX} \
                         (how long a path may grow before the search calls it still going)"
                    ),
                ));
            }
        };
        let expected = match expected.map(|text| (text, Expected::parse(text, true))) {
            None => Expected::proven(Verdict::Holds),
            Some((_, Some(expected))) => expected,
            Some((other, None)) => {
                let hint = did_you_mean(other, &["holds", "violated", "violated?"])
                    .map(|near| format!("did you mean {near:?}? "))
                    .unwrap_or_default();
                return Err((
                    "expect.terminates",
                    format!(
                        "{}; {hint}expected holds or violated, or violated? for a likely loop a \
                         search can show but not prove (terminates is every recipe's \
                         always-property; holds if not given)",
                        quoted(other, 60)
                    ),
                ));
            }
        };
        Ok(Termination {
            depth_bound,
            expected,
        })
    }
}

/// The depth the search goes to: the scenario's bound, or `--max-depth` if
/// that is less.
pub fn depth_limit(max_depth: Option<usize>, termination: &Termination) -> usize {
    max_depth.map_or(termination.depth_bound, |max| {
        max.min(termination.depth_bound)
    })
}

// ---------------------------------------------------------------------------
// The rank.

/// A value that every step of the world raises: compared lexicographically,
/// most significant first.
///
/// 1. the faults spent: only a fault raises them, and nothing lowers them;
/// 2. the commands the applications have given: only `Invoke` raises them,
///    and only a fault (a restart) sets them back;
/// 3. the server's zxid, plus the transactions an ensemble's servers
///    have applied: every write, failed or not, and every session expiry
///    take a zxid, every `Apply` one transaction, and neither goes back;
/// 4. the xids the client libraries have handed out: every request takes
///    one, and only a fault (a restart's new client) starts again from 1;
/// 5. the work still pending, which every other step lowers: a request
///    queued while disconnected counts 3 (a reconnect sends it: 2), one on
///    its way to the server 2 (serving a read turns it into a reply: 1),
///    each message on its way to a client 1 (reading it: 0), a broken
///    connection its client has not noticed 2 (noticing it leaves a
///    disconnected client: 1), a disconnected client 1 (reconnecting: 0), a
///    paused process 1, a dead process's session the server has not
///    expired 1, a write or `sync` a server has yet to finish 1, and a
///    thread with a step of its own to take ([`crate::recipe::Recipe::ready`])
///    one half, so that reading a message that leaves one ready still
///    lowers the work. A step that lowers nothing here sends a request (4),
///    writes (3) or gives a command (2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rank(pub [u64; 5]);

/// The rank of a state ([`Rank`]).
pub fn rank<S, L>(state: &WorldState<S, L>) -> Rank {
    Rank(std::array::from_fn(|component| {
        rank_component(state, component)
    }))
}

/// Component `component` of [`rank`], each computed on its own, so that a
/// comparison stops at the first that differs ([`check_step`]: the
/// cheapest come first, and most steps raise one of them).
fn rank_component<S, L>(state: &WorldState<S, L>, component: usize) -> u64 {
    let net = &state.net;
    match component {
        0 => {
            let spent = &state.spent;
            (spent.any.iter().chain(&spent.aimed))
                .map(|spent| u64::from(*spent))
                .sum()
        }
        1 => (state.processes.iter())
            .map(|process| u64::from(process.commands_given))
            .sum(),
        2 => {
            // Each server's applies (none on one server, which keeps no log).
            let applied: u64 = (0..net.ensemble.servers())
                .map(|server| net.ensemble.applied(server))
                .sum();
            u64::try_from(net.store.zxid()).unwrap_or(0) + applied
        }
        3 => (net.clients.iter())
            .map(|client| u64::from(client.next_xid()))
            .sum(),
        _ => {
            let mut pending = state.dead_sessions.len() as u64;
            for (client, link) in net.clients.iter().zip(&net.links) {
                pending += 3 * client.queued().len() as u64
                    + 2 * link.up.len() as u64
                    + link.down.len() as u64
                    + 2 * u64::from(link.broken)
                    + u64::from(client.state() == ConnState::Disconnected);
            }
            pending += (net.ensemble.places.iter())
                .filter(|place| place.wait.is_some())
                .count() as u64;
            pending += (state.processes.iter())
                .map(|process| {
                    u64::from(process.status == Status::Paused) + u64::from(process.timer)
                })
                .sum::<u64>();
            // In halves: a thread's step of its own counts one, less than
            // the message whose reading may leave it ready.
            let ready = state.processes.iter().filter(|process| process.ready);
            u64::MAX - (2 * pending + ready.count() as u64)
        }
    }
}

/// Whether `after` ranks above `before`, comparing one component at a time.
pub(crate) fn raises_rank<S, L>(before: &WorldState<S, L>, after: &WorldState<S, L>) -> bool {
    for component in 0..5 {
        match rank_component(after, component).cmp(&rank_component(before, component)) {
            std::cmp::Ordering::Greater => return true,
            std::cmp::Ordering::Less => return false,
            std::cmp::Ordering::Equal => {}
        }
    }
    false
}

/// Counts a step of the search that did not raise the rank: called by
/// `World::next_state` on every step a check takes. Any count above zero
/// sends the check to look for a cycle ([`judge`]).
pub fn check_step<S, L>(unranked: &AtomicU64, before: &WorldState<S, L>, after: &WorldState<S, L>) {
    if !raises_rank(before, after) {
        unranked.fetch_add(1, Ordering::Relaxed);
    }
}
