"""An argv list as the shell reader reads it: the program it names with its words, and the one
command line a tool that joins its list with spaces would run."""

from __future__ import annotations

import re
import shlex
from typing import Any

__all__ = ["argv_lines", "argv_words"]

_MAX_WORDS = 4096
"""Words of an argv list read (nested lists flattened)."""
_SPACE = re.compile(r"\s")


def argv_words(value: list[Any], out: list[str], depth: int = 0) -> list[str]:
    """The scalar words of an argv list, nested lists flattened (bounded)."""
    for item in value:
        if len(out) >= _MAX_WORDS:
            break
        if isinstance(item, list) and depth < 8:
            argv_words(item, out, depth + 1)
        elif isinstance(item, (str, int, float)):
            out.append(str(item))
    return out


def argv_lines(value: list[Any]) -> list[str]:
    """The command lines an argv list may run: its words shell-quoted, each one word; and, when
    its first word has a space in it, also its words joined. Such a first word is a program in
    a folder with a space in its name, or no program at all but a whole command line
    (``["rm -rf /"]`` from a ``*args`` tool, or a list a tool joins with spaces): both are
    read."""
    words = argv_words(value, [])
    lines = [shlex.join(words)]
    if words and _SPACE.search(words[0].strip()):
        lines.append(" ".join(words))
    return lines
