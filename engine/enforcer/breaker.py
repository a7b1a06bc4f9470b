"""Circuit breakers per (project, agent, mode), shared through the state store
(docs/design.md#circuit-breakers).

``closed`` → ``threshold`` consecutive failures → ``open`` (calls refused) → after
``cool_down`` seconds ``half_open`` (one trial call; others refused) → ``closed`` when the trial
succeeds, ``open`` again when it fails. The clock is wall-clock time (seconds since the epoch),
so a stored ``opened_at`` still means something in another process or after a restart.

``CircuitBreaker`` is the pure state of one breaker. ``BreakerStore`` keeps every breaker in the
``breakers`` bucket of a ``StateStore`` (key ``project/agent/mode``) and changes one only by
compare-and-set: read, apply, write at the revision read, and on a conflict read again. So the
agent workers sharing a store share each breaker: failures reported at once by several workers
count once each, and of several workers asking a half-open breaker exactly one takes the trial.
The trial is held under a lease (the longest the call may take), so a worker that dies holding
it leaves the breaker to the next caller once the lease ends. Without a store the breakers live
in this process's memory.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeVar

import msgspec

from humangr.engine.errors import ConfigError, StateConflict, StateError
from humangr.engine.state import Bucket, Entry, MemoryStateStore, StateStore

__all__ = [
    "BUCKET",
    "DEFAULT_COOL_DOWN",
    "DEFAULT_THRESHOLD",
    "BreakerKey",
    "BreakerState",
    "BreakerStore",
    "CircuitBreaker",
    "key_name",
]

BreakerState = Literal["closed", "open", "half_open"]
BreakerKey = tuple[str, str, str]
"""(project_id, agent, mode)."""
Clock = Callable[[], float]
T = TypeVar("T")
DEFAULT_THRESHOLD = 3
DEFAULT_COOL_DOWN = 60.0
BUCKET = "breakers"
MAX_ATTEMPTS = 100
"""Compare-and-set attempts on one breaker before giving up (each lost to another writer)."""


@dataclass(slots=True)
class CircuitBreaker:
    """The pure state of one breaker. Each method returns the new state when it changed.

    ``trial`` is set while a half-open trial call runs; it was taken by ``trial_owner`` and
    lapses at ``trial_until`` (``None``: never), after which the next caller takes the trial.
    """

    threshold: int = DEFAULT_THRESHOLD
    cool_down: float = DEFAULT_COOL_DOWN
    clock: Clock = time.time
    state: BreakerState = "closed"
    failures: int = 0
    opened_at: float | None = None
    trial: bool = False
    trial_owner: str = ""
    trial_until: float | None = None

    def __post_init__(self) -> None:
        if self.threshold < 1:
            raise ConfigError(f"breaker threshold must be >= 1, got {self.threshold}")
        if self.cool_down < 0:
            raise ConfigError(f"breaker cool-down must be >= 0 seconds, got {self.cool_down}")

    @property
    def retry_at(self) -> float | None:
        """When an open breaker lets a trial call through."""
        return None if self.opened_at is None else self.opened_at + self.cool_down

    def trial_running(self) -> bool:
        """Whether a trial call holds the half-open breaker (its lease not run out)."""
        return self.trial and (self.trial_until is None or self.clock() < self.trial_until)

    def _take_trial(self, owner: str, lease: float | None) -> None:
        self.trial, self.trial_owner = True, owner
        self.trial_until = None if lease is None else self.clock() + lease

    def _clear_trial(self) -> None:
        self.trial, self.trial_owner, self.trial_until = False, "", None

    def acquire(
        self, owner: str = "", lease: float | None = None
    ) -> tuple[bool, BreakerState | None]:
        """May a call go ahead? (allowed, new state if it changed). A half-open breaker lets
        one trial through, held by ``owner`` for ``lease`` seconds; finish it with ``succeed``,
        ``fail`` or ``release``."""
        if self.state == "closed":
            return True, None
        if self.state == "open":
            retry_at = self.retry_at
            if retry_at is not None and self.clock() < retry_at:
                return False, None
            self.state = "half_open"
            self._take_trial(owner, lease)
            return True, "half_open"
        if self.trial_running():
            return False, None
        self._take_trial(owner, lease)
        return True, None

    def succeed(self) -> BreakerState | None:
        changed = self.state != "closed"
        self.state, self.failures, self.opened_at = "closed", 0, None
        self._clear_trial()
        return "closed" if changed else None

    def fail(self) -> BreakerState | None:
        self.failures += 1
        self._clear_trial()
        if self.state == "half_open" or (
            self.state == "closed" and self.failures >= self.threshold
        ):
            self.state, self.opened_at = "open", self.clock()
            return "open"
        return None

    def release(self, owner: str | None = None) -> None:
        """A trial ended without a verdict (cancelled): the next call is the trial. With
        ``owner``, only that owner's trial is released."""
        if owner is None or owner == self.trial_owner:
            self._clear_trial()


class Saved(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One breaker as it is stored."""

    state: BreakerState
    failures: int = 0
    opened_at: float | None = None
    trial_owner: str | None = None
    """Who holds the half-open trial (``None``: nobody)."""
    trial_until: float | None = None


_DECODER = msgspec.json.Decoder(Saved)
_CLEAN = Saved(state="closed")


def key_name(key: BreakerKey) -> str:
    """The store key of a breaker: ``project/agent/mode``."""
    return "/".join(key)


def _saved(breaker: CircuitBreaker) -> Saved:
    return Saved(
        state=breaker.state,
        failures=breaker.failures,
        opened_at=breaker.opened_at,
        trial_owner=breaker.trial_owner if breaker.trial else None,
        trial_until=breaker.trial_until if breaker.trial else None,
    )


class BreakerStore:
    """Every breaker of a deployment, in the ``breakers`` bucket of ``store`` (by default a
    store in this process's memory). Methods return the breaker as it is after the change."""

    def __init__(
        self,
        store: StateStore | None = None,
        *,
        threshold: int = DEFAULT_THRESHOLD,
        cool_down: float = DEFAULT_COOL_DOWN,
        clock: Clock = time.time,
    ) -> None:
        CircuitBreaker(threshold, cool_down)
        self.store: StateStore = store if store is not None else MemoryStateStore()
        self.threshold = threshold
        self.cool_down = cool_down
        self.clock = clock
        self._bucket: Bucket | None = None

    @property
    def description(self) -> str:
        return f"bucket {BUCKET} of {self.store.description}"

    async def bucket(self) -> Bucket:
        if self._bucket is None:
            self._bucket = await self.store.bucket(BUCKET)
        return self._bucket

    def _load(self, name: str, entry: Entry | None) -> CircuitBreaker:
        breaker = CircuitBreaker(self.threshold, self.cool_down, self.clock)
        if entry is None:
            return breaker
        try:
            saved = _DECODER.decode(entry.value)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise StateError(
                f"circuit breaker {name} in {self.description} is damaged ({str(exc)[:200]}); "
                f"delete the key {name} from the bucket to close the breaker"
            ) from None
        breaker.state, breaker.failures, breaker.opened_at = (
            saved.state,
            saved.failures,
            saved.opened_at,
        )
        if saved.trial_owner is not None:
            breaker.trial, breaker.trial_owner = True, saved.trial_owner
            breaker.trial_until = saved.trial_until
        return breaker

    async def get(self, key: BreakerKey) -> CircuitBreaker:
        """The breaker of ``key`` as stored now (a closed one if it has no entry)."""
        name = key_name(key)
        return self._load(name, await (await self.bucket()).get(name))

    async def items(self) -> list[tuple[BreakerKey, CircuitBreaker]]:
        """Every stored breaker (closed ones without failures have no entry)."""
        found = []
        for entry in await (await self.bucket()).entries():
            parts = entry.key.split("/")
            if len(parts) == 3:
                found.append(((parts[0], parts[1], parts[2]), self._load(entry.key, entry)))
        return found

    async def change(
        self, key: BreakerKey, step: Callable[[CircuitBreaker], T]
    ) -> tuple[T, CircuitBreaker]:
        """Apply ``step`` to the stored breaker by compare-and-set, reading again whenever
        another writer changed it first; (what ``step`` returned, the breaker after it)."""
        name = key_name(key)
        bucket = await self.bucket()
        for _ in range(MAX_ATTEMPTS):
            entry = await bucket.get(name)
            breaker = self._load(name, entry)
            before = _saved(breaker)
            result = step(breaker)
            after = _saved(breaker)
            if after == before:
                return result, breaker
            try:
                if entry is None:
                    await bucket.create(name, msgspec.json.encode(after))
                elif after == _CLEAN:
                    await bucket.delete(name, revision=entry.revision)
                else:
                    await bucket.update(name, msgspec.json.encode(after), entry.revision)
            except StateConflict:
                continue
            return result, breaker
        raise StateError(
            f"circuit breaker {name}: {MAX_ATTEMPTS} changes in a row lost to other writers "
            f"in {self.description}; try again"
        )

    async def acquire(
        self, key: BreakerKey, *, lease: float | None = None
    ) -> tuple[bool, BreakerState | None, str, CircuitBreaker]:
        """May a call go ahead? (allowed, new state if it changed, the trial token to pass to
        ``release``, the breaker). ``lease`` bounds how long a trial may hold the breaker."""
        token = uuid.uuid4().hex
        (allowed, change), breaker = await self.change(key, lambda b: b.acquire(token, lease))
        return allowed, change, token, breaker

    async def succeed(self, key: BreakerKey) -> tuple[BreakerState | None, CircuitBreaker]:
        """A call succeeded: the breaker closes."""
        return await self.change(key, CircuitBreaker.succeed)

    async def fail(self, key: BreakerKey) -> tuple[BreakerState | None, CircuitBreaker]:
        """A call failed: one more consecutive failure (counted once, whoever else fails)."""
        return await self.change(key, CircuitBreaker.fail)

    async def release(self, key: BreakerKey, token: str) -> CircuitBreaker:
        """The trial taken with ``token`` ended without a verdict: the next call is the trial."""
        _, breaker = await self.change(key, lambda b: b.release(token))
        return breaker
