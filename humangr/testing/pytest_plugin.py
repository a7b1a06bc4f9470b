"""pytest plugin (entry point ``humangr``): the ``humangr_engine`` fixture.

``humangr_engine`` is a running ``HumangrTestEngine`` (see ``engine.testing.kit``) for one test.
Async tests use anyio's plugin: mark them ``@pytest.mark.anyio``.

- ``@pytest.mark.humangr(**options)`` passes keywords to ``humangr()`` for that test, e.g.
  ``layers=["HL2", "HL4"]``, ``review_deadline_s=0.5``, ``llm=None`` (local checks only).
- ``--humangr-nats URL`` (or the environment variable ``HUMANGR_NATS_URL``) runs every
  ``humangr_engine`` on that NATS server (a cluster: its seed URLs, comma-separated) instead
  of the in-memory bus. The URL is the
  ``humangr_nats_url`` fixture: override or parametrize it to run a suite both ways.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from humangr.testing.kit import HumangrTestEngine

__all__ = ["humangr_engine", "humangr_nats_url"]

NATS_ENV = "HUMANGR_NATS_URL"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("humangr", "HUMANGR test engine")
    group.addoption(
        "--humangr-nats",
        dest="humangr_nats",
        metavar="URL",
        default=None,
        help=f"run the humangr_engine fixture on this NATS server instead of the in-memory "
        f"bus (default: ${NATS_ENV}, else in memory)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "humangr(**options): keywords for the humangr_engine fixture, passed to "
        "humangr.testing.humangr() (layers=..., review_deadline_s=..., llm=None, ...)",
    )


@pytest.fixture
def humangr_nats_url(request: pytest.FixtureRequest) -> str | None:
    """The NATS URL ``humangr_engine`` runs on; ``None`` means the in-memory bus."""
    url = request.config.getoption("humangr_nats", default=None) or os.environ.get(NATS_ENV)
    return str(url) if url else None


@pytest.fixture
async def humangr_engine(
    request: pytest.FixtureRequest, humangr_nats_url: str | None
) -> AsyncIterator[HumangrTestEngine]:
    """A HUMANGR engine for this test: every layer answers clean until the test scripts it."""
    from humangr.testing.kit import humangr

    marker = request.node.get_closest_marker("humangr")
    if marker is not None and marker.args:
        raise pytest.UsageError("@pytest.mark.humangr takes keywords only, e.g. layers=['HL4']")
    options = dict(marker.kwargs) if marker is not None else {}
    options.setdefault("nats_url", humangr_nats_url)
    async with humangr(**options) as kit:
        yield kit
