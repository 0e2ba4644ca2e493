//! `conformance/governor-commands.json` is the governor's `Command::ALL`: the same wire names
//! in the same order, each with the typed method names every binding uses for it (written
//! into the bindings by `scripts/gen-governor-methods.py`), whether it takes a request, and
//! its one-sentence doc.

use std::collections::HashSet;
use std::path::Path;

use leasekit::governor::open::EmbeddedGovernor;
use leasekit::governor::wire::Command;

/// The table's rows as JSON values.
fn table() -> Vec<serde_json::Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/governor-commands.json");
    let text = std::fs::read_to_string(path).expect("read conformance/governor-commands.json");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("parse governor-commands.json");
    doc["commands"]
        .as_array()
        .expect("a commands array")
        .clone()
}

/// The string field `key` of `row`.
fn field<'a>(row: &'a serde_json::Value, key: &str) -> &'a str {
    row[key]
        .as_str()
        .unwrap_or_else(|| panic!("{row}: {key} is not a string"))
}

/// `request_tool_sub_lease` -> `requestToolSubLease`.
fn camel(snake: &str) -> String {
    let mut out = String::new();
    for (i, part) in snake.split('_').enumerate() {
        let mut chars = part.chars();
        match chars.next() {
            Some(first) if i > 0 => {
                out.extend(first.to_uppercase());
                out.push_str(chars.as_str());
            }
            _ => out.push_str(part),
        }
    }
    out
}

#[test]
fn governor_commands_json_equals_command_all() {
    let wire: Vec<String> = table()
        .iter()
        .map(|row| field(row, "command").to_owned())
        .collect();
    let core: Vec<&str> = Command::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(wire, core, "governor-commands.json and Command::ALL differ");
}

#[test]
fn method_names_are_unique_identifiers_and_camel_is_snake_in_camel_case() {
    let rows = table();
    let mut seen = HashSet::new();
    for row in &rows {
        let snake = field(row, "snake");
        assert!(
            !snake.is_empty()
                && snake.starts_with(|c: char| c.is_ascii_lowercase())
                && snake
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
            "{snake}: not a snake_case identifier"
        );
        assert_eq!(field(row, "camel"), camel(snake), "{snake}: camel name");
        assert!(seen.insert(snake.to_owned()), "{snake}: named twice");
        let doc = field(row, "doc");
        assert!(
            doc.ends_with('.') && !doc.contains('\n'),
            "{snake}: the doc is one sentence ending with a period"
        );
    }
}

#[test]
fn request_kinds_are_what_the_strict_call_accepts() {
    // `none` and `optional` promise a no-argument method: the empty request must run on a
    // fresh governor. `none` also promises that no field exists (core's strict call accepts
    // only `{}`), which the probe with a field every request of the protocol could have shows.
    let opened = EmbeddedGovernor::open("memory", "{}", "{}").expect("open a memory governor");
    let gov = opened.governor();
    for row in table() {
        let command = field(&row, "command");
        match field(&row, "request") {
            "none" => {
                gov.call_json(command, "{}")
                    .unwrap_or_else(|e| panic!("{command} {{}}: {e}"));
                assert!(
                    gov.call_json(command, r#"{"idempotencyKey":"k"}"#).is_err(),
                    "{command} takes a field: its request is not `none`"
                );
            }
            "optional" => {
                gov.call_json(command, "{}")
                    .unwrap_or_else(|e| panic!("{command} {{}}: {e}"));
            }
            "required" => {}
            other => panic!("{command}: request {other:?} is none, optional or required"),
        }
    }
}
