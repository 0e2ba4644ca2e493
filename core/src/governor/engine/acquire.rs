//! `Acquire` in the check order of SEMANTICS 13.3. Steps 0-17 only read state (apart from
//! the safety counters and deny metrics); step 18 makes every reservation at once, so a
//! denial at any step leaves every pool, counter and token exactly as it was.

use serde_json::Value;

use super::Engine;
use super::keys::composite;
use super::safety::Counter;
use super::state::{DayCounter, IdemRec, LeaseRec, LeaseStatus, RateEvent};
use super::{ct_eq, sha256_hex};
use crate::governor::wire::{
    AcquireRequest, AcquireResponse, ContextSummaryTrace, FallbackPlanStep, LeaseConstraintsWire,
    LeaseLocality, LeaseReductionWire, NO_EXPIRY, PrincipalType, Role, ToolIntent,
};
use crate::{Lease, narrow_lease};

/// A denial in the making.
struct Deny {
    reason: String,
    retry: Option<u64>,
    recommendation: String,
    plan: bool,
}

/// The code of a denial reason: the part before the first `:` (`tool_not_registered` of
/// `tool_not_registered:<toolId>`).
pub(crate) fn reason_code(reason: &str) -> &str {
    reason.split_once(':').map_or(reason, |(code, _)| code)
}

fn deny(reason: impl Into<String>, retry: Option<u64>, rec: &str, plan: bool) -> Deny {
    Deny {
        reason: reason.into(),
        retry,
        recommendation: rec.to_string(),
        plan,
    }
}

fn eq_ic(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

fn contains_ic(list: &[String], s: &str) -> bool {
    list.iter().any(|x| eq_ic(x, s))
}

/// Fingerprint of a request after defaults, ignoring `approvalToken` and `idempotencyKey`.
fn fingerprint(req: &AcquireRequest) -> String {
    let mut r = req.clone();
    r.approval_token.clear();
    r.idempotency_key.clear();
    if !r.auth_token.is_empty() {
        r.auth_token = sha256_hex(&r.auth_token);
    }
    if let Some(l) = &r.requested_lease {
        r.requested_lease = Some(Value::from(
            serde_json_canonicalizer::to_string(l).unwrap_or_default(),
        ));
    }
    sha256_hex(&serde_json::to_string(&r).unwrap_or_default())
}

/// What a grant reserves and carries, built by steps 10-17.
#[derive(Default)]
struct Plan {
    approval: Option<String>,
    breaker_approval: Option<String>,
    constraints: LeaseConstraintsWire,
    recommendation: String,
    fallback: Vec<FallbackPlanStep>,
    summaries: Vec<ContextSummaryTrace>,
    reserve: u64,
    effective: Option<Value>,
    reductions: Option<Vec<LeaseReductionWire>>,
}

impl Engine {
    /// `Acquire`.
    pub fn acquire(&mut self, mut req: AcquireRequest) -> AcquireResponse {
        // 1. Blank org.
        if req.org_id.trim().is_empty() {
            req.org_id = "default-org".to_string();
        }
        // 1a. Identity (13.16): with `uidBindings`, a peer names only ids bound to its uid.
        // Before the replay, so a uid unbound since its grant gets no replay either.
        if let Some(d) = self.binding_denial(&req) {
            let role = req.role;
            return self.deny_response(&req, role, d);
        }
        // The idempotency scope: the caller's uid with (org, workspace, actor) (13.5, 13.16).
        let scope = self.scope();
        let scoped = (!req.idempotency_key.is_empty()).then(|| {
            composite(
                scope,
                &[
                    &req.org_id,
                    &req.workspace_id,
                    &req.actor_id,
                    &req.idempotency_key,
                ],
            )
        });
        let fp = scoped.as_ref().map(|_| fingerprint(&req));
        // 2. Idempotent replay, before any other check.
        if let Some(key) = &scoped {
            let retention = self.settings.idempotency_retention_ms as i64;
            let stored = self
                .st
                .idem
                .get(key)
                .filter(|r| self.now - r.stored_at < retention)
                .map(|r| (r.fingerprint.clone(), r.response.clone()));
            if let Some((stored_fp, response)) = stored {
                self.count_retry(key, &req.actor_id);
                if Some(&stored_fp) == fp.as_ref() {
                    return response;
                }
                let role = req.role;
                return self.deny_response(
                    &req,
                    role,
                    deny(
                        "idempotency_key_conflict",
                        None,
                        "use a new idempotencyKey for a different request",
                        false,
                    ),
                );
            }
        }
        let mut plan = Plan::default();
        // 3. Workspace circuit breaker: only a valid approval token passes it.
        if self.breaker_open(scope, &req.workspace_id) {
            match self.valid_approval(
                &req.approval_token,
                &req.actor_id,
                &req.workspace_id,
                &req.requested_tools,
                false,
            ) {
                Some(id) => plan.breaker_approval = Some(id),
                None => {
                    let retry = self.settings.safety_cooldown_ms;
                    let role = req.role;
                    return self.deny_response(
                        &req,
                        role,
                        deny("workspace_circuit_breaker", Some(retry), "workspace paused by safety automation; retry later or present an approval", true),
                    );
                }
            }
        }
        // 4. Actor cooldown.
        if let Some(left) = self.cooldown_left(scope, &req.actor_id) {
            let role = req.role;
            return self.deny_response(
                &req,
                role,
                deny(
                    "actor_cooldown_active",
                    Some(left.max(250)),
                    "actor is cooling down; retry later",
                    true,
                ),
            );
        }
        // 5. Retry-storm counter.
        if let Some(key) = &scoped {
            self.count_retry(key, &req.actor_id);
        }
        // 6. Output clamp.
        if let Some(c) = self.clamp_of(scope, &req.actor_id) {
            req.max_output_tokens = req.max_output_tokens.min(c.min(u32::MAX as u64) as u32);
        }
        // 7. Principal.
        let declared_actor = self
            .policy
            .doc()
            .uid_bindings
            .is_some()
            .then(|| req.actor_id.clone());
        let role = match self.principal(&mut req) {
            Ok(r) => r,
            Err(d) => {
                let role = req.role;
                return self.deny_response(&req, role, d);
            }
        };
        // A service account named the actor: that name must be bound too.
        if declared_actor.is_some_and(|a| a != req.actor_id)
            && let Some(d) = self.binding_denial(&req)
        {
            return self.deny_response(&req, role, d);
        }
        // 8. Tool registry.
        if let Err(d) = self.check_registry(&req.requested_tools) {
            return self.deny_response(&req, role, d);
        }
        // ARCP lease (right after step 8).
        if let Some(v) = &req.requested_lease {
            match Lease::from_value(v).and_then(|l| {
                let ceiling = self
                    .policy
                    .ceiling_for(role)
                    .cloned()
                    .unwrap_or_else(|| l.clone());
                narrow_lease(&l, &ceiling)
            }) {
                Ok(n) => {
                    plan.effective = Some(n.lease.to_value());
                    plan.reductions = Some(
                        n.reductions
                            .into_iter()
                            .map(|r| LeaseReductionWire {
                                capability: r.capability,
                                pattern: r.pattern,
                                action: r.action,
                                replacement: r.replacement,
                            })
                            .collect(),
                    );
                }
                Err(_) => {
                    return self.deny_response(
                        &req,
                        role,
                        deny(
                            "invalid_requested_lease",
                            None,
                            "send a valid ARCP lease",
                            false,
                        ),
                    );
                }
            }
        }
        // 9. Policy rules.
        if let Err(d) = self.policy_rules(&req, role) {
            if self.count_event(
                Counter::Denies,
                &composite(scope, &[&req.workspace_id]),
                self.settings.policy_deny_circuit_breaker_threshold,
            ) {
                let ws = req.workspace_id.clone();
                self.trip_breaker(scope, &ws, "repeated_policy_denials");
            }
            return self.deny_response(&req, role, d);
        }
        // 10. Approval: validated here, consumed only by a grant.
        let cats = &self.policy.doc().approval_required_tool_categories;
        if req
            .requested_tools
            .iter()
            .any(|t| cats.contains(&t.category))
        {
            match self.valid_approval(
                &req.approval_token,
                &req.actor_id,
                &req.workspace_id,
                &req.requested_tools,
                true,
            ) {
                Some(id) => plan.approval = Some(id),
                None => {
                    return self.deny_response(
                        &req,
                        role,
                        deny("approval_required", Some(0), "request approval and include approval token scoped to actor/workspace/tool", false),
                    );
                }
            }
        }
        // 11-17.
        if let Err(d) = self.capacity_steps(&req, role, &mut plan) {
            return self.deny_response(&req, role, d);
        }
        // 18. Grant: all reservations together, only if the audit record can be written.
        if !self.audit_ok {
            return self.deny_response(
                &req,
                role,
                deny(
                    "audit_unavailable",
                    Some(1000),
                    "the audit log cannot be written; retry later",
                    false,
                ),
            );
        }
        self.grant(req, role, plan, scoped, fp)
    }

    /// The `identity_not_bound` denial of a daemon peer naming an id that the policy's
    /// `uidBindings` does not bind to its uid. In process (no uid) nothing is checked: the
    /// host that embeds the governor is trusted as in 13.14.
    fn binding_denial(&self, req: &AcquireRequest) -> Option<Deny> {
        let bindings = self.policy.doc().uid_bindings.as_ref()?;
        let uid = self.caller?;
        let bound = bindings
            .get(&uid.to_string())
            .is_some_and(|b| b.covers(&req.org_id, &req.workspace_id, &req.actor_id));
        (!bound).then(|| {
            deny(
                "identity_not_bound",
                None,
                "name only the org, workspace and actor ids the policy's uidBindings binds to your uid",
                false,
            )
        })
    }

    fn count_retry(&mut self, key: &str, actor: &str) {
        if self.count_event(Counter::Retry, key, self.settings.retry_threshold_per_lease) {
            let scope = self.scope();
            self.start_cooldown(scope, actor, "retry_storm");
        }
    }

    /// Step 7. Returns the effective role.
    fn principal(&self, req: &mut AcquireRequest) -> Result<Role, Deny> {
        let doc = self.policy.doc();
        if req.principal_type == PrincipalType::Service {
            let hash = sha256_hex(&req.auth_token);
            let account = doc.service_accounts.iter().find(|a| {
                !req.auth_token.is_empty()
                    && ct_eq(&a.token_hash.to_ascii_lowercase(), &hash)
                    && eq_ic(&a.org_id, &req.org_id)
                    && eq_ic(&a.workspace_id, &req.workspace_id)
            });
            let Some(a) = account else {
                return Err(deny(
                    "service_account_unauthorized",
                    None,
                    "supply a valid service account token scoped to org/workspace",
                    false,
                ));
            };
            if req.actor_id.trim().is_empty() {
                req.actor_id = a.name.clone();
            }
            if !a.allowed_capabilities.is_empty()
                && req
                    .requested_capabilities
                    .iter()
                    .any(|c| !contains_ic(&a.allowed_capabilities, c))
            {
                return Err(deny(
                    "service_account_capability_denied",
                    None,
                    "reduce requested capabilities or widen service account scope",
                    false,
                ));
            }
            if !a.allowed_models.is_empty() && !contains_ic(&a.allowed_models, &req.model_id) {
                return Err(deny(
                    "service_account_model_denied",
                    None,
                    "select a model allowed for this service account",
                    false,
                ));
            }
            if !a.allowed_tools.is_empty()
                && req
                    .requested_tools
                    .iter()
                    .any(|t| !contains_ic(&a.allowed_tools, &t.tool_id))
            {
                return Err(deny(
                    "service_account_tool_denied",
                    None,
                    "request an allowed tool or update service account scope",
                    false,
                ));
            }
            return Ok(a.role);
        }
        if !doc.actor_roles.is_empty() {
            return Ok(doc
                .actor_roles
                .get(&req.actor_id)
                .copied()
                .unwrap_or(Role::Member));
        }
        Ok(req.role)
    }

    fn check_registry(&self, tools: &[ToolIntent]) -> Result<(), Deny> {
        let reg = &self.policy.compiled().registry;
        for t in tools {
            match reg.get(&t.tool_id.to_ascii_lowercase()) {
                Some(c) if *c == t.category => {}
                Some(_) => {
                    return Err(deny(
                        format!("tool_category_mismatch:{}", t.tool_id),
                        None,
                        "fix requested tool category",
                        false,
                    ));
                }
                None => {
                    return Err(deny(
                        format!("tool_not_registered:{}", t.tool_id),
                        None,
                        "register tool before use",
                        false,
                    ));
                }
            }
        }
        Ok(())
    }

    /// Step 9: rules 9.1-9.9, then `cedarPolicies`.
    fn policy_rules(&self, req: &AcquireRequest, role: Role) -> Result<(), Deny> {
        let doc = self.policy.doc();
        let p = |r: &str, rec: &str| Err(deny(r, None, rec, false));
        if let Some(tier) = doc
            .intent_model_tiers
            .iter()
            .find(|(k, _)| eq_ic(k, req.intent_class.as_str()))
            .map(|(_, v)| v)
            && !tier.is_empty()
            && !contains_ic(tier, &req.model_id)
        {
            return p(
                "intent_model_not_allowed",
                "use a model of the intent's tier",
            );
        }
        if let Some(max) = doc
            .intent_max_cost_cents
            .iter()
            .find(|(k, _)| eq_ic(k, req.intent_class.as_str()))
            .map(|(_, v)| *v)
            && max > 0
            && req.estimated_cost_cents > max as u64
        {
            return p(
                "intent_cost_exceeded",
                "reduce the estimated cost for this intent",
            );
        }
        if let Some(list) = doc.allowed_models_by_workspace.get(&req.workspace_id)
            && !list.is_empty()
            && !contains_ic(list, &req.model_id)
        {
            return p(
                "workspace_model_not_allowed",
                "use a model allowed in this workspace",
            );
        }
        if !doc.allowed_models.is_empty() && !contains_ic(&doc.allowed_models, &req.model_id) {
            return p("model_not_allowed", "use an allowed model");
        }
        let action = req.action_type.as_str();
        let by_role = doc
            .allowed_capabilities_by_role
            .iter()
            .find(|(k, _)| eq_ic(k, role.as_str()))
            .and_then(|(_, m)| m.iter().find(|(k, _)| eq_ic(k, action)).map(|(_, v)| v))
            .filter(|v| !v.is_empty());
        if let Some(allowed) = by_role {
            if req
                .requested_capabilities
                .iter()
                .any(|c| !contains_ic(allowed, c))
            {
                return p(
                    "capability_not_allowed_for_role",
                    "request capabilities allowed for this role",
                );
            }
        } else if let Some(allowed) = doc
            .allowed_capabilities
            .iter()
            .find(|(k, _)| eq_ic(k, action))
            .map(|(_, v)| v)
            .filter(|v| !v.is_empty())
            && req
                .requested_capabilities
                .iter()
                .any(|c| !contains_ic(allowed, c))
        {
            return p("capability_not_allowed", "request allowed capabilities");
        }
        if req
            .risk_flags
            .iter()
            .any(|f| contains_ic(&doc.risk_requires_approval, f))
        {
            return p(
                "risk_requires_approval",
                "remove the risk or change the policy",
            );
        }
        if let Some(t) = req
            .requested_tools
            .iter()
            .find(|t| doc.denied_tool_categories.contains(&t.category))
        {
            return Err(deny(
                format!("tool_category_denied:{}", t.category.pascal()),
                None,
                "use a tool of an allowed category",
                false,
            ));
        }
        for t in &req.requested_tools {
            if contains_ic(&doc.denied_tools, &t.tool_id) {
                return Err(deny(
                    format!("tool_not_allowed:{}", t.tool_id),
                    None,
                    "the policy denies this tool",
                    false,
                ));
            }
        }
        let aw = format!("{}|{}", req.actor_id, req.workspace_id);
        if let Some(list) = doc
            .allowed_tools_by_actor_workspace
            .iter()
            .find(|(k, _)| eq_ic(k, &aw))
            .map(|(_, v)| v)
            && let Some(t) = req
                .requested_tools
                .iter()
                .find(|t| !list.is_empty() && !contains_ic(list, &t.tool_id))
        {
            return Err(deny(
                format!("tool_not_allowed:{}", t.tool_id),
                None,
                "request a tool allowed for this actor",
                false,
            ));
        }
        let wr = format!("{}|{}", req.workspace_id, role.pascal());
        if let Some(list) = doc
            .allowed_tools_by_workspace_role
            .iter()
            .find(|(k, _)| eq_ic(k, &wr))
            .map(|(_, v)| v)
            && let Some(t) = req
                .requested_tools
                .iter()
                .find(|t| !list.is_empty() && !contains_ic(list, &t.tool_id))
        {
            return Err(deny(
                format!("tool_not_allowed_for_role:{}", t.tool_id),
                None,
                "request a tool allowed for this role",
                false,
            ));
        }
        if let Some(cedar) = &self.policy.compiled().cedar {
            let principal = doc.agent_name.as_deref().unwrap_or(&req.actor_id);
            if let Some(t) = req
                .requested_tools
                .iter()
                .find(|t| !cedar.allows(principal, &t.tool_id))
            {
                return Err(deny(
                    format!("tool_not_allowed:{}", t.tool_id),
                    None,
                    "the policy's Cedar rules deny this tool",
                    false,
                ));
            }
        }
        Ok(())
    }

    /// A valid approval token for the actor and workspace (SEMANTICS 13.16): granted, not
    /// expired nor used up, and its distinct approving reviewers reach, under the active
    /// policy, its own quorum and the quorum of every tool in `tools`. With `scoped`, its tool
    /// and its category, when it names them, must be those of every tool (the breaker bypass
    /// ignores the scope, 13.15). Its approval id.
    pub(crate) fn valid_approval(
        &self,
        token: &str,
        actor: &str,
        ws: &str,
        tools: &[ToolIntent],
        scoped: bool,
    ) -> Option<String> {
        if token.is_empty() {
            return None;
        }
        let hash = sha256_hex(token);
        let a = self
            .approval_index
            .tokens
            .get(&hash)
            .and_then(|id| self.st.approvals.get(id))?;
        let quorum = tools
            .iter()
            .map(|t| {
                let listed = self
                    .registry_category(&t.tool_id)
                    .map_or(1, |c| self.quorum(c));
                listed.max(self.quorum(t.category))
            })
            .fold(self.scope_quorum(&a.request), u32::max);
        let in_scope = |t: &ToolIntent| {
            (a.request.tool_id.is_empty() || eq_ic(&t.tool_id, &a.request.tool_id))
                && a.request.tool_category.is_none_or(|c| c == t.category)
        };
        let ok = a.status == crate::governor::wire::ApprovalDecisionStatus::Granted
            && ct_eq(&a.token_hash, &hash)
            && self.now < a.expires_at
            && eq_ic(&a.request.actor_id, actor)
            && eq_ic(&a.request.workspace_id, ws)
            && !(a.request.single_use && a.used)
            && super::approvals::approvals_of(a) >= quorum
            && (!scoped || tools.iter().all(in_scope));
        ok.then(|| a.id.clone())
    }

    fn scope_used(&self, key: &str) -> u64 {
        self.st
            .meta
            .scoped
            .get(key)
            .filter(|c| c.day >= self.today())
            .map_or(0, |c| c.used)
    }

    /// Steps 11-17.
    fn capacity_steps(
        &mut self,
        req: &AcquireRequest,
        role: Role,
        plan: &mut Plan,
    ) -> Result<(), Deny> {
        let doc = self.policy.doc();
        let s = self.settings;
        let now = self.now;
        let est = req.estimated_cost_cents;
        // 11. Scoped quotas.
        for (limit, prefix, id, reason) in [
            (
                &doc.org_daily_budget_cents,
                "org:",
                &req.org_id,
                "org_exhausted",
            ),
            (
                &doc.workspace_daily_budget_cents,
                "ws:",
                &req.workspace_id,
                "workspace_exhausted",
            ),
            (
                &doc.actor_daily_budget_cents,
                "actor:",
                &req.actor_id,
                "actor_exhausted",
            ),
        ] {
            // The scope key and the refill text are built only when a limit applies.
            if let Some(limit) = limit.as_ref().and_then(|l| l.for_id(id))
                && exceeds(&[self.scope_used(&format!("{prefix}{id}")), est], limit)
            {
                let refill = format!("next refill at {}", self.next_midnight_iso());
                let to_midnight = self.ms_to_midnight().max(250);
                return Err(deny(reason, Some(to_midnight), &refill, false));
            }
        }
        let per_actor = doc
            .role_max_in_flight_overrides
            .iter()
            .find(|(k, _)| eq_ic(k, role.as_str()))
            .map(|(_, v)| (*v).max(0) as u64)
            .or(doc
                .max_in_flight_per_actor
                .as_ref()
                .and_then(|l| l.for_id(&req.actor_id)));
        if let Some(limit) = per_actor {
            let used = self
                .st
                .meta
                .actor_in_flight
                .get(&req.actor_id)
                .copied()
                .unwrap_or(0);
            if used >= limit {
                return Err(deny(
                    "actor_throttled",
                    Some(1000),
                    "too many leases in flight for this actor",
                    false,
                ));
            }
        }
        let window = s.rate_window_ms as i64;
        let live = |e: &&RateEvent| now.saturating_sub(e.at) < window;
        for (limit, reason, pick) in [
            (&doc.org_max_requests_per_minute, "org_rate_limited", 0u8),
            (
                &doc.workspace_max_requests_per_minute,
                "workspace_rate_limited",
                1,
            ),
            (&doc.actor_max_requests_per_minute, "actor_rate_limited", 2),
        ] {
            let id = match pick {
                0 => &req.org_id,
                1 => &req.workspace_id,
                _ => &req.actor_id,
            };
            let Some(limit) = limit.as_ref().and_then(|l| l.for_id(id)) else {
                continue;
            };
            let mut events = self.st.rate.iter().filter(live).filter(|e| match pick {
                0 => e.org == req.org_id,
                1 => e.ws == req.workspace_id,
                _ => e.actor == req.actor_id,
            });
            let oldest = events.clone().next().map(|e| e.at);
            if events.by_ref().count() as u64 >= limit {
                let retry = oldest.map_or(1000, |t| retry_after(t, window, now));
                return Err(deny(
                    reason,
                    Some(retry),
                    "backoff and retry with lower throughput",
                    false,
                ));
            }
        }
        // 12. Concurrency.
        if self.st.meta.pools.in_flight >= s.max_in_flight {
            return Err(deny(
                "concurrency_limit_reached",
                Some(500),
                "retry after active leases complete",
                false,
            ));
        }
        // 13. Compute.
        let units = u64::from(req.estimated_compute_units.max(1));
        if exceeds(
            &[self.st.meta.pools.compute_used, units],
            s.max_compute_units,
        ) {
            return Err(deny(
                "compute_capacity_reached",
                Some(300),
                "retry or reduce compute requirement",
                false,
            ));
        }
        // 14. Rate.
        let cost = u64::from(req.estimated_prompt_tokens) + u64::from(req.max_output_tokens);
        // begin() pruned the window: every event left is live.
        let (count, tokens, oldest) = (
            self.st.rate.len() as u64,
            self.rate_tokens,
            self.st.rate.front().map(|e| e.at),
        );
        if count >= s.max_requests_per_minute || exceeds(&[tokens, cost], s.max_tokens_per_minute) {
            let retry = oldest.map_or(1000, |t| retry_after(t, window, now));
            return Err(deny(
                "rate_limit_reached",
                Some(retry),
                "backoff and retry with lower throughput",
                true,
            ));
        }
        // Constraints of a plain grant.
        plan.constraints = LeaseConstraintsWire {
            max_output_tokens_override: Some(
                (u64::from(req.max_output_tokens).min(s.max_tool_output_tokens)) as u32,
            ),
            forced_model_id: String::new(),
            max_tool_calls: Some(s.max_tool_calls_per_lease.min(u32::MAX as u64) as u32),
            max_context_tokens: Some(
                s.max_context_tokens
                    .min(u64::from(req.requested_context_tokens)) as u32,
            ),
            cooldown_ms: None,
        };
        let halved = (req.max_output_tokens / 2).max(32);
        // 15. Context.
        if s.max_context_tokens > 0 {
            self.st.meta.metrics.last_context_utilization =
                f64::from(req.requested_context_tokens) / s.max_context_tokens as f64;
        }
        let context_reason = if u64::from(req.requested_context_tokens) > s.max_context_tokens {
            Some("context_prompt_tokens_exceeded")
        } else if u64::from(req.requested_retrieved_chunks) > s.max_retrieved_chunks {
            Some("context_retrieved_chunks_exceeded")
        } else if u64::from(req.estimated_tool_output_tokens) > s.max_tool_output_tokens {
            Some("tool_output_tokens_exceeded")
        } else {
            None
        };
        if let Some(reason) = context_reason {
            if !req.auto_apply_constraints {
                return Err(deny(
                    reason,
                    Some(200),
                    "reduce context tokens or chunks",
                    true,
                ));
            }
            plan.constraints.max_output_tokens_override = Some(halved);
            plan.constraints.cooldown_ms = Some(250);
            plan.recommendation = "context_auto_compression_applied".into();
            plan.fallback = self.fallback_plan(req, reason, Some(250));
        }
        // 16. Retrieval (chunks are checked once, at the context step).
        let retrieval_reason = if req.requested_retrieved_bytes > s.max_retrieved_bytes {
            Some("retrieval_bytes_exceeded")
        } else if u64::from(req.requested_retrieved_tokens) > s.max_retrieved_tokens {
            Some("retrieval_tokens_exceeded")
        } else {
            None
        };
        let mut cent = 0;
        if let Some(reason) = retrieval_reason {
            if !req.auto_apply_constraints {
                return Err(deny(
                    reason,
                    Some(250),
                    "reduce retrieved bytes or tokens",
                    true,
                ));
            }
            plan.constraints.cooldown_ms = Some(250);
            plan.constraints.max_context_tokens =
                Some(s.max_context_tokens.min(s.summarization_target_tokens) as u32);
            plan.recommendation = "retrieval_auto_compression_applied".into();
            plan.fallback = self.fallback_plan(req, reason, Some(250));
            let target = s.summarization_target_tokens.max(64);
            plan.summaries = req
                .context_contributions
                .iter()
                .filter(|c| u64::from(c.tokens) > target)
                .map(|c| ContextSummaryTrace {
                    source_id: c.source_id.clone(),
                    original_tokens: c.tokens,
                    summarized_tokens: target as u32,
                    policy_rule: "summarization_target_tokens".into(),
                })
                .collect();
            if !plan.summaries.is_empty() {
                if exceeds(&[self.st.meta.pools.budget_used, 1], s.daily_budget_cents) {
                    return Err(deny(
                        "summarization_budget_unavailable",
                        Some(500),
                        "summarization needs 1 cent of budget",
                        true,
                    ));
                }
                cent = 1;
            }
        }
        // 17. Daily budget.
        let used = self.st.meta.pools.budget_used;
        let to_midnight = self.ms_to_midnight().max(1000);
        if exceeds(&[used, est, cent], s.daily_budget_cents) {
            let reduced = (est / 2).max(1);
            if req.auto_apply_constraints && !exceeds(&[used, reduced, cent], s.daily_budget_cents)
            {
                plan.constraints.max_output_tokens_override = Some(halved);
                if let Some(first) = self
                    .intent_tier(req.intent_class.as_str())
                    .and_then(|t| t.first())
                {
                    plan.constraints.forced_model_id = first.clone();
                }
                plan.recommendation = "budget_auto_downgrade_applied".into();
                plan.fallback = self.fallback_plan(req, "daily_budget_exceeded", Some(to_midnight));
                plan.reserve = reduced + cent;
                return Ok(());
            }
            return Err(deny(
                "daily_budget_exceeded",
                Some(to_midnight),
                "switch model / reduce output tokens",
                true,
            ));
        }
        plan.reserve = est + cent;
        Ok(())
    }

    fn intent_tier(&self, intent: &str) -> Option<&Vec<String>> {
        self.policy
            .doc()
            .intent_model_tiers
            .iter()
            .find(|(k, _)| eq_ic(k, intent))
            .map(|(_, v)| v)
            .filter(|v| !v.is_empty())
    }

    fn fallback_plan(
        &self,
        req: &AcquireRequest,
        reason: &str,
        retry: Option<u64>,
    ) -> Vec<FallbackPlanStep> {
        let model = self
            .intent_tier(req.intent_class.as_str())
            .and_then(|t| t.first().cloned())
            .unwrap_or_else(|| req.model_id.clone());
        let step = |rank: u32, action: &str, detail: String| FallbackPlanStep {
            rank,
            action: action.into(),
            detail,
        };
        vec![
            step(
                1,
                "reduce_output_tokens",
                format!(
                    "set maxOutputTokens to {}",
                    (req.max_output_tokens / 2).max(32)
                ),
            ),
            step(
                2,
                "compress_context",
                "summarize context to fit retrieval/context token limits".into(),
            ),
            step(
                3,
                "switch_model",
                format!("use cheaper tier model: {model}"),
            ),
            step(
                4,
                "delay_backoff",
                match retry {
                    Some(ms) => format!("retry after {ms}ms"),
                    None => format!("retry for {reason} with exponential backoff"),
                },
            ),
        ]
    }

    fn deny_response(&mut self, req: &AcquireRequest, role: Role, d: Deny) -> AcquireResponse {
        let fallback_plan = if d.plan {
            self.fallback_plan(req, &d.reason, d.retry)
        } else {
            Vec::new()
        };
        let mut rec = self.record("lease_denied");
        request_fields(&mut rec, req, role);
        rec.s("leaseId", "")
            .s("decision", "denied")
            .s("reason", &d.reason)
            .s("recommendation", &d.recommendation);
        self.audit(rec);
        // Counted by reason code (the part before the first `:`): a reason may carry a
        // client's tool id, and stored state holds no unbounded client text (13.16).
        let code = reason_code(&d.reason);
        let denies = &mut self.st.meta.metrics.denies;
        match denies.get_mut(code) {
            Some(n) => *n = n.saturating_add(1),
            None => {
                denies.insert(code.to_string(), 1);
            }
        }
        self.touch_meta();
        AcquireResponse {
            granted: false,
            lease_id: String::new(),
            expires_at_utc: NO_EXPIRY.to_string(),
            constraints: LeaseConstraintsWire::default(),
            denied_reason: d.reason,
            retry_after_ms: d.retry,
            recommendation: d.recommendation,
            idempotency_key: req.idempotency_key.clone(),
            policy_version: self.policy.version().to_string(),
            policy_hash: self.policy.hash().to_string(),
            org_id: req.org_id.clone(),
            principal_type: req.principal_type,
            role,
            lease_locality: LeaseLocality::LocalIssued,
            degraded_mode: false,
            fallback_plan,
            ..AcquireResponse::default()
        }
    }

    fn grant(
        &mut self,
        mut req: AcquireRequest,
        role: Role,
        plan: Plan,
        scoped: Option<String>,
        fp: Option<String>,
    ) -> AcquireResponse {
        let id = self.next_lease_id();
        let now = self.now;
        let expires = now.saturating_add(self.settings.lease_ttl_ms as i64);
        let units = u64::from(req.estimated_compute_units.max(1));
        let day = self.today();
        // Reservations.
        let pools = &mut self.st.meta.pools;
        // Each sum was checked against its limit above (`exceeds`): none can saturate.
        pools.in_flight = pools.in_flight.saturating_add(1);
        pools.compute_used = pools.compute_used.saturating_add(units);
        pools.budget_used = pools.budget_used.saturating_add(plan.reserve);
        // One scratch key for the three scopes (no string per scope unless it is new).
        let mut key = String::with_capacity(64);
        for (prefix, id) in [
            ("org:", &req.org_id),
            ("ws:", &req.workspace_id),
            ("actor:", &req.actor_id),
        ] {
            key.clear();
            key.push_str(prefix);
            key.push_str(id);
            let scoped = &mut self.st.meta.scoped;
            if !scoped.contains_key(key.as_str()) {
                scoped.insert(key.clone(), DayCounter::new(day));
            }
            let c = scoped.get_mut(key.as_str()).expect("inserted above");
            if c.day < day {
                *c = DayCounter::new(day);
            }
            // A scope's spend of a day is part of the day's spend, checked above.
            c.used = c.used.saturating_add(plan.reserve);
            self.touch_scope(&key);
        }
        let n = self
            .st
            .meta
            .actor_in_flight
            .entry(req.actor_id.clone())
            .or_insert(0);
        *n = n.saturating_add(1);
        let event = RateEvent {
            at: now,
            tokens: u64::from(req.estimated_prompt_tokens) + u64::from(req.max_output_tokens),
            org: req.org_id.clone(),
            ws: req.workspace_id.clone(),
            actor: req.actor_id.clone(),
            lease: id.clone(),
        };
        self.rate_tokens = self.rate_tokens.saturating_add(event.tokens);
        self.touch_rate(&event);
        // Keep the window ordered even if the clock stepped back.
        if self.st.rate.back().is_none_or(|e| e.at <= now) {
            self.st.rate.push_back(event);
        } else {
            let at = self.st.rate.partition_point(|e| e.at <= now);
            self.st.rate.insert(at, event);
        }
        let mut chain = Vec::new();
        for aid in [plan.approval.as_ref(), plan.breaker_approval.as_ref()]
            .into_iter()
            .flatten()
        {
            if let Some(a) = self.st.approvals.get_mut(aid) {
                if a.request.single_use {
                    a.used = true;
                }
                if chain.is_empty() {
                    chain = a.reviews.clone();
                }
                let aid = aid.clone();
                self.touch_approval(&aid);
            }
        }
        let recommendation = plan.recommendation;
        let reason = if recommendation.is_empty() {
            "granted"
        } else {
            recommendation.as_str()
        };
        let grants = &mut self.st.meta.metrics.grants;
        match grants.get_mut(reason) {
            Some(n) => *n = n.saturating_add(1),
            None => {
                grants.insert(reason.to_string(), 1);
            }
        }
        let auth = std::mem::take(&mut req.auth_token);
        let token_prefix = (!req.approval_token.is_empty())
            .then(|| sha256_hex(&req.approval_token)[..12].to_string());
        req.approval_token.clear();
        let _ = auth;
        let max_calls = plan.constraints.max_tool_calls.unwrap_or(0);
        let response = AcquireResponse {
            granted: true,
            lease_id: id.clone(),
            expires_at_utc: crate::governor::wire::format_time_ms(expires),
            constraints: plan.constraints.clone(),
            denied_reason: String::new(),
            retry_after_ms: None,
            recommendation,
            idempotency_key: req.idempotency_key.clone(),
            policy_version: self.policy.version().to_string(),
            policy_hash: self.policy.hash().to_string(),
            org_id: req.org_id.clone(),
            principal_type: req.principal_type,
            role,
            lease_locality: LeaseLocality::LocalIssued,
            degraded_mode: false,
            fallback_plan: plan.fallback,
            context_summaries: plan.summaries.clone(),
            effective_lease: plan.effective.clone(),
            lease_reductions: plan.reductions,
        };
        let rec = LeaseRec {
            id: id.clone(),
            status: LeaseStatus::Live,
            request: req,
            role,
            day,
            reserved: plan.reserve,
            compute: units,
            acquired_at: now,
            expires_at: expires,
            retain_until: i64::MAX,
            constraints: plan.constraints,
            max_tool_calls: max_calls,
            calls_allocated: 0,
            subs: Default::default(),
            approval_chain: chain,
            context_summaries: plan.summaries,
            effective_lease: plan.effective,
            release: None,
            settled: None,
            owner_uid: self.caller,
        };
        let mut a = self.record("lease_acquired");
        request_fields(&mut a, &rec.request, role);
        a.s("leaseId", &id)
            .s("decision", "granted")
            .s("reason", "")
            .s("recommendation", &response.recommendation)
            .i("reservedCents", rec.reserved as i64)
            .s("expiresAtUtc", &response.expires_at_utc);
        if let Some(p) = token_prefix {
            a.s("approvalTokenSha256Prefix", &p);
        }
        self.expiry.insert((rec.expires_at, id.clone()));
        self.st.leases.insert(id.clone(), rec);
        self.touch_lease(&id);
        self.audit(a);
        self.check_budget_alerts(&id);
        if let (Some(key), Some(fp)) = (scoped, fp) {
            let old = self.st.idem.insert(
                key.clone(),
                IdemRec {
                    fingerprint: fp,
                    response: response.clone(),
                    stored_at: now,
                },
            );
            if let Some(old) = old {
                self.idem_order.remove(&(old.stored_at, key.clone()));
            }
            self.idem_order.insert((now, key.clone()));
            self.touch_idem(&key);
        }
        response
    }
}

/// Request fields of an acquire audit record.
fn request_fields(rec: &mut crate::governor::audit::AuditRecord, req: &AcquireRequest, role: Role) {
    rec.s("orgId", &req.org_id)
        .s("actorId", &req.actor_id)
        .s("workspaceId", &req.workspace_id)
        .s("principalType", req.principal_type.as_str())
        .s("role", role.as_str())
        .s("actionType", req.action_type.as_str())
        .s("modelId", &req.model_id)
        .s("intentClass", req.intent_class.as_str())
        .s("idempotencyKey", &req.idempotency_key)
        .i("estimatedCostCents", req.estimated_cost_cents as i64)
        .i(
            "estimatedPromptTokens",
            i64::from(req.estimated_prompt_tokens),
        )
        .i("maxOutputTokens", i64::from(req.max_output_tokens))
        .list_parts(
            "requestedTools",
            req.requested_tools
                .iter()
                .map(|t| [t.tool_id.as_str(), ":", t.category.pascal()]),
        )
        .list_parts(
            "requestedCapabilities",
            req.requested_capabilities.iter().map(|c| [c.as_str()]),
        )
        .list_parts("riskFlags", req.risk_flags.iter().map(|f| [f.as_str()]));
}

/// True when `parts` summed exceed `limit`, or their sum would overflow (checked arithmetic,
/// SEMANTICS 13.16: a sum past `u64::MAX` is past every limit).
fn exceeds(parts: &[u64], limit: u64) -> bool {
    parts
        .iter()
        .try_fold(0u64, |acc, p| acc.checked_add(*p))
        .is_none_or(|sum| sum > limit)
}

/// Milliseconds until the window event admitted at `oldest` leaves a window of `window` ms
/// (at least 200), without overflowing at the top of either range.
fn retry_after(oldest: i64, window: i64, now: i64) -> u64 {
    (oldest.saturating_add(window).saturating_sub(now).max(0) as u64).max(200)
}
