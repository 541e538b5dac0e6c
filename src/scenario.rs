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
//! [check]               # optional: how deep the search goes
//! depth_bound = 200     # steps before a path counts as still going, 1 to 1000
//!
//! [expect]              # every property of the recipe, and nothing else
//! mutual_exclusion = "violated"      # always-properties: holds | violated
//! someone_acquired = "reached"       # sometimes-properties: reached | unreached
//! terminates = "holds"               # every recipe's; optional (holds)
//! ```
//!
//! `terminates` (every fair run ends) and the depth bound are read by
//! [`Termination::parse`]; a search that reaches the bound stops there
//! ([`Limit::DepthBound`]) and [`crate::properties::termination`] judges
//! what it found.
//!
//! Unknown keys are errors, and so is every value that makes no sense; each
//! error names the file, the key and what was expected.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::path::{Path as FsPath, PathBuf};

use std::sync::atomic::Ordering;
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
use crate::properties::termination::{self, CheckSection, Termination, TERMINATES};
use crate::recipe::Recipe;
use crate::store::{ChildOrder, StoreConfig};
use crate::trace::{discovered, Trace};
use crate::world::{panic_message, Control, World};

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
        // What the file says is echoed shortened and escaped: a megabyte key
        // or a terminal escape code stays the file's problem.
        let file = shorten(&self.file.display().to_string(), 200);
        let message = shorten(&self.message, MESSAGE_LEN_MAX);
        if self.key.is_empty() {
            write!(f, "{file}: {message}")
        } else {
            write!(f, "{file}: `{}`: {message}", shorten(&self.key, 80))
        }
    }
}

/// The longest error message shown whole.
const MESSAGE_LEN_MAX: usize = 2000;

/// The largest file zoocheck reads (a scenario, a trace).
pub const FILE_LEN_MAX: u64 = 1 << 20;

/// `text` as it may be shown to a person: control characters escaped (no
/// terminal escape code passes through) and at most `max` characters, with
/// how much was left out.
pub fn shorten(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut shown = 0;
    for (offset, c) in text.char_indices() {
        if shown >= max {
            let _ = write!(out, "... ({} more bytes)", text.len() - offset);
            break;
        }
        if c.is_control() && c != '\n' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
        shown += 1;
    }
    out
}

/// `text` quoted as Rust writes a string (control characters escaped), at
/// most `max` characters of it, with how much was left out.
pub fn quoted(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((offset, _)) => format!(
            "{:?}... ({} more bytes)",
            &text[..offset],
            text.len() - offset
        ),
        None => format!("{text:?}"),
    }
}

/// The nearest `scenarios` directory `path` is in, if any: scenario names
/// are paths below it, and a project's directory is the one holding it.
pub fn scenarios_dir(path: &FsPath) -> Option<&FsPath> {
    path.ancestors()
        .find(|ancestor| ancestor.file_name().is_some_and(|name| name == "scenarios"))
}

/// Reads a file zoocheck was given: only a regular file (a FIFO or a device
/// would hang or never end), of at most [`FILE_LEN_MAX`] bytes, in UTF-8
/// (else the line and byte offset of the first bad byte).
pub fn read_text(file: &FsPath) -> Result<String, String> {
    use std::io::Read as _;
    let metadata = std::fs::metadata(file).map_err(|error| format!("cannot read: {error}"))?;
    if !metadata.is_file() {
        return Err("not a regular file; expected a file of text".into());
    }
    if metadata.len() > FILE_LEN_MAX {
        return Err(format!(
            "{} bytes; expected at most {FILE_LEN_MAX}",
            metadata.len()
        ));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(file)
        .and_then(|opened| opened.take(FILE_LEN_MAX + 1).read_to_end(&mut bytes))
        .map_err(|error| format!("cannot read: {error}"))?;
    if bytes.len() as u64 > FILE_LEN_MAX {
        return Err(format!("grew past {FILE_LEN_MAX} bytes while read"));
    }
    String::from_utf8(bytes).map_err(|error| {
        let offset = error.utf8_error().valid_up_to();
        let line = error.as_bytes()[..offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        format!("not UTF-8: an invalid byte at line {line} (byte offset {offset})")
    })
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
    #[serde(default)]
    check: CheckSection,
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

/// What `list` and `new` say of a recipe: what it is, and what each variant
/// and command means, by the names scenario files use.
#[derive(Clone, Copy, Debug)]
pub struct Docs {
    pub summary: &'static str,
    /// Each of [`Catalogued::VARIANTS`], in its order, with its meaning.
    pub variants: &'static [(&'static str, &'static str)],
    /// Each of [`Catalogued::COMMANDS`], in its order, with its meaning.
    pub commands: &'static [(&'static str, &'static str)],
    /// A small group that runs, one script per client: where `new` starts.
    pub group: &'static [&'static [&'static str]],
}

/// A recipe a scenario can name: its name, its variants and commands by the
/// names scenario files use, and the properties it promises. Each model
/// implements it beside its actor; [`with_recipe`] lists them all.
pub trait Catalogued: Recipe {
    const NAME: &'static str;
    const DOCS: Docs;
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

    /// Whether the world models these fault budgets soundly for the recipe,
    /// so that a violation under them is the recipe's and not the harness's;
    /// if not, the budget's key (`faults.restart`) and why it is refused.
    /// A recipe refuses what it cannot be judged under rather than be misjudged.
    fn check_faults(_budget: &FaultBudget) -> Result<(), (&'static str, String)> {
        Ok(())
    }
}

/// The name scenario scripts give `command` ([`Catalogued::COMMANDS`]): how
/// a recipe's commands print.
pub fn command_name<R: Catalogued>(command: &R::Command) -> &'static str {
    R::COMMANDS
        .iter()
        .find(|(_, known)| known == command)
        .map_or("(a command no script can name)", |(name, _)| name)
}

/// [`Catalogued::check_faults`] for a recipe whose world cannot restart a
/// process soundly, saying `why`.
pub fn refuse_restarts(budget: &FaultBudget, why: &str) -> Result<(), (&'static str, String)> {
    if budget.restart == 0 {
        return Ok(());
    }
    Err((
        "faults.restart",
        format!("{} restarts, but {why}; expected 0", budget.restart),
    ))
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
    pub docs: Docs,
    pub variants: Vec<&'static str>,
    pub commands: Vec<&'static str>,
    /// Each property with whether it is an `always` (else a `sometimes`).
    pub properties: Vec<(&'static str, bool)>,
    /// [`Catalogued::check_scripts`] on scripts of command names.
    pub check_scripts: fn(&[Vec<&'static str>]) -> Result<(), String>,
    /// [`Catalogued::check_faults`].
    pub check_faults: fn(&FaultBudget) -> Result<(), (&'static str, String)>,
}

struct Info;

impl RecipeTask for Info {
    type Output = RecipeInfo;
    fn run<R: Catalogued>(self) -> RecipeInfo {
        RecipeInfo {
            name: R::NAME,
            docs: R::DOCS,
            variants: R::VARIANTS.iter().map(|(name, _)| *name).collect(),
            commands: R::COMMANDS.iter().map(|(name, _)| *name).collect(),
            properties: R::properties()
                .iter()
                .map(|p| (p.name, matches!(p.expectation, Expectation::Always)))
                .collect(),
            check_scripts: |scripts| R::check_scripts(&commands_of::<R>(scripts)),
            check_faults: R::check_faults,
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
    /// Every recipe's `terminates`: its expected verdict and the depth
    /// bound of the search (`[check] depth_bound`).
    pub termination: Termination,
}

impl Scenario {
    /// Reads and validates a scenario file. Its name is its path relative to
    /// `root` (the `scenarios/` directory) without the extension.
    pub fn load(file: &FsPath, root: &FsPath) -> Result<Scenario, ScenarioError> {
        let text = read_text(file).map_err(|message| ScenarioError {
            file: file.to_path_buf(),
            key: String::new(),
            message,
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
        let mut raw: File = toml::from_str(text).map_err(|e| {
            // Serde's type names are for programmers; say what a person writes.
            let message = e.message();
            match e.span() {
                Some(span) => {
                    let line = text[..span.start].matches('\n').count() + 1;
                    let key = key_at(text, span.start, message);
                    let message = for_people(message, &key);
                    error(&key, format!("{message} (line {line})"))
                }
                None => error("", for_people(message, "")),
            }
        })?;
        let info = recipes()
            .into_iter()
            .find(|info| info.name == raw.recipe)
            .ok_or_else(|| {
                let known: Vec<&str> = recipes().iter().map(|info| info.name).collect();
                error(
                    "recipe",
                    format!("unknown recipe {}", expected_one_of(&raw.recipe, &known)),
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
        (info.check_faults)(&budget).map_err(|(key, message)| error(key, message))?;
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
        let termination = Termination::parse(&raw.check, raw.expect.remove(TERMINATES).as_deref())
            .map_err(|(key, message)| error(key, message))?;
        if let Some(unknown) = raw
            .expect
            .keys()
            .find(|key| !info.properties.iter().any(|(p, _)| p == key))
        {
            let known: Vec<&str> = info
                .properties
                .iter()
                .map(|(p, _)| *p)
                .chain([TERMINATES])
                .collect();
            let hint = did_you_mean(unknown, &known)
                .map(|near| format!("did you mean `{near}`? "))
                .unwrap_or_default();
            return Err(error(
                &format!("expect.{unknown}"),
                format!(
                    "no such property of `{}`; {hint}expected one of {}",
                    info.name,
                    known.join(", ")
                ),
            ));
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
            termination,
        })
    }

    /// Every scenario file under `root`, sorted by name; the first bad one
    /// is the error.
    pub fn load_all(root: &FsPath) -> Result<Vec<Scenario>, ScenarioError> {
        Scenario::load_each(root)?.into_iter().collect()
    }

    /// Every scenario file under `root`, sorted by name, each loaded or
    /// refused on its own: one bad file does not hide the others.
    pub fn load_each(root: &FsPath) -> Result<Vec<Result<Scenario, ScenarioError>>, ScenarioError> {
        let mut files = Vec::new();
        collect_toml(root, &mut files).map_err(|error| ScenarioError {
            file: root.to_path_buf(),
            key: String::new(),
            message: format!("cannot list: {error}"),
        })?;
        files.sort();
        Ok(files
            .iter()
            .map(|file| Scenario::load(file, root))
            .collect())
    }

    /// Checks the scenario exhaustively (breadth first by default, so
    /// counterexamples are shortest) and compares each property with its
    /// expectation.
    pub fn check(&self, options: &CheckOptions) -> Outcome {
        self.with_world(CheckTask {
            options,
            expect: &self.expect,
            termination: &self.termination,
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
            control: None,
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
    /// Breadth first instead of depth first. The verdicts and state counts
    /// are the same; breadth first keeps every state of a level in memory
    /// (about a kilobyte each) where depth first keeps a fingerprint, and
    /// gains nothing from a second thread. Shortest counterexamples are found
    /// by a search of their own either way.
    pub bfs: bool,
    /// Checker threads; 0 or 1 is one thread (deterministic counts and traces).
    pub threads: usize,
    /// Check no path longer than this many steps (at least 1).
    pub max_depth: Option<usize>,
    /// Stop after about this many states.
    pub max_states: Option<usize>,
    /// Stop after this long.
    pub timeout: Option<Duration>,
    /// Stop once the process holds this many bytes (resident), before the
    /// machine runs out: the search reports what it found so far.
    pub max_memory: Option<u64>,
    /// Called about five times a second while the search runs.
    pub progress: Option<fn(&Progress)>,
    /// The reached `sometimes` properties to give a shortest example too (a
    /// search of its own, as a violated `always` gets), not just the path
    /// the search happened to take.
    pub witnesses: Vec<String>,
}

/// Where a running search is.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub states: usize,
    pub unique_states: usize,
    pub max_depth: usize,
    pub elapsed: Duration,
    /// The process's resident memory, in bytes, where the system tells.
    pub memory: Option<u64>,
}

/// The limit a search stopped at before it had seen every state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Depth,
    /// The scenario's depth bound (`[check] depth_bound`): some path is that
    /// long and still going ([`termination`]).
    DepthBound,
    States,
    Time,
    Memory,
    /// A simulation walks some paths, never all of them.
    Walks,
}

impl Limit {
    pub fn name(self) -> &'static str {
        match self {
            Limit::Depth => "depth",
            Limit::DepthBound => "depth_bound",
            Limit::States => "states",
            Limit::Time => "time",
            Limit::Memory => "memory",
            Limit::Walks => "walks",
        }
    }

    /// The limit in words, for the line under a table.
    pub fn describe(self) -> &'static str {
        match self {
            Limit::Depth => "the search stopped at its depth limit (--max-depth)",
            Limit::DepthBound => {
                "the search stopped at the scenario's depth bound ([check] depth_bound): a path that long is still going"
            }
            Limit::States => "the search stopped at its state limit (--max-states)",
            Limit::Time => "the search stopped at its time limit (--timeout)",
            Limit::Memory => "the search stopped at its memory budget (--max-memory)",
            Limit::Walks => "a simulation walks some paths, never all: it proves nothing",
        }
    }
}

/// A panic of the recipe, the store or the client library that a check or
/// a simulation met: a bug in the model or in zoocheck, never a verdict.
#[derive(Clone, Debug)]
pub struct PanicReport {
    pub message: String,
    /// The actions that lead to it, the last one panicking; `None` if the
    /// panic came from where no path can be rebuilt (a property's condition).
    pub trace: Option<Trace>,
    /// The seed of the walk that met it, in a simulation.
    pub seed: Option<u64>,
}

/// Checks `world` as [`Scenario::check`] checks a scenario's: for a world
/// built by hand (a test's recipe), with its expected verdicts.
pub fn check_world<R: Recipe>(
    world: World<R>,
    options: &CheckOptions,
    expect: &[(&'static str, Verdict)],
) -> Outcome {
    CheckTask {
        options,
        expect,
        termination: &Termination::default(),
    }
    .run(world)
}

struct CheckTask<'a> {
    options: &'a CheckOptions,
    expect: &'a [(&'static str, Verdict)],
    termination: &'a Termination,
}

impl WorldTask for CheckTask<'_> {
    type Output = Outcome;

    fn run<R: Recipe>(self, world: World<R>) -> Outcome {
        let options = self.options;
        let properties = world.properties();
        let started = Instant::now();
        let control = Arc::new(Control::default());
        // Explore every state, even once every property has a discovery, so that
        // the state count is the size of the whole space and pins drift.
        let searched = World {
            control: Some(Arc::clone(&control)),
            ..world.clone()
        };
        let mut builder = searched
            .checker()
            .finish_when(HasDiscoveries::AllOf(["(explore every state)"].into()))
            .threads(options.threads.max(1));
        // stateright counts a path's states (the initial one is depth 1)
        // and skips, unchecked, a state at its target depth: checking every
        // path of `depth` steps takes a target of `depth + 2`. The scenario's
        // depth bound always applies, so a recipe that loops stops there.
        let depth = termination::depth_limit(options.max_depth, self.termination);
        builder = builder.target_max_depth(depth + 2);
        if let Some(states) = options.max_states {
            builder = builder.target_state_count(states);
        }
        if let Some(timeout) = options.timeout {
            builder = builder.timeout(timeout);
        }
        let mut checker: Box<dyn Checker<World<R>>> = if options.bfs {
            Box::new(builder.spawn_bfs())
        } else {
            Box::new(builder.spawn_dfs())
        };
        // Watch the workers themselves, not `is_done`: stateright calls a
        // search done once every property has a discovery, while the
        // workers go on exploring every state, and the limits must hold
        // until the last of them stops.
        let handles = checker.handles();
        let mut stopped = None;
        while !handles.iter().all(std::thread::JoinHandle::is_finished) {
            let memory = crate::memory::resident_bytes();
            if let Some(report) = options.progress {
                report(&Progress {
                    states: checker.state_count(),
                    unique_states: checker.unique_state_count(),
                    max_depth: steps(checker.max_depth()),
                    elapsed: started.elapsed(),
                    memory,
                });
            }
            if stopped.is_none() {
                if options
                    .timeout
                    .is_some_and(|timeout| started.elapsed() >= timeout)
                {
                    stopped = Some(Limit::Time);
                } else if over_budget(options, memory) {
                    stopped = Some(Limit::Memory);
                }
                if stopped.is_some() {
                    control.halt.store(true, Ordering::Relaxed);
                }
            }
            std::thread::sleep(
                Duration::from_millis(200).min(started.elapsed() / 4 + Duration::from_millis(1)),
            );
        }
        let mut thread_panic = None;
        for handle in handles {
            if let Err(payload) = handle.join() {
                thread_panic = Some(panic_message(payload.as_ref()));
            }
        }
        // Paths are rebuilt through the model: let it act again.
        control.halt.store(false, Ordering::Relaxed);
        let kept_panic = control
            .panic
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        let stopped = if kept_panic.is_some() || thread_panic.is_some() {
            None
        } else {
            stopped
                .or_else(|| {
                    options
                        .max_states
                        .filter(|&states| checker.state_count() >= states)
                        .map(|_| Limit::States)
                })
                .or_else(|| {
                    options
                        .max_depth
                        .filter(|&depth| steps(checker.max_depth()) > depth)
                        .map(|_| Limit::Depth)
                })
                .or_else(|| {
                    (steps(checker.max_depth()) > self.termination.depth_bound)
                        .then_some(Limit::DepthBound)
                })
                .or_else(|| {
                    options
                        .timeout
                        .filter(|&timeout| started.elapsed() >= timeout)
                        .map(|_| Limit::Time)
                })
        };
        let panicked = kept_panic.is_some() || thread_panic.is_some();
        // The searches for shortest paths keep the same budget.
        let mut go_on = |_: usize| {
            options
                .timeout
                .is_none_or(|timeout| started.elapsed() < timeout)
                && !over_budget(options, crate::memory::resident_bytes())
        };
        let panic = match (kept_panic, thread_panic) {
            (Some(kept), _) => {
                let path = world
                    .shortest_path_within(|state| *state == kept.state, &mut go_on)
                    .ok()
                    .flatten();
                let trace = path.map(|mut actions| {
                    actions.extend(kept.action.clone());
                    Trace::of_panic(&world, &actions)
                });
                Some(PanicReport {
                    message: kept.message,
                    trace,
                    seed: None,
                })
            }
            (None, Some(message)) => Some(PanicReport {
                message,
                trace: None,
                seed: None,
            }),
            (None, None) => None,
        };
        let complete = stopped.is_none() && !panicked;
        for initial in world.init_states() {
            control.cover(&world.recipe, &initial);
        }
        let coverage = Coverage::of(&world, &control);
        let discoveries = checker.discoveries();
        let mut outcomes: Vec<PropertyOutcome> = properties
            .iter()
            .map(|property| {
                let trace = discoveries.get(property.name).map(|path| {
                    let found = path.clone().into_actions();
                    let asked = options.witnesses.iter().any(|name| name == property.name);
                    if property.expectation == Expectation::Sometimes && !asked {
                        // An example nobody asked to see: its path is enough.
                        return Trace::replay(&world, property, &found);
                    }
                    // A counterexample (or a witness asked for): search again
                    // for the shortest, breadth first and only as deep as it
                    // is. If that search runs out of time or memory, the path
                    // found is the one shown.
                    match world.shortest_path_within(
                        |state| discovered(&world, property, state),
                        &mut go_on,
                    ) {
                        Ok(Some(shortest)) => Trace {
                            shortest: true,
                            ..Trace::replay(&world, property, &shortest)
                        },
                        _ => Trace::replay(&world, property, &found),
                    }
                });
                PropertyOutcome::judge(property, self.expect, trace, None, complete)
            })
            .collect();
        outcomes.push(termination::judge(
            &world,
            &control,
            self.termination,
            stopped,
            panicked,
            &mut go_on,
        ));
        Outcome {
            unique_states: checker.unique_state_count(),
            states: checker.state_count(),
            // The deepest path checked: a path the depth limit cut was not.
            max_depth: steps(checker.max_depth()).min(depth),
            elapsed: started.elapsed(),
            stopped,
            walks: 0,
            properties: outcomes,
            panic,
            coverage: Some(coverage),
        }
    }
}

/// The steps of a path stateright measures in states (the initial one is 1).
fn steps(depth: usize) -> usize {
    depth.saturating_sub(1)
}

/// Whether the process holds more memory than the search may.
fn over_budget(options: &CheckOptions, memory: Option<u64>) -> bool {
    matches!((options.max_memory, memory), (Some(budget), Some(memory)) if memory > budget)
}

/// A TOML error's message in the words a person writes: the range the key
/// takes, where serde names a Rust type.
fn for_people(message: &str, key: &str) -> String {
    let whole_number = if key.starts_with("faults.") {
        format!("a whole number from 0 to {FAULT_BUDGET_MAX}")
    } else if key == "clients" {
        format!("a whole number from 1 to {CLIENTS_MAX}")
    } else if key == "store.sequence_bits" {
        "a whole number from 2 to 32".to_string()
    } else {
        "a whole number".to_string()
    };
    message
        .replace("expected u8", &format!("expected {whole_number}"))
        .replace("expected u32", &format!("expected {whole_number}"))
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
    let hint = did_you_mean(found, allowed)
        .map(|near| format!("did you mean {near:?}? "))
        .unwrap_or_default();
    format!(
        "{}; {hint}expected one of {}",
        quoted(found, 60),
        allowed.join(", ")
    )
}

/// The name in `known` nearest to `found`, if it is near enough to be a slip
/// (an edit distance of at most a third of its length, and at least 1).
pub fn did_you_mean<'a>(found: &str, known: &[&'a str]) -> Option<&'a str> {
    if found.len() > 100 {
        return None;
    }
    known
        .iter()
        .map(|name| (edit_distance(found, name), *name))
        .filter(|(distance, name)| *distance <= (name.len() / 3).max(1))
        .min()
        .map(|(_, name)| name)
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
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
    /// Whether `actual` is proven: a discovery always is (its trace shows
    /// it); its absence only when the search saw every state.
    pub proven: bool,
    /// The counterexample (for a violated `always`) or example (for a reached
    /// `sometimes`): for a counterexample of a check, the shortest unless its
    /// search stopped at a limit ([`Trace::shortest`]).
    pub trace: Option<Trace>,
    /// The seed of the random walk that found it, in a simulation.
    pub seed: Option<u64>,
    /// How a simulation shrank the walk's counterexample into `trace`.
    pub shrunk: Option<crate::shrink::Shrinking>,
}

/// How a property's verdict stands against its expectation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Judgement {
    /// As expected, and proven.
    Met,
    /// Proven otherwise than expected.
    NotMet,
    /// No discovery in the part of the space searched, which proves nothing
    /// (a search stopped at a limit; a simulation).
    Unproven,
}

impl PropertyOutcome {
    /// The verdict on `property` given its discovery (`trace`, if any was
    /// found) in a search that saw every state or not (`complete`), beside
    /// the one `expect` asks for.
    pub fn judge<M: Model>(
        property: &stateright::Property<M>,
        expect: &[(&'static str, Verdict)],
        trace: Option<Trace>,
        seed: Option<u64>,
        complete: bool,
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
            proven: complete || trace.is_some(),
            trace,
            seed,
            shrunk: None,
        }
    }

    /// Whether the verdict is the one expected (proven or not).
    pub fn as_expected(&self) -> bool {
        self.expected == self.actual
    }

    pub fn judgement(&self) -> Judgement {
        match (self.proven, self.as_expected()) {
            (false, _) => Judgement::Unproven,
            (true, true) => Judgement::Met,
            (true, false) => Judgement::NotMet,
        }
    }

    /// The verdict as a table shows it: `holds?` where unproven.
    pub fn shown(&self) -> String {
        let mark = if self.proven { "" } else { "?" };
        format!("{}{mark}", self.actual.name())
    }
}

/// What checking a scenario found.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub unique_states: usize,
    pub states: usize,
    /// The deepest path the search checked, in steps (actions from the
    /// initial state; not a counterexample's length: see each trace).
    pub max_depth: usize,
    /// The whole time, shortest-counterexample searches included.
    pub elapsed: Duration,
    /// The limit the search stopped at, if it did not see every state: then
    /// an absent discovery proves nothing. Always set for a simulation.
    pub stopped: Option<Limit>,
    /// The walks a simulation took (0 for a check).
    pub walks: u64,
    pub properties: Vec<PropertyOutcome>,
    /// A panic the search met (it stopped there).
    pub panic: Option<PanicReport>,
    /// What a check covered (a simulation reports none).
    pub coverage: Option<Coverage>,
}

/// What a check's search covered: each phase of the recipe some client
/// entered, and each fault kind the scenario budgets that some path
/// injected. Under `--max-depth D` it counts the states one step beyond D
/// that the search generated without checking them. A `sometimes` property left unreached is explained by what was
/// never entered (Spin prints the code it never reached; TLC counts each
/// action).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coverage {
    /// Each phase of [`Recipe::phase_names`], and whether it was entered.
    pub phases: Vec<(&'static str, bool)>,
    /// Each fault kind with a budget, and whether it was injected.
    pub faults: Vec<(&'static str, bool)>,
}

impl Coverage {
    /// The phases some client entered (`true`), or those none did.
    pub fn phases_entered(&self, entered: bool) -> Vec<&'static str> {
        named(&self.phases, entered)
    }

    /// The budgeted fault kinds some path injected (`true`), or those none did.
    pub fn faults_injected(&self, injected: bool) -> Vec<&'static str> {
        named(&self.faults, injected)
    }

    fn of<R: Recipe>(world: &World<R>, control: &Control<R::State>) -> Coverage {
        let phases = control.phases.load(Ordering::Relaxed);
        let faults = control.faults.load(Ordering::Relaxed);
        let named = world.recipe.phase_names().len();
        debug_assert!(
            named == 64 || phases >> named == 0,
            "Recipe::phases set a bit that Recipe::phase_names does not name"
        );
        Coverage {
            phases: world
                .recipe
                .phase_names()
                .iter()
                .enumerate()
                .map(|(bit, name)| (*name, phases & 1 << bit != 0))
                .collect(),
            faults: world
                .budget
                .fields()
                .iter()
                .enumerate()
                .filter(|(_, (_, budget))| *budget > 0)
                .map(|(bit, (kind, _))| (*kind, faults & 1 << bit != 0))
                .collect(),
        }
    }
}

impl Outcome {
    /// Whether every property's verdict is the one expected, proven or not.
    pub fn as_expected(&self) -> bool {
        self.panic.is_none() && self.properties.iter().all(PropertyOutcome::as_expected)
    }

    /// Whether the search saw every state: only then does "holds" mean proven.
    pub fn complete(&self) -> bool {
        self.stopped.is_none() && self.panic.is_none()
    }

    /// The worst judgement of any property (a panic is not met).
    pub fn judgement(&self) -> Judgement {
        let judgements = self.properties.iter().map(PropertyOutcome::judgement);
        if self.panic.is_some() || judgements.clone().any(|j| j == Judgement::NotMet) {
            Judgement::NotMet
        } else if judgements.clone().any(|j| j == Judgement::Unproven) {
            Judgement::Unproven
        } else {
            Judgement::Met
        }
    }
}

/// Why a `sometimes` property may have gone unreached, when one did: the
/// recipe phases no client entered and the budgeted faults never injected
/// (in the part searched, if the search stopped at a limit).
pub fn unreached_why(outcome: &Outcome) -> Option<String> {
    let unreached: Vec<&str> = outcome
        .properties
        .iter()
        .filter(|property| property.actual == Verdict::Unreached)
        .map(|property| property.name)
        .collect();
    let coverage = outcome.coverage.as_ref()?;
    if unreached.is_empty() {
        return None;
    }
    let searched = if outcome.stopped.is_some() {
        " in the part searched"
    } else {
        ""
    };
    let mut out = format!(
        "unreached: {}; phases no client entered{searched}: {}",
        unreached.join(", "),
        names_or_none(&coverage.phases_entered(false))
    );
    if !coverage.faults.is_empty() {
        let _ = write!(
            out,
            "; faults never injected: {}",
            names_or_none(&coverage.faults_injected(false))
        );
    }
    Some(out)
}

/// The names whose flag is `wanted`.
fn named(items: &[(&'static str, bool)], wanted: bool) -> Vec<&'static str> {
    items
        .iter()
        .filter(|(_, flag)| *flag == wanted)
        .map(|(name, _)| *name)
        .collect()
}

/// `a, b, c`, or `none`.
pub fn names_or_none(names: &[&str]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
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
        "states: {} unique, {} visited, deepest path {}",
        outcome.unique_states, outcome.states, outcome.max_depth
    );
    if let Some(limit) = outcome.stopped {
        let _ = writeln!(out, "INCOMPLETE: {}", limit.describe());
    }
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
            property.shown()
        );
    }
    if let Some(why) = unreached_why(outcome) {
        let _ = writeln!(out, "{why}");
    }
    if let Some(note) = termination::note(outcome) {
        let _ = writeln!(out, "{note}");
    }
    if let Some(panic) = &outcome.panic {
        let _ = writeln!(out, "\nTHE MODEL PANICKED: {}", panic.message);
        if let Some(trace) = &panic.trace {
            let _ = write!(out, "{trace}");
        }
    }
    for property in &outcome.properties {
        if let (Verdict::Violated, Some(trace)) = (property.actual, &property.trace) {
            let _ = writeln!(
                out,
                "\ncounterexample to {} ({} steps{}{}):",
                property.name,
                trace.steps.len(),
                if trace.shortest {
                    ""
                } else {
                    ", not known to be the shortest"
                },
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
