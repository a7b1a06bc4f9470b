"""A protection's setting rewritten off in place from the shell: ``sed -i
's/^auditd_enabled: true/auditd_enabled: false/' vars.yml`` or ``sed -i
's/^audit_trail=.*/audit_trail=NONE/' init.ora``. A ``sed`` substitution replaces a value the
file already has, so it is read as a flip (``config_flips``): a protective key (audit,
accounting, fraud, MFA, one-time passwords, ``enforce``) set off, or an enforcing mode made
report-only, needs a person in any file but tests, development and example ones."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..config_flips import DEV_PATH, flip_weakens
from .shell_model import Cmd
from .shell_rule_kit import Context, Flag, high, rule
from .shell_rules_settings import sed_parts, sed_substitutions

__all__ = ["setting_flipped"]

_ASSIGN = re.compile(r"([A-Za-z*][\w.*-]{0,80})[\"']?\s*[:=]\s*[\"']?([\w-]{1,30})")


def _key(text: str) -> str:
    """A key as sed spells it, without regex escapes and anchors (``^\\*\\.a`` → ``*.a``)."""
    return text.replace("\\", "").lstrip("^").lower()


@rule
def setting_flipped(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """``sed -i`` whose substitution rewrites a protective setting off (or an enforcing mode
    report-only) in a file that is not a test, development or example file."""
    if cmd.name not in ("sed", "gsed"):
        return
    in_place, scripts, files = sed_parts(cmd.argv)
    if not in_place or not files or all(DEV_PATH.search(f) for f in files):
        return
    for script in scripts:
        for pattern, replacement in sed_substitutions(script):
            new = _ASSIGN.search(replacement)
            if new is None:
                continue
            key = _key(new.group(1))
            if key.lstrip("*.") not in _key(pattern):
                continue  # a new line, not the setting the file has
            old = _ASSIGN.search(pattern)
            before = old.group(2) if old is not None and old.group(2) != "." else "true"
            what = flip_weakens(key, "", before, new.group(2)) or (
                flip_weakens(key, "", "enforce", new.group(2)) if before == "true" else None
            )
            if what is not None:
                yield high(
                    f"a setting {what}",
                    cmd.text,
                    f"`{new.group(0)}` replaces the value {key} has in "
                    f"{', '.join(files[:3])}: it {what}.",
                    "Keep the protection; let a person decide a change to it.",
                )
                return
