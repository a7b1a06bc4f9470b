"""The module whose namespace a subscript reads: ``os.__dict__["system"]`` and
``vars(os)["system"]`` are ``os.system`` to the taint engine, as ``getattr(os, "system")``
is."""

from __future__ import annotations

import ast
from typing import Protocol

from .flow import Val
from .libtypes import fn_name
from .sources import Imports

__all__ = ["namespace_of"]

_VARS = frozenset({"vars", "builtins.vars"})


class _Eval(Protocol):
    imports: Imports

    def ev(self, e: ast.expr) -> Val:
        """The value of ``e``."""
        ...


def namespace_of(it: _Eval, node: ast.expr, base: Val) -> str | None:
    """The dotted name of the module or callable whose namespace ``node`` (of value
    ``base``) is, or None."""
    ref = fn_name(base.cls)
    if ref is not None and ref.endswith(".__dict__") and ref != "builtins.__dict__":
        return ref[: -len(".__dict__")] or None
    if (
        isinstance(node, ast.Call)
        and len(node.args) == 1
        and not node.keywords
        and it.imports.canon(node.func) in _VARS
    ):
        return fn_name(it.ev(node.args[0]).cls)
    return None
