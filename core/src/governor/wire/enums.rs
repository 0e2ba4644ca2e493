//! The string enums of the wire protocol (LeaseGate's enums, camelCase on the wire).

use serde::{Deserialize, Serialize};

macro_rules! wire_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $variant:ident = $text:literal),+ $(,)? } default $default:ident) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum $name {
            $($(#[$vm])* #[serde(rename = $text)] $variant),+
        }
        impl $name {
            /// The camelCase wire name.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
            /// The PascalCase name LeaseGate uses in reasons and audit strings.
            pub fn pascal(self) -> &'static str {
                match self { $($name::$variant => stringify!($variant)),+ }
            }
            /// Parses the camelCase wire name (exact).
            pub fn parse(s: &str) -> Option<$name> {
                match s { $($text => Some($name::$variant),)+ _ => None }
            }
            /// Parses ignoring ASCII case (policy keys match case-insensitively).
            pub fn parse_ignore_case(s: &str) -> Option<$name> {
                [$($name::$variant),+].into_iter().find(|v| v.as_str().eq_ignore_ascii_case(s))
            }
        }
        impl Default for $name {
            fn default() -> $name { $name::$default }
        }
    };
}

wire_enum!(
    /// Who asks: a person or a service account.
    PrincipalType { /// A person (not authenticated; role from policy `actorRoles` or the request).
        Human = "human", /// A service account (authenticated by token).
        Service = "service" } default Human);

wire_enum!(
    /// The role that drives role-keyed policy rules.
    Role { /// Owner.
        Owner = "owner", /// Admin.
        Admin = "admin", /// Member (the default).
        Member = "member", /// Viewer.
        Viewer = "viewer", /// A service account's role.
        ServiceAccount = "serviceAccount" } default Member);

wire_enum!(
    /// What the lease is for.
    ActionType { /// A model chat completion (the default).
        ChatCompletion = "chatCompletion", /// An embedding call.
        Embedding = "embedding", /// A tool call.
        ToolCall = "toolCall", /// A workflow step.
        WorkflowStep = "workflowStep" } default ChatCompletion);

wire_enum!(
    /// Tool categories; they drive the deny and approval lists.
    ToolCategory { /// Reads files.
        FileRead = "fileRead", /// Writes files.
        FileWrite = "fileWrite", /// Reads from the network.
        NetworkRead = "networkRead", /// Writes to the network.
        NetworkWrite = "networkWrite", /// Runs processes.
        Exec = "exec", /// Anything else (the default).
        Other = "other" } default Other);

wire_enum!(
    /// How a leased operation ended.
    LeaseOutcome { /// Success (the default).
        Success = "success", /// The provider rate-limited.
        ProviderRateLimit = "providerRateLimit", /// Timed out.
        Timeout = "timeout", /// Denied by policy.
        PolicyDenied = "policyDenied", /// A tool failed.
        ToolError = "toolError", /// Anything else.
        UnknownError = "unknownError" } default Success);

wire_enum!(
    /// The outcome of a release.
    ReleaseClassification { /// Settled.
        Recorded = "recorded", /// Unknown or already released lease.
        LeaseNotFound = "leaseNotFound", /// Released after its expiry (settled with the actuals).
        LeaseExpired = "leaseExpired" } default Recorded);

wire_enum!(
    /// The provider error a release reports.
    ProviderErrorClassification { /// No error (the default).
        None = "none", /// Rate limited.
        RateLimited = "rateLimited", /// Timed out.
        Timeout = "timeout", /// Context too large.
        ContextTooLarge = "contextTooLarge", /// Model unavailable.
        ModelUnavailable = "modelUnavailable", /// Bad credentials.
        Unauthorized = "unauthorized", /// Other.
        Unknown = "unknown" } default None);

wire_enum!(
    /// The state of an approval.
    ApprovalDecisionStatus { /// Waiting for reviewers.
        Pending = "pending", /// Granted: a token was issued.
        Granted = "granted", /// Denied (final).
        Denied = "denied", /// Expired (final).
        Expired = "expired" } default Pending);

wire_enum!(
    /// Where a lease was issued.
    LeaseLocality { /// By this governor (embedded or daemon).
        LocalIssued = "localIssued", /// By a hub.
        HubIssued = "hubIssued" } default LocalIssued);

wire_enum!(
    /// The intent of a request (drives `intentModelTiers` and `intentMaxCostCents`): LeaseGate's
    /// `IntentClass`, exactly its six values.
    IntentClass { /// Drafting (the default).
        Draft = "draft", /// Brainstorming.
        Brainstorm = "brainstorm", /// Summarizing.
        Summarize = "summarize", /// Generating code.
        Codegen = "codegen", /// A call that needs high accuracy.
        HighAccuracy = "highAccuracy", /// A call with a long context.
        LongContext = "longContext" } default Draft);
