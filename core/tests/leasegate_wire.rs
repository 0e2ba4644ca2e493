//! Holds the governor's wire types to LeaseGate's (SEMANTICS 13.1): every field of every
//! LeaseGate request and response type is present with the same JSON name, JSON type and
//! default, and every enum has exactly LeaseGate's values. The table is read from
//! `conformance/leasegate-wire.md` (LeaseGate's `LeaseDtos.cs` and `Enums.cs`), so the table
//! and this test cannot drift apart. leasekit's additions are allowed only where they are
//! listed below, each with the SEMANTICS clause (or `docs/decisions.md` entry) behind it.

use std::collections::{BTreeMap, BTreeSet};

use leasekit::governor::wire::*;
use serde::Serialize;
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde_json::{Map, Value, json};

const TABLE: &str = include_str!("../../conformance/leasegate-wire.md");

/// A LeaseGate time that was never set (`DateTimeOffset.MinValue`), as leasekit writes times.
const MIN_TIME: &str = "0001-01-01T00:00:00.000Z";

// ----------------------------------------------------------------------------- the table

/// One field of a LeaseGate type.
#[derive(Debug, Clone)]
struct Field {
    name: String,
    ty: String,
    default: Option<String>,
}

/// The parsed table: enums (name -> values) and types (name -> fields).
struct Table {
    enums: BTreeMap<String, Vec<String>>,
    types: BTreeMap<String, Vec<Field>>,
}

fn table() -> Table {
    let mut enums = BTreeMap::new();
    let mut types = BTreeMap::new();
    let mut section = "";
    for line in TABLE.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            section = h.trim();
            continue;
        }
        let Some(rest) = line.strip_prefix("- **") else {
            continue;
        };
        let (name, body) = rest.split_once("**:").expect("`- **Name**: ...`");
        let body = body.trim();
        match section {
            "Enums" => {
                let values: Vec<String> = body
                    .split(',')
                    .map(|v| v.trim().trim_matches('`').to_string())
                    .collect();
                assert!(values.iter().all(|v| !v.is_empty()), "enum {name}: {body}");
                enums.insert(name.to_string(), values);
            }
            "Request and response types" => {
                types.insert(name.to_string(), fields(name, body));
            }
            other => panic!("unexpected section {other:?} in the table"),
        }
    }
    assert!(
        enums.len() >= 10 && types.len() >= 40,
        "the table did not parse"
    );
    Table { enums, types }
}

/// Parses `name (Type = default), name (Type), ...`.
fn fields(ty_name: &str, body: &str) -> Vec<Field> {
    let mut out = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        let open = rest
            .find(" (")
            .unwrap_or_else(|| panic!("{ty_name}: {rest}"));
        let name = rest[..open].trim().to_string();
        let mut depth = 0;
        let mut end = None;
        for (i, c) in rest[open + 1..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(open + 1 + i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let end = end.unwrap_or_else(|| panic!("{ty_name}: unbalanced {rest}"));
        let inner = &rest[open + 2..end];
        let (ty, default) = match inner.split_once(" = ") {
            Some((t, d)) => (t.trim().to_string(), Some(d.trim().to_string())),
            None => (inner.trim().to_string(), None),
        };
        out.push(Field { name, ty, default });
        rest = rest[end + 1..].trim_start_matches(',').trim_start();
    }
    out
}

/// The JSON shape of a LeaseGate type.
#[derive(Debug, Clone)]
enum Kind {
    String,
    Integer,
    Number,
    Bool,
    Time,
    Enum(String),
    Object,
    List(Box<Kind>),
    Dict(Box<Kind>),
}

/// A field's kind and whether it is nullable (`T?`).
fn kind(t: &Table, ty: &str) -> (Kind, bool) {
    if let Some(inner) = ty.strip_suffix('?') {
        return (kind(t, inner).0, true);
    }
    let k = if let Some(e) = ty.strip_prefix("List<").and_then(|s| s.strip_suffix('>')) {
        Kind::List(Box::new(kind(t, e).0))
    } else if let Some(e) = ty
        .strip_prefix("Dictionary<string, ")
        .and_then(|s| s.strip_suffix('>'))
    {
        Kind::Dict(Box::new(kind(t, e).0))
    } else {
        match ty {
            "string" => Kind::String,
            "int" | "long" => Kind::Integer,
            "double" => Kind::Number,
            "bool" => Kind::Bool,
            "DateTimeOffset" => Kind::Time,
            e if t.enums.contains_key(e) => Kind::Enum(e.to_string()),
            o if t.types.contains_key(o) => Kind::Object,
            other => panic!("unknown LeaseGate type {other}"),
        }
    };
    (k, false)
}

/// camelCase of a C# enum member (`LongContext` -> `longContext`).
fn camel(member: &str) -> String {
    let mut c = member.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The JSON value a field takes when the sender omits it (LeaseGate's initializer, else the
/// C# default of its type: 0, false, the first enum member, `DateTimeOffset.MinValue`).
fn default_of(t: &Table, f: &Field) -> Value {
    let (k, _) = kind(t, &f.ty);
    match (&f.default, &k) {
        (Some(d), _) if d == "string.Empty" => json!(""),
        (Some(d), Kind::List(_)) if d == "new()" => json!([]),
        (Some(d), Kind::Dict(_) | Kind::Object) if d == "new()" => json!({}),
        (Some(d), Kind::Enum(e)) => {
            let (owner, member) = d.split_once('.').expect("Enum.Member");
            assert_eq!(owner, e, "{}: default {d}", f.name);
            json!(camel(member))
        }
        (Some(d), Kind::Integer) => json!(d.replace('_', "").parse::<i64>().expect("integer")),
        (Some(d), Kind::Bool) => json!(d.parse::<bool>().expect("bool")),
        (Some(d), Kind::String) => json!(d.trim_matches('"')),
        (Some(d), _) => panic!("{}: unexpected default {d}", f.name),
        (None, Kind::String) => json!(""),
        (None, Kind::Integer) => json!(0),
        (None, Kind::Number) => json!(0.0),
        (None, Kind::Bool) => json!(false),
        (None, Kind::Time) => json!(MIN_TIME),
        (None, Kind::Enum(e)) => json!(t.enums[e][0]),
        (None, Kind::Object) => json!({}),
        (None, Kind::List(_)) => json!([]),
        (None, Kind::Dict(_)) => json!({}),
    }
}

/// A value of the field's type that is not its default.
fn sample(t: &Table, k: &Kind, default: &Value) -> Value {
    match k {
        Kind::String => json!("x"),
        Kind::Integer => json!(42),
        Kind::Number => json!(0.5),
        Kind::Bool => json!(!default.as_bool().unwrap_or(false)),
        Kind::Time => json!("2026-03-01T12:00:00.000Z"),
        Kind::Enum(e) => {
            let values = &t.enums[e];
            let last = values.last().expect("values");
            if Some(last.as_str()) == default.as_str() {
                json!(values[0])
            } else {
                json!(last)
            }
        }
        Kind::Object => json!({}),
        Kind::List(inner) => json!([sample(t, inner, &Value::Null)]),
        Kind::Dict(inner) => json!({ "k": sample(t, inner, &Value::Null) }),
    }
}

/// Whether `v` has the JSON shape of `k` (as `sample` made it).
fn shaped(k: &Kind, v: &Value, sent: &Value) -> bool {
    match k {
        Kind::String | Kind::Time | Kind::Enum(_) => v == sent,
        Kind::Integer => v.as_i64().is_some() && v.as_i64() == sent.as_i64(),
        Kind::Number => v.as_f64() == sent.as_f64(),
        Kind::Bool => v == sent,
        Kind::Object => v.is_object(),
        Kind::List(inner) => match (v.as_array(), sent.as_array()) {
            (Some(a), Some(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| shaped(inner, x, y))
            }
            _ => false,
        },
        Kind::Dict(inner) => match (v.as_object(), sent.as_object()) {
            (Some(a), Some(b)) => {
                a.len() == b.len()
                    && b.iter()
                        .all(|(key, y)| a.get(key).is_some_and(|x| shaped(inner, x, y)))
            }
            _ => false,
        },
    }
}

// ----------------------------------------------------------------------------- leasekit's side

/// Captures the field names a struct's `Deserialize` accepts, or an enum's variant names.
struct Names<'a>(&'a mut Vec<&'static str>);

impl<'de> Deserializer<'de> for Names<'_> {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("not a struct or an enum"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        self.0.extend_from_slice(fields);
        Err(de::Error::custom("names captured"))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        self.0.extend_from_slice(variants);
        Err(de::Error::custom("names captured"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map identifier ignored_any
    }
}

fn names<T: DeserializeOwned>() -> BTreeSet<String> {
    let mut out = Vec::new();
    let _ = <T as serde::Deserialize>::deserialize(Names(&mut out));
    out.into_iter().map(str::to_string).collect()
}

/// Reads `v` as `T` and writes it back.
fn round<T: DeserializeOwned + Serialize>(v: Value) -> Result<Value, String> {
    let t: T = serde_json::from_value(v).map_err(|e| e.to_string())?;
    serde_json::to_value(&t).map_err(|e| e.to_string())
}

/// A leasekit wire type: its accepted field names and its read-then-write function.
struct Probe {
    rust: &'static str,
    names: BTreeSet<String>,
    round: fn(Value) -> Result<Value, String>,
}

macro_rules! probes {
    ($($lg:literal => $t:ty),+ $(,)?) => {
        vec![$(($lg, Probe { rust: stringify!($t), names: names::<$t>(), round: round::<$t> })),+]
    };
}

/// LeaseGate type -> leasekit type.
fn probes() -> BTreeMap<&'static str, Probe> {
    let all = probes! {
        "AcquireLeaseRequest" => AcquireRequest,
        "AcquireLeaseResponse" => AcquireResponse,
        "FallbackPlanStep" => FallbackPlanStep,
        "LeaseConstraints" => LeaseConstraintsWire,
        "ToolIntent" => ToolIntent,
        "ContextContribution" => ContextContribution,
        "ReleaseLeaseRequest" => ReleaseRequest,
        "ToolCallUsage" => ToolCallUsage,
        "ToolSubLeaseRequest" => ToolSubLeaseRequest,
        "ToolSubLeaseResponse" => ToolSubLeaseResponse,
        "ToolExecutionRequest" => ToolExecutionRequest,
        "ToolExecutionResponse" => ToolExecutionResponse,
        "ReleaseLeaseResponse" => ReleaseResponse,
        "LeaseReceipt" => LeaseReceipt,
        "ContextSummaryTrace" => ContextSummaryTrace,
        "ApprovalDecisionTrace" => ApprovalDecisionTrace,
        "ApprovalRequest" => ApprovalRequest,
        "ApprovalRequestResponse" => ApprovalRequestResponse,
        "GrantApprovalRequest" => GrantApprovalRequest,
        "GrantApprovalResponse" => GrantApprovalResponse,
        "DenyApprovalRequest" => DenyApprovalRequest,
        "DenyApprovalResponse" => DenyApprovalResponse,
        "ApprovalQueueRequest" => ApprovalQueueRequest,
        "ApprovalQueueItem" => ApprovalQueueItem,
        "ApprovalQueueResponse" => ApprovalQueueResponse,
        "ReviewApprovalRequest" => ReviewApprovalRequest,
        "ReviewApprovalResponse" => ReviewApprovalResponse,
        "MetricsSnapshot" => MetricsSnapshot,
        "ExportRunawayReportRequest" => ExportRunawayReportRequest,
        "ExportRunawayReportResponse" => ExportRunawayReportResponse,
        "GovernorStatusResponse" => StatusResponse,
        "ExportDiagnosticsRequest" => ExportDiagnosticsRequest,
        "ExportDiagnosticsResponse" => ExportDiagnosticsResponse,
        "PolicyBundle" => PolicyBundle,
        "StagePolicyBundleResponse" => StagePolicyBundleResponse,
        "ActivatePolicyRequest" => ActivatePolicyRequest,
        "ActivatePolicyResponse" => ActivatePolicyResponse,
    };
    all.into_iter().collect()
}

/// LeaseGate enum -> leasekit's accepted values.
fn enum_probes() -> BTreeMap<&'static str, BTreeSet<String>> {
    [
        ("ActionType", names::<ActionType>()),
        ("LeaseOutcome", names::<LeaseOutcome>()),
        ("ReleaseClassification", names::<ReleaseClassification>()),
        ("ToolCategory", names::<ToolCategory>()),
        (
            "ProviderErrorClassification",
            names::<ProviderErrorClassification>(),
        ),
        ("ApprovalDecisionStatus", names::<ApprovalDecisionStatus>()),
        ("PrincipalType", names::<PrincipalType>()),
        ("Role", names::<Role>()),
        ("LeaseLocality", names::<LeaseLocality>()),
        ("IntentClass", names::<IntentClass>()),
    ]
    .into_iter()
    .collect()
}

// ----------------------------------------------------------------------------- allowed differences

/// LeaseGate types that no command of the wire carries: the hub's daily report and summary
/// export are library calls, not pipe commands (`reference/leasegate.md` 2.1; SEMANTICS 13.1
/// keeps the 15 commands).
const NOT_ON_THE_WIRE: &[&str] = &[
    "DailyReportResponse",
    "CostAttributionRow",
    "AlertSignal",
    "ExportSummaryRequest",
    "ExportSummaryResponse",
];

/// Inbound types (a client writes them, leasekit reads them); every other type is an answer,
/// whose non-nullable fields are always written (`reference/leasegate.md` 2.1).
fn inbound(lg: &str) -> bool {
    lg.ends_with("Request")
        || matches!(
            lg,
            "ToolIntent" | "ContextContribution" | "ToolCallUsage" | "PolicyBundle"
        )
}

/// Fields leasekit adds to a LeaseGate type, with the clause that adds them.
const ADDITIONS: &[(&str, &str, &str)] = &[
    (
        "AcquireLeaseRequest",
        "requestedLease",
        "SEMANTICS 13.3 (ARCP lease)",
    ),
    (
        "AcquireLeaseResponse",
        "effectiveLease",
        "SEMANTICS 13.3 (ARCP lease)",
    ),
    (
        "AcquireLeaseResponse",
        "leaseReductions",
        "SEMANTICS 13.3 (ARCP lease)",
    ),
    (
        "AcquireLeaseResponse",
        "contextSummaries",
        "SEMANTICS 13.3 steps 15-16 (governed summarization: the sources to summarize, \
         as the receipt carries them); docs/decisions.md LeaseGate wire fidelity",
    ),
    (
        "ToolSubLeaseRequest",
        "approvalToken",
        "SEMANTICS 13.8 and 13.15 Tool calls (a sub-lease whose category needs approval \
         carries approvalToken)",
    ),
    (
        "ToolExecutionResponse",
        "timeoutMs",
        "SEMANTICS 13.8 (ExecuteToolCall authorizes; the runner runs the call within the \
         effective limits)",
    ),
    (
        "ToolExecutionResponse",
        "maxOutputBytes",
        "SEMANTICS 13.8 (as timeoutMs)",
    ),
    (
        "ToolExecutionResponse",
        "remainingCalls",
        "SEMANTICS 13.8 and 13.15 Tool calls (an allowed call uses up a sub-lease call)",
    ),
    (
        "ToolExecutionResponse",
        "canonicalPath",
        "SEMANTICS 13.8 (the target is canonicalized by section 5.1)",
    ),
    (
        "GrantApprovalRequest",
        "comment",
        "SEMANTICS 13.6 (GrantApproval is one review; its trace has a comment) and 13.16 \
         Sizes on the wire (comment)",
    ),
    (
        "DenyApprovalRequest",
        "comment",
        "SEMANTICS 13.6 (as GrantApprovalRequest.comment)",
    ),
    (
        "ReviewApprovalResponse",
        "approvalId",
        "SEMANTICS 13.6 (reviewing an unknown id is an error naming it); docs/decisions.md \
         LeaseGate wire fidelity",
    ),
    (
        "ApprovalQueueItem",
        "requestedBy",
        "SEMANTICS 13.6 and 13.16 Reviewers (the requester may not review: reviewers see who \
         asked)",
    ),
    (
        "GovernorStatusResponse",
        "auditLevel",
        "SEMANTICS 13.9 (AUDIT -> auditLevel, recorded in status)",
    ),
    (
        "GovernorStatusResponse",
        "auditRecords",
        "SEMANTICS 13.10 (the chain VerifyAudit checks)",
    ),
    (
        "GovernorStatusResponse",
        "connectedGovernors",
        "SEMANTICS 13.12 (a fleet on one store)",
    ),
    (
        "ExportDiagnosticsResponse",
        "diagnostics",
        "SEMANTICS 13.14 (exports answer inline; the governor writes no file at a path a \
         peer names); docs/decisions.md LeaseGate wire fidelity",
    ),
    (
        "ExportRunawayReportResponse",
        "report",
        "SEMANTICS 13.14 (as ExportDiagnosticsResponse.diagnostics)",
    ),
    // SEMANTICS 13.16 Approval limits: every approval answer and queue item shows
    // singleUse, expiresAtUtc and requiredReviewers; ListPendingApprovals pages.
    (
        "ApprovalRequestResponse",
        "singleUse",
        "SEMANTICS 13.16 Approval limits",
    ),
    (
        "GrantApprovalResponse",
        "singleUse",
        "SEMANTICS 13.16 Approval limits",
    ),
    (
        "ReviewApprovalResponse",
        "singleUse",
        "SEMANTICS 13.16 Approval limits",
    ),
    (
        "ReviewApprovalResponse",
        "expiresAtUtc",
        "SEMANTICS 13.16 Approval limits",
    ),
    (
        "DenyApprovalResponse",
        "singleUse",
        "SEMANTICS 13.16 Approval limits",
    ),
    (
        "DenyApprovalResponse",
        "expiresAtUtc",
        "SEMANTICS 13.16 Approval limits",
    ),
    (
        "DenyApprovalResponse",
        "requiredReviewers",
        "SEMANTICS 13.16 Approval limits",
    ),
    (
        "ApprovalQueueItem",
        "singleUse",
        "SEMANTICS 13.16 Approval limits",
    ),
    (
        "ApprovalQueueRequest",
        "limit",
        "SEMANTICS 13.16 Approval limits (paging)",
    ),
    (
        "ApprovalQueueRequest",
        "afterApprovalId",
        "SEMANTICS 13.16 Approval limits (paging)",
    ),
    (
        "ApprovalQueueResponse",
        "nextAfterApprovalId",
        "SEMANTICS 13.16 Approval limits (paging)",
    ),
    // SEMANTICS 13.16 Tool-call targets: the allowed answer carries the canonical host.
    (
        "ToolExecutionResponse",
        "canonicalHost",
        "SEMANTICS 13.16 Tool-call targets",
    ),
];

/// Names a leasekit type also reads (never writes): the names stores wrote before the
/// LeaseGate ones, so a store written earlier still opens.
const READ_ALIASES: &[(&str, &str, &str)] = &[
    ("ContextSummaryTrace", "targetTokens", "summarizedTokens"),
    ("ContextSummaryTrace", "rule", "policyRule"),
];

/// Defaults SEMANTICS sets differently from LeaseGate's C# default.
const DEFAULT_OVERRIDES: &[(&str, &str, &str)] = &[
    // SEMANTICS 13.15: "an absent tool category `other`" (C#'s default member is fileRead).
    ("ToolIntent", "category", "other"),
    ("ToolCallUsage", "category", "other"),
    ("ToolSubLeaseRequest", "category", "other"),
    ("ToolExecutionRequest", "category", "other"),
];

/// Fields of an answer that leasekit may leave out, with the clause.
const MAY_OMIT: &[(&str, &str, &str)] = &[(
    "ReviewApprovalResponse",
    "status",
    "SEMANTICS 13.15: an unknown approval id answers no status",
)];

/// Inbound fields whose absent value is not LeaseGate's, with the clause.
const ABSENT_DIFFERS: &[(&str, &str, &str)] = &[(
    "PolicyBundle",
    "createdAtUtc",
    "SEMANTICS 13.15 Signatures: the signed text holds createdAtUtc exactly as sent, so an \
     absent one is the empty text, not a formatted MinValue",
)];

fn listed(list: &[(&str, &str, &str)], ty: &str, field: &str) -> bool {
    list.iter().any(|(t, f, _)| *t == ty && *f == field)
}

// ----------------------------------------------------------------------------- the checks

/// Every LeaseGate type is mapped to a leasekit type or listed as not on the wire.
#[test]
fn every_leasegate_type_has_a_leasekit_type() {
    let t = table();
    let p = probes();
    let missing: Vec<&String> = t
        .types
        .keys()
        .filter(|n| !p.contains_key(n.as_str()) && !NOT_ON_THE_WIRE.contains(&n.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "LeaseGate types without a leasekit type: {missing:?}"
    );
    for n in p.keys().copied().chain(NOT_ON_THE_WIRE.iter().copied()) {
        assert!(t.types.contains_key(n), "{n} is not in the table");
    }
}

/// Every enum has exactly LeaseGate's values (leasekit adds none).
#[test]
fn every_enum_has_exactly_leasegates_values() {
    let t = table();
    let p = enum_probes();
    let mut problems = Vec::new();
    for (name, values) in &t.enums {
        let Some(ours) = p.get(name.as_str()) else {
            problems.push(format!("enum {name}: no leasekit enum"));
            continue;
        };
        let theirs: BTreeSet<String> = values.iter().cloned().collect();
        for v in theirs.difference(ours) {
            problems.push(format!("enum {name}: LeaseGate's value `{v}` is refused"));
        }
        for v in ours.difference(&theirs) {
            problems.push(format!("enum {name}: `{v}` is not a LeaseGate value"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every field of every LeaseGate type: present under its JSON name, read and written with
/// its JSON type, its LeaseGate default when absent, and written in every answer.
#[test]
fn every_field_has_leasegates_name_type_and_default() {
    let t = table();
    let p = probes();
    let mut problems = Vec::new();
    for (lg, fields) in &t.types {
        let Some(probe) = p.get(lg.as_str()) else {
            continue;
        };
        let at = |f: &str| format!("{lg}.{f} ({}):", probe.rust);
        let empty = (probe.round)(json!({}))
            .unwrap_or_else(|e| panic!("{lg} ({}): `{{}}` is refused: {e}", probe.rust));
        for f in fields {
            let name = &f.name;
            if !probe.names.contains(name) {
                problems.push(format!("{} missing (no field `{name}`)", at(name)));
                continue;
            }
            let (k, nullable) = kind(&t, &f.ty);
            let default = match DEFAULT_OVERRIDES
                .iter()
                .find(|(ty, field, _)| *ty == lg.as_str() && *field == name.as_str())
            {
                Some((_, _, v)) => json!(v),
                None => default_of(&t, f),
            };
            // The name and the JSON type, both ways: a non-default value is read and
            // written back under the same name with the same shape.
            let sent = sample(&t, &k, &default);
            match (probe.round)(Value::Object(Map::from_iter([(
                name.clone(),
                sent.clone(),
            )]))) {
                Ok(back) => match back.get(name) {
                    Some(v) if shaped(&k, v, &sent) => {}
                    Some(v) => problems.push(format!(
                        "{} wrong JSON type: sent {sent}, written back {v}",
                        at(name)
                    )),
                    None => problems.push(format!(
                        "{} not written back under its name (sent {sent})",
                        at(name)
                    )),
                },
                Err(e) => problems.push(format!("{} {} ({f:?}) refused: {e}", at(name), sent)),
            }
            // The default: an absent field reads as LeaseGate's default.
            if nullable {
                if empty.get(name).is_some_and(|v| !v.is_null()) {
                    problems.push(format!(
                        "{} nullable, but absent reads as {}",
                        at(name),
                        empty[name]
                    ));
                }
            } else if !listed(ABSENT_DIFFERS, lg, name) && !listed(MAY_OMIT, lg, name) {
                let with = (probe.round)(Value::Object(Map::from_iter([(
                    name.clone(),
                    default.clone(),
                )])));
                match with {
                    Ok(with) if with == empty => {}
                    Ok(with) => problems.push(format!(
                        "{} absent does not read as LeaseGate's default {default}: absent \
                         writes {}, the default writes {}",
                        at(name),
                        empty.get(name).unwrap_or(&Value::Null),
                        with.get(name).unwrap_or(&Value::Null)
                    )),
                    Err(e) => problems.push(format!(
                        "{} LeaseGate's default {default} is refused: {e}",
                        at(name)
                    )),
                }
            }
            // Answers write every non-nullable field (empty strings, zeros and empty lists
            // included), and a nullable one never as null.
            if !inbound(lg) {
                match empty.get(name) {
                    None if nullable || listed(MAY_OMIT, lg, name) => {}
                    None => problems.push(format!("{} not written when empty", at(name))),
                    Some(Value::Null) => problems.push(format!("{} written as null", at(name))),
                    Some(_) => {}
                }
            }
        }
        // leasekit's additions: only the listed ones.
        let theirs: BTreeSet<&str> = fields.iter().map(|f| f.name.as_str()).collect();
        for ours in &probe.names {
            if !theirs.contains(ours.as_str())
                && !listed(ADDITIONS, lg, ours)
                && !listed(READ_ALIASES, lg, ours)
            {
                problems.push(format!(
                    "{lg} ({}): `{ours}` is not a LeaseGate field and no SEMANTICS clause \
                     adds it",
                    probe.rust
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The allowed differences name real fields: an entry that no longer applies is removed,
/// so the lists cannot hide a field.
#[test]
fn the_allowed_differences_are_current() {
    let t = table();
    let p = probes();
    let lg_has = |ty: &str, f: &str| t.types[ty].iter().any(|x| x.name == f);
    for (ty, f, _) in DEFAULT_OVERRIDES
        .iter()
        .chain(MAY_OMIT)
        .chain(ABSENT_DIFFERS)
    {
        assert!(lg_has(ty, f), "{ty}.{f} is not a LeaseGate field");
    }
    for (ty, f, _) in ADDITIONS {
        assert!(
            !lg_has(ty, f),
            "{ty}.{f} is a LeaseGate field, not an addition"
        );
    }
    for (ty, alias, field) in READ_ALIASES {
        assert!(lg_has(ty, field), "{ty}.{field} is not a LeaseGate field");
        assert!(
            p[ty].names.contains(*alias),
            "{ty} no longer reads `{alias}`"
        );
    }
}

/// Stored reviews written before the LeaseGate name (`approved`) read as `granted`; the
/// wire writes `granted` or `denied`.
#[test]
fn review_decisions_are_approval_decision_statuses() {
    let old: ApprovalDecisionTrace =
        serde_json::from_value(json!({"reviewerId": "r", "decision": "approved"})).unwrap();
    assert_eq!(serde_json::to_value(&old).unwrap()["decision"], "granted");
    assert!(serde_json::from_value::<ApprovalDecisionTrace>(json!({"decision": "maybe"})).is_err());
}
