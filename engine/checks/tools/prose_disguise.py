"""Hosts written to be misread (for ``prose``), whatever the company: a recipient's or a
link's domain with a capital ``I`` standing for an ``l`` (``billing@acme-heaIth.com``), and a
host that carries a whole domain in front of another site (``files.acme.com.docshare.net``:
the site is ``docshare.net``, the company's name only a prefix). Public two-part suffixes
(``acme.com.au``) are not embedded domains. Pure functions; bounded scans.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import islice

from .prose_hosts import site_of
from .view import ToolView

__all__ = ["disguised_host", "disguised_hosts"]

_MAX_STRINGS = 64
_MAX_TEXT = 20_000
_HOSTS = re.compile(r"(?:@|https?://)([A-Za-z0-9][A-Za-z0-9.-]{2,252}\.[A-Za-z]{2,24})\b")
_CAPITAL_I = re.compile(r"[a-z]I(?:[a-z]|\.|-)")
_INNER_SUFFIX = frozenset({"com", "net", "org", "gov", "edu", "mil", "example"})


def disguised_host(host: str) -> str | None:
    """Why ``host`` (as written, case kept) reads as another site's, or None."""
    if (
        _CAPITAL_I.search(host)
        and sum(c.isupper() for c in host) == host.count("I")
        and any(c.islower() for c in host)
    ):
        return f"{host[:60]} writes a capital I where an l would be"
    labels = host.lower().rstrip(".").split(".")
    site = site_of(host)[0]
    before = labels[: max(0, len(labels) - site.count(".") - 1)]
    for i, label in enumerate(before[1:], start=1):
        if label in _INNER_SUFFIX:
            return f"{host[:60]} carries {'.'.join(labels[: i + 1])[:60]} in front of {site[:60]}"
    return None


def disguised_hosts(view: ToolView) -> Iterator[tuple[str, str]]:
    """``(argument, why)`` for the first disguised host each argument names."""
    for argument, text in list(view.strings())[:_MAX_STRINGS]:
        for m in islice(_HOSTS.finditer(text[:_MAX_TEXT]), 32):
            why = disguised_host(m.group(1))
            if why is not None:
                yield argument, why
                break
