"""The taint engine's calls: sources, sanitizers, library passthrough, local calls.

A call's arguments are evaluated, the sinks get to see them (``sinks.on_call``), then the
result is: request input for the known sources, clean for sanitizers, the return value of
the analysed function for functions defined in the same file or diff, and otherwise the
join of receiver and arguments (at least unknown when the function is not a known one).
Methods called on values (string methods, containers changed in place) are in
``interp_methods``.
"""

from __future__ import annotations

import ast
from abc import abstractmethod
from typing import Protocol

from humangr.contracts import Severity

from . import sinks
from .flow import (
    ARCHIVE,
    DECODED,
    MODULE,
    NOCONST,
    NORM,
    PATHOBJ,
    REQUEST,
    SAFELOADER,
    Val,
    clean,
    constant,
    join,
    joined,
    unknown,
)
from .interp_const import SAFE_LOADER
from .interp_methods import MethodEval, collapse, unknown_result, with_items
from .libtypes import (
    DECODERS,
    FN,
    constructed,
    fn_name,
    handed_call,
    reference,
)
from .pynames import dotted
from .sinks_data import hash_result
from .sources import (
    FULL_SANITIZERS,
    INPUT_ATTRS,
    KIND_SANITIZERS,
    NORMALIZERS,
    PATH_CLASSES,
    PURE,
    cgi_key,
    is_self_input,
    norm,
)

__all__ = ["CallEval", "Resolver", "collapse", "with_items"]

_INPUT_CALLS = frozenset(
    {"input", "raw_input", "builtins.input", "sys.stdin.read", "sys.stdin.readline"}
    | {"sys.stdin.readlines", "cgi.FieldStorage", "fileinput.input"}
)
_SERIALIZERS = frozenset(
    {"pickle.dumps", "marshal.dumps", "jsonpickle.encode", "yaml.dump", "yaml.safe_dump"}
    | {"pickle.dump", "marshal.dump", "shelve.open"}
)
_OPEN = frozenset({"open", "io.open", "codecs.open", "builtins.open", "aiofiles.open"})
_ARCHIVES = frozenset({"tarfile.open", "tarfile.TarFile", "tarfile.TarFile.open"})
_KEYED_STORES = frozenset(
    {"configparser.ConfigParser", "configparser.RawConfigParser", "configparser.SafeConfigParser"}
)
"""Objects whose ``set(section, option, value)`` and ``get(section, option)`` are tracked."""
_SQL_ESCAPES = frozenset({"escape_string", "quote_ident", "quote_name", "escape"})
_PARTIALS = frozenset({"functools.partial", "partial"})
"""``partial(f, **kw)``: the result calls ``f`` with those keywords (``shell=True``)."""


class Resolver(Protocol):
    """What the program offers calls: functions of the same file or diff, and the sinks."""

    def call_local(
        self, it: CallEval, e: ast.Call, recv: Val | None, args: list[Val], kw: dict[str, Val]
    ) -> Val | None:
        """The return value of a function (or a new instance of a class) defined in the
        analysed code, or None."""
        ...

    def closure(self, node: ast.AST, env: dict[str, Val]) -> None:
        """Record the environment a nested function is defined in."""
        ...

    def is_local(self, it: CallEval, e: ast.Call) -> bool:
        """Whether a call goes to a function defined in the analysed code."""
        ...

    def defs(self, name: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
        """The functions named ``name`` defined in the analysed code."""
        ...


class CallEval(MethodEval):
    """Calls, on top of the expressions."""

    prog: Resolver
    context: str = ""
    """The name of the function being analysed (empty at module level)."""
    depth: int = 0
    """How many local calls deep this body runs."""
    cls: str | None = None
    """The class whose method this body is."""
    path_checked: bool = False
    """A path containment check ran in this body (archives extracted after it are checked)."""

    @abstractmethod
    def report(
        self,
        check: str,
        node: ast.AST,
        severity: Severity,
        title: str,
        detail: str,
        flow: int,
        src: tuple[str | None, int] | None = None,
    ) -> None:
        """Record a finding at ``node`` (``Interp``)."""

    def is_local_call(self, e: ast.Call) -> bool:
        """Whether ``e`` calls a function defined in the analysed code."""
        return self.prog.is_local(self, e)

    def defs(self, name: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
        """The functions named ``name`` defined in the analysed code."""
        return self.prog.defs(name)

    def call(self, e: ast.Call) -> Val:
        func = e.func
        canon = self.imports.canon(func)
        recv: Val | None = None
        callee: Val | None = None
        if isinstance(func, ast.Attribute):
            recv = self.ev(func.value)
            ref = fn_name(recv.cls)
            bound = self.env.get(dotted(func))
            if bound is not None and fn_name(bound.cls) is not None:
                canon = fn_name(bound.cls) or canon
            elif ref is not None:
                canon = norm(f"{ref}.{func.attr}")
        elif not isinstance(func, ast.Name):
            self._callee(e, func)
            canon = fn_name(self.ev(func).cls) or canon
        elif func.id in self.env or func.id in self.globals:
            callee = self.lookup(func.id)
            canon = fn_name(callee.cls) or canon
        args = [self.ev(a) for a in e.args]
        kw: dict[str, Val] = {}
        extra: list[Val] = []
        for k in e.keywords:
            v = self.ev(k.value)
            if k.arg is None:
                spread = _spread(v)
                if spread is None:
                    extra.append(v)
                for name, x in spread or ():
                    kw.setdefault(name, x)  # f(**{"verify": False}): the keywords it holds
            else:
                kw[k.arg] = v
        if callee is not None and fn_name(callee.cls) is not None:
            for name, x in _spread(callee) or ():
                kw.setdefault(name, x)  # keywords a functools.partial bound
        sinks.on_call(self, e, canon, recv, args, kw)
        method = func.attr if isinstance(func, ast.Attribute) else None
        handed = handed_call(canon, method, args, kw)
        if handed is not None:
            sinks.on_call(self, e, handed[0], None, handed[1], handed[2])
        return self._result(e, canon, recv, args, kw, extra)

    def _callee(self, e: ast.Call, func: ast.expr) -> None:
        """A callee picked by a name computed at run time from a module or namespace."""
        if isinstance(func, ast.Subscript) and isinstance(func.value, ast.Call):
            space = self.imports.canon(func.value.func)
            if space in ("globals", "locals", "vars", "builtins.globals", "builtins.vars"):
                sinks.chosen_callee(self, e, self.ev(func.slice), f"{space}()[...]")
        elif (
            isinstance(func, ast.Call)
            and len(func.args) >= 2
            and self.imports.canon(func.func) in ("getattr", "builtins.getattr")
        ):
            owner = fn_name(self.ev(func.args[0]).cls)
            if owner is not None:
                sinks.chosen_callee(self, e, self.ev(func.args[1]), f"getattr({owner}, ...)")

    def _result(
        self,
        e: ast.Call,
        canon: str,
        recv: Val | None,
        args: list[Val],
        kw: dict[str, Val],
        extra: list[Val],
    ) -> Val:
        method = e.func.attr if isinstance(e.func, ast.Attribute) else None
        vals = [*args, *kw.values(), *extra]
        source = self._source(e, canon, recv, method, args)
        if source is not None:
            return source
        if canon in FULL_SANITIZERS:
            c = NOCONST
            if canon in ("len", "int", "abs", "round", "float", "bool", "ord") and len(args) == 1:
                c = _safe_builtin(canon, args[0].const)
            return constant(c)
        kinds = KIND_SANITIZERS.get(canon)
        if kinds is None and method in _SQL_ESCAPES and recv is not None and not recv.tags & MODULE:
            # a driver's or connection's own escaping (conn.escape, ops.quote_name), not a
            # module function of that name: html.escape and re.escape do not make SQL safe
            kinds = KIND_SANITIZERS["sql.Literal"]
        if kinds is not None:
            return clean(joined(vals), kinds)
        if canon in _SERIALIZERS:
            return constant()
        if canon in DECODERS:
            return joined(vals, DECODED)
        if canon in _PARTIALS and args and fn_name(args[0].cls) is not None:
            bound = tuple(kw.items())
            return args[0]._replace(items=bound or None, seq=False)
        ref = reference(canon, args)
        if ref is not None:
            loader = SAFELOADER if SAFE_LOADER.match(ref.rsplit(".", 1)[-1]) else 0
            out = unknown(MODULE | loader)._replace(cls=FN + ref)
            return join(out, args[2]) if canon.endswith("getattr") and len(args) > 2 else out
        hashed = hash_result(e, canon, args, kw)
        if hashed is not None:
            return hashed
        if canon in NORMALIZERS:
            return joined(vals, NORM)
        if canon in PATH_CLASSES:
            return joined(vals, PATHOBJ)
        if canon in _OPEN:
            return joined(args[:1] + ([kw["file"]] if "file" in kw else []))
        if canon in _KEYED_STORES:
            return constant()._replace(items=())
        if canon in _ARCHIVES:
            out = joined(args[:1] + [kw[k] for k in ("name", "fileobj") if k in kw])
            return out._replace(tags=out.tags | ARCHIVE)
        made = constructed(canon, kw)
        if made is not None:
            return unknown_result(joined(vals), canon)._replace(cls=made)
        local = self.prog.call_local(self, e, recv, args, kw)
        if local is not None:
            return local
        if recv is None or method is None:
            return joined(vals) if canon in PURE else unknown_result(joined(vals), canon)
        return self._method(e, canon, recv, method, args, vals)

    def _source(
        self, e: ast.Call, canon: str, recv: Val | None, method: str | None, args: list[Val]
    ) -> Val | None:
        if canon in _INPUT_CALLS:
            return self.source(f"{canon}()", e, local=True)
        if canon in ("os.getenv", "os.environ.get"):
            key = args[0].const if args else NOCONST
            return self.source(f"os.environ[{key!r}]", e) if cgi_key(key) else unknown()
        if recv is None or method is None:
            return None
        if recv.tags & REQUEST and method in INPUT_ATTRS:
            return self.source(f"request.{method}()", e)
        func = e.func
        assert isinstance(func, ast.Attribute)
        if is_self_input(method) and isinstance(func.value, ast.Name) and func.value.id == "self":
            return self.source(f"self.{method}()", e)
        if method in ("recv", "recvfrom") and not recv.tags & MODULE:
            return self.source(f"{method}()", e)
        return None


def _spread(v: Val) -> list[tuple[str, Val]] | None:
    """The keywords of ``**v`` when ``v`` is a mapping whose keys are all known text, else
    None (then ``v`` counts as one more argument)."""
    if v.items is None or v.seq or not v.items:
        return None
    if not all(isinstance(k, str) for k, _ in v.items):
        return None
    return [(str(k), x) for k, x in v.items]


def _safe_builtin(name: str, value: object) -> object:
    if value is NOCONST:
        return NOCONST
    try:
        if name == "len" and isinstance(value, str | bytes | tuple):
            return len(value)
        if name in ("int", "float") and isinstance(value, str | int | float | bool):
            return int(value) if name == "int" else float(value)
        if name == "bool":
            return bool(value)
    except (ValueError, OverflowError):
        return NOCONST
    return NOCONST
