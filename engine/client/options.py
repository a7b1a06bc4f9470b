"""What ``humangr.connect`` accepts: the options, checked once, loudly."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

from humangr.contracts import Subjects
from humangr.engine.errors import ConfigError

if TYPE_CHECKING:
    from humangr.engine.bus import Bus
    from humangr.engine.config import ReviewConfig
    from humangr.engine.llm import LLMClient

__all__ = ["PUBLIC_KEY_ENV", "ConnectOptions", "Settings"]

PUBLIC_KEY_ENV = "HUMANGR_PUBLIC_KEY"
_TOKEN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
_EMBEDDED_ONLY = ("config", "llm")


class ConnectOptions(TypedDict, total=False):
    """The keyword options of ``humangr.connect`` and ``humangr.connect_sync``."""

    agent_id: str
    """The agent id ``guard`` submits as (default ``agent``); a subject token."""
    timeout: float
    """Seconds a review waits for its decision (default: from the engine's deadlines)."""
    prefix: str
    """The subject prefix of the engine (default ``hl``; ``humangr serve --prefix``)."""
    public_key: str | Sequence[str]
    """Public keys whose signatures are trusted (``humangr key``; default
    ``$HUMANGR_PUBLIC_KEY``, comma-separated). The embedded engine trusts its own key."""
    config: ReviewConfig
    """The embedded engine's ``ReviewConfig`` (no URL only)."""
    llm: LLMClient | None
    """The embedded engine's LLM client (no URL only; default none: local checks only)."""
    bus: Bus
    """A bus you already have (and close yourself), instead of a URL."""
    user: str
    """NATS user (default ``$HUMANGR_NATS_USER``)."""
    password: str
    """NATS password (default ``$HUMANGR_NATS_PASSWORD``)."""
    creds_file: str
    """NATS credentials file (default ``$HUMANGR_NATS_CREDS``)."""
    token: str
    """NATS token."""


@dataclass(frozen=True, slots=True)
class Settings:
    """The options of one client, checked."""

    url: str | None
    agent_id: str
    timeout: float | None
    prefix: str
    trusted: tuple[str, ...]
    config: ReviewConfig | None
    llm: LLMClient | None
    bus: Bus | None
    nats: dict[str, str | None]

    @property
    def embedded(self) -> bool:
        """Whether the client runs its own engine in process."""
        return self.url is None and self.bus is None

    @classmethod
    def parse(
        cls, url: str | None, options: Mapping[str, Any], environ: Mapping[str, str] | None = None
    ) -> Settings:
        """Check ``options``: an unknown one is a ``TypeError`` naming it; a value that cannot
        work, or an option that does not fit the kind of connection, a ``ConfigError``."""
        unknown = sorted(set(options) - set(ConnectOptions.__annotations__))
        if unknown:
            known = ", ".join(sorted(ConnectOptions.__annotations__))
            raise TypeError(f"humangr.connect: unknown option(s) {', '.join(unknown)}; use {known}")
        env = os.environ if environ is None else environ
        if url is not None and not re.match(r"^(nats|tls|wss?)://", url):
            raise ConfigError(
                f"humangr.connect: {url!r} is not a NATS URL (nats://host:4222); give no URL "
                "to run the engine in this process"
            )
        remote = url is not None or options.get("bus") is not None
        if url is not None and options.get("bus") is not None:
            raise ConfigError("humangr.connect: give a NATS URL or a bus, not both")
        misplaced = [name for name in _EMBEDDED_ONLY if name in options and remote]
        if misplaced:
            raise ConfigError(
                f"humangr.connect: {', '.join(misplaced)} configure the embedded engine; a "
                "served engine is configured where it runs (`humangr serve`)"
            )
        given_nats = [n for n in ("user", "password", "creds_file", "token") if n in options]
        if given_nats and url is None:
            raise ConfigError(
                f"humangr.connect: {', '.join(given_nats)} are NATS credentials; give a NATS URL"
            )
        agent_id = str(options.get("agent_id", "agent"))
        if not _TOKEN.match(agent_id):
            raise ConfigError(
                f"humangr.connect: agent_id {agent_id!r} must be 1-64 letters, digits, _ or -"
            )
        prefix = Subjects(str(options.get("prefix", "hl"))).prefix
        timeout = options.get("timeout")
        if timeout is not None and not (isinstance(timeout, int | float) and timeout > 0):
            raise ConfigError("humangr.connect: timeout must be a positive number of seconds")
        if "public_key" in options and not remote:
            raise ConfigError(
                "humangr.connect: public_key is for a served engine; the embedded engine "
                "trusts its own key"
            )
        nats = {
            "user": options.get("user", env.get("HUMANGR_NATS_USER")),
            "password": options.get("password", env.get("HUMANGR_NATS_PASSWORD")),
            "creds_file": options.get("creds_file", env.get("HUMANGR_NATS_CREDS")),
            "token": options.get("token"),
        }
        return cls(
            url=url,
            agent_id=agent_id,
            timeout=float(timeout) if timeout is not None else None,
            prefix=prefix,
            trusted=_trusted(options.get("public_key"), env) if remote else (),
            config=options.get("config"),
            llm=options.get("llm"),
            bus=options.get("bus"),
            nats=nats,
        )


def _trusted(given: str | Sequence[str] | None, env: Mapping[str, str]) -> tuple[str, ...]:
    """The public keys given (a string may hold several, comma-separated), else the
    environment's."""
    if given is None:
        given = env.get(PUBLIC_KEY_ENV, "")
    if isinstance(given, str):
        given = given.split(",")
    keys = tuple(k.strip() for k in given if k.strip())
    if any(not (k.startswith("N") and len(k) == 56) for k in keys):
        raise ConfigError(
            "humangr.connect: a public_key is not a public key (56 characters starting with "
            "N); give the key `humangr key` prints, never the seed"
        )
    return keys
