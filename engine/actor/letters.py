"""What the actor system needs to write a dead letter: whom it concerns, and whether it is new.

A dead letter names the action (or request, order, project) it concerns in ``correlation_id``:
read from the decoded message, or, for a message that could not be decoded, from the top level
of its JSON if that much can be read.

``LetterBook`` is the rule that gives one dead letter per bad message: every actor subscribed to
a subject receives its own copy of a core message, and each would refuse it. The first refusal
of a (subject, payload[, error]) within ``window`` seconds is reported; the others are counted
only. An undecodable message is the same bad message whoever decodes it, so its key is the
subject and payload; a decoded message refused or failed by a handler also keys on the error,
so different reasons of different actors are each reported. Durable (JetStream) messages are
delivered to one consumer, so each of their deliveries is its own.
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict

import msgspec

__all__ = ["CORRELATION_FIELDS", "LetterBook", "correlation_of", "payload_correlation"]

CORRELATION_FIELDS = ("action_id", "request_id", "order_id", "project_id")
"""Fields that name what a message is about, most specific first."""

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
_FIRST_KEY = re.compile(
    rb'\A\s*\{\s*"(action_id|request_id|order_id|project_id)"\s*:\s*"([A-Za-z0-9_-]{1,128})"'
)


class _Ids(msgspec.Struct):
    action_id: object = None
    request_id: object = None
    order_id: object = None
    project_id: object = None


_ids_decoder = msgspec.json.Decoder(_Ids)


def _pick(values: object) -> str:
    for name in CORRELATION_FIELDS:
        value = getattr(values, name, None)
        if isinstance(value, str) and _TOKEN.fullmatch(value):
            return value
    return ""


def correlation_of(message: object) -> str:
    """The id a decoded message is about (``action_id``, ``request_id``, …), or ``""``."""
    return _pick(message)


def payload_correlation(data: bytes) -> str:
    """The id an undecodable payload is about, if it is a JSON object whose top level names
    one as a plain token; ``""`` otherwise."""
    try:
        return _pick(_ids_decoder.decode(data))
    except Exception:  # not JSON, not an object, too deep, bad UTF-8: try the first key only
        match = _FIRST_KEY.match(data[:4_096])
        return match.group(2).decode("ascii") if match else ""


class LetterBook:
    """Remembers the dead letters reported lately (bounded), to report each bad message once."""

    def __init__(self, window: float, capacity: int = 10_000) -> None:
        self.window = window
        self.capacity = capacity
        self._seen: OrderedDict[bytes, float] = OrderedDict()

    @staticmethod
    def key(subject: str, data: bytes, error: str | None) -> bytes:
        """The identity of a letter: subject and payload, and the error unless undecodable."""
        digest = hashlib.blake2b(digest_size=16)
        for part in (subject.encode(), data, (error or "").encode()):
            digest.update(len(part).to_bytes(8, "big"))
            digest.update(part)
        return digest.digest()

    def first(self, key: bytes, now: float) -> bool:
        """Whether ``key`` was not reported within the window (it counts as reported now)."""
        if self.window <= 0:
            return True
        while self._seen:
            oldest, at = next(iter(self._seen.items()))
            if now - at < self.window and len(self._seen) < self.capacity:
                break
            del self._seen[oldest]
        if key in self._seen:
            return False
        self._seen[key] = now
        return True

    def forget(self, key: bytes) -> None:
        """Undo ``first`` (the letter could not be published, so another actor may report)."""
        self._seen.pop(key, None)
