//! In an ensemble, a client library that knows it is cut off connects next
//! to another server of its list (every other server is explored, `applied`
//! counting servers on from its own). The server it left finishes what it
//! had of the session's for nobody; the new one takes the client once it
//! has applied everything the client has seen.

use super::prelude::*;

pub struct Move;

impl FaultKind for Move {
    const NAME: &'static str = "move";
    const MEANING: &'static str =
        "in an ensemble, a disconnected client's library connects next to another server";
    const FATE: Fate = Fate::Lives;
    const STRIKES_THE_CONNECTED: bool = false;
    const REACHES_OTHERS: bool = false;

    /// The library's threads run with the process, as for `abandon`.
    fn when(at: &Situation) -> bool {
        at.status == Status::Running && at.knows_disconnected && at.servers > 1
    }

    fn received(at: &Situation) -> RangeInclusive<u8> {
        1..=at.servers.saturating_sub(1)
    }

    fn strike(net: &mut Net, client: ClientId, offset: u8) -> Struck {
        net.move_client(client, usize::from(offset));
        (Vec::new(), Vec::new())
    }

    fn words(hit: &Hit) -> String {
        match hit.server {
            Some((server, servers)) => format!(
                "c{}'s client library turns to server {} to reconnect",
                hit.client,
                (server + usize::from(hit.applied)) % servers
            ),
            None => format!(
                "c{}'s client library turns to the server {} on from its own to reconnect",
                hit.client, hit.applied
            ),
        }
    }

    /// A connection moves between the servers of an ensemble.
    fn bounds(at: &Bounds) -> Result<(), String> {
        if at.servers == 1 {
            return Err("a move, on one server; a connection moves between the servers of an ensemble, so it needs [store] servers of 2 or more".into());
        }
        Ok(())
    }
}
