"""The reviewer's side of the standing approvals over a Supervisor: list the grants and end one,
through a running engine on NATS (``hl.grants.query`` and ``hl.grants.revoke``, reviewers only)
or the in-process Supervisor of a review inbox on a state file (a ``reviewing.Channel``)."""

from __future__ import annotations

from typing import TypeVar

import msgspec

from humangr.contracts import Grant, decode, encode
from humangr.contracts.grants import (
    GrantListing,
    GrantQuery,
    GrantRevoke,
    GrantRevoked,
)
from humangr.engine.errors import BusTimeoutError, ConfigError, EngineError
from humangr.engine.state.grants import MAX_GRANTS
from humangr.reviewing import Channel

__all__ = ["ask", "check_grant_id", "list_grants", "revoke_grant"]

R = TypeVar("R", bound=msgspec.Struct)


def check_grant_id(value: str) -> str:
    """``value`` if it can be a grant id, else a ``ConfigError`` (nothing is sent)."""
    from humangr.contracts.types import is_token

    if not is_token(value):
        raise ConfigError(f"{value[:80]!r} is not a grant id (`humangr grants` lists them)")
    return value


async def ask(channel: Channel, subject: str, request: msgspec.Struct, answer: type[R]) -> R:
    """``request`` on ``subject`` (checked against its contract before it is sent), and the
    Supervisor's answer; an ``EngineError`` saying why if none comes (the server's
    permissions violation when it reported one)."""
    data = encode(request)
    decode(data, type(request))
    try:
        reply = await channel.bus.request(subject, data, timeout=channel.timeout)
    except BusTimeoutError as exc:
        raise channel.refused(str(exc)) from None
    return decode(reply.data, answer)


async def list_grants(channel: Channel) -> list[Grant]:
    """Every grant the Supervisor keeps, expired or not, in id order (at most
    ``MAX_GRANTS``), asked a page at a time."""
    grants: list[Grant] = []
    after: str | None = None
    while len(grants) < MAX_GRANTS:
        page = await ask(
            channel, channel.subjects.grant_query, GrantQuery(after=after), GrantListing
        )
        if page.error is not None:
            raise EngineError(page.error)
        fresh = [g for g in page.grants if after is None or g.id > after]
        if len(fresh) != len(page.grants):
            raise EngineError("the Supervisor answered with grants out of order; not trusted")
        grants.extend(fresh)
        if not page.more or not fresh:
            break
        after = fresh[-1].id
    return grants[:MAX_GRANTS]


async def revoke_grant(channel: Channel, grant_id: str, reviewer: str, reason: str = "") -> None:
    """End grant ``grant_id`` at once; an ``EngineError`` saying why if the Supervisor did not
    (no such grant, a state it cannot read)."""
    request = GrantRevoke(grant_id=check_grant_id(grant_id), reviewer=reviewer, reason=reason)
    answer = await ask(channel, channel.subjects.grant_revoke, request, GrantRevoked)
    if answer.grant_id != grant_id:
        raise EngineError(
            f"the Supervisor answered about grant {answer.grant_id!r}, not {grant_id!r}"
        )
    if not answer.revoked:
        raise EngineError(answer.error or f"grant {grant_id!r} was not revoked")
