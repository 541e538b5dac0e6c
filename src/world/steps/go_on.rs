//! `GoOn(c)`: a thread of client `c` takes a step of its own, one that waits
//! for no input ([`Recipe::ready`]): the rest of what it was doing when the
//! recipe's other thread got its turn (the application thread, having taken
//! a reply, goes on to wait; the event thread, having checked a flag, goes
//! on to act on it). Both threads share the process's session and recipe
//! state, so whatever the other did in between is what this step finds.

use super::words::reaction;
use super::{Ample, ClientStep, Drawn, StepKind};
use crate::recipe::{ClientId, Effects, Observation, Recipe};
use crate::world::{Status, World, WorldState};

pub struct GoOn;

impl StepKind for GoOn {
    type Of = ClientId;
    const NAME: &'static str = "go_on";
    const MEANING: &'static str =
        "a thread of a client takes a step of its own that it was preempted before";
    const PROGRESS: bool = true;
    const OWN: bool = true;
    const AMPLE: Ample = Ample::Alone;
    const DRAWN: Drawn = Drawn::Client;

    fn take<R: Recipe>(
        world: &World<R>,
        next: &mut WorldState<R::State, R::Log>,
        client: ClientId,
    ) -> Option<()> {
        let me = world.incarnation(next, client);
        let mut effects = Effects::on(next.net.session(client));
        world
            .recipe(client)
            .go_on(me, &mut next.processes[client].recipe, &mut effects);
        world.effect(next, client, effects);
        Some(())
    }

    fn label(c: ClientId) -> String {
        format!("c{c}'s other thread goes on")
    }

    fn words<R: Recipe>(
        world: &World<R>,
        before: &WorldState<R::State, R::Log>,
        c: ClientId,
        after: &WorldState<R::State, R::Log>,
        observed: &[(ClientId, Observation<R::Fact>)],
    ) -> String {
        let what = world.recipe(c).ready(&before.processes[c].recipe);
        format!(
            "c{c} {}{}",
            what.unwrap_or("thread goes on"),
            reaction::<R>(before, after, c, observed)
        )
    }
}

impl ClientStep for GoOn {
    fn enabled<R: Recipe>(
        world: &World<R>,
        state: &WorldState<R::State, R::Log>,
        client: ClientId,
    ) -> bool {
        let process = &state.processes[client];
        process.status == Status::Running && world.recipe(client).ready(&process.recipe).is_some()
    }
}
