//! The connection drops: the server received the first `applied` requests
//! in flight (every count is explored) and applied them; their replies and
//! all else unread are lost. The client notices at its next delivery
//! (`CONNECTIONLOSS` for each request, then `Disconnected`), then
//! reconnects, or learns its session expired.

use super::prelude::*;

pub struct Disconnect;

impl FaultKind for Disconnect {
    const NAME: &'static str = "disconnect";
    const MEANING: &'static str = "the connection drops, its requests in flight applied or not";
    const FATE: Fate = Fate::Lives;
    const STRIKES_THE_CONNECTED: bool = true;
    const REACHES_OTHERS: bool = false;

    fn when(at: &Situation) -> bool {
        at.alive() && at.connected
    }

    fn received(at: &Situation) -> RangeInclusive<u8> {
        0..=at.receivable()
    }

    fn strike(net: &mut Net, client: ClientId, applied: u8) -> Struck {
        (net.break_connection(client, usize::from(applied)), Vec::new())
    }

    fn words(hit: &Hit) -> String {
        format!(
            "c{}'s connection drops (the server received {} of its requests in flight)",
            hit.client, hit.applied
        )
    }

    fn bounds(_: &Bounds) -> Result<(), String> {
        Ok(())
    }
}
