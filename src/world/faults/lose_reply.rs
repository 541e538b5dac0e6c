//! The server applies the client's oldest request in flight and the reply
//! is lost with the connection: the client sees `CONNECTIONLOSS`, then
//! `Disconnected` (the seeds' lost create reply).

use super::prelude::*;

pub struct LoseReply;

impl FaultKind for LoseReply {
    const NAME: &'static str = "lose_reply";
    const MEANING: &'static str =
        "the server applies a request and its reply is lost with the connection";
    const FATE: Fate = Fate::Lives;
    const STRIKES_THE_CONNECTED: bool = true;
    const REACHES_OTHERS: bool = false;

    fn when(at: &Situation) -> bool {
        at.alive() && at.connected && at.receivable() > 0
    }

    fn received(_: &Situation) -> RangeInclusive<u8> {
        1..=1
    }

    fn strike(net: &mut Net, client: ClientId, _: u8) -> Struck {
        (net.break_connection(client, 1), Vec::new())
    }

    fn words(hit: &Hit) -> String {
        match &hit.next_request {
            Some(request) => format!(
                "the server applies c{}'s {request} and the reply is lost with the connection",
                hit.client
            ),
            None => format!(
                "the server applies c{}'s next request and the reply is lost",
                hit.client
            ),
        }
    }

    fn bounds(_: &Bounds) -> Result<(), String> {
        Ok(())
    }
}
