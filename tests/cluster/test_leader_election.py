"""Issue 24 item 3, what the chaos test found: while a stream's leader is being elected (its
node died), a durable publish and a consumer's creation get no answer for a few seconds. They
wait for the stream (bounded) instead of failing at once: a failure there made each Supervisor
handler fail, burnt the five deliveries of every action in flight in under a second and
dead-lettered them all, and made a Supervisor starting during the election exit."""

from __future__ import annotations

import os
import signal
import uuid

import anyio
import pytest

from humangr.contracts import Subjects
from humangr.engine.bus.jetstream import JetStreamConfig, stream_names
from humangr.engine.bus.nats import LEADER_WAIT, NatsBus
from humangr.testing.nats_cluster import NatsCluster

pytestmark = [pytest.mark.anyio, pytest.mark.nats, pytest.mark.cluster]


def kill_9(cluster: NatsCluster, index: int) -> None:
    node = cluster.nodes[index]
    process = node._process
    assert process is not None
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=10)
    node.kill()


async def test_a_publish_during_the_leader_election_waits_and_is_stored(
    cluster: NatsCluster,
) -> None:
    subjects = Subjects(prefix=f"le{uuid.uuid4().hex[:10]}")
    work, _ = stream_names(subjects)
    config = JetStreamConfig(replicas=3, storage="file")
    probe = await NatsBus.connect(cluster.seeds)
    bus = None
    victim = -1
    try:
        setup = await NatsBus.connect(cluster.seeds, jetstream=config, subjects=subjects)
        await setup.close()
        js = probe.client.jetstream()
        info = await js.stream_info(work)
        assert info.cluster is not None
        assert info.cluster.leader
        victim = int(info.cluster.leader.removeprefix("n")) - 1
        survivor = cluster.urls[(victim + 1) % 3]
        bus = await NatsBus.connect(survivor, jetstream=config, subjects=subjects)
        probe_on_survivor = await NatsBus.connect(survivor)
        await probe.close()
        probe = probe_on_survivor
        js = probe.client.jetstream()
        await anyio.to_thread.run_sync(kill_9, cluster, victim)
        started = anyio.current_time()
        with anyio.fail_after(LEADER_WAIT + 5):
            for n in range(5):  # the first ones land in the election
                await bus.publish(subjects.work_order, f"order {n}".encode())
        waited = anyio.current_time() - started
        info = await js.stream_info(work)
        assert info.state.messages == 5, "every publish that returned is stored"
        assert info.cluster is not None
        assert info.cluster.leader != f"n{victim + 1}"
        print(f"\nstored 5 publishes {waited:.2f}s after the stream leader was killed")
    finally:
        if bus is not None:
            await bus.close()
        await probe.close()
        if victim >= 0:
            await anyio.to_thread.run_sync(cluster.start_node, victim)
