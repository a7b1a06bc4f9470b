"""What a deployment trusts, which the local checks of tool calls read (part of the policy)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_OPTIONS", "CheckOptions"]


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """What the deployment trusts, which the checks of tool calls read. Part of the policy."""

    allowed_hosts: frozenset[str] = frozenset()
    """Hosts (``api.example.com``, ``*.example.com``) data may be sent to; empty: none."""
    allowed_email_domains: frozenset[str] = frozenset()
    """Domains mail may go to without review of what it carries; empty: none."""
    resemblance_model: str | None = None
    """A model file for the ``resemblance`` check (``humangr checks-train --out``); ``None``:
    the one shipped with HUMANGR."""


DEFAULT_OPTIONS = CheckOptions()
