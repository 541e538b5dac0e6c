//! `Sweep(k)`: the server's `ContainerManager` deletes the `k`-th (in path
//! order) of the nodes it may delete now: each container that has had a
//! child and has none, and each TTL node with no children
//! ([`crate::store::Store::sweepable`]). A 3.8 server looks every
//! `znode.container.checkIntervalMs`, so it happens eventually, and a
//! recipe's create under the node can come just before it or just after.

use std::ops::ControlFlow;

use super::words::fired;
use super::{Ample, Drawn, OtherStep, StepKind};
use crate::recipe::{ClientId, Observation, Recipe};
use crate::store::Path;
use crate::world::{World, WorldState};

pub struct Sweep;

/// The `k`-th node the server may delete in `state`.
fn candidate<S, L>(state: &WorldState<S, L>, k: u8) -> Option<Path> {
    state.net.store.sweepable().nth(usize::from(k)).cloned()
}

impl StepKind for Sweep {
    type Of = u8;
    const NAME: &'static str = "sweep";
    const MEANING: &'static str =
        "the server deletes an empty container that has had a child, or a TTL node with no children (its ContainerManager)";
    const PROGRESS: bool = true;
    const OWN: bool = false;
    const AMPLE: Ample = Ample::Never;
    const DRAWN: Drawn = Drawn::Struck;

    fn take<R: Recipe>(
        world: &World<R>,
        next: &mut WorldState<R::State, R::Log>,
        k: u8,
    ) -> Option<()> {
        let path = candidate(next, k)?;
        let fired = next.net.sweep(&path)?;
        world.wake(next, &fired, 0);
        Some(())
    }

    fn label(k: u8) -> String {
        format!("server deletes empty container or TTL node {k}")
    }

    fn words<R: Recipe>(
        _: &World<R>,
        before: &WorldState<R::State, R::Log>,
        k: u8,
        after: &WorldState<R::State, R::Log>,
        _: &[(ClientId, Observation<R::Fact>)],
    ) -> String {
        let Some(path) = candidate(before, k) else {
            return format!("server deletes empty node {k}, which is not there");
        };
        let what = match before.net.store.has_ttl(&path) {
            true => "the TTL node",
            false => "the empty container",
        };
        format!(
            "server deletes {what} {path} (deleteContainer){}",
            fired(before, after)
        )
    }
}

impl OtherStep for Sweep {
    fn each<R: Recipe>(
        _: &World<R>,
        state: &WorldState<R::State, R::Log>,
        mut emit: impl FnMut(u8) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let candidates = state.net.store.sweepable().count();
        for k in 0..candidates.min(usize::from(u8::MAX)) {
            emit(k as u8)?;
        }
        ControlFlow::Continue(())
    }

    fn client(_: u8) -> Option<ClientId> {
        None
    }
}
