//! Tool sub-leases, tool calls and `Authorize` (SEMANTICS 13.8 and 13.3).

use std::net::{Ipv4Addr, Ipv6Addr};
use std::sync::Arc;

use super::Engine;
use super::keys::{Scope, composite};
use super::safety::Counter;
use super::state::{LeaseStatus, SubLease};
use crate::governor::wire::{
    AuthorizeRequest, AuthorizeResponse, LeaseOutcome, ToolExecutionRequest, ToolExecutionResponse,
    ToolIntent, ToolSubLeaseRequest, ToolSubLeaseResponse, format_time_ms,
};
use crate::{
    Lease, LeaseConstraints, LeaseGuard, ManualClock, Timestamp, canonicalize_target, match_pattern,
};

const METACHARACTERS: &[char] = &[
    '&', '|', '>', '<', ';', '`', '$', '(', ')', '{', '}', '%', '^', '!',
];

/// A `commandText` character refused like a metacharacter: a C0 control character or DEL
/// (SEMANTICS 13.16; a newline would start a second command in a shell).
fn is_control(c: char) -> bool {
    c <= '\u{1f}' || c == '\u{7f}'
}

/// Longest host name (bytes, without the trailing dot) and label.
const MAX_HOST_BYTES: usize = 253;
const MAX_LABEL_BYTES: usize = 63;

/// The canonical form of a `targetHost` (SEMANTICS 13.16), the host the runner must use: an
/// LDH name (labels of ASCII letters, digits and `-`, 1-63 bytes, 253 in all) lower-cased
/// without one trailing dot, an IPv4 literal as a dotted quad, or an IPv6 literal in brackets
/// in its RFC 5952 form. `None` for anything else (`host_invalid`). A name whose last label is
/// a number (digits, or `0x` and hex digits) is read as an IPv4 address by URL parsers
/// (`2852039166` is 169.254.169.254), so it must then be a dotted-quad literal.
pub(crate) fn canonical_host(host: &str) -> Option<String> {
    if let Some(inner) = host.strip_prefix('[') {
        let inner = inner.strip_suffix(']')?;
        return inner.parse::<Ipv6Addr>().ok().map(|a| format!("[{a}]"));
    }
    if host.contains(':') {
        return host.parse::<Ipv6Addr>().ok().map(|a| format!("[{a}]"));
    }
    let name = host.strip_suffix('.').unwrap_or(host);
    if name.is_empty() || name.len() > MAX_HOST_BYTES {
        return None;
    }
    let ldh = name.split('.').all(|l| {
        !l.is_empty()
            && l.len() <= MAX_LABEL_BYTES
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    });
    if !ldh {
        return None;
    }
    let last = name.rsplit('.').next().unwrap_or(name);
    let hex = last
        .strip_prefix("0x")
        .or_else(|| last.strip_prefix("0X"))
        .is_some_and(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
    if hex || last.bytes().all(|b| b.is_ascii_digit()) {
        return name.parse::<Ipv4Addr>().ok().map(|a| a.to_string());
    }
    Some(name.to_ascii_lowercase())
}

/// True when a canonical host is under one of the policy's host patterns: IPv6 literals only
/// by equality with a pattern of the same address, others label by label.
fn host_allowed(patterns: &[String], host: &str) -> bool {
    if host.starts_with('[') {
        return patterns
            .iter()
            .any(|p| canonical_host(p).as_deref() == Some(host));
    }
    patterns.iter().any(|p| host_matches(p, host))
}

/// Host pattern match: `*` is one DNS label; compared lower-cased, trailing dot removed.
fn host_matches(pattern: &str, host: &str) -> bool {
    let p: Vec<&str> = pattern.split('.').collect();
    let h: Vec<&str> = host.split('.').collect();
    p.len() == h.len()
        && p.iter()
            .zip(&h)
            .all(|(p, h)| *p == "*" && !h.is_empty() || p == h)
}

impl Engine {
    fn live_lease(&self, id: &str) -> Option<&super::state::LeaseRec> {
        if self.foreign(id) {
            return None;
        }
        self.st
            .leases
            .get(id)
            .filter(|l| l.status == LeaseStatus::Live && self.now < l.expires_at)
    }

    /// `RequestToolSubLease`.
    pub fn request_tool_sub_lease(&mut self, req: ToolSubLeaseRequest) -> ToolSubLeaseResponse {
        let deny = |reason: String, rec: &str| ToolSubLeaseResponse {
            granted: false,
            denied_reason: reason,
            recommendation: rec.to_string(),
            idempotency_key: req.idempotency_key.clone(),
            ..Default::default()
        };
        let Some(l) = self.live_lease(&req.lease_id) else {
            return deny(
                "lease_not_found".into(),
                "acquire a valid model lease first",
            );
        };
        let Some(requested) = l
            .request
            .requested_tools
            .iter()
            .find(|t| t.tool_id.eq_ignore_ascii_case(&req.tool_id))
        else {
            return deny(
                "tool_not_in_lease".into(),
                "request sub-leases only for tools the lease requested",
            );
        };
        if requested.category != req.category {
            return deny(
                format!("tool_category_mismatch:{}", req.tool_id),
                "use the category the lease requested",
            );
        }
        let (actor, ws, expires) = (
            l.request.actor_id.clone(),
            l.request.workspace_id.clone(),
            l.expires_at,
        );
        let remaining = l.max_tool_calls.saturating_sub(l.calls_allocated);
        let mut approval = None;
        if self
            .policy
            .doc()
            .approval_required_tool_categories
            .contains(&req.category)
        {
            let tools = [ToolIntent {
                tool_id: req.tool_id.clone(),
                category: req.category,
            }];
            match self.valid_approval(&req.approval_token, &actor, &ws, &tools, true) {
                Some(id) => approval = Some(id),
                None => {
                    return deny(
                        "approval_required".into(),
                        "request approval and include approval token scoped to actor/workspace/tool",
                    );
                }
            }
        }
        if remaining == 0 {
            return deny(
                "tool_calls_exhausted".into(),
                "the lease's tool calls are all allocated",
            );
        }
        if !self.audit_ok {
            self.st.meta.metrics.failed_audit_writes =
                self.st.meta.metrics.failed_audit_writes.saturating_add(1);
            self.touch_meta();
            return deny(
                "audit_unavailable".into(),
                "the audit log cannot be written; retry later",
            );
        }
        let allowed = req.requested_calls.max(1).min(remaining);
        let timeout = req
            .timeout_ms
            .max(100)
            .min(self.settings.default_tool_timeout_ms);
        let bytes = req
            .max_output_bytes
            .max(256)
            .min(self.settings.max_tool_output_bytes);
        let id = self.next_sub_id();
        if let Some(aid) = approval {
            if let Some(a) = self.st.approvals.get_mut(&aid)
                && a.request.single_use
            {
                a.used = true;
            }
            self.touch_approval(&aid);
        }
        self.sub_owner.insert(id.clone(), req.lease_id.clone());
        let l = self.st.leases.get_mut(&req.lease_id).expect("live");
        l.calls_allocated += allowed;
        l.subs.insert(
            id.clone(),
            SubLease {
                tool_id: req.tool_id.clone(),
                category: req.category,
                allowed,
                used: 0,
                timeout_ms: timeout,
                max_output_bytes: bytes,
                expires_at: expires,
            },
        );
        let mut rec = self.record("tool_sublease_granted");
        rec.s("leaseId", &req.lease_id)
            .s("toolSubLeaseId", &id)
            .s("actorId", &actor)
            .s("workspaceId", &ws)
            .list(
                "requestedTools",
                vec![format!("{}:{}", req.tool_id, req.category.pascal())],
            )
            .i("allowedCalls", i64::from(allowed))
            .s("decision", "granted");
        self.audit(rec);
        self.touch_lease(&req.lease_id);
        ToolSubLeaseResponse {
            granted: true,
            tool_sub_lease_id: id,
            expires_at_utc: format_time_ms(expires),
            allowed_calls: allowed,
            timeout_ms: timeout,
            max_output_bytes: bytes,
            denied_reason: String::new(),
            recommendation: "sub-lease granted".into(),
            idempotency_key: req.idempotency_key,
        }
    }

    /// `ExecuteToolCall`: authorizes and accounts one call; never runs anything.
    pub fn execute_tool_call(&mut self, req: ToolExecutionRequest) -> ToolExecutionResponse {
        let ws = self
            .st
            .leases
            .get(&req.lease_id)
            .filter(|l| self.visible(l))
            .map(|l| l.request.workspace_id.clone())
            .unwrap_or_default();
        let verdict = self.check_tool_call(&req, &ws);
        let mut out = ToolExecutionResponse {
            idempotency_key: req.idempotency_key.clone(),
            ..Default::default()
        };
        match verdict {
            Ok((timeout, bytes, canonical, host)) if self.audit_ok => {
                let l = self.st.leases.get_mut(&req.lease_id).expect("checked");
                let s = l.subs.get_mut(&req.tool_sub_lease_id).expect("checked");
                s.used += 1;
                out.remaining_calls = s.allowed - s.used;
                let key = req.tool_id.to_ascii_lowercase();
                if self
                    .policy
                    .doc()
                    .tool_rate_limits
                    .iter()
                    .any(|r| r.tool_id.eq_ignore_ascii_case(&req.tool_id))
                {
                    self.st
                        .meta
                        .tool_rate
                        .entry(key)
                        .or_default()
                        .push_back(self.now);
                }
                out.allowed = true;
                out.outcome = LeaseOutcome::Success;
                out.recommendation = "tool call allowed".into();
                out.timeout_ms = timeout;
                out.max_output_bytes = bytes;
                out.canonical_path = canonical;
                out.canonical_host = host;
                self.touch_lease(&req.lease_id);
            }
            Ok(_) => {
                out.outcome = LeaseOutcome::PolicyDenied;
                out.denied_reason = "audit_unavailable".into();
                out.recommendation = "the audit log cannot be written; retry later".into();
            }
            Err((reason, rec)) => {
                out.outcome = LeaseOutcome::PolicyDenied;
                out.denied_reason = reason;
                out.recommendation = rec.into();
            }
        }
        let mut rec = self.record(if out.allowed {
            "tool_execution_allowed"
        } else {
            "tool_execution_denied"
        });
        rec.s("leaseId", &req.lease_id)
            .s("toolSubLeaseId", &req.tool_sub_lease_id)
            .s("workspaceId", &ws)
            .list(
                "requestedTools",
                vec![format!("{}:{}", req.tool_id, req.category.pascal())],
            )
            .s("targetPath", &req.target_path)
            .s("targetHost", &req.target_host)
            .s("commandText", &req.command_text)
            .s("decision", if out.allowed { "allowed" } else { "denied" })
            .s("reason", &out.denied_reason)
            .s("recommendation", &out.recommendation);
        self.audit(rec);
        out
    }

    /// The checks of a tool call, in LeaseGate's order; Ok = (timeout, bytes, canonical path,
    /// canonical host).
    fn check_tool_call(
        &mut self,
        req: &ToolExecutionRequest,
        ws: &str,
    ) -> Result<(u64, u64, String, String), (String, &'static str)> {
        let err = |r: &str, rec: &'static str| Err((r.to_string(), rec));
        // 1. Loop detector: every call on a live lease the caller may act on counts, keyed by
        // the lease owner's scope (13.16: calls naming unknown or foreign leases count for
        // nothing, so they can neither trip nor evict anyone's counter).
        let owner = self
            .st
            .leases
            .get(&req.lease_id)
            .filter(|l| l.status == LeaseStatus::Live && self.visible(l))
            .map(|l| Scope::of(l.owner_uid));
        if let Some(scope) = owner {
            let tool = req.tool_id.to_ascii_lowercase();
            let loop_key = composite(scope, &[&req.lease_id, &tool]);
            if self.count_event(Counter::Loops, &loop_key, self.settings.tool_loop_threshold) {
                if !ws.is_empty() {
                    self.trip_breaker(scope, ws, "tool_call_loop");
                }
                return err("tool_loop_detected", "stop repeating the same tool call");
            }
        }
        // 2. Sub-lease.
        let sub_rec = "request a valid scoped tool sub-lease";
        let owner = self
            .sub_owner
            .get(&req.tool_sub_lease_id)
            .and_then(|id| self.st.leases.get(id))
            .filter(|l| self.visible(l) && l.subs.contains_key(&req.tool_sub_lease_id));
        let Some(owner) = owner else {
            return err("tool_sublease_not_found", sub_rec);
        };
        if owner.id != req.lease_id {
            return err("tool_sublease_lease_mismatch", sub_rec);
        }
        let s = &owner.subs[&req.tool_sub_lease_id];
        if !s.tool_id.eq_ignore_ascii_case(&req.tool_id) || s.category != req.category {
            return err("tool_sublease_scope_mismatch", sub_rec);
        }
        if self.now >= s.expires_at {
            return err("tool_sublease_expired", sub_rec);
        }
        if s.used >= s.allowed {
            return err("tool_sublease_depleted", sub_rec);
        }
        let (timeout, bytes) = (
            req.timeout_ms.min(s.timeout_ms),
            req.max_output_bytes.min(s.max_output_bytes),
        );
        // Tool rate limits (RATELIMIT).
        if let Some(limit) = self
            .policy
            .doc()
            .tool_rate_limits
            .iter()
            .find(|r| r.tool_id.eq_ignore_ascii_case(&req.tool_id))
            .cloned()
        {
            let now = self.now;
            let q = self
                .st
                .meta
                .tool_rate
                .entry(req.tool_id.to_ascii_lowercase())
                .or_default();
            while q.front().is_some_and(|t| {
                now.saturating_sub(*t) >= i64::try_from(limit.window_ms).unwrap_or(i64::MAX)
            }) {
                q.pop_front();
            }
            if q.len() as u64 >= limit.calls {
                return err("tool_rate_limited", "wait for the tool's rate window");
            }
        }
        // 3. Path.
        let mut canonical = String::new();
        if !req.target_path.is_empty() {
            let c = match canonicalize_target("fs.read", &req.target_path) {
                Ok(c) => c,
                Err(_) => return err("tool_path_not_allowed", "use a path under an allowed root"),
            };
            let ok = self
                .policy
                .compiled()
                .file_patterns
                .iter()
                .any(|p| match_pattern("fs.read", p, &c).unwrap_or(false));
            if !ok {
                return err("tool_path_not_allowed", "use a path under an allowed root");
            }
            canonical = c;
        }
        // 4. Host: a host name or IP literal (13.16), then the allow-list.
        let mut host = String::new();
        if !req.target_host.is_empty() {
            let Some(h) = canonical_host(&req.target_host) else {
                return err(
                    "host_invalid",
                    "send a host name (letters, digits, `-`) or an IP literal, without port or path",
                );
            };
            if !host_allowed(&self.policy.compiled().host_patterns, &h) {
                return err("tool_host_not_allowed", "use an allowed host");
            }
            host = h;
        }
        // 5. Command: metacharacters, control characters and the empty command are refused.
        if req.command_text.trim().is_empty()
            || req.command_text.contains(METACHARACTERS)
            || req.command_text.contains(is_control)
        {
            return err(
                "tool_command_rejected",
                "send a plain command without shell metacharacters or control characters",
            );
        }
        Ok((timeout, bytes, canonical, host))
    }

    /// `Authorize`: one operation against a live lease's `effectiveLease` (SEMANTICS 8).
    pub fn authorize(&self, req: &AuthorizeRequest) -> AuthorizeResponse {
        let refuse = |code: &str, reason: &str| AuthorizeResponse {
            allowed: false,
            canonical_target: None,
            code: Some(code.to_string()),
            denied_reason: Some(reason.to_string()),
        };
        let Some(l) = self
            .st
            .leases
            .get(&req.lease_id)
            .filter(|l| self.visible(l))
        else {
            return refuse("PERMISSION_DENIED", "lease_not_found");
        };
        match l.status {
            LeaseStatus::Released => return refuse("PERMISSION_DENIED", "lease_not_found"),
            LeaseStatus::Expired => return refuse("LEASE_EXPIRED", "lease_expired"),
            LeaseStatus::Live if self.now >= l.expires_at => {
                return refuse("LEASE_EXPIRED", "lease_expired");
            }
            LeaseStatus::Live => {}
        }
        let Some(v) = &l.effective_lease else {
            return refuse("PERMISSION_DENIED", "no_requested_lease");
        };
        let lease = match Lease::from_value(v) {
            Ok(l) => l,
            Err(e) => return refuse(e.code().as_str(), "invalid_effective_lease"),
        };
        let clock = Arc::new(ManualClock::new(Timestamp::from_unix_millis(self.now)));
        let constraints = LeaseConstraints::expiring_at(Timestamp::from_unix_millis(l.expires_at));
        let guard = LeaseGuard::new(lease, constraints, clock);
        match guard.authorize(&req.capability, &req.target) {
            Ok(t) => AuthorizeResponse {
                allowed: true,
                canonical_target: Some(t),
                code: None,
                denied_reason: None,
            },
            Err(e) => refuse(e.code().as_str(), &e.code().as_str().to_ascii_lowercase()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::host_matches;

    #[test]
    fn host_patterns() {
        assert!(host_matches("*.example.com", "api.example.com"));
        assert!(!host_matches("*.example.com", "a.b.example.com"));
        assert!(!host_matches("*.example.com", "example.com"));
        assert!(host_matches("example.com", "example.com"));
    }
}
