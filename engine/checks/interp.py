"""The taint engine's statements: assignment, branches with constant folding and guards, loops.

``Interp`` runs one body (a module fragment or a function under one calling context) over an
environment of names. Branches whose condition folds to a constant run alone; a condition that
validates a name (``x.isdigit()``, ``x in ALLOWED``, ``re.fullmatch(...)``, a containment check
of a normalized path) cleans that name where it holds, and after the ``if`` when the other
branch cannot fall through. Loops run their body twice so values carried between iterations
are seen, and keep what a ``break`` / ``continue`` leaves; a loop that surely runs (a constant
non-empty sequence, ``while True``) does not keep the values from before it. A ``match`` on a
constant runs the first case that surely matches only (``interp_control.py``). Assignment and
deletion are in ``interp_assign.py``; branches and guards in ``interp_branches.py``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from humangr.contracts import Severity

from .flow import MODULE, Val, constant, join, unknown
from .fragments import Fragment
from .interp_branches import ENV_STEP, BranchEval, merge
from .interp_budget import Budget
from .interp_calls import Resolver
from .interp_control import has_jump, pattern_matches, surely_nonempty
from .interp_expr import element
from .sources import Imports

__all__ = ["Interp", "Reporter", "merge"]

Reporter = Callable[[str, ast.AST, Severity, str, str, int, tuple[str | None, int] | None], None]
"""``(check, node, severity, title, detail, flow level, source)`` of one sink reached."""

_MAX_LOOP_DEPTH = 3
_MAX_YIELDS = 64
"""Yielded values kept apart per body (more are joined into the last)."""


class Interp(BranchEval):
    """Runs statements of one body; ``returns`` collects the values it returns."""

    def __init__(
        self,
        prog: Resolver,
        imports: Imports,
        frag: Fragment,
        env: dict[str, Val],
        global_env: dict[str, Val],
        local_names: frozenset[str],
        report: Reporter,
        budget: Budget | None = None,
    ) -> None:
        self.prog = prog
        self.budget = budget if budget is not None else Budget()
        self.imports = imports
        self.frag = frag
        self.env = env
        self.globals = global_env
        self.local_names = local_names
        self._report = report
        self.returns: list[Val] = []
        self.yields: list[Val] = []
        """What the body yields: a call of a generator iterates over these."""
        self._loops = 0
        self._exits: list[list[dict[str, Val]]] = []
        """Per enclosing loop: the environments a ``break`` / ``continue`` leaves with."""
        self.macs: dict[str, set[str]] = {}
        """Names holding a MAC (``hmac.new(key, msg)``) -> the names of its message."""

    def line_of(self, node: ast.AST) -> int | None:
        lineno = getattr(node, "lineno", None)
        return self.frag.new_line(lineno) if isinstance(lineno, int) else None

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
        """A sink reached (the program keeps the worst per node); ``src``: where its tainted
        input was read."""
        self._report(check, node, severity, title, detail, flow, src)

    def run(self, body: list[ast.stmt]) -> None:
        for s in body:
            self._step(s, 1)
            handler = _STMTS.get(type(s))
            if handler is not None:
                handler(self, s)
            else:
                for child in ast.iter_child_nodes(s):
                    if isinstance(child, ast.expr):
                        self.ev(child)

    def _expr(self, s: ast.Expr) -> None:
        self.ev(s.value)

    def _return(self, s: ast.Return) -> None:
        self.returns.append(self.ev(s.value) if s.value is not None else constant(None))

    def yielded(self, v: Val) -> None:
        if len(self.yields) < _MAX_YIELDS:
            self.yields.append(v)
        else:
            self.yields[-1] = join(self.yields[-1], v)

    def _loop(self, s: ast.For | ast.AsyncFor | ast.While) -> None:
        if isinstance(s, ast.While):
            truth = self.truth(s.test)
            if truth is False:
                self.run(s.orelse)
                return
            item: Val | None = None
            surely = truth is True
        else:
            seq = self.ev(s.iter)
            item = element(seq)
            surely = surely_nonempty(seq, self._range_args(s.iter))
        pre = self.env
        self._step(s, 2 * len(pre) // ENV_STEP)
        self.env = dict(pre)
        self._loops += 1
        self._exits.append([])
        ends: list[dict[str, Val]] = []
        for _ in range(2 if self._loops <= _MAX_LOOP_DEPTH else 1):
            if item is not None and not isinstance(s, ast.While):
                self.bind(s.target, item)
            self.run(s.body)
            ends.append(self.env)
            self.env = dict(self.env)
        exits = self._exits.pop()
        self._loops -= 1
        # After the loop: any number of iterations (none, unless the body surely runs and
        # cannot leave early), or a break / continue.
        out = ends[0] if surely and not has_jump(s.body) else merge(pre, ends[0])
        for env in [*ends[1:], *exits]:
            out = merge(out, env)
        self.env = out
        self.run(s.orelse)

    def _range_args(self, node: ast.expr) -> list[object] | None:
        """The constant arguments of ``range(...)`` iterated by a loop, or None."""
        if not isinstance(node, ast.Call) or node.keywords:
            return None
        if self.imports.canon(node.func) not in ("range", "builtins.range"):
            return None
        return [self.ev(a).const for a in node.args]

    def _try(self, s: ast.Try | ast.TryStar) -> None:
        pre = self.env
        self._step(s, (1 + len(s.handlers)) * len(pre) // ENV_STEP)
        self.env = dict(pre)
        self.run(s.body)
        after = self.env
        ends: list[dict[str, Val]] = []
        for h in s.handlers:
            self.env = merge(pre, after)
            if h.type is not None:
                self.ev(h.type)
            if h.name:
                self.env[h.name] = unknown()
            self.run(h.body)
            if not self.terminates(h.body):
                ends.append(self.env)
        self.env = after
        self.run(s.orelse)
        out = self.env
        for env in ends:
            out = merge(out, env)
        self.env = out
        self.run(s.finalbody)

    def _with(self, s: ast.With | ast.AsyncWith) -> None:
        for item in s.items:
            v = self.ev(item.context_expr)
            if item.optional_vars is not None:
                self.bind(item.optional_vars, v)
        self.run(s.body)

    def _match(self, s: ast.Match) -> None:
        subject = self.ev(s.subject)
        pre = self.env
        self._step(s, len(s.cases) * len(pre) // ENV_STEP)
        out: dict[str, Val] | None = None
        certain = False
        for case in s.cases:
            hit = pattern_matches(case.pattern, subject, lambda e: self.ev(e).const)
            if hit is False:
                continue
            self.env = dict(pre)
            for node in ast.walk(case.pattern):
                name = getattr(node, "name", None)
                if isinstance(name, str):
                    self.env[name] = subject
            guard = True if case.guard is None else self.truth(case.guard)
            if guard is False:
                continue
            self.run(case.body)
            out = self.env if out is None else merge(out, self.env)
            if hit is True and guard is True:
                certain = True  # the first case that surely matches is the last one tried
                break
        if out is None:
            self.env = pre
        else:
            self.env = out if certain else merge(pre, out)

    def _def(self, s: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self._step(s, len(self.env) // ENV_STEP)
        for d in s.decorator_list:
            self.ev(d)
        if isinstance(s, ast.ClassDef):
            for b in s.bases:
                self.ev(b)
            saved = self.env
            self.env = dict(saved)
            self.run(
                [x for x in s.body if not isinstance(x, ast.FunctionDef | ast.AsyncFunctionDef)]
            )
            self.env = saved
        else:
            for d in [*s.args.defaults, *(x for x in s.args.kw_defaults if x is not None)]:
                self.ev(d)
            if self.context:
                self.prog.closure(s, self.env)
        self.env[s.name] = unknown(MODULE)


_STMTS: dict[type[ast.AST], Callable[[Interp, Any], None]] = {
    ast.Assign: Interp._assign,
    ast.AnnAssign: Interp._annassign,
    ast.AugAssign: Interp._augassign,
    ast.Expr: Interp._expr,
    ast.Return: Interp._return,
    ast.If: Interp._if,
    ast.Assert: Interp._assert,
    ast.For: Interp._loop,
    ast.AsyncFor: Interp._loop,
    ast.While: Interp._loop,
    ast.Try: Interp._try,
    ast.TryStar: Interp._try,
    ast.With: Interp._with,
    ast.AsyncWith: Interp._with,
    ast.Match: Interp._match,
    ast.FunctionDef: Interp._def,
    ast.AsyncFunctionDef: Interp._def,
    ast.ClassDef: Interp._def,
    ast.Delete: Interp._delete,
}
