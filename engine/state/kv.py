"""``KeyValueStateStore``: the state store in JetStream key-value buckets, shared by every
process on the same NATS (``serve --jetstream``) — any Supervisor can restart or take over.

Each bucket is a KV bucket named ``<namespace>_<name>`` (the namespace comes from the subject
prefix, so deployments on one server stay apart) with one value per key; compare-and-set uses
JetStream's expected-last-subject-sequence, and the bucket's ``ttl`` is the stream's max age.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio
import nats.errors
import nats.js.errors
from nats.js import JetStreamContext
from nats.js.api import KeyValueConfig, StorageType
from nats.js.kv import KV_DEL as _KV_DEL
from nats.js.kv import KV_PURGE as _KV_PURGE
from nats.js.kv import KeyValue

from humangr.engine.backoff import Backoff
from humangr.engine.bus.jetstream import ELECTION_WAIT, through_election
from humangr.engine.errors import ConfigError, ReplicaMismatch, StateConflict, StateError

from .base import Bucket, Entry, check_key, check_name

__all__ = ["KeyValueStateStore", "namespace_of"]

T = TypeVar("T")
_WRONG_LAST_SEQUENCE = (10071, 10164)
_LIST_TIMEOUT_S = 10.0
# A request that reached no one stored nothing, so it is safe to send again: a new replicated
# bucket answers only once its stream leader is elected and its subjects' interest has spread
# through the cluster (a node rejoining is the same), which can be after it was created.
_UNHEARD = (nats.errors.NoRespondersError, nats.js.errors.NoStreamResponseError)
_UNTIL_HEARD = Backoff(0.05, cap=1.0)


def namespace_of(prefix: str) -> str:
    """The bucket namespace of a subject prefix: ``hl`` → ``HL``."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", prefix).upper()


class KeyValueBucket:
    def __init__(self, kv: KeyValue, name: str, full_name: str) -> None:
        self._kv = kv
        self.name = name
        self.full_name = full_name

    async def _call(self, what: str, key: str, call: Callable[[], Awaitable[T]]) -> T:
        try:
            return await _UNTIL_HEARD.retrying(call, on=_UNHEARD, within=ELECTION_WAIT)
        except nats.js.errors.KeyWrongLastSequenceError as exc:
            raise StateConflict(f"{self.name}/{key}: {what} lost to another writer") from exc
        except nats.js.errors.APIError as exc:
            if exc.err_code in _WRONG_LAST_SEQUENCE:
                raise StateConflict(f"{self.name}/{key}: {what} lost to another writer") from exc
            raise StateError(f"KV bucket {self.full_name}: {what} {key!r} failed: {exc}") from exc
        except (nats.errors.Error, OSError) as exc:
            raise StateError(
                f"KV bucket {self.full_name}: {what} {key!r} failed: {exc or type(exc).__name__}"
            ) from exc

    async def get(self, key: str) -> Entry | None:
        check_key(key)

        async def get() -> Entry | None:
            try:
                found = await self._kv.get(key)
            except nats.js.errors.KeyNotFoundError:
                return None
            if found.revision is None:
                return None
            return Entry(key, bytes(found.value or b""), int(found.revision))

        return await self._call("get", key, get)

    async def put(self, key: str, value: bytes) -> int:
        check_key(key)
        return await self._call("put", key, lambda: self._kv.put(key, bytes(value)))

    async def create(self, key: str, value: bytes) -> int:
        check_key(key)
        return await self._call("create", key, lambda: self._kv.create(key, bytes(value)))

    async def update(self, key: str, value: bytes, revision: int) -> int:
        check_key(key)
        return await self._call(
            "update", key, lambda: self._kv.update(key, bytes(value), last=revision)
        )

    async def delete(self, key: str, *, revision: int | None = None) -> None:
        check_key(key)
        if revision is not None:
            current = await self.get(key)
            if current is None or current.revision != revision:
                raise StateConflict(f"{self.name}/{key} is not at revision {revision}")
        await self._call("delete", key, lambda: self._kv.delete(key, last=revision))

    async def entries(self) -> list[Entry]:
        async def read() -> list[Entry]:
            if not (await self._kv.status()).stream_info.state.messages:
                return []
            # nats-py may put its "initial values done" marker before the first value has
            # arrived (an empty listing of a full bucket), so the marker is not trusted: deletes
            # are read too, so the last key's update (delta 0) always comes.
            watcher = await self._kv.watchall()
            found: dict[str, Entry] = {}
            try:
                with anyio.fail_after(_LIST_TIMEOUT_S):
                    async for update in watcher:
                        if update is None:
                            continue
                        if update.operation in (_KV_DEL, _KV_PURGE):
                            found.pop(update.key, None)
                        elif update.revision is not None:
                            found[update.key] = Entry(
                                update.key, bytes(update.value or b""), int(update.revision)
                            )
                        if not update.delta:
                            break
            except TimeoutError:
                raise StateError(
                    f"KV bucket {self.full_name}: listing its keys got no end within "
                    f"{_LIST_TIMEOUT_S:g}s; is the NATS server reachable?"
                ) from None
            finally:
                await watcher.stop()  # type: ignore[no-untyped-call]
            return [found[key] for key in sorted(found)]

        return await self._call("list", "*", read)


class KeyValueStateStore:
    """A ``StateStore`` in JetStream KV buckets (``js`` from a connected client).

    New buckets get ``replicas`` replicas (``None``: one). An existing bucket keeps its own
    count: with ``replicas`` given and another count there, opening it is refused
    (``ReplicaMismatch``) unless ``update_replicas`` (``serve --update-streams``)."""

    def __init__(
        self,
        js: JetStreamContext,
        *,
        namespace: str = "HL",
        storage: str = "file",
        replicas: int | None = None,
        where: str = "NATS",
        update_replicas: bool = False,
    ) -> None:
        if replicas is not None and replicas < 1:
            raise ConfigError(f"KV replicas must be >= 1, not {replicas}")
        self._js = js
        self.namespace = check_name(namespace)
        self._storage = StorageType.FILE if storage == "file" else StorageType.MEMORY
        self._replicas = replicas
        self._update_replicas = update_replicas
        self.description = f"JetStream KV on {where} (buckets {self.namespace}_*)"
        self._buckets: dict[str, KeyValueBucket] = {}

    async def bucket(self, name: str, *, ttl: float | None = None) -> Bucket:
        full = f"{self.namespace}_{check_name(name)}"
        config = KeyValueConfig(
            bucket=full, history=1, ttl=ttl, storage=self._storage, replicas=self._replicas or 1
        )
        try:
            try:
                kv = await through_election(self._js.create_key_value, config)
            except nats.js.errors.BadRequestError as exc:
                if exc.err_code != 10058:  # exists with another configuration: update it
                    raise
                stream = await through_election(self._js.stream_info, f"KV_{full}")
                theirs = stream.config.num_replicas or 1
                if self._replicas is not None and self._replicas != theirs:
                    if not self._update_replicas:
                        raise ReplicaMismatch(f"KV bucket {full}", theirs, self._replicas) from None
                    stream.config.num_replicas = self._replicas
                stream.config.max_age = ttl
                await through_election(self._js.update_stream, stream.config)
                kv = await through_election(self._js.key_value, full)
        except (nats.errors.Error, OSError) as exc:
            if isinstance(
                exc, nats.js.errors.ServiceUnavailableError | nats.errors.NoRespondersError
            ):
                raise StateError(
                    "the state store needs JetStream: start nats-server with -js (or jetstream "
                    "{} in its config)"
                ) from exc
            raise StateError(f"cannot open KV bucket {full}: {exc or type(exc).__name__}") from exc
        bucket = self._buckets[name] = KeyValueBucket(kv, name, full)
        return bucket

    async def close(self) -> None:
        self._buckets.clear()
