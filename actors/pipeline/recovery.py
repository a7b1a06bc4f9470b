"""How the pipeline Supervisor takes up its recorded orders after a (re)start: an order whose
answer it never got is sent to its agent again, a write it began is finished, a review is
looked up again (``DevReviews``), and an order the project no longer waits for is dropped."""

from __future__ import annotations

import logging
from typing import Protocol

import anyio

from humangr.engine.errors import MessageRefused, StateFileError

from .files import order_is_live
from .ledger import Held
from .review import DevReviews, Settling

__all__ = ["Resuming", "take_up"]

log = logging.getLogger("humangr.pipeline")


class Resuming(Settling, Protocol):
    """What taking up the recorded orders needs of the pipeline Supervisor."""

    reviews: DevReviews

    async def send(
        self, held: Held, extra: dict[str, str] | None = None, *, again: bool = False
    ) -> None:
        """Send an order to its agent (``again``: the request in flight once more)."""
        ...

    async def abandon(self, held: Held) -> None:
        """Drop an order the project no longer waits for."""
        ...


async def take_up(sup: Resuming) -> None:
    """Take up every order recorded in ``sup``'s ledger that is not done (an entry that cannot
    be read, or an order whose project cannot be, is logged and left alone)."""
    found, damaged = await sup.ledger.scan()
    for error in damaged:
        log.error("not taken up: %s", error)
    for held in found:
        record = held.record
        if record.phase == "done":
            continue
        try:
            store = sup.store_of(record.order.project_id)
            live = await anyio.to_thread.run_sync(order_is_live, store, record.order)
        except (StateFileError, MessageRefused) as exc:
            log.error("order %s not taken up: %s", held.order_id, exc)
            continue
        if not live:
            await sup.abandon(held)
        elif record.phase == "calling":
            log.warning(
                "order %s: asking %s again after a restart", held.order_id, record.order.agent
            )
            await sup.send(held, again=True)
        elif record.phase == "writing":
            await sup.finish_write(held)
        else:
            sup.reviews.recovered(held)
