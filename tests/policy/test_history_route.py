"""``hl.history.query`` over both buses: a Supervisor pages through the decisions it keeps (the
first decision of each action, with its action), newest or oldest alike, bounded by a limit, a
byte budget and ``since``; a damaged entry is a skipped line; and nothing in the store changes —
not the decisions, not the quarantine."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta

import msgspec
import pytest
from policy_helpers import bash, policy

from humangr.actors.roles import Engine, run_engine
from humangr.contracts import Outcome, Subjects
from humangr.contracts.history import HistoryPage, HistoryQuery
from humangr.contracts.types import utc_now
from humangr.engine.actor import SupervisionPolicy
from humangr.engine.bus import Bus
from humangr.engine.config import ReviewConfig
from humangr.engine.policy.history import history_page
from humangr.engine.state import MemoryStateStore, StateStore
from humangr.engine.state.base import Entry
from humangr.granting import ask
from humangr.reviewing import Channel

pytestmark = pytest.mark.anyio

COMMANDS = ["pytest -q", "ls -la", "deploy prod", "git push --force", "echo hi"]


@asynccontextmanager
async def decided(bus: Bus, store: StateStore) -> AsyncIterator[tuple[Engine, Channel, list[str]]]:
    """An engine on ``bus`` keeping its state in ``store`` that decided ``COMMANDS``."""
    async with run_engine(
        bus=bus,
        config=ReviewConfig(rules=policy()),
        subjects=Subjects(prefix=f"h{uuid.uuid4().hex[:10]}"),
        policy=SupervisionPolicy(initial_backoff=0.01, drain_timeout=2.0),
        state=store,
    ) as engine:
        ids = [(await engine.submit(bash(c), timeout=30)).action_id for c in COMMANDS]
        yield engine, Channel(bus, engine.subjects, "here", 5.0), ids


async def snapshot(store: StateStore) -> dict[str, list[Entry]]:
    return {
        name: await (await store.bucket(name)).entries() for name in ("decisions", "quarantine")
    }


async def pages(channel: Channel, query: HistoryQuery) -> list[HistoryPage]:
    """Every page of the answer to ``query``, each asked after the previous one."""
    found: list[HistoryPage] = []
    while True:
        page = await ask(channel, channel.subjects.history_query, query, HistoryPage)
        found.append(page)
        if page.next is None:
            return found
        query = msgspec.structs.replace(query, after=page.next)


async def test_the_decisions_are_paged_and_nothing_is_written(bus: Bus) -> None:
    store = MemoryStateStore()
    async with decided(bus, store) as (_, channel, ids):
        decisions = await store.bucket("decisions")
        await decisions.put("act-damaged", b'{"report": 42, "kind": "decision"}')
        before = await snapshot(store)
        two_by_two = await pages(channel, HistoryQuery(limit=2))
        whole = await pages(channel, HistoryQuery())
        after = await snapshot(store)
    assert after == before, "the decisions and the quarantine are untouched"
    assert before["quarantine"] == []
    listed = [d for page in two_by_two for d in page.decisions]
    assert sorted(d.key for d in listed) == sorted(ids)
    assert all(d.action.tool_call is not None for d in listed)
    assert {d.report.outcome for d in listed} == {
        Outcome.APPROVED,
        Outcome.REJECTED,
        Outcome.NEEDS_REVIEW,
    }
    assert all(len(p.decisions) + len(p.skipped) <= 2 for p in two_by_two)
    assert len(two_by_two) == 3
    skipped = [line for page in two_by_two for line in page.skipped]
    assert len(skipped) == 1
    assert skipped[0].startswith("act-damaged: damaged entry skipped")
    assert [d.key for d in whole[0].decisions] == [d.key for d in listed]
    assert len(whole) == 1


async def test_since_leaves_older_decisions_out(bus: Bus) -> None:
    async with decided(bus, MemoryStateStore()) as (_, channel, _):
        future = await pages(channel, HistoryQuery(since=utc_now() + timedelta(minutes=1)))
        past = await pages(channel, HistoryQuery(since=utc_now() - timedelta(hours=1)))
    assert [len(p.decisions) for p in future] == [0]
    assert len(past[0].decisions) == len(COMMANDS)


async def test_a_page_stops_at_its_byte_budget_with_at_least_one_decision(bus: Bus) -> None:
    store = MemoryStateStore()
    async with decided(bus, store):
        entries = await (await store.bucket("decisions")).entries()
    first = history_page(entries, HistoryQuery(), budget=1)
    assert len(first.decisions) == 1
    assert first.next == first.decisions[0].key
    keys = []
    after = None
    while True:
        page = history_page(entries, HistoryQuery(after=after), budget=1)
        keys += [d.key for d in page.decisions]
        if page.next is None:
            break
        after = page.next
    assert len(keys) == len(COMMANDS)
