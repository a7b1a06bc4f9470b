"""Publishing on a JetStream stream: waiting out a leader election, and what an unacknowledged
publish says."""

from __future__ import annotations

import logging
import uuid

import anyio
import nats.errors
import nats.js.errors
from nats.js import JetStreamContext

from humangr.engine.errors import BusError, BusTimeoutError

__all__ = ["LEADER_WAIT", "publish_durable"]

log = logging.getLogger("humangr.bus")

LEADER_WAIT = 15.0
"""How long a durable publish waits for the stream to answer again when it gets no response:
on a cluster that is the stream's leader being elected after its node died (a few seconds),
which must not turn into a failed handler, max_deliver and a dead-lettered action."""


class _NotAcknowledged(BusTimeoutError):
    """JetStream did not acknowledge a publish in time: it may not be stored (publish it
    again; with ``Nats-Msg-Id`` the stream keeps one copy)."""

    def __init__(self, subject: str, timeout: float) -> None:
        BusError.__init__(
            self,
            f"JetStream did not acknowledge {subject!r} within {timeout:g}s; "
            "the message may not be stored, publish it again",
        )
        self.subject = subject
        self.timeout = timeout


async def publish_durable(
    js: JetStreamContext,
    subject: str,
    payload: bytes,
    headers: dict[str, str] | None,
    timeout: float,
) -> None:
    """Publish on a stored ``subject`` and wait up to ``timeout`` for JetStream's ack; a stream
    that does not answer is waited for up to ``LEADER_WAIT``.

    A publish without ``Nats-Msg-Id`` gets one, so that sending it again after an ack that
    never came (the leader died with the message in hand) stores one copy, not two."""
    if headers is None or "Nats-Msg-Id" not in headers:
        headers = {**(headers or {}), "Nats-Msg-Id": f"pub:{uuid.uuid4().hex}"}
    waited_until = anyio.current_time() + LEADER_WAIT
    delay = 0.1
    while True:
        try:
            ack = await js.publish(subject, payload, timeout=timeout, headers=headers)
            break
        except nats.js.errors.NoStreamResponseError as exc:
            # no stream answered: its leader is being elected (a cluster lost a node), or
            # it was deleted; wait a bounded time for the first before saying the second
            if anyio.current_time() + delay > waited_until:
                raise BusError(
                    f"no JetStream stream stored {subject!r} (none answered for "
                    f"{LEADER_WAIT:g}s); was the stream deleted? reconnect the bus to "
                    "recreate it"
                ) from exc
            await anyio.sleep(delay)
            delay = min(delay * 2, 1.0)
        except nats.errors.TimeoutError as exc:
            # no ack: the leader may have died after storing it, or a follower heard it while
            # no leader was elected; the same Nats-Msg-Id makes sending it again safe
            if anyio.current_time() > waited_until:
                raise _NotAcknowledged(subject, timeout) from exc
            log.warning(
                "JetStream did not acknowledge %s within %gs; sending it again", subject, timeout
            )
        except nats.js.errors.APIError as exc:
            raise BusError(f"JetStream refused {subject!r}: {exc.description or exc}") from exc
    if ack.duplicate:
        log.debug("JetStream dropped a duplicate on %s (stream %s)", subject, ack.stream)
