//! `conformance/surface.json` (the surface manifest) agrees with the C header: every C name
//! the manifest gives is a function `include/leasekit.h` declares, every entry has a C value
//! of a known form, and every function the header declares is listed (in `entries`, as a
//! `pending` name, or in `binding_only`), so a new C function cannot land unlisted.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::Value;

fn repo_file(rel: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// The function names the header declares: `lk_name(` outside comments.
fn declared_functions(header: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in header.lines() {
        let code = line.trim_start();
        if code.starts_with("//") || code.starts_with('*') || code.starts_with("/*") {
            continue;
        }
        let code = code.split("//").next().unwrap_or("");
        let bytes = code.as_bytes();
        let mut i = 0;
        while let Some(pos) = code[i..].find("lk_") {
            let start = i + pos;
            let before_ok = start == 0
                || !(bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_');
            let mut end = start;
            while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_') {
                end += 1;
            }
            if before_ok && bytes.get(end) == Some(&b'(') {
                out.insert(code[start..end].to_owned());
            }
            i = end.max(start + 3);
        }
    }
    out
}

/// The names of one language value: (checked names, pending names); `not_exposed` gives none.
fn names(value: &Value, entry: &Value) -> (Vec<String>, Vec<String>) {
    let strings = |v: &Value| -> Vec<String> {
        match v {
            Value::String(s) => vec![s.clone()],
            Value::Array(items) => items
                .iter()
                .map(|i| {
                    i.as_str()
                        .unwrap_or_else(|| panic!("a name must be a string: {entry}"))
                        .to_owned()
                })
                .collect(),
            _ => panic!("bad name list in {entry}"),
        }
    };
    match value {
        Value::String(_) | Value::Array(_) => (strings(value), vec![]),
        Value::Object(map) if map.contains_key("not_exposed") => {
            let why = map["not_exposed"].as_str().unwrap_or("");
            assert!(
                !why.trim().is_empty(),
                "not_exposed needs a reason: {entry}"
            );
            (vec![], vec![])
        }
        Value::Object(map) if map.contains_key("pending") => (vec![], strings(&map["pending"])),
        _ => panic!("a language value is a name, a list, not_exposed or pending: {entry}"),
    }
}

#[test]
fn manifest_c_names_are_declared_in_the_header() {
    let manifest: Value =
        serde_json::from_str(&repo_file("../conformance/surface.json")).expect("surface.json");
    let declared = declared_functions(&repo_file("include/leasekit.h"));
    assert!(
        declared.len() > 50,
        "parsed only {} functions",
        declared.len()
    );
    let entries = manifest["entries"].as_array().expect("entries");
    assert!(!entries.is_empty());

    let mut listed = BTreeSet::new();
    let mut missing = Vec::new();
    for entry in entries {
        for lang in ["rust", "c", "python", "node", "java"] {
            assert!(entry.get(lang).is_some(), "entry without {lang}: {entry}");
        }
        let (checked, pending) = names(&entry["c"], entry);
        for name in checked {
            if !declared.contains(&name) {
                missing.push(name.clone());
            }
            listed.insert(name);
        }
        listed.extend(pending);
    }
    assert!(
        missing.is_empty(),
        "in surface.json but not in leasekit.h: {missing:?}"
    );

    for name in manifest["binding_only"]["c"]
        .as_array()
        .expect("binding_only.c")
    {
        let name = name.as_str().expect("a name");
        assert!(
            declared.contains(name),
            "binding_only {name} is not in leasekit.h"
        );
        listed.insert(name.to_owned());
    }
    let unlisted: Vec<_> = declared.difference(&listed).collect();
    assert!(
        unlisted.is_empty(),
        "declared in leasekit.h but not in conformance/surface.json: {unlisted:?}"
    );
}

#[test]
fn the_declaration_parser_sees_only_declarations() {
    let header = "// lk_comment(x)\n * lk_doc(y)\nvoid lk_a(int x);\nenum LkStatus lk_b_n(const char *s, size_t n); // lk_c(\nint not_lk_d(void);\n";
    let got: Vec<_> = declared_functions(header).into_iter().collect();
    assert_eq!(got, ["lk_a", "lk_b_n"]);
}
