#!/usr/bin/env python3
"""Writes conformance/vectors/governor.json and conformance/vectors/frame_decode.json.

Every expectation was derived by reading section 13 of the semantics (docs/governor.md;
where 13 says "as LeaseGate", the LeaseGate behaviour it describes), never by running leasekit. Each vector
carries a `comment` that starts with the section 13 subsection it comes from
("13.3 step 12: ...").

Deterministic: fixed keys (ECDSA P-256 from fixed scalars, Ed25519 from fixed seeds),
RFC 6979 deterministic ECDSA, the deterministic id source (lease-N, approval-N, appr-N,
sub-N) and a manual clock, as docs/api.md defines for the `governor` op.

Usage:
  python3 conformance/tools/gen_governor_vectors.py               rewrite both files
  python3 conformance/tools/gen_governor_vectors.py --check        regenerate in memory, exit 1
                                                                   on any difference from disk
  python3 conformance/tools/gen_governor_vectors.py --self-check   internal consistency: the
      signatures verify (or fail) as each vector expects, policy and audit hashes recompute
      (RFC 8785), frames decode as expected with a reference decoder, ids are unique, every
      vector cites a 13.x subsection
  python3 conformance/tools/gen_governor_vectors.py --counts       vectors per subsection

Dependency: the `cryptography` package (>= 44), see conformance/tools/requirements.txt:
  python3 -m venv target/govvec-venv && target/govvec-venv/bin/pip install -r conformance/tools/requirements.txt
  target/govvec-venv/bin/python conformance/tools/gen_governor_vectors.py --check
"""
import base64
import hashlib
import json
import os
import re
import struct
import sys
from datetime import datetime, timedelta, timezone

try:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519
    from cryptography.hazmat.primitives.asymmetric.utils import (
        decode_dss_signature, encode_dss_signature)
except ImportError:  # pragma: no cover - the message is the point
    sys.stderr.write(
        "gen_governor_vectors.py needs the `cryptography` package (>= 44):\n"
        "  python3 -m venv target/govvec-venv && "
        "target/govvec-venv/bin/pip install -r conformance/tools/requirements.txt\n"
        "then run it with target/govvec-venv/bin/python.\n")
    sys.exit(2)

OUT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vectors"))
START = "2026-03-01T12:00:00Z"          # noon UTC: 12 h (43 200 000 ms) to the next midnight
ZERO64 = "0" * 64

# ----------------------------------------------------------------------------- helpers


def parse_time(s):
    return datetime.fromisoformat(s.replace("Z", "+00:00")).astimezone(timezone.utc)


def ts(dt):
    """RFC 3339 UTC with milliseconds and Z (docs/api.md: times in responses)."""
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (dt.microsecond // 1000)


def ms_to_midnight(dt):
    nxt = (dt + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return int((nxt - dt) / timedelta(milliseconds=1))


def jcs(v):
    """RFC 8785 canonical JSON (the subset the vectors use: no non-integral numbers)."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if v.is_integer() and abs(v) < 1e21:
            return str(int(v))
        raise ValueError("non-integral numbers are not used in these vectors")
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ",".join(jcs(x) for x in v) + "]"
    if isinstance(v, dict):
        keys = sorted(v, key=lambda k: k.encode("utf-16-be"))
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + jcs(v[k]) for k in keys) + "}"
    raise TypeError(type(v))


def sha256_hex(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def policy_hash(policy):
    """13.9 / 13.15: lower-case hex SHA-256 of the RFC 8785 form of the policy as submitted."""
    return sha256_hex(jcs(policy))


# ----------------------------------------------------------------------------- keys

def _ec_key(scalar):
    return ec.derive_private_key(scalar, ec.SECP256R1())


def _ed_key(seed_byte):
    return ed25519.Ed25519PrivateKey.from_private_bytes(bytes([seed_byte]) * 32)


KEYS = {
    "ec1": _ec_key(0x1EA5EC17_0000_0000_0000_0000_0000_0001),
    "ec2": _ec_key(0x1EA5EC17_0000_0000_0000_0000_0000_0002),
    "ed1": _ed_key(0x11),
    "ed2": _ed_key(0x22),
}


def spki_b64(name):
    pub = KEYS[name].public_key()
    der = pub.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return base64.b64encode(der).decode()


def signed_text(version, created, author, content):
    """13.15 Signatures: `version|createdAtUtc|author|policyContentJson`, createdAtUtc as sent."""
    return ("%s|%s|%s|%s" % (version, created, author, content)).encode("utf-8")


def sign(name, msg, der=False):
    key = KEYS[name]
    if name.startswith("ed"):
        return base64.b64encode(key.sign(msg)).decode()
    sig = key.sign(msg, ec.ECDSA(hashes.SHA256(), deterministic_signing=True))
    if der:
        return base64.b64encode(sig).decode()
    r, s = decode_dss_signature(sig)
    return base64.b64encode(r.to_bytes(32, "big") + s.to_bytes(32, "big")).decode()


def verify_any(keys_b64, msg, sig_b64):
    """Reference verifier (13.15): P1363 or DER ECDSA P-256/SHA-256, or Ed25519 for an Ed25519 SPKI."""
    try:
        sig = base64.b64decode(sig_b64, validate=True)
    except Exception:
        return False
    for kb in keys_b64:
        pub = serialization.load_der_public_key(base64.b64decode(kb))
        try:
            if isinstance(pub, ed25519.Ed25519PublicKey):
                pub.verify(sig, msg)
                return True
            if isinstance(pub, ec.EllipticCurvePublicKey):
                if len(sig) == 64:
                    der = encode_dss_signature(int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big"))
                else:
                    der = sig
                pub.verify(der, msg, ec.ECDSA(hashes.SHA256()))
                return True
        except (InvalidSignature, ValueError):
            continue
    return False


# ----------------------------------------------------------------------------- scenario builder

BASE_REQ = {"actorId": "alice", "workspaceId": "ws1", "modelId": "gpt-4o-mini",
            "estimatedPromptTokens": 100, "maxOutputTokens": 50, "estimatedCostCents": 5}
DEL = object()


def R(**kw):
    """An Acquire payload: BASE_REQ with overrides (DEL removes a field)."""
    d = dict(BASE_REQ)
    for k, v in kw.items():
        if v is DEL:
            d.pop(k, None)
        else:
            d[k] = v
    return d


PLAN = [{"rank": 1, "action": "reduce_output_tokens"}, {"rank": 2, "action": "compress_context"},
        {"rank": 3, "action": "switch_model"}, {"rank": 4, "action": "delay_backoff"}]


class G(dict):
    """Expect marker: a grant of lease `lid`; expiresAtUtc = step time + the scenario's TTL."""


def grant(lid, **extra):
    g = G(granted=True, leaseId=lid)
    g.update(extra)
    return g


def deny(reason, retry=None, plan=False, **extra):
    d = {"granted": False, "deniedReason": reason}
    if retry is not None:
        d["retryAfterMs"] = retry
    if plan:
        d["fallbackPlan"] = PLAN
    d.update(extra)
    return d


def REL(lid, actual=0, **kw):
    d = {"leaseId": lid, "actualPromptTokens": 80, "actualOutputTokens": 40,
         "actualCostCents": actual, "outcome": "success"}
    d.update(kw)
    return d


RECORDED = {"classification": "recorded"}
NOT_FOUND = {"classification": "leaseNotFound"}
FAILED = {"success": False}


class Sc:
    """One `governor` vector: a policy, options, a start time and steps with their expects."""

    def __init__(self, comment, policy=None, options=None, start=START, store=None):
        assert re.match(r"^13\.\d+", comment), comment
        self.comment = comment
        self.policy = {} if policy is None else policy
        self.options = options
        self.start = start
        self.store = store
        self.now = parse_time(start)
        self.ttl = (self.policy.get("leaseTtlMs") or (options or {}).get("leaseTtlMs") or 20000)
        self.steps, self.expect = [], []
        self.exp = {}  # leaseId -> expiresAtUtc string

    def _at(self, step, at):
        if at is None:
            return
        if isinstance(at, int):
            step["at"] = "+%d" % at
            self.now += timedelta(milliseconds=at)
        else:
            step["at"] = at
            self.now = parse_time(at)

    def cmd(self, command, payload, expect, at=None):
        step = {}
        self._at(step, at)
        step["command"] = command
        step["payload"] = payload
        if isinstance(expect, G):
            e = {"granted": True, "leaseId": expect["leaseId"],
                 "expiresAtUtc": ts(self.now + timedelta(milliseconds=self.ttl))}
            e.update({k: v for k, v in expect.items() if k not in e})
            self.exp[expect["leaseId"]] = e["expiresAtUtc"]
            expect = e
        elif callable(expect):
            expect = expect(self)
        self.steps.append(step)
        self.expect.append(expect)
        return self

    def acq(self, req, expect, at=None):
        return self.cmd("Acquire", req, expect, at)

    def rel(self, payload, expect=RECORDED, at=None):
        return self.cmd("Release", payload, expect, at)

    def metrics(self, expect, at=None):
        return self.cmd("GetMetrics", {}, expect, at)

    def restart(self, at=None):
        assert self.store == "sqlite"
        step = {}
        self._at(step, at)
        step["restart"] = True
        self.steps.append(step)
        self.expect.append("ok")
        return self

    def verify(self, expect, at=None):
        step = {}
        self._at(step, at)
        step["verify_audit"] = True
        self.steps.append(step)
        self.expect.append(expect)
        return self

    def t(self, ms=0):
        return ts(self.now + timedelta(milliseconds=ms))

    def vector(self):
        inp = {"policy": self.policy}
        if self.options is not None:
            inp["options"] = self.options
        inp["start"] = self.start
        if self.store is not None:
            inp["store"] = self.store
        inp["steps"] = self.steps
        return {"comment": self.comment, "op": "governor", "input": inp, "expect": self.expect}


def _register():
    registry = []

    def add(fn):
        registry.append(fn)
        return fn
    return registry, add


SECTIONS, section = _register()


# ============================================================================ 13.3 acquire


@section
def acquire_basics():
    v = []
    p = {"policyVersion": "v1"}
    v.append(Sc("13.3 step 18, 13.2: a grant carries lease-1, expiry = now + leaseTtlMs (20 000), "
                "LeaseGate's constraints, the blank orgId as default-org, the role and the policy hash", p)
             .acq(R(), grant("lease-1", orgId="default-org", principalType="human", role="member",
                             policyVersion="v1", policyHash=policy_hash(p),
                             constraints={"maxOutputTokensOverride": 50, "maxToolCalls": 6,
                                          "maxContextTokens": 0})))
    v.append(Sc("13.3 step 18: constraints maxOutputTokensOverride = min(maxOutputTokens, maxToolOutputTokens), "
                "maxContextTokens = min(maxContextTokens, requestedContextTokens) (LeaseGate)")
             .acq(R(maxOutputTokens=5000, requestedContextTokens=2000),
                  grant("lease-1", constraints={"maxOutputTokensOverride": 4000, "maxToolCalls": 6,
                                                "maxContextTokens": 2000})))
    v.append(Sc("13.2: the deterministic id source counts leases from 1; every step time comes from the manual clock")
             .acq(R(), grant("lease-1"))
             .acq(R(actorId="bob"), grant("lease-2"), at=1500)
             .acq(R(actorId="carol"), grant("lease-3"), at="2026-03-01T12:00:07.250Z"))
    v.append(Sc("13.2, 13.15 Ids: a denial draws no id", {"dailyBudgetCents": 10})
             .acq(R(estimatedCostCents=11), deny("daily_budget_exceeded"))
             .acq(R(estimatedCostCents=10), grant("lease-1")))
    v.append(Sc("13.2: leaseTtlMs from the construction options", options={"leaseTtlMs": 5000})
             .acq(R(), grant("lease-1")))
    v.append(Sc("13.2, 13.15 Options and policy: a field the policy sets wins over the options",
                {"leaseTtlMs": 7000}, options={"leaseTtlMs": 5000})
             .acq(R(), grant("lease-1")))
    v.append(Sc("13.2: maxInFlight from the options when the policy omits it", {}, options={"maxInFlight": 1})
             .acq(R(), grant("lease-1"))
             .acq(R(actorId="bob"), deny("concurrency_limit_reached", 500)))
    v.append(Sc("13.2: the policy's maxInFlight wins over the options'", {"maxInFlight": 2}, options={"maxInFlight": 1})
             .acq(R(), grant("lease-1"))
             .acq(R(actorId="bob"), grant("lease-2"))
             .acq(R(actorId="carol"), deny("concurrency_limit_reached", 500)))
    v.append(Sc("13.3 step 1: a non-blank orgId is kept")
             .acq(R(orgId="acme"), grant("lease-1", orgId="acme")))
    v.append(Sc("13.15: unknown payload fields are ignored; absent fields take their defaults "
                "(actionType chatCompletion, principalType human, role member)")
             .acq(R(someFutureField={"x": 1}, anotherOne=[1, 2]), grant("lease-1", role="member", principalType="human")))
    v.append(Sc("13.15: an Acquire with an empty payload takes every default and is granted under the default policy")
             .acq({}, grant("lease-1", orgId="default-org")))
    v.append(Sc("13.3: the response echoes the request's idempotencyKey")
             .acq(R(idempotencyKey="k-echo"), grant("lease-1", idempotencyKey="k-echo")))
    return v


@section
def acquire_pools():
    v = []
    v.append(Sc("13.3 step 12 (reference 3.3 case 1): maxInFlight 1: a second lease is denied "
                "concurrency_limit_reached, retry 500, until the first is released", {"maxInFlight": 1})
             .acq(R(idempotencyKey="k1"), grant("lease-1"))
             .acq(R(idempotencyKey="k2"), deny("concurrency_limit_reached", 500))
             .rel(REL("lease-1", 3))
             .acq(R(idempotencyKey="k2"), grant("lease-2")))
    v.append(Sc("13.3 step 13: weighted compute units must fit under maxComputeUnits; compute_capacity_reached "
                "retry 300", {"maxComputeUnits": 8})
             .acq(R(estimatedComputeUnits=5), grant("lease-1"))
             .acq(R(estimatedComputeUnits=4), deny("compute_capacity_reached", 300))
             .acq(R(estimatedComputeUnits=3), grant("lease-2")))
    v.append(Sc("13.3 step 13: a request is charged at least one compute unit (max(1, estimatedComputeUnits))",
                {"maxComputeUnits": 1})
             .acq(R(estimatedComputeUnits=0), grant("lease-1"))
             .acq(R(estimatedComputeUnits=0), deny("compute_capacity_reached", 300)))
    v.append(Sc("13.3 step 18: a compute denial leaves the concurrency pool as it was (atomic reservation)",
                {"maxInFlight": 2, "maxComputeUnits": 3})
             .acq(R(estimatedComputeUnits=3), grant("lease-1"))
             .acq(R(estimatedComputeUnits=1), deny("compute_capacity_reached", 300))
             .rel(REL("lease-1", 1))
             .acq(R(estimatedComputeUnits=1), grant("lease-2"))
             .acq(R(estimatedComputeUnits=1), grant("lease-3"))
             .metrics({"activeLeases": 2}))
    v.append(Sc("13.3 step 14: request rate over rateWindowMs; rate_limit_reached with retry = "
                "max(200, ms until the oldest event leaves the window) and a fallback plan",
                {"maxRequestsPerMinute": 2})
             .acq(R(), grant("lease-1"))
             .acq(R(), grant("lease-2"), at=1000)
             .acq(R(), deny("rate_limit_reached", 58000, plan=True), at=1000))
    v.append(Sc("13.3 step 14: the rate retry has a floor of 200 ms", {"maxRequestsPerMinute": 2})
             .acq(R(), grant("lease-1"))
             .acq(R(), grant("lease-2"), at=1000)
             .acq(R(), deny("rate_limit_reached", 200, plan=True), at=58999))
    v.append(Sc("13.3 step 14: an event leaves the window after rateWindowMs; then a request fits again",
                {"maxRequestsPerMinute": 2})
             .acq(R(), grant("lease-1"))
             .acq(R(), grant("lease-2"), at=1000)
             .acq(R(), grant("lease-3"), at=59001))
    v.append(Sc("13.3 step 14 (reference 3.3 case 5): 2 requests / 20 tokens per 150 ms window: two 5-token "
                "acquires pass, the third is denied with retry > 0 (here the 200 floor), after 220 ms it passes",
                {"maxRequestsPerMinute": 2, "maxTokensPerMinute": 20, "rateWindowMs": 150})
             .acq(R(estimatedPromptTokens=3, maxOutputTokens=2), grant("lease-1"))
             .acq(R(estimatedPromptTokens=3, maxOutputTokens=2), grant("lease-2"))
             .acq(R(estimatedPromptTokens=3, maxOutputTokens=2), deny("rate_limit_reached", 200, plan=True))
             .acq(R(estimatedPromptTokens=3, maxOutputTokens=2), grant("lease-3"), at=220))
    v.append(Sc("13.3 step 14: the token cost of a request is estimatedPromptTokens + maxOutputTokens; "
                "tokens over maxTokensPerMinute deny", {"maxTokensPerMinute": 1000})
             .acq(R(estimatedPromptTokens=400, maxOutputTokens=200), grant("lease-1"))
             .acq(R(estimatedPromptTokens=400, maxOutputTokens=200), deny("rate_limit_reached", 60000, plan=True))
             .acq(R(estimatedPromptTokens=300, maxOutputTokens=100), grant("lease-2")))
    v.append(Sc("13.3 step 14: a request that cannot fit an empty window is denied with retry 1000 "
                "(LeaseGate's empty-window value)", {"maxTokensPerMinute": 100})
             .acq(R(estimatedPromptTokens=100, maxOutputTokens=50), deny("rate_limit_reached", 1000, plan=True)))
    v.append(Sc("13.4: release replaces the estimated tokens with the actual tokens in the rate window",
                {"maxTokensPerMinute": 1000})
             .acq(R(estimatedPromptTokens=400, maxOutputTokens=400), grant("lease-1"))
             .rel(REL("lease-1", 1, actualPromptTokens=100, actualOutputTokens=100))
             .acq(R(estimatedPromptTokens=400, maxOutputTokens=400), grant("lease-2")))
    ctx = [("requestedContextTokens", 16001, "context_prompt_tokens_exceeded"),
           ("requestedRetrievedChunks", 41, "context_retrieved_chunks_exceeded"),
           ("estimatedToolOutputTokens", 4001, "tool_output_tokens_exceeded")]
    for field, val, reason in ctx:
        v.append(Sc("13.3 step 15: %s over its cap (default %d) -> %s, retry 200, fallback plan"
                    % (field, val - 1, reason))
                 .acq(R(**{field: val}), deny(reason, 200, plan=True))
                 .acq(R(**{field: val - 1}), grant("lease-1")))
    v.append(Sc("13.3 step 15: the context checks run in LeaseGate's order (prompt tokens first)")
             .acq(R(requestedContextTokens=16001, requestedRetrievedChunks=41, estimatedToolOutputTokens=4001),
                  deny("context_prompt_tokens_exceeded", 200, plan=True)))
    v.append(Sc("13.15: maxRetrievedChunks is one value, checked only at the context step, so too many chunks "
                "are context_retrieved_chunks_exceeded, never retrieval_chunks_exceeded", {"maxRetrievedChunks": 5})
             .acq(R(requestedRetrievedChunks=6), deny("context_retrieved_chunks_exceeded", 200, plan=True)))
    v.append(Sc("13.3 step 15: a policy-set maxContextTokens is the cap", {"maxContextTokens": 100})
             .acq(R(requestedContextTokens=101), deny("context_prompt_tokens_exceeded", 200, plan=True))
             .acq(R(requestedContextTokens=100), grant("lease-1")))
    ret = [("requestedRetrievedBytes", 1000001, "retrieval_bytes_exceeded"),
           ("requestedRetrievedTokens", 12001, "retrieval_tokens_exceeded")]
    for field, val, reason in ret:
        v.append(Sc("13.3 step 16: %s over the policy cap (default %d) -> %s, retry 250, fallback plan"
                    % (field, val - 1, reason))
                 .acq(R(**{field: val}), deny(reason, 250, plan=True))
                 .acq(R(**{field: val - 1}), grant("lease-1")))
    v.append(Sc("13.3 steps 15-16: the context step runs before the retrieval step")
             .acq(R(requestedContextTokens=16001, requestedRetrievedTokens=12001),
                  deny("context_prompt_tokens_exceeded", 200, plan=True)))
    return v


@section
def acquire_budget():
    v = []
    v.append(Sc("13.3 step 17 (reference 3.3 case 2): budget 10, estimate 11 -> daily_budget_exceeded, retry = ms "
                "to the next UTC midnight (12 h from noon), 4-step fallback plan", {"dailyBudgetCents": 10})
             .acq(R(estimatedCostCents=11), deny("daily_budget_exceeded", 43200000, plan=True)))
    v.append(Sc("13.3 step 17: reserved + estimate may reach the budget exactly; one cent more is denied",
                {"dailyBudgetCents": 10})
             .acq(R(estimatedCostCents=4), grant("lease-1"))
             .acq(R(estimatedCostCents=6), grant("lease-2"))
             .acq(R(estimatedCostCents=1), deny("daily_budget_exceeded", 43200000, plan=True)))
    v.append(Sc("13.3 step 17: the daily-budget retry is at least 1000 ms (0.5 s before midnight)",
                {"dailyBudgetCents": 10}, start="2026-03-01T23:59:59.500Z")
             .acq(R(estimatedCostCents=11), deny("daily_budget_exceeded", 1000, plan=True)))
    v.append(Sc("13.3 step 17: the daily-budget retry counts down to midnight (2 s before it)",
                {"dailyBudgetCents": 10}, start="2026-03-01T23:59:58Z")
             .acq(R(estimatedCostCents=11), deny("daily_budget_exceeded", 2000, plan=True)))
    v.append(Sc("13.2: the daily budget resets at 00:00 UTC", {"dailyBudgetCents": 10}, start="2026-03-01T23:59:50Z")
             .acq(R(estimatedCostCents=10), grant("lease-1"))
             .acq(R(estimatedCostCents=10), deny("daily_budget_exceeded", 5000, plan=True), at=5000)
             .acq(R(estimatedCostCents=10), grant("lease-2"), at="2026-03-02T00:00:00Z"))
    v.append(Sc("13.2: default dailyBudgetCents is 500")
             .acq(R(estimatedCostCents=500), grant("lease-1"))
             .acq(R(estimatedCostCents=1), deny("daily_budget_exceeded", 43200000, plan=True)))
    v.append(Sc("13.3 step 17, 13.15 Auto-apply: with autoApplyConstraints the budget step downgrades: it reserves "
                "max(1, floor(estimate/2)), halves the output (min 32) and reports budget_auto_downgrade_applied",
                {"dailyBudgetCents": 10})
             .acq(R(estimatedCostCents=16, maxOutputTokens=200, autoApplyConstraints=True),
                  grant("lease-1", recommendation="budget_auto_downgrade_applied",
                        constraints={"maxOutputTokensOverride": 100}))
             .metrics({"activeLeases": 1, "spendTodayCents": 8,
                       "grantsByReason": {"budget_auto_downgrade_applied": 1}}))
    v.append(Sc("13.3 step 17: a budget downgrade forces the first model of the intent's tier",
                {"dailyBudgetCents": 10, "intentModelTiers": {"draft": ["cheap-model", "gpt-4o-mini"]}})
             .acq(R(estimatedCostCents=16, maxOutputTokens=50, autoApplyConstraints=True),
                  grant("lease-1", recommendation="budget_auto_downgrade_applied",
                        constraints={"forcedModelId": "cheap-model", "maxOutputTokensOverride": 32})))
    v.append(Sc("13.3 step 17: when even the downgraded reservation does not fit, daily_budget_exceeded",
                {"dailyBudgetCents": 10})
             .acq(R(estimatedCostCents=30, autoApplyConstraints=True), deny("daily_budget_exceeded", 43200000, plan=True))
             .metrics({"activeLeases": 0, "spendTodayCents": 0}))
    v.append(Sc("13.15 Auto-apply: a context auto-compression grant reports context_auto_compression_applied with "
                "maxOutputTokensOverride max(32, n/2) and cooldownMs 250")
             .acq(R(requestedContextTokens=20000, maxOutputTokens=200, autoApplyConstraints=True),
                  grant("lease-1", recommendation="context_auto_compression_applied",
                        constraints={"maxOutputTokensOverride": 100, "cooldownMs": 250}))
             .metrics({"grantsByReason": {"context_auto_compression_applied": 1}}))
    v.append(Sc("13.15 Auto-apply: a retrieval auto-compression grant reports retrieval_auto_compression_applied, "
                "cooldownMs 250, maxContextTokens = min(maxContextTokens, summarizationTargetTokens)")
             .acq(R(requestedRetrievedTokens=20000, autoApplyConstraints=True),
                  grant("lease-1", recommendation="retrieval_auto_compression_applied",
                        constraints={"cooldownMs": 250, "maxContextTokens": 1000})))
    v.append(Sc("13.15 Auto-apply: the last recommendation that applied is reported (context, then retrieval)")
             .acq(R(requestedContextTokens=20000, requestedRetrievedTokens=20000, autoApplyConstraints=True),
                  grant("lease-1", recommendation="retrieval_auto_compression_applied")))
    v.append(Sc("13.15 Auto-apply: auto-apply grants go on through the daily-budget step: a context auto-compression "
                "that then does not fit the budget is denied and reserves nothing", {"dailyBudgetCents": 10})
             .acq(R(requestedContextTokens=20000, estimatedCostCents=30, autoApplyConstraints=True),
                  deny("daily_budget_exceeded", 43200000, plan=True))
             .metrics({"activeLeases": 0, "spendTodayCents": 0})
             .acq(R(estimatedCostCents=10), grant("lease-1")))
    v.append(Sc("13.3 step 16, 13.15 Auto-apply: governed summarization of a contribution over "
                "max(64, summarizationTargetTokens) adds one cent to the reservation")
             .acq(R(requestedRetrievedTokens=20000, autoApplyConstraints=True, estimatedCostCents=5,
                    contextContributions=[{"sourceId": "doc-1", "chunks": 2, "bytes": 4000, "tokens": 5000}]),
                  grant("lease-1", recommendation="retrieval_auto_compression_applied"))
             .metrics({"spendTodayCents": 6}))
    v.append(Sc("13.3 step 16: a contribution at the summarization target is not summarized (no cent)")
             .acq(R(requestedRetrievedTokens=20000, autoApplyConstraints=True, estimatedCostCents=5,
                    contextContributions=[{"sourceId": "doc-1", "chunks": 1, "bytes": 800, "tokens": 1000}]),
                  grant("lease-1"))
             .metrics({"spendTodayCents": 5}))
    v.append(Sc("13.3 step 16: the summarization cent that does not fit the budget denies "
                "summarization_budget_unavailable, retry 500, fallback plan", {"dailyBudgetCents": 10})
             .acq(R(estimatedCostCents=10), grant("lease-1"))
             .acq(R(requestedRetrievedTokens=20000, autoApplyConstraints=True, estimatedCostCents=0,
                    contextContributions=[{"sourceId": "doc-1", "chunks": 2, "bytes": 4000, "tokens": 5000}]),
                  deny("summarization_budget_unavailable", 500, plan=True))
             .metrics({"activeLeases": 1, "spendTodayCents": 10}))
    v.append(Sc("13.3 step 18: a summarization followed by a daily-budget denial leaves no cent reserved",
                {"dailyBudgetCents": 10})
             .acq(R(requestedRetrievedTokens=20000, autoApplyConstraints=True, estimatedCostCents=30,
                    contextContributions=[{"sourceId": "doc-1", "chunks": 2, "bytes": 4000, "tokens": 5000}]),
                  deny("daily_budget_exceeded", 43200000, plan=True))
             .metrics({"spendTodayCents": 0})
             .acq(R(estimatedCostCents=10), grant("lease-1")))
    return v


SVC_TOKEN = "svc-token-7f3a"   # only its SHA-256 is in the policy (13.3 step 7)
SVC_POLICY = {"serviceAccounts": [{
    "name": "svc-ci", "tokenHash": sha256_hex(SVC_TOKEN), "orgId": "acme", "workspaceId": "ws1",
    "role": "serviceAccount", "allowedCapabilities": ["read"], "allowedModels": ["gpt-4o-mini"],
    "allowedTools": ["fs.read"]}],
    "toolRegistry": [{"toolId": "fs.read", "category": "fileRead"}, {"toolId": "sh", "category": "exec"}]}


def SVC(**kw):
    base = dict(orgId="acme", actorId="", principalType="service", authToken=SVC_TOKEN)
    base.update(kw)
    return R(**base)


@section
def acquire_principal():
    v = []
    v.append(Sc("13.3 step 7: a service account resolves by the SHA-256 of its token with its org and workspace; "
                "the role comes from the account", SVC_POLICY)
             .acq(SVC(), grant("lease-1", principalType="service", role="serviceAccount", orgId="acme")))
    v.append(Sc("13.3 step 7: a wrong service token -> service_account_unauthorized", SVC_POLICY)
             .acq(SVC(authToken="svc-token-wrong"), deny("service_account_unauthorized")))
    v.append(Sc("13.3 step 7: an empty service token -> service_account_unauthorized", SVC_POLICY)
             .acq(SVC(authToken=""), deny("service_account_unauthorized")))
    v.append(Sc("13.3 step 7: the token must be resolved together with the org and workspace", SVC_POLICY)
             .acq(SVC(workspaceId="ws2"), deny("service_account_unauthorized"))
             .acq(SVC(orgId="other-org"), deny("service_account_unauthorized")))
    v.append(Sc("13.3 step 7: the token hash itself is not a token", SVC_POLICY)
             .acq(SVC(authToken=sha256_hex(SVC_TOKEN)), deny("service_account_unauthorized")))
    v.append(Sc("13.3 step 7: a capability outside the account's list -> service_account_capability_denied", SVC_POLICY)
             .acq(SVC(requestedCapabilities=["read", "write"]), deny("service_account_capability_denied")))
    v.append(Sc("13.3 step 7: a model outside the account's list -> service_account_model_denied", SVC_POLICY)
             .acq(SVC(modelId="gpt-4o"), deny("service_account_model_denied")))
    v.append(Sc("13.3 step 7: a tool outside the account's list -> service_account_tool_denied (step 7 runs before "
                "the registry of step 8)", SVC_POLICY)
             .acq(SVC(requestedTools=[{"toolId": "sh", "category": "exec"}]), deny("service_account_tool_denied")))
    v.append(Sc("13.3 step 7: an allowed capability, model and tool pass", SVC_POLICY)
             .acq(SVC(requestedCapabilities=["read"], requestedTools=[{"toolId": "fs.read", "category": "fileRead"}]),
                  grant("lease-1", role="serviceAccount")))
    v.append(Sc("13.3 step 7: without actorRoles a human's role is the client's")
             .acq(R(role="admin"), grant("lease-1", role="admin")))
    v.append(Sc("13.3 step 7, 13.15 Roles: with a non-empty actorRoles a human's role comes from it and the client's "
                "role is ignored; an unlisted actor is member", {"actorRoles": {"alice": "admin"}})
             .acq(R(role="viewer"), grant("lease-1", role="admin"))
             .acq(R(actorId="bob", role="owner"), grant("lease-2", role="member")))
    v.append(Sc("13.15 Roles: the effective role drives role-keyed rules (the client's claimed admin is ignored)",
                {"actorRoles": {"alice": "viewer"},
                 "allowedCapabilitiesByRole": {"viewer": {"chatCompletion": ["read"]}}})
             .acq(R(role="admin", requestedCapabilities=["write"]), deny("capability_not_allowed_for_role"))
             .acq(R(role="admin", requestedCapabilities=["read"]), grant("lease-1", role="viewer")))
    return v


TOOLS = [{"toolId": "fs.read", "category": "fileRead"}, {"toolId": "web.get", "category": "networkRead"},
         {"toolId": "http.post", "category": "networkWrite"}, {"toolId": "sh", "category": "exec"}]


def T(*ids):
    cat = {t["toolId"]: t["category"] for t in TOOLS}
    return [{"toolId": i, "category": cat.get(i, "other")} for i in ids]


@section
def acquire_registry_and_rules():
    v = []
    reg = {"toolRegistry": TOOLS}
    v.append(Sc("13.15 Allow-lists: an empty toolRegistry makes every requested tool tool_not_registered:<toolId>")
             .acq(R(requestedTools=T("fs.read")), deny("tool_not_registered:fs.read"))
             .acq(R(), grant("lease-1")))
    v.append(Sc("13.3 step 8: an unregistered tool -> tool_not_registered:<toolId>", reg)
             .acq(R(requestedTools=T("fs.read") + [{"toolId": "rm.all", "category": "exec"}]),
                  deny("tool_not_registered:rm.all")))
    v.append(Sc("13.3 step 8: a registered tool with another category -> tool_category_mismatch:<toolId>", reg)
             .acq(R(requestedTools=[{"toolId": "fs.read", "category": "fileWrite"}]),
                  deny("tool_category_mismatch:fs.read")))
    v.append(Sc("13.3 step 8, 13.15: an absent tool category is other, in the registry and in the request",
                {"toolRegistry": [{"toolId": "calc"}]})
             .acq(R(requestedTools=[{"toolId": "calc"}]), grant("lease-1"))
             .acq(R(requestedTools=[{"toolId": "calc", "category": "exec"}]), deny("tool_category_mismatch:calc")))
    v.append(Sc("13.3 steps 7-8: the principal check runs before the registry", dict(SVC_POLICY, toolRegistry=[]))
             .acq(SVC(authToken="nope", requestedTools=T("fs.read")), deny("service_account_unauthorized")))
    rules = [
        ("9.1", {"intentModelTiers": {"draft": ["cheap-model"]}}, R(), "intent_model_not_allowed"),
        ("9.2", {"intentMaxCostCents": {"draft": 10}}, R(estimatedCostCents=11), "intent_cost_exceeded"),
        ("9.3", {"allowedModelsByWorkspace": {"ws1": ["cheap-model"]}}, R(), "workspace_model_not_allowed"),
        ("9.4", {"allowedModels": ["cheap-model"]}, R(), "model_not_allowed"),
        ("9.5", {"allowedCapabilitiesByRole": {"member": {"chatCompletion": ["read"]}}},
         R(requestedCapabilities=["read", "write"]), "capability_not_allowed_for_role"),
        ("9.5", {"allowedCapabilities": {"chatCompletion": ["read"]}},
         R(requestedCapabilities=["write"]), "capability_not_allowed"),
        ("9.6", {"riskRequiresApproval": ["pii"]}, R(riskFlags=["pii"]), "risk_requires_approval"),
        ("9.7", dict(reg, deniedToolCategories=["exec"]), R(requestedTools=T("sh")), "tool_category_denied:Exec"),
        ("9.7", dict(reg, deniedToolCategories=["networkWrite"]), R(requestedTools=T("fs.read", "http.post")),
         "tool_category_denied:NetworkWrite"),
        ("9.8", dict(reg, allowedToolsByActorWorkspace={"alice|ws1": ["fs.read"]}), R(requestedTools=T("web.get")),
         "tool_not_allowed:web.get"),
        ("9.9", dict(reg, allowedToolsByWorkspaceRole={"ws1|Member": ["fs.read"]}), R(requestedTools=T("web.get")),
         "tool_not_allowed_for_role:web.get"),
        ("9.8", dict(reg, deniedTools=["web.get"]), R(requestedTools=T("fs.read", "web.get")), "tool_not_allowed:web.get"),
    ]
    for rule, pol, req, reason in rules:
        v.append(Sc("13.3 step 9 (rule %s): %s, no retryAfterMs, no plan" % (rule, reason), pol)
                 .acq(req, deny(reason)))
    allowed = [
        ("9.1", {"intentModelTiers": {"draft": ["cheap-model", "gpt-4o-mini"]}}, R()),
        ("9.2", {"intentMaxCostCents": {"draft": 10}}, R(estimatedCostCents=10)),
        ("9.3", {"allowedModelsByWorkspace": {"ws2": ["cheap-model"]}}, R()),
        ("9.4", {"allowedModels": []}, R()),
        ("9.5", {"allowedCapabilitiesByRole": {"member": {"embedding": ["read"]}}}, R(requestedCapabilities=["write"])),
        ("9.6", {"riskRequiresApproval": ["pii"]}, R(riskFlags=["internal"])),
        ("9.8", dict(reg, allowedToolsByActorWorkspace={"bob|ws1": ["fs.read"]}), R(requestedTools=T("web.get"))),
    ]
    for rule, pol, req in allowed:
        v.append(Sc("13.3 step 9 (rule %s): the rule does not apply here (other intent/workspace/action/actor, "
                    "or an empty list = no restriction)" % rule, pol)
                 .acq(req, grant("lease-1")))
    v.append(Sc("13.15 Roles: role keys match case-insensitively",
                {"allowedCapabilitiesByRole": {"MEMBER": {"chatCompletion": ["read"]}}})
             .acq(R(requestedCapabilities=["write"]), deny("capability_not_allowed_for_role")))
    v.append(Sc("13.3 step 9: rules run in LeaseGate's order (9.1 intent tier before 9.4 allowed models)",
                {"intentModelTiers": {"draft": ["cheap-model"]}, "allowedModels": ["cheap-model"]})
             .acq(R(), deny("intent_model_not_allowed")))
    v.append(Sc("13.3 step 9: rules run in order (9.4 allowed models before 9.5 capabilities)",
                {"allowedModels": ["cheap-model"], "allowedCapabilities": {"chatCompletion": ["read"]}})
             .acq(R(requestedCapabilities=["write"]), deny("model_not_allowed")))
    v.append(Sc("13.3 step 9: per-role capabilities (9.5) are used instead of the global list when they apply",
                {"allowedCapabilitiesByRole": {"member": {"chatCompletion": ["write"]}},
                 "allowedCapabilities": {"chatCompletion": ["read"]}})
             .acq(R(requestedCapabilities=["write"]), grant("lease-1")))
    v.append(Sc("13.3 step 9: the action type selects the capability list (absent actionType = chatCompletion)",
                {"allowedCapabilities": {"embedding": ["read"]}})
             .acq(R(actionType="embedding", requestedCapabilities=["write"]), deny("capability_not_allowed"))
             .acq(R(requestedCapabilities=["write"]), grant("lease-1")))
    v.append(Sc("13.3 steps 8-9: the registry runs before the policy rules",
                {"toolRegistry": [], "allowedModels": ["cheap-model"]})
             .acq(R(requestedTools=T("fs.read")), deny("tool_not_registered:fs.read")))
    v.append(Sc("13.9: cedarPolicies that permit let the tool through (evaluated after rule 9.9)",
                dict(reg, cedarPolicies="permit(principal, action, resource);"))
             .acq(R(requestedTools=T("fs.read")), grant("lease-1")))
    v.append(Sc("13.9: cedarPolicies that forbid deny every requested tool as tool_not_allowed:<toolId>",
                dict(reg, cedarPolicies="permit(principal, action, resource);\nforbid(principal, action, resource);"))
             .acq(R(requestedTools=T("web.get")), deny("tool_not_allowed:web.get"))
             .acq(R(), grant("lease-1")))
    v.append(Sc("13.9: cedarPolicies that do not parse deny (any Cedar error means deny)",
                dict(reg, cedarPolicies="permit(principal, action resource"))
             .acq(R(requestedTools=T("fs.read")), deny("tool_not_allowed:fs.read")))
    return v


REFILL = "next refill at 2026-03-02T00:00:00.000Z"


@section
def acquire_quotas():
    v = []
    v.append(Sc("13.3 step 11: org daily budget -> org_exhausted, retry = ms to the next UTC midnight, "
                "recommendation `next refill at <ISO>`", {"orgDailyBudgetCents": 10})
             .acq(R(estimatedCostCents=6), grant("lease-1"))
             .acq(R(estimatedCostCents=5, actorId="bob", workspaceId="ws2"),
                  deny("org_exhausted", 43200000, recommendation=REFILL))
             .acq(R(estimatedCostCents=5, orgId="other-org"), grant("lease-2")))
    v.append(Sc("13.3 step 11 (reference 3.3 case 11): workspace daily budget -> workspace_exhausted with retry > 0 "
                "and `next refill`; another workspace is not affected", {"workspaceDailyBudgetCents": {"ws1": 1}})
             .acq(R(estimatedCostCents=1), grant("lease-1"))
             .acq(R(estimatedCostCents=1, actorId="bob"), deny("workspace_exhausted", 43200000, recommendation=REFILL))
             .acq(R(estimatedCostCents=1, workspaceId="ws2"), grant("lease-2")))
    v.append(Sc("13.3 step 11: actor daily budget -> actor_exhausted; another actor is not affected",
                {"actorDailyBudgetCents": {"alice": 10}})
             .acq(R(estimatedCostCents=10), grant("lease-1"))
             .acq(R(estimatedCostCents=1), deny("actor_exhausted", 43200000, recommendation=REFILL))
             .acq(R(estimatedCostCents=1, actorId="bob"), grant("lease-2")))
    v.append(Sc("13.3 step 11: a scoped-budget retry is at least 250 ms", {"orgDailyBudgetCents": 10},
                start="2026-03-01T23:59:59.900Z")
             .acq(R(estimatedCostCents=11), deny("org_exhausted", 250)))
    v.append(Sc("13.3 step 11: scoped budgets reset at 00:00 UTC", {"actorDailyBudgetCents": {"alice": 10}},
                start="2026-03-01T23:59:00Z")
             .acq(R(estimatedCostCents=10), grant("lease-1"))
             .acq(R(estimatedCostCents=10), deny("actor_exhausted", 59000), at=1000)
             .acq(R(estimatedCostCents=10), grant("lease-2"), at="2026-03-02T00:00:00.001Z"))
    v.append(Sc("13.3 step 11 (reference 3.3 case 11): maxInFlightPerActor 1: the noisy actor's second lease is "
                "actor_throttled (retry 1000), a quiet actor is granted", {"maxInFlightPerActor": 1})
             .acq(R(actorId="noisy"), grant("lease-1"))
             .acq(R(actorId="noisy"), deny("actor_throttled", 1000))
             .acq(R(actorId="quiet"), grant("lease-2")))
    v.append(Sc("13.3 step 11: roleMaxInFlightOverrides raises the per-actor cap for a role (keys match "
                "case-insensitively)", {"maxInFlightPerActor": 1, "roleMaxInFlightOverrides": {"Admin": 2},
                                        "actorRoles": {"boss": "admin"}})
             .acq(R(actorId="boss"), grant("lease-1", role="admin"))
             .acq(R(actorId="boss"), grant("lease-2"))
             .acq(R(actorId="boss"), deny("actor_throttled", 1000))
             .acq(R(actorId="alice"), grant("lease-3"))
             .acq(R(actorId="alice"), deny("actor_throttled", 1000)))
    v.append(Sc("13.4, 13.15 Scoped quotas: release frees the per-actor in-flight slot", {"maxInFlightPerActor": 1})
             .acq(R(), grant("lease-1"))
             .rel(REL("lease-1", 1))
             .acq(R(), grant("lease-2")))
    v.append(Sc("13.15 Scoped quotas: expiry frees the per-actor in-flight slot", {"maxInFlightPerActor": 1})
             .acq(R(), grant("lease-1"))
             .acq(R(), deny("actor_throttled", 1000), at=19999)
             .acq(R(), grant("lease-2"), at=1))
    v.append(Sc("13.3 step 11: org request rate over rateWindowMs -> org_rate_limited, retry = max(200, ms until the "
                "org's oldest event leaves the window)", {"orgMaxRequestsPerMinute": 2})
             .acq(R(), grant("lease-1"))
             .acq(R(actorId="bob", workspaceId="ws2"), grant("lease-2"), at=1000)
             .acq(R(actorId="carol", workspaceId="ws3"), deny("org_rate_limited", 57000), at=2000)
             .acq(R(orgId="other-org"), grant("lease-3")))
    v.append(Sc("13.3 step 11: workspace request rate -> workspace_rate_limited",
                {"workspaceMaxRequestsPerMinute": {"ws1": 1}})
             .acq(R(), grant("lease-1"))
             .acq(R(actorId="bob"), deny("workspace_rate_limited", 55000), at=5000)
             .acq(R(actorId="bob", workspaceId="ws2"), grant("lease-2")))
    v.append(Sc("13.3 step 11: actor request rate -> actor_rate_limited, with the 200 ms floor near the window end",
                {"actorMaxRequestsPerMinute": 1})
             .acq(R(), grant("lease-1"))
             .acq(R(), deny("actor_rate_limited", 59000), at=1000)
             .acq(R(), deny("actor_rate_limited", 200), at=58950)
             .acq(R(actorId="bob"), grant("lease-2"))
             .acq(R(), grant("lease-3"), at=60))
    v.append(Sc("13.3 step 11: scoped quotas run in order: org budget before actor in-flight",
                {"orgDailyBudgetCents": 5, "maxInFlightPerActor": 1})
             .acq(R(estimatedCostCents=5), grant("lease-1"))
             .acq(R(estimatedCostCents=1), deny("org_exhausted")))
    v.append(Sc("13.3 step 11: scoped quotas run in order: workspace budget before actor budget",
                {"workspaceDailyBudgetCents": {"ws1": 5}, "actorDailyBudgetCents": {"alice": 5}})
             .acq(R(estimatedCostCents=5), grant("lease-1"))
             .acq(R(estimatedCostCents=1), deny("workspace_exhausted")))
    v.append(Sc("13.3 step 11: scoped quotas run in order: actor in-flight before the request rates",
                {"maxInFlightPerActor": 1, "actorMaxRequestsPerMinute": 1})
             .acq(R(), grant("lease-1"))
             .acq(R(), deny("actor_throttled", 1000)))
    v.append(Sc("13.3 steps 11-12: scoped quotas run before the global concurrency pool",
                {"maxInFlight": 1, "maxInFlightPerActor": 1})
             .acq(R(), grant("lease-1"))
             .acq(R(), deny("actor_throttled", 1000))
             .acq(R(actorId="bob"), deny("concurrency_limit_reached", 500)))
    v.append(Sc("13.3 steps 11, 17: the scoped budgets run before the global daily budget",
                {"dailyBudgetCents": 5, "actorDailyBudgetCents": {"alice": 5}})
             .acq(R(estimatedCostCents=6), deny("actor_exhausted")))
    v.append(Sc("13.15 Scoped quotas: release settles every scoped budget with the actuals",
                {"workspaceDailyBudgetCents": {"ws1": 10}})
             .acq(R(estimatedCostCents=8), grant("lease-1"))
             .rel(REL("lease-1", 2))
             .acq(R(estimatedCostCents=8), grant("lease-2"))
             .acq(R(estimatedCostCents=1), deny("workspace_exhausted")))
    v.append(Sc("13.15 Scoped quotas: expiry settles the scoped budgets at the reservation",
                {"actorDailyBudgetCents": {"alice": 10}})
             .acq(R(estimatedCostCents=8), grant("lease-1"))
             .acq(R(estimatedCostCents=3), deny("actor_exhausted"), at=20000)
             .acq(R(estimatedCostCents=2), grant("lease-2")))
    return v


@section
def acquire_atomic():
    v = []
    v.append(Sc("13.3 step 18 (fixed defect: atomic rollback after a late deny): a context denial after the rate "
                "step leaves no rate event behind", {"maxRequestsPerMinute": 2, "maxContextTokens": 100})
             .acq(R(requestedContextTokens=200), deny("context_prompt_tokens_exceeded", 200, plan=True))
             .acq(R(), grant("lease-1"))
             .acq(R(), grant("lease-2")))
    v.append(Sc("13.3 step 18 (fixed defect: atomic rollback): a daily-budget denial leaves the rate window as it was",
                {"maxRequestsPerMinute": 1, "dailyBudgetCents": 10})
             .acq(R(estimatedCostCents=11), deny("daily_budget_exceeded", plan=True))
             .acq(R(estimatedCostCents=10), grant("lease-1")))
    v.append(Sc("13.3 step 18 (fixed defect: atomic rollback): a daily-budget denial returns the concurrency slot",
                {"maxInFlight": 1, "dailyBudgetCents": 10})
             .acq(R(estimatedCostCents=11), deny("daily_budget_exceeded", plan=True))
             .acq(R(estimatedCostCents=5), grant("lease-1"))
             .metrics({"activeLeases": 1, "spendTodayCents": 5}))
    v.append(Sc("13.3 step 18 (fixed defect: atomic rollback): a daily-budget denial returns the compute units",
                {"maxComputeUnits": 4, "dailyBudgetCents": 10})
             .acq(R(estimatedComputeUnits=4, estimatedCostCents=11), deny("daily_budget_exceeded", plan=True))
             .acq(R(estimatedComputeUnits=4, estimatedCostCents=5), grant("lease-1")))
    v.append(Sc("13.3 step 18 (fixed defect: atomic rollback): a concurrency denial after the scoped quotas leaves "
                "the workspace budget as it was", {"maxInFlight": 1, "workspaceDailyBudgetCents": {"ws1": 10}})
             .acq(R(estimatedCostCents=1), grant("lease-1"))
             .acq(R(estimatedCostCents=9), deny("concurrency_limit_reached", 500))
             .rel(REL("lease-1", 1))
             .acq(R(estimatedCostCents=9), grant("lease-2")))
    v.append(Sc("13.3 step 18 (fixed defect: atomic rollback): a late denial leaves the per-actor in-flight slot free",
                {"maxInFlightPerActor": 1, "dailyBudgetCents": 10})
             .acq(R(estimatedCostCents=11), deny("daily_budget_exceeded", plan=True))
             .acq(R(estimatedCostCents=1), grant("lease-1")))
    v.append(Sc("13.3 step 18 (fixed defect: atomic rollback): a late denial leaves the org/actor request rates "
                "as they were", {"orgMaxRequestsPerMinute": 1, "actorMaxRequestsPerMinute": 1, "dailyBudgetCents": 10})
             .acq(R(estimatedCostCents=11), deny("daily_budget_exceeded", plan=True))
             .acq(R(estimatedCostCents=1), grant("lease-1")))
    v.append(Sc("13.3 step 18 (fixed defect: atomic rollback): a rate denial leaves the concurrency and compute pools "
                "as they were", {"maxInFlight": 1, "maxComputeUnits": 1, "maxTokensPerMinute": 100})
             .acq(R(estimatedPromptTokens=100, maxOutputTokens=1), deny("rate_limit_reached", 1000, plan=True))
             .acq(R(estimatedPromptTokens=50, maxOutputTokens=50), grant("lease-1")))
    v.append(Sc("13.3 step 18: denials leave every pool as it was (metrics after a series of denials)",
                {"maxInFlight": 2, "dailyBudgetCents": 10, "maxComputeUnits": 2})
             .acq(R(estimatedCostCents=11), deny("daily_budget_exceeded", plan=True))
             .acq(R(estimatedComputeUnits=3), deny("compute_capacity_reached", 300))
             .acq(R(requestedContextTokens=16001), deny("context_prompt_tokens_exceeded", 200, plan=True))
             .metrics({"activeLeases": 0, "spendTodayCents": 0,
                       "deniesByReason": {"daily_budget_exceeded": 1, "compute_capacity_reached": 1,
                                          "context_prompt_tokens_exceeded": 1}}))
    return v


# ============================================================================ 13.5 idempotency


@section
def idempotency():
    v = []
    sc = Sc("13.5: a grant under a key is replayed for the same scoped key and request: same lease, same expiry, "
            "no new reservation or metric")
    sc.acq(R(idempotencyKey="k1"), grant("lease-1"))
    v.append(sc.acq(R(idempotencyKey="k1"), {"granted": True, "leaseId": "lease-1", "expiresAtUtc": sc.exp["lease-1"]},
                    at=3000)
             .metrics({"activeLeases": 1, "spendTodayCents": 5, "grantsByReason": {"granted": 1}}))
    v.append(Sc("13.5 (fixed defect: scoped keys): the same key from another actor is another key")
             .acq(R(idempotencyKey="k1"), grant("lease-1"))
             .acq(R(idempotencyKey="k1", actorId="bob"), grant("lease-2"))
             .metrics({"activeLeases": 2}))
    v.append(Sc("13.5 (fixed defect: scoped keys): the same key in another workspace is another key")
             .acq(R(idempotencyKey="k1"), grant("lease-1"))
             .acq(R(idempotencyKey="k1", workspaceId="ws2"), grant("lease-2")))
    v.append(Sc("13.5 (fixed defect: scoped keys): the same key in another org is another key; a blank orgId is "
                "default-org")
             .acq(R(idempotencyKey="k1"), grant("lease-1"))
             .acq(R(idempotencyKey="k1", orgId="acme"), grant("lease-2"))
             .acq(R(idempotencyKey="k1", orgId="default-org"), {"granted": True, "leaseId": "lease-1"}))
    v.append(Sc("13.5 (fixed defect: a denial is not stored but re-evaluated): a denied key is evaluated afresh "
                "and its later grant is the one stored", {"maxInFlight": 1})
             .acq(R(actorId="bob"), grant("lease-1"))
             .acq(R(idempotencyKey="k1"), deny("concurrency_limit_reached", 500))
             .rel(REL("lease-1", 1))
             .acq(R(idempotencyKey="k1"), grant("lease-2"))
             .acq(R(idempotencyKey="k1"), {"granted": True, "leaseId": "lease-2"}))
    v.append(Sc("13.5: a denial under a key is not replayed: once the budget resets, the same key is granted",
                {"dailyBudgetCents": 10}, start="2026-03-01T23:59:59Z")
             .acq(R(idempotencyKey="k1", estimatedCostCents=20), deny("daily_budget_exceeded", 1000, plan=True))
             .acq(R(idempotencyKey="k1", estimatedCostCents=20), deny("daily_budget_exceeded", plan=True), at=500)
             .acq(R(idempotencyKey="k1", estimatedCostCents=10), grant("lease-1"), at=500))
    sc = Sc("13.5: the stored grant is replayed after the lease was released, without a new reservation")
    sc.acq(R(idempotencyKey="k1"), grant("lease-1")).rel(REL("lease-1", 2))
    v.append(sc.acq(R(idempotencyKey="k1"), {"granted": True, "leaseId": "lease-1", "expiresAtUtc": sc.exp["lease-1"]})
             .metrics({"activeLeases": 0, "spendTodayCents": 2}))
    sc = Sc("13.5: the stored grant is replayed after the lease expired (whatever happened since)")
    sc.acq(R(idempotencyKey="k1"), grant("lease-1"))
    v.append(sc.acq(R(idempotencyKey="k1"), {"granted": True, "leaseId": "lease-1", "expiresAtUtc": sc.exp["lease-1"]},
                    at=25000)
             .metrics({"activeLeases": 0, "spendTodayCents": 5}))
    v.append(Sc("13.5: idempotencyRetentionMs (default 86 400 000): after it the key is free again")
             .acq(R(idempotencyKey="k1"), grant("lease-1"))
             .acq(R(idempotencyKey="k1"), {"granted": True, "leaseId": "lease-1"}, at=86399000)
             .acq(R(idempotencyKey="k1"), grant("lease-2"), at=2000))
    v.append(Sc("13.5 (fixed defect: idempotency conflict): the same scoped key with a different request -> "
                "idempotency_key_conflict, nothing reserved, no id drawn")
             .acq(R(idempotencyKey="k1"), grant("lease-1"))
             .acq(R(idempotencyKey="k1", estimatedCostCents=6), deny("idempotency_key_conflict"))
             .metrics({"activeLeases": 1, "spendTodayCents": 5, "deniesByReason": {"idempotency_key_conflict": 1}})
             .acq(R(idempotencyKey="k2"), grant("lease-2")))
    for field, val in [("modelId", "gpt-4o"), ("maxOutputTokens", 51), ("requestedTools", T("fs.read")),
                       ("riskFlags", ["x"]), ("autoApplyConstraints", True), ("intentClass", "summarize"),
                       ("requestedLease", {"fs.read": ["/tmp/**"]})]:
        v.append(Sc("13.5: a different %s under the same scoped key is a conflict" % field)
                 .acq(R(idempotencyKey="k1"), grant("lease-1"))
                 .acq(R(idempotencyKey="k1", **{field: val}), deny("idempotency_key_conflict")))
    v.append(Sc("13.5: requests are the same after defaults are filled in (explicit defaults replay)")
             .acq(R(idempotencyKey="k1"), grant("lease-1"))
             .acq(R(idempotencyKey="k1", role="member", principalType="human", intentClass="draft",
                    estimatedComputeUnits=1, autoApplyConstraints=False, actionType="chatCompletion",
                    requestedTools=[], riskFlags=[]), {"granted": True, "leaseId": "lease-1"}))
    v.append(Sc("13.5: approvalToken is ignored when comparing requests")
             .acq(R(idempotencyKey="k1"), grant("lease-1"))
             .acq(R(idempotencyKey="k1", approvalToken="appr-99"), {"granted": True, "leaseId": "lease-1"}))
    v.append(Sc("13.5: an empty or absent key never deduplicates")
             .acq(R(idempotencyKey=""), grant("lease-1"))
             .acq(R(idempotencyKey=""), grant("lease-2"))
             .acq(R(), grant("lease-3"))
             .acq(R(), grant("lease-4")))
    v.append(Sc("13.3 step 2: the replay runs before every other check (a full concurrency pool does not deny it)",
                {"maxInFlight": 1})
             .acq(R(idempotencyKey="k1"), grant("lease-1"))
             .acq(R(idempotencyKey="k1"), {"granted": True, "leaseId": "lease-1"}))
    v.append(Sc("13.3 step 2: the replay runs before the actor cooldown", {"spendSpikeCents": 20})
             .acq(R(idempotencyKey="k1"), grant("lease-1"))
             .acq(R(actorId="alice", idempotencyKey="k2"), grant("lease-2"))
             .rel(REL("lease-2", 25))
             .acq(R(), deny("actor_cooldown_active", 2000, plan=True))
             .acq(R(idempotencyKey="k1"), {"granted": True, "leaseId": "lease-1"}))
    v.append(Sc("13.3 step 2: the conflict check runs before the workspace circuit breaker",
                {"policyDenyCircuitBreakerThreshold": 1, "allowedModels": ["gpt-4o-mini"]})
             .acq(R(idempotencyKey="k1"), grant("lease-1"))
             .acq(R(modelId="gpt-4o"), deny("model_not_allowed"))
             .acq(R(), deny("workspace_circuit_breaker", 2000, plan=True))
             .acq(R(idempotencyKey="k1", modelId="gpt-4o"), deny("idempotency_key_conflict"))
             .acq(R(idempotencyKey="k1"), {"granted": True, "leaseId": "lease-1"}))
    v.append(Sc("13.15 Replay: the replayed response is the stored one exactly as first sent (policy version and hash "
                "of the grant, constraints)", {"policyVersion": "v1", "maxInFlight": 3},
                options={"requireSignedBundles": False})
             .acq(R(idempotencyKey="k1", maxOutputTokens=70, requestedContextTokens=300),
                  grant("lease-1", policyVersion="v1", policyHash=policy_hash({"policyVersion": "v1", "maxInFlight": 3}),
                        constraints={"maxOutputTokensOverride": 70, "maxToolCalls": 6, "maxContextTokens": 300}))
             .cmd("StagePolicyBundle", bundle_unsigned("v2", {"policyVersion": "x", "maxInFlight": 5}),
                  {"accepted": True})
             .cmd("ActivatePolicy", {"version": "v2"}, {"activated": True})
             .acq(R(idempotencyKey="k1", maxOutputTokens=70, requestedContextTokens=300),
                  {"granted": True, "leaseId": "lease-1", "policyVersion": "v1",
                   "policyHash": policy_hash({"policyVersion": "v1", "maxInFlight": 3}),
                   "constraints": {"maxOutputTokensOverride": 70, "maxToolCalls": 6, "maxContextTokens": 300}}))
    return v


# ============================================================================ 13.4 release, expiry


@section
def release_and_expiry():
    v = []
    v.append(Sc("13.4: release settles the day's spend: the reservation is replaced by actualCostCents",
                {"dailyBudgetCents": 100})
             .acq(R(estimatedCostCents=40), grant("lease-1"))
             .metrics({"activeLeases": 1, "spendTodayCents": 40})
             .rel(REL("lease-1", 7))
             .metrics({"activeLeases": 0, "spendTodayCents": 7}))
    v.append(Sc("13.4: actuals above the estimate are recorded too (post-hoc spend cannot be prevented)",
                {"dailyBudgetCents": 100, "spendSpikeCents": 1000})
             .acq(R(estimatedCostCents=10), grant("lease-1"))
             .rel(REL("lease-1", 95))
             .metrics({"spendTodayCents": 95})
             .acq(R(estimatedCostCents=6), deny("daily_budget_exceeded", plan=True))
             .acq(R(estimatedCostCents=5), grant("lease-2")))
    v.append(Sc("13.4 (reference 3.3 case 3): releasing an unknown lease -> leaseNotFound")
             .rel(REL("lease-9"), NOT_FOUND)
             .rel(REL(""), NOT_FOUND))
    v.append(Sc("13.4: a second release of a released lease without the same idempotencyKey -> leaseNotFound")
             .acq(R(), grant("lease-1"))
             .rel(REL("lease-1", 3))
             .rel(REL("lease-1", 3), NOT_FOUND)
             .metrics({"spendTodayCents": 3}))
    v.append(Sc("13.4: a second release with the same idempotencyKey returns the first response and changes nothing")
             .acq(R(), grant("lease-1"))
             .rel(REL("lease-1", 3, idempotencyKey="r1"), dict(RECORDED, idempotencyKey="r1"))
             .rel(REL("lease-1", 3, idempotencyKey="r1"), dict(RECORDED, idempotencyKey="r1"))
             .rel(REL("lease-1", 3, idempotencyKey="r2"), NOT_FOUND)
             .metrics({"activeLeases": 0, "spendTodayCents": 3}))
    v.append(Sc("13.4: releasing frees the concurrency and compute pools", {"maxInFlight": 1, "maxComputeUnits": 2})
             .acq(R(estimatedComputeUnits=2), grant("lease-1"))
             .rel(REL("lease-1", 1))
             .acq(R(estimatedComputeUnits=2), grant("lease-2")))
    v.append(Sc("13.4 (fixed defect: expiry settles the estimate): an unreleased lease is settled at its "
                "reservation when it expires, never silently dropped", {"dailyBudgetCents": 50})
             .acq(R(estimatedCostCents=30), grant("lease-1"))
             .metrics({"activeLeases": 0, "spendTodayCents": 30}, at=20000)
             .acq(R(estimatedCostCents=30), deny("daily_budget_exceeded", plan=True))
             .acq(R(estimatedCostCents=20), grant("lease-2")))
    v.append(Sc("13.4: expired means now >= expiresAtUtc: 1 ms before, the lease still holds its slot",
                {"maxInFlight": 1})
             .acq(R(), grant("lease-1"))
             .acq(R(actorId="bob"), deny("concurrency_limit_reached", 500), at=19999)
             .acq(R(actorId="bob"), grant("lease-2"), at=1))
    v.append(Sc("13.4, 13.15 Sweep: expired leases are swept at the start of every command (here GetMetrics, "
                "at the expiry instant)")
             .acq(R(), grant("lease-1"))
             .metrics({"activeLeases": 1}, at=19999)
             .metrics({"activeLeases": 0}, at=1))
    v.append(Sc("13.4 (reference 3.3 case 3, fixed): TTL 300 ms, maxInFlight 1: after expiry a new lease is granted; "
                "a release of the expired lease is classified leaseExpired and its actuals replace the reservation",
                {"leaseTtlMs": 300, "maxInFlight": 1})
             .acq(R(estimatedCostCents=30), grant("lease-1"))
             .acq(R(estimatedCostCents=1), grant("lease-2"), at=1400)
             .rel(REL("lease-1", 4), {"classification": "leaseExpired"})
             .metrics({"spendTodayCents": 5, "activeLeases": 1}))
    v.append(Sc("13.15 Late release: a lease released as leaseExpired counts as released; a further release "
                "replays with the same idempotencyKey, else leaseNotFound")
             .acq(R(), grant("lease-1"))
             .rel(REL("lease-1", 2, idempotencyKey="r1"), {"classification": "leaseExpired", "idempotencyKey": "r1"},
                  at=30000)
             .rel(REL("lease-1", 2, idempotencyKey="r1"), {"classification": "leaseExpired", "idempotencyKey": "r1"})
             .rel(REL("lease-1", 2), NOT_FOUND)
             .metrics({"spendTodayCents": 2}))
    v.append(Sc("13.15 Late release: a late release feeds the spend-spike rule", {"spendSpikeCents": 20})
             .acq(R(), grant("lease-1"))
             .rel(REL("lease-1", 25), {"classification": "leaseExpired"}, at=21000)
             .acq(R(), deny("actor_cooldown_active", 2000, plan=True)))
    v.append(Sc("13.15 Days: a settlement after the lease's UTC day has ended changes no pool (release)",
                {"dailyBudgetCents": 100}, start="2026-03-01T23:59:50Z")
             .acq(R(estimatedCostCents=30), grant("lease-1"))
             .metrics({"spendTodayCents": 30})
             .rel(REL("lease-1", 10), RECORDED, at="2026-03-02T00:00:05Z")
             .metrics({"spendTodayCents": 0})
             .acq(R(estimatedCostCents=100), grant("lease-2")))
    v.append(Sc("13.15 Days: an expiry after midnight settles into the lease's own day, not the new one",
                {"dailyBudgetCents": 100}, start="2026-03-01T23:59:50Z")
             .acq(R(estimatedCostCents=30), grant("lease-1"))
             .metrics({"spendTodayCents": 0, "activeLeases": 0}, at="2026-03-02T00:00:15Z")
             .acq(R(estimatedCostCents=100), grant("lease-2")))
    v.append(Sc("13.4 (reference 3.3 case 4): a release at or over receiptThresholdCostCents carries a receipt with "
                "the lease id and the policy hash", {"receiptThresholdCostCents": 1, "policyVersion": "r1"})
             .acq(R(), grant("lease-1"))
             .rel(REL("lease-1", 2), {"classification": "recorded",
                                      "receipt": {"leaseId": "lease-1", "actualCostCents": 2,
                                                  "policyHash": policy_hash({"receiptThresholdCostCents": 1,
                                                                             "policyVersion": "r1"})}}))
    v.append(Sc("13.4: the receipt threshold is inclusive (default 20)", {"spendSpikeCents": 1000})
             .acq(R(estimatedCostCents=20), grant("lease-1"))
             .rel(REL("lease-1", 20, actualPromptTokens=11, actualOutputTokens=12),
                  {"classification": "recorded", "receipt": {"leaseId": "lease-1", "actualCostCents": 20,
                                                             "actualPromptTokens": 11, "actualOutputTokens": 12}}))
    for pec, rec in [("rateLimited", "backoff and retry"), ("timeout", "reduce context or increase provider timeout"),
                     ("contextTooLarge", "reduce context tokens or chunks"), ("modelUnavailable", "switch model"),
                     ("unauthorized", "check provider credentials")]:
        v.append(Sc("13.4: the release recommendation follows LeaseGate's provider-error table (%s)" % pec)
                 .acq(R(), grant("lease-1"))
                 .rel(REL("lease-1", 1, providerErrorClassification=pec, outcome="unknownError"),
                      {"classification": "recorded", "recommendation": rec}))
    v.append(Sc("13.4: outcome policyDenied without a provider error -> `request approval or update policy`; "
                "otherwise `continue`")
             .acq(R(), grant("lease-1"))
             .acq(R(), grant("lease-2"))
             .rel(REL("lease-1", 1, outcome="policyDenied"), {"recommendation": "request approval or update policy"})
             .rel(REL("lease-2", 1, providerErrorClassification="none"), {"recommendation": "continue"}))
    return v


# ============================================================================ 13.6 approvals

APPROVAL_POLICY = {"toolRegistry": TOOLS, "approvalRequiredToolCategories": ["networkWrite"]}


def AREQ(**kw):
    d = {"actorId": "alice", "workspaceId": "ws1", "reason": "post the report", "requestedBy": "alice",
         "toolCategory": "networkWrite"}
    for k, x in kw.items():
        if x is DEL:
            d.pop(k, None)
        else:
            d[k] = x
    return d


def PUB(**kw):
    """An acquire that needs approval (a networkWrite tool)."""
    return R(requestedTools=T("http.post"), **kw)


def approved(sc, approval_id="approval-1", token="appr-1", reviewer="rev1", **req):
    """RequestApproval + GrantApproval by one reviewer, appended to scenario sc."""
    sc.cmd("RequestApproval", AREQ(**req), {"approvalId": approval_id, "status": "pending"})
    sc.cmd("GrantApproval", {"approvalId": approval_id, "grantedBy": reviewer},
           {"granted": True, "approvalToken": token, "message": "approval granted"})
    return sc


@section
def approvals():
    v = []
    sc = Sc("13.6 (reference 3.3 case 6): networkWrite needs approval: denied approval_required (retry 0), then "
            "request + grant -> token appr-1, the acquire with it is granted once; reuse -> approval_required",
            APPROVAL_POLICY)
    sc.acq(PUB(), deny("approval_required", 0))
    sc.cmd("RequestApproval", AREQ(), lambda s: {"approvalId": "approval-1", "status": "pending",
                                                 "message": "approval request created", "requiredReviewers": 1,
                                                 "expiresAtUtc": s.t(300000)})
    sc.cmd("GrantApproval", {"approvalId": "approval-1", "grantedBy": "rev1"},
           {"granted": True, "approvalToken": "appr-1", "message": "approval granted"})
    sc.acq(PUB(approvalToken="appr-1"), grant("lease-1"))
    sc.acq(PUB(approvalToken="appr-1"), deny("approval_required", 0))
    v.append(sc)
    v.append(Sc("13.6: a token that does not exist does not validate", APPROVAL_POLICY)
             .acq(PUB(approvalToken="appr-1"), deny("approval_required", 0))
             .acq(PUB(approvalToken="garbage"), deny("approval_required", 0)))
    v.append(approved(Sc("13.6: the token is scoped to the approval's actor", APPROVAL_POLICY))
             .acq(PUB(approvalToken="appr-1", actorId="bob"), deny("approval_required", 0))
             .acq(PUB(approvalToken="appr-1"), grant("lease-1")))
    v.append(approved(Sc("13.6: the token is scoped to the approval's workspace", APPROVAL_POLICY))
             .acq(PUB(approvalToken="appr-1", workspaceId="ws2"), deny("approval_required", 0))
             .acq(PUB(approvalToken="appr-1"), grant("lease-1")))
    v.append(approved(Sc("13.6: an approval scoped to a toolId does not cover another tool of the category",
                         dict(APPROVAL_POLICY, toolRegistry=TOOLS + [{"toolId": "mail.send",
                                                                      "category": "networkWrite"}])),
                      toolId="mail.send", toolCategory=DEL)
             .acq(PUB(approvalToken="appr-1"), deny("approval_required", 0))
             .acq(R(requestedTools=[{"toolId": "mail.send", "category": "networkWrite"}], approvalToken="appr-1"),
                  grant("lease-1")))
    v.append(approved(Sc("13.6: singleUse false: the token validates more than once", APPROVAL_POLICY), singleUse=False)
             .acq(PUB(approvalToken="appr-1"), grant("lease-1"))
             .acq(PUB(approvalToken="appr-1"), grant("lease-2")))
    v.append(approved(Sc("13.6: the token expires with the approval (TTL 300 s by default)", APPROVAL_POLICY))
             .acq(PUB(approvalToken="appr-1"), deny("approval_required", 0), at=300000))
    v.append(Sc("13.6, 13.16 Approval limits: the approval TTL is at least 30 s (ttlSeconds 5 -> success false, "
                "nothing stored; ttlSeconds 30 -> 30 s)", APPROVAL_POLICY)
             .cmd("RequestApproval", AREQ(ttlSeconds=5), FAILED)
             .cmd("RequestApproval", AREQ(ttlSeconds=30), lambda s: {"approvalId": "approval-1",
                                                                     "expiresAtUtc": s.t(30000)})
             .cmd("GrantApproval", {"approvalId": "approval-1", "grantedBy": "rev1"}, {"granted": True}, at=29000)
             .acq(PUB(approvalToken="appr-1"), deny("approval_required", 0), at=1000))
    v.append(Sc("13.6: an expired approval can never become granted", APPROVAL_POLICY)
             .cmd("RequestApproval", AREQ(ttlSeconds=30), {"approvalId": "approval-1"})
             .cmd("GrantApproval", {"approvalId": "approval-1", "grantedBy": "rev1"},
                  {"granted": False, "message": "approval expired"}, at=30000)
             .cmd("ReviewApproval", {"approvalId": "approval-1", "reviewerId": "rev2", "approve": True},
                  {"status": "expired", "message": "approval expired"})
             .acq(PUB(approvalToken="appr-1"), deny("approval_required", 0)))
    v.append(Sc("13.6 (fixed defect: self-review refused): the requester cannot grant their own approval",
                APPROVAL_POLICY)
             .cmd("RequestApproval", AREQ(requestedBy="alice"), {"approvalId": "approval-1"})
             .cmd("GrantApproval", {"approvalId": "approval-1", "grantedBy": "alice"},
                  {"granted": False, "message": "self_review_not_allowed"})
             .cmd("ReviewApproval", {"approvalId": "approval-1", "reviewerId": "alice", "approve": True},
                  {"message": "self_review_not_allowed"})
             .cmd("ListPendingApprovals", {}, {"items": [{"approvalId": "approval-1", "status": "pending",
                                                          "currentApprovals": 0}]})
             .acq(PUB(approvalToken="appr-1"), deny("approval_required", 0))
             .cmd("GrantApproval", {"approvalId": "approval-1", "grantedBy": "rev1"},
                  {"granted": True, "approvalToken": "appr-1"})
             .acq(PUB(approvalToken="appr-1"), grant("lease-1")))
    v.append(Sc("13.6: the reviewer compared is the request's requestedBy (here not the actor); another reviewer grants",
                APPROVAL_POLICY)
             .cmd("RequestApproval", AREQ(requestedBy="agent-runner"), {"approvalId": "approval-1"})
             .cmd("GrantApproval", {"approvalId": "approval-1", "grantedBy": "agent-runner"},
                  {"granted": False, "message": "self_review_not_allowed"})
             .cmd("ReviewApproval", {"approvalId": "approval-1", "reviewerId": "lead", "approve": True},
                  {"status": "granted", "approvalToken": "appr-1", "message": "approval granted"}))
    quorum = dict(APPROVAL_POLICY, approvalReviewersByToolCategory={"networkWrite": 2})
    sc = Sc("13.6 (reference 3.3 case 7): two reviewers: the first review leaves it pending, the second grants; "
            "the acquire is granted and the receipt's approvalChain has 2 entries", dict(quorum, spendSpikeCents=1000))
    sc.cmd("RequestApproval", AREQ(), {"approvalId": "approval-1", "status": "pending", "requiredReviewers": 2})
    sc.cmd("ReviewApproval", {"approvalId": "approval-1", "reviewerId": "rev1", "approve": True, "comment": "ok"},
           {"status": "pending", "message": "approval pending additional reviewers", "requiredReviewers": 2,
            "currentApprovals": 1})
    sc.cmd("ReviewApproval", {"approvalId": "approval-1", "reviewerId": "rev2", "approve": True, "comment": "fine"},
           {"status": "granted", "message": "approval granted", "approvalToken": "appr-1", "currentApprovals": 2})
    sc.acq(PUB(approvalToken="appr-1"), grant("lease-1"))
    sc.rel(REL("lease-1", 25), {"classification": "recorded",
                                "receipt": {"leaseId": "lease-1",
                                            "approvalChain": [{"reviewerId": "rev1"}, {"reviewerId": "rev2"}]}})
    v.append(sc)
    v.append(Sc("13.6: a reviewer counts once (a second review by the same reviewer replaces the first)", quorum)
             .cmd("RequestApproval", AREQ(), {"approvalId": "approval-1", "requiredReviewers": 2})
             .cmd("ReviewApproval", {"approvalId": "approval-1", "reviewerId": "rev1", "approve": True},
                  {"status": "pending", "currentApprovals": 1})
             .cmd("ReviewApproval", {"approvalId": "approval-1", "reviewerId": "rev1", "approve": True},
                  {"status": "pending", "currentApprovals": 1})
             .cmd("GrantApproval", {"approvalId": "approval-1", "grantedBy": "rev1"},
                  {"granted": False, "message": "approval pending additional reviewers"})
             .acq(PUB(approvalToken="appr-1"), deny("approval_required", 0)))
    v.append(Sc("13.16 Approval quorum at use: with no tool and no category the approval needs the largest quorum "
                "of the policy (here 2)", quorum)
             .cmd("RequestApproval", AREQ(toolCategory=DEL), {"approvalId": "approval-1", "requiredReviewers": 2})
             .cmd("ReviewApproval", {"approvalId": "approval-1", "reviewerId": "rev1", "approve": True},
                  {"status": "pending", "currentApprovals": 1})
             .cmd("ReviewApproval", {"approvalId": "approval-1", "reviewerId": "rev2", "approve": True},
                  {"status": "granted", "approvalToken": "appr-1"}))
    v.append(Sc("13.6: a denied approval can never become granted (a later approving review leaves it denied)", quorum)
             .cmd("RequestApproval", AREQ(), {"approvalId": "approval-1"})
             .cmd("ReviewApproval", {"approvalId": "approval-1", "reviewerId": "rev1", "approve": False},
                  {"status": "denied", "message": "approval denied"})
             .cmd("ReviewApproval", {"approvalId": "approval-1", "reviewerId": "rev2", "approve": True},
                  {"status": "denied"})
             .cmd("ReviewApproval", {"approvalId": "approval-1", "reviewerId": "rev1", "approve": True},
                  {"status": "denied"})
             .cmd("GrantApproval", {"approvalId": "approval-1", "grantedBy": "rev3"},
                  {"granted": False, "message": "approval denied"})
             .acq(PUB(approvalToken="appr-1"), deny("approval_required", 0)))
    v.append(approved(Sc("13.6: a deny after the grant revokes the token", APPROVAL_POLICY))
             .cmd("DenyApproval", {"approvalId": "approval-1", "deniedBy": "rev2"},
                  {"denied": True, "message": "approval denied"})
             .acq(PUB(approvalToken="appr-1"), deny("approval_required", 0)))
    v.append(Sc("13.6, 13.15: reviewing, granting or denying an unknown approval id is `approval not found` "
                "(success: true, not a denial)", APPROVAL_POLICY)
             .cmd("ReviewApproval", {"approvalId": "approval-7", "reviewerId": "rev1", "approve": True},
                  {"message": "approval not found"})
             .cmd("GrantApproval", {"approvalId": "approval-7", "grantedBy": "rev1"},
                  {"granted": False, "message": "approval not found"})
             .cmd("DenyApproval", {"approvalId": "approval-7", "deniedBy": "rev1"},
                  {"denied": False, "message": "approval not found"})
             .cmd("RequestApproval", AREQ(), {"approvalId": "approval-1"}))
    v.append(Sc("13.3 step 10 (fixed defect: approval token not burned): a token validated by an acquire that is "
                "then denied (concurrency) is not consumed", dict(APPROVAL_POLICY, maxInFlight=1))
             .acq(R(actorId="bob"), grant("lease-1"))
             .cmd("RequestApproval", AREQ(), {"approvalId": "approval-1"})
             .cmd("GrantApproval", {"approvalId": "approval-1", "grantedBy": "rev1"}, {"approvalToken": "appr-1"})
             .acq(PUB(approvalToken="appr-1"), deny("concurrency_limit_reached", 500))
             .rel(REL("lease-1", 1))
             .acq(PUB(approvalToken="appr-1"), grant("lease-2"))
             .acq(PUB(approvalToken="appr-1"), deny("approval_required", 0)))
    v.append(approved(Sc("13.3 steps 10, 18 (fixed defect: token not burned): a daily-budget denial after the "
                         "approval step leaves the token unused", dict(APPROVAL_POLICY, dailyBudgetCents=10)))
             .acq(PUB(approvalToken="appr-1", estimatedCostCents=11), deny("daily_budget_exceeded", plan=True))
             .acq(PUB(approvalToken="appr-1", estimatedCostCents=10), grant("lease-1")))
    v.append(approved(Sc("13.3 steps 10-11 (fixed defect: token not burned): a scoped-quota denial leaves the token "
                         "unused", dict(APPROVAL_POLICY, actorDailyBudgetCents={"alice": 3})))
             .acq(PUB(approvalToken="appr-1"), deny("actor_exhausted"))
             .acq(PUB(approvalToken="appr-1", estimatedCostCents=3), grant("lease-1")))
    v.append(approved(Sc("13.3 step 9: risk_requires_approval is a hard deny that a valid token cannot clear",
                         dict(APPROVAL_POLICY, riskRequiresApproval=["pii"])))
             .acq(PUB(approvalToken="appr-1", riskFlags=["pii"]), deny("risk_requires_approval"))
             .acq(PUB(approvalToken="appr-1"), grant("lease-1")))
    v.append(Sc("13.3 steps 9-10: a policy denial comes before the approval step",
                dict(APPROVAL_POLICY, allowedModels=["cheap-model"]))
             .acq(PUB(), deny("model_not_allowed")))
    v.append(Sc("13.3 steps 10-12: the approval step comes before the quotas and pools",
                dict(APPROVAL_POLICY, maxInFlight=0))
             .acq(PUB(), deny("approval_required", 0)))
    v.append(Sc("13.6: ListPendingApprovals lists pending approvals (filtered by workspace) with required and current "
                "reviewer counts", dict(APPROVAL_POLICY, approvalReviewersByToolCategory={"networkWrite": 2}))
             .cmd("RequestApproval", AREQ(), {"approvalId": "approval-1"})
             .cmd("RequestApproval", AREQ(workspaceId="ws2", actorId="bob", requestedBy="bob"),
                  {"approvalId": "approval-2"})
             .cmd("RequestApproval", AREQ(toolCategory="networkRead", reason="general"), {"approvalId": "approval-3"})
             .cmd("ReviewApproval", {"approvalId": "approval-1", "reviewerId": "rev1", "approve": True},
                  {"status": "pending"})
             .cmd("GrantApproval", {"approvalId": "approval-3", "grantedBy": "rev1"}, {"approvalToken": "appr-1"})
             .cmd("ListPendingApprovals", {"workspaceId": "ws1"},
                  {"items": [{"approvalId": "approval-1", "actorId": "alice", "workspaceId": "ws1",
                              "requiredReviewers": 2, "currentApprovals": 1, "status": "pending"}]})
             .cmd("ListPendingApprovals", {"workspaceId": "ws2"}, {"items": [{"approvalId": "approval-2"}]})
             .cmd("GetStatus", {}, {"pendingApprovals": 2}))
    v.append(Sc("13.15 Ids: approval ids and approval tokens have their own counters", APPROVAL_POLICY)
             .cmd("RequestApproval", AREQ(), {"approvalId": "approval-1"})
             .cmd("RequestApproval", AREQ(), {"approvalId": "approval-2"})
             .cmd("GrantApproval", {"approvalId": "approval-2", "grantedBy": "rev1"}, {"approvalToken": "appr-1"})
             .acq(PUB(approvalToken="appr-1"), grant("lease-1"))
             .cmd("GrantApproval", {"approvalId": "approval-1", "grantedBy": "rev1"}, {"approvalToken": "appr-2"})
             .cmd("RequestApproval", AREQ(), {"approvalId": "approval-3"}))
    return v



# ============================================================================ 13.7 safety automation


def spike(sc, lid, at=None):
    """Grant + release with 25 cents (>= spendSpikeCents 20): the actor gets a cooldown and a clamp."""
    sc.acq(R(idempotencyKey="spike-" + lid), grant(lid), at=at)
    sc.rel(REL(lid, 25))
    return sc


@section
def safety():
    v = []
    bad = R(modelId="gpt-4o")
    pol = {"allowedModels": ["gpt-4o-mini"], "policyDenyCircuitBreakerThreshold": 3}
    v.append(Sc("13.7 (reference 3.3 case 8): deny threshold 3: three model_not_allowed denials trip the workspace "
                "circuit breaker: a valid request -> workspace_circuit_breaker, retry = safetyCooldownMs, plan", pol)
             .acq(bad, deny("model_not_allowed"))
             .acq(bad, deny("model_not_allowed"))
             .acq(bad, deny("model_not_allowed"))
             .acq(R(), deny("workspace_circuit_breaker", 2000, plan=True))
             .acq(R(workspaceId="ws2"), grant("lease-1")))
    v.append(Sc("13.7: the breaker lasts safetyCooldownMs; its retry is safetyCooldownMs (LeaseGate's value), not the "
                "time remaining", dict(pol, safetyCooldownMs=5000))
             .acq(bad, deny("model_not_allowed"))
             .acq(bad, deny("model_not_allowed"))
             .acq(bad, deny("model_not_allowed"))
             .acq(R(), deny("workspace_circuit_breaker", 5000, plan=True), at=1000)
             .acq(R(), deny("workspace_circuit_breaker", 5000, plan=True), at=3998)
             .acq(R(), grant("lease-1"), at=3))
    v.append(Sc("13.7: the deny counter counts events in the trailing safetyWindowMs (default 60 000)", pol)
             .acq(bad, deny("model_not_allowed"))
             .acq(bad, deny("model_not_allowed"), at=30000)
             .acq(bad, deny("model_not_allowed"), at=31000)
             .acq(R(), grant("lease-1")))
    v.append(Sc("13.7: safetyWindowMs is configurable", dict(pol, policyDenyCircuitBreakerThreshold=2,
                                                            safetyWindowMs=10000))
             .acq(bad, deny("model_not_allowed"))
             .acq(bad, deny("model_not_allowed"), at=10001)
             .acq(R(), grant("lease-1")))
    v.append(Sc("13.7: the counter restarts after it trips (LeaseGate's never reset, so every later deny re-tripped)",
                dict(pol, policyDenyCircuitBreakerThreshold=2))
             .acq(bad, deny("model_not_allowed"))
             .acq(bad, deny("model_not_allowed"))
             .acq(R(), deny("workspace_circuit_breaker", 2000, plan=True))
             .acq(bad, deny("model_not_allowed"), at=2001)
             .acq(R(), grant("lease-1"))
             .acq(bad, deny("model_not_allowed"))
             .acq(R(), deny("workspace_circuit_breaker", 2000, plan=True)))
    v.append(Sc("13.7: default policyDenyCircuitBreakerThreshold is 5", {"allowedModels": ["gpt-4o-mini"]})
             .acq(bad, deny("model_not_allowed"))
             .acq(bad, deny("model_not_allowed"))
             .acq(bad, deny("model_not_allowed"))
             .acq(bad, deny("model_not_allowed"))
             .acq(R(), grant("lease-1"))
             .acq(bad, deny("model_not_allowed"))
             .acq(R(), deny("workspace_circuit_breaker", 2000, plan=True)))
    sc = Sc("13.3 step 3, 13.15 Breaker bypass: only a valid approval token for the actor and workspace passes the "
            "breaker; any other token does not; a single-use token is consumed by the grant",
            dict(pol, policyDenyCircuitBreakerThreshold=1))
    sc.acq(bad, deny("model_not_allowed"))
    sc.cmd("RequestApproval", AREQ(toolCategory=DEL), {"approvalId": "approval-1"})
    sc.cmd("GrantApproval", {"approvalId": "approval-1", "grantedBy": "rev1"}, {"approvalToken": "appr-1"})
    sc.acq(R(approvalToken="garbage"), deny("workspace_circuit_breaker", 2000, plan=True))
    sc.acq(R(approvalToken="appr-1"), grant("lease-1"))
    sc.acq(R(approvalToken="appr-1"), deny("workspace_circuit_breaker", 2000, plan=True))
    v.append(sc)
    v.append(Sc("13.15 Breaker bypass: another actor's valid token does not pass the breaker",
                dict(pol, policyDenyCircuitBreakerThreshold=1))
             .acq(bad, deny("model_not_allowed"))
             .cmd("RequestApproval", AREQ(actorId="bob", requestedBy="bob", toolCategory=DEL), {"approvalId": "approval-1"})
             .cmd("GrantApproval", {"approvalId": "approval-1", "grantedBy": "rev1"}, {"approvalToken": "appr-1"})
             .acq(R(approvalToken="appr-1"), deny("workspace_circuit_breaker", 2000, plan=True))
             .acq(R(actorId="bob", approvalToken="appr-1"), grant("lease-1")))
    v.append(Sc("13.15 Breaker bypass: the token's tool scope does not matter there",
                dict(pol, policyDenyCircuitBreakerThreshold=1))
             .acq(bad, deny("model_not_allowed"))
             .cmd("RequestApproval", AREQ(toolId="http.post"), {"approvalId": "approval-1"})
             .cmd("GrantApproval", {"approvalId": "approval-1", "grantedBy": "rev1"}, {"approvalToken": "appr-1"})
             .acq(R(approvalToken="appr-1"), grant("lease-1")))
    v.append(Sc("13.15 Breaker bypass: a single-use token is consumed only if the acquire is granted",
                dict(pol, policyDenyCircuitBreakerThreshold=1, maxInFlight=1))
             .acq(R(workspaceId="ws2"), grant("lease-1"))
             .acq(bad, deny("model_not_allowed"))
             .cmd("RequestApproval", AREQ(toolCategory=DEL), {"approvalId": "approval-1"})
             .cmd("GrantApproval", {"approvalId": "approval-1", "grantedBy": "rev1"}, {"approvalToken": "appr-1"})
             .acq(R(approvalToken="appr-1"), deny("concurrency_limit_reached", 500))
             .rel(REL("lease-1", 1))
             .acq(R(approvalToken="appr-1"), grant("lease-2")))
    sc = Sc("13.7 (reference 3.3 case 9): a release at or over spendSpikeCents puts the actor on cooldown: "
            "actor_cooldown_active with retry = max(250, remaining ms) and a plan; other actors are not affected")
    spike(sc, "lease-1")
    sc.acq(R(), deny("actor_cooldown_active", 1500, plan=True), at=500)
    sc.acq(R(actorId="bob"), grant("lease-2"))
    sc.acq(R(), deny("actor_cooldown_active", 250, plan=True), at=1400)
    sc.acq(R(), grant("lease-3"), at=101)
    v.append(sc)
    v.append(spike(Sc("13.7: a release under spendSpikeCents does not trigger the cooldown", {"spendSpikeCents": 30}),
                   "lease-1")
             .acq(R(), grant("lease-2")))
    v.append(spike(Sc("13.7: the cooldown lasts safetyCooldownMs from the policy", {"safetyCooldownMs": 10000}),
                   "lease-1")
             .acq(R(), deny("actor_cooldown_active", 10000, plan=True))
             .acq(R(), deny("actor_cooldown_active", 1000, plan=True), at=9000)
             .acq(R(), grant("lease-2"), at=1001))
    v.append(spike(Sc("13.7: a spend spike clamps the actor's maxOutputTokens to clampedMaxOutputTokens (64)"), "lease-1")
             .acq(R(maxOutputTokens=500), grant("lease-2", constraints={"maxOutputTokensOverride": 64}), at=2001)
             .acq(R(actorId="bob", maxOutputTokens=500), grant("lease-3", constraints={"maxOutputTokensOverride": 500})))
    v.append(spike(Sc("13.7: the clamp only lowers (a request under it keeps its value)", {"clampedMaxOutputTokens": 100}),
                   "lease-1")
             .acq(R(maxOutputTokens=30), grant("lease-2", constraints={"maxOutputTokensOverride": 30}), at=2001)
             .acq(R(maxOutputTokens=300), grant("lease-3", constraints={"maxOutputTokensOverride": 100})))
    v.append(spike(Sc("13.7: output clamps last clampDurationMs (default 3 600 000), then end"), "lease-1")
             .acq(R(maxOutputTokens=500), grant("lease-2", constraints={"maxOutputTokensOverride": 64}), at=3599000)
             .acq(R(maxOutputTokens=500), grant("lease-3", constraints={"maxOutputTokensOverride": 500}), at=1001))
    v.append(spike(Sc("13.7: clampDurationMs is configurable", {"clampDurationMs": 5000}), "lease-1")
             .acq(R(maxOutputTokens=500), grant("lease-2", constraints={"maxOutputTokensOverride": 64}), at=2001)
             .acq(R(maxOutputTokens=500), grant("lease-3", constraints={"maxOutputTokensOverride": 500}), at=3000))
    v.append(Sc("13.7, 13.15 Retry storm: the acquires that carry one scoped key (first use and replays) count; at "
                "retryThresholdPerLease (3) the actor gets a cooldown; the current request is not denied")
             .acq(R(idempotencyKey="k1"), grant("lease-1"))
             .acq(R(idempotencyKey="k1"), {"granted": True, "leaseId": "lease-1"})
             .acq(R(idempotencyKey="k1"), {"granted": True, "leaseId": "lease-1"})
             .acq(R(), deny("actor_cooldown_active", 2000, plan=True))
             .acq(R(actorId="bob"), grant("lease-2")))
    v.append(Sc("13.15 Retry storm: acquires without a key do not count", {"maxInFlight": 10})
             .acq(R(), grant("lease-1"))
             .acq(R(), grant("lease-2"))
             .acq(R(), grant("lease-3"))
             .acq(R(idempotencyKey=""), grant("lease-4"))
             .acq(R(), grant("lease-5")))
    v.append(Sc("13.15 Retry storm: conflicts count")
             .acq(R(idempotencyKey="k1"), grant("lease-1"))
             .acq(R(idempotencyKey="k1", estimatedCostCents=7), deny("idempotency_key_conflict"))
             .acq(R(idempotencyKey="k1", estimatedCostCents=8), deny("idempotency_key_conflict"))
             .acq(R(idempotencyKey="k2"), deny("actor_cooldown_active", 2000, plan=True)))
    v.append(Sc("13.7 (fixed: scoped keys): the storm counter is per scoped key, so three actors sharing a key "
                "do not add up")
             .acq(R(idempotencyKey="k1"), grant("lease-1"))
             .acq(R(idempotencyKey="k1", actorId="bob"), grant("lease-2"))
             .acq(R(idempotencyKey="k1", actorId="carol"), grant("lease-3"))
             .acq(R(), grant("lease-4")))
    v.append(Sc("13.7: the storm counter counts in the trailing safetyWindowMs")
             .acq(R(idempotencyKey="k1"), grant("lease-1"))
             .acq(R(idempotencyKey="k1"), {"granted": True, "leaseId": "lease-1"}, at=30000)
             .acq(R(idempotencyKey="k1"), {"granted": True, "leaseId": "lease-1"}, at=31000)
             .acq(R(), grant("lease-2")))
    v.append(Sc("13.7: the storm counter restarts after it trips", {"retryThresholdPerLease": 2})
             .acq(R(idempotencyKey="k1"), grant("lease-1"))
             .acq(R(idempotencyKey="k1"), {"granted": True, "leaseId": "lease-1"})
             .acq(R(), deny("actor_cooldown_active", 2000, plan=True))
             .acq(R(idempotencyKey="k1"), {"granted": True, "leaseId": "lease-1"}, at=2001)
             .acq(R(), grant("lease-2"))
             .acq(R(idempotencyKey="k1"), {"granted": True, "leaseId": "lease-1"})
             .acq(R(), deny("actor_cooldown_active", 2000, plan=True)))
    v.append(Sc("13.3 steps 3-4: the breaker is checked before the actor cooldown",
                dict(pol, policyDenyCircuitBreakerThreshold=1))
             .acq(R(idempotencyKey="s1"), grant("lease-1"))
             .rel(REL("lease-1", 25))
             .acq(R(actorId="bob", modelId="gpt-4o"), deny("model_not_allowed"))
             .acq(R(), deny("workspace_circuit_breaker", 2000, plan=True))
             .acq(R(workspaceId="ws2"), deny("actor_cooldown_active", 2000, plan=True)))
    v.append(spike(Sc("13.3 steps 4, 9: a cooled-down actor is denied before the policy rules",
                      {"allowedModels": ["gpt-4o-mini"]}), "lease-1")
             .acq(bad, deny("actor_cooldown_active", 2000, plan=True)))
    return v



# ============================================================================ 13.8 tool sub-leases and tool calls

TOOL_POLICY = {"toolRegistry": TOOLS, "allowedFileRoots": ["/tmp", "/srv/app"],
               "allowedNetworkHosts": ["api.example.com", "*.example.org"]}


def SUB(tool="fs.read", lease="lease-1", calls=None, **kw):
    cat = {t["toolId"]: t["category"] for t in TOOLS}
    d = {"leaseId": lease, "toolId": tool, "category": cat.get(tool, "other")}
    if calls is not None:
        d["requestedCalls"] = calls
    d.update(kw)
    return d


def X(path="", host="", cmd="cat", tool="fs.read", sub="sub-1", lease="lease-1", **kw):
    cat = {t["toolId"]: t["category"] for t in TOOLS}
    d = {"leaseId": lease, "toolSubLeaseId": sub, "toolId": tool, "category": cat.get(tool, "other"),
         "targetPath": path, "targetHost": host, "commandText": cmd}
    d.update(kw)
    return d


ALLOWED = {"allowed": True}


def NO(reason):
    return {"allowed": False, "deniedReason": reason}


def tool_sc(comment, policy=None, tools=("fs.read", "web.get", "sh"), calls=3, sub_tool="fs.read", **kw):
    """A lease requesting `tools` and one sub-lease sub-1 for sub_tool with `calls` calls."""
    sc = Sc(comment, dict(TOOL_POLICY, **(policy or {})), **kw)
    sc.acq(R(requestedTools=T(*tools)), grant("lease-1"))
    sc.cmd("RequestToolSubLease", SUB(sub_tool, calls=calls),
           lambda s: {"granted": True, "toolSubLeaseId": "sub-1", "allowedCalls": calls})
    return sc


@section
def tool_paths():
    v = []
    allowed = [("/tmp", "the root itself"), ("/tmp/a.txt", "a file under the root"),
               ("/tmp/x/y/z.bin", "deep under the root"), ("/tmp/./a.txt", "`.` segments drop"),
               ("//tmp//a.txt", "repeated `/` collapse"), ("/tmp/a/", "a trailing `/` is removed"),
               ("/srv/app/config.json", "the second root"), ("/var/../tmp/a", "`..` climbs into the root"),
               ("/../tmp/a", "`..` at `/` stays at `/`"), ("", "an empty targetPath touches nothing")]
    for path, why in allowed:
        v.append(tool_sc("13.8: allowedFileRoots /tmp and /srv/app: %r is allowed (%s)" % (path, why))
                 .cmd("ExecuteToolCall", X(path=path), ALLOWED))
    denied = [("/tmpx", "a sibling with the root as a prefix (fixed defect: `/tmpx` not under `/tmp`)"),
              ("/tmpx/a.txt", "fixed defect: `/tmpx` not under `/tmp`"),
              ("/tmp/../etc/passwd", "`/tmp/../etc` is `/etc`"), ("/tmp/a/../../etc", "climbs out"),
              ("/etc/passwd", "outside every root"), ("/", "the filesystem root"),
              ("/TMP/a", "matching is case-sensitive"), ("/srv/application", "prefix of another name"),
              ("/srv", "the parent of a root")]
    for path, why in denied:
        v.append(tool_sc("13.8: allowedFileRoots /tmp and /srv/app: %r -> tool_path_not_allowed (%s)" % (path, why))
                 .cmd("ExecuteToolCall", X(path=path), NO("tool_path_not_allowed")))
    for path, why in [("tmp/a.txt", "a relative path never canonicalizes (5.1)"),
                      ("/tmp/a\u0000b", "a control character is invalid (5)")]:
        v.append(tool_sc("13.8: %r is not allowed: %s; fail closed" % (path, why))
                 .cmd("ExecuteToolCall", X(path=path), {"allowed": False}))
    v.append(tool_sc("13.8: an allowedFileRoots entry is an fs pattern (section 4): /data/*/in matches one segment",
                     {"allowedFileRoots": ["/data/*/in"]})
             .cmd("ExecuteToolCall", X(path="/data/job7/in/a.csv"), ALLOWED)
             .cmd("ExecuteToolCall", X(path="/data/job7/x/in/a.csv"), NO("tool_path_not_allowed")))
    v.append(tool_sc("13.15 Allow-lists: an empty allowedFileRoots allows no non-empty path (a boundary: fail closed)",
                     {"allowedFileRoots": []})
             .cmd("ExecuteToolCall", X(path="/tmp/a"), NO("tool_path_not_allowed"))
             .cmd("ExecuteToolCall", X(path=""), ALLOWED))
    return v


@section
def tool_hosts():
    v = []
    for host, why in [("api.example.com", "exact"), ("API.Example.COM", "compared lower-cased"),
                      ("api.example.com.", "without a trailing dot"), ("a.example.org", "`*` is one DNS label"),
                      ("", "an empty targetHost touches nothing")]:
        v.append(tool_sc("13.8: allowedNetworkHosts: %r is allowed (%s)" % (host, why), sub_tool="web.get")
                 .cmd("ExecuteToolCall", X(host=host, tool="web.get", cmd="curl"), ALLOWED))
    for host, why in [("evil.com", "not listed"), ("api.example.com.evil.com", "a listed host as a prefix"),
                      ("xapi.example.com", "a listed host as a suffix"), ("example.org", "`*` needs one label"),
                      ("a.b.example.org", "`*` is exactly one label"), ("api.example.co", "another name")]:
        v.append(tool_sc("13.8: allowedNetworkHosts: %r -> tool_host_not_allowed (%s)" % (host, why),
                         sub_tool="web.get")
                 .cmd("ExecuteToolCall", X(host=host, tool="web.get", cmd="curl"), NO("tool_host_not_allowed")))
    v.append(tool_sc("13.15 Allow-lists: an empty allowedNetworkHosts allows no non-empty host",
                     {"allowedNetworkHosts": []}, sub_tool="web.get")
             .cmd("ExecuteToolCall", X(host="api.example.com", tool="web.get", cmd="curl"), NO("tool_host_not_allowed"))
             .cmd("ExecuteToolCall", X(host="", tool="web.get", cmd="curl"), ALLOWED))
    v.append(tool_sc("13.8: the path check runs before the host check", sub_tool="web.get")
             .cmd("ExecuteToolCall", X(path="/etc/x", host="evil.com", tool="web.get", cmd="curl"),
                  NO("tool_path_not_allowed")))
    return v


@section
def tool_commands():
    v = []
    for ch in "&|><;`$(){}%^!":
        v.append(tool_sc("13.8: a command holding the metacharacter %r -> tool_command_rejected" % ch, sub_tool="sh")
                 .cmd("ExecuteToolCall", X(tool="sh", cmd="ls %s x" % ch), NO("tool_command_rejected")))
    v.append(tool_sc("13.8: the empty command is refused", sub_tool="sh")
             .cmd("ExecuteToolCall", X(tool="sh", cmd=""), NO("tool_command_rejected")))
    v.append(tool_sc("13.8: a plain command with arguments passes", sub_tool="sh")
             .cmd("ExecuteToolCall", X(tool="sh", cmd="ls -la /tmp", path="/tmp"), ALLOWED))
    v.append(tool_sc("13.8: the host check runs before the command check", sub_tool="sh")
             .cmd("ExecuteToolCall", X(tool="sh", cmd="curl x; rm -rf /", host="evil.com"), NO("tool_host_not_allowed")))
    return v


@section
def sub_leases():
    v = []
    sc = Sc("13.8: a sub-lease gets LeaseGate's limits: allowedCalls = min(max(1, requested), maxToolCalls), timeoutMs "
            "clamped to [100, defaultToolTimeoutMs], maxOutputBytes to [256, maxToolOutputBytes], the parent's expiry",
            TOOL_POLICY)
    sc.acq(R(requestedTools=T("fs.read")), grant("lease-1"))
    sc.cmd("RequestToolSubLease", SUB(calls=2, timeoutMs=50, maxOutputBytes=100),
           lambda s: {"granted": True, "toolSubLeaseId": "sub-1", "allowedCalls": 2, "timeoutMs": 100,
                      "maxOutputBytes": 256, "expiresAtUtc": s.exp["lease-1"]})
    sc.cmd("RequestToolSubLease", SUB(calls=0, timeoutMs=10000, maxOutputBytes=10 ** 6),
           {"granted": True, "toolSubLeaseId": "sub-2", "allowedCalls": 1, "timeoutMs": 2000,
            "maxOutputBytes": 16384}, at=5000)
    v.append(sc)
    v.append(Sc("13.15: RequestToolSubLease defaults: requestedCalls 1, timeoutMs 2000, maxOutputBytes 16384",
                TOOL_POLICY)
             .acq(R(requestedTools=T("fs.read")), grant("lease-1"))
             .cmd("RequestToolSubLease", {"leaseId": "lease-1", "toolId": "fs.read", "category": "fileRead"},
                  {"granted": True, "allowedCalls": 1, "timeoutMs": 2000, "maxOutputBytes": 16384}))
    v.append(Sc("13.8: policy defaultToolTimeoutMs and maxToolOutputBytes are the sub-lease ceilings",
                dict(TOOL_POLICY, defaultToolTimeoutMs=500, maxToolOutputBytes=1024))
             .acq(R(requestedTools=T("fs.read")), grant("lease-1"))
             .cmd("RequestToolSubLease", SUB(calls=1), {"granted": True, "timeoutMs": 500, "maxOutputBytes": 1024}))
    v.append(Sc("13.8: a sub-lease of an unknown lease -> lease_not_found", TOOL_POLICY)
             .cmd("RequestToolSubLease", SUB(lease="lease-1"), {"granted": False, "deniedReason": "lease_not_found"})
             .acq(R(requestedTools=T("fs.read")), grant("lease-1"))
             .cmd("RequestToolSubLease", SUB(), {"granted": True, "toolSubLeaseId": "sub-1"}))
    v.append(Sc("13.8: a released or expired parent gives lease_not_found", TOOL_POLICY)
             .acq(R(requestedTools=T("fs.read")), grant("lease-1"))
             .acq(R(requestedTools=T("fs.read")), grant("lease-2"))
             .rel(REL("lease-1", 1))
             .cmd("RequestToolSubLease", SUB(lease="lease-1"), {"granted": False, "deniedReason": "lease_not_found"})
             .cmd("RequestToolSubLease", SUB(lease="lease-2"), {"granted": False, "deniedReason": "lease_not_found"},
                  at=20000))
    v.append(Sc("13.8: the tool must be one the parent lease requested -> tool_not_in_lease", TOOL_POLICY)
             .acq(R(requestedTools=T("fs.read")), grant("lease-1"))
             .cmd("RequestToolSubLease", SUB("web.get"), {"granted": False, "deniedReason": "tool_not_in_lease"})
             .acq(R(), grant("lease-2"))
             .cmd("RequestToolSubLease", SUB("fs.read", lease="lease-2"),
                  {"granted": False, "deniedReason": "tool_not_in_lease"}))
    v.append(Sc("13.8: the sub-lease's category is the one the parent requested for the tool; another one -> "
                "tool_category_mismatch:<toolId>", TOOL_POLICY)
             .acq(R(requestedTools=T("fs.read")), grant("lease-1"))
             .cmd("RequestToolSubLease", SUB(category="exec"),
                  {"granted": False, "deniedReason": "tool_category_mismatch:fs.read"}))
    v.append(Sc("13.8 (fixed defect: aggregate sub-lease call cap): the allowedCalls of a lease's sub-leases sum to "
                "at most maxToolCalls; then tool_calls_exhausted", dict(TOOL_POLICY, maxToolCallsPerLease=3))
             .acq(R(requestedTools=T("fs.read", "web.get")), grant("lease-1", constraints={"maxToolCalls": 3}))
             .cmd("RequestToolSubLease", SUB(calls=2), {"granted": True, "toolSubLeaseId": "sub-1", "allowedCalls": 2})
             .cmd("RequestToolSubLease", SUB("web.get", calls=5),
                  {"granted": True, "toolSubLeaseId": "sub-2", "allowedCalls": 1})
             .cmd("RequestToolSubLease", SUB(calls=1), {"granted": False, "deniedReason": "tool_calls_exhausted"})
             .cmd("RequestToolSubLease", SUB(calls=1), {"granted": False, "deniedReason": "tool_calls_exhausted"}))
    v.append(Sc("13.8 (fixed defect: aggregate cap): LeaseGate's per-sub-lease cap could be multiplied by asking "
                "again; here a 6-call sub-lease uses up the default maxToolCallsPerLease 6", TOOL_POLICY)
             .acq(R(requestedTools=T("fs.read")), grant("lease-1"))
             .cmd("RequestToolSubLease", SUB(calls=6), {"granted": True, "allowedCalls": 6})
             .cmd("RequestToolSubLease", SUB(calls=6), {"granted": False, "deniedReason": "tool_calls_exhausted"}))
    v.append(Sc("13.15 Tool calls: used-up sub-leases still count in the aggregate cap",
                dict(TOOL_POLICY, maxToolCallsPerLease=2))
             .acq(R(requestedTools=T("fs.read")), grant("lease-1"))
             .cmd("RequestToolSubLease", SUB(calls=2), {"granted": True, "allowedCalls": 2})
             .cmd("ExecuteToolCall", X(path="/tmp/a"), ALLOWED)
             .cmd("ExecuteToolCall", X(path="/tmp/b"), ALLOWED)
             .cmd("ExecuteToolCall", X(path="/tmp/c"), NO("tool_sublease_depleted"))
             .cmd("RequestToolSubLease", SUB(calls=1), {"granted": False, "deniedReason": "tool_calls_exhausted"}))
    v.append(Sc("13.15 Ids: sub-lease ids count from 1; a denied sub-lease draws none", TOOL_POLICY)
             .acq(R(requestedTools=T("fs.read", "web.get")), grant("lease-1"))
             .cmd("RequestToolSubLease", SUB("sh"), {"granted": False, "deniedReason": "tool_not_in_lease"})
             .cmd("RequestToolSubLease", SUB(), {"granted": True, "toolSubLeaseId": "sub-1"})
             .cmd("RequestToolSubLease", SUB("web.get"), {"granted": True, "toolSubLeaseId": "sub-2"}))
    v.append(tool_sc("13.15 Tool calls: only an allowed call uses up a sub-lease call; a used-up sub-lease is "
                     "tool_sublease_depleted", calls=1)
             .cmd("ExecuteToolCall", X(path="/etc/passwd"), NO("tool_path_not_allowed"))
             .cmd("ExecuteToolCall", X(path="/tmp/a"), ALLOWED)
             .cmd("ExecuteToolCall", X(path="/tmp/b"), NO("tool_sublease_depleted")))
    v.append(tool_sc("13.15 Tool calls: a used-up sub-lease stays depleted until its parent ends, then "
                     "tool_sublease_not_found", calls=1)
             .cmd("ExecuteToolCall", X(path="/tmp/a"), ALLOWED)
             .cmd("ExecuteToolCall", X(path="/tmp/a"), NO("tool_sublease_depleted"))
             .rel(REL("lease-1", 1))
             .cmd("ExecuteToolCall", X(path="/tmp/a"), NO("tool_sublease_not_found")))
    v.append(tool_sc("13.8, 13.4: releasing the parent ends its sub-leases (tool_sublease_not_found)")
             .rel(REL("lease-1", 1))
             .cmd("ExecuteToolCall", X(path="/tmp/a"), NO("tool_sublease_not_found")))
    v.append(tool_sc("13.8: a sub-lease never outlives its parent: after the parent's expiry the call is refused")
             .cmd("ExecuteToolCall", X(path="/tmp/a"), ALLOWED, at=19999)
             .cmd("ExecuteToolCall", X(path="/tmp/a"), {"allowed": False}, at=1))
    v.append(tool_sc("13.8: an unknown sub-lease id -> tool_sublease_not_found")
             .cmd("ExecuteToolCall", X(sub="sub-9", path="/tmp/a"), NO("tool_sublease_not_found")))
    v.append(tool_sc("13.8: a sub-lease used with another lease id -> tool_sublease_lease_mismatch")
             .acq(R(requestedTools=T("fs.read")), grant("lease-2"))
             .cmd("ExecuteToolCall", X(lease="lease-2", path="/tmp/a"), NO("tool_sublease_lease_mismatch")))
    v.append(tool_sc("13.8: a sub-lease used for another tool -> tool_sublease_scope_mismatch")
             .cmd("ExecuteToolCall", X(tool="web.get", cmd="curl"), NO("tool_sublease_scope_mismatch")))
    v.append(tool_sc("13.8: a sub-lease used with another category -> tool_sublease_scope_mismatch")
             .cmd("ExecuteToolCall", X(path="/tmp/a", category="exec"), NO("tool_sublease_scope_mismatch")))
    v.append(tool_sc("13.15 Tool calls: ExecuteToolCall defaults (timeoutMs 1000, maxOutputBytes 8192) need no fields",
                     calls=1)
             .cmd("ExecuteToolCall", {"leaseId": "lease-1", "toolSubLeaseId": "sub-1", "toolId": "fs.read",
                                      "category": "fileRead", "targetPath": "/tmp/a", "commandText": "cat"}, ALLOWED))
    v.append(tool_sc("13.7, 13.8: the loop detector counts every call per (lease, tool); at toolLoopThreshold (4) "
                     "-> tool_loop_detected and the workspace circuit breaker trips", calls=6)
             .cmd("ExecuteToolCall", X(path="/tmp/a"), ALLOWED)
             .cmd("ExecuteToolCall", X(path="/tmp/a"), ALLOWED)
             .cmd("ExecuteToolCall", X(path="/tmp/a"), ALLOWED)
             .cmd("ExecuteToolCall", X(path="/tmp/a"), NO("tool_loop_detected"))
             .acq(R(), deny("workspace_circuit_breaker", 2000, plan=True))
             .acq(R(workspaceId="ws2"), grant("lease-2")))
    v.append(tool_sc("13.15 Tool calls: denied calls count for the loop detector too", calls=6)
             .cmd("ExecuteToolCall", X(path="/etc/a"), NO("tool_path_not_allowed"))
             .cmd("ExecuteToolCall", X(path="/etc/b"), NO("tool_path_not_allowed"))
             .cmd("ExecuteToolCall", X(path="/etc/c"), NO("tool_path_not_allowed"))
             .cmd("ExecuteToolCall", X(path="/tmp/a"), NO("tool_loop_detected")))
    v.append(tool_sc("13.7: the loop counter is per tool", calls=3, tools=("fs.read", "web.get"))
             .cmd("RequestToolSubLease", SUB("web.get", calls=3), {"granted": True, "toolSubLeaseId": "sub-2"})
             .cmd("ExecuteToolCall", X(path="/tmp/a"), ALLOWED)
             .cmd("ExecuteToolCall", X(path="/tmp/a"), ALLOWED)
             .cmd("ExecuteToolCall", X(path="/tmp/a"), ALLOWED)
             .cmd("ExecuteToolCall", X(tool="web.get", sub="sub-2", host="api.example.com", cmd="curl"), ALLOWED))
    v.append(tool_sc("13.7: the loop counter counts in the trailing safetyWindowMs", {"leaseTtlMs": 300000}, calls=6)
             .cmd("ExecuteToolCall", X(path="/tmp/a"), ALLOWED)
             .cmd("ExecuteToolCall", X(path="/tmp/a"), ALLOWED, at=1000)
             .cmd("ExecuteToolCall", X(path="/tmp/a"), ALLOWED, at=1000)
             .cmd("ExecuteToolCall", X(path="/tmp/a"), ALLOWED, at=61000))
    v.append(tool_sc("13.9: toolRateLimits are checked at ExecuteToolCall -> tool_rate_limited",
                     {"toolRateLimits": [{"toolId": "fs.read", "calls": 2, "windowMs": 60000}]}, calls=6)
             .cmd("ExecuteToolCall", X(path="/tmp/a"), ALLOWED)
             .cmd("ExecuteToolCall", X(path="/tmp/a"), ALLOWED, at=1000)
             .cmd("ExecuteToolCall", X(path="/tmp/a"), NO("tool_rate_limited"), at=1000))
    ap = dict(TOOL_POLICY, approvalRequiredToolCategories=["networkWrite"])
    sc = Sc("13.8, 13.15 Tool calls: a sub-lease whose category needs approval carries approvalToken, validated and "
            "consumed as in acquire", ap)
    sc.cmd("RequestApproval", AREQ(singleUse=False), {"approvalId": "approval-1"})
    sc.cmd("GrantApproval", {"approvalId": "approval-1", "grantedBy": "rev1"}, {"approvalToken": "appr-1"})
    sc.acq(PUB(approvalToken="appr-1"), grant("lease-1"))
    sc.cmd("RequestToolSubLease", SUB("http.post"), {"granted": False, "deniedReason": "approval_required"})
    sc.cmd("RequestToolSubLease", SUB("http.post", approvalToken="garbage"),
           {"granted": False, "deniedReason": "approval_required"})
    sc.cmd("RequestToolSubLease", SUB("http.post", approvalToken="appr-1"), {"granted": True, "toolSubLeaseId": "sub-1"})
    v.append(sc)
    sc = Sc("13.8: a single-use token consumed by the acquire cannot be reused for the sub-lease; a second approval "
            "covers it", ap)
    approved(sc)
    sc.acq(PUB(approvalToken="appr-1"), grant("lease-1"))
    sc.cmd("RequestToolSubLease", SUB("http.post", approvalToken="appr-1"),
           {"granted": False, "deniedReason": "approval_required"})
    approved(sc, "approval-2", "appr-2")
    sc.cmd("RequestToolSubLease", SUB("http.post", approvalToken="appr-2"), {"granted": True, "toolSubLeaseId": "sub-1"})
    sc.cmd("RequestToolSubLease", SUB("http.post", approvalToken="appr-2"),
           {"granted": False, "deniedReason": "approval_required"})
    v.append(sc)
    return v



# ============================================================================ 13.3 ARCP lease: requestedLease, Authorize

RL = {"fs.read": ["/data/**"], "fs.write": ["/data/out/*"], "net.fetch": ["https://api.example.com/v1/**"],
      "tool.call": ["web.*"], "model.use": ["gpt-4o*"]}


def AUTH(cap, target, lease="lease-1"):
    return {"leaseId": lease, "capability": cap, "target": target}


def OK(canonical):
    return {"allowed": True, "canonicalTarget": canonical}


def AD(code, **kw):
    d = {"allowed": False, "code": code}
    d.update(kw)
    return d


@section
def arcp():
    v = []
    v.append(Sc("13.3 ARCP: without a ceiling the effective lease is the requested lease")
             .acq(R(requestedLease=RL), grant("lease-1", effectiveLease=RL)))
    cases = [
        ("fs.read", "/data/a/b.txt", OK("/data/a/b.txt"), "a path under /data/**"),
        ("fs.read", "/data/x/../y.txt", OK("/data/y.txt"), "canonicalized before matching (5.1)"),
        ("fs.read", "//data//a", OK("/data/a"), "repeated `/` collapse"),
        ("fs.read", "/data/../etc/passwd", AD("PERMISSION_DENIED"), "`..` leaves /data"),
        ("fs.read", "/etc/passwd", AD("PERMISSION_DENIED"), "no pattern matches"),
        ("fs.read", "data/a", AD("INVALID_REQUEST"), "a relative fs target is invalid"),
        ("fs.write", "/data/out/r.csv", OK("/data/out/r.csv"), "`*` matches within one segment"),
        ("fs.write", "/data/out/sub/r.csv", AD("PERMISSION_DENIED"), "`*` does not cross `/`"),
        ("net.fetch", "HTTPS://API.example.com:443/v1/users", OK("https://api.example.com/v1/users"),
         "scheme and host lower-cased, default port removed (5.2)"),
        ("net.fetch", "https://api.example.com/v2/x", AD("PERMISSION_DENIED"), "another path"),
        ("net.fetch", "https://user@api.example.com/v1/x", AD("INVALID_REQUEST"), "userinfo is refused"),
        ("net.fetch", "https://api.example.com/v1/..%2Fadmin", AD("INVALID_REQUEST"), "an ambiguous path is refused"),
        ("tool.call", "web.search", OK("web.search"), "`.` is a tool.call separator"),
        ("tool.call", "web.search.deep", AD("PERMISSION_DENIED"), "`*` stops at `.`"),
        ("model.use", "gpt-4o-mini", OK("gpt-4o-mini"), "model patterns"),
        ("agent.delegate", "helper", AD("PERMISSION_DENIED"), "a capability the lease lacks"),
        ("fs.exec", "/data/a", AD("INVALID_REQUEST"), "an invalid capability name"),
        ("cost.budget", "USD", AD("INVALID_REQUEST"), "cost.budget is not a target capability"),
        ("fs.read", "", AD("INVALID_REQUEST"), "an empty target"),
    ]
    for cap, target, exp, why in cases:
        v.append(Sc("13.3 Authorize: checks one operation against the lease's effectiveLease by section 8: "
                    "%s %r (%s)" % (cap, target, why))
                 .acq(R(requestedLease=RL), grant("lease-1"))
                 .cmd("Authorize", AUTH(cap, target), exp))
    v.append(Sc("13.3 Authorize: a lease granted without requestedLease authorizes nothing")
             .acq(R(), grant("lease-1"))
             .cmd("Authorize", AUTH("fs.read", "/data/a"), AD("PERMISSION_DENIED"))
             .cmd("Authorize", AUTH("model.use", "gpt-4o-mini"), AD("PERMISSION_DENIED")))
    v.append(Sc("13.3 Authorize: an unknown lease -> lease_not_found")
             .cmd("Authorize", AUTH("fs.read", "/data/a", lease="lease-1"),
                  {"allowed": False, "deniedReason": "lease_not_found"}))
    v.append(Sc("13.3 Authorize: a released lease -> lease_not_found")
             .acq(R(requestedLease=RL), grant("lease-1"))
             .rel(REL("lease-1", 1))
             .cmd("Authorize", AUTH("fs.read", "/data/a"), {"allowed": False, "deniedReason": "lease_not_found"}))
    v.append(Sc("13.3 Authorize: an expired lease (now >= expiresAtUtc) -> lease_expired, code LEASE_EXPIRED")
             .acq(R(requestedLease=RL), grant("lease-1"))
             .cmd("Authorize", AUTH("fs.read", "/data/a"), OK("/data/a"), at=19999)
             .cmd("Authorize", AUTH("fs.read", "/data/a"),
                  {"allowed": False, "deniedReason": "lease_expired", "code": "LEASE_EXPIRED"}, at=1))
    v.append(Sc("13.3 Authorize, section 8: expiry is checked before the target (an invalid target on an expired "
                "lease is LEASE_EXPIRED)")
             .acq(R(requestedLease=RL), grant("lease-1"))
             .cmd("Authorize", AUTH("fs.read", "relative"), AD("LEASE_EXPIRED"), at=25000))
    v.append(Sc("13.3 Authorize, section 8: an exhausted lease budget is BUDGET_EXHAUSTED (checked before the "
                "capability)")
             .acq(R(requestedLease={"tool.call": ["*"], "cost.budget": ["USD:0"]}), grant("lease-1"))
             .cmd("Authorize", AUTH("tool.call", "web.search"), AD("BUDGET_EXHAUSTED"))
             .cmd("Authorize", AUTH("fs.exec", "x"), AD("BUDGET_EXHAUSTED")))
    v.append(Sc("13.3 ARCP, section 10: the grant carries narrow(requestedLease, leaseCeiling): a pattern inside the "
                "ceiling stays, a wider one is replaced by the ceiling's patterns it contains, a capability the ceiling "
                "lacks is dropped", {"leaseCeiling": {"fs.read": ["/data/**"], "tool.call": ["web.*", "calc"]}})
             .acq(R(requestedLease={"fs.read": ["/**"], "tool.call": ["web.search"],
                                    "net.fetch": ["https://**"]}),
                  grant("lease-1", effectiveLease={"fs.read": ["/data/**"], "tool.call": ["web.search"]}))
             .cmd("Authorize", AUTH("fs.read", "/etc/passwd"), AD("PERMISSION_DENIED"))
             .cmd("Authorize", AUTH("fs.read", "/data/x"), OK("/data/x"))
             .cmd("Authorize", AUTH("net.fetch", "https://api.example.com/"), AD("PERMISSION_DENIED")))
    v.append(Sc("13.3 ARCP, section 10: a capability left with no pattern stays as []",
                {"leaseCeiling": {"fs.read": ["/data/**"]}})
             .acq(R(requestedLease={"fs.read": ["/etc/**"]}), grant("lease-1", effectiveLease={"fs.read": []}))
             .cmd("Authorize", AUTH("fs.read", "/etc/hosts"), AD("PERMISSION_DENIED")))
    v.append(Sc("13.3 ARCP: leaseCeilingByRole[role] is used before leaseCeiling (role from actorRoles)",
                {"actorRoles": {"alice": "admin"}, "leaseCeilingByRole": {"admin": {"fs.read": ["/**"]}},
                 "leaseCeiling": {"fs.read": ["/public/**"]}})
             .acq(R(requestedLease={"fs.read": ["/etc/**"]}), grant("lease-1", effectiveLease={"fs.read": ["/etc/**"]}))
             .acq(R(actorId="bob", requestedLease={"fs.read": ["/etc/**"]}),
                  grant("lease-2", effectiveLease={"fs.read": []})))
    v.append(Sc("13.3 ARCP, 13.15 Roles: leaseCeilingByRole keys match case-insensitively",
                {"leaseCeilingByRole": {"Member": {"tool.call": ["calc"]}}})
             .acq(R(requestedLease={"tool.call": ["*"]}), grant("lease-1", effectiveLease={"tool.call": ["calc"]})))
    for lease, why in [({"fs.read": "/data/**"}, "a value that is not an array"),
                       ({"fs.exec": ["/x"]}, "an invalid capability name"),
                       ({"fs.read": ["data/**"]}, "a relative fs pattern"),
                       ({"tool.call": [""]}, "an empty pattern"),
                       ({"fs.read": ["/a/***"]}, "three consecutive `*`"),
                       ({"cost.budget": ["USD:-1"]}, "a budget entry that is not an amount"),
                       ({"fs.read": [7]}, "an element that is not a string")]:
        v.append(Sc("13.3 ARCP: an invalid requestedLease (%s) denies invalid_requested_lease, no retry, no plan" % why)
                 .acq(R(requestedLease=lease), deny("invalid_requested_lease"))
                 .acq(R(requestedLease={"fs.read": ["/data/**"]}), grant("lease-1")))
    v.append(Sc("13.3 ARCP: invalid_requested_lease comes right after step 8 (the registry denies first)",
                {"toolRegistry": []})
             .acq(R(requestedLease={"fs.read": "x"}, requestedTools=T("fs.read")), deny("tool_not_registered:fs.read")))
    v.append(Sc("13.3 ARCP: invalid_requested_lease comes before the policy rules of step 9",
                {"allowedModels": ["cheap-model"]})
             .acq(R(requestedLease={"fs.read": "x"}), deny("invalid_requested_lease")))
    v.append(Sc("13.3 ARCP: invalid_requested_lease is not counted by the circuit breaker",
                {"policyDenyCircuitBreakerThreshold": 1})
             .acq(R(requestedLease={"fs.read": "x"}), deny("invalid_requested_lease"))
             .acq(R(requestedLease={"fs.read": "x"}), deny("invalid_requested_lease"))
             .acq(R(), grant("lease-1")))
    v.append(Sc("13.3 ARCP: an empty requestedLease is valid and grants nothing")
             .acq(R(requestedLease={}), grant("lease-1", effectiveLease={}))
             .cmd("Authorize", AUTH("fs.read", "/data/a"), AD("PERMISSION_DENIED")))
    return v


# ============================================================================ 13.9 policy bundles (helpers)

CREATED = "2026-02-28T09:30:00Z"


def content_text(policy):
    """A policyContentJson with whitespace and unsorted keys, so the RFC 8785 hash differs from a hash of the text."""
    return json.dumps(policy, indent=1, sort_keys=False)


def bundle_unsigned(version, policy, created=CREATED, author="ci", text=None):
    return {"version": version, "createdAtUtc": created, "author": author,
            "policyContentJson": content_text(policy) if text is None else text}


def bundle_signed(key, version, policy, created=CREATED, author="ci", der=False, text=None, sign_as=None):
    """A bundle signed by `key`; sign_as=(version, created, author, text) signs other values (tampering)."""
    b = bundle_unsigned(version, policy, created, author, text)
    sv = sign_as or (b["version"], b["createdAtUtc"], b["author"], b["policyContentJson"])
    b["signatureBase64"] = sign(key, signed_text(*sv), der=der)
    return b


def staged_hash(bundle):
    return policy_hash(json.loads(bundle["policyContentJson"]))



SIGNED = {"requireSignedBundles": True, "allowedPublicKeysBase64": [spki_b64("ec1"), spki_b64("ed1")]}
UNSIGNED = {"requireSignedBundles": False}
P1 = {"policyVersion": "v1", "maxInFlight": 2}
P2 = {"policyVersion": "ignored-by-bundle", "maxInFlight": 1, "allowedModels": ["gpt-4o-mini", "mod\u00e8le-\u03b2"],
      "toolRegistry": [{"toolId": "fs.read", "category": "fileRead"}]}
BAD_SIG = "invalid policy bundle signature"


def stage_ok(b):
    return {"accepted": True, "message": "policy staged", "stagedPolicyVersion": b["version"],
            "stagedPolicyHash": staged_hash(b)}


def activate_ok(b):
    return {"activated": True, "message": "policy activated", "activePolicyVersion": b["version"],
            "activePolicyHash": staged_hash(b)}


@section
def policy_bundles():
    v = []
    for key, der, what in [("ec1", False, "ECDSA P-256 (IEEE P1363 r||s)"), ("ec1", True, "ECDSA P-256 (DER)"),
                           ("ed1", False, "Ed25519 (an Ed25519 SPKI key means Ed25519)")]:
        b = bundle_signed(key, "v2", P2, der=der)
        v.append(Sc("13.9: a bundle signed with %s over version|createdAtUtc|author|policyContentJson by an allowed "
                    "key is staged; its hash is the RFC 8785 hash of the content; activation swaps it in (version "
                    "from the bundle) and resizes the pools at once" % what, P1, options=SIGNED)
                 .acq(R(), grant("lease-1", policyVersion="v1", policyHash=policy_hash(P1)))
                 .cmd("StagePolicyBundle", b, stage_ok(b))
                 .cmd("ActivatePolicy", {"version": "v2"}, activate_ok(b))
                 .acq(R(), deny("concurrency_limit_reached", 500))
                 .rel(REL("lease-1", 1))
                 .acq(R(), grant("lease-2", policyVersion="v2", policyHash=staged_hash(b)))
                 .cmd("GetStatus", {}, {"policyVersion": "v2", "policyHash": staged_hash(b)}))
    good = bundle_signed("ec1", "v2", P2)
    tampered = [
        ("the content changed after signing", dict(good, policyContentJson=content_text(dict(P2, maxInFlight=50)))),
        ("the version changed after signing", dict(good, version="v3")),
        ("the author changed after signing", dict(good, author="mallory")),
        ("createdAtUtc reformatted (the signed text uses it exactly as sent)",
         dict(good, createdAtUtc="2026-02-28T09:30:00.000Z")),
        ("signed by a key that is not allowed", bundle_signed("ec2", "v2", P2)),
        ("an Ed25519 signature by a key that is not allowed", bundle_signed("ed2", "v2", P2)),
        ("no signature while signatures are required", bundle_unsigned("v2", P2)),
        ("a signature that is not base64", dict(good, signatureBase64="%%%not-base64%%%")),
        ("a truncated P1363 signature (63 bytes)",
         dict(good, signatureBase64=base64.b64encode(base64.b64decode(good["signatureBase64"])[:63]).decode())),
        ("the content whitespace changed (the signature covers the text, not the hash)",
         dict(good, policyContentJson=good["policyContentJson"] + "\n")),
    ]
    for why, b in tampered:
        v.append(Sc("13.9 (reference 3.3 case 12): %s -> not staged, `%s`; the active policy is unchanged"
                    % (why, BAD_SIG), P1, options=SIGNED)
                 .cmd("StagePolicyBundle", b, {"accepted": False, "message": BAD_SIG})
                 .cmd("ActivatePolicy", {"version": "v2"}, {"activated": False, "message": "no staged policy"})
                 .cmd("GetStatus", {}, {"policyVersion": "v1", "policyHash": policy_hash(P1)}))
    v.append(Sc("13.9: an Ed25519 signature does not verify against an ECDSA key only",
                P1, options={"requireSignedBundles": True, "allowedPublicKeysBase64": [spki_b64("ec1")]})
             .cmd("StagePolicyBundle", bundle_signed("ed1", "v2", P2), {"accepted": False, "message": BAD_SIG}))
    v.append(Sc("13.9: requireSignedBundles with no allowed keys rejects every bundle",
                P1, options={"requireSignedBundles": True})
             .cmd("StagePolicyBundle", bundle_signed("ec1", "v2", P2), {"accepted": False, "message": BAD_SIG}))
    created = "2026-02-28T09:30:00.0000000+00:00"
    b = bundle_signed("ec1", "v2", P2, created=created)
    v.append(Sc("13.15 Signatures: createdAtUtc in LeaseGate's round-trip form is signed exactly as sent",
                P1, options=SIGNED)
             .cmd("StagePolicyBundle", b, stage_ok(b)))
    b = bundle_unsigned("v2", P2)
    v.append(Sc("13.9: without requireSignedBundles an unsigned bundle is staged", P1, options=UNSIGNED)
             .cmd("StagePolicyBundle", b, stage_ok(b))
             .cmd("ActivatePolicy", {"version": "v2"}, activate_ok(b)))
    v.append(Sc("13.9 (fail closed): without requireSignedBundles a signature that is present must still verify",
                P1, options=dict(UNSIGNED, allowedPublicKeysBase64=[spki_b64("ec1")]))
             .cmd("StagePolicyBundle", bundle_signed("ec2", "v2", P2), {"accepted": False, "message": BAD_SIG}))
    v.append(Sc("13.9 (reference 3.3 case 12): activating another version than the staged one -> "
                "`staged policy version mismatch`; nothing staged -> `no staged policy`", P1, options=UNSIGNED)
             .cmd("ActivatePolicy", {"version": "v2"}, {"activated": False, "message": "no staged policy"})
             .cmd("StagePolicyBundle", bundle_unsigned("v2", P2), {"accepted": True})
             .cmd("ActivatePolicy", {"version": "v3"}, {"activated": False, "message": "staged policy version mismatch"})
             .cmd("GetStatus", {}, {"policyVersion": "v1"})
             .cmd("ActivatePolicy", {"version": "v2"}, {"activated": True, "activePolicyVersion": "v2"})
             .cmd("ActivatePolicy", {"version": "v2"}, {"activated": False, "message": "no staged policy"}))
    b3 = bundle_unsigned("v3", dict(P2, maxInFlight=3))
    v.append(Sc("13.9: there is one staging slot: a new stage replaces the old", P1, options=UNSIGNED)
             .cmd("StagePolicyBundle", bundle_unsigned("v2", P2), {"accepted": True})
             .cmd("StagePolicyBundle", b3, stage_ok(b3))
             .cmd("ActivatePolicy", {"version": "v2"}, {"activated": False, "message": "staged policy version mismatch"})
             .cmd("ActivatePolicy", {"version": "v3"}, activate_ok(b3)))
    b2 = bundle_unsigned("v2", P2)
    v.append(Sc("13.9, 13.15 RollbackPolicy: re-activates an earlier activated version (the policy loaded at start "
                "counts as activated)", P1, options=UNSIGNED)
             .cmd("StagePolicyBundle", b2, {"accepted": True})
             .cmd("ActivatePolicy", {"version": "v2"}, {"activated": True})
             .cmd("RollbackPolicy", {"version": "v1"},
                  {"activated": True, "activePolicyVersion": "v1", "activePolicyHash": policy_hash(P1)})
             .acq(R(), grant("lease-1", policyVersion="v1", policyHash=policy_hash(P1)))
             .acq(R(), grant("lease-2"))
             .cmd("RollbackPolicy", {"version": "v2"},
                  {"activated": True, "activePolicyVersion": "v2", "activePolicyHash": staged_hash(b2)})
             .acq(R(), deny("concurrency_limit_reached", 500)))
    v.append(Sc("13.15 RollbackPolicy: a version never activated is refused; a staged bundle stays staged",
                P1, options=UNSIGNED)
             .cmd("RollbackPolicy", {"version": "v9"}, {"activated": False, "activePolicyVersion": "v1"})
             .cmd("StagePolicyBundle", b2, {"accepted": True})
             .cmd("RollbackPolicy", {"version": "v2"}, {"activated": False, "activePolicyVersion": "v1"})
             .cmd("ActivatePolicy", {"version": "v2"}, activate_ok(b2)))
    v.append(Sc("13.2, 13.15 Options and policy: after an activation, a field the new policy omits takes the "
                "construction options (not the previous policy's value)", {"policyVersion": "v1", "maxInFlight": 3},
                options=dict(UNSIGNED, maxInFlight=1))
             .cmd("StagePolicyBundle", bundle_unsigned("v2", {}), {"accepted": True})
             .cmd("ActivatePolicy", {"version": "v2"}, {"activated": True})
             .acq(R(), grant("lease-1"))
             .acq(R(), deny("concurrency_limit_reached", 500)))
    v.append(Sc("13.2: activation resizes the pools; leases already granted stay granted",
                {"policyVersion": "v1", "maxInFlight": 2}, options=UNSIGNED)
             .acq(R(), grant("lease-1"))
             .acq(R(), grant("lease-2"))
             .cmd("StagePolicyBundle", bundle_unsigned("v2", {"maxInFlight": 1}), {"accepted": True})
             .cmd("ActivatePolicy", {"version": "v2"}, {"activated": True})
             .metrics({"activeLeases": 2})
             .rel(REL("lease-1", 1))
             .acq(R(), deny("concurrency_limit_reached", 500))
             .rel(REL("lease-2", 1))
             .acq(R(), grant("lease-3")))
    refused = [
        ("a plaintext service-account token (13.3 step 7)",
         {"serviceAccounts": [{"name": "svc", "token": "plain-secret", "orgId": "o", "workspaceId": "w"}]}),
        ("a negative capacity", {"maxInFlight": -1}),
        ("a negative daily budget", {"dailyBudgetCents": -5}),
        ("a trust setting (requireSignedBundles)", {"requireSignedBundles": False}),
        ("a trust setting (allowedPublicKeysBase64)", {"allowedPublicKeysBase64": [spki_b64("ec2")]}),
        ("a wrong type (maxInFlight as a string)", {"maxInFlight": "4"}),
        ("a wrong type (allowedModels as a string)", {"allowedModels": "gpt-4o"}),
        ("an unknown enum string (tool category)", {"deniedToolCategories": ["Exec"]}),
    ]
    for why, pol in refused:
        v.append(Sc("13.9, 13.15 Lint: a policy with %s is refused at stage (an answer: accepted false)" % why,
                    P1, options=UNSIGNED)
                 .cmd("StagePolicyBundle", bundle_unsigned("v2", pol), {"accepted": False})
                 .cmd("ActivatePolicy", {"version": "v2"}, {"activated": False})
                 .cmd("GetStatus", {}, {"policyVersion": "v1"}))
    for why, text in [("not JSON", "{not json"), ("a JSON array", "[1, 2]"), ("empty", "")]:
        v.append(Sc("13.15 Lint: policy content that is %s is refused at stage" % why, P1, options=UNSIGNED)
                 .cmd("StagePolicyBundle", bundle_unsigned("v2", None, text=text), {"accepted": False})
                 .cmd("GetStatus", {}, {"policyVersion": "v1"}))
    for why, pol in [("no allowed model", {"allowedModels": []}),
                     ("exec and networkWrite not denied", {"deniedToolCategories": []}),
                     ("a service account (tokenHash: the accepted form)", {"serviceAccounts": [
                         {"name": "svc", "tokenHash": sha256_hex("x"), "orgId": "o", "workspaceId": "w"}]})]:
        b = bundle_unsigned("v2", pol)
        v.append(Sc("13.15 Lint: LeaseGate's GitOps rules are warnings only: a policy with %s is staged" % why,
                    P1, options=UNSIGNED)
                 .cmd("StagePolicyBundle", b, stage_ok(b)))
    b = bundle_unsigned("v2", None, text='{"policyVersion":"x", "maxInFlight":3,\n "intentMaxCostCents":'
                                         '{"summarize":2,"draft":10}, "allowedModels":["b-model","a-model"],'
                                         ' "riskRequiresApproval":[]}')
    v.append(Sc("13.15 Policy hash: SHA-256 of the RFC 8785 form of the content as submitted (key order and "
                "whitespace do not matter; before the bundle version replaces policyVersion)", P1, options=UNSIGNED)
             .cmd("StagePolicyBundle", b, stage_ok(b)))
    v.append(Sc("13.9, 13.15: GetStatus reports the active policy's version and hash; a policy without policyVersion "
                "is LeaseGate's `local`")
             .cmd("GetStatus", {}, {"policyVersion": "local", "policyHash": policy_hash({}), "healthy": True,
                                    "activeLeases": 0, "pendingApprovals": 0}))
    pol = {"policyVersion": "v7", "allowedModels": ["gpt-4o-mini", "caf\u00e9-\u6a21\u578b"],
           "actorDailyBudgetCents": {"z\u00fcrich": 10, "alice": 20}, "maxInFlight": 3}
    v.append(Sc("13.9: the policy hash is RFC 8785 over UTF-8 (non-ASCII strings unescaped, keys sorted by UTF-16)", pol)
             .acq(R(), grant("lease-1", policyHash=policy_hash(pol), policyVersion="v7")))
    return v



# ============================================================================ 13.10 audit


def EV(*types, first=True):
    """An ExportAudit expectation: the records' eventType in order (the first with prevHash = 64 zeros)."""
    recs = [{"eventType": t} for t in types]
    if recs and first:
        recs[0]["prevHash"] = ZERO64
    return {"records": recs}


def chain(records):
    """Link and hash synthetic records (13.10): prevHash, entryHash = SHA-256 of RFC 8785 without entryHash."""
    out, prev = [], ZERO64
    for r in records:
        r = dict(r, prevHash=prev)
        r["entryHash"] = sha256_hex(jcs(r))
        prev = r["entryHash"]
        out.append(r)
    return out


SYNTH = [
    {"eventType": "lease_acquired", "timestampUtc": "2026-03-01T12:00:00.000Z", "leaseId": "lease-1",
     "actorId": "alice", "workspaceId": "ws1", "estimatedCostCents": 5, "requestedTools": ["fs.read:FileRead"]},
    {"eventType": "lease_denied", "timestampUtc": "2026-03-01T12:00:01.000Z", "leaseId": "", "actorId": "z\u00fcrich",
     "workspaceId": "ws1", "reason": "concurrency_limit_reached", "retryAfterMs": 500},
    {"eventType": "lease_released", "timestampUtc": "2026-03-01T12:00:02.500Z", "leaseId": "lease-1",
     "actorId": "alice", "workspaceId": "ws1", "actualCostCents": 3, "decision": "success"},
]


@section
def audit():
    v = []
    v.append(Sc("13.10, 13.15 Audit records: the policy given at construction writes nothing; an empty chain verifies")
             .cmd("ExportAudit", {}, {"records": []})
             .verify({"ok": True, "records": 0}))
    v.append(Sc("13.10: one record per event, the first with prevHash = 64 zeros; the chain verifies")
             .acq(R(), grant("lease-1"))
             .rel(REL("lease-1", 2))
             .cmd("ExportAudit", {}, {"records": [{"eventType": "lease_acquired", "leaseId": "lease-1",
                                                   "prevHash": ZERO64},
                                                  {"eventType": "lease_released", "leaseId": "lease-1"}]})
             .verify({"ok": True, "records": 2}))
    v.append(Sc("13.3, 13.10: every acquire is audited: a denial writes lease_denied", {"maxInFlight": 1})
             .acq(R(), grant("lease-1"))
             .acq(R(), deny("concurrency_limit_reached", 500))
             .cmd("ExportAudit", {}, EV("lease_acquired", "lease_denied"))
             .verify({"ok": True, "records": 2}))
    v.append(Sc("13.15 Conflict: an idempotency conflict is audited as lease_denied")
             .acq(R(idempotencyKey="k1"), grant("lease-1"))
             .acq(R(idempotencyKey="k1", modelId="gpt-4o"), deny("idempotency_key_conflict"))
             .cmd("ExportAudit", {}, EV("lease_acquired", "lease_denied")))
    v.append(Sc("13.5, 13.15 Audit records: a replay writes nothing")
             .acq(R(idempotencyKey="k1"), grant("lease-1"))
             .acq(R(idempotencyKey="k1"), {"granted": True, "leaseId": "lease-1"})
             .cmd("ExportAudit", {}, EV("lease_acquired"))
             .metrics({"grantsByReason": {"granted": 1}}))
    v.append(Sc("13.4: an expired lease is audited lease_expired when a command sweeps it")
             .acq(R(), grant("lease-1"))
             .metrics({"activeLeases": 0}, at=20000)
             .cmd("ExportAudit", {}, {"records": [{"eventType": "lease_acquired", "prevHash": ZERO64},
                                                  {"eventType": "lease_expired", "leaseId": "lease-1"}]}))
    v.append(Sc("13.15 Auto-apply: an auto-apply grant writes one lease_acquired record", {"dailyBudgetCents": 10})
             .acq(R(estimatedCostCents=16, autoApplyConstraints=True),
                  grant("lease-1", recommendation="budget_auto_downgrade_applied"))
             .cmd("ExportAudit", {}, EV("lease_acquired")))
    v.append(Sc("13.10, 13.15 Audit records: approval requests and decisions are audited",
                dict(APPROVAL_POLICY, approvalReviewersByToolCategory={"networkWrite": 2}))
             .cmd("RequestApproval", AREQ(), {"approvalId": "approval-1"})
             .cmd("ReviewApproval", {"approvalId": "approval-1", "reviewerId": "rev1", "approve": True},
                  {"status": "pending"})
             .cmd("GrantApproval", {"approvalId": "approval-1", "grantedBy": "rev2"}, {"granted": True})
             .cmd("RequestApproval", AREQ(), {"approvalId": "approval-2"})
             .cmd("DenyApproval", {"approvalId": "approval-2", "deniedBy": "rev1"}, {"denied": True})
             .cmd("ExportAudit", {}, EV("approval_requested", "approval_reviewed", "approval_reviewed",
                                        "approval_requested", "approval_reviewed"))
             .verify({"ok": True, "records": 5}))
    v.append(Sc("13.10, 13.15 Audit records: staging, activation and rollback are audited", P1, options=UNSIGNED)
             .cmd("StagePolicyBundle", bundle_unsigned("v2", P2), {"accepted": True})
             .cmd("ActivatePolicy", {"version": "v2"}, {"activated": True})
             .cmd("RollbackPolicy", {"version": "v1"}, {"activated": True})
             .cmd("ExportAudit", {}, EV("policy_staged", "policy_activated", "policy_rolled_back")))
    v.append(tool_sc("13.10, 13.15 Audit records: sub-lease grants and tool calls are audited (allowed and denied)")
             .cmd("ExecuteToolCall", X(path="/tmp/a"), ALLOWED)
             .cmd("ExecuteToolCall", X(path="/etc/a"), NO("tool_path_not_allowed"))
             .cmd("ExportAudit", {}, EV("lease_acquired", "tool_sublease_granted", "tool_execution_allowed",
                                        "tool_execution_denied"))
             .verify({"ok": True, "records": 4}))
    v.append(Sc("13.15 Audit records: the list is exhaustive: reads, Authorize, a refused sub-lease and the audit "
                "commands write nothing", TOOL_POLICY)
             .acq(R(requestedLease={"fs.read": ["/tmp/**"]}), grant("lease-1"))
             .cmd("Authorize", AUTH("fs.read", "/tmp/a"), OK("/tmp/a"))
             .cmd("RequestToolSubLease", SUB("web.get"), {"granted": False, "deniedReason": "tool_not_in_lease"})
             .cmd("GetMetrics", {}, {"activeLeases": 1})
             .cmd("GetStatus", {}, {"activeLeases": 1})
             .cmd("ListPendingApprovals", {}, {"items": []})
             .cmd("VerifyAudit", {}, {"ok": True})
             .cmd("ExportAudit", {}, EV("lease_acquired")))
    sc = Sc("13.10: ExportAudit {fromLine, toLine} answers that line range (1-based, inclusive) in chain order")
    sc.acq(R(), grant("lease-1")).acq(R(), grant("lease-2")).rel(REL("lease-1", 1)).rel(REL("lease-2", 1))
    sc.cmd("ExportAudit", {"fromLine": 2, "toLine": 3},
           {"records": [{"eventType": "lease_acquired", "leaseId": "lease-2"},
                        {"eventType": "lease_released", "leaseId": "lease-1"}]})
    sc.cmd("ExportAudit", {"fromLine": 4}, {"records": [{"eventType": "lease_released", "leaseId": "lease-2"}]})
    sc.cmd("ExportAudit", {"toLine": 1}, {"records": [{"eventType": "lease_acquired", "leaseId": "lease-1",
                                                       "prevHash": ZERO64}]})
    sc.verify({"ok": True, "records": 4})
    v.append(sc)
    v.append(Sc("13.10: VerifyAudit without records verifies the store's own chain")
             .acq(R(), grant("lease-1"))
             .acq(R(), grant("lease-2"))
             .cmd("VerifyAudit", {}, {"ok": True, "records": 2}))
    good = chain(SYNTH)
    edited = [dict(r) for r in good]
    edited[1]["reason"] = "rate_limit_reached"
    rehashed = [dict(r) for r in good]
    rehashed[1]["reason"] = "rate_limit_reached"
    rehashed[1]["entryHash"] = sha256_hex(jcs({k: x for k, x in rehashed[1].items() if k != "entryHash"}))
    notzero = chain(SYNTH)
    notzero = [dict(notzero[0], prevHash="1" * 64)]
    notzero[0]["entryHash"] = sha256_hex(jcs({k: x for k, x in notzero[0].items() if k != "entryHash"}))
    upper = [dict(r) for r in good]
    upper[2]["entryHash"] = upper[2]["entryHash"].upper()
    extra = [dict(r) for r in good]
    extra[0]["note"] = "added later"
    cases = [
        ("a chain built by the rules verifies (RFC 8785 over UTF-8, every field hashed)", good, True),
        ("an empty record list verifies", [], True),
        ("a field edited with the hash kept fails (verification recomputes, LeaseGate's did not)", edited, False),
        ("a field edited and its entryHash recomputed breaks the next link", rehashed, False),
        ("a first record whose prevHash is not 64 zeros fails", notzero, False),
        ("a removed middle record breaks the chain", [good[0], good[2]], False),
        ("swapped records fail", [good[1], good[0], good[2]], False),
        ("an upper-case entryHash is not the lower-case hex", upper, False),
        ("a field added after hashing fails (the hash covers every field)", extra, False),
        ("a record without entryHash fails", [{k: x for k, x in good[0].items() if k != "entryHash"}], False),
    ]
    for why, recs, ok in cases:
        exp = {"ok": ok, "records": len(recs)} if ok else {"ok": False}
        v.append(Sc("13.10: VerifyAudit {records}: %s" % why)
                 .cmd("VerifyAudit", {"records": recs}, exp))
    return v


# ============================================================================ 13.11 durability (sqlite store)


@section
def durability():
    v = []
    v.append(Sc("13.11 (fixed defect: restart without double count): a live lease survives a restart and its "
                "reservation is counted once", {"dailyBudgetCents": 50}, store="sqlite")
             .acq(R(estimatedCostCents=30), grant("lease-1"))
             .restart()
             .metrics({"activeLeases": 1, "spendTodayCents": 30})
             .acq(R(estimatedCostCents=20), grant("lease-2"))
             .acq(R(estimatedCostCents=1), deny("daily_budget_exceeded", plan=True))
             .rel(REL("lease-1", 10))
             .metrics({"activeLeases": 1, "spendTodayCents": 30}))
    v.append(Sc("13.11 (reference 3.3 case 10): restart with one live lease and maxInFlight 1: activeLeases 1 and a "
                "new acquire is denied; after its release one is granted", {"maxInFlight": 1}, store="sqlite")
             .acq(R(), grant("lease-1"))
             .restart(at=1000)
             .metrics({"activeLeases": 1})
             .acq(R(), deny("concurrency_limit_reached", 500))
             .rel(REL("lease-1", 1))
             .acq(R(), grant("lease-2")))
    v.append(Sc("13.11 (reference 3.3 case 10): a lease that expired while down is settled at its reservation during "
                "the reopen and audited lease_expired_by_restart", {"maxInFlight": 1, "dailyBudgetCents": 50},
                store="sqlite")
             .acq(R(estimatedCostCents=30), grant("lease-1"))
             .restart(at=30000)
             .metrics({"activeLeases": 0, "spendTodayCents": 30})
             .acq(R(estimatedCostCents=20), grant("lease-2"))
             .cmd("ExportAudit", {}, EV("lease_acquired", "lease_expired_by_restart", "lease_acquired"))
             .rel(REL("lease-1", 5), {"classification": "leaseExpired"})
             .metrics({"spendTodayCents": 25}))
    v.append(Sc("13.11, 13.15 Ids: the id counters are stored state and continue after a restart",
                dict(TOOL_POLICY, **APPROVAL_POLICY), store="sqlite")
             .acq(R(requestedTools=T("fs.read")), grant("lease-1"))
             .cmd("RequestToolSubLease", SUB(), {"toolSubLeaseId": "sub-1"})
             .cmd("RequestApproval", AREQ(), {"approvalId": "approval-1"})
             .cmd("GrantApproval", {"approvalId": "approval-1", "grantedBy": "rev1"}, {"approvalToken": "appr-1"})
             .restart()
             .acq(R(requestedTools=T("fs.read")), grant("lease-2"))
             .cmd("RequestToolSubLease", SUB(lease="lease-2"), {"toolSubLeaseId": "sub-2"})
             .cmd("RequestApproval", AREQ(), {"approvalId": "approval-2"})
             .cmd("GrantApproval", {"approvalId": "approval-2", "grantedBy": "rev1"}, {"approvalToken": "appr-2"}))
    sc = Sc("13.11: idempotency records survive a restart (replay and conflict)", store="sqlite")
    sc.acq(R(idempotencyKey="k1"), grant("lease-1"))
    sc.restart(at=1000)
    sc.acq(R(idempotencyKey="k1"), {"granted": True, "leaseId": "lease-1", "expiresAtUtc": sc.exp["lease-1"]})
    sc.acq(R(idempotencyKey="k1", estimatedCostCents=9), deny("idempotency_key_conflict"))
    sc.metrics({"activeLeases": 1, "spendTodayCents": 5})
    v.append(sc)
    v.append(Sc("13.6, 13.11: approvals survive a restart with their reviewers (a 2-reviewer approval still needs "
                "a second, distinct reviewer)", dict(APPROVAL_POLICY, approvalReviewersByToolCategory={"networkWrite": 2}),
                store="sqlite")
             .cmd("RequestApproval", AREQ(), {"approvalId": "approval-1", "requiredReviewers": 2})
             .cmd("ReviewApproval", {"approvalId": "approval-1", "reviewerId": "rev1", "approve": True},
                  {"status": "pending", "currentApprovals": 1})
             .restart()
             .cmd("ReviewApproval", {"approvalId": "approval-1", "reviewerId": "rev1", "approve": True},
                  {"status": "pending", "currentApprovals": 1, "requiredReviewers": 2})
             .cmd("ReviewApproval", {"approvalId": "approval-1", "reviewerId": "rev2", "approve": True},
                  {"status": "granted", "approvalToken": "appr-1", "currentApprovals": 2}))
    v.append(approved(Sc("13.11: a consumed single-use token stays consumed after a restart; an unused one stays valid",
                         APPROVAL_POLICY, store="sqlite"))
             .acq(PUB(approvalToken="appr-1"), grant("lease-1"))
             .cmd("RequestApproval", AREQ(), {"approvalId": "approval-2"})
             .cmd("GrantApproval", {"approvalId": "approval-2", "grantedBy": "rev1"}, {"approvalToken": "appr-2"})
             .restart()
             .acq(PUB(approvalToken="appr-1"), deny("approval_required", 0))
             .acq(PUB(approvalToken="appr-2"), grant("lease-2")))
    b2 = bundle_unsigned("v2", P2)
    v.append(Sc("13.9, 13.11, 13.15: an activated policy is persisted with its content and wins over the "
                "constructor's policy on reopen", P1, options=UNSIGNED, store="sqlite")
             .cmd("StagePolicyBundle", b2, {"accepted": True})
             .cmd("ActivatePolicy", {"version": "v2"}, {"activated": True})
             .restart()
             .cmd("GetStatus", {}, {"policyVersion": "v2", "policyHash": staged_hash(b2)})
             .acq(R(), grant("lease-1", policyVersion="v2"))
             .acq(R(), deny("concurrency_limit_reached", 500))
             .cmd("RollbackPolicy", {"version": "v1"}, {"activated": True, "activePolicyHash": policy_hash(P1)})
             .restart()
             .cmd("GetStatus", {}, {"policyVersion": "v1", "policyHash": policy_hash(P1)}))
    v.append(Sc("13.10, 13.11: the audit chain continues across a restart (no second 64-zero prevHash)",
                store="sqlite")
             .acq(R(), grant("lease-1"))
             .restart()
             .rel(REL("lease-1", 1))
             .restart(at="2026-03-02T08:00:00Z")
             .acq(R(), grant("lease-2"))
             .cmd("ExportAudit", {}, {"records": [{"eventType": "lease_acquired", "prevHash": ZERO64},
                                                  {"eventType": "lease_released"}, {"eventType": "lease_acquired"}]})
             .verify({"ok": True, "records": 3}))
    v.append(Sc("13.11, 13.15 Restart: the rate window persists", {"maxRequestsPerMinute": 1}, store="sqlite")
             .acq(R(), grant("lease-1"))
             .restart(at=1000)
             .acq(R(), deny("rate_limit_reached", 59000, plan=True)))
    v.append(spike(Sc("13.11, 13.15 Restart: actor cooldowns and output clamps persist", store="sqlite"), "lease-1")
             .restart(at=500)
             .acq(R(), deny("actor_cooldown_active", 1500, plan=True))
             .acq(R(maxOutputTokens=500), grant("lease-2", constraints={"maxOutputTokensOverride": 64}), at=1501))
    v.append(Sc("13.11, 13.15 Restart: workspace circuit breakers persist",
                {"allowedModels": ["gpt-4o-mini"], "policyDenyCircuitBreakerThreshold": 1}, store="sqlite")
             .acq(R(modelId="gpt-4o"), deny("model_not_allowed"))
             .restart(at=100)
             .acq(R(), deny("workspace_circuit_breaker", 2000, plan=True)))
    v.append(Sc("13.11, 13.15 Restart: safety counters persist (the retry-storm count goes on)", store="sqlite")
             .acq(R(idempotencyKey="k1"), grant("lease-1"))
             .acq(R(idempotencyKey="k1"), {"granted": True, "leaseId": "lease-1"})
             .restart()
             .acq(R(idempotencyKey="k1"), {"granted": True, "leaseId": "lease-1"})
             .acq(R(), deny("actor_cooldown_active", 2000, plan=True)))
    v.append(Sc("13.11: a release's idempotent replay survives a restart", store="sqlite")
             .acq(R(), grant("lease-1"))
             .rel(REL("lease-1", 3, idempotencyKey="r1"), dict(RECORDED, idempotencyKey="r1"))
             .restart()
             .rel(REL("lease-1", 3, idempotencyKey="r1"), dict(RECORDED, idempotencyKey="r1"))
             .metrics({"spendTodayCents": 3}))
    v.append(Sc("13.11, 13.15 Days: a restart across midnight: the live lease's spend stays in its own day",
                {"dailyBudgetCents": 50}, start="2026-03-01T23:59:50Z", store="sqlite")
             .acq(R(estimatedCostCents=30), grant("lease-1"))
             .restart(at="2026-03-02T00:00:01Z")
             .metrics({"activeLeases": 1, "spendTodayCents": 0})
             .acq(R(estimatedCostCents=50), grant("lease-2"))
             .rel(REL("lease-1", 10))
             .metrics({"spendTodayCents": 50}))
    v.append(tool_sc("13.11: tool sub-leases and their used calls survive a restart", calls=2, store="sqlite")
             .cmd("ExecuteToolCall", X(path="/tmp/a"), ALLOWED)
             .restart()
             .cmd("ExecuteToolCall", X(path="/tmp/b"), ALLOWED)
             .cmd("ExecuteToolCall", X(path="/tmp/c"), NO("tool_sublease_depleted")))
    v.append(Sc("13.11: scoped quotas survive a restart", {"actorDailyBudgetCents": {"alice": 10},
                                                         "maxInFlightPerActor": 1}, store="sqlite")
             .acq(R(estimatedCostCents=6), grant("lease-1"))
             .restart()
             .acq(R(actorId="bob"), grant("lease-2"))
             .acq(R(estimatedCostCents=1), deny("actor_throttled", 1000))
             .rel(REL("lease-1", 6))
             .acq(R(estimatedCostCents=5), deny("actor_exhausted"))
             .acq(R(estimatedCostCents=4), grant("lease-3")))
    v.append(Sc("13.11: repeated restarts change nothing", {"dailyBudgetCents": 50}, store="sqlite")
             .acq(R(estimatedCostCents=30, idempotencyKey="k1"), grant("lease-1"))
             .restart()
             .restart()
             .restart()
             .metrics({"activeLeases": 1, "spendTodayCents": 30})
             .verify({"ok": True, "records": 1}))
    v.append(Sc("13.11: the SQLite store behaves as the memory store for a plain grant/deny/release sequence",
                {"maxInFlight": 1}, store="sqlite")
             .acq(R(), grant("lease-1"))
             .acq(R(), deny("concurrency_limit_reached", 500))
             .rel(REL("lease-1", 2))
             .acq(R(), grant("lease-2"))
             .metrics({"activeLeases": 1, "spendTodayCents": 7})
             .verify({"ok": True, "records": 4}))
    return v


# ============================================================================ 13.1 / 13.15 wire: malformed payloads


@section
def wire_errors():
    v = []
    v.append(Sc("13.1: an unknown command -> success false, error unknown_command; state unchanged")
             .cmd("Frobnicate", {}, {"success": False, "error": "unknown_command"})
             .cmd("acquire", R(), {"success": False, "error": "unknown_command"})
             .acq(R(), grant("lease-1")))
    bad = [
        ("a negative estimatedCostCents", R(estimatedCostCents=-1)),
        ("a fractional estimatedCostCents", R(estimatedCostCents=1.5)),
        ("estimatedCostCents as a string", R(estimatedCostCents="5")),
        ("a huge estimatedCostCents (10^30 cents, beyond section 6's 15 integer digits)",
         R(estimatedCostCents=10 ** 30)),
        ("an unknown actionType (enum strings are exact camelCase)", R(actionType="ChatCompletion")),
        ("an unknown principalType", R(principalType="robot")),
        ("an unknown role", R(role="superuser")),
        ("an unknown intentClass", R(intentClass="Draft")),
        ("an unknown tool category", R(requestedTools=[{"toolId": "fs.read", "category": "FileRead"}])),
        ("requestedTools that is not a list", R(requestedTools="fs.read")),
        ("requestedCapabilities holding a number", R(requestedCapabilities=[1])),
        ("autoApplyConstraints as a string", R(autoApplyConstraints="true")),
        ("idempotencyKey as a number", R(idempotencyKey=5)),
        ("a payload that is a JSON string, not an object", "hello"),
        ("a payload that is a JSON array", [R()]),
        ("maxOutputTokens as a boolean", R(maxOutputTokens=True)),
    ]
    for why, payload in bad:
        v.append(Sc("13.1, 13.15: Acquire with %s is an invalid payload: success false, no state change, no id drawn"
                    % why)
                 .acq(payload, FAILED)
                 .metrics({"activeLeases": 0, "spendTodayCents": 0})
                 .cmd("ExportAudit", {}, {"records": []})
                 .acq(R(), grant("lease-1")))
    relbad = [("a negative actualCostCents", REL("lease-1", -1)), ("a fractional actualCostCents", REL("lease-1", 2.5)),
              ("an unknown outcome", REL("lease-1", 1, outcome="Success")),
              ("an unknown providerErrorClassification", REL("lease-1", 1, providerErrorClassification="rate_limited")),
              ("leaseId as a number", dict(REL("lease-1", 1), leaseId=1))]
    for why, payload in relbad:
        v.append(Sc("13.1, 13.15: Release with %s is an invalid payload; the lease stays active" % why)
                 .acq(R(), grant("lease-1"))
                 .rel(payload, FAILED)
                 .metrics({"activeLeases": 1, "spendTodayCents": 5})
                 .rel(REL("lease-1", 1)))
    others = [
        ("RequestApproval", dict(AREQ(), ttlSeconds="300"), "ttlSeconds as a string"),
        ("RequestApproval", dict(AREQ(), toolCategory="NetworkWrite"), "an unknown tool category"),
        ("ReviewApproval", {"approvalId": "approval-1", "reviewerId": "rev1", "approve": "yes"}, "approve as a string"),
        ("RequestToolSubLease", {"leaseId": "lease-1", "toolId": "fs.read", "category": "fileRead",
                                 "requestedCalls": "2"}, "requestedCalls as a string"),
        ("ExecuteToolCall", dict(X(path="/tmp/a"), category="shell"), "an unknown category"),
        ("Authorize", {"leaseId": "lease-1", "capability": 7, "target": "/tmp/a"}, "capability as a number"),
        ("StagePolicyBundle", dict(bundle_unsigned("v2", {}), policyContentJson={"maxInFlight": 1}),
         "policyContentJson as an object"),
        ("ActivatePolicy", {"version": 2}, "version as a number"),
        ("RollbackPolicy", {"version": ["v1"]}, "version as a list"),
        ("ExportAudit", {"fromLine": "1"}, "fromLine as a string"),
        ("VerifyAudit", {"records": "[]"}, "records as a string"),
    ]
    for cmd, payload, why in others:
        v.append(Sc("13.1, 13.15: %s with %s is an invalid payload (success false) and changes nothing" % (cmd, why),
                    dict(TOOL_POLICY, **APPROVAL_POLICY), options=UNSIGNED)
                 .acq(R(requestedTools=T("fs.read")), grant("lease-1"))
                 .cmd("RequestToolSubLease", SUB(), {"toolSubLeaseId": "sub-1"})
                 .cmd("RequestApproval", AREQ(), {"approvalId": "approval-1"})
                 .cmd(cmd, payload, FAILED)
                 .cmd("ListPendingApprovals", {}, {"items": [{"approvalId": "approval-1", "currentApprovals": 0}]})
                 .cmd("ExecuteToolCall", X(path="/tmp/a"), ALLOWED)
                 .cmd("GetStatus", {}, {"policyVersion": "local", "activeLeases": 1, "pendingApprovals": 1})
                 .cmd("RequestApproval", AREQ(), {"approvalId": "approval-2"})
                 .cmd("ExportAudit", {}, EV("lease_acquired", "tool_sublease_granted", "approval_requested",
                                            "tool_execution_allowed", "approval_requested")))
    v.append(Sc("13.15: GetMetrics counts grants and denials by reason; failedAuditWrites is 0 with a working store",
                {"maxInFlight": 1})
             .acq(R(), grant("lease-1"))
             .acq(R(), deny("concurrency_limit_reached", 500))
             .acq(R(), deny("concurrency_limit_reached", 500))
             .acq(R(modelId=""), deny("concurrency_limit_reached", 500))
             .metrics({"activeLeases": 1, "spendTodayCents": 5, "failedAuditWrites": 0,
                       "grantsByReason": {"granted": 1}, "deniesByReason": {"concurrency_limit_reached": 3}}))
    return v


# ============================================================================ 13.1 LeaseGate wire fidelity

LG_INTENTS = ["draft", "brainstorm", "summarize", "codegen", "highAccuracy", "longContext"]


@section
def leasegate_wire_fidelity():
    v = []
    sc = Sc("13.1: intentClass takes each of LeaseGate's six values (draft, brainstorm, summarize, codegen, "
            "highAccuracy, longContext)")
    for i, intent in enumerate(LG_INTENTS, 1):
        sc.acq(R(intentClass=intent), grant("lease-%d" % i))
        sc.rel(REL("lease-%d" % i, 1))
    v.append(sc)
    v.append(Sc("13.1, 13.3 step 9: intentClass longContext selects its intentModelTiers entry",
                {"intentModelTiers": {"longContext": ["big-model"], "codegen": ["gpt-4o-mini"]}})
             .acq(R(intentClass="longContext"), deny("intent_model_not_allowed"))
             .acq(R(intentClass="longContext", modelId="big-model"), grant("lease-1"))
             .acq(R(intentClass="codegen"), grant("lease-2"))
             .acq(R(intentClass="highAccuracy"), grant("lease-3")))
    for bad in ["extract", "classify", "plan", "code", "review", "analyze", "long_context", "LongContext"]:
        v.append(Sc("13.1: intentClass %s is not a LeaseGate value: an invalid payload, nothing reserved" % bad)
                 .acq(R(intentClass=bad), FAILED)
                 .metrics({"activeLeases": 0, "spendTodayCents": 0})
                 .acq(R(), grant("lease-1")))
    quorum = dict(APPROVAL_POLICY, approvalReviewersByToolCategory={"networkWrite": 2})
    v.append(Sc("13.1, 13.6: RequestApproval answers requiredReviewers and currentApprovals (0); ReviewApproval "
                "answers accepted (true for a counted review, false for a self-review or an unknown id); "
                "GrantApproval answers requiredReviewers and currentApprovals", quorum)
             .cmd("RequestApproval", AREQ(), {"approvalId": "approval-1", "status": "pending",
                                              "requiredReviewers": 2, "currentApprovals": 0})
             .cmd("ReviewApproval", {"approvalId": "approval-1", "reviewerId": "alice", "approve": True},
                  {"accepted": False, "message": "self_review_not_allowed", "currentApprovals": 0})
             .cmd("ReviewApproval", {"approvalId": "approval-1", "reviewerId": "rev1", "approve": True},
                  {"accepted": True, "status": "pending", "requiredReviewers": 2, "currentApprovals": 1,
                   "approvalToken": "", "message": "approval pending additional reviewers"})
             .cmd("ReviewApproval", {"approvalId": "approval-7", "reviewerId": "rev1", "approve": True},
                  {"accepted": False, "message": "approval not found"})
             .cmd("GrantApproval", {"approvalId": "approval-1", "grantedBy": "rev2"},
                  {"granted": True, "approvalToken": "appr-1", "requiredReviewers": 2, "currentApprovals": 2})
             .cmd("RequestApproval", AREQ(), {"approvalId": "approval-2", "requiredReviewers": 2,
                                              "currentApprovals": 0})
             .cmd("ReviewApproval", {"approvalId": "approval-2", "reviewerId": "rev1", "approve": False},
                  {"accepted": True, "status": "denied", "message": "approval denied"}))
    v.append(Sc("13.1, 13.4: a receipt's approvalChain decisions are ApprovalDecisionStatus values (granted); the "
                "queue's reviews likewise", dict(quorum, spendSpikeCents=1000))
             .cmd("RequestApproval", AREQ(), {"approvalId": "approval-1"})
             .cmd("ReviewApproval", {"approvalId": "approval-1", "reviewerId": "rev1", "approve": True},
                  {"accepted": True, "currentApprovals": 1})
             .cmd("ListPendingApprovals", {},
                  {"items": [{"approvalId": "approval-1", "requiredReviewers": 2, "currentApprovals": 1,
                              "reviews": [{"reviewerId": "rev1", "decision": "granted"}]}]})
             .cmd("ReviewApproval", {"approvalId": "approval-1", "reviewerId": "rev2", "approve": True},
                  {"accepted": True, "status": "granted", "approvalToken": "appr-1"})
             .acq(PUB(approvalToken="appr-1"), grant("lease-1"))
             .rel(REL("lease-1", 25), {"classification": "recorded", "receipt": {
                 "leaseId": "lease-1", "approvalChain": [{"reviewerId": "rev1", "decision": "granted"},
                                                         {"reviewerId": "rev2", "decision": "granted"}]}}))
    return v

# ============================================================================ 13.16 audit verification


EXPORT_MAX = 10000  # 13.16: ExportAudit answers at most 10 000 records per call


@section
def audit_verification():
    """13.16 Audit verification: ExportAudit pages (at most 10 000 records, nextLine when more
    remain); VerifyAudit reads the whole chain however long it is."""
    n = EXPORT_MAX + 1
    big = {"maxInFlight": 20000, "maxComputeUnits": 20000, "maxRequestsPerMinute": 20000}
    sc = Sc("13.16 Audit verification: ExportAudit answers at most 10 000 records per call and nextLine "
            "(the fromLine of the next call) when more of the range remain; a range that fits has no nextLine; "
            "VerifyAudit verifies all 10 001 lines", big)
    for _ in range(n):
        sc.cmd("Acquire", {}, {"granted": True})
    page = [{}] * EXPORT_MAX
    first = [{"eventType": "lease_acquired", "leaseId": "lease-1", "prevHash": ZERO64}] + [{}] * (EXPORT_MAX - 1)
    sc.cmd("ExportAudit", {}, {"records": first, "nextLine": EXPORT_MAX + 1})
    sc.cmd("ExportAudit", {"fromLine": EXPORT_MAX + 1},
           {"records": [{"eventType": "lease_acquired", "leaseId": "lease-%d" % n}]})
    sc.cmd("ExportAudit", {"toLine": n}, {"records": first, "nextLine": EXPORT_MAX + 1})
    sc.cmd("ExportAudit", {"fromLine": 2, "toLine": n},
           {"records": [{"leaseId": "lease-2"}] + [{}] * (EXPORT_MAX - 1)})
    sc.cmd("ExportAudit", {"fromLine": n + 1}, {"records": []})
    sc.cmd("VerifyAudit", {}, {"ok": True, "records": n})
    sc.verify({"ok": True, "records": n})
    return [sc]



# ============================================================================ 13.16 identity


@section
def identity():
    """13.16 Composite keys and Safety state is per uid, as far as an in-process caller sees them
    (the vector format names no peer uid: the uid cases are Rust tests)."""
    v = []
    sep = "\u001f"
    one = R(orgId="o", workspaceId="w" + sep + "x", actorId="a", idempotencyKey="k")
    two = R(orgId="o", workspaceId="w", actorId="x" + sep + "a", idempotencyKey="k")
    v.append(Sc("13.16 Composite keys: ids holding U+001F are distinct idempotency scopes: (w\\u001fx, a) and "
                "(w, x\\u001fa) with one key each get a grant of their own, never a conflict or a replay")
             .acq(one, grant("lease-1"))
             .acq(two, grant("lease-2"))
             .acq(one, grant("lease-1"))
             .acq(two, grant("lease-2")))
    three = R(actorId="a" + sep + "k", idempotencyKey="z")
    four = R(actorId="a", idempotencyKey="k" + sep + "z")
    v.append(Sc("13.16 Composite keys: an actor id and an idempotency key that only split differently are distinct "
                "scopes")
             .acq(three, grant("lease-1"))
             .acq(four, grant("lease-2"))
             .metrics({"activeLeases": 2, "deniesByReason": {}}))
    v.append(tool_sc("13.16 Safety state: tool calls naming a lease that does not exist count for nothing: they never "
                     "reach toolLoopThreshold, and the caller's own lease counts as before",
                     {"toolLoopThreshold": 2}, calls=6)
             .cmd("ExecuteToolCall", X(lease="nope", path="/tmp/a"), NO("tool_sublease_lease_mismatch"))
             .cmd("ExecuteToolCall", X(lease="nope", path="/tmp/a"), NO("tool_sublease_lease_mismatch"))
             .cmd("ExecuteToolCall", X(lease="nope", path="/tmp/a"), NO("tool_sublease_lease_mismatch"))
             .cmd("ExecuteToolCall", X(path="/tmp/a"), ALLOWED)
             .cmd("ExecuteToolCall", X(path="/tmp/a"), NO("tool_loop_detected")))
    v.append(tool_sc("13.16 Safety state: tool calls on a released lease count for nothing",
                     {"toolLoopThreshold": 2}, calls=6)
             .rel(REL("lease-1", 1))
             .cmd("ExecuteToolCall", X(path="/tmp/a"), NO("tool_sublease_not_found"))
             .cmd("ExecuteToolCall", X(path="/tmp/a"), NO("tool_sublease_not_found"))
             .acq(R(), grant("lease-2")))
    bound = {"uidBindings": {"1000": {"orgIds": ["o"], "workspaceIds": ["w"], "actorIds": ["bob"]}}}
    v.append(Sc("13.16 uidBindings bind daemon peers: an in-process caller (no uid) is not checked", bound)
             .acq(R(), grant("lease-1"))
             .metrics({"deniesByReason": {}}))
    for why, pol in [
        ("a key that is not a uid", {"uidBindings": {"alice": {"actorIds": ["a"]}}}),
        ("a uid with a leading zero", {"uidBindings": {"01000": {"actorIds": ["a"]}}}),
        ("a uid beyond 32 bits", {"uidBindings": {"4294967296": {"actorIds": ["a"]}}}),
        ("a wrong type (actorIds as a string)", {"uidBindings": {"1000": {"actorIds": "a"}}}),
        ("a wrong type (a list)", {"uidBindings": ["1000"]}),
    ]:
        v.append(Sc("13.16 uidBindings: a policy with %s is refused at stage (accepted false)" % why,
                    P1, options=UNSIGNED)
                 .cmd("StagePolicyBundle", bundle_unsigned("v2", pol), {"accepted": False})
                 .cmd("GetStatus", {}, {"policyVersion": "v1"}))
    b = bundle_unsigned("v2", dict(bound, policyVersion="v2"))
    v.append(Sc("13.16 uidBindings: a well-formed binding is staged and activated", P1, options=UNSIGNED)
             .cmd("StagePolicyBundle", b, stage_ok(b))
             .cmd("ActivatePolicy", {"version": "v2"}, {"activated": True}))
    return v

# ============================================================================ 13.16 bounds


@section
def bounded_state_and_sizes():
    """13.16 Sizes on the wire, Bounded state and Tool-call targets."""
    v = []
    big = lambda n: "x" * n  # noqa: E731
    # Sizes on the wire: over the limit -> success false, nothing stored, no id drawn.
    over = [
        ("actorId of 257 bytes (ids are at most 256 bytes of UTF-8)", R(actorId=big(257))),
        ("actorId of 129 two-byte characters (258 bytes: the limit counts UTF-8 bytes)",
         R(actorId="\u00e9" * 129)),
        ("a requestedTools toolId of 257 bytes", R(requestedTools=[{"toolId": big(257)}])),
        ("an idempotencyKey of 257 bytes", R(idempotencyKey=big(257))),
        ("riskFlags with 1025 items (a list is at most 1024)", R(riskFlags=["r"] * 1025)),
        ("a modelId of 4097 bytes", R(modelId=big(4097))),
    ]
    for why, payload in over:
        v.append(Sc("13.16 Sizes on the wire: Acquire with %s is refused (success false); nothing is "
                    "stored and no id is drawn" % why)
                 .acq(payload, FAILED)
                 .metrics({"activeLeases": 0, "spendTodayCents": 0, "deniesByReason": {}})
                 .cmd("ExportAudit", {}, {"records": []})
                 .acq(R(), grant("lease-1")))
    v.append(Sc("13.16 Sizes on the wire: ids of exactly 256 bytes and lists of exactly 1024 items are accepted")
             .acq(R(actorId=big(256), workspaceId=big(256), idempotencyKey=big(256), riskFlags=["r"] * 1024),
                  grant("lease-1")))
    v.append(tool_sc("13.16 Sizes on the wire: ExecuteToolCall with a commandText of 4097 bytes is refused and "
                     "uses no call; 4096 bytes pass", sub_tool="sh", calls=2)
             .cmd("ExecuteToolCall", X(tool="sh", cmd="ls " + big(4094)), FAILED)
             .cmd("ExecuteToolCall", X(tool="sh", cmd="ls " + big(4093)), {"allowed": True, "remainingCalls": 1}))
    v.append(tool_sc("13.16 Sizes on the wire: a targetHost or targetPath over 16384 bytes is refused (success "
                     "false) and uses no call", sub_tool="web.get", calls=1)
             .cmd("ExecuteToolCall", X(tool="web.get", cmd="curl", host="a." * 8192 + "b"), FAILED)
             .cmd("ExecuteToolCall", X(tool="web.get", cmd="curl", path="/tmp/" + big(16380)), FAILED)
             .cmd("ExecuteToolCall", X(tool="web.get", cmd="curl", host="api.example.com"),
                  {"allowed": True, "remainingCalls": 0}))
    v.append(Sc("13.16 Sizes on the wire: RequestApproval with a reason of 4097 bytes and ReviewApproval with a "
                "comment of 4097 bytes or a reviewerId of 257 bytes are refused; nothing is stored",
                APPROVAL_POLICY)
             .cmd("RequestApproval", AREQ(reason=big(4097)), FAILED)
             .cmd("RequestApproval", AREQ(reason=big(4096)), {"approvalId": "approval-1"})
             .cmd("ReviewApproval", {"approvalId": "approval-1", "reviewerId": "rev1", "approve": True,
                                     "comment": big(4097)}, FAILED)
             .cmd("ReviewApproval", {"approvalId": "approval-1", "reviewerId": big(257), "approve": True}, FAILED)
             .cmd("ListPendingApprovals", {}, {"items": [{"approvalId": "approval-1", "currentApprovals": 0}]}))
    # Bounded state: denials counted by reason code.
    v.append(Sc("13.16 Bounded state: deniesByReason counts denials by reason code (the part before the first "
                "`:`); the answer still names the tool", {"toolRegistry": TOOLS})
             .acq(R(requestedTools=[{"toolId": "evil.one"}]), deny("tool_not_registered:evil.one"))
             .acq(R(requestedTools=[{"toolId": "evil.two"}]), deny("tool_not_registered:evil.two"))
             .acq(R(requestedTools=[{"toolId": big(200)}]), deny("tool_not_registered:" + big(200)))
             .metrics({"deniesByReason": {"tool_not_registered": 3}}))
    # Tool-call targets: hosts.
    hosts_policy = {"allowedNetworkHosts": ["api.example.com", "*.example.org", "127.0.0.1", "[::1]"]}
    for host, why in [("localhost:6379#.example.org", "a port and a fragment"),
                      ("2852039166/.example.org", "a path (a runner would reach 169.254.169.254)"),
                      ("api.example.com:443", "a port"), ("user@api.example.com", "userinfo"),
                      ("a_b.example.org", "`_` is not LDH"), ("a b.example.org", "a space"),
                      ("a..example.org", "an empty label"), ("api.example.com..", "two trailing dots"),
                      ("x" * 64 + ".example.org", "a 64-byte label"),
                      ("abcdefghi." * 25 + "example.org", "more than 253 bytes"),
                      ("b\u00fccher.example.org", "a non-ASCII letter (the punycode form is the host name)"),
                      ("2852039166", "a number: read as an IPv4 address, not a dotted quad"),
                      ("127.1", "a short IPv4 form"), ("0x7f.0.0.1", "a hex IPv4 part"),
                      ("127.0.0.01", "an IPv4 part with a leading zero"),
                      ("[fe80::1%25eth0]", "an IPv6 zone")]:
        v.append(tool_sc("13.16 Tool-call targets: targetHost %r -> host_invalid (%s)" % (host, why),
                         hosts_policy, sub_tool="web.get")
                 .cmd("ExecuteToolCall", X(host=host, tool="web.get", cmd="curl"), NO("host_invalid")))
    for host, canonical in [("API.Example.COM.", "api.example.com"), ("a-b.example.org", "a-b.example.org"),
                            ("127.0.0.1", "127.0.0.1"), ("::1", "[::1]"), ("[0:0::1]", "[::1]")]:
        v.append(tool_sc("13.16 Tool-call targets: targetHost %r is allowed; the answer carries the canonical "
                         "host %r (lower case, no trailing dot; IPv6 in brackets)" % (host, canonical),
                         hosts_policy, sub_tool="web.get")
                 .cmd("ExecuteToolCall", X(host=host, tool="web.get", cmd="curl"),
                      {"allowed": True, "canonicalHost": canonical}))
    v.append(tool_sc("13.16 Tool-call targets: host_invalid is decided at the host step, after the path check and "
                     "before the command check", hosts_policy, sub_tool="web.get")
             .cmd("ExecuteToolCall", X(path="/etc/x", host="evil:1", tool="web.get", cmd="curl"),
                  NO("tool_path_not_allowed"))
             .cmd("ExecuteToolCall", X(host="evil:1", tool="web.get", cmd="curl; rm"), NO("host_invalid"))
             .cmd("ExecuteToolCall", X(host="evil.com", tool="web.get", cmd="curl"), NO("tool_host_not_allowed")))
    # Tool-call targets: commands.
    for cmd, why in [("ls /work\nrm -rf /", "a newline"), ("ls /work\rrm", "a carriage return"),
                     ("ls\t/work", "a tab"), ("ls \u0000x", "NUL"), ("ls \u001b[2J", "ESC"),
                     ("ls \u007f", "DEL")]:
        v.append(tool_sc("13.16 Tool-call targets: a commandText holding %s -> tool_command_rejected" % why,
                         sub_tool="sh")
                 .cmd("ExecuteToolCall", X(tool="sh", cmd=cmd), NO("tool_command_rejected")))
    return v


# ============================================================================ 13.1 frames (frame_decode)

MAX_FRAME = 16777216
IR = {"error": "INVALID_REQUEST"}


def envelope(command, payload="{}", **extra):
    d = {"protocolVersion": "0.1", "command": command, "payloadJson": payload}
    d.update(extra)
    return json.dumps(d, separators=(",", ":")).encode("utf-8")


def frame(body, length=None):
    n = len(body) if length is None else length
    return struct.pack("<i", n) + body


def frame_vectors():
    acq = envelope("Acquire", json.dumps(R(idempotencyKey="k1"), separators=(",", ":")))
    met = envelope("GetMetrics")
    rows = [
        ("13.1: a well-formed Acquire request frame decodes", frame(acq), {"command": "Acquire"}),
        ("13.1: a well-formed GetMetrics frame decodes", frame(met), {"command": "GetMetrics"}),
        ("13.1: leasekit's added command Authorize decodes",
         frame(envelope("Authorize", '{"leaseId":"lease-1","capability":"fs.read","target":"/tmp/a"}')),
         {"command": "Authorize"}),
        ("13.1: RollbackPolicy decodes", frame(envelope("RollbackPolicy", '{"version":"v1"}')),
         {"command": "RollbackPolicy"}),
        ("13.1, 13.15 Frames: bytes after one whole frame are not looked at", frame(met) + b"\xff\xfe garbage",
         {"command": "GetMetrics"}),
        ("13.1: a connection may carry frames in sequence; the first frame is the one decoded",
         frame(met) + frame(acq), {"command": "GetMetrics"}),
        ("13.1: the frame decoder does not judge the command name (unknown_command is the dispatcher's answer)",
         frame(envelope("Frobnicate")), {"command": "Frobnicate"}),
        ("13.1: UTF-8 JSON with non-ASCII text; the length counts bytes, not characters",
         frame(envelope("RequestApproval", json.dumps({"reason": "r\u00e9sum\u00e9 \u2713 \U0001f600"},
                                                      ensure_ascii=False))),
         {"command": "RequestApproval"}),
        ("13.1: whitespace around the JSON body is JSON", frame(b"  \n" + met + b"\n "), {"command": "GetMetrics"}),
        ("13.1: a length of 0 is an error", frame(b"", 0), IR),
        ("13.1: a length of 0 is an error even with bytes after it", frame(met, 0) + met, IR),
        ("13.1: a negative length (-1) is an error", frame(met, -1), IR),
        ("13.1: the most negative length is an error", frame(met, -2147483648), IR),
        ("13.1: a length over 16 777 216 is an error (exceeds maximum), whatever follows",
         frame(met, MAX_FRAME + 1), IR),
        ("13.1: the largest positive length is an error", frame(met, 2147483647), IR),
        ("13.1: a big-endian length prefix reads as a length far over the maximum", struct.pack(">i", len(met)) + met,
         IR),
        ("13.1: a stream that ends inside the body is an error (length says 100 more bytes than present)",
         frame(met, len(met) + 100), IR),
        ("13.1: a stream that ends right after the length prefix is an error", frame(b"", 10), IR),
        ("13.1: a stream that ends inside the length prefix is an error", struct.pack("<i", 10)[:3], IR),
        ("13.15 Frames: empty input is an error", b"", IR),
        ("13.1: a length at the maximum with a short stream is an error (truncated)", frame(met, MAX_FRAME), IR),
        ("13.1: a body that is not JSON is an error", frame(b"hello, governor"), IR),
        ("13.1: a body that is not UTF-8 is an error", frame(b'{"protocolVersion":"0.1","command":"Ac\xffquire",'
                                                            b'"payloadJson":"{}"}'), IR),
        ("13.1: a length shorter than the JSON cuts it: not JSON, an error", frame(met, len(met) - 1), IR),
        ("13.1: JSON followed by more text inside the frame is not one JSON value: an error", frame(met + b"xyz"), IR),
        ("13.1: a JSON array is not a request object", frame(b'["Acquire"]'), IR),
        ("13.1: a JSON string is not a request object", frame(b'"Acquire"'), IR),
        ("13.1: JSON null is not a request object", frame(b"null"), IR),
        ("13.1: a request without command is an error", frame(b'{"protocolVersion":"0.1","payloadJson":"{}"}'), IR),
        ("13.1: command must be a string (a number is a wrong type)",
         frame(b'{"protocolVersion":"0.1","command":7,"payloadJson":"{}"}'), IR),
        ("13.1: command must be a string (null is a wrong type)",
         frame(b'{"protocolVersion":"0.1","command":null,"payloadJson":"{}"}'), IR),
        ("13.1: payloadJson is JSON text in a string; an object there is a wrong type",
         frame(b'{"protocolVersion":"0.1","command":"Acquire","payloadJson":{"actorId":"a"}}'), IR),
        ("13.1: protocolVersion is a string; a number is a wrong type",
         frame(b'{"protocolVersion":0.1,"command":"Acquire","payloadJson":"{}"}'), IR),
    ]
    return [{"comment": c, "op": "frame_decode", "input": {"hex": b.hex()}, "expect": e} for c, b, e in rows]


def reference_frame_decode(data):
    """13.1 as a reference decoder (used by --self-check only)."""
    if len(data) < 4:
        return IR
    (n,) = struct.unpack("<i", data[:4])
    if n <= 0 or n > MAX_FRAME or len(data) - 4 < n:
        return IR
    try:
        obj = json.loads(data[4:4 + n].decode("utf-8", errors="strict"))
    except (UnicodeDecodeError, ValueError):
        return IR
    if not isinstance(obj, dict):
        return IR
    if not isinstance(obj.get("command"), str):
        return IR
    for k in ("protocolVersion", "payloadJson"):
        if k in obj and not isinstance(obj[k], str):
            return IR
    return {"command": obj["command"]}



# ============================================================================ 13.16 approvals under attack

QTOOLS = TOOLS + [{"toolId": "fs.write", "category": "fileWrite"}]
QPOLICY = {"policyVersion": "v1", "toolRegistry": QTOOLS, "approvalRequiredToolCategories": ["exec", "fileWrite"],
           "approvalReviewersByToolCategory": {"exec": 3, "fileWrite": 2}}


def QT(*ids):
    cat = {t["toolId"]: t["category"] for t in QTOOLS}
    return [{"toolId": i, "category": cat[i]} for i in ids]


def review(approval_id, reviewer, approve=True, **kw):
    d = {"approvalId": approval_id, "reviewerId": reviewer, "approve": approve}
    d.update(kw)
    return d


@section
def approvals_under_attack():
    v = []
    sc = Sc("13.16 Approval quorum at use: an approval naming neither a tool nor a category needs the largest quorum "
            "of the policy (exec 3); one reviewer leaves it pending, the third grants it; it then admits exec and "
            "fileWrite tools", QPOLICY)
    sc.cmd("RequestApproval", AREQ(toolCategory=DEL, singleUse=False, ttlSeconds=3600),
           lambda s: {"approvalId": "approval-1", "status": "pending", "requiredReviewers": 3, "singleUse": False,
                      "expiresAtUtc": s.t(3600000)})
    sc.cmd("ReviewApproval", review("approval-1", "rev1"), {"status": "pending", "currentApprovals": 1,
                                                            "requiredReviewers": 3})
    sc.acq(R(requestedTools=QT("sh")), deny("approval_required", 0))
    sc.cmd("ReviewApproval", review("approval-1", "rev2"), {"status": "pending", "currentApprovals": 2})
    sc.cmd("ReviewApproval", review("approval-1", "rev3"), {"status": "granted", "approvalToken": "appr-1",
                                                            "currentApprovals": 3})
    sc.acq(R(requestedTools=QT("sh"), approvalToken="appr-1"), grant("lease-1"))
    sc.acq(R(requestedTools=QT("fs.write"), approvalToken="appr-1"), grant("lease-2"))
    v.append(sc)
    v.append(Sc("13.16 Approval quorum at use: a token approved by one reviewer for a category of quorum 1 admits "
                "neither an exec tool (quorum 3) nor a fileWrite tool (quorum 2)", QPOLICY)
             .cmd("RequestApproval", AREQ(toolCategory="other", singleUse=False),
                  {"approvalId": "approval-1", "requiredReviewers": 1, "singleUse": False})
             .cmd("GrantApproval", {"approvalId": "approval-1", "grantedBy": "rev1"},
                  {"granted": True, "approvalToken": "appr-1", "requiredReviewers": 1})
             .acq(R(requestedTools=QT("sh"), approvalToken="appr-1"), deny("approval_required", 0))
             .acq(R(requestedTools=QT("fs.write"), approvalToken="appr-1"), deny("approval_required", 0)))
    v.append(Sc("13.16 Approval quorum at use: a tool-scoped approval takes the quorum of the registry's category of "
                "its tool and covers only that tool (every tool of the acquire)", QPOLICY)
             .cmd("RequestApproval", AREQ(toolId="fs.write", toolCategory=DEL, singleUse=False),
                  {"approvalId": "approval-1", "requiredReviewers": 2})
             .cmd("ReviewApproval", review("approval-1", "rev1"), {"status": "pending"})
             .cmd("ReviewApproval", review("approval-1", "rev2"), {"status": "granted", "approvalToken": "appr-1"})
             .acq(R(requestedTools=QT("sh"), approvalToken="appr-1"), deny("approval_required", 0))
             .acq(R(requestedTools=QT("fs.write", "sh"), approvalToken="appr-1"), deny("approval_required", 0))
             .acq(R(requestedTools=QT("fs.write"), approvalToken="appr-1"), grant("lease-1")))
    v.append(Sc("13.16 Approval quorum at use: a toolCategory that differs from the registry's category of the toolId "
                "is refused (tool_category_mismatch), nothing stored, no id drawn", QPOLICY)
             .cmd("RequestApproval", AREQ(toolId="sh", toolCategory="other"),
                  {"message": "tool_category_mismatch", "approvalId": ""})
             .cmd("ListPendingApprovals", {}, {"items": []})
             .cmd("RequestApproval", AREQ(toolId="sh", toolCategory="exec"),
                  {"approvalId": "approval-1", "status": "pending", "requiredReviewers": 3}))
    b2 = bundle_unsigned("v2", dict(QPOLICY, approvalReviewersByToolCategory={"exec": 3, "fileWrite": 3}))
    v.append(Sc("13.16 Approval quorum at use: the quorum is that of the policy active at the use: a token granted by "
                "two reviewers stops admitting fileWrite once a policy needing three is active, and admits it again "
                "after a rollback", QPOLICY)
             .cmd("RequestApproval", AREQ(toolId="fs.write", toolCategory=DEL, singleUse=False),
                  {"approvalId": "approval-1", "requiredReviewers": 2})
             .cmd("ReviewApproval", review("approval-1", "rev1"), {"status": "pending"})
             .cmd("ReviewApproval", review("approval-1", "rev2"), {"status": "granted", "approvalToken": "appr-1"})
             .acq(R(requestedTools=QT("fs.write"), approvalToken="appr-1"), grant("lease-1"))
             .cmd("StagePolicyBundle", b2, stage_ok(b2))
             .cmd("ActivatePolicy", {"version": "v2"}, activate_ok(b2))
             .acq(R(requestedTools=QT("fs.write"), approvalToken="appr-1"), deny("approval_required", 0))
             .cmd("RollbackPolicy", {"version": "v1"}, {"activated": True, "activePolicyVersion": "v1"})
             .acq(R(requestedTools=QT("fs.write"), approvalToken="appr-1"), grant("lease-2")))
    subp = dict(QPOLICY, approvalRequiredToolCategories=["fileWrite"])
    v.append(Sc("13.16 Approval quorum at use, 13.8: a sub-lease checks the token against its tool's category "
                "quorum: a one-reviewer token of category other is refused for fileWrite, the lease's two-reviewer "
                "fileWrite token is not", subp)
             .cmd("RequestApproval", AREQ(toolCategory="fileWrite", singleUse=False), {"approvalId": "approval-1"})
             .cmd("ReviewApproval", review("approval-1", "rev1"), {"status": "pending"})
             .cmd("ReviewApproval", review("approval-1", "rev2"), {"status": "granted", "approvalToken": "appr-1"})
             .cmd("RequestApproval", AREQ(toolCategory="other", singleUse=False), {"approvalId": "approval-2"})
             .cmd("GrantApproval", {"approvalId": "approval-2", "grantedBy": "rev1"}, {"approvalToken": "appr-2"})
             .acq(R(requestedTools=QT("fs.write"), approvalToken="appr-1"), grant("lease-1"))
             .cmd("RequestToolSubLease", {"leaseId": "lease-1", "toolId": "fs.write", "category": "fileWrite",
                                          "approvalToken": "appr-2"},
                  {"granted": False, "deniedReason": "approval_required"})
             .cmd("RequestToolSubLease", {"leaseId": "lease-1", "toolId": "fs.write", "category": "fileWrite",
                                          "approvalToken": "appr-1"},
                  {"granted": True, "toolSubLeaseId": "sub-1"}))
    v.append(Sc("13.16 Approval quorum at use, 13.15 Breaker bypass: the tool scope does not matter there, the quorum "
                "of the acquire's tools does: a one-reviewer token passes the breaker without tools, not with an "
                "exec tool (quorum 3)",
                {"allowedModels": ["gpt-4o-mini"], "policyDenyCircuitBreakerThreshold": 1, "toolRegistry": QTOOLS,
                 "approvalReviewersByToolCategory": {"exec": 3}})
             .acq(R(modelId="gpt-4o"), deny("model_not_allowed"))
             .cmd("RequestApproval", AREQ(toolCategory="other", singleUse=False), {"approvalId": "approval-1"})
             .cmd("GrantApproval", {"approvalId": "approval-1", "grantedBy": "rev1"}, {"approvalToken": "appr-1"})
             .acq(R(requestedTools=QT("sh"), approvalToken="appr-1"), deny("workspace_circuit_breaker", 2000, plan=True))
             .acq(R(approvalToken="appr-1"), grant("lease-1")))
    v.append(Sc("13.16 Approval limits: ttlSeconds is 30 to maxApprovalTtlSeconds (default 86 400); outside -> success "
                "false, nothing stored", QPOLICY)
             .cmd("RequestApproval", AREQ(ttlSeconds=29), FAILED)
             .cmd("RequestApproval", AREQ(ttlSeconds=86401), FAILED)
             .cmd("RequestApproval", AREQ(ttlSeconds=315360000), FAILED)
             .cmd("RequestApproval", AREQ(ttlSeconds=86400),
                  lambda s: {"approvalId": "approval-1", "expiresAtUtc": s.t(86400000)})
             .cmd("GetStatus", {}, {"pendingApprovals": 1}))
    v.append(Sc("13.16 Approval limits: the policy's maxApprovalTtlSeconds bounds ttlSeconds",
                dict(QPOLICY, maxApprovalTtlSeconds=600))
             .cmd("RequestApproval", AREQ(ttlSeconds=601), FAILED)
             .cmd("RequestApproval", AREQ(ttlSeconds=600),
                  lambda s: {"approvalId": "approval-1", "expiresAtUtc": s.t(600000)}))
    v.append(Sc("13.16 Sizes on the wire: reason and comment are at most 4 096 bytes; beyond -> success false, nothing "
                "stored", QPOLICY)
             .cmd("RequestApproval", AREQ(reason="r" * 4097), FAILED)
             .cmd("RequestApproval", AREQ(reason="r" * 4096), {"approvalId": "approval-1"})
             .cmd("ReviewApproval", review("approval-1", "rev1", comment="c" * 4097), FAILED)
             .cmd("GrantApproval", {"approvalId": "approval-1", "grantedBy": "rev1", "comment": "c" * 4097}, FAILED)
             .cmd("DenyApproval", {"approvalId": "approval-1", "deniedBy": "rev1", "comment": "c" * 4097}, FAILED)
             .cmd("ListPendingApprovals", {}, {"items": [{"approvalId": "approval-1", "currentApprovals": 0}]}))
    sc = Sc("13.16 Approval limits: at most maxPendingApprovals pending (here 3); beyond -> approval_queue_full, no id "
            "drawn; a decided approval frees its place, so does an expired one",
            dict(QPOLICY, maxPendingApprovals=3))
    for i in (1, 2, 3):
        sc.cmd("RequestApproval", AREQ(requestedBy="user%d" % i), {"approvalId": "approval-%d" % i})
    sc.cmd("RequestApproval", AREQ(requestedBy="user4"), {"message": "approval_queue_full", "approvalId": ""})
    sc.cmd("DenyApproval", {"approvalId": "approval-2", "deniedBy": "rev1"}, {"denied": True})
    sc.cmd("RequestApproval", AREQ(requestedBy="user4"), {"approvalId": "approval-4"})
    sc.cmd("RequestApproval", AREQ(requestedBy="user5"), {"message": "approval_queue_full"})
    sc.cmd("RequestApproval", AREQ(requestedBy="user5"), {"approvalId": "approval-5"}, at=300000)
    sc.cmd("GetStatus", {}, {"pendingApprovals": 1})
    v.append(sc)
    sc = Sc("13.16 Approval limits, Reviewers: at most 100 pending approvals per requestedBy, compared normalized; "
            "another requester still gets one", QPOLICY)
    for i in range(1, 101):
        sc.cmd("RequestApproval", AREQ(requestedBy="alice"), {"approvalId": "approval-%d" % i})
    sc.cmd("RequestApproval", AREQ(requestedBy=" ALICE"), {"message": "approval_queue_full", "approvalId": ""})
    sc.cmd("RequestApproval", AREQ(requestedBy="bob"), {"approvalId": "approval-101"})
    v.append(sc)
    sc = Sc("13.16 Approval limits: ListPendingApprovals answers at most limit items (default and maximum 100), "
            "oldest first, after afterApprovalId, with nextAfterApprovalId while more remain", QPOLICY)
    for i in range(1, 104):
        sc.cmd("RequestApproval", AREQ(requestedBy="user%d" % i), {"approvalId": "approval-%d" % i}, at=1)
    sc.cmd("ListPendingApprovals", {},
           {"items": [{"approvalId": "approval-%d" % i} for i in range(1, 101)], "nextAfterApprovalId": "approval-100"})
    sc.cmd("ListPendingApprovals", {"afterApprovalId": "approval-100"},
           {"items": [{"approvalId": "approval-%d" % i} for i in (101, 102, 103)]})
    sc.cmd("ListPendingApprovals", {"limit": 2, "afterApprovalId": "approval-9"},
           {"items": [{"approvalId": "approval-10"}, {"approvalId": "approval-11"}],
            "nextAfterApprovalId": "approval-11"})
    sc.cmd("ListPendingApprovals", {"limit": 500, "afterApprovalId": "approval-2"},
           {"items": [{"approvalId": "approval-%d" % i} for i in range(3, 103)], "nextAfterApprovalId": "approval-102"})
    sc.cmd("DenyApproval", {"approvalId": "approval-11", "deniedBy": "rev1"}, {"denied": True})
    sc.cmd("ListPendingApprovals", {"limit": 2, "afterApprovalId": "approval-10"},
           {"items": [{"approvalId": "approval-12"}, {"approvalId": "approval-13"}],
            "nextAfterApprovalId": "approval-13"})
    v.append(sc)
    v.append(Sc("13.16 Approval limits: every approval answer and queue item shows singleUse, expiresAtUtc and "
                "requiredReviewers", QPOLICY)
             .cmd("RequestApproval", AREQ(toolId="fs.write", toolCategory=DEL, singleUse=False, ttlSeconds=60),
                  lambda s: {"singleUse": False, "expiresAtUtc": s.t(60000), "requiredReviewers": 2})
             .cmd("ListPendingApprovals", {},
                  lambda s: {"items": [{"approvalId": "approval-1", "singleUse": False, "expiresAtUtc": s.t(60000),
                                        "requiredReviewers": 2}]})
             .cmd("ReviewApproval", review("approval-1", "rev1"),
                  lambda s: {"singleUse": False, "expiresAtUtc": s.t(60000), "requiredReviewers": 2})
             .cmd("GrantApproval", {"approvalId": "approval-1", "grantedBy": "rev2"},
                  lambda s: {"granted": True, "singleUse": False, "expiresAtUtc": s.t(60000), "requiredReviewers": 2})
             .cmd("DenyApproval", {"approvalId": "approval-1", "deniedBy": "rev3"},
                  lambda s: {"denied": True, "singleUse": False, "expiresAtUtc": s.t(60000), "requiredReviewers": 2})
             .cmd("RequestApproval", AREQ(), {"singleUse": True, "requiredReviewers": 1}))
    v.append(Sc("13.16 Reviewers: reviewer and requester ids compare after NFKC, case folding and trimming: every "
                "spelling of the requester is a self-review, and one reviewer under several spellings counts once",
                QPOLICY)
             .cmd("RequestApproval", AREQ(requestedBy="Stra\u00dfe", toolId="fs.write", toolCategory=DEL),
                  {"approvalId": "approval-1", "requiredReviewers": 2})
             .cmd("ReviewApproval", review("approval-1", "Stra\u00dfe "), {"message": "self_review_not_allowed"})
             .cmd("ReviewApproval", review("approval-1", " STRASSE"), {"message": "self_review_not_allowed"})
             .cmd("GrantApproval", {"approvalId": "approval-1", "grantedBy": "\uff33tra\u00dfe\u3000"},
                  {"granted": False, "message": "self_review_not_allowed"})
             .cmd("ReviewApproval", review("approval-1", "bob"), {"status": "pending", "currentApprovals": 1})
             .cmd("ReviewApproval", review("approval-1", " BOB\t"), {"status": "pending", "currentApprovals": 1})
             .cmd("ReviewApproval", review("approval-1", "\uff42\uff4f\uff42"),
                  {"status": "pending", "currentApprovals": 1})
             .cmd("ReviewApproval", review("approval-1", "carol"), {"status": "granted", "currentApprovals": 2,
                                                                     "approvalToken": "appr-1"})
             .cmd("RequestApproval", AREQ(toolId="fs.write", toolCategory=DEL), {"approvalId": "approval-2"})
             .cmd("ReviewApproval", review("approval-2", " \u3000"), {"message": "reviewer required"}))
    return v

# ============================================================================ 13.15 Days: a clock that steps back


@section
def clock_backwards():
    v = []
    v.append(Sc("13.15 Days: the governor's day only rolls forward; a lease acquired while the clock is behind "
                "that day (stepped back across midnight) is counted in it and its release settles there",
                {"dailyBudgetCents": 100, "leaseTtlMs": 600000}, start="2026-03-02T00:00:01Z")
             .acq(R(estimatedCostCents=5), grant("lease-1"))
             .acq(R(estimatedCostCents=7), grant("lease-2"), at="2026-03-01T23:59:59.500Z")
             .metrics({"activeLeases": 2, "spendTodayCents": 12})
             .rel(REL("lease-2", actual=1), RECORDED, at="2026-03-02T00:00:02Z")
             .metrics({"activeLeases": 1, "spendTodayCents": 6}))
    v.append(Sc("13.15 Days: a clock stepped back across midnight resets no budget; the daily-budget retry is the "
                "time to the midnight that ends the governor's day",
                {"dailyBudgetCents": 10}, start="2026-03-02T00:00:01Z")
             .acq(R(estimatedCostCents=8), grant("lease-1"))
             .acq(R(estimatedCostCents=5), deny("daily_budget_exceeded", 86401000, plan=True),
                  at="2026-03-01T23:59:59Z")
             .metrics({"spendTodayCents": 8}))
    return v


# ============================================================================ guard decisions (RecordDecision)


def DEC(**kw):
    d = {"actorId": "agent", "workspaceId": "w", "source": "mcp", "decision": "deny", "rule": "argument",
         "method": "tools/call", "server": "fs", "tool": "read_text_file", "requestId": "7",
         "code": "PERMISSION_DENIED", "reason": "fs.read /etc/passwd is not permitted", "targets": []}
    d.update(kw)
    return {k: v for k, v in d.items() if v is not None}


RECORDED_DECISION = {"recorded": True, "deniedReason": ""}


@section
def guard_decisions():
    """RecordDecision (leasekit's addition to 13.1, docs/governor.md "Guard decisions in the chain"): a
    guard's decision is one guard_decision record of the chain (13.10), bounded as 13.16 bounds every
    payload; nothing but the chain changes."""
    v = []
    v.append(Sc("13.10 Audit (RecordDecision): a guard's denial is a guard_decision record of the chain with the "
                "request's fields and a blank org as default-org; the chain verifies and no metric changes")
             .cmd("RecordDecision", DEC(), RECORDED_DECISION)
             .cmd("RecordDecision", DEC(decision="allow", rule="mapped", code="", reason="",
                                        targets=["fs.read /data/a.txt"]), RECORDED_DECISION)
             .cmd("ExportAudit", {}, {"records": [
                 {"eventType": "guard_decision", "decision": "deny", "rule": "argument", "orgId": "default-org",
                  "actorId": "agent", "workspaceId": "w", "source": "mcp", "server": "fs",
                  "tool": "read_text_file", "requestId": "7", "code": "PERMISSION_DENIED", "leaseId": "",
                  "targets": []},
                 {"eventType": "guard_decision", "decision": "allow", "rule": "mapped",
                  "targets": ["fs.read /data/a.txt"]}]})
             .verify({"ok": True, "records": 2})
             .metrics({"activeLeases": 0, "deniesByReason": {}, "grantsByReason": {}}))
    v.append(Sc("13.10 Audit (RecordDecision): every decision value of the enum is recorded as sent")
             .cmd("RecordDecision", DEC(decision="monitor"), RECORDED_DECISION)
             .cmd("RecordDecision", DEC(decision="success", rule="result"), RECORDED_DECISION)
             .cmd("RecordDecision", DEC(decision="toolError", rule="result"), RECORDED_DECISION)
             .cmd("RecordDecision", DEC(decision="cancelled", rule="result"), RECORDED_DECISION)
             .cmd("RecordDecision", DEC(decision="serverExited", rule="result"), RECORDED_DECISION)
             .verify({"ok": True, "records": 5}))
    v.append(Sc("13.14 Daemon access (RecordDecision): a leaseId must name a lease the caller may act on: an "
                "unknown one is recorded false with lease_not_found and nothing is written; a granted one is "
                "recorded and named in the record")
             .cmd("RecordDecision", DEC(leaseId="lease-1"), {"recorded": False, "deniedReason": "lease_not_found"})
             .acq(R(), grant("lease-1"))
             .cmd("RecordDecision", DEC(decision="allow", leaseId="lease-1"), RECORDED_DECISION)
             .cmd("ExportAudit", {"fromLine": 2}, {"records": [
                 {"eventType": "guard_decision", "decision": "allow", "leaseId": "lease-1"}]})
             .verify({"ok": True, "records": 2}))
    v.append(Sc("13.16 uidBindings (RecordDecision): bindings bind daemon peers; an in-process caller is not checked",
                {"uidBindings": {"1000": {"orgIds": ["o"], "workspaceIds": ["w"], "actorIds": ["bob"]}}})
             .cmd("RecordDecision", DEC(), RECORDED_DECISION))
    big = lambda n: "x" * n  # noqa: E731
    refused = [
        ("without a decision", DEC(decision=None)),
        ("with a decision outside the enum", DEC(decision="allowed")),
        ("with a code that is no ARCP code", DEC(code="NOT_A_CODE")),
        ("with a tool of 257 bytes", DEC(tool=big(257))),
        ("with a requestId of 257 bytes", DEC(requestId=big(257))),
        ("with a reason of 4 097 bytes", DEC(reason=big(4097))),
        ("with 1 025 targets", DEC(targets=["fs.read /a"] * 1025)),
        ("with a target of 16 385 bytes", DEC(targets=[big(16385)])),
        ("whose text is over 262 144 bytes in all", DEC(targets=[big(16384)] * 16)),
        ("with targets that are not a list", DEC(targets="fs.read /a")),
    ]
    for why, payload in refused:
        v.append(Sc("13.16 Sizes on the wire (RecordDecision): a record %s is an invalid payload (success false); "
                    "nothing is written" % why)
                 .cmd("RecordDecision", payload, FAILED)
                 .verify({"ok": True, "records": 0}))
    return v


# ============================================================================ 13.15 budget alerts


def ALERT(scope, pct, used, spent, reserved, limit, lease, scope_id=""):
    """A budget_threshold_crossed record (13.15 Audit records; docs/governor.md "Budget alerts")."""
    return {"eventType": "budget_threshold_crossed", "scope": scope, "scopeId": scope_id,
            "thresholdPercent": pct, "usedCents": used, "spentCents": spent,
            "reservedCents": reserved, "limitCents": limit, "leaseId": lease}


@section
def budget_alerts():
    v = []
    daily = {"dailyBudgetCents": 100, "budgetAlertThresholdsPercent": [50, 80, 100]}
    v.append(Sc("13.15 Audit records: without budgetAlertThresholdsPercent (or with []) no "
                "budget_threshold_crossed record is written, even at 100 %", {"dailyBudgetCents": 10})
             .acq(R(estimatedCostCents=10), grant("lease-1"))
             .cmd("ExportAudit", {}, EV("lease_acquired")))
    v.append(Sc("13.15 Audit records: an empty budgetAlertThresholdsPercent raises nothing",
                {"dailyBudgetCents": 10, "budgetAlertThresholdsPercent": []})
             .acq(R(estimatedCostCents=10), grant("lease-1"))
             .cmd("ExportAudit", {}, EV("lease_acquired")))
    v.append(Sc("13.15 Audit records: a grant that brings the daily budget's use (reservations plus spend) to a "
                "threshold writes budget_threshold_crossed after its lease_acquired; below it nothing", daily)
             .acq(R(estimatedCostCents=40), grant("lease-1"))
             .acq(R(estimatedCostCents=15), grant("lease-2"))
             .cmd("ExportAudit", {}, {"records": [
                 {"eventType": "lease_acquired", "leaseId": "lease-1", "prevHash": ZERO64},
                 {"eventType": "lease_acquired", "leaseId": "lease-2"},
                 ALERT("daily", 50, 55, 0, 55, 100, "lease-2")]})
             .verify({"ok": True, "records": 3}))
    v.append(Sc("13.15 Audit records: a threshold is raised once a day: use that falls (a release under its "
                "reservation) and rises past it again raises nothing; one grant past two thresholds raises both, "
                "in ascending order", daily)
             .acq(R(estimatedCostCents=40), grant("lease-1"))
             .acq(R(estimatedCostCents=15), grant("lease-2"))
             .rel(REL("lease-1", 10))
             .acq(R(estimatedCostCents=10), grant("lease-3"))
             .acq(R(estimatedCostCents=65), grant("lease-4"))
             .cmd("ExportAudit", {"fromLine": 3}, {"records": [
                 ALERT("daily", 50, 55, 0, 55, 100, "lease-2"),
                 {"eventType": "lease_released", "leaseId": "lease-1"},
                 {"eventType": "lease_acquired", "leaseId": "lease-3"},
                 {"eventType": "lease_acquired", "leaseId": "lease-4"},
                 ALERT("daily", 80, 100, 10, 90, 100, "lease-4"),
                 ALERT("daily", 100, 100, 10, 90, 100, "lease-4")]}))
    v.append(Sc("13.15 Audit records, 13.4: a release whose actuals exceed its reservation can cross a "
                "threshold (settled spend, no reservation left)",
                {"dailyBudgetCents": 100, "budgetAlertThresholdsPercent": [50]})
             .acq(R(estimatedCostCents=10), grant("lease-1"))
             .rel(REL("lease-1", 60))
             .cmd("ExportAudit", {}, {"records": [
                 {"eventType": "lease_acquired", "prevHash": ZERO64},
                 {"eventType": "lease_released", "leaseId": "lease-1"},
                 ALERT("daily", 50, 60, 60, 0, 100, "lease-1")]}))
    v.append(Sc("13.15 Audit records, 13.3 step 11: scoped budgets alert on their own limits: the actor's "
                "per-id budget, a workspace budget set for every workspace; an actor without a budget of its "
                "own raises no actor alert",
                {"dailyBudgetCents": 1000, "actorDailyBudgetCents": {"alice": 10}, "workspaceDailyBudgetCents": 40,
                 "budgetAlertThresholdsPercent": [50]})
             .acq(R(estimatedCostCents=5), grant("lease-1"))
             .acq(R(actorId="bob", estimatedCostCents=15), grant("lease-2"))
             .cmd("ExportAudit", {}, {"records": [
                 {"eventType": "lease_acquired", "leaseId": "lease-1", "prevHash": ZERO64},
                 ALERT("actor", 50, 5, 0, 5, 10, "lease-1", "alice"),
                 {"eventType": "lease_acquired", "leaseId": "lease-2"},
                 ALERT("workspace", 50, 20, 0, 20, 40, "lease-2", "ws1")]}))
    v.append(Sc("13.15 Audit records, 13.11, 13.2: a threshold raised before a restart is not raised again the "
                "same day; the next UTC day re-arms it", daily, store="sqlite")
             .acq(R(estimatedCostCents=50), grant("lease-1"))
             .restart()
             .acq(R(estimatedCostCents=10), grant("lease-2"), at=1000)
             .acq(R(estimatedCostCents=50), grant("lease-3"), at="2026-03-02T00:00:00Z")
             .cmd("ExportAudit", {}, {"records": [
                 {"eventType": "lease_acquired", "leaseId": "lease-1", "prevHash": ZERO64},
                 ALERT("daily", 50, 50, 0, 50, 100, "lease-1"),
                 {"eventType": "lease_acquired", "leaseId": "lease-2"},
                 {"eventType": "lease_expired", "leaseId": "lease-1"},
                 {"eventType": "lease_expired", "leaseId": "lease-2"},
                 {"eventType": "lease_acquired", "leaseId": "lease-3"},
                 ALERT("daily", 50, 50, 0, 50, 100, "lease-3")]})
             .verify({"ok": True, "records": 7}))
    bad = [
        ("a threshold of 0", [0]),
        ("a threshold over 100", [101]),
        ("a fractional threshold", [50.5]),
        ("a threshold as a string", ["50"]),
        ("a descending list", [80, 50]),
        ("a repeated threshold", [50, 50]),
        ("a number instead of a list", 50),
        ("more than 100 entries", [50] * 101),
    ]
    for why, val in bad:
        v.append(Sc("13.15 Lint, 13.16: a policy whose budgetAlertThresholdsPercent has %s is refused at stage "
                    "(integers 1-100, strictly ascending)" % why, P1, options=UNSIGNED)
                 .cmd("StagePolicyBundle", bundle_unsigned("v2", {"budgetAlertThresholdsPercent": val}),
                      {"accepted": False})
                 .cmd("GetStatus", {}, {"policyVersion": "v1"}))
    return v


# ============================================================================ output, --check, --self-check


def governor_vectors():
    out = []
    for fn in SECTIONS:
        for sc in fn():
            out.append(sc.vector() if isinstance(sc, Sc) else sc)
    return out


def with_ids(prefix, vecs):
    return [dict([("id", "%s-%03d" % (prefix, i))] + list(v.items())) for i, v in enumerate(vecs, 1)]


def render(vecs):
    return '{"vectors": [\n' + ",\n".join(json.dumps(v, ensure_ascii=True) for v in vecs) + "\n]}\n"


def build():
    return {"governor.json": render(with_ids("governor", governor_vectors())),
            "frame_decode.json": render(with_ids("frame_decode", frame_vectors()))}


SUB_RE = re.compile(r"^(13\.\d+)")


def counts(files):
    per = {}
    for name, text in files.items():
        for v in json.loads(text)["vectors"]:
            key = (v["op"], SUB_RE.match(v["comment"]).group(1))
            per[key] = per.get(key, 0) + 1
    return per


# every acquire denial reason of 13.3 / reference 2.2 that a vector must exercise (fallback-client and
# audit_unavailable reasons cannot be produced through an embedded governor with a working store)
REQUIRED_REASONS = [
    "workspace_circuit_breaker", "actor_cooldown_active", "service_account_unauthorized",
    "service_account_capability_denied", "service_account_model_denied", "service_account_tool_denied",
    "tool_not_registered:", "tool_category_mismatch:", "intent_model_not_allowed", "intent_cost_exceeded",
    "workspace_model_not_allowed", "model_not_allowed", "capability_not_allowed_for_role", "capability_not_allowed",
    "risk_requires_approval", "tool_category_denied:", "tool_not_allowed:", "tool_not_allowed_for_role:",
    "approval_required", "concurrency_limit_reached", "compute_capacity_reached", "rate_limit_reached",
    "context_prompt_tokens_exceeded", "context_retrieved_chunks_exceeded", "tool_output_tokens_exceeded",
    "retrieval_bytes_exceeded", "retrieval_tokens_exceeded", "summarization_budget_unavailable",
    "daily_budget_exceeded", "org_exhausted", "workspace_exhausted", "actor_exhausted", "actor_throttled",
    "org_rate_limited", "workspace_rate_limited", "actor_rate_limited", "idempotency_key_conflict",
    "invalid_requested_lease",
    # sub-leases, tool calls, Authorize
    "lease_not_found", "tool_not_in_lease", "tool_calls_exhausted", "tool_loop_detected", "tool_sublease_not_found",
    "tool_sublease_lease_mismatch", "tool_sublease_scope_mismatch", "tool_sublease_depleted", "tool_path_not_allowed",
    "tool_host_not_allowed", "tool_command_rejected", "tool_rate_limited", "lease_expired",
]


def walk_steps(vec):
    for step, exp in zip(vec["input"]["steps"], vec["expect"]):
        yield step, exp


def verify_chain(records):
    """13.10 reference verifier: returns (ok, first_bad_line)."""
    prev = ZERO64
    for i, rec in enumerate(records, 1):
        if not isinstance(rec, dict) or rec.get("prevHash") != prev:
            return False, i
        body = {k: x for k, x in rec.items() if k != "entryHash"}
        if rec.get("entryHash") != sha256_hex(jcs(body)):
            return False, i
        prev = rec["entryHash"]
    return True, None


def self_check(files):
    errors = []

    def err(vid, msg):
        errors.append("%s: %s" % (vid, msg))

    # RFC 8785 3.2.3 sorting example and a few escapes
    sample = {"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh",
              "1": "One", "\U0001f600": "Emoji: Grinning Face", "\u0080": "Control", "\u00f6": "Latin Small Letter O "
              "With Diaeresis"}
    order = [k for k in json.loads("{" + jcs(sample)[1:])]
    if order != ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001f600", "\ufb33"]:
        errors.append("jcs: RFC 8785 3.2.3 key order not reproduced: %r" % order)
    if jcs({"b": [True, None, "x\n\u001f\u007f"], "a": 1}) != '{"a":1,"b":[true,null,"x\\n\\u001f\x7f"]}':
        errors.append("jcs: escapes/ordering wrong: %s" % jcs({"b": [True, None, "x\n\u001f\u007f"], "a": 1}))

    seen_reasons = set()
    ids = set()
    for name, text in files.items():
        for v in json.loads(text)["vectors"]:
            vid = v["id"]
            if vid in ids:
                err(vid, "duplicate id")
            ids.add(vid)
            if not SUB_RE.match(v.get("comment", "")):
                err(vid, "comment does not cite a 13.x subsection")
            if v["op"] == "frame_decode":
                got = reference_frame_decode(bytes.fromhex(v["input"]["hex"]))
                if got != v["expect"]:
                    err(vid, "reference decoder gives %r, vector expects %r" % (got, v["expect"]))
                continue
            inp = v["input"]
            steps = inp["steps"]
            if len(steps) != len(v["expect"]):
                err(vid, "steps and expect differ in length")
            if any("restart" in s for s in steps) and inp.get("store") != "sqlite":
                err(vid, "restart without the sqlite store")
            opts = inp.get("options") or {}
            hashes = {policy_hash(inp["policy"])}
            for step, exp in walk_steps(v):
                if step.get("command") == "StagePolicyBundle":
                    b = step["payload"]
                    try:
                        hashes.add(staged_hash(b))
                    except (ValueError, TypeError):
                        pass
                    keys = opts.get("allowedPublicKeysBase64", [])
                    has_sig = bool(b.get("signatureBase64"))
                    ok_sig = has_sig and verify_any(keys, signed_text(b["version"], b["createdAtUtc"], b["author"],
                                                                      b["policyContentJson"]), b["signatureBase64"])
                    if isinstance(exp, dict) and exp.get("message") == "invalid policy bundle signature" and ok_sig:
                        err(vid, "a signature expected invalid verifies")
                    if isinstance(exp, dict) and exp.get("accepted") is True:
                        if opts.get("requireSignedBundles") and not ok_sig:
                            err(vid, "an accepted bundle's signature does not verify")
                        if has_sig and not ok_sig:
                            err(vid, "an accepted bundle carries a signature that does not verify")
                        if "stagedPolicyHash" in exp and exp["stagedPolicyHash"] != staged_hash(b):
                            err(vid, "stagedPolicyHash does not recompute")
                if step.get("command") == "VerifyAudit" and "records" in step.get("payload", {}):
                    ok, bad = verify_chain(step["payload"]["records"])
                    if isinstance(exp, dict) and "ok" in exp and exp["ok"] != ok:
                        err(vid, "VerifyAudit expects ok=%s, reference verifier says %s" % (exp["ok"], ok))
                if isinstance(exp, dict):
                    for k in ("deniedReason",):
                        if k in exp:
                            seen_reasons.add(exp[k])
                    stack = [exp]
                    while stack:
                        cur = stack.pop()
                        if isinstance(cur, dict):
                            for k, x in cur.items():
                                if k in ("policyHash", "activePolicyHash", "stagedPolicyHash") and x not in hashes:
                                    err(vid, "%s %s is not the hash of a policy of this vector" % (k, x))
                                if k.endswith("AtUtc") and not re.match(
                                        r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$", x):
                                    err(vid, "%s is not RFC 3339 with milliseconds: %s" % (k, x))
                                stack.append(x)
                        elif isinstance(cur, list):
                            stack.extend(cur)
    for r in REQUIRED_REASONS:
        if not any(s == r or (r.endswith(":") and s.startswith(r)) for s in seen_reasons):
            errors.append("coverage: no vector expects deniedReason %s" % r)
    gov = len(json.loads(files["governor.json"])["vectors"])
    fr = len(json.loads(files["frame_decode.json"])["vectors"])
    if gov < 250:
        errors.append("coverage: %d governor vectors (< 250)" % gov)
    if fr < 20:
        errors.append("coverage: %d frame_decode vectors (< 20)" % fr)
    return errors


def main(argv):
    files = build()
    if "--check" in argv:
        bad = []
        for name, text in files.items():
            path = os.path.join(OUT, name)
            try:
                with open(path, encoding="utf-8") as f:
                    disk = f.read()
            except FileNotFoundError:
                disk = None
            if disk != text:
                bad.append(name)
        if bad:
            print("out of date: %s (run conformance/tools/gen_governor_vectors.py)" % ", ".join(bad))
            return 1
        print("governor vectors up to date")
        return 0
    if "--self-check" in argv:
        errors = self_check(files)
        for e in errors:
            print(e)
        print("self-check: %s" % ("FAILED (%d)" % len(errors) if errors else "ok"))
        return 1 if errors else 0
    if "--counts" in argv:
        for (op, sub), n in sorted(counts(files).items(), key=lambda kv: (kv[0][0], [int(x) for x in kv[0][1].split(".")])):
            print("%-13s %-6s %4d" % (op, sub, n))
        return 0
    for name, text in files.items():
        with open(os.path.join(OUT, name), "w", encoding="utf-8") as f:
            f.write(text)
        print("%-18s %4d" % (name, len(json.loads(text)["vectors"])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
