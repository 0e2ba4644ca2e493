//! Seed inputs for every target, built from the conformance vectors (`conformance/vectors`, or
//! the directory named by `LEASEKIT_VECTORS`) and the examples (`examples/leases`,
//! `examples/agentfiles`), in each target's input format.

use crate::fields::{join, selector};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The repository root (this crate lives in `fuzz/`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn vectors() -> Vec<Value> {
    let dir = std::env::var_os("LEASEKIT_VECTORS")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("conformance/vectors"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|x| x == "json"));
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        if let Ok(v) = serde_json::from_str::<Value>(&text) {
            out.extend(v["vectors"].as_array().cloned().unwrap_or_default());
        }
    }
    out
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(files_under(&p));
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Adds `cap` + `fields` for the targets that read a capability selector.
fn cap_seed(out: &mut Seeds, targets: &[&'static str], cap: &str, fields: &[&str]) {
    let Some(sel) = selector(cap) else { return };
    let parts: Vec<&[u8]> = fields.iter().map(|f| f.as_bytes()).collect();
    let mut data = vec![sel];
    data.extend(join(&parts));
    for t in targets {
        out.add(t, data.clone());
    }
}

/// Seeds by target name.
#[derive(Default)]
pub struct Seeds(pub BTreeMap<&'static str, Vec<Vec<u8>>>);

impl Seeds {
    pub(crate) fn add(&mut self, target: &'static str, data: Vec<u8>) {
        let v = self.0.entry(target).or_default();
        if !v.contains(&data) {
            v.push(data);
        }
    }
}

const CANON: &[&str] = &[
    "canonicalize",
    "canonical_fast_path",
    "canonical_invariants",
];

/// Every seed, from the vectors and the examples.
pub fn seeds() -> Seeds {
    let mut out = Seeds::default();
    let s = |v: &Value, k: &str| v[k].as_str().map(str::to_string);
    for v in vectors() {
        let input = &v["input"];
        match v["op"].as_str().unwrap_or("") {
            "validate_lease" => out.add("lease_json", input["lease"].to_string().into_bytes()),
            "canonicalize" => {
                if let (Some(c), Some(t)) = (s(input, "capability"), s(input, "target")) {
                    cap_seed(&mut out, CANON, &c, &[&t]);
                }
            }
            "match" => {
                let (c, p, t) = (
                    s(input, "capability"),
                    s(input, "pattern"),
                    s(input, "target"),
                );
                if let (Some(c), Some(p), Some(t)) = (c, p, t) {
                    cap_seed(&mut out, &["pattern_match"], &c, &[&p, &t]);
                    cap_seed(&mut out, CANON, &c, &[&t]);
                }
            }
            "subset" => {
                out.add("lease_json", input["child"].to_string().into_bytes());
                out.add("lease_json", input["parent"].to_string().into_bytes());
                for k in ["child_constraints", "parent_constraints"] {
                    if let Some(e) = input[k]["expires_at"].as_str() {
                        out.add("expires_at", e.as_bytes().to_vec());
                    }
                }
            }
            "narrow" => {
                out.add("lease_json", input["requested"].to_string().into_bytes());
                out.add("lease_json", input["ceiling"].to_string().into_bytes());
            }
            "budget_parse" => {
                if let Some(e) = s(input, "entry") {
                    out.add("budget_amount", e.into_bytes());
                }
            }
            "budget_sum" => {
                let entries: Vec<String> = input["entries"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| x.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default();
                out.add("budget_amount", entries.join(",").into_bytes());
            }
            "expires_at" => {
                if let Some(e) = s(input, "value") {
                    out.add("expires_at", e.into_bytes());
                }
            }
            "authorize" => authorize_seeds(&mut out, input),
            "governor" => crate::seeds_governor::governor_vector(&mut out, input),
            "frame_decode" => crate::seeds_governor::frame_vector(&mut out, input),
            "agentfile" => {
                if let Some(t) = s(input, "text") {
                    agentfile_seeds(&mut out, &t);
                }
            }
            _ => {}
        }
    }
    let root = repo_root();
    for p in files_under(&root.join("examples/leases")) {
        if let Ok(b) = std::fs::read(&p) {
            out.add("lease_json", b);
        }
    }
    for p in files_under(&root.join("examples/agentfiles")) {
        if let Ok(t) = std::fs::read_to_string(&p) {
            agentfile_seeds(&mut out, &t);
        }
    }
    out
}

fn authorize_seeds(out: &mut Seeds, input: &Value) {
    let lease = input["lease"].to_string();
    out.add("lease_json", lease.clone().into_bytes());
    for step in input["steps"].as_array().into_iter().flatten() {
        let (cap, target) = if let Some(a) = step["authorize"].as_array() {
            (a[0].as_str(), a[1].as_str())
        } else {
            (Some("model.use"), step["model"].as_str())
        };
        if let (Some(cap), Some(target)) = (cap, target) {
            let c = &input["constraints"];
            crate::seeds_governor::c_abi_authorize(out, &lease, c, cap, target);
        }
        if let (Some(sel), Some(target)) = (cap.and_then(selector), target) {
            let mut tail = vec![sel];
            tail.extend_from_slice(target.as_bytes());
            out.add("authorize", join(&[lease.as_bytes(), &tail]));
        }
        if let Some(v) = step["metric"]["value"].as_str() {
            out.add("budget_amount", v.as_bytes().to_vec());
        }
    }
    if let Some(e) = input["constraints"]["expires_at"].as_str() {
        out.add("expires_at", e.as_bytes().to_vec());
    }
}

fn agentfile_seeds(out: &mut Seeds, text: &str) {
    out.add("agentfile", text.as_bytes().to_vec());
    // POLICY blocks, as Cedar text for `cedar_policy`.
    let mut block: Option<Vec<&str>> = None;
    for line in text.lines() {
        let t = line.trim();
        match &mut block {
            None if t == "POLICY" || t.starts_with("POLICY ") => block = Some(Vec::new()),
            Some(b) if t == "END" || t.starts_with("END ") => {
                let policy = b.join("\n");
                for tool in ["file_read", "utcp:file_read", "x"] {
                    let ctx = r#"{"path": "/workspace/a", "rate_count": 1}"#;
                    out.add(
                        "cedar_policy",
                        join(&[policy.as_bytes(), tool.as_bytes(), ctx.as_bytes()]),
                    );
                }
                block = None;
            }
            Some(b) => b.push(line),
            None => {}
        }
    }
}
