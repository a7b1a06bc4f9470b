"""Security controls switched off by a business tool, read from its name and arguments for
``business``: a branch protection deleted, a port opened to the whole internet
(``0.0.0.0/0`` in an ingress rule), and a protection's setting turned off — secret scanning,
push protection, vulnerability alerts, waiting rooms, encryption, a firewall (``{"status":
"disabled"}``, ``false``, ``"off"``)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from .business_words import DELETE_VERBS, OFF_VALUES, Finding, Pair, acts

__all__ = ["guards_off"]

_PROTECTION = frozenset({"protection", "protections", "ruleset", "rulesets"})
_NETWORK = frozenset(
    {"ingress", "inbound", "authorize", "firewall", "security", "rule", "rules", "acl",
     "allowlist", "whitelist", "network", "nsg", "port", "ports"}
)  # fmt: skip
_EVERYWHERE = frozenset({"0.0.0.0/0", "::/0", "*", "any", "internet"})
_ADDRESS_KEYS = re.compile(
    r"(?i)^(?:cidr\w*|source\w*|sourceaddressprefix\w*|source_ranges?|ip_?ranges?|"
    r"remote_ip_prefix|ip|ips|cidrs?|from|allowed_ips?|address(?:es)?)$"
)
_CONTROLS = re.compile(
    r"(?i)^(?:secret_scanning\w*|push_protection\w*|\w*vulnerability_alerts|dependabot\w*|"
    r"code_scanning\w*|advanced_security|waiting_room\w*|encryption\w*|\w*_encryption|"
    r"firewall\w*|waf\w*|ddos\w*|malware\w*|antivirus\w*|https_only|require_ssl|ssl_required|"
    r"tls_required|passcode\w*|meeting_password|require_password\w*|deletion_protection|"
    r"termination_protection|versioning|mfa_delete|block_public_\w+|public_access_block)$"
)
"""Settings that protect something: switched off, the protection is gone."""
_STATE_KEYS = frozenset({"status", "state", "enabled", "enable", "value", "mode"})


def _off(value: object) -> bool:
    if value is False:
        return True
    if isinstance(value, str):
        return value.strip().lower() in OFF_VALUES
    if isinstance(value, dict):
        return any(k in _STATE_KEYS and _off(v) for k, v in list(value.items())[:8])
    return False


def _everywhere(value: object) -> bool:
    """An address range that is the whole internet, alone or in a list (``["0.0.0.0/0"]``)."""
    items = value[:16] if isinstance(value, list) else [value]
    return any(isinstance(v, str) and v.strip().lower() in _EVERYWHERE for v in items)


def guards_off(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """A branch protection deleted, a port opened to everyone, a protection turned off."""
    if not acts(words):
        return
    if words & DELETE_VERBS and words & _PROTECTION:
        yield (
            "removes a branch protection",
            "changes then reach the branch without the reviews and checks it required, and "
            "its history can be rewritten.",
            "Let a repository administrator change branch protection.",
        )
        return
    if words & _NETWORK and any(_ADDRESS_KEYS.match(k) and _everywhere(v) for k, v in pairs):
        yield (
            "opens a port to the whole internet",
            "anyone on the internet can reach the service behind it and try its logins and "
            "its flaws.",
            "Allow the addresses that need access, not 0.0.0.0/0.",
        )
        return
    control = next((k for k, v in pairs if _CONTROLS.match(k) and _off(v)), None)
    if control is not None:
        yield (
            "switches a security control off",
            f"`{control}` protects the service or its data; turned off, what it stopped gets "
            "through unnoticed.",
            "Let a security administrator change security settings.",
        )
