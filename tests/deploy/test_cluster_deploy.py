"""Issue 24 item 1: deploy/'s three-node cluster. The compose file parses, mounts configs that
exist and runs the Supervisor and the layer workers at ``--replicas 3`` on all three nodes;
the single server and the cluster share one accounts file and fsync before every ack; and the
three node configs, rewritten onto loopback ports in a temp copy, start as a real JetStream
cluster that keeps the engine's streams at three replicas with the deploy users."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from deploy_helpers import DEPLOY, env_example, password
from test_deploy_files import load_yaml

from humangr.contracts import Subjects
from humangr.engine.bus.jetstream import JetStreamConfig, stream_names
from humangr.engine.bus.nats import NatsBus
from humangr.engine.bus.subject import inbox_prefix_for
from humangr.standins.nats_server import NatsServer, free_port

CLUSTER = DEPLOY / "cluster"
NODES = ("nats-1", "nats-2", "nats-3")


def cluster_compose() -> dict[str, Any]:
    loaded: dict[str, Any] = load_yaml(DEPLOY / "docker-compose.cluster.yml")
    return loaded


def uncommented(path: Path) -> str:
    return "\n".join(
        line for line in path.read_text().splitlines() if not line.strip().startswith("#")
    )


def test_single_server_and_cluster_share_one_accounts_file_and_fsync_always() -> None:
    assert "accounts {" not in uncommented(DEPLOY / "nats-server.conf")
    assert "include ./nats-accounts.conf" in uncommented(DEPLOY / "nats-server.conf")
    shared = uncommented(CLUSTER / "nats-cluster.conf")
    assert "include ../nats-accounts.conf" in shared
    assert "accounts {" not in shared
    for conf in (DEPLOY / "nats-server.conf", CLUSTER / "nats-cluster.conf"):
        assert re.search(r"^\s*sync_interval:\s*always\s*$", uncommented(conf), re.M), conf
        assert "jepsen.io/analyses/nats-2.12.1" in conf.read_text(), f"{conf}: say why"
    names = set()
    for node in NODES:
        text = uncommented(CLUSTER / f"{node}.conf")
        assert "include ./nats-cluster.conf" in text
        found = re.search(r"server_name:\s*(\S+)", text)
        assert found is not None, node
        names.add(found.group(1))
        assert f"nats-route://{node}:6222" in shared, f"{node} is not a route of the others"
    assert names == set(NODES)


def test_cluster_compose_runs_three_nodes_and_replicas_3() -> None:
    services = cluster_compose()["services"]
    assert set(NODES) | {"supervisor", "layers"} <= set(services)
    documented = env_example()
    referenced = set(
        re.findall(r"\$(HUMANGR_[A-Z_]+_PASSWORD)", uncommented(DEPLOY / "nats-accounts.conf"))
    )
    for node in NODES:
        service = services[node]
        config = service["command"][service["command"].index("-c") + 1]
        mounts = {
            target: source for source, target, *_ in (v.split(":") for v in service["volumes"])
        }
        # the config the node runs with, its include and the accounts all come from deploy/
        assert config == f"/etc/nats/cluster/{node}.conf"
        assert (DEPLOY / mounts["/etc/nats/cluster"] / f"{node}.conf").is_file()
        assert (DEPLOY / mounts["/etc/nats/cluster"] / "nats-cluster.conf").is_file()
        assert (DEPLOY / mounts["/etc/nats/nats-accounts.conf"]).resolve() == (
            DEPLOY / "nats-accounts.conf"
        )
        assert referenced <= set(service["environment"]), f"{node} lacks a password"
    seeds = ",".join(f"nats://{node}:4222" for node in NODES)
    for name in ("supervisor", "layers"):
        command = services[name]["command"]
        assert command[command.index("--replicas") + 1] == "3", name
        assert "--jetstream" in command, name
        assert command[command.index("--nats") + 1] == seeds, name
        assert set(services[name]["depends_on"]) == set(NODES), name
    text = (DEPLOY / "docker-compose.cluster.yml").read_text()
    for variable in re.findall(r"\$\{([A-Z_]+)", text):
        assert variable in documented, f"{variable} is not in .env.example"


def _jsz(port: int) -> dict[str, Any]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/jsz", timeout=1.0) as answer:
            found = json.loads(answer.read())
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _one_leader_sees_all(monitors: list[int]) -> bool:
    metas = [_jsz(port).get("meta_cluster") or {} for port in monitors]
    leaders = {meta.get("leader") for meta in metas}
    if len(leaders) != 1 or None in leaders or "" in leaders:
        return False
    return all(int(meta.get("cluster_size") or 0) == len(NODES) for meta in metas)


def _rewrite(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"expected {old!r} once in nats-cluster.conf"
    return text.replace(old, new)


@pytest.fixture(scope="module")
def deployed_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[NatsServer]]:
    """deploy/cluster's three configs, each in a temp copy of deploy/'s layout with its ports,
    route URLs and store moved onto loopback, started as three nats-server processes."""
    routes = [free_port() for _ in NODES]
    monitors = [free_port() for _ in NODES]
    servers: list[NatsServer] = []
    with pytest.MonkeyPatch.context() as env:
        for name, value in env_example().items():
            env.setenv(name, value)
        try:
            for index, node in enumerate(NODES):
                root = tmp_path_factory.mktemp(node)
                (root / "cluster").mkdir()
                (root / "nats-accounts.conf").write_text(
                    (DEPLOY / "nats-accounts.conf").read_text()
                )
                conf = root / "cluster" / f"{node}.conf"
                conf.write_text((CLUSTER / f"{node}.conf").read_text())
                shared = (CLUSTER / "nats-cluster.conf").read_text()
                shared = _rewrite(shared, "http_port: 8222", f"http_port: {monitors[index]}")
                shared = _rewrite(shared, "store_dir: /data", f'store_dir: "{root / "data"}"')
                shared = _rewrite(shared, "0.0.0.0:6222", f"127.0.0.1:{routes[index]}")
                for other, port in zip(NODES, routes, strict=True):
                    shared = _rewrite(shared, f"//{other}:6222", f"//127.0.0.1:{port}")
                (root / "cluster" / "nats-cluster.conf").write_text(shared)
                servers.append(NatsServer(jetstream=False, config_file=conf).start())
            deadline = time.monotonic() + 30
            while not _one_leader_sees_all(monitors):
                assert time.monotonic() < deadline, "deploy/cluster formed no JetStream cluster"
                time.sleep(0.1)
            yield servers
        finally:
            for server in servers:
                server.stop()


@pytest.mark.nats
@pytest.mark.anyio
async def test_the_deploy_cluster_keeps_the_streams_at_three_replicas(
    deployed_cluster: list[NatsServer],
) -> None:
    seeds = ",".join(server.url for server in deployed_cluster)
    subjects = Subjects()
    supervisor = await NatsBus.connect(
        seeds,
        user="supervisor",
        password=password("supervisor"),
        inbox_prefix=inbox_prefix_for("supervisor"),
        jetstream=JetStreamConfig(replicas=3),
        subjects=subjects,
        connect_timeout=5.0,
    )
    try:
        js = supervisor.client.jetstream()
        for stream in stream_names(subjects):
            info = await js.stream_info(stream)
            assert info.config.num_replicas == 3, stream
            assert info.cluster is not None
            assert info.cluster.leader in NODES
            assert len(info.cluster.replicas or []) == 2, stream
    finally:
        await supervisor.close()
