"""The commands a CMake file runs: ``execute_process(COMMAND … COMMAND …)`` at configure time
(its commands piped one into the next) and ``add_custom_command``/``add_custom_target`` at build
time (one after another), written as the shell command that does the same so the shell rules
judge them. Pure, bounded, never raises."""

from __future__ import annotations

import re
import shlex

__all__ = ["cmake_commands"]

_MAX_CALLS = 64
_MAX_REGION = 8_000
_CALL = re.compile(r"(?i)\b(execute_process|add_custom_command|add_custom_target)\s*\(")
_KEYWORDS = frozenset(
    {
        "WORKING_DIRECTORY", "OUTPUT_VARIABLE", "RESULT_VARIABLE", "RESULTS_VARIABLE",
        "ERROR_VARIABLE", "INPUT_FILE", "OUTPUT_FILE", "ERROR_FILE", "TIMEOUT", "OUTPUT_QUIET",
        "ERROR_QUIET", "COMMAND_ECHO", "ECHO_OUTPUT_VARIABLE", "ECHO_ERROR_VARIABLE",
        "ENCODING", "COMMAND_ERROR_IS_FATAL", "OUTPUT_STRIP_TRAILING_WHITESPACE",
        "ERROR_STRIP_TRAILING_WHITESPACE", "DEPENDS", "COMMENT", "VERBATIM", "BYPRODUCTS",
        "OUTPUT", "MAIN_DEPENDENCY", "USES_TERMINAL", "ALL", "SOURCES", "JOB_POOL",
        "IMPLICIT_DEPENDS", "DEPFILE", "APPEND", "COMMAND_EXPAND_LISTS", "TARGET", "PRE_BUILD",
        "PRE_LINK", "POST_BUILD", "JOB_SERVER_AWARE", "CODEGEN",
    }
)  # fmt: skip
_WORD = re.compile(r'"((?:[^"\\]|\\.)*)"|\[(=*)\[(.*?)\]\2\]|([^\s()"]+)', re.DOTALL)


def _region(code: str, start: int) -> str:
    """The arguments of the call opened just before ``start`` (to its closing parenthesis)."""
    depth, i, end = 1, start, min(len(code), start + _MAX_REGION)
    while i < end:
        c = code[i]
        if c == '"':
            j = code.find('"', i + 1)
            while j > 0 and code[j - 1] == "\\":
                j = code.find('"', j + 1)
            i = end if j < 0 else j + 1
            continue
        if c == "#":
            nl = code.find("\n", i)
            i = end if nl < 0 else nl + 1
            continue
        depth += c == "("
        depth -= c == ")"
        if depth == 0:
            return code[start:i]
        i += 1
    return code[start:end]


def _commands(region: str) -> list[str]:
    """Each ``COMMAND``'s words, written for the shell (``${VAR}`` left as a variable)."""
    commands: list[list[str]] = []
    current: list[str] | None = None
    for m in _WORD.finditer(region):
        quoted, _, bracket, bare = m.groups()
        word = quoted if quoted is not None else bracket if bracket is not None else bare
        if bare is not None and bare.upper() == "COMMAND":
            current = []
            commands.append(current)
        elif bare is not None and bare.upper() in _KEYWORDS:
            current = None
        elif current is not None and word is not None:
            current.append(word.replace("\\n", " ").replace('\\"', '"'))
    return [" ".join(_shell_word(w) for w in words) for words in commands if words]


def _shell_word(word: str) -> str:
    if re.fullmatch(r"\$\{\w+\}", word):
        return '"' + word + '"'  # an unknown value: the shell rules read it as one
    return shlex.quote(word)


def cmake_commands(code: str) -> list[tuple[int, str]]:
    """The commands ``code`` (a CMake file) runs, each with the offset of its call."""
    out: list[tuple[int, str]] = []
    for m in _CALL.finditer(code):
        commands = _commands(_region(code, m.end()))
        if not commands:
            continue
        piped = m.group(1).lower() == "execute_process"
        out.append((m.start(), (" | " if piped else " && ").join(commands)))
        if len(out) >= _MAX_CALLS:
            break
    return out
