"""A process never changes the replica count of the streams and buckets that exist: one with
another setting refuses to start, naming them, and leaves them as they are; an operator's
``--update-streams`` changes them."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator

import anyio
import pytest
from nats.js import JetStreamContext

from humangr.contracts import Subjects
from humangr.engine.bus.jetstream import JetStreamConfig, stream_names
from humangr.engine.bus.nats import NatsBus
from humangr.engine.errors import ConfigError, ReplicaMismatch
from humangr.engine.state.kv import KeyValueStateStore
from humangr.testing.nats_cluster import NatsCluster

pytestmark = [pytest.mark.anyio, pytest.mark.nats]


@pytest.fixture
async def js(cluster: NatsCluster) -> AsyncIterator[JetStreamContext]:
    """JetStream on the cluster, to read the streams back as an operator would (a new
    three-replica bucket elects its leader before its first write is acknowledged: on a busy
    machine that takes longer than nats-py's default five seconds)."""
    bus = await NatsBus.connect(cluster.urls)
    try:
        yield bus.client.jetstream(timeout=30)
    finally:
        await bus.close()


def _prefix() -> str:
    return f"rp{uuid.uuid4().hex[:10]}"


async def _replicas(js: JetStreamContext, stream: str) -> int:
    info = await js.stream_info(stream)
    return int(info.config.num_replicas or 1)


async def _streams_with(cluster: NatsCluster, prefix: str, replicas: int) -> None:
    config = JetStreamConfig(replicas=replicas, storage="memory")
    bus = await NatsBus.connect(cluster.seeds, jetstream=config, subjects=Subjects(prefix))
    await bus.close()


async def test_a_process_set_otherwise_refuses_and_changes_nothing(
    cluster: NatsCluster, js: JetStreamContext
) -> None:
    prefix = _prefix()
    work, events = stream_names(Subjects(prefix))
    await _streams_with(cluster, prefix, 3)
    assert [await _replicas(js, work), await _replicas(js, events)] == [3, 3]
    one = JetStreamConfig(replicas=1, storage="memory")
    with pytest.raises(ReplicaMismatch) as caught:
        await NatsBus.connect(cluster.seeds, jetstream=one, subjects=Subjects(prefix))
    message = str(caught.value)
    assert f"JetStream stream {work} has 3 replica(s)" in message
    assert "this process is set to 1" in message
    assert "--replicas 3" in message
    assert "--update-streams" in message
    assert isinstance(caught.value, ConfigError)
    assert [await _replicas(js, work), await _replicas(js, events)] == [3, 3]
    # the same setting starts, as before
    await _streams_with(cluster, prefix, 3)
    # the operator's explicit change goes through
    update = JetStreamConfig(replicas=1, storage="memory", update_streams=True)
    bus = await NatsBus.connect(cluster.seeds, jetstream=update, subjects=Subjects(prefix))
    await bus.close()
    assert [await _replicas(js, work), await _replicas(js, events)] == [1, 1]


async def test_a_kv_bucket_keeps_its_replicas(js: JetStreamContext) -> None:
    namespace = f"R{uuid.uuid4().hex[:10].upper()}"
    stream = f"KV_{namespace}_decisions"
    three = KeyValueStateStore(js, namespace=namespace, storage="memory", replicas=3)
    bucket = await three.bucket("decisions", ttl=60)
    await bucket.create("k", b"v")
    assert await _replicas(js, stream) == 3
    one = KeyValueStateStore(js, namespace=namespace, storage="memory", replicas=1)
    with pytest.raises(ReplicaMismatch, match=f"KV bucket {namespace}_decisions has 3 replica"):
        await one.bucket("decisions", ttl=60)
    assert await _replicas(js, stream) == 3
    # a process with no setting of its own (a client command) uses the bucket as it is
    unset = KeyValueStateStore(js, namespace=namespace, storage="memory")
    found = await (await unset.bucket("decisions", ttl=60)).get("k")
    assert found is not None
    assert found.value == b"v"
    assert await _replicas(js, stream) == 3
    update = KeyValueStateStore(
        js, namespace=namespace, storage="memory", replicas=1, update_replicas=True
    )
    await update.bucket("decisions", ttl=60)
    assert await _replicas(js, stream) == 1


def _serve(cluster: NatsCluster, prefix: str, *extra: str) -> list[str]:
    """``serve`` with JetStream streams, its state in memory, unless ``extra`` says else."""
    return [
        sys.executable, "-m", "humangr", "serve", "--nats", cluster.seeds, "--prefix", prefix,
        "--jetstream", "--llm", "none", "--state", "memory", "--role", "supervisor", *extra,
    ]  # fmt: skip


def _environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}


async def _starts(command: list[str]) -> None:
    """``command`` prints that it serves; it is stopped then."""
    async with await anyio.open_process(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_environment()
    ) as process:
        assert process.stdout is not None
        seen = b""
        try:
            with anyio.fail_after(60):
                while b"humangr serving" not in seen:
                    seen += await process.stdout.receive()
        finally:
            process.terminate()


async def test_serve_without_the_clusters_setting_refuses_to_start(
    cluster: NatsCluster, js: JetStreamContext
) -> None:
    prefix = _prefix()
    work, events = stream_names(Subjects(prefix))
    await _starts(_serve(cluster, prefix, "--replicas", "3"))
    assert [await _replicas(js, work), await _replicas(js, events)] == [3, 3]
    refused = await anyio.run_process(
        _serve(cluster, prefix), check=False, env=_environment(), stdin=subprocess.DEVNULL
    )
    err = refused.stderr.decode()
    assert refused.returncode == 3, (refused.stdout, err)
    assert "Traceback" not in err
    [line] = [line for line in err.splitlines() if "replica" in line]
    assert f"{work} has 3 replica(s), but this process is set to 1" in line
    assert "humangr serving" not in refused.stdout.decode()
    assert [await _replicas(js, work), await _replicas(js, events)] == [3, 3]
    await _starts(_serve(cluster, prefix, "--update-streams"))
    assert [await _replicas(js, work), await _replicas(js, events)] == [1, 1]


async def test_serve_refuses_kv_buckets_of_another_replica_count(
    cluster: NatsCluster, js: JetStreamContext
) -> None:
    prefix = _prefix()
    kv = ["--state", "kv"]  # wins over _serve's memory: the last --state counts
    await _starts([*_serve(cluster, prefix, "--replicas", "3"), *kv])
    namespace = prefix.upper()
    buckets = [
        name
        for name in [info.config.name for info in await js.streams_info()]
        if name and name.startswith(f"KV_{namespace}_")
    ]
    assert buckets
    core = [arg for arg in _serve(cluster, prefix, "--replicas", "1") if arg != "--jetstream"]
    refused = await anyio.run_process(
        [*core, *kv],
        check=False,
        env=_environment(),
        stdin=subprocess.DEVNULL,
    )
    err = refused.stderr.decode()
    assert refused.returncode != 0
    assert "Traceback" not in err
    [line] = [line for line in err.splitlines() if "replica" in line]
    assert f"KV bucket {namespace}_" in line
    assert "has 3 replica(s), but this process is set to 1" in line
    for stream in buckets:
        assert await _replicas(js, stream) == 3
