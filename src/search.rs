//! The default search: depth first over every state of a stateright model,
//! on one thread or several, sharing work so that no thread waits long.
//!
//! It visits states as stateright 0.31's depth-first checker does, so that
//! one thread meets the same states in the same order, with the same counts
//! and the same discoveries (its fingerprints hash with other keys, so only
//! a fingerprint collision, which either search may meet, could tell them
//! apart): a stack of states still to visit, the last
//! pushed visited first, each state's successors pushed in the model's
//! action order, a successor pushed only the first time its fingerprint is
//! seen; a state at the target depth or deeper is skipped unvisited; each
//! property's discovery is the path to the *last* state met that violates
//! it (an `always`) or satisfies it (a `sometimes`).
//!
//! Two things differ:
//! - **Sharing.** A thread that runs out of work says so on a shared
//!   counter, and a busy thread that sees it hands over the *bottom* half of
//!   its stack: the states nearest the initial one, whose subtrees are the
//!   biggest, so the thread that takes them stays busy. stateright's
//!   checker hands over the top half, the deepest states with the smallest
//!   subtrees, and only once a block of states is done. On the 3-client
//!   lock question (`benches/spin/lock_guid_3.toml`), the best of six runs
//!   each: stateright's two threads took 3.45 s to its one thread's 4.44 s
//!   (1.29 times), this search's 2.53 s to 4.43 s (1.75 times).
//! - **No early stop.** It goes on from every state. stateright's checker
//!   does not go on from a state that violates every `always` property and
//!   meets every `sometimes` one (it has nothing left to look for there),
//!   which a full search cannot skip: the state counts, `terminates` and
//!   the coverage need every state. One scenario met such a state
//!   (`configuration/keeps_old_watch_renews_after_abandon`: the same unique
//!   states, two more visits).
//!
//! What it keeps per state is its fingerprint, in a set split into shards
//! that threads lock one at a time (8 bytes and a control byte a slot).
//!
//! **States handed over are copied** ([`Detach`]). A state shares its
//! parts (names, tables, client libraries) with its parent and its other
//! successors, counting references. Were a thread to go on from states
//! another thread handed it, both would clone and drop the same parts, and
//! every count written on one core would take its cache line from the
//! other. The thread that takes a stack copies its states first, once.
//! On the 4-client lock question (`benches/spin/lock_guid_4.toml`), two
//! threads took 26.1 s and 27.2 s with the copy, against 28.6 s and 29.5 s
//! without, run for run back to back; cut at 20 s, three runs each
//! interleaved, they met 1.80 times the states one thread met with the
//! copy, 1.52 times without.

use std::collections::{BTreeMap, HashSet};
use std::hash::{BuildHasher, BuildHasherDefault, Hash, Hasher};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use stateright::{Expectation, Model, Property};

use crate::shortest::AsIs;

/// Where and how far a search goes.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Threads searching, at least 1.
    pub threads: usize,
    /// A state this deep or deeper (the initial state is depth 1) is not
    /// visited: as stateright's `target_max_depth`.
    pub target_depth: Option<usize>,
    /// Threads stop taking work once about this many states were generated.
    pub target_states: Option<usize>,
}

/// A state a thread can make its own.
pub trait Detach: Sized {
    /// A copy equal to this state (in value and fingerprint) that shares
    /// as little as it can with it: no reference count of the copy is one
    /// the original's holders write. The default shares everything.
    fn detached(&self) -> Self;
}

/// A state that is plain data shares nothing.
impl<T: Copy> Detach for T {
    fn detached(&self) -> T {
        *self
    }
}

/// A depth-first search under way, or ended once its threads have.
pub struct Search<M: Model> {
    shared: Arc<Shared<M>>,
    handles: Vec<JoinHandle<()>>,
}

/// A state still to visit, how deep it is (the initial state is 1) and the
/// indices of the actions that led to it.
struct Job<S> {
    state: S,
    depth: usize,
    path: Vec<usize>,
}

struct Shared<M: Model> {
    model: M,
    properties: Vec<Property<M>>,
    limits: Limits,
    seen: Vec<Mutex<HashSet<u64, BuildHasherDefault<AsIs>>>>,
    /// States generated (the initial states and every successor, seen
    /// before or not), as stateright counts them.
    states: AtomicUsize,
    unique: AtomicUsize,
    max_depth: AtomicUsize,
    /// By property, the path to the last state met that discovered it.
    discoveries: Mutex<Vec<Option<Vec<usize>>>>,
    market: Mutex<Market<M::State>>,
    work_posted: Condvar,
    /// Threads waiting for work: a busy thread shares when it is not 0.
    hungry: AtomicUsize,
    /// Raised when the search is closed (a state limit, a thread's panic):
    /// busy threads stop at the end of their block.
    stop: AtomicBool,
}

/// What one thread counted and has not added to the search's counts yet.
#[derive(Default)]
struct Tally {
    generated: usize,
    unique: usize,
    max_depth: usize,
}

/// Stacks handed over and not taken yet.
struct Market<S> {
    stacks: Vec<Vec<Job<S>>>,
    waiting: usize,
    closed: bool,
}

/// How many states a thread visits between two looks at the others: the
/// state limit, and whether someone waits for work.
const BLOCK: usize = 1500;

/// Shards of the set of fingerprints.
const SHARDS: usize = 64;

impl<M> Search<M>
where
    M: Model + Send + Sync + 'static,
    M::State: Hash + Detach + Send + 'static,
{
    /// Starts the search from the model's initial states.
    pub fn spawn(model: M, limits: Limits) -> Search<M> {
        let threads = limits.threads.max(1);
        let properties = model.properties();
        let inits = model.init_states();
        let shared = Arc::new(Shared {
            properties,
            limits,
            seen: (0..SHARDS).map(|_| Mutex::default()).collect(),
            states: AtomicUsize::new(inits.len()),
            unique: AtomicUsize::new(0),
            max_depth: AtomicUsize::new(0),
            discoveries: Mutex::new(Vec::new()),
            market: Mutex::new(Market {
                stacks: Vec::new(),
                waiting: 0,
                closed: false,
            }),
            work_posted: Condvar::new(),
            hungry: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            model,
        });
        *lock(&shared.discoveries) = vec![None; shared.properties.len()];
        let mut first = Vec::new();
        for (index, state) in inits.into_iter().enumerate() {
            if shared.insert(fingerprint(&state)) {
                shared.unique.fetch_add(1, Ordering::Relaxed);
            }
            first.push(Job {
                state,
                depth: 1,
                path: vec![index],
            });
        }
        lock(&shared.market).stacks.push(first);
        let handles = (0..threads)
            .map(|thread| {
                let shared = Arc::clone(&shared);
                std::thread::Builder::new()
                    .name(format!("search-{thread}"))
                    .spawn(move || shared.work(threads))
                    .expect("a search thread starts")
            })
            .collect();
        Search { shared, handles }
    }
}

impl<M: Model> Search<M> {
    /// The threads, for their caller to watch and join (once).
    pub fn handles(&mut self) -> Vec<JoinHandle<()>> {
        std::mem::take(&mut self.handles)
    }

    pub fn model(&self) -> &M {
        &self.shared.model
    }

    /// States generated so far (duplicates too).
    pub fn state_count(&self) -> usize {
        self.shared.states.load(Ordering::Relaxed)
    }

    /// Distinct states (fingerprints) seen so far.
    pub fn unique_state_count(&self) -> usize {
        self.shared.unique.load(Ordering::Relaxed)
    }

    /// The depth of the deepest state taken from a stack (the initial state
    /// is 1).
    pub fn max_depth(&self) -> usize {
        self.shared.max_depth.load(Ordering::Relaxed)
    }

    /// Each discovered property's path, as action indices from an initial
    /// state (the first index chooses the initial state).
    pub fn discoveries(&self) -> BTreeMap<&'static str, Vec<usize>> {
        let found = lock(&self.shared.discoveries);
        (self.shared.properties.iter().zip(found.iter()))
            .filter_map(|(property, path)| Some((property.name, path.clone()?)))
            .collect()
    }
}

impl<M> Shared<M>
where
    M: Model,
    M::State: Hash + Detach,
{
    /// Whether `fingerprint` is new, recording it (the caller counts it).
    fn insert(&self, fingerprint: u64) -> bool {
        // Not the bits the shard's table reads: it places by the low bits
        // and tells entries apart by the top seven.
        let shard = (fingerprint >> 32) as usize % SHARDS;
        lock(&self.seen[shard]).insert(fingerprint)
    }

    /// One thread's work: take a stack, visit it in blocks, share when
    /// asked, until no thread has work left.
    fn work(&self, threads: usize) {
        // A thread that panics closes the search, or the others would wait
        // for it forever.
        struct CloseOnPanic<'a, M: Model>(&'a Shared<M>)
        where
            M::State: Hash + Detach;
        impl<M: Model> Drop for CloseOnPanic<'_, M>
        where
            M::State: Hash + Detach,
        {
            fn drop(&mut self) {
                if std::thread::panicking() {
                    self.0.close();
                }
            }
        }
        let _guard = CloseOnPanic(self);
        let mut stack = Vec::new();
        let mut actions = Vec::new();
        let mut found = vec![None; self.properties.len()];
        // What this thread counted since it last added to the shared counts
        // (shared words written on every state slow every thread).
        let mut tally = Tally::default();
        loop {
            if stack.is_empty() {
                match self.take(threads) {
                    Some(taken) => stack = detached(taken),
                    None => return,
                }
            }
            for _ in 0..BLOCK {
                let Some(job) = stack.pop() else {
                    break;
                };
                self.visit(job, &mut stack, &mut actions, &mut found, &mut tally);
            }
            self.record(&mut found);
            self.unique
                .fetch_add(std::mem::take(&mut tally.unique), Ordering::Relaxed);
            self.max_depth.fetch_max(tally.max_depth, Ordering::Relaxed);
            let generated = std::mem::take(&mut tally.generated);
            let states = self.states.fetch_add(generated, Ordering::Relaxed) + generated;
            if self
                .limits
                .target_states
                .is_some_and(|target| target <= states)
            {
                self.close();
            }
            if self.stop.load(Ordering::Relaxed) {
                return;
            }
            if stack.len() > 1 && self.hungry.load(Ordering::Relaxed) > 0 {
                let half = stack.len() / 2;
                let bottom: Vec<Job<M::State>> = stack.drain(..half).collect();
                self.post(bottom);
            }
        }
    }

    /// Visits one state: judges the properties on it and pushes its new
    /// successors, counting them.
    fn visit(
        &self,
        job: Job<M::State>,
        stack: &mut Vec<Job<M::State>>,
        actions: &mut Vec<M::Action>,
        found: &mut [Option<Vec<usize>>],
        tally: &mut Tally,
    ) {
        tally.max_depth = tally.max_depth.max(job.depth);
        if self
            .limits
            .target_depth
            .is_some_and(|target| job.depth >= target)
        {
            return;
        }
        for (index, property) in self.properties.iter().enumerate() {
            let discovered = match property.expectation {
                Expectation::Always => !(property.condition)(&self.model, &job.state),
                Expectation::Sometimes => (property.condition)(&self.model, &job.state),
                // No zoocheck property is one; stateright judges them only
                // at terminal states.
                Expectation::Eventually => false,
            };
            if discovered {
                found[index] = Some(job.path.clone());
            }
        }
        actions.clear();
        self.model.actions(&job.state, actions);
        for (index, action) in actions.drain(..).enumerate() {
            let Some(next) = self.model.next_state(&job.state, action) else {
                continue;
            };
            tally.generated += 1;
            if !self.insert(fingerprint(&next)) {
                continue;
            }
            tally.unique += 1;
            let mut path = Vec::with_capacity(job.path.len() + 1);
            path.extend_from_slice(&job.path);
            path.push(index);
            stack.push(Job {
                state: next,
                depth: job.depth + 1,
                path,
            });
        }
    }

    /// Hands the discoveries a thread made in a block to the search: each
    /// replaces what was there, the later the discovery the better.
    fn record(&self, found: &mut [Option<Vec<usize>>]) {
        if found.iter().all(Option::is_none) {
            return;
        }
        let mut discoveries = lock(&self.discoveries);
        for (kept, new) in discoveries.iter_mut().zip(found.iter_mut()) {
            if new.is_some() {
                *kept = new.take();
            }
        }
    }

    /// A stack to work on, waiting for one if need be; `None` once every
    /// thread waits (the search is over) or the search was closed.
    fn take(&self, threads: usize) -> Option<Vec<Job<M::State>>> {
        let mut market = lock(&self.market);
        loop {
            if market.closed {
                return None;
            }
            if let Some(stack) = market.stacks.pop() {
                return Some(stack);
            }
            market.waiting += 1;
            if market.waiting == threads {
                market.closed = true;
                self.work_posted.notify_all();
                return None;
            }
            self.hungry.store(market.waiting, Ordering::Relaxed);
            market = self
                .work_posted
                .wait(market)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            market.waiting -= 1;
            self.hungry.store(market.waiting, Ordering::Relaxed);
        }
    }

    fn post(&self, stack: Vec<Job<M::State>>) {
        let mut market = lock(&self.market);
        if !market.closed {
            market.stacks.push(stack);
            self.hungry
                .store(market.waiting.saturating_sub(1), Ordering::Relaxed);
            self.work_posted.notify_one();
        }
    }

    fn close(&self) {
        self.stop.store(true, Ordering::Relaxed);
        let mut market = lock(&self.market);
        market.closed = true;
        market.stacks.clear();
        self.work_posted.notify_all();
    }
}

/// The jobs of a stack taken from the market, their states copied
/// ([`Detach`]).
fn detached<S: Detach>(mut stack: Vec<Job<S>>) -> Vec<Job<S>> {
    for job in &mut stack {
        job.state = job.state.detached();
    }
    stack
}

/// The actions at `indices` in the model's action order, taken from the
/// initial state one after the other.
pub fn follow<M>(model: &M, indices: &[usize]) -> Vec<M::Action>
where
    M: Model,
    M::Action: Clone,
{
    crate::shortest::replay(
        model.init_states().remove(0),
        |state, actions| model.actions(state, actions),
        |state, action| model.next_state(state, action.clone()),
        indices,
    )
}

/// A fingerprint of a state: ahash with fixed keys, the same on every run.
fn fingerprint<T: Hash>(value: &T) -> u64 {
    let keys = ahash::RandomState::with_seeds(
        0x243f_6a88_85a3_08d3,
        0x1319_8a2e_0370_7344,
        0xa409_3822_299f_31d0,
        0x082e_fa98_ec4e_6c89,
    );
    let mut hasher = keys.build_hasher();
    value.hash(&mut hasher);
    hasher.finish()
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use stateright::{Checker, HasDiscoveries};

    use super::*;

    /// Two counters that step up by one, two or three, wrapping at 29, and a
    /// third that only counts steps up to 30: paths join often, so which
    /// state is met first, and from where, matters.
    #[derive(Clone)]
    struct Counters;

    impl Model for Counters {
        type State = (u8, u8, u8);
        type Action = (usize, u8);

        fn init_states(&self) -> Vec<Self::State> {
            vec![(0, 0, 0)]
        }

        fn actions(&self, state: &Self::State, actions: &mut Vec<Self::Action>) {
            if state.2 < 30 {
                for by in 1..=3 {
                    actions.push((0, by));
                    actions.push((1, by));
                }
            }
        }

        fn next_state(
            &self,
            state: &Self::State,
            (which, by): Self::Action,
        ) -> Option<Self::State> {
            let mut next = *state;
            match which {
                0 => next.0 = (next.0 + by) % 29,
                _ if by == 2 && state.0 % 5 == 0 => return None,
                _ => next.1 = (next.1 + by) % 29,
            }
            next.2 += 1;
            Some(next)
        }

        fn properties(&self) -> Vec<Property<Self>> {
            vec![
                Property::always("small sum", |_, s: &(u8, u8, u8)| s.0 + s.1 < 20),
                Property::always("anything", |_, _| true),
                Property::sometimes("both twelve", |_, s: &(u8, u8, u8)| s.0 == 12 && s.1 == 12),
                Property::sometimes("never", |_, s: &(u8, u8, u8)| s.0 == 99),
            ]
        }
    }

    fn ours(threads: usize, target_depth: Option<usize>) -> Search<Counters> {
        let mut search = Search::spawn(
            Counters,
            Limits {
                threads,
                target_depth,
                target_states: None,
            },
        );
        for handle in search.handles() {
            handle.join().expect("no thread panics");
        }
        search
    }

    #[test]
    fn one_thread_meets_what_staterights_depth_first_search_meets() {
        for target_depth in [None, Some(9)] {
            let mut builder = Counters
                .checker()
                .finish_when(HasDiscoveries::AllOf(["(every state)"].into()));
            if let Some(depth) = target_depth {
                builder = builder.target_max_depth(depth);
            }
            let theirs = builder.spawn_dfs().join();
            let search = ours(1, target_depth);
            assert_eq!(search.unique_state_count(), theirs.unique_state_count());
            assert_eq!(search.state_count(), theirs.state_count());
            assert_eq!(search.max_depth(), theirs.max_depth());
            let found = search.discoveries();
            let expected: BTreeMap<&'static str, Vec<(usize, u8)>> = (theirs.discoveries())
                .into_iter()
                .map(|(name, path)| (name, path.into_actions()))
                .collect();
            let actions: BTreeMap<&'static str, Vec<(usize, u8)>> = (found.iter())
                .map(|(name, indices)| {
                    let mut state = (0, 0, 0);
                    let mut path = Vec::new();
                    for &index in &indices[1..] {
                        let mut enabled = Vec::new();
                        Counters.actions(&state, &mut enabled);
                        state = Counters.next_state(&state, enabled[index]).unwrap();
                        path.push(enabled[index]);
                    }
                    (*name, path)
                })
                .collect();
            assert_eq!(actions, expected, "depth {target_depth:?}");
            let names: Vec<&str> = found.keys().copied().collect();
            match target_depth {
                None => assert_eq!(names, ["both twelve", "small sum"]),
                Some(_) => assert_eq!(names, ["small sum"]),
            }
        }
    }

    #[test]
    fn two_threads_count_what_one_counts() {
        let one = ours(1, None);
        assert!(
            one.unique_state_count() > 10_000,
            "{}",
            one.unique_state_count()
        );
        for _ in 0..5 {
            let two = ours(2, None);
            assert_eq!(two.unique_state_count(), one.unique_state_count());
            assert_eq!(two.state_count(), one.state_count());
            assert_eq!(two.max_depth(), one.max_depth());
            assert_eq!(
                two.discoveries().keys().collect::<Vec<_>>(),
                one.discoveries().keys().collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn a_state_limit_stops_every_thread() {
        let all = ours(1, None).state_count();
        // Early, when one thread has all the work, and later, when both are
        // busy: the one that does not reach the limit stops too, within a
        // block (each of whose states generates at most six).
        for target in [2000, all / 4] {
            let mut search = Search::spawn(
                Counters,
                Limits {
                    threads: 2,
                    target_depth: None,
                    target_states: Some(target),
                },
            );
            for handle in search.handles() {
                handle.join().expect("no thread panics");
            }
            let counted = search.state_count();
            assert!(
                counted >= target && counted <= target + 2 * BLOCK * 6,
                "{counted} of {all}, limit {target}"
            );
        }
    }
}
