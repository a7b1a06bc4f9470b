"""Strict reading of agent replies and of the markdown inside their artifacts (pure, no I/O).

A reply must be exactly one JSON object with no text around it: a forced tool call gives that
by construction, and the text path is held to the same rule here. The markdown helpers find
headings and labelled fields outside fenced code blocks, so a ``## 3`` inside a code sample is
not a section.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import msgspec

from humangr.contracts import Artifact, Evidence, NextActions, ResponseEnvelope, ResponseMeta

__all__ = [
    "Section",
    "has_field",
    "reply_problems",
    "sections",
    "text_lines",
]

_KNOWN_FIELDS = frozenset(ResponseEnvelope.__struct_fields__)
_NESTED: dict[str, tuple[frozenset[str], bool]] = {
    "artifacts": (frozenset(Artifact.__struct_fields__), True),
    "evidence": (frozenset(Evidence.__struct_fields__), True),
    "next_actions": (frozenset(NextActions.__struct_fields__), False),
    "meta": (frozenset(ResponseMeta.__struct_fields__), False),
}
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_LABEL_PREFIX = re.compile(r"^[\s#>*_\-+\d.)|]*")
_SHOWN = 120


def _shorten(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _SHOWN else flat[:_SHOWN] + "…"


def reply_problems(raw: str, outside_text: str | None = None) -> list[str]:
    """What makes ``raw`` more (or less) than one JSON object; empty when it is exactly one.

    ``outside_text`` is prose the model sent beside a tool call. Keys that are not fields of
    the envelope or of its nested objects are reported too (the decoder would silently drop
    them, and a misspelt ``evidence`` must not vanish).
    """
    problems: list[str] = []
    if outside_text is not None and outside_text.strip():
        problems.append(
            f"text outside the JSON object: {_shorten(outside_text)!r}; send only the JSON"
        )
    stripped = raw.strip()
    if not stripped.startswith("{") or not stripped.endswith("}"):
        problems.append("the reply must be exactly one JSON object, with no text before or after")
    try:
        value = msgspec.json.decode(stripped)
    except msgspec.DecodeError as exc:
        problems.append(f"not valid JSON: {exc}")
        return problems
    if not isinstance(value, dict):
        problems.append(f"the reply must be a JSON object, not {type(value).__name__}")
        return problems
    unknown = sorted(str(key) for key in value if key not in _KNOWN_FIELDS)
    if unknown:
        problems.append(f"unknown field(s) {unknown}; the fields are {sorted(_KNOWN_FIELDS)}")
    for name, (known, is_list) in _NESTED.items():
        items = value.get(name)
        listed = items if is_list and isinstance(items, list) else [items]
        for index, item in enumerate(listed):
            if not isinstance(item, dict):
                continue
            where = f"{name}[{index}]" if is_list else name
            extra = sorted(str(key) for key in item if key not in known)
            if extra:
                problems.append(
                    f"unknown field(s) {extra} in {where}; the fields are {sorted(known)}"
                )
    return problems


def _marked_lines(text: str) -> Iterator[tuple[str, bool]]:
    """Each line of ``text`` with whether it is code (a fence line or inside a fence)."""
    fence: str | None = None
    for line in text.splitlines():
        match = _FENCE.match(line)
        if fence is None:
            if match:
                fence = match.group(1)
            yield line, fence is not None
        else:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = None
            yield line, True


def text_lines(text: str) -> Iterator[str]:
    """The lines of ``text`` that are outside fenced code blocks."""
    return (line for line, code in _marked_lines(text) if not code)


@dataclass(frozen=True, slots=True)
class Section:
    """A markdown heading (outside code) and the lines up to the next heading of its level or
    higher."""

    level: int
    title: str
    body: str


def sections(text: str, level: int) -> list[Section]:
    """Every heading of exactly ``level`` (outside code) with its body (code included)."""
    found: list[Section] = []
    current: tuple[str, list[str]] | None = None
    for line, code in _marked_lines(text):
        match = None if code else _HEADING.match(line)
        if match and len(match.group(1)) <= level:
            if current is not None:
                found.append(Section(level, current[0], "\n".join(current[1]).strip()))
            current = (match.group(2), []) if len(match.group(1)) == level else None
        elif current is not None:
            current[1].append(line)
    if current is not None:
        found.append(Section(level, current[0], "\n".join(current[1]).strip()))
    return found


def has_field(text: str, names: Iterable[str]) -> bool:
    """Whether a heading or a label line outside code starts with one of ``names``.

    Headings (``### Steps``), list labels (``- **Scope:** …``) and plain labels
    (``Severity: high``) count; the match ignores case and leading markdown marks.
    """
    wanted = tuple(name.lower() for name in names)
    for line in text_lines(text):
        label = _LABEL_PREFIX.sub("", line).lstrip("*_ ").lower()
        if label.startswith(wanted):
            return True
    return False
