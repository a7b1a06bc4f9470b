"""A request made with a payment provider's test-mode key (for ``http``): Stripe's
``sk_test_``/``rk_test_`` keys reach only the account's test data — no real money moves and no
real customer, payout or webhook is touched — so a transfer, a refund or a delete made with one
is everyday integration work. A request that also carries a live key (``sk_live_``) anywhere in
its headers is not in test mode. Bounded: each header value is read up to 300 characters. Pure.
"""

from __future__ import annotations

import re

from .http_call import HttpCall

__all__ = ["test_mode_key"]

_TEST_KEY = re.compile(r"(?:^|[\s:=\"'])(?:sk|rk)_test_[A-Za-z0-9]{8,}")
_LIVE_KEY = re.compile(r"(?:sk|rk|pk)_live_")


def test_mode_key(call: HttpCall) -> bool:
    """Whether the request authenticates with a test-mode key and with no live key."""
    values = [value[:300] for _, _, value in call.headers[:40]]
    if any(_LIVE_KEY.search(v) for v in values):
        return False
    return any(_TEST_KEY.search(v) for v in values)
