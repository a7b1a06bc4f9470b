"""Creating a standing approval by resolving a review with a grant, over both buses: the grant
exists only after an approve that wins, two reviewers granting at once make one grant, and a
grant with a reject, a past or absurd duration, on an action without a tool call or for a review
no longer pending is refused with nothing else changed."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import msgspec
import pytest
from policy_helpers import bash, call, policy

from humangr.actors.review.grant_gate import grant_id_of
from humangr.actors.roles import Engine, run_engine
from humangr.contracts import (
    MAX_GRANT_S,
    ActionContext,
    Decision,
    Grant,
    Outcome,
    ReviewResolution,
    Subjects,
    decode,
    encode,
)
from humangr.contracts.errors import ContractError
from humangr.engine.actor import SupervisionPolicy
from humangr.engine.bus import Bus
from humangr.engine.config import ReviewConfig
from humangr.engine.policy.grants import call_digest
from humangr.engine.state import MemoryStateStore, StateStore
from humangr.engine.state.grants import GrantBook

pytestmark = pytest.mark.anyio

REASON = "checked the rollout plan and the chart diff"


async def resolve(bus: Bus, engine: Engine, asked: Decision, **fields: Any) -> None:
    """Publish a resolution of ``asked`` (approve with an 8 h exact grant unless told)."""
    resolution = ReviewResolution(
        action_id=asked.action_id,
        action_hash=asked.action_hash,
        verdict=fields.pop("verdict", "approve"),
        reviewer=fields.pop("reviewer", "alice"),
        reason=REASON,
        grant_s=fields.pop("grant_s", 8 * 3600.0),
        **fields,
    )
    await bus.publish(engine.subjects.review_resolve(asked.action_id), encode(resolution))


async def grants_in(book: GrantBook, *, wait_for: int, timeout: float = 5.0) -> list[Grant]:
    """The grants in ``book``, once there are ``wait_for`` (or after ``timeout`` s)."""
    found = await book.all()
    for _ in range(int(timeout / 0.05)):
        if len(found) >= wait_for:
            break
        await anyio.sleep(0.05)
        found = await book.all()
    return found


async def ask(engine: Engine, command: str = "deploy prod") -> tuple[ActionContext, Decision]:
    action = bash(command)
    asked = await engine.submit(action, timeout=30)
    assert asked.outcome is Outcome.NEEDS_REVIEW
    return action, asked


@asynccontextmanager
async def engine_and_book(bus: Bus) -> AsyncIterator[tuple[Engine, GrantBook]]:
    """An engine with the test policy on ``bus``, and the grants of its store."""
    store: StateStore = MemoryStateStore()
    async with run_engine(
        bus=bus,
        config=ReviewConfig(rules=policy()),
        subjects=Subjects(prefix=f"r{uuid.uuid4().hex[:10]}"),
        policy=SupervisionPolicy(initial_backoff=0.01, drain_timeout=2.0),
        state=store,
    ) as engine:
        yield engine, await GrantBook(store).open()


async def test_an_approve_with_a_grant_creates_one_that_then_decides(bus: Bus) -> None:
    async with engine_and_book(bus) as (engine, book):
        action, asked = await ask(engine)
        await resolve(bus, engine, asked)
        (made,) = await grants_in(book, wait_for=1)
        again = await engine.submit(action, timeout=30)
        other = await engine.submit(bash("deploy prod --force"), timeout=30)
    assert action.tool_call is not None
    assert made.id == grant_id_of(asked.action_id)
    assert (made.agent_id, made.tool, made.scope) == ("coder", "bash", "exact")
    assert made.arguments_digest == call_digest(action.tool_call)
    assert (made.reviewer, made.reason, made.action_id) == ("alice", REASON, asked.action_id)
    assert 8 * 3600 - 60 < (made.expires_at - made.created_at).total_seconds() <= 8 * 3600
    assert (again.outcome, again.decided_by) == (Outcome.APPROVED, f"grant:{made.id}")
    assert other.outcome is Outcome.NEEDS_REVIEW


async def test_two_reviewers_granting_at_once_make_one_grant(bus: Bus) -> None:
    async with engine_and_book(bus) as (engine, book):
        _, asked = await ask(engine)
        async with anyio.create_task_group() as tg:
            tg.start_soon(lambda: resolve(bus, engine, asked, reviewer="alice"))
            tg.start_soon(lambda: resolve(bus, engine, asked, reviewer="bob", grant_scope="tool"))
        found = await grants_in(book, wait_for=1)
        await anyio.sleep(0.5)
        assert await book.all() == found
    assert len(found) == 1


@pytest.mark.parametrize(
    "fields",
    [{"verdict": "reject"}, {"grant_s": 0.0}],
    ids=["reject", "no-duration"],
)
async def test_only_an_approve_with_a_duration_grants(bus: Bus, fields: dict[str, Any]) -> None:
    async with engine_and_book(bus) as (engine, book):
        _, asked = await ask(engine)
        await resolve(bus, engine, asked, **fields)
        await anyio.sleep(0.5)
        assert await book.all() == []
        await resolve(bus, engine, asked, grant_s=60.0)
        # a refused reject leaves the review pending; an approve without a grant resolved it
        wanted = 1 if "verdict" in fields else 0
        assert len(await grants_in(book, wait_for=1, timeout=1.0)) == wanted


async def test_a_grant_for_a_review_no_longer_pending_is_refused(bus: Bus) -> None:
    async with engine_and_book(bus) as (engine, book):
        _, asked = await ask(engine)
        await resolve(bus, engine, asked, grant_s=0.0)
        await anyio.sleep(0.5)
        await resolve(bus, engine, asked)
        await anyio.sleep(0.5)
        assert await book.all() == []


async def test_a_grant_of_an_action_without_a_tool_call_is_refused(bus: Bus) -> None:
    plain = msgspec.structs.replace(call("bash", command="deploy prod"), tool_call=None)
    plain = msgspec.structs.replace(plain, action_type="deploy", action_description="deploy prod")
    async with engine_and_book(bus) as (engine, book):
        asked = await engine.submit(plain, timeout=30)
        assert asked.outcome is Outcome.NEEDS_REVIEW, "no local check reads a description"
        await resolve(bus, engine, asked)
        await anyio.sleep(0.5)
        assert await book.all() == []


@pytest.mark.parametrize("seconds", [-1.0, MAX_GRANT_S + 1, float("inf")])
def test_a_past_or_absurd_duration_never_decodes(seconds: float) -> None:
    raw = {
        "action_id": "a1",
        "action_hash": "0" * 64,
        "verdict": "approve",
        "reviewer": "alice",
        "reason": REASON,
        "grant_s": seconds,
    }
    with pytest.raises(ContractError, match="grant_s"):
        decode(msgspec.json.encode(raw), ReviewResolution)
