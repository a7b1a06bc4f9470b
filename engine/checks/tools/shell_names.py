"""What a command's words stand for before the rules read them: a name printed by a
substitution (``$(echo rm)``), a name written as a glob (``/???/r?``), and the command
``xargs`` runs when its input is known text."""

from __future__ import annotations

import fnmatch
import re

__all__ = ["GLOB", "WHOLE_SUB", "globbed", "xargs_fed"]

WHOLE_SUB = re.compile(r"^(?:\$\((?!\().*\)|`[^`]*`)$", re.DOTALL)
"""A word that is one command substitution, whole: ``$(…)`` or backticks."""
GLOB = re.compile(r"[?*\[]")
"""A glob character: a word holding one is a pattern the shell expands."""
_GLOBBED = (
    "rm",
    "sh",
    "bash",
    "dash",
    "zsh",
    "nc",
    "ncat",
    "curl",
    "wget",
    "dd",
    "chmod",
    "chown",
    "python3",
    "python",
    "perl",
    "mkfs",
    "shred",
    "socat",
    "base64",
    "cat",
)
"""Programs a command name written as a pattern (``/bin/r?m``, ``/usr/bin/c[u]rl``) is
matched against: what such a name runs is whichever of these the pattern names."""


def xargs_fed(argv: list[str], command: list[str], stdin: str) -> list[str]:
    """The command ``xargs`` runs when its input is known text (``xargs -I{} rm -rf {} <<<
    /``): the first item put in place of the replacement string, or every item appended."""
    items = stdin.split()[:64]
    if not items:
        return command
    replace: str | None = None
    for i, word in enumerate(argv[1:], 1):
        if word == "-I" and i + 1 < len(argv):
            replace = argv[i + 1]
            break
        if word.startswith("-I") and len(word) > 2:
            replace = word[2:]
            break
        if word in ("-i", "--replace") or word.startswith("--replace="):
            replace = word.partition("=")[2] or "{}"
            break
    if replace:
        return [w.replace(replace, items[0]) for w in command]
    return [*command, *items]


def globbed(word: str) -> str:
    """A command name that is a pattern, as the program it matches (first of ``_GLOBBED``),
    keeping its folder; the word itself when it matches none."""
    folder, _, base = word.rpartition("/")
    if GLOB.search(folder):
        folder = ""
    for name in _GLOBBED:
        if fnmatch.fnmatchcase(name, base):
            return f"{folder}/{name}" if folder else name
    return word
