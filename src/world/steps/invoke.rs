//! `Invoke(c)`: the application gives client `c` its next scripted command,
//! once the previous one has returned (or at once, if the recipe takes the
//! command as an interruption of the call still running), and, where the
//! library renews lost sessions, once it has a session again.

use super::words::reaction;
use super::{renewing, Ample, ClientStep, Drawn, StepKind};
use crate::recipe::{ClientId, Input, Observation, Recipe};
use crate::world::{Status, World, WorldState};

pub struct Invoke;

impl StepKind for Invoke {
    type Of = ClientId;
    const NAME: &'static str = "invoke";
    const MEANING: &'static str = "the application gives a client its next scripted command";
    const PROGRESS: bool = true;
    const OWN: bool = true;
    const AMPLE: Ample = Ample::Alone;
    const DRAWN: Drawn = Drawn::Client;

    fn take<R: Recipe>(
        world: &World<R>,
        next: &mut WorldState<R::State, R::Log>,
        client: ClientId,
    ) -> Option<()> {
        let process = &mut next.processes[client];
        let step = process.commands_given;
        let command = *world.scripts[client].get(usize::from(step))?;
        process.commands_given += 1;
        process.timer = world.is_timed(client, step);
        world.feed(next, client, [Input::Command(command)]);
        Some(())
    }

    fn label(c: ClientId) -> String {
        format!("c{c} application: its next command")
    }

    fn words<R: Recipe>(
        world: &World<R>,
        before: &WorldState<R::State, R::Log>,
        c: ClientId,
        after: &WorldState<R::State, R::Log>,
        observed: &[(ClientId, Observation<R::Fact>)],
    ) -> String {
        let step = before.processes[c].commands_given;
        let command = &world.scripts[c][usize::from(step)];
        let timed = if world.is_timed(c, step) {
            " with a timeout"
        } else {
            ""
        };
        format!(
            "c{c} application: {command}{timed}{}",
            reaction::<R>(before, after, c, observed)
        )
    }
}

impl ClientStep for Invoke {
    fn enabled<R: Recipe>(
        world: &World<R>,
        state: &WorldState<R::State, R::Log>,
        client: ClientId,
    ) -> bool {
        let process = &state.processes[client];
        if process.status != Status::Running {
            return false;
        }
        let recipe = world.recipe(client);
        let Some(next) = world.scripts[client].get(usize::from(process.commands_given)) else {
            return false;
        };
        // A library that will renew its lost session holds the
        // application's next call until it has (Curator's calls wait for a
        // connection), rather than fail it on a handle about to be replaced.
        !renewing(world, state, client)
            && (!recipe.is_busy(&process.recipe) || recipe.interrupts(&process.recipe, next))
    }
}
