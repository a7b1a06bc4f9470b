"""Sessions of the review inbox: a signed cookie, and the CSRF token bound to it.

Every visitor gets a session (anonymous until they sign in): a random id, the reviewer's name
once signed in, and an expiry, signed with HMAC-SHA256 under a key made when the inbox starts
(restarting the inbox signs everyone out). Signing in starts a new session id; signing out
revokes the old one. The CSRF token of a session is an HMAC of its id: a form posted without
the token of the session that sent it is refused.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["COOKIE", "Session", "Sessions"]

COOKIE = "humangr_inbox"
_SID = re.compile(r"[A-Za-z0-9_-]{22,64}")
MAX_COOKIE = 1_024


@dataclass(frozen=True, slots=True)
class Session:
    """One browser's session: ``reviewer`` is ``None`` until it signs in."""

    sid: str
    reviewer: str | None
    expires: int
    fresh: bool = False
    """Made for this request: the response must set its cookie."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Sessions:
    """Makes, signs, reads and revokes sessions."""

    def __init__(
        self,
        *,
        lifetime_s: float,
        key: bytes | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.lifetime_s = lifetime_s
        self._key = key or secrets.token_bytes(32)
        self._clock = clock
        self._revoked: dict[str, int] = {}

    def new(self, reviewer: str | None = None) -> Session:
        """A new session (a new id), for ``reviewer`` or anonymous."""
        expires = int(self._clock() + self.lifetime_s)
        return Session(secrets.token_urlsafe(24), reviewer, expires, fresh=True)

    def _sign(self, payload: bytes) -> bytes:
        return hmac.new(self._key, b"session\0" + payload, hashlib.sha256).digest()

    def cookie(self, session: Session) -> str:
        """The cookie value of ``session``: its payload and signature."""
        payload = json.dumps(
            {"sid": session.sid, "who": session.reviewer, "exp": session.expires},
            separators=(",", ":"),
        ).encode()
        return f"{_b64(payload)}.{_b64(self._sign(payload))}"

    def read(self, value: str | None) -> Session | None:
        """The session of a cookie value, or ``None`` if it is missing, forged, malformed,
        expired or signed out."""
        if not value or len(value) > MAX_COOKIE or value.count(".") != 1:
            return None
        body, signature = value.split(".")
        try:
            payload, given = _unb64(body), _unb64(signature)
        except (ValueError, UnicodeError):
            return None
        if not hmac.compare_digest(given, self._sign(payload)):
            return None
        try:
            data = json.loads(payload)
        except ValueError:
            return None
        if not isinstance(data, dict) or set(data) != {"sid", "who", "exp"}:
            return None
        sid, who, exp = data["sid"], data["who"], data["exp"]
        if not isinstance(sid, str) or not _SID.fullmatch(sid):
            return None
        if not (who is None or isinstance(who, str)) or type(exp) is not int:
            return None
        if exp <= self._clock() or sid in self._revoked:
            return None
        return Session(sid, who, exp)

    def revoke(self, session: Session) -> None:
        """Sign ``session`` out: its cookie is refused from now on (until it would expire)."""
        now = self._clock()
        self._revoked = {sid: exp for sid, exp in self._revoked.items() if exp > now}
        self._revoked[session.sid] = session.expires

    def csrf(self, session: Session) -> str:
        """The CSRF token of ``session``'s forms."""
        return _b64(hmac.new(self._key, b"csrf\0" + session.sid.encode(), hashlib.sha256).digest())

    def check_csrf(self, session: Session, given: str | None) -> bool:
        """Whether ``given`` is ``session``'s CSRF token (compared in constant time)."""
        if not given:
            return False
        return hmac.compare_digest(given.encode("utf-8", "replace"), self.csrf(session).encode())
