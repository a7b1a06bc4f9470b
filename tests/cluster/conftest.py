"""A three-node NATS cluster on loopback, started once per test module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from humangr.testing.nats_cluster import NatsCluster


@pytest.fixture(scope="module")
def cluster() -> Iterator[NatsCluster]:
    """Three routed nats-server nodes with JetStream, a meta leader elected."""
    with NatsCluster(3) as started:
        yield started
