//! The Cedar policy profile: POLICY blocks plus lowered `ALLOW`/`DENY`/`RATELIMIT` form one
//! policy set; any parse or evaluation error means deny.
//!
//! Lowering (the spec only says a compiler MAY lower; these are leasekit's choices):
//! - `ALLOW invoke ns:name` ->
//!   `permit(principal == AgentRC::Agent::"<AGENT>", action == AgentRC::Action::"tool.invoke",
//!   resource == AgentRC::Tool::"ns:name");` (`principal is AgentRC::Agent` without `AGENT`).
//!   The full reference is the id, so an allow never spills over to another namespace.
//! - `DENY invoke ns:name` -> a `forbid` for any principal on `AgentRC::Tool::"ns:name"` and on
//!   the bare `AgentRC::Tool::"name"` the spec's own Cedar examples use (deny wins, so
//!   covering both ids only narrows).
//! - `RATELIMIT target N/unit` -> a `forbid` on the same resources
//!   `unless { context has rate_count && context.rate_count < N }`: the runner counts calls in
//!   the current window and passes `rate_count`; a runner that passes no count is denied
//!   (fail closed, Cedar is stateless).
//!
//! Policy ids are stable: `policy@L<line>#<n>` for the n-th policy of the block opened on
//! that line, `allow@L<line>`, `deny@L<line>`, `ratelimit@L<line>`.

use serde::Serialize;

use super::ast::{Agentfile, Directive};

/// The outcome of [`evaluate_policy`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PolicyDecision {
    /// True only for a Cedar `Allow` with no error anywhere.
    pub allowed: bool,
    /// Ids of the policies that determined the decision (sorted).
    pub determining: Vec<String>,
    /// Parse or evaluation errors (any error means deny).
    pub errors: Vec<String>,
}

impl PolicyDecision {
    fn deny(errors: Vec<String>) -> PolicyDecision {
        PolicyDecision {
            allowed: false,
            determining: Vec::new(),
            errors,
        }
    }
}

/// One policy unit of the set: a whole POLICY block or one lowered shorthand policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PolicySource {
    /// Stable id (for blocks: the prefix, `policy@L<line>`).
    pub id: String,
    /// Cedar source text.
    pub text: String,
    /// True for a POLICY block (which may hold several policies).
    pub block: bool,
}

/// Escapes a string for a Cedar string literal.
pub(crate) fn cedar_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            _ => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// The Cedar resource condition for a shorthand target: the full ref and, for `ns:name`,
/// the bare name as well.
fn tool_condition(target: &str) -> String {
    let full = format!("resource == AgentRC::Tool::{}", cedar_string(target));
    match target.split_once(':') {
        Some((_, short)) if !short.is_empty() => {
            format!(
                "{full} || resource == AgentRC::Tool::{}",
                cedar_string(short)
            )
        }
        _ => full,
    }
}

fn lower(af: &Agentfile, d: &Directive) -> Option<PolicySource> {
    const ACTION: &str = "action == AgentRC::Action::\"tool.invoke\"";
    let target = d.arg(1)?;
    let (id, text) = match d.name.as_ref() {
        "ALLOW" => {
            let principal = match af.agent() {
                Some(a) => format!("principal == AgentRC::Agent::{}", cedar_string(a)),
                None => "principal is AgentRC::Agent".to_string(),
            };
            let text = format!(
                "permit({principal}, {ACTION}, resource == AgentRC::Tool::{});",
                cedar_string(target)
            );
            (format!("allow@L{}", d.line), text)
        }
        "DENY" => (
            format!("deny@L{}", d.line),
            format!(
                "forbid(principal, {ACTION}, resource) when {{ {} }};",
                tool_condition(target)
            ),
        ),
        "RATELIMIT" => {
            let (count, _) = super::values::parse_rate(target)?;
            let target = d.arg(0)?;
            let text = format!(
                "forbid(principal, {ACTION}, resource) when {{ {} }} unless {{ context has rate_count && context.rate_count < {count} }};",
                tool_condition(target)
            );
            (format!("ratelimit@L{}", d.line), text)
        }
        _ => return None,
    };
    Some(PolicySource {
        id,
        text,
        block: false,
    })
}

/// Every policy unit, in file order: POLICY block bodies and lowered shorthand.
pub(crate) fn policy_sources(af: &Agentfile) -> Vec<PolicySource> {
    af.directives()
        .iter()
        .filter_map(|d| match d.name.as_ref() {
            "POLICY" => d.block.as_ref().map(|b| PolicySource {
                id: format!("policy@L{}", d.line),
                text: b.body.clone(),
                block: true,
            }),
            "ALLOW" | "DENY" | "RATELIMIT" => lower(af, d),
            _ => None,
        })
        .collect()
}

/// The hint for the three known ways spec examples fail to parse as Cedar.
#[cfg_attr(not(feature = "cedar"), allow(dead_code))]
pub(crate) fn cedar_hint(body: &str) -> Option<&'static str> {
    if body.lines().any(|l| l.trim_start().starts_with('#')) {
        Some("Cedar comments start with `//`, not `#`")
    } else if body.contains(".startsWith") {
        Some("Cedar has no `.startsWith`; use `like \"/workspace*\"`")
    } else if body.contains("resource in [") {
        Some(
            "Cedar allows a set only in the action scope; use one policy per resource or `when { [A, B].contains(resource) }`",
        )
    } else {
        None
    }
}

#[cfg(feature = "cedar")]
mod engine {
    use std::str::FromStr;

    use cedar_policy::{
        Authorizer, Context, Decision, Entities, EntityUid, PolicyId, PolicySet, Request,
    };

    use super::{PolicyDecision, PolicySource};

    /// Checks that a POLICY block body parses as Cedar static policies.
    pub(crate) fn check_block(body: &str) -> Result<(), String> {
        let set = PolicySet::from_str(body).map_err(|e| e.to_string())?;
        if set.templates().next().is_some() {
            return Err("policy templates (?principal/?resource) are not supported".to_string());
        }
        Ok(())
    }

    /// Builds the one policy set with stable ids.
    pub(crate) fn build(sources: &[PolicySource]) -> Result<PolicySet, Vec<String>> {
        let mut set = PolicySet::new();
        let mut errors = Vec::new();
        for src in sources {
            let parsed = match PolicySet::from_str(&src.text) {
                Ok(p) => p,
                Err(e) => {
                    errors.push(format!("{}: {e}", src.id));
                    continue;
                }
            };
            if parsed.templates().next().is_some() {
                errors.push(format!("{}: policy templates are not supported", src.id));
                continue;
            }
            // from_str names policies policy0, policy1, ... in source order.
            let mut policies: Vec<_> = parsed.policies().collect();
            policies.sort_by_key(|p| {
                p.id()
                    .to_string()
                    .trim_start_matches("policy")
                    .parse::<usize>()
                    .unwrap_or(usize::MAX)
            });
            for (n, p) in policies.into_iter().enumerate() {
                let id = if src.block {
                    format!("{}#{n}", src.id)
                } else {
                    src.id.clone()
                };
                if let Err(e) = set.add(p.new_id(PolicyId::new(id.clone()))) {
                    errors.push(format!("{id}: {e}"));
                }
            }
        }
        if errors.is_empty() {
            Ok(set)
        } else {
            Err(errors)
        }
    }

    /// Evaluates one request; every error means deny.
    pub(crate) fn evaluate(
        sources: &[PolicySource],
        principal: &str,
        action: &str,
        resource: &str,
        context: &serde_json::Value,
    ) -> PolicyDecision {
        let set = match build(sources) {
            Ok(s) => s,
            Err(errors) => return PolicyDecision::deny(errors),
        };
        let mut errors = Vec::new();
        let mut uid = |what: &str, s: &str| match EntityUid::from_str(s) {
            Ok(u) => Some(u),
            Err(e) => {
                errors.push(format!("{what}: {e}"));
                None
            }
        };
        let (p, a, r) = (
            uid("principal", principal),
            uid("action", action),
            uid("resource", resource),
        );
        let ctx_value = if context.is_null() {
            serde_json::Value::Object(Default::default())
        } else {
            context.clone()
        };
        let ctx = Context::from_json_value(ctx_value, None)
            .map_err(|e| errors.push(format!("context: {e}")));
        let (Some(p), Some(a), Some(r), Ok(ctx)) = (p, a, r, ctx) else {
            return PolicyDecision::deny(errors);
        };
        let request = match Request::new(p, a, r, ctx, None) {
            Ok(req) => req,
            Err(e) => return PolicyDecision::deny(vec![format!("request: {e}")]),
        };
        let response = Authorizer::new().is_authorized(&request, &set, &Entities::empty());
        let mut determining: Vec<String> = response
            .diagnostics()
            .reason()
            .map(|id| id.to_string())
            .collect();
        determining.sort();
        let errors: Vec<String> = response
            .diagnostics()
            .errors()
            .map(|e| e.to_string())
            .collect();
        PolicyDecision {
            allowed: response.decision() == Decision::Allow && errors.is_empty(),
            determining,
            errors,
        }
    }
}

#[cfg(feature = "cedar")]
pub(crate) use engine::check_block;

/// Evaluates a Cedar request against the Agentfile's policy set (POLICY blocks plus lowered
/// shorthand). `principal`, `action` and `resource` are Cedar entity uids such as
/// `AgentRC::Tool::"file_read"`; `context` is a JSON object (or null).
///
/// Deny when: the Agentfile has parse errors, a policy does not parse, an argument is invalid,
/// Cedar reports any evaluation error, no policy permits, or a forbid applies. Without the
/// `cedar` feature every request is denied.
pub fn evaluate_policy(
    af: &Agentfile,
    principal: &str,
    action: &str,
    resource: &str,
    context: &serde_json::Value,
) -> PolicyDecision {
    if af.has_errors() {
        return PolicyDecision::deny(vec![
            "the Agentfile has errors; policy evaluation fails closed".to_string(),
        ]);
    }
    #[cfg(feature = "cedar")]
    {
        engine::evaluate(&policy_sources(af), principal, action, resource, context)
    }
    #[cfg(not(feature = "cedar"))]
    {
        let _ = (principal, action, resource, context);
        PolicyDecision::deny(vec![
            "leasekit was built without the `cedar` feature; policy evaluation fails closed"
                .to_string(),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cedar_strings_are_escaped() {
        assert_eq!(cedar_string("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(cedar_string("é"), "\"\\u{e9}\"");
    }

    #[test]
    fn hints() {
        assert!(
            cedar_hint("# c\npermit(principal, action, resource);")
                .unwrap()
                .contains("//")
        );
        assert!(cedar_hint("x.startsWith(\"a\")").unwrap().contains("like"));
        assert!(
            cedar_hint("resource in [A::\"x\"]")
                .unwrap()
                .contains("action scope")
        );
        assert!(cedar_hint("permit(principal, action, resource);").is_none());
    }
}
