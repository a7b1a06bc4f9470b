"""A terminal status written to a class of rows: ``UPDATE … SET status = 'CANCELLED'`` (closed,
terminated, void, suspended, lapsed, revoked, written off) whose ``WHERE`` keeps rows by an
open comparison with a typed value (``appt_date >= '2025-06-13'``, ``overdue_days > 0``) and
picks none by the row's own key. Cancelling one order by its id runs; cancelling every row past
a date or above a number ends people's bookings, policies or accounts in bulk, and a person
confirms (high). Comparisons with the clock (``expires_at < now()``) are housekeeping and run.
Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sqlglot import exp

from .sql_issue import H, Issue, fragment
from .sql_money import snake
from .sql_parse import Parsed

__all__ = ["marks_verified", "mass_status"]

_STATUS = re.compile(r"(?:^|_)(?:status|state|lifecycle|stage)$")
_TERMINAL = re.compile(
    r"^(?:cancel+(?:l?ed)?|cancel+ation|closed|closed_\w+|terminated|void(?:ed)?|suspended|"
    r"lapsed|revoked|written_?off|deactivated|disabled|rescinded|withdrawn|discontinued)$"
)
_KEY = re.compile(r"(?:^|_)(?:id|uuid|key|number|no|num|ref|reference|code)$")
_MAX_NODES = 8


_VERIFIED = re.compile(r"(?:^|_)(?:verified|is_verified|confirmed|\w+_verified|\w+_confirmed)$")


def marks_verified(node: exp.Update) -> bool:
    """Whether the UPDATE marks the row's address verified (``EmailVerified = true``): the
    row is an account someone signs in to, whatever its table is called."""
    for e in node.expressions[:64]:
        if isinstance(e, exp.EQ) and isinstance(e.this, exp.Column):
            value = e.expression
            on = (isinstance(value, exp.Boolean) and value.this) or (
                isinstance(value, exp.Literal) and str(value.this).lower() in ("1", "true")
            )
            if on and _VERIFIED.search(snake(e.this.name)):
                return True
    return False


def _keyed(where: exp.Expression, table: str) -> bool:
    """Whether ``where`` picks rows by the table's own key (``id = 7``,
    ``order_number IN (…)``); another table's key (``provider_id``) is not the row's."""
    stem = table.rstrip("s")
    for node in where.find_all(exp.EQ, exp.In):
        col = node.this
        if not isinstance(col, exp.Column):
            continue
        name = snake(col.name)
        if name == "id" or (_KEY.search(name) and (stem and name.startswith(stem[:5]))):
            return True
    return False


def _open_range(where: exp.Expression) -> bool:
    """A comparison of a column with a typed literal (not the clock)."""
    for node in where.find_all(exp.GT, exp.GTE, exp.LT, exp.LTE):
        if isinstance(node.this, exp.Column) and isinstance(node.expression, exp.Literal):
            return True
    return False


def mass_status(p: Parsed) -> Iterator[Issue]:
    """The first UPDATE of ``p`` that writes a terminal status to a class of rows."""
    if p.tree is None:
        return
    for n, node in enumerate(p.tree.find_all(exp.Update)):
        if n >= _MAX_NODES:
            return
        where = node.args.get("where")
        if not isinstance(where, exp.Expression):
            continue
        terminal = any(
            isinstance(e, exp.EQ)
            and isinstance(e.this, exp.Column)
            and _STATUS.search(snake(e.this.name))
            and isinstance(e.expression, exp.Literal)
            and _TERMINAL.match(str(e.expression.this).strip().lower())
            for e in node.expressions[:64]
        )
        if not terminal or not _open_range(where):
            continue
        target = node.find(exp.Table)
        table = snake(target.name) if target is not None else ""
        if not _keyed(where, table):
            yield Issue(
                H, "ends every row of a class (a terminal status by a range)", fragment(p), "change"
            )
            return
