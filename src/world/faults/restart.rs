//! A new process for a crashed client: same client, no memory, a new
//! session.

use super::prelude::*;

pub struct Restart;

impl FaultKind for Restart {
    const NAME: &'static str = "restart";
    const MEANING: &'static str = "a crashed client comes back: a new process with a new session";
    const FATE: Fate = Fate::Restarts;
    const STRIKES_THE_CONNECTED: bool = false;
    const REACHES_OTHERS: bool = false;

    fn when(at: &Situation) -> bool {
        at.status == Status::Crashed
    }

    fn received(_: &Situation) -> RangeInclusive<u8> {
        0..=0
    }

    fn strike(net: &mut Net, client: ClientId, _: u8) -> Struck {
        net.open_session(client);
        (Vec::new(), Vec::new())
    }

    fn words(hit: &Hit) -> String {
        format!("c{} restarts with a new session", hit.client)
    }

    /// A restart needs a crashed client.
    fn bounds(at: &Bounds) -> Result<(), String> {
        let (restarts, crashes) = (at.budget.total(Kind::Restart), at.budget.total(Kind::Crash));
        if restarts > crashes {
            return Err(format!(
                "{restarts} restarts but only {crashes} crashes; a restart needs a crashed client"
            ));
        }
        Ok(())
    }
}
