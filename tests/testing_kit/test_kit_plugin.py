"""The pytest plugin: the ``humangr_engine`` fixture, its marker, and a suite run both ways."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import anyio
import pytest

from humangr.contracts import Outcome
from humangr.engine.bus.nats import NatsBus
from humangr.testing import HumangrTestEngine, humangr

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "agent_test"


@pytest.fixture(params=["memory", "nats"])
def humangr_nats_url(request: pytest.FixtureRequest) -> str | None:
    """Overriding the plugin's URL fixture runs every test below on both buses."""
    return None if request.param == "memory" else str(request.getfixturevalue("nats_url"))


async def test_the_fixture_runs_on_the_bus_it_is_given(
    humangr_engine: HumangrTestEngine, humangr_nats_url: str | None
) -> None:
    on_nats = isinstance(humangr_engine.bus, NatsBus)

    assert on_nats == (humangr_nats_url is not None)
    assert humangr_engine.subjects.prefix.startswith("hltest-" if on_nats else "hl")
    assert (await humangr_engine.submit()).outcome is Outcome.APPROVED


@pytest.mark.humangr(llm=None, layers=["HL4", "HL6"], review_deadline_s=0.5)
async def test_the_marker_passes_options(humangr_engine: HumangrTestEngine) -> None:
    assert humangr_engine.llm is None
    assert [str(lid) for lid in humangr_engine.config.layers] == ["HL4", "HL6"]
    assert humangr_engine.config.review_deadline_s == 0.5
    decision = await humangr_engine.submit()
    assert decision.layer_results.keys() == {"HL4", "HL6"}


async def test_engines_on_one_nats_server_do_not_see_each_other(nats_url: str) -> None:
    async with humangr(nats_url=nats_url) as first, humangr(nats_url=nats_url) as second:
        second.reject()
        approved = await first.submit()
        rejected = await second.submit()

        assert first.subjects.prefix != second.subjects.prefix
        assert approved.outcome is Outcome.APPROVED
        assert rejected.outcome is Outcome.REJECTED
        assert first.decision(rejected.action_id) is None
        assert second.decision(approved.action_id) is None


async def test_the_example_suite_runs_on_nats_with_one_option(nats_url: str) -> None:
    """The example's tests, run by a user's pytest with ``--humangr-nats``, decide on NATS."""
    bus = await NatsBus.connect(nats_url)
    try:
        async with bus.subscribe("*.decisions.>") as seen:
            done = await anyio.run_process(
                [
                    sys.executable,
                    "-m",
                    "pytest",
                    str(EXAMPLE),
                    "-q",
                    "-p",
                    "no:cacheprovider",
                    "--humangr-nats",
                    nats_url,
                ],
                cwd=ROOT,
                check=False,
            )
            output = done.stdout.decode() + done.stderr.decode()
            assert done.returncode == 0, output
            passed = re.search(r"(\d+) passed", output)
            assert passed is not None, output
            tests = int(passed.group(1))
            assert tests >= 5, output
            subjects = set()
            with anyio.move_on_after(1):
                async for msg in seen:
                    subjects.add(msg.subject)
                    if len(subjects) >= tests:
                        break
    finally:
        await bus.close()
    assert subjects
    assert all(re.fullmatch(r"hltest-\w+\.decisions\.file-editor", s) for s in subjects)
