//! `Timeout(c)`: the timeout of client `c`'s pending call fires
//! ([`Recipe::timeout`]): the scenario gave the call with one, and it has
//! not returned.

use super::words::reaction;
use super::{Ample, ClientStep, Drawn, StepKind};
use crate::recipe::{ClientId, Input, Observation, Recipe};
use crate::world::{Status, World, WorldState};

pub struct Timeout;

impl StepKind for Timeout {
    type Of = ClientId;
    const NAME: &'static str = "timeout";
    const MEANING: &'static str = "the timeout of a client's pending call fires";
    const PROGRESS: bool = true;
    const OWN: bool = true;
    const AMPLE: Ample = Ample::Alone;
    const DRAWN: Drawn = Drawn::Client;

    fn take<R: Recipe>(
        world: &World<R>,
        next: &mut WorldState<R::State, R::Log>,
        client: ClientId,
    ) -> Option<()> {
        next.processes[client].timer = false;
        let command = world.recipe(client).timeout()?;
        world.feed(next, client, [Input::Command(command)]);
        Some(())
    }

    fn label(c: ClientId) -> String {
        format!("c{c}'s pending call times out")
    }

    fn words<R: Recipe>(
        world: &World<R>,
        before: &WorldState<R::State, R::Log>,
        c: ClientId,
        after: &WorldState<R::State, R::Log>,
        observed: &[(ClientId, Observation<R::Fact>)],
    ) -> String {
        let command = world.recipe(c).timeout().map(|command| command.to_string());
        format!(
            "c{c}'s call times out: application: {}{}",
            command.unwrap_or_default(),
            reaction::<R>(before, after, c, observed)
        )
    }
}

impl ClientStep for Timeout {
    fn enabled<R: Recipe>(
        world: &World<R>,
        state: &WorldState<R::State, R::Log>,
        client: ClientId,
    ) -> bool {
        let process = &state.processes[client];
        process.status == Status::Running
            && process.timer
            && world.recipe(client).is_busy(&process.recipe)
    }
}
