//! Simulation throughput: steps per second of seeded random walks
//! (`zoocheck::simulate::walk`, as `zoocheck simulate` takes them) on lock
//! scenarios with every kind of fault, too large to exhaust.
//!
//! One iteration is `WALKS` walks with seeds `0..WALKS`, each at most
//! `MAX_DEPTH` steps (the command's default). The walks are seeded, so their
//! total step count is fixed; it is counted once before measuring, printed to
//! stderr, and is the throughput's element count.
//!
//! ```text
//! cargo bench --bench simulate
//! ```

use std::ops::Range;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion, SamplingMode,
    Throughput,
};
use zoocheck::catalogue::AnyWorld;
use zoocheck::scenario::Scenario;

const WALKS: u64 = 200;
const MAX_DEPTH: usize = 200;

/// Every fault kind once: crash (and restart), pause, disconnect, expiry, lost
/// reply. With a pause and an expiry the guid lock breaks mutual exclusion and
/// resource safety (the `guid_pause_expire` scenario); the verdicts are not
/// asserted here, a scenario must just name every property.
fn scenario(clients: u8) -> Scenario {
    let name = format!("all_faults_{clients}_clients");
    let text = format!(
        r#"description = "bench: {name}"
recipe = "lock"
variant = "guid"
clients = {clients}
script = ["acquire", "work", "release"]

[faults]
crash = 1
restart = 1
pause = 1
disconnect = 1
expire = 1
lose_reply = 1

[expect]
mutual_exclusion = "violated"
resource_safety = "violated"
herd_avoidance = "holds"
no_orphan_no_deadlock = "holds"
someone_acquired = "reached"
waiter_woken = "reached"
"#
    );
    Scenario::parse(
        &text,
        Path::new(&format!("benches/{name}.toml")),
        &format!("bench/{name}"),
    )
    .unwrap_or_else(|error| panic!("bench scenario {name}: {error}"))
}

/// Benchmarks the walks on a scenario's world, whatever its recipe.
struct WalkBench<'g, 'c> {
    group: &'g mut BenchmarkGroup<'c, WallTime>,
    /// The benchmark's function name and parameter.
    name: &'static str,
    clients: u8,
    seeds: Range<u64>,
    max_depth: usize,
}

impl WalkBench<'_, '_> {
    fn run(self, world: &dyn AnyWorld) {
        let walks = |world: &dyn AnyWorld| -> u64 {
            self.seeds
                .clone()
                .map(|seed| world.walk(seed, self.max_depth).actions.len() as u64)
                .sum()
        };
        let started = Instant::now();
        let steps = walks(world);
        let took = started.elapsed();
        eprintln!(
            "simulate/{}/{}: {} walks, {steps} steps ({:.1} per walk); once {:.3} s ({:.0} steps/s)",
            self.name,
            self.clients,
            self.seeds.end - self.seeds.start,
            steps as f64 / (self.seeds.end - self.seeds.start) as f64,
            took.as_secs_f64(),
            steps as f64 / took.as_secs_f64(),
        );
        self.group.throughput(Throughput::Elements(steps));
        self.group
            .bench_function(BenchmarkId::new(self.name, self.clients), |b| {
                b.iter(|| {
                    let taken = walks(world);
                    assert_eq!(taken, steps, "seeded walks are deterministic");
                    taken
                })
            });
    }
}

fn simulate(c: &mut Criterion) {
    let mut group = c.benchmark_group("simulate");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    for clients in [3, 4] {
        WalkBench {
            group: &mut group,
            name: "all_faults",
            clients,
            seeds: 0..WALKS,
            max_depth: MAX_DEPTH,
        }
        .run(scenario(clients).world().as_ref());
    }
    group.finish();
}

criterion_group!(benches, simulate);
criterion_main!(benches);
