//! `leasekit policy lint|hash|sign|compile|keygen`: governor policies (SEMANTICS 13.9).

use leasekit::governor::policy::{
    KeyAlgorithm, LintSeverity, Policy, PolicyDoc, agentfile::agentfile_policy_json, generate_key,
    lint_policy, policy_hash, sign_bundle,
};
use leasekit::governor::wire::PolicyBundle;
use serde_json::{Value, json};

use crate::Report;
use crate::args::{Format, KeyAlg, PolicyTool};
use crate::failure::Failure;
use crate::input::{display_name, read_agentfile, read_text};
use crate::style::Style;

fn read_json(path: &str) -> Result<Value, Failure> {
    let text = read_text(path)?;
    serde_json::from_str(&text)
        .map_err(|e| Failure::usage(format!("{}: not JSON: {e}", display_name(path))))
}

/// Runs one policy tool.
pub fn run(tool: &PolicyTool, style: &Style) -> Result<Report, Failure> {
    match tool {
        PolicyTool::Lint { file, format } => lint(file, *format, style),
        PolicyTool::Hash { file } => {
            let v = read_json(file)?;
            let h = policy_hash(&v).map_err(|e| Failure::core(display_name(file), &e))?;
            Ok(Report::new(format!("{h}\n"), 0))
        }
        PolicyTool::Sign {
            file,
            key,
            version,
            author,
            created_at,
        } => {
            let content = read_text(file)?;
            // The content must be a policy the governor accepts.
            Policy::from_json(&content).map_err(|e| Failure::core(display_name(file), &e))?;
            let key_text = read_text(key)?;
            let private = match serde_json::from_str::<Value>(&key_text) {
                Ok(v) => v["privateKeyBase64"]
                    .as_str()
                    .ok_or_else(|| Failure::usage(format!("{key}: no privateKeyBase64")))?
                    .to_string(),
                Err(_) => key_text.trim().to_string(),
            };
            let created = match created_at {
                Some(t) => t.clone(),
                None => leasekit::SystemClock
                    .now()
                    .map_err(Failure::from)?
                    .to_rfc3339(),
            };
            let mut b = PolicyBundle {
                version: version.clone(),
                created_at_utc: created,
                author: author.clone(),
                policy_content_json: content,
                signature_base64: String::new(),
            };
            sign_bundle(&mut b, &private).map_err(|e| Failure::core(key, &e))?;
            Ok(Report::new(
                super::pretty(&serde_json::to_value(&b).expect("bundle")),
                0,
            ))
        }
        PolicyTool::Compile { agentfile, compat } => {
            let af = read_agentfile(agentfile, *compat)?;
            let v = agentfile_policy_json(&af)
                .map_err(|e| Failure::core(display_name(agentfile), &e))?;
            Policy::from_value(v.clone())
                .map_err(|e| Failure::core(display_name(agentfile), &e))?;
            Ok(Report::new(super::pretty(&v), 0))
        }
        PolicyTool::Keygen { alg } => {
            let a = match alg {
                KeyAlg::Ed25519 => KeyAlgorithm::Ed25519,
                KeyAlg::P256 => KeyAlgorithm::P256,
            };
            let (private, public) = generate_key(a).map_err(Failure::from)?;
            let name = match alg {
                KeyAlg::Ed25519 => "ed25519",
                KeyAlg::P256 => "p256",
            };
            Ok(Report::new(
                super::pretty(&json!({
                    "algorithm": name,
                    "privateKeyBase64": private,
                    "publicKeyBase64": public,
                })),
                0,
            ))
        }
    }
}

use leasekit::Clock as _;

fn lint(file: &str, format: Format, style: &Style) -> Result<Report, Failure> {
    let v = read_json(file)?;
    let findings = match serde_json::from_value::<PolicyDoc>(v.clone()) {
        Ok(doc) => lint_policy(&doc, Some(&v)),
        Err(e) => vec![leasekit::governor::policy::LintFinding {
            severity: LintSeverity::Error,
            code: "malformed",
            message: format!("invalid policy: {e}"),
        }],
    };
    // Refusals the document check does not see (e.g. an invalid lease ceiling).
    let mut findings = findings;
    if !findings.iter().any(|f| f.severity == LintSeverity::Error) {
        if let Err(e) = Policy::from_value(v.clone()) {
            findings.insert(
                0,
                leasekit::governor::policy::LintFinding {
                    severity: LintSeverity::Error,
                    code: "refused",
                    message: e.message().to_string(),
                },
            );
        }
    }
    let errors = findings
        .iter()
        .filter(|f| f.severity == LintSeverity::Error)
        .count();
    let name = display_name(file);
    let stdout = match format {
        Format::Json => {
            super::pretty(&json!({"file": name, "ok": errors == 0, "findings": findings}))
        }
        Format::Text => {
            let mut out = String::new();
            for f in &findings {
                let sev = match f.severity {
                    LintSeverity::Error => style.bad("error"),
                    LintSeverity::Warning => style.warn("warning"),
                };
                out.push_str(&format!("{name}: {sev}[{}]: {}\n", f.code, f.message));
            }
            if findings.is_empty() {
                out.push_str(&format!("{name}: ok\n"));
            }
            out
        }
    };
    Ok(Report::new(stdout, u8::from(errors > 0)))
}
