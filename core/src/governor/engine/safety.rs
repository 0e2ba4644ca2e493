//! Safety automation (SEMANTICS 13.7): windowed counters that restart after they trip,
//! cooldowns, breakers and clamps with an end, bounded maps evicted oldest first. Every key
//! holds the peer scope with the declared id (SEMANTICS 13.16; [`super::keys`]).

use std::collections::BTreeMap;

use super::Engine;
use super::keys::{Scope, composite, scoped_get};
use super::state::{Until, Window};
use crate::governor::wire::Intervention;

/// Keys per safety map.
pub const MAX_KEYS: usize = 10_000;
/// Interventions kept.
pub const MAX_INTERVENTIONS: usize = 1_000;
/// Bytes per safety map (SEMANTICS 13.16): its keys, plus [`ENTRY_BYTES`] per entry and 8 per
/// windowed event. Keys are client ids (each at most 256 bytes on the wire, several in a scoped
/// key), so the key count alone does not bound the stored state.
pub const MAX_MAP_BYTES: usize = 1 << 20;
/// Bytes of the intervention list (each counted as its strings plus [`ENTRY_BYTES`]).
pub const MAX_INTERVENTION_BYTES: usize = 256 << 10;
/// The fixed cost counted per map entry or intervention.
pub const ENTRY_BYTES: usize = 48;

/// Which windowed counter.
#[derive(Clone, Copy)]
pub(crate) enum Counter {
    Retry,
    Denies,
    Loops,
}

/// Evicts oldest first until the map holds at most [`MAX_KEYS`] keys and [`MAX_MAP_BYTES`]
/// bytes (`size`: the bytes of a value beyond its key and [`ENTRY_BYTES`]).
fn evict<V>(map: &mut BTreeMap<String, V>, seq: impl Fn(&V) -> u64, size: impl Fn(&V) -> usize) {
    let entry = |k: &String, v: &V| k.len() + ENTRY_BYTES + size(v);
    let mut bytes: usize = map.iter().map(|(k, v)| entry(k, v)).sum();
    while map.len() > MAX_KEYS || bytes > MAX_MAP_BYTES {
        let oldest = map
            .iter()
            .min_by_key(|(k, v)| (seq(v), (*k).clone()))
            .map(|(k, _)| k.clone());
        match oldest.and_then(|k| map.remove_entry(&k)) {
            Some((k, v)) => bytes = bytes.saturating_sub(entry(&k, &v)),
            None => break,
        }
    }
}

/// The bytes an intervention counts for.
fn intervention_bytes(iv: &Intervention) -> usize {
    iv.timestamp_utc.len() + iv.trigger.len() + iv.scope.len() + iv.action.len() + ENTRY_BYTES
}

impl Engine {
    /// Counts one event for `key`; true when the counter reaches `threshold` (it restarts).
    pub(crate) fn count_event(&mut self, which: Counter, key: &str, threshold: u64) -> bool {
        let now = self.now;
        let window = self.settings.safety_window_ms as i64;
        self.st.meta.safety.seq = self.st.meta.safety.seq.saturating_add(1);
        let seq = self.st.meta.safety.seq;
        let s = &mut self.st.meta.safety;
        let map = match which {
            Counter::Retry => &mut s.retry,
            Counter::Denies => &mut s.denies,
            Counter::Loops => &mut s.loops,
        };
        let w = map.entry(key.to_string()).or_insert_with(Window::default);
        w.seq = seq;
        while w
            .events
            .front()
            .is_some_and(|t| now.saturating_sub(*t) >= window)
        {
            w.events.pop_front();
        }
        w.events.push_back(now);
        let tripped = threshold > 0 && w.events.len() as u64 >= threshold;
        if tripped {
            map.remove(key);
        }
        evict(map, |w| w.seq, |w| 8 * w.events.len());
        self.touch_meta();
        tripped
    }

    fn set_until(&mut self, which: u8, key: &str, until: i64, value: u64) {
        self.st.meta.safety.seq = self.st.meta.safety.seq.saturating_add(1);
        let seq = self.st.meta.safety.seq;
        let s = &mut self.st.meta.safety;
        let map = match which {
            0 => &mut s.cooldowns,
            1 => &mut s.breakers,
            _ => &mut s.clamps,
        };
        map.insert(key.to_string(), Until { seq, until, value });
        evict(map, |u| u.seq, |_| 0);
        self.touch_meta();
    }

    pub(crate) fn intervene(&mut self, trigger: &str, scope: String, action: &str) {
        let iv = Intervention {
            timestamp_utc: self.time(),
            trigger: trigger.to_string(),
            scope,
            action: action.to_string(),
        };
        let list = &mut self.st.meta.safety.interventions;
        list.push_back(iv);
        let mut bytes: usize = list.iter().map(intervention_bytes).sum();
        while list.len() > MAX_INTERVENTIONS || bytes > MAX_INTERVENTION_BYTES {
            match list.pop_front() {
                Some(old) => bytes = bytes.saturating_sub(intervention_bytes(&old)),
                None => break,
            }
        }
        self.touch_meta();
    }

    pub(crate) fn start_cooldown(&mut self, scope: Scope, actor: &str, trigger: &str) {
        let until = self
            .now
            .saturating_add(self.settings.safety_cooldown_ms as i64);
        self.set_until(0, &composite(scope, &[actor]), until, 0);
        self.intervene(trigger, format!("actor:{actor}"), "cooldown");
    }

    pub(crate) fn trip_breaker(&mut self, scope: Scope, ws: &str, trigger: &str) {
        let until = self
            .now
            .saturating_add(self.settings.safety_cooldown_ms as i64);
        self.set_until(1, &composite(scope, &[ws]), until, 0);
        self.intervene(trigger, format!("workspace:{ws}"), "circuit_breaker");
    }

    pub(crate) fn start_clamp(&mut self, scope: Scope, actor: &str, trigger: &str) {
        let until = self
            .now
            .saturating_add(self.settings.clamp_duration_ms as i64);
        let value = self.settings.clamped_max_output_tokens;
        self.set_until(2, &composite(scope, &[actor]), until, value);
        self.intervene(trigger, format!("actor:{actor}"), "clamp_max_output_tokens");
    }

    /// Remaining cooldown of an actor (ms), if any.
    pub(crate) fn cooldown_left(&self, scope: Scope, actor: &str) -> Option<u64> {
        scoped_get(&self.st.meta.safety.cooldowns, scope, actor)
            .filter(|u| u.until > self.now)
            .map(|u| u.until.saturating_sub(self.now) as u64)
    }

    pub(crate) fn breaker_open(&self, scope: Scope, ws: &str) -> bool {
        scoped_get(&self.st.meta.safety.breakers, scope, ws).is_some_and(|u| u.until > self.now)
    }

    pub(crate) fn clamp_of(&self, scope: Scope, actor: &str) -> Option<u64> {
        scoped_get(&self.st.meta.safety.clamps, scope, actor)
            .filter(|u| u.until > self.now)
            .map(|u| u.value)
    }
}
