//! `SessionTimeout(s)`: the server expires session `s`, which no running
//! client holds: a crashed process's, or one its client library gave up.
//! Nothing keeps it alive, so this always happens eventually.

use std::ops::ControlFlow;

use super::words::fired;
use super::{Ample, Drawn, OtherStep, StepKind};
use crate::recipe::{ClientId, Observation, Recipe};
use crate::store::SessionId;
use crate::world::{Status, World, WorldState};

pub struct SessionTimeout;

impl StepKind for SessionTimeout {
    type Of = SessionId;
    const NAME: &'static str = "session_timeout";
    const MEANING: &'static str = "the server expires a session that no running client holds";
    const PROGRESS: bool = true;
    const OWN: bool = false;
    const AMPLE: Ample = Ample::Never;
    const DRAWN: Drawn = Drawn::Struck;

    fn take<R: Recipe>(
        world: &World<R>,
        next: &mut WorldState<R::State, R::Log>,
        session: SessionId,
    ) -> Option<()> {
        next.dead_sessions.remove(&session);
        let fired = next.net.expire_session(session);
        world.wake(next, &fired, 0);
        Some(())
    }

    fn label(session: SessionId) -> String {
        format!("server expires the session {session:#x} that no running client holds")
    }

    fn words<R: Recipe>(
        world: &World<R>,
        before: &WorldState<R::State, R::Log>,
        session: SessionId,
        after: &WorldState<R::State, R::Log>,
        _: &[(ClientId, Observation<R::Fact>)],
    ) -> String {
        let crashed = (0..world.clients()).any(|c| {
            before.processes[c].status == Status::Crashed && before.net.session(c) == session
        });
        let whose = if crashed {
            "of a crashed process"
        } else {
            "that no client holds any more"
        };
        format!(
            "server expires the session {session:#x} {whose}{}",
            fired(before, after)
        )
    }
}

impl OtherStep for SessionTimeout {
    fn each<R: Recipe>(
        _: &World<R>,
        state: &WorldState<R::State, R::Log>,
        mut emit: impl FnMut(SessionId) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        for &session in &state.dead_sessions {
            emit(session)?;
        }
        ControlFlow::Continue(())
    }

    fn client(_: SessionId) -> Option<ClientId> {
        None
    }
}
