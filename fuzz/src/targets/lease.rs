//! `lease_json`: parse + validate + serialize round trip; `authorize`: the guard against
//! canonicalization and per-pattern matching.

use crate::fields::{capability, split};
use leasekit::{
    ErrorCode, Lease, LeaseConstraints, LeaseGuard, ManualClock, Timestamp, canonicalize_target,
    initial_budget, match_pattern, validate_lease_shape,
};
use std::borrow::Cow;
use std::sync::Arc;

/// Input: lease JSON text. A lease that parses serializes to JSON that parses to the same
/// lease and serializes to the same text (parse(serialize(x)) == x); its JSON passes the shape
/// check; a lease that does not parse fails with `INVALID_REQUEST`.
pub fn lease_json(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let r = Lease::from_json(text);
    super::invalid(&r, "Lease::from_json");
    let Ok(lease) = r else { return };
    let json = lease.to_json();
    let again = Lease::from_json(&json)
        .unwrap_or_else(|e| panic!("serialized lease {json} does not parse: {}", e.message()));
    assert_eq!(again, lease, "parse(serialize(x)) != x for {json}");
    assert_eq!(again.to_json(), json, "serialization is not a fixed point");
    let value: serde_json::Value = serde_json::from_str(text).expect("the lease text is JSON");
    assert!(
        validate_lease_shape(&value).is_ok(),
        "shape check refuses a valid lease"
    );
}

/// Input: lease JSON, `0xFF`, capability selector byte, target. The guard's answer agrees with
/// `canonicalize_target` and `match_pattern` over the lease's patterns (SEMANTICS 8); a
/// borrowed answer is the target itself; `authorize_model` is `authorize("model.use", ..)`.
pub fn authorize(data: &[u8]) {
    let Some(f) = split(data, 2) else { return };
    let Ok(lease) = Lease::from_json(f[0]) else {
        return;
    };
    let Some((cap, rest)) = capability(f[1].as_bytes()) else {
        return;
    };
    let Ok(target) = std::str::from_utf8(rest) else {
        return;
    };
    let clock = Arc::new(ManualClock::new(Timestamp::from_unix_nanos(0)));
    let guard = LeaseGuard::new(lease.clone(), LeaseConstraints::none(), clock);
    let got = guard.authorize_cow(cap, target);
    let canonical = canonicalize_target(cap, target);
    let granted = lease.patterns(cap).map(|ps| {
        ps.iter()
            .any(|p| matches!(match_pattern(cap, p, target), Ok(true)))
    });
    let exhausted = initial_budget(&lease)
        .values()
        .any(|v| v.is_sign_negative() || v.is_zero());
    match &got {
        Ok(c) => {
            let want = canonical.as_ref().ok().map(String::as_str);
            assert_eq!(
                want,
                Some(c.as_ref()),
                "allowed target is not the canonical one"
            );
            if let Cow::Borrowed(b) = c {
                assert_eq!(*b, target, "borrowed answer is not the target");
            }
            assert_eq!(granted, Some(true), "allowed without a matching pattern");
            assert!(!exhausted, "allowed with an exhausted budget");
        }
        Err(e) => match e.code() {
            ErrorCode::BudgetExhausted => assert!(exhausted, "exhausted without a zero budget"),
            ErrorCode::InvalidRequest => assert!(canonical.is_err(), "refused a valid target"),
            ErrorCode::PermissionDenied => {
                assert!(
                    canonical.is_ok(),
                    "denied instead of refusing an invalid target"
                );
                assert_ne!(granted, Some(true), "denied though a pattern matches");
            }
            c => panic!("unexpected code {c:?}: {}", e.message()),
        },
    }
    if cap == "model.use" {
        let model = guard.authorize_model(target);
        assert_eq!(
            model.map_err(|e| e.code()),
            got.map(Cow::into_owned).map_err(|e| e.code()),
            "authorize_model disagrees with authorize(\"model.use\")"
        );
    }
}
