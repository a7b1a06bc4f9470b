"""Where a tool call carries shell commands (for ``shell.shell_command``): the command of a
shell tool (a string or an argv list, a program and its argv given apart), code to run read
as the interpreter line that runs it, IPython shell lines, text a computer-use tool types,
arguments named like a command whatever the tool, a shell tool's environment, and any other
string that is plainly a dangerous command line."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from typing import Any

from humangr.contracts import ToolKind

from .notebook import code_cells, is_notebook
from .shell_argv import argv_lines
from .shell_catalogue import words
from .view import ToolView

__all__ = ["CONTENT", "ipython_shell", "leaf", "sources", "typed"]

_COMMAND_NAMES = (
    "command",
    "cmd",
    "shell_command",
    "script",
    "commands",
    "argv",
    "args",
    "input",
    "code",
)
_NAMED = words(
    """
    command cmd argv shell_command commands shell
    """
)
_PROGRAM_NAMES = ("program", "executable", "binary", "exe", "file")
CONTENT = words(
    """
    content contents new_string old_string new_str old_str text patch diff body data html
    markdown message description prompt query sql
    """
)
_RUNNERS: dict[str, tuple[str, ...] | None] = {
    "python": ("python3", "-c"),
    "python3": ("python3", "-c"),
    "py": ("python3", "-c"),
    "javascript": ("node", "-e"),
    "js": ("node", "-e"),
    "node": ("node", "-e"),
    "ruby": ("ruby", "-e"),
    "perl": ("perl", "-e"),
    "php": ("php", "-r"),
    "bash": None,
    "sh": None,
    "shell": None,
    "zsh": None,
}
"""How code to run is read as the command that runs it (``python3 -c CODE``); ``None``: the
code is shell. Unknown languages are read as Python."""
_MAX_EMBEDDED = 4096
_EMBEDDED = re.compile(
    r"\|\s*(?:sudo\s+)?(?:/\S*/)?(?:ba|z|da|k)?sh\b|/dev/(?:tcp|udp)/|\brm\s+-\w*[rRf]|"
    r"\bmkfs\b|\bdd\s+\S*of=|\bnc\b.*\s-[ec]\b|\bbash\s+-i\b|base64\s+(?:-d|--decode)|"
    r":\(\)\s*\{|\bchmod\s+(?:-R\s+)?(?:[ugoa]*\+s|[0-7]?[4267][0-7]{3}|777)|"
    r"<\(\s*(?:curl|wget)|\$\(\s*(?:curl|wget)|\bsocat\b.*exec:|/etc/shadow|\bmkfifo\b|"
    r"\bhistory\s+-c|\bcrontab\b|authorized_keys|python\d?\s+-c|perl\s+-e|--force\b|"
    r"\bterraform\s+destroy|\bkubectl\s+delete|\bshred\b|\bwipefs\b|id_rsa|\.aws/credentials"
)


def sources(tool: ToolView) -> Iterator[tuple[str, str, bool]]:
    """(argument, command text, conservative) for every command a call carries; a
    conservative one is text nothing says runs, whose critical findings alone count."""
    seen: set[str] = set()
    if tool.kind is ToolKind.CODE:
        code = tool.text("code", "source", "python", "program", "script", "cell")
        if code is not None:
            seen.add(code[0])
            language = tool.text("language", "lang", "runtime")
            name = language[1].strip().lower() if language else "python"
            runner = _RUNNERS.get(name, ("python3", "-c"))
            if runner is None:
                yield code[0], code[1], False  # a shell language: the code is the command
            else:
                yield code[0], shlex.join([*runner, code[1]]), False
                if runner[0].startswith("python"):
                    for command in ipython_shell(code[1]):
                        yield code[0], command, False
    yield from _notebook_shell(tool)
    typed_text = typed(tool)
    if typed_text is not None:
        seen.add(typed_text[0])
        yield typed_text[0], typed_text[1], True
    if tool.kind is ToolKind.SHELL:
        commands: list[str] = []
        program = tool.text(*_PROGRAM_NAMES)
        args = tool.get("args", "arguments", "argv")
        single = tool.text("command", "cmd")
        if program is None and single is not None and not single[1].strip().count(" "):
            program = single  # ``{"command": "sh", "args": ["-c", "…"]}``: one program, its argv
        if program is not None and args is not None and isinstance(args[1], list):
            seen.update({program[0], args[0]})
            for line in argv_lines([program[1], *args[1]]):
                commands.append(line)
                yield args[0], line, False
        for name in _COMMAND_NAMES:
            found = tool.get(name)
            if found is None or found[0] in seen:
                continue
            seen.add(found[0])
            key, value = found
            if isinstance(value, str) and value.strip():
                commands.append(value)
                yield key, value, False
            elif isinstance(value, list) and key.lower() == "commands":
                for i, item in enumerate(value[:64]):
                    for text in argv_lines(item) if isinstance(item, list) else [str(item)]:
                        commands.append(text)
                        yield f"{key}[{i}]", text, False
            elif isinstance(value, list) and value:
                for line in argv_lines(value):
                    commands.append(line)
                    yield key, line, False
        if not seen:  # a shell tool whose command argument has a name of its own
            found = next(
                ((k, v) for k, v in tool.call.arguments.items() if isinstance(v, str)), None
            )
            if found is not None and found[1].strip():
                seen.add(found[0])
                commands.append(found[1])
                yield found[0], found[1], False
        yield from _with_environment(tool, commands)
    else:
        yield from _program_argv(tool, seen)
    for path, text in tool.strings():
        top = path.split(".", 1)[0].split("[", 1)[0]
        leaf = re.split(r"[.\[]", path)[-1].rstrip("]")
        if top in seen or path in seen:
            continue
        if leaf.lower() in _NAMED or top.lower() in _NAMED:
            seen.add(top if "[" in path else path)
            whole = tool.get(top)
            if "[" in path and not _is_argv(whole):  # a list of objects: ``tasks[0].command``
                seen.discard(top)
                seen.add(path)
                yield path, text, False
            elif whole is not None and isinstance(whole[1], list) and top.lower() != "commands":
                yield from ((top, line, False) for line in argv_lines(whole[1]))
            else:
                yield path, text, False
        elif (leaf.lower() not in CONTENT or tool.kind in _UNKNOWN) and _looks_like_command(text):
            yield path, text, True


def _is_argv(found: tuple[str, Any] | None) -> bool:
    """An argument whose value is a list of words (an argv), not a list of objects."""
    return (
        found is not None
        and isinstance(found[1], list)
        and all(isinstance(v, (str, int, float)) for v in found[1][:256])
    )


_PROGRAM_WORD = re.compile(r"^[\w./~+-]{1,256}$")


def _program_argv(tool: ToolView, seen: set[str]) -> Iterator[tuple[str, str, bool]]:
    """A program and its argv given apart by a tool whatever its kind (``{"executable": "rm",
    "arguments": ["-rf", "/"]}``): read as the command they make (its critical findings)."""
    program = tool.text(*_PROGRAM_NAMES)
    args = tool.get("args", "arguments", "argv")
    if program is None or args is None or not _is_argv(args) or not args[1]:
        return
    if not _PROGRAM_WORD.match(program[1].strip()):
        return
    seen.update({program[0], args[0]})
    for line in argv_lines([program[1].strip(), *args[1]]):
        yield args[0], line, True


_UNKNOWN = frozenset({ToolKind.OTHER, ToolKind.MCP})
"""Kinds that say nothing of what a tool does with its text."""


def leaf(path: str) -> str:
    """The last name of an argument's path (``tasks[0].command`` → ``command``), lower-cased."""
    return re.split(r"[.\[]", path)[-1].rstrip("]").lower()


_ENV_NAMES = ("env", "environment", "env_vars", "envs", "environ")
_VARIABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")


def _with_environment(tool: ToolView, commands: list[str]) -> Iterator[tuple[str, str, bool]]:
    """A shell tool's environment argument (``{"env": {"LD_PRELOAD": …}}``) read as what it
    is: assignments before each of its commands (``LD_PRELOAD=… make``), bound to that
    argument. A name that is no variable name is left out: no shell sets it."""
    found = tool.get(*_ENV_NAMES)
    if found is None or not isinstance(found[1], dict) or not found[1]:
        return
    key, env = found
    assigns = " ".join(
        f"{name}={shlex.quote(str(value))}"
        for name, value in list(env.items())[:64]
        if isinstance(name, str) and _VARIABLE.match(name) and isinstance(value, (str, int, float))
    )
    if not assigns:
        return
    for command in commands[:16] or ["true"]:
        yield key, f"{assigns} {command}", False


_IPYTHON_LINE = re.compile(r"^[ \t]*(?:!!?|%(?:system|sx)\b)[ \t]*(.+)$", re.MULTILINE)
_IPYTHON_CELL = re.compile(
    r"\A[ \t]*%%(?:bash|sh|script[ \t]+(?:ba|z)?sh)\b[^\n]*\n(.*)\Z", re.DOTALL
)


_NOTEBOOK_PATHS = ("notebook_path", "file_path", "path", "filename", "file")
_NOTEBOOK_TEXTS = ("content", "contents", "file_text", "text", "data", "new_content", "body")


def _notebook_shell(tool: ToolView) -> Iterator[tuple[str, str, bool]]:
    """The shell of a notebook's IPython lines: a cell edited (``NotebookEdit``) or every code
    cell of a notebook written whole (at most 64 lines)."""
    path = tool.text(*_NOTEBOOK_PATHS)
    if path is None or not is_notebook(path[1]):
        return
    cell = tool.text("new_source", "source", "cell_source")
    if cell is not None:
        for line in ipython_shell(cell[1]):
            yield cell[0], line, False
        return
    content = tool.text(*_NOTEBOOK_TEXTS) if tool.kind is ToolKind.FILE_WRITE else None
    cells = code_cells(content[1]) if content is not None else None
    if content is None or not cells:
        return
    lines = [line for source in cells for line in ipython_shell(source)]
    for line in lines[:64]:
        yield content[0], line, False


def ipython_shell(code: str) -> list[str]:
    """The shell a notebook cell runs besides its Python: ``!cmd`` and ``%system cmd``
    lines, and the body of a ``%%bash`` / ``%%sh`` / ``%%script bash`` cell."""
    cell = _IPYTHON_CELL.match(code)
    if cell is not None:
        return [cell.group(1)]
    return [m.group(1) for m in _IPYTHON_LINE.finditer(code[: _MAX_EMBEDDED * 16])][:64]


_COMPUTER = re.compile(r"^(?:computer(?:_use)?(?:_\d+)?|xdotool|keyboard(?:_type)?)$", re.I)


def typed(tool: ToolView) -> tuple[str, str] | None:
    """Text a computer-use tool types (``{"action": "type", "text": …}``): in a terminal it is
    a command line, so it is read as one (its critical findings only: it may be prose)."""
    if not _COMPUTER.match(tool.call.name):
        return None
    action = tool.text("action")
    text = tool.text("text")
    if action is None or text is None or action[1].strip().lower() not in ("type", "key"):
        return None
    return text


_BARE_PATH = re.compile(r"[\w.~+-]*/[\w./~+-]*")
"""One word of path characters with a slash: a file named, not a command line."""


def _looks_like_command(text: str) -> bool:
    """A string that is itself a dangerous-looking command line, not prose or a document."""
    s = text.strip()
    if not s or len(s) > _MAX_EMBEDDED or s.count("\n") > 8:
        return False
    if not re.match(r"^(?:sudo\s+)?[\w./~$-]+(?:\s|$)", s) or s.endswith((".", "?", "!")):
        return False
    if _BARE_PATH.fullmatch(s):  # a file's path (``deploy/crontab``) runs nothing by itself
        return False
    return bool(_EMBEDDED.search(s))
