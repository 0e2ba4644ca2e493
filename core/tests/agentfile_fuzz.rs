//! Property tests: no input panics the parser, linter, lease derivation, lockfile or policy
//! evaluation, and structural invariants hold for every input.

use leasekit::agentfile::{
    ParseOptions, agentfile_lease, check_agentfile, evaluate_policy, lint, lock, package_digest,
    parse_agentfile,
};
use proptest::prelude::*;

/// Runs everything on `text` and checks the invariants.
fn exercise(text: &str, compat: bool) {
    let af = parse_agentfile(text, &ParseOptions { compat });
    let lines = text.split('\n').count();
    let diags = lint(&af);
    assert!(
        diags
            .windows(2)
            .all(|w| (w[0].line, w[0].column) <= (w[1].line, w[1].column))
    );
    for d in &diags {
        assert!(d.line <= lines, "{d:?}");
        assert!(!d.code.is_empty());
    }
    for d in af.directives() {
        assert!(d.span.start <= d.span.end && d.span.end <= text.len());
        assert!(text.is_char_boundary(d.span.start) && text.is_char_boundary(d.span.end));
        assert!(text[d.span.start..].starts_with(d.name.as_ref()));
        if let Some(b) = &d.block {
            assert_eq!(&text[b.body_span.start..b.body_span.end], b.body);
            assert!(b.end_line > d.line);
        }
    }
    let report = check_agentfile(text, compat);
    assert_eq!(report.ok, !report.diagnostics.iter().any(|d| d.is_error()));
    assert_eq!(report.lease.is_some(), report.ok);
    if report.ok {
        agentfile_lease(&af).unwrap();
        lock(&af).unwrap();
    }
    let _ = package_digest(&af);
    let _ = evaluate_policy(
        &af,
        "AgentRC::Agent::\"a\"",
        "AgentRC::Action::\"tool.invoke\"",
        "AgentRC::Tool::\"x\"",
        &serde_json::json!({"rate_count": 1}),
    );
    let _ = serde_json::to_string(&af).unwrap();
}

const WORDS: &[&str] = &[
    "AGENT",
    "FROM",
    "CMD",
    "TOOL",
    "URL",
    "SERVER",
    "MOUNT",
    "CRED",
    "BIND",
    "POLICY",
    "SOP",
    "END",
    "ALLOW",
    "DENY",
    "RATELIMIT",
    "AUDIT",
    "TIMEOUT",
    "LIMIT",
    "SLICE",
    "TRACE",
    "MEMORY",
    "HEALTHCHECK",
    "IDENTITY",
    "X-FOO",
    "tool",
    "#",
    "# syntax=agentrc.agentfile/v0.1",
    "invoke",
    "utcp:file_read",
    "https://api.example.com",
    "/workspace",
    "ro",
    "rw",
    "copy",
    "env:TOKEN",
    "vault://a/b#k",
    "host:api.example.com",
    "host:*",
    "inject:query",
    "20/hour",
    "30",
    "basic",
    "permit(principal, action, resource);",
    "forbid(principal, action, resource);",
    "\t",
    " ",
    "\r",
    "é",
    "\u{feff}",
    "<<EOF",
    "./x.md",
    "cpu=2",
    "--interval=5s",
    "CMD",
    "***",
    "\"",
    "\\",
];

fn line() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS), 0..6).prop_map(|w| w.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512), compat in any::<bool>()) {
        exercise(&String::from_utf8_lossy(&bytes), compat);
    }

    #[test]
    fn random_directive_soup_never_panics(lines in prop::collection::vec(line(), 0..40), compat in any::<bool>()) {
        exercise(&lines.join("\n"), compat);
    }

    #[test]
    fn cred_tokens_never_leak(secret in "[A-Za-z0-9_+=-]{12,40}", pos in 0usize..3) {
        prop_assume!(!secret.starts_with("env") && !secret.starts_with("host") && !secret.starts_with("inject"));
        let line = match pos {
            0 => format!("CRED k {secret} host:a.example"),
            1 => format!("CRED k env:K host:a.example {secret}"),
            _ => format!("CRED {secret}"),
        };
        let text = format!("AGENT a\n{line}\nAUDIT basic\n");
        let af = parse_agentfile(&text, &ParseOptions::default());
        let all = format!("{af:?}{}{:?}{:?}", serde_json::to_string(&af).unwrap(), lint(&af), check_agentfile(&text, true));
        prop_assert!(!all.contains(&secret));
    }
}
