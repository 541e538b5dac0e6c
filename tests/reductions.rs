//! The reductions ([`zoocheck::reduce`]) merge only states that no step can
//! tell apart. Here that is checked on whole reachable graphs, without
//! trusting the argument in the module's documentation: every real state of
//! a scenario is explored (no reduction), grouped by the fingerprint the
//! reductions give it, and every state of a group must agree with every
//! other on what can be observed of it (each property, the termination
//! rank) and on what it can do (its enabled actions, and for each the group
//! of the state it leads to). Then the groups are a bisimulation: whatever
//! a merged state could do, the state the search kept does, step for step.
//!
//! The scenarios chosen are those where the merged counters are read:
//! clients that keep data and child watches, lose their connections or
//! replies, reconnect with `SetWatches`, renew their sessions and restart,
//! over eight recipes. What it cannot show is that no other scenario has
//! a pair it would catch: that rests on the argument in `src/reduce.rs`.

use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;

use stateright::Model;
use zoocheck::catalogue::{Catalogued, Entry};
use zoocheck::check::CheckOptions;
use zoocheck::models::barrier::Barrier;
use zoocheck::models::configuration::Configuration;
use zoocheck::models::double_barrier::DoubleBarrier;
use zoocheck::models::election::Election;
use zoocheck::models::lock::Lock;
use zoocheck::models::membership::Membership;
use zoocheck::models::queue::Queue;
use zoocheck::models::two_phase_commit::TwoPhaseCommit;
use zoocheck::properties::termination;
use zoocheck::reduce::{Classes, Reductions};
use zoocheck::scenario::Scenario;
use zoocheck::world::{World, WorldState};

fn fingerprint<T: Hash>(value: &T) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// The world of `scenarios/<name>.toml`.
fn world<R: Catalogued>(name: &str) -> World<R> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let scenario = Scenario::load(&root.join(format!("{name}.toml")), &root)
        .unwrap_or_else(|error| panic!("{error}"));
    Entry::<R>::typed_world(&scenario)
}

/// What the states of one group must agree on: each property, the rank,
/// and each enabled action with the group it leads to (none if the step
/// leads nowhere).
type Signature = (Vec<bool>, [u64; 5], Vec<(String, Option<u64>)>);

/// A state's [`Signature`].
fn signature<R: Catalogued>(
    world: &World<R>,
    classes: Classes,
    state: &WorldState<R::State, R::Log>,
) -> Signature {
    let properties = (world.properties().iter())
        .map(|property| (property.condition)(world, state))
        .collect();
    let mut actions = Vec::new();
    world.actions(state, &mut actions);
    let steps = actions
        .into_iter()
        .map(|action| {
            let next = world
                .next_state(state, action.clone())
                .map(|next| fingerprint(&WorldState { classes, ..next }));
            (format!("{action:?}"), next)
        })
        .collect();
    (properties, termination::rank(state).0, steps)
}

/// Explores every real state of `world` and checks that the groups its
/// reductions make are a bisimulation: the number of real states and of
/// groups.
fn groups_agree<R: Catalogued>(world: World<R>) -> (usize, usize) {
    let classes = world.classes();
    let world = World {
        reductions: Reductions::NONE,
        ..world
    };
    let mut seen = HashSet::new();
    let mut stack = world.init_states();
    seen.extend(stack.iter().map(fingerprint));
    let mut groups: HashMap<u64, (u64, String)> = HashMap::new();
    let mut actions = Vec::new();
    while let Some(state) = stack.pop() {
        let group = fingerprint(&WorldState {
            classes,
            ..state.clone()
        });
        let signature = signature(&world, classes, &state);
        let kept = groups
            .entry(group)
            .or_insert_with(|| (fingerprint(&signature), format!("{state:?}")));
        assert_eq!(
            kept.0,
            fingerprint(&signature),
            "two states the reductions merge differ:\n{}\nand\n{state:?}\n{signature:?}",
            kept.1
        );
        world.actions(&state, &mut actions);
        for action in actions.drain(..) {
            if let Some(next) = world.next_state(&state, action) {
                if seen.insert(fingerprint(&next)) {
                    stack.push(next);
                }
            }
        }
    }
    (seen.len(), groups.len())
}

/// Checks the groups of `scenarios/<name>.toml`, and that they are what
/// the check counts: its states without reductions, and with them one
/// state per group (the search reaches every group, and no more).
fn check_groups<R: Catalogued>(name: &str) {
    let world = world::<R>(name);
    let (states, groups) = groups_agree(world.clone());
    let count = |reductions| {
        zoocheck::check::check_world(
            world.clone(),
            &CheckOptions {
                reductions,
                ..Default::default()
            },
            &[],
        )
        .unique_states
    };
    assert_eq!(
        (states, groups),
        (count(Reductions::NONE), count(Reductions::ALL)),
        "{name}"
    );
    assert!(groups < states, "{name}: the reductions merged nothing");
}

#[test]
fn merged_lock_states_are_bisimilar() {
    // A holder loses its connection and reconnects while a waiter watches
    // its node; a lost reply is recovered by listing again.
    check_groups::<Lock>("lock/guid_disconnect");
    check_groups::<Lock>("lock/guid_lose_reply");
    // Sessions renewed in the process, a process restarted: client
    // libraries that start over, their xids from 1.
    check_groups::<Lock>("lock/guid_renews_after_abandon");
    check_groups::<Lock>("lock/guid_crash_restart");
}

#[test]
fn merged_configuration_states_are_bisimilar() {
    // Readers keep a data watch on /config across a lost connection;
    // writers change it meanwhile; readers renew their sessions.
    check_groups::<Configuration>("configuration/reference_disconnect_expire");
    check_groups::<Configuration>("configuration/reference_renews_after_abandon");
}

#[test]
fn merged_barrier_states_are_bisimilar() {
    // An exists watch on the barrier node, across a dropped connection.
    check_groups::<Barrier>("barrier/reference_disconnect");
}

#[test]
fn merged_queue_states_are_bisimilar() {
    // Child watches on the queue, a lost reply and its recovery.
    check_groups::<Queue>("queue/exactly_once_2_consumers_lose_reply");
}

#[test]
fn merged_child_watch_states_are_bisimilar() {
    // Child watches (pzxid) across lost connections and expiries: every
    // volunteer watching the election directory, a double barrier's ready
    // and leave waits, group views, two-phase commit's vote listings.
    check_groups::<Election>("election/watch_all_3_clients");
    check_groups::<DoubleBarrier>("double_barrier/seed_disconnect_expire");
    check_groups::<Membership>("membership/reference_disconnect_expire");
    check_groups::<TwoPhaseCommit>("two_phase_commit/reference_disconnect_expire");
}
