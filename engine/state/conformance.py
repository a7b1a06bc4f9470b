"""The state-store conformance kit: checks that any ``StateStore`` behaves as the engine expects.

Each ``check_*`` takes an open store and a bucket name of its own (so checks can share a store)
and raises ``AssertionError`` saying what misbehaved. Usage::

    for check in ALL_CHECKS:
        await check(store, f"conf-{uuid.uuid4().hex[:8]}")
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from .base import StateStore
from .conformance_buckets import (
    check_compare_and_set,
    check_concurrent_claims,
    check_create,
    check_delete,
    check_entries,
    check_keys,
    check_put_get,
    check_retention,
    check_revisions,
)
from .conformance_records import check_damaged_entries, check_grants

__all__ = [
    "ALL_CHECKS",
    "Check",
    "check_compare_and_set",
    "check_concurrent_claims",
    "check_create",
    "check_damaged_entries",
    "check_delete",
    "check_entries",
    "check_grants",
    "check_keys",
    "check_put_get",
    "check_retention",
    "check_revisions",
]

Check = Callable[[StateStore, str], Awaitable[None]]


ALL_CHECKS: tuple[Check, ...] = (
    check_put_get,
    check_revisions,
    check_create,
    check_compare_and_set,
    check_delete,
    check_entries,
    check_keys,
    check_retention,
    check_concurrent_claims,
    check_damaged_entries,
    check_grants,
)
