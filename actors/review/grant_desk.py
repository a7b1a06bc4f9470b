"""``GrantDesk``: the Supervisor's answers to a reviewer's grant and history requests.

``hl.grants.query`` lists the standing approvals of the shared ``grants`` bucket a page at a
time, ``hl.grants.revoke`` ends one at once (every Supervisor reads the bucket afresh for each
action, so the very next call is decided without it), and ``hl.history.query`` pages through
the stored decisions for ``humangr replay --nats``, reading them only. The server's permissions
let reviewers alone publish on these subjects (deploy/nats-server.conf). What cannot be decoded
is dead-lettered by the actor system; a state that cannot be read, or an unknown grant, is an
error reply — never silence, never an empty list that is not true.
"""

from __future__ import annotations

import logging

import anyio

from humangr.contracts.grants import (
    GrantListing,
    GrantQuery,
    GrantRevoke,
    GrantRevoked,
)
from humangr.contracts.history import MAX_HISTORY_PAGE, HistoryPage, HistoryQuery
from humangr.engine.actor import ActorContext
from humangr.engine.bus import Msg
from humangr.engine.errors import BusClosedError, BusError, StateError
from humangr.engine.policy.history import history_page
from humangr.engine.state.grants import GrantBook
from humangr.engine.state.reviews import ReviewState

__all__ = ["GrantDesk"]

log = logging.getLogger("humangr.supervisor")


def _unreadable(what: str, exc: StateError) -> str:
    return f"the {what} cannot be read: {str(exc)[:1_500]}"


class GrantDesk:
    """The grant and history requests of one Supervisor (its grants and its review state)."""

    def __init__(self, ctx: ActorContext, book: GrantBook, state: ReviewState) -> None:
        self.ctx = ctx
        self.book = book
        self.state = state
        self._reading = anyio.Lock()
        """One history page at a time: each reads the whole decisions bucket (bounded
        memory however many requests arrive at once)."""

    async def on_grant_query(self, query: GrantQuery, msg: Msg) -> None:
        """Answer with one page of grants (expired ones included, in id order)."""
        try:
            grants = await self.book.all()
        except StateError as exc:
            await self.ctx.reply(msg, GrantListing(error=_unreadable("grants", exc)))
            return
        after = [g for g in grants if query.after is None or g.id > query.after]
        page = after[: query.limit]
        await self.ctx.reply(msg, GrantListing(grants=page, more=len(after) > len(page)))

    async def on_grant_revoke(self, request: GrantRevoke, msg: Msg) -> None:
        """End the grant at once; an error reply if there is none with that id."""
        grant_id = request.grant_id
        try:
            revoked = await self.book.revoke(grant_id)
        except StateError as exc:
            reply = GrantRevoked(grant_id=grant_id, error=_unreadable("grants", exc))
        else:
            if revoked:
                log.info("grant %s revoked by %s", grant_id, request.reviewer[:128])
                reply = GrantRevoked(grant_id=grant_id, revoked=True)
            else:
                reply = GrantRevoked(
                    grant_id=grant_id,
                    error=f"no grant {grant_id!r} (revoked or expired already?); "
                    "`humangr grants` lists them",
                )
        await self.ctx.reply(msg, reply)

    async def on_history_query(self, query: HistoryQuery, msg: Msg) -> None:
        """Answer with one page of the stored decisions; nothing is written (a damaged entry
        is a skipped line, not quarantined)."""
        try:
            async with self._reading:
                page = history_page(await self.state.decisions.bucket.entries(), query)
        except StateError as exc:
            await self.ctx.reply(msg, HistoryPage(error=_unreadable("decisions", exc)))
            return
        try:
            await self.ctx.reply(msg, page)
        except BusClosedError:
            raise
        except BusError as exc:  # too large for the server: the page's decisions as skipped
            log.warning("a history page could not be sent: %s", exc)
            lines = [
                f"{d.key[:80]}: too large to send over the bus; skipped" for d in page.decisions
            ]
            smaller = HistoryPage(
                skipped=[*page.skipped, *lines][:MAX_HISTORY_PAGE], next=page.next
            )
            await self.ctx.reply(msg, smaller)
