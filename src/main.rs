//! The `zoocheck` command: ask a question of a recipe from the shell.
//!
//! Exit codes: 0 every expectation met, 1 some expectation not met (or a
//! replay that no longer reaches its verdict), 2 bad usage or a bad file.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Duration;

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use stateright::Model;
use zoocheck::faults::FaultBudget;
use zoocheck::recipe::Recipe;
use zoocheck::scenario::{recipes, CheckOptions, Outcome, Progress, Scenario, Verdict, WorldTask};
use zoocheck::simulate::{SimulateOptions, SimulateTask};
use zoocheck::trace::{self, TraceFile, TRACE_FORMAT};
use zoocheck::world::World;

#[derive(Parser)]
#[command(
    name = "zoocheck",
    version,
    about = "Model-check ZooKeeper recipes under faults"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check scenario files exhaustively (a directory means every scenario under it).
    Check {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Search depth first (less memory; counterexamples are not the shortest).
        #[arg(long)]
        dfs: bool,
        /// Checker threads (counts stay exact; which counterexample is found may vary).
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Explore no deeper than this many steps.
        #[arg(long)]
        max_depth: Option<usize>,
        /// Stop after about this many states.
        #[arg(long)]
        max_states: Option<usize>,
        /// Stop each scenario after this many seconds.
        #[arg(long, value_parser = seconds)]
        timeout: Option<Duration>,
        /// Print the results as JSON on standard output.
        #[arg(long)]
        json: bool,
        /// Write each counterexample as a JSON trace and a Mermaid diagram here.
        #[arg(long)]
        trace_out: Option<PathBuf>,
    },
    /// Seeded random walks, for worlds too large to exhaust.
    Simulate {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Walks per scenario.
        #[arg(long, default_value_t = 1000)]
        runs: u64,
        /// Seed of the first walk; walk i uses SEED + i.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// The longest walk, in steps.
        #[arg(long, default_value_t = 200)]
        max_depth: usize,
        #[arg(long)]
        json: bool,
        #[arg(long)]
        trace_out: Option<PathBuf>,
    },
    /// Re-run a saved trace and confirm it reaches the same verdict.
    Replay { trace: PathBuf },
    /// Browse one scenario's states in stateright's Explorer (on 127.0.0.1).
    Explore {
        path: PathBuf,
        #[arg(long, default_value_t = 3000)]
        port: u16,
    },
    /// The recipes, their variants and properties, the fault kinds, and the scenarios found.
    List {
        #[arg(default_value = "scenarios")]
        path: PathBuf,
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
            dfs,
            threads,
            max_depth,
            max_states,
            timeout,
            json,
            trace_out,
        } => {
            let options = CheckOptions {
                dfs,
                threads,
                max_depth,
                max_states,
                timeout,
                progress: std::io::stderr()
                    .is_terminal()
                    .then_some(show_progress as fn(&Progress)),
            };
            run(
                &paths,
                json,
                trace_out.as_deref(),
                Mode::Check,
                |scenario| {
                    let outcome = scenario.check(&options);
                    finish_progress();
                    let dfs = if dfs { " --dfs" } else { "" };
                    (outcome, format!("check {}{dfs}", scenario.file.display()))
                },
            )
        }
        Command::Simulate {
            paths,
            runs,
            seed,
            max_depth,
            json,
            trace_out,
        } => {
            let options = SimulateOptions {
                runs,
                seed,
                max_depth,
            };
            run(
                &paths,
                json,
                trace_out.as_deref(),
                Mode::Simulate(options),
                |scenario| {
                    let outcome = scenario.with_world(SimulateTask {
                        options,
                        expect: &scenario.expect,
                        progress: std::io::stderr()
                            .is_terminal()
                            .then_some(show_walks as fn(u64, u64, Duration)),
                    });
                    finish_progress();
                    let command = format!(
                        "simulate {} --max-depth {max_depth}",
                        scenario.file.display()
                    );
                    (outcome, command)
                },
            )
        }
        Command::Replay { trace } => replay(&trace),
        Command::Explore { path, port } => explore(&path, port),
        Command::List { path } => list(&path),
    };
    match result {
        Ok(code) => code,
        Err(UsageError(message)) => {
            eprintln!("zoocheck: {message}");
            ExitCode::from(2)
        }
    }
}

/// A number of seconds, positive and finite (up to a year).
fn seconds(text: &str) -> Result<Duration, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if value.is_finite() && value > 0.0 && value <= 365.0 * 24.0 * 3600.0 {
        Ok(Duration::from_secs_f64(value))
    } else {
        Err(format!(
            "{text}: expected a number of seconds above 0 and at most a year"
        ))
    }
}

#[derive(Clone, Copy)]
enum Mode {
    Check,
    Simulate(SimulateOptions),
}

/// Loads the scenarios named by `paths` (files, or directories searched for
/// `*.toml`), each named after its path below the nearest `scenarios`
/// directory.
fn load(paths: &[PathBuf]) -> Result<Vec<Scenario>, UsageError> {
    let mut scenarios = Vec::new();
    for path in paths {
        if !path.exists() {
            return Err(UsageError(format!(
                "{}: no such file or directory",
                path.display()
            )));
        }
        let root = path
            .ancestors()
            .find(|ancestor| ancestor.file_name().is_some_and(|name| name == "scenarios"))
            .map(Path::to_path_buf)
            .unwrap_or_else(|| {
                if path.is_dir() {
                    path.clone()
                } else {
                    path.parent().unwrap_or(Path::new("")).to_path_buf()
                }
            });
        let mut found = if path.is_dir() {
            let mut all = Scenario::load_all(path)?;
            for scenario in &mut all {
                scenario.name = name_below(&scenario.file, &root);
            }
            all
        } else {
            vec![Scenario::load(path, &root)?]
        };
        if found.is_empty() {
            return Err(UsageError(format!(
                "{}: no scenario files (*.toml) here",
                path.display()
            )));
        }
        scenarios.append(&mut found);
    }
    Ok(scenarios)
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
    unique_states: usize,
    states: usize,
    max_depth: usize,
    seconds: f64,
    complete: bool,
    as_expected: bool,
    properties: Vec<JsonProperty>,
}

#[derive(Serialize)]
struct JsonProperty {
    name: &'static str,
    expected: &'static str,
    actual: &'static str,
    as_expected: bool,
    seed: Option<u64>,
    trace: Option<Vec<String>>,
}

fn run(
    paths: &[PathBuf],
    json: bool,
    trace_out: Option<&Path>,
    mode: Mode,
    mut check: impl FnMut(&Scenario) -> (Outcome, String),
) -> Result<ExitCode, UsageError> {
    let scenarios = load(paths)?;
    if let Some(dir) = trace_out {
        std::fs::create_dir_all(dir).map_err(|e| UsageError(format!("{}: {e}", dir.display())))?;
    }
    let mut all_met = true;
    let mut json_out = Vec::new();
    if !json {
        print_header(mode);
    }
    for scenario in &scenarios {
        let (outcome, found_by) = check(scenario);
        all_met &= outcome.as_expected();
        if let Some(dir) = trace_out {
            write_traces(dir, scenario, &outcome, &found_by)?;
        }
        if json {
            json_out.push(JsonScenario {
                scenario: &scenario.name,
                file: &scenario.file,
                mode: match mode {
                    Mode::Check => "check",
                    Mode::Simulate(_) => "simulate",
                },
                unique_states: outcome.unique_states,
                states: outcome.states,
                max_depth: outcome.max_depth,
                seconds: outcome.elapsed.as_secs_f64(),
                complete: outcome.complete,
                as_expected: outcome.as_expected(),
                properties: outcome
                    .properties
                    .iter()
                    .map(|p| JsonProperty {
                        name: p.name,
                        expected: p.expected.name(),
                        actual: p.actual.name(),
                        as_expected: p.as_expected(),
                        seed: p.seed,
                        trace: p
                            .trace
                            .as_ref()
                            .filter(|_| p.actual == Verdict::Violated)
                            .map(|t| t.steps.iter().map(|s| s.text.clone()).collect()),
                    })
                    .collect(),
            });
        } else {
            print_rows(scenario, &outcome, mode);
        }
    }
    if json {
        outln!("{}", serde_json::to_string_pretty(&json_out)?);
    } else {
        let verdict = if all_met {
            "every expectation met"
        } else {
            "SOME EXPECTATIONS NOT MET"
        };
        outln!("\n{} scenarios: {verdict}", scenarios.len());
    }
    Ok(if all_met {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn print_header(mode: Mode) {
    match mode {
        Mode::Check => outln!(
            "{:<34} {:<22} {:<9} {:<10} {:>10} {:>6} {:>8} {:>10}",
            "scenario",
            "property",
            "expected",
            "actual",
            "unique",
            "depth",
            "seconds",
            "states/s"
        ),
        Mode::Simulate(_) => outln!(
            "{:<34} {:<22} {:<9} {:<10} {:>10} {:>6} {:>8} {:>10}",
            "scenario",
            "property",
            "expected",
            "actual",
            "steps",
            "depth",
            "seconds",
            "steps/s"
        ),
    }
}

fn print_rows(scenario: &Scenario, outcome: &Outcome, mode: Mode) {
    let seconds = outcome.elapsed.as_secs_f64();
    let counted = match mode {
        Mode::Check => outcome.unique_states,
        Mode::Simulate(_) => outcome.states,
    };
    let rate = if seconds > 0.0 {
        counted as f64 / seconds
    } else {
        0.0
    };
    for property in &outcome.properties {
        let mut actual = property.actual.name().to_string();
        // A search cut short proves no "holds"; a simulation never does.
        if !outcome.complete && matches!(property.actual, Verdict::Holds | Verdict::Unreached) {
            actual.push('?');
        }
        let mark = if property.as_expected() {
            ""
        } else {
            "  <- NOT AS EXPECTED"
        };
        outln!(
            "{:<34} {:<22} {:<9} {:<10} {:>10} {:>6} {:>8.2} {:>10.0}{mark}",
            scenario.name,
            property.name,
            property.expected.name(),
            actual,
            counted,
            outcome.max_depth,
            seconds,
            rate
        );
    }
    if let Mode::Simulate(options) = mode {
        for property in &outcome.properties {
            if let (Verdict::Violated, Some(seed)) = (property.actual, property.seed) {
                outln!(
                    "  {} violated by the walk with seed {seed}; replay it with:\n    zoocheck simulate {} --seed {seed} --runs 1 --max-depth {}",
                    property.name,
                    scenario.file.display(),
                    options.max_depth
                );
            }
        }
    }
    if !outcome.complete && matches!(mode, Mode::Check) {
        outln!("  (search stopped at a limit: a `?` verdict is unproven)");
    }
}

fn write_traces(
    dir: &Path,
    scenario: &Scenario,
    outcome: &Outcome,
    found_by: &str,
) -> Result<(), UsageError> {
    for property in &outcome.properties {
        let (Verdict::Violated, Some(trace)) = (property.actual, &property.trace) else {
            continue;
        };
        let found_by = match property.seed {
            Some(seed) => format!("{found_by} --seed {seed} --runs 1"),
            None => found_by.to_string(),
        };
        let file = TraceFile::new(
            &scenario.name,
            scenario.file.clone(),
            "violated",
            found_by,
            trace,
        );
        let stem = dir.join(format!(
            "{}__{}",
            scenario.name.replace('/', "__"),
            property.name
        ));
        let json_path = stem.with_extension("json");
        std::fs::write(&json_path, serde_json::to_string_pretty(&file)?)
            .map_err(|e| UsageError(format!("{}: {e}", json_path.display())))?;
        let diagram = scenario.with_world(Diagram {
            actions: &trace.actions,
        });
        let md_path = stem.with_extension("md");
        let markdown = format!(
            "# {}: {} violated\n\n{}\n\nFound by `zoocheck {}`; replay with `zoocheck replay {}`.\n\n```mermaid\n{diagram}```\n\n{}",
            scenario.name,
            property.name,
            scenario.description.trim(),
            file.found_by,
            json_path.display(),
            trace
        );
        std::fs::write(&md_path, markdown)
            .map_err(|e| UsageError(format!("{}: {e}", md_path.display())))?;
        eprintln!("wrote {} and {}", json_path.display(), md_path.display());
    }
    Ok(())
}

struct Diagram<'a> {
    actions: &'a [zoocheck::world::Action],
}

impl WorldTask for Diagram<'_> {
    type Output = String;
    fn run<R: Recipe>(self, world: World<R>) -> String {
        trace::mermaid(&world, self.actions)
    }
}

/// Replays a saved trace against its scenario as the code stands now.
fn replay(path: &Path) -> Result<ExitCode, UsageError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError(format!("{}: {e}", path.display())))?;
    let saved: TraceFile = serde_json::from_str(&text)
        .map_err(|e| UsageError(format!("{}: not a zoocheck trace: {e}", path.display())))?;
    if saved.format != TRACE_FORMAT {
        return Err(UsageError(format!(
            "{}: `format`: {:?}; expected {TRACE_FORMAT:?}",
            path.display(),
            saved.format
        )));
    }
    let root = saved
        .file
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "scenarios"))
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let scenario = Scenario::load(&saved.file, &root)?;
    if !scenario
        .expect
        .iter()
        .any(|(name, _)| *name == saved.property)
    {
        return Err(UsageError(format!(
            "{}: `property`: {:?} is not a property of {}",
            path.display(),
            saved.property,
            scenario.name
        )));
    }
    let result = scenario.with_world(Replay { saved: &saved });
    match result {
        ReplayResult::Reached { steps, changed } => {
            for (index, now, then) in &changed {
                outln!("note: step {index} now reads: {now}\n      it was saved as:  {then}");
            }
            outln!(
                "replayed {steps} steps of {}: {} is {} again",
                saved.scenario,
                saved.property,
                saved.verdict
            );
            Ok(ExitCode::SUCCESS)
        }
        ReplayResult::Diverged {
            step,
            action,
            saved_text,
        } => {
            outln!(
                "diverged at step {step}: {action} is not possible there any more (it was: {saved_text})"
            );
            Ok(ExitCode::from(1))
        }
        ReplayResult::NotReached { steps } => {
            outln!(
                "replayed all {steps} steps of {}, but {} is no longer {}",
                saved.scenario,
                saved.property,
                saved.verdict
            );
            Ok(ExitCode::from(1))
        }
    }
}

struct Replay<'a> {
    saved: &'a TraceFile,
}

enum ReplayResult {
    Reached {
        steps: usize,
        changed: Vec<(usize, String, String)>,
    },
    Diverged {
        step: usize,
        action: String,
        saved_text: String,
    },
    NotReached {
        steps: usize,
    },
}

impl WorldTask for Replay<'_> {
    type Output = ReplayResult;
    fn run<R: Recipe>(self, world: World<R>) -> ReplayResult {
        let mut state = world.init_states().remove(0);
        let mut changed = Vec::new();
        let mut enabled = Vec::new();
        for (index, action) in self.saved.actions.iter().enumerate() {
            enabled.clear();
            world.actions(&state, &mut enabled);
            let saved_text = self.saved.steps.get(index).cloned().unwrap_or_default();
            let next = enabled
                .contains(action)
                .then(|| world.step(&state, action))
                .flatten();
            let Some(next) = next else {
                return ReplayResult::Diverged {
                    step: index + 1,
                    action: format!("{action:?}"),
                    saved_text,
                };
            };
            let now = trace::describe(&world, &state, action, &next);
            if now != saved_text {
                changed.push((index + 1, now, saved_text));
            }
            state = next;
        }
        let property = world
            .properties()
            .into_iter()
            .find(|p| p.name == self.saved.property)
            .expect("checked by the caller");
        if trace::discovered(&world, &property, &state) {
            ReplayResult::Reached {
                steps: self.saved.actions.len(),
                changed,
            }
        } else {
            ReplayResult::NotReached {
                steps: self.saved.actions.len(),
            }
        }
    }
}

fn explore(path: &Path, port: u16) -> Result<ExitCode, UsageError> {
    let scenario = load(&[path.to_path_buf()])?
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

fn list(path: &Path) -> Result<ExitCode, UsageError> {
    outln!("recipes:");
    for recipe in recipes() {
        outln!("  {}", recipe.name);
        outln!("    variants:   {}", recipe.variants.join(", "));
        outln!("    commands:   {}", recipe.commands.join(", "));
        let properties: Vec<String> = recipe
            .properties
            .iter()
            .map(|(name, always)| {
                format!("{name} ({})", if *always { "always" } else { "sometimes" })
            })
            .collect();
        outln!("    properties: {}", properties.join(", "));
    }
    let kinds: Vec<&str> = FaultBudget::default()
        .fields()
        .iter()
        .map(|(kind, _)| *kind)
        .collect();
    outln!(
        "fault kinds: {} (and the switch expire_anytime)",
        kinds.join(", ")
    );
    if path.exists() {
        let scenarios = load(&[path.to_path_buf()])?;
        outln!("scenarios under {} ({}):", path.display(), scenarios.len());
        for scenario in scenarios {
            let first_line = scenario.description.trim().lines().next().unwrap_or("");
            outln!("  {:<34} {first_line}", scenario.name);
        }
    } else {
        outln!("scenarios: none ({} does not exist)", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// The spinner on standard error while a scenario runs (on a terminal only).
static BAR: Mutex<Option<ProgressBar>> = Mutex::new(None);

fn spin(message: String) {
    let mut bar = BAR.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let bar = bar.get_or_insert_with(|| {
        let bar = ProgressBar::new_spinner();
        bar.set_style(ProgressStyle::with_template("{spinner} {msg}").expect("a valid template"));
        bar
    });
    bar.set_message(message);
    bar.tick();
}

fn show_progress(progress: &Progress) {
    let seconds = progress.elapsed.as_secs_f64().max(1e-9);
    spin(format!(
        "{} states, {} unique, depth {}, {:.0} states/s",
        progress.states,
        progress.unique_states,
        progress.max_depth,
        progress.states as f64 / seconds
    ));
}

fn show_walks(runs: u64, steps: u64, elapsed: Duration) {
    if runs % 100 == 0 {
        spin(format!(
            "{runs} walks, {steps} steps, {:.0} steps/s",
            steps as f64 / elapsed.as_secs_f64().max(1e-9)
        ));
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
