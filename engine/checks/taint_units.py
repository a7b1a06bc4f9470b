"""What the taint engine analyses and finds: the Python files of an action as units, the
functions they define (with the parameters a framework fills in), and the sinks reached.

``taint`` runs them; these are its data and the readings of a function's definition it needs.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass, field

from humangr.contracts import Severity

from .diff import FileDiff
from .flow import Val
from .fragments import Fragment, PyFile
from .interp_budget import Limit
from .pynames import dotted
from .routes import entry_params, is_web, request_param
from .sources import Imports
from .testfiles import is_test_path

__all__ = [
    "Analysis",
    "Func",
    "SinkEvent",
    "Unit",
    "first_line",
    "functions_of",
    "registers",
    "request_params",
    "self_call",
]


@dataclass(frozen=True, slots=True)
class SinkEvent:
    """A sink reached: the worst flow into one call node over every context it ran in."""

    check: str
    file: FileDiff
    frag: Fragment
    node: ast.AST
    severity: Severity
    title: str
    detail: str
    flow: int
    src: tuple[str | None, int] | None = None
    """Where the tainted input was read (file, line)."""


@dataclass(slots=True)
class Unit:
    """One Python file of the action: its fragments' imports and its module-level names."""

    py: PyFile
    imports: Imports
    globals: dict[str, Val] = field(default_factory=dict)


@dataclass(slots=True)
class Func:
    """A function defined in the analysed code; ``entry``: the parameters a framework fills
    in (route and view parameters), or None."""

    node: ast.FunctionDef | ast.AsyncFunctionDef
    unit: Unit
    frag: Fragment
    cls: str | None
    """The class the function is a method of."""
    entry: dict[str, Val] | None

    @property
    def method(self) -> bool:
        return self.cls is not None


@dataclass(slots=True)
class Analysis:
    """The sinks the action's Python code reaches, and the fragments the engine could not run."""

    events: list[SinkEvent] = field(default_factory=list)
    failed: set[int] = field(default_factory=set)
    """``id()`` of fragments whose analysis failed (their lines are judged by patterns)."""
    limits: list[Limit] = field(default_factory=list)
    """Where a budget stopped the engine short (constants not computed, work not done)."""
    more_limits: int = 0
    """Limits met beyond those in ``limits``."""


def functions_of(unit: Unit, frag: Fragment) -> Iterable[Func]:
    """The functions and methods a fragment defines, nested ones included."""
    web = is_web(unit.imports) and not is_test_path(unit.py.file.path)
    stack: list[tuple[ast.AST, str | None]] = [(frag.tree, None)]
    while stack:
        node, cls = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                entry = entry_params(child, cls is not None, web)
                yield Func(child, unit, frag, cls, entry)
                stack.append((child, None))
            elif isinstance(child, ast.ClassDef):
                stack.append((child, child.name))
            elif not isinstance(child, ast.expr):
                stack.append((child, cls))


_PLAIN_DECORATORS = frozenset(
    {"staticmethod", "classmethod", "property", "cache", "lru_cache", "cached_property", "wraps"}
    | {"setter", "getter", "deleter", "abstractmethod", "override", "overload", "contextmanager"}
    | {"asynccontextmanager"}
)


def registers(deco: ast.expr) -> bool:
    """A decorator that may hand the function to a framework (not staticmethod, cache, ...)."""
    target = deco.func if isinstance(deco, ast.Call) else deco
    return dotted(target).rsplit(".", 1)[-1] not in _PLAIN_DECORATORS


def self_call(f: ast.expr) -> bool:
    """Whether a callee is ``self.name`` or ``cls.name``."""
    return (
        isinstance(f, ast.Attribute)
        and isinstance(f.value, ast.Name)
        and f.value.id in ("self", "cls")
    )


def request_params(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The parameters of a function that hold a web request (by name or annotation)."""
    a = node.args
    return {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs] if request_param(p)}


def first_line(frag: Fragment) -> int | None:
    """The first added line of a fragment, or None."""
    return min(frag.added) if frag.added else None
