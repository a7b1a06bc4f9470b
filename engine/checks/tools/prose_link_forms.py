"""Links whose form hides where they go (for ``prose``), in every form a message writes a link:

- shown text naming one site while the target is another, in HTML (``<a href>``, an entity-
  encoded target too), Markdown (``[text](<target> "title")``, reference links
  ``[text][1]`` … ``[1]: target``), Slack (``<target|text>``) and chat buttons (Block Kit's
  ``{"text": …, "url": …}``, Adaptive Cards' ``Action.OpenUrl`` ``title``/``url``);
- a link that runs script or carries its own page (``javascript:``, ``data:``, ``vbscript:``);
- an address that shows a site before an ``@`` and goes to the host after it
  (``https://docs.acme.com@evil.example/``);
- a host spelled with Cyrillic or Greek letters that pass for Latin ones, written so or in
  punycode (``xn--…``).

Link trackers and safe-link rewriters (``prose_links``) show one site and go through another
by design; they are left alone. Pure functions; bounded scans.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Iterator
from itertools import islice

from .prose_forms import reader_view
from .prose_hosts import site_of
from .view import ToolView

__all__ = ["PASSING", "button_links", "first_trick", "link_tricks"]

PASSING = "links to a site made to pass for another"
"""The title's start of a finding of a link made to pass for another site."""

_MAX_TEXT = 20_000
_ANCHOR = re.compile(
    r"(?is)<a\b[^>]{0,400}?\bhref\s{0,3}=\s{0,3}[\"']?([^\"'\s>]{1,2000})[^>]{0,400}>"
    r"(.{0,400}?)</a\s{0,3}>"
)
_MARKDOWN = re.compile(
    r"\[([^\]\n]{1,300})\]\(\s{0,3}<?([a-z][a-z0-9+.-]{0,15}:[^)\s>\[\]]{1,2000})>?", re.I
)
_REF_USE = re.compile(r"\[([^\]\n]{1,300})\]\[([^\]\n]{1,40})\]")
_REF_DEF = re.compile(r"(?m)^ {0,3}\[([^\]\n]{1,40})\]:\s{0,3}<?(\S{1,2000}?)>?(?:\s|$)")
_SLACK = re.compile(r"<((?:https?|javascript|data):[^|<>\s]{1,2000})\|([^<>]{1,400})>")
_TAGS = re.compile(r"<[^>]{0,400}>")
_SHOWN_HOST = re.compile(
    r"^\s{0,20}(?:https?://)?((?:[\w-]{1,63}\.){1,8}[a-z]{2,24})(?:[/:?#]|\s|$)", re.I
)
_HOST = re.compile(r"(?i)^\s{0,3}https?://(?:[^\s/@?#]{0,200}@)?([^\s/:?#]{1,253})")
_REWRITER = re.compile(r"(?i)^(?:click|links?|trk|track|email|e|go|l)\.|safelinks|urldefense")
_SCRIPT_URL = re.compile(r"(?i)^\s{0,3}(?:javascript|vbscript|data)\s{0,3}:")
_USERINFO = re.compile(r"(?i)\bhttps?://([\w.-]{1,120}\.[a-z]{2,24})@([\w.-]{1,253})")
_URL_HOSTS = re.compile(r"(?i)\bhttps?://(?:[^\s/@?#]{0,200}@)?([^\s/:?#<>\"'|)]{1,253})")
_CONFUSABLE = set("асеорхуіјѕԁһοαικνρΑΒΕΗΙΚΜΝΟΡΤΧАВЕКМНОРСТХ")


def _pairs(text: str) -> Iterator[tuple[str, str]]:
    """``(shown, target)`` of each link ``text`` writes, in its HTML, Markdown and Slack forms."""
    if "<a" in text or "<A" in text:
        for m in islice(_ANCHOR.finditer(text), 32):
            yield html.unescape(_TAGS.sub("", m.group(2))), html.unescape(m.group(1))
    if "](" in text:
        for m in islice(_MARKDOWN.finditer(text), 32):
            yield m.group(1), m.group(2)
    if "][" in text:
        refs = {m.group(1).lower(): m.group(2) for m in islice(_REF_DEF.finditer(text), 32)}
        for m in islice(_REF_USE.finditer(text), 32):
            target = refs.get(m.group(2).lower())
            if target is not None:
                yield m.group(1), target
    if "|" in text and "<" in text:
        for m in islice(_SLACK.finditer(text), 32):
            yield m.group(2), m.group(1)


def _misread(host: str) -> bool:
    """Whether ``host`` is spelled, as written or in punycode, with letters that pass for
    Latin ones (every letter of a label Latin or a lookalike, one at least a lookalike)."""
    labels = host.lower().split(".")
    for label in labels[:8]:
        if label.startswith("xn--"):
            try:
                label = label.encode("ascii").decode("idna")
            except (UnicodeError, ValueError):
                continue
        odd = [c for c in label if not c.isascii()]
        if odd and all(c in _CONFUSABLE for c in odd):
            return True
    return False


def _mismatch(shown: str, target: str) -> str | None:
    if _SCRIPT_URL.match(target):
        return f"a link that runs script or carries its own page ({target.strip()[:20]}…)"
    seen = _SHOWN_HOST.match(shown)
    real = _HOST.match(target)
    if seen is None or real is None or _REWRITER.search(real.group(1)):
        return None
    host = real.group(1).lower().rstrip(".")
    if site_of(seen.group(1).lower())[0] != site_of(host)[0]:
        return f"shows {seen.group(1)[:60]}, goes to {host[:60]}"
    return None


def link_tricks(raw: str) -> str | None:
    """Why the first link of ``raw`` hides where it goes, or None."""
    text = raw[:_MAX_TEXT]
    if ":" not in text:
        return None
    for shown, target in _pairs(text):
        why = _mismatch((reader_view(shown) or shown), target)
        if why is not None:
            return why
    if "@" in text:
        for m in islice(_USERINFO.finditer(text), 16):
            if site_of(m.group(1).lower())[0] != site_of(m.group(2).lower())[0]:
                return f"shows {m.group(1)[:60]} before an @, goes to {m.group(2)[:60]}"
    if "xn--" in text or not text.isascii():
        for m in islice(_URL_HOSTS.finditer(text), 32):
            if _misread(m.group(1)):
                return f"{m.group(1)[:60]} is spelled with letters that pass for Latin ones"
    return None


_URL_KEYS = ("url", "href", "link", "action_url", "open_url")
_SHOWN_KEYS = ("text.text", "text", "title", "label", "name")


def button_links(strings: Iterable[tuple[str, str]]) -> Iterator[tuple[str, str]]:
    """``(argument, why)`` for a chat button or card action (``{"text": …, "url": …}``) whose
    shown text names one site while its ``url`` goes to another, or whose ``url`` runs
    script."""
    by_path = dict(islice(strings, 2_000))
    for path, value in by_path.items():
        parent, _, key = path.rpartition(".")
        if key.lower() not in _URL_KEYS or not parent:
            continue
        for shown_key in _SHOWN_KEYS:
            shown = by_path.get(f"{parent}.{shown_key}")
            if shown is not None:
                why = _mismatch(shown, value)
                if why is not None:
                    yield path, why
                break


def first_trick(view: ToolView, prose: list[tuple[str, str]]) -> tuple[str, str] | None:
    """``(argument, why)`` for the first link of the message's texts (``prose``) or of its
    buttons that hides where it goes, or None."""
    for argument, text in prose[:32]:
        why = link_tricks(text)
        if why is not None:
            return argument, why
    return next(button_links(view.strings()), None)
