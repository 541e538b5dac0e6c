//! `Fault(f)`: a fault strikes, within the scenario's budget. Each kind of
//! fault is a file of [`crate::world::faults`]; this is the step that takes
//! one.

use std::ops::ControlFlow;

use super::words::{expired, fired, lost, reaction};
use super::{Ample, Drawn, OtherStep, StepKind};
use crate::recipe::{ClientId, Observation, Recipe};
use crate::world::faults::{self, Charge, Fate, Fault};
use crate::world::{World, WorldState};

pub struct Strike;

impl StepKind for Strike {
    type Of = Fault;
    const NAME: &'static str = "fault";
    const MEANING: &'static str =
        "a fault strikes a client, within the scenario's budget (its kinds: `list faults`)";
    const PROGRESS: bool = false;
    const OWN: bool = true;
    const AMPLE: Ample = Ample::Never;
    const DRAWN: Drawn = Drawn::Struck;

    fn take<R: Recipe>(
        world: &World<R>,
        next: &mut WorldState<R::State, R::Log>,
        fault: Fault,
    ) -> Option<()> {
        let (served, fired) = fault.strike(next);
        world.applied(next, fault.client, &served);
        world.wake(next, &fired, 0);
        world.befall(next, fault.client, fault.kind.declaration().fate);
        Some(())
    }

    fn label(fault: Fault) -> String {
        format!("FAULT: {}", fault.words())
    }

    fn words<R: Recipe>(
        world: &World<R>,
        before: &WorldState<R::State, R::Log>,
        fault: Fault,
        after: &WorldState<R::State, R::Log>,
        observed: &[(ClientId, Observation<R::Fact>)],
    ) -> String {
        let aimed = match fault.charge {
            Charge::Any => String::new(),
            Charge::Aimed(index) => (world.budget.aimed.get(usize::from(index)))
                .map(|aimed| format!(" [aimed at {}]", aimed.target))
                .unwrap_or_default(),
        };
        // A library that gives up its session tells the recipe at once.
        let c = fault.client;
        let heard = match fault.kind.declaration().fate {
            Fate::LosesSession => format!(
                "; c{c} hears {}{}",
                expired(before, after, c),
                reaction::<R>(before, after, c, observed)
            ),
            // A woken thread does what its recipe does on a wake.
            Fate::Wakes => reaction::<R>(before, after, c, observed),
            _ => String::new(),
        };
        format!(
            "FAULT: {}{aimed}{}{heard}{}",
            fault.words_in(before),
            lost(before, after, fault.client),
            fired(before, after)
        )
    }
}

impl OtherStep for Strike {
    fn each<R: Recipe>(
        world: &World<R>,
        state: &WorldState<R::State, R::Log>,
        emit: impl FnMut(Fault) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        // Only a wake reads whether a client waits: no budget, no question.
        let wakes = world.budget.total(faults::Kind::Wake) > 0;
        faults::enabled(
            &world.budget,
            world.expire_anytime,
            state,
            |client, target| world.aimed_at(state, client, target),
            |client| wakes && world.waiting(state, client),
            emit,
        )
    }

    fn client(fault: Fault) -> Option<ClientId> {
        Some(fault.client)
    }
}
