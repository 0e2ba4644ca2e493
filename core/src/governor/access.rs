//! Daemon access (SEMANTICS 13.14), for a host that serves the governor to other processes:
//! each command runs for a [`Peer`] identified by its Unix credentials. Commands on a lease
//! (release, sub-lease, tool call, `Authorize`) from another uid than the one that acquired it
//! behave as for an unknown lease (`lease_not_found`, revealing nothing; see the engine's
//! `access` module), and the admin commands ([`admin_only`]) are refused to peers that are not
//! admins.

use std::cell::Cell;

use super::Governor;
use super::wire::{Command, ResponseEnvelope};

/// The peer a command runs for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Peer {
    /// The peer's uid (from `SO_PEERCRED`, never from the request).
    pub uid: u32,
    /// Whether the uid is one of the daemon's admin uids.
    pub admin: bool,
}

/// The commands only admins may run: approval decisions, policy staging, activation and
/// rollback, exports (13.14), the approval queue (it shows other users' requests) and audit
/// verification (13.16: it reads the whole chain).
pub fn admin_only(command: Command) -> bool {
    matches!(
        command,
        Command::GrantApproval
            | Command::DenyApproval
            | Command::ReviewApproval
            | Command::ListPendingApprovals
            | Command::StagePolicyBundle
            | Command::ActivatePolicy
            | Command::RollbackPolicy
            | Command::ExportDiagnostics
            | Command::ExportRunawayReport
            | Command::ExportAudit
            | Command::VerifyAudit
    )
}

thread_local! {
    static CALLER: Cell<Option<u32>> = const { Cell::new(None) };
}

/// The uid the command running on this thread acts for (`None`: in process).
pub(super) fn current_caller() -> Option<u32> {
    CALLER.with(Cell::get)
}

/// Restores the previous caller when dropped (also on unwinding).
struct CallerGuard(Option<u32>);

impl CallerGuard {
    fn set(uid: u32) -> CallerGuard {
        CallerGuard(CALLER.with(|c| c.replace(Some(uid))))
    }
}

impl Drop for CallerGuard {
    fn drop(&mut self) {
        CALLER.with(|c| c.set(self.0));
    }
}

impl Governor {
    /// The wire dispatcher for a daemon peer: as [`Governor::handle_envelope`], with the
    /// access rules of 13.14. A non-admin's admin command answers `success: false` with an
    /// error starting `permission_denied` and changes nothing.
    pub fn handle_as(&self, peer: Peer, command: &str, payload_json: &str) -> ResponseEnvelope {
        if let Some(cmd) = Command::parse(command)
            && admin_only(cmd)
            && !peer.admin
        {
            return ResponseEnvelope::fail(format!(
                "permission_denied: {command} needs an admin uid (uid {} is not one)",
                peer.uid
            ));
        }
        let _guard = CallerGuard::set(peer.uid);
        self.handle_envelope(command, payload_json)
    }

    /// Settles the leases that expired by now (a daemon's background sweep; every command
    /// also sweeps first).
    pub fn sweep(&self) -> crate::Result<()> {
        self.run(|_| Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::governor::{GovernorOptions, Policy};
    use serde_json::{Value, json};

    fn gov() -> Governor {
        let p = Policy::from_json(r#"{"toolRegistry": [{"toolId": "t", "category": "other"}]}"#)
            .unwrap();
        Governor::in_memory(p, GovernorOptions::default()).unwrap()
    }

    fn call(g: &Governor, uid: u32, admin: bool, cmd: &str, payload: Value) -> ResponseEnvelope {
        g.handle_as(Peer { uid, admin }, cmd, &payload.to_string())
    }

    fn payload(env: &ResponseEnvelope) -> Value {
        assert!(env.success, "{env:?}");
        serde_json::from_str(&env.payload_json).unwrap()
    }

    #[test]
    fn another_uid_sees_no_lease() {
        let g = gov();
        let acquire = json!({"actorId": "a", "workspaceId": "w", "estimatedCostCents": 1,
            "requestedTools": [{"toolId": "t"}], "idempotencyKey": "k1"});
        let grant = payload(&call(&g, 1000, false, "Acquire", acquire.clone()));
        assert_eq!(grant["granted"], true);
        let id = grant["leaseId"].as_str().unwrap().to_string();

        let sub = call(
            &g,
            1001,
            false,
            "RequestToolSubLease",
            json!({"leaseId": id, "toolId": "t"}),
        );
        assert_eq!(payload(&sub)["deniedReason"], "lease_not_found");
        let auth = call(
            &g,
            1001,
            false,
            "Authorize",
            json!({"leaseId": id, "capability": "fs.read", "target": "/x"}),
        );
        assert_eq!(payload(&auth)["deniedReason"], "lease_not_found");
        // The same scoped idempotency key from another uid is not a replay of uid 1000's grant.
        let other = payload(&call(&g, 1001, false, "Acquire", acquire.clone()));
        assert_ne!(other["leaseId"], grant["leaseId"]);
        let rel = call(
            &g,
            1001,
            false,
            "Release",
            json!({"leaseId": id, "actualCostCents": 1}),
        );
        assert_eq!(payload(&rel)["classification"], "leaseNotFound");
        // An in-process lease is no peer's either.
        let own = g.handle("Acquire", &json!({"actorId": "b"}).to_string());
        let own: Value = serde_json::from_str(&own).unwrap();
        let own: Value = serde_json::from_str(own["payloadJson"].as_str().unwrap()).unwrap();
        let rel = call(
            &g,
            1000,
            true,
            "Release",
            json!({"leaseId": own["leaseId"]}),
        );
        assert_eq!(payload(&rel)["classification"], "leaseNotFound");

        // The owner still can.
        let sub = payload(&call(
            &g,
            1000,
            false,
            "RequestToolSubLease",
            json!({"leaseId": id, "toolId": "t"}),
        ));
        assert_eq!(sub["granted"], true);
        let rel = call(
            &g,
            1000,
            false,
            "Release",
            json!({"leaseId": id, "actualCostCents": 1}),
        );
        assert_eq!(payload(&rel)["classification"], "recorded");
        assert_eq!(g.metrics().unwrap().active_leases, 2);
    }

    #[test]
    fn admin_commands_need_an_admin() {
        let g = gov();
        let req = payload(&call(
            &g,
            1000,
            false,
            "RequestApproval",
            json!({"actorId": "a", "workspaceId": "w", "requestedBy": "a", "toolId": "t"}),
        ));
        let id = req["approvalId"].as_str().unwrap().to_string();
        for (cmd, p) in [
            (
                "GrantApproval",
                json!({"approvalId": id, "grantedBy": "boss"}),
            ),
            (
                "DenyApproval",
                json!({"approvalId": id, "deniedBy": "boss"}),
            ),
            (
                "ReviewApproval",
                json!({"approvalId": id, "reviewerId": "boss", "approve": true}),
            ),
            ("ListPendingApprovals", json!({})),
            (
                "StagePolicyBundle",
                json!({"version": "v2", "policyContentJson": "{}"}),
            ),
            ("ActivatePolicy", json!({"version": "v2"})),
            ("RollbackPolicy", json!({"version": "v1"})),
            ("ExportDiagnostics", json!({})),
            ("ExportRunawayReport", json!({})),
            ("ExportAudit", json!({})),
            ("VerifyAudit", json!({})),
        ] {
            let env = call(&g, 1001, false, cmd, p);
            assert!(
                !env.success && env.error.starts_with("permission_denied"),
                "{cmd}: {env:?}"
            );
        }
        // Nothing changed: the approval is still pending, and an admin may grant it.
        let granted = payload(&call(
            &g,
            0,
            true,
            "GrantApproval",
            json!({"approvalId": id, "grantedBy": "boss"}),
        ));
        assert_eq!(granted["granted"], true);
        // Everyone may read metrics and status.
        assert!(call(&g, 1001, false, "GetMetrics", json!({})).success);
        assert!(call(&g, 1001, false, "GetStatus", json!({})).success);
    }
}
