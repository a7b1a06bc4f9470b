"""What every sink shares: the call site it reports through, severities by flow, descriptions,
argument lookup."""

from __future__ import annotations

import ast
from typing import Protocol

from humangr.contracts import Severity

from .flow import NOCONST, TAINTED, UNKNOWN, Val, level

__all__ = ["Site", "arg", "detail", "flow_severity"]


class Site(Protocol):
    """The interpreter as a sink sees it, at the call being evaluated."""

    context: str
    """The name of the function being analysed (empty at module level)."""
    path_checked: bool
    """A path containment check ran in this body."""

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
        """Report a finding of ``check`` at ``node``."""
        ...

    def is_local_call(self, e: ast.Call) -> bool:
        """Whether ``e`` calls a function defined in the analysed code."""
        ...


def flow_severity(
    flow: int, top: Severity, mid: Severity | None, low: Severity | None
) -> Severity | None:
    return top if flow == TAINTED else mid if flow == UNKNOWN else low


def detail(v: Val, kind: int, sink: str) -> str:
    flow = level(v, kind)
    if flow == TAINTED:
        return f"Request input ({v.origin or 'a request parameter'}) reaches {sink}."
    if flow == UNKNOWN:
        return f"{sink} gets text built from values of unknown origin (parameters, variables)."
    if v.const is NOCONST:
        return f"{sink} gets constant or sanitized data only."
    return f"{sink} gets constant text only."


def arg(args: list[Val], kw: dict[str, Val], index: int, *names: str) -> Val | None:
    if 0 <= index < len(args):
        return args[index]
    for n in names:
        if n in kw:
            return kw[n]
    return None
