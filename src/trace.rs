//! Counterexamples as traces a person can read and a program can replay.
//!
//! Each step says who did what: the application's command, the request the
//! server served and what it answered, the message a client read and how its
//! recipe reacted, or the fault. A trace is rebuilt from the checker's path by
//! replaying its actions with [`World::step`], so a trace that does not reach
//! its verdict again is reported as such ([`Trace::replays`]).

use std::fmt::{self, Write as _};

use stateright::{Expectation, Model, Property};

use crate::client::{Request, ServerMessage, Xid};
use crate::ensemble::Txn;
use crate::recipe::{ClientId, Log, Observation, Recipe};
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
    /// what ([`crate::properties::violation`]); for a `sometimes`, what was
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
            last_state: picture(last),
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
            last_state: picture(replayed.last()),
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
            text: describe(world, state, action, &next, &observed),
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

/// What a counterexample says of a broken property that neither
/// [`crate::properties::violation`] nor its recipe can tell in words.
pub const UNTOLD: &str = "(no words for how: see Recipe::violation)";

/// A discovery in words: an `always` broken (who believes what), or a
/// `sometimes` reached (what its meaning says happened).
fn verdict<R: Recipe>(world: &World<R>, property: &Property<World<R>>, run: Run<'_, R>) -> String {
    let meaning = crate::properties::meaning(property.name);
    match property.expectation {
        Expectation::Sometimes => format!(
            "REACHED {}: {}",
            property.name,
            meaning.unwrap_or("its condition holds")
        ),
        Expectation::Always | Expectation::Eventually => {
            let why =
                crate::properties::violation(world, run, property.name).unwrap_or_else(|| {
                    format!("{}; {UNTOLD}", meaning.unwrap_or("its condition is false"))
                });
            format!("VIOLATED {}: {why}", property.name)
        }
    }
}

/// The last state of a trace in brief, one line each: the znodes below the
/// root (with each ephemeral's owner and any data), then each client's phase
/// and belief, process and connection.
pub fn picture<S: fmt::Display, L>(state: &WorldState<S, L>) -> String {
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
                notes.push(owner(state, stat.ephemeral_owner));
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

/// Whose an ephemeral node is: a client's current session, or a crashed
/// process's the server has not expired yet.
fn owner<S, L>(state: &WorldState<S, L>, session: crate::store::SessionId) -> String {
    match (0..state.processes.len()).find(|&c| state.net.session(c) == session) {
        Some(c) => format!("ephemeral of c{c}"),
        None => format!("ephemeral of session {session:#x}, a crashed process's"),
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

pub(crate) use crate::store::words::{op, result};

fn message(message: &ServerMessage) -> String {
    match message {
        ServerMessage::Reply { result: r, .. } => format!("reply {}", result(r)),
        ServerMessage::Notification(event) => format!("event {} {}", event.kind.name(), event.path),
    }
}

/// The requests client `c` issued in this step (sent or queued).
pub(crate) fn sent<S, L>(
    before: &WorldState<S, L>,
    after: &WorldState<S, L>,
    c: usize,
) -> Vec<Request> {
    let pending = |state: &WorldState<S, L>| {
        let client = state.net.client(c);
        client
            .in_flight()
            .chain(client.queued())
            .cloned()
            .collect::<Vec<_>>()
    };
    let known: Vec<Xid> = pending(before).iter().map(|request| request.xid).collect();
    pending(after)
        .into_iter()
        .filter(|request| !known.contains(&request.xid))
        .collect()
}

/// What changed for client `c`'s recipe, and what it sent and believes.
fn reaction<R: Recipe>(
    before: &WorldState<R::State, R::Log>,
    after: &WorldState<R::State, R::Log>,
    c: usize,
    observed: &[(ClientId, Observation<R::Fact>)],
) -> String {
    let mut out = String::new();
    let requests: Vec<String> = sent(before, after, c)
        .iter()
        .map(|request| op(&request.op))
        .collect();
    if !requests.is_empty() {
        let _ = write!(out, "; sends {}", requests.join(", "));
    }
    if before.processes[c].recipe != after.processes[c].recipe {
        let _ = write!(out, "; now {}", after.processes[c].recipe);
    }
    let (was, is) = (before.history.holding[c], after.history.holding[c]);
    if was != is {
        match (was, is) {
            (_, Some(tenure)) => {
                let (verb, object) = tenure.role.words();
                let words = format!("{} {object}", verb.to_uppercase());
                let _ = write!(
                    out,
                    "; BELIEVES IT {} (token {})",
                    words.trim(),
                    tenure.token
                );
            }
            (Some(tenure), None) => {
                let (verb, object) = tenure.role.words();
                let words = format!("{verb} {object}");
                let _ = write!(out, "; no longer believes it {}", words.trim());
            }
            (None, None) => {}
        }
    }
    if before.history.resource != after.history.resource {
        let resource = after.history.resource;
        let _ = write!(out, "; the resource accepts its write");
        if resource.interleaved && !before.history.resource.interleaved {
            out.push_str(" AFTER A NEWER HOLDER'S");
        }
    }
    let facts: Vec<&R::Fact> = (observed.iter())
        .filter_map(|(client, seen)| match seen {
            Observation::Fact(fact) if *client == c => Some(fact),
            _ => None,
        })
        .collect();
    out.push_str(&after.history.log.tell(&before.history.log, c, &facts));
    out
}

/// Who a fault or a server action woke, and what it deleted.
fn fired<S, L: Log>(before: &WorldState<S, L>, after: &WorldState<S, L>) -> String {
    let mut out = String::new();
    let gone: Vec<String> = before
        .net
        .store
        .paths()
        .filter(|path| !after.net.store.exists(path))
        .map(|path| path.to_string())
        .collect();
    if !gone.is_empty() {
        let _ = write!(out, "; deleted {}", gone.join(", "));
    }
    out.push_str(&after.history.log.tell_served(&before.history.log));
    if after.history.herd && !before.history.herd {
        out.push_str("; ONE DELETION WOKE SEVERAL WAITERS");
    }
    out
}

/// One step in words, given what the recipes observed in it
/// ([`World::try_step_observed`]).
pub fn describe<R: Recipe>(
    world: &World<R>,
    before: &WorldState<R::State, R::Log>,
    action: &Action,
    after: &WorldState<R::State, R::Log>,
    observed: &[(ClientId, Observation<R::Fact>)],
) -> String {
    let reaction =
        |before: &WorldState<R::State, R::Log>, after, c| reaction::<R>(before, after, c, observed);
    match *action {
        Action::Invoke(c) => {
            let step = before.processes[c].commands_given;
            let command = &world.scripts[c][usize::from(step)];
            let timed = if world.is_timed(c, step) {
                " with a timeout"
            } else {
                ""
            };
            format!(
                "c{c} application: {command}{timed}{}",
                reaction(before, after, c)
            )
        }
        Action::Timeout(c) => {
            let command = world.recipe(c).timeout().map(|command| command.to_string());
            format!(
                "c{c}'s call times out: application: {}{}",
                command.unwrap_or_default(),
                reaction(before, after, c)
            )
        }
        Action::Serve(c) => {
            let request = before.net.links[c].up.front().expect("served a request");
            let server = server_name(&before.net, c);
            let reply = match (after.net.wait(c), after.net.links[c].down.back()) {
                (Some(wait), _) => format!(
                    "{server} answers once it has applied transaction {}",
                    wait.until - 1
                ),
                (
                    None,
                    Some(ServerMessage::Reply {
                        result: r, zxid, ..
                    }),
                ) => format!("{} (zxid {zxid})", result(r)),
                _ => "?".into(),
            };
            format!(
                "{server} serves c{c}: {} -> {reply}{}",
                op(&request.op),
                fired(before, after)
            )
        }
        Action::Apply(server) => {
            let what = match before.net.ensemble.next(server) {
                Some((
                    index,
                    Txn::Request {
                        session,
                        op: request,
                    },
                )) => {
                    format!(
                        "transaction {index}, {} of session {session:#x}",
                        op(request)
                    )
                }
                Some((index, Txn::Open)) => format!("transaction {index}, createSession"),
                Some((index, Txn::Expire(session))) => {
                    format!("transaction {index}, closeSession {session:#x} (expired)")
                }
                None => "?".into(),
            };
            let answers: String = (0..before.net.clients.len())
                .filter(|&c| before.net.wait(c).is_some() && after.net.wait(c).is_none())
                .map(|c| match after.net.links[c].down.back() {
                    Some(ServerMessage::Reply {
                        result: r, zxid, ..
                    }) if before.net.wait(c).is_some_and(|wait| wait.answered) => {
                        format!("; answers c{c}: {} (zxid {zxid})", result(r))
                    }
                    _ => format!("; finishes c{c}'s request, whose connection is gone"),
                })
                .collect();
            format!(
                "server {server} applies {what}{answers}{}",
                fired(before, after)
            )
        }
        Action::Deliver(c) => {
            let what = match before.net.links[c].down.front() {
                Some(m) => message(m),
                None => {
                    "the connection is gone: CONNECTIONLOSS for each request, then Disconnected"
                        .into()
                }
            };
            format!("c{c} reads {what}{}", reaction(before, after, c))
        }
        Action::Reconnect(c) => {
            let how = if after.net.client(c).state() == crate::client::ConnState::Expired {
                "learns its session EXPIRED"
            } else {
                "reconnects (SetWatches, SyncConnected)"
            };
            format!("c{c} {how}{}", reaction(before, after, c))
        }
        Action::Resume(c) => format!("c{c} resumes after its pause"),
        Action::Renew(c) => format!(
            "c{c}'s client library opens a new session {:#x}{}",
            after.net.session(c),
            reaction(before, after, c)
        ),
        Action::SessionTimeout(session) => {
            let crashed = (0..world.clients()).any(|c| {
                before.processes[c].status == Status::Crashed && before.net.session(c) == session
            });
            let whose = if crashed {
                "of a crashed process"
            } else {
                "that no client holds any more"
            };
            format!(
                "server expires the session {session:#x} {whose}{}",
                fired(before, after)
            )
        }
        Action::Fault(fault) => {
            let aimed = match fault.charge {
                crate::world::faults::Charge::Any => String::new(),
                crate::world::faults::Charge::Aimed(index) => world
                    .budget
                    .aimed
                    .get(usize::from(index))
                    .map(|aimed| format!(" [aimed at {}]", aimed.target))
                    .unwrap_or_default(),
            };
            // A library that gives up its session tells the recipe at once.
            let heard = if fault.kind.declaration().fate == crate::world::faults::Fate::LosesSession
            {
                format!(
                    "; c{} hears Expired{}",
                    fault.client,
                    reaction(before, after, fault.client)
                )
            } else {
                String::new()
            };
            format!(
                "FAULT: {}{aimed}{heard}{}",
                fault.words_in(before),
                fired(before, after)
            )
        }
    }
}

/// The server client `c` is connected to, as a trace names it: `server`
/// on one server, `server 2` in an ensemble (`server 0` is the leader).
fn server_name(net: &crate::net::Net, c: ClientId) -> String {
    match net.ensemble.servers() {
        1 => "server".into(),
        _ => format!("server {}", net.server(c)),
    }
}

/// A state as a person reads it (the explorer's state pane, a test's
/// failure): the znode tree, each client's phase, belief and connection,
/// what is in flight on each link, and the faults spent.
impl<S: std::fmt::Display, L> std::fmt::Debug for crate::world::WorldState<S, L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", picture(self))?;
        let in_flight = in_flight(self);
        if !in_flight.is_empty() {
            write!(f, "in flight:\n{in_flight}")?;
        }
        let any = crate::world::faults::Kind::ALL
            .into_iter()
            .filter(|kind| self.spent.any[*kind as usize] > 0)
            .map(|kind| format!("{} {}", kind.name(), self.spent.any[kind as usize]));
        let aimed = (self.spent.aimed.iter().enumerate())
            .filter(|(_, spent)| **spent > 0)
            .map(|(index, spent)| format!("aimed fault {} {spent}", index + 1));
        let spent: Vec<String> = any.chain(aimed).collect();
        if !spent.is_empty() {
            writeln!(f, "faults spent: {}", spent.join(", "))?;
        }
        Ok(())
    }
}
