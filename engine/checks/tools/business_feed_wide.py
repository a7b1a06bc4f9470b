"""A standing feed to an outside host that is wide or unguarded (for ``consequence``), high:
a webhook, destination, subscription or callback created or changed, whose destination is an
address on the internet, and which

- selects everything the service emits (``events=["*"]``, ``"all events"``, ``"all"``), or
- turns certificate checks off for its deliveries (``insecure_ssl="1"``, ``verify_ssl=false``),
  or
- delivers to a host anyone can rent or open in a minute (an app on a shared hosting domain,
  a tunnel, a request catcher), or to a host that borrows the service's own brand without
  being the service (``stripe-events-relay.…`` for a Stripe webhook).

Whose host a destination is cannot be known from the call alone, so a feed of named events to
an ordinary host (the company's own app) runs; so do feeds to this machine and internal
names. Pure and bounded: at most 400 argument pairs, 400 characters of each address.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from .business_feed_hosts import owner_domain
from .business_words import Finding, Pair, acts

__all__ = ["service_brands", "wide_feed"]

_FEEDS = frozenset(
    {"webhook", "webhooks", "hook", "hooks", "subscription", "subscriptions", "destination",
     "destinations", "sink", "sinks", "callback", "callbacks", "endpoint", "endpoints",
     "forwarder", "forwarders", "integration", "integrations", "listener", "listeners", "feed",
     "feeds", "stream", "streams", "relay", "relays", "notification", "notifications"}
)  # fmt: skip
_SETS_UP = frozenset(
    {"create", "add", "register", "update", "set", "put", "patch", "subscribe", "configure",
     "new", "upsert", "enable", "install", "connect", "post"}
)  # fmt: skip
_DESTINATION = re.compile(
    r"^(?:url|uri|endpoint|address|callback|destination|target|host|"
    r"\w{0,30}_?(?:url|uri|endpoint))$"
)
_URL = re.compile(r"(?i)^\s*https?://([a-z0-9.-]{1,253})(?::\d{1,5})?(?:[/?#]|$)")
_INTERNAL = re.compile(
    r"(?i)^(?:localhost|127\.\d+\.\d+\.\d+|10\.\d+\.\d+\.\d+|192\.168\.\d+\.\d+|"
    r"172\.(?:1[6-9]|2\d|3[01])\.\d+\.\d+|[a-z0-9-]{1,63})$|\.(?:internal|local|localhost|corp|"
    r"lan|svc|intranet|home\.arpa|cluster\.local)$"
)
_EVENT_KEYS = re.compile(
    r"^(?:events?|enabled_?events|event_?types?|topics?|types|subscriptions?|triggers?|"
    r"name|scope|filter)$"
)
_ALL = re.compile(r"(?i)^\s*(?:\*|all|all[ _-]events?|every(?:thing)?|\*\.\*|all[ _-]types)\s*$")
_INSECURE_KEYS = re.compile(r"^(?:insecure_?ssl|insecure|skip_?tls_?verify|tls_?insecure)$")
_VERIFY_KEYS = re.compile(
    r"^(?:verify_?ssl|ssl_?verify|verify_?tls|tls_?verify|ssl_?verification)$"
)
_RENTED = (
    "herokuapp.com", "glitch.me", "repl.co", "replit.app", "replit.dev", "ngrok.io",
    "ngrok-free.app", "ngrok.app", "trycloudflare.com", "workers.dev", "pages.dev",
    "webhook.site", "requestbin.com", "pipedream.net", "beeceptor.com", "loca.lt",
    "serveo.net", "localtunnel.me", "hookbin.com", "requestcatcher.com", "onrender.com",
    "fly.dev", "vercel.app", "netlify.app", "firebaseapp.com", "web.app", "github.io",
    "000webhostapp.com", "pythonanywhere.com", "ngrok.dev", "deno.dev", "val.run",
)  # fmt: skip
"""Domains where anyone hosts an app, opens a tunnel or catches requests in a minute."""
_MAX = 400


def _destination(pairs: Sequence[Pair]) -> tuple[str, str] | None:
    for key, value in pairs[:_MAX]:
        if isinstance(value, str) and _DESTINATION.match(key):
            m = _URL.match(value[:400])
            if m is not None and not _INTERNAL.search(m.group(1)):
                return key, m.group(1).lower().rstrip(".")
    return None


def _selects_all(pairs: Sequence[Pair]) -> bool:
    for key, value in pairs[:_MAX]:
        if not _EVENT_KEYS.match(key):
            continue
        items = value if isinstance(value, list) else [value]
        if any(isinstance(i, str) and len(i) < 40 and _ALL.match(i) for i in items[:50]):
            return True
    return False


def _unverified(pairs: Sequence[Pair]) -> str | None:
    for key, value in pairs[:_MAX]:
        on = value is True or (
            isinstance(value, (str, int)) and str(value).lower() in ("1", "true")
        )
        off = value is False or (
            isinstance(value, (str, int)) and str(value).lower() in ("0", "false")
        )
        if (_INSECURE_KEYS.match(key) and on) or (_VERIFY_KEYS.match(key) and off):
            return key
    return None


def _rented(host: str) -> bool:
    return any(host == d or host.endswith("." + d) for d in _RENTED)


def _borrows_brand(host: str, brands: set[str]) -> str | None:
    """A service's brand (four letters or more) among the destination's labels while the
    destination's domain is not the brand's."""
    domain = owner_domain(host)
    own = domain.split(".", 1)[0]
    labels = set(re.split(r"[.-]", host[: len(host) - len(domain)])) | set(own.split("-"))
    return next((b for b in sorted(brands) if len(b) >= 4 and b != own and b in labels), None)


def service_brands(tool: str, hosts: Sequence[str]) -> set[str]:
    """The service a call is made to: an MCP server's name or the first word of a tool's
    name (``stripe.webhookEndpoints.create`` → ``stripe``), and the brand of each request
    host (``api.stripe.com`` → ``stripe``)."""
    parts = tool.split("__")
    head = parts[1] if len(parts) >= 3 and parts[0] == "mcp" else re.split(r"[._\-]", tool)[0]
    out = {head.lower()} if head.isalpha() else set()
    return out | {owner_domain(h).split(".", 1)[0] for h in hosts[:4] if "." in h}


def wide_feed(words: set[str], pairs: Sequence[Pair], brands: set[str]) -> Iterator[Finding]:
    """A feed set up to an outside host that takes everything, skips certificate checks, or
    goes to a rented host or one borrowing the service's brand. ``brands`` are the words of
    the tool's own name (its service: ``stripe``, ``github``)."""
    if not acts(words) or not words & _SETS_UP or not words & _FEEDS:
        return
    found = _destination(pairs)
    if found is None:
        return
    key, host = found
    if _selects_all(pairs):
        why = "it takes every event the service emits, whatever records they carry"
    elif (flag := _unverified(pairs)) is not None:
        why = f"`{flag[:30]}` turns certificate checks off, so anyone on the path reads it"
    elif _rented(host):
        why = "the host is on a domain where anyone hosts an app or catches requests"
    elif (brand := _borrows_brand(host, brands)) is not None:
        why = f"the host borrows the `{brand}` name without being its service"
    else:
        return
    yield (
        "sets up a wide or unguarded feed to an outside host",
        f"`{key[:40]}` sends the feed to {host[:80]} from now on: {why}.",
        "Subscribe only the events needed, keep certificate checks on, and let a person "
        "confirm where the feed goes.",
    )
