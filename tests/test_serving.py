"""The one uvicorn embedding (``humangr.serving``): readiness through ``tg.start`` with the bound
port (port 0 works), a taken port is a ``ConfigError``, and cancelling stops the server — even
one holding an endless response — within its grace period, closing the port."""

from __future__ import annotations

import socket
import time
from collections.abc import Awaitable, Callable, MutableMapping
from functools import partial
from typing import Any

import anyio
import pytest

from humangr.contracts.errors import ConfigError
from humangr.serving import listen, serve_asgi

pytestmark = pytest.mark.anyio

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    assert scope["type"] == "http"
    headers = [(b"content-type", b"text/plain")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    if scope["path"] == "/endless":
        while True:
            await send({"type": "http.response.body", "body": b"x", "more_body": True})
            await anyio.sleep(0.05)
    await send({"type": "http.response.body", "body": b"hello"})


async def get(port: int, path: str) -> bytes:
    async with await anyio.connect_tcp("127.0.0.1", port) as stream:
        await stream.send(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        chunks = []
        with anyio.fail_after(5):
            while True:
                try:
                    chunks.append(await stream.receive())
                except anyio.EndOfStream:
                    return b"".join(chunks)


async def test_it_serves_on_a_free_port_and_closes_it_when_cancelled() -> None:
    async with anyio.create_task_group() as tg:
        port = await tg.start(serve_asgi, app, listen("127.0.0.1", 0))
        assert port > 0
        response = await get(port, "/")
        assert response.startswith(b"HTTP/1.1 200 OK")
        assert b"\r\nhello\r\n" in response
        tg.cancel_scope.cancel()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


async def test_an_endless_response_does_not_hold_the_shutdown_past_the_grace() -> None:
    async with anyio.create_task_group() as tg:
        port = await tg.start(partial(serve_asgi, app, listen("127.0.0.1", 0), grace_s=1.0))
        async with await anyio.connect_tcp("127.0.0.1", port) as stream:
            await stream.send(b"GET /endless HTTP/1.1\r\nHost: x\r\n\r\n")
            assert b"200 OK" in await stream.receive()
            started = time.monotonic()
            tg.cancel_scope.cancel()
    assert time.monotonic() - started < 5


def test_a_taken_port_is_a_config_error_naming_it() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ConfigError, match=f"cannot serve the thing on 127.0.0.1:{port}"):
            listen("127.0.0.1", port, "the thing")
    with pytest.raises(ConfigError, match="out of range"):
        listen("127.0.0.1", 70_000)
