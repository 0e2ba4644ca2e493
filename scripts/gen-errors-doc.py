#!/usr/bin/env python3
"""Writes docs/errors.md from the code: every error code, every `details.reason`, every
governor denial reason and every daemon error prefix a client maps.

    python3 scripts/gen-errors-doc.py           rewrite docs/errors.md
    python3 scripts/gen-errors-doc.py --check   write nothing; exit 1 when the page or the
                                                tables below differ from the code

Read from the code:
  - the codes and their retryable flags: conformance/error-codes.json, checked against core's
    `ErrorCode` (`as_str` and `retryable`) in core/src/error.rs, whose doc comments give the
    meaning column;
  - every `details.reason`: each `.with_detail("reason", ...)` in core, serve, cli and ffi
    (a literal, or the literals of the `let` that computes it);
  - every governor denial reason (`deniedReason`; its code is the part before the first `:`):
    the reasons the engine's denial helpers are given in core/src/governor/engine/ and
    core/src/governor/client/fallback.rs;
  - the daemon's `success: false` error prefixes the client maps to a code
    (core/src/governor/client/mod.rs `answer_text`).
What each means and what to do is prose held below (REASONS, DENIALS, WHAT_TO_DO); a name found
in the code without prose, or prose for a name the code no longer has, fails the check.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from generated import write_or_check

ROOT = Path(__file__).resolve().parent.parent
TOOL = "scripts/gen-errors-doc.py"
OUT = ROOT / "docs" / "errors.md"
SNAKE = r"([a-z][a-z0-9]*(?:_[a-z0-9]+)+)"

# What to do, per ARCP code.
WHAT_TO_DO = {
    "PERMISSION_DENIED": "Do not retry. Ask for a lease that grants the operation (see `leasekit check` and `leasekit explain`), or, from a governor client, connect as a uid the daemon lets in.",
    "LEASE_SUBSET_VIOLATION": "Do not retry. Narrow the child lease (`leasekit subset CHILD PARENT` prints the witness) or delegate from a wider parent.",
    "LEASE_EXPIRED": "Do not retry with the same lease: acquire a new one (or extend `expires_at` in the constraints you issue).",
    "BUDGET_EXHAUSTED": "Do not retry until budget is added; `details.currency` and `details.remaining` say which counter is short.",
    "INVALID_REQUEST": "Fix the input; the message names what is wrong (a pattern, target, amount, time, policy or option). Retrying the same input fails the same way.",
    "UNAUTHENTICATED": "Not raised by leasekit; an ARCP peer raises it. Authenticate and try again.",
    "JOB_NOT_FOUND": "Not raised by leasekit; an ARCP peer raises it for an unknown job.",
    "DUPLICATE_KEY": "Not raised by leasekit; an ARCP peer raises it for a reused key. The governor answers a reused `idempotencyKey` with a denial instead (`idempotency_key_conflict`).",
    "AGENT_NOT_AVAILABLE": "Not raised by leasekit; an ARCP peer raises it.",
    "AGENT_VERSION_NOT_AVAILABLE": "Not raised by leasekit; an ARCP peer raises it.",
    "CANCELLED": "Not raised by leasekit; an ARCP peer raises it.",
    "TIMEOUT": "Retryable. A governor client raises it when the daemon did not answer in time (`details.reason: daemon_timeout`): retry an `Acquire` only with the same `idempotencyKey` (without one, a retry may take a second lease).",
    "RESUME_WINDOW_EXPIRED": "Not raised by leasekit; an ARCP peer raises it.",
    "HEARTBEAT_LOST": "Not raised by leasekit; an ARCP peer raises it. Retryable.",
    "INTERNAL_ERROR": "Retryable. See `details.reason` below: a store that failed (retry with the same `idempotencyKey`), a daemon that is down or a store shared by two governors. Any other is a bug: report it with the message.",
}

# Per `details.reason`: (codes it comes with, meaning, what to do).
REASONS = {
    "daemon_unreachable": ("INTERNAL_ERROR", "No governor daemon answers on the socket (none is running there, or the socket file is gone).", "Start `leasekit serve`, or point the client at its socket (`LEASEKIT_SOCKET`, the client's socket option). Retryable."),
    "daemon_permission_denied": ("PERMISSION_DENIED", "The socket exists but this uid may not connect to it (it is owner-only by default).", "Run as the daemon's uid, or start the daemon with `--socket-mode 660` and a shared group."),
    "daemon_connect_failed": ("INTERNAL_ERROR", "Connecting to the socket failed for another reason (the message says which).", "Check the socket path and the daemon's log. Retryable."),
    "daemon_timeout": ("TIMEOUT", "The daemon did not answer within the client's timeout.", "Retry `Acquire` only with the same `idempotencyKey`; raise the client timeout if the daemon is busy."),
    "daemon_connection_lost": ("INTERNAL_ERROR", "The connection broke while the request or its answer was in flight: the command may or may not have been applied.", "Retry with the same `idempotencyKey`: the daemon answers a repeat with the first answer."),
    "store_unavailable": ("INTERNAL_ERROR", "The daemon answered `success: false` because its store failed (a SQLite I/O error, PostgreSQL down); nothing was applied.", "Retry with the same `idempotencyKey` once the store is back; see the daemon's log."),
    "daemon_error": ("PERMISSION_DENIED, INVALID_REQUEST or INTERNAL_ERROR", "The daemon answered `success: false` for another reason (see the table of daemon errors below; the message carries the daemon's text).", "Fix the request for INVALID_REQUEST; use an admin uid for PERMISSION_DENIED; report INTERNAL_ERROR."),
    "store_format": ("INTERNAL_ERROR", "The SQLite store file records a newer format than this leasekit reads (`PRAGMA user_version`); nothing was written to it.", "Open it with the leasekit release that wrote it, or start from a new file. Not retryable."),
    "store_shared": ("INTERNAL_ERROR", "Another governor wrote the same SQLite file since this one opened it. A SQLite store serves one governor.", "Give each governor its own file, share one governor through `leasekit serve`, or use a PostgreSQL store for a fleet. Not retryable in practice: reopen on a file of its own."),
}

# Per denial reason code: (where it is returned, meaning, what to do).
A, T, X, AU, F = "Acquire", "RequestToolSubLease", "ExecuteToolCall", "Authorize", "client fallback"
DENIALS = {
    "idempotency_key_conflict": (A, "The `idempotencyKey` was used before (same uid, org, workspace and actor) with a different request.", "Use a new key for a new request; reuse a key only to retry the very same request."),
    "workspace_circuit_breaker": (A, "Safety automation paused the workspace (too many policy denials or a tool loop in the safety window).", "Wait `retryAfterMs`, or present an approval token for this actor and workspace."),
    "actor_cooldown_active": (A, "The actor is cooling down after a retry storm or spend spike.", "Wait `retryAfterMs` (at least 250 ms)."),
    "invalid_requested_lease": (A, "`requestedLease` is not a valid ARCP lease.", "Send a valid lease (`leasekit lint --lease FILE` finds the problem)."),
    "decision_missing": ("RecordDecision", "The record has no `decision` (`allow`, `deny`, `monitor`, or how an allowed call ended: `success`, `toolError`, `cancelled`, `serverExited`).", "Send the decision the guard took."),
    "decision_rate_limited": ("RecordDecision", "The caller's uid has written 3 000 decision records, or 16 MiB of them, in the current 60-second window (`recorded: false`).", "Wait `retryAfterMs`; a guard that records every decision needs fewer calls per minute or its own governor."),
    "approval_queue_full": ("RequestApproval (`message`)", "`maxPendingApprovals` approvals are pending, or this requester has 100 pending.", "Have reviewers decide pending approvals, or wait for them to expire."),
    "self_review_not_allowed": ("ReviewApproval (`message`)", "The reviewer is the approval's requester (by name or by uid).", "Have someone else review it."),
    "approval_required": (f"{A}, {T}", "A requested tool's category is in `approvalRequiredToolCategories`, and the request carries no valid approval token for this actor, workspace and tool.", "Request an approval (`RequestApproval`), have a reviewer grant it, and send its token as `approvalToken`."),
    "audit_unavailable": (f"{A}, {T}, approvals and policy commands (`message`)", "The audit chain cannot be written, so nothing is granted (fail closed).", "Retry after `retryAfterMs`; fix the store (disk, database) the daemon's log names."),
    "identity_not_bound": (A, "With `uidBindings` in the policy, the caller's uid may not name this org, workspace or actor.", "Name only ids bound to your uid, or have the operator bind them."),
    "service_account_unauthorized": (A, "The service-account token is unknown or not valid for this org and workspace.", "Send the right token for the org and workspace."),
    "service_account_capability_denied": (A, "The service account may not use a requested capability.", "Request fewer capabilities or widen the account's `allowedCapabilities`."),
    "service_account_model_denied": (A, "The service account may not use the model.", "Pick a model in the account's `allowedModels`."),
    "service_account_tool_denied": (A, "The service account may not use a requested tool.", "Request a tool in the account's `allowedTools`."),
    "tool_category_mismatch": (f"{A}, {T}, RequestApproval (`message`)", "`tool_category_mismatch:<toolId>`: the category sent for the tool differs from the policy's `toolRegistry` (or from the lease's request).", "Send the registered category."),
    "tool_not_registered": (A, "`tool_not_registered:<toolId>`: the policy has a `toolRegistry` and the tool is not in it.", "Register the tool in the policy, or request a registered one."),
    "intent_model_not_allowed": (A, "The model is not in `intentModelTiers` for the request's `intentClass`.", "Use a model of that intent's tier."),
    "intent_cost_exceeded": (A, "`estimatedCostCents` is above `intentMaxCostCents` for the intent.", "Lower the estimate, or use another intent."),
    "workspace_model_not_allowed": (A, "The model is not in `allowedModelsByWorkspace` for the workspace.", "Use a model allowed in the workspace."),
    "model_not_allowed": (A, "The model is not in `allowedModels`.", "Use an allowed model."),
    "capability_not_allowed_for_role": (A, "A requested capability is not in `allowedCapabilitiesByRole` for the role and action type.", "Request capabilities allowed for the role."),
    "capability_not_allowed": (A, "A requested capability is not in `allowedCapabilities` for the action type.", "Request allowed capabilities."),
    "risk_requires_approval": (A, "A risk flag of the request is in `riskRequiresApproval`.", "Remove the risk flag, or get an approval."),
    "tool_category_denied": (A, "`tool_category_denied:<Category>`: the category is in `deniedToolCategories`.", "Use a tool of another category."),
    "tool_not_allowed": (A, "`tool_not_allowed:<toolId>`: the tool is in `deniedTools`, outside `allowedToolsByActorWorkspace`, or denied by the policy's Cedar rules.", "Request an allowed tool."),
    "tool_not_allowed_for_role": (A, "`tool_not_allowed_for_role:<toolId>`: the tool is outside `allowedToolsByWorkspaceRole` for the role.", "Request a tool allowed for the role."),
    "org_exhausted": (A, "The org's daily budget (`orgDailyBudgetCents`) would be exceeded.", "Wait for the next UTC midnight (`retryAfterMs`, the recommendation names the refill time)."),
    "workspace_exhausted": (A, "The workspace's daily budget (`workspaceDailyBudgetCents`) would be exceeded.", "Wait for the next UTC midnight."),
    "actor_exhausted": (A, "The actor's daily budget (`actorDailyBudgetCents`) would be exceeded.", "Wait for the next UTC midnight."),
    "actor_throttled": (A, "The actor holds `maxInFlightPerActor` leases (or its role override).", "Release a lease; retry after `retryAfterMs`."),
    "org_rate_limited": (A, "The org made `orgMaxRequestsPerMinute` requests in the rate window.", "Retry after `retryAfterMs`."),
    "workspace_rate_limited": (A, "The workspace made `workspaceMaxRequestsPerMinute` requests in the rate window.", "Retry after `retryAfterMs`."),
    "actor_rate_limited": (A, "The actor made `actorMaxRequestsPerMinute` requests in the rate window.", "Retry after `retryAfterMs`."),
    "concurrency_limit_reached": (A, "`maxInFlight` leases are live.", "Retry after `retryAfterMs` or release leases sooner."),
    "compute_capacity_reached": (A, "The live leases' compute units would exceed `maxComputeUnits`.", "Retry later, or ask for fewer `estimatedComputeUnits`."),
    "rate_limit_reached": (A, "`maxRequestsPerMinute` or `maxTokensPerMinute` is used up in the rate window.", "Retry after `retryAfterMs` with lower throughput."),
    "context_prompt_tokens_exceeded": (A, "`requestedContextTokens` is above `maxContextTokens`.", "Send less context, or set `autoApplyConstraints` to be granted with clamped output."),
    "context_retrieved_chunks_exceeded": (A, "`requestedRetrievedChunks` is above `maxRetrievedChunks`.", "Retrieve fewer chunks, or set `autoApplyConstraints`."),
    "tool_output_tokens_exceeded": (A, "`estimatedToolOutputTokens` is above `maxToolOutputTokens`.", "Expect less tool output, or set `autoApplyConstraints`."),
    "retrieval_bytes_exceeded": (A, "`requestedRetrievedBytes` is above `maxRetrievedBytes`.", "Retrieve less, or set `autoApplyConstraints` (summarization costs 1 cent)."),
    "retrieval_tokens_exceeded": (A, "`requestedRetrievedTokens` is above `maxRetrievedTokens`.", "Retrieve less, or set `autoApplyConstraints`."),
    "summarization_budget_unavailable": (A, "Auto-applied summarization needs 1 cent of the daily budget and there is none.", "Wait for the next UTC midnight or retrieve less."),
    "daily_budget_exceeded": (A, "The estimated cost does not fit the rest of `dailyBudgetCents`.", "Use a cheaper model or fewer output tokens; the budget refills at UTC midnight."),
    "lease_not_found": (f"{T}, {AU}", "The lease is unknown, released, or not this caller's.", "Acquire a lease first; use the id the grant returned."),
    "tool_not_in_lease": (T, "The lease did not request this tool.", "Request sub-leases only for tools named in the lease's `requestedTools`."),
    "tool_calls_exhausted": (T, "The lease's `maxToolCallsPerLease` calls are all allocated.", "Acquire a new lease."),
    "tool_loop_detected": (X, "The same tool was called `toolLoopThreshold` times on the lease in the safety window (the workspace's breaker may trip).", "Stop repeating the call."),
    "tool_sublease_not_found": (X, "The tool sub-lease is unknown or not this caller's.", "Request a sub-lease (`RequestToolSubLease`) first."),
    "tool_sublease_lease_mismatch": (X, "The sub-lease belongs to another lease.", "Send the sub-lease of this lease."),
    "tool_sublease_scope_mismatch": (X, "The sub-lease is for another tool or category.", "Request a sub-lease for this tool."),
    "tool_sublease_expired": (X, "The sub-lease has expired.", "Request a new sub-lease."),
    "tool_sublease_depleted": (X, "The sub-lease's calls are used up.", "Request a new sub-lease."),
    "tool_rate_limited": (X, "The tool's `toolRateLimits` window is full.", "Wait for the tool's rate window."),
    "tool_path_not_allowed": (X, "`targetPath` is outside `allowedFileRoots` (or not a clean absolute path).", "Use a path under an allowed root."),
    "host_invalid": (X, "`targetHost` is not a host name or IP literal (a port, path or bad character).", "Send a bare host name or IP literal."),
    "tool_host_not_allowed": (X, "`targetHost` is not in `allowedNetworkHosts`.", "Use an allowed host."),
    "tool_command_rejected": (X, "`commandText` is empty or holds shell metacharacters or control characters.", "Send a plain command."),
    "lease_expired": (AU, "The lease has expired (code `LEASE_EXPIRED`).", "Acquire a new lease."),
    "no_requested_lease": (AU, "The lease was granted without `requestedLease`, so it authorizes nothing.", "Acquire with a `requestedLease`."),
    "invalid_effective_lease": (AU, "The lease's stored effective lease cannot be read (its code is the lease error's).", "Acquire a new lease; report it if it repeats."),
    "service_unavailable_dev_cap": (F, "No daemon answers and the client's fallback mode is `dev`: the request asks more output tokens than the local cap.", "Reduce `maxOutputTokens`, or bring the daemon back."),
    "service_unavailable_risky_capability": (F, "No daemon answers, fallback mode `dev`, and the request asks a risky capability or a file-write, network-write or exec tool.", "Drop the risky capability or tool, or retry when the governor is back."),
    "service_unavailable_prod_deny_risky": (F, "No daemon answers, fallback mode `prod`, and the request asks a risky capability or a file-write, network-write or exec tool.", "Retry when the governor is back."),
    "service_unavailable_prod_readonly_only": (F, "No daemon answers, fallback mode `prod`: only chat completions are granted.", "Retry when the governor is back."),
    "service_unavailable_prod_cap": (F, "No daemon answers, fallback mode `prod`: the request asks more output tokens than the local cap.", "Reduce `maxOutputTokens`, or retry when the governor is back."),
}

# The daemon's `success: false` errors a client maps, per prefix: meaning.
DAEMON_ERRORS = {
    "permission_denied": "The command is for admin uids only (policy, approvals review, audit export), or the peer uid is refused.",
    "unknown_command": "The daemon does not know the command name.",
    "invalid payload": "The command's JSON payload does not parse into its request type.",
    "store_unavailable": "The store failed while applying the command; nothing was applied (retry with the same `idempotencyKey`).",
}


def rust_codes() -> tuple[list[str], set[str], dict[str, str]]:
    """Core's codes (as_str), retryable set and each code's doc comment."""
    src = (ROOT / "core/src/error.rs").read_text()
    variants = dict(re.findall(r"ErrorCode::(\w+) => \"([A-Z_]+)\"", src))
    enum = re.search(r"pub enum ErrorCode \{(.*?)\n\}", src, re.S).group(1)
    docs = {}
    for doc, name in re.findall(r"((?:\s*///[^\n]*\n)+)\s*(\w+),", enum):
        text = " ".join(line.strip()[3:].strip() for line in doc.strip().splitlines())
        docs[variants[name]] = text
    body = re.search(r"pub fn retryable\(self\) -> bool \{(.*?)\n    \}", src, re.S).group(1)
    retryable = {variants[v] for v in re.findall(r"ErrorCode::(\w+)", body)}
    return list(variants.values()), retryable, docs


def source_files(*dirs: str) -> list[Path]:
    out = []
    for d in dirs:
        out += sorted(p for p in (ROOT / d).rglob("*.rs") if "tests" not in p.parts)
    return out


def without_tests(text: str) -> str:
    return text.split("#[cfg(test)]")[0]


def detail_reasons() -> dict[str, set[str]]:
    """Every `details.reason` value and the files that set it."""
    found: dict[str, set[str]] = {}
    for path in source_files("core/src", "serve/src", "cli/src", "ffi/src"):
        text = without_tests(path.read_text())
        rel = str(path.relative_to(ROOT))
        for m in re.finditer(r'with_detail\(\s*"reason",\s*([^)]*)\)', text):
            arg = m.group(1).strip()
            lit = re.fullmatch(r'"([^"]+)"', arg)
            if lit:
                found.setdefault(lit.group(1), set()).add(rel)
                continue
            # A variable: the literals of its `let` in the lines before.
            let = None
            for let in re.finditer(r"let " + re.escape(arg) + r"\s*=(.*?);\n", text[: m.start()], re.S):
                pass
            if let is None:
                raise SystemExit(f"{TOOL}: {rel}: cannot read the reasons of `{arg}`")
            for v in re.findall(r'"' + SNAKE + r'"', let.group(1)):
                found.setdefault(v, set()).add(rel)
    return found


DENIAL_FILES = ["core/src/governor/engine", "core/src/governor/client/fallback.rs"]
DENIAL_PATTERNS = [
    r'\bdeny\(\s*"' + SNAKE + r'"',
    r'\bdeny\(\s*format!\("' + SNAKE + r":",
    r'\bp\(\s*"' + SNAKE + r'"',
    r'\berr\(\s*"' + SNAKE + r'"',
    r'\brefuse\([^,]+,\s*"' + SNAKE + r'"',
    r'Some\(\(\s*"' + SNAKE + r'"',
    r'denied_reason\s*=\s*"' + SNAKE + r'"',
    r'\brefuse\(\s*"' + SNAKE + r'"\)',
    r'\brefused\(\s*"' + SNAKE + r'"',
    r'const AUDIT_DOWN: &str = "' + SNAKE + r'"',
]


def denial_reasons() -> dict[str, set[str]]:
    """Every reason code the governor's denial helpers are given."""
    found: dict[str, set[str]] = {}
    paths = []
    for d in DENIAL_FILES:
        p = ROOT / d
        paths += sorted(p.rglob("*.rs")) if p.is_dir() else [p]
    for path in paths:
        text = without_tests(path.read_text())
        rel = str(path.relative_to(ROOT))
        hits = []
        for pat in DENIAL_PATTERNS:
            hits += re.findall(pat, text)
        # `let x_reason = if ... { Some("a") } else if ...;` and
        # `for (limit, ..., reason) in [(.., "a"), ...] {`
        for m in re.finditer(r"let (?:\w*reason\w*|message) = (?:if|match) (.*?);\n", text, re.S):
            hits += re.findall(r'Some\("' + SNAKE + r'"\)', m.group(1))
        for m in re.finditer(r"for \([^)]*reason[^)]*\) in \[(.*?)\]\s*\{", text, re.S):
            hits += re.findall(r'"' + SNAKE + r'"', m.group(1))
        for h in hits:
            found.setdefault(h, set()).add(rel)
    return found


def daemon_error_prefixes() -> list[str]:
    src = (ROOT / "core/src/governor/client/mod.rs").read_text()
    body = re.search(r"fn answer_text\(.*?\n\}", src, re.S).group(0)
    return sorted(set(re.findall(r'(?:starts_with\(|== )"([^"]+)"', body)))


def cell(text: str) -> str:
    return text.replace("|", "\\|")


def render(problems: list[str]) -> str:
    data = json.loads((ROOT / "conformance/error-codes.json").read_text())["codes"]
    codes, retryable, docs = rust_codes()
    if [c["code"] for c in data] != codes:
        problems.append("conformance/error-codes.json and core's ErrorCode list different codes")
    if {c["code"] for c in data if c["retryable"]} != retryable:
        problems.append("conformance/error-codes.json and core's ErrorCode::retryable disagree")
    reasons = detail_reasons()
    denials = denial_reasons()
    prefixes = daemon_error_prefixes()
    for name, table, found in [
        ("WHAT_TO_DO", WHAT_TO_DO, set(codes)),
        ("REASONS", REASONS, set(reasons)),
        ("DENIALS", DENIALS, set(denials)),
        ("DAEMON_ERRORS", DAEMON_ERRORS, set(prefixes)),
    ]:
        for missing in sorted(found - set(table)):
            problems.append(f"`{missing}` is in the code but has no prose in {TOOL} {name}")
        for stale in sorted(set(table) - found):
            problems.append(f"`{stale}` has prose in {TOOL} {name} but the code no longer has it")

    out = [
        "# Errors and denials",
        "",
        f"<!-- generated by {TOOL} from the code; do not edit (run it to rewrite) -->",
        "",
        "leasekit reports a failure in one of two ways:",
        "",
        "- an **error**: an exception (Python, Node, Java), an `Err` (Rust) or a status (C), with an",
        "  ARCP v1.1 code, a message, a `retryable` flag derived from the code, and `details`",
        "  (an object; `details.reason` tells apart errors that share a code);",
        "- a **denial**: a governor answer with `granted: false` (or `allowed: false`) and a",
        "  `deniedReason`, plus `retryAfterMs` and a `recommendation` when there is one. A denial is",
        "  an answer, not an error: nothing was reserved, and the same request is denied again",
        "  until its cause changes.",
        "",
        "## Error codes",
        "",
        "The codes of the ARCP v1.1 specification (section 12), the same in every language",
        "(`conformance/error-codes.json`). Only `TIMEOUT`, `HEARTBEAT_LOST` and `INTERNAL_ERROR`",
        "are retryable.",
        "",
        "| code | retryable | meaning | what to do |",
        "|---|---|---|---|",
    ]
    for c in data:
        code = c["code"]
        out.append(
            f"| `{code}` | {'yes' if c['retryable'] else 'no'} | {cell(docs.get(code, ''))} | "
            f"{cell(WHAT_TO_DO.get(code, ''))} |"
        )
    out += [
        "",
        "Other `details` keys: `capability`, `pattern`, `witness` (a subset violation: a target",
        "the child allows and the parent does not), `target`, `currency`, `remaining`,",
        "`parent_remaining`, `child_amount`, `expires_at`, `parent_expires_at`,",
        "`child_expires_at`, `line` (an Agentfile line).",
        "",
        "## `details.reason`",
        "",
        "| reason | code | meaning | what to do |",
        "|---|---|---|---|",
    ]
    for r in sorted(reasons):
        codes_, meaning, todo = REASONS.get(r, ("", "", ""))
        out.append(f"| `{r}` | {cell(codes_)} | {cell(meaning)} | {cell(todo)} |")
    out += [
        "",
        "## Governor denial reasons",
        "",
        "`deniedReason` is a reason code, or a code and a subject after a colon",
        "(`tool_not_registered:<toolId>`); the code is what the metrics count",
        "(`deniesByReason`) and what to match on. `Acquire` checks in the order of",
        "[governor.md](governor.md) (13.3): the first failing check names the reason. Approval and",
        "policy commands refuse with the same codes, in their `message`.",
        "",
        "| reason code | returned by | meaning | what to do |",
        "|---|---|---|---|",
    ]
    for d in sorted(denials):
        where, meaning, todo = DENIALS.get(d, ("", "", ""))
        out.append(f"| `{d}` | {where} | {cell(meaning)} | {cell(todo)} |")
    out += [
        "",
        "## Daemon errors (`success: false`)",
        "",
        "A daemon answers a command it cannot run with `success: false` and an `error` text; a",
        "governor client turns it into an error. By the text's start:",
        "",
        "| error starts with | client error | meaning |",
        "|---|---|---|",
    ]
    for p in prefixes:
        code = {"permission_denied": "PERMISSION_DENIED", "unknown_command": "INVALID_REQUEST", "invalid payload": "INVALID_REQUEST"}.get(p, "INTERNAL_ERROR")
        reason = "store_unavailable" if p == "store_unavailable" else "daemon_error"
        out.append(f"| `{p}` | `{code}`, reason `{reason}` | {cell(DAEMON_ERRORS.get(p, ''))} |")
    out += [
        "| anything else | `INTERNAL_ERROR`, reason `daemon_error` | A daemon-side failure; the message carries the daemon's text. |",
        "",
    ]
    return "\n".join(out)


def main() -> int:
    problems: list[str] = []
    text = render(problems)
    return write_or_check(TOOL, __doc__, {OUT: text}, problems, "docs/errors.md matches the code")


if __name__ == "__main__":
    sys.exit(main())
