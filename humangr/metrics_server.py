"""``GET /metrics`` of an injected registry, served by prometheus_client's own WSGI server.

prometheus_client's server (``prometheus_client.exposition``: a threading ``wsgiref`` server)
is in the core install, so ``serve --metrics-port`` works without the ``inbox`` extra
(uvicorn); one server for both installs keeps one behaviour to test. Its app answers any path
and only GET, so a small WSGI router in front keeps ours: ``/metrics`` (GET, HEAD), ``/healthz``
(for container health checks), 404 elsewhere, 405 for other methods. The server runs in a
thread owned by a task of the caller's task group: cancelling the group stops it and closes
its port. A request whose head trickles in is dropped after ``REQUEST_TIMEOUT`` seconds.
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server

import anyio
from anyio.abc import TaskStatus
from prometheus_client import CollectorRegistry
from prometheus_client.exposition import ThreadingWSGIServer, make_wsgi_app

from humangr.contracts.errors import ConfigError

__all__ = ["metrics_app", "metrics_server", "serve_metrics"]

log = logging.getLogger("humangr.metrics")

REQUEST_TIMEOUT = 10.0
TEXT = [("Content-Type", "text/plain; charset=utf-8")]

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


def metrics_app(registry: CollectorRegistry) -> WsgiApp:
    """The WSGI app: prometheus_client's exposition of ``registry`` on ``/metrics`` (GET and
    HEAD), ``ok`` on ``/healthz``, 404 on other paths and 405 for other methods."""
    exposition: WsgiApp = make_wsgi_app(registry)

    def app(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        method, path = environ["REQUEST_METHOD"], environ.get("PATH_INFO", "")
        status, headers, body = _route(exposition, environ, method, path)
        start_response(status, [*headers, ("Content-Length", str(len(body)))])
        return [b""] if method == "HEAD" else [body]

    return app


def _route(
    exposition: WsgiApp, environ: dict[str, Any], method: str, path: str
) -> tuple[str, list[tuple[str, str]], bytes]:
    if method not in ("GET", "HEAD"):
        return "405 Method Not Allowed", [*TEXT, ("Allow", "GET, HEAD")], b"only GET and HEAD\n"
    if path == "/healthz":
        return "200 OK", TEXT, b"ok\n"
    if path != "/metrics":
        return "404 Not Found", TEXT, b"not found; metrics are on /metrics\n"
    answer: list[tuple[str, list[tuple[str, str]]]] = []

    def capture(status: str, headers: list[tuple[str, str]], *_: object) -> None:
        answer.append((status, headers))

    try:
        body = b"".join(exposition({**environ, "REQUEST_METHOD": "GET"}, capture))
    except Exception:
        log.exception("collecting the metrics failed")
        return "500 Internal Server Error", TEXT, b"collecting metrics failed\n"
    status, headers = answer[0]
    return status, [h for h in headers if h[0].lower() != "content-length"], body


class _Handler(WSGIRequestHandler):
    timeout = REQUEST_TIMEOUT  # a socket timeout: a slow request is dropped

    def log_message(self, format: str, *args: Any) -> None:
        """Log nothing: requests are not worth a line each."""


def _bind(registry: CollectorRegistry, host: str, port: int) -> ThreadingWSGIServer:
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]

        class Server(ThreadingWSGIServer):
            address_family = family

        return make_server(host, port, metrics_app(registry), Server, _Handler)
    except (OSError, OverflowError) as exc:
        raise ConfigError(
            f"cannot serve /metrics on {host}:{port}: {exc}; choose a free port (0: any free one)"
        ) from exc


async def _run(httpd: ThreadingWSGIServer) -> None:
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True
    )
    thread.start()
    try:
        await anyio.sleep_forever()
    finally:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(httpd.shutdown)
        httpd.server_close()


async def serve_metrics(
    registry: CollectorRegistry,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    task_status: TaskStatus[int] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Serve ``registry`` on ``http://host:port/metrics`` until cancelled.

    Use with ``await tg.start(serve_metrics, registry, host, port)``, which returns the bound
    port (useful with ``port=0``). A port that cannot be bound is a ``ConfigError``.
    """
    httpd = _bind(registry, host, port)
    task_status.started(int(httpd.server_port))
    await _run(httpd)


@asynccontextmanager
async def metrics_server(
    registry: CollectorRegistry, host: str = "127.0.0.1", port: int = 0
) -> AsyncIterator[int]:
    """Serve ``registry`` while the block runs; yields the bound port, closed on exit.

    A port that cannot be bound is a ``ConfigError``, raised before the block runs.
    """
    httpd = _bind(registry, host, port)
    async with anyio.create_task_group() as tg:
        tg.start_soon(_run, httpd)
        try:
            yield int(httpd.server_port)
        finally:
            tg.cancel_scope.cancel()
