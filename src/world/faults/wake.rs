//! A spurious wake: a thread of the client that waits for an event wakes
//! with nothing to read. Java's `Object.wait` may return with no `notify`
//! (its documentation says so, and says to wait in a loop that checks its
//! condition); Curator's and kazoo's wait loops also wake on every
//! connection-state change and on a notification that was queued before
//! the wait began. A recipe that checks again on every wake asks the
//! server again; one that takes any wake for the event it waited for acts
//! on what did not happen.
//!
//! It strikes only a client whose recipe says a thread of it waits
//! ([`crate::recipe::Recipe::waits`]); the server, the links and the other
//! clients are untouched.

use super::prelude::*;

pub struct Wake;

impl FaultKind for Wake {
    const NAME: &'static str = "wake";
    const MEANING: &'static str =
        "a waiting thread wakes with no event (a spurious wake), and does what the recipe does on a wake";
    const FATE: Fate = Fate::Wakes;
    const STRIKES_THE_CONNECTED: bool = true;
    const REACHES_OTHERS: bool = false;

    fn when(at: &Situation) -> bool {
        at.status == Status::Running && at.waiting
    }

    fn received(_: &Situation) -> RangeInclusive<u8> {
        0..=0
    }

    fn strike(_: &mut Net, _: ClientId, _: u8) -> Struck {
        (Vec::new(), Vec::new())
    }

    fn words(hit: &Hit) -> String {
        format!("c{} wakes with no event (a spurious wake)", hit.client)
    }

    fn bounds(at: &Bounds) -> Result<(), String> {
        match at.waits {
            true => Ok(()),
            false => Err(format!(
                "a wake, for a recipe none of whose threads waits for an event \
                 (Recipe::waits); the recipes that do: {}",
                at.waiting_recipes
            )),
        }
    }
}
