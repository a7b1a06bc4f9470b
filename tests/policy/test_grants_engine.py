"""Standing approvals in the Supervisor, over both buses and the three state stores: a grant in
the store decides (``decided_by`` = ``grant:<id>``, no layer task), never past a deny rule or a
strong local veto, stops at once when it expires or is revoked, and two Supervisors sharing a
store apply the same grants and count their uses."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta

import anyio
import msgspec
import pytest
from policy_helpers import bash, call, policy, tasks_of

from humangr.actors.roles import Engine, run_engine
from humangr.contracts import ActionContext, Grant, Outcome, Subjects
from humangr.contracts.types import utc_now
from humangr.engine.actor import SupervisionPolicy
from humangr.engine.bus import Bus
from humangr.engine.config import ReviewConfig
from humangr.engine.llm import ScriptedLLM
from humangr.engine.policy import Policy
from humangr.engine.policy.grants import call_digest
from humangr.engine.state import StateStore
from humangr.engine.state.grants import GrantBook

pytestmark = pytest.mark.anyio

CLEAN = {"json": {"findings": [], "summary": "looks fine"}}
PRIVATE_KEY = (
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7V3u\n-----END RSA PRIVATE KEY-----\n"
)


@asynccontextmanager
async def engine_on(bus: Bus, store: StateStore, rules: Policy | None) -> AsyncIterator[Engine]:
    """An engine on ``bus`` (a fresh prefix) keeping its state in ``store``."""
    async with run_engine(
        bus=bus,
        llm=ScriptedLLM.from_lines([{"match": {}, **CLEAN}]),
        config=ReviewConfig(rules=rules),
        subjects=Subjects(prefix=f"g{uuid.uuid4().hex[:10]}"),
        policy=SupervisionPolicy(initial_backoff=0.01, drain_timeout=2.0),
        state=store,
    ) as engine:
        yield engine


async def grant(
    store: StateStore, action: ActionContext, *, scope: str = "exact", seconds: float = 3600
) -> Grant:
    """A grant for ``action``, stored."""
    assert action.tool_call is not None
    now = utc_now()
    made = Grant(
        id=f"g{uuid.uuid4().hex[:12]}",
        agent_id=action.agent_id,
        tool=action.tool_call.name,
        scope="tool" if scope == "tool" else "exact",
        arguments_digest=call_digest(action.tool_call) if scope == "exact" else None,
        reviewer="alice",
        reason="reviewed: the migration is safe",
        action_id="a1",
        created_at=now,
        expires_at=now + timedelta(seconds=seconds),
    )
    book = await GrantBook(store).open()
    assert await book.add(made)
    return made


async def test_a_grant_decides_with_no_layer_task(bus: Bus, state_store: StateStore) -> None:
    action = bash("make migrate")
    made = await grant(state_store, action)
    async with engine_on(bus, state_store, policy()) as engine, tasks_of(bus, engine) as tasks:
        report = await engine.submit(action, timeout=30)
        other = await engine.submit(bash("make migrate --all"), timeout=30)
    assert report.outcome is Outcome.APPROVED
    assert report.decided_by == f"grant:{made.id}"
    assert other.decided_by != f"grant:{made.id}"
    assert len({t.action_id for t in tasks}) == 1, "only the other action went to the layers"
    metrics = engine.metrics.registry
    assert metrics.get_sample_value("humangr_grant_uses_total", {"scope": "exact"}) == 1.0
    assert metrics.get_sample_value("humangr_grant_uses_total", {"scope": "tool"}) == 0.0
    stored = await (await GrantBook(state_store).open()).get(made.id)
    assert stored is not None
    assert stored.uses == 1


async def test_no_grant_passes_a_deny_rule_an_ask_rule_by_tool_or_a_local_veto(
    bus: Bus, state_store: StateStore
) -> None:
    push = bash("git push --force origin main")
    prod = bash("deploy prod")
    key = call("Write", file_path="src/deploy_key.pem", content=PRIVATE_KEY)
    await grant(state_store, push)
    await grant(state_store, prod, scope="tool")
    await grant(state_store, key)
    async with engine_on(bus, state_store, policy()) as engine:
        denied = await engine.submit(push, timeout=30)
        asked = await engine.submit(prod, timeout=30)
        vetoed = await engine.submit(key, timeout=30)
    assert (denied.outcome, denied.decided_by) == (Outcome.REJECTED, "rule:no-force-push")
    assert (asked.outcome, asked.decided_by) == (Outcome.NEEDS_REVIEW, "rule:prod-needs-a-human")
    assert (vetoed.outcome, vetoed.decided_by) == (Outcome.REJECTED, "local checks")


async def test_an_exact_grant_answers_an_ask_rule(bus: Bus, state_store: StateStore) -> None:
    prod = bash("deploy prod")
    made = await grant(state_store, prod)
    async with engine_on(bus, state_store, policy()) as engine:
        report = await engine.submit(prod, timeout=30)
    assert (report.outcome, report.decided_by) == (Outcome.APPROVED, f"grant:{made.id}")


async def test_expiry_and_revoke_stop_a_grant_at_once(bus: Bus, state_store: StateStore) -> None:
    short = bash("make short")
    revoked = bash("make revoked")
    await grant(state_store, short, seconds=1.0)
    made = await grant(state_store, revoked, scope="tool")
    book = await GrantBook(state_store).open()
    async with engine_on(bus, state_store, None) as engine:
        assert (await engine.submit(short, timeout=30)).decided_by.startswith("grant:")
        assert await book.revoke(made.id)
        after_revoke = await engine.submit(revoked, timeout=30)
        await anyio.sleep(1.05)
        after_expiry = await engine.submit(bash("make short"), timeout=30)
    assert not after_revoke.decided_by.startswith("grant:")
    assert not after_expiry.decided_by.startswith("grant:")


async def test_two_supervisors_apply_the_same_grants(bus: Bus, state_store: StateStore) -> None:
    action = bash("make migrate")
    made = await grant(state_store, action, scope="tool")
    async with (
        engine_on(bus, state_store, policy()) as one,
        engine_on(bus, state_store, policy()) as two,
    ):
        first = await one.submit(action, timeout=30)
        second = await two.submit(bash("make lint"), timeout=30)
    assert first.decided_by == second.decided_by == f"grant:{made.id}"
    stored = await (await GrantBook(state_store).open()).get(made.id)
    assert stored is not None
    assert stored.uses == 2


async def test_a_damaged_grant_never_applies_and_the_others_still_do(
    bus: Bus, state_store: StateStore
) -> None:
    action = bash("make migrate")
    made = await grant(state_store, action)
    forged = msgspec.structs.replace(made, id="g-forged", scope="tool", arguments_digest=None)
    raw = await state_store.bucket("grants")
    await raw.put("g-0-garbage", b"\x00\xff not json")
    await raw.put("g-0-misplaced", msgspec.json.encode(forged))
    async with engine_on(bus, state_store, policy()) as engine:
        report = await engine.submit(action, timeout=30)
        other = await engine.submit(bash("make lint"), timeout=30)
    assert report.decided_by == f"grant:{made.id}"
    assert not other.decided_by.startswith("grant:")
    assert await raw.get("g-0-garbage") is None
    assert await raw.get("g-0-misplaced") is None
    quarantined = engine.metrics.registry.get_sample_value(
        "humangr_state_quarantined_total", {"bucket": "grants"}
    )
    assert quarantined == 2.0
