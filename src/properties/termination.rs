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
//! A run is *fair* if every progress action ([`Action::is_progress`]: an
//! application's next command, the server serving a request, a client
//! reading a message, a reconnect, a resume, the expiry of a dead process's
//! session) that stays enabled from some point on is eventually taken: weak
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

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Deserialize;
use stateright::Model;

use crate::check::{Expected, Limit, Outcome, PropertyOutcome, Verdict};
use crate::client::ConnState;
use crate::explore::Control;
use crate::recipe::{ClientId, Recipe};
use crate::text::{did_you_mean, quoted, shorten};
use crate::trace::{picture, replay, Stop, Trace};
use crate::world::{Action, Status, World, WorldState};

use super::and_list;

/// The property's name, in verdict tables and in a scenario's `[expect]`.
pub const TERMINATES: &str = "terminates";

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

/// What a table says under its rows of a `terminates` the search could not
/// decide, when it has a path to show for it: a path that reached the depth
/// bound but starves some action, so it is no evidence of a loop.
pub fn note(outcome: &Outcome) -> Option<String> {
    let property = outcome
        .properties
        .iter()
        .find(|property| property.name == TERMINATES)?;
    if property.actual != Verdict::Holds || property.proven {
        return None;
    }
    property.trace.as_ref()?.verdict.clone()
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
///    expired 1, and a write or `sync` a server has yet to finish 1. A step that lowers nothing here sends a request (4),
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
            u64::MAX - pending
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

// ---------------------------------------------------------------------------
// The verdict.

/// The verdict on `terminates` for a check of `world` whose search ran with
/// `control` and stopped at `stopped` (if it did): a fair lasso if some step
/// did not raise the rank and the graph has a fair cycle; else, if the
/// search reached the depth bound, the path that did; else `holds`, proven
/// when the search saw every state. `go_on` is asked, as the check's own
/// searches ask it, whether time and memory allow going on.
pub fn judge<R: Recipe>(
    world: &World<R>,
    control: &Control<R>,
    termination: &Termination,
    stopped: Option<Limit>,
    panicked: bool,
    go_on: &mut dyn FnMut(usize) -> bool,
) -> PropertyOutcome {
    let outcome = |actual, proven, trace| PropertyOutcome {
        name: TERMINATES,
        expected: termination.expected,
        actual,
        proven,
        trace,
        seed: None,
        shrunk: None,
    };
    if panicked {
        return outcome(Verdict::Holds, false, None);
    }
    // A search of this module that panics (the model, in a state the check
    // did not reach) or runs out of time or memory decides nothing. Its
    // loops close on a state itself, not on one of its class, so that a
    // lasso replays to the state it left: it searches the plain world,
    // without reductions.
    let world = world.clone();
    let mut cycles_unknown = false;
    if control.unranked_steps.load(Ordering::Relaxed) > 0 {
        let found = catch_unwind(AssertUnwindSafe(|| {
            fair_lasso(
                &world,
                &|action: &Action| action.is_progress(),
                termination.depth_bound,
                go_on,
            )
        }));
        match found {
            Ok(Ok(Some(lasso))) => {
                return outcome(Verdict::Violated, true, Some(lasso_trace(&world, &lasso)));
            }
            Ok(Ok(None)) => {}
            _ => cycles_unknown = true,
        }
    }
    if stopped == Some(Limit::DepthBound) {
        let found = catch_unwind(AssertUnwindSafe(|| {
            growing_path(&world, termination.depth_bound, go_on)
        }));
        return match found {
            Ok(Ok(Some(path))) => {
                let (trace, fair) = growing_trace(&world, &path, termination.depth_bound);
                let actual = if fair {
                    Verdict::Violated
                } else {
                    Verdict::Holds
                };
                outcome(actual, false, Some(trace))
            }
            _ => outcome(Verdict::Holds, false, None),
        };
    }
    outcome(Verdict::Holds, stopped.is_none() && !cycles_unknown, None)
}

/// Replays a saved `terminates` counterexample: `Ok` with the words of its
/// verdict if `actions` again end in a fair loop (back to the state after
/// some earlier step, starving nothing) or on a path still going whose end
/// repeats fairly modulo counters; `Err` with why not.
pub fn replay_loop<R: Recipe>(
    world: &World<R>,
    actions: &[Action],
    depth_bound: usize,
) -> Result<String, String> {
    let replayed = replay(world, actions);
    match &replayed.stop {
        None => {}
        Some(Stop::Diverged { step, action }) => {
            return Err(format!(
                "step {step} (`{}`) is not possible there any more",
                world.format_action(action)
            ))
        }
        Some(Stop::Panicked { step, message, .. }) => {
            return Err(format!("the model panicked at step {step}: {message}"))
        }
    }
    let last = replayed.last();
    let back = replayed.states[..actions.len()]
        .iter()
        .rposition(|state| state == last);
    if let Some(start) = back {
        let lasso = Lasso {
            prefix: actions[..start].to_vec(),
            cycle: actions[start..].to_vec(),
        };
        let trace = lasso_trace(world, &lasso);
        let verdict = trace.verdict.unwrap_or_default();
        return if trace.replays {
            Ok(verdict)
        } else {
            Err(format!(
                "its last state is the state after step {start}, but the loop starves an \
                 action that stays possible all along it"
            ))
        };
    }
    let (trace, fair) = growing_trace(world, actions, depth_bound);
    let verdict = trace.verdict.unwrap_or_default();
    if fair && trace.replays {
        Ok(verdict)
    } else {
        Err(verdict)
    }
}

/// The trace of a lasso: its prefix, then its loop, which ends where it
/// began. It replays if every step is enabled where it is taken, the loop
/// comes back to its first state, and it starves no progress action.
fn lasso_trace<R: Recipe>(world: &World<R>, lasso: &Lasso<Action>) -> Trace {
    let actions: Vec<Action> = lasso.prefix.iter().chain(&lasso.cycle).cloned().collect();
    let replayed = replay(world, &actions);
    let start = lasso.prefix.len();
    let last = replayed.last();
    let closes =
        replayed.stop.is_none() && !lasso.cycle.is_empty() && replayed.states[start] == *last;
    let loop_states = replayed.states.get(start..).unwrap_or_default();
    let starving = starved(world, loop_states, &lasso.cycle);
    let replays = closes && starving.is_empty();
    let back_to = if start == 0 {
        "the initial state".to_string()
    } else {
        format!("the state after step {start}")
    };
    let verdict = format!(
        "VIOLATED {TERMINATES}: {} forever: steps {}-{} repeat, back to {back_to} ({}); \
         every action that stays possible along them is taken in them, so repeating \
         them is a fair run that never ends",
        looping(&lasso.cycle),
        start + 1,
        actions.len(),
        phase_words(world, loop_states, &lasso.cycle)
    );
    Trace {
        property: TERMINATES,
        quiescent: world.is_quiescent(last),
        verdict: Some(verdict),
        last_state: picture(last),
        steps: replayed.steps,
        actions,
        replays,
        // Its prefix is a shortest path to the loop's component: the star
        // and "not known to be the shortest" mean that a search for the
        // shortest stopped at a limit, which this one did not.
        shortest: true,
    }
}

/// The trace of a path that reached the depth bound, and whether its
/// repeating part is fair (a likely loop).
fn growing_trace<R: Recipe>(world: &World<R>, path: &[Action], bound: usize) -> (Trace, bool) {
    let replayed = replay(world, path);
    let last = replayed.last();
    let still_going = !world.is_quiescent(last);
    let shapes: Vec<(Action, Shape<R::State>)> = path
        .iter()
        .zip(replayed.states.iter().skip(1))
        .map(|(action, state)| (action.clone(), shape(world, state)))
        .collect();
    let head = format!(
        "a path of {} steps{} {}",
        path.len(),
        if path.len() == bound {
            " (the depth bound)"
        } else {
            ""
        },
        if still_going {
            "and still going"
        } else {
            "that ends where nothing but a fault can happen"
        }
    );
    let caveat = "a growing path is not a proof: no state repeats (each round takes fresh \
                  xids, zxids or sequence numbers), so the search cannot close the loop, and \
                  a deeper one might see it end";
    let round_words = |repeat: &Repeat| {
        let round = repeat.from - 1..repeat.from - 1 + repeat.period;
        format!(
            "from step {} to {}, every {} steps repeat modulo counters ({})",
            repeat.from,
            repeat.to,
            repeat.period,
            phase_words(
                world,
                &replayed.states[round.start..=round.end],
                &path[round]
            )
        )
    };
    let starving_words = |repeat: &Repeat| {
        let starving = starved(
            world,
            &replayed.states[repeat.from - 1..=repeat.to],
            &path[repeat.from - 1..repeat.to],
        );
        let names: Vec<String> = starving
            .iter()
            .map(|action| format!("`{}`", world.format_action(action)))
            .collect();
        match names.as_slice() {
            [] => None,
            [one] => Some(format!("{one} stays possible all along and never happens")),
            _ => Some(format!(
                "{} stay possible all along and never happen",
                and_list(&names)
            )),
        }
    };
    let (verdict, fair) = match (repetition(&shapes), longest_repetition(&shapes)) {
        (Some(repeat), _) => {
            let what = round_words(&repeat);
            let actions = &path[repeat.from - 1..repeat.to];
            match starving_words(&repeat) {
                None => {
                    let clients = actors(actions);
                    (
                        format!(
                            "VIOLATED? {TERMINATES}: {head}: {} likely {} forever: {what}, and \
                             every action that stays possible along them is taken in them, a \
                             fair loop; {caveat}",
                            and_list(&clients),
                            if clients.len() == 1 { "loops" } else { "loop" },
                        ),
                        true,
                    )
                }
                Some(starving) => (
                    format!(
                        "UNPROVEN {TERMINATES}: {head}, but not a fair one: {what} while \
                         {starving}; a fair run may end, so this is no evidence of a loop"
                    ),
                    false,
                ),
            }
        }
        (None, Some(repeat)) => {
            let starving = starving_words(&repeat)
                .map(|starving| format!(" while {starving}"))
                .unwrap_or_default();
            (
                format!(
                    "UNPROVEN {TERMINATES}: {head}, but its end does not repeat: {}{starving}, \
                     then the run moves on; it may be a long run that ends: raise \
                     `[check] depth_bound` to see",
                    round_words(&repeat)
                ),
                false,
            )
        }
        (None, None) => (
            format!(
                "UNPROVEN {TERMINATES}: {head}, and no part of it repeats modulo counters, \
                 so it may be a long run that ends: raise `[check] depth_bound` to see"
            ),
            false,
        ),
    };
    let trace = Trace {
        property: TERMINATES,
        quiescent: !still_going,
        verdict: Some(verdict),
        last_state: picture(last),
        replays: replayed.stop.is_none() && still_going && path.len() == bound,
        steps: replayed.steps,
        actions: path.to_vec(),
        shortest: false,
    };
    (trace, fair)
}

/// The progress actions enabled in every one of `states` and taken by none
/// of `actions`: what a loop through them starves.
fn starved<R: Recipe>(
    world: &World<R>,
    states: &[WorldState<R::State, R::Log>],
    actions: &[Action],
) -> Vec<Action> {
    let Some(first) = states.first() else {
        return Vec::new();
    };
    let enabled = |state: &WorldState<R::State, R::Log>| {
        let mut all = Vec::new();
        world.enabled(state, &mut all);
        all.retain(Action::is_progress);
        all
    };
    let mut always = enabled(first);
    for state in &states[1..] {
        let here = enabled(state);
        always.retain(|action| here.contains(action));
    }
    always.retain(|action| !actions.contains(action));
    always
}

/// The client an action is of (the server's serving of a client's request
/// is that client's), if any.
fn actor(action: &Action) -> Option<ClientId> {
    match action {
        Action::Invoke(c)
        | Action::Serve(c)
        | Action::Deliver(c)
        | Action::Reconnect(c)
        | Action::Renew(c)
        | Action::Resume(c)
        | Action::Timeout(c) => Some(*c),
        Action::SessionTimeout(_) | Action::Apply(_) => None,
        Action::Fault(fault) => Some(fault.client),
    }
}

/// The clients that act in `actions`, in order: `c1`.
fn actors(actions: &[Action]) -> Vec<String> {
    let mut clients: Vec<ClientId> = actions.iter().filter_map(actor).collect();
    clients.sort_unstable();
    clients.dedup();
    clients.into_iter().map(|c| format!("c{c}")).collect()
}

/// `c1 loops`, `c0 and c1 loop`.
fn looping(cycle: &[Action]) -> String {
    let clients = actors(cycle);
    let verb = if clients.len() == 1 { "loops" } else { "loop" };
    format!("{} {verb}", and_list(&clients))
}

/// The phases each acting client goes through in `states` (a loop's, from
/// its first state to its last): `c1 goes Creating, Listing, Abandoning and
/// round again`.
fn phase_words<R: Recipe>(
    world: &World<R>,
    states: &[WorldState<R::State, R::Log>],
    actions: &[Action],
) -> String {
    let mut clients: Vec<ClientId> = actions.iter().filter_map(actor).collect();
    clients.sort_unstable();
    clients.dedup();
    let each: Vec<String> = clients
        .into_iter()
        .map(|client| {
            let mut phases: Vec<String> = Vec::new();
            for state in states {
                let phase = phase_name(world, &state.processes[client].recipe);
                if phases.last() != Some(&phase) {
                    phases.push(phase);
                }
            }
            let round = phases.len() > 1 && phases.first() == phases.last();
            if round {
                phases.pop();
            }
            match phases.as_slice() {
                [one] => format!("c{client} stays {one}"),
                _ if round => format!("c{client} goes {} and round again", phases.join(", ")),
                _ => format!("c{client} goes {}", phases.join(", ")),
            }
        })
        .collect();
    each.join("; ")
}

/// A client's phase by the recipe's names for it, or its state in words
/// with every number masked where the recipe names no phases.
fn phase_name<R: Recipe>(world: &World<R>, state: &R::State) -> String {
    let names = world.shared().phase_names();
    let bits = world.shared().phases(state);
    let named: Vec<&str> = names
        .iter()
        .enumerate()
        .filter(|(bit, _)| bits & 1 << bit != 0)
        .map(|(_, name)| *name)
        .collect();
    if named.is_empty() {
        mask_digits(&state.to_string())
    } else {
        named.join("+")
    }
}

/// `text` with every run of digits replaced by `#`: counters masked.
fn mask_digits(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii_digit() {
            if !out.ends_with('#') {
                out.push('#');
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// What of a state a round of a loop brings back when the round only takes
/// fresh numbers (xids, zxids, sequence numbers, sessions): each client's
/// state by the recipe's own account ([`Recipe::shape`]: its phases, and
/// the flags and sizes that steer it), what it believes it holds, its process, connection, commands given and the
/// lengths of its links, then the faults spent and how many sessions died.
/// Read from the state's fields, never from its words: a rendering with its
/// digits masked told a name past a counter's wrap (`lock--000000004`) from
/// one before it, and `c0` from `c1`. A recipe that names no phases is
/// shaped by its whole state, counters and all, so that no round of it
/// repeats: the search then claims no likely loop it cannot see.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Shape<S> {
    clients: Vec<ClientShape<S>>,
    spent: crate::world::faults::Spent,
    dead_sessions: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct ClientShape<S> {
    /// The recipe's own account ([`Recipe::shape`]).
    recipe: u64,
    /// The recipe's state itself, where the recipe names no phases.
    unnamed: Option<S>,
    holds: Option<crate::recipe::Role>,
    status: Status,
    connection: ConnState,
    commands_given: u8,
    links: (usize, usize, bool),
}

fn shape<R: Recipe>(world: &World<R>, state: &WorldState<R::State, R::Log>) -> Shape<R::State> {
    let named = !world.shared().phase_names().is_empty();
    let clients = (state.processes.iter().enumerate())
        .map(|(client, process)| {
            let link = &state.net.links[client];
            ClientShape {
                recipe: world.recipe(client).shape(&process.recipe),
                unnamed: (!named).then(|| process.recipe.clone()),
                holds: state.history.holding[client].map(|tenure| tenure.role),
                status: process.status,
                connection: state.net.client(client).state(),
                commands_given: process.commands_given,
                links: (link.up.len(), link.down.len(), link.broken),
            }
        })
        .collect();
    Shape {
        clients,
        spent: state.spent,
        dead_sessions: state.dead_sessions.len(),
    }
}

/// Where a path repeats: steps `from` to `to` (from 1) repeat every
/// `period` steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Repeat {
    pub from: usize,
    pub to: usize,
    pub period: usize,
}

/// The shortest period with which the end of `steps` repeats at least three
/// times, and how far back the repetition goes; `None` if no period does.
/// Three rounds, not two, so that a coincidence of two similar stretches is
/// not taken for a loop.
pub fn repetition<K: PartialEq>(steps: &[K]) -> Option<Repeat> {
    let len = steps.len();
    (1..=len / 3).find_map(|period| {
        let matching = (period..len)
            .rev()
            .take_while(|&i| steps[i] == steps[i - period])
            .count();
        (matching >= 2 * period).then(|| Repeat {
            from: len - matching - period + 1,
            to: len,
            period,
        })
    })
}

/// The shortest period with which some stretch of `steps` repeats at least
/// three times (the longest such stretch, the first of equals), wherever it
/// is; `None` if none does.
pub fn longest_repetition<K: PartialEq>(steps: &[K]) -> Option<Repeat> {
    (1..=steps.len() / 3).find_map(|period| {
        // The longest run of steps equal to the one a period before, by
        // its last index and length.
        let mut best: Option<(usize, usize)> = None;
        let mut run = 0;
        for i in period..steps.len() {
            run = if steps[i] == steps[i - period] {
                run + 1
            } else {
                0
            };
            if run > 0 && best.is_none_or(|(_, longest)| run > longest) {
                best = Some((i, run));
            }
        }
        let (last, run) = best?;
        (run >= 2 * period).then(|| Repeat {
            from: last + 2 - run - period,
            to: last + 1,
            period,
        })
    })
}

// ---------------------------------------------------------------------------
// Searches, over any stateright model.

fn fingerprint<T: Hash>(value: &T) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// A run that never ends: `prefix` from the initial state to a state, then
/// `cycle` from that state back to it, forever.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lasso<A> {
    pub prefix: Vec<A>,
    pub cycle: Vec<A>,
}

/// The first fair lasso of `model` in Tarjan's order of strongly connected
/// components (over states at most `depth_bound` steps deep, in the model's
/// action order), if any: its prefix a shortest path to the component, its
/// cycle one that starves no action `progress` calls fair-scheduled.
/// `Err(())` if `go_on` said stop.
///
/// Only fingerprints and the states of the components not yet completed
/// are kept; successors are recomputed. In an acyclic graph each state is a
/// component of its own and leaves the stack as soon as its search ends.
#[allow(clippy::result_unit_err)]
pub fn fair_lasso<M>(
    model: &M,
    progress: &dyn Fn(&M::Action) -> bool,
    depth_bound: usize,
    go_on: &mut dyn FnMut(usize) -> bool,
) -> Result<Option<Lasso<M::Action>>, ()>
where
    M: Model,
    M::State: Clone + Hash + PartialEq,
    M::Action: Clone + PartialEq,
{
    struct Frame<S, A> {
        state: S,
        fingerprint: u64,
        index: usize,
        low: usize,
        actions: Vec<A>,
        next: usize,
    }
    let Some(init) = model.init_states().into_iter().next() else {
        return Ok(None);
    };
    let mut indices: HashMap<u64, usize> = HashMap::new();
    let mut on_stack: HashSet<u64> = HashSet::new();
    let mut stack: Vec<(u64, M::State)> = Vec::new();
    let mut frames: Vec<Frame<M::State, M::Action>> = Vec::new();
    let visit = |state: M::State,
                 fingerprint: u64,
                 depth: usize,
                 indices: &mut HashMap<u64, usize>,
                 on_stack: &mut HashSet<u64>,
                 stack: &mut Vec<(u64, M::State)>,
                 frames: &mut Vec<Frame<M::State, M::Action>>| {
        let index = indices.len();
        indices.insert(fingerprint, index);
        on_stack.insert(fingerprint);
        stack.push((fingerprint, state.clone()));
        let mut actions = Vec::new();
        if depth < depth_bound {
            model.actions(&state, &mut actions);
        }
        frames.push(Frame {
            state,
            fingerprint,
            index,
            low: index,
            actions,
            next: 0,
        });
    };
    let init_fingerprint = fingerprint(&init);
    visit(
        init,
        init_fingerprint,
        0,
        &mut indices,
        &mut on_stack,
        &mut stack,
        &mut frames,
    );
    while let Some(top) = frames.last_mut() {
        if top.next < top.actions.len() {
            let action = top.actions[top.next].clone();
            top.next += 1;
            let Some(next) = model.next_state(&top.state, action) else {
                continue;
            };
            let next_fingerprint = fingerprint(&next);
            match indices.get(&next_fingerprint) {
                Some(&index) => {
                    if on_stack.contains(&next_fingerprint) {
                        top.low = top.low.min(index);
                    }
                }
                None => {
                    if indices.len() % 1024 == 0 && !go_on(indices.len()) {
                        return Err(());
                    }
                    let depth = frames.len();
                    visit(
                        next,
                        next_fingerprint,
                        depth,
                        &mut indices,
                        &mut on_stack,
                        &mut stack,
                        &mut frames,
                    );
                }
            }
            continue;
        }
        let frame = frames.pop().expect("the loop is on a frame");
        if let Some(parent) = frames.last_mut() {
            parent.low = parent.low.min(frame.low);
        }
        if frame.low != frame.index {
            continue;
        }
        let mut members = Vec::new();
        loop {
            let (member, state) = stack.pop().expect("a component's root is on the stack");
            on_stack.remove(&member);
            members.push((member, state));
            if member == frame.fingerprint {
                break;
            }
        }
        members.reverse();
        let component = Component::of(model, progress, members);
        if !component.is_cycle() || !component.starved().is_empty() {
            continue;
        }
        let Some((prefix, start)) = bfs_path(
            model,
            |_, fingerprint| component.position.contains_key(&fingerprint),
            go_on,
        )?
        else {
            continue;
        };
        let start = component.position[&fingerprint(&start)];
        return Ok(Some(Lasso {
            prefix,
            cycle: component.fair_cycle(start),
        }));
    }
    Ok(None)
}

/// A strongly connected component: where each of its states is (by
/// fingerprint), the progress actions enabled in each, and its inner edges
/// (action, target).
struct Component<A> {
    position: HashMap<u64, usize>,
    enabled: Vec<Vec<A>>,
    edges: Vec<Vec<(A, usize)>>,
}

impl<A: Clone + PartialEq> Component<A> {
    fn of<M>(model: &M, progress: &dyn Fn(&A) -> bool, members: Vec<(u64, M::State)>) -> Self
    where
        M: Model<Action = A>,
        M::State: Hash,
    {
        let position: HashMap<u64, usize> = members
            .iter()
            .enumerate()
            .map(|(i, (fingerprint, _))| (*fingerprint, i))
            .collect();
        let mut enabled = Vec::with_capacity(members.len());
        let mut edges = Vec::with_capacity(members.len());
        for (_, state) in &members {
            let mut actions = Vec::new();
            model.actions(state, &mut actions);
            let mut inner = Vec::new();
            for action in &actions {
                let Some(next) = model.next_state(state, action.clone()) else {
                    continue;
                };
                if let Some(&j) = position.get(&fingerprint(&next)) {
                    inner.push((action.clone(), j));
                }
            }
            actions.retain(|action| progress(action));
            enabled.push(actions);
            edges.push(inner);
        }
        Component {
            position,
            enabled,
            edges,
        }
    }

    /// Whether it has a cycle at all: more than one state, or a step from
    /// its one state to itself.
    fn is_cycle(&self) -> bool {
        self.edges.iter().any(|inner| !inner.is_empty())
    }

    /// The progress actions enabled in every state and never taken inside:
    /// what every cycle of the component starves.
    fn starved(&self) -> Vec<A> {
        let mut always = self.enabled[0].clone();
        always.retain(|action| {
            self.enabled.iter().all(|here| here.contains(action))
                && !self
                    .edges
                    .iter()
                    .flatten()
                    .any(|(taken, _)| taken == action)
        });
        always
    }

    /// A cycle from `start` back to it that starves nothing: from where it
    /// got to, it goes by the fewest steps to take the first action that has
    /// been enabled all along and not yet taken, or to a state where it is
    /// not enabled, and so on until no such action is left; then back.
    fn fair_cycle(&self, start: usize) -> Vec<A> {
        let mut cycle: Vec<A> = Vec::new();
        let mut visited = vec![start];
        let mut at = start;
        loop {
            let owed = self.enabled[start].iter().find(|action| {
                visited.iter().all(|&i| self.enabled[i].contains(action)) && !cycle.contains(action)
            });
            let hops = match owed {
                Some(owed) => self.hops(
                    at,
                    |i| !self.enabled[i].contains(owed),
                    |action| action == owed,
                ),
                None if cycle.is_empty() => {
                    let (action, next) = self.edges[start][0].clone();
                    vec![(action, next)]
                }
                None => break,
            };
            for (action, next) in hops {
                cycle.push(action);
                visited.push(next);
                at = next;
            }
        }
        if at != start {
            for (action, _) in self.hops(at, |i| i == start, |_| false) {
                cycle.push(action);
            }
        }
        cycle
    }

    /// The fewest inner steps from `from` to a state where `arrived` holds
    /// (other than `from`), or through an edge `through` accepts.
    fn hops(
        &self,
        from: usize,
        arrived: impl Fn(usize) -> bool,
        through: impl Fn(&A) -> bool,
    ) -> Vec<(A, usize)> {
        let mut parent: Vec<Option<(usize, usize)>> = vec![None; self.edges.len()];
        let mut seen = vec![false; self.edges.len()];
        seen[from] = true;
        let mut queue = VecDeque::from([from]);
        let path_to = |parent: &[Option<(usize, usize)>], mut at: usize| {
            let mut hops = Vec::new();
            while let Some((before, edge)) = parent[at] {
                hops.push(self.edges[before][edge].clone());
                at = before;
            }
            hops.reverse();
            hops
        };
        while let Some(at) = queue.pop_front() {
            if at != from && arrived(at) {
                return path_to(&parent, at);
            }
            for (edge, (action, next)) in self.edges[at].iter().enumerate() {
                if through(action) {
                    let mut hops = path_to(&parent, at);
                    hops.push((action.clone(), *next));
                    return hops;
                }
                if !seen[*next] {
                    seen[*next] = true;
                    parent[*next] = Some((at, edge));
                    queue.push_back(*next);
                }
            }
        }
        unreachable!("a strongly connected component reaches each of its states")
    }
}

/// A path and the state it ends in.
type Found<M> = (Vec<<M as Model>::Action>, <M as Model>::State);

/// A shortest path from the initial state to a state `found` accepts (given
/// its fingerprint too), with that state, breadth first in the model's
/// action order; `Err(())` if `go_on` said stop.
fn bfs_path<M>(
    model: &M,
    found: impl Fn(&M::State, u64) -> bool,
    go_on: &mut dyn FnMut(usize) -> bool,
) -> Result<Option<Found<M>>, ()>
where
    M: Model,
    M::State: Clone + Hash,
    M::Action: Clone,
{
    let Some(init) = model.init_states().into_iter().next() else {
        return Ok(None);
    };
    crate::shortest::shortest_path(
        init,
        |state, actions| model.actions(state, actions),
        |state, action| model.next_state(state, action.clone()),
        fingerprint,
        found,
        go_on,
    )
}

/// A path of `steps` steps from the initial state, if the model has one
/// (within the paths it does not leave by a cycle); `Err(())` if `go_on`
/// said stop.
///
/// Depth first, remembering for each state it finished the longest path it
/// found from there (up to `steps`) and that path's first action, so that a
/// state met again deeper is not searched again: it either makes the path
/// long enough or it does not. In a graph without cycles this finds such a
/// path if there is one; stateright's own depth-first search keeps no path.
#[allow(clippy::result_unit_err)]
pub fn path_of_length<M>(
    model: &M,
    steps: usize,
    go_on: &mut dyn FnMut(usize) -> bool,
) -> Result<Option<Vec<M::Action>>, ()>
where
    M: Model,
    M::State: Clone + Hash,
    M::Action: Clone,
{
    struct Frame<S, A> {
        state: S,
        fingerprint: u64,
        actions: Vec<A>,
        next: usize,
        /// The action index this frame was reached by, in its parent.
        via: usize,
        /// The longest path found from here and the index of its first action.
        best: (usize, usize),
    }
    let Some(init) = model.init_states().into_iter().next() else {
        return Ok(None);
    };
    let frame = |state: M::State, fingerprint: u64, via: usize| {
        let mut actions = Vec::new();
        model.actions(&state, &mut actions);
        Frame {
            state,
            fingerprint,
            actions,
            next: 0,
            via,
            best: (0, 0),
        }
    };
    // Each finished state's longest path (capped at `steps`) and its first action.
    let mut longest: HashMap<u64, (usize, usize)> = HashMap::new();
    let mut on_path: HashSet<u64> = HashSet::new();
    let init_fingerprint = fingerprint(&init);
    on_path.insert(init_fingerprint);
    let mut frames = vec![frame(init, init_fingerprint, 0)];
    // The indices down the stack, then the rest along the remembered paths.
    let finish = |frames: &[Frame<M::State, M::Action>],
                  longest: &HashMap<u64, (usize, usize)>,
                  last: Option<(usize, M::State)>| {
        let mut indices: Vec<usize> = frames.iter().skip(1).map(|frame| frame.via).collect();
        if let Some((index, mut state)) = last {
            indices.push(index);
            while indices.len() < steps {
                let (_, first) = longest[&fingerprint(&state)];
                let mut actions = Vec::new();
                model.actions(&state, &mut actions);
                state = model
                    .next_state(&state, actions.swap_remove(first))
                    .expect("a remembered path leads somewhere");
                indices.push(first);
            }
        }
        crate::search::follow(model, &indices)
    };
    while !frames.is_empty() {
        let depth = frames.len() - 1;
        if depth >= steps {
            return Ok(Some(finish(&frames, &longest, None)));
        }
        let top = frames.last_mut().expect("the loop is on a frame");
        if top.next < top.actions.len() {
            let index = top.next;
            top.next += 1;
            let Some(next) = model.next_state(&top.state, top.actions[index].clone()) else {
                continue;
            };
            let next_fingerprint = fingerprint(&next);
            if on_path.contains(&next_fingerprint) {
                continue;
            }
            if let Some(&(below, _)) = longest.get(&next_fingerprint) {
                if depth + 1 + below >= steps {
                    return Ok(Some(finish(&frames, &longest, Some((index, next)))));
                }
                if below + 1 > top.best.0 {
                    top.best = (below + 1, index);
                }
                continue;
            }
            if longest.len() % 1024 == 0 && !go_on(longest.len()) {
                return Err(());
            }
            on_path.insert(next_fingerprint);
            frames.push(frame(next, next_fingerprint, index));
            continue;
        }
        let done = frames.pop().expect("the loop is on a frame");
        on_path.remove(&done.fingerprint);
        longest.insert(done.fingerprint, done.best);
        if let Some(parent) = frames.last_mut() {
            if done.best.0 + 1 > parent.best.0 {
                parent.best = (done.best.0 + 1, done.via);
            }
        }
    }
    Ok(None)
}

/// Up to `steps` steps from `from` by a fair scheduler: each step takes,
/// among the enabled actions `progress` accepts, the one taken longest ago
/// (never taken first, then in the model's order). It stops early where no
/// such action is enabled. An action that stays enabled is taken within as
/// many steps as there are actions, so a walk that goes on starves nothing.
pub fn fair_walk<M>(
    model: &M,
    from: &M::State,
    steps: usize,
    progress: &dyn Fn(&M::Action) -> bool,
) -> Vec<M::Action>
where
    M: Model,
    M::State: Clone,
    M::Action: Clone + PartialEq,
{
    let mut taken_at: Vec<(M::Action, usize)> = Vec::new();
    let mut state = from.clone();
    let mut walk = Vec::with_capacity(steps);
    let mut actions = Vec::new();
    for step in 0..steps {
        actions.clear();
        model.actions(&state, &mut actions);
        actions.retain(|action| progress(action));
        let last_taken = |action: &M::Action| {
            taken_at
                .iter()
                .find(|(taken, _)| taken == action)
                .map(|(_, at)| at + 1)
        };
        let mut order: Vec<(Option<usize>, usize)> = actions
            .iter()
            .enumerate()
            .map(|(position, action)| (last_taken(action), position))
            .collect();
        order.sort();
        let mut moved = false;
        for (_, position) in order {
            let action = actions[position].clone();
            if let Some(next) = model.next_state(&state, action.clone()) {
                state = next;
                match taken_at.iter_mut().find(|(taken, _)| *taken == action) {
                    Some(entry) => entry.1 = step,
                    None => taken_at.push((action.clone(), step)),
                }
                walk.push(action);
                moved = true;
                break;
            }
        }
        if !moved {
            break;
        }
    }
    walk
}

/// A path of `bound` steps for a check that reached its depth bound,
/// preferably one whose end a fair scheduler took: first a fair walk from
/// the initial state; if that ends, a path of `bound` steps (which the
/// check's search proved exists), and from each of its first half's states
/// a fair walk for the rest; else that path as it is.
#[allow(clippy::result_unit_err)]
pub fn growing_path<R: Recipe>(
    world: &World<R>,
    bound: usize,
    go_on: &mut dyn FnMut(usize) -> bool,
) -> Result<Option<Vec<Action>>, ()> {
    let progress = |action: &Action| action.is_progress();
    let init = world.init_states().remove(0);
    let walk = fair_walk(world, &init, bound, &progress);
    if walk.len() == bound {
        return Ok(Some(walk));
    }
    let Some(path) = path_of_length(world, bound, go_on)? else {
        return Ok(None);
    };
    let mut state = init;
    for k in 0..=bound / 2 {
        let walk = fair_walk(world, &state, bound - k, &progress);
        if walk.len() == bound - k {
            let mut fair = path[..k].to_vec();
            fair.extend(walk);
            return Ok(Some(fair));
        }
        state = world
            .step(&state, &path[k])
            .expect("a path the search found is enabled");
    }
    Ok(Some(path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Judgement;
    use crate::models::lock::{self, Command, Lock, Variant};
    use crate::world::faults::{FaultBudget, Kind};

    /// A graph as a model: state 0 is initial, `edges[s]` are the steps
    /// from `s` by label. A lower-case label is a progress action, to be
    /// fairly scheduled; an upper-case one a fault, which need not happen.
    struct Graph(Vec<Vec<(char, usize)>>);

    impl Model for Graph {
        type State = usize;
        type Action = char;

        fn init_states(&self) -> Vec<usize> {
            vec![0]
        }

        fn actions(&self, state: &usize, actions: &mut Vec<char>) {
            actions.extend(self.0[*state].iter().map(|(label, _)| *label));
        }

        fn next_state(&self, state: &usize, action: char) -> Option<usize> {
            self.0[*state]
                .iter()
                .find(|(label, _)| *label == action)
                .map(|(_, next)| *next)
        }
    }

    fn lower(action: &char) -> bool {
        action.is_ascii_lowercase()
    }

    fn lasso_of(graph: &Graph, depth_bound: usize) -> Option<Lasso<char>> {
        fair_lasso(graph, &lower, depth_bound, &mut |_| true).expect("no limit")
    }

    /// The states a path from the initial state goes through, initial included.
    fn walk(graph: &Graph, actions: &[char]) -> Vec<usize> {
        let mut states = vec![0];
        for action in actions {
            let at = *states.last().unwrap();
            let mut enabled = Vec::new();
            graph.actions(&at, &mut enabled);
            assert!(enabled.contains(action), "{action} is not enabled in {at}");
            states.push(graph.next_state(&at, *action).unwrap());
        }
        states
    }

    /// A cycles 0, 1, 2 in the first coordinate; B, enabled until taken,
    /// sets the second. States: (a, b) as 3b + a.
    fn a_cycles_b_once() -> Graph {
        Graph(vec![
            vec![('a', 1), ('b', 3)],
            vec![('a', 2), ('b', 4)],
            vec![('a', 0), ('b', 5)],
            vec![('a', 4)],
            vec![('a', 5)],
            vec![('a', 3)],
        ])
    }

    #[test]
    fn a_fair_loop_is_a_lasso_that_comes_back_to_its_first_state() {
        let graph = a_cycles_b_once();
        let lasso = lasso_of(&graph, 100).expect("A loops once B is taken");
        // Before B is taken, A's loop starves B; after, nothing is starved.
        assert_eq!(lasso.prefix, vec!['b']);
        assert_eq!(lasso.cycle, vec!['a', 'a', 'a']);
        let prefix = walk(&graph, &lasso.prefix);
        let all: Vec<char> = lasso.prefix.iter().chain(&lasso.cycle).copied().collect();
        let states = walk(&graph, &all);
        assert_eq!(prefix.last(), states.last(), "the loop closes");
        assert_eq!(states, vec![0, 3, 4, 5, 3]);
    }

    #[test]
    fn a_cycle_that_starves_a_progress_action_is_not_reported() {
        // A loops between 0 and 1 while B, enabled in both, ends the run.
        let graph = Graph(vec![
            vec![('a', 1), ('b', 2)],
            vec![('a', 0), ('b', 2)],
            vec![],
        ]);
        assert_eq!(lasso_of(&graph, 100), None);
        // The same loop beside a fault, which need not happen, is fair.
        let graph = Graph(vec![
            vec![('a', 1), ('B', 2)],
            vec![('a', 0), ('B', 2)],
            vec![],
        ]);
        assert_eq!(
            lasso_of(&graph, 100),
            Some(Lasso {
                prefix: vec![],
                cycle: vec!['a', 'a']
            })
        );
    }

    #[test]
    fn a_fair_cycle_takes_every_action_enabled_all_along() {
        // A and C each flip a bit: both are enabled everywhere, and the
        // loop must take both.
        let graph = Graph(vec![
            vec![('a', 1), ('c', 2)],
            vec![('a', 0), ('c', 3)],
            vec![('a', 3), ('c', 0)],
            vec![('a', 2), ('c', 1)],
        ]);
        let lasso = lasso_of(&graph, 100).unwrap();
        assert_eq!(lasso.prefix, Vec::<char>::new());
        assert_eq!(lasso.cycle, vec!['a', 'c', 'a', 'c']);
        assert_eq!(walk(&graph, &lasso.cycle), vec![0, 1, 3, 2, 0]);
    }

    #[test]
    fn a_step_back_to_the_same_state_is_a_cycle_and_the_depth_bound_limits_the_search() {
        let graph = Graph(vec![
            vec![('a', 1)],
            vec![('a', 2)],
            vec![('a', 3)],
            vec![('a', 3)],
        ]);
        // State 3 is three steps deep: at a bound of 2 it is never reached.
        assert_eq!(lasso_of(&graph, 2), None);
        // At 3 it is reached, and not searched further; but a component's
        // own steps are all looked at, and its step to itself is a cycle.
        assert_eq!(
            lasso_of(&graph, 3),
            Some(Lasso {
                prefix: vec!['a', 'a', 'a'],
                cycle: vec!['a']
            })
        );
    }

    #[test]
    fn a_graph_without_cycles_has_no_lasso() {
        let graph = Graph(vec![vec![('a', 1), ('b', 2)], vec![('b', 2)], vec![]]);
        assert_eq!(lasso_of(&graph, 100), None);
    }

    #[test]
    fn path_of_length_finds_a_long_path_through_a_state_it_met_first_on_a_short_one() {
        // Depth first, 1 is first met one step deep (by a), then again two
        // steps deep (by b, a): only the second makes a path of 4 steps.
        let graph = Graph(vec![
            vec![('a', 1), ('b', 2)],
            vec![('a', 3)],
            vec![('a', 1)],
            vec![('a', 4)],
            vec![],
        ]);
        let go_on = &mut |_| true;
        assert_eq!(
            path_of_length(&graph, 4, go_on),
            Ok(Some(vec!['b', 'a', 'a', 'a']))
        );
        assert_eq!(
            path_of_length(&graph, 3, go_on),
            Ok(Some(vec!['a', 'a', 'a']))
        );
        assert_eq!(path_of_length(&graph, 5, go_on), Ok(None));
    }

    #[test]
    fn a_fair_walk_takes_the_action_that_waited_longest() {
        let graph = Graph(vec![
            vec![('a', 1), ('c', 2)],
            vec![('a', 0), ('c', 3)],
            vec![('a', 3), ('c', 0)],
            vec![('a', 2), ('c', 1)],
        ]);
        assert_eq!(
            fair_walk(&graph, &0, 6, &lower),
            vec!['a', 'c', 'a', 'c', 'a', 'c']
        );
        // It stops where no progress action is enabled, and never takes a fault.
        let graph = Graph(vec![vec![('B', 1), ('a', 1)], vec![('B', 0)]]);
        assert_eq!(fair_walk(&graph, &0, 6, &lower), vec!['a']);
    }

    #[test]
    fn repetition_finds_the_shortest_period_seen_three_times() {
        assert_eq!(
            repetition(&[1, 2, 3, 1, 2, 3, 1, 2, 3]),
            Some(Repeat {
                from: 1,
                to: 9,
                period: 3
            })
        );
        assert_eq!(
            repetition(&[9, 1, 1, 1]),
            Some(Repeat {
                from: 2,
                to: 4,
                period: 1
            })
        );
        // Two rounds are not enough.
        assert_eq!(repetition(&[1, 2, 1, 2]), None);
        assert_eq!(repetition(&[1, 2, 3, 4, 5, 6]), None);
        assert_eq!(repetition::<u8>(&[]), None);
        // Anywhere, not only at the end.
        assert_eq!(repetition(&[1, 2, 2, 2, 2, 3]), None);
        assert_eq!(
            longest_repetition(&[1, 2, 2, 2, 2, 3]),
            Some(Repeat {
                from: 2,
                to: 5,
                period: 1
            })
        );
        assert_eq!(
            longest_repetition(&[0, 1, 2, 1, 2, 1, 2, 9, 9]),
            Some(Repeat {
                from: 2,
                to: 7,
                period: 2
            })
        );
        assert_eq!(longest_repetition(&[1, 2, 1, 2, 3]), None);
    }

    #[test]
    fn mask_digits_hides_counters() {
        assert_eq!(
            mask_digits("Listing c1-lock-0000000012"),
            "Listing c#-lock-#"
        );
    }

    fn lock_world(variant: Variant, script: &[Command], budget: FaultBudget) -> World<Lock> {
        World::new(
            Lock::new(variant),
            vec![script.to_vec(); 2],
            lock::properties,
        )
        .with_budget(budget)
    }

    /// Every step from every reachable state (every real one: no
    /// reduction), breadth first: each must raise the rank. Answers the
    /// steps and states seen.
    fn steps_raise_the_rank(world: &World<Lock>) -> (usize, usize) {
        let init = world.init_states().remove(0);
        let mut seen = HashSet::from([fingerprint(&init)]);
        let mut queue = VecDeque::from([init]);
        let mut steps = 0;
        while let Some(state) = queue.pop_front() {
            let mut actions = Vec::new();
            world.enabled(&state, &mut actions);
            for action in actions {
                let next = world.step(&state, &action).expect("enabled");
                assert!(
                    rank(&next) > rank(&state),
                    "{action:?} does not raise the rank: {:?} to {:?}",
                    rank(&state),
                    rank(&next)
                );
                // The lazy comparison the search makes agrees, both ways.
                assert!(raises_rank(&state, &next) && !raises_rank(&next, &state));
                steps += 1;
                if seen.insert(fingerprint(&next)) {
                    queue.push_back(next);
                }
            }
        }
        (steps, seen.len())
    }

    #[test]
    fn every_step_of_a_lock_raises_the_rank_through_disconnects_and_expiries() {
        use Command::*;
        let world = lock_world(
            Variant::Guid,
            &[Acquire, Work, Release],
            FaultBudget::default()
                .with(Kind::Disconnect, 1)
                .with(Kind::Expire, 1)
                .with(Kind::LoseReply, 1),
        );
        assert_eq!(steps_raise_the_rank(&world), (142_736, 73_020));
    }

    #[test]
    fn every_step_of_a_lock_raises_the_rank_through_pauses_crashes_and_restarts() {
        use Command::*;
        let world = lock_world(
            Variant::Guid,
            &[Acquire, Work, Release],
            FaultBudget::default()
                .with(Kind::Crash, 1)
                .with(Kind::Restart, 1)
                .with(Kind::Pause, 1),
        );
        assert_eq!(steps_raise_the_rank(&world), (453_364, 175_010));
    }

    #[test]
    fn a_spinning_client_grows_a_fair_path_whose_rounds_repeat() {
        use Command::*;
        let world = lock_world(Variant::Spin, &[Acquire, Work], FaultBudget::default());
        let path = growing_path(&world, 60, &mut |_| true)
            .unwrap()
            .expect("c1 spins while c0 holds");
        assert_eq!(path.len(), 60);
        // Step by step, each action enabled where it is taken.
        let mut states = world.init_states();
        for action in &path {
            let next = world
                .try_step(states.last().unwrap(), action)
                .expect("enabled");
            states.push(next);
        }
        assert!(!world.is_quiescent(states.last().unwrap()));
        let shapes: Vec<(Action, Shape<_>)> = path
            .iter()
            .zip(&states[1..])
            .map(|(action, state)| (action.clone(), shape(&world, state)))
            .collect();
        let repeat = repetition(&shapes).unwrap();
        assert_eq!(
            repeat,
            Repeat {
                from: 10,
                to: 60,
                period: 6
            }
        );
        // One round: c1 serves and reads its create, its listing, its delete.
        assert_eq!(
            path[repeat.from - 1..repeat.from - 1 + repeat.period],
            [
                Action::Serve(1),
                Action::Deliver(1),
                Action::Serve(1),
                Action::Deliver(1),
                Action::Serve(1),
                Action::Deliver(1)
            ]
        );
        // Its state comes back, but for the counters.
        assert_eq!(
            shape(&world, &states[repeat.from - 1]),
            shape(&world, &states[repeat.from - 1 + repeat.period])
        );
        assert_ne!(
            states[repeat.from - 1],
            states[repeat.from - 1 + repeat.period]
        );
        let (trace, fair) = growing_trace(&world, &path, 60);
        assert!(fair);
        assert!(trace.replays);
        assert_eq!(
            trace.verdict.unwrap(),
            "VIOLATED? terminates: a path of 60 steps (the depth bound) and still going: c1 \
             likely loops forever: from step 10 to 60, every 6 steps repeat modulo counters (c1 \
             goes Listing, Abandoning, Creating and round again), and every action that stays \
             possible along them is taken in them, a fair loop; a growing path is not a proof: \
             no state repeats (each round takes fresh xids, zxids or sequence numbers), so the \
             search cannot close the loop, and a deeper one might see it end"
        );
    }

    #[test]
    fn a_lasso_is_told_by_its_steps_and_replays_only_if_it_comes_back() {
        use Command::*;
        // No world loops today (every step raises the rank), so take the
        // spinner's rounds for a lasso: the words are a lasso's, but the
        // state after a round is not the state before it (fresh counters),
        // so the trace does not replay.
        let world = lock_world(Variant::Spin, &[Acquire, Work], FaultBudget::default());
        let path = growing_path(&world, 60, &mut |_| true).unwrap().unwrap();
        let lasso = Lasso {
            prefix: path[..9].to_vec(),
            cycle: path[9..15].to_vec(),
        };
        let trace = lasso_trace(&world, &lasso);
        assert_eq!(
            trace.verdict.as_deref(),
            Some(
                "VIOLATED terminates: c1 loops forever: steps 10-15 repeat, back to the state \
                 after step 9 (c1 goes Listing, Abandoning, Creating and round again); every \
                 action that stays possible along them is taken in them, so repeating them is a \
                 fair run that never ends"
            )
        );
        assert_eq!(trace.steps.len(), 15);
        assert!(!trace.replays);
        // Replayed from a file, it is not taken for a loop either.
        let replayed = replay_loop(&world, &trace.actions, 60);
        assert!(replayed.is_err());
    }

    /// A spin lock scenario whose scripts are `script`, searched to 40 steps.
    fn spin_outcome(script: &str, terminates: &str) -> Outcome {
        let text = format!(
            "description = \"spin\"\nrecipe = \"lock\"\nvariant = \"spin\"\nclients = 2\n\
             script = {script}\n[check]\ndepth_bound = 40\n[expect]\n\
             mutual_exclusion = \"holds\"\nresource_safety = \"holds\"\n\
             herd_avoidance = \"holds\"\nno_orphan_no_deadlock = \"holds\"\n\
             someone_acquired = \"reached\"\nwaiter_woken = \"unreached\"\n\
             terminates = \"{terminates}\"\n"
        );
        let scenario =
            crate::scenario::Scenario::parse(&text, std::path::Path::new("spin.toml"), "spin")
                .unwrap();
        scenario.check(&crate::check::CheckOptions::default())
    }

    #[test]
    fn a_check_stops_at_the_depth_bound_and_only_an_expected_likely_loop_meets_it() {
        let looping = spin_outcome(r#"["acquire", "work"]"#, "violated");
        assert_eq!(looping.stopped, Some(Limit::DepthBound));
        assert_eq!(looping.max_depth, 40);
        let terminates = looping.properties.last().unwrap();
        assert_eq!(
            (terminates.name, terminates.actual, terminates.proven),
            (TERMINATES, Verdict::Violated, false)
        );
        assert_eq!(
            terminates.judgement(),
            Judgement::Unproven,
            "violated expected proven"
        );
        assert_eq!(note(&looping), None);
        // Expected as what it is, a likely loop, it is met.
        let expected = spin_outcome(r#"["acquire", "work"]"#, "violated?");
        let terminates = expected.properties.last().unwrap();
        assert_eq!(terminates.judgement(), Judgement::Met);
        // Every other verdict the search did not prove is unproven.
        let unproven: Vec<&str> = looping
            .properties
            .iter()
            .filter(|property| !property.proven)
            .map(|property| property.name)
            .collect();
        assert_eq!(
            unproven,
            [
                "mutual_exclusion",
                "resource_safety",
                "herd_avoidance",
                "no_orphan_no_deadlock",
                "waiter_woken",
                TERMINATES
            ]
        );

        // A spin that ends once the holder releases: no fair loop to show,
        // so `holds?` with the path's words under the table, and no
        // expectation of a loop is met.
        for expected in ["holds", "violated", "violated?"] {
            let ending = spin_outcome(r#"["acquire", "work", "release"]"#, expected);
            assert_eq!(ending.stopped, Some(Limit::DepthBound));
            let terminates = ending.properties.last().unwrap();
            assert_eq!(
                (terminates.actual, terminates.proven),
                (Verdict::Holds, false)
            );
            assert_ne!(terminates.judgement(), Judgement::Met, "{expected}");
            assert!(note(&ending)
                .unwrap()
                .starts_with("UNPROVEN terminates: a path of 40 steps (the depth bound)"));
        }
    }

    #[test]
    fn a_spin_that_ends_once_the_holder_releases_is_no_evidence_of_a_loop() {
        use Command::*;
        let world = lock_world(
            Variant::Spin,
            &[Acquire, Work, Release],
            FaultBudget::default(),
        );
        let path = growing_path(&world, 40, &mut |_| true)
            .unwrap()
            .expect("c1 can spin for 40 steps while c0 holds");
        assert_eq!(path.len(), 40);
        let (trace, fair) = growing_trace(&world, &path, 40);
        assert!(!fair);
        assert_eq!(
            trace.verdict.unwrap(),
            "UNPROVEN terminates: a path of 40 steps (the depth bound) and still going, but its \
             end does not repeat: from step 9 to 29, every 6 steps repeat modulo counters (c1 \
             goes Creating, Listing, Abandoning and round again) while `server serves c0's next \
             request` stays possible all along and never happens, then the run moves on; it may \
             be a long run that ends: raise `[check] depth_bound` to see"
        );
    }
}
