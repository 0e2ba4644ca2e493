//! The SQLite store records its file format (`PRAGMA user_version`): a new file is stamped
//! with the format this leasekit writes; a file written before the format was recorded (0,
//! the same tables) opens with its state and is stamped; a file of a newer format is refused
//! by every way in (store, governor, audit snapshot) with `details.reason = "store_format"`,
//! before anything is written to it.

use leasekit::governor::open::EmbeddedGovernor;
use leasekit::governor::store::{SQLITE_FORMAT, SqliteAuditSnapshot, SqliteStore};
use leasekit::{Error, ErrorCode};
use rusqlite::Connection;
use serde_json::Value;

const POLICY: &str = r#"{"policyVersion": "one", "maxInFlight": 4}"#;
const ACQUIRE: &str = r#"{"actorId": "a", "estimatedCostCents": 1}"#;

fn user_version(path: &std::path::Path) -> i64 {
    Connection::open(path)
        .unwrap()
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap()
}

fn grant(store: &str) -> Value {
    let g = EmbeddedGovernor::open(store, POLICY, "").unwrap();
    let v = g.governor().call_json("Acquire", ACQUIRE).unwrap();
    serde_json::from_str(&v).unwrap()
}

fn is_store_format(e: &Error) -> bool {
    e.code() == ErrorCode::InternalError
        && e.details().get("reason").and_then(|r| r.as_str()) == Some("store_format")
}

/// A new store file in a directory of its own, holding one grant: (directory, file, store
/// string, the grant).
fn store_with_a_grant() -> (tempfile::TempDir, std::path::PathBuf, String, Value) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gov.db");
    let store = format!("sqlite:{}", path.display());
    let first = grant(&store);
    assert_eq!(first["granted"], true);
    (dir, path, store, first)
}

#[test]
fn a_new_file_is_stamped_with_the_format() {
    let (_dir, path, ..) = store_with_a_grant();
    assert_eq!(user_version(&path), SQLITE_FORMAT);
    assert_eq!(SQLITE_FORMAT, 2);
}

#[test]
fn a_file_from_before_the_format_opens_and_is_stamped() {
    let (_dir, path, store, first) = store_with_a_grant();
    // As an earlier leasekit left it: the same tables, no recorded format.
    Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", 0)
        .unwrap();
    let g = EmbeddedGovernor::open(&store, POLICY, "").unwrap();
    assert_eq!(g.governor().status().unwrap().active_leases, 1);
    let r = g
        .governor()
        .call_json(
            "Release",
            &format!(
                r#"{{"leaseId": "{}", "actualCostCents": 1}}"#,
                first["leaseId"].as_str().unwrap()
            ),
        )
        .unwrap();
    assert!(r.contains("recorded"), "{r}");
    assert!(g.governor().verify_audit().unwrap().ok);
    assert_eq!(user_version(&path), SQLITE_FORMAT);
}

#[test]
fn a_newer_format_is_refused_everywhere_and_left_untouched() {
    let (_dir, path, store, _) = store_with_a_grant();
    let newer = SQLITE_FORMAT + 1;
    Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", newer)
        .unwrap();
    let before = std::fs::read(&path).unwrap();

    let e = SqliteStore::open(&path).unwrap_err();
    assert!(is_store_format(&e), "{e}");
    assert!(e.message().contains(&format!("format {newer}")), "{e}");
    assert!(
        e.message().contains(&path.display().to_string()),
        "names the file: {e}"
    );
    let e = EmbeddedGovernor::open(&store, POLICY, "").unwrap_err();
    assert!(is_store_format(&e), "{e}");
    let e = SqliteAuditSnapshot::open(&path).unwrap_err();
    assert!(is_store_format(&e), "{e}");

    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the file was written"
    );
    assert_eq!(user_version(&path), newer);
}

#[test]
fn a_negative_format_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gov.db");
    Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", -3)
        .unwrap();
    let e = SqliteStore::open(&path).unwrap_err();
    assert!(is_store_format(&e), "{e}");
}
