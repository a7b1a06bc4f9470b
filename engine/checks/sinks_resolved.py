"""What Python code runs, as the taint engine resolved it: the command line a process call
gets, the code an ``exec``/``eval`` gets and the folder a recursive delete gets, once names
(``getattr(os, "sys" + "tem")``, ``from os import system as s``, ``f = os.system``,
``importlib.import_module("o" + "s")``, helpers and lambdas that wrap the call) and constant
text (``"rm" + " -rf " + "~"``, ``%``, f-strings, ``" ".join([...])``, ``"…"[::-1]``) are
followed. Each is reported as a ``resolved-command`` event whose detail is the shell command
that does the same (``exec(code)`` → ``python3 -c CODE``, ``shutil.rmtree(P)`` →
``rm -rf P``), so the shell rules judge the obfuscated form as they judge the plain one
(``tools/code_resolved``). Pure, bounded, never raises."""

from __future__ import annotations

import ast
import re
import shlex

from humangr.contracts import Severity

from .flow import CONST, Val
from .sink_util import Site, arg

__all__ = ["RESOLVED", "resolved_sinks"]

RESOLVED = "resolved-command"
"""The event check of a command resolved here (not a finding by itself)."""

_MAX_TEXT = 8_000
_LINE = frozenset(
    {"os.system", "os.popen", "os.popen2", "os.popen3", "os.popen4", "subprocess.getoutput"}
    | {"subprocess.getstatusoutput", "asyncio.create_subprocess_shell", "platform.popen"}
    | {"commands.getoutput", "commands.getstatusoutput"}
)
_ARGV = frozenset(
    {"subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output"}
    | {"subprocess.Popen", "pty.spawn", "pexpect.spawn", "pexpect.run"}
)
_EXEC = re.compile(r"^os\.(?:exec|spawn|posix_spawn)(l|v)?p?e?$")
_CODE = frozenset({"exec", "eval", "builtins.exec", "builtins.eval", "compile"})
_DELETE = frozenset(
    {"shutil.rmtree", "os.removedirs", "os.remove", "os.unlink", "os.rmdir", "rmtree"}
)
_HOME = re.compile(r"~[\w./-]{0,200}")
_MAX_FOLD = 24
"""AST nodes a delete's path is folded through, at most."""


def _text(v: Val | None) -> str | None:
    if v is None:
        return None
    c = v.const
    if isinstance(c, bytes):
        c = c.decode("utf-8", "replace")
    return c[:_MAX_TEXT] if isinstance(c, str) and c.strip() else None


def _argv(v: Val | None) -> list[str] | None:
    if v is None:
        return None
    if v.items is not None and v.seq:
        words = [_text(x) for _, x in v.items[:64]]
        return [w for w in words if w is not None] if all(words) else None
    one = _text(v)
    return [one] if one is not None else None


def _path(node: ast.AST | None, budget: list[int]) -> str | None:
    """The folder an expression names, when it is built from literals, the home folder
    (``Path.home()``, ``os.path.expanduser("~")``, ``os.environ["HOME"]``) and joins."""
    budget[0] -= 1
    if node is None or budget[0] < 0:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Div)):
        left, right = _path(node.left, budget), _path(node.right, budget)
        if left is None or right is None:
            return None
        return (
            f"{left.rstrip('/')}/{right.lstrip('/')}"
            if isinstance(node.op, ast.Div)
            else left + right
        )
    if isinstance(node, ast.Subscript) and _dotted(node.value).endswith("environ"):
        key = node.slice
        home = isinstance(key, ast.Constant) and key.value in ("HOME", "USERPROFILE")
        return "~" if home else None
    if not isinstance(node, ast.Call):
        return None
    name = _dotted(node.func)
    if name.endswith(("getenv", "environ.get")) and node.args:
        first = node.args[0]
        home = isinstance(first, ast.Constant) and first.value in ("HOME", "USERPROFILE")
        return "~" if home else None
    if name.endswith(("Path.home", "homedir")) and not node.args:
        return "~"
    if name.endswith(("expanduser", "abspath", "realpath", "normpath", "Path", "resolve")):
        inner = node.args[0] if node.args else getattr(node.func, "value", None)
        return _path(inner, budget)
    if name.endswith("path.join") and node.args:
        parts = [_path(a, budget) for a in node.args[:8]]
        known = [p for p in parts if p is not None]
        return "/".join(p.rstrip("/") for p in known) if len(known) == len(parts) else None
    return None


def _dotted(node: ast.AST) -> str:
    out: list[str] = []
    while isinstance(node, ast.Attribute) and len(out) < 8:
        out.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        out.append(node.id)
    elif isinstance(node, ast.Call):
        out.append(_dotted(node.func))
    return ".".join(reversed(out))


def _command(
    e: ast.Call, canon: str, method: str | None, args: list[Val], kw: dict[str, Val]
) -> str | None:
    if canon in _LINE or method == "system":  # ``ctypes.CDLL(None).system(b"…")`` too
        return _text(arg(args, kw, 0, "cmd", "command"))
    if canon in _ARGV:
        words = _argv(arg(args, kw, 0, "args", "cmd", "command", "argv"))
        return shlex.join(words) if words else None
    m = _EXEC.match(canon)
    if m:
        offset = 1 if "spawn" in canon and "posix" not in canon else 0
        rest = args[offset + 1 :]
        words = _argv(rest[0]) if m.group(1) == "v" and rest else [_text(r) or "" for r in rest]
        program = _text(arg(args, kw, offset, "path", "file"))
        if program is None or not words:
            return None
        return shlex.join([program, *words[1:]])
    if canon in _CODE:
        code = _text(arg(args, kw, 0, "source", "code"))
        return f"python3 -c {shlex.quote(code)}" if code else None
    if canon in _DELETE or (method == "rmtree"):
        first = arg(args, kw, 0, "path")
        target = _text(first) or _path(e.args[0] if e.args else None, [_MAX_FOLD])
        if not target:
            return None
        return f"rm -rf {target if _HOME.fullmatch(target) else shlex.quote(target)}"
    return None


def resolved_sinks(it: Site, e: ast.Call, canon: str, args: list[Val], kw: dict[str, Val]) -> None:
    """Report what a process, code or delete call runs, once resolved to constant text."""
    method = e.func.attr if isinstance(e.func, ast.Attribute) else None
    try:
        command = _command(e, canon, method, args, kw)
    except (ValueError, TypeError, RecursionError):
        return
    if command:
        it.report(RESOLVED, e, Severity.INFO, "resolved command", command[:_MAX_TEXT], CONST)
