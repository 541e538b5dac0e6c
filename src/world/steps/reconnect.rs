//! `Reconnect(c)`: a disconnected client reaches a server again, and learns
//! whether its session lives.

use super::words::{caught_up, expired, reaction};
use super::{Ample, ClientStep, Drawn, StepKind};
use crate::client::ConnState;
use crate::recipe::{ClientId, Observation, Recipe};
use crate::world::{Status, World, WorldState};

pub struct Reconnect;

impl StepKind for Reconnect {
    type Of = ClientId;
    const NAME: &'static str = "reconnect";
    const MEANING: &'static str = "a disconnected client reaches a server again";
    const PROGRESS: bool = true;
    const OWN: bool = true;
    const AMPLE: Ample = Ample::Never;
    const DRAWN: Drawn = Drawn::Client;

    fn take<R: Recipe>(
        world: &World<R>,
        next: &mut WorldState<R::State, R::Log>,
        client: ClientId,
    ) -> Option<()> {
        let deliveries = next.net.reconnect(client);
        world.deliver(next, client, deliveries);
        Some(())
    }

    fn label(c: ClientId) -> String {
        format!("c{c} reconnects")
    }

    fn words<R: Recipe>(
        _: &World<R>,
        before: &WorldState<R::State, R::Log>,
        c: ClientId,
        after: &WorldState<R::State, R::Log>,
        observed: &[(ClientId, Observation<R::Fact>)],
    ) -> String {
        let how = if after.net.client(c).state() == ConnState::Expired {
            format!("learns its session EXPIRED: {}", expired(before, after, c))
        } else {
            let dropped = after.net.client(c).library().watches
                == crate::client::library::WatchesOnReconnect::Dropped;
            match caught_up(before, c).as_slice() {
                [] if dropped => {
                    "reconnects (no SetWatches: its library dropped its watches; SyncConnected)"
                        .to_string()
                }
                [] => "reconnects (SetWatches, SyncConnected)".to_string(),
                events => format!(
                    "reconnects (SetWatches, SyncConnected, then {}: missed while it was away)",
                    events.join(", ")
                ),
            }
        };
        // A server behind what the client has seen takes it only when its
        // connect request says less ([`crate::client::Client::connect_zxid`]).
        let client = before.net.client(c);
        let at = before.net.server_store(c).zxid();
        let behind = match at < client.last_zxid() {
            true => format!(
                " at server {}, whose zxid {at} is behind the {} it has seen (its connect request carries zxid {})",
                before.net.server(c),
                client.last_zxid(),
                client.connect_zxid()
            ),
            false => String::new(),
        };
        format!(
            "c{c} {how}{behind}{}",
            reaction::<R>(before, after, c, observed)
        )
    }
}

impl ClientStep for Reconnect {
    fn enabled<R: Recipe>(
        _: &World<R>,
        state: &WorldState<R::State, R::Log>,
        client: ClientId,
    ) -> bool {
        state.processes[client].status == Status::Running
            && state.net.client(client).state() == ConnState::Disconnected
            && !state.net.links[client].broken
            && state.net.can_reconnect(client)
    }
}
