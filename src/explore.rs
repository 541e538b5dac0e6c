//! The world as a search explores it: the plain model ([`World`], whose
//! states hash as what they are) wrapped with the reductions the search
//! makes and the control it keeps, as stateright's `symmetry()` wraps a
//! checker rather than a model.
//!
//! - **Reductions** ([`crate::reduce`]): a state of the search is the
//!   world's state with the classes it hashes as ([`Classed`]), so that two
//!   states no later step tells apart have one fingerprint (their
//!   representative's under [`crate::symmetry`], their counters merged). The
//!   states themselves are the world's, and every path replays on the plain
//!   world step for step.
//! - **Partial order** ([`crate::partial_order`]): where it is sound, the
//!   enabled actions are narrowed to an ample set.
//! - **Control** ([`Control`]): a halt flag that stops every search thread at
//!   a limit, the first panic of the model, the coverage (phases entered,
//!   fault kinds injected) and the steps that did not raise the rank of
//!   `terminates` ([`crate::properties::termination::check_step`]).
//!
//! The properties are the world's, each read through the wrapper: stateright
//! holds a property's condition as a plain function of the model and its
//! state, so the wrapper's conditions are functions that each read one of the
//! world's by its place ([`MAX_PROPERTIES`] of them).

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use stateright::{Model, Property};

use crate::recipe::{Recipe, Symmetric};
use crate::reduce::{Classes, Reductions};
use crate::world::{caught, Action, Panic, World, WorldState};

/// The most properties a recipe may have (its own, `terminates` aside).
pub const MAX_PROPERTIES: usize = 16;

/// A world, the reductions a search of it makes, and the control the search
/// keeps.
#[derive(Clone)]
pub struct Explored<R: Recipe> {
    pub world: World<R>,
    /// The reductions asked for; [`Explored::reductions`] says which the
    /// world allows.
    pub asked: Reductions,
    /// How its states hash ([`Explored::classes`]).
    pub classes: Classes,
    /// The search running it, if it steers it. The recipe, the store and the
    /// client library never see it.
    pub control: Option<Arc<Control<R>>>,
    properties: Arc<Vec<Property<World<R>>>>,
}

impl<R: Recipe> std::fmt::Debug for Explored<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Explored")
            .field("world", &self.world)
            .field("asked", &self.asked)
            .field("classes", &self.classes)
            .finish_non_exhaustive()
    }
}

/// A state of a search: the world's state, with the classes it hashes as.
#[derive(Clone, PartialEq, Eq)]
pub struct Classed<S, L = ()> {
    pub state: WorldState<S, L>,
    pub classes: Classes,
}

impl<S, L> Hash for Classed<S, L>
where
    S: Hash + Clone + Symmetric,
    L: Hash + Clone + Symmetric,
{
    /// As its class: its representative's under symmetry, with the
    /// counters merged ([`crate::reduce::hash_class`]).
    fn hash<H: Hasher>(&self, hasher: &mut H) {
        let classes = self.classes;
        if classes.symmetry.any() {
            if let Some(representative) =
                crate::symmetry::representative(&self.state, &classes.symmetry)
            {
                return crate::reduce::hash_class(&representative, classes, hasher);
            }
        }
        crate::reduce::hash_class(&self.state, classes, hasher);
    }
}

impl<S: std::fmt::Display, L> std::fmt::Debug for Classed<S, L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.state, f)
    }
}

/// Handed to another search thread, a state is copied whole
/// ([`crate::symmetry::detached`]).
impl<S, L> crate::search::Detach for Classed<S, L>
where
    S: Symmetric + Clone,
    L: Symmetric + Clone,
{
    fn detached(&self) -> Self {
        Classed {
            state: crate::symmetry::detached(&self.state),
            classes: self.classes,
        }
    }
}

impl<R: Recipe> Explored<R> {
    /// `world` explored with the `asked` reductions, as far as it allows
    /// each.
    pub fn new(world: World<R>, asked: Reductions) -> Explored<R> {
        let properties = Arc::new(Model::properties(&world));
        assert!(
            properties.len() <= MAX_PROPERTIES,
            "at most {MAX_PROPERTIES} properties a recipe"
        );
        let mut explored = Explored {
            world,
            asked,
            classes: Classes::of(Reductions::NONE, false, Default::default()),
            control: None,
            properties,
        };
        explored.classes = explored.reckon_classes();
        explored
    }

    /// This exploration steered by `control`.
    pub fn steered(self, control: &Arc<Control<R>>) -> Explored<R> {
        Explored {
            control: Some(Arc::clone(control)),
            ..self
        }
    }

    /// The reductions a search of this world makes: on an ensemble only
    /// the ample sets, which account for its servers' replicas and for a
    /// client's write waiting on its server ([`crate::partial_order`]);
    /// neither the merged counters nor renaming account yet for the
    /// servers' trees, logs and connections.
    pub fn reductions(&self) -> Reductions {
        match self.world.store.servers {
            1 => self.asked,
            _ => Reductions {
                partial_order: self.asked.partial_order,
                ..Reductions::NONE
            },
        }
    }

    fn reckon_classes(&self) -> Classes {
        let world = &self.world;
        let restarts = world.libraries.iter().any(|library| library.renews())
            || world.budget.total(crate::world::faults::Kind::Restart) > 0;
        Classes::of(self.reductions(), restarts, world.interchangeable())
    }

    /// Whether a search takes one of the interleavings that commute
    /// ([`crate::partial_order`]): where its reductions say so and every
    /// client's recipe allows it ([`Recipe::observed_through_history`]).
    pub fn reduces_order(&self) -> bool {
        self.reductions().partial_order
            && self
                .world
                .recipes
                .iter()
                .all(Recipe::observed_through_history)
    }

    /// `state` as this search sees it.
    pub fn classed(&self, state: WorldState<R::State, R::Log>) -> Classed<R::State, R::Log> {
        Classed {
            state,
            classes: self.classes,
        }
    }

    /// The fingerprint of `state` in this search.
    pub fn fingerprint(&self, state: &WorldState<R::State, R::Log>) -> u64 {
        let mut hasher = DefaultHasher::new();
        self.classed(state.clone()).hash(&mut hasher);
        hasher.finish()
    }

    /// The shortest sequence of actions from the initial state to a state where
    /// `found` holds, searching breadth first in the checker's action order;
    /// `None` if no reachable state qualifies.
    ///
    /// stateright 0.31's breadth-first checker keeps the *last* state it meets
    /// that violates a property (each discovery overwrites the previous one),
    /// so after a full exploration its path is seldom the shortest. This
    /// search stops at the first, keeping of each state only its
    /// fingerprint (its class's) and how it was reached, and makes states
    /// again by replaying ([`crate::shortest`]).
    pub fn shortest_path(
        &self,
        found: impl Fn(&WorldState<R::State, R::Log>) -> bool,
    ) -> Option<Vec<Action>> {
        self.shortest_path_within(found, |_| true)
            .expect("a search without a limit runs to its end")
    }

    /// [`Explored::shortest_path`], asking `go_on` every few thousand states
    /// (with the number of states seen) whether to go on; `Err(())` if it
    /// said no before the search ended. A step that panics is passed over.
    #[allow(clippy::result_unit_err)]
    pub fn shortest_path_within(
        &self,
        found: impl Fn(&WorldState<R::State, R::Log>) -> bool,
        go_on: impl FnMut(usize) -> bool,
    ) -> Result<Option<Vec<Action>>, ()> {
        self.shortest_path_steered(found, |_| true, None, go_on)
    }

    /// [`Explored::shortest_path_within`] along paths that go on only from
    /// the states `expand` accepts: the shortest counterexample through a
    /// fault is the shortest path to a discovery that has struck it, along
    /// no state that was a discovery already. With `max_steps`, no path
    /// longer is searched (`Err(())` if the search would go deeper): such a
    /// search need not end where no state qualifies.
    #[allow(clippy::result_unit_err)]
    pub fn shortest_path_steered(
        &self,
        found: impl Fn(&WorldState<R::State, R::Log>) -> bool,
        expand: impl Fn(&WorldState<R::State, R::Log>) -> bool,
        max_steps: Option<usize>,
        mut go_on: impl FnMut(usize) -> bool,
    ) -> Result<Option<Vec<Action>>, ()> {
        let world = &self.world;
        let init = self.classed(world.init_states().remove(0));
        let searched = crate::shortest::shortest_path(
            init,
            |state: &Classed<R::State, R::Log>, actions| {
                if !expand(&state.state) || caught(|| world.enabled(&state.state, actions)).is_err()
                {
                    actions.clear();
                }
            },
            |state, action| {
                let next = caught(|| world.step(&state.state, action)).ok().flatten()?;
                Some(self.classed(next))
            },
            |state| {
                let mut hasher = DefaultHasher::new();
                state.hash(&mut hasher);
                hasher.finish()
            },
            |state, _| found(&state.state),
            max_steps,
            &mut go_on,
        );
        searched.map(|path| path.map(|(actions, _)| actions))
    }

    /// Keeps the first panic of a search and stops it.
    fn keep_panic(
        &self,
        control: &Control<R>,
        state: &WorldState<R::State, R::Log>,
        action: Option<Action>,
        message: String,
    ) {
        let mut kept = control
            .panic
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if kept.is_none() {
            *kept = Some(Panic {
                state: state.clone(),
                action,
                message,
            });
        }
        control.halt.store(true, Ordering::Relaxed);
    }
}

/// What a search keeps while it runs, shared by its threads and the world
/// it steers.
#[derive(Debug)]
pub struct Control<R: Recipe> {
    /// While this flag is up the world enables no action, so a search drains
    /// what it has queued and stops: how a checker's time and memory limits
    /// are kept, whatever its threads (stateright 0.31 honours its own timeout
    /// only when a worker asks for more work, which a lone worker never does).
    /// The one who raises it lowers it again before rebuilding paths.
    pub halt: AtomicBool,
    /// The first panic of the recipe, the store or the client library during
    /// the search; the world raises `halt` when it keeps one.
    pub panic: Mutex<Option<Panic<R>>>,
    /// The recipe phases some client entered in a state the search reached,
    /// as bits over [`Recipe::PHASES`].
    pub phases: AtomicU64,
    /// The fault kinds injected on some path the search took, as bits over
    /// [`crate::world::faults::Kind`].
    pub faults: AtomicU16,
    /// Steps the search took that did not raise
    /// [`termination::rank`](crate::properties::termination::rank): while
    /// none did, the graph has no cycle.
    pub unranked_steps: AtomicU64,
}

impl<R: Recipe> Default for Control<R> {
    fn default() -> Self {
        Control {
            halt: AtomicBool::new(false),
            panic: Mutex::new(None),
            phases: AtomicU64::new(0),
            faults: AtomicU16::new(0),
            unranked_steps: AtomicU64::new(0),
        }
    }
}

impl<R: Recipe> Control<R> {
    /// Adds what `state` covers: its clients' phases and the fault kinds
    /// spent to reach it. A load first, so that once everything reachable
    /// is covered the threads only read the shared words.
    pub fn cover(&self, world: &World<R>, state: &WorldState<R::State, R::Log>) {
        let phases = (state.processes.iter().enumerate()).fold(0, |bits, (client, process)| {
            bits | world.recipe(client).phases(&process.recipe)
        });
        if self.phases.load(Ordering::Relaxed) & phases != phases {
            self.phases.fetch_or(phases, Ordering::Relaxed);
        }
        let faults = state.spent.kind_bits(&world.budget);
        if self.faults.load(Ordering::Relaxed) & faults != faults {
            self.faults.fetch_or(faults, Ordering::Relaxed);
        }
    }
}

/// Property `I` of the world, read through the wrapper.
fn condition<R: Recipe, const I: usize>(
    explored: &Explored<R>,
    state: &Classed<R::State, R::Log>,
) -> bool {
    (explored.properties[I].condition)(&explored.world, &state.state)
}

type Condition<R> = fn(&Explored<R>, &Classed<<R as Recipe>::State, <R as Recipe>::Log>) -> bool;

/// The condition that reads the world's property at place `at`.
fn condition_at<R: Recipe>(at: usize) -> Condition<R> {
    const { assert!(MAX_PROPERTIES == 16) };
    match at {
        0 => condition::<R, 0>,
        1 => condition::<R, 1>,
        2 => condition::<R, 2>,
        3 => condition::<R, 3>,
        4 => condition::<R, 4>,
        5 => condition::<R, 5>,
        6 => condition::<R, 6>,
        7 => condition::<R, 7>,
        8 => condition::<R, 8>,
        9 => condition::<R, 9>,
        10 => condition::<R, 10>,
        11 => condition::<R, 11>,
        12 => condition::<R, 12>,
        13 => condition::<R, 13>,
        14 => condition::<R, 14>,
        15 => condition::<R, 15>,
        _ => unreachable!("at most {MAX_PROPERTIES} properties, checked when explored"),
    }
}

impl<R: Recipe> Model for Explored<R> {
    type State = Classed<R::State, R::Log>;
    type Action = Action;

    fn init_states(&self) -> Vec<Self::State> {
        (self.world.init_states().into_iter())
            .map(|state| self.classed(state))
            .collect()
    }

    fn actions(&self, state: &Self::State, actions: &mut Vec<Self::Action>) {
        let world = &self.world;
        let Some(control) = &self.control else {
            world.enabled(&state.state, actions);
            return;
        };
        if control.halt.load(Ordering::Relaxed) {
            return;
        }
        let reduces = self.reduces_order();
        let listed = caught(|| {
            world.enabled(&state.state, actions);
            if reduces {
                crate::partial_order::reduce(world, &state.state, actions);
            }
        });
        if let Err(message) = listed {
            actions.clear();
            self.keep_panic(control, &state.state, None, message);
        }
    }

    fn next_state(&self, state: &Self::State, action: Self::Action) -> Option<Self::State> {
        let world = &self.world;
        let Some(control) = &self.control else {
            return world
                .step(&state.state, &action)
                .map(|next| self.classed(next));
        };
        match caught(|| world.step(&state.state, &action)) {
            Ok(next) => {
                if let Some(next) = &next {
                    control.cover(world, next);
                    crate::properties::termination::check_step(
                        &control.unranked_steps,
                        &state.state,
                        next,
                    );
                }
                next.map(|next| self.classed(next))
            }
            Err(message) => {
                self.keep_panic(control, &state.state, Some(action), message);
                None
            }
        }
    }

    fn properties(&self) -> Vec<Property<Self>> {
        (self.properties.iter().enumerate())
            .map(|(at, property)| Property {
                expectation: property.expectation.clone(),
                name: property.name,
                condition: condition_at::<R>(at),
            })
            .collect()
    }

    fn format_action(&self, action: &Action) -> String {
        self.world.format_action(action)
    }

    /// The explorer shows a step as a trace tells it, then the state it
    /// leads to.
    fn format_step(&self, last_state: &Self::State, action: Action) -> Option<String> {
        let world = &self.world;
        let (next, observed) = world.try_step_observed(&last_state.state, &action).ok()?;
        let run = std::slice::from_ref(&last_state.state);
        let step = world.describe(run, &action, &next, &observed);
        Some(format!("{step}\n\n{next:?}"))
    }
}
