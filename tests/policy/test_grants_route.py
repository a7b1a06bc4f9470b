"""The reviewers' grant requests to a Supervisor, over both buses: ``hl.grants.query`` lists
every grant a page at a time, ``hl.grants.revoke`` ends one so that the very next call is
decided without it, an unknown id is an error reply, and a hostile or malformed request is a
dead letter — the Supervisor goes on answering."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta

import anyio
import pytest
from policy_helpers import bash, policy

from humangr.actors.roles import Engine, run_engine
from humangr.contracts import DeadLetter, Grant, Outcome, ReviewResolution, Subjects, decode, encode
from humangr.contracts.grants import MAX_GRANT_PAGE, GrantListing, GrantQuery
from humangr.contracts.types import utc_now
from humangr.engine.actor import SupervisionPolicy
from humangr.engine.bus import Bus
from humangr.engine.config import ReviewConfig
from humangr.engine.errors import EngineError
from humangr.engine.state import MemoryStateStore
from humangr.engine.state.grants import GrantBook
from humangr.granting import ask, list_grants, revoke_grant
from humangr.reviewing import Channel

pytestmark = pytest.mark.anyio

REASON = "checked the rollout plan and the chart diff"


@asynccontextmanager
async def served(bus: Bus) -> AsyncIterator[tuple[Engine, GrantBook, Channel]]:
    """An engine with the test policy on ``bus``, its grants, and a reviewer's channel."""
    store = MemoryStateStore()
    async with run_engine(
        bus=bus,
        config=ReviewConfig(rules=policy()),
        subjects=Subjects(prefix=f"q{uuid.uuid4().hex[:10]}"),
        policy=SupervisionPolicy(initial_backoff=0.01, drain_timeout=2.0),
        state=store,
    ) as engine:
        yield engine, await GrantBook(store).open(), Channel(bus, engine.subjects, "here", 5.0)


def a_grant(number: int, *, expired: bool = False) -> Grant:
    now = utc_now()
    return Grant(
        id=f"g{number:05d}",
        agent_id="coder",
        tool="bash",
        scope="tool",
        reviewer="alice",
        reason=REASON,
        action_id=f"act-{number}",
        created_at=now - timedelta(hours=2),
        expires_at=now + timedelta(hours=-1 if expired else 1),
    )


async def test_every_grant_is_listed_a_page_at_a_time(bus: Bus) -> None:
    async with served(bus) as (_, book, channel):
        assert await list_grants(channel) == []
        made = [a_grant(n, expired=n % 7 == 0) for n in range(MAX_GRANT_PAGE + 30)]
        for grant in made:
            assert await book.add(grant)
        first = await ask(channel, channel.subjects.grant_query, GrantQuery(), GrantListing)
        listed = await list_grants(channel)
    assert (len(first.grants), first.more) == (MAX_GRANT_PAGE, True)
    assert listed == made, "every grant, expired ones too, in id order"


async def test_a_revoke_over_the_bus_ends_the_grant_for_the_very_next_call(bus: Bus) -> None:
    async with served(bus) as (engine, book, channel):
        action = bash("deploy prod")
        async with bus.subscribe(engine.subjects.reviews_pending) as pending:
            await bus.flush()
            asked = await engine.submit(action, timeout=30)
            assert asked.outcome is Outcome.NEEDS_REVIEW
            with anyio.fail_after(10):
                await pending.__anext__()
        resolution = ReviewResolution(
            action_id=asked.action_id,
            action_hash=asked.action_hash,
            verdict="approve",
            reviewer="alice",
            reason=REASON,
            grant_s=3600.0,
            grant_scope="exact",
        )
        await bus.publish(engine.subjects.review_resolve(asked.action_id), encode(resolution))
        with anyio.fail_after(10):
            while not (grants := await list_grants(channel)):  # noqa: ASYNC110 (no event)
                await anyio.sleep(0.05)
        (made,) = grants
        again = await engine.submit(action, timeout=30)
        await revoke_grant(channel, made.id, "bob", "the rollout is over")
        after = await engine.submit(action, timeout=30)
        assert await book.all() == []
        with pytest.raises(EngineError, match=f"no grant '{made.id}'"):
            await revoke_grant(channel, made.id, "bob")
    assert (again.outcome, again.decided_by) == (Outcome.APPROVED, f"grant:{made.id}")
    assert after.outcome is Outcome.NEEDS_REVIEW, "revoked: the next call needs a human again"


@pytest.mark.parametrize(
    ("where", "payload", "fragment"),
    [
        ("grant_query", b"not json", "JSON"),
        ("grant_query", b'{"limit": 100000}', "limit"),
        ("grant_query", b'{"after": "../../etc"}', "after"),
        ("grant_query", b'{"everything": true}', "everything"),
        ("grant_revoke", b'{"grant_id": "g1.>", "reviewer": "mallory"}', "grant_id"),
        ("grant_revoke", b'{"grant_id": "g1"}', "reviewer"),
        ("grant_revoke", b'{"grant_id": "' + b"g" * 100 + b'", "reviewer": "m"}', "grant_id"),
        ("history_query", b'{"limit": 0}', "limit"),
        ("history_query", b'{"after": ""}', "after"),
        ("history_query", b'{"since": "2026-01-01T00:00:00"}', "since"),
        ("history_query", b"[" * 10_000, ""),
    ],
)
async def test_a_malformed_request_is_a_dead_letter_and_the_supervisor_goes_on(
    bus: Bus, where: str, payload: bytes, fragment: str
) -> None:
    async with served(bus) as (engine, book, channel):
        assert await book.add(a_grant(1))
        subject = getattr(engine.subjects, where)
        async with bus.subscribe(engine.subjects.dlq) as letters:
            await bus.flush()
            await bus.publish(subject, payload)
            with anyio.fail_after(10):
                letter = decode((await letters.__anext__()).data, DeadLetter)
        assert letter.subject == subject
        assert fragment in letter.error
        assert [g.id for g in await list_grants(channel)] == ["g00001"], "nothing changed"
