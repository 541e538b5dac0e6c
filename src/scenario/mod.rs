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
//! # a step "acquire with timeout" may time out while pending
//!
//! [[client]]            # optional, one per client: its own variant, script
//! variant = "no_guid"
//!
//! [params]              # the recipe's typed parameters (`max_leases = 1`)
//!
//! [faults]              # budgets at any client; every kind defaults to 0
//! pause = 1
//! expire = 1
//! expire_anytime = false
//!
//! [[fault]]             # a fault aimed at a client or a part it plays
//! kind = "pause"
//! target = "holder"     # or client = 1
//!
//! [store]               # optional server settings
//! sequence_bits = 32
//! child_order = "hashed"   # or "reversed"
//! servers = 1           # above 1 an ensemble (`crate::ensemble`), with
//! lag = 1               # servers at most this far behind a write's commit;
//!                       # the `move` fault then moves a connection
//! [[store.node]]        # the tree before the clients start
//! path = "/lock/c9-lock-0000000000"
//! ephemeral = true      # of a process that died before they started
//!
//! [library]             # optional: the clients' library, a profile and
//! profile = "kazoo2"    # settings over it (`crate::client::library`)
//! on_expiry = "renew"   # open a new session once it is gone
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
//! ([`crate::check::Limit::DepthBound`]) and
//! [`crate::properties::termination`] judges what it found.
//!
//! Unknown keys are errors, and so is every value that makes no sense; each
//! error names the file, the key and what was expected. Its `file` module reads the
//! text section by section; the recipe's own tables (variants, commands,
//! parameters, parts) come from [`crate::catalogue`], the fault kinds from
//! [`crate::world::faults::DECLARATIONS`].

use std::fmt::{self, Write as _};
use std::path::{Path as FsPath, PathBuf};

pub use crate::catalogue::Recipes;
use crate::catalogue::{AnyWorld, Setting};
pub use crate::catalogue::{Subject, Tuning, WITH_TIMEOUT};
use crate::check::{CheckOptions, Expected, Outcome, Verdict};
use crate::client::library::Profiled;
use crate::properties::termination::Termination;
use crate::store::StoreConfig;
use crate::text::{read_text, shorten, MESSAGE_LEN_MAX};
use crate::world::faults::FaultBudget;
use crate::world::StartingNode;

mod file;
pub mod pin;
pub mod tuning;

/// Limits on what a scenario may ask, so that every question stays answerable
/// by an exhaustive search on a laptop (the clients' is the recipes').
pub use crate::catalogued::CLIENTS_MAX;
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

impl std::error::Error for ScenarioError {}

/// The nearest `scenarios` directory `path` is in, if any: scenario names
/// are paths below it, and a project's directory is the one holding it.
pub fn scenarios_dir(path: &FsPath) -> Option<&FsPath> {
    path.ancestors()
        .find(|ancestor| ancestor.file_name().is_some_and(|name| name == "scenarios"))
}

/// A parsed, validated scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// The recipes it was read among: its recipe is one of them.
    pub recipes: Recipes,
    /// `lock/guid_pause_expiry`: the path under `scenarios/` without `.toml`.
    pub name: String,
    pub file: PathBuf,
    pub description: String,
    pub subject: Subject,
    pub clients: u8,
    /// The `[params]` table, read by the recipe ([`crate::catalogued::Params`]).
    pub params: toml::Table,
    pub budget: FaultBudget,
    pub expire_anytime: bool,
    /// Each client's library: a profile and the settings turned over it
    /// (`[library]`, `[[client]] library`; [`crate::client::library`]).
    pub libraries: Vec<Profiled>,
    pub store: StoreConfig,
    /// The nodes the server holds before the clients start (`[[store.node]]`).
    pub tree: Vec<StartingNode>,
    /// Each property of the recipe with its expected verdict, in the recipe's order.
    pub expect: Vec<(&'static str, Expected)>,
    /// Every recipe's `terminates`: its expected verdict and the depth
    /// bound of the search (`[check] depth_bound`).
    pub termination: Termination,
    /// The variant the command line runs it under (`--variants`) in place
    /// of its file's, if it does ([`Scenario::under`]).
    pub column: Option<Column>,
}

/// A scenario run under a variant a command line names, for every client,
/// in place of the file's variants and knobs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    pub tuning: Tuning,
    /// Whether it is the file's own variant (every client's): only then do
    /// the file's expectations apply to its verdicts.
    pub own: bool,
}

impl Scenario {
    /// Reads and validates a scenario file. Its name is its path relative to
    /// `root` (the `scenarios/` directory) without the extension.
    pub fn load(file: &FsPath, root: &FsPath) -> Result<Scenario, ScenarioError> {
        Scenario::load_among(file, root, Recipes::Catalogue)
    }

    /// [`Scenario::load`], its recipe one of `recipes`.
    pub fn load_among(
        file: &FsPath,
        root: &FsPath,
        recipes: Recipes,
    ) -> Result<Scenario, ScenarioError> {
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
        Scenario::parse_among(&text, file, &name, recipes)
    }

    /// Parses and validates scenario text; `file` is only for messages.
    pub fn parse(text: &str, file: &FsPath, name: &str) -> Result<Scenario, ScenarioError> {
        Scenario::parse_among(text, file, name, Recipes::Catalogue)
    }

    /// [`Scenario::parse`], its recipe one of `recipes`.
    pub fn parse_among(
        text: &str,
        file: &FsPath,
        name: &str,
        recipes: Recipes,
    ) -> Result<Scenario, ScenarioError> {
        file::parse(text, file, name, recipes)
    }

    /// Every scenario file under `root`, sorted by name; the first bad one
    /// is the error.
    pub fn load_all(root: &FsPath) -> Result<Vec<Scenario>, ScenarioError> {
        Scenario::load_all_among(root, Recipes::Catalogue)
    }

    /// [`Scenario::load_all`], each recipe one of `recipes`: a project's
    /// own scenarios of its own recipes.
    pub fn load_all_among(root: &FsPath, recipes: Recipes) -> Result<Vec<Scenario>, ScenarioError> {
        Scenario::load_each_among(root, recipes)?
            .into_iter()
            .collect()
    }

    /// Every scenario file under `root`, sorted by name, each loaded or
    /// refused on its own: one bad file does not hide the others.
    pub fn load_each(root: &FsPath) -> Result<Vec<Result<Scenario, ScenarioError>>, ScenarioError> {
        Scenario::load_each_among(root, Recipes::Catalogue)
    }

    /// [`Scenario::load_each`], each recipe one of `recipes`.
    pub fn load_each_among(
        root: &FsPath,
        recipes: Recipes,
    ) -> Result<Vec<Result<Scenario, ScenarioError>>, ScenarioError> {
        let mut files = Vec::new();
        collect_toml(root, &mut files).map_err(|error| ScenarioError {
            file: root.to_path_buf(),
            key: String::new(),
            message: format!("cannot list: {error}"),
        })?;
        files.sort();
        Ok(files
            .iter()
            .map(|file| Scenario::load_among(file, root, recipes))
            .collect())
    }

    /// The same question under `tuning`, every client's variant: the
    /// scenario's file, faults, store and scripts, another recipe variant.
    pub fn under(&self, tuning: Tuning) -> Scenario {
        let recipe = self.recipe();
        let own = (self.subject.variants.iter()).all(|mine| recipe.same_setting(mine, &tuning));
        let mut scenario = self.clone();
        scenario.subject.variants = vec![tuning.clone(); usize::from(self.clients)];
        scenario.column = Some(Column { tuning, own });
        scenario
    }

    /// Whether the file's expectations apply to its verdicts: not under a
    /// variant other than its own ([`Scenario::under`]).
    pub fn judged(&self) -> bool {
        self.column.as_ref().is_none_or(|column| column.own)
    }

    /// The variants the command line names for it (`--variants guid,
    /// no_guid`), each a preset of its recipe or of a presets file beside it,
    /// with knobs turned (`guid waits_on=lowest`).
    pub fn variants_named(&self, list: &str) -> Result<Vec<Tuning>, String> {
        let recipe = self.recipe();
        let presets = tuning::presets_for(&self.file, recipe, self.recipes)
            .map_err(|error| error.to_string())?;
        tuning::parse_variants(recipe, list, &presets)
    }

    /// Checks the scenario exhaustively and compares each property with its
    /// expectation.
    pub fn check(&self, options: &CheckOptions) -> Outcome {
        self.world().check(options, &self.expect, &self.termination)
    }

    /// The scenario's world, whatever its recipe: the one place that turns a
    /// scenario's subject into a world.
    pub fn world(&self) -> Box<dyn AnyWorld> {
        self.recipe().world(&self.setting())
    }

    /// Its recipe.
    pub fn recipe(&self) -> &'static dyn crate::catalogue::AnyRecipe {
        (self.recipes.find(self.subject.recipe))
            .expect("a loaded scenario names a recipe it was read among")
    }

    /// What the scenario sets for its world, as the catalogue takes it.
    pub fn setting(&self) -> Setting<'_> {
        Setting {
            subject: &self.subject,
            params: &self.params,
            budget: &self.budget,
            expire_anytime: self.expire_anytime,
            libraries: &self.libraries,
            store: self.store,
            tree: &self.tree,
        }
    }
}

/// The clients' libraries as a header says them: `None` if each is the
/// Java client's untouched, one profile if all share it, else each
/// client's (`c0 kazoo2, c1 java`).
pub fn libraries_words(libraries: &[Profiled]) -> Option<String> {
    if libraries
        .iter()
        .all(|profiled| *profiled == Profiled::DEFAULT)
    {
        return None;
    }
    if libraries.windows(2).all(|pair| pair[0] == pair[1]) {
        return libraries.first().map(Profiled::to_string);
    }
    let each: Vec<String> = (libraries.iter().enumerate())
        .map(|(client, profiled)| format!("c{client} {profiled}"))
        .collect();
    Some(each.join(", "))
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
        } else if path.extension().is_some_and(|ext| ext == "toml")
            && path
                .file_name()
                .is_none_or(|name| name != tuning::PRESETS_FILE)
        {
            files.push(path);
        }
    }
    Ok(())
}

/// The recipe, its variants, its clients and their scripts, in one line:
/// `lock (guid), 2 clients, each: acquire, release`, or with mixed
/// variants `lock, 2 clients, c0 (guid): acquire; c1 (no_guid): acquire`.
fn subject_words(scenario: &Scenario) -> String {
    let subject = &scenario.subject;
    let same_script = subject
        .scripts
        .iter()
        .all(|script| *script == subject.scripts[0]);
    match (subject.one_variant(), same_script) {
        (Some(variant), true) => format!(
            "{} ({variant}), {} clients, each: {}",
            subject.recipe,
            scenario.clients,
            subject.script_words(0)
        ),
        (one, _) => {
            let each: Vec<String> = (0..subject.scripts.len())
                .map(|client| {
                    let variant = match one {
                        Some(_) => String::new(),
                        None => format!(" ({})", subject.variants[client]),
                    };
                    format!("c{client}{variant}: {}", subject.script_words(client))
                })
                .collect();
            let variant = one
                .map(|variant| format!(" ({variant})"))
                .unwrap_or_default();
            format!(
                "{}{variant}, {} clients, {}",
                subject.recipe,
                scenario.clients,
                each.join("; ")
            )
        }
    }
}

/// A starting node in words: `/lock/x (ephemeral of a dead process, data
/// "old")`, `/lock: sequence from 2147483647`.
fn starting_node_words(node: &StartingNode) -> String {
    let mut said = Vec::new();
    if node.sequential {
        said.push("sequential".to_string());
    }
    if node.ephemeral {
        said.push("ephemeral of a dead process".to_string());
    }
    if let Some(data) = &node.data {
        said.push(format!("data {:?}", String::from_utf8_lossy(data)));
    }
    if let Some(next) = node.next_sequence {
        said.push(format!("sequence from {next}"));
    }
    if said.is_empty() {
        node.path.to_string()
    } else {
        format!("{} ({})", node.path, said.join(", "))
    }
}

/// What of a check's `outcome` its scenario did not expect, in words: a
/// verdict other than the expected one, or unproven where a proof was
/// expected (a search that stopped at a limit meets only the unproven
/// verdicts a scenario expects), a counterexample that does not replay or
/// does not say what went wrong, a panic. Nothing if every expectation is
/// met: what a project's test of its own scenarios asserts.
pub fn unmet(outcome: &Outcome) -> Vec<String> {
    let mut wrong = Vec::new();
    if let Some(panic) = &outcome.panic {
        wrong.push(format!("the model panicked: {}", panic.message));
    }
    for property in &outcome.properties {
        if property.judgement() != crate::check::Judgement::Met {
            let stopped = (outcome.stopped)
                .map(|limit| format!(" (the search stopped at its {} limit)", limit.name()))
                .unwrap_or_default();
            wrong.push(format!(
                "{} expected {} but is {}{stopped}",
                property.name,
                property.expected.shown(),
                property.shown()
            ));
        }
        let Some(trace) = &property.trace else {
            continue;
        };
        if !trace.replays {
            wrong.push(format!("the trace for {} does not replay", property.name));
        }
        // Every counterexample ends by saying what went wrong.
        match &trace.verdict {
            Some(verdict) if !verdict.contains(crate::trace::UNTOLD) => {}
            _ => wrong.push(format!(
                "the trace for {} does not tell its verdict",
                property.name
            )),
        }
    }
    wrong
}

/// The verdicts, the state counts and every trace of a checked scenario, as
/// the snapshot pins them.
pub fn report(scenario: &Scenario, outcome: &Outcome) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "scenario: {}", scenario.name);
    let _ = writeln!(out, "recipe: {}", subject_words(scenario));
    if !scenario.params.is_empty() {
        let params: Vec<String> = (scenario.params.iter())
            .map(|(key, value)| format!("{key} = {value}"))
            .collect();
        let _ = writeln!(out, "params: {}", params.join(", "));
    }
    let faults: Vec<String> = (scenario.budget.words().into_iter())
        .chain(
            scenario
                .expire_anytime
                .then(|| "expire anytime".to_string()),
        )
        .collect();
    let faults = if faults.is_empty() {
        "none".to_string()
    } else {
        faults.join(", ")
    };
    let _ = writeln!(out, "faults: {faults}");
    if scenario.store.servers > 1 {
        let _ = writeln!(
            out,
            "ensemble: {} servers, client i on server i mod {}, a server at most {} behind when a write commits",
            scenario.store.servers, scenario.store.servers, scenario.store.lag
        );
    }
    if let Some(words) = libraries_words(&scenario.libraries) {
        let _ = writeln!(out, "library: {words}");
    }
    if scenario.store.ttl_expiries != crate::store::StoreConfig::default().ttl_expiries {
        let _ = writeln!(
            out,
            "ttl expiries: at most {} in a run",
            scenario.store.ttl_expiries
        );
    }
    if !scenario.tree.is_empty() {
        let nodes: Vec<String> = scenario.tree.iter().map(starting_node_words).collect();
        let _ = writeln!(out, "starting tree: {}", nodes.join("; "));
    }
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
            property.expected.shown(),
            property.shown()
        );
    }
    if let Some(why) = crate::check::unreached_why(outcome, crate::check::PhasesNamed::Entered) {
        let _ = writeln!(out, "{why}");
    }
    if let Some(note) = crate::check::termination::note(outcome) {
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
