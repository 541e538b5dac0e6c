//! Shrinking a random walk's discovery to a shorter path that still makes it.
//!
//! A walk wanders: of the eighteen steps after which one walk breaks the
//! lock's mutual exclusion, a third are beside the point (a client reading a
//! reply it never acts on, a listing it will redo). The shrinker shortens the
//! path while the discovery stays made (an `always` property violated, or a
//! `sometimes` one reached):
//!
//! 1. Cut the path at the first state that makes the discovery.
//! 2. Delete chunks of actions: half the path first, then a quarter, down to
//!    single actions, left to right (delta debugging, deletions only). A
//!    candidate is kept if each of its actions is enabled where it is taken
//!    ([`World::try_step`]) and some state on it makes the discovery; it is
//!    cut there. Rounds repeat until one deletes nothing.
//! 3. Deletions cannot reorder: a client that listed the lock before the
//!    expiry that matters needs its listing after it, not gone. So look for
//!    a shortcut: from each state of the path, the last first, search breadth
//!    first for a discovery in fewer actions than the path takes from there.
//!    The first found replaces the rest of the path; back to 2. A search that
//!    outgrows [`SEARCH_STEPS_MAX`] ends the sweep (one from an earlier state
//!    would search all it did, and more).
//!
//! It ends when 2 deletes nothing and 3 finds no shortcut, or after
//! [`STEPS_MAX`] steps in all. Ended by the first, the path is 1-minimal:
//! deleting any one of its actions gives a list that no longer replays or no
//! longer makes the discovery; and no search within the limit finds a shorter
//! way from any of its last states. It is not always a shortest path (a
//! check finds that, see [`World::shortest_path`]). Everything is taken in a
//! fixed order: the same path shrinks to the same path.

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};

use stateright::Model;

use crate::recipe::Recipe;
use crate::world::{Action, World, WorldState};

/// The steps one shrink takes at most, replaying candidates and searching
/// (a few seconds at the walks' rate).
pub const STEPS_MAX: u64 = 1_000_000;

/// The steps one shortcut search takes at most; it holds the states of the
/// level it searches and the next (about a kilobyte each).
pub const SEARCH_STEPS_MAX: u64 = 20_000;

/// How a path was shrunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shrinking {
    /// The path's length before shrinking (cut at its discovery).
    pub from: usize,
    /// World steps taken, replaying and searching.
    pub steps: u64,
    /// Whether it ended with nothing more to delete and no shortcut found;
    /// `false` if it stopped at [`STEPS_MAX`] first.
    pub complete: bool,
}

/// A shrunk path and how it was shrunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shrunk {
    pub actions: Vec<Action>,
    pub shrinking: Shrinking,
}

/// Shrinks `actions`, a path from the initial state to a state where `found`
/// holds, taking at most `steps_max` steps after cutting it at its discovery.
/// `None` if `actions` does not replay to such a state.
pub fn shrink<R: Recipe>(
    world: &World<R>,
    found: impl Fn(&WorldState<R::State, R::Log>) -> bool,
    actions: &[Action],
    steps_max: u64,
) -> Option<Shrunk> {
    let mut shrinker = Shrinker {
        world,
        found,
        kept: Vec::new(),
        states: vec![world.init_states().remove(0)],
        steps: 0,
        // The cut is not shrinking: it takes what it takes.
        steps_max: u64::MAX,
    };
    let found_at_start = (shrinker.found)(&shrinker.states[0]);
    if !found_at_start && !matches!(shrinker.accepts(0, actions), Ok(true)) {
        return None;
    }
    (shrinker.steps, shrinker.steps_max) = (0, steps_max);
    let from = shrinker.kept.len();
    let complete = shrinker.shrink().is_some();
    Some(Shrunk {
        actions: shrinker.kept,
        shrinking: Shrinking {
            from,
            steps: shrinker.steps,
            complete,
        },
    })
}

/// The budget of steps ran out.
struct Spent;

struct Shrinker<'a, R: Recipe, F> {
    world: &'a World<R>,
    found: F,
    /// The shortest path accepted so far. It makes the discovery after its
    /// last action and after no earlier one.
    kept: Vec<Action>,
    /// `states[i]` is the state after the first `i` actions of `kept`.
    states: Vec<WorldState<R::State, R::Log>>,
    steps: u64,
    steps_max: u64,
}

/// What a shortcut search found.
enum Search {
    Shortcut(Vec<Action>),
    None,
    /// It outgrew [`SEARCH_STEPS_MAX`].
    TooLarge,
}

impl<R: Recipe, F: Fn(&WorldState<R::State, R::Log>) -> bool> Shrinker<'_, R, F> {
    /// Deletions and shortcuts until neither shortens the path.
    fn shrink(&mut self) -> Option<()> {
        loop {
            self.delete_chunks()?;
            if !self.shortcut()? {
                return Some(());
            }
        }
    }

    /// Takes one step of the budget.
    fn spend(&mut self) -> Result<(), Spent> {
        if self.steps >= self.steps_max {
            return Err(Spent);
        }
        self.steps += 1;
        Ok(())
    }

    /// Rounds of chunk deletions until one deletes nothing.
    fn delete_chunks(&mut self) -> Option<()> {
        loop {
            let mut deleted = false;
            let mut chunk = (self.kept.len() / 2).max(1);
            loop {
                // Never the last action: without it the path is a prefix
                // of `kept`, which makes no discovery.
                let mut from = 0;
                while from + 1 < self.kept.len() {
                    let to = (from + chunk).min(self.kept.len() - 1);
                    let rest = self.kept[to..].to_vec();
                    if self.accepts(from, &rest).ok()? {
                        // What followed the chunk is now at `from`: try it.
                        deleted = true;
                    } else {
                        from = to;
                    }
                }
                if chunk == 1 {
                    break;
                }
                chunk /= 2;
            }
            if !deleted {
                return Some(());
            }
        }
    }

    /// Replays `rest` after the first `at` actions of `kept`. If each action
    /// is enabled until some state makes the discovery, keeps the path up to
    /// that state and answers `true`.
    fn accepts(&mut self, at: usize, rest: &[Action]) -> Result<bool, Spent> {
        let mut state = self.states[at].clone();
        for (index, action) in rest.iter().enumerate() {
            self.spend()?;
            match self.world.try_step(&state, action) {
                Ok(next) => state = next,
                Err(_) => return Ok(false),
            }
            if self.discovery(&state) {
                self.keep(at, &rest[..=index]);
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether `state` makes the discovery, and the world can list what may
    /// happen there: so that the path's trace replays as
    /// [`Trace::replay`](crate::trace::Trace::replay) judges it.
    fn discovery(&self, state: &WorldState<R::State, R::Log>) -> bool {
        (self.found)(state) && self.world.enabled_caught(state, &mut Vec::new()).is_ok()
    }

    /// Keeps the first `at` actions of `kept` followed by `rest`, and the
    /// states after each prefix.
    fn keep(&mut self, at: usize, rest: &[Action]) {
        self.kept.truncate(at);
        self.states.truncate(at + 1);
        for action in rest {
            let state = self
                .world
                .try_step(&self.states[self.states.len() - 1], action)
                .expect("an accepted action is enabled");
            self.states.push(state);
            self.kept.push(action.clone());
        }
    }

    /// Searches for a shortcut from each state of `kept`, the last first,
    /// and keeps the first found (`true`).
    fn shortcut(&mut self) -> Option<bool> {
        let length = self.kept.len();
        // From the state before the last action there is none: the last
        // action is a shortest way on.
        for at in (0..length.saturating_sub(1)).rev() {
            match self.search(at, length - at - 1).ok()? {
                Search::Shortcut(path) => {
                    self.keep(at, &path);
                    return Some(true);
                }
                Search::None => {}
                Search::TooLarge => return Some(false),
            }
        }
        Some(false)
    }

    /// The shortest path of at most `depth` actions from `states[at]` to a
    /// discovery, searching breadth first in the checker's action order.
    fn search(&mut self, at: usize, depth: usize) -> Result<Search, Spent> {
        let start = self.states[at].clone();
        let mut seen = HashSet::from([fingerprint(&start)]);
        let mut frontier = vec![(start, Vec::new())];
        let mut steps = 0;
        let mut enabled = Vec::new();
        for level in 1..=depth {
            let mut next = Vec::new();
            for (state, path) in &frontier {
                enabled.clear();
                if self.world.enabled_caught(state, &mut enabled).is_err() {
                    continue;
                }
                for action in &enabled {
                    if steps == SEARCH_STEPS_MAX {
                        return Ok(Search::TooLarge);
                    }
                    steps += 1;
                    self.spend()?;
                    let Ok(after) = self.world.step_caught(state, action) else {
                        continue;
                    };
                    if !seen.insert(fingerprint(&after)) {
                        continue;
                    }
                    let mut path = path.clone();
                    path.push(action.clone());
                    if self.discovery(&after) {
                        return Ok(Search::Shortcut(path));
                    }
                    if level < depth {
                        next.push((after, path));
                    }
                }
            }
            frontier = next;
        }
        Ok(Search::None)
    }
}

/// A state's hash, to know it seen (a collision only makes the search miss
/// a path; what it finds is replayed).
fn fingerprint<T: Hash>(value: &T) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use stateright::{Model, Property};

    use super::{shrink, Shrunk, STEPS_MAX};
    use crate::catalogue::Entry;
    use crate::models::lock::Lock;
    use crate::recipe::Recipe;
    use crate::scenario::Scenario;
    use crate::simulate::walk;
    use crate::trace::{self, Trace};
    use crate::world::{Action, World};

    /// The world of a lock scenario.
    fn lock_world(file: &str) -> World<Lock> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        let scenario =
            Scenario::load(&root.join(file), &root).unwrap_or_else(|error| panic!("{error}"));
        Entry::<Lock>::typed_world(&scenario.setting())
    }

    /// Whether some prefix of `actions` replays ([`trace::replay`], the
    /// replay traces use, not the shrinker's own) to a discovery for
    /// `property`.
    fn discovers<R: Recipe>(
        world: &World<R>,
        property: &Property<World<R>>,
        actions: &[Action],
    ) -> bool {
        (0..=actions.len()).any(|end| {
            let replayed = trace::replay(world, &actions[..end]);
            replayed.stop.is_none() && trace::discovered(world, property, replayed.last())
        })
    }

    /// For each property some walk seeded 0 to 499 finds: the first such
    /// walk's seed, its length up to the discovery, and the shrunk length,
    /// after asserting that the shrunk list is a 1-minimal discovery.
    fn shrink_each_found<R: Recipe>(world: World<R>) -> Vec<(&'static str, u64, usize, usize)> {
        {
            let mut found = Vec::new();
            for property in Model::properties(&world) {
                let Some((seed, actions)) = (0..500).find_map(|seed| {
                    let walk = walk(&world, seed, 200);
                    let steps = walk.found(property.name)?;
                    Some((seed, walk.actions[..steps].to_vec()))
                }) else {
                    continue;
                };
                let discovered = |state: &_| trace::discovered(&world, &property, state);
                let Shrunk {
                    actions: shrunk,
                    shrinking,
                } = shrink(&world, discovered, &actions, STEPS_MAX)
                    .expect("a walk's discovery shrinks");
                let name = property.name;
                assert_eq!(shrinking.from, actions.len(), "{name}");
                assert!(shrunk.len() <= actions.len(), "{name}");
                assert!(shrinking.complete, "{name}: {shrinking:?}");
                assert!(Trace::replay(&world, &property, &shrunk).replays, "{name}");
                for (index, action) in shrunk.iter().enumerate() {
                    let mut without = shrunk.clone();
                    without.remove(index);
                    assert!(
                        !discovers(&world, &property, &without),
                        "{name}: without step {} ({action:?}) it still discovers",
                        index + 1
                    );
                }
                // The same list shrinks the same way.
                let again = shrink(&world, discovered, &actions, STEPS_MAX).unwrap();
                assert_eq!(again.actions, shrunk, "{name}");
                found.push((name, seed, actions.len(), shrunk.len()));
            }
            found
        }
    }

    #[test]
    fn each_discovery_of_pause_expire_shrinks_to_a_1_minimal_one() {
        let found = shrink_each_found(lock_world("lock/guid_pause_expire.toml"));
        // The first walk to find each, its length and the shrunk one. A
        // check's shortest counterexample to mutual_exclusion is 12 steps
        // (the snapshot's); someone acquires in 5 at the least. No walk of
        // these finds resource_safety's.
        assert_eq!(
            found,
            [
                ("mutual_exclusion", 394, 18, 12),
                ("someone_acquired", 0, 10, 5),
                ("waiter_woken", 2, 17, 10),
            ]
        );
    }

    /// Shrinks the first walk's discovery of `property` in the scenario.
    struct ShrinkOne {
        property: &'static str,
        /// Whether to pass the whole walk, past its discovery.
        whole_walk: bool,
        steps_max: u64,
    }

    impl ShrinkOne {
        fn run<R: Recipe>(self, world: World<R>) -> (usize, Shrunk) {
            let property = Model::properties(&world)
                .into_iter()
                .find(|property| property.name == self.property)
                .expect("a property of the world");
            let walk = (0..500)
                .map(|seed| walk(&world, seed, 200))
                .find(|walk| walk.found(self.property).is_some())
                .expect("a walk finds it");
            let steps = walk.found(self.property).unwrap();
            let actions = if self.whole_walk {
                &walk.actions[..]
            } else {
                &walk.actions[..steps]
            };
            let discovered = |state: &_| trace::discovered(&world, &property, state);
            let shrunk = shrink(&world, discovered, actions, self.steps_max).unwrap();
            assert!(Trace::replay(&world, &property, &shrunk.actions).replays);
            (steps, shrunk)
        }
    }

    #[test]
    fn a_walk_past_its_discovery_is_cut_at_the_discovery_first() {
        let pause_expire = lock_world("lock/guid_pause_expire.toml");
        let (steps, whole) = ShrinkOne {
            property: "mutual_exclusion",
            whole_walk: true,
            steps_max: STEPS_MAX,
        }
        .run(pause_expire.clone());
        assert_eq!(whole.shrinking.from, steps);
        let (_, cut) = ShrinkOne {
            property: "mutual_exclusion",
            whole_walk: false,
            steps_max: STEPS_MAX,
        }
        .run(pause_expire);
        assert_eq!(whole, cut);
    }

    #[test]
    fn a_shrink_stops_at_its_limit_of_steps_unfinished() {
        let (steps, shrunk) = ShrinkOne {
            property: "mutual_exclusion",
            whole_walk: false,
            steps_max: 3,
        }
        .run(lock_world("lock/guid_pause_expire.toml"));
        assert_eq!(shrunk.shrinking.steps, 3);
        assert!(!shrunk.shrinking.complete);
        assert!(shrunk.actions.len() <= steps);
    }

    /// Shrinks lists that are not discoveries.
    fn not_a_discovery<R: Recipe>(world: World<R>) -> [bool; 3] {
        {
            let property = Model::properties(&world).remove(0);
            let discovered = |state: &_| trace::discovered(&world, &property, state);
            [
                // Nothing happens.
                Vec::new(),
                // One client acquires: no violation.
                vec![
                    Action::Invoke(0),
                    Action::Serve(0),
                    Action::Deliver(0),
                    Action::Serve(0),
                    Action::Deliver(0),
                ],
                // Nothing to serve.
                vec![Action::Serve(0)],
            ]
            .map(|actions| shrink(&world, discovered, &actions, STEPS_MAX).is_some())
        }
    }

    #[test]
    fn a_list_that_discovers_nothing_or_does_not_replay_is_not_shrunk() {
        let shrunk = not_a_discovery(lock_world("lock/guid_pause_expire.toml"));
        assert_eq!(shrunk, [false; 3]);
    }
}
