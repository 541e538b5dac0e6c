//! The verdict on `terminates` ([`crate::properties::termination`] says
//! what it means and why it is sound): a fair lasso found where some step
//! did not raise the rank, a growing path where the search reached its
//! depth bound, and their traces in words; a saved loop replayed.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;

use stateright::Model;

use crate::check::{Limit, Outcome, PropertyOutcome, Verdict};
use crate::client::ConnState;
use crate::explore::Control;
use crate::lasso::{
    fair_lasso, fair_walk, longest_repetition, path_of_length, repetition, Lasso, Repeat,
};
use crate::properties::and_list;
use crate::properties::termination::{Termination, TERMINATES};
use crate::recipe::{ClientId, Recipe};
use crate::trace::{picture, replay, Stop, Trace};
use crate::world::{Action, Status, World, WorldState};

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
        through: None,
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
                let (trace, looping) = growing_trace(&world, &path, termination.depth_bound);
                match looping {
                    Looping::Proven => outcome(Verdict::Violated, true, Some(trace)),
                    Looping::Likely => outcome(Verdict::Violated, false, Some(trace)),
                    Looping::No => outcome(Verdict::Holds, false, Some(trace)),
                }
            }
            _ => outcome(Verdict::Holds, false, None),
        };
    }
    outcome(Verdict::Holds, stopped.is_none() && !cycles_unknown, None)
}

/// Replays a saved `terminates` counterexample: `Ok` with the words of its
/// verdict if `actions` again end in a fair loop (back to the state after
/// some earlier step, starving nothing), in a fair loop modulo counters
/// (back to such a state but for its counters, moved on in their order:
/// [`crate::recount`]), or on a path still going whose end repeats fairly
/// modulo counters; `Err` with why not.
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
    let rounds = (1..=actions.len()).map(|period| (actions.len() - period, period));
    if let Ok(trace) = counter_loop(world, &replayed.states, actions, rounds) {
        if trace.replays {
            return Ok(trace.verdict.unwrap_or_default());
        }
    }
    let (trace, looping) = growing_trace(world, actions, depth_bound);
    let verdict = trace.verdict.unwrap_or_default();
    if looping != Looping::No && trace.replays {
        Ok(verdict)
    } else {
        Err(verdict)
    }
}

/// What a path that reached the depth bound shows of a loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Looping {
    /// None: its end does not repeat, or starves an action.
    No,
    /// Its end repeats fairly modulo counters, as far as the path goes.
    Likely,
    /// A round of it comes back to its first state but for the counters,
    /// moved on in their order, which repeats it as far as they reach.
    Proven,
}

/// The first of `rounds` (a state's index in `states`, the states `path`
/// goes through from the initial one, and a period) whose last state is
/// its first with only its counters moved on in their order
/// ([`crate::recount`]), every state of it renamed so, and that starves no
/// progress action: the trace of the path up to its end, a loop modulo
/// counters. `Err` with why no round is, the first reason met.
fn counter_loop<R: Recipe>(
    world: &World<R>,
    states: &[WorldState<R::State, R::Log>],
    path: &[Action],
    rounds: impl Iterator<Item = (usize, usize)>,
) -> Result<Trace, String> {
    crate::recount::applies(world)?;
    let directory = crate::recount::counted_directory(states)?;
    let mut canonical: Vec<Option<Result<WorldState<R::State, R::Log>, &'static str>>> =
        vec![None; states.len()];
    let mut canon = |index: usize| -> Result<WorldState<R::State, R::Log>, &'static str> {
        canonical[index]
            .get_or_insert_with(|| crate::recount::canonical(&states[index], directory.as_ref()))
            .clone()
    };
    // The reason to give: of a round that closes, why it is no loop (it
    // starves, it wraps), before why a state cannot be renamed, before
    // that no round closes; the first of each.
    let mut why: Option<(u8, String)> = None;
    for (start, period) in rounds {
        let end = start + period;
        let round = (start..=end).map(&mut canon).collect::<Result<Vec<_>, _>>();
        let closes = match round {
            Err(reason) => Err((2, reason.to_string())),
            Ok(round) if round[0] != round[period] => Err((
                1,
                format!("no round of {period} steps comes back to its state but for its counters"),
            )),
            Ok(_) if !starved(world, &states[start..=end], &path[start..end]).is_empty() => Err((
                3,
                "its round starves an action that stays possible all along".to_string(),
            )),
            Ok(_) => Ok(()),
        };
        let moves = closes.map(|()| {
            crate::recount::Moves::between(&states[start], &states[end], directory.as_ref())
        });
        // A sequence counter narrower than the server's is there to be
        // wrapped: past its wrap, which the model makes, the recipe may act
        // otherwise (names that carry negative numbers sort first), and a
        // search that deep shows what it does. So no bound it sets is one
        // to state; the server's own 32 bits are a real server's.
        let within_reach = |moves: &crate::recount::Moves| {
            let rounds = moves.rounds_to_wrap()?;
            let bits = moves.sequence_bits;
            let at = end as i64 + rounds * period as i64 + 1;
            (bits < 32).then(|| {
                format!(
                    "its rounds move the {bits}-bit sequence counter, which the model wraps in \
                     the round from step {at}, and past the wrap the recipe may act otherwise: \
                     a search that deep shows what it does (`[check] depth_bound`)"
                )
            })
        };
        let closes = moves.and_then(|moves| match within_reach(&moves) {
            Some(wrap) => Err((3, wrap)),
            None => Ok(moves),
        });
        match closes {
            Ok(moves) => {
                return Ok(counter_loop_trace(
                    world, states, path, start, period, &moves,
                ));
            }
            Err((weight, reason)) => {
                if why.as_ref().is_none_or(|(heaviest, _)| weight > *heaviest) {
                    why = Some((weight, reason));
                }
            }
        }
    }
    Err(why.map_or_else(|| "no round to read".to_string(), |(_, why)| why))
}

/// The trace of a loop modulo counters: the path to the end of its round
/// (steps `start + 1` to `start + period`), which comes back to the state
/// after step `start` with its counters moved on by `moves`.
fn counter_loop_trace<R: Recipe>(
    world: &World<R>,
    states: &[WorldState<R::State, R::Log>],
    path: &[Action],
    start: usize,
    period: usize,
    moves: &crate::recount::Moves,
) -> Trace {
    let end = start + period;
    let actions = path[..end].to_vec();
    let replayed = replay(world, &actions);
    let back_to = if start == 0 {
        "the initial state".to_string()
    } else {
        format!("the state after step {start}")
    };
    let how_long = match moves.rounds().first() {
        Some((rounds, until)) => format!("for {} more rounds, until {until}", grouped(*rounds)),
        None => "forever".to_string(),
    };
    let round = &path[start..end];
    let verdict = format!(
        "VIOLATED {TERMINATES}: {} as far as the counters reach: steps {}-{} come back to \
         {back_to} with only its counters moved on ({}), which no step tells apart but by \
         their order ({}); every action that stays possible along them is taken in them, so \
         repeating them is a fair run that goes on {how_long}",
        looping(round),
        start + 1,
        end,
        moves.words(),
        phase_words(world, &states[start..=end], round)
    );
    Trace {
        property: TERMINATES,
        quiescent: world.is_quiescent(replayed.last()),
        verdict: Some(verdict),
        last_state: picture(&replayed.states),
        replays: replayed.stop.is_none(),
        steps: replayed.steps,
        actions,
        shortest: false,
    }
}

/// `2147483637` as `2,147,483,637`.
fn grouped(number: i64) -> String {
    let digits = number.to_string();
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
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
        last_state: picture(&replayed.states),
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
fn growing_trace<R: Recipe>(world: &World<R>, path: &[Action], bound: usize) -> (Trace, Looping) {
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
    let (verdict, looping) = match (repetition(&shapes), longest_repetition(&shapes)) {
        (Some(repeat), _) => {
            let what = round_words(&repeat);
            let actions = &path[repeat.from - 1..repeat.to];
            match starving_words(&repeat) {
                None => {
                    let start = repeat.from - 1;
                    let rounds = (start..=path.len() - repeat.period).map(|k| (k, repeat.period));
                    let why = match counter_loop(world, &replayed.states, path, rounds) {
                        Ok(trace) => return (trace, Looping::Proven),
                        Err(why) => why,
                    };
                    let clients = actors(actions);
                    (
                        format!(
                            "VIOLATED? {TERMINATES}: {head}: {} likely {} forever: {what}, and \
                             every action that stays possible along them is taken in them, a \
                             fair loop; {caveat}; nor is it a loop modulo counters: {why}",
                            and_list(&clients),
                            if clients.len() == 1 { "loops" } else { "loop" },
                        ),
                        Looping::Likely,
                    )
                }
                Some(starving) => (
                    format!(
                        "UNPROVEN {TERMINATES}: {head}, but not a fair one: {what} while \
                         {starving}; a fair run may end, so this is no evidence of a loop"
                    ),
                    Looping::No,
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
                Looping::No,
            )
        }
        (None, None) => (
            format!(
                "UNPROVEN {TERMINATES}: {head}, and no part of it repeats modulo counters, \
                 so it may be a long run that ends: raise `[check] depth_bound` to see"
            ),
            Looping::No,
        ),
    };
    let trace = Trace {
        property: TERMINATES,
        quiescent: !still_going,
        verdict: Some(verdict),
        last_state: picture(&replayed.states),
        replays: replayed.stop.is_none() && still_going && path.len() == bound,
        steps: replayed.steps,
        actions: path.to_vec(),
        shortest: false,
    };
    (trace, looping)
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

/// The clients that act in `actions`, in order: `c1`.
fn actors(actions: &[Action]) -> Vec<String> {
    let mut clients: Vec<ClientId> = actions.iter().filter_map(Action::client).collect();
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
    let mut clients: Vec<ClientId> = actions.iter().filter_map(Action::client).collect();
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
    let names = R::PHASES;
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
    let named = !R::PHASES.is_empty();
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
    use std::collections::{HashSet, VecDeque};
    use std::hash::{DefaultHasher, Hash, Hasher};

    use super::*;
    use crate::check::Judgement;
    use crate::properties::termination::{raises_rank, rank};

    fn fingerprint<T: Hash>(value: &T) -> u64 {
        let mut hasher = DefaultHasher::new();
        value.hash(&mut hasher);
        hasher.finish()
    }
    use crate::models::lock::{self, Command, Knobs, Lock};
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

    fn lock_world(variant: Knobs, script: &[Command], budget: FaultBudget) -> World<Lock> {
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
            Knobs::GUID,
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
            Knobs::GUID,
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
        let world = lock_world(Knobs::SPIN, &[Acquire, Work], FaultBudget::default());
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
        let (trace, looping) = growing_trace(&world, &path, 60);
        assert_eq!(looping, Looping::Proven);
        assert!(trace.replays);
        // The first round that comes back but for its counters ends the
        // trace: the one from step 10 does not, since at its start c1's
        // node was created at the zxid c0 last saw, and at its end not.
        assert_eq!(trace.actions, path[..19]);
        assert_eq!(
            trace.verdict.as_deref().unwrap(),
            "VIOLATED terminates: c1 loops as far as the counters reach: steps 14-19 come back \
             to the state after step 13 with only its counters moved on (sequence numbers of \
             /lock +1, zxids +2, c1's xids +3), which no step tells apart but by their order (c1 \
             goes Creating, Listing, Abandoning and round again); every action that stays \
             possible along them is taken in them, so repeating them is a fair run that goes on \
             for 715,827,880 more rounds, until c1's 32-bit xids run out"
        );
        // Replayed from a file, it is that loop again.
        assert_eq!(
            replay_loop(&world, &trace.actions, 60),
            Ok(trace.verdict.unwrap())
        );
        // Cut short of its round's end, it is not.
        assert!(replay_loop(&world, &trace.actions[..18], 60).is_err());
    }

    #[test]
    fn a_loop_that_moves_a_narrow_sequence_counter_is_only_likely() {
        use Command::*;
        let world = lock_world(Knobs::SPIN, &[Acquire, Work], FaultBudget::default()).with_store(
            crate::store::StoreConfig {
                sequence_bits: 8,
                ..Default::default()
            },
        );
        let path = growing_path(&world, 60, &mut |_| true).unwrap().unwrap();
        let (trace, looping) = growing_trace(&world, &path, 60);
        assert_eq!(looping, Looping::Likely);
        let verdict = trace.verdict.unwrap();
        assert!(
            verdict.ends_with(
                "nor is it a loop modulo counters: its rounds move the 8-bit sequence counter, \
                 which the model wraps in the round from step 770, and past the wrap the recipe \
                 may act otherwise: a search that deep shows what it does (`[check] \
                 depth_bound`)"
            ),
            "{verdict}"
        );
    }

    #[test]
    fn a_recipe_that_does_not_read_counters_by_order_alone_is_not_renamed() {
        // The revocable lock keeps a state that is not renamed.
        let world = World::new(
            crate::models::revocable_lock::RevocableLock::new(
                crate::models::revocable_lock::Knobs::GUID,
            ),
            vec![Vec::new(); 2],
            Vec::new,
        );
        assert_eq!(
            crate::recount::applies(&world),
            Err("the recipe does not say that it reads counters by their order alone")
        );
    }

    #[test]
    fn a_lasso_is_told_by_its_steps_and_replays_only_if_it_comes_back() {
        use Command::*;
        // No world loops today (every step raises the rank), so take the
        // spinner's rounds for a lasso: the words are a lasso's, but the
        // state after a round is not the state before it (fresh counters),
        // so the trace does not replay.
        let world = lock_world(Knobs::SPIN, &[Acquire, Work], FaultBudget::default());
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

    /// A spin lock scenario whose scripts are `script`, searched to 40 steps
    /// on a server whose sequence counter is 8 bits wide, so that a loop
    /// modulo counters wraps it within a search's reach and is only likely.
    fn spin_outcome(script: &str, terminates: &str) -> Outcome {
        let text = format!(
            "description = \"spin\"\nrecipe = \"lock\"\nvariant = \"spin\"\nclients = 2\n\
             script = {script}\n[store]\nsequence_bits = 8\n[check]\ndepth_bound = 40\n\
             [expect]\n\
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
            Knobs::SPIN,
            &[Acquire, Work, Release],
            FaultBudget::default(),
        );
        let path = growing_path(&world, 40, &mut |_| true)
            .unwrap()
            .expect("c1 can spin for 40 steps while c0 holds");
        assert_eq!(path.len(), 40);
        let (trace, fair) = growing_trace(&world, &path, 40);
        assert_eq!(fair, Looping::No);
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
