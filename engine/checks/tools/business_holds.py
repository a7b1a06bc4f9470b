"""Holds that are not legal holds: a seat, room, stock or booking held for a customer.

``releases a legal hold or retention`` reads ``hold`` as preservation for litigation. A hold
on a seat, a room or stock is a reservation that expires on its own; releasing one frees
inventory and preserves nothing. The legal words (a matter, a custodian, litigation,
retention, e-discovery) keep the rule whatever else the call names.
"""

from __future__ import annotations

__all__ = ["reservation_hold"]

_RESERVED = frozenset(
    {"seat", "seats", "room", "rooms", "inventory", "stock", "booking", "bookings",
     "reservation", "reservations", "cart", "carts", "ticket", "tickets", "slot", "slots",
     "appointment", "appointments", "table", "tables", "fare", "fares", "cabin", "berth"}
)  # fmt: skip
_LEGAL = frozenset(
    {"legal", "legalhold", "legalholds", "litigation", "litigationhold", "matter", "matters",
     "custodian", "custodians", "retention", "ediscovery", "discovery", "preservation",
     "vault", "evidence", "case", "cases", "compliance", "records", "mailbox", "mailboxes"}
)  # fmt: skip


def reservation_hold(words: set[str]) -> bool:
    """Whether the hold a call names is a reservation (a seat or room hold) and nothing in
    the call speaks of legal preservation."""
    return bool(words & _RESERVED) and not words & _LEGAL
