"""The usual frauds' messages, for ``prose``: what they ask for, by what their text says — a
password through a link (credential phishing: a message hurrying people to sign in, or a
prize to claim by verifying an account, unless every link is on the recipients' own site),
card details through a link (billing and shut-off lures), gift-card codes."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from .http_sites import SHORTENERS, host_in
from .prose_hosts import lookalike, site_of

__all__ = ["frauds", "link_hosts"]

_MAX_TEXT = 20_000
_ASKS = re.compile(
    r"(?i)\b(?:confirm|enter|verify|re-?confirm|validate|provide|submit|type|sign in with|"
    r"log ?in with)\b[^.\n]{0,60}"
    r"\b(?:password|passwords|credentials|login details|username and password)\b"
)
_URL = re.compile(r"(?i)\bhttps?://\S+")
_URGENT = re.compile(
    r"(?i)(?:\byour\s+(?:[\w-]+\s+){0,2}(?:password|account|mailbox|access|credentials|login|"
    r"session)\b[^\n.]{0,60}\b(?:expires?|expired|expiring|suspended|locked|disabled|limited|"
    r"restricted|frozen|compromised|deactivated|on hold|needs? (?:re-?)?verification|must be "
    r"(?:re-?)?verified|will be (?:closed|deleted|removed|suspended))|"
    r"\bverify your (?:account|identity)\b|"
    r"\bunusual (?:activity|sign-?in|trade activity|login)\b|"
    r"\bkeep (?:your )?access\b)[^\n]{0,200}\b(?:sign(?:ing)? ?in|log(?:ging)? ?in|reset|"
    r"re-?activate|verify|confirm|click|restore|unlock|secure)"
)
"""A message that hurries people to sign in (the shape of credential phishing)."""
_BILLING_LURE = re.compile(
    r"(?i)\byour\s+(?:[\w-]+\s+){0,2}(?:payment|card|subscription|billing|invoice)\b[^\n.]{0,40}"
    r"\b(?:failed|declined|expired|overdue|unsuccessful|could not be (?:processed|charged))\b"
    r"[^\n]{0,160}\b(?:update|confirm|verify|re-?enter)\b[^\n]{0,40}\b(?:card|payment|billing)|"
    r"\byour\s+(?:[\w-]+\s+){0,2}(?:service|account|water|power|electricity|gas|utilit\w+|"
    r"subscription)\b[^\n.]{0,40}\bwill be\s+(?:shut off|disconnected|cut off|suspended|"
    r"terminated|cancell?ed)\b[^\n]{0,160}\bpay(?:ment)?\b"
)
"""A message that hurries people to enter card details (the shape of billing phishing)."""
_PRIZE = re.compile(
    r"(?i)\b(?:claim|redeem|collect|unlock)\b[^\n]{0,80}\b(?:free|reward|rewards|prize|prizes|"
    r"bonus|gift|giveaway|airdrop|gems|coins|credits|tokens|skins|nitro|voucher)\b|"
    r"\b(?:free|giveaway|airdrop|you(?:'ve| have)? won|winner)\b[^\n]{0,80}\b(?:claim|redeem)\b"
)
_PRIZE_ASK = re.compile(
    r"(?i)\b(?:verify|confirm|validate|log ?in|sign ?in|connect|link|authori[sz]e)\b[^\n.!]{0,30}"
    r"\b(?:your|the)?\s*(?:account|wallet|profile|identity|login|credentials|steam|discord)\b"
)
"""A prize offered through a link that asks people to sign in or connect an account first
(the shape of giveaway phishing)."""
_GIFT_CARDS = re.compile(r"(?i)\bgift ?cards?\b")
_GIFT_ASK = re.compile(r"(?i)\b(?:buy|purchase|get me|send me)\b[^.\n]{0,80}|\bcodes?\b")
_PHISHING = "asks for passwords through a link"
_BILLING = "asks for card details through a link"
_URL_HOST = re.compile(r"(?i)\bhttps?://(?:[^\s/@]*@)?([\w.-]+)")
_FRAUDS: tuple[tuple[Callable[[str], bool], str, str], ...] = (
    (
        lambda text: bool((_ASKS.search(text) or _URGENT.search(text)) and _URL.search(text)),
        _PHISHING,
        "Never ask people for passwords; a phishing message reads like this.",
    ),
    (
        lambda text: bool(_BILLING_LURE.search(text) and _URL.search(text)),
        _BILLING,
        "Billing notices come from the billing system; a person should confirm this one.",
    ),
    (
        lambda text: bool(_PRIZE.search(text) and _PRIZE_ASK.search(text) and _URL.search(text)),
        _PHISHING,
        "Giveaways that ask people to verify their account through a link are phishing; let a "
        "person confirm the announcement and its link.",
    ),
    (
        lambda text: bool(_GIFT_CARDS.search(text) and _GIFT_ASK.search(text)),
        "asks for gift cards",
        "Requests for gift-card codes are a common fraud; confirm by phone.",
    ),
)
"""What the usual frauds ask for, by what their text says."""


def _own_links(text: str, domains: set[str]) -> bool:
    """Whether every address in ``text`` is on the recipients' own domain (a help desk pointing
    a user at the organisation's own reset page), so a sign-in request is not a lure."""
    hosts = [m.group(1).lower() for m in _URL_HOST.finditer(text[:_MAX_TEXT])][:32]
    return bool(hosts and domains) and all(
        any(_same_site(host, domain) for domain in domains) for host in hosts
    )


def _same_site(host: str, domain: str) -> bool:
    """Whether two names belong to the same site (``prose_hosts.site_of``)."""
    return site_of(host)[0] == site_of(domain)[0]


_LURE_WORDS = re.compile(
    r"(?i)\b(?:sign(?:ing)? ?in|log(?:ging)? ?in|login|verify|verification|re-?verify|claim|"
    r"password|credentials|account|reward|free|gift|giveaway|redeem|unlock|confirm|trade offer)\b"
)


_PAY_LURE = re.compile(
    r"(?i)\b(?:pay|fee|unpaid|overdue|fine|toll|customs|redelivery|on hold|suspended|verify)\b"
)


def link_hosts(text: str) -> list[str]:
    """The hosts of the first links of ``text``, lower-cased."""
    return [m.group(1).lower() for m in list(_URL_HOST.finditer(text[:_MAX_TEXT]))[:32]]


def _lookalike_link(text: str, domains: set[str]) -> str | None:
    """What a link in ``text`` passes itself off as (``prose_hosts``), unless it is on the
    recipients' own site."""
    for m in list(_URL_HOST.finditer(text[:_MAX_TEXT]))[:32]:
        host = m.group(1).lower()
        if any(_same_site(host, domain) for domain in domains):
            continue
        posed = lookalike(host)
        if posed is None and host_in(host, SHORTENERS) and _PAY_LURE.search(text):
            posed = "a shortened link that hides where it goes"
        if posed is not None:
            return f"{host[:60]}, {posed}"
    return None


def frauds(text: str, domains: set[str]) -> Iterator[tuple[str, str]]:
    """The title and advice of each fraud ``text`` reads as (``domains``: the recipients')."""
    for asks, title, fix in _FRAUDS:
        if asks(text) and not (title == _PHISHING and _own_links(text, domains)):
            yield title, fix
    if _LURE_WORDS.search(text) or _PAY_LURE.search(text):
        posed = _lookalike_link(text, domains)
        if posed is not None:
            yield (
                f"links to a lookalike site ({posed})",
                "A link made to pass for another site is how accounts are phished.",
            )
