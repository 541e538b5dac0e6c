//! Counterexamples as traces a person can read and a program can replay.
//!
//! Each step says who did what: the application's command, the request the
//! server served and what it answered, the message a client read and how its
//! recipe reacted, or the fault. A trace is rebuilt from the checker's path by
//! replaying its actions with [`World::step`], so a trace that does not reach
//! its verdict again is reported as such ([`Trace::replays`]).

use std::fmt::{self, Write as _};

use stateright::{Expectation, Model, Property};

use crate::recipe::Recipe;
use crate::world::steps::words::message;
use crate::world::{Action, Observed, Refusal, Run, Status, World, WorldState};

/// One step of a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The checker's action, as written in Rust (`Serve(1)`, `Fault(Pause { client: 1 })`).
    pub action: String,
    /// What happened, in words.
    pub text: String,
}

/// A counterexample or example.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    pub property: &'static str,
    pub steps: Vec<Step>,
    /// The checker's actions, which [`Trace::replay`] replays.
    pub actions: Vec<Action>,
    /// Whether replaying the actions from the initial state reaches a state
    /// where the property again has the same verdict.
    pub replays: bool,
    /// Whether it is known to be a shortest path to such a state (a check's
    /// counterexample is, unless its search stopped at a limit).
    pub shortest: bool,
    /// Whether nothing but a fault can happen in the last state.
    pub quiescent: bool,
    /// The verdict in words on the last state: for an `always`, who believes
    /// what ([`crate::properties::Promise::violation`]); for a `sometimes`, what was
    /// reached.
    pub verdict: Option<String>,
    /// The last state in brief ([`picture`]): the znode tree, and each
    /// client's phase, belief and connection.
    pub last_state: String,
}

impl Trace {
    /// Replays `actions` from the initial state, describing each step, and
    /// checks that the last state gives `property` the verdict it was found with.
    pub fn replay<R: Recipe>(
        world: &World<R>,
        property: &Property<World<R>>,
        actions: &[Action],
    ) -> Trace {
        let replayed = replay(world, actions);
        let last = replayed.last();
        let replays = replayed.stop.is_none() && discovered(world, property, last);
        Trace {
            property: property.name,
            replays,
            quiescent: world.is_quiescent(last),
            verdict: replays.then(|| verdict(world, property, replayed.run())),
            last_state: picture(&replayed.states),
            steps: replayed.steps,
            actions: actions.to_vec(),
            shortest: false,
        }
    }

    /// Replays `actions`, whose last one makes the world panic: the trace of
    /// a panic, which replays if that is where it panics again.
    pub fn of_panic<R: Recipe>(world: &World<R>, actions: &[Action]) -> Trace {
        let replayed = replay(world, actions);
        let replays = matches!(
            replayed.stop,
            Some(Stop::Panicked { step, .. }) if step == actions.len()
        );
        Trace {
            property: PANIC,
            last_state: picture(&replayed.states),
            steps: replayed.steps,
            actions: actions.to_vec(),
            replays,
            shortest: false,
            quiescent: false,
            verdict: None,
        }
    }
}

/// The name a trace of a panic gives in place of a property's.
pub const PANIC: &str = "(panic)";

impl Trace {
    /// What a trace file of this trace is named after: its property, or
    /// `panic`.
    pub fn property_file_name(&self) -> &'static str {
        if self.property == PANIC {
            "panic"
        } else {
            self.property
        }
    }
}

/// Where replaying a list of actions from the initial state ended.
pub struct Replayed<R: Recipe> {
    /// Each step taken, in words.
    pub steps: Vec<Step>,
    /// The initial state and the state after each step taken.
    pub states: Vec<WorldState<R::State, R::Log>>,
    /// What each step taken made the recipes observe.
    pub observed: Vec<Observed<R::Fact>>,
    /// Why it stopped before the last action, if it did.
    pub stop: Option<Stop>,
}

impl<R: Recipe> Replayed<R> {
    /// The state after the last step taken.
    pub fn last(&self) -> &WorldState<R::State, R::Log> {
        self.states
            .last()
            .expect("a replay keeps its initial state")
    }

    /// The steps taken, as a [`Run`].
    pub fn run(&self) -> Run<'_, R> {
        Run {
            states: &self.states,
            observed: &self.observed,
        }
    }
}

/// Why a replay stopped before the end of its actions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Action number `step` (from 1) is not enabled where the replay got to.
    Diverged { step: usize, action: Action },
    /// Taking action number `step` made the world panic; or, with no
    /// action, listing the actions enabled after step `step` did.
    Panicked {
        step: usize,
        action: Option<Action>,
        message: String,
    },
}

/// Replays `actions` from the initial state, each only if it is enabled
/// ([`World::try_step`]): the one replay that traces, the command line and
/// simulations share. Nothing in `actions` can make it panic.
pub fn replay<R: Recipe>(world: &World<R>, actions: &[Action]) -> Replayed<R> {
    let mut states = world.init_states();
    states.truncate(1);
    let mut steps = Vec::with_capacity(actions.len());
    let mut observations = Vec::with_capacity(actions.len());
    for (index, action) in actions.iter().enumerate() {
        let step = index + 1;
        let state = states.last().expect("a replay keeps its initial state");
        let (next, observed) = match world.try_step_observed(state, action) {
            Ok(next) => next,
            Err(refusal) => {
                let action = action.clone();
                let stop = match refusal {
                    Refusal::NotEnabled => Stop::Diverged { step, action },
                    Refusal::Panicked(message) => Stop::Panicked {
                        step,
                        action: Some(action),
                        message,
                    },
                };
                return Replayed {
                    steps,
                    states,
                    observed: observations,
                    stop: Some(stop),
                };
            }
        };
        steps.push(Step {
            action: format!("{action:?}"),
            text: world.describe(&states, action, &next, &observed),
        });
        states.push(next);
        observations.push(observed);
    }
    // The world may panic listing what can happen next, too.
    let last = states.last().expect("a replay keeps its initial state");
    let stop = world
        .enabled_caught(last, &mut Vec::new())
        .err()
        .map(|message| Stop::Panicked {
            step: actions.len(),
            action: None,
            message,
        });
    Replayed {
        steps,
        states,
        observed: observations,
        stop,
    }
}

/// Whether `state` is a discovery for `property`: a counterexample to an
/// `always`, an example of a `sometimes`.
pub fn discovered<R: Recipe>(
    world: &World<R>,
    property: &Property<World<R>>,
    state: &WorldState<R::State, R::Log>,
) -> bool {
    let holds = (property.condition)(world, state);
    match property.expectation {
        Expectation::Always | Expectation::Eventually => !holds,
        Expectation::Sometimes => holds,
    }
}

impl fmt::Display for Trace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, step) in self.steps.iter().enumerate() {
            writeln!(f, "{:>3}. {}", index + 1, step.text)?;
        }
        if let Some(verdict) = &self.verdict {
            writeln!(f, "     {verdict}")?;
        }
        if self.quiescent {
            writeln!(
                f,
                "     the last state, where nothing but a fault can happen:"
            )?;
        } else {
            writeln!(f, "     the last state:")?;
        }
        for line in self.last_state.lines() {
            writeln!(f, "       {line}")?;
        }
        Ok(())
    }
}

/// What a counterexample says of a broken property whose promise has no
/// words for the state ([`crate::properties::Promise::violation`]).
pub const UNTOLD: &str = "(no words for how: its promise gave none)";

/// A discovery in words: an `always` broken (who believes what), or a
/// `sometimes` reached (what its meaning says happened).
fn verdict<R: Recipe>(world: &World<R>, property: &Property<World<R>>, run: Run<'_, R>) -> String {
    let promise = world.promise(property.name);
    let meaning = promise.as_ref().map(|promise| promise.meaning);
    match property.expectation {
        Expectation::Sometimes => format!(
            "REACHED {}: {}",
            property.name,
            meaning.unwrap_or("its condition holds")
        ),
        Expectation::Always | Expectation::Eventually => {
            let told = promise
                .as_ref()
                .and_then(|promise| promise.violation(world, run));
            let why = told.unwrap_or_else(|| {
                format!("{}; {UNTOLD}", meaning.unwrap_or("its condition is false"))
            });
            format!("VIOLATED {}: {why}", property.name)
        }
    }
}

/// The last state of a run in brief, one line each: the znodes below the
/// root (with each ephemeral's owner and any data), then each client's phase
/// and belief, process, connection and watches. The run's earlier states
/// (all but its last) tell whose an ephemeral of a session no client holds
/// was; a run of one state tells none.
pub fn picture<S: fmt::Display, L>(run: &[WorldState<S, L>]) -> String {
    let state = run.last().expect("a run of at least one state");
    let store = &state.net.store;
    let mut out = String::new();
    let paths: Vec<&crate::store::Path> = store
        .paths()
        .filter(|path| {
            let text = path.as_str();
            text != "/" && text != "/zookeeper" && !text.starts_with("/zookeeper/")
        })
        .collect();
    if paths.is_empty() {
        out.push_str("no znodes\n");
    }
    for path in paths {
        let depth = path.as_str().matches('/').count();
        let name = path.as_str().rsplit('/').next().unwrap_or_default();
        let name = if depth == 1 { path.as_str() } else { name };
        let _ = write!(out, "{}{name}", "  ".repeat(depth - 1));
        let mut notes = Vec::new();
        if let Some(stat) = store.stat(path) {
            if stat.ephemeral_owner != 0 {
                notes.push(owner(run, stat.ephemeral_owner));
            }
        }
        if let Some(Some(bytes)) = store.data(path) {
            notes.push(format!("data {}", data_text(bytes)));
        }
        if !notes.is_empty() {
            let _ = write!(out, " ({})", notes.join(", "));
        }
        out.push('\n');
    }
    for (c, process) in state.processes.iter().enumerate() {
        let mut parts = vec![process.recipe.to_string()];
        if let Some(tenure) = state.history.holding[c] {
            parts.push(format!(
                "believes it {} (token {})",
                tenure.role.phrase(false),
                tenure.token
            ));
        }
        parts.push(connection(state, c));
        parts.extend(watches(state, c));
        let _ = writeln!(out, "c{c}: {}", parts.join("; "));
    }
    out
}

/// What is in flight on each client's link, one line each: requests the
/// server has not received, then replies and events the client has not read.
pub fn in_flight<S, L>(state: &WorldState<S, L>) -> String {
    let mut out = String::new();
    for (c, link) in state.net.links.iter().enumerate() {
        let up: Vec<String> = link.up.iter().map(|request| op(&request.op)).collect();
        if !up.is_empty() {
            let _ = writeln!(out, "c{c} -> server: {}", up.join(", "));
        }
        let down: Vec<String> = link.down.iter().map(message).collect();
        if !down.is_empty() {
            let _ = writeln!(out, "server -> c{c}: {}", down.join(", "));
        }
        if link.broken {
            let _ = writeln!(out, "c{c}'s connection is broken");
        }
    }
    out
}

/// The watches client `c`'s session holds, the key to a client that waits
/// for ever: on its server while it is connected (`data` on a node, `exists`
/// on a missing one, `children`), or, while its
/// connection is gone, those its library keeps to re-send in SetWatches.
/// `None` for a process that has crashed or a session that is over.
fn watches<S, L>(state: &WorldState<S, L>, c: usize) -> Option<String> {
    use crate::client::ConnState;
    if state.processes[c].status == Status::Crashed {
        return None;
    }
    let client = state.net.client(c);
    let named = |kind: &str, paths: &mut dyn Iterator<Item = &crate::store::Path>| {
        paths
            .map(|path| format!("{kind} {path}"))
            .collect::<Vec<_>>()
    };
    let (held, whose) = match client.state() {
        ConnState::Connected if !state.net.links[c].broken => {
            let store = (state.net.ensemble).store(&state.net.store, state.net.server(c));
            let (data, child) = store.watched_by(client.session());
            // The server keeps an exists watch on a missing node in its data
            // table: it waits for the node's creation.
            let mut held: Vec<String> = (data.into_iter())
                .map(|path| match store.exists(path) {
                    true => format!("data {path}"),
                    false => format!("exists {path}"),
                })
                .collect();
            held.extend(named("children", &mut child.into_iter()));
            for (path, mode, child_only) in store.persistent_watches_of(client.session()) {
                let table = if child_only { " (children only)" } else { "" };
                held.push(format!("{} {path}{table}", mode.name()));
            }
            (held, "")
        }
        ConnState::Connected | ConnState::Disconnected => {
            let kept = client.watches();
            let mut held = named("data", &mut kept.data.iter());
            held.extend(named("exists", &mut kept.exist.iter()));
            held.extend(named("children", &mut kept.child.iter()));
            held.extend(named("persistent", &mut kept.persistent.iter()));
            held.extend(named("persistent recursive", &mut kept.recursive.iter()));
            (held, " (its library's, to re-send on reconnecting)")
        }
        ConnState::Expired | ConnState::Closed => return None,
    };
    Some(match held.is_empty() {
        true => "no watches".to_string(),
        false => format!("watches {}{whose}", held.join(", ")),
    })
}

/// Whose an ephemeral node is: a client's current session, or one no client
/// holds the server has not expired yet (whose it was, where `run` shows it).
fn owner<S, L>(run: &[WorldState<S, L>], session: crate::store::SessionId) -> String {
    use crate::world::steps::words::{left_by, Left};
    let state = run.last().expect("a run of at least one state");
    if let Some(c) = (0..state.processes.len()).find(|&c| state.net.session(c) == session) {
        return format!("ephemeral of c{c}");
    }
    match left_by(run, session) {
        Some((c, Left::Crashed)) => {
            format!("ephemeral of session {session:#x}, c{c}'s crashed process's")
        }
        Some((c, Left::GaveUp)) => {
            format!("ephemeral of session {session:#x}, which c{c}'s library gave up")
        }
        None => format!("ephemeral of session {session:#x}, which no client holds"),
    }
}

/// Znode data as a trace shows it: text if it is short printable text.
fn data_text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) if text.len() <= 24 && text.chars().all(|c| c.is_ascii_graphic() || c == ' ') => {
            format!("{text:?}")
        }
        _ => format!("{} bytes", bytes.len()),
    }
}

/// A client's process and connection, and its session as the server sees it
/// when the client does not know.
fn connection<S, L>(state: &WorldState<S, L>, c: usize) -> String {
    use crate::client::ConnState;
    let process = match state.processes[c].status {
        Status::Running => "running",
        Status::Paused => "paused",
        Status::Crashed => return "crashed".into(),
    };
    let client = state.net.client(c);
    let alive = state.net.store.is_alive(client.session());
    let link = match client.state() {
        ConnState::Connected if state.net.links[c].broken => {
            "its connection is gone (it has not noticed)"
        }
        ConnState::Connected => "connected",
        ConnState::Disconnected => "disconnected",
        ConnState::Expired => "knows its session expired",
        ConnState::Closed => "closed its session",
    };
    let server = if !alive
        && matches!(
            client.state(),
            ConnState::Connected | ConnState::Disconnected
        ) {
        ", but the server has expired its session"
    } else {
        ""
    };
    format!("{process}, {link}{server}")
}

use crate::store::words::op;

/// A state as a person reads it (the explorer's state pane, a test's
/// failure, a report's change under each step): the znode tree, each
/// client's phase, belief, connection and watches, what is in flight on
/// each link, and the faults spent. `run`'s earlier states name sessions no
/// client holds, as in [`picture`].
pub fn in_full<S: fmt::Display, L>(run: &[WorldState<S, L>]) -> String {
    let state = run.last().expect("a run of at least one state");
    let mut out = picture(run);
    let in_flight = in_flight(state);
    if !in_flight.is_empty() {
        let _ = write!(out, "in flight:\n{in_flight}");
    }
    let any = crate::world::faults::Kind::ALL
        .into_iter()
        .filter(|kind| state.spent.any[*kind as usize] > 0)
        .map(|kind| format!("{} {}", kind.name(), state.spent.any[kind as usize]));
    let aimed = (state.spent.aimed.iter().enumerate())
        .filter(|(_, spent)| **spent > 0)
        .map(|(index, spent)| format!("aimed fault {} {spent}", index + 1));
    let spent: Vec<String> = any.chain(aimed).collect();
    if !spent.is_empty() {
        let _ = writeln!(out, "faults spent: {}", spent.join(", "));
    }
    out
}

impl<S: std::fmt::Display, L> std::fmt::Debug for crate::world::WorldState<S, L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&in_full(std::slice::from_ref(self)))
    }
}
