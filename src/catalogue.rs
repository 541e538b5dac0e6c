//! The catalogue: every recipe zoocheck knows, in one list, and the one
//! type-erased world each builds for a scenario.
//!
//! A recipe is a type (its state, its commands); a scenario names it by a
//! string. [`all`] turns the name into an [`AnyRecipe`]: what `list`,
//! `new` and the scenario parser need to know of it (its variants, commands,
//! parameters, parts and properties), and a builder of its world as an
//! [`AnyWorld`], behind which everything one does with a world (check it,
//! simulate it, replay a trace, shrink, draw, explore) is a method. Nothing
//! outside this file matches on recipe names or dispatches over recipe
//! types.

use std::marker::PhantomData;

use stateright::{Expectation, Model};

use std::fmt;
use std::sync::LazyLock;

use crate::catalogued::{command_name, Catalogued, Docs, Params, Visit};
use crate::check::{check_bounded, CheckOptions, Expected, Outcome};
use crate::diagram::Diagram;
use crate::knobs::{Knob, Knobs};
use crate::properties::termination::Termination;
use crate::properties::{Declared, Promise};
use crate::recipe::Recipe;
use crate::shrink::Shrunk;
use crate::simulate::{SimulateOptions, Walk, WalkProgress};
use crate::store::StoreConfig;
use crate::trace::{Stop, Trace};
use crate::world::faults::FaultBudget;
use crate::world::{Action, StartingNode, World};

/// Every recipe zoocheck knows, in the order of [`crate::models::each`]:
/// the one list a new recipe joins.
pub fn all() -> &'static [&'static dyn AnyRecipe] {
    static ALL: LazyLock<Vec<&'static dyn AnyRecipe>> = LazyLock::new(|| {
        struct Entries(Vec<&'static dyn AnyRecipe>);
        impl Visit for Entries {
            fn recipe<R: Catalogued>(&mut self) {
                self.0.push(&Entry::<R>::NEW);
            }
        }
        let mut entries = Entries(Vec::new());
        crate::models::each(&mut entries);
        entries.0
    });
    &ALL
}

/// The recipes a scenario file may name: zoocheck's catalogue ([`all`]),
/// or a project's own, listed as `&Entry::<MyRecipe>::NEW` (see
/// `examples/own-recipe/`).
#[derive(Clone, Copy)]
pub enum Recipes {
    Catalogue,
    These(&'static [&'static dyn AnyRecipe]),
}

impl Recipes {
    pub fn list(self) -> &'static [&'static dyn AnyRecipe] {
        match self {
            Recipes::Catalogue => all(),
            Recipes::These(these) => these,
        }
    }

    /// The recipe scenario files call `name`.
    pub fn find(self, name: &str) -> Option<&'static dyn AnyRecipe> {
        self.list()
            .iter()
            .copied()
            .find(|recipe| recipe.name() == name)
    }

    /// Every recipe's name, in order.
    pub fn names(self) -> Vec<&'static str> {
        self.list().iter().map(|recipe| recipe.name()).collect()
    }
}

impl fmt::Debug for Recipes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

/// Two lists of recipes are one if they name the same recipes.
impl PartialEq for Recipes {
    fn eq(&self, other: &Recipes) -> bool {
        self.names() == other.names()
    }
}

/// The recipe scenario files call `name`.
pub fn find(name: &str) -> Option<&'static dyn AnyRecipe> {
    Recipes::Catalogue.find(name)
}

/// Every recipe's name, in the catalogue's order.
pub fn names() -> Vec<&'static str> {
    Recipes::Catalogue.names()
}

/// A recipe of the catalogue, whatever its type.
pub trait AnyRecipe: Sync {
    fn name(&self) -> &'static str;
    fn docs(&self) -> Docs;
    fn variants(&self) -> Vec<&'static str>;
    /// Its knobs ([`Knobs::KNOBS`]): what a variant is a setting of.
    fn knobs(&self) -> &'static [Knob];
    /// Each knob's value in preset `variant`, in the knobs' order.
    fn preset(&self, variant: &str) -> Option<Vec<(&'static str, &'static str)>>;
    /// The knobs `tuning` sets otherwise than the reference does, in the
    /// knobs' order ([`crate::knobs::differences`]).
    fn turned(&self, tuning: &Tuning) -> Vec<(&'static str, &'static str)>;
    /// Whether two tunings are one setting of the knobs, whatever their
    /// names (`no_guid` and `guid guid=false`).
    fn same_setting(&self, a: &Tuning, b: &Tuning) -> bool;
    fn commands(&self) -> Vec<&'static str>;
    /// Each parameter by key with its meaning ([`Params::MEANINGS`]).
    fn params(&self) -> &'static [(&'static str, &'static str)];
    /// The default parameters as a TOML table's body (`max_leases = 2`).
    fn default_params(&self) -> String;
    /// The parts a fault can aim at, by name with meaning
    /// ([`World::parts`]).
    fn parts(&self) -> Vec<(&'static str, &'static str)>;
    /// The phases a client can be in ([`Recipe::PHASES`]), which a fault
    /// may be aimed at.
    fn phases(&self) -> &'static [&'static str];
    /// Each property it promises, in its order ([`Catalogued::properties`]).
    fn properties(&self) -> Vec<Declared>;
    /// [`Catalogued::check_scripts`] on scripts of command names.
    fn check_scripts(&self, scripts: &[Vec<&'static str>]) -> Result<(), String>;
    /// Reads a `[params]` table and [`Catalogued::check_params`] it: on
    /// error, the key and what was expected.
    fn check_params(
        &self,
        params: &toml::Table,
        scripts: &[Vec<&'static str>],
    ) -> Result<(), (String, String)>;
    /// [`Catalogued::check_faults`].
    fn check_faults(&self, budget: &FaultBudget) -> Result<(), (&'static str, String)>;
    /// [`Catalogued::check_variant`] on a validated tuning: on error, the
    /// knob and what was expected.
    fn check_tuning(&self, tuning: &Tuning) -> Result<(), (&'static str, String)>;
    /// [`Catalogued::RENEWS`].
    fn renews(&self) -> bool;
    /// [`Catalogued::WAITS`].
    fn waits(&self) -> bool;
    /// The command a timed call's timeout gives the recipe, if its calls
    /// can time out ([`Recipe::timeout`], of its reference).
    fn timeout(&self) -> Option<&'static str>;
    /// The directory its clients create their nodes in, which the world
    /// creates before they start ([`Recipe::directory`]).
    fn directory(&self, scripts: &[Vec<&'static str>]) -> crate::store::Path;
    /// The nodes the world creates before they start ([`Recipe::setup`]),
    /// the directory among them.
    fn setup(&self, scripts: &[Vec<&'static str>]) -> Vec<crate::store::Path>;
    /// The world a validated scenario of this recipe describes.
    fn world(&self, setting: &Setting) -> Box<dyn AnyWorld>;
}

/// Everything one does with a scenario's world, whatever its recipe.
pub trait AnyWorld: Send + Sync {
    fn clients(&self) -> usize;
    /// Whether a search asked for `asked` may reduce this world at all
    /// ([`crate::explore::Explored::reductions`]): on an ensemble only where
    /// it takes ample sets, which only some recipes allow.
    fn may_reduce(&self, asked: crate::reduce::Reductions) -> bool;
    /// Each property by name with its expectation, in the recipe's order.
    fn properties(&self) -> Vec<(&'static str, Expectation)>;
    /// Checks every state ([`check_bounded`]).
    fn check(
        &self,
        options: &CheckOptions,
        expect: &[(&'static str, Expected)],
        bound: &Termination,
    ) -> Outcome;
    /// Walks at random ([`crate::simulate::simulate_world`]).
    fn simulate(
        &self,
        options: SimulateOptions,
        expect: &[(&'static str, Expected)],
        progress: Option<fn(&WalkProgress)>,
    ) -> Outcome;
    /// One seeded walk ([`crate::simulate::walk`]).
    fn walk(&self, seed: u64, max_depth: usize) -> Walk;
    /// Replays `actions` as a trace of `property`; `None` if the recipe has
    /// no such property.
    fn trace(&self, property: &str, actions: &[Action]) -> Option<Trace>;
    /// Replays `actions`: each step in words, where it stopped if it did,
    /// and whether its last state is a discovery for `property`.
    fn retell(&self, property: &str, actions: &[Action]) -> Retold;
    /// [`AnyWorld::retell`], with what the model's server did before the
    /// first step and at each step ([`crate::store::journal`]).
    fn journal(&self, property: &str, actions: &[Action]) -> Journaled;
    /// Replays a saved `terminates` counterexample: the words of its verdict
    /// if it loops again, else why not
    /// ([`crate::check::termination::replay_loop`]).
    fn replay_loop(&self, actions: &[Action], depth_bound: usize) -> Result<String, String>;
    /// Shrinks `actions`, a path to a discovery for `property`
    /// ([`crate::shrink::shrink`]); `None` if it is not one.
    fn shrink(&self, property: &str, actions: &[Action], steps_max: u64) -> Option<Shrunk>;
    /// The sequence diagram of `actions` ([`Diagram::build`]).
    fn diagram(&self, actions: &[Action]) -> Diagram;
    /// The state in words ([`crate::trace::in_full`]) before the first of
    /// `actions` and after each one replayed, as far as the replay got.
    fn pictures(&self, actions: &[Action]) -> Vec<String>;
    /// Serves stateright's explorer at `address` until the process stops.
    fn explore(&self, address: &str);
}

/// A replay told in words ([`AnyWorld::retell`]).
#[derive(Clone, Debug)]
pub struct Retold {
    pub steps: Vec<String>,
    pub stop: Option<Stop>,
    /// Whether the last state is a discovery for the property asked of.
    pub reached: bool,
}

/// A replay told in words, with the server's transitions: `entries[0]`
/// before the first step, `entries[n]` at step `n`.
#[derive(Clone, Debug)]
pub struct Journaled {
    pub retold: Retold,
    pub entries: Vec<Vec<crate::store::journal::Entry>>,
}

/// A variant as a scenario runs it: one of the recipe's presets, with the
/// knobs a presets file or the scenario turned (validated against the
/// recipe's knobs).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Tuning {
    /// What the scenario calls it: a preset of the recipe, or of a presets
    /// file.
    pub name: String,
    /// The recipe's preset it starts from.
    pub preset: &'static str,
    /// The knobs turned on top of `preset`, in order (a later setting of a
    /// knob wins): first the `named` ones its presets file gives `name`,
    /// then the scenario's own.
    pub turned: Vec<(&'static str, &'static str)>,
    pub named: usize,
}

impl Tuning {
    /// One of the recipe's presets, as it is.
    pub fn preset(preset: &'static str) -> Tuning {
        Tuning {
            name: preset.to_string(),
            preset,
            turned: Vec::new(),
            named: 0,
        }
    }

    /// The knobs the scenario itself turned (not its presets file).
    pub fn overrides(&self) -> &[(&'static str, &'static str)] {
        &self.turned[self.named..]
    }

    /// The recipe's settings it names.
    pub fn knobs<R: Catalogued>(&self) -> R::Variant {
        let mut knobs = lookup(R::VARIANTS, self.preset).expect("a validated variant");
        for (key, value) in &self.turned {
            knobs.set(key, value).expect("a validated knob");
        }
        knobs
    }
}

/// A variant in words, as `--variants` takes it: `guid`, or `guid
/// waits_on=lowest` with the knobs the scenario turned.
impl fmt::Display for Tuning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        for (key, value) in self.overrides() {
            write!(f, " {key}={value}")?;
        }
        Ok(())
    }
}

/// A variant is its words (`"guid waits_on=lowest"`).
impl PartialEq<&str> for Tuning {
    fn eq(&self, words: &&str) -> bool {
        self.to_string() == *words
    }
}

/// Which recipe and variant a scenario checks, and each client's script, by
/// the names the file used (validated against the recipe's tables).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subject {
    pub recipe: &'static str,
    /// Each client's variant.
    pub variants: Vec<Tuning>,
    /// Each client's script.
    pub scripts: Vec<Vec<&'static str>>,
    /// Which of each client's commands are given with a timeout, a bit per
    /// step (`"acquire with timeout"` in the file).
    pub timed: Vec<u8>,
}

/// How a script step asks for a timeout: `"acquire with timeout"`.
pub const WITH_TIMEOUT: &str = " with timeout";

impl Subject {
    /// Client `client`'s script as the file writes it.
    pub fn script_words(&self, client: usize) -> String {
        let timed = self.timed.get(client).copied().unwrap_or(0);
        let steps: Vec<String> = (self.scripts[client].iter().enumerate())
            .map(|(step, command)| {
                let timeout = if timed >> step & 1 == 1 {
                    WITH_TIMEOUT
                } else {
                    ""
                };
                format!("{command}{timeout}")
            })
            .collect();
        steps.join(", ")
    }

    /// Whether every client runs the same variant.
    pub fn one_variant(&self) -> Option<&Tuning> {
        let first = &self.variants[0];
        self.variants.iter().all(|v| v == first).then_some(first)
    }

    /// The variants in words: `guid`, or `guid, no_guid` for mixed clients.
    pub fn variant_words(&self) -> String {
        match self.one_variant() {
            Some(variant) => variant.to_string(),
            None => (self.variants.iter())
                .map(Tuning::to_string)
                .collect::<Vec<_>>()
                .join(", "),
        }
    }
}

/// What a scenario sets for a world, by the names its file used (validated
/// against the recipe's tables): what [`AnyRecipe::world`] builds from.
#[derive(Clone, Copy, Debug)]
pub struct Setting<'a> {
    pub subject: &'a Subject,
    /// The `[params]` table, read by the recipe ([`Params`]).
    pub params: &'a toml::Table,
    pub budget: &'a FaultBudget,
    pub expire_anytime: bool,
    /// Each client's library (`[library]`, [`World::libraries`]).
    pub libraries: &'a [crate::client::library::Profiled],
    pub store: StoreConfig,
    /// The nodes the server holds before the clients start.
    pub tree: &'a [StartingNode],
}

/// The catalogue's entry of recipe `R`.
pub struct Entry<R>(PhantomData<fn() -> R>);

impl<R> Entry<R> {
    pub const NEW: Entry<R> = Entry(PhantomData);
}

impl<R: Catalogued> Entry<R> {
    /// The typed world of a validated scenario of this recipe.
    pub fn typed_world(setting: &Setting) -> World<R> {
        let subject = setting.subject;
        let scripts = commands_of::<R>(&subject.scripts);
        let params =
            read_params::<R>(setting.params).expect("a validated scenario's parameters read");
        let recipes = subject
            .variants
            .iter()
            .map(|tuning| R::build(tuning.knobs::<R>(), &params, &scripts))
            .collect();
        World {
            recipes,
            scripts,
            timed: subject.timed.clone(),
            budget: setting.budget.clone(),
            expire_anytime: setting.expire_anytime,
            libraries: (setting.libraries.iter())
                .map(|profiled| profiled.library)
                .collect(),
            store: setting.store,
            tree: setting.tree.to_vec(),
            properties: R::properties,
        }
    }
}

/// A `[params]` table as the recipe's typed parameters.
fn read_params<R: Catalogued>(table: &toml::Table) -> Result<R::Params, toml::de::Error> {
    toml::Value::Table(table.clone()).try_into()
}

impl<R: Catalogued> AnyRecipe for Entry<R> {
    fn name(&self) -> &'static str {
        R::NAME
    }

    fn docs(&self) -> Docs {
        R::DOCS
    }

    fn variants(&self) -> Vec<&'static str> {
        R::VARIANTS.iter().map(|(name, _)| *name).collect()
    }

    fn knobs(&self) -> &'static [Knob] {
        <R::Variant as Knobs>::KNOBS
    }

    fn turned(&self, tuning: &Tuning) -> Vec<(&'static str, &'static str)> {
        crate::knobs::differences(&tuning.knobs::<R>(), &R::VARIANTS[0].1)
    }

    fn same_setting(&self, a: &Tuning, b: &Tuning) -> bool {
        a.knobs::<R>() == b.knobs::<R>()
    }

    fn preset(&self, variant: &str) -> Option<Vec<(&'static str, &'static str)>> {
        let preset = lookup(R::VARIANTS, variant)?;
        let value = |knob: &Knob| preset.get(knob.key).map(|value| (knob.key, value));
        Some(self.knobs().iter().filter_map(value).collect())
    }

    fn commands(&self) -> Vec<&'static str> {
        R::COMMANDS.iter().map(|(name, _)| *name).collect()
    }

    fn params(&self) -> &'static [(&'static str, &'static str)] {
        <R::Params as Params>::MEANINGS
    }

    fn default_params(&self) -> String {
        toml::to_string(&R::Params::default()).expect("parameters write as TOML")
    }

    fn parts(&self) -> Vec<(&'static str, &'static str)> {
        World::<R>::parts()
    }

    fn phases(&self) -> &'static [&'static str] {
        R::PHASES
    }

    fn properties(&self) -> Vec<Declared> {
        R::properties().iter().map(Promise::declared).collect()
    }

    fn check_scripts(&self, scripts: &[Vec<&'static str>]) -> Result<(), String> {
        R::check_scripts(&commands_of::<R>(scripts))
    }

    fn check_params(
        &self,
        table: &toml::Table,
        scripts: &[Vec<&'static str>],
    ) -> Result<(), (String, String)> {
        let meanings = <R::Params as Params>::MEANINGS;
        if meanings.is_empty() {
            if let Some(key) = table.keys().next() {
                return Err((
                    format!("params.{key}"),
                    format!(
                        "`{}` has no parameters; expected no `[params]` table",
                        R::NAME
                    ),
                ));
            }
        }
        let params = read_params::<R>(table).map_err(|error| {
            let keys: Vec<&str> = meanings.iter().map(|(key, _)| *key).collect();
            // The key the error is about: the one it names, else the one
            // that cannot be read on its own.
            let alone = |key: &String| {
                let one = toml::Table::from_iter([(key.clone(), table[key].clone())]);
                read_params::<R>(&one).is_err()
            };
            let key = (table.keys())
                .find(|key| error.message().contains(&format!("`{key}`")))
                .or_else(|| table.keys().find(|key| alone(key)))
                .map_or("params".to_string(), |key| format!("params.{key}"));
            // Serde's type names are for programmers; say what a person writes.
            let message = ["u8", "u16", "u32", "u64"].iter().fold(
                error.message().to_string(),
                |message, rust| {
                    message.replace(&format!("expected {rust}"), "expected a whole number")
                },
            );
            (
                key,
                format!(
                    "{message} (the parameters of `{}`: {})",
                    R::NAME,
                    keys.join(", ")
                ),
            )
        })?;
        R::check_params(&params, &commands_of::<R>(scripts))
            .map_err(|(key, message)| (key.to_string(), message))
    }

    fn check_faults(&self, budget: &FaultBudget) -> Result<(), (&'static str, String)> {
        R::check_faults(budget)
    }

    fn check_tuning(&self, tuning: &Tuning) -> Result<(), (&'static str, String)> {
        R::check_variant(&tuning.knobs::<R>())
    }

    fn renews(&self) -> bool {
        R::RENEWS
    }

    fn waits(&self) -> bool {
        R::WAITS
    }

    fn timeout(&self) -> Option<&'static str> {
        let reference = R::build(R::VARIANTS[0].1, &R::Params::default(), &[]);
        reference
            .timeout()
            .map(|command| command_name::<R>(&command))
    }

    fn directory(&self, scripts: &[Vec<&'static str>]) -> crate::store::Path {
        let reference = R::VARIANTS[0].1;
        let recipe = R::build(reference, &R::Params::default(), &commands_of::<R>(scripts));
        recipe.directory().clone()
    }

    fn setup(&self, scripts: &[Vec<&'static str>]) -> Vec<crate::store::Path> {
        let reference = R::VARIANTS[0].1;
        R::build(reference, &R::Params::default(), &commands_of::<R>(scripts)).setup()
    }

    fn world(&self, setting: &Setting) -> Box<dyn AnyWorld> {
        Box::new(Entry::<R>::typed_world(setting))
    }
}

impl<R: Recipe> AnyWorld for World<R> {
    fn clients(&self) -> usize {
        World::clients(self)
    }

    fn may_reduce(&self, asked: crate::reduce::Reductions) -> bool {
        let explored = crate::explore::Explored::new(self.clone(), asked);
        let reductions = explored.reductions();
        reductions.counters || reductions.symmetry || explored.reduces_order()
    }

    fn properties(&self) -> Vec<(&'static str, Expectation)> {
        Model::properties(self)
            .iter()
            .map(|property| (property.name, property.expectation.clone()))
            .collect()
    }

    fn check(
        &self,
        options: &CheckOptions,
        expect: &[(&'static str, Expected)],
        bound: &Termination,
    ) -> Outcome {
        check_bounded(self.clone(), options, expect, bound)
    }

    fn simulate(
        &self,
        options: SimulateOptions,
        expect: &[(&'static str, Expected)],
        progress: Option<fn(&WalkProgress)>,
    ) -> Outcome {
        crate::simulate::simulate_world(self, options, expect, progress)
    }

    fn walk(&self, seed: u64, max_depth: usize) -> Walk {
        crate::simulate::walk(self, seed, max_depth)
    }

    fn trace(&self, property: &str, actions: &[Action]) -> Option<Trace> {
        let property = self.find_property(property)?;
        Some(Trace::replay(self, &property, actions))
    }

    fn retell(&self, property: &str, actions: &[Action]) -> Retold {
        let replayed = crate::trace::replay(self, actions);
        let reached = self
            .find_property(property)
            .is_some_and(|property| crate::trace::discovered(self, &property, replayed.last()));
        Retold {
            steps: replayed.steps.into_iter().map(|step| step.text).collect(),
            stop: replayed.stop,
            reached,
        }
    }

    fn journal(&self, property: &str, actions: &[Action]) -> Journaled {
        use crate::store::journal;
        // Each prefix is replayed from the start, which is deterministic, so a
        // step's entries are what its prefix wrote beyond the one before.
        let mut entries = Vec::with_capacity(actions.len() + 1);
        let mut before: Vec<journal::Entry> = Vec::new();
        for end in 0..=actions.len() {
            let (replayed, all) = journal::record(|| crate::trace::replay(self, &actions[..end]));
            assert!(
                all.starts_with(&before),
                "a replay writes the same journal for the same steps"
            );
            entries.push(all[before.len()..].to_vec());
            before = all;
            if replayed.stop.is_some() {
                break;
            }
        }
        Journaled {
            retold: self.retell(property, actions),
            entries,
        }
    }

    fn replay_loop(&self, actions: &[Action], depth_bound: usize) -> Result<String, String> {
        crate::check::termination::replay_loop(self, actions, depth_bound)
    }

    fn shrink(&self, property: &str, actions: &[Action], steps_max: u64) -> Option<Shrunk> {
        let property = self.find_property(property)?;
        let found = |state: &_| crate::trace::discovered(self, &property, state);
        crate::shrink::shrink(self, found, actions, steps_max)
    }

    fn diagram(&self, actions: &[Action]) -> Diagram {
        Diagram::build(self, actions)
    }

    fn pictures(&self, actions: &[Action]) -> Vec<String> {
        let replayed = crate::trace::replay(self, actions);
        (1..=replayed.states.len())
            .map(|taken| crate::trace::in_full(&replayed.states[..taken]))
            .collect()
    }

    /// The explorer browses the world as the check searches it (its
    /// reductions made), each step told as a trace tells it.
    fn explore(&self, address: &str) {
        let explored = crate::explore::Explored::new(self.clone(), crate::reduce::Reductions::ALL);
        explored.checker().serve(address);
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

fn lookup<T: Copy>(table: &[(&'static str, T)], name: &str) -> Option<T> {
    table
        .iter()
        .find(|(known, _)| *known == name)
        .map(|(_, value)| *value)
}
