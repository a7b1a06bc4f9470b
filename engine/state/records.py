"""Typed records in a bucket, decoded strictly: a damaged entry is quarantined, never a crash.

A value that is not valid JSON, is cut short, is another record type, or names another key
than the one it is stored under is *damaged*. ``Records`` never hands it out: it copies the
value to the ``quarantine`` bucket (once per key and revision, across every process sharing the
store), tells ``on_damaged`` (the Supervisor publishes a dead letter and counts it), and then

- removes it (``keep=False``) — or writes what ``repair`` rebuilds in its place — by
  compare-and-set, so a damaged entry is reported once and the next read sees no garbage; or
- keeps it in place (``keep=True``, the decisions: the entry is the gate that an action is
  decided once) and raises ``DamagedEntry``, which callers turn into a refusal or an error reply.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

import msgspec

from humangr.engine.errors import StateConflict, StateError
from humangr.engine.redact import redact_secrets

from .base import Bucket, Entry, StateStore

__all__ = [
    "QUARANTINE_BUCKET",
    "Damaged",
    "DamagedEntry",
    "OnDamaged",
    "Quarantine",
    "QuarantineRecord",
    "Records",
    "Stored",
]

log = logging.getLogger("humangr.state")

T = TypeVar("T")
QUARANTINE_BUCKET = "quarantine"
KEPT_BYTES = 65_536
"""The bytes of a damaged value copied to the quarantine bucket (its size is recorded)."""


class Stored(msgspec.Struct, Generic[T], frozen=True):
    """A record and the revision it was read at (for compare-and-set)."""

    value: T
    revision: int


@dataclass(frozen=True, slots=True)
class Damaged:
    """A damaged entry, as reported to ``on_damaged``: where, why, and what became of it."""

    bucket: str
    key: str
    revision: int
    reason: str
    raw: bytes
    """The first ``KEPT_BYTES`` of the value (a dead letter keeps a redacted preview only)."""
    size: int
    quarantined_as: str
    fate: str
    """``kept``, ``removed`` or ``rebuilt``."""


OnDamaged = Callable[[Damaged], Awaitable[None]]


class DamagedEntry(StateError):
    """A kept entry (a decision) is damaged: it was quarantined and stays where it is."""

    def __init__(self, damaged: Damaged) -> None:
        super().__init__(
            f"the stored {damaged.bucket} entry {damaged.key!r} is damaged ({damaged.reason}); "
            f"a copy is in the {QUARANTINE_BUCKET} bucket as {damaged.quarantined_as}"
        )
        self.damaged = damaged


class QuarantineRecord(msgspec.Struct, frozen=True, kw_only=True):
    """What the quarantine bucket keeps of a damaged entry."""

    bucket: str
    key: str
    revision: int
    reason: str
    size: int
    value: bytes


class Quarantine:
    """The quarantine bucket of a store, and who is told of a damaged entry."""

    def __init__(self, bucket: Bucket, on_damaged: OnDamaged | None) -> None:
        self.bucket = bucket
        self.on_damaged = on_damaged

    @classmethod
    async def open(
        cls, store: StateStore, on_damaged: OnDamaged | None, *, ttl: float | None
    ) -> Quarantine:
        """The quarantine of ``store`` (its copies kept ``ttl`` seconds)."""
        return cls(await store.bucket(QUARANTINE_BUCKET, ttl=ttl), on_damaged)

    @staticmethod
    def key_of(bucket: str, key: str, revision: int) -> str:
        """The quarantine key of one revision of one entry."""
        digest = hashlib.sha256(f"{key}\0{revision}".encode()).hexdigest()[:40]
        return f"{bucket}.{digest}"

    async def hold(self, bucket: str, entry: Entry, reason: str, fate: str) -> Damaged | None:
        """Copy a damaged entry here; a ``Damaged`` the first time this revision of it is seen
        (``on_damaged`` was told), ``None`` if it was held already (by any process)."""
        qkey = self.key_of(bucket, entry.key, entry.revision)
        kept = entry.value[:KEPT_BYTES]
        record = QuarantineRecord(
            bucket=bucket,
            key=entry.key,
            revision=entry.revision,
            reason=reason,
            size=len(entry.value),
            value=kept,
        )
        try:
            await self.bucket.create(qkey, msgspec.json.encode(record))
        except StateConflict:
            return None
        damaged = Damaged(
            bucket, entry.key, entry.revision, reason, kept, len(entry.value), qkey, fate
        )
        log.error(
            "damaged %s entry %r (revision %d): %s; quarantined as %s (%s)",
            bucket,
            entry.key[:300],
            entry.revision,
            reason,
            qkey,
            fate,
        )
        if self.on_damaged is not None:
            try:
                await self.on_damaged(damaged)
            except Exception as exc:  # the entry is held; a lost report must not stop the reader
                log.error("the report of damaged %s/%r was lost: %s", bucket, entry.key[:300], exc)
        return damaged


def _said(exc: Exception) -> str:
    """What a decoder said, short and without secrets (it may quote the value)."""
    return redact_secrets(str(exc)[:200])


Check = Callable[[str, T], str | None]
"""What is wrong with a decoded record stored under a key (``None``: nothing)."""
Repair = Callable[[str], Awaitable[bytes | None]]
"""The value to write in place of a damaged entry, or ``None`` to remove it."""


class Records(Generic[T]):
    """One bucket of one record type, decoded strictly (see the module docstring)."""

    def __init__(
        self,
        bucket: Bucket,
        type_: type[T],
        quarantine: Quarantine,
        *,
        check: Check[T] | None = None,
        keep: bool = False,
        repair: Repair | None = None,
    ) -> None:
        self.bucket = bucket
        self._decoder = msgspec.json.Decoder(type_)
        self._name = getattr(type_, "__name__", "record")
        self._quarantine = quarantine
        self._check = check
        self._keep = keep
        self._repair = repair

    def problem(self, entry: Entry) -> tuple[T | None, str | None]:
        """The record in ``entry``, or what is wrong with it."""
        try:
            value = self._decoder.decode(entry.value)
        except msgspec.ValidationError as exc:  # a DecodeError: caught first
            return None, f"not a valid {self._name} ({_said(exc)})"
        except msgspec.DecodeError as exc:
            return None, f"not a valid {self._name} (truncated or not JSON: {_said(exc)})"
        except (ValueError, TypeError) as exc:  # a record's own checks
            return None, f"not a valid {self._name} ({_said(exc)})"
        wrong = self._check(entry.key, value) if self._check is not None else None
        return (None, wrong) if wrong is not None else (value, None)

    async def get(self, key: str) -> Stored[T] | None:
        """The record under ``key``; ``None`` if there is none or it was damaged and removed
        (``DamagedEntry`` if it is damaged and kept)."""
        entry = await self.bucket.get(key)
        return None if entry is None else await self._read(entry)

    async def all(self) -> list[tuple[str, Stored[T]]]:
        """Every sound record, in key order (damaged ones are quarantined and left out)."""
        found = []
        for entry in await self.bucket.entries():
            try:
                stored = await self._read(entry)
            except DamagedEntry:
                continue
            if stored is not None:
                found.append((entry.key, stored))
        return found

    async def _read(self, entry: Entry) -> Stored[T] | None:
        value, reason = self.problem(entry)
        if reason is None:
            return Stored(value, entry.revision)  # type: ignore[arg-type]
        if self._keep:
            damaged = await self._quarantine.hold(self.bucket.name, entry, reason, "kept")
            raise DamagedEntry(damaged or self._known(entry, reason))
        replacement = await self._replacement(entry.key)
        fate = "removed" if replacement is None else "rebuilt"
        await self._quarantine.hold(self.bucket.name, entry, reason, fate)
        try:
            if replacement is None:
                await self.bucket.delete(entry.key, revision=entry.revision)
            else:
                await self.bucket.update(entry.key, replacement, entry.revision)
        except StateConflict:  # rewritten meanwhile: read again next time
            pass
        except StateError as exc:  # a key no store accepts (a forged row): left out, not a stall
            log.warning("damaged %s entry %r stays: %s", self.bucket.name, entry.key[:300], exc)
        return None

    async def _replacement(self, key: str) -> bytes | None:
        if self._repair is None:
            return None
        try:
            return await self._repair(key)
        except StateError as exc:
            log.warning("cannot rebuild the damaged %s entry %r: %s", self.bucket.name, key, exc)
            return None

    def _known(self, entry: Entry, reason: str) -> Damaged:
        qkey = Quarantine.key_of(self.bucket.name, entry.key, entry.revision)
        raw = entry.value[:KEPT_BYTES]
        return Damaged(
            self.bucket.name, entry.key, entry.revision, reason, raw, len(entry.value), qkey, "kept"
        )
