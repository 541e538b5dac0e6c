//! A recipe of your own, checked by zoocheck from your own crate: `once`,
//! a job that a fleet of clients must run exactly once.
//!
//! Each client is told `run`. It claims the job by creating the persistent
//! node `/job/claim`; the one whose create succeeds runs the job, and a
//! client told `NODEEXISTS` leaves it to the other. Three variants, each a
//! preset of two knobs ([`Knobs`]) that a scenario may turn:
//!
//! - `claim`: as above. A create whose reply is lost with the connection
//!   was applied or not (`CONNECTIONLOSS`); the client creates again, is told
//!   `NODEEXISTS`, and leaves the job that it claimed itself to nobody.
//! - `claim_with_id` (`claim_with_id = true`): the claim carries the client's id as its data, and a
//!   client told `NODEEXISTS` reads it: its own claim, it runs the job.
//! - `check_then_create` (`checks_first = true`): asks whether the claim exists, and if not, runs
//!   the job and then creates the claim. Two clients can both see no claim.
//!
//! What zoocheck needs of it: a [`Recipe`] (the actor: its state, its
//! commands, what it does with each input), the facts it reports and the
//! log the world keeps of them ([`Runs`]), its knobs, and a [`Catalogued`]
//! entry (its name, variants, commands and properties, by the names
//! scenario files use). [`RECIPES`] is the list a project's scenarios are read among.

use std::fmt;

use zoocheck::catalogue::{AnyRecipe, Entry};
use zoocheck::catalogued::{Catalogued, Docs, NoParams};
use zoocheck::properties::Promise;
use zoocheck::recipe::{Effects, Incarnation, Input, Log, Recipe, Symmetric, Witness};
use zoocheck::store::{data, CreateMode, ErrorCode, Op, Path, Response};
use zoocheck::world::{Run, World, WorldState};

/// The recipes this project's scenarios may name.
pub static RECIPES: [&dyn AnyRecipe; 1] = [&Entry::<Once>::NEW];

/// Where the claim is made.
const DIRECTORY: &str = "/job";
const CLAIM: &str = "/job/claim";

zoocheck::knobs! {
    /// The recipe's knobs, each with what it means (`zoocheck::knob_value!`
    /// declares a knob of more than two values). A variant is a preset.
    pub struct Knobs {
        /// The claim carries the client's id as its data, and a client told `NODEEXISTS` reads it: its own claim, it runs the job.
        claim_with_id: bool,
        /// Ask whether the claim exists first, and if not, run the job and then create the claim.
        checks_first: bool,
    }
}

impl Knobs {
    pub const CLAIM: Knobs = Knobs {
        claim_with_id: false,
        checks_first: false,
    };
    pub const CLAIM_WITH_ID: Knobs = Knobs {
        claim_with_id: true,
        ..Knobs::CLAIM
    };
    pub const CHECK_THEN_CREATE: Knobs = Knobs {
        checks_first: true,
        ..Knobs::CLAIM
    };
}

/// The one command: run the job, unless another client does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RunJob;

impl fmt::Display for RunJob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("run")
    }
}

/// Where a client is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    Idle,
    /// Its create of the claim is in flight.
    Claiming,
    /// It reads whose the claim is (`claim_with_id`).
    Reading,
    /// It asks whether the claim exists (`check_then_create`).
    Checking,
    Ran,
    /// Another client has the job, or the session is gone.
    LeftIt,
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Phase::Idle => "idle",
            Phase::Claiming => "claiming the job",
            Phase::Reading => "reading whose the claim is",
            Phase::Checking => "asking whether the job is claimed",
            Phase::Ran => "ran the job",
            Phase::LeftIt => "left the job to another",
        })
    }
}

/// A phase names no client: nothing to rename.
impl Symmetric for Phase {}

/// The fact the recipe reports: its client ran the job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ran;

/// How many times the job ran (2 means twice or more).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Runs(pub u8);

impl Symmetric for Runs {}

impl Log for Runs {
    type Fact = Ran;

    fn new(_clients: usize) -> Runs {
        Runs(0)
    }

    fn record(&mut self, _fact: &Ran, _at: Witness<'_>) {
        self.0 = (self.0 + 1).min(2);
    }

    fn tell(&self, _before: &Runs, client: usize, facts: &[&Ran]) -> String {
        match facts.is_empty() {
            true => String::new(),
            false => format!("; c{client} RUNS THE JOB"),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Once {
    knobs: Knobs,
    directory: Path,
}

impl Once {
    fn claim(&self, me: Incarnation, out: &mut Effects<Ran>) {
        let id = match self.knobs.claim_with_id {
            true => data(me.guid().as_bytes()),
            false => None,
        };
        out.send(Op::Create {
            path: Path::new(CLAIM),
            data: id,
            mode: CreateMode::Persistent,
        });
    }

    fn run(&self, state: &mut Phase, out: &mut Effects<Ran>) {
        *state = Phase::Ran;
        out.fact(Ran);
    }
}

impl Recipe for Once {
    type State = Phase;
    type Command = RunJob;
    type Fact = Ran;
    type Log = Runs;

    fn init(&self, _me: Incarnation) -> Phase {
        Phase::Idle
    }

    fn handle(
        &self,
        me: Incarnation,
        state: &mut Phase,
        input: Input<RunJob>,
        out: &mut Effects<Ran>,
    ) {
        let (op, result) = match input {
            Input::Command(RunJob) if self.knobs.checks_first => {
                *state = Phase::Checking;
                return out.send(Op::Exists {
                    path: Path::new(CLAIM),
                    watch: false,
                });
            }
            Input::Command(RunJob) => {
                *state = Phase::Claiming;
                return self.claim(me, out);
            }
            Input::Reply { op, result } => (op, result),
            // It sets no watch, and a lost connection shows in the replies.
            Input::Watch(_) | Input::Session(_) => return,
        };
        match (*state, result) {
            // Applied or not: ask again, as a client library's retry does.
            (_, Err(ErrorCode::ConnectionLoss)) => out.send(op),
            (Phase::Claiming, Ok(_)) => self.run(state, out),
            (Phase::Claiming, Err(ErrorCode::NodeExists)) if self.knobs.claim_with_id => {
                *state = Phase::Reading;
                out.send(Op::GetData {
                    path: Path::new(CLAIM),
                    watch: false,
                });
            }
            (Phase::Reading, Ok(Response::Data { data: Some(id), .. }))
                if id.as_ref() == me.guid().as_bytes() =>
            {
                self.run(state, out)
            }
            (Phase::Checking, Ok(Response::Exists(None))) => {
                self.run(state, out);
                self.claim(me, out);
            }
            // The claim's create after the job ran: whatever it says.
            (Phase::Ran, _) => {}
            _ => *state = Phase::LeftIt,
        }
    }

    fn is_busy(&self, state: &Phase) -> bool {
        matches!(state, Phase::Claiming | Phase::Reading | Phase::Checking)
    }

    fn is_waiting(&self, _state: &Phase) -> bool {
        false
    }

    fn directory(&self) -> &Path {
        &self.directory
    }

    /// The claim is persistent: no live session owns it, so none is an
    /// orphan.
    fn claims(&self, _state: &Phase, _name: &str) -> bool {
        true
    }
}

/// The job ran at most once.
fn runs_at_most_once(_: &World<Once>, state: &WorldState<Phase, Runs>) -> bool {
    state.history.log.0 <= 1
}

/// Once nothing but a fault can happen, a claimed job ran.
fn a_claimed_job_runs(world: &World<Once>, state: &WorldState<Phase, Runs>) -> bool {
    !world.is_quiescent(state)
        || !state.net.store.exists(&Path::new(CLAIM))
        || state.history.log.0 >= 1
}

/// Some run of the world runs the job.
fn the_job_runs(_: &World<Once>, state: &WorldState<Phase, Runs>) -> bool {
    state.history.log.0 >= 1
}

impl Catalogued for Once {
    const NAME: &'static str = "once";
    const DOCS: Docs = Docs {
        summary: "a job a fleet runs exactly once: the client that creates its claim runs it",
        variants: &[
            (
                "claim",
                "create the claim; told NODEEXISTS, leave the job to its owner",
            ),
            (
                "claim_with_id",
                "the claim carries the client's id; told NODEEXISTS, read it",
            ),
            (
                "check_then_create",
                "run the job if no claim exists, then create the claim",
            ),
        ],
        commands: &[("run", "run the job, unless another client has it")],
        group: &[&["run"], &["run"]],
    };
    type Variant = Knobs;
    const VARIANTS: &'static [(&'static str, Knobs)] = &[
        ("claim", Knobs::CLAIM),
        ("claim_with_id", Knobs::CLAIM_WITH_ID),
        ("check_then_create", Knobs::CHECK_THEN_CREATE),
    ];
    const COMMANDS: &'static [(&'static str, RunJob)] = &[("run", RunJob)];
    type Params = NoParams;

    fn build(knobs: Knobs, _params: &NoParams, _scripts: &[Vec<RunJob>]) -> Once {
        Once {
            knobs,
            directory: Path::new(DIRECTORY),
        }
    }

    /// Each property declared once: its name, what it means, its
    /// condition, and for an `always` the words of a violation.
    fn properties() -> Vec<Promise<Once>> {
        vec![
            Promise::always(
                "runs_at_most_once",
                "no two clients run the job",
                runs_at_most_once,
                ran_twice,
            ),
            Promise::always(
                "a_claimed_job_runs",
                "once nothing more can happen, a claimed job has run",
                a_claimed_job_runs,
                claimed_not_run,
            ),
            Promise::sometimes(
                "the_job_runs",
                "some client ran the job (runs at most once is not vacuous)",
                the_job_runs,
            ),
        ]
    }
}

/// Why `runs_at_most_once` is broken: who ran the job, when.
fn ran_twice(_: &World<Once>, run: Run<'_, Once>) -> Option<String> {
    let runners: Vec<String> = run
        .facts()
        .map(|(step, c, _)| format!("c{c} at step {step}"))
        .collect();
    Some(format!("the job ran twice: {}", runners.join(" and ")))
}

/// Why `a_claimed_job_runs` is broken.
fn claimed_not_run(_: &World<Once>, _: Run<'_, Once>) -> Option<String> {
    Some(
        "the job is claimed, nothing more can happen, and no client ran it: the claim's \
         creator was told NODEEXISTS by its own retry"
            .to_string(),
    )
}
