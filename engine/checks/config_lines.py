"""Reading settings lines, shared by the settings checks (``config_switches``,
``config_code_switches``): a line of JSON read key by key with the keys that enclose it, a
key in snake case, and the finding of a setting switched off."""

from __future__ import annotations

import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .base import Hit, snippet

__all__ = ["inline_settings", "setting_hit", "snake"]

_MAX_LINE = 4_000
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_PAIR = re.compile(r"[\"']([A-Za-z][\w.-]{0,80})[\"']\s*:\s*(\{|[\"']?[\w.-]{1,40}[\"']?)|(\})")


def snake(key: str) -> str:
    """``key`` in snake case (``RequireSignedTokens`` → ``require_signed_tokens``)."""
    return _CAMEL.sub("_", key).replace("-", "_").replace(".", "_").lower()


def inline_settings(text: str) -> Iterator[tuple[str, str, str]]:
    """Each ``"key": value`` of a line of JSON as (the enclosing key, the key, the value), keys
    in snake case: ``{"A": {"Required": false}}`` → ``("a", "required", "false")``."""
    above: list[str] = []
    for m in _PAIR.finditer(text[:_MAX_LINE]):
        if m.group(3):
            if above:
                above.pop()
            continue
        key = snake(m.group(1))
        if m.group(2) == "{":
            above.append(key)
            continue
        yield (above[-1] if above else ""), key, m.group(2).strip("\"'").lower()


def setting_hit(path: str, number: int | None, line: str, what: str, why: str) -> Hit:
    """The finding of a setting ``what`` ("switches … off") on ``line`` of ``path``."""
    return Hit(
        severity=Severity.HIGH,
        title=f"a setting {what}",
        description=f"{path}: `{snippet(line)}` {why}",
        suggestion="Keep the protection; let a person decide a change to it.",
        file=path,
        line=number,
    )
