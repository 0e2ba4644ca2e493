//! `leasekit inspect`: the review-before-run summary of an Agentfile and its derived lease.
//!
//! The summary only groups what the parsed Agentfile already holds (directives, credential
//! references, diagnostics); the lease, digests and diagnostics come from the core.

use leasekit::agentfile::{
    Agentfile, Directive, Severity, agentfile_lease, is_pinned_reference, lint, package_digest,
    unpinned_base,
};
use serde_json::{Value, json};

use crate::Report;
use crate::args::{Format, InspectArgs};
use crate::failure::Failure;
use crate::input::{display_name, read_agentfile};
use crate::style::Style;

/// A directive reference for the summary: its line and argument text.
fn entry(d: &Directive) -> Value {
    json!({"directive": &*d.name, "text": d.text, "line": d.line})
}

/// The first argument of every directive with this name.
fn firsts(af: &Agentfile, name: &str) -> Vec<String> {
    af.directives_named(name)
        .filter_map(|d| d.arg(0).map(str::to_string))
        .collect()
}

/// Builds the summary as JSON (the text form is rendered from it).
fn summary(af: &Agentfile) -> Value {
    let read: Vec<&str> = af.mounts().map(|m| m.path).collect();
    let write: Vec<&str> = af.mounts().filter(|m| m.writable).map(|m| m.path).collect();
    let servers: Vec<Value> = af
        .directives_named("SERVER")
        .map(|d| json!({"name": d.arg(0), "url": d.arg(1)}))
        .collect();
    let secrets: Vec<Value> = af
        .creds()
        .iter()
        .map(|c| json!({"name": c.name, "hosts": c.hosts, "inject": c.inject, "line": c.line}))
        .collect();
    let policy_blocks: Vec<Value> = af
        .policy_blocks()
        .map(|d| {
            let lines = d.block.as_ref().map_or(0, |b| b.body.lines().count());
            json!({"line": d.line, "lines": lines})
        })
        .collect();
    let rules: Vec<Value> = af
        .directives()
        .iter()
        .filter(|d| matches!(&*d.name, "ALLOW" | "DENY" | "RATELIMIT" | "LIMIT"))
        .map(entry)
        .collect();
    let mut pinned = Vec::new();
    let mut unpinned = Vec::new();
    for d in af.directives() {
        for a in (0..).map_while(|i| d.arg(i)) {
            if is_pinned_reference(a) {
                pinned.push(json!({"directive": &*d.name, "reference": a, "line": d.line}));
            }
        }
        if let Some(r) = unpinned_base(d) {
            unpinned.push(json!({"directive": &*d.name, "reference": r, "line": d.line}));
        }
    }
    let placement: Vec<Value> = af
        .directives()
        .iter()
        .filter(|d| d.is_placement())
        .map(entry)
        .collect();
    let sops: Vec<Value> = af
        .directives_named("SOP")
        .map(|d| json!({"name": d.arg(0), "inline": d.block.is_some(), "line": d.line}))
        .collect();
    let diagnostics = lint(af);
    let count = |s: Severity| diagnostics.iter().filter(|d| d.severity == s).count();
    let (lease, lease_error, lease_warnings) = match agentfile_lease(af) {
        Ok(l) => (l.to_value(), Value::Null, json!(leasekit::lint_lease(&l))),
        Err(e) => (Value::Null, e.to_json(), json!([])),
    };
    json!({
        "agent": af.agent(),
        "from": firsts(af, "FROM"),
        "command": af.directives_named("CMD").next().map(|d| d.text.clone()),
        "shell": firsts(af, "SHELL"),
        "audit": af.audit().map(|a| a.as_str()),
        "timeout_seconds": af.directives_named("TIMEOUT").next().and_then(|d| d.arg(0)),
        "tools": firsts(af, "TOOL"),
        "toolsets": firsts(af, "TOOLSET"),
        "functions": firsts(af, "FUNCTION"),
        "skills": firsts(af, "SKILL"),
        "mcp": firsts(af, "MCP"),
        "sops": sops,
        "paths": {"read": read, "write": write},
        "hosts": {"urls": firsts(af, "URL"), "servers": servers},
        "secrets": secrets,
        "policies": {"blocks": policy_blocks, "rules": rules},
        "pinned_digests": pinned,
        "unpinned_references": unpinned,
        "placement": placement,
        "diagnostics": {"errors": count(Severity::Error), "warnings": count(Severity::Warning)},
        "agentfile_hash": af.source_digest(),
        "package_digest": package_digest(af),
        "lease": lease,
        "lease_error": lease_error,
        "lease_warnings": lease_warnings,
    })
}

/// Runs `inspect`: exit 0 when the Agentfile has no errors, 1 otherwise.
pub fn run(args: &InspectArgs, style: &Style) -> Result<Report, Failure> {
    let af = read_agentfile(&args.agentfile, args.compat)?;
    let mut s = summary(&af);
    let errors = s["diagnostics"]["errors"].as_u64().unwrap_or(0);
    let stdout = match args.format {
        Format::Json => {
            s["agentfile"] = json!(display_name(&args.agentfile));
            super::pretty(&s)
        }
        Format::Text => to_text(display_name(&args.agentfile), &s, style),
    };
    Ok(Report::new(stdout, u8::from(errors > 0)))
}

/// Strings of a JSON array.
fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// A `key: a, b, c` line, `none` when empty.
fn list_line(key: &str, items: &[String]) -> String {
    let value = if items.is_empty() {
        "none".to_string()
    } else {
        items.join(", ")
    };
    format!("  {key:<10} {value}\n")
}

fn scalar(v: &Value) -> String {
    match v {
        Value::Null => "none".to_string(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn to_text(path: &str, s: &Value, style: &Style) -> String {
    let mut out = format!("{} {path}\n", style.bold("Agentfile"));
    out.push_str(&format!("  {:<10} {}\n", "agent", scalar(&s["agent"])));
    out.push_str(&list_line("from", &strings(&s["from"])));
    out.push_str(&format!("  {:<10} {}\n", "command", scalar(&s["command"])));
    if !strings(&s["shell"]).is_empty() {
        out.push_str(&list_line("shell", &strings(&s["shell"])));
    }
    out.push_str(&format!("  {:<10} {}\n", "audit", scalar(&s["audit"])));
    out.push_str(&format!(
        "  {:<10} {}\n",
        "timeout",
        scalar(&s["timeout_seconds"])
    ));

    out.push_str(&format!("{}\n", style.bold("tools and references")));
    out.push_str(&list_line("tools", &strings(&s["tools"])));
    for key in ["toolsets", "functions", "skills", "mcp"] {
        if !strings(&s[key]).is_empty() {
            out.push_str(&list_line(key, &strings(&s[key])));
        }
    }
    let sops: Vec<String> = s["sops"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|x| {
            format!(
                "{} ({})",
                scalar(&x["name"]),
                if x["inline"] == true {
                    "inline"
                } else {
                    "reference"
                }
            )
        })
        .collect();
    if !sops.is_empty() {
        out.push_str(&list_line("sops", &sops));
    }

    out.push_str(&format!("{}\n", style.bold("filesystem")));
    out.push_str(&list_line("read", &strings(&s["paths"]["read"])));
    out.push_str(&list_line("write", &strings(&s["paths"]["write"])));

    out.push_str(&format!("{}\n", style.bold("hosts")));
    out.push_str(&list_line("urls", &strings(&s["hosts"]["urls"])));
    let servers: Vec<String> = s["hosts"]["servers"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|x| format!("{} {}", scalar(&x["name"]), scalar(&x["url"])))
        .collect();
    if !servers.is_empty() {
        out.push_str(&list_line("servers", &servers));
    }

    out.push_str(&format!(
        "{}\n",
        style.bold("secrets (names only, never values)")
    ));
    let secrets = s["secrets"].as_array().cloned().unwrap_or_default();
    if secrets.is_empty() {
        out.push_str("  none\n");
    }
    for c in &secrets {
        let hosts = strings(&c["hosts"]);
        let to = if hosts.is_empty() {
            style.warn("no host binding: never substituted")
        } else {
            format!("only to {}", hosts.join(", "))
        };
        out.push_str(&format!(
            "  {}  {to} (inject: {})\n",
            scalar(&c["name"]),
            scalar(&c["inject"])
        ));
    }

    out.push_str(&format!("{}\n", style.bold("policies")));
    let blocks = s["policies"]["blocks"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let rules = s["policies"]["rules"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if blocks.is_empty() && rules.is_empty() {
        out.push_str("  none\n");
    }
    for b in &blocks {
        out.push_str(&format!(
            "  POLICY block at line {} ({} lines of Cedar)\n",
            b["line"], b["lines"]
        ));
    }
    for r in &rules {
        out.push_str(&format!(
            "  {} {}  (line {})\n",
            scalar(&r["directive"]),
            scalar(&r["text"]),
            r["line"]
        ));
    }

    out.push_str(&format!("{}\n", style.bold("pinned digests")));
    let pinned = s["pinned_digests"].as_array().cloned().unwrap_or_default();
    if pinned.is_empty() {
        out.push_str("  none\n");
    }
    for p in &pinned {
        out.push_str(&format!(
            "  {} {}\n",
            scalar(&p["directive"]),
            scalar(&p["reference"])
        ));
    }
    for u in s["unpinned_references"].as_array().into_iter().flatten() {
        out.push_str(&format!(
            "  {} {} {}\n",
            scalar(&u["directive"]),
            scalar(&u["reference"]),
            style.warn("(not pinned by digest)")
        ));
    }

    let placement = s["placement"].as_array().cloned().unwrap_or_default();
    if !placement.is_empty() {
        out.push_str(&format!(
            "{}\n",
            style.bold("placement directives (belong in a run manifest)")
        ));
        for p in &placement {
            out.push_str(&format!(
                "  {} {}  (line {})\n",
                scalar(&p["directive"]),
                scalar(&p["text"]),
                p["line"]
            ));
        }
    }

    let (errors, warnings) = (&s["diagnostics"]["errors"], &s["diagnostics"]["warnings"]);
    let diag = format!("{errors} errors, {warnings} warnings (`leasekit lint {path}` for details)");
    out.push_str(&format!(
        "{} {}\n",
        style.bold("diagnostics"),
        if s["diagnostics"]["errors"] == 0 {
            style.good(&diag)
        } else {
            style.bad(&diag)
        }
    ));
    out.push_str(&format!(
        "{} {}\n",
        style.bold("agentfile hash"),
        scalar(&s["agentfile_hash"])
    ));
    out.push_str(&format!(
        "{} {}\n",
        style.bold("package digest"),
        scalar(&s["package_digest"])
    ));
    out.push_str(&format!("{}\n", style.bold("derived lease")));
    if s["lease"].is_null() {
        out.push_str(&format!(
            "  {}: {}\n",
            style.bad(&scalar(&s["lease_error"]["code"])),
            scalar(&s["lease_error"]["message"])
        ));
    } else {
        out.push_str(&super::pretty(&s["lease"]));
    }
    let warnings = s["lease_warnings"].as_array().cloned().unwrap_or_default();
    if !warnings.is_empty() {
        out.push_str(&format!("{}\n", style.bold("lease warnings")));
        for w in &warnings {
            out.push_str(&format!(
                "  {}[{}]: {} {}: {}\n    {}: {}\n",
                style.warn("warning"),
                scalar(&w["code"]),
                scalar(&w["capability"]),
                w["pattern"],
                scalar(&w["message"]),
                style.dim("hint"),
                scalar(&w["hint"])
            ));
        }
    }
    out
}
