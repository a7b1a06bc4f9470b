"""A standing data feed set up from the company's own system to somebody else's host (for
``consequence``), high: a webhook, event subscription, export destination or sink created or
changed at a service whose address the call names, with a destination on another
organisation's domain. Every future record or event the feed selects goes there, unreviewed.

The call's own hosts are the request's host and the addresses its other arguments name; a
destination on one of their domains (``hooks.acme.com`` from ``fhir.acme.com``, ``acme.io``
from ``acme.com``), on this machine or an internal name runs. A platform that serves every
customer's webhooks (a payment, code-hosting, chat or identity provider) always sends them to
another domain, so feeds created there are left to the rules that read what they carry.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from .business_words import Finding, Pair, acts

__all__ = ["feed_elsewhere", "owner_domain"]

_FEEDS = frozenset(
    {"webhook", "webhooks", "hook", "hooks", "subscription", "subscriptions", "destination",
     "destinations", "sink", "sinks", "export", "exports", "stream", "streams", "feed", "feeds",
     "forwarder", "forwarders", "integration", "integrations", "callback", "callbacks",
     "notification", "notifications", "listener", "listeners", "endpoint", "endpoints"}
)  # fmt: skip
_SETS_UP = frozenset(
    {"create", "add", "register", "update", "set", "put", "subscribe", "configure", "new",
     "upsert", "enable", "install", "connect"}
)  # fmt: skip
_DESTINATION = re.compile(
    r"^(?:url|uri|endpoint|address|webhook_?url|notification_?url|callback_?url|callback|"
    r"target_?url|delivery_?url|destination_?url|destination|receiver_?url|push_?endpoint|"
    r"hook_?url|sink_?url|export_?url)$"
)
_URL = re.compile(r"(?i)^\s*https?://([a-z0-9.-]{1,253})(?::\d{1,5})?(?:[/?#]|$)")
_ANY_URL = re.compile(r"(?i)https?://([a-z0-9.-]{1,253})")
_INTERNAL = re.compile(
    r"(?i)^(?:localhost|127\.\d+\.\d+\.\d+|10\.\d+\.\d+\.\d+|192\.168\.\d+\.\d+|"
    r"172\.(?:1[6-9]|2\d|3[01])\.\d+\.\d+|[a-z0-9-]{1,63})$|\.(?:internal|local|localhost|corp|"
    r"lan|svc|intranet|home\.arpa|cluster\.local)$"
)
_PLATFORMS = frozenset(
    {"stripe.com", "github.com", "gitlab.com", "bitbucket.org", "slack.com", "microsoft.com",
     "microsoftonline.com", "office.com", "office365.com", "googleapis.com", "google.com",
     "myshopify.com", "shopify.com", "atlassian.net", "atlassian.com", "zendesk.com",
     "hubapi.com", "hubspot.com", "twilio.com", "sendgrid.com", "segmentapis.com",
     "segment.com", "segment.io", "salesforce.com", "okta.com", "pagerduty.com",
     "mailchimp.com", "intercom.io", "linear.app", "notion.com", "vercel.com", "netlify.com",
     "heroku.com", "cloudflare.com", "amazonaws.com", "azure.com", "docusign.net",
     "paypal.com", "adyen.com", "square.com", "squareup.com", "braintreegateway.com",
     "digitalocean.com", "datadoghq.com", "discord.com", "zoom.us", "box.com", "dropbox.com",
     "dropboxapi.com", "airtable.com", "asana.com", "monday.com", "clickup.com", "trello.com",
     "calendly.com", "typeform.com", "mux.com", "plaid.com", "marqeta.com", "auth0.com"}
)  # fmt: skip
"""Platforms whose webhooks serve every customer: a feed from them leaves their domain by
design."""
_SHORT_SECOND = re.compile(r"^(?:co|com|net|org|gov|ac|edu|or|ne|go)$")


def owner_domain(host: str) -> str:
    """The domain an organisation registers (``fhir.acme.co.uk`` → ``acme.co.uk``)."""
    labels = host.lower().rstrip(".").split(".")[-4:]
    if len(labels) >= 3 and len(labels[-1]) == 2 and _SHORT_SECOND.match(labels[-2]):
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


def _brand(domain: str) -> str:
    return domain.split(".", 1)[0]


def _same_owner(host: str, own: Sequence[str]) -> bool:
    mine = owner_domain(host)
    return any(
        owner_domain(o) == mine
        or (len(_brand(mine)) >= 4 and _brand(owner_domain(o)) == _brand(mine))
        for o in own
    )


def _destination(pairs: Sequence[Pair]) -> tuple[str, str] | None:
    """The feed's destination argument and host, when it is on the internet."""
    for key, value in pairs[:400]:
        if _DESTINATION.match(key) and isinstance(value, str):
            m = _URL.match(value[:400])
            if m is not None and not _INTERNAL.search(m.group(1)):
                return key, m.group(1).lower()
    return None


def feed_elsewhere(
    words: set[str], pairs: Sequence[Pair], own_hosts: Sequence[str]
) -> Iterator[Finding]:
    """A standing feed created at one of the call's own hosts towards another domain."""
    if not acts(words) or not words & _SETS_UP:
        return
    shaped = any(
        k == "resourcetype" and isinstance(v, str) and v.lower() == "subscription"
        for k, v in pairs[:400]
    )
    if not (words & _FEEDS or shaped):
        return
    found = _destination(pairs)
    if found is None:
        return
    key, where = found
    own = [h.lower() for h in own_hosts if h and not _INTERNAL.search(h)]
    own += [
        m.group(1).lower()
        for k, v in pairs[:400]
        if isinstance(v, str) and not _DESTINATION.match(k)
        for m in _ANY_URL.finditer(v[:2048])
        if not _INTERNAL.search(m.group(1))
    ][:16]
    if not own or any(owner_domain(h) in _PLATFORMS for h in own):
        return
    if _same_owner(where, own):
        return
    yield (
        "sets up a standing feed to another organisation's host",
        f"`{key[:40]}` sends what the feed selects to {where[:80]}, which is none of the "
        "call's own hosts, from now on and unreviewed.",
        "Point feeds at the company's own systems, or let a person confirm the recipient.",
    )
