//! The lease an Agentfile requests (SEMANTICS 12, last bullet).
//!
//! | directive | capability | patterns |
//! |---|---|---|
//! | `TOOL ns:name` | `tool.call` | `ns:name` |
//! | `URL u` | `net.fetch` | `u`, `u/**` |
//! | `SERVER name u` | `net.fetch` | `u`, `u/**` |
//! | `MOUNT path ro` | `fs.read` | `path`, `path/**` |
//! | `MOUNT path rw` | `fs.read`, `fs.write` | `path`, `path/**` |
//!
//! `u/**` and `path/**` are formed after removing trailing `/` from `u`/`path` (so `/`
//! gives `/` and `/**`). Nothing else grants anything: `CRED`, `MCP`, `TOOLSET`, `SKILL`,
//! `FUNCTION` and `MEMORY` are references, not grants.

use std::collections::{BTreeMap, HashSet};

use super::ast::{Agentfile, Directive};
use crate::{Error, ErrorCode, Lease};

fn with_subtree(base: &str) -> [String; 2] {
    let trimmed = base.trim_end_matches('/');
    [base.to_string(), format!("{trimmed}/**")]
}

/// The (capability, pattern) pairs one directive contributes.
pub(crate) fn directive_patterns(d: &Directive) -> crate::Result<Vec<(&'static str, String)>> {
    let mut out = Vec::new();
    match d.name.as_ref() {
        "TOOL" => {
            if let Some(t) = d.arg(0) {
                out.push(("tool.call", t.to_string()));
            }
        }
        "URL" | "SERVER" => {
            let u = if d.name == "URL" { d.arg(0) } else { d.arg(1) };
            if let Some(u) = u {
                out.extend(with_subtree(u).map(|p| ("net.fetch", p)));
            }
        }
        "MOUNT" => {
            if let Some(m) = d.mount() {
                out.extend(with_subtree(m.path).map(|p| ("fs.read", p)));
                if m.writable {
                    out.extend(with_subtree(m.path).map(|p| ("fs.write", p)));
                }
            }
        }
        _ => {}
    }
    Ok(out)
}

/// The ARCP lease the Agentfile requests. Fails with `INVALID_REQUEST` when the Agentfile has
/// parse errors or a derived pattern is invalid (fail closed). Pattern order follows the file;
/// duplicates are dropped. A file that requests nothing yields the empty lease `{}`.
pub fn agentfile_lease(af: &Agentfile) -> crate::Result<Lease> {
    if let Some(d) = af.diagnostics().iter().find(|d| d.is_error()) {
        return Err(Error::new(
            ErrorCode::InvalidRequest,
            format!(
                "the Agentfile has errors (first: `{}` at line {}); no lease is derived",
                d.code, d.line
            ),
        ));
    }
    let mut map: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut seen: HashSet<(&'static str, String)> = HashSet::new();
    for d in af.directives() {
        for (cap, p) in directive_patterns(d)? {
            if seen.insert((cap, p.clone())) {
                map.entry(cap.to_string()).or_default().push(p);
            }
        }
    }
    Lease::from_map(map)
}
