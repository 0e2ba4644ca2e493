//! `leasekit subset`: may PARENT delegate CHILD? (ARCP section 10, SEMANTICS 9)

use std::collections::BTreeMap;

use leasekit::{Decimal, ErrorCode, SubsetOptions, check_lease_subset, parse_budget_amount};
use serde_json::{Value, json};

use crate::Report;
use crate::args::{Format, SubsetArgs};
use crate::failure::Failure;
use crate::input::{at_most_one_stdin, display_name, read_constraints, read_lease};
use crate::style::Style;

/// Parses `--remaining CUR=AMOUNT` values (via the core's budget-entry parser).
fn parse_remaining(entries: &[String]) -> Result<BTreeMap<String, Decimal>, Failure> {
    let mut remaining = BTreeMap::new();
    for entry in entries {
        let Some((currency, amount)) = entry.split_once('=') else {
            return Err(Failure::usage(format!(
                "--remaining {entry}: expected CUR=AMOUNT, e.g. USD=1.00"
            )));
        };
        let parsed = parse_budget_amount(&format!("{currency}:{amount}"))
            .map_err(|e| Failure::core(&format!("--remaining {entry}"), &e))?;
        if remaining
            .insert(parsed.currency.clone(), parsed.amount)
            .is_some()
        {
            return Err(Failure::usage(format!(
                "--remaining: currency {} given twice",
                parsed.currency
            )));
        }
    }
    Ok(remaining)
}

/// Runs `subset`.
pub fn run(args: &SubsetArgs, style: &Style) -> Result<Report, Failure> {
    let mut stdin_paths = vec![args.child.as_str(), args.parent.as_str()];
    stdin_paths.extend(args.child_constraints.as_deref());
    stdin_paths.extend(args.parent_constraints.as_deref());
    at_most_one_stdin(&stdin_paths)?;
    let child = read_lease(&args.child)?;
    let parent = read_lease(&args.parent)?;
    let remaining = parse_remaining(&args.remaining)?;
    let child_constraints = read_constraints(args.child_constraints.as_deref())?;
    let parent_constraints = read_constraints(args.parent_constraints.as_deref())?;
    let opts = SubsetOptions {
        parent_remaining: (!args.remaining.is_empty()).then_some(&remaining),
        child_constraints: Some(&child_constraints),
        parent_constraints: Some(&parent_constraints),
        ..Default::default()
    };
    let (child_name, parent_name) = (display_name(&args.child), display_name(&args.parent));
    match check_lease_subset(&child, &parent, &opts) {
        Ok(()) => {
            let stdout = match args.format {
                Format::Json => super::pretty(&json!({"subset": true})),
                Format::Text => format!(
                    "{}: {child_name} is within {parent_name}\n",
                    style.good("subset")
                ),
            };
            Ok(Report::new(stdout, 0))
        }
        Err(e) if e.code() == ErrorCode::LeaseSubsetViolation => {
            let stdout = match args.format {
                Format::Json => super::pretty(&json!({"subset": false, "error": e.to_json()})),
                Format::Text => {
                    let mut out = format!(
                        "{}: {child_name} is not within {parent_name}\n  {}: {}\n",
                        style.bad("not a subset"),
                        style.bad(e.code().as_str()),
                        e.message()
                    );
                    for (key, value) in e.details() {
                        out.push_str(&format!("  {key}: {}\n", plain(value)));
                    }
                    out
                }
            };
            Ok(Report::new(stdout, 1))
        }
        Err(e) => Err(Failure::from(e)),
    }
}

/// A JSON value as text: strings without quotes, everything else as JSON.
fn plain(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
