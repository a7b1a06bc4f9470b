"""Connecting to NATS with the credentials of the environment: the one way the CLI
(``humangr.cli.common.connect_nats``) and ``humangr.connect`` open a NATS bus."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from humangr.contracts import DEFAULT_PREFIX, Subjects
from humangr.engine.bus import Bus
from humangr.engine.errors import EngineError
from humangr.engine.redact import redact_seed_urls, redact_urls

if TYPE_CHECKING:
    from humangr.engine.bus.nats import JetStreamConfig

__all__ = ["nats_credentials", "open_nats"]


def nats_credentials(environ: Mapping[str, str] | None = None) -> dict[str, str | None]:
    """The NATS credentials of the environment: ``HUMANGR_NATS_USER``,
    ``HUMANGR_NATS_PASSWORD``, ``HUMANGR_NATS_CREDS`` and ``HUMANGR_INBOX_PREFIX``."""
    env = os.environ if environ is None else environ
    return {
        "user": env.get("HUMANGR_NATS_USER"),
        "password": env.get("HUMANGR_NATS_PASSWORD"),
        "creds_file": env.get("HUMANGR_NATS_CREDS"),
        "inbox_prefix": env.get("HUMANGR_INBOX_PREFIX"),
    }


async def open_nats(
    url: str | Sequence[str],
    *,
    credentials: Mapping[str, str | None] | None = None,
    subjects: Subjects | None = None,
    jetstream: JetStreamConfig | None = None,
    name: str = "humangr",
) -> Bus:
    """Connect to NATS at ``url`` (one URL or a cluster's seed URLs: any that answers) with
    ``credentials`` (default: the environment's, ``nats_credentials``). Replies come to the
    user's own inbox (``inbox_prefix``, default ``_INBOX_<user>``: deploy/nats-server.conf
    lets each user read only its own). A failure is one ``EngineError`` naming the servers,
    their credentials hidden."""
    from humangr.engine.bus.nats import NatsBus
    from humangr.engine.bus.seeds import parse_seed_urls
    from humangr.engine.bus.subject import inbox_prefix_for

    creds = nats_credentials() if credentials is None else credentials
    servers = parse_seed_urls(url)
    user = creds.get("user")
    inbox = creds.get("inbox_prefix") or (inbox_prefix_for(user) if user else None)
    try:
        return await NatsBus.connect(
            servers,
            name=name,
            subjects=subjects or Subjects(DEFAULT_PREFIX),
            inbox_prefix=inbox,
            user=user,
            password=creds.get("password"),
            token=creds.get("token"),
            creds_file=creds.get("creds_file"),
            jetstream=jetstream,
        )
    except EngineError:
        raise
    except Exception as exc:
        raise EngineError(
            f"cannot connect to NATS at {redact_seed_urls(servers)}: {redact_urls(str(exc))}"
        ) from exc
