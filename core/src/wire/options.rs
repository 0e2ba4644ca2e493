//! Call shapes of options objects: subset options and guard options. Every key is optional,
//! `null` means "not given", and an unknown key is `INVALID_REQUEST`.

use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::{Amounts, KeyStyle};
use crate::error::Result;
use crate::expiry::LeaseConstraints;

/// The options of a subset check,
/// `{"parent_remaining": {cur: "dec"}, "child_constraints": {...}, "parent_constraints": {...}}`
/// (every key optional). Owns its values; [`SubsetOptions::as_core`] lends them to
/// [`crate::check_lease_subset`].
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubsetOptions {
    /// The parent's remaining amount per currency (default: its summed `cost.budget`).
    #[serde(default)]
    pub parent_remaining: Option<Amounts>,
    /// The child's constraints (an omitted expiry inherits the parent's).
    #[serde(default, deserialize_with = "constraints")]
    pub child_constraints: Option<LeaseConstraints>,
    /// The parent's constraints.
    #[serde(default, deserialize_with = "constraints")]
    pub parent_constraints: Option<LeaseConstraints>,
    /// Under a parent with an expiry, a child must state one (default false: it inherits).
    #[serde(default)]
    pub require_child_expiry: Option<bool>,
    /// `parent_remaining` lists every currency the child may budget (default false).
    #[serde(default)]
    pub strict_remaining: Option<bool>,
    /// A child currency the parent does not grant is a violation at any amount (default
    /// false: a currency the parent does not budget is unlimited there).
    #[serde(default)]
    pub require_parent_currency: Option<bool>,
}

impl SubsetOptions {
    /// Reads the options from JSON text (`null` means none).
    pub fn from_json(text: &str) -> Result<SubsetOptions> {
        let value: Value = super::from_json_str(text, "subset options")?;
        SubsetOptions::from_value(value, KeyStyle::Snake)
    }

    /// Reads the options from a parsed value (`null` means none), keys spelled in `style`.
    pub fn from_value(value: Value, style: KeyStyle) -> Result<SubsetOptions> {
        if value.is_null() {
            return Ok(SubsetOptions::default());
        }
        super::from_value_styled(value, style, "subset options")
    }

    /// The core's borrowed view of these options.
    pub fn as_core(&self) -> crate::SubsetOptions<'_> {
        crate::SubsetOptions {
            parent_remaining: self.parent_remaining.as_ref().map(|a| &a.0),
            child_constraints: self.child_constraints.as_ref(),
            parent_constraints: self.parent_constraints.as_ref(),
            require_child_expiry: self.require_child_expiry.unwrap_or(false),
            strict_remaining: self.strict_remaining.unwrap_or(false),
            require_parent_currency: self.require_parent_currency.unwrap_or(false),
        }
    }
}

/// The options of a guard, `{"grace_millis": 0, "allow_any_model": false}` (every key
/// optional). Host-only settings (a clock function) are taken out by the binding first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GuardOptions {
    /// Milliseconds after `expires_at` that still pass (a non-negative integer).
    #[serde(default)]
    pub grace_millis: Option<u64>,
    /// Authorize any model when the lease has no `model.use`.
    #[serde(default)]
    pub allow_any_model: Option<bool>,
}

impl GuardOptions {
    /// Reads the options from JSON text (`null` means none).
    pub fn from_json(text: &str) -> Result<GuardOptions> {
        let value: Value = super::from_json_str(text, "guard options")?;
        GuardOptions::from_value(value, KeyStyle::Snake)
    }

    /// Reads the options from a parsed value (`null` means none), keys spelled in `style`.
    pub fn from_value(value: Value, style: KeyStyle) -> Result<GuardOptions> {
        if value.is_null() {
            return Ok(GuardOptions::default());
        }
        super::from_value_styled(value, style, "guard options")
    }

    /// The core's guard options (defaults for what is not given).
    pub fn to_core(self) -> crate::GuardOptions {
        let defaults = crate::GuardOptions::default();
        crate::GuardOptions {
            grace_millis: self.grace_millis.unwrap_or(defaults.grace_millis),
            allow_any_model: self.allow_any_model.unwrap_or(defaults.allow_any_model),
        }
    }
}

/// The options of an Agentfile check, `{"compat": false}`: compat mode reads a two-argument
/// `BIND` as a warning instead of an error.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentfileOptions {
    /// Compat mode (default false).
    #[serde(default)]
    pub compat: Option<bool>,
}

impl AgentfileOptions {
    /// Reads the options from a parsed value (`null` means none), keys spelled in `style`.
    pub fn from_value(value: Value, style: KeyStyle) -> Result<AgentfileOptions> {
        if value.is_null() {
            return Ok(AgentfileOptions::default());
        }
        super::from_value_styled(value, style, "Agentfile options")
    }

    /// Whether compat mode is on.
    pub fn compat(self) -> bool {
        self.compat.unwrap_or(false)
    }
}

/// Lease constraints inside an options object: core's reader ([`LeaseConstraints::from_value`]),
/// `null` meaning none given.
fn constraints<'de, D: Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<LeaseConstraints>, D::Error> {
    let value = Value::deserialize(d)?;
    if value.is_null() {
        return Ok(None);
    }
    LeaseConstraints::from_value(&value)
        .map(Some)
        .map_err(|e| serde::de::Error::custom(e.message()))
}
