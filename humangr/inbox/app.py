"""The review inbox as an ASGI app (Starlette): pages rendered from jinja2 templates shipped in
the package, static files from the package, sessions, and the security headers."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import jinja2
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response

from humangr.engine.metrics import Metrics
from humangr.render.diff import printable
from humangr.reviewing import Channel

from .limits import SignInLimiter
from .live import Hub
from .pages import age, time_left
from .sessions import COOKIE, Session, Sessions
from .tokens import Reviewers

__all__ = ["GRANT_CHOICES", "HERE", "Inbox", "InboxSettings"]

HERE = Path(__file__).resolve().parent
GRANT_CHOICES = (
    ("15m", "15 minutes"),
    ("1h", "1 hour"),
    ("8h", "8 hours"),
    ("1d", "1 day"),
    ("7d", "7 days"),
    ("30d", "30 days"),
)
"""The standing-approval durations the review page offers (the server reads any duration
``resolve --grant`` takes, at most 30 days)."""


@dataclass(frozen=True, slots=True)
class InboxSettings:
    """How the inbox behaves; the defaults are ``humangr inbox``'s."""

    timeout: float = 10.0
    """Seconds to wait for each answer of the Supervisor, and for a final decision."""
    session_s: float = 8 * 3600.0
    """How long a sign-in lasts."""
    poll_s: float = 5.0
    """How often the pending list is compared, for the live updates."""
    queue_size: int = 32
    """Events a page may fall behind before it is dropped (and reconnects)."""
    max_clients: int = 100
    """Pages receiving live updates at once."""
    failed_sign_in_delay: float = 0.3
    """Seconds a refused sign-in waits before it answers."""
    max_streams_per_reviewer: int = 8
    """Live-update pages one reviewer may have open at once (of ``max_clients``)."""
    sign_in_burst: int = 5
    """Sign-in attempts one client address may make at once..."""
    sign_in_per_s: float = 0.5
    """...and then per second (``429`` with ``Retry-After`` past that)."""
    lockout_after: int = 10
    """Wrong tokens in a row that lock a client address out..."""
    lockout_s: float = 900.0
    """...for this many seconds."""
    header_timeout: float = 10.0
    """Seconds a client has to send a request's line and headers, else it is disconnected."""
    body_timeout: float = 30.0
    """Seconds a client has to send a request's body, else it is disconnected."""


def _when(value: datetime | None) -> str:
    return "" if value is None else value.strftime("%Y-%m-%d %H:%M:%S UTC")


def _iso(value: datetime | None) -> str:
    return "" if value is None else value.isoformat()


def shown(text: object) -> str:
    """``text`` with control and invisible characters written as escapes (line breaks kept);
    the templates escape the result for HTML."""
    return "\n".join(printable(line) for line in str(text).split("\n"))


def templates() -> jinja2.Environment:
    """The page templates: every value escaped, control characters shown as escapes."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["printable"] = shown
    env.filters["when"] = _when
    env.filters["iso"] = _iso
    env.filters["first_line"] = lambda text: next(iter(str(text).strip().splitlines()), "")[:200]
    env.globals["left"] = time_left
    env.globals["age"] = age
    env.globals["grant_choices"] = GRANT_CHOICES
    return env


class Inbox:
    """What every request of one inbox shares."""

    def __init__(
        self,
        channel: Channel,
        reviewers: Reviewers,
        metrics: Metrics,
        hub: Hub,
        settings: InboxSettings,
    ) -> None:
        self.channel = channel
        self.reviewers = reviewers
        self.metrics = metrics
        self.hub = hub
        self.settings = settings
        self.sessions = Sessions(lifetime_s=settings.session_s)
        self.limiter = SignInLimiter(
            burst=settings.sign_in_burst,
            per_s=settings.sign_in_per_s,
            lockout_after=settings.lockout_after,
            lockout_s=settings.lockout_s,
        )
        self.templates = templates()

    def session(self, request: Request) -> Session:
        """The request's session, or a new anonymous one."""
        return self.sessions.read(request.cookies.get(COOKIE)) or self.sessions.new()

    def set_cookie(self, request: Request, response: Response, session: Session) -> None:
        """Give the browser ``session``'s cookie: HttpOnly, SameSite=Strict, Secure on TLS."""
        response.set_cookie(
            COOKIE,
            self.sessions.cookie(session),
            max_age=int(self.settings.session_s),
            path="/",
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
        )

    def page(
        self,
        request: Request,
        session: Session,
        template: str,
        *,
        status: int = 200,
        **context: Any,
    ) -> HTMLResponse:
        """``template`` rendered for ``session`` (its CSRF token in every form)."""
        html = self.templates.get_template(template).render(
            session=session, csrf=self.sessions.csrf(session), **context
        )
        response = HTMLResponse(html, status_code=status)
        if session.fresh:
            self.set_cookie(request, response, session)
        return response

    def refuse(self, reason: str, message: str, status: int) -> PlainTextResponse:
        """A refused request: counted, answered in one line."""
        self.metrics.inbox_refused.labels(reason=reason).inc()
        return PlainTextResponse(message + "\n", status_code=status)
