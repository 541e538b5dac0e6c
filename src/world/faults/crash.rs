//! The process dies. Its connection drops after the server received the
//! first `applied` of its requests in flight (every count is explored), and
//! its session lives on until the server expires it (the world's
//! `SessionTimeout`).

use super::prelude::*;

pub struct Crash;

impl FaultKind for Crash {
    const NAME: &'static str = "crash";
    const MEANING: &'static str = "the process dies; its session lives until the server expires it";
    const FATE: Fate = Fate::Dies;
    const STRIKES_THE_CONNECTED: bool = true;
    const REACHES_OTHERS: bool = false;

    fn when(at: &Situation) -> bool {
        at.alive()
    }

    fn received(at: &Situation) -> RangeInclusive<u8> {
        0..=at.receivable()
    }

    fn strike(net: &mut Net, client: ClientId, applied: u8) -> Struck {
        let served = net.break_connection(client, usize::from(applied));
        net.forget_link(client);
        (served, Vec::new())
    }

    fn words(hit: &Hit) -> String {
        format!(
            "c{} crashes (the server received {} of its requests in flight)",
            hit.client, hit.applied
        )
    }

    fn bounds(_: &Bounds) -> Result<(), String> {
        Ok(())
    }
}
