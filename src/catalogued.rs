//! What a recipe declares to be named by a scenario: its name, variants,
//! commands and parameters by the names scenario files use, the properties
//! it promises, and what it refuses. Each model implements [`Catalogued`]
//! beside its actor; [`crate::catalogue`] lists them and erases their types.
//!
//! This layer sits above the world and its properties and below the models:
//! a model needs nothing of the catalogue that lists it.

use std::fmt;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::knobs::Knobs;
use crate::properties::Promise;
use crate::recipe::Recipe;
use crate::world::faults::{FaultBudget, Kind};

/// Limits on what a scenario may ask of a recipe's group, so that every
/// question stays answerable by an exhaustive search on a laptop: at most
/// this many clients (the renaming's [`crate::store::rename::CLIENTS`]).
pub const CLIENTS_MAX: u8 = crate::store::rename::CLIENTS as u8;

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

/// A recipe's parameters, as a scenario's `[params]` table gives them:
/// typed (`deny_unknown_fields`), each with a default (`serde(default)`)
/// that keeps every scenario without the table as it was.
pub trait Params:
    Default + Serialize + DeserializeOwned + Clone + fmt::Debug + Send + Sync + 'static
{
    /// Each parameter by its key, with what it means, in order.
    const MEANINGS: &'static [(&'static str, &'static str)];
}

/// The parameters of a recipe that has none.
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}

impl Params for NoParams {
    const MEANINGS: &'static [(&'static str, &'static str)] = &[];
}

/// A recipe a scenario can name: its name, its variants, commands and
/// parameters by the names scenario files use, and the properties it
/// promises. Each model implements it beside its actor;
/// [`crate::catalogue::all`] lists them all.
pub trait Catalogued: Recipe {
    const NAME: &'static str;
    const DOCS: Docs;
    /// A variant: a setting of the recipe's knobs ([`Knobs`]). Its named
    /// variants, [`Catalogued::VARIANTS`], are presets of them.
    type Variant: Knobs;
    const VARIANTS: &'static [(&'static str, Self::Variant)];
    const COMMANDS: &'static [(&'static str, Self::Command)];
    type Params: Params;

    /// One client's recipe: its variant, the scenario's parameters, and the
    /// clients' scripts. What a client must know of its whole group (a
    /// two-phase commit's sites) comes from the scripts, which
    /// [`Catalogued::check_scripts`] accepted.
    fn build(variant: Self::Variant, params: &Self::Params, scripts: &[Vec<Self::Command>])
        -> Self;
    /// What it promises, each declared once ([`Promise`]).
    fn properties() -> Vec<Promise<Self>>;

    /// Whether the scripts make a group the recipe can run (a two-phase commit
    /// needs exactly one coordinator), and what was expected if not.
    fn check_scripts(_scripts: &[Vec<Self::Command>]) -> Result<(), String> {
        Ok(())
    }

    /// Whether a setting of the knobs makes sense (two knobs that cannot be
    /// combined); if not, the knob's key and what was expected.
    fn check_variant(_variant: &Self::Variant) -> Result<(), (&'static str, String)> {
        Ok(())
    }

    /// Whether the parameters make sense for these scripts; if not, the
    /// parameter's key (`params.threshold`) and what was expected.
    fn check_params(
        _params: &Self::Params,
        _scripts: &[Vec<Self::Command>],
    ) -> Result<(), (&'static str, String)> {
        Ok(())
    }

    /// Whether the world models these fault budgets soundly for the recipe,
    /// so that a violation under them is the recipe's and not the harness's;
    /// if not, the budget's key (`faults.restart`) and why it is refused.
    /// A recipe refuses what it cannot be judged under rather than be misjudged.
    fn check_faults(_budget: &FaultBudget) -> Result<(), (&'static str, String)> {
        Ok(())
    }

    /// Whether the recipe says what its application does once its library
    /// renewed a lost session (`[library] on_expiry = "renew"`): it hears
    /// `Expired`, then `SyncConnected` on the new session, and carries on.
    /// A recipe that does not stops at `Expired` and is refused a renewing
    /// scenario rather than be judged as if it had been written for one.
    const RENEWS: bool = false;
    /// Whether a thread of the recipe waits for an event
    /// ([`crate::recipe::Recipe::waits`]), so that the `wake` fault means
    /// something for it.
    const WAITS: bool = false;
}

/// The name scenario scripts give `command` ([`Catalogued::COMMANDS`]): how
/// a recipe's commands print.
pub fn command_name<R: Catalogued>(command: &R::Command) -> &'static str {
    R::COMMANDS
        .iter()
        .find(|(_, known)| known == command)
        .map_or("(a command no script can name)", |(name, _)| name)
}

/// [`Catalogued::check_params`] for a count of clients (a threshold, a
/// number of leases): `value` under `key` must be 1 to
/// [`CLIENTS_MAX`]; `why` says what 0 would mean.
pub fn one_to_clients_max(
    key: &'static str,
    value: u8,
    why: &str,
) -> Result<(), (&'static str, String)> {
    let max = CLIENTS_MAX;
    if (1..=max).contains(&value) {
        return Ok(());
    }
    Err((key, format!("{value}; expected 1 to {max}{why}")))
}

/// [`Catalogued::check_faults`] for a recipe whose world cannot restart a
/// process soundly, saying `why`.
pub fn refuse_restarts(budget: &FaultBudget, why: &str) -> Result<(), (&'static str, String)> {
    let restarts = budget.total(Kind::Restart);
    if restarts == 0 {
        return Ok(());
    }
    Err((
        "faults.restart",
        format!("{restarts} restarts, but {why}; expected 0"),
    ))
}

/// What walks every recipe with its type ([`crate::models::each`]): the
/// catalogue that lists them, a test that checks each one's variants.
pub trait Visit {
    fn recipe<R: Catalogued>(&mut self);
}
