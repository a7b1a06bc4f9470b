"""The taint engine over a whole action: every Python fragment, every function, their calls.

Module-level code of each fragment runs first. A call to a function defined in the same file
(or elsewhere in the diff) runs that function with the caller's argument values (memoized per
calling context, to a bounded depth). Functions nobody calls in the analysed code, framework
entry points (routes, views) and public functions of files the diff only modifies also run
under their default context: parameters of unknown origin, route and view parameters tainted.
The result is one ``SinkEvent`` per sink node, the worst over every context it ran in.
The units, functions and results are in ``taint_units``; the values a function's parameters
get in ``taint_params``.
"""

from __future__ import annotations

import ast
import logging
from collections.abc import Callable
from functools import partial

from humangr.contracts import Severity

from .flow import Val, constant, join, joined, unknown
from .fragments import Fragment, PyFile
from .interp import Interp, Reporter, merge
from .interp_budget import Budget, BudgetExceeded
from .interp_calls import CallEval
from .sinks_resolved import RESOLVED
from .sources import Imports
from .taint_params import call_params, default_params
from .taint_units import (
    Analysis,
    Func,
    SinkEvent,
    Unit,
    first_line,
    functions_of,
    registers,
    self_call,
)

__all__ = ["Analysis", "SinkEvent", "analyze"]

log = logging.getLogger(__name__)

_MAX_DEPTH = 4
_MAX_EVENTS = 2_048
"""Sink events per action, at most, before more resolved commands are dropped."""
_MAX_RUNS = 400
"""Function runs per action, at least; 4 per function defined in the analysed code."""


class _Program:
    def __init__(self, files: list[PyFile], budget: Budget | None = None) -> None:
        self.budget = budget if budget is not None else Budget()
        self.units = [Unit(py, Imports(f.tree for f in py.fragments)) for py in files]
        self.funcs: list[Func] = [
            f for u in self.units for fr in u.py.fragments for f in functions_of(u, fr)
        ]
        self.by_name: dict[str, list[Func]] = {}
        for f in self.funcs:
            self.by_name.setdefault(f.node.name, []).append(f)
        self.classes = frozenset(
            n.name
            for u in self.units
            for fr in u.py.fragments
            for n in fr.nodes
            if isinstance(n, ast.ClassDef)
        )
        self.names = frozenset(self.by_name) | self.classes
        self.closures: dict[int, dict[str, Val]] = {}
        self.called, self.escaped = self._references()
        self.events: dict[tuple[object, ...], SinkEvent] = {}
        self.memo: dict[tuple[int, tuple[object, ...]], Val] = {}
        self.active: set[tuple[int, tuple[object, ...]]] = set()
        self.ran: set[int] = set()
        self.runs = 0
        self.max_runs = max(_MAX_RUNS, 4 * len(self.funcs))
        self.failed: set[int] = set()
        self.stopped: set[str | None] = set()
        """Files where the work budget ran out (noted once each)."""

    def _references(self) -> tuple[set[str], set[str]]:
        called: set[str] = set()
        escaped: set[str] = set()
        for u in self.units:
            for fr in u.py.fragments:
                funcs = set()
                for node in fr.nodes:
                    if isinstance(node, ast.Call):
                        f = node.func
                        if isinstance(f, ast.Name):
                            called.add(f.id)
                            funcs.add(id(f))
                        elif self_call(f):
                            assert isinstance(f, ast.Attribute)
                            called.add(f.attr)
                            funcs.add(id(f))
                for node in fr.nodes:
                    if (
                        isinstance(node, ast.Name)
                        and node.id in self.by_name
                        and id(node) not in funcs
                    ):
                        if isinstance(node.ctx, ast.Load):
                            escaped.add(node.id)
                    elif (
                        isinstance(node, ast.Attribute)
                        and node.attr in self.by_name
                        and id(node) not in funcs
                    ):
                        escaped.add(node.attr)
        return called, escaped

    def reporter(self, unit: Unit, frag: Fragment) -> Reporter:
        def report(
            check: str,
            node: ast.AST,
            sev: Severity,
            title: str,
            detail: str,
            flow: int,
            src: tuple[str | None, int] | None,
        ) -> None:
            key: tuple[object, ...] = (check, id(node))
            if check == RESOLVED:  # every command a call runs, one per text (bounded)
                if len(self.events) >= _MAX_EVENTS:
                    return
                key = (check, id(node), detail)
            old = self.events.get(key)
            if old is None or sev > old.severity:
                event = SinkEvent(check, unit.py.file, frag, node, sev, title, detail, flow, src)
                self.events[key] = event

        return report

    def interp(
        self,
        func: Func | None,
        unit: Unit,
        frag: Fragment,
        env: dict[str, Val],
        closure: dict[str, Val] | None = None,
    ) -> Interp:
        scope = unit.globals if closure is None else {**unit.globals, **closure}
        report = self.reporter(unit, frag)
        it = Interp(self, unit.imports, frag, env, scope, self.names, report, self.budget)
        it.context = func.node.name if func is not None else ""
        it.path = unit.py.file.path
        it.cls = func.cls if func is not None else None
        return it

    def resolve(
        self, e: ast.Call, recv: Val | None, cls: str | None = None
    ) -> tuple[list[Func], bool]:
        """The functions a call may run (``cls``: the class of the calling method)."""
        f = e.func
        if isinstance(f, ast.Name):
            found = [x for x in self.by_name.get(f.id, []) if not x.method]
            return found[:3], False
        if self_call(f):
            assert isinstance(f, ast.Attribute)
            methods = [x for x in self.by_name.get(f.attr, []) if x.method]
            own = [x for x in methods if x.cls == cls]
            return (own or methods)[:3], True
        if isinstance(f, ast.Attribute) and recv is not None and recv.cls is not None:
            return [x for x in self.by_name.get(f.attr, []) if x.cls == recv.cls][:3], True
        return [], False

    def is_local(self, it: CallEval, e: ast.Call) -> bool:
        return bool(self.resolve(e, None)[0])

    def defs(self, name: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
        return [f.node for f in self.by_name.get(name, [])]

    def closure(self, node: ast.AST, env: dict[str, Val]) -> None:
        """The environment a nested function is defined in (its free names)."""
        old = self.closures.get(id(node))
        self.closures[id(node)] = dict(env) if old is None else merge(old, env)

    def call_local(
        self, it: CallEval, e: ast.Call, recv: Val | None, args: list[Val], kw: dict[str, Val]
    ) -> Val | None:
        funcs, via_self = self.resolve(e, recv, it.cls)
        if not funcs:
            if isinstance(e.func, ast.Name) and e.func.id in self.classes:
                return joined([*args, *kw.values()])._replace(cls=e.func.id)
            return None
        depth = it.depth
        out: Val | None = None
        for f in funcs:
            v = self.run_func(f, call_params(f, args, kw, via_self), depth + 1)
            out = v if out is None else join(out, v)
        return out

    def run_func(self, f: Func, env: dict[str, Val], depth: int) -> Val:
        key = (
            id(f.node),
            tuple((n, v.lv, v.tags, v.const, v.items, v.cls) for n, v in env.items()),
        )
        if key in self.memo:
            return self.memo[key]
        if depth == 0 and self.runs >= self.max_runs:
            self.failed.add(id(f.frag))
            line = f.frag.node_line(f.node) or first_line(f.frag)
            what = (
                f"more than {self.max_runs:,} function runs; {f.node.name}() was judged by "
                "patterns only"
            )
            self.budget.note(f.unit.py.file.path, line, what)
        if key in self.active or depth > _MAX_DEPTH or self.runs >= self.max_runs:
            return joined(list(env.values())) if env else unknown()
        self.active.add(key)
        self.runs += 1
        self.ran.add(id(f.node))
        try:
            it = self.interp(f, f.unit, f.frag, env, self.closures.get(id(f.node)))
            it.depth = depth
            it.run(f.node.body)
        finally:
            self.active.discard(key)
        result = it.returns[0] if it.returns else constant(None)
        for r in [*it.returns[1:], *it.yields]:
            result = join(result, r)  # a generator: iterating the call gives what it yields
        self.memo[key] = result
        return result

    def needs_default(self, f: Func) -> bool:
        name = f.node.name
        registered = any(registers(d) for d in f.node.decorator_list)
        if f.entry is not None or registered or name in self.escaped:
            return True
        if name not in self.called:
            return True
        private = name.startswith("_")
        return not private and not f.unit.py.file.new_file

    def run(self) -> None:
        for u in self.units:
            for fr in u.py.fragments:
                self._guarded(fr, partial(self._run_module, u, fr))
        for f in self.funcs:
            if self.needs_default(f):
                self._guarded(f.frag, partial(self._run_default, f))
        for f in self.funcs:
            if id(f.node) not in self.ran:
                self._guarded(f.frag, partial(self._run_default, f))

    def path_of(self, frag: Fragment) -> str | None:
        """The file a fragment belongs to."""
        for u in self.units:
            if any(f is frag for f in u.py.fragments):
                return u.py.file.path
        return None

    def _run_module(self, unit: Unit, frag: Fragment) -> None:
        it = self.interp(None, unit, frag, unit.globals)
        it.run(frag.tree.body)
        if it.env is not unit.globals:  # names bound in module-level branches
            unit.globals.update(it.env)

    def _run_default(self, f: Func) -> None:
        self.run_func(f, default_params(f), 0)

    def _guarded(self, frag: Fragment, job: Callable[[], None]) -> None:
        try:
            job()
        except RecursionError:
            log.warning("taint engine: a fragment nests too deeply; judged by patterns instead")
            self.failed.add(id(frag))
            what = "the code nests too deeply for the taint engine; it was judged by patterns only"
            self.budget.note(self.path_of(frag), first_line(frag), what)
        except BudgetExceeded as exc:
            self.failed.add(id(frag))
            if exc.path in self.stopped:
                return  # one note per file: where its analysis stopped
            self.stopped.add(exc.path)
            line = exc.line if exc.line is not None else first_line(frag)
            self.budget.note(
                exc.path, line, f"{exc.why}; the code from here on was judged by patterns only"
            )


def analyze(files: list[PyFile], budget: Budget | None = None) -> Analysis:
    """The sinks reached in the Python files of an action (``budget``: the work it may take;
    by default the standard budget of one action)."""
    if not files:  # a tool call or a diff without Python: nothing to set up
        return Analysis()
    prog = _Program(files, budget)
    prog.run()
    b = prog.budget
    events = list(prog.events.values())
    return Analysis(events=events, failed=prog.failed, limits=list(b.limits), more_limits=b.more)
