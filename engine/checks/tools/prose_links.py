"""Links and addresses made to pass for the company's own (for ``prose``):

- a link whose shown text is an address on one site while it goes to another
  (``<a href="https://sso-acme.com/…">https://sso.acme.com/…</a>``, or Markdown's
  ``[text](href)``): the reader trusts what they see;
- a link to people's data or an export left open to anyone who has it ("anyone with the
  link", "public link");
- a link or a recipient on a lookalike of the company's own domain: a different site whose
  name is the company's joined to another word (``acme-security.com``, ``sso-acme.com`` for
  ``acme.com``) — the company's domains being the sender's, the allowed ones and those of the
  addresses the message itself names.

Link trackers and safe-link rewriters (``click.…``, ``safelinks.…``, ``urldefense.…``) show
one address and go through another by design; they are left alone. Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .prose_hosts import one_apart, site_of

__all__ = ["DOCUMENT_STORE", "lookalike_of_own", "mismatched_link", "open_link_to_data"]

_MAX_TEXT = 20_000
_ANCHOR = re.compile(
    r"(?is)<a\b[^>]{0,400}?\bhref\s{0,3}=\s{0,3}[\"']?(https?://[^\"'\s>]{1,2000})[^>]{0,400}>"
    r"(.{0,400}?)</a>"
)
_MARKDOWN = re.compile(r"\[([^\]\n]{1,300})\]\((https?://[^)\s]{1,2000})\)")
_TAGS = re.compile(r"<[^>]{0,400}>")
_SHOWN_HOST = re.compile(
    r"^\s{0,20}(?:https?://)?((?:[\w-]{1,63}\.){1,8}[a-z]{2,24})(?:[/:?#]|\s|$)", re.I
)
_HOST = re.compile(r"(?i)^https?://(?:[^\s/@]{0,200}@)?([\w.-]{1,253})")
_REWRITER = re.compile(r"(?i)^(?:click|links?|trk|track|email|e|go|l)\.|safelinks|urldefense")


def _host(url: str) -> str:
    m = _HOST.match(url)
    return m.group(1).lower().rstrip(".") if m else ""


def mismatched_link(raw: str) -> str | None:
    """``"shown → real"`` for the first link of ``raw`` whose text shows one site's address
    and whose target is another site; None when every link goes where it says."""
    text = raw[:_MAX_TEXT]
    pairs = [(m.group(2), m.group(1)) for m in list(_ANCHOR.finditer(text))[:32]]
    pairs += [(m.group(1), m.group(2)) for m in list(_MARKDOWN.finditer(text))[:32]]
    for shown, target in pairs:
        seen = _SHOWN_HOST.match(_TAGS.sub("", shown))
        real = _host(target)
        if seen is None or not real or _REWRITER.search(real):
            continue
        if site_of(seen.group(1).lower())[0] != site_of(real)[0]:
            return f"{seen.group(1)[:60]} → {real[:60]}"
    return None


def lookalike_of_own(hosts: Iterable[str], own: Iterable[str]) -> str | None:
    """The first of ``hosts`` on a site that is not one of ``own`` but whose name joins an own
    site's name (four letters or more) to another word with a hyphen, or is one letter from it
    (five letters or more: ``acrne`` for ``acmeco``); None for none."""
    labels = {site_of(d)[1] for d in own if d}
    labels = {label for label in labels if len(label) >= 4}
    if not labels:
        return None
    for host in list(hosts)[:64]:
        site, label = site_of(host)
        if label in labels:
            continue
        for mine in labels:
            joined = label.startswith(mine + "-") or label.endswith("-" + mine)
            if joined or (len(mine) >= 5 and one_apart(label, mine)):
                return f"{site[:60]} (posing as {mine})"
    return None


_OPEN_TO_ANYONE = re.compile(
    r"(?i)\banyone with (?:the|this) link\b|\bpublic(?:ly)? (?:link|accessible|shared)\b|"
    r"\b(?:link|folder|file|bucket)\b[^.\n]{0,40}\b(?:set|made|shared) (?:to |as )?public\b|"
    r"\bno (?:login|sign-?in|password) (?:needed|required)\b"
)
_DATA_WORDS = re.compile(
    r"(?i)\b(?:exports?|dumps?|raw data|backups?|PII|personal data|database|db snapshot|payroll|"
    r"(?:customer|user|patient|employee|member|client|subscriber)s?'? (?:data|list|records|"
    r"details|table|exports?|emails))\b"
)


DOCUMENT_STORE = re.compile(
    r"(?i)https?://[\w.-]{0,120}(?:sharepoint\.com|onedrive|1drv\.ms|drive\.google\.com|"
    r"docs\.google\.com|dropbox\.com|box\.com|egnyte\.com|wetransfer\.com)/"
)
"""A link into a company's document store: what it opens is the company's own files."""


def open_link_to_data(raw: str) -> bool:
    """Whether ``raw`` shares a link it says anyone can open, to data or an export, or to a
    folder or file of the company's document store."""
    text = raw[:_MAX_TEXT]
    if "http" not in text or not _OPEN_TO_ANYONE.search(text):
        return False
    return bool(_DATA_WORDS.search(text) or DOCUMENT_STORE.search(text))
