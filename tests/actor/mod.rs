//! What every recipe's actor tests need: inputs and replies built by hand,
//! the requests a recipe is expected to send, and walks through a whole world
//! one chosen action at a time. Each recipe's test file adds only what is its
//! own (its directory, its states).
//!
//! Each test binary uses a part of it.
#![allow(dead_code)]

use std::sync::Arc;

use stateright::Model;

use zoocheck::client::SessionEvent;
use zoocheck::recipe::{Effects, Input, Observation, Recipe};
use zoocheck::store::{
    CreateMode, ErrorCode, EventType, Op, OpResult, Path, Response, Stat, WatchEvent, ANY_VERSION,
};
use zoocheck::world::{Action, World, WorldState};

// ---------------------------------------------------------------------------
// What a recipe does.
// ---------------------------------------------------------------------------

pub fn effects<F>(requests: Vec<Op>, observations: Vec<Observation<F>>) -> Effects<F> {
    let mut effects = Effects::default();
    effects.requests = requests;
    effects.observations = observations;
    effects
}

pub fn nothing<F>() -> Effects<F> {
    Effects::default()
}

pub fn create_op(path: Path, mode: CreateMode) -> Op {
    Op::Create {
        path,
        data: None,
        mode,
    }
}

pub fn list_op(dir: &str, watch: bool) -> Op {
    Op::GetChildren {
        path: Path::new(dir),
        watch,
    }
}

/// An `exists` that sets a watch, as every recipe's is.
pub fn exists_op(path: Path) -> Op {
    Op::Exists { path, watch: true }
}

/// A delete of any version.
pub fn delete_op(path: Path) -> Op {
    Op::Delete {
        path,
        version: ANY_VERSION,
    }
}

// ---------------------------------------------------------------------------
// What a recipe reacts to.
// ---------------------------------------------------------------------------

pub fn names(list: &[&str]) -> Vec<Arc<str>> {
    list.iter().map(|name| Arc::from(*name)).collect()
}

pub fn children(list: &[&str]) -> OpResult {
    Ok(Response::Children {
        names: names(list),
        stat: Stat::default(),
    })
}

pub fn created(path: Path) -> OpResult {
    Ok(Response::Created {
        path,
        stat: Stat::default(),
    })
}

pub fn lost() -> OpResult {
    Err(ErrorCode::ConnectionLoss)
}

pub fn reply<C>(op: Op, result: OpResult) -> Input<C> {
    Input::Reply { op, result }
}

pub fn command<C>(command: C) -> Input<C> {
    Input::Command(command)
}

pub fn session<C>(event: SessionEvent) -> Input<C> {
    Input::Session(event)
}

/// The session is lost (`Expired`, its phase asserted as `dead`), then its
/// library opens a new one (`SyncConnected`): what the renewal sent.
pub fn expire_and_renew<R: Recipe>(
    recipe: &R,
    me: zoocheck::recipe::Incarnation,
    state: &mut R::State,
    dead: impl Fn(&R::State) -> bool,
) -> Effects<R::Fact> {
    recipe.handle(
        me,
        state,
        session(SessionEvent::Expired),
        &mut Effects::default(),
    );
    assert!(dead(state), "{state:?} after Expired");
    let mut out = Effects::default();
    recipe.handle(me, state, session(SessionEvent::SyncConnected), &mut out);
    out
}

pub fn event<C>(kind: EventType, path: Path) -> Input<C> {
    Input::Watch(WatchEvent { kind, path })
}

// ---------------------------------------------------------------------------
// Walks through a whole world.
// ---------------------------------------------------------------------------

/// Takes `action`, which must be one the checker could choose.
pub fn act<R: Recipe>(
    world: &World<R>,
    state: &WorldState<R::State, R::Log>,
    action: Action,
) -> WorldState<R::State, R::Log> {
    let mut enabled = Vec::new();
    world.actions(state, &mut enabled);
    assert!(
        enabled.contains(&action),
        "{action:?} is not enabled; enabled: {enabled:?}"
    );
    world
        .step(state, &action)
        .unwrap_or_else(|| panic!("{action:?} did nothing"))
}

/// Takes each action in turn.
pub fn walk<R: Recipe>(
    world: &World<R>,
    mut state: WorldState<R::State, R::Log>,
    actions: &[Action],
) -> WorldState<R::State, R::Log> {
    for action in actions {
        state = act(world, &state, action.clone());
    }
    state
}

/// Serves and delivers for every client until neither can move: no command
/// is given and no fault happens.
pub fn settle<R: Recipe>(
    world: &World<R>,
    mut state: WorldState<R::State, R::Log>,
) -> WorldState<R::State, R::Log> {
    loop {
        let mut enabled = Vec::new();
        world.actions(&state, &mut enabled);
        let Some(action) = enabled
            .into_iter()
            .find(|action| matches!(action, Action::Serve(_) | Action::Deliver(_)))
        else {
            return state;
        };
        state = act(world, &state, action);
    }
}

/// The sorted names under `dir`.
pub fn sorted_children<S, L>(state: &WorldState<S, L>, dir: &str) -> Vec<String> {
    let mut names: Vec<String> = state
        .net
        .store
        .children(&Path::new(dir))
        .iter()
        .map(|name| name.to_string())
        .collect();
    names.sort();
    names
}

/// The lock node's children, for the recipes that queue under `/lock` (the
/// lock, the shared and the revocable lock): each takes a name in `/lock`.
pub mod lock_dir {
    use zoocheck::store::{CreateMode, Op, OpResult, Path};

    pub fn at(name: &str) -> Path {
        Path::new(&format!("/lock/{name}"))
    }

    /// The create of a contender's ephemeral sequential node.
    pub fn create_op(prefix: &str) -> Op {
        super::create_op(at(prefix), CreateMode::EphemeralSequential)
    }

    pub fn list_op(watch: bool) -> Op {
        super::list_op("/lock", watch)
    }

    pub fn exists_op(name: &str) -> Op {
        super::exists_op(at(name))
    }

    pub fn delete_op(name: &str) -> Op {
        super::delete_op(at(name))
    }

    pub fn created(name: &str) -> OpResult {
        super::created(at(name))
    }
}

/// What a counterexample ending in `state` says of the broken `property`
/// ([`zoocheck::properties::violation`]): for a state built by hand, where
/// no scenario breaks the property.
pub fn violation_words<R: Recipe>(
    world: &World<R>,
    state: &WorldState<R::State, R::Log>,
    property: &str,
) -> Option<String> {
    let run = zoocheck::world::Run {
        states: std::slice::from_ref(state),
        observed: &[],
    };
    zoocheck::properties::violation(world, run, property)
}
