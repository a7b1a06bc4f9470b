"""Whether a DELETE's ``…/events/<id>`` is a calendar's meeting (for ``http_delete_one``).

``events`` names both a calendar's meetings and a log's or a security tool's records; removing
one meeting is everyday scheduling, removing a record hides a trace. An events collection is a
calendar's when a calendar is named before it (``/calendars/primary/events/…``,
``/me/calendar/events/…``) or when it hangs straight off the signed-in user or a user
(``/me/events/…``, ``/users/<id>/events/…``: Microsoft Graph's calendar)."""

from __future__ import annotations

__all__ = ["calendar_path"]


def calendar_path(parents: list[str]) -> bool:
    """Whether the path segments before ``events`` name a calendar (see the module)."""
    lowered = [p.lower() for p in parents[-6:]]
    if any(p in ("calendar", "calendars", "calendarview") for p in lowered):
        return True
    if lowered and lowered[-1] == "me":
        return True
    return len(lowered) >= 2 and lowered[-2] == "users"
