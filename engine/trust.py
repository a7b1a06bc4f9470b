"""Whom a client trusts: the Supervisor's public keys, or — only when the user says so —
nobody (``insecure_unsigned``). Every client front door (``humangr.connect``, ``submit
--wait``, ``mcp --nats``, the reviewer commands and the inbox) resolves its keys here and
refuses to start without one, so a forged unsigned ``approved`` on the bus is never acted on.

Light on purpose: client commands import it before they connect."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import msgspec

from humangr.contracts import HumanLayerReport
from humangr.engine.errors import ConfigError
from humangr.engine.signing import PUBLIC_KEY_ENV

__all__ = [
    "LOCAL",
    "PUBLIC_KEY_ENV",
    "UNSIGNED_NOTE",
    "UNVERIFIED",
    "Trust",
    "client_trust",
    "mark_unsigned",
]

UNSIGNED_NOTE = "unsigned: not verified (insecure_unsigned: no public key was given)"
"""The policy note every decision a client accepted without checking a signature carries."""
_MAX_NOTES = 20


@dataclass(frozen=True, slots=True)
class Trust:
    """The public keys a decision must be signed by; none only with ``insecure``."""

    keys: tuple[str, ...]
    insecure: bool = False
    local: bool = False
    """The reports come from a Supervisor started in this process on a local state file (no
    bus anyone else reaches): shown as they are when no key is given."""

    def shown(self, report: HumanLayerReport) -> HumanLayerReport:
        """``report`` as the client shows it: marked "unsigned: not verified" when no
        signature was checked (except from a local state file)."""
        return report if self.keys or self.local else mark_unsigned(report)


UNVERIFIED = Trust((), insecure=True)
"""No key: decisions are shown, marked "unsigned: not verified", never verified."""
LOCAL = Trust((), local=True)
"""A local state file read in this process (``--state PATH``): nothing on a bus to forge."""


def mark_unsigned(report: HumanLayerReport) -> HumanLayerReport:
    """``report`` with ``UNSIGNED_NOTE`` first among its policy notes (once), at most 20 notes.
    The note is added after signing, so ``humangr verify`` of the marked copy names its policy
    notes as changed: verify the stored report (``humangr report ID``) instead."""
    if report.policy_notes[:1] == [UNSIGNED_NOTE]:
        return report
    notes = [UNSIGNED_NOTE, *(n for n in report.policy_notes if n != UNSIGNED_NOTE)]
    return msgspec.structs.replace(report, policy_notes=notes[:_MAX_NOTES])


def _keys(given: str | tuple[str, ...], env: Mapping[str, str], who: str) -> tuple[str, ...]:
    parts = (given or env.get(PUBLIC_KEY_ENV, "")).split(",") if isinstance(given, str) else given
    if not parts:
        parts = tuple(env.get(PUBLIC_KEY_ENV, "").split(","))
    if any(not isinstance(k, str) for k in parts):
        raise ConfigError(f"{who}public keys are strings (the key `humangr key` prints)")
    keys = tuple(k.strip() for k in parts if k.strip())
    if any(not (k.startswith("N") and len(k) == 56 and k.isalnum()) for k in keys):
        raise ConfigError(
            f"{who}a public key is not a public key (56 characters starting with N); give "
            "the key `humangr key` prints where the engine runs, never the seed"
        )
    return keys


def client_trust(
    given: str | Iterable[str] | None,
    *,
    insecure: bool,
    who: str,
    key_option: str,
    insecure_option: str,
    environ: Mapping[str, str] | None = None,
) -> Trust:
    """The keys ``given`` (a string may hold several, comma-separated), else
    ``$HUMANGR_PUBLIC_KEY``'s. Without any a ``ConfigError`` saying what to do, unless
    ``insecure`` (then decisions are accepted unchecked and shown "unsigned: not verified").
    Keys given together with ``insecure`` are a contradiction and refused too. ``who``
    starts each message (empty for a command, whose name the CLI already prints)."""
    env = os.environ if environ is None else environ
    who = f"{who}: " if who else ""
    if insecure is not True and insecure is not False:
        raise ConfigError(f"{who}{insecure_option} must be True or False")
    chosen: str | tuple[str, ...] = (
        "" if given is None else given if isinstance(given, str) else tuple(given)
    )
    if insecure and chosen:
        raise ConfigError(
            f"{who}give {key_option} or {insecure_option}, not both; with a key the "
            "decisions are verified"
        )
    keys = _keys(chosen, env, who)
    if keys:
        return Trust(keys)
    if insecure:
        return Trust((), insecure=True)
    raise ConfigError(
        f"{who}no public key to verify decisions with, so a forged approval could not be told "
        f"apart; give {key_option} KEY (the key `humangr key` prints where the engine runs) or "
        f"set ${PUBLIC_KEY_ENV}; {insecure_option} accepts unsigned decisions (every result "
        'then says "unsigned: not verified")'
    )
