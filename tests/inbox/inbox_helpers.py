"""Shared by the inbox tests: reviewers and their tokens, an engine whose layers send an action
to a human, the inbox served on a free port, and an HTTP client signed in as a reviewer."""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial

import anyio
import httpx2 as httpx
from cli_reviews_helpers import FINDINGS, pricing_action, script

from humangr.actors.roles import Engine, run_engine
from humangr.contracts import ActionContext, HumanLayerReport, Outcome, Subjects
from humangr.engine.bus import Bus
from humangr.engine.config import ReviewConfig
from humangr.engine.llm import LLMClient
from humangr.engine.metrics import Metrics
from humangr.engine.state import MemoryStateStore
from humangr.inbox import InboxSettings, Reviewers, parse_tokens, serve_inbox
from humangr.reviewing import Channel

__all__ = [
    "FINDINGS",
    "REASON",
    "TOKENS",
    "Served",
    "csrf_of",
    "engine_on",
    "needs_review",
    "pricing_action",
    "reviewers",
    "served_inbox",
    "signed_in",
]

TOKENS = {  # random, as the inbox demands (secrets.token_urlsafe(32))
    "alice": "1fhPaKQJxSI_gj5p6bbIXV8tI_ogGxqQ_ca3phQpmwM",
    "bob": "y8pLzmArJ51mHJ3N0hz7ftZnmBfH3spCoqLKGSUx3_A",
    "<i>eve</i> & co": "fnCc8Z9WOEWaS3cIAAb3rRT-u2sZGF4FIFuBGgSiasY",
}
REASON = "checked by hand: negative totals cannot happen in this path"
_CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def reviewers() -> Reviewers:
    return parse_tokens("\n".join(f"{t} {n}" for n, t in TOKENS.items()), "test tokens")


@asynccontextmanager
async def engine_on(
    bus: Bus | None = None, *, llm: LLMClient | None = None, **config: float
) -> AsyncIterator[Engine]:
    """The review engine (on ``bus``, else in memory) under a fresh subject prefix; its layers
    answer with ``llm`` (by default: HL2 finds ``FINDINGS`` in every action)."""
    subjects = Subjects(f"ib{uuid.uuid4().hex[:10]}")
    async with run_engine(
        bus=bus,
        subjects=subjects,
        llm=llm or script(),
        state=MemoryStateStore(),
        config=ReviewConfig(**config),  # type: ignore[arg-type]
    ) as engine:
        yield engine


async def needs_review(
    engine: Engine, action: ActionContext | None = None, *, action_id: str | None = None
) -> HumanLayerReport:
    """Submit ``action`` (the pricing diff by default) and return its needs_review decision."""
    report = await engine.submit(
        action or pricing_action(), action_id=action_id or f"act-{uuid.uuid4().hex[:12]}"
    )
    assert report.outcome is Outcome.NEEDS_REVIEW, report
    return report


@dataclass(frozen=True)
class Served:
    url: str
    metrics: Metrics
    channel: Channel


@asynccontextmanager
async def served_inbox(
    engine: Engine, *, settings: InboxSettings | None = None, metrics: Metrics | None = None
) -> AsyncIterator[Served]:
    """The inbox of ``engine`` on a free port of 127.0.0.1 while the block runs."""
    channel = Channel(engine.bus, engine.subjects, "in this test", 10.0)
    metrics = metrics or Metrics()
    settings = settings or InboxSettings(poll_s=0.5, failed_sign_in_delay=0.0)
    async with anyio.create_task_group() as tg:
        serve = partial(serve_inbox, channel, reviewers(), metrics, port=0, settings=settings)
        port = await tg.start(serve)
        try:
            yield Served(f"http://127.0.0.1:{port}", metrics, channel)
        finally:
            tg.cancel_scope.cancel()


def csrf_of(html: str) -> str:
    found = _CSRF.search(html)
    assert found is not None, html[:2000]
    return found.group(1)


@asynccontextmanager
async def signed_in(served: Served, name: str | None = "alice") -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client of the inbox, signed in as ``name`` (anonymous with ``None``)."""
    async with httpx.AsyncClient(base_url=served.url, timeout=20.0) as client:
        if name is not None:
            page = await client.get("/signin")
            assert page.status_code == 200, page.text
            answer = await client.post(
                "/signin", data={"csrf": csrf_of(page.text), "token": TOKENS[name]}
            )
            assert answer.status_code == 303, answer.text
            assert answer.headers["location"] == "/reviews"
        yield client
