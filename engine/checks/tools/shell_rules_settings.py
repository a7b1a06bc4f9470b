"""Settings files edited in place from the shell: ``sed -i 's/^VERIFY_SSL=.*/VERIFY_SSL=false/'
prod.env`` switches a protection off in production as surely as an edit of the file would,
and is judged by the same reading of settings (``config_switches``)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..config_switches import LIVE_PATH, setting_weakened
from .shell_catalogue import words
from .shell_model import Cmd
from .shell_rule_kit import Context, Flag, high, rule

__all__ = ["sed_parts", "sed_substitutions", "setting_edited"]

_SED_VALUED = words("-e -f -l --expression --file --line-length")
_SETTING = re.compile(
    r"([A-Za-z][\w.-]{1,80})[\"']?\s*[:=]\s*[\"']?(true|false|yes|no|on|off|0|1|enabled|"
    r"disabled|none)\b",
    re.IGNORECASE,
)
_MAX_SCRIPT = 4_000


def sed_substitutions(script: str) -> list[tuple[str, str]]:
    """The pattern and replacement of each ``s`` command of a sed script (``s|a|b|g`` →
    ``(a, b)``)."""
    out: list[tuple[str, str]] = []
    for part in re.split(r"[;\n]", script[:_MAX_SCRIPT]):
        part = part.strip()
        m = re.match(r"^(?:/[^/]*/\s*|\d+\s*)?s(.)", part)
        if m is None:
            continue
        pieces = part[m.end() :].split(m.group(1))
        if len(pieces) >= 2:
            out.append((pieces[0], pieces[1]))
    return out[:32]


def _replacements(script: str) -> list[str]:
    """The replacement text of each ``s`` command of a sed script (``s|a|b|g`` → ``b``)."""
    return [new for _, new in sed_substitutions(script)]


_COMMENTS_OUT = re.compile(r"^(?:\\\d|&|\s)*(?:#|//|--|;|/\*|<!--)")
_GUARD = re.compile(
    r"(?i)authenticat|authori[sz]|login_required|protect_from_forgery|csrf|verify|"
    r"permission|require_?(?:auth|login|admin|role)|before_action|helmet|rate_?limit|audit"
)


def sed_parts(argv: list[str]) -> tuple[bool, list[str], list[str]]:
    """Whether ``sed`` edits in place, its scripts and its files."""
    in_place = False
    scripts: list[str] = []
    files: list[str] = []
    i = 1
    while i < len(argv):
        word = argv[i]
        if word in ("-e", "--expression") and i + 1 < len(argv):
            scripts.append(argv[i + 1])
            i += 2
            continue
        if word.startswith(("-i", "--in-place")) or (
            word.startswith("-") and not word.startswith("--") and "i" in word[1:]
        ):
            in_place = True
            if word == "-i" and i + 1 < len(argv) and argv[i + 1] == "":
                i += 1  # BSD sed's empty backup suffix (``sed -i '' …``)
        elif word in _SED_VALUED:
            i += 1
        elif not word.startswith("-"):
            (files if scripts else scripts).append(word)
        i += 1
    return in_place, scripts, files


@rule
def setting_edited(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """``sed -i`` that writes a setting switching a protection off in a production or release
    file (or a backdoor on in any file)."""
    if cmd.name not in ("sed", "gsed"):
        return
    in_place, scripts, files = sed_parts(cmd.argv)
    if not in_place or not files:
        return
    live = any(LIVE_PATH.search(f) for f in files)
    for script in scripts:
        for pattern, replacement in sed_substitutions(script):
            if _COMMENTS_OUT.match(replacement) and _GUARD.search(pattern + replacement):
                yield high(
                    "comments out a security check",
                    cmd.text,
                    f"the edit turns lines matching `{pattern[:60]}` in {', '.join(files[:3])} "
                    "into comments: the check they made no longer runs.",
                    "Keep the check; fix the test or the call that fails it instead.",
                )
                return
        for text in _replacements(script):
            for m in _SETTING.finditer(text):
                what = setting_weakened(m.group(1), m.group(2), live)
                if what is not None:
                    yield high(
                        f"a setting {what}",
                        cmd.text,
                        f"{m.group(0)} is written into {', '.join(files[:3])}: it {what}.",
                        "Keep the protection; let a person decide a change to it.",
                    )
                    return
