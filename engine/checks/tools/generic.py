"""Checks every tool call gets, whatever its kind: arguments that were not fully reviewed."""

from __future__ import annotations

from collections.abc import Iterator

from humangr.contracts import Severity

from ..base import CheckInput, Hit

__all__ = ["tool_call"]


def tool_call(ctx: CheckInput) -> Iterator[Hit]:
    """An argument cut to fit the size limit was not fully reviewed: a human must look."""
    if ctx.tool is None:
        return
    for argument in ctx.tool.call.truncated:
        yield Hit(
            severity=Severity.HIGH,
            title="not fully reviewed: the argument was cut to fit the size limit",
            description=(
                f"The argument `{argument}` of {ctx.tool.name} was larger than the review limit "
                "and only its beginning was reviewed; what follows may do anything."
            ),
            suggestion="Read the whole argument before approving, or pass smaller arguments.",
            argument=argument,
        )
