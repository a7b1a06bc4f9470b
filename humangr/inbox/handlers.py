"""The inbox's pages and forms: sign in and out, the list, one review, and its resolution."""

from __future__ import annotations

import contextlib
import re

import anyio
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from humangr.cli.reviews import check_reason
from humangr.contracts import ReviewDetail
from humangr.engine.errors import ConfigError, EngineError
from humangr.engine.review import LAYERS
from humangr.reviewing import Verdict, check_id, detail_of, list_reviews
from humangr.reviewing import resolve as send_resolution

from .app import Inbox
from .forms import BadForm, clean_text, read_form, require
from .grants import Scope, grant_choice
from .pages import Filters, filter_reviews, review_page
from .sessions import COOKIE, Session

__all__ = [
    "open_review",
    "resolve_review",
    "review",
    "review_list",
    "review_rows",
    "signin",
    "signin_page",
    "signout",
]

_NEXT = re.compile(r"/reviews(/[A-Za-z0-9][A-Za-z0-9_-]{0,63})?")
_HASH = re.compile(r"[0-9a-f]{64}")


class _Refused(EngineError):
    def __init__(self, reason: str, message: str, status: int) -> None:
        super().__init__(message)
        self.reason = reason
        self.status = status


async def _form(
    request: Request, inbox: Inbox, session: Session, allowed: tuple[str, ...], *required: str
) -> dict[str, str]:
    """The posted form, once its CSRF token is ``session``'s and it has ``required``."""
    try:
        form = await read_form(request, ("csrf", *allowed))
    except BadForm as exc:
        raise _Refused("bad_form", str(exc), exc.status) from None
    if not inbox.sessions.check_csrf(session, form.get("csrf")):
        raise _Refused("csrf", "the form's CSRF token is not this session's; reload the page", 403)
    try:
        require(form, required)
    except BadForm as exc:
        raise _Refused("bad_form", str(exc), exc.status) from None
    return form


def _inbox(request: Request) -> Inbox:
    inbox: Inbox = request.app.state.inbox
    return inbox


def _signed_in(request: Request) -> tuple[Inbox, Session, str | None]:
    inbox = _inbox(request)
    session = inbox.session(request)
    return inbox, session, session.reviewer


def _to_signin(request: Request) -> RedirectResponse:
    target = request.url.path
    where = f"/signin?next={target}" if _NEXT.fullmatch(target) else "/signin"
    return RedirectResponse(where, 303)


async def signin_page(request: Request) -> Response:
    inbox, session, reviewer = _signed_in(request)
    if reviewer is not None:
        return RedirectResponse("/reviews", 303)
    given = request.query_params.get("next", "")
    inbox.metrics.inbox_page_views.labels(page="signin").inc()
    return inbox.page(
        request, session, "signin.html", next=given if _NEXT.fullmatch(given) else "", error=""
    )


async def signin(request: Request) -> Response:
    inbox = _inbox(request)
    host = request.client.host if request.client else None
    wait = inbox.limiter.admit(host)
    if wait is not None:
        refused = inbox.refuse(
            "rate_limited",
            f"too many sign-in attempts from your address; try again in {wait} s",
            429,
        )
        refused.headers["retry-after"] = str(wait)
        return refused
    session = inbox.sessions.read(request.cookies.get(COOKIE))
    if session is None:
        return inbox.refuse(
            "csrf", "no session: open the sign-in page again (cookies must be allowed)", 403
        )
    try:
        form = await _form(request, inbox, session, ("token", "next"), "token")
    except _Refused as refused:
        return inbox.refuse(refused.reason, str(refused), refused.status)
    next_page = form.get("next", "")
    reviewer = inbox.reviewers.who(form["token"].strip())
    if reviewer is None:
        inbox.metrics.inbox_refused.labels(reason="bad_token").inc()
        inbox.limiter.failed(host)
        await anyio.sleep(inbox.settings.failed_sign_in_delay)
        return inbox.page(
            request,
            session,
            "signin.html",
            status=401,
            next=next_page if _NEXT.fullmatch(next_page) else "",
            error="This token is not valid. Ask for yours to whoever runs the inbox.",
        )
    inbox.limiter.succeeded(host)
    fresh = inbox.sessions.new(reviewer)
    response = RedirectResponse(next_page if _NEXT.fullmatch(next_page) else "/reviews", 303)
    inbox.set_cookie(request, response, fresh)
    return response


async def signout(request: Request) -> Response:
    inbox = _inbox(request)
    session = inbox.sessions.read(request.cookies.get(COOKIE))
    if session is None:
        return RedirectResponse("/signin", 303)
    try:
        await _form(request, inbox, session, ())
    except _Refused as refused:
        return inbox.refuse(refused.reason, str(refused), refused.status)
    inbox.sessions.revoke(session)
    response = RedirectResponse("/signin", 303)
    inbox.set_cookie(request, response, inbox.sessions.new())
    return response


async def _rows(request: Request, inbox: Inbox, session: Session, template: str) -> Response:
    try:
        filters = Filters.of(request.query_params.get("agent"), request.query_params.get("layer"))
    except BadForm as exc:
        return inbox.refuse("bad_form", str(exc), exc.status)
    error = ""
    try:
        listing = await list_reviews(inbox.channel, limit=1_000)
        reviews = listing.reviews
    except EngineError as exc:
        reviews, error = [], f"the Supervisor did not answer: {exc}"
    shown = filter_reviews(reviews, filters)
    return inbox.page(
        request,
        session,
        template,
        reviews=shown,
        total=len(reviews),
        agents=sorted({r.agent_id for r in reviews} | ({filters.agent} - {""})),
        filters=filters,
        recent=list(inbox.hub.recent)[:20],
        layers=[(spec.id.value, spec.name) for spec in LAYERS.values()],
        error=error,
    )


async def review_list(request: Request) -> Response:
    inbox, session, reviewer = _signed_in(request)
    if reviewer is None:
        return _to_signin(request)
    inbox.metrics.inbox_page_views.labels(page="list").inc()
    return await _rows(request, inbox, session, "list.html")


async def review_rows(request: Request) -> Response:
    inbox, session, reviewer = _signed_in(request)
    if reviewer is None:
        return inbox.refuse("signed_out", "sign in first", 401)
    return await _rows(request, inbox, session, "rows.html")


async def open_review(request: Request) -> Response:
    inbox, _, reviewer = _signed_in(request)
    if reviewer is None:
        return _to_signin(request)
    wanted = request.query_params.get("id", "").strip()
    try:
        return RedirectResponse(f"/reviews/{check_id(wanted)}", 303)
    except ConfigError as exc:
        return inbox.refuse("bad_form", str(exc), 400)


def _review_page(
    request: Request,
    inbox: Inbox,
    session: Session,
    detail: ReviewDetail,
    *,
    status: int = 200,
    error: str = "",
    reason: str = "",
    form: dict[str, str] | None = None,
) -> HTMLResponse:
    chosen = form or {}
    return inbox.page(
        request,
        session,
        "review.html",
        status=status,
        view=review_page(detail),
        error=error,
        reason=reason,
        grant=chosen.get("grant", ""),
        scope=chosen.get("scope", "exact"),
    )


def _missing(request: Request, inbox: Inbox, session: Session, error: EngineError) -> HTMLResponse:
    """No such review (404), or the Supervisor could not say (503)."""
    message = str(error)
    unknown = isinstance(error, ConfigError) or message.startswith("no review of")
    title = "No such review" if unknown else "The Supervisor did not answer"
    return inbox.page(
        request,
        session,
        "missing.html",
        status=404 if unknown else 503,
        title=title,
        message=message,
    )


async def review(request: Request) -> Response:
    inbox, session, reviewer = _signed_in(request)
    if reviewer is None:
        return _to_signin(request)
    id_ = request.path_params["id"]
    try:
        detail = await detail_of(inbox.channel, id_)
    except EngineError as exc:
        return _missing(request, inbox, session, exc)
    inbox.metrics.inbox_page_views.labels(page="review").inc()
    return _review_page(request, inbox, session, detail)


async def resolve_review(request: Request) -> Response:
    inbox, session, reviewer = _signed_in(request)
    if reviewer is None:
        return inbox.refuse("signed_out", "sign in first: no anonymous resolution", 403)
    fields = ("action_hash", "verdict", "reason")
    try:
        form = await _form(request, inbox, session, (*fields, "grant", "scope"), *fields)
    except _Refused as refused:
        return inbox.refuse(refused.reason, str(refused), refused.status)
    verdict, expected = form["verdict"], form["action_hash"]
    if verdict not in ("approve", "reject") or not _HASH.fullmatch(expected):
        return inbox.refuse("bad_form", "verdict is approve or reject, action_hash 64 hex", 400)
    try:
        detail = await detail_of(inbox.channel, request.path_params["id"])
    except EngineError as exc:
        return _missing(request, inbox, session, exc)
    try:
        reason = check_reason(clean_text(form["reason"], "reason").strip())
        grant = grant_choice(form, verdict)  # the CLI's own checks: never trust the form
    except (BadForm, ConfigError) as exc:
        text = str(exc).replace("--reason", "the reason")
        return _review_page(
            request,
            inbox,
            session,
            detail,
            status=400,
            error=text,
            reason=form["reason"],
            form=form,
        )
    return await _send(request, inbox, session, detail, _verdict(verdict), reason, expected, grant)


def _verdict(value: str) -> Verdict:
    return "approve" if value == "approve" else "reject"


async def _send(
    request: Request,
    inbox: Inbox,
    session: Session,
    detail: ReviewDetail,
    verdict: Verdict,
    reason: str,
    expected: str,
    grant: tuple[float, Scope] = (0.0, "exact"),
) -> Response:
    action_id, reviewer = detail.report.action_id, session.reviewer or ""
    metrics = inbox.metrics.inbox_decisions
    try:
        final = await send_resolution(
            inbox.channel,
            action_id,
            verdict,
            reviewer,
            reason,
            wait=inbox.settings.timeout,
            expected_hash=expected,
            grant_s=grant[0],
            grant_scope=grant[1],
        )
    except EngineError as exc:
        with contextlib.suppress(EngineError):
            detail = await detail_of(inbox.channel, action_id)
        settling = not detail.pending and detail.final is None
        metrics.labels(verdict="unconfirmed" if settling else "refused").inc()
        return _review_page(
            request, inbox, session, detail, status=409, error=str(exc), reason=reason
        )
    metrics.labels(verdict=final.outcome.value).inc()
    return RedirectResponse(f"/reviews/{action_id}", 303)
