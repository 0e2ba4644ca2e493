//! A SQLite store serves one governor: a second governor opened on the same file (same process
//! or not) can never grant from pools it has a stale image of. Its commits are refused once
//! another governor has written the file, so `maxInFlight` holds across both.

use leasekit::governor::open::EmbeddedGovernor;
use serde_json::Value;

const POLICY: &str = r#"{"policyVersion": "one", "maxInFlight": 1}"#;
const ACQUIRE: &str = r#"{"actorId": "a", "estimatedCostCents": 1}"#;

fn acquire(g: &EmbeddedGovernor) -> leasekit::Result<Value> {
    g.governor()
        .call_json("Acquire", ACQUIRE)
        .map(|t| serde_json::from_str(&t).unwrap())
}

#[test]
fn two_governors_on_one_sqlite_file_never_both_grant() {
    let dir = std::env::temp_dir().join(format!("lk-sqlite-shared-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("gov.db");
    let store = format!("sqlite:{}", path.display());
    let a = EmbeddedGovernor::open(&store, POLICY, "").unwrap();
    let b = EmbeddedGovernor::open(&store, POLICY, "").unwrap();
    let first = acquire(&a).unwrap();
    assert_eq!(first["granted"], true, "{first}");
    // b loaded the file before a's grant: its grant would break maxInFlight 1.
    match acquire(&b) {
        Ok(v) => assert_eq!(v["granted"], false, "second grant: {v}"),
        Err(e) => assert!(e.message().contains("another governor"), "{e}"),
    }
    // The first governor keeps working; the file still holds exactly one lease.
    let second = acquire(&a).unwrap();
    assert_eq!(second["granted"], false, "maxInFlight 1: {second}");
    drop((a, b));
    // Reopened after both are gone, the store holds the one lease.
    let c = EmbeddedGovernor::open(&store, POLICY, "").unwrap();
    assert_eq!(c.governor().status().unwrap().active_leases, 1);
    assert!(c.governor().verify_audit().unwrap().ok);
    let _ = std::fs::remove_dir_all(&dir);
}
