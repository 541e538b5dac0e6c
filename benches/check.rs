//! Exhaustive-check throughput: `Scenario::check` with `CheckOptions::default()`
//! (one checker thread, depth first, every state explored, then the shortest
//! trace of each discovery) on fixed lock scenarios built here from TOML text,
//! so that they do not move when `scenarios/` does. The search makes every
//! reduction ([`zoocheck::reduce`]) unless `ZOOCHECK_BENCH_REDUCE` names
//! others, as `check --reduce` takes them (`none`: the search as it was
//! before the reductions).
//!
//! Throughput is unique states per second: each benchmark's element count is
//! the unique states of one check, counted by a check run before measuring
//! (the count is deterministic with one thread) and printed to stderr. That
//! counting check runs for every configuration, even one a criterion filter
//! then skips (criterion applies its filter after the throughput is set).
//!
//! Configurations (variant `guid`):
//! - `crash/{2,3}`, `expiry/{2,3}` (disconnect 1 + expire 1), `lose_reply/{2,3}`:
//!   script `acquire, work, release` per client, one fault of the kind.
//! - `no_fault_acquire_only/{2,3,4}`: no faults, script `acquire` alone. Four
//!   clients with the full script have 4,888,568 unique states even without a
//!   fault (about a minute a check), and a fault only adds states, so four
//!   clients with a fault cannot be measured twelve times in minutes;
//!   `acquire` alone keeps four clients to 296,496 states. No one releases, so
//!   `no_orphan_no_deadlock` is violated (the waiters wait forever) and
//!   `Scenario::check` also spends time searching for its shortest
//!   counterexample (about as long as the check itself, here).
//!
//! - `recipes/{shared_lock,revocable_lock,election}`: one reference scenario
//!   per recipe beside the lock, three clients, no fault (each file's text is
//!   below): readers and a writer; two writers and a revoker; three volunteers
//!   who acknowledge and resign.
//! - `recipes/{double_barrier,queue,two_phase_commit,membership}`: one
//!   reference scenario each, with faults where the recipe's interesting part
//!   is: two processes entering and leaving with a disconnect and an expiry; a
//!   producer of two items and two consumers; a coordinator and two sites with
//!   a disconnect and an expiry; three members and a crash.
//!
//! Each benchmark takes at least twelve checks (the count, one warm-up, ten
//! samples). `expiry/3` (1,706,218 unique states, 15 to 20 s a check, so three
//! to four minutes) runs only with `ZOOCHECK_BENCH_LARGE=1`; without it the
//! whole run takes about four minutes on a 2-core machine.
//!
//! ```text
//! cargo bench --bench check
//! ZOOCHECK_BENCH_REDUCE=none cargo bench --bench check
//! ZOOCHECK_BENCH_LARGE=1 cargo bench --bench check
//! cargo bench --bench check -- 'crash/3'      # one benchmark
//! ```

use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use zoocheck::check::CheckOptions;
use zoocheck::reduce::Reductions;
use zoocheck::scenario::Scenario;

const FULL_SCRIPT: &[&str] = &["acquire", "work", "release"];
const ACQUIRE_ONLY: &[&str] = &["acquire"];

/// One benchmarked scenario.
struct Config {
    /// The benchmark group's function name: the fault (or its absence).
    kind: &'static str,
    clients: u8,
    script: &'static [&'static str],
    /// The `[faults]` table's body.
    faults: &'static str,
    /// The `[expect]` table's body: what `Scenario::check` answers (not asserted;
    /// a scenario must name every property).
    expect: &'static str,
    /// Only with `ZOOCHECK_BENCH_LARGE=1`.
    large: bool,
}

const HOLDS_ALL: &str = r#"mutual_exclusion = "holds"
resource_safety = "holds"
herd_avoidance = "holds"
no_orphan_no_deadlock = "holds"
someone_acquired = "reached"
waiter_woken = "reached"
"#;

const DEADLOCKS: &str = r#"mutual_exclusion = "holds"
resource_safety = "holds"
herd_avoidance = "holds"
no_orphan_no_deadlock = "violated"
someone_acquired = "reached"
waiter_woken = "unreached"
"#;

const CRASH: &str = "crash = 1";
const EXPIRY: &str = "disconnect = 1\nexpire = 1";
const LOSE_REPLY: &str = "lose_reply = 1";

fn configs() -> Vec<Config> {
    let mut configs = Vec::new();
    for (kind, faults) in [
        ("crash", CRASH),
        ("expiry", EXPIRY),
        ("lose_reply", LOSE_REPLY),
    ] {
        for clients in [2, 3] {
            configs.push(Config {
                kind,
                clients,
                script: FULL_SCRIPT,
                faults,
                expect: HOLDS_ALL,
                large: kind == "expiry" && clients == 3,
            });
        }
    }
    for clients in [2, 3, 4] {
        configs.push(Config {
            kind: "no_fault_acquire_only",
            clients,
            script: ACQUIRE_ONLY,
            faults: "",
            expect: DEADLOCKS,
            large: false,
        });
    }
    configs
}

fn scenario(config: &Config) -> Scenario {
    let name = format!("{}_{}_clients", config.kind, config.clients);
    let script: Vec<String> = config.script.iter().map(|c| format!("{c:?}")).collect();
    let text = format!(
        "description = \"bench: {name}\"\n\
         recipe = \"lock\"\n\
         variant = \"guid\"\n\
         clients = {clients}\n\
         script = [{script}]\n\
         \n[faults]\n{faults}\n\
         \n[expect]\n{expect}",
        clients = config.clients,
        script = script.join(", "),
        faults = config.faults,
        expect = config.expect,
    );
    Scenario::parse(
        &text,
        Path::new(&format!("benches/{name}.toml")),
        &format!("bench/{name}"),
    )
    .unwrap_or_else(|error| panic!("bench scenario {name}: {error}"))
}

/// The other recipes' reference scenarios, three clients, no fault.
fn recipe_scenarios() -> Vec<(&'static str, Scenario)> {
    let files = [
        (
            "shared_lock",
            r#"recipe = "shared_lock"
variant = "guid"
clients = 3
scripts = [["read", "work", "release"], ["write", "work", "release"], ["read", "work", "release"]]
[expect]
writer_exclusion = "holds"
herd_avoidance = "holds"
no_orphan_no_deadlock = "holds"
writer_acquired = "reached"
readers_share = "reached"
waiter_woken = "reached""#,
        ),
        (
            "revocable_lock",
            r#"recipe = "revocable_lock"
variant = "guid"
clients = 3
scripts = [["write", "work"], ["write", "work"], ["revoke"]]
[expect]
writer_exclusion = "holds"
resource_safety = "holds"
herd_avoidance = "holds"
no_orphan_no_deadlock = "holds"
revoke_honoured = "holds"
no_missed_revoke = "holds"
writer_acquired = "reached"
waiter_woken = "reached"
revoke_seen = "reached"
revoke_before_watch = "reached""#,
        ),
        (
            "election",
            r#"recipe = "election"
variant = "guid"
clients = 3
script = ["volunteer", "acknowledge", "resign"]
[expect]
one_leader = "holds"
herd_avoidance = "holds"
leader_exists = "holds"
acknowledged_leader_is_smallest = "holds"
someone_elected = "reached"
waiter_woken = "reached"
leader_acknowledged = "reached""#,
        ),
        (
            "double_barrier",
            r#"recipe = "double_barrier"
variant = "seed"
clients = 2
script = ["enter", "leave"]
[faults]
disconnect = 1
expire = 1
[expect]
enter_safety = "holds"
leave_safety = "holds"
herd_avoidance = "holds"
no_deadlock = "holds"
someone_computes = "reached"
someone_left = "reached"
waiter_woken = "reached""#,
        ),
        (
            "queue",
            r#"recipe = "queue"
variant = "guid"
clients = 3
scripts = [["put", "put"], ["take"], ["take"]]
[expect]
consumed_once = "holds"
no_item_lost = "holds"
producer_order = "holds"
item_consumed = "reached"
all_consumed = "reached"
two_of_one_producer = "unreached""#,
        ),
        (
            "two_phase_commit",
            r#"recipe = "two_phase_commit"
variant = "reference"
clients = 3
scripts = [["coordinate"], ["vote_commit"], ["vote_commit"]]
[faults]
disconnect = 1
expire = 1
[expect]
agreement = "holds"
validity = "holds"
termination = "holds"
live_sites_decide = "violated"
someone_committed = "reached"
someone_aborted = "unreached"
all_sites_decided = "reached"
failure_detected = "unreached""#,
        ),
        (
            "membership",
            r#"recipe = "membership"
variant = "reference"
clients = 3
script = ["join"]
[faults]
crash = 1
[expect]
views_list_only_joined = "holds"
views_follow_the_group = "holds"
member_sees_another = "reached"
view_dropped_a_member = "reached""#,
        ),
    ];
    files
        .into_iter()
        .map(|(recipe, body)| {
            let text = format!("description = \"bench\"\n{body}\n");
            let scenario = Scenario::parse(
                &text,
                Path::new(&format!("benches/{recipe}.toml")),
                &format!("bench/{recipe}"),
            )
            .unwrap_or_else(|error| panic!("bench scenario {recipe}: {error}"));
            (recipe, scenario)
        })
        .collect()
}

fn check(c: &mut Criterion) {
    let large = std::env::var_os("ZOOCHECK_BENCH_LARGE").is_some_and(|v| v != "0" && !v.is_empty());
    let reductions: Reductions = std::env::var("ZOOCHECK_BENCH_REDUCE")
        .map_or(Ok(Reductions::ALL), |names| names.parse())
        .unwrap_or_else(|error| panic!("ZOOCHECK_BENCH_REDUCE: {error}"));
    eprintln!("check: reductions {}", reductions.words());
    let mut group = c.benchmark_group("check");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    let mut benches = Vec::new();
    for config in configs() {
        let label = format!("{}/{}", config.kind, config.clients);
        if config.large && !large {
            eprintln!("check/{label}: skipped (set ZOOCHECK_BENCH_LARGE=1)");
            continue;
        }
        let id = BenchmarkId::new(config.kind, config.clients);
        benches.push((label, id, scenario(&config)));
    }
    for (recipe, scenario) in recipe_scenarios() {
        let id = BenchmarkId::new("recipes", recipe);
        benches.push((format!("recipes/{recipe}"), id, scenario));
    }
    for (label, id, scenario) in benches {
        let options = CheckOptions {
            reductions,
            ..CheckOptions::default()
        };
        // One check first, for the element count (unique states).
        let started = Instant::now();
        let outcome = scenario.check(&options);
        let took = started.elapsed();
        assert!(
            outcome.complete(),
            "{}: the search was cut short",
            scenario.name
        );
        assert!(outcome.as_expected(), "{}: not as expected", scenario.name);
        eprintln!(
            "check/{label}: {} unique states, {} visited, max depth {}; one check {:.3} s ({:.0} unique states/s)",
            outcome.unique_states,
            outcome.states,
            outcome.max_depth,
            took.as_secs_f64(),
            outcome.unique_states as f64 / took.as_secs_f64(),
        );
        let unique = outcome.unique_states;
        group.throughput(Throughput::Elements(unique as u64));
        group.bench_with_input(id, &scenario, |b, scenario| {
            b.iter(|| {
                let outcome = scenario.check(&options);
                assert_eq!(
                    outcome.unique_states, unique,
                    "one thread counts deterministically"
                );
                outcome
            })
        });
    }
    group.finish();
}

criterion_group!(benches, check);
criterion_main!(benches);
