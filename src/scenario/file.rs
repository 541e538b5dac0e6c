//! A scenario file's text, read and validated section by section into a
//! [`Scenario`]. Each section has its function; each error names the file,
//! the key and what was expected.

use std::collections::BTreeMap;
use std::path::Path as FsPath;

use serde::Deserialize;
use toml::Spanned;

use super::tuning::{tuning, turn_table, Preset};
use super::{
    Scenario, ScenarioError, Subject, CLIENTS_MAX, FAULT_BUDGET_MAX, SCRIPT_LEN_MAX, WITH_TIMEOUT,
};
use crate::catalogue::{AnyRecipe, Recipes, Tuning};
use crate::check::Expected;
use crate::client::library::Profiled;
use crate::knobs::Knobs as _;
use crate::properties::termination::{CheckSection, Termination, TERMINATES};
use crate::store::{ChildOrder, StoreConfig};
use crate::text::{did_you_mean, expected_one_of};
use crate::world::faults::{
    Aimed, Bounds, FaultBudget, Kind, Target, AIMED_MAX, DECLARATIONS, KINDS,
};
use crate::world::StartingNode;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    description: String,
    recipe: String,
    variant: Option<String>,
    knobs: Option<toml::Table>,
    clients: Option<u8>,
    script: Option<Vec<String>>,
    scripts: Option<Vec<Vec<String>>>,
    #[serde(default)]
    client: Vec<ClientSection>,
    params: Option<toml::Table>,
    #[serde(default)]
    faults: FaultsSection,
    #[serde(default)]
    fault: Vec<AimedSection>,
    #[serde(default)]
    store: StoreSection,
    library: Option<toml::Table>,
    #[serde(default)]
    check: CheckSection,
    expect: BTreeMap<String, String>,
}

/// A `[[client]]` table: what one client does differently from the rest.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClientSection {
    variant: Option<String>,
    knobs: Option<toml::Table>,
    library: Option<toml::Table>,
    script: Option<Vec<String>>,
}

/// The `[faults]` table: a budget at any client for each kind of fault,
/// by the names [`DECLARATIONS`] gives them, and `expire_anytime`. Read as
/// spanned keys and values, so that an error names its line.
type FaultsSection = BTreeMap<Spanned<String>, Spanned<toml::Value>>;

/// The keys `[faults]` takes: every kind's name, then `expire_anytime`.
const FAULTS_KEYS: [&str; KINDS + 1] = {
    let mut keys = ["expire_anytime"; KINDS + 1];
    let mut kind = 0;
    while kind < KINDS {
        keys[kind] = DECLARATIONS[kind].name;
        kind += 1;
    }
    keys
};

/// A `[[fault]]` table: a fault aimed at one client or at a part.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AimedSection {
    kind: String,
    client: Option<u8>,
    target: Option<String>,
    phase: Option<String>,
    #[serde(default = "one")]
    count: u8,
}

fn one() -> u8 {
    1
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
struct StoreSection {
    sequence_bits: Option<u32>,
    version_bits: Option<u32>,
    child_order: Option<String>,
    servers: Option<i64>,
    lag: Option<i64>,
    ttl_expiries: Option<i64>,
    node: Vec<NodeSection>,
}

/// A `[[store.node]]` table: a node the server holds before the clients
/// start.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NodeSection {
    path: String,
    data: Option<String>,
    #[serde(default)]
    ephemeral: bool,
    #[serde(default)]
    sequential: bool,
    next_sequence: Option<i64>,
}

/// The most nodes a starting tree may hold.
const TREE_MAX: usize = 8;

/// Makes errors about one file.
struct Errors<'a> {
    file: &'a FsPath,
    text: &'a str,
}

impl Errors<'_> {
    fn at(&self, key: &str, message: String) -> ScenarioError {
        ScenarioError {
            file: self.file.to_path_buf(),
            key: key.to_string(),
            message,
        }
    }

    /// An error at what starts at byte `offset`, naming its line.
    fn at_line(&self, key: &str, message: String, offset: usize) -> ScenarioError {
        let line = self.text[..offset.min(self.text.len())]
            .matches('\n')
            .count()
            + 1;
        self.at(key, format!("{message} (line {line})"))
    }
}

/// Parses and validates scenario text; `file` is only for messages.
pub(super) fn parse(
    text: &str,
    file: &FsPath,
    name: &str,
    recipes: Recipes,
) -> Result<Scenario, ScenarioError> {
    let errors = Errors { file, text };
    let mut raw = read_toml(text, &errors)?;
    let recipe = recipes.find(&raw.recipe).ok_or_else(|| {
        errors.at(
            "recipe",
            format!(
                "unknown recipe {}",
                expected_one_of(&raw.recipe, &recipes.names())
            ),
        )
    })?;
    let clients = clients(&raw, &errors)?;
    let (scripts, timed) = scripts(&raw, recipe, clients, &errors)?;
    let presets = super::tuning::presets_for(file, recipe, recipes)?;
    let variants = variants(&raw, recipe, &presets, clients, &errors)?;
    let params = raw.params.clone().unwrap_or_default();
    recipe
        .check_params(&params, &scripts)
        .map_err(|(key, message)| errors.at(&key, message))?;
    let store = store(&raw.store, &errors)?;
    let (any, expire_anytime) = faults_any(&raw.faults, &errors)?;
    let budget = faults(
        &raw,
        any,
        expire_anytime,
        (recipe, recipes),
        clients,
        store.servers,
        &errors,
    )?;
    let libraries = libraries(&raw, clients, &errors)?;
    check_libraries(&libraries, &budget, recipe, recipes, &errors)?;
    let tree = tree(
        &raw.store.node,
        recipe.directory(&scripts),
        &recipe.setup(&scripts),
        store,
        &errors,
    )?;
    let termination = Termination::parse(&raw.check, raw.expect.remove(TERMINATES).as_deref())
        .map_err(|(key, message)| errors.at(key, message))?;
    let expect = expect(&raw.expect, recipe, &errors)?;
    Ok(Scenario {
        recipes,
        name: name.to_string(),
        file: file.to_path_buf(),
        description: raw.description,
        subject: Subject {
            recipe: recipe.name(),
            variants,
            scripts,
            timed,
        },
        clients,
        params,
        budget,
        expire_anytime,
        libraries,
        store,
        tree,
        expect,
        termination,
        column: None,
    })
}

/// The file as TOML, or an error naming the line and the key.
fn read_toml(text: &str, errors: &Errors) -> Result<File, ScenarioError> {
    toml::from_str(text).map_err(|e| {
        // Serde's type names are for programmers; say what a person writes.
        let message = e.message();
        match e.span() {
            Some(span) => {
                let line = text[..span.start].matches('\n').count() + 1;
                let key = key_at(text, span.start, message);
                let message = for_people(message, &key);
                errors.at(&key, format!("{message} (line {line})"))
            }
            None => errors.at("", for_people(message, "")),
        }
    })
}

/// How many clients: `clients`, or as many as `[[client]]` tables.
fn clients(raw: &File, errors: &Errors) -> Result<u8, ScenarioError> {
    let tables = raw.client.len();
    let clients = match raw.clients {
        Some(clients) => {
            if tables > 0 && tables != usize::from(clients) {
                return Err(errors.at(
                    "client",
                    format!("{tables} [[client]] tables for {clients} clients; expected one per client"),
                ));
            }
            clients
        }
        None if tables > 0 => u8::try_from(tables).unwrap_or(u8::MAX),
        None => {
            return Err(errors.at(
                "clients",
                format!("missing; expected a whole number from 1 to {CLIENTS_MAX}, or one [[client]] table per client"),
            ))
        }
    };
    if clients == 0 || clients > CLIENTS_MAX {
        return Err(errors.at(
            "clients",
            format!("{clients} clients; expected 1 to {CLIENTS_MAX}"),
        ));
    }
    Ok(clients)
}

/// Each client's script: its `[[client]]`'s, else its entry of `scripts`,
/// else `script`; checked command by command, then as a group. With each
/// client's steps given with a timeout, a bit per step.
fn scripts(
    raw: &File,
    recipe: &dyn AnyRecipe,
    clients: u8,
    errors: &Errors,
) -> Result<(Vec<Vec<&'static str>>, Vec<u8>), ScenarioError> {
    let commands = recipe.commands();
    if raw.script.is_some() && raw.scripts.is_some() {
        return Err(errors.at(
            "scripts",
            "given beside `script`; expected one of them (`script` for every client alike, `scripts` for one each)".into(),
        ));
    }
    if let Some(scripts) = &raw.scripts {
        if scripts.len() != usize::from(clients) {
            return Err(errors.at(
                "scripts",
                format!(
                    "{} scripts for {clients} clients; expected one per client",
                    scripts.len()
                ),
            ));
        }
    }
    let mut checked = Vec::with_capacity(usize::from(clients));
    let mut timed = Vec::with_capacity(usize::from(clients));
    for client in 0..usize::from(clients) {
        let own = raw
            .client
            .get(client)
            .and_then(|table| table.script.as_ref());
        let (key, script) = match (own, &raw.scripts, &raw.script) {
            (Some(_), Some(_), _) => {
                return Err(errors.at(
                    &format!("client[{client}].script"),
                    "given beside `scripts`; expected a client's script in one place".into(),
                ));
            }
            (Some(script), None, _) => (format!("client[{client}].script"), script),
            (None, Some(scripts), _) => (format!("scripts[{client}]"), &scripts[client]),
            (None, None, Some(script)) => ("script".to_string(), script),
            (None, None, None) => {
                return Err(errors.at(
                    "script",
                    format!(
                        "missing; expected `script` (every client alike), `scripts` (one per client) or a `script` in each [[client]], with commands of {}",
                        commands.join(", ")
                    ),
                ))
            }
        };
        if script.is_empty() || script.len() > SCRIPT_LEN_MAX {
            return Err(errors.at(
                &key,
                format!(
                    "{} commands; expected 1 to {SCRIPT_LEN_MAX} of {}",
                    script.len(),
                    commands.join(", ")
                ),
            ));
        }
        let mut bits = 0u8;
        let mut steps = Vec::with_capacity(script.len());
        for (step, written) in script.iter().enumerate() {
            let command = match written.strip_suffix(WITH_TIMEOUT) {
                Some(command) => {
                    if recipe.timeout().is_none() {
                        return Err(errors.at(
                            &key,
                            format!("{}: the calls of `{}` cannot time out; expected a command without \"{}\"", crate::text::quoted(written, 60), recipe.name(), WITH_TIMEOUT.trim()),
                        ));
                    }
                    bits |= 1 << step;
                    command
                }
                None => written.as_str(),
            };
            let command = known(&commands, command)
                .ok_or_else(|| errors.at(&key, expected_one_of(command, &commands)))?;
            steps.push(command);
        }
        checked.push(steps);
        timed.push(bits);
    }
    let group_key = if raw.scripts.is_some() {
        "scripts"
    } else if raw.client.iter().any(|table| table.script.is_some()) {
        "client"
    } else {
        "script"
    };
    recipe
        .check_scripts(&checked)
        .map_err(|expected| errors.at(group_key, expected))?;
    if timed.iter().all(|bits| *bits == 0) {
        timed.clear();
    }
    Ok((checked, timed))
}

/// Each client's variant: its `[[client]]`'s, else `variant`, with the
/// knobs `[knobs]` turns and then its `[[client]]`'s `knobs`.
fn variants(
    raw: &File,
    recipe: &dyn AnyRecipe,
    presets: &[Preset],
    clients: u8,
    errors: &Errors,
) -> Result<Vec<Tuning>, ScenarioError> {
    let mut names = recipe.variants();
    names.extend(presets.iter().map(|preset| preset.name.as_str()));
    let turned = |table: Option<&toml::Table>, at: &str| {
        table.map_or(Ok(Vec::new()), |table| {
            turn_table(recipe, table, at).map_err(|(key, message)| errors.at(&key, message))
        })
    };
    let every = turned(raw.knobs.as_ref(), "knobs")?;
    (0..usize::from(clients))
        .map(|client| {
            let section = raw.client.get(client);
            let own = section.and_then(|table| table.variant.as_ref());
            let (key, name) = match (own, &raw.variant) {
                (Some(name), _) => (format!("client[{client}].variant"), name),
                (None, Some(name)) => ("variant".to_string(), name),
                (None, None) => {
                    return Err(errors.at(
                        "variant",
                        format!(
                            "missing; expected `variant` (every client's) or a `variant` in each [[client]], one of {}",
                            names.join(", ")
                        ),
                    ))
                }
            };
            let own_knobs = section.and_then(|table| table.knobs.as_ref());
            let mut overrides = every.clone();
            overrides.extend(turned(own_knobs, &format!("client[{client}].knobs"))?);
            let tuning = tuning(recipe, name, presets, &overrides)
                .map_err(|message| errors.at(&key, message))?;
            // Knobs that cannot go together: named where the scenario set
            // the one refused, or at the variant whose preset did.
            recipe.check_tuning(&tuning).map_err(|(knob, message)| {
                let at = if own_knobs.is_some_and(|table| table.contains_key(knob)) {
                    format!("client[{client}].knobs.{knob}")
                } else if raw.knobs.as_ref().is_some_and(|table| table.contains_key(knob)) {
                    format!("knobs.{knob}")
                } else {
                    key.clone()
                };
                errors.at(&at, message)
            })?;
            Ok(tuning)
        })
        .collect()
}

/// The `[faults]` table: each kind's budget at any client, by the names
/// its declaration gives, and `expire_anytime`.
fn faults_any(
    section: &FaultsSection,
    errors: &Errors,
) -> Result<([u8; KINDS], bool), ScenarioError> {
    let mut any = [0; KINDS];
    let mut expire_anytime = false;
    for (key, value) in section {
        let name = key.get_ref().as_str();
        let at = |message: String| {
            errors.at_line(&format!("faults.{name}"), message, value.span().start)
        };
        if name == "expire_anytime" {
            expire_anytime = match value.get_ref() {
                toml::Value::Boolean(switch) => *switch,
                other => {
                    return Err(at(format!(
                        "invalid type: {}, expected a boolean",
                        value_words(other)
                    )))
                }
            };
            continue;
        }
        let Some(kind) = Kind::named(name) else {
            let expected: Vec<String> = FAULTS_KEYS.iter().map(|key| format!("`{key}`")).collect();
            return Err(errors.at_line(
                &format!("faults.{}", crate::text::shorten(name, 60)),
                format!(
                    "unknown field `{name}`, expected one of {}",
                    expected.join(", ")
                ),
                key.span().start,
            ));
        };
        let whole = format!("a whole number from 0 to {FAULT_BUDGET_MAX}");
        let count = match value.get_ref() {
            toml::Value::Integer(count) => u8::try_from(*count).map_err(|_| {
                at(format!(
                    "invalid value: integer `{count}`, expected {whole}"
                ))
            })?,
            other => {
                return Err(at(format!(
                    "invalid type: {}, expected {whole}",
                    value_words(other)
                )))
            }
        };
        if count > FAULT_BUDGET_MAX {
            return Err(errors.at(
                &format!("faults.{name}"),
                format!("{count}; expected at most {FAULT_BUDGET_MAX} (every fault multiplies the states)"),
            ));
        }
        any[kind as usize] = count;
    }
    Ok((any, expire_anytime))
}

/// A TOML value's type in serde's words: `string "1"`, `floating point `1.5``.
fn value_words(value: &toml::Value) -> String {
    match value {
        toml::Value::String(text) => format!("string {text:?}"),
        toml::Value::Integer(number) => format!("integer `{number}`"),
        toml::Value::Float(number) => format!("floating point `{number}`"),
        toml::Value::Boolean(switch) => format!("boolean `{switch}`"),
        toml::Value::Datetime(_) => "datetime".to_string(),
        toml::Value::Array(_) => "sequence".to_string(),
        toml::Value::Table(_) => "map".to_string(),
    }
}

/// The fault budgets: `[faults]` at any client and each `[[fault]]` aimed.
fn faults(
    raw: &File,
    any: [u8; KINDS],
    expire_anytime: bool,
    (recipe, recipes): (&dyn AnyRecipe, Recipes),
    clients: u8,
    servers: u8,
    errors: &Errors,
) -> Result<FaultBudget, ScenarioError> {
    let mut budget = FaultBudget {
        any,
        aimed: Vec::new(),
    };
    if raw.fault.len() > AIMED_MAX {
        return Err(errors.at(
            "fault",
            format!(
                "{} aimed faults; expected at most {AIMED_MAX}",
                raw.fault.len()
            ),
        ));
    }
    for (index, section) in raw.fault.iter().enumerate() {
        budget
            .aimed
            .push(aimed(section, index, recipe, clients, errors)?);
    }
    // What each kind budgeted allows, said at its key: `faults.<kind>`, or
    // the first aimed one's kind if none is at any client.
    let waiting: Vec<&str> = (recipes.list().iter())
        .filter(|known| known.waits())
        .map(|known| known.name())
        .collect();
    let waiting_recipes = waiting.join(", ");
    let bounds = Bounds {
        budget: &budget,
        servers,
        waits: recipe.waits(),
        waiting_recipes: &waiting_recipes,
    };
    for (kind, _) in budget.kinds() {
        if let Err(message) = (kind.declaration().bounds)(&bounds) {
            let aimed = (budget.aimed.iter()).position(|aimed| aimed.kind == kind);
            let key = match (budget.any[kind as usize], aimed) {
                (0, Some(index)) => format!("fault[{index}].kind"),
                _ => format!("faults.{}", kind.name()),
            };
            return Err(errors.at(&key, message));
        }
    }
    recipe
        .check_faults(&budget)
        .map_err(|(key, message)| errors.at(key, message))?;
    if expire_anytime && budget.total(Kind::Expire) == 0 {
        return Err(errors.at(
            "faults.expire_anytime",
            "true but no expiry is budgeted; set `faults.expire` or aim an expiry for it to mean anything"
                .into(),
        ));
    }
    Ok(budget)
}

/// One `[[fault]]`: its kind, whom it aims at, and how many times.
fn aimed(
    section: &AimedSection,
    index: usize,
    recipe: &dyn AnyRecipe,
    clients: u8,
    errors: &Errors,
) -> Result<Aimed, ScenarioError> {
    let key = |field: &str| format!("fault[{index}].{field}");
    let kind = Kind::named(&section.kind)
        .ok_or_else(|| errors.at(&key("kind"), expected_one_of(&section.kind, &Kind::names())))?;
    if section.count == 0 || section.count > FAULT_BUDGET_MAX {
        return Err(errors.at(
            &key("count"),
            format!("{}; expected 1 to {FAULT_BUDGET_MAX}", section.count),
        ));
    }
    let parts = recipe.parts();
    let part_names: Vec<&str> = parts.iter().map(|(name, _)| *name).collect();
    let phases = recipe.phases();
    let aims = [
        section.client.map(|_| "client"),
        section.target.as_ref().map(|_| "target"),
        section.phase.as_ref().map(|_| "phase"),
    ];
    let given: Vec<&str> = aims.into_iter().flatten().collect();
    if given.len() > 1 {
        return Err(errors.at(
            &key(given[1]),
            format!(
                "given beside `{}`; expected one of them (a client by number, a part it plays, or a phase it is in)",
                given[0]
            ),
        ));
    }
    let target = match (section.client, &section.target, &section.phase) {
        (Some(client), _, _) if client < clients => Target::Client(usize::from(client)),
        (Some(client), _, _) => {
            return Err(errors.at(
                &key("client"),
                format!(
                    "c{client}, but there are {clients} clients; expected 0 to {}",
                    clients - 1
                ),
            ))
        }
        (None, Some(name), _) => {
            let index = (part_names.iter().position(|known| known == name)).ok_or_else(|| {
                errors.at(
                    &key("target"),
                    format!(
                        "no part of `{}` is called that: {}",
                        recipe.name(),
                        expected_one_of(name, &part_names)
                    ),
                )
            })?;
            Target::Role {
                index: index as u8,
                name: part_names[index],
            }
        }
        (None, None, Some(name)) => {
            let bit = (phases.iter().position(|known| known == name)).ok_or_else(|| {
                let message = if phases.is_empty() {
                    format!(
                        "`{}` names no phases; expected a fault aimed with `client` or `target`",
                        recipe.name()
                    )
                } else {
                    format!(
                        "no phase of `{}` is called that: {}",
                        recipe.name(),
                        expected_one_of(name, phases)
                    )
                };
                errors.at(&key("phase"), message)
            })?;
            Target::Phase {
                bit: bit as u8,
                name: phases[bit],
            }
        }
        (None, None, None) => {
            let mut aims = vec!["`client = N`".to_string()];
            if !part_names.is_empty() {
                aims.push(format!("`target` = one of {}", part_names.join(", ")));
            }
            if !phases.is_empty() {
                aims.push(format!("`phase` = one of {}", phases.join(", ")));
            }
            let last = aims.pop().expect("a client is always an aim");
            let aims = match aims.is_empty() {
                true => last,
                false => format!("{} or {last}", aims.join(", ")),
            };
            return Err(errors.at(
                &format!("fault[{index}]"),
                format!("aims at nobody; expected {aims}"),
            ));
        }
    };
    // A crash starts the recipe over, so a crashed client, the one a
    // restart strikes, is never in a later phase: such a fault would never
    // strike, and a question that budgets it would silently ask less.
    if kind == Kind::Restart && matches!(target, Target::Phase { .. }) {
        return Err(errors.at(
            &key("phase"),
            "a restart aimed at a phase; a restart strikes only a crashed client, whose recipe has started over, so it is in no phase it reached; expected `client` or `target`, or a budget under [faults]".into(),
        ));
    }
    Ok(Aimed {
        kind,
        target,
        count: section.count,
    })
}

/// Each client's library: the profile its `[[client]]`'s `library`
/// names, else `[library]`'s, else the Java client's; then the settings
/// `[library]` turns, then its own.
fn libraries(raw: &File, clients: u8, errors: &Errors) -> Result<Vec<Profiled>, ScenarioError> {
    let every = raw.library.as_ref();
    (0..usize::from(clients))
        .map(|client| {
            let own = raw.client.get(client).and_then(|table| table.library.as_ref());
            let own_key = format!("client[{client}].library");
            let profile = |table: Option<&toml::Table>, at: &str| match table
                .and_then(|table| table.get("profile"))
            {
                None => Ok(None),
                Some(toml::Value::String(name)) => Profiled::named(name)
                    .map(Some)
                    .map_err(|message| errors.at(&format!("{at}.profile"), message)),
                Some(other) => Err(errors.at(
                    &format!("{at}.profile"),
                    format!("{}; expected a profile's name in quotes", value_words(other)),
                )),
            };
            let mut profiled = match profile(own, &own_key)? {
                Some(profiled) => profiled,
                None => profile(every, "library")?.unwrap_or_default(),
            };
            for (table, at) in [(every, "library"), (own, own_key.as_str())] {
                for (key, value) in table.into_iter().flatten() {
                    if key == "profile" {
                        continue;
                    }
                    let key_at = format!("{at}.{key}");
                    let name = super::tuning::value_name(value).ok_or_else(|| {
                        errors.at(
                            &key_at,
                            format!("{value}; expected a setting's value: true, false or a name in quotes"),
                        )
                    })?;
                    profiled
                        .library
                        .set(key, &name)
                        .map_err(|_| errors.at(&key_at, unknown_setting(key, &name)))?;
                }
            }
            Ok(profiled)
        })
        .collect()
}

/// Why `key = name` is no setting of a client library, as the library's
/// declaration ([`Library::KNOBS`]) says what it takes.
fn unknown_setting(key: &str, name: &str) -> String {
    let knobs = crate::client::Library::KNOBS;
    match knobs.iter().find(|knob| knob.key == key) {
        Some(knob) => format!(
            "setting `{key}` has no value {}",
            expected_one_of(name, &knob.value_names())
        ),
        None => {
            let keys: Vec<&str> = knobs.iter().map(|knob| knob.key).collect();
            format!("unknown setting {}", expected_one_of(key, &keys))
        }
    }
}

/// What the clients' libraries cannot run: a renewal the recipe does not
/// model, a library giving up that no client's library does.
fn check_libraries(
    libraries: &[Profiled],
    budget: &FaultBudget,
    recipe: &dyn AnyRecipe,
    recipes: Recipes,
    errors: &Errors,
) -> Result<(), ScenarioError> {
    if let Some(client) = libraries
        .iter()
        .position(|profiled| profiled.library.renews())
    {
        if !recipe.renews() {
            let renewing: Vec<&str> = (recipes.list().iter())
                .filter(|known| known.renews())
                .map(|known| known.name())
                .collect();
            return Err(errors.at(
                "library.on_expiry",
                format!(
                    "client {client}'s library `{}` renews its session, but `{}` stops once its session is gone; renewal is modelled for {}",
                    libraries[client],
                    recipe.name(),
                    renewing.join(", ")
                ),
            ));
        }
    }
    let gives_up = |client: usize| libraries[client].library.gives_up;
    let refuse = |key: &str, whose: String| {
        errors.at(
            key,
            format!(
                "{whose} gives its session up on its own (java and kazoo2 learn of an expiry from a server only); expected a library that does: `profile = \"curator5\"` or `gives_up = true` under [library]"
            ),
        )
    };
    if budget.any[Kind::Abandon as usize] > 0 && !(0..libraries.len()).any(gives_up) {
        return Err(refuse("faults.abandon", "no client's library".into()));
    }
    for (index, aimed) in budget.aimed.iter().enumerate() {
        if aimed.kind != Kind::Abandon {
            continue;
        }
        match aimed.target {
            Target::Client(client) if !gives_up(client) => {
                return Err(refuse(
                    &format!("fault[{index}].client"),
                    format!("client {client}'s library (`{}`) never", libraries[client]),
                ));
            }
            Target::Client(_) => {}
            _ if !(0..libraries.len()).any(gives_up) => {
                return Err(refuse(
                    &format!("fault[{index}].kind"),
                    "no client's library".into(),
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// The server's settings.
fn store(section: &StoreSection, errors: &Errors) -> Result<StoreConfig, ScenarioError> {
    let mut store = StoreConfig::default();
    if let Some(bits) = section.sequence_bits {
        if !(2..=32).contains(&bits) {
            return Err(errors.at("store.sequence_bits", format!("{bits}; expected 2 to 32")));
        }
        store.sequence_bits = bits;
    }
    if let Some(bits) = section.version_bits {
        if !(2..=32).contains(&bits) {
            return Err(errors.at("store.version_bits", format!("{bits}; expected 2 to 32")));
        }
        store.version_bits = bits;
    }
    if let Some(order) = &section.child_order {
        store.child_order = match order.as_str() {
            "hashed" => ChildOrder::Hashed,
            "reversed" => ChildOrder::Reversed,
            other => {
                return Err(errors.at(
                    "store.child_order",
                    expected_one_of(other, &["hashed", "reversed"]),
                ))
            }
        };
    }
    if let Some(servers) = section.servers {
        if !(1..=SERVERS_MAX).contains(&servers) {
            return Err(errors.at(
                "store.servers",
                format!("{servers}; expected 1 (one server) to {SERVERS_MAX} (an ensemble)"),
            ));
        }
        store.servers = servers as u8;
    }
    if let Some(lag) = section.lag {
        if store.servers == 1 {
            return Err(errors.at(
                "store.lag",
                format!(
                    "{lag}, on one server; a lag is how far an ensemble's servers fall behind the leader's commits, so it needs servers of 2 or more"
                ),
            ));
        }
        if !(1..=LAG_MAX).contains(&lag) {
            return Err(errors.at("store.lag", format!("{lag}; expected 1 to {LAG_MAX}")));
        }
        store.lag = lag as u8;
    }
    if let Some(expiries) = section.ttl_expiries {
        if !(0..=TTL_EXPIRIES_MAX).contains(&expiries) {
            return Err(errors.at(
                "store.ttl_expiries",
                format!("{expiries}; expected 0 to {TTL_EXPIRIES_MAX}"),
            ));
        }
        store.ttl_expiries = expiries as u8;
    }
    Ok(store)
}

/// The most servers an ensemble may have.
const SERVERS_MAX: i64 = 5;

/// The most transactions a server may fall behind.
const LAG_MAX: i64 = 8;

/// The most TTL expiries a run may have.
const TTL_EXPIRIES_MAX: i64 = 8;

/// The starting tree: each node's parent is the root, the recipe's
/// directory or a node before it and not ephemeral; a node that already
/// exists (the directory) may only start its children's sequence counter;
/// and the server, given the recipe's `setup` nodes, creates every node (a
/// name the counter gives may be taken).
fn tree(
    sections: &[NodeSection],
    directory: crate::store::Path,
    setup: &[crate::store::Path],
    store: StoreConfig,
    errors: &Errors,
) -> Result<Vec<StartingNode>, ScenarioError> {
    if sections.len() > TREE_MAX {
        return Err(errors.at(
            "store.node",
            format!("{} nodes; expected at most {TREE_MAX}", sections.len()),
        ));
    }
    // Each node planted so far by the path a later node names it by, with
    // whether it can have no children (an ephemeral); a sequential node's
    // name is the server's, so no later node names it.
    let mut planted = vec![(crate::store::Path::root(), false), (directory, false)];
    let mut tree = Vec::new();
    for (index, section) in sections.iter().enumerate() {
        let key = |field: &str| format!("store.node[{index}].{field}");
        let shown = crate::text::quoted(&section.path, 80);
        crate::store::path::validate(&section.path, section.sequential).map_err(|why| {
            errors.at(
                &key("path"),
                format!("{shown}: {why}; expected an absolute path like \"/lock/leftover\""),
            )
        })?;
        let path = crate::store::Path::new(&section.path);
        let exists = !section.sequential && planted.iter().any(|(known, _)| *known == path);
        if section.sequential && section.next_sequence.is_some() {
            return Err(errors.at(
                &key("next_sequence"),
                "on a sequential node, whose name the server gives; expected it on the node's parent".to_string(),
            ));
        }
        if exists && (section.data.is_some() || section.ephemeral) {
            return Err(errors.at(
                &key("path"),
                format!("{shown} exists already (the recipe's directory or an earlier node); expected only its `next_sequence`"),
            ));
        }
        if !exists {
            let (parent, _) = path.split().unwrap_or((crate::store::Path::root(), ""));
            match planted.iter().find(|(known, _)| *known == parent) {
                None => return Err(errors.at(
                    &key("path"),
                    format!("{shown}: its parent {parent} is not there; expected the root, the recipe's directory or an earlier node"),
                )),
                Some((_, true)) => return Err(errors.at(
                    &key("path"),
                    format!("{shown}: its parent {parent} is ephemeral, and ephemerals have no children"),
                )),
                Some(_) => {}
            }
        }
        let max = (1i64 << (store.sequence_bits - 1)) - 1;
        let min = -max - 1;
        let next_sequence = match section.next_sequence {
            Some(next) if section.ephemeral => {
                return Err(errors.at(
                    &key("next_sequence"),
                    format!("{next} on an ephemeral node, which has no children; expected none"),
                ))
            }
            Some(next) if !(min..=max).contains(&next) => {
                return Err(errors.at(
                    &key("next_sequence"),
                    format!(
                        "{next}; expected {min} to {max} (the counter is {} bits wide, and \
                         negative once it has wrapped)",
                        store.sequence_bits
                    ),
                ))
            }
            next => next.map(|next| next as i32),
        };
        if !exists && !section.sequential {
            planted.push((path.clone(), section.ephemeral));
        }
        tree.push(StartingNode {
            path,
            data: section
                .data
                .as_ref()
                .and_then(|data| crate::store::data(data.as_bytes())),
            ephemeral: section.ephemeral,
            sequential: section.sequential,
            next_sequence,
        });
    }
    let mut scratch = crate::store::Store::new(store);
    let owner = scratch.open_session();
    for path in setup {
        let create = crate::store::Op::Create {
            path: path.clone(),
            data: None,
            mode: crate::store::CreateMode::Persistent,
        };
        scratch.apply(owner, &create);
    }
    if let Err(refused) = crate::world::plant(&tree, &mut scratch, owner) {
        let index = refused.index;
        let node = &sections[index];
        let why = match refused.code {
            crate::store::ErrorCode::NodeExists if node.sequential => format!(
                "the server would name it after its parent's counter, and a node of that name \
                 is planted before it (code {})",
                refused.code.name()
            ),
            crate::store::ErrorCode::NodeExists => format!(
                "a node of that name is there already (named so by the server's counter, or one \
                 the recipe makes), and only a new node takes `data` or `ephemeral` (code {})",
                refused.code.name()
            ),
            code => format!("the server refuses to create it ({})", code.name()),
        };
        return Err(errors.at(
            &format!("store.node[{index}].path"),
            format!(
                "{}: {why}; expected a tree the server can create in this order",
                crate::text::quoted(&node.path, 80)
            ),
        ));
    }
    Ok(tree)
}

/// Every property of the recipe with its expected verdict, in the recipe's
/// order; a property the recipe does not have is an error.
fn expect(
    given: &BTreeMap<String, String>,
    recipe: &dyn AnyRecipe,
    errors: &Errors,
) -> Result<Vec<(&'static str, Expected)>, ScenarioError> {
    let properties = recipe.properties();
    let known: Vec<&str> = (properties.iter().map(|declared| declared.name))
        .chain([TERMINATES])
        .collect();
    if let Some(unknown) = given.keys().find(|key| !known.contains(&key.as_str())) {
        let hint = did_you_mean(unknown, &known)
            .map(|near| format!("did you mean `{near}`? "))
            .unwrap_or_default();
        return Err(errors.at(
            &format!("expect.{unknown}"),
            format!(
                "no such property of `{}`; {hint}expected one of {}",
                recipe.name(),
                known.join(", ")
            ),
        ));
    }
    let mut expect = Vec::new();
    for declared in &properties {
        let property = &declared.name;
        let key = format!("expect.{property}");
        let allowed: [&str; 2] = if declared.always {
            ["holds", "violated"]
        } else {
            ["reached", "unreached"]
        };
        let Some(verdict) = given.get(*property) else {
            match declared.default {
                Some(_) => {
                    let usual = Expected::parse(declared.usual(), declared.always)
                        .expect("a declared default is a verdict of its kind");
                    expect.push((*property, Expected::by_default(usual.verdict)));
                    continue;
                }
                None => {
                    return Err(errors.at(
                        &key,
                        format!(
                            "missing; expected {} or {} (`{}` has no default in `{}`: every scenario states it)",
                            allowed[0],
                            allowed[1],
                            property,
                            recipe.name()
                        ),
                    ))
                }
            }
        };
        let Some(expected) = Expected::parse(verdict, declared.always) else {
            return Err(errors.at(&key, expected_one_of(verdict, &allowed)));
        };
        expect.push((*property, expected));
    }
    Ok(expect)
}

/// A TOML error's message in the words a person writes: the range the key
/// takes, where serde names a Rust type.
fn for_people(message: &str, key: &str) -> String {
    let whole_number = if key.starts_with("faults.") || key == "fault.count" {
        format!("a whole number from 0 to {FAULT_BUDGET_MAX}")
    } else if key == "clients" {
        format!("a whole number from 1 to {CLIENTS_MAX}")
    } else if key == "store.sequence_bits" || key == "store.version_bits" {
        "a whole number from 2 to 32".to_string()
    } else {
        "a whole number".to_string()
    };
    let message = message
        .replace("expected u8", &format!("expected {whole_number}"))
        .replace("expected u32", &format!("expected {whole_number}"));
    // The table the client library's settings had before they were more
    // than one (`on_expiry`).
    if key == "session" && message.starts_with("unknown field `session`") {
        return format!(
            "{message}; `[session] on_expiry` is `[library] on_expiry` now, beside the client \
             library's other settings"
        );
    }
    message
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

/// The name in `names` equal to `name`, with the table's lifetime.
fn known(names: &[&'static str], name: &str) -> Option<&'static str> {
    names.iter().copied().find(|known| *known == name)
}
