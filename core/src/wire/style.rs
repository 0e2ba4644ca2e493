//! Key spelling of options objects: the shapes use snake_case (`parent_remaining`); Node's
//! convention is camelCase (`parentRemaining`). Only the top-level keys of an options object
//! are spelled in the host's style; nested ARCP objects (`{"expires_at": ...}`) keep theirs.

use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// How the top-level keys of an options object are spelled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KeyStyle {
    /// `parent_remaining` (C, Python, JVM, JSON text).
    #[default]
    Snake,
    /// `parentRemaining` (Node). A key holding `_` is not a camelCase name and is refused.
    Camel,
}

impl KeyStyle {
    /// Respells the top-level keys of `value` in snake_case.
    pub(super) fn to_snake(self, value: Value, what: &str) -> Result<Value> {
        match (self, value) {
            (KeyStyle::Camel, Value::Object(map)) => {
                let mut out = Map::new();
                for (key, v) in map {
                    if key.contains('_') {
                        return Err(Error::invalid(format!("{what}: unknown field `{key}`")));
                    }
                    out.insert(camel_to_snake(&key), v);
                }
                Ok(Value::Object(out))
            }
            (_, value) => Ok(value),
        }
    }

    /// A serde error message with the field names respelled in this style.
    pub(super) fn message(self, what: &str, serde_message: &str) -> String {
        let text = match self {
            KeyStyle::Snake => serde_message.to_owned(),
            // serde quotes field names in backticks: respell each quoted name.
            KeyStyle::Camel => serde_message
                .split('`')
                .enumerate()
                .map(|(i, part)| {
                    if i % 2 == 1 {
                        snake_to_camel(part)
                    } else {
                        part.to_owned()
                    }
                })
                .collect::<Vec<_>>()
                .join("`"),
        };
        format!("{what}: {text}")
    }
}

/// `parentRemaining` -> `parent_remaining`.
fn camel_to_snake(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `parent_remaining` -> `parentRemaining`.
fn snake_to_camel(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}
