"""Fixtures of the deployment tests: a nats-server started with deploy/nats-server.conf."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from deploy_helpers import DEPLOY, env_example

from humangr.standins.nats_server import NatsServer


@pytest.fixture(scope="module")
def secured_nats() -> Iterator[NatsServer]:
    """A real nats-server started with deploy/nats-server.conf, its passwords from the
    environment as in production (the values of deploy/.env.example)."""
    with pytest.MonkeyPatch.context() as env:
        for name, value in env_example().items():
            env.setenv(name, value)
        server = NatsServer(jetstream=True, config_file=DEPLOY / "nats-server.conf").start()
    try:
        yield server
    finally:
        server.stop()
