"""The fallback lexer's word-level helpers (for ``shell_lex``): the reserved words and loop
heads it drops, ``$'…'`` decoding, finding the end of a ``(…)``/``{…}`` group, and finishing a
simple command (reserved words dropped, leading assignments split off).
"""

from __future__ import annotations

import re

from .shell_catalogue import words
from .shell_model import Simple

__all__ = ["RESERVED", "ansi_c", "balanced", "finish_simple"]

RESERVED = words(
    """
    if then else elif fi do done while until { } ! time coproc esac in -p ]] ))
    """
)
_HEADS = words(
    """
    for select case function [[ ((
    """
)
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")
_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_ANSI = re.compile(r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|[0-7]{1,3}|.)", re.DOTALL)


def ansi_c(body: str) -> str:
    """The text of a ``$'…'`` string: ``\\x72\\155`` → ``rm``."""

    def one(m: re.Match[str]) -> str:
        code = m.group(1)
        if code[0] in "xu" and len(code) > 1:
            return chr(int(code[1:], 16))
        if code[0] in "01234567":
            return chr(int(code, 8) & 0xFF)
        return _ESCAPES.get(code, "\\" + code)

    return _ANSI.sub(one, body)


def balanced(text: str, start: int, close: str) -> int:
    """The index of the ``close`` (``)`` or ``}``) that ends the group opened just before
    ``start``, skipping quotes and nested groups; -1 when there is none."""
    opener = "(" if close == ")" else "{"
    level, i, n = 1, start, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            end = text.find("'", i + 1)
            if end < 0:
                return -1
            i = end + 1
            continue
        if c in '"`':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                return -1
            i = j + 1
            continue
        if c == opener:
            level += 1
        elif c == close:
            level -= 1
            if level == 0:
                return i
        i += 1
    return -1


def finish_simple(cmd: Simple) -> Simple | None:
    """Drop reserved words and loop heads, split off leading assignments; None when nothing
    of a command is left."""
    words = cmd.words
    drop = 0
    while drop < len(words) and words[drop] in RESERVED:
        drop += 1
    if drop < len(words) and words[drop] in _HEADS:
        head = words[drop : drop + 3]
        if head[:1] == ["for"] and head[2:] == ["in"] and len(words) > drop + 3:
            cmd.assigns.append((head[1], " ".join(words[drop + 3 :])))  # the loop's values
        drop = len(words)
    while drop < len(words) and _ASSIGN.match(words[drop]):
        name, _, value = words[drop].partition("=")
        cmd.assigns.append((name.rstrip("+"), value))
        drop += 1
    if drop:
        cmd.words = words[drop:]
        for sub in cmd.subs:
            sub.word = sub.word - drop if sub.word >= drop else -1
    if not cmd.words and not cmd.assigns and not cmd.redirects and not cmd.subs:
        return None
    return cmd
