//! The steps of the world: each kind of [`Action`] the checker can take, one
//! file each, implementing [`StepKind`].
//!
//! A step's file says everything about it: what it means, when it is
//! enabled, what it does, its words in a trace and how a diagram draws it,
//! and what the reductions and the fairness of the termination check need
//! to know of it (whether it happens eventually, whose step it is, what
//! partial-order reduction may assume of it). Leaving an answer out is a
//! compile error. `steps!` below registers each kind once: it makes the
//! [`Action`] enum and every dispatch on it, and lists enabled steps in the
//! checker's order (each client's steps, client by client, in the order
//! given there; then the others, kind by kind).
//!
//! A new kind of step is a file here and one line in `steps!`.

mod apply;
mod deliver;
mod fault;
mod go_on;
mod invoke;
mod reconnect;
mod renew;
mod resume;
mod serve;
mod session_timeout;
mod sweep;
mod timeout;
pub(crate) mod words;

use std::ops::ControlFlow;

use serde::{Deserialize, Serialize};

use crate::client::ConnState;
use crate::recipe::{ClientId, Observation, Recipe};
use crate::world::{World, WorldState};

/// One kind of step of the world.
pub trait StepKind {
    /// What an action of this kind carries: the client, server or session
    /// it is a step of, or the fault.
    type Of: Copy;
    /// Its name, as the documentation and the tests say it ([`KINDS`]).
    const NAME: &'static str;
    /// What it is, in one line.
    const MEANING: &'static str;
    /// Whether it happens eventually once enabled (a progress step), which
    /// the termination check's fairness assumes; a fault may never happen.
    const PROGRESS: bool;
    /// Whether it is the step of the client it is about (its process or its
    /// client library: [`Action::client`]), rather than a server's step for
    /// it.
    /// Partial-order reduction groups a client's own steps.
    const OWN: bool;
    /// What partial-order reduction may assume of it ([`Ample`]).
    const AMPLE: Ample;
    /// How a sequence diagram draws it ([`Drawn`]).
    const DRAWN: Drawn;

    /// Takes the step in `next` (a copy of the state it is taken from);
    /// `None` if it cannot apply.
    fn take<R: Recipe>(
        world: &World<R>,
        next: &mut WorldState<R::State, R::Log>,
        of: Self::Of,
    ) -> Option<()>;

    /// The step as the explorer lists it, before it is taken.
    fn label(of: Self::Of) -> String;

    /// The step in a trace's words, given the states before and after and
    /// what the recipes observed in it.
    fn words<R: Recipe>(
        world: &World<R>,
        before: &WorldState<R::State, R::Log>,
        of: Self::Of,
        after: &WorldState<R::State, R::Log>,
        observed: &[(ClientId, Observation<R::Fact>)],
    ) -> String;

    /// [`StepKind::words`], told with the whole path so far: `run` holds
    /// the states from the first to the one the step is taken from. A step
    /// whose words need what happened earlier (whose a session was) says it
    /// here; the rest need only the state before.
    fn words_in_run<R: Recipe>(
        world: &World<R>,
        run: &[WorldState<R::State, R::Log>],
        of: Self::Of,
        after: &WorldState<R::State, R::Log>,
        observed: &[(ClientId, Observation<R::Fact>)],
    ) -> String {
        let before = run
            .last()
            .expect("a run holds the state a step is taken from");
        Self::words(world, before, of, after, observed)
    }
}

/// A step of one client, listed with that client's others: the client it
/// carries is the one it is about.
pub trait ClientStep: StepKind<Of = ClientId> {
    /// Whether the step of `client` is enabled in `state`.
    fn enabled<R: Recipe>(
        world: &World<R>,
        state: &WorldState<R::State, R::Log>,
        client: ClientId,
    ) -> bool;
}

/// A step listed after every client's steps, kind by kind.
pub trait OtherStep: StepKind {
    /// Hands `emit` each enabled step of this kind, in the checker's order,
    /// until `emit` breaks.
    fn each<R: Recipe>(
        world: &World<R>,
        state: &WorldState<R::State, R::Log>,
        emit: impl FnMut(Self::Of) -> ControlFlow<()>,
    ) -> ControlFlow<()>;

    /// The client the step is about, if any (whom a fault strikes).
    fn client(of: Self::Of) -> Option<ClientId>;
}

/// What partial-order reduction may assume of a client's own step (the
/// conditions are in [`crate::partial_order`]'s module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ample {
    /// It changes only its client's process and what that client sends.
    Alone,
    /// It also reads its client's incoming link.
    Reads,
    /// It may be in no ample set.
    Never,
}

/// How a sequence diagram draws a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drawn {
    /// A note over its client, with each request it sent as an arrow.
    Client,
    /// A note over the server that serves its client, the reply as an arrow,
    /// and each event it queued.
    Served,
    /// A box from the client it strikes (or the server) through the server,
    /// and each event it queued.
    Struck,
}

/// Registers each kind of step once: the variant of [`Action`] and the file
/// that implements it.
macro_rules! steps {
    (
        each client { $($client:ident => $client_kind:ty,)+ }
        then { $($other:ident => $other_kind:ty,)+ }
    ) => {
        /// What the checker can do next: one of the kinds of step in
        /// [`crate::world::steps`].
        #[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        pub enum Action {
            $($client(<$client_kind as StepKind>::Of),)+
            $($other(<$other_kind as StepKind>::Of),)+
        }

        /// The name and meaning of each kind of step, in the checker's order.
        pub const KINDS: &[(&str, &str)] = &[
            $((<$client_kind>::NAME, <$client_kind>::MEANING),)+
            $((<$other_kind>::NAME, <$other_kind>::MEANING),)+
        ];

        impl Action {
            /// Whether this step happens eventually once enabled
            /// ([`StepKind::PROGRESS`]).
            pub fn is_progress(&self) -> bool {
                match self {
                    $(Action::$client(_) => <$client_kind>::PROGRESS,)+
                    $(Action::$other(_) => <$other_kind>::PROGRESS,)+
                }
            }

            /// The client this step is about, if any: the one acting, or
            /// whose request a server serves, or whom a fault strikes.
            pub fn client(&self) -> Option<ClientId> {
                match *self {
                    $(Action::$client(client) => Some(client),)+
                    $(Action::$other(of) => <$other_kind as OtherStep>::client(of),)+
                }
            }

            /// The client whose own step this is ([`StepKind::OWN`]).
            pub fn actor(&self) -> Option<ClientId> {
                let own = match self {
                    $(Action::$client(_) => <$client_kind>::OWN,)+
                    $(Action::$other(_) => <$other_kind>::OWN,)+
                };
                self.client().filter(|_| own)
            }

            /// What partial-order reduction may assume of it ([`StepKind::AMPLE`]).
            pub fn ample(&self) -> Ample {
                match self {
                    $(Action::$client(_) => <$client_kind>::AMPLE,)+
                    $(Action::$other(_) => <$other_kind>::AMPLE,)+
                }
            }

            /// How a diagram draws it ([`StepKind::DRAWN`]).
            pub fn drawn(&self) -> Drawn {
                match self {
                    $(Action::$client(_) => <$client_kind>::DRAWN,)+
                    $(Action::$other(_) => <$other_kind>::DRAWN,)+
                }
            }

            /// The name of its kind ([`StepKind::NAME`]).
            pub fn kind(&self) -> &'static str {
                match self {
                    $(Action::$client(_) => <$client_kind>::NAME,)+
                    $(Action::$other(_) => <$other_kind>::NAME,)+
                }
            }

            /// The step as the explorer lists it ([`StepKind::label`]).
            pub fn label(&self) -> String {
                match *self {
                    $(Action::$client(of) => <$client_kind>::label(of),)+
                    $(Action::$other(of) => <$other_kind>::label(of),)+
                }
            }
        }

        impl<R: Recipe> World<R> {
            /// Hands each enabled step to `emit` (only progress steps if
            /// `progress`), in the checker's order, until `emit` breaks.
            pub(crate) fn each_enabled(
                &self,
                state: &WorldState<R::State, R::Log>,
                progress: bool,
                mut emit: impl FnMut(Action) -> ControlFlow<()>,
            ) -> ControlFlow<()> {
                for client in 0..self.clients() {
                    $(
                        if (!progress || <$client_kind>::PROGRESS)
                            && <$client_kind as ClientStep>::enabled(self, state, client)
                        {
                            emit(Action::$client(client))?;
                        }
                    )+
                }
                $(
                    if !progress || <$other_kind>::PROGRESS {
                        <$other_kind as OtherStep>::each(self, state, |of| emit(Action::$other(of)))?;
                    }
                )+
                ControlFlow::Continue(())
            }

            /// Takes `action` in `next`, a copy of the state it is taken from.
            pub(crate) fn take(
                &self,
                next: &mut WorldState<R::State, R::Log>,
                action: &Action,
            ) -> Option<()> {
                match *action {
                    $(Action::$client(of) => <$client_kind>::take(self, next, of),)+
                    $(Action::$other(of) => <$other_kind>::take(self, next, of),)+
                }
            }

            /// One step in a trace's words ([`StepKind::words_in_run`]):
            /// `run` holds the path's states up to the one `action` is taken
            /// from (that state alone where nothing earlier is known).
            pub fn describe(
                &self,
                run: &[WorldState<R::State, R::Log>],
                action: &Action,
                after: &WorldState<R::State, R::Log>,
                observed: &[(ClientId, Observation<R::Fact>)],
            ) -> String {
                match *action {
                    $(Action::$client(of) => <$client_kind>::words_in_run(self, run, of, after, observed),)+
                    $(Action::$other(of) => <$other_kind>::words_in_run(self, run, of, after, observed),)+
                }
            }
        }
    };
}

steps! {
    each client {
        Invoke => invoke::Invoke,
        Timeout => timeout::Timeout,
        Deliver => deliver::Deliver,
        GoOn => go_on::GoOn,
        Reconnect => reconnect::Reconnect,
        Renew => renew::Renew,
        Resume => resume::Resume,
        Serve => serve::Serve,
    }
    then {
        Apply => apply::Apply,
        SessionTimeout => session_timeout::SessionTimeout,
        Sweep => sweep::Sweep,
        Fault => fault::Strike,
    }
}

/// Whether `client`'s library has lost its session and will open a new one
/// ([`crate::client::Library::renews`]).
fn renewing<R: Recipe>(
    world: &World<R>,
    state: &WorldState<R::State, R::Log>,
    client: ClientId,
) -> bool {
    world.library(client).renews() && state.net.client(client).state() == ConnState::Expired
}
