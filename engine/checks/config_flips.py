"""A protection switched off by flipping the value it already had (for ``source_code``).

An edit shows both sides: ``enforce: true`` becoming ``enforce: false``, ``require_otp: true``
becoming ``false``, ``aaa_accounting_exec: true`` becoming ``false`` or ``mode: blocking``
becoming ``mode: advisory`` takes away a check that was running, wherever the file lives
(tests, development and example files aside). A bare new ``false`` is judged by
``config_switches`` (which asks for a production file); a flip of a live value needs no more
evidence. Turning a protection on, and flips of keys that name no protection (a feature
flag, ``debug``, ``verbose``), are not findings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .base import Hit, is_test_path
from .config_lines import setting_hit
from .config_switches import PROTECTION_NOUNS, snake_key
from .diff import FileDiff
from .tools.business_words import OFF_VALUES

__all__ = ["DEV_PATH", "flip_weakens", "settings_flipped"]

_MAX_LINES = 2_000
_SETTING = re.compile(
    r"^(\s*)[-\"']?\s*([A-Za-z*][\w.*-]{0,80})[\"']?\s*[:=]\s*[\"']?([\w.-]{1,30})[\"']?\s*,?\s*"
    r"(?:[#;].*)?$"
)
_SECTION = re.compile(
    r"^(\s*)[\"']?([A-Za-z][\w.-]{0,80})[\"']?\s*:\s*(?:#.*)?$|^\s*\[([\w.-]{1,80})\]\s*$"
)
_ON = frozenset({"true", "yes", "on", "1", "enabled", "enable", "required", "always", "strict"})
_EXTRA_NOUNS = re.compile(
    r"(?:^|_)(?:audit(?:d|ing|_trail)?|accounting|otp|totp|interlock|safety|tamper\w{0,10}|"
    r"integrity|attestation|approvals?|four_eyes|dual_control|maker_checker|"
    r"(?<!round_)trips?|e_?stop|emergency_stop|watchdog|fail_?safe)(?:_|$)"
)
_DEMAND_KEY = re.compile(
    r"^(?:enforce|enforced|enforcement|enforcing|required|verify|validate|verification|"
    r"validation)$"
)
_ENFORCING = frozenset(
    {"enforce", "enforcing", "enforced", "block", "blocking", "deny", "reject", "strict",
     "prevent", "prevention", "protect", "hard_fail", "fail_closed", "required"}
)  # fmt: skip
_REPORT_ONLY = frozenset(
    {"advisory", "permissive", "monitor", "monitoring", "log", "log_only", "logonly", "detect",
     "detection", "detect_only", "audit", "audit_only", "report", "report_only", "warn",
     "warning", "warn_only", "dry_run", "dryrun", "passive", "soft_fail", "fail_open", "off",
     "disabled", "none", "learning", "allow", "optional", "never"}
)  # fmt: skip
_MODE_KEY = re.compile(
    r"(?:^|_)(?:mode|action|enforcement|enforcement_mode|policy|effect|on_failure|failure_mode|"
    r"behaviou?r|default_action)$"
)
DEV_PATH = re.compile(
    r"(?i)(?:^|[/_.-])(?:dev|develop|development|local|test|tests|example|examples|sample|demo|"
    r"fixtures?)(?:$|[/_.-])"
)
"""A test, development, example or fixture file's path: a flip there protects nothing live."""


def flip_weakens(key: str, parent: str, old: str, new: str) -> str | None:
    """What changing setting ``key`` (under ``parent``) from ``old`` to ``new`` does when it
    takes a protection away: a protective switch from on to off, or an enforcing mode
    (``blocking``, ``enforcing``, ``deny``) to a report-only one (``advisory``, ``permissive``,
    ``monitor``); else ``None``."""
    old, new = old.lower().strip("\"'"), new.lower().strip("\"'")
    name = snake_key(key.lstrip("*.").strip())
    scope = f"{snake_key(parent)}_{name}" if parent else name
    protective = bool(
        PROTECTION_NOUNS.search(scope) or _EXTRA_NOUNS.search(scope) or _DEMAND_KEY.search(name)
    )
    if old in _ON and new in OFF_VALUES and protective:
        return "switches a protection off"
    if old in _ENFORCING and new in _REPORT_ONLY and (_MODE_KEY.search(name) or protective):
        return "turns an enforced check into a report-only one"
    return None


_Old = dict[str, tuple[str, str, str]]
_New = dict[str, tuple[str, str, int, str]]


def _sides(file: FileDiff) -> tuple[_Old, _New]:
    """The settings on the old side (by section-qualified key: key, value, parent) and on the
    new side (key, value, line number, text), read over the hunks."""
    old: _Old = {}
    new: _New = {}
    for hunk in file.hunks:
        for side in ("-", "+"):
            stack: list[tuple[int, str]] = []
            for line in hunk.lines[:_MAX_LINES]:
                if line.kind not in (" ", side) or not line.text.strip():
                    continue
                text = line.text[:300]
                indent = len(text) - len(text.lstrip())
                while stack and stack[-1][0] >= indent:
                    stack.pop()
                section = _SECTION.match(text)
                if section is not None:
                    if section.group(3):
                        stack = [(-1, section.group(3))]
                    else:
                        stack.append((indent, section.group(2)))
                    continue
                m = _SETTING.match(text)
                if m is None or line.kind == " ":
                    continue
                parent = stack[-1][1] if stack else ""
                qualified = f"{'.'.join(s for _, s in stack)}.{m.group(2)}"
                if side == "-":
                    old[qualified] = (m.group(2), m.group(3), parent)
                elif line.new is not None:
                    new[qualified] = (m.group(2), m.group(3), line.new, text)
    return old, new


def settings_flipped(file: FileDiff, path: str) -> Iterator[Hit]:
    """The first setting of an edited settings file whose protective value was flipped off."""
    if not file.removed or not file.added or is_test_path(path) or DEV_PATH.search(path):
        return
    old, new = _sides(file)
    for qualified, (key, value, number, text) in new.items():
        before = old.get(qualified)
        if before is None or before[1] == value:
            continue
        what = flip_weakens(key, before[2], before[1], value)
        if what is not None:
            yield setting_hit(path, number, text, what, f"was `{before[1]}`: it {what}.")
            return
