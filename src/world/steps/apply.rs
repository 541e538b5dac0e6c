//! `Apply(s)`: server `s` of an ensemble (the leader too) applies the next
//! transaction the leader committed ([`crate::ensemble`]), answering a client
//! that waited for it.

use std::ops::ControlFlow;

use super::words::fired;
use super::{Ample, Drawn, OtherStep, StepKind};
use crate::client::ServerMessage;
use crate::ensemble::Txn;
use crate::recipe::{ClientId, Observation, Recipe};
use crate::store::words::{op, result};
use crate::world::{World, WorldState};

pub struct Apply;

impl StepKind for Apply {
    /// The server's index (0 is the leader).
    type Of = usize;
    const NAME: &'static str = "apply";
    const MEANING: &'static str =
        "a server of an ensemble applies the next transaction the leader committed";
    const PROGRESS: bool = true;
    const OWN: bool = false;
    const AMPLE: Ample = Ample::Never;
    const DRAWN: Drawn = Drawn::Struck;

    fn take<R: Recipe>(
        world: &World<R>,
        next: &mut WorldState<R::State, R::Log>,
        server: usize,
    ) -> Option<()> {
        let fired = next.net.apply(server)?;
        world.wake(next, &fired, server);
        Some(())
    }

    fn label(server: usize) -> String {
        format!("server {server} applies its next transaction")
    }

    fn words<R: Recipe>(
        _: &World<R>,
        before: &WorldState<R::State, R::Log>,
        server: usize,
        after: &WorldState<R::State, R::Log>,
        _: &[(ClientId, Observation<R::Fact>)],
    ) -> String {
        let what = match before.net.ensemble.next(server) {
            Some((
                index,
                Txn::Request {
                    session,
                    op: request,
                },
            )) => {
                format!(
                    "transaction {index}, {} of session {session:#x}",
                    op(request)
                )
            }
            Some((index, Txn::Open)) => format!("transaction {index}, createSession"),
            Some((index, Txn::Expire(session))) => {
                format!("transaction {index}, closeSession {session:#x} (expired)")
            }
            Some((index, Txn::Sweep(path))) => {
                format!("transaction {index}, deleteContainer {path}")
            }
            None => "?".into(),
        };
        let answers: String = (0..before.net.clients.len())
            .filter(|&c| before.net.wait(c).is_some() && after.net.wait(c).is_none())
            .map(|c| match after.net.links[c].down.back() {
                Some(ServerMessage::Reply {
                    result: r, zxid, ..
                }) if before.net.wait(c).is_some_and(|wait| wait.answered) => {
                    format!("; answers c{c}: {} (zxid {zxid})", result(r))
                }
                _ => format!("; finishes c{c}'s request, whose connection is gone"),
            })
            .collect();
        format!(
            "server {server} applies {what}{answers}{}",
            fired(before, after)
        )
    }
}

impl OtherStep for Apply {
    fn each<R: Recipe>(
        _: &World<R>,
        state: &WorldState<R::State, R::Log>,
        mut emit: impl FnMut(usize) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        for server in 0..state.net.ensemble.servers() {
            if state.net.ensemble.behind(server) > 0 {
                emit(server)?;
            }
        }
        ControlFlow::Continue(())
    }

    fn client(_: usize) -> Option<ClientId> {
        None
    }
}
