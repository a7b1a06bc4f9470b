"""Sign-in and administrator rights read from a business tool's name and arguments, for
``business``: multi-factor, single sign-on or password policies turned off or weakened, a
user's factors or password reset, administrator rights granted (an admin role or group, an
admin policy such as ``AdministratorAccess``, ``roles/owner``, ``cluster-admin``, or
a physical access group that opens everything, ``All Doors``, ``all_areas``)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from .business_words import Finding, Pair, acts, switched_off
from .http_service import IDENTITY

__all__ = ["sign_in"]

_SIGN_IN = frozenset(
    {
        "mfa", "2sv", "2fa", "twofactor", "factor", "factors", "sso", "saml", "oidc",
        "conditional", "authentication", "authenticator", "password", "passwords", "login",
        "signin", "lockout", "session", "enroll",
    }
)  # fmt: skip
_ON_KEYS = re.compile(r"^(?:enforced|enforcement|required|enabled|active|status|state|require\w*)$")
_MIN_LENGTH = re.compile(r"^min_?length$")
_SWITCHES_OFF = frozenset({"deactivate", "disable", "suspend", "unenforce", "bypass", "exempt"})
_FACTORS = frozenset(
    {"mfa", "2sv", "2fa", "twofactor", "factor", "factors", "sso", "saml", "oidc", "conditional"}
)
"""A tool whose name turns multi-factor or single sign-on off (``deactivate_mfa_policy``)."""
_FACTOR_TEXT = re.compile(
    r"(?i)(?:^|[\W_])(?:mfa|2fa|2sv|multi[\W_]?factor|two[\W_]?factor|sso)(?:$|[\W_])"
)
_FACTOR_KEY = re.compile(
    r"mfa|2fa|2sv|two_?factor|multi_?factor|(?<![a-z])sso|totp|webauthn|passkey|second_?factor|"
    r"requir\w{0,6}factor"
)
_DEMANDS = re.compile(r"requir|enforc|enabled?(?:$|_)|mandatory|(?<!in)active")
"""A setting that demands a second factor or single sign-on (``mfa_required``, ``require2fa``,
``ssoEnforced``): switched off, sign-in needs a password alone."""
_IDP_RULES = frozenset(
    {"policy", "policies", "rule", "rules", "authenticator", "authenticators", "factor",
     "factors", "signon", "mfa"}
)  # fmt: skip
"""What an identity provider asks for at sign-in (an Okta policy, a rule of one)."""
_WHAT_KEYS = frozenset(
    {"type", "name", "policy", "policytype", "policy_type", "kind", "factor", "setting", "key"}
)
"""Arguments that say what a generic policy tool changes (``type="MFA_ENROLL"``)."""
_RESETS = frozenset({"reset", "clear", "remove", "delete", "bypass"})
_ADMIN = re.compile(
    r"(?i)(?:^|[\W_])(?:super[\W_]?admins?|admins?|administrators?|owners?|root|"
    r"global[\W_]?admin\w*|org[\W_]?admin\w*)(?:$|[\W_])|"
    r"\b(?:AdministratorAccess|IAMFullAccess|PowerUserAccess)\b|\broles/(?:owner|editor)\b|"
    r"\bcluster-admin\b|^(?:System Administrator|Super Admin)$|"
    r"(?:^|[\W_])all[\W_]{0,3}(?:areas|doors|access|sites|buildings|floors|locations)(?:$|[\W_])"
)
_ADMIN_ID = re.compile(
    r"(?i)(?:^|[\W_\d])(?:super[\W_]?adm(?:ins?)?|admins|administrators|global[\W_]?admins?)"
    r"(?:$|[\W_\d])|(?:^|[\W_\d])(?:prod|production|org|tenant|domain|cloud|site|it|sys)"
    r"[\W_]?(?:admins|administrators)(?:$|[\W_\d])"
)
"""An opaque id that still names an administrators' group (``grp7globaladmins2``,
``00g9prodadmins7x``)."""
_ID_KEYS = re.compile(r"^(?:group|role|team)_?(?:id|key|name)s?$")
_ADMIN_FLAG = re.compile(
    r"^(?:is_?|make_?|grant_?)?(?:super_?|site_?|global_?|org_?)?"
    r"(?:admin|administrator|superuser|super_?admin)$"
)
"""A user's flag that makes it an administrator (``isAdmin``, ``is_superuser``)."""
_ROLE_LISTS = frozenset({"roles", "role", "role_ids", "roleids", "groups", "permissions"})
_ALL_SUPER = re.compile(r"^\s*(?:super|admin)\s+(?:user|group)\s+(?:\*|\S+\s+\S+\s+//\.\.\.)\s*")
"""A Perforce protections line giving everyone super or admin access, or anyone that access
over the whole depot (``super user vendor-bot * //...``)."""
_URL = re.compile(r"(?i)^(?:https?://|/)")
_GRANTS = frozenset(
    {"add", "set", "assign", "grant", "update", "create", "invite", "promote", "put", "patch",
     "attach", "bind", "modify", "edit", "change"}
)  # fmt: skip
_ROLE_WORDS = frozenset(
    {"role", "roles", "group", "groups", "membership", "member", "members", "admin", "admins",
     "owner", "owners", "permission", "permissions", "privilege", "privileges", "collaborator",
     "policy", "policies", "binding", "bindings", "protections", "profile"}
)  # fmt: skip


def sign_in(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """Sign-in protections turned off or weakened, a user's factors or password reset,
    administrator rights granted."""
    if not acts(words):
        return
    about_factors = any(
        k in _WHAT_KEYS and isinstance(v, str) and _FACTOR_TEXT.search(v[:200]) for k, v in pairs
    )
    if _factor_off(pairs) or (words & IDENTITY and words & _SWITCHES_OFF and words & _IDP_RULES):
        yield (
            "weakens sign-in protection",
            "multi-factor, single sign-on or an identity provider's sign-in policy is turned "
            "off for the accounts it covers.",
            "Let a security administrator make this change.",
        )
        return
    if words & _SIGN_IN or about_factors:
        factors = words & _FACTORS or about_factors
        off = bool(words & _SWITCHES_OFF and factors) or any(
            (_ON_KEYS.match(k) and switched_off(v))
            or (about_factors and k == "value" and switched_off(v))  # ``setting=…, value=OFF``
            or (_MIN_LENGTH.match(k) and isinstance(v, int) and v < 8)
            for k, v in pairs
        )
        if off:
            yield (
                "weakens sign-in protection",
                "multi-factor, single sign-on or password rules are turned off or lowered for "
                "the accounts they cover.",
                "Let a security administrator make this change.",
            )
            return
        if words & _RESETS and words & {"factor", "factors", "mfa", "password", "2fa"}:
            yield (
                "resets a user's sign-in",
                "whoever receives the new password or enrols a new factor takes over the "
                "account (a common attack asks a help desk for exactly this).",
                "Verify the user's identity by a known channel first.",
            )
            return
    new_user = words & {"user", "users", "account", "member"} and words & {
        "create",
        "invite",
        "add",
    }
    listed = any(
        (k in _ROLE_LISTS and isinstance(v, list)) or (v is True and _ADMIN_FLAG.match(k))
        for k, v in pairs
    )
    if (words & _ROLE_WORDS or new_user or listed) and words & _GRANTS:
        granted = next(
            (
                v
                for k, v in pairs
                if k
                and isinstance(v, str)
                and len(v) < 200
                and not _URL.match(v)  # the request's own address (``/internal/admin/…``)
                and _ADMIN.search(v)
            ),
            None,
        )
        if granted is None:  # ``{"isAdmin": true}``, ``roles=["…/admin"]``, an admins group id
            granted = _admin_elsewhere(pairs)
        if granted is None:  # a protections table's line (``super user * * //...``)
            granted = next(
                (v for k, v in pairs if not k and isinstance(v, str) and _ALL_SUPER.match(v)), None
            )
        if granted is None:  # every permission there is (``permissions=["full"]``)
            granted = next(
                (
                    f"{k}: {v if isinstance(v, (str, int)) else v[0]}"
                    for k, v in pairs
                    if (k in _RIGHTS_KEYS and _every_right(v)) or _owner_level(k, v)
                ),
                None,
            )
        if granted is None and "discord" in words and _discord_admin(pairs):
            granted = "Administrator permission"
        if granted is not None:
            yield (
                "grants administrator rights",
                f"`{granted[:60]}` gives the account control over the whole system.",
                "Let an administrator grant administrator rights.",
            )


_RIGHTS_KEYS = frozenset(
    {"permissions", "permission", "scopes", "access", "rights", "access_level"}
)
_EVERY_RIGHT = frozenset({"full", "full_access", "fullaccess", "all", "*", "all_permissions"})


def _admin_elsewhere(pairs: Sequence[Pair]) -> str | None:
    """Administrator rights given by a flag set true, an admin role in a list of roles, or a
    group id that names administrators."""
    for key, value in pairs:
        if value is True and _ADMIN_FLAG.match(key):
            return key
        if key in _ROLE_LISTS and isinstance(value, list):
            for item in value[:50]:
                if isinstance(item, str) and len(item) < 200 and _ADMIN.search(item):
                    return item
        if _ID_KEYS.match(key) and isinstance(value, str) and _ADMIN_ID.search(value[:200]):
            return value
    return None


def _every_right(value: object) -> bool:
    """A permission list or value that is every permission (``["full"]``, ``"*"``)."""
    items = value[:50] if isinstance(value, list) else [value]
    return bool(items) and any(
        isinstance(i, str) and i.strip().lower() in _EVERY_RIGHT for i in items
    )


_LEVEL_KEYS = frozenset({"access_level", "group_access", "group_access_level"})


def _owner_level(key: str, value: object) -> bool:
    """GitLab's numeric role of Owner or above (``access_level: 50``; 40 is Maintainer)."""
    if key not in _LEVEL_KEYS or isinstance(value, bool):
        return False
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) < 4:
        value = int(value.strip())
    return isinstance(value, int) and 50 <= value <= 60


def _factor_off(pairs: Sequence[Pair]) -> bool:
    """A setting that demands a second factor or single sign-on, switched off
    (``"mfa_required": false``, ``"requireTwoFactor": "off"``)."""
    for key, value in pairs:
        if not switched_off(value):
            continue
        if key and _FACTOR_KEY.search(key) and _DEMANDS.search(key):
            return True
    return False


def _discord_admin(pairs: Sequence[Pair]) -> bool:
    """A Discord role's permission bits that hold ``ADMINISTRATOR`` (``0x8``)."""
    for key, value in pairs:
        if key == "permissions" and isinstance(value, int | str) and not isinstance(value, bool):
            text = str(value).strip()
            if text.isdigit() and len(text) <= 20 and int(text) & 0x8:
                return True
    return False
