//! The committed `include/leasekit.h` is exactly what cbindgen generates from the
//! sources, and its `LkStatus` enum lists the codes of `conformance/error-codes.json`
//! (and of the core's `ErrorCode::ALL`) in order.
//!
//! Regenerate the header with `LEASEKIT_BLESS=1 cargo test -p leasekit-ffi --test header`.

use std::path::{Path, PathBuf};

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn header_path() -> PathBuf {
    crate_dir().join("include").join("leasekit.h")
}

fn generate() -> String {
    let dir = crate_dir();
    let config =
        cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("read cbindgen.toml");
    let bindings = cbindgen::Builder::new()
        .with_crate(&dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header");
    let mut out = Vec::new();
    bindings.write(&mut out);
    String::from_utf8(out).expect("header is UTF-8")
}

#[test]
fn committed_header_matches_cbindgen_output() {
    let generated = generate();
    let path = header_path();
    if std::env::var_os("LEASEKIT_BLESS").is_some() {
        // Write then rename, so a test reading the header in parallel sees a whole file.
        let tmp = path.with_extension("h.tmp");
        std::fs::write(&tmp, &generated).expect("write header");
        std::fs::rename(&tmp, &path).expect("replace header");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != generated {
        let line = committed
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .map_or(
                committed.lines().count().min(generated.lines().count()) + 1,
                |i| i + 1,
            );
        panic!(
            "{} is out of date (first difference at line {line}); regenerate with \
             LEASEKIT_BLESS=1 cargo test -p leasekit-ffi --test header",
            path.display()
        );
    }
}

/// `(name, value)` of every `LK_*` enumerator of `LkStatus` in the header, in order.
fn header_statuses(header: &str) -> Vec<(String, i64)> {
    let start = header
        .find("enum LkStatus")
        .expect("LkStatus enum in header");
    let body = &header[start..];
    let body = &body[body.find('{').expect("enum body") + 1..body.find('}').expect("enum end")];
    body.lines()
        .map(str::trim)
        .filter(|l| l.starts_with("LK_"))
        .map(|l| {
            let (name, value) = l
                .trim_end_matches(',')
                .split_once('=')
                .expect("explicit value");
            (
                name.trim().to_owned(),
                value.trim().parse().expect("integer value"),
            )
        })
        .collect()
}

#[test]
fn header_status_enum_equals_error_codes_json_and_core() {
    let header = std::fs::read_to_string(header_path()).expect("read header");
    let statuses = header_statuses(&header);
    let codes_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/error-codes.json");
    let codes: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(codes_path).expect("read error-codes.json"))
            .expect("parse error-codes.json");
    let codes: Vec<&str> = codes["codes"]
        .as_array()
        .expect("codes array")
        .iter()
        .map(|c| c["code"].as_str().expect("code string"))
        .collect();
    let mut expected = vec![("LK_OK".to_owned(), 0)];
    expected.extend(
        codes
            .iter()
            .enumerate()
            .map(|(i, c)| (format!("LK_{c}"), i as i64 + 1)),
    );
    assert_eq!(statuses, expected);
    let core: Vec<&str> = leasekit::ErrorCode::ALL
        .iter()
        .map(|c| c.as_str())
        .collect();
    assert_eq!(
        codes, core,
        "error-codes.json and the core's ErrorCode::ALL differ"
    );
}

#[test]
fn retryable_flags_equal_error_codes_json() {
    let codes_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/error-codes.json");
    let codes: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(codes_path).expect("read")).expect("parse");
    for (i, c) in codes["codes"].as_array().expect("codes").iter().enumerate() {
        let status = i as i32 + 1;
        let name = unsafe { std::ffi::CStr::from_ptr(leasekit_ffi::lk_status_name(status)) };
        assert_eq!(name.to_str().unwrap(), c["code"].as_str().unwrap());
        assert_eq!(
            leasekit_ffi::lk_status_retryable(status),
            c["retryable"].as_bool().unwrap()
        );
    }
}
