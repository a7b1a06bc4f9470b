"""``NatsCluster``: several ``nats-server`` processes on loopback routed into one JetStream
cluster, for tests of seed URLs, failover and replicated streams.

Each node is a ``NatsServer`` (free client port, JetStream in its own temp dir) with a distinct
``server_name``, a cluster port of its own and routes to every other node; ``start()`` returns
once every node agrees on a JetStream meta leader and the leader sees every peer current.
``stop_node(i)`` kills one node (its port and data kept) and waits for a leader among the
others; ``start_node(i)`` brings it back.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from types import TracebackType
from typing import Any

from humangr.standins.nats_server import NatsServer, NatsServerError, free_port

__all__ = ["NatsCluster"]


class NatsCluster:
    """``size`` routed ``nats-server`` nodes with JetStream on 127.0.0.1.

    ``urls`` are the client URLs of the nodes; ``seeds`` is them comma-separated, as
    ``--nats`` takes them. Use as a context manager or call ``start()``/``stop()``.
    """

    def __init__(
        self,
        size: int = 3,
        *,
        name: str = "humangr-test",
        binary: str | None = None,
        ready_timeout: float = 30.0,
    ) -> None:
        if not 1 <= size <= 9:
            raise NatsServerError(f"a test cluster has 1 to 9 nodes, not {size}")
        self.size = size
        self.name = name
        self.binary = binary
        self.ready_timeout = ready_timeout
        self.nodes: list[NatsServer] = []
        self._monitor: list[int] = []

    @property
    def urls(self) -> list[str]:
        """The client URL of every node (stopped ones too)."""
        return [node.url for node in self.nodes]

    @property
    def seeds(self) -> str:
        """The client URLs, comma-separated (``nats://127.0.0.1:A,nats://127.0.0.1:B,…``)."""
        return ",".join(self.urls)

    def start(self) -> NatsCluster:
        """Start every node and wait until the cluster has a JetStream meta leader that sees
        every peer current."""
        if self.nodes:
            return self
        routes = [free_port() for _ in range(self.size)]
        self._monitor = [free_port() for _ in range(self.size)]
        all_routes = ",".join(f"nats://127.0.0.1:{port}" for port in routes)
        try:
            for index in range(self.size):
                args = (
                    "--server_name", f"n{index + 1}",
                    "--cluster_name", self.name,
                    "--cluster", f"nats://127.0.0.1:{routes[index]}",
                    "--routes", all_routes,
                    "-m", str(self._monitor[index]),
                )  # fmt: skip
                node = NatsServer(jetstream=True, binary=self.binary, extra_args=args)
                self.nodes.append(node)
                node.start()
            self.wait_ready(peers=self.size)
        except BaseException:
            self.stop()
            raise
        return self

    def stop_node(self, index: int) -> None:
        """Kill node ``index`` (keeping its port and data) and wait for a meta leader among
        the others."""
        self.nodes[index].kill()
        self.wait_ready(peers=None)

    def start_node(self, index: int) -> None:
        """Start node ``index`` again and wait until the leader sees every peer current."""
        self.nodes[index].start()
        self.wait_ready(peers=self.size)

    def wait_ready(self, *, peers: int | None) -> None:
        """Wait until every running node names the same meta leader (and, with ``peers``, the
        leader sees ``peers`` servers, all current)."""
        deadline = time.monotonic() + self.ready_timeout
        last: object = None
        while time.monotonic() < deadline:
            last = self._state(peers)
            if last is True:
                return
            time.sleep(0.1)
        logs = "\n".join(f"--- n{i + 1}:\n{n.output()[-1500:]}" for i, n in enumerate(self.nodes))
        raise NatsServerError(
            f"the NATS cluster had no JetStream meta leader within {self.ready_timeout:g}s "
            f"(last seen: {last}); the nodes' output:\n{logs}"
        )

    def _state(self, peers: int | None) -> object:
        leaders = set()
        running = [i for i, node in enumerate(self.nodes) if node.running]
        if not running:
            return "no node running"
        meta: dict[str, Any] = {}
        for index in running:
            meta = self._jsz(index).get("meta_cluster") or {}
            leaders.add(meta.get("leader") or "")
        if len(leaders) != 1 or "" in leaders:
            return f"leaders {sorted(leaders)}"
        [leader] = leaders
        index = int(leader.removeprefix("n")) - 1 if leader[1:].isdigit() else -1
        if index not in running:
            return f"leader {leader} is not running"
        if peers is None:
            return True
        replicas = (self._jsz(index).get("meta_cluster") or {}).get("replicas") or []
        current = [r for r in replicas if r.get("current") and not r.get("offline")]
        return True if len(current) == peers - 1 else f"{len(current) + 1} of {peers} current"

    def _jsz(self, index: int) -> dict[str, Any]:
        url = f"http://127.0.0.1:{self._monitor[index]}/jsz"
        try:
            with urllib.request.urlopen(url, timeout=1.0) as answer:
                found = json.loads(answer.read())
        except (OSError, ValueError, urllib.error.URLError):
            return {}
        return found if isinstance(found, dict) else {}

    def stop(self) -> None:
        """Stop every node and remove their temp dirs."""
        nodes, self.nodes = self.nodes, []
        for node in nodes:
            node.stop()

    def __enter__(self) -> NatsCluster:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
