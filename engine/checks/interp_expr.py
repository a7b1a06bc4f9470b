"""The taint engine's expressions: names, attributes, subscripts, formatting, containers.

Every expression evaluates to a ``Val``. Literals keep their value, so constant text folds
(``"a" + "b"``, ``"%s" % ("x", "y")``, ``f""``) and constant conditions pick their branch.
Calls are in ``interp_calls``; statements in ``interp``.
"""

from __future__ import annotations

import ast
import builtins
import operator
import re
from collections.abc import Callable
from typing import Any

from .flow import (
    CONST,
    CRED,
    FMT,
    MODULE,
    NOCONST,
    PATHOBJ,
    REQUEST,
    SAFELOADER,
    SQLTEXT,
    Val,
    constant,
    data_tags,
    join,
    joined,
    local_input,
    tainted,
    unknown,
)
from .pyast import dotted
from .sources import INPUT_ATTRS, Imports, cgi_key, is_cred_name, is_request_name

__all__ = ["ExprEval", "element", "from_const", "sql_text"]

SQL_TEXT = re.compile(
    r"(?is)\b(?:select\s.{0,400}?\sfrom\b|insert\s+(?:or\s+\w+\s+)?into\b|update\s+[\w\"`.\[\]]+"
    r"\s+set\b|delete\s+from\b|drop\s+(?:table|database|index|view)\b|create\s+(?:table|index)\b"
    r"|alter\s+table\b|truncate\s+table\b|replace\s+into\b|where\s+[\w.\"`]+\s*(?:=|like|in)\b)"
)
_BUILTINS = frozenset(dir(builtins))
_MAX_CONST = 10_000


_SQL_HINT = re.compile(r"(?i)select|insert|update|delete|drop|create|alter|truncate|replace|where")


def sql_text(text: object) -> bool:
    """Whether literal text looks like SQL."""
    if not isinstance(text, str) or not _SQL_HINT.search(text[:_MAX_CONST]):
        return False
    return bool(SQL_TEXT.search(text[:_MAX_CONST]))


_SAFE_LOADER = re.compile(r"^C?(?:Safe|Base)Loader$")


def from_const(value: object) -> Val:
    """The value of a Python literal (containers of literals keep their entries)."""
    if isinstance(value, list | tuple) and len(value) <= 64:
        items: tuple[tuple[object, Val], ...] = tuple(
            (i, from_const(x)) for i, x in enumerate(value)
        )
        const = value if isinstance(value, tuple) else NOCONST
        return Val((CONST, CONST, CONST, CONST), 0, None, items, True, const)
    if isinstance(value, str | bytes | int | float | bool | type(None)):
        if isinstance(value, str | bytes) and len(value) > _MAX_CONST:
            return constant()
        tags = SQLTEXT if sql_text(value) else 0
        if isinstance(value, str) and _SAFE_LOADER.match(value):
            tags |= SAFELOADER
        if isinstance(value, str) and is_cred_name(value):
            tags |= CRED
        return constant(value, tags)
    return constant()


def element(v: Val) -> Val:
    """An element of ``v`` when it is iterated (any of its entries)."""
    if v.items:
        out = v.items[0][1]
        for _, x in v.items[1:]:
            out = join(out, x)
        return out
    if v.tags & REQUEST:
        return unknown()
    return Val(v.lv, data_tags(v), v.origin, src=v.src)


_BINOPS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Div: operator.truediv,
    ast.Mod: operator.mod,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.Pow: operator.pow,
}
_CMPOPS: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
}


def _fold(fn: Callable[[Any, Any], Any], a: object, b: object) -> object:
    if a is NOCONST or b is NOCONST:
        return NOCONST
    if isinstance(a, int) and isinstance(b, int) and max(abs(a), abs(b)) > 2**64:
        return NOCONST
    if isinstance(a, str | bytes | tuple) and isinstance(b, int) and len(a) * abs(b) > _MAX_CONST:
        return NOCONST
    if fn is operator.pow and not (
        isinstance(a, int | float) and isinstance(b, int) and 0 <= b <= 64 and abs(a) < 2**16
    ):
        return NOCONST
    try:
        out = fn(a, b)
    except Exception:
        return NOCONST
    if isinstance(out, str | bytes) and len(out) > _MAX_CONST:
        return NOCONST
    return out


class ExprEval:
    """Evaluation of expressions in an environment of names (the statements' base class)."""

    env: dict[str, Val]
    globals: dict[str, Val]
    imports: Imports
    local_names: frozenset[str]

    def line_of(self, node: ast.AST) -> int | None:
        raise NotImplementedError

    def call(self, e: ast.Call) -> Val:
        raise NotImplementedError

    def bind(self, target: ast.expr, v: Val) -> None:
        raise NotImplementedError

    path: str | None = None
    """The file this code is in."""

    def source(self, what: str, node: ast.AST, *, local: bool = False) -> Val:
        """Input read by ``node``: request input, or (``local``) command line and stdin."""
        line = self.line_of(node)
        origin = f"{what} (line {line})" if line is not None else what
        src = (self.path, line) if line is not None else None
        return local_input(origin, src) if local else tainted(origin, src=src)

    def ev(self, e: ast.expr) -> Val:
        """The value of an expression (sinks inside it are reported on the way)."""
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
                if _SAFE_LOADER.match(canon.rsplit(".", 1)[-1]):
                    return unknown(MODULE | SAFELOADER)
                return unknown(REQUEST if is_request_name(canon) else MODULE)
            if is_request_name(name):
                return unknown(REQUEST)
            if name in _BUILTINS or name in self.local_names:
                return unknown(MODULE)
            v = unknown()
        if is_cred_name(name) and not v.tags & CRED:
            v = v._replace(tags=v.tags | CRED)
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
        if is_request_name(canon):
            return unknown(REQUEST)
        base = self.ev(e.value)
        if base.tags & REQUEST:
            if e.attr in INPUT_ATTRS:
                return self.source(f"request.{e.attr}", e)
            return unknown()
        if base.tags & MODULE:
            loader = SAFELOADER if _SAFE_LOADER.match(e.attr) else 0
            return unknown(MODULE | loader | (CRED if is_cred_name(e.attr) else 0))
        tags = data_tags(base) | (CRED if is_cred_name(e.attr) else 0) | (base.tags & PATHOBJ)
        return Val(base.lv, tags, base.origin, src=base.src)

    def _subscript(self, e: ast.Subscript) -> Val:
        base = self.ev(e.value)
        key = self.ev(e.slice)
        k = key.const
        if k is not NOCONST and cgi_key(k) and self.imports.canon(e.value) == "os.environ":
            return self.source(f"os.environ[{k!r}]", e)
        if base.items is not None and k is not NOCONST and not isinstance(e.slice, ast.Slice):
            for ik, iv in base.items:
                if ik == k and type(ik) is type(k):
                    return iv
            if base.seq and isinstance(k, int) and -len(base.items) <= k < 0:
                return base.items[k][1]
        c = _fold(operator.getitem, base.const, k) if base.const is not NOCONST else NOCONST
        if c is not NOCONST:
            return from_const(c)
        if base.tags & REQUEST:
            return unknown()
        tags = data_tags(base) | (CRED if is_cred_name(k) else 0)
        return Val(base.lv, tags, base.origin, src=base.src)

    def _joinedstr(self, e: ast.JoinedStr) -> Val:
        parts: list[Val] = []
        text: list[str] = []
        known = True
        for part in e.values:
            if isinstance(part, ast.Constant):
                text.append(str(part.value))
                continue
            v = self.ev(part.value) if isinstance(part, ast.FormattedValue) else self.ev(part)
            if isinstance(part, ast.FormattedValue) and part.format_spec is not None:
                self.ev(part.format_spec)
            parts.append(v)
            if v.const is NOCONST or not isinstance(v.const, str | int | float):
                known = False
            else:
                text.append(str(v.const))
        literal = "".join(text)
        tags = (SQLTEXT if sql_text(literal) else 0) | (FMT if any(max(v.lv) for v in parts) else 0)
        out = joined(parts, tags)
        if known and len(literal) <= _MAX_CONST:
            return out._replace(const=literal)
        return out

    def _binop(self, e: ast.BinOp) -> Val:
        a, b = self.ev(e.left), self.ev(e.right)
        fn = _BINOPS.get(type(e.op))
        c = _fold(fn, a.const, b.const) if fn is not None else NOCONST
        if c is not NOCONST and max(a.lv) == max(b.lv) == CONST:
            return from_const(c)
        tags = 0
        if isinstance(e.op, ast.Add | ast.Mod) and (max(a.lv) or max(b.lv)):
            tags |= FMT
        if isinstance(e.op, ast.Div) and (a.tags | b.tags) & PATHOBJ:
            tags |= PATHOBJ
        out = joined([a, b], tags)
        if isinstance(e.op, ast.Add) and a.items is not None and a.seq and len(a.items) < 64:
            rest = [v for _, v in b.items] if b.items is not None and b.seq else [element(b)]
            items = [v for _, v in a.items] + rest
            return out._replace(items=tuple(enumerate(items)), seq=True)
        return out

    def _boolop(self, e: ast.BoolOp) -> Val:
        vals = [self.ev(x) for x in e.values]
        if all(v.const is not NOCONST for v in vals):
            out: object = vals[0].const
            for v in vals[1:]:
                out = (out and v.const) if isinstance(e.op, ast.And) else (out or v.const)
            return from_const(out) if out is not NOCONST else constant()
        res = vals[0]
        for v in vals[1:]:
            res = join(res, v)
        return res

    def _compare(self, e: ast.Compare) -> Val:
        left = self.ev(e.left)
        result: object = True
        for op, right_node in zip(e.ops, e.comparators, strict=True):
            right = self.ev(right_node)
            fn = _CMPOPS.get(type(op))
            r = _fold(fn, left.const, right.const) if fn is not None else NOCONST
            known = r is not NOCONST and result is not NOCONST
            result = bool(result) and bool(r) if known else NOCONST
            left = right
        return constant(result)

    def _unaryop(self, e: ast.UnaryOp) -> Val:
        v = self.ev(e.operand)
        if isinstance(e.op, ast.Not):
            return constant(not v.const if v.const is not NOCONST else NOCONST)
        if v.const is not NOCONST and isinstance(v.const, int | float):
            c = -v.const if isinstance(e.op, ast.USub) else v.const
            return constant(c if not isinstance(e.op, ast.Invert) else ~int(v.const))
        return Val(v.lv, data_tags(v), v.origin, src=v.src)

    def _ifexp(self, e: ast.IfExp) -> Val:
        t = self.ev(e.test)
        if t.const is not NOCONST:
            return self.ev(e.body) if t.const else self.ev(e.orelse)
        return join(self.ev(e.body), self.ev(e.orelse))

    def _dict(self, e: ast.Dict) -> Val:
        keys = [self.ev(k) if k is not None else None for k in e.keys]
        vals = [self.ev(v) for v in e.values]
        out = joined(vals)
        if all(k is not None and k.const is not NOCONST for k in keys) and len(keys) <= 64:
            items = tuple((k.const, v) for k, v in zip(keys, vals, strict=True) if k is not None)
            return out._replace(items=items)
        return out

    def _sequence(self, e: ast.List | ast.Tuple | ast.Set) -> Val:
        vals = [self.ev(x) for x in e.elts]
        out = joined(vals)
        if isinstance(e, ast.Set) or any(isinstance(x, ast.Starred) for x in e.elts):
            return out
        if len(vals) > 64:
            return out
        consts = [v.const for v in vals]
        c = tuple(consts) if isinstance(e, ast.Tuple) and NOCONST not in consts else NOCONST
        return out._replace(items=tuple(enumerate(vals)), seq=True, const=c)

    def _comprehension(
        self, e: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp
    ) -> Val:
        saved = self.env
        self.env = dict(saved)
        try:
            for gen in e.generators:
                self.bind(gen.target, element(self.ev(gen.iter)))
                for cond in gen.ifs:
                    self.ev(cond)
            if isinstance(e, ast.DictComp):
                return joined([self.ev(e.key), self.ev(e.value)])
            return joined([self.ev(e.elt)])
        finally:
            self.env = saved

    def _lambda(self, e: ast.Lambda) -> Val:
        saved = self.env
        self.env = dict(saved)
        try:
            for a in [*e.args.posonlyargs, *e.args.args, *e.args.kwonlyargs]:
                self.env[a.arg] = unknown()
            self.ev(e.body)
        finally:
            self.env = saved
        return unknown(MODULE)

    def _namedexpr(self, e: ast.NamedExpr) -> Val:
        v = self.ev(e.value)
        self.bind(e.target, v)
        return v

    def _await(self, e: ast.Await | ast.Starred) -> Val:
        return self.ev(e.value)

    def _slice(self, e: ast.Slice) -> Val:
        for part in (e.lower, e.upper, e.step):
            if part is not None:
                self.ev(part)
        return constant()

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
    ast.Starred: ExprEval._await,
    ast.Slice: ExprEval._slice,
    ast.Call: ExprEval._call,
}
