"""leasekit.integrations.arcp against a real ARCP SDK runtime (agentruntimecontrolprotocol 1.1.3):
the switch itself (version and layout checks, every site, undo), errors as the SDK's classes,
and what leasekit deliberately does more strictly than the SDK, each shown beside the SDK's own
answer."""

from __future__ import annotations

import importlib
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import arcp
import arcp._runtime.job as sdk_job
import arcp._runtime.lease as sdk_lease
import pytest
from arcp._messages.execution import LeaseConstraints
from arcp.client import ARCPClient
from arcp.runtime import ARCPRuntime

import leasekit
import leasekit.integrations.arcp as lk_arcp
from leasekit import arcp_compat

SDK_FUNCS = {name: getattr(importlib.import_module(home), name) for name, home in lk_arcp._HOMES.items()}


def _held(module: str, name: str) -> Any:
    return getattr(importlib.import_module(module), name)


# ---- the switch ------------------------------------------------------------------------------


def test_install_rebinds_every_site_and_uninstall_restores_them() -> None:
    assert len(lk_arcp.SITES) == 22
    lk_arcp.install(guard=True)
    lk_arcp.install(guard=True)  # idempotent
    for module, name in lk_arcp.SITES:
        assert _held(module, name) is getattr(arcp_compat, name), (module, name)
    assert sdk_job.JobContext.authorize is lk_arcp._authorize
    lk_arcp.uninstall()
    lk_arcp.uninstall()  # idempotent
    for module, name in lk_arcp.SITES:
        assert _held(module, name) is SDK_FUNCS[name], (module, name)
    assert sdk_job.JobContext.authorize.__module__ == "arcp._runtime.job"
    assert not lk_arcp.installed()


def test_guard_false_leaves_the_job_methods_alone() -> None:
    lk_arcp.install(guard=False)
    assert sdk_job.JobContext.authorize.__module__ == "arcp._runtime.job"
    assert arcp.runtime.validate_lease_op is arcp_compat.validate_lease_op
    lk_arcp.install(guard=True)  # other options: reinstalled
    assert sdk_job.JobContext.authorize is lk_arcp._authorize


def _unchanged() -> None:
    assert not lk_arcp.installed()
    for module, name in lk_arcp.SITES:
        assert _held(module, name) is SDK_FUNCS[name], (module, name)
    assert leasekit._errors._class_for is None


def test_another_sdk_version_is_refused_and_nothing_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lk_arcp.metadata, "version", lambda _name: "1.2.0")
    with pytest.raises(lk_arcp.SdkLayoutError, match="1.2.0 is not supported"):
        lk_arcp.install(guard=True)
    _unchanged()


def test_a_site_holding_another_object_is_refused_and_nothing_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arcp.runtime, "is_lease_subset", lambda *a, **k: True)
    with pytest.raises(lk_arcp.SdkLayoutError, match="arcp.runtime.is_lease_subset"):
        lk_arcp.install(guard=True)
    assert sdk_lease.validate_lease_op is SDK_FUNCS["validate_lease_op"]
    assert leasekit._errors._class_for is None


def test_an_unknown_site_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # A module global the table does not know would keep calling the SDK's function.
    monkeypatch.setattr(sdk_job, "check_op", sdk_lease.validate_lease_op, raising=False)
    with pytest.raises(lk_arcp.SdkLayoutError, match="arcp._runtime.job.check_op"):
        lk_arcp.install(guard=True)
    _unchanged()


def test_a_replaced_job_method_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sdk_job.JobContext, "authorize", lambda self, *a, **k: None)
    with pytest.raises(lk_arcp.SdkLayoutError, match="JobContext.authorize"):
        lk_arcp.install(guard=True)
    _unchanged()


# ---- errors ----------------------------------------------------------------------------------


def test_errors_are_both_the_sdks_and_leasekits(switched: Any) -> None:
    lease = {"fs.read": ["/data/**"]}
    with pytest.raises(arcp.PermissionDeniedError) as info:
        sdk_lease.validate_lease_op(lease, sdk_lease.LeaseOpContext("fs.read", "/etc/passwd"))
    exc = info.value
    assert isinstance(exc, leasekit.PermissionDenied)
    assert exc.code == "PERMISSION_DENIED" and exc.retryable is False
    payload = exc.to_payload()
    assert payload["code"] == "PERMISSION_DENIED" and payload["retryable"] is False
    assert "not permitted by lease" in payload["message"]
    assert exc.to_dict()["code"] == "PERMISSION_DENIED"
    # A leasekit call of the agent's own is bridged too while installed.
    with pytest.raises(arcp.BudgetExhaustedError):
        leasekit.LeaseGuard({"cost.budget": ["USD:0"], "tool.call": ["a"]}).authorize("tool.call", "a")


async def _run(runtime: ARCPRuntime, client: ARCPClient, agent: Any, lease: dict, name: str) -> Any:
    runtime.register_agent(name, agent)
    handle = await client.submit(agent=name, lease_request=lease)
    try:
        return await handle.done
    except arcp.ARCPError as exc:
        return exc


async def test_a_denial_inside_a_job_reaches_the_client_as_permission_denied(
    switched: Any, runtime: ARCPRuntime, client: ARCPClient
) -> None:
    async def agent(_input: Any, ctx: Any) -> str:
        ctx.authorize("fs.read", "/etc/passwd")  # not caught by the agent
        return "read"

    exc = await _run(runtime, client, agent, {"fs.read": ["/data/**"]}, "denied")
    assert isinstance(exc, arcp.PermissionDeniedError)
    assert exc.code == "PERMISSION_DENIED" and exc.retryable is False


async def test_a_leasekit_guard_denial_in_a_job_is_permission_denied_only_when_switched(
    runtime: ARCPRuntime, client: ARCPClient
) -> None:
    async def agent(_input: Any, _ctx: Any) -> str:
        leasekit.LeaseGuard({"tool.call": ["web.*"]}).authorize("tool.call", "shell.exec")
        return "ran"

    # Without the switch the SDK sees a foreign exception: a retryable INTERNAL_ERROR.
    before = await _run(runtime, client, agent, {}, "guarded-before")
    assert before.code == "INTERNAL_ERROR" and before.retryable is True
    lk_arcp.install(guard=True)
    after = await _run(runtime, client, agent, {}, "guarded-after")
    assert after.code == "PERMISSION_DENIED" and after.retryable is False


# ---- stricter than the SDK -------------------------------------------------------------------


async def test_authorize_model_checks_the_budget(runtime: ARCPRuntime, client: ARCPClient) -> None:
    async def agent(_input: Any, ctx: Any) -> str:
        await ctx.metric({"name": "cost.tokens", "value": "1.00", "unit": "USD"})
        try:
            ctx.authorize_model("tier-fast/cheap")
        except arcp.BudgetExhaustedError as exc:
            return f"blocked:{exc.retryable}"
        return "passed"

    lease = {"model.use": ["tier-fast/*"], "cost.budget": ["USD:1.00"]}
    sdk = await _run(runtime, client, agent, lease, "model-sdk")
    assert sdk.result == "passed"  # the SDK never looks at the budget here
    lk_arcp.install(guard=True)
    switched = await _run(runtime, client, agent, lease, "model-lk")
    assert switched.result == "blocked:False"


async def test_an_uncaught_budget_exhaustion_reaches_the_client(
    switched: Any, runtime: ARCPRuntime, client: ARCPClient
) -> None:
    async def agent(_input: Any, ctx: Any) -> str:
        await ctx.metric({"name": "cost.tokens", "value": 2, "unit": "USD"})
        ctx.authorize_model("m1")
        return "ran"

    exc = await _run(runtime, client, agent, {"model.use": ["m1"], "cost.budget": ["USD:1"]}, "spent")
    assert isinstance(exc, arcp.BudgetExhaustedError) and exc.retryable is False


def _ctx(lease: dict, constraints: Any = None) -> Any:
    budget = sdk_lease.initial_budget_from_lease(lease)
    job = sdk_job.Job(
        job_id="job_1",
        session=None,  # type: ignore[arg-type]
        agent="a",
        agent_version=None,
        lease=lease,
        lease_constraints=constraints,
        budget=dict(budget),
        initial_budget=dict(budget),
    )
    return sdk_job.JobContext(job=job, runtime=None, signal=None, logger=None)  # type: ignore[arg-type]


def test_traversal_is_canonicalized_before_matching() -> None:
    lease = {"fs.read": ["/data/**"]}
    _ctx(lease).authorize("fs.read", "/data/../etc/passwd")  # the SDK lets it through
    lk_arcp.install(guard=True)
    ctx = _ctx(lease)
    with pytest.raises(arcp.PermissionDeniedError):
        ctx.authorize("fs.read", "/data/../etc/passwd")
    assert ctx.authorize("fs.read", "/data//a/./b.csv") == "/data/a/b.csv"


def test_cost_metrics_are_exact_and_job_budget_mirrors_the_guard(switched: Any) -> None:
    ctx = _ctx({"cost.budget": ["USD:1"], "tool.call": ["t"]})
    for _ in range(10):
        ctx.job.apply_cost_metric("cost.call", 0.1, "USD")
    assert ctx.job.budget["USD"] == Decimal("0")
    assert lk_arcp.guard_for(ctx.job).remaining()["USD"] == Decimal("0")
    with pytest.raises(arcp.BudgetExhaustedError):
        ctx.authorize("tool.call", "t")
    with pytest.raises(arcp.InvalidRequestError):
        ctx.job.apply_cost_metric("cost.call", float("nan"), "USD")


def test_a_child_without_expiry_under_an_expiring_parent_is_not_a_subset() -> None:
    parent = LeaseConstraints(expires_at=(datetime.now(UTC) + timedelta(hours=1)).isoformat())
    args = ({"tool.call": ["a"]}, {"tool.call": ["a"]})
    kwargs = {"parent_constraints": parent, "child_constraints": None}
    assert SDK_FUNCS["is_lease_subset"](*args, **kwargs) is True  # the child outlives the parent
    lk_arcp.install(guard=True)
    assert sdk_lease.is_lease_subset(*args, **kwargs) is False
    with pytest.raises(arcp.LeaseSubsetViolationError, match="not a subset"):
        arcp.runtime.assert_lease_subset(*args, **kwargs)


def test_parent_remaining_limits_a_currency_the_parent_does_not_budget(switched: Any) -> None:
    child = {"cost.budget": ["EUR:5"]}
    parent = {"cost.budget": ["USD:10"]}
    assert leasekit.is_lease_subset(child, parent, parent_remaining={"EUR": "1"}) is True
    assert sdk_lease.is_lease_subset(child, parent, parent_budget_remaining={"EUR": Decimal("1")}) is False
    # a currency absent from the remaining map has nothing left, as in the SDK
    assert sdk_lease.is_lease_subset(child, parent, parent_budget_remaining={"USD": Decimal("9")}) is False
    assert sdk_lease.is_lease_subset(child, parent, parent_budget_remaining={"EUR": Decimal("5")}) is True


def test_expires_at_with_a_utc_offset_is_read_as_z(switched: Any) -> None:
    soon = datetime.now(UTC) + timedelta(hours=1)
    c = LeaseConstraints(expires_at=soon.isoformat())  # "...+00:00", what Python writes
    sdk_lease.validate_lease_constraints(c)
    ctx = _ctx({"tool.call": ["t"]}, c)
    assert ctx.authorize("tool.call", "t") == "t"
    with pytest.raises(arcp.LeaseExpiredError):
        ctx.authorize("tool.call", "t", now=soon)
    # anything else than +00:00 or Z stays refused
    spaced = LeaseConstraints(expires_at="2099-01-01 00:00:00Z")  # the SDK accepts a space for T
    SDK_FUNCS["validate_lease_constraints"](spaced)
    with pytest.raises(arcp.InvalidRequestError):
        sdk_lease.validate_lease_constraints(spaced)


def test_canonicalize_target_needs_a_capability_unless_the_target_is_a_path(switched: Any) -> None:
    assert sdk_lease.canonicalize_target("/data//x/../y/") == "/data/y"
    assert arcp_compat.canonicalize_target("HTTPS://Example.com/a", "net.fetch").startswith("https://example.com")
    with pytest.raises(arcp.InvalidRequestError):
        sdk_lease.canonicalize_target("relative//x")


# ---- delegation (opt-in) ---------------------------------------------------------------------


async def test_delegation_reserves_the_childs_budget_from_a_live_parent(
    runtime: ARCPRuntime, client: ARCPClient
) -> None:
    import asyncio

    lk_arcp.install(guard=True, delegation=True)
    release = asyncio.Event()
    seen: dict = {}

    async def parent_agent(_input: Any, ctx: Any) -> str:
        seen["parent"] = ctx
        await release.wait()
        return "parent"

    async def child_agent(_input: Any, ctx: Any) -> str:
        await ctx.metric({"name": "cost.x", "value": "1", "unit": "USD"})
        return "child"

    runtime.register_agent("parent", parent_agent)
    runtime.register_agent("child", child_agent)
    parent = await client.submit(agent="parent", lease_request={"cost.budget": ["USD:5"], "tool.call": ["a"]})
    while "parent" not in seen:
        await asyncio.sleep(0.01)
    child = await client.submit(agent="child", lease_request={"cost.budget": ["USD:3"]}, parent_job_id=parent.job_id)
    assert (await child.done).result == "child"
    for _ in range(100):
        if seen["parent"].budget["USD"] == Decimal("4"):
            break
        await asyncio.sleep(0.01)
    # 3 reserved, 1 spent, 2 returned when the child ended
    assert seen["parent"].budget["USD"] == Decimal("4")
    # More than the parent has left: refused at submit (a session.error, which the SDK's client
    # delivers to every open handle, the parent's included).
    with pytest.raises(arcp.LeaseSubsetViolationError):
        await client.submit(agent="child", lease_request={"cost.budget": ["USD:4.01"]}, parent_job_id=parent.job_id)
    assert seen["parent"].budget["USD"] == Decimal("4")
    release.set()
    with pytest.raises(arcp.LeaseSubsetViolationError):
        await parent.done


async def test_a_delegated_child_spending_a_currency_it_does_not_budget_charges_the_parent(
    runtime: ARCPRuntime, client: ARCPClient
) -> None:
    import asyncio

    lk_arcp.install(guard=True, delegation=True)
    release = asyncio.Event()
    seen: dict = {}

    async def parent_agent(_input: Any, ctx: Any) -> str:
        seen["parent"] = ctx
        await release.wait()
        return "parent"

    async def child_agent(_input: Any, ctx: Any) -> str:
        await ctx.metric({"name": "cost.x", "value": "2", "unit": "USD"})
        return "child"

    runtime.register_agent("parent", parent_agent)
    runtime.register_agent("child", child_agent)
    parent = await client.submit(agent="parent", lease_request={"cost.budget": ["USD:5"]})
    while "parent" not in seen:
        await asyncio.sleep(0.01)
    child = await client.submit(agent="child", lease_request={}, parent_job_id=parent.job_id)
    assert (await child.done).result == "child"
    assert seen["parent"].budget["USD"] == Decimal("3")
    release.set()
    assert (await parent.done).result == "parent"
