//! `Resume(c)`: a paused process runs again.

use super::{Ample, ClientStep, Drawn, StepKind};
use crate::recipe::{ClientId, Observation, Recipe};
use crate::world::{Status, World, WorldState};

pub struct Resume;

impl StepKind for Resume {
    type Of = ClientId;
    const NAME: &'static str = "resume";
    const MEANING: &'static str = "a paused process runs again";
    const PROGRESS: bool = true;
    const OWN: bool = true;
    const AMPLE: Ample = Ample::Never;
    const DRAWN: Drawn = Drawn::Client;

    fn take<R: Recipe>(
        _: &World<R>,
        next: &mut WorldState<R::State, R::Log>,
        client: ClientId,
    ) -> Option<()> {
        next.processes[client].status = Status::Running;
        Some(())
    }

    fn label(c: ClientId) -> String {
        format!("c{c} resumes")
    }

    fn words<R: Recipe>(
        _: &World<R>,
        _: &WorldState<R::State, R::Log>,
        c: ClientId,
        _: &WorldState<R::State, R::Log>,
        _: &[(ClientId, Observation<R::Fact>)],
    ) -> String {
        format!("c{c} resumes after its pause")
    }
}

impl ClientStep for Resume {
    fn enabled<R: Recipe>(
        _: &World<R>,
        state: &WorldState<R::State, R::Log>,
        client: ClientId,
    ) -> bool {
        state.processes[client].status == Status::Paused
    }
}
