//! Seeded random simulation, for worlds too large to exhaust.
//!
//! A walk starts at the initial state and takes one enabled action after
//! another, chosen by a ChaCha8 stream seeded with the walk's seed, until it
//! violates a property, nothing can happen, or it reaches the depth limit.
//! Each walk also draws how eager it is to inject faults (from never to one
//! step in three), so runs differ in their fault choices as well as in their
//! schedule. The stream is `rand_chacha`'s, specified and stable across
//! versions and machines (stateright's own simulation RNG is not), so a seed
//! names a walk: walk `i` of a simulation seeded `S` is the walk seeded
//! `S + i`, and `--seed S+i --runs 1` replays it alone.
//!
//! Threads take walks by seed, each the next one nobody has taken, and the
//! results are folded in seed order whatever order they finish in: the walk
//! reported for a property is the first *by seed* to find it, so the outcome
//! is the same for any number of threads. A counterexample is shrunk
//! ([`crate::shrink`]) before it is reported; its walk's seed still names
//! the walk that found it.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use stateright::{Expectation, Model, Property};

use crate::check::{Expected, Limit, Outcome, PanicReport, PropertyOutcome, Verdict};
use crate::recipe::Recipe;
use crate::shrink::{self, STEPS_MAX};
use crate::trace::{self, Trace};
use crate::world::{Action, Refusal, World};

/// How to simulate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimulateOptions {
    pub runs: u64,
    /// The first walk's seed; walk `i` uses `seed + i`.
    pub seed: u64,
    /// The longest walk, in steps.
    pub max_depth: usize,
    /// Threads walking at once (0 counts as 1). The outcome does not depend
    /// on it.
    pub threads: usize,
    /// Stop after the first walk, by seed, that finds something unexpected
    /// (a property's discovery the scenario does not expect, or a panic).
    pub fail_fast: bool,
}

impl Default for SimulateOptions {
    /// The command's defaults, on one thread.
    fn default() -> Self {
        SimulateOptions {
            runs: 1000,
            seed: 0,
            max_depth: 200,
            threads: 1,
            fail_fast: false,
        }
    }
}

/// Where one walk went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Walk {
    pub seed: u64,
    pub actions: Vec<Action>,
    /// Each property the walk found (an `always` violated, a `sometimes`
    /// reached), with how many of its actions it took to get there.
    pub found: Vec<(&'static str, usize)>,
    /// The message of the panic its last action caused, if it did.
    pub panicked: Option<String>,
}

impl Walk {
    /// How many actions it took to find `property`, if the walk found it.
    pub fn found(&self, property: &str) -> Option<usize> {
        self.found
            .iter()
            .find(|(name, _)| *name == property)
            .map(|(_, steps)| *steps)
    }
}

/// One walk from the initial state. It goes on after a violation (other
/// properties may break later), until nothing can happen, every property has
/// been found, or it is `max_depth` steps long.
pub fn walk<R: Recipe>(world: &World<R>, seed: u64, max_depth: usize) -> Walk {
    let properties = world.properties();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // How often this walk injects a fault when it can: 0 to 33 in 100.
    let fault_percent = rng.next_u64() % 34;
    let mut state = world.init_states().remove(0);
    let mut walk = Walk {
        seed,
        actions: Vec::new(),
        found: Vec::new(),
        panicked: None,
    };
    let mut enabled = Vec::new();
    loop {
        for property in &properties {
            if walk.found(property.name).is_none() && trace::discovered(world, property, &state) {
                walk.found.push((property.name, walk.actions.len()));
            }
        }
        if walk.actions.len() >= max_depth || walk.found.len() == properties.len() {
            return walk;
        }
        enabled.clear();
        if let Err(message) = world.enabled_caught(&state, &mut enabled) {
            walk.panicked = Some(message);
            return walk;
        }
        let (faults, progress): (Vec<&Action>, Vec<&Action>) =
            enabled.iter().partition(|action| !action.is_progress());
        let pool = if faults.is_empty()
            || (!progress.is_empty() && rng.next_u64() % 100 >= fault_percent)
        {
            progress
        } else {
            faults
        };
        if pool.is_empty() {
            return walk;
        }
        let action = pool[(rng.next_u64() % pool.len() as u64) as usize].clone();
        let next = world.step_caught(&state, &action);
        walk.actions.push(action);
        match next {
            Ok(next) => state = next,
            Err(Refusal::Panicked(message)) => {
                walk.panicked = Some(message);
                return walk;
            }
            Err(Refusal::NotEnabled) => unreachable!("an enabled action applies"),
        }
    }
}

/// How far a simulation has got, for a progress display.
#[derive(Clone, Copy, Debug)]
pub struct WalkProgress {
    /// Walks done, counted in seed order (a walk that finished before an
    /// earlier seed's is counted with it).
    pub walks: u64,
    /// Walks asked for.
    pub runs: u64,
    /// Steps taken by the walks done.
    pub steps: u64,
    pub elapsed: Duration,
}

impl WalkProgress {
    /// The time left at the rate so far, once a walk is done.
    pub fn eta(&self) -> Option<Duration> {
        (self.walks > 0).then(|| {
            let left = self.runs.saturating_sub(self.walks) as f64;
            self.elapsed.mul_f64(left / self.walks as f64)
        })
    }
}

/// A simulation: how to walk, and what the scenario expects.
struct SimulateTask<'a> {
    pub options: SimulateOptions,
    pub expect: &'a [(&'static str, Expected)],
    /// Called after each walk done (in seed order).
    pub progress: Option<fn(&WalkProgress)>,
}

/// The walks folded so far, in seed order.
struct Tally {
    walks: u64,
    steps: u64,
    deepest: usize,
    /// The first walk to find each property, in the world's order.
    first: Vec<Option<Walk>>,
    /// The first walk to panic.
    panicked: Option<Walk>,
}

impl Tally {
    /// Adds the next walk by seed. Answers whether it found something
    /// unexpected: a property whose entry in `unexpected` is set, or a panic.
    fn add<R: Recipe>(
        &mut self,
        walk: Walk,
        properties: &[Property<World<R>>],
        unexpected: &[bool],
    ) -> bool {
        self.walks += 1;
        self.steps += walk.actions.len() as u64;
        self.deepest = self.deepest.max(walk.actions.len());
        let mut surprising = walk.panicked.is_some();
        for (index, property) in properties.iter().enumerate() {
            if walk.found(property.name).is_some() {
                surprising |= unexpected[index];
                if self.first[index].is_none() {
                    self.first[index] = Some(walk.clone());
                }
            }
        }
        if walk.panicked.is_some() && self.panicked.is_none() {
            self.panicked = Some(walk);
        }
        surprising
    }
}

impl SimulateTask<'_> {
    /// Whether finding each property contradicts the scenario's expectation
    /// (a property it says nothing of is never unexpected).
    fn unexpected<R: Recipe>(&self, properties: &[Property<World<R>>]) -> Vec<bool> {
        properties
            .iter()
            .map(|property| {
                let found = match property.expectation {
                    Expectation::Sometimes => Verdict::Reached,
                    Expectation::Always | Expectation::Eventually => Verdict::Violated,
                };
                self.expect
                    .iter()
                    .any(|(name, expected)| *name == property.name && expected.verdict != found)
            })
            .collect()
    }

    /// Takes the walks on `threads` threads and folds them in seed order,
    /// stopping after the first unexpected one if asked to.
    fn walks<R: Recipe>(&self, world: &World<R>, started: Instant) -> Tally {
        let properties = world.properties();
        let unexpected = self.unexpected(&properties);
        let SimulateOptions {
            runs,
            seed,
            max_depth,
            threads,
            fail_fast,
        } = self.options;
        let mut tally = Tally {
            walks: 0,
            steps: 0,
            deepest: 0,
            first: vec![None; properties.len()],
            panicked: None,
        };
        let threads = threads.max(1);
        // Threads take consecutive walks a batch at a time: handing over
        // each walk alone costs more than a short walk. Batches are small
        // enough that each thread gets a dozen or so.
        let batch = (runs / (threads as u64 * 16)).clamp(1, 256);
        let next = AtomicU64::new(0);
        let stop = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let (sender, receiver) = mpsc::channel::<(u64, Vec<Walk>)>();
            for _ in 0..threads {
                let sender = sender.clone();
                let (next, stop) = (&next, &stop);
                scope.spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        let first = next.fetch_add(batch, Ordering::Relaxed);
                        if first >= runs {
                            break;
                        }
                        let walks = (first..runs.min(first.saturating_add(batch)))
                            .map(|run| walk(world, seed.wrapping_add(run), max_depth))
                            .collect();
                        if sender.send((first, walks)).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(sender);
            // Batches that finish before an earlier one wait here. A walk is
            // at most `max_depth` steps, so while the earliest batch runs
            // each other thread finishes at most about that many.
            let mut waiting = BTreeMap::new();
            'fold: for (first, walks) in receiver.iter() {
                waiting.insert(first, walks);
                while let Some(walks) = waiting.remove(&tally.walks) {
                    for walk in walks {
                        let surprising = tally.add(walk, &properties, &unexpected);
                        if let Some(report) = self.progress {
                            report(&WalkProgress {
                                walks: tally.walks,
                                runs,
                                steps: tally.steps,
                                elapsed: started.elapsed(),
                            });
                        }
                        if surprising && fail_fast {
                            break 'fold;
                        }
                    }
                }
            }
            // Threads still walking stop at their next walk; what they
            // walked past the last walk folded is not counted.
            stop.store(true, Ordering::Relaxed);
        });
        tally
    }
}

/// Walks `world` at random as `options` say and judges each property on
/// the first walk, by seed, that found it.
pub fn simulate_world<R: Recipe>(
    world: &World<R>,
    options: SimulateOptions,
    expect: &[(&'static str, Expected)],
    progress: Option<fn(&WalkProgress)>,
) -> Outcome {
    SimulateTask {
        options,
        expect,
        progress,
    }
    .run(world)
}

impl SimulateTask<'_> {
    fn run<R: Recipe>(self, world: &World<R>) -> Outcome {
        let started = Instant::now();
        let tally = self.walks(world, started);
        let outcomes = world
            .properties()
            .iter()
            .zip(tally.first)
            .map(|(property, walk)| judge(world, property, self.expect, walk))
            .collect();
        let panic = tally.panicked.map(|walk| PanicReport {
            message: walk.panicked.clone().expect("a walk that panicked"),
            trace: Some(Trace::of_panic(world, &walk.actions)),
            seed: Some(walk.seed),
        });
        Outcome {
            unique_states: 0,
            states: tally.steps as usize,
            max_depth: tally.deepest,
            elapsed: started.elapsed(),
            // A simulation sees some paths, never all.
            stopped: Some(Limit::Walks),
            walks: tally.walks,
            properties: outcomes,
            panic,
            coverage: None,
        }
    }
}

/// The verdict on `property` given the first walk that found it, if one did.
/// A counterexample (a violated `always`, or a `sometimes` reached against
/// the scenario's expectation) is shrunk; an expected example is left as the
/// walk found it.
fn judge<R: Recipe>(
    world: &World<R>,
    property: &Property<World<R>>,
    expect: &[(&'static str, Expected)],
    walk: Option<Walk>,
) -> PropertyOutcome {
    let Some(walk) = walk else {
        return PropertyOutcome::judge(property, expect, None, None, false);
    };
    // The walk goes on past the state that found the property: its trace is
    // the prefix up to that state.
    let steps = walk.found(property.name).expect("the walk found it");
    let actions = &walk.actions[..steps];
    let trace = Trace::replay(world, property, actions);
    let mut outcome = PropertyOutcome::judge(property, expect, Some(trace), Some(walk.seed), false);
    if outcome.actual == Verdict::Violated || !outcome.as_expected() {
        let found = |state: &_| trace::discovered(world, property, state);
        if let Some(shrunk) = shrink::shrink(world, found, actions, STEPS_MAX) {
            outcome.trace = Some(Trace::replay(world, property, &shrunk.actions));
            outcome.shrunk = Some(shrunk.shrinking);
        }
    }
    outcome
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::SimulateOptions;
    use crate::check::{Expected, Outcome, Verdict};
    use crate::scenario::Scenario;
    use crate::world::Action;

    fn pause_expire() -> Scenario {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        Scenario::load(&root.join("lock/guid_pause_expire.toml"), &root)
            .unwrap_or_else(|error| panic!("{error}"))
    }

    fn simulate(
        scenario: &Scenario,
        expect: &[(&'static str, Expected)],
        options: SimulateOptions,
    ) -> Outcome {
        scenario.world().simulate(options, expect, None)
    }

    /// Everything an outcome says but its time.
    type Said = (
        u64,
        usize,
        usize,
        Vec<(
            &'static str,
            Verdict,
            Option<u64>,
            Option<Vec<Action>>,
            Option<crate::shrink::Shrinking>,
        )>,
        Option<String>,
    );

    fn said(outcome: &Outcome) -> Said {
        (
            outcome.walks,
            outcome.states,
            outcome.max_depth,
            outcome
                .properties
                .iter()
                .map(|p| {
                    let actions = p.trace.as_ref().map(|trace| trace.actions.clone());
                    (p.name, p.actual, p.seed, actions, p.shrunk)
                })
                .collect(),
            outcome.panic.as_ref().map(|panic| panic.message.clone()),
        )
    }

    #[test]
    fn the_outcome_is_the_same_on_one_thread_or_three() {
        let scenario = pause_expire();
        let options = SimulateOptions {
            runs: 200,
            seed: 300,
            ..SimulateOptions::default()
        };
        let one = simulate(&scenario, &scenario.expect, options);
        let three = simulate(
            &scenario,
            &scenario.expect,
            SimulateOptions {
                threads: 3,
                ..options
            },
        );
        assert_eq!(said(&one), said(&three));
        assert_eq!(one.walks, 200);
        let mutex = &one.properties[0];
        assert_eq!(
            (mutex.name, mutex.actual),
            ("mutual_exclusion", Verdict::Violated)
        );
        let shrunk = mutex.shrunk.expect("a counterexample is shrunk");
        let trace = mutex.trace.as_ref().unwrap();
        assert!(trace.replays && trace.steps.len() <= shrunk.from && shrunk.complete);
        // An example the scenario expects is left as its walk found it.
        assert_eq!(one.properties[4].name, "someone_acquired");
        assert_eq!(one.properties[4].shrunk, None);
    }

    /// The steps of the walks seeded `seeds`, and the first of them to
    /// violate mutual exclusion.
    fn walks(scenario: &Scenario, seeds: std::ops::Range<u64>) -> (u64, Option<u64>) {
        let world = scenario.world();
        let walks: Vec<_> = seeds.map(|seed| world.walk(seed, 200)).collect();
        let steps = walks.iter().map(|walk| walk.actions.len() as u64).sum();
        let first = walks
            .iter()
            .find(|walk| walk.found("mutual_exclusion").is_some())
            .map(|walk| walk.seed);
        (steps, first)
    }

    #[test]
    fn fail_fast_stops_after_the_first_unexpected_walk_by_seed_on_any_threads() {
        let scenario = pause_expire();
        let mut expect = scenario.expect.clone();
        expect[0] = ("mutual_exclusion", Expected::proven(Verdict::Holds));
        let options = SimulateOptions {
            runs: 1000,
            seed: 40,
            fail_fast: true,
            ..SimulateOptions::default()
        };
        let one = simulate(&scenario, &expect, options);
        let two = simulate(
            &scenario,
            &expect,
            SimulateOptions {
                threads: 2,
                ..options
            },
        );
        assert_eq!(said(&one), said(&two));
        let first = one.properties[0]
            .seed
            .expect("a walk violates mutual exclusion");
        assert_eq!(one.walks, first - 40 + 1);
        // Exactly the walks up to that one are counted.
        let (steps, first_again) = walks(&scenario, 40..first + 1);
        assert_eq!((one.states as u64, first_again), (steps, Some(first)));
        // As the scenario expects it, a violation does not stop the walks.
        let all = simulate(
            &scenario,
            &scenario.expect,
            SimulateOptions {
                threads: 2,
                ..options
            },
        );
        assert_eq!(all.walks, 1000);
        assert_eq!(all.properties[0].seed, Some(first));
    }
}
