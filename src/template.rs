//! The scenario file `zoocheck new` writes: a question about one recipe,
//! ready to edit, with every choice the file can make listed beside it (the
//! recipe's variants and commands, the fault kinds, the store's settings,
//! the search's depth bound) and every property in `[expect]` with what it
//! promises, `terminates` included, so that nobody writes a key from memory.

use std::fmt::Write as _;

use crate::catalogue::AnyRecipe;
use crate::properties::termination::{self, DEPTH_BOUND_DEFAULT, DEPTH_BOUND_MAX};
use crate::world::faults::{FaultBudget, Kind, DECLARATIONS};

/// The text of a new scenario file for `recipe`, described as `description`.
/// It loads as it is: the recipe's first variant (its reference), its
/// [`Docs::group`](crate::catalogued::Docs::group), no fault, and the verdicts
/// a sound recipe would get, which the researcher decides anew before
/// checking.
pub fn scenario(recipe: &dyn AnyRecipe, description: &str) -> String {
    let docs = recipe.docs();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# A question about the {}: {}.",
        recipe.name(),
        docs.summary
    );
    out.push_str(
        "# Edit the description, the clients and their scripts, the faults, and decide\n\
         # each expected verdict in [expect] *before* checking; then\n",
    );
    out.push_str(
        "#   zoocheck check THIS_FILE   (the verdicts, and a counterexample for each violation)\n",
    );
    out.push_str("#   cargo test --test scenarios -- NAME   then   cargo insta review   (pin its snapshot)\n\n");
    let _ = writeln!(out, "description = {}", toml_string(description));
    let _ = writeln!(out, "recipe = {}", toml_string(recipe.name()));
    out.push_str("# the variant, one of:\n");
    meanings_of(&mut out, docs.variants);
    let _ = writeln!(out, "variant = {}", toml_string(docs.variants[0].0));
    let _ = writeln!(out, "clients = {}", docs.group.len());
    out.push_str(
        "# each client's script, in order (or `script = [...]` for all alike); commands:\n",
    );
    meanings_of(&mut out, docs.commands);
    let scripts: Vec<String> = docs
        .group
        .iter()
        .map(|script| {
            let commands: Vec<String> = script.iter().map(|command| toml_string(command)).collect();
            format!("[{}]", commands.join(", "))
        })
        .collect();
    let _ = writeln!(out, "scripts = [{}]", scripts.join(", "));
    out.push_str(
        "# or a [[client]] table per client, in order, each with its own `variant`, `knobs` and `script`\n",
    );
    knobs(&mut out, recipe);
    params(&mut out, recipe);

    out.push_str("\n[faults]    # how many of each the checker may inject, 0 to 3\n");
    for declaration in &DECLARATIONS {
        let _ = writeln!(
            out,
            "{:<14} = 0    # {}",
            declaration.name, declaration.meaning
        );
    }
    if let Err((key, why)) = recipe.check_faults(&FaultBudget::of(Kind::Restart, 1)) {
        let _ = writeln!(out, "# ({key} must stay 0 here: {why})");
    }
    let _ = writeln!(
        out,
        "{:<14} = false    # let expiry hit a connected, running client (clocks that disagree)",
        "expire_anytime"
    );

    aimed(&mut out, recipe);

    out.push_str("\n[store]\n");
    out.push_str(
        "# sequence_bits = 32     # width of the sequence counter: small reaches its overflow\n",
    );
    out.push_str(
        "# version_bits = 32      # width of a node's data version: small reaches its wrap (and -1, which matches any)\n",
    );
    out.push_str(
        "# child_order = \"hashed\" # the order getChildren answers in: hashed | reversed\n",
    );
    out.push_str(
        "# ttl_expiries = 1       # how many times a run's server may delete a TTL node with no children, 0 to 8\n",
    );

    out.push_str("\n[check]\n");
    let _ = writeln!(
        out,
        "# depth_bound = {DEPTH_BOUND_DEFAULT}    # steps a path may take before the search calls it still going (a loop), 1 to {DEPTH_BOUND_MAX}"
    );

    out.push_str("\n[expect]    # every property: always-properties holds | violated, sometimes-properties reached | unreached\n");
    let properties = recipe.properties();
    // Every recipe's liveness property, optional in a file (holds if not
    // given), listed so that nobody has to know of it.
    let every = [termination::DECLARED];
    let width = (properties.iter().chain(&every))
        .map(|declared| declared.name.len())
        .max()
        .unwrap_or(0);
    for declared in properties.iter().chain(&every) {
        let verdict = format!("\"{}\"", declared.usual());
        let kind = declared.kind();
        let (name, meaning) = (declared.name, declared.meaning);
        let _ = writeln!(out, "{name:<width$} = {verdict:<10} # {kind}: {meaning}");
    }
    out
}

/// The recipe's `[params]` with their defaults and meanings, if it has any.
fn params(out: &mut String, recipe: &dyn AnyRecipe) {
    let meanings = recipe.params();
    if meanings.is_empty() {
        return;
    }
    out.push_str("\n[params]    # the recipe's parameters, at their defaults:\n");
    meanings_of(out, meanings);
    out.push_str(&recipe.default_params());
}

/// How to aim a fault, with the parts this recipe's clients play.
fn aimed(out: &mut String, recipe: &dyn AnyRecipe) {
    out.push_str("\n# A fault aimed at one client, or at whoever plays a part or is in a phase when it strikes:\n");
    out.push_str("# [[fault]]\n# kind = \"pause\"    # a kind above\n");
    out.push_str("# client = 1        # or target = one of the parts:\n");
    for (name, meaning) in recipe.parts() {
        let _ = writeln!(out, "#   target = {:<10} {meaning}", toml_string(name));
    }
    if !recipe.phases().is_empty() {
        let phases = recipe.phases().join(", ");
        let _ = writeln!(
            out,
            "# or phase = one of the phases, whoever is in it when it strikes:\n#   {phases}"
        );
    }
    out.push_str("# count = 1         # how many times, 1 to 3\n");
}

/// Each name with its meaning as a comment line, the meanings in one column.
/// The recipe's knobs, commented out at the reference's values, each with
/// its meaning and values: a variant is a setting of them.
fn knobs(out: &mut String, recipe: &dyn AnyRecipe) {
    let knobs = recipe.knobs();
    if knobs.is_empty() {
        return;
    }
    let reference = recipe.docs().variants[0].0;
    let values = recipe.preset(reference).expect("the reference is a preset");
    let _ = writeln!(
        out,
        "\n# [knobs]    # turn any knob of the variant (here at {reference}'s values):"
    );
    for (knob, (_, value)) in knobs.iter().zip(&values) {
        let _ = writeln!(out, "# {}", crate::knobs::paragraph(knob.meaning));
        let shown = match *value {
            "true" | "false" => value.to_string(),
            name => toml_string(name),
        };
        let choices = knob.value_names().join(", ");
        let _ = writeln!(out, "# {} = {shown}    # {choices}", knob.key);
    }
}

fn meanings_of(out: &mut String, pairs: &[(&str, &str)]) {
    let width = pairs.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
    for (name, meaning) in pairs {
        let _ = writeln!(out, "#   {name:<width$}  {meaning}");
    }
}

/// A TOML basic string.
fn toml_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
