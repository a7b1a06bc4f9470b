"""The taint engine's expressions: names, attributes, subscripts, formatting, containers.

Every expression evaluates to a ``Val``. Literals keep their value, so constant text folds
(``"a" + "b"``, ``"%s" % ("x", "y")``, ``f""``) and constant conditions pick their branch.
Calls are in ``interp_calls``; statements in ``interp``.
"""

from __future__ import annotations

import ast
import builtins
import operator
import string
from collections.abc import Callable
from typing import Any

from .flow import (
    CONST,
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
    join,
    joined,
    light,
    local_input,
    tainted,
    unknown,
)
from .interp_budget import MAX_FOLD, Budget, BudgetExceeded
from .interp_const import SAFE_LOADER, from_const, sql_text
from .interp_sizes import operation_size, spec_size, weight
from .libtypes import FN, fn_name
from .pynames import dotted
from .sources import INPUT_ATTRS, Imports, cgi_key, cred_tags, is_request_name, norm

__all__ = ["ExprEval", "element", "from_const", "sql_text"]

_BUILTINS = frozenset(dir(builtins))
_CONVERSIONS: dict[int, Callable[[object], str]] = {ord("s"): str, ord("r"): repr, ord("a"): ascii}
"""The ``!s``, ``!r`` and ``!a`` of an f-string's replacement field."""


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


def _apply(fn: Callable[[Any, Any], Any], a: object, b: object) -> object:
    """``fn(a, b)`` for an operation whose result is no bigger than its operands (comparisons,
    indexing), or NOCONST."""
    if a is NOCONST or b is NOCONST:
        return NOCONST
    try:
        return fn(a, b)
    except Exception:
        return NOCONST


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
    budget: Budget
    """The action's work and folding budget (shared by every body the program runs)."""

    def _step(self, node: ast.AST, n: int) -> None:
        """Pay ``n`` steps of work at ``node``; raises ``BudgetExceeded`` once they are spent."""
        if not self.budget.step(n):
            raise BudgetExceeded(self.path, self.line_of(node), self.budget.spent or "")

    def afford(self, size: int, node: ast.AST) -> bool:
        """Whether a constant of about ``size`` may be computed at ``node``; if not, the
        limit is recorded (the value stays unknown text)."""
        why = self.budget.fold(size)
        if why is None:
            return True
        self.budget.note(self.path, self.line_of(node), why)
        return False

    def fold(self, fn: Callable[[Any, Any], Any], a: object, b: object, node: ast.AST) -> object:
        """``fn(a, b)`` for a binary operator on constants, its size predicted and paid for
        first; NOCONST when it is not folded, too big or fails."""
        if a is NOCONST or b is NOCONST:
            return NOCONST
        size = operation_size(fn, a, b)
        if size is None or not self.afford(size, node):
            return NOCONST
        return _apply(fn, a, b)

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
        if base.items is not None and k is not NOCONST and not isinstance(e.slice, ast.Slice):
            for ik, iv in base.items:
                if ik == k and type(ik) is type(k):
                    return iv
            if base.seq and isinstance(k, int) and -len(base.items) <= k < 0:
                return base.items[k][1]
        c = _apply(operator.getitem, base.const, k)
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

    def _binop(self, e: ast.BinOp) -> Val:
        a, b = self.ev(e.left), self.ev(e.right)
        fn = _BINOPS.get(type(e.op))
        c = self.fold(fn, a.const, b.const, e) if fn is not None else NOCONST
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
            items = tuple(enumerate([v for _, v in a.items] + rest))
            return out._replace(items=items, seq=True) if light(items) else out
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
            r = _apply(fn, left.const, right.const) if fn is not None else NOCONST
            known = r is not NOCONST and result is not NOCONST
            result = bool(result) and bool(r) if known else NOCONST
            left = right
        return constant(result)

    def _unaryop(self, e: ast.UnaryOp) -> Val:
        v = self.ev(e.operand)
        if isinstance(e.op, ast.Not):
            return constant(not v.const if v.const is not NOCONST else NOCONST)
        if v.const is not NOCONST and isinstance(v.const, int | float):
            c: object = -v.const if isinstance(e.op, ast.USub) else v.const
            if isinstance(e.op, ast.Invert):
                c = ~v.const if isinstance(v.const, int) else NOCONST
            return constant(c)
        return Val(v.lv, data_tags(v), v.origin, src=v.src)

    def _ifexp(self, e: ast.IfExp) -> Val:
        t = self.ev(e.test)
        if t.const is not NOCONST:
            return self.ev(e.body) if t.const else self.ev(e.orelse)
        return join(self.guarded(e.test, True, e.body), self.guarded(e.test, False, e.orelse))

    def guarded(self, test: ast.expr, holds: bool, e: ast.expr) -> Val:
        """The value of ``e`` where ``test`` is ``holds`` (``x if x in ALLOWED else "a"``);
        the interpreter applies the names the test validates, the base class nothing."""
        return self.ev(e)

    def _dict(self, e: ast.Dict) -> Val:
        keys = [self.ev(k) if k is not None else None for k in e.keys]
        vals = [self.ev(v) for v in e.values]
        out = joined(vals)
        if all(k is not None and k.const is not NOCONST for k in keys) and len(keys) <= 64:
            items = tuple((k.const, v) for k, v in zip(keys, vals, strict=True) if k is not None)
            return out._replace(items=items) if light(items) else out
        return out

    def _sequence(self, e: ast.List | ast.Tuple | ast.Set) -> Val:
        vals = [self.ev(x) for x in e.elts]
        out = joined(vals)
        if isinstance(e, ast.Set) or any(isinstance(x, ast.Starred) for x in e.elts):
            return out
        if len(vals) > 64:
            return out
        items = tuple(enumerate(vals))
        if not light(items):
            return out
        consts = [v.const for v in vals]
        c = tuple(consts) if isinstance(e, ast.Tuple) and NOCONST not in consts else NOCONST
        if c is not NOCONST and not self.afford(weight(c), e):
            c = NOCONST
        return out._replace(items=items, seq=True, const=c)

    def _comprehension(
        self, e: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp
    ) -> Val:
        saved = self.env
        self._step(e, len(saved) // 16)
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
        self._step(e, len(saved) // 16)
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

    def _yield(self, e: ast.Yield | ast.YieldFrom) -> Val:
        v = self.ev(e.value) if e.value is not None else constant(None)
        self.yielded(element(v) if isinstance(e, ast.YieldFrom) else v)
        return unknown()  # what the caller sends in

    def yielded(self, v: Val) -> None:
        """A value the body yields (a generator's elements); the interpreter keeps them."""

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
    ast.Yield: ExprEval._yield,
    ast.YieldFrom: ExprEval._yield,
    ast.Starred: ExprEval._await,
    ast.Slice: ExprEval._slice,
    ast.Call: ExprEval._call,
}
