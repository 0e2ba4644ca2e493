//! Resource bounds on hostile input: deeply nested JSON at every JSON entry point and
//! megabyte Agentfiles. Every call answers (no stack overflow, no panic) and a refusal is
//! `INVALID_REQUEST`; work is checked by the size of what comes back, never by timing.
//! The bounds are listed in docs/security.md ("Bounds").

use leasekit::agentfile::{
    ParseOptions, agentfile_lease, check_agentfile, lint, lock, parse_agentfile,
};
use leasekit::expiry::LeaseConstraints;
use leasekit::governor::open::EmbeddedGovernor;
use leasekit::governor::wire::{decode_frame, encode_frame};
use leasekit::wire::{Amounts, SubsetOptions};
use leasekit::{ErrorCode, GovernorOptions, Lease, Policy, lint_lease_json};

/// JSON nested `depth` deep: `{"a":[[[...]]]}`.
fn nested(depth: usize) -> String {
    format!(r#"{{"a":{}{}}}"#, "[".repeat(depth), "]".repeat(depth))
}

fn refused<T>(r: leasekit::Result<T>, what: &str) {
    match r {
        Ok(_) => panic!("{what}: nested JSON accepted"),
        Err(e) => assert_eq!(e.code(), ErrorCode::InvalidRequest, "{what}: {e}"),
    }
}

#[test]
fn nested_json_is_refused_at_every_json_entry_point() {
    for depth in [200, 10_000, 100_000] {
        let text = nested(depth);
        refused(Lease::from_json(&text), "lease");
        refused(LeaseConstraints::from_json(&text), "constraints");
        refused(SubsetOptions::from_json(&text), "subset options");
        refused(Amounts::from_json(&text, "remaining"), "amounts");
        refused(Policy::from_json(&text), "policy");
        refused(GovernorOptions::from_json(&text), "governor options");
        refused(EmbeddedGovernor::open("memory", &text, ""), "open policy");
        refused(EmbeddedGovernor::open("memory", "", &text), "open options");
        refused(lint_lease_json(&text), "lint_lease_json");
        let gov = EmbeddedGovernor::open("memory", "", "").unwrap();
        refused(gov.governor().call_json("Acquire", &text), "call_json");
        // Nesting inside a field that holds any JSON (VerifyAudit's records) is refused by the
        // parser's depth limit, in the strict call, the wire dispatcher and a frame.
        let records = format!(
            r#"{{"records":[{}{}]}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        );
        refused(
            gov.governor().call_json("VerifyAudit", &records),
            "call_json records",
        );
        let env: serde_json::Value =
            serde_json::from_str(&gov.governor().handle("VerifyAudit", &records)).unwrap();
        assert_eq!(env["success"], false, "handle: {env}");
        let request = serde_json::json!({
            "protocolVersion": "0.1", "command": "VerifyAudit", "payloadJson": records,
        });
        let frame = encode_frame(request.to_string().as_bytes()).unwrap();
        let answer = gov.governor().handle_frame(&frame);
        let (payload, _) = decode_frame(&answer).unwrap();
        let env: serde_json::Value = serde_json::from_slice(payload).unwrap();
        assert_eq!(env["success"], false, "{env}");
        // The frame itself nested: refused as a request envelope.
        let frame = encode_frame(text.as_bytes()).unwrap();
        let (payload, _) = decode_frame(&gov.governor().handle_frame(&frame))
            .map(|(p, n)| (p.to_vec(), n))
            .unwrap();
        let env: serde_json::Value = serde_json::from_slice(&payload).unwrap();
        assert_eq!(env["success"], false, "{env}");
        // An unknown field is skipped without recursion (13.1: unknown fields are ignored), so
        // the wire form answers a nested unknown field as if it were absent.
        let lenient = format!(
            r#"{{"leaseId":"none","deep":{}{}}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        );
        let env: serde_json::Value =
            serde_json::from_str(&gov.governor().handle("Release", &lenient)).unwrap();
        assert_eq!(env["success"], true, "{env}");
        assert_eq!(gov.governor().status().unwrap().active_leases, 0);
    }
}

/// One megabyte of `line` repeated.
fn megabyte(head: &str, line: impl Fn(usize) -> String) -> String {
    let mut text = String::from(head);
    let mut i = 0;
    while text.len() < 1 << 20 {
        text.push_str(&line(i));
        i += 1;
    }
    text
}

#[test]
fn megabyte_agentfiles_are_parsed_linted_and_bounded() {
    let files = [
        // 60 000 tool lines: more patterns than a lease may hold (1 024).
        megabyte("AGENT big\n", |i| format!("TOOL tool_{i}\n")),
        // One 1 MiB line.
        format!("AGENT big\nTOOL {}\n", "x".repeat(1 << 20)),
        // A 1 MiB POLICY block.
        megabyte("AGENT big\nPOLICY\n", |i| {
            format!("permit(principal, action, resource) when {{ context.n == {i} }};\n")
        }) + "END\n",
        // Unknown directives and garbage.
        megabyte("", |i| format!("WHAT{i} \"unterminated {i}\n")),
        // Deep URL patterns.
        megabyte("AGENT big\n", |i| {
            format!("URL https://h{i}.example.com/{}\n", "a/".repeat(40))
        }),
    ];
    for (n, text) in files.iter().enumerate() {
        for compat in [false, true] {
            let af = parse_agentfile(text, &ParseOptions { compat });
            let lines = text.lines().count();
            let diags = lint(&af);
            // Work is linear: at most a few diagnostics per line, each within the file.
            assert!(
                diags.len() <= 4 * lines + 4,
                "file {n}: {} diagnostics",
                diags.len()
            );
            assert!(diags.iter().all(|d| d.line <= lines + 1));
            let report = check_agentfile(text, compat);
            assert_eq!(report.ok, !report.diagnostics.iter().any(|d| d.is_error()));
            match agentfile_lease(&af) {
                Ok(lease) => {
                    // A derived lease is within the section 2 bounds.
                    assert!(Lease::from_json(&lease.to_json()).is_ok(), "file {n}");
                }
                Err(e) => assert_eq!(e.code(), ErrorCode::InvalidRequest, "file {n}: {e}"),
            }
            if report.ok {
                let _ = lock(&af);
            }
        }
    }
}
