"""Access widened in shapes a business or cloud tool's arguments carry, for ``business``
(round 29); each class recurs across identity providers, code hosts and clouds:

- automation allowed to approve its own changes, or given write rights by default (a code
  host's ``can_approve_pull_request_reviews: true``, ``default_workflow_permissions: write``);
- a secret store's access policy granting a principal its secrets, keys or certificates
  (``accessPolicies`` with ``secrets: ["get", "list"]``);
- another person's mailbox opened to an account (``AccessRights: FullAccess``, ``SendAs``,
  impersonation);
- a sign-in policy told to let people through without a second factor (``no-prompt``,
  ``bypass`` as a user's or a policy's behaviour);
- a file or folder shared with a whole domain (a permission of ``type: domain``).

Each is high: a person confirms. Everyday neighbours run: read-only default permissions,
reviews not approvable by automation, a secret store's policy read or removed, read rights
on one's own calendar, a factor policy that prompts or denies, a share with one named person."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from .business_words import DELETE_VERBS, Finding, Pair, acts

__all__ = ["access_widened"]

_SELF_APPROVE = re.compile(r"^(?:can|allow\w{0,12})_?approve\w{0,40}$")
"""A switch letting automation approve reviews (``can_approve_pull_request_reviews``)."""
_DEFAULT_RIGHTS = re.compile(r"^default_?\w{0,30}(?:permissions?|scopes?|access)$")
_WIDE = frozenset({"write", "write-all", "write_all", "all", "admin", "read-write", "readwrite"})
_VAULTS = frozenset(
    {"vault", "vaults", "keyvault", "keyvaults", "secret", "secrets", "kms", "hsm",
     "accesspolicies", "accesspolicy", "access_policy", "access_policies"}
)  # fmt: skip
_STORE_PARTS = frozenset({"secrets", "keys", "certificates", "secret", "key", "certificate"})
_READS_SECRET = frozenset(
    {"get", "list", "all", "*", "decrypt", "unwrapkey", "export", "backup", "purge", "read"}
)
_MAILBOX_RIGHTS = re.compile(
    r"(?i)^(?:full_?access|send_?as|send_?on_?behalf\w*|application_?impersonation|"
    r"impersonation|owner|delegate_?full\w*)$"
)
_RIGHTS_KEYS = re.compile(r"^(?:access_?rights?|rights|permissions?|access_?level|role)$")
_MAIL_WORDS = frozenset({"mailbox", "mailboxes", "mail", "inbox", "exchange", "calendar"})
_SKIP_FACTOR = frozenset(
    {"no-prompt", "no_prompt", "noprompt", "bypass", "skip-mfa", "skip_mfa",
     "allow-without-mfa", "allow_without_mfa", "no-mfa", "no_mfa", "mfa-bypass",
     "bypass_mfa", "allow_access_without_2fa", "allow-access-without-2fa"}
)  # fmt: skip
_BEHAVIOUR_KEYS = re.compile(
    r"^(?:\w{0,20}_)?(?:behaviou?r|status|mode|enforcement|\w{0,20}(?:mfa|2fa|factor)\w*)$"
)
_FACTOR_PLACES = frozenset(
    {"policy", "policies", "user", "users", "authentication", "mfa", "2fa", "factor",
     "factors", "duo", "okta", "signon", "sign", "login", "enrollment", "enroll"}
)  # fmt: skip
_SHARING = frozenset({"permission", "permissions", "share", "shares", "sharing", "acl"})
_GRANTEE_TYPE = frozenset({"type", "grantee_type", "granteetype", "principal_type", "scope"})
_NOT_SIGN_IN = frozenset({"cache", "caching", "cdn", "firewall", "waf", "proxy", "route"})


def access_widened(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """Automation made able to approve or write, a secret store opened to a principal, a
    mailbox opened to another account, a second factor skipped (see the module's docstring)."""
    if not acts(words) or words & DELETE_VERBS or words & {"remove", "revoke"}:
        return
    widened = _automation_rights(pairs)
    if widened is not None:
        yield (
            "lets automation approve or write by default",
            f"`{widened}`: workflows get write rights or may approve their own pull requests, "
            "a path around code review.",
            "Keep default workflow rights read-only and reviews for people.",
        )
        return
    if words & _VAULTS:
        opened = _secret_store_opened(pairs)
        if opened is not None:
            yield (
                "opens a secret store to a principal",
                f"`{opened}`: the principal can read the store's secrets, keys or "
                "certificates, and everything they unlock.",
                "Let the store's owner confirm who may read it.",
            )
            return
    if words & _MAIL_WORDS or any(k in ("accessrights", "access_rights") for k, _ in pairs):
        right = next(
            (
                v
                for k, v in pairs
                if _RIGHTS_KEYS.match(k) and isinstance(v, str) and _MAILBOX_RIGHTS.match(v.strip())
            ),
            None,
        )
        if right is not None:
            yield (
                "opens a mailbox to another account",
                f"`{right}`: the account reads or sends as the mailbox's owner, unnoticed.",
                "Let the mailbox's owner or a mail administrator grant it.",
            )
            return
    if words & _SHARING and any(
        k in _GRANTEE_TYPE and isinstance(v, str) and v.strip().lower() == "domain"
        for k, v in pairs[:400]
    ):
        domain = next((v for k, v in pairs if k == "domain" and isinstance(v, str)), "a domain")
        yield (
            "shares with a whole domain",
            f"everyone at `{domain[:60]}` can open it, and a domain is easily mistyped or a "
            "lookalike.",
            "Share with the named people who need it.",
        )
        return
    if words & _FACTOR_PLACES and not words & _NOT_SIGN_IN:
        skipped = next(
            (
                f"{k}: {v}"
                for k, v in pairs
                if isinstance(v, str)
                and len(v) < 40
                and v.strip().lower() in _SKIP_FACTOR
                and _BEHAVIOUR_KEYS.match(k)
                and "cache" not in k
            ),
            None,
        )
        if skipped is not None:
            yield (
                "weakens sign-in protection",
                f"`{skipped}`: people sign in without a second factor.",
                "Let a security administrator make this change.",
            )


def _automation_rights(pairs: Sequence[Pair]) -> str | None:
    """A switch letting automation approve reviews, or default rights set to write."""
    for key, value in pairs[:400]:
        if value is True and _SELF_APPROVE.match(key) and ("review" in key or "pull" in key):
            return key
        if _DEFAULT_RIGHTS.match(key) and isinstance(value, str) and value.strip().lower() in _WIDE:
            return f"{key}: {value}"
    return None


def _secret_store_opened(pairs: Sequence[Pair]) -> str | None:
    """A secret store's access policy giving a principal read of secrets, keys or
    certificates (``secrets: ["get", "list"]``, ``keys: ["all"]``)."""
    for key, value in pairs[:400]:
        if key not in _STORE_PARTS or not isinstance(value, list):
            continue
        rights = {i.strip().lower() for i in value[:30] if isinstance(i, str)}
        if rights & _READS_SECRET:
            return f"{key}: {', '.join(sorted(rights))[:60]}"
    return None
