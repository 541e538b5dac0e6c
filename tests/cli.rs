//! End-to-end tests of the `zoocheck` command: each runs the built binary in
//! the crate's directory and checks its exit code (0 every expectation met,
//! 1 some expectation not met or a replay that no longer reaches its verdict,
//! 2 bad usage or a bad file) and what it prints or writes.
//!
//! The scenarios are the small ones (a few hundred to a few ten thousand
//! states), so the whole file runs in a few seconds. State counts and
//! counterexamples are read from the snapshots under `snapshots/`, so the
//! command and `tests/scenarios.rs` must agree.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;
use zoocheck::properties::termination;
use zoocheck::properties::Declared;

const PAUSE_EXPIRE: &str = "scenarios/lock/guid_pause_expire.toml";
const TWO_CLIENTS: &str = "scenarios/lock/guid_2_clients.toml";
const THREE_CLIENTS: &str = "scenarios/lock/guid_3_clients.toml";
const TRY_ACQUIRE: &str = "scenarios/lock/try_acquire_2_clients.toml";
const SPIN: &str = "scenarios/lock/spin_holder_stays.toml";
const WRONG_EXPECT: &str = "tests/fixtures/guid_pause_expire_wrong_expect.toml";
const MISSPELT: &str = "tests/fixtures/misspelt_key.toml";

const CHECK_HEADER: &str = "scenario                           property               expected  actual         unique deepest steps  seconds   states/s";
const SIMULATE_HEADER: &str = "scenario                           property               expected  actual         walked longest steps  seconds    steps/s";

/// The lock's properties, in the recipe's order.
/// The lock's properties, then every recipe's `terminates`: the rows of a
/// lock's verdict table.
const LOCK_PROPERTIES: [&str; 7] = [
    "mutual_exclusion",
    "resource_safety",
    "herd_avoidance",
    "no_orphan_no_deadlock",
    "someone_acquired",
    "waiter_woken",
    "terminates",
];

// ---------------------------------------------------------------- helpers

/// What one run of the command did.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn lines(&self) -> Vec<&str> {
        self.stdout.lines().collect()
    }
}

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn command<I, S>(args: I) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut command = Command::new(env!("CARGO_BIN_EXE_zoocheck"));
    command
        .args(args)
        .current_dir(manifest_dir())
        .stdin(Stdio::null());
    command
}

/// Runs `zoocheck ARGS` to completion. A panic or a death by signal fails
/// the test whatever the caller expects.
fn zoocheck<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let args: Vec<S> = args.into_iter().collect();
    let shown: Vec<String> = args
        .iter()
        .map(|a| a.as_ref().to_string_lossy().into_owned())
        .collect();
    let output = command(&args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run zoocheck {shown:?}: {e}"));
    let run = Run {
        code: output.status.code().unwrap_or_else(|| {
            panic!(
                "zoocheck {shown:?} was killed by a signal: {:?}",
                output.status
            )
        }),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    };
    assert!(
        !run.stderr.contains("panicked"),
        "zoocheck {shown:?} panicked:\n{}",
        run.stderr
    );
    run
}

/// Asserts the exit code, showing everything the command said if it differs.
fn expect_code(run: &Run, code: i32, what: &str) {
    assert_eq!(
        run.code, code,
        "{what}: exit code\n--- stdout\n{}\n--- stderr\n{}",
        run.stdout, run.stderr
    );
}

/// A directory under the system's temporary directory, unique to this test
/// and process, removed when dropped (even when the test fails).
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "zoocheck-cli-{tag}-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create a temporary directory");
        TempDir(path)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn sorted_file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()))
}

fn write_json(path: &Path, value: &Value) {
    std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {value}"))
        .iter()
        .map(|s| s.as_str().expect("a string").to_string())
        .collect()
}

/// What a scenario's snapshot pins.
struct Snapshot {
    unique: usize,
    /// Unique states of the search without reductions (`--reduce none`).
    exact_unique: usize,
    visited: usize,
    max_depth: usize,
    /// Each property with its expected and actual verdict.
    verdicts: Vec<(String, String, String)>,
    /// Each counterexample: its property and its steps' texts.
    counterexamples: Vec<(String, Vec<String>)>,
}

impl Snapshot {
    fn verdict(&self, property: &str) -> (&str, &str) {
        let (_, expected, actual) = self
            .verdicts
            .iter()
            .find(|(name, _, _)| name == property)
            .unwrap_or_else(|| panic!("no verdict for {property} in the snapshot"));
        (expected, actual)
    }

    fn counterexample(&self, property: &str) -> &[String] {
        &self
            .counterexamples
            .iter()
            .find(|(name, _)| name == property)
            .unwrap_or_else(|| panic!("no counterexample to {property} in the snapshot"))
            .1
    }
}

/// Reads `snapshots/lock__NAME.snap` for `scenarios/lock/NAME.toml`.
fn snapshot(scenario_file: &str) -> Snapshot {
    let name = Path::new(scenario_file)
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let path = manifest_dir().join(format!("snapshots/lock__{name}.snap"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // The body follows the second `---` line of insta's header.
    let body = text
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .map(|(_, body)| body)
        .expect("an insta snapshot");
    let states = body
        .lines()
        .find_map(|l| l.strip_prefix("states: "))
        .expect("a states line");
    // `350 unique, 585 visited, deepest path 24`
    let words: Vec<&str> = states.split_whitespace().collect();
    assert_eq!(
        (words[1], words[3], words[4], words[5]),
        ("unique,", "visited,", "deepest", "path"),
        "{states}"
    );
    let number = |w: &str| w.parse::<usize>().unwrap_or_else(|_| panic!("{states}"));
    let exact_unique = body
        .lines()
        .find_map(|l| l.strip_prefix("states without reductions: "))
        .and_then(|exact| exact.split_whitespace().next()?.parse().ok())
        .expect("a states-without-reductions line");
    let mut verdicts = Vec::new();
    let mut counterexamples: Vec<(String, Vec<String>)> = Vec::new();
    for line in body.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.len() == 6 && words[1] == "expected" && words[3] == "actual" {
            verdicts.push((words[0].into(), words[2].into(), words[4].into()));
        } else if let Some(rest) = line.strip_prefix("counterexample to ") {
            let property = rest.split_whitespace().next().unwrap().to_string();
            counterexamples.push((property, Vec::new()));
        } else if let (Some((_, steps)), Some((number, text))) = (
            counterexamples.last_mut(),
            line.trim_start().split_once(". "),
        ) {
            if number.parse::<usize>() == Ok(steps.len() + 1) {
                steps.push(text.to_string());
            }
        }
    }
    Snapshot {
        unique: number(words[0]),
        exact_unique,
        visited: number(words[2]),
        max_depth: number(words[6]),
        verdicts,
        counterexamples,
    }
}

/// One row of the check or simulate table, split at the header's columns.
#[derive(Debug, PartialEq)]
struct Row {
    scenario: String,
    property: String,
    expected: String,
    actual: String,
    count: usize,
    depth: usize,
    /// The counterexample's length, or `-`.
    steps: String,
    seconds: String,
    rate: String,
    mark: String,
}

/// Splits a table row by the header's column layout: left-aligned columns
/// start where their header starts, right-aligned ones end where theirs ends,
/// and no cell spills into the next.
fn row(header: &str, line: &str) -> Row {
    let start = |name: &str| {
        header
            .find(name)
            .unwrap_or_else(|| panic!("{name} in {header}"))
    };
    let end = |name: &str| start(name) + name.len();
    let (count_name, depth_name, rate_name) = if header.contains("unique") {
        ("unique", "deepest", "states/s")
    } else {
        ("walked", "longest", "steps/s")
    };
    assert!(
        line.len() >= header.len(),
        "a row as wide as the header:\n{header}\n{line}"
    );
    let bytes = line.as_bytes();
    for boundary in [
        start("property") - 1,
        start("expected") - 1,
        start("actual") - 1,
        end(count_name),
        end(depth_name),
        end("steps"),
        end("seconds"),
        end(rate_name),
    ] {
        assert!(
            bytes.get(boundary).is_none_or(|b| *b == b' '),
            "misaligned at column {boundary}:\n{header}\n{line}"
        );
    }
    let cell = |from: usize, to: usize| line[from..to].trim().to_string();
    let number = |text: String, what: &str| -> usize {
        text.parse()
            .unwrap_or_else(|_| panic!("{what} {text:?} in {line:?}"))
    };
    // The actual verdict (left-aligned) and the count (right-aligned) share
    // the space between the start of one header and the end of the other.
    let middle = cell(start("actual"), end(count_name));
    let (actual, count) = middle
        .split_once(' ')
        .unwrap_or_else(|| panic!("a verdict and a count in {line:?}"));
    Row {
        scenario: cell(0, start("property")),
        property: cell(start("property"), start("expected")),
        expected: cell(start("expected"), start("actual")),
        actual: actual.to_string(),
        count: number(count.trim().to_string(), "count"),
        depth: number(cell(end(count_name), end(depth_name)), "depth"),
        steps: cell(end(depth_name), end("steps")),
        seconds: cell(end("steps"), end("seconds")),
        rate: cell(end("seconds"), end(rate_name)),
        mark: cell(end(rate_name), line.len()),
    }
}

/// The table rows of a check or simulate output (the lines under the header
/// that name a scenario and a property).
fn rows(run: &Run, header: &str) -> Vec<Row> {
    let lines = run.lines();
    // The columns as named; their widths fit the longest names printed.
    let printed = lines.first().copied().unwrap_or_default();
    assert_eq!(
        printed.split_whitespace().collect::<Vec<_>>(),
        header.split_whitespace().collect::<Vec<_>>(),
        "the header:\n{}",
        run.stdout
    );
    let rows: Vec<Row> = lines[1..]
        .iter()
        .take_while(|line| !line.is_empty())
        .filter(|line| !line.starts_with(' '))
        .map(|line| row(printed, line))
        .collect();
    // Each name column is exactly as wide as its longest entry.
    let widest = |column: fn(&Row) -> &str, name: &str| {
        rows.iter()
            .map(|row| column(row).len())
            .max()
            .unwrap_or(0)
            .max(name.len())
    };
    let start = |name: &str| printed.find(name).expect("a column of the header");
    assert_eq!(
        start("property"),
        widest(|row| &row.scenario, "scenario") + 1
    );
    assert_eq!(
        start("expected") - start("property"),
        widest(|row| &row.property, "property") + 1
    );
    rows
}

/// A counterexample a simulation reported under its table.
#[derive(Clone, Debug, PartialEq)]
struct Violation {
    property: String,
    /// Its length, and its walk's before shrinking.
    steps: usize,
    walked: usize,
    seed: u64,
    /// The command printed under it, which reproduces the walk.
    args: Vec<String>,
}

/// The counterexamples a simulation reported: each violated property, its
/// length shrunk and unshrunk, its walk's seed and the replay command printed
/// under it (`  counterexample to P (12 steps, shrunk from 18; walk seed 7);
/// reproduce the walk with:`).
fn violations(run: &Run) -> Vec<Violation> {
    let lines = run.lines();
    let mut found = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let Some(rest) = line.strip_prefix("  counterexample to ") else {
            continue;
        };
        let parsed = rest.split_once(" (").and_then(|(property, rest)| {
            let (lengths, rest) = rest.split_once("; walk seed ")?;
            let seed = rest.strip_suffix("); reproduce the walk with:")?;
            let (steps, walked) = lengths.split_once(" steps, shrunk from ")?;
            Some((property, steps, walked, seed))
        });
        let Some((property, steps, walked, seed)) = parsed else {
            panic!("a counterexample line: {line:?}");
        };
        let number = |text: &str| -> u64 {
            text.parse()
                .unwrap_or_else(|_| panic!("a number, {text:?}, in {line:?}"))
        };
        let command = lines
            .get(index + 1)
            .unwrap_or_else(|| panic!("no command after {line:?}"));
        assert!(
            command.starts_with("    zoocheck simulate "),
            "the replay command is indented under its line: {command:?}"
        );
        let args: Vec<String> = command
            .split_whitespace()
            .skip(1)
            .map(String::from)
            .collect();
        found.push(Violation {
            property: property.to_string(),
            steps: number(steps) as usize,
            walked: number(walked) as usize,
            seed: number(seed),
            args,
        });
    }
    found
}

// ---------------------------------------------------------------- check

#[test]
fn check_prints_one_row_per_property_with_the_snapshot_counts() {
    let snap = snapshot(TWO_CLIENTS);
    let run = zoocheck(["check", TWO_CLIENTS]);
    expect_code(&run, 0, "check of a scenario that meets its expectations");
    assert_eq!(run.stderr, "", "nothing on standard error off a terminal");
    let rows = rows(&run, CHECK_HEADER);
    assert_eq!(rows.len(), LOCK_PROPERTIES.len(), "{}", run.stdout);
    for (row, property) in rows.iter().zip(LOCK_PROPERTIES) {
        let (expected, actual) = snap.verdict(property);
        assert_eq!(row.scenario, "lock/guid_2_clients");
        assert_eq!(row.property, property);
        assert_eq!(
            (row.expected.as_str(), row.actual.as_str()),
            (expected, actual)
        );
        assert_eq!(row.count, snap.unique, "unique states of {property}");
        assert_eq!(row.depth, snap.max_depth, "depth of {property}");
        let seconds: f64 = row.seconds.parse().expect("seconds are a number");
        assert!(seconds >= 0.0 && row.seconds.split_once('.').unwrap().1.len() == 2);
        row.rate.parse::<u64>().expect("states/s is a whole number");
        assert_eq!(row.mark, "", "no mark on an expected verdict");
    }
    let lines = run.lines();
    assert_eq!(lines.len(), 1 + LOCK_PROPERTIES.len() + 2, "{}", run.stdout);
    assert_eq!(lines[lines.len() - 2], "");
    assert_eq!(lines[lines.len() - 1], "1 scenario: every expectation met");
}

#[test]
fn check_of_a_wrong_expectation_exits_1_and_marks_the_row() {
    // The fixture is the real scenario with one expectation changed.
    let real = std::fs::read_to_string(manifest_dir().join(PAUSE_EXPIRE)).unwrap();
    let fixture = std::fs::read_to_string(manifest_dir().join(WRONG_EXPECT)).unwrap();
    assert_eq!(
        fixture,
        real.replacen(
            "mutual_exclusion = \"violated\"\n",
            "mutual_exclusion = \"holds\"\n",
            1
        ),
        "{WRONG_EXPECT} is {PAUSE_EXPIRE} expecting mutual_exclusion to hold"
    );
    assert_ne!(fixture, real);

    let snap = snapshot(PAUSE_EXPIRE);
    let run = zoocheck(["check", WRONG_EXPECT]);
    expect_code(&run, 1, "check of a wrong expectation");
    let rows = rows(&run, CHECK_HEADER);
    assert_eq!(rows.len(), 7, "{}", run.stdout);
    for row in &rows {
        // Not under `scenarios/`: named after its path below its directory.
        assert_eq!(row.scenario, "guid_pause_expire_wrong_expect");
        assert_eq!(row.count, snap.unique);
        assert_eq!(row.actual, snap.verdict(&row.property).1);
        if row.property == "mutual_exclusion" {
            assert_eq!(
                (row.expected.as_str(), row.actual.as_str()),
                ("holds", "violated")
            );
            assert_eq!(row.mark, "<- NOT AS EXPECTED");
        } else {
            assert_eq!(row.mark, "", "only the wrong row is marked: {row:?}");
        }
    }
    assert_eq!(run.stdout.matches("NOT AS EXPECTED").count(), 1);
    assert_eq!(
        run.lines().last().copied(),
        Some("1 scenario: SOME EXPECTATIONS NOT MET")
    );
}

#[test]
fn a_misspelt_key_exits_2_naming_the_file_and_the_key() {
    let real = std::fs::read_to_string(manifest_dir().join(PAUSE_EXPIRE)).unwrap();
    let fixture = std::fs::read_to_string(manifest_dir().join(MISSPELT)).unwrap();
    assert_eq!(
        fixture,
        real.replacen("\npause = 1\n", "\npausee = 1\n", 1),
        "{MISSPELT} is {PAUSE_EXPIRE} with `pause` misspelt"
    );
    assert_ne!(fixture, real);

    for args in [
        vec!["check", MISSPELT],
        vec!["check", "--json", MISSPELT],
        vec!["simulate", "--runs", "1", MISSPELT],
    ] {
        let run = zoocheck(&args);
        expect_code(&run, 2, &format!("{args:?}"));
        assert_eq!(run.stdout, "", "{args:?}: no table for a bad file");
        assert_eq!(
            run.stderr,
            format!(
                "zoocheck: {MISSPELT}: `faults.pausee`: unknown field `pausee`, expected one of \
                 {}, `expire_anytime` (line 12)\n",
                every_kind_quoted()
            ),
            "{args:?}"
        );
    }
}

#[test]
fn a_bad_file_is_reported_and_the_others_are_checked() {
    // REGRESSION: one bad file aborted the whole run before anything was
    // checked; it is reported, the rest is checked, and the exit code is 2.
    let run = zoocheck(["check", TWO_CLIENTS, MISSPELT]);
    expect_code(&run, 2, "a good file and a bad one");
    assert_eq!(rows(&run, CHECK_HEADER).len(), 7, "{}", run.stdout);
    assert!(
        run.stdout.ends_with(
            "\n1 scenario: every expectation met\n1 file refused (see the errors above)\n"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr
            .starts_with(&format!("zoocheck: {MISSPELT}: `faults.pausee`: ")),
        "{}",
        run.stderr
    );
    // The same in a directory: every good file is checked.
    let temp = TempDir::new("bad-in-dir");
    let dir = temp.path().join("scenarios").join("lock");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(manifest_dir().join(TWO_CLIENTS), dir.join("a.toml")).unwrap();
    std::fs::copy(manifest_dir().join(MISSPELT), dir.join("b.toml")).unwrap();
    std::fs::copy(manifest_dir().join(TRY_ACQUIRE), dir.join("c.toml")).unwrap();
    let run = zoocheck(["check".as_ref(), temp.path().join("scenarios").as_os_str()]);
    expect_code(&run, 2, "a directory with a bad file");
    let checked: Vec<String> = rows(&run, CHECK_HEADER)
        .into_iter()
        .map(|row| row.scenario)
        .collect();
    assert_eq!(checked.len(), 14, "{}", run.stdout);
    assert!(checked[..7].iter().all(|name| name == "lock/a"));
    assert!(checked[7..].iter().all(|name| name == "lock/c"));
    assert!(
        run.stderr.contains("b.toml: `faults.pausee`: "),
        "{}",
        run.stderr
    );
}

#[test]
fn absurd_thread_counts_are_refused() {
    // REGRESSION: `--threads 100000` panicked spawning threads (exit 101).
    for command in ["check", "simulate"] {
        for threads in ["0", "65", "100000"] {
            let run = zoocheck([command, "--threads", threads, TWO_CLIENTS]);
            expect_code(&run, 2, &format!("{command} --threads {threads}"));
            assert!(run.stderr.contains("1..=64"), "{}", run.stderr);
        }
    }
}

#[test]
fn a_trace_replays_from_anywhere_in_the_project_and_is_never_overwritten() {
    // REGRESSION: a trace named its scenario relative to where `check` ran,
    // so it replayed only from there; and two scenarios of the same name
    // under different roots overwrote each other's traces.
    let temp = TempDir::new("trace-roots");
    let out = temp.path().join("traces");
    let other_root = temp.path().join("elsewhere").join("scenarios").join("lock");
    std::fs::create_dir_all(&other_root).unwrap();
    let mut other = std::fs::read_to_string(manifest_dir().join(PAUSE_EXPIRE)).unwrap();
    other = other.replacen("The holder pauses", "Another copy: the holder pauses", 1);
    std::fs::write(other_root.join("guid_pause_expire.toml"), other).unwrap();
    let run = zoocheck([
        "check".as_ref(),
        PAUSE_EXPIRE.as_ref(),
        other_root.join("guid_pause_expire.toml").as_os_str(),
        "--trace-out".as_ref(),
        out.as_os_str(),
    ]);
    expect_code(&run, 0, "two scenarios of one name");
    assert_eq!(
        sorted_file_names(&out)
            .into_iter()
            .filter(|name| name.ends_with(".json"))
            .collect::<Vec<_>>(),
        [
            "lock__guid_pause_expire__mutual_exclusion-2.json",
            "lock__guid_pause_expire__mutual_exclusion.json",
            "lock__guid_pause_expire__resource_safety-2.json",
            "lock__guid_pause_expire__resource_safety.json",
        ]
    );
    assert!(
        run.stderr.contains("is taken by another scenario's trace"),
        "{}",
        run.stderr
    );
    let first = read_json(&out.join("lock__guid_pause_expire__mutual_exclusion.json"));
    let second = read_json(&out.join("lock__guid_pause_expire__mutual_exclusion-2.json"));
    assert_eq!(first["file"], PAUSE_EXPIRE);
    assert_eq!(second["file"], PAUSE_EXPIRE, "each from its own project");
    // Each replays from its own project, run from a directory inside it.
    let replay_in = |dir: &Path, trace: &Path| {
        let output = Command::new(env!("CARGO_BIN_EXE_zoocheck"))
            .current_dir(dir)
            .arg("replay")
            .arg(trace)
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
        )
    };
    let (code, stdout) = replay_in(
        &manifest_dir().join("scenarios/lock"),
        &out.join("lock__guid_pause_expire__mutual_exclusion.json"),
    );
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        stdout.ends_with("mutual_exclusion is violated again\n"),
        "{stdout}"
    );
    let (code, stdout) = replay_in(
        &other_root,
        &out.join("lock__guid_pause_expire__mutual_exclusion-2.json"),
    );
    assert_eq!(code, Some(0), "{stdout}");
    // Written again, each trace replaces its own, and nothing else.
    let again = zoocheck([
        "check".as_ref(),
        PAUSE_EXPIRE.as_ref(),
        "--trace-out".as_ref(),
        out.as_os_str(),
    ]);
    expect_code(&again, 0, "the same check again");
    assert_eq!(sorted_file_names(&out).len(), 8);
    assert!(!again.stderr.contains("is taken"), "{}", again.stderr);
    assert!(
        again.stderr.contains(&format!(
            "note: replacing {}",
            out.join("lock__guid_pause_expire__mutual_exclusion.json")
                .display()
        )),
        "{}",
        again.stderr
    );
}

#[test]
fn a_missing_path_exits_2() {
    for args in [
        vec!["check", "scenarios/lock/no_such_scenario.toml"],
        vec!["simulate", "scenarios/lock/no_such_scenario.toml"],
        vec![
            "explore",
            "scenarios/lock/no_such_scenario.toml",
            "--port",
            "1",
        ],
    ] {
        let run = zoocheck(&args);
        expect_code(&run, 2, &format!("{args:?}"));
        assert_eq!(run.stdout, "", "{args:?}");
        assert_eq!(
            run.stderr,
            "zoocheck: scenarios/lock/no_such_scenario.toml: no such file or directory\n",
            "{args:?}"
        );
    }
    let run = zoocheck(["replay", "no_such_trace.json"]);
    expect_code(&run, 2, "replay of a missing file");
    assert!(
        run.stderr.starts_with("zoocheck: no_such_trace.json: "),
        "{}",
        run.stderr
    );
}

#[test]
fn bad_usage_exits_2() {
    let run = zoocheck(["check", "--no-such-flag", TWO_CLIENTS]);
    expect_code(&run, 2, "an unknown flag");
    assert!(
        run.stderr.contains("unexpected argument '--no-such-flag'"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");
    for (args, what, says) in [
        (vec![], "no subcommand", "Usage: zoocheck <COMMAND>"),
        (
            vec!["frobnicate"],
            "an unknown subcommand",
            "unrecognized subcommand 'frobnicate'",
        ),
        (
            vec!["check"],
            "check without a path",
            "Usage: zoocheck check <PATH>...",
        ),
        (
            vec!["simulate", "--runs", "many", TWO_CLIENTS],
            "a bad number",
            "invalid value 'many' for '--runs <RUNS>'",
        ),
        (
            vec!["replay"],
            "replay without a trace",
            "Usage: zoocheck replay <TRACE>",
        ),
    ] {
        let run = zoocheck(&args);
        expect_code(&run, 2, what);
        assert_eq!(run.stdout, "", "{what}");
        assert!(run.stderr.contains(says), "{what}: {}", run.stderr);
    }
}

#[test]
fn check_json_parses_with_the_snapshot_counts_and_verdicts() {
    let files = [TWO_CLIENTS, PAUSE_EXPIRE, TRY_ACQUIRE];
    let run = zoocheck(["check", "--json", TWO_CLIENTS, PAUSE_EXPIRE, TRY_ACQUIRE]);
    expect_code(&run, 0, "check --json");
    let json: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", run.stdout));
    let scenarios = json.as_array().expect("an array of scenarios");
    assert_eq!(scenarios.len(), files.len());
    let keys = |v: &Value| -> Vec<String> {
        let mut keys: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        keys
    };
    for (scenario, file) in scenarios.iter().zip(files) {
        let snap = snapshot(file);
        let name = format!(
            "lock/{}",
            Path::new(file).file_stem().unwrap().to_string_lossy()
        );
        assert_eq!(
            keys(scenario),
            [
                "as_expected",
                "complete",
                "coverage",
                "file",
                "judged",
                "max_depth",
                "mode",
                "panic",
                "properties",
                "scenario",
                "seconds",
                "states",
                "stopped",
                "unique_states",
                "walks"
            ]
        );
        assert_eq!(scenario["scenario"], name.as_str());
        assert_eq!(scenario["file"], file);
        assert_eq!(scenario["mode"], "check");
        assert_eq!(scenario["walks"], Value::Null, "a check takes no walks");
        assert_eq!(scenario["unique_states"], snap.unique, "{name}");
        assert_eq!(scenario["states"], snap.visited, "{name}");
        assert_eq!(scenario["max_depth"], snap.max_depth, "{name}");
        assert_eq!(scenario["complete"], true);
        assert_eq!(scenario["stopped"], Value::Null);
        assert_eq!(scenario["panic"], Value::Null);
        assert_eq!(scenario["as_expected"], true);
        assert!(scenario["seconds"].as_f64().unwrap() >= 0.0);
        let properties = scenario["properties"].as_array().unwrap();
        let names: Vec<&str> = properties
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, LOCK_PROPERTIES);
        for property in properties {
            let p = property["name"].as_str().unwrap();
            assert_eq!(
                keys(property),
                [
                    "actual",
                    "as_expected",
                    "expected",
                    "name",
                    "proven",
                    "seed",
                    "shortest",
                    "shrunk_complete",
                    "shrunk_from",
                    "steps",
                    "trace"
                ]
            );
            assert_eq!(property["proven"], true, "a complete search proves all");
            let (expected, actual) = snap.verdict(p);
            assert_eq!(property["expected"], expected, "{name} {p}");
            assert_eq!(property["actual"], actual, "{name} {p}");
            assert_eq!(property["as_expected"], true);
            assert_eq!(property["seed"], Value::Null, "a check has no seed");
            assert_eq!(property["shrunk_from"], Value::Null, "nor shrinks");
            if actual == "violated" {
                // The shortest counterexample, step for step as the snapshot has it.
                assert_eq!(
                    strings(&property["trace"]),
                    snap.counterexample(p),
                    "{name} {p}"
                );
                assert_eq!(property["steps"], snap.counterexample(p).len());
                assert_eq!(property["shortest"], true);
            } else {
                assert_eq!(property["trace"], Value::Null, "{name} {p}");
                assert_eq!(property["steps"], Value::Null, "{name} {p}");
                assert_eq!(property["shortest"], Value::Null, "{name} {p}");
            }
        }
    }
    // The verdicts that differ between them.
    assert_eq!(scenarios[1]["properties"][0]["actual"], "violated");
    assert_eq!(strings(&scenarios[1]["properties"][0]["trace"]).len(), 12);
    assert_eq!(scenarios[2]["properties"][5]["actual"], "unreached");

    // And a wrong expectation in JSON: exit 1, as_expected false.
    let run = zoocheck(["check", "--json", WRONG_EXPECT]);
    expect_code(&run, 1, "check --json of a wrong expectation");
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(json[0]["as_expected"], false);
    let wrong: Vec<&str> = json[0]["properties"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["as_expected"] == false)
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(wrong, ["mutual_exclusion"]);
}

// ---------------------------------------------------------------- traces

/// Runs `check --trace-out` on guid_pause_expire into a fresh directory (one
/// level deeper than the temporary one, which zoocheck must create).
fn pause_expire_traces(tag: &str) -> (TempDir, PathBuf) {
    let temp = TempDir::new(tag);
    let out = temp.path().join("traces");
    let run = zoocheck([
        "check".as_ref(),
        PAUSE_EXPIRE.as_ref(),
        "--trace-out".as_ref(),
        out.as_os_str(),
    ]);
    expect_code(&run, 0, "check --trace-out");
    (temp, out)
}

#[test]
fn check_trace_out_writes_json_and_mermaid_that_replay() {
    let snap = snapshot(PAUSE_EXPIRE);
    let (_temp, out) = pause_expire_traces("check-trace");
    assert_eq!(
        sorted_file_names(&out),
        [
            "lock__guid_pause_expire__mutual_exclusion.json",
            "lock__guid_pause_expire__mutual_exclusion.md",
            "lock__guid_pause_expire__resource_safety.json",
            "lock__guid_pause_expire__resource_safety.md",
        ]
    );
    for property in ["mutual_exclusion", "resource_safety"] {
        let stem = out.join(format!("lock__guid_pause_expire__{property}"));
        let json_path = stem.with_extension("json");
        let trace = read_json(&json_path);
        assert_eq!(trace["format"], "zoocheck-trace/1");
        assert_eq!(trace["scenario"], "lock/guid_pause_expire");
        assert_eq!(trace["file"], PAUSE_EXPIRE);
        assert_eq!(trace["property"], property);
        assert_eq!(trace["verdict"], "violated");
        assert_eq!(trace["found_by"], format!("check {PAUSE_EXPIRE}"));
        let steps = strings(&trace["steps"]);
        assert_eq!(steps, snap.counterexample(property), "{property}");
        assert_eq!(trace["actions"].as_array().unwrap().len(), steps.len());

        let md = std::fs::read_to_string(stem.with_extension("md")).unwrap();
        assert!(
            md.starts_with(&format!("# lock/guid_pause_expire: {property} violated\n")),
            "{md}"
        );
        assert!(md.contains("\n```mermaid\nsequenceDiagram\n"), "{md}");
        assert_eq!(md.matches("```mermaid").count(), 1);
        let block = md.split("```mermaid\n").nth(1).unwrap();
        assert!(block.contains("\n```\n"), "the mermaid block is closed");
        assert!(
            md.contains(&format!(
                "replay with `zoocheck replay {}`",
                json_path.display()
            )),
            "{md}"
        );

        let run = zoocheck(["replay".as_ref(), json_path.as_os_str()]);
        expect_code(&run, 0, "replay of a fresh trace");
        assert_eq!(
            run.stdout,
            format!(
                "replayed {} steps of lock/guid_pause_expire: {property} is violated again\n",
                steps.len()
            )
        );
    }
}

#[test]
fn mermaid_notes_are_not_repeated() {
    // REGRESSION: the diagram once took a client step's first note as the
    // text before "; sends"; when the step sent nothing, that was the whole
    // description, and each later clause was drawn a second time.
    let (_temp, out) = pause_expire_traces("mermaid");
    let md =
        std::fs::read_to_string(out.join("lock__guid_pause_expire__mutual_exclusion.md")).unwrap();
    let block = md
        .split("```mermaid\n")
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .expect("a mermaid block");
    // c0 comes to believe it holds the lock once (step 5), c1 once (step 12).
    for belief in [
        "BELIEVES IT HOLDS the lock (token 0)",
        "BELIEVES IT HOLDS the lock (token 1)",
    ] {
        assert_eq!(
            block.matches(belief).count(),
            1,
            "{belief:?} is drawn once:\n{block}"
        );
    }
    let notes: Vec<&str> = block
        .lines()
        .filter(|l| l.contains("Note over c"))
        .collect();
    for pair in notes.windows(2) {
        assert!(
            !pair[0].contains(pair[1].split_once(": ").unwrap().1),
            "a note repeats the next one:\n{}\n{}",
            pair[0],
            pair[1]
        );
    }
}

// ---------------------------------------------------------------- report

/// `text` as an HTML page shows it escaped.
fn html_escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// Each `<svg ...>` element of `html` with the number of arrows it declares
/// and the number it holds.
fn diagrams(html: &str) -> Vec<(usize, usize)> {
    html.split("<svg ")
        .skip(1)
        .map(|rest| {
            let svg = &rest[..rest.find("</svg>").expect("a closed svg")];
            let declared = svg
                .split_once(" data-arrows=\"")
                .and_then(|(_, rest)| rest.split_once('"'))
                .and_then(|(number, _)| number.parse().ok())
                .unwrap_or_else(|| panic!("no data-arrows: {}", &svg[..200.min(svg.len())]));
            (declared, svg.matches("<g class=\"arrow ").count())
        })
        .collect()
}

#[test]
fn check_report_writes_one_page_with_a_diagram_per_counterexample() {
    let snap = snapshot(PAUSE_EXPIRE);
    let temp = TempDir::new("report");
    let dir = temp.path().join("a").join("report");
    let run = zoocheck([
        "check".as_ref(),
        PAUSE_EXPIRE.as_ref(),
        "--report".as_ref(),
        dir.as_os_str(),
    ]);
    expect_code(&run, 0, "check --report");
    let index = dir.join("index.html");
    assert!(
        run.stderr.contains(&format!("wrote {}", index.display())),
        "{}",
        run.stderr
    );
    assert_eq!(sorted_file_names(&dir), ["index.html"]);
    let html = std::fs::read_to_string(&index).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>\n"), "{html}");
    assert!(html.ends_with("</html>\n"));
    // Self-contained: nothing to fetch, nothing to run.
    for outside in ["<script", "<link", " src=", "url(", "@import"] {
        assert!(!html.contains(outside), "the page holds {outside:?}");
    }
    assert_eq!(
        html.matches("http").count(),
        html.matches("xmlns=\"http://www.w3.org/2000/svg\"").count(),
        "no address but SVG's namespace"
    );
    // The run it is of: zoocheck's version, the date, the command as typed.
    let head = format!("<p class=\"run\">zoocheck {}, ", env!("CARGO_PKG_VERSION"));
    let run_line = (html.lines())
        .find(|line| line.starts_with(&head))
        .unwrap_or_else(|| panic!("no line {head}...\n{html}"));
    let command = format!(
        " UTC: <code>zoocheck check {PAUSE_EXPIRE} --report {}</code></p>",
        dir.display()
    );
    assert!(run_line.ends_with(&command), "{run_line}");
    // The date between them, to the minute: 2026-12-02 22:10.
    let date = &run_line[head.len()..run_line.len() - command.len()];
    assert!(
        date.len() == 16 && date.as_bytes()[4] == b'-' && date.as_bytes()[13] == b':',
        "{date}"
    );
    // The verdict table: one row per property, the text table's columns with
    // each property's kind and meaning, and a legend of them.
    assert!(html.contains("<th>scenario</th><th>property</th><th>kind</th><th>expected</th><th>actual</th><th class=\"number\">unique states</th><th class=\"number\">deepest</th><th class=\"number\">steps</th><th class=\"number\">seconds</th><th>meaning</th>"), "{html}");
    assert_eq!(
        html.matches("<tr class=\"met\">").count(),
        LOCK_PROPERTIES.len()
    );
    let list = zoocheck(["list", "--recipe", "lock"]);
    for property in LOCK_PROPERTIES {
        let (expected, actual) = snap.verdict(property);
        let kind = match property {
            "terminates" => "liveness",
            "someone_acquired" | "waiter_woken" => "sometimes",
            _ => "always",
        };
        let badge = |verdict: &str| {
            let name = verdict.split([' ', '?']).next().unwrap();
            format!(
                "<span class=\"verdict v-{name}\">{}</span>",
                html_escaped(verdict)
            )
        };
        let cells = format!(
            "<td>lock/guid_pause_expire</td><td>{property}</td><td>{kind}</td><td>{}</td><td>{}<span class=\"mark\"></span></td><td class=\"number\">{}</td><td class=\"number\">{}</td>",
            badge(expected),
            badge(actual),
            snap.unique,
            snap.max_depth
        );
        assert!(html.contains(&cells), "{cells}\n{html}");
        // Its meaning is the one `list` gives.
        let row = (html.lines())
            .find(|line| line.contains(&cells))
            .expect("the row");
        let meaning = row
            .split("<td class=\"meaning\">")
            .nth(1)
            .and_then(|rest| rest.strip_suffix("</td></tr>"))
            .unwrap_or_else(|| panic!("no meaning in {row}"));
        assert!(!meaning.is_empty(), "{row}");
        assert!(
            property == "terminates" || list.stdout.contains(meaning),
            "{property}: {meaning}\n{}",
            list.stdout
        );
    }
    for column in ["kind", "expected", "actual", "steps", "seconds"] {
        assert!(
            html.contains(&format!("<dt>{column}</dt><dd>")),
            "the legend says what {column} is"
        );
    }
    // One section per counterexample, its steps as the snapshot has them, and
    // one diagram with as many arrows as it declares.
    assert_eq!(html.matches("<section class=\"trace\"").count(), 2);
    let found = diagrams(&html);
    assert_eq!(found.len(), 2, "one diagram per counterexample");
    for (declared, held) in &found {
        assert!(*declared > 0);
        assert_eq!(declared, held);
    }
    for (index, property) in ["mutual_exclusion", "resource_safety"].iter().enumerate() {
        let steps = snap.counterexample(property);
        let heading = format!(
            "<section class=\"trace\" id=\"trace-{}\">\n<h3>lock/guid_pause_expire: {property} violated in {} steps</h3>",
            index + 1,
            steps.len()
        );
        assert!(html.contains(&heading), "{heading}\n{html}");
        assert!(html.contains(&format!(
            "<a href=\"#trace-{}\">{}</a>",
            index + 1,
            steps.len()
        )));
        // Each step as the snapshot has it, and under it what it changed.
        let list = html
            .split(&heading)
            .nth(1)
            .and_then(|rest| rest.split("<ol class=\"steps\">\n").nth(1))
            .and_then(|rest| rest.split("</ol>").next())
            .expect("the steps");
        let items: Vec<&str> = list.lines().collect();
        assert_eq!(items.len(), steps.len(), "{list}");
        for (item, step) in items.iter().zip(steps) {
            let told = format!("<li><span class=\"step\">{}</span>", html_escaped(step));
            assert!(item.starts_with(&told), "{item}\n{told}");
        }
        // The first step: c0 leaves Idle for Creating, and its create is in
        // flight.
        assert!(
            items[0].ends_with(
                "<div class=\"change\"><del>c0: Idle; running, connected; no watches</del>\
                 <ins>c0: Creating lock-; running, connected; no watches</ins><ins>in flight:</ins>\
                 <ins>c0 -&gt; server: create /lock/c0-lock- (ephemeral sequential)</ins></div></li>"
            ),
            "{}",
            items[0]
        );
    }
    // A description is reflowed: its lines joined into one paragraph.
    assert!(
        html.contains(
            "<p class=\"description\">The holder pauses (a long GC) past its session timeout; the server \
             expires it and the other client takes the lock."
        ),
        "{html}"
    );
    assert!(!html.contains("the other\nclient"), "{html}");

    // Again: the report replaces its own, and says so.
    let again = zoocheck([
        "check".as_ref(),
        PAUSE_EXPIRE.as_ref(),
        "--report".as_ref(),
        dir.as_os_str(),
    ]);
    expect_code(&again, 0, "check --report again");
    assert!(
        again
            .stderr
            .contains(&format!("note: replacing {}", index.display())),
        "{}",
        again.stderr
    );
    assert_eq!(diagrams(&std::fs::read_to_string(&index).unwrap()).len(), 2);

    // A witness asked for is shown too, linked from its row.
    let witnessed = temp.path().join("witnessed");
    let run = zoocheck([
        "check".as_ref(),
        PAUSE_EXPIRE.as_ref(),
        "--witness".as_ref(),
        "someone_acquired".as_ref(),
        "--report".as_ref(),
        witnessed.as_os_str(),
    ]);
    expect_code(&run, 0, "check --witness --report");
    let html = std::fs::read_to_string(witnessed.join("index.html")).unwrap();
    assert_eq!(
        diagrams(&html).len(),
        3,
        "two counterexamples and a witness"
    );
    assert!(
        html.contains(
            "<section class=\"trace\" id=\"trace-3\">\n<h3>lock/guid_pause_expire: a witness that someone_acquired is reached, in 5 steps</h3>"
        ),
        "{html}"
    );
    assert!(html.contains("<a href=\"#trace-3\">5</a>"), "{html}");
    // waiter_woken, reached but not asked for, links to nothing.
    let row = (html.lines())
        .find(|line| line.contains("<td>waiter_woken</td>"))
        .expect("its row");
    assert!(row.contains("<td class=\"number\">-</td>"), "{row}");
}

#[test]
fn check_report_refuses_a_file_and_a_page_it_did_not_write() {
    let temp = TempDir::new("report-refused");
    let file = temp.path().join("report.html");
    std::fs::write(&file, "mine").unwrap();
    let run = zoocheck([
        "check".as_ref(),
        PAUSE_EXPIRE.as_ref(),
        "--report".as_ref(),
        file.as_os_str(),
    ]);
    expect_code(&run, 2, "--report on a file");
    assert_eq!(
        run.stderr,
        format!(
            "zoocheck: {}: not a directory; --report wants a directory to write index.html in\n",
            file.display()
        )
    );
    assert_eq!(run.stdout, "", "refused before the search");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");

    let dir = temp.path().join("site");
    std::fs::create_dir_all(&dir).unwrap();
    let index = dir.join("index.html");
    let theirs = "<!DOCTYPE html>\n<title>someone's page</title>\n";
    std::fs::write(&index, theirs).unwrap();
    let run = zoocheck([
        "check".as_ref(),
        PAUSE_EXPIRE.as_ref(),
        "--report".as_ref(),
        dir.as_os_str(),
    ]);
    expect_code(&run, 2, "--report over another page");
    assert!(
        run.stderr.starts_with(&format!(
            "zoocheck: {} exists and zoocheck did not write it: not replacing it",
            index.display()
        )),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "", "refused before the search");
    assert_eq!(std::fs::read_to_string(&index).unwrap(), theirs);
}

#[test]
fn check_report_escapes_what_it_shows() {
    // A scenario whose description is markup, under a `scenarios` directory
    // of its own.
    let temp = TempDir::new("report-escape");
    let scenarios = temp.path().join("scenarios").join("lock");
    std::fs::create_dir_all(&scenarios).unwrap();
    let original = std::fs::read_to_string(manifest_dir().join(PAUSE_EXPIRE)).unwrap();
    let markup = "<script>alert(\\\"x\\\")</script> & <b>bold</b>";
    let text = original.replacen(
        "The holder pauses",
        &format!("{markup} The holder pauses"),
        1,
    );
    assert_ne!(text, original, "the description was changed");
    let file = scenarios.join("guid_pause_expire.toml");
    std::fs::write(&file, text).unwrap();
    let dir = temp.path().join("report");
    let run = zoocheck([
        "check".as_ref(),
        file.as_os_str(),
        "--report".as_ref(),
        dir.as_os_str(),
    ]);
    expect_code(&run, 0, "check --report of a scenario with markup");
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(!html.contains("<script"), "{html}");
    assert!(!html.contains("<b>"), "{html}");
    assert_eq!(
        html.matches("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt; The holder pauses")
            .count(),
        2,
        "the description, escaped, above each counterexample"
    );
    assert!(
        html.contains("the server expires c0&#39;s session"),
        "{html}"
    );
}

/// The verdicts of a search that stops at its depth bound expected proven
/// (`holds`, `unreached`): the search cannot prove them, so the check is
/// incomplete (exit 3), not met; and a
/// scenario that expects `violated?` of a loop a search proves is not met
/// either (exit 1: it says less than the search shows).
#[test]
fn an_unproven_verdict_meets_only_an_unproven_expectation() {
    let temp = TempDir::new("unproven");
    let spin = std::fs::read_to_string(manifest_dir().join(SPIN)).unwrap();
    let proven = spin
        .replace("\"holds?\"", "\"holds\"")
        .replace("\"violated?\"", "\"violated\"");
    let proven = proven.replace("\"unreached?\"", "\"unreached\"");
    assert_ne!(proven, spin);
    let file = temp.path().join("spin_proven.toml");
    std::fs::write(&file, &proven).unwrap();
    let run = zoocheck(["check".as_ref(), file.as_os_str()]);
    expect_code(&run, 3, "unproven verdicts expected proven");
    assert!(run.stdout.contains("INCOMPLETE"), "{}", run.stdout);
    // A scenario that expects unproven what the search proves.
    let two = std::fs::read_to_string(manifest_dir().join(TWO_CLIENTS)).unwrap();
    let unproven = two.replacen(
        "mutual_exclusion = \"holds\"",
        "mutual_exclusion = \"holds?\"",
        1,
    );
    assert_ne!(unproven, two);
    let file = temp.path().join("two_unproven.toml");
    std::fs::write(&file, &unproven).unwrap();
    let run = zoocheck(["check".as_ref(), file.as_os_str()]);
    expect_code(&run, 1, "a proven verdict expected unproven");
    assert!(
        run.stdout.contains("SOME EXPECTATIONS NOT MET"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_spinning_client_is_a_loop_modulo_counters_whose_trace_replays() {
    let temp = TempDir::new("spin");
    let out = temp.path().join("traces");
    let run = zoocheck([
        "check".as_ref(),
        SPIN.as_ref(),
        "--trace-out".as_ref(),
        out.as_os_str(),
    ]);
    // A round that comes back but for its counters is a loop as far as
    // they reach, proven; the scenario expects it so, with the verdicts the
    // search could not prove beside it: met, so the check succeeds.
    expect_code(&run, 0, "check of a scenario that expects its loop");
    let rows = rows(&run, CHECK_HEADER);
    let shown: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|row| {
            (
                row.property.as_str(),
                row.actual.as_str(),
                row.steps.as_str(),
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            ("mutual_exclusion", "holds?", "-"),
            ("resource_safety", "holds?", "-"),
            ("herd_avoidance", "holds?", "-"),
            ("no_orphan_no_deadlock", "holds?", "-"),
            ("someone_acquired", "reached", "-"),
            ("waiter_woken", "unreached?", "-"),
            ("terminates", "violated", "19*"),
        ]
    );
    assert!(rows
        .iter()
        .all(|row| row.depth == 60 && row.mark.is_empty()));
    assert!(
        run.stdout.contains(
            "  (the search stopped at the scenario's depth bound ([check] depth_bound): a path \
             that long is still going: a `?` verdict is unproven)\n"
        ),
        "{}",
        run.stdout
    );

    // The saved path replays to the same loop.
    let saved = out.join("lock__spin_holder_stays__terminates.json");
    let run = zoocheck(["replay".as_ref(), saved.as_os_str()]);
    expect_code(&run, 0, "replay of a loop");
    assert!(
        run.stdout.starts_with(
            "replayed 19 steps of lock/spin_holder_stays: terminates is violated again\n  \
             VIOLATED terminates: c1 loops as far as the counters reach: steps 14-19 come back \
             to the state after step 13 with only its counters moved on"
        ),
        "{}",
        run.stdout
    );

    // Cut before its round ends, it shows no loop.
    let mut cut = read_json(&saved);
    cut["actions"].as_array_mut().unwrap().truncate(16);
    cut["steps"].as_array_mut().unwrap().truncate(16);
    let path = temp.path().join("cut.json");
    write_json(&path, &cut);
    let run = zoocheck(["replay".as_ref(), path.as_os_str()]);
    expect_code(&run, 1, "replay of a loop cut short");
    assert_eq!(
        run.stdout,
        "replayed 16 steps of lock/spin_holder_stays, but terminates is no longer violated: \
         UNPROVEN terminates: a path of 16 steps and still going, and no part of it repeats \
         modulo counters, so it may be a long run that ends: raise `[check] depth_bound` to \
         see\n"
    );
}

/// A spinner beside a holder that releases: the search stops at its depth
/// bound with `terminates` `holds?` and a path that is no evidence of a
/// loop, which `--witness`, `--trace-out`, `replay`, `--json` and
/// `--report` show, each marking it unproven.
#[test]
fn the_path_behind_an_unproven_holds_is_shown_written_and_replayed() {
    let temp = TempDir::new("unproven_path");
    let spin = std::fs::read_to_string(manifest_dir().join(SPIN)).unwrap();
    let release = spin
        .replace(
            r#"["acquire", "work"]"#,
            r#"["acquire", "work", "release"]"#,
        )
        .replace("depth_bound = 60", "depth_bound = 40")
        .replace(r#"terminates = "violated""#, r#"terminates = "holds?""#);
    let file = temp.path().join("spin_release.toml");
    std::fs::write(&file, &release).unwrap();
    let out = temp.path().join("traces");
    let run = zoocheck([
        "check".as_ref(),
        file.as_os_str(),
        "--witness".as_ref(),
        "terminates".as_ref(),
        "--trace-out".as_ref(),
        out.as_os_str(),
    ]);
    expect_code(&run, 0, "a holds? expected");
    assert!(
        run.stdout
            .contains("\n  the unproven path behind terminates holds? (40 steps, not a proof):\n"),
        "{}",
        run.stdout
    );
    assert!(run
        .stdout
        .contains("UNPROVEN terminates: a path of 40 steps (the depth bound) and still going"));
    let saved = out.join("spin_release__terminates.json");
    let json = read_json(&saved);
    assert_eq!(json["verdict"], "unproven");
    assert_eq!(json["actions"].as_array().unwrap().len(), 40);
    let markdown = std::fs::read_to_string(saved.with_extension("md")).unwrap();
    assert!(markdown
        .starts_with("# spin_release: terminates holds?: the path it rests on, not a proof\n"));
    // It replays, and still proves nothing.
    let run = zoocheck(["replay".as_ref(), saved.as_os_str()]);
    expect_code(&run, 0, "replay of an unproven path");
    assert!(
        run.stdout.starts_with(
            "replayed 40 steps of spin_release: the path behind its unproven terminates is \
             there again, and still proves nothing\n  UNPROVEN terminates: a path of 40 steps"
        ),
        "{}",
        run.stdout
    );
    // A terminates trace is a loop or an unproven path, nothing else.
    let mut tampered = json.clone();
    tampered["verdict"] = "holds".into();
    let path = temp.path().join("tampered.json");
    write_json(&path, &tampered);
    let run = zoocheck(["replay".as_ref(), path.as_os_str()]);
    expect_code(&run, 2, "a terminates trace with another verdict");
    assert!(
        run.stderr.contains(
            "`verdict`: \"holds\"; expected \"violated\" (a loop) or \"unproven\" (the path a \
             holds? rests on)"
        ),
        "{}",
        run.stderr
    );
    // In JSON, the path with its mark; in the report, a section.
    let run = zoocheck(["check".as_ref(), file.as_os_str(), "--json".as_ref()]);
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    let terminates = &json[0]["properties"][6];
    assert_eq!(terminates["name"], "terminates");
    assert_eq!(terminates["path"], "unproven");
    assert_eq!(terminates["steps"], 40);
    assert_eq!(strings(&terminates["trace"]).len(), 40);
    assert_eq!(json[0]["properties"][0].get("path"), None);
    let report = temp.path().join("report");
    let run = zoocheck([
        "check".as_ref(),
        file.as_os_str(),
        "--report".as_ref(),
        report.as_os_str(),
    ]);
    expect_code(&run, 0, "a report");
    let html = std::fs::read_to_string(report.join("index.html")).unwrap();
    assert!(html.contains(
        "<h3>spin_release: the path behind terminates holds?, 40 steps, not a proof</h3>"
    ));
}

#[test]
fn replay_of_a_tampered_trace_fails() {
    let (temp, out) = pause_expire_traces("tamper");
    let original = read_json(&out.join("lock__guid_pause_expire__mutual_exclusion.json"));
    let actions = original["actions"].as_array().unwrap().clone();
    let steps = strings(&original["steps"]);
    assert_eq!(actions.len(), 12);

    // (a) The pause replaced by a resume of a client that is not paused.
    let pause = actions
        .iter()
        .position(|a| a["Fault"]["kind"] == "pause")
        .expect("the counterexample pauses a client");
    let client = actions[pause]["Fault"]["client"].as_u64().unwrap();
    let mut diverged = original.clone();
    diverged["actions"][pause] = serde_json::json!({ "Resume": client });
    let path = temp.path().join("diverged.json");
    write_json(&path, &diverged);
    let run = zoocheck(["replay".as_ref(), path.as_os_str()]);
    expect_code(
        &run,
        1,
        "replay of a trace with an action that is not enabled",
    );
    assert_eq!(
        run.stdout,
        format!(
            "diverged at step {}: Resume({client}) is not possible there any more (it was: {})\n",
            pause + 1,
            steps[pause]
        )
    );

    // (b) The last step dropped: the violation is not reached.
    let mut truncated = original.clone();
    truncated["actions"].as_array_mut().unwrap().pop();
    truncated["steps"].as_array_mut().unwrap().pop();
    let path = temp.path().join("truncated.json");
    write_json(&path, &truncated);
    let run = zoocheck(["replay".as_ref(), path.as_os_str()]);
    expect_code(&run, 1, "replay of a truncated trace");
    assert_eq!(
        run.stdout,
        "replayed all 11 steps of lock/guid_pause_expire, but mutual_exclusion is no longer violated\n"
    );

    // An action for a client that does not exist diverges too, without a panic.
    let mut stranger = original.clone();
    stranger["actions"][0] = serde_json::json!({ "Serve": 7 });
    let path = temp.path().join("stranger.json");
    write_json(&path, &stranger);
    let run = zoocheck(["replay".as_ref(), path.as_os_str()]);
    expect_code(&run, 1, "replay of an action for client 7 of 2");
    assert!(
        run.stdout.starts_with("diverged at step 1: Serve(7) "),
        "{}",
        run.stdout
    );

    // A step whose saved words differ is noted, and the replay still succeeds.
    let mut reworded = original.clone();
    reworded["steps"][0] = Value::from("something else");
    let path = temp.path().join("reworded.json");
    write_json(&path, &reworded);
    let run = zoocheck(["replay".as_ref(), path.as_os_str()]);
    expect_code(&run, 0, "replay of a reworded trace");
    assert_eq!(
        run.stdout,
        format!(
            "note: step 1 now reads: {}\n      it was saved as:  something else\n\
             replayed 12 steps of lock/guid_pause_expire: mutual_exclusion is violated again\n",
            steps[0]
        )
    );

    // (c) Files that are not traces, or whose fields are not what a trace
    // can say: exit 2, with a message naming the field. REGRESSION: the
    // verdict was never checked ("banana" replayed, and so did a
    // sometimes-property said to hold), nor the steps against the actions.
    let field = |key: &str, value: Value| {
        let mut v = original.clone();
        v[key] = value;
        v
    };
    let mut one_step_short = original.clone();
    one_step_short["steps"].as_array_mut().unwrap().pop();
    let bad: [(&str, Value, &str); 10] = [
        (
            "banana.json",
            field("verdict", Value::from("banana")),
            "`verdict`: \"banana\"; mutual_exclusion is an `always` property, so expected \"violated\"",
        ),
        (
            "holds.json",
            field("verdict", Value::from("holds")),
            "`verdict`: \"holds\"; mutual_exclusion is an `always` property, so expected \"violated\"",
        ),
        (
            "sometimes.json",
            {
                let mut v = field("property", Value::from("someone_acquired"));
                v["verdict"] = Value::from("holds");
                v
            },
            "`verdict`: \"holds\"; someone_acquired is a `sometimes` property, so expected \"reached\"",
        ),
        (
            "steps.json",
            one_step_short,
            "`steps`: 11 steps for 12 actions; expected one per action",
        ),
        (
            "found_by.json",
            field("found_by", Value::from("\u{1b}[31mme")),
            "`found_by`: \"\\u{1b}[31mme\"; expected the command that found it (`check ...` or `simulate ...`)",
        ),
        (
            "scenario.json",
            field("scenario", Value::from("lock/other")),
            "`scenario`: \"lock/other\", but ",
        ),
        (
            "other.json",
            serde_json::json!({ "hello": 1 }),
            "not a zoocheck trace",
        ),
        (
            "array.json",
            serde_json::json!([1, 2, 3]),
            "not a zoocheck trace",
        ),
        (
            "format.json",
            {
                let mut v = original.clone();
                v["format"] = Value::from("zoocheck-trace/99");
                v
            },
            "`format`: \"zoocheck-trace/99\"; expected \"zoocheck-trace/1\"",
        ),
        (
            "property.json",
            {
                let mut v = original.clone();
                v["property"] = Value::from("liveness");
                v
            },
            "`property`: \"liveness\" is not a property of lock/guid_pause_expire",
        ),
    ];
    for (name, value, message) in bad {
        let path = temp.path().join(name);
        write_json(&path, &value);
        let run = zoocheck(["replay".as_ref(), path.as_os_str()]);
        expect_code(&run, 2, name);
        assert_eq!(run.stdout, "", "{name}");
        assert!(
            run.stderr
                .starts_with(&format!("zoocheck: {}: {message}", path.display())),
            "{name}: {}",
            run.stderr
        );
    }
    let path = temp.path().join("text.json");
    std::fs::write(&path, "this is not JSON").unwrap();
    let run = zoocheck(["replay".as_ref(), path.as_os_str()]);
    expect_code(&run, 2, "replay of a file that is not JSON");
    assert!(
        run.stderr.contains("not a zoocheck trace"),
        "{}",
        run.stderr
    );
}

// ---------------------------------------------------------------- simulate

/// The lines of a simulation, its table's rows without their seconds and
/// rate, which vary.
fn without_timing(run: &Run) -> Vec<String> {
    let lines = run.lines();
    let header = lines.first().copied().unwrap_or_default();
    // The table: the header, then rows and the lines indented under them.
    let table = 1 + lines.iter().skip(1).take_while(|l| !l.is_empty()).count();
    lines
        .iter()
        .enumerate()
        .map(|(index, line)| {
            if (1..table).contains(&index) && !line.starts_with(' ') {
                let mut row = row(header, line);
                row.seconds.clear();
                row.rate.clear();
                format!("{row:?}")
            } else {
                line.to_string()
            }
        })
        .collect()
}

#[test]
fn simulation_is_deterministic_and_its_violations_replay_by_seed_and_by_trace() {
    const RUNS: u64 = 500;
    const SEED: u64 = 0;
    let args = [
        "simulate",
        PAUSE_EXPIRE,
        "--runs",
        &RUNS.to_string(),
        "--seed",
        &SEED.to_string(),
    ]
    .map(String::from);
    let first = zoocheck(&args);
    // resource_safety is not violated by so few walks: unproven, which a
    // simulation always is, and no unexpected violation (exit 0).
    expect_code(&first, 0, "a short simulation of guid_pause_expire");
    assert!(
        first.stdout.ends_with(
            "\n1 scenario: no unexpected violation; a simulation proves nothing (verdicts marked ? are unproven)\n"
        ),
        "{}",
        first.stdout
    );
    let rows1 = rows(&first, SIMULATE_HEADER);
    assert_eq!(rows1.len(), 6);
    let mutex = &rows1[0];
    assert_eq!(
        (
            mutex.property.as_str(),
            mutex.expected.as_str(),
            mutex.actual.as_str()
        ),
        ("mutual_exclusion", "violated", "violated")
    );
    assert_eq!(mutex.mark, "");
    for row in &rows1 {
        assert_eq!(row.scenario, "lock/guid_pause_expire");
        assert!(row.depth <= 200 && row.depth > 0);
        assert!(row.count >= row.depth && row.count <= row.depth * RUNS as usize);
        // A simulation proves no "holds" and no "unreached".
        if matches!(row.actual.trim_end_matches('?'), "holds" | "unreached") {
            assert!(row.actual.ends_with('?'), "{row:?}");
        }
    }
    let found = violations(&first);
    let violation = found
        .iter()
        .find(|v| v.property == "mutual_exclusion")
        .expect("a walk violates mutual_exclusion")
        .clone();
    let (seed, replay_args) = (violation.seed, violation.args.clone());
    assert!((SEED..SEED + RUNS).contains(&seed), "seed {seed}");
    // Shrunk, but never below the shortest counterexample a check finds.
    let shortest = snapshot(PAUSE_EXPIRE)
        .counterexample("mutual_exclusion")
        .len();
    assert_eq!(violation.steps.to_string(), mutex.steps);
    assert!(
        shortest <= violation.steps && violation.steps <= violation.walked,
        "{violation:?}"
    );
    assert_eq!(
        replay_args,
        [
            "simulate",
            PAUSE_EXPIRE,
            "--seed",
            &seed.to_string(),
            "--runs",
            "1",
            "--max-depth",
            "200",
            "--reproduce",
            "mutual_exclusion"
        ]
    );

    // The same simulation again: the same table but for the timings.
    let second = zoocheck(&args);
    expect_code(&second, first.code, "the same simulation again");
    assert_eq!(without_timing(&first), without_timing(&second));

    // The walks before the reported one do not violate it: it is the first.
    if seed > SEED {
        let before = zoocheck([
            "simulate",
            PAUSE_EXPIRE,
            "--runs",
            &(seed - SEED).to_string(),
            "--seed",
            &SEED.to_string(),
        ]);
        assert_eq!(rows(&before, SIMULATE_HEADER)[0].actual, "holds?");
        assert!(violations(&before)
            .iter()
            .all(|v| v.property != "mutual_exclusion"));
    }

    // Route 1: the printed command, the walk alone by its seed, which says it
    // reproduces what it was printed for, and exits 0 (REGRESSION: it exited
    // 1, the single walk not violating the scenario's other expected
    // properties).
    let by_seed = zoocheck(&replay_args);
    expect_code(&by_seed, 0, "the printed command");
    assert!(
        by_seed.stdout.ends_with(&format!(
            "reproduced: the walk with seed {seed} violates mutual_exclusion of lock/guid_pause_expire in {} steps, shrunk to {} (as the scenario expects)\n",
            violation.walked, violation.steps
        )),
        "{}",
        by_seed.stdout
    );
    let seed_rows = rows(&by_seed, SIMULATE_HEADER);
    assert_eq!(seed_rows[0].property, "mutual_exclusion");
    assert_eq!(seed_rows[0].actual, "violated");
    assert_eq!(seed_rows[0].mark, "");
    let again = violations(&by_seed);
    assert!(
        again.contains(&violation),
        "the same violation, lengths, seed and command: {again:?}\n{}",
        by_seed.stdout
    );
    // Exit 1 or 0 only by the other verdicts; the walk is one of the first's.
    assert!(seed_rows[0].depth <= mutex.depth);

    // The walk's trace, by seed, from the long simulation and the single walk.
    let json_of = |args: &[String]| -> Value {
        let mut args = args.to_vec();
        args.push("--json".into());
        let run = zoocheck(&args);
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
    };
    let long = json_of(&args);
    let single = json_of(&replay_args);
    assert_eq!(long[0]["mode"], "simulate");
    assert_eq!(long[0]["properties"][0]["seed"], seed);
    assert_eq!(long[0]["walks"], RUNS);
    assert_eq!(long[0]["properties"][0]["steps"], violation.steps);
    assert_eq!(long[0]["properties"][0]["shrunk_from"], violation.walked);
    assert_eq!(long[0]["properties"][0]["shrunk_complete"], true);
    assert_eq!(single[0]["properties"][0]["seed"], seed);
    let seed_steps = strings(&single[0]["properties"][0]["trace"]);
    assert_eq!(strings(&long[0]["properties"][0]["trace"]), seed_steps);
    assert!(!seed_steps.is_empty());

    // Route 2: the single walk's trace saved and replayed.
    let temp = TempDir::new("simulate-trace");
    let mut trace_args = replay_args.clone();
    trace_args.extend(["--trace-out".to_string(), temp.path().display().to_string()]);
    let saved = zoocheck(&trace_args);
    expect_code(&saved, by_seed.code, "the single walk with --trace-out");
    assert_eq!(without_timing(&saved), without_timing(&by_seed));
    let json_path = temp
        .path()
        .join("lock__guid_pause_expire__mutual_exclusion.json");
    let trace = read_json(&json_path);
    assert_eq!(trace["property"], "mutual_exclusion");
    assert_eq!(trace["verdict"], "violated");
    assert_eq!(
        trace["found_by"],
        format!(
            "simulate {PAUSE_EXPIRE} --max-depth 200 --seed {seed} --runs 1 --reproduce mutual_exclusion"
        )
    );
    assert_eq!(strings(&trace["steps"]), seed_steps);
    let by_trace = zoocheck(["replay".as_ref(), json_path.as_os_str()]);
    expect_code(&by_trace, 0, "replay of a simulated trace");
    assert_eq!(seed_steps.len(), mutex_steps_of(&by_seed));
    assert_eq!(
        by_trace.stdout,
        format!(
            "replayed {} steps of lock/guid_pause_expire: mutual_exclusion is violated again\n",
            seed_steps.len()
        )
    );

    // Both routes agree: the same property, violated, after the same steps.
    let seed_verdict = (
        seed_rows[0].property.clone(),
        seed_rows[0].actual.clone(),
        seed_steps.len(),
    );
    let replayed_steps: usize = by_trace
        .stdout
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let trace_verdict = (
        trace["property"].as_str().unwrap().to_string(),
        trace["verdict"].as_str().unwrap().to_string(),
        replayed_steps,
    );
    assert_eq!(seed_verdict, trace_verdict);

    // The long simulation writes the very same trace file.
    let temp_long = TempDir::new("simulate-trace-long");
    let mut long_trace_args = args.to_vec();
    long_trace_args.extend([
        "--trace-out".to_string(),
        temp_long.path().display().to_string(),
    ]);
    let long_saved = zoocheck(&long_trace_args);
    expect_code(
        &long_saved,
        first.code,
        "the long simulation with --trace-out",
    );
    assert_eq!(
        std::fs::read_to_string(
            temp_long
                .path()
                .join("lock__guid_pause_expire__mutual_exclusion.json")
        )
        .unwrap(),
        std::fs::read_to_string(&json_path).unwrap()
    );
}

#[test]
fn simulation_says_the_same_on_one_thread_or_two() {
    let run = |threads: &str, json: bool| {
        let mut args = vec![
            "simulate",
            "--runs",
            "400",
            "--seed",
            "3",
            "--threads",
            threads,
            PAUSE_EXPIRE,
            THREE_CLIENTS,
        ];
        if json {
            args.push("--json");
        }
        let run = zoocheck(&args);
        expect_code(&run, 0, &format!("{args:?}"));
        run
    };
    let (one, two) = (run("1", false), run("2", false));
    assert_eq!(without_timing(&one), without_timing(&two));
    assert!(!violations(&one).is_empty(), "{}", one.stdout);
    // The JSON too, traces and all, but for the seconds.
    let without_seconds = |run: &Run| -> Value {
        let mut json: Value = serde_json::from_str(&run.stdout).unwrap();
        for scenario in json.as_array_mut().unwrap() {
            scenario.as_object_mut().unwrap().remove("seconds");
        }
        json
    };
    let one = without_seconds(&run("1", true));
    assert_eq!(one, without_seconds(&run("2", true)));
    assert_eq!(one[0]["walks"], 400);
}

#[test]
fn fail_fast_stops_at_the_first_unexpected_walk_by_seed() {
    // The fixture expects mutual exclusion to hold; the walks break it.
    let run = |threads: &str, fail_fast: bool| {
        let mut args = vec![
            "simulate",
            "--runs",
            "1000",
            "--seed",
            "5",
            "--threads",
            threads,
            WRONG_EXPECT,
        ];
        if fail_fast {
            args.push("--fail-fast");
        }
        let run = zoocheck(&args);
        expect_code(&run, 1, &format!("{args:?}"));
        run
    };
    let all = run("2", false);
    let first = violations(&all)
        .into_iter()
        .find(|v| v.property == "mutual_exclusion")
        .expect("a walk violates mutual_exclusion")
        .seed;
    let stopped = run("1", true);
    assert_eq!(without_timing(&stopped), without_timing(&run("2", true)));
    let line = format!(
        "  (stopped at the first walk to find something unexpected, seed {first}: {} of 1000 walks taken)",
        first - 5 + 1
    );
    assert!(
        stopped.lines().contains(&line.as_str()),
        "{line}\n{}",
        stopped.stdout
    );
    assert!(!all.stdout.contains("(stopped at"), "{}", all.stdout);
    // The same counterexample, from the same walk, as without --fail-fast.
    let mutex = |run: &Run| {
        violations(run)
            .into_iter()
            .find(|v| v.property == "mutual_exclusion")
    };
    assert_eq!(mutex(&stopped), mutex(&all));
    // The walks counted are exactly those up to it.
    let upto = zoocheck([
        "simulate",
        "--runs",
        &(first - 5 + 1).to_string(),
        "--seed",
        "5",
        WRONG_EXPECT,
    ]);
    assert_eq!(
        rows(&upto, SIMULATE_HEADER)[0].count,
        rows(&stopped, SIMULATE_HEADER)[0].count
    );
}

// ---------------------------------------------------------------- list, explore

#[test]
fn every_variant_command_and_property_is_described() {
    for recipe in zoocheck::catalogue::all() {
        let described: Vec<&str> = recipe
            .docs()
            .variants
            .iter()
            .map(|(name, _)| *name)
            .collect();
        assert_eq!(
            described,
            recipe.variants(),
            "{}: variants described",
            recipe.name()
        );
        let described: Vec<&str> = recipe
            .docs()
            .commands
            .iter()
            .map(|(name, _)| *name)
            .collect();
        assert_eq!(
            described,
            recipe.commands(),
            "{}: commands described",
            recipe.name()
        );
        for declared in &recipe.properties() {
            assert!(
                !declared.meaning.is_empty() && declared.name != termination::TERMINATES,
                "{}: property {declared:?}",
                recipe.name()
            );
        }
        for script in recipe.docs().group {
            for command in *script {
                assert!(
                    recipe.commands().contains(command),
                    "{}: {command}",
                    recipe.name()
                );
            }
        }
    }
    // A property's name means the same, and is of the same kind, in every
    // recipe that has it.
    let mut declared: BTreeMap<&str, (Declared, &str)> = BTreeMap::new();
    for recipe in zoocheck::catalogue::all() {
        for property in recipe.properties() {
            let (first, by) = *declared
                .entry(property.name)
                .or_insert((property, recipe.name()));
            assert_eq!(
                property,
                first,
                "{}'s {} and {by}'s",
                recipe.name(),
                property.name
            );
        }
    }
}

#[test]
fn list_prints_each_recipe_with_meanings_the_fault_kinds_and_the_scenarios() {
    let run = zoocheck(["list"]);
    expect_code(&run, 0, "list");
    let lines = run.lines();
    let recipes = zoocheck::catalogue::all();
    // Every recipe has its scenarios, and every directory of scenarios is
    // a recipe's.
    let names: BTreeSet<&str> = recipes.iter().map(|recipe| recipe.name()).collect();
    assert_eq!(names.len(), recipes.len(), "two recipes of one name");
    let mut directories = BTreeSet::new();
    for entry in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios")).unwrap()
    {
        let path = entry.unwrap().path();
        if path.is_dir() {
            directories.insert(path.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    assert_eq!(
        names
            .iter()
            .map(|name| name.to_string())
            .collect::<BTreeSet<_>>(),
        directories
    );
    let lock = &recipes[0];
    let properties: Vec<&str> = lock
        .properties()
        .iter()
        .map(|declared| declared.name)
        .collect();
    assert_eq!(properties, LOCK_PROPERTIES[..6]);
    // Each recipe: its summary, then each variant, command and property on
    // a line of its own with what it means.
    let mut at = 0;
    for recipe in recipes {
        assert_eq!(
            lines[at],
            format!("{}: {}", recipe.name(), recipe.docs().summary)
        );
        assert_eq!(
            lines[at + 1],
            "  variants (the first is the reference; in brackets, the knobs it turns):"
        );
        at += 2;
        for (name, meaning) in recipe.docs().variants {
            let turned =
                recipe.preset(name).unwrap() != recipe.preset(recipe.docs().variants[0].0).unwrap();
            assert!(
                lines[at].starts_with(&format!("    {name} "))
                    && lines[at].contains(meaning)
                    && lines[at].ends_with(']') == turned,
                "{}",
                lines[at]
            );
            at += 1;
        }
        if !recipe.knobs().is_empty() {
            assert_eq!(
                lines[at],
                "  knobs ([knobs], or a [[client]]'s knobs; the reference's value first):"
            );
            at += 1;
            for knob in recipe.knobs() {
                assert!(
                    lines[at].starts_with(&format!("    {} ", knob.key)),
                    "{}",
                    lines[at]
                );
                at += 1;
                while lines[at].starts_with("      ") {
                    at += 1;
                }
            }
        }
        assert_eq!(lines[at], "  commands:");
        at += 1 + recipe.docs().commands.len();
        if !recipe.params().is_empty() {
            assert_eq!(lines[at], "  parameters ([params]):");
            at += 1;
            for (name, meaning) in recipe.params() {
                assert!(
                    lines[at].starts_with(&format!("    {name} ")) && lines[at].ends_with(meaning),
                    "{}",
                    lines[at]
                );
                at += 1;
            }
        }
        assert_eq!(lines[at], "  parts a fault can aim at ([[fault]] target):");
        at += 1;
        for (name, meaning) in recipe.parts() {
            assert!(
                lines[at].starts_with(&format!("    {name} ")) && lines[at].ends_with(meaning),
                "{}",
                lines[at]
            );
            at += 1;
        }
        if !recipe.phases().is_empty() {
            assert_eq!(lines[at], "  phases a fault can aim at ([[fault]] phase):");
            assert_eq!(lines[at + 1], format!("    {}", recipe.phases().join(", ")));
            at += 2;
        }
        assert_eq!(lines[at], "  properties:");
        at += 1;
        // The recipe's own properties (with their defaults), then every
        // recipe's `terminates`.
        let kinds = |declared: Declared| (declared.name, declared.kind(), declared.meaning);
        let every = ("terminates", "liveness", termination::DECLARED.meaning);
        for (name, kind, meaning) in recipe.properties().into_iter().map(kinds).chain([every]) {
            assert!(
                lines[at].starts_with(&format!("    {name} ({kind}) "))
                    && lines[at].ends_with(meaning),
                "{}",
                lines[at]
            );
            at += 1;
        }
        assert_eq!(lines[at], "");
        at += 1;
    }
    assert_eq!(lines[at], "fault kinds ([faults] budgets, 0 to 3 each):");
    let keys = zoocheck::faults::Kind::names()
        .into_iter()
        .chain(["expire_anytime"]);
    for (index, kind) in keys.enumerate() {
        assert!(
            lines[at + 1 + index].starts_with(&format!("  {kind} ")),
            "{}",
            lines[at + 1 + index]
        );
    }
    // The heading, each kind, `expire_anytime` and a blank line.
    at += zoocheck::faults::Kind::ALL.len() + 3;
    // The client libraries' profiles, then each setting with its values.
    assert_eq!(
        lines[at],
        "client libraries ([library] profile, or a [[client]]'s library; the first is the default):"
    );
    at += 1;
    use zoocheck::client::library::{Library, PROFILES};
    use zoocheck::knobs::Knobs as _;
    for (name, meaning, _) in PROFILES {
        assert!(
            lines[at].starts_with(&format!("  {name} ")) && lines[at].contains(meaning),
            "{}",
            lines[at]
        );
        at += 1;
    }
    assert_eq!(lines[at], "  settings ([library], over its profile):");
    at += 1;
    for knob in Library::KNOBS {
        assert!(
            lines[at].starts_with(&format!("  {} ", knob.key)),
            "{}",
            lines[at]
        );
        at += 1;
        let values = match knob.values.len() {
            2 if knob.values[0].0 == "true" => 1,
            count => count,
        };
        for line in &lines[at..at + values] {
            assert!(line.starts_with("                    "), "{line}");
        }
        at += values;
    }
    assert_eq!(lines[at], "");
    at += 1;

    let mut names: Vec<String> = Vec::new();
    for recipe in recipes {
        let Ok(dir) = std::fs::read_dir(manifest_dir().join("scenarios").join(recipe.name()))
        else {
            continue;
        };
        names.extend(
            dir.map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "toml"))
                .map(|p| {
                    format!(
                        "{}/{}",
                        recipe.name(),
                        p.file_stem().unwrap().to_string_lossy()
                    )
                }),
        );
    }
    names.sort();
    assert_eq!(
        lines[at],
        format!("{} scenarios under scenarios:", names.len())
    );
    let listed: Vec<&str> = lines[at + 1..]
        .iter()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(listed, names);
    // Descriptions start in one column, however long the names.
    let width = names.iter().map(String::len).max().unwrap();
    let two = lines
        .iter()
        .find(|l| l.starts_with("  lock/guid_2_clients "))
        .unwrap();
    assert_eq!(
        *two,
        format!(
            "  {:<width$}  Two clients take the lock in turn, no faults: the reference recipe keeps every promise.",
            "lock/guid_2_clients"
        )
    );

    // Another directory, one file, and one that does not exist.
    let run = zoocheck(["list", "scenarios/lock"]);
    expect_code(&run, 0, "list scenarios/lock");
    let locks = names
        .iter()
        .filter(|name| name.starts_with("lock/"))
        .count();
    assert!(run
        .stdout
        .contains(&format!("\n{locks} scenarios under scenarios/lock:\n")));
    let run = zoocheck(["list", TWO_CLIENTS]);
    expect_code(&run, 0, "list of one file");
    assert!(run
        .stdout
        .contains(&format!("\n1 scenario under {TWO_CLIENTS}:\n")));
    // A path that is not there is refused, unless it is a recipe's name,
    // which lists that recipe as --recipe does.
    let run = zoocheck(["list", "no_such_dir"]);
    expect_code(&run, 2, "list of a missing directory");
    assert!(
        run.stderr.starts_with(
            "zoocheck: no_such_dir: no such file or directory (a recipe is named with \
             --recipe, or alone: lock, "
        ),
        "{}",
        run.stderr
    );
    let by_name = zoocheck(["list", "barrier"]);
    expect_code(&by_name, 0, "list barrier");
    let by_flag = zoocheck(["list", "--recipe", "barrier"]);
    assert_eq!(by_name.stdout, by_flag.stdout);
    assert!(
        by_name.stdout.starts_with("barrier: "),
        "{}",
        by_name.stdout
    );
    // A directory with a bad scenario in it is a bad file.
    let run = zoocheck(["list", "tests/fixtures"]);
    expect_code(&run, 2, "list of a directory with a bad scenario");
    assert!(run.stderr.contains(MISSPELT), "{}", run.stderr);
}

#[test]
fn list_narrows_to_one_recipe_and_speaks_json() {
    let run = zoocheck(["list", "--recipe", "barrier"]);
    expect_code(&run, 0, "list --recipe barrier");
    let lines = run.lines();
    assert!(lines[0].starts_with("barrier: "), "{}", lines[0]);
    assert!(!run.stdout.contains("\nlock: "), "{}", run.stdout);
    assert!(!run.stdout.contains("fault kinds"), "{}", run.stdout);
    let listed: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("  barrier/"))
        .collect();
    assert!(!listed.is_empty());
    assert!(!run.stdout.contains("  lock/"), "{}", run.stdout);

    let run = zoocheck(["list", "--recipe", "barier"]);
    expect_code(&run, 2, "list --recipe barier");
    assert!(
        run.stderr
            .contains("unknown recipe \"barier\" (did you mean barrier?)"),
        "{}",
        run.stderr
    );

    let run = zoocheck(["list", "--json"]);
    expect_code(&run, 0, "list --json");
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("list --json is JSON");
    let recipes = json["recipes"].as_array().unwrap();
    assert_eq!(recipes.len(), zoocheck::catalogue::all().len());
    assert_eq!(recipes[0]["name"], "lock");
    assert_eq!(recipes[0]["variants"][0]["name"], "guid");
    assert_eq!(recipes[0]["properties"][0]["name"], "mutual_exclusion");
    assert_eq!(recipes[0]["properties"][0]["kind"], "always");
    let lock_properties = recipes[0]["properties"].as_array().unwrap();
    assert_eq!(lock_properties.len(), 7);
    assert_eq!(lock_properties[6]["name"], "terminates");
    assert_eq!(lock_properties[6]["kind"], "liveness");
    assert_eq!(
        recipes[0]["properties"][0]["meaning"],
        "at most one client believes it holds the lock"
    );
    assert_eq!(json["fault_kinds"].as_array().unwrap().len(), 9);
    let scenarios = json["scenarios"].as_array().unwrap();
    assert!(scenarios
        .iter()
        .any(|s| s["name"] == "lock/guid_2_clients" && s["recipe"] == "lock"));
}

#[test]
fn new_writes_a_scenario_that_loads_for_every_recipe() {
    let dir = TempDir::new("new");
    let scenarios = dir.path().join("scenarios");
    for recipe in zoocheck::catalogue::all() {
        let run = zoocheck([
            "new",
            recipe.name(),
            "first_question",
            "--dir",
            scenarios.to_str().unwrap(),
            "--description",
            "Does it \"hold\"?",
        ]);
        expect_code(&run, 0, "new");
        let file = scenarios.join(recipe.name()).join("first_question.toml");
        assert!(
            run.stdout
                .starts_with(&format!("wrote {}\n", file.display())),
            "{}",
            run.stdout
        );
        let text = std::fs::read_to_string(&file).unwrap();
        // Every variant, command, fault kind and property is in it, with its meaning.
        for (name, meaning) in recipe.docs().variants.iter().chain(recipe.docs().commands) {
            assert!(text.contains(&format!("#   {name} ")), "{name} in\n{text}");
            assert!(text.contains(meaning), "{meaning} in\n{text}");
        }
        for zoocheck::faults::Declaration {
            name: kind,
            meaning,
            ..
        } in &zoocheck::faults::DECLARATIONS
        {
            assert!(
                text.contains(&format!("\n{kind} ")) && text.contains(meaning),
                "{kind}"
            );
        }
        // Every property, and every recipe's `terminates` with its depth bound.
        for Declared { name, meaning, .. } in
            recipe.properties().iter().chain([&termination::DECLARED])
        {
            let line = text
                .lines()
                .find(|line| line.starts_with(&format!("{name} ")))
                .unwrap_or_else(|| panic!("{name} in [expect]:\n{text}"));
            assert!(line.ends_with(meaning), "{line}");
        }
        assert!(
            text.contains("\n[check]\n# depth_bound = 200    # "),
            "[check] in\n{text}"
        );
        // It loads as written: the scenario file is valid and its recipe
        // group runs.
        let scenario = zoocheck::scenario::Scenario::load(&file, &scenarios)
            .unwrap_or_else(|error| panic!("{error}\n{text}"));
        assert_eq!(scenario.name, format!("{}/first_question", recipe.name()));
        assert_eq!(scenario.description, "Does it \"hold\"?");
        // And never over a file.
        let again = zoocheck([
            "new",
            recipe.name(),
            "first_question",
            "--dir",
            scenarios.to_str().unwrap(),
        ]);
        expect_code(&again, 2, "new over an existing file");
        assert!(again.stderr.contains("already exists"), "{}", again.stderr);
        assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    }
    // The generated lock question checks, and its reference keeps its promises.
    let run = zoocheck([
        "check",
        scenarios.join("lock/first_question.toml").to_str().unwrap(),
    ]);
    expect_code(&run, 0, "check of a new lock scenario");

    let run = zoocheck(["new", "lok", "x", "--dir", scenarios.to_str().unwrap()]);
    expect_code(&run, 2, "new for an unknown recipe");
    assert!(
        run.stderr.contains("(did you mean lock?)"),
        "{}",
        run.stderr
    );
    for bad in ["", "Has Space", "../escape", "a/b"] {
        let run = zoocheck(["new", "lock", bad, "--dir", scenarios.to_str().unwrap()]);
        expect_code(&run, 2, "new with a bad name");
        assert!(
            run.stderr.contains("expected 1 to 80 lower case letters"),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn completions_are_printed_for_each_shell() {
    for shell in ["bash", "zsh", "fish"] {
        let run = zoocheck(["completions", shell]);
        expect_code(&run, 0, shell);
        for command in ["check", "simulate", "replay", "explore", "list", "new"] {
            assert!(run.stdout.contains(command), "{shell}: {command}");
        }
    }
    let run = zoocheck(["completions", "tcsh"]);
    expect_code(&run, 2, "an unknown shell");
}

#[test]
fn explore_on_a_taken_port_exits_2_without_panicking() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    let port = listener.local_addr().unwrap().port();
    let mut child = command(["explore", TWO_CLIENTS, "--port", &port.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start zoocheck explore");
    let deadline = Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            let _ = child.wait();
            panic!("zoocheck explore on a taken port {port} is still running");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        stderr.starts_with(&format!("zoocheck: 127.0.0.1:{port}: ")),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
    drop(listener);
}

/// The length of the mutual exclusion counterexample in a simulate table.
fn mutex_steps_of(run: &Run) -> usize {
    rows(run, SIMULATE_HEADER)[0]
        .steps
        .parse()
        .unwrap_or_else(|_| panic!("a length in {}", run.stdout))
}

// ---------------------------------------------------------------- search options

#[test]
fn bfs_and_threads_count_the_same_states_as_the_default() {
    let snap = snapshot(THREE_CLIENTS);
    let mut counts = Vec::new();
    for options in [
        &[][..],
        &["--bfs"][..],
        &["--threads", "2"][..],
        &["--bfs", "--threads", "2"][..],
    ] {
        let mut args = vec!["check"];
        args.extend_from_slice(options);
        args.push(THREE_CLIENTS);
        let run = zoocheck(&args);
        expect_code(&run, 0, &format!("{args:?}"));
        let rows = rows(&run, CHECK_HEADER);
        assert_eq!(rows.len(), 7);
        for row in &rows {
            assert_eq!(row.actual, snap.verdict(&row.property).1, "{args:?}");
            assert_eq!(row.count, rows[0].count);
        }
        counts.push((options, rows[0].count, rows[0].depth));
    }
    for (options, unique, _) in &counts {
        assert_eq!(*unique, snap.unique, "check {options:?} {THREE_CLIENTS}");
    }
    // One thread, depth first (the default): the deepest path is the pinned one.
    assert_eq!(counts[0].2, snap.max_depth);
    // Without reductions: the same verdicts over the snapshot's other count,
    // depth and breadth first.
    for options in [&["--reduce", "none"][..], &["--reduce=none", "--bfs"][..]] {
        let mut args = vec!["check"];
        args.extend_from_slice(options);
        args.push(THREE_CLIENTS);
        let run = zoocheck(&args);
        expect_code(&run, 0, &format!("{args:?}"));
        for row in rows(&run, CHECK_HEADER) {
            assert_eq!(row.actual, snap.verdict(&row.property).1, "{args:?}");
            assert_eq!(row.count, snap.exact_unique, "{args:?}");
        }
    }
}

#[test]
fn a_reduction_that_does_not_exist_is_named_with_those_that_do() {
    let output = command(["check", "--reduce", "counters,symetry", TWO_CLIENTS])
        .output()
        .expect("run zoocheck");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(output.stdout.is_empty());
    assert!(
        stderr.contains(
            "invalid value 'counters,symetry' for '--reduce <LIST>': no reduction \"symetry\": \
             expected all, none, or a comma-separated list of counters"
        ),
        "{stderr}"
    );
}

#[test]
fn a_search_cut_short_marks_its_verdicts_unproven() {
    let run = zoocheck(["check", "--max-depth", "3", TWO_CLIENTS]);
    let table = rows(&run, CHECK_HEADER);
    assert_eq!(table[0].depth, 3);
    assert_eq!(table[0].actual, "holds?");
    assert!(run.stdout.contains(
        "\n  (the search stopped at its depth limit (--max-depth): a `?` verdict is unproven)\n"
    ));
    // Nobody can have been woken in three steps: not found, which proves
    // nothing against the expectation.
    let waiter = table.iter().find(|r| r.property == "waiter_woken").unwrap();
    assert_eq!(
        (waiter.actual.as_str(), waiter.mark.as_str()),
        ("unreached?", "<- none found in the part searched")
    );
    // REGRESSION: an incomplete search exited as a proof (0) or as a refuted
    // expectation (1); it has its own code and summary.
    expect_code(&run, 3, "check --max-depth 3");
    assert!(
        run.stdout.ends_with("\n1 scenario: INCOMPLETE: no expectation contradicted, but 1 has unproven verdicts (marked ?)\n"),
        "{}",
        run.stdout
    );

    // A limit the search does not reach leaves it complete.
    let snap = snapshot(TWO_CLIENTS);
    let run = zoocheck([
        "check",
        "--max-depth",
        &(snap.max_depth + 1).to_string(),
        TWO_CLIENTS,
    ]);
    expect_code(&run, 0, "check with a depth limit beyond the space");
    let table = rows(&run, CHECK_HEADER);
    assert_eq!(table[0].actual, "holds");
    assert_eq!(table[0].count, snap.unique);
    assert!(!run.stdout.contains("search stopped"));
    assert!(run
        .stdout
        .ends_with("\n1 scenario: every expectation met\n"));
}

#[test]
fn a_timeout_that_is_not_a_duration_exits_2_without_panicking() {
    // REGRESSION: `--timeout` once went straight to `Duration::from_secs_f64`,
    // which panics (exit 101) on a negative, NaN, infinite or huge value; it
    // is bad usage (exit 2).
    for timeout in ["-1", "NaN", "inf", "1e30"] {
        let arg = format!("--timeout={timeout}");
        let output = command(["check", arg.as_str(), TWO_CLIENTS])
            .output()
            .expect("run zoocheck");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            !stderr.contains("panicked"),
            "check {arg} panicked:\n{stderr}"
        );
        assert_eq!(output.status.code(), Some(2), "check {arg}:\n{stderr}");
        assert!(output.stdout.is_empty(), "check {arg}: no table");
    }
    // A sensible timeout is accepted and, not reached, leaves the search complete.
    let run = zoocheck(["check", "--timeout", "60", TWO_CLIENTS]);
    expect_code(&run, 0, "check --timeout 60");
    assert!(!run.stdout.contains("search stopped"));
}

#[test]
fn a_search_stops_cleanly_at_its_memory_budget() {
    // REGRESSION: the search had no memory limit; a big enough question grew
    // until the allocator aborted it (exit 134) with no result at all.
    // Breadth first holds about a kilobyte a state: 100M stops it partway.
    // Without reductions, which would shrink it below the budget.
    let run = zoocheck([
        "check",
        "--bfs",
        "--reduce",
        "none",
        "--max-memory",
        "100M",
        "tests/fixtures/large_3_clients_disconnect.toml",
    ]);
    expect_code(&run, 3, "check --bfs --max-memory 100M");
    let table = rows(&run, CHECK_HEADER);
    assert!(
        table[0].count > 10_000,
        "stopped at the start: {}",
        table[0].count
    );
    assert!(table[0].count < 822_388, "the whole space was searched");
    assert_eq!(table[0].actual, "holds?");
    assert!(
        run.stdout.contains(
            "  (the search stopped at its memory budget (--max-memory) at "
        ) && run.stdout.contains(
            "unique states: a `?` verdict is unproven; to go further, give it more memory with \
             --max-memory, ask with fewer clients or faults, or walk the space with `zoocheck simulate`)"
        ),
        "{}",
        run.stdout
    );
    for size in ["0", "lots", "-1G"] {
        let run = zoocheck(["check", "--max-memory", size, TWO_CLIENTS]);
        expect_code(&run, 2, &format!("--max-memory {size}"));
    }
    // Limits of 0 meant none to stateright, yet were reported incomplete.
    for flag in ["--max-depth", "--max-states"] {
        let run = zoocheck(["check", flag, "0", TWO_CLIENTS]);
        expect_code(&run, 2, &format!("{flag} 0"));
        assert!(
            run.stderr.contains("expected a whole number from 1"),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn a_long_check_says_it_is_alive_away_from_a_terminal() {
    // REGRESSION: away from a terminal a check printed nothing until it
    // ended, so a CI log could not tell a long check from a hung one.
    // Without reductions, which make this check too short to report.
    let large = "tests/fixtures/large_3_clients_disconnect.toml";
    let output = command(["check", "--reduce", "none", large])
        .env("ZOOCHECK_PROGRESS_EVERY", "0.2")
        .output()
        .expect("run zoocheck");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|line| line.starts_with("zoocheck: large_3_clients_disconnect: "))
        .collect();
    assert!(!lines.is_empty(), "no progress line:\n{stderr}");
    for line in lines {
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(
            (words[3], words[5], words[6], words[7], words[10]),
            ("states,", "unique,", "deepest", "path", "states/s,"),
            "{line}"
        );
        assert!(line.ends_with(" s"), "{line}");
        assert!(
            line.contains("iB, ") || line.contains(" B, "),
            "memory in {line}"
        );
    }
}

#[test]
fn a_closed_pipe_ends_the_command_quietly() {
    // REGRESSION: printing into a closed pipe (`zoocheck check ... | head`)
    // once panicked; it now ends with the exit code a SIGPIPE would give.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_zoocheck"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "check",
            "scenarios/lock/guid_2_clients.toml",
            "scenarios/lock/guid_pause.toml",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(output.status.code(), Some(141));
}

#[test]
fn a_timeout_stops_even_a_single_threaded_search() {
    // REGRESSION: stateright 0.31 honours its timeout only when a worker asks
    // for more work, so a lone worker searched this whole space (seconds)
    // past a one-second limit. The world now stops enabling actions at the limit.
    // Without reductions: with symmetry the whole space takes about 0.4 s,
    // and the test would race the limit.
    let started = std::time::Instant::now();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_zoocheck"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "check",
            "--timeout",
            "0.5",
            "--reduce",
            "none",
            "tests/fixtures/large_3_clients_disconnect.toml",
        ])
        .output()
        .unwrap();
    let elapsed = started.elapsed();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(
            "(the search stopped at its time limit (--timeout): a `?` verdict is unproven)"
        ),
        "{stdout}"
    );
    assert_eq!(output.status.code(), Some(3), "{stdout}");
    assert!(stdout.contains("holds?"), "{stdout}");
    let unique: usize = stdout
        .lines()
        .find(|line| line.contains("mutual_exclusion"))
        .and_then(|line| line.split_whitespace().nth(4))
        .and_then(|field| field.parse().ok())
        .expect("a unique-state count");
    assert!(unique < 822_388, "the whole space was searched: {unique}");
    assert!(
        elapsed < std::time::Duration::from_secs(30),
        "took {elapsed:?}"
    );
}

#[test]
fn witness_prints_a_shortest_run_and_coverage_says_what_was_never_entered() {
    let wrap = "scenarios/lock/guid_sequence_wrap.toml";
    let run = zoocheck(["check", wrap, "--witness", "someone_acquired", "--coverage"]);
    expect_code(&run, 0, "check --witness --coverage");
    // waiter_woken is unreached there: the line under the rows says no client
    // ever watched a node.
    assert!(
        run.stdout.contains(
            "\n  unreached: waiter_woken; phases no client entered: Recovering, Watching, \
             WaitingForChildren, Suspended, Abandoning, Dead\n"
        ),
        "{}",
        run.stdout
    );
    assert!(run
        .stdout
        .contains("\n  phases entered: Idle, Creating, Listing, Held, Releasing\n"));
    // Its snapshot (which tests/scenarios.rs checks `pin` writes) names the
    // phases entered instead: a phase that the shared contender gains and
    // this variant never enters moves no snapshot of it.
    let snapshot = std::fs::read_to_string("snapshots/lock__guid_sequence_wrap.snap")
        .expect("the scenario's snapshot");
    assert!(
        snapshot.contains(
            "\nunreached: waiter_woken; phases entered: Idle, Creating, Listing, Held, Releasing\n"
        ),
        "{snapshot}"
    );
    assert!(!snapshot.contains("no client entered"), "{snapshot}");
    assert!(run.stdout.contains("\n  faults: none budgeted\n"));
    // The shortest witness: one client creates, lists and holds.
    assert!(
        run.stdout
            .contains("\n  witness of someone_acquired (5 steps):\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains(
        "\n       REACHED someone_acquired: some client acquired the lock (mutual exclusion is not vacuous)\n"
    ));
    // A violated always shows its counterexample; an unreached sometimes says so.
    let run = zoocheck([
        "check",
        PAUSE_EXPIRE,
        "--witness",
        "mutual_exclusion",
        "--witness",
        "herd_avoidance",
    ]);
    expect_code(&run, 0, "check --witness of a violation");
    assert!(run
        .stdout
        .contains("\n  counterexample to mutual_exclusion (12 steps):\n"));
    assert!(run
        .stdout
        .contains("\n  herd_avoidance: no run shows it (holds)\n"));
    // The JSON carries the coverage too.
    let run = zoocheck(["check", wrap, "--json"]);
    expect_code(&run, 0, "check --json");
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let phases = json[0]["coverage"]["phases"].as_array().unwrap();
    let entered = |name: &str| {
        phases
            .iter()
            .find(|phase| phase["name"] == name)
            .map(|phase| phase["covered"].as_bool().unwrap())
    };
    assert_eq!(entered("Held"), Some(true));
    assert_eq!(entered("Watching"), Some(false));
    assert_eq!(json[0]["coverage"]["faults"], serde_json::json!([]));
    // A property the scenario does not have is bad usage, before any search.
    let run = zoocheck(["check", TWO_CLIENTS, "--witness", "nope"]);
    expect_code(&run, 2, "--witness of an unknown property");
    assert!(run
        .stderr
        .contains("--witness \"nope\": not a property of lock/guid_2_clients"));
    assert_eq!(run.stdout, "");
}

/// A GET on the explorer at `port`, or `None` while it is not up yet.
fn explorer_get(port: u16, path: &str) -> Option<String> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    write!(stream, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    let (head, body) = response.split_once("\r\n\r\n")?;
    let status = head.lines().next()?;
    status.contains(" 200 ").then(|| body.to_string())
}

#[test]
fn explorer_shows_states_and_steps_as_traces_read() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a free port");
        listener.local_addr().unwrap().port()
    };
    let mut child = command(["explore", TWO_CLIENTS, "--port", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start zoocheck explore");
    let deadline = Instant::now() + Duration::from_secs(20);
    let initial = loop {
        if let Some(body) = explorer_get(port, "/.states") {
            break body;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("the explorer did not answer on port {port}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let states: serde_json::Value = serde_json::from_str(&initial).expect("JSON states");
    let state = states[0]["state"].as_str().expect("a state").to_string();
    // The steps from the first initial state (the explorer names a state by
    // the action indices that reach it).
    let steps = explorer_get(port, "/.states/0");
    child.kill().unwrap();
    let _ = child.wait();
    // The state pane: the tree and each client, no Rust.
    assert_eq!(
        state,
        "/lock\nc0: Idle; running, connected; no watches\nc1: Idle; running, connected; no watches\n",
        "{state}"
    );
    let steps: serde_json::Value = serde_json::from_str(&steps.expect("the next steps")).unwrap();
    let first = &steps[0];
    assert_eq!(first["action"], "c0 application: its next command");
    let outcome = first["outcome"].as_str().unwrap();
    assert!(
        outcome.starts_with(
            "c0 application: acquire; sends create /lock/c0-lock- (ephemeral sequential); now Creating lock-\n\n/lock\n"
        ),
        "{outcome}"
    );
    assert!(
        outcome
            .contains("in flight:\nc0 -> server: create /lock/c0-lock- (ephemeral sequential)\n"),
        "{outcome}"
    );
}

/// `zoocheck replay TRACE --zk 127.0.0.1:1`: nothing listens on port 1 of
/// the loopback.
fn replay_on_no_server(trace: &Path) -> Run {
    zoocheck([
        "replay".as_ref(),
        trace.as_os_str(),
        "--zk".as_ref(),
        "127.0.0.1:1".as_ref(),
    ])
}

#[test]
fn replay_on_a_server_that_is_not_there_says_so() {
    let (_temp, out) = pause_expire_traces("no_server");
    let trace = out.join("lock__guid_pause_expire__mutual_exclusion.json");
    let run = replay_on_no_server(&trace);
    expect_code(&run, 2, "replay --zk with no server");
    assert!(
        run.stderr
            .starts_with("zoocheck: --zk 127.0.0.1:1: cannot reach a ZooKeeper at 127.0.0.1:1: "),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");
}

#[test]
fn replay_on_a_server_refuses_a_loop_and_a_narrow_counter() {
    let temp = TempDir::new("zk_refusals");
    let out = temp.path().join("traces");
    let run = zoocheck([
        "check".as_ref(),
        "scenarios/lock/spin_holder_stays.toml".as_ref(),
        "--trace-out".as_ref(),
        out.as_os_str(),
    ]);
    expect_code(&run, 0, "check of a loop");
    let trace = out.join("lock__spin_holder_stays__terminates.json");
    let run = replay_on_no_server(&trace);
    expect_code(&run, 2, "replay --zk of a loop");
    assert!(
        run.stderr.ends_with(
            "lock__spin_holder_stays__terminates.json: --zk: a `terminates` counterexample is a \
             loop, which a replay on a real server cannot show to go on forever\n"
        ),
        "{}",
        run.stderr
    );

    // A 2-bit sequence counter is the model's, not a server's: refused
    // before any server is asked.
    let run = zoocheck([
        "check".as_ref(),
        "scenarios/lock/guid_sequence_overflow_2_clients.toml".as_ref(),
        "--trace-out".as_ref(),
        out.as_os_str(),
    ]);
    expect_code(&run, 0, "check of the counter overflow");
    let trace = out.join("lock__guid_sequence_overflow_2_clients__mutual_exclusion.json");
    let run = replay_on_no_server(&trace);
    expect_code(&run, 1, "replay --zk with a narrow counter");
    assert_eq!(
        run.stdout,
        "not confirmed: lock/guid_sequence_overflow_2_clients counts sequential names in 2 bits \
         (`store.sequence_bits`); a real server counts in 32\n"
    );
}

/// Every fault kind's key, in the registry's order, as serde lists a
/// `[faults]` table's fields: `` `crash`, `restart`, ... ``.
fn every_kind_quoted() -> String {
    let quoted = zoocheck::faults::Kind::names().map(|name| format!("`{name}`"));
    quoted.join(", ")
}

/// The words of the side-by-side row that starts with `name`.
fn row_words(stdout: &str, name: &str) -> Vec<String> {
    (stdout.lines())
        .find(|line| line.trim_start().starts_with(&format!("{name} ")))
        .unwrap_or_else(|| panic!("no row {name}:\n{stdout}"))
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// `check FILE --variants VARIANTS`, which must succeed, name `own` as the
/// file's variant, and count in its first column the unique states the
/// file's snapshot pins; its stdout.
fn side_by_side(file: &str, variants: &str, own: &str) -> String {
    let run = zoocheck(["check", file, "--variants", variants]);
    expect_code(&run, 0, file);
    let head = format!("side by side (its file's variant: {own})");
    assert!(run.stdout.contains(&head), "{}", run.stdout);
    let (recipe, name) = file
        .trim_start_matches("scenarios/")
        .trim_end_matches(".toml")
        .split_once('/')
        .unwrap();
    let snapshot = manifest_dir().join(format!("snapshots/{recipe}__{name}.snap"));
    let pinned = std::fs::read_to_string(snapshot).unwrap();
    let counts = row_words(&run.stdout, "unique");
    assert!(
        pinned.contains(&format!("\nstates: {} unique, ", counts[2])),
        "{}\n{pinned}",
        run.stdout
    );
    run.stdout
}

/// Every recipe's variants are knobs, as the lock's are: the reference with
/// a knob or two turned is the preset it makes (the file's own column, its
/// counts the snapshot's), and a setting no preset names runs beside them.
#[test]
fn every_recipes_variants_are_knobs_turned_beside_each_other() {
    let file = "scenarios/election/careless_resign_2_clients.toml";
    let own = "guid resigns=node_first";
    let stdout = side_by_side(
        file,
        &format!("{own}, guid, watch_all on_close=forget"),
        own,
    );
    assert_eq!(
        row_words(&stdout, "acknowledged_leader_is_smallest"),
        [
            "acknowledged_leader_is_smallest",
            "violated",
            "violated",
            "(10)",
            "holds",
            "holds"
        ]
    );
    // The shared lock's too: its herd is the reference with waits_on turned.
    let herd = "scenarios/shared_lock/herd_3_clients.toml";
    side_by_side(
        herd,
        "guid waits_on=children, guid",
        "guid waits_on=children",
    );
    // The revocable lock's: watch_only is the reference reading events only.
    side_by_side(
        "scenarios/revocable_lock/watch_only_revoke.toml",
        "guid reads=events_only, guid while_waiting=ignores fenced=true",
        "guid reads=events_only",
    );
    // The barrier's: loss_waits is two knobs turned, and either alone holds.
    let both = "reference on_loss=waits on_callback=node_events";
    let stdout = side_by_side(
        "scenarios/barrier/loss_waits_lose_reply.toml",
        &format!("{both}, reference on_loss=waits, reference on_callback=node_events"),
        both,
    );
    let waiters_proceed = row_words(&stdout, "waiters_proceed");
    assert_eq!(
        waiters_proceed[1..],
        ["violated", "violated", "(10)", "holds", "holds"]
    );
    // The queue's: exactly_once is two knobs turned, each closing one lost
    // reply; the priority queue's stale batch is its on_change turned.
    let stdout = side_by_side(
        "scenarios/queue/guid_lose_reply.toml",
        "guid, guid take_by=receipt, guid put_recovery=marker, exactly_once",
        "guid",
    );
    let once = row_words(&stdout, "consumed_once");
    let lost = row_words(&stdout, "no_item_lost");
    assert_eq!(once[3..], ["(23)", "violated", "(25)", "holds", "holds"]);
    assert_eq!(lost[3..], ["(15)", "holds", "violated", "(17)", "holds"]);
    let stdout = side_by_side(
        "scenarios/priority_queue/stale_batch_1_consumer.toml",
        "fresh on_change=relist, fresh, fresh on_change=ignore",
        "fresh on_change=relist",
    );
    let first = row_words(&stdout, "highest_priority_first");
    assert_eq!(
        first[2..],
        ["violated", "(17)", "holds", "violated", "(17)"]
    );
    // Configuration's and membership's: a preset is its knob turned.
    side_by_side(
        "scenarios/configuration/one_shot_2_writes.toml",
        "reference watches=first_read, reference",
        "reference watches=first_read",
    );
    side_by_side(
        "scenarios/membership/persistent_crash.toml",
        "reference nodes=persistent, reference",
        "reference nodes=persistent",
    );
    // The double barrier's, the semaphore's and the two-phase commit's, with
    // a setting no preset names: kazoo's semaphore counts under the lock.
    side_by_side(
        "scenarios/double_barrier/count_2_clients.toml",
        "seed leave=count_processes, seed leave=count_children",
        "seed leave=count_processes",
    );
    let stdout = side_by_side(
        "scenarios/semaphore/check_then_create_3_clients.toml",
        "reference locked=false order=count_then_create, reference order=count_then_create",
        "reference locked=false order=count_then_create",
    );
    let within = row_words(&stdout, "leases_within_limit");
    assert_eq!(within[2..], ["violated", "(15)", "holds"]);
    let stdout = side_by_side(
        "scenarios/two_phase_commit/reference_crash.toml",
        "reference, ephemeral_sites, reference site_nodes=own_ephemeral notified=coordinator",
        "reference",
    );
    let agreement = row_words(&stdout, "agreement");
    assert_eq!(agreement[2..], ["holds", "violated", "(29)", "holds"]);

    // An unknown value is refused, naming the knob and its values.
    let run = zoocheck(["check", file, "--variants", "guid resigns=never"]);
    expect_code(&run, 2, "an unknown value");
    assert!(
        run.stderr.contains("ack_first") && run.stderr.contains("node_first"),
        "{}",
        run.stderr
    );
}

/// A knob turned in a scenario, a preset of a presets file, and the same
/// question under several variants side by side: the flawed column breaks
/// what the file's own holds, a column's trace replays under its variant,
/// and a bad knob, value or presets file is refused naming the key.
#[test]
fn knobs_presets_and_variants_side_by_side() {
    let dir = TempDir::new("knobs");
    let scenarios = dir.path().join("scenarios").join("lock");
    std::fs::create_dir_all(&scenarios).unwrap();
    let lose_reply =
        std::fs::read_to_string(manifest_dir().join("scenarios/lock/guid_lose_reply.toml"))
            .unwrap();
    let file = scenarios.join("lose_reply.toml");
    std::fs::write(&file, &lose_reply).unwrap();
    std::fs::write(
        dir.path().join("scenarios").join("presets.toml"),
        "[lock.forgetful]\nmeaning = \"no GUID at all\"\nvariant = \"guid\"\nknobs = { guid = false }\n",
    )
    .unwrap();
    let file_arg = file.to_str().unwrap();
    let traces = dir.path().join("traces");

    // The reference holds, the preset (the reference with guid = false, as
    // no_guid is) orphans a node, and a knob turned on the command line runs.
    let run = zoocheck([
        "check",
        file_arg,
        "--variants",
        "guid, forgetful, guid waits_on=lowest",
        "--trace-out",
        traces.to_str().unwrap(),
    ]);
    expect_code(&run, 0, "side by side");
    let row = |name: &str| row_words(&run.stdout, name);
    assert!(run.stdout.contains("guid (file's)"), "{}", run.stdout);
    assert_eq!(
        row("no_orphan_no_deadlock"),
        [
            "no_orphan_no_deadlock",
            "holds",
            "holds",
            "violated",
            "(17)",
            "holds"
        ]
    );
    assert!(
        run.stdout
            .ends_with("1 scenario under 3 variants: every expectation met\n"),
        "{}",
        run.stdout
    );
    // Its counterexample names its variant, and replays under it.
    let trace = sorted_file_names(&traces)
        .into_iter()
        .find(|name| name.ends_with(".json"))
        .expect("a trace written");
    assert_eq!(
        trace,
        "lock__lose_reply__forgetful__no_orphan_no_deadlock.json"
    );
    let saved = read_json(&traces.join(&trace));
    assert_eq!(saved["variant"], "forgetful");
    let replayed = zoocheck(["replay", traces.join(&trace).to_str().unwrap()]);
    expect_code(&replayed, 0, "the column's trace replays");

    // simulate asks side by side too, and the command it prints to
    // reproduce a column's walk names that column's variant.
    let run = zoocheck([
        "simulate",
        file_arg,
        "--runs",
        "50",
        "--variants",
        "guid, no_guid",
    ]);
    expect_code(&run, 0, "simulate side by side");
    let again = (run.stdout.lines())
        .find_map(|line| line.trim().strip_prefix("zoocheck "))
        .unwrap_or_else(|| panic!("no command to reproduce:\n{}", run.stdout));
    assert!(again.contains(" --variants no_guid "), "{again}");
    let reproduced = zoocheck(again.split_whitespace());
    expect_code(&reproduced, 0, again);
    assert!(
        reproduced.stdout.contains("reproduced: the walk with seed"),
        "{}",
        reproduced.stdout
    );

    // A column is the file's own by its setting, not its name: `guid
    // guid=false` is judged against a file of `no_guid`.
    let no_guid = lose_reply.replace("variant = \"guid\"", "variant = \"no_guid\"");
    assert_ne!(no_guid, lose_reply);
    std::fs::write(&file, &no_guid).unwrap();
    let run = zoocheck(["check", file_arg, "--variants", "guid guid=false, guid"]);
    expect_code(
        &run,
        1,
        "the own column contradicts the file's expectations",
    );
    assert!(
        run.stdout.contains("guid guid=false (file's)"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("violated (17) !"), "{}", run.stdout);

    // The same with the variant in the file, through [knobs]: judged.
    let turned = lose_reply.replace("[expect]", "[knobs]\nguid = false\n\n[expect]");
    std::fs::write(&file, &turned).unwrap();
    let run = zoocheck(["check", file_arg]);
    expect_code(&run, 1, "guid = false orphans a node the file expects not");
    assert!(run.stdout.contains("NOT AS EXPECTED"), "{}", run.stdout);

    // A knob or a value the recipe does not have, one setting given twice
    // under two names, and a presets file that names a recipe zoocheck does
    // not have: each refused, naming the key.
    let refused = |args: &[&str], what: &str, says: &str| {
        let run = zoocheck(args);
        expect_code(&run, 2, what);
        assert!(run.stderr.contains(says), "{what}: {}", run.stderr);
    };
    let bad_value = lose_reply.replace("[expect]", "[knobs]\nwaits_on = \"lowst\"\n\n[expect]");
    std::fs::write(&file, bad_value).unwrap();
    refused(
        &["check", file_arg],
        "a bad knob value",
        "`knobs.waits_on`: knob `waits_on` has no value \"lowst\"; did you mean \"lowest\"? \
         expected one of next, lowest, children",
    );
    std::fs::write(&file, &lose_reply).unwrap();
    refused(
        &["check", file_arg, "--variants", "guid wait_on=lowest"],
        "a bad knob on the command line",
        "`--variants`: unknown knob \"wait_on\"",
    );
    refused(
        &["check", file_arg, "--variants", "no_guid, guid guid=false"],
        "one setting twice",
        "`--variants`: guid guid=false is no_guid again",
    );
    std::fs::write(
        dir.path().join("scenarios").join("presets.toml"),
        "[lokc.x]\nmeaning = \"\"\nvariant = \"guid\"\n",
    )
    .unwrap();
    refused(
        &["check", file_arg],
        "a presets file naming no recipe",
        "presets.toml: `lokc`: unknown recipe \"lokc\"",
    );
}

/// `--through`: the shortest counterexample that strikes a fault before its
/// violation, where the shortest of all strikes none; a fault aimed at a
/// phase; and the answer when no run goes through, with the usage errors.
#[test]
fn a_witness_through_a_fault_and_a_fault_aimed_at_a_phase() {
    let dir = TempDir::new("through");
    let careless = std::fs::read_to_string(
        manifest_dir().join("scenarios/lock/careless_cancel_acquire_timeout.toml"),
    )
    .unwrap();
    let file = dir.path().join("careless.toml");
    std::fs::write(
        &file,
        format!(
            "{careless}\n[faults]\npause = 1\n\n[[fault]]\nkind = \"lose_reply\"\nclient = 1\n"
        ),
    )
    .unwrap();
    let file_arg = file.to_str().unwrap();
    let witness = |through: &[&str]| {
        let mut args = vec!["check", file_arg, "--witness", "no_orphan_no_deadlock"];
        for fault in through {
            args.extend(["--through", fault]);
        }
        let run = zoocheck(args);
        expect_code(&run, 0, "a witness through");
        run.stdout
    };
    let faults = |stdout: &str| -> Vec<String> {
        (stdout.lines())
            .filter(|line| line.contains(". FAULT: "))
            .map(|line| line.split(". FAULT: ").nth(1).unwrap().to_string())
            .collect()
    };

    // The shortest of all orphans the node through the timeout alone.
    let plain = witness(&[]);
    assert!(
        plain.contains("counterexample to no_orphan_no_deadlock (13 steps):"),
        "{plain}"
    );
    assert_eq!(faults(&plain), Vec::<String>::new());

    // Through the lost reply: one step longer, and the reply is lost.
    let lost = witness(&["lose_reply"]);
    assert!(
        lost.contains("counterexample to no_orphan_no_deadlock through lose_reply (14 steps):"),
        "{lost}"
    );
    assert_eq!(
        faults(&lost),
        ["the server applies c1's create /lock/c1-lock- (ephemeral sequential) and the reply is lost with the connection [aimed at c1]"]
    );
    // The aimed fault by its target, and two faults at once.
    assert_eq!(faults(&witness(&["lose_reply@c1"])), faults(&lost));
    let both = witness(&["lose_reply@c1", "pause"]);
    assert!(both.contains("through lose_reply@c1 and pause ("), "{both}");
    let struck = faults(&both);
    assert_eq!(struck.len(), 2, "{both}");
    assert!(
        struck.iter().any(|fault| fault.contains("pauses")),
        "{both}"
    );

    // A kind the scenario does not budget: said, and the shortest of all shown.
    let none = witness(&["restart"]);
    assert!(
        none.contains("no counterexample to no_orphan_no_deadlock goes through restart: the scenario budgets no restart; the shortest of all follows"),
        "{none}"
    );
    assert!(
        none.contains("counterexample to no_orphan_no_deadlock (13 steps):"),
        "{none}"
    );

    // JSON says how each searched trace stands.
    let run = zoocheck([
        "check",
        file_arg,
        "--json",
        "--witness",
        "someone_acquired",
        "--through",
        "lose_reply",
        "--trace-out",
        dir.path().join("traces").to_str().unwrap(),
    ]);
    expect_code(&run, 0, "json through");
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    let through: Vec<(String, Value)> = (json[0]["properties"].as_array().unwrap().iter())
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["through"].clone(),
            )
        })
        .collect();
    let of = |name: &str| through.iter().find(|(n, _)| n == name).unwrap().1.clone();
    assert_eq!(of("no_orphan_no_deadlock"), "through");
    assert_eq!(of("someone_acquired"), "through");
    assert_eq!(of("mutual_exclusion"), Value::Null);

    // The report says so beside the path it shows.
    let report = dir.path().join("report");
    let run = zoocheck([
        "check",
        file_arg,
        "--witness",
        "no_orphan_no_deadlock",
        "--through",
        "lose_reply",
        "--report",
        report.to_str().unwrap(),
    ]);
    expect_code(&run, 0, "report through");
    let html = std::fs::read_to_string(report.join("index.html")).unwrap();
    assert!(
        html.contains(
            "no_orphan_no_deadlock violated in 14 steps</h3>\n<p class=\"remark\">through lose_reply: \
             the shortest path that strikes what it names before its discovery</p>"
        ),
        "{html}"
    );

    // A fault aimed at whoever is in a phase strikes only there.
    let phased = dir.path().join("phased.toml");
    std::fs::write(
        &phased,
        format!("{careless}\n[[fault]]\nkind = \"pause\"\nphase = \"Held\"\n"),
    )
    .unwrap();
    let run = zoocheck([
        "check",
        phased.to_str().unwrap(),
        "--witness",
        "no_orphan_no_deadlock",
        "--through",
        "pause@Held",
    ]);
    expect_code(&run, 0, "a phase-aimed fault");
    assert!(
        run.stdout.contains(" through pause@Held ("),
        "{}",
        run.stdout
    );
    assert_eq!(
        faults(&run.stdout),
        ["c0 pauses [aimed at a client in phase Held]"]
    );
    // c0 held the lock when it struck: its last phase before the fault.
    let lines: Vec<&str> = run.stdout.lines().collect();
    let fault = lines
        .iter()
        .position(|line| line.contains("FAULT"))
        .unwrap();
    let c0_was = (lines[..fault].iter().rev())
        .find(|line| line.contains(". c0 ") && line.contains("; now "))
        .unwrap();
    assert!(c0_was.contains("; now Held "), "{}", run.stdout);

    // The usage errors.
    let run = zoocheck([
        "check",
        file_arg,
        "--witness",
        "no_orphan_no_deadlock",
        "--through",
        "lose_reply@c0",
    ]);
    expect_code(&run, 2, "an aimed fault the scenario does not aim");
    assert!(
        run.stderr.contains("--through lose_reply@c0: the scenario aims no lose_reply at c0; expected one of lose_reply@c1"),
        "{}",
        run.stderr
    );
    let run = zoocheck(["check", file_arg, "--through", "lose_reply"]);
    expect_code(&run, 2, "--through with nothing to steer");
    assert!(
        run.stderr
            .contains("--through steers the runs --witness shows"),
        "{}",
        run.stderr
    );
    let run = zoocheck([
        "check",
        file_arg,
        "--witness",
        "no_orphan_no_deadlock",
        "--through",
        "lose_rep",
    ]);
    expect_code(&run, 2, "a misspelt kind");
    assert!(
        run.stderr.contains("did you mean \"lose_reply\"?"),
        "{}",
        run.stderr
    );
    let bad_phase = dir.path().join("bad_phase.toml");
    std::fs::write(
        &bad_phase,
        format!("{careless}\n[[fault]]\nkind = \"pause\"\nphase = \"held\"\n"),
    )
    .unwrap();
    let run = zoocheck(["check", bad_phase.to_str().unwrap()]);
    expect_code(&run, 2, "a misspelt phase");
    assert!(
        run.stderr.contains(
            "`fault[0].phase`: no phase of `lock` is called that: \"held\"; did you mean \"Held\"?"
        ),
        "{}",
        run.stderr
    );
    let both_aims = dir.path().join("both.toml");
    std::fs::write(
        &both_aims,
        format!("{careless}\n[[fault]]\nkind = \"pause\"\nclient = 1\nphase = \"Held\"\n"),
    )
    .unwrap();
    let run = zoocheck(["check", both_aims.to_str().unwrap()]);
    expect_code(&run, 2, "two aims");
    assert!(
        run.stderr
            .contains("`fault[0].phase`: given beside `client`"),
        "{}",
        run.stderr
    );
}

/// `pin` writes the snapshot `cargo test` reads (the scenarios test checks
/// every committed one is byte for byte what `pin` writes), says what
/// changed, refuses a scenario the test would fail on, and `--check` writes
/// nothing.
#[test]
fn pin_writes_the_snapshot_the_test_reads() {
    let dir = TempDir::new("pin");
    let scenarios = dir.path().join("scenarios").join("lock");
    std::fs::create_dir_all(&scenarios).unwrap();
    let original = "scenarios/lock/guid_lose_reply.toml";
    let text = std::fs::read_to_string(manifest_dir().join(original)).unwrap();
    let file = scenarios.join("lost.toml");
    std::fs::write(&file, &text).unwrap();
    let file_arg = file.to_str().unwrap();
    let snapshot = dir.path().join("snapshots").join("lock__lost.snap");

    let run = zoocheck(["pin", file_arg]);
    expect_code(&run, 0, "a new snapshot");
    assert_eq!(run.stdout, "lock/lost: snapshots/lock__lost.snap written\n");
    // The committed snapshot of the same question, but for its name and path.
    let committed =
        std::fs::read_to_string(manifest_dir().join("snapshots/lock__guid_lose_reply.snap"))
            .unwrap();
    assert_eq!(
        std::fs::read_to_string(&snapshot).unwrap(),
        committed
            .replace(
                "scenarios/lock/guid_lose_reply.toml",
                "scenarios/lock/lost.toml"
            )
            .replace("scenario: lock/guid_lose_reply", "scenario: lock/lost")
    );
    let run = zoocheck(["pin", file_arg, "--check"]);
    expect_code(&run, 0, "unchanged");
    assert_eq!(
        run.stdout,
        "lock/lost: snapshots/lock__lost.snap unchanged\n"
    );

    // A change that moves the counts: --check says so and writes nothing,
    // pin shows the lines it changes.
    let faster = text.replace("[faults]\nlose_reply = 1", "[faults]\nlose_reply = 2");
    assert_ne!(faster, text, "the scenario budgets one lost reply");
    std::fs::write(&file, &faster).unwrap();
    let run = zoocheck(["pin", file_arg, "--check"]);
    expect_code(&run, 1, "a snapshot that would change");
    // In order, as a hunk of a diff: the pinned lines of a place, then the
    // new ones.
    assert!(
        run.stdout.starts_with(
            "lock/lost: snapshots/lock__lost.snap would change:\n  - faults: lose_reply 1\n  \
             - states: "
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("\n  + faults: lose_reply 2\n  + states: 2326 unique, "),
        "{}",
        run.stdout
    );
    assert_eq!(
        std::fs::read_to_string(&snapshot)
            .unwrap()
            .matches("lose_reply 1")
            .count(),
        1
    );
    // What a failed `cargo test` leaves beside it goes once pin has written.
    let stale = dir.path().join("snapshots").join("lock__lost.snap.new");
    std::fs::write(&stale, "an older run").unwrap();
    let run = zoocheck(["pin", file_arg]);
    expect_code(&run, 0, "updated");
    assert!(
        run.stdout
            .ends_with("\n  removed the stale snapshots/lock__lost.snap.new\n"),
        "{}",
        run.stdout
    );
    assert!(!stale.exists());
    assert!(
        run.stdout.starts_with(
            "lock/lost: snapshots/lock__lost.snap updated:\n  - faults: lose_reply 1\n"
        ),
        "{}",
        run.stdout
    );
    assert!(std::fs::read_to_string(&snapshot)
        .unwrap()
        .contains("faults: lose_reply 2\n"));

    // A scenario the test would fail on is not pinned.
    let wrong = scenarios.join("wrong.toml");
    std::fs::write(
        &wrong,
        text.replace(
            "mutual_exclusion = \"holds\"",
            "mutual_exclusion = \"violated\"",
        ),
    )
    .unwrap();
    let run = zoocheck(["pin", wrong.to_str().unwrap()]);
    expect_code(&run, 1, "a failing scenario");
    assert!(
        run.stdout
            .starts_with("lock/wrong: NOT PINNED, the test would fail on it: mutual_exclusion"),
        "{}",
        run.stdout
    );
    assert!(!dir
        .path()
        .join("snapshots")
        .join("lock__wrong.snap")
        .exists());

    // A file outside any scenarios directory has no project to pin it in.
    let loose = dir.path().join("loose.toml");
    std::fs::write(&loose, &text).unwrap();
    let run = zoocheck(["pin", loose.to_str().unwrap()]);
    expect_code(&run, 2, "no scenarios directory");
    assert!(
        run.stderr.contains("not under a `scenarios` directory"),
        "{}",
        run.stderr
    );
}

/// A property with a default needs no `[expect]` line: the scenario is
/// judged against the recipe's default, shown as such; one without a
/// default must be stated.
#[test]
fn a_property_left_unstated_is_judged_against_its_default() {
    let dir = TempDir::new("defaults");
    let text =
        std::fs::read_to_string(manifest_dir().join("scenarios/lock/guid_2_clients.toml")).unwrap();
    let unstated = text.replace("someone_acquired = \"reached\"\n", "");
    assert_ne!(
        unstated, text,
        "the lock's scenario states someone_acquired"
    );
    let file = dir.path().join("unstated.toml");
    std::fs::write(&file, &unstated).unwrap();
    let run = zoocheck(["check", file.to_str().unwrap()]);
    expect_code(&run, 0, "a default met");
    let line = (run.stdout.lines())
        .find(|line| line.contains(" someone_acquired "))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(line.contains(" reached (default) reached "), "{line}");
    // The expected column is as wide as its widest entry: every row's actual
    // verdict starts under the header's.
    let column = |line: &str| line.find(" actual ").map(|at| at + 1);
    let header = (run.stdout.lines()).next().unwrap();
    let under = column(header).unwrap_or_else(|| panic!("{header}"));
    for row in run.stdout.lines().skip(1).take_while(|row| !row.is_empty()) {
        let actual = row[under..].split(' ').next().unwrap();
        assert!(
            ["holds", "reached", "violated", "unreached"].contains(&actual),
            "{header}\n{row}"
        );
        assert_eq!(&row[under - 1..under], " ", "{header}\n{row}");
    }
    let run = zoocheck(["check", file.to_str().unwrap(), "--json"]);
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    let properties = json[0]["properties"].as_array().unwrap();
    let by_default: Vec<&str> = (properties.iter())
        .filter(|p| p["expected_by_default"] == true)
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(by_default, ["someone_acquired"]);

    let stated_nowhere = text.replace("mutual_exclusion = \"holds\"\n", "");
    assert_ne!(stated_nowhere, text);
    std::fs::write(&file, &stated_nowhere).unwrap();
    let run = zoocheck(["check", file.to_str().unwrap()]);
    expect_code(&run, 2, "a property without a default, unstated");
    assert!(
        run.stderr.contains("`expect.mutual_exclusion`: missing; expected holds or violated (`mutual_exclusion` has no default in `lock`: every scenario states it)"),
        "{}",
        run.stderr
    );

    let run = zoocheck(["list", "--recipe", "lock"]);
    assert!(
        run.stdout
            .contains("    someone_acquired (sometimes, by default reached) "),
        "{}",
        run.stdout
    );
}
