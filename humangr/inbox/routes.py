"""The inbox's routes: each page and form to its handler."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.responses import PlainTextResponse, RedirectResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from . import events, grants, handlers
from .app import HERE, Inbox
from .security import SecurityHeaders

__all__ = ["create_app"]


def create_app(inbox: Inbox) -> Starlette:
    """The inbox's ASGI app."""
    routes = [
        Route("/", lambda _: RedirectResponse("/reviews", 303)),
        Route("/healthz", lambda _: PlainTextResponse("ok\n")),
        Route("/signin", handlers.signin_page, methods=["GET"]),
        Route("/signin", handlers.signin, methods=["POST"]),
        Route("/signout", handlers.signout, methods=["POST"]),
        Route("/reviews", handlers.review_list, methods=["GET"]),
        Route("/reviews/rows", handlers.review_rows, methods=["GET"]),
        Route("/reviews/open", handlers.open_review, methods=["GET"]),
        Route("/reviews/{id}", handlers.review, methods=["GET"]),
        Route("/reviews/{id}/resolve", handlers.resolve_review, methods=["POST"]),
        Route("/grants", grants.grant_list, methods=["GET"]),
        Route("/grants/{id}/revoke", grants.revoke, methods=["POST"]),
        Route("/events", events.live_events, methods=["GET"]),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.inbox = inbox
    app.add_middleware(SecurityHeaders)
    return app
