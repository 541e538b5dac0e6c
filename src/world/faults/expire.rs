//! The server expires the session: its ephemerals are deleted, its watchers
//! notified, its connection closed. Only while its client is disconnected
//! (and knows it) or paused, since a live connected client keeps its
//! session alive; with `expire_anytime`, at any time.
//!
//! The deleted ephemerals' watchers are other clients, but a watch event is
//! the store's, queued on their links: the fault reaches no other client's
//! process, link or session ([`FaultKind::REACHES_OTHERS`]), and
//! partial-order reduction leaves a client with a watch out of its ample
//! sets.

use super::prelude::*;

pub struct Expire;

impl FaultKind for Expire {
    const NAME: &'static str = "expire";
    const MEANING: &'static str = "the server expires a disconnected or paused client's session";
    const FATE: Fate = Fate::Lives;
    // With `expire_anytime`.
    const STRIKES_THE_CONNECTED: bool = true;
    const REACHES_OTHERS: bool = false;

    fn when(at: &Situation) -> bool {
        at.alive()
            && at.session_alive
            && (at.status == Status::Paused || at.knows_disconnected || at.expire_anytime)
    }

    fn received(_: &Situation) -> RangeInclusive<u8> {
        0..=0
    }

    fn strike(net: &mut Net, client: ClientId, _: u8) -> Struck {
        (Vec::new(), net.expire(client))
    }

    fn words(hit: &Hit) -> String {
        let paused = if hit.paused {
            " while it is paused"
        } else {
            ""
        };
        format!("the server expires c{}'s session{paused}", hit.client)
    }

    fn bounds(_: &Bounds) -> Result<(), String> {
        Ok(())
    }
}
