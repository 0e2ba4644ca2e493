//! Composite keys (SEMANTICS 13.16): the idempotency scope and the safety keys are a tuple of
//! a peer scope and declared ids, encoded as a JSON array (`[1000,"org","ws","actor","key"]`,
//! `null` for an in-process caller). JSON string encoding is injective and the array syntax
//! delimits every element, so no two distinct tuples share a key whatever bytes a client puts
//! in its ids; control characters are escaped, so a key is also plain text for every store
//! (PostgreSQL `text` holds no NUL).

use super::Engine;

/// Whose state a key belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// An in-process caller (no uid).
    Process,
    /// A daemon peer.
    Uid(u32),
    /// Every scope: safety entries carried over from a store written before safety state
    /// was kept per uid (they end by their own time; see [`migrate_keys`]).
    Any,
}

impl Scope {
    /// The scope of a lease's owner (`None`: acquired in process).
    pub(crate) fn of(uid: Option<u32>) -> Scope {
        uid.map_or(Scope::Process, Scope::Uid)
    }
}

/// The key format a store's state is written in (`Meta::key_format`).
pub(crate) const KEY_FORMAT: u32 = 1;

/// The encoded key of `(scope, parts...)`.
pub(crate) fn composite(scope: Scope, parts: &[&str]) -> String {
    let mut out = String::with_capacity(8 + parts.iter().map(|p| p.len() + 3).sum::<usize>());
    out.push('[');
    match scope {
        Scope::Process => out.push_str("null"),
        Scope::Uid(uid) => out.push_str(&uid.to_string()),
        Scope::Any => out.push_str("\"*\""),
    }
    for p in parts {
        out.push(',');
        out.push_str(&serde_json::to_string(p).expect("a string serializes"));
    }
    out.push(']');
    out
}

/// The key prefix every [`Scope::Any`] key starts with (they sort before every other key).
const ANY_PREFIX: &str = "[\"*\"";

impl Engine {
    /// The scope of the current caller.
    pub(crate) fn scope(&self) -> Scope {
        Scope::of(self.caller)
    }
}

/// Looks `id` up in an "until" safety map under `scope`, then under [`Scope::Any`] when the
/// map holds such entries (only after an upgrade; they sort first, so the check is one
/// lookup of the first key).
pub(crate) fn scoped_get<'a, V>(
    map: &'a std::collections::BTreeMap<String, V>,
    scope: Scope,
    id: &str,
) -> Option<&'a V> {
    if let Some(v) = map.get(&composite(scope, &[id])) {
        return Some(v);
    }
    let any = map
        .first_key_value()
        .is_some_and(|(k, _)| k.starts_with(ANY_PREFIX));
    if any {
        map.get(&composite(Scope::Any, &[id]))
    } else {
        None
    }
}

/// Rewrites the keys of a state written in the old format (`ids joined by U+001F`, a daemon
/// peer's idempotency scope prefixed `uid:N`) into [`composite`] keys, once:
/// - idempotency records whose old key splits into exactly its ids (none held U+001F) are
///   re-keyed with the same scope; a record whose old key is ambiguous is dropped (a retry
///   with it is evaluated afresh);
/// - cooldowns, breakers and clamps keep applying, to every scope, until they end;
/// - windowed counters (retry storm, policy denials, tool loops) restart.
///
/// Answers the old and new idempotency keys (the rows to delete and write).
pub(crate) fn migrate_keys(st: &mut super::State) -> Vec<(String, Option<String>)> {
    let mut moved = Vec::new();
    let old = std::mem::take(&mut st.idem);
    for (key, rec) in old {
        let new = legacy_idem_scope(&key, &rec.response.org_id, &rec.response.idempotency_key).map(
            |(scope, parts)| {
                let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
                composite(scope, &parts)
            },
        );
        if let Some(n) = &new {
            st.idem.insert(n.clone(), rec);
        }
        moved.push((key, new));
    }
    let s = &mut st.meta.safety;
    s.retry.clear();
    s.denies.clear();
    s.loops.clear();
    for m in [&mut s.cooldowns, &mut s.breakers, &mut s.clamps] {
        *m = std::mem::take(m)
            .into_iter()
            .map(|(k, v)| (composite(Scope::Any, &[&k]), v))
            .collect();
    }
    st.meta.key_format = KEY_FORMAT;
    moved
}

/// The scope and ids of an old-format idempotency key, when they are certain: the key splits
/// on U+001F into exactly (org, workspace, actor, key), optionally after `uid:N`, and its org
/// and key are the ones the stored grant answered.
fn legacy_idem_scope(key: &str, org: &str, idem_key: &str) -> Option<(Scope, Vec<String>)> {
    let parts: Vec<&str> = key.split('\u{1f}').collect();
    let (scope, ids) = match parts.len() {
        4 => (Scope::Process, &parts[..]),
        5 => {
            let uid = parts[0].strip_prefix("uid:")?;
            let n: u32 = uid.parse().ok()?;
            if n.to_string() != uid {
                return None;
            }
            (Scope::Uid(n), &parts[1..])
        }
        _ => return None,
    };
    (ids[0] == org && ids[3] == idem_key)
        .then(|| (scope, ids.iter().map(|s| s.to_string()).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_tuples_never_share_a_key() {
        let sep = "\u{1f}";
        let cases: Vec<(Scope, Vec<String>)> = vec![
            (Scope::Process, vec![format!("a{sep}b"), "c".into()]),
            (Scope::Process, vec!["a".into(), format!("b{sep}c")]),
            (Scope::Process, vec!["a\",\"b".into(), "c".into()]),
            (Scope::Process, vec!["a".into(), "b\",\"c".into()]),
            (Scope::Process, vec!["a".into(), "b".into()]),
            (Scope::Uid(1), vec!["a".into(), "b".into()]),
            (Scope::Uid(12), vec!["a".into(), "b".into()]),
            (Scope::Any, vec!["a".into(), "b".into()]),
            (Scope::Process, vec!["*".into(), "a".into()]),
            (Scope::Process, vec!["uid:1".into(), "a".into()]),
            (Scope::Process, vec!["".into(), "ab".into()]),
            (Scope::Process, vec!["ab".into(), "".into()]),
            (Scope::Process, vec!["a\u{0}".into(), "b".into()]),
            (Scope::Process, vec!["a".into(), "\u{0}b".into()]),
        ];
        let keys: std::collections::BTreeSet<String> = cases
            .iter()
            .map(|(s, p)| composite(*s, &p.iter().map(String::as_str).collect::<Vec<_>>()))
            .collect();
        assert_eq!(keys.len(), cases.len(), "{keys:#?}");
        // Plain text: no control character survives.
        assert!(keys.iter().all(|k| !k.chars().any(char::is_control)));
        // A key decodes back to its tuple.
        let k = composite(Scope::Uid(7), &["o\u{1f}", "w\"", "a\\"]);
        let v: serde_json::Value = serde_json::from_str(&k).unwrap();
        assert_eq!(v, serde_json::json!([7, "o\u{1f}", "w\"", "a\\"]));
    }

    #[test]
    fn any_scope_entries_sort_first() {
        let mut m = std::collections::BTreeMap::new();
        m.insert(composite(Scope::Uid(0), &["w"]), 1);
        m.insert(composite(Scope::Process, &["w"]), 2);
        assert_eq!(scoped_get(&m, Scope::Uid(5), "w"), None);
        m.insert(composite(Scope::Any, &["w"]), 3);
        assert!(m.first_key_value().unwrap().0.starts_with(ANY_PREFIX));
        assert_eq!(scoped_get(&m, Scope::Uid(5), "w"), Some(&3));
        assert_eq!(scoped_get(&m, Scope::Uid(0), "w"), Some(&1));
        assert_eq!(scoped_get(&m, Scope::Process, "x"), None);
    }

    /// A store written before composite keys: its idempotency records keep replaying (to
    /// their own scope only), and its cooldowns keep applying until they end.
    #[test]
    fn an_old_format_state_is_migrated_on_open() {
        use std::sync::Arc;

        use crate::governor::engine::{Engine, IdSource};
        use crate::governor::policy::{GovernorOptions, Policy};
        use crate::governor::store::{Snapshot, Table};
        use crate::governor::wire::AcquireRequest;
        use crate::{ManualClock, Timestamp};

        let clock = Arc::new(ManualClock::new(Timestamp::from_unix_millis(
            1_767_225_600_000,
        )));
        let open = |snap: Option<Snapshot>| {
            Engine::open(
                snap,
                Policy::default_policy(),
                GovernorOptions::default(),
                clock.clone(),
                IdSource::Deterministic,
                true,
            )
            .unwrap()
        };
        let req = |actor: &str, key: &str| AcquireRequest {
            actor_id: actor.into(),
            workspace_id: "w".into(),
            estimated_cost_cents: 1,
            idempotency_key: key.into(),
            ..AcquireRequest::default()
        };
        let mut e = open(None);
        e.begin(true).unwrap();
        assert_eq!(e.acquire(req("a", "k")).lease_id, "lease-1");
        e.set_caller(Some(7));
        assert_eq!(e.acquire(req("a", "k")).lease_id, "lease-2");
        let _ = e.take_changes();
        // The state as the old format wrote it.
        let mut st = e.state().clone();
        let s = "\u{1f}";
        let old_keys = [
            format!("default-org{s}w{s}a{s}k"),
            format!("uid:7{s}default-org{s}w{s}a{s}k"),
        ];
        let recs: Vec<_> = std::mem::take(&mut st.idem).into_values().collect();
        for r in recs {
            let k = if r.response.lease_id == "lease-1" {
                &old_keys[0]
            } else {
                &old_keys[1]
            };
            st.idem.insert(k.clone(), r);
        }
        st.meta.key_format = 0;
        st.meta.safety.cooldowns.insert(
            "b".into(),
            crate::governor::engine::state::Until {
                seq: 1,
                until: 1_767_225_600_000 + 60_000,
                value: 0,
            },
        );
        let mut rows = Vec::new();
        for (id, l) in &st.leases {
            rows.push((Table::Lease, id.clone(), serde_json::to_string(l).unwrap()));
        }
        for (k, r) in &st.idem {
            rows.push((Table::Idem, k.clone(), serde_json::to_string(r).unwrap()));
        }
        let snap = Snapshot {
            meta: serde_json::to_string(&st.meta).unwrap(),
            rows,
        };

        let mut e = open(Some(snap));
        let batch = e.take_changes();
        for k in &old_keys {
            assert_eq!(
                batch.rows.get(&(Table::Idem, k.clone())),
                Some(&None),
                "{k}"
            );
        }
        assert_eq!(e.state().meta.key_format, KEY_FORMAT);
        assert!(e.state().idem.keys().all(|k| k.starts_with('[')));
        assert_eq!(e.idem_order.len(), 2);
        e.begin(true).unwrap();
        e.set_caller(None);
        assert_eq!(e.acquire(req("a", "k")).lease_id, "lease-1");
        e.set_caller(Some(7));
        assert_eq!(e.acquire(req("a", "k")).lease_id, "lease-2");
        e.set_caller(Some(8));
        assert_eq!(e.acquire(req("a", "k")).lease_id, "lease-3");
        // The old cooldown on actor b applies to every scope until it ends.
        assert_eq!(
            e.acquire(req("b", "")).denied_reason,
            "actor_cooldown_active"
        );
        e.set_caller(None);
        assert_eq!(
            e.acquire(req("b", "")).denied_reason,
            "actor_cooldown_active"
        );
        clock.set(Timestamp::from_unix_millis(1_767_225_600_000 + 60_000));
        e.begin(true).unwrap();
        assert!(e.acquire(req("b", "")).granted);
    }

    #[test]
    fn old_idempotency_keys_split_only_when_certain() {
        let s = "\u{1f}";
        assert_eq!(
            legacy_idem_scope(&format!("o{s}w{s}a{s}k"), "o", "k"),
            Some((
                Scope::Process,
                vec!["o".into(), "w".into(), "a".into(), "k".into()]
            ))
        );
        assert_eq!(
            legacy_idem_scope(&format!("uid:9{s}o{s}w{s}a{s}k"), "o", "k"),
            Some((
                Scope::Uid(9),
                vec!["o".into(), "w".into(), "a".into(), "k".into()]
            ))
        );
        // An id held U+001F: ambiguous, dropped.
        assert_eq!(
            legacy_idem_scope(&format!("o{s}w{s}x{s}a{s}k"), "o", "k"),
            None
        );
        assert_eq!(
            legacy_idem_scope(&format!("uid:09{s}o{s}w{s}a{s}k"), "o", "k"),
            None
        );
    }
}
