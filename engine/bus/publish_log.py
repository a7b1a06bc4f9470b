"""Asking a JetStream stream whether a message is in it already: the log of what was published.

A Supervisor that died between publishing a decision and recording that it did must not send
it twice. JetStream keeps every decision in the EVENTS stream with its ``Nats-Msg-Id``, so the
question "was ``decision:<id>`` published?" is answered by reading the messages on the
decision's subject from a position known to be earlier (``position``, recorded before the
publish) onwards.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import nats.errors
import nats.js.errors
from nats.js import JetStreamContext
from nats.js.api import RawStreamMsg

__all__ = ["MAX_SCAN", "last_with_header", "log_position", "published_since"]

log = logging.getLogger("humangr.bus")

MAX_SCAN = 10_000
"""Messages read at most to answer one question (then the answer is "cannot tell")."""


async def log_position(js: JetStreamContext, stream: str) -> int | None:
    """The stream's last sequence now (everything published before is at or below it)."""
    try:
        info = await js.stream_info(stream)
    except (nats.errors.Error, OSError) as exc:
        log.warning("cannot read the position of stream %s: %s", stream, exc)
        return None
    return int(info.state.last_seq)


async def published_since(
    js: JetStreamContext, stream: str, subject: str, msg_id: str, since: int
) -> bool | None:
    """Whether a message on ``subject`` with header ``Nats-Msg-Id: msg_id`` is in ``stream``
    after sequence ``since``; ``None`` when the stream cannot tell (unreachable, too many)."""
    known, found = await _scan(
        js, stream, subject, since, lambda headers: headers.get("Nats-Msg-Id") == msg_id
    )
    return found is not None if known else None


async def last_with_header(
    js: JetStreamContext, stream: str, subject: str, header: str, value: str, since: int
) -> bytes | None:
    """The data of the latest message on ``subject`` in ``stream`` after sequence ``since``
    whose header ``header`` is ``value``; ``None`` when there is none or the stream cannot tell
    (unreachable, too many: the caller falls back to what it knows)."""
    known, found = await _scan(
        js, stream, subject, since, lambda headers: headers.get(header) == value, latest=True
    )
    if not known or found is None or found.data is None:
        return None
    return bytes(found.data)


async def _scan(
    js: JetStreamContext,
    stream: str,
    subject: str,
    since: int,
    wanted: Callable[[dict[str, str]], bool],
    *,
    latest: bool = False,
) -> tuple[bool, RawStreamMsg | None]:
    """Read the messages on ``subject`` after ``since``: whether the stream could tell, and the
    first (``latest``: the last) whose headers are ``wanted``."""
    seq, found = since + 1, None
    for _ in range(MAX_SCAN):
        try:
            msg = await js.get_msg(stream, seq=seq, subject=subject, next=True)
        except nats.js.errors.NotFoundError:
            return True, found
        except (nats.errors.Error, OSError) as exc:
            log.warning("cannot read stream %s after %d: %s", stream, seq, exc)
            return False, None
        if msg.headers and wanted(msg.headers):
            found = msg
            if not latest:
                return True, found
        if msg.seq is None:
            return False, None
        seq = msg.seq + 1
    return False, None
