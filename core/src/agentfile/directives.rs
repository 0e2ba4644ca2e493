//! The draft.4 directive vocabulary (spec section 9) as data: profile and placement flags.

use serde::Serialize;

/// The conformance profile a directive belongs to (`profiles/core.md`, draft.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    /// Normative core: AGENT FROM CMD TOOL MOUNT CRED URL POLICY AUDIT.
    Core,
    /// TOOLSET FUNCTION SKILL SERVER MCP MEMORY.
    CapabilityExtension,
    /// SOP.
    InstructionEmbedding,
    /// ALLOW DENY RATELIMIT TIMEOUT LIMIT.
    SecurityShorthand,
    /// ISOLATION IMAGE SLICE BACKEND BIND BROKER PLUGIN (belong in a run manifest).
    Placement,
    /// TRACE HEALTHCHECK.
    Observability,
    /// SHELL OPTIMIZER.
    Framework,
}

/// Static facts about one directive name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirectiveInfo {
    /// Upper-case name, e.g. `TOOL`.
    pub name: &'static str,
    /// Its profile.
    pub profile: Profile,
    /// May appear at most once (SEMANTICS 12: AGENT, CMD, AUDIT, TIMEOUT).
    pub single: bool,
}

impl DirectiveInfo {
    /// True for placement directives (left out of the package digest).
    pub fn is_placement(&self) -> bool {
        self.profile == Profile::Placement
    }
}

const fn d(name: &'static str, profile: Profile, single: bool) -> DirectiveInfo {
    DirectiveInfo {
        name,
        profile,
        single,
    }
}

/// All 32 directive names of draft.4 section 9 (9.17 defines three).
pub const DIRECTIVES: &[DirectiveInfo] = &[
    d("AGENT", Profile::Core, true),
    d("FROM", Profile::Core, false),
    d("SHELL", Profile::Framework, false),
    d("CMD", Profile::Core, true),
    d("TOOL", Profile::Core, false),
    d("TOOLSET", Profile::CapabilityExtension, false),
    d("FUNCTION", Profile::CapabilityExtension, false),
    d("SKILL", Profile::CapabilityExtension, false),
    d("SERVER", Profile::CapabilityExtension, false),
    d("MCP", Profile::CapabilityExtension, false),
    d("URL", Profile::Core, false),
    d("CRED", Profile::Core, false),
    d("BIND", Profile::Placement, false),
    d("MOUNT", Profile::Core, false),
    d("PLUGIN", Profile::Placement, false),
    d("POLICY", Profile::Core, false),
    d("ALLOW", Profile::SecurityShorthand, false),
    d("DENY", Profile::SecurityShorthand, false),
    d("RATELIMIT", Profile::SecurityShorthand, false),
    d("AUDIT", Profile::Core, true),
    d("TIMEOUT", Profile::SecurityShorthand, true),
    d("LIMIT", Profile::SecurityShorthand, false),
    d("SLICE", Profile::Placement, false),
    d("IMAGE", Profile::Placement, false),
    d("ISOLATION", Profile::Placement, false),
    d("BROKER", Profile::Placement, false),
    d("BACKEND", Profile::Placement, false),
    d("TRACE", Profile::Observability, false),
    d("MEMORY", Profile::CapabilityExtension, false),
    d("OPTIMIZER", Profile::Framework, false),
    d("HEALTHCHECK", Profile::Observability, false),
    d("SOP", Profile::InstructionEmbedding, false),
];

/// Looks up a directive by its exact (upper-case) name.
pub fn directive_info(name: &str) -> Option<&'static DirectiveInfo> {
    if name.len() > 11 || !name.as_bytes().first().is_some_and(u8::is_ascii_uppercase) {
        return None;
    }
    DIRECTIVES
        .iter()
        .find(|d| d.name.len() == name.len() && d.name == name)
}

/// Keywords that only exist in the later Dockerfile-shaped grammar (draft.5+ / v1).
pub(crate) const NEWER_GRAMMAR_KEYWORDS: &[&str] = &["IDENTITY", "CAPABILITY"];

/// Dockerfile instructions that the later grammar uses and draft.4 does not know.
pub(crate) const DOCKERFILE_KEYWORDS: &[&str] = &[
    "ADD",
    "ARG",
    "COPY",
    "ENTRYPOINT",
    "ENV",
    "EXPOSE",
    "LABEL",
    "ONBUILD",
    "RUN",
    "STOPSIGNAL",
    "USER",
    "VOLUME",
    "WORKDIR",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vocabulary_is_complete_and_unique() {
        assert_eq!(DIRECTIVES.len(), 32);
        let mut names: Vec<_> = DIRECTIVES.iter().map(|d| d.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 32);
        let placement = DIRECTIVES.iter().filter(|d| d.is_placement()).count();
        assert_eq!(placement, 7);
        assert!(directive_info("tool").is_none());
        assert!(directive_info("TOOL").is_some());
    }
}
