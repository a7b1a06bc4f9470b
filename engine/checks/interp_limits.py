"""The check that says where the taint engine stopped short of analysing the code.

A budget of the engine (``interp_budget``) met — a constant too big to compute, too much work
or time for one action — leaves the code's findings incomplete. That is never silent: each
place is one medium finding, and the lines the engine did not run are judged by patterns.
"""

from __future__ import annotations

from collections.abc import Iterator

from humangr.contracts import Severity

from .base import CheckInput, Hit

__all__ = ["analysis_limits"]

_TITLE = "Code not fully analysed"
_FIX = (
    "Review this code by hand. If the large constant or the amount of code is needed, split "
    "the change into smaller ones so that the checks can read all of it."
)


def analysis_limits(ctx: CheckInput) -> Iterator[Hit]:
    """Medium: where the taint engine's budgets stopped it (constants not computed, code not
    run); the findings of the injection checks there are incomplete."""
    if not any(True for _ in ctx.python_files()):
        return
    analysis = ctx.taint()
    for limit in analysis.limits:
        where = f"{limit.path or '<content>'}:{limit.line}" if limit.line is not None else None
        yield Hit(
            severity=Severity.MEDIUM,
            title=_TITLE,
            description=(
                f"{where or limit.path or '<content>'}: {limit.what}. The findings of the "
                "checks for this code may be incomplete."
            ),
            suggestion=_FIX,
            file=limit.path,
            line=limit.line,
        )
    if analysis.more_limits:
        yield Hit(
            severity=Severity.MEDIUM,
            title=_TITLE,
            description=(
                f"The taint engine stopped short in {analysis.more_limits} more places than "
                "those reported; the checks of this change are incomplete."
            ),
            suggestion=_FIX,
        )
