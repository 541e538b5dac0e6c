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

use std::time::{Duration, Instant};

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use stateright::Model;

use crate::recipe::Recipe;
use crate::scenario::{Limit, Outcome, PanicReport, PropertyOutcome, Verdict, WorldTask};
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

/// A simulation of a scenario's world, as a [`WorldTask`].
pub struct SimulateTask<'a> {
    pub options: SimulateOptions,
    pub expect: &'a [(&'static str, Verdict)],
    /// Called after each walk with the walks done and the steps taken.
    pub progress: Option<fn(u64, u64, Duration)>,
}

impl WorldTask for SimulateTask<'_> {
    type Output = Outcome;

    fn run<R: Recipe>(self, world: World<R>) -> Outcome {
        let started = Instant::now();
        let properties = world.properties();
        let mut first: Vec<Option<Walk>> = vec![None; properties.len()];
        let mut steps = 0u64;
        let mut deepest = 0;
        let mut panic = None;
        for run in 0..self.options.runs {
            let walk = walk(
                &world,
                self.options.seed.wrapping_add(run),
                self.options.max_depth,
            );
            steps += walk.actions.len() as u64;
            if let (None, Some(message)) = (&panic, &walk.panicked) {
                panic = Some(PanicReport {
                    message: message.clone(),
                    trace: Some(Trace::of_panic(&world, &walk.actions)),
                    seed: Some(walk.seed),
                });
            }
            deepest = deepest.max(walk.actions.len());
            for (index, property) in properties.iter().enumerate() {
                if first[index].is_none() && walk.found(property.name).is_some() {
                    first[index] = Some(walk.clone());
                }
            }
            if let Some(report) = self.progress {
                report(run + 1, steps, started.elapsed());
            }
        }
        let outcomes = properties
            .iter()
            .zip(first)
            .map(|(property, walk)| {
                // The walk goes on past the state that found the property: its
                // trace is the prefix up to that state.
                let trace = walk.as_ref().map(|walk| {
                    let steps = walk.found(property.name).expect("the walk found it");
                    Trace::replay(&world, property, &walk.actions[..steps])
                });
                let seed = walk.map(|walk| walk.seed);
                PropertyOutcome::judge(property, self.expect, trace, seed, false)
            })
            .collect();
        Outcome {
            unique_states: 0,
            states: steps as usize,
            max_depth: deepest,
            elapsed: started.elapsed(),
            // A simulation sees some paths, never all.
            stopped: Some(Limit::Walks),
            properties: outcomes,
            panic,
            coverage: None,
        }
    }
}
