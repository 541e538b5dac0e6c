//! A long garbage collection: the process takes no step until it resumes;
//! the server and the other clients go on.

use super::prelude::*;

pub struct Pause;

impl FaultKind for Pause {
    const NAME: &'static str = "pause";
    const MEANING: &'static str = "a long pause (a GC): the process takes no step until it resumes";
    const FATE: Fate = Fate::Pauses;
    const STRIKES_THE_CONNECTED: bool = true;
    const REACHES_OTHERS: bool = false;

    fn when(at: &Situation) -> bool {
        at.status == Status::Running
    }

    fn received(_: &Situation) -> RangeInclusive<u8> {
        0..=0
    }

    fn strike(_: &mut Net, _: ClientId, _: u8) -> Struck {
        (Vec::new(), Vec::new())
    }

    fn words(hit: &Hit) -> String {
        format!("c{} pauses", hit.client)
    }

    fn bounds(_: &Bounds) -> Result<(), String> {
        Ok(())
    }
}
