"""Links in a page or mail template that lead nowhere new (for ``coverage``).

A link whose target is one of the template's own values (``href="{{ order.tracking_url }}"``,
filled by the application from its own data), a path on the same site (``href="/account"``)
or a place on the page (``href="#top"``) sends no reader to a host the change names. A link
to an absolute address (``https://…``, ``//host``), a scheme (``javascript:``, ``data:``) or a
value that writes one into the template stays unread, so it needs a person when no LLM
reviews it (a reset link moved to a look-alike domain)."""

from __future__ import annotations

import re

__all__ = ["LINK_ATTRIBUTE", "own_links_only"]

LINK_ATTRIBUTE = re.compile(r"\b(?:src|href|action)\s*=", re.IGNORECASE)
_ATTRIBUTE_VALUE = re.compile(
    r"""\b(?:src|href|action)\s*=\s*(?:"([^"]{0,400})"|'([^']{0,400})'|([^\s>"']{0,400}))""",
    re.IGNORECASE,
)
_OWN_VALUE = re.compile(r"^\{\{\s*[A-Za-z_][\w.]{0,100}\s*\}\}$")
"""One of the template's values by name alone: no literal, filter or call inside."""
_SITE_PATH = re.compile(r"^(?:/(?!/)|#)[\w./#?=&%{}\s-]{0,300}$")
_MAX_CHARS = 4_000


def _own(value: str) -> bool:
    if ":" in value or "//" in value or "\\" in value:
        return False
    return bool(_OWN_VALUE.match(value) or _SITE_PATH.match(value))


def own_links_only(line: str) -> bool:
    """Whether every ``href``/``src``/``action`` on ``line`` leads to one of the template's
    own values, a path on the same site or a place on the page (a line too long to read whole
    is not)."""
    if len(line) > _MAX_CHARS:
        return False
    found = 0
    for m in _ATTRIBUTE_VALUE.finditer(line):
        found += 1
        value = next(g for g in m.groups() if g is not None).strip()
        if not _own(value):
            return False
    return found == len(LINK_ATTRIBUTE.findall(line))
