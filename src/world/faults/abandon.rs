//! The client library, cut off for longer than it trusts its session,
//! declares it lost on its own clock before the server has expired it
//! (Curator's session-expiration handling, a Java client from 3.9.3 on):
//! the recipe hears `Expired`; the server keeps the session and its
//! ephemerals until it times out (the world's `SessionTimeout`). Only a
//! library that gives up so strikes (`[library] gives_up`, Curator's);
//! one that renews (`on_expiry = "renew"`) then opens a new session.

use super::prelude::*;

pub struct Abandon;

impl FaultKind for Abandon {
    const NAME: &'static str = "abandon";
    const MEANING: &'static str =
        "the client library gives up its session while disconnected, before the server expires it";
    const FATE: Fate = Fate::LosesSession;
    const STRIKES_THE_CONNECTED: bool = false;
    const REACHES_OTHERS: bool = false;

    /// The library's threads run with the process: a paused one decides
    /// nothing until it resumes.
    fn when(at: &Situation) -> bool {
        at.gives_up && at.status == Status::Running && at.knows_disconnected && at.session_alive
    }

    fn received(_: &Situation) -> RangeInclusive<u8> {
        0..=0
    }

    fn strike(_: &mut Net, _: ClientId, _: u8) -> Struck {
        (Vec::new(), Vec::new())
    }

    fn words(hit: &Hit) -> String {
        format!(
            "c{}'s client library gives up its session (the server still has it)",
            hit.client
        )
    }

    fn bounds(_: &Bounds) -> Result<(), String> {
        Ok(())
    }
}
