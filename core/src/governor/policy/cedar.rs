//! `cedarPolicies`: Cedar text evaluated at acquire for every requested tool as
//! `tool.invoke` on `AgentRC::Tool::"<toolId>"`. Deny or any error means deny.

#[cfg(feature = "cedar")]
use std::str::FromStr;
use std::sync::Arc;

/// A parsed Cedar policy set (or the parse error, which denies every tool).
#[derive(Clone)]
pub struct CedarSet {
    #[cfg(feature = "cedar")]
    set: Result<Arc<cedar_policy::PolicySet>, String>,
    #[cfg(not(feature = "cedar"))]
    set: Result<Arc<()>, String>,
}

impl std::fmt::Debug for CedarSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.set.is_ok() {
            "CedarSet(ok)"
        } else {
            "CedarSet(error)"
        })
    }
}

impl CedarSet {
    /// Parses the text.
    pub fn parse(text: &str) -> CedarSet {
        #[cfg(feature = "cedar")]
        {
            CedarSet {
                set: cedar_policy::PolicySet::from_str(text)
                    .map(Arc::new)
                    .map_err(|e| e.to_string()),
            }
        }
        #[cfg(not(feature = "cedar"))]
        {
            let _ = text;
            CedarSet {
                set: Err("leasekit was built without the `cedar` feature".into()),
            }
        }
    }

    /// The parse error, if any.
    pub fn error(&self) -> Option<&str> {
        self.set.as_ref().err().map(String::as_str)
    }

    /// True when `principal` may `tool.invoke` the tool.
    pub fn allows(&self, principal: &str, tool_id: &str) -> bool {
        #[cfg(feature = "cedar")]
        {
            use cedar_policy::{Authorizer, Context, Decision, Entities, EntityUid, Request};
            let Ok(set) = &self.set else { return false };
            let uid = |t: &str, id: &str| {
                EntityUid::from_str(&format!("{t}::{}", crate::agentfile::cedar_literal(id))).ok()
            };
            let (Some(p), Some(a), Some(r)) = (
                uid("AgentRC::Agent", principal),
                uid("AgentRC::Action", "tool.invoke"),
                uid("AgentRC::Tool", tool_id),
            ) else {
                return false;
            };
            let Ok(req) = Request::new(p, a, r, Context::empty(), None) else {
                return false;
            };
            let resp = Authorizer::new().is_authorized(&req, set, &Entities::empty());
            resp.decision() == Decision::Allow && resp.diagnostics().errors().next().is_none()
        }
        #[cfg(not(feature = "cedar"))]
        {
            let _ = (principal, tool_id);
            false
        }
    }
}
