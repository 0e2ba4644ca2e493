#!/usr/bin/env python3
"""Writes docs/policy.md from the code: every governor policy field and construction option,
with its JSON type and its default.

    python3 scripts/gen-policy-doc.py           rewrite docs/policy.md
    python3 scripts/gen-policy-doc.py --check   write nothing; exit 1 when the page differs from
                                                the code, or a field has no prose here

Read from core/src/governor/policy/doc.rs: the serde structs (`PolicyDoc`, `Limits`,
`GovernorOptions`, `ServiceAccount`, `UidBinding`, `ToolRateLimit`), their fields, types,
`rename_all = "camelCase"`, `rename`, `flatten` and doc comments; the limits' defaults from
`Settings::resolve` (core/src/governor/policy/settings.rs, `pick!(field, default)`); the keys
`Governor.open` reads itself from `OPEN_KEYS` (core/src/governor/open.rs); `ToolIntent` from
core/src/governor/wire/. A field's prose is its doc comment, else the DESCRIPTIONS entry below;
a field with neither, or prose left for a field that is gone, fails the check.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from generated import write_or_check

ROOT = Path(__file__).resolve().parent.parent
TOOL = "scripts/gen-policy-doc.py"
OUT = ROOT / "docs" / "policy.md"
DOC_RS = ROOT / "core/src/governor/policy/doc.rs"
SETTINGS_RS = ROOT / "core/src/governor/policy/settings.rs"
OPEN_RS = ROOT / "core/src/governor/open.rs"

# Prose for fields without a doc comment (JSON name -> what it sets).
DESCRIPTIONS = {
    # Limits
    "leaseTtlMs": "Lifetime of a lease; one not released by then is settled at its reservation.",
    "maxInFlight": "Leases live at once (the concurrency pool).",
    "dailyBudgetCents": "Spend per UTC day, reservations included (resets at 00:00 UTC).",
    "maxRequestsPerMinute": "Acquires per rate window.",
    "maxTokensPerMinute": "Prompt plus output tokens per rate window.",
    "rateWindowMs": "Length of the rate window.",
    "maxContextTokens": "Largest `requestedContextTokens`.",
    "maxRetrievedChunks": "Largest `requestedRetrievedChunks`.",
    "maxToolOutputTokens": "Largest `estimatedToolOutputTokens`.",
    "maxToolCallsPerLease": "Tool calls one lease may allocate across its sub-leases.",
    "maxComputeUnits": "Compute units live at once (the compute pool).",
    "receiptThresholdCostCents": "A release costing at least this gets a receipt.",
    "maxRetrievedBytes": "Largest `requestedRetrievedBytes`.",
    "maxRetrievedTokens": "Largest `requestedRetrievedTokens`.",
    "summarizationTargetTokens": "Context an auto-applied summarization shrinks to.",
    "retryThresholdPerLease": "Replays of one `idempotencyKey` in the safety window before the actor cools down.",
    "toolLoopThreshold": "Calls of one tool on one lease in the safety window before `tool_loop_detected`.",
    "policyDenyCircuitBreakerThreshold": "Policy denials in a workspace in the safety window before its circuit breaker trips.",
    "spendSpikeCents": "A release costing at least this clamps the actor's output and cools it down.",
    "safetyCooldownMs": "How long a cooldown or a tripped circuit breaker lasts.",
    "clampedMaxOutputTokens": "Output tokens a clamped actor is granted.",
    "defaultToolTimeoutMs": "Longest tool sub-lease and tool call timeout.",
    "maxToolOutputBytes": "Largest tool sub-lease and tool call output.",
    "safetyWindowMs": "Window of the safety counters (retries, tool loops, policy denials).",
    "clampDurationMs": "How long an output clamp lasts.",
    "idempotencyRetentionMs": "How long an answer is kept for replay under its `idempotencyKey`.",
    # PolicyDoc
    "policyVersion": "The policy's version, reported in every answer (a bundle's version replaces it).",
    "allowedModels": "Models any request may use (empty: any).",
    "allowedCapabilities": "Action type -> capabilities a request may ask (empty: any).",
    "allowedCapabilitiesByRole": "Role -> action type -> capabilities; wins over `allowedCapabilities` for that role.",
    "riskRequiresApproval": "Risk flags that deny the request (`risk_requires_approval`).",
    "deniedToolCategories": "Tool categories no request may use.",
    "approvalRequiredToolCategories": "Tool categories that need an approval token.",
    "approvalReviewersByToolCategory": "Tool category -> reviewers an approval needs (default 1).",
    "allowedToolsByActorWorkspace": "`actor|workspace` -> tools that actor may use there (keys match case-insensitively).",
    "allowedToolsByWorkspaceRole": "`workspace|Role` -> tools that role may use there (`ws1|Member`; keys match case-insensitively).",
    "allowedModelsByWorkspace": "Workspace -> models it may use.",
    "intentModelTiers": "Intent class -> models allowed for it.",
    "intentMaxCostCents": "Intent class -> largest `estimatedCostCents`.",
    "allowedFileRoots": "Roots `ExecuteToolCall` paths must lie under (empty: any).",
    "allowedNetworkHosts": "Host patterns `ExecuteToolCall` hosts must match (empty: any).",
    "serviceAccounts": "Service accounts (objects below).",
    "actorRoles": "Actor -> role; when non-empty a human's role comes from here (unlisted: `member`) and the client's `role` is ignored.",
    "toolRegistry": "Known tools `{toolId, category}`; when non-empty, an unregistered tool is denied.",
    "leaseCeiling": "An ARCP lease: the widest `effectiveLease` a grant carries (`requestedLease` is narrowed to it).",
    "leaseCeilingByRole": "Role -> ARCP lease ceiling; wins over `leaseCeiling`.",
    "orgDailyBudgetCents": "Daily budget per org: one number for every org, or org -> cents (unlisted: unlimited).",
    "workspaceDailyBudgetCents": "Daily budget per workspace, as `orgDailyBudgetCents`.",
    "actorDailyBudgetCents": "Daily budget per actor, as `orgDailyBudgetCents`.",
    "maxInFlightPerActor": "Leases one actor may hold at once, as `orgDailyBudgetCents`.",
    "roleMaxInFlightOverrides": "Role -> leases in flight per actor of that role (wins over `maxInFlightPerActor`).",
    "orgMaxRequestsPerMinute": "Acquires per rate window per org, as `orgDailyBudgetCents`.",
    "workspaceMaxRequestsPerMinute": "Acquires per rate window per workspace.",
    "actorMaxRequestsPerMinute": "Acquires per rate window per actor.",
    "toolRateLimits": "Per-tool call rates checked at `ExecuteToolCall` (objects below; `RATELIMIT` in an Agentfile).",
    "deniedTools": "Tools no request may use (`DENY invoke` in an Agentfile).",
    "cedarPolicies": "Cedar policy text evaluated for every requested tool (`POLICY`, `ALLOW`, `DENY` in an Agentfile).",
    "auditLevel": "Recorded in status (every level writes the full audit record set).",
}

# The default of each non-limit field, by JSON name (limits: from Settings::resolve).
DEFAULTS = {
    "policyVersion": "`local`",
    "currency": "`USD`",
    "agentName": "the actor",
}

# What `Governor.open` reads itself (OPEN_KEYS), from EmbeddedGovernor::open's documentation.
OPEN_KEY_DOCS = {
    "manualClock": ("string (RFC 3339 UTC)", "none (system clock)", "A manual clock starting at this time, for tests."),
    "ids": ("string", "`random`", "`random`, or `deterministic` (`lease-1`, `approval-1`, ...) for tests."),
    "synchronous": ("string", "`full`", "SQLite durability: `full` (fsync per commit) or `normal`."),
}


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w.capitalize() for w in rest)


def struct_fields(text: str, name: str) -> list[dict]:
    """The fields of `pub struct NAME { ... }`: name, JSON name, Rust type, doc, flatten."""
    m = re.search(r"((?:#\[[^\n]*\]\n)*)pub struct " + name + r" \{\n(.*?)\n\}", text, re.S)
    if not m:
        raise SystemExit(f"{TOOL}: struct {name} not found")
    camel_case = 'rename_all = "camelCase"' in m.group(1)
    fields, doc, attrs = [], [], []
    for line in m.group(2).splitlines():
        s = line.strip()
        if s.startswith("///"):
            doc.append(s[3:].strip())
        elif s.startswith("#["):
            attrs.append(s)
        elif s.startswith("pub "):
            fm = re.match(r"pub (\w+): (.+),$", s)
            rust_name, rust_type = fm.group(1), fm.group(2)
            rename = next((re.search(r'rename = "([^"]+)"', a).group(1) for a in attrs if 'rename = "' in a), None)
            fields.append(
                {
                    "rust": rust_name,
                    "json": rename or (camel(rust_name) if camel_case else rust_name),
                    "type": rust_type,
                    "doc": " ".join(doc),
                    "flatten": any("flatten" in a for a in attrs),
                }
            )
            doc, attrs = [], []
    return fields


def json_type(rust: str) -> str:
    rust = rust.strip()
    m = re.fullmatch(r"Option<(.+)>", rust)
    if m:
        return json_type(m.group(1))
    m = re.fullmatch(r"Vec<(.+)>", rust)
    if m:
        return f"array of {json_type(m.group(1))}"
    m = re.fullmatch(r"BTreeMap<(\w+), (.+)>", rust)
    if m:
        key = "string" if m.group(1) == "String" else json_type(m.group(1))
        return f"object: {key} -> {json_type(m.group(2))}"
    return {
        "String": "string",
        "i64": "integer",
        "u64": "integer",
        "bool": "boolean",
        "Value": "JSON",
        "Role": "Role",
        "ToolCategory": "ToolCategory",
        "ToolIntent": "ToolIntent",
        "ServiceAccount": "ServiceAccount",
        "UidBinding": "UidBinding",
        "ToolRateLimit": "ToolRateLimit",
        "ScopedLimit": "integer or object: id -> integer",
    }.get(rust, rust)


def absent_default(field: dict) -> str:
    t = field["type"]
    if field["json"] in DEFAULTS:
        return DEFAULTS[field["json"]]
    if t.startswith("Vec<"):
        return "`[]`"
    if t.startswith("BTreeMap<"):
        return "`{}`"
    if t == "bool":
        return "`false`"
    if t.startswith("Option<"):
        return "absent (unlimited)" if "ScopedLimit" in t else "absent"
    return "empty"


def limit_defaults() -> dict[str, str]:
    src = SETTINGS_RS.read_text()
    return {camel(f): v.replace("_", " ") for f, v in re.findall(r"pick!\((\w+), ([\d_]+)\)", src)}


def prose(field: dict, problems: list[str], used: set[str]) -> str:
    name = field["json"]
    if name in DESCRIPTIONS:
        used.add(name)
        return DESCRIPTIONS[name]
    if field["doc"]:
        return field["doc"]
    problems.append(f"field `{name}` has no doc comment and no DESCRIPTIONS entry in {TOOL}")
    return ""


def cell(text: str) -> str:
    return text.replace("|", "\\|")


def render(problems: list[str]) -> str:
    text = DOC_RS.read_text()
    wire = "".join(p.read_text() for p in sorted((ROOT / "core/src/governor/wire").glob("*.rs")))
    used: set[str] = set()
    limits = struct_fields(text, "Limits")
    defaults = limit_defaults()
    for f in limits:
        if f["json"] not in defaults:
            problems.append(f"limit `{f['json']}` has no default in Settings::resolve")
    for name in sorted(set(defaults) - {f["json"] for f in limits}):
        problems.append(f"Settings::resolve has a default for `{name}`, which Limits does not have")
    policy = struct_fields(text, "PolicyDoc")
    options = struct_fields(text, "GovernorOptions")
    open_keys = re.findall(r'"(\w+)"', re.search(r"pub const OPEN_KEYS[^=]*= \[(.*?)\];", OPEN_RS.read_text()).group(1))

    out = [
        "# Policy and options reference",
        "",
        f"<!-- generated by {TOOL} from core/src/governor/policy; do not edit (run it to rewrite) -->",
        "",
        "A governor takes a **policy** (JSON, LeaseGate's policy document plus leasekit's fields;",
        "staged, activated and rolled back at run time, hashed with RFC 8785) and **construction",
        "options** (JSON, fixed when the governor is built). Every limit may be set in either: a",
        "limit the policy sets wins, one it omits takes the option, else the default below.",
        "Activating a policy resizes the pools at once. Every field is optional; `{}` is a valid",
        "policy. An unknown option name is refused (`INVALID_REQUEST`); an unknown policy field is",
        "ignored with a lint warning.",
        "See [governor.md](governor.md) for what each check does and [errors.md](errors.md) for the",
        "denial each one gives. `leasekit policy lint FILE` reports a policy's refusals and warnings.",
        "",
        "## Limits (policy or options)",
        "",
        "Integers (a negative one is refused). The defaults are LeaseGate's.",
        "",
        "| field | default | what it sets |",
        "|---|---|---|",
    ]
    for f in limits:
        out.append(f"| `{f['json']}` | {defaults.get(f['json'], '')} | {cell(prose(f, problems, used))} |")
    out += [
        "",
        "## Policy fields",
        "",
        "| field | type | default | what it sets |",
        "|---|---|---|---|",
    ]
    trust = []
    for f in policy:
        if f["flatten"]:
            continue
        if f["doc"].startswith("Trust setting"):
            trust.append(f["json"])
            continue
        out.append(
            f"| `{f['json']}` | {cell(json_type(f['type']))} | {absent_default(f)} | {cell(prose(f, problems, used))} |"
        )
    out += [
        "",
        "Refused in a policy (construction options only, so a staged policy cannot widen who may",
        "sign or administer): " + ", ".join(f"`{t}`" for t in trust) + ".",
        "",
        "## Construction options",
        "",
        "Every limit above, and:",
        "",
        "| option | type | default | what it sets |",
        "|---|---|---|---|",
    ]
    for f in options:
        if f["flatten"]:
            continue
        out.append(
            f"| `{f['json']}` | {cell(json_type(f['type']))} | {absent_default(f)} | {cell(prose(f, problems, used))} |"
        )
    out += [
        "",
        "`Governor.open(store, policy, options)` in the bindings also reads these keys of",
        "`options` itself (they are not construction options):",
        "",
        "| key | type | default | what it sets |",
        "|---|---|---|---|",
    ]
    for k in open_keys:
        if k not in OPEN_KEY_DOCS:
            problems.append(f"OPEN_KEYS has `{k}`, which {TOOL} OPEN_KEY_DOCS does not describe")
            continue
        t, d, what = OPEN_KEY_DOCS[k]
        out.append(f"| `{k}` | {t} | {d} | {cell(what)} |")
    for k in sorted(set(OPEN_KEY_DOCS) - set(open_keys)):
        problems.append(f"{TOOL} OPEN_KEY_DOCS describes `{k}`, which OPEN_KEYS no longer has")
    out += [
        "",
        "The daemon (`leasekit serve`) takes the policy with `--policy FILE` (or `--agentfile`) and",
        "the options with `--options FILE`; its admin uids (`--admin-uid`) are trust settings too.",
        "",
        "## Objects",
        "",
    ]
    objects = [("ServiceAccount", text), ("UidBinding", text), ("ToolRateLimit", text), ("ToolIntent", wire)]
    for name, src in objects:
        out += [f"### {name}", "", "| field | type | what it is |", "|---|---|---|"]
        for f in struct_fields(src, name):
            out.append(f"| `{f['json']}` | {cell(json_type(f['type']))} | {cell(f['doc'] or prose(f, problems, used))} |")
        out.append("")
    out += [
        "Enums (camelCase strings on the wire): `Role` is `owner`, `admin`, `member`, `viewer` or",
        "`serviceAccount`; `ToolCategory` is `fileRead`, `fileWrite`, `networkRead`,",
        "`networkWrite`, `exec` or `other`.",
        "",
    ]
    for stale in sorted(set(DESCRIPTIONS) - used):
        problems.append(f"{TOOL} DESCRIPTIONS has `{stale}`, which no struct has any more")
    return "\n".join(out)


def main() -> int:
    problems: list[str] = []
    text = render(problems)
    return write_or_check(TOOL, __doc__, {OUT: text}, problems, "docs/policy.md matches the code")


if __name__ == "__main__":
    sys.exit(main())
