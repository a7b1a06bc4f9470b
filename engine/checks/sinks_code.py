"""The code-injection sinks of the taint engine: eval / exec, module loaders, interpreters and
templates, and functions chosen by name.

``code_sinks`` reports a call that runs Python code (or a module, a script or a template) built
from the data it consumes; ``code_flow`` judges code handed to an interpreter, also for the
argument vectors of ``sinks``.
"""

from __future__ import annotations

import ast

from humangr.contracts import Severity

from .flow import CONST, DECODED, TAINTED, Val, level
from .libtypes import CODE_AT_1, code_method
from .sink_util import Site, arg, detail, flow_severity

__all__ = ["chosen_callee", "code_flow", "code_sinks"]

_CODE = frozenset({"eval", "exec", "builtins.eval", "builtins.exec", "execfile"})
_LOADERS = frozenset(
    {"importlib.import_module", "__import__", "builtins.__import__", "importlib.__import__"}
    | {
        "runpy.run_path",
        "runpy.run_module",
        "imp.load_source",
        "importlib.machinery.SourceFileLoader",
    }
)
"""Calls that import or run a module or script named by their first argument."""
_TEMPLATES = frozenset(
    {"flask.render_template_string", "jinja2.Template", "jinja2.environment.Template"}
    | {"mako.template.Template", "render_template_string", "django.template.Template"}
)


def code_flow(it: Site, e: ast.Call, code: Val, sink: str) -> None:
    """Code (or a module name) run by a Python interpreter: critical for request input, high
    for code of unknown origin, nothing for constants."""
    flow = level(code)
    sev = flow_severity(flow, Severity.CRITICAL, Severity.HIGH, None)
    if sev is not None:
        title = (
            "Python code from request input (code injection)"
            if flow == TAINTED
            else ("Python code of unknown origin run by an interpreter")
        )
        it.report("eval-exec", e, sev, title, detail(code, 3, sink), flow, code.src)


def code_sinks(
    it: Site,
    e: ast.Call,
    canon: str,
    method: str | None,
    args: list[Val],
    kw: dict[str, Val],
    recv: Val | None,
) -> None:
    """Report a call that runs code, a module or a template built from its arguments."""
    if canon in _LOADERS:
        name = arg(args, kw, 0, "name", "path_name", "mod_name")
        if name is not None and level(name) == TAINTED:
            it.report(
                "eval-exec",
                e,
                Severity.CRITICAL,
                "Module or script to run chosen by request input (code injection)",
                detail(name, 3, canon),
                TAINTED,
                name.src,
            )
        return
    if canon in CODE_AT_1 or (recv is not None and code_method(recv.cls, method)):
        code = arg(args, kw, 1 if canon in CODE_AT_1 else 0, "source", "code", "script")
        if code is not None:
            code_flow(it, e, code, canon if canon in CODE_AT_1 else f".{method}()")
        return
    if canon in _CODE:
        code = arg(args, kw, 0, "source", "expression", "object")
        if code is None:
            return
        flow = level(code)
        if flow == CONST and code.tags & DECODED:
            it.report(
                "eval-exec",
                e,
                Severity.CRITICAL,
                "eval/exec of a decoded payload (code hidden from review)",
                f"{canon} runs code decoded or decompressed at run time (base64, hex, rot13, "
                "zlib, marshal): what it does cannot be read in the change.",
                CONST,
            )
            return
        sev = flow_severity(flow, Severity.CRITICAL, Severity.HIGH, None)
        title = (
            "eval/exec of request input (code injection)"
            if flow == TAINTED
            else "eval/exec of dynamic code"
        )
        if sev is not None:
            it.report("eval-exec", e, sev, title, detail(code, 3, canon), flow, code.src)
        return
    if canon in _TEMPLATES or method == "from_string":
        src = arg(args, kw, 0, "source", "text")
        if src is not None and level(src) == TAINTED:
            it.report(
                "eval-exec",
                e,
                Severity.CRITICAL,
                "Template built from request input (server-side template injection)",
                detail(src, 3, canon if canon in _TEMPLATES else "from_string"),
                TAINTED,
                src.src,
            )


def chosen_callee(it: Site, e: ast.Call, name: Val, where: str) -> None:
    """A function picked by name from a module or a namespace (``getattr(os, name)(...)``,
    ``globals()[name]()``): any function of it can be called when request input names it."""
    if level(name) == TAINTED:
        it.report(
            "eval-exec",
            e,
            Severity.CRITICAL,
            "Function to call chosen by request input (code injection)",
            detail(name, 3, where),
            TAINTED,
            name.src,
        )
