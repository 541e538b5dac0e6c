//! A recipe with facts of its own, written outside the crate as a
//! researcher would: its facts, the log the world keeps of them, its
//! property over that log and the words its trace lines carry all live
//! beside it, and nothing the world shares knows of them.

use zoocheck::check::{check_world, CheckOptions, Expected, Verdict};
use zoocheck::faults::{FaultBudget, Kind};
use zoocheck::properties::Promise;
use zoocheck::recipe::{ClientId, Effects, Incarnation, Input, Log, Recipe, Witness};
use zoocheck::store::{CreateMode, Op, OpResult, Path};
use zoocheck::world::{Run, World, WorldState};

/// The one command: write a receipt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Write;

impl std::fmt::Display for Write {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("write")
    }
}

/// Each client creates one persistent receipt and believes it written once
/// it reads the reply; it does not recover a lost reply.
#[derive(Clone, Debug)]
struct Receipts {
    dir: Path,
}

/// Where a client is in its write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Phase {
    Idle,
    Writing,
    Done,
}

/// Not renamed: its recipe does not say its clients are interchangeable ([`zoocheck::symmetry`]).
impl zoocheck::symmetry::Symmetric for Phase {}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self, f)
    }
}

/// What the receipts recipe tells its property.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Fact {
    /// The server created the client's receipt (a server fact).
    Stored,
    /// The client read that its receipt was created.
    Confirmed,
}

/// Receipts stored and confirmed, a bit per client.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Ledger {
    clients: usize,
    stored: u8,
    confirmed: u8,
}

/// Not renamed: its recipe does not say its clients are interchangeable ([`zoocheck::symmetry`]).
impl zoocheck::symmetry::Symmetric for Ledger {}

impl Log for Ledger {
    type Fact = Fact;

    fn new(clients: usize) -> Ledger {
        Ledger {
            clients,
            stored: 0,
            confirmed: 0,
        }
    }

    fn record(&mut self, fact: &Fact, at: Witness<'_>) {
        let bit = 1 << at.process.client;
        match fact {
            Fact::Stored => self.stored |= bit,
            Fact::Confirmed => self.confirmed |= bit,
        }
    }

    fn tell(&self, before: &Ledger, client: ClientId, facts: &[&Fact]) -> String {
        let confirmed = facts.contains(&&Fact::Confirmed);
        assert_eq!(confirmed, self.confirmed & !before.confirmed != 0);
        if confirmed {
            format!("; c{client} KNOWS ITS RECEIPT IS STORED")
        } else {
            String::new()
        }
    }

    fn tell_served(&self, before: &Ledger) -> String {
        (0..self.clients)
            .filter(|client| self.stored & !before.stored & (1 << client) != 0)
            .map(|client| format!("; c{client}'s receipt is stored"))
            .collect()
    }
}

impl Recipe for Receipts {
    type State = Phase;
    type Command = Write;
    type Fact = Fact;
    type Log = Ledger;

    fn init(&self, _me: Incarnation) -> Phase {
        Phase::Idle
    }

    fn handle(
        &self,
        me: Incarnation,
        state: &mut Phase,
        input: Input<Write>,
        out: &mut Effects<Fact>,
    ) {
        match input {
            Input::Command(Write) => {
                *state = Phase::Writing;
                out.send(Op::Create {
                    path: self.dir.child(&format!("c{}", me.client)),
                    data: None,
                    mode: CreateMode::Persistent,
                });
            }
            Input::Reply { result, .. } => {
                *state = Phase::Done;
                if result.is_ok() {
                    out.fact(Fact::Confirmed);
                }
            }
            _ => {}
        }
    }

    fn served(&self, op: &Op, result: &OpResult) -> Option<Fact> {
        let creates_a_receipt =
            matches!(op, Op::Create { path, .. } if path.is_child_of(&self.dir));
        (creates_a_receipt && result.is_ok()).then_some(Fact::Stored)
    }

    fn is_busy(&self, state: &Phase) -> bool {
        *state == Phase::Writing
    }

    fn is_waiting(&self, _state: &Phase) -> bool {
        false
    }

    fn directory(&self) -> &Path {
        &self.dir
    }

    fn claims(&self, _state: &Phase, _name: &str) -> bool {
        true
    }
}

/// Why a receipt was never confirmed, in words: the world tells its run with
/// it (the promise's words).
fn unconfirmed(world: &World<Receipts>, run: Run<'_, Receipts>) -> Option<String> {
    let ledger = run.last().history.log;
    let unconfirmed = ledger.stored & !ledger.confirmed;
    let client = (0..world.clients()).find(|client| unconfirmed & (1 << client) != 0)?;
    let stored_at = run
        .facts()
        .find(|(_, c, fact)| *c == client && **fact == Fact::Stored);
    let (step, _, _) = stored_at?;
    Some(format!(
        "c{client}'s receipt was stored at step {step} and c{client} never knew"
    ))
}

/// In a state where nothing but a fault can happen, every receipt the
/// server stored is one its client read the confirmation of.
fn every_receipt_confirmed(world: &World<Receipts>, state: &WorldState<Phase, Ledger>) -> bool {
    let ledger = state.history.log;
    !world.is_quiescent(state) || ledger.stored & !ledger.confirmed == 0
}

fn receipts(budget: FaultBudget) -> World<Receipts> {
    let recipe = Receipts {
        dir: Path::new("/receipts"),
    };
    let properties = || {
        vec![Promise::always(
            "every_receipt_confirmed",
            "once nothing but a fault can happen, every stored receipt was confirmed",
            every_receipt_confirmed,
            unconfirmed,
        )]
    };
    World::new(recipe, vec![vec![Write]; 2], properties).with_budget(budget)
}

#[test]
fn a_recipe_outside_the_crate_keeps_its_own_facts_and_words() {
    let expect = [("every_receipt_confirmed", Expected::proven(Verdict::Holds))];
    let fault_free = check_world(
        receipts(FaultBudget::default()),
        &CheckOptions::default(),
        &expect,
    );
    assert!(fault_free.complete());
    assert!(fault_free
        .properties
        .iter()
        .all(|property| property.as_expected()));

    let expect = [(
        "every_receipt_confirmed",
        Expected::proven(Verdict::Violated),
    )];
    let world = receipts(FaultBudget::of(Kind::LoseReply, 1));
    let outcome = check_world(world, &CheckOptions::default(), &expect);
    let property = &outcome.properties[0];
    assert!(property.as_expected() && property.proven);
    let trace = property.trace.as_ref().expect("a counterexample");
    assert!(trace.replays);
    let lines: Vec<&str> = trace.steps.iter().map(|step| step.text.as_str()).collect();
    // The shortest loss: c0 writes and knows; c1's create is applied and its
    // reply lost with the connection, so the call ends unconfirmed.
    assert_eq!(
        lines,
        [
            "c0 application: write; sends create /receipts/c0 (persistent); now Writing",
            "server serves c0: create /receipts/c0 (persistent) -> created /receipts/c0 (zxid 4); \
             c0's receipt is stored",
            "c0 reads reply created /receipts/c0; now Done; c0 KNOWS ITS RECEIPT IS STORED",
            "c1 application: write; sends create /receipts/c1 (persistent); now Writing",
            "FAULT: the server applies c1's create /receipts/c1 (persistent) and the reply is \
             lost with the connection; c1's receipt is stored",
            "c1 reads the connection is gone: CONNECTIONLOSS for create /receipts/c1 \
             (persistent), then Disconnected; now Done",
            "c1 reconnects (SetWatches, SyncConnected)",
        ]
    );
    let text = trace.to_string();
    assert!(
        text.contains("c1's receipt was stored at step 5 and c1 never knew"),
        "{text}"
    );

    // The words of a confirmation, on the step that reads it.
    let world = receipts(FaultBudget::default());
    let actions = [
        zoocheck::world::Action::Invoke(1),
        zoocheck::world::Action::Serve(1),
        zoocheck::world::Action::Deliver(1),
    ];
    let replayed = zoocheck::trace::replay(&world, &actions);
    let lines: Vec<&str> = replayed
        .steps
        .iter()
        .map(|step| step.text.as_str())
        .collect();
    assert!(lines[1].ends_with("; c1's receipt is stored"), "{lines:?}");
    assert!(
        lines[2].ends_with("; c1 KNOWS ITS RECEIPT IS STORED"),
        "{lines:?}"
    );
    assert_eq!(replayed.last().history.log.confirmed, 0b10);
    assert_eq!(replayed.run().facts().count(), 2);
}
