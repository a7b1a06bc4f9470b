"""The client's inputs, hostile ones included: options, actions given as dicts, timeouts, a client
closed under a waiting review, oversized and unprintable arguments."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from client_helpers import AWS_KEY

import humangr
from humangr import ConfigError, ContractError, EngineError, ReviewTimeout
from humangr.engine.bus import Bus, MemoryBus
from humangr.engine.config import ReviewConfig

pytestmark = pytest.mark.anyio

KEY = "N" + "A" * 55
ACTION = {"agent_id": "a1", "action_type": "tool_call", "action_description": "list files"}


def test_an_unknown_option_is_a_type_error_naming_it() -> None:
    with pytest.raises(TypeError, match="agnet_id"):
        humangr.connect(agnet_id="x")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="timout"):
        humangr.connect_sync(timout=3)  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("url", "options", "problem"),
    [
        ("nats://127.0.0.1:4222", {"config": ReviewConfig()}, "embedded engine"),
        ("nats://127.0.0.1:4222", {"llm": None}, "embedded engine"),
        ("http://127.0.0.1:4222", {}, "not a NATS URL"),
        (None, {"public_key": KEY}, "trusts its own key"),
        (None, {"user": "alice"}, "give a NATS URL"),
        ("nats://127.0.0.1:4222", {"public_key": "SUAM-a-seed-not-a-key"}, "never the seed"),
        (None, {"agent_id": "has space"}, "agent_id"),
        (None, {"timeout": 0}, "timeout"),
        (None, {"prefix": "hl..x"}, "prefix"),
        ("nats://127.0.0.1:4222", {"bus": MemoryBus()}, "not both"),
    ],
)
def test_options_that_cannot_work_fail_loudly(
    url: str | None, options: dict[str, object], problem: str
) -> None:
    with pytest.raises(ConfigError, match=problem) as caught:
        humangr.connect(url, **options)  # type: ignore[arg-type]
    assert "SUAM" not in str(caught.value), "a seed given by mistake is not echoed"


async def test_an_unreachable_nats_server_is_an_engine_error() -> None:
    with pytest.raises(EngineError, match=r"127\.0\.0\.1:1") as caught:
        async with humangr.connect("nats://user:hunter2@127.0.0.1:1", public_key=KEY):
            pass
    assert "hunter2" not in str(caught.value)


@pytest.mark.parametrize(
    ("action", "where"),
    [
        ({**ACTION, "code_dif": "+x"}, "code_dif"),
        ({**ACTION, "agent_id": "no spaces allowed"}, "agent_id"),
        ({**ACTION, "action_description": "x" * 20_001}, "action_description"),
        ({"agent_id": "a1", "action_type": "tool_call"}, "action_description"),
        ({**ACTION, "environment": {"k": 1}}, "environment"),
        ("rm -rf /", "ActionContext"),
    ],
)
async def test_a_bad_action_is_a_contract_error(bus: Bus, action: object, where: str) -> None:
    async with humangr.connect(bus=bus, public_key=KEY) as hg:
        with pytest.raises(ContractError, match=where):
            await hg.review(action)  # type: ignore[arg-type]


async def test_no_decision_in_time_is_a_review_timeout(bus: Bus) -> None:
    async with humangr.connect(bus=bus, timeout=0.3, public_key=KEY) as hg:
        with pytest.raises(ReviewTimeout) as caught:
            await hg.review(ACTION)
        with pytest.raises(TimeoutError):
            await hg.review(ACTION, final=True, timeout=0.2)
    assert caught.value.action_id.startswith("act-")
    assert caught.value.timeout == 0.3


async def test_closing_the_client_ends_a_waiting_review_without_a_decision(bus: Bus) -> None:
    errors: list[BaseException] = []

    async def agent(hg: humangr.Client) -> None:
        try:
            await hg.review(ACTION, timeout=60)
        except EngineError as exc:
            errors.append(exc)

    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            async with humangr.connect(bus=bus, public_key=KEY) as hg:
                tg.start_soon(agent, hg)
                await anyio.wait_all_tasks_blocked()
                assert hg.waiters._waiting, "the review is waiting"
            with pytest.raises(EngineError, match="closed"):
                await hg.review(ACTION)
    [error] = errors
    assert "closed" in str(error)
    assert not isinstance(error, ReviewTimeout)
    assert not hg.waiters._waiting


async def test_a_sync_tool_called_inside_the_event_loop_is_refused_not_run() -> None:
    calls: list[str] = []
    async with humangr.connect() as hg:

        @hg.guard
        def list_files(path: str) -> None:
            calls.append(path)

        with pytest.raises(EngineError, match="connect_sync"):
            list_files(".")
    assert calls == []


async def test_guard_options_are_checked_when_decorating() -> None:
    async with humangr.connect() as hg:
        with pytest.raises(ConfigError, match="on_needs_review"):
            hg.guard(on_needs_review="ignore")  # type: ignore[call-overload]
        with pytest.raises(ConfigError, match="agent_id"):
            hg.guard(agent_id="a b")
        with pytest.raises(ConfigError, match="timeout"):
            hg.guard(timeout=-1)


def test_the_sync_facade_guards_sync_code(tmp_path: Path) -> None:
    with humangr.connect_sync(agent_id="sync-agent") as hg:
        assert hg.trusted_keys == (hg.client.engine.public_key,)  # type: ignore[union-attr]

        @hg.guard
        def write(name: str, content: str) -> int:
            return (tmp_path / name).write_text(content)

        assert write("a.txt", "hello") == 5
        with pytest.raises(humangr.Rejected) as caught:
            write("b.txt", f"aws_access_key_id={AWS_KEY}")
        report = hg.review(ACTION)

        async def not_sync() -> None:
            return None

        with pytest.raises(TypeError, match="async"):
            hg.guard(not_sync)

    assert (tmp_path / "a.txt").read_text() == "hello"
    assert not (tmp_path / "b.txt").exists()
    assert caught.value.report.agent_id == "sync-agent"
    # A description alone is read by no local check: without an LLM a human decides.
    assert report.outcome is humangr.Outcome.NEEDS_REVIEW
    with pytest.raises(EngineError, match="closed"):
        write("c.txt", "late")
    assert not (tmp_path / "c.txt").exists()


async def test_an_error_leaves_async_with_connect_as_itself_not_in_a_group(bus: Bus) -> None:
    caught: list[BaseException] = []
    try:
        async with humangr.connect(bus=bus, timeout=0.2, public_key=KEY) as hg:
            await hg.review(ACTION)
    except humangr.ReviewTimeout as exc:  # not an ExceptionGroup around it
        caught.append(exc)
    assert len(caught) == 1
    assert type(caught[0]) is ReviewTimeout
    with pytest.raises(KeyError, match="mine") as raised:
        async with humangr.connect():
            raise KeyError("mine")
    assert type(raised.value) is KeyError


def test_an_error_leaves_the_sync_client_as_itself() -> None:
    with pytest.raises(ValueError, match="agent's own") as raised, humangr.connect_sync():
        raise ValueError("the agent's own error")
    assert type(raised.value) is ValueError
