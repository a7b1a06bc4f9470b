"""Choosing the state store of a command: ``--state kv|memory|PATH`` (default ``auto``)."""

from __future__ import annotations

import logging
from pathlib import Path

from humangr.contracts import DEFAULT_PREFIX
from humangr.engine.bus import Bus
from humangr.engine.errors import ConfigError, StateError
from humangr.engine.state import MemoryStateStore, SqliteStateStore, StateStore

__all__ = ["STATE_HELP", "open_state"]

log = logging.getLogger("humangr.state")

STATE_HELP = (
    "where decisions, pending human reviews, circuit breakers and the pipeline's orders are "
    "kept: kv (JetStream key-value buckets on the NATS server, shared by every process), "
    "memory (lost on restart), or the path of a SQLite file (one process); default auto: kv "
    "when the server has JetStream, else memory"
)


async def open_state(
    spec: str,
    bus: Bus | None,
    *,
    prefix: str = DEFAULT_PREFIX,
    replicas: int | None = None,
    update_replicas: bool = False,
) -> StateStore:
    """The store ``spec`` names: ``auto``, ``kv``, ``memory`` or a SQLite file path. KV buckets
    get ``replicas`` (``serve --replicas``; ``None``: those of an existing bucket, else one);
    an existing bucket with another count is refused unless ``update_replicas``."""
    if spec == "memory":
        return MemoryStateStore()
    if spec not in ("auto", "kv"):
        return SqliteStateStore(Path(spec))
    client = getattr(bus, "client", None)
    if client is None:
        if spec == "kv":
            raise ConfigError("--state kv needs --nats (JetStream key-value on the server)")
        return MemoryStateStore()
    from humangr.engine.state.kv import KeyValueStateStore, namespace_of

    js = client.jetstream()
    try:
        await js.account_info()
    except Exception as exc:
        if spec == "kv":
            raise StateError(
                "--state kv needs JetStream on the NATS server: start it with -js (or "
                f"jetstream {{}} in its config): {exc or type(exc).__name__}"
            ) from None
        log.warning(
            "the NATS server has no JetStream: decisions and pending reviews live in this "
            "process's memory and do not survive a restart (use --state PATH or enable "
            "JetStream)"
        )
        return MemoryStateStore()
    where = getattr(bus, "servers", "NATS")
    return KeyValueStateStore(
        js,
        namespace=namespace_of(prefix),
        where=str(where),
        replicas=replicas,
        update_replicas=update_replicas,
    )
