"""State stores: the ``StateStore`` protocol and its implementations (memory, SQLite, JetStream
KV). The SQLite and KV stores are imported on first use."""

from typing import TYPE_CHECKING, Any

from .base import Bucket, Entry, StateConflict, StateError, StateStore, check_key, check_name
from .memory import MemoryStateStore

if TYPE_CHECKING:
    from .kv import KeyValueStateStore
    from .sqlite import SqliteStateStore

__all__ = [
    "Bucket",
    "Entry",
    "KeyValueStateStore",
    "MemoryStateStore",
    "SqliteStateStore",
    "StateConflict",
    "StateError",
    "StateStore",
    "check_key",
    "check_name",
]


def __getattr__(name: str) -> Any:
    if name == "SqliteStateStore":
        from .sqlite import SqliteStateStore

        return SqliteStateStore
    if name == "KeyValueStateStore":
        from .kv import KeyValueStateStore

        return KeyValueStateStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
