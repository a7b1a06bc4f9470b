"""Framework entry points: route handlers, views and Lambda handlers, and what their
parameters hold when the framework calls them."""

from __future__ import annotations

import ast
import re

from .flow import REQUEST, Val, constant, tainted, unknown
from .pynames import dotted
from .sources import Imports

__all__ = ["defaults_of", "entry_params", "is_web", "param_names", "request_param"]

_REQUEST_TYPES = re.compile(r"(?:^|\.)(?:Request|HttpRequest|WSGIRequest|ASGIRequest|BaseRequest)$")

_ROUTE_DECOS = frozenset(
    {"route", "get", "post", "put", "patch", "delete", "head", "options", "api_route", "websocket"}
)
_FLASK_PARAM = re.compile(r"<(?:(\w+)(?:\([^)]*\))?:)?(\w+)>")
_BRACE_PARAM = re.compile(r"\{(\w+)(?::(\w+))?\}")
_SAFE_CONVERTERS = frozenset({"int", "float", "uuid"})
_SAFE_TYPES = re.compile(
    r"^(?:int|float|bool|complex|UUID|uuid\.UUID|datetime|date|time|timedelta|Decimal|"
    r"datetime\.\w+|decimal\.Decimal|Literal\[.*\]|Optional\[(?:int|float|bool|UUID)\]|"
    r"(?:int|float|bool|UUID) \| None)$"
)
_DEPENDENCY = frozenset({"Depends", "Security", "fastapi.Depends", "fastapi.Security"})


def _routes(fdef: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    out: list[str] = []
    for deco in fdef.decorator_list:
        if not isinstance(deco, ast.Call):
            continue
        name = dotted(deco.func).rsplit(".", 1)[-1]
        if name not in _ROUTE_DECOS:
            continue
        args = [*deco.args[:1], *(k.value for k in deco.keywords if k.arg in ("rule", "path"))]
        for a in args:
            if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value[:1] == "/":
                out.append(a.value)
    return out


def _placeholders(routes: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for r in routes:
        for conv, name in _FLASK_PARAM.findall(r):
            found[name] = conv or "string"
        for name, conv in _BRACE_PARAM.findall(r):
            found[name] = conv or "str"
    return found


def _params(fdef: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[ast.arg]:
    a = fdef.args
    return [*a.posonlyargs, *a.args, *a.kwonlyargs]


_WEB = re.compile(
    r"^(?:django|rest_framework|pyramid|flask|fastapi|starlette|aiohttp|tornado|bottle|sanic"
    r"|falcon|quart|werkzeug)\b"
)


def is_web(imports: Imports) -> bool:
    """Whether a file imports a web framework."""
    return any(_WEB.match(v) for v in imports.names.values())


def entry_params(
    fdef: ast.FunctionDef | ast.AsyncFunctionDef, method: bool, web: bool = True
) -> dict[str, Val] | None:
    """The values of a function's parameters when a web framework calls it, or None.

    Route handlers (Flask, FastAPI, Starlette, aiohttp, bottle): path placeholders and, for
    FastAPI-style handlers, every parameter not typed as a number or a dependency. Django-style
    views (first parameter ``request``, in a file that imports a web framework: ``web``): the
    URL parameters. AWS Lambda handlers: ``event``.
    """
    params = _params(fdef)
    if method and params and params[0].arg in ("self", "cls"):
        params = params[1:]
    if not params:
        return None
    routes = _routes(fdef)
    holes = _placeholders(routes)
    out: dict[str, Val] = {}
    view = web and (params[0].arg in ("request", "req") or _request_type(params[0]))
    lam = len(params) >= 2 and params[0].arg == "event" and params[1].arg == "context"
    if not (routes or view or lam):
        return None
    defaults = _defaults(fdef)
    for p in params:
        ann = ast.unparse(p.annotation) if p.annotation is not None else ""
        dflt = defaults.get(p.arg)
        if p.arg in ("request", "req") or _request_type(p):
            out[p.arg] = unknown(REQUEST)
        elif lam:
            out[p.arg] = tainted("Lambda event") if p.arg == "event" else unknown()
        elif p.arg in holes:
            safe = holes[p.arg] in _SAFE_CONVERTERS or _SAFE_TYPES.match(ann)
            out[p.arg] = constant() if safe else tainted(f"route parameter {p.arg!r}")
        elif dflt is not None and dotted(dflt.func if isinstance(dflt, ast.Call) else dflt) in (
            _DEPENDENCY
        ):
            out[p.arg] = unknown()
        elif _SAFE_TYPES.match(ann):
            out[p.arg] = constant()
        elif re.search(r"(?:Session|Connection|Depends|BackgroundTasks|Response)\b", ann):
            out[p.arg] = unknown()
        else:
            out[p.arg] = tainted(f"request parameter {p.arg!r}")
    return out


def request_param(p: ast.arg) -> bool:
    """A parameter that holds the web request (named ``request``/``req`` or typed Request)."""
    return p.arg in ("request", "req") or _request_type(p)


def _request_type(p: ast.arg) -> bool:
    return p.annotation is not None and bool(_REQUEST_TYPES.search(ast.unparse(p.annotation)))


def _defaults(fdef: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> dict[str, ast.expr]:
    a = fdef.args
    pos = [*a.posonlyargs, *a.args]
    out = {p.arg: d for p, d in zip(pos[len(pos) - len(a.defaults) :], a.defaults, strict=True)}
    out.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d})
    return out


def param_names(fdef: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[str]:
    """Positional-or-keyword then keyword-only parameter names."""
    return [p.arg for p in _params(fdef)]


def defaults_of(fdef: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> dict[str, ast.expr]:
    """Each parameter's default expression."""
    return _defaults(fdef)
