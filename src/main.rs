//! The `zoocheck` command: ask a question of a recipe from the shell.
//!
//! Exit codes (the `EXIT CODES` text below is what `--help` prints):
//! 0 every expectation met and proven, 1 some expectation proven wrong (or the
//! model panicked, or a replay no longer reaches its verdict), 2 bad usage or
//! a bad file (the other files are still checked), 3 incomplete: nothing
//! contradicts an expectation, but a search stopped at a limit left some
//! verdict unproven.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use zoocheck::check::{CheckOptions, Progress};
use zoocheck::reduce::Reductions;
use zoocheck::simulate::{SimulateOptions, WalkProgress};
use zoocheck::text::{quoted, shorten};

use cli::list::{list, new_scenario};
use cli::progress::{finish_progress, set_progress_name, show_progress, show_walks};
use cli::replay::{explore, replay};
use cli::run::{run, Asked, Mode};

const EXIT_CODES: &str = "\
EXIT CODES:
  0  every expectation met; for `check`, every verdict proven (the search saw
     every state) but where its scenario expects it unproven (`violated?`: a
     likely loop a search can show but not prove); for `simulate`, no walk
     found anything unexpected (a simulation proves nothing: its verdicts are
     marked ?)
  1  some verdict contradicts its expectation, or the model failed (a panic
     in a recipe, the store or the client library: a trace of it is written),
     or a replay no longer reaches its verdict
  2  bad usage or a bad file (in a directory, the other files are still checked)
  3  incomplete: nothing contradicts an expectation, but the search stopped at
     a limit (--max-depth, --max-states, --timeout, --max-memory, a depth
     bound) and some verdict its scenario expects proven is unproven (marked ?)
When several apply, the lowest non-zero code wins.";

/// The exit code of an incomplete check.
pub(crate) const EXIT_INCOMPLETE: u8 = 3;

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
        /// Search breadth first, with stateright's checker (holds every
        /// state of a level in memory and gains nothing from threads; it does
        /// not go on from a state that violates every always property and
        /// meets every sometimes one, so its counts can be smaller).
        #[arg(long)]
        bfs: bool,
        /// The reductions the search makes: all (the default), none, or a
        /// comma-separated list (counters, symmetry, partial-order). The verdicts are the
        /// same either way; without them the search stores more states.
        #[arg(long, value_name = "LIST", default_value = "all")]
        reduce: zoocheck::reduce::Reductions,
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
        /// Ask each scenario once per variant, side by side, in place of its
        /// file's variants and knobs (every client's): a comma-separated list,
        /// each a variant's name (the recipe's, or a presets file's) and knobs
        /// turned, e.g. --variants 'guid, no_guid, guid waits_on=lowest'. The
        /// file's expectations judge only its own variant's column.
        #[arg(long, value_name = "LIST")]
        variants: Option<String>,
        /// Print the results as JSON on standard output.
        #[arg(long)]
        json: bool,
        /// Print the shortest run that shows PROPERTY under the table: a
        /// witness of a reached `sometimes`, a counterexample to a violated
        /// `always`. Repeatable, e.g. --witness waiter_woken.
        #[arg(long, value_name = "PROPERTY")]
        witness: Vec<String>,
        /// Show (with --witness, and write with --trace-out) the shortest
        /// counterexample or witness that strikes this fault before its
        /// discovery, or say that none does: a fault kind at any client or
        /// aimed (e.g. --through lose_reply), or one the scenario aims, by its
        /// target (e.g. --through pause@holder, pause@c1, pause@Held).
        /// Repeatable: through them all.
        #[arg(long, value_name = "FAULT", value_parser = |text: &str| text.parse::<zoocheck::check::Through>())]
        through: Vec<zoocheck::check::Through>,
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
        /// Ask each scenario once per variant, side by side, in place of its
        /// file's variants and knobs (every client's): a comma-separated list,
        /// each a variant's name (the recipe's, or a presets file's) and knobs
        /// turned, e.g. --variants 'guid, no_guid, guid waits_on=lowest'. The
        /// file's expectations judge only its own variant's column.
        #[arg(long, value_name = "LIST")]
        variants: Option<String>,
        /// Print the results as JSON on standard output.
        #[arg(long)]
        json: bool,
        /// Write each walk's counterexample into this directory, e.g. --trace-out traces/.
        #[arg(long, value_name = "DIR")]
        trace_out: Option<PathBuf>,
    },
    /// Re-run a saved trace and confirm it reaches the same verdict; with
    /// --zk, also on a real ZooKeeper.
    ///
    /// Example: `zoocheck replay traces/lock__guid_pause_expire__mutual_exclusion.json`.
    Replay {
        /// A trace file that `check --trace-out` or `simulate --trace-out` wrote.
        #[arg(value_name = "TRACE")]
        trace: PathBuf,
        /// Do every step's server transitions on the real ZooKeeper at
        /// HOST:PORT too, and compare its replies and watch events with the
        /// model's, step by step. E.g. --zk 127.0.0.1:2181.
        #[arg(long, value_name = "HOST:PORT")]
        zk: Option<String>,
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
        /// Where to look for scenarios: a directory or a scenario file; or a
        /// recipe's name, as `--recipe` names it (`zoocheck list lock`).
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
    /// Check each scenario as `cargo test` does and write its snapshot, the
    /// very file the test reads (snapshots/NAME.snap beside the project's
    /// scenarios/), printing the lines that change: a new question is pinned
    /// without building the test profile. A scenario the test would fail on
    /// (an expectation not met) is not pinned (exit 1).
    ///
    /// Example: `zoocheck pin scenarios/lock/holder_pauses.toml`.
    Pin {
        /// Scenario files, or directories of them.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// Write nothing: exit 1 if a snapshot is missing or would change.
        #[arg(long)]
        check: bool,
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

mod cli;

/// A failure that is the user's to fix: exit code 2.
pub(crate) struct UsageError(String);

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
            reduce,
            threads,
            max_depth,
            max_states,
            timeout,
            max_memory,
            json,
            witness,
            through,
            coverage,
            trace_out,
            report,
            variants,
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
                reductions: reduce,
                through: through.clone(),
            };
            if zoocheck::memory::resident_bytes().is_none() {
                eprintln!("zoocheck: this system does not tell a process its memory: no memory budget is kept");
            }
            let asked = Asked {
                paths: &paths,
                json,
                trace_out: trace_out.as_deref(),
                report: report.as_deref(),
                variants: variants.as_deref(),
            };
            run(
                asked,
                Mode::Check {
                    witness: &witness,
                    through: &through,
                    coverage,
                },
                |scenario| {
                    set_progress_name(&scenario.name);
                    let outcome = scenario.check(&options);
                    finish_progress();
                    let bfs = if bfs { " --bfs" } else { "" };
                    let reduce = if reduce == Reductions::ALL {
                        String::new()
                    } else {
                        format!(" --reduce {}", reduce.words())
                    };
                    let through: String = through
                        .iter()
                        .map(|fault| format!(" --through {fault}"))
                        .collect();
                    (
                        outcome,
                        format!("check {}{bfs}{reduce}{through}", scenario.file.display()),
                    )
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
            variants,
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
            let asked = Asked {
                paths: &paths,
                json,
                trace_out: trace_out.as_deref(),
                report: None,
                variants: variants.as_deref(),
            };
            run(asked, mode, |scenario| {
                set_progress_name(&scenario.name);
                let progress = Some(show_walks as fn(&WalkProgress));
                let outcome = scenario
                    .world()
                    .simulate(options, &scenario.expect, progress);
                finish_progress();
                let command = format!(
                    "simulate {} --max-depth {max_depth}",
                    scenario.file.display()
                );
                (outcome, command)
            })
        }
        Command::Replay { trace, zk } => replay(&trace, zk.as_deref()),
        Command::Explore { path, port } => explore(&path, port),
        Command::List { path, recipe, json } => list(&path, recipe.as_deref(), json),
        Command::New {
            recipe,
            name,
            dir,
            description,
        } => new_scenario(&recipe, &name, &dir, description.as_deref()),
        Command::Pin { paths, check } => cli::pin::pin_scenarios(&paths, check),
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
pub(crate) fn seconds(text: &str) -> Result<Duration, String> {
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
