//! The `zoocheck` command: ask a question of a recipe from the shell.
//!
//! Exit codes (the `EXIT CODES` text below is what `--help` prints):
//! 0 every expectation met and proven, 1 some expectation proven wrong (or the
//! model panicked, or a replay no longer reaches its verdict), 2 bad usage or
//! a bad file (the other files are still checked), 3 incomplete: nothing
//! contradicts an expectation, but a search stopped at a limit left some
//! verdict unproven.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use stateright::Model;
use zoocheck::diagram::BuildDiagram;
use zoocheck::faults::FaultBudget;
use zoocheck::properties::termination;
use zoocheck::recipe::Recipe;
use zoocheck::report::{Checked, Destination};
use zoocheck::scenario::{
    quoted, recipes, shorten, CheckOptions, Judgement, Limit, Outcome, Progress, RecipeInfo,
    Scenario, ScenarioError, Verdict, WorldTask,
};
use zoocheck::simulate::{SimulateOptions, SimulateTask, WalkProgress};
use zoocheck::trace::{self, Stop, TraceFile, TRACE_FORMAT};
use zoocheck::world::World;

const EXIT_CODES: &str = "\
EXIT CODES:
  0  every expectation met; for `check`, every verdict proven (the search saw
     every state); for `simulate`, no walk found anything unexpected (a
     simulation proves nothing: its verdicts are marked ?)
  1  some verdict contradicts its expectation, or the model failed (a panic
     in a recipe, the store or the client library: a trace of it is written),
     or a replay no longer reaches its verdict
  2  bad usage or a bad file (in a directory, the other files are still checked)
  3  incomplete: nothing contradicts an expectation, but the search stopped at
     a limit (--max-depth, --max-states, --timeout, --max-memory) and some
     verdict is unproven (marked ?)
When several apply, the lowest non-zero code wins.";

/// The exit code of an incomplete check.
const EXIT_INCOMPLETE: u8 = 3;

#[derive(Parser)]
#[command(
    name = "zoocheck",
    version,
    about = "Model-check ZooKeeper recipes under faults",
    after_help = EXIT_CODES
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check scenario files exhaustively (a directory means every scenario under it).
    ///
    /// The search runs depth first, keeping a fingerprint of each state; a
    /// violated property then gets a breadth-first search of its own for the
    /// shortest counterexample.
    #[command(after_help = EXIT_CODES)]
    Check {
        /// Scenario files, or directories of them: e.g. scenarios/lock/guid_2_clients.toml, scenarios/.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// Search breadth first (the same verdicts and counts; holds every
        /// state of a level in memory and gains nothing from threads).
        #[arg(long)]
        bfs: bool,
        /// Checker threads, 1 to 64, e.g. --threads 2 (counts stay exact; the
        /// deepest path may vary).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=64))]
        threads: u16,
        /// Check no path longer than this many steps (from 1), e.g. --max-depth 30.
        #[arg(long, value_parser = at_least_one)]
        max_depth: Option<usize>,
        /// Stop after about this many states (from 1), e.g. --max-states 1000000.
        #[arg(long, value_parser = at_least_one)]
        max_states: Option<usize>,
        /// Stop each scenario after this many seconds, e.g. --timeout 60.
        #[arg(long, value_parser = seconds)]
        timeout: Option<Duration>,
        /// Stop a search once the process holds this much memory, e.g. 512M or 8G;
        /// the default is half what the process may use (the machine's memory,
        /// or its container's limit), at most 8G.
        #[arg(long, value_parser = zoocheck::memory::parse_size)]
        max_memory: Option<u64>,
        /// Print the results as JSON on standard output.
        #[arg(long)]
        json: bool,
        /// Print the shortest run that shows PROPERTY under the table: a
        /// witness of a reached `sometimes`, a counterexample to a violated
        /// `always`. Repeatable, e.g. --witness waiter_woken.
        #[arg(long, value_name = "PROPERTY")]
        witness: Vec<String>,
        /// Print what each search covered: the recipe phases some client
        /// entered and those none did, and the budgeted faults injected.
        #[arg(long)]
        coverage: bool,
        /// Write each counterexample into this directory, e.g. --trace-out traces/:
        /// a JSON trace (for `zoocheck replay`) and a Markdown page with a Mermaid diagram.
        #[arg(long, value_name = "DIR")]
        trace_out: Option<PathBuf>,
        /// Write an HTML report in this directory, e.g. --report report/ (then report/index.html): the
        /// verdicts, and each counterexample's steps and sequence diagram.
        /// It loads nothing from elsewhere: it opens offline.
        #[arg(long, value_name = "DIR")]
        report: Option<PathBuf>,
    },
    /// Seeded random walks, for worlds too large to exhaust. They prove
    /// nothing: exit 0 means no walk found anything unexpected.
    ///
    /// The walks run on every core and are judged in seed order, so the
    /// results do not depend on the threads. A counterexample is shrunk
    /// (actions deleted, then shortcuts searched for) before it is shown or
    /// saved; the seed printed with it reproduces the walk that found it.
    #[command(after_help = EXIT_CODES)]
    Simulate {
        /// Scenario files, or directories of them: e.g. scenarios/lock/guid_pause_expire.toml.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// Walks per scenario, e.g. --runs 100000.
        #[arg(long, default_value_t = 1000)]
        runs: u64,
        /// Seed of the first walk; walk i uses SEED + i. E.g. --seed 7.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// The longest walk, in steps, e.g. --max-depth 400.
        #[arg(long, default_value_t = 200)]
        max_depth: usize,
        /// Threads walking at once, 1 to 64, e.g. --threads 2 (default: one per core). The
        /// results are the same for any number.
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=64))]
        threads: Option<u16>,
        /// Stop after the first walk, by seed, that finds something the
        /// scenario does not expect (or makes the model panic).
        #[arg(long)]
        fail_fast: bool,
        /// Judge only whether a walk finds this property (violates an
        /// `always`, reaches a `sometimes`): exit 0 if one does, 1 if none.
        /// E.g. --reproduce mutual_exclusion.
        #[arg(long, value_name = "PROPERTY")]
        reproduce: Option<String>,
        /// Print the results as JSON on standard output.
        #[arg(long)]
        json: bool,
        /// Write each walk's counterexample into this directory, e.g. --trace-out traces/.
        #[arg(long, value_name = "DIR")]
        trace_out: Option<PathBuf>,
    },
    /// Re-run a saved trace and confirm it reaches the same verdict.
    ///
    /// Example: `zoocheck replay traces/lock__guid_pause_expire__mutual_exclusion.json`.
    Replay {
        /// A trace file that `check --trace-out` or `simulate --trace-out` wrote.
        #[arg(value_name = "TRACE")]
        trace: PathBuf,
    },
    /// Browse one scenario's states in stateright's Explorer (on 127.0.0.1).
    ///
    /// Example: `zoocheck explore scenarios/lock/guid_2_clients.toml --port 3000`.
    Explore {
        /// One scenario file, e.g. scenarios/lock/guid_2_clients.toml.
        #[arg(value_name = "PATH")]
        path: PathBuf,
        /// The local port to serve on, e.g. --port 3000.
        #[arg(long, default_value_t = 3000)]
        port: u16,
    },
    /// The recipes (each variant, command and property with what it means),
    /// the fault kinds, and the scenarios found.
    ///
    /// Example: `zoocheck list --recipe lock`, `zoocheck list --json`.
    List {
        /// Where to look for scenarios: a directory or a scenario file.
        #[arg(default_value = "scenarios", value_name = "PATH")]
        path: PathBuf,
        /// Only this recipe and its scenarios (e.g. `lock`, `double_barrier`).
        #[arg(long, value_name = "RECIPE")]
        recipe: Option<String>,
        /// Print it as JSON on standard output.
        #[arg(long)]
        json: bool,
    },
    /// Write a new scenario file for a recipe, ready to edit: its variants,
    /// commands, fault kinds and every property listed with its meaning.
    ///
    /// Example: `zoocheck new lock holder_pauses` writes
    /// scenarios/lock/holder_pauses.toml.
    New {
        /// The recipe the question is about (`zoocheck list` names them), e.g. `lock`.
        recipe: String,
        /// The scenario's name: lower case letters, digits and `_`, e.g. `holder_pauses`.
        name: String,
        /// The scenarios directory the file goes under, in RECIPE/NAME.toml.
        #[arg(long, default_value = "scenarios", value_name = "DIR")]
        dir: PathBuf,
        /// The question, in a sentence (edit it in the file later if you like).
        #[arg(long, value_name = "TEXT")]
        description: Option<String>,
    },
    /// Print a shell completion script, e.g. `zoocheck completions bash >
    /// ~/.local/share/bash-completion/completions/zoocheck`.
    Completions {
        /// The shell: bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
}

/// `println!` that ends the process quietly when standard output is closed
/// (`zoocheck check ... | head`), with the exit code a SIGPIPE would give.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(error) = writeln!(std::io::stdout().lock(), $($arg)*) {
            if error.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(141);
            }
            panic!("cannot write to standard output: {error}");
        }
    }};
}

/// A failure that is the user's to fix: exit code 2.
struct UsageError(String);

impl<E: std::fmt::Display> From<E> for UsageError {
    fn from(error: E) -> UsageError {
        UsageError(error.to_string())
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check {
            paths,
            bfs,
            threads,
            max_depth,
            max_states,
            timeout,
            max_memory,
            json,
            witness,
            coverage,
            trace_out,
            report,
        } => {
            let options = CheckOptions {
                bfs,
                threads: usize::from(threads),
                max_depth,
                max_states,
                timeout,
                max_memory: Some(max_memory.unwrap_or_else(zoocheck::memory::default_budget)),
                progress: Some(show_progress as fn(&Progress)),
                witnesses: witness.clone(),
            };
            if zoocheck::memory::resident_bytes().is_none() {
                eprintln!("zoocheck: this system does not tell a process its memory: no memory budget is kept");
            }
            run(
                &paths,
                json,
                trace_out.as_deref(),
                report.as_deref(),
                Mode::Check {
                    witness: &witness,
                    coverage,
                },
                |scenario| {
                    set_progress_name(&scenario.name);
                    let outcome = scenario.check(&options);
                    finish_progress();
                    let bfs = if bfs { " --bfs" } else { "" };
                    (outcome, format!("check {}{bfs}", scenario.file.display()))
                },
            )
        }
        Command::Simulate {
            paths,
            runs,
            seed,
            max_depth,
            threads,
            fail_fast,
            reproduce,
            json,
            trace_out,
        } => {
            let threads = threads.map_or_else(
                || std::thread::available_parallelism().map_or(1, |cores| cores.get().min(64)),
                usize::from,
            );
            let options = SimulateOptions {
                runs,
                seed,
                max_depth,
                threads,
                fail_fast,
            };
            let mode = Mode::Simulate {
                options,
                reproduce: reproduce.as_deref(),
            };
            run(&paths, json, trace_out.as_deref(), None, mode, |scenario| {
                set_progress_name(&scenario.name);
                let outcome = scenario.with_world(SimulateTask {
                    options,
                    expect: &scenario.expect,
                    progress: Some(show_walks as fn(&WalkProgress)),
                });
                finish_progress();
                let command = format!(
                    "simulate {} --max-depth {max_depth}",
                    scenario.file.display()
                );
                (outcome, command)
            })
        }
        Command::Replay { trace } => replay(&trace),
        Command::Explore { path, port } => explore(&path, port),
        Command::List { path, recipe, json } => list(&path, recipe.as_deref(), json),
        Command::New {
            recipe,
            name,
            dir,
            description,
        } => new_scenario(&recipe, &name, &dir, description.as_deref()),
        Command::Completions { shell } => {
            let mut command = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut command, "zoocheck", &mut std::io::stdout());
            Ok(ExitCode::SUCCESS)
        }
    };
    match result {
        Ok(code) => code,
        Err(UsageError(message)) => {
            eprintln!("zoocheck: {message}");
            ExitCode::from(2)
        }
    }
}

/// A whole number from 1: a limit of 0 would mean none to stateright.
fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(value) if value >= 1 => Ok(value),
        _ => Err(format!(
            "{}: expected a whole number from 1",
            quoted(text, 40)
        )),
    }
}

/// A number of seconds, positive and finite (up to a year).
fn seconds(text: &str) -> Result<Duration, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("{} is not a number of seconds", quoted(text, 40)))?;
    if value.is_finite() && value > 0.0 && value <= 365.0 * 24.0 * 3600.0 {
        Ok(Duration::from_secs_f64(value))
    } else {
        Err(format!(
            "{}: expected a number of seconds above 0 and at most a year",
            shorten(text, 40)
        ))
    }
}

#[derive(Clone, Copy)]
enum Mode<'a> {
    Check {
        /// The properties `--witness` asks to see a shortest run of.
        witness: &'a [String],
        /// `--coverage`.
        coverage: bool,
    },
    Simulate {
        options: SimulateOptions,
        /// The one property `--reproduce` asks about.
        reproduce: Option<&'a str>,
    },
}

/// The scenarios named by `paths` (files, or directories searched for
/// `*.toml`), each named after its path below the nearest `scenarios`
/// directory, and the files refused (a bad file in a directory does not stop
/// the others). A path that does not exist is an error at once.
fn load(paths: &[PathBuf]) -> Result<(Vec<Scenario>, Vec<ScenarioError>), UsageError> {
    let mut scenarios = Vec::new();
    let mut refused = Vec::new();
    for path in paths {
        if !path.exists() {
            return Err(UsageError(format!(
                "{}: no such file or directory",
                shorten(&path.display().to_string(), 200)
            )));
        }
        let found = if path.is_dir() {
            let root = scenarios_root(&canonical(path));
            Scenario::load_each(path)?
                .into_iter()
                .map(|loaded| {
                    loaded.map(|mut scenario| {
                        scenario.name = name_below(&canonical(&scenario.file), &root);
                        scenario
                    })
                })
                .collect()
        } else {
            vec![load_file(path)]
        };
        if found.is_empty() {
            return Err(UsageError(format!(
                "{}: no scenario files (*.toml) here",
                path.display()
            )));
        }
        for loaded in found {
            match loaded {
                Ok(scenario) => scenarios.push(scenario),
                Err(error) => refused.push(error),
            }
        }
    }
    Ok((scenarios, refused))
}

/// One scenario file, named after its path below the nearest `scenarios`
/// directory, found on its canonical path: the same name however the path
/// was written (from inside `scenarios/lock`, `x.toml` is `lock/x`).
fn load_file(path: &Path) -> Result<Scenario, ScenarioError> {
    let file = canonical(path);
    let root = scenarios_root(&file);
    let mut scenario = Scenario::load(path, &root)?;
    scenario.name = name_below(&file, &root);
    Ok(scenario)
}

/// `path` made absolute, links resolved, where the system can; else as given.
fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The `scenarios` directory a path is in (its name is the path below it),
/// else the directory itself, or a file's directory.
fn scenarios_root(path: &Path) -> PathBuf {
    zoocheck::scenario::scenarios_dir(path)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| {
            if path.is_dir() {
                path.to_path_buf()
            } else {
                path.parent().unwrap_or(Path::new("")).to_path_buf()
            }
        })
}

fn name_below(file: &Path, root: &Path) -> String {
    file.strip_prefix(root)
        .unwrap_or(file)
        .with_extension("")
        .to_string_lossy()
        .replace('\\', "/")
}

#[derive(Serialize)]
struct JsonScenario<'a> {
    scenario: &'a str,
    file: &'a Path,
    mode: &'static str,
    /// The walks a simulation took.
    walks: Option<u64>,
    unique_states: usize,
    states: usize,
    /// The deepest path explored (or the longest walk), in steps.
    max_depth: usize,
    seconds: f64,
    complete: bool,
    /// The limit the search stopped at, if it did.
    stopped: Option<&'static str>,
    as_expected: bool,
    panic: Option<&'a str>,
    properties: Vec<JsonProperty>,
    /// A check's coverage: each recipe phase and budgeted fault kind with
    /// whether the search entered (injected) it.
    coverage: Option<JsonCoverage<'a>>,
}

#[derive(Serialize)]
struct JsonCoverage<'a> {
    phases: Vec<JsonCovered<'a>>,
    faults: Vec<JsonCovered<'a>>,
}

#[derive(Serialize)]
struct JsonCovered<'a> {
    name: &'a str,
    covered: bool,
}

#[derive(Serialize)]
struct JsonProperty {
    name: &'static str,
    expected: &'static str,
    actual: &'static str,
    proven: bool,
    as_expected: bool,
    seed: Option<u64>,
    /// The counterexample's length, for a violated property.
    steps: Option<usize>,
    /// Whether that counterexample is known to be a shortest one.
    shortest: Option<bool>,
    /// A simulation's counterexample: its walk's length before shrinking,
    /// and whether shrinking ended before its limit of steps.
    shrunk_from: Option<usize>,
    shrunk_complete: Option<bool>,
    trace: Option<Vec<String>>,
}

fn run(
    paths: &[PathBuf],
    json: bool,
    trace_out: Option<&Path>,
    report: Option<&Path>,
    mode: Mode,
    mut check: impl FnMut(&Scenario) -> (Outcome, String),
) -> Result<ExitCode, UsageError> {
    let (scenarios, refused) = load(paths)?;
    if scenarios.is_empty() {
        // Nothing to check: the errors are the whole answer.
        let mut refused = refused.into_iter();
        let first = refused.next().expect("load refuses or loads each file");
        for error in refused {
            eprintln!("zoocheck: {error}");
        }
        return Err(UsageError(first.to_string()));
    }
    if let Mode::Simulate {
        reproduce: Some(property),
        ..
    } = mode
    {
        for scenario in &scenarios {
            if !scenario.expect.iter().any(|(name, _)| *name == property) {
                let known: Vec<&str> = scenario.expect.iter().map(|(name, _)| *name).collect();
                return Err(UsageError(format!(
                    "--reproduce {}: not a property of {}; expected one of {}",
                    quoted(property, 60),
                    scenario.name,
                    known.join(", ")
                )));
            }
        }
    }
    if let Mode::Check { witness, .. } = mode {
        // A scenario without the property shows no run of it; a property no
        // scenario has is a typo.
        for property in witness {
            if !scenarios
                .iter()
                .any(|scenario| scenario.expect.iter().any(|(name, _)| name == property))
            {
                let known: Vec<&str> = scenarios[0].expect.iter().map(|(name, _)| *name).collect();
                return Err(UsageError(format!(
                    "--witness {}: not a property of {}; expected one of {}",
                    quoted(property, 60),
                    if scenarios.len() == 1 {
                        scenarios[0].name.clone()
                    } else {
                        "any scenario given".to_string()
                    },
                    known.join(", ")
                )));
            }
        }
    }
    for error in &refused {
        eprintln!("zoocheck: {error}");
    }
    let mut traces = TraceWriter::new(trace_out)?;
    // Checked before the search, which may be long, and written after it.
    let report = report.map(Destination::prepare).transpose()?;
    let mut judgements = Vec::new();
    let mut outcomes = Vec::new();
    let mut commands = Vec::new();
    let columns = Columns::fit(&scenarios);
    if !json {
        print_header(mode, columns);
    }
    for scenario in &scenarios {
        let (outcome, found_by) = check(scenario);
        judgements.push(outcome.judgement());
        traces.write(scenario, &outcome, &found_by)?;
        if !json {
            print_rows(scenario, &outcome, mode, columns);
        }
        outcomes.push(outcome);
        commands.push(found_by);
    }
    // `--reproduce`: only whether the walks found that one property counts.
    if let Mode::Simulate {
        reproduce: Some(property),
        ..
    } = mode
    {
        if !json {
            outln!("");
        }
        judgements = scenarios
            .iter()
            .zip(&outcomes)
            .map(|(scenario, outcome)| reproduced(scenario, outcome, property, json))
            .collect();
    }
    if json {
        let json_out: Vec<JsonScenario> = scenarios
            .iter()
            .zip(&outcomes)
            .map(|(scenario, outcome)| json_scenario(scenario, outcome, mode))
            .collect();
        outln!("{}", serde_json::to_string_pretty(&json_out)?);
    }
    let not_met = judgements
        .iter()
        .filter(|j| **j == Judgement::NotMet)
        .count();
    let unproven = judgements
        .iter()
        .filter(|j| **j == Judgement::Unproven)
        .count();
    let simulating = matches!(mode, Mode::Simulate { .. });
    let reproducing = matches!(
        mode,
        Mode::Simulate {
            reproduce: Some(_),
            ..
        }
    );
    let checked = plural(scenarios.len(), "scenario");
    let summary = if not_met > 0 {
        format!("{checked}: SOME EXPECTATIONS NOT MET")
    } else if simulating {
        format!("{checked}: no unexpected violation; a simulation proves nothing (verdicts marked ? are unproven)")
    } else if unproven > 0 {
        format!(
            "{checked}: INCOMPLETE: no expectation contradicted, but {unproven} {} unproven verdicts (marked ?)",
            if unproven == 1 { "has" } else { "have" }
        )
    } else {
        format!("{checked}: every expectation met")
    };
    if let Some(destination) = report {
        let checked: Vec<Checked> = scenarios
            .iter()
            .zip(&outcomes)
            .zip(&commands)
            .map(|((scenario, outcome), found_by)| Checked {
                scenario,
                outcome,
                found_by,
            })
            .collect();
        let refused: Vec<String> = refused.iter().map(|error| error.to_string()).collect();
        destination.write(&zoocheck::report::html(&checked, &summary, &refused))?;
        if destination.replaces {
            eprintln!("note: replacing {}", destination.index.display());
        }
        eprintln!("wrote {}", destination.index.display());
    }
    if !json && !reproducing {
        outln!("");
        outln!("{summary}");
        if !refused.is_empty() {
            outln!(
                "{} refused (see the errors above)",
                plural(refused.len(), "file")
            );
        }
    }
    Ok(if not_met > 0 {
        ExitCode::from(1)
    } else if !refused.is_empty() {
        ExitCode::from(2)
    } else if unproven > 0 && !simulating {
        ExitCode::from(EXIT_INCOMPLETE)
    } else {
        ExitCode::SUCCESS
    })
}

/// `--reproduce`: whether a walk found the one property asked about, said in
/// one line; only that counts.
fn reproduced(scenario: &Scenario, outcome: &Outcome, property: &str, json: bool) -> Judgement {
    let found = outcome
        .properties
        .iter()
        .find(|p| p.name == property)
        .expect("checked against the scenario's properties");
    let verb = match found.actual {
        Verdict::Violated | Verdict::Holds => "violates",
        Verdict::Reached | Verdict::Unreached => "reaches",
    };
    match (&found.trace, found.seed) {
        (Some(trace), Some(seed)) => {
            let expected = if found.as_expected() {
                "as the scenario expects"
            } else {
                "NOT as the scenario expects"
            };
            if !json {
                let steps = match found.shrunk {
                    Some(shrunk) => {
                        format!("{} steps, shrunk to {}", shrunk.from, trace.steps.len())
                    }
                    None => format!("{} steps", trace.steps.len()),
                };
                outln!(
                    "reproduced: the walk with seed {seed} {verb} {property} of {} in {steps} ({expected})",
                    scenario.name
                );
            }
            Judgement::Met
        }
        _ => {
            if !json {
                outln!(
                    "not reproduced: no walk {verb} {property} of {}",
                    scenario.name
                );
            }
            Judgement::NotMet
        }
    }
}

fn json_scenario<'a>(scenario: &'a Scenario, outcome: &'a Outcome, mode: Mode) -> JsonScenario<'a> {
    JsonScenario {
        scenario: &scenario.name,
        file: &scenario.file,
        mode: match mode {
            Mode::Check { .. } => "check",
            Mode::Simulate { .. } => "simulate",
        },
        walks: matches!(mode, Mode::Simulate { .. }).then_some(outcome.walks),
        unique_states: outcome.unique_states,
        states: outcome.states,
        max_depth: outcome.max_depth,
        seconds: outcome.elapsed.as_secs_f64(),
        complete: outcome.complete(),
        stopped: outcome.stopped.map(Limit::name),
        as_expected: outcome.as_expected(),
        panic: outcome.panic.as_ref().map(|panic| panic.message.as_str()),
        properties: outcome
            .properties
            .iter()
            .map(|p| {
                let violated = p.trace.as_ref().filter(|_| p.actual == Verdict::Violated);
                JsonProperty {
                    name: p.name,
                    expected: p.expected.name(),
                    actual: p.actual.name(),
                    proven: p.proven,
                    as_expected: p.as_expected(),
                    seed: p.seed,
                    steps: violated.map(|t| t.steps.len()),
                    shortest: violated.map(|t| t.shortest),
                    shrunk_from: p.shrunk.map(|shrunk| shrunk.from),
                    shrunk_complete: p.shrunk.map(|shrunk| shrunk.complete),
                    trace: violated.map(|t| t.steps.iter().map(|s| s.text.clone()).collect()),
                }
            })
            .collect(),
        coverage: outcome.coverage.as_ref().map(|coverage| {
            let covered = |items: &'a [(&'static str, bool)]| {
                items
                    .iter()
                    .map(|&(name, covered)| JsonCovered { name, covered })
                    .collect()
            };
            JsonCoverage {
                phases: covered(&coverage.phases),
                faults: covered(&coverage.faults),
            }
        }),
    }
}

/// The widths of the table's name columns: as wide as the longest scenario
/// and property names to be printed, so that long names keep it aligned.
#[derive(Clone, Copy)]
struct Columns {
    scenario: usize,
    property: usize,
}

impl Columns {
    fn fit(scenarios: &[Scenario]) -> Columns {
        let longest = |lengths: &mut dyn Iterator<Item = usize>, header: &str| {
            lengths.max().unwrap_or(0).max(header.len())
        };
        Columns {
            scenario: longest(&mut scenarios.iter().map(|s| s.name.len()), "scenario"),
            property: longest(
                &mut scenarios
                    .iter()
                    .flat_map(|s| s.expect.iter().map(|(name, _)| name.len())),
                "property",
            ),
        }
    }
}

fn print_header(mode: Mode, columns: Columns) {
    let Columns {
        scenario: sw,
        property: pw,
    } = columns;
    match mode {
        Mode::Check { .. } => outln!(
            "{:<sw$} {:<pw$} {:<9} {:<10} {:>10} {:>7} {:>5} {:>8} {:>10}",
            "scenario",
            "property",
            "expected",
            "actual",
            "unique",
            "deepest",
            "steps",
            "seconds",
            "states/s"
        ),
        Mode::Simulate { .. } => outln!(
            "{:<sw$} {:<pw$} {:<9} {:<10} {:>10} {:>7} {:>5} {:>8} {:>10}",
            "scenario",
            "property",
            "expected",
            "actual",
            "walked",
            "longest",
            "steps",
            "seconds",
            "steps/s"
        ),
    }
}

fn print_rows(scenario: &Scenario, outcome: &Outcome, mode: Mode, columns: Columns) {
    let Columns {
        scenario: sw,
        property: pw,
    } = columns;
    let seconds = outcome.elapsed.as_secs_f64();
    let counted = match mode {
        Mode::Check { .. } => outcome.unique_states,
        Mode::Simulate { .. } => outcome.states,
    };
    let rate = if seconds > 0.0 {
        counted as f64 / seconds
    } else {
        0.0
    };
    for property in &outcome.properties {
        let mark = match property.judgement() {
            Judgement::Met => "",
            Judgement::NotMet => "  <- NOT AS EXPECTED",
            Judgement::Unproven if property.as_expected() => "",
            Judgement::Unproven => "  <- none found in the part searched",
        };
        // The counterexample's length (a simulation's: where its walk found
        // it), starred where a check could not find the shortest.
        let steps = property
            .trace
            .as_ref()
            .filter(|_| property.actual == Verdict::Violated)
            .map_or("-".to_string(), |trace| {
                let star = if trace.shortest || !matches!(mode, Mode::Check { .. }) {
                    ""
                } else {
                    "*"
                };
                format!("{}{star}", trace.steps.len())
            });
        outln!(
            "{:<sw$} {:<pw$} {:<9} {:<10} {:>10} {:>7} {:>5} {:>8.2} {:>10.0}{mark}",
            scenario.name,
            property.name,
            property.expected.name(),
            property.shown(),
            counted,
            outcome.max_depth,
            steps,
            seconds,
            rate
        );
    }
    let unshortened = outcome.properties.iter().any(|property| {
        property.actual == Verdict::Violated
            && property.trace.as_ref().is_some_and(|trace| !trace.shortest)
    });
    if unshortened && matches!(mode, Mode::Check { .. }) {
        outln!("  (* a counterexample not known to be the shortest: the search for it stopped at a limit)");
    }
    if let Mode::Simulate { options, .. } = mode {
        for property in &outcome.properties {
            let (Some(trace), Some(seed)) = (&property.trace, property.seed) else {
                continue;
            };
            let what = match property.actual {
                Verdict::Violated => format!("counterexample to {}", property.name),
                _ if !property.as_expected() => format!(
                    "{} reached, which the scenario expects {}",
                    property.name,
                    property.expected.name()
                ),
                _ => continue,
            };
            outln!(
                "  {what} ({}; walk seed {seed}); reproduce the walk with:\n    zoocheck simulate {} --seed {seed} --runs 1 --max-depth {} --reproduce {}",
                shrunk_steps(trace, property.shrunk),
                scenario.file.display(),
                options.max_depth,
                property.name
            );
        }
        if outcome.walks < options.runs {
            outln!(
                "  (stopped at the first walk to find something unexpected, seed {}: {} of {} walks taken)",
                options.seed.wrapping_add(outcome.walks - 1),
                outcome.walks,
                options.runs
            );
        }
    }
    if let Mode::Check { witness, coverage } = mode {
        print_coverage(outcome, coverage);
        if let Some(note) = termination::note(outcome) {
            outln!("  {note}");
        }
        for name in witness {
            print_witness(outcome, name);
        }
    }
    if let Some(panic) = &outcome.panic {
        outln!(
            "  THE MODEL PANICKED in {}: {}",
            scenario.name,
            shorten(&panic.message, 500)
        );
        if let Some(trace) = &panic.trace {
            outln!(
                "  after {} steps (the trace file replays them)",
                trace.steps.len()
            );
        }
    }
    match (outcome.stopped, mode) {
        (Some(Limit::Memory), Mode::Check { .. }) => outln!(
            "  ({} at {} unique states: a `?` verdict is unproven; to go further, give it more memory with --max-memory, ask with fewer clients or faults, or walk the space with `zoocheck simulate`)",
            Limit::Memory.describe(),
            outcome.unique_states
        ),
        (Some(limit), Mode::Check { .. }) => outln!(
            "  ({}: a `?` verdict is unproven)",
            limit.describe()
        ),
        _ => {}
    }
}

/// Under a check's rows: why a `sometimes` went unreached (the phases no
/// client entered), and with `--coverage` everything the search covered.
fn print_coverage(outcome: &Outcome, all: bool) {
    if let Some(why) = zoocheck::scenario::unreached_why(outcome) {
        outln!("  {why}");
    }
    let Some(coverage) = outcome.coverage.as_ref().filter(|_| all) else {
        return;
    };
    let names = zoocheck::scenario::names_or_none;
    outln!(
        "  phases entered: {}",
        names(&coverage.phases_entered(true))
    );
    outln!(
        "  phases never entered: {}",
        names(&coverage.phases_entered(false))
    );
    if coverage.faults.is_empty() {
        outln!("  faults: none budgeted");
    } else {
        outln!(
            "  faults injected: {}",
            names(&coverage.faults_injected(true))
        );
        outln!(
            "  faults never injected: {}",
            names(&coverage.faults_injected(false))
        );
    }
}

/// `--witness NAME`: the shortest run that shows the property, or why none does.
fn print_witness(outcome: &Outcome, name: &str) {
    let Some(property) = outcome.properties.iter().find(|p| p.name == name) else {
        return;
    };
    match (&property.trace, property.actual) {
        (Some(trace), Verdict::Reached | Verdict::Violated) => {
            let what = if property.actual == Verdict::Reached {
                "witness of"
            } else {
                "counterexample to"
            };
            let shortest = if trace.shortest {
                ""
            } else {
                ", not known to be the shortest"
            };
            outln!("\n  {what} {name} ({} steps{shortest}):", trace.steps.len());
            for line in trace.to_string().lines() {
                outln!("  {line}");
            }
        }
        _ => outln!("  {name}: no run shows it ({})", property.shown()),
    }
}

/// A simulated counterexample's length, and its walk's before shrinking:
/// `12 steps, shrunk from 18`.
fn shrunk_steps(trace: &trace::Trace, shrunk: Option<zoocheck::shrink::Shrinking>) -> String {
    let steps = trace.steps.len();
    match shrunk {
        Some(shrunk) if shrunk.complete => format!("{steps} steps, shrunk from {}", shrunk.from),
        Some(shrunk) => format!(
            "{steps} steps, shrunk from {} until the limit of {} steps",
            shrunk.from, shrunk.steps
        ),
        None => format!("{steps} steps"),
    }
}

/// Writes traces, never one over another silently: two scenarios of the same
/// name from different roots, or a file left by another scenario, get a
/// numbered name instead.
struct TraceWriter<'a> {
    dir: Option<&'a Path>,
    written: Vec<PathBuf>,
}

impl<'a> TraceWriter<'a> {
    fn new(dir: Option<&'a Path>) -> Result<TraceWriter<'a>, UsageError> {
        if let Some(dir) = dir {
            std::fs::create_dir_all(dir)
                .map_err(|e| UsageError(format!("{}: {e}", dir.display())))?;
        }
        Ok(TraceWriter {
            dir,
            written: Vec::new(),
        })
    }

    fn write(
        &mut self,
        scenario: &Scenario,
        outcome: &Outcome,
        found_by: &str,
    ) -> Result<(), UsageError> {
        if let Some(panic) = &outcome.panic {
            // A panic's trace is written even unasked: it is how to reproduce it.
            if let Some(trace) = &panic.trace {
                let dir = self.dir.unwrap_or(Path::new("."));
                match self.write_json(dir, scenario, trace, "panicked", found_by, panic.seed) {
                    Ok(json_path) => eprintln!(
                        "wrote {}: it replays to the panic (`zoocheck replay {}`)",
                        json_path.display(),
                        json_path.display()
                    ),
                    // The panic is reported all the same; the other
                    // scenarios are still checked.
                    Err(UsageError(error)) => {
                        eprintln!("zoocheck: the panic's trace could not be written: {error}")
                    }
                }
            }
        }
        let Some(dir) = self.dir else {
            return Ok(());
        };
        for property in &outcome.properties {
            let (Verdict::Violated, Some(trace)) = (property.actual, &property.trace) else {
                continue;
            };
            let json_path =
                self.write_json(dir, scenario, trace, "violated", found_by, property.seed)?;
            let stem = json_path.with_extension("");
            let diagram = scenario
                .with_world(BuildDiagram {
                    actions: &trace.actions,
                })
                .mermaid();
            let md_path = stem.with_extension("md");
            let shrunk = property
                .shrunk
                .map(|shrunk| {
                    format!(
                        " (its walk took {} steps, shrunk to these {})",
                        shrunk.from,
                        trace.steps.len()
                    )
                })
                .unwrap_or_default();
            let markdown = format!(
                "# {}: {} violated\n\n{}\n\nFound by `zoocheck {}`{shrunk}; replay with `zoocheck replay {}`.\n\n```mermaid\n{diagram}```\n\n{}",
                scenario.name,
                property.name,
                scenario.description.trim(),
                found_by_seed(found_by, property.seed, property.name),
                json_path.display(),
                trace
            );
            std::fs::write(&md_path, markdown)
                .map_err(|e| UsageError(format!("{}: {e}", md_path.display())))?;
            eprintln!("wrote {} and {}", json_path.display(), md_path.display());
        }
        Ok(())
    }

    /// Writes `trace` of `scenario` as a trace file in `dir` (under a free
    /// name) and answers its path.
    fn write_json(
        &mut self,
        dir: &Path,
        scenario: &Scenario,
        trace: &trace::Trace,
        verdict: &str,
        found_by: &str,
        seed: Option<u64>,
    ) -> Result<PathBuf, UsageError> {
        let file = TraceFile::new(
            &scenario.name,
            trace::stored_path(&scenario.file),
            verdict,
            found_by_seed(found_by, seed, trace.property),
            trace,
        );
        let stem = self.free_stem(dir, &scenario.name, trace.property_file_name(), &file)?;
        let json_path = stem.with_extension("json");
        std::fs::write(&json_path, serde_json::to_string_pretty(&file)?)
            .map_err(|e| UsageError(format!("{}: {e}", json_path.display())))?;
        Ok(json_path)
    }

    /// `dir/<scenario>__<property>`, or with `-2`, `-3` ... where that name
    /// was written in this run or holds a trace of another scenario file.
    fn free_stem(
        &mut self,
        dir: &Path,
        scenario: &str,
        property: &str,
        file: &TraceFile,
    ) -> Result<PathBuf, UsageError> {
        let base = format!("{}__{}", scenario.replace('/', "__"), property);
        for n in 1..1000 {
            let name = if n == 1 {
                base.clone()
            } else {
                format!("{base}-{n}")
            };
            let stem = dir.join(name);
            let json_path = stem.with_extension("json");
            let taken = self.written.contains(&json_path)
                || (json_path.exists()
                    && zoocheck::scenario::read_text(&json_path)
                        .ok()
                        .and_then(|text| serde_json::from_str::<TraceFile>(&text).ok())
                        .is_none_or(|old| old.file != file.file || old.property != file.property));
            if !taken {
                if json_path.exists() {
                    // The same question's trace from an earlier run: say so.
                    eprintln!("note: replacing {}", json_path.display());
                }
                if n > 1 {
                    eprintln!(
                        "note: {} is taken by another scenario's trace; writing {} instead",
                        dir.join(&base).with_extension("json").display(),
                        json_path.display()
                    );
                }
                self.written.push(json_path);
                return Ok(stem);
            }
        }
        Err(UsageError(format!(
            "{}: a thousand traces named {base} already; clear it out",
            dir.display()
        )))
    }
}

/// The command that finds a trace again: for a simulation, its walk alone
/// by its seed, judged on the trace's property (a panic's walk needs none).
fn found_by_seed(found_by: &str, seed: Option<u64>, property: &str) -> String {
    match seed {
        Some(seed) if property == trace::PANIC => format!("{found_by} --seed {seed} --runs 1"),
        Some(seed) => format!("{found_by} --seed {seed} --runs 1 --reproduce {property}"),
        None => found_by.to_string(),
    }
}

/// Replays a saved trace against its scenario as the code stands now.
fn replay(path: &Path) -> Result<ExitCode, UsageError> {
    let shown = || shorten(&path.display().to_string(), 200);
    let text = zoocheck::scenario::read_text(path)
        .map_err(|message| UsageError(format!("{}: {message}", shown())))?;
    let saved: TraceFile = serde_json::from_str(&text).map_err(|e| {
        UsageError(format!(
            "{}: not a zoocheck trace: {}",
            shown(),
            shorten(&e.to_string(), 300)
        ))
    })?;
    let field = |key: &str, message: String| UsageError(format!("{}: `{key}`: {message}", shown()));
    if saved.format != TRACE_FORMAT {
        return Err(field(
            "format",
            format!(
                "{:?}; expected {TRACE_FORMAT:?}",
                shorten(&saved.format, 60)
            ),
        ));
    }
    let scenario_file = trace::resolve_stored_path(&saved.file, path).ok_or_else(|| {
        field(
            "file",
            format!(
                "{} is found neither beside the trace, nor in the current directory, nor above them",
                quoted(&saved.file.display().to_string(), 200)
            ),
        )
    })?;
    let scenario = load_file(&scenario_file)?;
    if saved.scenario != scenario.name {
        return Err(field(
            "scenario",
            format!(
                "{}, but {} is the scenario {}",
                quoted(&saved.scenario, 100),
                scenario_file.display(),
                scenario.name
            ),
        ));
    }
    if !(saved.found_by.starts_with("check ") || saved.found_by.starts_with("simulate ")) {
        return Err(field(
            "found_by",
            format!(
                "{}; expected the command that found it (`check ...` or `simulate ...`)",
                quoted(&saved.found_by, 100)
            ),
        ));
    }
    if saved.steps.len() != saved.actions.len() {
        return Err(field(
            "steps",
            format!(
                "{} steps for {} actions; expected one per action",
                saved.steps.len(),
                saved.actions.len()
            ),
        ));
    }
    if saved.property == termination::TERMINATES {
        return Ok(replay_termination(&scenario, &saved));
    }
    let panicked = saved.property == trace::PANIC;
    let always = if panicked {
        None
    } else {
        let kind = recipes()
            .into_iter()
            .find(|info| info.name == scenario.subject.recipe)
            .and_then(|info| {
                info.properties
                    .iter()
                    .find(|(name, _)| *name == saved.property)
                    .map(|(_, always)| *always)
            });
        let Some(always) = kind else {
            return Err(field(
                "property",
                format!(
                    "{} is not a property of {}",
                    quoted(&saved.property, 100),
                    scenario.name
                ),
            ));
        };
        Some(always)
    };
    let expected_verdict = match always {
        None => "panicked",
        Some(true) => "violated",
        Some(false) => "reached",
    };
    if saved.verdict != expected_verdict {
        let what = match always {
            None => "a trace of a panic".to_string(),
            Some(true) => format!("{} is an `always` property", saved.property),
            Some(false) => format!("{} is a `sometimes` property", saved.property),
        };
        return Err(field(
            "verdict",
            format!(
                "{}; {what}, so expected {expected_verdict:?}",
                quoted(&saved.verdict, 60)
            ),
        ));
    }
    let result = scenario.with_world(Replay { saved: &saved });
    for (index, now, then) in &result.changed {
        outln!("note: step {index} now reads: {now}\n      it was saved as:  {then}");
    }
    let steps = saved.actions.len();
    match result.stop {
        None if panicked => {
            outln!(
                "replayed all {steps} steps of {}, but it no longer panics",
                saved.scenario
            );
            Ok(ExitCode::from(1))
        }
        None if result.reached => {
            outln!(
                "replayed {steps} steps of {}: {} is {} again",
                saved.scenario,
                saved.property,
                saved.verdict
            );
            Ok(ExitCode::SUCCESS)
        }
        None => {
            outln!(
                "replayed all {steps} steps of {}, but {} is no longer {}",
                saved.scenario,
                saved.property,
                saved.verdict
            );
            Ok(ExitCode::from(1))
        }
        Some(Stop::Panicked { step, message, .. }) if panicked && step == steps => {
            outln!(
                "replayed {steps} steps of {}: the model panics again: {}",
                saved.scenario,
                shorten(&message, 500)
            );
            Ok(ExitCode::SUCCESS)
        }
        Some(Stop::Panicked {
            step,
            action,
            message,
        }) => {
            let at = match action {
                Some(action) => format!("at step {step} ({action:?})"),
                None => format!("listing what can happen after step {step}"),
            };
            outln!("the model panicked {at}: {}", shorten(&message, 500));
            Ok(ExitCode::from(1))
        }
        Some(Stop::Diverged { step, action }) => {
            let saved_text = saved.steps.get(step - 1).cloned().unwrap_or_default();
            outln!(
                "diverged at step {step}: {} is not possible there any more (it was: {})",
                shorten(&format!("{action:?}"), 200),
                shorten(&saved_text, 500)
            );
            Ok(ExitCode::from(1))
        }
    }
}

/// `replay` of a `terminates` counterexample: its loop must be there again.
fn replay_termination(scenario: &Scenario, saved: &TraceFile) -> ExitCode {
    let again = scenario.with_world(termination::ReplayTask {
        actions: &saved.actions,
        depth_bound: scenario.termination.depth_bound,
    });
    let steps = saved.actions.len();
    match again {
        Ok(verdict) => {
            outln!(
                "replayed {steps} steps of {}: {} is {} again\n  {verdict}",
                saved.scenario,
                saved.property,
                saved.verdict
            );
            ExitCode::SUCCESS
        }
        Err(why) => {
            outln!(
                "replayed {steps} steps of {}, but {} is no longer {}: {why}",
                saved.scenario,
                saved.property,
                saved.verdict
            );
            ExitCode::from(1)
        }
    }
}

struct Replay<'a> {
    saved: &'a TraceFile,
}

/// Where a saved trace's replay ended.
struct ReplayResult {
    /// Steps whose words now differ from the saved ones: (number, now, then).
    changed: Vec<(usize, String, String)>,
    /// Why it stopped before the end, if it did.
    stop: Option<Stop>,
    /// Whether its last state is again a discovery for its property.
    reached: bool,
}

impl WorldTask for Replay<'_> {
    type Output = ReplayResult;
    fn run<R: Recipe>(self, world: World<R>) -> ReplayResult {
        let replayed = trace::replay(&world, &self.saved.actions);
        let changed = replayed
            .steps
            .iter()
            .zip(&self.saved.steps)
            .enumerate()
            .filter(|(_, (now, then))| now.text != **then)
            .map(|(index, (now, then))| (index + 1, now.text.clone(), then.clone()))
            .collect();
        let reached = world
            .properties()
            .into_iter()
            .find(|p| p.name == self.saved.property)
            .is_some_and(|property| trace::discovered(&world, &property, replayed.last()));
        ReplayResult {
            changed,
            stop: replayed.stop,
            reached,
        }
    }
}

fn explore(path: &Path, port: u16) -> Result<ExitCode, UsageError> {
    let (scenarios, refused) = load(&[path.to_path_buf()])?;
    if let Some(error) = refused.into_iter().next() {
        return Err(UsageError(error.to_string()));
    }
    let scenario = scenarios
        .into_iter()
        .next()
        .expect("load answers at least one scenario");
    let address = format!("127.0.0.1:{port}");
    // stateright's explorer panics on a port it cannot bind: ask first.
    drop(std::net::TcpListener::bind(&address).map_err(|e| UsageError(format!("{address}: {e}")))?);
    eprintln!(
        "exploring {} at http://{address}/ (Ctrl-C to stop)",
        scenario.name
    );
    scenario.with_world(Explore { address });
    Ok(ExitCode::SUCCESS)
}

struct Explore {
    address: String,
}

impl WorldTask for Explore {
    type Output = ();
    fn run<R: Recipe>(self, world: World<R>) {
        // Serves until the process is stopped.
        world.checker().serve(self.address.as_str());
    }
}

fn list(path: &Path, only: Option<&str>, json: bool) -> Result<ExitCode, UsageError> {
    let mut recipes = recipes();
    if let Some(only) = only {
        if !recipes.iter().any(|recipe| recipe.name == only) {
            return Err(UsageError(unknown_recipe(only)));
        }
        recipes.retain(|recipe| recipe.name == only);
    }
    let (mut scenarios, refused) = if path.exists() {
        load(&[path.to_path_buf()])?
    } else {
        (Vec::new(), Vec::new())
    };
    if let Some(only) = only {
        scenarios.retain(|scenario| scenario.subject.recipe == only);
    }
    if json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&JsonList::new(&recipes, &scenarios))?
        );
    } else {
        print_list(&recipes, &scenarios, path, only.is_none());
    }
    for error in &refused {
        eprintln!("zoocheck: {error}");
    }
    Ok(if refused.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    })
}

fn print_list(recipes: &[RecipeInfo], scenarios: &[Scenario], path: &Path, faults: bool) {
    for recipe in recipes {
        let docs = &recipe.docs;
        outln!("{}: {}", recipe.name, docs.summary);
        let width = docs
            .variants
            .iter()
            .chain(docs.commands)
            .map(|(name, _)| name.len())
            .chain(recipe.properties.iter().map(|(name, _)| name.len() + 12))
            .max()
            .unwrap_or(0);
        outln!("  variants (the first is the reference):");
        for (name, meaning) in docs.variants {
            outln!("    {name:<width$}  {meaning}");
        }
        outln!("  commands:");
        for (name, meaning) in docs.commands {
            outln!("    {name:<width$}  {meaning}");
        }
        outln!("  properties:");
        // Every recipe's liveness property last (optional in [expect]).
        let every = (termination::TERMINATES, true);
        for (name, always) in recipe.properties.iter().chain([&every]) {
            let kind = if *always { "always" } else { "sometimes" };
            let named = format!("{name} ({kind})");
            let meaning = zoocheck::properties::meaning(name).unwrap_or("");
            outln!("    {named:<width$}  {meaning}");
        }
        outln!("");
    }
    if faults {
        outln!("fault kinds ([faults] budgets, 0 to 3 each):");
        for (kind, meaning) in FaultBudget::MEANINGS {
            outln!("  {kind:<14}  {meaning}");
        }
        outln!(
            "  {:<14}  a switch: expiry may hit a connected, running client",
            "expire_anytime"
        );
        outln!("");
    }
    if !path.exists() {
        outln!("scenarios: none ({} does not exist)", path.display());
        return;
    }
    outln!(
        "{} under {}:",
        plural(scenarios.len(), "scenario"),
        path.display()
    );
    let width = scenarios
        .iter()
        .map(|scenario| scenario.name.len())
        .max()
        .unwrap_or(0);
    for scenario in scenarios {
        let first_line = scenario.description.trim().lines().next().unwrap_or("");
        outln!("  {:<width$}  {first_line}", scenario.name);
    }
}

/// `1 scenario`, `2 scenarios`.
fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// The error for a recipe name that is not in the catalogue.
fn unknown_recipe(name: &str) -> String {
    let known: Vec<&str> = recipes().iter().map(|recipe| recipe.name).collect();
    let hint = zoocheck::scenario::did_you_mean(name, &known)
        .map(|name| format!(" (did you mean {name}?)"))
        .unwrap_or_default();
    format!(
        "unknown recipe {}{hint}; expected one of {}",
        quoted(name, 60),
        known.join(", ")
    )
}

/// `list --json`.
#[derive(Serialize)]
struct JsonList<'a> {
    recipes: Vec<JsonRecipe<'a>>,
    fault_kinds: Vec<JsonNamed<'a>>,
    scenarios: Vec<JsonListed<'a>>,
}

#[derive(Serialize)]
struct JsonRecipe<'a> {
    name: &'a str,
    summary: &'a str,
    variants: Vec<JsonNamed<'a>>,
    commands: Vec<JsonNamed<'a>>,
    properties: Vec<JsonListedProperty<'a>>,
}

#[derive(Serialize)]
struct JsonNamed<'a> {
    name: &'a str,
    meaning: &'a str,
}

#[derive(Serialize)]
struct JsonListedProperty<'a> {
    name: &'a str,
    /// `always` or `sometimes`.
    kind: &'a str,
    meaning: &'a str,
}

#[derive(Serialize)]
struct JsonListed<'a> {
    name: &'a str,
    file: &'a Path,
    recipe: &'a str,
    variant: &'a str,
    description: &'a str,
}

impl<'a> JsonList<'a> {
    fn new(recipes: &'a [RecipeInfo], scenarios: &'a [Scenario]) -> JsonList<'a> {
        let named = |pairs: &'a [(&'a str, &'a str)]| {
            pairs
                .iter()
                .map(|&(name, meaning)| JsonNamed { name, meaning })
                .collect()
        };
        JsonList {
            recipes: recipes
                .iter()
                .map(|recipe| JsonRecipe {
                    name: recipe.name,
                    summary: recipe.docs.summary,
                    variants: named(recipe.docs.variants),
                    commands: named(recipe.docs.commands),
                    properties: recipe
                        .properties
                        .iter()
                        .map(|&(name, always)| JsonListedProperty {
                            name,
                            kind: if always { "always" } else { "sometimes" },
                            meaning: zoocheck::properties::meaning(name).unwrap_or(""),
                        })
                        .collect(),
                })
                .collect(),
            fault_kinds: named(&FaultBudget::MEANINGS),
            scenarios: scenarios
                .iter()
                .map(|scenario| JsonListed {
                    name: &scenario.name,
                    file: &scenario.file,
                    recipe: scenario.subject.recipe,
                    variant: scenario.subject.variant,
                    description: scenario.description.trim(),
                })
                .collect(),
        }
    }
}

/// `zoocheck new RECIPE NAME`: writes DIR/RECIPE/NAME.toml, never over a file.
fn new_scenario(
    recipe: &str,
    name: &str,
    dir: &Path,
    description: Option<&str>,
) -> Result<ExitCode, UsageError> {
    let Some(info) = recipes().into_iter().find(|info| info.name == recipe) else {
        return Err(UsageError(unknown_recipe(recipe)));
    };
    let valid = !name.is_empty()
        && name.len() <= 80
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !valid {
        return Err(UsageError(format!(
            "scenario name {}: expected 1 to 80 lower case letters, digits and _ (like holder_pauses)",
            quoted(name, 60)
        )));
    }
    let file = dir.join(recipe).join(format!("{name}.toml"));
    if file.exists() || file.symlink_metadata().is_ok() {
        return Err(UsageError(format!(
            "{}: already exists; choose another name, or delete it first",
            file.display()
        )));
    }
    let description = description.unwrap_or("TODO: the question, in a sentence or two.");
    let text = zoocheck::template::scenario(&info, description);
    std::fs::create_dir_all(file.parent().expect("RECIPE/NAME.toml has a parent"))
        .map_err(|error| format!("{}: cannot create: {error}", dir.join(recipe).display()))?;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&file)
        .and_then(|mut out| std::io::Write::write_all(&mut out, text.as_bytes()))
        .map_err(|error| format!("{}: cannot write: {error}", file.display()))?;
    outln!("wrote {}", file.display());
    outln!("next: edit it (decide each [expect] verdict before checking), then");
    outln!("  zoocheck check {}", file.display());
    outln!("  cargo test --test scenarios -- {recipe}/{name}   # writes its snapshot for review");
    outln!("  cargo insta review                                # accept it");
    Ok(ExitCode::SUCCESS)
}

/// The spinner on standard error while a scenario runs, on a terminal.
static BAR: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// Away from a terminal (a CI log), a line every [`progress_every`] instead:
/// the scenario running and when the last line was printed.
static LINES: Mutex<(String, Option<Instant>)> = Mutex::new((String::new(), None));

/// How often a progress line is printed away from a terminal: five seconds,
/// or `ZOOCHECK_PROGRESS_EVERY` seconds.
fn progress_every() -> Duration {
    std::env::var("ZOOCHECK_PROGRESS_EVERY")
        .ok()
        .and_then(|text| seconds(&text).ok())
        .unwrap_or(Duration::from_secs(5))
}

fn set_progress_name(name: &str) {
    let mut lines = LINES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    *lines = (name.to_string(), Some(Instant::now()));
}

/// Shows `message` as the spinner's, or as a line when one is due; either
/// names the scenario running.
fn progress(message: String) {
    if std::io::stderr().is_terminal() {
        let name = LINES
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .0
            .clone();
        let message = format!("{name}: {message}");
        let mut bar = BAR.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let bar = bar.get_or_insert_with(|| {
            let bar = ProgressBar::new_spinner();
            bar.set_style(
                ProgressStyle::with_template("{spinner} {msg}").expect("a valid template"),
            );
            bar
        });
        bar.set_message(message);
        bar.tick();
        return;
    }
    let mut lines = LINES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let (name, last) = &mut *lines;
    if last.is_none_or(|last| last.elapsed() >= progress_every()) {
        eprintln!("zoocheck: {name}: {message}");
        *last = Some(Instant::now());
    }
}

fn show_progress(progress_now: &Progress) {
    let seconds = progress_now.elapsed.as_secs_f64().max(1e-9);
    let memory = progress_now
        .memory
        .map(|bytes| format!(", {}", zoocheck::memory::human(bytes)))
        .unwrap_or_default();
    progress(format!(
        "{} states, {} unique, deepest path {}, {:.0} states/s{memory}, {:.0} s",
        progress_now.states,
        progress_now.unique_states,
        progress_now.max_depth,
        progress_now.states as f64 / seconds,
        seconds
    ));
}

fn show_walks(walks: &WalkProgress) {
    if walks.walks % 100 != 0 {
        return;
    }
    let eta = walks
        .eta()
        .map(|left| format!(", about {} left", human_duration(left)))
        .unwrap_or_default();
    progress(format!(
        "{} of {} walks, {} steps, {:.0} steps/s{eta}",
        walks.walks,
        walks.runs,
        walks.steps,
        walks.steps as f64 / walks.elapsed.as_secs_f64().max(1e-9)
    ));
}

/// A time to wait, as a person says it: `40 s`, `12 min`, `3.5 h`.
fn human_duration(duration: Duration) -> String {
    let seconds = duration.as_secs_f64();
    if seconds < 120.0 {
        format!("{seconds:.0} s")
    } else if seconds < 7200.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        format!("{:.1} h", seconds / 3600.0)
    }
}

fn finish_progress() {
    let bar = BAR
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .take();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
}
