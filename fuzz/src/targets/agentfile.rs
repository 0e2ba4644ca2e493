//! `agentfile`: parse + lint + derived lease + lockfile; `cedar_policy`: Cedar evaluation
//! through the Agentfile.

use crate::fields::split;
use leasekit::Lease;
use leasekit::agentfile::{
    Lockfile, ParseOptions, Severity, agentfile_lease, check_agentfile, check_inheritance,
    evaluate_policy, lint, lock, lockfile_json, parse_agentfile,
};

/// Input: Agentfile text (strict and compat). Diagnostics are sorted, within the text and
/// coded; spans point into the text; `ok` means no error; an ok file yields a lease that
/// round-trips through JSON, a lockfile that round-trips through its JSON, and inherits from
/// itself.
pub fn agentfile(data: &[u8]) {
    let Some(f) = split(data, 1) else { return };
    let text = f[0];
    for compat in [false, true] {
        let af = parse_agentfile(text, &ParseOptions { compat });
        let lines = text.split('\n').count();
        let diags = lint(&af);
        assert!(
            diags
                .windows(2)
                .all(|w| (w[0].line, w[0].column) <= (w[1].line, w[1].column)),
            "diagnostics out of order"
        );
        for d in &diags {
            assert!(d.line <= lines && !d.code.is_empty(), "{d:?}");
        }
        for d in af.directives() {
            assert!(d.span.start <= d.span.end && d.span.end <= text.len());
            assert!(text.is_char_boundary(d.span.start) && text.is_char_boundary(d.span.end));
        }
        let report = check_agentfile(text, compat);
        assert_eq!(
            report.ok,
            !report
                .diagnostics
                .iter()
                .any(|d| d.severity == Severity::Error)
        );
        assert_eq!(report.lease.is_some(), report.ok);
        if !report.ok {
            continue;
        }
        let lease = agentfile_lease(&af).expect("an ok Agentfile yields its lease");
        let json = lease.to_json();
        assert_eq!(
            Lease::from_json(&json).ok(),
            Some(lease.clone()),
            "lease {json}"
        );
        let lf = lock(&af).expect("an ok Agentfile locks");
        let lj = lockfile_json(&lf);
        let back: Lockfile = serde_json::from_str(&lj).expect("lockfile JSON parses");
        assert_eq!(back, lf, "lockfile round trip");
        let r = check_inheritance(&af, &af);
        assert!(
            r.is_ok(),
            "an Agentfile does not inherit from itself: {r:?}"
        );
    }
}

/// Cedar string literal (the inverse of Cedar's unescaping).
fn cedar_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// Input: Cedar text, `0xFF`, tool name, `0xFF`, context JSON. The text is a `POLICY` block of
/// an Agentfile with `AGENT a`; the request is agent `a` invoking that tool. An allow carries no
/// error; a block that lint reports as `cedar-parse` never allows; evaluation is
/// deterministic; and with `DENY invoke <tool>` added the same request is denied (deny wins).
pub fn cedar_policy(data: &[u8]) {
    let Some(f) = split(data, 3) else { return };
    let (policy, tool, context) = (f[0], f[1], f[2]);
    let context: serde_json::Value =
        serde_json::from_str(context).unwrap_or_else(|_| serde_json::json!({}));
    let text = format!("AGENT a\nPOLICY\n{policy}\nEND\n");
    let resource = format!("AgentRC::Tool::{}", cedar_string(tool));
    let principal = "AgentRC::Agent::\"a\"";
    let action = "AgentRC::Action::\"tool.invoke\"";
    let af = parse_agentfile(&text, &ParseOptions::default());
    let d = evaluate_policy(&af, principal, action, &resource, &context);
    assert!(
        !d.allowed || d.errors.is_empty(),
        "allowed with errors: {d:?}"
    );
    let again = evaluate_policy(&af, principal, action, &resource, &context);
    assert_eq!(again, d, "evaluation is not deterministic");
    if lint(&af).iter().any(|x| x.code == "cedar-parse") {
        assert!(!d.allowed, "a policy that does not parse allowed");
    }
    // Only a tool name the line grammar keeps as one argument (no blank, `#` or control).
    if tool.is_empty()
        || tool
            .chars()
            .any(|c| c.is_whitespace() || c == '#' || c.is_control())
    {
        return;
    }
    let denied = format!("{text}DENY invoke {tool}\n");
    let af = parse_agentfile(&denied, &ParseOptions::default());
    let d = evaluate_policy(&af, principal, action, &resource, &context);
    assert!(!d.allowed, "DENY invoke {tool:?} did not win: {d:?}");
}
