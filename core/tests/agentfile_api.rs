//! The Agentfile API: AST positions and blocks, diagnostics, secret safety, Cedar policy,
//! lockfile, package digest and inheritance.

use leasekit::ErrorCode;
use leasekit::agentfile::{
    AuditLevel, ParseOptions, Severity, check_agentfile, check_inheritance, codes, evaluate_policy,
    lint, lock, lockfile_json, package_digest, parse_agentfile,
};
use serde_json::json;

fn parse(text: &str) -> leasekit::agentfile::Agentfile {
    parse_agentfile(text, &ParseOptions::default())
}

fn error_codes(text: &str) -> Vec<String> {
    let mut v: Vec<String> = lint(&parse(text))
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.code)
        .collect();
    v.dedup();
    v
}

const REVIEWER: &str = r#"# syntax=agentrc.agentfile/v0.1
AGENT code-reviewer
FROM ghcr.io/org/base-agent:1.4
CMD strands run --agent code-reviewer   # start it
TOOL utcp:file_read
TOOL utcp:git_diff
MOUNT /workspace ro
URL https://api.github.com
CRED github_token env:GITHUB_TOKEN host:api.github.com
ALLOW invoke utcp:file_read
DENY invoke utcp:shell
RATELIMIT utcp:git_diff 10/min
AUDIT all
ISOLATION microvm
POLICY
// reads below the workspace only
permit(
  principal == AgentRC::Agent::"code-reviewer",
  action == AgentRC::Action::"tool.invoke",
  resource == AgentRC::Tool::"file_read"
) when { context.path like "/workspace/*" };
END
SOP review
## Steps
- You MUST read the diff.
END
"#;

#[test]
fn directives_keep_order_positions_and_spans() {
    let af = parse(REVIEWER);
    assert!(!af.has_errors(), "{:?}", af.diagnostics());
    assert_eq!(af.syntax_marker().unwrap().value, "agentrc.agentfile/v0.1");
    assert_eq!(af.syntax_marker().unwrap().line, 1);
    let names: Vec<_> = af.directives().iter().map(|d| d.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "AGENT",
            "FROM",
            "CMD",
            "TOOL",
            "TOOL",
            "MOUNT",
            "URL",
            "CRED",
            "ALLOW",
            "DENY",
            "RATELIMIT",
            "AUDIT",
            "ISOLATION",
            "POLICY",
            "SOP"
        ]
    );
    let cmd = &af.directives()[2];
    assert_eq!((cmd.line, cmd.column), (4, 1));
    assert_eq!(cmd.text, "strands run --agent code-reviewer");
    assert_eq!(
        cmd.args().collect::<Vec<_>>(),
        ["strands", "run", "--agent", "code-reviewer"]
    );
    assert_eq!(
        &REVIEWER[cmd.span.start..cmd.span.end],
        "CMD strands run --agent code-reviewer"
    );
    assert_eq!(af.agent(), Some("code-reviewer"));
    assert_eq!(af.audit(), Some(AuditLevel::All));
    let policy = af.directives_named("POLICY").next().unwrap();
    let block = policy.block.as_ref().unwrap();
    assert!(block.body.starts_with("// reads below"));
    assert!(block.body.ends_with("};\n"));
    assert_eq!(
        &REVIEWER[block.body_span.start..block.body_span.end],
        block.body
    );
    assert_eq!(block.end_line, 22);
    assert!(REVIEWER[policy.span.start..policy.span.end].ends_with("END"));
    let sop = af.directives_named("SOP").next().unwrap();
    assert_eq!(
        sop.block.as_ref().unwrap().body,
        "## Steps\n- You MUST read the diff.\n"
    );
    assert!(
        af.directives_named("ISOLATION")
            .next()
            .unwrap()
            .is_placement()
    );
}

#[test]
fn blocks_are_byte_exact_with_crlf_and_indentation() {
    let text = "POLICY\r\n  permit(principal, action, resource);\r\n\r\n  END  \r\nAGENT a\r\n";
    let af = parse(text);
    assert!(!af.has_errors(), "{:?}", af.diagnostics());
    let b = af.policy_blocks().next().unwrap().block.clone().unwrap();
    assert_eq!(b.body, "  permit(principal, action, resource);\r\n\r\n");
    assert_eq!(af.agent(), Some("a"));
}

#[test]
fn column_is_counted_in_characters() {
    let af = parse("AGENT a\n  \u{e9}t\u{e9} x\n");
    let d = &af.diagnostics()[0];
    assert_eq!(
        (d.code.as_str(), d.line, d.column),
        ("unknown-directive", 2, 3)
    );
    let af = parse("AUDIT loud\n");
    let d = &af.diagnostics()[0];
    assert_eq!((d.code.as_str(), d.column), ("audit-value", 7));
}

#[test]
fn lowercase_directive_has_a_hint_and_position() {
    let af = parse("AGENT a\n  tool utcp:x\n");
    let d = &af.diagnostics()[0];
    assert_eq!(d.code, codes::LOWERCASE_DIRECTIVE);
    assert_eq!((d.line, d.column), (2, 3));
    assert_eq!(d.hint.as_deref(), Some("write `TOOL`"));
}

#[test]
fn unterminated_block_is_reported_at_the_opening_line() {
    let af = parse("AGENT a\n\nSOP triage\nstep one\n");
    let d = af
        .diagnostics()
        .iter()
        .find(|d| d.code == "unterminated-block")
        .unwrap();
    assert_eq!((d.line, d.column), (3, 1));
}

#[test]
fn newer_grammar_gives_one_clear_diagnostic() {
    let text = "FROM python:3.12\nIDENTITY name=x\nCAPABILITY tools\nCOPY a /mnt/tools/a\nRUN x\nLABEL a=b\n";
    let diags = lint(&parse(text));
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0].code, codes::NEWER_GRAMMAR);
    assert_eq!(diags[0].line, 2);
    assert!(diags[0].message.contains("draft.4"));
    assert!(parse(text).is_newer_grammar());
}

#[test]
fn dockerfile_instructions_get_a_hint() {
    let af = parse("AGENT a\nRUN pip install x\n");
    assert!(
        af.diagnostics()[0]
            .hint
            .as_deref()
            .unwrap()
            .contains("Dockerfile")
    );
}

#[test]
fn lint_rules_fire_at_the_right_places() {
    let text = "FROM ghcr.io/org/base:latest\nTOOL utcp:shell\nTOOL mcp:browser.open\nSLICE cpu=2\nAGENT Bad_Name\n";
    let diags = lint(&parse(text));
    let got: Vec<(&str, usize)> = diags.iter().map(|d| (d.code.as_str(), d.line)).collect();
    for want in [
        ("from-mutable-tag", 1),
        ("high-risk-tool", 2),
        ("high-risk-tool", 3),
        ("placement-directive", 4),
        ("agent-name", 5),
        ("boundaries-implicit", 2),
        ("audit-missing", 0),
    ] {
        assert!(got.contains(&want), "{want:?} missing from {got:?}");
    }
    // Sorted by position.
    assert!(
        diags
            .windows(2)
            .all(|w| (w[0].line, w[0].column) <= (w[1].line, w[1].column))
    );
    assert!(!got.iter().any(|(c, _)| *c == "agent-missing"));
}

#[test]
fn cedar_parse_errors_carry_the_known_hints() {
    for (body, needle) in [
        ("# note\npermit(principal, action, resource);\n", "//"),
        (
            "permit(principal, action, resource) when { context.p.startsWith(\"/a\") };\n",
            "like",
        ),
        (
            "permit(principal, action, resource in [AgentRC::Tool::\"a\"]);\n",
            "action scope",
        ),
    ] {
        let diags = lint(&parse(&format!(
            "AGENT a\nAUDIT basic\nPOLICY\n{body}END\n"
        )));
        let d = diags.iter().find(|d| d.code == "cedar-parse").expect(body);
        assert_eq!(d.line, 3);
        assert!(d.hint.as_deref().unwrap().contains(needle), "{d:?}");
    }
}

#[test]
fn compat_mode_only_relaxes_two_argument_bind() {
    let text = "AGENT a\nAUDIT basic\nBIND ./repo /workspace\n";
    assert_eq!(error_codes(text), ["bind-mode-missing"]);
    let compat = parse_agentfile(text, &ParseOptions { compat: true });
    assert!(compat.is_compat());
    let d = compat
        .diagnostics()
        .iter()
        .find(|d| d.code == "bind-mode-missing")
        .unwrap();
    assert_eq!(d.severity, Severity::Warning);
    // Literal secrets stay errors in compat mode.
    assert!(!check_agentfile("CRED k sk-live-123 host:a.example\n", true).ok);
}

const SECRETS: [&str; 4] = [
    "sk-live-0123456789abcdef",
    "ghp_SECRETSECRETSECRETSECRET",
    "hunter2hunter2",
    "AKIAIOSFODNN7EXAMPLE",
];

#[test]
fn secret_values_never_appear_in_any_output() {
    let text = format!(
        "AGENT a\nCRED openai {} host:api.openai.com\nCRED gh env:GITHUB_TOKEN host:api.github.com {}\n\
         CRED {} env:X host:h.example\nCRED {}\ncred x {}\nAUDIT basic\n",
        SECRETS[0], SECRETS[1], "bad/name=hunter2hunter2", SECRETS[3], SECRETS[2]
    );
    for compat in [false, true] {
        let af = parse_agentfile(&text, &ParseOptions { compat });
        let report = check_agentfile(&text, compat);
        let outputs = [
            format!("{af:?}"),
            serde_json::to_string(&af).unwrap(),
            format!("{:?}", lint(&af)),
            serde_json::to_string(&report).unwrap(),
            format!("{report:?}"),
            format!(
                "{:?}",
                evaluate_policy(
                    &af,
                    "AgentRC::Agent::\"a\"",
                    "AgentRC::Action::\"x\"",
                    "AgentRC::Tool::\"y\"",
                    &json!({})
                )
            ),
            format!("{:?}", lock(&af)),
            package_digest(&af),
        ];
        for out in &outputs {
            for s in SECRETS {
                assert!(!out.contains(s), "secret {s} leaked in {out}");
            }
        }
        assert!(af.creds().is_empty() || af.creds().iter().all(|c| c.source.starts_with("env:")));
        let codes: Vec<_> = lint(&af).into_iter().map(|d| d.code).collect();
        assert!(codes.contains(&"cred-literal-secret".to_string()));
    }
}

#[test]
fn creds_expose_name_source_and_hosts_only() {
    let af = parse(
        "CRED stripe_key env:STRIPE_KEY host:*.stripe.com host:API.stripe.com inject:query\n",
    );
    let c = &af.creds()[0];
    assert_eq!(
        (c.name.as_str(), c.source.as_str()),
        ("stripe_key", "env:STRIPE_KEY")
    );
    assert_eq!(c.hosts, ["*.stripe.com", "api.stripe.com"]);
    assert_eq!(c.inject, leasekit::agentfile::Inject::Query);
}

fn decide(
    text: &str,
    resource: &str,
    context: serde_json::Value,
) -> leasekit::agentfile::PolicyDecision {
    evaluate_policy(
        &parse(text),
        "AgentRC::Agent::\"code-reviewer\"",
        "AgentRC::Action::\"tool.invoke\"",
        resource,
        &context,
    )
}

#[cfg(feature = "cedar")]
#[test]
fn policy_blocks_and_shorthand_form_one_set_and_deny_wins() {
    let ok = decide(
        REVIEWER,
        "AgentRC::Tool::\"file_read\"",
        json!({"path": "/workspace/a.rs"}),
    );
    assert!(ok.allowed, "{ok:?}");
    assert_eq!(ok.determining, ["policy@L15#0"]);
    let outside = decide(
        REVIEWER,
        "AgentRC::Tool::\"file_read\"",
        json!({"path": "/etc/passwd"}),
    );
    assert!(!outside.allowed);
    // The lowered ALLOW uses the full tool reference.
    let allow = decide(REVIEWER, "AgentRC::Tool::\"utcp:file_read\"", json!({}));
    assert!(allow.allowed, "{allow:?}");
    assert_eq!(allow.determining, ["allow@L10"]);
    // DENY covers the full and the bare id, and wins over a permit.
    let text = "AGENT code-reviewer\nALLOW invoke utcp:shell\nDENY invoke utcp:shell\nPOLICY\npermit(principal, action, resource);\nEND\n";
    for r in ["AgentRC::Tool::\"utcp:shell\"", "AgentRC::Tool::\"shell\""] {
        let d = decide(text, r, json!({}));
        assert!(!d.allowed, "{r}: {d:?}");
        assert_eq!(d.determining, ["deny@L3"]);
    }
    // Deny by default.
    assert!(!decide(REVIEWER, "AgentRC::Tool::\"other\"", json!({})).allowed);
}

#[cfg(feature = "cedar")]
#[test]
fn ratelimit_needs_a_count_below_the_limit() {
    let text = "AGENT code-reviewer\nALLOW invoke utcp:git_diff\nRATELIMIT utcp:git_diff 10/min\n";
    let r = "AgentRC::Tool::\"utcp:git_diff\"";
    assert!(decide(text, r, json!({"rate_count": 9})).allowed);
    let over = decide(text, r, json!({"rate_count": 10}));
    assert!(!over.allowed);
    assert_eq!(over.determining, ["ratelimit@L3"]);
    assert!(!decide(text, r, json!({})).allowed, "no counter means deny");
    assert!(
        !decide(text, r, json!({"rate_count": "9"})).allowed,
        "wrong type means deny"
    );
}

#[cfg(feature = "cedar")]
#[test]
fn any_error_means_deny() {
    // A policy that errors (missing context attribute) while another permits: deny.
    let text = "AGENT a\nPOLICY\npermit(principal, action, resource);\npermit(principal, action, resource) when { context.missing == 1 };\nEND\n";
    let d = decide(text, "AgentRC::Tool::\"x\"", json!({}));
    assert!(!d.allowed);
    assert!(!d.errors.is_empty());
    // An unparsable block denies everything.
    let d = decide(
        "POLICY\n# c\npermit(principal, action, resource);\nEND\n",
        "AgentRC::Tool::\"x\"",
        json!({}),
    );
    assert!(!d.allowed && !d.errors.is_empty());
    // Bad request parts deny.
    let af = parse("POLICY\npermit(principal, action, resource);\nEND\n");
    for (p, a, r, c) in [
        (
            "not an entity",
            "AgentRC::Action::\"x\"",
            "AgentRC::Tool::\"y\"",
            json!({}),
        ),
        (
            "AgentRC::Agent::\"a\"",
            "AgentRC::Action::\"x\"",
            "AgentRC::Tool::\"y\"",
            json!([1]),
        ),
    ] {
        let d = evaluate_policy(&af, p, a, r, &c);
        assert!(!d.allowed && !d.errors.is_empty(), "{d:?}");
    }
    assert!(
        evaluate_policy(
            &af,
            "AgentRC::Agent::\"a\"",
            "AgentRC::Action::\"x\"",
            "AgentRC::Tool::\"y\"",
            &serde_json::Value::Null
        )
        .allowed
    );
    // An Agentfile with errors denies.
    let d = decide(
        "FOO\nPOLICY\npermit(principal, action, resource);\nEND\n",
        "AgentRC::Tool::\"x\"",
        json!({}),
    );
    assert!(!d.allowed);
}

#[cfg(not(feature = "cedar"))]
#[test]
fn without_cedar_everything_is_denied() {
    let d = decide(
        "POLICY\npermit(principal, action, resource);\nEND\n",
        "AgentRC::Tool::\"x\"",
        json!({}),
    );
    assert!(!d.allowed && !d.errors.is_empty());
}

#[test]
fn lockfile_is_deterministic_and_holds_no_secret() {
    let af = parse(REVIEWER);
    let lf = lock(&af).unwrap();
    let a = lockfile_json(&lf);
    assert_eq!(a, lockfile_json(&lock(&parse(REVIEWER)).unwrap()));
    assert!(a.ends_with("}\n"));
    let v: serde_json::Value = serde_json::from_str(&a).unwrap();
    assert_eq!(v["version"], "1");
    assert_eq!(v["agentfile_hash"], af.source_digest());
    assert!(af.source_digest().starts_with("sha256:") && af.source_digest().len() == 71);
    assert_eq!(v["credential_names"], json!(["github_token"]));
    assert_eq!(
        v["base_image"],
        json!({"registry": "ghcr.io", "name": "org/base-agent", "tag": "1.4"})
    );
    assert_eq!(
        v["tools"],
        json!([{"name": "utcp:file_read"}, {"name": "utcp:git_diff"}])
    );
    assert_eq!(v["sops"][0]["name"], "review");
    assert_eq!(v["sops"][0]["source"], "inline");
    assert!(
        v["sops"][0]["hash"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
    assert!(v["policy_hash"].as_str().unwrap().starts_with("sha256:"));
    assert!(
        !a.contains("GITHUB_TOKEN"),
        "only names, not even source references"
    );
    // Round trip through serde.
    let back: leasekit::agentfile::Lockfile = serde_json::from_str(&a).unwrap();
    assert_eq!(back, lf);
    // The policy hash follows the policy text.
    let changed = REVIEWER.replace("/workspace/*", "/workspace/src/*");
    assert_ne!(lock(&parse(&changed)).unwrap().policy_hash, lf.policy_hash);
    // Errors refuse to lock.
    let e = lock(&parse("AGENT a\nFOO\n")).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidRequest);
}

#[test]
fn package_digest_ignores_placement_comments_and_spacing() {
    let base = package_digest(&parse(REVIEWER));
    assert!(base.starts_with("sha256:"));
    let moved = REVIEWER.replace("ISOLATION microvm\n", "").replace(
        "AUDIT all\n",
        "# a comment\nAUDIT    all   # inline\nBIND ./r /workspace ro\nSLICE cpu=4\n",
    );
    assert_eq!(package_digest(&parse(&moved)), base);
    let changed = REVIEWER.replace("MOUNT /workspace ro", "MOUNT /workspace rw");
    assert_ne!(package_digest(&parse(&changed)), base);
    let policy = REVIEWER.replace("reads below", "reads under");
    assert_ne!(package_digest(&parse(&policy)), base);
}

const PARENT: &str = "AGENT base\nTOOL utcp:file_read\nTOOL utcp:git_diff\nURL https://api.github.com\nMOUNT /workspace rw\nCRED gh env:GH host:*.github.com\nDENY invoke utcp:shell\nRATELIMIT utcp:git_diff 10/min\nTIMEOUT 600\nAUDIT basic\nPOLICY\nforbid(principal, action, resource == AgentRC::Tool::\"rm\");\nEND\n";

fn child(extra: &str) -> String {
    format!(
        "AGENT child\nTOOL utcp:file_read\nMOUNT /workspace/src ro\nURL https://api.github.com/repos\nCRED gh env:GH host:api.github.com\nDENY invoke utcp:shell\nRATELIMIT utcp:git_diff 5/min\nTIMEOUT 300\nPOLICY\nforbid(principal, action, resource == AgentRC::Tool::\"rm\");\nEND\n{extra}"
    )
}

#[test]
fn inheritance_allows_narrowing() {
    let p = parse(PARENT);
    check_inheritance(&p, &parse(&child("AUDIT all\n"))).unwrap();
    check_inheritance(&p, &parse(PARENT)).unwrap();
}

#[test]
fn inheritance_rejects_every_kind_of_widening() {
    let p = parse(PARENT);
    let cases = [
        child("AUDIT basic\nTOOL utcp:shell\n"),
        child("AUDIT basic\nMOUNT /etc ro\n"),
        child("AUDIT basic\nMOUNT /workspace/src rw\nMOUNT /tmp rw\n"),
        child("AUDIT basic\nURL https://evil.example\n"),
        child("AUDIT off\n"),
        child(""),
        child("AUDIT basic\n").replace("DENY invoke utcp:shell\n", ""),
        child("AUDIT basic\n").replace(
            "forbid(principal, action, resource == AgentRC::Tool::\"rm\");\n",
            "permit(principal, action, resource);\n",
        ),
        child("AUDIT basic\n").replace("5/min", "20/min"),
        child("AUDIT basic\n").replace("RATELIMIT utcp:git_diff 5/min\n", ""),
        child("AUDIT basic\n").replace("TIMEOUT 300", "TIMEOUT 900"),
        child("AUDIT basic\nCRED openai env:OPENAI host:api.openai.com\n"),
        child("AUDIT basic\n").replace("host:api.github.com", "host:evil.example"),
    ];
    for (i, c) in cases.iter().enumerate() {
        let e = check_inheritance(&p, &parse(c)).expect_err(&format!("case {i} should fail"));
        assert_eq!(e.code(), ErrorCode::LeaseSubsetViolation, "case {i}: {e:?}");
    }
    // A rate in another unit that is no looser passes: 5/min <= 10/min.
    check_inheritance(
        &p,
        &parse(&child("AUDIT basic\n").replace("5/min", "300/hour")),
    )
    .unwrap();
    let e = check_inheritance(
        &p,
        &parse(&child("AUDIT basic\n").replace("5/min", "601/hour")),
    )
    .unwrap_err();
    assert_eq!(e.code(), ErrorCode::LeaseSubsetViolation);
    // An invalid file is INVALID_REQUEST.
    let e = check_inheritance(&p, &parse("FOO\n")).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidRequest);
}

#[test]
fn every_code_is_documented_and_exercised() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/agentfile.md"))
        .unwrap();
    let vectors = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../conformance/vectors/agentfile.json"
    ))
    .unwrap();
    let mut fixtures = String::new();
    for e in std::fs::read_dir(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../conformance/agentfiles"
    ))
    .unwrap()
    {
        fixtures.push_str(&std::fs::read_to_string(e.unwrap().path()).unwrap());
    }
    let this = std::fs::read_to_string(file!().replace("core/", "")).unwrap_or_default();
    for code in codes::ALL {
        assert!(
            doc.contains(&format!("`{code}`")),
            "{code} not in docs/agentfile.md"
        );
        let quoted = format!("\"{code}\"");
        if *code != codes::CEDAR_UNAVAILABLE {
            assert!(
                vectors.contains(&quoted) || fixtures.contains(&quoted) || this.contains(&quoted),
                "{code} has no test case"
            );
        }
    }
}

#[test]
fn warning_codes_are_warnings() {
    for (text, code) in [
        ("AGENT a\nX-ACME-QUOTA 5\n", "extension-directive"),
        ("# syntax=agentrc.agentfile/v9\nAGENT a\n", "syntax-marker"),
        ("AGENT a\nTOOL file_read\n", "tool-namespace"),
        ("AGENT a\nCRED gh env:GH\n", "cred-host-missing"),
        ("AGENT a\nFROM python\n", "from-mutable-tag"),
        ("AGENT a\nIMAGE x:1\n", "placement-directive"),
        ("AGENT a\nTOOL utcp:exec\n", "high-risk-tool"),
        ("AGENT Agent_1\n", "agent-name"),
        ("TOOL utcp:a\n", "agent-missing"),
        ("AGENT a\n", "audit-missing"),
        ("AGENT a\nURL https://a.example\n", "boundaries-implicit"),
    ] {
        let diags = lint(&parse(text));
        let d = diags
            .iter()
            .find(|d| d.code == code)
            .unwrap_or_else(|| panic!("{code}: {diags:?}"));
        assert_eq!(d.severity, Severity::Warning, "{code}");
        assert!(
            check_agentfile(text, false).ok,
            "{code} must not fail the file"
        );
    }
    let af = parse("AGENT a\nX-ACME-QUOTA 5 per-day\n");
    let ext = af.directives_named("X-ACME-QUOTA").next().unwrap();
    assert_eq!(ext.args().collect::<Vec<_>>(), ["5", "per-day"]);
    assert!(ext.info().is_none());
}

#[test]
fn lease_wide_bounds_are_reported_not_silently_dropped() {
    // 1025 tools exceed the 1024-patterns-per-capability bound of SEMANTICS 2.
    let mut text = String::from("AGENT a\nAUDIT basic\nALLOW invoke utcp:t0\n");
    for i in 0..1025 {
        text.push_str(&format!("TOOL utcp:t{i}\n"));
    }
    let report = check_agentfile(&text, false);
    assert!(!report.ok && report.lease.is_none());
    let d = report.diagnostics.iter().find(|d| d.is_error()).unwrap();
    assert_eq!((d.code.as_str(), d.line), ("lease-pattern", 0));
}

#[test]
fn mounts_are_read_once_for_the_lease_and_for_summaries() {
    use leasekit::agentfile::Mount;
    let af = parse("AGENT a\nMOUNT /workspace rw\nMOUNT /data ro\nTOOL x:y\n");
    let mounts: Vec<Mount<'_>> = af.mounts().collect();
    assert_eq!(
        mounts,
        [
            Mount {
                path: "/workspace",
                writable: true
            },
            Mount {
                path: "/data",
                writable: false
            }
        ]
    );
    let tool = &af.directives()[3];
    assert_eq!(tool.mount(), None);
    let lease = leasekit::agentfile::agentfile_lease(&af)
        .unwrap()
        .to_value();
    assert_eq!(lease["fs.write"], json!(["/workspace", "/workspace/**"]));
    assert_eq!(lease["fs.read"].as_array().unwrap().len(), 4);
}
