"""Standing approvals (grants) in a ``StateStore``: the ``grants`` bucket, shared by every
Supervisor and the ``humangr grants`` / ``revoke`` commands.

Each grant is one entry keyed by its id. A damaged entry (garbage, cut short, another record
type, or a grant stored under another id) is quarantined and removed like the other buckets'
(``records``): it never applies. Creating is compare-and-set (one grant per id); counting a use
is compare-and-set with a few tries, best effort; revoking deletes the entry at once.
"""

from __future__ import annotations

import contextlib
from datetime import datetime

import msgspec

from humangr.contracts import MAX_GRANT_S, Grant
from humangr.engine.errors import StateConflict

from .base import StateStore
from .records import OnDamaged, Quarantine, Records

__all__ = ["GRANTS_BUCKET", "MAX_GRANTS", "GrantBook"]

GRANTS_BUCKET = "grants"
MAX_GRANTS = 10_000
"""At most this many grants are read from the bucket (bounded work per decision)."""
_USE_TRIES = 3


def _grant_problem(key: str, grant: Grant) -> str | None:
    if key != grant.id:
        return f"it is grant {grant.id[:128]!r}, not {key[:128]!r}"
    if grant.created_at.tzinfo is None or grant.expires_at.tzinfo is None:
        return "a time without a timezone"
    if grant.scope == "exact" and grant.arguments_digest is None:
        return "an exact grant without the digest of the arguments it allows"
    return None


class GrantBook:
    """The grants of one store (``open`` it first)."""

    def __init__(
        self,
        store: StateStore,
        *,
        on_damaged: OnDamaged | None = None,
        bucket: str = GRANTS_BUCKET,
    ) -> None:
        self.store = store
        self.on_damaged = on_damaged
        self.bucket_name = bucket
        self._records: Records[Grant] | None = None

    async def open(self) -> GrantBook:
        """Open the bucket (kept a day longer than the longest grant) and the quarantine."""
        bucket = await self.store.bucket(self.bucket_name, ttl=MAX_GRANT_S + 86_400)
        quarantine = await Quarantine.open(self.store, self.on_damaged, ttl=None)
        self._records = Records(bucket, Grant, quarantine, check=_grant_problem)
        return self

    @property
    def records(self) -> Records[Grant]:
        """The bucket's records (``open`` first)."""
        if self._records is None:
            raise RuntimeError("GrantBook.open() was not called")
        return self._records

    async def add(self, grant: Grant) -> bool:
        """Store a new grant; ``False`` if its id is taken (nothing changes)."""
        try:
            await self.records.bucket.create(grant.id, msgspec.json.encode(grant))
        except StateConflict:
            return False
        return True

    async def all(self) -> list[Grant]:
        """Every sound grant, expired or not, in id order (at most ``MAX_GRANTS``)."""
        return [stored.value for _, stored in (await self.records.all())[:MAX_GRANTS]]

    async def active(self, now: datetime) -> list[Grant]:
        """The grants that apply at ``now``."""
        return [g for g in await self.all() if now < g.expires_at]

    async def get(self, grant_id: str) -> Grant | None:
        """One grant, or ``None``."""
        stored = await self.records.get(grant_id)
        return None if stored is None else stored.value

    async def revoke(self, grant_id: str) -> bool:
        """End a grant at once; ``False`` if there is none with that id."""
        stored = await self.records.get(grant_id)
        if stored is None:
            return False
        await self.records.bucket.delete(grant_id)
        return True

    async def used(self, grant_id: str) -> bool:
        """Count one use (compare-and-set, a few tries); ``False`` if it was not counted
        (revoked meanwhile, or too contended). Never raises ``StateConflict``."""
        for _ in range(_USE_TRIES):
            stored = await self.records.get(grant_id)
            if stored is None:
                return False
            bumped = msgspec.structs.replace(stored.value, uses=stored.value.uses + 1)
            with contextlib.suppress(StateConflict):
                await self.records.bucket.update(
                    grant_id, msgspec.json.encode(bumped), stored.revision
                )
                return True
        return False

    async def expire(self, now: datetime) -> list[str]:
        """Remove the grants expired at ``now``; their ids."""
        gone = []
        for key, stored in await self.records.all():
            if now >= stored.value.expires_at:
                with contextlib.suppress(StateConflict):
                    await self.records.bucket.delete(key, revision=stored.revision)
                    gone.append(key)
        return gone
