"""Live updates: ``GET /events`` streams a review's arrival and its decision; each page has a
bounded queue, and a page that falls behind is dropped, not waited for."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import anyio
import httpx2 as httpx
import pytest
from inbox_helpers import (
    REASON,
    csrf_of,
    engine_on,
    needs_review,
    served_inbox,
    signed_in,
)

from humangr.engine.metrics import Metrics
from humangr.inbox import Hub, InboxSettings, LiveEvent
from humangr.inbox.live import TooManyClients
from humangr.reviewing import Channel

pytestmark = pytest.mark.anyio


async def sse_events(response: httpx.Response) -> AsyncIterator[tuple[str, dict[str, str]]]:
    """``(event, data)`` of each event of a ``text/event-stream`` response."""
    kind, data = "", ""
    async for line in response.aiter_lines():
        if line.startswith("event: "):
            kind = line.removeprefix("event: ")
        elif line.startswith("data: "):
            data = line.removeprefix("data: ")
        elif not line and kind:
            yield kind, json.loads(data)
            kind, data = "", ""


async def test_a_page_hears_a_review_arrive_and_be_decided() -> None:
    async with (
        engine_on() as engine,
        served_inbox(engine) as served,
        signed_in(served, "alice") as client,
        client.stream("GET", "/events") as stream,
    ):
        assert stream.status_code == 200
        events = sse_events(stream)
        report = await needs_review(engine)
        with anyio.fail_after(10):
            kind, data = await anext(events)
        assert (kind, data["action_id"]) == ("review", report.action_id)
        async with signed_in(served, "bob") as bob:
            page = await bob.get(f"/reviews/{report.action_id}")
            form = {
                "csrf": csrf_of(page.text),
                "action_hash": report.action_hash,
                "verdict": "reject",
                "reason": REASON,
            }
            answer = await bob.post(f"/reviews/{report.action_id}/resolve", data=form)
            assert answer.status_code == 303
        with anyio.fail_after(10):
            kind, data = await anext(events)
        assert kind == "decided"
        assert data == {"action_id": report.action_id, "outcome": "rejected"}


async def test_a_page_that_falls_behind_is_dropped_and_the_others_still_hear() -> None:
    async with engine_on() as engine:
        metrics = Metrics()
        channel = Channel(engine.bus, engine.subjects, "in this test", 5.0)
        hub = Hub(channel, metrics, queue_size=2)
        async with hub.events() as slow, hub.events() as fast:
            for number in range(3):
                hub.publish(LiveEvent("review", f"act-{number}"))
                if number < 2:
                    assert (await fast.receive()).action_id == f"act-{number}"
            assert [(await slow.receive()).action_id for _ in range(2)] == ["act-0", "act-1"]
            with pytest.raises(anyio.EndOfStream):
                await slow.receive()
            assert (await fast.receive()).action_id == "act-2"
            assert metrics.inbox_live_dropped._value.get() == 1
            assert metrics.inbox_live_clients._value.get() == 1
        assert metrics.inbox_live_clients._value.get() == 0


async def test_pages_beyond_the_limit_are_turned_away() -> None:
    settings = InboxSettings(max_clients=1, poll_s=0.5, failed_sign_in_delay=0.0)
    async with (
        engine_on() as engine,
        served_inbox(engine, settings=settings) as served,
        signed_in(served, "alice") as client,
        client.stream("GET", "/events") as first,
    ):
        assert first.status_code == 200
        second = await client.get("/events")
        assert second.status_code == 503
        assert "streams to 1 pages already" in second.text
    hub = Hub(Channel(engine.bus, engine.subjects, "", 1.0), Metrics(), max_clients=0)
    with pytest.raises(TooManyClients):
        async with hub.events():
            pass


async def test_an_event_is_one_line_of_json_whatever_the_ids() -> None:
    event = LiveEvent("decided", 'act-"\n\nevent: review', "rejected")
    text = event.sse().decode()
    assert text.count("\n\n") == 1
    assert text.endswith("\n\n")
    kind, data = text.strip().split("\n")
    assert kind == "event: decided"
    assert json.loads(data.removeprefix("data: "))["action_id"] == 'act-"\n\nevent: review'
