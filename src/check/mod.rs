//! Checking a world: an exhaustive search of every state (our own depth-first
//! one, [`crate::search`], or stateright's breadth-first one),
//! the verdict on each property against the one expected, with its shortest
//! counterexample, what the search covered, and the limits it may stop at.

pub mod termination;

use std::fmt::Write as _;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use stateright::{Checker, Expectation, HasDiscoveries, Model, Property};

use crate::explore::{Control, Explored};
use crate::properties::termination::{depth_limit, Termination};
pub use crate::properties::verdict::{Expected, Verdict};
use crate::recipe::Recipe;
use crate::reduce::Reductions;
use crate::search::{follow, Limits, Search};
use crate::trace::{discovered, Trace};
use crate::world::faults::{Charge, FaultBudget, Kind, Spent};
use crate::world::{panic_message, Action, Panic, World, WorldState};

/// How to search.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// Breadth first (stateright's checker) instead of depth first. The
    /// verdicts are the same, and so are the counts unless some state
    /// violates every `always` property and meets every `sometimes` one:
    /// stateright's checker does not go on from such a state
    /// ([`crate::search`]), so its counts can be smaller and its
    /// `terminates` and coverage judged on fewer states. Breadth first keeps
    /// every state of a level in memory (about a kilobyte each) where depth
    /// first keeps a fingerprint, and gains nothing from a second thread. Shortest counterexamples are found
    /// by a search of their own either way.
    pub bfs: bool,
    /// Checker threads; 0 or 1 is one thread (deterministic counts and traces).
    pub threads: usize,
    /// Check no path longer than this many steps (at least 1).
    pub max_depth: Option<usize>,
    /// Stop after about this many states.
    pub max_states: Option<usize>,
    /// Stop after this long.
    pub timeout: Option<Duration>,
    /// Stop once the process holds this many bytes (resident), before the
    /// machine runs out: the search reports what it found so far.
    pub max_memory: Option<u64>,
    /// Called about five times a second while the search runs.
    pub progress: Option<fn(&Progress)>,
    /// The reached `sometimes` properties to give a shortest example too (a
    /// search of its own, as a violated `always` gets), not just the path
    /// the search happened to take.
    pub witnesses: Vec<String>,
    /// The reductions the search makes ([`crate::reduce`]; all by
    /// default): the verdicts are the same without them, the state counts
    /// smaller with them.
    pub reductions: Reductions,
    /// The faults every counterexample and witness searched for must
    /// include (`--through`): each shown is the shortest that strikes them
    /// all before its discovery, or the shortest of all where none does
    /// ([`PropertyOutcome::through`] says which).
    pub through: Vec<Through>,
}

/// A fault a counterexample must include (`--through`): any of a kind
/// (`lose_reply`, at any client or aimed), or one the scenario aims
/// (`pause@holder`, `pause@c1`, `lose_reply@Listing`: the aimed fault's
/// target as its `[[fault]]` names it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Through {
    pub kind: Kind,
    pub at: Option<String>,
}

impl std::str::FromStr for Through {
    type Err = String;

    fn from_str(text: &str) -> Result<Through, String> {
        let (kind, at) = match text.split_once('@') {
            Some((kind, at)) => (kind, Some(at)),
            None => (text, None),
        };
        let kind = Kind::named(kind.trim()).ok_or_else(|| {
            format!(
                "{} (or KIND@TARGET, a fault the scenario aims: pause@holder, pause@c1, pause@Held)",
                crate::text::expected_one_of(kind.trim(), &Kind::names())
            )
        })?;
        match at.map(str::trim) {
            Some("") => Err(format!(
                "{}: nothing after `@`; expected the target of an aimed {} (c1, a part or a phase)",
                crate::text::quoted(text, 60),
                kind.name()
            )),
            at => Ok(Through {
                kind,
                at: at.map(str::to_string),
            }),
        }
    }
}

impl std::fmt::Display for Through {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.at {
            Some(at) => write!(f, "{}@{at}", self.kind.name()),
            None => f.write_str(self.kind.name()),
        }
    }
}

impl Through {
    /// The budgets that pay for it in a scenario with `budget`: its kind at
    /// any client and every aimed fault of its kind, or the aimed faults
    /// at its target. An error says what the scenario aims instead.
    pub fn charges(&self, budget: &FaultBudget) -> Result<Vec<Charge>, String> {
        let aimed = (budget.aimed.iter().enumerate())
            .filter(|(_, aimed)| aimed.kind == self.kind)
            .filter(|(_, aimed)| self.at.as_ref().is_none_or(|at| aimed.target.key() == *at))
            .map(|(index, _)| Charge::Aimed(index as u8));
        let any = self.at.is_none().then_some(Charge::Any);
        let charges: Vec<Charge> = any.into_iter().chain(aimed).collect();
        match &self.at {
            Some(at) if charges.is_empty() => {
                let aims: Vec<String> = (budget.aimed.iter())
                    .filter(|aimed| aimed.kind == self.kind)
                    .map(|aimed| format!("{}@{}", self.kind.name(), aimed.target.key()))
                    .collect();
                Err(format!(
                    "--through {self}: the scenario aims no {} at {at}; {}",
                    self.kind.name(),
                    match (aims.is_empty(), budget.any[self.kind as usize] > 0) {
                        (true, true) => format!(
                            "it aims none, and budgets {} at any client: --through {}",
                            self.kind.name(),
                            self.kind.name()
                        ),
                        (true, false) => format!("it aims no {} at all", self.kind.name()),
                        (false, _) => format!("expected one of {}", aims.join(", ")),
                    }
                ))
            }
            _ => Ok(charges),
        }
    }

    /// Whether the faults `spent` include one of this kind paid by one of
    /// `charges`.
    fn struck(&self, charges: &[Charge], spent: &Spent) -> bool {
        charges.iter().any(|charge| match *charge {
            Charge::Any => spent.any[self.kind as usize] > 0,
            Charge::Aimed(index) => spent.aimed[usize::from(index)] > 0,
        })
    }
}

/// Where a running search is.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub states: usize,
    pub unique_states: usize,
    pub max_depth: usize,
    pub elapsed: Duration,
    /// The process's resident memory, in bytes, where the system tells.
    pub memory: Option<u64>,
}

/// The limit a search stopped at before it had seen every state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Depth,
    /// The scenario's depth bound (`[check] depth_bound`): some path is that
    /// long and still going ([`crate::properties::termination`]).
    DepthBound,
    States,
    Time,
    Memory,
    /// A simulation walks some paths, never all of them.
    Walks,
}

impl Limit {
    pub fn name(self) -> &'static str {
        match self {
            Limit::Depth => "depth",
            Limit::DepthBound => "depth_bound",
            Limit::States => "states",
            Limit::Time => "time",
            Limit::Memory => "memory",
            Limit::Walks => "walks",
        }
    }

    /// The limit in words, for the line under a table.
    pub fn describe(self) -> &'static str {
        match self {
            Limit::Depth => "the search stopped at its depth limit (--max-depth)",
            Limit::DepthBound => {
                "the search stopped at the scenario's depth bound ([check] depth_bound): a path that long is still going"
            }
            Limit::States => "the search stopped at its state limit (--max-states)",
            Limit::Time => "the search stopped at its time limit (--timeout)",
            Limit::Memory => "the search stopped at its memory budget (--max-memory)",
            Limit::Walks => "a simulation walks some paths, never all: it proves nothing",
        }
    }
}

/// A panic of the recipe, the store or the client library that a check or
/// a simulation met: a bug in the model or in zoocheck, never a verdict.
#[derive(Clone, Debug)]
pub struct PanicReport {
    pub message: String,
    /// The actions that lead to it, the last one panicking; `None` if the
    /// panic came from where no path can be rebuilt (a property's condition).
    pub trace: Option<Trace>,
    /// The seed of the walk that met it, in a simulation.
    pub seed: Option<u64>,
}

/// Checks `world` exhaustively (depth first by default; breadth first with
/// [`CheckOptions::bfs`]) and judges each property against `expect`, with
/// the default depth bound and `terminates` expected to hold: the check of
/// a world built by hand (a test's recipe).
pub fn check_world<R: Recipe>(
    world: World<R>,
    options: &CheckOptions,
    expect: &[(&'static str, Expected)],
) -> Outcome {
    check_bounded(world, options, expect, &Termination::default())
}

/// [`check_world`] with a scenario's depth bound and expectation of
/// `terminates` ([`crate::properties::termination`]), which it judges
/// after the recipe's own properties.
pub fn check_bounded<R: Recipe>(
    world: World<R>,
    options: &CheckOptions,
    expect: &[(&'static str, Expected)],
    bound: &Termination,
) -> Outcome {
    let started = Instant::now();
    let explored = Explored::new(world, options.reductions);
    let mut control = Arc::new(Control::default());
    let mut searched = search(&explored, options, bound, &control, started);
    // A path the partial-order reduction reorders can grow longer
    // ([`crate::partial_order`]): a search a depth limit cut searches again
    // without it, so that it sees what the whole graph has within the limit.
    let cut = matches!(searched.stopped, Some(Limit::Depth | Limit::DepthBound));
    let explored = if explored.reduces_order() && cut {
        let reductions = Reductions {
            partial_order: false,
            ..options.reductions
        };
        let explored = Explored::new(explored.world, reductions);
        control = Arc::new(Control::default());
        searched = search(&explored, options, bound, &control, started);
        explored
    } else {
        explored
    };
    let world = &explored.world;
    // A fault to go through that the scenario does not aim is a usage error
    // the command line reports first; here it is struck by no path.
    let through: Vec<(Through, Vec<Charge>)> = (options.through.iter())
        .map(|through| {
            let charges = through.charges(&world.budget).unwrap_or_default();
            (through.clone(), charges)
        })
        .collect();
    // The searches for shortest paths keep the same budget.
    let mut go_on = |_: usize| {
        options
            .timeout
            .is_none_or(|timeout| started.elapsed() < timeout)
            && !over_budget(options, crate::memory::resident_bytes())
    };
    let panic = panic_report(
        &explored,
        searched.kept_panic,
        searched.thread_panic,
        &mut go_on,
    );
    let complete = searched.stopped.is_none() && panic.is_none();
    for initial in world.init_states() {
        control.cover(world, &initial);
    }
    let coverage = Coverage::of(world, &control);
    let checker = &searched.checker;
    let discoveries = checker.discoveries();
    let mut properties: Vec<PropertyOutcome> = world
        .properties()
        .iter()
        .map(|property| {
            let found = discoveries.get(property.name).cloned();
            let asked = options.witnesses.iter().any(|name| name == property.name);
            let max_steps = depth_limit(options.max_depth, bound);
            let explained = found.map(|found| {
                explain(
                    &explored, property, &found, asked, &through, max_steps, &mut go_on,
                )
            });
            let (trace, routed) = explained.unzip();
            PropertyOutcome {
                through: routed.flatten(),
                ..PropertyOutcome::judge(property, expect, trace, None, complete)
            }
        })
        .collect();
    properties.push(termination::judge(
        world,
        &control,
        bound,
        searched.stopped,
        panic.is_some(),
        &mut go_on,
    ));
    Outcome {
        unique_states: checker.unique_state_count(),
        states: checker.state_count(),
        // The deepest path checked: a path the depth limit cut was not.
        max_depth: steps(checker.max_depth()).min(depth_limit(options.max_depth, bound)),
        elapsed: started.elapsed(),
        stopped: searched.stopped,
        walks: 0,
        properties,
        panic,
        coverage: Some(coverage),
    }
}

/// A search that ended: its checker, the limit it stopped at, and a panic
/// of the model (kept by the world) or of a checker thread.
struct Searched<R: Recipe> {
    checker: Searcher<R>,
    stopped: Option<Limit>,
    kept_panic: Option<Panic<R>>,
    thread_panic: Option<String>,
}

/// Runs the search of every state (ours depth first, stateright's breadth
/// first) until it ends or a limit stops it, reporting progress.
fn search<R: Recipe>(
    explored: &Explored<R>,
    options: &CheckOptions,
    bound: &Termination,
    control: &Arc<Control<R>>,
    started: Instant,
) -> Searched<R> {
    // Explore every state, even once every property has a discovery, so that
    // the state count is the size of the whole space and pins drift.
    let searched = explored.clone().steered(control);
    // Both searches count a path's states (the initial one is depth 1) and
    // skip, unchecked, a state at its target depth: checking every path of
    // `depth` steps takes a target of `depth + 2`. The scenario's depth
    // bound always applies, so a recipe that loops stops there.
    let depth = depth_limit(options.max_depth, bound);
    let mut checker = if options.bfs {
        let mut builder = searched
            .checker()
            .finish_when(HasDiscoveries::AllOf(["(explore every state)"].into()))
            .threads(options.threads.max(1))
            .target_max_depth(depth + 2);
        if let Some(states) = options.max_states {
            builder = builder.target_state_count(states);
        }
        if let Some(timeout) = options.timeout {
            builder = builder.timeout(timeout);
        }
        Searcher::Breadth(Box::new(builder.spawn_bfs()))
    } else {
        Searcher::Depth(Search::spawn(
            searched,
            Limits {
                threads: options.threads.max(1),
                target_depth: Some(depth + 2),
                target_states: options.max_states,
            },
        ))
    };
    let handles = checker.handles();
    let stopped = watch(&checker, &handles, options, control, started);
    let mut thread_panic = None;
    for handle in handles {
        if let Err(payload) = handle.join() {
            thread_panic = Some(panic_message(payload.as_ref()));
        }
    }
    // Paths are rebuilt through the model: let it act again.
    control.halt.store(false, Ordering::Relaxed);
    let kept_panic = control
        .panic
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .take();
    let stopped = if kept_panic.is_some() || thread_panic.is_some() {
        None
    } else {
        stopped
            .or_else(|| {
                options
                    .max_states
                    .filter(|&states| checker.state_count() >= states)
                    .map(|_| Limit::States)
            })
            .or_else(|| {
                options
                    .max_depth
                    .filter(|&depth| steps(checker.max_depth()) > depth)
                    .map(|_| Limit::Depth)
            })
            .or_else(|| {
                (steps(checker.max_depth()) > bound.depth_bound).then_some(Limit::DepthBound)
            })
            .or_else(|| {
                options
                    .timeout
                    .filter(|&timeout| started.elapsed() >= timeout)
                    .map(|_| Limit::Time)
            })
    };
    Searched {
        checker,
        stopped,
        kept_panic,
        thread_panic,
    }
}

/// The search that runs: zoocheck's own depth-first one (the default), or
/// stateright's breadth-first one.
enum Searcher<R: Recipe> {
    Depth(Search<Explored<R>>),
    Breadth(Box<dyn Checker<Explored<R>>>),
}

impl<R: Recipe> Searcher<R> {
    fn handles(&mut self) -> Vec<std::thread::JoinHandle<()>> {
        match self {
            Searcher::Depth(search) => search.handles(),
            Searcher::Breadth(checker) => checker.handles(),
        }
    }

    fn state_count(&self) -> usize {
        match self {
            Searcher::Depth(search) => search.state_count(),
            Searcher::Breadth(checker) => checker.state_count(),
        }
    }

    fn unique_state_count(&self) -> usize {
        match self {
            Searcher::Depth(search) => search.unique_state_count(),
            Searcher::Breadth(checker) => checker.unique_state_count(),
        }
    }

    fn max_depth(&self) -> usize {
        match self {
            Searcher::Depth(search) => search.max_depth(),
            Searcher::Breadth(checker) => checker.max_depth(),
        }
    }

    /// Each discovered property's path.
    fn discoveries(&self) -> std::collections::BTreeMap<&'static str, Vec<Action>> {
        match self {
            Searcher::Depth(search) => (search.discoveries().into_iter())
                // The first index picks the initial state: a world has one.
                .map(|(name, indices)| (name, follow(search.model(), &indices[1..])))
                .collect(),
            Searcher::Breadth(checker) => (checker.discoveries().into_iter())
                .map(|(name, path)| (name, path.into_actions()))
                .collect(),
        }
    }
}

/// Watches the search's workers until the last stops, reporting progress
/// and halting them at the time or memory limit: the limit it stopped at.
///
/// The workers themselves are watched, not `is_done`: stateright calls a
/// search done once every property has a discovery, while its workers go
/// on, and the limits must hold until the last of them stops. The caller
/// keeps the handles, to join them and hear of a worker's panic.
fn watch<R: Recipe>(
    checker: &Searcher<R>,
    handles: &[std::thread::JoinHandle<()>],
    options: &CheckOptions,
    control: &Control<R>,
    started: Instant,
) -> Option<Limit> {
    let mut stopped = None;
    while !handles.iter().all(std::thread::JoinHandle::is_finished) {
        let memory = crate::memory::resident_bytes();
        if let Some(report) = options.progress {
            report(&Progress {
                states: checker.state_count(),
                unique_states: checker.unique_state_count(),
                max_depth: steps(checker.max_depth()),
                elapsed: started.elapsed(),
                memory,
            });
        }
        if stopped.is_none() {
            if options
                .timeout
                .is_some_and(|timeout| started.elapsed() >= timeout)
            {
                stopped = Some(Limit::Time);
            } else if over_budget(options, memory) {
                stopped = Some(Limit::Memory);
            }
            if stopped.is_some() {
                control.halt.store(true, Ordering::Relaxed);
            }
        }
        std::thread::sleep(
            Duration::from_millis(200).min(started.elapsed() / 4 + Duration::from_millis(1)),
        );
    }
    stopped
}

/// What a panic the search met says, with the path to it where the world
/// kept the state it panicked in.
fn panic_report<R: Recipe>(
    explored: &Explored<R>,
    kept: Option<Panic<R>>,
    thread_panic: Option<String>,
    go_on: &mut impl FnMut(usize) -> bool,
) -> Option<PanicReport> {
    let world = &explored.world;
    match (kept, thread_panic) {
        (Some(kept), _) => {
            // The state itself, not one of its class: searched without
            // reductions, which would stop at the first of its class met.
            let exact = Explored::new(world.clone(), Reductions::NONE);
            let target = kept.state;
            let path = exact
                .shortest_path_within(|state| *state == target, go_on)
                .ok()
                .flatten();
            let trace = path.map(|mut actions| {
                actions.extend(kept.action.clone());
                Trace::of_panic(world, &actions)
            });
            Some(PanicReport {
                message: kept.message,
                trace,
                seed: None,
            })
        }
        (None, Some(message)) => Some(PanicReport {
            message,
            trace: None,
            seed: None,
        }),
        (None, None) => None,
    }
}

/// The trace of a discovery the search found by `found`: a counterexample,
/// or a witness `asked` for, is searched again for the shortest, breadth
/// first and only as deep as it is (if that search runs out of time or
/// memory, the path found is the one shown); an example nobody asked to see
/// keeps the search's path. With faults to go `through` (each with the
/// charges that pay for it), the shortest is searched first among the paths
/// that strike them all before their discovery, and how that went is
/// answered beside the trace; that search goes no deeper than `max_steps`.
fn explain<R: Recipe>(
    explored: &Explored<R>,
    property: &Property<World<R>>,
    found: &[Action],
    asked: bool,
    through: &[(Through, Vec<Charge>)],
    max_steps: usize,
    go_on: &mut impl FnMut(usize) -> bool,
) -> (Trace, Option<Routed>) {
    let world = &explored.world;
    if property.expectation == Expectation::Sometimes && !asked {
        return (Trace::replay(world, property, found), None);
    }
    let shortest = |path: &[Action]| Trace {
        shortest: true,
        ..Trace::replay(world, property, path)
    };
    let discovery = |state: &WorldState<R::State, R::Log>| discovered(world, property, state);
    let mut routed = None;
    // A fault no budget pays for strikes on no path: no search needed.
    let budgeted = |(through, charges): &(Through, Vec<Charge>)| {
        !charges.is_empty() && world.budget.total(through.kind) > 0
    };
    if !through.is_empty() && !through.iter().all(budgeted) {
        routed = Some(Routed::Around { searched_all: true });
    } else if !through.is_empty() {
        let struck = |state: &WorldState<R::State, R::Log>| {
            (through.iter()).all(|(through, charges)| through.struck(charges, &state.spent))
        };
        // As deep as the search for the verdicts went: a recipe that loops
        // has no end to the paths that never strike the fault.
        let searched = explored.shortest_path_steered(
            |state| struck(state) && discovery(state),
            |state| !discovery(state),
            Some(max_steps),
            &mut *go_on,
        );
        match searched {
            Ok(Some(path)) => return (shortest(&path), Some(Routed::Through)),
            Ok(None) => routed = Some(Routed::Around { searched_all: true }),
            Err(()) => {
                routed = Some(Routed::Around {
                    searched_all: false,
                })
            }
        }
    }
    let trace = match explored.shortest_path_within(discovery, go_on) {
        Ok(Some(path)) => shortest(&path),
        _ => Trace::replay(world, property, found),
    };
    (trace, routed)
}

/// The steps of a path stateright measures in states (the initial one is 1).
fn steps(depth: usize) -> usize {
    depth.saturating_sub(1)
}

/// Whether the process holds more memory than the search may.
fn over_budget(options: &CheckOptions, memory: Option<u64>) -> bool {
    matches!((options.max_memory, memory), (Some(budget), Some(memory)) if memory > budget)
}

/// What the checker found for one property.
#[derive(Clone, Debug)]
pub struct PropertyOutcome {
    pub name: &'static str,
    pub expected: Expected,
    pub actual: Verdict,
    /// Whether `actual` is proven: a discovery always is (its trace shows
    /// it); its absence only when the search saw every state.
    pub proven: bool,
    /// The counterexample (for a violated `always`) or example (for a reached
    /// `sometimes`): for a counterexample of a check, the shortest unless its
    /// search stopped at a limit ([`Trace::shortest`]).
    pub trace: Option<Trace>,
    /// The seed of the random walk that found it, in a simulation.
    pub seed: Option<u64>,
    /// How a simulation shrank the walk's counterexample into `trace`.
    pub shrunk: Option<crate::shrink::Shrinking>,
    /// Whether `trace` goes through the faults `--through` asks for, where
    /// it asks for some and the trace was searched for the shortest.
    pub through: Option<Routed>,
}

/// How a trace shown stands to the faults `--through` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Routed {
    /// It is the shortest that strikes them all before its discovery.
    Through,
    /// No path to a discovery strikes them all first: the trace is the
    /// shortest of all. `searched_all`: the search for one saw every state
    /// (else it stopped at a limit, and one may exist).
    Around { searched_all: bool },
}

/// How a property's verdict stands against its expectation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Judgement {
    /// As expected, and proven.
    Met,
    /// Proven otherwise than expected.
    NotMet,
    /// No discovery in the part of the space searched, which proves nothing
    /// (a search stopped at a limit; a simulation).
    Unproven,
}

/// What the path behind a verdict shows ([`PropertyOutcome::path`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shows {
    /// A run that breaks a violated `always`.
    Counterexample,
    /// A run that reaches a reached `sometimes`.
    Witness,
    /// The path an unproven verdict rests on, not a proof: a
    /// likely loop (`violated?`), or the path to the depth bound beside a
    /// `holds?` of `terminates`.
    Unproven,
}

impl Shows {
    /// `counterexample to`, `witness of`, `the unproven path behind`.
    pub fn words(self) -> &'static str {
        match self {
            Shows::Counterexample => "counterexample to",
            Shows::Witness => "witness of",
            Shows::Unproven => "the unproven path behind",
        }
    }
}

impl PropertyOutcome {
    /// The path behind this verdict, if it has one, and what it shows.
    pub fn path(&self) -> Option<(&Trace, Shows)> {
        let trace = self.trace.as_ref()?;
        let shows = match self.actual {
            Verdict::Violated if self.proven => Shows::Counterexample,
            Verdict::Reached => Shows::Witness,
            _ if !self.proven => Shows::Unproven,
            _ => return None,
        };
        Some((trace, shows))
    }

    /// The verdict on `property` given its discovery (`trace`, if any was
    /// found) in a search that saw every state or not (`complete`), beside
    /// the one `expect` asks for.
    pub fn judge<M: Model>(
        property: &stateright::Property<M>,
        expect: &[(&'static str, Expected)],
        trace: Option<Trace>,
        seed: Option<u64>,
        complete: bool,
    ) -> PropertyOutcome {
        let always = !matches!(property.expectation, Expectation::Sometimes);
        let actual = match (always, trace.is_some()) {
            (true, false) => Verdict::Holds,
            (true, true) => Verdict::Violated,
            (false, true) => Verdict::Reached,
            (false, false) => Verdict::Unreached,
        };
        let proven = complete || trace.is_some();
        let expected = expect
            .iter()
            .find(|(name, _)| *name == property.name)
            .map_or(
                Expected {
                    verdict: actual,
                    proven,
                    by_default: false,
                },
                |(_, expected)| *expected,
            );
        PropertyOutcome {
            name: property.name,
            expected,
            actual,
            proven,
            trace,
            seed,
            shrunk: None,
            through: None,
        }
    }

    /// Whether the verdict is the one expected (proven or not).
    pub fn as_expected(&self) -> bool {
        self.expected.verdict == self.actual
    }

    /// A proven verdict meets a proven expectation of it; an unproven one
    /// meets an unproven expectation of it. A verdict proven where the
    /// scenario expects it unproven is not met: the scenario says less than
    /// the search now shows.
    pub fn judgement(&self) -> Judgement {
        match (self.proven, self.as_expected(), self.expected.proven) {
            (true, true, true) | (false, true, false) => Judgement::Met,
            (true, true, false) | (true, false, _) => Judgement::NotMet,
            (false, _, _) => Judgement::Unproven,
        }
    }

    /// The verdict as a table shows it: `holds?` where unproven.
    pub fn shown(&self) -> String {
        let mark = if self.proven { "" } else { "?" };
        format!("{}{mark}", self.actual.name())
    }
}

/// What checking a scenario found.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub unique_states: usize,
    pub states: usize,
    /// The deepest path the search checked, in steps (actions from the
    /// initial state; not a counterexample's length: see each trace).
    pub max_depth: usize,
    /// The whole time, shortest-counterexample searches included.
    pub elapsed: Duration,
    /// The limit the search stopped at, if it did not see every state: then
    /// an absent discovery proves nothing. Always set for a simulation.
    pub stopped: Option<Limit>,
    /// The walks a simulation took (0 for a check).
    pub walks: u64,
    pub properties: Vec<PropertyOutcome>,
    /// A panic the search met (it stopped there).
    pub panic: Option<PanicReport>,
    /// What a check covered (a simulation reports none).
    pub coverage: Option<Coverage>,
}

/// What a check's search covered: each phase of the recipe some client
/// entered, and each fault kind the scenario budgets that some path
/// injected. Under `--max-depth D` it counts the states one step beyond D
/// that the search generated without checking them. A `sometimes` property left unreached is explained by what was
/// never entered (Spin prints the code it never reached; TLC counts each
/// action).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coverage {
    /// Each phase of [`Recipe::PHASES`], and whether it was entered.
    pub phases: Vec<(&'static str, bool)>,
    /// Each fault kind with a budget, and whether it was injected.
    pub faults: Vec<(&'static str, bool)>,
}

impl Coverage {
    /// The phases some client entered (`true`), or those none did.
    pub fn phases_entered(&self, entered: bool) -> Vec<&'static str> {
        named(&self.phases, entered)
    }

    /// The budgeted fault kinds some path injected (`true`), or those none did.
    pub fn faults_injected(&self, injected: bool) -> Vec<&'static str> {
        named(&self.faults, injected)
    }

    fn of<R: Recipe>(world: &World<R>, control: &Control<R>) -> Coverage {
        let phases = control.phases.load(Ordering::Relaxed);
        let faults = control.faults.load(Ordering::Relaxed);
        let names = R::PHASES;
        let named = names.len();
        debug_assert!(
            named == 64 || phases >> named == 0,
            "Recipe::phases set a bit that Recipe::PHASES does not name"
        );
        Coverage {
            phases: names
                .iter()
                .enumerate()
                .map(|(bit, name)| (*name, phases & 1 << bit != 0))
                .collect(),
            faults: world
                .budget
                .kinds()
                .map(|(kind, _)| (kind.name(), faults & 1 << kind as u16 != 0))
                .collect(),
        }
    }
}

impl Outcome {
    /// Whether every property's verdict is the one expected, proven or not.
    pub fn as_expected(&self) -> bool {
        self.panic.is_none() && self.properties.iter().all(PropertyOutcome::as_expected)
    }

    /// Whether the search saw every state: only then does "holds" mean proven.
    pub fn complete(&self) -> bool {
        self.stopped.is_none() && self.panic.is_none()
    }

    /// The worst judgement of any property (a panic is not met).
    pub fn judgement(&self) -> Judgement {
        let judgements = self.properties.iter().map(PropertyOutcome::judgement);
        if self.panic.is_some() || judgements.clone().any(|j| j == Judgement::NotMet) {
            Judgement::NotMet
        } else if judgements.clone().any(|j| j == Judgement::Unproven) {
            Judgement::Unproven
        } else {
            Judgement::Met
        }
    }
}

/// Which phases [`unreached_why`] names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PhasesNamed {
    /// Those no client entered: what a person reading why a `sometimes` went
    /// unreached looks for first (the command line).
    NotEntered,
    /// Those some client entered: what a snapshot pins, since a phase that
    /// a shared recipe core gains and this variant never enters must move no
    /// other recipe's or variant's snapshot.
    Entered,
}

/// Why a `sometimes` property may have gone unreached, when one did: the
/// recipe phases no client entered (or those some did) and the budgeted
/// faults never injected (in the part searched, if the search stopped at a
/// limit).
pub fn unreached_why(outcome: &Outcome, named: PhasesNamed) -> Option<String> {
    let unreached: Vec<&str> = outcome
        .properties
        .iter()
        .filter(|property| property.actual == Verdict::Unreached)
        .map(|property| property.name)
        .collect();
    let coverage = outcome.coverage.as_ref()?;
    if unreached.is_empty() {
        return None;
    }
    let searched = if outcome.stopped.is_some() {
        " in the part searched"
    } else {
        ""
    };
    let (phases, entered) = match named {
        PhasesNamed::NotEntered => ("phases no client entered", false),
        PhasesNamed::Entered => ("phases entered", true),
    };
    let mut out = format!(
        "unreached: {}; {phases}{searched}: {}",
        unreached.join(", "),
        names_or_none(&coverage.phases_entered(entered))
    );
    if !coverage.faults.is_empty() {
        let _ = write!(
            out,
            "; faults never injected: {}",
            names_or_none(&coverage.faults_injected(false))
        );
    }
    Some(out)
}

/// The names whose flag is `wanted`.
fn named(items: &[(&'static str, bool)], wanted: bool) -> Vec<&'static str> {
    items
        .iter()
        .filter(|(_, flag)| *flag == wanted)
        .map(|(name, _)| *name)
        .collect()
}

/// `a, b, c`, or `none`.
pub fn names_or_none(names: &[&str]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}
