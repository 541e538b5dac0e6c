//! Scenario files: a question about a recipe, with its expected answer.
//!
//! A scenario is a TOML file under `scenarios/<recipe>/`:
//!
//! ```toml
//! description = "The holder pauses past its session timeout; the server expires it."
//! recipe = "lock"
//! variant = "guid"
//! clients = 2
//! script = ["acquire", "work", "release"]   # what each client's application does
//! # or one script per client:
//! # scripts = [["write", "work", "release"], ["read", "release"]]
//!
//! [faults]              # budgets; every kind defaults to 0
//! pause = 1
//! expire = 1
//! expire_anytime = false
//!
//! [store]               # optional server settings
//! sequence_bits = 32
//! child_order = "hashed"   # or "reversed"
//!
//! [expect]              # every property of the recipe, and nothing else
//! mutual_exclusion = "violated"      # always-properties: holds | violated
//! someone_acquired = "reached"       # sometimes-properties: reached | unreached
//! ```
//!
//! Unknown keys are errors, and so is every value that makes no sense; each
//! error names the file, the key and what was expected.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::path::{Path as FsPath, PathBuf};

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Deserialize;
use stateright::{Checker, Expectation, HasDiscoveries, Model};

use crate::faults::FaultBudget;
use crate::models::barrier::Barrier;
use crate::models::configuration::Configuration;
use crate::models::double_barrier::DoubleBarrier;
use crate::models::election::Election;
use crate::models::lock::Lock;
use crate::models::membership::Membership;
use crate::models::priority_queue::PriorityQueue;
use crate::models::queue::Queue;
use crate::models::revocable_lock::RevocableLock;
use crate::models::shared_lock::SharedLock;
use crate::models::two_phase_commit::TwoPhaseCommit;
use crate::recipe::Recipe;
use crate::store::{ChildOrder, StoreConfig};
use crate::trace::{discovered, Trace};
use crate::world::World;

/// Limits on what a scenario may ask, so that every question stays answerable
/// by an exhaustive search on a laptop.
pub const CLIENTS_MAX: u8 = 4;
pub const SCRIPT_LEN_MAX: usize = 8;
pub const FAULT_BUDGET_MAX: u8 = 3;

/// A scenario file that cannot be used: which file, which key, what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub file: PathBuf,
    pub key: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() {
            write!(f, "{}: {}", self.file.display(), self.message)
        } else {
            write!(
                f,
                "{}: `{}`: {}",
                self.file.display(),
                self.key,
                self.message
            )
        }
    }
}

impl std::error::Error for ScenarioError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    description: String,
    recipe: String,
    variant: String,
    clients: u8,
    script: Option<Vec<String>>,
    scripts: Option<Vec<Vec<String>>>,
    #[serde(default)]
    faults: FaultsSection,
    #[serde(default)]
    store: StoreSection,
    expect: BTreeMap<String, String>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
struct FaultsSection {
    crash: u8,
    restart: u8,
    pause: u8,
    disconnect: u8,
    expire: u8,
    lose_reply: u8,
    expire_anytime: bool,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
struct StoreSection {
    sequence_bits: Option<u32>,
    child_order: Option<String>,
}

/// The answer a scenario expects for one property.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// An `always` property with no counterexample.
    Holds,
    /// An `always` property with a counterexample.
    Violated,
    /// A `sometimes` property with an example.
    Reached,
    /// A `sometimes` property with no example.
    Unreached,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::Violated => "violated",
            Verdict::Reached => "reached",
            Verdict::Unreached => "unreached",
        }
    }
}

/// A recipe a scenario can name: its name, its variants and commands by the
/// names scenario files use, and the properties it promises. Each model
/// implements it beside its actor; [`with_recipe`] lists them all.
pub trait Catalogued: Recipe {
    const NAME: &'static str;
    type Variant: Copy + PartialEq + fmt::Debug;
    const VARIANTS: &'static [(&'static str, Self::Variant)];
    const COMMANDS: &'static [(&'static str, Self::Command)];
    /// The recipe for a variant and the clients' scripts: what a client must
    /// know of its whole group (a double barrier's threshold, a two-phase
    /// commit's sites) comes from the scripts, which
    /// [`Catalogued::check_scripts`] accepted.
    fn build(variant: Self::Variant, scripts: &[Vec<Self::Command>]) -> Self;
    fn properties() -> Vec<stateright::Property<World<Self>>>;

    /// Whether the scripts make a group the recipe can run (a two-phase commit
    /// needs exactly one coordinator), and what was expected if not.
    fn check_scripts(_scripts: &[Vec<Self::Command>]) -> Result<(), String> {
        Ok(())
    }
}

/// Something to do with one recipe type.
pub trait RecipeTask {
    type Output;
    fn run<R: Catalogued>(self) -> Self::Output;
}

/// Every recipe zoocheck knows, by name: the one list a new recipe joins.
pub const RECIPES: [&str; 11] = [
    Lock::NAME,
    SharedLock::NAME,
    RevocableLock::NAME,
    Election::NAME,
    Barrier::NAME,
    DoubleBarrier::NAME,
    Queue::NAME,
    PriorityQueue::NAME,
    TwoPhaseCommit::NAME,
    Membership::NAME,
    Configuration::NAME,
];

/// Runs `task` with the recipe called `name`; `None` if there is none.
pub fn with_recipe<T: RecipeTask>(name: &str, task: T) -> Option<T::Output> {
    Some(match name {
        Lock::NAME => task.run::<Lock>(),
        SharedLock::NAME => task.run::<SharedLock>(),
        RevocableLock::NAME => task.run::<RevocableLock>(),
        Election::NAME => task.run::<Election>(),
        Barrier::NAME => task.run::<Barrier>(),
        DoubleBarrier::NAME => task.run::<DoubleBarrier>(),
        Queue::NAME => task.run::<Queue>(),
        PriorityQueue::NAME => task.run::<PriorityQueue>(),
        TwoPhaseCommit::NAME => task.run::<TwoPhaseCommit>(),
        Membership::NAME => task.run::<Membership>(),
        Configuration::NAME => task.run::<Configuration>(),
        _ => return None,
    })
}

/// Which recipe and variant a scenario checks, and each client's script, by
/// the names the file used (validated against the recipe's tables).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subject {
    pub recipe: &'static str,
    pub variant: &'static str,
    pub scripts: Vec<Vec<&'static str>>,
}

/// A recipe zoocheck knows: its name, variants, commands and properties.
pub struct RecipeInfo {
    pub name: &'static str,
    pub variants: Vec<&'static str>,
    pub commands: Vec<&'static str>,
    /// Each property with whether it is an `always` (else a `sometimes`).
    pub properties: Vec<(&'static str, bool)>,
    /// [`Catalogued::check_scripts`] on scripts of command names.
    pub check_scripts: fn(&[Vec<&'static str>]) -> Result<(), String>,
}

struct Info;

impl RecipeTask for Info {
    type Output = RecipeInfo;
    fn run<R: Catalogued>(self) -> RecipeInfo {
        RecipeInfo {
            name: R::NAME,
            variants: R::VARIANTS.iter().map(|(name, _)| *name).collect(),
            commands: R::COMMANDS.iter().map(|(name, _)| *name).collect(),
            properties: R::properties()
                .iter()
                .map(|p| (p.name, matches!(p.expectation, Expectation::Always)))
                .collect(),
            check_scripts: |scripts| R::check_scripts(&commands_of::<R>(scripts)),
        }
    }
}

/// Every recipe a scenario may name.
pub fn recipes() -> Vec<RecipeInfo> {
    RECIPES
        .iter()
        .map(|name| with_recipe(name, Info).expect("every listed recipe is known"))
        .collect()
}

/// A parsed, validated scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    /// `lock/guid_pause_expiry`: the path under `scenarios/` without `.toml`.
    pub name: String,
    pub file: PathBuf,
    pub description: String,
    pub subject: Subject,
    pub clients: u8,
    pub budget: FaultBudget,
    pub expire_anytime: bool,
    pub store: StoreConfig,
    /// Each property of the recipe with its expected verdict, in the recipe's order.
    pub expect: Vec<(&'static str, Verdict)>,
}

impl Scenario {
    /// Reads and validates a scenario file. Its name is its path relative to
    /// `root` (the `scenarios/` directory) without the extension.
    pub fn load(file: &FsPath, root: &FsPath) -> Result<Scenario, ScenarioError> {
        let text = std::fs::read_to_string(file).map_err(|error| ScenarioError {
            file: file.to_path_buf(),
            key: String::new(),
            message: format!("cannot read: {error}"),
        })?;
        let name = file
            .strip_prefix(root)
            .unwrap_or(file)
            .with_extension("")
            .to_string_lossy()
            .replace('\\', "/");
        Scenario::parse(&text, file, &name)
    }

    /// Parses and validates scenario text; `file` is only for messages.
    pub fn parse(text: &str, file: &FsPath, name: &str) -> Result<Scenario, ScenarioError> {
        let error = |key: &str, message: String| ScenarioError {
            file: file.to_path_buf(),
            key: key.to_string(),
            message,
        };
        let raw: File = toml::from_str(text).map_err(|e| {
            // Serde's type names are for programmers; say what a person writes.
            let message = e
                .message()
                .replace("expected u8", "expected a whole number from 0 to 255")
                .replace("expected u32", "expected a whole number");
            match e.span() {
                Some(span) => {
                    let line = text[..span.start].matches('\n').count() + 1;
                    error(
                        &key_at(text, span.start, &message),
                        format!("{message} (line {line})"),
                    )
                }
                None => error("", message),
            }
        })?;
        let info = recipes()
            .into_iter()
            .find(|info| info.name == raw.recipe)
            .ok_or_else(|| {
                let known: Vec<&str> = recipes().iter().map(|info| info.name).collect();
                error(
                    "recipe",
                    format!(
                        "unknown recipe {:?}; expected one of {}",
                        raw.recipe,
                        known.join(", ")
                    ),
                )
            })?;
        if raw.clients == 0 || raw.clients > CLIENTS_MAX {
            return Err(error(
                "clients",
                format!("{} clients; expected 1 to {CLIENTS_MAX}", raw.clients),
            ));
        }
        let scripts = match (&raw.script, &raw.scripts) {
            (Some(script), None) => vec![(String::from("script"), script); usize::from(raw.clients)],
            (None, Some(scripts)) => {
                if scripts.len() != usize::from(raw.clients) {
                    return Err(error(
                        "scripts",
                        format!(
                            "{} scripts for {} clients; expected one per client",
                            scripts.len(),
                            raw.clients
                        ),
                    ));
                }
                scripts
                    .iter()
                    .enumerate()
                    .map(|(client, script)| (format!("scripts[{client}]"), script))
                    .collect()
            }
            (Some(_), Some(_)) => {
                return Err(error(
                    "scripts",
                    "given beside `script`; expected one of them (`script` for every client alike, `scripts` for one each)".into(),
                ))
            }
            (None, None) => {
                return Err(error(
                    "script",
                    format!(
                        "missing; expected `script` (every client alike) or `scripts` (one per client) with commands of {}",
                        info.commands.join(", ")
                    ),
                ))
            }
        };
        let mut checked_scripts = Vec::with_capacity(scripts.len());
        for (key, script) in scripts {
            if script.is_empty() || script.len() > SCRIPT_LEN_MAX {
                return Err(error(
                    &key,
                    format!(
                        "{} commands; expected 1 to {SCRIPT_LEN_MAX} of {}",
                        script.len(),
                        info.commands.join(", ")
                    ),
                ));
            }
            let commands = script
                .iter()
                .map(|command| {
                    known(&info.commands, command)
                        .ok_or_else(|| error(&key, expected_one_of(command, &info.commands)))
                })
                .collect::<Result<Vec<_>, _>>()?;
            checked_scripts.push(commands);
        }
        let group_key = if raw.scripts.is_some() {
            "scripts"
        } else {
            "script"
        };
        (info.check_scripts)(&checked_scripts).map_err(|expected| error(group_key, expected))?;
        let variant = known(&info.variants, &raw.variant)
            .ok_or_else(|| error("variant", expected_one_of(&raw.variant, &info.variants)))?;
        let subject = Subject {
            recipe: info.name,
            variant,
            scripts: checked_scripts,
        };
        let faults = &raw.faults;
        let budget = FaultBudget {
            crash: faults.crash,
            restart: faults.restart,
            pause: faults.pause,
            disconnect: faults.disconnect,
            expire: faults.expire,
            lose_reply: faults.lose_reply,
        };
        for (kind, count) in budget.fields() {
            if count > FAULT_BUDGET_MAX {
                return Err(error(
                    &format!("faults.{kind}"),
                    format!("{count}; expected at most {FAULT_BUDGET_MAX} (every fault multiplies the states)"),
                ));
            }
        }
        if budget.restart > budget.crash {
            return Err(error(
                "faults.restart",
                format!(
                    "{} restarts but only {} crashes; a restart needs a crashed client",
                    budget.restart, budget.crash
                ),
            ));
        }
        if faults.expire_anytime && budget.expire == 0 {
            return Err(error(
                "faults.expire_anytime",
                "true but `faults.expire` is 0; set an expiry budget for it to mean anything"
                    .into(),
            ));
        }
        let mut store = StoreConfig::default();
        if let Some(bits) = raw.store.sequence_bits {
            if !(2..=32).contains(&bits) {
                return Err(error(
                    "store.sequence_bits",
                    format!("{bits}; expected 2 to 32"),
                ));
            }
            store.sequence_bits = bits;
        }
        if let Some(order) = &raw.store.child_order {
            store.child_order = match order.as_str() {
                "hashed" => ChildOrder::Hashed,
                "reversed" => ChildOrder::Reversed,
                other => {
                    return Err(error(
                        "store.child_order",
                        expected_one_of(other, &["hashed", "reversed"]),
                    ))
                }
            };
        }
        let mut expect = Vec::new();
        for (property, always) in &info.properties {
            let key = format!("expect.{property}");
            let allowed: [&str; 2] = if *always {
                ["holds", "violated"]
            } else {
                ["reached", "unreached"]
            };
            let given = raw.expect.get(*property).ok_or_else(|| {
                error(
                    &key,
                    format!("missing; expected {} or {}", allowed[0], allowed[1]),
                )
            })?;
            let verdict = match given.as_str() {
                "holds" if *always => Verdict::Holds,
                "violated" if *always => Verdict::Violated,
                "reached" if !*always => Verdict::Reached,
                "unreached" if !*always => Verdict::Unreached,
                other => return Err(error(&key, expected_one_of(other, &allowed))),
            };
            expect.push((*property, verdict));
        }
        if let Some(unknown) = raw
            .expect
            .keys()
            .find(|key| !info.properties.iter().any(|(p, _)| p == key))
        {
            let known: Vec<&str> = info.properties.iter().map(|(p, _)| *p).collect();
            return Err(error(
                &format!("expect.{unknown}"),
                format!(
                    "no such property of `{}`; expected one of {}",
                    info.name,
                    known.join(", ")
                ),
            ));
        }
        Ok(Scenario {
            name: name.to_string(),
            file: file.to_path_buf(),
            description: raw.description,
            subject,
            clients: raw.clients,
            budget,
            expire_anytime: faults.expire_anytime,
            store,
            expect,
        })
    }

    /// Every scenario file under `root`, sorted by name.
    pub fn load_all(root: &FsPath) -> Result<Vec<Scenario>, ScenarioError> {
        let mut files = Vec::new();
        collect_toml(root, &mut files).map_err(|error| ScenarioError {
            file: root.to_path_buf(),
            key: String::new(),
            message: format!("cannot list: {error}"),
        })?;
        files.sort();
        files
            .iter()
            .map(|file| Scenario::load(file, root))
            .collect()
    }

    /// Checks the scenario exhaustively (breadth first by default, so
    /// counterexamples are shortest) and compares each property with its
    /// expectation.
    pub fn check(&self, options: &CheckOptions) -> Outcome {
        self.with_world(CheckTask {
            options,
            expect: &self.expect,
        })
    }

    /// Runs `task` on the scenario's world, whatever its recipe: the one place
    /// that turns a scenario's subject into a typed [`World`].
    pub fn with_world<T: WorldTask>(&self, task: T) -> T::Output {
        with_recipe(
            self.subject.recipe,
            BuildWorld {
                scenario: self,
                task,
            },
        )
        .expect("a loaded scenario names a known recipe")
    }
}

struct BuildWorld<'a, T> {
    scenario: &'a Scenario,
    task: T,
}

impl<T: WorldTask> RecipeTask for BuildWorld<'_, T> {
    type Output = T::Output;

    fn run<R: Catalogued>(self) -> T::Output {
        let scenario = self.scenario;
        let subject = &scenario.subject;
        let variant = lookup(R::VARIANTS, subject.variant).expect("a validated variant");
        let scripts = commands_of::<R>(&subject.scripts);
        self.task.run(World {
            recipe: R::build(variant, &scripts),
            scripts,
            budget: scenario.budget,
            expire_anytime: scenario.expire_anytime,
            store: scenario.store,
            properties: R::properties,
            halt: None,
        })
    }
}

/// Validated scripts of command names as the recipe's commands.
fn commands_of<R: Catalogued>(scripts: &[Vec<&'static str>]) -> Vec<Vec<R::Command>> {
    scripts
        .iter()
        .map(|script| {
            script
                .iter()
                .map(|command| lookup(R::COMMANDS, command).expect("a validated command"))
                .collect()
        })
        .collect()
}

/// Something to do with a scenario's world, generic over its recipe.
pub trait WorldTask {
    type Output;
    fn run<R: Recipe>(self, world: World<R>) -> Self::Output;
}

/// How to search.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// Depth first instead of breadth first (less memory; counterexamples are
    /// not the shortest).
    pub dfs: bool,
    /// Checker threads; 0 or 1 is one thread (deterministic counts and traces).
    pub threads: usize,
    /// Stop exploring below this depth.
    pub max_depth: Option<usize>,
    /// Stop after about this many states.
    pub max_states: Option<usize>,
    /// Stop after this long.
    pub timeout: Option<Duration>,
    /// Called about five times a second while the search runs.
    pub progress: Option<fn(&Progress)>,
}

/// Where a running search is.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub states: usize,
    pub unique_states: usize,
    pub max_depth: usize,
    pub elapsed: Duration,
}

struct CheckTask<'a> {
    options: &'a CheckOptions,
    expect: &'a [(&'static str, Verdict)],
}

impl WorldTask for CheckTask<'_> {
    type Output = Outcome;

    fn run<R: Recipe>(self, world: World<R>) -> Outcome {
        let options = self.options;
        let properties = world.properties();
        let started = Instant::now();
        // Explore every state, even once every property has a discovery, so that
        // the state count is the size of the whole space and pins drift.
        let halt = Arc::new(AtomicBool::new(false));
        let searched = World {
            halt: Some(Arc::clone(&halt)),
            ..world.clone()
        };
        let mut builder = searched
            .checker()
            .finish_when(HasDiscoveries::AllOf(["(explore every state)"].into()))
            .threads(options.threads.max(1));
        if let Some(depth) = options.max_depth {
            builder = builder.target_max_depth(depth);
        }
        if let Some(states) = options.max_states {
            builder = builder.target_state_count(states);
        }
        if let Some(timeout) = options.timeout {
            builder = builder.timeout(timeout);
        }
        let checker: Box<dyn Checker<World<R>>> = if options.dfs {
            Box::new(builder.spawn_dfs())
        } else {
            Box::new(builder.spawn_bfs())
        };
        while !checker.is_done() {
            if let Some(report) = options.progress {
                report(&Progress {
                    states: checker.state_count(),
                    unique_states: checker.unique_state_count(),
                    max_depth: checker.max_depth(),
                    elapsed: started.elapsed(),
                });
            }
            std::thread::sleep(
                Duration::from_millis(200).min(started.elapsed() / 4 + Duration::from_millis(1)),
            );
            if options
                .timeout
                .is_some_and(|timeout| started.elapsed() >= timeout)
            {
                halt.store(true, Ordering::Relaxed);
            }
        }
        let mut checker = checker;
        for handle in checker.handles() {
            handle.join().expect("a checker thread panicked");
        }
        // Paths are rebuilt through the model: let it act again.
        halt.store(false, Ordering::Relaxed);
        let elapsed = started.elapsed();
        let complete = options
            .max_depth
            .is_none_or(|depth| checker.max_depth() < depth)
            && options
                .max_states
                .is_none_or(|states| checker.state_count() < states)
            && options.timeout.is_none_or(|timeout| elapsed < timeout);
        let discoveries = checker.discoveries();
        let outcomes = properties
            .iter()
            .map(|property| {
                let trace = discoveries.get(property.name).map(|path| {
                    // Breadth first: search again for the shortest (stateright
                    // keeps the last discovery it met). Depth first: its path.
                    let actions = if options.dfs {
                        path.clone().into_actions()
                    } else {
                        world
                            .shortest_path(|state| discovered(&world, property, state))
                            .expect("the checker found a discovery, so a shortest path exists")
                    };
                    Trace::replay(&world, property, &actions)
                });
                PropertyOutcome::judge(property, self.expect, trace, None)
            })
            .collect();
        Outcome {
            unique_states: checker.unique_state_count(),
            states: checker.state_count(),
            max_depth: checker.max_depth(),
            elapsed,
            complete,
            properties: outcomes,
        }
    }
}

/// The dotted key a TOML error at `offset` is about: the key on that line,
/// under the table that line is in (`faults.crash`), or for a missing field,
/// the field the message names.
fn key_at(text: &str, offset: usize, message: &str) -> String {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next().unwrap_or("").trim();
    let table = text[..line_start]
        .lines()
        .rev()
        .map(str::trim)
        .find(|line| line.starts_with('[') && line.ends_with(']'))
        .map(|header| {
            header
                .trim_matches(|c| c == '[' || c == ']')
                .trim()
                .to_string()
        });
    let (key, table) = if let Some(field) = message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split('`').next())
    {
        // The span of a missing field is the table it is missing from.
        let table = line.starts_with('[').then(|| {
            line.trim_matches(|c| c == '[' || c == ']')
                .trim()
                .to_string()
        });
        (field.to_string(), table)
    } else {
        (
            line.split('=').next().unwrap_or("").trim().to_string(),
            table,
        )
    };
    if key.starts_with('[') {
        return key
            .trim_matches(|c| c == '[' || c == ']')
            .trim()
            .to_string();
    }
    match table {
        Some(table) => format!("{table}.{key}"),
        None => key,
    }
}

fn lookup<T: Copy>(table: &[(&'static str, T)], name: &str) -> Option<T> {
    table
        .iter()
        .find(|(known, _)| *known == name)
        .map(|(_, value)| *value)
}

/// The name in `names` equal to `name`, with the table's lifetime.
fn known(names: &[&'static str], name: &str) -> Option<&'static str> {
    names.iter().copied().find(|known| *known == name)
}

fn expected_one_of(found: &str, allowed: &[&str]) -> String {
    format!("{found:?}; expected one of {}", allowed.join(", "))
}

fn collect_toml(dir: &FsPath, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if dir.is_file() {
        files.push(dir.to_path_buf());
        return Ok(());
    }
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_toml(&path, files)?;
        } else if path.extension().is_some_and(|ext| ext == "toml") {
            files.push(path);
        }
    }
    Ok(())
}

/// What the checker found for one property.
#[derive(Clone, Debug)]
pub struct PropertyOutcome {
    pub name: &'static str,
    pub expected: Verdict,
    pub actual: Verdict,
    /// The counterexample (for a violated `always`) or example (for a reached
    /// `sometimes`): the shortest, when the search was breadth first.
    pub trace: Option<Trace>,
    /// The seed of the random walk that found it, in a simulation.
    pub seed: Option<u64>,
}

impl PropertyOutcome {
    /// The verdict on `property` given its discovery (`trace`, if any was
    /// found), beside the one `expect` asks for.
    pub fn judge<M: Model>(
        property: &stateright::Property<M>,
        expect: &[(&'static str, Verdict)],
        trace: Option<Trace>,
        seed: Option<u64>,
    ) -> PropertyOutcome {
        let always = !matches!(property.expectation, Expectation::Sometimes);
        let actual = match (always, trace.is_some()) {
            (true, false) => Verdict::Holds,
            (true, true) => Verdict::Violated,
            (false, true) => Verdict::Reached,
            (false, false) => Verdict::Unreached,
        };
        let expected = expect
            .iter()
            .find(|(name, _)| *name == property.name)
            .map_or(actual, |(_, verdict)| *verdict);
        PropertyOutcome {
            name: property.name,
            expected,
            actual,
            trace,
            seed,
        }
    }

    pub fn as_expected(&self) -> bool {
        self.expected == self.actual
    }
}

/// What checking a scenario found.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub unique_states: usize,
    pub states: usize,
    pub max_depth: usize,
    pub elapsed: Duration,
    /// Whether the search covered every state (no depth, state or time limit
    /// cut it short): only then does "holds" mean proven.
    pub complete: bool,
    pub properties: Vec<PropertyOutcome>,
}

impl Outcome {
    pub fn as_expected(&self) -> bool {
        self.properties.iter().all(PropertyOutcome::as_expected)
    }
}

/// The verdicts, the state counts and every trace of a checked scenario, as
/// the snapshot pins them.
pub fn report(scenario: &Scenario, outcome: &Outcome) -> String {
    let mut out = String::new();
    let subject = &scenario.subject;
    let scripts = if subject
        .scripts
        .iter()
        .all(|script| *script == subject.scripts[0])
    {
        format!("each: {}", subject.scripts[0].join(", "))
    } else {
        let each: Vec<String> = subject
            .scripts
            .iter()
            .enumerate()
            .map(|(client, script)| format!("c{client}: {}", script.join(", ")))
            .collect();
        each.join("; ")
    };
    let faults: Vec<String> = scenario
        .budget
        .fields()
        .iter()
        .filter(|(_, count)| *count > 0)
        .map(|(kind, count)| format!("{kind} {count}"))
        .chain(
            scenario
                .expire_anytime
                .then(|| "expire anytime".to_string()),
        )
        .collect();
    let _ = writeln!(out, "scenario: {}", scenario.name);
    let _ = writeln!(
        out,
        "recipe: {} ({}), {} clients, {scripts}",
        subject.recipe, subject.variant, scenario.clients
    );
    let faults = if faults.is_empty() {
        "none".to_string()
    } else {
        faults.join(", ")
    };
    let _ = writeln!(out, "faults: {faults}");
    let _ = writeln!(
        out,
        "states: {} unique, {} visited, max depth {}",
        outcome.unique_states, outcome.states, outcome.max_depth
    );
    let _ = writeln!(out);
    for property in &outcome.properties {
        let mark = if property.as_expected() {
            "ok"
        } else {
            "UNEXPECTED"
        };
        let _ = writeln!(
            out,
            "{:<24} expected {:<10} actual {:<10} {mark}",
            property.name,
            property.expected.name(),
            property.actual.name()
        );
    }
    for property in &outcome.properties {
        if let (Verdict::Violated, Some(trace)) = (property.actual, &property.trace) {
            let _ = writeln!(
                out,
                "\ncounterexample to {} ({} steps{}):",
                property.name,
                trace.steps.len(),
                if trace.replays {
                    ""
                } else {
                    ", DOES NOT REPLAY"
                }
            );
            let _ = write!(out, "{trace}");
        }
    }
    out
}
