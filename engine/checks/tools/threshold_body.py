"""A safeguard left on but made unreachable: the amount above which a payment needs a second
approval, a transaction is screened or an alert fires, set so high that no real amount reaches
it (``"dualApproval.thresholdAmount": 100000000`` beside ``"enabled": true``). The switch still
says on; the bound no longer bounds anything.

Only thresholds of approvals, reviews, fraud and risk screening and alerts count, and only
amounts (not sizes, durations, rates or counts). Pure.
"""

from __future__ import annotations

import re

__all__ = ["huge_threshold"]

_HUGE = 10_000_000
"""Ten million of any currency's unit: more than a payment or alert bound is set to."""
_BOUND = re.compile(r"(?:^|_)(?:threshold|limit|ceiling|cap|trigger|above|over)\w*$")
_NOT_AMOUNT = re.compile(
    r"(?:^|_)(?:\w*bytes?|\w*size|length|timeout|millis\w*|rate|requests?|reqs|count|retries|"
    r"pages?|rows|items|records|depth|width|height|chars|kb|mb|gb)(?:_|$)"
    r"|_(?:ms|seconds?|secs?|minutes?|mins?|hours?|days?)$"
)
_GUARDED = re.compile(
    r"(?:^|_)(?:\w*approval\w*|approver\w*|review\w*|fraud\w*|risk\w*|aml|kyc|screening|"
    r"sanctions?|alerts?|alerting|alarms?|verification|velocity\w*|four_?eyes|maker_?checker)"
    r"(?:_|$)"
)


def _amount(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and 0 < len(value) <= 24:
        text = value.replace(",", "").replace("_", "").strip()
        try:
            return float(text)
        except ValueError:
            return None
    return None


def huge_threshold(key: str, value: object, subject: str) -> bool:
    """Whether ``key: value`` sets an approval, review, screening or alert threshold that
    ``subject`` (the call's ``_``-joined words) names to an amount no real one reaches."""
    if not _BOUND.search(key) or _NOT_AMOUNT.search(key):
        return False
    amount = _amount(value)
    if amount is None or amount < _HUGE:
        return False
    return bool(_GUARDED.search(subject))
