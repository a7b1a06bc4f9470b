"""The review inbox: a web page where reviewers read a flagged action and decide.

``serve_inbox`` serves it (Starlette on uvicorn) for a ``review_client.Channel`` — a running
engine on NATS, or a Supervisor started in process on a SQLite state file; reviewers sign in
with a token of ``load_reviewers``. Templates and static files ship in this package.
"""

from __future__ import annotations

from humangr.extras import require_extra

require_extra("inbox")

from .app import Inbox, InboxSettings
from .live import Hub, LiveEvent
from .routes import create_app
from .server import Tls, is_loopback, serve_inbox
from .tokens import ENV_TOKENS, Reviewers, load_reviewers, parse_tokens

__all__ = [
    "ENV_TOKENS",
    "Hub",
    "Inbox",
    "InboxSettings",
    "LiveEvent",
    "Reviewers",
    "Tls",
    "create_app",
    "is_loopback",
    "load_reviewers",
    "parse_tokens",
    "serve_inbox",
]
