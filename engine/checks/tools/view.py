"""A tool call as the local checks read it: its kind (given or inferred), the arguments that
kind reads, and every string anywhere in its arguments with the path that names it.

Pure: no I/O. ``tool_view`` never raises on any ``ToolCall`` the contract accepts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from humangr.contracts import ToolCall, ToolKind

__all__ = ["KIND_ARGUMENTS", "ToolView", "infer_kind", "tool_view"]

KIND_ARGUMENTS: Mapping[ToolKind, tuple[str, ...]] = {
    ToolKind.SHELL: (
        "command",
        "cmd",
        "argv",
        "args",
        "script",
        "commands",
        "shell_command",
        "cli_command",
        "command_line",
        "commandline",
    ),
    ToolKind.FILE_WRITE: (
        "file_path",
        "path",
        "filename",
        "file",
        "filepath",
        "target_file",
        "depot_path",
        "target",
        "content",
        "contents",
        "file_text",
    ),
    ToolKind.FILE_EDIT: (
        "file_path",
        "path",
        "filename",
        "file",
        "filepath",
        "target_file",
        "depot_path",
        "code_edit",
        "old_string",
        "new_string",
        "old_str",
        "new_str",
        "old_text",
        "new_text",
        "find",
        "replace",
        "edits",
        "patch",
        "diff",
    ),
    ToolKind.FILE_READ: (
        "file_path",
        "path",
        "filename",
        "file",
        "pattern",
        "glob",
        "filepath",
        "target_file",
    ),
    ToolKind.FILE_DELETE: (
        "file_path",
        "path",
        "filename",
        "file",
        "paths",
        "target",
        "filepath",
        "target_file",
    ),
    ToolKind.HTTP: ("url", "uri", "endpoint", "method", "headers", "body", "data", "json"),
    ToolKind.SQL: ("query", "sql", "statement", "statements"),
    ToolKind.EMAIL: ("to", "cc", "bcc", "recipients", "recipient", "subject", "body", "text"),
    ToolKind.CODE: ("code", "source", "python", "script", "program", "cell"),
    ToolKind.MCP: (),
    ToolKind.OTHER: (),
}
"""The argument names each kind reads, in the order it prefers them (case-insensitive)."""

_MCP = re.compile(r"^mcp__(.+?)__(.+)$")
_NAME_HINTS: tuple[tuple[ToolKind, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.IGNORECASE))
    for kind, pattern in (
        (
            ToolKind.SHELL,
            r"^(?:bash|sh|zsh|shell|terminal|powershell|pwsh|cmd)$|run_?(?:shell|command|cmd|bash)"
            r"|(?:shell|bash|terminal)_?(?:exec|run|command|tool)|execute_?(?:command|shell)"
            r"|^(?:exec|run|local_shell|computer_terminal)$",
        ),
        (
            ToolKind.FILE_EDIT,
            r"^(?:edit|multiedit|multi_edit|str_replace\w*|apply_?patch|patch)$|edit_?file"
            r"|replace_?in_?file|(?:search_?)?replace_?(?:text|string)",
        ),
        (ToolKind.FILE_WRITE, r"^(?:write|create)$|(?:write|create|save|put)_?file|file_?write"),
        (ToolKind.FILE_DELETE, r"(?:delete|remove|unlink|rm)_?(?:file|path|dir)|^(?:rm|delete)$"),
        (
            ToolKind.FILE_READ,
            r"^(?:read|grep|glob|ls|cat|view|notebookread)$|(?:read|open|view|list)_?(?:file|dir)",
        ),
        (
            ToolKind.HTTP,
            r"^(?:webfetch|websearch|fetch|curl|http|request|browse)$|http_?\w*|(?:web|url)_?fetch"
            r"|web_?search|search_?(?:the_?)?web|browse_?(?:url|page|web)"
            r"|fetch_?(?:url|page)|(?:get|post|put|patch|delete)_?(?:url|request)|api_?call",
        ),
        (ToolKind.SQL, r"sql|(?:run|execute|db)_?query|^query$|database|(?:^|_)d[dm]l(?:$|_)"),
        (ToolKind.EMAIL, r"e?mail|send_?message|smtp"),
        (
            ToolKind.CODE,
            r"^(?:python|eval|exec_?code|run_?code|execute_?code|code_?interpreter)$"
            r"|run_?python|execute_?python|python_?(?:repl|exec|run)|ipython|jupyter",
        ),
    )
)


_OWN_KINDS = frozenset(
    {
        ToolKind.SHELL,
        ToolKind.FILE_WRITE,
        ToolKind.FILE_EDIT,
        ToolKind.FILE_READ,
        ToolKind.FILE_DELETE,
        ToolKind.CODE,
        ToolKind.SQL,
    }
)
"""Kinds with checks of their own, which read what such a tool does."""


def _walk(arguments: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """Every string in ``arguments`` (long keys too, which may carry text of their own) with
    its path: ``command``, ``headers.Authorization``, ``argv[2]``, ``edits[0].new_string``."""
    out: list[tuple[str, str]] = []
    todo: list[tuple[str, Any]] = []
    for key, value in arguments.items():
        todo.append((key, value))
        if len(key) > 32:
            todo.append((f"{key}.<key>", key))
    todo.reverse()
    while todo:
        path, value = todo.pop()
        if isinstance(value, str):
            out.append((path, value))
        elif isinstance(value, dict):
            children = []
            for key, child in value.items():
                if isinstance(key, str) and len(key) > 32:
                    children.append((f"{path}.<key>", key))
                children.append((f"{path}.{key}", child))
            todo.extend(reversed(children))
        elif isinstance(value, list):
            todo.extend(reversed([(f"{path}[{i}]", child) for i, child in enumerate(value)]))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class ToolView:
    """The tool call, its kind, how the kind was found and the arguments that kind reads.
    Made by ``tool_view``, which reads the arguments once for every check."""

    call: ToolCall
    kind: ToolKind
    notes: tuple[str, ...]
    """What was read from which argument, for the report ("kind shell, from the tool's name")."""
    names: Mapping[str, str] = field(default_factory=dict)
    """Lower-cased top-level argument name → the name as the call spells it."""
    texts: tuple[tuple[str, str], ...] = ()
    """Every string in the arguments with its path (see ``strings``)."""
    kind_from_arguments: bool = False
    """The kind was guessed from the arguments' names, not given nor read from the name."""

    @property
    def name(self) -> str:
        return self.call.name

    @property
    def read_by_own_checks(self) -> bool:
        """A tool named for a shell, files, code or SQL (or given that kind), whose own checks
        read what it does; a kind guessed from an argument's name alone (a coupon tool's
        ``code``) makes no such tool."""
        return self.kind in _OWN_KINDS and not self.kind_from_arguments

    def get(self, *names: str) -> tuple[str, Any] | None:
        """The first top-level argument among ``names`` (case-insensitive): ``(name, value)``."""
        for wanted in names:
            key = self.names.get(wanted.lower())
            if key is not None:
                return key, self.call.arguments[key]
        return None

    def text(self, *names: str) -> tuple[str, str] | None:
        """The first argument among ``names`` whose value is a non-empty string."""
        for wanted in names:
            key = self.names.get(wanted.lower())
            if key is not None and isinstance(self.call.arguments[key], str):
                value: str = self.call.arguments[key]
                if value:
                    return key, value
        return None

    def primary(self) -> tuple[str, ...]:
        """The top-level arguments this kind reads, as the call spells them."""
        wanted = {name.lower() for name in KIND_ARGUMENTS[self.kind]}
        return tuple(key for key in self.call.arguments if key.lower() in wanted)

    def strings(self) -> Iterator[tuple[str, str]]:
        """Every string in the arguments (keys of nested objects too) with its path:
        ``command``, ``headers.Authorization``, ``argv[2]``, ``edits[0].new_string``."""
        return iter(self.texts)


_PATHS = ("file_path", "path", "filename", "file", "filepath", "target_file", "depot_path")
"""Arguments that name the file a tool works on."""


_HTTP_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def _http_method(arguments: Mapping[str, Any]) -> bool:
    """An argument that names an HTTP method (``method="PATCH"``, ``verb="GET"``)."""
    return any(
        key.lower() in ("method", "verb", "http_method", "httpmethod")
        and isinstance(value, str)
        and value.strip().upper() in _HTTP_METHODS
        for key, value in list(arguments.items())[:64]
    )


_OUTPUTS = ("output_path", "output_file", "save_path", "dest_path", "destination_path")
_DESTINATIONS = ("destination", "dest", "dst")


def _written_to(arguments: Mapping[str, Any]) -> str | None:
    """The argument that names where content goes, when it is not one of ``_PATHS``: an output
    path, or a destination whose value is a path (a slash in it; not a city)."""
    for key, value in list(arguments.items())[:64]:
        low = key.lower()
        if low in _OUTPUTS or (
            low in _DESTINATIONS
            and isinstance(value, str)
            and ("/" in value or "\\" in value or value.startswith("~"))
        ):
            return low
    return None


def _by_arguments(arguments: Mapping[str, Any]) -> tuple[ToolKind, str] | None:
    names = {key.lower() for key in arguments}

    def has(*wanted: str) -> str | None:
        return next((w for w in wanted if w in names), None)

    if (
        arg := has("old_string", "old_str", "old_text", "oldtext", "edits", "patch", "code_edit")
    ) is not None:
        return ToolKind.FILE_EDIT, arg
    where = has(*_PATHS)
    if where and has("find", "search") and (arg := has("replace", "replacement")) is not None:
        return ToolKind.FILE_EDIT, arg
    if has(*_PATHS) and (arg := has("diff")) is not None:
        return ToolKind.FILE_EDIT, arg
    shell = ("command", "cmd", "argv", "shell_command", "commands", "cli_command", "command_line")
    if (arg := has(*shell, "commandline")) is not None:
        return ToolKind.SHELL, arg
    path = has(*_PATHS)
    if path and (has("base_url", "baseurl") or _http_method(arguments)):
        return ToolKind.HTTP, path  # ``rest_call(verb="GET", path="/api/v2/…")``: a request
    content = has("content", "contents", "file_text", "text", "data", "new_content")
    if path is None and content is not None:
        path = _written_to(arguments)  # ``{"output_path": "/etc/…", "content": …}``
    if path and (arg := content) is not None:
        return ToolKind.FILE_WRITE, f"{path}` and `{arg}"
    if (arg := has("url", "uri", "endpoint")) is not None:
        return ToolKind.HTTP, arg
    if (arg := has("sql", "query", "statement", "statements")) is not None:
        return ToolKind.SQL, arg
    if has("to", "recipients", "recipient") and (arg := has("body", "subject", "text", "html")):
        return ToolKind.EMAIL, f"to` and `{arg}"
    if (arg := has("code", "source", "python", "program")) is not None:
        return ToolKind.CODE, arg
    if (arg := has("args", "script")) is not None:
        return ToolKind.SHELL, arg
    if path:
        return ToolKind.FILE_READ, path
    return None


_SPACES: dict[str, ToolKind | None] = {
    "fs": None, "file": None, "files": None, "filesystem": None, "db": ToolKind.SQL,
    "sql": ToolKind.SQL, "database": ToolKind.SQL, "postgres": ToolKind.SQL,
    "mysql": ToolKind.SQL, "shell": ToolKind.SHELL, "terminal": ToolKind.SHELL,
    "bash": ToolKind.SHELL, "http": ToolKind.HTTP, "requests": ToolKind.HTTP,
    "httpx": ToolKind.HTTP, "fetch": ToolKind.HTTP, "web": ToolKind.HTTP,
}  # fmt: skip
"""Namespaces of dotted tool names (``fs.edit``, ``db.run``, ``requests.post``) and the kind
they say (``None``: a file tool, whose verb says which)."""
_FILE_VERBS: tuple[tuple[ToolKind, frozenset[str]], ...] = (
    (ToolKind.FILE_EDIT, frozenset({"edit", "replace", "patch", "str_replace", "update"})),
    (ToolKind.FILE_WRITE, frozenset({"write", "create", "save", "put", "append", "write_file"})),
    (ToolKind.FILE_DELETE, frozenset({"delete", "rm", "remove", "unlink", "rmdir"})),
    (ToolKind.FILE_READ, frozenset({"read", "cat", "ls", "list", "glob", "grep", "view", "stat"})),
)


def _namespaced(name: str) -> ToolKind | None:
    """The kind a dotted name says by its namespace (and, for files, its verb)."""
    space, dot, verb = name.lower().rpartition(".")
    if not dot:
        return None
    head = space.rsplit(".", 1)[-1]
    if head not in _SPACES:
        return None
    kind = _SPACES[head]
    if kind is not None:
        return kind
    return next((k for k, verbs in _FILE_VERBS if verb in verbs), None)


def infer_kind(call: ToolCall) -> tuple[ToolKind, tuple[str, ...]]:
    """The kind of ``call`` and the notes saying where it came from: the call's own ``kind``,
    else its name, else its argument names, else ``other``."""
    kind, notes, _ = _inferred(call)
    return kind, notes


def _inferred(call: ToolCall) -> tuple[ToolKind, tuple[str, ...], bool]:
    """``infer_kind``, and whether the kind was guessed from the arguments' names."""
    if call.kind is not None:
        kind = ToolKind(call.kind)  # a Struct built in code is not converted by msgspec
        return kind, (f"kind {kind.value}, as the call gives it",), False
    mcp = _MCP.match(call.name)
    name = mcp.group(2) if mcp else call.name
    whose = f"the MCP tool's name {name}" if mcp else f"the tool's name {name}"
    for kind, pattern in _NAME_HINTS:
        if kind is not ToolKind.MCP and pattern.search(name):
            return kind, (f"kind {kind.value}, from {whose}",), False
    spaced = _namespaced(name)
    if spaced is not None:
        return spaced, (f"kind {spaced.value}, from {whose}'s namespace and verb",), False
    found = _by_arguments(call.arguments)
    if found is not None:
        kind, arg = found
        return kind, (f"kind {kind.value}, from the argument `{arg}`",), True
    if mcp:
        return ToolKind.MCP, (f"kind mcp, from the tool's name {call.name}",), False
    return (
        ToolKind.OTHER,
        ("kind other: neither the name nor the arguments say what it does",),
        False,
    )


def tool_view(call: ToolCall) -> ToolView:
    """The checks' view of ``call``."""
    kind, notes, guessed = _inferred(call)
    names = {key.lower(): key for key in call.arguments}
    return ToolView(
        call=call,
        kind=kind,
        notes=notes,
        names=names,
        texts=_walk(call.arguments),
        kind_from_arguments=guessed,
    )
