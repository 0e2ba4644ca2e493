use std::collections::BTreeMap;

use serde_json::json;

use super::*;
use crate::budget::Decimal;
use crate::{ErrorCode, Lease, LeaseConstraints, LeaseGuard, ManualClock, Timestamp};

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

#[test]
fn signed_amounts_keep_the_amount_precision() {
    for (text, want) in [
        ("0", "0"),
        ("-1.5", "-1.5"),
        ("2.50", "2.5"),
        ("-0.000000001", "-0.000000001"),
        ("1999999999999998", "1999999999999998"),
        (
            "999999999999999999.999999999",
            "999999999999999999.999999999",
        ),
        ("000000000000000000000000000001", "1"),
    ] {
        let got = parse_signed_amount(text).unwrap();
        assert_eq!(crate::format_amount(&got), want, "{text}");
    }
    for bad in [
        "",
        "-",
        "+1",
        "1e3",
        ".5",
        "5.",
        "--1",
        " 1",
        "1,5",
        "NaN",
        "inf",
        "١",
        "1.0000000000",                  // ten fraction digits
        "-0.0000000001",                 // ten fraction digits
        "1000000000000000000.000000000", // 28 significant digits
        "9999999999999999999999999999",  // 28 integer digits
    ] {
        let e = parse_signed_amount(bad).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidRequest, "{bad:?}");
    }
}

#[test]
fn remaining_after_an_overspend_round_trips_as_parent_remaining() {
    let lease = Lease::from_json(r#"{"cost.budget": ["USD:1", "USD:999999999999999.5"]}"#).unwrap();
    let clock = std::sync::Arc::new(ManualClock::new(Timestamp::from_unix_millis(0)));
    let guard = LeaseGuard::new(lease.clone(), LeaseConstraints::none(), clock);
    guard
        .record_metric("cost.usd", "999999999999999.999999999", "USD")
        .unwrap();
    guard.record_metric("cost.usd", "5", "USD").unwrap();
    let remaining = guard.remaining();
    assert!(remaining["USD"] < Decimal::ZERO);
    let text = amounts_json(&remaining);
    let back = Amounts::from_json(&text, "parent_remaining").unwrap();
    assert_eq!(back.0, remaining);
    let opts = SubsetOptions::from_json(&format!(r#"{{"parent_remaining": {text}}}"#)).unwrap();
    let child = Lease::from_json(r#"{"cost.budget": ["USD:0"]}"#).unwrap();
    let e = crate::check_lease_subset(&child, &lease, &opts.as_core()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::LeaseSubsetViolation);
}

#[test]
fn amount_maps_refuse_numbers_duplicates_and_non_objects() {
    for bad in [
        r#"{"USD": 1.5}"#,
        r#"{"USD": null}"#,
        r#"{"USD": "1", "USD": "2"}"#,
        r#"["USD"]"#,
        r#""USD:1""#,
        r#"{"USD": "1.0000000000"}"#,
    ] {
        let e = Amounts::from_json(bad, "parent_remaining").unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidRequest, "{bad}");
    }
    let ok = Amounts::from_json(r#"{"USD": "-2.50", "EUR": "0"}"#, "r").unwrap();
    assert_eq!(
        ok.0,
        BTreeMap::from([("EUR".into(), d("0")), ("USD".into(), d("-2.5"))])
    );
    assert_eq!(
        serde_json::to_value(&ok).unwrap(),
        json!({"EUR": "0", "USD": "-2.5"})
    );
}

#[test]
fn subset_options_keys_nulls_and_unknowns() {
    let none = SubsetOptions::from_json("null").unwrap();
    assert_eq!(none, SubsetOptions::default());
    let all_null = SubsetOptions::from_json(
        r#"{"parent_remaining": null, "child_constraints": null, "parent_constraints": null}"#,
    )
    .unwrap();
    assert_eq!(all_null, SubsetOptions::default());
    let opts = SubsetOptions::from_json(
        r#"{"parent_remaining": {"USD": "-1"}, "child_constraints": {"expires_at": "2030-01-01T00:00:00Z"}}"#,
    )
    .unwrap();
    assert_eq!(opts.parent_remaining.unwrap().0["USD"], d("-1"));
    assert!(opts.child_constraints.unwrap().expires_at.is_some());
    assert_eq!(opts.parent_constraints, None);
    for bad in [
        r#"{"parent_remainder": {}}"#,
        r#"{"parentRemaining": {}}"#,
        r#"{"child_constraints": {"expires": "x"}}"#,
        r#"{"child_constraints": {"expires_at": "tomorrow"}}"#,
        r#"{"child_constraints": []}"#,
        r#"[]"#,
        r#"not json"#,
    ] {
        let e = SubsetOptions::from_json(bad).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidRequest, "{bad}");
    }
}

#[test]
fn camel_style_reads_the_same_shape_and_answers_in_camel_case() {
    let v = json!({"parentRemaining": {"USD": "1"}, "childConstraints": null});
    let opts = SubsetOptions::from_value(v, KeyStyle::Camel).unwrap();
    assert_eq!(opts.parent_remaining.unwrap().0["USD"], d("1"));
    let e =
        SubsetOptions::from_value(json!({"parent_remaining": {}}), KeyStyle::Camel).unwrap_err();
    assert!(
        e.message().contains("`parent_remaining`"),
        "{}",
        e.message()
    );
    let e = SubsetOptions::from_value(json!({"bogusKey": 1}), KeyStyle::Camel).unwrap_err();
    assert!(e.message().contains("`bogusKey`"), "{}", e.message());
    assert!(e.message().contains("`parentRemaining`"), "{}", e.message());
    let g = GuardOptions::from_value(
        json!({"graceMillis": 5, "allowAnyModel": true}),
        KeyStyle::Camel,
    )
    .unwrap()
    .to_core();
    assert_eq!((g.grace_millis, g.allow_any_model), (5, true));
}

#[test]
fn guard_options_defaults_and_refusals() {
    assert_eq!(
        GuardOptions::from_json("{}").unwrap().to_core(),
        crate::GuardOptions::default()
    );
    assert_eq!(
        GuardOptions::from_json("null").unwrap().to_core(),
        crate::GuardOptions::default()
    );
    let g = GuardOptions::from_json(r#"{"grace_millis": null, "allow_any_model": true}"#).unwrap();
    assert_eq!(g.to_core().grace_millis, 0);
    for bad in [
        r#"{"grace_millis": -1}"#,
        r#"{"grace_millis": 1.5}"#,
        r#"{"grace_millis": "5"}"#,
        r#"{"allow_any_model": 1}"#,
        r#"{"clock": 1}"#,
    ] {
        let e = GuardOptions::from_json(bad).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidRequest, "{bad}");
    }
}

#[test]
fn answers_have_their_documented_shapes() {
    let entry = crate::parse_budget_amount("USD:2.50").unwrap();
    assert_eq!(
        BudgetEntryAnswer::from(&entry).to_value(),
        json!({"currency": "USD", "amount": "2.5"})
    );
    let requested =
        Lease::from_json(r#"{"fs.read": ["/a/**", "/b"], "tool.call": ["x"]}"#).unwrap();
    let ceiling = Lease::from_json(r#"{"fs.read": ["/a/**"]}"#).unwrap();
    let narrowed = crate::narrow_lease(&requested, &ceiling).unwrap();
    let v = NarrowedAnswer::from(&narrowed).to_value().unwrap();
    assert_eq!(v["lease"], json!({"fs.read": ["/a/**"]}));
    assert_eq!(
        v["reductions"],
        reductions_value(&narrowed.reductions).unwrap()
    );
    assert_eq!(v["reductions"][0]["action"], "pattern_dropped");
    let report = crate::agentfile::check_agentfile("AGENT x\n", false);
    let v = agentfile_report_value(&report).unwrap();
    assert!(v["ok"].is_boolean() && v["diagnostics"].is_array(), "{v}");
    let c = LeaseConstraints::from_json(r#"{"expires_at": "2030-01-01T00:00:00.500Z"}"#).unwrap();
    assert_eq!(
        constraints_value(&c),
        json!({"expires_at": "2030-01-01T00:00:00.5Z"})
    );
}

#[test]
fn error_envelope_round_trips() {
    let e = crate::Error::new(ErrorCode::LeaseSubsetViolation, "no").with_detail("witness", "/x");
    let env = ErrorEnvelope::from(&e);
    assert_eq!(e.to_json(), env.to_value());
    let back: ErrorEnvelope = serde_json::from_value(e.to_json()).unwrap();
    assert_eq!(back.to_error(), Some(e));
    assert!(
        serde_json::from_value::<ErrorEnvelope>(
            json!({"code": "X", "message": "", "retryable": false, "details": {}, "extra": 1})
        )
        .is_err()
    );
}

#[test]
fn agentfile_options() {
    assert!(
        !AgentfileOptions::from_value(json!(null), KeyStyle::Camel)
            .unwrap()
            .compat()
    );
    assert!(
        AgentfileOptions::from_value(json!({"compat": true}), KeyStyle::Camel)
            .unwrap()
            .compat()
    );
    for bad in [json!({"compat": 1}), json!({"strict": true}), json!([true])] {
        let e = AgentfileOptions::from_value(bad.clone(), KeyStyle::Camel).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidRequest, "{bad}");
    }
}

#[test]
fn error_payload_has_details_only_when_there_are_any() {
    let bare = crate::Error::new(ErrorCode::PermissionDenied, "no");
    assert_eq!(
        bare.to_payload(),
        json!({"code": "PERMISSION_DENIED", "message": "no", "retryable": false})
    );
    let e = bare.with_detail("capability", "fs.read");
    assert_eq!(
        e.to_payload(),
        json!({"code": "PERMISSION_DENIED", "message": "no", "retryable": false,
               "details": {"capability": "fs.read"}})
    );
    assert_eq!(
        crate::Error::new(ErrorCode::InternalError, "x").to_payload()["retryable"],
        json!(true)
    );
}
