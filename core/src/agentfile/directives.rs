//! The draft.4 directive vocabulary (spec section 9) as data: profile, placement, how often a
//! directive may appear, how many arguments it takes and its usage line.

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
    /// Fewest arguments (an `arity` error below).
    pub min_args: usize,
    /// Most arguments (`usize::MAX`: no limit; an `arity` error above).
    pub max_args: usize,
    /// The usage line shown as the hint of an `arity` diagnostic.
    pub usage: &'static str,
}

impl DirectiveInfo {
    /// True for placement directives (left out of the package digest).
    pub fn is_placement(&self) -> bool {
        self.profile == Profile::Placement
    }
}

const fn d(
    name: &'static str,
    profile: Profile,
    single: bool,
    (min_args, max_args): (usize, usize),
    usage: &'static str,
) -> DirectiveInfo {
    DirectiveInfo {
        name,
        profile,
        single,
        min_args,
        max_args,
        usage,
    }
}

/// No upper bound on the argument count.
const ANY: usize = usize::MAX;

/// All 32 directive names of draft.4 section 9 (9.17 defines three), with their arity.
/// `HEALTHCHECK` checks its own shape (`healthcheck-format`), so its arity is open.
pub const DIRECTIVES: &[DirectiveInfo] = &[
    d("AGENT", Profile::Core, true, (1, 1), "AGENT <value>"),
    d("FROM", Profile::Core, false, (1, 1), "FROM <value>"),
    d("SHELL", Profile::Framework, false, (1, 1), "SHELL <value>"),
    d("CMD", Profile::Core, true, (1, ANY), "CMD <command line>"),
    d(
        "TOOL",
        Profile::Core,
        false,
        (1, 1),
        "TOOL <namespace>:<name>",
    ),
    d(
        "TOOLSET",
        Profile::CapabilityExtension,
        false,
        (1, 1),
        "TOOLSET <value>",
    ),
    d(
        "FUNCTION",
        Profile::CapabilityExtension,
        false,
        (1, 1),
        "FUNCTION <value>",
    ),
    d(
        "SKILL",
        Profile::CapabilityExtension,
        false,
        (1, 1),
        "SKILL <value>",
    ),
    d(
        "SERVER",
        Profile::CapabilityExtension,
        false,
        (2, 2),
        "SERVER <name> <url>",
    ),
    d(
        "MCP",
        Profile::CapabilityExtension,
        false,
        (1, 1),
        "MCP <value>",
    ),
    d(
        "URL",
        Profile::Core,
        false,
        (1, 1),
        "URL <scheme://host[:port][/path]>",
    ),
    d(
        "CRED",
        Profile::Core,
        false,
        (2, ANY),
        "CRED <name> env:<VAR>|vault://<path>#<key>|keyring:<key> host:<pattern>... [inject:header|query]",
    ),
    d(
        "BIND",
        Profile::Placement,
        false,
        (2, 3),
        "BIND <source> <target> <copy|direct|ro|rw>",
    ),
    d(
        "MOUNT",
        Profile::Core,
        false,
        (2, 2),
        "MOUNT <absolute-path> <ro|rw>",
    ),
    d(
        "PLUGIN",
        Profile::Placement,
        false,
        (1, 1),
        "PLUGIN <value>",
    ),
    d(
        "POLICY",
        Profile::Core,
        false,
        (0, 1),
        "POLICY [cedar] ... END",
    ),
    d(
        "ALLOW",
        Profile::SecurityShorthand,
        false,
        (2, 2),
        "ALLOW invoke <namespace>:<tool>",
    ),
    d(
        "DENY",
        Profile::SecurityShorthand,
        false,
        (2, 2),
        "DENY invoke <namespace>:<tool>",
    ),
    d(
        "RATELIMIT",
        Profile::SecurityShorthand,
        false,
        (2, 2),
        "RATELIMIT <target> <count>/<unit>",
    ),
    d(
        "AUDIT",
        Profile::Core,
        true,
        (1, 1),
        "AUDIT off|basic|all|compliance",
    ),
    d(
        "TIMEOUT",
        Profile::SecurityShorthand,
        true,
        (1, 1),
        "TIMEOUT <seconds>",
    ),
    d(
        "LIMIT",
        Profile::SecurityShorthand,
        false,
        (2, 2),
        "LIMIT <name> <integer|count/unit>",
    ),
    d(
        "SLICE",
        Profile::Placement,
        false,
        (1, ANY),
        "SLICE <key>=<value> ...",
    ),
    d("IMAGE", Profile::Placement, false, (1, 1), "IMAGE <value>"),
    d(
        "ISOLATION",
        Profile::Placement,
        false,
        (1, 1),
        "ISOLATION <value>",
    ),
    d(
        "BROKER",
        Profile::Placement,
        false,
        (1, 1),
        "BROKER <value>",
    ),
    d(
        "BACKEND",
        Profile::Placement,
        false,
        (1, 1),
        "BACKEND <value>",
    ),
    d(
        "TRACE",
        Profile::Observability,
        false,
        (1, 1),
        "TRACE on|off|<scheme://uri>",
    ),
    d(
        "MEMORY",
        Profile::CapabilityExtension,
        false,
        (2, 4),
        "MEMORY <name> <schema-path> [schema:<Type>] [mode:ro|rw]",
    ),
    d(
        "OPTIMIZER",
        Profile::Framework,
        false,
        (1, 1),
        "OPTIMIZER <value>",
    ),
    d(
        "HEALTHCHECK",
        Profile::Observability,
        false,
        (0, ANY),
        "HEALTHCHECK [--interval=<dur>] [--timeout=<dur>] [--retries=<n>] CMD <probe>",
    ),
    d(
        "SOP",
        Profile::InstructionEmbedding,
        false,
        (1, 1),
        "SOP <path-or-ref> | SOP <name> ... END",
    ),
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

    #[test]
    fn arity_and_usage_are_consistent() {
        for d in DIRECTIVES {
            assert!(d.min_args <= d.max_args, "{}", d.name);
            assert!(d.usage.starts_with(d.name), "{}: {}", d.name, d.usage);
        }
        let cred = directive_info("CRED").unwrap();
        assert_eq!((cred.min_args, cred.max_args), (2, usize::MAX));
    }
}
