"""Issue 24 item 3: chaos on a three-node NATS cluster. A Supervisor and two layer workers
(``humangr serve``, real processes) at ``--replicas 3``; 60 actions are submitted while the
WORK stream's leader node and then the Supervisor are ``kill -9``ed and restarted. Every action
gets exactly one decision (a subscriber counts them; a copy seen twice is byte-identical, and
the EVENTS stream holds each once), every pending review survives and is resolved once.

The figures it measures (decisions per second, time until a submission is stored again after
the leader died) are printed; run with ``-s`` to see them.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import nats.errors
import nats.js.errors
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "deploy"))
from deploy_helpers import Served, Spec, serving

from humangr.contracts import (
    ActionContext,
    ActionSubmitted,
    HumanLayerReport,
    Outcome,
    ReviewListing,
    ReviewQuery,
    ReviewResolution,
    Subjects,
    decode,
    encode,
)
from humangr.engine.bus.jetstream import stream_names
from humangr.engine.bus.nats import NatsBus
from humangr.engine.review import action_hash
from humangr.engine.signing import load_signing_key, verify_decision
from humangr.testing.nats_cluster import NatsCluster

pytestmark = [pytest.mark.anyio, pytest.mark.nats, pytest.mark.cluster]

S = Subjects()
WORK, EVENTS = stream_names(S)
ACTIONS = 60
SWALLOWED = """\
diff --git a/app/util.py b/app/util.py
--- a/app/util.py
+++ b/app/util.py
@@ -1,2 +1,7 @@
 import json
+
+
+def load(text: str) -> object:
+    try:
+        return json.loads(text)
+    except:
+        pass
"""


def submission(n: int) -> ActionSubmitted:
    """Every sixth action has a bare ``except`` (a human's review); the rest are clean."""
    diff = SWALLOWED if n % 6 == 0 else SWALLOWED.replace("    except:\n+        pass", "")
    action = ActionContext(
        agent_id="agent",
        action_type="code_diff",
        action_description=f"load json, variant {n}",
        code_diff=diff + f"+# variant {n}\n",
    )
    return ActionSubmitted(
        action_id=f"act-c{n:03d}", action=action, action_hash=action_hash(action)
    )


class Heard:
    """Every decision a plain core subscriber receives, raw."""

    def __init__(self) -> None:
        self.raw: dict[str, list[bytes]] = defaultdict(list)
        self.changed = anyio.Event()

    def decided(self) -> set[str]:
        return set(self.raw)

    async def until(self, done: Callable[[], bool], timeout: float, what: str) -> None:
        try:
            with anyio.fail_after(timeout):
                while not done():
                    await self.changed.wait()
        except TimeoutError:
            raise AssertionError(f"{what} within {timeout:g}s") from None


@asynccontextmanager
async def heard(bus: NatsBus) -> AsyncIterator[Heard]:
    record = Heard()
    async with bus.subscribe(S.decision("agent")) as sub, anyio.create_task_group() as tg:

        async def collect() -> None:
            async for msg in sub:
                report = decode(msg.data, HumanLayerReport)
                final = ".final" if report.resolved_by else ""
                record.raw[report.action_id + final].append(bytes(msg.data))
                event, record.changed = record.changed, anyio.Event()
                event.set()

        tg.start_soon(collect)
        yield record
        tg.cancel_scope.cancel()


async def submit(bus: NatsBus, n: int, deadline: float) -> float:
    """Publish action ``n`` through JetStream until the stream acknowledges it stored (the way
    a client that must not lose it would); returns when it was stored."""
    js = bus.client.jetstream()
    submitted = submission(n)
    headers = {"Nats-Msg-Id": f"submit:{submitted.action_id}"}
    while True:
        try:
            await js.publish(S.agent_submit("agent"), encode(submitted), timeout=2, headers=headers)
            return time.monotonic()
        except (nats.errors.Error, nats.js.errors.Error, OSError):
            if time.monotonic() > deadline:
                raise
            await anyio.sleep(0.1)


def kill_9(cluster: NatsCluster, index: int) -> None:
    """SIGKILL node ``index``: no shutdown of any kind (the others elect new leaders)."""
    node = cluster.nodes[index]
    process = node._process
    assert process is not None
    assert process.poll() is None
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=10)
    node.kill()  # forget the dead process; the port and data stay for start_node


async def leader_of(bus: NatsBus, stream: str) -> str:
    info = await bus.client.jetstream().stream_info(stream)
    assert info.cluster is not None
    assert info.cluster.leader, f"{stream} has no leader"
    return info.cluster.leader


async def pending(bus: NatsBus) -> ReviewListing:
    reply = await bus.request(S.review_query, encode(ReviewQuery()), timeout=10)
    return decode(reply.data, ReviewListing)


async def until_pending(bus: NatsBus, wanted: list[str], deadline: float) -> None:
    """Wait until the pending reviews are exactly ``wanted`` (a review is opened, and closed,
    just after its decision is published: a listing may trail the decisions for a moment)."""
    while True:
        listed = sorted(r.action_id for r in (await pending(bus)).reviews)
        if listed == wanted:
            return
        assert time.monotonic() < deadline, f"pending reviews {listed}, wanted {wanted}"
        await anyio.sleep(0.2)


async def consumers(bus: NatsBus) -> str:
    """The WORK stream's consumers as the cluster sees them (for a failure's message)."""
    js = bus.client.jetstream()
    lines = []
    for info in await js.consumers_info(WORK):
        cluster = info.cluster
        lines.append(
            f"{info.name}: pending {info.num_pending}, ack pending {info.num_ack_pending}, "
            f"redelivered {info.num_redelivered}, leader "
            f"{cluster.leader if cluster else '?'}, replicas {info.config.num_replicas}"
        )
    return "\n".join(lines)


async def stored_decisions(bus: NatsBus) -> dict[str, list[bytes]]:
    """Every decision the EVENTS stream holds, by action id (``.final`` for a human's)."""
    js = bus.client.jetstream()
    found: dict[str, list[bytes]] = defaultdict(list)
    seq = 1
    while True:
        try:
            msg = await js.get_msg(EVENTS, seq=seq, subject=S.decision("agent"), next=True)
        except nats.js.errors.NotFoundError:
            return found
        report = decode(msg.data or b"", HumanLayerReport)
        found[report.action_id + (".final" if report.resolved_by else "")].append(msg.data or b"")
        assert msg.seq is not None
        seq = msg.seq + 1


def serve(role: str, seeds: str, llm: Path) -> Spec:
    return Spec(
        (
            "--role", role, "--nats", seeds, "--jetstream", "--replicas", "3",
            "--ack-wait", "3", "--llm", f"scripted:{llm}",
        )
    )  # fmt: skip


async def test_leader_and_supervisor_kill_9_lose_and_repeat_nothing(
    cluster: NatsCluster, tmp_path: Path
) -> None:
    script = tmp_path / "llm.jsonl"
    line = {"match": {}, "delay_ms": 50, "json": {"findings": [], "summary": "fine"}}
    script.write_text(json.dumps(line) + "\n")
    seeds = cluster.seeds
    supervisor, layers = serve("supervisor", seeds, script), serve("layers", seeds, script)
    deadline = time.monotonic() + 80
    async with (
        serving(layers, layers, log_dir=tmp_path) as workers,
        serving(supervisor, log_dir=tmp_path) as running,
    ):
        sup: Served = running[0]
        probe = await NatsBus.connect(seeds)
        leader = await leader_of(probe, WORK)
        await probe.close()
        victim = int(leader.removeprefix("n")) - 1
        # the agent and the counting subscriber sit on a node that stays up
        survivor = cluster.urls[(victim + 1) % 3]
        agent = await NatsBus.connect(survivor)
        async with heard(agent) as decisions:
            started = time.monotonic()
            for n in range(20):
                await submit(agent, n, deadline)
            killed = time.monotonic()
            await anyio.to_thread.run_sync(kill_9, cluster, victim)
            stored_again = await submit(agent, 20, deadline)
            for n in range(21, 40):
                await submit(agent, n, deadline)
            new_leader = await leader_of(agent, WORK)
            await anyio.to_thread.run_sync(cluster.start_node, victim)
            await sup.kill9()
            for n in range(40, ACTIONS):  # no Supervisor: they wait in the WORK stream
                await submit(agent, n, deadline)
            restarted = time.monotonic()
            async with serving(supervisor, log_dir=tmp_path) as again:
                try:
                    await decisions.until(
                        lambda: len(decisions.decided()) >= ACTIONS,
                        deadline - time.monotonic(),
                        f"only {len(decisions.decided())} of {ACTIONS} actions were decided",
                    )
                except AssertionError as exc:
                    logs = "\n".join(
                        f"--- {name}:\n{served.output()[-3000:]}"
                        for name, served in (
                            ("supervisor before kill -9", sup),
                            ("supervisor restarted", again[0]),
                            ("layers", workers[0]),
                        )
                    )
                    raise AssertionError(f"{exc}\n{await consumers(agent)}\n{logs}") from None
                all_decided = time.monotonic()
                firsts = {k: decode(v[0], HumanLayerReport) for k, v in decisions.raw.items()}
                reviews = sorted(k for k, r in firsts.items() if r.outcome is Outcome.NEEDS_REVIEW)
                await until_pending(agent, reviews, deadline)
                for action_id in reviews:
                    resolution = ReviewResolution(
                        action_id=action_id,
                        action_hash=firsts[action_id].action_hash,
                        verdict="approve",
                        reviewer="alice",
                        reason="checked by hand: the bare except is intended here",
                    )
                    await agent.publish(S.review_resolve(action_id), encode(resolution))
                await decisions.until(
                    lambda: len(decisions.decided()) >= ACTIONS + len(reviews),
                    deadline - time.monotonic(),
                    "not every pending review was resolved",
                )
                await until_pending(agent, [], deadline)
                stored = await stored_decisions(agent)
        await agent.close()
    wanted = {submission(n).action_id for n in range(ACTIONS)}
    assert set(firsts) == wanted
    assert reviews, "the run must include pending reviews"
    assert set(decisions.raw) == wanted | {f"{a}.final" for a in reviews}
    for key, copies in decisions.raw.items():
        assert len(set(copies)) == 1, f"{key}: {len(set(copies))} different decisions published"
    assert {k: len(v) for k, v in stored.items()} == dict.fromkeys(decisions.raw, 1)
    assert {k: v[0] for k, v in stored.items()} == {k: v[0] for k, v in decisions.raw.items()}
    signer, _ = load_signing_key(create=False)
    for copies in decisions.raw.values():
        verify_decision(decode(copies[0], HumanLayerReport), signer.public_key)
    assert new_leader != leader
    print(
        f"\ncluster chaos: {ACTIONS} actions decided in {all_decided - started:.1f}s "
        f"({ACTIONS / (all_decided - started):.1f} decisions/s on R3, kills and restarts "
        f"included); a submission stored again {stored_again - killed:.2f}s after the WORK "
        f"leader {leader} was killed (new leader {new_leader}); "
        f"the restarted Supervisor decided the rest {all_decided - restarted:.1f}s after its "
        f"start; {len(reviews)} reviews resolved; duplicate copies seen: "
        f"{sum(len(v) - 1 for v in decisions.raw.values())}"
    )
