//! What the world judges: a property declared once ([`Promise`]): its name,
//! meaning, whether always or sometimes, its condition and the words of a
//! violation. The properties themselves, and the ones several recipes share,
//! are in [`crate::properties`].

use stateright::{Expectation, Property};

use crate::recipe::Recipe;
use crate::world::{Run, World, WorldState};

/// A condition on a state, as stateright's properties take it.
pub type Condition<R> =
    fn(&World<R>, &WorldState<<R as Recipe>::State, <R as Recipe>::Log>) -> bool;

/// Why the last state of a run breaks an `always` property, in words: who
/// believes what. Asked only of a run whose last state breaks it; `None` if
/// it has no words for that state.
pub type Explain<R> = fn(&World<R>, Run<'_, R>) -> Option<String>;

/// A property a recipe promises, declared once.
pub struct Promise<R: Recipe> {
    /// The name scenarios expect it by. A name means the same in every
    /// recipe that has it.
    pub name: &'static str,
    /// What it promises, in one line: `list` and `new` print it, and a
    /// `sometimes` reached says it happened with it.
    pub meaning: &'static str,
    /// Its condition on a state.
    pub condition: Condition<R>,
    /// Whether it must hold in every state or be reached in one.
    pub when: When<R>,
    /// What a scenario that does not state it expects (proven): `true`, that
    /// an `always` holds or a `sometimes` is reached; `false`, that it is
    /// violated or unreached. `None`: every scenario must state it.
    pub default: Option<bool>,
}

/// Whether a [`Promise`] must hold in every reachable state or be met in one.
pub enum When<R: Recipe> {
    /// Its condition holds in every reachable state; `broken` tells why a
    /// state does not.
    Always { broken: Explain<R> },
    /// Some reachable state meets its condition: the partner that shows an
    /// `always` is not vacuous.
    Sometimes,
}

impl<R: Recipe> Clone for When<R> {
    fn clone(&self) -> Self {
        match self {
            When::Always { broken } => When::Always { broken: *broken },
            When::Sometimes => When::Sometimes,
        }
    }
}

impl<R: Recipe> Clone for Promise<R> {
    fn clone(&self) -> Self {
        Promise {
            when: self.when.clone(),
            ..*self
        }
    }
}

/// A promise without its recipe's type: what `list` and `new` say of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Declared {
    pub name: &'static str,
    pub meaning: &'static str,
    /// An `always` (else a `sometimes`).
    pub always: bool,
    /// Its default expectation, if it has one ([`Promise::default`]).
    pub default: Option<bool>,
}

impl Declared {
    /// What sort of property it is, with its default: `always`, `sometimes,
    /// by default reached` (what `list` and `new` say).
    pub fn kind(&self) -> &'static str {
        match (self.always, self.default) {
            (true, None) => "always",
            (true, Some(true)) => "always, by default holds",
            (true, Some(false)) => "always, by default violated",
            (false, None) => "sometimes",
            (false, Some(true)) => "sometimes, by default reached",
            (false, Some(false)) => "sometimes, by default unreached",
        }
    }

    /// The verdict a new scenario writes for it: its default, else that it
    /// holds or is reached.
    pub fn usual(&self) -> &'static str {
        match (self.always, self.default.unwrap_or(true)) {
            (true, true) => "holds",
            (true, false) => "violated",
            (false, true) => "reached",
            (false, false) => "unreached",
        }
    }
}

impl<R: Recipe> Promise<R> {
    /// A property that holds in every reachable state.
    pub const fn always(
        name: &'static str,
        meaning: &'static str,
        condition: Condition<R>,
        broken: Explain<R>,
    ) -> Promise<R> {
        Promise {
            name,
            meaning,
            condition,
            when: When::Always { broken },
            default: None,
        }
    }

    /// A property some reachable state meets.
    pub const fn sometimes(
        name: &'static str,
        meaning: &'static str,
        condition: Condition<R>,
    ) -> Promise<R> {
        Promise {
            name,
            meaning,
            condition,
            when: When::Sometimes,
            default: None,
        }
    }

    /// The same promise, expected by a scenario that does not state it to
    /// hold (an `always`) or be reached (a `sometimes`) where `kept`, else
    /// to be violated or unreached: a property a recipe adds needs no line
    /// in each of its scenarios.
    pub const fn by_default(self, kept: bool) -> Promise<R> {
        Promise {
            default: Some(kept),
            ..self
        }
    }

    /// The same condition and words under a recipe's own name and meaning
    /// (an election's `one_leader` is the lock's mutual exclusion).
    pub const fn named(self, name: &'static str, meaning: &'static str) -> Promise<R> {
        Promise {
            name,
            meaning,
            ..self
        }
    }

    /// Whether it is an `always`.
    pub fn is_always(&self) -> bool {
        matches!(self.when, When::Always { .. })
    }

    /// As the checker judges it.
    pub fn property(&self) -> Property<World<R>> {
        Property {
            expectation: if self.is_always() {
                Expectation::Always
            } else {
                Expectation::Sometimes
            },
            name: self.name,
            condition: self.condition,
        }
    }

    /// What `list` and `new` say of it.
    pub fn declared(&self) -> Declared {
        Declared {
            name: self.name,
            meaning: self.meaning,
            always: self.is_always(),
            default: self.default,
        }
    }

    /// Why the last state of `run` breaks it, in words; `None` for a
    /// `sometimes`, a state that does not break it, or no words.
    pub fn violation(&self, world: &World<R>, run: Run<'_, R>) -> Option<String> {
        match self.when {
            When::Always { broken } if !(self.condition)(world, run.last()) => broken(world, run),
            _ => None,
        }
    }
}
