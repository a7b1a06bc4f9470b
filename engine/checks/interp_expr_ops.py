"""The taint engine's operators and containers: arithmetic and comparisons folded on
constants, conditions, dicts, lists, tuples and sets, comprehensions, lambdas, yields.

``ExprOps`` also holds what every expression pays with: the work and folding budget.
Names, attributes, subscripts, f-strings and the dispatch are in ``interp_expr``.
"""

from __future__ import annotations

import ast
import operator
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from .flow import (
    CONST,
    FMT,
    MODULE,
    NOCONST,
    PATHOBJ,
    REQUEST,
    Val,
    constant,
    data_tags,
    join,
    joined,
    light,
    unknown,
)
from .interp_budget import Budget, BudgetExceeded
from .interp_const import from_const
from .interp_sizes import operation_size, weight
from .sources import Imports

__all__ = ["ExprOps", "apply_const", "element"]


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


def apply_const(fn: Callable[[Any, Any], Any], a: object, b: object) -> object:
    """``fn(a, b)`` for an operation whose result is no bigger than its operands (comparisons,
    indexing), or NOCONST."""
    if a is NOCONST or b is NOCONST:
        return NOCONST
    try:
        return fn(a, b)
    except Exception:
        return NOCONST


class ExprOps(ABC):
    """Operators, conditions and containers, and the budget they are computed within (the
    expressions' base class)."""

    env: dict[str, Val]
    globals: dict[str, Val]
    imports: Imports
    local_names: frozenset[str]

    @abstractmethod
    def line_of(self, node: ast.AST) -> int | None:
        """The line of ``node`` in the analysed file."""

    @abstractmethod
    def call(self, e: ast.Call) -> Val:
        """The value of call ``e`` (``CallEval``)."""

    @abstractmethod
    def bind(self, target: ast.expr, v: Val) -> None:
        """Bind ``v`` to an assignment target (``AssignEval``)."""

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
        return apply_const(fn, a, b)

    @abstractmethod
    def ev(self, e: ast.expr) -> Val:
        """The value of expression ``e`` (``ExprEval``)."""

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
            r = apply_const(fn, left.const, right.const) if fn is not None else NOCONST
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
        bounds: list[object] = []
        for part in (e.lower, e.upper, e.step):
            c = self.ev(part).const if part is not None else None
            bounds.append(c if c is None or (type(c) is int and abs(c) < 1 << 31) else NOCONST)
        if NOCONST in bounds or bounds[2] == 0:
            return constant()
        return constant(slice(*bounds))  # "~ fr- mr"[::-1]: the text it picks is folded
