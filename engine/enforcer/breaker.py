"""Circuit breakers per (project, agent, mode), and their persistence (DESIGN.md §6).

``closed`` → ``threshold`` consecutive failures → ``open`` (calls refused) → after
``cool_down`` seconds ``half_open`` (one trial call; others refused) → ``closed`` when the trial
succeeds, ``open`` again when it fails. The clock is injected and is wall-clock time (seconds
since the epoch), so a persisted ``opened_at`` still means something after a restart.

``BreakerStore`` keeps every breaker of a process and writes them to a JSON file (atomic:
unique temp file, fsync, ``os.replace``, directory fsync) whenever one changes, so a restart
does not reset an open breaker. A half-open trial in flight is not persisted: after a restart
the breaker is half-open with no trial running, and the next call is the trial.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import anyio
import msgspec

from humangr.engine.errors import ConfigError, StateFileError

__all__ = [
    "DEFAULT_COOL_DOWN",
    "DEFAULT_THRESHOLD",
    "BreakerKey",
    "BreakerState",
    "BreakerStore",
    "CircuitBreaker",
]

BreakerState = Literal["closed", "open", "half_open"]
BreakerKey = tuple[str, str, str]
"""(project_id, agent, mode)."""
Clock = Callable[[], float]
DEFAULT_THRESHOLD = 3
DEFAULT_COOL_DOWN = 60.0
_FILE_VERSION = 1


@dataclass(slots=True)
class CircuitBreaker:
    """The pure state of one breaker. Each method returns the new state when it changed."""

    threshold: int = DEFAULT_THRESHOLD
    cool_down: float = DEFAULT_COOL_DOWN
    clock: Clock = time.time
    state: BreakerState = "closed"
    failures: int = 0
    opened_at: float | None = None
    trial: bool = False

    def __post_init__(self) -> None:
        if self.threshold < 1:
            raise ConfigError(f"breaker threshold must be >= 1, got {self.threshold}")
        if self.cool_down < 0:
            raise ConfigError(f"breaker cool-down must be >= 0 seconds, got {self.cool_down}")

    @property
    def retry_at(self) -> float | None:
        """When an open breaker lets a trial call through."""
        return None if self.opened_at is None else self.opened_at + self.cool_down

    def acquire(self) -> tuple[bool, BreakerState | None]:
        """May a call go ahead? (allowed, new state if it changed). A half-open breaker lets
        one trial through; finish it with ``succeed``, ``fail`` or ``release``."""
        if self.state == "closed":
            return True, None
        if self.state == "open":
            retry_at = self.retry_at
            if retry_at is not None and self.clock() < retry_at:
                return False, None
            self.state, self.trial = "half_open", True
            return True, "half_open"
        if self.trial:
            return False, None
        self.trial = True
        return True, None

    def succeed(self) -> BreakerState | None:
        changed = self.state != "closed"
        self.state, self.failures, self.opened_at, self.trial = "closed", 0, None, False
        return "closed" if changed else None

    def fail(self) -> BreakerState | None:
        self.failures += 1
        self.trial = False
        if self.state == "half_open" or (
            self.state == "closed" and self.failures >= self.threshold
        ):
            self.state, self.opened_at = "open", self.clock()
            return "open"
        return None

    def release(self) -> None:
        """A trial ended without a verdict (cancelled): the next call is the trial."""
        self.trial = False


class _Saved(msgspec.Struct, frozen=True, kw_only=True):
    state: BreakerState
    failures: int = 0
    opened_at: float | None = None


class _File(msgspec.Struct, frozen=True, kw_only=True):
    version: int = _FILE_VERSION
    breakers: dict[str, _Saved] = {}


def _name(key: BreakerKey) -> str:
    return "/".join(key)


class BreakerStore:
    """Every breaker of this process, persisted to ``path`` (``None``: in memory only)."""

    def __init__(
        self,
        path: Path | str | None = None,
        *,
        threshold: int = DEFAULT_THRESHOLD,
        cool_down: float = DEFAULT_COOL_DOWN,
        clock: Clock = time.time,
    ) -> None:
        self.path = None if path is None else Path(path)
        self.threshold = threshold
        self.cool_down = cool_down
        self.clock = clock
        self._breakers: dict[BreakerKey, CircuitBreaker] = {}
        self._lock = threading.Lock()
        self._version = 0
        self._written = 0
        CircuitBreaker(threshold, cool_down)
        if self.path is not None and self.path.exists():
            self._load(self.path)

    def _new(self) -> CircuitBreaker:
        return CircuitBreaker(self.threshold, self.cool_down, self.clock)

    def _load(self, path: Path) -> None:
        remedy = "fix or remove the file (removing it closes every breaker)"
        try:
            data = msgspec.json.decode(path.read_bytes(), type=_File)
        except (OSError, msgspec.DecodeError) as exc:
            raise StateFileError(
                str(path), f"cannot restore the circuit breakers: {exc}", remedy
            ) from None
        for name, saved in data.breakers.items():
            parts = name.split("/")
            if len(parts) != 3:
                raise StateFileError(
                    str(path), f"breaker key {name!r} is not project/agent/mode", remedy
                )
            breaker = self._new()
            breaker.state, breaker.failures = saved.state, saved.failures
            breaker.opened_at = saved.opened_at
            self._breakers[(parts[0], parts[1], parts[2])] = breaker

    def get(self, key: BreakerKey) -> CircuitBreaker:
        """The breaker of ``key`` (a new closed one the first time)."""
        breaker = self._breakers.get(key)
        if breaker is None:
            breaker = self._breakers[key] = self._new()
        return breaker

    def items(self) -> Iterator[tuple[BreakerKey, CircuitBreaker]]:
        return iter(list(self._breakers.items()))

    def snapshot(self) -> bytes:
        """The file content for the current states (closed breakers without failures omitted)."""
        saved = {
            _name(key): _Saved(state=b.state, failures=b.failures, opened_at=b.opened_at)
            for key, b in sorted(self._breakers.items())
            if b.state != "closed" or b.failures
        }
        return msgspec.json.format(msgspec.json.encode(_File(breakers=saved)), indent=2)

    def save(self) -> None:
        """Write the current states now (synchronously)."""
        self._version += 1
        self._write(self.snapshot(), self._version)

    async def persist(self) -> None:
        """Write the current states from a worker thread; a newer write is never overwritten
        by an older one."""
        if self.path is None:
            return
        self._version += 1
        await anyio.to_thread.run_sync(self._write, self.snapshot(), self._version)

    def _write(self, data: bytes, version: int) -> None:
        if self.path is None:
            return
        with self._lock:
            if version <= self._written:
                return
            directory = self.path.parent
            directory.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=directory)
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(temp, self.path)
            except BaseException:
                Path(temp).unlink(missing_ok=True)
                raise
            dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)
            self._written = version
