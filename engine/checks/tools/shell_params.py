"""Parameter forms whose value the script itself writes: the default of an unset variable
(``${x:-rm} -rf ~`` runs ``rm``; ``${D:=/}``) and the elements of an array
(``x=(rm -rf ~); "${x[@]}"`` runs ``rm -rf ~``).

Pure functions over one word; bounded (a word's first ``_MAX_CHARS`` characters, no nested
braces, a single pass of a linear regex).
"""

from __future__ import annotations

import re

from .shell_catalogue import words

__all__ = ["ARRAY_WORD", "array_value", "defaulted"]

_MAX_CHARS = 2_000
_DEFAULT = re.compile(r"\$\{(\w{1,64}):?[-=]([^{}`]{0,500})\}")
"""``${NAME:-word}``, ``${NAME-word}``, ``${NAME:=word}``, ``${NAME=word}`` with a plain default."""
_ELEMENT = re.compile(r"\$\{(\w{1,64})\[([@*]|\d{1,4})\]\}")
ARRAY_WORD = re.compile(r"^\$\{\w{1,64}\[[@*]\]\}$")
"""A word that is a whole array (``"${x[@]}"``): its elements become the command's words."""
_SET = words(
    "HOME USER LOGNAME PATH PWD OLDPWD SHELL TMPDIR TMP TEMP LANG TERM HOSTNAME UID EUID "
    "XDG_CONFIG_HOME XDG_DATA_HOME XDG_CACHE_HOME XDG_RUNTIME_DIR"
)
"""Variables every session sets: their default never applies."""


def defaulted(word: str, env: dict[str, str]) -> str:
    """``word`` with each defaulted parameter of a variable the script never set (and no
    session sets) written as its default, and each array element written as its value."""
    if "${" not in word or len(word) > _MAX_CHARS:
        return word
    if "[" in word:
        word = _ELEMENT.sub(lambda m: _element(m, env), word)
    if "-" not in word and "=" not in word:
        return word

    def put(m: re.Match[str]) -> str:
        name = m.group(1)
        if name in env or name in _SET or name.isdigit():
            return m.group(0)
        return m.group(2).strip("'\"")

    return _DEFAULT.sub(put, word)


def _element(m: re.Match[str], env: dict[str, str]) -> str:
    value = env.get(m.group(1))
    if value is None:
        return m.group(0)
    if m.group(2) in "@*":
        return value
    items = value.split()
    index = int(m.group(2))
    return items[index] if index < len(items) else ""


def array_value(value: str) -> str:
    """The elements of an array assignment's value (``(rm -rf ~)`` → ``rm -rf ~``), split on
    blanks; any other value as it is."""
    if len(value) > 1 and value[0] == "(" and value[-1] == ")":
        return " ".join(w.strip("'\"") for w in value[1:-1].split()[:64])
    return value
