//! `list` the recipes and scenarios, and write a `new` scenario file.

use std::path::Path;
use std::process::ExitCode;

use serde::Serialize;
use zoocheck::catalogue::{self, AnyRecipe, Tuning};
use zoocheck::faults::DECLARATIONS;
use zoocheck::knobs::paragraph;
use zoocheck::properties::termination;
use zoocheck::scenario::tuning::{read_presets, Preset, PRESETS_FILE};
use zoocheck::scenario::{Recipes, Scenario};
use zoocheck::text::quoted;

use crate::cli::load::load;
use crate::UsageError;

/// Where `list` looks for scenarios when it is not told.
const SCENARIOS: &str = "scenarios";

pub(crate) fn list(path: &Path, only: Option<&str>, json: bool) -> Result<ExitCode, UsageError> {
    // `list lock`: a recipe's name where no such path is means `--recipe`.
    let named = path.to_str().filter(|name| catalogue::find(name).is_some());
    if let (false, None, Some(name)) = (path.exists(), only, named) {
        return list(Path::new(SCENARIOS), Some(name), json);
    }
    if !path.exists() && path != Path::new(SCENARIOS) {
        return Err(UsageError(format!(
            "{}: no such file or directory (a recipe is named with --recipe, or alone: {})",
            path.display(),
            catalogue::names().join(", ")
        )));
    }
    let mut recipes = catalogue::all().to_vec();
    if let Some(only) = only {
        if catalogue::find(only).is_none() {
            return Err(UsageError(unknown_recipe(only)));
        }
        recipes.retain(|recipe| recipe.name() == only);
    }
    let (mut scenarios, refused) = if path.exists() {
        load(&[path.to_path_buf()])?
    } else {
        (Vec::new(), Vec::new())
    };
    if let Some(only) = only {
        scenarios.retain(|scenario| scenario.subject.recipe == only);
    }
    let presets = presets_under(path, &recipes)?;
    if json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&JsonList::new(&recipes, &presets, &scenarios))?
        );
    } else {
        print_list(&recipes, &presets, &scenarios, path, only.is_none());
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

/// `list` as text: each recipe with its variants, commands, parameters,
/// parts and properties; the fault kinds; the scenarios under `path`.
fn print_list(
    recipes: &[&dyn AnyRecipe],
    presets: &[Preset],
    scenarios: &[Scenario],
    path: &Path,
    faults: bool,
) {
    for recipe in recipes {
        let docs = recipe.docs();
        let properties = listed_properties(*recipe);
        let parts = recipe.parts();
        outln!("{}: {}", recipe.name(), docs.summary);
        let width = docs
            .variants
            .iter()
            .chain(docs.commands)
            .chain(recipe.params())
            .chain(&parts)
            .map(|(name, _)| name.len())
            .chain(properties.iter().map(|(name, _, _)| name.len() + 12))
            .max()
            .unwrap_or(0);
        outln!("  variants (the first is the reference; in brackets, the knobs it turns):");
        for (name, meaning) in docs.variants {
            outln!("    {name:<width$}  {meaning}{}", turned(*recipe, name));
        }
        for preset in presets
            .iter()
            .filter(|preset| preset.recipe == recipe.name())
        {
            let knobs: Vec<String> = (preset.knobs.iter())
                .map(|(key, value)| format!("{key}={value}"))
                .collect();
            outln!(
                "    {:<width$}  {} [{}: {} {}]",
                preset.name,
                preset.meaning,
                preset.file.display(),
                preset.variant,
                knobs.join(" ")
            );
        }
        if !recipe.knobs().is_empty() {
            outln!("  knobs ([knobs], or a [[client]]'s knobs; the reference's value first):");
            let reference = recipe.preset(docs.variants[0].0).unwrap_or_default();
            for (knob, (_, default)) in recipe.knobs().iter().zip(&reference) {
                outln!("    {:<width$}  {}", knob.key, paragraph(knob.meaning));
                if knob.values == <bool as zoocheck::knobs::KnobValue>::VALUES {
                    outln!(
                        "    {:<width$}    true or false (the reference: {default})",
                        ""
                    );
                    continue;
                }
                let first = knob.values.iter().filter(|(value, _)| value == default);
                let rest = knob.values.iter().filter(|(value, _)| value != default);
                for (value, meaning) in first.chain(rest) {
                    outln!("    {:<width$}    {value}: {meaning}", "");
                }
            }
        }
        outln!("  commands:");
        for (name, meaning) in docs.commands {
            outln!("    {name:<width$}  {meaning}");
        }
        if !recipe.params().is_empty() {
            outln!("  parameters ([params]):");
            for (name, meaning) in recipe.params() {
                outln!("    {name:<width$}  {meaning}");
            }
        }
        outln!("  parts a fault can aim at ([[fault]] target):");
        for (name, meaning) in &parts {
            outln!("    {name:<width$}  {meaning}");
        }
        if !recipe.phases().is_empty() {
            outln!("  phases a fault can aim at ([[fault]] phase):");
            outln!("    {}", recipe.phases().join(", "));
        }
        outln!("  properties:");
        for (name, kind, meaning) in &properties {
            let named = format!("{name} ({kind})");
            outln!("    {named:<width$}  {meaning}");
        }
        outln!("");
    }
    if faults {
        outln!("fault kinds ([faults] budgets, 0 to 3 each):");
        for declaration in &DECLARATIONS {
            outln!("  {:<14}  {}", declaration.name, declaration.meaning);
        }
        outln!(
            "  {:<14}  a switch: expiry may hit a connected, running client",
            "expire_anytime"
        );
        outln!("");
        print_libraries();
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

/// The client libraries' profiles, each with its settings, then each
/// setting with its values.
fn print_libraries() {
    use zoocheck::client::library::{Library, PROFILES};
    use zoocheck::knobs::Knobs;
    outln!("client libraries ([library] profile, or a [[client]]'s library; the first is the default):");
    for (name, meaning, library) in PROFILES {
        let settings: Vec<String> = (Library::KNOBS.iter())
            .filter_map(|knob| Some(format!("{}={}", knob.key, library.get(knob.key)?)))
            .collect();
        outln!("  {name:<14}  {meaning} [{}]", settings.join(" "));
    }
    outln!("  settings ([library], over its profile):");
    for knob in Library::KNOBS {
        outln!("  {:<14}  {}", knob.key, paragraph(knob.meaning));
        if knob.values == <bool as zoocheck::knobs::KnobValue>::VALUES {
            outln!("  {:<14}    true or false", "");
            continue;
        }
        for (value, meaning) in knob.values {
            outln!("  {:<14}    {value}: {meaning}", "");
        }
    }
    outln!("");
}

/// The knobs preset `variant` turns from the reference, in brackets
/// (` [guid=false]`), or nothing for the reference and a recipe without knobs.
fn turned(recipe: &dyn AnyRecipe, variant: &'static str) -> String {
    let turned: Vec<String> = (recipe.turned(&Tuning::preset(variant)).iter())
        .map(|(key, value)| format!("{key}={value}"))
        .collect();
    if turned.is_empty() {
        String::new()
    } else {
        format!(" [{}]", turned.join(" "))
    }
}

/// A recipe's properties with their kinds (`always`, `sometimes`) and
/// meanings, then every recipe's liveness property, `terminates` (optional
/// in `[expect]`).
fn listed_properties(recipe: &dyn AnyRecipe) -> Vec<(&'static str, &'static str, &'static str)> {
    (recipe.properties().into_iter())
        .map(|declared| (declared.name, declared.kind(), declared.meaning))
        .chain([(
            termination::TERMINATES,
            "liveness",
            termination::DECLARED.meaning,
        )])
        .collect()
}

/// The presets of every presets file under `path` (a directory, or a
/// scenario file's directory), file by file in order.
fn presets_under(path: &Path, recipes: &[&dyn AnyRecipe]) -> Result<Vec<Preset>, UsageError> {
    fn walk(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<_> = entries.flatten().map(|entry| entry.path()).collect();
        entries.sort();
        for entry in entries {
            if entry.is_dir() {
                walk(&entry, files);
            } else if entry.file_name().is_some_and(|name| name == PRESETS_FILE) {
                files.push(entry);
            }
        }
    }
    let mut files = Vec::new();
    let dir = if path.is_file() {
        path.parent()
    } else {
        Some(path)
    };
    if let Some(dir) = dir {
        walk(dir, &mut files);
    }
    let mut presets = Vec::new();
    for file in &files {
        for recipe in recipes {
            let read = read_presets(file, *recipe, Recipes::Catalogue)
                .map_err(|error| UsageError(error.to_string()))?;
            presets.extend(read);
        }
    }
    Ok(presets)
}

/// `1 scenario`, `2 scenarios`.
pub(crate) fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// The error for a recipe name that is not in the catalogue.
fn unknown_recipe(name: &str) -> String {
    let known = catalogue::names();
    let hint = zoocheck::text::did_you_mean(name, &known)
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
    variants: Vec<JsonVariant<'a>>,
    knobs: Vec<JsonKnob<'a>>,
    commands: Vec<JsonNamed<'a>>,
    params: Vec<JsonNamed<'a>>,
    parts: Vec<JsonNamed<'a>>,
    phases: &'static [&'static str],
    properties: Vec<JsonListedProperty<'a>>,
}

/// A variant: a preset of the recipe, or of a presets file (`file`), with
/// every knob's value.
#[derive(Serialize)]
struct JsonVariant<'a> {
    name: &'a str,
    meaning: &'a str,
    file: Option<&'a Path>,
    knobs: std::collections::BTreeMap<&'static str, &'static str>,
}

#[derive(Serialize)]
struct JsonKnob<'a> {
    key: &'a str,
    meaning: String,
    values: Vec<JsonNamed<'a>>,
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
    /// Its variant, or each client's (`guid, no_guid`).
    variant: String,
    description: &'a str,
}

impl<'a> JsonList<'a> {
    fn new(
        recipes: &[&'a dyn AnyRecipe],
        presets: &'a [Preset],
        scenarios: &'a [Scenario],
    ) -> JsonList<'a> {
        let named = |pairs: &[(&'a str, &'a str)]| {
            pairs
                .iter()
                .map(|&(name, meaning)| JsonNamed { name, meaning })
                .collect()
        };
        JsonList {
            recipes: recipes
                .iter()
                .map(|recipe| JsonRecipe {
                    name: recipe.name(),
                    summary: recipe.docs().summary,
                    variants: json_variants(*recipe, presets),
                    knobs: (recipe.knobs().iter())
                        .map(|knob| JsonKnob {
                            key: knob.key,
                            meaning: paragraph(knob.meaning),
                            values: named(knob.values),
                        })
                        .collect(),
                    commands: named(recipe.docs().commands),
                    params: named(recipe.params()),
                    parts: named(&recipe.parts()),
                    phases: recipe.phases(),
                    properties: listed_properties(*recipe)
                        .into_iter()
                        .map(|(name, kind, meaning)| JsonListedProperty {
                            name,
                            kind,
                            meaning,
                        })
                        .collect(),
                })
                .collect(),
            fault_kinds: DECLARATIONS
                .iter()
                .map(|declaration| JsonNamed {
                    name: declaration.name,
                    meaning: declaration.meaning,
                })
                .collect(),
            scenarios: scenarios
                .iter()
                .map(|scenario| JsonListed {
                    name: &scenario.name,
                    file: &scenario.file,
                    recipe: scenario.subject.recipe,
                    variant: scenario.subject.variant_words(),
                    description: scenario.description.trim(),
                })
                .collect(),
        }
    }
}

/// A recipe's variants for `list --json`: its presets, then those of the
/// presets files, each with every knob's value.
fn json_variants<'a>(recipe: &'a dyn AnyRecipe, presets: &'a [Preset]) -> Vec<JsonVariant<'a>> {
    let own = recipe
        .docs()
        .variants
        .iter()
        .map(|(name, meaning)| JsonVariant {
            name,
            meaning,
            file: None,
            knobs: recipe
                .preset(name)
                .unwrap_or_default()
                .into_iter()
                .collect(),
        });
    let theirs = (presets.iter())
        .filter(|preset| preset.recipe == recipe.name())
        .map(|preset| {
            let mut knobs: std::collections::BTreeMap<_, _> = recipe
                .preset(preset.variant)
                .unwrap_or_default()
                .into_iter()
                .collect();
            knobs.extend(preset.knobs.iter().copied());
            JsonVariant {
                name: &preset.name,
                meaning: &preset.meaning,
                file: Some(&preset.file),
                knobs,
            }
        });
    own.chain(theirs).collect()
}

/// `zoocheck new RECIPE NAME`: writes DIR/RECIPE/NAME.toml, never over a file.
pub(crate) fn new_scenario(
    recipe: &str,
    name: &str,
    dir: &Path,
    description: Option<&str>,
) -> Result<ExitCode, UsageError> {
    let Some(info) = catalogue::find(recipe) else {
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
    let text = zoocheck::template::scenario(info, description);
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
    outln!(
        "  zoocheck pin {}   # writes its snapshot, the file cargo test reads",
        file.display()
    );
    outln!("  cargo test --test scenarios -- {recipe}/{name}");
    Ok(ExitCode::SUCCESS)
}
