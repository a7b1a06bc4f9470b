"""Who a message says it is from (for ``prose_more``): the sender fields an agent can set —
``from``, ``sender``, ``from_email``, ``from_name``, ``reply_to`` and the same headers — made
to pass for someone the recipients trust:

- a sender or reply-to address on a lookalike of the recipients' own domain
  (``jane.doe@n0rthwind.io``, ``northwind-exec.com`` to ``…@northwind.io``): replies and trust
  go to another site;
- a display name that claims an executive's title (``"CEO Jane Doe"``, ``Jane Doe, CFO``) on a
  personal mailbox (``jd.office@outlook.com``) writing to an organisation's addresses: the
  shape of CEO fraud.

A colleague's own address, a vendor's receipt and a reply-to on the company's own help desk
are everyday. Pure functions; bounded.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .business_words import PERSONAL_MAIL
from .egress_mail import ADDRESS, Mail, domain_allowed
from .prose_links import lookalike_of_own
from .view import ToolView

__all__ = ["posed_sender"]

_SENDER_KEYS = (
    "from", "sender", "from_email", "fromEmail", "from_address", "fromAddress", "reply_to",
    "replyTo", "reply-to", "reply_to_email", "from_name", "fromName", "sender_name",
    "display_name", "headers",
)  # fmt: skip
_HEADER_KEYS = frozenset({"from", "reply-to", "sender", "return-path"})
_EXECUTIVE = re.compile(
    r"(?i)\b(?:CEO|CFO|COO|CTO|CIO|CISO|chief \w+ officer|president|founder|chair(?:man|woman)?|"
    r"managing director|(?:vp|director|head) of finance|general counsel|treasurer|"
    r"director general|PDG|Gesch[äa]ftsf[üu]hrer\w*|Vorstand\w*|director(?:a)? general)\b"
)


def _sender_texts(view: ToolView) -> Iterator[tuple[str, str]]:
    for key in _SENDER_KEYS:
        got = view.get(key)
        if got is None:
            continue
        name, value = got
        if isinstance(value, str):
            yield name, value[:1_000]
        elif isinstance(value, dict):
            for header, text in list(value.items())[:64]:
                if str(header).lower() in _HEADER_KEYS and isinstance(text, str):
                    yield f"{name}.{header}", text[:1_000]


def posed_sender(
    view: ToolView, mail: Mail | None, allow: frozenset[str]
) -> Iterator[tuple[str, str, str]]:
    """``(argument, title, advice)`` for a sender made to pass for someone the recipients
    trust."""
    if mail is None or not mail.domains:
        return
    texts = list(_sender_texts(view))
    if not texts:
        return
    own = sorted({*mail.domains, *(d.lstrip("*.@") for d in allow)})
    addresses = [(a, m.lower()) for a, t in texts for m in ADDRESS.findall(t)[:4]]
    for argument, address in addresses:
        domain = address.rpartition("@")[2]
        posed = lookalike_of_own([domain], own)
        if posed is not None and domain not in mail.domains:
            yield (
                argument,
                f"sends as a lookalike of the recipients' own domain ({posed})",
                "Send from the company's own address; a lookalike sender is how fraud is sent.",
            )
            return
    claimed = any(_EXECUTIVE.search(t) for _, t in texts)
    outside = [
        (a, address.rpartition("@")[2])
        for a, address in addresses
        if PERSONAL_MAIL.search(address) and not domain_allowed(address.rpartition("@")[2], allow)
    ]
    work = any(not PERSONAL_MAIL.search(r) for r in mail.recipients)
    if claimed and outside and work:
        yield (
            outside[0][0],
            f"sends in an executive's name from outside the company ({outside[0][1][:60]})",
            "Executives write from the company's own address; confirm by phone before acting.",
        )
