"""What ``humangr.connect`` accepts: the options, checked once, loudly."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from humangr.contracts import DEFAULT_PREFIX, Subjects
from humangr.contracts.types import is_token
from humangr.engine.bus.seeds import parse_seed_urls
from humangr.engine.errors import ConfigError
from humangr.engine.trust import PUBLIC_KEY_ENV, Trust, client_trust

from .connection import nats_credentials

if TYPE_CHECKING:
    from humangr.engine.bus import Bus
    from humangr.engine.config import ReviewConfig
    from humangr.engine.llm import LLMClient

__all__ = ["PUBLIC_KEY_ENV", "ConnectOptions", "Settings"]

_EMBEDDED_ONLY = ("config", "llm", "policy", "state")


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
    ``$HUMANGR_PUBLIC_KEY``, comma-separated). A served engine (a URL or ``bus``) needs one,
    else ``connect`` refuses to start; the embedded engine trusts its own key."""
    insecure_unsigned: bool
    """Accept a served engine's decisions without checking any signature (no public key):
    every report then says "unsigned: not verified". Anyone who can publish on the bus can
    then approve an action; use it only for a local experiment."""
    config: ReviewConfig
    """The embedded engine's ``ReviewConfig`` (no URL only)."""
    llm: LLMClient | None
    """The embedded engine's LLM client (no URL only; default none: local checks only)."""
    policy: str | os.PathLike[str]
    """A policy file (TOML) for the embedded engine: allow / ask / deny / review rules and
    suppressions applied before any layer runs (no URL only: a served engine's policy is
    ``humangr serve --policy FILE``)."""
    state: str | os.PathLike[str]
    """A SQLite file (created if missing) where the embedded engine keeps its decisions and
    the reviews waiting for a human (no URL only), so that a human in another process
    resolves them while the agent waits: ``humangr reviews|show|resolve --state PATH`` or
    ``humangr inbox --state PATH``. The engine then signs with this machine's key
    (``$HUMANGR_SIGNING_SEED``, ``$HUMANGR_SIGNING_KEY_FILE`` or ``~/.humangr/signing.seed``,
    as ``humangr serve``), the key those commands sign with too. Without it no human can
    reach a review of the embedded engine, so ``guard`` raises on ``needs_review``."""
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
    inbox_prefix: str
    """Where replies to this agent arrive (default ``$HUMANGR_INBOX_PREFIX``, else
    ``_INBOX_<user>`` with a NATS user: deploy/nats-server.conf lets each user read only its
    own)."""


@dataclass(frozen=True, slots=True)
class Settings:
    """The options of one client, checked."""

    url: tuple[str, ...] | None
    """The NATS seed URLs (one or a cluster's; any that answers), or None."""
    agent_id: str
    timeout: float | None
    prefix: str
    trusted: tuple[str, ...]
    """The public keys a decision must be signed by (empty: only with ``insecure_unsigned``,
    or the embedded engine, which trusts its own)."""
    insecure_unsigned: bool
    config: ReviewConfig | None
    llm: LLMClient | None
    bus: Bus | None
    nats: dict[str, str | None]
    state: Path | None = None
    """The embedded engine's SQLite state file (``state=``), or None (in memory)."""

    @property
    def embedded(self) -> bool:
        """Whether the client runs its own engine in process."""
        return self.url is None and self.bus is None

    @classmethod
    def parse(
        cls,
        url: str | Sequence[str] | None,
        options: Mapping[str, Any],
        environ: Mapping[str, str] | None = None,
    ) -> Settings:
        """Check ``options``: an unknown one is a ``TypeError`` naming it; a value that cannot
        work, or an option that does not fit the kind of connection, a ``ConfigError``."""
        unknown = sorted(set(options) - set(ConnectOptions.__annotations__))
        if unknown:
            known = ", ".join(sorted(ConnectOptions.__annotations__))
            raise TypeError(f"humangr.connect: unknown option(s) {', '.join(unknown)}; use {known}")
        env = os.environ if environ is None else environ
        servers = None
        if url is not None:
            try:
                servers = parse_seed_urls(url, require_scheme=True)
            except ConfigError as exc:
                raise ConfigError(
                    f"humangr.connect: {exc} (or give no URL to run the engine in this process)"
                ) from None
        remote = url is not None or options.get("bus") is not None
        if url is not None and options.get("bus") is not None:
            raise ConfigError("humangr.connect: give a NATS URL or a bus, not both")
        misplaced = [name for name in _EMBEDDED_ONLY if name in options and remote]
        if misplaced:
            raise ConfigError(
                f"humangr.connect: {', '.join(misplaced)} configure the embedded engine; a "
                "served engine is configured where it runs (`humangr serve`, its policy with "
                "`humangr serve --policy FILE`)"
            )
        given_nats = [
            n for n in ("user", "password", "creds_file", "token", "inbox_prefix") if n in options
        ]
        if given_nats and url is None:
            raise ConfigError(
                f"humangr.connect: {', '.join(given_nats)} are NATS credentials; give a NATS URL"
            )
        agent_id = str(options.get("agent_id", "agent"))
        if not is_token(agent_id):
            raise ConfigError(
                f"humangr.connect: agent_id {agent_id!r} must be 1-64 letters, digits, _ or -"
            )
        prefix = Subjects(str(options.get("prefix", DEFAULT_PREFIX))).prefix
        timeout = options.get("timeout")
        if timeout is not None and not (isinstance(timeout, int | float) and timeout > 0):
            raise ConfigError("humangr.connect: timeout must be a positive number of seconds")
        for name in ("public_key", "insecure_unsigned"):
            if name in options and not remote:
                raise ConfigError(
                    f"humangr.connect: {name} is for a served engine; the embedded engine "
                    "trusts its own key"
                )
        trust = (
            client_trust(
                options.get("public_key"),
                insecure=options.get("insecure_unsigned", False),
                who="humangr.connect",
                key_option="public_key=",
                insecure_option="insecure_unsigned=True",
                environ=env,
            )
            if remote
            else Trust(())
        )
        # the environment's credentials (the CLI's too), each replaced by its option if given
        nats = nats_credentials(env) | {"token": None}
        for key in nats:
            if key in options:
                nats[key] = options[key]
        state = _state_path(options["state"]) if "state" in options else None
        config = options.get("config")
        if "policy" in options:
            config = _with_policy(config, options["policy"])
        return cls(
            url=servers,
            agent_id=agent_id,
            timeout=float(timeout) if timeout is not None else None,
            prefix=prefix,
            trusted=trust.keys,
            insecure_unsigned=trust.insecure,
            config=config,
            llm=options.get("llm"),
            bus=options.get("bus"),
            nats=nats,
            state=state,
        )


def _state_path(value: Any) -> Path:
    """``state=`` as a path: a file, not a folder (it is created when missing)."""
    raw = os.fspath(value) if isinstance(value, str | os.PathLike) else None
    if not isinstance(raw, str) or not raw.strip():
        raise ConfigError(
            "humangr.connect: state is the path of a SQLite file (e.g. state='reviews.db') "
            "where the embedded engine keeps its reviews"
        )
    path = Path(raw)
    if path.is_dir():
        raise ConfigError(
            f"humangr.connect: state={raw!r} is a folder; give a file in it (e.g. reviews.db)"
        )
    return path


def _with_policy(config: ReviewConfig | None, path: Any) -> ReviewConfig:
    """``config`` (the defaults when ``None``) with the policy file at ``path`` loaded."""
    import dataclasses

    from humangr.engine.config import ReviewConfig
    from humangr.engine.policy import load_policy

    if not isinstance(path, str | os.PathLike):
        raise ConfigError("humangr.connect: policy is the path of a policy file (TOML)")
    return dataclasses.replace(config or ReviewConfig(), rules=load_policy(os.fspath(path)))
