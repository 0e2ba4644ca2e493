//! The decision engine (SEMANTICS 13.2-13.10): pure logic over [`State`], with an injected
//! clock and id source. Each command starts by rolling the UTC day and sweeping expired
//! leases, then decides; every change is recorded as touched rows so a store can commit it.

mod access;
mod acquire;
mod alerts;
mod approval_index;
mod approvals;
pub mod decisions;
pub mod gauges;
mod keys;
mod policy_cmds;
mod refresh;
mod release;
mod reports;
mod reviewer_id;
mod safety;
pub mod state;
mod sweep;
mod tools;

use std::collections::{BTreeSet, HashMap};

use std::sync::Arc;

use sha2::{Digest, Sha256};

pub use policy_cmds::POLICY_HISTORY_MAX;
pub use state::State;

use crate::governor::audit::{AuditRecord, GENESIS_HASH};
use crate::governor::policy::{BundleKey, GovernorOptions, Policy, Settings};
use crate::governor::store::{Batch, Snapshot, Table};
use crate::governor::wire::format_time_ms;
use crate::{Clock, Error, ErrorCode};

/// Where ids come from (SEMANTICS 13.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IdSource {
    /// 128-bit random, lower-case hex (production).
    #[default]
    Random,
    /// `lease-N`, `approval-N`, `appr-N`, `sub-N` (tests, conformance).
    Deterministic,
}

pub(crate) const DAY_MS: i64 = 86_400_000;

/// The engine: state, active policy, settings, clock, ids, and the changes of the command
/// in progress.
pub struct Engine {
    pub(crate) st: State,
    pub(crate) policy: Policy,
    pub(crate) settings: Settings,
    pub(crate) options: GovernorOptions,
    pub(crate) keys: Vec<BundleKey>,
    clock: Arc<dyn Clock>,
    ids: IdSource,
    pub(crate) now: i64,
    pub(crate) audit_ok: bool,
    /// The peer uid the current command acts for (13.14); `None` in process.
    pub(crate) caller: Option<u32>,
    track_rows: bool,
    /// The store keeps the scoped day counters ([`Table::Scope`]) and the policy contents
    /// ([`Table::Policy`]) as rows, not in the meta row.
    parts_as_rows: bool,
    /// The policy content rows the store holds (by row key), when `parts_as_rows`.
    policy_rows: BTreeSet<String>,
    /// Scoped counters that came from the meta row of a store that kept them there (converted
    /// to rows once [`Engine::keep_meta_parts_as_rows`] is called).
    scopes_in_meta: bool,
    dirty_scopes: BTreeSet<String>,
    dirty_leases: BTreeSet<String>,
    dirty_approvals: BTreeSet<String>,
    dirty_idem: BTreeSet<String>,
    dirty_rate: BTreeSet<String>,
    dirty_rate_keys: BTreeSet<String>,
    dirty_meta: bool,
    audit_lines: Vec<String>,
    /// Live leases by expiry (derived, rebuilt at open).
    pub(crate) expiry: BTreeSet<(i64, String)>,
    /// Expired or released records by the time they may be forgotten (derived).
    pub(crate) retention: BTreeSet<(i64, String)>,
    /// Sum of the tokens in the rate window (derived).
    pub(crate) rate_tokens: u64,
    /// Idempotency records by the time they were stored (derived; for retention pruning).
    pub(crate) idem_order: BTreeSet<(i64, String)>,
    /// The lease of each live sub-lease (derived): a tool call finds its sub-lease without
    /// a scan of every lease.
    pub(crate) sub_owner: HashMap<String, String>,
    /// Approvals by queue order, requester, expiry, retention and token (derived).
    pub(crate) approval_index: approval_index::ApprovalIndex,
    /// Budget alerts raised by the command in progress ([`Engine::take_alerts`]).
    pub(crate) alerts: Vec<crate::governor::observe::BudgetAlert>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("policy", &self.policy.version())
            .finish()
    }
}

impl Engine {
    /// Opens an engine on a store's snapshot (`None`: a fresh store, `policy` recorded as the
    /// first activation). On a reopen the last activated policy wins and expired leases are
    /// settled and audited `lease_expired_by_restart`.
    pub fn open(
        snapshot: Option<Snapshot>,
        policy: Policy,
        options: GovernorOptions,
        clock: Arc<dyn Clock>,
        ids: IdSource,
        track_rows: bool,
    ) -> crate::Result<Engine> {
        let fresh = snapshot.is_none();
        let mut e = Engine::open_image(snapshot, policy, options, clock, ids, track_rows)?;
        e.begin_at(!fresh)?;
        Ok(e)
    }

    /// As [`Engine::open`] without the reopen sweep: the image of a store that other
    /// governors keep running (SEMANTICS 13.12), rebuilt after a failed transaction or a
    /// refresh that had to start over. Its next command sweeps as usual (`lease_expired`).
    pub fn open_image(
        snapshot: Option<Snapshot>,
        policy: Policy,
        options: GovernorOptions,
        clock: Arc<dyn Clock>,
        ids: IdSource,
        track_rows: bool,
    ) -> crate::Result<Engine> {
        let keys = options
            .allowed_public_keys_base64
            .iter()
            .map(|k| BundleKey::from_spki_base64(k))
            .collect::<crate::Result<Vec<_>>>()?;
        let fresh = snapshot.is_none();
        let mut scopes_in_meta = false;
        let mut policy_rows = BTreeSet::new();
        let mut st = match snapshot {
            None => {
                let mut st = State::default();
                st.meta.audit.head = GENESIS_HASH.to_string();
                st.meta.key_format = keys::KEY_FORMAT;
                st.meta.policy.history.push(state::PolicyRec {
                    version: policy.version().to_string(),
                    content: policy.source().clone(),
                    hash: policy.hash().to_string(),
                });
                st
            }
            Some(s) => {
                let st = restore(&s)?;
                // A counter with no row of its own came from the meta row.
                let rows: BTreeSet<&str> = s
                    .rows
                    .iter()
                    .filter(|(t, _, _)| *t == Table::Scope)
                    .map(|(_, id, _)| id.as_str())
                    .collect();
                scopes_in_meta = st.meta.scoped.keys().any(|k| !rows.contains(k.as_str()));
                policy_rows = s
                    .rows
                    .iter()
                    .filter(|(t, _, _)| *t == Table::Policy)
                    .map(|(_, id, _)| id.clone())
                    .collect();
                st
            }
        };
        let moved = (st.meta.key_format < keys::KEY_FORMAT).then(|| keys::migrate_keys(&mut st));
        let active = st
            .meta
            .policy
            .history
            .get(st.meta.policy.active)
            .ok_or_else(|| internal("stored policy history is empty"))?;
        let policy = if fresh {
            policy
        } else {
            Policy::with_hash(active.content.clone(), active.hash.clone())?
        };
        let settings = Settings::resolve(&policy.doc().limits, &options.limits);
        let mut e = Engine {
            st,
            policy,
            settings,
            options,
            keys,
            clock,
            ids,
            now: 0,
            audit_ok: true,
            caller: None,
            track_rows,
            parts_as_rows: false,
            policy_rows,
            scopes_in_meta,
            dirty_scopes: BTreeSet::new(),
            dirty_leases: BTreeSet::new(),
            dirty_approvals: BTreeSet::new(),
            dirty_idem: BTreeSet::new(),
            dirty_rate: BTreeSet::new(),
            dirty_rate_keys: BTreeSet::new(),
            dirty_meta: fresh,
            audit_lines: Vec::new(),
            expiry: BTreeSet::new(),
            retention: BTreeSet::new(),
            rate_tokens: 0,
            idem_order: BTreeSet::new(),
            sub_owner: HashMap::new(),
            approval_index: Default::default(),
            alerts: Vec::new(),
        };
        e.rebuild_indexes();
        if e.trim_policy_history() {
            e.touch_meta();
        }
        if let Some(moved) = moved {
            for (old, new) in moved {
                e.touch_idem(&old);
                if let Some(new) = new {
                    e.touch_idem(&new);
                }
            }
            e.touch_meta();
        }
        Ok(e)
    }

    /// Keeps the scoped day counters ([`Table::Scope`]) and the policy contents
    /// ([`Table::Policy`]) as rows of their own from now on, for a store that does
    /// ([`crate::governor::store::Store::keeps_meta_parts_as_rows`]): each batch writes the
    /// counters it changed and the contents of policies new to the history or the staging slot
    /// (and deletes those that left), and the meta row leaves them out. Parts that came in the
    /// meta row (a store written before) are written as rows by the next batch, with a meta row
    /// without them.
    pub fn keep_meta_parts_as_rows(&mut self) {
        if !self.track_rows || self.parts_as_rows {
            return;
        }
        self.parts_as_rows = true;
        if std::mem::take(&mut self.scopes_in_meta) {
            self.dirty_scopes
                .extend(self.st.meta.scoped.keys().cloned());
            self.dirty_meta = true;
        }
        // Contents the meta row brought (or rows no policy needs): the next batch reconciles.
        let policy = &self.st.meta.policy;
        let rows = &self.policy_rows;
        let missing = policy.history.iter().any(|r| !rows.contains(&r.hash))
            || policy
                .staged
                .as_ref()
                .is_some_and(|s| !rows.contains(&staged_row_key(&s.hash)));
        if missing || rows.iter().any(|k| !needs_policy_row(policy, k)) {
            self.dirty_meta = true;
        }
    }

    /// The policy content rows to write and delete: one per policy of the history (by hash) and
    /// one for the staged bundle (`staged:<hash>`), against those the store holds.
    fn policy_changes(&mut self, b: &mut Batch) {
        let policy = &self.st.meta.policy;
        for r in &policy.history {
            if !self.policy_rows.contains(&r.hash) {
                b.rows
                    .insert((Table::Policy, r.hash.clone()), Some(to_json(&r.content)));
                self.policy_rows.insert(r.hash.clone());
            }
        }
        if let Some(s) = &policy.staged {
            let key = staged_row_key(&s.hash);
            if !self.policy_rows.contains(&key) {
                let body = to_json(&s.bundle.policy_content_json);
                b.rows.insert((Table::Policy, key.clone()), Some(body));
                self.policy_rows.insert(key);
            }
        }
        let gone: Vec<String> = self
            .policy_rows
            .iter()
            .filter(|k| !needs_policy_row(policy, k))
            .cloned()
            .collect();
        for k in gone {
            self.policy_rows.remove(&k);
            b.rows.insert((Table::Policy, k), None);
        }
    }

    /// Marks a scoped counter changed (or dropped).
    pub(crate) fn touch_scope(&mut self, key: &str) {
        if self.parts_as_rows {
            self.dirty_scopes.insert(key.to_string());
        }
        self.dirty_meta = true;
    }

    /// The state (for tests and invariants).
    pub fn state(&self) -> &State {
        &self.st
    }

    /// The active policy.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The resolved limits.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Starts a command: reads the clock, rolls the day, sweeps expired leases.
    pub fn begin(&mut self, audit_ok: bool) -> crate::Result<()> {
        self.audit_ok = audit_ok;
        self.begin_at(false)
    }

    fn begin_at(&mut self, restart: bool) -> crate::Result<()> {
        // Alerts of an earlier command that never reached its commit are not reported.
        self.alerts.clear();
        self.now = self.clock.now()?.unix_millis();
        let today = self.now.div_euclid(DAY_MS);
        // Days only roll forward: a governor whose clock is behind another's (a fleet,
        // SEMANTICS 13.12) never resets the day the other one has started.
        if today > self.st.meta.pools.budget_day {
            self.st.meta.pools.budget_day = today;
            self.st.meta.pools.budget_used = 0;
            self.st.meta.pools.alerted.clear();
            // Scoped budgets of past days are dropped (13.16 Bounded state): a counter of an
            // earlier day counts nothing today.
            // Recorded whenever rows are kept: a reopen rolls the day before the store's
            // choice is known (`keep_meta_parts_as_rows`), and its rows must still be deleted.
            let track = self.track_rows;
            let dirty = &mut self.dirty_scopes;
            self.st.meta.scoped.retain(|k, c| {
                let keep = c.day >= today;
                if !keep && track {
                    dirty.insert(k.clone());
                }
                keep
            });
            self.dirty_meta = true;
        }
        self.prune_rate();
        self.sweep(restart);
        Ok(())
    }

    /// Takes the changes made since the last call.
    pub fn take_changes(&mut self) -> Batch {
        let mut b = Batch {
            audit: std::mem::take(&mut self.audit_lines),
            ..Batch::default()
        };
        if !self.track_rows {
            self.dirty_leases.clear();
            self.dirty_approvals.clear();
            self.dirty_idem.clear();
            self.dirty_rate.clear();
            self.dirty_rate_keys.clear();
            self.dirty_scopes.clear();
            self.dirty_meta = false;
            return b;
        }
        for id in std::mem::take(&mut self.dirty_leases) {
            let body = self.st.leases.get(&id).map(to_json);
            b.rows.insert((Table::Lease, id), body);
        }
        for id in std::mem::take(&mut self.dirty_approvals) {
            let body = self.st.approvals.get(&id).map(to_json);
            b.rows.insert((Table::Approval, id), body);
        }
        for id in std::mem::take(&mut self.dirty_idem) {
            let body = self.st.idem.get(&id).map(to_json);
            b.rows.insert((Table::Idem, id), body);
        }
        self.dirty_rate.clear();
        for key in std::mem::take(&mut self.dirty_rate_keys) {
            let body = key
                .split_once('|')
                .and_then(|(at, lease)| Some((at.parse::<i64>().ok()?, lease)))
                .and_then(|(at, lease)| self.find_rate(at, lease))
                .map(|i| to_json(&self.st.rate[i]));
            b.rows.insert((Table::Rate, key), body);
        }
        for key in std::mem::take(&mut self.dirty_scopes) {
            if self.parts_as_rows {
                let body = self.st.meta.scoped.get(&key).map(to_json);
                b.rows.insert((Table::Scope, key), body);
            }
        }
        if std::mem::take(&mut self.dirty_meta) {
            if self.parts_as_rows {
                self.policy_changes(&mut b);
                // The counters and policy contents are rows of their own: the meta row
                // leaves them out.
                let scoped = std::mem::take(&mut self.st.meta.scoped);
                let policy = &mut self.st.meta.policy;
                let contents: Vec<serde_json::Value> = policy
                    .history
                    .iter_mut()
                    .map(|r| std::mem::take(&mut r.content))
                    .collect();
                let staged = policy
                    .staged
                    .as_mut()
                    .map(|s| std::mem::take(&mut s.bundle.policy_content_json));
                b.meta = Some(to_json(&self.st.meta));
                let policy = &mut self.st.meta.policy;
                for (r, c) in policy.history.iter_mut().zip(contents) {
                    r.content = c;
                }
                if let (Some(s), Some(c)) = (policy.staged.as_mut(), staged) {
                    s.bundle.policy_content_json = c;
                }
                self.st.meta.scoped = scoped;
            } else {
                b.meta = Some(to_json(&self.st.meta));
            }
        }
        b
    }

    pub(crate) fn touch_lease(&mut self, id: &str) {
        if self.track_rows {
            self.dirty_leases.insert(id.to_string());
        }
        self.dirty_meta = true;
    }

    pub(crate) fn touch_approval(&mut self, id: &str) {
        if self.track_rows {
            self.dirty_approvals.insert(id.to_string());
        }
        self.dirty_meta = true;
    }

    pub(crate) fn touch_idem(&mut self, key: &str) {
        if self.track_rows {
            self.dirty_idem.insert(key.to_string());
        }
        self.dirty_meta = true;
    }

    /// Marks a rate event's row (by its key and lease) changed.
    pub(crate) fn touch_rate(&mut self, e: &state::RateEvent) {
        if self.track_rows {
            self.dirty_rate.insert(e.lease.clone());
            self.dirty_rate_keys.insert(e.key());
        }
    }

    /// The index of the rate event of `lease` admitted at `at`.
    pub(crate) fn find_rate(&self, at: i64, lease: &str) -> Option<usize> {
        let start = self.st.rate.partition_point(|e| e.at < at);
        (start..self.st.rate.len())
            .take_while(|i| self.st.rate[*i].at == at)
            .find(|i| self.st.rate[*i].lease == lease)
    }

    /// Drops events that left the rate window.
    pub(crate) fn prune_rate(&mut self) {
        let window = self.settings.rate_window_ms as i64;
        while self
            .st
            .rate
            .front()
            .is_some_and(|e| self.now.saturating_sub(e.at) >= window)
        {
            let e = self.st.rate.pop_front().expect("front exists");
            self.rate_tokens = self.rate_tokens.saturating_sub(e.tokens);
            if self.track_rows {
                self.dirty_rate_keys.insert(e.key());
            }
        }
    }

    pub(crate) fn touch_meta(&mut self) {
        self.dirty_meta = true;
    }

    pub(crate) fn time(&self) -> String {
        format_time_ms(self.now)
    }

    /// The governor's UTC day: the clock's, or the day already begun when the clock is
    /// behind it (days only roll forward, so a lease acquired then belongs to the day whose
    /// pools count its reservation, and its settlement lands there too).
    pub(crate) fn today(&self) -> i64 {
        self.now
            .div_euclid(DAY_MS)
            .max(self.st.meta.pools.budget_day)
    }

    /// Milliseconds to the next UTC midnight.
    pub(crate) fn ms_to_midnight(&self) -> u64 {
        ((self.today() + 1) * DAY_MS - self.now) as u64
    }

    pub(crate) fn next_midnight_iso(&self) -> String {
        format_time_ms((self.today() + 1) * DAY_MS)
    }

    /// Writes an audit record. `false` when audit is unavailable (the caller decides; a
    /// record that cannot be written counts in `failedAuditWrites`).
    pub(crate) fn audit(&mut self, rec: AuditRecord) -> Option<String> {
        if !self.audit_ok {
            self.st.meta.metrics.failed_audit_writes =
                self.st.meta.metrics.failed_audit_writes.saturating_add(1);
            self.dirty_meta = true;
            return None;
        }
        let (line, hash) = rec.seal(&self.st.meta.audit.head);
        self.st.meta.audit.head = hash.clone();
        self.st.meta.audit.count = self.st.meta.audit.count.saturating_add(1);
        self.audit_lines.push(line);
        self.dirty_meta = true;
        Some(hash)
    }

    /// A base audit record with the policy hash.
    pub(crate) fn record(&self, event: &str) -> AuditRecord {
        let mut r = AuditRecord::new(event, self.time());
        r.s("policyHash", self.policy.hash());
        r
    }

    pub(crate) fn next_lease_id(&mut self) -> String {
        self.st.meta.ids.lease = self.st.meta.ids.lease.saturating_add(1);
        match self.ids {
            IdSource::Deterministic => format!("lease-{}", self.st.meta.ids.lease),
            IdSource::Random => random_hex(),
        }
    }

    pub(crate) fn next_approval_id(&mut self) -> String {
        self.st.meta.ids.approval = self.st.meta.ids.approval.saturating_add(1);
        match self.ids {
            IdSource::Deterministic => format!("approval-{}", self.st.meta.ids.approval),
            IdSource::Random => random_hex(),
        }
    }

    pub(crate) fn next_token(&mut self) -> String {
        self.st.meta.ids.token = self.st.meta.ids.token.saturating_add(1);
        match self.ids {
            IdSource::Deterministic => format!("appr-{}", self.st.meta.ids.token),
            IdSource::Random => format!("appr-{}", random_hex()),
        }
    }

    pub(crate) fn next_sub_id(&mut self) -> String {
        self.st.meta.ids.sub = self.st.meta.ids.sub.saturating_add(1);
        match self.ids {
            IdSource::Deterministic => format!("sub-{}", self.st.meta.ids.sub),
            IdSource::Random => random_hex(),
        }
    }

    /// Installs a policy as active (resizing pools at once).
    pub(crate) fn install_policy(&mut self, p: Policy) {
        self.settings = Settings::resolve(&p.doc().limits, &self.options.limits);
        self.policy = p;
    }
}

/// SHA-256 hex.
pub(crate) fn sha256_hex(s: &str) -> String {
    hex::encode(Sha256::digest(s.as_bytes()))
}

/// Constant-time equality of two equal-length strings (token hashes).
pub(crate) fn ct_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// 128 random bits as 32 lower-case hex digits, from a user-space generator: SHA-256 of a
/// 256-bit key from the OS (drawn once per thread), the process id and a counter, truncated to
/// 16 bytes (a PRF in counter mode). Per thread, so there is no lock to inherit half-held
/// across a `fork`; a forked child sees a new process id and draws its own key, so parent and
/// child never share a stream. Saves a `getrandom` system call per id.
fn random_hex() -> String {
    use std::cell::RefCell;
    struct Gen {
        pid: u32,
        key: [u8; 32],
        counter: u64,
    }
    thread_local! {
        static GEN: RefCell<Option<Gen>> = const { RefCell::new(None) };
    }
    let pid = std::process::id();
    let out = GEN.try_with(|cell| {
        let mut g = cell.borrow_mut();
        if g.as_ref().is_none_or(|g| g.pid != pid) {
            let mut key = [0u8; 32];
            if getrandom::fill(&mut key).is_err() {
                // No randomness: time, the thread and a local's address hashed (unique per
                // thread and run; never reused within one because the counter runs on).
                let seed = format!(
                    "{:?}{:?}{:p}{pid}",
                    std::time::SystemTime::now(),
                    std::thread::current().id(),
                    &key
                );
                key.copy_from_slice(&Sha256::digest(seed.as_bytes()));
            }
            *g = Some(Gen {
                pid,
                key,
                counter: 0,
            });
        }
        let g = g.as_mut().expect("seeded above");
        g.counter += 1;
        let mut h = Sha256::new();
        h.update(g.key);
        h.update(pid.to_le_bytes());
        h.update(g.counter.to_le_bytes());
        h.finalize()
    });
    let mut bytes = [0u8; 16];
    match out {
        Ok(d) => bytes.copy_from_slice(&d[..16]),
        // The thread is being torn down (its generator is gone): ask the OS directly.
        Err(_) => {
            if getrandom::fill(&mut bytes).is_err() {
                let seed = format!("{:?}{pid}", std::time::SystemTime::now());
                bytes.copy_from_slice(&Sha256::digest(seed.as_bytes())[..16]);
            }
        }
    }
    let mut hex_buf = [0u8; 32];
    hex::encode_to_slice(bytes, &mut hex_buf).expect("32 hex digits");
    String::from_utf8(hex_buf.to_vec()).expect("hex is ASCII")
}

fn internal(msg: &str) -> Error {
    Error::new(ErrorCode::InternalError, msg)
}

/// The row key of a staged bundle's content.
fn staged_row_key(hash: &str) -> String {
    format!("staged:{hash}")
}

/// True when a policy state needs content row `key` (a history hash, or the staged bundle's
/// `staged:<hash>`).
fn needs_policy_row(p: &state::PolicyState, key: &str) -> bool {
    match key.strip_prefix("staged:") {
        Some(hash) => p.staged.as_ref().is_some_and(|s| s.hash == hash),
        None => p.history.iter().any(|r| r.hash == key),
    }
}

fn to_json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("state serializes")
}

pub(crate) fn restore(s: &Snapshot) -> crate::Result<State> {
    let bad =
        |what: &str, e: serde_json::Error| internal(&format!("stored {what} is corrupt: {e}"));
    let mut st = State {
        meta: serde_json::from_str(&s.meta).map_err(|e| bad("meta", e))?,
        ..State::default()
    };
    let mut contents: std::collections::BTreeMap<&str, &str> = Default::default();
    for (t, id, body) in &s.rows {
        match t {
            Table::Lease => {
                st.leases.insert(
                    id.clone(),
                    serde_json::from_str(body).map_err(|e| bad("lease", e))?,
                );
            }
            Table::Approval => {
                st.approvals.insert(
                    id.clone(),
                    serde_json::from_str(body).map_err(|e| bad("approval", e))?,
                );
            }
            Table::Idem => {
                st.idem.insert(
                    id.clone(),
                    serde_json::from_str(body).map_err(|e| bad("idem", e))?,
                );
            }
            Table::Rate => {
                st.rate
                    .push_back(serde_json::from_str(body).map_err(|e| bad("rate event", e))?);
            }
            Table::Scope => {
                st.meta.scoped.insert(
                    id.clone(),
                    serde_json::from_str(body).map_err(|e| bad("scoped counter", e))?,
                );
            }
            Table::Policy => {
                contents.insert(id.as_str(), body.as_str());
            }
        }
    }
    // Policy contents kept as rows: the meta row holds none (a meta row that holds them was
    // written before they were rows, and keeps them).
    let content = |key: &str| {
        contents
            .get(key)
            .copied()
            .ok_or_else(|| internal(&format!("stored policy content {key} is missing")))
    };
    for r in &mut st.meta.policy.history {
        if r.content.is_null() {
            r.content =
                serde_json::from_str(content(&r.hash)?).map_err(|e| bad("policy content", e))?;
        }
    }
    if let Some(staged) = &mut st.meta.policy.staged
        && staged.bundle.policy_content_json.is_empty()
    {
        staged.bundle.policy_content_json =
            serde_json::from_str(content(&staged_row_key(&staged.hash))?)
                .map_err(|e| bad("staged policy content", e))?;
    }
    Ok(st)
}

#[cfg(test)]
mod tests {
    #[test]
    fn random_ids_are_128_bit_lower_hex_and_distinct() {
        let ids: std::collections::BTreeSet<String> =
            (0..2000).map(|_| super::random_hex()).collect();
        assert_eq!(ids.len(), 2000);
        assert!(ids.iter().all(|id| {
            id.len() == 32
                && id
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        }));
        // Threads share one stream: still distinct.
        let more: Vec<String> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..4)
                .map(|_| s.spawn(|| (0..500).map(|_| super::random_hex()).collect::<Vec<_>>()))
                .collect();
            hs.into_iter().flat_map(|h| h.join().unwrap()).collect()
        });
        let all: std::collections::BTreeSet<&String> = ids.iter().chain(&more).collect();
        assert_eq!(all.len(), 4000);
    }
}
