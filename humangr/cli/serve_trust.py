"""What ``humangr serve`` says and decides about trust: the layer workers' key it signs with,
the worker keys a Supervisor trusts, and the warning of a bus without permissions."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from urllib.parse import urlsplit

from humangr.engine.signing import SigningKey
from humangr.engine.worker_keys import load_worker_key

__all__ = ["has_credentials", "trusted_workers_of", "warn_without_permissions", "worker_key_of"]


def has_credentials(url: str, environ: Mapping[str, str] | None = None) -> bool:
    """Whether the NATS connection to ``url`` authenticates (a user, a creds file, or user
    info in the URL): without it the bus has no per-role permissions."""
    env = os.environ if environ is None else environ
    if env.get("HUMANGR_NATS_USER") or env.get("HUMANGR_NATS_CREDS"):
        return True
    # a bare ``user:pass@host:4222`` carries them too (nats-py reads it as nats://…)
    return any("@" in urlsplit(part.strip()).netloc or "@" in part for part in url.split(","))


def warn_without_permissions(url: str) -> None:
    """Say so on stderr when the bus has no permissions (``has_credentials`` is false)."""
    if has_credentials(url):
        return
    print(
        "humangr serve: WARNING: the NATS connection has no user or credentials, so the bus "
        "has no permissions: any client of this NATS can publish tasks, layer reports and "
        "decisions. Layer reports are accepted from trusted worker keys only, but run NATS "
        "with deploy/nats-server.conf's per-role users (HUMANGR_NATS_USER/HUMANGR_NATS_PASSWORD "
        "or HUMANGR_NATS_CREDS; docs/nats.md) for anything but a trial.",
        file=sys.stderr,
        flush=True,
    )


def worker_key_of(args: argparse.Namespace) -> SigningKey:
    """The layer workers' key (``--worker-key`` and its defaults), its public key printed."""
    key, source = load_worker_key(args.worker_key)
    print(
        f"humangr layer reports are signed with {key.public_key} (key: {source}); trust it "
        f"on the Supervisor: --trust-workers {key.public_key}",
        flush=True,
    )
    return key


def trusted_workers_of(
    args: argparse.Namespace, given: tuple[str, ...] | None, worker_key: SigningKey | None
) -> tuple[str, ...]:
    """The worker keys the Supervisor trusts: ``--trust-workers`` (or its variable), else
    this machine's worker key (the in-process layers' when they run here)."""
    if given is not None:
        named = ", ".join(given) if len(given) <= 5 else f"{len(given)} worker keys"
        here = " and by the layer workers of this process" if worker_key is not None else ""
        print(f"humangr trusts layer reports signed by {named}{here}", flush=True)
        return given
    local = worker_key
    source = "the layer workers of this process"
    if local is None:
        local, source = load_worker_key(args.worker_key)
        source = f"this machine's worker key: {source}"
    print(
        f"humangr trusts layer reports signed by {local.public_key} ({source}); trust workers "
        "on other machines with --trust-workers N…",
        flush=True,
    )
    return (local.public_key,)
