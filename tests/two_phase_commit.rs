//! The two-phase commit's actor (`models/two_phase_commit.rs`): one test per
//! branch of `TwoPhaseCommit::handle`, driving it with hand-built inputs and
//! asserting the exact requests, observations and state. Then walks through
//! the whole world that pin the properties' readings.

use stateright::Model;

use zoocheck::catalogued::Catalogued;
use zoocheck::client::SessionEvent;
use zoocheck::faults::{Fault, FaultBudget, Kind};
use zoocheck::models::two_phase_commit::{
    agreement, failure_detected, live_sites_decide, termination, validity, Command, Fact, Knobs,
    Ledger, Phase, State, TwoPhaseCommit, ABORT, COMMIT, TX,
};
use zoocheck::recipe::{Effects, Incarnation, Input, Observation, Recipe};
use zoocheck::store::{
    data, CreateMode, ErrorCode, EventType, MultiOp, MultiOutcome, Op, OpResult, Path, Response,
    Stat, ANY_VERSION,
};
use zoocheck::world::{Action, World, WorldState};

mod actor;
use actor::*;

/// Client 1: a site of the group {1, 2}; client 0 coordinates.
const SITE: Incarnation = Incarnation {
    client: 1,
    restarts: 0,
};
const COORDINATOR: Incarnation = Incarnation {
    client: 0,
    restarts: 0,
};
const GROUP: u8 = 0b110;

fn recipe(variant: Knobs) -> TwoPhaseCommit {
    TwoPhaseCommit::new(variant, GROUP)
}

fn run(variant: Knobs, me: Incarnation, state: &mut State, input: Input<Command>) -> Effects<Fact> {
    let mut out = Effects::default();
    recipe(variant).handle(me, state, input, &mut out);
    out
}

fn st(phase: Phase, vote: Option<bool>, group: u8, commits: u8, aborts: u8) -> State {
    State {
        phase,
        vote,
        group,
        commits,
        aborts,
        seen: 0,
        decision: None,
        interrupted: false,
    }
}

fn idle() -> State {
    st(Phase::Idle, None, 0, 0, 0)
}

/// Site 1, its vote `vote` sent, the votes known as given.
fn voting(vote: bool, commits: u8, aborts: u8) -> State {
    st(Phase::Voting, Some(vote), GROUP, commits, aborts)
}

fn decided(mut state: State, commit: bool) -> State {
    state.phase = Phase::Decided;
    state.decision = Some(commit);
    state
}

fn node(site: usize) -> Path {
    Path::new(&format!("{TX}/s_{site}"))
}

fn tx() -> Path {
    Path::new(TX)
}

fn read(site: usize) -> Op {
    Op::GetData {
        path: node(site),
        watch: true,
    }
}

fn write(site: usize, bytes: &[u8]) -> Op {
    Op::SetData {
        path: node(site),
        data: data(bytes),
        version: ANY_VERSION,
    }
}

fn exists(path: Path) -> Op {
    Op::Exists { path, watch: true }
}

fn bytes(value: &[u8]) -> OpResult {
    Ok(Response::Data {
        data: data(value),
        stat: Stat::default(),
    })
}

fn undefined() -> OpResult {
    Ok(Response::Data {
        data: None,
        stat: Stat::default(),
    })
}

fn set() -> OpResult {
    Ok(Response::SetData {
        stat: Stat::default(),
    })
}

fn decides(commit: bool) -> Observation<Fact> {
    Observation::Fact(Fact::Decided { commit })
}

fn multi() -> Op {
    Op::Multi(vec![
        MultiOp::Create {
            path: tx(),
            data: data(b"s_1,s_2"),
            mode: CreateMode::Persistent,
        },
        MultiOp::Create {
            path: node(1),
            data: None,
            mode: CreateMode::Persistent,
        },
        MultiOp::Create {
            path: node(2),
            data: None,
            mode: CreateMode::Persistent,
        },
    ])
}

fn create_tx() -> Op {
    Op::Create {
        path: tx(),
        data: data(b"s_1,s_2"),
        mode: CreateMode::Persistent,
    }
}

fn own_node() -> Op {
    Op::Create {
        path: node(1),
        data: None,
        mode: CreateMode::Ephemeral,
    }
}

// ------------------------------------------------------------ the coordinator

#[test]
fn coordinate_creates_the_transaction_and_the_sites_nodes_in_one_multi() {
    for variant in [Knobs::REFERENCE, Knobs::COORDINATOR_NOTIFIED] {
        let mut s = idle();
        let out = run(
            variant,
            COORDINATOR,
            &mut s,
            Input::Command(Command::Coordinate),
        );
        assert_eq!(out, effects(vec![multi()], vec![]));
        assert_eq!(s.phase, Phase::Creating);
    }
    // Each site creates its own node: the coordinator only the transaction.
    let mut s = idle();
    let out = run(
        Knobs::EPHEMERAL_SITES,
        COORDINATOR,
        &mut s,
        Input::Command(Command::Coordinate),
    );
    assert_eq!(out, effects(vec![create_tx()], vec![]));
}

#[test]
fn the_coordinators_multi_applied_ends_its_part_in_the_reference() {
    let mut s = st(Phase::Creating, None, 0, 0, 0);
    let applied = Ok(Response::Multi(MultiOutcome::Committed(vec![])));
    let out = run(
        Knobs::REFERENCE,
        COORDINATOR,
        &mut s,
        reply(multi(), applied),
    );
    assert_eq!(out, effects(vec![], vec![]));
    assert_eq!(s.phase, Phase::Coordinated);
}

#[test]
fn the_coordinators_multi_lost_is_sent_again_and_nodeexists_means_it_was_applied() {
    let mut s = st(Phase::Creating, None, 0, 0, 0);
    let out = run(
        Knobs::REFERENCE,
        COORDINATOR,
        &mut s,
        reply(multi(), Err(ErrorCode::ConnectionLoss)),
    );
    assert_eq!(out, effects(vec![multi()], vec![]));
    assert_eq!(s.phase, Phase::Creating);
    let exists = Ok(Response::Multi(MultiOutcome::Aborted {
        ops: 3,
        failed_at: 0,
        code: ErrorCode::NodeExists,
    }));
    run(
        Knobs::REFERENCE,
        COORDINATOR,
        &mut s,
        reply(multi(), exists),
    );
    assert_eq!(s.phase, Phase::Coordinated);
    // The ephemeral variant's single create: NODEEXISTS, applied too.
    let mut s = st(Phase::Creating, None, 0, 0, 0);
    run(
        Knobs::EPHEMERAL_SITES,
        COORDINATOR,
        &mut s,
        reply(create_tx(), Err(ErrorCode::NodeExists)),
    );
    assert_eq!(s.phase, Phase::Coordinated);
}

#[test]
fn the_notified_coordinator_reads_every_site_decides_and_publishes() {
    let v = Knobs::COORDINATOR_NOTIFIED;
    let mut s = st(Phase::Creating, None, 0, 0, 0);
    let applied = Ok(Response::Multi(MultiOutcome::Committed(vec![])));
    let out = run(v, COORDINATOR, &mut s, reply(multi(), applied));
    assert_eq!(out, effects(vec![read(1), read(2)], vec![]));
    assert_eq!(s, st(Phase::Collecting, None, GROUP, 0, 0));
    // Site 1 has not voted yet: wait, and read again on its notification.
    let out = run(v, COORDINATOR, &mut s, reply(read(1), undefined()));
    assert_eq!(out, effects(vec![], vec![]));
    let out = run(v, COORDINATOR, &mut s, reply(read(2), bytes(COMMIT)));
    assert_eq!(out, effects(vec![], vec![]));
    let out = run(
        v,
        COORDINATOR,
        &mut s,
        event(EventType::NodeDataChanged, node(1)),
    );
    assert_eq!(out, effects(vec![read(1)], vec![]));
    let out = run(v, COORDINATOR, &mut s, reply(read(1), bytes(COMMIT)));
    let publish = Op::SetData {
        path: tx(),
        data: data(COMMIT),
        version: ANY_VERSION,
    };
    assert_eq!(out, effects(vec![publish.clone()], vec![decides(true)]));
    assert_eq!(s.phase, Phase::Coordinated);
    assert_eq!(s.decision, Some(true));
    // The publish lost: written again.
    let out = run(
        v,
        COORDINATOR,
        &mut s,
        reply(publish.clone(), Err(ErrorCode::ConnectionLoss)),
    );
    assert_eq!(out, effects(vec![publish], vec![]));
    // Later notifications change nothing.
    let out = run(
        v,
        COORDINATOR,
        &mut s,
        event(EventType::NodeDataChanged, node(2)),
    );
    assert_eq!(out, effects(vec![], vec![]));
}

#[test]
fn the_notified_coordinator_aborts_on_the_first_abort_vote() {
    let v = Knobs::COORDINATOR_NOTIFIED;
    let mut s = st(Phase::Collecting, None, GROUP, 0, 0);
    let out = run(v, COORDINATOR, &mut s, reply(read(2), bytes(ABORT)));
    let publish = Op::SetData {
        path: tx(),
        data: data(ABORT),
        version: ANY_VERSION,
    };
    assert_eq!(out, effects(vec![publish], vec![decides(false)]));
}

// ------------------------------------------------------------------ a site

#[test]
fn a_site_waits_for_the_transaction_with_a_watch() {
    let mut s = idle();
    let out = run(
        Knobs::REFERENCE,
        SITE,
        &mut s,
        Input::Command(Command::Vote(true)),
    );
    assert_eq!(out, effects(vec![exists(tx())], vec![]));
    assert_eq!(s, st(Phase::AwaitingTx, Some(true), 0, 0, 0));
    // Not there yet: wait for its creation.
    let out = run(
        Knobs::REFERENCE,
        SITE,
        &mut s,
        reply(exists(tx()), Ok(Response::Exists(None))),
    );
    assert_eq!(out, effects(vec![], vec![]));
    assert_eq!(s.phase, Phase::AwaitingTx);
    let out = run(
        Knobs::REFERENCE,
        SITE,
        &mut s,
        event(EventType::NodeCreated, tx()),
    );
    let read_tx = Op::GetData {
        path: tx(),
        watch: false,
    };
    assert_eq!(out, effects(vec![read_tx], vec![]));
    assert_eq!(s.phase, Phase::ReadingTx);
}

#[test]
fn a_site_that_finds_the_transaction_reads_it_and_the_notified_variant_watches_it() {
    for (variant, watch) in [
        (Knobs::REFERENCE, false),
        (Knobs::COORDINATOR_NOTIFIED, true),
    ] {
        let mut s = st(Phase::AwaitingTx, Some(true), 0, 0, 0);
        let out = run(
            variant,
            SITE,
            &mut s,
            reply(exists(tx()), Ok(Response::Exists(Some(Stat::default())))),
        );
        let read_tx = Op::GetData { path: tx(), watch };
        assert_eq!(out, effects(vec![read_tx], vec![]));
        assert_eq!(s.phase, Phase::ReadingTx);
    }
}

#[test]
fn a_site_reads_the_group_then_watches_the_others_and_writes_its_vote() {
    let read_tx = Op::GetData {
        path: tx(),
        watch: false,
    };
    let voted = Observation::Fact(Fact::Voted { commit: false });
    let mut s = st(Phase::ReadingTx, Some(false), 0, 0, 0);
    let out = run(
        Knobs::REFERENCE,
        SITE,
        &mut s,
        reply(read_tx.clone(), bytes(b"s_1,s_2")),
    );
    assert_eq!(
        out,
        effects(vec![read(2), write(1, ABORT)], vec![voted.clone()])
    );
    assert_eq!(s, voting(false, 0, 0));
    // Each site creating its own node creates it first.
    let mut s = st(Phase::ReadingTx, Some(false), 0, 0, 0);
    let out = run(
        Knobs::EPHEMERAL_SITES,
        SITE,
        &mut s,
        reply(read_tx.clone(), bytes(b"s_1,s_2")),
    );
    assert_eq!(
        out,
        effects(
            vec![own_node(), read(2), write(1, ABORT)],
            vec![voted.clone()]
        )
    );
    // Only the coordinator is notified: the site reads no other node.
    let mut s = st(Phase::ReadingTx, Some(false), 0, 0, 0);
    let out = run(
        Knobs::COORDINATOR_NOTIFIED,
        SITE,
        &mut s,
        reply(read_tx, bytes(b"s_1,s_2")),
    );
    assert_eq!(out, effects(vec![write(1, ABORT)], vec![voted]));
}

#[test]
fn a_site_decides_commit_once_every_vote_is_commit_its_own_once_written() {
    let mut s = voting(true, 0, 0);
    let out = run(Knobs::REFERENCE, SITE, &mut s, reply(read(2), undefined()));
    assert_eq!(out, effects(vec![], vec![]));
    let out = run(
        Knobs::REFERENCE,
        SITE,
        &mut s,
        event(EventType::NodeDataChanged, node(2)),
    );
    assert_eq!(out, effects(vec![read(2)], vec![]));
    let out = run(
        Knobs::REFERENCE,
        SITE,
        &mut s,
        reply(read(2), bytes(COMMIT)),
    );
    assert_eq!(
        out,
        effects(vec![], vec![]),
        "our own write has not completed"
    );
    assert_eq!(s, voting(true, 0b100, 0));
    let out = run(
        Knobs::REFERENCE,
        SITE,
        &mut s,
        reply(write(1, COMMIT), set()),
    );
    assert_eq!(out, effects(vec![], vec![decides(true)]));
    assert_eq!(s, decided(voting(true, GROUP, 0), true));
    // Decided: notifications and replies change nothing.
    let out = run(
        Knobs::REFERENCE,
        SITE,
        &mut s,
        event(EventType::NodeDataChanged, node(2)),
    );
    assert_eq!(out, effects(vec![], vec![]));
    let out = run(Knobs::REFERENCE, SITE, &mut s, reply(read(2), bytes(ABORT)));
    assert_eq!(out, effects(vec![], vec![]));
}

#[test]
fn a_site_decides_abort_on_the_first_abort_vote_before_its_own_write() {
    let mut s = voting(true, 0, 0);
    let out = run(Knobs::REFERENCE, SITE, &mut s, reply(read(2), bytes(ABORT)));
    assert_eq!(out, effects(vec![], vec![decides(false)]));
    assert_eq!(s, decided(voting(true, 0, 0b100), false));
    // Its own abort vote, once written, decides too.
    let mut s = voting(false, 0b100, 0);
    let out = run(
        Knobs::REFERENCE,
        SITE,
        &mut s,
        reply(write(1, ABORT), set()),
    );
    assert_eq!(out, effects(vec![], vec![decides(false)]));
}

#[test]
fn a_lost_vote_write_is_written_again_with_the_same_bytes() {
    let mut s = voting(true, 0, 0);
    let out = run(
        Knobs::REFERENCE,
        SITE,
        &mut s,
        reply(write(1, COMMIT), Err(ErrorCode::ConnectionLoss)),
    );
    assert_eq!(out, effects(vec![write(1, COMMIT)], vec![]));
    assert_eq!(s, voting(true, 0, 0));
    let out = run(
        Knobs::REFERENCE,
        SITE,
        &mut s,
        reply(read(2), Err(ErrorCode::ConnectionLoss)),
    );
    assert_eq!(out, effects(vec![read(2)], vec![]));
}

#[test]
fn a_site_whose_session_ends_is_dead() {
    let mut s = voting(true, 0, 0);
    run(
        Knobs::REFERENCE,
        SITE,
        &mut s,
        reply(write(1, COMMIT), Err(ErrorCode::SessionExpired)),
    );
    assert_eq!(s.phase, Phase::Dead);
    let out = run(
        Knobs::REFERENCE,
        SITE,
        &mut s,
        event(EventType::NodeDataChanged, node(2)),
    );
    assert_eq!(out, effects(vec![], vec![]));
    let mut s = voting(true, 0, 0);
    run(
        Knobs::REFERENCE,
        SITE,
        &mut s,
        Input::Session(SessionEvent::Expired),
    );
    assert_eq!(s.phase, Phase::Dead);
    // A decided site stays decided; a disconnection changes nothing.
    let mut s = decided(voting(true, GROUP, 0), true);
    run(
        Knobs::REFERENCE,
        SITE,
        &mut s,
        Input::Session(SessionEvent::Expired),
    );
    assert_eq!(s.phase, Phase::Decided);
    let mut s = voting(true, 0, 0);
    let out = run(
        Knobs::REFERENCE,
        SITE,
        &mut s,
        Input::Session(SessionEvent::Disconnected),
    );
    assert_eq!((out, s), (effects(vec![], vec![]), voting(true, 0, 0)));
}

#[test]
fn a_notified_site_decides_on_the_published_outcome() {
    let v = Knobs::COORDINATOR_NOTIFIED;
    let watch_tx = Op::GetData {
        path: tx(),
        watch: true,
    };
    let mut s = voting(true, 0, 0);
    // Its own write completes: the site does not decide by itself.
    let out = run(v, SITE, &mut s, reply(write(1, COMMIT), set()));
    assert_eq!(out, effects(vec![], vec![]));
    assert_eq!(s.phase, Phase::Voting);
    let out = run(v, SITE, &mut s, event(EventType::NodeDataChanged, tx()));
    assert_eq!(out, effects(vec![watch_tx.clone()], vec![]));
    let out = run(v, SITE, &mut s, reply(watch_tx.clone(), bytes(COMMIT)));
    assert_eq!(out, effects(vec![], vec![decides(true)]));
    assert_eq!(s.phase, Phase::Decided);
    // An early abort is already there when the site first reads the
    // transaction: it decides without voting.
    let mut s = st(Phase::ReadingTx, Some(true), 0, 0, 0);
    let out = run(v, SITE, &mut s, reply(watch_tx, bytes(ABORT)));
    assert_eq!(out, effects(vec![], vec![decides(false)]));
}

#[test]
fn an_ephemeral_site_waits_for_a_node_not_yet_created() {
    let v = Knobs::EPHEMERAL_SITES;
    let mut s = voting(true, 0, 0);
    let out = run(v, SITE, &mut s, reply(read(2), Err(ErrorCode::NoNode)));
    assert_eq!(out, effects(vec![exists(node(2))], vec![]));
    assert_eq!(s.aborts, 0);
    // Created meanwhile: read it.
    let out = run(
        v,
        SITE,
        &mut s,
        reply(exists(node(2)), Ok(Response::Exists(Some(Stat::default())))),
    );
    assert_eq!(out, effects(vec![read(2)], vec![]));
    let out = run(v, SITE, &mut s, event(EventType::NodeCreated, node(2)));
    assert_eq!(out, effects(vec![read(2)], vec![]));
    let out = run(v, SITE, &mut s, reply(read(2), undefined()));
    assert_eq!(out, effects(vec![], vec![]));
    assert_eq!(s.seen, 0b100);
    // Seen, then gone: its session ended, an abort vote.
    let out = run(v, SITE, &mut s, reply(read(2), Err(ErrorCode::NoNode)));
    assert_eq!(out, effects(vec![], vec![decides(false)]));
}

#[test]
fn an_ephemeral_sites_vanished_node_is_an_abort_unless_its_vote_was_read() {
    let v = Knobs::EPHEMERAL_SITES;
    let mut s = voting(true, 0b010, 0);
    let out = run(v, SITE, &mut s, event(EventType::NodeDeleted, node(2)));
    assert_eq!(out, effects(vec![], vec![decides(false)]));
    let mut s = voting(false, 0, 0);
    s.commits = 0b100;
    let out = run(v, SITE, &mut s, event(EventType::NodeDeleted, node(2)));
    assert_eq!(out, effects(vec![], vec![]));
    assert_eq!(s.aborts, 0);
    // Its own create answered NODEEXISTS after a lost reply: it is ours.
    let out = run(
        v,
        SITE,
        &mut s,
        reply(own_node(), Err(ErrorCode::NodeExists)),
    );
    assert_eq!(out, effects(vec![], vec![]));
    let out = run(
        v,
        SITE,
        &mut s,
        reply(own_node(), Err(ErrorCode::ConnectionLoss)),
    );
    assert_eq!(out, effects(vec![own_node()], vec![]));
}

// ---------------------------------------------------------------- world walks

fn world(variant: Knobs, votes: [bool; 2], budget: FaultBudget) -> World<TwoPhaseCommit> {
    let scripts = vec![
        vec![Command::Coordinate],
        vec![Command::Vote(votes[0])],
        vec![Command::Vote(votes[1])],
    ];
    World::new(
        TwoPhaseCommit::build(variant, &Default::default(), &scripts),
        scripts,
        <TwoPhaseCommit as Catalogued>::properties,
    )
    .with_budget(budget)
}

/// Serves and delivers client `c` until it has nothing left to do.
fn drain(
    world: &World<TwoPhaseCommit>,
    mut state: WorldState<State, Ledger>,
    c: usize,
) -> WorldState<State, Ledger> {
    loop {
        let mut enabled = Vec::new();
        world.actions(&state, &mut enabled);
        let Some(action) = enabled
            .into_iter()
            .find(|a| matches!(a, Action::Serve(x) | Action::Deliver(x) if *x == c))
        else {
            return state;
        };
        state = world.step(&state, &action).unwrap();
    }
}

#[test]
fn world_a_site_crashing_before_it_votes_blocks_the_other_in_the_reference() {
    let crash = FaultBudget::of(Kind::Crash, 1);
    let world = world(Knobs::REFERENCE, [true, true], crash);
    let state = world.init_states().remove(0);
    let state = act(&world, &state, Action::Invoke(0));
    let state = drain(&world, state, 0);
    let state = act(&world, &state, Action::Invoke(1));
    let state = drain(&world, state, 1);
    assert_eq!(state.processes[1].recipe.phase, Phase::Voting);
    let state = act(
        &world,
        &state,
        Action::Fault(Fault::new(Kind::Crash, 2).applied(0)),
    );
    let session = state.net.session(2);
    let state = act(&world, &state, Action::SessionTimeout(session));
    assert!(world.is_quiescent(&state));
    // Site 1 waits forever for site 2's undefined node; site 2 failed, so
    // termination asks nothing, and live sites deciding fails.
    assert!(!live_sites_decide(&world, &state));
    assert!(termination(&world, &state));
    assert!(agreement(&world, &state) && validity(&world, &state));
    // Site 1 deciding commit though site 2 never voted commit (not reachable
    // here: it checks what validity's words read).
    let mut forged = state.clone();
    forged.history.log.decisions.commit |= 1 << 1;
    assert!(!validity(&world, &forged));
    assert_eq!(
        violation_words(&world, &forged, "validity").as_deref(),
        Some("c1 decided commit, but c2 never voted commit")
    );
}

#[test]
fn world_an_ephemeral_site_crashing_after_its_create_is_taken_as_an_abort() {
    let crash = FaultBudget::of(Kind::Crash, 1);
    let world = world(Knobs::EPHEMERAL_SITES, [true, true], crash);
    let state = world.init_states().remove(0);
    let state = act(&world, &state, Action::Invoke(0));
    let state = drain(&world, state, 0);
    // Site 1 joins and waits for site 2's node, not there yet.
    let state = act(&world, &state, Action::Invoke(1));
    let state = drain(&world, state, 1);
    assert_eq!(state.processes[1].recipe.phase, Phase::Voting);
    // Site 2 reads the transaction and sends its create, its read and its
    // vote; it crashes once the server has received the create only.
    let mut state = act(&world, &state, Action::Invoke(2));
    for action in [
        Action::Serve(2),
        Action::Deliver(2),
        Action::Serve(2),
        Action::Deliver(2),
    ] {
        state = act(&world, &state, action);
    }
    let state = act(
        &world,
        &state,
        Action::Fault(Fault::new(Kind::Crash, 2).applied(1)),
    );
    // Site 1 sees the node created, undefined, then gone with the session.
    let state = drain(&world, state, 1);
    assert_eq!(state.processes[1].recipe.seen, 0b100);
    let session = state.net.session(2);
    let state = act(&world, &state, Action::SessionTimeout(session));
    let state = drain(&world, state, 1);
    assert!(world.is_quiescent(&state));
    assert_eq!(state.processes[1].recipe.decision, Some(false));
    assert!(failure_detected(&world, &state));
    assert!(live_sites_decide(&world, &state));
    assert!(termination(&world, &state));
}

/// A site whose session was lost after it voted takes its part up again once
/// its library opened a new session: its vote again (the same bytes) and,
/// with a watch, the vote it lacks; one whose part had not begun is idle.
#[test]
fn a_renewed_site_takes_its_part_up_again() {
    let dead = |s: &State| s.phase == Phase::Dead;
    let recipe = recipe(Knobs::REFERENCE);
    let mut s = voting(true, 0b010, 0);
    let out = expire_and_renew(&recipe, SITE, &mut s, dead);
    let read_2 = Op::GetData {
        path: node(2),
        watch: true,
    };
    let vote = Op::SetData {
        path: node(1),
        data: data(COMMIT),
        version: ANY_VERSION,
    };
    assert_eq!(out.requests, vec![read_2, vote]);
    assert_eq!(s, voting(true, 0b010, 0));

    let mut s = idle();
    let out = expire_and_renew(&recipe, SITE, &mut s, dead);
    assert!(out.requests.is_empty());
    assert_eq!(s, idle());
}
