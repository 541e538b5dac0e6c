//! `Renew(c)`: the client library of a running process whose session is
//! gone opens a new one, when the scenario's clients renew
//! (`[library] on_expiry`, [`crate::client::Library::renews`]); the recipe hears
//! `SyncConnected`.

use super::words::reaction;
use super::{renewing, Ample, ClientStep, Drawn, StepKind};
use crate::recipe::{ClientId, Observation, Recipe};
use crate::world::{Status, World, WorldState};

pub struct Renew;

impl StepKind for Renew {
    type Of = ClientId;
    const NAME: &'static str = "renew";
    const MEANING: &'static str =
        "the library of a client whose session is gone opens a new session";
    const PROGRESS: bool = true;
    const OWN: bool = true;
    const AMPLE: Ample = Ample::Never;
    const DRAWN: Drawn = Drawn::Client;

    fn take<R: Recipe>(
        world: &World<R>,
        next: &mut WorldState<R::State, R::Log>,
        client: ClientId,
    ) -> Option<()> {
        let deliveries = next.net.renew(client);
        world.deliver(next, client, deliveries);
        Some(())
    }

    fn label(c: ClientId) -> String {
        format!("c{c}'s client library opens a new session")
    }

    fn words<R: Recipe>(
        _: &World<R>,
        before: &WorldState<R::State, R::Log>,
        c: ClientId,
        after: &WorldState<R::State, R::Log>,
        observed: &[(ClientId, Observation<R::Fact>)],
    ) -> String {
        format!(
            "c{c}'s client library opens a new session {:#x}{}",
            after.net.session(c),
            reaction::<R>(before, after, c, observed)
        )
    }
}

impl ClientStep for Renew {
    fn enabled<R: Recipe>(
        world: &World<R>,
        state: &WorldState<R::State, R::Log>,
        client: ClientId,
    ) -> bool {
        state.processes[client].status == Status::Running && renewing(world, state, client)
    }
}
