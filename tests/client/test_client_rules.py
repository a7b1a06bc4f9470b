"""Rules first: a guarded call with an AWS key in an argument is rejected by the local checks,
with no LLM at all and without one call to a configured LLM; the embedded engine (no URL)."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from client_helpers import AWS_KEY, served

import humangr
from humangr import Rejected
from humangr.contracts import Outcome
from humangr.engine.llm import ScriptedLLM

pytestmark = pytest.mark.anyio

CONFIG = f"[default]\naws_access_key_id = {AWS_KEY}\n"


async def test_the_embedded_engine_with_no_llm_rejects_a_key_in_an_argument(
    tmp_path: Path,
) -> None:
    async with humangr.connect(agent_id="deployer") as hg:
        assert hg.engine is not None
        assert hg.engine.llm is None
        assert hg.trusted_keys == (hg.engine.public_key,)

        @hg.guard
        async def write_file(path: str, content: str) -> None:
            (tmp_path / path).write_text(content)

        await write_file("notes.txt", "deploy at noon")
        with pytest.raises(Rejected) as caught:
            await write_file("credentials", CONFIG)

    assert (tmp_path / "notes.txt").read_text() == "deploy at noon"
    assert not (tmp_path / "credentials").exists()
    report = caught.value.report
    assert report.outcome is Outcome.REJECTED
    assert any("AWS" in reason for reason in report.blocking_reasons)
    assert "local checks only" in " ".join(report.blocking_reasons)
    assert AWS_KEY not in str(caught.value), "the secret is not repeated in the error"


async def test_a_configured_llm_is_not_called_for_what_the_rules_settle() -> None:
    llm = ScriptedLLM([])
    async with humangr.connect(llm=llm) as hg:

        @hg.guard
        def put_secret(name: str, value: str) -> None:
            raise AssertionError("a rejected call must not run")

        with pytest.raises(Rejected) as caught:
            await anyio.to_thread.run_sync(put_secret, "aws", AWS_KEY)

    assert caught.value.report.outcome is Outcome.REJECTED
    assert llm.calls == 0


@pytest.fixture(params=["memory", "nats"])
def nats_or_memory(request: pytest.FixtureRequest) -> str | None:
    return None if request.param == "memory" else request.getfixturevalue("nats_url")


async def test_a_served_engine_rejects_a_key_without_calling_its_llm(
    nats_or_memory: str | None,
) -> None:
    calls: list[str] = []
    async with served(nats_or_memory) as env:

        @env.hg.guard
        async def set_env(name: str, value: str) -> None:
            calls.append(name)

        with pytest.raises(Rejected) as caught:
            await set_env("AWS_ACCESS_KEY_ID", AWS_KEY)

        assert env.kit.llm is not None
        assert env.kit.llm.calls == 0
    assert calls == []
    assert caught.value.report.outcome is Outcome.REJECTED
    assert caught.value.report.signer == env.kit.engine.public_key
