//! Shortest paths in little memory: a breadth-first search that keeps, for
//! each state it has seen, its fingerprint and how it was reached, never the
//! state itself.
//!
//! A breadth-first search that keeps its frontier as states holds a whole
//! level of them at once, and a level of a recipe's world can be a tenth of
//! its states at about a kilobyte each. This one keeps each level as a list
//! of *(parent, action)* pairs: the index of the state in the level above it
//! came from and the index of the action, in the model's action order, that
//! led from there. States are numbered within their level in the order they
//! were met, and the states of a level are met parent by parent, so a
//! parent's children lie side by side in the next level, in order.
//!
//! To go on from level `k`, the search makes its states again, by replay:
//! it walks down the tree of first visits from the initial state, depth
//! first, and only into the subtrees that reach level `k`, holding no more
//! than one path of states at a time. The walk meets the states of level
//! `k` in the order they were numbered, so the search meets states in
//! exactly the order a breadth-first search that keeps them would, and
//! finds the same first state and the same path. Replaying costs steps,
//! not memory: each level's walk replays the part of the tree above it that
//! leads there, which in the wide, shallow trees of these worlds is a small
//! multiple of the states searched.
//!
//! What it keeps per state: 8 bytes in the level lists and a fingerprint in
//! a set (8 bytes and a control byte per slot, at most seven slots in eight
//! full), 20 to 30 bytes in all.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

/// The result of a search: a path of actions and the state it ends in, or
/// none; `Err(())` if `go_on` said stop before the search ended.
pub type Searched<S, A> = Result<Option<(Vec<A>, S)>, ()>;

/// The shortest path from `init` to a state `found` accepts (given the
/// state's fingerprint too), breadth first in the order `actions` lists each
/// state's actions, and the state it ends in; states are told apart by
/// `fingerprint`. A step `step` declines (`None`) leads nowhere. `go_on` is
/// asked every 1024 states searched, with the number seen, whether to go on;
/// with `max_steps`, no path longer than that is searched, and a search that
/// would go deeper stops as `go_on` stops it.
///
/// `step` must be deterministic: a state is made again by replaying the
/// steps that first led to it.
#[allow(clippy::result_unit_err)]
pub fn shortest_path<S, A>(
    init: S,
    actions: impl Fn(&S, &mut Vec<A>),
    step: impl Fn(&S, &A) -> Option<S>,
    fingerprint: impl Fn(&S) -> u64,
    found: impl Fn(&S, u64) -> bool,
    max_steps: Option<usize>,
    mut go_on: impl FnMut(usize) -> bool,
) -> Searched<S, A>
where
    S: Clone,
    A: Clone,
{
    let init_fingerprint = fingerprint(&init);
    if found(&init, init_fingerprint) {
        return Ok(Some((Vec::new(), init)));
    }
    let mut seen: Fingerprints = HashSet::default();
    seen.insert(init_fingerprint);
    let mut tree = Tree {
        levels: vec![Level::default()],
    };
    tree.levels[0].push(0, 0);
    let mut expanded = 0usize;
    let mut enabled = Vec::new();
    loop {
        let depth = tree.levels.len() - 1;
        if max_steps.is_some_and(|max| depth >= max) {
            return Err(());
        }
        let mut next = Level::default();
        let mut hit = None;
        let mut stopped = false;
        tree.walk(depth, &init, &actions, &step, &mut |index, state| {
            expanded += 1;
            if expanded % 1024 == 0 && !go_on(seen.len()) {
                stopped = true;
                return false;
            }
            enabled.clear();
            actions(state, &mut enabled);
            for (action, each) in enabled.iter().enumerate() {
                let Some(after) = step(state, each) else {
                    continue;
                };
                let after_fingerprint = fingerprint(&after);
                if !seen.insert(after_fingerprint) {
                    continue;
                }
                next.push(index, action);
                if found(&after, after_fingerprint) {
                    hit = Some(after);
                    return false;
                }
            }
            true
        });
        if stopped {
            return Err(());
        }
        if next.parents.is_empty() {
            return Ok(None);
        }
        next.parents.shrink_to_fit();
        next.actions.shrink_to_fit();
        tree.levels.push(next);
        if let Some(last) = hit {
            let path = tree.path_to_last(&init, &actions, &step);
            return Ok(Some((path, last)));
        }
    }
}

/// The fingerprints seen: already well mixed, so the set hashes them as
/// they are ([`AsIs`]).
type Fingerprints = HashSet<u64, BuildHasherDefault<AsIs>>;

/// A hasher for fingerprints, which are already well mixed: a set of them
/// hashes each as it is.
#[derive(Default)]
pub(crate) struct AsIs(u64);

impl Hasher for AsIs {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(byte);
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = value;
    }
}

/// The states first met at one depth, in the order met: for each, the index
/// of its parent in the level above and the index of the action that led
/// from the parent to it. Parents never decrease along a level.
#[derive(Default)]
struct Level {
    parents: Vec<u32>,
    actions: Vec<u32>,
}

impl Level {
    fn push(&mut self, parent: usize, action: usize) {
        let narrow = |index: usize| u32::try_from(index).expect("fewer than 2^32 states a level");
        self.parents.push(narrow(parent));
        self.actions.push(narrow(action));
    }

    fn len(&self) -> usize {
        self.parents.len()
    }
}

/// The tree of first visits, by level; level 0 holds the initial state.
struct Tree {
    levels: Vec<Level>,
}

impl Tree {
    /// Makes each state of level `depth` again, in order, and hands it to
    /// `visit` with its index, until `visit` says stop (`false`).
    fn walk<S, A>(
        &self,
        depth: usize,
        init: &S,
        actions: &impl Fn(&S, &mut Vec<A>),
        step: &impl Fn(&S, &A) -> Option<S>,
        visit: &mut impl FnMut(usize, &S) -> bool,
    ) where
        S: Clone,
    {
        // Which states of each level above `depth` lead down to it, bottom
        // up, each list in order.
        let mut needed: Vec<Vec<u32>> = vec![Vec::new(); depth];
        for level in (0..depth).rev() {
            let mut list: Vec<u32> = match needed.get(level + 1) {
                Some(below) => (below.iter())
                    .map(|&index| self.levels[level + 1].parents[index as usize])
                    .collect(),
                None => self.levels[depth].parents.clone(),
            };
            list.dedup();
            needed[level] = list;
        }
        let mut walker = Walker {
            tree: self,
            depth,
            needed,
            cursors: vec![0; depth + 1],
            actions,
            step,
            enabled: (0..depth).map(|_| Vec::new()).collect(),
            state: std::marker::PhantomData,
        };
        walker.descend(0, 0, init, visit);
    }

    /// The actions from the initial state to the last state of the deepest
    /// level.
    fn path_to_last<S, A>(
        &self,
        init: &S,
        actions: &impl Fn(&S, &mut Vec<A>),
        step: &impl Fn(&S, &A) -> Option<S>,
    ) -> Vec<A>
    where
        S: Clone,
        A: Clone,
    {
        let deepest = self.levels.len() - 1;
        let mut chosen = vec![0; deepest];
        let mut at = self.levels[deepest].len() - 1;
        for level in (1..=deepest).rev() {
            chosen[level - 1] = self.levels[level].actions[at] as usize;
            at = self.levels[level].parents[at] as usize;
        }
        replay(init.clone(), actions, step, &chosen)
    }
}

/// The actions at `indices` in the order `actions` lists each state's
/// actions, taken from `init` one after the other: a path a search recorded
/// as indices, made again.
pub fn replay<S, A: Clone>(
    init: S,
    actions: impl Fn(&S, &mut Vec<A>),
    step: impl Fn(&S, &A) -> Option<S>,
    indices: &[usize],
) -> Vec<A> {
    let mut state = init;
    let mut path = Vec::with_capacity(indices.len());
    let mut enabled = Vec::new();
    for &index in indices {
        enabled.clear();
        actions(&state, &mut enabled);
        let action = enabled.swap_remove(index);
        state = step(&state, &action).expect("a recorded step is taken again");
        path.push(action);
    }
    path
}

/// One walk down the tree to a level: which states it must pass through
/// (`needed`, by level), and how far along each level's list it is.
struct Walker<'a, S, A, Actions, Step> {
    tree: &'a Tree,
    depth: usize,
    needed: Vec<Vec<u32>>,
    cursors: Vec<usize>,
    actions: &'a Actions,
    step: &'a Step,
    /// The actions of the state the walk is at on each level, kept so as
    /// not to allocate on every state.
    enabled: Vec<Vec<A>>,
    state: std::marker::PhantomData<fn(&S)>,
}

impl<S, A, Actions, Step> Walker<'_, S, A, Actions, Step>
where
    Actions: Fn(&S, &mut Vec<A>),
    Step: Fn(&S, &A) -> Option<S>,
{
    /// From state `index` of level `level`, `state`, to the states below it
    /// on the walk's level, in order; `false` once `visit` said stop.
    fn descend(
        &mut self,
        level: usize,
        index: usize,
        state: &S,
        visit: &mut impl FnMut(usize, &S) -> bool,
    ) -> bool {
        if level == self.depth {
            return visit(index, state);
        }
        let mut enabled = std::mem::take(&mut self.enabled[level]);
        enabled.clear();
        (self.actions)(state, &mut enabled);
        let below = &self.tree.levels[level + 1];
        let mut going = true;
        while going {
            let cursor = self.cursors[level + 1];
            let child = match self.needed.get(level + 1) {
                Some(list) => list.get(cursor).map(|&child| child as usize),
                None => (cursor < below.len()).then_some(cursor),
            };
            let Some(child) = child.filter(|&child| below.parents[child] as usize == index) else {
                break;
            };
            self.cursors[level + 1] += 1;
            let action = &enabled[below.actions[child] as usize];
            let next = (self.step)(state, action).expect("a recorded step is taken again");
            going = self.descend(level + 1, child, &next, visit);
        }
        self.enabled[level] = enabled;
        going
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, VecDeque};

    use super::*;

    /// A graph of `SIZE` states with a few irregular edges out of each, some
    /// of which decline to step: enough shape (joins, dead ends, unreachable
    /// states) for the search's order to matter.
    const SIZE: u64 = 20_000;

    fn actions(state: &u64, out: &mut Vec<u64>) {
        let many = state % 5;
        out.extend((0..many).map(|each| each * 7 + 1));
    }

    fn step(state: &u64, action: &u64) -> Option<u64> {
        let next = (state * 31 + action * 17 + state / 3) % SIZE;
        (next % 13 != 0).then_some(next)
    }

    fn fingerprint(state: &u64) -> u64 {
        state.wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }

    /// The breadth-first search that keeps its frontier's states: the
    /// order the compact one must match.
    fn reference(init: u64, found: impl Fn(&u64) -> bool) -> Option<(Vec<u64>, u64)> {
        if found(&init) {
            return Some((Vec::new(), init));
        }
        let mut parents: HashMap<u64, (u64, u64)> = HashMap::new();
        let mut seen = std::collections::HashSet::from([init]);
        let mut queue = VecDeque::from([init]);
        let mut out = Vec::new();
        while let Some(state) = queue.pop_front() {
            out.clear();
            actions(&state, &mut out);
            for action in &out {
                let Some(next) = step(&state, action) else {
                    continue;
                };
                if !seen.insert(next) {
                    continue;
                }
                parents.insert(next, (state, *action));
                if found(&next) {
                    let mut path = Vec::new();
                    let mut at = next;
                    while at != init {
                        let (parent, action) = parents[&at];
                        path.push(action);
                        at = parent;
                    }
                    path.reverse();
                    return Some((path, next));
                }
                queue.push_back(next);
            }
        }
        None
    }

    fn compact(init: u64, found: impl Fn(&u64) -> bool) -> Searched<u64, u64> {
        shortest_path(
            init,
            actions,
            step,
            fingerprint,
            |s, _| found(s),
            None,
            |_| true,
        )
    }

    #[test]
    fn finds_the_path_a_search_that_keeps_its_states_finds() {
        let mut depths = Vec::new();
        for target in (1..SIZE).step_by(97) {
            let expected = reference(3, |state| *state == target);
            let found = compact(3, |state| *state == target).expect("no limit");
            assert_eq!(found, expected, "target {target}");
            if let Some((path, _)) = found {
                depths.push(path.len());
            }
        }
        // The targets lie at many depths, and some are unreachable.
        assert!(depths.iter().max() > Some(&8), "{depths:?}");
        assert!(depths.len() < (1..SIZE).step_by(97).count());
    }

    /// With a limit, a target within it is found as without one, and a
    /// search that would go deeper stops instead of answering "none".
    #[test]
    fn goes_no_deeper_than_its_limit() {
        let deep = (1..SIZE)
            .filter_map(|target| Some((target, reference(3, |s| *s == target)?.0.len())))
            .find(|(_, depth)| *depth >= 4)
            .expect("a target 4 steps or more away");
        let (target, depth) = deep;
        let limited = |max| {
            shortest_path(
                3,
                actions,
                step,
                fingerprint,
                |s, _| *s == target,
                Some(max),
                |_| true,
            )
        };
        assert_eq!(limited(depth), compact(3, |s| *s == target));
        assert!(limited(depth).unwrap().is_some());
        assert_eq!(limited(depth - 1), Err(()));
    }

    #[test]
    fn stops_where_it_stands_found_or_asked_to() {
        assert_eq!(compact(3, |state| *state == 3), Ok(Some((Vec::new(), 3))));
        assert_eq!(compact(3, |_| false), Ok(None));
        let mut asked = Vec::new();
        let stopped = shortest_path(
            3,
            actions,
            step,
            fingerprint,
            |_, _| false,
            None,
            |seen| {
                asked.push(seen);
                asked.len() < 3
            },
        );
        assert_eq!(stopped, Err(()));
        assert_eq!(asked.len(), 3);
        assert!(asked.windows(2).all(|pair| pair[0] < pair[1]), "{asked:?}");
    }
}
