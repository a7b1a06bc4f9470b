"""Seed URLs of a NATS cluster: ``nats://a:4222,nats://b:4222`` as the ``nats`` CLI takes them.

``parse_seed_urls`` is the one parser every entry point uses (``--nats``, ``humangr.connect``,
the testing kit, the MCP backend): a comma-separated string or a sequence of URLs becomes a
tuple of checked URLs for nats-py, which connects to any that answers and reconnects across
them (and the servers the cluster announces). A bad entry is one ``ConfigError`` naming it,
its credentials hidden (``redact_seed_urls``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import urlsplit

from humangr.engine.errors import ConfigError
from humangr.engine.redact import REDACTED, redact_seed_urls

__all__ = ["MAX_SEEDS", "SCHEMES", "parse_seed_urls"]

SCHEMES = ("nats", "tls", "ws", "wss")
"""The schemes nats-py connects with; ``ws``/``wss`` may not be mixed with the others."""
MAX_SEEDS = 32
"""Most URLs one seed list may hold (a cluster is a handful of servers)."""
_MAX_URL = 1024
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]{0,30})://")
_EXAMPLE = "give NATS URLs like nats://host:4222, separated by commas"


def _entries(value: str | Sequence[str]) -> list[str]:
    if isinstance(value, str):
        if len(value) > MAX_SEEDS * (_MAX_URL + 1):
            raise ConfigError(f"the NATS URL list is {len(value)} characters long; {_EXAMPLE}")
        return value.split(",")
    entries: list[str] = []
    for item in value:
        if not isinstance(item, str):
            raise ConfigError(f"a NATS URL must be a string, not {type(item).__name__}")
        if len(item) > MAX_SEEDS * (_MAX_URL + 1):
            raise ConfigError(f"a NATS URL is {len(item)} characters long; {_EXAMPLE}")
        entries.extend(item.split(","))
        if len(entries) > MAX_SEEDS:
            break
    return entries


def _bad(entry: str, index: int, count: int, problem: str, *, masked: bool) -> ConfigError:
    where = f" (entry {index} of {count})" if count > 1 else ""
    shown = redact_seed_urls(entry)  # before cutting it short: a cut password is still one
    if masked and entry:
        # a later entry is ``…@host`` without a scheme: this one may hold a piece of a
        # password cut at a comma
        scheme = _SCHEME.match(entry)
        shown = f"{scheme[0] if scheme else ''}{REDACTED}"
    if len(shown) > 80:
        shown = shown[:80] + "…"
    return ConfigError(f"NATS URL {shown!r}{where} {problem}; {_EXAMPLE}")


_BAD_PORT = "has a bad port (a number from 1 to 65535)"


def _checked(entry: str, *, require_scheme: bool) -> tuple[str, str | None]:
    """``entry`` as nats-py takes it, and what is wrong with it (``None``: nothing)."""
    if not entry:
        return entry, "is empty (a stray comma?)"
    if len(entry) > _MAX_URL:
        return entry, f"is longer than {_MAX_URL} characters"
    if any(c.isspace() or not c.isprintable() for c in entry):
        return entry, "has a space or control character inside"
    scheme = _SCHEME.match(entry)
    if scheme is None:
        if require_scheme or "://" in entry:
            return entry, "has no scheme (nats://, tls://, ws://)"
        url = f"nats://{entry}"  # nats-py reads a bare host[:port] so
    elif scheme[1] not in SCHEMES:
        return entry, f"is not a NATS URL (scheme {scheme[1]!r}): use one of {', '.join(SCHEMES)}"
    else:
        url = entry
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return url, _BAD_PORT
    if not parts.hostname or parts.hostname == "none":
        return url, "has no host"
    if port == 0:
        return url, _BAD_PORT
    if parts.scheme in ("nats", "tls") and (parts.path not in ("", "/") or parts.query):
        return url, "has a path or query (a NATS URL is scheme://host:port)"
    if parts.fragment:
        return url, "has a fragment (#…)"
    return url, None


def parse_seed_urls(value: str | Sequence[str], *, require_scheme: bool = False) -> tuple[str, ...]:
    """The NATS URLs of ``value`` (``"nats://a:4222,nats://b:4222"`` or a sequence of URLs),
    checked, in order, without repeats; a bare ``host:port`` becomes ``nats://host:port``
    unless ``require_scheme``. Raises one ``ConfigError`` naming the first bad entry (its
    credentials hidden): empty, whitespace inside, an unsupported scheme, no host, a bad port,
    a path; or no URL at all, more than ``MAX_SEEDS``, websocket mixed with the others, a
    password split at a comma."""
    entries = [entry.strip() for entry in _entries(value)]
    if entries == [""] or not entries:
        raise ConfigError(f"no NATS URL given; {_EXAMPLE}")
    if len(entries) > MAX_SEEDS:
        raise ConfigError(f"more than {MAX_SEEDS} NATS URLs given; {_EXAMPLE}")
    # ``user:pa,ss@host`` is cut into ``user:pa`` and ``ss@host``: an entry with user info
    # but no scheme, beside one with a scheme, is such a piece; no entry is shown then.
    bare_userinfo = [i for i, e in enumerate(entries) if "@" in e and not _SCHEME.match(e)]
    if bare_userinfo and any(_SCHEME.match(entry) for entry in entries):
        raise ConfigError(
            f"NATS URL entry {bare_userinfo[0] + 1} of {len(entries)} has user info but no "
            "scheme, beside URLs with one: a comma in a password splits the URL there (not "
            "shown: it may hold a piece of the password). Give the password in "
            f"$HUMANGR_NATS_PASSWORD instead, or nats:// before each URL; {_EXAMPLE}"
        )
    urls: list[str] = []
    for index, entry in enumerate(entries):
        url, problem = _checked(entry, require_scheme=require_scheme)
        if problem is not None:
            masked = "@" not in entry and any(i > index for i in bare_userinfo)
            raise _bad(entry, index + 1, len(entries), problem, masked=masked)
        if url not in urls:
            urls.append(url)
    websocket = [url.startswith(("ws://", "wss://")) for url in urls]
    if any(websocket) and not all(websocket):
        raise ConfigError(
            f"the NATS URLs {redact_seed_urls(urls)} mix websocket (ws://, wss://) and "
            "nats:// or tls:// servers; give one kind"
        )
    return tuple(urls)
