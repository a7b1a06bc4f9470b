"""Library objects and callables the taint engine follows by type, not by variable name.

A value's ``cls`` names what it is when the code says so:

- ``lib:<kind>``: an object of a known library, made by its constructor
  (``paramiko.SSHClient()``, ``fabric.Connection(...)``, ``pg8000.native.Connection(...)``,
  ``await asyncpg.connect(...)``), returned by a method of one (``pool.acquire()``,
  ``transport.open_session()``) or named by a parameter's annotation (``c: Connection``).
  Sinks whose method names are common words (``run``, ``sudo``, ``fetch``) are judged on
  such receivers only.
- ``fn:<canonical name>``: a module or callable named in the code (``os``, ``eval``,
  ``os.system``), kept through assignments (``e = eval``), ``getattr(os, "system")``,
  ``__import__("os")`` and ``importlib.import_module("os")``, so calling it reaches the same
  sinks as calling the name itself.
"""

from __future__ import annotations

import ast

from .flow import Val
from .sources import Imports, names, norm

__all__ = [
    "CODE_AT_1",
    "DECODERS",
    "FN",
    "LIB",
    "MEMBER_LISTS",
    "REMOTE_SHELL_FUNCS",
    "RUAMEL_LOADS",
    "annotated",
    "code_method",
    "constructed",
    "context_param",
    "fn_name",
    "handed_call",
    "lib_kind",
    "method_result",
    "reference",
    "remote_shell_method",
    "sql_method",
]

LIB = "lib:"
FN = "fn:"

_IMPORTERS = frozenset(
    {"__import__", "builtins.__import__", "importlib.import_module", "importlib.__import__"}
)
MEMBER_LISTS = frozenset({"infolist", "namelist", "getmembers", "getnames", "getinfo"})
"""Archive methods returning member names (or members carrying them)."""
DECODERS = names(
    """
    base64.b64decode base64.urlsafe_b64decode base64.b32decode base64.b16decode
    base64.b85decode base64.a85decode base64.decodebytes base64.standard_b64decode
    binascii.unhexlify binascii.a2b_base64 binascii.a2b_hex codecs.decode zlib.decompress
    bz2.decompress lzma.decompress gzip.decompress marshal.loads bytes.fromhex
    bytearray.fromhex
    """
)
"""Calls that decode or decompress data: their result is tagged ``DECODED``."""
_CONSTRUCTORS = {
    "paramiko.SSHClient": "ssh",
    "paramiko.client.SSHClient": "ssh",
    "paramiko.Transport": "ssh-transport",
    "paramiko.transport.Transport": "ssh-transport",
    "fabric.Connection": "fabric",
    "fabric.connection.Connection": "fabric",
    "fabric.Group": "fabric",
    "fabric.SerialGroup": "fabric",
    "fabric.ThreadingGroup": "fabric",
    "invoke.Context": "fabric",
    "invoke.context.Context": "fabric",
    "asyncssh.connect": "asyncssh",
    "pg8000.native.Connection": "pg8000-native",
    "asyncpg.connect": "asyncpg",
    "asyncpg.create_pool": "asyncpg",
    "zipfile.ZipFile": "zip",
    "code.InteractiveInterpreter": "pyinterp",
    "code.InteractiveConsole": "pyinterp",
    "concurrent.interpreters.create": "subinterp",
    "test.support.interpreters.create": "subinterp",
    "interpreters.create": "subinterp",
}
"""Calls that make a library object: canonical name -> kind."""
_ANNOTATIONS = {
    **_CONSTRUCTORS,
    "paramiko.Channel": "ssh",
    "paramiko.channel.Channel": "ssh",
    "asyncssh.SSHClientConnection": "asyncssh",
    "asyncpg.Connection": "asyncpg",
    "asyncpg.connection.Connection": "asyncpg",
    "asyncpg.Pool": "asyncpg",
    "asyncpg.pool.Pool": "asyncpg",
}
"""Annotations that say what a parameter is: canonical name -> kind."""
_METHODS = {
    ("ssh", "get_transport"): "ssh-transport",
    ("ssh-transport", "open_session"): "ssh",
    ("ssh-transport", "open_channel"): "ssh",
    ("asyncpg", "acquire"): "asyncpg",
}
"""Methods of a library object that return another one: (kind, method) -> kind."""
_REMOTE_SHELL = {
    "ssh": frozenset({"exec_command"}),
    "fabric": frozenset({"run", "sudo", "local"}),
    "asyncssh": frozenset({"run", "create_process"}),
}
"""Methods that hand a command line to a (remote or local) shell."""
REMOTE_SHELL_FUNCS = frozenset(
    {"fabric.api.run", "fabric.api.sudo", "fabric.api.local", "fabric.operations.run"}
    | {"fabric.operations.sudo", "fabric.operations.local", "invoke.run", "invoke.sudo"}
)
"""Module-level functions that run a command line through a shell (fabric 1, invoke)."""
_CODE = {
    "pyinterp": frozenset({"runsource", "runcode", "push"}),
    "subinterp": frozenset({"exec", "exec_sync", "run"}),
}
"""Methods that run Python source (an interactive interpreter, a sub-interpreter)."""
CODE_AT_1 = frozenset(
    {"_xxsubinterpreters.run_string", "_interpreters.run_string", "_interpreters.exec"}
    | {"interpreters.run_string"}
)
"""Functions running Python source given as their second argument (an interpreter id first)."""
_SQL = {
    "pg8000-native": frozenset({"run", "prepare"}),
    "asyncpg": frozenset({"fetch", "fetchrow", "fetchval", "execute", "executemany"})
    | frozenset({"cursor", "prepare", "copy_from_query"}),
}
"""Methods whose first argument is SQL text."""


def lib_kind(cls: str | None) -> str | None:
    """The library kind of a value's ``cls`` (``ssh``, ``fabric``, ...), or None."""
    return cls[len(LIB) :] if cls is not None and cls.startswith(LIB) else None


def fn_name(cls: str | None) -> str | None:
    """The canonical name a callable reference stands for (``os.system``), or None."""
    return cls[len(FN) :] if cls is not None and cls.startswith(FN) else None


_RUAMEL = frozenset({"yaml.YAML", "yaml.main.YAML"})
"""ruamel.yaml's ``YAML`` class (``ruamel.yaml`` reads as ``yaml``)."""
_RUAMEL_SAFE_TYPES = frozenset({"rt", "safe", "base"})
RUAMEL_LOADS = frozenset({"load", "load_all"})
"""Methods of a ruamel ``YAML`` object that parse a document."""


def constructed(canon: str, kw: dict[str, Val] | None = None) -> str | None:
    """The ``cls`` of what ``canon(...)`` returns, when it is a known library object; a
    ruamel ``YAML(typ=...)`` is ``ruamel-safe`` for the round-trip, safe and base loaders
    (the default is round-trip) and ``ruamel-unsafe`` for ``typ="unsafe"`` or a type known
    only at run time."""
    if canon in _RUAMEL:
        typ = (kw or {}).get("typ")
        value = typ.const if typ is not None else "rt"
        if typ is not None and typ.items is not None and typ.seq and len(typ.items) == 1:
            value = typ.items[0][1].const  # typ=["safe"]
        return LIB + ("ruamel-safe" if value in _RUAMEL_SAFE_TYPES else "ruamel-unsafe")
    kind = _CONSTRUCTORS.get(canon)
    return LIB + kind if kind is not None else None


def method_result(cls: str | None, method: str) -> str | None:
    """The ``cls`` of what ``obj.method(...)`` returns for a library object ``obj``."""
    kind = lib_kind(cls)
    if kind is None:
        return None
    out = _METHODS.get((kind, method))
    return LIB + out if out is not None else None


def remote_shell_method(cls: str | None, method: str | None) -> bool:
    """Whether ``obj.method(cmd)`` runs ``cmd`` through a shell: a paramiko client or channel
    (``exec_command`` on any receiver: the name is paramiko's own), a fabric or invoke
    connection (``run``, ``sudo``, ``local``), an asyncssh connection (``run``)."""
    if method is None:
        return False
    kind = lib_kind(cls)
    if kind is None:
        return method == "exec_command"
    return method in _REMOTE_SHELL.get(kind, frozenset())


def code_method(cls: str | None, method: str | None) -> bool:
    """Whether ``obj.method(source)`` runs Python source (``code.InteractiveInterpreter``'s
    ``runsource``, a sub-interpreter's ``exec``)."""
    kind = lib_kind(cls)
    return kind is not None and method is not None and method in _CODE.get(kind, frozenset())


def sql_method(cls: str | None, method: str | None) -> bool:
    """Whether ``obj.method(sql)`` runs SQL text on a typed driver object (pg8000's native
    ``run``, asyncpg's ``fetch``/``fetchrow``/``fetchval``/...)."""
    kind = lib_kind(cls)
    return kind is not None and method is not None and method in _SQL.get(kind, frozenset())


_TASKS = frozenset({"invoke.task", "invoke.tasks.task", "fabric.task", "fabric.tasks.task"})


def context_param(decorators: list[ast.expr], imports: Imports) -> str | None:
    """The ``cls`` of the first parameter of a function the decorators make an invoke or
    fabric task: the task's ``Context`` (or ``Connection``), whose ``run`` is a shell."""
    for d in decorators:
        if imports.canon(d.func if isinstance(d, ast.Call) else d) in _TASKS:
            return LIB + "fabric"
    return None


def annotated(annotation: ast.expr | None, imports: Imports) -> str | None:
    """The ``cls`` a parameter annotation gives (``c: Connection``, ``x: SSHClient | None``)."""
    stack = [annotation] if annotation is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, ast.BinOp):
            stack += [node.left, node.right]
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name | ast.Attribute):
            stack.append(node.slice)
        elif isinstance(node, ast.Name | ast.Attribute):
            kind = _ANNOTATIONS.get(imports.canon(node))
            if kind is not None:
                return LIB + kind
    return None


def reference(canon: str, args: list[Val]) -> str | None:
    """The module or callable ``getattr(module, "name")``, ``__import__("os")`` or
    ``importlib.import_module("os")`` stands for, when its names are constants."""
    if canon in _IMPORTERS and args and isinstance(args[0].const, str):
        return norm(args[0].const)
    if canon in ("getattr", "builtins.getattr") and len(args) >= 2:
        ref = fn_name(args[0].cls)
        if ref is not None and isinstance(args[1].const, str):
            return norm(f"{ref}.{args[1].const}")
    return None


_HANDS_FIRST = frozenset(
    {"functools.partial", "asyncio.to_thread", "anyio.to_thread.run_sync"}
    | {"trio.to_thread.run_sync", "anyio.from_thread.run_sync", "map", "builtins.map"}
)
"""Calls that call their first argument with the others (now or later)."""
_HANDS_SECOND = frozenset({"run_in_executor"})
"""Methods that call their second argument with the rest (``loop.run_in_executor(ex, f, x)``)."""
_HANDS_TARGET = frozenset(
    {"threading.Thread", "multiprocessing.Process", "threading.Timer"}
    | {"multiprocessing.context.Process"}
)
"""Constructors that call ``target=`` (``function=`` for Timer) with ``args=``."""


def _items(v: Val | None) -> list[Val]:
    if v is None:
        return []
    if v.items is not None and v.seq:
        return [x for _, x in v.items]
    return [v]


def handed_call(
    canon: str, method: str | None, args: list[Val], kw: dict[str, Val]
) -> tuple[str, list[Val], dict[str, Val]] | None:
    """The call a higher-order call makes of a named callable (``partial(os.system, cmd)``,
    ``loop.run_in_executor(None, os.system, cmd)``, ``Thread(target=os.system, args=(cmd,))``,
    ``executor.submit(eval, code)``, ``map(eval, codes)``): its canonical name and arguments."""
    func: Val | None = None
    rest: list[Val] = []
    extra: dict[str, Val] = {}
    if canon in _HANDS_FIRST or method in ("submit", "apply_async", "apply"):
        if args:
            func, rest = args[0], args[1:]
            extra = {k: v for k, v in kw.items() if k not in ("args", "kwds")}
            if method in ("apply_async", "apply") or canon.endswith("map"):
                rest = [x for r in rest for x in _items(r)] + _items(kw.get("args"))
    elif method in _HANDS_SECOND and len(args) >= 2:
        func, rest = args[1], args[2:]
    elif canon in _HANDS_TARGET:
        func = kw.get("target", kw.get("function"))
        rest = _items(kw.get("args"))
        named = kw["kwargs"].items if "kwargs" in kw else None
        extra = {k: v for k, v in named or () if isinstance(k, str)}
    ref = fn_name(func.cls) if func is not None else None
    return (ref, rest, extra) if ref is not None else None
