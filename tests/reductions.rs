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

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;
use std::sync::Arc;

use stateright::Model;
use zoocheck::catalogue::{Entry, Setting, Subject, Tuning};
use zoocheck::catalogued::{Catalogued, Visit};
use zoocheck::check::{CheckOptions, Verdict};
use zoocheck::client::library::Profiled;
use zoocheck::explore::{Classed, Explored};
use zoocheck::faults::{FaultBudget, Kind};
use zoocheck::knobs::Knobs;
use zoocheck::models::barrier::Barrier;
use zoocheck::models::configuration::Configuration;
use zoocheck::models::double_barrier::DoubleBarrier;
use zoocheck::models::election::Election;
use zoocheck::models::lock::Lock;
use zoocheck::models::membership::Membership;
use zoocheck::models::queue::Queue;
use zoocheck::models::semaphore::Semaphore;
use zoocheck::models::shared_lock::SharedLock;
use zoocheck::models::two_phase_commit::TwoPhaseCommit;
use zoocheck::partial_order;
use zoocheck::properties::termination;
use zoocheck::reduce::{Classes, Reductions};
use zoocheck::scenario::Scenario;
use zoocheck::store::StoreConfig;
use zoocheck::symmetry::{self, Groups, Renaming, Symmetric};
use zoocheck::world::steps::{self, Ample};
use zoocheck::world::{World, WorldState};

fn fingerprint<T: Hash>(value: &T) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// The fingerprint of `state` in a search that hashes it as `classes`.
fn classed<S, L>(state: &WorldState<S, L>, classes: Classes) -> u64
where
    S: Hash + Clone + Symmetric,
    L: Hash + Clone + Symmetric,
{
    fingerprint(&Classed {
        state: state.clone(),
        classes,
    })
}

/// How a search of `world` with `reductions` hashes its states.
fn classes_of<R: Catalogued>(world: &World<R>, reductions: Reductions) -> Classes {
    Explored::new(world.clone(), reductions).classes
}

/// The world of `scenarios/<name>.toml`.
fn world<R: Catalogued>(name: &str) -> World<R> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let scenario = Scenario::load(&root.join(format!("{name}.toml")), &root)
        .unwrap_or_else(|error| panic!("{error}"));
    Entry::<R>::typed_world(&scenario.setting())
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
                .map(|next| classed(&next, classes));
            (format!("{action:?}"), next)
        })
        .collect();
    (properties, termination::rank(state).0, steps)
}

/// Explores every real state of `world` and checks that the groups its
/// reductions make are a bisimulation: the number of real states and of
/// groups.
fn groups_agree<R: Catalogued>(world: World<R>, reductions: Reductions) -> (usize, usize) {
    let classes = classes_of(&world, reductions);
    let mut groups: HashMap<u64, (u64, String)> = HashMap::new();
    let states = every_state(&world, classes_of(&world, Reductions::NONE), |state| {
        let group = classed(state, classes);
        let signature = signature(&world, classes, state);
        let kept = groups
            .entry(group)
            .or_insert_with(|| (fingerprint(&signature), format!("{state:?}")));
        assert_eq!(
            kept.0,
            fingerprint(&signature),
            "two states the reductions merge differ:\n{}\nand\n{state:?}\n{signature:?}",
            kept.1
        );
    });
    (states, groups.len())
}

/// Visits every state `world` reaches, depth first, each once by its
/// fingerprint as `classes` hash it: how many.
fn every_state<R: Catalogued>(
    world: &World<R>,
    classes: Classes,
    visit: impl FnMut(&WorldState<R::State, R::Log>),
) -> usize {
    every_state_taking(world, classes, false, visit)
}

/// [`every_state`], taking from each state only its ample set
/// ([`partial_order::reduce`]) if `ample`.
fn every_state_taking<R: Catalogued>(
    world: &World<R>,
    classes: Classes,
    ample: bool,
    visit: impl FnMut(&WorldState<R::State, R::Log>),
) -> usize {
    every_state_within(world, classes, ample, usize::MAX, visit).0
}

/// [`every_state_taking`], breadth first to `depth` steps from an initial
/// state: how many states it visited, and whether it stopped there with
/// states still unexplored beyond (then it saw part of the graph).
fn every_state_within<R: Catalogued>(
    world: &World<R>,
    classes: Classes,
    ample: bool,
    depth: usize,
    mut visit: impl FnMut(&WorldState<R::State, R::Log>),
) -> (usize, bool) {
    let mut seen = HashSet::new();
    let mut queue: VecDeque<(WorldState<R::State, R::Log>, usize)> = world
        .init_states()
        .into_iter()
        .map(|state| (state, 0))
        .collect();
    seen.extend(queue.iter().map(|(state, _)| classed(state, classes)));
    let mut actions = Vec::new();
    let mut cut = false;
    while let Some((state, at)) = queue.pop_front() {
        visit(&state);
        world.actions(&state, &mut actions);
        if ample {
            partial_order::reduce(world, &state, &mut actions);
        }
        for action in actions.drain(..) {
            if let Some(next) = world.next_state(&state, action) {
                if at == depth {
                    cut |= !seen.contains(&classed(&next, classes));
                } else if seen.insert(classed(&next, classes)) {
                    queue.push_back((next, at + 1));
                }
            }
        }
    }
    (seen.len(), cut)
}

/// The `counters` reduction alone: symmetry's are checked below.
const COUNTERS: Reductions = Reductions {
    counters: true,
    ..Reductions::NONE
};

/// Checks the groups of `scenarios/<name>.toml`, and that they are what
/// the check counts: its states without reductions, and with them one
/// state per group (the search reaches every group, and no more).
fn check_groups<R: Catalogued>(name: &str) {
    let world = world::<R>(name);
    let (states, groups) = groups_agree(world.clone(), COUNTERS);
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
        (count(Reductions::NONE), count(COUNTERS)),
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

// Symmetry ([`zoocheck::symmetry`]): the orbits of renaming
// interchangeable clients must be bisimulation classes. Checked on whole
// reachable graphs: every real state (under the `counters` classes, checked
// above) is put in its orbit, the least fingerprint among all its renamings
// (every permutation within the world's groups), and every state of an
// orbit must agree with every other on each property, the termination rank,
// and the orbits its steps lead to, as a multiset (a renamed state's steps
// are the same steps of renamed clients). This is what a recipe declares
// when it says it is symmetric, and what would catch one acting on the
// order of a listing, or a name the renaming misses.

/// Every permutation of `0..groups.len()` that maps each client into its
/// own group (a client in no group stays).
fn permutations(groups: &[u8]) -> Vec<Vec<usize>> {
    let mut all = vec![Vec::new()];
    for client in 0..groups.len() {
        let mut next = Vec::new();
        for partial in &all {
            let choices = (0..groups.len()).filter(|&to| {
                let same = groups[client] > 0 && groups[to] == groups[client];
                (same || to == client) && !partial.contains(&to)
            });
            for to in choices {
                let mut longer: Vec<usize> = partial.clone();
                longer.push(to);
                next.push(longer);
            }
        }
        all = next;
    }
    all
}

/// The orbit of `state`: the least fingerprint of its renamings, hashed
/// under the `counters` classes.
fn orbit<S, L>(state: &WorldState<S, L>, renamings: &[Renaming], counters: Classes) -> u64
where
    S: Hash + Clone + Symmetric,
    L: Hash + Clone + Symmetric,
{
    (renamings.iter())
        .map(|renaming| {
            let renamed = symmetry::renamed(state, renaming).expect("renames");
            classed(&renamed, counters)
        })
        .min()
        .unwrap()
}

/// Explores every real state of `scenarios/<name>.toml` and checks that
/// its orbits are bisimulation classes; then that the check with symmetry
/// stores no fewer states than there are orbits, and no more than the
/// fingerprints the states have (ties in the representative's order split
/// some orbits): the real states, the orbits, and the states stored.
fn check_orbits<R: Catalogued>(name: &str) -> (usize, usize, usize) {
    let scenario_world = world::<R>(name);
    let seen = bisimilar_orbits(name, &scenario_world, usize::MAX);
    assert!(!seen.cut);
    // Partial-order reduction stores fewer states again, by other means
    // (checked below).
    let options = CheckOptions {
        reductions: Reductions {
            partial_order: false,
            ..Reductions::ALL
        },
        ..Default::default()
    };
    let stored = zoocheck::check::check_world(scenario_world.clone(), &options, &[]).unique_states;
    let counters = CheckOptions {
        reductions: COUNTERS,
        ..Default::default()
    };
    let real = zoocheck::check::check_world(scenario_world, &counters, &[]).unique_states;
    assert_eq!(real, seen.states, "{name}");
    assert!(stored < real, "{name}: symmetry merged nothing");
    assert!(
        seen.orbits <= stored && stored <= seen.fingerprints,
        "{name}: {} orbits, {stored} stored, {} fingerprints",
        seen.orbits,
        seen.fingerprints
    );
    (seen.states, seen.orbits, stored)
}

/// What [`bisimilar_orbits`] saw.
struct Orbits {
    /// The real states visited.
    states: usize,
    orbits: usize,
    /// The fingerprints of the states under symmetry.
    fingerprints: usize,
    /// Whether it stopped at its depth with states unexplored beyond.
    cut: bool,
}

/// Checks that the orbits of `world`'s real states within `depth`
/// steps of an initial one, called `name` in messages, are bisimulation
/// classes.
fn bisimilar_orbits<R: Catalogued>(name: &str, world: &World<R>, depth: usize) -> Orbits {
    let groups = world.interchangeable();
    assert!(groups.any(), "{name}: no interchangeable clients");
    let clients = world.clients();
    let order = world.store.child_order;
    let renamings: Vec<Renaming> = (permutations(&groups.0[..clients]).iter())
        .map(|to| Renaming::new(to, order))
        .collect();
    let classes = classes_of(&world, COUNTERS);
    let counters = Classes {
        symmetry: Groups::default(),
        ..classes
    };
    let mut orbits: HashMap<u64, (u64, WorldState<R::State, R::Log>)> = HashMap::new();
    // Each state's orbit, by its own fingerprint: a state is met as a
    // successor and again when visited.
    let mut orbit_of: HashMap<u64, u64> = HashMap::new();
    let mut orbit_once = |state: &WorldState<R::State, R::Log>| {
        *(orbit_of.entry(classed(state, counters)))
            .or_insert_with(|| orbit(state, &renamings, counters))
    };
    let mut fingerprints = HashSet::new();
    let mut actions = Vec::new();
    let (states, cut) = every_state_within(&world, classes, false, depth, |state| {
        let all = Classes {
            symmetry: groups,
            ..classes
        };
        fingerprints.insert(classed(state, all));
        let properties: Vec<bool> = (world.properties().iter())
            .map(|property| (property.condition)(&world, state))
            .collect();
        world.actions(state, &mut actions);
        let mut next: Vec<Option<u64>> = (actions.drain(..))
            .map(|action| {
                let next = world.next_state(state, action)?;
                Some(orbit_once(&next))
            })
            .collect();
        next.sort();
        let signature = (properties, termination::rank(state).0, next);
        let kept = (orbits.entry(orbit_once(state)))
            .or_insert_with(|| (fingerprint(&signature), state.clone()));
        assert_eq!(
            kept.0,
            fingerprint(&signature),
            "{name}: two renamings of one state differ:\n{:?}\nand\n{state:?}\n{signature:?}",
            kept.1
        );
    });
    Orbits {
        states,
        orbits: orbits.len(),
        fingerprints: fingerprints.len(),
        cut,
    }
}

#[test]
fn lock_orbits_are_bisimilar() {
    // Clients racing for the lock, a holder that loses its connection or
    // its session, a lost create reply recovered by its GUID, a crashed
    // process restarted, a pause aimed at whoever holds, a leftover node of
    // client 0's (an initial state renaming does not fix), every waiter
    // watching the directory.
    let counts = [
        "lock/guid_2_clients",
        "lock/guid_3_clients",
        "lock/guid_disconnect",
        "lock/guid_disconnect_expire",
        "lock/guid_lose_reply",
        "lock/guid_crash_restart",
        "lock/guid_holder_pauses_expire",
        "lock/guid_leftover_node",
        "lock/herd_lose_reply",
    ]
    .map(check_orbits::<Lock>);
    insta::assert_debug_snapshot!(counts);
}

#[test]
fn election_orbits_are_bisimilar() {
    // Every volunteer watching the directory, or the smallest: a leader
    // that resigns wakes one or all.
    let counts = [
        "election/watch_all_3_clients",
        "election/watch_smallest_3_clients",
    ]
    .map(check_orbits::<Election>);
    insta::assert_debug_snapshot!(counts);
}

#[test]
fn semaphore_orbits_are_bisimilar() {
    // Leases taken under the internal lock, a crash, a lost reply; leases
    // counted after their create.
    let counts = [
        "semaphore/reference_crash",
        "semaphore/reference_lose_reply",
        "semaphore/check_then_create_3_clients",
    ]
    .map(check_orbits::<Semaphore>);
    insta::assert_debug_snapshot!(counts);
}

#[test]
fn shared_lock_orbits_are_bisimilar() {
    // Two writers and a reader, the writers interchangeable; the variant
    // that watches the lowest write node.
    let counts = [
        "shared_lock/guid_writers_and_reader",
        "shared_lock/lowest_write_3_clients",
    ]
    .map(check_orbits::<SharedLock>);
    insta::assert_debug_snapshot!(counts);
}

// Every variant that claims symmetry is checked so, with no list kept by
// hand: for each recipe of the catalogue ([`zoocheck::models::each`]) and
// each of its variants, two clients running the same script of its group
// ([`Docs::group`]), under no fault and under each sort of fault that puts
// two nodes or two sessions under one client's name: a lost reply, an
// expiry, a crash and a restart, a session given up and renewed (each
// where the recipe takes it). A variant whose rule reads client names and
// claims symmetry fails here.

/// The budgets every symmetric variant is checked under, with whether the
/// clients' library, as `R` takes them.
fn symmetry_budgets<R: Catalogued>() -> Vec<(&'static str, FaultBudget, Profiled)> {
    let java = Profiled::DEFAULT;
    let curator = Profiled::named("curator5").expect("a profile");
    let kazoo = Profiled::named("kazoo2").expect("a profile");
    let all = [
        ("no fault", FaultBudget::default(), java),
        ("lose_reply", FaultBudget::of(Kind::LoseReply, 1), java),
        (
            "disconnect, expire",
            FaultBudget::of(Kind::Disconnect, 1).with(Kind::Expire, 1),
            java,
        ),
        (
            "crash, restart",
            FaultBudget::of(Kind::Crash, 1).with(Kind::Restart, 1),
            java,
        ),
        (
            "disconnect, abandon, renew",
            FaultBudget::of(Kind::Disconnect, 1).with(Kind::Abandon, 1),
            curator,
        ),
        (
            "disconnect, expire, kazoo2",
            FaultBudget::of(Kind::Disconnect, 1).with(Kind::Expire, 1),
            kazoo,
        ),
    ];
    all.into_iter()
        .filter(|(_, budget, library)| {
            R::check_faults(budget).is_ok() && (!library.library.renews() || R::RENEWS)
        })
        .collect()
}

/// How deep the check of every symmetric variant looks: past the end of
/// every world here that ends, and far into those that loop (a spinning
/// lock's), whose graphs have no end.
const SYMMETRY_DEPTH: usize = 32;

/// Every preset of `R`, then every setting one knob away from its reference
/// that no preset is: symmetry sees knobs as it sees variants.
fn every_setting<R: Catalogued>() -> Vec<Tuning> {
    let mut tunings: Vec<Tuning> = (R::VARIANTS.iter())
        .map(|(name, _)| Tuning::preset(name))
        .collect();
    let reference = R::VARIANTS[0].0;
    for knob in <R::Variant as Knobs>::KNOBS {
        for (value, _) in knob.values {
            let mut tuning = Tuning::preset(reference);
            tuning.turned.push((knob.key, value));
            if !(tunings.iter()).any(|known| known.knobs::<R>() == tuning.knobs::<R>()) {
                tunings.push(tuning);
            }
        }
    }
    tunings
}

struct EverySymmetricVariant {
    /// Which recipes, by name: the check is split by recipe so that the
    /// test harness runs the parts side by side.
    among: fn(&str) -> bool,
    /// Each world checked: recipe, variant, script and budget in words,
    /// and how much of its graph.
    checked: Vec<String>,
}

impl Visit for EverySymmetricVariant {
    fn recipe<R: Catalogued>(&mut self) {
        if !(self.among)(R::NAME) {
            return;
        }
        // Each script of the group once, in its order.
        let mut scripts: Vec<&[&str]> = Vec::new();
        for script in R::DOCS.group {
            if !scripts.contains(script) {
                scripts.push(script);
            }
        }
        for variant in &every_setting::<R>() {
            for script in &scripts {
                let twins: Vec<Vec<&'static str>> = vec![script.to_vec(); 2];
                let subject = Subject {
                    recipe: R::NAME,
                    variants: vec![variant.clone(); 2],
                    scripts: twins,
                    timed: vec![0; 2],
                };
                for (faults, budget, library) in symmetry_budgets::<R>() {
                    let params = toml::Table::new();
                    let world = Entry::<R>::typed_world(&Setting {
                        subject: &subject,
                        params: &params,
                        budget: &budget,
                        expire_anytime: false,
                        libraries: &vec![library; 2],
                        store: StoreConfig::default(),
                        tree: &[],
                    });
                    if !world.recipes[0].symmetric() {
                        break;
                    }
                    let name =
                        format!("{}/{variant} [{}] x2, {faults}", R::NAME, script.join(", "));
                    let seen = match bisimilar_orbits(&name, &world, SYMMETRY_DEPTH) {
                        Orbits { cut: true, .. } => {
                            format!("the states within {SYMMETRY_DEPTH} steps")
                        }
                        Orbits { states, orbits, .. } => {
                            format!("{states} states, {orbits} orbits")
                        }
                    };
                    self.checked.push(format!("{name}: {seen}"));
                }
            }
        }
    }
}

/// The worlds of [`EverySymmetricVariant`] of the recipes `among` names.
fn symmetric_variants_among(among: fn(&str) -> bool) -> Vec<String> {
    let mut every = EverySymmetricVariant {
        among,
        checked: Vec::new(),
    };
    zoocheck::models::each(&mut every);
    every.checked
}

/// The recipes with a test of their own below; the last test takes the rest.
const SYMMETRY_APART: [&str; 3] = ["lock", "semaphore", "election"];

#[test]
fn every_lock_variant_that_claims_symmetry_is_bisimilar_under_it() {
    insta::assert_debug_snapshot!(symmetric_variants_among(|name| name == "lock"));
}

#[test]
fn every_semaphore_variant_that_claims_symmetry_is_bisimilar_under_it() {
    insta::assert_debug_snapshot!(symmetric_variants_among(|name| name == "semaphore"));
}

#[test]
fn every_election_variant_that_claims_symmetry_is_bisimilar_under_it() {
    insta::assert_debug_snapshot!(symmetric_variants_among(|name| name == "election"));
}

#[test]
fn every_other_variant_that_claims_symmetry_is_bisimilar_under_it() {
    let rest = symmetric_variants_among(|name| !SYMMETRY_APART.contains(&name));
    insta::assert_debug_snapshot!(rest);
}

// Partial-order reduction ([`zoocheck::partial_order`]): from some states
// the search takes one client's steps only. Checked on whole reachable
// graphs against what its argument promises: the reduced graph reaches
// every value of what the properties read outside quiescent states (the
// history but for the node record, the store, the processes' statuses),
// every quiescent state itself, and every state of every client's process;
// and the check's verdicts are those of the check without it.

/// What the reduction must keep of a state: what the properties read
/// outside quiescent states, and the faults spent (the coverage of fault
/// kinds).
fn label<S, L: Hash>(state: &WorldState<S, L>) -> u64 {
    let history = &state.history;
    let statuses: Vec<_> = state
        .processes
        .iter()
        .map(|process| process.status)
        .collect();
    fingerprint(&(
        &history.holding,
        history.acquisitions,
        &history.resource,
        history.herd,
        history.woken,
        &history.log,
        &history.wakes,
        &state.net.store,
        servers(state),
        statuses,
        state.spent,
    ))
}

/// Each server's tree an ensemble's clients read (none on one server, whose
/// tree is the order's).
fn servers<S, L>(state: &WorldState<S, L>) -> Vec<&zoocheck::store::Store> {
    let ensemble = &state.net.ensemble;
    match ensemble.is_ensemble() {
        true => (0..ensemble.servers())
            .map(|server| ensemble.store(&state.net.store, server))
            .collect(),
        false => Vec::new(),
    }
}

/// What a search of all of a graph, or of its ample sets only, met: the
/// labels, the quiescent states and each client's process states.
#[derive(Debug, Default, PartialEq)]
struct Met {
    labels: HashSet<u64>,
    quiescent: HashSet<u64>,
    processes: HashSet<(usize, u64)>,
}

/// Explores `scenarios/<name>.toml` without reductions, then taking ample
/// sets only, and checks that both meet the same; then that the check with
/// the partial-order reduction alone gives the verdicts of the check
/// without, and stores the states of the second exploration: the states of
/// each.
fn check_ample_sets<R: Catalogued>(name: &str) -> (usize, usize) {
    let world = world::<R>(name);
    let none = classes_of(&world, Reductions::NONE);
    let meet = |ample: bool| {
        let mut met = Met::default();
        let states = every_state_taking(&world, none, ample, |state| {
            met.labels.insert(label(state));
            if world.is_quiescent(state) {
                met.quiescent.insert(fingerprint(state));
            }
            for (client, process) in state.processes.iter().enumerate() {
                met.processes.insert((client, fingerprint(process)));
            }
        });
        (states, met)
    };
    let (states, all) = meet(false);
    let (reduced, ample) = meet(true);
    let same = |what: &str, all: usize, ample: usize, missed: usize| {
        assert!(
            missed == 0 && all == ample,
            "{name}: the reduced graph misses {missed} of the {all} {what} of the whole \
             graph ({ample} met)"
        );
    };
    let missed = |all: &HashSet<_>, ample: &HashSet<_>| all.difference(ample).count();
    same(
        "labels",
        all.labels.len(),
        ample.labels.len(),
        missed(&all.labels, &ample.labels),
    );
    same(
        "quiescent states",
        all.quiescent.len(),
        ample.quiescent.len(),
        missed(&all.quiescent, &ample.quiescent),
    );
    let processes = |met: &Met| met.processes.len();
    let missed_processes = all.processes.difference(&ample.processes).count();
    same(
        "process states",
        processes(&all),
        processes(&ample),
        missed_processes,
    );
    assert!(reduced < states, "{name}: the reduction took every step");
    let check = |reductions| {
        let options = CheckOptions {
            reductions,
            ..Default::default()
        };
        let outcome = zoocheck::check::check_world(world.clone(), &options, &[]);
        let verdicts: Vec<_> = (outcome.properties.iter())
            .map(|property| (property.name, property.actual, property.proven))
            .collect();
        (outcome.unique_states, verdicts)
    };
    let (unreduced, verdicts) = check(Reductions::NONE);
    let only_order = Reductions {
        partial_order: true,
        ..Reductions::NONE
    };
    let (stored, reduced_verdicts) = check(only_order);
    assert_eq!(verdicts, reduced_verdicts, "{name}: verdicts");
    assert_eq!(
        (unreduced, stored),
        (states, reduced),
        "{name}: state counts"
    );
    (states, reduced)
}

#[test]
fn lock_ample_sets_keep_what_properties_read() {
    // Clients racing for the lock with no fault, then with lost
    // connections, lost replies, a crash and restart, a pause aimed at the
    // holder, an expiry whenever, acquires that time out, and the herd;
    // then lost connections under kazoo's library, which drops watches,
    // a lock node the server deletes once empty or idle, waiters woken
    // with no event, a resource in ZooKeeper, whose writes are judged
    // as the server applies them, under a crash and under a pause, an
    // application thread that waits a step after it took its reply; and on
    // a 3-server ensemble a lost reply, a holder that moves to another
    // server, and a `sync` before listing there.
    let counts = [
        "lock/guid_3_clients",
        "lock/guid_disconnect",
        "lock/guid_lose_reply",
        "lock/guid_crash_restart",
        "lock/guid_holder_pauses_expire",
        "lock/guid_expire_anytime",
        "lock/guid_acquire_timeout_lose_reply",
        "lock/careless_cancel_acquire_timeout",
        "lock/herd_lose_reply",
        "lock/guid_kazoo_disconnect",
        "lock/guid_lists_on_reconnect_kazoo_disconnect",
        "lock/guid_container_2_clients",
        "lock/guid_ttl_2_clients",
        "lock/guid_spurious_wake",
        "lock/holds_on_wake_spurious_wake",
        "lock/znode_resource_crash",
        "lock/znode_resource_pause_expire",
        "lock/unguarded_wait_2_clients",
        "lock/guid_ensemble_lose_reply",
        "lock/guid_ensemble_holder_moves",
        "lock/synced_guid_ensemble_lose_reply_move",
    ]
    .map(check_ample_sets::<Lock>);
    insta::assert_debug_snapshot!(counts);
}

#[test]
fn election_ample_sets_keep_what_properties_read() {
    // Every volunteer watching the leader; a leader that resigns or closes
    // its session, carefully or not; two volunteers on an ensemble whose
    // servers lag.
    let counts = [
        "election/watch_all_3_clients",
        "election/guid_close_while_volunteering",
        "election/careless_close_while_volunteering",
        "election/careless_resign_2_clients",
        "election/guid_2_clients_ensemble_lag_2",
    ]
    .map(check_ample_sets::<Election>);
    insta::assert_debug_snapshot!(counts);
}

#[test]
fn shared_lock_ample_sets_keep_what_properties_read() {
    // Writers and a reader with no fault, the variant that watches the
    // lowest write node, a pause past the session's expiry, and readers and
    // a writer on an ensemble.
    let counts = [
        "shared_lock/guid_writers_and_reader",
        "shared_lock/lowest_write_3_clients",
        "shared_lock/guid_pause_expire",
        "shared_lock/guid_readers_and_writer_ensemble",
    ]
    .map(check_ample_sets::<SharedLock>);
    insta::assert_debug_snapshot!(counts);
}

/// A path of the reduced graph can be longer than the path of the whole
/// graph it stands for, so a search cut at a depth does without the
/// reduction: with three clients the whole graph has an acquisition five
/// steps in, and the reduced one, which gives every client its first
/// command before any reply is read, only seven steps in.
#[test]
fn a_search_cut_at_a_depth_sees_what_the_whole_graph_has_within_it() {
    let world = world::<Lock>("lock/guid_3_clients");
    let verdicts = |reductions, max_depth, depth_bound| {
        let options = CheckOptions {
            reductions,
            max_depth,
            ..Default::default()
        };
        let bound = termination::Termination {
            depth_bound,
            ..Default::default()
        };
        let outcome = zoocheck::check::check_bounded(world.clone(), &options, &[], &bound);
        (outcome.properties.iter())
            .map(|property| (property.name, property.actual, property.proven))
            .collect::<Vec<_>>()
    };
    let deep = termination::DEPTH_BOUND_DEFAULT;
    for (max_depth, depth_bound) in [(Some(5), deep), (None, 5)] {
        let whole = verdicts(Reductions::NONE, max_depth, depth_bound);
        assert!(
            whole.contains(&("someone_acquired", Verdict::Reached, true)),
            "{max_depth:?} {depth_bound}: {whole:?}"
        );
        assert_eq!(
            verdicts(Reductions::ALL, max_depth, depth_bound),
            whole,
            "{max_depth:?} {depth_bound}"
        );
    }
}

/// Checks that [`symmetry::detached`], the copy a search thread makes of a
/// state another thread handed it, is the state (equal, with its
/// fingerprint) and shares none of the parts threads would otherwise
/// count references to together: the server's names and data, the client
/// libraries, the links, and the recipes' node names where the recipe can
/// be renamed. Returns how many states it looked at.
fn check_detached<R: Catalogued>(name: &str) -> usize {
    let world = world::<R>(name);
    let classes = classes_of(&world, Reductions::ALL);
    let mut shared_names = 0;
    let states = every_state(&world, classes, |state| {
        let copy = symmetry::detached(state);
        assert!(copy == *state, "{name}: a copy differs from its state");
        assert_eq!(classed(&copy, classes), classed(state, classes), "{name}");
        let (net, copied) = (&state.net, &copy.net);
        for (path, copied_path) in net.store.paths().zip(copied.store.paths()) {
            assert!(
                !Arc::ptr_eq(path.text(), copied_path.text()),
                "{name}: {path:?}"
            );
            if let (Some(Some(data)), Some(Some(copied_data))) =
                (net.store.data(path), copied.store.data(path))
            {
                assert!(!Arc::ptr_eq(data, copied_data), "{name}: {path:?}'s data");
            }
        }
        for (client, copied_client) in net.clients.iter().zip(&copied.clients) {
            assert!(
                !Arc::ptr_eq(client, copied_client),
                "{name}: a client library"
            );
        }
        for (link, copied_link) in net.links.iter().zip(&copied.links) {
            assert!(!Arc::ptr_eq(link, copied_link), "{name}: a link");
        }
        shared_names += (state.history.nodes.iter().zip(&copy.history.nodes))
            .filter(|(node, copied_node)| match (node, copied_node) {
                (Some((path, _)), Some((copied_path, _))) => {
                    Arc::ptr_eq(path.text(), copied_path.text())
                }
                _ => false,
            })
            .count();
    });
    assert_eq!(shared_names, 0, "{name}: the history's nodes shared");
    states
}

#[test]
fn a_state_handed_to_another_thread_is_copied_whole() {
    // Locks with lost replies, a restart and herds (requests, replies and
    // events on the links; watches at the server and in the libraries),
    // and a queue, whose recipe cannot be renamed and is cloned.
    let counts = (
        [
            "lock/guid_lose_reply",
            "lock/guid_crash_restart",
            "lock/herd_lose_reply",
        ]
        .map(check_detached::<Lock>),
        check_detached::<Queue>("queue/exactly_once_lose_reply"),
    );
    insta::assert_debug_snapshot!(counts);
}

/// What one step changed: which processes, which links (wholly, or their
/// incoming side), and whether the server's tree (on an ensemble, the
/// order's, a replica, the log or where a client stands).
struct Touched {
    processes: Vec<usize>,
    links: Vec<usize>,
    incoming: Vec<usize>,
    store: bool,
}

fn touched<S: PartialEq, L>(before: &WorldState<S, L>, after: &WorldState<S, L>) -> Touched {
    let differ = |same: &dyn Fn(usize) -> bool| -> Vec<usize> {
        (0..before.processes.len()).filter(|&c| !same(c)).collect()
    };
    Touched {
        processes: differ(&|c| before.processes[c] == after.processes[c]),
        links: differ(&|c| before.net.links[c] == after.net.links[c]),
        incoming: differ(&|c| before.net.links[c].down == after.net.links[c].down),
        store: before.net.store != after.net.store || before.net.ensemble != after.net.ensemble,
    }
}

/// Checks, on every step of `scenarios/<name>.toml` within `depth` steps,
/// what each kind of step says of itself (`StepKind`) and the
/// reductions rely on: a step changes no process but its client's; a step
/// partial-order reduction may take alone ([`Ample::Alone`]) leaves the
/// server and every link's incoming side as they were and no other
/// client's link, one that reads ([`Ample::Reads`]) leaves the server and
/// the other clients' links; only faults are not progress. The names of
/// the kinds it saw are added to `seen`.
fn check_step_kinds<R: Catalogued>(name: &str, depth: usize, seen: &mut HashSet<&'static str>) {
    let world = world::<R>(name);
    let mut actions = Vec::new();
    let classes = classes_of(&world, Reductions::NONE);
    every_state_within(&world, classes, false, depth, |state| {
        world.actions(state, &mut actions);
        for action in actions.drain(..) {
            let Some(next) = world.next_state(state, action.clone()) else {
                continue;
            };
            seen.insert(action.kind());
            let what = touched(state, &next);
            let own = action.client().into_iter().collect::<Vec<_>>();
            let others = |list: &[usize]| list.iter().any(|c| !own.contains(c));
            assert!(
                !others(&what.processes),
                "{name}: {action:?} changed the processes of {:?}",
                what.processes
            );
            assert_eq!(
                action.is_progress(),
                action.kind() != "fault",
                "{name}: {action:?}"
            );
            match action.ample() {
                Ample::Alone => assert!(
                    !what.store && what.incoming.is_empty() && !others(&what.links),
                    "{name}: {action:?}, taken alone by partial-order reduction, changed \
                     the server ({}), incoming links {:?} or links {:?}",
                    what.store,
                    what.incoming,
                    what.links
                ),
                Ample::Reads => assert!(
                    !what.store && !others(&what.links),
                    "{name}: {action:?}, a read, changed the server ({}) or links {:?}",
                    what.store,
                    what.links
                ),
                Ample::Never => {}
            }
            if action.ample() != Ample::Never {
                assert_eq!(action.actor(), action.client(), "{name}: {action:?}");
            }
        }
    });
}

#[test]
fn each_kind_of_step_says_truly_what_it_touches() {
    let mut seen = HashSet::new();
    for name in [
        "lock/guid_crash_restart",
        "lock/guid_ensemble_lose_reply_move",
        "lock/guid_pause_expire",
        "lock/guid_renews_after_abandon",
        "lock/careless_cancel_acquire_timeout",
        "lock/guid_disconnect_expire",
    ] {
        check_step_kinds::<Lock>(name, 12, &mut seen);
    }
    check_step_kinds::<Queue>("queue/exactly_once_lose_reply", 12, &mut seen);
    // A container deleted after its last holder released.
    check_step_kinds::<Lock>("lock/guid_container_2_clients", 20, &mut seen);
    // An application thread that waits a step after it took its reply.
    check_step_kinds::<Lock>("lock/unguarded_wait_2_clients", 12, &mut seen);
    // Every kind of step the registry has was taken somewhere above, so
    // each was checked.
    let kinds: HashSet<&str> = steps::KINDS.iter().map(|(name, _)| *name).collect();
    assert_eq!(seen, kinds);
}

/// A step's name for comparing the steps of two states whose counters
/// differ: a session's expiry names its session, which is a counter.
fn step_label(action: &impl std::fmt::Debug) -> String {
    let label = format!("{action:?}");
    if label.starts_with("SessionTimeout") {
        label.replace(|c: char| c.is_ascii_digit(), "#")
    } else {
        label
    }
}

/// Explores `scenarios/<name>.toml` to `depth` steps without reductions
/// and groups its states by their form with counters renamed in their
/// order ([`zoocheck::recount::canonical`]); every state of a group must
/// take the same steps into states of one group (or into states that
/// cannot be renamed, alike), and be quiescent alike. The states seen, the
/// groups, and the groups of more than one state.
fn check_counted<R: Catalogued>(name: &str, depth: usize) -> (usize, usize, usize) {
    let world = world::<R>(name);
    zoocheck::recount::applies(&world).unwrap_or_else(|why| panic!("{name}: {why}"));
    let directory = Some(world.directory().clone());
    let canonical = |state: &WorldState<R::State, R::Log>| {
        zoocheck::recount::canonical(state, directory.as_ref())
            .ok()
            .map(|canonical| fingerprint(&canonical))
    };
    let mut groups: HashMap<u64, (u64, usize, String)> = HashMap::new();
    let none = classes_of(&world, Reductions::NONE);
    let (states, _) = every_state_within(&world, none, false, depth, |state| {
        let Some(group) = canonical(state) else {
            return;
        };
        let mut actions = Vec::new();
        world.actions(state, &mut actions);
        let mut steps: Vec<(String, Option<u64>)> = actions
            .into_iter()
            .map(|action| {
                let next = world.next_state(state, action.clone());
                (step_label(&action), next.as_ref().and_then(canonical))
            })
            .collect();
        steps.sort();
        let signature = fingerprint(&(steps, world.is_quiescent(state)));
        let kept = groups
            .entry(group)
            .or_insert_with(|| (signature, 0, format!("{state:?}")));
        kept.1 += 1;
        assert_eq!(
            kept.0, signature,
            "{name}: two states equal but for their counters step apart:\n{}\nand\n{state:?}",
            kept.2
        );
    });
    let merged = groups
        .values()
        .filter(|(_, members, _)| *members > 1)
        .count();
    (states, groups.len(), merged)
}

#[test]
fn states_equal_but_for_their_counters_are_bisimilar() {
    // A spinner whose rounds come back but for their counters; clients
    // racing, losing their connections, sessions and replies, crashing and
    // restarting; an election whose volunteers all watch the directory; a
    // shared lock's readers and writers.
    let counts = [
        ("lock/spin_holder_stays", 40),
        ("lock/guid_2_clients", usize::MAX),
        ("lock/guid_lose_reply", usize::MAX),
        ("lock/guid_disconnect_expire", usize::MAX),
        ("lock/guid_crash_restart", usize::MAX),
    ]
    .map(|(name, depth)| (name, check_counted::<Lock>(name, depth)));
    let election = "election/watch_all_3_clients";
    let election = (election, check_counted::<Election>(election, 30));
    let shared = "shared_lock/guid_readers_and_writer";
    let shared = (shared, check_counted::<SharedLock>(shared, usize::MAX));
    insta::assert_debug_snapshot!((counts, election, shared));
}

/// The initial state of `text`, a lock scenario, in its form with counters
/// renamed, or why it has none.
fn counted_start(text: &str) -> Result<(), &'static str> {
    let scenario = Scenario::parse(text, Path::new("x.toml"), "lock/x").unwrap();
    let world = Entry::<Lock>::typed_world(&scenario.setting());
    let start = world.init_states().remove(0);
    zoocheck::recount::canonical(&start, Some(world.directory())).map(|_| ())
}

#[test]
fn a_starting_tree_whose_numbers_no_counter_gave_is_not_renamed() {
    let scenarios = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/lock");
    let read = |name: &str| std::fs::read_to_string(scenarios.join(name)).unwrap();
    // A leftover node the server named sequential, a foreign child with a
    // plain name: their numbers are the counter's, or there are none.
    assert_eq!(counted_start(&read("guid_leftover_node.toml")), Ok(()));
    let foreign = read("guid_foreign_child.toml");
    assert_eq!(counted_start(&foreign), Ok(()));
    // A plain name with a number the recipe reads as a sequence number.
    let planted = foreign.replace("/lock/readme", "/lock/old-lock-7");
    assert_ne!(planted, foreign);
    assert_eq!(
        counted_start(&planted),
        Err("a plain node of the counted directory has digits in its name")
    );
    // A counter started where its cversion wraps.
    assert_eq!(
        counted_start(&read("guid_sequence_starts_near_wrap.toml")),
        Err("a create counter is past 2^30, where its cversion wraps")
    );
}

/// Two clients of different libraries are never swapped: a renaming that
/// moved a kazoo client's state to a Java client's slot would give it the
/// other's rules on its next reconnect.
#[test]
fn clients_of_different_libraries_are_not_interchangeable() {
    let text = |second: &str| {
        format!(
            "description = \"x\"\nrecipe = \"lock\"\nvariant = \"guid\"\nscript = [\"acquire\", \"release\"]\n\
             [[client]]\nlibrary = {{ profile = \"kazoo2\" }}\n[[client]]\n{second}\n\
             [faults]\ndisconnect = 1\n[expect]\nmutual_exclusion = \"holds\"\nresource_safety = \"holds\"\n\
             herd_avoidance = \"holds\"\nno_orphan_no_deadlock = \"holds\"\nwaiter_woken = \"reached\"\n"
        )
    };
    let groups = |text: &str| {
        let scenario = Scenario::parse(text, Path::new("x.toml"), "lock/x").unwrap();
        Entry::<Lock>::typed_world(&scenario.setting())
            .interchangeable()
            .any()
    };
    assert!(groups(&text("library = { profile = \"kazoo2\" }")));
    assert!(!groups(&text("")));
}
