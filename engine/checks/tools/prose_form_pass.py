"""The other forms of a message's text that ``prose`` reads again (its readers are unchanged):

- each text as its reader sees it (``prose_forms.reader_view``: HTML, Markdown and Slack read
  as shown, invisible characters dropped, lookalike letters read as Latin);
- the message's fields read together: a subject with its body, a chat card's text with its
  buttons' and actions' links (``{"text": "Your password expires…"}`` beside
  ``{"url": "https://…"}``): the reader sees them as one message, so an ask in one field and
  its link in another are one ask.

A form is read again only when it holds a word of the asks it could hide (a second pass
costs as much as the first). A pure function of the call's strings; bounded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import islice

from .prose_forms import reader_view

__all__ = ["other_forms"]

_RISKY = re.compile(
    r"(?i)pass(?:w|code|phrase)|credential|sign.?in|log.?in|verif|curl|wget|\biwr\b|\birm\b|"
    r"\biex\b|invoke-|\|\s{0,3}(?:sudo|\w{0,3}sh\b|python|perl|ruby|node)|mfa|2fa|\bduo\b|okta|"
    r"push|prompt|gift|voucher|iban|swift|routing|bank|wire|transfer|token|secret|api.?key|"
    r"\bpin\b|\bcodes?\b|contrase|kennwort|mot de passe|regalo|geschenk|cadeau|gutschein|"
    r"konto|cuenta|compte|rechnung|factura|facture"
)
"""Words of the asks a form can hide; a form without any is not read again (its cost is a
second pass of every reader)."""
_URL_KEYS = frozenset({"url", "href", "link", "action_url", "open_url", "uri"})
_MAX_PIECES = 24
_MAX_JOINED = 20_000


def other_forms(
    strings: Iterable[tuple[str, str]], prose: list[tuple[str, str]]
) -> list[tuple[str, str]]:
    """``(argument, text)`` for each reader's view of ``prose`` that differs from it, and for
    the message's fields joined when they are more than one (bound to a link's argument when
    the link stands apart, else to the last text)."""
    out: list[tuple[str, str]] = []
    for argument, text in prose[:_MAX_PIECES]:
        shown = reader_view(text)
        if shown is not None and _RISKY.search(shown):
            out.append((argument, shown))
    links = [
        (path, value)
        for path, value in islice(strings, 2_000)
        if path.rpartition(".")[2].lower() in _URL_KEYS and ":" in value[:16]
    ][:_MAX_PIECES]
    pieces = [reader_view(t) or t for _, t in prose[:_MAX_PIECES]]
    if len(pieces) + len(links) >= 2 and pieces:
        joined = "\n".join([*pieces, *(value for _, value in links)])[:_MAX_JOINED]
        if not _RISKY.search(joined):
            return out
        argument = links[0][0] if links else prose[min(len(prose), _MAX_PIECES) - 1][0]
        out.append((argument, joined))
    return out
