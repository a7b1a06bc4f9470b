"""The values a local function's parameters get when the taint engine runs it: the caller's
arguments and keywords, the defaults, request input for entry points (routes, views) and the
library types their annotations give.
"""

from __future__ import annotations

import ast

from .flow import MODULE, REQUEST, Val, constant, join, joined, unknown
from .libtypes import annotated, context_param
from .routes import defaults_of, param_names
from .taint_units import Func, request_params

__all__ = ["call_params", "default_params", "typed_params"]


def typed_params(f: Func, env: dict[str, Val]) -> dict[str, Val]:
    """``env`` with the library types the parameters' annotations give."""
    a = f.node.args
    params = [*a.posonlyargs, *a.args, *a.kwonlyargs]
    for p in params:
        if p.annotation is not None and p.arg in env:
            cls = annotated(p.annotation, f.unit.imports)
            if cls is not None:
                env[p.arg] = env[p.arg]._replace(cls=cls)
    task = context_param(f.node.decorator_list, f.unit.imports) if params else None
    if task is not None and params[0].arg in env:
        env[params[0].arg] = env[params[0].arg]._replace(cls=task)
    return env


def call_params(f: Func, args: list[Val], kw: dict[str, Val], via_self: bool) -> dict[str, Val]:
    """The parameters of ``f`` called with ``args`` and ``kw`` (the rest from defaults or
    unknown; entry and request parameters also request input)."""
    names = param_names(f.node)
    if f.method and names and names[0] in ("self", "cls"):
        env = {names[0]: unknown()}
        names = names[1:]
    else:
        env = {}
    defaults = defaults_of(f.node)
    requests = request_params(f.node)
    for i, name in enumerate(names):
        if i < len(args):
            v = args[i]
        elif name in kw:
            v = kw[name]
        elif name in defaults:
            d = defaults[name]
            v = constant(d.value) if isinstance(d, ast.Constant) else unknown()
        else:
            v = unknown()
        if f.entry is not None and name in f.entry:
            v = join(v, f.entry[name])
        elif name in requests:
            v = join(v, unknown(REQUEST))
        env[name] = v
    a = f.node.args
    if a.vararg is not None:
        env[a.vararg.arg] = joined(args[len(names) :]) if len(args) > len(names) else constant(())
    if a.kwarg is not None:
        env[a.kwarg.arg] = joined([v for k, v in kw.items() if k not in names])
    return typed_params(f, env)


def default_params(f: Func) -> dict[str, Val]:
    """The parameters of ``f`` when nobody in the analysed code calls it: of unknown origin,
    request input for entry and request parameters."""
    names = param_names(f.node)
    requests = request_params(f.node)
    env = {n: unknown(REQUEST if n in requests else 0) for n in names}
    a = f.node.args
    for extra in (a.vararg, a.kwarg):
        if extra is not None:
            env[extra.arg] = unknown()
    if f.entry is not None:
        env.update(f.entry)
    if f.frag.new_line(f.node.lineno) is None:
        # a ``def`` taken from a hunk heading (git apply ignores headings): its parameters
        # may as well be the module's names of the same spelling
        for n in names:
            g = f.unit.globals.get(n)
            if g is not None and not g.tags & MODULE:
                env[n] = join(env[n], g)
    return typed_params(f, env)
