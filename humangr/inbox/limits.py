"""Sign-in attempts of the review inbox, limited per client.

Each client address (an IPv6 address by its /64, which one machine can fill with addresses)
has a token bucket of sign-in attempts: ``burst`` at once, then ``per_s`` a second. A client
whose bucket is empty is answered ``429 Too Many Requests`` with ``Retry-After``, before its
token is even looked at. ``lockout_after`` refused tokens in a row lock the client out for
``lockout_s`` seconds (a good token resets the count). At most ``max_clients`` addresses are
remembered: past that the one seen longest ago is forgotten, so memory stays bounded whatever
a flood of addresses does.
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["SignInLimiter", "client_key"]


@dataclass(slots=True)
class _Client:
    tokens: float
    updated: float
    failures: int = 0
    locked_until: float = 0.0


def client_key(host: str | None) -> str:
    """The key a client's attempts are counted under: its address, an IPv6 one by its /64."""
    if not host:
        return "unknown"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host[:64]
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


class SignInLimiter:
    """A token bucket and a lockout per client address (see the module's docstring)."""

    def __init__(
        self,
        *,
        burst: int = 5,
        per_s: float = 0.5,
        lockout_after: int = 10,
        lockout_s: float = 900.0,
        max_clients: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if burst < 1 or per_s <= 0 or lockout_after < 1 or lockout_s <= 0 or max_clients < 1:
            raise ValueError("SignInLimiter: every limit must be positive")
        self.burst = burst
        self.per_s = per_s
        self.lockout_after = lockout_after
        self.lockout_s = lockout_s
        self.max_clients = max_clients
        self._clock = clock
        self._clients: OrderedDict[str, _Client] = OrderedDict()

    def _get(self, key: str, now: float) -> _Client:
        client = self._clients.get(key)
        if client is None:
            client = _Client(tokens=float(self.burst), updated=now)
            self._clients[key] = client
            while len(self._clients) > self.max_clients:
                self._clients.popitem(last=False)
        else:
            self._clients.move_to_end(key)
            client.tokens = min(self.burst, client.tokens + (now - client.updated) * self.per_s)
            client.updated = now
        return client

    def admit(self, host: str | None) -> int | None:
        """Spend one attempt of ``host``: ``None`` if it may try now, else the whole seconds
        it must wait (for ``Retry-After``)."""
        now = self._clock()
        client = self._get(client_key(host), now)
        if client.locked_until > now:
            return max(1, math.ceil(client.locked_until - now))
        if client.tokens < 1:
            return max(1, math.ceil((1 - client.tokens) / self.per_s))
        client.tokens -= 1
        return None

    def failed(self, host: str | None) -> None:
        """``host`` gave a wrong token; the ``lockout_after``-th in a row locks it out."""
        now = self._clock()
        client = self._get(client_key(host), now)
        client.failures += 1
        if client.failures >= self.lockout_after:
            client.locked_until = now + self.lockout_s
            client.failures = 0

    def succeeded(self, host: str | None) -> None:
        """``host`` signed in: its run of wrong tokens is over."""
        self._get(client_key(host), self._clock()).failures = 0

    def locked(self, host: str | None) -> bool:
        """Whether ``host`` is locked out now."""
        client = self._clients.get(client_key(host))
        return client is not None and client.locked_until > self._clock()
