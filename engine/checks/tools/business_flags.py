"""Safeguards on single records and policies taken away by a business tool (for
``business``):

- a record's fraud or risk marker cleared by hand (``fraudScore=0``, a special-investigation
  status ``closed``, ``suspicious=false``): what the screening found no longer holds the
  payment or the claim;
- accounts exempted from a sign-in or security policy (``excludeUsers=[…]`` on a conditional
  access or MFA policy): the exempted account signs in without what the policy asks.

Pure functions of the name's words and the argument pairs; both findings are high.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from .business_words import Finding, Pair, acts

__all__ = ["safeguards_cleared"]

_RISK_KEY = re.compile(
    r"^(?:\w{0,20}(?:fraud|suspicious)\w{0,20}|(?:\w{0,20}_)?(?:siu|aml)(?:_?\w{0,12})|"
    r"(?:\w{0,20}_)?(?:risk_?score|risk_?level|watch_?list)\w{0,12})$"
)
"""Keys (lower-case) of a fraud or risk marker on a record (a risk *level* stated as ``low``
on a new change request is its author's estimate, not a marker cleared: only none/zero/closed
values count)."""
_CLEARED = frozenset(
    {"0", "false", "none", "clear", "cleared", "closed", "never", "neverflagged",
     "not_flagged", "notflagged", "false_positive", "resolved", "no", "dismissed"}
)  # fmt: skip
_CODE_KEYS = frozenset({"code", "value", "status", "state", "name"})
_POLICY_WORDS = frozenset(
    {"conditional", "conditionalaccess", "conditional_access", "mfa", "policy", "policies",
     "signon", "authentication"}
)  # fmt: skip
_EXCLUDED = re.compile(r"^exclude_?(?:d_?)?(?:users|groups|accounts|principals|members|roles)$")


def _cleared(value: object) -> bool:
    if value is False or (isinstance(value, (int, float)) and not isinstance(value, bool)):
        return value is False or value == 0
    if isinstance(value, str):
        return value.strip().lower().replace("-", "_") in _CLEARED
    if isinstance(value, dict):
        return any(k in _CODE_KEYS and _cleared(v) for k, v in list(value.items())[:6])
    return False


def _risk_cleared(pairs: Sequence[Pair]) -> str | None:
    for key, value in pairs:
        if key and len(key) < 60 and _RISK_KEY.match(key) and _cleared(value):
            return key
    return None


def _exempted(words: set[str], pairs: Sequence[Pair]) -> str | None:
    if not words & _POLICY_WORDS and not any(k == "conditions" for k, _ in pairs):
        return None
    for key, value in pairs:
        if _EXCLUDED.match(key) and isinstance(value, list) and value:
            return key
    return None


def safeguards_cleared(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """A record's fraud or risk marker cleared; accounts exempted from a security policy."""
    if not acts(words):
        return
    marker = _risk_cleared(pairs)
    if marker is not None:
        yield (
            "clears a fraud or risk marker",
            f"`{marker[:40]}` is cleared by hand: what the screening held goes ahead unchecked.",
            "Let the fraud or risk team clear their own markers.",
        )
    exempted = _exempted(words, pairs)
    if exempted is not None:
        yield (
            "exempts accounts from a security policy",
            f"the accounts in `{exempted[:40]}` sign in without what the policy asks.",
            "Let a security administrator change who a policy covers.",
        )
