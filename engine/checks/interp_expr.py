"""The taint engine's expressions: names, attributes, subscripts, formatting.

Every expression evaluates to a ``Val``. Literals keep their value, so constant text folds
(``"a" + "b"``, ``"%s" % ("x", "y")``, ``f""``) and constant conditions pick their branch.
Operators and containers are in ``interp_expr_ops``; calls in ``interp_calls``; statements
in ``interp``.
"""

from __future__ import annotations

import ast
import builtins
import operator
import string
from collections.abc import Callable
from typing import Any

from .flow import (
    FMT,
    MODULE,
    NOCONST,
    PATH,
    PATHOBJ,
    REQUEST,
    SAFELOADER,
    SQLTEXT,
    Val,
    clean,
    constant,
    data_tags,
    joined,
    local_input,
    tainted,
    unknown,
)
from .interp_budget import MAX_FOLD
from .interp_const import SAFE_LOADER, from_const, sql_text
from .interp_expr_ops import ExprOps, apply_const, element
from .interp_namespace import namespace_of
from .interp_sizes import spec_size
from .libtypes import FN, fn_name
from .pynames import dotted
from .sources import INPUT_ATTRS, cgi_key, cred_tags, is_request_name, norm

__all__ = ["ExprEval", "element", "from_const", "sql_text"]

_BUILTINS = frozenset(dir(builtins))
_CONVERSIONS: dict[int, Callable[[object], str]] = {ord("s"): str, ord("r"): repr, ord("a"): ascii}
"""The ``!s``, ``!r`` and ``!a`` of an f-string's replacement field."""


_STRING_CONSTANTS = {
    f"string.{n}": getattr(string, n)
    for n in (
        "ascii_letters",
        "ascii_lowercase",
        "ascii_uppercase",
        "digits",
        "hexdigits",
        "octdigits",
        "punctuation",
        "whitespace",
        "printable",
    )
}
"""The string module's character sets, as the constants they are."""
_PATH_LAST_PART = frozenset({"name", "stem", "suffix"})


class ExprEval(ExprOps):
    """Evaluation of expressions in an environment of names (the statements' base class)."""

    def source(self, what: str, node: ast.AST, *, local: bool = False) -> Val:
        """Input read by ``node``: request input, or (``local``) command line and stdin."""
        line = self.line_of(node)
        origin = f"{what} (line {line})" if line is not None else what
        src = (self.path, line) if line is not None else None
        return local_input(origin, src) if local else tainted(origin, src=src)

    def ev(self, e: ast.expr) -> Val:
        """The value of an expression (sinks inside it are reported on the way)."""
        self._step(e, 1)
        handler = _HANDLERS.get(type(e))
        if handler is not None:
            return handler(self, e)
        for child in ast.iter_child_nodes(e):
            if isinstance(child, ast.expr):
                self.ev(child)
        return unknown()

    def lookup(self, name: str) -> Val:
        v = self.env.get(name)
        if v is None:
            v = self.globals.get(name)
        if v is None:
            canon = self.imports.names.get(name)
            if canon is not None:
                if canon in _STRING_CONSTANTS:  # from string import ascii_letters
                    return from_const(_STRING_CONSTANTS[canon])
                if SAFE_LOADER.match(canon.rsplit(".", 1)[-1]):
                    return unknown(MODULE | SAFELOADER)
                if is_request_name(canon):
                    return unknown(REQUEST)
                return unknown(MODULE)._replace(cls=FN + canon)
            if is_request_name(name):
                return unknown(REQUEST)
            if name == "__file__":
                return constant()
            if name == "__builtins__":
                return unknown(MODULE)._replace(cls=FN + "builtins")
            if name in _BUILTINS:
                return unknown(MODULE)._replace(cls=FN + name)
            if name in self.local_names:
                return unknown(MODULE)
            v = unknown()
        cred = cred_tags(name)
        if cred and v.tags & cred != cred:
            v = v._replace(tags=v.tags | cred)
        return v

    def _constant(self, e: ast.Constant) -> Val:
        return from_const(e.value)

    def _name(self, e: ast.Name) -> Val:
        return self.lookup(e.id)

    def _attribute(self, e: ast.Attribute) -> Val:
        key = dotted(e)
        if key in self.env:
            return self.env[key]
        canon = self.imports.canon(e)
        if canon == "sys.argv":
            return self.source("sys.argv", e, local=True)
        if canon == "sys.executable":
            return from_const("python")
        if is_request_name(canon):
            return unknown(REQUEST)
        base = self.ev(e.value)
        if base.tags & REQUEST:
            if e.attr in INPUT_ATTRS:
                return self.source(f"request.{e.attr}", e)
            return unknown()
        if base.tags & MODULE:
            if canon in _STRING_CONSTANTS:
                return from_const(_STRING_CONSTANTS[canon])
            loader = SAFELOADER if SAFE_LOADER.match(e.attr) else 0
            ref = fn_name(base.cls)
            out = unknown(MODULE | loader | cred_tags(e.attr))
            return out._replace(cls=f"{FN}{norm(ref + '.' + e.attr)}") if ref else out
        if base.tags & PATHOBJ and e.attr in _PATH_LAST_PART:
            # Path(x).name / .stem / .suffix: the last part only, no directory to climb
            return clean(Val(base.lv, data_tags(base), base.origin, src=base.src), (PATH,))
        tags = data_tags(base) | cred_tags(e.attr) | (base.tags & PATHOBJ)
        return Val(base.lv, tags, base.origin, src=base.src)

    def _subscript(self, e: ast.Subscript) -> Val:
        base = self.ev(e.value)
        key = self.ev(e.slice)
        k = key.const
        if k is not NOCONST and cgi_key(k) and self.imports.canon(e.value) == "os.environ":
            return self.source(f"os.environ[{k!r}]", e)
        if isinstance(k, str) and fn_name(base.cls) in ("sys.modules", "builtins.__dict__"):
            return unknown(MODULE)._replace(cls=FN + norm(k))
        space = namespace_of(self, e.value, base) if isinstance(k, str) else None
        if space is not None:  # os.__dict__["system"], vars(os)["system"]: os.system
            return unknown(MODULE)._replace(cls=FN + norm(f"{space}.{k}"))
        if base.items is not None and k is not NOCONST and not isinstance(e.slice, ast.Slice):
            for ik, iv in base.items:
                if ik == k and type(ik) is type(k):
                    return iv
            if base.seq and isinstance(k, int) and -len(base.items) <= k < 0:
                return base.items[k][1]
        c = apply_const(operator.getitem, base.const, k)
        if c is not NOCONST:
            return from_const(c)
        if base.tags & REQUEST:
            return unknown()
        tags = data_tags(base) | cred_tags(k)
        return Val(base.lv, tags, base.origin, src=base.src)

    def _joinedstr(self, e: ast.JoinedStr) -> Val:
        parts: list[Val] = []
        text: list[str] = []
        known, size = True, 0
        for part in e.values:
            if isinstance(part, ast.Constant):
                text.append(str(part.value))
                continue
            v = self.ev(part.value) if isinstance(part, ast.FormattedValue) else self.ev(part)
            parts.append(v)
            piece = None
            if known and isinstance(part, ast.FormattedValue):
                piece = self._formatted(part, v)
            size += len(piece) if piece is not None else 0
            if piece is None or size > MAX_FOLD:
                known = False
            else:
                text.append(piece)
        literal = "".join(text)
        tags = (SQLTEXT if sql_text(literal) else 0) | (FMT if any(max(v.lv) for v in parts) else 0)
        out = joined(parts, tags)
        if known and len(literal) <= MAX_FOLD:
            return out._replace(const=literal)
        return out

    def _formatted(self, part: ast.FormattedValue, v: Val) -> str | None:
        """The text of one ``{value!conv:spec}`` of an f-string, or None when it is not known
        or too big to compute."""
        spec = self.ev(part.format_spec).const if part.format_spec is not None else ""
        value = v.const
        if (
            value is NOCONST
            or not isinstance(value, str | int | float)
            or not isinstance(spec, str)
        ):
            return None
        conversion = chr(part.conversion) if part.conversion > 0 else ""
        size = spec_size(spec, value, conversion)
        if size is None or not self.afford(size, part):
            return None
        convert: Callable[[object], str] | None = _CONVERSIONS.get(part.conversion)
        try:
            return format(convert(value) if convert is not None else value, spec)
        except Exception:
            return None

    def _call(self, e: ast.Call) -> Val:
        return self.call(e)


_HANDLERS: dict[type[ast.AST], Callable[[ExprEval, Any], Val]] = {
    ast.Constant: ExprEval._constant,
    ast.Name: ExprEval._name,
    ast.Attribute: ExprEval._attribute,
    ast.Subscript: ExprEval._subscript,
    ast.JoinedStr: ExprEval._joinedstr,
    ast.BinOp: ExprEval._binop,
    ast.BoolOp: ExprEval._boolop,
    ast.Compare: ExprEval._compare,
    ast.UnaryOp: ExprEval._unaryop,
    ast.IfExp: ExprEval._ifexp,
    ast.Dict: ExprEval._dict,
    ast.List: ExprEval._sequence,
    ast.Tuple: ExprEval._sequence,
    ast.Set: ExprEval._sequence,
    ast.ListComp: ExprEval._comprehension,
    ast.SetComp: ExprEval._comprehension,
    ast.GeneratorExp: ExprEval._comprehension,
    ast.DictComp: ExprEval._comprehension,
    ast.Lambda: ExprEval._lambda,
    ast.NamedExpr: ExprEval._namedexpr,
    ast.Await: ExprEval._await,
    ast.Yield: ExprEval._yield,
    ast.YieldFrom: ExprEval._yield,
    ast.Starred: ExprEval._await,
    ast.Slice: ExprEval._slice,
    ast.Call: ExprEval._call,
}
