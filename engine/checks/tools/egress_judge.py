"""How ``data-egress`` (``egress``) judges what leaves: where a request goes (a capture or
paste site, a raw or private address, this machine, a named host), whether a host is a
token's own service, how bad a secret or people's data is at that destination, and the form
of its findings (values are never repeated)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from humangr.contracts import Severity

from ..base import Hit
from .egress_scan import Secret
from .http_call import HttpCall
from .http_sites import METADATA_HOSTS, SECRET_HOMES, host_in, is_capture, is_echo, is_paste
from .netaddr import Reach
from .personal_data import PersonalData
from .view import ToolView

__all__ = [
    "SUGGEST_PERSONAL",
    "SUGGEST_SECRET",
    "C",
    "Dest",
    "H",
    "destination",
    "hit",
    "personal_severity",
    "secret_severity",
    "service_severity",
    "with_article",
]

C, H = Severity.CRITICAL, Severity.HIGH
_FEW = 3
"""People whose contact details make a list (one or two are what any message names)."""
SUGGEST_SECRET = "Do not send credentials anywhere but the service they belong to."
SUGGEST_PERSONAL = (
    "Do not send people's data outside; if this destination is meant, add it to "
    "allowed_hosts / allowed_email_domains, or send aggregates instead."
)


@dataclass(frozen=True, slots=True)
class Dest:
    """Where a request goes: its host (or the start of a URL that could not be read), what
    kind of place that is, and whether it is reached over TLS."""

    name: str
    kind: str
    """``capture`` (capture, echo, paste, metadata), ``raw`` (public IP), ``internal`` (a private
    network), ``local`` (this machine), ``host`` (a name)."""
    https: bool


def destination(call: HttpCall) -> Dest:
    """Where ``call`` sends what it carries."""
    url = call.url
    if url is None:
        return Dest(call.raw_url[:60] or "?", "raw", False)
    host = url.host.name
    https = url.scheme in ("https", "wss")
    addr = url.host.addr
    if is_capture(host) or is_echo(host) or is_paste(host) or host in METADATA_HOSTS:
        return Dest(host, "capture", https)
    if addr is not None:
        if addr.reach is Reach.METADATA:
            return Dest(host, "capture", https)
        if addr.reach in (Reach.LOOPBACK, Reach.UNSPECIFIED):
            return Dest(host, "local", https)
        return Dest(host, "raw" if addr.reach is Reach.PUBLIC else "internal", https)
    return Dest(host, "host", https)


def _home(kind: str, host: str) -> bool:
    """``host`` is where a ``kind`` token is meant to go: its service's domain or a subdomain;
    for GitHub and GitLab also a server of one's own named after them (``gitlab.acme.io``,
    ``github.company.com``). A host that spells the service's domain inside another name
    (``github.com-status.net``, ``api-github.com``, ``github.com.evil.io``) is a look-alike,
    never a home."""
    homes = SECRET_HOMES.get(kind)
    if homes is None:
        return False
    if host_in(host, homes):
        return True
    if any(re.search(rf"(?:^|[.-]){re.escape(home)}(?:$|[.-])", host) for home in homes):
        return False  # the service's domain written inside someone else's
    if kind in ("GitHub token", "GitLab token"):
        return kind.split()[0].lower() in host.split(".")
    return False


def secret_severity(secret: Secret, dest: Dest, *, header: bool, login: bool) -> Severity | None:
    """How bad sending ``secret`` to ``dest`` is (None: everyday)."""
    if _home(secret.kind, dest.name):
        return None
    provider = secret.kind in SECRET_HOMES or secret.kind == "private key"
    if dest.kind == "internal":
        return H if provider else None
    if provider or dest.kind in ("capture", "raw"):
        return C
    if header:
        return None if dest.https else H
    if login:
        return None
    return C if secret.severity == "critical" else H


def service_severity(kind: str, dest: Dest) -> Severity | None:
    """How bad sending a token read by its service prefix (``service_token``) to ``dest`` is:
    high anywhere but its service, critical to a raw address or a capture site."""
    if _home(kind, dest.name):
        return None
    return C if dest.kind in ("capture", "raw") else H


def personal_severity(p: PersonalData, dest_kind: str) -> Severity | None:
    """How bad sending ``p`` (people's data) to a ``dest_kind`` destination is (None:
    everyday)."""
    if p.cards or p.national_ids or len(p.emails) >= 5 or p.health + p.hr >= 2:
        return C
    if p.people >= _FEW or len(p.banks) >= 2:
        return C if dest_kind in ("capture", "raw") else H
    if (p.record or p.health or p.hr) and dest_kind != "local":
        return C if dest_kind in ("capture", "raw") else H
    return None


def with_article(kind: str) -> str:
    """``kind`` with its article (``a GitHub token``, ``an AWS credential``)."""
    return ("an " if kind[:1].lower() in "aeiou" else "a ") + kind


def hit(
    view: ToolView,
    argument: str,
    severity: Severity,
    title: str,
    suggestion: str | None = None,
) -> Hit:
    """One finding on data leaving through ``argument`` (values are never repeated)."""
    return Hit(
        severity=severity,
        title=title,
        description=(
            f"`{argument}` of {view.name} {title}: it leaves for a destination the deployment "
            "does not trust (not in allowed_hosts / allowed_email_domains). Values are not "
            "repeated here."
        ),
        suggestion=suggestion,
        argument=argument or None,
    )
