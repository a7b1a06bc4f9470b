"""The inbox's standing approvals: the grant chosen with an approve on a review page (read with
the CLI's own parser, ``resolve --grant DURATION --scope exact|tool``), and the page that lists
the grants in force with a revoke button each (a CSRF-protected form, like the resolve form).

The Supervisor keeps the grants (``hl.grants.query`` / ``hl.grants.revoke`` on NATS, or the
in-process Supervisor of a state file): the page asks it each time and never trusts the form.
"""

from __future__ import annotations

import re
from typing import Literal

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from humangr.cli.reviews import grant_duration
from humangr.contracts import Grant
from humangr.contracts.types import utc_now
from humangr.engine.errors import ConfigError, EngineError
from humangr.granting import list_grants, revoke_grant

from .app import GRANT_CHOICES, Inbox
from .forms import BadForm, read_form
from .sessions import COOKIE

__all__ = ["GRANT_CHOICES", "Scope", "grant_choice", "grant_list", "revoke"]

_GRANT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")

Scope = Literal["exact", "tool"]


def grant_choice(form: dict[str, str], verdict: str) -> tuple[float, Scope]:
    """The standing approval a resolve form asks for: ``(seconds, scope)``, ``(0, "exact")``
    for none. The duration is read by ``resolve --grant``'s parser (above 0, at most 30
    days); a grant comes with an approve only; the scope is ``exact`` or ``tool``. A
    ``ConfigError`` (shown on the page) or ``BadForm`` otherwise."""
    scope = form.get("scope", "exact")
    if scope not in ("exact", "tool"):
        raise BadForm("scope is exact or tool")
    chosen = form.get("grant", "").strip()
    if not chosen:
        return 0.0, "exact"
    if verdict != "approve":
        raise ConfigError("a standing approval comes with Approve only: a rejection grants nothing")
    try:
        seconds = grant_duration(chosen)
    except ConfigError as exc:
        raise ConfigError(str(exc).replace("--grant", "the standing approval")) from None
    return seconds, "tool" if scope == "tool" else "exact"


def _active(grants: list[Grant]) -> list[Grant]:
    now = utc_now()
    return sorted((g for g in grants if g.expires_at > now), key=lambda g: g.expires_at)


async def _page(request: Request, inbox: Inbox, *, status: int = 200, error: str = "") -> Response:
    session = inbox.session(request)
    try:
        grants = _active(await list_grants(inbox.channel))
    except EngineError as exc:
        grants, error, status = [], f"the Supervisor did not answer: {exc}", 503
    return inbox.page(request, session, "grants.html", status=status, grants=grants, error=error)


async def grant_list(request: Request) -> Response:
    """The standing approvals in force, soonest to expire first, each with a revoke button."""
    inbox: Inbox = request.app.state.inbox
    if inbox.session(request).reviewer is None:
        return RedirectResponse("/signin?next=/grants", 303)
    inbox.metrics.inbox_page_views.labels(page="grants").inc()
    return await _page(request, inbox)


async def revoke(request: Request) -> Response:
    """End one grant at once (a signed-in reviewer, this session's CSRF token)."""
    inbox: Inbox = request.app.state.inbox
    session = inbox.sessions.read(request.cookies.get(COOKIE))
    if session is None or session.reviewer is None:
        return inbox.refuse("signed_out", "sign in first: no anonymous revoke", 403)
    try:
        form = await read_form(request, ("csrf",))
    except BadForm as exc:
        return inbox.refuse("bad_form", str(exc), exc.status)
    if not inbox.sessions.check_csrf(session, form.get("csrf")):
        return inbox.refuse(
            "csrf", "the form's CSRF token is not this session's; reload the page", 403
        )
    grant_id = request.path_params["id"]
    if not _GRANT_ID.fullmatch(grant_id):
        return inbox.refuse("bad_form", "not a grant id", 400)
    try:
        await revoke_grant(inbox.channel, grant_id, session.reviewer, "revoked in the review inbox")
    except EngineError as exc:
        return await _page(request, inbox, status=409, error=str(exc))
    return RedirectResponse("/grants", 303)
