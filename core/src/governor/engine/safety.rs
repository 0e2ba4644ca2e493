//! Safety automation (SEMANTICS 13.7): windowed counters that restart after they trip,
//! cooldowns, breakers and clamps with an end, bounded maps evicted oldest first.

use std::collections::BTreeMap;

use super::Engine;
use super::state::{Until, Window};
use crate::governor::wire::Intervention;

/// Keys per safety map.
pub const MAX_KEYS: usize = 10_000;
/// Interventions kept.
pub const MAX_INTERVENTIONS: usize = 1_000;

/// Which windowed counter.
#[derive(Clone, Copy)]
pub(crate) enum Counter {
    Retry,
    Denies,
    Loops,
}

fn evict<V>(map: &mut BTreeMap<String, V>, seq: impl Fn(&V) -> u64) {
    while map.len() > MAX_KEYS {
        let oldest = map
            .iter()
            .min_by_key(|(k, v)| (seq(v), (*k).clone()))
            .map(|(k, _)| k.clone());
        match oldest {
            Some(k) => {
                map.remove(&k);
            }
            None => break,
        }
    }
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
        evict(map, |w| w.seq);
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
        evict(map, |u| u.seq);
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
        while list.len() > MAX_INTERVENTIONS {
            list.pop_front();
        }
        self.touch_meta();
    }

    pub(crate) fn start_cooldown(&mut self, actor: &str, trigger: &str) {
        let until = self
            .now
            .saturating_add(self.settings.safety_cooldown_ms as i64);
        self.set_until(0, actor, until, 0);
        self.intervene(trigger, format!("actor:{actor}"), "cooldown");
    }

    pub(crate) fn trip_breaker(&mut self, ws: &str, trigger: &str) {
        let until = self
            .now
            .saturating_add(self.settings.safety_cooldown_ms as i64);
        self.set_until(1, ws, until, 0);
        self.intervene(trigger, format!("workspace:{ws}"), "circuit_breaker");
    }

    pub(crate) fn start_clamp(&mut self, actor: &str, trigger: &str) {
        let until = self
            .now
            .saturating_add(self.settings.clamp_duration_ms as i64);
        let value = self.settings.clamped_max_output_tokens;
        self.set_until(2, actor, until, value);
        self.intervene(trigger, format!("actor:{actor}"), "clamp_max_output_tokens");
    }

    /// Remaining cooldown of an actor (ms), if any.
    pub(crate) fn cooldown_left(&self, actor: &str) -> Option<u64> {
        self.st
            .meta
            .safety
            .cooldowns
            .get(actor)
            .filter(|u| u.until > self.now)
            .map(|u| u.until.saturating_sub(self.now) as u64)
    }

    pub(crate) fn breaker_open(&self, ws: &str) -> bool {
        self.st
            .meta
            .safety
            .breakers
            .get(ws)
            .is_some_and(|u| u.until > self.now)
    }

    pub(crate) fn clamp_of(&self, actor: &str) -> Option<u64> {
        self.st
            .meta
            .safety
            .clamps
            .get(actor)
            .filter(|u| u.until > self.now)
            .map(|u| u.value)
    }
}
