//! Searches over any stateright model that the verdict on `terminates`
//! needs ([`crate::check::termination`]): the first fair lasso in Tarjan's
//! order of strongly connected components, a path of a given length, a fair
//! walk, and where a sequence of steps repeats. Nothing here knows the
//! world; the argument for what they prove is in
//! [`crate::properties::termination`].

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};

use stateright::Model;

/// Where a path repeats: steps `from` to `to` (from 1) repeat every
/// `period` steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Repeat {
    pub from: usize,
    pub to: usize,
    pub period: usize,
}

/// The shortest period with which the end of `steps` repeats at least three
/// times, and how far back the repetition goes; `None` if no period does.
/// Three rounds, not two, so that a coincidence of two similar stretches is
/// not taken for a loop.
pub fn repetition<K: PartialEq>(steps: &[K]) -> Option<Repeat> {
    let len = steps.len();
    (1..=len / 3).find_map(|period| {
        let matching = (period..len)
            .rev()
            .take_while(|&i| steps[i] == steps[i - period])
            .count();
        (matching >= 2 * period).then(|| Repeat {
            from: len - matching - period + 1,
            to: len,
            period,
        })
    })
}

/// The shortest period with which some stretch of `steps` repeats at least
/// three times (the longest such stretch, the first of equals), wherever it
/// is; `None` if none does.
pub fn longest_repetition<K: PartialEq>(steps: &[K]) -> Option<Repeat> {
    (1..=steps.len() / 3).find_map(|period| {
        // The longest run of steps equal to the one a period before, by
        // its last index and length.
        let mut best: Option<(usize, usize)> = None;
        let mut run = 0;
        for i in period..steps.len() {
            run = if steps[i] == steps[i - period] {
                run + 1
            } else {
                0
            };
            if run > 0 && best.is_none_or(|(_, longest)| run > longest) {
                best = Some((i, run));
            }
        }
        let (last, run) = best?;
        (run >= 2 * period).then(|| Repeat {
            from: last + 2 - run - period,
            to: last + 1,
            period,
        })
    })
}

fn fingerprint<T: Hash>(value: &T) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// A run that never ends: `prefix` from the initial state to a state, then
/// `cycle` from that state back to it, forever.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lasso<A> {
    pub prefix: Vec<A>,
    pub cycle: Vec<A>,
}

/// The first fair lasso of `model` in Tarjan's order of strongly connected
/// components (over states at most `depth_bound` steps deep, in the model's
/// action order), if any: its prefix a shortest path to the component, its
/// cycle one that starves no action `progress` calls fair-scheduled.
/// `Err(())` if `go_on` said stop.
///
/// Only fingerprints and the states of the components not yet completed
/// are kept; successors are recomputed. In an acyclic graph each state is a
/// component of its own and leaves the stack as soon as its search ends.
#[allow(clippy::result_unit_err)]
pub fn fair_lasso<M>(
    model: &M,
    progress: &dyn Fn(&M::Action) -> bool,
    depth_bound: usize,
    go_on: &mut dyn FnMut(usize) -> bool,
) -> Result<Option<Lasso<M::Action>>, ()>
where
    M: Model,
    M::State: Clone + Hash + PartialEq,
    M::Action: Clone + PartialEq,
{
    struct Frame<S, A> {
        state: S,
        fingerprint: u64,
        index: usize,
        low: usize,
        actions: Vec<A>,
        next: usize,
    }
    let Some(init) = model.init_states().into_iter().next() else {
        return Ok(None);
    };
    let mut indices: HashMap<u64, usize> = HashMap::new();
    let mut on_stack: HashSet<u64> = HashSet::new();
    let mut stack: Vec<(u64, M::State)> = Vec::new();
    let mut frames: Vec<Frame<M::State, M::Action>> = Vec::new();
    let visit = |state: M::State,
                 fingerprint: u64,
                 depth: usize,
                 indices: &mut HashMap<u64, usize>,
                 on_stack: &mut HashSet<u64>,
                 stack: &mut Vec<(u64, M::State)>,
                 frames: &mut Vec<Frame<M::State, M::Action>>| {
        let index = indices.len();
        indices.insert(fingerprint, index);
        on_stack.insert(fingerprint);
        stack.push((fingerprint, state.clone()));
        let mut actions = Vec::new();
        if depth < depth_bound {
            model.actions(&state, &mut actions);
        }
        frames.push(Frame {
            state,
            fingerprint,
            index,
            low: index,
            actions,
            next: 0,
        });
    };
    let init_fingerprint = fingerprint(&init);
    visit(
        init,
        init_fingerprint,
        0,
        &mut indices,
        &mut on_stack,
        &mut stack,
        &mut frames,
    );
    while let Some(top) = frames.last_mut() {
        if top.next < top.actions.len() {
            let action = top.actions[top.next].clone();
            top.next += 1;
            let Some(next) = model.next_state(&top.state, action) else {
                continue;
            };
            let next_fingerprint = fingerprint(&next);
            match indices.get(&next_fingerprint) {
                Some(&index) => {
                    if on_stack.contains(&next_fingerprint) {
                        top.low = top.low.min(index);
                    }
                }
                None => {
                    if indices.len() % 1024 == 0 && !go_on(indices.len()) {
                        return Err(());
                    }
                    let depth = frames.len();
                    visit(
                        next,
                        next_fingerprint,
                        depth,
                        &mut indices,
                        &mut on_stack,
                        &mut stack,
                        &mut frames,
                    );
                }
            }
            continue;
        }
        let frame = frames.pop().expect("the loop is on a frame");
        if let Some(parent) = frames.last_mut() {
            parent.low = parent.low.min(frame.low);
        }
        if frame.low != frame.index {
            continue;
        }
        let mut members = Vec::new();
        loop {
            let (member, state) = stack.pop().expect("a component's root is on the stack");
            on_stack.remove(&member);
            members.push((member, state));
            if member == frame.fingerprint {
                break;
            }
        }
        members.reverse();
        let component = Component::of(model, progress, members);
        if !component.is_cycle() || !component.starved().is_empty() {
            continue;
        }
        let Some((prefix, start)) = bfs_path(
            model,
            |_, fingerprint| component.position.contains_key(&fingerprint),
            go_on,
        )?
        else {
            continue;
        };
        let start = component.position[&fingerprint(&start)];
        return Ok(Some(Lasso {
            prefix,
            cycle: component.fair_cycle(start),
        }));
    }
    Ok(None)
}

/// A strongly connected component: where each of its states is (by
/// fingerprint), the progress actions enabled in each, and its inner edges
/// (action, target).
struct Component<A> {
    position: HashMap<u64, usize>,
    enabled: Vec<Vec<A>>,
    edges: Vec<Vec<(A, usize)>>,
}

impl<A: Clone + PartialEq> Component<A> {
    fn of<M>(model: &M, progress: &dyn Fn(&A) -> bool, members: Vec<(u64, M::State)>) -> Self
    where
        M: Model<Action = A>,
        M::State: Hash,
    {
        let position: HashMap<u64, usize> = members
            .iter()
            .enumerate()
            .map(|(i, (fingerprint, _))| (*fingerprint, i))
            .collect();
        let mut enabled = Vec::with_capacity(members.len());
        let mut edges = Vec::with_capacity(members.len());
        for (_, state) in &members {
            let mut actions = Vec::new();
            model.actions(state, &mut actions);
            let mut inner = Vec::new();
            for action in &actions {
                let Some(next) = model.next_state(state, action.clone()) else {
                    continue;
                };
                if let Some(&j) = position.get(&fingerprint(&next)) {
                    inner.push((action.clone(), j));
                }
            }
            actions.retain(|action| progress(action));
            enabled.push(actions);
            edges.push(inner);
        }
        Component {
            position,
            enabled,
            edges,
        }
    }

    /// Whether it has a cycle at all: more than one state, or a step from
    /// its one state to itself.
    fn is_cycle(&self) -> bool {
        self.edges.iter().any(|inner| !inner.is_empty())
    }

    /// The progress actions enabled in every state and never taken inside:
    /// what every cycle of the component starves.
    fn starved(&self) -> Vec<A> {
        let mut always = self.enabled[0].clone();
        always.retain(|action| {
            self.enabled.iter().all(|here| here.contains(action))
                && !self
                    .edges
                    .iter()
                    .flatten()
                    .any(|(taken, _)| taken == action)
        });
        always
    }

    /// A cycle from `start` back to it that starves nothing: from where it
    /// got to, it goes by the fewest steps to take the first action that has
    /// been enabled all along and not yet taken, or to a state where it is
    /// not enabled, and so on until no such action is left; then back.
    fn fair_cycle(&self, start: usize) -> Vec<A> {
        let mut cycle: Vec<A> = Vec::new();
        let mut visited = vec![start];
        let mut at = start;
        loop {
            let owed = self.enabled[start].iter().find(|action| {
                visited.iter().all(|&i| self.enabled[i].contains(action)) && !cycle.contains(action)
            });
            let hops = match owed {
                Some(owed) => self.hops(
                    at,
                    |i| !self.enabled[i].contains(owed),
                    |action| action == owed,
                ),
                None if cycle.is_empty() => {
                    let (action, next) = self.edges[start][0].clone();
                    vec![(action, next)]
                }
                None => break,
            };
            for (action, next) in hops {
                cycle.push(action);
                visited.push(next);
                at = next;
            }
        }
        if at != start {
            for (action, _) in self.hops(at, |i| i == start, |_| false) {
                cycle.push(action);
            }
        }
        cycle
    }

    /// The fewest inner steps from `from` to a state where `arrived` holds
    /// (other than `from`), or through an edge `through` accepts.
    fn hops(
        &self,
        from: usize,
        arrived: impl Fn(usize) -> bool,
        through: impl Fn(&A) -> bool,
    ) -> Vec<(A, usize)> {
        let mut parent: Vec<Option<(usize, usize)>> = vec![None; self.edges.len()];
        let mut seen = vec![false; self.edges.len()];
        seen[from] = true;
        let mut queue = VecDeque::from([from]);
        let path_to = |parent: &[Option<(usize, usize)>], mut at: usize| {
            let mut hops = Vec::new();
            while let Some((before, edge)) = parent[at] {
                hops.push(self.edges[before][edge].clone());
                at = before;
            }
            hops.reverse();
            hops
        };
        while let Some(at) = queue.pop_front() {
            if at != from && arrived(at) {
                return path_to(&parent, at);
            }
            for (edge, (action, next)) in self.edges[at].iter().enumerate() {
                if through(action) {
                    let mut hops = path_to(&parent, at);
                    hops.push((action.clone(), *next));
                    return hops;
                }
                if !seen[*next] {
                    seen[*next] = true;
                    parent[*next] = Some((at, edge));
                    queue.push_back(*next);
                }
            }
        }
        unreachable!("a strongly connected component reaches each of its states")
    }
}

/// A path and the state it ends in.
type Found<M> = (Vec<<M as Model>::Action>, <M as Model>::State);

/// A shortest path from the initial state to a state `found` accepts (given
/// its fingerprint too), with that state, breadth first in the model's
/// action order; `Err(())` if `go_on` said stop.
fn bfs_path<M>(
    model: &M,
    found: impl Fn(&M::State, u64) -> bool,
    go_on: &mut dyn FnMut(usize) -> bool,
) -> Result<Option<Found<M>>, ()>
where
    M: Model,
    M::State: Clone + Hash,
    M::Action: Clone,
{
    let Some(init) = model.init_states().into_iter().next() else {
        return Ok(None);
    };
    crate::shortest::shortest_path(
        init,
        |state, actions| model.actions(state, actions),
        |state, action| model.next_state(state, action.clone()),
        fingerprint,
        found,
        None,
        go_on,
    )
}

/// A path of `steps` steps from the initial state, if the model has one
/// (within the paths it does not leave by a cycle); `Err(())` if `go_on`
/// said stop.
///
/// Depth first, remembering for each state it finished the longest path it
/// found from there (up to `steps`) and that path's first action, so that a
/// state met again deeper is not searched again: it either makes the path
/// long enough or it does not. In a graph without cycles this finds such a
/// path if there is one; stateright's own depth-first search keeps no path.
#[allow(clippy::result_unit_err)]
pub fn path_of_length<M>(
    model: &M,
    steps: usize,
    go_on: &mut dyn FnMut(usize) -> bool,
) -> Result<Option<Vec<M::Action>>, ()>
where
    M: Model,
    M::State: Clone + Hash,
    M::Action: Clone,
{
    struct Frame<S, A> {
        state: S,
        fingerprint: u64,
        actions: Vec<A>,
        next: usize,
        /// The action index this frame was reached by, in its parent.
        via: usize,
        /// The longest path found from here and the index of its first action.
        best: (usize, usize),
    }
    let Some(init) = model.init_states().into_iter().next() else {
        return Ok(None);
    };
    let frame = |state: M::State, fingerprint: u64, via: usize| {
        let mut actions = Vec::new();
        model.actions(&state, &mut actions);
        Frame {
            state,
            fingerprint,
            actions,
            next: 0,
            via,
            best: (0, 0),
        }
    };
    // Each finished state's longest path (capped at `steps`) and its first action.
    let mut longest: HashMap<u64, (usize, usize)> = HashMap::new();
    let mut on_path: HashSet<u64> = HashSet::new();
    let init_fingerprint = fingerprint(&init);
    on_path.insert(init_fingerprint);
    let mut frames = vec![frame(init, init_fingerprint, 0)];
    // The indices down the stack, then the rest along the remembered paths.
    let finish = |frames: &[Frame<M::State, M::Action>],
                  longest: &HashMap<u64, (usize, usize)>,
                  last: Option<(usize, M::State)>| {
        let mut indices: Vec<usize> = frames.iter().skip(1).map(|frame| frame.via).collect();
        if let Some((index, mut state)) = last {
            indices.push(index);
            while indices.len() < steps {
                let (_, first) = longest[&fingerprint(&state)];
                let mut actions = Vec::new();
                model.actions(&state, &mut actions);
                state = model
                    .next_state(&state, actions.swap_remove(first))
                    .expect("a remembered path leads somewhere");
                indices.push(first);
            }
        }
        crate::search::follow(model, &indices)
    };
    while !frames.is_empty() {
        let depth = frames.len() - 1;
        if depth >= steps {
            return Ok(Some(finish(&frames, &longest, None)));
        }
        let top = frames.last_mut().expect("the loop is on a frame");
        if top.next < top.actions.len() {
            let index = top.next;
            top.next += 1;
            let Some(next) = model.next_state(&top.state, top.actions[index].clone()) else {
                continue;
            };
            let next_fingerprint = fingerprint(&next);
            if on_path.contains(&next_fingerprint) {
                continue;
            }
            if let Some(&(below, _)) = longest.get(&next_fingerprint) {
                if depth + 1 + below >= steps {
                    return Ok(Some(finish(&frames, &longest, Some((index, next)))));
                }
                if below + 1 > top.best.0 {
                    top.best = (below + 1, index);
                }
                continue;
            }
            if longest.len() % 1024 == 0 && !go_on(longest.len()) {
                return Err(());
            }
            on_path.insert(next_fingerprint);
            frames.push(frame(next, next_fingerprint, index));
            continue;
        }
        let done = frames.pop().expect("the loop is on a frame");
        on_path.remove(&done.fingerprint);
        longest.insert(done.fingerprint, done.best);
        if let Some(parent) = frames.last_mut() {
            if done.best.0 + 1 > parent.best.0 {
                parent.best = (done.best.0 + 1, done.via);
            }
        }
    }
    Ok(None)
}

/// Up to `steps` steps from `from` by a fair scheduler: each step takes,
/// among the enabled actions `progress` accepts, the one taken longest ago
/// (never taken first, then in the model's order). It stops early where no
/// such action is enabled. An action that stays enabled is taken within as
/// many steps as there are actions, so a walk that goes on starves nothing.
pub fn fair_walk<M>(
    model: &M,
    from: &M::State,
    steps: usize,
    progress: &dyn Fn(&M::Action) -> bool,
) -> Vec<M::Action>
where
    M: Model,
    M::State: Clone,
    M::Action: Clone + PartialEq,
{
    let mut taken_at: Vec<(M::Action, usize)> = Vec::new();
    let mut state = from.clone();
    let mut walk = Vec::with_capacity(steps);
    let mut actions = Vec::new();
    for step in 0..steps {
        actions.clear();
        model.actions(&state, &mut actions);
        actions.retain(|action| progress(action));
        let last_taken = |action: &M::Action| {
            taken_at
                .iter()
                .find(|(taken, _)| taken == action)
                .map(|(_, at)| at + 1)
        };
        let mut order: Vec<(Option<usize>, usize)> = actions
            .iter()
            .enumerate()
            .map(|(position, action)| (last_taken(action), position))
            .collect();
        order.sort();
        let mut moved = false;
        for (_, position) in order {
            let action = actions[position].clone();
            if let Some(next) = model.next_state(&state, action.clone()) {
                state = next;
                match taken_at.iter_mut().find(|(taken, _)| *taken == action) {
                    Some(entry) => entry.1 = step,
                    None => taken_at.push((action.clone(), step)),
                }
                walk.push(action);
                moved = true;
                break;
            }
        }
        if !moved {
            break;
        }
    }
    walk
}
