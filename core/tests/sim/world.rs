//! One simulated governor: its store (wrapped in a `FaultyStore`), a manual clock, the
//! reference model of what was answered, and the invariants checked after every step.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Once};
use std::time::Duration;

use leasekit::governor::engine::IdSource;
use leasekit::governor::engine::state::{LeaseStatus, State};
use leasekit::governor::store::{
    Fault, FaultyStore, MemoryStore, SqliteStore, Store, StoreOp, Synchronous,
};
use leasekit::governor::wire::ResponseEnvelope;
use leasekit::governor::{Governor, GovernorOptions, Peer, Policy, verify_audit};
use leasekit::{ManualClock, Timestamp};
use serde_json::{Value, json};

use super::cmds::{Cmd, FAULTS, Ref, UIDS};

/// 2026-03-01T22:00:00Z: two hours before a UTC midnight.
pub const START_MS: i64 = 1_772_402_400_000;
const DAY_MS: i64 = 86_400_000;
const TTL_MS: i64 = 30_000;

/// Which store a run drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreKind {
    /// A reloadable memory store.
    Memory,
    /// A fleet of two governors on one PostgreSQL database (feature `postgres`).
    Postgres,
    /// A SQLite file (reopened from the file after a crash).
    Sqlite,
}

/// Pool capacities of a simulation policy.
#[derive(Debug, Clone, Copy)]
struct Caps {
    in_flight: u64,
    per_actor: u64,
    compute: u64,
    daily: u64,
    org: Option<u64>,
    ws: Option<u64>,
    actor: Option<u64>,
}

const CAPS: [Caps; 3] = [
    Caps {
        in_flight: 4,
        per_actor: 2,
        compute: 6,
        daily: 200,
        org: Some(180),
        ws: Some(120),
        actor: Some(70),
    },
    Caps {
        in_flight: 2,
        per_actor: 1,
        compute: 3,
        daily: 90,
        org: Some(90),
        ws: Some(60),
        actor: Some(40),
    },
    Caps {
        in_flight: 6,
        per_actor: 3,
        compute: 8,
        daily: 300,
        org: None,
        ws: None,
        actor: None,
    },
];

const VERSIONS: [&str; 3] = ["sim-a", "sim-b", "sim-c"];

/// The policy `which` (0: the construction policy).
pub fn policy_json(which: u8) -> Value {
    let c = CAPS[which as usize % 3];
    let mut p = json!({
        "policyVersion": VERSIONS[which as usize % 3],
        "maxInFlight": c.in_flight,
        "maxInFlightPerActor": c.per_actor,
        "maxComputeUnits": c.compute,
        "dailyBudgetCents": c.daily,
        "leaseTtlMs": TTL_MS,
        "maxRequestsPerMinute": 1000,
        "spendSpikeCents": 100000,
        "policyDenyCircuitBreakerThreshold": 20,
        "toolRegistry": [{"toolId": "fs.read", "category": "fileRead"},
                         {"toolId": "http.post", "category": "networkWrite"}],
        "approvalRequiredToolCategories": ["networkWrite"],
        "allowedFileRoots": ["/tmp"],
        "allowedNetworkHosts": ["api.example.com"],
        "maxToolCallsPerLease": 4
    });
    for (field, v) in [
        ("orgDailyBudgetCents", c.org),
        ("workspaceDailyBudgetCents", c.ws),
        ("actorDailyBudgetCents", c.actor),
    ] {
        if let Some(v) = v {
            p[field] = json!(v);
        }
    }
    p
}

fn caps_of(version: &str) -> Caps {
    CAPS[VERSIONS.iter().position(|v| *v == version).unwrap_or(0)]
}

fn max_caps() -> Caps {
    let m = |f: fn(&Caps) -> u64| CAPS.iter().map(f).max().unwrap_or(0);
    Caps {
        in_flight: m(|c| c.in_flight),
        per_actor: m(|c| c.per_actor),
        compute: m(|c| c.compute),
        daily: m(|c| c.daily),
        org: None,
        ws: None,
        actor: None,
    }
}

thread_local! {
    /// Panics on this thread since the last look (the panic hook runs on the panicking
    /// thread, so runs on parallel test threads never see each other's).
    static PANICS: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}
static HOOK: Once = Once::new();

/// Records panics (an injected store panic is expected and not recorded).
fn install_panic_hook() {
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let msg = info.to_string();
            if !msg.contains("injected fault") {
                PANICS.with(|p| p.borrow_mut().push(msg));
                default(info);
            }
        }));
    });
}

fn take_panics() -> Vec<String> {
    PANICS.with(|p| std::mem::take(&mut *p.borrow_mut()))
}

/// A lease the model knows: answered granted (or found after an answer whose outcome was
/// unknown).
#[derive(Debug, Clone)]
struct MLease {
    uid: u32,
    actor: String,
    day: i64,
    expires: i64,
    acquired: i64,
    reserved: u64,
    estimate: u64,
    /// Released: (actual cents, UTC day of the release).
    released: Option<(u64, i64)>,
}

/// What was answered.
#[derive(Debug, Default)]
struct Model {
    leases: BTreeMap<String, MLease>,
    order: Vec<String>,
    /// Grants by scoped idempotency key (uid, workspace, actor, key): lease and time.
    idem: BTreeMap<(u32, String, String, String), (String, i64)>,
    approvals: Vec<String>,
    tokens: Vec<String>,
    subs: Vec<String>,
    /// Single-use tokens and the lease granted with each.
    token_use: BTreeMap<String, String>,
}

fn pick<'a>(list: &'a [String], r: Ref, junk: &'a str) -> String {
    match r {
        Ref::Known(i) if !list.is_empty() => list[i as usize % list.len()].clone(),
        Ref::Known(_) => junk.to_string(),
        Ref::Junk(k) => format!("{junk}{k}"),
    }
}

/// One governor process: its store connection, the fault injector around it, the governor.
struct Node {
    inner: Arc<dyn Store>,
    faulty: Arc<FaultyStore>,
    gov: Option<Governor>,
}

/// The simulated governors (one; two on a PostgreSQL fleet) and the checker.
pub struct World {
    kind: StoreKind,
    path: Option<PathBuf>,
    url: Option<String>,
    nodes: Vec<Node>,
    /// The node the current step runs on.
    cur: usize,
    clock: Arc<ManualClock>,
    now: i64,
    /// The latest time the clock showed.
    high: i64,
    model: Model,
    /// A fault fired since the last clean answer (a `store_unavailable` answer is expected).
    faulted: bool,
    /// The number of the current step (1-based).
    pub step: usize,
}

fn temp_path(seed: u64) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let dir = crate::scratch::dir();
    dir.join(format!("s{seed}-{}.db", N.fetch_add(1, Ordering::Relaxed)))
}

impl Drop for World {
    fn drop(&mut self) {
        self.nodes.clear();
        if let Some(p) = &self.path {
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", p.display()));
            }
        }
    }
}

type Check = Result<(), String>;

impl World {
    /// A fresh governor on a fresh store (`url`: a fresh PostgreSQL database, for a fleet of
    /// two governors).
    pub fn new(kind: StoreKind, seed: u64, url: Option<String>) -> Result<World, String> {
        install_panic_hook();
        let path = (kind == StoreKind::Sqlite).then(|| temp_path(seed));
        let mut w = World {
            kind,
            path,
            url,
            nodes: Vec::new(),
            cur: 0,
            clock: Arc::new(ManualClock::new(Timestamp::from_unix_millis(START_MS))),
            now: START_MS,
            high: START_MS,
            model: Model::default(),
            faulted: false,
            step: 0,
        };
        let n = if kind == StoreKind::Postgres { 2 } else { 1 };
        let mut inner = None;
        for i in 0..n {
            let store = match (&inner, kind) {
                (Some(s), StoreKind::Memory) => Arc::clone(s),
                _ => w.open_inner()?,
            };
            inner = Some(store.clone());
            w.nodes.push(Node {
                faulty: Arc::new(FaultyStore::new(store.clone())),
                inner: store,
                gov: None,
            });
            w.cur = i;
            w.open_gov()?;
        }
        w.cur = 0;
        Ok(w)
    }

    fn open_inner(&self) -> Result<Arc<dyn Store>, String> {
        Ok(match self.kind {
            StoreKind::Memory => Arc::new(MemoryStore::reloadable()),
            StoreKind::Sqlite => Arc::new(
                SqliteStore::open_with(self.path.as_ref().expect("path"), Synchronous::Normal)
                    .map_err(|e| format!("cannot open the SQLite store: {e}"))?,
            ),
            #[cfg(feature = "postgres")]
            StoreKind::Postgres => Arc::new(
                leasekit::governor::store::PostgresStore::open(self.url.as_deref().expect("url"))
                    .map_err(|e| format!("cannot open the PostgreSQL store: {e}"))?,
            ),
            #[cfg(not(feature = "postgres"))]
            StoreKind::Postgres => {
                let _ = &self.url;
                return Err("the PostgreSQL fleet needs --features leasekit/postgres".into());
            }
        })
    }

    fn node(&self) -> &Node {
        &self.nodes[self.cur]
    }

    fn open_gov(&mut self) -> Check {
        let policy = Policy::from_value(policy_json(0)).map_err(|e| e.to_string())?;
        let g = Governor::new(
            policy,
            GovernorOptions::default(),
            self.node().faulty.clone(),
            self.clock.clone(),
            IdSource::Deterministic,
        )
        .map_err(|e| format!("opening the governor failed: {e}"))?;
        self.nodes[self.cur].gov = Some(g);
        Ok(())
    }

    /// A crash: the governor is dropped without a clean close, a new process opens the store
    /// (SQLite, PostgreSQL: a new connection) and a new governor on it.
    fn reopen(&mut self) -> Check {
        self.nodes[self.cur].gov = None;
        if self.kind != StoreKind::Memory {
            self.nodes[self.cur].inner = self.open_inner()?;
        }
        let inner = self.node().inner.clone();
        self.nodes[self.cur].faulty = Arc::new(FaultyStore::new(inner));
        self.open_gov()?;
        self.faulted = false;
        self.check_audit_full("after a reopen")
    }

    fn gov(&self) -> &Governor {
        self.node().gov.as_ref().expect("open")
    }

    fn state(&self) -> State {
        self.gov().with_engine(|e| e.state().clone())
    }

    fn caps(&self) -> Caps {
        caps_of(&self.gov().with_engine(|e| e.policy().version().to_string()))
    }

    fn today(&self) -> i64 {
        self.now.div_euclid(DAY_MS)
    }

    /// Sends one command as peer `uid` (uid 0 is the admin).
    fn send(&mut self, uid: u32, cmd: &str, payload: &str) -> Result<Answer, String> {
        let before = self.node().faulty.injected().len();
        let peer = Peer {
            uid,
            admin: uid == 0,
        };
        let gov = self.gov().clone();
        let env = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            gov.handle_as(peer, cmd, payload)
        }))
        .map_err(|_| format!("{cmd} panicked out of the governor"))?;
        let panics = take_panics();
        if !panics.is_empty() {
            return Err(format!("{cmd}: a panic inside the governor: {panics:?}"));
        }
        if self.node().faulty.injected().len() > before {
            self.faulted = true;
        }
        let a = Answer::of(cmd, env, self.faulted)?;
        if matches!(a, Answer::Ok(_)) {
            self.faulted = false;
        }
        Ok(a)
    }

    /// Runs one command and checks every invariant after it.
    pub fn run(&mut self, cmd: &Cmd) -> Check {
        self.step += 1;
        // A fleet: the commands alternate between the governors, in an order the list fixes.
        self.cur = self.step % self.nodes.len();
        let prev = self.state();
        let mut fresh_grant: Option<String> = None;
        let mut unknown: Option<(u32, Option<String>)> = None;
        let mut released: Option<(String, u64)> = None;
        match cmd {
            Cmd::Acquire {
                uid,
                actor,
                ws,
                key,
                cost,
                units,
                tool,
                token,
                arcp,
            } => {
                let uid = UIDS[*uid as usize % 3];
                let tools: Vec<Value> =
                    [(1, "fs.read", "fileRead"), (2, "http.post", "networkWrite")]
                        .iter()
                        .filter(|(bit, _, _)| tool & bit != 0)
                        .map(|(_, id, cat)| json!({"toolId": id, "category": cat}))
                        .collect();
                let token = token
                    .map(|t| pick(&self.model.tokens, t, "appr-junk"))
                    .unwrap_or_default();
                let key = key.map(|k| format!("k{k}")).unwrap_or_default();
                let (actor, ws) = (format!("a{actor}"), format!("w{ws}"));
                let mut p = json!({
                    "orgId": "o", "actorId": actor, "workspaceId": ws, "modelId": "m",
                    "estimatedCostCents": cost, "estimatedComputeUnits": units,
                    "maxOutputTokens": 100, "requestedTools": tools,
                    "approvalToken": token, "idempotencyKey": key,
                });
                if *arcp {
                    p["requestedLease"] = json!({"fs.read": ["/tmp/**"],
                        "net.fetch": ["https://api.example.com/**"]});
                }
                let a = self.send(uid, "Acquire", &p.to_string())?;
                match a {
                    Answer::Ok(v) if v["granted"] == json!(true) => {
                        let id = v["leaseId"].as_str().unwrap_or("").to_string();
                        if id.is_empty() {
                            return Err("a grant without a leaseId".into());
                        }
                        let replay = self.model.leases.get(&id).map(|l| l.uid);
                        match replay {
                            Some(owner) if owner != uid => {
                                return Err(format!(
                                    "uid {uid} was answered lease {id} of uid {owner}"
                                ));
                            }
                            Some(_) if key.is_empty() => {
                                return Err(format!("{id} granted twice without a key"));
                            }
                            Some(_) => {}
                            None => {
                                let st = self.state();
                                let Some(l) = st.leases.get(&id) else {
                                    return Err(format!("answered grant {id} is not in the state"));
                                };
                                self.model.leases.insert(
                                    id.clone(),
                                    MLease {
                                        uid,
                                        actor: actor.clone(),
                                        day: l.day,
                                        expires: l.expires_at,
                                        acquired: self.now,
                                        reserved: l.reserved,
                                        estimate: u64::from(*cost),
                                        released: None,
                                    },
                                );
                                self.model.order.push(id.clone());
                                if l.expires_at != self.now + TTL_MS {
                                    return Err(format!(
                                        "{id} expires at {} (granted at {}, ttl {TTL_MS})",
                                        l.expires_at, self.now
                                    ));
                                }
                                if l.reserved > u64::from(*cost) + 1 {
                                    return Err(format!(
                                        "{id} reserves {} for an estimate of {cost}",
                                        l.reserved
                                    ));
                                }
                                fresh_grant = Some(id.clone());
                                if tool & 2 != 0 && !token.is_empty() {
                                    if let Some(other) = self.model.token_use.get(&token) {
                                        return Err(format!(
                                            "a single-use approval token granted {other} and {id}"
                                        ));
                                    }
                                    self.model.token_use.insert(token.clone(), id.clone());
                                }
                            }
                        }
                        if !key.is_empty() {
                            let scoped = (uid, ws.clone(), actor.clone(), key.clone());
                            match self.model.idem.get(&scoped) {
                                // Retention runs on the latest time the governor saw (a clock
                                // stepped back does not bring a forgotten record back).
                                Some((first, at)) if *first != id && self.high - at < DAY_MS => {
                                    return Err(format!(
                                        "two grants under one scoped key {scoped:?}: {first} and {id}"
                                    ));
                                }
                                Some((first, _)) if *first == id => {}
                                _ => {
                                    self.model.idem.insert(scoped, (id.clone(), self.now));
                                }
                            }
                        }
                    }
                    Answer::Ok(v) => {
                        if v["deniedReason"].as_str().unwrap_or("").is_empty() {
                            return Err(format!("a denial without a reason: {v}"));
                        }
                    }
                    Answer::Unknown => unknown = Some((uid, Some(key.clone()))),
                    Answer::Refused(e) => return Err(format!("Acquire refused: {e}")),
                }
            }
            Cmd::Release {
                uid,
                lease,
                pct,
                key,
            } => {
                let uid = UIDS[*uid as usize % 3];
                let id = pick(&self.model.order, *lease, "lease-junk");
                let m = self.model.leases.get(&id).cloned();
                let actual = m.as_ref().map_or(1, |l| l.estimate * u64::from(*pct) / 100);
                let key = key.map(|k| format!("r{k}")).unwrap_or_default();
                let p = json!({"leaseId": id, "actualCostCents": actual,
                    "idempotencyKey": key, "outcome": "success"});
                match self.send(uid, "Release", &p.to_string())? {
                    Answer::Ok(v) => {
                        let class = v["classification"].as_str().unwrap_or("");
                        let visible = m.as_ref().is_some_and(|l| l.uid == uid);
                        if !visible && class != "leaseNotFound" {
                            return Err(format!("uid {uid} released {id} (not its own): {class}"));
                        }
                        // The day the governor settled in: its own, which only rolls forward
                        // (the clock may be behind it).
                        let day = self.state().meta.pools.budget_day;
                        if let Some(l) = self.model.leases.get_mut(&id)
                            && visible
                            && class != "leaseNotFound"
                            && l.released.is_none()
                        {
                            l.released = Some((actual, day));
                        }
                        // An expired lease is forgotten after the retention time.
                        if visible
                            && class == "leaseNotFound"
                            && m.as_ref().is_some_and(|l| {
                                l.released.is_none()
                                    && self.now < l.expires.max(l.acquired) + DAY_MS
                            })
                        {
                            return Err(format!("{id} (unreleased, own) answered leaseNotFound"));
                        }
                    }
                    Answer::Unknown => {
                        unknown = Some((uid, None));
                        if m.as_ref().is_some_and(|l| l.uid == uid) {
                            released = Some((id.clone(), actual));
                        }
                    }
                    Answer::Refused(e) => return Err(format!("Release refused: {e}")),
                }
            }
            Cmd::RequestApproval { uid, actor, ttl } => {
                let uid = UIDS[*uid as usize % 3];
                let p = json!({"actorId": format!("a{actor}"), "workspaceId": "w0",
                    "requestedBy": format!("a{actor}"), "toolId": "http.post",
                    "toolCategory": "networkWrite", "ttlSeconds": ttl, "reason": "sim"});
                match self.send(uid, "RequestApproval", &p.to_string())? {
                    Answer::Ok(v) => {
                        if *ttl < 30 {
                            return Err(format!("ttlSeconds {ttl} accepted"));
                        }
                        if let Some(id) = v["approvalId"].as_str().filter(|s| !s.is_empty()) {
                            self.model.approvals.push(id.to_string());
                        }
                    }
                    Answer::Refused(e) if *ttl < 30 && e.contains("ttlSeconds") => {}
                    Answer::Unknown => unknown = Some((uid, None)),
                    Answer::Refused(e) => return Err(format!("RequestApproval refused: {e}")),
                }
            }
            Cmd::Decide {
                uid,
                approval,
                reviewer,
                approve,
                kind,
            } => {
                let uid = UIDS[*uid as usize % 3];
                let id = pick(&self.model.approvals, *approval, "approval-junk");
                let who = format!("r{reviewer}");
                let (cmd, p) = match kind % 3 {
                    0 => (
                        "ReviewApproval",
                        json!({"approvalId": id, "reviewerId": who, "approve": approve}),
                    ),
                    1 => ("GrantApproval", json!({"approvalId": id, "grantedBy": who})),
                    _ => ("DenyApproval", json!({"approvalId": id, "deniedBy": who})),
                };
                match self.send(uid, cmd, &p.to_string())? {
                    Answer::Ok(v) => {
                        if let Some(t) = v["approvalToken"].as_str().filter(|s| !s.is_empty()) {
                            self.model.tokens.push(t.to_string());
                        }
                    }
                    Answer::Refused(e) if uid != 0 && e.starts_with("permission_denied") => {}
                    Answer::Unknown => unknown = Some((uid, None)),
                    Answer::Refused(e) => return Err(format!("{cmd} refused: {e}")),
                }
            }
            Cmd::SubLease {
                uid,
                lease,
                tool,
                calls,
                token,
            } => {
                let uid = UIDS[*uid as usize % 3];
                let id = pick(&self.model.order, *lease, "lease-junk");
                let (tool_id, cat) = [
                    ("fs.read", "fileRead"),
                    ("http.post", "networkWrite"),
                    ("nope.tool", "other"),
                ][*tool as usize % 3];
                let token = token
                    .map(|t| pick(&self.model.tokens, t, "appr-junk"))
                    .unwrap_or_default();
                let p = json!({"leaseId": id, "toolId": tool_id, "category": cat,
                    "requestedCalls": calls, "approvalToken": token});
                match self.send(uid, "RequestToolSubLease", &p.to_string())? {
                    Answer::Ok(v) => {
                        let foreign = self.model.leases.get(&id).is_none_or(|l| l.uid != uid);
                        if foreign && v["granted"] == json!(true) {
                            return Err(format!("uid {uid} got a sub-lease on {id}"));
                        }
                        if foreign && v["deniedReason"] != json!("lease_not_found") {
                            return Err(format!(
                                "a sub-lease on another uid's or an unknown lease {id}: {v}"
                            ));
                        }
                        if let Some(s) = v["toolSubLeaseId"].as_str().filter(|s| !s.is_empty()) {
                            self.model.subs.push(s.to_string());
                            if tool_id == "http.post" && !token.is_empty() {
                                if let Some(other) = self.model.token_use.get(&token) {
                                    return Err(format!(
                                        "a single-use approval token granted {other} and {s}"
                                    ));
                                }
                                self.model.token_use.insert(token.clone(), s.to_string());
                            }
                        }
                    }
                    Answer::Unknown => unknown = Some((uid, None)),
                    Answer::Refused(e) => return Err(format!("RequestToolSubLease refused: {e}")),
                }
            }
            Cmd::ToolCall {
                uid,
                lease,
                sub,
                tool,
                target,
            } => {
                let uid = UIDS[*uid as usize % 3];
                let id = pick(&self.model.order, *lease, "lease-junk");
                let sub = pick(&self.model.subs, *sub, "sub-junk");
                let (tool_id, cat) = [
                    ("fs.read", "fileRead"),
                    ("http.post", "networkWrite"),
                    ("nope.tool", "other"),
                ][*tool as usize % 3];
                let mut p = json!({"leaseId": id, "toolSubLeaseId": sub, "toolId": tool_id,
                    "category": cat, "commandText": "cat"});
                match target % 4 {
                    0 => p["targetPath"] = json!("/tmp/a"),
                    1 => p["targetPath"] = json!("/etc/passwd"),
                    2 => p["targetHost"] = json!("api.example.com"),
                    _ => p["targetPath"] = json!("/tmp/../etc/x"),
                }
                match self.send(uid, "ExecuteToolCall", &p.to_string())? {
                    Answer::Ok(v) => {
                        let foreign = self.model.leases.get(&id).is_none_or(|l| l.uid != uid);
                        if foreign && v["allowed"] == json!(true) {
                            return Err(format!("uid {uid} ran a tool call on {id}"));
                        }
                    }
                    Answer::Unknown => unknown = Some((uid, None)),
                    Answer::Refused(e) => return Err(format!("ExecuteToolCall refused: {e}")),
                }
            }
            Cmd::Authorize { uid, lease, target } => {
                let uid = UIDS[*uid as usize % 3];
                let id = pick(&self.model.order, *lease, "lease-junk");
                let (cap, t) = [
                    ("fs.read", "/tmp/a"),
                    ("fs.read", "/etc/passwd"),
                    ("net.fetch", "https://api.example.com/x"),
                    ("fs.write", "/tmp/a"),
                ][*target as usize % 4];
                let p = json!({"leaseId": id, "capability": cap, "target": t});
                match self.send(uid, "Authorize", &p.to_string())? {
                    Answer::Ok(v) => {
                        let foreign = self.model.leases.get(&id).is_none_or(|l| l.uid != uid);
                        if foreign
                            && (v["allowed"] == json!(true)
                                || v["deniedReason"] != json!("lease_not_found"))
                        {
                            return Err(format!(
                                "uid {uid} authorized on another uid's or an unknown lease {id}: {v}"
                            ));
                        }
                    }
                    Answer::Unknown => unknown = Some((uid, None)),
                    Answer::Refused(e) => return Err(format!("Authorize refused: {e}")),
                }
            }
            Cmd::Policy {
                uid,
                which,
                rollback,
            } => {
                let uid = UIDS[*uid as usize % 3];
                let version = VERSIONS[*which as usize % 3];
                let mut steps = Vec::new();
                if *rollback {
                    steps.push(("RollbackPolicy", json!({ "version": version })));
                } else {
                    let bundle = json!({"version": version,
                        "createdAtUtc": "2026-03-01T00:00:00Z", "author": "sim",
                        "policyContentJson": policy_json(*which).to_string()});
                    steps.push(("StagePolicyBundle", bundle));
                    steps.push(("ActivatePolicy", json!({ "version": version })));
                }
                for (cmd, p) in steps {
                    match self.send(uid, cmd, &p.to_string())? {
                        Answer::Ok(_) => {}
                        Answer::Refused(e) if uid != 0 && e.starts_with("permission_denied") => {
                            if self.state() != prev {
                                return Err(format!("a refused {cmd} changed the state"));
                            }
                        }
                        Answer::Unknown => unknown = Some((uid, None)),
                        Answer::Refused(e) => return Err(format!("{cmd} refused: {e}")),
                    }
                }
            }
            Cmd::Audit { uid, export, from } => {
                let uid = UIDS[*uid as usize % 3];
                let (cmd, p) = if *export {
                    ("ExportAudit", json!({"fromLine": u64::from(*from) + 1}))
                } else {
                    ("VerifyAudit", json!({}))
                };
                match self.send(uid, cmd, &p.to_string())? {
                    Answer::Ok(v) => {
                        let count = self.state().meta.audit.count;
                        if *export {
                            let n = v["records"].as_array().map_or(0, Vec::len) as u64;
                            let want = count.saturating_sub(u64::from(*from));
                            if n != want.min(10_000) {
                                return Err(format!(
                                    "ExportAudit from line {} answered {n} records of {count}",
                                    u64::from(*from) + 1
                                ));
                            }
                        } else if v["ok"] != json!(true) || v["records"] != json!(count) {
                            return Err(format!("VerifyAudit: {v} (count {count})"));
                        }
                    }
                    Answer::Refused(e) if uid != 0 && e.starts_with("permission_denied") => {}
                    Answer::Unknown => unknown = Some((uid, None)),
                    Answer::Refused(e) => return Err(format!("{cmd} refused: {e}")),
                }
            }
            Cmd::Query { uid, which } => {
                let uid = UIDS[*uid as usize % 3];
                let cmd = ["GetMetrics", "GetStatus", "ListPendingApprovals"][*which as usize % 3];
                match self.send(uid, cmd, "{}")? {
                    Answer::Ok(_) => {}
                    Answer::Unknown => unknown = Some((uid, None)),
                    Answer::Refused(e) if uid != 0 && e.starts_with("permission_denied") => {}
                    Answer::Refused(e) => return Err(format!("{cmd} refused: {e}")),
                }
            }
            Cmd::Hostile { uid, kind } => {
                let uid = UIDS[*uid as usize % 3];
                let (cmd, payload, field) = hostile(*kind);
                match self.send(uid, cmd, &payload)? {
                    Answer::Ok(v) => {
                        return Err(format!("hostile request {kind} ({cmd}) was answered: {v}"));
                    }
                    Answer::Unknown => {
                        return Err(format!(
                            "hostile request {kind} ({cmd}) answered store_unavailable"
                        ));
                    }
                    Answer::Refused(e) => {
                        let named = field.is_none_or(|f| e.contains(f))
                            || (uid != 0 && e.starts_with("permission_denied"));
                        if !named {
                            return Err(format!(
                                "hostile request {kind} ({cmd}): the error does not name {field:?}: {e}"
                            ));
                        }
                        if e.contains(&"x".repeat(64)) || e.contains(&"é".repeat(64)) {
                            return Err(format!("the error echoes the oversized value: {e}"));
                        }
                    }
                }
                if self.state() != prev {
                    return Err(format!("hostile request {kind} ({cmd}) changed the state"));
                }
            }
            Cmd::Clock { kind, ms } => {
                let ms = i64::from(*ms);
                self.now = match kind % 5 {
                    0 => self.now + 1 + ms % 3_000,
                    1 => self.now + TTL_MS + ms % 30_000,
                    2 => (self.today() + 1) * DAY_MS - 1 - ms % 2_000,
                    3 => self.now + 3_600_000 + ms % 7_200_000,
                    _ => self.now - 1 - ms % 3_000,
                };
                self.high = self.high.max(self.now);
                self.clock.set(Timestamp::from_unix_millis(self.now));
            }
            Cmd::Fault { kind } => {
                let (op, fault) = match FAULTS[*kind as usize % FAULTS.len()] {
                    "commit-error" => (StoreOp::Commit, Fault::Error),
                    "commit-error-after-commit" => (StoreOp::Commit, Fault::ErrorAfterCommit),
                    "commit-crash-before" => (StoreOp::Commit, Fault::CrashBefore),
                    "commit-crash-after" => (StoreOp::Commit, Fault::CrashAfter),
                    "commit-panic" => (StoreOp::Commit, Fault::Panic),
                    "commit-stall" => (StoreOp::Commit, Fault::Stall(Duration::from_millis(1))),
                    "load-error" => (StoreOp::Load, Fault::Error),
                    _ => (StoreOp::Commit, Fault::Unreachable),
                };
                // A fleet's governors write in batch transactions, not commits.
                let op = match (self.kind, op) {
                    (StoreKind::Postgres, StoreOp::Commit) => StoreOp::Transact,
                    _ => op,
                };
                self.node().faulty.inject_next(op, fault);
            }
            Cmd::Crash => self.reopen()?,
        }
        if self.node().faulty.crashed() {
            self.reopen()?;
        }
        if let Some((uid, key)) = unknown {
            self.settle()?;
            self.adopt(uid, key, released)?;
        }
        if self.nodes.len() > 1 {
            // A fleet: this governor's image catches up with what the other one committed.
            self.settle()?;
        }
        self.check(&prev, fresh_grant.as_deref())
    }

    /// After an answer whose outcome is unknown, a client asks again until the governor
    /// answers (its image is then rebuilt from the store; a crash is a restart).
    fn settle(&mut self) -> Check {
        for _ in 0..8 {
            let a = self.send(0, "GetStatus", "{}")?;
            if self.node().faulty.crashed() {
                self.reopen()?;
                continue;
            }
            match a {
                Answer::Ok(_) => return Ok(()),
                Answer::Unknown => continue,
                Answer::Refused(e) => return Err(format!("GetStatus refused: {e}")),
            }
        }
        Err("the governor keeps answering store_unavailable".into())
    }

    /// After an answer whose outcome is unknown: the state may hold its change (a lease, a
    /// release) or not; the model takes what the store kept.
    fn adopt(&mut self, uid: u32, key: Option<String>, released: Option<(String, u64)>) -> Check {
        let st = self.state();
        if let Some((id, actual)) = released
            && let Some(m) = self.model.leases.get_mut(&id)
            && m.released.is_none()
            && st
                .leases
                .get(&id)
                .is_none_or(|l| l.status == LeaseStatus::Released)
        {
            m.released = Some((actual, st.meta.pools.budget_day));
        }
        let mut adopted = 0;
        for (id, l) in &st.leases {
            if self.model.leases.contains_key(id) {
                continue;
            }
            let Some(key) = &key else {
                return Err(format!("{id} appeared after a command that grants nothing"));
            };
            adopted += 1;
            if adopted > 1 || l.owner_uid != Some(uid) || l.status != LeaseStatus::Live {
                return Err(format!("{id} appeared after an unknown outcome: {l:?}"));
            }
            self.model.leases.insert(
                id.clone(),
                MLease {
                    uid,
                    actor: l.request.actor_id.clone(),
                    day: l.day,
                    expires: l.expires_at,
                    acquired: self.now,
                    reserved: l.reserved,
                    estimate: l.request.estimated_cost_cents,
                    released: None,
                },
            );
            self.model.order.push(id.clone());
            if !key.is_empty() {
                let scoped = (
                    uid,
                    l.request.workspace_id.clone(),
                    l.request.actor_id.clone(),
                    key.clone(),
                );
                self.model.idem.insert(scoped, (id.clone(), self.now));
            }
        }
        Ok(())
    }

    /// The invariants of SEMANTICS 13.3-13.16 after a step.
    fn check(&mut self, _prev: &State, fresh_grant: Option<&str>) -> Check {
        let st = self.state();
        let pools = &st.meta.pools;
        let live: Vec<_> = st
            .leases
            .values()
            .filter(|l| l.status == LeaseStatus::Live)
            .collect();
        if pools.in_flight != live.len() as u64 {
            return Err(format!(
                "in-flight {} but {} live leases",
                pools.in_flight,
                live.len()
            ));
        }
        let compute: u64 = live.iter().map(|l| l.compute).sum();
        if pools.compute_used != compute {
            return Err(format!(
                "compute used {} but live leases hold {compute}",
                pools.compute_used
            ));
        }
        for (actor, n) in &st.meta.actor_in_flight {
            let held = live.iter().filter(|l| l.request.actor_id == *actor).count() as u64;
            if *n != held {
                return Err(format!(
                    "actor {actor} in-flight {n} but {held} live leases"
                ));
            }
        }
        let max = max_caps();
        if pools.in_flight > max.in_flight || pools.compute_used > max.compute {
            return Err(format!(
                "in-flight {} / compute {} over every capacity",
                pools.in_flight, pools.compute_used
            ));
        }
        if let Some(id) = fresh_grant {
            let caps = self.caps();
            let l = &self.model.leases[id];
            if pools.in_flight > caps.in_flight {
                return Err(format!(
                    "grant {id}: in-flight {} > {}",
                    pools.in_flight, caps.in_flight
                ));
            }
            if pools.compute_used > caps.compute {
                return Err(format!(
                    "grant {id}: compute {} > {}",
                    pools.compute_used, caps.compute
                ));
            }
            if pools.budget_used > caps.daily && l.reserved > 0 && l.day == pools.budget_day {
                return Err(format!(
                    "grant {id}: reserved + spent {} > budget {}",
                    pools.budget_used, caps.daily
                ));
            }
            let n = st.meta.actor_in_flight.get(&l.actor).copied().unwrap_or(0);
            if n > caps.per_actor {
                return Err(format!(
                    "grant {id}: actor {} in-flight {n} > {}",
                    l.actor, caps.per_actor
                ));
            }
            let lr = &st.leases[id];
            for (scope, cap) in [
                (format!("org:{}", lr.request.org_id), caps.org),
                (format!("ws:{}", lr.request.workspace_id), caps.ws),
                (format!("actor:{}", lr.request.actor_id), caps.actor),
            ] {
                if let (Some(c), Some(cap)) = (st.meta.scoped.get(&scope), cap)
                    && c.day == lr.day
                    && c.used > cap
                    && lr.reserved > 0
                {
                    return Err(format!("grant {id}: scoped {scope} {} > {cap}", c.used));
                }
            }
        }
        // Nothing counted twice, nothing lost: the day's spend is the model's.
        let day = pools.budget_day;
        let spend: u64 = self
            .model
            .leases
            .values()
            .filter(|l| l.day == day)
            .map(|l| match l.released {
                Some((actual, rel_day)) if rel_day == l.day => actual,
                _ => l.reserved,
            })
            .sum();
        if pools.budget_used != spend {
            return Err(format!(
                "spend of day {day}: the state says {}, the answers add up to {spend}",
                pools.budget_used
            ));
        }
        // Every answered change is in the state; nothing else is.
        for (id, m) in &self.model.leases {
            let Some(l) = st.leases.get(id) else {
                // A release without a key leaves nothing to replay; tombstones go after the
                // retention time.
                if m.released.is_some() || self.now >= m.expires.max(m.acquired) + DAY_MS {
                    continue;
                }
                return Err(format!("answered lease {id} is gone ({m:?})"));
            };
            if l.owner_uid != Some(m.uid) {
                return Err(format!(
                    "{id} belongs to {:?}, answered to {}",
                    l.owner_uid, m.uid
                ));
            }
            match (m.released, l.status) {
                (Some(_), LeaseStatus::Released) => {}
                (Some(_), s) => return Err(format!("released lease {id} is {s:?}")),
                (None, LeaseStatus::Released) => {
                    return Err(format!("{id} is released but no release was answered"));
                }
                (None, LeaseStatus::Expired) if self.high < m.expires => {
                    return Err(format!("{id} expired before its time"));
                }
                (None, _) => {}
            }
        }
        for id in st.leases.keys() {
            if !self.model.leases.contains_key(id) {
                return Err(format!("lease {id} was never answered"));
            }
        }
        self.check_audit_head()?;
        if self.step.is_multiple_of(25) {
            self.check_audit_full("periodic")?;
        }
        Ok(())
    }

    /// The store's last audit line and line count are the state's head and count.
    fn check_audit_head(&self) -> Check {
        let st = self.state();
        let count = st.meta.audit.count;
        let all = self
            .node()
            .inner
            .read_audit(count.max(1), u64::MAX)
            .map_err(|e| format!("reading the audit chain: {e}"))?;
        let expect = usize::from(count > 0);
        if all.len() != expect {
            return Err(format!(
                "the store holds {} lines from line {} (state count {count})",
                all.len(),
                count.max(1)
            ));
        }
        if let Some(last) = all.first() {
            let v: Value = serde_json::from_str(last).map_err(|e| e.to_string())?;
            if v["entryHash"] != json!(st.meta.audit.head) {
                return Err("the store's last entryHash is not the state's head".into());
            }
        }
        Ok(())
    }

    /// The whole chain verifies, and ends at the state's head and count.
    pub fn check_audit_full(&self, when: &str) -> Check {
        let st = self.state();
        let lines = self
            .node()
            .inner
            .read_audit(1, u64::MAX)
            .map_err(|e| format!("reading the audit chain: {e}"))?;
        let v = verify_audit(lines.iter().map(String::as_str));
        if !v.ok {
            return Err(format!(
                "{when}: the audit chain does not verify: {}",
                v.message
            ));
        }
        if v.records != st.meta.audit.count {
            return Err(format!(
                "{when}: {} audit records, the state counts {}",
                v.records, st.meta.audit.count
            ));
        }
        self.check_audit_head()
    }

    /// The end of a run: the chain verifies through the governor too (its recorded head).
    pub fn finish(&mut self) -> Check {
        self.node().faulty.clear();
        if self.node().faulty.crashed() {
            self.reopen()?;
        }
        self.settle()?;
        self.check_audit_full("at the end")?;
        let v = self
            .gov()
            .verify_audit()
            .map_err(|e| format!("VerifyAudit failed: {e}"))?;
        if !v.ok {
            return Err(format!("VerifyAudit at the end: {}", v.message));
        }
        Ok(())
    }
}

/// An answer, classified.
enum Answer {
    /// `success: true` and its payload.
    Ok(Value),
    /// `store_unavailable` after a fault: the outcome is unknown.
    Unknown,
    /// Any other `success: false`.
    Refused(String),
}

impl Answer {
    fn of(cmd: &str, env: ResponseEnvelope, faulted: bool) -> Result<Answer, String> {
        if env.success {
            let v: Value = serde_json::from_str(&env.payload_json)
                .map_err(|e| format!("{cmd}: the payload is not JSON: {e}"))?;
            if !v.is_object() || !env.error.is_empty() {
                return Err(format!("{cmd}: a malformed answer: {env:?}"));
            }
            return Ok(Answer::Ok(v));
        }
        if env.error.is_empty() || !env.payload_json.is_empty() {
            return Err(format!("{cmd}: a malformed failure: {env:?}"));
        }
        if env.error.contains("store_unavailable") {
            if !faulted {
                return Err(format!(
                    "{cmd}: store_unavailable without a fault: {}",
                    env.error
                ));
            }
            return Ok(Answer::Unknown);
        }
        Ok(Answer::Refused(env.error))
    }
}

/// A hostile request: command, payload, the field its error must name.
fn hostile(kind: u8) -> (&'static str, String, Option<&'static str>) {
    let long = "x".repeat(300);
    let acq = |extra: Value| {
        let mut p = json!({"actorId": "a0", "workspaceId": "w0", "estimatedCostCents": 1});
        for (k, v) in extra.as_object().expect("object") {
            p[k] = v.clone();
        }
        p.to_string()
    };
    match kind % 12 {
        0 => ("Acquire", acq(json!({ "actorId": long })), Some("actorId")),
        1 => (
            "Acquire",
            acq(json!({"idempotencyKey": "x".repeat(257)})),
            Some("idempotencyKey"),
        ),
        2 => (
            "Release",
            json!({ "leaseId": long }).to_string(),
            Some("leaseId"),
        ),
        3 => (
            "RequestApproval",
            json!({"actorId": "a0", "workspaceId": "w0", "requestedBy": "a0",
                "reason": "x".repeat(5000), "ttlSeconds": 60})
            .to_string(),
            Some("reason"),
        ),
        4 => {
            let tools: Vec<Value> = (0..1025)
                .map(|i| json!({"toolId": format!("t{i}"), "category": "other"}))
                .collect();
            (
                "Acquire",
                acq(json!({ "requestedTools": tools })),
                Some("requestedTools"),
            )
        }
        5 => ("Acquire", "not json".into(), None),
        6 => ("Frobnicate", "{}".into(), Some("unknown_command")),
        7 => ("Acquire", acq(json!({"estimatedCostCents": -1})), None),
        8 => (
            "Acquire",
            acq(json!({"estimatedCostCents": u64::MAX})),
            None,
        ),
        9 => (
            "ExecuteToolCall",
            json!({"leaseId": "lease-1", "toolSubLeaseId": "sub-1", "toolId": "fs.read",
                "commandText": "x".repeat(5000)})
            .to_string(),
            Some("commandText"),
        ),
        10 => (
            "ReviewApproval",
            json!({"approvalId": "approval-1", "reviewerId": long, "approve": true}).to_string(),
            Some("reviewerId"),
        ),
        _ => (
            "Acquire",
            acq(json!({"workspaceId": "é".repeat(150)})),
            Some("workspaceId"),
        ),
    }
}
