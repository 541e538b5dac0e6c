//! `Serve(c)`: the server client `c` is connected to serves `c`'s oldest
//! request; the notifications go on each watcher's link before the reply
//! goes on `c`'s. On an ensemble, a write or sync is answered once that
//! server has applied it ([`super::apply`]).

use super::words::{fired, server_name};
use super::{Ample, ClientStep, Drawn, StepKind};
use crate::client::ServerMessage;
use crate::recipe::{ClientId, Observation, Recipe};
use crate::store::words::{op, result};
use crate::world::{World, WorldState};

pub struct Serve;

impl StepKind for Serve {
    type Of = ClientId;
    const NAME: &'static str = "serve";
    const MEANING: &'static str = "a server serves a client's oldest request";
    const PROGRESS: bool = true;
    const OWN: bool = false;
    const AMPLE: Ample = Ample::Never;
    const DRAWN: Drawn = Drawn::Served;

    fn take<R: Recipe>(
        world: &World<R>,
        next: &mut WorldState<R::State, R::Log>,
        client: ClientId,
    ) -> Option<()> {
        let served = next.net.serve(client)?;
        world.applied(next, client, &[served]);
        Some(())
    }

    fn label(c: ClientId) -> String {
        format!("server serves c{c}'s next request")
    }

    fn words<R: Recipe>(
        _: &World<R>,
        before: &WorldState<R::State, R::Log>,
        c: ClientId,
        after: &WorldState<R::State, R::Log>,
        _: &[(ClientId, Observation<R::Fact>)],
    ) -> String {
        let request = before.net.links[c].up.front().expect("served a request");
        let server = server_name(&before.net, c);
        let reply = match (after.net.wait(c), after.net.links[c].down.back()) {
            (Some(wait), _) => format!(
                "{server} answers once it has applied transaction {}",
                wait.until - 1
            ),
            (
                None,
                Some(ServerMessage::Reply {
                    result: r, zxid, ..
                }),
            ) => format!("{} (zxid {zxid})", result(r)),
            _ => "?".into(),
        };
        format!(
            "{server} serves c{c}: {} -> {reply}{}",
            op(&request.op),
            fired(before, after)
        )
    }
}

impl ClientStep for Serve {
    fn enabled<R: Recipe>(
        _: &World<R>,
        state: &WorldState<R::State, R::Log>,
        client: ClientId,
    ) -> bool {
        state.net.can_serve(client)
    }
}
