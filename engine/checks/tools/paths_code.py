"""The files Python code to run (``run_python(code=…)``) opens, writes, deletes, copies or
moves, when their paths are constants: ``open(os.path.expanduser("~/.ssh/authorized_keys"),
"a")``, ``shutil.rmtree(Path.home())``, ``os.remove("/etc/hosts")``.

Paths are folded from string constants, f-strings and ``+`` of constants, names assigned a
constant, ``os.path.join``/``expanduser``/``expandvars``, ``Path(…)``, ``/`` on paths,
``Path.home()``, and ``os.environ["HOME"]``/``os.getenv("HOME")``. A path built from anything
else is not known and not reported. Pure: the code is parsed, never run; bounded in size and
nodes; never raises.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .paths_args import Op, Target
from .paths_rule import word_set

__all__ = ["code_targets"]

_MAX_CODE = 200_000
_MAX_NODES = 50_000
_MAX_TARGETS = 64
_HOME_VARS = frozenset({"HOME", "USERPROFILE"})
_DELETE = word_set("remove unlink rmdir removedirs rmtree truncate")
_MOVE = word_set("rename replace move renames")
_COPY = word_set("copy copy2 copyfile copytree copymode copystat")
_WRITE = word_set("write_text write_bytes touch mkdir makedirs chmod chown lchown symlink_to")
_READ = word_set("read_text read_bytes")
_LIST = word_set("listdir scandir walk glob iglob rglob iterdir")
_LINKS = word_set("symlink link")


def _name(node: ast.expr) -> str:
    """The dotted name of a call's function: ``os.path.join``, ``Path``, ``p.write_text``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _name(node.value)
        return f"{inner}.{node.attr}" if inner else f"?.{node.attr}"
    return ""


class _Folder:
    """Folds expressions to constant path strings, following simple assignments."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def fold(self, node: ast.expr | None, depth: int = 0) -> str | None:
        if node is None or depth > 24:
            return None
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, str) else None
        if isinstance(node, ast.Name):
            return self.names.get(node.id)
        if isinstance(node, ast.JoinedStr):
            parts = []
            for value in node.values:
                inner = value.value if isinstance(value, ast.FormattedValue) else value
                text = self.fold(inner, depth + 1)
                if text is None:
                    return None
                parts.append(text)
            return "".join(parts)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Div):
            left, right = self.fold(node.left, depth + 1), self.fold(node.right, depth + 1)
            if left is None or right is None:
                return None
            return _join(left, right) if isinstance(node.op, ast.Div) else left + right
        if isinstance(node, ast.Subscript) and _name(node.value).endswith("environ"):
            key = self.fold(node.slice, depth + 1)
            return "~" if key in _HOME_VARS else None
        if isinstance(node, ast.Call):
            return self._call(node, depth)
        return None

    def _call(self, node: ast.Call, depth: int) -> str | None:
        name = _name(node.func)
        last = name.rsplit(".", 1)[-1]
        args = [self.fold(a, depth + 1) for a in node.args]
        if last == "home" and not node.args:
            return "~"
        if last in ("getenv", "get") and args and args[0] in _HOME_VARS:
            return "~" if last == "getenv" or "environ" in name else None
        if last == "join" and "path" in name and args and None not in args:
            out = ""
            for part in args:
                out = _join(out, part or "") if out else part or ""
            return out
        if last in ("Path", "PurePath", "PosixPath", "WindowsPath", "str", "fspath") and args:
            if None in args:
                return None
            out = ""
            for part in args:
                out = _join(out, part or "") if out else part or ""
            return out
        if last in ("expanduser", "expandvars", "abspath", "realpath", "normpath", "resolve"):
            if args:
                return args[0]
            if isinstance(node.func, ast.Attribute):
                return self.fold(node.func.value, depth + 1)
        return None


def _join(left: str, right: str) -> str:
    if right.startswith(("/", "~")) or right[1:2] == ":":
        return right
    return f"{left.rstrip('/')}/{right}"


def _mode(node: ast.Call, position: int) -> str | None:
    found: ast.expr | None = node.args[position] if len(node.args) > position else None
    for kw in node.keywords:
        if kw.arg in ("mode", "flags"):
            found = kw.value
    if found is None:
        return "r"
    if isinstance(found, ast.Constant) and isinstance(found.value, str):
        return found.value
    if isinstance(found, ast.BinOp | ast.Attribute | ast.Name):
        text = ast.unparse(found)
        return (
            "w" if any(f in text for f in ("WRONLY", "RDWR", "CREAT", "APPEND", "TRUNC")) else "r"
        )
    return None


def _ops(node: ast.Call, folder: _Folder) -> Iterator[tuple[Op, str | None]]:
    """(operation, path) pairs of one call."""
    name = _name(node.func)
    last = name.rsplit(".", 1)[-1]
    owner = node.func.value if isinstance(node.func, ast.Attribute) else None
    first = folder.fold(node.args[0]) if node.args else None
    second = folder.fold(node.args[1]) if len(node.args) > 1 else None
    this = (
        folder.fold(owner)
        if owner is not None and not name.startswith(("os.", "shutil."))
        else None
    )
    if last == "open":
        path, position = (first, 1) if this is None else (this, 0)
        mode = _mode(node, position)
        if mode is not None:
            yield ("write" if any(c in mode for c in "wax+") or mode == "w" else "read"), path
    elif last in _DELETE:
        yield "delete", this if this is not None else first
    elif last in _MOVE:
        if this is not None:
            yield "move", this
            yield "write", first
        else:
            yield "move", first
            yield "write", second
    elif last in _COPY:
        yield "copy", first
        yield "write", second
    elif last in _LINKS and name.startswith("os."):
        yield "read", first
        yield "write", second
    elif last in _WRITE:
        yield "write", this if this is not None else first
    elif last in _READ:
        yield "read", this
    elif last in _LIST:
        yield "list", this if this is not None else first or "."


def code_targets(code: str, argument: str) -> list[Target]:
    """The constant paths the Python ``code`` touches, as targets of ``argument``."""
    try:
        tree = ast.parse(code[:_MAX_CODE])
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    nodes = []
    for n, node in enumerate(ast.walk(tree)):
        if n >= _MAX_NODES:
            break
        nodes.append(node)
    folder = _Folder()
    for node in nodes:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and (value := folder.fold(node.value)) is not None:
                folder.names[target.id] = value
    out: list[Target] = []
    for node in nodes:
        if isinstance(node, ast.Call):
            for op, path in _ops(node, folder):
                if path and len(out) < _MAX_TARGETS:
                    out.append(Target(op, argument, path, pattern=op == "list"))
        elif isinstance(node, ast.For | ast.AsyncFor) and len(out) < _MAX_TARGETS:
            root = _walked(node.iter, folder)
            if root is not None and _deletes_unknown(node, folder):
                out.append(Target("delete", argument, f"{root.rstrip('/')}/*"))
    return out


def _walked(node: ast.expr, folder: _Folder) -> str | None:
    """The constant folder a loop walks (``os.walk(x)``, ``Path(x).rglob("*")``), if any."""
    if not isinstance(node, ast.Call):
        return None
    last = _name(node.func).rsplit(".", 1)[-1]
    if last not in _LIST:
        return None
    if isinstance(node.func, ast.Attribute) and not _name(node.func).startswith(("os.", "glob.")):
        return folder.fold(node.func.value)
    if last in ("glob", "iglob") and node.args:
        pattern = folder.fold(node.args[0])
        return pattern.rsplit("/", 1)[0] if pattern and "/" in pattern else None
    return folder.fold(node.args[0]) if node.args else "."


def _deletes_unknown(loop: ast.For | ast.AsyncFor, folder: _Folder) -> bool:
    """Whether the loop's body deletes paths that are not constants (what it walks)."""
    for n, node in enumerate(ast.walk(loop)):
        if n >= _MAX_NODES:
            return False
        if isinstance(node, ast.Call):
            for op, path in _ops(node, folder):
                if op == "delete" and path is None:
                    return True
    return False
