"""Helpers of the deployment tests: deploy/ files, role credentials, ``humangr serve``
subprocesses."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import urllib.request
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import anyio
from anyio.abc import Process
from anyio.streams.text import TextReceiveStream

from humangr.engine.bus.nats import JetStreamConfig, NatsBus
from humangr.engine.bus.subject import inbox_prefix_for

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
ROLES = (
    "agent",
    "reviewer",
    "observer",
    "supervisor",
    "layer",
    "worker",
    "monitor",
    "operator",
)


def env_example() -> dict[str, str]:
    """The variables of deploy/.env.example (the documented development defaults)."""
    values = {}
    for line in (DEPLOY / ".env.example").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.partition("=")
            values[name.strip()] = value.strip()
    return values


def password(role: str) -> str:
    return env_example()[f"HUMANGR_{role.upper()}_PASSWORD"]


async def connect_as(url: str, role: str, *, jetstream: bool = False) -> NatsBus:
    return await NatsBus.connect(
        url,
        name=f"test-{role}",
        user=role,
        password=password(role),
        jetstream=JetStreamConfig(storage="memory", poll_interval=0.2) if jetstream else None,
        connect_timeout=3.0,
        inbox_prefix=inbox_prefix_for(role),
    )


def with_agent(conf: str, agent_id: str) -> str:
    """``conf`` (the text of deploy/nats-accounts.conf) with one more agent user, made from the
    block its comments document ("Adding an agent") exactly as they say: uncomment, replace
    ``ID`` and ``ID_UPPER``."""
    lines = conf.splitlines()
    start = lines.index("#      {")
    end = lines.index("#      }", start)
    block = "\n".join(line.removeprefix("#") for line in lines[start : end + 1])
    block = block.replace("ID_UPPER", agent_id.upper().replace("-", "_")).replace("ID", agent_id)
    assert "users: [\n" in conf, "nats-accounts.conf has no users list"
    return conf.replace("users: [\n", "users: [\n" + block + "\n", 1)


def agent_password_variable(agent_id: str) -> str:
    """The variable the documented agent block reads the agent's password from."""
    return f"HUMANGR_AGENT_{agent_id.upper().replace('-', '_')}_PASSWORD"


def role_env(role: str | None) -> dict[str, str]:
    """The environment of a ``humangr`` subprocess connecting as ``role`` (None: no auth)."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("HUMANGR_") or k == "HUMANGR_HOME"
    }
    env.pop("ANTHROPIC_API_KEY", None)
    if role is not None:
        env["HUMANGR_NATS_USER"] = role
        env["HUMANGR_NATS_PASSWORD"] = password(role)
    return env


@dataclass
class Served:
    """One ``humangr serve`` subprocess, ready (it printed that it serves)."""

    process: Process
    log: Path
    lines: list[str] = field(default_factory=list)
    metrics_url: str | None = None
    killed: bool = False

    async def kill9(self) -> None:
        """``kill -9``: no drain, no cleanup, as a crash."""
        self.killed = True
        self.process.kill()
        with anyio.fail_after(10):
            await self.process.wait()

    def output(self) -> str:
        return "\n".join(self.lines) + "\n" + self.log.read_text(errors="replace")[-4000:]


async def _read_until_serving(served: Served, stream: TextReceiveStream) -> None:
    buffer = ""
    async for chunk in stream:
        buffer += chunk
        while "\n" in buffer:
            line, buffer = buffer.split("\n", 1)
            served.lines.append(line)
            found = re.search(r"metrics on (http://\S+)", line)
            if found:
                served.metrics_url = found.group(1)
            if line.startswith("humangr serving"):
                return
    raise AssertionError(f"humangr serve exited before it was ready:\n{served.output()}")


@dataclass(frozen=True)
class Spec:
    """The arguments of one ``humangr serve`` and the NATS role it connects as."""

    args: tuple[str, ...]
    role: str | None = None


async def _spawn(spec: Spec, log_dir: Path) -> Served:
    log = log_dir / f"serve-{uuid.uuid4().hex[:8]}.log"
    with log.open("wb") as errors:
        process = await anyio.open_process(
            [sys.executable, "-m", "humangr", "serve", *spec.args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=errors,
            env=role_env(spec.role),
            cwd=ROOT,
        )
    return Served(process, log)


async def _ready(served: Served) -> None:
    assert served.process.stdout is not None
    await _read_until_serving(served, TextReceiveStream(served.process.stdout))


@asynccontextmanager
async def serving(
    *specs: Spec, log_dir: Path, ready_timeout: float = 30.0
) -> AsyncIterator[list[Served]]:
    """Run one ``humangr serve`` per spec until the block ends, all started at once.

    On a clean exit each gets SIGTERM and must drain and exit 0 (but those the block killed
    with ``kill9``); in any case none outlives the block (killed if need be).
    """
    running: list[Served] = []
    try:
        for spec in specs:
            running.append(await _spawn(spec, log_dir))
        with anyio.fail_after(ready_timeout):
            async with anyio.create_task_group() as tg:
                for served in running:
                    tg.start_soon(_ready, served)
        yield running
        alive = [served for served in running if not served.killed]
        for served in alive:
            served.process.send_signal(signal.SIGTERM)
        for served in alive:
            with anyio.fail_after(20):
                code = await served.process.wait()
            assert code == 0, f"humangr serve exited with {code}:\n{served.output()}"
    finally:
        for served in running:
            if served.process.returncode is None:
                served.process.kill()
            with anyio.move_on_after(5, shield=True):
                await served.process.wait()
            with anyio.CancelScope(shield=True):
                await served.process.aclose()


def http_get(url: str, timeout: float = 5.0) -> str:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        body: bytes = response.read()
    return body.decode()


async def fetch(url: str) -> str:
    return await anyio.to_thread.run_sync(http_get, url)


Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def parse_exposition(text: str) -> Samples:
    """A /metrics page parsed by Prometheus's text parser: (name, labels) → value."""
    from prometheus_client.parser import text_string_to_metric_families

    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def total(samples: Samples, name: str, **labels: str) -> float:
    """The sum of ``name`` over the series that carry ``labels`` (prefix ``~`` = startswith)."""

    def fits(label_set: frozenset[tuple[str, str]]) -> bool:
        have = dict(label_set)
        for key, want in labels.items():
            value = have.get(key)
            if value is None:
                return False
            if want.startswith("~") and not value.startswith(want[1:]):
                return False
            if not want.startswith("~") and value != want:
                return False
        return True

    return sum(v for (n, label_set), v in samples.items() if n == name and fits(label_set))
