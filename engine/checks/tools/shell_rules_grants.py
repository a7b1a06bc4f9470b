"""Administrator rights and sign-in protection changed by one command line (round 29), classes
any application or cluster has:

- an account's administrator flag or level set in an update (a web framework's shell
  ``….update(is_superuser=True)``, a scheduler's ``set adminlevel=Administrator``);
- a second-factor module or plugin uninstalled or disabled (``drush pm:uninstall tfa``,
  ``wp plugin deactivate two-factor``);
- a mail system's impersonation or mailbox-export role assigned
  (``New-ManagementRoleAssignment -Role ApplicationImpersonation``).

Each is high: a person confirms. Everyday neighbours run: a filter that only reads
administrators (``filter(is_superuser=True).count()``), an admin flag set false, a module
other than a factor's uninstalled, a role assignment read (``Get-ManagementRoleAssignment``).
Gated on a keyword of the command's text before any pattern."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .shell_model import Cmd
from .shell_rule_kit import Context, Flag, high, rule

__all__ = ["admin_or_factor_changed"]

_MAX = 4_000
_SET_ADMIN = re.compile(
    r"(?i)\b(?:update|set|create_\w{0,20}|modify|save|add)\b[^;\n|&]{0,160}?"
    r"\b(?:is_?)?(?:superuser|super_?admin|admin_?level|is_?admin|site_?admin|staff_?admin)"
    r"\s*[=:]\s*['\"]?(?:true|1|yes|administrator|admin|operator|super\w*)\b"
)
_FACTOR_MODULE = re.compile(
    r"(?i)^(?:tfa|2fa|mfa|otp|totp\w{0,20}|two[-_]?factor\w{0,30}|wp[-_]2fa|"
    r"(?:libpam[-_])?google[-_]authenticator\w{0,20}|duo\w{0,20}|webauthn\w{0,20}|"
    r"\w{0,20}[-_](?:2fa|mfa|tfa|two[-_]?factor))$"
)
_REMOVES = frozenset(
    {"pm:uninstall", "pmu", "pm-uninstall", "uninstall", "deactivate", "disable", "remove",
     "dis", "module:disable", "module:uninstall", "pm-disable", "purge", "delete"}
)  # fmt: skip
_ROLE_ASSIGN = re.compile(
    r"(?i)^new-managementroleassignment\b.*-role\s+['\"]?(?:application\s?impersonation|"
    r"mailbox\s?import\s?export|organization\s?management|discovery\s?management)"
)


@rule
def admin_or_factor_changed(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """An administrator flag or level set, a second-factor module removed, an impersonation
    role assigned (see the module's docstring)."""
    text = cmd.text[:_MAX]
    lower = text.lower()
    if ("admin" in lower or "superuser" in lower) and _SET_ADMIN.search(text):
        yield high(
            "grants administrator rights",
            text,
            "an account is made an administrator of the application or cluster.",
            "Let an administrator grant administrator rights.",
        )
        return
    words = [w.lower() for w in cmd.argv[1:40]]
    if _REMOVES.intersection(words):
        after = words[min(words.index(w) for w in words if w in _REMOVES) + 1 :]
        module = next((w for w in after if _FACTOR_MODULE.match(w)), None)
        if module is not None:
            yield high(
                "weakens sign-in protection",
                text,
                f"removing `{module[:40]}` lets accounts sign in with a password alone.",
                "Let a security administrator make this change.",
            )
            return
    if cmd.name.lower().startswith("new-managementroleassignment") and _ROLE_ASSIGN.search(text):
        yield high(
            "grants mailbox-wide access",
            text,
            "the account can open, search or export every mailbox in the organisation.",
            "Let a mail administrator grant this role.",
        )
