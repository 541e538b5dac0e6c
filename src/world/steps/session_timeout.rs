//! `SessionTimeout(s)`: the server expires session `s`, which no running
//! client holds: a crashed process's, or one its client library gave up.
//! A trace names whose it was where the path shows it ([`left_by`]).
//! Nothing keeps it alive, so this always happens eventually.

use std::ops::ControlFlow;

use super::words::{fired, left_by, Left};
use super::{Ample, Drawn, OtherStep, StepKind};
use crate::recipe::{ClientId, Observation, Recipe};
use crate::store::SessionId;
use crate::world::{World, WorldState};

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
        observed: &[(ClientId, Observation<R::Fact>)],
    ) -> String {
        Self::words_in_run(
            world,
            std::slice::from_ref(before),
            session,
            after,
            observed,
        )
    }

    fn words_in_run<R: Recipe>(
        _: &World<R>,
        run: &[WorldState<R::State, R::Log>],
        session: SessionId,
        after: &WorldState<R::State, R::Log>,
        _: &[(ClientId, Observation<R::Fact>)],
    ) -> String {
        let before = run
            .last()
            .expect("a run holds the state a step is taken from");
        let whose = match left_by(run, session) {
            Some((c, Left::Crashed)) => format!("of c{c}'s crashed process"),
            Some((c, Left::GaveUp)) => format!("that c{c}'s library gave up"),
            None => "that no client holds any more".to_string(),
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
