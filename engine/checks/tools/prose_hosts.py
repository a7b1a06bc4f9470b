"""Links made to pass for someone else's site (for ``prose_lures``): a host one letter away
from a well-known sign-in site's (``steamcommunlty.com``, ``rnicrosoft.com``), and a host
dressed in a sign-in or reward word beside another name (``brightforge-okta.com-login.info``,
``acme-rewards.com``, ``secure-paypal-verify.net``). Pure functions of the host name."""

from __future__ import annotations

import re

__all__ = ["lookalike", "one_apart", "site_of"]

_TWO_PART_SUFFIXES = frozenset(
    {"co.uk", "org.uk", "ac.uk", "gov.uk", "com.au", "net.au", "co.jp", "com.br", "co.nz",
     "co.in", "com.cn", "co.za", "com.mx", "co.kr", "com.tr", "com.sg"}
)  # fmt: skip
_BRANDS = frozenset(
    {
        "steamcommunity", "steampowered", "paypal", "microsoft", "microsoftonline", "office",
        "office365", "outlook", "live", "google", "gmail", "apple", "icloud", "amazon", "okta",
        "github", "gitlab", "discord", "facebook", "instagram", "netflix", "dropbox",
        "docusign", "linkedin", "epicgames", "battle", "roblox", "coinbase", "binance",
        "chase", "wellsfargo", "bankofamerica", "stripe", "slack", "zoom", "adobe",
        "salesforce", "twitch", "playstation", "xbox", "nintendo", "whatsapp", "telegram",
    }
)  # fmt: skip
"""Sites whose sign-in pages frauds copy (the name before the public suffix)."""
_DRESSING = re.compile(
    r"(?:^|-)(?:login|log-in|signin|sign-in|verify|verification|secure|security|account|"
    r"accounts|sso|auth|okta|mfa|support|helpdesk|rewards?|claim|gifts?|giveaway|free|bonus|"
    r"wallet|billing|payment|unlock|recovery|update)(?:-|$)|"
    r"(?:^|-)(?:com|net|org)(?:-|$)"
)
"""A sign-in, reward or fake-suffix word set off by a hyphen in a host's name."""


def site_of(host: str) -> tuple[str, str]:
    """``host``'s site (its registrable name, ``example.co.uk``) and that site's own label
    (``example``)."""
    labels = host.lower().rstrip(".").split(".")
    take = 3 if ".".join(labels[-2:]) in _TWO_PART_SUFFIXES and len(labels) >= 3 else 2
    site = labels[-take:]
    return ".".join(site), site[0] if site else ""


def one_apart(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by one letter changed, added or removed, or by a common
    look-alike swap (``rn`` for ``m``, ``vv`` for ``w``, ``0`` for ``o``, ``1`` for ``l``)."""
    if a == b:
        return False
    swapped = a.replace("rn", "m").replace("vv", "w").replace("0", "o").replace("1", "l")
    if swapped == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def lookalike(host: str) -> str | None:
    """What ``host`` passes itself off as, or ``None``: the well-known site it is one letter
    away from, or "a sign-in or reward site" when its name is dressed in such words."""
    if not host or len(host) > 253:
        return None
    _, label = site_of(host)
    if label in _BRANDS:
        return None  # the site itself (``login.microsoftonline.com``)
    near = next((b for b in sorted(_BRANDS) if len(b) >= 6 and one_apart(label, b)), None)
    if near is not None and len(label) >= 6:  # shorter names are one letter from real words
        return f"{near} (a one-letter lookalike)"
    if "-" in label and _DRESSING.search(label):
        return "a sign-in or reward site (a name dressed to look official)"
    return None
