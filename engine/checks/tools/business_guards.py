"""Security controls switched off by a business tool, read from its name and arguments for
``business``: a branch protection deleted, a port opened to the whole internet
(``0.0.0.0/0`` in an ingress rule), a secrets manager's policy granted over every path
(Vault's ``path "*"`` with sudo or write capabilities), and a protection's setting or feature
flag turned off — secret scanning, push protection, vulnerability alerts, waiting rooms,
encryption, a firewall, fraud scoring, captchas, rate limits (``{"status": "disabled"}``,
``false``, ``"off"``, ``{"key": "fraud_checks", "value": false}``)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from .business_words import DELETE_VERBS, REVOKE_VERBS, Finding, Pair, acts, switched_off

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
    r"termination_protection|versioning|mfa_delete|block_?public_?\w+|public_access_block|ignore_?public_?acls|restrict_?public_?buckets)$"
)
"""Settings that protect something: switched off, the protection is gone."""
_STATE_KEYS = frozenset({"status", "state", "enabled", "enable", "value", "mode"})
_PROTECTION_SETTING = re.compile(r"^\w{0,40}_?protection$")
"""A protection setting (``ssoProtection``, ``passwordProtection``) that ``null`` removes."""
_CONTROL_WORDS = frozenset(
    {"fraud", "antifraud", "captcha", "recaptcha", "hcaptcha", "turnstile", "waf",
     "firewall", "antivirus", "malware", "ddos", "kyc", "aml", "sanctions", "3ds", "threeds",
     "3dsecure", "audit", "ratelimit", "ratelimiting", "bruteforce", "lockout", "csrf",
     "dlp", "edr", "anticheat", "cheat", "antibot", "antispam", "moderation"}
)  # fmt: skip
"""Words of a setting or a feature flag that guards against abuse (``fraud_scoring_enabled``,
``rate_limit``): switched off, what it stopped gets through."""
_FLAG_NAMES = frozenset({"key", "name", "flag", "flag_key", "feature", "feature_key", "setting"})
_FLAG_VALUES = frozenset({"value", "enabled", "enable", "on", "state", "status", "variation"})
_WIDE_PATH = re.compile(r'(?s)\bpath\s+"(\*|[^"/]*/?\*)"\s*\{([^}]{0,2000})\}')
_POWERS = frozenset({"sudo", "create", "update", "delete", "root", "*"})
"""A secrets manager's policy (Vault HCL) over every path: with these capabilities, whoever
holds it reads and rewrites every secret."""


def _off(value: object) -> bool:
    """A setting switched off, or an object whose state says so (``{"enabled": false}``)."""
    if switched_off(value):
        return True
    if isinstance(value, dict):
        return any(k in _STATE_KEYS and _off(v) for k, v in list(value.items())[:8])
    return False


def _everywhere(value: object) -> bool:
    """An address range that is the whole internet, alone or in a list (``["0.0.0.0/0"]``)."""
    items = value[:16] if isinstance(value, list) else [value]
    return any(isinstance(v, str) and v.strip().lower() in _EVERYWHERE for v in items)


def _control(name: str) -> bool:
    words = set(re.split(r"[^a-z0-9]+", name.lower().replace("rate_limit", "ratelimit")))
    return bool(words & _CONTROL_WORDS)


def _flag_off(pairs: Sequence[Pair]) -> str | None:
    """A protection named as a setting's or a flag's key, switched off: ``"fraud_scoring_
    enabled": false``, or ``{"key": "captcha_on_login", "value": false}``."""
    named = [v for k, v in pairs if k in _FLAG_NAMES and isinstance(v, str) and len(v) < 120]
    for key, value in pairs:
        if key and _off(value) and (_control(key) or _CONTROLS.match(key)):
            return key
        if value is None and _PROTECTION_SETTING.match(key):
            return key  # ``"ssoProtection": null``: the setting removed
        if key in _FLAG_VALUES and _off(value):
            flag = next((n for n in named if _control(n)), None)
            if flag is not None:
                return flag
    return None


def _wide_policy(pairs: Sequence[Pair]) -> str | None:
    """A secrets policy over every path with write or sudo capabilities: ``path "*" {
    capabilities = ["create", …, "sudo"] }``, as HCL text or as its JSON form."""
    for key, value in pairs:
        if isinstance(value, str) and "path" in value and len(value) < 65_536:
            for m in _WIDE_PATH.finditer(value):
                if set(re.findall(r'"(\w+|\*)"', m.group(2))) & _POWERS:
                    return m.group(1)
        if key in ("*", "+/*", "sys/*") and isinstance(value, dict):
            powers = value.get("capabilities") or value.get("policy")
            if isinstance(powers, list) and {str(p) for p in powers[:20]} & _POWERS:
                return key
    return None


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
    if (
        words & _NETWORK
        and not words & REVOKE_VERBS
        and any(_ADDRESS_KEYS.match(k) and _everywhere(v) for k, v in pairs)
    ):
        yield (
            "opens a port to the whole internet",
            "anyone on the internet can reach the service behind it and try its logins and "
            "its flaws.",
            "Allow the addresses that need access, not 0.0.0.0/0.",
        )
        return
    wide = _wide_policy(pairs)
    if wide is not None:
        yield (
            "grants a policy over every secret",
            f'path "{wide}" with write or sudo capabilities lets whoever holds the policy read, '
            "change and delete every secret and the secrets manager's own settings.",
            "Grant the paths and capabilities the job needs (secret/data/app/*, read).",
        )
        return
    control = _flag_off(pairs)
    if control is not None:
        yield (
            "switches a security control off",
            f"`{control}` protects the service or its data; turned off, what it stopped gets "
            "through unnoticed.",
            "Let a security administrator change security settings.",
        )
