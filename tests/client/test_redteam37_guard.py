"""Round 37 red team, front doors — ``@hg.guard``: what is reviewed vs what runs.

- A ``functools.partial`` that binds positional arguments ran them unreviewed
  (``guard(partial(run, "rm -rf /"), tool="run_shell")()`` was reviewed with no arguments and
  ran): refused when guarded, with how to bind them instead; keyword-bound ones are reviewed.
- An async generator function was taken for a sync function: refused inside the client's loop
  with a wrong error, so an honest one could not be guarded. It is reviewed before its first
  item, and a rejected call yields nothing.
- Verified, unchanged: ``*argv`` and ``**options`` reviewed end to end, defaults reviewed, a
  sync generator reviewed at the call.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Iterator

import anyio
import pytest

import humangr
from humangr.client import Client
from humangr.engine.errors import ConfigError

pytestmark = pytest.mark.anyio


@pytest.fixture
async def hg() -> AsyncIterator[Client]:
    async with humangr.connect(agent_id="tool-agent") as client:
        yield client


async def test_a_partial_binding_positional_arguments_is_refused(hg: Client) -> None:
    ran: list[str] = []

    def run(command: str) -> str:
        ran.append(command)
        return command

    with pytest.raises(ConfigError, match="bind them by keyword"):
        hg.guard(tool="run_shell")(functools.partial(run, "rm -rf /"))
    by_keyword = hg.guard(tool="run_shell")(functools.partial(run, command="rm -rf /"))
    with pytest.raises(humangr.Rejected):
        await anyio.to_thread.run_sync(by_keyword)
    honest = hg.guard(tool="run_shell")(functools.partial(run, command="ls -la"))
    assert await anyio.to_thread.run_sync(honest) == "ls -la"
    assert ran == ["ls -la"]


async def test_an_async_generator_is_reviewed_before_its_first_item(hg: Client) -> None:
    started: list[str] = []

    @hg.guard(tool="shell")
    async def stream(command: str) -> AsyncIterator[str]:
        started.append(command)
        yield command
        yield "done"

    with pytest.raises(humangr.Rejected):
        async for _ in stream("rm -rf /"):
            pass
    assert started == []
    assert [line async for line in stream("ls -la")] == ["ls -la", "done"]
    assert started == ["ls -la"]


async def test_varargs_defaults_and_generators_are_reviewed_end_to_end(hg: Client) -> None:
    ran: list[object] = []

    @hg.guard
    def shell(*argv: str) -> str:
        ran.append(argv)
        return " ".join(argv)

    @hg.guard
    async def bash(command: str = "rm -rf /") -> str:
        ran.append(command)
        return command

    @hg.guard(tool="shell")
    async def options(**given: str) -> dict[str, str]:
        ran.append(given)
        return given

    @hg.guard(tool="shell")
    def lines(command: str) -> Iterator[str]:
        ran.append(command)
        yield command

    for stopped in (
        lambda: anyio.to_thread.run_sync(shell, "rm", "-rf", "/"),
        bash,
        lambda: options(command="rm -rf /"),
        lambda: anyio.to_thread.run_sync(lambda: list(lines("rm -rf /"))),
    ):
        with pytest.raises(humangr.Rejected):
            await stopped()
    assert ran == []
    assert await anyio.to_thread.run_sync(shell, "ls", "-la") == "ls -la"
    assert await bash("ls") == "ls"
    assert await options(command="ls") == {"command": "ls"}
    assert await anyio.to_thread.run_sync(lambda: list(lines("ls"))) == ["ls"]
