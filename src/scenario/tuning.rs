//! Variants as a scenario names them: a recipe's preset, a preset of a
//! presets file, and knobs turned on top ([`Tuning`]); and the presets files
//! that name a setting of knobs for every scenario beside them, so that a
//! new variant needs no rebuild.
//!
//! A presets file is `presets.toml`, in a scenario's directory or any above
//! it up to the `scenarios` directory; the nearest one naming a preset wins.
//! Each preset reads like a scenario's header:
//!
//! ```toml
//! [lock.watch_lowest]
//! meaning = "the reference, with every waiter watching the lowest node"
//! variant = "guid"
//! knobs = { waits_on = "lowest" }
//! ```

use std::collections::BTreeMap;
use std::path::{Path as FsPath, PathBuf};

use serde::Deserialize;

use super::ScenarioError;
use crate::catalogue::{AnyRecipe, Recipes, Tuning};
use crate::text::{expected_one_of, read_text};

/// The name of a presets file.
pub const PRESETS_FILE: &str = "presets.toml";

/// A preset of a presets file: a name for a recipe's preset with knobs turned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Preset {
    pub recipe: &'static str,
    pub name: String,
    pub meaning: String,
    /// The recipe's preset it starts from.
    pub variant: &'static str,
    pub knobs: Vec<(&'static str, &'static str)>,
    /// The presets file that declares it.
    pub file: PathBuf,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PresetSection {
    meaning: String,
    variant: String,
    #[serde(default)]
    knobs: toml::Table,
}

/// A knob's value as a scenario writes it: `true`, `false` or a string,
/// named as the knob names its values.
pub fn value_name(value: &toml::Value) -> Option<String> {
    match value {
        toml::Value::Boolean(on) => Some(on.to_string()),
        toml::Value::String(name) => Some(name.clone()),
        _ => None,
    }
}

/// Validates knob settings against `recipe`'s knobs, in order: on error,
/// the knob's key and what was expected.
pub fn turn(
    recipe: &dyn AnyRecipe,
    settings: impl IntoIterator<Item = (String, String)>,
) -> Result<Vec<(&'static str, &'static str)>, (String, String)> {
    let knobs = recipe.knobs();
    settings
        .into_iter()
        .map(|(key, value)| {
            let Some(knob) = knobs.iter().find(|knob| knob.key == key) else {
                return Err((key.clone(), crate::knobs::unknown_knob(&key, knobs)));
            };
            let value = knob.value(&value).ok_or_else(|| {
                (
                    key.clone(),
                    crate::knobs::unknown_value(&key, &value, knob.values),
                )
            })?;
            Ok((knob.key, value))
        })
        .collect()
}

/// A TOML table of knobs, validated ([`turn`]); `at` prefixes the key of an
/// error (`knobs`, `client[1].knobs`).
pub fn turn_table(
    recipe: &dyn AnyRecipe,
    table: &toml::Table,
    at: &str,
) -> Result<Vec<(&'static str, &'static str)>, (String, String)> {
    let mut settings = Vec::new();
    for (key, value) in table {
        let name = value_name(value).ok_or_else(|| {
            (
                format!("{at}.{key}"),
                format!("{value}; expected a knob's value: true, false or a name in quotes"),
            )
        })?;
        settings.push((key.clone(), name));
    }
    turn(recipe, settings).map_err(|(key, message)| (format!("{at}.{key}"), message))
}

/// The variant called `name`, with `overrides` turned on top: a preset of
/// the recipe, else of `presets`; on error, what was expected.
pub fn tuning(
    recipe: &dyn AnyRecipe,
    name: &str,
    presets: &[Preset],
    overrides: &[(&'static str, &'static str)],
) -> Result<Tuning, String> {
    let names = recipe.variants();
    let (preset, mut turned) = match names.iter().find(|known| **known == name) {
        Some(known) => (*known, Vec::new()),
        None => {
            let Some(own) = presets.iter().find(|own| own.name == name) else {
                let mut all: Vec<&str> = names.clone();
                all.extend(presets.iter().map(|own| own.name.as_str()));
                return Err(expected_one_of(name, &all));
            };
            (own.variant, own.knobs.clone())
        }
    };
    let named = turned.len();
    turned.extend_from_slice(overrides);
    Ok(Tuning {
        name: name.to_string(),
        preset,
        turned,
        named,
    })
}

/// `--variants` as a command line gives it: variants separated by commas,
/// each a name and knobs turned (`guid, no_guid, guid waits_on=lowest`).
pub fn parse_variants(
    recipe: &dyn AnyRecipe,
    text: &str,
    presets: &[Preset],
) -> Result<Vec<Tuning>, String> {
    let tunings: Vec<Tuning> = (text.split(','))
        .map(|item| {
            let mut words = item.split_whitespace();
            let name = words
                .next()
                .ok_or_else(|| format!("{text:?}: an empty variant; expected names separated by commas"))?;
            let settings = words
                .map(|word| {
                    let (key, value) = word.split_once('=').ok_or_else(|| {
                        format!("{word:?}: expected a knob turned as KNOB=VALUE after the variant's name")
                    })?;
                    Ok((key.to_string(), value.to_string()))
                })
                .collect::<Result<Vec<_>, String>>()?;
            let overrides = turn(recipe, settings).map_err(|(_, message)| message)?;
            tuning(recipe, name, presets, &overrides)
        })
        .collect::<Result<_, _>>()?;
    for (i, tuning) in tunings.iter().enumerate() {
        if let Some(twin) = (tunings[..i].iter()).find(|known| recipe.same_setting(known, tuning)) {
            return Err(format!(
                "{tuning} is {twin} again: one setting of the knobs, given twice"
            ));
        }
    }
    Ok(tunings)
}

/// Every presets file that applies to a scenario at `file`, nearest first:
/// in its directory and each above it, up to its `scenarios` directory.
fn preset_files(file: &FsPath) -> Vec<PathBuf> {
    let Some(dir) = file.parent() else {
        return Vec::new();
    };
    let top = super::scenarios_dir(dir);
    let mut files = Vec::new();
    for ancestor in dir.ancestors() {
        let candidate = ancestor.join(PRESETS_FILE);
        if candidate.is_file() {
            files.push(candidate);
        }
        if top.is_none_or(|top| ancestor == top) {
            break;
        }
    }
    files
}

/// The presets of `recipe` that apply to a scenario at `file`, nearest
/// first; a bad presets file is the error, naming it and its key.
pub fn presets_for(
    file: &FsPath,
    recipe: &dyn AnyRecipe,
    recipes: Recipes,
) -> Result<Vec<Preset>, ScenarioError> {
    let mut presets: Vec<Preset> = Vec::new();
    for presets_file in preset_files(file) {
        for preset in read_presets(&presets_file, recipe, recipes)? {
            if !presets.iter().any(|nearer| nearer.name == preset.name) {
                presets.push(preset);
            }
        }
    }
    Ok(presets)
}

/// The presets of `recipe` in one presets file, whose every table must
/// name one of `recipes`.
pub fn read_presets(
    file: &FsPath,
    recipe: &dyn AnyRecipe,
    recipes: Recipes,
) -> Result<Vec<Preset>, ScenarioError> {
    let error = |key: String, message: String| ScenarioError {
        file: file.to_path_buf(),
        key,
        message,
    };
    let text = read_text(file).map_err(|message| error(String::new(), message))?;
    let presets: BTreeMap<String, BTreeMap<String, toml::Value>> =
        toml::from_str(&text).map_err(|e| {
            error(
                String::new(),
                format!(
                    "{}; expected tables [RECIPE.NAME], each with meaning, variant and knobs",
                    e.message()
                ),
            )
        })?;
    if let Some(unknown) = (presets.keys()).find(|name| recipes.find(name).is_none()) {
        return Err(error(
            unknown.clone(),
            format!(
                "unknown recipe {}",
                expected_one_of(unknown, &recipes.names())
            ),
        ));
    }
    let Some(own) = presets.get(recipe.name()) else {
        return Ok(Vec::new());
    };
    own.iter()
        .map(|(name, section)| {
            let at = format!("{}.{name}", recipe.name());
            let section: PresetSection =
                section.clone().try_into().map_err(|e: toml::de::Error| {
                    error(
                        at.clone(),
                        format!("{}; expected meaning, variant and knobs", e.message()),
                    )
                })?;
            if recipe.variants().contains(&name.as_str()) {
                return Err(error(
                    at,
                    format!("`{name}` is one of the recipe's own variants; give it another name"),
                ));
            }
            let variant = (recipe.variants().into_iter())
                .find(|known| *known == section.variant)
                .ok_or_else(|| {
                    error(
                        format!("{at}.variant"),
                        expected_one_of(&section.variant, &recipe.variants()),
                    )
                })?;
            let knobs = turn_table(recipe, &section.knobs, &format!("{at}.knobs"))
                .map_err(|(key, message)| error(key, message))?;
            Ok(Preset {
                recipe: recipe.name(),
                name: name.clone(),
                meaning: section.meaning,
                variant,
                knobs,
                file: file.to_path_buf(),
            })
        })
        .collect()
}
