//! Leases (SEMANTICS 1-2): capability name -> patterns, validated and compiled once.

use crate::budget::{Decimal, sum_budget_entries};
use crate::capability::{CapabilityKind, RESERVED_CAPABILITIES};
use crate::error::{Error, Result};
use crate::pattern::{Pattern, set::PatternSet};
use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// At most this many entries per capability.
pub const MAX_PATTERNS_PER_CAPABILITY: usize = 1024;

/// At most this many bytes (UTF-8) for all the strings of one capability together, as given
/// and as stored (SEMANTICS 2).
pub const MAX_CAPABILITY_BYTES: usize = 65_536;

/// A validated lease with its patterns compiled. Cheap to clone.
///
/// The JSON form is the ARCP wire shape: `{"fs.read": ["/data/**"], "cost.budget": ["USD:2"]}`.
/// `net.fetch` patterns are stored in their canonical form (SEMANTICS 5.2).
#[derive(Clone)]
pub struct Lease {
    inner: Arc<Inner>,
}

struct Inner {
    caps: BTreeMap<String, Arc<Entry>>,
    /// The entries of the reserved capabilities again, by their index in
    /// `RESERVED_CAPABILITIES` (the guard's hot path skips the name lookup).
    reserved: [Option<Arc<Entry>>; RESERVED_CAPABILITIES.len()],
    budget: BTreeMap<String, Decimal>,
}

pub(crate) struct Entry {
    /// Stored strings: canonical patterns, or budget entries as given.
    pub(crate) stored: Vec<String>,
    /// Compiled patterns (empty for `cost.budget`).
    pub(crate) set: PatternSet,
}

impl Lease {
    /// Parses and validates a lease from JSON text. Duplicate keys are rejected.
    pub fn from_json(text: &str) -> Result<Lease> {
        let raw: RawLease = serde_json::from_str(text)
            .map_err(|e| Error::invalid(format!("invalid lease JSON: {e}")))?;
        Lease::build(raw.0)
    }

    /// Validates a lease from a parsed JSON value.
    pub fn from_value(v: &Value) -> Result<Lease> {
        let Value::Object(m) = v else {
            return Err(Error::invalid("a lease must be a JSON object"));
        };
        Lease::build(m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
    }

    /// Validates a lease from a map of capability -> strings.
    pub fn from_map(m: BTreeMap<String, Vec<String>>) -> Result<Lease> {
        let mut caps = BTreeMap::new();
        for (k, v) in m {
            let entry = Entry::build(&k, v)?;
            caps.insert(k, Arc::new(entry));
        }
        Lease::finish(caps)
    }

    /// The empty lease (grants nothing).
    pub fn empty() -> Lease {
        Lease::finish(BTreeMap::new()).expect("empty lease is valid")
    }

    fn build(entries: Vec<(String, Value)>) -> Result<Lease> {
        let mut caps = BTreeMap::new();
        for (k, v) in entries {
            let Value::Array(items) = v else {
                return Err(
                    Error::invalid(format!("the value of {k:?} must be an array"))
                        .with_detail("capability", k.as_str()),
                );
            };
            let mut strings = Vec::with_capacity(items.len());
            for item in items {
                match item {
                    Value::String(s) => strings.push(s),
                    _ => {
                        return Err(Error::invalid(format!(
                            "every entry of {k:?} must be a string"
                        ))
                        .with_detail("capability", k.as_str()));
                    }
                }
            }
            let entry = Entry::build(&k, strings)?;
            if caps.insert(k.clone(), Arc::new(entry)).is_some() {
                return Err(Error::invalid(format!("duplicate capability {k:?}")));
            }
        }
        Lease::finish(caps)
    }

    fn finish(caps: BTreeMap<String, Arc<Entry>>) -> Result<Lease> {
        let budget = match caps.get("cost.budget") {
            Some(e) => sum_budget_entries(&e.stored)?,
            None => BTreeMap::new(),
        };
        let reserved = RESERVED_CAPABILITIES.map(|name| caps.get(name).cloned());
        Ok(Lease {
            inner: Arc::new(Inner {
                caps,
                reserved,
                budget,
            }),
        })
    }

    /// The capability names, sorted.
    pub fn capabilities(&self) -> impl Iterator<Item = &str> {
        self.inner.caps.keys().map(String::as_str)
    }

    /// The stored strings of a capability (canonical patterns; budget entries as given).
    pub fn patterns(&self, capability: &str) -> Option<&[String]> {
        self.inner.caps.get(capability).map(|e| e.stored.as_slice())
    }

    /// Whether the lease has the capability.
    pub fn has(&self, capability: &str) -> bool {
        self.inner.caps.contains_key(capability)
    }

    /// The summed `cost.budget` per currency (empty when there is none).
    pub fn budget(&self) -> &BTreeMap<String, Decimal> {
        &self.inner.budget
    }

    pub(crate) fn entry(&self, capability: &str) -> Option<&Entry> {
        self.inner.caps.get(capability).map(|e| &**e)
    }

    /// The entry of the reserved capability `RESERVED_CAPABILITIES[index]`.
    pub(crate) fn reserved_entry(&self, index: usize) -> Option<&Entry> {
        self.inner.reserved.get(index)?.as_deref()
    }

    pub(crate) fn entries(&self) -> impl Iterator<Item = (&str, &Entry)> {
        self.inner.caps.iter().map(|(k, v)| (k.as_str(), &**v))
    }

    /// As a map of capability -> stored strings.
    pub fn to_map(&self) -> BTreeMap<String, Vec<String>> {
        self.inner
            .caps
            .iter()
            .map(|(k, e)| (k.clone(), e.stored.clone()))
            .collect()
    }

    /// The JSON value (keys sorted).
    pub fn to_value(&self) -> Value {
        Value::Object(
            self.inner
                .caps
                .iter()
                .map(|(k, e)| (k.clone(), Value::from(e.stored.clone())))
                .collect(),
        )
    }

    /// The JSON text (keys sorted, compact).
    pub fn to_json(&self) -> String {
        self.to_value().to_string()
    }
}

impl Entry {
    fn build(name: &str, strings: Vec<String>) -> Result<Entry> {
        let kind = CapabilityKind::of(name)?;
        if strings.len() > MAX_PATTERNS_PER_CAPABILITY {
            return Err(Error::invalid(format!(
                "{name} has {} entries; at most {MAX_PATTERNS_PER_CAPABILITY} are allowed",
                strings.len()
            ))
            .with_detail("capability", name));
        }
        check_total_bytes(name, &strings)?;
        if kind == CapabilityKind::CostBudget {
            sum_budget_entries(&strings).map_err(|e| e.with_detail("capability", name))?;
            return Ok(Entry {
                stored: strings,
                set: PatternSet::default(),
            });
        }
        let mut compiled = Vec::with_capacity(strings.len());
        for s in &strings {
            compiled
                .push(Pattern::compile(kind, s).map_err(|e| e.with_detail("capability", name))?);
        }
        let stored: Vec<String> = compiled.iter().map(|p| p.as_str().to_string()).collect();
        // A stored `net.fetch` pattern may be one byte longer than given (`https://h` is stored
        // as `https://h/`); bounding the stored form too keeps every stored lease valid input.
        check_total_bytes(name, &stored)?;
        Ok(Entry {
            stored,
            set: PatternSet::new(compiled),
        })
    }
}

/// SEMANTICS 2: at most [`MAX_CAPABILITY_BYTES`] for the strings of one capability.
fn check_total_bytes(name: &str, strings: &[String]) -> Result<()> {
    let total: usize = strings.iter().map(String::len).sum();
    if total > MAX_CAPABILITY_BYTES {
        return Err(Error::invalid(format!(
            "the strings of {name} total {total} bytes; at most {MAX_CAPABILITY_BYTES} are allowed"
        ))
        .with_detail("capability", name));
    }
    Ok(())
}

/// Validates the shape of a lease given as JSON (SEMANTICS 2).
pub fn validate_lease_shape(v: &Value) -> Result<()> {
    Lease::from_value(v).map(|_| ())
}

/// The initial counters of a lease: its summed `cost.budget` (what a new guard starts from).
pub fn initial_budget(lease: &Lease) -> BTreeMap<String, Decimal> {
    lease.budget().clone()
}

impl PartialEq for Lease {
    fn eq(&self, other: &Lease) -> bool {
        self.to_map() == other.to_map()
    }
}

impl fmt::Debug for Lease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.inner.caps.iter().map(|(k, e)| (k, &e.stored)))
            .finish()
    }
}

impl Serialize for Lease {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.to_map().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Lease {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Lease, D::Error> {
        let raw = RawLease::deserialize(d)?;
        Lease::build(raw.0).map_err(serde::de::Error::custom)
    }
}

/// A JSON object read in order, refusing duplicate keys.
struct RawLease(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for RawLease {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<RawLease, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawLease;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a lease object")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<RawLease, A::Error> {
                let mut out: Vec<(String, Value)> = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, Value>()? {
                    if out.iter().any(|(seen, _)| *seen == k) {
                        return Err(serde::de::Error::custom(format!(
                            "duplicate capability {k:?}"
                        )));
                    }
                    out.push((k, v));
                }
                Ok(RawLease(out))
            }
        }
        d.deserialize_map(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let ok = [
            r#"{}"#,
            r#"{"fs.read": []}"#,
            r#"{"fs.read": ["/data/**"], "cost.budget": ["USD:2.00", "USD:1"], "x-vendor.acme.cap": ["a"]}"#,
        ];
        for s in ok {
            assert!(Lease::from_json(s).is_ok(), "{s}");
        }
        let bad = [
            r#"[]"#,
            r#"{"fs.read": "/x"}"#,
            r#"{"fs.read": [1]}"#,
            r#"{"fs.read": [""]}"#,
            r#"{"fs.read": ["rel/x"]}"#,
            r#"{"tool.call": ["a\u0007"]}"#,
            r#"{"tool.call": ["a***"]}"#,
            r#"{"cost.budget": ["USD:-1"]}"#,
            r#"{"acme.foo": ["x"]}"#,
            r#"{"fs.read": ["/a"], "fs.read": ["/b"]}"#,
            r#"not json"#,
        ];
        for s in bad {
            let e = Lease::from_json(s).unwrap_err();
            assert_eq!(e.code(), crate::ErrorCode::InvalidRequest, "{s}");
        }
    }

    #[test]
    fn bounds() {
        let many: Vec<String> = (0..1025).map(|i| format!("t{i}")).collect();
        let mut m = BTreeMap::new();
        m.insert("tool.call".to_string(), many[..1024].to_vec());
        assert!(Lease::from_map(m.clone()).is_ok());
        m.insert("tool.call".to_string(), many);
        assert!(Lease::from_map(m).is_err());
    }

    #[test]
    fn total_bytes_bound_counts_given_and_stored_strings() {
        let cap = |n: usize, len: usize, prefix: &str| -> Vec<String> {
            (0..n)
                .map(|i| {
                    let head = format!("{prefix}{i:04}");
                    format!("{head}{}", "a".repeat(len - head.len()))
                })
                .collect()
        };
        let with = |k: &str, v: Vec<String>| {
            let mut m = BTreeMap::new();
            m.insert(k.to_string(), v);
            Lease::from_map(m)
        };
        // 16 x 4096 = 65 536 bytes: allowed; one byte more is not.
        assert!(with("tool.call", cap(16, 4096, "t")).is_ok());
        let mut over = cap(16, 4096, "t");
        over.push("x".into());
        let e = with("tool.call", over).unwrap_err();
        assert_eq!(e.code(), crate::ErrorCode::InvalidRequest);
        // Two capabilities at the bound each are fine (the bound is per capability).
        let mut m = BTreeMap::new();
        m.insert("tool.call".to_string(), cap(16, 4096, "t"));
        m.insert("model.use".to_string(), cap(16, 4096, "m"));
        assert!(Lease::from_map(m).is_ok());
        // `https://h...` is stored with a `/` appended: within the bound as given, not stored.
        let urls: Vec<String> = (0..16)
            .map(|i| format!("https://h{i:04}{}", "a".repeat(4096 - 13)))
            .collect();
        assert_eq!(urls.iter().map(String::len).sum::<usize>(), 65_536);
        assert!(with("net.fetch", urls).is_err());
        // A stored lease is always valid input again.
        let ok: Vec<String> = (0..16)
            .map(|i| format!("https://h{i:04}{}", "a".repeat(4096 - 14)))
            .collect();
        let l = with("net.fetch", ok).unwrap();
        assert_eq!(Lease::from_map(l.to_map()).unwrap(), l);
    }

    #[test]
    fn canonical_storage_and_round_trip() {
        let l = Lease::from_json(r#"{"net.fetch": ["HTTPS://API.example.com:443"], "cost.budget": ["USD:1.50", "USD:0.50"]}"#).unwrap();
        assert_eq!(
            l.patterns("net.fetch").unwrap(),
            ["https://api.example.com/"]
        );
        assert_eq!(l.budget()["USD"], "2".parse().unwrap());
        let again: Lease = serde_json::from_str(&l.to_json()).unwrap();
        assert_eq!(again, l);
    }
}
