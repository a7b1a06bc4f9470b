"""A ``MERGE`` whose match condition holds for every row (``ON 1=1``, ``ON TRUE``, ``ON
t.id = t.id``): its ``WHEN MATCHED THEN DELETE`` is a ``DELETE`` without ``WHERE`` and its
``WHEN MATCHED THEN UPDATE`` an ``UPDATE`` of every row, written another way."""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp

from .sql_issue import C, Issue, fragment
from .sql_parse import Parsed
from .sql_truth import truth

__all__ = ["merge_all"]


def _always(on: exp.Expression) -> bool:
    while isinstance(on, exp.Paren):
        on = on.this
    if isinstance(on, exp.EQ | exp.NullSafeEQ) and on.this.sql() == on.expression.sql():
        return True  # ``ON t.id = t.id``: the target against itself
    return truth(on) is True


def merge_all(p: Parsed) -> Iterator[Issue]:
    """``p`` is a ``MERGE`` that deletes or updates every row of its target (see the module)."""
    if p.tree is None or not isinstance(p.tree, exp.Merge):
        return
    on = p.tree.args.get("on")
    whens = p.tree.args.get("whens")
    if not isinstance(on, exp.Expression) or not isinstance(whens, exp.Expression):
        return
    if not _always(on):
        return
    target = p.tree.this.sql()[:60] if isinstance(p.tree.this, exp.Expression) else "?"
    for when in whens.expressions[:8]:
        if not when.args.get("matched") or when.args.get("condition") is not None:
            continue
        then = when.args.get("then")
        if isinstance(then, exp.Var) and then.name.upper() == "DELETE":
            verb = "DELETE"
        elif isinstance(then, exp.Update):
            verb = "UPDATE"
        else:
            continue
        yield Issue(
            C,
            f"MERGE on an always-true condition: {verb} of every row of {target}",
            fragment(p),
            "destroy",
        )
        return
