"""Access opened, records of what happened removed and mail copied out, read from a business
tool's name and arguments (for ``business``), in any product:

- sharing opened to anyone by a default or a security setting (``default_security="public"``,
  ``DefaultSharingLinkType="AnonymousAccess"``), and a share link created with neither a
  password nor an expiry;
- an audit trail stopped or its records deleted (``operation="StopLogging"``, a delete over a
  table or resource named for audit, a log-streaming diagnostic setting or sink deleted);
- administrator rights given by a role named in a plain argument (``role="security_admin"``
  written to a role-assignment record) or by a directory's well-known administrator role id;
- a mail-flow rule that copies or redirects mail to an address (``BlindCopyTo``);
- a setting that guards mail, links or sign-in switched off by its name
  (``EnableSafeLinksForEmail=false``).

Each reader is a pure function of the name's words and the argument pairs; all are high.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from .business_words import DELETE_VERBS, Finding, Pair, acts, switched_off

__all__ = ["opened_or_hidden"]

_OPEN_KEY = re.compile(r"(?i)shar|secur|link|default\w{0,20}(?:visib|access)")
"""Keys of a sharing default or a security setting (a post's own ``visibility`` is not one)."""
_OPEN_VALUES = frozenset(
    {"public", "anonymous", "anonymousaccess", "anyone", "anyonewithlink", "anyonewiththelink",
     "everyone", "publicread"}
)  # fmt: skip
_NO_PASSWORD = re.compile(r"(?i)^\w{0,30}(?:password_?required|require_?password)\w{0,10}$")
_NO_EXPIRY = re.compile(r"(?i)^\w{0,30}expir\w{0,20}$")
_STOP_LOGGING = frozenset(
    {"stoplogging", "stop_logging", "deletetrail", "delete_trail", "disablelogging",
     "disable_logging"}
)  # fmt: skip
_AUDIT_NAME = re.compile(r"(?i)(?:^|[_.\-/:])audit(?:s|_?logs?|_?trail)?(?:$|[_.\-/])")
_TARGET_KEYS = frozenset(
    {"table", "resource", "resource_type", "object", "sobject", "collection", "index", "name",
     "log", "log_name", "trail", "stream"}
)  # fmt: skip
_LOG_SINKS = frozenset({"diagnostic", "diagnostics", "sink", "sinks", "trail", "trails"})
_ROLE_KEY = re.compile(
    r"(?i)^(?:role|role_?name|roles?_?key|profile|profile_?name|permission_?profile_?name|"
    r"access_?level|privilege)$"
)
_ADMIN_ROLE = re.compile(
    r"(?i)(?:^|[\W_])(?:security|system|global|org|tenant|super|site|account|user)?[\W_]?"
    r"admin(?:istrator)?s?(?:$|[\W_])"
)
_GRANT_VERBS = frozenset(
    {"create", "insert", "add", "assign", "grant", "update", "patch", "set", "put", "invite"}
)
_ADMIN_ROLE_IDS = frozenset(
    {
        "62e90394-69f5-4237-9190-012177145e10",  # Global Administrator
        "e8611ab8-c189-46e8-94e1-60213ab1f814",  # Privileged Role Administrator
        "194ae4cb-b126-40b2-bd5b-6091b380977d",  # Security Administrator
        "7be44c8a-adaf-4e2a-84d6-ab2649e08a13",  # Privileged Authentication Administrator
        "9b895d92-2cd3-44c7-9d02-a6ac2d5ea5c3",  # Application Administrator
        "158c047a-c907-4556-b7ef-446551a6b5f7",  # Cloud Application Administrator
        "fe930be7-5e62-47db-91af-98c3a49a38b1",  # User Administrator
        "29232cdf-9323-42fd-ade2-1d097af3e4de",  # Exchange Administrator
        "f28a1f50-f6e7-4571-818b-6a12f2af6b6c",  # SharePoint Administrator
        "b1be1c3e-b65d-4f19-8427-f6fa0d97feb9",  # Conditional Access Administrator
        "8e3af657-a8ff-443c-a75c-2fe8c4bcb635",  # Azure Owner
    }
)
"""Well-known ids of a directory's administrator roles: the same in every tenant."""
_COPY_KEYS = re.compile(
    r"(?i)^(?:blind_?copy_?to|bcc_?to|copy_?to|redirect_?message_?to|add_?to_?recipients|"
    r"add_?bcc|add_?cc_?recipients?)$"
)
_MAIL_RULE = frozenset({"rule", "rules", "transport", "flow", "mailflow", "journal", "journaling"})
_ADDRESS = re.compile(r"[\w.+-]{1,64}@[\w-]{1,63}\.[\w.-]{1,64}")
_SWITCH = re.compile(r"enable|require|block")
_GUARD = re.compile(
    r"safe_?links|safe_?attachments|phish|spam|malware|virus|quarantine|dlp|impersonat|spoof|"
    r"dkim|dmarc|mfa|two_?factor|2fa|scan"
)
"""Keys (lower-case) of a setting that screens mail, links or sign-in
(``enablesafelinksforemail``, ``scan_enabled``)."""


def _opened(pairs: Sequence[Pair]) -> str | None:
    for key, value in pairs:
        if (
            isinstance(value, str)
            and len(value) < 40
            and key
            and _OPEN_KEY.search(key)
            and re.sub(r"[\s_-]", "", value.lower()) in _OPEN_VALUES
        ):
            return f"{key}={value}"
    no_password = any(_NO_PASSWORD.match(k) and v is False for k, v in pairs if k)
    no_expiry = any(_NO_EXPIRY.match(k) and (v is False or v == 0) for k, v in pairs if k)
    return "a link with no password and no expiry" if no_password and no_expiry else None


def _audit_gone(words: set[str], pairs: Sequence[Pair]) -> bool:
    if words & _STOP_LOGGING:
        return True
    if not words & DELETE_VERBS:
        return False
    if words & _LOG_SINKS:
        return True
    return any(
        k in _TARGET_KEYS and isinstance(v, str) and len(v) < 200 and _AUDIT_NAME.search(v)
        for k, v in pairs
    )


def _admin_role(words: set[str], pairs: Sequence[Pair]) -> str | None:
    if not words & _GRANT_VERBS:
        return None
    for key, value in pairs:
        if not isinstance(value, str) or len(value) > 120:
            continue
        if value.strip().lower() in _ADMIN_ROLE_IDS:
            return value
        if key and _ROLE_KEY.match(key) and _ADMIN_ROLE.search(value):
            return value
    return None


def _copied_to(words: set[str], pairs: Sequence[Pair]) -> str | None:
    if not words & _MAIL_RULE:
        return None
    for key, value in pairs:
        if key and _COPY_KEYS.match(key):
            items = value[:8] if isinstance(value, list) else [value]
            for item in items:
                found = _ADDRESS.search(item[:300]) if isinstance(item, str) else None
                if found is not None:
                    return found.group(0)
    return None


def _guard_off(pairs: Sequence[Pair]) -> str | None:
    for key, value in pairs:
        if (
            key
            and len(key) < 80
            and switched_off(value)
            and _SWITCH.search(key)
            and _GUARD.search(key)
        ):
            return key
    return None


def opened_or_hidden(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """Sharing opened to anyone, an audit trail stopped or deleted, an administrator role
    given, mail copied out by a rule, a mail or link guard switched off."""
    if not acts(words):
        return
    opened = _opened(pairs)
    if opened is not None:
        yield (
            "opens sharing to anyone",
            f"{opened[:80]}: what it covers becomes readable by anyone holding a link.",
            "Share with named people, or let a person confirm opening access.",
        )
    if _audit_gone(words, pairs):
        yield (
            "stops or deletes an audit trail",
            "the record of who did what is stopped or erased; what happens next leaves no trace.",
            "Let a security administrator change audit logging.",
        )
    granted = _admin_role(words, pairs)
    if granted is not None:
        yield (
            "grants administrator rights",
            f"`{granted[:60]}` is an administrator role: the account controls the system.",
            "Let an administrator grant administrator rights.",
        )
    copied = _copied_to(words, pairs)
    if copied is not None:
        yield (
            "copies mail to an address by a rule",
            f"every message the rule matches is copied to {copied[:80]} from now on.",
            "Let the mail administrator set up journaling or copies.",
        )
    guard = _guard_off(pairs)
    if guard is not None:
        yield (
            "switches a mail or sign-in guard off",
            f"`{guard[:60]}` is switched off: what it screened now gets through.",
            "Let a security administrator change protection policies.",
        )
