"""The files a tool call creates or changes, as the code checks read files.

A file write becomes the new file it creates (so every code check, the taint engine included,
reads it as it reads the same file in a diff); an edit becomes the diff of its old and new
strings (see ``edit_formats``); code to run becomes a Python (or shell…) file; the strings of
every other argument become a text "file" of their own, one per top-level argument, so the
text checks (secrets, personal data, injection text) read them too. ``ToolFiles`` maps each
path — and each line of a text file — back to the argument it came from.
"""

from __future__ import annotations

import bisect
import posixpath
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from humangr.contracts import ToolKind

from ..diff import FileDiff, contains_diff, parse_content, parse_diff
from ..remember import remembered
from .edit_formats import NEW_KEYS, OLD_KEYS, edit_pairs, patch_envelope_diff
from .http_call import AUTH_HEADER, INIT_ARGS
from .http_sites import SECRET_HOMES, host_in
from .notebook import code_cells, is_notebook, python_of
from .view import ToolView

__all__ = ["PATH_ARGUMENTS", "ToolFiles", "argument_path", "tool_files", "workspace_path"]

PATH_ARGUMENTS = (
    "file_path", "path", "filename", "file", "target", "notebook_path", "filepath", "target_file",
    "depot_path",
)  # fmt: skip
_CONTENT = ("content", "contents", "file_text", "text", "data", "new_content", "body")
_CODE = ("code", "source", "python", "program", "script")
_CODE_TOO = ("query", "input", "snippet", "cell")
"""What a tool named for running code (``python_repl``) calls its code, when none of ``_CODE``."""
_LANGUAGES = {
    "python": ".py",
    "python3": ".py",
    "py": ".py",
    "bash": ".sh",
    "sh": ".sh",
    "shell": ".sh",
    "zsh": ".sh",
    "javascript": ".js",
    "js": ".js",
    "node": ".js",
    "typescript": ".ts",
    "ts": ".ts",
}
_MAX_PATH = 512


def _credential_header(argument: str) -> bool:
    """``headers.<name>`` where the name is one a request carries its own credential in
    (``Authorization``, ``X-Api-Key``, any ``X-…-Token``: ``http_call.AUTH_HEADER``)."""
    parts = argument.split(".")
    if len(parts) == 3 and parts[0].lower() in INIT_ARGS:
        parts = parts[1:]  # a Fetch-style call's ``options.headers.Authorization``
    if len(parts) == 1:  # a requests-style ``auth`` pair: ``auth[0]``, ``auth[1]``
        return parts[0].lower().split("[", 1)[0] in ("auth", "basic_auth")
    return (
        len(parts) == 2
        and parts[0].lower() == "headers"
        and AUTH_HEADER.match(parts[1]) is not None
    )


@dataclass(slots=True)
class ToolFiles:
    """The files of a tool call and, for each path, the argument it came from."""

    files: list[FileDiff] = field(default_factory=list)
    arguments: dict[str, str] = field(default_factory=dict)
    """path → argument name; a path in ``pseudo`` is no real file."""
    pseudo: set[str] = field(default_factory=set)
    lines: dict[str, tuple[list[int], list[str]]] = field(default_factory=dict)
    """For a text file holding several strings: the first line of each, and its argument."""

    def argument_at(self, path: str, line: int | None) -> tuple[str, int | None] | None:
        """The argument a finding at ``path``:``line`` concerns, and its line in that string."""
        argument = self.arguments.get(path)
        if argument is None:
            return None
        starts = self.lines.get(path)
        if starts is None or line is None:
            return argument, line
        index = max(0, bisect.bisect_right(starts[0], line) - 1)
        return starts[1][index], line - starts[0][index] + 1


def argument_path(tool: str, argument: str) -> str:
    """The made-up path under which an argument's text is read: ``<bash command>``."""
    return f"<{tool} {argument}>"[:_MAX_PATH]


def workspace_path(path: str, workspace: str | None) -> str:
    """``path`` as a review names it: relative to the workspace when it lies inside it."""
    clean = path.replace("\\", "/")
    if workspace and clean.startswith("/"):
        root = posixpath.normpath(workspace.replace("\\", "/"))
        full = posixpath.normpath(clean)
        if full == root or full.startswith(root.rstrip("/") + "/"):
            clean = posixpath.relpath(full, root)
    while clean.startswith("./"):
        clean = clean[2:]
    return (clean or path)[:_MAX_PATH]


def _edit_diff(path: str, edits: list[tuple[str, str]]) -> str:
    """A unified diff of string replacements whose place in the file is not known: each edit is
    a hunk of its old lines removed and its new lines added."""
    out = [f"--- a/{path}\n", f"+++ b/{path}\n"]
    line = 1
    for old, new in edits:
        old_lines = old.split("\n") if old else []
        new_lines = new.split("\n") if new else []
        out.append(f"@@ -{line},{len(old_lines)} +{line},{len(new_lines)} @@\n")
        out.extend(f"-{text}\n" for text in old_lines)
        out.extend(f"+{text}\n" for text in new_lines)
        line += max(len(old_lines), len(new_lines)) + 1
    return "".join(out)


def _add(out: ToolFiles, files: tuple[FileDiff, ...], argument: str, pseudo: bool) -> None:
    for f in files:
        out.files.append(f)
        if f.path:
            out.arguments[f.path] = argument
            if pseudo:
                out.pseudo.add(f.path)


def _path_of(view: ToolView) -> str | None:
    found = view.text(*PATH_ARGUMENTS)
    return workspace_path(found[1], view.call.workspace) if found else None


def _write(view: ToolView, out: ToolFiles, used: set[str], path: str | None) -> None:
    content = view.text(*_CONTENT)
    if content is not None:
        used.add(content[0].lower())
        name = path or argument_path(view.name, content[0])
        _add(out, parse_content(content[1], path=name).files, content[0], path is None)


def _edit(view: ToolView, out: ToolFiles, used: set[str], path: str | None) -> None:
    for argument, text in ((a, t) for a, t in view.strings() if "." not in a and "[" not in a):
        envelope = patch_envelope_diff(text)
        if envelope is not None:
            used.add(argument.lower())
            _add(out, parse_diff(envelope).files, argument, False)
            return
    patch = view.text("patch", "diff", "input")
    if patch is not None and contains_diff(patch[1]):  # a patch tool skips leading text
        used.add(patch[0].lower())
        _add(out, parse_diff(patch[1], default_path=path).files, patch[0], False)
        return
    edits = edit_pairs(view)
    if edits is not None:
        argument, pairs = edits
        used.update(k.lower() for k in (argument, *OLD_KEYS, *NEW_KEYS))
        name = path or argument_path(view.name, argument)
        _add(out, parse_diff(_edit_diff(name, pairs)).files, argument, path is None)
    elif view.text(*_CONTENT):
        _write(view, out, used, path)  # an editor's "create" command: a whole new file


def _code_files(view: ToolView, out: ToolFiles, used: set[str]) -> None:
    kind = view.kind
    path = _path_of(view)
    cell = view.text("new_source", "source", "cell_source") if path else None
    notebook = view.text(*_CONTENT) if is_notebook(path) and kind is ToolKind.FILE_WRITE else None
    cells = code_cells(notebook[1]) if notebook is not None else None
    if is_notebook(path) and cell is not None:
        used.add(cell[0].lower())  # a notebook cell's code, read as the Python it is
        python = python_of([cell[1]])
        _add(out, parse_content(python, path=f"{path}.cell.py").files, cell[0], True)
    elif notebook is not None and cells is not None:
        used.add(notebook[0].lower())  # a notebook written whole: its code cells' Python
        _add(out, parse_content(python_of(cells), path=f"{path}.cells.py").files, notebook[0], True)
    elif kind is ToolKind.FILE_WRITE:
        _write(view, out, used, path)
    elif kind is ToolKind.FILE_EDIT:
        _edit(view, out, used, path)
    elif kind is ToolKind.CODE or (kind is not ToolKind.SHELL and view.text(*_CODE)):
        code = view.text(*_CODE)
        if code is None and kind is ToolKind.CODE and not view.kind_from_arguments:
            code = view.text(*_CODE_TOO)  # a REPL tool's ``query`` or ``input``
        if code is not None:
            used.add(code[0].lower())
            language = view.text("language", "lang", "runtime")
            ext = _LANGUAGES.get(language[1].strip().lower(), ".txt") if language else ".py"
            name = argument_path(view.name, code[0]) + ext
            _add(out, parse_content(code[1], path=name).files, code[0], True)


def _shown_in(view: ToolView, diff_files: tuple[FileDiff, ...]) -> bool:
    """Whether the action's own diff holds every line an edit call adds (the edit applied to
    the file on disk): then its strings need not be read again. A diff that does not hold
    them — a hostile submitter's decoy — never hides them."""
    path = _path_of(view)
    edits = edit_pairs(view)
    if path is None or edits is None:
        return False
    added = {ln.text for f in diff_files if f.path == path for ln in f.added}
    wanted = {line for _old, new in edits[1] for line in new.split("\n") if line.strip()}
    return bool(added) and wanted <= added


def _own_secret_url(argument: str, text: str) -> bool:
    """The request's own URL carrying a secret of the service it calls (a Slack webhook's
    URL is the webhook's credential): sending it there is its use, judged by the egress
    check like an ``Authorization`` header, not a secret written into the call."""
    if argument.lower() not in ("url", "uri", "endpoint") or len(text) > 4_000:
        return False
    from ..secrets import scan_secrets  # detect-secrets: only for a request's own URL

    hit = scan_secrets(None, text, test_file=False)
    if hit is None:
        return False
    try:
        host = urlsplit(text.strip()).hostname or ""
    except ValueError:
        return False
    return bool(host) and host_in(host, SECRET_HOMES.get(hit.kind, ()))


def _top(argument: str) -> str:
    cut = min((i for i in (argument.find("."), argument.find("[")) if i > 0), default=-1)
    return argument if cut < 0 else argument[:cut]


def _texts(view: ToolView, out: ToolFiles, used: set[str]) -> None:
    """One text file per top-level argument not read as code (``used``: lower-cased names),
    holding each of its strings."""
    grouped: dict[str, list[tuple[str, str]]] = {}
    for argument, text in view.strings():
        top = _top(argument)
        if view.kind is ToolKind.HTTP and (
            _credential_header(argument) or _own_secret_url(argument, text)
        ):
            continue  # credentials for the request's own host: the egress check judges them
        if top.lower() not in used and argument.lower() not in used and text.strip():
            grouped.setdefault(top, []).append((argument, text))
    for top, strings in grouped.items():
        path = argument_path(view.name, top)
        starts: list[int] = []
        names: list[str] = []
        lines: list[str] = []
        for argument, text in strings:
            starts.append(len(lines) + 1)
            names.append(argument)
            lines.extend(text.split("\n"))
        _add(out, _content_files("\n".join(lines), path), top, True)
        if len(strings) > 1 or strings[0][0] != top:
            out.lines[path] = (starts, names)


@remembered(max_chars=4_000, maxsize=1_024)
def _content_files(text: str, path: str) -> tuple[FileDiff, ...]:
    """An argument's text as its (frozen) file, read once for the calls that send it again."""
    return parse_content(text, path=path).files


def tool_files(view: ToolView, diff_files: tuple[FileDiff, ...] = ()) -> ToolFiles:
    """The files of ``view``'s call: the code it writes or runs, and the strings of each other
    argument as text. An edit whose every added line the action's diff already shows (the
    edit applied to the file on disk, with its context) is read from that diff alone."""
    out = ToolFiles()
    used: set[str] = set()
    if view.kind is ToolKind.FILE_EDIT and _shown_in(view, diff_files):
        used.update(k.lower() for k in view.primary())
    else:
        _code_files(view, out, used)
    _texts(view, out, used)
    return out
