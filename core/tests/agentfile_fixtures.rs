//! Every example Agentfile of the seed spec (sections 8-9), plus a few spec-style mistakes,
//! checked against the expected diagnostics in `conformance/agentfiles/<name>.expect.json`.
//! The same files are conformance vectors (`agentfile_fixtures.json`, every language); this
//! test also compares the warnings and the line-0 rule, which the vector op does not carry.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use leasekit::agentfile::{Severity, check_agentfile};
use serde_json::Value;

fn codes(report: &leasekit::agentfile::AgentfileReport, sev: Severity) -> BTreeSet<String> {
    report
        .diagnostics
        .iter()
        .filter(|d| d.severity == sev)
        .map(|d| d.code.clone())
        .collect()
}

fn set(v: &Value) -> BTreeSet<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

fn lease_sets(v: &Value) -> BTreeMap<String, BTreeSet<String>> {
    v.as_object()
        .unwrap()
        .iter()
        .map(|(k, p)| (k.clone(), set(p)))
        .collect()
}

#[test]
fn seed_spec_examples_give_the_expected_diagnostics() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/agentfiles");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "Agentfile"))
        .collect();
    names.sort();
    assert!(names.len() >= 36, "fixtures missing: {}", names.len());
    let mut failures = Vec::new();
    for path in &names {
        let text = std::fs::read_to_string(path).unwrap();
        let expect: Value = serde_json::from_str(
            &std::fs::read_to_string(path.with_extension("expect.json")).unwrap(),
        )
        .unwrap();
        let report = check_agentfile(&text, expect["compat"].as_bool().unwrap());
        let name = path.file_name().unwrap().to_string_lossy();
        if report.ok != expect["ok"].as_bool().unwrap() {
            failures.push(format!("{name}: ok={} {:?}", report.ok, report.diagnostics));
        }
        if codes(&report, Severity::Error) != set(&expect["errors"]) {
            failures.push(format!(
                "{name}: errors {:?}",
                codes(&report, Severity::Error)
            ));
        }
        if codes(&report, Severity::Warning) != set(&expect["warnings"]) {
            failures.push(format!(
                "{name}: warnings {:?}",
                codes(&report, Severity::Warning)
            ));
        }
        if let Some(lease) = expect.get("lease") {
            let got = report.lease.as_ref().map(|l| lease_sets(&l.to_value()));
            if got.as_ref() != Some(&lease_sets(lease)) {
                failures.push(format!("{name}: lease {got:?}"));
            }
        }
        for d in &report.diagnostics {
            if d.line == 0 {
                assert!(
                    d.code == "agent-missing" || d.code == "audit-missing",
                    "{name}: {d:?}"
                );
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
