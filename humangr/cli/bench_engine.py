"""The engine bench (``humangr bench`` without a mode flag): decisions per second of the full
Supervisor and seven layers with an instant scripted LLM (or the local checks alone), beside the
raw bus's own round trip and publish rate measured in the same run, and the process's resident
memory after each round."""

from __future__ import annotations

import contextlib
import dataclasses
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
from anyio.abc import Process

from humangr.actors.roles import Engine, run_engine
from humangr.contracts import ActionContext, Subjects
from humangr.engine.actor import SupervisionPolicy
from humangr.engine.bus import Bus, Headers, MemoryBus, Msg, Subscription
from humangr.engine.config import ReviewConfig
from humangr.engine.errors import ConfigError
from humangr.engine.llm import ScriptedLLM
from humangr.engine.policy import parse_policy
from humangr.engine.signing import write_new_key

from .common import wait_serving

__all__ = ["CountingBus", "bench_bus", "ceiling_share", "new_prefix", "open_bench_bus", "rss_mb"]

DIFF = """--- a/app/x.py
+++ b/app/x.py
@@ -1,2 +1,2 @@
-def f(a): return a+1
+def increment(value: int) -> int:
+    return value + 1
"""


DENY_POLICY = b'[[rule]]\nid = "bench-deny"\neffect = "deny"\naction_types = ["code_diff"]\n'
"""``bench --policy-deny``: one rule that settles every bench action (a code diff)."""


def _action(index: int) -> ActionContext:
    """A distinct action per submission, so no per-action cache makes later ones free."""
    return ActionContext(
        agent_id="bench",
        action_type="code_diff",
        action_description=f"bench action {index}: rename a helper",
        code_diff=DIFF.replace("value + 1", f"value + {index + 2}"),
    )


class CountingBus:
    """A ``Bus`` that counts what is published through it (it delegates everything)."""

    def __init__(self, inner: Bus) -> None:
        self.inner = inner
        self.published = 0

    async def publish(
        self, subject: str, data: bytes, *, headers: Headers | None = None, reply: str | None = None
    ) -> None:
        if not subject.endswith(".workers.heartbeat"):  # a worker's, no decision's
            self.published += 1
        await self.inner.publish(subject, data, headers=headers, reply=reply)

    def subscribe(
        self, subject: str, *, queue: str | None = None, max_pending: int = 65_536
    ) -> AbstractAsyncContextManager[Subscription]:
        return self.inner.subscribe(subject, queue=queue, max_pending=max_pending)

    async def request(
        self, subject: str, data: bytes, *, headers: Headers | None = None, timeout: float = 5.0
    ) -> Msg:
        self.published += 1
        return await self.inner.request(subject, data, headers=headers, timeout=timeout)

    async def flush(self, timeout: float = 5.0) -> None:
        await self.inner.flush(timeout)

    async def close(self) -> None:
        await self.inner.close()


async def _roundtrip_us(bus: Bus, prefix: str, count: int) -> float:
    subject = f"{prefix}.bench.echo"
    samples: list[float] = []
    async with bus.subscribe(subject) as sub, anyio.create_task_group() as tg:

        async def echo() -> None:
            async for msg in sub:
                if msg.reply:
                    await bus.publish(msg.reply, msg.data)

        tg.start_soon(echo)
        await bus.flush()
        for _ in range(count):
            started = time.perf_counter()
            await bus.request(subject, b"ping", timeout=5)
            samples.append(time.perf_counter() - started)
        tg.cancel_scope.cancel()
    return statistics.median(samples) * 1e6


async def _publish_rate(bus: Bus, prefix: str, count: int) -> float:
    subject = f"{prefix}.bench.flood"
    async with bus.subscribe(subject, max_pending=count + 1) as sub:
        await bus.flush()
        started = time.perf_counter()
        async with anyio.create_task_group() as tg:

            async def drain() -> None:
                received = 0
                async for _ in sub:
                    received += 1
                    if received == count:
                        return

            tg.start_soon(drain)
            payload = b"x" * 256
            for index in range(count):
                await bus.publish(subject, payload)
                if index % 512 == 0:
                    await anyio.lowlevel.checkpoint()
        return count / (time.perf_counter() - started)


def ceiling_share(decisions_per_s: float, messages_per_decision: float, bus_rate: float) -> float:
    """The share of the raw bus's message rate the decisions used, to three significant
    figures, so that a slow run's small share is reported, never rounded to zero."""
    return float(f"{decisions_per_s * max(messages_per_decision, 1.0) / bus_rate:.3g}")


def durable(bus: Bus) -> bool:
    """Whether ``bus`` keeps its work in JetStream streams."""
    return getattr(bus, "jetstream", None) is not None


def new_prefix() -> str:
    """A subject prefix of its own for one bench (streams and queue groups start empty)."""
    return f"bench{time.monotonic_ns() % 10**9}"


def rss_mb() -> float | None:
    """This process's resident memory now, in MB (Linux's ``/proc``; ``None`` elsewhere)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


async def bench_bus(
    bus: Bus,
    *,
    actions: int,
    concurrency: int,
    layer_processes: int = 0,
    nats_url: str | None = None,
    rounds: int = 1,
    local_only: bool = False,
    policy_deny: bool = False,
    prefix: str | None = None,
) -> dict[str, Any]:
    """Decisions per second and overhead of the full engine on ``bus``, with the raw bus.

    With ``layer_processes`` (NATS only) the layers run in that many ``humangr serve --role
    layers`` processes and only the Supervisor runs here. ``rounds`` runs the ``actions`` that
    many times on the same engine (every action distinct) and reports each round's figures
    with the resident memory after it; the result's top-level figures are the last round's.
    ``local_only`` runs no LLM: the local checks decide alone, with no layer task.
    ``policy_deny`` adds a policy whose one rule denies every bench action: each decision is
    settled by that rule, with no local check, layer task or LLM call.
    """
    prefix = prefix or new_prefix()
    roundtrip = await _roundtrip_us(bus, prefix, 500)
    rate = await _publish_rate(bus, prefix, 20_000)
    counting = CountingBus(bus)
    llm = None if local_only else ScriptedLLM.from_lines([{"match": {}, "json": {"findings": []}}])
    config = ReviewConfig(layer_deadline_s=60)
    if policy_deny:
        config = dataclasses.replace(config, rules=parse_policy(DENY_POLICY))
    roles = ("supervisor",) if layer_processes else ("supervisor", "layers")
    figures: list[dict[str, Any]] = []
    async with (
        _layer_workers(layer_processes, nats_url, prefix, durable(bus)) as workers,
        run_engine(
            bus=counting,
            llm=llm,
            config=config,
            subjects=Subjects(prefix),
            policy=SupervisionPolicy(drain_timeout=5),
            roles=roles,
            trusted_workers=workers,
        ) as engine,
    ):
        await engine.submit(_action(-1), timeout=30)
        for round_ in range(rounds):
            first = round_ * actions
            figures.append(
                await _round(engine, counting, first, actions, concurrency, layer_processes)
            )
    last = figures[-1]
    per_decision = last["messages_per_decision"]
    result = {
        **last,
        "local_only": local_only,
        "policy_deny": policy_deny,
        "bus_roundtrip_us": round(roundtrip, 1),
        "bus_msgs_per_s": round(rate, 0),
        "ceiling_share": ceiling_share(last["decisions_per_s"], per_decision, rate),
    }
    if rounds > 1:
        result["rounds"] = figures
    return result


async def _round(
    engine: Engine,
    counting: CountingBus,
    first: int,
    actions: int,
    concurrency: int,
    layer_processes: int,
) -> dict[str, Any]:
    """One round of ``actions`` distinct actions (numbered from ``first``) on ``engine``."""
    counting.published = 0
    latencies: list[float] = []
    outcomes: dict[str, int] = {}
    supervisor = engine.system.stats("supervisor")
    roster = next(a for a in engine.system.actors if a.name == "supervisor")
    handled_before = supervisor.handled - getattr(roster, "heartbeats_heard", 0)
    limiter = anyio.Semaphore(concurrency)
    started = time.perf_counter()

    async def one(index: int) -> None:
        async with limiter:
            t0 = time.perf_counter()
            report = await engine.submit(_action(index), timeout=60)
            latencies.append(time.perf_counter() - t0)
            outcomes[report.outcome.value] = outcomes.get(report.outcome.value, 0) + 1

    async with anyio.create_task_group() as tg:
        for index in range(first, first + actions):
            tg.start_soon(one, index)
    elapsed = time.perf_counter() - started
    # the Supervisor handles each submission and each layer report once (and the workers'
    # heartbeats, which are no decision's); the reports that worker processes published are
    # those beyond the submissions
    handled = supervisor.handled - getattr(roster, "heartbeats_heard", 0)
    remote = handled - handled_before - actions if layer_processes else 0
    latencies.sort()
    return {
        "decisions_per_s": round(actions / elapsed, 1),
        "p50_ms": round(latencies[len(latencies) // 2] * 1000, 2),
        "p99_ms": round(latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000, 2),
        "messages_per_decision": round((counting.published + remote) / actions, 1),
        "rss_mb": rss_mb(),
        "outcomes": dict(sorted(outcomes.items())),
    }


@asynccontextmanager
async def _layer_workers(
    count: int, nats_url: str | None, prefix: str, jetstream: bool = False
) -> AsyncIterator[tuple[str, ...]]:
    """``count`` layer-worker processes on ``nats_url``, ready (subscribed) on entry; yields
    the public key they sign their reports with (a new key, for the Supervisor to trust)."""
    if not count:
        yield ()
        return
    if nats_url is None:
        raise ConfigError("layer worker processes need a NATS bus")
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "instant.jsonl"
        script.write_text('{"match": {}, "json": {"findings": []}}\n')
        worker_key = write_new_key(Path(tmp) / "worker.seed")
        command = [
            sys.executable,
            "-m",
            "humangr.cli.main",
            "serve",
            "--role",
            "layers",
            "--nats",
            nats_url,
            "--prefix",
            prefix,
            "--llm",
            f"scripted:{script}",
            "--worker-key",
            str(Path(tmp) / "worker.seed"),
            *(["--jetstream"] if jetstream else []),
        ]
        async with AsyncExitStack() as stack:
            for _ in range(count):
                process = await stack.enter_async_context(
                    await anyio.open_process(command, stdout=subprocess.PIPE)
                )
                stack.push_async_callback(_stop, process)
                await wait_serving(process, 30, "layer worker")
            yield (worker_key.public_key,)


async def _stop(process: Process) -> None:
    if process.returncode is None:
        process.terminate()
        with anyio.move_on_after(10, shield=True):
            await process.wait()


@asynccontextmanager
async def open_bench_bus(
    kind: str, url: str | None, prefix: str
) -> AsyncIterator[tuple[Bus, str | None]]:
    """The bus of one bench: ``memory``, ``nats`` (core) or ``jetstream`` (work queues, file
    storage as deployed; its streams are made for ``prefix``), on ``url`` or on a nats-server
    started for the bench; yields the bus and the URL (``None`` for memory)."""
    if kind == "memory":
        async with MemoryBus() as bus:
            yield bus, None
        return
    from humangr.engine.bus.jetstream import JetStreamConfig
    from humangr.engine.bus.nats import NatsBus
    from humangr.standins.nats_server import NatsServer

    durable = JetStreamConfig() if kind == "jetstream" else None
    with contextlib.ExitStack() as stack:
        if url is None:
            url = stack.enter_context(NatsServer(jetstream=durable is not None)).url
        nats = await NatsBus.connect(url, jetstream=durable, subjects=Subjects(prefix))
        try:
            yield nats, url
        finally:
            await nats.close()
