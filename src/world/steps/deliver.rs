//! `Deliver(c)`: client `c`'s library takes the next message off its link
//! (or notices that its connection is gone) and the recipe reacts.

use super::words::{ended, failed, message, reaction};
use super::{Ample, ClientStep, Drawn, StepKind};
use crate::client::ConnState;
use crate::recipe::{ClientId, Observation, Recipe};
use crate::world::{Status, World, WorldState};

pub struct Deliver;

impl StepKind for Deliver {
    type Of = ClientId;
    const NAME: &'static str = "deliver";
    const MEANING: &'static str =
        "a client's library takes the next message off its link (or finds the connection gone)";
    const PROGRESS: bool = true;
    const OWN: bool = true;
    const AMPLE: Ample = Ample::Reads;
    const DRAWN: Drawn = Drawn::Client;

    fn take<R: Recipe>(
        world: &World<R>,
        next: &mut WorldState<R::State, R::Log>,
        client: ClientId,
    ) -> Option<()> {
        let deliveries = next.net.deliver(client);
        world.deliver(next, client, deliveries);
        Some(())
    }

    fn label(c: ClientId) -> String {
        format!("c{c} reads its next message")
    }

    fn words<R: Recipe>(
        _: &World<R>,
        before: &WorldState<R::State, R::Log>,
        c: ClientId,
        after: &WorldState<R::State, R::Log>,
        observed: &[(ClientId, Observation<R::Fact>)],
    ) -> String {
        let what = match before.net.links[c].down.front() {
            Some(m) => message(m),
            None => {
                // Disconnected is told once: a failed reconnect attempt ends
                // what was queued, and tells nothing more.
                let then = (before.net.client(c).state() == ConnState::Connected)
                    .then_some("Disconnected");
                let failed = failed("CONNECTIONLOSS", &ended(before, after, c));
                let mut told: Vec<String> =
                    failed.into_iter().chain(then.map(String::from)).collect();
                let forgot = after.net.client(c).library().watches
                    == crate::client::library::WatchesOnReconnect::Dropped
                    && !before.net.client(c).watches().is_empty();
                if forgot {
                    told.push("its library drops its watches".to_string());
                }
                match told.is_empty() {
                    true => "the connection is gone".to_string(),
                    false => format!("the connection is gone: {}", told.join(", then ")),
                }
            }
        };
        format!(
            "c{c} reads {what}{}",
            reaction::<R>(before, after, c, observed)
        )
    }
}

impl ClientStep for Deliver {
    fn enabled<R: Recipe>(
        _: &World<R>,
        state: &WorldState<R::State, R::Log>,
        client: ClientId,
    ) -> bool {
        state.processes[client].status == Status::Running && state.net.can_deliver(client)
    }
}
